//! The timeline strip ("the tape"): one row above the status line with the run's sim time
//! from 0 to the latest instant its branch reached. Bands show the selected partition's
//! leader epochs; ticks mark crashes, fencing, elections, ISR shrinks and expansions,
//! truncations, losses and the commands applied. A cursor moves along it (`(`/`)` one tick
//! back or forward, `t` shows or hides it) and `T` (or `:rewind TIME`) takes the cluster
//! there: the sim thread restores its checkpoint before that instant and runs on to it
//! ([`crate::cluster::tape`]). A command applied there starts a new branch; `:branches`
//! lists them and `:branch N` switches.

use std::collections::BTreeMap;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::cluster::snapshot::Snapshot;
use crate::cluster::tape::BranchInfo;
use crate::sim::events::EventKind;
use crate::sim::{BrokerId, Epoch, SimTime, TopicPartition, format_instant};
use crate::ui::app::Model;

/// What a tick on the tape stands for, in the order one cell shows them (the first wins).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum MarkKind {
    /// Acknowledged (or unacknowledged) records lost.
    Loss,
    /// A broker crashed or lost power.
    Crash,
    /// A replica truncated its log.
    Truncation,
    /// The controller fenced a broker.
    Fenced,
    /// A leader election.
    Election,
    /// The ISR shrank.
    Shrink,
    /// The ISR grew.
    Expand,
}

impl MarkKind {
    /// The tick's character.
    pub fn glyph(self) -> char {
        match self {
            MarkKind::Loss => '!',
            MarkKind::Crash => 'x',
            MarkKind::Truncation => 't',
            MarkKind::Fenced => 'f',
            MarkKind::Election => 'E',
            MarkKind::Shrink => '-',
            MarkKind::Expand => '+',
        }
    }

    /// What the status line calls it.
    pub fn name(self) -> &'static str {
        match self {
            MarkKind::Loss => "records lost",
            MarkKind::Crash => "crash",
            MarkKind::Truncation => "truncation",
            MarkKind::Fenced => "fencing",
            MarkKind::Election => "election",
            MarkKind::Shrink => "ISR shrink",
            MarkKind::Expand => "ISR expansion",
        }
    }
}

/// One event tick.
#[derive(Clone, PartialEq, Debug)]
pub struct Mark {
    /// When.
    pub at: SimTime,
    /// What.
    pub kind: MarkKind,
    /// The partition, for partition events (only the selected partition's are shown).
    pub tp: Option<TopicPartition>,
    /// An election's new epoch and leader.
    pub epoch: Option<(Epoch, Option<BrokerId>)>,
}

/// The tape's state in the model: the ticks seen so far on each branch, the cursor.
#[derive(Clone, Debug, Default)]
pub struct TapeView {
    /// Whether the strip is shown.
    pub open: bool,
    /// The cursor's instant (`None`: at the newest snapshot).
    pub cursor: Option<SimTime>,
    /// Event ticks of the branch the run is on, oldest first.
    marks: Vec<Mark>,
    /// Events looked at so far (of the snapshot's `event_count`).
    seen_events: u64,
    /// The branch the run is on (from 1) and how many there are.
    pub branch: usize,
    /// How many branches there are.
    pub branches: usize,
    /// The latest instant the current branch reached (beyond the snapshot after a rewind).
    pub tip: SimTime,
    /// The ticks of the other branches, kept to show again on switching back.
    saved: BTreeMap<usize, Vec<Mark>>,
}

/// An election's new epoch and leader.
type EpochLeader = (Epoch, Option<BrokerId>);

fn mark_of(kind: &EventKind) -> Option<(MarkKind, Option<TopicPartition>, Option<EpochLeader>)> {
    Some(match kind {
        EventKind::AckedRecordsLost { tp, .. } | EventKind::UnackedRecordsLost { tp, .. } => {
            (MarkKind::Loss, Some(tp.clone()), None)
        }
        EventKind::BrokerCrashed { .. } | EventKind::BrokerPowerLost { .. } => (MarkKind::Crash, None, None),
        EventKind::Truncated { tp, .. } => (MarkKind::Truncation, Some(tp.clone()), None),
        EventKind::BrokerFenced { .. } => (MarkKind::Fenced, None, None),
        EventKind::LeaderChanged { tp, new_leader, leader_epoch, .. } => {
            (MarkKind::Election, Some(tp.clone()), Some((*leader_epoch, *new_leader)))
        }
        EventKind::IsrShrunk { tp, .. } => (MarkKind::Shrink, Some(tp.clone()), None),
        EventKind::IsrExpanded { tp, .. } => (MarkKind::Expand, Some(tp.clone()), None),
        _ => return None,
    })
}

impl TapeView {
    /// A tape on branch 1 of 1.
    pub fn new() -> TapeView {
        TapeView { branch: 1, branches: 1, ..TapeView::default() }
    }

    /// Takes in a snapshot's new events (those of its recent window not seen yet).
    pub fn observe(&mut self, snap: &Snapshot) {
        if snap.event_count < self.seen_events {
            self.seen_events = 0;
        }
        let first = snap.event_count.saturating_sub(snap.recent_events.len() as u64);
        for (i, event) in snap.recent_events.iter().enumerate() {
            if first + (i as u64) < self.seen_events {
                continue;
            }
            if let Some((kind, tp, epoch)) = mark_of(&event.kind) {
                // After going back the branch's later ticks stay on the tape; replayed, the
                // same events come again and are not ticked twice.
                let mark = Mark { at: event.at, kind, tp, epoch };
                if !self.marks.iter().rev().take_while(|m| m.at >= mark.at).any(|m| *m == mark) {
                    self.marks.push(mark);
                }
            }
        }
        self.seen_events = snap.event_count;
        self.tip = self.tip.max(snap.now_us);
    }

    /// The run went back to the snapshot's instant (a rewind or a branch switch): the
    /// branch's ticks after it stay (its future, replayed as time runs on), and on a switch
    /// the other branch's ticks come back. `branches` is the sim's list.
    pub fn went_back(&mut self, snap: &Snapshot, branches: &[BranchInfo]) {
        let current = branches.iter().find(|b| b.current).map_or(self.branch, |b| b.number);
        self.adopt_branch(current, branches);
        self.marks.sort_by_key(|m| m.at);
        self.seen_events = snap.event_count;
        self.cursor = None;
    }

    /// After a command: the sim may have started a new branch from this instant.
    pub fn after_command(&mut self, branches: &[BranchInfo]) {
        let current = branches.iter().find(|b| b.current).map_or(self.branch, |b| b.number);
        self.adopt_branch(current, branches);
    }

    fn adopt_branch(&mut self, current: usize, branches: &[BranchInfo]) {
        if current != self.branch {
            let forked = branches.iter().find(|b| b.number == current).and_then(|b| b.parent);
            let mine = self.marks.clone();
            self.saved.insert(self.branch, mine.clone());
            self.marks = match self.saved.remove(&current) {
                Some(marks) => marks,
                // A new branch shares the ticks before its fork.
                None => mine.into_iter().filter(|m| forked.is_none_or(|(_, at)| m.at <= at)).collect(),
            };
            self.branch = current;
        }
        self.branches = branches.len().max(1);
        self.tip = branches.iter().find(|b| b.current).map_or(self.tip, |b| b.tip);
    }

    /// The ticks shown for the partition `tp`: its own and the cluster's, with the commands'
    /// instants (from the snapshot), sorted.
    fn instants(&self, tp: Option<&TopicPartition>, snap: &Snapshot) -> Vec<SimTime> {
        let mut out: Vec<SimTime> = self.shown(tp).map(|m| m.at).collect();
        out.extend(snap.commands.iter().map(|c| c.at));
        out.sort();
        out.dedup();
        out
    }

    fn shown<'a>(&'a self, tp: Option<&'a TopicPartition>) -> impl Iterator<Item = &'a Mark> + 'a {
        self.marks.iter().filter(move |m| m.tp.is_none() || m.tp.as_ref() == tp)
    }

    /// The cursor's instant: where it is, else the snapshot's.
    pub fn cursor_at(&self, snap: &Snapshot) -> SimTime {
        self.cursor.unwrap_or(snap.now_us)
    }

    /// Moves the cursor to the tick before (`forward` false) or after it; past the last
    /// tick it goes to the newest instant. Returns the words for the status line.
    pub fn step(&mut self, forward: bool, tp: Option<&TopicPartition>, snap: &Snapshot) -> String {
        self.open = true;
        let at = self.cursor_at(snap);
        let ticks = self.instants(tp, snap);
        let next = if forward {
            ticks.iter().copied().find(|t| *t > at).or(Some(self.tip.max(snap.now_us)).filter(|t| *t > at))
        } else {
            ticks
                .iter()
                .rev()
                .copied()
                .find(|t| *t < at)
                .or(Some(SimTime::ZERO).filter(|_| at > SimTime::ZERO))
        };
        if let Some(t) = next {
            self.cursor = Some(t);
        }
        self.describe(tp, snap)
    }

    /// What is under the cursor, in words, with the keys.
    pub fn describe(&self, tp: Option<&TopicPartition>, snap: &Snapshot) -> String {
        let at = self.cursor_at(snap);
        let mut what: Vec<String> =
            self.shown(tp).filter(|m| m.at == at).map(|m| m.kind.name().to_string()).collect();
        what.dedup();
        what.extend(
            snap.commands
                .iter()
                .filter(|c| c.at == at)
                .map(|c| format!("`{}` (going there: just before it)", c.command)),
        );
        let what = if what.is_empty() { String::new() } else { format!(": {}", what.join(", ")) };
        format!("tape at {}{what} · ( ) move · T go there · t hide", format_instant(at))
    }

    /// The strip's parts on a row `width` columns wide: the cursor's time label, the branch
    /// label, how many cells the band has and the instant (µs) its right end stands for;
    /// `None` when the band would be too narrow to draw.
    fn geometry(&self, width: u16, snap: &Snapshot) -> Option<(String, String, usize, u64)> {
        let at = self.cursor_at(snap);
        let label = format!("{} ", format_instant(at));
        let branch = format!(" b{}/{}", self.branch, self.branches);
        let cells = usize::from(width).saturating_sub(label.chars().count() + branch.chars().count() + 2);
        let end = self.tip.max(snap.now_us).max(at).as_micros().max(1);
        (cells >= 4).then_some((label, branch, cells, end))
    }

    /// The instant under column `x` of a strip `width` columns wide (the mouse: a click or a
    /// drag on the band moves the cursor there); `None` off the band. Never past the newest
    /// instant the branch reached.
    pub fn instant_at(&self, width: u16, x: u16, snap: &Snapshot) -> Option<SimTime> {
        let (label, _, cells, end) = self.geometry(width, snap)?;
        let c = usize::from(x).checked_sub(label.chars().count() + 1).filter(|c| *c < cells)?;
        let micros = (u128::from(end) * (c as u128 * 2 + 1) / (cells as u128 * 2)) as u64;
        Some(SimTime::from_micros(micros.min(self.tip.max(snap.now_us).as_micros())))
    }

    /// The strip: the cursor's time, the bands and ticks, the branch.
    pub fn render(&self, frame: &mut Frame, area: Rect, model: &Model, snap: &Snapshot) {
        let theme = model.theme;
        let tp = model.selected_tp.as_ref();
        let at = self.cursor_at(snap);
        let Some((label, branch, cells, end)) = self.geometry(area.width, snap) else { return };
        let column = |t: SimTime| -> usize {
            let c = (u128::from(t.as_micros()) * cells as u128 / u128::from(end)) as usize;
            c.min(cells - 1)
        };
        let mut glyphs: Vec<Option<MarkKind>> = vec![None; cells];
        let mut commands = vec![false; cells];
        let mut epochs: Vec<Option<(Epoch, Option<BrokerId>)>> = vec![None; cells];
        for m in self.shown(tp) {
            let c = column(m.at);
            if glyphs[c].is_none_or(|g| m.kind < g) {
                glyphs[c] = Some(m.kind);
            }
            if let Some(e) = m.epoch.filter(|_| m.tp.as_ref() == tp) {
                epochs[c] = Some(e);
            }
        }
        for c in snap.commands.iter() {
            commands[column(c.at)] = true;
        }
        // Carry the epoch forward: each column shows the epoch in force at its end.
        let mut band = None;
        let now_col = column(snap.now_us);
        let cursor_col = column(at);
        let mut spans = vec![Span::styled(label, theme.title()), Span::styled("|", theme.muted())];
        for c in 0..cells {
            if epochs[c].is_some() {
                band = epochs[c];
            }
            let ch = match (glyphs[c], commands[c]) {
                (Some(g), _) => g.glyph(),
                (None, true) => '^',
                (None, false) if c > now_col => '·',
                (None, false) => band.and_then(|(_, l)| l).map_or('─', leader_char),
            };
            let mut style = match glyphs[c] {
                Some(MarkKind::Loss) => theme.alarm(),
                Some(MarkKind::Crash | MarkKind::Truncation) => theme.bad(),
                Some(_) => theme.warn(),
                None if commands[c] => theme.key(),
                None if c > now_col => theme.muted(),
                None => match band {
                    Some((e, _)) if e % 2 == 0 => theme.normal(),
                    _ => theme.muted(),
                },
            };
            if c == cursor_col && (self.cursor.is_some() || self.open) {
                style = style.add_modifier(Modifier::REVERSED);
            }
            spans.push(Span::styled(ch.to_string(), style));
        }
        spans.push(Span::styled("|", theme.muted()));
        spans.push(Span::styled(branch, Style::default()));
        frame.render_widget(Paragraph::new(Line::from(spans)), area);
    }
}

/// A leader's id as one band character (ids past 9 show as `#`).
fn leader_char(leader: BrokerId) -> char {
    u32::try_from(leader).ok().and_then(|l| char::from_digit(l, 10)).unwrap_or('#')
}

/// What the palette's tape commands ask for.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum TapeCommand {
    /// `rewind TIME`: take the cluster back (or forward on its branch) to this instant.
    Rewind(SimTime),
    /// `branches`: list the branches.
    Branches,
    /// `branch N`: switch to branch N.
    Branch(usize),
}

/// Usage of the tape's palette commands.
pub const USAGE: &str = "rewind TIME (e.g. rewind 65s, rewind 00:01:05.2), branches, branch N";

/// The palette's tape commands: `None` when the line is not one of them.
pub fn parse(line: &str) -> Option<Result<TapeCommand, String>> {
    let mut words = line.split_whitespace();
    let first = words.next()?;
    let rest: Vec<&str> = words.collect();
    Some(match (first, rest.as_slice()) {
        ("rewind", [time]) => crate::scenario::duration::parse_instant(time).map(TapeCommand::Rewind),
        ("rewind", _) => Err(format!("usage: {USAGE}")),
        ("branches", []) => Ok(TapeCommand::Branches),
        ("branches", _) => Err(format!("usage: {USAGE}")),
        ("branch", [n]) => match n.parse::<usize>() {
            Ok(n) if n >= 1 => Ok(TapeCommand::Branch(n)),
            _ => Err(format!("`{n}` is not a branch number (1, 2, …; :branches lists them)")),
        },
        ("branch", _) => Err(format!("usage: {USAGE}")),
        _ => return None,
    })
}

/// The branches in words for the status line: one per branch.
pub fn describe_branches(branches: &[BranchInfo]) -> String {
    if branches.len() <= 1 {
        return "one branch so far: a command applied after going back (T, :rewind) starts another"
            .to_string();
    }
    let parts: Vec<String> = branches
        .iter()
        .map(|b| {
            let from = match b.parent {
                Some((p, at)) => format!("from {p} at {}", format_instant(at)),
                None => "the run as it started".to_string(),
            };
            let first = b
                .commands
                .iter()
                .find(|(at, _)| b.parent.is_none_or(|(_, f)| *at >= f))
                .map_or(String::new(), |(_, c)| format!(", first `{c}`"));
            let mark = if b.current { " (here)" } else { "" };
            format!("{}{mark}: {from}{first}, up to {}", b.number, format_instant(b.tip))
        })
        .collect();
    format!("branches · {} · :branch N switches", parts.join(" · "))
}

/// The branches other than the current one, one line each, for a recording's comments:
/// where each was forked from and its commands after that, at their instants.
pub fn other_branches(branches: &[BranchInfo]) -> Vec<String> {
    if branches.len() <= 1 {
        return Vec::new();
    }
    branches
        .iter()
        .filter(|b| !b.current)
        .map(|b| {
            let from = match b.parent {
                Some((p, at)) => format!("from branch {p} at {}", format_instant(at)),
                None => "the run as it started".to_string(),
            };
            let own: Vec<String> = b
                .commands
                .iter()
                .filter(|(at, _)| b.parent.is_none_or(|(_, f)| *at >= f))
                .map(|(at, c)| format!("{} {c}", format_instant(*at)))
                .collect();
            let own = if own.is_empty() { "no commands".to_string() } else { own.join("; ") };
            format!("branch {}, {from}, up to {}: {own}", b.number, format_instant(b.tip))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap_with(now_ms: u64, events: &[(u64, EventKind)], count: u64) -> Snapshot {
        let recent: Vec<crate::sim::events::ClusterEvent> = events
            .iter()
            .map(|(at, kind)| crate::sim::events::ClusterEvent {
                at: SimTime::from_ms(*at),
                kind: kind.clone(),
            })
            .collect();
        Snapshot {
            now_us: SimTime::from_ms(now_ms),
            recent_events: recent.into(),
            event_count: count,
            ..Snapshot::default()
        }
    }

    /// After going back, the branch's later ticks stay; replaying the same events does not
    /// tick them twice, and a new branch keeps only the ticks before its fork.
    #[test]
    fn ticks_survive_going_back_once_each_and_a_fork_keeps_those_before_it() {
        let crash = EventKind::BrokerCrashed { broker: 2 };
        let fenced = EventKind::BrokerFenced { broker: 2, silent_ms: 9_000, timeout_ms: 9_000 };
        let mut tape = TapeView::new();
        tape.observe(&snap_with(20_000, &[(5_000, crash.clone()), (14_000, fenced.clone())], 2));
        assert_eq!(tape.marks.len(), 2);
        let one = |tip: u64| BranchInfo {
            number: 1,
            parent: None,
            tip: SimTime::from_ms(tip),
            commands: Vec::new(),
            current: true,
        };
        tape.went_back(&snap_with(1_000, &[], 0), &[one(20_000)]);
        assert_eq!(tape.marks.len(), 2, "the future's ticks stay");
        tape.observe(&snap_with(20_000, &[(5_000, crash.clone()), (14_000, fenced)], 2));
        assert_eq!(tape.marks.len(), 2, "replayed events are not ticked twice");
        let mut first = one(20_000);
        first.current = false;
        let second = BranchInfo {
            number: 2,
            parent: Some((1, SimTime::from_ms(10_000))),
            tip: SimTime::from_ms(10_000),
            commands: Vec::new(),
            current: true,
        };
        tape.after_command(&[first.clone(), second]);
        assert_eq!((tape.branch, tape.branches), (2, 2));
        assert_eq!(tape.marks.iter().map(|m| m.kind).collect::<Vec<_>>(), vec![MarkKind::Crash]);
        first.current = true;
        tape.went_back(&snap_with(20_000, &[], 2), &[first]);
        assert_eq!(tape.marks.len(), 2, "branch 1's ticks come back");
    }

    #[test]
    fn the_palette_reads_the_tape_commands_and_explains_bad_ones() {
        assert_eq!(parse("rewind 65s"), Some(Ok(TapeCommand::Rewind(SimTime::from_ms(65_000)))));
        assert_eq!(parse("rewind 00:00:02.5"), Some(Ok(TapeCommand::Rewind(SimTime::from_ms(2_500)))));
        assert_eq!(parse("branches"), Some(Ok(TapeCommand::Branches)));
        assert_eq!(parse("branch 2"), Some(Ok(TapeCommand::Branch(2))));
        assert!(parse("branch 0").unwrap().unwrap_err().contains("not a branch number"));
        assert!(parse("rewind").unwrap().unwrap_err().starts_with("usage:"));
        assert!(parse("rewind soon").unwrap().is_err());
        assert_eq!(parse("crash 1"), None);
    }
}
