//! `isrlab check`'s speed: seeds per second per core on the default cluster (with `check`'s
//! load: an idempotent and a plain producer at 50 records/s each, a group consumer) with
//! 60 s of faults and the default heal and settle, run on one thread; beside a baseline in
//! the same process: the same cluster run for the same sim time with no faults and no
//! checks (a plain `Sim::advance_to`), so the ratio is what the faults and the invariants
//! cost on top of the simulation itself. Prints the time 100 000 seeds would take on 2 cores
//! against the 10 minute target. `cargo bench --bench check -- N` runs N seeds (default 40);
//! `ISRLAB_BENCH_CLOCK=cpu` measures thread CPU time instead of wall time.

mod common;

use common::Clock;
use criterion::measurement::Measurement;
use isrlab::check::Check;
use isrlab::check::cluster::Base;
use isrlab::check::schedule::FaultKind;
use isrlab::cluster::handle::Sim;
use isrlab::cluster::spec::ClusterSpec;
use std::hint::black_box;

fn main() {
    let seeds: u64 = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(40);
    let clock = Clock::from_env();
    let base = Base::from_flags(None, &[], None, &[]).expect("the default cluster");
    let check = Check::new(base, 60_000, FaultKind::default_mix()).expect("the check");
    let end = check.space.duration + check.settle;
    println!(
        "isrlab check, default cluster, {} s of faults + {} s settle, {seeds} seeds, one thread ({})",
        check.space.duration / 1000,
        check.settle / 1000,
        clock.name()
    );

    let start = clock.start();
    for seed in 0..seeds {
        let mut sim = Sim::new(ClusterSpec { seed, ..check.spec.clone() }).expect("the cluster starts");
        sim.advance_to(end);
        black_box(sim.snapshot().acked_lost);
    }
    let baseline = clock.end(start).as_secs_f64();

    let start = clock.start();
    for seed in 0..seeds {
        black_box(check.run_seed(seed).outcome.acked_lost);
    }
    let checked = clock.end(start).as_secs_f64();

    let per_core = seeds as f64 / checked;
    let hundred_k = 100_000.0 / (per_core * 2.0);
    println!("baseline (no faults, no checks): {:.1} ms per seed", baseline * 1000.0 / seeds as f64);
    println!(
        "check:                           {:.1} ms per seed, {per_core:.1} seeds/s/core",
        checked * 1000.0 / seeds as f64
    );
    println!("ratio check/baseline: {:.2}×", checked / baseline);
    println!("100 000 seeds on 2 cores: {:.0} min (target ≤ 10 min)", hundred_k / 60.0);
}
