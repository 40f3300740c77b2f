//! Lessons through the real binary and the headless runner: `isrlab lessons` lists every
//! built-in lesson, each one passes `isrlab lesson N --headless` (questions included), a
//! lesson file is played by its path, a wrong stated answer fails the run with exit code 1,
//! and a v2 lesson gives the same trace as the v1 scenario it narrates.

use isrlab::cluster::command::{Answer, Command};
use isrlab::cluster::handle::{Sim, SimError};
use isrlab::cluster::snapshot::Snapshot;
use isrlab::scenario::lessons;
use isrlab::scenario::runner::{self, Driven, EXIT_FAILED, EXIT_INVALID, EXIT_PASSED};
use isrlab::sim::SimTime;
use isrlab::sim::events::ClusterEvent;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::{Command as Process, Output};

mod support;
use support::files::toml_files;

fn isrlab(args: &[&str]) -> Output {
    Process::new(env!("CARGO_BIN_EXE_isrlab"))
        .args(args)
        .env_remove("ISRLAB_LOG")
        .output()
        .expect("isrlab runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn the_list_names_every_built_in_lesson() {
    let o = isrlab(&["lessons"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let text = stdout(&o);
    for lesson in lessons::all() {
        let scenario = lesson.load().unwrap_or_else(|e| panic!("{e}"));
        let row = text
            .lines()
            .find(|l| l.split_whitespace().take(2).eq([lesson.number.to_string().as_str(), lesson.slug]))
            .unwrap_or_else(|| panic!("no row for lesson {} {}:\n{text}", lesson.number, lesson.slug));
        assert!(row.ends_with(&scenario.name), "{row}");
        assert!(text.contains(&format!("teaches: {}", scenario.teaches.unwrap_or_default())), "{text}");
    }
    assert!(text.contains("--headless"), "{text}");
}

/// Every built-in lesson is a v2 lesson with its length, what it teaches and at least two
/// questions, and passes headless through the binary: every expectation holds and the
/// simulation answers every question as the lesson states.
#[test]
fn every_built_in_lesson_passes_headless() {
    let mut numbers = Vec::new();
    for lesson in lessons::all() {
        let scenario = lesson.load().unwrap_or_else(|e| panic!("{e}"));
        let file = lesson.path();
        assert_eq!(scenario.version, 2, "{file}: a lesson is scenario format v2");
        assert!(scenario.minutes.is_some(), "{file}: `minutes` is missing");
        assert!(scenario.teaches.is_some(), "{file}: `teaches` is missing");
        assert!(scenario.questions.len() >= 2, "{file}: a lesson asks at least two questions");
        let o = isrlab(&["lesson", &lesson.number.to_string(), "--headless"]);
        let report = stdout(&o);
        assert_eq!(o.status.code(), Some(i32::from(EXIT_PASSED)), "{file}:\n{report}{}", stderr(&o));
        let answered = report.lines().filter(|l| l.starts_with("✓ at ") && l.contains(" question ")).count();
        assert_eq!(answered, scenario.questions.len(), "{file}: every question is answered:\n{report}");
        assert!(!report.contains('✗'), "{file}:\n{report}");
        numbers.push(lesson.number);
    }
    let mut sorted = numbers.clone();
    sorted.dedup();
    assert_eq!(numbers, sorted, "the table is in number order, each number once");
}

/// A lesson file of one's own plays by its path; headless it reads as the lesson: narration,
/// questions with their choices, the simulation's answers.
#[test]
fn a_lesson_file_runs_headless_by_its_path() {
    let o = isrlab(&["lesson", "tests/v2/seed-example-lesson.toml", "--headless"]);
    let report = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{report}{}", stderr(&o));
    for line in [
        "00:00:10.000 do: crash 2",
        "00:00:10.000 say: Broker 2 **crashes**. The controller does not know yet: it waits for",
        "00:00:12.000 ask 1: Who leads `test_repli-2` once the controller has fenced broker 2?",
        "    c) nobody: the partition is offline",
        "✓ at 00:00:25.0 question 1: the simulation answers a) broker 0 · the lesson states a",
        "00:00:25.000 explain: The controller elects the first live ISR member in replica order: 2, *0*, 1.",
        "✓ at 00:01:00.0 question 3: the simulation answers a) yes, it has caught up · the lesson states a",
    ] {
        assert!(report.lines().any(|l| l == line), "missing {line:?} in:\n{report}");
    }
}

/// A lesson cannot teach a wrong answer: a stated answer the simulation contradicts fails
/// `isrlab run` and `isrlab lesson --headless` with exit code 1, and says which answer is
/// right and why.
#[test]
fn a_wrong_stated_answer_fails_the_run() {
    let files = toml_files("tests/lessons-wrong");
    assert!(!files.is_empty());
    for file in &files {
        let file = file.to_str().unwrap();
        for args in [vec!["run", file], vec!["lesson", file, "--headless"]] {
            let o = isrlab(&args);
            let report = stdout(&o);
            assert_eq!(o.status.code(), Some(i32::from(EXIT_FAILED)), "{args:?}:\n{report}{}", stderr(&o));
            assert!(report.lines().any(|l| l.starts_with("✗ at ") && l.contains(" question ")), "{report}");
        }
    }
    let report = stdout(&isrlab(&["run", "tests/lessons-wrong/wrong-stated-answer.toml"]));
    assert!(
        report.contains(
            "✗ at 00:00:25.0 question 1: the simulation answers a) broker 0 · but the lesson states b) broker 1\n    ✓ a) broker 0\n        ✓ test_repli-2 leader: expected 0, got 0\n"
        ),
        "{report}"
    );
    assert!(report.ends_with(" passed, 1 failed\n"), "{report}");
}

#[test]
fn lesson_mistakes_are_clear_errors() {
    let o = isrlab(&["lesson", "no-such-lesson-name"]);
    assert_eq!(o.status.code(), Some(i32::from(EXIT_INVALID)));
    let err = stderr(&o);
    assert!(err.contains("no-such-lesson-name"), "{err}");
    for lesson in lessons::all() {
        assert!(err.contains(&format!("{:>2}  {}\n", lesson.number, lesson.slug)), "{err}");
    }
    if let Some(first) = lessons::all().first() {
        let typo = format!("{}x", first.slug);
        let err = stderr(&isrlab(&["lesson", &typo, "--headless"]));
        assert!(err.contains(&format!("did you mean `{}`", first.slug)), "{err}");
    }
    let missing = isrlab(&["lesson", "missing.toml", "--headless"]);
    assert_eq!(missing.status.code(), Some(i32::from(EXIT_INVALID)));
    assert!(stderr(&missing).starts_with("missing.toml: cannot read: "), "{}", stderr(&missing));
    let twice = isrlab(&["lesson", "tests/v2/seed-example-lesson.toml", "--scenario", "x.toml"]);
    assert_eq!(twice.status.code(), Some(i32::from(EXIT_INVALID)));
    assert!(stderr(&twice).contains("give the scenario once"), "{}", stderr(&twice));
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("lesson_runs");
    std::fs::create_dir_all(&dir).unwrap();
    let v1 = dir.join("v1-with-say.toml");
    std::fs::write(
        &v1,
        "name = \"x\"\nend = \"5s\"\n[cluster]\nbrokers = 1\n[[at]]\ntime = \"1s\"\nsay = \"hi\"\n",
    )
    .unwrap();
    let o = isrlab(&["run", v1.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(i32::from(EXIT_INVALID)));
    assert_eq!(
        stderr(&o),
        format!(
            "{}:7:7: `say` is scenario format v2; add `version = 2` at the top of the file\n",
            v1.display()
        )
    );
}

/// A [`Sim`] that hashes every event it hands out: the run's trace.
struct Traced {
    sim: Sim,
    hash: DefaultHasher,
    events: usize,
}

impl Driven for Traced {
    fn now(&self) -> SimTime {
        Driven::now(&self.sim)
    }
    fn advance_to(&mut self, t: SimTime) {
        Driven::advance_to(&mut self.sim, t);
    }
    fn apply(&mut self, cmd: &Command) -> Result<Answer, SimError> {
        Driven::apply(&mut self.sim, cmd)
    }
    fn snapshot(&self) -> Snapshot {
        Driven::snapshot(&self.sim)
    }
    fn drain_events(&mut self) -> Vec<ClusterEvent> {
        let events = Driven::drain_events(&mut self.sim);
        for e in &events {
            e.at.as_micros().hash(&mut self.hash);
            e.kind.to_string().hash(&mut self.hash);
        }
        self.events += events.len();
        events
    }
}

/// The trace hash, event count and the whole state at the end of a headless run of `file`.
fn trace(file: &str) -> (u64, usize, String, runner::Summary) {
    let scenario = isrlab::scenario::load(Path::new(file)).unwrap_or_else(|e| panic!("{e}"));
    let mut traced =
        Traced { sim: Sim::new(scenario.spec.clone()).unwrap(), hash: DefaultHasher::new(), events: 0 };
    let mut out = Vec::new();
    let summary = runner::run_on(&mut traced, &scenario, &mut out).unwrap();
    // The whole end state: every replica's LEO and HW, the producers' counts, the ledger.
    let state = format!("{:?}", traced.snapshot());
    (traced.hash.finish(), traced.events, state, summary)
}

/// Narration, pauses, focus and questions never change the simulation: the v2 twin of the
/// seed example (its steps, expectations and seed unchanged, with narration-only steps at
/// other instants) gives the same events at the same microseconds and the same end state.
#[test]
fn a_v1_scenario_and_its_v2_lesson_twin_give_the_same_trace() {
    let (v1_hash, v1_events, v1_state, v1) = trace("tests/scenarios/seed-example.toml");
    let (v2_hash, v2_events, v2_state, v2) = trace("tests/v2/seed-example-lesson.toml");
    let twin = isrlab::scenario::load(Path::new("tests/v2/seed-example-lesson.toml")).unwrap();
    assert!(twin.is_lesson() && twin.questions.len() == 3 && twin.timeline.len() > 2);
    assert!(v1_events > 30, "the run has a real trace ({v1_events} events)");
    assert_eq!((v2_events, v2_hash), (v1_events, v1_hash), "the traces differ");
    assert_eq!(v2_state, v1_state);
    assert_eq!((v1.failed, v2.failed), (0, 0));
    assert_eq!(v2.passed, v1.passed + 3, "the twin's three questions pass too");
}

/// A lesson's answers hold for its own cluster and seed, so `isrlab lesson` refuses every
/// flag that changes the cluster or the run, for a built-in lesson and a lesson file alike,
/// with exit code 2 and how to make a variant; `--scenario FILE` and `run FILE` still take
/// `--seed` and `--set`, and `--speed` is no change to the run.
#[test]
fn lesson_refuses_flags_that_change_the_cluster_or_the_run() {
    let file = "tests/v2/seed-example-lesson.toml";
    let flags: [&[&str]; 5] = [
        &["--seed", "5"],
        &["--set", "acks=1"],
        &["--brokers", "4"],
        &["--topic", "t:3:3"],
        &["--placement", "kafka"],
    ];
    for name in ["6", file] {
        for flag in flags {
            for headless in [true, false] {
                let mut args = vec!["lesson", name];
                args.extend_from_slice(flag);
                if headless {
                    args.push("--headless");
                }
                let o = isrlab(&args);
                assert_eq!(o.status.code(), Some(i32::from(EXIT_INVALID)), "{args:?}");
                let err = stderr(&o);
                assert!(
                    err.contains(&format!("{} cannot be given with a lesson", flag[0])),
                    "{args:?}: {err}"
                );
                assert!(err.contains("its own cluster and seed"), "{err}");
                assert!(err.contains("`isrlab lesson FILE.toml`"), "{err}");
                assert!(o.stdout.is_empty(), "{args:?}: nothing runs");
            }
        }
    }
    let both = stderr(&isrlab(&["lesson", "failover", "--seed", "5", "--set", "acks=1", "--headless"]));
    assert!(both.contains("--seed and --set cannot be given"), "{both}");
    assert!(both.contains("copy assets/lessons/06-failover.toml"), "{both}");
    let own = stderr(&isrlab(&["lesson", file, "--seed", "5", "--headless"]));
    assert!(own.contains(&format!("copy {file} to a file of your own")), "{own}");
    let sped = isrlab(&["lesson", "6", "--speed", "4", "--headless"]);
    assert_eq!(sped.status.code(), Some(i32::from(EXIT_PASSED)), "{}", stderr(&sped));
    let run = isrlab(&["run", file, "--seed", "5", "--set", "acks=1"]);
    assert_ne!(run.status.code(), Some(i32::from(EXIT_INVALID)), "{}", stderr(&run));
}
