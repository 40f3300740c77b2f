//! Headless runs of a scenario: step a [`Sim`] through the instants of its steps,
//! expectations and questions up to `end`, print every event as it happens, every command and
//! narration line (`say:`), every expectation with ✓ or ✗, every question when it is asked and
//! the simulation's answer with ✓ or ✗ when it is due, the final state as
//! `kafka-topics.sh --describe` prints it and a last line `N passed, M failed`. Headless runs
//! never stop at a `pause` and never ask: a question is checked, not answered.

use super::ask::{Question, letter};
use super::expect::Outcome;
use super::format::{Action, Scenario};
use super::history::History;
use super::report::Report;
use crate::cluster::command::{Answer, Command};
use crate::cluster::handle::{Sim, SimError};
use crate::cluster::snapshot::Snapshot;
use crate::cluster::spec::ClusterSpec;
use crate::describe::describe;
use crate::sim::events::ClusterEvent;
use crate::sim::{SimTime, format_instant};
use std::collections::BTreeSet;
use std::io::{self, Write};

/// Exit code when every expectation held.
pub const EXIT_PASSED: u8 = 0;
/// Exit code when an expectation failed or a command was refused.
pub const EXIT_FAILED: u8 = 1;
/// Exit code when the scenario file (or the cluster it defines) is invalid.
pub const EXIT_INVALID: u8 = 2;

/// How a run went.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Summary {
    /// Expectations, checked commands (`refused`, `answered`) and questions that held.
    pub passed: usize,
    /// Expectations, checked commands and questions that failed, plus commands the sim
    /// refused.
    pub failed: usize,
}

impl Summary {
    /// [`EXIT_PASSED`] if nothing failed, else [`EXIT_FAILED`].
    pub fn exit_code(&self) -> u8 {
        if self.failed == 0 { EXIT_PASSED } else { EXIT_FAILED }
    }
}

/// Why a run could not be carried out.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The cluster could not start (e.g. `INVALID_REPLICATION_FACTOR`).
    #[error("the cluster cannot start: {0}")]
    Start(#[from] SimError),
    /// A command was refused while running to a time (see [`run_to`]): when, what and why.
    #[error("{0}")]
    Refused(String),
    /// The report could not be written.
    #[error("cannot write the report: {0}")]
    Io(#[from] io::Error),
}

/// What the runner needs from a simulation. [`Sim`] is the real one; tests drive a fake.
pub trait Driven {
    /// Current sim time (µs resolution).
    fn now(&self) -> SimTime;
    /// Runs the cluster up to sim time `t`, to the microsecond.
    fn advance_to(&mut self, t: SimTime);
    /// Applies a command now. Errors: the sim's refusal.
    fn apply(&mut self, cmd: &Command) -> Result<Answer, SimError>;
    /// The cluster as it is now.
    fn snapshot(&self) -> Snapshot;
    /// Events since the previous call, oldest first.
    fn drain_events(&mut self) -> Vec<ClusterEvent>;
}

impl Driven for Sim {
    fn now(&self) -> SimTime {
        Sim::now_us(self)
    }
    fn advance_to(&mut self, t: SimTime) {
        Sim::advance_to_time(self, t);
    }
    fn apply(&mut self, cmd: &Command) -> Result<Answer, SimError> {
        Sim::apply(self, cmd)
    }
    fn snapshot(&self) -> Snapshot {
        Sim::snapshot(self)
    }
    fn drain_events(&mut self) -> Vec<ClusterEvent> {
        Sim::drain_events(self)
    }
}

/// Runs `scenario` headless on a new [`Sim`], writing the report to `out`; the first line
/// names the seed (`scenario.spec.seed`). Errors: the cluster cannot start, or `out` fails.
pub fn run(scenario: &Scenario, out: &mut dyn Write) -> Result<Summary, RunError> {
    run_with_driver(scenario, crate::cluster::driver::Driver::Direct, out).map(|(summary, _)| summary)
}

/// [`run`] with the given driver of the node steps; also returns the run's trace hash
/// ([`Sim::trace_hash`]), so two drivers can be compared.
pub fn run_with_driver(
    scenario: &Scenario,
    driver: crate::cluster::driver::Driver,
    out: &mut dyn Write,
) -> Result<(Summary, u64), RunError> {
    let end = format_instant(scenario.end);
    writeln!(out, "seed {} · scenario \"{}\" · runs to {end}", scenario.spec.seed, scenario.name)?;
    let mut sim = Sim::with_driver(scenario.spec.clone(), driver)?;
    let summary = run_on(&mut sim, scenario, out)?;
    Ok((summary, sim.trace_hash()))
}

/// Steps `sim` through `scenario` and writes events, commands, narration, ✓/✗ lines, the
/// final `--describe` state and the `N passed, M failed` line. Commands, checks and questions
/// happen at their exact microsecond; within an instant: the steps (command, then
/// narration), the events they cause, the expectations, the questions asked, then the
/// questions answered. Errors: `out` fails.
pub fn run_on(sim: &mut impl Driven, scenario: &Scenario, out: &mut dyn Write) -> io::Result<Summary> {
    let out = &mut Report::new(out);
    let mut summary = Summary::default();
    let patterns = scenario.expectations.iter().filter_map(|e| e.check.event_pattern());
    let mut history =
        History::watching(patterns.chain(scenario.questions.iter().flat_map(Question::event_patterns)));
    print_events(sim, &mut history, out)?;
    let mut answering: Vec<&Question> = scenario.questions.iter().collect();
    answering.sort_by_key(|q| q.answer_at);
    let (mut next_action, mut next_expect, mut next_ask, mut next_answer) = (0, 0, 0, 0);
    for t in instants(scenario) {
        sim.advance_to(t);
        print_events(sim, &mut history, out)?;
        for action in scenario.timeline[next_action..].iter().take_while(|a| a.at == t) {
            next_action += 1;
            if let Some(cmd) = &action.command {
                apply(sim, action, cmd, &mut summary, out)?;
            }
            if let Some(say) = &action.say {
                narrate(out, t, "say", say)?;
            }
        }
        print_events(sim, &mut history, out)?;
        let due: Vec<_> = scenario.expectations[next_expect..].iter().take_while(|e| e.at == t).collect();
        next_expect += due.len();
        for q in scenario.questions[next_ask..].iter().take_while(|q| q.at == t) {
            next_ask += 1;
            ask(q, out)?;
        }
        let answers: Vec<_> = answering[next_answer..].iter().take_while(|q| q.answer_at == t).collect();
        next_answer += answers.len();
        if !due.is_empty() || !answers.is_empty() {
            let snap = sim.snapshot();
            for e in due {
                verdict(&e.check(&snap, &history), &mut summary, out)?;
            }
            for q in answers {
                answer(q, &snap, &history, &mut summary, out)?;
            }
        }
    }
    out.flush()?;
    finish(&sim.snapshot(), summary, out)?;
    Ok(summary)
}

/// Every instant something is due, ascending, ending with `end`.
fn instants(scenario: &Scenario) -> BTreeSet<SimTime> {
    let actions = scenario.timeline.iter().map(|a| a.at);
    let checks = scenario.expectations.iter().map(|e| e.at);
    let questions = scenario.questions.iter().flat_map(|q| [q.at, q.answer_at]);
    actions.chain(checks).chain(questions).chain([scenario.end]).collect()
}

/// Narration at `at`, one stamped line per line of text, each `PREFIX: LINE` (`say:`,
/// `explain:`), so a reader tells it from the events. Empty lines are left out.
fn narrate(out: &mut Report<'_>, at: SimTime, prefix: &str, text: &str) -> io::Result<()> {
    for line in text.lines().map(str::trim_end).filter(|l| !l.trim().is_empty()) {
        out.stamped(at, format!("{prefix}: {line}"))?;
    }
    Ok(())
}

/// A question as it is asked: `ask N: QUESTION` stamped, then its lettered choices.
fn ask(q: &Question, out: &mut Report<'_>) -> io::Result<()> {
    narrate(out, q.at, &format!("ask {}", q.number), &q.question)?;
    for (i, c) in q.choices.iter().enumerate() {
        out.line(format!("    {}) {}", letter(i), c.text.replace('\n', " ")))?;
    }
    Ok(())
}

/// The simulation's answer to `q` at its `answer_at`, with ✓ or ✗ (counted). When it fails,
/// every choice follows, ✓ if it holds, with its checks and what the cluster showed, so the
/// author sees why; then the question's `explain`.
fn answer(
    q: &Question,
    snap: &Snapshot,
    history: &History,
    summary: &mut Summary,
    out: &mut Report<'_>,
) -> io::Result<()> {
    let outcome = q.outcome(q.sim_answer(snap, history));
    let mark = if outcome.passed {
        summary.passed += 1;
        '✓'
    } else {
        summary.failed += 1;
        '✗'
    };
    out.line(format!("{mark} {outcome}"))?;
    if !outcome.passed {
        for (i, c) in q.choices.iter().enumerate() {
            let mark = if c.holds(snap, history) { '✓' } else { '✗' };
            out.line(format!("    {mark} {}) {}", letter(i), c.text.replace('\n', " ")))?;
            for o in c.outcomes(q.answer_at, snap, history) {
                let mark = if o.passed { '✓' } else { '✗' };
                out.line(format!("        {mark} {}: expected {}, got {}", o.subject, o.expected, o.got))?;
            }
        }
    }
    if let Some(explain) = &q.explain {
        narrate(out, q.answer_at, "explain", explain)?;
    }
    Ok(())
}

/// Counts and prints one verdict: `✓ OUTCOME` or `✗ OUTCOME`.
fn verdict(outcome: &Outcome, summary: &mut Summary, out: &mut Report<'_>) -> io::Result<()> {
    let mark = if outcome.passed {
        summary.passed += 1;
        '✓'
    } else {
        summary.failed += 1;
        '✗'
    };
    out.line(format!("{mark} {outcome}"))
}

/// Applies one `[[at]]` command. A refusal fails the run unless the action expects it
/// (`refused = "TEXT"`); then the answer must contain `TEXT`, and acceptance fails. With
/// `answered = "TEXT"` the command must be accepted with an answer containing `TEXT`.
fn apply(
    sim: &mut impl Driven,
    action: &Action,
    cmd: &Command,
    summary: &mut Summary,
    out: &mut Report<'_>,
) -> io::Result<()> {
    let now = sim.now();
    let result = sim.apply(cmd);
    if let Some(want) = &action.answered {
        let (got, passed) = match &result {
            Ok(Answer { note }) => {
                let note = note.clone().unwrap_or_default();
                let passed = note.contains(want.as_str());
                out.stamped(now, format!("do: {cmd}: {note}"))?;
                (format!("answered: {note}"), passed)
            }
            Err(e) => (format!("refused: {e}"), false),
        };
        let subject = format!("do `{cmd}`");
        let outcome = Outcome { at: now, subject, expected: format!("answered with `{want}`"), got, passed };
        return verdict(&outcome, summary, out);
    }
    let Some(want) = &action.refused else {
        return match result {
            Ok(Answer { note: None }) => out.stamped(now, format!("do: {cmd}")),
            Ok(Answer { note: Some(note) }) => out.stamped(now, format!("do: {cmd}: {note}")),
            Err(e) => {
                summary.failed += 1;
                out.line(format!(
                    "✗ at {} do `{cmd}` was refused: {e} (if Kafka should refuse it, add `refused = \"…\"` to its [[at]])",
                    format_instant(now)
                ))
            }
        };
    };
    let (got, passed) = match result {
        Ok(_) => ("accepted".to_string(), false),
        Err(e) => {
            let text = e.to_string();
            let passed = text.contains(want.as_str());
            (format!("refused: {text}"), passed)
        }
    };
    let subject = format!("do `{cmd}`");
    let outcome = Outcome { at: now, subject, expected: format!("refused with `{want}`"), got, passed };
    verdict(&outcome, summary, out)
}

fn print_events(sim: &mut impl Driven, history: &mut History, out: &mut Report<'_>) -> io::Result<()> {
    for event in sim.drain_events() {
        history.observe(&event);
        out.event(&event)?;
    }
    Ok(())
}

fn finish(snap: &Snapshot, summary: Summary, out: &mut Report<'_>) -> io::Result<()> {
    out.line("")?;
    let state = describe(snap);
    if !state.is_empty() {
        out.line(state.trim_end_matches('\n'))?;
    }
    let mut loss = format!("acked records lost: {} · duplicates: {}", snap.acked_lost, snap.duplicates);
    if !snap.consumers.is_empty() {
        // Only a run with consumers can have read records that were erased.
        loss.push_str(&format!(" · seen erased: {}", snap.seen_erased));
    }
    if snap.unacked_lost > 0 {
        // acks=0 records are no acknowledged loss, but a run that lost some is not lossless.
        loss.push_str(&format!(" · sent without acknowledgement, lost: {}", snap.unacked_lost));
    }
    if snap.reordered > 0 {
        loss.push_str(&format!(" · reordered: {}", snap.reordered));
    }
    out.line(loss)?;
    out.line(format!("{} passed, {} failed", summary.passed, summary.failed))
}

/// Starts `spec`, applies the `timeline` commands due up to `at` and returns the state at
/// `at`; events are discarded. Errors: the cluster cannot start, or a command is refused that
/// was not meant to be (`refused`).
pub fn run_to(spec: ClusterSpec, timeline: &[Action], at: SimTime) -> Result<Snapshot, RunError> {
    let mut sim = Sim::new(spec)?;
    for Action { at: t, command, refused, .. } in timeline.iter().take_while(|a| a.at <= at) {
        let Some(command) = command else { continue };
        sim.advance_to_time(*t);
        match sim.apply(command) {
            Err(e) if refused.is_none() => {
                let when = format_instant(*t);
                return Err(RunError::Refused(format!("at {when} `{command}` was refused: {e}")));
            }
            _ => {}
        }
    }
    sim.advance_to_time(at);
    Ok(sim.snapshot())
}

#[cfg(test)]
mod tests_support {
    use super::*;
    use crate::cluster::command::crash::Crash;
    use crate::cluster::command::restart::Restart;
    use crate::cluster::snapshot::{PartitionHealth, PartitionView, TopicView};
    use crate::sim::events::{ElectionKind, EventKind};
    use crate::sim::{BrokerId, TopicPartition};

    /// A one-partition cluster whose leader 2 is replaced by 0 nine seconds after a crash.
    #[derive(Default)]
    pub(super) struct Fake {
        now: SimTime,
        crashed_at: Option<SimTime>,
        failed_over: bool,
        events: Vec<ClusterEvent>,
        pub(super) advanced_to: Vec<SimTime>,
    }

    impl Driven for Fake {
        fn now(&self) -> SimTime {
            self.now
        }
        fn advance_to(&mut self, t: SimTime) {
            self.advanced_to.push(t);
            self.now = t;
            let failover = |c: SimTime| c.plus_micros(9_000_000);
            if let Some(c) = self.crashed_at.filter(|c| failover(*c) <= t && !self.failed_over) {
                self.failed_over = true;
                let tp = TopicPartition::new("t", 0);
                let kind = ElectionKind::Clean;
                let change = EventKind::LeaderChanged {
                    tp,
                    old_leader: Some(2),
                    new_leader: Some(0),
                    leader_epoch: 1,
                    isr: vec![0, 1],
                    kind,
                };
                self.events.push(ClusterEvent { at: failover(c), kind: change });
            }
        }
        fn apply(&mut self, cmd: &Command) -> Result<Answer, SimError> {
            match cmd {
                Command::Restart(Restart(0)) => Ok(Answer::default()),
                Command::Crash(Crash(2)) if self.crashed_at.is_none() => {
                    self.crashed_at = Some(self.now);
                    self.events
                        .push(ClusterEvent { at: self.now, kind: EventKind::BrokerCrashed { broker: 2 } });
                    Ok(Answer::default())
                }
                _ => Err(SimError::InvalidState("broker 2 is already crashed".into())),
            }
        }
        fn snapshot(&self) -> Snapshot {
            let leader: BrokerId = if self.failed_over { 0 } else { 2 };
            let partition = PartitionView {
                tp: TopicPartition::new("t", 0),
                replicas: vec![2, 0, 1],
                isr: if self.failed_over { vec![0, 1] } else { vec![2, 0, 1] },
                adding: Vec::new(),
                removing: Vec::new(),
                elr: Vec::new(),
                last_known_elr: Vec::new(),
                reassign_bytes_left: None,
                leader: Some(leader),
                leader_epoch: i32::from(self.failed_over),
                partition_epoch: 0,
                hw: 0,
                replica_views: Vec::new(),
                health: PartitionHealth::Healthy,
                effective_min_isr: 1,
                hw_blocked_by: None,
                pending_isr: None,
                acked_lost: 0,
                loss_cause: None,
                leader_recovery_state: Default::default(),
                isr_shrinks: 0,
                isr_expands: 0,
                leader_reach: Default::default(),
                hw_held_by: None,
                parked: Vec::new(),
                truncations: Vec::new(),
            };
            let topic = TopicView {
                name: "t".into(),
                topic_id: "AAAAAAAAAAAAAAAAAAAAAA".into(),
                partitions: 1,
                replication_factor: 3,
                config_overrides: Vec::new(),
                effective_min_isr: 1,
                unclean_leader_election_enable: false,
            };
            Snapshot {
                now: self.now.as_ms(),
                now_us: self.now,
                topics: vec![topic],
                partitions: vec![partition.into()],
                ..Default::default()
            }
        }
        fn drain_events(&mut self) -> Vec<ClusterEvent> {
            std::mem::take(&mut self.events)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::tests_support::Fake;
    use super::*;

    const SCENARIO: &str = r#"
name = "fake failover"
seed = 9
end = "30s"
[cluster]
brokers = 3
[[topic]]
name = "t"
partitions = 1
replication_factor = 3
assignment = [[2, 0, 1]]
[[expect]]
time = "20s"
partition = "t-0"
leader = 0
isr = [0, 1, 2]
[[at]]
time = "10s"
do = "crash 2"
[[expect]]
time = "15s"
partition = "t-0"
leader = 2
[[at]]
time = "25s"
do = "crash 2"
[[at]]
time = "26s"
do = "crash 2"
refused = "already crashed"
[[at]]
time = "27s"
do = "crash 2"
refused = "INVALID_REPLICATION_FACTOR"
[[at]]
time = "28s"
do = "restart 0"
refused = "running"
[[expect]]
time = "20s"
event = "t-0 leader 2 → 0, clean"
[[expect]]
time = "20s"
event = "unclean"
"#;

    #[test]
    fn the_report_shows_events_commands_verdicts_state_and_summary() {
        let scenario = crate::scenario::parse("fake.toml", SCENARIO).unwrap();
        let mut fake = Fake::default();
        let mut out = Vec::new();
        let summary = run_on(&mut fake, &scenario, &mut out).unwrap();
        let advanced: Vec<_> = fake.advanced_to.iter().map(|t| t.as_ms()).collect();
        assert_eq!(advanced, [10_000, 15_000, 20_000, 25_000, 26_000, 27_000, 28_000, 30_000]);
        assert_eq!(summary, Summary { passed: 4, failed: 5 });
        assert_eq!(summary.exit_code(), EXIT_FAILED);
        let expected = "\
00:00:10.000 do: crash 2
00:00:10.000 broker 2 crashed (its log stays on disk)
✓ at 00:00:15.0 t-0 leader: expected 2, got 2
00:00:19.000 t-0 leader 2 → 0, clean election: first live ISR member in replica order, leader epoch 1, ISR 0,1
✓ at 00:00:20.0 t-0 leader: expected 0, got 0
✗ at 00:00:20.0 t-0 isr: expected [0,1,2], got [0,1]
✓ at 00:00:20.0 event: expected an event matching /t-0 leader 2 → 0, clean/, got \"t-0 leader 2 → 0, clean election: first live ISR member in replica order, leader epoch 1, ISR 0,1\" at 00:00:19.0
✗ at 00:00:20.0 event: expected an event matching /unclean/, got no such event
✗ at 00:00:25.0 do `crash 2` was refused: broker 2 is already crashed (if Kafka should refuse it, add `refused = \"…\"` to its [[at]])
✓ at 00:00:26.0 do `crash 2`: expected refused with `already crashed`, got refused: broker 2 is already crashed
✗ at 00:00:27.0 do `crash 2`: expected refused with `INVALID_REPLICATION_FACTOR`, got refused: broker 2 is already crashed
✗ at 00:00:28.0 do `restart 0`: expected refused with `running`, got accepted

Topic: t\tTopicId: AAAAAAAAAAAAAAAAAAAAAA\tPartitionCount: 1\tReplicationFactor: 3\tConfigs: 
\tTopic: t\tPartition: 0\tLeader: 0\tReplicas: 2,0,1\tIsr: 0,1\tElr: \tLastKnownElr: 
acked records lost: 0 · duplicates: 0
4 passed, 5 failed
";
        assert_eq!(String::from_utf8(out).unwrap(), expected);
    }

    #[test]
    fn all_passing_exits_zero() {
        assert_eq!(Summary { passed: 3, failed: 0 }.exit_code(), EXIT_PASSED);
    }
}

#[cfg(test)]
mod lesson_tests {
    use super::tests_support::Fake;
    use super::*;

    const LESSON: &str = r#"
version = 2
name = "fake lesson"
end = "30s"
[cluster]
brokers = 3
[[topic]]
name = "t"
partitions = 1
replication_factor = 3
assignment = [[2, 0, 1]]
[[at]]
time = "10s"
do = "crash 2"
say = """Broker 2 *crashes*.
Watch `t-0`."""
[[at]]
time = "11s"
say = "Nothing happens yet."
pause = true
[[ask]]
time = "12s"
question = "Who leads t-0 at 20 s?"
answer_at = "20s"
answer = "a"
explain = "The first live ISR member."
[[ask.choice]]
text = "broker 0"
expect = { partition = "t-0", leader = 0 }
[[ask.choice]]
text = "broker 2"
expect = { partition = "t-0", leader = 2 }
[[ask]]
time = "12s"
question = "And its ISR?"
answer_at = "20s"
answer = "b"
[[ask.choice]]
text = "0 and 1"
expect = { partition = "t-0", isr = [0, 1] }
[[ask.choice]]
text = "all three"
expect = { partition = "t-0", isr = [0, 1, 2] }
"#;

    #[test]
    fn a_lesson_reads_as_the_lesson_and_a_wrong_stated_answer_fails() {
        let scenario = crate::scenario::parse("lesson.toml", LESSON).unwrap();
        let mut out = Vec::new();
        let summary = run_on(&mut Fake::default(), &scenario, &mut out).unwrap();
        assert_eq!(summary, Summary { passed: 1, failed: 1 });
        let report = String::from_utf8(out).unwrap();
        let body = report.split("\n\nTopic:").next().unwrap();
        assert_eq!(
            body,
            "\
00:00:10.000 do: crash 2
00:00:10.000 say: Broker 2 *crashes*.
00:00:10.000 say: Watch `t-0`.
00:00:10.000 broker 2 crashed (its log stays on disk)
00:00:11.000 say: Nothing happens yet.
00:00:12.000 ask 1: Who leads t-0 at 20 s?
    a) broker 0
    b) broker 2
00:00:12.000 ask 2: And its ISR?
    a) 0 and 1
    b) all three
00:00:19.000 t-0 leader 2 → 0, clean election: first live ISR member in replica order, leader epoch 1, ISR 0,1
✓ at 00:00:20.0 question 1: the simulation answers a) broker 0 · the lesson states a
00:00:20.000 explain: The first live ISR member.
✗ at 00:00:20.0 question 2: the simulation answers a) 0 and 1 · but the lesson states b) all three
    ✓ a) 0 and 1
        ✓ t-0 isr: expected [0,1], got [0,1]
    ✗ b) all three
        ✗ t-0 isr: expected [0,1,2], got [0,1]"
        );
        assert!(report.ends_with("1 passed, 1 failed\n"), "{report}");
    }
}
