//! One replica's log of one partition: record batches, LEO, HW, log start offset, the
//! leader-epoch cache and the idempotent-producer state. Follows Kafka's `UnifiedLog`,
//! `LogSegment`/`FileRecords` (whole batches are appended, read and truncated) and
//! `LeaderEpochFileCache` (rule book §3, R5.8, R7.4–R7.5).

use super::batches::BatchStore;
use super::disk::PageCache;
use super::protocol::{Batch, EpochEndOffset, RecordBatch, sequence_after};
use super::segments::{LogEnds, Segments};
use super::{Epoch, Ms, Offset};
use crate::config::LogConfig;
use crate::kafka::errors::ErrorCode;
use std::collections::{BTreeMap, VecDeque};

/// How many batches per producer the log remembers for deduplication (Kafka's
/// `ProducerStateEntry.NUM_BATCHES_TO_RETAIN`, R5.8).
pub const PRODUCER_BATCH_WINDOW: usize = 5;

/// One remembered producer batch (Kafka's `BatchMetadata`): sequences `first_seq..=last_seq`
/// at `first_offset..`, written in `leader_epoch`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct BatchMetadata {
    first_seq: i32,
    last_seq: i32,
    first_offset: Offset,
    leader_epoch: Epoch,
}

/// Where a leader append landed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct AppendInfo {
    /// Offset of the first record.
    pub base_offset: Offset,
    /// Offset of the last record.
    pub last_offset: Offset,
    /// Leader epoch of the batch that holds the records (the original one for a duplicate).
    pub leader_epoch: Epoch,
    /// `true` when the batch was a retry already in the log: nothing was appended and the
    /// offsets are the original ones (R5.8).
    pub duplicate: bool,
}

/// A replica's log of one partition, as record batches in offset order, in segments.
#[derive(Clone, Debug, Default)]
pub struct PartitionLog {
    batches: BatchStore,
    segments: Segments,
    config: LogConfig,
    log_start: Offset,
    hw: Offset,
    /// (epoch, start offset), strictly increasing in both (R7.4).
    epoch_cache: Vec<(Epoch, Offset)>,
    producers: BTreeMap<i64, VecDeque<BatchMetadata>>,
    /// What of it is only in the page cache and what is on disk.
    cache: PageCache,
}

impl PartitionLog {
    /// An empty log: LEO 0, HW 0.
    pub fn new() -> Self {
        Self::default()
    }

    /// Log end offset: the offset the next record will get (R3.1).
    pub fn leo(&self) -> Offset {
        self.batches.next_offset().map_or(self.log_start, |n| n.max(self.log_start))
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

    /// How many batches the log holds.
    pub fn batch_count(&self) -> usize {
        self.batches.len()
    }

    /// Bytes its batches take in memory (the compact form of [`BatchStore`]).
    pub fn memory_bytes(&self) -> u64 {
        self.batches.memory_bytes()
    }

    /// Its segments, oldest first.
    pub fn segments(&self) -> &Segments {
        &self.segments
    }

    /// Bytes of all its segments.
    pub fn size_bytes(&self) -> u64 {
        self.segments.size_bytes()
    }

    /// Its page cache: what Kafka flushed, what is dirty.
    pub fn page_cache(&self) -> &PageCache {
        &self.cache
    }

    /// Offsets below this are on disk at `now`: fsynced by Kafka or written back by the OS.
    pub fn on_disk(&self, now: Ms) -> Offset {
        self.cache.on_disk(now, self.config.os_dirty_expire_ms, self.config.os_dirty_writeback_ms)
    }

    /// After an append at `now` (leader or follower): the new records are dirty in the page
    /// cache, and Kafka fsyncs the log once `flush.messages` records are unflushed
    /// (`UnifiedLog.append`: `if (unflushedMessages >= config.flushInterval) flush()`).
    /// Returns whether it fsynced.
    pub fn written(&mut self, now: Ms) -> bool {
        let leo = self.leo();
        self.cache.written(now, leo);
        self.cache.write_back(now, self.config.os_dirty_expire_ms, self.config.os_dirty_writeback_ms);
        let unflushed = (leo - self.cache.flushed()).max(0) as u64;
        if unflushed >= self.config.flush_messages {
            self.cache.flush(now, leo);
            return true;
        }
        false
    }

    /// Kafka's time-based flush (`LogManager.flushDirtyLogs`, every
    /// `log.flush.scheduler.interval.ms`): fsyncs the log when `flush.ms` has passed since
    /// its last flush. Returns whether it wrote anything (a clean log costs no disk time).
    pub fn maybe_flush_by_time(&mut self, now: Ms) -> bool {
        if now.saturating_sub(self.cache.last_flush()) < self.config.flush_ms {
            return false;
        }
        let dirty = self.leo() > self.cache.flushed();
        self.flush(now);
        dirty
    }

    /// An fsync of the whole log at `now` (`UnifiedLog.flush`, also on a clean shutdown).
    pub fn flush(&mut self, now: Ms) {
        let leo = self.leo();
        self.cache.flush(now, leo);
    }

    /// The power went at `now`: the page cache is gone and the log is what the disk holds.
    /// Kafka's recovery on the next start (`LogLoader`, unclean shutdown) finds the log ending
    /// where its last flushed data ends; the leader-epoch cache and producer state lose the
    /// entries past it, and the HW is clamped below it ([`PartitionLog::truncate_to`]).
    /// Returns (LEO before, LEO after) when anything was lost.
    pub fn lose_page_cache(&mut self, now: Ms) -> Option<(Offset, Offset)> {
        let (leo, on_disk) = (self.leo(), self.on_disk(now).max(self.log_start));
        self.truncate_to(on_disk);
        let after = self.leo();
        self.cache = PageCache::clean(after, now);
        (after < leo).then_some((leo, after))
    }

    /// Applies the topic's effective log settings (rolling and retention), as Kafka's
    /// `UnifiedLog.updateConfig` does when a config changes.
    pub fn configure(&mut self, config: LogConfig) {
        self.config = config;
    }

    /// Retention (`UnifiedLog.deleteOldSegments`, run by every broker for every log it
    /// holds, leader or follower, each below its own HW): deletes segments past
    /// `retention.bytes` or `retention.ms`, or below the log start, and moves the log start
    /// to the first segment kept. Returns the new log start when it moved.
    pub fn delete_old_segments(&mut self, now: Ms) -> Option<Offset> {
        let ends = LogEnds { log_start: self.log_start, hw: self.hw, leo: self.leo() };
        let first_kept = self.segments.delete_old(now, ends, &self.config);
        let base = self.segments.first_base_offset();
        self.batches.remove_below(base);
        let moved = first_kept.map(|start| self.increment_log_start(start));
        moved.filter(|&m| m).map(|_| self.log_start)
    }

    /// A follower adopts the leader's log start offset from a fetch response (Kafka's
    /// `ReplicaFetcherThread.processPartitionData` → `maybeIncrementLogStartOffset`). Ignored
    /// when it is not higher, or higher than this replica's HW (Kafka refuses that with
    /// `OffsetOutOfRangeException`). The data below it goes at the next retention run.
    /// Returns whether it moved.
    pub fn maybe_increment_log_start(&mut self, offset: Offset) -> bool {
        offset <= self.hw && self.increment_log_start(offset)
    }

    fn increment_log_start(&mut self, offset: Offset) -> bool {
        if offset <= self.log_start {
            return false;
        }
        self.log_start = offset;
        // LeaderEpochFileCache.truncateFromStart: the newest entry at or below the new start
        // is kept, moved up to start there.
        let removed: Vec<(Epoch, Offset)> =
            self.epoch_cache.iter().copied().filter(|&(_, s)| s <= offset).collect();
        self.epoch_cache.retain(|&(_, s)| s > offset);
        if let Some(&(epoch, _)) = removed.last() {
            self.epoch_cache.insert(0, (epoch, offset));
        }
        true
    }

    /// The batch holding `offset`, if the log holds that offset.
    pub fn batch_at(&self, offset: Offset) -> Option<RecordBatch> {
        if offset < self.log_start {
            return None;
        }
        self.batches.from(offset).next().filter(|b| b.base_offset <= offset)
    }

    /// Batches from the one holding `offset` on (from the log start when `offset` is below it).
    pub fn batches_from(&self, offset: Offset) -> impl Iterator<Item = RecordBatch> + '_ {
        self.batches.from(offset.max(self.log_start))
    }

    /// Whole batches from the one holding `offset` on, at most `max_bytes` in total but always
    /// at least one when any exists (Kafka's soft limit, KIP-74, R2.3). Nothing below the log
    /// start.
    pub fn read(&self, offset: Offset, max_bytes: u64) -> Vec<RecordBatch> {
        self.read_below(offset, max_bytes, Offset::MAX)
    }

    /// [`PartitionLog::read`] without any batch that reaches `max_offset` or past it: what a
    /// consumer may see with `max_offset` = HW (`LocalLog.read` with `maxOffsetMetadata`).
    pub fn read_below(&self, offset: Offset, max_bytes: u64, max_offset: Offset) -> Vec<RecordBatch> {
        let mut out = Vec::new();
        if offset < self.log_start {
            return out;
        }
        let mut bytes = 0u64;
        for b in self.batches.from(offset).take_while(|b| b.next_offset() <= max_offset) {
            bytes += u64::from(b.size_bytes);
            if !out.is_empty() && bytes > max_bytes {
                break;
            }
            out.push(b);
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

    /// Leader append (R5.4 step 2, R5.8): checks the producer sequence, then writes the
    /// records as one batch stamped with `epoch`. A retry of one of the producer's last
    /// [`PRODUCER_BATCH_WINDOW`] batches (same first and last sequence) is not written again
    /// (`ProducerStateEntry.findDuplicateBatch`). Errors: `OUT_OF_ORDER_SEQUENCE_NUMBER` when
    /// the first sequence does not follow the producer's last one.
    pub fn append_as_leader(&mut self, batch: &Batch, epoch: Epoch) -> Result<AppendInfo, ErrorCode> {
        let count = batch.values.count();
        if batch.producer_id >= 0
            && let Some(window) = self.producers.get(&batch.producer_id)
        {
            let last_seq = sequence_after(batch.base_sequence, count.saturating_sub(1));
            if let Some(dup) =
                window.iter().find(|m| m.first_seq == batch.base_sequence && m.last_seq == last_seq)
            {
                return Ok(AppendInfo {
                    base_offset: dup.first_offset,
                    last_offset: dup.first_offset + Offset::from(count) - 1,
                    leader_epoch: dup.leader_epoch,
                    duplicate: true,
                });
            }
            let expected = window.back().map_or(batch.base_sequence, |m| sequence_after(m.last_seq, 1));
            if batch.base_sequence != expected {
                return Err(ErrorCode::OutOfOrderSequenceNumber);
            }
        }
        self.assign(epoch, self.leo());
        let base_offset = self.leo();
        let stored = RecordBatch {
            base_offset,
            leader_epoch: epoch,
            producer_id: batch.producer_id,
            base_sequence: if batch.producer_id >= 0 { batch.base_sequence } else { -1 },
            size_bytes: batch.size_bytes(),
            max_timestamp: batch.max_timestamp,
            values: batch.values.clone(),
        };
        if count > 0 {
            self.push(&stored);
        }
        Ok(AppendInfo {
            base_offset,
            last_offset: base_offset + Offset::from(count) - 1,
            leader_epoch: epoch,
            duplicate: false,
        })
    }

    /// Follower append of fetched batches, which must start at the LEO (R2.9). Batches that
    /// do not start at the LEO are ignored (a stale response; Kafka throws
    /// `UnexpectedAppendOffsetException`); returns how many records were added.
    pub fn append_as_follower(&mut self, batches: &[RecordBatch]) -> u64 {
        let Some(first) = batches.first() else { return 0 };
        if first.base_offset != self.leo() {
            return 0;
        }
        let mut added = 0;
        for b in batches {
            if b.base_offset != self.leo() {
                break;
            }
            self.assign(b.leader_epoch, b.base_offset);
            added += u64::from(b.count());
            self.push(b);
        }
        added
    }

    fn push(&mut self, b: &RecordBatch) {
        if b.producer_id >= 0 {
            let window = self.producers.entry(b.producer_id).or_default();
            window.push_back(BatchMetadata {
                first_seq: b.base_sequence,
                last_seq: b.last_sequence(),
                first_offset: b.base_offset,
                leader_epoch: b.leader_epoch,
            });
            if window.len() > PRODUCER_BATCH_WINDOW {
                window.pop_front();
            }
        }
        self.segments.append(b, &self.config);
        self.batches.push(b);
    }

    /// Removes every record at or above `offset` (R7.4 step 3), whole batches at a time as
    /// Kafka's `LogSegment.truncateTo` does (a batch holding `offset` goes entirely): the
    /// epoch cache loses entries starting at or after the new LEO, the HW is clamped, producer
    /// state forgets the removed batches. Returns how many records were removed. Like Kafka's
    /// `UnifiedLog.truncateTo`, a target at or past the LEO removes no record but still drops
    /// epoch entries starting at the LEO: a broker that became leader and died before
    /// appending left such an entry, and it would make every later divergence check fail
    /// again. A target below the log start empties the log, which then starts there
    /// (`truncateFullyAndStartAt`).
    pub fn truncate_to(&mut self, offset: Offset) -> u64 {
        let leo = self.leo();
        if offset >= leo {
            self.epoch_cache.retain(|&(_, s)| s < leo);
            return 0;
        }
        if offset < self.log_start {
            self.truncate_fully_and_start_at(offset);
            return (leo - offset) as u64;
        }
        self.batches.truncate_to(offset);
        let new_leo = self.leo();
        let batches = &self.batches;
        self.segments.truncate(new_leo, |from| batches.from(from));
        self.epoch_cache.retain(|&(_, s)| s < new_leo);
        self.hw = self.hw.min(new_leo);
        for window in self.producers.values_mut() {
            window.retain(|m| m.first_offset < new_leo);
        }
        self.producers.retain(|_, w| !w.is_empty());
        self.cache.truncated(new_leo);
        (leo - new_leo) as u64
    }

    /// Deletes everything and starts the log empty at `offset` (Kafka's
    /// `UnifiedLog.truncateFullyAndStartAt`): log start, LEO and HW all become `offset`.
    pub fn truncate_fully_and_start_at(&mut self, offset: Offset) {
        self.batches.clear();
        self.segments = Segments::starting_at(offset);
        self.epoch_cache.clear();
        self.producers.clear();
        self.log_start = offset;
        self.hw = offset;
        self.cache = PageCache::clean(offset, self.cache.last_flush());
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::protocol::Values;

    fn batch(pid: i64, seq: i32, values: &[u64]) -> Batch {
        Batch {
            producer_id: pid,
            base_sequence: seq,
            values: Values::from_slice(values),
            record_size: 100,
            max_timestamp: 0,
        }
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
        assert_eq!(log.batch_at(3).unwrap().leader_epoch, 2);
    }

    /// KIP-101 scenario 2's first half (rule book S14): a power loss keeps only the flushed
    /// prefix; the epoch cache loses the epochs past it and the HW is clamped below it.
    #[test]
    fn a_power_loss_keeps_only_what_was_flushed() {
        let mut log = PartitionLog::new();
        log.configure(LogConfig { flush_messages: 3, ..LogConfig::default() });
        log.assign_epoch_start(0);
        for (i, now) in [(0u64, 10), (1, 20)] {
            log.append_as_leader(&batch(-1, -1, &[i]), 0).unwrap();
            assert!(!log.written(now), "2 unflushed records are below flush.messages=3");
        }
        log.append_as_leader(&batch(-1, -1, &[2]), 0).unwrap();
        assert!(log.written(30), "the third record makes 3 unflushed: fsync");
        log.assign_epoch_start(1);
        log.append_as_leader(&batch(-1, -1, &[3]), 1).unwrap();
        assert!(!log.written(40));
        log.set_hw(4);
        assert_eq!(log.on_disk(1_000), 3);
        assert_eq!(log.lose_page_cache(1_000), Some((4, 3)));
        assert_eq!((log.leo(), log.hw()), (3, 3));
        assert_eq!(log.epoch_cache(), &[(0, 0)]);
        assert_eq!(log.lose_page_cache(2_000), None, "what is left is on disk");
    }

    #[test]
    fn a_crash_keeps_the_page_cache_and_the_os_writes_it_back_in_time() {
        let mut log = log_with_epochs(&[(0, 2)]);
        log.written(1_000);
        assert_eq!(log.on_disk(30_999), 0);
        // Dirty for 30 s (os.dirty.expire.ms) at the flusher's wake at 35 s.
        assert_eq!(log.on_disk(35_000), 2);
        assert!(!log.maybe_flush_by_time(35_000), "flush.ms defaults to Long.MAX_VALUE");
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
        assert_eq!(removed, 2);
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
        assert_eq!(old.truncate_to(to), 0);
        assert_eq!(old.epoch_cache(), &[(0, 0)]);
        assert_eq!(leader.diverging_epoch(old.latest_epoch().unwrap(), old.leo()), None);
    }

    #[test]
    fn idempotent_retry_is_deduplicated_and_gap_rejected() {
        let mut log = PartitionLog::new();
        let a = log.append_as_leader(&batch(7, 0, &[1, 2]), 0).unwrap();
        assert!(!a.duplicate);
        let again = log.append_as_leader(&batch(7, 0, &[1, 2]), 0).unwrap();
        assert_eq!(again, AppendInfo { base_offset: 0, last_offset: 1, leader_epoch: 0, duplicate: true });
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

    /// Each one-record batch is 61 + 100 bytes: the limit counts whole batches, and the first
    /// one always goes (KIP-74).
    #[test]
    fn read_respects_soft_byte_limit() {
        let log = log_with_epochs(&[(0, 10)]);
        assert_eq!(log.read(0, 400).len(), 2);
        assert_eq!(log.read(0, 1).len(), 1);
        assert_eq!(log.read(10, 1000).len(), 0);
    }

    /// A produce request is one batch: its header carries offsets, epoch, producer id,
    /// sequence and size; a read or a truncation never splits it.
    #[test]
    fn batches_are_appended_read_and_truncated_whole() {
        let mut log = PartitionLog::new();
        log.append_as_leader(&batch(7, 0, &[10, 11, 12]), 0).unwrap();
        log.append_as_leader(&batch(7, 3, &[13, 14]), 1).unwrap();
        assert_eq!((log.leo(), log.batch_count()), (5, 2));
        let b = log.batch_at(4).unwrap();
        assert_eq!((b.base_offset, b.count(), b.leader_epoch, b.producer_id), (3, 2, 1, 7));
        assert_eq!((b.base_sequence, b.last_sequence(), b.size_bytes), (3, 4, 61 + 200));
        assert_eq!(b.value_at(4), Some(14));
        // A fetch from the middle of a batch gets the whole batch.
        let read = log.read(1, u64::MAX);
        assert_eq!(read.iter().map(|b| b.base_offset).collect::<Vec<_>>(), vec![0, 3]);
        // Truncating into a batch removes all of it (LogSegment.truncateTo).
        assert_eq!(log.truncate_to(4), 2);
        assert_eq!((log.leo(), log.epoch_cache()), (3, &[(0, 0)][..]));
        // The follower's copy reads back as the leader's batches.
        let mut follower = PartitionLog::new();
        assert_eq!(follower.append_as_follower(&log.read(0, u64::MAX)), 3);
        assert_eq!(follower.read(0, u64::MAX), log.read(0, u64::MAX));
    }

    /// Only a retry of a whole remembered batch is a duplicate (`findDuplicateBatch`); only
    /// the last five batches are remembered.
    #[test]
    fn duplicates_match_whole_batches_of_the_last_five() {
        let mut log = PartitionLog::new();
        for i in 0..6 {
            log.append_as_leader(&batch(7, i * 2, &[0, 1]), 0).unwrap();
        }
        assert!(log.append_as_leader(&batch(7, 10, &[0, 1]), 0).unwrap().duplicate);
        assert!(log.append_as_leader(&batch(7, 2, &[0, 1]), 0).unwrap().duplicate);
        assert_eq!(log.append_as_leader(&batch(7, 0, &[0, 1]), 0), Err(ErrorCode::OutOfOrderSequenceNumber));
        assert_eq!(log.append_as_leader(&batch(7, 11, &[0]), 0), Err(ErrorCode::OutOfOrderSequenceNumber));
    }

    /// Truncating below the log start empties the log, which then starts at the target.
    #[test]
    fn truncation_below_the_log_start_restarts_the_log_there() {
        let mut log = PartitionLog::new();
        log.truncate_fully_and_start_at(10);
        log.assign_epoch_start(0);
        log.append_as_leader(&batch(-1, -1, &[1, 2]), 0).unwrap();
        assert_eq!((log.log_start(), log.leo()), (10, 12));
        assert_eq!(log.batch_at(9), None);
        assert_eq!(log.truncate_to(5), 7);
        assert_eq!((log.log_start(), log.leo(), log.hw()), (5, 5, 5));
        assert!(log.epoch_cache().is_empty());
    }

    #[test]
    fn values_are_stored_as_runs_when_they_form_one() {
        assert_eq!(Values::from_slice(&[3, 6, 9]), Values::Run { first: 3, stride: 3, count: 3 });
        assert_eq!(Values::from_slice(&[5]), Values::range(5, 1));
        let odd = Values::from_slice(&[1, 2, 4]);
        assert!(matches!(odd, Values::List(_)));
        assert_eq!((odd.get(2), odd.position(4), odd.bounds()), (Some(4), Some(2), Some((1, 4))));
        let run = Values::from_slice(&[3, 6, 9]);
        assert_eq!((run.position(6), run.position(7), run.position(12)), (Some(1), None, None));
        assert_eq!(run, vec![3, 6, 9]);
        assert!(Values::from_slice(&[]).is_empty());
        assert_eq!(run.joined(&Values::from_slice(&[12, 15])), Some(Values::from_slice(&[3, 6, 9, 12, 15])));
        assert_eq!(run.joined(&Values::range(13, 1)), None);
        assert_eq!(Values::range(1, 1).joined(&Values::range(5, 1)), Some(Values::from_slice(&[1, 5])));
        assert_eq!(run.same_span(1, &Values::from_slice(&[6, 9]), 0, 2), Some(true));
        assert_eq!(run.same_span(0, &Values::from_slice(&[6, 9]), 0, 2), Some(false));
        assert_eq!(run.same_span(0, &odd, 0, 1), None);
        assert!(run.span_eq(2, &Values::from_slice(&[9, 10]), 0, 1));
    }

    fn timed(values: &[u64], at: Ms) -> Batch {
        Batch { max_timestamp: at, ..batch(-1, -1, values) }
    }

    /// Ten one-record batches at 0, 1000, …, 9000 ms in segments of three (161-byte batches,
    /// 500-byte segments), epochs 0 then 1 from offset 5.
    fn retained_log(retention_ms: i64, retention_bytes: i64) -> PartitionLog {
        let mut log = PartitionLog::new();
        log.configure(LogConfig {
            retention_ms,
            retention_bytes,
            segment_bytes: 500,
            segment_ms: 604_800_000,
            ..LogConfig::default()
        });
        for i in 0..10u64 {
            let epoch = if i < 5 { 0 } else { 1 };
            log.assign_epoch_start(epoch);
            log.append_as_leader(&timed(&[i], i * 1000), epoch).unwrap();
        }
        log
    }

    /// Retention by time moves the log start to the first segment kept, never past the HW;
    /// the data below it is gone and the epoch cache starts there (`truncateFromStart`).
    #[test]
    fn retention_by_time_moves_the_log_start_below_the_hw() {
        let mut log = retained_log(4000, -1);
        log.set_hw(4);
        assert_eq!(log.delete_old_segments(20_000), Some(3), "segment 3..6 ends above the HW 4");
        log.set_hw(10);
        assert_eq!(log.delete_old_segments(20_000), Some(10), "all of it, the active segment too");
        assert_eq!((log.log_start(), log.leo(), log.batch_count()), (10, 10, 0));
        assert_eq!(log.epoch_cache(), &[(1, 10)]);
        assert!(log.read(9, u64::MAX).is_empty());
        log.append_as_leader(&timed(&[10], 21_000), 1).unwrap();
        assert_eq!((log.log_start(), log.leo()), (10, 11));
    }

    /// Retention by size keeps at least retention.bytes; the active segment stays while it is
    /// needed for that.
    #[test]
    fn retention_by_size_keeps_the_newest_segments() {
        let mut log = retained_log(-1, 700);
        log.set_hw(10);
        assert_eq!(log.delete_old_segments(0), Some(3));
        assert_eq!(log.batch_at(2), None);
        assert_eq!(log.batch_at(3).map(|b| b.base_offset), Some(3));
        assert_eq!(log.epoch_cache(), &[(0, 3), (1, 5)]);
        assert_eq!(log.size_bytes(), 7 * 161);
    }

    /// A follower takes the leader's log start from fetch responses, only up to its own HW.
    #[test]
    fn follower_adopts_the_leaders_log_start_up_to_its_hw() {
        let mut log = retained_log(-1, -1);
        log.set_hw(4);
        assert!(!log.maybe_increment_log_start(6));
        assert!(log.maybe_increment_log_start(3));
        assert_eq!((log.log_start(), log.batch_at(2)), (3, None));
        // The batches below go at the next retention run (deleteLogStartOffsetBreachedSegments).
        assert_eq!(log.delete_old_segments(0), None);
        assert_eq!(log.segments().first_base_offset(), 3);
    }
}
