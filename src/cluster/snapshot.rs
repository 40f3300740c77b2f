//! An immutable picture of the whole cluster at one sim instant. The UI, the headless runner
//! and the expectations read only this. Building one costs O(partitions) comparisons, and
//! allocations only for the partitions that changed since the previous one.

use crate::config::{BrokerConfig, Semantics};
use crate::sim::events::ClusterEvent;
use crate::sim::protocol::LeaderRecoveryState;
use crate::sim::{BrokerId, Epoch, Ms, Offset, SimTime, TopicPartition};
use std::sync::Arc;

pub use crate::sim::consumer::{ConsumerPartitionView, ConsumerView};
pub use crate::sim::producer::ProducerView;

/// The whole cluster at one instant.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    /// Master seed of the run.
    pub seed: u64,
    /// Sim time (ms, floored).
    pub now: Ms,
    /// Sim time to the microsecond (the instant `n` stepped to, a scenario's µs times).
    pub now_us: SimTime,
    /// The Kafka version whose replication rules the cluster follows (shown in words, e.g.
    /// `KRaft · Kafka 4.1 · ELR off`).
    pub semantics: Semantics,
    /// Brokers in id order.
    pub brokers: Vec<BrokerView>,
    /// The KRaft controller quorum: its voters, the active one, and the metadata offset each
    /// broker has applied.
    pub quorum: QuorumView,
    /// Topics in name order.
    pub topics: Vec<TopicView>,
    /// Partitions in (topic, partition) order. Shared: a view that did not change since the
    /// previous snapshot is the same `Arc` (see `observe`), so holding many snapshots is cheap.
    pub partitions: Vec<Arc<PartitionView>>,
    /// Producers in index order.
    pub producers: Vec<ProducerView>,
    /// Consumers in index order.
    pub consumers: Vec<ConsumerStatus>,
    /// Consumer groups as their coordinators hold them, by group id.
    pub groups: Vec<GroupStatus>,
    /// Cluster-wide broker config as stored (`server.properties`, what a broker reads at its
    /// next start); a running broker may still run with older static values (see
    /// [`BrokerView::restart_pending`]).
    pub broker_config: BrokerConfig,
    /// A `roll` (rolling restart) is under way.
    pub rolling: bool,
    /// Acknowledged records (`acks=1` or `all`) that no longer exist anywhere that counts
    /// (audit ledger).
    pub acked_lost: u64,
    /// Records sent with `acks=0` that a leader appended and that no longer exist anywhere
    /// that counts: sent without acknowledgement, lost ([`crate::sim::audit::Ledger::unacked_lost`]).
    /// Never part of [`Snapshot::acked_lost`].
    pub unacked_lost: u64,
    /// Records acknowledged twice at different offsets.
    pub duplicates: u64,
    /// Acknowledged records written after a record of the same producer sent later
    /// (audit ledger, [`crate::sim::audit::Ledger::reordered`]).
    pub reordered: u64,
    /// Records consumers read that were erased afterwards (audit ledger), all consumers.
    pub seen_erased: u64,
    /// The most recent events, oldest first (at most a few hundred).
    pub recent_events: Arc<[ClusterEvent]>,
    /// How many events the run has produced in all.
    pub event_count: u64,
    /// Every command the sim applied, with its sim time, oldest first.
    pub commands: Arc<[super::events::AppliedCommand]>,
    /// The scenario being played, if any: its name and the sim time (ms) where it ends.
    pub scenario: Option<ScenarioInfo>,
    /// What the charts draw: samples taken every second of sim time (shared, not copied).
    pub history: Arc<super::history::History>,
    /// Every link direction with a fault (`cut`, `hold`, `delay`, `loss`; `isolate` cuts
    /// each link of a node), in (from, to) order; usually empty. Read once per snapshot from
    /// the links that have faults, which the brokers' [`Reach`] is worked out from too.
    pub faulty_links: Vec<LinkFaultView>,
    /// Sim time (ms) of the KRaft controller's next unclean-election check, while one is
    /// armed (some partition has no leader; R6.5,
    /// `QuorumController.maybeScheduleNextElectUncleanLeaders`).
    pub next_unclean_check_at: Option<Ms>,
    /// The what-if run beside this one, while the dashboard compares two
    /// ([`crate::cluster::tape::Tape::start_whatif`]); `None` otherwise.
    pub whatif: Option<Arc<WhatIfView>>,
}

/// The what-if run of a dashboard that compares two: the present forked with one setting
/// changed, run on beside the first at the same sim instants with the same later commands.
#[derive(Clone, Debug)]
pub struct WhatIfView {
    /// The `set` command the what-if run was forked with.
    pub setting: super::command::Command,
    /// The instant it was forked at.
    pub since: SimTime,
    /// The what-if run as it is now.
    pub snapshot: Snapshot,
}

/// One direction of a link that has a fault: messages `from → to` are cut, held, delayed or
/// lost (TCP resends lost segments, so they arrive late).
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct LinkFaultView {
    /// The sending end.
    pub from: crate::sim::protocol::NodeId,
    /// The receiving end.
    pub to: crate::sim::protocol::NodeId,
    /// What the user did to it.
    pub faults: crate::cluster::link::LinkFaults,
}

/// A consumer group as its coordinator holds it (`kafka-consumer-groups.sh --describe
/// --state`).
#[derive(Clone, Debug, PartialEq)]
pub struct GroupStatus {
    /// `group.id`.
    pub id: String,
    /// Its state (`Empty`, `PreparingRebalance`, `CompletingRebalance`, `Stable`).
    pub state: crate::sim::group::classic::GroupState,
    /// The broker coordinating it (the leader of its `__consumer_offsets` partition).
    pub coordinator: BrokerId,
    /// Its generation.
    pub generation: i32,
    /// Member ids, in order.
    pub members: Vec<String>,
}

impl Snapshot {
    /// The settings of this cluster that invite trouble, loudest first, each with why in one
    /// line ([`crate::config::warnings::warnings`]): the stored broker config (what brokers
    /// read at their next start), every topic's effective settings, every producer's `acks`.
    /// For the dashboard's settings line and config view, and for lessons.
    pub fn warnings(&self) -> Vec<crate::config::warnings::Warning> {
        use crate::config::warnings::{ProducerSettings, TopicSettings};
        let broker_default = self.broker_config.min_insync_replicas == 1;
        let topics: Vec<TopicSettings<'_>> = self
            .topics
            .iter()
            .map(|t| TopicSettings {
                name: &t.name,
                replication_factor: t.replication_factor,
                min_insync_replicas: t.effective_min_isr,
                min_insync_replicas_default: broker_default
                    && !t.config_overrides.iter().any(|o| o.starts_with("min.insync.replicas=")),
                unclean_leader_election_enable: t.unclean_leader_election_enable,
            })
            .collect();
        let producers: Vec<ProducerSettings<'_>> = self
            .producers
            .iter()
            .map(|p| ProducerSettings { index: p.index, topic: &p.topic, acks: p.config.acks })
            .collect();
        crate::config::warnings::warnings(&self.broker_config, &topics, &producers)
    }

    /// How many partitions are under-replicated, under min ISR and offline, counted as
    /// Kafka's gauges count them: a partition without a leader is offline only (no broker
    /// leads it to report the others).
    pub fn health_counts(&self) -> HealthCounts {
        let mut counts = HealthCounts::default();
        for p in &self.partitions {
            if p.leader.is_none() {
                counts.offline += 1;
                continue;
            }
            counts.under_replicated +=
                usize::from(p.isr.len() < p.replicas.len().saturating_sub(p.adding.len()));
            counts.under_min_isr += usize::from(p.isr.len() < p.effective_min_isr);
        }
        counts
    }
}

/// One consumer as the dashboard and the expectations see it: its own view, and how far
/// each of its partitions is behind the leader's HW and LEO.
#[derive(Clone, Debug, PartialEq)]
pub struct ConsumerStatus {
    /// The consumer's own state.
    pub view: ConsumerView,
    /// Records it read that were erased afterwards (audit ledger).
    pub seen_erased: u64,
    /// Per assigned partition, in order: its lag behind the leader's HW and LEO (records;
    /// `None` while it has no position).
    pub lags: Vec<ConsumerLag>,
}

impl ConsumerStatus {
    /// Its lag behind the HW summed over its partitions (records; Kafka's `records-lag`
    /// per partition is HW − position).
    pub fn lag(&self) -> i64 {
        self.lags.iter().filter_map(|l| l.behind_hw).sum()
    }

    /// Its position on `tp`, if it reads `tp` and has one.
    pub fn position(&self, tp: &TopicPartition) -> Option<Offset> {
        self.view.partitions.iter().find(|p| p.tp == *tp).and_then(|p| p.position)
    }
}

/// How far one consumer is behind on one partition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConsumerLag {
    /// The partition.
    pub tp: TopicPartition,
    /// Leader HW − position (records).
    pub behind_hw: Option<i64>,
    /// Leader LEO − position (records): what it would lag if it could read uncommitted data.
    pub behind_leo: Option<i64>,
}

/// What the dashboard shows of a scenario opened with `--scenario`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ScenarioInfo {
    /// The scenario's `name`.
    pub name: String,
    /// Its `end`; sim time stops there.
    pub end: SimTime,
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
    /// Running but paused (`freeze`) since the given sim time: it answers nothing.
    Frozen {
        /// When (ms).
        since: Ms,
    },
    /// Its host lost power at the given sim time (`power-loss`); only flushed data survived.
    PoweredOff {
        /// When (ms).
        since: Ms,
    },
}

/// A broker's state in one word, as scenario expectations name it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum BrokerState {
    /// Up, registered and unfenced.
    Running,
    /// Up but fenced by the controller (missed heartbeats, or not yet unfenced after start).
    Fenced,
    /// Up and in controlled shutdown.
    ShuttingDown,
    /// Stopped after a controlled shutdown.
    Stopped,
    /// Killed without warning.
    Crashed,
    /// Paused (`freeze`): the process runs but does nothing until it thaws.
    Frozen,
    /// Its host lost power (`power-loss`).
    PoweredOff,
}

impl BrokerState {
    /// Every state, in the order the README lists them.
    pub const ALL: [BrokerState; 7] = [
        Self::Running,
        Self::Fenced,
        Self::ShuttingDown,
        Self::Stopped,
        Self::Crashed,
        Self::Frozen,
        Self::PoweredOff,
    ];

    /// Its name in scenario files: `running`, `fenced`, `shutting-down`, `stopped`, `crashed`,
    /// `frozen`, `powered-off`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Fenced => "fenced",
            Self::ShuttingDown => "shutting-down",
            Self::Stopped => "stopped",
            Self::Crashed => "crashed",
            Self::Frozen => "frozen",
            Self::PoweredOff => "powered-off",
        }
    }

    /// The state named `name` (see [`BrokerState::name`]), if any.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }
}

impl std::fmt::Display for BrokerState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The controller quorum as the dashboard shows it.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct QuorumView {
    /// Each voter: node id, whether its process runs (and is not frozen), and its quorum
    /// epoch.
    pub voters: Vec<VoterView>,
    /// The active controller (the quorum's leader), if any.
    pub active: Option<i32>,
    /// The active controller's epoch (the controller epoch); the highest voter epoch when
    /// none is active.
    pub epoch: i32,
    /// The metadata log's committed offset (the active controller's high watermark).
    pub committed: i64,
    /// Per broker, the metadata log offset it has applied, in id order.
    pub applied: Vec<(BrokerId, i64)>,
}

/// One voter of the controller quorum.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct VoterView {
    /// Its node id.
    pub id: i32,
    /// Its process runs and is not frozen.
    pub up: bool,
    /// Its quorum epoch.
    pub epoch: i32,
    /// Its metadata log end offset.
    pub log_end: i64,
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
    /// Static properties set since it started that it does not run with yet ("restart
    /// pending"); empty when its config is current.
    pub restart_pending: Vec<String>,
    /// How its links stand (`isolate`, `cut`, `hold`).
    pub reach: Reach,
    /// While the controller does not hear from it (down, frozen, or its link to the
    /// controller blocked) and has not fenced it yet: ms until it does (see
    /// [`PartitionHealth::LeaderUnreachable`]); `None` otherwise.
    pub fenced_in: Option<Ms>,
    /// The `replica.lag.time.max.ms` it runs with (ms; a static property, so it may differ
    /// from [`Snapshot::broker_config`] until it restarts). As a leader it checks its
    /// followers every half of it (`ReplicaManager.startup` schedules `maybeShrinkIsr`).
    pub replica_lag_time_max_ms: Ms,
    /// Its follower fetchers' incremental fetch sessions (KIP-227), in leader order; empty
    /// while the process is down (sessions live in memory).
    pub fetch_sessions: Vec<FetchSessionView>,
}

#[cfg(test)]
impl BrokerView {
    /// A broker for unit tests: `id` in `status`, `fenced` or not, epoch 1, nothing else set.
    pub(crate) fn for_test(id: BrokerId, status: BrokerStatus, fenced: bool) -> BrokerView {
        BrokerView {
            id,
            status,
            fenced,
            in_controlled_shutdown: false,
            broker_epoch: 1,
            leader_count: 0,
            fetch_paused: false,
            last_heartbeat: 0,
            restart_pending: Vec::new(),
            reach: Reach::default(),
            fenced_in: None,
            replica_lag_time_max_ms: 30_000,
            fetch_sessions: Vec::new(),
        }
    }
}

/// One follower fetcher's incremental fetch session (KIP-227) as both ends track it: the
/// follower's `FetchSessionHandler` and the leader's `FetchSession` in its
/// `FetchSessionCache`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FetchSessionView {
    /// The leader it fetches from.
    pub leader: BrokerId,
    /// Partitions this broker follows from that leader.
    pub members: usize,
    /// The session id its next fetch names; 0 (`INVALID_SESSION_ID`) for none.
    pub session_id: u32,
    /// The epoch its next fetch carries: 0 for a full fetch that opens a session, 1 and up
    /// for incremental ones (`FetchMetadata`).
    pub epoch: i32,
    /// Partitions in the session as the follower last sent it.
    pub partitions: usize,
    /// When and why the session last started over.
    pub reset: Option<crate::sim::fetch_session::SessionReset>,
    /// The session in the leader's cache, if the leader holds one with that id for this
    /// follower.
    pub at_leader: Option<CachedSessionView>,
}

/// A fetch session as the leader caches it (Kafka's `FetchSession`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CachedSessionView {
    /// The epoch the next incremental fetch must carry (else INVALID_FETCH_SESSION_EPOCH).
    pub epoch: i32,
    /// Partitions it caches.
    pub partitions: usize,
    /// When it was last used (ms): a session unused for 120 s may be evicted by a new one.
    pub last_used_ms: Ms,
}

/// How a broker's links to the rest of the cluster stand. A link that is cut or held
/// delivers nothing (for now), so it counts as blocked.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Reach {
    /// Its messages reach the controller (some links to other brokers may be blocked).
    #[default]
    Controller,
    /// Its messages to the controller are blocked, but it still reaches some brokers.
    NoController,
    /// Every link to and from the other brokers and the controller is blocked (`isolate`).
    Isolated,
}

impl BrokerView {
    /// Its state in one word: a down process is crashed, stopped or powered off; a paused
    /// one is frozen (whatever the controller thinks); a running one is shutting down, fenced
    /// or running, as the controller sees it.
    pub fn state(&self) -> BrokerState {
        match self.status {
            BrokerStatus::Crashed { .. } => BrokerState::Crashed,
            BrokerStatus::Stopped { .. } => BrokerState::Stopped,
            BrokerStatus::Frozen { .. } => BrokerState::Frozen,
            BrokerStatus::PoweredOff { .. } => BrokerState::PoweredOff,
            BrokerStatus::Up if self.in_controlled_shutdown => BrokerState::ShuttingDown,
            BrokerStatus::Up if self.fenced => BrokerState::Fenced,
            BrokerStatus::Up => BrokerState::Running,
        }
    }
}

/// One topic.
#[derive(Clone, Debug)]
pub struct TopicView {
    /// Name.
    pub name: String,
    /// Its topic id (KIP-516) as Kafka prints it (base64url, 22 characters): the one the
    /// controller drew when it created the topic.
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

/// A partition's state: the worst thing true of it, checked in this order (the first that
/// holds wins): offline, leader unreachable, HW frozen (under min ISR, or waiting for a
/// stalled ISR member), under-replicated, reassigning, healthy.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PartitionHealth {
    /// ISR = all replicas, no reassignment running.
    Healthy,
    /// A reassignment is adding or removing replicas (KIP-455), the ISR is complete.
    Reassigning,
    /// ISR smaller than the replica list without the adding replicas (`UnderReplicated`).
    UnderReplicated,
    /// HW frozen, waiting for a stalled ISR member: the leader's LEO is above its HW and
    /// `broker`, the ISR member with the lowest LEO (the one the HW waits for, R2.7), has not
    /// been caught up with the leader for at least [`HW_STALL_MS`] (its `lastCaughtUpTimeMs`
    /// is that old). A follower that keeps fetching catches up at every fetch while records
    /// arrive, so this means it stopped (frozen, crashed, cut off) and the HW will not move
    /// until it fetches again or the leader removes it from the ISR (R4.1).
    HwWaiting {
        /// The stalled ISR member.
        broker: BrokerId,
    },
    /// HW frozen: ISR below the effective min ISR (`UnderMinIsr`): acks=all refused, and the
    /// HW does not advance (Kafka 3.7+ rule).
    UnderMinIsr,
    /// The leader is unreachable (its process is down or frozen, or its link to the controller
    /// is blocked) but the controller has not fenced it yet: it does in `fenced_in` ms, when
    /// `broker.session.timeout.ms` has passed since the last heartbeat it received
    /// (`BrokerHeartbeatManager`, R6.1); until then no new leader is elected.
    LeaderUnreachable {
        /// Ms until the controller fences the leader.
        fenced_in: Ms,
        /// Why the controller does not hear from it.
        why: Unreachable,
    },
    /// No leader (`OfflinePartitionsCount`).
    Offline,
}

/// How long (sim ms) the ISR member that holds the HW back must have gone without catching
/// up before its partition's state is [`PartitionHealth::HwWaiting`]: long against a fetch
/// round trip (a few ms, at most `replica.fetch.wait.max.ms` = 500 ms when no record comes),
/// short against `replica.lag.time.max.ms` (30 s), after which the leader drops it.
pub const HW_STALL_MS: Ms = 1_000;

/// Why the controller does not hear from a broker.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Unreachable {
    /// Its process is not running (crashed, stopped or powered off).
    Down,
    /// Its process is frozen (paused): it sends nothing.
    Frozen,
    /// It runs but its link to the controller is blocked (`isolate`, `cut`, `hold`).
    CutOff,
}

/// Partition counts by the metrics the header shows (Kafka's `ReplicaManager` and controller
/// gauges).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct HealthCounts {
    /// `UnderReplicatedPartitions`: ISR smaller than the replica list (without adding
    /// replicas); under-min-ISR partitions count here too, as in Kafka.
    pub under_replicated: usize,
    /// `UnderMinIsrPartitionCount`: ISR below the effective `min.insync.replicas`.
    pub under_min_isr: usize,
    /// `OfflinePartitionsCount`: no leader.
    pub offline: usize,
}

/// One replica of a partition.
#[derive(Clone, PartialEq, Debug)]
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
    /// How many Fetch requests its broker sent listing this partition (KIP-227: a full fetch
    /// lists every partition, an incremental one only those added or changed).
    pub fetch_requests: u64,
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
    /// Leader's view: ms since it was last caught up, while the ISR timer runs
    /// (`isr_expiry_in` is set); `None` otherwise, so a caught-up follower's view does not
    /// change from one instant to the next.
    pub caught_up_ago: Option<Ms>,
}

/// One partition.
#[derive(Clone, PartialEq, Debug)]
pub struct PartitionView {
    /// The partition.
    pub tp: TopicPartition,
    /// Replica list (controller order).
    pub replicas: Vec<BrokerId>,
    /// Committed ISR.
    pub isr: Vec<BrokerId>,
    /// Replicas a reassignment is adding (KIP-455 `addingReplicas`; empty when none runs).
    pub adding: Vec<BrokerId>,
    /// Replicas a reassignment is removing (KIP-455 `removingReplicas`).
    pub removing: Vec<BrokerId>,
    /// Eligible leader replicas (KIP-966, R8.3), as the controller keeps them.
    pub elr: Vec<BrokerId>,
    /// LastKnownELR: the last leader once the ISR became empty (R8.3).
    pub last_known_elr: Vec<BrokerId>,
    /// While a reassignment adds replicas: the bytes they still have to fetch, the leader's
    /// log size minus each adding replica's, summed (bytes).
    pub reassign_bytes_left: Option<u64>,
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
    /// Why the latest of them were lost (while some are), from the audit ledger.
    pub loss_cause: Option<crate::sim::loss_cause::LossCause>,
    /// KIP-704 leader recovery state: `Recovering` after an unclean election until the new
    /// leader's first ISR change (`PartitionRegistration.leaderRecoveryState`).
    pub leader_recovery_state: LeaderRecoveryState,
    /// ISR shrinks so far (count of `IsrShrunk` events).
    pub isr_shrinks: u64,
    /// ISR expansions so far (count of `IsrExpanded` events).
    pub isr_expands: u64,
    /// How its leader's links stand ([`Reach::Controller`] when it has none): a leader that
    /// cannot reach the controller sends no heartbeats or ISR changes, so the controller
    /// fences it after `broker.session.timeout.ms` and elects another, while it still
    /// believes it leads.
    pub leader_reach: Reach,
    /// The maximal-ISR member that holds the leader's HW below its LEO, as the leader sees
    /// it ([`crate::sim::partition::Partition::hw_held_by`], R2.7); `None` when the HW equals
    /// the LEO or the partition has no live leader view.
    pub hw_held_by: Option<HwHold>,
    /// The acks=all produces its leader has parked until the HW passes them, per producer
    /// ([`crate::sim::partition::Partition::parked_produces`]); empty without a leader.
    pub parked: Vec<crate::sim::partition::ParkedProduces>,
    /// Truncations of its replicas in the last [`TRUNCATION_SHOWN_MS`], oldest first.
    pub truncations: Vec<TruncationView>,
}

/// The ISR member the HW waits for (`Partition.maybeIncrementLeaderHW` takes the minimum LEO
/// over the maximal ISR).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct HwHold {
    /// The member.
    pub broker: BrokerId,
    /// Its LEO as the leader knows it from its last fetch; `None` before its first fetch
    /// from this leader (R2.10).
    pub leo: Option<Offset>,
}

/// How long (sim ms) a truncation stays in [`PartitionView::truncations`], so the dashboard
/// can show the removed records struck out for a while.
pub const TRUNCATION_SHOWN_MS: Ms = 5_000;

/// One replica's truncation on divergence (R7.5, R7.6; `Partition.truncateTo` →
/// `UnifiedLog.truncateTo`), with how many of the removed records had been acknowledged
/// (audit ledger, [`crate::sim::audit::Ledger::acknowledged_among`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct TruncationView {
    /// The truncating replica's broker.
    pub replica: BrokerId,
    /// The first removed offset (its LEO after the truncation).
    pub from: Offset,
    /// Records removed (offsets `from..from + count`).
    pub count: u64,
    /// Of those, records a producer had been told were written.
    pub acknowledged: u64,
    /// The lowest and highest of those acknowledged offsets, if any: the pane draws that
    /// span apart, as acknowledged records lost.
    pub acknowledged_span: Option<(Offset, Offset)>,
    /// When it happened (sim ms).
    pub at: Ms,
}
