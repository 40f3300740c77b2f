//! The KRaft controller quorum's election and replication of the metadata log (KIP-595, with
//! the pre-vote of KIP-996), sans-IO: one voter's [`RaftState`], as Kafka's `KafkaRaftClient`
//! with its `QuorumState` keeps it. Its methods take the sim time and a message and write
//! messages and events to an [`Outbox`]; it draws its randomized election timeouts from its
//! own seeded generator, so equal inputs give equal outputs.
//!
//! What it models, each from the class named:
//! - roles: unattached, prospective (pre-vote, `ProspectiveState`, Kafka 4.1+), candidate
//!   (`CandidateState`), leader (`LeaderState`), follower (`FollowerState`), resigned
//!   (`ResignedState`);
//! - timers: a follower that has not fetched from its leader for
//!   `controller.quorum.fetch.timeout.ms` becomes prospective; a prospective or candidate voter
//!   whose randomized election timeout (`controller.quorum.election.timeout.ms` plus a random
//!   part below it, `QuorumState.randomElectionTimeoutMs`) runs out tries again, a candidate
//!   after a binary exponential backoff capped at `controller.quorum.election.backoff.max.ms`
//!   (`KafkaRaftClient.binaryExponentialElectionBackoffMs`); a leader that has not been fetched
//!   from by a majority for 1.5 × the fetch timeout resigns (`LeaderState`,
//!   `CHECK_QUORUM_TIMEOUT_FACTOR`);
//! - votes: granted to a candidate whose log is at least as long as the voter's, compared by
//!   last epoch then end offset (`ReplicatedLog`, `QuorumState.canGrantVote`), one vote per
//!   epoch; a pre-vote changes no epoch and a follower that still hears from its leader
//!   refuses it (`FollowerState.canGrantVote`);
//! - the log: followers pull it from the leader (`Fetch` with the offset and the epoch of
//!   their last record); the leader's high watermark is the offset a majority of voters have
//!   fetched, and moves only once a record of the leader's own epoch is replicated
//!   (`LeaderState.maybeUpdateHighWatermark`). A new leader appends a `LeaderChangeMessage`
//!   control record naming the voters that voted for it.
//!
//! Left out: voter changes (KIP-853), snapshots, and the leader's `EndQuorumEpoch` on a
//! graceful resignation (a crash sends nothing either).

use super::events::EventKind;
use super::protocol::{Message, NodeId};
use super::{Epoch, Ms, Outbox};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeMap, BTreeSet};

/// A controller's `node.id` (3000, 3001, …).
pub type VoterId = i32;

/// An offset in the metadata log (`__cluster_metadata`).
pub type MetaOffset = i64;

/// `controller.quorum.election.timeout.ms` default (`QuorumConfig`).
pub const ELECTION_TIMEOUT_MS: Ms = 1_000;
/// `controller.quorum.fetch.timeout.ms` default (`QuorumConfig`).
pub const FETCH_TIMEOUT_MS: Ms = 2_000;
/// `controller.quorum.election.backoff.max.ms` default (`QuorumConfig`).
pub const ELECTION_BACKOFF_MAX_MS: Ms = 1_000;
/// `controller.quorum.request.timeout.ms` default (`QuorumConfig`).
pub const REQUEST_TIMEOUT_MS: Ms = 2_000;
/// How long the leader holds a follower's Fetch when it has nothing new
/// (`KafkaRaftClient.FETCH_MAX_WAIT_MS`, 500 ms).
pub const FETCH_MAX_WAIT_MS: Ms = 500;
/// The base of the candidate's election backoff (`KafkaRaftClient.RETRY_BACKOFF_BASE_MS`).
pub const RETRY_BACKOFF_BASE_MS: Ms = 100;
/// A leader resigns when a majority has not fetched for this many fetch timeouts
/// (`LeaderState.CHECK_QUORUM_TIMEOUT_FACTOR`, 1.5), in tenths.
const CHECK_QUORUM_TENTHS: Ms = 15;

/// The quorum's timeouts, by their Kafka property names (`QuorumConfig`), in ms.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct QuorumConfig {
    /// `controller.quorum.election.timeout.ms`.
    pub election_timeout_ms: Ms,
    /// `controller.quorum.fetch.timeout.ms`.
    pub fetch_timeout_ms: Ms,
    /// `controller.quorum.election.backoff.max.ms`.
    pub election_backoff_max_ms: Ms,
    /// `controller.quorum.request.timeout.ms`.
    pub request_timeout_ms: Ms,
}

impl Default for QuorumConfig {
    fn default() -> Self {
        QuorumConfig {
            election_timeout_ms: ELECTION_TIMEOUT_MS,
            fetch_timeout_ms: FETCH_TIMEOUT_MS,
            election_backoff_max_ms: ELECTION_BACKOFF_MAX_MS,
            request_timeout_ms: REQUEST_TIMEOUT_MS,
        }
    }
}

/// The voter's metadata log as the election compares it: where each epoch's records start and
/// where the log ends (Kafka's leader epoch cache over `__cluster_metadata`).
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct MetaLog {
    /// (epoch, first offset) per epoch that appended records, ascending.
    pub epochs: Vec<(Epoch, MetaOffset)>,
    /// The log end offset.
    pub end: MetaOffset,
}

impl MetaLog {
    /// The epoch of its last record (0 when empty).
    pub fn last_epoch(&self) -> Epoch {
        self.epochs.last().map_or(0, |e| e.0)
    }

    /// Appends one record batch of `epoch`.
    pub fn append(&mut self, epoch: Epoch) {
        if self.last_epoch() != epoch {
            self.epochs.push((epoch, self.end));
        }
        self.end += 1;
    }

    /// Whether this log holds the record before `offset` with epoch `epoch`: the follower's
    /// log up to `offset` matches this one (`KafkaRaftClient.validateOffsetAndEpoch`).
    pub fn matches(&self, offset: MetaOffset, epoch: Epoch) -> bool {
        if offset == 0 {
            return true;
        }
        if offset > self.end {
            return false;
        }
        let Some(i) = self.epochs.iter().position(|e| e.0 == epoch) else { return false };
        let start = self.epochs[i].1;
        let end = self.epochs.get(i + 1).map_or(self.end, |e| e.1);
        offset > start && offset <= end
    }

    /// `candidate` is at least as up to date as this log (last epoch, then end offset).
    pub fn is_behind_or_equal(&self, last_epoch: Epoch, end: MetaOffset) -> bool {
        (last_epoch, end) >= (self.last_epoch(), self.end)
    }
}

/// A voter's role (`QuorumState`'s states).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Role {
    /// No leader known in the current epoch (`UnattachedState`).
    Unattached,
    /// Asking for pre-votes without bumping the epoch (`ProspectiveState`, KIP-996).
    Prospective {
        /// Voters that granted (itself included).
        granted: BTreeSet<VoterId>,
    },
    /// Standing for election in the current epoch (`CandidateState`).
    Candidate {
        /// Voters that granted (itself included).
        granted: BTreeSet<VoterId>,
    },
    /// The leader of the current epoch: the active controller (`LeaderState`).
    Leader {
        /// Per other voter: the offset it last fetched from (what it has) and when (ms).
        fetched: BTreeMap<VoterId, (MetaOffset, Ms)>,
        /// Fetches held until new records come or [`FETCH_MAX_WAIT_MS`] passes: voter, since.
        parked: BTreeMap<VoterId, Ms>,
    },
    /// Following the leader of the current epoch (`FollowerState`).
    Follower {
        /// The leader.
        leader: VoterId,
        /// When its Fetch went out, if one is in flight.
        in_flight: Option<Ms>,
    },
    /// A leader that gave up leadership, waiting for the next election (`ResignedState`).
    Resigned,
}

/// One KRaft voter's election and log state (`KafkaRaftClient` + `QuorumState`), sans-IO.
#[derive(Clone, Debug)]
pub struct RaftState {
    id: VoterId,
    voters: Vec<VoterId>,
    config: QuorumConfig,
    /// The current epoch (persisted in `quorum-state`).
    epoch: Epoch,
    /// Whom it voted for in `epoch` (persisted).
    voted_for: Option<VoterId>,
    role: Role,
    log: MetaLog,
    /// The high watermark it knows: records below it are committed.
    high_watermark: MetaOffset,
    /// When its role's timer fires (ms): fetch timeout, election timeout, check quorum.
    deadline: Ms,
    /// When it last heard from a leader of its epoch (ms), for pre-votes.
    last_leader_contact: Option<Ms>,
    /// Failed elections in a row (the backoff's exponent).
    retries: u32,
    rng: ChaCha8Rng,
}

/// What a voter's step changed that its controller acts on.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Changes {
    /// It became the leader: the active controller takes over.
    pub became_leader: bool,
    /// It stopped being the leader.
    pub lost_leadership: bool,
    /// The high watermark moved.
    pub committed: bool,
    /// A fetch response replaced its log: it must copy the leader's state.
    pub replaced: bool,
}

/// A quorum message: KRaft's `Vote`, `BeginQuorumEpoch` and `Fetch` RPCs. The records a
/// fetch response carries travel beside it (the controller's state), see
/// [`super::quorum::ControllerNode`].
#[derive(Clone, PartialEq, Debug)]
pub enum RaftMessage {
    /// `VoteRequest` (a pre-vote when `pre_vote`).
    Vote {
        /// The epoch asked for (a pre-vote asks for `epoch + 1` without holding it).
        epoch: Epoch,
        /// Last epoch and end offset of the candidate's log.
        last_epoch: Epoch,
        /// End offset of the candidate's log.
        end: MetaOffset,
        /// KIP-996 pre-vote.
        pre_vote: bool,
    },
    /// `VoteResponse`.
    VoteResponse {
        /// The responder's epoch.
        epoch: Epoch,
        /// Granted.
        granted: bool,
        /// It answers a pre-vote.
        pre_vote: bool,
    },
    /// `BeginQuorumEpoch`: the new leader tells the voters.
    BeginQuorumEpoch {
        /// The new epoch.
        epoch: Epoch,
    },
    /// A follower's `Fetch` of the metadata log.
    Fetch {
        /// Its epoch.
        epoch: Epoch,
        /// Its log end offset.
        fetch_offset: MetaOffset,
        /// The epoch of its last record.
        last_fetched_epoch: Epoch,
    },
    /// The leader's answer.
    FetchResponse {
        /// The leader's epoch.
        epoch: Epoch,
        /// The leader's high watermark.
        high_watermark: MetaOffset,
        /// The leader's log, when the follower lacks records or diverged.
        log: Option<MetaLog>,
        /// The records themselves: the leader's controller state as of its log end, which the
        /// follower's controller takes as its own (attached by the controller node).
        state: Option<super::quorum::Replica>,
    },
}

impl RaftState {
    /// A voter of `voters` with an empty log, unattached in epoch 0; `rng` draws its election
    /// timeouts.
    pub fn new(id: VoterId, voters: &[VoterId], config: QuorumConfig, rng: ChaCha8Rng) -> Self {
        RaftState {
            id,
            voters: voters.to_vec(),
            config,
            epoch: 0,
            voted_for: None,
            role: Role::Unattached,
            log: MetaLog::default(),
            high_watermark: 0,
            deadline: 0,
            last_leader_contact: None,
            retries: 0,
            rng,
        }
    }

    /// Starts the run with `leader` elected in epoch 1 and the log holding its leader-change
    /// record, every voter caught up (the quorum formed before the run began).
    pub fn bootstrap(&mut self, now: Ms, leader: VoterId) {
        self.epoch = 1;
        self.voted_for = Some(leader);
        self.log = MetaLog { epochs: vec![(1, 0)], end: 1 };
        self.high_watermark = 1;
        self.retries = 0;
        if leader == self.id {
            self.become_leader_silently(now);
        } else {
            self.role = Role::Follower { leader, in_flight: None };
            self.last_leader_contact = Some(now);
            self.deadline = now + self.config.fetch_timeout_ms;
        }
    }

    /// Its node id.
    pub fn id(&self) -> VoterId {
        self.id
    }
    /// The voters.
    pub fn voters(&self) -> &[VoterId] {
        &self.voters
    }
    /// The current epoch.
    pub fn epoch(&self) -> Epoch {
        self.epoch
    }
    /// Its role.
    pub fn role(&self) -> &Role {
        &self.role
    }
    /// Whether it leads (is the active controller).
    pub fn is_leader(&self) -> bool {
        matches!(self.role, Role::Leader { .. })
    }
    /// The leader it knows in its epoch.
    pub fn leader(&self) -> Option<VoterId> {
        match self.role {
            Role::Leader { .. } => Some(self.id),
            Role::Follower { leader, .. } => Some(leader),
            _ => None,
        }
    }
    /// Its log.
    pub fn log(&self) -> &MetaLog {
        &self.log
    }
    /// The high watermark it knows.
    pub fn high_watermark(&self) -> MetaOffset {
        self.high_watermark
    }
    /// When [`Self::on_tick`] has work (ms).
    pub fn next_deadline(&self) -> Ms {
        match &self.role {
            Role::Leader { parked, .. } => {
                let wait = parked.values().map(|&t| t + FETCH_MAX_WAIT_MS).min();
                wait.map_or(self.deadline, |w| w.min(self.deadline))
            }
            // A follower with no fetch in flight sends one at once; one in flight is sent
            // again after `controller.quorum.request.timeout.ms`.
            Role::Follower { in_flight, .. } => {
                in_flight.map_or(0, |t| t + self.config.request_timeout_ms).min(self.deadline)
            }
            _ => self.deadline,
        }
    }

    fn majority(&self) -> usize {
        self.voters.len() / 2 + 1
    }

    fn others(&self) -> impl Iterator<Item = VoterId> + '_ {
        self.voters.iter().copied().filter(move |&v| v != self.id)
    }

    fn random_election_timeout(&mut self) -> Ms {
        let base = self.config.election_timeout_ms.max(1);
        base + self.rng.random_range(0..base)
    }

    /// Restarts the process: the epoch, the vote and the log survive on disk; it starts
    /// unattached with a fresh election timer (`QuorumState.initialize`).
    pub fn restart(&mut self, now: Ms) {
        self.role = Role::Unattached;
        self.last_leader_contact = None;
        self.retries = 0;
        self.deadline = now + self.random_election_timeout();
    }

    /// Appends one record batch (the active controller wrote records); only a leader appends.
    /// Returns the new log end offset.
    pub fn append(&mut self, now: Ms, out: &mut Outbox) -> MetaOffset {
        self.log.append(self.epoch);
        self.answer_parked(now, out);
        self.maybe_advance_hw();
        self.log.end
    }

    /// Fires its timer at `now`.
    pub fn on_tick(&mut self, now: Ms, out: &mut Outbox) -> Changes {
        let mut changes = Changes::default();
        if let Role::Leader { .. } = self.role {
            self.answer_parked(now, out);
        }
        if now < self.deadline {
            self.send_fetch(now, out);
            return changes;
        }
        match self.role.clone() {
            Role::Leader { fetched, .. } => {
                let limit = self.config.fetch_timeout_ms * CHECK_QUORUM_TENTHS / 10;
                let heard = 1 + fetched.values().filter(|&&(_, t)| now.saturating_sub(t) < limit).count();
                if heard >= self.majority() {
                    self.deadline = now + limit;
                } else {
                    out.emit(EventKind::ControllerResigned {
                        controller: self.id,
                        epoch: self.epoch,
                        silent_ms: limit,
                    });
                    self.role = Role::Resigned;
                    self.deadline = now + self.random_election_timeout();
                    changes.lost_leadership = true;
                }
            }
            Role::Follower { leader, .. } => {
                out.emit(EventKind::ControllerLostLeader {
                    controller: self.id,
                    leader,
                    epoch: self.epoch,
                    timeout_ms: self.config.fetch_timeout_ms,
                });
                self.start_pre_vote(now, out, &mut changes);
            }
            Role::Candidate { .. } => {
                self.retries += 1;
                let cap = self.config.election_backoff_max_ms;
                let spread = 2u64 << (self.retries - 1).min(20);
                let backoff = (RETRY_BACKOFF_BASE_MS * self.rng.random_range(0..spread)).min(cap);
                self.role = Role::Unattached;
                self.deadline = now + backoff;
            }
            Role::Unattached | Role::Resigned | Role::Prospective { .. } => {
                self.start_pre_vote(now, out, &mut changes)
            }
        }
        changes
    }

    /// Becomes prospective: asks every voter for a pre-vote (KIP-996); a single voter
    /// elects itself at once.
    fn start_pre_vote(&mut self, now: Ms, out: &mut Outbox, changes: &mut Changes) {
        self.role = Role::Prospective { granted: BTreeSet::from([self.id]) };
        self.deadline = now + self.random_election_timeout();
        if self.majority() <= 1 {
            self.start_election(now, out, changes);
            return;
        }
        for v in self.others().collect::<Vec<_>>() {
            let vote = RaftMessage::Vote {
                epoch: self.epoch + 1,
                last_epoch: self.log.last_epoch(),
                end: self.log.end,
                pre_vote: true,
            };
            out.send(NodeId::Controller(v), Message::Raft(Box::new(vote)));
        }
    }

    /// Becomes a candidate in the next epoch, votes for itself and asks the voters.
    fn start_election(&mut self, now: Ms, out: &mut Outbox, changes: &mut Changes) {
        self.epoch += 1;
        self.voted_for = Some(self.id);
        self.role = Role::Candidate { granted: BTreeSet::from([self.id]) };
        self.deadline = now + self.random_election_timeout();
        out.emit(EventKind::ControllerCandidate { controller: self.id, epoch: self.epoch });
        if self.majority() <= 1 {
            self.become_leader(now, vec![], out, changes);
            return;
        }
        for v in self.others().collect::<Vec<_>>() {
            let vote = RaftMessage::Vote {
                epoch: self.epoch,
                last_epoch: self.log.last_epoch(),
                end: self.log.end,
                pre_vote: false,
            };
            out.send(NodeId::Controller(v), Message::Raft(Box::new(vote)));
        }
    }

    fn become_leader_silently(&mut self, now: Ms) {
        let fetched = self.others().map(|v| (v, (0, now))).collect();
        self.role = Role::Leader { fetched, parked: BTreeMap::new() };
        self.deadline = now + self.config.fetch_timeout_ms * CHECK_QUORUM_TENTHS / 10;
    }

    /// Wins the election: appends its leader-change record and tells the voters.
    fn become_leader(&mut self, now: Ms, voted: Vec<VoterId>, out: &mut Outbox, changes: &mut Changes) {
        self.become_leader_silently(now);
        self.retries = 0;
        self.log.append(self.epoch);
        out.emit(EventKind::ControllerElected {
            controller: self.id,
            epoch: self.epoch,
            voted_for_it: voted,
        });
        for v in self.others().collect::<Vec<_>>() {
            let begin = RaftMessage::BeginQuorumEpoch { epoch: self.epoch };
            out.send(NodeId::Controller(v), Message::Raft(Box::new(begin)));
        }
        self.maybe_advance_hw();
        changes.became_leader = true;
    }

    /// Moves to a higher epoch learned from `from`: unattached, or following `leader`.
    fn observe_epoch(&mut self, now: Ms, epoch: Epoch, leader: Option<VoterId>, changes: &mut Changes) {
        if self.is_leader() {
            changes.lost_leadership = true;
        }
        if epoch > self.epoch {
            self.epoch = epoch;
            self.voted_for = None;
        }
        match leader {
            Some(leader) => {
                self.role = Role::Follower { leader, in_flight: None };
                self.last_leader_contact = Some(now);
                self.deadline = now + self.config.fetch_timeout_ms;
            }
            None => {
                self.role = Role::Unattached;
                self.deadline = now + self.random_election_timeout();
            }
        }
    }

    /// Handles a quorum message from voter `from`. Fetch responses carrying a log replace its
    /// own (`changes.replaced`): the caller copies the leader's controller state with it.
    pub fn handle(&mut self, now: Ms, from: VoterId, msg: &RaftMessage, out: &mut Outbox) -> Changes {
        let mut changes = Changes::default();
        match *msg {
            RaftMessage::Vote { epoch, last_epoch, end, pre_vote } => {
                self.on_vote(now, from, epoch, (last_epoch, end), pre_vote, out, &mut changes)
            }
            RaftMessage::VoteResponse { epoch, granted, pre_vote } => {
                if !pre_vote && epoch > self.epoch && !granted {
                    self.observe_epoch(now, epoch, None, &mut changes);
                } else {
                    self.on_vote_response(now, from, epoch, granted, pre_vote, out, &mut changes);
                }
            }
            RaftMessage::BeginQuorumEpoch { epoch } => {
                if epoch >= self.epoch && self.leader() != Some(from) {
                    self.observe_epoch(now, epoch, Some(from), &mut changes);
                    self.send_fetch(now, out);
                }
            }
            RaftMessage::Fetch { epoch, fetch_offset, last_fetched_epoch } => {
                self.on_fetch(now, from, epoch, fetch_offset, last_fetched_epoch, out, &mut changes)
            }
            RaftMessage::FetchResponse { epoch, high_watermark, ref log, .. } => {
                if epoch > self.epoch
                    || (epoch == self.epoch && self.leader() != Some(from) && !self.is_leader())
                {
                    self.observe_epoch(now, epoch, Some(from), &mut changes);
                }
                if epoch != self.epoch || self.leader() != Some(from) || self.is_leader() {
                    return changes;
                }
                if let Some(log) = log {
                    self.log = log.clone();
                    changes.replaced = true;
                }
                if high_watermark > self.high_watermark {
                    self.high_watermark = high_watermark.min(self.log.end);
                    changes.committed = true;
                }
                self.last_leader_contact = Some(now);
                self.deadline = now + self.config.fetch_timeout_ms;
                if let Role::Follower { in_flight, .. } = &mut self.role {
                    *in_flight = None;
                }
                self.send_fetch(now, out);
            }
        }
        changes
    }

    #[allow(clippy::too_many_arguments)]
    fn on_vote(
        &mut self,
        now: Ms,
        from: VoterId,
        epoch: Epoch,
        (last_epoch, end): (Epoch, MetaOffset),
        pre_vote: bool,
        out: &mut Outbox,
        changes: &mut Changes,
    ) {
        let up_to_date = self.log.is_behind_or_equal(last_epoch, end);
        let granted = if pre_vote {
            // A voter still fetching from a live leader refuses (`FollowerState.canGrantVote`).
            let hears_leader = match self.role {
                Role::Leader { .. } => true,
                Role::Follower { .. } => self
                    .last_leader_contact
                    .is_some_and(|t| now.saturating_sub(t) < self.config.fetch_timeout_ms),
                _ => false,
            };
            epoch > self.epoch && up_to_date && !hears_leader
        } else {
            if epoch > self.epoch {
                self.observe_epoch(now, epoch, None, changes);
            }
            let free = self.voted_for.is_none_or(|v| v == from);
            let ok = epoch == self.epoch && free && up_to_date && matches!(self.role, Role::Unattached);
            if ok {
                self.voted_for = Some(from);
                self.deadline = now + self.random_election_timeout();
            }
            ok
        };
        let answer =
            RaftMessage::VoteResponse { epoch: if pre_vote { epoch } else { self.epoch }, granted, pre_vote };
        out.send(NodeId::Controller(from), Message::Raft(Box::new(answer)));
    }

    #[allow(clippy::too_many_arguments)]
    fn on_vote_response(
        &mut self,
        now: Ms,
        from: VoterId,
        epoch: Epoch,
        granted: bool,
        pre_vote: bool,
        out: &mut Outbox,
        changes: &mut Changes,
    ) {
        let majority = self.majority();
        match &mut self.role {
            Role::Prospective { granted: votes } if pre_vote && epoch == self.epoch + 1 && granted => {
                votes.insert(from);
                if votes.len() >= majority {
                    self.start_election(now, out, changes);
                }
            }
            Role::Candidate { granted: votes } if !pre_vote && epoch == self.epoch && granted => {
                votes.insert(from);
                if votes.len() >= majority {
                    let voted = votes.iter().copied().filter(|&v| v != self.id).collect();
                    self.become_leader(now, voted, out, changes);
                }
            }
            _ => {}
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn on_fetch(
        &mut self,
        now: Ms,
        from: VoterId,
        epoch: Epoch,
        fetch_offset: MetaOffset,
        last_fetched_epoch: Epoch,
        out: &mut Outbox,
        changes: &mut Changes,
    ) {
        if epoch > self.epoch {
            self.observe_epoch(now, epoch, None, changes);
        }
        let consistent = self.log.matches(fetch_offset, last_fetched_epoch);
        let Role::Leader { fetched, parked } = &mut self.role else { return };
        if epoch < self.epoch {
            // A follower of an older epoch learns the leader from the answer.
            let answer = RaftMessage::FetchResponse {
                epoch: self.epoch,
                high_watermark: self.high_watermark,
                log: None,
                state: None,
            };
            out.send(NodeId::Controller(from), Message::Raft(Box::new(answer)));
            return;
        }
        fetched.insert(from, (if consistent { fetch_offset } else { 0 }, now));
        if consistent && fetch_offset == self.log.end {
            parked.insert(from, now);
        } else {
            parked.remove(&from);
            let answer = RaftMessage::FetchResponse {
                epoch: self.epoch,
                high_watermark: self.high_watermark,
                log: Some(self.log.clone()),
                state: None,
            };
            out.send(NodeId::Controller(from), Message::Raft(Box::new(answer)));
        }
        changes.committed |= self.maybe_advance_hw();
    }

    /// Answers held fetches: all of them when the log grew, else those held for
    /// [`FETCH_MAX_WAIT_MS`].
    fn answer_parked(&mut self, now: Ms, out: &mut Outbox) {
        let (epoch, hw, end) = (self.epoch, self.high_watermark, self.log.end);
        let log = self.log.clone();
        let Role::Leader { parked, fetched } = &mut self.role else { return };
        let due: Vec<VoterId> = parked
            .iter()
            .filter(|&(v, &since)| {
                now >= since + FETCH_MAX_WAIT_MS || fetched.get(v).is_some_and(|f| f.0 < end)
            })
            .map(|(&v, _)| v)
            .collect();
        for v in due {
            parked.remove(&v);
            let behind = fetched.get(&v).is_some_and(|f| f.0 < end);
            let answer = RaftMessage::FetchResponse {
                epoch,
                high_watermark: hw,
                log: behind.then(|| log.clone()),
                state: None,
            };
            out.send(NodeId::Controller(v), Message::Raft(Box::new(answer)));
        }
    }

    /// The leader's high watermark: the largest offset a majority holds, once that majority
    /// holds a record of the leader's epoch (`LeaderState.maybeUpdateHighWatermark`).
    fn maybe_advance_hw(&mut self) -> bool {
        let Role::Leader { fetched, .. } = &self.role else { return false };
        let mut offsets: Vec<MetaOffset> = fetched.values().map(|f| f.0).chain([self.log.end]).collect();
        offsets.sort_unstable_by(|a, b| b.cmp(a));
        let candidate = offsets[self.majority() - 1];
        let epoch_start = self.log.epochs.last().map_or(0, |e| e.1);
        if candidate > self.high_watermark && candidate > epoch_start {
            self.high_watermark = candidate;
            return true;
        }
        false
    }

    /// A follower's next Fetch, unless one is in flight.
    fn send_fetch(&mut self, now: Ms, out: &mut Outbox) {
        let (epoch, offset, last) = (self.epoch, self.log.end, self.log.last_epoch());
        if let Role::Follower { leader, in_flight } = &mut self.role {
            if in_flight.is_some_and(|t| now < t + self.config.request_timeout_ms) {
                return;
            }
            *in_flight = Some(now);
            let fetch = RaftMessage::Fetch { epoch, fetch_offset: offset, last_fetched_epoch: last };
            out.send(NodeId::Controller(*leader), Message::Raft(Box::new(fetch)));
        }
    }

    /// A follower with no fetch in flight (or one that timed out after
    /// `controller.quorum.request.timeout.ms`) sends one; its wake-up time for that.
    pub fn poll_fetch(&mut self, now: Ms, out: &mut Outbox) -> Option<Ms> {
        self.send_fetch(now, out);
        match self.role {
            Role::Follower { in_flight: Some(t), .. } => Some(t + self.config.request_timeout_ms),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests;
