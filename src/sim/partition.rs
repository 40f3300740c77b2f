//! One broker's replica of one partition, as leader or follower: Kafka's `Partition` class.
//! The leader keeps per-follower fetch state, the HW, ISR shrink/expand proposals and parked
//! acks=all produces; the follower applies fetched records and truncates on divergence.
//! Rule book §2–§5 and §7.

use super::events::{EventKind, ShrinkCause};
use super::fetch_session::SessionFetchTimes;
use super::log::PartitionLog;
use super::protocol::{
    BrokerRegistration, FetchPartition, FetchedData, FetchedPartition, IsrMember, LeaderRecoveryState,
    Message, NodeId, PartitionState, ProduceRequest, ProduceResponse,
};
use super::{
    AckedRecords, Acks, BrokerId, Epoch, Ms, Offset, Outbox, TopicId, TopicPartition, Truncation, join_ids,
};
use crate::config::{BrokerConfig, TopicConfig};
use crate::kafka::errors::ErrorCode;
use std::collections::BTreeMap;

mod follower;
mod high_watermark;
mod isr;
mod serve_consumer;

/// What a partition needs to know about its broker and the cluster to act.
pub struct Ctx<'a> {
    /// Sim time (ms).
    pub now: Ms,
    /// This broker's id.
    pub me: BrokerId,
    /// This broker's current broker epoch.
    pub broker_epoch: i64,
    /// Cluster-wide broker config.
    pub config: &'a BrokerConfig,
    /// The topic's overrides.
    pub topic: &'a TopicConfig,
    /// The broker registrations from the metadata cache.
    pub brokers: &'a BTreeMap<BrokerId, BrokerRegistration>,
    /// When this broker's ISR-expiration task runs next (ms, R4.2).
    pub next_isr_check: Ms,
    /// The latest fetch time of each of this broker's fetch sessions, for followers idle in
    /// one ([`FollowerState::idle_in_session`]).
    pub session_fetches: &'a SessionFetchTimes,
}

/// ms from `now` until the ISR-expiration task, which runs at `next_check` and then every
/// `lag_ms / 2`, first finds a follower last caught up at `caught_up` out of sync (R4.1, R4.2).
pub fn isr_removal_in(now: Ms, caught_up: Option<Ms>, lag_ms: Ms, next_check: Ms) -> Ms {
    let out_of_sync_from = caught_up.map_or(0, |t| t + lag_ms + 1);
    let period = (lag_ms / 2).max(1);
    let mut check = next_check.max(now);
    if check < out_of_sync_from {
        check += (out_of_sync_from - check).div_ceil(period) * period;
    }
    check - now
}

/// The leader's bookkeeping about one follower (R2.6, Kafka's `Replica`).
#[derive(Clone, Debug, Default)]
pub struct FollowerState {
    /// The follower's LEO as of its last fetch; `None` right after an election (R2.10).
    pub leo: Option<Offset>,
    /// The follower's log start offset.
    pub log_start: Offset,
    /// When it last fetched (ms).
    pub last_fetch_time: Option<Ms>,
    /// The leader's LEO at its previous fetch.
    pub last_fetch_leader_leo: Offset,
    /// When it was last caught up (ms); `None` = never (R2.6 step 3).
    pub last_caught_up: Option<Ms>,
    /// The broker epoch its fetches carried (`-1` unknown).
    pub broker_epoch: i64,
    /// Set while the partition sits idle in the follower's fetch session (caught up, in the
    /// ISR, nothing to say): each fetch of that session then counts as a fetch of this
    /// partition at the same offset, without the leader reading it (KIP-227). Holds the
    /// session's id; its fetch times are in [`Ctx::session_fetches`].
    pub idle_in_session: Option<u32>,
}

impl FollowerState {
    /// When it last fetched (ms), counting the fetches of the session it sits idle in.
    pub fn last_fetch(&self, sessions: &SessionFetchTimes) -> Option<Ms> {
        self.with_session(self.last_fetch_time, sessions)
    }

    /// When it was last caught up (ms): an idle partition is caught up at every fetch of its
    /// session (`Replica.updateFetchStateOrThrow` with fetch offset = leader LEO).
    pub fn caught_up_at(&self, sessions: &SessionFetchTimes) -> Option<Ms> {
        self.with_session(self.last_caught_up, sessions)
    }

    fn with_session(&self, t: Option<Ms>, sessions: &SessionFetchTimes) -> Option<Ms> {
        match self.idle_in_session.and_then(|id| sessions.get(id)) {
            Some(fetched) => Some(t.map_or(fetched, |t| t.max(fetched))),
            None => t,
        }
    }
}

/// An ISR change the leader proposed and the controller has not answered (R4.7).
#[derive(Clone, Debug)]
struct PendingIsr {
    isr: Vec<BrokerId>,
    change: IsrChange,
}

#[derive(Clone, Debug)]
enum IsrChange {
    Expand(BrokerId),
    /// `never_fetched`: none of the removed followers fetched from this leader at all.
    Shrink {
        removed: Vec<BrokerId>,
        behind_ms: Ms,
        never_fetched: bool,
        /// Messages behind, when Kafka 0.8's count rule removed them (R4.4).
        behind_messages: Option<i64>,
    },
}

/// One producer's acks=all produces parked at a leader until the HW passes them
/// ([`Partition::parked_produces`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ParkedProduces {
    /// The producer (its index).
    pub producer: u32,
    /// How many produce requests wait (one batch each).
    pub requests: u32,
    /// How many records they carry.
    pub records: u64,
    /// When the first of them parked (sim ms).
    pub since: Ms,
    /// When the first of them expires with REQUEST_TIMED_OUT unless the HW passes it first
    /// (sim ms).
    pub first_deadline: Ms,
    /// That request's timeout (ms): the producer's `request.timeout.ms`, sent with it.
    pub timeout_ms: Ms,
}

/// An acks=all produce parked until the HW passes it (Kafka's `DelayedProduce`, R5.4: its
/// `tryComplete` asks `Partition.checkEnoughReplicasReachOffset`, its `onExpiration` leaves
/// REQUEST_TIMED_OUT).
#[derive(Clone, Debug)]
struct DelayedProduce {
    producer: u32,
    correlation_id: u64,
    required_offset: Offset,
    base_offset: Offset,
    leader_epoch: Epoch,
    deadline: Ms,
    timeout_ms: Ms,
}

/// Leader-only state.
#[derive(Clone, Debug, Default)]
struct LeaderState {
    epoch_start_offset: Offset,
    followers: BTreeMap<BrokerId, FollowerState>,
    pending: Option<PendingIsr>,
    delayed: Vec<DelayedProduce>,
}

/// This replica's role.
#[derive(Clone, Debug, Default)]
enum Role {
    /// No partition state yet, or the broker is down.
    #[default]
    Unknown,
    /// Following `leader` (`None` while the partition is offline).
    Follower { leader: Option<BrokerId>, backoff_until: Ms },
    /// Leading.
    Leader(LeaderState),
}

/// One broker's replica of one partition.
#[derive(Clone, Debug)]
pub struct Partition {
    /// The partition.
    pub tp: TopicPartition,
    /// The topic id its log belongs to: Kafka's `partition.metadata` file, written when the
    /// log is created from a `PartitionRecord` (`Partition.checkOrSetTopicId`,
    /// `PartitionMetadataFile`), so it survives a crash with the log. A broker that comes back
    /// after its topic was deleted and created again under the same name tells its stale log
    /// from the new topic by it ([`TopicId::ZERO`] until set).
    pub topic_id: TopicId,
    /// The replica's log (what survives a crash).
    pub log: PartitionLog,
    state: Option<PartitionState>,
    role: Role,
    fetch_stopped: bool,
    /// Since this replica started following its leader: `Some(false)` until a fetch response
    /// shows it behind the leader's HW, `Some(true)` while it catches up, `None` once caught
    /// up (or when not following), so [`EventKind::FollowerCaughtUp`] is said once.
    catching_up: Option<bool>,
    /// The follower fetcher's lag: the leader's HW minus this LEO after the last response
    /// that brought records (`None` until one did since it started following). Kafka's
    /// `PartitionFetchState.lag`, set in `AbstractFetcherThread.processFetchRequest`; a
    /// replica with lag 0 is "in sync" for the follower throttle (`isReplicaInSync`).
    fetch_lag: Option<Offset>,
    /// Whether the first fetch since it started following was announced
    /// ([`EventKind::FollowerStarted`]).
    fetch_announced: bool,
    /// How many Fetch requests its broker sent listing this partition (a full fetch lists
    /// every partition, an incremental one only those added or changed, KIP-227).
    fetch_requests: u64,
    /// The topic id error its leader answered last (UNKNOWN_TOPIC_ID or
    /// INCONSISTENT_TOPIC_ID), so [`EventKind::FetchTopicIdRefused`] is said once per run.
    topic_id_refused: Option<ErrorCode>,
}

/// What a replica's fetches depend on, on either side: compared before and after its broker
/// touches it, so the broker revisits only partitions that changed (the follower's fetch
/// session marks it, the leader's sessions look at it again and parked fetches waiting on
/// it may complete).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ChangeStamp {
    leading: bool,
    /// The leader it fetches from, when it follows one and its fetcher was not stopped.
    pub fetching_from: Option<BrokerId>,
    backoff_until: Ms,
    leader_epoch: Epoch,
    partition_epoch: Epoch,
    leo: Offset,
    hw: Offset,
    log_start: Offset,
    latest_epoch: Option<Epoch>,
}

/// The leader's view of one follower, for the dashboard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FollowerView {
    /// Offsets behind the leader's LEO, when known.
    pub lag: Option<Offset>,
    /// ms until the lag rule removes it, when it is in the ISR and behind.
    pub isr_expiry_in: Option<Ms>,
    /// ms since it was last caught up.
    pub caught_up_ago: Option<Ms>,
}

impl Partition {
    /// A replica with the given log and no role yet.
    pub fn new(tp: TopicPartition, log: PartitionLog) -> Self {
        Self {
            tp,
            topic_id: TopicId::ZERO,
            log,
            state: None,
            role: Role::Unknown,
            fetch_stopped: false,
            catching_up: None,
            fetch_lag: None,
            fetch_announced: true,
            fetch_requests: 0,
            topic_id_refused: None,
        }
    }

    /// How many Fetch requests its broker sent listing it (see [`Partition`]'s field).
    pub fn fetch_requests(&self) -> u64 {
        self.fetch_requests
    }

    /// Its [`ChangeStamp`] now.
    pub fn change_stamp(&self) -> ChangeStamp {
        let (fetching_from, backoff_until) = match self.role {
            Role::Follower { leader, backoff_until } if !self.fetch_stopped => (leader, backoff_until),
            Role::Follower { backoff_until, .. } => (None, backoff_until),
            _ => (None, 0),
        };
        ChangeStamp {
            leading: self.is_leader(),
            fetching_from,
            backoff_until,
            leader_epoch: self.leader_epoch(),
            partition_epoch: self.state.as_ref().map_or(-1, |s| s.partition_epoch),
            leo: self.log.leo(),
            hw: self.log.hw(),
            log_start: self.log.log_start(),
            latest_epoch: self.log.latest_epoch(),
        }
    }

    /// After the leader served `replica`'s fetch `fp` through a fetch session with nothing to
    /// say: if the follower is caught up (fetch offset = LEO) and in the ISR, the partition is
    /// idle and the session leaves it alone until something changes; its follower state then
    /// follows session `session`'s fetch times (a fetch at the LEO keeps it caught up,
    /// `Replica.updateFetchStateOrThrow`). Returns whether it is idle.
    pub fn mark_idle_in_session(&mut self, replica: BrokerId, fp: &FetchPartition, session: u32) -> bool {
        let idle = self.check_fetch_epoch(replica, fp).is_ok()
            && fp.fetch_offset == self.log.leo()
            && self.committed_isr().contains(&replica);
        let Role::Leader(ls) = &mut self.role else { return false };
        match ls.followers.get_mut(&replica) {
            Some(f) if idle && f.leo == Some(fp.fetch_offset) => {
                f.idle_in_session = Some(session);
                true
            }
            _ => false,
        }
    }

    /// Whether this follower counts as in sync for the follower replication throttle: its last
    /// fetch response that brought records left it at the leader's HW (Kafka's
    /// `PartitionFetchState.isReplicaInSync`: lag defined and 0). `ReplicaFetcherThread`'s
    /// `shouldFollowerThrottle` never leaves such a replica out of a fetch.
    pub fn fetch_in_sync(&self) -> bool {
        self.fetch_lag.is_some_and(|lag| lag <= 0)
    }

    /// The partition state this replica last applied.
    pub fn state(&self) -> Option<&PartitionState> {
        self.state.as_ref()
    }

    /// Whether this replica currently leads.
    pub fn is_leader(&self) -> bool {
        matches!(self.role, Role::Leader(_))
    }

    /// The leader this replica follows, if it is a follower of a live leader.
    pub fn following(&self) -> Option<BrokerId> {
        match self.role {
            Role::Follower { leader, .. } => leader,
            _ => None,
        }
    }

    /// Forgets every volatile role state (a crash or stop): parked produces vanish with the
    /// process, the log stays.
    pub fn reset_role(&mut self) {
        self.role = Role::Unknown;
        self.state = None;
        self.fetch_stopped = false;
        self.catching_up = None;
        self.fetch_lag = None;
        self.fetch_announced = true;
    }

    /// This broker no longer hosts the replica (a reassignment removed it, or its topic was
    /// deleted; Kafka's `ReplicaManager.stopPartitions` with `deletePartition`): parked
    /// produces fail with `NOT_LEADER_OR_FOLLOWER` and it neither leads nor fetches any more.
    /// Its broker then drops it with its log.
    pub fn stop_replica(&mut self, out: &mut Outbox) {
        self.fail_delayed(ErrorCode::NotLeaderOrFollower, out);
        self.reset_role();
    }

    /// Called for each partition state a broker in controlled shutdown applies: a follower
    /// replica whose partition has no leader, or whose ISR no longer lists this broker, stops
    /// fetching until the process restarts (Kafka's `ReplicaManager.applyLocalFollowersDelta`
    /// removes its fetcher). Its log keeps whatever tail it has; it truncates after the
    /// restart, when it fetches again (R7.5). Returns whether it stopped now.
    pub fn stop_fetching_in_controlled_shutdown(&mut self, me: BrokerId) -> bool {
        let out_of_isr = self.state.as_ref().is_some_and(|s| s.leader.is_none() || !s.isr.contains(&me));
        let stop = !self.fetch_stopped && !self.is_leader() && out_of_isr;
        self.fetch_stopped |= stop;
        stop
    }

    /// Whether this replica's fetcher was stopped by a controlled shutdown.
    pub fn fetch_stopped(&self) -> bool {
        self.fetch_stopped
    }

    fn leader_epoch(&self) -> Epoch {
        self.state.as_ref().map_or(-1, |s| s.leader_epoch)
    }

    fn committed_isr(&self) -> &[BrokerId] {
        self.state.as_ref().map_or(&[], |s| &s.isr)
    }

    fn replicas(&self) -> &[BrokerId] {
        self.state.as_ref().map_or(&[], |s| &s.replicas)
    }

    /// Committed ISR plus a member whose addition is in flight (R4.7).
    pub fn maximal_isr(&self) -> Vec<BrokerId> {
        let mut isr = self.committed_isr().to_vec();
        if let Role::Leader(LeaderState {
            pending: Some(PendingIsr { change: IsrChange::Expand(r), .. }),
            ..
        }) = &self.role
        {
            isr.push(*r);
        }
        isr
    }

    fn effective_min_isr(&self, ctx: &Ctx) -> usize {
        ctx.topic.effective_min_isr(ctx.config, self.replicas().len())
    }

    /// Applies a partition state from the controller: `makeLeader` / `makeFollower` or an
    /// ISR-only update. Stale states (older epochs) are ignored (R6.9).
    pub fn apply_state(&mut self, ctx: &Ctx, new: &PartitionState, out: &mut Outbox) {
        if let Some(cur) = &self.state {
            let older = new.leader_epoch < cur.leader_epoch
                || (new.leader_epoch == cur.leader_epoch && new.partition_epoch <= cur.partition_epoch);
            if older {
                return;
            }
        }
        let was_leader_in_epoch = self.is_leader().then(|| self.leader_epoch());
        if self.leader_epoch() != new.leader_epoch {
            // A new leader epoch gives the fetcher a new `PartitionFetchState`, lag unknown
            // (`AbstractFetcherThread.addPartitions`).
            self.fetch_lag = None;
        }
        self.commit_pending_if_matches(ctx, new, out);
        self.state = Some(new.clone());
        if new.leader == Some(ctx.me) {
            if was_leader_in_epoch == Some(new.leader_epoch) {
                if let Role::Leader(ls) = &mut self.role {
                    ls.pending = None;
                }
            } else {
                self.make_leader(ctx, out);
            }
            self.maybe_increment_hw(ctx, out);
        } else {
            if was_leader_in_epoch.is_some() {
                self.fail_delayed(ErrorCode::NotLeaderOrFollower, out);
            }
            let backoff_until = match self.role {
                Role::Follower { leader, backoff_until } if leader == new.leader => Some(backoff_until),
                _ => None,
            };
            if backoff_until.is_none() {
                self.start_following(new);
                self.truncate_to_hw_on_follow(ctx, out);
            }
            self.role = Role::Follower { leader: new.leader, backoff_until: backoff_until.unwrap_or(0) };
        }
    }

    /// This replica follows a new leader (or none): its first fetch will be announced, and it
    /// starts watching for itself to catch up.
    fn start_following(&mut self, new: &PartitionState) {
        self.fetch_announced = false;
        self.catching_up = new.leader.map(|_| false);
        self.fetch_lag = None;
    }

    /// Its broker sent a fetch for this partition to `leader` from `fetch_offset`: the first
    /// one since it started following says where the fetcher starts, as Kafka's
    /// `Partition.makeFollower` logs it ("Follower … starts at leader epoch … from offset …").
    pub fn note_fetch_sent(
        &mut self,
        me: BrokerId,
        leader: BrokerId,
        fetch_offset: Offset,
        out: &mut Outbox,
    ) {
        self.fetch_requests += 1;
        if self.fetch_announced {
            return;
        }
        self.fetch_announced = true;
        out.emit(EventKind::FollowerStarted {
            broker: me,
            tp: self.tp.clone(),
            leader,
            leader_epoch: self.leader_epoch(),
            offset: fetch_offset,
        });
    }

    /// After a fetch response: a follower that was behind the leader's HW `hw` and has now
    /// reached it says so once.
    fn note_catch_up(
        &mut self,
        ctx: &Ctx,
        leader: BrokerId,
        leo_before: Offset,
        hw: Offset,
        out: &mut Outbox,
    ) {
        let Some(seen_behind) = self.catching_up else { return };
        let leo = self.log.leo();
        if leo < hw {
            self.catching_up = Some(true);
        } else if seen_behind || leo_before < hw {
            self.catching_up = None;
            out.emit(EventKind::FollowerCaughtUp {
                broker: ctx.me,
                tp: self.tp.clone(),
                leader,
                leo,
                leader_hw: hw,
            });
        } else {
            self.catching_up = None;
        }
    }

    /// Becoming leader with a new leader epoch (R2.10): cache the epoch start, reset followers.
    fn make_leader(&mut self, ctx: &Ctx, out: &mut Outbox) {
        let state = self.state.as_ref().expect("state set before make_leader");
        self.log.assign_epoch_start(state.leader_epoch);
        let previous = std::mem::take(&mut self.role);
        let (old_followers, delayed) = match previous {
            Role::Leader(ls) => (Some(ls.followers), ls.delayed),
            _ => (None, Vec::new()),
        };
        let followers = state
            .replicas
            .iter()
            .filter(|&&r| r != ctx.me)
            .map(|&r| {
                let leo = old_followers.as_ref().and_then(|f| f.get(&r)).and_then(|f| f.leo);
                let caught = state.isr.contains(&r).then_some(ctx.now);
                (r, FollowerState { leo, last_caught_up: caught, broker_epoch: -1, ..Default::default() })
            })
            .collect();
        self.role = Role::Leader(LeaderState {
            epoch_start_offset: self.log.leo(),
            followers,
            pending: None,
            delayed,
        });
        out.touched.push(self.tp.clone());
    }

    /// A produce at this replica (R2.1, R5.1–R5.4, R5.8). Returns whether records were
    /// appended (so parked fetches can be woken).
    pub fn on_produce(&mut self, ctx: &Ctx, req: &ProduceRequest, out: &mut Outbox) -> bool {
        let tp = self.tp.clone();
        let answer = |out: &mut Outbox, result, msg: String| {
            if req.acks != Acks::Zero {
                respond(out, req.producer, req.correlation_id, &tp, result, msg);
            }
        };
        if !self.is_leader() {
            let msg = format!("broker {} is not the leader of {}", ctx.me, self.tp);
            answer(out, Err(ErrorCode::NotLeaderOrFollower), msg);
            return false;
        }
        let min_isr = self.effective_min_isr(ctx);
        if req.acks == Acks::All && self.committed_isr().len() < min_isr {
            let msg = format!(
                "The size of the current ISR [{}] is insufficient to satisfy the min.isr requirement of {} for partition {}",
                join_ids(self.committed_isr()),
                min_isr,
                self.tp
            );
            answer(out, Err(ErrorCode::NotEnoughReplicas), msg);
            return false;
        }
        let epoch = self.leader_epoch();
        let info = match self.log.append_as_leader(&req.batch, epoch) {
            Ok(info) => info,
            Err(e) => {
                answer(out, Err(e), format!("sequence gap from producer {}", req.batch.producer_id));
                return false;
            }
        };
        let written_epoch = info.leader_epoch;
        if !info.duplicate && self.log.written(ctx.now) {
            out.fsyncs += 1;
        }
        // After every append, a duplicate included, the leader recomputes its HW and completes
        // the parked produces it satisfies (Kafka's `Partition.appendRecordsToLeader` calls
        // `maybeIncrementLeaderHW` after every append, and a raised HW makes
        // `ReplicaManager.addCompletePurgatoryAction` complete the partition's delayed
        // requests), before it decides whether this request must wait.
        self.maybe_increment_hw(ctx, out);
        match req.acks {
            Acks::Zero if !info.duplicate => out.acked.push(AckedRecords {
                tp: self.tp.clone(),
                base_offset: info.base_offset,
                leader_epoch: epoch,
                leader: ctx.me,
                values: req.batch.values.clone(),
                acks: Acks::Zero,
                retried: false,
            }),
            Acks::Zero => {}
            Acks::One => answer(out, Ok((info.base_offset, written_epoch)), String::new()),
            Acks::All => {
                let required = info.last_offset + 1;
                if self.log.hw() >= required {
                    answer(out, Ok((info.base_offset, written_epoch)), String::new());
                } else if let Role::Leader(ls) = &mut self.role {
                    ls.delayed.push(DelayedProduce {
                        producer: req.producer,
                        correlation_id: req.correlation_id,
                        required_offset: required,
                        base_offset: info.base_offset,
                        leader_epoch: written_epoch,
                        deadline: ctx.now + req.timeout_ms,
                        timeout_ms: req.timeout_ms,
                    });
                }
            }
        }
        !info.duplicate
    }

    fn check_fetch_epoch(&self, replica: BrokerId, fp: &FetchPartition) -> Result<(), ErrorCode> {
        self.check_leader_epoch(fp.current_leader_epoch)?;
        if !self.replicas().contains(&replica) {
            return Err(ErrorCode::NotLeaderOrFollower);
        }
        Ok(())
    }

    /// Leader side of a follower fetch for this partition (R2.6–R2.8, R7.6): epoch fencing,
    /// the divergence check, follower bookkeeping, ISR expansion, HW, then the records.
    pub fn on_follower_fetch(
        &mut self,
        ctx: &Ctx,
        replica: BrokerId,
        broker_epoch: i64,
        fp: &FetchPartition,
        out: &mut Outbox,
    ) -> Result<FetchedData, ErrorCode> {
        self.check_fetch_epoch(replica, fp)?;
        let before_kip101 =
            ctx.config.semantics.truncation == crate::config::semantics::Truncation::HighWatermark;
        if let Some(lfe) = fp.last_fetched_epoch.filter(|_| !before_kip101)
            && let Some(div) = self.log.diverging_epoch(lfe, fp.fetch_offset)
        {
            return Ok(self.fetched(Some(div), Vec::new()));
        }
        if fp.fetch_offset > self.log.leo() && before_kip101 {
            // Before KIP-101 a fetch carried no epoch: the leader answers OFFSET_OUT_OF_RANGE and
            // the follower truncates to the leader's LEO (Kafka 0.10.2
            // `ReplicaFetcherThread.handleOffsetOutOfRange`, R7.1); the answer carries that LEO,
            // sparing the ListOffsets round trip.
            let leo = super::protocol::EpochEndOffset {
                epoch: super::events::TRUNCATED_TO_LEADER_LEO,
                end_offset: self.log.leo(),
            };
            return Ok(self.fetched(Some(leo), Vec::new()));
        }
        if fp.fetch_offset > self.log.leo() {
            return Err(ErrorCode::OffsetOutOfRange);
        }
        if fp.fetch_offset < self.log.log_start() {
            // Retention deleted what the follower asks for: see `on_fetch_response`.
            return Ok(self.fetched(None, Vec::new()));
        }
        let leo_changed = self.update_follower_state(ctx, replica, broker_epoch, fp);
        self.maybe_expand_isr(ctx, replica, out);
        if leo_changed {
            self.maybe_increment_hw(ctx, out);
        }
        let batches = self.log.read(fp.fetch_offset, ctx.config.replica_fetch_max_bytes);
        Ok(self.fetched(None, batches))
    }

    fn fetched(
        &self,
        diverging_epoch: Option<super::protocol::EpochEndOffset>,
        batches: Vec<super::protocol::RecordBatch>,
    ) -> FetchedData {
        FetchedData {
            high_watermark: self.log.hw(),
            log_start_offset: self.log.log_start(),
            diverging_epoch,
            batches,
        }
    }

    /// R2.6 steps 1–4. Returns whether the follower's LEO changed.
    fn update_follower_state(
        &mut self,
        ctx: &Ctx,
        replica: BrokerId,
        broker_epoch: i64,
        fp: &FetchPartition,
    ) -> bool {
        let leader_leo = self.log.leo();
        let Role::Leader(ls) = &mut self.role else { return false };
        let f = ls.followers.entry(replica).or_default();
        // Fold the fetches it made while idle in its session into the explicit times.
        f.last_fetch_time = f.last_fetch(ctx.session_fetches);
        f.last_caught_up = f.caught_up_at(ctx.session_fetches);
        f.idle_in_session = None;
        let changed = f.leo != Some(fp.fetch_offset);
        f.leo = Some(fp.fetch_offset);
        f.log_start = fp.log_start_offset;
        if fp.fetch_offset >= leader_leo {
            f.last_caught_up = Some(f.last_caught_up.map_or(ctx.now, |t| t.max(ctx.now)));
        } else if fp.fetch_offset >= f.last_fetch_leader_leo
            && let Some(prev) = f.last_fetch_time
        {
            f.last_caught_up = Some(f.last_caught_up.map_or(prev, |t| t.max(prev)));
        }
        f.last_fetch_leader_leo = f.last_fetch_leader_leo.max(leader_leo);
        f.last_fetch_time = Some(ctx.now);
        f.broker_epoch = broker_epoch;
        changed
    }

    /// Records for a fetch the leader had parked, read again now; `None` if this replica can
    /// no longer serve it (the error is then reported by a fresh read).
    pub fn read_for_parked(&self, ctx: &Ctx, replica: BrokerId, fp: &FetchPartition) -> FetchedPartition {
        let result = self.check_fetch_epoch(replica, fp).and_then(|()| {
            if fp.fetch_offset > self.log.leo() {
                return Err(ErrorCode::OffsetOutOfRange);
            }
            Ok(self.fetched(None, self.log.read(fp.fetch_offset, ctx.config.replica_fetch_max_bytes)))
        });
        FetchedPartition { tp: self.tp.clone(), topic_id: fp.topic_id, result }
    }

    /// Whether a parked fetch at `fetch_offset` can complete: data past it exists, or this
    /// replica stopped leading.
    pub fn can_complete_fetch(&self, fp: &FetchPartition) -> bool {
        !self.is_leader()
            || self.leader_epoch() != fp.current_leader_epoch
            || self.log.leo() > fp.fetch_offset
    }

    /// The leader's view of follower `r`, for the dashboard (R2.7, R4.1, R4.2).
    pub fn follower_view(&self, ctx: &Ctx, r: BrokerId) -> Option<FollowerView> {
        let Role::Leader(ls) = &self.role else { return None };
        let f = ls.followers.get(&r)?;
        let leo = self.log.leo();
        let lag_ms = ctx.config.replica_lag_time_max_ms;
        let caught_up = f.caught_up_at(ctx.session_fetches);
        let caught_up_ago = caught_up.map(|t| ctx.now.saturating_sub(t));
        let behind = f.leo.is_none_or(|l| l < leo);
        let isr_expiry_in = (self.committed_isr().contains(&r) && behind)
            .then(|| isr_removal_in(ctx.now, caught_up, lag_ms, ctx.next_isr_check));
        Some(FollowerView { lag: f.leo.map(|l| leo - l), isr_expiry_in, caught_up_ago })
    }
}

fn respond(
    out: &mut Outbox,
    producer: u32,
    correlation_id: u64,
    tp: &TopicPartition,
    result: Result<(Offset, Epoch), ErrorCode>,
    error_message: String,
) {
    out.send(
        super::protocol::producer_node(producer),
        Message::ProduceResponse(ProduceResponse { correlation_id, tp: tp.clone(), result, error_message }),
    );
}

mod coordinator_append;

#[cfg(test)]
mod tests;
