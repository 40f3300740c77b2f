//! One classic group as its coordinator keeps it (Kafka 4.x `ClassicGroup`,
//! `ClassicGroupMember`, `ClassicGroupState`). The request handling and timers that move it
//! between states are in [`super::coordinator`].

use super::super::{Ms, TopicPartition};
use super::messages::{GroupId, MemberId, Subscription};
use crate::sim::consumer::OffsetAndEpoch;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;

/// Which client a response goes to (the consumer's index in the scenario).
pub type ClientId = u32;

/// How long a new member may take to send its first JoinGroup after `MEMBER_ID_REQUIRED`
/// before the coordinator forgets it (ms): `GroupMetadataManager`'s
/// `classicGroupNewMemberJoinTimeoutMs`, 5 minutes.
pub const NEW_MEMBER_JOIN_TIMEOUT_MS: Ms = 300_000;

/// A classic group's state (`ClassicGroupState`).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum GroupState {
    /// No members; offsets may remain.
    Empty,
    /// Waiting for members to (re)join.
    PreparingRebalance,
    /// Waiting for the leader's assignment.
    CompletingRebalance,
    /// Members have their partitions and heartbeat.
    Stable,
    /// Unloaded or deleted.
    Dead,
}

impl GroupState {
    /// Kafka's name, as `kafka-consumer-groups.sh --describe --state` prints it.
    pub fn name(self) -> &'static str {
        match self {
            GroupState::Empty => "Empty",
            GroupState::PreparingRebalance => "PreparingRebalance",
            GroupState::CompletingRebalance => "CompletingRebalance",
            GroupState::Stable => "Stable",
            GroupState::Dead => "Dead",
        }
    }

    /// Looks a state up by its name.
    pub fn from_name(name: &str) -> Option<Self> {
        use GroupState::*;
        [Empty, PreparingRebalance, CompletingRebalance, Stable, Dead].into_iter().find(|s| s.name() == name)
    }
}

impl fmt::Display for GroupState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A member of a classic group (`ClassicGroupMember`).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct GroupMember {
    /// `session.timeout.ms` (ms).
    pub session_timeout_ms: Ms,
    /// The rebalance timeout (ms, `max.poll.interval.ms`).
    pub rebalance_timeout_ms: Ms,
    /// Assignor names in preference order, with the subscription for each.
    pub protocols: Vec<(Arc<str>, Subscription)>,
    /// Its partitions in the current generation.
    pub assignment: Vec<TopicPartition>,
    /// The client whose JoinGroup awaits its answer.
    pub awaiting_join: Option<ClientId>,
    /// The client whose SyncGroup awaits its answer.
    pub awaiting_sync: Option<ClientId>,
    /// When its session expires without a heartbeat (ms).
    pub heartbeat_deadline: Ms,
    /// Joined in the current rebalance and not yet through a completed join phase.
    pub is_new: bool,
}

impl GroupMember {
    /// The subscription it sent for assignor `protocol`.
    pub fn subscription(&self, protocol: &str) -> Option<&Subscription> {
        self.protocols.iter().find(|(p, _)| &**p == protocol).map(|(_, s)| s)
    }

    /// Whether the session timer may remove it now (`ClassicGroupMember.hasSatisfiedHeartbeat`
    /// is false): a member waiting for a JoinGroup or SyncGroup answer is kept, unless it is new.
    pub fn expired(&self, now: Ms) -> bool {
        now >= self.heartbeat_deadline
            && (self.is_new || (self.awaiting_join.is_none() && self.awaiting_sync.is_none()))
    }
}

/// The join phase's timer.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum JoinTimer {
    /// The first rebalance of an empty group: `group.initial.rebalance.delay.ms`, extended
    /// while members keep arriving, up to the rebalance timeout
    /// (`tryCompleteInitialRebalanceElseSchedule`). Fields: the current delay and the time
    /// left after it (ms).
    Initial {
        /// This delay (ms).
        delay_ms: Ms,
        /// What is left of the rebalance timeout after it (ms).
        remaining_ms: Ms,
    },
    /// A rebalance of a group with members: completes when all have rejoined or at the
    /// rebalance timeout.
    Rebalance,
}

/// One classic group (`ClassicGroup`).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ClassicGroup {
    /// The group id.
    pub id: GroupId,
    /// Its state.
    pub state: GroupState,
    /// The state before the current one.
    pub previous_state: GroupState,
    /// The generation (0 before the first rebalance).
    pub generation: i32,
    /// The assignor chosen for the current generation.
    pub protocol: Option<Arc<str>>,
    /// The leader's member id.
    pub leader: Option<MemberId>,
    /// Members by id.
    pub members: BTreeMap<MemberId, GroupMember>,
    /// Member ids handed out with `MEMBER_ID_REQUIRED`, with their deadline (ms).
    pub pending_members: BTreeMap<MemberId, Ms>,
    /// Members of the generation that have not sent SyncGroup yet.
    pub pending_sync: BTreeSet<MemberId>,
    /// A member joined during the initial delay.
    pub new_member_added: bool,
    /// The join phase's timer: when it fires and what kind.
    pub join_timer: Option<(Ms, JoinTimer)>,
    /// When members that have not synced are removed (ms).
    pub sync_deadline: Option<Ms>,
    /// Committed offsets (only those whose write reached the HW).
    pub offsets: BTreeMap<TopicPartition, OffsetAndEpoch>,
}

impl ClassicGroup {
    /// A new empty group.
    pub fn new(id: GroupId) -> Self {
        Self {
            id,
            state: GroupState::Empty,
            previous_state: GroupState::Empty,
            generation: 0,
            protocol: None,
            leader: None,
            members: BTreeMap::new(),
            pending_members: BTreeMap::new(),
            pending_sync: BTreeSet::new(),
            new_member_added: false,
            join_timer: None,
            sync_deadline: None,
            offsets: BTreeMap::new(),
        }
    }

    /// Moves to `state`, remembering the previous one.
    pub fn transition(&mut self, state: GroupState) {
        self.previous_state = self.state;
        self.state = state;
    }

    /// Whether a rebalance may start from the current state (`ClassicGroup.canRebalance`).
    pub fn can_rebalance(&self) -> bool {
        matches!(self.state, GroupState::Stable | GroupState::CompletingRebalance | GroupState::Empty)
    }

    /// Whether every member has rejoined and no handed-out member id is still pending
    /// (`hasAllMembersJoined`).
    pub fn all_members_joined(&self) -> bool {
        self.members.values().all(|m| m.awaiting_join.is_some()) && self.pending_members.is_empty()
    }

    /// The group's rebalance timeout: the largest of its members' (ms).
    pub fn rebalance_timeout_ms(&self) -> Ms {
        self.members.values().map(|m| m.rebalance_timeout_ms).max().unwrap_or(0)
    }

    /// Whether `protocols` share an assignor with every member (`supportsProtocols`); any
    /// non-empty list fits an empty group.
    pub fn supports(&self, protocols: &[(Arc<str>, Subscription)]) -> bool {
        if self.members.is_empty() {
            return !protocols.is_empty();
        }
        protocols.iter().any(|(p, _)| self.members.values().all(|m| m.subscription(p).is_some()))
    }

    /// The assignor for the next generation (`ClassicGroup.selectProtocol`): among the
    /// assignors every member supports, each member votes for the first in its own list; most
    /// votes wins, ties go to the name first in order.
    pub fn select_protocol(&self) -> Option<Arc<str>> {
        let candidates: BTreeSet<&Arc<str>> = self
            .members
            .values()
            .flat_map(|m| m.protocols.iter().map(|(p, _)| p))
            .filter(|p| self.members.values().all(|m| m.subscription(p).is_some()))
            .collect();
        let mut votes: BTreeMap<&Arc<str>, usize> = BTreeMap::new();
        for m in self.members.values() {
            if let Some((p, _)) = m.protocols.iter().find(|(p, _)| candidates.contains(p)) {
                *votes.entry(p).or_default() += 1;
            }
        }
        let best = votes.values().copied().max()?;
        votes.into_iter().find(|(_, n)| *n == best).map(|(p, _)| p.clone())
    }

    /// Removes a member; a removed leader is replaced by the first remaining member
    /// (`ClassicGroup.remove`).
    pub fn remove(&mut self, member: &MemberId) -> Option<GroupMember> {
        let gone = self.members.remove(member);
        self.pending_sync.remove(member);
        if self.leader.as_ref() == Some(member) {
            self.leader = self.members.keys().next().cloned();
        }
        gone
    }

    /// If the leader has not rejoined, makes the first member that has the leader
    /// (`maybeElectNewJoinedLeader`); false when no member has rejoined.
    pub fn elect_joined_leader(&mut self) -> bool {
        let joined = |g: &Self, m: &MemberId| g.members.get(m).is_some_and(|m| m.awaiting_join.is_some());
        if self.leader.as_ref().is_some_and(|l| joined(self, l)) {
            return true;
        }
        let first = self.members.iter().find(|(_, m)| m.awaiting_join.is_some()).map(|(id, _)| id.clone());
        if first.is_some() {
            self.leader = first;
        }
        self.leader.as_ref().is_some_and(|l| joined(self, l))
    }

    /// Every member's subscription for the chosen assignor (what the leader gets in its
    /// JoinGroup answer).
    pub fn subscriptions(&self) -> Vec<(MemberId, Subscription)> {
        let Some(p) = &self.protocol else { return vec![] };
        self.members.iter().filter_map(|(id, m)| m.subscription(p).map(|s| (id.clone(), s.clone()))).collect()
    }

    /// Every member with its partitions.
    pub fn assignment(&self) -> Vec<(MemberId, Vec<TopicPartition>)> {
        self.members.iter().map(|(id, m)| (id.clone(), m.assignment.clone())).collect()
    }

    /// The earliest timer of the group (ms).
    pub fn next_deadline(&self) -> Option<Ms> {
        let members = self.members.values().map(|m| m.heartbeat_deadline);
        let pending = self.pending_members.values().copied();
        let timers = self.join_timer.map(|(at, _)| at).into_iter().chain(self.sync_deadline);
        members.chain(pending).chain(timers).min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(protocols: &[&str]) -> GroupMember {
        GroupMember {
            session_timeout_ms: 45_000,
            rebalance_timeout_ms: 300_000,
            protocols: protocols.iter().map(|p| (Arc::from(*p), Subscription::default())).collect(),
            assignment: vec![],
            awaiting_join: Some(0),
            awaiting_sync: None,
            heartbeat_deadline: 0,
            is_new: false,
        }
    }

    #[test]
    fn protocol_vote_takes_each_members_first_common_choice() {
        let mut g = ClassicGroup::new("g".into());
        g.members.insert("a".into(), member(&["roundrobin", "range"]));
        g.members.insert("b".into(), member(&["range", "roundrobin"]));
        g.members.insert("c".into(), member(&["range"]));
        assert_eq!(g.select_protocol().as_deref(), Some("range"));
        assert!(g.supports(&[(Arc::from("range"), Subscription::default())]));
        assert!(!g.supports(&[(Arc::from("roundrobin"), Subscription::default())]));
    }

    #[test]
    fn removing_the_leader_elects_the_first_remaining_member() {
        let mut g = ClassicGroup::new("g".into());
        g.members.insert("a".into(), member(&["range"]));
        g.members.insert("b".into(), member(&["range"]));
        g.leader = Some("a".into());
        g.remove(&"a".into());
        assert_eq!(g.leader.as_deref(), Some("b"));
    }

    #[test]
    fn a_member_awaiting_an_answer_does_not_expire_unless_new() {
        let mut m = member(&["range"]);
        assert!(!m.expired(10));
        m.is_new = true;
        assert!(m.expired(10));
        m.is_new = false;
        m.awaiting_join = None;
        assert!(m.expired(10));
        assert!(!m.expired(0) || m.heartbeat_deadline == 0);
    }

    #[test]
    fn state_names_round_trip() {
        for s in ["Empty", "PreparingRebalance", "CompletingRebalance", "Stable", "Dead"] {
            assert_eq!(GroupState::from_name(s).map(GroupState::name), Some(s));
        }
    }
}
