//! The `isrlab` binary's handling of bad input: clear messages and the documented exit codes.
//! None of these needs the simulation runtime (they fail before a cluster starts).

use std::process::{Command, Output};

fn isrlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_isrlab")).args(args).output().expect("the binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn an_invalid_scenario_file_exits_2_with_its_location() {
    let o = isrlab(&["run", "tests/invalid/bad-command.toml"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with("tests/invalid/bad-command.toml:9:6: invalid command: unknown command `kill`")
    );
}

#[test]
fn a_missing_scenario_file_exits_2() {
    let o = isrlab(&["run", "no-such-file.toml"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with("no-such-file.toml: cannot read: "), "{}", stderr(&o));
}

#[test]
fn a_replication_factor_above_the_broker_count_prints_kafkas_message() {
    let o = isrlab(&["describe", "--brokers", "2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with(
            "error: INVALID_REPLICATION_FACTOR: Unable to replicate the partition 3 time(s): The target replication factor of 3 cannot be reached because only 2 broker(s) are registered."
        ),
        "{}",
        stderr(&o)
    );
    // Issue 9: Kafka's line, then one hint line (and no backtrace).
    let err = stderr(&o);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "Kafka's line and the hint, no backtrace: {lines:?}");
    assert!(
        lines[1].starts_with(
            "  hint: topic test_repli has replication factor 3; pass --topic NAME:PARTITIONS:RF with RF ≤ 2"
        ),
        "{lines:?}"
    );
}

#[test]
fn an_unknown_property_names_close_matches() {
    let o = isrlab(&["describe", "--set", "min.insync.replica=2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("did you mean `min.insync.replicas`"), "{}", stderr(&o));
}

#[test]
fn cluster_flags_with_a_scenario_are_refused() {
    let o = isrlab(&["run", "tests/scenarios/seed-example.toml", "--brokers", "5"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("a scenario file defines its own"), "{}", stderr(&o));
}

#[test]
fn a_negative_describe_time_gets_the_duration_error_not_a_flag_error() {
    let out = isrlab(&["describe", "--at", "-1s"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("`-1s` is negative"), "{err}");
}

#[test]
fn a_negative_speed_or_seed_says_what_is_allowed() {
    let o = isrlab(&["describe", "--speed", "-1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("`-1` is not a speed from 0.01 to 100"), "{}", stderr(&o));
    let o = isrlab(&["--seed", "-5"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("`-5` is not a seed: give a whole number from 0 to"), "{}", stderr(&o));
}

/// Without a terminal, the dashboard still reports a mistake in the flags or the scenario
/// file first (stdin here is not a terminal).
#[test]
fn without_a_terminal_the_real_mistake_is_reported_first() {
    let o = isrlab(&["--topic", "foo:3:5"]);
    assert!(stderr(&o).contains("INVALID_REPLICATION_FACTOR"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("needs a terminal"), "{}", stderr(&o));
    let o = isrlab(&["--scenario", "no-such-file.toml"]);
    assert!(stderr(&o).contains("no-such-file.toml: cannot read"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("needs a terminal"), "{}", stderr(&o));
}
