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
use super::{BrokerId, Ms, Offset, Outbox, TopicId, TopicIdPartition, TopicPartition};
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
    /// The replicas changed since the dashboard's snapshot last looked ([`view_marks`]).
    view_marks: ViewMarks,
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
        self.next_isr_check = now + self.config.replica_lag_time_max_ms / 2;
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
        out.send(NodeId::Controller, Message::RegisterBroker { broker: self.id });
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
                self.delete_strays(now, &image, out);
                self.apply_metadata(now, &image, out);
            }
            Message::RegisterBrokerRefused { .. } if !self.registered => {
                let r = &mut self.registration;
                r.next_attempt =
                    Some(now + registration_backoff(r.failures, self.config.broker_session_timeout_ms));
                r.failures = r.failures.saturating_add(1);
            }
            Message::HeartbeatResponse { should_shutdown: true, .. } if self.shutting_down => {
                self.stop(now, out);
                return;
            }
            Message::HeartbeatResponse { fenced: false, .. } if self.registered => self.accepting = true,
            Message::Metadata(delta) => self.apply_metadata(now, &delta, out),
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
            }
        }
        for ps in &delta.partitions {
            self.groups.note_partition(ps);
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
        if self.registered && now >= self.next_heartbeat {
            out.send(
                NodeId::Controller,
                Message::Heartbeat {
                    broker: self.id,
                    broker_epoch: self.broker_epoch,
                    want_shutdown: self.shutting_down,
                },
            );
            self.next_heartbeat = now + self.config.broker_heartbeat_interval_ms;
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
            self.next_isr_check = now + (self.config.replica_lag_time_max_ms / 2).max(1);
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
            next = next.min(self.next_heartbeat);
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
mod tests {
    use super::*;
    use crate::sim::fetch_session::FetchMetadata;
    use crate::sim::protocol::{FetchPartition, PartitionState};

    fn registrations(out: &Outbox) -> usize {
        out.sends.iter().filter(|(_, m)| matches!(m, Message::RegisterBroker { .. })).count()
    }

    fn state(
        partition: u32,
        isr: &[BrokerId],
        leader: Option<BrokerId>,
        epochs: (i32, i32),
    ) -> PartitionState {
        PartitionState {
            topic_id: crate::sim::TopicId::from_bits(7),
            tp: TopicPartition::new("foo", partition),
            replicas: vec![0, 1],
            isr: isr.to_vec(),
            leader,
            leader_epoch: epochs.0,
            partition_epoch: epochs.1,
            leader_recovery: crate::sim::protocol::LeaderRecoveryState::Recovered,
            adding: Vec::new(),
            removing: Vec::new(),
        }
    }

    /// Kafka's `ReplicaManagerTest.testReplicasAreStoppedWhileInControlledShutdownWithKRaft`,
    /// in our words: broker 0 follows foo-0 (in the ISR), leads foo-1 alone and follows foo-2
    /// (outside the ISR). It begins a controlled shutdown; the controller takes it out of
    /// foo-0's ISR and leaves foo-1 without a leader, and does not touch foo-2. The fetchers of
    /// foo-0 and foo-1 stop; foo-2, whose state did not change, keeps fetching.
    #[test]
    fn controlled_shutdown_stops_the_fetchers_of_partitions_it_left() {
        let mut b = Broker::new(0, BrokerConfig::default());
        let image = MetadataDelta {
            brokers: vec![reg(0), reg(1)],
            partitions: vec![
                state(0, &[0, 1], Some(1), (0, 0)),
                state(1, &[0], Some(0), (0, 0)),
                state(2, &[1], Some(1), (0, 0)),
            ],
            ..Default::default()
        };
        b.start_bootstrapped(0, 1, &image, &mut Outbox::default());
        let foo = |p| TopicPartition::new("foo", p);
        b.begin_controlled_shutdown(100, &mut Outbox::default()).unwrap();
        let delta = MetadataDelta {
            partitions: vec![state(0, &[1], Some(1), (0, 1)), state(1, &[0], None, (1, 1))],
            ..Default::default()
        };
        let mut out = Outbox::default();
        b.handle(200, NodeId::Controller, Message::Metadata(delta), &mut out);
        let stopped: Vec<u32> = out
            .events
            .iter()
            .filter_map(|e| match e {
                EventKind::FollowerStopped { broker: 0, tp, .. } => Some(tp.partition),
                _ => None,
            })
            .collect();
        assert_eq!(stopped, vec![0, 1]);
        for (p, fetching) in [(0, false), (1, false), (2, true)] {
            let part = b.partition(&foo(p)).unwrap();
            assert_eq!(part.fetch_request(300).is_some(), fetching, "foo-{p}");
            assert_eq!(part.fetch_stopped(), !fetching, "foo-{p}");
        }
        // A restart starts every fetcher again.
        b.crash(400);
        b.start(500, &mut Outbox::default());
        assert!(!b.partition(&foo(0)).unwrap().fetch_stopped());
    }

    fn reg(id: BrokerId) -> BrokerRegistration {
        BrokerRegistration { id, broker_epoch: 1, fenced: false, in_controlled_shutdown: false }
    }

    /// Leader 0 and follower 1 of foo-0 and foo-1, both in the ISR.
    fn leader_and_follower() -> (Broker, Broker, MetadataDelta) {
        let image = MetadataDelta {
            brokers: vec![reg(0), reg(1)],
            partitions: vec![state(0, &[0, 1], Some(0), (0, 0)), state(1, &[0, 1], Some(0), (0, 0))],
            ..Default::default()
        };
        let mut leader = Broker::new(0, BrokerConfig::default());
        leader.start_bootstrapped(0, 1, &image, &mut Outbox::default());
        let mut follower = Broker::new(1, BrokerConfig::default());
        follower.start_bootstrapped(0, 1, &image, &mut Outbox::default());
        (leader, follower, image)
    }

    /// The messages of `out` as their receiver gets them.
    fn deliver(now: Ms, from: BrokerId, out: Outbox, to: &mut Broker) -> Outbox {
        let mut next = Outbox::default();
        for (_, msg) in out.sends {
            to.handle(now, NodeId::Broker(from), msg, &mut next);
        }
        next
    }

    fn the_fetch(out: &Outbox) -> &FetchRequest {
        out.sends.iter().find_map(|(_, m)| if let Message::Fetch(f) = m { Some(f) } else { None }).unwrap()
    }

    fn the_response(out: &Outbox) -> &crate::sim::protocol::FetchResponse {
        out.sends
            .iter()
            .find_map(|(_, m)| if let Message::FetchResponse(r) = m { Some(r) } else { None })
            .unwrap()
    }

    fn partitions_of(f: &FetchRequest) -> Vec<u32> {
        f.partitions.iter().map(|p| p.tp.partition).collect()
    }

    /// Opens follower 1's session at leader 0: the full fetch, parked (no data), answered
    /// after `replica.fetch.wait.max.ms` with a session id. Returns the follower's next fetch.
    fn open_session(leader: &mut Broker, follower: &mut Broker) -> Outbox {
        let mut out = Outbox::default();
        follower.on_tick(0, &mut out);
        let full = the_fetch(&out);
        assert_eq!((full.session, partitions_of(full)), (FetchMetadata::INITIAL, vec![0, 1]));
        assert!(deliver(1, 1, out, leader).sends.is_empty(), "parked");
        let mut answer = Outbox::default();
        leader.on_tick(501, &mut answer);
        assert!(
            answer.events.iter().any(|e| matches!(e, EventKind::FetchSessionCreated { session_id: 1, .. }))
        );
        assert_eq!(the_response(&answer).partitions.len(), 2, "a full response carries every partition");
        deliver(502, 0, answer, follower)
    }

    fn produce(tp: TopicPartition) -> Message {
        Message::Produce(crate::sim::protocol::ProduceRequest {
            correlation_id: 1,
            producer: 0,
            tp,
            acks: crate::sim::Acks::One,
            timeout_ms: 30_000,
            batch: crate::sim::protocol::Batch {
                producer_id: -1,
                base_sequence: -1,
                values: crate::sim::protocol::Values::range(0, 1),
                record_size: 10,
                max_timestamp: 0,
            },
        })
    }

    /// KIP-516 on a running broker that missed a topic's deletion: a partition record of the
    /// same name under a new topic id makes its log stray (`Partition.checkOrSetTopicId`
    /// refuses to reuse it); the replica starts empty under the new id, and a fetch that still
    /// names the old id is UNKNOWN_TOPIC_ID, one with the new id is served.
    #[test]
    fn a_partition_record_under_a_new_topic_id_replaces_the_stray_log() {
        let (old, new) = (crate::sim::TopicId::from_bits(7), crate::sim::TopicId::from_bits(8));
        let mut b = Broker::new(0, BrokerConfig::default());
        let image = MetadataDelta {
            brokers: vec![reg(0), reg(1)],
            partitions: vec![state(0, &[0, 1], Some(0), (0, 0))],
            ..Default::default()
        };
        b.start_bootstrapped(0, 1, &image, &mut Outbox::default());
        let foo0 = TopicPartition::new("foo", 0);
        b.handle(10, NodeId::Producer(0), produce(foo0.clone()), &mut Outbox::default());
        assert_eq!(b.partition(&foo0).map(|p| (p.topic_id, p.log.leo())), Some((old, 1)));
        let recreated = PartitionState { topic_id: new, ..state(0, &[0, 1], Some(0), (0, 0)) };
        let mut out = Outbox::default();
        b.handle(
            20,
            NodeId::Controller,
            Message::Metadata(MetadataDelta { partitions: vec![recreated], ..Default::default() }),
            &mut out,
        );
        assert!(
            out.events.iter().any(
                |e| matches!(e, EventKind::ReplicaDeleted { broker: 0, stray: Some(id), .. } if *id == old)
            ),
            "{:?}",
            out.events
        );
        assert_eq!(b.partition(&foo0).map(|p| (p.topic_id, p.log.leo())), Some((new, 0)));
        let fetch = |topic_id| {
            let fp = FetchPartition {
                tp: foo0.clone(),
                topic_id,
                current_leader_epoch: 0,
                fetch_offset: 0,
                last_fetched_epoch: None,
                log_start_offset: 0,
            };
            Message::Fetch(FetchRequest {
                correlation_id: 1,
                replica: 1,
                broker_epoch: 1,
                max_wait_ms: 0,
                min_bytes: 1,
                partition_max_bytes: 1 << 20,
                max_bytes: 1 << 20,
                session: FetchMetadata { session_id: 0, epoch: crate::sim::fetch_session::FINAL_EPOCH },
                partitions: vec![fp],
                forgotten: Vec::new(),
            })
        };
        let answer = |b: &mut Broker, topic_id| {
            let mut out = Outbox::default();
            b.handle(30, NodeId::Broker(1), fetch(topic_id), &mut out);
            out.sends.into_iter().find_map(|(_, m)| match m {
                Message::FetchResponse(r) => Some(r.partitions[0].result.clone().err()),
                _ => None,
            })
        };
        assert_eq!(answer(&mut b, old), Some(Some(ErrorCode::UnknownTopicId)));
        assert_eq!(answer(&mut b, new), Some(None));
    }

    /// `ReplicaManager.applyDelta` and `getPartitionOrError`: a replica the metadata moves
    /// away is deleted, and a produce for it is NOT_LEADER_OR_FOLLOWER while the topic exists;
    /// once the topic is deleted, UNKNOWN_TOPIC_OR_PARTITION.
    #[test]
    fn replicas_that_leave_are_deleted_and_produce_answers_follow_the_metadata() {
        let mut b = Broker::new(1, BrokerConfig::default());
        let mut image = MetadataDelta {
            brokers: vec![reg(0), reg(1)],
            partitions: vec![state(0, &[0, 1], Some(0), (0, 0)), state(1, &[0, 1], Some(0), (0, 0))],
            ..Default::default()
        };
        image.topic_configs.push((Arc::from("foo"), TopicConfig::default()));
        b.start_bootstrapped(0, 1, &image, &mut Outbox::default());
        let mut moved = state(0, &[0], Some(0), (1, 1));
        moved.replicas = vec![0];
        let mut out = Outbox::default();
        b.handle(
            10,
            NodeId::Controller,
            Message::Metadata(MetadataDelta { partitions: vec![moved], ..Default::default() }),
            &mut out,
        );
        assert!(b.partition(&TopicPartition::new("foo", 0)).is_none());
        assert!(out.events.iter().any(|e| matches!(e, EventKind::ReplicaDeleted { broker: 1, .. })));
        let answer = |b: &mut Broker, p: u32| {
            let mut out = Outbox::default();
            b.handle(20, NodeId::Producer(0), produce(TopicPartition::new("foo", p)), &mut out);
            out.sends.iter().find_map(|(_, m)| match m {
                Message::ProduceResponse(r) => r.result.err(),
                _ => None,
            })
        };
        assert_eq!(answer(&mut b, 0), Some(ErrorCode::NotLeaderOrFollower));
        let deleted = MetadataDelta { deleted_topics: vec![Arc::from("foo")], ..Default::default() };
        b.handle(30, NodeId::Controller, Message::Metadata(deleted), &mut Outbox::default());
        assert_eq!(b.partitions().count(), 0);
        assert_eq!(answer(&mut b, 1), Some(ErrorCode::UnknownTopicOrPartition));
    }

    /// `ReplicaManager.appendToLocalLog` with `internalTopicsAllowed = false` (every client's
    /// produce): an append to `__consumer_offsets` is INVALID_TOPIC_EXCEPTION without an error
    /// message, at its leader (nothing is written) and at a broker that is not its leader alike,
    /// while an ordinary topic's produce at the same leader is written.
    #[test]
    fn a_client_produce_to_an_internal_topic_is_invalid_topic_exception() {
        let offsets = |p: u32| {
            let mut s = state(p, &[0, 1], Some(0), (0, 0));
            s.tp = TopicPartition::new(OFFSETS_TOPIC, p);
            s
        };
        let image = MetadataDelta {
            brokers: vec![reg(0), reg(1)],
            partitions: vec![offsets(0), state(0, &[0, 1], Some(0), (0, 0))],
            topic_configs: vec![
                (Arc::from(OFFSETS_TOPIC), TopicConfig::default()),
                (Arc::from("foo"), TopicConfig::default()),
            ],
            ..Default::default()
        };
        let answer = |b: &mut Broker, tp: TopicPartition| {
            let mut out = Outbox::default();
            b.handle(20, NodeId::Producer(0), produce(tp), &mut out);
            out.sends.iter().find_map(|(_, m)| match m {
                Message::ProduceResponse(r) => Some((r.result, r.error_message.clone())),
                _ => None,
            })
        };
        let internal = TopicPartition::new(OFFSETS_TOPIC, 0);
        let mut leader = Broker::new(0, BrokerConfig::default());
        leader.start_bootstrapped(0, 1, &image, &mut Outbox::default());
        let refused = Some((Err(ErrorCode::InvalidTopicException), String::new()));
        assert_eq!(answer(&mut leader, internal.clone()), refused);
        assert_eq!(leader.partition(&internal).unwrap().log.leo(), 0, "nothing is written");
        assert_eq!(answer(&mut leader, TopicPartition::new("foo", 0)), Some((Ok((0, 0)), String::new())));
        let mut follower = Broker::new(1, BrokerConfig::default());
        follower.start_bootstrapped(0, 1, &image, &mut Outbox::default());
        assert_eq!(answer(&mut follower, internal), refused, "checked before leadership");
    }

    /// KIP-227: after the full fetch, an incremental fetch lists nothing while nothing
    /// changed; the leader finds both partitions idle and parks it; a record on foo-0
    /// completes it with foo-0 alone, and the follower's next fetch lists only foo-0 (its
    /// fetch offset moved). The idle partition foo-1 never travels again.
    #[test]
    fn an_incremental_fetch_carries_only_what_changed() {
        let (mut leader, mut follower, _) = leader_and_follower();
        let out = open_session(&mut leader, &mut follower);
        let inc = the_fetch(&out);
        assert_eq!(inc.session, FetchMetadata { session_id: 1, epoch: 1 });
        assert!(inc.partitions.is_empty() && inc.forgotten.is_empty());
        assert!(deliver(503, 1, out, &mut leader).sends.is_empty(), "parked: nothing to say");
        assert!(leader.purgatory.sessions.get(1).unwrap().pending.is_empty(), "both idle");
        let mut out = Outbox::default();
        leader.handle(600, NodeId::Producer(0), produce(TopicPartition::new("foo", 0)), &mut out);
        let resp = the_response(&out);
        assert_eq!(resp.partitions.iter().map(|p| p.tp.partition).collect::<Vec<_>>(), vec![0]);
        let out = deliver(601, 0, out, &mut follower);
        let next = the_fetch(&out);
        assert_eq!((next.session.epoch, partitions_of(next)), (2, vec![0]));
        assert_eq!(next.partitions[0].fetch_offset, 1);
        // The idle partition's follower still counts as fetching: each session fetch is one.
        let ctx = leader.ctx_for(700, &TopicPartition::new("foo", 1));
        let view = leader.partition(&TopicPartition::new("foo", 1)).unwrap().follower_view(&ctx, 1).unwrap();
        assert_eq!(view.caught_up_ago, Some(700 - 503));
    }

    /// `FetchSessionHandler.handleResponse`: a restarted leader has no sessions; it answers
    /// the follower's incremental fetch with FETCH_SESSION_ID_NOT_FOUND and the follower's
    /// next fetch is a full one that opens a new session (id 2: ids count on).
    #[test]
    fn a_restarted_leader_refuses_the_session_and_the_follower_starts_over() {
        let (mut leader, mut follower, image) = leader_and_follower();
        let out = open_session(&mut leader, &mut follower);
        leader.crash(510);
        leader.start_bootstrapped(520, 2, &image, &mut Outbox::default());
        let refused = deliver(530, 1, out, &mut leader);
        assert_eq!(the_response(&refused).error, Some(ErrorCode::FetchSessionIdNotFound));
        let out = deliver(531, 0, refused, &mut follower);
        assert!(out.events.iter().any(|e| matches!(e, EventKind::FetchSessionRefused { session_id: 1, .. })));
        let full = the_fetch(&out);
        assert_eq!((full.session, partitions_of(full)), (FetchMetadata::INITIAL, vec![0, 1]));
        deliver(532, 1, out, &mut leader);
        let mut answer = Outbox::default();
        leader.on_tick(1032, &mut answer);
        assert_eq!(the_response(&answer).session_id, 2);
    }

    /// `BrokerLifecycleManager`: after each DUPLICATE_BROKER_REGISTRATION the broker waits
    /// 100 ms, then twice as long each time, at most half of `broker.session.timeout.ms`
    /// (9000 ms → 4500 ms), and registers again; it sends no heartbeat and no fetch meanwhile.
    #[test]
    fn a_refused_registration_is_retried_with_capped_exponential_backoff() {
        let mut b = Broker::new(2, BrokerConfig::default());
        let mut out = Outbox::default();
        b.start(1000, &mut out);
        assert_eq!(registrations(&out), 1);
        let refused = Message::RegisterBrokerRefused { error: ErrorCode::DuplicateBrokerRegistration };
        let mut now = 1000;
        for wait in [100, 200, 400, 800, 1600, 3200, 4500, 4500] {
            b.handle(now, NodeId::Controller, refused.clone(), &mut Outbox::default());
            let mut out = Outbox::default();
            b.on_tick(now + wait - 1, &mut out);
            assert!(out.sends.is_empty(), "nothing before {wait} ms: {:?}", out.sends);
            assert!(b.next_deadline().is_some_and(|d| d <= now + wait));
            let mut out = Outbox::default();
            b.on_tick(now + wait, &mut out);
            assert_eq!(registrations(&out), 1, "retry after {wait} ms");
            now += wait;
        }
        // Accepted: the retries stop and the backoff starts over at the next start.
        let image = MetadataDelta::default();
        b.handle(
            now,
            NodeId::Controller,
            Message::RegisterBrokerResponse { broker_epoch: 7, image },
            &mut out,
        );
        assert_eq!(b.broker_epoch(), 7);
        assert_eq!(registration_backoff(0, 9000), 100);
        assert_eq!(registration_backoff(40, 9000), 4500);
    }

    /// `BrokerServer.startup` enables request processing only once the broker is unfenced
    /// (`BrokerLifecycleManager`: first heartbeat response with `isFenced=false`): a started
    /// broker refuses inbound connections while its registration is refused and while it is
    /// registered but fenced, accepts them from its first unfenced heartbeat response on, and
    /// keeps accepting when fenced later; a crash closes them, a bootstrapped broker accepts.
    #[test]
    fn a_started_broker_accepts_connections_from_its_first_unfencing_on() {
        let heartbeat = |fenced| Message::HeartbeatResponse { fenced, should_shutdown: false };
        let mut b = Broker::new(2, BrokerConfig::default());
        let mut out = Outbox::default();
        assert!(!b.accepts_connections(), "never started");
        b.start(1000, &mut out);
        assert!(!b.accepts_connections(), "registering");
        let refused = Message::RegisterBrokerRefused { error: ErrorCode::DuplicateBrokerRegistration };
        b.handle(1001, NodeId::Controller, refused, &mut out);
        b.handle(1002, NodeId::Controller, heartbeat(false), &mut out);
        assert!(!b.accepts_connections(), "refused registration: an answer to the old run does not count");
        let image = MetadataDelta::default();
        b.handle(
            1100,
            NodeId::Controller,
            Message::RegisterBrokerResponse { broker_epoch: 7, image },
            &mut out,
        );
        b.handle(1101, NodeId::Controller, heartbeat(true), &mut out);
        assert!(!b.accepts_connections(), "registered but fenced");
        b.handle(1102, NodeId::Controller, heartbeat(false), &mut out);
        assert!(b.accepts_connections(), "unfenced");
        b.handle(1103, NodeId::Controller, heartbeat(true), &mut out);
        assert!(b.accepts_connections(), "a later fence does not close the socket server");
        b.crash(1200);
        assert!(!b.accepts_connections(), "down");
        b.start_bootstrapped(1300, 8, &MetadataDelta::default(), &mut out);
        assert!(b.accepts_connections(), "bootstrapped: registered and unfenced at once");
    }
}
