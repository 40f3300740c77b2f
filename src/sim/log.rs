//! One replica's log of one partition: records, LEO, HW, log start offset, the leader-epoch
//! cache and the idempotent-producer state. Follows Kafka's `UnifiedLog` and
//! `LeaderEpochFileCache` (rule book §3, R5.8, R7.4–R7.5).

use super::protocol::{Batch, EpochEndOffset, Record};
use super::{Epoch, Offset};
use crate::kafka::errors::ErrorCode;
use std::collections::{BTreeMap, VecDeque};

/// How many batches per producer the log remembers for deduplication (R5.8).
pub const PRODUCER_BATCH_WINDOW: usize = 5;

/// One remembered producer batch: sequences `first_seq..=last_seq` at `first_offset..`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct SeqRange {
    first_seq: i32,
    last_seq: i32,
    first_offset: Offset,
}

/// Where a leader append landed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct AppendInfo {
    /// Offset of the first record.
    pub base_offset: Offset,
    /// Offset of the last record.
    pub last_offset: Offset,
    /// `true` when the batch was a retry already in the log: nothing was appended and the
    /// offsets are the original ones (R5.8).
    pub duplicate: bool,
}

/// A replica's log of one partition.
#[derive(Clone, Debug, Default)]
pub struct PartitionLog {
    records: VecDeque<Record>,
    log_start: Offset,
    hw: Offset,
    /// (epoch, start offset), strictly increasing in both (R7.4).
    epoch_cache: Vec<(Epoch, Offset)>,
    producers: BTreeMap<i64, VecDeque<SeqRange>>,
}

impl PartitionLog {
    /// An empty log: LEO 0, HW 0.
    pub fn new() -> Self {
        Self::default()
    }

    /// Log end offset: the offset the next record will get (R3.1).
    pub fn leo(&self) -> Offset {
        self.log_start + self.records.len() as Offset
    }

    /// High watermark: the first offset not known to be committed.
    pub fn hw(&self) -> Offset {
        self.hw
    }

    /// First offset still in the log.
    pub fn log_start(&self) -> Offset {
        self.log_start
    }

    /// The leader-epoch cache as (epoch, start offset) pairs.
    pub fn epoch_cache(&self) -> &[(Epoch, Offset)] {
        &self.epoch_cache
    }

    /// The newest epoch in the cache, if any (sent as `lastFetchedEpoch`, R7.6).
    pub fn latest_epoch(&self) -> Option<Epoch> {
        self.epoch_cache.last().map(|e| e.0)
    }

    /// The record at `offset`, if the log holds it.
    pub fn record_at(&self, offset: Offset) -> Option<&Record> {
        if offset < self.log_start {
            return None;
        }
        self.records.get((offset - self.log_start) as usize)
    }

    /// Records from `offset` on, at most `max_bytes` in total but always at least one when any
    /// exists (Kafka's soft limit, R2.3).
    pub fn read(&self, offset: Offset, max_bytes: u64) -> Vec<Record> {
        let mut out = Vec::new();
        if offset < self.log_start {
            return out;
        }
        let mut bytes = 0u64;
        for r in self.records.iter().skip((offset - self.log_start) as usize) {
            bytes += u64::from(r.size);
            if !out.is_empty() && bytes > max_bytes {
                break;
            }
            out.push(*r);
        }
        out
    }

    /// Sets the HW, clamped to `[log start, LEO]` (R3.2). Used by followers (R3.6) and on
    /// restart from the checkpoint.
    pub fn set_hw(&mut self, hw: Offset) {
        self.hw = hw.clamp(self.log_start, self.leo());
    }

    /// Raises the HW to `candidate` if that is higher; a leader's HW never goes back (R3.2).
    /// Returns whether it moved.
    pub fn maybe_increment_hw(&mut self, candidate: Offset) -> bool {
        let candidate = candidate.clamp(self.log_start, self.leo());
        if candidate > self.hw {
            self.hw = candidate;
            true
        } else {
            false
        }
    }

    /// A new leader records where its epoch starts, before any append (KAFKA-7415, R7.4).
    pub fn assign_epoch_start(&mut self, epoch: Epoch) {
        let leo = self.leo();
        self.assign(epoch, leo);
    }

    fn assign(&mut self, epoch: Epoch, start: Offset) {
        match self.epoch_cache.last() {
            Some(&(e, _)) if e >= epoch => {}
            _ => {
                // Entries must stay increasing in offset too: a later epoch starting at the same
                // offset replaces an empty earlier one.
                self.epoch_cache.retain(|&(_, s)| s < start);
                self.epoch_cache.push((epoch, start));
            }
        }
    }

    /// Leader append (R5.4 step 2, R5.8): checks the producer sequence, then stamps the records
    /// with `epoch`. Errors: `OUT_OF_ORDER_SEQUENCE_NUMBER` on a sequence gap.
    pub fn append_as_leader(&mut self, batch: &Batch, epoch: Epoch) -> Result<AppendInfo, ErrorCode> {
        let count = batch.values.len() as i32;
        if batch.producer_id >= 0 {
            let last_seq = batch.base_sequence + count - 1;
            if let Some(window) = self.producers.get(&batch.producer_id) {
                if let Some(dup) = find_duplicate(window, batch.base_sequence, last_seq) {
                    return Ok(AppendInfo {
                        base_offset: dup,
                        last_offset: dup + Offset::from(count) - 1,
                        duplicate: true,
                    });
                }
                let expected = window.back().map_or(batch.base_sequence, |r| r.last_seq + 1);
                if batch.base_sequence != expected {
                    return Err(ErrorCode::OutOfOrderSequenceNumber);
                }
            }
        }
        self.assign(epoch, self.leo());
        let base_offset = self.leo();
        for (i, &value) in batch.values.iter().enumerate() {
            let sequence = if batch.producer_id >= 0 { batch.base_sequence + i as i32 } else { -1 };
            let record = Record {
                offset: base_offset + i as Offset,
                leader_epoch: epoch,
                producer_id: batch.producer_id,
                sequence,
                value,
                size: batch.record_size,
            };
            self.push(record);
        }
        Ok(AppendInfo { base_offset, last_offset: base_offset + Offset::from(count) - 1, duplicate: false })
    }

    /// Follower append of fetched records, which must start at the LEO (R2.9). Records that
    /// do not start at the LEO are ignored (a stale response); returns how many were added.
    pub fn append_as_follower(&mut self, records: &[Record]) -> usize {
        let Some(first) = records.first() else { return 0 };
        if first.offset != self.leo() {
            return 0;
        }
        for r in records {
            self.assign(r.leader_epoch, r.offset);
            self.push(*r);
        }
        records.len()
    }

    fn push(&mut self, r: Record) {
        if r.producer_id >= 0 {
            let window = self.producers.entry(r.producer_id).or_default();
            match window.back_mut() {
                Some(last)
                    if last.last_seq + 1 == r.sequence
                        && last.first_offset + Offset::from(r.sequence - last.first_seq) == r.offset =>
                {
                    last.last_seq = r.sequence;
                }
                _ => {
                    window.push_back(SeqRange {
                        first_seq: r.sequence,
                        last_seq: r.sequence,
                        first_offset: r.offset,
                    });
                    if window.len() > PRODUCER_BATCH_WINDOW {
                        window.pop_front();
                    }
                }
            }
        }
        self.records.push_back(r);
    }

    /// Removes every record at or above `offset` (R7.4 step 3): the epoch cache loses entries
    /// starting there, the HW is clamped, producer state forgets the removed batches.
    /// Returns the removed records. Like Kafka's `UnifiedLog.truncateTo`, a target at or past
    /// the LEO removes no record but still drops epoch entries starting at the LEO: a broker
    /// that became leader and died before appending left such an entry, and it would make
    /// every later divergence check fail again.
    pub fn truncate_to(&mut self, offset: Offset) -> Vec<Record> {
        let offset = offset.max(self.log_start);
        if offset >= self.leo() {
            let leo = self.leo();
            self.epoch_cache.retain(|&(_, s)| s < leo);
            return Vec::new();
        }
        let keep = (offset - self.log_start) as usize;
        let removed: Vec<Record> = self.records.drain(keep..).collect();
        self.epoch_cache.retain(|&(_, s)| s < offset);
        self.hw = self.hw.min(offset);
        for window in self.producers.values_mut() {
            window.retain(|r| r.first_offset < offset);
            if let Some(last) = window.back_mut() {
                let kept = offset - last.first_offset;
                let len = Offset::from(last.last_seq - last.first_seq) + 1;
                if kept < len {
                    last.last_seq = last.first_seq + kept as i32 - 1;
                }
            }
        }
        self.producers.retain(|_, w| !w.is_empty());
        removed
    }

    /// Where epoch `epoch` ends on this replica (R7.5, `LeaderEpochFileCache.endOffsetFor`):
    /// the latest epoch ends at the LEO; an older one where the next epoch starts; an epoch
    /// newer than all known is undefined (`None`).
    pub fn end_offset_for(&self, epoch: Epoch) -> Option<EpochEndOffset> {
        let latest = self.latest_epoch()?;
        if epoch == latest {
            return Some(EpochEndOffset { epoch, end_offset: self.leo() });
        }
        let next = self.epoch_cache.iter().find(|&&(e, _)| e > epoch)?;
        let floor = self.epoch_cache.iter().rev().find(|&&(e, _)| e <= epoch);
        Some(match floor {
            Some(&(e, _)) => EpochEndOffset { epoch: e, end_offset: next.1 },
            None => EpochEndOffset { epoch, end_offset: next.1 },
        })
    }

    /// The divergence check a leader runs on a follower fetch (R7.6): `Some` when the
    /// follower's log, ending at `fetch_offset` in `last_fetched_epoch`, is not a prefix of ours.
    pub fn diverging_epoch(&self, last_fetched_epoch: Epoch, fetch_offset: Offset) -> Option<EpochEndOffset> {
        match self.end_offset_for(last_fetched_epoch) {
            None => Some(EpochEndOffset { epoch: -1, end_offset: -1 }),
            Some(end) if end.epoch < last_fetched_epoch || end.end_offset < fetch_offset => Some(end),
            Some(_) => None,
        }
    }

    /// Where a follower must truncate after the leader answered `diverging` (R7.5, KIP-279):
    /// when both know that epoch, the smaller of the two end offsets; otherwise the end of the
    /// follower's own latest epoch at or below it, so the next fetch asks again. An undefined
    /// answer falls back to the HW (R7.1).
    pub fn truncation_point(&self, diverging: EpochEndOffset) -> Offset {
        if diverging.epoch < 0 {
            return self.hw.min(self.leo());
        }
        match self.end_offset_for(diverging.epoch) {
            Some(own) if own.epoch == diverging.epoch => {
                diverging.end_offset.min(own.end_offset).min(self.leo())
            }
            Some(own) => own.end_offset.min(self.leo()),
            None => diverging.end_offset.min(self.leo()),
        }
    }
}

fn find_duplicate(window: &VecDeque<SeqRange>, first_seq: i32, last_seq: i32) -> Option<Offset> {
    window
        .iter()
        .find(|r| first_seq >= r.first_seq && last_seq <= r.last_seq)
        .map(|r| r.first_offset + Offset::from(first_seq - r.first_seq))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch(pid: i64, seq: i32, values: &[u64]) -> Batch {
        Batch { producer_id: pid, base_sequence: seq, values: values.to_vec(), record_size: 100 }
    }

    fn log_with_epochs(spec: &[(Epoch, usize)]) -> PartitionLog {
        let mut log = PartitionLog::new();
        let mut v = 0;
        for &(epoch, n) in spec {
            log.assign_epoch_start(epoch);
            for _ in 0..n {
                log.append_as_leader(&batch(-1, -1, &[v]), epoch).unwrap();
                v += 1;
            }
        }
        log
    }

    #[test]
    fn leo_and_epoch_cache_follow_appends() {
        let log = log_with_epochs(&[(0, 3), (2, 2)]);
        assert_eq!(log.leo(), 5);
        assert_eq!(log.epoch_cache(), &[(0, 0), (2, 3)]);
        assert_eq!(log.record_at(3).unwrap().leader_epoch, 2);
    }

    #[test]
    fn new_leader_epoch_without_records_is_cached_and_replaced() {
        let mut log = log_with_epochs(&[(0, 3)]);
        log.assign_epoch_start(1);
        log.assign_epoch_start(2);
        assert_eq!(log.epoch_cache(), &[(0, 0), (2, 3)]);
    }

    #[test]
    fn end_offset_for_follows_r7_5() {
        let log = log_with_epochs(&[(1, 3), (3, 2)]);
        assert_eq!(log.end_offset_for(3), Some(EpochEndOffset { epoch: 3, end_offset: 5 }));
        assert_eq!(log.end_offset_for(2), Some(EpochEndOffset { epoch: 1, end_offset: 3 }));
        assert_eq!(log.end_offset_for(0), Some(EpochEndOffset { epoch: 0, end_offset: 0 }));
        assert_eq!(log.end_offset_for(4), None);
    }

    #[test]
    fn hw_is_monotonic_and_clamped() {
        let mut log = log_with_epochs(&[(0, 3)]);
        assert!(log.maybe_increment_hw(2));
        assert!(!log.maybe_increment_hw(1));
        assert!(log.maybe_increment_hw(10));
        assert_eq!(log.hw(), 3);
    }

    #[test]
    fn truncation_removes_records_epochs_and_clamps_hw() {
        let mut log = log_with_epochs(&[(0, 5), (1, 2)]);
        log.set_hw(7);
        let removed = log.truncate_to(5);
        assert_eq!(removed.len(), 2);
        assert_eq!(log.leo(), 5);
        assert_eq!(log.hw(), 5);
        assert_eq!(log.epoch_cache(), &[(0, 0)]);
    }

    /// Rule book S3: broker 1 holds offsets 5, 6 of epoch 0 that the new leader (epoch 1 from
    /// offset 5) never got; the divergence check sends it back to 5.
    #[test]
    fn follower_with_extra_tail_truncates_to_leader_epoch_end() {
        let old_leader = log_with_epochs(&[(0, 7)]);
        let mut new_leader = log_with_epochs(&[(0, 5)]);
        new_leader.assign_epoch_start(1);
        let div = new_leader.diverging_epoch(old_leader.latest_epoch().unwrap(), old_leader.leo()).unwrap();
        assert_eq!(div, EpochEndOffset { epoch: 0, end_offset: 5 });
        assert_eq!(old_leader.truncation_point(div), 5);
        // A follower that is a prefix does not diverge.
        assert_eq!(new_leader.diverging_epoch(0, 4), None);
    }

    /// FC-03 (KIP-279): the follower's epoch 1 is unknown to the leader, which answers with its
    /// epoch 0 ending at 21; the follower truncates to where its own epoch 0 ended (11).
    #[test]
    fn unknown_epoch_truncates_to_own_end_of_leaders_epoch() {
        let mut follower = log_with_epochs(&[(0, 11), (1, 5)]);
        let mut leader = log_with_epochs(&[(0, 21)]);
        leader.assign_epoch_start(2);
        let div = leader.diverging_epoch(1, follower.leo()).unwrap();
        assert_eq!(div, EpochEndOffset { epoch: 0, end_offset: 21 });
        let to = follower.truncation_point(div);
        assert_eq!(to, 11);
        follower.truncate_to(to);
        assert_eq!(leader.diverging_epoch(0, 11), None);
    }

    /// A broker that led epoch 1 without appending anything, then follows the epoch-2 leader:
    /// the divergence answer points at its LEO; truncating there must drop the empty epoch.
    #[test]
    fn empty_epoch_left_by_a_short_leadership_is_dropped() {
        let mut old = log_with_epochs(&[(0, 5)]);
        old.assign_epoch_start(1);
        let mut leader = log_with_epochs(&[(0, 5)]);
        leader.assign_epoch_start(2);
        let div = leader.diverging_epoch(1, old.leo()).unwrap();
        assert_eq!(div, EpochEndOffset { epoch: 0, end_offset: 5 });
        let to = old.truncation_point(div);
        assert_eq!(to, 5);
        assert!(old.truncate_to(to).is_empty());
        assert_eq!(old.epoch_cache(), &[(0, 0)]);
        assert_eq!(leader.diverging_epoch(old.latest_epoch().unwrap(), old.leo()), None);
    }

    #[test]
    fn idempotent_retry_is_deduplicated_and_gap_rejected() {
        let mut log = PartitionLog::new();
        let a = log.append_as_leader(&batch(7, 0, &[1, 2]), 0).unwrap();
        assert!(!a.duplicate);
        let again = log.append_as_leader(&batch(7, 0, &[1, 2]), 0).unwrap();
        assert_eq!(again, AppendInfo { base_offset: 0, last_offset: 1, duplicate: true });
        assert_eq!(log.leo(), 2);
        assert_eq!(log.append_as_leader(&batch(7, 5, &[3]), 0), Err(ErrorCode::OutOfOrderSequenceNumber));
        log.append_as_leader(&batch(7, 2, &[3]), 0).unwrap();
        assert_eq!(log.leo(), 3);
    }

    #[test]
    fn producer_state_survives_replication_and_truncation() {
        let mut leader = PartitionLog::new();
        leader.append_as_leader(&batch(7, 0, &[1, 2]), 0).unwrap();
        leader.append_as_leader(&batch(7, 2, &[3]), 0).unwrap();
        let mut follower = PartitionLog::new();
        assert_eq!(follower.append_as_follower(&leader.read(0, u64::MAX)), 3);
        // The follower, once leader, deduplicates a retry of the second batch.
        assert!(follower.append_as_leader(&batch(7, 2, &[3]), 1).unwrap().duplicate);
        follower.truncate_to(2);
        assert!(!follower.append_as_leader(&batch(7, 2, &[3]), 1).unwrap().duplicate);
    }

    #[test]
    fn follower_ignores_records_not_at_its_leo() {
        let leader = log_with_epochs(&[(0, 3)]);
        let mut follower = PartitionLog::new();
        assert_eq!(follower.append_as_follower(&leader.read(1, u64::MAX)), 0);
        assert_eq!(follower.leo(), 0);
    }

    #[test]
    fn read_respects_soft_byte_limit() {
        let log = log_with_epochs(&[(0, 10)]);
        assert_eq!(log.read(0, 250).len(), 2);
        assert_eq!(log.read(0, 1).len(), 1);
        assert_eq!(log.read(10, 1000).len(), 0);
    }
}
