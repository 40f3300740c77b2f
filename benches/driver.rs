//! The runtime's own cost per delivered message, next to a baseline in the same process, and
//! the time a checkpoint (a fork of the world) of the large cluster takes.
//!
//! Four toy nodes pass messages at jittered instants (50–250 µs apart): each message is
//! handled by the same tiny handler (it counts, and says to whom the next message goes, after
//! how long, carrying what). Three ways of running the same handlers on the same messages:
//!
//! - **baseline**: a plain loop that calls the handlers one after the other (no agenda);
//! - **direct**: the simulation's agenda and its direct driver ([`run_direct`]): every message
//!   is scheduled at its instant, taken in (instant, scheduling order) and stepped inline;
//! - **tasks**: the same agenda with the tasks driver: every node a tokio task awaiting its
//!   mailbox, the driver handing each step over and waiting until it is done.
//!
//! The runtime cost of a driver is its ns per message minus the baseline's (targets: ≤ 100 ns
//! direct, ≤ 250 ns tasks). `ISRLAB_BENCH_CLOCK=cpu` measures thread CPU time instead of
//! wall time. `cargo bench --bench driver -- N` delivers N messages per run (default 2 000 000).

mod common;

use common::toy::{baseline, direct, ns_per_message, tasks};
use common::{Clock, large_cluster};
use criterion::measurement::Measurement;
use std::hint::black_box;
use std::time::Duration;

fn main() {
    let messages: u64 = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(2_000_000);
    let clock = Clock::from_env();
    println!("runtime cost per delivered message ({}, {messages} messages, best of 3)", clock.name());
    let base = ns_per_message(clock, messages, baseline);
    let direct = ns_per_message(clock, messages, direct);
    let tasks = ns_per_message(clock, messages, tasks);
    println!("{:>10} {:>10} {:>14} {:>8}", "", "ns/msg", "runtime ns/msg", "target");
    println!("{:>10} {:>10.1} {:>14} {:>8}", "baseline", base, "-", "-");
    println!("{:>10} {:>10.1} {:>14.1} {:>8}", "direct", direct, direct - base, "≤ 100");
    println!("{:>10} {:>10.1} {:>14.1} {:>8}", "tasks", tasks, tasks - base, "≤ 250");
    println!("ratios: direct/baseline {:.1}×, tasks/baseline {:.1}×", direct / base, tasks / base);

    println!();
    println!("fork (checkpoint) of 50 brokers × 5 000 partitions ({})", clock.name());
    let sim = large_cluster();
    let mut times: Vec<f64> = (0..5)
        .map(|_| {
            let start = clock.start();
            let fork = black_box(sim.fork().expect("the fork starts"));
            let took: Duration = clock.end(start);
            drop(fork);
            took.as_secs_f64() * 1000.0
        })
        .collect();
    times.sort_by(f64::total_cmp);
    println!("fork: median {:.1} ms (min {:.1}, max {:.1}) over 5", times[2], times[0], times[4]);
}
