//! What `isrlab check` prints for a configuration: the seeds run, how many schedules broke
//! each invariant (and whether the configuration promises it), how often each dangerous state
//! was reached, and the failing seeds.

use super::coverage::Danger;
use super::invariants::Invariant;
use super::{Check, SeedRun};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The counts over many seeds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Seeds run.
    pub seeds: u64,
    /// Schedules that broke each invariant.
    pub broken: BTreeMap<Invariant, u64>,
    /// Runs that reached each dangerous state.
    pub reached: BTreeMap<Danger, u64>,
    /// Seeds that broke a promised invariant, ascending.
    pub failing: Vec<u64>,
    /// Records acknowledged, over all runs.
    pub acked: u64,
}

impl Summary {
    /// Adds up `runs` of `check`.
    pub fn of(check: &Check, runs: &[SeedRun]) -> Summary {
        let mut s = Summary { seeds: runs.len() as u64, ..Summary::default() };
        for r in runs {
            for v in &r.outcome.violations {
                *s.broken.entry(v.invariant).or_default() += 1;
            }
            for d in &r.outcome.reached.states {
                *s.reached.entry(*d).or_default() += 1;
            }
            if check.failure(&r.outcome).is_some() {
                s.failing.push(r.seed);
            }
            s.acked += r.outcome.acked;
        }
        s
    }

    /// Schedules that broke `invariant`.
    pub fn count(&self, invariant: Invariant) -> u64 {
        self.broken.get(&invariant).copied().unwrap_or(0)
    }

    /// The summary as text: one line per invariant and per dangerous state.
    pub fn render(&self, check: &Check, wall_secs: f64) -> String {
        let mut out = String::new();
        let rate = if wall_secs > 0.0 { self.seeds as f64 / wall_secs } else { 0.0 };
        let _ = writeln!(
            out,
            "{} seeds of {} s of faults (+{} s to heal and settle) in {wall_secs:.1} s ({rate:.1} seeds/s); {} records acknowledged",
            self.seeds,
            check.space.duration / 1000,
            check.settle / 1000,
            self.acked
        );
        match &check.unsafe_because {
            None => out.push_str("safe settings: every invariant is promised\n"),
            Some(why) => {
                let _ = writeln!(out, "not safe for acknowledged records in Kafka's terms: {why}");
                out.push_str("  (loss, erased reads, duplicates and skips are counted, not failures)\n");
            }
        }
        out.push_str("invariant                          schedules broken\n");
        for inv in Invariant::ALL {
            let n = self.count(inv);
            let promised = if check.promises(inv) { "" } else { "  (not promised)" };
            let mark = if n > 0 && check.promises(inv) { "✗" } else { "✓" };
            let _ = writeln!(out, "  {mark} {:<32} {n}{promised}", inv.name());
        }
        out.push_str("dangerous states reached (runs)\n");
        for d in Danger::ALL {
            let n = self.reached.get(&d).copied().unwrap_or(0);
            let note = match (n, d) {
                (0, Danger::ControllerFailoverDuringElection) => {
                    "  never reached: the cluster has one controller"
                }
                (0, _) => "  never reached",
                _ => "",
            };
            let _ = writeln!(out, "  {:<40} {n}{note}", d.name());
        }
        if self.failing.is_empty() {
            out.push_str("no seed broke a promised invariant\n");
        } else {
            let shown: Vec<String> = self.failing.iter().take(10).map(u64::to_string).collect();
            let more = if self.failing.len() > 10 {
                format!(" … ({} in all)", self.failing.len())
            } else {
                String::new()
            };
            let _ = writeln!(out, "failing seeds: {}{more}", shown.join(", "));
        }
        out
    }
}
