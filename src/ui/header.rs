//! The header line: `isrlab  seed 42  t=00:01:23.4  ▶ 1×  <semantics>   acked lost: N`.
//! The loss counter is right-aligned and always shown; the semantics text gives way first.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::app::Model;
use super::text;
use super::theme::{Theme, glyph};
use crate::cluster::snapshot::Snapshot;
use crate::sim::{format_stamp, format_time};

/// Draws the header.
pub fn render(frame: &mut Frame, area: Rect, model: &Model, snap: &Snapshot) {
    let theme = model.theme;
    let right = loss(theme, snap);
    let right_w = right.width() as u16;
    let [left_area, right_area] =
        Layout::horizontal([Constraint::Fill(1), Constraint::Length(right_w + 1)]).areas(area);
    let mut left = vec![
        Span::styled(" isrlab", theme.brand()),
        Span::styled("  seed ", theme.muted()),
        Span::raw(snap.seed.to_string()),
        Span::styled("  t=", theme.muted()),
        Span::styled(sim_time(model, snap), theme.title()),
        Span::raw("  "),
        clock(model, snap),
    ];
    let room = |left: &[Span]| {
        let used: usize = left.iter().map(Span::width).sum();
        usize::from(left_area.width).saturating_sub(used + 3)
    };
    if let Some(scenario) = &snap.scenario {
        let spans = scenario_name(&scenario.name, room(&left), theme);
        left.extend(spans);
    }
    let rest = room(&left);
    if rest >= MIN_ROOM {
        left.push(Span::raw("  "));
        left.push(Span::styled(text::truncate(&snap.semantics.to_string(), rest), theme.muted()));
    }
    frame.render_widget(Paragraph::new(Line::from(left)), left_area);
    frame.render_widget(Paragraph::new(right).right_aligned(), right_area);
}

/// The sim time as the header shows it: tenths of a second, or milliseconds below 1×, where
/// tenths would stand still for seconds (at 0.01× a tenth takes ten wall seconds).
fn sim_time(model: &Model, snap: &Snapshot) -> String {
    if model.speed < 1.0 { format_stamp(snap.now_us, false) } else { format_time(snap.now) }
}

/// Text shorter than this is not worth showing in the header.
const MIN_ROOM: usize = 8;

/// `  scenario <name>` in `room` columns: the label goes first, then the name is cut with `…`.
fn scenario_name(name: &str, room: usize, theme: Theme) -> Vec<Span<'static>> {
    const LABEL: &str = "  scenario ";
    let labelled = room.saturating_sub(LABEL.len());
    if labelled >= MIN_ROOM.max(text::width(name).min(24)) {
        vec![Span::styled(LABEL, theme.muted()), Span::styled(text::truncate(name, labelled), theme.title())]
    } else if room >= MIN_ROOM + 2 {
        vec![Span::raw("  "), Span::styled(text::truncate(name, room - 2), theme.title())]
    } else {
        Vec::new()
    }
}

fn clock(model: &Model, snap: &Snapshot) -> Span<'static> {
    let theme = model.theme;
    if model.scenario_over(snap) {
        Span::styled(format!("{} end of scenario", glyph::ENDED), theme.warn())
    } else if model.paused {
        Span::styled(format!("{} paused", glyph::PAUSED), theme.warn())
    } else if let Some(actual) = model.actual_speed {
        let text = format!("{} {} (actual {actual}×)", glyph::RUNNING, text::speed(model.speed));
        Span::styled(text, theme.warn())
    } else {
        Span::styled(format!("{} {}", glyph::RUNNING, text::speed(model.speed)), theme.good())
    }
}

fn loss(theme: Theme, snap: &Snapshot) -> Line<'static> {
    let mut spans = Vec::new();
    if snap.duplicates > 0 {
        spans.push(Span::styled(format!("duplicates: {}", snap.duplicates), theme.warn()));
        spans.push(Span::raw("  "));
    }
    if snap.seen_erased > 0 {
        spans.push(Span::styled(format!(" ⚠ seen erased: {} ", snap.seen_erased), theme.alarm()));
        spans.push(Span::raw("  "));
    }
    if snap.acked_lost > 0 {
        spans.push(Span::styled(format!(" ⚠ acked lost: {} ", snap.acked_lost), theme.alarm()));
    } else {
        spans.push(Span::styled("acked lost: 0", theme.good()));
    }
    Line::from(spans)
}
