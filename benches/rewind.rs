//! Rewinding the dashboard's sim: the default cluster (seed 1, its default producer, the
//! tasks driver the dashboard runs) on a [`Tape`] for one simulated hour with a crash and a
//! restart on the way, then rewinds to random instants of that hour (a fixed pseudo-random
//! sequence), printing the median and worst wall time of a rewind against the 0.2 s target,
//! and the resident set with and without the hour of checkpoints.
//!
//! `cargo bench --bench rewind -- [CHECKPOINT_MS]` (default
//! [`isrlab::cluster::tape::CHECKPOINT_EVERY_MS`]).

use isrlab::cluster::command::Command;
use isrlab::cluster::driver::Driver;
use isrlab::cluster::handle::Sim;
use isrlab::cluster::tape::{CHECKPOINT_EVERY_MS, Tape};
use isrlab::sim::SimTime;
use isrlab::sim::spec::ClusterSpec;
use std::time::{Duration, Instant};

const HOUR_MS: u64 = 3_600_000;
const REWINDS: usize = 40;

fn rss_mb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? / 1024)
}

fn show(v: Option<u64>) -> String {
    v.map_or("n/a".into(), |v| v.to_string())
}

/// Runs the hour: a crash at 10 min, a restart at 20 min, in steps of 50 ms as the dashboard's
/// frames ask for time.
fn hour(tape: &mut Tape) {
    let mut t = 0;
    while t < HOUR_MS {
        t += 50;
        tape.advance(Some(SimTime::from_ms(t)));
        let cmd = match t {
            600_000 => Some("crash 2"),
            1_200_000 => Some("restart 2"),
            _ => None,
        };
        if let Some(c) = cmd {
            tape.apply(&Command::parse(c).unwrap()).unwrap();
        }
    }
}

// A benchmark measures wall time; the simulation itself runs on sim time.
#[allow(clippy::disallowed_methods)]
fn main() {
    let every = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(CHECKPOINT_EVERY_MS);
    let sim = || Sim::with_driver(ClusterSpec::default_run(1), Driver::Tasks).unwrap();
    // The same hour without checkpoints (an interval longer than the hour) for the baseline.
    let mut plain = Tape::with_interval(sim(), Vec::new(), None, 10 * HOUR_MS);
    let started = Instant::now();
    hour(&mut plain);
    let plain_run = started.elapsed();
    let plain_rss = rss_mb();
    drop(plain);
    let mut tape = Tape::with_interval(sim(), Vec::new(), None, every);
    let started = Instant::now();
    hour(&mut tape);
    let taped_run = started.elapsed();
    let taped_rss = rss_mb();
    println!("default cluster, one simulated hour, checkpoints every {} s", every / 1000);
    println!(
        "the hour: {:.1} s wall without checkpoints, {:.1} s with; RSS {} MB without, {} MB with ({} checkpoints)",
        plain_run.as_secs_f64(),
        taped_run.as_secs_f64(),
        show(plain_rss),
        show(taped_rss),
        HOUR_MS / every + 1
    );
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut times: Vec<Duration> = Vec::new();
    for _ in 0..REWINDS {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let t = SimTime::from_micros(x % (HOUR_MS * 1000));
        let started = Instant::now();
        tape.rewind_to(t).unwrap();
        times.push(started.elapsed());
        assert_eq!(tape.sim().now_us(), t);
    }
    times.sort();
    let median = times[times.len() / 2];
    let worst = times[times.len() - 1];
    println!(
        "{REWINDS} rewinds to random instants: median {:.3} s, worst {:.3} s; target 0.2 s, worst/target {:.2}",
        median.as_secs_f64(),
        worst.as_secs_f64(),
        worst.as_secs_f64() / 0.2
    );
}
