//! The live cluster in Kafka's own words, inside the dashboard: the palette commands
//! `describe [T]` (what `kafka-topics.sh --describe [--topic T]` prints) and `get
//! /brokers/topics/T/partitions/P/state` (the partition's `state` znode, as the seed
//! documents show it with `zookeeper-shell.sh`), each in a pane over the dashboard that
//! follows the cluster as it changes, scrolls, and closes with Esc. The text comes from the
//! one formatter the headless `isrlab describe` and `describe --zk` print with
//! ([`crate::describe`]).
//!
//! These two read the cluster and change nothing, so they are palette commands, not commands
//! of the cluster's grammar: they are not recorded in a session and scenario files do not
//! take them. [`USAGE`] is their grammar, for the help and the palette's refusals.

use ratatui::Frame;
use ratatui::layout::{Margin, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Padding, Paragraph};

use super::app::{Effect, Mode, Model};
use super::keymap::HelpAction;
use super::text;
use crate::cluster::snapshot::{PartitionView, Snapshot};
use crate::describe::{ZK_CONTROLLER_EPOCH, describe, describe_topic, zk_state_json, zk_state_path};
use crate::sim::protocol::LeaderRecoveryState;
use crate::sim::{TopicPartition, format_time, join_ids};

/// The palette commands that read the cluster, one line per form.
pub const USAGE: &[&str] = &["describe [T]", "get /brokers/topics/T/partitions/P/state"];

/// What a readout shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Query {
    /// `kafka-topics.sh --describe`, of every topic or of one.
    Describe(Option<String>),
    /// One partition's `state` znode.
    Get(TopicPartition),
}

/// The open readout: what it shows and the first line shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Readout {
    /// What it shows.
    pub query: Query,
    /// First line shown.
    pub scroll: usize,
}

/// Reads a palette line: `None` when its verb is not `describe` or `get` (it is a command
/// of the cluster's grammar, or a mistake), else the query or why it does not parse. Kafka's
/// own `--topic T` form is taken too.
pub fn parse(line: &str) -> Option<Result<Query, String>> {
    let mut words = line.split_whitespace();
    let verb = words.next()?;
    let rest: Vec<&str> = words.collect();
    match verb {
        "describe" => Some(match rest.as_slice() {
            [] => Ok(Query::Describe(None)),
            [topic] | ["--topic", topic] if !topic.starts_with('-') => {
                Ok(Query::Describe(Some(topic.to_string())))
            }
            _ => Err(format!("usage: {}", USAGE[0])),
        }),
        "get" => Some(match rest.as_slice() {
            [path] => znode(path),
            _ => Err(format!("usage: {}", USAGE[1])),
        }),
        _ => None,
    }
}

/// The partition a `state` znode path names. Errors: ZooKeeper's answer for a path that is
/// not one, with the one isrlab serves.
fn znode(path: &str) -> Result<Query, String> {
    let parts: Vec<&str> = path.split('/').collect();
    if let ["", "brokers", "topics", topic, "partitions", p, "state"] = parts.as_slice()
        && !topic.is_empty()
        && let Ok(partition) = p.parse::<u32>()
    {
        return Ok(Query::Get(TopicPartition::new(*topic, partition)));
    }
    Err(format!("Node does not exist: {path} (isrlab serves {})", USAGE[1]))
}

/// A refusal of the cluster's grammar for an unknown verb, with these commands added to
/// its list (the palette takes both).
pub fn with_palette_usage(message: String) -> String {
    if message.starts_with("unknown command") {
        let also: Vec<&str> = USAGE.iter().copied().chain([super::record::USAGE]).collect();
        format!("{message}; in the palette also: {}", also.join(" | "))
    } else {
        message
    }
}

impl Query {
    /// Checks the query against the cluster now. Errors in Kafka's words: `TopicCommand`'s
    /// for an unknown topic; for a partition state, ZooKeeper's answer and Kafka's
    /// `UNKNOWN_TOPIC_OR_PARTITION`.
    pub fn check(&self, snap: &Snapshot) -> Result<(), String> {
        let topics = || snap.topics.iter().map(|t| t.name.as_str()).collect::<Vec<_>>().join(", ");
        match self {
            Query::Describe(Some(t)) if !snap.topics.iter().any(|x| x.name == *t) => Err(format!(
                "Error while executing topic command : Topic '{t}' does not exist as expected (topics: {})",
                topics()
            )),
            Query::Describe(_) => Ok(()),
            Query::Get(tp) => {
                if partition(snap, tp).is_some() {
                    return Ok(());
                }
                let path = format!("/brokers/topics/{}/partitions/{}/state", tp.topic, tp.partition);
                let why = match snap.topics.iter().find(|t| *t.name == *tp.topic) {
                    None => format!("topic `{}` does not exist; topics: {}", tp.topic, topics()),
                    Some(t) => format!(
                        "No such partition as {tp} ({} has partitions 0 to {})",
                        t.name,
                        t.partitions.saturating_sub(1)
                    ),
                };
                Err(format!("Node does not exist: {path} (UNKNOWN_TOPIC_OR_PARTITION: {why})"))
            }
        }
    }

    /// The command line it stands for, as the pane's title says it.
    fn title(&self) -> String {
        match self {
            Query::Describe(None) => "kafka-topics.sh --describe".to_string(),
            Query::Describe(Some(t)) => format!("kafka-topics.sh --describe --topic {t}"),
            Query::Get(tp) => format!("get /brokers/topics/{}/partitions/{}/state", tp.topic, tp.partition),
        }
    }

    /// The pane's text at `width` columns, from the cluster now.
    pub fn lines(&self, snap: &Snapshot, width: usize) -> Vec<String> {
        match self {
            Query::Describe(topic) => {
                let text = match topic {
                    None => describe(snap),
                    Some(t) => describe_topic(snap, t).unwrap_or_default(),
                };
                if text.is_empty() {
                    return vec!["(no topics: kafka-topics.sh prints nothing)".to_string()];
                }
                text.lines().flat_map(|l| tabbed(l, width)).collect()
            }
            Query::Get(tp) => match partition(snap, tp) {
                Some(p) => znode_lines(snap, p, width),
                None => text::wrap(&self.check(snap).err().unwrap_or_default(), width),
            },
        }
    }
}

fn partition<'a>(snap: &'a Snapshot, tp: &TopicPartition) -> Option<&'a PartitionView> {
    snap.partitions.iter().find(|p| p.tp == *tp).map(|p| &**p)
}

/// Columns of a tab stop, as a terminal expands `kafka-topics.sh`'s tabs.
const TAB: usize = 8;

/// One tab-separated line of `kafka-topics.sh --describe` with its tabs expanded to
/// [`TAB`]-column stops, as a terminal shows it, and wrapped at `width` between fields (never
/// inside one): continuation lines start one tab stop further in than the line. A field
/// wider than a whole line is cut, with `…`.
fn tabbed(line: &str, width: usize) -> Vec<String> {
    let lead = line.chars().take_while(|c| *c == '\t').count();
    let indent = (lead * TAB).min(width / 2);
    let hang = (indent + TAB).min(width / 2);
    let mut out: Vec<String> = Vec::new();
    let mut current = " ".repeat(indent);
    let mut col = indent;
    let mut fresh = true;
    for field in line[lead..].split('\t') {
        let start = if fresh { col } else { (col / TAB + 1) * TAB };
        let w = text::width(field);
        if !fresh && start + w > width {
            out.push(std::mem::take(&mut current));
            current = " ".repeat(hang);
            col = hang;
        } else {
            current.push_str(&" ".repeat(start - col));
            col = start;
        }
        let room = width.saturating_sub(col);
        let shown = text::truncate(field, room);
        col += text::width(&shown);
        current.push_str(&shown);
        fresh = false;
    }
    out.push(current.trim_end().to_string());
    out
}

/// The znode's JSON as it is now, then where each field comes from in KRaft and where
/// ZooKeeper kept it.
fn znode_lines(snap: &Snapshot, p: &PartitionView, width: usize) -> Vec<String> {
    // Prose reads best in lines of a book's width, however wide the screen.
    let width = width.min(PROSE_MAX);
    let leader = p.leader.map_or("-1 (none: the partition is offline)".to_string(), |l| l.to_string());
    let prose = [
        format!(
            "isrlab runs Kafka {} in KRaft mode: there is no ZooKeeper and no such znode. The same fields come \
             from the controller's metadata log (__cluster_metadata): the PartitionRecord written when {} was \
             created, then a PartitionChangeRecord at every leader or ISR change.",
            snap.semantics.kafka_version, p.tp
        ),
        format!(
            "In ZooKeeper mode (Kafka before 4.0) they were this znode, {}: the controller wrote it at every \
             election, and the leader at every ISR change (from Kafka 2.7 the controller did, on the leader's \
             AlterIsr request, KIP-497).",
            zk_state_path(p)
        ),
    ];
    let fields = [
        (
            "controller_epoch",
            ZK_CONTROLLER_EPOCH.to_string(),
            "the epoch of the controller that wrote it; in KRaft the metadata quorum's leader epoch (one controller here, which never fails over)",
        ),
        ("leader", leader, "the broker that leads the partition"),
        ("version", "1".to_string(), "the znode's JSON format version"),
        ("leader_epoch", p.leader_epoch.to_string(), "+1 at every leader change; followers truncate by it"),
        ("isr", format!("[{}]", join_ids(&p.isr)), "the in-sync replicas"),
    ];
    let mut out = text::wrap(&zk_state_json(p), width);
    out.push(String::new());
    for para in &prose {
        out.extend(text::wrap(para, width));
        out.push(String::new());
    }
    let value_w = fields.iter().map(|(_, v, _)| text::width(v)).max().unwrap_or(1);
    for (name, value, meaning) in fields {
        let head = format!("  {name:<16} {value:<value_w$}  ");
        let room = width.saturating_sub(text::width(&head)).max(20);
        for (i, l) in text::wrap(meaning, room).into_iter().enumerate() {
            let lead = if i == 0 { head.clone() } else { " ".repeat(text::width(&head)) };
            out.push(format!("{lead}{l}"));
        }
    }
    out.push(String::new());
    out.extend(text::wrap(
        &format!(
            "KRaft keeps more for it: partition epoch {} (+1 at every change; ZooKeeper used the znode's own \
             version for this), replicas {}, leader recovery state {}.",
            p.partition_epoch,
            join_ids(&p.replicas),
            match p.leader_recovery_state {
                LeaderRecoveryState::Recovered => "RECOVERED",
                LeaderRecoveryState::Recovering =>
                    "RECOVERING (an unclean election's leader, until its first AlterPartition)",
            }
        ),
        width,
    ));
    out
}

/// Widest a line of the `get` pane's prose gets (columns).
const PROSE_MAX: usize = 100;

/// Opens the readout `query` parsed from the palette's `line`, or keeps the line in the
/// palette with the reason when it does not parse or names no topic or partition of the
/// cluster (as every palette refusal does).
pub fn open(model: &mut Model, query: Result<Query, String>, line: &str, snap: &Snapshot) -> Vec<Effect> {
    match query.and_then(|q| q.check(snap).map(|()| q)) {
        Ok(query) => {
            model.palette.remember(line);
            model.palette.set_error(None);
            model.readout = Some(Readout { query, scroll: 0 });
            model.mode = Mode::Readout;
        }
        Err(why) => model.palette.set_error(Some(why)),
    }
    Vec::new()
}

/// The pane's keys ([`super::keymap::READOUT_BINDINGS`]).
pub fn on_key(model: &mut Model, action: HelpAction, snap: &Snapshot) -> Vec<Effect> {
    let page = usize::from(model.screen.1.saturating_sub(6)).max(1);
    let Some(readout) = model.readout.as_mut() else {
        model.mode = Mode::Normal;
        return Vec::new();
    };
    match action {
        HelpAction::Up => readout.scroll = readout.scroll.saturating_sub(1),
        HelpAction::Down => readout.scroll += 1,
        HelpAction::PageUp => readout.scroll = readout.scroll.saturating_sub(page),
        HelpAction::PageDown => readout.scroll += page,
        HelpAction::Close => {
            model.mode = Mode::Normal;
            return Vec::new();
        }
        HelpAction::Quit => {
            model.quit = true;
            return vec![Effect::Quit];
        }
    }
    let (w, h) = model.screen;
    let (_, inner) = areas(Rect::new(0, 0, w, h));
    let total = readout.query.lines(snap, usize::from(inner.width)).len();
    readout.scroll = readout.scroll.min(total.saturating_sub(usize::from(inner.height)));
    Vec::new()
}

/// The pane's box on a screen `area` (between the header and the footer, full width) and
/// the text area inside its border.
fn areas(area: Rect) -> (Rect, Rect) {
    let outer = Rect::new(area.x, area.y, area.width, area.height.saturating_sub(1)).inner(Margin::new(0, 1));
    (outer, outer.inner(Margin::new(2, 1)))
}

/// Draws the open readout over the dashboard, from the cluster now.
pub fn render(frame: &mut Frame, area: Rect, model: &Model, snap: &Snapshot) {
    let Some(readout) = &model.readout else { return };
    let theme = model.theme;
    let (outer, inner) = areas(area);
    let width = usize::from(inner.width);
    let lines = readout.query.lines(snap, width);
    let visible = usize::from(inner.height);
    let scroll = readout.scroll.min(lines.len().saturating_sub(visible));
    let title = format!(" {} · t={} · live ", readout.query.title(), format_time(snap.now));
    let more = match (scroll > 0, scroll + visible < lines.len()) {
        (true, true) => " ↑↓ more · Esc closes ",
        (false, true) => " ↓ more · Esc closes ",
        (true, false) => " ↑ more · Esc closes ",
        (false, false) => " Esc closes ",
    };
    let room = usize::from(outer.width).saturating_sub(2);
    let block = Block::bordered()
        .padding(Padding::horizontal(1))
        .title(Span::styled(text::truncate(&title, room), theme.title()))
        .title_bottom(Span::styled(text::truncate(more, room), theme.muted()));
    let shown: Vec<Line<'static>> = lines.into_iter().skip(scroll).take(visible).map(Line::raw).collect();
    frame.render_widget(Clear, outer);
    frame.render_widget(Paragraph::new(shown).block(block), outer);
}

#[cfg(test)]
mod tests;
