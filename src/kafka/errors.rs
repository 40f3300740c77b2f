//! Kafka error codes used by the simulation (rule book §12, Kafka's `Errors.java`).

use std::fmt;

/// A Kafka protocol error code. The `Display` form is Kafka's upper-case name.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum ErrorCode {
    /// 1: fetch outside `[logStartOffset, LEO]`.
    OffsetOutOfRange,
    /// 3: unknown topic or partition (retriable).
    UnknownTopicOrPartition,
    /// 5: metadata while the partition has no leader (retriable).
    LeaderNotAvailable,
    /// 6: request sent to a broker that is not the leader (retriable).
    NotLeaderOrFollower,
    /// 7: acks=all not satisfied within the request timeout (retriable).
    RequestTimedOut,
    /// 10: a record larger than the producer's `max.request.size` (client-side, from
    /// `KafkaProducer.ensureValidRecordSize`) or the broker's `message.max.bytes`: Kafka's
    /// `RecordTooLargeException`. Not retriable.
    MessageTooLarge,
    /// 13: the connection broke before a response arrived (client-side, retriable).
    NetworkException,
    /// 15: the group coordinator is not available: the `__consumer_offsets` partition has no
    /// leader yet, or a write to it failed or timed out (`CoordinatorNotAvailableException`,
    /// retriable).
    CoordinatorNotAvailable,
    /// 16: the broker is not the coordinator of this group (`NotCoordinatorException`,
    /// retriable: the client looks the coordinator up again).
    NotCoordinator,
    /// 17: an operation on an invalid topic (`InvalidTopicException`, not retriable: an
    /// `InvalidConfigurationException`, no `RetriableException`). A client's produce to an
    /// internal topic gets it ("Cannot append to internal topic": `ReplicaManager.appendToLocalLog`
    /// with `internalTopicsAllowed` false, which `KafkaApis.handleProduceRequest` passes for
    /// every client id but the admin client's).
    InvalidTopicException,
    /// 19: acks=all with ISR smaller than min ISR; nothing appended (retriable).
    NotEnoughReplicas,
    /// 20: appended, but ISR below min ISR at completion (retriable).
    NotEnoughReplicasAfterAppend,
    /// 21: acks not in {0, 1, -1}.
    InvalidRequiredAcks,
    /// 22: a group request carries a generation other than the group's
    /// (`IllegalGenerationException`): the member rejoins.
    IllegalGeneration,
    /// 23: a member's protocols share none with the group's (`InconsistentGroupProtocolException`).
    InconsistentGroupProtocol,
    /// 25: the group does not know this member id (`UnknownMemberIdException`): the member
    /// resets its member id and rejoins.
    UnknownMemberId,
    /// 26: `session.timeout.ms` outside the broker's `group.min.session.timeout.ms` ..
    /// `group.max.session.timeout.ms` (`InvalidSessionTimeoutException`).
    InvalidSessionTimeout,
    /// 27: the group is rebalancing (`RebalanceInProgressException`): the member rejoins.
    RebalanceInProgress,
    /// 37: `add-partitions` to a count that is not an increase (`InvalidPartitionsException`).
    InvalidPartitions,
    /// 38: topic creation with an impossible replication factor.
    InvalidReplicationFactor,
    /// 39: a reassignment's replica list names an unknown broker or one twice
    /// (`InvalidReplicaAssignmentException`).
    InvalidReplicaAssignment,
    /// 41: request to a non-active controller.
    NotController,
    /// 42: a request the controller refuses as malformed or forbidden
    /// (`InvalidRequestException`), e.g. creating `__cluster_metadata`.
    InvalidRequest,
    /// 45: idempotent producer sequence gap.
    OutOfOrderSequenceNumber,
    /// 70: an incremental fetch names a fetch session the broker does not have (KIP-227).
    FetchSessionIdNotFound,
    /// 71: an incremental fetch carries the wrong epoch for its fetch session (KIP-227).
    InvalidFetchSessionEpoch,
    /// 74: request epoch older than the leader's.
    FencedLeaderEpoch,
    /// 75: request epoch newer than the leader's.
    UnknownLeaderEpoch,
    /// 78: a leader whose HW is still below its epoch's start offset cannot answer a
    /// ListOffsets for the latest offset yet (KIP-207, R3.9; retriable).
    OffsetNotAvailable,
    /// 79: a JoinGroup without a member id: the coordinator hands one out and asks the member to
    /// join again with it (KIP-394, `MemberIdRequiredException`).
    MemberIdRequired,
    /// 80: preferred leader not live or not in ISR.
    PreferredLeaderNotAvailable,
    /// 83: an unclean election found no live replica to lead
    /// (`EligibleLeadersNotAvailableException`).
    EligibleLeadersNotAvailable,
    /// 84: preferred leader already leads.
    ElectionNotNeeded,
    /// 85: `reassign T-P --cancel` without a reassignment in progress.
    NoReassignmentInProgress,
    /// 95: stale partition epoch in AlterPartition.
    InvalidUpdateVersion,
    /// 101: a broker registration while the id's previous incarnation still has a live
    /// session (`DuplicateBrokerRegistrationException`, "This broker ID is already in use.").
    DuplicateBrokerRegistration,
    /// 107: AlterPartition names a fenced or shutting-down replica.
    IneligibleReplica,
    /// 108: the AlterPartition was applied, and it completed a reassignment that moved the
    /// leadership away from the sender (`ReplicationControlManager.alterPartition`).
    NewLeaderElected,
    /// Client-side `org.apache.kafka.common.errors.TimeoutException`: a batch expired after
    /// `delivery.timeout.ms`. It has no wire code.
    DeliveryTimeout,
    /// 100: a Fetch (v13+) names a topic id the broker's metadata does not know
    /// (`UnknownTopicIdException`, retriable): the topic was deleted, or the broker has not
    /// heard of it yet (`KafkaApis.handleFetchRequest`).
    UnknownTopicId,
    /// 103: the topic id in a Fetch or its session does not match the id of the broker's log
    /// of that partition (`InconsistentTopicIdException`, retriable;
    /// `ReplicaManager.readFromLog`).
    InconsistentTopicId,
}

impl ErrorCode {
    /// The numeric wire code (`-1` for client-only errors).
    pub fn code(self) -> i16 {
        use ErrorCode::*;
        match self {
            OffsetOutOfRange => 1,
            UnknownTopicOrPartition => 3,
            LeaderNotAvailable => 5,
            NotLeaderOrFollower => 6,
            RequestTimedOut => 7,
            MessageTooLarge => 10,
            NetworkException => 13,
            CoordinatorNotAvailable => 15,
            NotCoordinator => 16,
            InvalidTopicException => 17,
            NotEnoughReplicas => 19,
            NotEnoughReplicasAfterAppend => 20,
            InvalidRequiredAcks => 21,
            IllegalGeneration => 22,
            InconsistentGroupProtocol => 23,
            UnknownMemberId => 25,
            InvalidSessionTimeout => 26,
            RebalanceInProgress => 27,
            InvalidPartitions => 37,
            InvalidReplicationFactor => 38,
            InvalidReplicaAssignment => 39,
            NotController => 41,
            InvalidRequest => 42,
            OutOfOrderSequenceNumber => 45,
            FetchSessionIdNotFound => 70,
            InvalidFetchSessionEpoch => 71,
            FencedLeaderEpoch => 74,
            OffsetNotAvailable => 78,
            UnknownLeaderEpoch => 75,
            MemberIdRequired => 79,
            PreferredLeaderNotAvailable => 80,
            EligibleLeadersNotAvailable => 83,
            ElectionNotNeeded => 84,
            NoReassignmentInProgress => 85,
            InvalidUpdateVersion => 95,
            UnknownTopicId => 100,
            DuplicateBrokerRegistration => 101,
            InconsistentTopicId => 103,
            IneligibleReplica => 107,
            NewLeaderElected => 108,
            DeliveryTimeout => -1,
        }
    }

    /// Kafka's name for the error, e.g. `NOT_ENOUGH_REPLICAS`.
    pub fn name(self) -> &'static str {
        use ErrorCode::*;
        match self {
            OffsetOutOfRange => "OFFSET_OUT_OF_RANGE",
            UnknownTopicOrPartition => "UNKNOWN_TOPIC_OR_PARTITION",
            LeaderNotAvailable => "LEADER_NOT_AVAILABLE",
            NotLeaderOrFollower => "NOT_LEADER_OR_FOLLOWER",
            RequestTimedOut => "REQUEST_TIMED_OUT",
            MessageTooLarge => "MESSAGE_TOO_LARGE",
            NetworkException => "NETWORK_EXCEPTION",
            CoordinatorNotAvailable => "COORDINATOR_NOT_AVAILABLE",
            NotCoordinator => "NOT_COORDINATOR",
            InvalidTopicException => "INVALID_TOPIC_EXCEPTION",
            NotEnoughReplicas => "NOT_ENOUGH_REPLICAS",
            NotEnoughReplicasAfterAppend => "NOT_ENOUGH_REPLICAS_AFTER_APPEND",
            InvalidRequiredAcks => "INVALID_REQUIRED_ACKS",
            IllegalGeneration => "ILLEGAL_GENERATION",
            InconsistentGroupProtocol => "INCONSISTENT_GROUP_PROTOCOL",
            UnknownMemberId => "UNKNOWN_MEMBER_ID",
            InvalidSessionTimeout => "INVALID_SESSION_TIMEOUT",
            RebalanceInProgress => "REBALANCE_IN_PROGRESS",
            InvalidPartitions => "INVALID_PARTITIONS",
            InvalidReplicationFactor => "INVALID_REPLICATION_FACTOR",
            InvalidReplicaAssignment => "INVALID_REPLICA_ASSIGNMENT",
            NotController => "NOT_CONTROLLER",
            InvalidRequest => "INVALID_REQUEST",
            OutOfOrderSequenceNumber => "OUT_OF_ORDER_SEQUENCE_NUMBER",
            FetchSessionIdNotFound => "FETCH_SESSION_ID_NOT_FOUND",
            InvalidFetchSessionEpoch => "INVALID_FETCH_SESSION_EPOCH",
            FencedLeaderEpoch => "FENCED_LEADER_EPOCH",
            OffsetNotAvailable => "OFFSET_NOT_AVAILABLE",
            UnknownLeaderEpoch => "UNKNOWN_LEADER_EPOCH",
            MemberIdRequired => "MEMBER_ID_REQUIRED",
            PreferredLeaderNotAvailable => "PREFERRED_LEADER_NOT_AVAILABLE",
            EligibleLeadersNotAvailable => "ELIGIBLE_LEADERS_NOT_AVAILABLE",
            ElectionNotNeeded => "ELECTION_NOT_NEEDED",
            NoReassignmentInProgress => "NO_REASSIGNMENT_IN_PROGRESS",
            InvalidUpdateVersion => "INVALID_UPDATE_VERSION",
            DuplicateBrokerRegistration => "DUPLICATE_BROKER_REGISTRATION",
            IneligibleReplica => "INELIGIBLE_REPLICA",
            NewLeaderElected => "NEW_LEADER_ELECTED",
            DeliveryTimeout => "TIMEOUT",
            UnknownTopicId => "UNKNOWN_TOPIC_ID",
            InconsistentTopicId => "INCONSISTENT_TOPIC_ID",
        }
    }

    /// What the error says, in plain words, for the help's glossary (one line each; the
    /// help adds whether the client retries it, [`ErrorCode::is_retriable`]). Meanings follow
    /// the exception each code maps to in Kafka's `Errors.java`.
    pub fn meaning(self) -> &'static str {
        use ErrorCode::*;
        match self {
            OffsetOutOfRange => "a fetch asked for an offset below the log start or above the LEO",
            UnknownTopicOrPartition => "the broker hosts no such topic or partition (yet, or any more)",
            LeaderNotAvailable => "the partition has no leader right now (an election is due)",
            NotLeaderOrFollower => "sent to a broker that no longer leads the partition: refresh metadata",
            RequestTimedOut => "acks=all: the ISR did not copy the batch within request.timeout.ms",
            MessageTooLarge => "a record larger than max.request.size or message.max.bytes",
            NetworkException => "the connection broke before the answer came back",
            CoordinatorNotAvailable => {
                "the group coordinator is not ready (its offsets partition lacks a leader)"
            }
            NotCoordinator => "this broker is not the group's coordinator: look it up again",
            InvalidTopicException => "a client wrote to an internal or badly named topic",
            NotEnoughReplicas => "acks=all refused: ISR below min.insync.replicas, nothing appended",
            NotEnoughReplicasAfterAppend => {
                "appended, but the ISR fell below min.insync.replicas before the ack"
            }
            InvalidRequiredAcks => "acks was not 0, 1 or all",
            IllegalGeneration => "a group request from an older generation: the member rejoins",
            InconsistentGroupProtocol => "the member's assignors share none with the group's",
            UnknownMemberId => "the group does not know this member: it rejoins with a new id",
            InvalidSessionTimeout => "session.timeout.ms outside the broker's allowed range",
            RebalanceInProgress => "the group is rebalancing: the member rejoins",
            InvalidPartitions => "a partition count that is not an increase",
            InvalidReplicationFactor => "more replicas asked for than there are brokers",
            InvalidReplicaAssignment => "a replica list names an unknown broker or one twice",
            NotController => "sent to a node that is not the active controller",
            InvalidRequest => "a request the controller refuses as malformed or forbidden",
            OutOfOrderSequenceNumber => "idempotent producer: a batch's sequence skips ahead of the broker's",
            FetchSessionIdNotFound => {
                "the leader does not have this fetch session (it restarted): fetch in full"
            }
            InvalidFetchSessionEpoch => "a fetch session's epoch is out of step: fetch in full",
            FencedLeaderEpoch => "the request carries an older leader epoch than the leader's",
            UnknownLeaderEpoch => "the request carries a newer leader epoch than the broker knows",
            OffsetNotAvailable => "a new leader's HW has not reached its epoch's start yet",
            MemberIdRequired => "a first JoinGroup: the coordinator hands out an id to join with",
            PreferredLeaderNotAvailable => "the preferred replica is down or out of the ISR",
            EligibleLeadersNotAvailable => "an unclean election found no live replica to lead",
            ElectionNotNeeded => "the partition already has the leader the election would pick",
            NoReassignmentInProgress => "a cancel with no reassignment under way",
            InvalidUpdateVersion => "an ISR change made against an older partition epoch",
            DuplicateBrokerRegistration => "a broker id whose previous run still has a live session",
            IneligibleReplica => "an ISR change names a fenced or shutting-down replica",
            NewLeaderElected => "the ISR change went through and moved the leadership elsewhere",
            DeliveryTimeout => "the producer gave up on a batch after delivery.timeout.ms",
            UnknownTopicId => "a fetch names a topic id the broker does not know (deleted, or not yet seen)",
            InconsistentTopicId => "a fetch's topic id differs from the one the partition's log has",
        }
    }

    /// Looks an error up by its Kafka name (as scenario `errors` tables write it).
    pub fn from_name(name: &str) -> Option<Self> {
        ALL.iter().copied().find(|e| e.name() == name)
    }

    /// Whether the Java producer retries this error (rule book R5.7).
    pub fn is_retriable(self) -> bool {
        use ErrorCode::*;
        matches!(
            self,
            UnknownTopicOrPartition
                | LeaderNotAvailable
                | NotLeaderOrFollower
                | RequestTimedOut
                | NetworkException
                | NotEnoughReplicas
                | NotEnoughReplicasAfterAppend
                | CoordinatorNotAvailable
                | NotCoordinator
                | FencedLeaderEpoch
                | UnknownLeaderEpoch
        )
    }
}

/// Every error code, for name lookups.
pub const ALL: &[ErrorCode] = &[
    ErrorCode::OffsetOutOfRange,
    ErrorCode::UnknownTopicOrPartition,
    ErrorCode::LeaderNotAvailable,
    ErrorCode::NotLeaderOrFollower,
    ErrorCode::RequestTimedOut,
    ErrorCode::MessageTooLarge,
    ErrorCode::NetworkException,
    ErrorCode::CoordinatorNotAvailable,
    ErrorCode::NotCoordinator,
    ErrorCode::InvalidTopicException,
    ErrorCode::NotEnoughReplicas,
    ErrorCode::NotEnoughReplicasAfterAppend,
    ErrorCode::InvalidRequiredAcks,
    ErrorCode::IllegalGeneration,
    ErrorCode::InconsistentGroupProtocol,
    ErrorCode::UnknownMemberId,
    ErrorCode::InvalidSessionTimeout,
    ErrorCode::RebalanceInProgress,
    ErrorCode::InvalidPartitions,
    ErrorCode::InvalidReplicationFactor,
    ErrorCode::InvalidReplicaAssignment,
    ErrorCode::NotController,
    ErrorCode::InvalidRequest,
    ErrorCode::OutOfOrderSequenceNumber,
    ErrorCode::FetchSessionIdNotFound,
    ErrorCode::InvalidFetchSessionEpoch,
    ErrorCode::FencedLeaderEpoch,
    ErrorCode::UnknownLeaderEpoch,
    ErrorCode::OffsetNotAvailable,
    ErrorCode::PreferredLeaderNotAvailable,
    ErrorCode::MemberIdRequired,
    ErrorCode::EligibleLeadersNotAvailable,
    ErrorCode::ElectionNotNeeded,
    ErrorCode::NoReassignmentInProgress,
    ErrorCode::InvalidUpdateVersion,
    ErrorCode::DuplicateBrokerRegistration,
    ErrorCode::IneligibleReplica,
    ErrorCode::NewLeaderElected,
    ErrorCode::DeliveryTimeout,
    ErrorCode::UnknownTopicId,
    ErrorCode::InconsistentTopicId,
];

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
