//! Typed Kafka configuration with one registry of properties (name, scope, default, meaning,
//! validator). The registry serves `--set`, the `set` command and scenario `config` tables.
//! Defaults are Kafka 4.x's (rule book §11).
//!
//! Kafka keeps one `ConfigDef` per kind of config (`KafkaConfig`, `LogConfig`, `ProducerConfig`,
//! `ConsumerConfig`); isrlab keeps one table of every property and one typed struct per kind:
//! - the registry: what a property is (`registry`), the table of every property
//!   (`properties`), a parsed value (`value`), how a change takes effect (`update_mode`) and
//!   the mistakes a setting can make (`error`);
//! - the typed configs: the brokers' (`broker`, with `throttle` for the replication
//!   throttles), a topic's overrides and its logs' effective settings (`topic`), the producer's
//!   (`producer`), the consumer's (`consumer`), and isrlab's lab properties (`lab` for
//!   processing times, `net` for the network);
//! - `semantics`: every version-dependent rule, one value; `profiles`: its named values per
//!   Kafka release and the toggles that override it; `current`: the effective value of
//!   every property; `warnings`: combinations that lose data or stall.

mod broker;
pub mod consumer;
mod current;
mod error;
pub mod lab;
mod net;
mod producer;
pub mod profiles;
mod properties;
mod registry;
pub mod semantics;
pub mod throttle;
mod topic;
mod update_mode;
mod value;
pub mod warnings;

pub use broker::BrokerConfig;
pub use consumer::{AutoOffsetReset, ConsumerConfig};
pub use error::ConfigError;
pub use lab::{HandlingConfig, LabConfig};
pub use net::NetConfig;
pub use producer::{
    DEFAULT_RECORD_SIZE, MAX_IN_FLIGHT_FOR_IDEMPOTENCE, PartitionerClass, ProducerConfig,
    RECORD_BATCH_OVERHEAD, ROUND_ROBIN_PARTITIONER,
};
pub use properties::PROPERTIES;
pub use registry::{Kind, Property, Scope, lookup};
pub use semantics::Semantics;
pub use throttle::{BrokerThrottleRates, ThrottledReplicas, with_partition};
pub use topic::{LogConfig, TopicConfig};
pub use update_mode::UpdateMode;
pub use value::Value;

pub(crate) use registry::scope_error;
use value::{as_bool, as_u64};

#[cfg(test)]
mod tests;
