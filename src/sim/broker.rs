//! One broker process: its replicas, its metadata cache, its follower fetchers (one loop per
//! source broker, R2.5), the fetch purgatory, heartbeats to the controller and the periodic
//! ISR-expiration and HW-checkpoint tasks. Kafka's `KafkaBroker` + `ReplicaManager` +
//! `ReplicaFetcherManager`, as a sans-IO state machine.

use super::events::EventKind;
use super::fetch_session::{FetchSessionCache, FetchSessionHandler};
use super::group::OFFSETS_TOPIC;
use super::log::PartitionLog;
use super::partition::{ChangeStamp, Ctx, Partition};
use super::protocol::{BrokerRegistration, FetchRequest, Message, MetadataDelta, NodeId};
use super::quota::ReplicationQuotas;
use super::{BrokerId, Epoch, Ms, Offset, Outbox, TopicId, TopicIdPartition, TopicPartition};
use crate::config::{BrokerConfig, TopicConfig};
use crate::kafka::errors::ErrorCode;
use crate::kafka::is_internal;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

static NO_OVERRIDES: TopicConfig = TopicConfig::NONE;

/// Delay (ms) from a broker's start to its first log retention run: Kafka's
/// `log.initial.task.delay.ms` default (`LogManager` schedules `kafka-log-retention` after it,
/// then every `log.retention.check.interval.ms`).
pub const LOG_INITIAL_TASK_DELAY_MS: Ms = 30_000;

/// A parked fetch's key: the fetching node (a follower broker or a consumer) and the request's
/// correlation id.
type ParkKey = (NodeId, u64);

/// A follower fetch the leader holds until data arrives or `replica.fetch.wait.max.ms` passes
/// (Kafka's `DelayedFetch`).
#[derive(Clone, Debug)]
struct ParkedFetch {
    request: FetchRequest,
    deadline: Ms,
    /// How it is served (its session, for an incremental fetch).
    context: super::fetch_session::FetchContext,
}

/// The leader's side of follower fetches: its session cache and the fetches it parked,
/// indexed by what can complete them.
#[derive(Clone, Debug, Default)]
struct Purgatory {
    sessions: FetchSessionCache,
    parked: BTreeMap<ParkKey, ParkedFetch>,
    /// Parked fetches by deadline.
    deadlines: BTreeSet<(Ms, ParkKey)>,
    /// Parked full and sessionless fetches by the partitions they list (with the index of
    /// the partition in the request).
    by_partition: BTreeMap<TopicPartition, BTreeSet<(ParkKey, usize)>>,
    /// The parked incremental fetch of each session.
    by_session: BTreeMap<u32, ParkKey>,
    /// Partitions changed on this broker since parked fetches and sessions last looked, with
    /// their topic id (the sessions' key; kept here, as the partition may be deleted by then).
    changed: BTreeMap<TopicPartition, TopicId>,
}

/// A broker process and the state it keeps on disk across crashes (its logs and the HW
/// checkpoint). A clone is a checkpoint: it shares no state with its original (the
/// offsets book, which stands for log bytes the cluster shares, aside).
#[derive(Clone, Debug)]
pub struct Broker {
    id: BrokerId,
    broker_epoch: i64,
    up: bool,
    registered: bool,
    /// Whether this process accepts inbound connections yet (see [`Broker::accepts_connections`]).
    accepting: bool,
    shutting_down: bool,
    config: BrokerConfig,
    topic_configs: BTreeMap<Arc<str>, TopicConfig>,
    /// The topic ids in its metadata and their names (Kafka's `MetadataCache.topicIdsToNames`):
    /// a fetch naming an id not here is answered UNKNOWN_TOPIC_ID.
    topic_names: BTreeMap<TopicId, Arc<str>>,
    brokers: BTreeMap<BrokerId, BrokerRegistration>,
    partitions: BTreeMap<TopicPartition, Partition>,
    /// When each partition's next timer (parked produce, fetch backoff) fires, in time order.
    partition_deadlines: BTreeSet<(Ms, TopicPartition)>,
    /// The same, by partition.
    partition_timers: BTreeMap<TopicPartition, Ms>,
    fetchers: Fetchers,
    purgatory: Purgatory,
    fetch_paused: bool,
    next_heartbeat: Ms,
    next_isr_check: Ms,
    next_checkpoint: Ms,
    /// When the log retention task runs next (ms).
    next_retention_check: Ms,
    /// When the log flusher (`LogManager.flushDirtyLogs`) checks `flush.ms` next (ms).
    next_flush_check: Ms,
    /// Extra time every fsync on this broker takes (`slow-disk`, ms).
    slow_disk_ms: Ms,
    hw_checkpoint: BTreeMap<TopicPartition, Offset>,
    next_correlation: u64,
    down_since: Option<Ms>,
    stopped_cleanly: bool,
    registration: RegistrationRetry,
    /// Its replication throttles' byte-rate sensors (KIP-73, [`throttle`]).
    quotas: ReplicationQuotas,
    /// Its part in consumer groups: FindCoordinator and the group coordinator ([`groups`]).
    groups: groups::GroupHost,
    /// Topics whose automatic creation it forwarded to the controller, with when
    /// (`AutoTopicCreationManager.inflightTopics`, [`auto_topic_creation`]).
    auto_creating: BTreeMap<Arc<str>, Ms>,
    /// The replicas changed since the dashboard's snapshot last looked ([`view_marks`]).
    view_marks: ViewMarks,
    /// The active controller it knows and that controller's epoch: where its requests to the
    /// controller go ([`NodeId::ActiveController`]), learned from the metadata log's leader
    /// changes (Kafka's `RaftManager` leader and `MetadataCache` controller id).
    controller: (i32, Epoch),
    /// Its heartbeat in flight (`BrokerLifecycleManager.communicationInFlight`): when it went
    /// out. One at a time; the next goes `broker.heartbeat.interval.ms` after the answer.
    heartbeat_sent: Option<Ms>,
    /// Heartbeats that timed out in a row (the resend backoff's exponent).
    heartbeat_failures: u32,
    /// A heartbeat is wanted as soon as the one in flight is answered (a controlled shutdown
    /// asked for meanwhile: `nextSchedulingShouldBeImmediate`).
    heartbeat_immediate: bool,
    /// The metadata log offset it has applied (`BrokerLifecycleManager`'s
    /// `highestMetadataOffsetProvider`, sent in its heartbeats).
    metadata_offset: i64,
}

/// The broker's registration retries (Kafka's `BrokerLifecycleManager`): after a refusal it
/// sends `BrokerRegistration` again after an exponential backoff of 100 ms × 2^failures,
/// capped at half of `broker.session.timeout.ms` (so a retry always lands inside the session
/// window, apache/kafka PR #19061). Kafka adds 2 % jitter; the simulation leaves it out to stay
/// deterministic.
#[derive(Clone, Copy, Debug, Default)]
struct RegistrationRetry {
    /// Refusals since the last successful registration.
    failures: u32,
    /// When to send the next attempt (ms), if one is waiting.
    next_attempt: Option<Ms>,
}

/// How long a broker waits for the answer to its registration before it sends it again (ms):
/// the request timeout of the broker's channel to the controller (`request.timeout.ms`, 30 s by
/// default, `NodeToControllerChannelManager`). Kafka's `BrokerLifecycleManager` treats a
/// timed-out registration (`BrokerRegistrationResponseHandler.onTimeout`) as a failed attempt
/// and tries again; without it a registration lost on a cut link would never be repeated.
pub const REGISTRATION_RPC_TIMEOUT_MS: Ms = 30_000;

/// How long a broker waits for the answer to a heartbeat (ms): half of
/// `broker.session.timeout.ms`, the request timeout of the heartbeat channel
/// (`BrokerServer`, KAFKA-14392), so that a lost heartbeat is sent again within the session.
pub fn heartbeat_request_timeout(session_timeout_ms: Ms) -> Ms {
    session_timeout_ms / 2
}

/// First registration retry backoff (ms), Kafka's `BrokerLifecycleManager`.
pub const REGISTRATION_BACKOFF_INITIAL_MS: Ms = 100;

/// The wait (ms) before registration attempt `failures + 1`: 100 ms doubled per earlier
/// refusal, at most half of `broker.session.timeout.ms`.
pub fn registration_backoff(failures: u32, session_timeout_ms: Ms) -> Ms {
    let doubled = REGISTRATION_BACKOFF_INITIAL_MS.saturating_mul(1 << failures.min(32));
    doubled.min(session_timeout_ms / 2)
}

macro_rules! ctx {
    ($self:ident, $now:expr, $tp:expr) => {
        Ctx {
            now: $now,
            me: $self.id,
            broker_epoch: $self.broker_epoch,
            config: &$self.config,
            topic: $self.topic_configs.get(&$tp.topic).unwrap_or(&NO_OVERRIDES),
            brokers: &$self.brokers,
            next_isr_check: $self.next_isr_check,
            session_fetches: $self.purgatory.sessions.fetch_times(),
        }
    };
}

mod auto_topic_creation;
mod fetcher;
mod groups;
mod serve_consumer;
mod serve_fetch;
mod throttle;
mod view_marks;

use fetcher::Fetchers;
pub use view_marks::ViewMarks;

impl Broker {
    /// A broker that has never run.
    pub fn new(id: BrokerId, config: BrokerConfig) -> Self {
        Self {
            id,
            broker_epoch: -1,
            up: false,
            registered: false,
            accepting: false,
            shutting_down: false,
            topic_configs: BTreeMap::new(),
            topic_names: BTreeMap::new(),
            brokers: BTreeMap::new(),
            partitions: BTreeMap::new(),
            partition_deadlines: BTreeSet::new(),
            partition_timers: BTreeMap::new(),
            fetchers: Fetchers::default(),
            purgatory: Purgatory::default(),
            fetch_paused: false,
            next_heartbeat: 0,
            controller: (crate::sim::CONTROLLER_ID, 1),
            heartbeat_sent: None,
            heartbeat_failures: 0,
            heartbeat_immediate: false,
            metadata_offset: 0,
            next_isr_check: 0,
            next_checkpoint: 0,
            next_flush_check: Ms::MAX,
            slow_disk_ms: 0,
            next_retention_check: 0,
            hw_checkpoint: BTreeMap::new(),
            next_correlation: 1,
            down_since: None,
            stopped_cleanly: false,
            registration: RegistrationRetry::default(),
            quotas: ReplicationQuotas::new(&config),
            groups: groups::GroupHost::default(),
            auto_creating: BTreeMap::new(),
            view_marks: ViewMarks::default(),
            config,
        }
    }

    /// Broker id.
    pub fn id(&self) -> BrokerId {
        self.id
    }

    /// Current broker epoch (`-1` before the first registration).
    pub fn broker_epoch(&self) -> i64 {
        self.broker_epoch
    }

    /// Whether the process runs.
    pub fn is_up(&self) -> bool {
        self.up
    }

    /// Whether the process accepts inbound connections (producers, other brokers' fetchers):
    /// from the first heartbeat response that finds it unfenced in this process's life on.
    /// Kafka's `BrokerServer.startup` calls `socketServer.enableRequestProcessing` only after
    /// `lifecycleManager.initialCatchUpFuture` (the controller saw it caught up on metadata),
    /// the first metadata publish and `lifecycleManager.setReadyToUnfence()` (whose future
    /// `BrokerLifecycleManager` completes at the first `BrokerHeartbeatResponse` with
    /// `isFenced=false`, RECOVERY → RUNNING). Until then connections to it are refused as to
    /// a process that is down; its own connections (to the controller, its fetchers to
    /// leaders) work. A broker bootstrapped at t=0 accepts at once; a fence later in its life
    /// does not close the socket server again.
    pub fn accepts_connections(&self) -> bool {
        self.up && self.accepting
    }

    /// The config it runs with: its `server.properties` as of its last start, with the
    /// cluster's dynamic properties applied since.
    pub fn config(&self) -> &BrokerConfig {
        &self.config
    }

    /// Reads `server.properties` again, as a starting process does: call it while the broker
    /// is down, before [`Broker::start`]. Static properties take effect only this way.
    pub fn load_config(&mut self, config: BrokerConfig) {
        if !self.up {
            self.config = config;
            self.view_marks.mark_all();
        }
    }

    /// Its follower fetchers in leader order: the leader, how many partitions it follows from
    /// it, and its fetch session (`FetchSessionHandler`). Empty while the process is down.
    pub fn fetch_sessions(&self) -> impl Iterator<Item = (BrokerId, usize, &FetchSessionHandler)> {
        self.fetchers.iter().map(|(&leader, f)| (leader, f.members.len(), &f.session))
    }

    /// The fetch session `id` as this broker caches it as a leader (`FetchSessionCache`).
    pub fn cached_fetch_session(&self, id: u32) -> Option<&super::fetch_session::FetchSession> {
        self.purgatory.sessions.get(id)
    }

    /// Whether its follower fetchers are paused by the user.
    pub fn fetch_paused(&self) -> bool {
        self.fetch_paused
    }

    /// Its replica of `tp`, if it hosts one (also while down: the log is on disk).
    pub fn partition(&self, tp: &TopicPartition) -> Option<&Partition> {
        self.partitions.get(tp)
    }

    /// Its replicas in (topic, partition) order (also while down: the logs are on disk).
    pub fn partitions(&self) -> impl Iterator<Item = (&TopicPartition, &Partition)> {
        self.partitions.iter()
    }

    /// Bytes its logs' batches take in memory (kept even while it is down: they are its disk).
    pub fn log_memory_bytes(&self) -> u64 {
        self.partitions.values().map(|p| p.log.memory_bytes()).sum()
    }

    /// The context a partition view needs, for dashboards.
    pub fn ctx_for<'a>(&'a self, now: Ms, tp: &TopicPartition) -> Ctx<'a> {
        ctx!(self, now, tp)
    }

    fn timers_from(&mut self, now: Ms) {
        self.next_heartbeat = now;
        self.heartbeat_sent = None;
        self.heartbeat_failures = 0;
        self.heartbeat_immediate = false;
        self.next_isr_check = now + self.config.isr_check_interval_ms();
        self.next_checkpoint = now + self.config.replica_high_watermark_checkpoint_interval_ms;
        self.next_retention_check = now + LOG_INITIAL_TASK_DELAY_MS;
        self.next_flush_check = now.saturating_add(self.config.log_flush_scheduler_interval_ms);
    }

    /// Extra time every fsync takes on this broker (ms; `slow-disk`).
    pub fn slow_disk_ms(&self) -> Ms {
        self.slow_disk_ms
    }

    /// Makes every fsync on this broker take `ms` longer (`slow-disk B MS`; 0 = a healthy
    /// disk). Reads are not slowed: Kafka's fetches of recent data come from the page cache.
    pub fn set_slow_disk(&mut self, ms: Ms) {
        self.slow_disk_ms = ms;
    }

    /// How long the fsyncs counted in `out` hold this broker up before it answers (ms).
    pub fn disk_stall_ms(&self, out: &Outbox) -> Ms {
        Ms::from(out.fsyncs).saturating_mul(self.slow_disk_ms)
    }

    /// The host lost power at `now` (`power-loss`): the process dies as in [`Broker::crash`],
    /// and every log loses what the page cache had not written to disk (each loss an
    /// [`EventKind::UnflushedTailLost`]). The HW checkpoint survives: Kafka writes it with an
    /// fsync (`CheckpointFile.write`), and [`Broker::start`] clamps it to the shorter log as
    /// `UnifiedLog.updateHighWatermark` does.
    pub fn power_loss(&mut self, now: Ms, out: &mut Outbox) {
        out.emit(EventKind::BrokerPowerLost { broker: self.id });
        self.view_marks.mark_all();
        for (tp, p) in &mut self.partitions {
            if let Some((from, to)) = p.log.lose_page_cache(now) {
                out.emit(EventKind::UnflushedTailLost { broker: self.id, tp: tp.clone(), from, to });
                out.touched.push(tp.clone());
            }
        }
        self.crash(now);
    }

    /// Starts at t=0 already registered and unfenced with `image` applied (the cluster was
    /// formed before the run began).
    pub fn start_bootstrapped(
        &mut self,
        now: Ms,
        broker_epoch: i64,
        image: &MetadataDelta,
        out: &mut Outbox,
    ) {
        self.up = true;
        self.registered = true;
        self.accepting = true;
        self.broker_epoch = broker_epoch;
        self.reset_quotas();
        self.timers_from(now);
        self.next_heartbeat = now + self.config.broker_heartbeat_interval_ms;
        self.apply_metadata(now, image, out);
    }

    /// (Re)starts the process from its on-disk state: HWs from the checkpoint (R3.11), no
    /// roles, then registers with the controller (R6.1).
    pub fn start(&mut self, now: Ms, out: &mut Outbox) {
        self.up = true;
        self.view_marks.mark_all();
        self.down_since = None;
        self.registered = false;
        self.accepting = false;
        self.shutting_down = false;
        for (tp, p) in &mut self.partitions {
            p.reset_role();
            p.log.set_hw(self.hw_checkpoint.get(tp).copied().unwrap_or(0));
        }
        self.timers_from(now);
        self.reset_quotas();
        self.registration = RegistrationRetry::default();
        self.send_registration(now, out);
    }

    /// Sends a registration to the controller, and arms its timeout
    /// ([`REGISTRATION_RPC_TIMEOUT_MS`]): unanswered by then, it is sent again.
    fn send_registration(&mut self, now: Ms, out: &mut Outbox) {
        self.registration.next_attempt = Some(now + REGISTRATION_RPC_TIMEOUT_MS);
        // The clean-shutdown file holds the epoch of the incarnation that stopped cleanly; a
        // crash leaves none (`LogManager.readBrokerEpochFromCleanShutdownFiles`).
        let previous_broker_epoch = if self.stopped_cleanly { self.broker_epoch } else { -1 };
        out.send(
            NodeId::ActiveController,
            Message::RegisterBroker { broker: self.id, previous_broker_epoch },
        );
    }

    /// The active controller this broker knows (node id) and its epoch.
    pub fn known_controller(&self) -> (i32, Epoch) {
        self.controller
    }

    /// Books an answered heartbeat (`BrokerHeartbeatResponseEvent`): the next goes
    /// `broker.heartbeat.interval.ms` later, or at once when one was asked for meanwhile.
    /// Returns `false`, so the answer is then read for what it says.
    fn after_heartbeat_answer(&mut self, now: Ms) -> bool {
        self.heartbeat_failures = 0;
        let wait = if self.heartbeat_immediate { 0 } else { self.config.broker_heartbeat_interval_ms };
        self.heartbeat_immediate = false;
        self.next_heartbeat = now + wait;
        false
    }

    /// Sets the active controller a starting broker finds through
    /// `controller.quorum.bootstrap.servers` (the quorum's current leader and epoch).
    pub fn set_known_controller(&mut self, controller: i32, epoch: Epoch) {
        self.controller = (controller, epoch);
    }

    /// The metadata log offset this broker has applied.
    pub fn metadata_offset(&self) -> i64 {
        self.metadata_offset
    }

    /// When the process went down (ms) and whether it stopped cleanly; `None` while it runs.
    pub fn down_since(&self) -> Option<(Ms, bool)> {
        self.down_since.map(|t| (t, self.stopped_cleanly))
    }

    /// Kills the process at `now`: everything but the logs and the HW checkpoint is gone.
    pub fn crash(&mut self, now: Ms) {
        self.down_since = Some(now);
        self.view_marks.mark_all();
        self.stopped_cleanly = false;
        self.up = false;
        self.registered = false;
        self.accepting = false;
        self.shutting_down = false;
        self.fetch_paused = false;
        self.fetchers.clear();
        // The session cache lives in memory only: a restarted leader answers the followers'
        // incremental fetches with FETCH_SESSION_ID_NOT_FOUND.
        self.purgatory.sessions.clear();
        self.purgatory.parked.clear();
        self.purgatory.deadlines.clear();
        self.purgatory.by_partition.clear();
        self.purgatory.by_session.clear();
        self.purgatory.changed.clear();
        self.partition_deadlines.clear();
        self.partition_timers.clear();
        for p in self.partitions.values_mut() {
            p.reset_role();
        }
        self.groups.crash();
        self.auto_creating.clear();
    }

    /// Asks the controller for a controlled shutdown (R6.6) with an immediate heartbeat.
    /// Errors: the broker is not running or already shutting down.
    pub fn begin_controlled_shutdown(&mut self, now: Ms, out: &mut Outbox) -> Result<(), String> {
        if !self.up || !self.registered {
            return Err(format!("broker {} is not running", self.id));
        }
        if self.shutting_down {
            return Err(format!("broker {} is already shutting down", self.id));
        }
        self.shutting_down = true;
        self.next_heartbeat = now;
        self.heartbeat_immediate = self.heartbeat_sent.is_some();
        self.on_tick(now, out);
        Ok(())
    }

    /// Pauses or resumes its follower fetchers; it keeps heartbeating (a stalled fetcher, a
    /// GC pause, a one-way network problem).
    pub fn set_fetch_paused(&mut self, paused: bool, now: Ms, out: &mut Outbox) {
        self.fetch_paused = paused;
        // A stalled fetcher does not process the answer to a request it already sent; its
        // session starts over as after a lost request.
        self.fetchers.update_all(|f| {
            if f.in_flight.take().is_some() {
                f.session.handle_error(now);
            }
            f.backoff_until = 0;
        });
        out.emit(EventKind::FetchPaused { broker: self.id, paused });
        self.process_changes(now, out);
        self.maybe_send_fetches(now, out);
    }

    /// Handles one message from the network.
    pub fn handle(&mut self, now: Ms, from: NodeId, msg: Message, out: &mut Outbox) {
        if !self.up {
            return;
        }
        match msg {
            Message::RegisterBrokerResponse { broker_epoch, image } => {
                self.broker_epoch = broker_epoch;
                self.registered = true;
                self.registration = RegistrationRetry::default();
                self.next_heartbeat = now;
                self.metadata_offset = self.metadata_offset.max(image.offset);
                self.delete_strays(now, &image, out);
                self.apply_metadata(now, &image, out);
            }
            Message::RegisterBrokerRefused { .. } if !self.registered => {
                let r = &mut self.registration;
                r.next_attempt =
                    Some(now + registration_backoff(r.failures, self.config.broker_session_timeout_ms));
                r.failures = r.failures.saturating_add(1);
            }
            Message::HeartbeatResponse { .. } if self.heartbeat_sent.take().is_none() => {}
            Message::HeartbeatResponse { .. } if self.after_heartbeat_answer(now) => {}
            Message::HeartbeatResponse { should_shutdown: true, .. } if self.shutting_down => {
                self.stop(now, out);
                return;
            }
            Message::HeartbeatResponse { fenced: false, .. } if self.registered => self.accepting = true,
            Message::Metadata(delta) => {
                self.metadata_offset = self.metadata_offset.max(delta.offset);
                self.apply_metadata(now, &delta, out)
            }
            Message::LeaderChange { epoch } => {
                if let NodeId::Controller(c) = from
                    && epoch >= self.controller.1
                {
                    self.controller = (c, epoch);
                    // Its heartbeat to the old controller will not be answered: heartbeat the
                    // new one now (the channel manager sends to the new active controller).
                    self.heartbeat_sent = None;
                    self.next_heartbeat = now;
                }
            }
            Message::AlterPartitionResponse { tp, result } => {
                self.touch(now, &tp, |p, ctx| p.on_alter_partition_response(ctx, &result, out));
            }
            Message::Fetch(req) => self.on_fetch(now, from, req, out),
            Message::ListOffsets(req) => self.on_list_offsets(now, from, req, out),
            Message::OffsetsForLeaderEpoch(req) => self.on_offsets_for_leader_epoch(from, req, out),
            Message::FetchResponse(resp) => self.on_fetch_response(now, resp, out),
            Message::Produce(req) => {
                let _span = tracing::debug_span!("partition", tp = %req.tp).entered();
                let known = self.topic_configs.contains_key(&req.tp.topic);
                if known && is_internal(&req.tp.topic) {
                    // `ReplicaManager.appendToLocalLog` refuses a client's append to an internal
                    // topic before it looks for the partition, leader or not (the coordinators'
                    // own appends do not come this way). Its "Cannot append to internal topic"
                    // goes to the broker's log only (`hasCustomErrorMessage = false`): the
                    // response carries the bare error code.
                    reject_produce(&req, ErrorCode::InvalidTopicException, String::new(), from, out);
                } else if self.touch(now, &req.tp, |p, ctx| p.on_produce(ctx, &req, out)).is_none() {
                    // `ReplicaManager.getPartitionOrError`: a partition this broker does not host
                    // is NOT_LEADER_OR_FOLLOWER while its metadata knows the topic, else
                    // UNKNOWN_TOPIC_OR_PARTITION (a deleted topic).
                    let (error, message) = if known {
                        (ErrorCode::NotLeaderOrFollower, "this broker hosts no replica of the partition")
                    } else {
                        (ErrorCode::UnknownTopicOrPartition, "this broker's metadata has no such topic")
                    };
                    reject_produce(&req, error, message.into(), from, out);
                }
            }
            Message::Disconnected { peer: NodeId::Broker(leader), correlation_id } => {
                self.on_fetch_lost(now, leader, correlation_id);
            }
            Message::Group { correlation_id, request } => {
                self.on_group_request(now, from, correlation_id, *request, out);
            }
            Message::TopicMetadata { correlation_id, topics, allow_auto_topic_creation } => {
                let errors = self.topic_metadata_errors(now, &topics, allow_auto_topic_creation, out);
                out.send(from, Message::TopicMetadataResponse { correlation_id, errors });
            }
            _ => {}
        }
        self.after_changes(now, out);
    }

    /// Follows up on the changes of a handled input: parked fetches, the group coordinator
    /// (which may append and so change its partitions again), follower fetches.
    fn after_changes(&mut self, now: Ms, out: &mut Outbox) {
        self.process_changes(now, out);
        for _ in 0..4 {
            self.sync_groups(now, out);
            self.process_changes(now, out);
        }
        self.maybe_send_fetches(now, out);
    }

    /// Runs `f` on this broker's replica of `tp` (`None` if it hosts none) and follows up on
    /// what changed: its next timer, its follower fetcher's session, and on the leader side
    /// the sessions and parked fetches that include it. Every change to a replica goes
    /// through here, so no handler needs to walk every partition.
    fn touch<R>(
        &mut self,
        now: Ms,
        tp: &TopicPartition,
        f: impl FnOnce(&mut Partition, &Ctx) -> R,
    ) -> Option<R> {
        let ctx = ctx!(self, now, tp);
        let p = self.partitions.get_mut(tp)?;
        self.view_marks.mark(tp);
        let before = p.change_stamp();
        let result = f(p, &ctx);
        let after = p.change_stamp();
        let next = p.next_deadline();
        let topic_id = p.topic_id;
        if self.partition_timers.get(tp).copied() != next {
            self.set_partition_timer(tp, next);
        }
        if before != after {
            self.changed(tp, topic_id, before, after);
        }
        Some(result)
    }

    /// Moves `tp`'s entry in the timer set to `next`.
    fn set_partition_timer(&mut self, tp: &TopicPartition, next: Option<Ms>) {
        if let Some(old) = self.partition_timers.remove(tp) {
            self.partition_deadlines.remove(&(old, tp.clone()));
        }
        if let Some(d) = next {
            self.partition_deadlines.insert((d, tp.clone()));
            self.partition_timers.insert(tp.clone(), d);
        }
    }

    /// `tp` changed: the leader side looks at it again, and the fetchers it left or joined
    /// take note.
    fn changed(&mut self, tp: &TopicPartition, topic_id: TopicId, before: ChangeStamp, after: ChangeStamp) {
        self.groups.note_changed(tp);
        if !self.purgatory.changed.contains_key(tp) {
            self.purgatory.changed.insert(tp.clone(), topic_id);
        }
        if before.fetching_from != after.fetching_from
            && let Some(old) = before.fetching_from
        {
            self.fetchers.update(old, |f| {
                f.members.remove(tp);
                f.session.mark(tp);
            });
        }
        if let Some(leader) = after.fetching_from {
            self.fetchers.update_or_insert(leader, |f| {
                if !f.members.contains(tp) {
                    f.members.insert(tp.clone());
                }
                f.session.mark(tp);
            });
        }
    }

    fn stop(&mut self, now: Ms, out: &mut Outbox) {
        // A clean shutdown flushes every log (`LogManager.shutdown`).
        for p in self.partitions.values_mut() {
            p.log.flush(now);
        }
        self.checkpoint_hws();
        self.crash(now);
        self.stopped_cleanly = true;
        out.emit(EventKind::BrokerStopped { broker: self.id });
    }

    /// Whether a controlled shutdown has completed and the process has exited.
    pub fn has_stopped(&self) -> bool {
        !self.up
    }

    fn checkpoint_hws(&mut self) {
        self.hw_checkpoint = self.partitions.iter().map(|(tp, p)| (tp.clone(), p.log.hw())).collect();
    }

    fn apply_metadata(&mut self, now: Ms, delta: &MetadataDelta, out: &mut Outbox) {
        let (me, shutting_down) = (self.id, self.shutting_down);
        // The brokers' registrations and the configs feed every partition's context.
        if !delta.brokers.is_empty() || delta.broker_config.is_some() || !delta.topic_configs.is_empty() {
            self.view_marks.mark_all();
        }
        for b in &delta.brokers {
            self.brokers.insert(b.id, *b);
        }
        // Only dynamic properties change while the process runs; static ones stay as it
        // started with them (`DynamicBrokerConfig.updateCurrentConfig`). Its own per-broker
        // values win over the cluster-wide ones.
        if let Some(c) = &delta.broker_config {
            self.config = self.config.with_dynamic_from(&c.for_broker(self.id));
        }
        for (topic, c) in &delta.topic_configs {
            self.topic_configs.insert(topic.clone(), c.clone());
        }
        for name in &delta.deleted_topics {
            let range = TopicPartition::new(name.clone(), 0)..=TopicPartition::new(name.clone(), u32::MAX);
            let gone: Vec<TopicPartition> = self.partitions.range(range).map(|(tp, _)| tp.clone()).collect();
            gone.iter().for_each(|tp| self.delete_replica(now, tp, out));
            self.topic_configs.remove(name);
            self.topic_names.retain(|_, n| n != name);
            if &**name == OFFSETS_TOPIC {
                self.offsets_topic_deleted(now, out);
            } else {
                self.groups_topic_deleted(now, name, out);
            }
        }
        for ps in &delta.partitions {
            self.groups.note_partition(ps);
            // A created topic is no longer in flight (`AutoTopicCreationManager` clears it
            // when the CreateTopics answer comes).
            self.auto_creating.remove(&ps.tp.topic);
            if !self.topic_names.contains_key(&ps.topic_id) {
                // One id per name, as the metadata cache holds them: a new id replaces the
                // old one of the same name.
                self.topic_names.retain(|_, name| *name != ps.tp.topic);
                self.topic_names.insert(ps.topic_id, ps.tp.topic.clone());
            }
            // A log of the same name under another topic id is not this partition's: its
            // topic was deleted and created again while this broker missed the deletion.
            // Kafka's `Partition.checkOrSetTopicId` refuses to reuse it; the log is stray.
            if let Some(p) = self.partitions.get(&ps.tp)
                && p.topic_id != ps.topic_id
            {
                let stray = p.topic_id;
                self.delete_stray(now, &ps.tp, stray, out);
            }
            if !ps.replicas.contains(&self.id) {
                if self.partitions.contains_key(&ps.tp) {
                    self.delete_replica(now, &ps.tp, out);
                }
                continue;
            }
            if !self.partitions.contains_key(&ps.tp) {
                let mut p = Partition::new(ps.tp.clone(), PartitionLog::new());
                p.topic_id = ps.topic_id;
                let topic = self.topic_configs.get(&ps.tp.topic).unwrap_or(&NO_OVERRIDES);
                p.log.configure(topic.log_config(&self.config));
                self.partitions.insert(ps.tp.clone(), p);
            }
            self.touch(now, &ps.tp, |p, ctx| {
                p.apply_state(ctx, ps, out);
                if shutting_down && p.stop_fetching_in_controlled_shutdown(me) {
                    out.emit(EventKind::FollowerStopped { broker: me, tp: ps.tp.clone(), leo: p.log.leo() });
                }
            });
        }
        if delta.broker_config.is_some() {
            let topics: BTreeSet<Arc<str>> = self.partitions.keys().map(|tp| tp.topic.clone()).collect();
            topics.iter().for_each(|t| self.configure_logs(t));
        } else {
            delta.topic_configs.iter().for_each(|(t, _)| self.configure_logs(t));
        }
    }

    /// Deletes the logs whose topic id and partition the full `image` does not have (their
    /// topic was deleted while this broker was down, perhaps created again under the same
    /// name with a new id), or whose id was never written: Kafka's stray replica detection
    /// at startup (`BrokerMetadataPublisher` → `LogManager.isStrayKraftReplica`, by topic id
    /// since KIP-516). A log whose partition no longer lists this broker goes when the image's
    /// partition records are applied, as for a running broker.
    fn delete_strays(&mut self, now: Ms, image: &MetadataDelta, out: &mut Outbox) {
        let known: BTreeSet<TopicIdPartition> = image
            .partitions
            .iter()
            .map(|ps| TopicIdPartition { topic_id: ps.topic_id, partition: ps.tp.partition })
            .collect();
        let strays: Vec<(TopicPartition, TopicId)> = self
            .partitions
            .iter()
            .filter(|(tp, p)| {
                p.topic_id == TopicId::ZERO
                    || !known.contains(&TopicIdPartition { topic_id: p.topic_id, partition: tp.partition })
            })
            .map(|(tp, p)| (tp.clone(), p.topic_id))
            .collect();
        strays.iter().for_each(|(tp, id)| self.delete_stray(now, tp, *id, out));
    }

    /// Deletes the stray log of `tp`, whose topic id `stray` the metadata does not have.
    fn delete_stray(&mut self, now: Ms, tp: &TopicPartition, stray: TopicId, out: &mut Outbox) {
        self.remove_replica(now, tp, out);
        out.emit(EventKind::ReplicaDeleted { broker: self.id, tp: tp.clone(), stray: Some(stray) });
    }

    /// Stops this broker's replica of `tp` and deletes it with its log: the replica left the
    /// partition's replica list (a reassignment), or its topic was deleted
    /// (`ReplicaManager.applyDelta` → `stopPartitions` with `deletePartition`). Emits
    /// `ReplicaDeleted`.
    fn delete_replica(&mut self, now: Ms, tp: &TopicPartition, out: &mut Outbox) {
        self.remove_replica(now, tp, out);
        out.emit(EventKind::ReplicaDeleted { broker: self.id, tp: tp.clone(), stray: None });
    }

    /// Stops this broker's replica of `tp` and removes it with its log and HW checkpoint.
    fn remove_replica(&mut self, now: Ms, tp: &TopicPartition, out: &mut Outbox) {
        self.touch(now, tp, |p, _| p.stop_replica(out));
        self.set_partition_timer(tp, None);
        self.partitions.remove(tp);
        self.hw_checkpoint.remove(tp);
    }

    /// Gives the logs of `topic` its effective retention and segment settings.
    fn configure_logs(&mut self, topic: &Arc<str>) {
        let config = self.topic_configs.get(topic).unwrap_or(&NO_OVERRIDES).log_config(&self.config);
        let range = TopicPartition::new(topic.clone(), 0)..=TopicPartition::new(topic.clone(), u32::MAX);
        for p in self.partitions.range_mut(range).map(|(_, p)| p) {
            p.log.configure(config);
        }
    }

    /// Fires every timer due at `now`: registration retry, heartbeat, ISR expiration (every
    /// `replica.lag.time.max.ms / 2`, R4.2), log retention and flush, HW checkpoint, the
    /// partitions' own timers (parked produces, fetch backoffs), fetcher timeouts and
    /// backoffs, and parked fetches whose wait ran out.
    pub fn on_tick(&mut self, now: Ms, out: &mut Outbox) {
        if !self.up {
            return;
        }
        if !self.registered && self.registration.next_attempt.is_some_and(|t| now >= t) {
            self.send_registration(now, out);
        }
        if self.registered
            && let Some(sent) = self.heartbeat_sent
            && now >= sent + heartbeat_request_timeout(self.config.broker_session_timeout_ms)
        {
            // Timed out (KAFKA-14392): tried again after the resend backoff.
            self.heartbeat_sent = None;
            self.next_heartbeat =
                now + registration_backoff(self.heartbeat_failures, self.config.broker_session_timeout_ms);
            self.heartbeat_failures = self.heartbeat_failures.saturating_add(1);
        }
        if self.registered && self.heartbeat_sent.is_none() && now >= self.next_heartbeat {
            self.heartbeat_sent = Some(now);
            out.send(
                NodeId::ActiveController,
                Message::Heartbeat {
                    broker: self.id,
                    broker_epoch: self.broker_epoch,
                    want_shutdown: self.shutting_down,
                },
            );
        }
        self.run_periodic_tasks(now, out);
        self.fire_partition_timers(now, out);
        self.expire_fetchers(now);
        self.expire_parked(now, out);
        self.tick_groups(now, out);
        self.after_changes(now, out);
    }

    /// Kafka's scheduled tasks, each over every partition at its own interval: ISR expiration,
    /// log retention, the log flusher and the HW checkpoint.
    fn run_periodic_tasks(&mut self, now: Ms, out: &mut Outbox) {
        if now >= self.next_isr_check {
            for (tp, p) in &mut self.partitions {
                let sent = out.sends.len();
                p.maybe_shrink_isr(&ctx!(self, now, tp), out);
                if out.sends.len() != sent {
                    self.view_marks.mark(tp);
                }
            }
            self.next_isr_check = now + self.config.isr_check_interval_ms().max(1);
        }
        if now >= self.next_retention_check {
            let tps: Vec<TopicPartition> = self.partitions.keys().cloned().collect();
            for tp in &tps {
                self.touch(now, tp, |p, _| p.log.delete_old_segments(now));
            }
            self.next_retention_check = now + self.config.log_retention_check_interval_ms.max(1);
        }
        if now >= self.next_flush_check {
            for (tp, p) in &mut self.partitions {
                if p.log.maybe_flush_by_time(now) {
                    out.fsyncs += 1;
                    self.view_marks.mark(tp);
                }
            }
            self.next_flush_check = now.saturating_add(self.config.log_flush_scheduler_interval_ms.max(1));
        }
        if now >= self.next_checkpoint {
            self.checkpoint_hws();
            self.next_checkpoint = now + self.config.replica_high_watermark_checkpoint_interval_ms;
        }
    }

    /// Times out the parked produces and ends the fetch backoffs due by `now`, visiting only
    /// the partitions whose timer is due.
    fn fire_partition_timers(&mut self, now: Ms, out: &mut Outbox) {
        while let Some((due, tp)) = self.partition_deadlines.first().cloned()
            && due <= now
        {
            self.set_partition_timer(&tp, None);
            self.touch(now, &tp, |p, _| {
                p.expire_delayed(now, out);
                p.end_backoff(now);
            });
        }
    }

    /// The next time (ms) `on_tick` has work, if the process runs.
    pub fn next_deadline(&self) -> Option<Ms> {
        if !self.up {
            return None;
        }
        let mut next = self
            .next_isr_check
            .min(self.next_checkpoint)
            .min(self.next_retention_check)
            .min(self.next_flush_check);
        if self.registered {
            next = next.min(match self.heartbeat_sent {
                Some(sent) => sent + heartbeat_request_timeout(self.config.broker_session_timeout_ms),
                None => self.next_heartbeat,
            });
        }
        if let Some(t) = self.registration.next_attempt {
            next = next.min(t);
        }
        if let Some(t) = self.groups.next_deadline() {
            next = next.min(t);
        }
        let parked = self.purgatory.deadlines.first().map(|(t, _)| *t);
        let partitions = self.partition_deadlines.first().map(|(t, _)| *t);
        let fetchers = self.fetchers.next_timer();
        Some(parked.into_iter().chain(partitions).chain(fetchers).fold(next, Ms::min))
    }
}

/// Answers a produce the broker refuses with `error` and its `message` (no answer for acks=0,
/// R5.2).
fn reject_produce(
    req: &super::protocol::ProduceRequest,
    error: ErrorCode,
    message: String,
    from: NodeId,
    out: &mut Outbox,
) {
    if req.acks == super::Acks::Zero {
        return;
    }
    out.send(
        from,
        Message::ProduceResponse(super::protocol::ProduceResponse {
            correlation_id: req.correlation_id,
            tp: req.tp.clone(),
            result: Err(error),
            error_message: message,
        }),
    );
}

#[cfg(test)]
mod tests;
