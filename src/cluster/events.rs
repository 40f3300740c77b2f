//! The event log: every event of the run, stamped with sim time, kept as a bounded recent
//! window for the screen, an undrained queue for headless output and a running hash of the
//! whole trace for the determinism check; and every command the sim applied, with its sim
//! time (the list a session file is made from), which the hash covers too.

use super::command::Command;
use crate::kafka::errors::ErrorCode;
use crate::sim::events::{ClusterEvent, ElectionKind, EventKind};
use crate::sim::loss_cause::LossCause;
use crate::sim::{BrokerId, Offset, SimTime, TopicPartition};
use std::collections::{BTreeMap, VecDeque};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;
use tracing::Level;

/// How many recent events snapshots carry.
pub const RECENT_EVENTS: usize = 300;

/// A command the sim applied, at sim time `at` (ms).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct AppliedCommand {
    /// When it was applied, to the microsecond.
    pub at: SimTime,
    /// What was applied.
    pub command: Command,
}

impl std::fmt::Display for AppliedCommand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", crate::sim::format_instant(self.at), self.command)
    }
}

/// The run's events and applied commands.
#[derive(Clone, Default)]
pub struct EventLog {
    recent: VecDeque<ClusterEvent>,
    recent_shared: Option<Arc<[ClusterEvent]>>,
    commands: Vec<AppliedCommand>,
    commands_shared: Option<Arc<[AppliedCommand]>>,
    undrained: Vec<ClusterEvent>,
    /// Set for the live dashboard, which never drains: events go to the recent window only,
    /// so a long session does not keep every event it ever had.
    undrained_off: bool,
    count: u64,
    hasher: DefaultHasher,
    isr_changes: BTreeMap<TopicPartition, IsrChanges>,
    /// Open produce error runs by (producer, partition): their error code and the run-wide
    /// index of their line.
    open_runs: BTreeMap<(u32, TopicPartition), (ErrorCode, u64)>,
    /// Open runs of acknowledged-record loss by partition (and of `acks=0` records' loss,
    /// `true`, apart): the leader whose log lacks them and the run-wide index of their line.
    /// An election of the partition closes its runs.
    open_losses: BTreeMap<(TopicPartition, bool), (crate::sim::BrokerId, u64)>,
}

/// How serious an event is for the developer log: `warn` for faults (fencing, an unclean
/// election, a partition going offline, acknowledged records lost or duplicated, produce
/// failures, the memory guard), `info` for the cluster's life (elections, ISR changes,
/// crashes, restarts, shutdowns, truncation, topics and configs), `debug` for the rest.
pub fn level(kind: &EventKind) -> Level {
    use EventKind::*;
    match kind {
        BrokerFenced { .. }
        | AckedRecordsLost { .. }
        | UnackedRecordsLost { .. }
        | DuplicateAcked { .. }
        | AckedOutOfOrder { .. }
        | ProduceFailing { .. }
        | ProducersStopped { .. }
        | BrokerPowerLost { .. }
        | UnflushedTailLost { .. }
        | ConsumerTruncationDetected { .. }
        | ConsumerPartitionStopped { .. }
        | FetchTopicIdRefused { .. } => Level::WARN,
        LeaderChanged {
            kind: ElectionKind::Unclean | ElectionKind::UncleanRequested | ElectionKind::LastKnownLeader,
            ..
        }
        | LeaderChanged { new_leader: None, .. } => Level::WARN,
        TopicCreated { .. }
        | ReassignmentStarted { .. }
        | ReassignmentCompleted { .. }
        | ReassignmentCancelled { .. }
        | ReplicasReordered { .. }
        | ThrottlesCleared { .. }
        | PartitionsAdded { .. }
        | TopicDeleted { .. }
        | ReplicaDeleted { .. }
        | BrokerRegistered { .. }
        | BrokerUnfenced { .. }
        | BrokerCrashed { .. }
        | BrokerStarted { .. }
        | ProcessFrozen { .. }
        | ProcessThawed { .. }
        | ControlledShutdownStarted { .. }
        | BrokerStopped { .. }
        | LeaderChanged { .. }
        | IsrShrunk { .. }
        | IsrExpanded { .. }
        | Truncated { .. }
        | ProduceRecovered { .. }
        | ProducerRestarted { .. }
        | ConfigChanged { .. }
        | ConsumerOffsetReset { .. }
        | ConsumerTopicGone { .. }
        | NetworkChanged { .. } => Level::INFO,
        _ => Level::DEBUG,
    }
}

/// Writes an event to the developer log (tracing) at its [`level`], with its sim time `t` (whole
/// ms, as every other line of that log) and its text. Nothing is formatted when that level is
/// off.
pub fn log_event(at: SimTime, kind: &EventKind) {
    let t = at.as_ms();
    match level(kind) {
        Level::ERROR => tracing::error!(t, "{kind}"),
        Level::WARN => tracing::warn!(t, "{kind}"),
        Level::INFO => tracing::info!(t, "{kind}"),
        Level::DEBUG => tracing::debug!(t, "{kind}"),
        _ => tracing::trace!(t, "{kind}"),
    }
}

/// Where the event with run-wide index `index` sits in a window holding the last `len` of
/// `count` events, if it does.
fn window_slot(count: u64, len: usize, index: u64) -> Option<usize> {
    let first = count.checked_sub(len as u64)?;
    (first..count).contains(&index).then(|| (index - first) as usize)
}

/// A loss event's parts: whether its records were sent with `acks=0`, the partition, the
/// count, the offsets, the deciding leader and the cause.
type LossParts<'a> = (bool, &'a TopicPartition, u64, Offset, Offset, BrokerId, &'a LossCause);

fn loss_parts(kind: &EventKind) -> Option<LossParts<'_>> {
    match kind {
        EventKind::AckedRecordsLost { tp, count, first_offset, last_offset, leader, cause } => {
            Some((false, tp, *count, *first_offset, *last_offset, *leader, cause))
        }
        EventKind::UnackedRecordsLost { tp, count, first_offset, last_offset, leader, cause } => {
            Some((true, tp, *count, *first_offset, *last_offset, *leader, cause))
        }
        _ => None,
    }
}

/// One loss line for two losses of the same kind (acknowledged, or `acks=0`), partition and
/// leader: the counts added, the offsets spanning both. `None` when they are not such losses.
fn merge_losses(line: &EventKind, more: &EventKind) -> Option<EventKind> {
    let (unacked, tp, count, first_offset, last_offset, leader, cause) = loss_parts(line)?;
    let (unacked2, tp2, c2, f2, l2, ld2, cause2) = loss_parts(more)?;
    if unacked != unacked2 || tp != tp2 || leader != ld2 {
        return None;
    }
    let (tp, count, leader) = (tp.clone(), count + c2, leader);
    let (first_offset, last_offset) = (first_offset.min(f2), last_offset.max(l2));
    // The lower offsets' cause: the line says why its first records went.
    let cause = Box::new(if f2 < first_offset { cause2.clone() } else { cause.clone() });
    Some(if unacked {
        EventKind::UnackedRecordsLost { tp, count, first_offset, last_offset, leader, cause }
    } else {
        EventKind::AckedRecordsLost { tp, count, first_offset, last_offset, leader, cause }
    })
}

/// How often a partition's ISR changed so far, counted from its `IsrShrunk` and `IsrExpanded`
/// events (Kafka's `IsrShrinksPerSec` / `IsrExpandsPerSec` meters, as totals).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct IsrChanges {
    /// `IsrShrunk` events (one per committed shrink, whoever made it).
    pub shrinks: u64,
    /// `IsrExpanded` events (one per replica that joined).
    pub expands: u64,
}

impl EventLog {
    /// Appends an event at sim time `at` (µs: when the runtime
    /// published it) and logs it (see [`log_event`]). A
    /// [`EventKind::ProduceFailing`] that continues an open error run (same producer,
    /// partition and error code) replaces that run's line instead, so a run is one line with a
    /// running count; it keeps the time the run began. Once the line has left the recent
    /// window, the next one starts a new line. Likewise an [`EventKind::AckedRecordsLost`]
    /// of a partition whose last election already lost records on the same leader adds its
    /// count to that line (see [`EventLog::continue_loss`]).
    pub fn push(&mut self, at: SimTime, kind: EventKind) {
        if self.continue_run(at, &kind) || self.continue_loss(at, &kind) {
            return;
        }
        log_event(at, &kind);
        match &kind {
            EventKind::IsrShrunk { tp, .. } => self.isr_changes.entry(tp.clone()).or_default().shrinks += 1,
            EventKind::IsrExpanded { tp, .. } => self.isr_changes.entry(tp.clone()).or_default().expands += 1,
            _ => {}
        }
        let event = ClusterEvent { at, kind };
        // DefaultHasher::new() has fixed keys: the same trace always gives the same hash.
        format!("{event:?}").hash(&mut self.hasher);
        self.count += 1;
        if self.recent.len() == RECENT_EVENTS {
            self.recent.pop_front();
        }
        self.recent.push_back(event.clone());
        self.recent_shared = None;
        if !self.undrained_off {
            self.undrained.push(event);
        }
    }

    /// Updates the open error run `kind` continues, if any; returns whether it did.
    fn continue_run(&mut self, at: SimTime, kind: &EventKind) -> bool {
        let key = match kind {
            EventKind::ProduceFailing { producer, tp, failure, .. } => (*producer, tp.clone(), failure.error),
            EventKind::ProduceRecovered { producer, tp, .. } => {
                self.open_runs.remove(&(*producer, tp.clone()));
                return false;
            }
            _ => return false,
        };
        let (producer, tp, error) = key;
        let open = self.open_runs.get(&(producer, tp.clone())).copied();
        let updated = open.is_some_and(|(e, index)| e == error && self.replace(index, kind));
        if updated {
            tracing::debug!(t = at.as_ms(), "{kind}");
            format!("{at} {kind:?}").hash(&mut self.hasher);
        } else {
            self.open_runs.insert((producer, tp), (error, self.count));
        }
        updated
    }

    /// Adds a loss to the open loss line of its partition, if the same leader lacks them and
    /// that line is still in the recent window and not yet drained (headless output printed a
    /// drained line already, so the next loss gets a line of its own and every printed count
    /// stays true). One election that lost acknowledged records then reads as one line with
    /// the total count and the offset range, however many acknowledgements raced it. An
    /// election of the partition closes the run. Returns whether it merged `kind`.
    fn continue_loss(&mut self, at: SimTime, kind: &EventKind) -> bool {
        if let EventKind::LeaderChanged { tp, .. } = kind {
            self.open_losses.remove(&(tp.clone(), false));
            self.open_losses.remove(&(tp.clone(), true));
            return false;
        }
        let Some((unacked, tp, _, _, _, leader, _)) = loss_parts(kind) else { return false };
        let key = (tp.clone(), unacked);
        let open = self.open_losses.get(&key).copied().filter(|(l, _)| *l == leader);
        let merged = open.and_then(|(_, index)| {
            let line = match self.undrained_off {
                false => &self.undrained[window_slot(self.count, self.undrained.len(), index)?],
                true => &self.recent[window_slot(self.count, self.recent.len(), index)?],
            };
            let merged = merge_losses(&line.kind, kind)?;
            self.replace(index, &merged).then_some(merged)
        });
        match merged {
            Some(merged) => {
                log_event(at, kind);
                format!("{at} {merged:?}").hash(&mut self.hasher);
                true
            }
            None => {
                self.open_losses.insert(key, (leader, self.count));
                false
            }
        }
    }

    /// Replaces the kind of the event with run-wide index `index` in the recent window and,
    /// if not drained yet, in the undrained queue. Returns `false` when it left the window.
    fn replace(&mut self, index: u64, kind: &EventKind) -> bool {
        let Some(slot) = window_slot(self.count, self.recent.len(), index) else { return false };
        self.recent[slot].kind = kind.clone();
        self.recent_shared = None;
        if let Some(slot) = window_slot(self.count, self.undrained.len(), index) {
            self.undrained[slot].kind = kind.clone();
        }
        true
    }

    /// Records a command applied at sim time `at` (ms); it joins the trace hash.
    pub fn record_command(&mut self, at: SimTime, command: Command) {
        let applied = AppliedCommand { at, command };
        format!("{applied:?}").hash(&mut self.hasher);
        self.commands.push(applied);
        self.commands_shared = None;
    }

    /// Every command applied so far, oldest first, shared (rebuilt only after a change).
    pub fn commands(&mut self) -> Arc<[AppliedCommand]> {
        self.commands_shared.get_or_insert_with(|| self.commands.iter().cloned().collect()).clone()
    }

    /// Stops keeping events for [`EventLog::drain`], for a run nobody drains (the live
    /// dashboard reads the recent window only). Loss lines still merge within that window.
    pub fn stop_undrained(&mut self) {
        self.undrained_off = true;
        self.undrained = Vec::new();
    }

    /// Events since the previous drain.
    pub fn drain(&mut self) -> Vec<ClusterEvent> {
        std::mem::take(&mut self.undrained)
    }

    /// The recent window, shared (rebuilt only after a change).
    pub fn recent(&mut self) -> Arc<[ClusterEvent]> {
        self.recent_shared.get_or_insert_with(|| self.recent.iter().cloned().collect()).clone()
    }

    /// Events so far.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// ISR changes of `tp` so far (zero for a partition without any).
    pub fn isr_changes(&self, tp: &TopicPartition) -> IsrChanges {
        self.isr_changes.get(tp).copied().unwrap_or_default()
    }

    /// ISR changes per partition so far, in (topic, partition) order (partitions with some).
    pub fn isr_changes_by_partition(&self) -> impl Iterator<Item = (&TopicPartition, IsrChanges)> {
        self.isr_changes.iter().map(|(tp, c)| (tp, *c))
    }

    /// Hash of the whole trace so far.
    pub fn trace_hash(&self) -> u64 {
        self.hasher.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::events::ProduceFailure;

    fn failing(producer: u32, partition: u32, error: ErrorCode, errors: u64) -> EventKind {
        EventKind::ProduceFailing {
            producer,
            tp: TopicPartition::new("t", partition),
            failure: ProduceFailure { error, detail: String::new() },
            errors,
            records_failed: 0,
        }
    }

    fn recovered(partition: u32) -> EventKind {
        let tp = TopicPartition::new("t", partition);
        EventKind::ProduceRecovered { producer: 0, tp, errors: vec![(ErrorCode::NotEnoughReplicas, 3)] }
    }

    fn kinds(events: &[ClusterEvent]) -> Vec<EventKind> {
        events.iter().map(|e| e.kind.clone()).collect()
    }

    #[test]
    fn an_error_run_is_one_line_with_a_running_count() {
        use ErrorCode::*;
        let mut log = EventLog::default();
        log.push(SimTime::from_ms(10), failing(0, 0, NotEnoughReplicas, 1));
        log.push(SimTime::from_ms(20), failing(0, 1, NotEnoughReplicas, 1));
        log.push(SimTime::from_ms(30), failing(0, 0, NotEnoughReplicas, 2));
        log.push(SimTime::from_ms(40), failing(1, 0, NotEnoughReplicas, 1));
        log.push(SimTime::from_ms(50), failing(0, 0, NotEnoughReplicas, 3));
        let recent = log.recent();
        assert_eq!(
            kinds(&recent),
            vec![
                failing(0, 0, NotEnoughReplicas, 3),
                failing(0, 1, NotEnoughReplicas, 1),
                failing(1, 0, NotEnoughReplicas, 1)
            ],
            "one line per producer and partition, updated in place"
        );
        assert_eq!((recent[0].at.as_ms(), log.count()), (10, 3), "the line keeps the time the run began");
        assert_eq!(kinds(&log.drain()), kinds(&recent));
        // Drained lines are not printed again; the next error of the run updates the screen only.
        log.push(SimTime::from_ms(60), failing(0, 0, NotEnoughReplicas, 4));
        assert!(log.drain().is_empty());
        assert_eq!(log.recent()[0].kind, failing(0, 0, NotEnoughReplicas, 4));
        // Another error code starts a new line; so does the next run after a success.
        log.push(SimTime::from_ms(70), failing(0, 0, NetworkException, 1));
        log.push(SimTime::from_ms(80), recovered(0));
        log.push(SimTime::from_ms(90), failing(0, 0, NetworkException, 1));
        log.push(SimTime::from_ms(95), failing(0, 0, NetworkException, 2));
        assert_eq!(
            kinds(&log.drain()),
            vec![failing(0, 0, NetworkException, 1), recovered(0), failing(0, 0, NetworkException, 2)]
        );
        assert_eq!(log.count(), 6);
    }

    #[test]
    fn a_run_whose_line_left_the_window_starts_a_new_line() {
        let mut log = EventLog::default();
        log.push(SimTime::from_ms(0), failing(0, 0, ErrorCode::NotEnoughReplicas, 1));
        for i in 0..RECENT_EVENTS as u32 {
            log.push(SimTime::from_ms(1), failing(1, i, ErrorCode::NotEnoughReplicas, 1));
        }
        log.push(SimTime::from_ms(2), failing(0, 0, ErrorCode::NotEnoughReplicas, 2));
        assert_eq!(log.count(), RECENT_EVENTS as u64 + 2);
        assert_eq!(log.recent().last().unwrap().kind, failing(0, 0, ErrorCode::NotEnoughReplicas, 2));
    }

    #[test]
    fn updates_join_the_trace_hash() {
        let run = |errors: u64| {
            let mut log = EventLog::default();
            log.push(SimTime::from_ms(0), failing(0, 0, ErrorCode::NotEnoughReplicas, 1));
            log.push(SimTime::from_ms(5), failing(0, 0, ErrorCode::NotEnoughReplicas, errors));
            log.trace_hash()
        };
        assert_ne!(run(2), run(3));
    }

    fn lost(partition: u32, leader: crate::sim::BrokerId, first: i64, last: i64) -> EventKind {
        let tp = TopicPartition::new("t", partition);
        EventKind::AckedRecordsLost {
            tp,
            count: (last - first + 1) as u64,
            first_offset: first,
            last_offset: last,
            leader,
            cause: Box::new(crate::sim::loss_cause::LossCause {
                acked: crate::sim::loss_cause::AckedUnder {
                    acks: crate::sim::Acks::One,
                    leader: 1,
                    leader_epoch: 0,
                    isr: std::sync::Arc::from([1]),
                },
                also: Vec::new(),
                deciding: leader,
                election: None,
            }),
        }
    }

    fn elected(partition: u32) -> EventKind {
        EventKind::LeaderChanged {
            tp: TopicPartition::new("t", partition),
            old_leader: Some(1),
            new_leader: Some(2),
            leader_epoch: 3,
            isr: vec![2],
            kind: ElectionKind::Unclean,
        }
    }

    #[test]
    fn the_losses_of_one_election_are_one_line_with_their_count() {
        let mut log = EventLog::default();
        log.push(SimTime::from_ms(10), elected(0));
        log.push(SimTime::from_ms(11), lost(0, 2, 5, 6));
        log.push(SimTime::from_ms(12), lost(1, 2, 0, 0));
        log.push(SimTime::from_ms(13), lost(0, 2, 7, 7));
        log.push(SimTime::from_ms(14), lost(0, 2, 8, 9));
        assert_eq!(kinds(&log.recent()), vec![elected(0), lost(0, 2, 5, 9), lost(1, 2, 0, 0)]);
        assert_eq!(log.count(), 3);
        // Another election, or another leader lacking them, starts a new line.
        log.push(SimTime::from_ms(20), elected(0));
        log.push(SimTime::from_ms(21), lost(0, 2, 10, 10));
        log.push(SimTime::from_ms(22), lost(0, 1, 11, 11));
        assert_eq!(log.count(), 6);
        // A drained line is never changed afterwards: headless output printed its count.
        let printed = kinds(&log.drain());
        log.push(SimTime::from_ms(23), lost(0, 1, 12, 12));
        assert_eq!(printed.last(), Some(&lost(0, 1, 11, 11)));
        assert_eq!(kinds(&log.drain()), vec![lost(0, 1, 12, 12)]);
        let total: u64 = kinds(&log.recent())
            .iter()
            .map(|k| if let EventKind::AckedRecordsLost { count, .. } = k { *count } else { 0 })
            .sum();
        assert_eq!(total, 5 + 1 + 1 + 1 + 1, "every lost record is counted once");
    }

    fn unacked(partition: u32, leader: crate::sim::BrokerId, first: i64, last: i64) -> EventKind {
        let EventKind::AckedRecordsLost { tp, count, first_offset, last_offset, leader, mut cause } =
            lost(partition, leader, first, last)
        else {
            unreachable!()
        };
        cause.acked.acks = crate::sim::Acks::Zero;
        EventKind::UnackedRecordsLost { tp, count, first_offset, last_offset, leader, cause }
    }

    /// acks=0 records lost in one election read as one line of their own, apart from the
    /// acknowledged records lost with them.
    #[test]
    fn unacknowledged_losses_merge_apart_from_acknowledged_ones() {
        let mut log = EventLog::default();
        log.push(SimTime::from_ms(10), elected(0));
        log.push(SimTime::from_ms(11), lost(0, 2, 5, 6));
        log.push(SimTime::from_ms(12), unacked(0, 2, 7, 7));
        log.push(SimTime::from_ms(13), lost(0, 2, 8, 8));
        log.push(SimTime::from_ms(14), unacked(0, 2, 9, 10));
        let counted = |mut k: EventKind, n: u64| {
            if let EventKind::AckedRecordsLost { count, .. } | EventKind::UnackedRecordsLost { count, .. } =
                &mut k
            {
                *count = n;
            }
            k
        };
        let want = vec![elected(0), counted(lost(0, 2, 5, 8), 3), counted(unacked(0, 2, 7, 10), 3)];
        assert_eq!(kinds(&log.recent()), want);
        log.push(SimTime::from_ms(20), elected(0));
        log.push(SimTime::from_ms(21), unacked(0, 2, 11, 11));
        assert_eq!(log.count(), 5, "an election starts new lines");
    }

    #[test]
    fn a_log_nobody_drains_keeps_no_queue_and_still_merges_losses() {
        let mut log = EventLog::default();
        log.stop_undrained();
        log.push(SimTime::from_ms(10), elected(0));
        log.push(SimTime::from_ms(11), lost(0, 2, 5, 6));
        log.push(SimTime::from_ms(13), lost(0, 2, 7, 7));
        assert!(log.undrained.is_empty(), "the live dashboard never drains");
        assert_eq!(kinds(&log.recent()), vec![elected(0), lost(0, 2, 5, 7)]);
        assert!(log.drain().is_empty());
    }
}
