//! The clients pane: per producer its rate, acks, idempotence, sent/acked/failed/pending
//! counts, errors by Kafka error name and the last error; per consumer its positions and lags
//! ([`super::consumers`]); then the cluster's acked-lost and duplicate counts. When rows are
//! short it switches to a compact form.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use std::collections::BTreeMap;

use super::brokers::number;
use super::consumers;
use super::text;
use super::theme::Theme;
use crate::cluster::snapshot::{ProducerView, Snapshot};
use crate::sim::{format_time, join_ids};

/// Rows the full form needs: title, the cluster line, four per producer, two per consumer.
fn full_rows(snap: &Snapshot) -> u16 {
    let n = u16::try_from(snap.producers.len()).unwrap_or(u16::MAX);
    n.max(1).saturating_mul(4).saturating_add(2).saturating_add(consumers::full_rows(snap))
}

/// Rows this pane would like: the full form plus two for a long last error.
pub fn height_needed(snap: &Snapshot) -> u16 {
    full_rows(snap).saturating_add(2)
}

/// Draws the pane.
pub fn render(frame: &mut Frame, area: Rect, theme: Theme, snap: &Snapshot) {
    let full = area.height >= full_rows(snap);
    let width = usize::from(area.width);
    let title =
        if full { vec![Span::styled(" Clients ", theme.title())] } else { compact_title(snap, theme) };
    let block = Block::new().borders(Borders::TOP).title(Line::from(title));
    let mut lines = Vec::new();
    if snap.producers.is_empty() {
        lines.push(Line::styled(" no producer (produce with `:produce T N`)", theme.muted()));
    }
    if full {
        lines.insert(0, cluster_line(snap, theme));
        for p in &snap.producers {
            lines.extend(full_lines(p, theme, width));
        }
        lines.extend(consumers::full_lines(snap, theme, width));
    } else {
        lines.extend(snap.producers.iter().map(|p| compact_line(p, theme)));
        lines.extend(consumers::compact_lines(snap, theme));
        lines.extend(snap.producers.iter().flat_map(|p| last_error_lines(p, theme, width)));
    }
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// The compact title carries what the missing rows would: loss and errors by name.
fn compact_title(snap: &Snapshot, theme: Theme) -> Vec<Span<'static>> {
    let lost = if snap.acked_lost > 0 { theme.alarm() } else { theme.title() };
    let mut spans = vec![
        Span::styled(" Clients · ", theme.title()),
        Span::styled(format!("acked lost {}", snap.acked_lost), lost),
        Span::styled(" ", theme.title()),
    ];
    let mut errors: BTreeMap<&str, u64> = BTreeMap::new();
    for (name, n) in snap.producers.iter().flat_map(|p| &p.errors) {
        *errors.entry(name).or_default() += n;
    }
    if !errors.is_empty() {
        let list: Vec<String> = errors.iter().map(|(name, n)| format!("{name} {n}")).collect();
        spans.push(Span::styled(format!("· errors: {} ", list.join(", ")), theme.bad()));
    }
    spans
}

fn settings(p: &ProducerView) -> String {
    let idem = if p.idempotent { "idempotent" } else { "not idempotent" };
    format!("{}/s  acks={}  {idem}", number(p.config.rate), p.config.acks)
}

fn counts(p: &ProducerView, theme: Theme) -> Vec<Span<'static>> {
    let failed = if p.failed > 0 { theme.bad() } else { theme.normal() };
    vec![
        Span::raw(format!(" sent {}  acked {}  ", p.sent, p.acked)),
        Span::styled(format!("failed {}", p.failed), failed),
        Span::raw(format!("  pending {}", p.pending)),
    ]
}

fn full_lines(p: &ProducerView, theme: Theme, width: usize) -> Vec<Line<'static>> {
    let name = |long: bool| {
        if long {
            format!(" producer {} → {}  ", p.index, p.topic)
        } else {
            format!(" p{} → {}  ", p.index, p.topic)
        }
    };
    let fits = text::width(&name(true)) + text::width(&settings(p)) <= width;
    let head = Line::from(vec![Span::styled(name(fits), theme.leader()), Span::raw(settings(p))]);
    let mut lines = vec![head, Line::from(counts(p, theme)), errors_line(p, theme)];
    lines.extend(last_error_lines(p, theme, width));
    lines
}

fn compact_line(p: &ProducerView, theme: Theme) -> Line<'static> {
    let mut spans = vec![Span::styled(format!(" p{} ", p.index), theme.leader()), Span::raw(settings(p))];
    spans.push(Span::raw(" ·"));
    spans.extend(counts(p, theme));
    Line::from(spans)
}

fn errors_line(p: &ProducerView, theme: Theme) -> Line<'static> {
    let mut spans = if p.errors.is_empty() {
        vec![Span::styled(" errors: none", theme.muted())]
    } else {
        let list: Vec<String> = p.errors.iter().map(|(name, n)| format!("{name} {n}")).collect();
        vec![Span::styled(format!(" errors: {}", list.join(", ")), theme.bad())]
    };
    spans.extend(unreachable_span(p, theme));
    Line::from(spans)
}

/// Brokers the producer cannot connect to: their partitions' batches wait (no retry is spent)
/// while it reconnects.
fn unreachable_span(p: &ProducerView, theme: Theme) -> Option<Span<'static>> {
    let noun = match p.unreachable.len() {
        0 => return None,
        1 => "broker",
        _ => "brokers",
    };
    let ids = join_ids(&p.unreachable);
    Some(Span::styled(format!("  · {noun} {ids} unreachable"), theme.warn()))
}

/// The last error, word-wrapped onto at most three lines (rows that do not fit are cut).
fn last_error_lines(p: &ProducerView, theme: Theme, width: usize) -> Vec<Line<'static>> {
    let Some((at, what)) = &p.last_error else {
        return vec![Line::styled(" last error: none", theme.muted())];
    };
    let stamp = Span::styled(format!(" last error {} ", format_time(*at)), theme.muted());
    let mut lines = text::hanging(stamp, what, theme.normal(), width, 3);
    lines.truncate(3);
    lines
}

fn cluster_line(snap: &Snapshot, theme: Theme) -> Line<'static> {
    let lost = if snap.acked_lost > 0 { theme.alarm() } else { theme.good() };
    let dups = if snap.duplicates > 0 { theme.warn() } else { theme.normal() };
    let mut spans = vec![
        Span::raw(" cluster: "),
        Span::styled(format!("acked lost {}", snap.acked_lost), lost),
        Span::raw("  "),
        Span::styled(format!("duplicates {}", snap.duplicates), dups),
    ];
    // Only consumers can read records that are erased afterwards.
    if !snap.consumers.is_empty() || snap.seen_erased > 0 {
        spans.push(Span::raw("  "));
        spans.push(Span::styled(format!("seen erased {}", snap.seen_erased), seen_erased_style(snap, theme)));
    }
    Line::from(spans)
}

/// How records consumers read and that were erased afterwards look: alarming when any.
fn seen_erased_style(snap: &Snapshot, theme: Theme) -> ratatui::style::Style {
    if snap.seen_erased > 0 { theme.alarm() } else { theme.normal() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::fixture;

    fn text(line: &Line) -> String {
        line.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn the_errors_line_names_unreachable_brokers() {
        let mut p = fixture::snapshot().producers.remove(0);
        let theme = Theme::new(false);
        assert!(!text(&errors_line(&p, theme)).contains("unreachable"));
        p.unreachable = vec![0];
        assert_eq!(text(&errors_line(&p, theme)), " errors: NOT_ENOUGH_REPLICAS 37  · broker 0 unreachable");
        p.errors.clear();
        p.unreachable = vec![0, 2];
        assert_eq!(text(&errors_line(&p, theme)), " errors: none  · brokers 0,2 unreachable");
    }
}
