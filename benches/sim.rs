//! Simulation cost, headless: how much wall time sim time costs.
//!
//! - `sim hour`: one simulated hour of the default cluster (3 brokers, `test_repli` with 6
//!   partitions, RF 3, one producer, acks=all) from t=0, at 100 and at 1 000 records/s. The
//!   time per iteration is the wall time of one simulated hour; the throughput line
//!   (elements = sim seconds) is how many times faster than real time that is.
//! - `sim 10 s`: the default cluster continuing a run, 10 s of sim time per iteration, at 100
//!   and 5 000 records/s.
//! - `sim large`: 50 brokers and one topic of 5 000 partitions (RF 3) at 100 records/s, 10 s
//!   of sim time per iteration after a 30 s start-up; throughput = × real time.
//! - `snapshot`: one dashboard snapshot of the default cluster and of the large one (again
//!   at once: nothing changed; and one frame, 33 ms of sim time, later: what the live
//!   dashboard pays per frame at 1×, the sim's own time not counted).
//!
//! Each group takes a name filter, e.g. `cargo bench --bench sim -- 'sim hour/1000'`. The hour
//! runs are long, so criterion's smallest sample (10) is used. Wall time by default;
//! `ISRLAB_BENCH_CLOCK=cpu` measures the thread's CPU time instead (see `common`).

mod common;

use common::{Clock, LARGE_START_MS, default_at, large_cluster};
use criterion::measurement::Measurement;
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use isrlab::cluster::handle::Sim;
use isrlab::cluster::spec::ClusterSpec;
use std::hint::black_box;
use std::time::Duration;

const HOUR_MS: u64 = 3_600_000;
const SIM_SECONDS: u64 = 10;

fn sim_hour(c: &mut Criterion<Clock>) {
    let mut group = c.benchmark_group("sim hour");
    group.sample_size(10).warm_up_time(Duration::from_millis(1)).measurement_time(Duration::from_secs(1));
    group.throughput(Throughput::Elements(HOUR_MS / 1000));
    for rate in [100, 1_000] {
        group.bench_function(format!("{rate} records/s"), |b| {
            b.iter_batched(
                || default_at(rate),
                |mut sim| {
                    sim.advance_to(HOUR_MS);
                    assert_eq!(sim.snapshot().acked_lost, 0, "no acknowledged record may be lost");
                    sim
                },
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

fn sim_ten_seconds(c: &mut Criterion<Clock>) {
    let mut group = c.benchmark_group("sim 10 s");
    group.throughput(Throughput::Elements(SIM_SECONDS));
    group.sample_size(20);
    for rate in [100, 5_000] {
        group.bench_function(format!("default cluster, {rate} records/s"), |b| {
            let mut sim = default_at(rate);
            let mut t = 0;
            b.iter(|| {
                t += SIM_SECONDS * 1000;
                sim.advance_to(t);
                black_box(sim.snapshot().acked_lost)
            })
        });
    }
    group.finish();
}

fn sim_large(c: &mut Criterion<Clock>) {
    let mut group = c.benchmark_group("sim large");
    group.sample_size(10).warm_up_time(Duration::from_millis(1)).measurement_time(Duration::from_secs(1));
    group.throughput(Throughput::Elements(SIM_SECONDS));
    group.bench_function("50 brokers, 5000 partitions, 100 records/s", |b| {
        let mut sim = large_cluster();
        let mut t = LARGE_START_MS;
        b.iter(|| {
            t += SIM_SECONDS * 1000;
            sim.advance_to(t);
            black_box(sim.now())
        })
    });
    group.finish();
}

fn snapshot(c: &mut Criterion<Clock>) {
    let mut group = c.benchmark_group("snapshot");
    group.bench_function("default cluster", |b| {
        let mut sim = Sim::new(ClusterSpec::default_run(1)).expect("the default cluster starts");
        sim.advance_to(60_000);
        b.iter(|| black_box(sim.snapshot()))
    });
    group.sample_size(10);
    group.bench_function("50 brokers, 5000 partitions", |b| {
        let sim = large_cluster();
        b.iter(|| black_box(sim.snapshot()))
    });
    // What the live dashboard pays per frame at 1×: sim time moves one frame (33 ms, not
    // measured), then the snapshot is taken (measured).
    group.bench_function("50 brokers, 5000 partitions, one frame later", |b| {
        let mut sim = large_cluster();
        black_box(sim.snapshot());
        b.iter_custom(|iters| {
            let mut spent = Duration::ZERO;
            for _ in 0..iters {
                let t = sim.now() + 33;
                sim.advance_to(t);
                let clock = Clock::from_env();
                let start = clock.start();
                black_box(sim.snapshot());
                spent += clock.end(start);
            }
            spent
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = common::criterion();
    targets = sim_hour, sim_ten_seconds, sim_large, snapshot
}
criterion_main!(benches);
