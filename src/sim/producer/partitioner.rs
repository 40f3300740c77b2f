//! How the producer picks a record's partition, as Kafka 4.1's Java producer does
//! (`KafkaProducer.partition`, `BuiltInPartitioner`, the partitioner half of
//! `RecordAccumulator.append` and `RecordAccumulator.partitionReady`, and
//! `RoundRobinPartitioner`):
//!
//! - With `partitioner.class` = `RoundRobinPartitioner`, every record (keyed or not) goes to
//!   the next partition with a leader, by one counter; to any partition when none has one.
//!   Kafka 4.0 removed `Partitioner.onNewBatch` and the second `partition()` call that went
//!   with it (KAFKA-18295), so the uneven spread of KAFKA-9965 is gone and not modelled.
//! - A keyed record (unless `partitioner.ignore.keys`) goes to
//!   `toPositive(murmur2(key)) % partitions`, over every partition, leader or not
//!   (`BuiltInPartitioner.partitionForKey`; the key's bytes are its UTF-8, as Kafka's
//!   `StringSerializer` makes them).
//! - A keyless record goes to the sticky partition (KIP-480 with the KIP-794 fix). The sticky
//!   partition changes once `batch.size` bytes (batch headers included) were appended to it,
//!   but only where that does not leave a partly filled batch behind: the switch waits until
//!   the partition's last batch is full or sent, and happens regardless at twice `batch.size`
//!   (`BuiltInPartitioner.updatePartitionInfo`, `RecordAccumulator.partitionChanged`). The next
//!   sticky partition is drawn at random among the partitions with a leader, weighted towards
//!   short queues when adaptive partitioning is on (`BuiltInPartitioner.nextPartition`,
//!   `updatePartitionLoadStats`), so a leader that drains slowly gets fewer records.
//!
//! The random draws come from the producer's own seeded stream, so a run repeats exactly.

use crate::config::{PartitionerClass, ProducerConfig, RECORD_BATCH_OVERHEAD};
use crate::sim::{BrokerId, Ms};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Kafka's `Utils.murmur2`: the 32-bit MurmurHash2 of `data` with seed `0x9747b28c`, as a
/// Java `int` (keys are hashed with it to pick their partition).
pub fn murmur2(data: &[u8]) -> i32 {
    const SEED: u32 = 0x9747_b28c;
    const M: u32 = 0x5bd1_e995;
    const R: u32 = 24;
    let mut h = SEED ^ data.len() as u32;
    let mut chunks = data.chunks_exact(4);
    for chunk in &mut chunks {
        let mut k = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M) ^ k;
    }
    let tail = chunks.remainder();
    if !tail.is_empty() {
        for (i, &b) in tail.iter().enumerate().rev() {
            h ^= u32::from(b) << (8 * i);
        }
        h = h.wrapping_mul(M);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^= h >> 15;
    h as i32
}

/// Kafka's `Utils.toPositive`: clears the sign bit (not `abs`, so `i32::MIN` maps to 0).
pub fn to_positive(n: i32) -> u32 {
    (n & 0x7fff_ffff) as u32
}

/// What a record's key hashes to before the partition count is applied:
/// `toPositive(murmur2(UTF-8 bytes of key))`.
pub fn key_hash(key: &str) -> u32 {
    to_positive(murmur2(key.as_bytes()))
}

/// The partition of a keyed record among `partitions` (`BuiltInPartitioner.partitionForKey`).
pub fn partition_for_key(key_hash: u32, partitions: usize) -> usize {
    key_hash as usize % partitions.max(1)
}

/// What the partitioner reads of the accumulator, one entry per partition (the producer's
/// routing copy of the metadata and its queues).
pub trait Queues {
    /// Partitions of the topic.
    fn count(&self) -> usize;
    /// The partition's leader as the producer knows it.
    fn leader(&self, i: usize) -> Option<BrokerId>;
    /// Records of the partition waiting in the accumulator, not yet in a sent batch.
    fn waiting(&self, i: usize) -> usize;
    /// Batches of the partition in the accumulator's deque: re-enqueued ones plus the batches
    /// its waiting records form (Java `Deque<ProducerBatch>.size()`).
    fn queued_batches(&self, i: usize) -> usize;
    /// The partitions with a leader, in partition order (Java's
    /// `Cluster.availablePartitionsForTopic`), when the caller keeps them listed; `None` makes
    /// the partitioner find them from [`Self::leader`].
    fn with_leader(&self) -> Option<&Arc<[usize]>> {
        None
    }
    /// Partitions that may have queued batches, in partition order: every partition whose
    /// [`Self::queued_batches`] is not 0 is among them. By default every partition.
    fn holding(&self) -> Vec<usize> {
        (0..self.count()).collect()
    }
}

/// How records fill batches, from the producer config.
#[derive(Clone, Copy, Debug)]
struct Shape {
    records_per_batch: usize,
    record_size: u64,
    batch_size: u64,
}

impl Shape {
    fn of(config: &ProducerConfig) -> Self {
        Shape {
            records_per_batch: config.records_per_batch().max(1),
            record_size: u64::from(config.record_size),
            batch_size: config.batch_size.max(1),
        }
    }

    /// Whether a partition with `waiting` records has no partly filled batch at its tail
    /// (`RecordAccumulator.allBatchesFull`): none waits, or the last batch reached `batch.size`
    /// bytes (`MemoryRecordsBuilder.isFull`). A batch that merely cannot take one more record is
    /// closed only when the next record starts a new batch, so until then it does not count.
    fn tail_full(&self, waiting: usize) -> bool {
        if waiting == 0 {
            return true;
        }
        let in_last = (waiting - 1) % self.records_per_batch + 1;
        u64::from(RECORD_BATCH_OVERHEAD) + in_last as u64 * self.record_size >= self.batch_size
    }

    /// Bytes one more record adds to a partition with `waiting` records: the record, plus the
    /// batch header when it starts a new batch (`RecordAppendResult.appendedBytes`).
    fn appended_bytes(&self, waiting: usize) -> u64 {
        let header = if waiting.is_multiple_of(self.records_per_batch) { RECORD_BATCH_OVERHEAD } else { 0 };
        self.record_size + u64::from(header)
    }
}

/// The sticky partition and the bytes appended to it so far (`StickyPartitionInfo`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Sticky {
    partition: usize,
    produced_bytes: u64,
}

/// Weights for the next sticky partition (`PartitionLoadStats`): a cumulative frequency table
/// over `len` slots, one per partition with a leader (less those left out for a slow leader),
/// where a partition with a shorter queue has a larger step: `max + 1 - size`. Kept sparse,
/// so that building it costs per partition with batches, not per partition: most slots hold
/// an empty queue (step `max + 1`), and only slots with a size are stored.
#[derive(Clone, Debug, PartialEq, Eq)]
struct LoadStats {
    /// The partitions with a leader when the stats were made.
    led: Arc<[usize]>,
    /// Places in `led` left out (a slow leader's), ascending; slot `k` is the `k`-th place
    /// not left out.
    dropped: Vec<usize>,
    /// Slots with a queue size (not 0), ascending by slot, with the running sum of sizes.
    sizes: Vec<(usize, u32, u64)>,
    len: usize,
    max_plus_1: u64,
    total: u64,
}

impl LoadStats {
    /// `BuiltInPartitioner.updatePartitionLoadStats` over what `RecordAccumulator.partitionReady`
    /// collected, from `events`: each partition with a leader and queued batches, in partition
    /// order, with its batch count and whether its leader is too slow. Java fills one slot per
    /// partition with a leader and takes a slow leader's slot back, so the next partition reuses
    /// it, queue size included when that one writes none; that is kept. `None` (uniform) when
    /// no slot is left, or when every partition is in and all queues are equal.
    fn build(n: usize, led: Arc<[usize]>, events: impl Iterator<Item = (usize, u32, bool)>) -> Option<Self> {
        let mut dropped: Vec<usize> = Vec::new();
        let mut sizes: Vec<(usize, u32, u64)> = Vec::new();
        for (i, batches, slow) in events {
            let place = led.binary_search(&i).expect("a partition with a leader is listed");
            let slot = place - dropped.len();
            match sizes.last_mut() {
                Some(last) if last.0 == slot => last.1 = batches,
                _ => sizes.push((slot, batches, 0)),
            }
            if slow {
                dropped.push(place);
            }
        }
        let len = led.len() - dropped.len();
        sizes.retain(|&(slot, _, _)| slot < len);
        if len < 1 || n < 2 {
            return None;
        }
        let all_equal = sizes.is_empty() || (sizes.len() == len && sizes.iter().all(|s| s.1 == sizes[0].1));
        if len == n && all_equal {
            return None;
        }
        let max_plus_1 = u64::from(sizes.iter().map(|s| s.1).max().unwrap_or(0)) + 1;
        let mut sum = 0u64;
        for s in &mut sizes {
            sum += u64::from(s.1);
            s.2 = sum;
        }
        let total = len as u64 * max_plus_1 - sum;
        Some(LoadStats { led, dropped, sizes, len, max_plus_1, total })
    }

    /// The cumulative weight up to and including slot `k`.
    fn cumulative_at(&self, k: usize) -> u64 {
        let before = self.sizes.partition_point(|&(slot, _, _)| slot <= k);
        let sum = if before == 0 { 0 } else { self.sizes[before - 1].2 };
        (k as u64 + 1) * self.max_plus_1 - sum
    }

    /// The partition in slot `k`.
    fn id(&self, k: usize) -> usize {
        let mut place = k;
        for &d in &self.dropped {
            if d > place {
                break;
            }
            place += 1;
        }
        self.led[place]
    }

    /// The partition a draw of `random` picks: the first slot whose cumulative weight is above
    /// `random % total` (`nextPartition`'s binary search).
    fn pick(&self, random: usize) -> usize {
        let r = random as u64 % self.total;
        let (mut lo, mut hi) = (0, self.len);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.cumulative_at(mid) <= r {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        self.id(lo)
    }
}

/// When a leader last had batches ready and when it could last take them
/// (`RecordAccumulator.NodeLatencyStats`, for `partitioner.availability.timeout.ms`).
#[derive(Clone, Copy, Debug)]
struct NodeLatency {
    ready_ms: Ms,
    drain_ms: Ms,
}

/// One producer's partitioner state for its topic (Java keeps one `BuiltInPartitioner` per
/// topic and one `RoundRobinPartitioner` counter per topic; an isrlab producer has one topic).
#[derive(Clone, Debug)]
pub struct Partitioner {
    rng: ChaCha8Rng,
    sticky: Option<Sticky>,
    /// `None`: uniform choice among partitions with a leader.
    load: Option<LoadStats>,
    /// The load stats are out of date: a sender pass should have recomputed them from the
    /// queues as they are now ([`Self::defer_load`]).
    load_due: bool,
    /// Partitions that have had a deque in the accumulator since the start (Java never removes
    /// an entry from `TopicInfo.batches`); adaptive partitioning waits until all have one.
    has_deque: Vec<bool>,
    deques: usize,
    /// `RoundRobinPartitioner`'s counter (a Java `int`, so it wraps).
    round_robin: i32,
    nodes: BTreeMap<BrokerId, NodeLatency>,
}

impl Partitioner {
    /// A partitioner drawing from `rng` (a stream of its own, so that its draws do not shift
    /// the producer's backoff jitter).
    pub fn new(rng: ChaCha8Rng) -> Self {
        Partitioner {
            rng,
            sticky: None,
            load: None,
            load_due: false,
            has_deque: Vec::new(),
            deques: 0,
            round_robin: 0,
            nodes: BTreeMap::new(),
        }
    }

    /// The current sticky partition, if one was chosen.
    pub fn sticky_partition(&self) -> Option<usize> {
        self.sticky.map(|s| s.partition)
    }

    /// Picks the partition for one record about to be appended (callers append it to the
    /// returned partition at once, and `queues.count()` is at least 1). `key_hash` is
    /// [`key_hash`] of its key, `None` for a keyless record. Mirrors `KafkaProducer.partition`
    /// followed by the partition half of `RecordAccumulator.append`.
    pub fn choose(&mut self, config: &ProducerConfig, key_hash: Option<u32>, queues: &impl Queues) -> usize {
        let n = queues.count();
        let chosen = match (config.partitioner_class, key_hash) {
            (PartitionerClass::RoundRobin, _) => self.round_robin(queues),
            (PartitionerClass::BuiltIn, Some(h)) if !config.partitioner_ignore_keys => {
                partition_for_key(h, n)
            }
            (PartitionerClass::BuiltIn, _) => self.sticky_append(config, queues),
        };
        self.note_deque(chosen, n);
        chosen
    }

    /// `RoundRobinPartitioner.partition`: the counter's next value over the partitions with a
    /// leader, or over all when none has one.
    fn round_robin(&mut self, queues: &impl Queues) -> usize {
        let next = to_positive(self.round_robin) as usize;
        self.round_robin = self.round_robin.wrapping_add(1);
        nth_with_leader(queues, next)
    }

    /// The sticky partition for one keyless record, with its bytes counted: first a switch
    /// left pending while the partition's last batch was partly filled is completed if that
    /// batch is now full or gone (`partitionChanged`), then the record's bytes are added and
    /// the partition switches if `batch.size` is reached with no partly filled batch left, or
    /// twice `batch.size` is reached anyway (`updatePartitionInfo`).
    fn sticky_append(&mut self, config: &ProducerConfig, queues: &impl Queues) -> usize {
        let shape = Shape::of(config);
        let mut sticky = match self.sticky {
            Some(s) if s.partition < queues.count() => s,
            _ => self.fresh_sticky(config, queues),
        };
        if shape.tail_full(queues.waiting(sticky.partition)) && sticky.produced_bytes >= shape.batch_size {
            sticky = self.fresh_sticky(config, queues);
        }
        let waiting = queues.waiting(sticky.partition);
        sticky.produced_bytes += shape.appended_bytes(waiting);
        let enable_switch = shape.tail_full(waiting + 1);
        let chosen = sticky.partition;
        self.sticky = if (sticky.produced_bytes >= shape.batch_size && enable_switch)
            || sticky.produced_bytes >= 2 * shape.batch_size
        {
            Some(self.fresh_sticky(config, queues))
        } else {
            Some(sticky)
        };
        chosen
    }

    fn fresh_sticky(&mut self, config: &ProducerConfig, queues: &impl Queues) -> Sticky {
        Sticky { partition: self.next_partition(config, queues), produced_bytes: 0 }
    }

    /// `BuiltInPartitioner.nextPartition`: a random partition, weighted by the load stats when
    /// there are any, else uniform among the partitions with a leader (all when none has one).
    /// Stats left out of date by [`Self::defer_load`] are computed first.
    fn next_partition(&mut self, config: &ProducerConfig, queues: &impl Queues) -> usize {
        self.settle_load(config, queues);
        let random = to_positive(self.rng.random::<i32>()) as usize;
        match &self.load {
            Some(load) => load.pick(random),
            None => nth_with_leader(queues, random),
        }
    }

    fn note_deque(&mut self, i: usize, n: usize) {
        if self.has_deque.len() < n {
            self.has_deque.resize(n, false);
        }
        if !self.has_deque[i] {
            self.has_deque[i] = true;
            self.deques += 1;
        }
    }

    /// Recomputes the weights for the next sticky partition from the queues, as the sender's
    /// `RecordAccumulator.partitionReady` does on each pass (before the pass records leader
    /// latencies with [`Self::note_leader`]). Only with the built-in partitioner, adaptive
    /// partitioning on, and every partition having had a deque; partitions without a leader
    /// are left out, and with `partitioner.availability.timeout.ms` so are those whose leader
    /// had ready batches it could not take for longer than that.
    pub fn update_load(&mut self, config: &ProducerConfig, queues: &impl Queues) {
        self.load_due = false;
        let n = queues.count();
        let adaptive = config.partitioner_class == PartitionerClass::BuiltIn && config.partitioner_adaptive;
        if !adaptive || self.deques < n || n < 2 {
            self.load = None;
            return;
        }
        let timeout = config.partitioner_availability_timeout_ms;
        let led: Arc<[usize]> = match queues.with_leader() {
            Some(led) => led.clone(),
            None => (0..n).filter(|&i| queues.leader(i).is_some()).collect(),
        };
        // Only partitions with a leader and batches write a size or take a slot back.
        let events = queues.holding().into_iter().filter_map(|i| {
            let leader = queues.leader(i)?;
            let batches = queues.queued_batches(i);
            let slow = timeout > 0
                && self
                    .nodes
                    .get(&leader)
                    .is_some_and(|node| node.ready_ms.saturating_sub(node.drain_ms) > timeout);
            (batches > 0).then_some((i, batches as u32, slow))
        });
        self.load = LoadStats::build(n, led, events);
    }

    /// Marks the load stats out of date instead of recomputing them: a sender pass happened
    /// (Java's `RecordAccumulator.partitionReady` would have run [`Self::update_load`]) and
    /// the queues are as it would have found them. Only `next_partition` reads the
    /// stats, so they are computed when it next draws, or at [`Self::settle_load`]; the
    /// caller settles them before anything else changes the queues (other than one record
    /// appended after the draw that read them), which keeps the result exact.
    pub fn defer_load(&mut self) {
        self.load_due = true;
    }

    /// Computes load stats left out of date by [`Self::defer_load`], from `queues` (still as
    /// the deferred pass found them).
    pub fn settle_load(&mut self, config: &ProducerConfig, queues: &impl Queues) {
        if self.load_due {
            self.update_load(config, queues);
        }
    }

    /// The sender found `leader` with batches ready at `now`; `can_drain` says whether it could
    /// send to it (connected, under `max.in.flight.requests.per.connection`)
    /// (`RecordAccumulator.updateNodeLatencyStats`). Only kept while
    /// `partitioner.availability.timeout.ms` is set.
    pub fn note_leader(&mut self, config: &ProducerConfig, leader: BrokerId, now: Ms, can_drain: bool) {
        if config.partitioner_availability_timeout_ms == 0 {
            return;
        }
        let node = self.nodes.entry(leader).or_insert(NodeLatency { ready_ms: now, drain_ms: now });
        if can_drain {
            node.drain_ms = now;
        }
        node.ready_ms = now;
    }
}

/// Partition number `k` (modulo their count) among those with a leader, in partition order;
/// among all partitions when none has one (Java's `availablePartitionsForTopic`, falling back
/// to `partitionsForTopic`). From [`Queues::with_leader`] when listed; else counts twice
/// instead of collecting, so a record allocates nothing.
fn nth_with_leader(queues: &impl Queues, k: usize) -> usize {
    if let Some(led) = queues.with_leader() {
        return match led.len() {
            0 => k % queues.count(),
            n => led[k % n],
        };
    }
    let led = |i: &usize| queues.leader(*i).is_some();
    match (0..queues.count()).filter(led).count() {
        0 => k % queues.count(),
        n => (0..queues.count()).filter(led).nth(k % n).expect("n partitions have a leader"),
    }
}

/// The load stats as Java's arrays hold them (the reference [`LoadStats`] is checked against).
#[cfg(test)]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct DenseStats {
    cumulative: Vec<u32>,
    ids: Vec<usize>,
}

#[cfg(test)]
impl LoadStats {
    fn dense(&self) -> DenseStats {
        DenseStats {
            cumulative: (0..self.len).map(|k| self.cumulative_at(k) as u32).collect(),
            ids: (0..self.len).map(|k| self.id(k)).collect(),
        }
    }
}

/// `Partitioner::update_load` as Java fills its arrays, over every partition: a slot per
/// partition with a leader, taken back when that leader is too slow (the next partition then
/// reuses the slot).
#[cfg(test)]
fn dense_load(p: &Partitioner, config: &ProducerConfig, queues: &impl Queues) -> Option<DenseStats> {
    let n = queues.count();
    let adaptive = config.partitioner_class == PartitionerClass::BuiltIn && config.partitioner_adaptive;
    if !adaptive || p.deques < n || n < 2 {
        return None;
    }
    let timeout = config.partitioner_availability_timeout_ms;
    let mut sizes = vec![0u32; n];
    let mut ids = vec![0usize; n];
    let mut len = 0usize;
    for i in 0..n {
        let leader = queues.leader(i);
        if leader.is_some() {
            ids[len] = i;
            len += 1;
        }
        let batches = queues.queued_batches(i);
        let Some(leader) = leader else { continue };
        if batches == 0 {
            continue;
        }
        sizes[len - 1] = batches as u32;
        if timeout > 0
            && let Some(node) = p.nodes.get(&leader)
            && node.ready_ms.saturating_sub(node.drain_ms) > timeout
        {
            len -= 1;
        }
    }
    load_stats(&sizes, &ids, len)
}

/// `BuiltInPartitioner.updatePartitionLoadStats` on Java's arrays: from the queue sizes of the
/// first `len` slots, a cumulative table of `max + 1 - size`; `None` (uniform) when no slot is
/// left, or when every partition is in and all queues are equal.
#[cfg(test)]
fn load_stats(sizes: &[u32], ids: &[usize], len: usize) -> Option<DenseStats> {
    if len < 1 || sizes.len() < 2 {
        return None;
    }
    let used = &sizes[..len];
    let max_plus_1 = used.iter().copied().max().unwrap_or(0) + 1;
    if len == sizes.len() && used.iter().all(|&s| s == used[0]) {
        return None;
    }
    let mut cumulative = Vec::with_capacity(len);
    let mut sum = 0u32;
    for &s in used {
        sum += max_plus_1 - s;
        cumulative.push(sum);
    }
    Some(DenseStats { cumulative, ids: ids[..len].to_vec() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// Kafka's `UtilsTest.testMurmur2` vectors.
    #[test]
    fn murmur2_matches_kafka() {
        let cases: [(&[u8], i32); 6] = [
            (b"21", -973932308),
            (b"foobar", -790332482),
            (b"a-little-bit-long-string", -985981536),
            (b"a-little-bit-longer-string", -1486304829),
            (b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971),
            (b"abc", 479470107),
        ];
        for (data, want) in cases {
            assert_eq!(murmur2(data), want, "{}", String::from_utf8_lossy(data));
        }
    }

    #[test]
    fn to_positive_clears_the_sign_bit() {
        assert_eq!(to_positive(-1), 0x7fff_ffff);
        assert_eq!(to_positive(i32::MIN), 0);
        assert_eq!(to_positive(5), 5);
        // "21" hashes to -973932308; 6 partitions.
        assert_eq!(partition_for_key(key_hash("21"), 6), (-973932308i32 & 0x7fff_ffff) as usize % 6);
    }

    /// Leaders and waiting records per partition; batches formed by `per_batch`.
    struct Fake {
        leaders: Vec<Option<BrokerId>>,
        waiting: Vec<usize>,
        retries: Vec<usize>,
        per_batch: usize,
    }

    impl Fake {
        fn new(leaders: &[Option<BrokerId>], per_batch: usize) -> Self {
            let n = leaders.len();
            Fake { leaders: leaders.to_vec(), waiting: vec![0; n], retries: vec![0; n], per_batch }
        }
    }

    impl Queues for Fake {
        fn count(&self) -> usize {
            self.leaders.len()
        }
        fn leader(&self, i: usize) -> Option<BrokerId> {
            self.leaders[i]
        }
        fn waiting(&self, i: usize) -> usize {
            self.waiting[i]
        }
        fn queued_batches(&self, i: usize) -> usize {
            self.retries[i] + self.waiting[i].div_ceil(self.per_batch)
        }
    }

    fn partitioner(seed: u64) -> Partitioner {
        Partitioner::new(ChaCha8Rng::seed_from_u64(seed))
    }

    /// Appends `count` keyless records in one go (no drain between) and returns their
    /// partitions.
    fn burst(p: &mut Partitioner, cfg: &ProducerConfig, q: &mut Fake, count: usize) -> Vec<usize> {
        (0..count)
            .map(|_| {
                let i = p.choose(cfg, None, q);
                q.waiting[i] += 1;
                i
            })
            .collect()
    }

    /// Whether `v` is made of stretches of `len` records on one partition each (the next
    /// partition is drawn at random, so two stretches in a row may share one), and uses more
    /// than one partition.
    fn sticks_for(v: &[usize], len: usize) -> bool {
        v.chunks(len).all(|c| c.iter().all(|&x| x == c[0]))
            && v.chunks(len).zip(v.chunks(len).skip(1)).all(|(a, b)| a.len() == len || b.is_empty())
            && v.iter().any(|&x| x != v[0])
    }

    /// Defaults (batch.size 16384, 100-byte records, 163 per batch): in a burst the last batch
    /// is never full (16361 bytes < 16384), so the switch waits for twice batch.size: two full
    /// batches and the first record of a third, 327 records.
    #[test]
    fn a_burst_sticks_for_twice_batch_size() {
        let cfg = ProducerConfig::default();
        let mut q = Fake::new(&[Some(0), Some(1), Some(2), Some(0), Some(1), Some(2)], 163);
        let mut p = partitioner(1);
        let parts = burst(&mut p, &cfg, &mut q, 3270);
        assert!(sticks_for(&parts, 327), "{parts:?}");
    }

    /// When the records exactly fill a batch (61 + 100 · 10 = 1061 = batch.size), the batch is
    /// full, so the switch happens at batch.size: one batch per partition.
    #[test]
    fn an_exactly_full_batch_switches_at_batch_size() {
        let cfg = ProducerConfig { batch_size: 1061, ..ProducerConfig::default() };
        let mut q = Fake::new(&[Some(0), Some(1), Some(2)], 10);
        let mut p = partitioner(3);
        let parts = burst(&mut p, &cfg, &mut q, 200);
        assert!(sticks_for(&parts, 10), "{parts:?}");
    }

    /// At a steady low rate each record's batch is sent before the next record comes: every
    /// record starts a batch (161 bytes), and the switch comes with the first record after
    /// 16384 bytes: after 102 records (16422 bytes).
    #[test]
    fn records_sent_one_by_one_switch_after_batch_size_bytes() {
        let cfg = ProducerConfig::default();
        let q = Fake::new(&[Some(0), Some(1), Some(2)], 163);
        let mut p = partitioner(5);
        let parts: Vec<usize> = (0..2040).map(|_| p.choose(&cfg, None, &q)).collect();
        assert!(sticks_for(&parts, 102), "{parts:?}");
    }

    /// FC-12: a partition without a leader never becomes the sticky partition.
    #[test]
    fn partitions_without_a_leader_are_skipped() {
        let cfg = ProducerConfig { batch_size: 161, ..ProducerConfig::default() };
        let q = Fake::new(&[Some(0), None, Some(2), None], 163);
        let mut p = partitioner(7);
        let parts: Vec<usize> = (0..500).map(|_| p.choose(&cfg, None, &q)).collect();
        assert!(parts.iter().all(|&i| i == 0 || i == 2));
        assert!(parts.contains(&0) && parts.contains(&2));
        // With no leader anywhere, any partition.
        let none = Fake::new(&[None, None], 163);
        let parts: Vec<usize> = (0..200).map(|_| p.choose(&cfg, None, &none)).collect();
        assert!(parts.contains(&0) && parts.contains(&1));
    }

    #[test]
    fn keys_go_to_their_murmur2_partition_over_all_partitions() {
        let cfg = ProducerConfig::default();
        let q = Fake::new(&[Some(0), None, Some(2)], 163);
        let mut p = partitioner(1);
        for key in ["21", "foobar", "abc", "order-7"] {
            let want = to_positive(murmur2(key.as_bytes())) as usize % 3;
            assert_eq!(p.choose(&cfg, Some(key_hash(key)), &q), want, "{key}");
        }
        // "abc" hashes to 479470107: partition 479470107 % 3 = 0 ... and it goes there even
        // when that partition has no leader.
        let leaderless = Fake::new(&[None, None, None], 163);
        assert_eq!(p.choose(&cfg, Some(key_hash("abc")), &leaderless), 479470107 % 3);
        // partitioner.ignore.keys: the key is ignored, the record is sticky.
        let ignore = ProducerConfig { partitioner_ignore_keys: true, ..ProducerConfig::default() };
        let sticky = p.choose(&ignore, Some(key_hash("abc")), &q);
        assert_eq!(Some(sticky), p.sticky_partition());
    }

    #[test]
    fn round_robin_cycles_over_partitions_with_a_leader_and_ignores_keys() {
        let cfg =
            ProducerConfig { partitioner_class: PartitionerClass::RoundRobin, ..ProducerConfig::default() };
        let q = Fake::new(&[Some(0), None, Some(2), Some(0)], 163);
        let mut p = partitioner(1);
        let parts: Vec<usize> = (0..6).map(|k| p.choose(&cfg, (k % 2 == 0).then_some(7), &q)).collect();
        assert_eq!(parts, vec![0, 2, 3, 0, 2, 3]);
        let none = Fake::new(&[None, None], 163);
        assert_eq!((p.choose(&cfg, None, &none), p.choose(&cfg, None, &none)), (0, 1));
    }

    /// A [`Fake`] that lists its partitions with a leader, as the producer does.
    struct Listed(Fake, Arc<[usize]>);

    impl Queues for Listed {
        fn count(&self) -> usize {
            self.0.count()
        }
        fn leader(&self, i: usize) -> Option<BrokerId> {
            self.0.leader(i)
        }
        fn waiting(&self, i: usize) -> usize {
            self.0.waiting(i)
        }
        fn queued_batches(&self, i: usize) -> usize {
            self.0.queued_batches(i)
        }
        fn with_leader(&self) -> Option<&Arc<[usize]>> {
            Some(&self.1)
        }
        /// Only the partitions with batches, as the producer lists them.
        fn holding(&self) -> Vec<usize> {
            (0..self.count()).filter(|&i| self.queued_batches(i) > 0).collect()
        }
    }

    /// The listed partitions with a leader give the choices that finding them does, for the
    /// round-robin and the sticky partitioner, with some, all or no partitions led.
    #[test]
    fn listed_leaders_choose_as_found_leaders() {
        let layouts: [&[Option<BrokerId>]; 3] = [
            &[Some(0), None, Some(2), Some(0), None],
            &[Some(1), Some(2), Some(0)],
            &[None, None, None, None],
        ];
        for class in [PartitionerClass::RoundRobin, PartitionerClass::BuiltIn] {
            let cfg =
                ProducerConfig { partitioner_class: class, batch_size: 161, ..ProducerConfig::default() };
            for leaders in layouts {
                let found = Fake::new(leaders, 163);
                let led = (0..leaders.len()).filter(|&i| leaders[i].is_some()).collect();
                let listed = Listed(Fake::new(leaders, 163), led);
                let (mut a, mut b) = (partitioner(9), partitioner(9));
                let want: Vec<usize> = (0..300).map(|_| a.choose(&cfg, None, &found)).collect();
                let got: Vec<usize> = (0..300).map(|_| b.choose(&cfg, None, &listed)).collect();
                assert_eq!(got, want, "{class:?} {leaders:?}");
                assert!(want.iter().any(|&i| i != want[0]), "the choices move: {want:?}");
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 512,
            rng_seed: proptest::test_runner::RngSeed::Fixed(20261203),
            failure_persistence: None,
            ..Default::default()
        })]

        /// Whatever the leaders, queue sizes and slow leaders, the sparse load stats built from
        /// the partitions with batches are the table Java's arrays hold over every partition
        /// (slot reuse after a slow leader's partition included), and every draw picks the same
        /// partition.
        #[test]
        fn sparse_load_stats_are_javas_arrays(
            layout in proptest::collection::vec((proptest::option::weighted(0.8, 0i32..4), 0usize..4), 2..12),
            slow in proptest::collection::vec(proptest::bool::weighted(0.3), 4),
            timeout in proptest::bool::ANY,
            draws in proptest::collection::vec(0usize..1 << 31, 20),
        ) {
            let cfg = ProducerConfig {
                partitioner_availability_timeout_ms: if timeout { 100 } else { 0 },
                ..ProducerConfig::default()
            };
            let leaders: Vec<Option<BrokerId>> = layout.iter().map(|&(l, _)| l).collect();
            let mut found = Fake::new(&leaders, 163);
            found.retries = layout.iter().map(|&(_, b)| b).collect();
            let led = (0..leaders.len()).filter(|&i| leaders[i].is_some()).collect();
            let mut listed = Listed(Fake::new(&leaders, 163), led);
            listed.0.retries = found.retries.clone();
            let mut p = partitioner(4);
            for i in 0..leaders.len() {
                p.note_deque(i, leaders.len());
            }
            for (b, &slow) in slow.iter().enumerate() {
                p.note_leader(&cfg, b as BrokerId, 0, true);
                p.note_leader(&cfg, b as BrokerId, if slow { 200 } else { 50 }, false);
            }
            let want = dense_load(&p, &cfg, &found);
            for queues in [&listed as &dyn QueuesDyn, &found] {
                queues.update(&mut p, &cfg);
                proptest::prop_assert_eq!(p.load.as_ref().map(LoadStats::dense), want.clone());
                if let (Some(load), Some(dense)) = (&p.load, &want) {
                    let total = *dense.cumulative.last().unwrap() as usize;
                    for &random in &draws {
                        let r = (random % total) as u32;
                        let k = dense.cumulative.partition_point(|&c| c <= r);
                        proptest::prop_assert_eq!(load.pick(random), dense.ids[k]);
                    }
                }
            }
        }
    }

    /// `update_load` over either kind of fake (the trait's generic methods need a concrete type).
    trait QueuesDyn {
        fn update(&self, p: &mut Partitioner, cfg: &ProducerConfig);
    }

    impl<Q: Queues> QueuesDyn for Q {
        fn update(&self, p: &mut Partitioner, cfg: &ProducerConfig) {
            p.update_load(cfg, self);
        }
    }

    /// The example of `updatePartitionLoadStats`' comment: queues 0 3 1 give steps 4 1 3.
    #[test]
    fn load_stats_invert_queue_sizes() {
        let stats = load_stats(&[0, 3, 1], &[0, 1, 2], 3).unwrap();
        assert_eq!(stats.cumulative, vec![4, 5, 8]);
        assert_eq!(load_stats(&[2, 2, 2], &[0, 1, 2], 3), None, "equal queues: uniform");
        assert_eq!(load_stats(&[2, 2, 2], &[0, 1, 2], 2).unwrap().cumulative, vec![1, 2]);
        assert_eq!(load_stats(&[5], &[0], 1), None, "one partition");
    }

    /// Adaptive partitioning: with partition 0's queue long and the others empty, the next
    /// sticky partition is 0 only 1 time in 1 + 2·4 (steps 1, 4, 4 for queues 3, 0, 0).
    #[test]
    fn adaptive_partitioning_avoids_long_queues() {
        let cfg = ProducerConfig::default();
        let mut q = Fake::new(&[Some(0), Some(1), Some(2)], 163);
        let mut p = partitioner(11);
        // Every partition has had a deque.
        for i in 0..3 {
            p.note_deque(i, 3);
        }
        q.retries[0] = 3;
        p.update_load(&cfg, &q);
        let picks: Vec<usize> = (0..9000).map(|_| p.next_partition(&cfg, &q)).collect();
        let zero = picks.iter().filter(|&&i| i == 0).count();
        assert!((800..1200).contains(&zero), "{zero} of 9000");
        // Off: uniform.
        let off = ProducerConfig { partitioner_adaptive: false, ..cfg.clone() };
        p.update_load(&off, &q);
        let zero = (0..9000).filter(|_| p.next_partition(&off, &q) == 0).count();
        assert!((2700..3300).contains(&zero), "{zero} of 9000");
        // Not before every partition had a deque.
        let mut fresh = partitioner(11);
        fresh.note_deque(1, 3);
        fresh.update_load(&cfg, &q);
        assert_eq!(fresh.load, None);
    }

    /// `partitioner.availability.timeout.ms`: a leader with ready batches it could not take for
    /// longer than the timeout is left out of the choice.
    #[test]
    fn availability_timeout_leaves_out_a_stuck_leader() {
        let cfg = ProducerConfig { partitioner_availability_timeout_ms: 100, ..ProducerConfig::default() };
        let mut q = Fake::new(&[Some(0), Some(1), Some(2)], 163);
        q.waiting = vec![5, 5, 5];
        let mut p = partitioner(2);
        for i in 0..3 {
            p.note_deque(i, 3);
        }
        p.note_leader(&cfg, 1, 0, true);
        p.note_leader(&cfg, 1, 100, false);
        p.update_load(&cfg, &q);
        assert_eq!(p.load, None, "100 ms is not more than the timeout, and queues are equal");
        p.note_leader(&cfg, 1, 101, false);
        p.update_load(&cfg, &q);
        assert_eq!(p.load.as_ref().unwrap().dense().ids, vec![0, 2]);
        assert!((0..500).all(|_| p.next_partition(&cfg, &q) != 1));
        p.note_leader(&cfg, 1, 102, true);
        p.update_load(&cfg, &q);
        assert_eq!(p.load, None);
    }

    #[test]
    fn same_seed_same_choices() {
        let cfg = ProducerConfig { batch_size: 300, ..ProducerConfig::default() };
        let run = |seed| {
            let mut q = Fake::new(&[Some(0), Some(1), Some(2), Some(3)], 2);
            let mut p = partitioner(seed);
            burst(&mut p, &cfg, &mut q, 300)
        };
        assert_eq!(run(9), run(9));
        assert_ne!(run(9), run(10));
    }
}
