//! The header line: `isrlab [view]  seed 42  t=00:01:23.4  ▶ 1×  <semantics>   acked lost: N`.
//! The partition counts (under-replicated, under min ISR, offline) and the loss counter are
//! right-aligned and always shown; the semantics text gives way first.

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
    let mut left = vec![
        Span::styled(" isrlab", theme.brand()),
        view_tag(model, area.width),
        Span::styled("  seed ", theme.muted()),
        Span::raw(snap.seed.to_string()),
        Span::styled("  t=", theme.muted()),
        Span::styled(sim_time(model, snap), theme.title()),
        Span::raw("  "),
        clock(model, snap),
    ];
    let right = right_side(theme, snap, usize::from(area.width), &left);
    let right_w = right.width() as u16;
    let [left_area, right_area] =
        Layout::horizontal([Constraint::Fill(1), Constraint::Length(right_w + 1)]).areas(area);
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

/// Which view is shown, `[brokers]`: always in the other views; in the overview from
/// [`super::view::WIDE`] columns on (at 80 columns the plain screen is the overview, and its
/// room goes to the scenario name and the counts).
fn view_tag(model: &Model, width: u16) -> Span<'static> {
    use super::app::View;
    if model.view == View::Overview && width < super::view::WIDE {
        return Span::raw("");
    }
    Span::styled(format!(" [{}]", model.view.name()), model.theme.title())
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

/// The right-aligned part in `width` columns, after the essentials `left`: the partition
/// counts then the loss counters. The loss counters always show; the counts give way in
/// this order: the zero counts, then all counts, so that a scenario keeps at least
/// [`MIN_ROOM`] columns of its name.
fn right_side(theme: Theme, snap: &Snapshot, width: usize, left: &[Span]) -> Line<'static> {
    let used: usize = left.iter().map(Span::width).sum();
    // What `scenario_name` needs for MIN_ROOM columns of the name: its two spaces and the
    // three columns `room` keeps free.
    let keep = if snap.scenario.is_some() { MIN_ROOM + 5 } else { 0 };
    let loss = loss(theme, snap);
    let forms = [counts(theme, snap, true), counts(theme, snap, false), Vec::new()];
    let fits = |spans: &Vec<Span<'static>>| {
        used + keep + 1 + loss.width() + spans.iter().map(Span::width).sum::<usize>() <= width
    };
    let chosen = forms.into_iter().find(fits).unwrap_or_default();
    Line::from(chosen.into_iter().chain(loss.spans).collect::<Vec<_>>())
}

/// `URP n <minISR n offline n  ` (Kafka's `UnderReplicatedPartitions`,
/// `UnderMinIsrPartitionCount`, `OfflinePartitionsCount`); without `zeros`, only the counts
/// above zero (nothing when all are zero).
fn counts(theme: Theme, snap: &Snapshot, zeros: bool) -> Vec<Span<'static>> {
    let c = snap.health_counts();
    let all = [
        ("URP", c.under_replicated, theme.warn()),
        ("<minISR", c.under_min_isr, theme.bad()),
        ("offline", c.offline, theme.alarm()),
    ];
    let mut spans: Vec<Span<'static>> = all
        .into_iter()
        .filter(|(_, n, _)| zeros || *n > 0)
        .map(|(label, n, bad)| Span::styled(format!("{label} {n} "), if n > 0 { bad } else { theme.muted() }))
        .collect();
    if !spans.is_empty() {
        spans.push(Span::raw(" "));
    }
    spans
}

/// Duplicates, seen-erased and acked-lost records (the last always shown).
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
