//! Simulation throughput: how much sim time the default cluster covers per second of CPU.
//! The dashboard's top speed (100×) needs at least 100 sim seconds per wall second.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use isrlab::cluster::command::Command;
use isrlab::cluster::handle::Sim;
use isrlab::cluster::spec::ClusterSpec;
use std::hint::black_box;

const SIM_SECONDS: u64 = 10;

fn default_run(c: &mut Criterion) {
    let mut group = c.benchmark_group("sim");
    group.throughput(Throughput::Elements(SIM_SECONDS));
    group.sample_size(20);
    group.bench_function("default cluster, 100 records/s, 10 s of sim time", |b| {
        let mut sim = Sim::new(ClusterSpec::default_run(1)).unwrap();
        let mut t = 0;
        b.iter(|| {
            t += SIM_SECONDS * 1000;
            sim.advance_to(t);
            black_box(sim.snapshot().acked_lost)
        })
    });
    group.bench_function("default cluster, 5000 records/s, 10 s of sim time", |b| {
        let mut sim = Sim::new(ClusterSpec::default_run(1)).unwrap();
        sim.apply(&Command::parse("set producer rate=5000").unwrap()).unwrap();
        let mut t = 0;
        b.iter(|| {
            t += SIM_SECONDS * 1000;
            sim.advance_to(t);
            black_box(sim.snapshot().acked_lost)
        })
    });
    group.finish();
}

fn snapshot(c: &mut Criterion) {
    let mut sim = Sim::new(ClusterSpec::default_run(1)).unwrap();
    sim.advance_to(60_000);
    c.bench_function("snapshot of the default cluster", |b| b.iter(|| black_box(sim.snapshot())));
}

criterion_group!(benches, default_run, snapshot);
criterion_main!(benches);
