//! One run of `isrlab check`: a cluster, a schedule of faults, then the heal (every link
//! healed, every process thawed, fetchers resumed, disks fast again, and every broker
//! restarted) and a settling time, with the invariants watched throughout and checked at the
//! end.

use super::coverage::Reached;
use super::invariants::{Invariant, Monitor, Violation};
use super::schedule::Step;
use crate::cluster::command::Command;
use crate::cluster::handle::Sim;
use crate::sim::Ms;
use crate::sim::spec::ClusterSpec;

/// After the faults' phase, the run heals everything and restarts the brokers this long after
/// (past `broker.session.timeout.ms`, 9 s by default, so a crashed broker may register again).
pub const RESTART_AFTER: Ms = 10_000;
/// How long a run goes on after the heal by default (sim ms): the restarted brokers catch up
/// and rejoin the ISR (`replica.lag.time.max.ms` is 30 s).
pub const SETTLE: Ms = 40_000;

/// How often the cluster's state is looked at between commands (sim ms).
pub const LOOK_EVERY: Ms = 1_000;

/// What one run found.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// Every invariant that broke (promised or not), the first time each.
    pub violations: Vec<Violation>,
    /// The dangerous states it reached.
    pub reached: Reached,
    /// Acknowledged records lost at the end.
    pub acked_lost: u64,
    /// Records consumers read that were erased.
    pub seen_erased: u64,
    /// The commands the cluster accepted, at their instants (refused ones left out: they
    /// change nothing), the heal included: the run as a timeline.
    pub applied: Vec<Step>,
    /// Records producers got acknowledged.
    pub acked: u64,
}

impl Outcome {
    /// Whether `invariant` broke.
    pub fn broke(&self, invariant: Invariant) -> bool {
        self.violations.iter().any(|v| v.invariant == invariant)
    }
}

/// The commands of the heal at the end of the faults' phase, for brokers `brokers`.
fn heal(spec: &ClusterSpec, at: Ms) -> Vec<Step> {
    let mut lines = vec!["heal-all".to_string(), "thaw controller".to_string()];
    for b in &spec.brokers {
        lines.extend([format!("thaw {b}"), format!("resume-fetch {b}"), format!("slow-disk {b} 0")]);
    }
    let mut steps: Vec<Step> = lines.into_iter().map(|line| Step { at, line }).collect();
    steps.extend(spec.brokers.iter().map(|b| Step { at: at + RESTART_AFTER, line: format!("restart {b}") }));
    steps
}

/// Runs `spec` with `schedule` (faults starting before `duration`), heals at `duration` and
/// ends `settle` later. Commands the cluster refuses are part of the game (crashing a
/// broker that is down) and change nothing.
pub fn run(spec: &ClusterSpec, schedule: &[Step], duration: Ms, settle: Ms) -> Outcome {
    let mut out = Outcome::default();
    let mut sim = match Sim::new(spec.clone()) {
        Ok(sim) => sim,
        Err(e) => {
            out.violations.push(Violation { invariant: Invariant::IsrWithinReplicas, detail: e.to_string() });
            return out;
        }
    };
    let mut monitor = Monitor::new(spec);
    let mut steps: Vec<Step> = schedule.iter().filter(|s| s.at < duration).cloned().collect();
    steps.extend(heal(spec, duration));
    steps.sort_by_key(|s| s.at);
    let end = duration + settle.max(RESTART_AFTER);
    let mut next = 0;
    let mut look = LOOK_EVERY;
    while look <= end || next < steps.len() {
        let t = steps.get(next).map_or(look, |s| s.at.min(look));
        sim.advance_to(t);
        while let Some(step) = steps.get(next).filter(|s| s.at == t) {
            next += 1;
            let accepted = Command::parse(&step.line).is_ok_and(|c| sim.apply(&c).is_ok());
            if accepted {
                out.applied.push(step.clone());
            }
        }
        let events = sim.drain_events();
        monitor.on_events(&events);
        out.reached.on_events(&events);
        let snap = sim.snapshot();
        monitor.on_state(&snap);
        out.reached.on_state(&snap);
        if t == look {
            look += LOOK_EVERY;
        }
    }
    sim.advance_to(end);
    monitor.on_events(&sim.drain_events());
    finish(&sim, &mut monitor, &mut out);
    out.violations = monitor.violations;
    out
}

/// The end checks, on the settled cluster.
fn finish(sim: &Sim, monitor: &mut Monitor, out: &mut Outcome) {
    let snap = sim.snapshot();
    monitor.on_state(&snap);
    out.acked_lost = snap.acked_lost;
    out.seen_erased = snap.seen_erased;
    out.acked = snap.producers.iter().map(|p| p.acked).sum();
    if snap.acked_lost > 0 {
        let where_ = snap
            .partitions
            .iter()
            .filter(|p| p.acked_lost > 0)
            .map(|p| format!("{} ({})", p.tp, p.acked_lost))
            .collect::<Vec<_>>()
            .join(", ");
        monitor.broke(
            Invariant::LostWrite,
            format!("{} acknowledged record(s) lost: {where_}", snap.acked_lost),
        );
    }
    if snap.seen_erased > 0 {
        monitor.broke(
            Invariant::ReadErased,
            format!("consumers read {} record(s) erased since", snap.seen_erased),
        );
    }
    let skipped = sim.poll_skipped();
    if skipped > 0 {
        monitor.broke(Invariant::PollSkip, format!("consumers jumped over {skipped} offset(s)"));
    }
    for c in &snap.consumers {
        if let Some(lag) = c.lags.iter().find(|l| l.behind_hw.is_some_and(|b| b < 0)) {
            let detail = format!(
                "consumer {} is {} past the HW of {}",
                c.view.index,
                -lag.behind_hw.unwrap_or(0),
                lag.tp
            );
            monitor.broke(Invariant::ReadAboveHw, detail);
        }
    }
    if let Some(d) = sim.diverged_replicas().first() {
        let detail = format!(
            "{}: broker {} differs from leader {} at offset {}, below both HWs",
            d.tp, d.replica, d.leader, d.offset
        );
        monitor.broke(Invariant::LogDivergence, detail);
    }
}
