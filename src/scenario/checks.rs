//! Checks made before a run starts, shared by scenario files, their `do` commands and the
//! command line: topic creation rules, routing a `KEY=VALUE` setting by the config registry's
//! scope, and whether a command names things that exist.

use crate::cluster::command::Command;
use crate::cluster::handle::SimError;
use crate::cluster::spec::ClusterSpec;
use crate::config::{self, ConfigError, ProducerConfig, Scope, TopicConfig};
use crate::sim::{BrokerId, Ms, join_ids};
use std::collections::BTreeMap;

use crate::sim::assignment;
pub use crate::sim::assignment::MAX_PARTITIONS;

/// Checks a topic to be created on `brokers` registered brokers the way the KRaft controller
/// does (R1.7). Errors: the message Kafka gives, prefixed with its error name, e.g.
/// `INVALID_REPLICATION_FACTOR: Unable to replicate the partition 4 time(s): ...`.
pub fn check_new_topic(
    name: &str,
    partitions: u32,
    replication_factor: u32,
    brokers: usize,
) -> Result<(), String> {
    check_topic_name(name)?;
    check_partitions(partitions)?;
    check_replication_factor(replication_factor, brokers)
}

/// A partition count from 1 to [`MAX_PARTITIONS`]. Errors: `INVALID_PARTITIONS` with Kafka's
/// message for 0.
pub fn check_partitions(partitions: u32) -> Result<(), String> {
    assignment::validate_partition_count(partitions).map_err(|e| e.to_string())
}

/// Kafka's replication factor rule (R1.7, KRaft wording). Errors: `INVALID_REPLICATION_FACTOR`
/// with Kafka's message.
pub fn check_replication_factor(rf: u32, brokers: usize) -> Result<(), String> {
    let msg = if rf == 0 {
        format!("Invalid replication factor {rf}: the replication factor must be positive.")
    } else if rf as usize > brokers {
        format!(
            "Unable to replicate the partition {rf} time(s): The target replication factor of {rf} cannot be reached because only {brokers} broker(s) are registered."
        )
    } else {
        return Ok(());
    };
    Err(SimError::InvalidReplicationFactor(msg).to_string())
}

/// Kafka's topic name rule: 1 to 249 characters from `[a-zA-Z0-9._-]`, not `.` or `..`.
/// Errors: Kafka's `InvalidTopicException` message.
pub fn check_topic_name(name: &str) -> Result<(), String> {
    assignment::validate_topic_name(name).map_err(|e| e.to_string())
}

/// Sets a broker-level or producer property on `spec`, routed by the registry's scope:
/// producer properties go to every producer, the rest to the cluster-wide broker config.
/// Errors: unknown property (with close matches) or a bad value; nothing changes then.
pub fn apply_setting(spec: &mut ClusterSpec, key: &str, value: &str) -> Result<(), ConfigError> {
    match config::lookup(key)?.scope {
        Scope::Producer => {
            ProducerConfig::default().set(key, value)?;
            spec.producers.iter_mut().try_for_each(|p| p.config.set(key, value))
        }
        Scope::Broker | Scope::BrokerAndTopic => spec.broker_config.set(key, value),
    }
}

/// What a run knows before it starts: its brokers, topics (name → partition count, including
/// those `create-topic` commands add) and which topics have a producer.
#[derive(Clone, Debug, Default)]
pub struct Known {
    /// Broker ids, ascending.
    pub brokers: Vec<BrokerId>,
    /// Topic name → partition count.
    pub topics: BTreeMap<String, u32>,
    /// Topics a producer writes to.
    pub produced: Vec<String>,
}

impl Known {
    /// What `spec` defines at start.
    pub fn new(spec: &ClusterSpec) -> Self {
        Self {
            brokers: spec.brokers.clone(),
            topics: spec.topics.iter().map(|t| (t.name.clone(), t.partitions)).collect(),
            produced: spec.producers.iter().map(|p| p.topic.clone()).collect(),
        }
    }

    fn broker(&self, b: BrokerId) -> Result<(), String> {
        if self.brokers.contains(&b) {
            Ok(())
        } else {
            Err(format!("broker {b} does not exist (brokers: {})", join_ids(&self.brokers)))
        }
    }

    /// Errors unless `topic` exists; the message lists the topics that do.
    pub fn topic(&self, topic: &str) -> Result<u32, String> {
        self.topics.get(topic).copied().ok_or_else(|| {
            let names: Vec<&str> = self.topics.keys().map(String::as_str).collect();
            format!("unknown topic `{topic}` (topics: {})", names.join(", "))
        })
    }

    /// Checks that `cmd` names existing brokers, topics and valid settings, and records a
    /// topic it creates. Errors: what is wrong, in words.
    pub fn check_command(&mut self, cmd: &Command) -> Result<(), String> {
        match cmd {
            Command::Crash(b)
            | Command::Shutdown(b)
            | Command::Restart(b)
            | Command::PauseFetch(b)
            | Command::ResumeFetch(b) => self.broker(*b),
            Command::SetBroker { key, value } => check_setting(key, value),
            Command::SetTopic { topic, key, value } => {
                self.topic(topic)?;
                TopicConfig::default().set(key, value).map_err(|e| e.to_string())
            }
            Command::SetProducer { key, value } => {
                ProducerConfig::default().set(key, value).map_err(|e| e.to_string())
            }
            Command::Produce { topic, count } => self.check_produce(topic, *count),
            Command::CreateTopic { name, partitions, replication_factor } => {
                if self.topics.contains_key(name) {
                    return Err(SimError::TopicExists(name.clone()).to_string());
                }
                check_new_topic(name, *partitions, *replication_factor, self.brokers.len())?;
                self.topics.insert(name.clone(), *partitions);
                Ok(())
            }
        }
    }

    fn check_produce(&self, topic: &str, count: u64) -> Result<(), String> {
        self.topic(topic)?;
        if count == 0 {
            return Err("`produce` needs at least 1 record".into());
        }
        if !self.produced.iter().any(|t| t == topic) {
            return Err(format!(
                "no producer writes to `{topic}`; add a [[producer]] with topic = \"{topic}\" (rate = 0 sends only `produce` records)"
            ));
        }
        Ok(())
    }
}

/// What exists over a run's timeline: [`Known`] at start and after each command, in time
/// order. Commands at an instant come before the expectations at that instant, as the runner
/// applies them.
#[derive(Clone, Debug)]
pub struct KnownOverTime {
    start: Known,
    after: Vec<(Ms, Known)>,
}

impl KnownOverTime {
    /// Starts from what the cluster defines.
    pub fn new(start: Known) -> Self {
        Self { start, after: Vec::new() }
    }

    /// Records what exists after a command at `at` (ms; not earlier than the last one).
    pub fn record(&mut self, at: Ms, known: Known) {
        self.after.push((at, known));
    }

    /// The latest state.
    pub fn last(&self) -> &Known {
        self.after.last().map_or(&self.start, |(_, k)| k)
    }

    /// What exists at sim time `at` (ms), after the commands due then.
    pub fn at(&self, at: Ms) -> &Known {
        self.after.iter().rev().find(|(t, _)| *t <= at).map_or(&self.start, |(_, k)| k)
    }

    /// The first instant (ms) at which partition `n` of `topic` exists, if it ever does.
    pub fn first_with_partition(&self, topic: &str, n: u32) -> Option<Ms> {
        let has = |k: &Known| k.topics.get(topic).is_some_and(|count| n < *count);
        if has(&self.start) {
            return Some(0);
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
        assert!(check_replication_factor(0, 3).unwrap_err().contains("must be positive"));
        assert_eq!(check_replication_factor(3, 3), Ok(()));
    }

    #[test]
    fn topic_names_and_partition_counts() {
        assert_eq!(check_new_topic("orders.v1_x-y", 3, 2, 3), Ok(()));
        assert!(check_new_topic("a b", 1, 1, 3).unwrap_err().contains("illegal"));
        assert!(check_new_topic("..", 1, 1, 3).unwrap_err().contains("cannot be"));
        assert!(check_new_topic("", 1, 1, 3).unwrap_err().contains("empty"));
        assert!(check_new_topic("t", 0, 1, 3).unwrap_err().starts_with("INVALID_PARTITIONS"));
        assert!(check_new_topic("t", 5000, 1, 3).unwrap_err().contains("at most 1000"));
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
        assert!(check(&mut known, "produce other 5").unwrap_err().contains("unknown topic `other`"));
        assert_eq!(check(&mut known, "create-topic other 3 3"), Ok(()));
        assert!(check(&mut known, "produce other 5").unwrap_err().contains("no producer writes to `other`"));
        assert!(check(&mut known, "create-topic other 1 1").unwrap_err().starts_with("TOPIC_ALREADY_EXISTS"));
        assert!(
            check(&mut known, "create-topic big 1 4").unwrap_err().starts_with("INVALID_REPLICATION_FACTOR")
        );
    }
}
