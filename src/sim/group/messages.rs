//! The group RPCs a consumer and a group coordinator exchange (Kafka's `FindCoordinator`,
//! `JoinGroup`, `SyncGroup`, `Heartbeat`, `LeaveGroup`, `OffsetCommit` and `OffsetFetch`),
//! with the embedded consumer protocol (`ConsumerProtocolSubscription`,
//! `ConsumerProtocolAssignment`) decoded, and the records the coordinator writes to
//! `__consumer_offsets` (`OffsetCommitKey/Value`, `GroupMetadataKey/Value`).

use super::super::{BrokerId, Epoch, Offset, TopicPartition};
use crate::kafka::errors::ErrorCode;
use crate::sim::consumer::OffsetAndEpoch;
use std::sync::Arc;

/// A group id (`group.id`).
pub type GroupId = Arc<str>;

/// A member id the coordinator handed out; empty before the first JoinGroup.
pub type MemberId = Arc<str>;

/// What a member tells the group about itself (`ConsumerProtocolSubscription`).
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Subscription {
    /// Subscribed topics, sorted.
    pub topics: Vec<Arc<str>>,
    /// Partitions the member owns now (v1+, used by the sticky assignors).
    pub owned: Vec<TopicPartition>,
    /// The generation the owned partitions are from (v2+, `-1` when none).
    pub generation: i32,
}

/// A group request, sent by a member to its coordinator (FindCoordinator to any broker).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum GroupRequest {
    /// `FindCoordinator` with key type GROUP.
    FindCoordinator {
        /// The group.
        group: GroupId,
    },
    /// `JoinGroup` (v4+: an unknown member gets `MEMBER_ID_REQUIRED` first, KIP-394).
    Join {
        /// The group.
        group: GroupId,
        /// Empty for a new member.
        member: MemberId,
        /// The consumer's `client.id` (the request header's; a new member id starts with it).
        client_id: Arc<str>,
        /// `session.timeout.ms` (ms).
        session_timeout_ms: u64,
        /// `max.poll.interval.ms` (ms), the rebalance timeout.
        rebalance_timeout_ms: u64,
        /// Assignor names in order of preference, each with the member's subscription.
        protocols: Vec<(Arc<str>, Subscription)>,
    },
    /// `SyncGroup`; the leader carries the assignment of every member.
    Sync {
        /// The group.
        group: GroupId,
        /// The member.
        member: MemberId,
        /// The generation it joined.
        generation: i32,
        /// Leader only: partitions per member.
        assignments: Vec<(MemberId, Vec<TopicPartition>)>,
    },
    /// `Heartbeat`.
    Heartbeat {
        /// The group.
        group: GroupId,
        /// The member.
        member: MemberId,
        /// Its generation.
        generation: i32,
    },
    /// `LeaveGroup` (the member closes or unsubscribes).
    Leave {
        /// The group.
        group: GroupId,
        /// The member.
        member: MemberId,
    },
    /// `OffsetCommit`.
    Commit {
        /// The group.
        group: GroupId,
        /// The member (empty with generation -1 for a commit outside group management).
        member: MemberId,
        /// Its generation, or -1.
        generation: i32,
        /// Offsets to commit: the next record the group should read, per partition, with the
        /// leader epoch of the record before it (`OffsetCommitRequest` v7+
        /// `committedLeaderEpoch`, KIP-320).
        offsets: Vec<(TopicPartition, OffsetAndEpoch)>,
    },
    /// `OffsetFetch` (`require_stable` is not modelled: isrlab has no transactions).
    FetchOffsets {
        /// The group.
        group: GroupId,
        /// Partitions asked for.
        partitions: Vec<TopicPartition>,
    },
}

impl GroupRequest {
    /// Kafka's API name (`JoinGroup`, `OffsetCommit`, ...).
    pub fn api_name(&self) -> &'static str {
        match self {
            GroupRequest::FindCoordinator { .. } => "FindCoordinator",
            GroupRequest::Join { .. } => "JoinGroup",
            GroupRequest::Sync { .. } => "SyncGroup",
            GroupRequest::Heartbeat { .. } => "Heartbeat",
            GroupRequest::Leave { .. } => "LeaveGroup",
            GroupRequest::Commit { .. } => "OffsetCommit",
            GroupRequest::FetchOffsets { .. } => "OffsetFetch",
        }
    }

    /// The group the request is about.
    pub fn group(&self) -> &GroupId {
        match self {
            GroupRequest::FindCoordinator { group }
            | GroupRequest::Join { group, .. }
            | GroupRequest::Sync { group, .. }
            | GroupRequest::Heartbeat { group, .. }
            | GroupRequest::Leave { group, .. }
            | GroupRequest::Commit { group, .. }
            | GroupRequest::FetchOffsets { group, .. } => group,
        }
    }
}

/// The answer of a JoinGroup.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct JoinResponse {
    /// `None` on success.
    pub error: Option<ErrorCode>,
    /// The new generation (`-1` on error).
    pub generation: i32,
    /// The chosen assignor.
    pub protocol: Option<Arc<str>>,
    /// The leader's member id.
    pub leader: MemberId,
    /// The member's id (also on `MEMBER_ID_REQUIRED`).
    pub member: MemberId,
    /// Leader only: every member with its subscription for the chosen assignor.
    pub members: Vec<(MemberId, Subscription)>,
}

impl JoinResponse {
    /// A failed JoinGroup.
    pub fn error(error: ErrorCode, member: MemberId) -> Self {
        Self {
            error: Some(error),
            generation: -1,
            protocol: None,
            leader: "".into(),
            member,
            members: vec![],
        }
    }
}

/// A group response, sent by a broker to a member.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum GroupResponse {
    /// `FindCoordinator`: the coordinator, or `COORDINATOR_NOT_AVAILABLE`.
    FindCoordinator {
        /// The group.
        group: GroupId,
        /// Error, `None` when `coordinator` is set.
        error: Option<ErrorCode>,
        /// The coordinator's broker id.
        coordinator: Option<BrokerId>,
    },
    /// `JoinGroup`.
    Join(JoinResponse),
    /// `SyncGroup`: the member's partitions.
    Sync {
        /// `None` on success.
        error: Option<ErrorCode>,
        /// The member's assignment.
        assignment: Vec<TopicPartition>,
    },
    /// `Heartbeat`.
    Heartbeat {
        /// `None` on success.
        error: Option<ErrorCode>,
    },
    /// `LeaveGroup`.
    Leave {
        /// `None` on success.
        error: Option<ErrorCode>,
    },
    /// `OffsetCommit` (one error for the whole request: isrlab fails or commits all
    /// partitions of a request together, as one coordinator write does).
    Commit {
        /// `None` on success.
        error: Option<ErrorCode>,
        /// The offsets of the request.
        offsets: Vec<(TopicPartition, OffsetAndEpoch)>,
    },
    /// `OffsetFetch`: the committed offset per partition asked for (`None`: nothing committed).
    FetchOffsets {
        /// `None` on success.
        error: Option<ErrorCode>,
        /// Committed offsets, with their leader epochs (`OffsetFetchResponse`
        /// `committedLeaderEpoch`).
        offsets: Vec<(TopicPartition, Option<OffsetAndEpoch>)>,
    },
}

/// A record the coordinator writes to its `__consumer_offsets` partition, and replays when it
/// loads the partition after becoming its leader (`CoordinatorLoaderImpl`).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum OffsetsRecord {
    /// `OffsetCommitKey/Value`: group `group` committed `offset` for `tp`.
    Commit {
        /// The group.
        group: GroupId,
        /// The partition.
        tp: TopicPartition,
        /// The committed offset.
        offset: Offset,
        /// The leader epoch committed with it (`OffsetCommitValue.leaderEpoch`, KIP-320).
        leader_epoch: Option<Epoch>,
    },
    /// An `OffsetCommitKey` with no value: the tombstone that erases `group`'s committed
    /// offset of `tp` (`OffsetMetadataManager.appendOffsetCommitTombstone`), written when
    /// the partition's topic is deleted.
    CommitTombstone {
        /// The group.
        group: GroupId,
        /// The partition.
        tp: TopicPartition,
    },
    /// `GroupMetadataKey/Value`: the group's generation and members with assignments
    /// (written when a generation completes its sync, or the group empties).
    Metadata {
        /// The group.
        group: GroupId,
        /// The generation.
        generation: i32,
        /// The chosen assignor.
        protocol: Option<Arc<str>>,
        /// The leader.
        leader: Option<MemberId>,
        /// Members with their partitions.
        members: Vec<MemberRecord>,
    },
}

/// A member as the group metadata record stores it (`GroupMetadataValue.MemberMetadata`).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct MemberRecord {
    /// The member id.
    pub id: MemberId,
    /// `session.timeout.ms` (ms).
    pub session_timeout_ms: u64,
    /// The rebalance timeout (ms).
    pub rebalance_timeout_ms: u64,
    /// Its subscription for the group's assignor.
    pub subscription: Subscription,
    /// Its partitions.
    pub assignment: Vec<TopicPartition>,
}

impl OffsetsRecord {
    /// The group the record belongs to.
    pub fn group(&self) -> &GroupId {
        match self {
            OffsetsRecord::Commit { group, .. }
            | OffsetsRecord::CommitTombstone { group, .. }
            | OffsetsRecord::Metadata { group, .. } => group,
        }
    }
}
