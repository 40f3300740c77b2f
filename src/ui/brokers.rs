//! The broker strip (each broker's state, leader count, the controller; the selected broker
//! marked) and, under it, the settings that decide durability: `acks`,
//! `min.insync.replicas`, `unclean.leader.election.enable`, `replica.lag.time.max.ms`.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::app::Model;
use super::text;
use super::theme::{Theme, glyph};
use crate::cluster::snapshot::{BrokerStatus, BrokerView, Snapshot, TopicView};
use crate::sim::{Acks, CONTROLLER_ID, Ms};

/// Draws the two lines.
pub fn render(frame: &mut Frame, area: Rect, model: &Model, snap: &Snapshot) {
    let [strip, settings] = Layout::vertical([Constraint::Length(1), Constraint::Length(1)]).areas(area);
    let width = usize::from(area.width);
    let line = [true, false]
        .into_iter()
        .map(|long| broker_line(model, snap, long))
        .find(|l| l.width() <= width)
        .unwrap_or_else(|| broker_line(model, snap, false));
    frame.render_widget(Paragraph::new(line), strip);
    frame.render_widget(Paragraph::new(settings_line(model, snap, width)), settings);
}

fn broker_line(model: &Model, snap: &Snapshot, long: bool) -> Line<'static> {
    let theme = model.theme;
    let mut spans = vec![Span::styled(" Brokers ", theme.title())];
    for b in &snap.brokers {
        let selected = b.id == model.selected_broker;
        let (state, style) = state(b, snap.now, theme);
        let leads = if long { format!(" leads {}", b.leader_count) } else { format!(" L{}", b.leader_count) };
        let marker = if selected { glyph::SELECTED } else { " " };
        let pick = if selected { theme.selected() } else { Style::new() };
        spans.push(Span::raw(format!(" {marker}")));
        spans.push(Span::styled(format!("{} ", b.id), pick.patch(theme.leader())));
        spans.push(Span::styled(state, pick.patch(style)));
        spans.push(Span::styled(leads, pick.patch(theme.muted())));
        spans.push(Span::raw(" "));
    }
    if !snap.semantics.contains("ZooKeeper") {
        let text = if long {
            format!("   KRaft controller {CONTROLLER_ID}")
        } else {
            format!("  ctrl {CONTROLLER_ID}")
        };
        spans.push(Span::styled(text, theme.muted()));
    }
    Line::from(spans)
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
    };
    if b.fetch_paused {
        text.push_str(", fetch paused");
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
/// on, short ones below; cut with `…` if even that does not fit.
fn settings_line(model: &Model, snap: &Snapshot, width: usize) -> Line<'static> {
    let theme = model.theme;
    let long = width >= SETTINGS_LONG_WIDTH;
    let producer = snap.producers.first();
    let acks = producer.map(|p| p.config.acks);
    let acks_style = if acks == Some(Acks::All) { theme.good() } else { theme.warn() };
    let acks = acks.map_or("–".to_string(), |a| a.to_string());
    let topic = model.topic(snap);
    let min_isr = min_isr_value(topic, snap, long);
    let unclean = topic.map(|t| t.unclean_leader_election_enable);
    let unclean_style = if unclean == Some(true) { theme.bad() } else { theme.normal() };
    let lag_ms = snap.broker_config.replica_lag_time_max_ms;
    let mut spans = vec![Span::raw(" "), Span::styled(format!("acks={acks}"), acks_style), Span::raw("  ")];
    if long {
        let unclean = unclean.map_or("–".to_string(), |u| u.to_string());
        spans.push(Span::raw(format!("min.insync.replicas={min_isr}")));
        spans.push(Span::raw("  "));
        spans.push(Span::styled(format!("unclean.leader.election.enable={unclean}"), unclean_style));
        spans.push(Span::raw(format!("  replica.lag.time.max.ms={lag_ms}")));
    } else {
        let unclean = unclean.map_or("–", |u| if u { "on" } else { "off" });
        spans.push(Span::raw(format!("min.insync={min_isr}")));
        spans.push(Span::raw("  "));
        spans.push(Span::styled(format!("unclean={unclean}"), unclean_style));
        spans.push(Span::raw(format!("  lag.max={}", seconds_or_ms(lag_ms))));
    }
    let rate = producer.map_or("–".to_string(), |p| number(p.config.rate));
    spans.push(Span::raw(format!("  rate={rate}/s")));
    Line::from(text::truncate_spans(spans, width.saturating_sub(1)))
}
