//! The scenario format without the runtime: every shipped file loads, the default run file
//! matches the built-in default cluster, and invalid files are reported at FILE:LINE:COLUMN.

use isrlab::cluster::spec::{ClusterSpec, Placement};
use isrlab::scenario::{self, LoadError};
use std::path::{Path, PathBuf};

mod support;
use support::files::toml_files;

#[test]
fn every_shipped_scenario_loads() {
    let files = toml_files("tests/scenarios");
    assert!(files.len() >= 6, "expected S2, S3, S4, S5, S8 and the seed example");
    for file in files.iter().map(PathBuf::as_path).chain([Path::new("assets/default.toml")]) {
        let s = scenario::load(file).unwrap_or_else(|e| panic!("{e}"));
        assert!(!s.expectations.is_empty(), "{}: no expectations", file.display());
    }
}

#[test]
fn the_default_asset_is_the_default_run() {
    let s = scenario::load(Path::new("assets/default.toml")).unwrap();
    assert_eq!(s.seed, None, "the default run draws a random seed");
    assert_eq!(s.spec, ClusterSpec::default_run(0));
}

#[test]
fn the_seed_example_places_replicas_as_written() {
    let s = scenario::load(Path::new("tests/scenarios/seed-example.toml")).unwrap();
    let expected =
        vec![vec![0, 1, 2], vec![1, 2, 0], vec![2, 0, 1], vec![0, 2, 1], vec![1, 0, 2], vec![2, 1, 0]];
    assert_eq!(s.spec.topics[0].placement, Placement::Explicit(expected));
    assert_eq!(s.timeline.len(), 2);
    assert_eq!(s.end, isrlab::sim::SimTime::from_ms(90_000));
}

fn invalid(name: &str) -> String {
    let path = format!("tests/invalid/{name}");
    match scenario::load(Path::new(&path)) {
        Err(e @ LoadError::Invalid { .. }) => e.to_string(),
        other => panic!("{path}: expected an invalid-file error, got {other:?}"),
    }
}

#[test]
fn a_bad_duration_points_at_the_time() {
    assert_eq!(
        invalid("bad-duration.toml"),
        "tests/invalid/bad-duration.toml:8:8: `10 seconds` is not a duration; write it like `1500ms`, `30s`, `2m`, `250us`, `1.2505s` or a bare number of milliseconds"
    );
}

#[test]
fn times_isrlab_cannot_keep_point_at_the_time() {
    assert_eq!(
        invalid("nanosecond-time.toml"),
        "tests/invalid/nanosecond-time.toml:8:8: `500ns` is in nanoseconds; sim time counts whole microseconds (`us`)"
    );
    assert_eq!(
        invalid("sub-microsecond-time.toml"),
        "tests/invalid/sub-microsecond-time.toml:8:8: `1.0000005s` is finer than a microsecond, sim time's resolution"
    );
    assert_eq!(
        invalid("negative-time.toml"),
        "tests/invalid/negative-time.toml:8:8: a time cannot be negative; sim time starts at 0"
    );
}

#[test]
fn an_unknown_property_names_close_matches() {
    assert_eq!(
        invalid("unknown-property.toml"),
        "tests/invalid/unknown-property.toml:7:1: unknown property `replica.lag.time.max`; did you mean `replica.lag.time.max.ms` or `replica.lag.max.messages` or `replica.fetch.wait.max.ms`?"
    );
}

#[test]
fn a_bad_command_points_at_do() {
    assert_eq!(
        invalid("bad-command.toml"),
        "tests/invalid/bad-command.toml:9:6: invalid command: unknown command `kill`; commands: crash B | shutdown B | restart B | set KEY=VALUE | set topic T KEY=VALUE | set producer KEY=VALUE | set producer P KEY=VALUE | set link A B net.KEY=VALUE | set broker B KEY=VALUE | produce T N [key=K] | restart-producer P | add-consumer T[,T…] [group=G] [KEY=VALUE…] | close-consumer consumer-C | pause-fetch B | resume-fetch B | create-topic T P RF | roll [--no-wait] | cut A B | cut-oneway A B | heal A B | isolate B | heal-all | delay A B MS | loss A B PERCENT | hold A B | release A B | freeze N [MS] | thaw N | bounce B | power-loss B [B…] | slow-disk B MS | elect-preferred [T | T-P | --topic T [--partition P]] | elect-unclean T | T-P | --topic T [--partition P] | reassign T-P R,R,R [--throttle MB/s] | reassign T-P --cancel | reassign --verify [T-P] | add-partitions T N | delete-topic T"
    );
}

#[test]
fn an_unknown_field_lists_the_known_ones() {
    assert_eq!(
        invalid("unknown-field.toml"),
        "tests/invalid/unknown-field.toml:15:1: unknown field `leadr`, expected one of `time`, `partition`, `leader`, `isr`, `replicas`, `adding`, `removing`, `elr`, `last_known_elr`, `leader_epoch`, `partition_epoch`, `hw`, `leo`, `log_start`, `fetch_requests`, `isr_shrinks`, `isr_expands`, `leader_recovery_state`, `acked_lost`, `unacked_lost`, `duplicates`, `reordered`, `offline_partitions`, `active_controller`, `controller_epoch`, `under_replicated`, `producer`, `errors`, `sent`, `acked`, `unacked`, `failed`, `lost`, `consumer`, `position`, `lag`, `seen_erased`, `committed`, `rebalances`, `group`, `coordinator`, `members`, `broker`, `state`, `event`"
    );
}

#[test]
fn a_missing_file_is_named() {
    let err = scenario::load(Path::new("tests/invalid/nope.toml")).unwrap_err();
    assert!(matches!(err, LoadError::Read { .. }));
    assert!(err.to_string().starts_with("tests/invalid/nope.toml: cannot read: "), "{err}");
}
