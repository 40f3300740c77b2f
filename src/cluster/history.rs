//! What the dashboard's charts draw: samples of the cluster taken every [`SAMPLE_MS`] of sim
//! time, kept in bounded rings (fixed memory however long the run). The sim takes them on its
//! own clock (an agenda service like the memory guard, see `World::schedule_services`), so no
//! sample is missed however fast the dashboard lets sim time run, and the same seed and
//! commands give the same samples. [`crate::cluster::snapshot::Snapshot::history`] shares them
//! with the UI.
//!
//! - cluster: records handed to the producers and records acknowledged, per sample period;
//! - per producer: records acknowledged, and the p50 and p99 produce latency of that period
//!   ([`crate::sim::producer_latency`]);
//! - per partition: ISR size, the leader's HW and each replica's LEO, for the last
//!   [`PARTITION_SAMPLES`] samples (every partition, so selecting one shows its past at once).

use crate::sim::producer_latency::LatencySummary;
use crate::sim::{BrokerId, Ms, Offset, TopicPartition};
use std::collections::VecDeque;

/// Sim time between two samples (ms).
pub const SAMPLE_MS: Ms = 1_000;
/// Cluster and producer samples kept: 10 minutes of sim time.
pub const CLUSTER_SAMPLES: usize = 600;
/// Samples kept per partition: its last 60 s of sim time.
pub const PARTITION_SAMPLES: usize = 60;

/// A ring of at most `capacity` values: pushing onto a full ring drops the oldest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ring<T> {
    items: VecDeque<T>,
    capacity: usize,
}

impl<T> Ring<T> {
    /// An empty ring that keeps at most `capacity` values (at least one).
    pub fn new(capacity: usize) -> Ring<T> {
        let capacity = capacity.max(1);
        Ring { items: VecDeque::with_capacity(capacity), capacity }
    }

    /// Adds `value` as the newest, dropping the oldest when full.
    pub fn push(&mut self, value: T) {
        if self.items.len() == self.capacity {
            self.items.pop_front();
        }
        self.items.push_back(value);
    }

    /// Values kept now.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// No value yet.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The most values it keeps.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Values, oldest first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + ExactSizeIterator {
        self.items.iter()
    }

    /// The newest value.
    pub fn last(&self) -> Option<&T> {
        self.items.back()
    }
}

/// Cluster-wide throughput in one sample period.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClusterSample {
    /// Records handed to the producers (`send()`), all producers.
    pub produced: u64,
    /// Records acknowledged to the producers (`acks=1` or `all`; `acks=0` records never are).
    pub acked: u64,
}

/// One producer in one sample period.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProducerSample {
    /// Records acknowledged.
    pub acked: u64,
    /// p50 and p99 produce latency of those records (`None` when there were none).
    pub latency: Option<LatencySummary>,
}

/// One partition's last [`PARTITION_SAMPLES`] samples. Its rings all have the same length
/// and end at [`History::last_at`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartitionHistory {
    /// The partition.
    pub tp: TopicPartition,
    /// ISR size.
    pub isr: Ring<u16>,
    /// The leader's HW (the highest replica HW while it has no leader).
    pub hw: Ring<Offset>,
    /// Each replica's LEO, by broker, in the order the replicas first appeared; `None` where
    /// the broker was not a replica or had no log for it. A broker's series is dropped once
    /// it holds no value.
    pub leo: Vec<(BrokerId, Ring<Option<Offset>>)>,
}

impl PartitionHistory {
    fn new(tp: TopicPartition) -> PartitionHistory {
        PartitionHistory {
            tp,
            isr: Ring::new(PARTITION_SAMPLES),
            hw: Ring::new(PARTITION_SAMPLES),
            leo: Vec::new(),
        }
    }

    /// Samples kept.
    pub fn len(&self) -> usize {
        self.hw.len()
    }

    /// No sample yet.
    pub fn is_empty(&self) -> bool {
        self.hw.is_empty()
    }

    /// Adds a sample: ISR size `isr`, HW `hw` and the replicas' LEOs `leos`.
    pub fn push(&mut self, isr: usize, hw: Offset, leos: &[(BrokerId, Option<Offset>)]) {
        let before = self.len();
        self.isr.push(u16::try_from(isr).unwrap_or(u16::MAX));
        self.hw.push(hw);
        for (broker, series) in &mut self.leo {
            series.push(leos.iter().find(|(b, _)| b == broker).and_then(|(_, leo)| *leo));
        }
        for &(broker, leo) in leos {
            if leo.is_some() && !self.leo.iter().any(|(b, _)| *b == broker) {
                let mut series = Ring::new(PARTITION_SAMPLES);
                (0..before.min(PARTITION_SAMPLES - 1)).for_each(|_| series.push(None));
                series.push(leo);
                self.leo.push((broker, series));
            }
        }
        self.leo.retain(|(_, series)| series.iter().any(Option::is_some));
    }
}

/// Every chart's samples. Cheap to share: the snapshot holds it in an `Arc`, and the sim
/// copies it only when it takes a sample while a snapshot still holds the old one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct History {
    /// Sim time of the newest sample (ms), `None` before the first. Sample `i` of a ring of
    /// `n` was taken at `last_at − (n − 1 − i) × SAMPLE_MS`.
    pub last_at: Option<Ms>,
    /// Cluster throughput.
    pub cluster: Ring<ClusterSample>,
    /// Per producer, by index.
    pub producers: Vec<Ring<ProducerSample>>,
    /// Per partition, in (topic, partition) order; deleted partitions are dropped.
    pub partitions: Vec<PartitionHistory>,
    /// Each producer's (sent, acked) counters at the previous sample, for the differences.
    totals: Vec<(u64, u64)>,
}

impl Default for History {
    fn default() -> Self {
        History {
            last_at: None,
            cluster: Ring::new(CLUSTER_SAMPLES),
            producers: Vec::new(),
            partitions: Vec::new(),
            totals: Vec::new(),
        }
    }
}

/// One producer as a sample reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProducerReading {
    /// Records handed to it so far.
    pub sent: u64,
    /// Records acknowledged so far.
    pub acked: u64,
    /// Latency of the records acknowledged in the sample period.
    pub latency: Option<LatencySummary>,
}

/// One partition as a sample reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartitionReading<'a> {
    /// The partition.
    pub tp: &'a TopicPartition,
    /// ISR size.
    pub isr: usize,
    /// The leader's HW.
    pub hw: Offset,
    /// Each replica's LEO (`None`: no log for it).
    pub leos: &'a [(BrokerId, Option<Offset>)],
}

impl History {
    /// Records the producers' counters at `at` (ms): the cluster's and each producer's
    /// records since the previous sample. Producers come in index order.
    pub fn sample_producers(&mut self, at: Ms, producers: &[ProducerReading]) {
        self.last_at = Some(at);
        let mut total = ClusterSample::default();
        for (i, p) in producers.iter().enumerate() {
            let (sent, acked) = self.totals.get(i).copied().unwrap_or((0, 0));
            let acked_now = p.acked.saturating_sub(acked);
            total.produced += p.sent.saturating_sub(sent);
            total.acked += acked_now;
            if self.producers.len() <= i {
                self.producers.push(Ring::new(CLUSTER_SAMPLES));
                self.totals.push((0, 0));
            }
            self.producers[i].push(ProducerSample { acked: acked_now, latency: p.latency });
            self.totals[i] = (p.sent, p.acked);
        }
        self.cluster.push(total);
    }

    /// Records one sample of every partition; `readings` come in (topic, partition) order.
    /// A partition seen for the first time starts its history here; one missing from
    /// `readings` (deleted) loses it.
    pub fn sample_partitions<'a>(&mut self, readings: impl Iterator<Item = PartitionReading<'a>>) {
        let mut old = std::mem::take(&mut self.partitions).into_iter().peekable();
        for r in readings {
            while old.next_if(|h| h.tp < *r.tp).is_some() {}
            let mut h = old.next_if(|h| h.tp == *r.tp).unwrap_or_else(|| PartitionHistory::new(r.tp.clone()));
            h.push(r.isr, r.hw, r.leos);
            self.partitions.push(h);
        }
    }

    /// The history of `tp`, if it has one.
    pub fn partition(&self, tp: &TopicPartition) -> Option<&PartitionHistory> {
        self.partitions.binary_search_by(|h| h.tp.cmp(tp)).ok().map(|i| &self.partitions[i])
    }

    /// The sim time (ms) of each of the newest `n` samples, oldest first.
    pub fn times(&self, n: usize) -> impl Iterator<Item = Ms> + '_ {
        let last = self.last_at.unwrap_or(0);
        (0..n as u64).rev().map(move |back| last.saturating_sub(back * SAMPLE_MS))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_ring_drops_its_oldest_value() {
        let mut r = Ring::new(3);
        (1..=5).for_each(|v| r.push(v));
        assert_eq!(r.iter().copied().collect::<Vec<_>>(), vec![3, 4, 5]);
        assert_eq!((r.len(), r.capacity(), r.last()), (3, 3, Some(&5)));
        assert_eq!(Ring::<u8>::new(0).capacity(), 1);
    }

    #[test]
    fn producer_samples_are_differences_of_the_counters() {
        let mut h = History::default();
        let reading = |sent, acked| ProducerReading { sent, acked, latency: None };
        h.sample_producers(1_000, &[reading(10, 8), reading(5, 5)]);
        h.sample_producers(2_000, &[reading(30, 20), reading(5, 5), reading(4, 1)]);
        let cluster: Vec<_> = h.cluster.iter().map(|c| (c.produced, c.acked)).collect();
        assert_eq!(cluster, vec![(15, 13), (24, 13)]);
        let acked: Vec<Vec<u64>> = h.producers.iter().map(|p| p.iter().map(|s| s.acked).collect()).collect();
        assert_eq!(acked, vec![vec![8, 12], vec![5, 0], vec![1]]);
        assert_eq!(h.times(3).collect::<Vec<_>>(), vec![0, 1_000, 2_000]);
    }

    fn tp(n: u32) -> TopicPartition {
        TopicPartition::new("t", n)
    }

    #[test]
    fn partitions_keep_their_samples_and_a_deleted_one_is_dropped() {
        let mut h = History::default();
        let (a, b, c) = (tp(0), tp(1), tp(2));
        let leos = [(0, Some(5)), (1, Some(4))];
        let read = |tp, isr| PartitionReading { tp, isr, hw: 4, leos: &leos };
        h.sample_partitions([read(&a, 2), read(&b, 2)].into_iter());
        h.sample_partitions([read(&a, 1), read(&c, 2)].into_iter());
        let tps: Vec<_> = h.partitions.iter().map(|p| p.tp.partition).collect();
        assert_eq!(tps, vec![0, 2]);
        let first = h.partition(&a).expect("partition 0 is kept");
        assert_eq!(first.isr.iter().copied().collect::<Vec<_>>(), vec![2, 1]);
        assert_eq!(h.partition(&c).map(PartitionHistory::len), Some(1));
        assert!(h.partition(&b).is_none());
    }

    #[test]
    fn a_replica_added_later_is_absent_before_and_one_removed_ages_out() {
        let mut p = PartitionHistory::new(tp(0));
        p.push(2, 3, &[(0, Some(3)), (1, Some(3))]);
        p.push(3, 4, &[(0, Some(4)), (1, Some(4)), (2, Some(1))]);
        let series = |p: &PartitionHistory, b| {
            p.leo.iter().find(|(x, _)| *x == b).map(|(_, s)| s.iter().copied().collect::<Vec<_>>())
        };
        assert_eq!(series(&p, 2), Some(vec![None, Some(1)]));
        // Broker 1 leaves the replica set: its values age out, then its series goes.
        for _ in 0..PARTITION_SAMPLES {
            p.push(2, 5, &[(0, Some(5)), (2, Some(5))]);
        }
        assert_eq!(series(&p, 1), None);
        assert_eq!(p.leo.iter().map(|(b, _)| *b).collect::<Vec<_>>(), vec![0, 2]);
        assert!(p.leo.iter().all(|(_, s)| s.len() == p.len()));
    }
}
