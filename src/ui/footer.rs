//! The two bottom lines: the status line (the answer to the last command, or what is
//! selected) and the key hints, generated from the active mode's key table.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::app::{Mode, Model, Status, StatusKind};
use super::keymap::{self, footer_hints};
use super::text;
use crate::cluster::snapshot::Snapshot;

/// Most lines a status message may take; a longer one is cut with `…`.
pub const STATUS_MAX_LINES: usize = 3;

/// The status message word-wrapped to `width` (at most [`STATUS_MAX_LINES`] lines, wrapped
/// lines indented under the text after the `✔`/`✖`), or the current selection when there is
/// no message.
pub fn status_lines(model: &Model, snap: &Snapshot, width: u16) -> Vec<Line<'static>> {
    let whatif = super::whatif::line(model, width).map(|l| Line::styled(format!(" {l}"), model.theme.warn()));
    whatif.into_iter().chain(status_only(model, snap, width)).collect()
}

/// The status line alone (see [`status_lines`]).
fn status_only(model: &Model, snap: &Snapshot, width: u16) -> Vec<Line<'static>> {
    let theme = model.theme;
    let room = usize::from(width).saturating_sub(2);
    let Some(status) = &model.status else {
        return vec![Line::styled(
            format!(" {}", text::truncate(&selection(model, snap), room)),
            theme.muted(),
        )];
    };
    let style = match status.kind {
        StatusKind::Info => theme.normal(),
        StatusKind::Done => theme.good(),
        StatusKind::Error => theme.bad(),
    };
    let (head, body) = glyph_and_body(status);
    let indent = 1 + text::width(head);
    let width = room.saturating_sub(indent - 1);
    // A refusal keeps its reason; an answer that was done keeps what was done.
    let parts = if status.kind == StatusKind::Error {
        fitted(body, width)
    } else {
        text::wrap_at_most(body, width, STATUS_MAX_LINES)
    };
    parts
        .into_iter()
        .enumerate()
        .map(|(i, part)| {
            let lead = if i == 0 { format!(" {head}") } else { " ".repeat(indent) };
            Line::styled(format!("{lead}{part}"), style)
        })
        .collect()
}

/// A refusal's `body` wrapped to `width` in at most [`STATUS_MAX_LINES`] lines. One too long for
/// them (`set producer delivery.timeout.ms=<a long value>: invalid value …: expected …`)
/// shortens its echo of the command (before the first `: `, to `…`) so that the reason stays
/// whole (↑ in the palette brings the command back), breaking inside words if it must; only
/// a reason longer than the lines is cut at its end with `…`.
fn fitted(body: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut forms = vec![body.to_string()];
    if let Some((echo, reason)) = body.split_once(": ") {
        forms.extend(
            (1..text::width(echo)).rev().step_by(4).map(|n| format!("{}: {reason}", text::truncate(echo, n))),
        );
    }
    let wrapped = forms.iter().map(|s| text::wrap(s, width)).chain(forms.iter().map(|s| hard_wrap(s, width)));
    wrapped
        .into_iter()
        .find(|lines| lines.len() <= STATUS_MAX_LINES)
        .unwrap_or_else(|| text::wrap_at_most(body, width, STATUS_MAX_LINES))
}

/// `s` in lines of exactly `width` characters (the last shorter), words broken anywhere.
fn hard_wrap(s: &str, width: usize) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    chars.chunks(width).map(|c| c.iter().collect::<String>().trim_start().to_string()).collect()
}

/// Splits `✖ text` into `✖ ` and `text`; info messages have no glyph.
fn glyph_and_body(status: &Status) -> (&str, &str) {
    if status.kind == StatusKind::Info {
        return ("", &status.text);
    }
    match status.text.char_indices().nth(2) {
        Some((at, _)) if status.text[..at].ends_with(' ') => status.text.split_at(at),
        _ => ("", &status.text),
    }
}

/// Draws the status lines (from [`status_lines`]) in `area`.
pub fn render_status(frame: &mut Frame, area: Rect, lines: Vec<Line<'static>>) {
    frame.render_widget(Paragraph::new(text::fit_all(lines, usize::from(area.width))), area);
}

fn selection(model: &Model, snap: &Snapshot) -> String {
    let partition = model.partition(snap).map_or("no partition".to_string(), |p| p.tp.to_string());
    match model.selected_broker {
        Some(id) => format!("selected: broker {id} · {partition}"),
        None => format!("selected: no broker · {partition}"),
    }
}

/// Draws the key hints of the active mode, as many as fit.
pub fn render(frame: &mut Frame, area: Rect, model: &Model) {
    // While a lesson waits, its keys come first (Enter/n: continue).
    let waits = model.lesson.as_ref().and_then(|l| l.waiting());
    // A question closed for a look at the cluster: the same keys open it again.
    let asking = matches!(waits, Some(super::lesson::Hold::Ask(_)));
    let go_on = |f| if asking { "show question" } else { f };
    let lesson =
        footer_hints(keymap::LESSON_BINDINGS).filter(|_| waits.is_some()).map(|(k, f)| (k.into(), go_on(f)));
    // Its letters answer it meanwhile, in place of the dashboard's keys on them (`a` acks).
    let letters = super::narration::choice_letters(model).filter(|_| asking);
    let answers = letters.iter().map(|l| (std::borrow::Cow::Owned(l.clone()), "answer"));
    let answer_letter = |label: &str| asking && matches!(label, "a" | "b" | "c" | "d" | "e" | "f");
    let hints: Vec<(std::borrow::Cow<'static, str>, &str)> = match model.mode {
        Mode::Normal => lesson
            .chain(answers)
            .chain(keymap::BINDINGS.iter().filter(|b| !answer_letter(b.label)).filter_map(|b| {
                let label =
                    model.keys.label(b).map_or(std::borrow::Cow::Borrowed(b.label), std::borrow::Cow::Owned);
                // A key the shown view gives its own meaning says that one.
                let shown = keymap::view_binding(model.view, b.action).map_or(b, |v| &v.binding);
                shown.footer.map(|f| (label, f))
            }))
            .collect(),
        Mode::Question => footer_hints(keymap::QUESTION_BINDINGS)
            .map(|(k, f)| match (k, super::narration::choice_letters(model)) {
                ("a-f", Some(letters)) => (letters.into(), f),
                (k, _) => (k.into(), f),
            })
            .collect(),
        Mode::Palette | Mode::Prompt(_) => {
            footer_hints(keymap::PALETTE_BINDINGS).map(|(k, f)| (k.into(), f)).collect()
        }
        Mode::Events => footer_hints(keymap::EVENTS_BINDINGS).map(|(k, f)| (k.into(), f)).collect(),
        Mode::Help => footer_hints(keymap::HELP_BINDINGS).map(|(k, f)| (k.into(), f)).collect(),
        Mode::Readout => footer_hints(keymap::READOUT_BINDINGS).map(|(k, f)| (k.into(), f)).collect(),
    };
    let theme = model.theme;
    let mut spans = Vec::new();
    let mut used = 0;
    for (keys, what) in hints {
        let gap = if spans.is_empty() { " " } else { "  " };
        let w = gap.len() + text::width(&keys) + 1 + text::width(what);
        if used + w > usize::from(area.width) {
            break;
        }
        used += w;
        spans.push(Span::raw(gap));
        spans.push(Span::styled(keys, theme.key()));
        spans.push(Span::raw(format!(" {what}")));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
