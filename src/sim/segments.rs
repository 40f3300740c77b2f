//! A log's segments without their files: where each starts, its size in bytes and its newest
//! record timestamp. They decide when the active segment rolls (`LogSegment.shouldRoll`,
//! `UnifiedLog.maybeRoll`) and which closed segments retention deletes
//! (`UnifiedLog.deleteOldSegments` and `deletableSegments`). The batches themselves stay in
//! [`super::log::PartitionLog`].

use super::protocol::RecordBatch;
use super::{Ms, Offset};
use crate::config::LogConfig;
use std::collections::VecDeque;

/// One segment's bookkeeping (Kafka's `LogSegment`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Segment {
    /// Offset of its first record (its file name in Kafka).
    pub base_offset: Offset,
    /// Bytes of its batches.
    pub size_bytes: u64,
    /// Largest record timestamp in it (ms), `None` while empty (`largestTimestamp`).
    pub largest_timestamp: Option<Ms>,
    /// Max timestamp of its first batch: `segment.ms` counts from here
    /// (`rollingBasedTimestamp`).
    pub rolling_timestamp: Option<Ms>,
}

impl Segment {
    fn empty(base_offset: Offset) -> Self {
        Self { base_offset, size_bytes: 0, largest_timestamp: None, rolling_timestamp: None }
    }

    fn add(&mut self, b: &RecordBatch) {
        self.size_bytes += u64::from(b.size_bytes);
        self.largest_timestamp =
            Some(self.largest_timestamp.map_or(b.max_timestamp, |t| t.max(b.max_timestamp)));
        self.rolling_timestamp.get_or_insert(b.max_timestamp);
    }
}

/// Why retention deletes a segment (Kafka's `SegmentDeletionReason`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Breach {
    /// Wholly below the log start offset (`deleteLogStartOffsetBreachedSegments`).
    LogStart,
    /// The log is larger than `retention.bytes` (`deleteRetentionSizeBreachedSegments`).
    Size,
    /// Its newest record is older than `retention.ms` (`deleteRetentionMsBreachedSegments`).
    Time,
}

/// The segments of one log, oldest first; never empty (the last one is the active segment).
#[derive(Clone, Debug)]
pub struct Segments {
    list: VecDeque<Segment>,
}

impl Default for Segments {
    fn default() -> Self {
        Self::starting_at(0)
    }
}

/// What a log tells its segments when retention runs.
#[derive(Clone, Copy, Debug)]
pub struct LogEnds {
    /// Log start offset.
    pub log_start: Offset,
    /// High watermark: nothing at or above it is deleted.
    pub hw: Offset,
    /// Log end offset.
    pub leo: Offset,
}

impl Segments {
    /// One empty active segment at `offset`.
    pub fn starting_at(offset: Offset) -> Self {
        Self { list: VecDeque::from([Segment::empty(offset)]) }
    }

    /// The segments, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &Segment> {
        self.list.iter()
    }

    /// Bytes in all segments (`UnifiedLog.size`).
    pub fn size_bytes(&self) -> u64 {
        self.list.iter().map(|s| s.size_bytes).sum()
    }

    /// Base offset of the oldest segment.
    pub fn first_base_offset(&self) -> Offset {
        self.list.front().map_or(0, |s| s.base_offset)
    }

    /// Adds an appended batch, first rolling a new active segment when the active one is
    /// non-empty and the batch would take it past `segment.bytes`, or the batch's timestamp is
    /// more than `segment.ms` after the segment's first (`LogSegment.shouldRoll`; the index
    /// limits never bind here).
    pub fn append(&mut self, b: &RecordBatch, config: &LogConfig) {
        let roll = self.list.back().is_none_or(|active| {
            let full = active.size_bytes > config.segment_bytes.saturating_sub(u64::from(b.size_bytes));
            let old = active
                .rolling_timestamp
                .is_some_and(|t| b.max_timestamp.saturating_sub(t) > config.segment_ms);
            active.size_bytes > 0 && (full || old)
        });
        if roll {
            self.list.push_back(Segment::empty(b.base_offset));
        }
        if let Some(active) = self.list.back_mut() {
            active.add(b);
        }
    }

    /// After the log was truncated to `new_leo`: segments starting above it go, the one
    /// holding it is recomputed from the batches kept (`batches_from(offset)` gives the log's
    /// batches from `offset` on).
    pub fn truncate<I: Iterator<Item = RecordBatch>>(
        &mut self,
        new_leo: Offset,
        batches_from: impl FnOnce(Offset) -> I,
    ) {
        while self.list.len() > 1 && self.list.back().is_some_and(|s| s.base_offset > new_leo) {
            self.list.pop_back();
        }
        if let Some(last) = self.list.back_mut() {
            let mut rebuilt = Segment::empty(last.base_offset);
            for b in batches_from(last.base_offset).filter(|b| b.base_offset >= last.base_offset) {
                rebuilt.add(&b);
            }
            *last = rebuilt;
        }
    }

    /// Runs Kafka's three retention passes in its order (`UnifiedLog.deleteOldSegments`):
    /// segments below the log start, then by size, then by time. Removes what they delete and
    /// returns the new log start offset, if it moved. A segment is deletable only while the
    /// HW is at or past its end (the next segment's base offset, or the LEO for the last),
    /// and an empty last segment never is (`deletableSegments`). When every segment goes, a
    /// new empty active segment is rolled at the LEO first (`deleteSegments`).
    pub fn delete_old(&mut self, now: Ms, ends: LogEnds, config: &LogConfig) -> Option<Offset> {
        let mut log_start = ends.log_start;
        let mut moved = false;
        for breach in [Breach::LogStart, Breach::Size, Breach::Time] {
            let n = self.deletable(now, LogEnds { log_start, ..ends }, config, breach);
            if n > 0 {
                if n == self.list.len() {
                    self.list.push_back(Segment::empty(ends.leo));
                }
                self.list.drain(..n);
                log_start = log_start.max(self.first_base_offset());
                moved = true;
            }
        }
        (moved && log_start > ends.log_start).then_some(log_start)
    }

    fn deletable(&self, now: Ms, ends: LogEnds, config: &LogConfig, breach: Breach) -> usize {
        let mut size_over = match breach {
            Breach::Size if config.retention_bytes >= 0 => {
                let size = self.size_bytes() as i64;
                if size < config.retention_bytes {
                    return 0;
                }
                size - config.retention_bytes
            }
            Breach::Size => return 0,
            Breach::Time if config.retention_ms < 0 => return 0,
            _ => 0,
        };
        let mut n = 0;
        for (i, segment) in self.list.iter().enumerate() {
            let next = self.list.get(i + 1);
            let upper = next.map_or(ends.leo, |s| s.base_offset);
            let last_and_empty = next.is_none() && segment.size_bytes == 0;
            let breached = match breach {
                Breach::LogStart => next.is_some_and(|s| s.base_offset <= ends.log_start),
                Breach::Size => size_over - segment.size_bytes as i64 >= 0,
                Breach::Time => segment
                    .largest_timestamp
                    .is_some_and(|t| now.saturating_sub(t) as i64 > config.retention_ms),
            };
            if !(ends.hw >= upper && breached) || last_and_empty {
                break;
            }
            size_over -= segment.size_bytes as i64;
            n += 1;
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::protocol::Values;

    fn batch(base_offset: Offset, count: u32, max_timestamp: Ms) -> RecordBatch {
        RecordBatch {
            base_offset,
            leader_epoch: 0,
            producer_id: -1,
            base_sequence: -1,
            size_bytes: 61 + 100 * count,
            max_timestamp,
            values: Values::range(base_offset as u64, count),
        }
    }

    fn config(segment_bytes: u64, retention_ms: i64, retention_bytes: i64) -> LogConfig {
        LogConfig {
            retention_ms,
            retention_bytes,
            segment_bytes,
            segment_ms: 604_800_000,
            ..LogConfig::default()
        }
    }

    /// Ten one-record batches of 161 bytes, at 0, 1000, …, 9000 ms; segments of 500 bytes
    /// hold three batches (a fourth would pass 500).
    fn filled(cfg: &LogConfig) -> Segments {
        let mut s = Segments::default();
        for i in 0..10 {
            s.append(&batch(i, 1, i as Ms * 1000), cfg);
        }
        s
    }

    fn bases(s: &Segments) -> Vec<Offset> {
        s.iter().map(|s| s.base_offset).collect()
    }

    #[test]
    fn segments_roll_by_size_and_by_time() {
        let cfg = config(500, -1, -1);
        assert_eq!(bases(&filled(&cfg)), vec![0, 3, 6, 9]);
        let by_time = LogConfig { segment_ms: 2500, ..config(1 << 30, -1, -1) };
        assert_eq!(bases(&filled(&by_time)), vec![0, 3, 6, 9], "a batch 3 s after a segment's first rolls");
    }

    /// Time retention deletes closed segments whose newest record is older than retention.ms,
    /// only below the HW; the active segment goes too once it is breached and wholly below the
    /// HW, after an empty segment was rolled at the LEO (`deleteSegments`).
    #[test]
    fn time_retention_respects_the_hw_and_rolls_before_deleting_everything() {
        let cfg = config(500, 5000, -1);
        let mut s = filled(&cfg);
        let ends = LogEnds { log_start: 0, hw: 4, leo: 10 };
        assert_eq!(s.delete_old(9000, ends, &cfg), Some(3), "segment 3..6 ends above the HW 4");
        assert_eq!(bases(&s), vec![3, 6, 9]);
        let ends = LogEnds { log_start: 3, hw: 10, leo: 10 };
        assert_eq!(s.delete_old(9000, ends, &cfg), None, "3..6's newest record is 4 s old");
        assert_eq!(s.delete_old(11_000, ends, &cfg), Some(6));
        assert_eq!(s.delete_old(20_000, LogEnds { log_start: 6, ..ends }, &cfg), Some(10));
        assert_eq!(bases(&s), vec![10]);
        assert_eq!(s.size_bytes(), 0);
        assert_eq!(
            s.delete_old(99_000, LogEnds { log_start: 10, hw: 10, leo: 10 }, &cfg),
            None,
            "empty active segment stays"
        );
    }

    /// Size retention deletes the oldest segments while the rest stays at or above
    /// retention.bytes; the log start breach deletes segments wholly below the log start.
    #[test]
    fn size_and_log_start_retention() {
        let cfg = config(500, -1, 700);
        let mut s = filled(&cfg);
        // 1610 bytes, 910 over the limit: the first 483-byte segment goes; the second would
        // take the log below 700.
        assert_eq!(s.delete_old(0, LogEnds { log_start: 0, hw: 10, leo: 10 }, &cfg), Some(3));
        assert_eq!(bases(&s), vec![3, 6, 9]);
        let keep = config(500, -1, -1);
        let ends = LogEnds { log_start: 7, hw: 10, leo: 10 };
        assert_eq!(s.delete_old(0, ends, &keep), None, "3..6 is below 7: deleted, the log start stays");
        assert_eq!(bases(&s), vec![6, 9]);
    }

    #[test]
    fn truncation_drops_later_segments_and_recomputes_the_last() {
        let cfg = config(500, -1, -1);
        let mut s = filled(&cfg);
        let batches: Vec<RecordBatch> = (0..4).map(|i| batch(i, 1, i as Ms * 1000)).collect();
        s.truncate(4, |from| batches.iter().filter(move |b| b.base_offset >= from).cloned());
        assert_eq!(bases(&s), vec![0, 3]);
        assert_eq!(s.iter().last().map(|l| (l.size_bytes, l.largest_timestamp)), Some((161, Some(3000))));
    }
}
