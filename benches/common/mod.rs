//! Set-ups the benchmarks share.

#![allow(dead_code)]

use isrlab::cluster::command::Command;
use isrlab::cluster::handle::Sim;
use isrlab::cluster::spec::ClusterSpec;

/// Brokers of the large cluster.
pub const LARGE_BROKERS: i32 = 50;
/// Partitions of the large cluster's one topic.
pub const LARGE_PARTITIONS: u32 = 5_000;
/// Sim time (ms) the large cluster runs before it is measured: registration, elections,
/// fetchers started.
pub const LARGE_START_MS: u64 = 30_000;

/// Applies a palette command, panicking with it on error.
pub fn run(sim: &mut Sim, command: &str) {
    let cmd = Command::parse(command).unwrap_or_else(|e| panic!("{command}: {e:?}"));
    sim.apply(&cmd).unwrap_or_else(|e| panic!("{command}: {e}"));
}

/// The default cluster (seed 1) with its producer at `rate` records/s, at t=0.
pub fn default_at(rate: u64) -> Sim {
    let mut sim = Sim::new(ClusterSpec::default_run(1)).expect("the default cluster starts");
    run(&mut sim, &format!("set producer rate={rate}"));
    sim
}

/// 50 brokers, `test_repli` with 5 000 partitions and RF 3, one producer at 100 records/s
/// (seed 1), run to [`LARGE_START_MS`].
pub fn large_cluster() -> Sim {
    let mut spec = ClusterSpec::default_run(1);
    spec.brokers = (0..LARGE_BROKERS).collect();
    spec.topics[0].partitions = LARGE_PARTITIONS;
    let mut sim = Sim::new(spec).expect("the large cluster starts");
    sim.advance_to(LARGE_START_MS);
    sim
}
