//! Seeds in parallel: each seed's run is independent, so worker threads (one per core) take
//! the next seed from a shared counter; the results come back ordered by seed, the same
//! whatever the number of threads.

use super::{Check, SeedRun};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Runs seeds `first..first + count` of `check` on `threads` threads (at least 1), calling
/// `done` after each seed (from the worker that ran it). Returns the runs ordered by seed.
pub fn run_seeds(
    check: &Check,
    first: u64,
    count: u64,
    threads: usize,
    done: &(dyn Fn(&SeedRun) + Sync),
) -> Vec<SeedRun> {
    let next = AtomicU64::new(0);
    let results: Mutex<Vec<SeedRun>> = Mutex::new(Vec::with_capacity(count as usize));
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= count {
                        break;
                    }
                    let run = check.run_seed(first + i);
                    done(&run);
                    results.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(run);
                }
            });
        }
    });
    let mut runs = results.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    runs.sort_by_key(|r| r.seed);
    runs
}

/// The cores this machine offers (1 when unknown).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}
