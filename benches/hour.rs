//! One simulated hour of the default cluster (3 brokers, `test_repli` with 6 partitions, RF 3,
//! one producer, acks=all, seed 1), headless, from t=0: wall time and the thread's CPU time,
//! printed every 10 simulated minutes so growth over the hour shows. One run per rate, no
//! statistics: for runs too long for criterion's ten samples (the `sim hour` group of the
//! `sim` bench is the criterion form). `large` instead runs 50 brokers × 5 000 partitions
//! (RF 3, 100 records/s) for one simulated minute after its start-up.
//!
//! Each run ends with its cost per agenda entry (a message delivered, a timer fired, a
//! resume, a service; [`isrlab::cluster::handle::Sim::entries_taken`]) next to a baseline
//! taken in the same process just before: the toy world's agenda and direct driver
//! ([`common::toy::direct`]), whose cost per message is the runtime alone. The ratio is how
//! many times the runtime's own cost the cluster's work per entry takes; it holds on a
//! loaded machine where the seconds do not.
//!
//! `cargo bench --bench hour -- 100 1000 large` (rates in records/s, default 100 and 1000);
//! `ISRLAB_BENCH_HOURS` changes the default cluster's sim duration (default 1).

mod common;

use common::{Clock, LARGE_START_MS, default_at, large_cluster, toy};
use criterion::measurement::Measurement;
use isrlab::cluster::handle::Sim;
use std::time::Duration;

const STEP_MS: u64 = 10 * 60 * 1000;
/// Sim time the large cluster runs once started (ms).
const LARGE_RUN_MS: u64 = 60_000;
/// Messages of each baseline run.
const BASELINE_MESSAGES: u64 = 2_000_000;

fn main() {
    let hours: u64 = std::env::var("ISRLAB_BENCH_HOURS").ok().and_then(|v| v.parse().ok()).unwrap_or(1);
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let mut runs: Vec<&str> = args.iter().map(String::as_str).collect();
    if runs.is_empty() {
        runs = vec!["100", "1000"];
    }
    for run in runs {
        if run == "large" {
            large();
        } else if let Ok(rate) = run.parse::<u64>() {
            hour(rate, hours);
        }
    }
}

fn hour(rate: u64, hours: u64) {
    let baseline = toy::ns_per_message(Clock::ThreadCpu, BASELINE_MESSAGES, toy::direct);
    println!("default cluster, {rate} records/s, {hours} simulated hour(s)");
    println!("{:>8} {:>12} {:>8} {:>8}", "sim min", "acked", "wall s", "cpu s");
    let mut sim = default_at(rate);
    let (wall, cpu) = (Clock::Wall, Clock::ThreadCpu);
    let (wall_start, cpu_start) = (wall.start(), cpu.start());
    let entries_start = sim.entries_taken();
    let end = hours * 3_600_000;
    let mut t = 0;
    let mut last = (Duration::ZERO, Duration::ZERO);
    while t < end {
        t = (t + STEP_MS).min(end);
        sim.advance_to(t);
        let s = sim.snapshot();
        last = (wall.end(wall_start), cpu.end(cpu_start));
        println!(
            "{:>8} {:>12} {:>8.1} {:>8.1}",
            t / 60_000,
            s.producers[0].acked,
            last.0.as_secs_f64(),
            last.1.as_secs_f64()
        );
        assert_eq!(s.acked_lost, 0, "no acknowledged record may be lost");
    }
    println!(
        "{rate} records/s: {hours} simulated hour(s) in {:.1} s wall, {:.1} s CPU ({:.0}× real time by CPU)",
        last.0.as_secs_f64(),
        last.1.as_secs_f64(),
        (end as f64 / 1000.0) / last.1.as_secs_f64()
    );
    per_entry(&sim, entries_start, last.1, baseline);
}

fn large() {
    let baseline = toy::ns_per_message(Clock::ThreadCpu, BASELINE_MESSAGES, toy::direct);
    println!(
        "50 brokers × 5 000 partitions, 100 records/s, {} simulated s after start-up",
        LARGE_RUN_MS / 1000
    );
    let mut sim = large_cluster();
    let cpu = Clock::ThreadCpu;
    let start = cpu.start();
    let entries_start = sim.entries_taken();
    sim.advance_to(LARGE_START_MS + LARGE_RUN_MS);
    let took = cpu.end(start);
    println!(
        "large: {} simulated s in {:.2} s CPU ({:.0}× real time by CPU)",
        LARGE_RUN_MS / 1000,
        took.as_secs_f64(),
        (LARGE_RUN_MS as f64 / 1000.0) / took.as_secs_f64()
    );
    per_entry(&sim, entries_start, took, baseline);
}

/// Prints the run's CPU per agenda entry against the baseline's per message.
fn per_entry(sim: &Sim, entries_start: u64, cpu: Duration, baseline_ns: f64) {
    let entries = sim.entries_taken() - entries_start;
    let ns = cpu.as_nanos() as f64 / entries.max(1) as f64;
    println!(
        "  {entries} agenda entries, {ns:.0} ns CPU each; baseline (agenda + direct driver, toy handlers) \
         {baseline_ns:.1} ns per message: {:.1}× the baseline",
        ns / baseline_ns
    );
}
