//! The event log: the most recent events that fit, oldest at the top and newest at the
//! bottom, each stamped with sim time and word-wrapped under its text. Stamps show
//! milliseconds (`00:01:23.456`); every event of a millisecond that holds events at
//! different instants shows its microseconds too (`00:01:23.456.250`, see
//! [`crate::sim::fine_stamps`]), so events less than 1 ms apart read apart. It can be scrolled
//! back (`[`/`]`, held in place while new events arrive) and filtered to the important
//! events (`f`).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::app::Model;
use super::keymap::{self, Action};
use super::text;
use super::theme::Theme;
use crate::cluster::snapshot::Snapshot;
use crate::sim::events::{ClusterEvent, ElectionKind, EventKind, group};
use crate::sim::{fine_stamps, format_stamp};

/// Draws the pane.
pub fn render(frame: &mut Frame, area: Rect, model: &Model, snap: &Snapshot) {
    let theme = model.theme;
    let (anchor, important) = (model.events_anchor, model.events_important);
    let title = Span::styled(title(snap, anchor, important, usize::from(area.width)), theme.title());
    let block = Block::new().borders(Borders::TOP).title(title);
    let inner = block.inner(area);
    let shown = stamped_events(snap, anchor, important);
    let (width, height) = (usize::from(inner.width), usize::from(inner.height));
    let lines = if shown.is_empty() && important && !snap.recent_events.is_empty() {
        let kept = snap.recent_events.len();
        let text = format!(" no important events among the {kept} kept (f shows all)");
        vec![Line::styled(text::truncate(&text, width), theme.muted())]
    } else {
        fitting_lines(&shown, theme, width, height)
    };
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// The pane's title, as long as fits in `width` columns: the event count, how far it is
/// scrolled back, and whether it is filtered.
pub fn title(snap: &Snapshot, anchor: Option<u64>, important: bool, width: usize) -> String {
    let count = group(snap.event_count);
    let filter = if important { " · important only" } else { "" };
    let short_filter = if important { " · important" } else { "" };
    let back = anchor.map(|_| newer_count(snap, anchor, important));
    let candidates = match back {
        None => vec![format!(" Events · {count} so far{filter} "), format!(" Events{short_filter} ")],
        Some(newer) => {
            let follow = keymap::label_of(Action::EventsFollow).unwrap_or("}");
            let newer = group(newer);
            vec![
                format!(
                    " Events · {count} so far · scrolled back, {newer} newer ({follow} to follow){filter} "
                ),
                format!(" Events · scrolled back, {newer} newer ({follow} to follow){filter} "),
                format!(" Events · scrolled back, {newer} newer ({follow} to follow){short_filter} "),
                format!(" Events · {newer} newer ({follow} follows){short_filter} "),
                format!(" Events · {newer} newer "),
            ]
        }
    };
    let room = width.saturating_sub(1);
    let fallback = candidates.last().cloned().unwrap_or_default();
    candidates.into_iter().find(|t| text::width(t) <= room).unwrap_or(fallback)
}

/// Whether the "important only" filter keeps an event: loss, leader changes and offline
/// partitions, ISR changes, fencing, broker lifecycle, network and process faults,
/// truncation, a follower catching up, produce failures (expired records included). Config
/// echoes, fetch pause, fetcher start and stop notes and topic creation are hidden.
pub fn is_important(kind: &EventKind) -> bool {
    use EventKind::*;
    match kind {
        AckedRecordsLost { .. }
        | DuplicateAcked { .. }
        | AckedOutOfOrder { .. }
        | ProducersStopped { .. } => true,
        LeaderChanged { .. } | IsrShrunk { .. } | IsrExpanded { .. } => true,
        BrokerFenced { .. } | BrokerUnfenced { .. } => true,
        BrokerCrashed { .. } | BrokerStopped { .. } | ControlledShutdownStarted { .. } => true,
        BrokerStarted { .. } => true,
        NetworkChanged { .. } => true,
        ProcessFrozen { .. } | ProcessThawed { .. } | BrokerPowerLost { .. } | UnflushedTailLost { .. } => {
            true
        }
        BrokerRegistered { .. } | BrokerRegistrationRefused { .. } => true,
        Truncated { .. } | ProduceFailing { .. } | ProduceRecovered { .. } => true,
        Roll(_) => true,
        TopicCreated { .. } | FetchPaused { .. } | FollowerStopped { .. } | ConfigChanged { .. } => false,
        FollowerCaughtUp { .. } => true,
        ReassignmentStarted { .. } | ReassignmentCompleted { .. } | ReassignmentCancelled { .. } => true,
        PartitionsAdded { .. } | TopicDeleted { .. } => true,
        ReplicaDeleted { .. } => false,
        FollowerStarted { .. } => false,
        ConsumerTruncationDetected { .. } | ConsumerPartitionStopped { .. } | ConsumerOffsetReset { .. } => {
            true
        }
        FetchSessionCreated { .. } | FetchSessionPartitionsAdded { .. } | FetchSessionRefused { .. } => false,
    }
}

/// The kept events the filter lets through, each with its run-wide index (0 = the first
/// event ever), oldest first.
fn indexed(snap: &Snapshot, important: bool) -> impl DoubleEndedIterator<Item = (u64, &ClusterEvent)> {
    let kept = snap.recent_events.len() as u64;
    let first = snap.event_count.saturating_sub(kept);
    snap.recent_events
        .iter()
        .enumerate()
        .map(move |(i, ev)| (first + i as u64, ev))
        .filter(move |(_, ev)| !important || is_important(&ev.kind))
}

/// The run-wide index of the newest event the pane shows: the newest at or before `anchor`
/// (the newest of all when following), or the oldest kept one once the anchored event is
/// no longer kept. `None` when there is nothing to show.
pub fn bottom(snap: &Snapshot, anchor: Option<u64>, important: bool) -> Option<u64> {
    let newest_up_to = |limit: u64| indexed(snap, important).rev().map(|(i, _)| i).find(|i| *i <= limit);
    match anchor {
        None => indexed(snap, important).next_back().map(|(i, _)| i),
        Some(a) => newest_up_to(a).or_else(|| indexed(snap, important).next().map(|(i, _)| i)),
    }
}

/// The anchor one shown event further back, or `None` at the oldest kept event.
pub fn older(snap: &Snapshot, anchor: Option<u64>, important: bool) -> Option<u64> {
    let bottom = bottom(snap, anchor, important)?;
    indexed(snap, important).rev().map(|(i, _)| i).find(|i| *i < bottom)
}

/// The anchor one shown event further forward; `None` (follow) when that is the newest.
pub fn newer(snap: &Snapshot, anchor: Option<u64>, important: bool) -> Option<u64> {
    anchor?;
    let bottom = bottom(snap, anchor, important)?;
    let next = indexed(snap, important).map(|(i, _)| i).find(|i| *i > bottom)?;
    let newest = indexed(snap, important).next_back().map(|(i, _)| i)?;
    (next < newest).then_some(next)
}

/// How many shown events are newer than the newest one on screen.
pub fn newer_count(snap: &Snapshot, anchor: Option<u64>, important: bool) -> u64 {
    match bottom(snap, anchor, important) {
        Some(b) => indexed(snap, important).filter(|(i, _)| *i > b).count() as u64,
        None => 0,
    }
}

/// The events the pane may show, oldest first, up to its [`bottom`].
pub fn shown_events(snap: &Snapshot, anchor: Option<u64>, important: bool) -> Vec<&ClusterEvent> {
    stamped_events(snap, anchor, important).into_iter().map(|(ev, _)| ev).collect()
}

/// The events the pane may show, oldest first, up to its [`bottom`], each with whether its
/// stamp shows microseconds. That is decided over every kept event the filter lets through
/// (see [`fine_stamps`]), so scrolling or resizing the pane never changes a stamp.
pub fn stamped_events(snap: &Snapshot, anchor: Option<u64>, important: bool) -> Vec<(&ClusterEvent, bool)> {
    let Some(bottom) = bottom(snap, anchor, important) else {
        return Vec::new();
    };
    let all: Vec<_> = indexed(snap, important).collect();
    let times: Vec<_> = all.iter().map(|(_, ev)| ev.at).collect();
    all.into_iter()
        .zip(fine_stamps(&times))
        .filter(|((i, _), _)| *i <= bottom)
        .map(|((_, ev), fine)| (ev, fine))
        .collect()
}

/// The newest events whose wrapped lines fit in `height` rows, in time order, each stamped
/// with microseconds when its flag says so. The oldest one shown may be cut short (marked
/// `…`) to use the rows that are left.
pub fn fitting_lines(
    events: &[(&ClusterEvent, bool)],
    theme: Theme,
    width: usize,
    height: usize,
) -> Vec<Line<'static>> {
    let mut picked: Vec<Vec<Line<'static>>> = Vec::new();
    let mut used = 0;
    for (ev, fine) in events.iter().rev() {
        let mut lines = event_lines(ev, *fine, theme, width);
        let left = height.saturating_sub(used);
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

/// One event's lines: its stamp (with µs when `fine`), then its text wrapped beside it.
fn event_lines(ev: &ClusterEvent, fine: bool, theme: Theme, width: usize) -> Vec<Line<'static>> {
    let style = style_of(&ev.kind, theme);
    let body = ev.kind.to_string();
    let first = format!(" {}", format_stamp(ev.at, fine));
    let stamp_width = first.len();
    let wrapped = text::wrap(&body, width.saturating_sub(stamp_width + 2).max(10));
    wrapped
        .into_iter()
        .enumerate()
        .map(|(i, part)| {
            let stamp = if i == 0 { first.clone() } else { " ".repeat(stamp_width) };
            Line::from(vec![Span::styled(stamp, theme.muted()), Span::raw(" "), Span::styled(part, style)])
        })
        .collect()
}

/// How an event looks: loss is loud, faults are red, degradations yellow, recoveries green.
fn style_of(kind: &EventKind, theme: Theme) -> Style {
    use EventKind::*;
    match kind {
        AckedRecordsLost { .. } => theme.alarm(),
        BrokerCrashed { .. } | Truncated { .. } | ProduceFailing { .. } => theme.bad(),
        ConsumerTruncationDetected { .. } | ConsumerPartitionStopped { .. } => theme.bad(),
        BrokerPowerLost { .. } | UnflushedTailLost { .. } | ProcessFrozen { .. } => theme.bad(),
        LeaderChanged { new_leader: None, .. } | LeaderChanged { kind: ElectionKind::Unclean, .. } => {
            theme.bad()
        }
        BrokerFenced { .. } | IsrShrunk { .. } | DuplicateAcked { .. } | FetchPaused { paused: true, .. } => {
            theme.warn()
        }
        AckedOutOfOrder { .. } => theme.warn(),
        BrokerRegistrationRefused { .. } => theme.warn(),
        BrokerUnfenced { .. } | IsrExpanded { .. } | ProduceRecovered { .. } => theme.good(),
        _ => theme.normal(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::SimTime;
    use std::sync::Arc;

    fn snap(events: &[(u64, EventKind)]) -> Snapshot {
        let recent: Vec<_> = events
            .iter()
            .map(|(us, kind)| ClusterEvent { at: SimTime::from_micros(*us), kind: kind.clone() })
            .collect();
        Snapshot { event_count: recent.len() as u64, recent_events: Arc::from(recent), ..Default::default() }
    }

    fn stamps(snap: &Snapshot, anchor: Option<u64>, important: bool) -> Vec<String> {
        let shown = stamped_events(snap, anchor, important);
        let lines = fitting_lines(&shown, Theme::new(false), 120, 20);
        lines.iter().map(|l| l.spans[0].content.trim().to_string()).collect()
    }

    #[test]
    fn stamps_show_microseconds_only_where_a_millisecond_holds_different_instants() {
        use EventKind::{BrokerCrashed, FetchPaused};
        let paused = FetchPaused { broker: 2, paused: true };
        let s = snap(&[
            (83_400_000, BrokerCrashed { broker: 0 }),
            (83_400_000, BrokerCrashed { broker: 1 }),
            (83_401_000, BrokerCrashed { broker: 2 }),
            (83_401_250, paused.clone()),
            (83_402_999, BrokerCrashed { broker: 3 }),
        ]);
        assert_eq!(
            stamps(&s, None, false),
            ["00:01:23.400", "00:01:23.400", "00:01:23.401.000", "00:01:23.401.250", "00:01:23.402"]
        );
        // Scrolled back to the third event: its stamp keeps the µs its later neighbour calls for.
        assert_eq!(stamps(&s, Some(2), false), ["00:01:23.400", "00:01:23.400", "00:01:23.401.000"]);
        // The important filter hides the fetch pause: broker 2's millisecond is plain again.
        assert_eq!(stamps(&s, None, true), ["00:01:23.400", "00:01:23.400", "00:01:23.401", "00:01:23.402"]);
    }

    #[test]
    fn a_wrapped_event_indents_under_its_longer_stamp() {
        let s = snap(&[
            (1_000, EventKind::BrokerCrashed { broker: 0 }),
            (1_500, EventKind::BrokerCrashed { broker: 1 }),
        ]);
        let shown = stamped_events(&s, None, false);
        let lines = fitting_lines(&shown, Theme::new(false), 40, 10);
        let text: Vec<String> =
            lines.iter().map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect()).collect();
        assert_eq!(
            text,
            [
                " 00:00:00.001.000 broker 0 crashed (its",
                "                  log stays on disk)",
                " 00:00:00.001.500 broker 1 crashed (its",
                "                  log stays on disk)",
            ]
        );
    }
}
