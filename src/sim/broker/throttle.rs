//! The broker's part in the replication throttles (KIP-73): where its fetch path consults
//! its [`ReplicationQuotas`] and the topics' throttled-replica lists. Kept apart from the
//! fetch path itself, which calls these hooks.
//!
//! - Leader side (`ReplicaManager.readFromLog` → `checkFetchDataInfo`): a partition whose
//!   leader replica is in `leader.replication.throttled.replicas` returns no records to a
//!   follower outside the ISR while the leader quota is exceeded (`shouldLeaderThrottle`:
//!   `!isReplicaInSync && quota.isThrottled(tp) && quota.isQuotaExceeded`, where in sync means
//!   in the partition's committed ISR, `Partition.inSyncReplicaIds`). Such data does not
//!   complete a parked fetch either (`DelayedFetch.tryComplete`), so the follower's fetch waits
//!   `replica.fetch.wait.max.ms`. Every response then records the bytes of its throttled
//!   partitions, in-sync followers' included (`KafkaApis.sizeOfThrottledPartitions`).
//! - Follower side (`RemoteLeaderEndPoint.buildFetch` → `shouldFollowerThrottle`): a
//!   partition in `follower.replication.throttled.replicas` is left out of the fetch while the
//!   follower quota is exceeded, unless its fetcher is in sync (lag 0 at its last response,
//!   `PartitionFetchState.isReplicaInSync`). A fetch left with no partition is not sent; the
//!   fetcher waits `replica.fetch.backoff.ms` (`AbstractFetcherThread.maybeFetch`). The bytes
//!   of throttled partitions are recorded as they arrive
//!   (`ReplicaFetcherThread.processPartitionData`).
//!
//! So Kafka never throttles a replica that is in sync: "to avoid ISR thrashing" (the doc
//! comments of both `shouldLeaderThrottle` and `shouldFollowerThrottle`).

use super::Broker;
use crate::sim::Ms;
use crate::sim::partition::Partition;
use crate::sim::protocol::{FetchPartition, FetchedPartition};
use crate::sim::quota::ReplicationQuotas;
use crate::sim::{BrokerId, TopicPartition};
use std::collections::BTreeSet;

impl Broker {
    /// Fresh quota sensors for a starting process (`QuotaFactory` creates them at start, with
    /// the `replication.quota.window.*` settings it starts with).
    pub(super) fn reset_quotas(&mut self) {
        self.quotas = ReplicationQuotas::new(&self.config);
    }

    /// Whether this broker's leader replica of `tp` is listed as throttled
    /// (`quotas.leader.isThrottled`).
    fn leader_throttled(&self, tp: &TopicPartition) -> bool {
        let topic = self.topic_configs.get(&tp.topic);
        topic
            .and_then(|c| c.leader_replication_throttled_replicas.as_ref())
            .is_some_and(|r| r.covers(tp.partition, self.id))
    }

    /// Whether this broker's follower replica of `tp` is listed as throttled
    /// (`quotas.follower.isThrottled`).
    fn follower_throttled(&self, tp: &TopicPartition) -> bool {
        let topic = self.topic_configs.get(&tp.topic);
        topic
            .and_then(|c| c.follower_replication_throttled_replicas.as_ref())
            .is_some_and(|r| r.covers(tp.partition, self.id))
    }

    /// `ReplicaManager.shouldLeaderThrottle` for `replica`'s fetch of `tp` at `now`.
    fn should_leader_throttle(&mut self, now: Ms, tp: &TopicPartition, replica: BrokerId) -> bool {
        let in_sync =
            self.partitions.get(tp).and_then(Partition::state).is_some_and(|s| s.isr.contains(&replica));
        !in_sync
            && self.leader_throttled(tp)
            && self.quotas.leader.is_exceeded(now, self.config.leader_replication_throttled_rate)
    }

    /// Empties the records of `fetched` if the leader throttles them for `replica`
    /// (`checkFetchDataInfo` returns `MemoryRecords.EMPTY`, keeping HW and log start).
    pub(super) fn throttle_read(&mut self, now: Ms, replica: BrokerId, fetched: &mut FetchedPartition) {
        let has_records = fetched.result.as_ref().is_ok_and(|d| !d.batches.is_empty());
        if has_records
            && self.should_leader_throttle(now, &fetched.tp, replica)
            && let Ok(d) = &mut fetched.result
        {
            d.batches.clear();
        }
    }

    /// Whether partition `fp` of a parked fetch from `replica` lets it complete: it moved
    /// (no longer led here, another epoch) or has records past the fetch offset that the
    /// leader would not throttle (`DelayedFetch.tryComplete` skips throttled partitions' bytes).
    pub(super) fn parked_partition_ready(&mut self, now: Ms, replica: BrokerId, fp: &FetchPartition) -> bool {
        let Some(p) = self.partitions.get(&fp.tp) else { return true };
        let same_epoch = p.state().is_some_and(|s| s.leader_epoch == fp.current_leader_epoch);
        if !p.is_leader() || !same_epoch {
            return true;
        }
        p.can_complete_fetch(fp) && !self.should_leader_throttle(now, &fp.tp, replica)
    }

    /// Records the bytes of a response's leader-throttled partitions
    /// (`KafkaApis.sizeOfThrottledPartitions` → `quotas.leader.record`).
    pub(super) fn record_leader_throttled(&mut self, now: Ms, partitions: &[FetchedPartition]) {
        let bytes = self.throttled_bytes(partitions, Self::leader_throttled);
        self.quotas.leader.record(now, bytes);
    }

    /// Records the bytes received for follower-throttled partitions
    /// (`ReplicaFetcherThread.processPartitionData` → `quota.record`).
    pub(super) fn record_follower_throttled(&mut self, now: Ms, partitions: &[FetchedPartition]) {
        let bytes = self.throttled_bytes(partitions, Self::follower_throttled);
        self.quotas.follower.record(now, bytes);
    }

    fn throttled_bytes(
        &self,
        partitions: &[FetchedPartition],
        throttled: fn(&Self, &TopicPartition) -> bool,
    ) -> u64 {
        partitions
            .iter()
            .filter(|fp| throttled(self, &fp.tp))
            .filter_map(|fp| fp.result.as_ref().ok())
            .flat_map(|d| d.batches.iter().map(|b| u64::from(b.size_bytes)))
            .sum()
    }

    /// Whether the follower quota is exceeded at `now` (asked once per fetch built, as every
    /// partition of one `buildFetch` sees the same quota).
    pub(super) fn follower_quota_exceeded(&mut self, now: Ms) -> bool {
        self.quotas.follower.is_exceeded(now, self.config.follower_replication_throttled_rate)
    }

    /// `RemoteLeaderEndPoint.shouldFollowerThrottle` for partition `p`, given whether the
    /// follower quota is exceeded.
    pub(super) fn should_follower_throttle(&self, quota_exceeded: bool, p: &Partition) -> bool {
        quota_exceeded && !p.fetch_in_sync() && self.follower_throttled(&p.tp)
    }

    /// The partitions of the fetcher towards `leader` that the follower throttle leaves out
    /// of its next fetch, given whether the follower quota is exceeded. Each is marked in the
    /// fetcher's session, as is each partition it left out last time, so the session drops or
    /// takes back exactly these (the quota changes with time, not with the partitions).
    pub(super) fn throttle_marks(
        &mut self,
        leader: BrokerId,
        quota_exceeded: bool,
    ) -> BTreeSet<TopicPartition> {
        let Some(fetcher) = self.fetchers.get(&leader) else { return BTreeSet::new() };
        let held_back: BTreeSet<TopicPartition> = match quota_exceeded {
            false => BTreeSet::new(),
            true => fetcher
                .members
                .iter()
                .filter(|tp| self.partitions.get(tp).is_some_and(|p| self.should_follower_throttle(true, p)))
                .cloned()
                .collect(),
        };
        if let Some(f) = self.fetchers.get_mut(&leader) {
            let previous = std::mem::take(&mut f.held_back);
            previous.iter().chain(&held_back).for_each(|tp| f.session.mark(tp));
        }
        held_back
    }

    /// Backs off the fetchers towards `throttled` leaders that got no fetch this time because
    /// every partition was throttled: an empty fetch is not sent, and the fetcher thread waits
    /// `replica.fetch.backoff.ms` (`AbstractFetcherThread.maybeFetch`).
    pub(super) fn back_off_throttled_fetchers(&mut self, now: Ms, throttled: BTreeSet<BrokerId>) {
        let until = now + self.config.replica_fetch_backoff_ms.max(1);
        for leader in throttled {
            let fetcher = self.fetchers.entry(leader).or_default();
            if fetcher.in_flight.is_none() && fetcher.backoff_until <= now {
                fetcher.backoff_until = until;
            }
        }
    }
}
