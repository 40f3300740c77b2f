//! The broker strip (each broker's state, leader count, the controller; the selected broker
//! marked; for big clusters counts by state and only the brokers that need attention) and, under it, the settings that decide durability: `acks`,
//! `min.insync.replicas`, `unclean.leader.election.enable`, `replica.lag.time.max.ms`.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::app::Model;
use super::text;
use super::theme::{Theme, glyph};
use crate::cluster::snapshot::{BrokerState, BrokerStatus, BrokerView, Reach, Snapshot, TopicView};
use crate::config::semantics::MetadataMode;
use crate::sim::{Acks, BrokerId, CONTROLLER_ID, Ms};

/// Most lines the broker strip may wrap onto.
pub const STRIP_MAX_LINES: usize = 2;

/// Durations in the strip (`12s`, `3m05s`) are measured as this wide when choosing a form,
/// so the strip does not change form as a crash ages.
const DURATION_W: usize = 5;

/// Draws the broker strip (one or two lines) and the settings line under it.
pub fn render(frame: &mut Frame, area: Rect, model: &Model, snap: &Snapshot) {
    let width = usize::from(area.width);
    let strip = strip_lines(model, snap, area.width);
    let rows = u16::try_from(strip.len()).unwrap_or(1);
    let [strip_area, settings] =
        Layout::vertical([Constraint::Length(rows), Constraint::Length(1)]).areas(area);
    frame.render_widget(Paragraph::new(text::fit_all(strip, width)), strip_area);
    frame.render_widget(Paragraph::new(text::fit(settings_line(model, snap, width), width)), settings);
}

/// How much of each broker the strip shows.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Form {
    /// `▸0 ● up leads 4`.
    Long,
    /// `▸0 ● up L4`.
    Short,
    /// `0●L4`; the selected broker keeps the short form, so its state is always in words.
    Compact,
}

/// A piece of the strip that is never split across lines, and the width it is measured at.
struct Chunk {
    spans: Vec<Span<'static>>,
    width: usize,
    /// The broker it shows, for mouse clicks.
    broker: Option<BrokerId>,
}

impl Chunk {
    fn text(spans: Vec<Span<'static>>) -> Chunk {
        let width = spans.iter().map(Span::width).sum();
        Chunk { spans, width, broker: None }
    }
}

/// The broker strip for a screen `width` columns wide: the richest form that fits on one
/// line, else on [`STRIP_MAX_LINES`] lines. When not every broker fits (50 brokers), the
/// brokers are counted by state and only those that need attention and the selected one are
/// listed (`50 brokers: 49 up, 1 crashed   7 ✖ crashed 2s, fenced in 7s L0  ▸45 ● up L2`);
/// as a last resort that form in glyphs, the selected broker first, cut with `…`.
pub fn strip_lines(model: &Model, snap: &Snapshot, width: u16) -> Vec<Line<'static>> {
    let width = usize::from(width);
    strip_rows(model, snap, width)
        .into_iter()
        .map(|row| Line::from(text::truncate_spans(row.into_iter().flat_map(|c| c.spans).collect(), width)))
        .collect()
}

/// The broker under column `x` of strip line `line` (from 0) on a strip `width` columns wide.
pub fn broker_at(model: &Model, snap: &Snapshot, width: u16, line: usize, x: usize) -> Option<BrokerId> {
    let rows = strip_rows(model, snap, usize::from(width));
    let mut left = 0;
    for chunk in rows.get(line)? {
        let shown: usize = chunk.spans.iter().map(Span::width).sum();
        if x < left + shown {
            return chunk.broker;
        }
        left += shown;
    }
    None
}

/// The strip's chunks line by line; see [`strip_lines`].
fn strip_rows(model: &Model, snap: &Snapshot, width: usize) -> Vec<Vec<Chunk>> {
    // (form, most lines, with the controller id): the controller's id gives way before
    // the strip takes a second line or loses words.
    let tries = [
        (Form::Long, 1, true),
        (Form::Short, 1, true),
        (Form::Short, 1, false),
        (Form::Short, 2, true),
        (Form::Compact, 1, true),
        (Form::Compact, 1, false),
        (Form::Compact, 2, true),
        (Form::Compact, 2, false),
    ];
    // Two lines of glyphs only would hide in a crowd what a broker that needs attention is
    // doing; the counts and that broker in words say it.
    let hidden_trouble =
        snap.brokers.iter().any(|b| model.selected_broker != Some(b.id) && needs_attention(b));
    for (form, most, ctrl) in tries {
        if form == Form::Compact && most > 1 && hidden_trouble {
            continue;
        }
        let (rows, fits) = wrap_chunks(strip_chunks(model, snap, form, ctrl, Pick::All), width);
        if fits && rows.len() <= most {
            return rows;
        }
    }
    // Too many brokers for every one to show: counts by state, then only the brokers that
    // need attention and the selected one.
    let summary =
        [(Form::Short, 1, true), (Form::Short, 1, false), (Form::Short, 2, true), (Form::Compact, 2, false)];
    for (form, most, ctrl) in summary {
        let (rows, fits) = wrap_chunks(strip_chunks(model, snap, form, ctrl, Pick::Attention), width);
        if fits && rows.len() <= most {
            return rows;
        }
    }
    // Even those do not fit: the selected broker moves to the front, the rest is cut.
    let mut chunks = strip_chunks(model, snap, Form::Compact, false, Pick::Attention);
    if let Some(at) = chunks.iter().position(|c| c.broker.is_some() && c.broker == model.selected_broker) {
        let selected = chunks.remove(at);
        chunks.insert(2, selected);
    }
    let (mut rows, _) = wrap_chunks(chunks, width);
    let more = rows.len() > STRIP_MAX_LINES;
    rows.truncate(STRIP_MAX_LINES);
    if more && let Some(last) = rows.last_mut() {
        last.push(Chunk::text(vec![Span::raw(" …")]));
    }
    rows
}

/// Lays chunks out on lines of `width`, continuation lines indented under the first chunk
/// (the title). Also tells whether every line fits (a chunk wider than a line does not).
fn wrap_chunks(chunks: Vec<Chunk>, width: usize) -> (Vec<Vec<Chunk>>, bool) {
    let mut chunks = chunks.into_iter();
    let Some(title) = chunks.next() else { return (Vec::new(), true) };
    let indent = title.width;
    let (mut rows, mut row, mut used, mut fits) = (Vec::new(), vec![title], indent, true);
    for chunk in chunks {
        if used + chunk.width > width && used > indent {
            rows.push(std::mem::take(&mut row));
            row.push(Chunk::text(vec![Span::raw(" ".repeat(indent))]));
            used = indent;
        }
        used += chunk.width;
        fits &= used <= width;
        row.push(chunk);
    }
    rows.push(row);
    (rows, fits)
}

/// Which brokers the strip lists.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Pick {
    /// Every broker.
    All,
    /// A count of the brokers in each state, then only those that are not simply running
    /// (see [`needs_attention`]) and the selected one.
    Attention,
}

/// The quorum in a few words: the active controller with a `*` and its epoch, each other
/// voter with `✖` when its process is down or frozen, and the lowest metadata offset a broker
/// has applied against the committed one. `quorum 3001* e3 3000✖ 3002 · meta 41/41`; while
/// no voter leads: `quorum NO ACTIVE e3 ...`.
fn quorum_text(q: &crate::cluster::snapshot::QuorumView, form: Form) -> String {
    let voters: Vec<String> = q
        .voters
        .iter()
        .map(|v| {
            let mark = if q.active == Some(v.id) {
                "*"
            } else if v.up {
                ""
            } else {
                "✖"
            };
            format!("{}{mark}", v.id)
        })
        .collect();
    let head = if q.active.is_some() { format!("e{}", q.epoch) } else { format!("NO ACTIVE e{}", q.epoch) };
    let applied = q.applied.iter().map(|a| a.1).min().unwrap_or(0);
    match form {
        Form::Long => format!("   quorum {} {head} · metadata {applied}/{}", voters.join(" "), q.committed),
        _ => format!("  q {} {head}", voters.join(" ")),
    }
}

/// Whether a broker is anything but running with its links whole: down, frozen, fenced,
/// shutting down, cut off, counting down to fencing, fetching paused or restart pending.
fn needs_attention(b: &BrokerView) -> bool {
    b.state() != BrokerState::Running
        || b.reach != Reach::Controller
        || b.fenced_in.is_some()
        || b.fetch_paused
        || !b.restart_pending.is_empty()
}

/// `50 brokers: 48 up, 1 crashed, 1 stopped`, the states in the README's order.
fn counts_chunk(snap: &Snapshot, theme: Theme) -> Chunk {
    let n = snap.brokers.len();
    let mut spans = vec![Span::raw(format!(" {n} {}:", super::text::noun(n as u64, "broker", "brokers")))];
    for state in BrokerState::ALL {
        let count = snap.brokers.iter().filter(|b| b.state() == state).count();
        if count == 0 {
            continue;
        }
        let word =
            if state == BrokerState::Running { "up".to_string() } else { state.name().replace('-', " ") };
        let style = if state == BrokerState::Running { theme.good() } else { theme.bad() };
        let sep = if spans.len() > 1 { ", " } else { " " };
        spans.push(Span::raw(sep));
        spans.push(Span::styled(format!("{count} {word}"), style));
    }
    spans.push(Span::raw(" "));
    Chunk::text(spans)
}

fn strip_chunks(model: &Model, snap: &Snapshot, form: Form, ctrl: bool, pick: Pick) -> Vec<Chunk> {
    let theme = model.theme;
    let title = Span::styled(" Brokers ", theme.title());
    let mut chunks = vec![Chunk::text(vec![title])];
    if pick == Pick::Attention {
        chunks.push(counts_chunk(snap, theme));
    }
    let listed = snap
        .brokers
        .iter()
        .filter(|b| pick == Pick::All || model.selected_broker == Some(b.id) || needs_attention(b));
    chunks.extend(listed.map(|b| broker_chunk(model, b, snap.now, form)));
    if ctrl && snap.semantics.metadata_mode == MetadataMode::KRaft {
        let text = if snap.quorum.voters.len() > 1 {
            quorum_text(&snap.quorum, form)
        } else if form == Form::Long {
            format!("   KRaft controller {CONTROLLER_ID}")
        } else {
            format!("  ctrl {CONTROLLER_ID}")
        };
        chunks.push(Chunk::text(vec![Span::styled(text, theme.muted())]));
    }
    chunks
}

fn broker_chunk(model: &Model, b: &BrokerView, now: Ms, form: Form) -> Chunk {
    let theme = model.theme;
    let selected = model.selected_broker == Some(b.id);
    let (state, style) = state(b, now, theme);
    let pick = if selected { theme.selected() } else { Style::new() };
    let spans = if form == Form::Compact && !selected {
        vec![
            Span::raw(" "),
            Span::styled(b.id.to_string(), theme.leader()),
            Span::styled(status_glyph(b), style),
            Span::styled(format!("L{}", b.leader_count), theme.muted()),
        ]
    } else {
        let leads = if form == Form::Long {
            // A separator: the state may end in a word (`crashed 16s, fenced`).
            format!(", leads {}", b.leader_count)
        } else {
            format!(" L{}", b.leader_count)
        };
        let marker = if selected { glyph::SELECTED } else { " " };
        vec![
            Span::raw(format!(" {marker}")),
            Span::styled(format!("{} ", b.id), pick.patch(theme.leader())),
            Span::styled(state, pick.patch(style)),
            Span::styled(leads, pick.patch(theme.muted())),
            Span::raw(" "),
        ]
    };
    let shown: usize = spans.iter().map(Span::width).sum();
    let words = form != Form::Compact || selected;
    Chunk { spans, width: shown + if words { duration_slack(b, now) } else { 0 }, broker: Some(b.id) }
}

/// Columns a crash or stop duration may still grow by (see [`DURATION_W`]).
fn duration_slack(b: &BrokerView, now: Ms) -> usize {
    match b.status {
        BrokerStatus::Up => 0,
        BrokerStatus::Crashed { since }
        | BrokerStatus::Stopped { since }
        | BrokerStatus::Frozen { since }
        | BrokerStatus::PoweredOff { since } => {
            DURATION_W.saturating_sub(text::width(&text::duration(now.saturating_sub(since))))
        }
    }
}

/// The glyph of a broker's state.
fn status_glyph(b: &BrokerView) -> &'static str {
    match b.status {
        BrokerStatus::Up if b.in_controlled_shutdown => glyph::SHUTTING_DOWN,
        BrokerStatus::Up => glyph::UP,
        BrokerStatus::Crashed { .. } | BrokerStatus::PoweredOff { .. } => glyph::DOWN,
        BrokerStatus::Stopped { .. } | BrokerStatus::Frozen { .. } => glyph::STOPPED,
    }
}

/// A broker's state in words with its glyph, and how it should look.
fn state(b: &BrokerView, now: Ms, theme: Theme) -> (String, Style) {
    let (mut text, style) = match b.status {
        BrokerStatus::Up if b.in_controlled_shutdown => {
            (format!("{} shutting down", glyph::SHUTTING_DOWN), theme.warn())
        }
        BrokerStatus::Up if b.fenced => (format!("{} up, fenced", glyph::UP), theme.warn()),
        BrokerStatus::Up => (format!("{} up", glyph::UP), theme.good()),
        BrokerStatus::Crashed { since } => {
            let fenced = if b.fenced { ", fenced" } else { "" };
            let ago = text::duration(now.saturating_sub(since));
            (format!("{} crashed {ago}{fenced}", glyph::DOWN), theme.bad())
        }
        BrokerStatus::Stopped { since } => {
            let ago = text::duration(now.saturating_sub(since));
            (format!("{} stopped {ago}", glyph::STOPPED), theme.warn())
        }
        BrokerStatus::Frozen { since } => {
            let fenced = if b.fenced { ", fenced" } else { "" };
            let ago = text::duration(now.saturating_sub(since));
            (format!("{} frozen {ago}{fenced}", glyph::STOPPED), theme.bad())
        }
        BrokerStatus::PoweredOff { since } => {
            let fenced = if b.fenced { ", fenced" } else { "" };
            let ago = text::duration(now.saturating_sub(since));
            (format!("{} powered off {ago}{fenced}", glyph::DOWN), theme.bad())
        }
    };
    // Links matter while the process lives; a cut-off broker is shown as bad, not "up".
    let live = matches!(b.status, BrokerStatus::Up | BrokerStatus::Frozen { .. });
    let style = match b.reach {
        Reach::Isolated if live => {
            text.push_str(", isolated");
            theme.bad()
        }
        Reach::NoController if live => {
            text.push_str(", cut from controller");
            theme.bad()
        }
        _ => style,
    };
    // The controller does not hear from it: it fences it when the session runs out.
    if let Some(ms) = b.fenced_in {
        text.push_str(&format!(", fenced in {}", text::countdown(ms)));
    }
    if b.fetch_paused {
        text.push_str(", fetch paused");
    }
    // A static config set since the broker started waits for its next start (`roll`).
    if !b.restart_pending.is_empty() {
        text.push_str(", restart pending");
    }
    (text, style)
}

fn seconds_or_ms(ms: Ms) -> String {
    if ms.is_multiple_of(1000) { format!("{}s", ms / 1000) } else { format!("{ms}ms") }
}

/// A rate or count without a pointless `.0`.
pub fn number(v: f64) -> String {
    if v.fract() == 0.0 { format!("{v:.0}") } else { format!("{v}") }
}

/// From this width on the settings line uses Kafka's full config names. The choice depends
/// on the width only, so the line does not change form as values change.
pub const SETTINGS_LONG_WIDTH: usize = 160;

/// Longest topic name the long settings line shows before cutting it with `…`.
const TOPIC_NAME_MAX: usize = 24;

/// The topic's configured `min.insync.replicas`: its override, else the broker default.
pub fn configured_min_isr(topic: &TopicView, snap: &Snapshot) -> usize {
    let overridden = topic
        .config_overrides
        .iter()
        .find_map(|o| o.strip_prefix("min.insync.replicas=")?.trim().parse::<usize>().ok());
    overridden.unwrap_or(snap.broker_config.min_insync_replicas as usize)
}

/// `2`, or `5 (effective 3)` when the configured value is above the replication factor;
/// the long form names the topic too: `2 (test_repli)`, `5 (effective 3, test_repli)`.
fn min_isr_value(topic: Option<&TopicView>, snap: &Snapshot, long: bool) -> String {
    let Some(t) = topic else { return "–".to_string() };
    let configured = configured_min_isr(t, snap);
    let effective = (configured > t.effective_min_isr).then(|| format!("effective {}", t.effective_min_isr));
    let name = long.then(|| text::truncate(&t.name, TOPIC_NAME_MAX));
    let notes: Vec<String> = effective.into_iter().chain(name).collect();
    if notes.is_empty() {
        t.effective_min_isr.to_string()
    } else {
        format!("{} ({})", configured.max(t.effective_min_isr), notes.join(", "))
    }
}

/// The durability settings in one line: full names from [`SETTINGS_LONG_WIDTH`] columns
/// on, short ones below; cut with `…` if even that does not fit. `acks` and `rate` are the
/// selected producer's; with more than one producer they lead the line together, named:
/// `producer 1: acks=1 rate=100/s`.
fn settings_line(model: &Model, snap: &Snapshot, width: usize) -> Line<'static> {
    let theme = model.theme;
    let long = width >= SETTINGS_LONG_WIDTH;
    let producer = model.producer(snap);
    let named = model.marked_producer(snap);
    let acks = producer.map(|p| p.config.acks);
    let acks_style = if acks == Some(Acks::All) { theme.good() } else { theme.warn() };
    let acks = acks.map_or("–".to_string(), |a| a.to_string());
    let topic = model.topic(snap);
    let min_isr = min_isr_value(topic, snap, long);
    let unclean = topic.map(|t| t.unclean_leader_election_enable);
    let unclean_style = if unclean == Some(true) { theme.bad() } else { theme.normal() };
    let lag_ms = snap.broker_config.replica_lag_time_max_ms;
    // A static config: the stored value reaches each broker at its next start.
    let lag_pending =
        snap.brokers.iter().any(|b| b.restart_pending.iter().any(|n| n == "replica.lag.time.max.ms"));
    let lag_note = if lag_pending { " (restart pending)" } else { "" };
    let rate = producer.map_or("–".to_string(), |p| number(p.config.rate));
    let mut spans = vec![Span::raw(" ")];
    if let Some(p) = named {
        spans.push(Span::styled(format!("producer {p}: "), theme.leader()));
    }
    spans.push(Span::styled(format!("acks={acks}"), acks_style));
    if named.is_some() {
        spans.push(Span::raw(format!(" rate={rate}/s")));
    }
    spans.push(Span::raw("  "));
    if long {
        let unclean = unclean.map_or("–".to_string(), |u| u.to_string());
        spans.push(Span::raw(format!("min.insync.replicas={min_isr}")));
        spans.push(Span::raw("  "));
        spans.push(Span::styled(format!("unclean.leader.election.enable={unclean}"), unclean_style));
        spans.push(Span::raw(format!("  replica.lag.time.max.ms={lag_ms}{lag_note}")));
    } else {
        let unclean = unclean.map_or("–", |u| if u { "on" } else { "off" });
        spans.push(Span::raw(format!("min.insync={min_isr}")));
        spans.push(Span::raw("  "));
        spans.push(Span::styled(format!("unclean={unclean}"), unclean_style));
        spans.push(Span::raw(format!(
            "  lag.max={}{}",
            seconds_or_ms(lag_ms),
            if lag_pending { "*" } else { "" }
        )));
    }
    if named.is_none() {
        spans.push(Span::raw(format!("  rate={rate}/s")));
    }
    let used: usize = spans.iter().map(Span::width).sum();
    let room = width.saturating_sub(1 + used + 2);
    if let Some(marker) = warnings_marker(&snap.warnings(), room, theme) {
        spans.push(Span::raw("  "));
        spans.push(marker);
    }
    Line::from(text::truncate_spans(spans, width.saturating_sub(1)))
}

/// The settings' warnings ([`Snapshot::warnings`]) in `room` columns, at the end of the
/// settings line, in the richest form that fits: `⚠ acks=1 (producer 0 → t): a leader crash
/// loses acked records (+1 more) · F6`, `⚠ a leader crash loses acked records (+1 more) · F6`,
/// `⚠ 2 warnings · F6`, `⚠ F6`, `⚠`. The config view (F6) lists them all with why. A
/// warning is yellow; a notice alone (`ℹ`, Kafka's default min.insync.replicas=1, say) is
/// dimmed, so a first run is not shouted at. `None` without warnings.
pub fn warnings_marker(
    warnings: &[crate::config::warnings::Warning],
    room: usize,
    theme: Theme,
) -> Option<Span<'static>> {
    use crate::config::warnings::Level;
    let first = warnings.first()?;
    let n = warnings.len();
    let mark = first.level.mark();
    let key = super::keymap::label_of(super::keymap::Action::ShowConfig).unwrap_or("F6");
    let more = if n > 1 { format!(" (+{} more)", n - 1) } else { String::new() };
    let noun = match (first.level, n) {
        (Level::Warning, 1) => "warning",
        (Level::Warning, _) => "warnings",
        (Level::Notice, 1) => "notice",
        (Level::Notice, _) => "notices",
    };
    let forms = [
        format!("{mark} {}: {}{more} · {key}", first.setting, first.brief),
        format!("{mark} {}{more} · {key}", first.brief),
        format!("{mark} {n} {noun} · {key}"),
        format!("{mark} {key}"),
        mark.to_string(),
    ];
    let text = forms.into_iter().find(|f| text::width(f) <= room)?;
    let style = if first.level == Level::Warning { theme.warn() } else { theme.muted() };
    Some(Span::styled(text, style))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::fixture;

    use crate::cluster::snapshot::BrokerStatus;

    fn fifty() -> Snapshot {
        let mut snap = fixture::snapshot();
        let template = BrokerView {
            status: BrokerStatus::Up,
            fenced: false,
            fenced_in: None,
            ..snap.brokers[0].clone()
        };
        snap.brokers = (0..50).map(|id| BrokerView { id, ..template.clone() }).collect();
        snap
    }

    fn text(model: &crate::ui::app::Model, snap: &Snapshot, width: u16) -> Vec<String> {
        let lines = strip_lines(model, snap, width);
        lines.iter().map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect()).collect()
    }

    fn settings(snap: &Snapshot, width: usize) -> (String, Vec<Span<'static>>) {
        let model = crate::ui::app::Model::new(1.0, Theme::new(false), snap);
        let line = settings_line(&model, snap, width);
        (line.spans.iter().map(|s| s.content.as_ref()).collect(), line.spans)
    }

    /// The settings line ends with the settings' warnings, as far as they fit; a notice
    /// alone (Kafka's default min.insync.replicas=1 under acks=all) is dimmed, a warning is
    /// yellow; a safe cluster (the fixture: min.insync.replicas=2, acks=all) has none.
    #[test]
    fn the_settings_line_ends_with_the_warnings() {
        let mut snap = fixture::snapshot();
        assert!(snap.warnings().is_empty(), "{:?}", snap.warnings());
        assert!(!settings(&snap, 80).0.contains("F6"));
        snap.producers[0].config.acks = crate::sim::Acks::One;
        let (line, spans) = settings(&snap, 80);
        assert_eq!(line, " acks=1  min.insync=2  unclean=off  lag.max=30s  rate=100/s  ⚠ 1 warning · F6");
        assert_eq!(spans.last().unwrap().style, Theme::new(false).warn());
        let (line, _) = settings(&snap, 200);
        assert!(line.ends_with("=100/s  ⚠ a leader crash loses acked records · F6"), "{line}");
        let (line, _) = settings(&snap, 240);
        assert!(
            line.ends_with("  ⚠ acks=1 (producer 0 → test_repli): a leader crash loses acked records · F6"),
            "{line}"
        );
        snap.producers[0].config.acks = crate::sim::Acks::All;
        snap.topics[0].effective_min_isr = 1;
        snap.topics[0].config_overrides.clear();
        snap.broker_config.min_insync_replicas = 1;
        let (line, spans) = settings(&snap, 80);
        assert!(line.ends_with("  ℹ 1 notice · F6"), "{line}");
        assert_eq!(spans.last().unwrap().style, Theme::new(false).muted(), "a notice does not shout");
        let (line, _) = settings(&snap, 200);
        assert!(line.ends_with("=100/s  ℹ acks=all may rest on one copy · F6"), "{line}");
    }

    /// With 50 brokers the strip cannot list them all in its two lines, at 80 or at 200
    /// columns: it counts them by state and lists only the brokers that need attention and
    /// the selected one, in words.
    #[test]
    fn fifty_brokers_show_as_counts_and_the_brokers_that_need_attention() {
        let mut snap = fifty();
        snap.brokers[7].status = BrokerStatus::Crashed { since: snap.now - 2_000 };
        snap.brokers[7].fenced_in = Some(7_000);
        snap.brokers[31].fetch_paused = true;
        let mut model = crate::ui::app::Model::new(1.0, Theme::new(false), &snap);
        model.selected_broker = Some(45);
        for width in [80, 200] {
            let lines = text(&model, &snap, width);
            let all = lines.join("\n");
            assert!(lines.len() <= STRIP_MAX_LINES, "{all}");
            assert!(all.contains("50 brokers: 49 up, 1 crashed"), "{all}");
            assert!(all.contains("7 ✖ crashed 2s, fenced in 7s"), "{all}");
            assert!(all.contains("31 ● up") && all.contains("fetch paused"), "{all}");
            assert!(all.contains("▸45 ● up"), "{all}");
            assert!(!all.contains(" 12 ") && !all.contains("12●"), "a running broker is not listed: {all}");
        }
    }

    /// When even the brokers that need attention do not fit, the selected one still shows.
    #[test]
    fn the_selected_broker_stays_in_view_when_many_need_attention() {
        let mut snap = fifty();
        for b in &mut snap.brokers {
            b.status = BrokerStatus::Crashed { since: 0 };
        }
        let mut model = crate::ui::app::Model::new(1.0, Theme::new(false), &snap);
        model.selected_broker = Some(45);
        let lines = text(&model, &snap, 80);
        assert_eq!(lines.len(), STRIP_MAX_LINES);
        assert!(lines[0].contains("50 brokers: 50 crashed") && lines[0].contains("▸45 "), "{lines:?}");
        assert!(lines[1].ends_with('…'), "{lines:?}");
    }
}
