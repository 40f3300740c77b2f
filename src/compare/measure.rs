//! One run of a comparison, played headless, and what it counts. Every number comes from what
//! the simulation already keeps or says:
//!
//! - the producers' counters in the final snapshot: records acknowledged, records failed for
//!   good (the Java producer's `record-error-total`, `SenderMetricsRegistry`), error
//!   responses by Kafka error code;
//! - the audit ledger's counts in the final snapshot: acknowledged records lost, `acks=0`
//!   records lost, acknowledged records written twice, records consumers read that were
//!   erased afterwards ([`crate::sim::audit::Ledger`]);
//! - the events, timed to the microsecond ([`Tracker`]): how long each partition had no leader
//!   (Kafka's `OfflinePartitionsCount` over time, the KRaft controller's
//!   `ControllerMetadataMetrics` gauge), was led by a broker that had stopped
//!   (crashed, frozen, powered off or shut down) and was not fenced yet, so its metadata still
//!   named it leader and produces to it could not succeed, or had a leader with fewer in-sync
//!   replicas than its effective `min.insync.replicas` (`UnderMinIsrPartitionCount` over time,
//!   `ReplicaManager`'s gauge of the partitions whose `Partition.isUnderMinIsr` holds),
//!   summed over the partitions; and the records followers truncated on divergence
//!   (`Truncated`, R7.5; KIP-101, KIP-279). A leader that runs but is cut off by a network
//!   fault counts as led;
//! - the charts' per-second latency samples ([`crate::cluster::history`]): p50 and p99 of the
//!   records acknowledged in each sim second, as `kafka-producer-perf-test.sh` computes them
//!   ([`crate::sim::producer_latency`]). The run keeps no whole-run latency histogram, so the
//!   table's p50 is the median of those per-second p50s (each second weighted by its records)
//!   and its p99 the worst second's p99 ([`Latency`]).

use super::{Run, apply};
use crate::cluster::counts::counts;
use crate::cluster::handle::{Sim, SimError};
use crate::cluster::history::{History, SAMPLE_MS};
use crate::cluster::snapshot::{BrokerStatus, Snapshot};
use crate::config::ConfigError;
use crate::scenario::Scenario;
use crate::scenario::runner::Driven;
use crate::sim::events::{ClusterEvent, EventKind};
use crate::sim::producer_latency::LatencySummary;
use crate::sim::protocol::NodeId;
use crate::sim::{BrokerId, Ms, SimTime, TopicPartition, format_instant};
use std::collections::{BTreeMap, BTreeSet};

/// The charts keep 600 one-second samples; a run longer than that is read every
/// `HISTORY_READ_MS` of sim time so no second is missed.
const HISTORY_READ_MS: Ms = 300_000;

/// What one run counted, from its start to the scenario's end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Records acknowledged to the producers (`acks=1` or `all`).
    pub acknowledged: u64,
    /// Records that failed for good (delivery timeout, a non-retriable error, or abandoned by a
    /// producer restart): the Java producer's `record-error-total`.
    pub failed: u64,
    /// Records still waiting at the end, in the accumulator or in flight: not acknowledged
    /// yet, not failed yet (their latency is in no percentile).
    pub pending: u64,
    /// Error responses to produce requests, every Kafka error code together.
    pub error_responses: u64,
    /// The same by Kafka error code, all producers together.
    pub errors: BTreeMap<String, u64>,
    /// Partition-microseconds without a leader (`OfflinePartitionsCount` over time).
    pub offline_us: u64,
    /// Partition-microseconds whose leader (in the metadata) was a stopped broker: crashed,
    /// frozen, powered off or shut down, and not yet fenced by the controller.
    pub leader_down_us: u64,
    /// Partition-microseconds with a running leader but fewer in-sync replicas than the effective
    /// `min.insync.replicas` (`UnderMinIsrPartitionCount` over time): `acks=all` produces to
    /// them fail with `NOT_ENOUGH_REPLICAS`.
    pub under_min_isr_us: u64,
    /// Produce latency, `None` when no record was acknowledged.
    pub latency: Option<Latency>,
    /// Acknowledged records that no longer exist in the log that decides (audit ledger).
    pub acked_lost: u64,
    /// Records sent with `acks=0` that a leader appended and that are gone since.
    pub unacked_lost: u64,
    /// Acknowledged records that are in the log twice.
    pub duplicates: u64,
    /// Records followers removed from their logs on divergence (sum of `Truncated`).
    pub diverged: u64,
    /// Records consumers read that were erased afterwards; `None` in a run without consumers.
    pub seen_erased: Option<u64>,
    /// `[[at]]` commands the cluster refused that the file did not expect to be refused, as
    /// `at TIME `COMMAND` was refused: WHY`.
    pub refused: Vec<String>,
    /// The run's trace hash ([`Sim::trace_hash`]): equal runs give equal hashes.
    pub trace_hash: u64,
}

/// Produce latency over the run, from the per-second samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Latency {
    /// The median of the seconds' p50 (ms), each second weighted by the records acknowledged
    /// in it.
    pub p50_ms: Ms,
    /// The highest p99 of any second (ms).
    pub p99_ms: Ms,
}

/// Why a run could not be made.
#[derive(Debug, thiserror::Error)]
pub enum MeasureError {
    /// A run's setting does not apply to the scenario's cluster.
    #[error("{label}: {error}")]
    Setting {
        /// The run's heading.
        label: String,
        /// The registry's words.
        error: ConfigError,
    },
    /// The cluster of a run cannot start (e.g. a producer config Kafka refuses).
    #[error("{label}: the cluster cannot start: {error}")]
    Start {
        /// The run's heading.
        label: String,
        /// Why.
        error: SimError,
    },
}

/// Plays `scenario` headless with `run`'s settings over its own, from its seed and with its
/// `[[at]]` steps, to its end, and counts the [`Outcome`]. Expectations and questions are not
/// checked (they hold for the file's own settings); the run stops at their instants all the
/// same, as `isrlab run` does, so both step the sim alike. Errors: a setting that does not
/// apply, or a cluster that cannot start.
pub fn measure(scenario: &Scenario, run: &Run) -> Result<Outcome, MeasureError> {
    let mut spec = scenario.spec.clone();
    for s in &run.settings {
        apply(&mut spec, s).map_err(|error| MeasureError::Setting { label: run.label.clone(), error })?;
    }
    let mut sim = Sim::new(spec).map_err(|error| MeasureError::Start { label: run.label.clone(), error })?;
    let mut tracker = Tracker::default();
    let mut latency = Seconds::default();
    let mut refused = Vec::new();
    tracker.reconcile(&Driven::snapshot(&sim));
    let mut next = 0;
    for t in instants(scenario) {
        Driven::advance_to(&mut sim, t);
        tracker.observe_all(&Driven::drain_events(&mut sim));
        for action in scenario.timeline[next..].iter().take_while(|a| a.at == t) {
            next += 1;
            let Some(cmd) = &action.command else { continue };
            if let Err(e) = Driven::apply(&mut sim, cmd)
                && action.refused.is_none()
            {
                refused.push(format!("at {} `{cmd}` was refused: {e}", format_instant(t)));
            }
        }
        tracker.observe_all(&Driven::drain_events(&mut sim));
        let snap = Driven::snapshot(&sim);
        tracker.reconcile(&snap);
        latency.read(&snap.history);
    }
    let snap = Driven::snapshot(&sim);
    tracker.finish(snap.now_us);
    let counts = counts(&snap);
    Ok(Outcome {
        acknowledged: counts.acknowledged,
        failed: counts.failed,
        pending: counts.pending,
        error_responses: counts.error_responses,
        errors: counts.errors,
        offline_us: tracker.offline_us,
        leader_down_us: tracker.leader_down_us,
        under_min_isr_us: tracker.under_min_isr_us,
        latency: latency.summary(),
        acked_lost: counts.acked_lost,
        unacked_lost: counts.unacked_lost,
        duplicates: counts.duplicates,
        diverged: tracker.diverged,
        seen_erased: counts.seen_erased,
        refused,
        trace_hash: sim.trace_hash(),
    })
}

/// Every instant a run stops at, ascending, ending with the scenario's end: those of
/// `isrlab run` (steps, expectations, questions asked and answered), and in a run longer than
/// the charts keep, every [`HISTORY_READ_MS`].
pub fn instants(scenario: &Scenario) -> BTreeSet<SimTime> {
    let actions = scenario.timeline.iter().map(|a| a.at);
    let checks = scenario.expectations.iter().map(|e| e.at);
    let questions = scenario.questions.iter().flat_map(|q| [q.at, q.answer_at]);
    let end = scenario.end;
    let reads = (1..=end.as_ms() / HISTORY_READ_MS)
        .map(|i| SimTime::from_ms(i * HISTORY_READ_MS))
        .filter(|_| end.as_ms() > crate::cluster::history::CLUSTER_SAMPLES as Ms * SAMPLE_MS);
    actions.chain(checks).chain(questions).chain(reads).filter(|t| *t <= end).chain([end]).collect()
}

/// How a partition stands, as far as availability goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Standing {
    leader: Option<BrokerId>,
    isr: usize,
    /// Effective `min.insync.replicas`; 0 until a snapshot has shown it.
    min_isr: usize,
}

/// A partition's standing since an instant.
#[derive(Clone, Copy, Debug)]
struct Tracked {
    since: SimTime,
    standing: Standing,
}

/// Follows every partition's leader and ISR, and which brokers are stopped, through the
/// events (each at its microsecond) and sums the time each partition spent offline, led by a
/// stopped broker, or under min ISR; snapshots at the run's instants add new partitions, drop
/// deleted ones and bring the effective min ISR (which `set` commands change).
#[derive(Debug, Default)]
pub struct Tracker {
    partitions: BTreeMap<TopicPartition, Tracked>,
    /// Brokers whose process is not running (crashed, frozen, powered off, stopped).
    down: BTreeSet<BrokerId>,
    /// Partition-µs without a leader.
    pub offline_us: u64,
    /// Partition-µs led by a stopped broker.
    pub leader_down_us: u64,
    /// Partition-µs led with an ISR below the effective min ISR.
    pub under_min_isr_us: u64,
    /// Records removed by divergence truncations.
    pub diverged: u64,
}

impl Tracker {
    /// Takes in events, oldest first.
    pub fn observe_all(&mut self, events: &[ClusterEvent]) {
        events.iter().for_each(|e| self.observe(e));
    }

    /// Takes in one event.
    pub fn observe(&mut self, event: &ClusterEvent) {
        let at = event.at;
        match &event.kind {
            EventKind::LeaderChanged { tp, new_leader, isr, .. } => {
                self.change(tp, at, |s| Standing { leader: *new_leader, isr: isr.len(), ..s });
            }
            EventKind::IsrShrunk { tp, isr, .. } | EventKind::IsrExpanded { tp, isr, .. } => {
                self.change(tp, at, |s| Standing { isr: isr.len(), ..s });
            }
            EventKind::BrokerCrashed { broker }
            | EventKind::BrokerPowerLost { broker }
            | EventKind::BrokerStopped { broker }
            | EventKind::ProcessFrozen { node: NodeId::Broker(broker), .. } => self.broker(*broker, at, true),
            EventKind::BrokerStarted { broker }
            | EventKind::ProcessThawed { node: NodeId::Broker(broker), .. } => {
                self.broker(*broker, at, false)
            }
            EventKind::Truncated { from, to, .. } => self.diverged += from.saturating_sub(*to).unsigned_abs(),
            EventKind::TopicDeleted { topic } => {
                let gone: Vec<TopicPartition> =
                    self.partitions.keys().filter(|tp| &*tp.topic == topic.as_str()).cloned().collect();
                for tp in gone {
                    self.close(&tp, at);
                    self.partitions.remove(&tp);
                }
            }
            _ => {}
        }
    }

    /// Brings the partitions in line with `snap` at its instant: new ones start, deleted ones
    /// end, and a standing the events did not change (the effective min ISR) is taken over.
    pub fn reconcile(&mut self, snap: &Snapshot) {
        let at = snap.now_us;
        for b in &snap.brokers {
            let down = b.status != BrokerStatus::Up;
            if down != self.down.contains(&b.id) {
                self.broker(b.id, at, down);
            }
        }
        let present: BTreeSet<&TopicPartition> = snap.partitions.iter().map(|p| &p.tp).collect();
        let gone: Vec<TopicPartition> =
            self.partitions.keys().filter(|tp| !present.contains(tp)).cloned().collect();
        for tp in gone {
            self.close(&tp, at);
            self.partitions.remove(&tp);
        }
        for p in &snap.partitions {
            let standing = Standing { leader: p.leader, isr: p.isr.len(), min_isr: p.effective_min_isr };
            match self.partitions.get(&p.tp) {
                Some(t) if t.standing == standing => {}
                Some(_) => self.change(&p.tp, at, |_| standing),
                None => {
                    self.partitions.insert(p.tp.clone(), Tracked { since: at, standing });
                }
            }
        }
    }

    /// Broker `broker` stopped (`down`) or runs again at `at`: the partitions it leads change
    /// standing.
    fn broker(&mut self, broker: BrokerId, at: SimTime, down: bool) {
        let led: Vec<TopicPartition> = self
            .partitions
            .iter()
            .filter(|(_, t)| t.standing.leader == Some(broker))
            .map(|(tp, _)| tp.clone())
            .collect();
        led.iter().for_each(|tp| self.close(tp, at));
        if down {
            self.down.insert(broker);
        } else {
            self.down.remove(&broker);
        }
    }

    /// Counts every partition's time up to `end`.
    pub fn finish(&mut self, end: SimTime) {
        let tps: Vec<TopicPartition> = self.partitions.keys().cloned().collect();
        tps.iter().for_each(|tp| self.close(tp, end));
    }

    /// Counts `tp`'s time up to `at` under its standing, then gives it the new one.
    fn change(&mut self, tp: &TopicPartition, at: SimTime, to: impl FnOnce(Standing) -> Standing) {
        self.close(tp, at);
        let unknown = Standing { leader: None, isr: 0, min_isr: 0 };
        let tracked = self.partitions.entry(tp.clone()).or_insert(Tracked { since: at, standing: unknown });
        tracked.standing = to(tracked.standing);
    }

    /// Counts `tp`'s time from its `since` to `at`, and moves `since` to `at`.
    fn close(&mut self, tp: &TopicPartition, at: SimTime) {
        let Some(t) = self.partitions.get_mut(tp) else { return };
        let span = at.micros_since(t.since);
        t.since = t.since.max(at);
        match t.standing {
            Standing { leader: None, .. } => self.offline_us += span,
            Standing { leader: Some(b), .. } if self.down.contains(&b) => self.leader_down_us += span,
            Standing { isr, min_isr, .. } if isr < min_isr => self.under_min_isr_us += span,
            _ => {}
        }
    }
}

/// The per-second latency samples of every producer, read from the charts' history as the
/// run goes.
#[derive(Debug, Default)]
struct Seconds {
    /// The newest sample time read.
    read_until: Option<Ms>,
    samples: Vec<LatencySummary>,
}

impl Seconds {
    /// Takes the samples newer than those read before.
    fn read(&mut self, history: &History) {
        let Some(last) = history.last_at else { return };
        for ring in &history.producers {
            let n = ring.len() as u64;
            for (i, sample) in ring.iter().enumerate() {
                let at = last.saturating_sub((n - 1 - i as u64) * SAMPLE_MS);
                if self.read_until.is_none_or(|u| at > u) {
                    self.samples.extend(sample.latency);
                }
            }
        }
        self.read_until = Some(last);
    }

    /// The [`Latency`] of the samples read.
    fn summary(&self) -> Option<Latency> {
        let total: u64 = self.samples.iter().map(|s| s.records).sum();
        let p99_ms = self.samples.iter().map(|s| s.p99_ms).max()?;
        let mut by_p50: Vec<&LatencySummary> = self.samples.iter().collect();
        by_p50.sort_by_key(|s| s.p50_ms);
        let mut seen = 0;
        let median = by_p50.iter().find(|s| {
            seen += s.records;
            seen * 2 >= total
        });
        Some(Latency { p50_ms: median.map_or(0, |s| s.p50_ms), p99_ms })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::events::ElectionKind;

    fn tp() -> TopicPartition {
        TopicPartition::new("t", 0)
    }

    fn at(ms: Ms, kind: EventKind) -> ClusterEvent {
        ClusterEvent { at: SimTime::from_ms(ms), kind }
    }

    fn leader(ms: Ms, new_leader: Option<BrokerId>, isr: Vec<BrokerId>) -> ClusterEvent {
        let kind = ElectionKind::Clean;
        at(
            ms,
            EventKind::LeaderChanged { tp: tp(), old_leader: None, new_leader, leader_epoch: 1, isr, kind },
        )
    }

    /// Offline from 2 s to 5 s, then under min ISR 2 from 5 s to 9 s, then led by a crashed
    /// broker from 12 s to 15 s and offline from 15 s to 17 s.
    #[test]
    fn time_offline_and_under_min_isr_is_summed_from_the_events() {
        let mut t = Tracker::default();
        t.partitions.insert(
            tp(),
            Tracked { since: SimTime::ZERO, standing: Standing { leader: Some(1), isr: 2, min_isr: 2 } },
        );
        t.observe(&leader(2_000, None, vec![]));
        t.observe(&leader(5_000, Some(2), vec![2]));
        let expanded = EventKind::IsrExpanded { tp: tp(), added: 1, isr: vec![2, 1] };
        t.observe(&at(9_000, expanded));
        let truncated = EventKind::Truncated {
            broker: 1,
            tp: tp(),
            from: 10,
            to: 5,
            diverging_epoch: 0,
            leader_end_offset: 5,
        };
        t.observe(&at(9_500, truncated));
        // Broker 2 crashes at 12 s and is fenced at 15 s (its partition goes offline), then
        // restarts at 16 s and leads again at 17 s.
        t.observe(&at(12_000, EventKind::BrokerCrashed { broker: 2 }));
        t.observe(&leader(15_000, None, vec![]));
        t.observe(&at(16_000, EventKind::BrokerStarted { broker: 2 }));
        t.observe(&leader(17_000, Some(2), vec![2, 1]));
        t.finish(SimTime::from_ms(20_000));
        assert_eq!((t.offline_us, t.leader_down_us), (5_000_000, 3_000_000));
        assert_eq!((t.under_min_isr_us, t.diverged), (4_000_000, 5));
    }

    #[test]
    fn the_latency_p50_weighs_seconds_by_records_and_the_p99_is_the_worst() {
        let s = |records, p50_ms, p99_ms| LatencySummary { records, p50_ms, p99_ms };
        let seconds = Seconds { read_until: None, samples: vec![s(90, 3, 8), s(5, 400, 31_000), s(5, 2, 4)] };
        assert_eq!(seconds.summary(), Some(Latency { p50_ms: 3, p99_ms: 31_000 }));
        assert_eq!(Seconds::default().summary(), None);
    }
}
