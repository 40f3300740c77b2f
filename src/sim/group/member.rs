//! A consumer's membership in a classic group, sans-IO: the Java consumer's
//! `AbstractCoordinator` (coordinator discovery, JoinGroup, SyncGroup, the heartbeat thread,
//! LeaveGroup) and `ConsumerCoordinator` (running the assignor as leader, revoking partitions
//! eagerly or cooperatively, fetching committed offsets for new partitions, auto-commit).
//!
//! The consumer node owns one [`GroupMember`]. It tells the member where it is
//! ([`GroupMember::set_position`]) and which partitions the subscribed topics have
//! ([`GroupMember::set_metadata`]); the member tells it, through [`MemberOutbox::started`] and
//! [`MemberOutbox::revoked`], which partitions to fetch from which offset (the committed one,
//! or `None`: reset by `auto.offset.reset`) and which to stop fetching. Commits go through
//! [`GroupMember::commit`] (auto-commit calls it every `auto.commit.interval.ms`).
//!
//! Not modelled: `max.poll.interval.ms` expiry (the simulated application polls all the
//! time), static membership, the consumer (KIP-848) protocol, synchronous commit retries.

use super::super::{BrokerId, Ms, TopicPartition};
use super::assignor::Assignor;
use super::event::GroupEvent;
use super::messages::{GroupId, GroupRequest, GroupResponse, JoinResponse, MemberId, Subscription};
use crate::kafka::errors::ErrorCode;
use crate::sim::consumer::OffsetAndEpoch;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Extra time a JoinGroup may take beyond the rebalance timeout before the client gives up
/// (ms): `AbstractCoordinator.JOIN_GROUP_TIMEOUT_LAPSE`.
pub const JOIN_GROUP_TIMEOUT_LAPSE_MS: Ms = 5000;

/// A consumer's group settings (Java consumer config names and defaults).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct MemberConfig {
    /// `group.id`.
    pub group: GroupId,
    /// `client.id` (Kafka's default is `consumer-<group>-<n>`).
    pub client_id: Arc<str>,
    /// Subscribed topics.
    pub topics: Vec<Arc<str>>,
    /// `partition.assignment.strategy`, in preference order (Kafka 4.x default: `range`,
    /// `cooperative-sticky`, which runs the eager protocol since `range` is eager).
    pub assignors: Vec<Assignor>,
    /// `session.timeout.ms` (45000).
    pub session_timeout_ms: Ms,
    /// `heartbeat.interval.ms` (3000).
    pub heartbeat_interval_ms: Ms,
    /// `max.poll.interval.ms` (300000), sent as the rebalance timeout.
    pub max_poll_interval_ms: Ms,
    /// `enable.auto.commit` (true): commit before every rebalance and on close.
    pub enable_auto_commit: bool,
    /// Whether the member runs the `auto.commit.interval.ms` timer itself (true); false when
    /// the consumer drives it and calls [`GroupMember::commit`].
    pub auto_commit_timer: bool,
    /// `auto.commit.interval.ms` (5000).
    pub auto_commit_interval_ms: Ms,
    /// `retry.backoff.ms` (100).
    pub retry_backoff_ms: Ms,
    /// `request.timeout.ms` (30000).
    pub request_timeout_ms: Ms,
}

impl MemberConfig {
    /// Kafka's defaults for a member of `group` subscribed to `topics`.
    pub fn new(group: &str, client_id: &str, topics: Vec<Arc<str>>) -> Self {
        Self {
            group: group.into(),
            client_id: client_id.into(),
            topics,
            assignors: vec![Assignor::Range, Assignor::CooperativeSticky],
            session_timeout_ms: 45_000,
            heartbeat_interval_ms: 3000,
            max_poll_interval_ms: 300_000,
            enable_auto_commit: true,
            auto_commit_timer: true,
            auto_commit_interval_ms: 5000,
            retry_backoff_ms: 100,
            request_timeout_ms: 30_000,
        }
    }

    /// Whether the group runs the cooperative protocol: only when every configured assignor
    /// supports it (`ConsumerCoordinator` picks the highest protocol all assignors share).
    pub fn cooperative(&self) -> bool {
        !self.assignors.is_empty() && self.assignors.iter().all(|a| a.is_cooperative())
    }
}

/// The member's state (`AbstractCoordinator.MemberState`), plus a failed end state.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MemberState {
    /// Not in the group (before the first join, after leaving or losing membership).
    Unjoined,
    /// JoinGroup sent or about to be.
    PreparingRebalance,
    /// SyncGroup sent.
    CompletingRebalance,
    /// Has its partitions and heartbeats.
    Stable,
    /// A fatal error (`INVALID_SESSION_TIMEOUT`, `INCONSISTENT_GROUP_PROTOCOL`) stopped it.
    Failed(ErrorCode),
}

/// What the member wants done.
#[derive(Debug, Default)]
pub struct MemberOutbox {
    /// Requests: to the coordinator (`Some`) or to any broker (`None`: FindCoordinator).
    pub requests: Vec<(Option<BrokerId>, GroupRequest)>,
    /// Events for the event log.
    pub events: Vec<GroupEvent>,
    /// Partitions to start fetching, from the committed offset (`None`: nothing committed,
    /// reset by `auto.offset.reset`).
    pub started: Vec<(TopicPartition, Option<OffsetAndEpoch>)>,
    /// Partitions to stop fetching.
    pub revoked: Vec<TopicPartition>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
struct InFlight {
    find: Option<Ms>,
    join: Option<Ms>,
    sync: Option<Ms>,
    heartbeat: Option<Ms>,
    commit: Option<Ms>,
    fetch_offsets: Option<Ms>,
}

/// A consumer's group membership.
#[derive(Clone, Debug)]
pub struct GroupMember {
    config: MemberConfig,
    state: MemberState,
    coordinator: Option<BrokerId>,
    member_id: MemberId,
    generation: i32,
    rejoin_needed: bool,
    assigned: Vec<TopicPartition>,
    /// Assigned partitions whose committed offset the member has not fetched yet.
    unstarted: BTreeSet<TopicPartition>,
    /// Where each assigned partition starts, once its committed offset is known (`None`:
    /// nothing committed).
    starts: BTreeMap<TopicPartition, Option<OffsetAndEpoch>>,
    positions: BTreeMap<TopicPartition, OffsetAndEpoch>,
    committed: BTreeMap<TopicPartition, OffsetAndEpoch>,
    metadata: BTreeMap<Arc<str>, u32>,
    /// Partition counts the leader assigned from (`ConsumerCoordinator.assignmentSnapshot`).
    assigned_from: Option<BTreeMap<Arc<str>, u32>>,
    in_flight: InFlight,
    retry_at: Ms,
    next_heartbeat: Ms,
    last_heartbeat_ok: Ms,
    next_auto_commit: Ms,
    commit_error: Option<ErrorCode>,
    rebalances: u32,
}

impl GroupMember {
    /// A member that starts looking for its coordinator at `now`.
    pub fn new(config: MemberConfig, now: Ms) -> Self {
        let next_auto_commit = now + config.auto_commit_interval_ms;
        Self {
            config,
            state: MemberState::Unjoined,
            coordinator: None,
            member_id: "".into(),
            generation: -1,
            rejoin_needed: true,
            assigned: vec![],
            unstarted: BTreeSet::new(),
            starts: BTreeMap::new(),
            positions: BTreeMap::new(),
            committed: BTreeMap::new(),
            metadata: BTreeMap::new(),
            assigned_from: None,
            in_flight: InFlight::default(),
            retry_at: now,
            next_heartbeat: now,
            last_heartbeat_ok: now,
            next_auto_commit,
            commit_error: None,
            rebalances: 0,
        }
    }

    /// The settings.
    pub fn config(&self) -> &MemberConfig {
        &self.config
    }

    /// The member state.
    pub fn state(&self) -> MemberState {
        self.state
    }

    /// The coordinator it knows, if any.
    pub fn coordinator(&self) -> Option<BrokerId> {
        self.coordinator
    }

    /// Its member id (empty before the first join).
    pub fn member_id(&self) -> &MemberId {
        &self.member_id
    }

    /// Its generation (`-1` outside a generation).
    pub fn generation(&self) -> i32 {
        self.generation
    }

    /// Its partitions.
    pub fn assigned(&self) -> &[TopicPartition] {
        &self.assigned
    }

    /// Where assigned partition `tp` starts: `None` while its committed offset is being
    /// fetched, `Some(None)` when nothing is committed (`auto.offset.reset` decides),
    /// `Some(Some(offset))` at the committed offset.
    pub fn start(&self, tp: &TopicPartition) -> Option<Option<OffsetAndEpoch>> {
        self.starts.get(tp).copied()
    }

    /// The connection to `broker` broke: a coordinator there is lost
    /// (`AbstractCoordinator` marks the coordinator unknown on a disconnect).
    pub fn on_disconnected(&mut self, broker: BrokerId, out: &mut MemberOutbox) {
        if self.coordinator == Some(broker) {
            self.coordinator_unknown(ErrorCode::NetworkException.name(), out);
        }
    }

    /// Offsets the coordinator confirmed committing, per partition.
    pub fn committed(&self) -> &BTreeMap<TopicPartition, OffsetAndEpoch> {
        &self.committed
    }

    /// Completed rebalances this member took part in (SyncGroup answers received).
    pub fn rebalances(&self) -> u32 {
        self.rebalances
    }

    /// The consumer's position on `tp` (the next offset it will read).
    pub fn set_position(&mut self, tp: TopicPartition, position: OffsetAndEpoch) {
        self.positions.insert(tp, position);
    }

    /// Partition counts of the subscribed topics (from the consumer's metadata). A leader
    /// whose assignment was made from other counts asks for a rebalance
    /// (`ConsumerCoordinator.rejoinNeededOrPending`).
    pub fn set_metadata(&mut self, counts: BTreeMap<Arc<str>, u32>) {
        let subscribed: BTreeMap<Arc<str>, u32> =
            counts.into_iter().filter(|(t, _)| self.config.topics.contains(t)).collect();
        if self.assigned_from.as_ref().is_some_and(|before| *before != subscribed)
            && self.state == MemberState::Stable
        {
            self.rejoin_needed = true;
        }
        self.metadata = subscribed;
    }

    /// Commits the current positions of the assigned partitions (`commitAsync`); nothing when
    /// there is nothing to commit, no coordinator, or a rebalance is under way (Kafka fails
    /// such a commit locally with `RebalanceInProgressException`).
    pub fn commit(&mut self, now: Ms, out: &mut MemberOutbox) {
        let Some(coordinator) = self.coordinator else { return };
        if self.state != MemberState::Stable || self.in_flight.commit.is_some() {
            return;
        }
        let offsets: Vec<(TopicPartition, OffsetAndEpoch)> = self
            .assigned
            .iter()
            .filter_map(|tp| self.positions.get(tp).map(|o| (tp.clone(), *o)))
            .filter(|(tp, o)| self.committed.get(tp) != Some(o))
            .collect();
        if offsets.is_empty() {
            return;
        }
        self.in_flight.commit = Some(now + self.config.request_timeout_ms);
        let request = GroupRequest::Commit {
            group: self.config.group.clone(),
            member: self.member_id.clone(),
            generation: self.generation,
            offsets,
        };
        out.requests.push((Some(coordinator), request));
    }

    /// Leaves the group (`KafkaConsumer.close`): commits if auto-commit is on, gives its
    /// partitions up and sends LeaveGroup.
    pub fn close(&mut self, now: Ms, out: &mut MemberOutbox) {
        if self.config.enable_auto_commit {
            self.commit(now, out);
        }
        self.revoke(self.assigned.clone(), out);
        if let (Some(c), false) = (self.coordinator, self.member_id.is_empty()) {
            let request =
                GroupRequest::Leave { group: self.config.group.clone(), member: self.member_id.clone() };
            out.requests.push((Some(c), request));
        }
        self.reset_generation(true);
        self.rejoin_needed = false;
        self.state = MemberState::Unjoined;
        self.in_flight = InFlight { commit: self.in_flight.commit, ..InFlight::default() };
    }

    /// Whether the member is closed or failed (it sends nothing more).
    pub fn is_done(&self) -> bool {
        matches!(self.state, MemberState::Failed(_))
            || (self.state == MemberState::Unjoined && !self.rejoin_needed)
    }

    /// Handles a response from broker `from`.
    pub fn handle(&mut self, now: Ms, from: BrokerId, response: GroupResponse, out: &mut MemberOutbox) {
        if self.is_done() && !matches!(response, GroupResponse::Commit { .. }) {
            return;
        }
        match response {
            GroupResponse::FindCoordinator { error, coordinator, .. } => {
                self.in_flight.find = None;
                match (error, coordinator) {
                    (None, Some(b)) => {
                        self.coordinator = Some(b);
                        self.last_heartbeat_ok = now;
                        out.events.push(self.event_found(b));
                    }
                    _ => self.retry_at = now + self.config.retry_backoff_ms,
                }
            }
            _ if Some(from) != self.coordinator => {}
            GroupResponse::Join(j) => self.on_join(now, j, out),
            GroupResponse::Sync { error, assignment } => self.on_sync(now, error, assignment, out),
            GroupResponse::Heartbeat { error } => self.on_heartbeat(now, error, out),
            GroupResponse::Leave { .. } => {}
            GroupResponse::Commit { error, offsets } => self.on_commit(now, error, offsets, out),
            GroupResponse::FetchOffsets { error, offsets } => self.on_fetch_offsets(now, error, offsets, out),
        }
        self.on_tick(now, out);
    }

    /// Sends what is due: coordinator lookup, JoinGroup, heartbeats, auto-commits; and gives
    /// up on requests without an answer after `request.timeout.ms`.
    pub fn on_tick(&mut self, now: Ms, out: &mut MemberOutbox) {
        if self.is_done() {
            return;
        }
        self.expire_requests(now, out);
        if self.coordinator.is_some()
            && matches!(self.state, MemberState::Stable | MemberState::CompletingRebalance)
            && now >= self.last_heartbeat_ok + self.config.session_timeout_ms
        {
            self.coordinator_unknown("session timed out without receiving a heartbeat response", out);
        }
        let Some(coordinator) = self.coordinator else {
            if self.in_flight.find.is_none() && now >= self.retry_at {
                self.in_flight.find = Some(now + self.config.request_timeout_ms);
                out.requests.push((None, GroupRequest::FindCoordinator { group: self.config.group.clone() }));
            }
            return;
        };
        if self.state == MemberState::Stable && self.auto_commits() && now >= self.next_auto_commit {
            self.next_auto_commit = now + self.config.auto_commit_interval_ms;
            self.commit(now, out);
        }
        if self.rejoin_needed
            && self.in_flight.join.is_none()
            && self.in_flight.sync.is_none()
            && now >= self.retry_at
        {
            self.join(now, coordinator, out);
        }
        if self.state == MemberState::Stable
            && !self.unstarted.is_empty()
            && self.in_flight.fetch_offsets.is_none()
            && now >= self.retry_at
        {
            self.in_flight.fetch_offsets = Some(now + self.config.request_timeout_ms);
            let partitions = self.unstarted.iter().cloned().collect();
            out.requests.push((
                Some(coordinator),
                GroupRequest::FetchOffsets { group: self.config.group.clone(), partitions },
            ));
        }
        let heartbeating = matches!(self.state, MemberState::Stable | MemberState::CompletingRebalance);
        if heartbeating && self.in_flight.heartbeat.is_none() && now >= self.next_heartbeat {
            self.next_heartbeat = now + self.config.heartbeat_interval_ms;
            self.in_flight.heartbeat = Some(now + self.config.request_timeout_ms);
            let request = GroupRequest::Heartbeat {
                group: self.config.group.clone(),
                member: self.member_id.clone(),
                generation: self.generation,
            };
            out.requests.push((Some(coordinator), request));
        }
    }

    /// When [`Self::on_tick`] next has something to do (ms).
    pub fn next_deadline(&self) -> Option<Ms> {
        if self.is_done() {
            return None;
        }
        let f = self.in_flight;
        let requests = [f.find, f.join, f.sync, f.heartbeat, f.commit, f.fetch_offsets].into_iter().flatten();
        let mut due: Vec<Ms> = requests.collect();
        let stable = self.state == MemberState::Stable;
        let heartbeating = stable || self.state == MemberState::CompletingRebalance;
        if self.coordinator.is_none() {
            due.extend(f.find.is_none().then_some(self.retry_at));
        } else {
            let joining = self.rejoin_needed && f.join.is_none() && f.sync.is_none();
            let fetching = stable && !self.unstarted.is_empty() && f.fetch_offsets.is_none();
            due.extend((joining || fetching).then_some(self.retry_at));
            due.extend((heartbeating && f.heartbeat.is_none()).then_some(self.next_heartbeat));
            due.extend(heartbeating.then_some(self.last_heartbeat_ok + self.config.session_timeout_ms));
            due.extend((stable && self.auto_commits()).then_some(self.next_auto_commit));
        }
        due.into_iter().min()
    }

    fn auto_commits(&self) -> bool {
        self.config.enable_auto_commit && self.config.auto_commit_timer
    }

    fn event_found(&self, broker: BrokerId) -> GroupEvent {
        GroupEvent::CoordinatorFound {
            client: self.config.client_id.to_string(),
            group: self.config.group.clone(),
            broker,
        }
    }

    fn expire_requests(&mut self, now: Ms, out: &mut MemberOutbox) {
        let f = &mut self.in_flight;
        let late = |d: &mut Option<Ms>| d.take_if(|d| *d <= now).is_some();
        let find = late(&mut f.find);
        let coordinator_requests = [
            late(&mut f.join),
            late(&mut f.sync),
            late(&mut f.heartbeat),
            late(&mut f.commit),
            late(&mut f.fetch_offsets),
        ];
        if find {
            self.retry_at = now + self.config.retry_backoff_ms;
        }
        if coordinator_requests.contains(&true) {
            if self.state == MemberState::CompletingRebalance {
                self.rejoin_needed = true;
            }
            self.coordinator_unknown(ErrorCode::RequestTimedOut.name(), out);
        }
    }

    /// `markCoordinatorUnknown`: forget the coordinator and look it up again; requests in
    /// flight to it are abandoned.
    fn coordinator_unknown(&mut self, cause: &str, out: &mut MemberOutbox) {
        let Some(broker) = self.coordinator.take() else { return };
        self.in_flight = InFlight { find: self.in_flight.find, ..InFlight::default() };
        if matches!(self.state, MemberState::PreparingRebalance | MemberState::CompletingRebalance) {
            self.rejoin_needed = true;
        }
        out.events.push(GroupEvent::CoordinatorLost {
            client: self.config.client_id.to_string(),
            group: self.config.group.clone(),
            broker,
            cause: cause.to_string(),
        });
    }

    /// `onJoinPrepare` then JoinGroup: eager members give up every partition first, and a
    /// member whose generation was reset has lost its partitions (`onPartitionsLost`).
    fn join(&mut self, now: Ms, coordinator: BrokerId, out: &mut MemberOutbox) {
        if self.state == MemberState::Stable && self.config.enable_auto_commit {
            self.commit(now, out);
        }
        if !self.config.cooperative() || self.generation < 0 {
            self.revoke(self.assigned.clone(), out);
        }
        self.state = MemberState::PreparingRebalance;
        self.rejoin_needed = false;
        let subscription = Subscription {
            topics: self.config.topics.clone(),
            owned: self.assigned.clone(),
            generation: self.generation,
        };
        let protocols =
            self.config.assignors.iter().map(|a| (Arc::from(a.name()), subscription.clone())).collect();
        let timeout = (self.config.max_poll_interval_ms + JOIN_GROUP_TIMEOUT_LAPSE_MS)
            .max(self.config.request_timeout_ms);
        self.in_flight.join = Some(now + timeout);
        let request = GroupRequest::Join {
            group: self.config.group.clone(),
            member: self.member_id.clone(),
            client_id: self.config.client_id.clone(),
            session_timeout_ms: self.config.session_timeout_ms,
            rebalance_timeout_ms: self.config.max_poll_interval_ms,
            protocols,
        };
        out.requests.push((Some(coordinator), request));
    }

    fn revoke(&mut self, partitions: Vec<TopicPartition>, out: &mut MemberOutbox) {
        if partitions.is_empty() {
            return;
        }
        self.assigned.retain(|tp| !partitions.contains(tp));
        for tp in &partitions {
            self.positions.remove(tp);
            self.unstarted.remove(tp);
            self.starts.remove(tp);
        }
        out.events.push(GroupEvent::Revoked {
            client: self.config.client_id.to_string(),
            group: self.config.group.clone(),
            partitions: partitions.clone(),
        });
        out.revoked.extend(partitions);
    }

    /// `resetStateAndGeneration`; `member_too` also drops the member id (UNKNOWN_MEMBER_ID).
    fn reset_generation(&mut self, member_too: bool) {
        self.generation = -1;
        if member_too {
            self.member_id = "".into();
        }
        self.state = MemberState::Unjoined;
        self.rejoin_needed = true;
    }

    /// Errors every group response handles alike; true when handled.
    fn common_error(&mut self, now: Ms, error: ErrorCode, out: &mut MemberOutbox) -> bool {
        match error {
            ErrorCode::CoordinatorNotAvailable | ErrorCode::NotCoordinator => {
                self.coordinator_unknown(error.name(), out);
                self.retry_at = now + self.config.retry_backoff_ms;
            }
            ErrorCode::UnknownMemberId => self.reset_generation(true),
            ErrorCode::IllegalGeneration => self.reset_generation(false),
            ErrorCode::RebalanceInProgress => {
                self.rejoin_needed = true;
                if self.state != MemberState::Stable {
                    self.state = MemberState::PreparingRebalance;
                }
            }
            ErrorCode::InvalidSessionTimeout | ErrorCode::InconsistentGroupProtocol => {
                self.revoke(self.assigned.clone(), out);
                self.state = MemberState::Failed(error);
            }
            _ => return false,
        }
        true
    }

    fn on_join(&mut self, now: Ms, j: JoinResponse, out: &mut MemberOutbox) {
        if self.in_flight.join.take().is_none() {
            return;
        }
        match j.error {
            Some(ErrorCode::MemberIdRequired) => {
                self.member_id = j.member;
                self.rejoin_needed = true;
            }
            Some(e) => {
                if !self.common_error(now, e, out) {
                    self.rejoin_needed = true;
                    self.retry_at = now + self.config.retry_backoff_ms;
                }
                if self.state == MemberState::PreparingRebalance {
                    self.state = MemberState::Unjoined;
                }
            }
            None => self.sync(now, j, out),
        }
    }

    /// After a successful JoinGroup: the leader runs the chosen assignor, everyone sends
    /// SyncGroup (`onLeaderElected`, `sendSyncGroupRequest`).
    fn sync(&mut self, now: Ms, j: JoinResponse, out: &mut MemberOutbox) {
        self.member_id = j.member;
        self.generation = j.generation;
        self.state = MemberState::CompletingRebalance;
        self.last_heartbeat_ok = now;
        self.next_heartbeat = now + self.config.heartbeat_interval_ms;
        let mut assignments = vec![];
        if j.leader == self.member_id {
            let assignor = j.protocol.as_deref().and_then(Assignor::from_name).unwrap_or(Assignor::Range);
            let topics: BTreeSet<&Arc<str>> = j.members.iter().flat_map(|(_, s)| s.topics.iter()).collect();
            let counts: BTreeMap<Arc<str>, u32> =
                topics.into_iter().filter_map(|t| self.metadata.get(t).map(|n| (t.clone(), *n))).collect();
            self.assigned_from = Some(self.metadata.clone());
            assignments = assignor.assign(&counts, &j.members).into_iter().collect();
        } else {
            self.assigned_from = None;
        }
        let Some(coordinator) = self.coordinator else { return };
        self.in_flight.sync = Some(now + self.config.request_timeout_ms);
        let request = GroupRequest::Sync {
            group: self.config.group.clone(),
            member: self.member_id.clone(),
            generation: self.generation,
            assignments,
        };
        out.requests.push((Some(coordinator), request));
    }

    /// `onJoinComplete`: take the new assignment; a cooperative member revokes what it lost
    /// and rejoins at once if it revoked anything; new partitions need their committed offsets.
    fn on_sync(
        &mut self,
        now: Ms,
        error: Option<ErrorCode>,
        assignment: Vec<TopicPartition>,
        out: &mut MemberOutbox,
    ) {
        if self.in_flight.sync.take().is_none() {
            return;
        }
        if let Some(e) = error {
            if !self.common_error(now, e, out) {
                self.rejoin_needed = true;
            }
            return;
        }
        let lost: Vec<TopicPartition> =
            self.assigned.iter().filter(|tp| !assignment.contains(tp)).cloned().collect();
        let added: Vec<TopicPartition> =
            assignment.iter().filter(|tp| !self.assigned.contains(tp)).cloned().collect();
        self.revoke(lost.clone(), out);
        self.assigned = assignment;
        self.assigned.sort();
        self.state = MemberState::Stable;
        self.rebalances += 1;
        self.next_auto_commit = now + self.config.auto_commit_interval_ms;
        if self.config.cooperative() && !lost.is_empty() {
            self.rejoin_needed = true;
        }
        out.events.push(GroupEvent::Assigned {
            client: self.config.client_id.to_string(),
            group: self.config.group.clone(),
            generation: self.generation,
            partitions: self.assigned.clone(),
        });
        self.unstarted.extend(added);
    }

    fn on_heartbeat(&mut self, now: Ms, error: Option<ErrorCode>, out: &mut MemberOutbox) {
        if self.in_flight.heartbeat.take().is_none() {
            return;
        }
        match error {
            None => self.last_heartbeat_ok = now,
            Some(ErrorCode::RebalanceInProgress) => {
                self.last_heartbeat_ok = now;
                if self.state == MemberState::Stable {
                    self.rejoin_needed = true;
                }
            }
            Some(e) => {
                self.common_error(now, e, out);
            }
        }
    }

    fn on_commit(
        &mut self,
        now: Ms,
        error: Option<ErrorCode>,
        offsets: Vec<(TopicPartition, OffsetAndEpoch)>,
        out: &mut MemberOutbox,
    ) {
        self.in_flight.commit = None;
        let (client, group) = (self.config.client_id.to_string(), self.config.group.clone());
        match error {
            None => {
                self.committed.extend(offsets);
                if self.commit_error.take().is_some() {
                    out.events.push(GroupEvent::CommitRecovered { client, group });
                }
            }
            Some(e) => {
                if self.commit_error.replace(e) != Some(e) {
                    out.events.push(GroupEvent::CommitFailed { client, group, error: e });
                }
                if !self.is_done() && !self.common_error(now, e, out) {
                    self.retry_at = now + self.config.retry_backoff_ms;
                }
                self.next_auto_commit = self.next_auto_commit.min(now + self.config.retry_backoff_ms);
            }
        }
    }

    fn on_fetch_offsets(
        &mut self,
        now: Ms,
        error: Option<ErrorCode>,
        offsets: Vec<(TopicPartition, Option<OffsetAndEpoch>)>,
        out: &mut MemberOutbox,
    ) {
        if self.in_flight.fetch_offsets.take().is_none() {
            return;
        }
        if let Some(e) = error {
            // Asked again by on_tick once the member is stable with a coordinator.
            self.common_error(now, e, out);
            self.retry_at = self.retry_at.max(now + self.config.retry_backoff_ms);
            return;
        }
        for (tp, offset) in offsets.into_iter().filter(|(tp, _)| self.unstarted.remove(tp)) {
            match offset {
                Some(o) => {
                    self.positions.insert(tp.clone(), o);
                    self.committed.insert(tp.clone(), o);
                }
                // Nothing committed (any more: a deleted topic's offsets are tombstoned), so an
                // older commit it remembers must not stop it committing the same offset again.
                None => _ = self.committed.remove(&tp),
            }
            self.starts.insert(tp.clone(), offset);
            out.started.push((tp, offset));
        }
    }
}

#[cfg(test)]
mod tests;
