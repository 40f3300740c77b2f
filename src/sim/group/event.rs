//! What groups do, as typed data for the event log: rebalances (join, assignment, leave,
//! session timeout), coordinator moves, and failed commits. The words live in `Display`.

use super::super::{BrokerId, TopicPartition};
use super::messages::{GroupId, MemberId};
use crate::kafka::errors::ErrorCode;
use std::fmt;

/// Why a group rebalances (the `reason` Kafka logs with "Preparing to rebalance group").
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum RebalanceReason {
    /// A member joined (or a known member rejoined with new metadata).
    MemberJoined(MemberId),
    /// A member sent LeaveGroup.
    MemberLeft(MemberId),
    /// A member's session expired without a heartbeat.
    SessionTimeout(MemberId),
    /// Members that never sent SyncGroup were removed when the rebalance timeout expired.
    SyncTimeout,
    /// Writing the group's assignment failed.
    StoreFailed(ErrorCode),
}

/// A group event.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum GroupEvent {
    /// A group went to PreparingRebalance (`GroupMetadataManager.prepareRebalance`).
    RebalanceStarted {
        /// The group.
        group: GroupId,
        /// Its generation until the rebalance completes.
        generation: i32,
        /// Why.
        reason: RebalanceReason,
    },
    /// A member joined (`addMemberThenRebalanceOrCompleteJoin`).
    MemberJoined {
        /// The group.
        group: GroupId,
        /// The new member.
        member: MemberId,
    },
    /// The join phase ended: the next generation, its leader and the assignor chosen.
    JoinCompleted {
        /// The group.
        group: GroupId,
        /// The new generation.
        generation: i32,
        /// Its leader.
        leader: MemberId,
        /// Members in it.
        members: usize,
        /// The assignor the group chose.
        protocol: String,
    },
    /// The leader's assignment was stored: the group is Stable.
    Stabilized {
        /// The group.
        group: GroupId,
        /// Its generation.
        generation: i32,
        /// Partitions per member.
        assignment: Vec<(MemberId, Vec<TopicPartition>)>,
    },
    /// The group lost its last member.
    Emptied {
        /// The group.
        group: GroupId,
        /// Its generation.
        generation: i32,
    },
    /// A member left with LeaveGroup.
    MemberLeft {
        /// The group.
        group: GroupId,
        /// The member.
        member: MemberId,
    },
    /// The coordinator removed a member whose session expired (`session.timeout.ms`).
    SessionExpired {
        /// The group.
        group: GroupId,
        /// The member.
        member: MemberId,
    },
    /// The coordinator removed a member that did not rejoin within the rebalance timeout.
    RemovedNotRejoined {
        /// The group.
        group: GroupId,
        /// The member.
        member: MemberId,
    },
    /// A broker became coordinator of an offsets partition's groups (it leads the partition
    /// now and loaded it).
    CoordinatorLoaded {
        /// The broker.
        broker: BrokerId,
        /// The `__consumer_offsets` partition.
        partition: u32,
        /// Groups it found in the log.
        groups: usize,
    },
    /// A broker stopped coordinating an offsets partition's groups (it lost leadership).
    CoordinatorUnloaded {
        /// The broker.
        broker: BrokerId,
        /// The `__consumer_offsets` partition.
        partition: u32,
    },
    /// A consumer found its group's coordinator.
    CoordinatorFound {
        /// The consumer's client id.
        client: String,
        /// The group.
        group: GroupId,
        /// The coordinator.
        broker: BrokerId,
    },
    /// A consumer dropped its coordinator after an error or a lost session.
    CoordinatorLost {
        /// The consumer's client id.
        client: String,
        /// The group.
        group: GroupId,
        /// The coordinator it had.
        broker: BrokerId,
        /// Why, in Kafka's words (an error name or "session timed out").
        cause: String,
    },
    /// A consumer got its partitions for a generation (`onPartitionsAssigned`).
    Assigned {
        /// The consumer's client id.
        client: String,
        /// The group.
        group: GroupId,
        /// The generation.
        generation: i32,
        /// All partitions it owns now.
        partitions: Vec<TopicPartition>,
    },
    /// A consumer gave partitions up before or during a rebalance (`onPartitionsRevoked`).
    Revoked {
        /// The consumer's client id.
        client: String,
        /// The group.
        group: GroupId,
        /// The partitions.
        partitions: Vec<TopicPartition>,
    },
    /// A consumer's offset commit failed (Kafka's `ConsumerCoordinator` logs it and retries
    /// at the next auto-commit).
    CommitFailed {
        /// The consumer's client id.
        client: String,
        /// The group.
        group: GroupId,
        /// The error.
        error: ErrorCode,
    },
    /// A consumer's commits succeed again after failing.
    CommitRecovered {
        /// The consumer's client id.
        client: String,
        /// The group.
        group: GroupId,
    },
}

fn list(tps: &[TopicPartition]) -> String {
    if tps.is_empty() {
        return "nothing".into();
    }
    tps.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
}

impl fmt::Display for RebalanceReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RebalanceReason::MemberJoined(m) => write!(f, "member {m} joined"),
            RebalanceReason::MemberLeft(m) => write!(f, "member {m} left"),
            RebalanceReason::SessionTimeout(m) => write!(f, "member {m}'s session timed out"),
            RebalanceReason::SyncTimeout => write!(f, "members did not sync within the rebalance timeout"),
            RebalanceReason::StoreFailed(e) => write!(f, "storing the assignment failed with {e}"),
        }
    }
}

impl fmt::Display for GroupEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use GroupEvent::*;
        match self {
            RebalanceStarted { group, generation, reason } => {
                write!(f, "group {group} rebalances (generation {generation}): {reason}")
            }
            MemberJoined { group, member } => write!(f, "group {group}: member {member} joins"),
            JoinCompleted { group, generation, leader, members, protocol } => write!(
                f,
                "group {group} generation {generation}: {members} member(s), leader {leader}, assignor {protocol}"
            ),
            Stabilized { group, generation, assignment } => {
                let parts: Vec<String> =
                    assignment.iter().map(|(m, tps)| format!("{m}: {}", list(tps))).collect();
                write!(f, "group {group} stable in generation {generation}; {}", parts.join("; "))
            }
            Emptied { group, generation } => write!(f, "group {group} is empty (generation {generation})"),
            MemberLeft { group, member } => write!(f, "group {group}: member {member} leaves"),
            SessionExpired { group, member } => {
                write!(f, "group {group}: member {member} removed, session timed out (session.timeout.ms)")
            }
            RemovedNotRejoined { group, member } => {
                write!(
                    f,
                    "group {group}: member {member} removed, it did not rejoin within the rebalance timeout"
                )
            }
            CoordinatorLoaded { broker, partition, groups } => write!(
                f,
                "broker {broker} is now group coordinator for __consumer_offsets-{partition} ({groups} group(s) loaded)"
            ),
            CoordinatorUnloaded { broker, partition } => {
                write!(f, "broker {broker} is no longer group coordinator for __consumer_offsets-{partition}")
            }
            CoordinatorFound { client, group, broker } => {
                write!(f, "{client}: coordinator of group {group} is broker {broker}")
            }
            CoordinatorLost { client, group, broker, cause } => {
                write!(f, "{client}: lost coordinator {broker} of group {group} ({cause}); rediscovering")
            }
            Assigned { client, group, generation, partitions } => {
                write!(f, "{client}: assigned {} (group {group} generation {generation})", list(partitions))
            }
            Revoked { client, group, partitions } => {
                write!(f, "{client}: revoked {} (group {group})", list(partitions))
            }
            CommitFailed { client, group, error } => {
                write!(f, "{client}: offset commit for group {group} failed: {error}")
            }
            CommitRecovered { client, group } => {
                write!(f, "{client}: offset commits for group {group} succeed again")
            }
        }
    }
}
