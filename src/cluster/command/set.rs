//! `set KEY=VALUE`, `set topic T KEY=VALUE`, `set producer [P] KEY=VALUE`: change a property,
//! checked by the config registry (name, scope, value) as `--set` and scenario `config`
//! tables are. `set producer P KEY=VALUE` changes producer P alone (its index, from 0); without
//! P, every producer. `set KEY=VALUE` is routed by the property's scope, like `--set`: a producer
//! property goes to every producer, a lab one (`net.*`) to every link of the network, the rest
//! to the cluster-wide broker config. `set link A B net.KEY=VALUE` sets a lab property on the
//! link between A and B (both directions); the later of a cluster-wide and a link setting wins.
//! `set broker B KEY=VALUE` sets a broker property for broker B alone
//! (`kafka-configs.sh --entity-type brokers --entity-name B`), over the cluster-wide value:
//! dynamic ones at once, static ones at B's next start; or a lab processing time of broker B
//! (`broker.request.handle.ms`, `broker.fetch.process.ms`).

use super::catalog::{known_broker, known_producer, no_such_producer};
use super::links::{End, check_ends};
use super::produce::add_producer;
use super::{Applied, Catalog, ParseError, Unit, Words, known_topic};
use crate::cluster::world::World;
use crate::config::{self, LabConfig, ProducerConfig, Scope, UpdateMode};
use crate::sim::error::SimError;
use crate::sim::events::EventKind;
use crate::sim::protocol::NodeId;
use crate::sim::{BrokerId, Outbox, format_time, join_ids};
use std::fmt;
use std::rc::Rc;

/// A `set` command.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Set {
    /// `set KEY=VALUE`: a broker property, or a producer one (routed by the registry's scope).
    Cluster {
        /// Property name.
        key: String,
        /// Value as text.
        value: String,
    },
    /// `set topic T KEY=VALUE`: a topic override (`kafka-configs.sh --entity-type topics`).
    Topic {
        /// Topic name.
        topic: String,
        /// Property name.
        key: String,
        /// Value as text.
        value: String,
    },
    /// `set broker B KEY=VALUE`: a broker property or a lab processing time of broker B alone.
    Broker {
        /// The broker.
        broker: BrokerId,
        /// Property name.
        key: String,
        /// Value as text.
        value: String,
    },
    /// `set producer [P] KEY=VALUE`: producer P's property, or every producer's.
    Producer {
        /// The producer's index (from 0); `None`: every producer.
        index: Option<u32>,
        /// Property name.
        key: String,
        /// Value as text.
        value: String,
    },
    /// `set link A B KEY=VALUE`: a lab property of the link between A and B, both directions.
    Link {
        /// One end.
        a: NodeId,
        /// The other end.
        b: NodeId,
        /// Property name (`net.*`).
        key: String,
        /// Value as text.
        value: String,
    },
}

impl Set {
    /// `set KEY=VALUE`.
    pub fn cluster(key: &str, value: impl ToString) -> Self {
        Set::Cluster { key: key.to_string(), value: value.to_string() }
    }

    /// `set topic T KEY=VALUE`.
    pub fn topic(topic: &str, key: &str, value: impl ToString) -> Self {
        Set::Topic { topic: topic.to_string(), key: key.to_string(), value: value.to_string() }
    }

    /// `set producer KEY=VALUE` (every producer).
    pub fn producer(key: &str, value: impl ToString) -> Self {
        Set::Producer { index: None, key: key.to_string(), value: value.to_string() }
    }

    /// `set producer P KEY=VALUE` (producer `index` alone).
    pub fn producer_at(index: u32, key: &str, value: impl ToString) -> Self {
        Set::Producer { index: Some(index), key: key.to_string(), value: value.to_string() }
    }

    /// Whether this sets lab properties (of the network's links or the brokers' processing
    /// times). Errors: an unknown property.
    fn for_network(&self) -> Result<bool, SimError> {
        Ok(match self {
            Set::Link { .. } => true,
            Set::Cluster { key, .. } | Set::Broker { key, .. } => config::lookup(key)?.scope == Scope::Lab,
            _ => false,
        })
    }

    /// Whether this sets producer properties (`set producer`, or `set KEY=VALUE` with a
    /// producer property). Errors: an unknown property.
    fn for_producers(&self) -> Result<bool, SimError> {
        Ok(match self {
            Set::Producer { .. } => true,
            Set::Topic { .. } | Set::Link { .. } | Set::Broker { .. } => false,
            Set::Cluster { key, .. } => config::lookup(key)?.scope == Scope::Producer,
        })
    }

    fn key_value(&self) -> (&str, &str) {
        match self {
            Set::Cluster { key, value }
            | Set::Topic { key, value, .. }
            | Set::Producer { key, value, .. }
            | Set::Broker { key, value, .. }
            | Set::Link { key, value, .. } => (key, value),
        }
    }
}

impl Unit for Set {
    const VERBS: &'static [&'static str] = &["set"];
    const USAGE: &'static [&'static str] = &[
        "set KEY=VALUE",
        "set topic T KEY=VALUE",
        "set producer KEY=VALUE",
        "set producer P KEY=VALUE",
        "set link A B net.KEY=VALUE",
        "set broker B KEY=VALUE",
    ];

    const ABOUT: &'static str = "Change a property, checked by the config registry (its name, its scope, its value) as `--set` and a scenario's `config` tables are; see the configuration reference. `set KEY=VALUE` is routed by the property's scope: a producer property to every producer, a lab one to every link, the rest to the cluster-wide broker config. `set topic T` sets topic T's own value; `set producer P` producer P's alone (its index, from 0), without P every producer's; `set link A B` a lab property of one link (both ways); `set broker B` broker B's own value, over the cluster-wide one. A dynamic property changes at once; a static one waits for each broker's next start (`roll`).";
    const KAFKA: Option<&'static str> = Some(
        "`kafka-configs.sh --alter` with `--entity-default --entity-type brokers`, `--entity-type brokers --entity-name B` or `--entity-type topics --entity-name T`",
    );
    const EXAMPLES: &'static [&'static str] = &[
        "set min.insync.replicas=2",
        "set topic test_repli unclean.leader.election.enable=true",
        "set producer acks=1",
        "set producer 0 rate=500",
        "set link 0 1 net.latency.ms=5",
        "set broker 1 leader.replication.throttled.rate=100000",
    ];

    fn parse(_verb: &str, words: &mut Words<'_>) -> Result<Self, ParseError> {
        match words.next() {
            Some("topic") => {
                words.usage(Self::USAGE[1]);
                let topic = words.word("topic")?.to_string();
                let (key, value) = words.key_value()?;
                Ok(Set::Topic { topic, key, value })
            }
            Some("producer") => {
                words.usage(Self::USAGE[2]);
                // `P` is a word without `=`: `set producer 1 acks=1`, `set producer acks=1`.
                let index = match words.peek() {
                    Some(w) if !w.contains('=') => {
                        words.usage(Self::USAGE[3]);
                        Some(words.number("producer index")?)
                    }
                    _ => None,
                };
                let (key, value) = words.key_value()?;
                Ok(Set::Producer { index, key, value })
            }
            Some("link") => {
                words.usage(Self::USAGE[4]);
                let (a, b) = (words.node()?, words.node()?);
                let (key, value) = words.key_value()?;
                Ok(Set::Link { a, b, key, value })
            }
            Some("broker") => {
                words.usage(Self::USAGE[5]);
                let broker = words.broker()?;
                let (key, value) = words.key_value()?;
                Ok(Set::Broker { broker, key, value })
            }
            other => {
                let (key, value) = words.key_value_of(other)?;
                Ok(Set::Cluster { key, value })
            }
        }
    }

    fn validate(&self, cluster: &dyn Catalog) -> Result<(), SimError> {
        let (key, value) = self.key_value();
        if let Set::Link { a, b, .. } = self {
            check_ends(cluster, *a, *b)?;
        }
        if self.for_network()? {
            let checked = match self {
                Set::Broker { broker, .. } => {
                    known_broker(cluster, *broker)?;
                    config::HandlingConfig::default().set(key, value)
                }
                Set::Link { .. } => config::NetConfig::default().set(key, value),
                _ => LabConfig::default().set(key, value),
            };
            return Ok(checked?);
        }
        if self.for_producers()? {
            let configs = match self {
                Set::Producer { index: Some(index), .. } => vec![known_producer(cluster, *index)?],
                _ if cluster.topic_names().is_empty() => {
                    return Err(SimError::InvalidState("there is no topic to produce to".into()));
                }
                _ => cluster.producer_configs(),
            };
            // With no producer, the command adds one with the default config.
            let configs = if configs.is_empty() {
                vec![ProducerConfig::defaults_for(&cluster.broker_config().semantics)]
            } else {
                configs
            };
            for mut c in configs {
                c.set(key, value)?;
                c.validate()?;
            }
            return Ok(());
        }
        match self {
            Set::Topic { topic, .. } => {
                known_topic(cluster, topic)?;
                let mut c = cluster.topic_config(topic).unwrap_or_default();
                Ok(c.set(key, value)?)
            }
            Set::Broker { broker, .. } => {
                known_broker(cluster, *broker)?;
                Ok(cluster.broker_config().set_for_broker(*broker, key, value)?)
            }
            _ => {
                let mut c = cluster.broker_config();
                c.set(key, value)?;
                Ok(c.validate()?)
            }
        }
    }

    fn apply(&self, world: &Rc<World>, out: &mut Outbox) -> Result<Applied, SimError> {
        let (key, value) = self.key_value();
        if self.for_network()? {
            return set_network(self, world, key, value, out);
        }
        if self.for_producers()? {
            let index = match self {
                Set::Producer { index, .. } => *index,
                _ => None,
            };
            return set_producers(world, index, key, value, out);
        }
        if let Set::Broker { broker, .. } = self {
            return set_one_broker(world, *broker, key, value, out);
        }
        let Set::Topic { topic, .. } = self else {
            return set_broker(world, key, value, out);
        };
        world.active_controller()?.borrow_mut().set_topic_config(world.now(), topic, key, value, out)?;
        let note = effect_note(key, value, world);
        out.emit(config_event(&format!("topic {topic}"), key, value, note.clone()));
        Ok(Applied { origin: NodeId::ActiveController, note })
    }
}

/// Sets a broker property in every process's `server.properties`
/// ([`World::server_properties`]). A dynamic one also goes through the controller to every
/// running broker at once (`kafka-configs.sh --alter --entity-default`); a static one waits for
/// each broker's next start, which the answer and the broker strip say ("restart pending").
/// Kafka's `AlterConfigs` refuses static properties ("Cannot update these configs
/// dynamically", `DynamicBrokerConfig.validateConfigs`): setting one here stands for editing
/// `server.properties` on every broker, which only a restart reads.
fn set_broker(world: &Rc<World>, key: &str, value: &str, out: &mut Outbox) -> Result<Applied, SimError> {
    let property = config::lookup(key)?;
    let mut stored = world.server_properties.borrow().clone();
    stored.set(key, value)?;
    stored.validate()?;
    let note = match property.update_mode() {
        UpdateMode::Dynamic | UpdateMode::Client => {
            world.active_controller()?.borrow_mut().set_broker_config(world.now(), key, value, out)?;
            effect_note(key, value, world)
        }
        UpdateMode::BrokerRestart => {
            let ids = world.broker_ids();
            let mut pending = world.restart_pending.borrow_mut();
            ids.iter().for_each(|b| _ = pending.entry(*b).or_default().insert(property.name));
            Some(format!(
                "restart pending on brokers {}: a static broker config takes effect at each broker's next start (roll restarts them one at a time)",
                join_ids(&ids)
            ))
        }
        UpdateMode::ControllerRestart => Some(
            "stored, but a static controller config takes effect at the controller's next start, and isrlab's controller does not restart: this run keeps the value it started with"
                .to_string(),
        ),
    };
    *world.server_properties.borrow_mut() = stored;
    out.emit(config_event("broker", key, value, note.clone()));
    Ok(Applied { origin: NodeId::ActiveController, note })
}

/// Sets a property for `broker` alone (`kafka-configs.sh --entity-type brokers --entity-name
/// B`), kept in its `server.properties` for its next start. A dynamic one (the throttle rates,
/// the broker defaults of topic configs; `DynamicBrokerConfig.AllDynamicConfigs`) also goes
/// through the controller to that broker at once, as Kafka's per-broker dynamic config does;
/// a static one waits for that broker's next start ("restart pending"), as a cluster-wide
/// static `set` does. Properties the controller reads are refused
/// ([`crate::config::BrokerConfig::set_for_broker`]).
fn set_one_broker(
    world: &Rc<World>,
    broker: BrokerId,
    key: &str,
    value: &str,
    out: &mut Outbox,
) -> Result<Applied, SimError> {
    let property = config::lookup(key)?;
    let mut stored = world.server_properties.borrow().clone();
    stored.set_for_broker(broker, key, value)?;
    let note = match property.update_mode() {
        UpdateMode::BrokerRestart => {
            world.restart_pending.borrow_mut().entry(broker).or_default().insert(property.name);
            Some(format!(
                "restart pending on broker {broker}: a static broker config takes effect at its next start"
            ))
        }
        _ => {
            world.active_controller()?.borrow_mut().set_broker_config_for(
                world.now(),
                broker,
                key,
                value,
                out,
            )?;
            None
        }
    };
    *world.server_properties.borrow_mut() = stored;
    out.emit(config_event(&format!("broker {broker}"), key, value, note.clone()));
    Ok(Applied { origin: NodeId::ActiveController, note })
}

/// Sets a property on producer `index` alone, or on every producer (adding a rate-0 producer
/// for the first topic when there is none), and lets the first one changed act on it now.
/// Each producer's config is checked before any changes, so a refusal changes nothing.
fn set_producers(
    world: &Rc<World>,
    index: Option<u32>,
    key: &str,
    value: &str,
    out: &mut Outbox,
) -> Result<Applied, SimError> {
    let now = world.now();
    if index.is_none() && world.producers().is_empty() {
        let topic = world.controller().borrow().topics().next().map(|t| t.name.to_string());
        let topic = topic.ok_or_else(|| SimError::InvalidState("there is no topic to produce to".into()))?;
        add_producer(world, &topic);
    }
    let producers = world.producers();
    let chosen: Vec<_> = match index {
        Some(i) => {
            let p = producers.get(i as usize).ok_or_else(|| no_such_producer(i, producers.len()))?;
            vec![(i, p.clone())]
        }
        None => producers.iter().enumerate().map(|(i, p)| (i as u32, p.clone())).collect(),
    };
    let mut configs = Vec::new();
    for (_, p) in &chosen {
        let mut c = p.borrow().config().clone();
        c.set(key, value)?;
        c.validate()?;
        configs.push(c);
    }
    for ((_, p), c) in chosen.iter().zip(configs) {
        p.borrow_mut().set_config(now, c);
    }
    let (first, producer) = &chosen[0];
    producer.borrow_mut().on_tick(now, out);
    let scope = index.map_or("producer".to_string(), |i| format!("producer {i}"));
    out.emit(config_event(&scope, key, value, None));
    Ok(Applied::by(NodeId::Producer(*first)))
}

/// Sets a lab property: a network one on every link or on both directions of one, a
/// processing time on every broker or on one.
fn set_network(
    set: &Set,
    world: &World,
    key: &str,
    value: &str,
    out: &mut Outbox,
) -> Result<Applied, SimError> {
    let scope = match set {
        Set::Link { a, b, .. } => {
            world.net.set_link_property(*a, *b, key, value)?;
            world.net.set_link_property(*b, *a, key, value)?;
            format!("link {} {}", End(*a), End(*b))
        }
        Set::Broker { broker, .. } => {
            world.set_handling(Some(*broker), key, value)?;
            format!("broker {broker}")
        }
        _ if config::lab::is_handling_property(key) => {
            world.set_handling(None, key, value)?;
            "brokers".to_string()
        }
        _ => {
            world.net.set_property(key, value)?;
            "network".to_string()
        }
    };
    out.emit(config_event(&scope, key, value, None));
    Ok(Applied::by(NodeId::ActiveController))
}

/// What a dynamic change means beyond "done", for the answer and the event alike: when
/// leaderless partitions get an unclean leader after `unclean.leader.election.enable=true`.
fn effect_note(key: &str, value: &str, world: &World) -> Option<String> {
    (key == "unclean.leader.election.enable" && value == "true").then(|| unclean_note(world))
}

/// The event for a changed property; `note` (else a word on what the change means now)
/// follows the value.
fn config_event(scope: &str, key: &str, value: &str, note: Option<String>) -> EventKind {
    let note = note.unwrap_or_else(|| match key {
        "min.insync.replicas" => {
            "acks=all needs this many in-sync replicas, and the HW waits for them".into()
        }
        "acks" => "applies to new batches".into(),
        _ => String::new(),
    });
    EventKind::ConfigChanged {
        scope: scope.to_string(),
        name: key.to_string(),
        value: value.to_string(),
        note,
    }
}

/// When leaderless partitions get an unclean leader: at the controller's unclean check, armed
/// `unclean.leader.election.interval.ms` after a partition went leaderless
/// (`QuorumController.maybeScheduleNextElectUncleanLeaders`), or when a replica's broker is
/// unfenced.
fn unclean_note(world: &World) -> String {
    let controller = world.controller();
    let controller = controller.borrow();
    let interval = controller.broker_config().unclean_leader_election_interval_ms;
    match controller.next_unclean_check_at() {
        // Short enough for the status line's three rows at 80 columns with the echoed
        // command before it, the check's time first.
        Some(at) => format!(
            "leaderless partitions get a leader at the controller's unclean check at {} or at a replica's unfencing",
            format_time(at)
        ),
        None => format!(
            "no partition is leaderless; one that loses its leader gets one at the unclean check {interval} ms later (unclean.leader.election.interval.ms) or at a replica's unfencing"
        ),
    }
}

impl fmt::Display for Set {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Set::Cluster { key, value } => write!(f, "set {key}={value}"),
            Set::Topic { topic, key, value } => write!(f, "set topic {topic} {key}={value}"),
            Set::Producer { index: None, key, value } => write!(f, "set producer {key}={value}"),
            Set::Producer { index: Some(i), key, value } => write!(f, "set producer {i} {key}={value}"),
            Set::Broker { broker, key, value } => write!(f, "set broker {broker} {key}={value}"),
            Set::Link { a, b, key, value } => write!(f, "set link {} {} {key}={value}", End(*a), End(*b)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Command;
    use super::Set;

    #[test]
    fn set_producer_takes_an_optional_index() {
        let one = Command::parse("set producer 1 acks=1").unwrap();
        assert_eq!(one, Set::producer_at(1, "acks", "1").into());
        let all = Command::parse("set producer acks=1").unwrap();
        assert_eq!(all, Set::producer("acks", "1").into());
        assert_eq!(
            Command::parse("set producer one acks=1").unwrap_err().message,
            "`one` is not a valid producer index; usage: set producer P KEY=VALUE"
        );
        assert_eq!(
            Command::parse("set producer 1").unwrap_err().message,
            "missing KEY=VALUE; usage: set producer P KEY=VALUE"
        );
        assert_eq!(
            Command::parse("set producer").unwrap_err().message,
            "missing KEY=VALUE; usage: set producer KEY=VALUE"
        );
        assert!(Command::parse("set producer 1 acks=1 x").unwrap_err().message.contains("unexpected `x`"));
    }
}
