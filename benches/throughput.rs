//! Replication throughput at the highest producer rate, against a baseline of bare appends
//! with the same record layout, in one run (target: ≥ 5 M records/s and ≥ 50 % of
//! the baseline).
//!
//! - `isrlab`: the default cluster (3 brokers, `test_repli` with 6 partitions, RF 3, acks=all,
//!   idempotent) with its producer at 100 000 records/s, the highest rate `rate` takes, after a
//!   5 s start-up; each iteration runs 1 s of sim time. Records per wall second are counted
//!   from what the producer got acknowledged (so from records replicated to the ISR).
//! - `bare appends`: the same records written into three replica logs (plain `Vec<u8>`s)
//!   with the same layout: batches of `(batch.size − 61) / record.size` = 163 records of
//!   `record.size` = 100 bytes behind a 61-byte batch header, as a full producer batch at this
//!   rate is. The leader's log gets the batch, each follower copies it from the leader's. A
//!   log that reaches 16 MiB starts again (a new segment in reused memory).
//!
//! At the end the bench prints both rates and their ratio, from the same run. Wall time by
//! default; `ISRLAB_BENCH_CLOCK=cpu` measures the thread's CPU time instead (see `common`).
//! `cargo bench --bench throughput`.

mod common;

use common::{Clock, default_at};
use criterion::measurement::Measurement;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use isrlab::cluster::handle::Sim;
use std::hint::black_box;
use std::sync::Mutex;
use std::time::Duration;

/// The highest producer rate (records/s) `set producer rate=` accepts.
const RATE: u64 = 100_000;
/// Sim time per iteration (ms).
const STEP_MS: u64 = 1_000;
/// Start-up before measuring (ms).
const START_MS: u64 = 5_000;
/// `record.size`'s default (bytes).
const RECORD_SIZE: usize = 100;
/// Kafka's record batch header (bytes).
const BATCH_OVERHEAD: usize = 61;
/// `batch.size`'s default (bytes).
const BATCH_SIZE: usize = 16_384;
/// Records in a full batch.
const BATCH_RECORDS: usize = (BATCH_SIZE - BATCH_OVERHEAD) / RECORD_SIZE;
/// Replication factor.
const RF: usize = 3;
/// A log starts again once it holds this many bytes.
const SEGMENT_BYTES: usize = 16 << 20;

/// Records and time ([`Clock`]) measured for one side.
#[derive(Clone, Copy, Default)]
struct Tally {
    records: u64,
    wall: Duration,
}

impl Tally {
    fn rate(self) -> f64 {
        self.records as f64 / self.wall.as_secs_f64()
    }
}

static ISRLAB: Mutex<Tally> = Mutex::new(Tally { records: 0, wall: Duration::ZERO });
static BARE: Mutex<Tally> = Mutex::new(Tally { records: 0, wall: Duration::ZERO });

fn add(tally: &Mutex<Tally>, records: u64, wall: Duration) {
    let mut t = tally.lock().expect("tally");
    t.records += records;
    t.wall += wall;
}

fn acked(sim: &Sim) -> u64 {
    sim.snapshot().producers[0].acked
}

/// Three replica logs of raw bytes.
struct BareLogs {
    logs: [Vec<u8>; RF],
    next_offset: u64,
}

impl BareLogs {
    fn new() -> Self {
        Self { logs: std::array::from_fn(|_| Vec::with_capacity(SEGMENT_BYTES)), next_offset: 0 }
    }

    /// Appends `records` records in full batches: the leader writes each batch, the followers
    /// copy it.
    fn append(&mut self, records: usize) {
        let mut left = records;
        while left > 0 {
            let n = left.min(BATCH_RECORDS);
            let [leader, followers @ ..] = &mut self.logs;
            if leader.len() + BATCH_OVERHEAD + n * RECORD_SIZE > SEGMENT_BYTES {
                leader.clear();
                followers.iter_mut().for_each(Vec::clear);
            }
            let start = leader.len();
            leader.extend_from_slice(&self.next_offset.to_le_bytes());
            leader.resize(start + BATCH_OVERHEAD, 0);
            for i in 0..n as u64 {
                let mut record = [0u8; RECORD_SIZE];
                record[..8].copy_from_slice(&(self.next_offset + i).to_le_bytes());
                leader.extend_from_slice(&record);
            }
            for f in followers.iter_mut() {
                f.extend_from_slice(&leader[start..]);
            }
            self.next_offset += n as u64;
            left -= n;
        }
    }
}

fn replication(c: &mut Criterion<Clock>) {
    let per_iteration = RATE * STEP_MS / 1000;
    let clock = Clock::from_env();
    let mut group = c.benchmark_group("replication at 100000 records per s");
    group.sample_size(10);
    group.throughput(Throughput::Elements(per_iteration));
    group.bench_function("isrlab, RF 3, acks=all", |b| {
        let mut sim = default_at(RATE);
        sim.advance_to(START_MS);
        let mut t = START_MS;
        let mut done = acked(&sim);
        b.iter_custom(|iters| {
            let start = clock.start();
            for _ in 0..iters {
                t += STEP_MS;
                sim.advance_to(t);
            }
            let wall = clock.end(start);
            let now = acked(&sim);
            add(&ISRLAB, now - done, wall);
            done = now;
            wall
        })
    });
    group.bench_function("bare appends, same record layout", |b| {
        let mut logs = BareLogs::new();
        b.iter_custom(|iters| {
            let start = clock.start();
            for _ in 0..iters {
                logs.append(per_iteration as usize);
                black_box(&logs.logs);
            }
            let wall = clock.end(start);
            add(&BARE, iters * per_iteration, wall);
            wall
        })
    });
    group.finish();
}

/// Prints both rates and the ratio measured in this run.
fn report(_: &mut Criterion<Clock>) {
    let isrlab = *ISRLAB.lock().expect("tally");
    let bare = *BARE.lock().expect("tally");
    let show = |name: &str, t: Tally| {
        if t.records > 0 {
            println!(
                "{name}: {:.2} M records/s ({} records in {:.1} s)",
                t.rate() / 1e6,
                t.records,
                t.wall.as_secs_f64()
            );
        }
    };
    println!("measured by {}", Clock::from_env().name());
    show("isrlab (acknowledged, RF 3, acks=all)", isrlab);
    show("bare appends, same record layout", bare);
    if isrlab.records > 0 && bare.records > 0 {
        println!("ratio isrlab / bare appends: {:.1} %", 100.0 * isrlab.rate() / bare.rate());
    }
}

criterion_group! {
    name = benches;
    config = common::criterion();
    targets = replication, report
}
criterion_main!(benches);
