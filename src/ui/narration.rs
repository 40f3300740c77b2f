//! The lesson pane: what a played scenario says, newest first. On top, what the lesson waits
//! for: an open question with its lettered choices, the simulation's answer with the events
//! that explain it, or a pause. Below, the log: each step's narration with its number and sim
//! time, each check as it fell due (✓ or ✗ with the expected and the actual value), each
//! question and how it was answered; at the bottom the scenario's name and description.
//! Narration is Markdown-light ([`super::rich`]).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::app::Model;
use super::events;
use super::keymap::{self, Action};
use super::lesson::{Entry, Hold, Lesson, Reveal};
use super::rich;
use super::text;
use super::theme::Theme;
use crate::cluster::snapshot::Snapshot;
use crate::scenario::ask::letter;
use crate::scenario::expect::Outcome;
use crate::scenario::markup;
use crate::sim::events::ClusterEvent;
use crate::sim::{SimTime, fine_stamps, format_instant};

/// Continuation lines are indented this far.
const INDENT: usize = 3;
/// The newest log entries worked out for the pane (older ones are below any screen).
const ENTRIES_SHOWN: usize = 40;
/// Rows the events of a reveal take at most.
const REVEAL_EVENT_ROWS: usize = 6;

/// Rows the pane wants, its title included.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Rows {
    /// What it must have: all of what the lesson waits for (a question with every choice,
    /// an answer), else a few lines of narration.
    pub min: u16,
    /// What shows what it has to say now: the whole of what the lesson waits for, or the
    /// newest narration (at most a few rows, more on a taller screen).
    pub want: u16,
}

/// The rows the pane wants at `width` columns on a screen `height` rows tall; `None` without
/// a lesson.
pub fn rows(model: &Model, snap: &Snapshot, width: u16, height: u16) -> Option<Rows> {
    let lesson = model.lesson.as_ref()?;
    let width = usize::from(width);
    let held = held_lines(model, lesson, snap, width, usize::MAX).len();
    let said = newest_said(lesson).map_or(0, |e| entry_lines(model, lesson, e, width).len());
    let log = log_lines(model, lesson, width, 12).len();
    let cap = usize::from((height / 5).clamp(4, 10));
    // While the lesson waits: all of what it waits for, the step's narration and a line more.
    let body = if held > 0 { held + log.min(said + 1) } else { log.min(cap.max(said)) };
    // What must show whole: what the lesson waits for (a question with every choice, an
    // answer) and the current step's narration.
    let min = u16::try_from(held + said.min(log) + 1).unwrap_or(u16::MAX).max(2);
    let want = u16::try_from(body + 1).unwrap_or(u16::MAX).max(min);
    Some(Rows { min, want })
}

/// `a-c`: the letters of the open question's choices.
pub fn choice_letters(model: &Model) -> Option<String> {
    let q = model.lesson.as_ref()?.asking()?;
    Some(format!("a-{}", letter(q.choices.len().saturating_sub(1))))
}

/// Draws the pane in `area`.
pub fn render(frame: &mut Frame, area: Rect, model: &Model, snap: &Snapshot) {
    let Some(lesson) = &model.lesson else { return };
    let theme = model.theme;
    let width = usize::from(area.width);
    let title = text::fit_title(Line::from(Span::styled(title(lesson, width), theme.title())), area.width);
    let block = Block::new().borders(Borders::TOP).title(title);
    let inner = block.inner(area);
    let lines = fitted(model, lesson, snap, usize::from(inner.width), usize::from(inner.height));
    frame.render_widget(Paragraph::new(text::fit_all(lines, usize::from(inner.width))).block(block), area);
}

/// The pane's lines in `height` rows: what the lesson waits for (its last line, how to go
/// on, always kept), then the current step's narration whole, then the older log. What does
/// not fit is cut with `…`; narration cut short says where to read it whole.
fn fitted(
    model: &Model,
    lesson: &Lesson,
    snap: &Snapshot,
    width: usize,
    height: usize,
) -> Vec<Line<'static>> {
    let mut lines = held_lines(model, lesson, snap, width, height);
    if lines.len() >= height {
        // Too little room for all of what the lesson waits for: its last line says how to
        // go on, so keep that one.
        let Some(last) = lines.pop() else { return lines };
        let mut kept = text::at_most(lines, height.saturating_sub(1), width);
        kept.push(last);
        kept.truncate(height);
        return kept;
    }
    let room = height - lines.len();
    let log = log_lines(model, lesson, width, room);
    let said = newest_said(lesson).map_or(0, |e| entry_lines(model, lesson, e, width).len());
    if said > room && room >= 2 {
        // The current step's narration does not fit: its first rows, cut with `…`, and where
        // to read it whole.
        let mut cut = text::at_most(log, room - 1, width);
        let hint = "   (cut short: read it whole on a taller screen, or with isrlab lesson --headless)";
        cut.push(Line::styled(hint, model.theme.muted()));
        lines.extend(cut);
    } else {
        lines.extend(text::at_most(log, room, width));
    }
    lines
}

/// ` Lesson · NAME · step 3/8 · checks ✓4 ✗1 · questions 1/2 right `, cut to fit.
fn title(lesson: &Lesson, width: usize) -> String {
    let script = &lesson.script;
    let kind = if script.is_lesson() { "Lesson" } else { "Scenario" };
    let mut parts = vec![format!(" {kind} · {}", script.name)];
    let said = lesson.log.iter().filter(|e| matches!(e, Entry::Said(_))).count();
    if said > 0 {
        parts.push(format!("step {said}/{}", script.narrated));
    }
    if lesson.passed + lesson.failed > 0 {
        parts.push(format!("checks ✓{} ✗{}", lesson.passed, lesson.failed));
    }
    let (asked, right) = lesson.score();
    if asked > 0 {
        parts.push(format!("questions {right}/{asked} right"));
    }
    let room = width.saturating_sub(2);
    let mut out = String::new();
    for (i, part) in parts.iter().enumerate() {
        let next = if i == 0 { part.clone() } else { format!("{out} · {part}") };
        if text::width(&next) + 1 > room {
            if i == 0 {
                out = text::truncate(part, room.saturating_sub(1));
            }
            break;
        }
        out = next;
    }
    out.push(' ');
    out
}

/// What the lesson waits for, if anything, in about `rows` rows: its lines, the last one
/// saying how to go on.
fn held_lines(
    model: &Model,
    lesson: &Lesson,
    snap: &Snapshot,
    width: usize,
    rows: usize,
) -> Vec<Line<'static>> {
    let theme = model.theme;
    match lesson.waiting() {
        None => Vec::new(),
        Some(Hold::Pause(i)) => {
            let at = lesson.script.steps.get(i).map_or(snap.now_us, |s| s.at);
            let text = format!("⏸ the lesson waits at {} · {} go on", format_instant(at), continue_keys());
            vec![Line::styled(format!(" {}", text::truncate(&text, width.saturating_sub(1))), theme.warn())]
        }
        Some(Hold::Ask(q)) => question_lines(lesson, q, theme, width),
        Some(Hold::Reveal(q)) => match &lesson.revealed[q] {
            Some(reveal) => reveal_lines(lesson, q, reveal, theme, width, rows),
            None => Vec::new(),
        },
    }
}

fn continue_keys() -> &'static str {
    keymap::LESSON_BINDINGS.first().map_or("Enter/n", |b| b.label)
}

/// An open question: its number, time and text, its lettered choices, how to answer.
fn question_lines(lesson: &Lesson, q: usize, theme: Theme, width: usize) -> Vec<Line<'static>> {
    let question = &lesson.script.questions[q];
    let of = lesson.script.questions.len();
    let last = letter(question.choices.len() - 1);
    if lesson.hidden {
        // Closed for a look at the cluster: one line says it waits and how to open it again.
        let text = format!(
            " ? Question {}/{of} waits, hidden · {}: show it again · a–{last}: answer",
            question.number,
            continue_keys()
        );
        return vec![Line::styled(text, theme.warn())];
    }
    let head = format!(" ? Question {}/{of} · {} · ", question.number, format_instant(question.at));
    let mut lines = rich::hanging(
        vec![Span::styled(head, theme.warn())],
        &question.question,
        Style::new().add_modifier(ratatui::style::Modifier::BOLD),
        theme,
        width,
        INDENT,
    );
    for (i, choice) in question.choices.iter().enumerate() {
        let label = Span::styled(format!("   {}) ", letter(i)), theme.key());
        lines.extend(rich::hanging(vec![label], &choice.text, theme.normal(), theme, width, INDENT + 3));
    }
    let how = format!(" press a–{last} to answer (the clock waits) · Esc: look at the cluster first");
    lines.push(Line::styled(text::truncate(&how, width), theme.key()));
    lines
}

/// A reveal: the simulation's answer, whether the user's was right, the explanation, the
/// important events that lead there.
fn reveal_lines(
    lesson: &Lesson,
    q: usize,
    reveal: &Reveal,
    theme: Theme,
    width: usize,
    rows: usize,
) -> Vec<Line<'static>> {
    let question = &lesson.script.questions[q];
    let head = format!(
        " ! Question {} · the simulation's answer at {} · ",
        question.number,
        format_instant(question.answer_at)
    );
    let mut lines = rich::hanging(
        vec![Span::styled(head, theme.title())],
        &question.question,
        theme.normal(),
        theme,
        width,
        INDENT,
    );
    let answer = reveal.answer();
    match answer.and_then(|i| question.choices.get(i).map(|c| (i, c))) {
        Some((i, choice)) => {
            let label = Span::styled(format!("   the simulation says {}) ", letter(i)), theme.good());
            lines.extend(rich::hanging(vec![label], &choice.text, theme.good(), theme, width, INDENT + 3));
        }
        None => lines.push(Line::styled(format!("   ✗ {}", reveal.outcome), theme.bad())),
    }
    let said = match reveal.picked {
        Some(p) if Some(p) == answer => {
            Line::styled(format!("   you said {} ✓ right", letter(p)), theme.good())
        }
        Some(p) => {
            let text = question.choices.get(p).map(|c| markup::plain(&c.text)).unwrap_or_default();
            let line = format!("   you said {}) {} ✗", letter(p), text);
            Line::styled(text::truncate(&line, width), theme.bad())
        }
        None => Line::styled("   you did not answer", theme.muted()),
    };
    lines.push(said);
    if answer.is_some() && !reveal.outcome.passed {
        // The lesson states another answer than the simulation gives: say so, it is the
        // lesson that is wrong.
        lines.push(Line::styled(format!("   ✗ {}", reveal.outcome), theme.bad()));
    }
    if let Some(explain) = &question.explain {
        lines.extend(rich::hanging(vec![Span::raw("   ")], explain, theme.normal(), theme, width, INDENT));
    }
    // The events get the rows left (the pane's last row says how to go on).
    let room = rows.saturating_sub(lines.len() + 2).min(REVEAL_EVENT_ROWS);
    lines.extend(event_lines(&reveal.events, question.at, question.answer_at, theme, width, room));
    lines.push(Line::styled(format!(" {}: continue", continue_keys()), theme.key()));
    lines
}

/// The important events of a reveal, newest that fit in a few rows, under a line saying
/// which span they come from.
fn event_lines(
    events: &[ClusterEvent],
    from: SimTime,
    to: SimTime,
    theme: Theme,
    width: usize,
    rows: usize,
) -> Vec<Line<'static>> {
    let span = format!("{} to {}", format_instant(from), format_instant(to));
    if events.is_empty() {
        return vec![Line::styled(format!("   no important event from {span}"), theme.muted())];
    }
    let times: Vec<SimTime> = events.iter().map(|e| e.at).collect();
    let stamped: Vec<(&ClusterEvent, bool)> = events.iter().zip(fine_stamps(&times)).collect();
    let shown =
        if rows == 0 { Vec::new() } else { events::fitting_lines(&stamped, theme, width, rows, None) };
    // Each event shown (the oldest maybe cut short) starts with its stamp.
    let shown_events =
        shown.iter().filter(|l| l.spans.first().is_some_and(|s| !s.content.trim().is_empty())).count();
    let full = keymap::label_of(Action::ShowEvents).unwrap_or("F5");
    let head = match events.len().saturating_sub(shown_events) {
        0 => format!("   what happened from {span}:"),
        n if n == events.len() => {
            format!("   {n} important events from {span} explain it ({full}: the event log)")
        }
        n => format!("   what happened from {span} ({n} earlier: {full}):"),
    };
    let mut lines = vec![Line::styled(text::truncate(&head, width), theme.muted())];
    lines.extend(shown);
    lines
}

/// The newest narration, which the log shows first: what the lesson talks about now (at
/// the end, the end).
fn newest_said(lesson: &Lesson) -> Option<&Entry> {
    let ended = lesson.log.iter().rev().find(|e| matches!(e, Entry::Ended));
    ended.or_else(|| lesson.log.iter().rev().find(|e| matches!(e, Entry::Said(_))))
}

/// The log as many lines as `rows` (at least the first entry whole; when `rows` is 0
/// nothing): the newest narration first, then every other entry newest first, the intro last.
fn log_lines(model: &Model, lesson: &Lesson, width: usize, rows: usize) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let open = lesson.asking().map(|q| q.number);
    let pinned = newest_said(lesson);
    let rest = lesson.log.iter().rev().filter(|e| !pinned.is_some_and(|p| std::ptr::eq(*e, p)));
    for entry in pinned.into_iter().chain(rest).take(ENTRIES_SHOWN) {
        if lines.len() >= rows {
            return lines;
        }
        // The question being asked is on top already.
        if let Entry::Asked(q) = entry
            && open == Some(lesson.script.questions[*q].number)
        {
            continue;
        }
        lines.extend(entry_lines(model, lesson, entry, width));
    }
    if lines.len() < rows {
        lines.extend(intro_lines(lesson, model.theme, width));
    }
    lines
}

/// The scenario's name, what it teaches and its description.
fn intro_lines(lesson: &Lesson, theme: Theme, width: usize) -> Vec<Line<'static>> {
    let script = &lesson.script;
    let bold = Style::new().add_modifier(ratatui::style::Modifier::BOLD);
    let name = text::truncate(&script.name, width.saturating_sub(2));
    let mut lines = vec![Line::from(vec![Span::raw(" "), Span::styled(name, bold)])];
    if let Some(teaches) = &script.teaches {
        lines.extend(rich::hanging(vec![Span::raw(" ")], teaches, theme.normal(), theme, width, 1));
    }
    if let Some(description) = &script.description {
        for part in description.lines().filter(|l| !l.trim().is_empty()) {
            for wrapped in text::wrap(part.trim(), width.saturating_sub(2).max(10)) {
                lines.push(Line::styled(format!(" {wrapped}"), theme.muted()));
            }
        }
    }
    lines
}

/// One log entry's lines.
fn entry_lines(model: &Model, lesson: &Lesson, entry: &Entry, width: usize) -> Vec<Line<'static>> {
    let theme = model.theme;
    let script = &lesson.script;
    match entry {
        Entry::Said(i) => {
            let step = &script.steps[*i];
            let label = format!(" {}/{} {} ", step.number, script.narrated, format_instant(step.at));
            let text = step.say.as_deref().unwrap_or_default();
            rich::hanging(
                vec![Span::styled(label, theme.title())],
                text,
                theme.normal(),
                theme,
                width,
                INDENT,
            )
        }
        Entry::Paused(i) => {
            let step = &script.steps[*i];
            let what = step.command.as_ref().map_or(String::new(), |c| format!(" after `{c}`"));
            let text = format!("⏸ {} paused{what}", format_instant(step.at));
            rich::hanging(vec![Span::raw(" ")], &text, theme.muted(), theme, width, INDENT)
        }
        Entry::Checked(outcome) => check_lines(outcome, theme, width),
        Entry::Asked(q) => {
            let question = &script.questions[*q];
            let (mark, style, after) = match (&lesson.revealed[*q], lesson.picked[*q]) {
                (Some(r), _) if r.right() => ("✓", theme.good(), format!("you said {} ✓", picked(r))),
                (Some(r), _) => {
                    let answer =
                        r.answer().map_or("no single answer".to_string(), |i| format!("{}", letter(i)));
                    ("✗", theme.bad(), format!("you said {}, the simulation {answer} ✗", picked(r)))
                }
                (None, Some(p)) => (
                    "?",
                    theme.warn(),
                    format!(
                        "you said {}; the simulation answers at {}",
                        letter(p),
                        format_instant(question.answer_at)
                    ),
                ),
                (None, None) => ("?", theme.warn(), "waiting for your answer".to_string()),
            };
            let label = format!(" {mark} Q{} {} ", question.number, format_instant(question.at));
            let body = format!("{} — {after}", markup::plain(&question.question));
            let mut lines = Vec::new();
            for (i, part) in text::wrap_widths(
                &body,
                width.saturating_sub(text::width(&label) + 1),
                width.saturating_sub(INDENT + 1),
            )
            .into_iter()
            .enumerate()
            {
                let lead =
                    if i == 0 { Span::styled(label.clone(), style) } else { Span::raw(" ".repeat(INDENT)) };
                lines.push(Line::from(vec![lead, Span::raw(part)]));
            }
            // (Not while the pane shows this reveal on top.)
            if let Some(reveal) =
                lesson.revealed[*q].as_ref().filter(|_| lesson.waiting() != Some(Hold::Reveal(*q)))
            {
                // The reveal, kept to be read again: the simulation's answer and why.
                if let Some((i, choice)) =
                    reveal.answer().and_then(|i| question.choices.get(i).map(|c| (i, c)))
                {
                    let label = Span::styled(format!("   the simulation: {}) ", letter(i)), theme.good());
                    lines.extend(rich::hanging(
                        vec![label],
                        &choice.text,
                        theme.normal(),
                        theme,
                        width,
                        INDENT + 3,
                    ));
                }
                if let Some(explain) = &question.explain {
                    lines.extend(rich::hanging(
                        vec![Span::raw("   ")],
                        explain,
                        theme.normal(),
                        theme,
                        width,
                        INDENT,
                    ));
                }
            }
            lines
        }
        Entry::Ended => {
            let (asked, right) = lesson.score();
            let mut text = format!("⏹ {} the end", format_instant(script.end));
            if lesson.passed + lesson.failed > 0 {
                text.push_str(&format!(" · checks ✓{} ✗{}", lesson.passed, lesson.failed));
            }
            if asked > 0 {
                text.push_str(&format!(" · questions {right}/{asked} right"));
            }
            let restart = keymap::label_of(Action::Reset).unwrap_or("R");
            text.push_str(&format!(" · {restart} plays it again, q quits"));
            rich::hanging(vec![Span::raw(" ")], &text, theme.title(), theme, width, INDENT)
        }
    }
}

fn picked(reveal: &Reveal) -> String {
    reveal.picked.map_or("nothing".to_string(), |p| letter(p).to_string())
}

/// `✓ 00:00:15.0 t-0 leader: expected 0, got 0`, in the good or bad style.
fn check_lines(outcome: &Outcome, theme: Theme, width: usize) -> Vec<Line<'static>> {
    let (mark, style) = if outcome.passed { ("✓", theme.good()) } else { ("✗", theme.bad()) };
    let label = format!(" {mark} {} ", format_instant(outcome.at));
    let body = format!("{}: expected {}, got {}", outcome.subject, outcome.expected, outcome.got);
    let first = width.saturating_sub(text::width(&label) + 1);
    text::wrap_widths(&body, first, width.saturating_sub(INDENT + 1))
        .into_iter()
        .enumerate()
        .map(|(i, part)| {
            let lead = if i == 0 { label.clone() } else { " ".repeat(INDENT) };
            Line::from(vec![Span::styled(lead, style), Span::styled(part, style)])
        })
        .collect()
}
