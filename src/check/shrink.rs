//! Shrinking a failing schedule to a small one that still breaks the same invariant: fewer
//! faults, faults without their end, a shorter faults' phase, fewer brokers; then writing it
//! as a scenario file whose `[[expect]]` states the invariant, so `isrlab run FILE` fails on
//! it and `isrlab --scenario FILE` plays it in the dashboard.

use super::cluster::Base;
use super::invariants::Invariant;
use super::run::Outcome;
use super::schedule::Fault;
use super::{Check, SeedRun};
use crate::sim::Ms;
use std::fmt::Write as _;

/// A shrunk schedule: the check it runs under (perhaps with fewer brokers), its faults, how
/// long the faults' phase lasts, and what its run found.
#[derive(Clone, Debug)]
pub struct Shrunk {
    /// The check, with the cluster shrunk.
    pub check: Check,
    /// The seed.
    pub seed: u64,
    /// The faults kept.
    pub faults: Vec<Fault>,
    /// The faults' phase (sim ms).
    pub duration: Ms,
    /// The invariant it breaks.
    pub invariant: Invariant,
    /// The run of the shrunk schedule.
    pub outcome: Outcome,
    /// How many runs shrinking took.
    pub runs: u32,
}

/// Shrinks `run` of `check`, which broke `invariant`. Each step keeps a change only if the
/// run still breaks `invariant`; it stops when no step helps.
pub fn shrink(check: &Check, run: &SeedRun, invariant: Invariant) -> Shrunk {
    let outcome = check.run_faults(run.seed, &run.faults, check.space.duration);
    let mut best = Shrunk {
        check: check.clone(),
        seed: run.seed,
        faults: run.faults.clone(),
        duration: check.space.duration,
        invariant,
        outcome,
        runs: 1,
    };
    loop {
        let before = (
            best.faults.len(),
            best.faults.iter().filter(|f| f.end.is_some()).count(),
            best.duration,
            best.check.spec.brokers.len(),
        );
        drop_faults(&mut best);
        drop_ends(&mut best);
        shorten(&mut best);
        fewer_brokers(&mut best);
        let after = (
            best.faults.len(),
            best.faults.iter().filter(|f| f.end.is_some()).count(),
            best.duration,
            best.check.spec.brokers.len(),
        );
        if after == before {
            return best;
        }
    }
}

/// Tries `faults` for `duration` on `check`; keeps them in `best` when the invariant breaks.
fn attempt(best: &mut Shrunk, check: &Check, faults: Vec<Fault>, duration: Ms) -> bool {
    best.runs += 1;
    let outcome = check.run_faults(best.seed, &faults, duration);
    let kept = outcome.broke(best.invariant);
    if kept {
        best.check = check.clone();
        best.faults = faults;
        best.duration = duration;
        best.outcome = outcome;
    }
    kept
}

fn drop_faults(best: &mut Shrunk) {
    let mut i = 0;
    while i < best.faults.len() && best.faults.len() > 1 {
        let mut fewer = best.faults.clone();
        fewer.remove(i);
        let check = best.check.clone();
        if !attempt(best, &check, fewer, best.duration) {
            i += 1;
        }
    }
}

fn drop_ends(best: &mut Shrunk) {
    for i in 0..best.faults.len() {
        if best.faults[i].end.is_some() {
            let mut faults = best.faults.clone();
            faults[i].end = None;
            let check = best.check.clone();
            attempt(best, &check, faults, best.duration);
        }
    }
}

/// The faults' phase cut to a whole second after the last command, if that still fails.
fn shorten(best: &mut Shrunk) {
    let last = best.faults.iter().flat_map(Fault::steps).map(|s| s.at).max().unwrap_or(0);
    let shorter = (last / 1_000 + 1) * 1_000;
    if shorter < best.duration {
        let (check, faults) = (best.check.clone(), best.faults.clone());
        attempt(best, &check, faults, shorter);
    }
}

/// Drops brokers no fault names, highest id first, while the topics still fit.
fn fewer_brokers(best: &mut Shrunk) {
    let named = |b: i32, faults: &[Fault]| {
        faults.iter().flat_map(Fault::steps).any(|s| s.line.split(' ').skip(1).any(|w| w == b.to_string()))
    };
    let mut ids = best.check.spec.brokers.clone();
    ids.reverse();
    for b in ids {
        if named(b, &best.faults) || best.check.spec.brokers.len() <= 1 {
            continue;
        }
        let mut base: Base = best.check.base.clone();
        let left: Vec<toml::Value> = best
            .check
            .spec
            .brokers
            .iter()
            .filter(|&&x| x != b)
            .map(|&x| toml::Value::Integer(x.into()))
            .collect();
        let Some(cluster) = base.table.get_mut("cluster").and_then(toml::Value::as_table_mut) else { return };
        cluster.insert("brokers".into(), toml::Value::Array(left));
        if let Ok(check) = Check::new(base, best.check.space.duration, best.check.space.kinds.clone()) {
            let faults = best.faults.clone();
            attempt(best, &check, faults, best.duration);
        }
    }
}

/// The `[[expect]]` that states `invariant`, as TOML, when a scenario key can state it.
fn expectation(invariant: Invariant) -> Option<&'static str> {
    match invariant {
        Invariant::LostWrite | Invariant::LeaderCompleteness => Some("acked_lost = 0"),
        Invariant::ReadErased => Some("consumer = 0\nseen_erased = 0"),
        Invariant::IdempotentDuplicate => Some("duplicates = 0"),
        _ => None,
    }
}

/// The shrunk schedule as a scenario file: the cluster, the commands the run applied (heal
/// included), and the invariant as an `[[expect]]` at the end. `how` is the command line that
/// found it.
pub fn scenario_text(shrunk: &Shrunk, how: &str) -> String {
    let detail = shrunk
        .outcome
        .violations
        .iter()
        .find(|v| v.invariant == shrunk.invariant)
        .map_or(String::new(), |v| v.detail.clone());
    let mut extra = String::new();
    for step in &shrunk.outcome.applied {
        let _ = write!(extra, "\n[[at]]\ntime = \"{}ms\"\ndo = \"{}\"\n", step.at, step.line);
    }
    match expectation(shrunk.invariant) {
        Some(expect) => {
            let _ = write!(
                extra,
                "\n# The invariant, which this run breaks: {detail}\n[[expect]]\ntime = \"end\"\n{expect}\n"
            );
        }
        None => {
            let _ = write!(extra, "\n# No scenario key states this invariant; the run breaks it: {detail}\n");
        }
    }
    let head = format!(
        "# {}: found by `{how}`, shrunk in {} runs to {} fault(s).\n# {}\n",
        shrunk.invariant.name(),
        shrunk.runs,
        shrunk.faults.len(),
        shrunk
            .check
            .unsafe_because
            .as_deref()
            .map_or("Safe settings in Kafka's terms.".to_string(), |w| format!(
                "Not safe in Kafka's terms: {w}."
            )),
    );
    let mut base = shrunk.check.base.clone();
    base.table
        .insert("name".into(), format!("check: {} (seed {})", shrunk.invariant.name(), shrunk.seed).into());
    format!(
        "{head}{}",
        base.text(shrunk.seed, shrunk.duration + shrunk.check.settle.max(super::run::RESTART_AFTER), &extra)
    )
}
