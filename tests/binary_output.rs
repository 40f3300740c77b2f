//! The real binary's output paths: the developer log (`--log FILE`, `ISRLAB_LOG`), headless
//! output into a pipe whose reader stops early, and the dashboard started without a terminal.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, ExitStatus, Stdio};

fn isrlab() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_isrlab"));
    c.env_remove("ISRLAB_LOG");
    c
}

/// A fresh directory for one test's files.
fn scratch(test: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("binary_output-{test}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Broker 2 leads t-0 and crashes at 5 s: the controller fences it at about 14 s and elects 0.
const CRASH: &str = r#"
name = "leader crash"
seed = 7
end = "30s"
[cluster]
brokers = 3
[[topic]]
name = "t"
partitions = 1
replication_factor = 3
assignment = [[2, 0, 1]]
[[at]]
time = "5s"
do = "crash 2"
[[expect]]
time = "end"
partition = "t-0"
leader = 0
"#;

fn write_scenario(dir: &std::path::Path, text: &str) -> PathBuf {
    let file = dir.join("scenario.toml");
    std::fs::write(&file, text).expect("write scenario");
    file
}

#[test]
fn the_log_of_a_crash_shows_the_fencing_and_the_election_with_sim_time() {
    let dir = scratch("log-flag");
    let scenario = write_scenario(&dir, CRASH);
    let log = dir.join("isrlab.log");
    let o = isrlab().arg("run").arg(&scenario).arg("--log").arg(&log).output().expect("runs");
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stdout));
    assert!(o.stderr.is_empty(), "nothing on the terminal: {}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&log).expect("the log file exists");
    let line = |needle: &str| text.lines().find(|l| l.contains(needle)).map(str::to_string);
    let fenced = line("broker 2 fenced").unwrap_or_else(|| panic!("no fencing in the log:\n{text}"));
    assert!(fenced.starts_with(" WARN"), "{fenced}");
    // Broker 2's last heartbeat was at most 2 s before its crash at 5 s; the session is 9 s.
    let t: u64 = fenced.rsplit_once(" t=").and_then(|(_, t)| t.parse().ok()).expect("a sim time field");
    assert!((12_000..=14_100).contains(&t), "{fenced}");
    let elected = line("t-0 leader 2 → 0").unwrap_or_else(|| panic!("no election in the log:\n{text}"));
    assert!(elected.starts_with(" INFO") && elected.contains("clean election"), "{elected}");
    assert!(line("crash 2").is_some_and(|l| l.contains("t=5000")), "the command is logged:\n{text}");
    assert!(!text.contains("DEBUG"), "the default filter is info");
}

#[test]
fn isrlab_log_alone_writes_to_the_state_directory_at_its_level() {
    let dir = scratch("log-env");
    let scenario = write_scenario(&dir, CRASH);
    let o = isrlab()
        .arg("run")
        .arg(&scenario)
        .env("ISRLAB_LOG", "debug")
        .env("XDG_STATE_HOME", &dir)
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(0));
    let text = std::fs::read_to_string(dir.join("isrlab/isrlab.log")).expect("the default log file");
    assert!(text.lines().any(|l| l.starts_with("DEBUG") && l.contains("api=\"Fetch\"")), "requests at debug");
    assert!(!text.contains("TRACE"));
}

#[test]
fn a_bad_filter_is_one_line_and_exit_2() {
    let o =
        isrlab().args(["describe", "--log", "/dev/null"]).env("ISRLAB_LOG", "isrlab=loud").output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.starts_with("error: ISRLAB_LOG=`isrlab=loud` is not a valid filter"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// Runs `isrlab ARGS`, reads one line of its stdout and closes the pipe, as `| head -1` does.
fn head_1(args: &[&str]) -> (String, ExitStatus, String) {
    let mut child =
        isrlab().args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawns");
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut first).expect("one line");
    // The reader is dropped here: the pipe is closed while the binary still writes.
    let out = child.wait_with_output().expect("exits");
    (first, out.status, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A scenario whose final `--describe` alone is far larger than a pipe's buffer.
fn big_scenario(dir: &std::path::Path, acked_lost: u32) -> PathBuf {
    let text = format!(
        "name = \"big\"\nseed = 1\nend = \"1s\"\n[cluster]\nbrokers = 3\n[[topic]]\nname = \"t\"\npartitions = 1000\nreplication_factor = 3\n[[expect]]\ntime = \"end\"\nacked_lost = {acked_lost}\n"
    );
    write_scenario(dir, &text)
}

#[test]
fn a_headless_run_into_a_closed_pipe_exits_with_its_verdict() {
    let dir = scratch("pipe-run");
    let passing = big_scenario(&dir, 0);
    let (first, status, err) = head_1(&["run", passing.to_str().unwrap()]);
    assert!(first.starts_with("seed 1 · scenario \"big\""), "{first}");
    assert_eq!(status.code(), Some(0), "{status:?} {err}");
    assert!(err.is_empty(), "quiet: {err}");
    let failing = big_scenario(&dir, 1);
    let (_, status, err) = head_1(&["run", failing.to_str().unwrap()]);
    assert_eq!(status.code(), Some(1), "{status:?} {err}");
    assert!(err.is_empty(), "quiet: {err}");
}

#[test]
fn describe_into_a_closed_pipe_exits_0() {
    let (first, status, err) = head_1(&["describe", "--seed", "3", "--topic", "t:1000:3", "--at", "1s"]);
    assert!(first.starts_with("seed 3 · state at 00:00:01.0"), "{first}");
    assert_eq!(status.code(), Some(0), "{status:?} {err}");
    assert!(err.is_empty(), "quiet: {err}");
}

#[test]
fn the_dashboard_without_a_terminal_exits_2_with_one_line() {
    for stdin in [Stdio::null(), Stdio::piped()] {
        let o = isrlab().arg("--seed").arg("1").stdin(stdin).output().expect("runs");
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.starts_with("error: the dashboard needs a terminal"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(o.stdout.is_empty(), "no escape codes into the pipe");
    }
}

#[test]
fn describe_plays_a_timeline_with_a_command_kafka_refuses() {
    let scenario = "tests/scenarios/expect-keys-broker-lifecycle.toml";
    let o = isrlab().args(["describe", "--scenario", scenario, "--at", "60s"]).output().expect("runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("Topic: late\t"), "the topic created after the refused one:\n{out}");
    assert!(!out.contains("Topic: big\t"), "{out}");
}

/// KIP-516: the describe output at the end of a run shows the id of the topic as it is now,
/// the one drawn when it was created again, not the deleted topic's
/// (`tests/scenarios/tid-03-recreated-topic-new-id.toml` pins both ids from its seed).
#[test]
fn describe_after_delete_and_create_shows_the_new_topic_id() {
    let out = isrlab()
        .args(["run", "tests/scenarios/tid-03-recreated-topic-new-id.toml"])
        .output()
        .expect("the binary runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let describe: Vec<&str> = text.lines().filter(|l| l.starts_with("Topic: t\t")).collect();
    assert_eq!(describe.len(), 1, "{text}");
    assert!(
        describe[0].starts_with("Topic: t\tTopicId: clvE3bLSTli40e_rqXKDuQ\tPartitionCount: 2"),
        "{}",
        describe[0]
    );
    assert!(!text.contains("TopicId: z5zO_BagQF-ZZUHxpeKNAw"), "the deleted topic's id is not shown");
}
