//! A live session recorded and replayed: the whole dashboard in process against the real
//! simulation (keys through the event loop's input path, sim time paced frame by frame by the
//! wall clock, as the event loop paces it), with a few random milliseconds of real wall time
//! between keys, so the sim instants the commands land at are whatever the wall clock gives.
//! The recording (`--record FILE`, written as the session runs) must replay headless to the
//! same trace hash, and `isrlab replay FILE --headless` must print what `isrlab run FILE`
//! prints; bad recordings are clear errors with exit code 2.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use isrlab::cli::Cli;
use isrlab::cluster::handle::Sim;
use isrlab::cluster::snapshot::Snapshot;
use isrlab::scenario::recording::{Origin, Recording};
use isrlab::ui::app::{Model, Msg, update};
use isrlab::ui::pacer::Pacer;
use isrlab::ui::theme::Theme;
use isrlab::ui::{Cluster, frame, handle_input, record};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A directory of its own under the system's temporary directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("isrlab-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The dashboard around a real simulation, paced by the wall clock.
struct App {
    sim: Sim,
    model: Model,
    pacer: Pacer,
    snap: Arc<Snapshot>,
    wall: Instant,
}

impl App {
    /// `isrlab ARGS --record FILE` at `speed`× in an 80×24 terminal.
    #[allow(clippy::disallowed_methods)] // the test's wall clock is the point: jitter between keys
    fn start(args: &[&str], record: &Path, speed: f64) -> App {
        let cli =
            <Cli as clap::Parser>::try_parse_from(std::iter::once("isrlab").chain(args.iter().copied()))
                .expect("valid flags");
        let spec = cli.cluster_spec(cli.seed.unwrap_or(1)).expect("a valid cluster");
        let sets = cli.sets.iter().map(|s| (s.key.clone(), s.value.clone())).collect();
        let mut recording = Recording::new(Origin::Flags { sets }, spec.clone());
        recording.autosave = Some(record.to_path_buf());
        let sim = Sim::new(spec).expect("the cluster starts");
        let snap = sim.latest();
        let mut model = Model::new(speed, Theme::new(false), &snap);
        model.recording = Some(recording);
        update(&mut model, Msg::Resize(80, 24), &snap);
        let pacer = Pacer::new(snap.now_us);
        App { sim, model, pacer, snap, wall: Instant::now() }
    }

    /// Sleeps 1 to 7 ms of real time and runs one frame for the wall time that passed.
    #[allow(clippy::disallowed_methods)] // the test's wall clock is the point: jitter between keys
    fn jitter(&mut self) {
        std::thread::sleep(Duration::from_millis(1 + rand::random::<u64>() % 7));
        let now = Instant::now();
        let elapsed = now.saturating_duration_since(self.wall);
        self.wall = now;
        frame(&mut self.model, &self.sim, &mut self.pacer, elapsed, &mut self.snap);
    }

    fn key(&mut self, code: KeyCode) {
        self.jitter();
        let key = Msg::Key(KeyEvent::new(code, KeyModifiers::NONE));
        assert!(!handle_input(key, &mut self.model, &self.sim, &mut self.pacer, &mut self.snap));
    }

    /// Types `keys`, with wall-clock jitter before each.
    fn press(&mut self, keys: &str) {
        for c in keys.chars() {
            self.key(KeyCode::Char(c));
        }
    }

    /// Lets `frames` frames of jittered wall time pass.
    fn wait(&mut self, frames: usize) {
        for _ in 0..frames {
            self.jitter();
        }
    }

    fn status(&self) -> String {
        self.model.status.as_ref().map(|s| s.text.clone()).unwrap_or_default()
    }
}

/// The trace hash of `scenario`'s commands applied at their instants on a fresh sim, run to
/// its end: what a headless replay computes.
fn replayed_hash(scenario: &isrlab::scenario::Scenario) -> (u64, usize) {
    let mut sim = Sim::new(scenario.spec.clone()).expect("the recorded cluster starts");
    let mut applied = 0;
    for action in &scenario.timeline {
        sim.advance_to_time(action.at);
        if let Some(command) = &action.command {
            Sim::apply(&mut sim, command).unwrap_or_else(|e| panic!("`{command}` refused on replay: {e}"));
            applied += 1;
        }
    }
    sim.advance_to_time(scenario.end);
    (sim.trace_hash(), applied)
}

fn isrlab(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_isrlab")).args(args).output().expect("isrlab runs")
}

/// The data-loss story with acks=1, played live with jitter: crash a leader, change acks and
/// the rate, restart, a palette command; the recording written as it ran replays to the same
/// trace hash, and the binary replays it headless exactly as `isrlab run` runs it.
#[test]
fn a_recorded_live_session_replays_to_the_same_trace() {
    let dir = TempDir::new("record-live");
    let file = dir.0.join("session.toml");
    let mut app = App::start(&["--seed", "42", "--set", "acks=1"], &file, 10.0);
    app.wait(10);
    app.press("1x");
    app.wait(8);
    app.press("a+");
    app.wait(5);
    app.press("1r");
    app.wait(6);
    app.key(KeyCode::Char(':'));
    app.press("set producer rate=300");
    app.key(KeyCode::Enter);
    app.wait(6);
    app.press("2s");
    app.wait(12);
    let live_commands: Vec<String> = app.snap.commands.iter().map(|c| c.command.to_string()).collect();
    assert_eq!(
        live_commands,
        [
            "crash 1",
            "set producer acks=all",
            "set producer rate=200",
            "restart 1",
            "set producer rate=300",
            "shutdown 2"
        ],
        "the keys were taken as commands"
    );
    // Written on each command: the file already holds every one of them.
    let written = isrlab::scenario::load(&file).expect("the --record file is a scenario");
    assert_eq!(written.commands().len(), 6);
    // A palette `save FILE` writes the same recording wherever it is asked to, and says where.
    let saved = dir.0.join("saved.toml");
    app.key(KeyCode::Char(':'));
    app.press(&format!("save {}", saved.display()));
    app.key(KeyCode::Enter);
    assert!(
        app.status().starts_with(&format!("✔ recording saved to {} (6 commands, up to ", saved.display())),
        "{}",
        app.status()
    );
    // Leaving the dashboard writes the last version, which ends where the session is now.
    let end = app.sim.now_us();
    assert_eq!(app.snap.now_us, end);
    eprintln!("the session ran to {end:?} of sim time");
    assert_eq!(record::finish(&app.model, &app.snap), Ok(Some(file.clone())));
    let recording = isrlab::scenario::load(&file).expect("the recording loads");
    assert_eq!(recording.end, end);
    assert_eq!(recording.seed, Some(42));
    let instants: Vec<_> = recording.timeline.iter().map(|a| a.at).collect();
    let live: Vec<_> = app.snap.commands.iter().map(|c| c.at).collect();
    assert_eq!(instants, live, "every command at the instant the sim applied it");
    let (hash, applied) = replayed_hash(&recording);
    assert_eq!(applied, 6);
    assert_eq!(hash, app.sim.trace_hash(), "the replay has the live run's trace");
    // The events of each step are in the file as comments.
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("do = \"crash 1\"\n# "), "{text}");
    assert!(text.contains("broker 1 crashed"), "{text}");

    // The binary: `replay --headless` prints what `run` prints, and exits 0 (nothing failed).
    let path = file.to_str().unwrap();
    let replay = isrlab(&["replay", path, "--headless"]);
    let run = isrlab(&["run", path]);
    assert_eq!(replay.status.code(), Some(0), "{}", String::from_utf8_lossy(&replay.stderr));
    assert_eq!(String::from_utf8_lossy(&replay.stdout), String::from_utf8_lossy(&run.stdout));
    let report = String::from_utf8_lossy(&replay.stdout);
    assert!(report.starts_with("seed 42 · scenario \"recorded session, seed 42\""), "{report}");
    assert!(report.contains(" do: crash 1\n"), "{report}");
}

/// A session that restarts from 0 (`R R`) records the new run only.
#[test]
fn a_restart_starts_the_recording_again() {
    let dir = TempDir::new("record-restart");
    let file = dir.0.join("session.toml");
    let mut app = App::start(&["--seed", "7"], &file, 20.0);
    app.wait(4);
    app.press("2x");
    app.wait(4);
    assert_eq!(app.model.recording.as_ref().unwrap().steps().len(), 1);
    // `R R` needs a cluster that restarts itself; a step-by-step `Sim` refuses, so the restart
    // is what the snapshot of a fresh run shows the recording.
    let fresh = Sim::new(isrlab::cluster::spec::ClusterSpec::default_run(7)).unwrap();
    app.snap = fresh.latest();
    update(&mut app.model, Msg::Snapshot, &app.snap);
    record::autosave(&mut app.model, &app.snap);
    assert!(app.model.recording.as_ref().unwrap().steps().is_empty());
    let written = isrlab::scenario::load(&file).expect("the recording of the new run");
    assert!(written.commands().is_empty());
}

/// Bad recordings: a clear error naming the file (and the line), exit code 2, never a panic.
#[test]
fn bad_recordings_are_clear_errors() {
    let dir = TempDir::new("record-bad");
    let missing = dir.0.join("missing.toml");
    let out = isrlab(&["replay", missing.to_str().unwrap(), "--headless"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("missing.toml") && !err.contains("panicked"), "{err}");
    let bad = dir.0.join("bad.toml");
    std::fs::write(&bad, "version = 2\nname = \"r\"\nseed = 1\nend = \"10s\"\n[cluster]\nbrokers = [0, 1, 2]\n[[at]]\ntime = \"1.5s\"\ndo = \"crash 7\"\n").unwrap();
    let out = isrlab(&["replay", bad.to_str().unwrap(), "--headless"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.toml:9:6: `crash 7`: broker 7 does not exist"), "{err}");
    let garbage = dir.0.join("garbage.toml");
    std::fs::write(&garbage, [0xff, 0xfe, b'[', b'[']).unwrap();
    let out = isrlab(&["replay", garbage.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    let good = dir.0.join("good.toml");
    std::fs::write(&good, "version = 2\nname = \"r\"\nseed = 1\nend = \"1s\"\n[cluster]\nbrokers = 1\n")
        .unwrap();
    let out = isrlab(&["replay", good.to_str().unwrap(), "--headless", "--seed", "3"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--seed cannot be given with `isrlab replay`"), "{err}");
    let out = isrlab(&["run", good.to_str().unwrap(), "--record", "x.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--record x.toml records a dashboard session"));
    assert!(!Path::new("x.toml").exists());
}

/// The manual's example recording, with the check a teacher added, passes as a scenario, as
/// a replay and as a lesson, headless.
#[test]
fn the_manuals_recording_passes_headless() {
    let file = "tests/fixtures/recorded-acks1-loss.toml";
    for args in [&["run", file][..], &["replay", file, "--headless"], &["lesson", file, "--headless"]] {
        let out = isrlab(args);
        let report = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {report}{}", String::from_utf8_lossy(&out.stderr));
        assert!(report.ends_with("1 passed, 0 failed\n"), "{args:?}: {report}");
    }
}

/// A session opened from a scenario file (`--scenario FILE --record FILE`) is recorded as the
/// file's text plus the commands given live, which passes `isrlab run` as the file does; with
/// `--set` (not in the file's text) `--record` is refused before the screen opens.
#[test]
fn a_scenario_session_records_as_its_file_plus_the_live_commands() {
    use isrlab::cluster::handle::ScheduledSim;
    let dir = TempDir::new("record-scenario");
    let file = dir.0.join("s3.toml");
    let scenario_file = "tests/scenarios/s3-acks1-loss.toml";
    let args = ["isrlab", "--scenario", scenario_file, "--record", file.to_str().unwrap()];
    let cli = <Cli as clap::Parser>::try_parse_from(args).unwrap();
    let ready = isrlab::launch::dashboard(&cli, None, 5).expect("the session starts");
    let start = ready.start;
    let mut recording = start.recording;
    assert_eq!(recording.autosave.as_deref(), Some(file.as_path()));
    let info = start.scenario.clone();
    let commands = start.timeline.iter().filter_map(|a| a.command.clone().map(|c| (a.at, c))).collect();
    let sim = ScheduledSim::new(start.spec, commands, info.clone()).unwrap();
    let end = info.unwrap().end;
    for (t, line) in [
        (2_500_000, Some("set producer rate=0")),
        (30_000_250, Some("set producer 0 rate=0")),
        (end.as_micros(), None),
    ] {
        Cluster::advance_to(&sim, isrlab::sim::SimTime::from_micros(t));
        if let Some(line) = line {
            Cluster::apply(&sim, isrlab::cluster::command::Command::parse(line).unwrap()).unwrap();
        }
        recording.observe(&sim.latest());
    }
    assert_eq!(recording.steps().len(), 2, "only the live commands: {:?}", recording.steps());
    recording.save(&file, sim.now_us()).expect("the recording is written");
    let out = isrlab(&["run", file.to_str().unwrap()]);
    let report = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{report}");
    assert!(report.starts_with("seed 3 · scenario \"S3: acks=1"), "the file's own seed: {report}");
    assert!(report.contains(" do: set producer 0 rate=0\n"), "{report}");
    let with_set = ["isrlab", "--scenario", scenario_file, "--set", "acks=all", "--record", "x.toml"];
    let cli = <Cli as clap::Parser>::try_parse_from(with_set).unwrap();
    let err = isrlab::launch::dashboard(&cli, None, 5).unwrap_err().to_string();
    assert!(err.starts_with("--record x.toml: the session's cluster is not the one"), "{err}");
}
