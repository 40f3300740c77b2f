//! Checks made before a run starts, shared by scenario files, their `do` commands and the
//! command line: the replication factor rule, routing a `KEY=VALUE` setting by the config registry's
//! scope, and whether a command names things that exist.

use crate::cluster::command::create_topic;
use crate::cluster::command::set::Set;
use crate::cluster::command::{BrokerState, Catalog, Command};
use crate::cluster::spec::ClusterSpec;
use crate::config::{self, BrokerConfig, ConfigError, ProducerConfig, Scope, TopicConfig};
use crate::sim::group::OFFSETS_TOPIC;
use crate::sim::{BrokerId, SimTime};
use std::collections::BTreeMap;

use crate::sim::assignment;
pub use crate::sim::assignment::MAX_PARTITIONS;

/// A partition count from 1 to [`MAX_PARTITIONS`]. Errors: `INVALID_PARTITIONS` with Kafka's
/// message for 0.
pub fn check_partitions(partitions: u32) -> Result<(), String> {
    assignment::validate_partition_count(partitions).map_err(|e| e.to_string())
}

/// Kafka's replication factor rule (R1.7, KRaft wording), the one `create-topic` uses
/// ([`create_topic::check_replication_factor`]). Errors: `INVALID_REPLICATION_FACTOR` with
/// Kafka's message.
pub fn check_replication_factor(rf: u32, brokers: usize) -> Result<(), String> {
    create_topic::check_replication_factor(rf, brokers).map_err(|e| e.to_string())
}

/// Kafka's topic name rule: 1 to 249 characters from `[a-zA-Z0-9._-]`, not `.` or `..`, and
/// not `__cluster_metadata` ([`create_topic::check_topic_name`]). Errors: Kafka's
/// `InvalidTopicException` message, or `INVALID_REQUEST` for `__cluster_metadata`.
pub fn check_topic_name(name: &str) -> Result<(), String> {
    create_topic::check_topic_name(name).map_err(|e| e.to_string())
}

/// Sets a broker-level, producer or consumer property on `spec`, routed by the registry's
/// scope: producer properties go to every producer, consumer ones to every consumer, lab ones (`net.*`) to the network, the rest to
/// the cluster-wide broker config.
/// Errors: unknown property (with close matches) or a bad value; nothing changes then.
pub fn apply_setting(spec: &mut ClusterSpec, key: &str, value: &str) -> Result<(), ConfigError> {
    if config::profiles::toggle(key).is_some() {
        return config::profiles::set_toggle(&mut spec.broker_config.semantics, key, value);
    }
    match config::lookup(key)?.scope {
        Scope::Producer => {
            ProducerConfig::default().set(key, value)?;
            spec.producers.iter_mut().try_for_each(|p| p.config.set(key, value))
        }
        Scope::Consumer => {
            crate::config::ConsumerConfig::default().set(key, value)?;
            spec.consumers.iter_mut().try_for_each(|c| c.config.set(key, value))
        }
        Scope::Broker | Scope::BrokerAndTopic | Scope::Topic => spec.broker_config.set(key, value),
        Scope::Lab => spec.net.set(key, value),
    }
}

/// What a run knows before it starts: its brokers, topics (name → partition count, including
/// those `create-topic` commands add), which topics have a producer, and the configs the file
/// starts with. It is the [`Catalog`] a scenario's commands are validated against before the
/// run, by the same code the live cluster uses.
#[derive(Clone, Debug, Default)]
pub struct Known {
    /// Broker ids, ascending.
    pub brokers: Vec<BrokerId>,
    /// Topic name → partition count.
    pub topics: BTreeMap<String, u32>,
    /// The topic each producer writes to, in index order (commands that add a producer
    /// included).
    pub produced: Vec<String>,
    /// The cluster-wide broker config at start.
    pub broker_config: BrokerConfig,
    /// Topic overrides at start (topics created by commands have none).
    pub topic_configs: BTreeMap<String, TopicConfig>,
    /// Each producer's config, in index order, as the timeline leaves it.
    pub producer_configs: Vec<ProducerConfig>,
    /// The controller quorum's voter ids.
    pub controllers: Vec<i32>,
}

impl Known {
    /// What `spec` defines at start.
    /// A consumer with a group brings `__consumer_offsets` (its first FindCoordinator creates it
    /// with `offsets.topic.num.partitions`), so commands may name that topic too.
    pub fn new(spec: &ClusterSpec) -> Self {
        let mut topics: BTreeMap<String, u32> =
            spec.topics.iter().map(|t| (t.name.clone(), t.partitions)).collect();
        if spec.consumers.iter().any(|c| c.group.is_some()) {
            topics
                .entry(OFFSETS_TOPIC.to_string())
                .or_insert(spec.broker_config.offsets_topic_num_partitions);
        }
        Self {
            controllers: (0..spec.controllers.max(1) as i32).map(|i| crate::sim::CONTROLLER_ID + i).collect(),
            brokers: spec.brokers.clone(),
            topics,
            produced: spec.producers.iter().map(|p| p.topic.clone()).collect(),
            broker_config: spec.broker_config.clone(),
            topic_configs: spec.topics.iter().map(|t| (t.name.clone(), t.config.clone())).collect(),
            producer_configs: spec.producers.iter().map(|p| p.config.clone()).collect(),
        }
    }

    /// Errors unless `topic` exists; the message lists the topics that do.
    pub fn topic(&self, topic: &str) -> Result<u32, String> {
        self.topics.get(topic).copied().ok_or_else(|| {
            let names: Vec<&str> = self.topics.keys().map(String::as_str).collect();
            format!("unknown topic `{topic}` (topics: {})", names.join(", "))
        })
    }

    /// Validates `cmd` as the live cluster would ([`Command::validate`]; what only the running
    /// cluster knows, such as whether a broker is up, is left to the run), and records what
    /// it changes (a topic it creates, a property it sets, `__consumer_offsets` that a group
    /// consumer brings), so later commands are checked
    /// against the cluster as the timeline leaves it. Errors: the refusal, in the words the
    /// palette would show.
    pub fn check_command(&mut self, cmd: &Command) -> Result<(), String> {
        cmd.validate(self).map_err(|e| e.to_string())?;
        match cmd {
            Command::CreateTopic(t) => _ = self.topics.insert(t.name.clone(), t.partitions),
            Command::AddPartitions(a) => _ = self.topics.insert(a.topic.clone(), a.count),
            Command::DeleteTopic(d) => {
                self.topics.remove(&d.topic);
                self.topic_configs.remove(&d.topic);
            }
            Command::Set(set) => self.remember(set),
            Command::AddConsumer(a) if a.group.is_some() => {
                let n = self.broker_config.offsets_topic_num_partitions;
                self.topics.entry(OFFSETS_TOPIC.to_string()).or_insert(n);
            }
            // A topic no producer writes to gets a rate-0 producer (`produce::add_producer`);
            // a missing one is created with `num.partitions` (auto.create.topics.enable).
            Command::Produce(p) => {
                if !self.produced.contains(&p.topic) {
                    self.add_producer(&p.topic);
                }
                let n = self.broker_config.num_partitions;
                self.topics.entry(p.topic.clone()).or_insert(n);
            }
            _ => {}
        }
        Ok(())
    }

    /// A producer the run adds for `topic`, with `rate=0` as the cluster gives it.
    fn add_producer(&mut self, topic: &str) {
        self.produced.push(topic.to_string());
        self.producer_configs.push(ProducerConfig { rate: 0.0, ..Default::default() });
    }

    /// Records a validated `set` (so it cannot fail; a result is ignored).
    fn remember(&mut self, set: &Set) {
        let for_producers = match set {
            Set::Producer { .. } => true,
            Set::Cluster { key, .. } => config::lookup(key).is_ok_and(|p| p.scope == Scope::Producer),
            _ => false,
        };
        if for_producers && self.producer_configs.is_empty() {
            // The cluster adds a rate-0 producer for the first topic first.
            if let Some(first) = self.topics.keys().next().cloned() {
                self.add_producer(&first);
            }
        }
        match set {
            Set::Topic { topic, key, value } => {
                _ = self.topic_configs.entry(topic.clone()).or_default().set(key, value);
            }
            Set::Producer { index: Some(i), key, value } => {
                if let Some(c) = self.producer_configs.get_mut(*i as usize) {
                    _ = c.set(key, value);
                }
            }
            Set::Producer { index: None, key, value } => {
                self.producer_configs.iter_mut().for_each(|c| _ = c.set(key, value));
            }
            Set::Broker { broker, key, value } => _ = self.broker_config.set_for_broker(*broker, key, value),
            // Routed by scope as the cluster does.
            Set::Cluster { key, value } if for_producers => {
                self.producer_configs.iter_mut().for_each(|c| _ = c.set(key, value));
            }
            Set::Cluster { key, value } => _ = self.broker_config.set(key, value),
            // The network is not part of what later commands are checked against.
            Set::Link { .. } => {}
        }
    }
}

impl Catalog for Known {
    fn broker_ids(&self) -> Vec<BrokerId> {
        self.brokers.clone()
    }
    fn topic_names(&self) -> Vec<String> {
        self.topics.keys().cloned().collect()
    }
    fn partition_count(&self, topic: &str) -> Option<u32> {
        self.topics.get(topic).copied()
    }
    fn broker_config(&self) -> BrokerConfig {
        self.broker_config.clone()
    }
    fn topic_config(&self, topic: &str) -> Option<TopicConfig> {
        let config = self.topic_configs.get(topic).cloned().unwrap_or_default();
        self.topics.contains_key(topic).then_some(config)
    }
    fn producer_configs(&self) -> Vec<ProducerConfig> {
        self.producer_configs.clone()
    }
    fn broker_state(&self, _broker: BrokerId) -> Option<BrokerState> {
        None
    }
    fn roll_running(&self) -> Option<bool> {
        None
    }
    fn controller_frozen(&self) -> Option<bool> {
        None
    }
    fn controller_ids(&self) -> Vec<i32> {
        self.controllers.clone()
    }
    fn controller_running(&self, _id: i32) -> Option<bool> {
        None
    }
}

/// What exists over a run's timeline: [`Known`] at start and after each command, in time
/// order. Commands at an instant come before the expectations at that instant, as the runner
/// applies them.
#[derive(Clone, Debug)]
pub struct KnownOverTime {
    start: Known,
    after: Vec<(SimTime, Known)>,
}

impl KnownOverTime {
    /// Starts from what the cluster defines.
    pub fn new(start: Known) -> Self {
        Self { start, after: Vec::new() }
    }

    /// Records what exists after a command at `at` (not earlier than the last one).
    pub fn record(&mut self, at: SimTime, known: Known) {
        self.after.push((at, known));
    }

    /// The latest state.
    pub fn last(&self) -> &Known {
        self.after.last().map_or(&self.start, |(_, k)| k)
    }

    /// What exists at sim time `at`, after the commands due then.
    pub fn at(&self, at: SimTime) -> &Known {
        self.after.iter().rev().find(|(t, _)| *t <= at).map_or(&self.start, |(_, k)| k)
    }

    /// The first instant at which partition `n` of `topic` exists, if it ever does.
    pub fn first_with_partition(&self, topic: &str, n: u32) -> Option<SimTime> {
        let has = |k: &Known| k.topics.get(topic).is_some_and(|count| n < *count);
        if has(&self.start) {
            return Some(SimTime::ZERO);
        }
        self.after.iter().find(|(_, k)| has(k)).map(|(t, _)| *t)
    }
}

/// Validates a `KEY=VALUE` setting without applying it (routed like [`apply_setting`], tried
/// on a scratch cluster). Errors: unknown property with close matches, or a bad value.
pub fn check_setting(key: &str, value: &str) -> Result<(), String> {
    apply_setting(&mut ClusterSpec::default_run(0), key, value).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replication_factor_above_the_broker_count_uses_kafkas_words() {
        assert_eq!(
            check_replication_factor(4, 3).unwrap_err(),
            "INVALID_REPLICATION_FACTOR: Unable to replicate the partition 4 time(s): The target replication factor of 4 cannot be reached because only 3 broker(s) are registered."
        );
        assert_eq!(
            check_replication_factor(0, 3).unwrap_err(),
            "INVALID_REPLICATION_FACTOR: Replication factor must be larger than 0, or -1 to use the default value."
        );
        assert_eq!(check_replication_factor(3, 3), Ok(()));
    }

    #[test]
    fn topic_names_and_partition_counts() {
        let mut known = Known::new(&ClusterSpec::default_run(1));
        let mut check = |name: &str, p: u32| {
            let cmd = create_topic::CreateTopic { name: name.into(), partitions: p, replication_factor: 2 };
            known.check_command(&cmd.into())
        };
        assert_eq!(check("orders.v1_x-y", 3), Ok(()));
        assert!(check("a b", 1).unwrap_err().contains("illegal"));
        assert!(check("..", 1).unwrap_err().contains("cannot be"));
        assert!(check("", 1).unwrap_err().contains("empty"));
        assert!(check("t", 0).unwrap_err().starts_with("INVALID_PARTITIONS"));
        assert_eq!(check("big", 10_000), Ok(()));
        let over = check("t", 10_001).unwrap_err();
        assert!(over.contains("at most 10000 partitions per topic"), "{over}");
        assert!(check_partitions(0).unwrap_err().starts_with("INVALID_PARTITIONS"));
    }

    #[test]
    fn settings_are_routed_by_scope() {
        let mut spec = ClusterSpec::default_run(1);
        apply_setting(&mut spec, "acks", "1").unwrap();
        apply_setting(&mut spec, "min.insync.replicas", "2").unwrap();
        assert_eq!(spec.producers[0].config.acks, crate::sim::Acks::One);
        assert_eq!(spec.broker_config.min_insync_replicas, 2);
        let err = apply_setting(&mut spec, "replica.lag.time.max", "5").unwrap_err();
        assert!(err.to_string().contains("did you mean `replica.lag.time.max.ms`"), "{err}");
    }

    #[test]
    fn commands_must_name_existing_things() {
        let mut known = Known::new(&ClusterSpec::default_run(1));
        let check = |k: &mut Known, line: &str| k.check_command(&Command::parse(line).unwrap());
        assert_eq!(check(&mut known, "crash 2"), Ok(()));
        assert_eq!(check(&mut known, "crash 7").unwrap_err(), "broker 7 does not exist (brokers: 0,1,2)");
        assert!(check(&mut known, "set min.insync.replica=2").unwrap_err().contains("did you mean"));
        assert_eq!(check(&mut known, "set acks=1"), Ok(()));
        // auto.create.topics.enable (default true): the producer's Metadata request creates it.
        assert_eq!(check(&mut known, "produce auto 5"), Ok(()));
        assert_eq!(known.topic("auto"), Ok(1));
        assert!(check(&mut known, "set auto.create.topics.enable=false").is_ok());
        assert_eq!(
            check(&mut known, "produce other 5").unwrap_err(),
            "UNKNOWN_TOPIC_OR_PARTITION: topic `other` does not exist"
        );
        assert_eq!(check(&mut known, "create-topic other 3 3"), Ok(()));
        // A topic no [[producer]] writes to gets a rate-0 producer when the command runs.
        assert_eq!(check(&mut known, "produce other 5"), Ok(()));
        assert!(check(&mut known, "create-topic other 1 1").unwrap_err().starts_with("TOPIC_ALREADY_EXISTS"));
        assert!(
            check(&mut known, "create-topic big 1 4").unwrap_err().starts_with("INVALID_REPLICATION_FACTOR")
        );
        // Checked against the config the timeline leaves, as the live cluster would.
        assert!(check(&mut known, "set replica.fetch.wait.max.ms=2000").is_ok());
        assert!(
            check(&mut known, "set replica.lag.time.max.ms=1000")
                .unwrap_err()
                .contains("replica.fetch.wait.max.ms")
        );
    }

    /// A group consumer brings `__consumer_offsets`, so a later command may name it; a
    /// consumer without a group does not.
    #[test]
    fn a_group_consumer_brings_the_offsets_topic() {
        let mut known = Known::new(&ClusterSpec::default_run(1));
        let check = |k: &mut Known, line: &str| k.check_command(&Command::parse(line).unwrap());
        let name = "test_repli";
        assert_eq!(check(&mut known, &format!("add-consumer {name}")), Ok(()));
        assert!(check(&mut known, "delete-topic __consumer_offsets").is_err());
        assert_eq!(check(&mut known, &format!("add-consumer {name} group=g")), Ok(()));
        assert_eq!(known.topic(OFFSETS_TOPIC), Ok(50));
        assert_eq!(check(&mut known, "delete-topic __consumer_offsets"), Ok(()));
        assert_eq!(
            check(&mut known, "create-topic __cluster_metadata 1 1").unwrap_err(),
            "INVALID_REQUEST: Creation of internal topic __cluster_metadata is prohibited."
        );
    }
}

#[cfg(test)]
mod producer_tests {
    use super::*;
    use crate::cluster::spec::ProducerSpec;

    fn check(k: &mut Known, line: &str) -> Result<(), String> {
        k.check_command(&Command::parse(line).unwrap())
    }

    #[test]
    fn set_producer_p_names_an_existing_producer_and_changes_it_alone() {
        let mut spec = ClusterSpec::default_run(1);
        let topic = spec.producers[0].topic.clone();
        spec.producers.push(ProducerSpec { topic, config: ProducerConfig::default() });
        let mut known = Known::new(&spec);
        assert_eq!(check(&mut known, "set producer 1 acks=1"), Ok(()));
        assert_eq!(known.producer_configs[1].acks, crate::sim::Acks::One);
        assert_eq!(known.producer_configs[0].acks, crate::sim::Acks::All);
        assert_eq!(
            check(&mut known, "set producer 2 acks=1").unwrap_err(),
            "there is no producer 2: the producers are 0 to 1"
        );
        assert_eq!(
            check(&mut known, "restart-producer 5").unwrap_err(),
            "there is no producer 5: the producers are 0 to 1"
        );
        assert!(check(&mut known, "set producer 0 acks=2").unwrap_err().contains("acks"));
        // The value is checked against that producer's own config (idempotence needs acks=all).
        assert!(check(&mut known, "set producer 0 enable.idempotence=true").is_ok());
        assert!(check(&mut known, "set producer 1 enable.idempotence=true").is_err());
        assert_eq!(check(&mut known, "restart-producer 1"), Ok(()));
    }

    #[test]
    fn producers_added_by_commands_can_be_named() {
        let mut spec = ClusterSpec::default_run(1);
        spec.producers.clear();
        let mut known = Known::new(&spec);
        assert_eq!(
            check(&mut known, "set producer 0 acks=1").unwrap_err(),
            "there is no producer 0: there is no producer yet (`produce T N` or `set producer KEY=VALUE` adds one)"
        );
        assert_eq!(check(&mut known, "set producer acks=1"), Ok(()));
        assert_eq!(check(&mut known, "set producer 0 rate=5"), Ok(()));
        assert_eq!(known.producer_configs[0].acks, crate::sim::Acks::One);
        assert_eq!(
            check(&mut known, "set producer 1 rate=5").unwrap_err(),
            "there is no producer 1: the only producer is producer 0"
        );
        assert_eq!(check(&mut known, "create-topic other 1 1"), Ok(()));
        assert_eq!(check(&mut known, "produce other 5"), Ok(()));
        assert_eq!(check(&mut known, "set producer 1 rate=5"), Ok(()));
    }
}
