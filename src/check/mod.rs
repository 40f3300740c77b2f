//! `isrlab check`: randomized fault schedules over many seeds, each run held to the
//! invariants of replication ([`invariants`]), with the dangerous states reached counted
//! ([`coverage`]), failing seeds shrunk to a scenario file that `isrlab run` fails on
//! ([`shrink`]), seeds run in parallel on every core ([`parallel`]), and the safety matrix
//! as data ([`matrix`]).

pub mod cluster;
pub mod command;
pub mod coverage;
pub mod invariants;
pub mod matrix;
pub mod parallel;
pub mod run;
pub mod schedule;
pub mod shrink;
pub mod summary;
#[cfg(test)]
mod tests;

use crate::sim::Ms;
use crate::sim::spec::ClusterSpec;
use cluster::{Base, BaseError};
use invariants::{Invariant, Violation};
use run::Outcome;
use schedule::{Fault, FaultKind, Space};

/// Most faults one schedule holds.
pub const MAX_FAULTS: usize = 8;

/// What `isrlab check` runs: a cluster, how long faults go on, and which kinds.
#[derive(Clone, Debug)]
pub struct Check {
    /// The cluster, as scenario TOML.
    pub base: Base,
    /// The cluster (seed 0; each run sets its own).
    pub spec: ClusterSpec,
    /// What schedules draw from.
    pub space: Space,
    /// How long each run goes on after the heal (sim ms, [`run::SETTLE`] by default).
    pub settle: Ms,
    /// Why the configuration is not safe for acknowledged records in Kafka's terms, if it
    /// is not (see [`invariants::unsafe_because`]).
    pub unsafe_because: Option<String>,
}

/// One seed's run: its schedule and what it found.
#[derive(Clone, Debug)]
pub struct SeedRun {
    /// The seed (of the schedule and of the cluster's own randomness).
    pub seed: u64,
    /// Its faults.
    pub faults: Vec<Fault>,
    /// What the run found (its timeline kept only when a promised invariant broke).
    pub outcome: Outcome,
}

impl Check {
    /// A check of `base` with faults for `duration` (sim ms) drawn from `kinds`. Errors: the
    /// cluster does not load, or `kinds` is empty.
    pub fn new(base: Base, duration: Ms, kinds: Vec<FaultKind>) -> Result<Check, BaseError> {
        if kinds.is_empty() {
            return Err(BaseError::Invalid("--faults names no fault kind".into()));
        }
        let spec = base.scenario(0, duration + run::SETTLE)?.spec;
        let space = Space { brokers: spec.brokers.clone(), duration, kinds, max_faults: MAX_FAULTS };
        let unsafe_because = invariants::unsafe_because(&spec, &space.kinds);
        Ok(Check { base, spec, space, unsafe_because, settle: run::SETTLE })
    }

    /// Whether this configuration promises `invariant`: the structural ones always, the
    /// others (no loss, no erased read, no duplicate, no skip) when it is safe.
    pub fn promises(&self, invariant: Invariant) -> bool {
        invariant.always() || self.unsafe_because.is_none()
    }

    /// The first promised invariant `outcome` broke.
    pub fn failure<'a>(&self, outcome: &'a Outcome) -> Option<&'a Violation> {
        outcome.violations.iter().find(|v| self.promises(v.invariant))
    }

    /// Runs `faults` on the cluster with `seed`, faults until `duration`.
    pub fn run_faults(&self, seed: u64, faults: &[Fault], duration: Ms) -> Outcome {
        let spec = ClusterSpec { seed, ..self.spec.clone() };
        run::run(&spec, &schedule::steps(faults), duration, self.settle)
    }

    /// Runs seed `seed`'s schedule.
    pub fn run_seed(&self, seed: u64) -> SeedRun {
        let faults = schedule::generate(&self.space, seed);
        let mut outcome = self.run_faults(seed, &faults, self.space.duration);
        if self.failure(&outcome).is_none() {
            outcome.applied = Vec::new();
        }
        SeedRun { seed, faults, outcome }
    }
}
