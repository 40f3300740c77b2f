//! Predict-then-reveal questions (scenario format v2, `[[ask]]`): at `time` the run stops and
//! asks; at `answer_at` the simulation answers, by the one choice whose `expect` holds then.
//! A question whose choices do not single out one answer, or whose stated `answer` differs
//! from the simulation's, fails the run: a lesson cannot teach a wrong answer.
//!
//! ```toml
//! [[ask]]
//! time = "12s"
//! question = "Who leads t-0 once broker 2 is fenced?"
//! answer_at = "25s"
//! answer = "b"
//! explain = "The controller picks the first live ISR member in replica order."
//! [[ask.choice]]
//! text = "broker 0"
//! expect = { partition = "t-0", leader = 0 }
//! [[ask.choice]]
//! text = "broker 1"
//! expect = { partition = "t-0", leader = 1 }
//! ```

use super::error::SpanError;
use super::expect::{Check, Outcome};
use super::expect_file::{Names, RawExpect, checks_at};
use super::format::{Res, err, time_within};
use super::history::{EventPattern, History};
use super::markup;
use crate::cluster::snapshot::Snapshot;
use crate::sim::{SimTime, format_instant};
use serde::Deserialize;
use std::fmt;
use toml::{Spanned, Value};

/// Fewest choices a question has.
pub const MIN_CHOICES: usize = 2;
/// Most choices a question has (letters `a` to `f`).
pub const MAX_CHOICES: usize = 6;

/// One `[[ask]]`: a question asked at `at` and answered by the simulation at `answer_at`.
#[derive(Clone, Debug, PartialEq)]
pub struct Question {
    /// Its number, from 1, in the order the questions are asked (time order; file order
    /// within an instant). Messages say "question 2".
    pub number: usize,
    /// `time`: when the run stops and asks, to the microsecond.
    pub at: SimTime,
    /// `question`: the question, Markdown-light ([`markup`]).
    pub question: String,
    /// `answer_at`: when the simulation's answer is computed and revealed (`>= at`, and no
    /// later than the scenario's end). At that instant the step commands due then have been
    /// applied and the `[[expect]]`s due then checked.
    pub answer_at: SimTime,
    /// `answer`: the author's expected choice as an index into `choices` (letter `a` is 0),
    /// if the file states one.
    pub answer: Option<usize>,
    /// `explain`: narration shown with the reveal, Markdown-light, if any.
    pub explain: Option<String>,
    /// `[[ask.choice]]`: 2 to 6 choices, lettered `a`, `b`, ... in file order.
    pub choices: Vec<Choice>,
}

/// One `[[ask.choice]]`: a possible answer and the facts that make it the right one.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    /// `text`: the answer as shown, Markdown-light.
    pub text: String,
    /// `expect = { ... }`: the same keys as an `[[expect]]` without `time`; the choice holds
    /// at `answer_at` when every check holds.
    pub checks: Vec<Check>,
}

/// What the simulation answers at a question's `answer_at`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimAnswer {
    /// Exactly one choice holds: its index.
    Choice(usize),
    /// No choice holds: the question is broken.
    NoChoice,
    /// Several choices hold (their indices, ascending): the question is ambiguous.
    Several(Vec<usize>),
}

/// The verdict on a question, readable as a line, e.g.
/// `at 00:00:25.0 question 1: the simulation answers b) broker 1 · the lesson states b`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuestionOutcome {
    /// The question's number.
    pub number: usize,
    /// Its `answer_at`.
    pub at: SimTime,
    /// What the simulation answered.
    pub answer: SimAnswer,
    /// `(letter, text)` of the simulation's choice, when exactly one holds.
    pub chosen: Option<(char, String)>,
    /// `(letter, text)` of the stated answer, if the file states one.
    pub stated: Option<(char, String)>,
    /// Whether the question passed: exactly one choice holds, and it is the stated answer
    /// when one is stated.
    pub passed: bool,
}

impl fmt::Display for QuestionOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at {} question {}: ", format_instant(self.at), self.number)?;
        let letters = |ids: &[usize]| -> String {
            let l: Vec<String> = ids.iter().map(|i| letter(*i).to_string()).collect();
            match l.split_last() {
                Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
                _ => l.join(""),
            }
        };
        match (&self.answer, &self.chosen, &self.stated) {
            (SimAnswer::NoChoice, _, _) => {
                f.write_str("no choice holds; a lesson's question needs exactly one")
            }
            (SimAnswer::Several(ids), _, _) => {
                write!(f, "choices {} all hold; a lesson's question needs exactly one", letters(ids))
            }
            (SimAnswer::Choice(_), Some((l, t)), None) => write!(f, "the simulation answers {l}) {t}"),
            (SimAnswer::Choice(_), Some((l, t)), Some((sl, _))) if sl == l => {
                write!(f, "the simulation answers {l}) {t} · the lesson states {sl}")
            }
            (SimAnswer::Choice(_), Some((l, t)), Some((sl, st))) => {
                write!(f, "the simulation answers {l}) {t} · but the lesson states {sl}) {st}")
            }
            (SimAnswer::Choice(i), None, _) => write!(f, "the simulation answers {}", letter(*i)),
        }
    }
}

/// The letter of choice `index` (0 is `a`); indices past `z` get `?`.
pub fn letter(index: usize) -> char {
    u8::try_from(index).ok().filter(|i| *i < 26).map_or('?', |i| char::from(b'a' + i))
}

impl Choice {
    /// Whether every check of the choice holds in `snap` (taken at the question's
    /// `answer_at`) and the run's `history`.
    pub fn holds(&self, snap: &Snapshot, history: &History) -> bool {
        self.checks.iter().all(|c| c.evaluate(snap, history).1)
    }

    /// Each check's verdict at `at`, for a report that says why a choice does or does not hold.
    pub fn outcomes(&self, at: SimTime, snap: &Snapshot, history: &History) -> Vec<Outcome> {
        self.checks
            .iter()
            .map(|c| {
                let (got, passed) = c.evaluate(snap, history);
                Outcome { at, subject: c.subject(), expected: c.expected(), got, passed }
            })
            .collect()
    }
}

impl Question {
    /// The stated answer's letter, if any.
    pub fn answer_letter(&self) -> Option<char> {
        self.answer.map(letter)
    }

    /// The event patterns the choices look for, so a run's [`History`] can watch them.
    pub fn event_patterns(&self) -> impl Iterator<Item = &EventPattern> {
        self.choices.iter().flat_map(|c| c.checks.iter().filter_map(Check::event_pattern))
    }

    /// The simulation's answer: which choices hold in `snap`, taken at `answer_at`.
    pub fn sim_answer(&self, snap: &Snapshot, history: &History) -> SimAnswer {
        let holding: Vec<usize> =
            (0..self.choices.len()).filter(|i| self.choices[*i].holds(snap, history)).collect();
        match holding[..] {
            [] => SimAnswer::NoChoice,
            [one] => SimAnswer::Choice(one),
            _ => SimAnswer::Several(holding),
        }
    }

    /// The verdict for the simulation's `answer`: passed when exactly one choice holds and
    /// it is the stated answer, if the file states one.
    pub fn outcome(&self, answer: SimAnswer) -> QuestionOutcome {
        let named = |i: usize| self.choices.get(i).map(|c| (letter(i), markup::plain(&c.text)));
        let chosen = match answer {
            SimAnswer::Choice(i) => named(i),
            _ => None,
        };
        let stated = self.answer.and_then(named);
        let passed = match answer {
            SimAnswer::Choice(i) => self.answer.is_none_or(|a| a == i),
            _ => false,
        };
        QuestionOutcome { number: self.number, at: self.answer_at, answer, chosen, stated, passed }
    }
}

/// One `[[ask]]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawAsk {
    time: Spanned<Value>,
    question: Spanned<String>,
    answer_at: Spanned<Value>,
    answer: Option<Spanned<String>>,
    explain: Option<Spanned<String>>,
    #[serde(default)]
    choice: Vec<Spanned<RawChoice>>,
}

/// One `[[ask.choice]]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawChoice {
    text: Spanned<String>,
    expect: Spanned<RawExpect>,
}

/// Validates the `[[ask]]` tables into questions in the order they are asked, numbered
/// from 1. Errors: a time past `end`, `answer_at` before `time`, fewer than 2 or more than 6
/// choices, an `answer` that is not one of the choices' letters, empty or badly marked-up
/// text, or a choice's `expect` that is invalid at `answer_at` or has a `time`.
pub(super) fn questions(raw: &[Spanned<RawAsk>], names: &Names<'_>, end: SimTime) -> Res<Vec<Question>> {
    let mut out = raw.iter().map(|a| question(a, names, end)).collect::<Res<Vec<_>>>()?;
    out.sort_by_key(|q| q.at);
    for (i, q) in out.iter_mut().enumerate() {
        q.number = i + 1;
    }
    Ok(out)
}

fn question(raw: &Spanned<RawAsk>, names: &Names<'_>, end: SimTime) -> Res<Question> {
    let a = raw.get_ref();
    let at = time_within(&a.time, end)?;
    let answer_at = time_within(&a.answer_at, end)?;
    if answer_at < at {
        return err(
            a.answer_at.span(),
            format!(
                "`answer_at` ({}) is before the question's `time` ({}); the answer is revealed after the question is asked",
                format_instant(answer_at),
                format_instant(at)
            ),
        );
    }
    let question = text(&a.question, "question")?;
    let explain = a.explain.as_ref().map(|e| text(e, "explain")).transpose()?;
    let n = a.choice.len();
    if !(MIN_CHOICES..=MAX_CHOICES).contains(&n) {
        let span = if n > MAX_CHOICES { a.choice[MAX_CHOICES].span() } else { raw.span() };
        return err(
            span,
            format!(
                "a question has {MIN_CHOICES} to {MAX_CHOICES} choices ([[ask.choice]] tables, lettered a to {}); this one has {n}",
                letter(MAX_CHOICES - 1)
            ),
        );
    }
    let choices = a.choice.iter().map(|c| choice(c, names, answer_at)).collect::<Res<Vec<_>>>()?;
    let answer = a.answer.as_ref().map(|v| answer_of(v, n)).transpose()?;
    Ok(Question { number: 0, at, question, answer_at, answer, explain, choices })
}

fn choice(raw: &Spanned<RawChoice>, names: &Names<'_>, answer_at: SimTime) -> Res<Choice> {
    let c = raw.get_ref();
    let text = text(&c.text, "text")?;
    if let Some(t) = &c.expect.get_ref().time {
        return err(
            t.span(),
            "a choice's `expect` has no `time`: it is checked at the question's `answer_at`",
        );
    }
    let checks = checks_at(&c.expect, names, answer_at, "a choice's `expect`")?;
    Ok(Choice { text, checks })
}

/// `answer = "b"`: one of the first `n` letters (any case).
fn answer_of(v: &Spanned<String>, n: usize) -> Res<usize> {
    let given = v.get_ref().trim().to_ascii_lowercase();
    let found = (0..n).find(|i| given.len() == 1 && given.starts_with(letter(*i)));
    found.ok_or_else(|| {
        SpanError::new(
            v.span(),
            format!(
                "`answer = \"{}\"` is not one of this question's choices; write a letter from a to {} (the choices in file order)",
                v.get_ref(),
                letter(n - 1)
            ),
        )
    })
}

/// A narration text (`key`): not empty, valid Markdown-light.
pub(super) fn text(v: &Spanned<String>, key: &str) -> Res<String> {
    if v.get_ref().trim().is_empty() {
        return err(v.span(), format!("`{key}` is empty; write the text to show"));
    }
    markup::parse(v.get_ref()).map_err(|m| SpanError::new(v.span(), format!("`{key}`: {m}")))?;
    Ok(v.get_ref().clone())
}
