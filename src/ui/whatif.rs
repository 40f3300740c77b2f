//! What-if, side by side: `:whatif PROPERTY=VALUE` (or `v`) forks the present into two runs,
//! the run and a what-if run with that one setting changed
//! ([`crate::cluster::tape::Tape::start_whatif`]). Time advances both together and every later
//! command applies to both at the same sim instant. The dashboard shows one of them (`v`
//! switches), a line of what differs between them (acknowledged records lost, failed
//! produces, leaders, ISR, HW), and from [`WIDE`] columns on the two runs in two narrow
//! columns; `V` leaves, going on with the run shown. The counts are
//! [`crate::cluster::counts`], the same code `isrlab compare` counts with.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::app::Model;
use super::text;
use super::view::WIDE;
use crate::cluster::command::Command;
use crate::cluster::counts::{Counts, counts};
use crate::cluster::snapshot::{PartitionView, Snapshot, WhatIfView};
use crate::sim::{format_instant, join_ids};

/// Usage of the palette's what-if commands.
pub const USAGE: &str = "whatif PROPERTY=VALUE (as set takes it, e.g. whatif producer acks=all), whatif end (keeps the run shown)";

/// A what-if command of the palette.
#[derive(Clone, Debug, PartialEq)]
pub enum WhatIfCommand {
    /// `whatif SETTING`: fork the present with this `set` command applied to the what-if run.
    Start(Command),
    /// `whatif end`: leave, going on with the run shown.
    End,
}

/// The palette's what-if commands: `None` when the line is not one of them.
pub fn parse(line: &str) -> Option<Result<WhatIfCommand, String>> {
    let rest = line.trim_start().strip_prefix("whatif")?;
    if !rest.is_empty() && !rest.starts_with(char::is_whitespace) {
        return None;
    }
    Some(match rest.trim() {
        "" => Err(format!("usage: {USAGE}")),
        "end" => Ok(WhatIfCommand::End),
        setting => match Command::parse(&format!("set {setting}")) {
            Ok(cmd) => Ok(WhatIfCommand::Start(cmd)),
            Err(e) => Err(format!("{} (usage: {USAGE})", e.message)),
        },
    })
}

/// What the dashboard keeps of the what-if between frames.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WhatIfState {
    /// The dashboard shows the what-if run (else the run it is compared with).
    pub showing_whatif: bool,
    /// The what-if run's name ([`name`]) while one is on.
    pub name: Option<String>,
    /// What differs between the two runs in the newest snapshot ([`differences`]).
    pub differences: Vec<String>,
}

impl WhatIfState {
    /// Takes in a snapshot: what differs between the two runs; without a what-if the run is
    /// shown.
    pub fn observe(&mut self, snap: &Snapshot) {
        match snap.whatif.as_deref() {
            Some(w) => {
                self.name = Some(name(w));
                self.differences = differences(snap, &w.snapshot);
            }
            None => *self = WhatIfState::default(),
        }
    }
}

/// The snapshot the dashboard draws: the what-if run's while it is shown, else `snap`.
pub fn shown<'a>(model: &Model, snap: &'a Snapshot) -> &'a Snapshot {
    match &snap.whatif {
        Some(w) if model.whatif.showing_whatif => &w.snapshot,
        _ => snap,
    }
}

/// The what-if run's name: `what if acks=all`.
pub fn name(w: &WhatIfView) -> String {
    let setting = w.setting.to_string();
    let words = setting.strip_prefix("set ").unwrap_or(&setting);
    let words = words.strip_prefix("producer ").unwrap_or(words);
    format!("what if {words}")
}

/// One count of a run, by name in [`differences`].
type CountOf = fn(&Counts) -> u64;
/// One thing of a partition, in words, by name in [`differences`].
type PartitionWord = fn(&PartitionView) -> String;

/// What differs between the run (`a`) and the what-if run (`b`), each as `name a|b`: the
/// counts, then the partitions' leaders, ISRs and HWs (one partition by name, several
/// counted). Empty when nothing differs.
pub fn differences(a: &Snapshot, b: &Snapshot) -> Vec<String> {
    let (ca, cb) = (counts(a), counts(b));
    let mut out = Vec::new();
    let pairs: [(&str, CountOf); 4] = [
        ("acked lost", |c| c.acked_lost),
        ("failed produces", |c| c.failed),
        ("acked", |c| c.acknowledged),
        ("duplicates", |c| c.duplicates),
    ];
    for (label, get) in pairs {
        if get(&ca) != get(&cb) {
            out.push(format!("{label} {}|{}", get(&ca), get(&cb)));
        }
    }
    let parts: [(&str, PartitionWord); 3] = [
        ("leader", |p| p.leader.map_or("none".into(), |l| l.to_string())),
        ("ISR", |p| join_ids(&p.isr)),
        ("HW", |p| p.hw.to_string()),
    ];
    for (label, get) in parts {
        let differing: Vec<(&PartitionView, &PartitionView)> = a
            .partitions
            .iter()
            .filter_map(|p| b.partitions.iter().find(|q| q.tp == p.tp).map(|q| (&**p, &**q)))
            .filter(|(p, q)| get(p) != get(q))
            .collect();
        match differing.as_slice() {
            [] => {}
            [(p, q)] => out.push(format!("{label} {} {}|{}", p.tp, get(p), get(q))),
            many => out.push(format!("{label} differs on {} partitions", many.len())),
        }
    }
    out
}

/// The what-if line over the status line, fitted to `width` columns: which run is shown,
/// what differs, the keys. `None` without a what-if.
pub fn line(model: &Model, width: u16) -> Option<String> {
    let state = &model.whatif;
    let name = state.name.as_ref()?;
    let which = if state.showing_whatif { "showing the what-if" } else { "showing the run" };
    let diffs = &state.differences;
    let diff = if diffs.is_empty() { "no difference yet".to_string() } else { diffs.join(", ") };
    let text = format!("◆ {name} · {which} · run|what-if: {diff} · v other, V keep");
    Some(text::truncate(&text, usize::from(width).saturating_sub(1)))
}

/// From [`WIDE`] columns: the two runs in two narrow columns in `area`, each with its counts
/// and its partitions' leader, epoch, ISR and HW.
pub fn render(frame: &mut Frame, area: Rect, model: &Model, snap: &Snapshot) {
    let Some(w) = snap.whatif.as_deref() else { return };
    if area.width < WIDE / 2 {
        return;
    }
    let [left, right] = Layout::horizontal([Constraint::Fill(1); 2]).spacing(1).areas(area);
    let since = format!("from {}", format_instant(w.since));
    render_side(frame, left, model, snap, "the run".to_string(), !model.whatif.showing_whatif);
    render_side(
        frame,
        right,
        model,
        &w.snapshot,
        format!("{} ({since})", name(w)),
        model.whatif.showing_whatif,
    );
}

fn render_side(frame: &mut Frame, area: Rect, model: &Model, snap: &Snapshot, title: String, shown: bool) {
    let theme = model.theme;
    let mark = if shown { " ◂ shown" } else { "" };
    let block = Block::default()
        .borders(Borders::TOP)
        .title(Span::styled(format!(" {title}{mark} "), if shown { theme.title() } else { theme.muted() }));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let c = counts(snap);
    let lost_style = if c.acked_lost > 0 { theme.bad() } else { theme.good() };
    let mut lines = vec![Line::from(vec![
        Span::styled(format!(" acked lost {}", c.acked_lost), lost_style),
        Span::styled(
            format!("  acked {}  failed {}  pending {}", c.acknowledged, c.failed, c.pending),
            theme.normal(),
        ),
    ])];
    lines.push(Line::styled(
        format!(" {:<16} {:>3} {:>3} {:<9} {:>8}", "Partition", "Ldr", "Ep", "ISR", "HW"),
        theme.muted(),
    ));
    let rows = usize::from(inner.height).saturating_sub(lines.len());
    let first = model.partition_offset.min(snap.partitions.len().saturating_sub(rows));
    for p in snap.partitions.iter().skip(first).take(rows) {
        let leader = p.leader.map_or("-".to_string(), |l| l.to_string());
        let tp = text::truncate(&p.tp.to_string(), 16);
        let row = format!(" {tp:<16} {leader:>3} {:>3} {:<9} {:>8}", p.leader_epoch, join_ids(&p.isr), p.hw);
        lines.push(Line::styled(row, theme.normal()));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whatif_takes_a_setting_as_set_does() {
        let Some(Ok(WhatIfCommand::Start(cmd))) = parse("whatif producer acks=all") else { panic!() };
        assert_eq!(cmd, Command::parse("set producer acks=all").unwrap());
        assert_eq!(parse("whatif end"), Some(Ok(WhatIfCommand::End)));
        assert!(parse("whatif").unwrap().unwrap_err().starts_with("usage: whatif"));
        assert!(parse("whatif producer").unwrap().is_err());
        assert_eq!(parse("whatifs"), None);
        assert_eq!(parse("crash 1"), None);
    }
}
