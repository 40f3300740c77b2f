//! One command vocabulary: a command is validated once, so the command line, a scenario file
//! and the dashboard's palette refuse it with the same words.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use isrlab::cluster::handle::LiveSim;
use isrlab::cluster::spec::ClusterSpec;
use isrlab::scenario;
use isrlab::ui::app::{Model, Msg};
use isrlab::ui::pacer::Pacer;
use isrlab::ui::theme::Theme;
use std::path::Path;
use std::process::Command;

/// Kafka's refusal of a replication factor of 0 (`ReplicationControlManager.createTopic`).
const REFUSAL: &str =
    "INVALID_REPLICATION_FACTOR: Replication factor must be larger than 0, or -1 to use the default value.";

const FILE: &str = "tests/invalid/refused-command.toml";

fn cli_stderr(args: &[&str]) -> (Option<i32>, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_isrlab")).args(args).output().expect("the binary runs");
    (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// Types `line` into the palette of a dashboard model driving a real simulation and presses
/// Enter; returns the status line.
fn palette(line: &str) -> String {
    let live = LiveSim::spawn(ClusterSpec::default_run(42), Vec::new(), None).expect("the cluster starts");
    let mut snap = live.latest();
    let mut model = Model::new(1.0, Theme::new(false), &snap);
    let mut pacer = Pacer::new(snap.now_us);
    let keys = std::iter::once(KeyCode::Char(':'))
        .chain(line.chars().map(KeyCode::Char))
        .chain(std::iter::once(KeyCode::Enter));
    for code in keys {
        let msg = Msg::Key(KeyEvent::new(code, KeyModifiers::NONE));
        isrlab::ui::handle_input(msg, &mut model, &live, &mut pacer, &mut snap);
    }
    model.status.expect("the verdict is on the status line").text
}

#[test]
fn create_topic_with_rf_0_gets_the_same_refusal_from_the_cli_a_file_and_the_palette() {
    let (code, run) = cli_stderr(&["run", FILE]);
    assert_eq!(code, Some(2), "{run}");
    assert_eq!(run.trim_end(), format!("{FILE}:14:6: `create-topic y 1 0`: {REFUSAL}"));

    let loaded = scenario::load(Path::new(FILE)).unwrap_err().to_string();
    assert!(loaded.ends_with(&format!("`create-topic y 1 0`: {REFUSAL}")), "{loaded}");

    let (code, flag) = cli_stderr(&["describe", "--topic", "y:1:0"]);
    assert_eq!((code, flag.trim_end()), (Some(2), &*format!("error: {REFUSAL}")));

    assert_eq!(palette("create-topic y 1 0"), format!("✖ create-topic y 1 0: {REFUSAL}"));
}

#[test]
fn the_palette_and_a_file_name_a_missing_broker_alike() {
    let refusal = "broker 7 does not exist (brokers: 0,1,2)";
    assert_eq!(palette("crash 7"), format!("✖ crash 7: {refusal}"));
    let mut known = scenario::checks::Known::new(&ClusterSpec::default_run(1));
    let cmd = isrlab::cluster::command::Command::parse("crash 7").unwrap();
    assert_eq!(known.check_command(&cmd).unwrap_err(), refusal);
}

fn cmd(line: &str) -> isrlab::cluster::command::Command {
    isrlab::cluster::command::Command::parse(line).unwrap()
}

fn pending(sim: &isrlab::cluster::handle::Sim) -> Vec<Vec<String>> {
    sim.snapshot().brokers.iter().map(|b| b.restart_pending.clone()).collect()
}

#[test]
fn a_static_broker_config_is_stored_and_waits_for_each_brokers_next_start() {
    use isrlab::cluster::handle::Sim;
    let mut sim = Sim::new(ClusterSpec::default_run(3)).unwrap();
    sim.advance_to(1_000);
    let answer = sim.apply(&cmd("set replica.lag.time.max.ms=10000")).unwrap();
    assert!(answer.note.unwrap().starts_with("restart pending on brokers 0,1,2: a static broker config"));
    assert_eq!(sim.snapshot().broker_config.replica_lag_time_max_ms, 10_000, "stored");
    let lag = vec!["replica.lag.time.max.ms".to_string()];
    assert_eq!(pending(&sim), vec![lag.clone(), lag.clone(), lag.clone()]);

    let dynamic = sim.apply(&cmd("set min.insync.replicas=2")).unwrap();
    assert_eq!(dynamic.note, None, "a dynamic config applies at once");

    sim.apply(&cmd("shutdown 1")).unwrap();
    sim.advance_to(10_000);
    sim.apply(&cmd("restart 1")).unwrap();
    assert_eq!(pending(&sim), vec![lag.clone(), vec![], lag.clone()], "broker 1 read it at its start");

    sim.apply(&cmd("set replica.lag.time.max.ms=30000")).unwrap();
    assert_eq!(pending(&sim), vec![vec![], lag.clone(), vec![]], "0 and 2 run with 30000 already");
}

#[test]
fn the_lag_keys_store_the_static_config_and_say_restart_pending() {
    use isrlab::cluster::handle::Sim;
    let sim = Sim::new(ClusterSpec::default_run(42)).unwrap();
    let mut snap = std::sync::Arc::new(sim.snapshot());
    let mut model = Model::new(1.0, Theme::new(false), &snap);
    let mut pacer = Pacer::new(snap.now_us);
    let msg = Msg::Key(KeyEvent::new(KeyCode::Char('L'), KeyModifiers::NONE));
    isrlab::ui::handle_input(msg, &mut model, &sim, &mut pacer, &mut snap);
    let status = model.status.unwrap().text;
    assert!(
        status.starts_with("✔ set replica.lag.time.max.ms=60000: restart pending on brokers 0,1,2"),
        "{status}"
    );
    assert!(status.contains("roll"), "{status}");
    assert_eq!(
        snap.broker_config.replica_lag_time_max_ms, 60_000,
        "the next `L` steps from the stored value"
    );
    assert!(snap.brokers.iter().all(|b| b.restart_pending == ["replica.lag.time.max.ms"]));
}

#[test]
fn roll_is_refused_while_a_broker_is_down_or_a_roll_runs() {
    use isrlab::cluster::handle::Sim;
    let mut sim = Sim::new(ClusterSpec::default_run(5)).unwrap();
    sim.apply(&cmd("crash 2")).unwrap();
    let refusal = sim.apply(&cmd("roll")).unwrap_err().to_string();
    assert_eq!(
        refusal,
        "broker 2 is not running (restart 2 first): a rolling restart starts from a cluster whose brokers all run"
    );
    sim.apply(&cmd("restart 2")).unwrap();
    sim.advance_to(1_000);
    sim.apply(&cmd("roll")).unwrap();
    assert!(sim.snapshot().rolling);
    assert_eq!(sim.apply(&cmd("roll --no-wait")).unwrap_err().to_string(), "a roll is already under way");
    sim.advance_to(30_000);
    assert!(!sim.snapshot().rolling, "done");
    let lines: Vec<String> = sim.commands().iter().map(ToString::to_string).collect();
    assert_eq!(
        lines,
        ["00:00:00.0 crash 2", "00:00:00.0 restart 2", "00:00:01.0 roll"],
        "steps are not commands"
    );
}

/// The brokers' processing times are lab properties of every broker or of one
/// (`set broker B`); a link has none, and a broker has no network property.
#[test]
fn processing_times_are_set_for_every_broker_or_one_and_refused_on_a_link() {
    use isrlab::cluster::handle::Sim;
    let mut sim = Sim::new(ClusterSpec::default_run(3)).unwrap();
    sim.advance_to(1_000);
    sim.apply(&cmd("set broker 1 broker.request.handle.ms=5")).unwrap();
    sim.apply(&cmd("set broker.fetch.process.ms=2")).unwrap();
    let mut refused = |line: &str| sim.apply(&cmd(line)).unwrap_err().to_string();
    assert!(refused("set link 0 1 broker.request.handle.ms=1").contains("set broker B KEY=VALUE"));
    assert!(refused("set broker 1 net.latency.ms=1").contains("cannot be set for a broker"));
    assert!(refused("set broker 7 broker.request.handle.ms=1").contains("7"));
    assert!(refused("set broker.request.handle.ms=-1").contains("a number from 0"));
    sim.advance_to(2_000);
    assert_eq!(sim.snapshot().acked_lost, 0);
}
