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
    let mut pacer = Pacer::new(snap.now);
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
