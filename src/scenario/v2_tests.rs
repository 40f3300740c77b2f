//! Scenario format v2: lesson metadata, narration steps, focus and `[[ask]]`, and every
//! mistake in them reported at its line and column.

use super::ask::SimAnswer;
use super::focus::{Focus, Pane};
use super::{LoadError, parse};
use crate::sim::{SimTime, TopicPartition};

/// Eleven lines: a v2 file with one topic `t` (2 partitions) on brokers 0-2.
const HEAD: &str = "version = 2\nname = \"x\"\nend = \"60s\"\n[cluster]\nbrokers = 3\n[[topic]]\nname = \"t\"\npartitions = 2\nreplication_factor = 3\n[[producer]]\ntopic = \"t\"\n";

/// The error for HEAD followed by `rest`, as `LINE:COLUMN: message`.
fn error(rest: &str) -> String {
    error_in(&format!("{HEAD}{rest}"))
}

fn error_in(text: &str) -> String {
    match parse("f", text) {
        Err(LoadError::Invalid { line, column, message, .. }) => format!("{line}:{column}: {message}"),
        other => panic!("expected an error, got {other:?}"),
    }
}

const CHOICES: &str = "[[ask.choice]]\ntext = \"broker 0\"\nexpect = { partition = \"t-0\", leader = 0 }\n\
                       [[ask.choice]]\ntext = \"broker 1\"\nexpect = { partition = \"t-0\", leader = 1 }\n";

#[test]
fn a_lesson_has_metadata_narration_focus_and_questions() {
    let text = format!(
        "minutes = 5\nteaches = \"who leads after a crash\"\n{HEAD}[focus]\npartition = \"t-1\"\npanes = [\"logs\", \"why\"]\n\
         [[at]]\ntime = \"1s\"\nsay = \"Broker 2 **crashes** now: `crash 2`.\"\ndo = \"crash 2\"\npause = true\n\
         focus = {{ broker = 2, panes = [\"events\"] }}\n\
         [[at]]\ntime = \"500ms\"\nsay = \"Watch *t-0*.\"\n\
         [[ask]]\ntime = \"20s\"\nquestion = \"Later?\"\nanswer_at = \"30s\"\n{CHOICES}\
         [[ask]]\ntime = \"2s\"\nquestion = \"Who leads `t-0`?\"\nanswer_at = \"2s\"\nanswer = \"B\"\nexplain = \"First live ISR member.\"\n{CHOICES}"
    );
    let s = parse("f", &text).unwrap();
    assert_eq!((s.version, s.minutes, s.teaches.as_deref()), (2, Some(5), Some("who leads after a crash")));
    assert!(s.is_lesson());
    assert_eq!(
        s.focus,
        Some(Focus {
            partition: Some(TopicPartition::new("t", 1)),
            broker: None,
            panes: vec![Pane::Logs, Pane::Why]
        })
    );
    let steps: Vec<(u64, bool, bool, Option<&str>)> =
        s.timeline.iter().map(|a| (a.at.as_ms(), a.command.is_some(), a.pause, a.say.as_deref())).collect();
    assert_eq!(
        steps,
        [
            (500, false, false, Some("Watch *t-0*.")),
            (1_000, true, true, Some("Broker 2 **crashes** now: `crash 2`."))
        ]
    );
    assert_eq!(
        s.timeline[1].focus,
        Some(Focus { partition: None, broker: Some(2), panes: vec![Pane::Events] })
    );
    assert_eq!(s.commands().len(), 1);
    let q: Vec<(usize, u64, u64, Option<char>)> = s
        .questions
        .iter()
        .map(|q| (q.number, q.at.as_ms(), q.answer_at.as_ms(), q.answer_letter()))
        .collect();
    assert_eq!(q, [(1, 2_000, 2_000, Some('b')), (2, 20_000, 30_000, None)]);
    assert_eq!(s.questions[0].explain.as_deref(), Some("First live ISR member."));
    assert_eq!(s.questions[0].choices[1].text, "broker 1");
    assert_eq!(s.questions[0].choices[1].checks[0].subject(), "t-0 leader");
}

#[test]
fn v2_keys_in_a_v1_file_say_to_add_the_version() {
    let v1 = HEAD.replacen("version = 2\n", "", 1);
    let at = |rest: &str| error_in(&format!("{v1}{rest}"));
    assert_eq!(
        at("[[at]]\ntime = \"1s\"\nsay = \"hello\"\n"),
        "13:7: `say` is scenario format v2; add `version = 2` at the top of the file"
    );
    assert_eq!(
        at("[[at]]\ntime = \"1s\"\ndo = \"crash 1\"\npause = true\n"),
        "14:9: `pause` is scenario format v2; add `version = 2` at the top of the file"
    );
    assert!(
        at("[[at]]\ntime = \"1s\"\nfocus = { broker = 1 }\n")
            .starts_with("13:9: `focus` is scenario format v2")
    );
    assert!(
        at(&format!("[[ask]]\ntime = \"1s\"\nquestion = \"q\"\nanswer_at = \"2s\"\n{CHOICES}"))
            .contains("`[[ask]]` is scenario format v2")
    );
    assert!(error_in(&format!("minutes = 3\n{v1}")).starts_with("1:11: `minutes` is scenario format v2"));
    assert!(error_in(&format!("teaches = \"x\"\n{v1}")).starts_with("1:11: `teaches` is scenario format v2"));
    assert!(
        at("[focus]\nbroker = 1\n").contains("`[focus]` is scenario format v2"),
        "{}",
        at("[focus]\nbroker = 1\n")
    );
    assert_eq!(
        at("[[at]]\ntime = \"1s\"\n"),
        "12:8: this [[at]] step does nothing; give `do = \"COMMAND\"` (and in format v2 `say`, `pause` or `focus`)"
    );
    let v1_explicit = format!("version = 1\n{v1}[[at]]\ntime = \"1s\"\nsay = \"x\"\n");
    assert!(error_in(&v1_explicit).starts_with("14:7: `say` is scenario format v2"));
}

#[test]
fn step_mistakes_point_at_the_value() {
    assert_eq!(
        error("[[at]]\ntime = \"1s\"\nsay = \"a *b\"\n"),
        "14:7: `say`: `*emphasis*` is not closed in this narration; to show a literal `*`, put it inside `code`"
    );
    assert_eq!(error("[[at]]\ntime = \"1s\"\nsay = \" \"\n"), "14:7: `say` is empty; write the text to show");
    assert_eq!(
        error("[[at]]\ntime = \"1s\"\nsay = \"x\"\nrefused = \"NOPE\"\n"),
        "15:11: `refused` checks the step's command; add `do = \"COMMAND\"`"
    );
    assert_eq!(error("[[at]]\ntime = \"1s\"\npause = 1\n").split(": ").next(), Some("14:9"));
    assert_eq!(
        error("[[at]]\ntime = \"1s\"\nsay = \"x\"\nnarrate = \"y\"\n").split(": ").next(),
        Some("15:1")
    );
}

#[test]
fn focus_mistakes_point_at_the_value() {
    let step = |focus: &str| error(&format!("[[at]]\ntime = \"5s\"\nfocus = {focus}\n"));
    assert_eq!(
        step("{ panes = [\"log\"] }"),
        "14:20: unknown pane `log`; did you mean \"logs\"? the panes are \"logs\", \"why\", \"clients\", \"events\", \"checks\""
    );
    assert_eq!(step("{ panes = [\"why\", \"why\"] }"), "14:27: pane `why` is listed twice");
    assert_eq!(step("{ partition = \"t-2\" }"), "14:23: no partition `t-2`: topic `t` has partitions 0 to 1");
    assert_eq!(step("{ partition = \"u-0\" }"), "14:23: unknown topic `u` (topics: t)");
    assert_eq!(step("{ broker = 3 }"), "14:20: broker 3 does not exist (brokers: 0,1,2)");
    assert!(step("{ }").starts_with("14:9: this focus names nothing"), "{}", step("{ }"));
    assert_eq!(step("{ pane = [\"why\"] }").split(": ").next(), Some("14:11"));
    // A topic a step creates can be focused from that step on, not before.
    let created =
        "[[at]]\ntime = \"5s\"\ndo = \"create-topic late 1 3\"\nfocus = { partition = \"late-0\" }\n";
    assert!(parse("f", &format!("{HEAD}{created}")).is_ok());
    assert!(
        error("[focus]\npartition = \"late-0\"\n[[at]]\ntime = \"5s\"\ndo = \"create-topic late 1 3\"\n")
            .ends_with("an [[at]] command creates it at 00:00:05.0")
    );
    assert!(error_in(&format!("minutes = 0\n{HEAD}")).starts_with("1:11: `minutes` is the lesson's length"));
}

#[test]
fn question_mistakes_point_at_the_value() {
    let ask = |head: &str, choices: &str| {
        error(&format!("[[ask]]\ntime = \"10s\"\nquestion = \"Who?\"\nanswer_at = \"20s\"\n{head}{choices}"))
    };
    assert_eq!(
        ask("answer = \"c\"\n", CHOICES),
        "16:10: `answer = \"c\"` is not one of this question's choices; write a letter from a to b (the choices in file order)"
    );
    assert!(ask("answer = \"ab\"\n", CHOICES).starts_with("16:10: `answer = \"ab\"` is not one"));
    let before =
        error(&format!("[[ask]]\ntime = \"10s\"\nquestion = \"Who?\"\nanswer_at = \"5s\"\n{CHOICES}"));
    assert_eq!(
        before,
        "15:13: `answer_at` (00:00:05.0) is before the question's `time` (00:00:10.0); the answer is revealed after the question is asked"
    );
    let one = "[[ask.choice]]\ntext = \"broker 0\"\nexpect = { partition = \"t-0\", leader = 0 }\n";
    assert!(
        ask("", one).contains(
            "a question has 2 to 6 choices ([[ask.choice]] tables, lettered a to f); this one has 1"
        )
    );
    let seven = one.repeat(7);
    assert!(ask("", &seven).starts_with("34:1: a question has 2 to 6 choices"), "{}", ask("", &seven));
    assert_eq!(
        ask("", &CHOICES.replace("leader = 1", "leader = 7")),
        "21:40: broker 7 does not exist (brokers: 0,1,2)"
    );
    assert_eq!(
        ask("", &CHOICES.replace("leader = 1", "leader = 1, time = \"3s\"")),
        "21:50: a choice's `expect` has no `time`: it is checked at the question's `answer_at`"
    );
    assert_eq!(
        ask("", &CHOICES.replace("{ partition = \"t-0\", leader = 1 }", "{ }")),
        "21:10: a choice's `expect` checks nothing; add e.g. `leader`, `isr`, `hw`, `acked_lost`, `state` or `event`"
    );
    assert_eq!(
        ask("", &CHOICES.replace("text = \"broker 1\"", "text = \"\"")),
        "20:8: `text` is empty; write the text to show"
    );
    assert_eq!(ask("explain = \"`x\"\n", CHOICES).split(": ").next(), Some("16:11"));
    assert!(
        error(&format!("[[ask]]\ntime = \"70s\"\nquestion = \"Who?\"\nanswer_at = \"80s\"\n{CHOICES}"))
            .starts_with("13:8: time 00:01:10.0 is after the scenario's end")
    );
    assert_eq!(error("[[expect]]\nacked_lost = 0\n").split(": ").next(), Some("12:1"));
    assert!(error("[[expect]]\nacked_lost = 0\n").contains("this [[expect]] needs `time`"));
}

#[test]
fn the_simulation_answers_by_the_one_choice_that_holds() {
    use crate::cluster::snapshot::Snapshot;
    use crate::scenario::history::History;
    let text = format!(
        "{HEAD}[[ask]]\ntime = \"1s\"\nquestion = \"q\"\nanswer_at = \"2s\"\nanswer = \"b\"\n\
         [[ask.choice]]\ntext = \"*none* lost\"\nexpect = {{ acked_lost = 0 }}\n\
         [[ask.choice]]\ntext = \"some lost\"\nexpect = {{ acked_lost = \">0\" }}\n\
         [[ask.choice]]\ntext = \"any\"\nexpect = {{ acked_lost = \">=0\", duplicates = 0 }}\n"
    );
    let s = parse("f", &text).unwrap();
    let q = &s.questions[0];
    let history = History::watching([]);
    let mut snap = Snapshot::default();
    assert_eq!(q.sim_answer(&snap, &history), SimAnswer::Several(vec![0, 2]));
    assert_eq!(
        q.outcome(SimAnswer::Several(vec![0, 2])).to_string(),
        "at 00:00:02.0 question 1: choices a and c all hold; a lesson's question needs exactly one"
    );
    snap.acked_lost = 3;
    snap.duplicates = 1;
    let answer = q.sim_answer(&snap, &history);
    assert_eq!(answer, SimAnswer::Choice(1));
    let right = q.outcome(answer);
    assert!(right.passed);
    assert_eq!(
        right.to_string(),
        "at 00:00:02.0 question 1: the simulation answers b) some lost · the lesson states b"
    );
    snap.acked_lost = 0;
    let wrong = q.outcome(q.sim_answer(&snap, &history));
    assert!(!wrong.passed);
    assert_eq!(
        wrong.to_string(),
        "at 00:00:02.0 question 1: the simulation answers a) none lost · but the lesson states b) some lost"
    );
    let mut unstated = q.clone();
    unstated.answer = None;
    assert!(unstated.outcome(SimAnswer::Choice(0)).passed);
    let none = q.outcome(SimAnswer::NoChoice);
    assert_eq!((none.passed, none.at), (false, SimTime::from_ms(2_000)));
    assert!(none.to_string().ends_with("question 1: no choice holds; a lesson's question needs exactly one"));
}
