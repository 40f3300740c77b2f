//! Why a run could not start or a command was refused.

use crate::config::ConfigError;
use crate::kafka::BrokerId;
use crate::kafka::errors::ErrorCode;

/// Why a run could not start or a command was refused. Nothing changes when one is returned.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimError {
    /// `INVALID_REPLICATION_FACTOR` (38) with Kafka's message (R1.7).
    #[error("INVALID_REPLICATION_FACTOR: {0}")]
    InvalidReplicationFactor(String),
    /// Invalid partition count.
    #[error("INVALID_PARTITIONS: {0}")]
    InvalidPartitions(String),
    /// Invalid topic name (Kafka's `InvalidTopicException`).
    #[error("INVALID_TOPIC_EXCEPTION: {0}")]
    InvalidTopic(String),
    /// The topic already exists (`TOPIC_ALREADY_EXISTS`).
    #[error("TOPIC_ALREADY_EXISTS: Topic '{0}' already exists.")]
    TopicExists(String),
    /// No such topic (`UNKNOWN_TOPIC_OR_PARTITION`).
    #[error("UNKNOWN_TOPIC_OR_PARTITION: topic `{0}` does not exist")]
    UnknownTopic(String),
    /// No such broker.
    #[error("broker {0} does not exist (brokers: {1})")]
    UnknownBroker(BrokerId, String),
    /// The command does not fit the broker's state, e.g. restarting a running broker.
    #[error("{0}")]
    InvalidState(String),
    /// An admin request refused with a Kafka error code and its message, as the controller
    /// answers it (e.g. `ELECTION_NOT_NEEDED`, `NO_REASSIGNMENT_IN_PROGRESS`).
    #[error("{0}: {1}")]
    Api(ErrorCode, String),
    /// A configuration mistake.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The cluster definition itself is impossible (no brokers, duplicate ids, ...).
    #[error("invalid cluster: {0}")]
    InvalidCluster(String),
}
