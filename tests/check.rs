//! `isrlab check` in CI: at least 500 seeds of the safe row break no invariant, a small
//! unsafe set finds loss, and every file of the corpus (`tests/check-corpus/`, shrunk
//! schedules `isrlab check` found) still fails `isrlab run` on its `[[expect]]`: the anomaly
//! it shows is still there. More seeds: `ISRLAB_CHECK_SEEDS=5000 cargo test --release --test check`.

use isrlab::check::Check;
use isrlab::check::cluster::Base;
use isrlab::check::invariants::Invariant;
use isrlab::check::parallel;
use isrlab::check::schedule::FaultKind;
use isrlab::check::summary::Summary;
use isrlab::cli::{Setting, TopicArg};

fn set(key: &str, value: &str) -> Setting {
    Setting { key: key.into(), value: value.into() }
}

/// A small cluster (3 brokers, one topic of 2 partitions, RF 3, the default load) under
/// `sets`, faults for 8 s, then 12 s to heal (the brokers restart 10 s after the heal): short
/// runs, so many seeds fit in CI.
fn check(sets: &[Setting], faults: Vec<FaultKind>) -> Check {
    let topic = TopicArg { name: "t".into(), partitions: 2, replication_factor: 3 };
    let base = Base::from_flags(None, &[topic], None, sets).unwrap();
    let mut check = Check::new(base, 8_000, faults).unwrap();
    check.settle = 12_000;
    check
}

fn seeds() -> u64 {
    std::env::var("ISRLAB_CHECK_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(500)
}

/// The safe row (acks=all, min.insync.replicas=2, unclean election off, no power loss): no
/// seed breaks any invariant, and the runs did reach the dangerous states.
#[test]
fn the_safe_row_breaks_nothing_in_500_seeds() {
    let check = check(&[set("acks", "all"), set("min.insync.replicas", "2")], FaultKind::default_mix());
    assert_eq!(check.unsafe_because, None);
    let runs = parallel::run_seeds(&check, 0, seeds(), parallel::cores(), &|_| {});
    let summary = Summary::of(&check, &runs);
    assert!(summary.failing.is_empty(), "{}", summary.render(&check, 0.0));
    assert!(summary.acked > 0);
    assert!(!summary.reached.is_empty(), "{}", summary.render(&check, 0.0));
}

/// Unsafe rows find loss in a few dozen seeds: acks=1 with unclean election; acks=all with
/// min ISR 2 and power loss in the mix (page caches lost, Kafka without ELR or
/// flush.messages=1).
#[test]
fn unsafe_rows_find_loss() {
    let rows = [
        (
            vec![
                set("acks", "1"),
                set("enable.idempotence", "false"),
                set("unclean.leader.election.enable", "true"),
            ],
            FaultKind::default_mix(),
        ),
        (
            vec![set("acks", "all"), set("min.insync.replicas", "2")],
            vec![FaultKind::PowerLoss, FaultKind::Crash, FaultKind::Cut],
        ),
    ];
    for (sets, faults) in rows {
        let check = check(&sets, faults);
        assert!(check.unsafe_because.is_some());
        let runs = parallel::run_seeds(&check, 0, 60, parallel::cores(), &|_| {});
        let lost = runs.iter().filter(|r| r.outcome.broke(Invariant::LostWrite)).count();
        assert!(lost > 0, "{:?}: no loss in 60 seeds", check.unsafe_because);
    }
}

/// Every corpus file fails `isrlab run` (its anomaly reproduces) and loads in the dashboard's
/// start-up path.
#[test]
fn the_corpus_still_reproduces() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/check-corpus");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert!(!files.is_empty());
    for path in files.iter().filter(|p| p.extension().is_some_and(|e| e == "toml")) {
        let scenario = isrlab::scenario::load(path).unwrap();
        let mut report = Vec::new();
        let summary = isrlab::scenario::runner::run(&scenario, &mut report).unwrap();
        assert!(
            summary.failed >= 1,
            "{} no longer fails:\n{}",
            path.display(),
            String::from_utf8_lossy(&report)
        );
    }
}
