//! Every state change of the simulated cluster as typed data. The plain-words text lives in
//! one place, the `Display` impls of `text`, never at the emit sites.

use super::loss_cause::LossCause;
use super::protocol::NodeId;
use super::{BrokerId, Epoch, Ms, Offset, SimTime, TopicId, TopicPartition};
use crate::kafka::errors::ErrorCode;

mod text;

pub use text::group;

/// An event stamped with the sim time (µs) at which the runtime published it.
#[derive(Clone, PartialEq, Debug)]
pub struct ClusterEvent {
    /// Sim time (µs).
    pub at: SimTime,
    /// What happened.
    pub kind: EventKind,
}

/// Why an election happened and which rule chose the leader (R6.3–R6.7).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ElectionKind {
    /// First live ISR member in replica order (R6.3).
    Clean,
    /// No live ISR member; first live replica (R6.5).
    Unclean,
    /// The leader is in controlled shutdown (R6.6).
    ControlledShutdown,
    /// Preferred replica election by auto-rebalance (R6.7).
    Preferred,
    /// A leaderless partition got its leader back when an ISR member returned (R6.4).
    Recovered,
    /// An election an operator asked for (`elect-preferred`, `kafka-leader-election.sh`;
    /// `ReplicationControlManager.electLeaders`).
    Requested,
    /// A completed reassignment took the old leader out of the replicas (KIP-455).
    Reassignment,
    /// An unclean election an operator asked for (`elect-unclean`, `kafka-leader-election.sh
    /// --election-type unclean`): no live ISR member, first live replica, whatever
    /// `unclean.leader.election.enable` says.
    UncleanRequested,
    /// The ISR was empty and the new leader came from the eligible leader replicas (KIP-966,
    /// R8.4): it left the ISR while the ISR was under min ISR, so it holds every committed
    /// record. A clean election.
    Eligible,
    /// The ISR and the ELR were empty and the last known leader came back (KIP-966 "balanced
    /// recovery", `canElectLastKnownLeader`, R8.4): elected the way an unclean leader is (ISR
    /// = it alone, RECOVERING), whatever `unclean.leader.election.enable` says.
    LastKnownLeader,
}

/// Who removed a replica from an ISR and why (R4.1, R4.8).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ShrinkCause {
    /// The leader's lag rule: not caught up for longer than `replica.lag.time.max.ms`.
    Lagging {
        /// How long since the follower was last caught up (ms).
        behind_ms: Ms,
        /// The configured limit (ms).
        limit_ms: Ms,
    },
    /// The lag rule, for a follower that has not fetched at all from a leader elected
    /// `behind_ms` ago (R2.10 starts its caught-up clock at the election).
    NoFetchSinceElection {
        /// Time since the leader took over (ms).
        behind_ms: Ms,
        /// The configured limit (ms).
        limit_ms: Ms,
    },
    /// Kafka 0.8's count rule (R4.4, `Partition.getOutOfSyncReplicas` at 0.8.2): more than
    /// `replica.lag.max.messages` behind the leader's LEO at the check.
    TooFarBehind {
        /// Messages behind the leader's LEO.
        behind: i64,
        /// The configured limit (messages).
        limit: u64,
    },
    /// The controller fenced the broker (missed heartbeats).
    Fenced,
    /// The broker is in controlled shutdown.
    ControlledShutdown,
    /// The broker registered again after a crash: its `PreviousBrokerEpoch` did not match, so
    /// it may have lost acknowledged records (KIP-966 `handleBrokerUncleanShutdown`, R8.3).
    UncleanShutdown,
}

/// Why a producer batch failed at least once (shown when a partition starts failing).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ProduceFailure {
    /// The error code.
    pub error: ErrorCode,
    /// Detail in Kafka's wording, e.g. the min ISR message.
    pub detail: String,
}

/// One step of a rolling restart (`roll`).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum RollStep {
    /// It began: the brokers in the order it restarts them, and whether it waits for each to
    /// be back in every ISR before the next.
    Started {
        /// Restart order.
        order: Vec<BrokerId>,
        /// Waits for the ISRs (`roll`), or not (`roll --no-wait`).
        wait: bool,
    },
    /// It asked this broker for a controlled shutdown.
    Stopping(BrokerId),
    /// This broker was down and was started again.
    Restarted(BrokerId),
    /// This broker is back in the ISR of every partition it replicates.
    BackInIsrs(BrokerId),
    /// Every broker was restarted.
    Done,
    /// It gave up because this broker went down or froze while it waited.
    Abandoned(BrokerId),
}

/// [`EventKind::Truncated`]'s epoch when a replica becoming a follower truncated to its own
/// high watermark, before KIP-101 (R7.1; Kafka 0.10.2 `ReplicaManager.makeFollowers` →
/// `logManager.truncateTo(… highWatermark)`); `leader_end_offset` is then that HW.
pub const TRUNCATED_TO_HW: Epoch = -2;

/// [`EventKind::Truncated`]'s epoch when a follower's fetch offset was past the leader's LEO
/// and it truncated to that LEO, before KIP-101 (R7.1; Kafka 0.10.2
/// `ReplicaFetcherThread.handleOffsetOutOfRange`).
pub const TRUNCATED_TO_LEADER_LEO: Epoch = -3;

/// What happened.
#[derive(Clone, PartialEq, Debug)]
pub enum EventKind {
    /// A topic was created with this assignment.
    TopicCreated {
        /// Topic name.
        topic: String,
        /// The id the controller drew for it (KIP-516).
        topic_id: TopicId,
        /// Replica list per partition.
        assignment: Vec<Vec<BrokerId>>,
    },
    /// A reassignment began (KIP-455): the target replicas were added to the replica list.
    ReassignmentStarted {
        /// The partition.
        tp: TopicPartition,
        /// Replicas being added (they catch up, then join the ISR).
        adding: Vec<BrokerId>,
        /// Replicas removed once every target replica is in the ISR.
        removing: Vec<BrokerId>,
        /// The replication throttle set for it (bytes/s), if any.
        throttle: Option<u64>,
    },
    /// A reassignment completed: the replica list is the target, the removed replicas left.
    ReassignmentCompleted {
        /// The partition.
        tp: TopicPartition,
        /// The new replica list.
        replicas: Vec<BrokerId>,
    },
    /// A reassignment named the same replicas in a new order: the controller writes the new
    /// order at once (`PartitionChangeBuilder`), so the first replica is the preferred leader
    /// from now on; the leader itself stays.
    ReplicasReordered {
        /// The partition.
        tp: TopicPartition,
        /// The new replica order, preferred leader first.
        replicas: Vec<BrokerId>,
        /// The leader, which did not change.
        leader: Option<BrokerId>,
    },
    /// `reassign --verify` (or `--cancel`) removed the reassignment throttles, as
    /// `ReassignPartitionsCommand.clearAllThrottles` does.
    ThrottlesCleared {
        /// Brokers whose `leader/follower.replication.throttled.rate` were deleted.
        brokers: Vec<BrokerId>,
        /// Topics whose `leader/follower.replication.throttled.replicas` were deleted.
        topics: Vec<String>,
    },
    /// A reassignment was cancelled (`--cancel`): the adding replicas left again.
    ReassignmentCancelled {
        /// The partition.
        tp: TopicPartition,
        /// The replica list it went back to.
        replicas: Vec<BrokerId>,
    },
    /// A topic got more partitions (`kafka-topics.sh --alter --partitions`).
    PartitionsAdded {
        /// Topic name.
        topic: String,
        /// Its partition count before.
        from: u32,
        /// Replica list of each new partition.
        assignment: Vec<Vec<BrokerId>>,
    },
    /// A topic was deleted (`kafka-topics.sh --delete`): brokers delete its replicas.
    TopicDeleted {
        /// Topic name.
        topic: String,
    },
    /// A broker stopped a replica it no longer hosts and deleted its log (a reassignment
    /// removed it, or its topic was deleted; `ReplicaManager.applyDelta`).
    ReplicaDeleted {
        /// The broker.
        broker: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// `Some(id)` for a stray log: its topic id (from its `partition.metadata`) is not in
        /// the metadata, as when its topic was deleted, and perhaps created again under the
        /// same name with a new id, while the broker was away (KIP-516;
        /// `LogManager.isStrayKraftReplica`).
        stray: Option<TopicId>,
    },
    /// A broker process started and registered with the controller.
    BrokerRegistered {
        /// The broker.
        broker: BrokerId,
        /// Its new broker epoch.
        broker_epoch: i64,
    },
    /// The controller refused a broker's registration with `DUPLICATE_BROKER_REGISTRATION`:
    /// the broker id's previous incarnation still has a live session
    /// (`ClusterControlManager.registerBroker`). The broker retries.
    BrokerRegistrationRefused {
        /// The broker.
        broker: BrokerId,
        /// Time since the previous incarnation's last heartbeat (ms).
        silent_ms: Ms,
        /// `broker.session.timeout.ms`.
        timeout_ms: Ms,
    },
    /// The controller unfenced a broker: it may lead and join ISRs again.
    BrokerUnfenced {
        /// The broker.
        broker: BrokerId,
    },
    /// A broker process died without warning (its log stays on disk).
    BrokerCrashed {
        /// The broker.
        broker: BrokerId,
    },
    /// A stopped broker's process was started again (`restart`, `bounce`, a roll): it
    /// registers with the controller and catches up on metadata before it serves anyone
    /// (Kafka's `BrokerServer.startup`, R6.3).
    BrokerStarted {
        /// The broker.
        broker: BrokerId,
    },
    /// A process was paused (`freeze`: a long GC pause, a stopped VM): it sends, reads and
    /// answers nothing, and its timers do not fire, until it thaws.
    ProcessFrozen {
        /// The node.
        node: NodeId,
        /// When given, it thaws by itself after this long (ms).
        thaw_after: Option<Ms>,
    },
    /// A paused process runs again: it reads what waited in its socket, in order, and its
    /// overdue timers fire, finding that time has moved on.
    ProcessThawed {
        /// The node.
        node: NodeId,
        /// How long it was frozen (ms).
        frozen_ms: Ms,
    },
    /// A broker's host lost power (`power-loss`): the process died and the page cache with
    /// it; what was not flushed to disk is gone.
    BrokerPowerLost {
        /// The broker.
        broker: BrokerId,
    },
    /// A broker restarting after a power loss truncated a log to what had reached the disk
    /// (Kafka's log recovery: the tail past the last fsync never made it).
    UnflushedTailLost {
        /// The broker.
        broker: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// Its LEO in the page cache before the power went.
        from: Offset,
        /// Its LEO on disk, where it restarts.
        to: Offset,
    },
    /// The controller fenced a broker that missed heartbeats.
    BrokerFenced {
        /// The broker.
        broker: BrokerId,
        /// Time since its last heartbeat (ms).
        silent_ms: Ms,
        /// `broker.session.timeout.ms`.
        timeout_ms: Ms,
    },
    /// A controller's process was killed (`crash 3000`).
    ControllerCrashed {
        /// The controller.
        controller: i32,
    },
    /// A controller's process started again (`restart 3000`).
    ControllerStarted {
        /// The controller.
        controller: i32,
    },
    /// A voter of the controller quorum won an election and is the active controller
    /// (KRaft leader) in `epoch`, which is the new controller epoch.
    ControllerElected {
        /// The controller's node id.
        controller: i32,
        /// The quorum epoch.
        epoch: Epoch,
        /// The other voters that voted for it.
        voted_for_it: Vec<i32>,
    },
    /// A follower of the quorum stopped hearing from its leader and asks the voters for
    /// pre-votes (KIP-996).
    ControllerLostLeader {
        /// The follower.
        controller: i32,
        /// The leader it lost.
        leader: i32,
        /// The epoch.
        epoch: Epoch,
        /// `controller.quorum.fetch.timeout.ms`.
        timeout_ms: Ms,
    },
    /// A voter stands for election in a new epoch (its pre-vote passed, or it is alone).
    ControllerCandidate {
        /// The candidate.
        controller: i32,
        /// The epoch it asks votes for.
        epoch: Epoch,
    },
    /// The active controller gave up leadership: a majority of voters has not fetched from it
    /// within 1.5 × `controller.quorum.fetch.timeout.ms` (check quorum).
    ControllerResigned {
        /// The controller.
        controller: i32,
        /// Its epoch.
        epoch: Epoch,
        /// The check-quorum limit (ms).
        silent_ms: Ms,
    },
    /// A broker asked for a controlled shutdown; the controller moved its leaderships.
    ControlledShutdownStarted {
        /// The broker.
        broker: BrokerId,
    },
    /// A broker finished a controlled shutdown and stopped.
    BrokerStopped {
        /// The broker.
        broker: BrokerId,
    },
    /// A partition's leader changed (or it went offline: `new_leader` is `None`).
    LeaderChanged {
        /// The partition.
        tp: TopicPartition,
        /// Previous leader.
        old_leader: Option<BrokerId>,
        /// New leader, `None` = offline.
        new_leader: Option<BrokerId>,
        /// New leader epoch.
        leader_epoch: Epoch,
        /// ISR after the change.
        isr: Vec<BrokerId>,
        /// Which rule chose.
        kind: ElectionKind,
    },
    /// The controller changed a partition's eligible leader replicas or LastKnownELR (KIP-966,
    /// R8.3).
    ElrChanged {
        /// The partition.
        tp: TopicPartition,
        /// ELR after the change (before it, for a clearing).
        elr: Vec<BrokerId>,
        /// LastKnownELR after the change (before it, for a clearing).
        last_known_elr: Vec<BrokerId>,
        /// The change is the clearing that follows a `min.insync.replicas` change.
        min_isr_changed: bool,
    },
    /// Replicas left an ISR.
    IsrShrunk {
        /// The partition.
        tp: TopicPartition,
        /// Removed replicas.
        removed: Vec<BrokerId>,
        /// ISR after the change.
        isr: Vec<BrokerId>,
        /// Why.
        cause: ShrinkCause,
    },
    /// A replica joined an ISR.
    IsrExpanded {
        /// The partition.
        tp: TopicPartition,
        /// Added replica.
        added: BrokerId,
        /// ISR after the change.
        isr: Vec<BrokerId>,
    },
    /// A follower truncated its log (R7.1, R7.5, R7.6).
    Truncated {
        /// The truncating broker.
        broker: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// LEO before.
        from: Offset,
        /// LEO after.
        to: Offset,
        /// The epoch of the leader's answer (R7.5); [`TRUNCATED_TO_HW`] or
        /// [`TRUNCATED_TO_LEADER_LEO`] under the rule before KIP-101 (R7.1), which asks no epoch.
        diverging_epoch: Epoch,
        /// Where that epoch ends in the leader's log.
        leader_end_offset: Offset,
    },
    /// The audit ledger found acknowledged records that no longer exist.
    AckedRecordsLost {
        /// The partition.
        tp: TopicPartition,
        /// How many acked records were lost.
        count: u64,
        /// Lowest lost offset.
        first_offset: Offset,
        /// Highest lost offset.
        last_offset: Offset,
        /// The replica whose log now decides (the new leader).
        leader: BrokerId,
        /// How they were acknowledged and how `leader` came to lead without them.
        cause: Box<LossCause>,
    },
    /// The audit ledger found records sent with `acks=0`, which a leader had appended, gone
    /// from the deciding log. They were never acknowledged (the producer counted them done at
    /// the socket), so they are counted apart from [`EventKind::AckedRecordsLost`].
    UnackedRecordsLost {
        /// The partition.
        tp: TopicPartition,
        /// How many such records were lost.
        count: u64,
        /// Lowest lost offset.
        first_offset: Offset,
        /// Highest lost offset.
        last_offset: Offset,
        /// The replica whose log now decides (the new leader).
        leader: BrokerId,
        /// How they were appended and how `leader` came to lead without them.
        cause: Box<LossCause>,
    },
    /// Acknowledged records are in the log twice (a retry without idempotence, R5.9).
    DuplicateAcked {
        /// The partition.
        tp: TopicPartition,
        /// The first duplicated record's payload value.
        value: u64,
        /// Offset of its first copy.
        first_offset: Offset,
        /// Offset of its second copy.
        second_offset: Offset,
        /// How many records of the batch are duplicated.
        count: u64,
    },
    /// Acknowledged records of one producer were written after a record it was handed later
    /// (a retry overtaken by a later batch: more than one request in flight without
    /// idempotence).
    AckedOutOfOrder {
        /// The partition.
        tp: TopicPartition,
        /// The producer's index.
        producer: u32,
        /// How many records of the acknowledged batch are out of order.
        count: u64,
    },
    /// An error run: produce to a partition fails with one error code, `errors` times so far.
    /// The producer emits it again for every further error of the run, and the event log
    /// updates the run's one line in place; another error code starts a new run (and line).
    ProduceFailing {
        /// The producer's index.
        producer: u32,
        /// The partition.
        tp: TopicPartition,
        /// The error and the latest detail.
        failure: ProduceFailure,
        /// Errors of the run so far: failed attempts, and batches expired after
        /// `delivery.timeout.ms` (one each), as the producer's error counters count them.
        errors: u64,
        /// Records given up for good during the run (expired, or out of retries).
        records_failed: u64,
    },
    /// A producer's application restarted without `close()` (`restart-producer P`): a new
    /// `KafkaProducer` with the same config, a new producer id (epoch 0) and sequences from 0;
    /// what the old one held is abandoned, never acknowledged.
    ProducerRestarted {
        /// The producer's index.
        producer: u32,
        /// The producer id it had.
        old_id: i64,
        /// The producer id it has now.
        new_id: i64,
        /// Whether idempotence is in effect (without it, batches carry no producer id).
        idempotent: bool,
        /// Records abandoned before they were sent (in the accumulator).
        unsent: u64,
        /// Records abandoned after they were sent at least once, with no answer yet.
        unanswered: u64,
    },
    /// Produce to a partition succeeds again.
    ProduceRecovered {
        /// The producer's index.
        producer: u32,
        /// The partition.
        tp: TopicPartition,
        /// The errors since the partition last succeeded, per error code (the same units as
        /// the producer's error counters).
        errors: Vec<(ErrorCode, u64)>,
    },
    /// A broker in controlled shutdown left a partition's ISR (or the partition lost its
    /// leader) and stopped fetching it (`ReplicaManager.applyLocalFollowersDelta`).
    FollowerStopped {
        /// The broker.
        broker: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// Its LEO, kept until it restarts.
        leo: Offset,
    },
    /// A replica became a follower of a new leader and starts fetching from it at its own
    /// LEO (Kafka's `Partition.makeFollower` logs "Follower … starts at leader epoch … from
    /// offset …", and `ReplicaFetcherManager.addFetcherForPartitions` adds the fetcher).
    FollowerStarted {
        /// The following broker.
        broker: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// The leader it fetches from.
        leader: BrokerId,
        /// The leader epoch it follows.
        leader_epoch: Epoch,
        /// Its LEO, the first fetch offset.
        offset: Offset,
    },
    /// A leader cached a follower's fetch session (KIP-227): it answered a full fetch with a
    /// new session id, and the follower's next fetches list only what changed
    /// (`FetchSessionCacheShard.maybeCreateSession`).
    FetchSessionCreated {
        /// The leader.
        leader: BrokerId,
        /// The follower.
        follower: BrokerId,
        /// The new session's id.
        session_id: u32,
        /// Partitions it holds.
        partitions: usize,
    },
    /// An incremental fetch added partitions to a follower's session at a leader (a new
    /// partition to follow from it, or one back after an error).
    FetchSessionPartitionsAdded {
        /// The leader.
        leader: BrokerId,
        /// The follower.
        follower: BrokerId,
        /// The session.
        session_id: u32,
        /// The partitions added.
        added: Vec<TopicPartition>,
    },
    /// A leader refused a follower's incremental fetch with a session error
    /// (FETCH_SESSION_ID_NOT_FOUND after the leader restarted or evicted the session,
    /// INVALID_FETCH_SESSION_EPOCH after a lost response); the follower starts over with a
    /// full fetch (`FetchSessionHandler.handleResponse`).
    FetchSessionRefused {
        /// The follower.
        broker: BrokerId,
        /// The leader.
        leader: BrokerId,
        /// The session it named.
        session_id: u32,
        /// The error.
        error: ErrorCode,
    },
    /// A leader answered a follower's fetch of a partition with a topic id error (KIP-516):
    /// UNKNOWN_TOPIC_ID (the leader's metadata has no topic with the id the follower named:
    /// it was deleted, perhaps created again under the same name) or INCONSISTENT_TOPIC_ID
    /// (the leader's log of the partition has another id). Nothing is applied to the
    /// follower's log; it backs off `replica.fetch.backoff.ms` (`AbstractFetcherThread`'s
    /// `partitionsWithError`). Said once per run of such answers.
    FetchTopicIdRefused {
        /// The follower.
        broker: BrokerId,
        /// The leader that answered.
        leader: BrokerId,
        /// The partition, by the name the follower knows.
        tp: TopicPartition,
        /// The topic id the follower named.
        topic_id: TopicId,
        /// UNKNOWN_TOPIC_ID or INCONSISTENT_TOPIC_ID.
        error: ErrorCode,
    },
    /// A follower that started behind the leader's HW reached it: its LEO is at least the HW
    /// the leader last sent (the leader may then add it to the ISR, R4.6).
    FollowerCaughtUp {
        /// The following broker.
        broker: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// The leader.
        leader: BrokerId,
        /// Its LEO after the fetch.
        leo: Offset,
        /// The leader's HW in that fetch response.
        leader_hw: Offset,
    },
    /// A follower's fetchers were paused or resumed by the user.
    FetchPaused {
        /// The broker.
        broker: BrokerId,
        /// `true` = paused, `false` = resumed.
        paused: bool,
    },
    /// isrlab stopped every producer: the logs hold as many records as its memory budget allows
    /// (there is no retention yet, so records are never deleted).
    ProducersStopped {
        /// Bytes the logs' batches and the audit ledger take.
        bytes: u64,
    },
    /// A user changed the network: a link fault (`cut`, `isolate`, `hold`, `delay`, `loss`) or
    /// its end (`heal`, `release`, `heal-all`).
    NetworkChanged {
        /// The command, as typed (`cut 1 controller`).
        change: String,
    },
    /// A configuration changed.
    ConfigChanged {
        /// `broker`, `topic T` or `producer`.
        scope: String,
        /// Property name.
        name: String,
        /// New value.
        value: String,
        /// What the change means now.
        note: String,
    },
    /// A rolling restart (`roll`) moved on.
    Roll(RollStep),
    /// A consumer group, its coordinator or a member did something (rebalances, commits,
    /// coordinator moves).
    Group(super::group::event::GroupEvent),
    /// A consumer reset its position by `auto.offset.reset` (`SubscriptionState.maybeSeekUnvalidated`,
    /// "Resetting offset for partition …").
    ConsumerOffsetReset {
        /// The consumer.
        consumer: u32,
        /// The partition.
        tp: TopicPartition,
        /// `earliest` or `latest`.
        strategy: &'static str,
        /// The new position.
        offset: Offset,
        /// Why: no position yet, OFFSET_OUT_OF_RANGE at `from`, or a truncation the leader
        /// could not place.
        why: String,
    },
    /// KIP-320: a consumer's position was past where the leader's log ends for the epoch of
    /// the last record it consumed: the records it read from there on were erased
    /// (`SubscriptionState.maybeCompleteValidation`, "Truncation detected for partition …").
    ConsumerTruncationDetected {
        /// The consumer.
        consumer: u32,
        /// The partition.
        tp: TopicPartition,
        /// Its position before.
        position: Offset,
        /// The leader's end offset for that epoch (`-1`: the leader knows no such epoch).
        end_offset: Offset,
        /// Where it goes on: the first offset known to diverge; `None` with
        /// `auto.offset.reset=none` (a `LogTruncationException`, the partition stops).
        reset_to: Option<Offset>,
    },
    /// A consumer stopped reading a partition: it has no valid position and
    /// `auto.offset.reset=none` (Kafka throws `NoOffsetForPartitionException`,
    /// `OffsetOutOfRangeException` or `LogTruncationException` from `poll()`).
    ConsumerPartitionStopped {
        /// The consumer.
        consumer: u32,
        /// The partition.
        tp: TopicPartition,
        /// Kafka's exception, in words.
        error: String,
    },
    /// A topic the consumer subscribes to left its metadata (it was deleted): the consumer
    /// stops reading its partitions and drops their positions, and keeps the topic in its
    /// subscription (`ConsumerMetadata`, `SubscriptionState`).
    ConsumerTopicGone {
        /// The consumer.
        consumer: u32,
        /// The topic.
        topic: std::sync::Arc<str>,
        /// The partitions it was reading, which it no longer reads.
        partitions: Vec<u32>,
    },
}
