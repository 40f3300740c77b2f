//! What validating a command reads about a cluster: [`Catalog`]. The live world is one
//! ([`Live`]); a scenario file's timeline, before the run, is another (`scenario::checks::Known`).
//! Both answer through the same validation code, so a command gets the same refusal from the
//! palette, a scenario file and the command line.

use super::super::node::ProcessState;
use super::super::world::World;
use crate::config::{BrokerConfig, ProducerConfig, TopicConfig};
use crate::kafka::errors::ErrorCode;
use crate::sim::error::SimError;
use crate::sim::protocol::NodeId;
use crate::sim::{BrokerId, join_ids};

/// A broker's process as validation sees it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct BrokerState {
    /// The process runs (not crashed, not stopped).
    pub running: bool,
    /// Its follower fetchers are paused by the user.
    pub fetch_paused: bool,
    /// The process is paused (`freeze`).
    pub frozen: bool,
    /// The process runs a controlled shutdown (R6.6) and exits when the controller lets it.
    pub shutting_down: bool,
}

/// What a command is validated against.
pub trait Catalog {
    /// Every broker id, ascending.
    fn broker_ids(&self) -> Vec<BrokerId>;
    /// Topic names, ascending.
    fn topic_names(&self) -> Vec<String>;
    /// A topic's partition count; `None` when there is no such topic.
    fn partition_count(&self, topic: &str) -> Option<u32>;
    /// The stored cluster-wide broker config (what a broker reads at its next start).
    fn broker_config(&self) -> BrokerConfig;
    /// A topic's overrides; `None` when there is no such topic.
    fn topic_config(&self, topic: &str) -> Option<TopicConfig>;
    /// Every producer's config, in index order (empty when there is none).
    fn producer_configs(&self) -> Vec<ProducerConfig>;
    /// A broker's process state; `None` when not known (a file checked before its run).
    fn broker_state(&self, broker: BrokerId) -> Option<BrokerState>;
    /// Whether a `roll` is under way; `None` when not known.
    fn roll_running(&self) -> Option<bool>;
    /// Whether the controller's process is paused (`freeze controller`); `None` when not
    /// known.
    fn controller_frozen(&self) -> Option<bool>;
    /// The controller quorum's voter ids, ascending.
    fn controller_ids(&self) -> Vec<i32>;
    /// Whether controller `id`'s process runs; `None` when not known.
    fn controller_running(&self, id: i32) -> Option<bool>;
}

/// Errors unless `id` is one of the quorum's controllers.
pub fn known_controller(cluster: &dyn Catalog, id: i32) -> Result<(), SimError> {
    let ids = cluster.controller_ids();
    if ids.contains(&id) {
        Ok(())
    } else {
        Err(SimError::InvalidState(format!(
            "controller {id} does not exist (controllers: {})",
            join_ids(&ids)
        )))
    }
}

/// Errors with [`SimError::UnknownBroker`] unless `broker` exists.
pub fn known_broker(cluster: &dyn Catalog, broker: BrokerId) -> Result<(), SimError> {
    let ids = cluster.broker_ids();
    if ids.contains(&broker) { Ok(()) } else { Err(SimError::UnknownBroker(broker, join_ids(&ids))) }
}

/// The state of broker `broker`, which must exist and run; `None` when its state is not known
/// (a file checked before its run). Errors: [`SimError::UnknownBroker`], and
/// [`SimError::InvalidState`] when its process is down.
pub fn running_broker(cluster: &dyn Catalog, broker: BrokerId) -> Result<Option<BrokerState>, SimError> {
    known_broker(cluster, broker)?;
    match cluster.broker_state(broker) {
        Some(s) if !s.running => Err(SimError::InvalidState(format!("broker {broker} is not running"))),
        s => Ok(s),
    }
}

/// Errors with [`SimError::InvalidState`] when broker `broker` is frozen (`freeze`).
pub fn not_frozen(broker: BrokerId, state: Option<BrokerState>) -> Result<(), SimError> {
    match state {
        Some(s) if s.frozen => {
            Err(SimError::InvalidState(format!("broker {broker} is frozen; thaw it first")))
        }
        _ => Ok(()),
    }
}

/// The config of producer `index`. Errors: [`no_such_producer`].
pub fn known_producer(cluster: &dyn Catalog, index: u32) -> Result<ProducerConfig, SimError> {
    let configs = cluster.producer_configs();
    let count = configs.len();
    configs.into_iter().nth(index as usize).ok_or_else(|| no_such_producer(index, count))
}

/// The refusal for a producer index that names none of the `count` producers: which exist,
/// and how to add one when there is none.
pub fn no_such_producer(index: u32, count: usize) -> SimError {
    SimError::InvalidState(match count {
        0 => format!(
            "there is no producer {index}: there is no producer yet (`produce T N` or `set producer KEY=VALUE` adds one)"
        ),
        1 => format!("there is no producer {index}: the only producer is producer 0"),
        n => format!("there is no producer {index}: the producers are 0 to {}", n - 1),
    })
}

/// The partition count of `topic`. Errors: [`SimError::UnknownTopic`].
pub fn known_topic(cluster: &dyn Catalog, topic: &str) -> Result<u32, SimError> {
    cluster.partition_count(topic).ok_or_else(|| SimError::UnknownTopic(topic.to_string()))
}

/// Errors unless partition `partition` of `topic` exists: [`SimError::UnknownTopic`], or
/// `UNKNOWN_TOPIC_OR_PARTITION` with the controller's text (`ReplicationControlManager.
/// electLeader`) and the topic's partition count.
/// When `topic` is unknown but `topic-partition` is a topic, the error says to name one of
/// that topic's partitions.
pub fn known_partition(cluster: &dyn Catalog, topic: &str, partition: u32) -> Result<(), SimError> {
    let whole = format!("{topic}-{partition}");
    if cluster.partition_count(topic).is_none() && cluster.partition_count(&whole).is_some() {
        return Err(SimError::InvalidState(format!(
            "`{whole}` is a topic, not a partition; name one of its partitions, e.g. {whole}-0"
        )));
    }
    let count = known_topic(cluster, topic)?;
    if partition < count {
        return Ok(());
    }
    Err(SimError::Api(
        ErrorCode::UnknownTopicOrPartition,
        format!("No such partition as {topic}-{partition} ({topic} has partitions 0 to {})", count - 1),
    ))
}

/// The running world as a [`Catalog`].
pub(crate) struct Live<'a>(pub &'a World);

impl Catalog for Live<'_> {
    fn broker_ids(&self) -> Vec<BrokerId> {
        self.0.broker_ids()
    }
    fn topic_names(&self) -> Vec<String> {
        self.0.controller().borrow().topics().map(|t| t.name.to_string()).collect()
    }
    fn partition_count(&self, topic: &str) -> Option<u32> {
        self.0.controller().borrow().topic(topic).map(|t| t.partition_count())
    }
    fn broker_config(&self) -> BrokerConfig {
        self.0.server_properties.borrow().clone()
    }
    fn topic_config(&self, topic: &str) -> Option<TopicConfig> {
        self.0.controller().borrow().topic(topic).map(|t| t.config.clone())
    }
    fn producer_configs(&self) -> Vec<ProducerConfig> {
        self.0.producers().iter().map(|p| p.borrow().config().clone()).collect()
    }
    fn broker_state(&self, broker: BrokerId) -> Option<BrokerState> {
        let core = self.0.broker(broker)?;
        let core = core.borrow();
        let node = self.0.node(NodeId::Broker(broker));
        let frozen = node.as_ref().is_some_and(|n| n.frozen.get().is_some());
        let shutting_down = node.is_some_and(|n| n.state.get() == ProcessState::ShuttingDown);
        Some(BrokerState { running: core.is_up(), fetch_paused: core.fetch_paused(), frozen, shutting_down })
    }
    fn roll_running(&self) -> Option<bool> {
        Some(self.0.rolling.get())
    }
    fn controller_ids(&self) -> Vec<i32> {
        self.0.controller_nodes().into_iter().map(|(id, _)| id).collect()
    }
    fn controller_running(&self, id: i32) -> Option<bool> {
        self.0.node(NodeId::Controller(id)).map(|n| n.state.get().is_running())
    }
    fn controller_frozen(&self) -> Option<bool> {
        let active = self.0.active_controller_id().map(NodeId::Controller);
        Some(active.and_then(|id| self.0.node(id)).is_some_and(|n| n.frozen.get().is_some()))
    }
}
