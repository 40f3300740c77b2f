//! The event log: the most recent events that fit, oldest at the top and newest at the
//! bottom, each stamped with sim time and word-wrapped under its text.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::text;
use super::theme::Theme;
use crate::cluster::snapshot::Snapshot;
use crate::sim::events::{ClusterEvent, ElectionKind, EventKind};
use crate::sim::format_time;

/// Width of the time stamp plus its space: `00:01:23.4 `.
const STAMP: usize = 11;

/// Draws the pane.
pub fn render(frame: &mut Frame, area: Rect, theme: Theme, snap: &Snapshot) {
    let title = Span::styled(format!(" Events · {} so far ", snap.event_count), theme.title());
    let block = Block::new().borders(Borders::TOP).title(title);
    let inner = block.inner(area);
    let lines =
        fitting_lines(&snap.recent_events, theme, usize::from(inner.width), usize::from(inner.height));
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// The newest events whose wrapped lines fit in `height` rows, in time order. The oldest
/// one shown may be cut short (marked `…`) to use the rows that are left.
pub fn fitting_lines(
    events: &[ClusterEvent],
    theme: Theme,
    width: usize,
    height: usize,
) -> Vec<Line<'static>> {
    let mut picked: Vec<Vec<Line<'static>>> = Vec::new();
    let mut used = 0;
    for ev in events.iter().rev() {
        let mut lines = event_lines(ev, theme, width);
        let left = height - used;
        if lines.len() > left {
            if left > 0 {
                lines.truncate(left);
                if let Some(last) = lines.last_mut() {
                    last.push_span(Span::styled("…", theme.muted()));
                }
                picked.push(lines);
            }
            break;
        }
        used += lines.len();
        picked.push(lines);
    }
    picked.into_iter().rev().flatten().collect()
}

fn event_lines(ev: &ClusterEvent, theme: Theme, width: usize) -> Vec<Line<'static>> {
    let style = style_of(&ev.kind, theme);
    let body = ev.kind.to_string();
    let wrapped = text::wrap(&body, width.saturating_sub(STAMP + 2).max(10));
    wrapped
        .into_iter()
        .enumerate()
        .map(|(i, part)| {
            let stamp = if i == 0 { format!(" {}", format_time(ev.at)) } else { " ".repeat(STAMP) };
            Line::from(vec![Span::styled(stamp, theme.muted()), Span::raw(" "), Span::styled(part, style)])
        })
        .collect()
}

/// How an event looks: loss is loud, faults are red, degradations yellow, recoveries green.
fn style_of(kind: &EventKind, theme: Theme) -> Style {
    use EventKind::*;
    match kind {
        AckedRecordsLost { .. } => theme.alarm(),
        BrokerCrashed { .. } | Truncated { .. } | RecordsExpired { .. } | ProduceFailing { .. } => {
            theme.bad()
        }
        LeaderChanged { new_leader: None, .. } | LeaderChanged { kind: ElectionKind::Unclean, .. } => {
            theme.bad()
        }
        BrokerFenced { .. } | IsrShrunk { .. } | DuplicateAcked { .. } | FetchPaused { paused: true, .. } => {
            theme.warn()
        }
        BrokerUnfenced { .. } | IsrExpanded { .. } | ProduceRecovered { .. } => theme.good(),
        _ => theme.normal(),
    }
}
