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

    /// When the committed state equals the leader's own pending proposal, the proposal was
    /// accepted: report the ISR change.
    fn commit_pending_if_matches(&mut self, ctx: &Ctx, new: &PartitionState, out: &mut Outbox) {
        let Role::Leader(ls) = &mut self.role else { return };
        let Some(pending) = &ls.pending else { return };
        let same_epoch = self.state.as_ref().is_some_and(|s| s.leader_epoch == new.leader_epoch);
        // An expansion that completed a reassignment comes back without the removed replicas
        // and with a new leader epoch (`PartitionChangeBuilder.completeReassignmentIfNeeded`).
        let completed = new.leader == Some(ctx.me)
            && self.state.as_ref().is_some_and(PartitionState::is_reassigning)
            && !new.is_reassigning();
        let kept: Vec<BrokerId> = pending.isr.iter().copied().filter(|r| new.replicas.contains(r)).collect();
        if !(same_epoch || completed) || kept != new.isr {
            return;
        }
        let event = match &pending.change {
            IsrChange::Expand(r) => {
                EventKind::IsrExpanded { tp: self.tp.clone(), added: *r, isr: new.isr.clone() }
            }
            IsrChange::Shrink { removed, behind_ms, never_fetched } => {
                let (behind_ms, limit_ms) = (*behind_ms, ctx.config.replica_lag_time_max_ms);
                let cause = if *never_fetched {
                    ShrinkCause::NoFetchSinceElection { behind_ms, limit_ms }
                } else {
                    ShrinkCause::Lagging { behind_ms, limit_ms }
                };
                EventKind::IsrShrunk {
                    tp: self.tp.clone(),
                    removed: removed.clone(),
                    isr: new.isr.clone(),
                    cause,
                }
            }
        };
        out.emit(event);
        ls.pending = None;
    }

    /// The answer to this leader's AlterPartition (R4.7).
    pub fn on_alter_partition_response(
        &mut self,
        ctx: &Ctx,
        result: &Result<PartitionState, ErrorCode>,
        out: &mut Outbox,
    ) {
        match result {
            Ok(state) => self.apply_state(ctx, state, out),
            Err(ErrorCode::IneligibleReplica) => {
                if let Role::Leader(ls) = &mut self.role {
                    ls.pending = None;
                }
            }
            // Fenced or stale: stay pending until new metadata arrives.
            Err(_) => {}
        }
    }

    fn is_caught_up(ctx: &Ctx, f: &FollowerState, leader_leo: Offset, lag_ms: Ms) -> bool {
        f.leo == Some(leader_leo)
            || f.caught_up_at(ctx.session_fetches).is_some_and(|t| ctx.now.saturating_sub(t) <= lag_ms)
    }

    fn is_isr_eligible(ctx: &Ctx, r: BrokerId, f: &FollowerState) -> bool {
        ctx.brokers.get(&r).is_some_and(|reg| {
            !reg.fenced
                && !reg.in_controlled_shutdown
                && (f.broker_epoch == -1 || f.broker_epoch == reg.broker_epoch)
        })
    }

    /// Recomputes the leader's HW (R3.3, Kafka 3.7+): frozen under min ISR, else the minimum
    /// LEO over the maximal ISR and caught-up eligible followers. Completes parked produces
    /// the new HW satisfies. Returns whether the HW moved.
    pub fn maybe_increment_hw(&mut self, ctx: &Ctx, out: &mut Outbox) -> bool {
        if self.hw_frozen(ctx) {
            return false;
        }
        let maximal = self.maximal_isr();
        let Role::Leader(ls) = &self.role else { return false };
        let leo = self.log.leo();
        let lag = ctx.config.replica_lag_time_max_ms;
        let candidate = ls
            .followers
            .iter()
            .filter(|(r, f)| {
                maximal.contains(r)
                    || (Self::is_caught_up(ctx, f, leo, lag) && Self::is_isr_eligible(ctx, **r, f))
            })
            .map(|(_, f)| f.leo.unwrap_or(-1))
            .fold(leo, Offset::min);
        let moved = self.log.maybe_increment_hw(candidate);
        if moved {
            tracing::trace!(t = ctx.now, tp = %self.tp, hw = self.log.hw(), "HW advanced");
            self.complete_delayed(ctx, out);
        }
        moved
    }

    /// Strict min ISR (R3.3 step 1, KAFKA-15583, [`crate::config::semantics::Semantics::strict_min_isr`]):
    /// the leader's HW may not advance while the committed ISR is below the effective min ISR.
    fn hw_frozen(&self, ctx: &Ctx) -> bool {
        ctx.config.semantics.strict_min_isr && self.committed_isr().len() < self.effective_min_isr(ctx)
    }

    fn complete_delayed(&mut self, ctx: &Ctx, out: &mut Outbox) {
        let hw = self.log.hw();
        let enough = self.maximal_isr().len() >= self.effective_min_isr(ctx);
        let Role::Leader(ls) = &mut self.role else { return };
        let (done, waiting): (Vec<_>, Vec<_>) = ls.delayed.drain(..).partition(|d| d.required_offset <= hw);
        ls.delayed = waiting;
        for d in done {
            let result = if enough {
                Ok((d.base_offset, d.leader_epoch))
            } else {
                Err(ErrorCode::NotEnoughReplicasAfterAppend)
            };
            respond(out, d.producer, d.correlation_id, &self.tp, result, String::new());
        }
    }

    fn fail_delayed(&mut self, error: ErrorCode, out: &mut Outbox) {
        if let Role::Leader(ls) = &mut self.role {
            for d in ls.delayed.drain(..) {
                respond(out, d.producer, d.correlation_id, &self.tp, Err(error), String::new());
            }
        }
    }

    /// Times out parked produces whose request timeout passed (`REQUEST_TIMED_OUT`, R5.4.5).
    pub fn expire_delayed(&mut self, now: Ms, out: &mut Outbox) {
        let Role::Leader(ls) = &mut self.role else { return };
        let (expired, waiting): (Vec<_>, Vec<_>) = ls.delayed.drain(..).partition(|d| d.deadline <= now);
        ls.delayed = waiting;
        for d in expired {
            let msg = format!("the HW did not reach offset {} within {} ms", d.required_offset, d.timeout_ms);
            respond(out, d.producer, d.correlation_id, &self.tp, Err(ErrorCode::RequestTimedOut), msg);
        }
    }

    /// Earliest parked-produce deadline or follower backoff end (ms).
    pub fn next_deadline(&self) -> Option<Ms> {
        match &self.role {
            Role::Leader(ls) => ls.delayed.iter().map(|d| d.deadline).min(),
            Role::Follower { backoff_until, .. } if *backoff_until > 0 => Some(*backoff_until),
            _ => None,
        }
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
        if let Some(lfe) = fp.last_fetched_epoch
            && let Some(div) = self.log.diverging_epoch(lfe, fp.fetch_offset)
        {
            return Ok(self.fetched(Some(div), Vec::new()));
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

    fn isr_member(ctx: &Ctx, ls: &LeaderState, r: BrokerId) -> IsrMember {
        let broker_epoch =
            if r == ctx.me { ctx.broker_epoch } else { ls.followers.get(&r).map_or(-1, |f| f.broker_epoch) };
        IsrMember { id: r, broker_epoch }
    }

    fn propose(&mut self, ctx: &Ctx, isr: Vec<BrokerId>, change: IsrChange, out: &mut Outbox) {
        let (leader_epoch, partition_epoch) = match &self.state {
            Some(s) => (s.leader_epoch, s.partition_epoch),
            None => {
                tracing::error!(t = ctx.now, tp = %self.tp, "ISR change proposed without partition state");
                return;
            }
        };
        let Role::Leader(ls) = &mut self.role else {
            tracing::error!(t = ctx.now, tp = %self.tp, "ISR change proposed by a replica that is not the leader");
            return;
        };
        tracing::debug!(t = ctx.now, tp = %self.tp, ?isr, ?change, partition_epoch, "AlterPartition proposed");
        let new_isr = isr.iter().map(|&r| Self::isr_member(ctx, ls, r)).collect();
        out.send(
            NodeId::Controller,
            Message::AlterPartition {
                leader: ctx.me,
                broker_epoch: ctx.broker_epoch,
                tp: self.tp.clone(),
                leader_epoch,
                partition_epoch,
                new_isr,
                leader_recovery: LeaderRecoveryState::Recovered,
            },
        );
        ls.pending = Some(PendingIsr { isr, change });
    }

    /// ISR expansion on a follower fetch (R4.6): not already in, caught up to the HW and to
    /// this leader's epoch start, and eligible.
    fn maybe_expand_isr(&mut self, ctx: &Ctx, replica: BrokerId, out: &mut Outbox) {
        let hw = self.log.hw();
        let Role::Leader(ls) = &self.role else { return };
        if ls.pending.is_some() || self.committed_isr().contains(&replica) {
            return;
        }
        let Some(f) = ls.followers.get(&replica) else { return };
        let Some(leo) = f.leo else { return };
        if leo >= hw && leo >= ls.epoch_start_offset && Self::is_isr_eligible(ctx, replica, f) {
            let mut isr = self.committed_isr().to_vec();
            isr.push(replica);
            self.propose(ctx, isr, IsrChange::Expand(replica), out);
        }
    }

    /// The periodic ISR-expiration check (R4.1, R4.2): proposes removing followers that have
    /// not been caught up for `replica.lag.time.max.ms`.
    pub fn maybe_shrink_isr(&mut self, ctx: &Ctx, out: &mut Outbox) {
        let leo = self.log.leo();
        let lag = ctx.config.replica_lag_time_max_ms;
        let Role::Leader(ls) = &self.role else { return };
        if ls.pending.is_some() {
            return;
        }
        let mut removed = Vec::new();
        let mut behind_ms = 0;
        let mut never_fetched = true;
        for &r in self.committed_isr() {
            if r == ctx.me {
                continue;
            }
            let f = ls.followers.get(&r).cloned().unwrap_or_default();
            if !Self::is_caught_up(ctx, &f, leo, lag) {
                removed.push(r);
                behind_ms =
                    behind_ms.max(ctx.now.saturating_sub(f.caught_up_at(ctx.session_fetches).unwrap_or(0)));
                never_fetched &= f.last_fetch(ctx.session_fetches).is_none();
            }
        }
        if removed.is_empty() {
            return;
        }
        let isr = self.committed_isr().iter().copied().filter(|r| !removed.contains(r)).collect();
        self.propose(ctx, isr, IsrChange::Shrink { removed, behind_ms, never_fetched }, out);
    }

    /// What this follower asks its leader for, or `None` when it should not fetch now.
    pub fn fetch_request(&self, now: Ms) -> Option<(BrokerId, FetchPartition)> {
        let Role::Follower { leader: Some(leader), backoff_until } = self.role else { return None };
        if now < backoff_until || self.fetch_stopped {
            return None;
        }
        Some((
            leader,
            FetchPartition {
                tp: self.tp.clone(),
                topic_id: self.topic_id,
                current_leader_epoch: self.leader_epoch(),
                fetch_offset: self.log.leo(),
                last_fetched_epoch: self.log.latest_epoch(),
                log_start_offset: self.log.log_start(),
            },
        ))
    }

    /// Follower side of a fetch response (R2.9, R7.5–R7.6): append, learn the HW, or truncate
    /// on divergence. Errors back the partition off for `replica.fetch.backoff.ms`.
    pub fn on_fetch_response(
        &mut self,
        ctx: &Ctx,
        from: BrokerId,
        result: &Result<FetchedData, ErrorCode>,
        out: &mut Outbox,
    ) {
        if self.following() != Some(from) || self.fetch_stopped {
            return;
        }
        let data = match result {
            Ok(d) => d,
            Err(e @ (ErrorCode::UnknownTopicId | ErrorCode::InconsistentTopicId)) => {
                if self.topic_id_refused != Some(*e) {
                    self.topic_id_refused = Some(*e);
                    out.emit(EventKind::FetchTopicIdRefused {
                        broker: ctx.me,
                        leader: from,
                        tp: self.tp.clone(),
                        topic_id: self.topic_id,
                        error: *e,
                    });
                }
                return self.back_off(ctx);
            }
            Err(_) => return self.back_off(ctx),
        };
        self.topic_id_refused = None;
        if data.diverging_epoch.is_none() && data.log_start_offset > self.log.leo() {
            // The leader's retention deleted everything up to its log start, beyond this LEO
            // (a replica down for longer than retention.ms). Kafka's leader answers
            // OFFSET_OUT_OF_RANGE and the fetcher asks for the leader's earliest offset
            // (ListOffsets), then empties its log to start there
            // (`AbstractFetcherThread.handleOutOfRangeError` → `fetchOffsetAndTruncate` →
            // `truncateFullyAndStartAt`). isrlab's response carries that log start, sparing
            // the extra round trip.
            self.log.truncate_fully_and_start_at(data.log_start_offset);
            return;
        }
        if let Some(div) = data.diverging_epoch {
            let from_leo = self.log.leo();
            let epochs_before = self.log.epoch_cache().len();
            let to = self.log.truncation_point(div);
            // Kept for the audit ledger and the dashboard before they go; only a truncation
            // pays for this copy.
            let removed: Vec<_> =
                if to < from_leo { self.log.batches_from(to).collect() } else { Vec::new() };
            self.log.truncate_to(to);
            if to >= from_leo {
                // Only a stale epoch entry went; with nothing changed, wait before asking again.
                if self.log.epoch_cache().len() == epochs_before {
                    self.back_off(ctx);
                }
                return;
            }
            out.emit(EventKind::Truncated {
                broker: ctx.me,
                tp: self.tp.clone(),
                from: from_leo,
                to,
                diverging_epoch: div.epoch,
                leader_end_offset: div.end_offset,
            });
            out.touched.push(self.tp.clone());
            let from = self.log.leo();
            out.truncations.push(Truncation {
                broker: ctx.me,
                tp: self.tp.clone(),
                from,
                count: u64::try_from(from_leo - from).unwrap_or(0),
                removed,
            });
            return;
        }
        let leo_before = self.log.leo();
        let appended = self.log.append_as_follower(&data.batches);
        if appended > 0 && self.log.written(ctx.now) {
            out.fsyncs += 1;
        }
        // `AbstractFetcherThread.processFetchRequest`: the lag is refreshed by a response that
        // brought records, or set by the first response.
        if appended > 0 || self.fetch_lag.is_none() {
            self.fetch_lag = Some((data.high_watermark - self.log.leo()).max(0));
        }
        // R2.9: the follower takes min(leader HW, own LEO) even when that is lower than the HW
        // it had (a new leader may not yet know the HW an older leader told it), as Kafka's
        // `ReplicaFetcherThread.processPartitionData` does via
        // `UnifiedLog.maybeUpdateHighWatermark` → `updateHighWatermark`. Only a leader's HW is
        // monotonic.
        self.log.set_hw(data.high_watermark);
        self.log.maybe_increment_log_start(data.log_start_offset);
        self.note_catch_up(ctx, from, leo_before, data.high_watermark, out);
    }

    fn back_off(&mut self, ctx: &Ctx) {
        if let Role::Follower { backoff_until, .. } = &mut self.role {
            *backoff_until = ctx.now + ctx.config.replica_fetch_backoff_ms;
        }
    }

    /// Clears an expired follower backoff; returns whether one ended.
    pub fn end_backoff(&mut self, now: Ms) -> bool {
        match &mut self.role {
            Role::Follower { backoff_until, .. } if *backoff_until > 0 && *backoff_until <= now => {
                *backoff_until = 0;
                true
            }
            _ => false,
        }
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

    /// Why the leader's HW cannot advance right now, in plain words; `None` if it can or
    /// this replica does not lead.
    pub fn hw_blocked_by(&self, ctx: &Ctx) -> Option<String> {
        let Role::Leader(_) = &self.role else { return None };
        if self.hw_frozen(ctx) {
            return Some(format!(
                "HW frozen: ISR [{}] is below min.insync.replicas={} (Kafka 3.7+ rule)",
                join_ids(self.committed_isr()),
                self.effective_min_isr(ctx)
            ));
        }
        Some(match self.hw_held_by()? {
            (r, None) => format!("HW waits for broker {r}'s first fetch from the new leader"),
            (r, Some(l)) => format!("HW waits for broker {r} (LEO {l}), still in the ISR"),
        })
    }

    /// The follower that holds the leader's HW below its LEO: the maximal-ISR member with the
    /// lowest LEO as the leader knows it (`None` = not fetched from this leader yet), R2.7
    /// (`Partition.maybeIncrementLeaderHW` takes the minimum over the maximal ISR). `None`
    /// when this replica does not lead or its HW equals its LEO.
    pub fn hw_held_by(&self) -> Option<(BrokerId, Option<Offset>)> {
        let Role::Leader(ls) = &self.role else { return None };
        if self.log.hw() >= self.log.leo() {
            return None;
        }
        let maximal = self.maximal_isr();
        let slowest = ls
            .followers
            .iter()
            .filter(|(r, _)| maximal.contains(r))
            .min_by_key(|(_, f)| f.leo.unwrap_or(-1))?;
        Some((*slowest.0, slowest.1.leo))
    }

    /// The acks=all produces parked at this leader (Kafka's produce purgatory of
    /// `DelayedProduce`s), one entry per producer in producer order; empty unless this
    /// replica leads and some wait. A parked produce completes when the HW passes its records
    /// (`DelayedProduce.tryComplete` → `Partition.checkEnoughReplicasReachOffset`), fails
    /// with NOT_LEADER_OR_FOLLOWER when the leadership goes, or expires with REQUEST_TIMED_OUT
    /// once the request's timeout (the producer's `request.timeout.ms`) has passed since it
    /// parked (`DelayedProduce.onExpiration`): one parked before the ISR shrank below
    /// `min.insync.replicas` waits out that timeout, as the HW is frozen meanwhile (3.7+).
    pub fn parked_produces(&self) -> Vec<ParkedProduces> {
        let Role::Leader(ls) = &self.role else { return Vec::new() };
        let mut out: Vec<ParkedProduces> = Vec::new();
        for d in &ls.delayed {
            let records = u64::try_from(d.required_offset - d.base_offset).unwrap_or(0);
            let since = d.deadline.saturating_sub(d.timeout_ms);
            match out.iter_mut().find(|p| p.producer == d.producer) {
                Some(p) => {
                    p.requests += 1;
                    p.records += records;
                    p.since = p.since.min(since);
                    if d.deadline < p.first_deadline {
                        (p.first_deadline, p.timeout_ms) = (d.deadline, d.timeout_ms);
                    }
                }
                None => out.push(ParkedProduces {
                    producer: d.producer,
                    requests: 1,
                    records,
                    since,
                    first_deadline: d.deadline,
                    timeout_ms: d.timeout_ms,
                }),
            }
        }
        out.sort_by_key(|p| p.producer);
        out
    }

    /// The leader's unanswered ISR proposal, in words.
    pub fn pending_isr(&self) -> Option<String> {
        let Role::Leader(LeaderState { pending: Some(p), .. }) = &self.role else { return None };
        let what = match &p.change {
            IsrChange::Expand(r) => format!("adding {r}"),
            IsrChange::Shrink { removed, .. } => format!("removing {}", join_ids(removed)),
        };
        Some(format!("AlterPartition ISR [{}] ({what}) awaiting the controller", join_ids(&p.isr)))
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
        NodeId::Producer(producer),
        Message::ProduceResponse(ProduceResponse { correlation_id, tp: tp.clone(), result, error_message }),
    );
}

mod coordinator_append;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::protocol::{Batch, FetchedData, Values};

    struct Fixture {
        config: BrokerConfig,
        topic: TopicConfig,
        brokers: BTreeMap<BrokerId, BrokerRegistration>,
        session_fetches: SessionFetchTimes,
    }

    impl Fixture {
        fn new(min_isr: u32) -> Self {
            let brokers = [1, 2, 3]
                .into_iter()
                .map(|id| {
                    (
                        id,
                        BrokerRegistration {
                            id,
                            broker_epoch: 1,
                            fenced: false,
                            in_controlled_shutdown: false,
                        },
                    )
                })
                .collect();
            let topic = TopicConfig { min_insync_replicas: Some(min_isr), ..Default::default() };
            Self {
                config: BrokerConfig::default(),
                topic,
                brokers,
                session_fetches: SessionFetchTimes::default(),
            }
        }

        fn ctx(&self, me: BrokerId, now: Ms) -> Ctx<'_> {
            Ctx {
                now,
                me,
                broker_epoch: 1,
                config: &self.config,
                topic: &self.topic,
                brokers: &self.brokers,
                next_isr_check: 0,
                session_fetches: &self.session_fetches,
            }
        }
    }

    fn state(
        leader: Option<BrokerId>,
        isr: &[BrokerId],
        leader_epoch: Epoch,
        partition_epoch: Epoch,
    ) -> PartitionState {
        PartitionState {
            topic_id: crate::sim::TopicId::from_bits(7),
            tp: TopicPartition::new("t", 0),
            replicas: vec![1, 2, 3],
            isr: isr.to_vec(),
            leader,
            leader_epoch,
            partition_epoch,
            leader_recovery: LeaderRecoveryState::Recovered,
            adding: Vec::new(),
            removing: Vec::new(),
        }
    }

    fn leader(f: &Fixture) -> Partition {
        let mut p = Partition::new(TopicPartition::new("t", 0), PartitionLog::new());
        p.apply_state(&f.ctx(1, 0), &state(Some(1), &[1, 2, 3], 0, 0), &mut Outbox::default());
        p
    }

    fn produce(p: &mut Partition, f: &Fixture, now: Ms, n: u64, acks: Acks) -> Outbox {
        let mut out = Outbox::default();
        let req = ProduceRequest {
            correlation_id: now,
            producer: 0,
            tp: p.tp.clone(),
            acks,
            timeout_ms: 30_000,
            batch: Batch {
                producer_id: -1,
                base_sequence: -1,
                values: (0..n).collect(),
                record_size: 100,
                max_timestamp: now,
            },
        };
        p.on_produce(&f.ctx(1, now), &req, &mut out);
        out
    }

    fn fetch(
        p: &mut Partition,
        f: &Fixture,
        now: Ms,
        replica: BrokerId,
        offset: Offset,
    ) -> (FetchedData, Outbox) {
        let mut out = Outbox::default();
        let fp = FetchPartition {
            topic_id: TopicId::ZERO,
            tp: p.tp.clone(),
            current_leader_epoch: 0,
            fetch_offset: offset,
            last_fetched_epoch: (offset > 0).then_some(0),
            log_start_offset: 0,
        };
        let r = p.on_follower_fetch(&f.ctx(1, now), replica, 1, &fp, &mut out);
        (r.expect("fetch served"), out)
    }

    fn responses(out: &Outbox) -> Vec<Result<(Offset, Epoch), ErrorCode>> {
        out.sends
            .iter()
            .filter_map(|(_, m)| match m {
                Message::ProduceResponse(r) => Some(r.result),
                _ => None,
            })
            .collect()
    }

    /// S2: the HW moves only when every ISR follower's next fetch reports the record, and the
    /// acks=all produce completes then (two-round commit, R3.7).
    #[test]
    fn hw_advances_after_every_isr_follower_fetched_past_the_record() {
        let f = Fixture::new(2);
        let mut p = leader(&f);
        let out = produce(&mut p, &f, 10, 1, Acks::All);
        assert!(responses(&out).is_empty(), "acks=all waits");
        let (data, _) = fetch(&mut p, &f, 11, 2, 0);
        assert_eq!(data.batches.len(), 1);
        fetch(&mut p, &f, 11, 3, 0);
        assert_eq!(p.log.hw(), 0);
        let (_, out) = fetch(&mut p, &f, 12, 2, 1);
        assert_eq!(p.log.hw(), 0, "broker 3 still in the ISR at LEO 0");
        assert!(responses(&out).is_empty());
        let (data, out) = fetch(&mut p, &f, 12, 3, 1);
        assert_eq!(p.log.hw(), 1);
        assert_eq!(data.high_watermark, 1);
        assert_eq!(responses(&out), vec![Ok((0, 0))]);
    }

    #[test]
    fn acks_all_is_refused_below_min_isr_and_nothing_is_appended() {
        let f = Fixture::new(2);
        let mut p = Partition::new(TopicPartition::new("t", 0), PartitionLog::new());
        p.apply_state(&f.ctx(1, 0), &state(Some(1), &[1], 0, 0), &mut Outbox::default());
        let out = produce(&mut p, &f, 5, 3, Acks::All);
        assert_eq!(responses(&out), vec![Err(ErrorCode::NotEnoughReplicas)]);
        assert_eq!(p.log.leo(), 0);
        // acks=1 is appended but the HW stays frozen under min ISR (R3.3 step 1, Kafka 3.7+).
        let out = produce(&mut p, &f, 6, 3, Acks::One);
        assert_eq!(responses(&out), vec![Ok((0, 0))]);
        assert_eq!((p.log.leo(), p.log.hw()), (3, 0));
        assert!(p.hw_blocked_by(&f.ctx(1, 6)).unwrap().contains("min.insync.replicas=2"));
    }

    /// Without strict min ISR (before KAFKA-15583, Kafka 3.7) the same acks=1 append commits:
    /// the rule is read from the semantics, not hard-coded.
    #[test]
    fn the_hw_freeze_under_min_isr_follows_the_semantics() {
        let mut f = Fixture::new(2);
        f.config.semantics.strict_min_isr = false;
        let mut p = Partition::new(TopicPartition::new("t", 0), PartitionLog::new());
        p.apply_state(&f.ctx(1, 0), &state(Some(1), &[1], 0, 0), &mut Outbox::default());
        produce(&mut p, &f, 6, 3, Acks::One);
        assert_eq!((p.log.leo(), p.log.hw()), (3, 3));
        assert_eq!(p.hw_blocked_by(&f.ctx(1, 6)), None);
    }

    #[test]
    fn parked_produce_times_out_with_request_timed_out() {
        let f = Fixture::new(1);
        let mut p = leader(&f);
        produce(&mut p, &f, 0, 1, Acks::All);
        assert_eq!(p.next_deadline(), Some(30_000));
        let mut out = Outbox::default();
        p.expire_delayed(30_000, &mut out);
        assert_eq!(responses(&out), vec![Err(ErrorCode::RequestTimedOut)]);
    }

    /// R4.1/R4.2: a follower not caught up for more than replica.lag.time.max.ms is proposed
    /// for removal; the committed change is reported with the lag.
    #[test]
    fn lagging_follower_is_shrunk_out_of_the_isr() {
        let f = Fixture::new(1);
        let mut p = leader(&f);
        fetch(&mut p, &f, 500, 3, 0);
        produce(&mut p, &f, 1_000, 1, Acks::One);
        fetch(&mut p, &f, 1_001, 2, 0);
        fetch(&mut p, &f, 1_002, 2, 1);
        let mut out = Outbox::default();
        p.maybe_shrink_isr(&f.ctx(1, 30_000), &mut out);
        assert!(out.sends.is_empty(), "broker 3 was caught up at 500 ms, within 30 s");
        fetch(&mut p, &f, 31_000, 2, 1);
        p.maybe_shrink_isr(&f.ctx(1, 31_000), &mut out);
        let proposed = out.sends.iter().find_map(|(_, m)| match m {
            Message::AlterPartition { new_isr, .. } => Some(new_isr.iter().map(|m| m.id).collect::<Vec<_>>()),
            _ => None,
        });
        assert_eq!(proposed, Some(vec![1, 2]));
        assert!(p.pending_isr().unwrap().contains("removing 3"));
        let mut out = Outbox::default();
        p.on_alter_partition_response(&f.ctx(1, 31_001), &Ok(state(Some(1), &[1, 2], 0, 1)), &mut out);
        assert!(matches!(
            &out.events[..],
            [EventKind::IsrShrunk { removed, cause: ShrinkCause::Lagging { behind_ms: 30_500, limit_ms: 30_000 }, .. }] if removed == &vec![3]
        ));
        assert_eq!(p.log.hw(), 1, "HW jumps once 3 is gone");
    }

    /// R4.6: a returning follower is proposed for the ISR once its LEO reaches the HW; while
    /// pending it already counts in the maximal ISR (R4.7).
    #[test]
    fn caught_up_follower_is_expanded_into_the_isr() {
        let f = Fixture::new(1);
        let mut p = Partition::new(TopicPartition::new("t", 0), PartitionLog::new());
        p.apply_state(&f.ctx(1, 0), &state(Some(1), &[1, 2], 0, 0), &mut Outbox::default());
        produce(&mut p, &f, 1, 4, Acks::One);
        fetch(&mut p, &f, 2, 2, 4);
        assert_eq!(p.log.hw(), 4);
        let (_, out) = fetch(&mut p, &f, 3, 3, 2);
        assert!(out.sends.is_empty(), "LEO 2 is below the HW 4");
        let (_, out) = fetch(&mut p, &f, 4, 3, 4);
        assert!(matches!(&out.sends[..], [(NodeId::Controller, Message::AlterPartition { .. })]));
        assert_eq!(p.maximal_isr(), vec![1, 2, 3]);
        let mut out = Outbox::default();
        p.apply_state(&f.ctx(1, 5), &state(Some(1), &[1, 2, 3], 0, 1), &mut out);
        assert!(matches!(&out.events[..], [EventKind::IsrExpanded { added: 3, .. }]));
    }

    /// R2.10: a new leader knows no follower LEO, so its HW waits for every ISR follower's
    /// first fetch; R7.6: a follower with a dead epoch's tail learns where to truncate.
    #[test]
    fn new_leader_waits_for_followers_and_reports_divergence() {
        let f = Fixture::new(1);
        let mut old = leader(&f);
        produce(&mut old, &f, 1, 3, Acks::One);
        produce(&mut old, &f, 2, 2, Acks::One);
        let mut p = Partition::new(TopicPartition::new("t", 0), PartitionLog::new());
        p.log.append_as_follower(&old.log.read(0, u64::MAX)[..1]);
        p.apply_state(&f.ctx(2, 10), &state(Some(2), &[2, 3], 1, 1), &mut Outbox::default());
        let mut out = Outbox::default();
        produce_as(&mut p, &f, 2, 11, &mut out);
        assert_eq!(p.log.hw(), 0);
        assert!(p.hw_blocked_by(&f.ctx(2, 11)).unwrap().contains("first fetch"));
        let fp = FetchPartition {
            topic_id: TopicId::ZERO,
            tp: p.tp.clone(),
            current_leader_epoch: 1,
            fetch_offset: 5,
            last_fetched_epoch: Some(0),
            log_start_offset: 0,
        };
        let r = p.on_follower_fetch(&f.ctx(2, 12), 1, 1, &fp, &mut out).unwrap();
        assert_eq!(r.diverging_epoch, Some(crate::sim::protocol::EpochEndOffset { epoch: 0, end_offset: 3 }));
        // A follower still on an older leader epoch is fenced (KIP-320).
        let stale = FetchPartition { current_leader_epoch: 0, ..fp };
        assert_eq!(
            p.on_follower_fetch(&f.ctx(2, 12), 3, 1, &stale, &mut out),
            Err(ErrorCode::FencedLeaderEpoch)
        );
    }

    fn produce_as(p: &mut Partition, f: &Fixture, me: BrokerId, now: Ms, out: &mut Outbox) {
        let req = ProduceRequest {
            correlation_id: 1,
            producer: 0,
            tp: p.tp.clone(),
            acks: Acks::One,
            timeout_ms: 30_000,
            batch: Batch {
                producer_id: -1,
                base_sequence: -1,
                values: Values::range(99, 1),
                record_size: 100,
                max_timestamp: now,
            },
        };
        p.on_produce(&f.ctx(me, now), &req, out);
    }

    /// A follower that never fetched from a newly elected leader is removed by the lag rule too,
    /// counted from the election (R2.10), and the event says so.
    #[test]
    fn follower_silent_since_the_election_is_named_as_such() {
        let f = Fixture::new(1);
        let mut p = leader(&f);
        produce(&mut p, &f, 1_000, 1, Acks::One);
        fetch(&mut p, &f, 1_001, 2, 1);
        let mut out = Outbox::default();
        p.maybe_shrink_isr(&f.ctx(1, 31_000), &mut out);
        let mut out = Outbox::default();
        p.on_alter_partition_response(&f.ctx(1, 31_001), &Ok(state(Some(1), &[1, 2], 0, 1)), &mut out);
        let text = out.events[0].to_string();
        assert!(text.contains("has not fetched from this leader since it took over 31 000 ms ago"), "{text}");
    }

    /// R4.2: the expiration task runs every lag/2, so removal lands between 1× and 1.5× the
    /// lag after the last caught-up moment.
    #[test]
    fn isr_removal_waits_for_the_next_expiration_check() {
        assert_eq!(isr_removal_in(10_000, Some(0), 30_000, 15_000), 35_000);
        assert_eq!(isr_removal_in(40_000, Some(0), 30_000, 45_000), 5_000);
        assert_eq!(isr_removal_in(20_000, Some(14_000), 30_000, 30_000), 25_000);
    }

    /// R2.9 (`UnifiedLog.updateHighWatermark`): a follower takes min(leader HW, own LEO) from
    /// every fetch response, also when that is lower than its HW. Kafka's PartitionTest has the
    /// follower-side twin of this in its fetcher tests; here: a follower that learned HW 5 from
    /// one leader follows a new leader whose HW is 3, then one that claims more than it holds.
    #[test]
    fn follower_hw_follows_the_leader_down_and_is_capped_by_its_leo() {
        let f = Fixture::new(1);
        let mut source = leader(&f);
        produce(&mut source, &f, 1, 5, Acks::One);
        let records = source.log.read(0, u64::MAX);
        let mut p = Partition::new(TopicPartition::new("t", 0), PartitionLog::new());
        p.apply_state(&f.ctx(2, 2), &state(Some(1), &[1, 2, 3], 0, 0), &mut Outbox::default());
        let data = |hw, batches: Vec<_>| {
            Ok(FetchedData { high_watermark: hw, log_start_offset: 0, diverging_epoch: None, batches })
        };
        let mut out = Outbox::default();
        p.on_fetch_response(&f.ctx(2, 3), 1, &data(5, records), &mut out);
        assert_eq!((p.log.leo(), p.log.hw()), (5, 5));
        // Broker 3 takes over knowing only HW 3: the follower's HW goes back to 3.
        p.apply_state(&f.ctx(2, 4), &state(Some(3), &[3, 2], 1, 1), &mut Outbox::default());
        p.on_fetch_response(&f.ctx(2, 5), 3, &data(3, Vec::new()), &mut out);
        assert_eq!(p.log.hw(), 3, "lower than before, as the leader says");
        // A leader HW past the follower's LEO is capped at the LEO.
        p.on_fetch_response(&f.ctx(2, 6), 3, &data(9, Vec::new()), &mut out);
        assert_eq!(p.log.hw(), 5);
    }

    /// `Partition.appendRecordsToLeader` recomputes the HW after every append, an idempotent
    /// duplicate included, and the purgatory then completes what the new HW satisfies. Here a
    /// follower outside the ISR that was caught up holds the HW back (R3.3); once it no longer
    /// counts, the producer's retry of the parked batch is found to be a duplicate, and that
    /// append moves the HW: the parked original and the retry both succeed.
    #[test]
    fn duplicate_append_recomputes_the_hw_and_completes_parked_produces() {
        let f = Fixture::new(1);
        let mut p = Partition::new(TopicPartition::new("t", 0), PartitionLog::new());
        p.apply_state(&f.ctx(1, 0), &state(Some(1), &[1], 0, 0), &mut Outbox::default());
        fetch(&mut p, &f, 0, 2, 0);
        let refused = Err(ErrorCode::IneligibleReplica);
        p.on_alter_partition_response(&f.ctx(1, 0), &refused, &mut Outbox::default());
        let req = |correlation_id| ProduceRequest {
            correlation_id,
            producer: 0,
            tp: p.tp.clone(),
            acks: Acks::All,
            timeout_ms: 60_000,
            batch: Batch {
                producer_id: 7,
                base_sequence: 0,
                values: Values::range(42, 1),
                record_size: 100,
                max_timestamp: 0,
            },
        };
        let (first, retry) = (req(1), req(2));
        let mut out = Outbox::default();
        assert!(p.on_produce(&f.ctx(1, 1), &first, &mut out));
        assert_eq!(p.log.hw(), 0, "broker 2 was caught up at 0 ms and still counts");
        assert!(responses(&out).is_empty());
        let mut out = Outbox::default();
        assert!(!p.on_produce(&f.ctx(1, 40_000), &retry, &mut out), "a duplicate appends nothing");
        assert_eq!((p.log.leo(), p.log.hw()), (1, 1));
        assert_eq!(responses(&out), vec![Ok((0, 0)), Ok((0, 0))]);
    }

    #[test]
    fn demoted_leader_fails_parked_produces_with_not_leader() {
        let f = Fixture::new(1);
        let mut p = leader(&f);
        produce(&mut p, &f, 1, 1, Acks::All);
        let mut out = Outbox::default();
        p.apply_state(&f.ctx(1, 2), &state(Some(2), &[2, 3], 1, 1), &mut out);
        assert_eq!(responses(&out), vec![Err(ErrorCode::NotLeaderOrFollower)]);
        assert_eq!(p.following(), Some(2));
    }

    /// R3.8, R3.9: a new leader whose HW (0, learnt as a follower) lags its epoch's start
    /// offset (3) answers a consumer's ListOffsets for the latest offset with
    /// OFFSET_NOT_AVAILABLE (`Partition.fetchOffsetForTimestamp`), gives the earliest, and
    /// serves a consumer fetch nothing at or above its HW; above its LEO is out of range, and
    /// an older epoch is fenced. OffsetsForLeaderEpoch answers where epoch 0 ends here.
    #[test]
    fn a_new_leader_serves_consumers_only_below_its_hw() {
        let f = Fixture::new(1);
        let mut old = leader(&f);
        produce(&mut old, &f, 1, 3, Acks::One);
        let mut p = Partition::new(TopicPartition::new("t", 0), PartitionLog::new());
        p.log.append_as_follower(&old.log.read(0, u64::MAX));
        p.apply_state(&f.ctx(2, 10), &state(Some(2), &[2, 3], 1, 1), &mut Outbox::default());
        assert_eq!((p.log.hw(), p.log.leo()), (0, 3));
        use crate::sim::protocol::{EpochEndOffset, OffsetSpec};
        assert_eq!(p.list_offset(1, OffsetSpec::Latest), Err(ErrorCode::OffsetNotAvailable));
        assert_eq!(p.list_offset(1, OffsetSpec::Earliest), Ok((0, 0)));
        assert_eq!(p.list_offset(0, OffsetSpec::Earliest), Err(ErrorCode::FencedLeaderEpoch));
        let tp = p.tp.clone();
        let at = |fetch_offset, current_leader_epoch| FetchPartition {
            topic_id: TopicId::ZERO,
            tp: tp.clone(),
            current_leader_epoch,
            fetch_offset,
            last_fetched_epoch: None,
            log_start_offset: -1,
        };
        assert!(p.read_for_consumer(&at(0, 1), 1 << 20).unwrap().batches.is_empty(), "HW 0");
        assert!(p.read_for_consumer(&at(3, 1), 1 << 20).unwrap().batches.is_empty(), "at the LEO");
        assert_eq!(p.read_for_consumer(&at(4, 1), 1 << 20), Err(ErrorCode::OffsetOutOfRange));
        assert_eq!(p.read_for_consumer(&at(0, 0), 1 << 20), Err(ErrorCode::FencedLeaderEpoch));
        assert_eq!(p.read_for_consumer(&at(0, 2), 1 << 20), Err(ErrorCode::UnknownLeaderEpoch));
        assert_eq!(p.end_offset_for_consumer(1, 0), Ok(EpochEndOffset { epoch: 0, end_offset: 3 }));
        assert_eq!(p.end_offset_for_consumer(1, 5), Ok(EpochEndOffset { epoch: -1, end_offset: -1 }));
        // Once the follower caught up the HW moves, and the records below it are served.
        fetch_as(&mut p, &f, 3, 3);
        assert_eq!(p.log.hw(), 3);
        assert_eq!(p.list_offset(1, OffsetSpec::Latest), Ok((3, 1)));
        assert_eq!(p.read_for_consumer(&at(0, 1), 1 << 20).unwrap().batches.len(), 1);
    }

    fn fetch_as(p: &mut Partition, f: &Fixture, replica: BrokerId, offset: Offset) {
        let fp = FetchPartition {
            topic_id: TopicId::ZERO,
            tp: p.tp.clone(),
            current_leader_epoch: 1,
            fetch_offset: offset,
            last_fetched_epoch: Some(0),
            log_start_offset: 0,
        };
        p.on_follower_fetch(&f.ctx(2, 20), replica, 1, &fp, &mut Outbox::default()).unwrap();
    }
}
