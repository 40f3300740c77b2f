//! Set-ups the benchmarks share.

#![allow(dead_code)]

pub mod toy;

use criterion::Criterion;
use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use isrlab::cluster::command::Command;
use isrlab::cluster::handle::Sim;
use isrlab::cluster::snapshot::Snapshot;
use isrlab::cluster::spec::ClusterSpec;
use isrlab::ui::app::{Model, Msg, update};
use isrlab::ui::theme::Theme;
use isrlab::ui::{FRAME, view};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::time::{Duration, Instant};

/// Brokers of the large cluster.
pub const LARGE_BROKERS: i32 = 50;
/// Partitions of the large cluster's one topic.
pub const LARGE_PARTITIONS: u32 = 5_000;
/// Sim time (ms) the large cluster runs before it is measured: registration, elections,
/// fetchers started.
pub const LARGE_START_MS: u64 = 30_000;

/// Applies a palette command, panicking with it on error.
pub fn run(sim: &mut Sim, command: &str) {
    let cmd = Command::parse(command).unwrap_or_else(|e| panic!("{command}: {e:?}"));
    sim.apply(&cmd).unwrap_or_else(|e| panic!("{command}: {e}"));
}

/// The default cluster (seed 1) with its producer at `rate` records/s, at t=0.
pub fn default_at(rate: u64) -> Sim {
    let mut sim = Sim::new(ClusterSpec::default_run(1)).expect("the default cluster starts");
    run(&mut sim, &format!("set producer rate={rate}"));
    sim
}

/// 50 brokers, `test_repli` with 5 000 partitions and RF 3, one producer at 100 records/s
/// (seed 1), run to [`LARGE_START_MS`].
pub fn large_cluster() -> Sim {
    let mut spec = ClusterSpec::default_run(1);
    spec.brokers = (0..LARGE_BROKERS).collect();
    spec.topics[0].partitions = LARGE_PARTITIONS;
    let mut sim = Sim::new(spec).expect("the large cluster starts");
    sim.advance_to(LARGE_START_MS);
    sim
}

/// A colour model sized `w`×`h` and a terminal of that size with one frame already drawn.
pub fn setup(w: u16, h: u16, snap: &Snapshot) -> (Model, Terminal<TestBackend>) {
    let mut model = Model::new(1.0, Theme::new(true), snap);
    update(&mut model, Msg::Resize(w, h), snap);
    let mut terminal = Terminal::new(TestBackend::new(w, h)).expect("a test terminal");
    terminal.draw(|f| view::view(&model, snap, f)).expect("the first frame draws");
    (model, terminal)
}

/// Two snapshots of `sim` one frame (33 ms of sim time) apart.
pub fn two_frames(mut sim: Sim) -> (Snapshot, Snapshot) {
    let at = sim.now();
    let first = sim.snapshot();
    sim.advance_to(at + FRAME.as_millis() as u64);
    (first, sim.snapshot())
}

/// What the benchmarks measure: wall time (criterion's default), or with
/// `ISRLAB_BENCH_CLOCK=cpu` the CPU time of the benchmark's thread, which the simulation runs
/// on (`CLOCK_THREAD_CPUTIME_ID`, ns). On a machine shared with other jobs the
/// thread's CPU time is close to the wall time it would take on an idle core, while wall time
/// grows with the load.
#[derive(Clone, Copy, Debug)]
pub enum Clock {
    /// Wall time.
    Wall,
    /// The thread's CPU time.
    ThreadCpu,
}

/// A start reading of a [`Clock`].
#[derive(Clone, Copy, Debug)]
pub enum Reading {
    /// Wall time at start.
    Wall(Instant),
    /// Thread CPU ns at start.
    ThreadCpu(u64),
}

/// ns this thread has spent on a CPU (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`).
fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; the call only writes it.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

impl Clock {
    /// The clock `ISRLAB_BENCH_CLOCK` names (`cpu` or, by default, wall).
    pub fn from_env() -> Self {
        match std::env::var("ISRLAB_BENCH_CLOCK").as_deref() {
            Ok("cpu") => Clock::ThreadCpu,
            _ => Clock::Wall,
        }
    }

    /// Its name for the reports.
    pub fn name(self) -> &'static str {
        match self {
            Clock::Wall => "wall time",
            Clock::ThreadCpu => "thread CPU time",
        }
    }
}

/// Criterion measuring with the [`Clock`] `ISRLAB_BENCH_CLOCK` names.
pub fn criterion() -> Criterion<Clock> {
    Criterion::default().with_measurement(Clock::from_env())
}

impl Measurement for Clock {
    type Intermediate = Reading;
    type Value = Duration;

    fn start(&self) -> Reading {
        match self {
            // A benchmark measures wall time; the simulation itself runs on sim time.
            #[allow(clippy::disallowed_methods)]
            Clock::Wall => Reading::Wall(Instant::now()),
            Clock::ThreadCpu => Reading::ThreadCpu(thread_cpu_ns()),
        }
    }

    fn end(&self, start: Reading) -> Duration {
        match start {
            Reading::Wall(at) => at.elapsed(),
            Reading::ThreadCpu(ns) => Duration::from_nanos(thread_cpu_ns().saturating_sub(ns)),
        }
    }

    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }

    fn zero(&self) -> Duration {
        Duration::ZERO
    }

    fn to_f64(&self, value: &Duration) -> f64 {
        value.as_nanos() as f64
    }

    fn formatter(&self) -> &dyn ValueFormatter {
        static WALL: WallTime = WallTime;
        WALL.formatter()
    }
}

/// The large cluster with broker 17 crashed 12 s ago: fenced, out of its 300 partitions' ISRs.
pub fn large_with_a_crash() -> Sim {
    let mut sim = large_cluster();
    run(&mut sim, "crash 17");
    let at = sim.now();
    sim.advance_to(at + 12_000);
    sim
}
