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

use super::app::{Mode, Model};
use super::event_filter::{EventFilter, NO_FILTER, contains_ignoring_case};
use super::keymap::{self, Action};
use super::text;
use super::theme::Theme;
use crate::cluster::snapshot::Snapshot;
use crate::sim::events::{ClusterEvent, ElectionKind, EventKind, group};
use crate::sim::{SimTime, fine_stamps, format_stamp};

/// Draws the pane. Its title says how it is scrolled and filtered, the search and its hits,
/// and, while the pane has the keys, that it has them.
pub fn render(frame: &mut Frame, area: Rect, model: &Model, snap: &Snapshot) {
    let theme = model.theme;
    let (anchor, lens) = (model.events_anchor, model.events_lens());
    let width = usize::from(area.width);
    let title = Line::from(Span::styled(decorated_title(model, snap, width), theme.title()));
    let block = Block::new().borders(Borders::TOP).title(text::fit_title(title, area.width));
    let inner = block.inner(area);
    let shown = stamped_events(snap, anchor, lens);
    let (width, height) = (usize::from(inner.width), usize::from(inner.height));
    let lines = if shown.is_empty() && !lens.shows_all() && !snap.recent_events.is_empty() {
        let kept = snap.recent_events.len();
        let text = match kept {
            1 => " the one event kept does not pass the filter (f and F change it)".to_string(),
            _ => format!(" none of the {kept} events kept pass the filter (f and F change it)"),
        };
        vec![Line::styled(text::truncate(&text, width), theme.muted())]
    } else {
        let more = whole_elsewhere(model);
        let mut lines = fitting_lines(&shown, theme, width, height, more.as_deref());
        mark_hit(&mut lines, &shown, model.events_search.as_deref(), theme, (width, height), more.as_deref());
        lines
    };
    frame.render_widget(Paragraph::new(text::fit_all(lines, width)).block(block), area);
}

/// The rows the pane fills `width` columns wide, title included, up to `at_most`: the
/// newest events' lines, or the one line saying why there are none.
pub fn rows_filled(model: &Model, snap: &Snapshot, width: usize, at_most: usize) -> u16 {
    let shown = stamped_events(snap, model.events_anchor, model.events_lens());
    let theme = Theme::new(false);
    let mut used = 0;
    for (ev, fine) in shown.iter().rev() {
        if used >= at_most {
            break;
        }
        used += event_lines(ev, *fine, theme, width).len();
    }
    u16::try_from(used.clamp(1, at_most.max(1)) + 1).unwrap_or(u16::MAX)
}

/// Where an event cut short in this pane reads whole: `F5: in full` outside the events
/// view; in it (whose pane has the screen's rows, so only the oldest event shown can be cut,
/// an older loss among them), `[/]: scroll back for it whole`: scrolled back, it comes down
/// the pane and reads whole.
fn whole_elsewhere(model: &Model) -> Option<String> {
    if model.view == super::app::View::Events {
        return keymap::label_of(Action::EventsOlder).map(|key| format!("{key}: scroll back for it whole"));
    }
    keymap::label_of(Action::ShowEvents).map(|key| format!("{key}: in full"))
}

/// Shows the bottom event's stamp reversed when it holds the searched text: the hit that
/// `/`, `n` and `N` moved to.
fn mark_hit(
    lines: &mut [Line<'static>],
    shown: &[(&ClusterEvent, bool)],
    needle: Option<&str>,
    theme: Theme,
    (width, height): (usize, usize),
    more: Option<&str>,
) {
    let (Some(needle), Some((ev, fine))) = (needle, shown.last()) else { return };
    if !contains_ignoring_case(&ev.kind.to_string(), needle) {
        return;
    }
    let rows = lines_within(ev, *fine, theme, width, height, more).len().min(lines.len());
    let first = lines.len() - rows;
    if let Some(stamp) = lines.get_mut(first).and_then(|l| l.spans.first_mut()) {
        stamp.style = theme.selected();
    }
}

/// [`title`] plus, as far as it fits, the search and its hit count and the keys: while
/// the pane has the keys, `Esc` gives them back; otherwise `e` takes them.
fn decorated_title(model: &Model, snap: &Snapshot, width: usize) -> String {
    let lens = model.events_lens();
    let base = title(snap, model.events_anchor, lens, width);
    let search = model.events_search.as_ref().map(|needle| {
        let hits = hit_count(snap, lens, needle);
        let noun = if hits == 1 { "hit" } else { "hits" };
        format!("· /{needle} → {hits} {noun} ")
    });
    let keys = if model.mode == Mode::Events {
        "· ▸ keys here (Esc gives them back) ".to_string()
    } else {
        let e = keymap::label_of(Action::FocusEvents).unwrap_or("e");
        format!("· {e}: page, search, filter, go to a time ")
    };
    let room = width.saturating_sub(1);
    let mut out = base;
    for extra in search.into_iter().chain(std::iter::once(keys)) {
        if text::width(&out) + text::width(&extra) <= room {
            out.push_str(&extra);
        }
    }
    out
}

/// The pane's title, as long as fits in `width` columns: the event count, how far it is
/// scrolled back, and how it is filtered.
pub fn title<'f>(snap: &Snapshot, anchor: Option<u64>, lens: impl Into<Lens<'f>>, width: usize) -> String {
    let lens = lens.into();
    let count = group(snap.event_count);
    let what = lens.filter.describe();
    let (filter, short_filter) = match (lens.important, what.is_empty()) {
        (false, true) => (String::new(), String::new()),
        (true, true) => (" · important only".to_string(), " · important".to_string()),
        (false, false) => (format!(" · only {what}"), format!(" · {what}")),
        (true, false) => (format!(" · important only, {what}"), format!(" · important, {what}")),
    };
    let back = anchor.map(|_| newer_count(snap, anchor, lens));
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

/// Whether the "important only" filter (on at start) keeps an event: acknowledged records
/// lost (and the truncations and unflushed tails that lose records), leader elections and
/// offline partitions, ISR shrinks and expansions, fencing and unfencing, and faults: the
/// ones the user injects (crashes, controlled shutdowns, stops, restarts, power loss, frozen
/// processes, paused fetching, network changes). Client retries, timeouts and recoveries,
/// duplicates, consumer resets, broker registration, admin operations, config echoes,
/// fetchers and fetch sessions are hidden: they follow from what is kept.
pub fn is_important(kind: &EventKind) -> bool {
    use EventKind::*;
    match kind {
        AckedRecordsLost { .. } | UnackedRecordsLost { .. } | Truncated { .. } | UnflushedTailLost { .. } => {
            true
        }
        LeaderChanged { .. } | IsrShrunk { .. } | IsrExpanded { .. } | ElrChanged { .. } => true,
        BrokerFenced { .. } | BrokerUnfenced { .. } => true,
        BrokerCrashed { .. } | BrokerStopped { .. } | BrokerPowerLost { .. } => true,
        // A restart, a controlled shutdown and a fetch pause are faults the user injects:
        // the data-loss recipe starts with the pause, the failover story ends with the restart.
        BrokerStarted { .. } | ControlledShutdownStarted { .. } | FetchPaused { .. } => true,
        ProcessFrozen { .. } | ProcessThawed { .. } | NetworkChanged { .. } => true,
        // The quorum's changes: who is the active controller decides whether metadata moves.
        ControllerCrashed { .. } | ControllerStarted { .. } | ControllerElected { .. } => true,
        ControllerResigned { .. } | ControllerLostLeader { .. } => true,
        ControllerCandidate { .. } => false,
        ProduceFailing { .. } | ProduceRecovered { .. } | DuplicateAcked { .. } | ProducersStopped { .. } => {
            false
        }
        AckedOutOfOrder { .. } => false,
        // A fault the user injected, as a broker crash is.
        ProducerRestarted { .. } => true,
        ConsumerTruncationDetected { .. } | ConsumerPartitionStopped { .. } | ConsumerOffsetReset { .. } => {
            false
        }
        ConsumerTopicGone { .. } => false,
        // Rebalances, commit failures and coordinator moves are client-side; they follow
        // from the elections, ISR changes and faults that are kept.
        Group(_) => false,
        BrokerRegistered { .. } | BrokerRegistrationRefused { .. } => false,
        Roll(_) | FollowerCaughtUp { .. } => false,
        ReassignmentStarted { .. } | ReassignmentCompleted { .. } | ReassignmentCancelled { .. } => false,
        ReplicasReordered { .. } | ThrottlesCleared { .. } => false,
        TopicCreated { .. } | PartitionsAdded { .. } | TopicDeleted { .. } | ReplicaDeleted { .. } => false,
        FollowerStopped { .. } | FollowerStarted { .. } | ConfigChanged { .. } => false,
        FetchSessionCreated { .. } | FetchSessionPartitionsAdded { .. } | FetchSessionRefused { .. } => false,
        FetchTopicIdRefused { .. } => true,
    }
}

/// What the pane lets through: the important-only switch and the filter. A plain `bool`
/// converts to the switch alone.
#[derive(Clone, Copy, Debug)]
pub struct Lens<'f> {
    /// Only [`is_important`] events.
    pub important: bool,
    /// Only events the filter keeps.
    pub filter: &'f EventFilter,
}

impl From<bool> for Lens<'static> {
    fn from(important: bool) -> Lens<'static> {
        Lens { important, filter: &NO_FILTER }
    }
}

impl Lens<'_> {
    /// Whether the pane shows an event of this kind.
    pub fn keeps(&self, kind: &EventKind) -> bool {
        (!self.important || is_important(kind)) && self.filter.keeps(kind)
    }

    /// Nothing is hidden.
    pub fn shows_all(&self) -> bool {
        !self.important && self.filter.is_empty()
    }
}

/// The kept events the lens lets through, each with its run-wide index (0 = the first
/// event ever), oldest first.
pub fn indexed<'f>(
    snap: &Snapshot,
    lens: impl Into<Lens<'f>>,
) -> impl DoubleEndedIterator<Item = (u64, &ClusterEvent)> {
    let lens = lens.into();
    let kept = snap.recent_events.len() as u64;
    let first = snap.event_count.saturating_sub(kept);
    snap.recent_events
        .iter()
        .enumerate()
        .map(move |(i, ev)| (first + i as u64, ev))
        .filter(move |(_, ev)| lens.keeps(&ev.kind))
}

/// The run-wide index of the newest event the pane shows: the newest at or before `anchor`
/// (the newest of all when following), or the oldest kept one once the anchored event is
/// no longer kept. `None` when there is nothing to show.
pub fn bottom<'f>(snap: &Snapshot, anchor: Option<u64>, lens: impl Into<Lens<'f>>) -> Option<u64> {
    let lens = lens.into();
    let newest_up_to = |limit: u64| indexed(snap, lens).rev().map(|(i, _)| i).find(|i| *i <= limit);
    match anchor {
        None => indexed(snap, lens).next_back().map(|(i, _)| i),
        Some(a) => newest_up_to(a).or_else(|| indexed(snap, lens).next().map(|(i, _)| i)),
    }
}

/// The anchor `n` shown events further back, stopping at the oldest kept one; `None` when
/// it is already there.
pub fn older<'f>(snap: &Snapshot, anchor: Option<u64>, lens: impl Into<Lens<'f>>) -> Option<u64> {
    older_by(snap, anchor, lens, 1)
}

/// The anchor `n` shown events further back, stopping at the oldest kept one; `None` when
/// the pane already shows it at the bottom.
pub fn older_by<'f>(
    snap: &Snapshot,
    anchor: Option<u64>,
    lens: impl Into<Lens<'f>>,
    n: usize,
) -> Option<u64> {
    let lens = lens.into();
    let bottom = bottom(snap, anchor, lens)?;
    let before: Vec<u64> =
        indexed(snap, lens).rev().map(|(i, _)| i).filter(|i| *i < bottom).take(n.max(1)).collect();
    before.last().copied()
}

/// The anchor one shown event further forward; `None` (follow) when that is the newest.
pub fn newer<'f>(snap: &Snapshot, anchor: Option<u64>, lens: impl Into<Lens<'f>>) -> Option<u64> {
    newer_by(snap, anchor, lens, 1)
}

/// The anchor `n` shown events further forward; `None` (follow) when that reaches the newest.
pub fn newer_by<'f>(
    snap: &Snapshot,
    anchor: Option<u64>,
    lens: impl Into<Lens<'f>>,
    n: usize,
) -> Option<u64> {
    anchor?;
    let lens = lens.into();
    let bottom = bottom(snap, anchor, lens)?;
    let next = indexed(snap, lens).map(|(i, _)| i).filter(|i| *i > bottom).take(n.max(1)).last()?;
    let newest = indexed(snap, lens).next_back().map(|(i, _)| i)?;
    (next < newest).then_some(next)
}

/// The anchor that shows the newest shown event at or before sim time `t` at the bottom;
/// `Err` with the kept range's first time when every kept event is later.
pub fn at_time<'f>(snap: &Snapshot, t: SimTime, lens: impl Into<Lens<'f>>) -> Result<Option<u64>, SimTime> {
    let lens = lens.into();
    let newest = indexed(snap, lens).next_back().map(|(i, _)| i);
    match indexed(snap, lens).rev().find(|(_, ev)| ev.at <= t) {
        Some((i, _)) if Some(i) == newest => Ok(None),
        Some((i, _)) => Ok(Some(i)),
        None => Err(indexed(snap, lens).next().map_or(snap.now_us, |(_, ev)| ev.at)),
    }
}

/// The run-wide index of the next shown event whose text holds `needle` (ignoring case),
/// searching older than the pane's bottom (`older`) or newer, or from the bottom itself
/// when `inclusive`. `None`: no such event is kept.
pub fn find<'f>(
    snap: &Snapshot,
    anchor: Option<u64>,
    lens: impl Into<Lens<'f>>,
    needle: &str,
    older: bool,
    inclusive: bool,
) -> Option<u64> {
    let lens = lens.into();
    let bottom = bottom(snap, anchor, lens)?;
    let hit = |ev: &ClusterEvent| contains_ignoring_case(&ev.kind.to_string(), needle);
    let wanted = |i: u64| {
        if older {
            i < bottom || (inclusive && i == bottom)
        } else {
            i > bottom || (inclusive && i == bottom)
        }
    };
    let mut candidates = indexed(snap, lens).filter(|(i, ev)| wanted(*i) && hit(ev)).map(|(i, _)| i);
    if older { candidates.next_back() } else { candidates.next() }
}

/// How many shown events hold `needle` in their text (ignoring case).
pub fn hit_count<'f>(snap: &Snapshot, lens: impl Into<Lens<'f>>, needle: &str) -> usize {
    indexed(snap, lens).filter(|(_, ev)| contains_ignoring_case(&ev.kind.to_string(), needle)).count()
}

/// How many shown events are newer than the newest one on screen.
pub fn newer_count<'f>(snap: &Snapshot, anchor: Option<u64>, lens: impl Into<Lens<'f>>) -> u64 {
    let lens = lens.into();
    match bottom(snap, anchor, lens) {
        Some(b) => indexed(snap, lens).filter(|(i, _)| *i > b).count() as u64,
        None => 0,
    }
}

/// The events the pane may show, oldest first, up to its [`bottom`].
pub fn shown_events<'f>(
    snap: &Snapshot,
    anchor: Option<u64>,
    lens: impl Into<Lens<'f>>,
) -> Vec<&ClusterEvent> {
    stamped_events(snap, anchor, lens).into_iter().map(|(ev, _)| ev).collect()
}

/// The events the pane may show, oldest first, up to its [`bottom`], each with whether its
/// stamp shows microseconds. That is decided over every kept event the lens lets through
/// (see [`fine_stamps`]), so scrolling or resizing the pane never changes a stamp.
pub fn stamped_events<'f>(
    snap: &Snapshot,
    anchor: Option<u64>,
    lens: impl Into<Lens<'f>>,
) -> Vec<(&ClusterEvent, bool)> {
    let lens = lens.into();
    let Some(bottom) = bottom(snap, anchor, lens) else {
        return Vec::new();
    };
    let all: Vec<_> = indexed(snap, lens).collect();
    let times: Vec<_> = all.iter().map(|(_, ev)| ev.at).collect();
    all.into_iter()
        .zip(fine_stamps(&times))
        .filter(|((i, _), _)| *i <= bottom)
        .map(|((_, ev), fine)| (ev, fine))
        .collect()
}

/// How many of the newest `events` fit whole in `height` rows `width` columns wide (at
/// least 1): a page of the pane.
pub fn page_len(events: &[(&ClusterEvent, bool)], width: usize, height: usize) -> usize {
    let theme = Theme::new(false);
    let mut used = 0;
    let fit = events
        .iter()
        .rev()
        .take_while(|(ev, fine)| {
            used += event_lines(ev, *fine, theme, width).len();
            used <= height
        })
        .count();
    fit.max(1)
}

/// The newest events whose wrapped lines fit in `height` rows, in time order, each stamped
/// with microseconds when its flag says so. The oldest one shown may be cut short to use the
/// rows that are left (see [`lines_within`]; `more` says where it reads whole).
pub fn fitting_lines(
    events: &[(&ClusterEvent, bool)],
    theme: Theme,
    width: usize,
    height: usize,
    more: Option<&str>,
) -> Vec<Line<'static>> {
    let mut picked: Vec<Vec<Line<'static>>> = Vec::new();
    let mut used = 0;
    for (ev, fine) in events.iter().rev() {
        let left = height.saturating_sub(used);
        let lines = lines_within(ev, *fine, theme, width, left, more);
        if lines.is_empty() {
            break;
        }
        used += lines.len();
        picked.push(lines);
    }
    picked.into_iter().rev().flatten().collect()
}

/// One event's lines in at most `rows` rows: whole when they fit; else, for a loss, its
/// brief form ([`EventKind::brief`], then [`EventKind::briefer`] without the offsets: a loss
/// keeps its cause) followed by `more` (where it reads whole), and when even that is too long
/// for the rows, the briefer form cut at a word with `…` and `more` still after it, so a loss
/// always says where it reads whole (a 3-row status line left the loss cut with no
/// pointer); any other event, its text cut, ending in `…`.
fn lines_within(
    ev: &ClusterEvent,
    fine: bool,
    theme: Theme,
    width: usize,
    rows: usize,
    more: Option<&str>,
) -> Vec<Line<'static>> {
    let mut lines = event_lines(ev, fine, theme, width);
    if lines.len() <= rows {
        return lines;
    }
    if rows > 0
        && let (Some(brief), Some(briefer)) = (ev.kind.brief(), ev.kind.briefer())
    {
        let pointer = more.map(|m| format!(" ({m})")).unwrap_or_default();
        let fits = |body: &str| Some(text_lines(body, ev, fine, theme, width)).filter(|l| l.len() <= rows);
        let words: Vec<&str> = briefer.split(' ').collect();
        let cut = (1..words.len()).rev().map(|n| format!("{}…{pointer}", words[..n].join(" ")));
        let tiers = [format!("{brief}{pointer}"), format!("{briefer}{pointer}")].into_iter().chain(cut);
        if let Some(short) = tiers.into_iter().find_map(|body| fits(&body)) {
            return short;
        }
    }
    lines.truncate(rows);
    if let Some(last) = lines.last_mut() {
        last.push_span(Span::styled("…", theme.muted()));
    }
    lines
}

/// One event's lines: its stamp (with µs when `fine`), then its text wrapped beside it.
fn event_lines(ev: &ClusterEvent, fine: bool, theme: Theme, width: usize) -> Vec<Line<'static>> {
    text_lines(&ev.kind.to_string(), ev, fine, theme, width)
}

/// `body` as the lines of event `ev`: its stamp, then the text wrapped beside it in the
/// event's style.
fn text_lines(body: &str, ev: &ClusterEvent, fine: bool, theme: Theme, width: usize) -> Vec<Line<'static>> {
    let style = style_of(&ev.kind, theme);
    let first = format!(" {}", format_stamp(ev.at, fine));
    let stamp_width = first.len();
    let wrapped = text::wrap(body, width.saturating_sub(stamp_width + 2).max(10));
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
        BrokerCrashed { .. } | Truncated { .. } | ProduceFailing { .. } | UnackedRecordsLost { .. } => {
            theme.bad()
        }
        ConsumerTruncationDetected { .. } | ConsumerPartitionStopped { .. } => theme.bad(),
        BrokerPowerLost { .. } | UnflushedTailLost { .. } | ProcessFrozen { .. } => theme.bad(),
        LeaderChanged { new_leader: None, .. }
        | LeaderChanged {
            kind: ElectionKind::Unclean | ElectionKind::UncleanRequested | ElectionKind::LastKnownLeader,
            ..
        } => theme.bad(),
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
        let lines = fitting_lines(&shown, Theme::new(false), 120, 20, None);
        // A wrapped event's further lines have no stamp.
        lines.iter().map(|l| l.spans[0].content.trim().to_string()).filter(|s| !s.is_empty()).collect()
    }

    #[test]
    fn stamps_show_microseconds_only_where_a_millisecond_holds_different_instants() {
        use EventKind::{BrokerCrashed, FollowerStopped};
        let tp = crate::sim::TopicPartition::new("t", 0);
        let paused = FollowerStopped { broker: 2, tp, leo: 7 };
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
        // The important filter hides the fetcher note: broker 2's millisecond is plain again.
        assert_eq!(stamps(&s, None, true), ["00:01:23.400", "00:01:23.400", "00:01:23.401", "00:01:23.402"]);
    }

    /// Issue 9: however few rows the status line leaves, down to one, a loss keeps its
    /// headline and says where it reads whole; with rows to spare it keeps its cause.
    #[test]
    fn a_cut_loss_keeps_its_headline_and_its_pointer_in_any_number_of_rows() {
        use crate::sim::loss_cause::{AckedUnder, Election, LossCause};
        let cause = LossCause {
            acked: AckedUnder {
                acks: crate::sim::Acks::All,
                leader: 0,
                leader_epoch: 0,
                isr: Arc::from([0, 1]),
            },
            also: Vec::new(),
            deciding: 2,
            election: Some(Election {
                kind: ElectionKind::Unclean,
                old_leader: Some(0),
                new_leader: 2,
                leader_epoch: 1,
            }),
        };
        let lost = EventKind::AckedRecordsLost {
            tp: crate::sim::TopicPartition::new("test_repli", 2),
            count: 102,
            first_offset: 0,
            last_offset: 101,
            leader: 2,
            cause: Box::new(cause),
        };
        let s = snap(&[(1_000, lost)]);
        let shown = stamped_events(&s, None, false);
        for rows in 1..=3 {
            let lines = fitting_lines(&shown, Theme::new(false), 80, rows, Some("F5: in full"));
            let text: String =
                lines.iter().flat_map(|l| l.spans.iter().map(|s| s.content.to_string())).collect();
            assert!(lines.len() <= rows && !lines.is_empty(), "{rows} rows: {text}");
            assert!(text.contains("102 ACKED RECORD(S) LOST in test_repli-2"), "{rows} rows: {text}");
            assert!(text.trim_end().ends_with("(F5: in full)"), "{rows} rows: {text}");
            if rows >= 2 {
                assert!(text.contains("won an UNCLEAN election"), "{rows} rows: {text}");
            }
        }
    }

    /// Issue 9: a loss cut short says where it reads whole in every view: F5 outside the
    /// events view, scrolling back in it (an older loss at the top of the events view).
    #[test]
    fn a_cut_loss_says_how_to_read_it_whole_in_the_events_view_too() {
        let snap = crate::ui::fixture::snapshot();
        let mut model = Model::new(1.0, Theme::new(false), &snap);
        assert_eq!(whole_elsewhere(&model).as_deref(), Some("F5: in full"));
        model.view = super::super::app::View::Events;
        assert_eq!(whole_elsewhere(&model).as_deref(), Some("[/]: scroll back for it whole"));
    }

    #[test]
    fn a_wrapped_event_indents_under_its_longer_stamp() {
        let s = snap(&[
            (1_000, EventKind::BrokerCrashed { broker: 0 }),
            (1_500, EventKind::BrokerCrashed { broker: 1 }),
        ]);
        let shown = stamped_events(&s, None, false);
        let lines = fitting_lines(&shown, Theme::new(false), 40, 10, None);
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
