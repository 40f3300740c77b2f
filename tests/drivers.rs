//! The two drivers of the node step give the same run: every scenario file in
//! `tests/scenarios/` and `tests/v2/` under the direct driver and under the tasks driver
//! gives the same trace hash and the same report, byte for byte; so do random command
//! schedules. The check is shown to catch a driver that orders a same-instant pair
//! differently: with a planted swap of two same-instant messages, it fails.

use isrlab::cluster::command::Command;
use isrlab::cluster::driver::Driver;
use isrlab::cluster::handle::Sim;
use isrlab::cluster::spec::ClusterSpec;
use isrlab::scenario::runner;
use isrlab::sim::SimTime;
use std::path::{Path, PathBuf};

/// Every scenario file the equivalence covers, in name order.
fn scenario_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["tests/scenarios", "tests/v2"] {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        for entry in std::fs::read_dir(&root).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "toml") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// One run of a scenario file: its report and its trace hash.
fn run(path: &Path, driver: Driver, planted: bool) -> (String, u64) {
    let scenario = isrlab::scenario::load(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = Vec::new();
    let hash = if planted {
        let mut sim = Sim::with_driver(scenario.spec.clone(), driver).unwrap();
        sim.plant_same_instant_swap();
        runner::run_on(&mut sim, &scenario, &mut out).unwrap();
        sim.trace_hash()
    } else {
        runner::run_with_driver(&scenario, driver, &mut out).unwrap().1
    };
    (String::from_utf8_lossy(&out).into_owned(), hash)
}

/// The equivalence check for one file: the direct driver against the tasks driver (with the
/// planted swap when asked). `Err` says how they differ.
fn compare(path: &Path, planted: bool) -> Result<(), String> {
    let (direct_report, direct_hash) = run(path, Driver::Direct, false);
    let (tasks_report, tasks_hash) = run(path, Driver::Tasks, planted);
    if direct_hash != tasks_hash {
        return Err(format!("{}: trace hashes differ: {direct_hash:x} vs {tasks_hash:x}", path.display()));
    }
    if direct_report != tasks_report {
        return Err(format!("{}: reports differ:\n{direct_report}\n---\n{tasks_report}", path.display()));
    }
    Ok(())
}

#[test]
fn every_scenario_file_gives_the_same_trace_and_report_under_both_drivers() {
    let files = scenario_files();
    assert!(files.len() > 100, "the scenario files are found: {}", files.len());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get()).min(4);
    let failures: Vec<String> = std::thread::scope(|scope| {
        let chunks: Vec<Vec<PathBuf>> =
            (0..workers).map(|w| files.iter().skip(w).step_by(workers).cloned().collect()).collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                scope.spawn(move || chunk.iter().filter_map(|p| compare(p, false).err()).collect::<Vec<_>>())
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    assert!(failures.is_empty(), "{} file(s) differ:\n{}", failures.len(), failures.join("\n"));
}

/// A driver that takes the second of two same-instant messages first makes the check fail,
/// on a scenario whose run has such pairs (a broker crash, an ISR shrink, a restart).
#[test]
fn the_check_fails_when_a_driver_swaps_a_same_instant_pair() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/seed-example.toml");
    assert_eq!(compare(&path, false), Ok(()), "unplanted, the drivers agree");
    let planted = compare(&path, true);
    assert!(planted.is_err(), "the planted swap goes unnoticed");
    assert!(planted.unwrap_err().contains("trace hashes differ"));
}

/// Commands a random schedule draws from: processes, links, freezes, configs, load.
const COMMANDS: &[&str] = &[
    "crash 1",
    "restart 1",
    "crash 2",
    "restart 2",
    "shutdown 0",
    "restart 0",
    "bounce 1",
    "power-loss 2",
    "cut 0 1",
    "heal 0 1",
    "isolate 2",
    "heal-all",
    "hold 1 controller",
    "release 1 controller",
    "delay 0 2 40",
    "freeze 0 1500",
    "freeze 1",
    "thaw 1",
    "freeze controller 3000",
    "slow-disk 1 200",
    "set producer acks=1",
    "set producer acks=all",
    "set producer rate=2000",
    "set min.insync.replicas=3",
    "elect-preferred",
    "roll",
    "add-consumer test_repli group=g",
];

/// Runs `steps` (µs after the previous step, command) on a new default cluster under
/// `driver`; the trace hash and the applied commands.
fn schedule(seed: u64, steps: &[(u64, usize)], driver: Driver) -> (u64, Vec<String>, usize) {
    let mut sim = Sim::with_driver(ClusterSpec::default_run(seed), driver).unwrap();
    let mut t = SimTime::ZERO;
    for &(gap, command) in steps {
        t = t.plus_micros(gap);
        sim.advance_to_time(t);
        let _ = sim.apply(&Command::parse(COMMANDS[command]).unwrap());
    }
    sim.advance_to_time(t.plus_micros(5_000_000));
    let applied = sim.commands().iter().map(ToString::to_string).collect();
    (sim.trace_hash(), applied, sim.snapshot().partitions.len())
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 10, ..Default::default() })]

    /// Any schedule of commands at any microseconds gives the same trace under both drivers.
    #[test]
    fn random_command_schedules_give_the_same_trace_under_both_drivers(
        seed in 0u64..1_000,
        steps in proptest::collection::vec((1u64..3_000_000, 0..COMMANDS.len()), 1..12),
    ) {
        let direct = schedule(seed, &steps, Driver::Direct);
        let tasks = schedule(seed, &steps, Driver::Tasks);
        proptest::prop_assert_eq!(direct, tasks);
    }
}

/// What a fork's equality is checked on: the trace hash, the applied commands, and the
/// snapshot's partitions and brokers as they print.
fn state(sim: &Sim) -> (u64, Vec<String>, String, String) {
    let s = sim.snapshot();
    let commands = sim.commands().iter().map(ToString::to_string).collect();
    (sim.trace_hash(), commands, format!("{:?}", s.partitions), format!("{:?}", s.brokers))
}

fn at(sim: &mut Sim, us: u64, command: &str) {
    sim.advance_to_time(SimTime::from_micros(us));
    sim.apply(&Command::parse(command).unwrap()).unwrap();
}

/// A fork taken mid-run (messages in flight, a broker down, a roll under way) and run on
/// with the same commands gives the same trace and state as the original, under either
/// driver; and both equal a run that was never forked.
#[test]
fn a_fork_continues_exactly_as_the_original() {
    for driver in [Driver::Direct, Driver::Tasks] {
        let start = |sim: &mut Sim| {
            at(sim, 2_000_000, "crash 2");
            at(sim, 4_000_000, "add-consumer test_repli group=g");
            at(sim, 6_000_000, "restart 2");
            sim.advance_to_time(SimTime::from_micros(9_000_333));
        };
        let go_on = |sim: &mut Sim| {
            at(sim, 10_000_000, "roll");
            at(sim, 15_000_500, "freeze 1 2000");
            at(sim, 20_000_000, "set producer acks=1");
            sim.advance_to_time(SimTime::from_micros(40_000_000));
        };
        let mut original = Sim::with_driver(ClusterSpec::default_run(7), driver).unwrap();
        start(&mut original);
        let mut fork = original.fork().unwrap();
        assert_eq!(fork.driver(), driver);
        assert_eq!(state(&fork), state(&original), "{driver:?}: a fork starts equal");
        go_on(&mut original);
        go_on(&mut fork);
        assert_eq!(state(&fork), state(&original), "{driver:?}: and goes on equal");
        let mut straight = Sim::with_driver(ClusterSpec::default_run(7), driver).unwrap();
        start(&mut straight);
        go_on(&mut straight);
        assert_eq!(state(&straight), state(&original), "{driver:?}: forking does not disturb the original");
    }
}

/// A fork that diverges (a crash in the fork only) changes nothing in the original.
#[test]
fn a_fork_diverges_without_touching_the_original() {
    let mut original = Sim::new(ClusterSpec::default_run(11)).unwrap();
    original.advance_to(5_000);
    let before = state(&original);
    let mut fork = original.fork().unwrap();
    at(&mut fork, 5_000_100, "crash 0");
    fork.advance_to(30_000);
    assert_eq!(state(&original), before, "the original has not moved");
    original.advance_to(30_000);
    let mut straight = Sim::new(ClusterSpec::default_run(11)).unwrap();
    straight.advance_to(30_000);
    assert_eq!(state(&original), state(&straight), "the original runs as if never forked");
    assert_ne!(state(&fork).0, state(&original).0, "the fork went its own way");
    let down = |sim: &Sim| {
        sim.snapshot()
            .brokers
            .iter()
            .any(|b| b.id == 0 && !matches!(b.status, isrlab::cluster::snapshot::BrokerStatus::Up))
    };
    assert!(down(&fork) && !down(&original), "broker 0 is down in the fork only");
}
