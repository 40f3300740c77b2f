//! One simulated hour of the default cluster (3 brokers, `test_repli` with 6 partitions, RF 3,
//! one producer, acks=all, seed 1), headless, from t=0: wall time and the thread's CPU time,
//! printed every 10 simulated minutes so growth over the hour shows. One run per rate, no
//! statistics: for runs too long for criterion's ten samples (the `sim hour` group of the
//! `sim` bench is the criterion form).
//!
//! `cargo bench --bench hour -- 1000` (rates in records/s, default 100 and 1000);
//! `ISRLAB_BENCH_HOURS` changes the sim duration (default 1).

mod common;

use common::{Clock, default_at};
use criterion::measurement::Measurement;
use std::time::Duration;

const STEP_MS: u64 = 10 * 60 * 1000;

fn main() {
    let hours: u64 = std::env::var("ISRLAB_BENCH_HOURS").ok().and_then(|v| v.parse().ok()).unwrap_or(1);
    let mut rates: Vec<u64> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    if rates.is_empty() {
        rates = vec![100, 1_000];
    }
    for rate in rates {
        println!("default cluster, {rate} records/s, {hours} simulated hour(s)");
        println!("{:>8} {:>12} {:>8} {:>8}", "sim min", "acked", "wall s", "cpu s");
        let mut sim = default_at(rate);
        let (wall, cpu) = (Clock::Wall, Clock::ThreadCpu);
        let (wall_start, cpu_start) = (wall.start(), cpu.start());
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
    }
}
