//! The audit ledger: every record a producer was told is safe, and whether the log that now
//! decides (the current leader's) still holds it. This is how isrlab stays honest about loss
//! (DESIGN promise 2; rule book R5.9, R6.5, R7.9).

use super::events::EventKind;
use super::log::PartitionLog;
use super::{AckedRecords, BrokerId, Offset, TopicPartition};
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug)]
struct Entry {
    offset: Offset,
    value: u64,
    lost: bool,
}

#[derive(Clone, Debug, Default)]
struct PartitionLedger {
    entries: Vec<Entry>,
    lost: u64,
}

/// How many of a partition's latest entries an acknowledgement is compared with to skip a
/// record acknowledged again at the same offset (an idempotent retry answered twice).
const RECENT_ENTRIES: usize = 64;

/// How far back from a retried batch the ledger looks for its first copy (records).
pub const DUPLICATE_SCAN: Offset = 100_000;

/// Acknowledged records per partition, with loss and duplicate counts.
#[derive(Clone, Debug, Default)]
pub struct Ledger {
    partitions: BTreeMap<TopicPartition, PartitionLedger>,
    lost: u64,
    duplicates: u64,
    acked: u64,
}

fn holds(log: &PartitionLog, e: &Entry) -> bool {
    log.record_at(e.offset).is_some_and(|r| r.value == e.value)
}

impl Ledger {
    /// An empty ledger.
    pub fn new() -> Self {
        Self::default()
    }

    /// Acknowledged records that the deciding log no longer holds, cluster-wide.
    pub fn lost(&self) -> u64 {
        self.lost
    }

    /// Acknowledged records lost in one partition.
    pub fn lost_in(&self, tp: &TopicPartition) -> u64 {
        self.partitions.get(tp).map_or(0, |p| p.lost)
    }

    /// Records acknowledged twice at different offsets.
    pub fn duplicates(&self) -> u64 {
        self.duplicates
    }

    /// Records acknowledged in all.
    pub fn acked(&self) -> u64 {
        self.acked
    }

    /// Records an acknowledgement. `leader` is the partition's current leader and its log, if
    /// it has one: records it does not hold are lost at once (the ack raced a failover).
    pub fn on_acked(
        &mut self,
        acked: &AckedRecords,
        leader: Option<(BrokerId, &PartitionLog)>,
        events: &mut Vec<EventKind>,
    ) {
        if acked.retried
            && let Some((_, log)) = leader
        {
            self.find_earlier_copies(acked, log, events);
        }
        let p = self.partitions.entry(acked.tp.clone()).or_default();
        let first_new = p.entries.len();
        for (i, &value) in acked.values.iter().enumerate() {
            let offset = acked.base_offset + i as Offset;
            let recent = &p.entries[p.entries.len().saturating_sub(RECENT_ENTRIES)..];
            if recent.iter().any(|e| e.offset == offset && e.value == value) {
                continue;
            }
            p.entries.push(Entry { offset, value, lost: false });
            self.acked += 1;
        }
        if let Some((leader, log)) = leader {
            let newly = mark_lost(&mut p.entries[first_new..], log);
            self.report(&acked.tp, leader, newly, events);
        }
    }

    /// Re-checks a partition against the log of its current leader after an election or a
    /// truncation. Records it no longer holds count as lost; records it holds again (a later
    /// election went back to a replica that had them) stop counting.
    pub fn reconcile(
        &mut self,
        tp: &TopicPartition,
        leader: BrokerId,
        log: &PartitionLog,
        events: &mut Vec<EventKind>,
    ) {
        let Some(p) = self.partitions.get_mut(tp) else { return };
        let mut restored = 0;
        for e in p.entries.iter_mut().filter(|e| e.lost) {
            if holds(log, e) {
                e.lost = false;
                restored += 1;
            }
        }
        p.lost -= restored;
        self.lost -= restored;
        let newly = mark_lost(&mut p.entries, log);
        self.report(tp, leader, newly, events);
    }

    /// A batch retried without idempotence may already be in the log from its first attempt,
    /// which timed out or lost its answer but was appended: those copies are duplicates.
    fn find_earlier_copies(&mut self, acked: &AckedRecords, log: &PartitionLog, events: &mut Vec<EventKind>) {
        let start = (acked.base_offset - DUPLICATE_SCAN).max(log.log_start());
        let mut found = Vec::new();
        for offset in start..acked.base_offset {
            if let Some(r) = log.record_at(offset)
                && acked.values.contains(&r.value)
            {
                found.push((r.value, offset));
            }
        }
        let Some(&(value, first_offset)) = found.first() else { return };
        let index = acked.values.iter().position(|&v| v == value).unwrap_or(0);
        self.duplicates += found.len() as u64;
        events.push(EventKind::DuplicateAcked {
            tp: acked.tp.clone(),
            value,
            first_offset,
            second_offset: acked.base_offset + index as Offset,
            count: found.len() as u64,
        });
    }

    fn report(
        &mut self,
        tp: &TopicPartition,
        leader: BrokerId,
        newly: Vec<Offset>,
        events: &mut Vec<EventKind>,
    ) {
        let (Some(&first), Some(&last)) = (newly.iter().min(), newly.iter().max()) else { return };
        let count = newly.len() as u64;
        if let Some(p) = self.partitions.get_mut(tp) {
            p.lost += count;
        }
        self.lost += count;
        events.push(EventKind::AckedRecordsLost {
            tp: tp.clone(),
            count,
            first_offset: first,
            last_offset: last,
            leader,
        });
    }
}

fn mark_lost(entries: &mut [Entry], log: &PartitionLog) -> Vec<Offset> {
    let mut newly = Vec::new();
    for e in entries.iter_mut().filter(|e| !e.lost) {
        if !holds(log, e) {
            e.lost = true;
            newly.push(e.offset);
        }
    }
    newly
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Acks;
    use crate::sim::protocol::Batch;

    fn log_of(values: &[u64], epoch: i32) -> PartitionLog {
        let mut log = PartitionLog::new();
        for &v in values {
            log.append_as_leader(
                &Batch { producer_id: -1, base_sequence: -1, values: vec![v], record_size: 1 },
                epoch,
            )
            .unwrap();
        }
        log
    }

    fn acked(base: Offset, values: &[u64]) -> AckedRecords {
        AckedRecords {
            tp: TopicPartition::new("t", 0),
            base_offset: base,
            leader_epoch: 0,
            values: values.to_vec(),
            acks: Acks::One,
            retried: false,
        }
    }

    /// S3: offsets 5, 6 acked with acks=1 on broker 1; broker 2 leads without them.
    #[test]
    fn acks_one_loss_is_counted_when_the_new_leader_lacks_the_records() {
        let mut ledger = Ledger::new();
        let mut events = Vec::new();
        let old = log_of(&[0, 1, 2, 3, 4, 5, 6], 0);
        ledger.on_acked(&acked(5, &[5, 6]), Some((1, &old)), &mut events);
        assert_eq!(ledger.lost(), 0);
        let new_leader = log_of(&[0, 1, 2, 3, 4], 0);
        ledger.reconcile(&TopicPartition::new("t", 0), 2, &new_leader, &mut events);
        assert_eq!(ledger.lost(), 2);
        assert!(matches!(
            events.last(),
            Some(EventKind::AckedRecordsLost { count: 2, first_offset: 5, last_offset: 6, leader: 2, .. })
        ));
        // The same offsets filled with other records are still a loss.
        let overwritten = log_of(&[0, 1, 2, 3, 4, 50, 60], 1);
        ledger.reconcile(&TopicPartition::new("t", 0), 2, &overwritten, &mut events);
        assert_eq!(ledger.lost(), 2);
        // Leadership back on a replica that has them: not lost any more.
        ledger.reconcile(&TopicPartition::new("t", 0), 1, &old, &mut events);
        assert_eq!(ledger.lost(), 0);
    }

    /// S4/S6: an acks=all batch timed out after its append; the non-idempotent retry put
    /// the same record in the log again.
    #[test]
    fn retry_without_idempotence_finds_the_first_copy() {
        let mut ledger = Ledger::new();
        let mut events = Vec::new();
        let log = log_of(&[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10], 0);
        let retry = AckedRecords { retried: true, ..acked(11, &[10]) };
        ledger.on_acked(&retry, Some((1, &log)), &mut events);
        assert_eq!(ledger.duplicates(), 1);
        assert!(
            events[0].to_string().contains("m10 is in the log at offset 10 and again at 11"),
            "{}",
            events[0]
        );
    }

    #[test]
    fn the_same_acknowledgement_twice_counts_once() {
        let mut ledger = Ledger::new();
        let mut events = Vec::new();
        ledger.on_acked(&acked(0, &[7]), None, &mut events);
        ledger.on_acked(&acked(0, &[7]), None, &mut events);
        assert_eq!((ledger.acked(), ledger.duplicates()), (1, 0));
    }
}
