//! The way in and out of a running simulation: [`Sim`] (synchronous, for tests and headless
//! runs) and [`LiveSim`] (a sim thread paced by the dashboard).

use super::snapshot::Snapshot;
use super::spec::ClusterSpec;
use crate::config::ConfigError;
use crate::scenario::command::Command;
use crate::sim::events::ClusterEvent;
use crate::sim::{BrokerId, Ms};
use std::sync::Arc;

/// Why a run could not start or a command was refused. Nothing changes when one is returned.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimError {
    /// `INVALID_REPLICATION_FACTOR` (38) with Kafka's message (R1.7).
    #[error("INVALID_REPLICATION_FACTOR: {0}")]
    InvalidReplicationFactor(String),
    /// Invalid partition count or topic name.
    #[error("INVALID_PARTITIONS: {0}")]
    InvalidPartitions(String),
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
    /// A configuration mistake.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The cluster definition itself is impossible (no brokers, duplicate ids, ...).
    #[error("invalid cluster: {0}")]
    InvalidCluster(String),
}

/// A simulation driven step by step from the calling thread. Time only moves inside
/// [`Sim::advance_to`], so between calls the cluster is frozen and can be inspected.
pub struct Sim {
    _private: (),
}

impl Sim {
    /// Builds the cluster, registers the brokers, creates the topics and starts the producers
    /// at t=0. Errors: any [`SimError`] from the spec.
    pub fn new(spec: ClusterSpec) -> Result<Sim, SimError> {
        let _ = spec;
        unimplemented!("runtime not written yet")
    }

    /// Current sim time (ms).
    pub fn now(&self) -> Ms {
        unimplemented!()
    }

    /// Runs every task and timer up to sim time `t` (ms), in order.
    pub fn advance_to(&mut self, t: Ms) {
        let _ = t;
        unimplemented!()
    }

    /// Applies a command at the current instant. Errors leave the cluster unchanged.
    pub fn apply(&mut self, cmd: &Command) -> Result<(), SimError> {
        let _ = cmd;
        unimplemented!()
    }

    /// The cluster as it is now.
    pub fn snapshot(&self) -> Snapshot {
        unimplemented!()
    }

    /// Events since the previous call, oldest first.
    pub fn drain_events(&mut self) -> Vec<ClusterEvent> {
        unimplemented!()
    }

    /// A hash of the whole event trace so far; equal runs give equal hashes.
    pub fn trace_hash(&self) -> u64 {
        unimplemented!()
    }
}

/// A simulation on its own thread, paced from outside (the dashboard). Snapshots arrive on a
/// watch channel; commands are applied at the sim instant they arrive.
pub struct LiveSim {
    _private: (),
}

impl LiveSim {
    /// Starts the sim thread. `timeline` holds commands to apply at given sim times (ms), as a
    /// scenario's `[[at]]` entries do. Errors: the spec's [`SimError`].
    pub fn spawn(spec: ClusterSpec, timeline: Vec<(Ms, Command)>) -> Result<LiveSim, SimError> {
        let _ = (spec, timeline);
        unimplemented!()
    }

    /// Lets sim time run up to `t` (ms). Returns at once.
    pub fn advance_to(&self, t: Ms) {
        let _ = t;
        unimplemented!()
    }

    /// Applies a command at the sim's current instant and waits for the verdict.
    pub fn apply(&self, cmd: Command) -> Result<(), SimError> {
        let _ = cmd;
        unimplemented!()
    }

    /// The newest snapshot.
    pub fn latest(&self) -> Arc<Snapshot> {
        unimplemented!()
    }

    /// A receiver that wakes on every new snapshot.
    pub fn watch(&self) -> tokio::sync::watch::Receiver<Arc<Snapshot>> {
        unimplemented!()
    }
}
