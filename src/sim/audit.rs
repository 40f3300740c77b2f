//! The audit ledger: every record a producer was told is safe, and whether the log that now
//! decides (the current leader's) still holds it. This is how isrlab stays honest about loss
//! (DESIGN promise 2; rule book R5.9, R6.5, R7.9). It keeps one entry per acknowledged batch
//! (an offset range and its payload values), not one per record; a record counts as held
//! when the deciding log has the same payload at the same offset.
//!
//! Records sent with `acks=0` are never acknowledged: the producer counts them done once they
//! are written to the socket and hears nothing back (`ProducerConfig` `acks=0`: "the record
//! will be immediately added to the socket buffer and considered sent"). The ledger watches
//! those the leader appended all the same, but counts their loss apart
//! ([`Ledger::unacked_lost`]): "acked records lost" counts only records a producer was told
//! were written (`acks=1` or `all`).

use super::events::EventKind;
use super::log::PartitionLog;
use super::loss_cause::{AckedUnder, Election, LossCause};
use super::producer::VALUES_PER_PRODUCER;
use super::protocol::{RecordBatch, Values};
use super::{AckedRecords, Acks, BrokerId, Offset, TopicPartition};
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

/// One acknowledged batch: `values` at offsets `base_offset..`, of which `lost` are missing
/// from the deciding log right now.
#[derive(Clone, Debug)]
struct Entry {
    base_offset: Offset,
    values: Values,
    lost: u32,
    /// The producer whose records these are (its index, from the payload values).
    producer: u32,
    /// How they were acknowledged (`None` for records a consumer read), to say why they
    /// were lost if they are.
    under: Option<AckedUnder>,
}

/// The producer (index) that wrote payload `value`: values of producer `i` are
/// `i * VALUES_PER_PRODUCER + counter`.
fn producer_of(value: u64) -> u32 {
    u32::try_from(value / VALUES_PER_PRODUCER).unwrap_or(u32::MAX)
}

impl Entry {
    /// Whether these records were sent with `acks=0` (appended, never acknowledged).
    fn unacked(&self) -> bool {
        self.under.as_ref().is_some_and(|u| u.acks == Acks::Zero)
    }

    fn end(&self) -> Offset {
        self.base_offset + Offset::from(self.values.count())
    }

    /// Whether this entry already holds all of `values` at `base_offset..` (the same
    /// acknowledgement, or the same records read, again).
    fn covers(&self, base_offset: Offset, values: &Values) -> bool {
        let end = base_offset + Offset::from(values.count());
        self.base_offset <= base_offset
            && end <= self.end()
            && self.values.span_eq((base_offset - self.base_offset) as usize, values, 0, values.len())
    }
}

impl PartitionLedger {
    /// Adds `values` at `base_offset..` unless one of the latest entries already holds them
    /// (the same records again), and checks the new entry against `log` when given. Returns
    /// `None` when nothing was added, else what of it `log` lacks.
    fn add(
        &mut self,
        base_offset: Offset,
        values: &Values,
        under: Option<AckedUnder>,
        log: Option<&PartitionLog>,
    ) -> Option<Checked> {
        let recent = self.entries.range(self.entries.len().saturating_sub(RECENT_ENTRIES)..);
        let again = recent.into_iter().any(|e| e.covers(base_offset, values));
        let (low, _) = values.bounds().filter(|_| !again)?;
        let producer = producer_of(low);
        self.entries.push_back(Entry { base_offset, values: values.clone(), lost: 0, producer, under });
        let mut checked = Checked::default();
        if let Some(log) = log {
            let last = self.entries.len() - 1;
            checked = recheck(self.entries.range_mut(last..), log);
        }
        self.join_last_two();
        Some(checked)
    }

    /// Drops entries wholly below `log`'s start offset and not lost: retention deleted them,
    /// so no election can lose them any more.
    fn retire(&mut self, log: &PartitionLog) {
        while self.entries.front().is_some_and(|e| e.lost == 0 && e.end() <= log.log_start()) {
            self.entries.pop_front();
        }
    }

    /// Joins the newest entry into the one before when both are wholly held, adjacent, and
    /// their payloads form one run: in steady state a partition's ledger is a handful of
    /// entries however many batches were acknowledged.
    fn join_last_two(&mut self) {
        let n = self.entries.len();
        if n < 2 {
            return;
        }
        let (prev, last) = (&self.entries[n - 2], &self.entries[n - 1]);
        if prev.lost != 0
            || last.lost != 0
            || prev.end() != last.base_offset
            || prev.producer != last.producer
            || prev.under != last.under
        {
            return;
        }
        if let Some(values) = prev.values.joined(&last.values) {
            self.entries.pop_back();
            if let Some(prev) = self.entries.back_mut() {
                prev.values = values;
            }
        }
    }
}

#[derive(Clone, Debug, Default)]
struct PartitionLedger {
    entries: VecDeque<Entry>,
    /// Acknowledged records lost (for a consumer's ledger: records it read, erased since).
    lost: u64,
    /// Records sent with `acks=0` and appended, lost since.
    unacked_lost: u64,
    /// Per producer: the end offset of its latest acknowledged batch and the highest payload
    /// value acknowledged so far, to spot records written after records sent later.
    order: BTreeMap<u32, (Offset, u64)>,
    /// The ISR of the latest acknowledgement, shared by the entries acknowledged under it.
    last_isr: Option<Arc<[BrokerId]>>,
    /// Why its latest loss happened.
    cause: Option<LossCause>,
    /// For a consumer's ledger: the offset after the last record it read, to spot a poll
    /// that starts further on (a skip).
    read_end: Option<Offset>,
}

/// How many of a partition's latest entries an acknowledgement is compared with to skip a
/// batch acknowledged again at the same offsets (an idempotent retry answered twice).
const RECENT_ENTRIES: usize = 64;

/// How far back from a retried batch the ledger looks for its first copy (records).
pub const DUPLICATE_SCAN: Offset = 100_000;

/// Acknowledged records per partition, with loss and duplicate counts; and the records each
/// consumer read, with how many of them were erased afterwards.
#[derive(Clone, Debug, Default)]
pub struct Ledger {
    partitions: BTreeMap<TopicPartition, PartitionLedger>,
    /// What each consumer read, by (consumer, partition); `lost` counts the erased ones.
    seen: BTreeMap<(u32, TopicPartition), PartitionLedger>,
    lost: u64,
    /// Records sent with `acks=0` that a leader appended and the deciding log lost since.
    unacked_lost: u64,
    duplicates: u64,
    acked: u64,
    /// Records sent with `acks=0` that a leader appended.
    unacked: u64,
    /// Acknowledged records written after a record of the same producer that was sent later
    /// (see [`Ledger::reordered`]), per producer index.
    reordered: BTreeMap<u32, u64>,
    /// Acknowledged records lost in topics deleted since, per producer index, and records
    /// erased under a consumer in them, per consumer index: still counted, no longer checked
    /// ([`Ledger::forget_topic`]).
    deleted_lost: BTreeMap<u32, u64>,
    deleted_unacked_lost: BTreeMap<u32, u64>,
    deleted_seen_erased: BTreeMap<u32, u64>,
    /// Offsets consumers jumped over between two reads of a partition (see
    /// [`Ledger::poll_skipped`]).
    poll_skipped: u64,
}

/// The records of `e` that `log` does not hold: how many, and the first and last such
/// offset. Offsets below the log start are not missing: retention deleted them after they
/// were committed (`UnifiedLog.deletableSegments` only deletes below the HW).
fn missing(log: &PartitionLog, e: &Entry) -> (u32, Offset, Offset) {
    let (start, end) = (e.base_offset.max(log.log_start()), e.end());
    let mut gaps = Gaps::default();
    let mut next = start;
    for b in log.batches_from(start) {
        if next >= end || b.base_offset >= end {
            break;
        }
        gaps.add_range(next, b.base_offset.min(end));
        let hi = b.next_offset().min(end);
        let lo = next.max(b.base_offset);
        let (i, j, n) =
            ((lo - b.base_offset) as usize, (lo - e.base_offset) as usize, (hi - lo).max(0) as usize);
        match b.values.same_span(i, &e.values, j, n) {
            Some(true) => {}
            Some(false) => gaps.add_range(lo, hi),
            None => {
                for o in lo..hi {
                    if b.value_at(o) != e.values.get((o - e.base_offset) as usize) {
                        gaps.add_range(o, o + 1);
                    }
                }
            }
        }
        next = hi;
    }
    gaps.add_range(next, end);
    (gaps.count, gaps.first, gaps.last)
}

/// Missing offsets seen so far: how many, the first and the last.
#[derive(Default)]
struct Gaps {
    count: u32,
    first: Offset,
    last: Offset,
}

impl Gaps {
    fn add_range(&mut self, from: Offset, to: Offset) {
        if to <= from {
            return;
        }
        if self.count == 0 {
            self.first = from;
        }
        self.count += (to - from) as u32;
        self.last = to - 1;
    }
}

/// Offsets that became missing in one check: how many, their span, and how the first of
/// them was acknowledged.
#[derive(Default)]
struct NewlyLost {
    count: u64,
    first: Option<Offset>,
    last: Option<Offset>,
    /// Each distinct way the lost batches were acknowledged (leader, `acks`, ISR), with the
    /// lowest lost offset acknowledged that way.
    ways: Vec<(Offset, AckedUnder)>,
}

impl NewlyLost {
    /// How many, the first and last offset, and why: `None` when nothing is newly missing.
    /// `deciding` is the leader whose log lacks them, `election` how it came to lead.
    fn cause(
        self,
        deciding: BrokerId,
        election: Option<Election>,
    ) -> Option<(u64, Offset, Offset, LossCause)> {
        let (first, last) = self.first.zip(self.last)?;
        let mut ways = self.ways;
        ways.sort_by_key(|(offset, _)| *offset);
        let mut ways = ways.into_iter().map(|(_, w)| w);
        let acked = ways.next()?;
        Some((self.count, first, last, LossCause { acked, also: ways.collect(), deciding, election }))
    }

    fn add(&mut self, count: u32, first: Offset, last: Offset, under: Option<&AckedUnder>) {
        if let Some(u) = under {
            let same = |w: &AckedUnder| w.leader == u.leader && w.acks == u.acks && w.isr == u.isr;
            match self.ways.iter_mut().find(|(_, w)| same(w)) {
                Some(way) => way.0 = way.0.min(first),
                None => self.ways.push((first, u.clone())),
            }
        }
        self.count += u64::from(count);
        self.first = Some(self.first.map_or(first, |f| f.min(first)));
        self.last = Some(self.last.map_or(last, |l| l.max(last)));
    }
}

/// What one re-check found: records held again and records newly missing, the acknowledged
/// ones (or a consumer's read ones) apart from those sent with `acks=0`.
#[derive(Default)]
struct Checked {
    restored: u64,
    newly: NewlyLost,
    restored_unacked: u64,
    newly_unacked: NewlyLost,
}

/// Re-checks entries against `log`.
fn recheck<'a>(entries: impl Iterator<Item = &'a mut Entry>, log: &PartitionLog) -> Checked {
    let mut found = Checked::default();
    for e in entries {
        let (now, first, last) = missing(log, e);
        let (restored, newly) = if e.unacked() {
            (&mut found.restored_unacked, &mut found.newly_unacked)
        } else {
            (&mut found.restored, &mut found.newly)
        };
        if now < e.lost {
            *restored += u64::from(e.lost - now);
        } else if now > e.lost {
            newly.add(now - e.lost, first, last, e.under.as_ref());
        }
        e.lost = now;
    }
    found
}

/// How many records of `acked` (all of one producer) were written after a record of that
/// producer with a higher payload value, i.e. one handed to the producer later: values grow
/// with creation, so a lower value at a higher offset means a later record overtook it (a
/// retried batch written after batches sent after it). `order` keeps, per producer, the end
/// offset of its latest acknowledged batch and the highest value acknowledged so far; a batch
/// at a lower offset than that end (offsets reused after a truncation) restarts the tracking.
fn out_of_order(order: &mut BTreeMap<u32, (Offset, u64)>, producer: u32, acked: &AckedRecords) -> u64 {
    let Some((_, high)) = acked.values.bounds() else { return 0 };
    let end = acked.base_offset + Offset::from(acked.values.count());
    let (count, max) = match order.get(&producer) {
        Some(&(prev_end, max)) if acked.base_offset >= prev_end => {
            (acked.values.iter().filter(|&v| v < max).count() as u64, max.max(high))
        }
        _ => (0, high),
    };
    order.insert(producer, (end, max));
    count
}

impl Ledger {
    /// An empty ledger.
    pub fn new() -> Self {
        Self::default()
    }

    /// Stops checking `topic`, which was deleted (`kafka-topics.sh --delete`): its records
    /// went by the admin's will, not lost. Its partitions leave the ledger, so a topic created
    /// again under the same name (a new topic, with a new topic id, KIP-516) is checked from
    /// scratch instead of against the old topic's acknowledgements. Records already lost or
    /// erased before the deletion stay counted (in [`Ledger::lost`], [`Ledger::lost_by`] and
    /// [`Ledger::seen_erased`]).
    pub fn forget_topic(&mut self, topic: &str) {
        let gone: Vec<TopicPartition> =
            self.partitions.keys().filter(|tp| &*tp.topic == topic).cloned().collect();
        for tp in gone {
            let Some(p) = self.partitions.remove(&tp) else { continue };
            for e in p.entries.iter().filter(|e| e.lost > 0) {
                let deleted =
                    if e.unacked() { &mut self.deleted_unacked_lost } else { &mut self.deleted_lost };
                *deleted.entry(e.producer).or_default() += u64::from(e.lost);
            }
        }
        let seen: Vec<(u32, TopicPartition)> =
            self.seen.keys().filter(|(_, tp)| &*tp.topic == topic).cloned().collect();
        for key in seen {
            if let Some(p) = self.seen.remove(&key) {
                *self.deleted_seen_erased.entry(key.0).or_default() += p.lost;
            }
        }
    }

    /// Acknowledged records (`acks=1` or `all`) that the deciding log no longer holds,
    /// cluster-wide.
    pub fn lost(&self) -> u64 {
        self.lost
    }

    /// Records sent with `acks=0` that a leader appended and the deciding log no longer
    /// holds, cluster-wide: sent without acknowledgement, lost. Never part of [`Ledger::lost`].
    /// Records that never reached a leader's log are not counted here: the producer let go
    /// of them unanswered, and no log had them.
    pub fn unacked_lost(&self) -> u64 {
        self.unacked_lost
    }

    /// Acknowledged records lost in one partition.
    pub fn lost_in(&self, tp: &TopicPartition) -> u64 {
        self.partitions.get(tp).map_or(0, |p| p.lost)
    }

    /// Acknowledged records lost per partition and why the latest of them were (while some
    /// are), in (topic, partition) order (partitions the ledger has seen only).
    pub fn lost_by_partition(&self) -> impl Iterator<Item = (&TopicPartition, (u64, Option<&LossCause>))> {
        self.partitions.iter().map(|(tp, p)| (tp, (p.lost, p.cause.as_ref().filter(|_| p.lost > 0))))
    }

    /// Records acknowledged twice at different offsets.
    pub fn duplicates(&self) -> u64 {
        self.duplicates
    }

    /// Acknowledged records of producer `producer` (its index) lost, added up over the
    /// entries (lost records are never retired).
    pub fn lost_by(&self, producer: u32) -> u64 {
        self.lost_of(producer, false)
    }

    /// [`Ledger::unacked_lost`] of producer `producer` (its index).
    pub fn unacked_lost_by(&self, producer: u32) -> u64 {
        self.lost_of(producer, true)
    }

    fn lost_of(&self, producer: u32, unacked: bool) -> u64 {
        let entries = self.partitions.values().flat_map(|p| &p.entries);
        let deleted = if unacked { &self.deleted_unacked_lost } else { &self.deleted_lost };
        let deleted = deleted.get(&producer).copied().unwrap_or(0);
        let lost =
            entries.filter(|e| e.producer == producer && e.unacked() == unacked).map(|e| u64::from(e.lost));
        deleted + lost.sum::<u64>()
    }

    /// Acknowledged records that sit in their partition's log after a record of the same
    /// producer that was handed to it later, cluster-wide: what a retry does with more than
    /// one request in flight and no idempotence (`max.in.flight.requests.per.connection` > 1,
    /// see Kafka's documentation of `enable.idempotence` and `retries`). Counted when the
    /// acknowledgement arrives, against the producer's earlier acknowledgements in the
    /// partition.
    pub fn reordered(&self) -> u64 {
        self.reordered.values().sum()
    }

    /// [`Ledger::reordered`] of one producer (its index).
    pub fn reordered_by(&self, producer: u32) -> u64 {
        self.reordered.get(&producer).copied().unwrap_or(0)
    }

    /// How many records of `removed` (whole batches a replica truncated away, R7.5) from
    /// offset `from` on had been acknowledged: the ledger holds the same payload at the same
    /// offset. Records acknowledged at those offsets with other payloads (the new leader's)
    /// do not count. Also returns the lowest and highest such offset, if any. Only called on
    /// a truncation, so it may walk the partition's entries.
    pub fn acknowledged_among(
        &self,
        tp: &TopicPartition,
        from: Offset,
        removed: &[RecordBatch],
    ) -> (u64, Option<(Offset, Offset)>) {
        let Some(p) = self.partitions.get(tp) else { return (0, None) };
        let mut count = 0;
        let mut span: Option<(Offset, Offset)> = None;
        for b in removed {
            let (lo, hi) = (b.base_offset.max(from), b.next_offset());
            for e in p.entries.iter().filter(|e| e.base_offset < hi && e.end() > lo) {
                let offsets = lo.max(e.base_offset)..hi.min(e.end());
                for o in offsets.filter(|&o| {
                    b.value_at(o).is_some() && b.value_at(o) == e.values.get((o - e.base_offset) as usize)
                }) {
                    count += 1;
                    span = Some(span.map_or((o, o), |(a, z)| (a.min(o), z.max(o))));
                }
            }
        }
        (count, span)
    }

    /// Records acknowledged in all (`acks=1` or `all`).
    pub fn acked(&self) -> u64 {
        self.acked
    }

    /// Records sent with `acks=0` that a leader appended, in all.
    pub fn unacked(&self) -> u64 {
        self.unacked
    }

    /// Acknowledged and consumed batches the ledger still watches (memory grows with this).
    pub fn entries(&self) -> usize {
        self.partitions.values().chain(self.seen.values()).map(|p| p.entries.len()).sum()
    }

    /// Bytes its entries take.
    pub fn memory_bytes(&self) -> u64 {
        (self.entries() * std::mem::size_of::<Entry>()) as u64
    }

    /// Records an acknowledgement, or for `acks=0` records the leader's append (they get no
    /// acknowledgement; see [`Ledger::unacked_lost`]). `isr` is the acknowledging leader's ISR
    /// then (kept to say why the records were lost, if they are). `leader` is the partition's current leader
    /// and its log, if it has one: records it does not hold are lost at once (the ack raced a
    /// failover; `election` is the latest leader change seen, to explain it). Entries wholly
    /// below that log's start offset and not lost are retired: retention deleted them, so no
    /// election can lose them any more.
    pub fn on_acked(
        &mut self,
        acked: &AckedRecords,
        isr: &[BrokerId],
        leader: Option<(BrokerId, &PartitionLog)>,
        election: Option<Election>,
        events: &mut Vec<EventKind>,
    ) {
        if acked.retried
            && let Some((_, log)) = leader
        {
            self.find_earlier_copies(acked, log, events);
        }
        let p = self.partitions.entry(acked.tp.clone()).or_default();
        let log = leader.map(|(_, log)| log);
        let isr = match &p.last_isr {
            Some(last) if **last == *isr => last.clone(),
            _ => Arc::from(isr),
        };
        p.last_isr = Some(isr.clone());
        let under =
            AckedUnder { acks: acked.acks, leader: acked.leader, leader_epoch: acked.leader_epoch, isr };
        if let Some(checked) = p.add(acked.base_offset, &acked.values, Some(under), log) {
            let producer = p.entries.back().map_or(0, |e| e.producer);
            let late = out_of_order(&mut p.order, producer, acked);
            if late > 0 {
                *self.reordered.entry(producer).or_default() += late;
                events.push(EventKind::AckedOutOfOrder { tp: acked.tp.clone(), producer, count: late });
            }
            let count = acked.values.len() as u64;
            if acked.acks == Acks::Zero {
                self.unacked += count;
            } else {
                self.acked += count;
            }
            if let Some((leader, _)) = leader {
                self.report(&acked.tp, leader, election, checked, events);
            }
        }
        if let (Some(log), Some(p)) = (log, self.partitions.get_mut(&acked.tp)) {
            p.retire(log);
        }
    }

    /// Records that consumer `consumer` read `values` at `base_offset..` of `tp`; `log` is the
    /// partition's deciding log, if it has a leader. Later checks count those of them the
    /// deciding log no longer holds as seen and erased (a consumer read them below the HW and
    /// an unclean election or a truncation erased them).
    pub fn on_seen(
        &mut self,
        consumer: u32,
        tp: &TopicPartition,
        base_offset: Offset,
        values: &Values,
        log: Option<&PartitionLog>,
    ) {
        let p = self.seen.entry((consumer, tp.clone())).or_default();
        let skipped = p.read_end.map_or(0, |end| (base_offset - end).max(0));
        p.read_end = Some(base_offset + Offset::from(values.count()));
        self.poll_skipped += skipped as u64;
        if let Some(checked) = p.add(base_offset, values, None, log) {
            p.lost += checked.newly.count;
        }
        if let Some(log) = log {
            p.retire(log);
        }
    }

    /// Records consumer `consumer` read that were erased afterwards, in all partitions.
    pub fn seen_erased(&self, consumer: u32) -> u64 {
        let deleted = self.deleted_seen_erased.get(&consumer).copied().unwrap_or(0);
        deleted
            + self
                .seen
                .range((consumer, TopicPartition::new("", 0))..)
                .take_while(|((c, _), _)| *c == consumer)
                .map(|(_, p)| p.lost)
                .sum::<u64>()
    }

    /// Offsets consumers jumped over: a read of a partition that began after the offset where
    /// the same consumer's previous read of it ended (Jepsen's "poll skip"). A consumer that
    /// reads again from an earlier offset (a rebalance, a reset) is not a skip. Counted per
    /// consumer, so it means a skip only for a consumer that reads its partitions alone (one
    /// member per group, or no group): two members taking turns on a partition skip what the
    /// other read.
    pub fn poll_skipped(&self) -> u64 {
        self.poll_skipped
    }

    /// Records any consumer read that were erased afterwards.
    pub fn seen_erased_total(&self) -> u64 {
        self.deleted_seen_erased.values().sum::<u64>() + self.seen.values().map(|p| p.lost).sum::<u64>()
    }

    /// Re-checks a partition against the log of its current leader after an election or a
    /// truncation. Records it no longer holds count as lost; records it holds again (a later
    /// election went back to a replica that had them) stop counting. `election` is the
    /// partition's latest leader change seen, to say how the leader came to lead without them.
    pub fn reconcile(
        &mut self,
        tp: &TopicPartition,
        leader: BrokerId,
        election: Option<Election>,
        log: &PartitionLog,
        events: &mut Vec<EventKind>,
    ) {
        for ((_, seen_tp), p) in self.seen.iter_mut() {
            if seen_tp == tp {
                let checked = recheck(p.entries.iter_mut(), log);
                p.lost = p.lost - checked.restored + checked.newly.count;
            }
        }
        let Some(p) = self.partitions.get_mut(tp) else { return };
        let checked = recheck(p.entries.iter_mut(), log);
        p.lost -= checked.restored;
        self.lost -= checked.restored;
        p.unacked_lost -= checked.restored_unacked;
        self.unacked_lost -= checked.restored_unacked;
        self.report(tp, leader, election, checked, events);
    }

    /// A batch retried without idempotence may already be in the log from its first attempt,
    /// which timed out or lost its answer but was appended: those copies are duplicates.
    fn find_earlier_copies(&mut self, acked: &AckedRecords, log: &PartitionLog, events: &mut Vec<EventKind>) {
        let Some((low, high)) = acked.values.bounds() else { return };
        let start = acked.base_offset - DUPLICATE_SCAN;
        let mut first: Option<(u64, Offset)> = None;
        let mut count = 0u64;
        let may_share = |b: &RecordBatch| b.values.bounds().is_some_and(|(l, h)| l <= high && h >= low);
        for b in log.batches_from(start).take_while(|b| b.base_offset < acked.base_offset) {
            if !may_share(&b) {
                continue;
            }
            let from = b.base_offset.max(start);
            for offset in from..b.next_offset().min(acked.base_offset) {
                if let Some(v) = b.value_at(offset).filter(|&v| acked.values.position(v).is_some()) {
                    first.get_or_insert((v, offset));
                    count += 1;
                }
            }
        }
        let Some((value, first_offset)) = first else { return };
        let index = acked.values.position(value).unwrap_or(0);
        self.duplicates += count;
        events.push(EventKind::DuplicateAcked {
            tp: acked.tp.clone(),
            value,
            first_offset,
            second_offset: acked.base_offset + index as Offset,
            count,
        });
    }

    /// Why the latest acknowledged records of `tp` were lost, while some still are.
    pub fn loss_cause(&self, tp: &TopicPartition) -> Option<&LossCause> {
        self.partitions.get(tp).filter(|p| p.lost > 0).and_then(|p| p.cause.as_ref())
    }

    /// Counts what a check found newly missing and says so: acknowledged records in an
    /// [`EventKind::AckedRecordsLost`], `acks=0` records in an [`EventKind::UnackedRecordsLost`].
    fn report(
        &mut self,
        tp: &TopicPartition,
        leader: BrokerId,
        election: Option<Election>,
        checked: Checked,
        events: &mut Vec<EventKind>,
    ) {
        if let Some((count, first, last, cause)) = checked.newly.cause(leader, election) {
            if let Some(p) = self.partitions.get_mut(tp) {
                p.lost += count;
                p.cause = Some(cause.clone());
            }
            self.lost += count;
            events.push(EventKind::AckedRecordsLost {
                tp: tp.clone(),
                count,
                first_offset: first,
                last_offset: last,
                leader,
                cause: Box::new(cause),
            });
        }
        if let Some((count, first, last, cause)) = checked.newly_unacked.cause(leader, election) {
            if let Some(p) = self.partitions.get_mut(tp) {
                p.unacked_lost += count;
            }
            self.unacked_lost += count;
            events.push(EventKind::UnackedRecordsLost {
                tp: tp.clone(),
                count,
                first_offset: first,
                last_offset: last,
                leader,
                cause: Box::new(cause),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Acks;
    use crate::sim::protocol::Batch;
    use crate::sim::protocol::Values;

    fn log_of(values: &[u64], epoch: i32) -> PartitionLog {
        let mut log = PartitionLog::new();
        for &v in values {
            let batch = Batch {
                producer_id: -1,
                base_sequence: -1,
                values: Values::range(v, 1),
                record_size: 1,
                max_timestamp: 0,
            };
            log.append_as_leader(&batch, epoch).unwrap();
        }
        log
    }

    fn acked(base: Offset, values: &[u64]) -> AckedRecords {
        AckedRecords {
            tp: TopicPartition::new("t", 0),
            base_offset: base,
            leader_epoch: 0,
            leader: 1,
            values: Values::from_slice(values),
            acks: Acks::One,
            retried: false,
        }
    }

    /// A deleted topic's records are not lost: a topic created again under the name (a new
    /// topic id, KIP-516) is checked on its own, while a loss from before the deletion stays.
    #[test]
    fn a_deleted_topic_is_forgotten_and_its_old_losses_stay_counted() {
        let tp = TopicPartition::new("t", 0);
        let mut ledger = Ledger::new();
        let mut events = Vec::new();
        let old = log_of(&[0, 1, 2, 3, 4, 5, 6], 0);
        ledger.on_acked(&acked(0, &[0, 1, 2, 3, 4, 5, 6]), &[1], Some((1, &old)), None, &mut events);
        ledger.reconcile(&tp, 2, None, &log_of(&[0, 1, 2, 3, 4], 0), &mut events);
        assert_eq!((ledger.lost(), ledger.lost_by(0)), (2, 2));
        ledger.forget_topic("t");
        let recreated = log_of(&[900], 0);
        ledger.reconcile(&tp, 2, None, &recreated, &mut events);
        assert_eq!((ledger.lost(), ledger.lost_by(0), ledger.lost_in(&tp)), (2, 2, 0), "nothing new lost");
        ledger.on_acked(&acked(0, &[900]), &[2], Some((2, &recreated)), None, &mut events);
        ledger.reconcile(&tp, 2, None, &recreated, &mut events);
        assert_eq!(ledger.lost(), 2);
    }

    /// S3: offsets 5, 6 acked with acks=1 on broker 1; broker 2 leads without them.
    #[test]
    fn acks_one_loss_is_counted_when_the_new_leader_lacks_the_records() {
        let mut ledger = Ledger::new();
        let mut events = Vec::new();
        let old = log_of(&[0, 1, 2, 3, 4, 5, 6], 0);
        ledger.on_acked(&acked(5, &[5, 6]), &[1], Some((1, &old)), None, &mut events);
        assert_eq!(ledger.lost(), 0);
        let new_leader = log_of(&[0, 1, 2, 3, 4], 0);
        ledger.reconcile(&TopicPartition::new("t", 0), 2, None, &new_leader, &mut events);
        assert_eq!(ledger.lost(), 2);
        assert!(matches!(
            events.last(),
            Some(EventKind::AckedRecordsLost { count: 2, first_offset: 5, last_offset: 6, leader: 2, .. })
        ));
        // The same offsets filled with other records are still a loss.
        let overwritten = log_of(&[0, 1, 2, 3, 4, 50, 60], 1);
        ledger.reconcile(&TopicPartition::new("t", 0), 2, None, &overwritten, &mut events);
        assert_eq!(ledger.lost(), 2);
        // Leadership back on a replica that has them: not lost any more.
        ledger.reconcile(&TopicPartition::new("t", 0), 1, None, &old, &mut events);
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
        ledger.on_acked(&retry, &[1], Some((1, &log)), None, &mut events);
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
        ledger.on_acked(&acked(0, &[7]), &[1], None, None, &mut events);
        ledger.on_acked(&acked(0, &[7]), &[1], None, None, &mut events);
        assert_eq!((ledger.acked(), ledger.duplicates()), (1, 0));
    }

    fn batch_log(values: &[u64], epoch: i32) -> PartitionLog {
        let mut log = PartitionLog::new();
        log.append_as_leader(&batch_of(values), epoch).unwrap();
        log
    }

    /// One entry per acknowledged batch; a batch the deciding log holds at other offsets or
    /// with other payloads is lost record by record, and found again when it comes back.
    #[test]
    fn the_ledger_keeps_offset_ranges_and_counts_loss_exactly() {
        let mut ledger = Ledger::new();
        let mut events = Vec::new();
        let log = batch_log(&[10, 13, 16], 0);
        ledger.on_acked(&acked(0, &[10, 13, 16]), &[1], Some((1, &log)), None, &mut events);
        assert_eq!((ledger.entries(), ledger.acked(), ledger.lost()), (1, 3, 0));
        // A new leader holds the first record only.
        let mut shorter = batch_log(&[10], 0);
        shorter.append_as_leader(&batch_of(&[99, 98]), 1).unwrap();
        ledger.reconcile(&TopicPartition::new("t", 0), 2, None, &shorter, &mut events);
        assert_eq!(ledger.lost(), 2);
        assert!(matches!(
            events.last(),
            Some(EventKind::AckedRecordsLost { count: 2, first_offset: 1, last_offset: 2, .. })
        ));
        ledger.reconcile(&TopicPartition::new("t", 0), 1, None, &log, &mut events);
        assert_eq!(ledger.lost(), 0);
    }

    /// Records below the deciding log's start offset were deleted by retention after they
    /// were committed: not a loss, and the ledger stops watching them.
    #[test]
    fn records_below_the_log_start_are_retired_not_lost() {
        let mut ledger = Ledger::new();
        let mut events = Vec::new();
        let log = batch_log(&[1, 2, 3], 0);
        ledger.on_acked(&acked(0, &[1, 2, 3]), &[1], Some((1, &log)), None, &mut events);
        let mut retained = PartitionLog::new();
        retained.truncate_fully_and_start_at(3);
        ledger.on_acked(&acked(3, &[4]), &[1], Some((1, &retained)), None, &mut events);
        assert_eq!((ledger.lost(), ledger.acked()), (1, 4), "offset 3 is not in the log");
        assert_eq!(ledger.entries(), 1, "the batch at 0..3 is retired");
        assert!(events.iter().all(|e| !matches!(e, EventKind::AckedRecordsLost { first_offset: 0, .. })));
    }

    fn batch_of(values: &[u64]) -> Batch {
        Batch {
            producer_id: -1,
            base_sequence: -1,
            values: Values::from_slice(values),
            record_size: 100,
            max_timestamp: 0,
        }
    }

    /// Adjacent acknowledged batches whose payloads continue one run share one entry; a
    /// repeated acknowledgement inside it counts once; loss inside it is still exact.
    #[test]
    fn adjacent_batches_share_one_entry() {
        let mut ledger = Ledger::new();
        let mut events = Vec::new();
        let mut log = batch_log(&[0, 3, 6], 0);
        log.append_as_leader(&batch_of(&[9, 12]), 0).unwrap();
        log.append_as_leader(&batch_of(&[15]), 0).unwrap();
        ledger.on_acked(&acked(0, &[0, 3, 6]), &[1], Some((1, &log)), None, &mut events);
        ledger.on_acked(&acked(3, &[9, 12]), &[1], Some((1, &log)), None, &mut events);
        ledger.on_acked(&acked(5, &[15]), &[1], Some((1, &log)), None, &mut events);
        ledger.on_acked(&acked(3, &[9, 12]), &[1], Some((1, &log)), None, &mut events);
        assert_eq!((ledger.entries(), ledger.acked(), ledger.lost()), (1, 6, 0));
        let mut shorter = batch_log(&[0, 3, 6], 0);
        shorter.append_as_leader(&batch_of(&[9, 12]), 0).unwrap();
        shorter.append_as_leader(&batch_of(&[99]), 1).unwrap();
        ledger.reconcile(&TopicPartition::new("t", 0), 2, None, &shorter, &mut events);
        assert_eq!(ledger.lost(), 1);
        assert!(matches!(
            events.last(),
            Some(EventKind::AckedRecordsLost { count: 1, first_offset: 5, last_offset: 5, .. })
        ));
    }

    /// A batch of values 1, 2 acknowledged after values 3, 4 (offsets 2, 3 after 0, 1): two
    /// records out of order; another producer's records are tracked on their own.
    #[test]
    fn records_written_after_later_ones_count_as_reordered() {
        let mut ledger = Ledger::new();
        let mut events = Vec::new();
        ledger.on_acked(&acked(0, &[3, 4]), &[1], None, None, &mut events);
        ledger.on_acked(&acked(2, &[1, 2]), &[1], None, None, &mut events);
        ledger.on_acked(&acked(4, &[5]), &[1], None, None, &mut events);
        let other = VALUES_PER_PRODUCER;
        ledger.on_acked(&acked(5, &[other]), &[1], None, None, &mut events);
        assert_eq!((ledger.reordered(), ledger.reordered_by(0), ledger.reordered_by(1)), (2, 2, 0));
        assert!(matches!(&events[..], [EventKind::AckedOutOfOrder { producer: 0, count: 2, .. }]));
        assert!(events[0].to_string().starts_with("REORDERED in t-0: 2 record(s) of producer 0"));
    }

    /// Loss is also counted per producer: an acks=1 producer's records lost in an election
    /// leave another producer's count at 0.
    #[test]
    fn loss_is_counted_per_producer() {
        let mut ledger = Ledger::new();
        let mut events = Vec::new();
        let second = VALUES_PER_PRODUCER;
        let old = log_of(&[second, 0, second + 1, 1], 0);
        ledger.on_acked(&acked(0, &[second]), &[1], Some((1, &old)), None, &mut events);
        ledger.on_acked(&acked(1, &[0]), &[1], Some((1, &old)), None, &mut events);
        ledger.on_acked(&acked(2, &[second + 1]), &[1], Some((1, &old)), None, &mut events);
        ledger.on_acked(&acked(3, &[1]), &[1], Some((1, &old)), None, &mut events);
        let new_leader = log_of(&[second, 0, second + 1], 0);
        ledger.reconcile(&TopicPartition::new("t", 0), 2, None, &new_leader, &mut events);
        assert_eq!((ledger.lost(), ledger.lost_by(0), ledger.lost_by(1)), (1, 1, 0));
        ledger.reconcile(&TopicPartition::new("t", 0), 1, None, &old, &mut events);
        assert_eq!((ledger.lost(), ledger.lost_by(0)), (0, 0));
    }

    /// acks=0 records the leader appended are watched, but their loss is counted apart:
    /// `lost` (acked records lost) counts only acknowledged ones, and the event says "sent
    /// without acknowledgement".
    #[test]
    fn acks_zero_records_are_lost_apart_from_acknowledged_ones() {
        let tp = TopicPartition::new("t", 0);
        let mut ledger = Ledger::new();
        let mut events = Vec::new();
        let old = log_of(&[0, 1, 2, 3, 4, 5, 6], 0);
        ledger.on_acked(&acked(0, &[0, 1, 2, 3, 4]), &[1], Some((1, &old)), None, &mut events);
        let zero = AckedRecords { acks: Acks::Zero, ..acked(5, &[5, 6]) };
        ledger.on_acked(&zero, &[1], Some((1, &old)), None, &mut events);
        assert_eq!((ledger.acked(), ledger.unacked()), (5, 2));
        let new_leader = log_of(&[0, 1, 2, 3], 0);
        ledger.reconcile(&tp, 2, None, &new_leader, &mut events);
        assert_eq!((ledger.lost(), ledger.unacked_lost()), (1, 2));
        assert_eq!((ledger.lost_by(0), ledger.unacked_lost_by(0), ledger.lost_in(&tp)), (1, 2, 1));
        let texts: Vec<String> = events.iter().map(ToString::to_string).collect();
        assert!(
            matches!(
                events[..],
                [
                    EventKind::AckedRecordsLost { count: 1, .. },
                    EventKind::UnackedRecordsLost { count: 2, first_offset: 5, last_offset: 6, .. }
                ]
            ),
            "{texts:?}"
        );
        assert!(
            texts[1].starts_with("sent without acknowledgement (acks=0), lost: 2 record(s) in t-0"),
            "{}",
            texts[1]
        );
        assert!(texts[1].contains("appended them under acks=0") && !texts[1].contains("acknowledged them"));
        assert!(texts.iter().all(|t| !t.contains("ACKED") || t.starts_with("1 ACKED")), "{texts:?}");
        // Back on a replica that has them: neither count stays.
        ledger.reconcile(&tp, 1, None, &old, &mut events);
        assert_eq!((ledger.lost(), ledger.unacked_lost()), (0, 0));
        // A deleted topic keeps the two counts apart too.
        ledger.reconcile(&tp, 2, None, &new_leader, &mut events);
        ledger.forget_topic("t");
        assert_eq!((ledger.lost_by(0), ledger.unacked_lost_by(0)), (1, 2));
    }
}
