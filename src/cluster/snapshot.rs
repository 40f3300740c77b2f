//! An immutable picture of the whole cluster at one sim instant. The UI, the headless runner
//! and the expectations read only this; its cost is O(partitions).

use crate::config::BrokerConfig;
use crate::sim::events::ClusterEvent;
use crate::sim::{BrokerId, Epoch, Ms, Offset, TopicPartition};
use std::sync::Arc;

pub use crate::sim::producer::ProducerView;

/// The whole cluster at one instant.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    /// Master seed of the run.
    pub seed: u64,
    /// Sim time (ms).
    pub now: Ms,
    /// The semantics profile in words, e.g. `KRaft · Kafka 4.0 semantics`.
    pub semantics: String,
    /// Brokers in id order.
    pub brokers: Vec<BrokerView>,
    /// Topics in name order.
    pub topics: Vec<TopicView>,
    /// Partitions in (topic, partition) order.
    pub partitions: Vec<PartitionView>,
    /// Producers in index order.
    pub producers: Vec<ProducerView>,
    /// Cluster-wide broker config.
    pub broker_config: BrokerConfig,
    /// Acknowledged records that no longer exist anywhere that counts (audit ledger).
    pub acked_lost: u64,
    /// Records acknowledged twice at different offsets.
    pub duplicates: u64,
    /// The most recent events, oldest first (at most a few hundred).
    pub recent_events: Arc<[ClusterEvent]>,
    /// How many events the run has produced in all.
    pub event_count: u64,
    /// Every command the sim applied, with its sim time, oldest first.
    pub commands: Arc<[super::events::AppliedCommand]>,
    /// The scenario being played, if any: its name and the sim time (ms) where it ends.
    pub scenario: Option<ScenarioInfo>,
}

/// What the dashboard shows of a scenario opened with `--scenario`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ScenarioInfo {
    /// The scenario's `name`.
    pub name: String,
    /// Its `end` (ms); sim time stops there.
    pub end: Ms,
}

/// Process state of a broker.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum BrokerStatus {
    /// Running.
    Up,
    /// Killed at the given sim time; log kept on disk.
    Crashed {
        /// When (ms).
        since: Ms,
    },
    /// Stopped after a controlled shutdown at the given sim time.
    Stopped {
        /// When (ms).
        since: Ms,
    },
}

/// One broker.
#[derive(Clone, Debug)]
pub struct BrokerView {
    /// Broker id.
    pub id: BrokerId,
    /// Process state.
    pub status: BrokerStatus,
    /// Fenced by the controller (as the controller sees it).
    pub fenced: bool,
    /// In controlled shutdown (as the controller sees it).
    pub in_controlled_shutdown: bool,
    /// Current broker epoch.
    pub broker_epoch: i64,
    /// Partitions it leads (controller view).
    pub leader_count: usize,
    /// Its fetchers are paused by the user.
    pub fetch_paused: bool,
    /// Sim time of the last heartbeat the controller received (ms).
    pub last_heartbeat: Ms,
}

/// One topic.
#[derive(Clone, Debug)]
pub struct TopicView {
    /// Name.
    pub name: String,
    /// Stable id shown like Kafka's base64 topic id.
    pub topic_id: String,
    /// Partition count.
    pub partitions: u32,
    /// Replication factor.
    pub replication_factor: usize,
    /// Overrides as `name=value` (`Configs:` in `--describe`).
    pub config_overrides: Vec<String>,
    /// Effective `min.insync.replicas` (capped at RF, R5.6).
    pub effective_min_isr: usize,
    /// Effective `unclean.leader.election.enable`.
    pub unclean_leader_election_enable: bool,
}

/// Health of a partition (R9.1 metrics).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PartitionHealth {
    /// ISR = all replicas.
    Healthy,
    /// ISR smaller than the replica list (`UnderReplicated`).
    UnderReplicated,
    /// ISR below effective min ISR (`UnderMinIsr`): acks=all refused, HW frozen.
    UnderMinIsr,
    /// No leader (`OfflinePartitionsCount`).
    Offline,
}

/// One replica of a partition.
#[derive(Clone, Debug)]
pub struct ReplicaView {
    /// Broker holding it.
    pub broker: BrokerId,
    /// Its broker is running.
    pub online: bool,
    /// Log end offset of its log (on disk even when the broker is down).
    pub leo: Offset,
    /// Its own high watermark.
    pub hw: Offset,
    /// Log start offset.
    pub log_start: Offset,
    /// Leader epoch cache: (epoch, start offset), ascending.
    pub epoch_cache: Vec<(Epoch, Offset)>,
    /// In the committed ISR.
    pub in_isr: bool,
    /// It is the leader.
    pub is_leader: bool,
    /// Leader's view: offsets behind the leader's LEO (`None` for the leader or unknown).
    pub lag: Option<Offset>,
    /// Leader's view: ms until the lag rule removes it from the ISR, when it is in the ISR
    /// and not caught up (R4.1, R4.2).
    pub isr_expiry_in: Option<Ms>,
    /// Leader's view: ms since it was last caught up.
    pub caught_up_ago: Option<Ms>,
}

/// One partition.
#[derive(Clone, Debug)]
pub struct PartitionView {
    /// The partition.
    pub tp: TopicPartition,
    /// Replica list (controller order).
    pub replicas: Vec<BrokerId>,
    /// Committed ISR.
    pub isr: Vec<BrokerId>,
    /// Leader, `None` = offline.
    pub leader: Option<BrokerId>,
    /// Leader epoch.
    pub leader_epoch: Epoch,
    /// Partition epoch.
    pub partition_epoch: Epoch,
    /// HW of the leader (or the last leader's, when offline).
    pub hw: Offset,
    /// Per replica, in replica-list order.
    pub replica_views: Vec<ReplicaView>,
    /// Health.
    pub health: PartitionHealth,
    /// Effective min ISR.
    pub effective_min_isr: usize,
    /// Why the HW cannot advance right now, in plain words (`None` when it can).
    pub hw_blocked_by: Option<String>,
    /// An ISR change the leader proposed that the controller has not committed yet.
    pub pending_isr: Option<String>,
    /// Acked records lost in this partition.
    pub acked_lost: u64,
}
