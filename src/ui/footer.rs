//! The two bottom lines: the status line (the answer to the last command, or what is
//! selected) and the key hints, generated from the active mode's key table.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::app::{Mode, Model, StatusKind};
use super::keymap::{self, footer_hints};
use super::text;
use crate::cluster::snapshot::Snapshot;

/// Draws the status line: the last message, else the current selection.
pub fn render_status(frame: &mut Frame, area: Rect, model: &Model, snap: &Snapshot) {
    let theme = model.theme;
    let width = usize::from(area.width).saturating_sub(1);
    let line = match &model.status {
        Some(status) => {
            let style = match status.kind {
                StatusKind::Info => theme.normal(),
                StatusKind::Done => theme.good(),
                StatusKind::Error => theme.bad(),
            };
            Line::styled(format!(" {}", text::truncate(&status.text, width)), style)
        }
        None => Line::styled(format!(" {}", selection(model, snap)), theme.muted()),
    };
    frame.render_widget(Paragraph::new(line), area);
}

fn selection(model: &Model, snap: &Snapshot) -> String {
    let partition = model.partition(snap).map_or("no partition".to_string(), |p| p.tp.to_string());
    format!("selected: broker {} · {partition}", model.selected_broker)
}

/// Draws the key hints of the active mode, as many as fit.
pub fn render(frame: &mut Frame, area: Rect, model: &Model) {
    let hints: Vec<(&str, &str)> = match model.mode {
        Mode::Normal => footer_hints(keymap::BINDINGS).collect(),
        Mode::Palette => footer_hints(keymap::PALETTE_BINDINGS).collect(),
        Mode::Help => footer_hints(keymap::HELP_BINDINGS).collect(),
    };
    let theme = model.theme;
    let mut spans = Vec::new();
    let mut used = 0;
    for (keys, what) in hints {
        let gap = if spans.is_empty() { " " } else { "  " };
        let w = gap.len() + text::width(keys) + 1 + text::width(what);
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
