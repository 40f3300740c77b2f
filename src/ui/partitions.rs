//! The partition table: leader, epoch, replicas, ISR, HW, each replica's LEO, follower lag
//! with the ISR timer, and health. Rows are built only for the visible slice; the selected
//! row is marked with `▸` and highlighted, and the slice scrolls to keep it visible.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Row, Table};

use super::app::Model;
use super::text;
use super::theme::{Theme, glyph};
use crate::cluster::snapshot::{PartitionHealth, PartitionView, ReplicaView, Snapshot};
use crate::sim::{Ms, join_ids};

/// A column: header text and how to fill a cell.
struct Column {
    title: &'static str,
    cell: fn(&PartitionView, Theme, bool) -> Line<'static>,
    /// Takes the width left over instead of fitting its content.
    fill: bool,
}

const NARROW: &[Column] = &[
    Column { title: "Ldr", cell: leader, fill: false },
    Column { title: "Ep", cell: epoch, fill: false },
    Column { title: "ISR", cell: isr, fill: false },
    Column { title: "HW", cell: hw, fill: false },
    Column { title: "LEO by replica", cell: leos, fill: false },
    Column { title: "Lag / ISR timer", cell: lag, fill: true },
    Column { title: "State", cell: state, fill: false },
];

/// The narrow set plus the replica list, for mid-size terminals.
const COMPACT: &[Column] = &[
    Column { title: "Ldr", cell: leader, fill: false },
    Column { title: "Ep", cell: epoch, fill: false },
    Column { title: "Replicas", cell: replicas, fill: false },
    Column { title: "ISR", cell: isr, fill: false },
    Column { title: "HW", cell: hw, fill: false },
    Column { title: "LEO by replica", cell: leos, fill: false },
    Column { title: "Lag / ISR timer", cell: lag, fill: true },
    Column { title: "State", cell: state, fill: false },
];

/// Narrowest the filling "Lag / ISR timer" column may get before a column set is too wide.
const MIN_FILL: u16 = 16;

const WIDE: &[Column] = &[
    Column { title: "Leader", cell: leader, fill: false },
    Column { title: "Epoch", cell: epoch, fill: false },
    Column { title: "Replicas", cell: replicas, fill: false },
    Column { title: "ISR", cell: isr, fill: false },
    Column { title: "HW", cell: hw, fill: false },
    Column { title: "LEO by replica", cell: leos, fill: false },
    Column { title: "Lag / ISR timer", cell: lag, fill: true },
    Column { title: "State", cell: state, fill: false },
];

/// Draws the table in `area` (header row included).
pub fn render(frame: &mut Frame, area: Rect, model: &Model, snap: &Snapshot, wide: bool) {
    let theme = model.theme;
    if snap.partitions.is_empty() {
        let hint = " no topics yet: create one with `:create-topic T P RF`";
        frame.render_widget(Paragraph::new(Line::styled(hint, theme.muted())), area);
        return;
    }
    let rows = usize::from(area.height.saturating_sub(1)).max(1);
    let offset = model.visible_offset(rows, snap.partitions.len());
    let selected = model.selected_partition.min(snap.partitions.len() - 1);
    // The richest column set whose fixed columns leave room for the lag column.
    let layout = |columns: &'static [Column]| {
        let body = cells(snap, columns, offset, rows, selected, theme, wide);
        let widths = widths(&body, titles(columns), columns);
        (columns, body, widths)
    };
    let (columns, body, widths) = [WIDE, COMPACT]
        .into_iter()
        .map(layout)
        .find(|(columns, _, widths)| fits(widths, columns.len(), area.width))
        .unwrap_or_else(|| layout(NARROW));
    let table_rows = body.into_iter().enumerate().map(|(n, cells)| {
        let row = Row::new(cells);
        if offset + n == selected { row.style(theme.selected()) } else { row }
    });
    let header = Row::new(
        titles(columns).enumerate().map(|(n, t)| if n == 0 { format!(" {t}") } else { t.to_string() }),
    );
    let table = Table::new(table_rows, widths).header(header.style(theme.title())).column_spacing(1);
    frame.render_widget(table, area);
}

fn titles(columns: &[Column]) -> impl Iterator<Item = &'static str> + Clone + '_ {
    std::iter::once("Partition").chain(columns.iter().map(|c| c.title))
}

fn fits(widths: &[Constraint], columns: usize, width: u16) -> bool {
    let fixed: u16 = widths.iter().map(|w| if let Constraint::Length(n) = w { *n } else { 0 }).sum();
    fixed + columns as u16 + MIN_FILL <= width
}

/// The visible slice's cells, one line per column (selection marker + partition first).
fn cells(
    snap: &Snapshot,
    columns: &[Column],
    offset: usize,
    rows: usize,
    selected: usize,
    theme: Theme,
    wide: bool,
) -> Vec<Vec<Line<'static>>> {
    let slice = snap.partitions.iter().enumerate().skip(offset).take(rows);
    slice
        .map(|(i, p)| {
            let marker = if i == selected { glyph::SELECTED } else { " " };
            let mut cells =
                vec![Line::from(vec![Span::raw(marker), Span::styled(p.tp.to_string(), theme.leader())])];
            cells.extend(columns.iter().map(|c| (c.cell)(p, theme, wide)));
            cells
        })
        .collect()
}

fn widths<'a>(
    body: &[Vec<Line>],
    titles: impl Iterator<Item = &'a str>,
    columns: &[Column],
) -> Vec<Constraint> {
    titles
        .enumerate()
        .map(|(n, title)| {
            let content = body.iter().map(|cells| cells[n].width()).max().unwrap_or(0);
            let title_w = text::width(title) + usize::from(n == 0);
            let w = content.max(title_w) as u16;
            match n.checked_sub(1).map(|c| columns[c].fill) {
                Some(true) => Constraint::Fill(1),
                _ => Constraint::Length(w),
            }
        })
        .collect()
}

fn leader(p: &PartitionView, theme: Theme, _wide: bool) -> Line<'static> {
    match p.leader {
        Some(b) => Line::raw(b.to_string()),
        None => Line::styled("none", theme.bad()),
    }
}

fn epoch(p: &PartitionView, _theme: Theme, _wide: bool) -> Line<'static> {
    Line::raw(p.leader_epoch.to_string())
}

fn replicas(p: &PartitionView, _theme: Theme, _wide: bool) -> Line<'static> {
    Line::raw(join_ids(&p.replicas))
}

fn isr(p: &PartitionView, _theme: Theme, _wide: bool) -> Line<'static> {
    Line::raw(join_ids(&p.isr))
}

fn hw(p: &PartitionView, _theme: Theme, _wide: bool) -> Line<'static> {
    Line::raw(p.hw.to_string())
}

/// `0:1042 1:1042 2:980✖`: a replica on a dead broker is marked `✖`, one outside the ISR is
/// dimmed (the ISR column says it in text).
fn leos(p: &PartitionView, theme: Theme, _wide: bool) -> Line<'static> {
    let mut spans = Vec::new();
    for (i, r) in p.replica_views.iter().enumerate() {
        if i > 0 {
            spans.push(Span::raw(" "));
        }
        let style = match (r.online, r.in_isr) {
            (false, _) => theme.bad(),
            (true, false) => theme.muted(),
            (true, true) if r.is_leader => theme.leader(),
            (true, true) => theme.normal(),
        };
        let dead = if r.online { "" } else { glyph::DOWN };
        spans.push(Span::styled(format!("{}:{}{dead}", r.broker, r.leo), style));
    }
    Line::from(spans)
}

/// A follower caught up this recently (ms) is just one fetch behind: no countdown for it,
/// or healthy clusters would flash timers on every produce.
pub const TIMER_AFTER_MS: Ms = 1000;

/// A follower's lag and ISR state without its broker id: `200 behind, down`,
/// `1 behind, out in 16s` (short: `1 behind ⏱16s`), `out of ISR`; `None` for the leader and
/// for a caught-up ISR member.
pub fn follower_state(r: &ReplicaView, long: bool) -> Option<String> {
    if r.is_leader {
        return None;
    }
    if !r.online && !long {
        return Some("down".to_string());
    }
    let lag = r.lag.filter(|l| *l > 0).map(|l| format!("{l} behind"));
    let tail = if !r.online {
        Some("down".to_string())
    } else if !r.in_isr {
        Some(if long { "out of ISR" } else { "out" }.to_string())
    } else {
        isr_timer(r).map(|t| if long { format!("out in {t}") } else { format!("⏱{t}") })
    };
    match (lag, tail) {
        (Some(lag), Some(tail)) => Some(format!("{lag}{}{tail}", if long { ", " } else { " " })),
        (lag, tail) => lag.or(tail),
    }
}

/// Time left until the lag rule removes an ISR member, once it has not been caught up for
/// more than [`TIMER_AFTER_MS`].
fn isr_timer(r: &ReplicaView) -> Option<String> {
    let left = r.isr_expiry_in?;
    r.caught_up_ago.is_none_or(|ago| ago > TIMER_AFTER_MS).then(|| text::countdown(left))
}

/// [`follower_state`] after the broker id: `2: 200 behind, down` (short: `2:down`).
pub fn follower_note(r: &ReplicaView, long: bool) -> Option<String> {
    let state = follower_state(r, long)?;
    Some(format!("{}{}{state}", r.broker, if long { ": " } else { ":" }))
}

fn lag(p: &PartitionView, theme: Theme, wide: bool) -> Line<'static> {
    let mut spans = Vec::new();
    for r in &p.replica_views {
        let Some(note) = follower_note(r, wide) else { continue };
        if !spans.is_empty() {
            spans.push(Span::raw(if wide { "; " } else { " " }));
        }
        let style = if !r.online {
            theme.bad()
        } else if r.in_isr {
            theme.warn()
        } else {
            theme.muted()
        };
        spans.push(Span::styled(note, style));
    }
    Line::from(spans)
}

/// The health word: `ok`, `URP`, `<minISR`, `OFFLINE`.
pub fn health_word(h: PartitionHealth) -> &'static str {
    match h {
        PartitionHealth::Healthy => "ok",
        PartitionHealth::UnderReplicated => "URP",
        PartitionHealth::UnderMinIsr => "<minISR",
        PartitionHealth::Offline => "OFFLINE",
    }
}

fn state(p: &PartitionView, theme: Theme, _wide: bool) -> Line<'static> {
    let style = match p.health {
        PartitionHealth::Healthy => theme.good(),
        PartitionHealth::UnderReplicated => theme.warn(),
        PartitionHealth::UnderMinIsr => theme.bad(),
        PartitionHealth::Offline => theme.alarm(),
    };
    Line::styled(health_word(p.health), style)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::fixture;

    #[test]
    fn follower_notes_say_lag_timer_and_state() {
        let snap = fixture::snapshot();
        let p0 = &snap.partitions[0];
        let notes: Vec<String> = p0.replica_views.iter().filter_map(|r| follower_note(r, true)).collect();
        assert_eq!(notes, ["1: 6 behind, out in 22s", "2: 406 behind, down"]);
        let short: Vec<String> = p0.replica_views.iter().filter_map(|r| follower_note(r, false)).collect();
        assert_eq!(short, ["1:6 behind ⏱22s", "2:down"]);
        let p4 = &snap.partitions[4];
        let notes: Vec<String> = p4.replica_views.iter().filter_map(|r| follower_note(r, true)).collect();
        assert_eq!(notes, ["2: 300 behind, down", "0: 29 behind, out of ISR"]);
    }

    #[test]
    fn a_follower_one_fetch_behind_shows_no_countdown() {
        let snap = fixture::snapshot();
        let mut r = snap.partitions[0].replica_views[1].clone();
        r.lag = Some(1);
        r.isr_expiry_in = Some(29_600);
        r.caught_up_ago = Some(400);
        assert_eq!(follower_note(&r, true).as_deref(), Some("1: 1 behind"));
        r.caught_up_ago = Some(TIMER_AFTER_MS);
        assert_eq!(follower_note(&r, true).as_deref(), Some("1: 1 behind"));
        r.caught_up_ago = Some(14_000);
        r.isr_expiry_in = Some(16_000);
        assert_eq!(follower_note(&r, true).as_deref(), Some("1: 1 behind, out in 16s"));
        r.isr_expiry_in = None;
        assert_eq!(follower_note(&r, true).as_deref(), Some("1: 1 behind"), "no timer unless set");
        r.lag = Some(0);
        assert_eq!(follower_note(&r, true), None);
    }
}
