//! One replica's record batches in a compact form. A log holds millions of batches (10 000
//! records/s make about 1 000 batches a second), so each is not kept as a [`RecordBatch`]
//! (64 bytes, plus a pointer): consecutive batches that continue each other (same leader
//! epoch and producer, offsets, sequences and payload values carrying on, the same record
//! size) form a [`Run`] that stores what they share once and, per batch, only where it ends
//! and its timestamp: 8 bytes. A batch that continues nothing starts a new run. Reading gives
//! back exactly the [`RecordBatch`] that was stored; the form is invisible to the log, which
//! follows Kafka's `FileRecords` (whole batches appended, read and truncated).

use super::protocol::{RECORD_BATCH_OVERHEAD, RecordBatch, Values, sequence_after};
use super::{Epoch, Ms, Offset};
use std::collections::VecDeque;

/// Most batches one run holds, so that a partly deleted or truncated run wastes little
/// (8 KiB at most).
const RUN_BATCHES: usize = 1024;

/// Where a batch of a run ends and when its newest record was created.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Mark {
    /// Records in the run up to and including this batch.
    end: u32,
    /// Its max timestamp minus the run's `base_ts` (ms).
    ts: u32,
}

/// Batches that continue each other; what they share is stored once.
#[derive(Clone, PartialEq, Eq, Debug)]
struct Run {
    base_offset: Offset,
    leader_epoch: Epoch,
    producer_id: i64,
    /// Sequence of the first record; a negative one (no idempotence) is every batch's.
    base_sequence: i32,
    /// Size of the first batch (bytes).
    first_size: u32,
    /// Bytes per record, when the first batch's size is [`RECORD_BATCH_OVERHEAD`] plus a whole
    /// number per record; later batches join only if their size follows it.
    record_size: Option<u32>,
    /// Max timestamp the marks count from (ms).
    base_ts: Ms,
    /// Payload of the run's first record; record `j` holds `first_value + j * stride`.
    first_value: u64,
    /// Distance between neighbouring payloads; 0 while every batch holds one record and no
    /// second batch has fixed it.
    stride: u32,
    /// The values of a one-batch run that the formula above cannot give back as they were.
    odd_values: Option<Values>,
    marks: Vec<Mark>,
}

impl Run {
    fn start(b: &RecordBatch) -> Self {
        let record_size = b
            .size_bytes
            .checked_sub(RECORD_BATCH_OVERHEAD)
            .filter(|extra| b.count() > 0 && extra % b.count() == 0)
            .map(|extra| extra / b.count());
        let mut run = Run {
            base_offset: b.base_offset,
            leader_epoch: b.leader_epoch,
            producer_id: b.producer_id,
            base_sequence: b.base_sequence,
            first_size: b.size_bytes,
            record_size,
            base_ts: b.max_timestamp,
            first_value: 0,
            stride: 0,
            odd_values: None,
            marks: vec![Mark { end: b.count(), ts: 0 }],
        };
        match b.values {
            Values::Run { first, stride, count } if count > 1 || (count == 1 && stride == 1) => {
                run.first_value = first;
                run.stride = if count > 1 { stride } else { 0 };
            }
            _ => run.odd_values = Some(b.values.clone()),
        }
        run
    }

    fn len(&self) -> usize {
        self.marks.len()
    }

    fn records(&self) -> u32 {
        self.marks.last().map_or(0, |m| m.end)
    }

    fn next_offset(&self) -> Offset {
        self.base_offset + Offset::from(self.records())
    }

    /// Records before batch `i`.
    fn before(&self, i: usize) -> u32 {
        i.checked_sub(1).map_or(0, |p| self.marks[p].end)
    }

    /// The values of `count` records from record `j`, with `stride`, as `Values::from_slice`
    /// would give them (a single value has stride 1).
    fn values(&self, j: u32, count: u32, stride: u32) -> Option<Values> {
        let first = self.first_value.checked_add(u64::from(j).checked_mul(u64::from(stride))?)?;
        let stride = if count == 1 { 1 } else { stride };
        Some(Values::Run { first, stride, count })
    }

    fn size_of(&self, i: usize, count: u32) -> Option<u32> {
        if i == 0 {
            return Some(self.first_size);
        }
        RECORD_BATCH_OVERHEAD.checked_add(self.record_size?.checked_mul(count)?)
    }

    fn sequence_at(&self, j: u32) -> i32 {
        if self.base_sequence < 0 { self.base_sequence } else { sequence_after(self.base_sequence, j) }
    }

    /// Batch `i` as it was stored.
    fn batch(&self, i: usize) -> RecordBatch {
        let (before, mark) = (self.before(i), self.marks[i]);
        let count = mark.end - before;
        let values = match &self.odd_values {
            Some(v) => v.clone(),
            None => self.values(before, count, self.stride).unwrap_or_default(),
        };
        RecordBatch {
            base_offset: self.base_offset + Offset::from(before),
            leader_epoch: self.leader_epoch,
            producer_id: self.producer_id,
            base_sequence: self.sequence_at(before),
            size_bytes: self.size_of(i, count).unwrap_or(self.first_size),
            max_timestamp: self.base_ts + Ms::from(mark.ts),
            values,
        }
    }

    /// Adds `b` when it continues the run and reads back exactly as it is; otherwise `false`.
    fn try_join(&mut self, b: &RecordBatch) -> bool {
        if self.odd_values.is_some() || self.len() >= RUN_BATCHES || b.count() == 0 {
            return false;
        }
        let j = self.records();
        let end = j.checked_add(b.count());
        let ts = b.max_timestamp.checked_sub(self.base_ts).and_then(|d| u32::try_from(d).ok());
        let (Some(end), Some(ts), Some(stride)) = (end, ts, self.stride_with(b)) else {
            return false;
        };
        let fits = b.base_offset == self.next_offset()
            && b.leader_epoch == self.leader_epoch
            && b.producer_id == self.producer_id
            && b.base_sequence == self.sequence_at(j)
            && self.size_of(self.len(), b.count()) == Some(b.size_bytes)
            && self.values(j, b.count(), stride).as_ref() == Some(&b.values);
        if fits {
            self.stride = stride;
            self.marks.push(Mark { end, ts });
        }
        fits
    }

    /// The run's stride once `b` joins: its own, or, while it holds one record, the distance
    /// from that record's value to `b`'s first (`None` when that is not a positive `u32`).
    fn stride_with(&self, b: &RecordBatch) -> Option<u32> {
        if self.stride > 0 {
            return Some(self.stride);
        }
        let (low, _) = b.values.bounds()?;
        low.checked_sub(self.first_value).and_then(|s| u32::try_from(s).ok()).filter(|&s| s > 0)
    }

    /// Index of the batch holding `offset`, or of the first after it.
    fn index_of(&self, offset: Offset) -> usize {
        self.marks.partition_point(|m| self.base_offset + Offset::from(m.end) <= offset)
    }

    /// Drops its first `n` batches (fewer than it has).
    fn drop_front(&mut self, n: usize) {
        let first = self.batch(n);
        let before = self.before(n);
        self.base_offset = first.base_offset;
        self.base_sequence = first.base_sequence;
        self.first_size = first.size_bytes;
        self.first_value = self.first_value.saturating_add(u64::from(before) * u64::from(self.stride));
        self.marks.drain(..n);
        for m in &mut self.marks {
            m.end -= before;
        }
    }

    fn heap_bytes(&self) -> usize {
        self.marks.capacity() * std::mem::size_of::<Mark>()
    }
}

/// A replica's batches in offset order, stored as runs.
#[derive(Debug, Default)]
pub struct BatchStore {
    runs: VecDeque<Run>,
    len: usize,
    /// Sum of the runs' [`Run::heap_bytes`], kept as they change so that
    /// [`BatchStore::memory_bytes`] (the memory guard asks every second) does not walk them.
    marks_bytes: usize,
}

impl Clone for BatchStore {
    /// A cloned `Vec` may have another capacity: the clone counts its own marks.
    fn clone(&self) -> Self {
        let runs = self.runs.clone();
        let marks_bytes = runs.iter().map(Run::heap_bytes).sum();
        BatchStore { runs, len: self.len, marks_bytes }
    }
}

impl BatchStore {
    /// How many batches it holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Offset after its last record, `None` when empty.
    pub fn next_offset(&self) -> Option<Offset> {
        self.runs.back().map(Run::next_offset)
    }

    /// Appends `b`, which must start at [`BatchStore::next_offset`] (the log checks that).
    pub fn push(&mut self, b: &RecordBatch) {
        let joined = self.runs.back_mut().is_some_and(|r| {
            let before = r.heap_bytes();
            let joined = r.try_join(b);
            self.marks_bytes = self.marks_bytes - before + r.heap_bytes();
            joined
        });
        if !joined {
            let run = Run::start(b);
            self.marks_bytes += run.heap_bytes();
            self.runs.push_back(run);
        }
        self.len += 1;
    }

    /// (run, batch) of the batch holding `offset`, or of the first after it.
    fn position(&self, offset: Offset) -> (usize, usize) {
        // Followers and consumers mostly read at the log's end: the last run first, then a
        // binary search over the runs before it (a log holds thousands of runs after an hour).
        let r = match self.runs.back() {
            Some(last) if last.base_offset <= offset => {
                self.runs.len() - usize::from(last.next_offset() > offset)
            }
            _ => self.runs.partition_point(|r| r.next_offset() <= offset),
        };
        (r, self.runs.get(r).map_or(0, |run| run.index_of(offset)))
    }

    /// Batches from the one holding `offset` on (or the first after it).
    pub fn from(&self, offset: Offset) -> impl Iterator<Item = RecordBatch> + '_ {
        let (r, i) = self.position(offset);
        self.runs
            .range(r..)
            .enumerate()
            .flat_map(move |(n, run)| (if n == 0 { i } else { 0 }..run.len()).map(move |k| run.batch(k)))
    }

    /// Removes every batch that starts below `offset`.
    pub fn remove_below(&mut self, offset: Offset) {
        while let Some(front) = self.runs.front_mut() {
            let n = front.marks.partition_point(|m| front.base_offset + Offset::from(m.end) <= offset);
            let n = n + usize::from(
                n < front.len() && front.base_offset + Offset::from(front.before(n)) < offset,
            );
            if n == 0 {
                return;
            }
            self.len -= n;
            if n < front.len() {
                front.drop_front(n);
                return;
            }
            self.marks_bytes -= front.heap_bytes();
            self.runs.pop_front();
        }
    }

    /// Keeps only the batches that end at or below `offset` (removes the one holding it).
    pub fn truncate_to(&mut self, offset: Offset) {
        let (r, i) = self.position(offset);
        while self.runs.len() > r + 1 {
            if let Some(run) = self.runs.pop_back() {
                self.len -= run.len();
                self.marks_bytes -= run.heap_bytes();
            }
        }
        if let Some(run) = self.runs.get_mut(r) {
            self.len -= run.len() - i;
            run.marks.truncate(i);
            if i == 0 {
                self.marks_bytes -= run.heap_bytes();
                self.runs.pop_back();
            }
        }
    }

    /// Removes everything.
    pub fn clear(&mut self) {
        self.runs.clear();
        self.len = 0;
        self.marks_bytes = 0;
    }

    /// Bytes it takes on the heap: the runs and their per-batch marks.
    pub fn memory_bytes(&self) -> u64 {
        debug_assert_eq!(self.marks_bytes, self.runs.iter().map(Run::heap_bytes).sum::<usize>());
        let runs = self.runs.capacity() * std::mem::size_of::<Run>();
        (runs + self.marks_bytes) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn batch(base_offset: Offset, values: Values, ts: Ms) -> RecordBatch {
        RecordBatch {
            base_offset,
            leader_epoch: 0,
            producer_id: 7,
            base_sequence: base_offset as i32,
            size_bytes: RECORD_BATCH_OVERHEAD + 100 * values.count(),
            max_timestamp: ts,
            values,
        }
    }

    /// A producer's batches to one partition (every 6th value, 1 to 3 records each).
    fn steady(n: usize) -> Vec<RecordBatch> {
        let mut out = Vec::new();
        let (mut offset, mut value) = (0, 0);
        for k in 0..n {
            let count = 1 + (k % 3) as u32;
            out.push(batch(
                offset,
                Values::from_slice(&(0..count).map(|c| value + 6 * u64::from(c)).collect::<Vec<_>>()),
                k as Ms * 7,
            ));
            offset += Offset::from(count);
            value += 6 * u64::from(count);
        }
        out
    }

    fn stored(s: &BatchStore) -> Vec<RecordBatch> {
        s.from(0).collect()
    }

    #[test]
    fn continuing_batches_share_runs_and_read_back_as_stored() {
        let all = steady(3000);
        let mut s = BatchStore::default();
        for b in &all {
            s.push(b);
        }
        assert_eq!(stored(&s), all);
        assert_eq!((s.len(), s.runs.len()), (3000, 3), "runs of at most 1024 batches");
        assert!(s.memory_bytes() < 3000 * 10 + 1024, "about 8 bytes a batch: {}", s.memory_bytes());
        assert_eq!(s.from(5).next(), Some(all[2].clone()), "offset 5 is in the third batch (3..6)");
    }

    #[test]
    fn batches_that_do_not_continue_start_new_runs() {
        let mut s = BatchStore::default();
        let a = batch(0, Values::from_slice(&[1, 2]), 10);
        let other_epoch = RecordBatch { leader_epoch: 1, ..batch(2, Values::from_slice(&[3]), 11) };
        let odd = batch(3, Values::from_slice(&[9, 4, 8]), 12);
        let single = batch(6, Values::from_slice(&[20]), 13);
        let joins = batch(7, Values::from_slice(&[26, 32]), 14);
        let earlier = batch(9, Values::from_slice(&[38]), 1);
        let stride_five = batch(10, Values::Run { first: 44, stride: 5, count: 1 }, 15);
        let list = batch(11, Values::List(Arc::from(&[50u64][..])), 16);
        let all = [a, other_epoch, odd, single, joins, earlier, stride_five, list];
        for b in &all {
            s.push(b);
        }
        assert_eq!(stored(&s), all);
        assert_eq!(s.runs.len(), 7, "only the batch after the one-record run joins it: {:?}", s.runs);
    }

    #[test]
    fn deleting_from_the_front_and_truncating_keep_whole_batches() {
        let all = steady(2000);
        let mut s = BatchStore::default();
        for b in &all {
            s.push(b);
        }
        let cut = all[1500].base_offset + 1;
        s.remove_below(cut);
        assert_eq!(stored(&s), all[1501..].to_vec(), "the batch holding {cut} starts below it");
        s.truncate_to(all[1700].base_offset + 1);
        assert_eq!(stored(&s), all[1501..1700].to_vec());
        assert_eq!(s.len(), 199);
        s.truncate_to(0);
        assert!(s.is_empty() && s.next_offset().is_none());
        for b in &all[..10] {
            s.push(b);
        }
        assert_eq!(stored(&s), all[..10].to_vec());
    }

    /// What the store is asked to do in the property test.
    #[derive(Clone, Debug)]
    enum Op {
        /// Appends a batch of `count` records; each flag breaks one way of continuing.
        Push { count: u32, new_epoch: bool, value_gap: bool, ts_step: Ms, odd: bool },
        /// Retention: removes the batches starting below an offset, a fraction of the way
        /// through the records held.
        RemoveBelow(u8),
        /// Truncation at a fraction of the records held.
        Truncate(u8),
    }

    fn op() -> impl proptest::strategy::Strategy<Value = Op> {
        use proptest::prelude::*;
        prop_oneof![
            8 => (1u32..5, prop::bool::weighted(0.05), prop::bool::weighted(0.05), prop::sample::select(vec![0, 3, 70_000, 5_000_000_000]), prop::bool::weighted(0.05))
                .prop_map(|(count, new_epoch, value_gap, ts_step, odd)| Op::Push { count, new_epoch, value_gap, ts_step, odd }),
            1 => any::<u8>().prop_map(Op::RemoveBelow),
            1 => any::<u8>().prop_map(Op::Truncate),
        ]
    }

    /// An offset `fraction`/255 of the way through what `model` holds.
    fn offset_in(model: &[RecordBatch], fraction: u8) -> Offset {
        let (lo, hi) =
            (model.first().map_or(0, |b| b.base_offset), model.last().map_or(0, RecordBatch::next_offset));
        lo + (hi - lo) * Offset::from(fraction) / 255
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 64,
            rng_seed: proptest::test_runner::RngSeed::Fixed(20261201),
            failure_persistence: None,
            ..Default::default()
        })]

        /// Whatever is appended, deleted from the front or truncated, the store reads back
        /// exactly what a plain list of the same batches holds, from any offset.
        #[test]
        fn reads_back_what_a_plain_list_holds(ops in proptest::collection::vec(op(), 1..400), probe in 0u8..=255) {
            let (mut s, mut model) = (BatchStore::default(), Vec::<RecordBatch>::new());
            let (mut epoch, mut value, mut ts) = (0, 0u64, 0);
            for op in ops {
                match op {
                    Op::Push { count, new_epoch, value_gap, ts_step, odd } => {
                        epoch += Epoch::from(new_epoch);
                        value += 5 * u64::from(value_gap);
                        ts += ts_step;
                        let vals: Vec<u64> = (0..u64::from(count)).map(|c| value + 3 * c).collect();
                        let values = if odd { Values::List(Arc::from(&vals[..])) } else { Values::from_slice(&vals) };
                        let offset = model.last().map_or(0, RecordBatch::next_offset);
                        let b = RecordBatch { leader_epoch: epoch, max_timestamp: ts, ..batch(offset, values, 0) };
                        value += 3 * u64::from(count);
                        s.push(&b);
                        model.push(b);
                    }
                    Op::RemoveBelow(f) => {
                        let cut = offset_in(&model, f);
                        s.remove_below(cut);
                        model.retain(|b| b.base_offset >= cut);
                    }
                    Op::Truncate(f) => {
                        let cut = offset_in(&model, f);
                        s.truncate_to(cut);
                        model.retain(|b| b.next_offset() <= cut);
                    }
                }
                proptest::prop_assert_eq!(stored(&s), model.clone());
                proptest::prop_assert_eq!(s.len(), model.len());
            }
            let at = offset_in(&model, probe);
            let want: Vec<RecordBatch> = model.iter().filter(|b| b.next_offset() > at).cloned().collect();
            proptest::prop_assert_eq!(s.from(at).collect::<Vec<_>>(), want);
        }
    }
}
