//! What a property is: its scope (where it can be set), its kind (the values it takes) and its
//! entry in the registry ([`Property`]); finding one by name and parsing a value for it, with
//! Kafka's words for what went wrong (`ConfigDef.parseType`).

use super::properties::PROPERTIES;
use super::{ConfigError, ThrottledReplicas, Value};
use crate::kafka::Acks;

/// Where a property can be set.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Scope {
    /// Cluster-wide broker default (`kafka-configs.sh --entity-default --entity-type brokers`).
    Broker,
    /// Broker default that a topic may override (`--entity-type topics`).
    BrokerAndTopic,
    /// Topic property whose broker default has another name (`retention.ms` and
    /// `log.retention.ms`, Kafka's `ServerTopicConfigSynonyms`).
    Topic,
    /// Producer client property.
    Producer,
    /// Consumer client property (Kafka's `ConsumerConfig`).
    Consumer,
    /// isrlab's lab property, not Kafka's: the simulated world, the network (`net.*`) and the
    /// brokers' processing times (`broker.request.handle.ms`, `broker.fetch.process.ms`).
    Lab,
}

impl Scope {
    /// Every scope, in the order the reference lists them.
    pub const ALL: [Scope; 6] =
        [Scope::Broker, Scope::BrokerAndTopic, Scope::Topic, Scope::Producer, Scope::Consumer, Scope::Lab];

    /// The scope in one word, as the config view writes it: `broker`, `broker+topic`, ...
    pub fn name(self) -> &'static str {
        match self {
            Scope::Broker => "broker",
            Scope::BrokerAndTopic => "broker+topic",
            Scope::Topic => "topic",
            Scope::Producer => "producer",
            Scope::Consumer => "consumer",
            Scope::Lab => "lab",
        }
    }

    /// Where a property of this scope is set, in a sentence.
    pub fn about(self) -> &'static str {
        match self {
            Scope::Broker => {
                "Broker properties, cluster-wide (as `kafka-configs.sh --entity-type brokers --entity-default` sets them): `--set`, `set KEY=VALUE`, a scenario's `[cluster.config]`; `set broker B KEY=VALUE` sets one broker's own value."
            }
            Scope::BrokerAndTopic => {
                "Broker defaults a topic may override under the same name: `--set` and `set KEY=VALUE` set the default, `set topic T KEY=VALUE` and a scenario's `[topic.config]` the topic's own value."
            }
            Scope::Topic => {
                "Topic properties whose broker default has another name (`retention.ms` and `log.retention.ms`): `set topic T KEY=VALUE`, a scenario's `[topic.config]`."
            }
            Scope::Producer => {
                "Producer client properties: `--set`, `set producer [P] KEY=VALUE`, a scenario's `[[producer]]` tables."
            }
            Scope::Consumer => {
                "Consumer client properties: `add-consumer T KEY=VALUE…`, a scenario's `[[consumer]]` tables, or `--set` for every consumer a scenario starts with."
            }
            Scope::Lab => {
                "isrlab's own properties, not Kafka's: the simulated network (`net.*`: `--set` and `set KEY=VALUE` for every link, `set link A B` for one) and the brokers' processing times (`set broker B` for one broker)."
            }
        }
    }
}

/// The value type and bounds of a property.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// An integer within inclusive bounds.
    Long {
        /// Smallest allowed value.
        min: i64,
        /// Largest allowed value.
        max: i64,
    },
    /// `true` or `false`.
    Bool,
    /// `0`, `1`, `all` or `-1`.
    Acks,
    /// A non-negative decimal number (records per second).
    Rate,
    /// A decimal number from `min` to `max` (a lab property in ms or Mbit/s).
    Decimal {
        /// Smallest allowed value.
        min: i64,
        /// Largest allowed value.
        max: i64,
    },
    /// `*` or a list of `partition:brokerId` pairs ([`ThrottledReplicas`]).
    ReplicaList,
    /// One of a fixed set of words (`auto.offset.reset`: `earliest`, `latest`, `none`).
    Choice(&'static [&'static str]),
    /// A Java class name from a fixed set, or empty / `null` for none (Kafka's `Type.CLASS`
    /// with a `null` default, e.g. `partitioner.class`).
    Class(&'static [&'static str]),
}

impl Kind {
    /// The values it accepts, in words: `an integer from 1 to 2147483647`, `true or false`.
    pub fn accepts(self) -> String {
        match self {
            Kind::Long { min, max } => format!("an integer from {min} to {max}"),
            Kind::Bool => "true or false".into(),
            Kind::Acks => "0, 1, all or -1".into(),
            Kind::Rate => "a number of records per second from 0 to 100000".into(),
            Kind::Decimal { min, max } => format!("a number from {min} to {max}"),
            Kind::ReplicaList => {
                "`*` (every replica) or a list of PARTITION:BROKER pairs, e.g. 0:1,1:2".into()
            }
            Kind::Choice(words) => words.join(", "),
            Kind::Class(names) => format!("{}, or empty or null for none", names.join(" or ")),
        }
    }
}

/// One configuration property known to isrlab.
#[derive(Debug)]
pub struct Property {
    /// Kafka's property name, e.g. `min.insync.replicas`.
    pub name: &'static str,
    /// Where it can be set.
    pub scope: Scope,
    /// Kafka's default, as text.
    pub default: &'static str,
    /// Value type and bounds.
    pub kind: Kind,
    /// What it means, in plain words.
    pub doc: &'static str,
}

/// Finds a property by name. Errors: [`ConfigError::Unknown`] with close matches.
pub fn lookup(name: &str) -> Result<&'static Property, ConfigError> {
    if let Some(p) = PROPERTIES.iter().find(|p| p.name == name) {
        return Ok(p);
    }
    let close = crate::suggest::closest(name, PROPERTIES.iter().map(|p| (p.name, p.name)));
    Err(ConfigError::Unknown { name: name.to_string(), suggestions: close.into_iter().take(3).collect() })
}

impl Property {
    /// Parses `text` as this property's value. Errors: [`ConfigError::InvalidValue`].
    pub fn parse(&'static self, text: &str) -> Result<Value, ConfigError> {
        let text = text.trim();
        let bad = |expected: String| ConfigError::InvalidValue {
            name: self.name,
            value: text.to_string(),
            expected,
        };
        match self.kind {
            Kind::Long { min, max } => match text.parse::<i64>() {
                Ok(v) if (min..=max).contains(&v) => Ok(Value::Long(v)),
                _ => Err(bad(self.kind.accepts())),
            },
            Kind::Bool => match text {
                "true" => Ok(Value::Bool(true)),
                "false" => Ok(Value::Bool(false)),
                _ => Err(bad(self.kind.accepts())),
            },
            Kind::Acks => match text {
                "0" => Ok(Value::Acks(Acks::Zero)),
                "1" => Ok(Value::Acks(Acks::One)),
                "all" | "-1" => Ok(Value::Acks(Acks::All)),
                _ => Err(bad(self.kind.accepts())),
            },
            Kind::Rate => match text.parse::<f64>() {
                Ok(v) if v.is_finite() && (0.0..=100_000.0).contains(&v) => Ok(Value::Rate(v)),
                _ => Err(bad(self.kind.accepts())),
            },
            Kind::Decimal { min, max } => match text.parse::<f64>() {
                Ok(v) if v.is_finite() && (min as f64..=max as f64).contains(&v) => Ok(Value::Decimal(v)),
                _ => Err(bad(self.kind.accepts())),
            },
            Kind::ReplicaList => ThrottledReplicas::parse(text).map(Value::Replicas).map_err(bad),
            Kind::Choice(words) => match words.iter().find(|w| **w == text) {
                Some(w) => Ok(Value::Choice(w)),
                None => Err(bad(self.kind.accepts())),
            },
            Kind::Class(names) => match names.iter().find(|n| **n == text) {
                _ if text.is_empty() || text == "null" => Ok(Value::Class(None)),
                Some(n) => Ok(Value::Class(Some(n))),
                None => Err(bad(class_not_found(text, names))),
            },
        }
    }
}

/// What a [`Kind::Class`] property accepts, after Kafka's own words for a class it cannot load
/// (`ConfigDef.parseType`: "Class X could not be found."). The partitioners Kafka 4.0 removed
/// (KAFKA-18262) get a pointer to what replaced them.
fn class_not_found(text: &str, names: &[&str]) -> String {
    let removed = ["DefaultPartitioner", "UniformStickyPartitioner"];
    let hint = match removed.iter().find(|r| text.ends_with(*r)) {
        Some(r) => format!(
            " ({r} was removed in Kafka 4.0, KAFKA-18262: leave partitioner.class empty for the built-in partitioner{})",
            if *r == "UniformStickyPartitioner" { " and set partitioner.ignore.keys=true" } else { "" }
        ),
        None => String::new(),
    };
    format!(
        "{}, or empty or null for the built-in partitioner; Class {text} could not be found{hint}",
        names.join(" or ")
    )
}

pub(crate) fn scope_error(p: &'static Property, wanted: &'static str) -> ConfigError {
    let actual = match p.scope {
        Scope::Broker => "broker",
        Scope::BrokerAndTopic => "broker/topic",
        Scope::Topic => "topic",
        Scope::Producer => "producer",
        Scope::Consumer => "consumer",
        Scope::Lab => "lab",
    };
    ConfigError::WrongScope { name: p.name, actual, wanted }
}
