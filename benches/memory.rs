//! Memory over a long run: the default cluster (3 brokers, `test_repli` with 6 partitions,
//! RF 3, one producer, acks=all) at 10 000 records/s for 8 simulated hours, headless. Prints,
//! every simulated half hour, the resident set (`VmRSS`), its peak so far (`VmHWM`, from
//! `/proc/self/status`, Linux only), the bytes the logs' batches and the audit ledger take,
//! and the wall time. Run with `cargo bench --bench memory`.
//!
//! Kafka's default retention (`retention.ms` 7 days, `segment.bytes` 1 GiB) keeps everything
//! for longer than 8 hours, so memory could not level off; the run sets `retention.ms` to
//! 1 hour and `segment.bytes` to 16 MiB (about 90 s of this load per partition; with 1 GiB a
//! segment would take 98 minutes to fill and nothing could be deleted before). Override with
//! `ISRLAB_BENCH_RETENTION_MS`, `ISRLAB_BENCH_SEGMENT_BYTES` and `ISRLAB_BENCH_HOURS`.

use isrlab::cluster::command::Command;
use isrlab::cluster::handle::Sim;
use isrlab::sim::spec::ClusterSpec;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// The system allocator, counting the bytes live on the heap (what the program asked for,
/// before the allocator's own overhead and fragmentation).
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call goes to `System` unchanged; only a counter is updated beside it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on to `System`.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size, Ordering::Relaxed);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const RATE: u64 = 10_000;
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
    let retention_ms = env_or("ISRLAB_BENCH_RETENTION_MS", 3_600_000);
    let segment_bytes = env_or("ISRLAB_BENCH_SEGMENT_BYTES", 16 << 20);
    let mut sim = Sim::new(ClusterSpec::default_run(1)).expect("the default cluster starts");
    run(&format!("set producer rate={RATE}"), &mut sim);
    run(&format!("set topic test_repli retention.ms={retention_ms}"), &mut sim);
    run(&format!("set topic test_repli segment.bytes={segment_bytes}"), &mut sim);
    println!(
        "size_of RecordBatch {} B, Values {} B",
        std::mem::size_of::<isrlab::sim::protocol::RecordBatch>(),
        std::mem::size_of::<isrlab::sim::protocol::Values>()
    );
    println!(
        "default cluster, {RATE} records/s, retention.ms={retention_ms}, segment.bytes={segment_bytes}, {hours} h"
    );
    println!(
        "{:>6} {:>12} {:>9} {:>9} {:>9} {:>10} {:>8}",
        "sim h", "acked", "RSS MB", "peak MB", "heap MB", "held MB", "wall s"
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
            "{:>6.1} {:>12} {:>9} {:>9} {:>9} {:>10} {:>8.1}",
            t as f64 / 3_600_000.0,
            s.producers[0].acked,
            show(status_mb("VmRSS:")),
            show(status_mb("VmHWM:")),
            LIVE.load(Ordering::Relaxed) >> 20,
            sim.memory_held() >> 20,
            start.elapsed().as_secs_f64()
        );
        assert_eq!(s.acked_lost, 0, "no acknowledged record may be lost");
    }
    println!(
        "peak RSS {} MB, wall time {:.0} s for {hours} simulated hours",
        show(status_mb("VmHWM:")),
        start.elapsed().as_secs_f64()
    );
}
