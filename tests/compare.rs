//! `isrlab compare`: what-if runs of one scenario, from the same seed and fault timeline.

mod support;

use isrlab::compare::{self, Outcome, measure, parse_vary, runs};
use isrlab::scenario::{Scenario, load};
use std::path::Path;
use support::isrlab;

/// The manual's data-loss story as a scenario: acks=1, the leader crashes while its follower
/// lags, a clean election loses the records only the leader had.
const STORY: &str = "tests/scenarios/fc-15a-acks1-lost-clean-election.toml";

fn story() -> Scenario {
    load(Path::new(env!("CARGO_MANIFEST_DIR")).join(STORY).as_path()).expect("the story loads")
}

fn outcomes(scenario: &Scenario, vary: &[&str]) -> Vec<Outcome> {
    let vary: Vec<_> = vary.iter().map(|v| parse_vary(v).unwrap()).collect();
    let runs = runs(&vary, &[]).unwrap();
    runs.iter().map(|r| measure(scenario, r).unwrap()).collect()
}

/// The same seed and faults: acks=1 loses acknowledged records (the leader acknowledged them
/// alone) and acks=all loses none (they were not acknowledged before the follower had them).
/// Both runs lose the leader the same way and truncate the same tail on its return.
#[test]
fn acks_1_loses_acknowledged_records_and_acks_all_does_not() {
    let scenario = story();
    let [one, all] = &outcomes(&scenario, &["acks=1,all"])[..] else { panic!("two runs") };
    assert!(one.acked_lost > 0, "{one:?}");
    assert_eq!(all.acked_lost, 0, "{all:?}");
    // The same crash in both: the dead leader stays leader until it is fenced.
    assert!(one.leader_down_us > 0 && one.leader_down_us == all.leader_down_us, "{one:?} {all:?}");
    assert!(one.diverged > 0 && all.diverged > 0, "the old leader truncates its tail in both runs");
    assert_eq!(one.seen_erased, None, "the story has no consumer");
    // acks=all waits for the new leader: its worst second is far slower.
    let (l1, la) = (one.latency.unwrap(), all.latency.unwrap());
    assert!(la.p99_ms > l1.p99_ms, "{l1:?} {la:?}");
    assert_ne!(one.trace_hash, all.trace_hash);
    assert!(one.refused.is_empty() && all.refused.is_empty());
}

/// The binary prints one table with both columns, Kafka's words in the headings.
#[test]
fn the_table_sets_availability_against_durability() {
    let out = isrlab(&["compare", STORY, "--vary", "acks=1,all"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let header = text.lines().nth(3).unwrap();
    assert!(header.trim_start().starts_with("acks=1") && header.trim_end().ends_with("acks=all"), "{text}");
    for heading in [
        "availability",
        "records failed (record-error-total)",
        "offline partitions × time (OfflinePartitionsCount)",
        "under min ISR × time (UnderMinIsrPartitionCount)",
        "produce latency p50 (ms)",
        "durability",
        "acknowledged records lost",
        "records consumers read, then lost",
    ] {
        assert!(text.contains(heading), "{heading} missing:\n{text}");
    }
    let lost = text.lines().find(|l| l.trim_start().starts_with("acknowledged records lost")).unwrap();
    let cells: Vec<&str> = lost.split_whitespace().rev().take(2).collect();
    assert_eq!(cells[0], "0", "acks=all loses nothing: {lost}");
    assert_ne!(cells[1], "0", "acks=1 loses records: {lost}");
}

/// Same seed, same numbers: every run is deterministic, and the printed table too.
#[test]
fn the_same_seed_gives_the_same_table() {
    let scenario = story();
    assert_eq!(outcomes(&scenario, &["acks=1,all"]), outcomes(&scenario, &["acks=1,all"]));
    let args = ["compare", STORY, "--vary", "acks=1,all", "--vary", "min.insync.replicas=1,2"];
    let (a, b) = (isrlab(&args), isrlab(&args));
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
    assert_eq!(String::from_utf8_lossy(&a.stdout).lines().nth(3).unwrap().matches("acks=").count(), 4);
}

/// Time without a leader is measured from the events: with unclean election off, the
/// partition whose only in-sync replica died stays offline; with it on, it is led at once
/// by the other replica and loses the records only the dead one had.
#[test]
fn offline_time_is_measured_and_traded_for_loss() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/scenarios/fc-11a-last-isr-member-dies-restart.toml");
    let scenario = load(&file).unwrap();
    let [off, on] = &outcomes(&scenario, &["unclean.leader.election.enable=false,true"])[..] else {
        panic!("two runs")
    };
    assert!(off.offline_us > 0 && off.acked_lost == 0, "{off:?}");
    assert!(on.offline_us < off.offline_us && on.acked_lost > 0, "{on:?}");
}

/// A varied topic property overrides the topic's own value: the story's topic sets
/// min.insync.replicas = 1, and the run with 2 is under min ISR once the follower is gone,
/// where its acks=all produces are refused.
#[test]
fn a_varied_topic_property_wins_over_the_files_override() {
    let scenario = story();
    let [one, two] = &outcomes(&scenario, &["acks=all", "min.insync.replicas=1,2"])[..] else {
        panic!("two runs")
    };
    assert_eq!(one.under_min_isr_us, 0, "{one:?}");
    assert!(two.under_min_isr_us > 0, "{two:?}");
    // Under min ISR the leader refuses acks=all produces with Kafka's error, counted by code.
    assert!(two.errors.get("NOT_ENOUGH_REPLICAS").is_some_and(|n| *n > 0), "{:?}", two.errors);
    assert_eq!(two.error_responses, two.errors.values().sum::<u64>());
}

fn refused(args: &[&str]) -> String {
    let out = isrlab(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {}", String::from_utf8_lossy(&out.stdout));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn bad_input_is_a_clear_error_with_exit_code_2() {
    let err = refused(&["compare", STORY, "--vary", "ack=1,all"]);
    assert!(err.contains("unknown property `ack`; did you mean `acks`?"), "{err}");
    let err = refused(&["compare", STORY, "--vary", "acks=1,2"]);
    assert!(err.contains("expected 0, 1, all or -1"), "{err}");
    let err = refused(&["compare", STORY, "--vary", "acks=1"]);
    assert!(err.contains("at least two runs"), "{err}");
    let err = refused(&["compare", STORY]);
    assert!(err.contains("--vary KEY=V1,V2"), "{err}");
    let err = refused(&["compare", STORY, "--vary", "acks=1,all", "--vary-set", "acks=0"]);
    assert!(err.contains("not both"), "{err}");
    let err = refused(&["compare", STORY, "--vary-set", "acks=1 linger"]);
    assert!(err.contains("`linger` in `acks=1 linger` is not KEY=VALUE"), "{err}");
    let err = refused(&["compare", "assets/lessons/07-acks.toml", "--vary", "acks=1,all"]);
    assert!(err.contains("is a lesson"), "{err}");
    let err = refused(&["compare", "failover", "--vary", "acks=1,all"]);
    assert!(err.contains("is a built-in lesson, not a scenario file"), "{err}");
    let err = refused(&["compare", "no-such-file.toml", "--vary", "acks=1,all"]);
    assert!(err.contains("no-such-file.toml: cannot read"), "{err}");
    let err = refused(&["compare", "tests/invalid/unknown-field.toml", "--vary", "acks=1,all"]);
    assert!(err.contains("unknown-field.toml:"), "{err}");
}

/// A refused step is listed under the table for the run that refused it, not a failure.
#[test]
fn a_refused_step_is_listed_per_run() {
    let scenario = story();
    let mut scenario = scenario.clone();
    let mut restart = scenario.timeline.iter().find(|a| a.command.is_some()).unwrap().clone();
    restart.command = Some(isrlab::cluster::command::Command::parse("restart 2").unwrap());
    scenario.timeline.insert(0, restart);
    let runs = compare::runs(&[parse_vary("acks=1,all").unwrap()], &[]).unwrap();
    let outcome = measure(&scenario, &runs[0]).unwrap();
    assert_eq!(outcome.refused.len(), 1, "{:?}", outcome.refused);
    assert!(
        outcome.refused[0].starts_with("at 00:00:01.0 `restart 2` was refused:"),
        "{:?}",
        outcome.refused
    );
    let table = compare::table(&scenario, &runs, &[outcome.clone(), outcome]);
    assert!(table.contains("acks=1: at 00:00:01.0 `restart 2` was refused:"), "{table}");
}

/// The manual's table is what `compare` prints for the story (the lines up to the notes).
#[test]
fn the_manuals_table_is_what_compare_prints() {
    let manual =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/compare.md")).unwrap();
    let start = manual.find("```text\ncompare \"FC-15a").expect("the manual shows the story's table")
        + "```text\n".len();
    let shown = &manual[start..start + manual[start..].find("```").unwrap()];
    let out = isrlab(&["compare", STORY, "--vary", "acks=1,all"]);
    let printed = String::from_utf8(out.stdout).unwrap();
    let table = printed.split("\n\nlatency:").next().unwrap();
    assert_eq!(
        shown.trim_end(),
        table.trim_end(),
        "docs/src/compare.md shows another table than `isrlab compare {STORY} --vary acks=1,all` prints; paste the printed one"
    );
}
