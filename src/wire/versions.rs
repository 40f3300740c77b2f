//! The one table of the APIs and versions the adapter serves. It decides which requests are
//! read and it is what ApiVersions advertises (Kafka's `ApiVersionsResponse`, KIP-511).

use kafka_protocol::messages::ApiKey;

/// Every API served, with its lowest and highest version.
pub const SUPPORTED: &[(ApiKey, i16, i16)] = &[
    (ApiKey::Produce, 3, 9),
    (ApiKey::Fetch, 4, 12),
    (ApiKey::ListOffsets, 1, 7),
    (ApiKey::Metadata, 0, 12),
    (ApiKey::OffsetForLeaderEpoch, 2, 4),
    (ApiKey::ApiVersions, 0, 4),
    (ApiKey::InitProducerId, 0, 4),
    (ApiKey::FindCoordinator, 0, 3),
    (ApiKey::JoinGroup, 0, 5),
    (ApiKey::SyncGroup, 0, 3),
    (ApiKey::Heartbeat, 0, 3),
    (ApiKey::LeaveGroup, 0, 4),
    (ApiKey::OffsetCommit, 2, 8),
    (ApiKey::OffsetFetch, 1, 7),
    (ApiKey::DescribeTopicPartitions, 0, 0),
];

/// The supported range of `key`, if it is served.
pub fn range(key: ApiKey) -> Option<(i16, i16)> {
    SUPPORTED.iter().find(|(k, _, _)| *k == key).map(|(_, lo, hi)| (*lo, *hi))
}

/// Whether version `v` of `key` is served.
pub fn supports(key: ApiKey, v: i16) -> bool {
    range(key).is_some_and(|(lo, hi)| (lo..=hi).contains(&v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_range_is_one_the_crate_can_read_and_write() {
        for (key, lo, hi) in SUPPORTED {
            let valid = key.valid_versions();
            assert!(valid.min <= *lo && *hi <= valid.max, "{key:?} {lo}..{hi} outside {valid:?}");
        }
        assert!(supports(ApiKey::Metadata, 12) && !supports(ApiKey::Metadata, 13));
        assert!(!supports(ApiKey::Produce, 2));
    }
}
