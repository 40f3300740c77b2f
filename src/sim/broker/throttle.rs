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
use crate::config::{ThrottledReplicas, TopicConfig};
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
        self.listed_throttled(tp, |c| c.leader_replication_throttled_replicas.as_ref())
    }

    /// Whether this broker's follower replica of `tp` is listed as throttled
    /// (`quotas.follower.isThrottled`).
    fn follower_throttled(&self, tp: &TopicPartition) -> bool {
        self.listed_throttled(tp, |c| c.follower_replication_throttled_replicas.as_ref())
    }

    /// Whether this broker's replica of `tp` is in the topic's throttled-replica list that
    /// `list` picks.
    fn listed_throttled(
        &self,
        tp: &TopicPartition,
        list: impl FnOnce(&TopicConfig) -> Option<&ThrottledReplicas>,
    ) -> bool {
        self.topic_configs.get(&tp.topic).and_then(list).is_some_and(|r| r.covers(tp.partition, self.id))
    }

    /// `ReplicaManager.shouldLeaderThrottle` for `replica`'s fetch of `tp` at `now`.
    fn should_leader_throttle(&mut self, now: Ms, tp: &TopicPartition, replica: BrokerId) -> bool {
        let in_sync =
            self.partitions.get(tp).and_then(Partition::state).is_some_and(|s| s.isr.contains(&replica));
        !in_sync
            && self.leader_throttled(tp)
            && self.quotas.leader.is_exceeded(now, self.config.leader_throttle_rate(self.id))
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
        self.quotas.follower.is_exceeded(now, self.config.follower_throttle_rate(self.id))
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
        let Some(fetcher) = self.fetchers.get(leader) else { return BTreeSet::new() };
        let held_back: BTreeSet<TopicPartition> = match quota_exceeded {
            false => BTreeSet::new(),
            true => fetcher
                .members
                .iter()
                .filter(|tp| self.partitions.get(tp).is_some_and(|p| self.should_follower_throttle(true, p)))
                .cloned()
                .collect(),
        };
        if let Some(f) = self.fetchers.get_mut(leader) {
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
            self.fetchers.update_or_insert(leader, |fetcher| {
                if fetcher.in_flight.is_none() && fetcher.backoff_until <= now {
                    fetcher.backoff_until = until;
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::config::{BrokerConfig, ThrottledReplicas, TopicConfig};
    use crate::sim::broker::Broker;
    use crate::sim::fetch_session::{FINAL_EPOCH, FetchMetadata, INVALID_SESSION_ID};
    use crate::sim::protocol::{
        Batch, BrokerRegistration, FetchRequest, LeaderRecoveryState, Message, MetadataDelta, NodeId,
        PartitionState, ProduceRequest, Values,
    };
    use crate::sim::{Acks, BrokerId, Ms, Outbox, TopicPartition};
    use std::sync::Arc;

    fn tp() -> TopicPartition {
        TopicPartition::new("foo", 0)
    }

    /// foo-0 on brokers 0, 1, 2, led by 0, ISR {0, 1}; every replica throttled both ways.
    fn image(config: &BrokerConfig) -> MetadataDelta {
        let reg =
            |id| BrokerRegistration { id, broker_epoch: 1, fenced: false, in_controlled_shutdown: false };
        let topic = TopicConfig {
            leader_replication_throttled_replicas: Some(ThrottledReplicas::All),
            follower_replication_throttled_replicas: Some(ThrottledReplicas::All),
            ..TopicConfig::NONE
        };
        MetadataDelta {
            brokers: vec![reg(0), reg(1), reg(2)],
            partitions: vec![PartitionState {
                topic_id: crate::sim::TopicId::from_bits(7),
                tp: tp(),
                replicas: vec![0, 1, 2],
                isr: vec![0, 1],
                leader: Some(0),
                leader_epoch: 0,
                partition_epoch: 0,
                leader_recovery: LeaderRecoveryState::Recovered,
                adding: Vec::new(),
                removing: Vec::new(),
                elr: Vec::new(),
                last_known_elr: Vec::new(),
            }],
            topic_configs: vec![(Arc::from("foo"), topic)],
            broker_config: Some(Arc::new(config.clone())),
            deleted_topics: Vec::new(),
            offset: 0,
        }
    }

    fn broker(id: BrokerId, config: &BrokerConfig) -> Broker {
        let mut b = Broker::new(id, config.clone());
        b.start_bootstrapped(0, 1, &image(config), &mut Outbox::default());
        b
    }

    /// Ten 100-byte records (1 061 bytes with the batch header) appended at `now`.
    fn produce(leader: &mut Broker, now: Ms, first: u64) {
        let batch = Batch {
            producer_id: -1,
            base_sequence: -1,
            values: Values::range(first, 10),
            record_size: 100,
            max_timestamp: now,
        };
        let req = ProduceRequest {
            correlation_id: first,
            producer: 0,
            tp: tp(),
            acks: Acks::One,
            timeout_ms: 30_000,
            batch,
        };
        leader.handle(now, NodeId::Producer(0), Message::Produce(req), &mut Outbox::default());
    }

    fn fetch(leader: &mut Broker, now: Ms, replica: BrokerId, offset: i64, out: &mut Outbox) {
        let fp = crate::sim::protocol::FetchPartition {
            tp: tp(),
            topic_id: crate::sim::TopicId::from_bits(7),
            current_leader_epoch: 0,
            fetch_offset: offset,
            last_fetched_epoch: (offset > 0).then_some(0),
            log_start_offset: 0,
        };
        let req = FetchRequest {
            correlation_id: now,
            replica,
            broker_epoch: 1,
            max_wait_ms: 500,
            min_bytes: 1,
            partition_max_bytes: 1 << 20,
            max_bytes: 10 << 20,
            // Sessionless (epoch FINAL): each fetch stands alone.
            session: FetchMetadata { session_id: INVALID_SESSION_ID, epoch: FINAL_EPOCH },
            partitions: vec![fp],
            forgotten: Vec::new(),
        };
        leader.handle(now, NodeId::Broker(replica), Message::Fetch(req), out);
    }

    /// Records each fetch response in `out` carried for foo-0 (`None`: no response).
    fn records(out: &Outbox) -> Option<u32> {
        out.sends.iter().find_map(|(_, m)| match m {
            Message::FetchResponse(r) => {
                r.partitions[0].result.as_ref().ok().map(|d| d.batches.iter().map(|b| b.count()).sum())
            }
            _ => None,
        })
    }

    /// `ReplicaManager.shouldLeaderThrottle` and `DelayedFetch`: once the leader's rate of
    /// throttled bytes is over the bound, a follower outside the ISR gets no records, its
    /// fetch stays parked even when new data arrives and is answered empty at its deadline,
    /// while a follower in the ISR still gets everything.
    #[test]
    fn the_leader_starves_only_followers_outside_the_isr() {
        let config = BrokerConfig { leader_replication_throttled_rate: 1000, ..BrokerConfig::default() };
        let mut leader = broker(0, &config);
        produce(&mut leader, 10, 0);
        let mut out = Outbox::default();
        fetch(&mut leader, 20, 2, 0, &mut out);
        assert_eq!(records(&out), Some(10), "under the bound at first");
        produce(&mut leader, 30, 10);
        let mut out = Outbox::default();
        fetch(&mut leader, 40, 1, 10, &mut out);
        assert_eq!(records(&out), Some(10), "broker 1 is in the ISR");
        let mut out = Outbox::default();
        fetch(&mut leader, 50, 2, 10, &mut out);
        assert_eq!(records(&out), None, "throttled data does not answer the fetch");
        produce(&mut leader, 60, 20);
        let mut out = Outbox::default();
        leader.on_tick(549, &mut out);
        assert_eq!(records(&out), None, "nor does new throttled data complete it");
        leader.on_tick(550, &mut out);
        assert_eq!(records(&out), Some(0), "answered empty at replica.fetch.wait.max.ms");
        // 3 183 bytes recorded at ~40 ms are under 1 000 bytes/s once 3.2 s have passed.
        let mut out = Outbox::default();
        fetch(&mut leader, 3300, 2, 10, &mut out);
        assert_eq!(records(&out), Some(20));
    }

    /// `shouldFollowerThrottle` and `AbstractFetcherThread.maybeFetch`: over its bound, a
    /// follower behind the HW leaves the throttled partition out; with nothing left it sends
    /// no fetch and waits `replica.fetch.backoff.ms`, then asks its quota again. With fetch
    /// sessions (KIP-227) leaving the partition out of the builder removes it from the
    /// session, so Kafka first sends one fetch that only forgets it
    /// (`RemoteLeaderEndPoint.buildFetch` sends when `toForget` is not empty); the leader,
    /// whose session is then empty, closes it and answers at once, and only then does the
    /// follower find nothing to send and back off.
    #[test]
    fn the_follower_leaves_out_a_partition_behind_the_hw() {
        let config = BrokerConfig { follower_replication_throttled_rate: 1000, ..BrokerConfig::default() };
        // The leader answers one batch per fetch (the soft limit, KIP-74).
        let mut leader = broker(0, &BrokerConfig { replica_fetch_max_bytes: 1, ..config.clone() });
        let mut follower = broker(2, &config);
        for (i, t) in [1, 2, 3].into_iter().enumerate() {
            produce(&mut leader, t, i as u64 * 10);
        }
        // Broker 1, in the ISR, has everything: the leader's HW is 30.
        fetch(&mut leader, 4, 1, 30, &mut Outbox::default());
        let fetches = |out: &Outbox| {
            out.sends
                .iter()
                .filter(|(to, m)| *to == NodeId::Broker(0) && matches!(m, Message::Fetch(_)))
                .count()
        };
        let mut out = Outbox::default();
        follower.on_tick(10, &mut out);
        let Some((_, Message::Fetch(req))) =
            out.sends.into_iter().find(|(_, m)| matches!(m, Message::Fetch(_)))
        else {
            panic!("the follower fetches at first")
        };
        let mut reply = Outbox::default();
        leader.handle(11, NodeId::Broker(2), Message::Fetch(req), &mut reply);
        let resp = reply.sends.into_iter().map(|(_, m)| m).find(|m| matches!(m, Message::FetchResponse(_)));
        let mut out = Outbox::default();
        follower.handle(12, NodeId::Broker(0), resp.unwrap(), &mut out);
        let part = follower.partition(&tp()).unwrap();
        assert_eq!(part.log.leo(), 10);
        assert!(!part.fetch_in_sync(), "the leader's HW 30 is ahead");
        assert_eq!(fetches(&out), 1, "one fetch that forgets the throttled partition");
        let Some((_, Message::Fetch(forget))) =
            out.sends.into_iter().find(|(_, m)| matches!(m, Message::Fetch(_)))
        else {
            panic!("the forgetting fetch")
        };
        assert!(
            forget.partitions.is_empty()
                && forget.forgotten
                    == vec![crate::sim::TopicIdPartition {
                        topic_id: crate::sim::TopicId::from_bits(7),
                        partition: 0
                    }]
        );
        let mut reply = Outbox::default();
        leader.handle(13, NodeId::Broker(2), Message::Fetch(forget), &mut reply);
        let resp = reply.sends.into_iter().map(|(_, m)| m).find(|m| matches!(m, Message::FetchResponse(_)));
        let mut out = Outbox::default();
        follower.handle(14, NodeId::Broker(0), resp.expect("answered at once"), &mut out);
        assert_eq!(fetches(&out), 0, "1 061 bytes in the first second: over 1 000 bytes/s");
        let mut out = Outbox::default();
        follower.on_tick(1013, &mut out);
        assert_eq!(fetches(&out), 0, "backing off replica.fetch.backoff.ms");
        follower.on_tick(1014, &mut out);
        assert_eq!(fetches(&out), 0, "still over the bound at 1 014 ms: backs off again");
        follower.on_tick(2013, &mut out);
        assert_eq!(fetches(&out), 0);
        follower.on_tick(2014, &mut out);
        assert_eq!(fetches(&out), 1, "1 061 bytes over 2 s: under the bound");
    }
}
