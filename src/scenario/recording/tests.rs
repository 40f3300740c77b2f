use super::*;
use crate::cluster::spec::TopicSpec;
use crate::config::TopicConfig;
use crate::sim::events::{ClusterEvent, EventKind};
use std::sync::Arc;

fn applied(at_us: u64, line: &str) -> AppliedCommand {
    AppliedCommand { at: SimTime::from_micros(at_us), command: Command::parse(line).unwrap() }
}

/// A snapshot at `now_us` whose run applied `commands` and logged `events` (all of them in the
/// recent window).
fn snap(now_us: u64, commands: &[AppliedCommand], events: &[ClusterEvent]) -> Snapshot {
    Snapshot {
        now_us: SimTime::from_micros(now_us),
        now: now_us / 1000,
        commands: commands.to_vec().into(),
        recent_events: Arc::from(events.to_vec()),
        event_count: events.len() as u64,
        ..Default::default()
    }
}

fn crashed(at_us: u64, broker: i32) -> ClusterEvent {
    ClusterEvent { at: SimTime::from_micros(at_us), kind: EventKind::BrokerCrashed { broker } }
}

/// What the flags `--brokers`, `--topic`, `--placement` and `--set` make of the default run
/// (`Cli::cluster_spec`, which this layer may not use), and the recording's origin.
fn flags(args: &[&str]) -> (Origin, ClusterSpec) {
    let mut spec = ClusterSpec::default_run(7);
    let mut sets = Vec::new();
    let mut placement = Placement::Kafka;
    let mut topics = Vec::new();
    for pair in args.chunks(2) {
        match pair {
            ["--seed", n] => spec.seed = n.parse().unwrap(),
            ["--brokers", n] => spec.brokers = (0..n.parse::<i32>().unwrap()).collect(),
            ["--placement", "seed"] => placement = Placement::Seed,
            ["--topic", t] => {
                let parts: Vec<&str> = t.split(':').collect();
                topics.push(TopicSpec {
                    name: parts[0].into(),
                    partitions: parts[1].parse().unwrap(),
                    replication_factor: parts[2].parse().unwrap(),
                    placement: Placement::Kafka,
                    config: TopicConfig::default(),
                });
            }
            ["--set", kv] => {
                let (k, v) = kv.split_once('=').unwrap();
                sets.push((k.to_string(), v.to_string()));
            }
            other => panic!("not a flag here: {other:?}"),
        }
    }
    if !topics.is_empty() {
        spec.producers[0].topic = topics[0].name.clone();
        spec.topics = topics;
    }
    spec.topics.iter_mut().for_each(|t| t.placement = placement.clone());
    for (k, v) in &sets {
        crate::scenario::checks::apply_setting(&mut spec, k, v).unwrap();
    }
    (Origin::Flags { sets }, spec)
}

#[test]
fn a_session_from_the_flags_reads_back_as_the_same_cluster_and_commands() {
    let cases: &[&[&str]] = &[
        &["--seed", "42"],
        &["--seed", "3", "--set", "acks=1", "--set", "min.insync.replicas=2", "--set", "net.latency.ms=2"],
        &["--brokers", "5", "--topic", "orders:3:2", "--topic", "audit:1:5", "--placement", "seed"],
        &["--set", "rate=500", "--set", "unclean.leader.election.enable=true"],
    ];
    for args in cases {
        let (origin, spec) = flags(args);
        let mut rec = Recording::new(origin, spec.clone());
        let commands = [applied(1_234_567, "crash 1"), applied(9_000_001, "set producer acks=0")];
        rec.observe(&snap(9_500_000, &commands, &[crashed(1_234_567, 1)]));
        assert_eq!(rec.steps().len(), 2, "{args:?}");
        let text = rec.checked(SimTime::from_micros(12_000_000)).unwrap_or_else(|e| panic!("{args:?}: {e}"));
        let scenario = parse("r", &text).unwrap();
        assert_eq!(scenario.spec, spec, "{args:?}\n{text}");
        assert_eq!(scenario.end, SimTime::from_ms(12_000));
        let at: Vec<u64> = scenario.timeline.iter().map(|a| a.at.as_micros()).collect();
        assert_eq!(at, [1_234_567, 9_000_001], "exact to the microsecond");
        assert!(
            text.contains("time = \"1.234567s\"\ndo = \"crash 1\"\n# 00:00:01.234.567 broker 1 crashed"),
            "{text}"
        );
    }
}

#[test]
fn each_step_carries_its_events_and_counts_the_rest() {
    let (origin, spec) = flags(&[]);
    let mut rec = Recording::new(origin, spec);
    let commands = [applied(1_000_000, "crash 0"), applied(5_000_000, "restart 0")];
    let mut events: Vec<ClusterEvent> = (0..20).map(|i| crashed(1_000_000 + i, 1)).collect();
    events.push(crashed(500_000, 2));
    events.sort_by_key(|e| e.at);
    events.push(crashed(6_000_000, 2));
    rec.observe(&snap(7_000_000, &commands, &events));
    let steps = rec.steps();
    assert_eq!(steps[0].events.len(), EVENTS_PER_STEP);
    assert_eq!(steps[0].more_events, 20 - EVENTS_PER_STEP as u64);
    assert_eq!(steps[1].events, ["00:00:06.0 broker 2 crashed (its log stays on disk)"]);
    let text = rec.render(SimTime::from_ms(8_000));
    assert!(text.contains(&format!("# … and {} more events", 20 - EVENTS_PER_STEP)), "{text}");
    // The same snapshot again adds nothing.
    rec.observe(&snap(7_000_000, &commands, &events));
    assert_eq!(rec.steps()[1].events.len(), 1);
}

#[test]
fn a_restarted_run_starts_the_recording_again() {
    let (origin, spec) = flags(&[]);
    let mut rec = Recording::new(origin, spec);
    rec.observe(&snap(2_000_000, &[applied(1_000_000, "crash 0")], &[]));
    assert!(rec.take_changed());
    assert!(!rec.take_changed());
    rec.observe(&snap(0, &[], &[]));
    assert!(rec.steps().is_empty());
    assert!(rec.take_changed());
}

#[test]
fn a_session_from_a_file_keeps_its_text_and_seed_and_adds_only_the_users_commands() {
    let path = "tests/scenarios/seed-example.toml";
    let text = std::fs::read_to_string(path).unwrap();
    let mut scenario = crate::scenario::load(Path::new(path)).unwrap();
    scenario.spec.seed = 99;
    let scheduled = scenario.commands();
    let (first_at, first) = scheduled[0].clone();
    let origin = Origin::File { label: path.into(), text, scheduled };
    let mut rec = Recording::new(origin, scenario.spec.clone());
    let commands =
        [AppliedCommand { at: first_at, command: first }, applied(1_000_001, "set producer acks=1")];
    rec.observe(&snap(2_000_000, &commands, &[]));
    assert_eq!(rec.steps().len(), 1, "the file's own command is not the user's");
    let out = rec.checked(SimTime::from_ms(2_000)).unwrap();
    let back = parse("r", &out).unwrap();
    assert_eq!(back.seed, Some(99));
    assert_eq!(back.end, scenario.end, "the file's end stays");
    assert_eq!(back.commands().len(), scenario.commands().len() + 1);
    assert_eq!(back.expectations.len(), scenario.expectations.len());
}

#[test]
fn a_recording_that_would_not_start_the_same_cluster_is_refused() {
    let path = "tests/scenarios/seed-example.toml";
    let text = std::fs::read_to_string(path).unwrap();
    let mut scenario = crate::scenario::load(Path::new(path)).unwrap();
    crate::scenario::checks::apply_setting(&mut scenario.spec, "acks", "0").unwrap();
    let origin = Origin::File { label: path.into(), text, scheduled: scenario.commands() };
    let rec = Recording::new(origin, scenario.spec);
    let err = rec.checked(SimTime::from_ms(2_000)).unwrap_err();
    assert!(err.contains("--set are not in the file's text"), "{err}");
}

#[test]
fn the_seed_line_is_replaced_or_added() {
    assert_eq!(
        with_seed("name = \"x\"\nseed = 1\n[cluster]\nseed = 3\n", 5),
        "name = \"x\"\nseed = 5\n[cluster]\nseed = 3\n"
    );
    assert_eq!(with_seed("name = \"x\"\n[cluster]\n", 5), "seed = 5\nname = \"x\"\n[cluster]\n");
    assert_eq!(time_text(SimTime::from_micros(61_000_250)), "61.000250s");
}

#[test]
fn writes_replace_the_file_whole() {
    let dir = std::env::temp_dir().join(format!("isrlab-recording-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("session.toml");
    write_atomically(&path, "one").unwrap();
    write_atomically(&path, "two").unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, [std::ffi::OsString::from("session.toml")], "no temporary file left");
    assert!(write_atomically(&dir.join("no-such-dir").join("x.toml"), "x").is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}
