//! Memory over a long run: the default cluster (3 brokers, `test_repli` with 6 partitions,
//! RF 3, one producer, acks=all) at 10 000 records/s for 8 simulated hours, headless. Prints,
//! every simulated half hour, the resident set (`VmRSS`), its peak so far (`VmHWM`, from
//! `/proc/self/status`, Linux only), the bytes live on the heap (counted by `stats_alloc`),
//! the bytes the logs' batches and the audit ledger take of it (`Sim::memory_held`), the wall
//! time and the CPU time. Run with `cargo bench --bench memory`.
//!
//! Kafka's default retention (`retention.ms` 7 days, `segment.bytes` 1 GiB) keeps everything
//! for longer than 8 hours, so memory could not level off; the run sets `retention.ms` to
//! 1 hour and `segment.bytes` to 16 MiB (about 90 s of this load per partition; with 1 GiB a
//! segment would take 98 minutes to fill and nothing could be deleted before). Override with
//! `ISRLAB_BENCH_RETENTION_MS`, `ISRLAB_BENCH_SEGMENT_BYTES`, `ISRLAB_BENCH_HOURS` and
//! `ISRLAB_BENCH_RATE` (records/s).
//!
//! Measured (README, "Performance"), 1 hour of retention, on the shared 2-core machine: RSS
//! 47 MB at 0.5 h, 89 MB at 1 h, then flat at 97–98 MB from 1.5 h to 8 h (peak 98 MB, target
//! under 200 MB); 288 million records acknowledged, none lost; 1 025 s of CPU, 4 821 s of wall
//! time (other jobs kept the machine's load near 10, so wall time is noisy). Logs keep a batch
//! in 8 bytes per replica (`sim::batches`); with one `Arc`'d 64-byte `RecordBatch` per batch
//! the same run peaked at 536 MB.

use isrlab::cluster::command::Command;
use isrlab::cluster::handle::Sim;
use isrlab::sim::spec::ClusterSpec;
use stats_alloc::{INSTRUMENTED_SYSTEM, StatsAlloc};
use std::alloc::System;
use std::time::Instant;

/// The system allocator, counting the bytes the program has on the heap.
#[global_allocator]
static ALLOCATOR: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Bytes live on the heap in MB: what the program asked for and has not freed, before the
/// allocator's own overhead and fragmentation (which the resident set includes).
fn heap_mb() -> usize {
    let stats = ALLOCATOR.stats();
    stats.bytes_allocated.saturating_sub(stats.bytes_deallocated) >> 20
}

/// CPU seconds the process has used (user + system, `/proc/self/stat` fields 14 and 15, in
/// Linux's `USER_HZ` of 100 ticks a second; `None` off Linux). Unlike wall time it does not
/// grow when other jobs share the machine.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name, which is in parentheses and may hold spaces.
    let rest = stat.rsplit_once(')')?.1;
    let mut fields = rest.split_whitespace().skip(11);
    let (user, system): (u64, u64) = (fields.next()?.parse().ok()?, fields.next()?.parse().ok()?);
    Some((user + system) as f64 / 100.0)
}

const STEP_MS: u64 = 30 * 60 * 1000;

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// A `/proc/self/status` field in MB (`None` off Linux).
fn status_mb(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

fn show(v: Option<u64>) -> String {
    v.map_or("n/a".to_string(), |v| v.to_string())
}

fn run(command: &str, sim: &mut Sim) {
    let cmd = Command::parse(command).unwrap_or_else(|e| panic!("{command}: {e:?}"));
    sim.apply(&cmd).unwrap_or_else(|e| panic!("{command}: {e}"));
}

fn main() {
    let hours = env_or("ISRLAB_BENCH_HOURS", 8);
    let rate = env_or("ISRLAB_BENCH_RATE", 10_000);
    let retention_ms = env_or("ISRLAB_BENCH_RETENTION_MS", 3_600_000);
    let segment_bytes = env_or("ISRLAB_BENCH_SEGMENT_BYTES", 16 << 20);
    let mut sim = Sim::new(ClusterSpec::default_run(1)).expect("the default cluster starts");
    run(&format!("set producer rate={rate}"), &mut sim);
    run(&format!("set topic test_repli retention.ms={retention_ms}"), &mut sim);
    run(&format!("set topic test_repli segment.bytes={segment_bytes}"), &mut sim);
    println!(
        "default cluster, {rate} records/s, retention.ms={retention_ms}, segment.bytes={segment_bytes}, {hours} h"
    );
    println!(
        "{:>6} {:>12} {:>9} {:>9} {:>9} {:>10} {:>8} {:>8}",
        "sim h", "acked", "RSS MB", "peak MB", "heap MB", "held MB", "wall s", "CPU s"
    );
    // A benchmark measures wall time; the simulation itself runs on sim time.
    #[allow(clippy::disallowed_methods)]
    let start = Instant::now();
    let end = hours * 3_600_000;
    let mut t = 0;
    while t < end {
        t = (t + STEP_MS).min(end);
        sim.advance_to(t);
        let s = sim.snapshot();
        println!(
            "{:>6.1} {:>12} {:>9} {:>9} {:>9} {:>10} {:>8.1} {:>8}",
            t as f64 / 3_600_000.0,
            s.producers[0].acked,
            show(status_mb("VmRSS:")),
            show(status_mb("VmHWM:")),
            heap_mb(),
            sim.memory_held() >> 20,
            start.elapsed().as_secs_f64(),
            cpu_seconds().map_or("n/a".to_string(), |c| format!("{c:.1}"))
        );
        assert_eq!(s.acked_lost, 0, "no acknowledged record may be lost");
    }
    println!(
        "peak RSS {} MB, wall time {:.0} s, CPU time {} s for {hours} simulated hours",
        show(status_mb("VmHWM:")),
        start.elapsed().as_secs_f64(),
        cpu_seconds().map_or("n/a".to_string(), |c| format!("{c:.0}"))
    );
}
