//! The event log: every event of the run, stamped with sim time, kept as a bounded recent
//! window for the screen, an undrained queue for headless output and a running hash of the
//! whole trace for the determinism check; and every command the sim applied, with its sim
//! time (the list a session file is made from), which the hash covers too.

use super::command::Command;
use crate::sim::events::{ClusterEvent, ElectionKind, EventKind};
use crate::sim::{Ms, SimTime, TopicPartition};
use std::collections::{BTreeMap, VecDeque};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;
use tracing::Level;

/// How many recent events snapshots carry.
pub const RECENT_EVENTS: usize = 300;

/// A command the sim applied, at sim time `at` (ms).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct AppliedCommand {
    /// When it was applied (ms).
    pub at: Ms,
    /// What was applied.
    pub command: Command,
}

impl std::fmt::Display for AppliedCommand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", crate::sim::format_time(self.at), self.command)
    }
}

/// The run's events and applied commands.
#[derive(Default)]
pub struct EventLog {
    recent: VecDeque<ClusterEvent>,
    recent_shared: Option<Arc<[ClusterEvent]>>,
    commands: Vec<AppliedCommand>,
    commands_shared: Option<Arc<[AppliedCommand]>>,
    undrained: Vec<ClusterEvent>,
    count: u64,
    hasher: DefaultHasher,
    isr_changes: BTreeMap<TopicPartition, IsrChanges>,
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
        | DuplicateAcked { .. }
        | ProduceFailing { .. }
        | RecordsExpired { .. }
        | ProducersStopped { .. } => Level::WARN,
        LeaderChanged { kind: ElectionKind::Unclean, .. } | LeaderChanged { new_leader: None, .. } => {
            Level::WARN
        }
        TopicCreated { .. }
        | BrokerRegistered { .. }
        | BrokerUnfenced { .. }
        | BrokerCrashed { .. }
        | ControlledShutdownStarted { .. }
        | BrokerStopped { .. }
        | LeaderChanged { .. }
        | IsrShrunk { .. }
        | IsrExpanded { .. }
        | Truncated { .. }
        | ProduceRecovered { .. }
        | ConfigChanged { .. }
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
    /// Appends an event at sim time `at` (µs: when the runtime published it) and logs it (see
    /// [`log_event`]).
    pub fn push(&mut self, at: SimTime, kind: EventKind) {
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
        self.undrained.push(event);
    }

    /// Records a command applied at sim time `at` (ms); it joins the trace hash.
    pub fn record_command(&mut self, at: Ms, command: Command) {
        let applied = AppliedCommand { at, command };
        format!("{applied:?}").hash(&mut self.hasher);
        self.commands.push(applied);
        self.commands_shared = None;
    }

    /// Every command applied so far, oldest first, shared (rebuilt only after a change).
    pub fn commands(&mut self) -> Arc<[AppliedCommand]> {
        self.commands_shared.get_or_insert_with(|| self.commands.iter().cloned().collect()).clone()
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

    /// Hash of the whole trace so far.
    pub fn trace_hash(&self) -> u64 {
        self.hasher.finish()
    }
}
