//! The built-in lessons (`assets/lessons/NN-slug.toml`, as the binary embeds them) as a teacher needs them: fifteen of
//! them, numbered 01 to 13 without a gap; each short enough to play in a few minutes at 1×;
//! each opening with narration and a pause; each with at least two questions that state their
//! answer and explain it; each naming in its narration every setting and link fault it uses to
//! slow down or shorten what the learner watches; and, together, asking the three
//! misconceptions the lessons exist to correct. Whether every expectation and question of a
//! lesson holds is the lesson runner's test (every built-in lesson runs headless there).

use isrlab::scenario::{Scenario, lessons};
use toml::Value;

/// How many built-in lessons there are.
const LESSONS: usize = 15;
/// The longest sim time a lesson may run: at 1× sim time is wall time, and the pauses and
/// questions add the learner's reading time on top.
const MAX_END_MS: u64 = 60_000;
/// The most minutes a lesson may announce.
const MAX_MINUTES: u32 = 6;
/// The longest `teaches` line (`isrlab lessons` shows it on one line).
const MAX_TEACHES: usize = 125;

/// Every built-in lesson as the binary embeds it: its file name, its text, and the scenario.
fn lessons() -> Vec<(String, &'static str, Scenario)> {
    lessons::all().iter().map(|l| (l.path(), l.text, l.load().unwrap_or_else(|e| panic!("{e}")))).collect()
}

/// All the narration of a lesson: its steps' `say`, in one string.
fn narration(s: &Scenario) -> String {
    s.timeline.iter().filter_map(|a| a.say.as_deref()).collect::<Vec<_>>().join("\n")
}

#[test]
fn there_are_fifteen_lessons_numbered_01_to_15() {
    let numbers: Vec<u32> = lessons::all().iter().map(|l| l.number).collect();
    assert_eq!(
        numbers,
        (1..=LESSONS as u32).collect::<Vec<_>>(),
        "lessons are numbered 01 to {LESSONS} without a gap"
    );
}

#[test]
fn every_lesson_is_short_and_says_what_it_teaches() {
    for (name, _, s) in lessons() {
        assert_eq!(s.version, 2, "{name}: lessons are scenario format v2");
        let minutes = s.minutes.unwrap_or_else(|| panic!("{name}: no `minutes`"));
        assert!((1..=MAX_MINUTES).contains(&minutes), "{name}: minutes = {minutes}");
        let teaches = s.teaches.as_deref().unwrap_or_else(|| panic!("{name}: no `teaches`"));
        assert!(
            !teaches.contains('\n') && teaches.chars().count() <= MAX_TEACHES,
            "{name}: `teaches` is one line of at most {MAX_TEACHES} characters: {teaches:?}"
        );
        assert!(s.end.as_ms() <= MAX_END_MS, "{name}: runs to {} ms of sim time", s.end.as_ms());
        assert!(s.seed.is_some(), "{name}: a lesson fixes its seed, so that every class sees the same run");
    }
}

#[test]
fn every_lesson_opens_with_narration_and_a_pause() {
    for (name, _, s) in lessons() {
        let first = s.timeline.first().unwrap_or_else(|| panic!("{name}: no steps"));
        assert_eq!(first.at.as_ms(), 0, "{name}: the first step is at 0 s");
        assert!(
            first.say.is_some() && first.pause,
            "{name}: the first step says what the lesson shows and waits"
        );
    }
}

#[test]
fn every_lesson_asks_at_least_two_questions_with_stated_and_explained_answers() {
    for (name, _, s) in lessons() {
        assert!(s.questions.len() >= 2, "{name}: {} question(s)", s.questions.len());
        for q in &s.questions {
            assert!(q.answer.is_some(), "{name}: question {} states no answer", q.number);
            assert!(q.explain.is_some(), "{name}: question {} explains nothing", q.number);
        }
    }
}

/// The property names a lesson's file sets: `[cluster.config]`, each `[topic.config]`, and the
/// keys of its `[[producer]]` and `[[consumer]]` tables past the ones every table has.
fn configured_properties(text: &str) -> Vec<String> {
    let doc: Value = toml::from_str(text).expect("lessons are TOML");
    let mut keys = Vec::new();
    let mut table_keys = |table: Option<&Value>, skip: &[&str]| {
        if let Some(Value::Table(t)) = table {
            keys.extend(t.keys().filter(|k| !skip.contains(&k.as_str())).cloned());
        }
    };
    table_keys(doc.get("cluster").and_then(|c| c.get("config")), &[]);
    let each = |key: &str| doc.get(key).and_then(Value::as_array).cloned().unwrap_or_default();
    for topic in each("topic") {
        table_keys(topic.get("config"), &[]);
    }
    for producer in each("producer") {
        table_keys(Some(&producer), &["topic", "rate", "acks"]);
    }
    for consumer in each("consumer") {
        table_keys(Some(&consumer), &["topics", "group"]);
    }
    keys
}

#[test]
fn the_narration_names_every_setting_and_link_fault_the_lesson_uses() {
    for (name, text, s) in lessons() {
        let said = narration(&s);
        for key in configured_properties(text) {
            assert!(said.contains(&key), "{name}: sets `{key}` but its narration never names it");
        }
        for command in s.timeline.iter().filter_map(|a| a.command.as_ref()).map(ToString::to_string) {
            let words: Vec<&str> = command.split_whitespace().collect();
            let named = match words.as_slice() {
                ["delay" | "loss", ..] => said.contains(&command),
                ["set", "link", _, _, setting] => said.contains(setting.split('=').next().unwrap()),
                _ => true,
            };
            assert!(named, "{name}: `{command}` slows the lesson down, and its narration never says so");
        }
    }
}

/// Each misconception: words of a wrong choice that states it, and where it is asked.
const MISCONCEPTIONS: [(&str, &str); 3] = [
    ("partition leaders are elected by a vote of the brokers", "vote"),
    ("acks=all means every replica", "all three replicas"),
    ("a follower that is alive is in the ISR", "alive"),
];

#[test]
fn the_lessons_ask_the_misconceptions_they_exist_to_correct() {
    let all = lessons();
    for (misconception, words) in MISCONCEPTIONS {
        let asked = all.iter().any(|(_, _, s)| {
            s.questions.iter().any(|q| {
                q.choices.iter().enumerate().any(|(i, c)| c.text.contains(words) && q.answer != Some(i))
            })
        });
        assert!(asked, "no question offers \"{misconception}\" as a wrong choice (words: {words:?})");
    }
}
