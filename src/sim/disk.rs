//! One replica log's page cache and disk: what an append leaves dirty in memory, what an
//! fsync or the operating system's writeback has put on disk, and so what a power loss keeps.
//!
//! Kafka appends to the page cache and fsyncs only when told to: `flush.messages` records
//! unflushed (`UnifiedLog.append` → `flush`), `flush.ms` since the last flush (checked every
//! `log.flush.scheduler.interval.ms` by `LogManager.flushDirtyLogs`), a segment roll, or a
//! clean shutdown. Kafka 4.x's defaults for all three settings are `Long.MAX_VALUE`
//! (`ServerLogConfigs`): it relies on replication, and on the OS, for durability. Linux writes
//! dirty pages back once they are older than `vm.dirty_expire_centisecs` (30 s), when its
//! flusher wakes (every `vm.dirty_writeback_centisecs`, 5 s); isrlab names those lab
//! properties `os.dirty.expire.ms` and `os.dirty.writeback.ms`. A process crash keeps the page
//! cache (the kernel still has it); a power loss keeps only what reached the disk.

use super::{Ms, Offset};
use std::collections::VecDeque;

/// A log's page cache: the offset flushed to disk and the dirty writes above it.
#[derive(Clone, Debug, Default)]
pub struct PageCache {
    /// Offsets below this are on disk (Kafka's recovery point after its last fsync).
    flushed: Offset,
    /// Writes not flushed yet: (sim time written in ms, LEO after the write), oldest first.
    dirty: VecDeque<(Ms, Offset)>,
    /// When Kafka last flushed this log (ms; `UnifiedLog.lastFlushTime`).
    last_flush: Ms,
}

impl PageCache {
    /// Everything below `leo` is on disk; nothing is dirty. The state of a log just loaded or
    /// created.
    pub fn clean(leo: Offset, now: Ms) -> Self {
        PageCache { flushed: leo, dirty: VecDeque::new(), last_flush: now }
    }

    /// Offsets below this were fsynced by Kafka.
    pub fn flushed(&self) -> Offset {
        self.flushed
    }

    /// When Kafka last flushed this log (ms).
    pub fn last_flush(&self) -> Ms {
        self.last_flush
    }

    /// Records written up to `leo` at `now` sit dirty in the page cache.
    pub fn written(&mut self, now: Ms, leo: Offset) {
        debug_assert!(
            self.dirty.back().is_none_or(|&(_, end)| end <= leo),
            "a write never ends below the last"
        );
        match self.dirty.back_mut() {
            Some(last) if last.0 == now => last.1 = leo,
            _ => self.dirty.push_back((now, leo)),
        }
    }

    /// An fsync of everything below `leo` at `now` (Kafka's `UnifiedLog.flush`).
    pub fn flush(&mut self, now: Ms, leo: Offset) {
        self.flushed = self.flushed.max(leo);
        self.forget_flushed();
        self.last_flush = now;
    }

    /// The log was truncated to `leo`: nothing at or above it is dirty or on disk any more.
    pub fn truncated(&mut self, leo: Offset) {
        self.flushed = self.flushed.min(leo);
        for w in &mut self.dirty {
            w.1 = w.1.min(leo);
        }
    }

    /// What is on disk at `now`: what Kafka flushed, and what the OS flusher wrote back. The
    /// flusher wakes at every multiple of `writeback_ms` and writes data dirty for at least
    /// `expire_ms`, so a write at `t` is on disk from the first wake at or after
    /// `t + expire_ms`.
    pub fn on_disk(&self, now: Ms, expire_ms: Ms, writeback_ms: Ms) -> Offset {
        let last_wake = now / writeback_ms.max(1) * writeback_ms.max(1);
        let written_back = self
            .dirty
            .iter()
            .take_while(|&&(t, _)| t.saturating_add(expire_ms) <= last_wake)
            .map(|&(_, end)| end)
            .max();
        written_back.map_or(self.flushed, |end| end.max(self.flushed))
    }

    /// Folds what the OS wrote back by `now` into the flushed offset, so the dirty list stays
    /// as short as the dirty data (the OS writeback is not a Kafka flush: `last_flush` stays).
    pub fn write_back(&mut self, now: Ms, expire_ms: Ms, writeback_ms: Ms) {
        self.flushed = self.on_disk(now, expire_ms, writeback_ms);
        self.forget_flushed();
    }

    /// Drops the dirty writes now on disk. Their ends never decrease (a write ends at the LEO
    /// after it; a truncation lowers every end to the same LEO), so those are the oldest ones:
    /// the work is the number dropped, not the length of the list (this runs on every append).
    fn forget_flushed(&mut self) {
        while self.dirty.front().is_some_and(|&(_, end)| end <= self.flushed) {
            self.dirty.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_os_writes_back_data_dirty_past_the_expiry_at_its_next_wake() {
        let mut cache = PageCache::clean(0, 0);
        cache.written(1_000, 10);
        cache.written(2_000, 20);
        // Dirty for 30 s from 1 s: written back at the wake of 35 s, not at 31 s.
        assert_eq!(cache.on_disk(31_000, 30_000, 5_000), 0);
        assert_eq!(cache.on_disk(34_999, 30_000, 5_000), 0);
        assert_eq!(cache.on_disk(35_000, 30_000, 5_000), 20);
        cache.write_back(35_000, 30_000, 5_000);
        assert_eq!(cache.flushed(), 20);
        assert_eq!(cache.last_flush(), 0);
    }

    #[test]
    fn a_flush_puts_everything_on_disk_and_truncation_lowers_it() {
        let mut cache = PageCache::clean(0, 0);
        cache.written(1_000, 10);
        assert_eq!(cache.on_disk(1_000, 30_000, 5_000), 0);
        cache.flush(1_500, 10);
        assert_eq!((cache.flushed(), cache.last_flush()), (10, 1_500));
        cache.written(2_000, 15);
        cache.truncated(12);
        assert_eq!(cache.on_disk(60_000, 30_000, 5_000), 12);
        cache.truncated(4);
        assert_eq!(cache.on_disk(60_000, 30_000, 5_000), 4);
    }
}
