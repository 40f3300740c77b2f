//! The classroom: a scenario played in the dashboard, with its narration, its checks as they
//! fall due and its questions. [`Lesson`] is the state; the functions here are its `update`,
//! called from [`super::app::update`]. Drawing is [`super::narration`]'s.
//!
//! Sim time touches every instant the scenario names (a step, an `[[expect]]`, a question's
//! `time` and `answer_at`, the end) exactly: [`Lesson::clock_stop`] is the instant the pacer
//! must not grant past ([`super::pacer::Pacer::set_stop`]), and when a snapshot shows that
//! instant, [`arrive`] does what is due there, in the headless runner's order (the step's
//! command is the sim's to apply; then narration and focus, the checks, the answers, the new
//! questions). A step with `pause`, a question and a reveal *hold* the clock there until the
//! user goes on (Enter or `n`) or answers (a letter).
//!
//! Checks and answers are worked out by the scenario module's own code
//! ([`Expectation::check`], [`Question::sim_answer`]) against the snapshot of that instant and
//! a [`History`] of every event, so the dashboard says what `isrlab run` says.

use std::collections::VecDeque;
use std::sync::Arc;

use super::app::{Effect, Mode, Model, StatusKind};
use super::event_filter::partition_of;
use super::events::is_important;
use super::keymap::{self, Action, LessonAction, QuestionAction};
use crate::cluster::snapshot::Snapshot;
use crate::scenario::ask::letter;
use crate::scenario::expect::{Expectation, Outcome};
use crate::scenario::history::History;
use crate::scenario::{Focus, Pane, Question, QuestionOutcome, Scenario};
use crate::sim::events::ClusterEvent;
use crate::sim::{SimTime, format_instant};
use crossterm::event::KeyEvent;

/// Most important events kept for the reveals (the oldest go first).
const IMPORTANT_KEPT: usize = 2_000;

/// What the dashboard plays of a scenario: its texts, steps, checks and questions.
#[derive(Debug)]
pub struct Script {
    /// The scenario's `name`.
    pub name: String,
    /// v2 `teaches`: one line.
    pub teaches: Option<String>,
    /// `description`, plain text.
    pub description: Option<String>,
    /// The `[[at]]` steps that say, pause or focus, in time order.
    pub steps: Vec<Step>,
    /// How many steps say something (the `N` of "step 3/N").
    pub narrated: usize,
    /// The `[[expect]]`s in time order.
    pub expectations: Vec<Expectation>,
    /// The questions in the order they are asked.
    pub questions: Vec<Question>,
    /// v2 `[focus]`: what is on screen from the start.
    pub focus: Option<Focus>,
    /// The scenario's end.
    pub end: SimTime,
    /// Every instant something is due, ascending, each once.
    stops: Vec<SimTime>,
}

/// One `[[at]]` step as the dashboard shows it (its command is the sim's to apply).
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// Its number among the steps that say something (from 1); 0 when it says nothing.
    pub number: usize,
    /// When it is due.
    pub at: SimTime,
    /// `say`: narration, Markdown-light.
    pub say: Option<String>,
    /// `pause = true`: the clock stops here until the user goes on.
    pub pause: bool,
    /// `focus`: what must be on screen from here on.
    pub focus: Option<Focus>,
    /// The step's command as written, shown with a pause that has no narration.
    pub command: Option<String>,
}

impl Script {
    /// What a dashboard shows of `scenario`; `None` when there is nothing to show beyond its
    /// name in the header (no description, narration, pause, focus, check or question).
    pub fn of(scenario: &Scenario) -> Option<Script> {
        let mut narrated = 0;
        let steps: Vec<Step> = scenario
            .timeline
            .iter()
            .filter(|a| a.say.is_some() || a.pause || a.focus.is_some())
            .map(|a| {
                let number = match a.say {
                    Some(_) => {
                        narrated += 1;
                        narrated
                    }
                    None => 0,
                };
                Step {
                    number,
                    at: a.at,
                    say: a.say.clone(),
                    pause: a.pause,
                    focus: a.focus.clone(),
                    command: a.command.as_ref().map(ToString::to_string),
                }
            })
            .collect();
        let description =
            scenario.description.as_ref().map(|d| d.trim().to_string()).filter(|d| !d.is_empty());
        let empty = steps.is_empty()
            && description.is_none()
            && scenario.expectations.is_empty()
            && scenario.questions.is_empty()
            && scenario.focus.is_none();
        if empty {
            return None;
        }
        let times = steps.iter().map(|s| s.at).chain(scenario.expectations.iter().map(|e| e.at));
        let asks = scenario.questions.iter().flat_map(|q| [q.at, q.answer_at]);
        let mut stops: Vec<SimTime> = times.chain(asks).chain([scenario.end]).collect();
        stops.sort_unstable();
        stops.dedup();
        Some(Script {
            name: scenario.name.clone(),
            teaches: scenario.teaches.clone(),
            description,
            steps,
            narrated,
            expectations: scenario.expectations.clone(),
            questions: scenario.questions.clone(),
            focus: scenario.focus.clone(),
            end: scenario.end,
            stops,
        })
    }

    /// Whether it is a lesson (narration, a pause or a question) rather than a scenario with
    /// checks: the pane is titled so.
    pub fn is_lesson(&self) -> bool {
        self.narrated > 0 || !self.questions.is_empty() || self.steps.iter().any(|s| s.pause)
    }

    /// Every instant the clock must touch, ascending.
    pub fn stops(&self) -> &[SimTime] {
        &self.stops
    }
}

/// A line of the lesson's log, shown newest first under what the lesson waits for.
#[derive(Clone, Debug, PartialEq)]
pub enum Entry {
    /// A step's narration (an index into [`Script::steps`]).
    Said(usize),
    /// A step that pauses without narration (an index into [`Script::steps`]).
    Paused(usize),
    /// An `[[expect]]`'s verdict when it fell due.
    Checked(Outcome),
    /// A question (an index into [`Script::questions`]): asked, answered, then revealed.
    Asked(usize),
    /// The scenario reached its end.
    Ended,
}

/// What the clock waits for at the instant it stands at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hold {
    /// A step with `pause = true` (an index into [`Script::steps`]).
    Pause(usize),
    /// A question waiting for its answer (an index into [`Script::questions`]).
    Ask(usize),
    /// A question's reveal, waiting to be read (an index into [`Script::questions`]).
    Reveal(usize),
}

/// The simulation's answer to a question, with what explains it.
#[derive(Clone, Debug, PartialEq)]
pub struct Reveal {
    /// The verdict, from [`Question::outcome`].
    pub outcome: QuestionOutcome,
    /// The choice the user picked, if any.
    pub picked: Option<usize>,
    /// The important events between the question's `time` and `answer_at`, oldest first.
    pub events: Vec<ClusterEvent>,
}

impl Reveal {
    /// The simulation's choice, when exactly one holds.
    pub fn answer(&self) -> Option<usize> {
        match self.outcome.answer {
            crate::scenario::SimAnswer::Choice(i) => Some(i),
            _ => None,
        }
    }

    /// Whether the user picked the simulation's choice.
    pub fn right(&self) -> bool {
        self.picked.is_some() && self.picked == self.answer()
    }
}

/// A scenario being played: where it is and what it has said, checked and asked.
#[derive(Clone, Debug)]
pub struct Lesson {
    /// What is played.
    pub script: Arc<Script>,
    /// Index into [`Script::stops`] of the next instant not yet done.
    next_stop: usize,
    /// The instant the clock stands at while something holds it.
    held_at: Option<SimTime>,
    /// What holds the clock, first shown first.
    pub holds: VecDeque<Hold>,
    /// The question is closed for a look at the cluster (Esc), still unanswered.
    pub hidden: bool,
    /// The log, oldest first.
    pub log: Vec<Entry>,
    /// The user's choice per question.
    pub picked: Vec<Option<usize>>,
    /// The reveal per question, once its `answer_at` came.
    pub revealed: Vec<Option<Reveal>>,
    /// What the lesson keeps on screen now.
    pub focus: Option<Focus>,
    /// Checks that held and failed so far.
    pub passed: usize,
    /// Checks that failed so far.
    pub failed: usize,
    /// Every event seen, for `event = "…"` checks and choices.
    history: History,
    /// Important events from the first question not yet revealed on, for its reveal.
    important: VecDeque<ClusterEvent>,
    /// Events later than the newest snapshot seen (they count once it shows their time).
    early: Vec<ClusterEvent>,
}

impl Lesson {
    /// `script` from its start.
    pub fn new(script: Arc<Script>) -> Lesson {
        let patterns = script
            .expectations
            .iter()
            .filter_map(|e| e.check.event_pattern())
            .chain(script.questions.iter().flat_map(Question::event_patterns));
        let history = History::watching(patterns.collect::<Vec<_>>());
        let n = script.questions.len();
        Lesson {
            focus: script.focus.clone(),
            script,
            next_stop: 0,
            held_at: None,
            holds: VecDeque::new(),
            hidden: false,
            log: Vec::new(),
            picked: vec![None; n],
            revealed: vec![None; n],
            passed: 0,
            failed: 0,
            history,
            important: VecDeque::new(),
            early: Vec::new(),
        }
    }

    /// The instant no sim time may pass now: where the clock is held, else the next instant
    /// something is due; `None` once everything is done.
    pub fn clock_stop(&self) -> Option<SimTime> {
        self.held_at.or_else(|| self.script.stops.get(self.next_stop).copied())
    }

    /// What holds the clock first, if anything.
    pub fn waiting(&self) -> Option<Hold> {
        self.holds.front().copied()
    }

    /// The question open for an answer, if any (also while hidden).
    pub fn asking(&self) -> Option<&Question> {
        match self.waiting() {
            Some(Hold::Ask(q)) => self.script.questions.get(q),
            _ => None,
        }
    }

    /// The question asked and not yet answered, if any: open, hidden (Esc), or asked at this
    /// instant behind a pause or a reveal that holds the clock first.
    pub fn unanswered(&self) -> Option<&Question> {
        self.holds.iter().find_map(|h| match h {
            Hold::Ask(q) => self.script.questions.get(*q),
            _ => None,
        })
    }

    /// The first question answered by the user whose reveal has not come yet, if any.
    pub fn awaiting_reveal(&self) -> Option<&Question> {
        let pending = |i: &usize| self.picked[*i].is_some() && self.revealed[*i].is_none();
        (0..self.script.questions.len()).find(pending).and_then(|i| self.script.questions.get(i))
    }

    /// Whether `pane` is in the focus.
    pub fn keeps(&self, pane: Pane) -> bool {
        self.focus.as_ref().is_some_and(|f| f.panes.contains(&pane))
    }

    /// Questions revealed so far and how many of them the user got right.
    pub fn score(&self) -> (usize, usize) {
        let shown: Vec<&Reveal> = self.revealed.iter().flatten().collect();
        (shown.len(), shown.iter().filter(|r| r.right()).count())
    }

    /// Takes in events the cluster logged, oldest first (any not yet shown by a snapshot
    /// wait until one shows their time).
    pub fn observe(&mut self, events: Vec<ClusterEvent>) {
        self.early.extend(events);
    }

    /// Counts the events up to `now` into the history and the reveals' events.
    fn take_in(&mut self, now: SimTime) {
        let split = self.early.partition_point(|e| e.at <= now);
        let due: Vec<ClusterEvent> = self.early.drain(..split).collect();
        let first_open = (0..self.script.questions.len())
            .find(|&q| self.revealed[q].is_none())
            .map(|q| self.script.questions[q].at);
        for event in due {
            self.history.observe(&event);
            if first_open.is_some_and(|t| event.at >= t) && is_important(&event.kind) {
                if self.important.len() == IMPORTANT_KEPT {
                    self.important.pop_front();
                }
                self.important.push_back(event);
            }
        }
    }

    /// The reveal of question `q` now, from `snap` (taken at its `answer_at`). Its events
    /// are the important ones between the question's `time` and `answer_at` that concern the
    /// partitions its choices look at, or no partition (a broker crashed, was fenced).
    fn reveal(&self, q: usize, snap: &Snapshot) -> Reveal {
        let question = &self.script.questions[q];
        let outcome = question.outcome(question.sim_answer(snap, &self.history));
        let partitions: Vec<String> = question
            .choices
            .iter()
            .flat_map(|c| c.checks.iter().filter_map(|check| check.partition().map(ToString::to_string)))
            .collect();
        let concerns = |e: &ClusterEvent| match partition_of(&e.kind) {
            Some(p) => partitions.is_empty() || partitions.contains(&p),
            None => true,
        };
        let events = self
            .important
            .iter()
            .filter(|e| e.at >= question.at && e.at <= question.answer_at && concerns(e))
            .cloned()
            .collect();
        Reveal { outcome, picked: self.picked[q], events }
    }
}

/// Whether the model's lesson waits for the user (a pause, a question, a reveal).
pub fn waits(model: &Model) -> bool {
    model.lesson.as_ref().is_some_and(|l| l.waiting().is_some())
}

/// Whether `t` is an instant the model's lesson stops the clock at.
pub fn stops_at(model: &Model, t: SimTime) -> bool {
    model.lesson.as_ref().is_some_and(|l| l.script.stops.binary_search(&t).is_ok())
}

/// Why a command that changes the cluster is refused now: a question is asked and not yet
/// revealed (unanswered, or answered and waiting for the simulation's answer), and a change
/// would change what the simulation answers.
pub fn refusal(model: &Model) -> Option<String> {
    let lesson = model.lesson.as_ref()?;
    if let Some(q) = lesson.unanswered() {
        return Some(format!("answer question {} first: a change now would change its answer", q.number));
    }
    let q = lesson.awaiting_reveal()?;
    Some(format!(
        "question {} is answered; the simulation answers it at {}: a change now would change that answer",
        q.number,
        format_instant(q.answer_at)
    ))
}

/// Whether a letter answers now although the dashboard has the keys: the open question was
/// closed for a look (Esc, the palette, the help), still unanswered.
pub fn answers_hidden(model: &Model) -> bool {
    model.lesson.as_ref().is_some_and(|l| l.hidden && l.asking().is_some())
}

/// Starts the model's lesson: its focus, and whatever is due at the first snapshot's time.
pub fn begin(model: &mut Model, snap: &Snapshot) {
    let Some(lesson) = &model.lesson else { return };
    if let Some(focus) = lesson.focus.clone() {
        apply_focus(model, &focus, snap);
    }
    arrive(model, snap);
}

/// The run started again from time 0: the lesson too.
pub fn restart(model: &mut Model, snap: &Snapshot) {
    if let Some(lesson) = &mut model.lesson {
        *lesson = Lesson::new(lesson.script.clone());
        model.mode = Mode::Normal;
        begin(model, snap);
    }
}

/// A snapshot came: does everything due up to its time, stopping at the first instant that
/// holds the clock.
pub fn arrive(model: &mut Model, snap: &Snapshot) {
    let now = snap.now_us;
    if let Some(lesson) = &mut model.lesson {
        lesson.take_in(now);
    }
    loop {
        let Some(lesson) = &mut model.lesson else { return };
        if !lesson.holds.is_empty() {
            return;
        }
        let Some(&at) = lesson.script.stops.get(lesson.next_stop).filter(|at| **at <= now) else { return };
        lesson.next_stop += 1;
        reach(model, at, snap);
        let Some(lesson) = &mut model.lesson else { return };
        if !lesson.holds.is_empty() {
            lesson.held_at = Some(at);
            model.paused = true;
            if matches!(lesson.waiting(), Some(Hold::Ask(_))) {
                if model.mode == Mode::Normal {
                    ask(model);
                } else {
                    // A line being typed, the help or the event log keep the keys; the pane
                    // says how to answer once they are given back.
                    lesson.hidden = true;
                }
            }
            return;
        }
    }
}

/// Does what is due at `at`: narration and focus, the checks, the reveals, the pauses, the
/// questions, the end.
fn reach(model: &mut Model, at: SimTime, snap: &Snapshot) {
    let Some(lesson) = &mut model.lesson else { return };
    let script = lesson.script.clone();
    let mut focus = None;
    let mut pauses = Vec::new();
    let mut clear_status = false;
    for (i, step) in script.steps.iter().enumerate().filter(|(_, s)| s.at == at) {
        match (&step.say, step.pause) {
            (Some(_), _) => lesson.log.push(Entry::Said(i)),
            (None, true) => lesson.log.push(Entry::Paused(i)),
            (None, false) => {}
        }
        if step.pause {
            pauses.push(Hold::Pause(i));
        }
        if let Some(f) = &step.focus {
            focus = Some(f.clone());
        }
    }
    for e in script.expectations.iter().filter(|e| e.at == at) {
        let outcome = e.check(snap, &lesson.history);
        if outcome.passed {
            lesson.passed += 1;
        } else {
            lesson.failed += 1;
        }
        lesson.log.push(Entry::Checked(outcome));
    }
    for (q, question) in script.questions.iter().enumerate() {
        if question.answer_at == at && question.at < at {
            let reveal = lesson.reveal(q, snap);
            lesson.revealed[q] = Some(reveal);
            lesson.holds.push_back(Hold::Reveal(q));
            // The pane shows the answer; an older word in the status line would only distract.
            clear_status = true;
        }
    }
    // The answers due first, then the pause (its narration sums up what they showed), then
    // the new questions.
    lesson.holds.extend(pauses);
    for (q, _) in script.questions.iter().enumerate().filter(|(_, q)| q.at == at) {
        lesson.log.push(Entry::Asked(q));
        lesson.holds.push_back(Hold::Ask(q));
    }
    if at == script.end {
        lesson.log.push(Entry::Ended);
    }
    if let Some(f) = focus {
        lesson.focus = Some(f.clone());
        apply_focus(model, &f, snap);
    }
    // The pane lists each check as it falls due (the title counts them): the status line
    // does not say it a second time.
    if clear_status {
        model.status = None;
    }
}

/// Selects what a focus names.
fn apply_focus(model: &mut Model, focus: &Focus, snap: &Snapshot) {
    if let Some(tp) = &focus.partition
        && let Some(i) = snap.partitions.iter().position(|p| p.tp == *tp)
    {
        model.selected_partition = i;
        model.selected_tp = Some(tp.clone());
    }
    if let Some(b) = focus.broker {
        model.selected_broker = Some(b);
    }
}

/// Opens the question that holds the clock.
fn ask(model: &mut Model) {
    let Some(lesson) = &mut model.lesson else { return };
    if lesson.asking().is_none() {
        return;
    }
    // The pane shows the question and how to answer it; a word in the status line from
    // before it was asked would only distract.
    lesson.hidden = false;
    model.mode = Mode::Question;
    model.status = None;
}

/// The next thing held at this instant, or the clock runs again.
fn go_on(model: &mut Model, snap: &Snapshot) {
    let Some(lesson) = &mut model.lesson else { return };
    lesson.holds.pop_front();
    // A word on what held the clock ("the answer stays until Enter or n") is stale now.
    model.status = None;
    match lesson.holds.front() {
        Some(Hold::Ask(_)) => ask(model),
        Some(_) => {}
        None => {
            // The pane's waiting line goes and the header's clock runs: that says it.
            lesson.held_at = None;
            model.paused = false;
            arrive(model, snap);
        }
    }
}

/// A key in the dashboard's mode while a lesson waits: Enter or `n` goes on (or opens the
/// question again), space goes on too; `.` and `n` cannot run time past a waiting lesson.
/// `None`: the key is the dashboard's.
pub fn on_key(model: &mut Model, ev: &KeyEvent, snap: &Snapshot) -> Option<Vec<Effect>> {
    let hold = model.lesson.as_ref()?.waiting()?;
    let lesson_key = keymap::lookup(keymap::LESSON_BINDINGS, ev);
    let dashboard_key = keymap::lookup_in(model.view, ev);
    match (hold, lesson_key, dashboard_key) {
        (Hold::Ask(_), Some(LessonAction::Continue), _) => ask(model),
        (Hold::Ask(q), None, Some(Action::TogglePause | Action::Step)) => {
            let lesson = model.lesson.as_ref()?;
            let question = &lesson.script.questions[q];
            let last = letter(question.choices.len().saturating_sub(1));
            let how = if lesson.hidden { "Enter or n shows it" } else { "a letter answers it" };
            let text = format!(
                "question {} waits for an answer (a–{last}): {how}; the clock runs after",
                question.number
            );
            model.say(StatusKind::Info, text);
        }
        (Hold::Reveal(_), None, Some(Action::TogglePause | Action::Step)) => {
            // The answer stays until it is read: space would otherwise run the clock past it.
            model.say(StatusKind::Info, "the simulation's answer stays until Enter or n");
        }
        (_, Some(LessonAction::Continue), _) | (_, None, Some(Action::TogglePause)) => go_on(model, snap),
        (_, None, Some(Action::Step)) => {
            model.say(StatusKind::Info, "the lesson waits here: Enter or n goes on");
        }
        _ => return None,
    }
    Some(Vec::new())
}

/// After a dashboard key while a question is open: if it gave the keys elsewhere (the
/// palette, the help), the question waits closed, as after Esc.
pub fn kept_asking(model: &mut Model, effects: Vec<Effect>) -> Vec<Effect> {
    if model.mode != Mode::Question
        && let Some(lesson) = &mut model.lesson
        && lesson.asking().is_some()
    {
        lesson.hidden = true;
    }
    effects
}

/// A letter (or Esc) while a question is open.
pub fn on_question(model: &mut Model, action: Option<QuestionAction>, snap: &Snapshot) -> Vec<Effect> {
    let Some(lesson) = &mut model.lesson else {
        model.mode = Mode::Normal;
        return Vec::new();
    };
    let Some(Hold::Ask(q)) = lesson.waiting() else {
        model.mode = Mode::Normal;
        return Vec::new();
    };
    let question = &lesson.script.questions[q];
    let last = letter(question.choices.len() - 1);
    match action {
        Some(QuestionAction::Answer(i)) if i < question.choices.len() => {
            let (number, answer_at) = (question.number, question.answer_at);
            lesson.picked[q] = Some(i);
            model.mode = Mode::Normal;
            let held = lesson.held_at;
            if held == Some(answer_at) {
                // Answered at the instant the simulation answers: the reveal comes at once.
                let reveal = lesson.reveal(q, snap);
                lesson.revealed[q] = Some(reveal);
                lesson.holds.insert(1, Hold::Reveal(q));
            }
            let text = format!(
                "you said {}: the run goes on to {} for the simulation's answer (question {number})",
                letter(i),
                format_instant(answer_at)
            );
            go_on(model, snap);
            if model.lesson.as_ref().is_some_and(|l| l.waiting().is_none()) {
                model.say(StatusKind::Info, text);
            }
        }
        Some(QuestionAction::Answer(i)) => {
            let text = format!("{} is not a choice here: a to {last}", letter(i));
            model.say(StatusKind::Error, text);
        }
        Some(QuestionAction::Hide) => {
            lesson.hidden = true;
            model.mode = Mode::Normal;
            let text = format!(
                "question {number} waits, and the clock with it: a–{last} answer, Enter or n shows it again",
                number = question.number
            );
            model.say(StatusKind::Info, text);
        }
        Some(QuestionAction::Quit) => {
            model.quit = true;
            return vec![Effect::Quit];
        }
        None => {
            model.say(
                StatusKind::Info,
                format!("letters answer here: a to {last} (Esc: look at the cluster first)"),
            );
        }
    }
    Vec::new()
}

#[cfg(test)]
mod tests;
