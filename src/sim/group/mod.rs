//! Consumer groups with Kafka's classic group protocol, sans-IO.
//!
//! - [`assignor`]: the client-side partition assignors `range`, `roundrobin` and
//!   `cooperative-sticky` (`partition.assignment.strategy`).
//! - [`messages`]: the group RPCs (FindCoordinator, JoinGroup, SyncGroup, Heartbeat,
//!   LeaveGroup, OffsetCommit, OffsetFetch) and the records the coordinator writes to
//!   `__consumer_offsets`.
//! - [`classic`]: one group's broker-side state (Kafka 4.x `ClassicGroup`, `ClassicGroupState`).
//! - [`coordinator`]: a broker's group coordinator, the state machine of Kafka 4.x
//!   `GroupMetadataManager` (classic part) and `OffsetMetadataManager` over the groups whose
//!   `__consumer_offsets` partition the broker leads.
//! - [`member`]: a consumer's group membership (`AbstractCoordinator`, `ConsumerCoordinator`).
//!
//! Where a group lives: partition `abs(groupId.hashCode) % offsets.topic.num.partitions` of
//! [`OFFSETS_TOPIC`] ([`partition_for`]); its leader is the group's coordinator.

pub mod assignor;
pub mod classic;
pub mod coordinator;
pub mod event;
pub mod member;
pub mod messages;

use super::Ms;

/// Kafka's internal topic that stores committed offsets and group metadata
/// (`Topic.GROUP_METADATA_TOPIC_NAME`).
pub const OFFSETS_TOPIC: &str = "__consumer_offsets";

/// Java's `String.hashCode` (`s[0]*31^(n-1) + ... + s[n-1]` over UTF-16 code units, wrapping
/// in 32 bits), which Kafka uses to place a group.
pub fn java_string_hash(s: &str) -> i32 {
    s.encode_utf16().fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

/// The `__consumer_offsets` partition of group `group_id` with `num_partitions` partitions:
/// `Utils.abs(groupId.hashCode()) % numPartitions` (`GroupCoordinatorService.partitionFor`;
/// `Utils.abs` maps `Integer.MIN_VALUE` to 0). `num_partitions` 0 gives partition 0.
pub fn partition_for(group_id: &str, num_partitions: u32) -> u32 {
    let h = java_string_hash(group_id);
    let abs = if h == i32::MIN { 0 } else { h.unsigned_abs() };
    abs.checked_rem(num_partitions).unwrap_or(0)
}

/// The broker-side group settings (Kafka 4.x `GroupCoordinatorConfig`), all in ms.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct GroupCoordinatorConfig {
    /// `group.initial.rebalance.delay.ms` (3000): how long the first rebalance of an empty
    /// group waits for more members, extended by the same delay per joining member up to the
    /// rebalance timeout (`GroupMetadataManager.prepareRebalance`).
    pub initial_rebalance_delay_ms: Ms,
    /// `group.min.session.timeout.ms` (6000): smallest `session.timeout.ms` a member may ask for.
    pub min_session_timeout_ms: Ms,
    /// `group.max.session.timeout.ms` (1800000): largest `session.timeout.ms` a member may ask for.
    pub max_session_timeout_ms: Ms,
    /// `offsets.commit.timeout.ms` (5000): how long a write to `__consumer_offsets` may wait
    /// for the partition's HW before it fails with `REQUEST_TIMED_OUT`, which the coordinator
    /// answers as `COORDINATOR_NOT_AVAILABLE` (`CoordinatorRuntime` write timeout,
    /// `CoordinatorOperationExceptionHelper.handleOperationException`).
    pub commit_timeout_ms: Ms,
}

impl Default for GroupCoordinatorConfig {
    fn default() -> Self {
        Self {
            initial_rebalance_delay_ms: 3000,
            min_session_timeout_ms: 6000,
            max_session_timeout_ms: 1_800_000,
            commit_timeout_ms: 5000,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_matches_java() {
        // Values of "..".hashCode() in Java.
        assert_eq!(java_string_hash(""), 0);
        assert_eq!(java_string_hash("a"), 97);
        assert_eq!(java_string_hash("hello"), 99_162_322);
        assert_eq!(java_string_hash("group-1"), 293_427_299);
        assert_eq!(java_string_hash("polygenelubricants"), i32::MIN);
    }

    #[test]
    fn partition_uses_utils_abs() {
        assert_eq!(partition_for("polygenelubricants", 50), 0);
        assert_eq!(partition_for("hello", 50), 99_162_322 % 50);
        assert_eq!(partition_for("group-1", 50), 293_427_299 % 50);
        assert_eq!(partition_for("x", 0), 0);
    }
}
