//! The partition table: leader, epoch, replicas, ISR, HW, each replica's LEO, follower lag
//! with the ISR timer, and health. It shows the rows the model's filter keeps
//! ([`crate::ui::partition_filter`]), worked out when the snapshot or the filter changes;
//! rows are built only for the visible slice. The selected row is marked with `▸` and
//! highlighted, and the slice scrolls to keep it visible. On a narrow terminal columns give
//! way in the order of `PRIORITY` (`KEEP_REPLICAS` while a replica is down or out of its ISR;
//! `ELR_FIRST` before either while a partition has eligible leader replicas)
//! rather than being cut: state words take their short form,
//! then columns go; only lag notes end with `…`, between whole notes (a cell is cut, between
//! values, only when even the barest set is too wide). While a filter narrows the table or internal topics are hidden, a
//! title line says so: `Partitions · unhealthy · 12 of 5 000 · 50 internal hidden (i shows)`.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Row, Table};

use super::app::Model;
use super::lag::{self, Form};
use super::partition_filter::Shown;
use super::text;
use super::theme::{Theme, glyph};
use crate::cluster::snapshot::{PartitionHealth, PartitionView, Snapshot, Unreachable};
use crate::sim::events::group;
use crate::sim::join_ids;

/// What fills a column's cells.
#[derive(Clone, Copy)]
enum Cell {
    /// Text as wide as it needs.
    Fixed(fn(&PartitionView, Theme) -> Line<'static>),
    /// Follower lag and ISR timers: the width left over, in the richest form that fits.
    Lag,
}

/// A column: header text and how to fill a cell.
struct Column {
    title: &'static str,
    cell: Cell,
}

const fn fixed(title: &'static str, cell: fn(&PartitionView, Theme) -> Line<'static>) -> Column {
    Column { title, cell: Cell::Fixed(cell) }
}

const LAG: Column = Column { title: "Lag / ISR timer", cell: Cell::Lag };

/// The wide set with short titles, for mid-size terminals.
const COMPACT: &[Column] = &[
    fixed("Ldr", leader),
    fixed("Ep", epoch),
    fixed("Replicas", replicas),
    fixed("ISR", isr),
    fixed("HW", hw),
    fixed("LEO by replica", leos),
    LAG,
    fixed("State", state),
];

/// The compact set with the short state words: the first thing to give way at 80 columns
/// is the length of the state, never its meaning.
const COMPACT_SHORT: &[Column] = &[
    fixed("Ldr", leader),
    fixed("Ep", epoch),
    fixed("Replicas", replicas),
    fixed("ISR", isr),
    fixed("HW", hw),
    fixed("LEO by replica", leos),
    LAG,
    fixed("State", state_short),
];

/// Without the replica list: the LEO column names every replica in replica order, so only a
/// reassignment's `+`/`-` marks are lost (the detail pane and the why panel keep them).
const NARROW: &[Column] = &[
    fixed("Ldr", leader),
    fixed("Ep", epoch),
    fixed("ISR", isr),
    fixed("HW", hw),
    fixed("LEO by replica", leos),
    LAG,
    fixed("State", state_short),
];

/// The compact set without the leader epoch, keeping the replica list (see
/// [`KEEP_REPLICAS`]).
const REPLICAS_NO_EPOCH: &[Column] = &[
    fixed("Ldr", leader),
    fixed("Replicas", replicas),
    fixed("ISR", isr),
    fixed("HW", hw),
    fixed("LEO by replica", leos),
    LAG,
    fixed("State", state_short),
];

/// The replica list beside the ISR without the lag notes (the logs pane keeps the selected
/// partition's, per replica).
const REPLICAS_NO_LAG: &[Column] = &[
    fixed("Ldr", leader),
    fixed("Replicas", replicas),
    fixed("ISR", isr),
    fixed("HW", hw),
    fixed("LEO by replica", leos),
    fixed("State", state_short),
];

/// Without the leader epoch too (the logs pane's title keeps the selected partition's).
const BARE: &[Column] = &[
    fixed("Ldr", leader),
    fixed("ISR", isr),
    fixed("HW", hw),
    fixed("LEO by replica", leos),
    LAG,
    fixed("State", state_short),
];

/// Without the lag notes (the logs pane keeps the selected partition's, per replica).
const BAREST: &[Column] = &[
    fixed("Ldr", leader),
    fixed("ISR", isr),
    fixed("HW", hw),
    fixed("LEO by replica", leos),
    fixed("State", state_short),
];

/// [`WIDE`] with the ELR column beside the ISR (see [`elr_first`]).
const WIDE_ELR: &[Column] = &[
    fixed("Leader", leader),
    fixed("Epoch", epoch),
    fixed("Replicas", replicas),
    fixed("ISR", isr),
    fixed("ELR", elr),
    fixed("HW", hw),
    fixed("LEO by replica", leos),
    LAG,
    fixed("State", state_plain),
];

/// [`COMPACT`] with the ELR column beside the ISR (see [`elr_first`]).
const COMPACT_ELR: &[Column] = &[
    fixed("Ldr", leader),
    fixed("Ep", epoch),
    fixed("Replicas", replicas),
    fixed("ISR", isr),
    fixed("ELR", elr),
    fixed("HW", hw),
    fixed("LEO by replica", leos),
    LAG,
    fixed("State", state_plain),
];

const WIDE: &[Column] = &[
    fixed("Leader", leader),
    fixed("Epoch", epoch),
    fixed("Replicas", replicas),
    fixed("ISR", isr),
    fixed("HW", hw),
    fixed("LEO by replica", leos),
    LAG,
    fixed("State", state),
];

/// Narrowest the "Lag / ISR timer" column may get while richer columns are kept.
const MIN_FILL: usize = 16;

/// Narrowest the lag column may get at all: one note (`2:down`, `1:⏱29s`) and its `…`.
const MIN_LAG: usize = 8;

/// The priority order at small widths: the first column set whose columns all fit at their
/// full width, with at least this much for the lag column, is drawn. What gives way, in turn:
/// the long state words (the short ones keep the meaning), the replica list, the lag
/// column's room, the leader epoch, the lag notes. Numbers, ids and state words are never
/// cut; only the lag notes end with `…` where a whole note does not fit.
const PRIORITY: &[(&[Column], usize)] = &[
    (WIDE, MIN_FILL),
    (COMPACT, MIN_FILL),
    (COMPACT_SHORT, MIN_FILL),
    (NARROW, MIN_FILL),
    (NARROW, MIN_LAG),
    (BARE, MIN_LAG),
    (BAREST, 0),
];

/// The priority order while a shown partition lists a replica that is down or out of its
/// ISR: the replica list beside the ISR is then the point (the seed's failover: the ISR drops
/// broker 2, the replica list keeps it), so everything else gives way first: the long state
/// words, the lag column's room, the leader epoch, the lag notes; only then the replica list,
/// as in [`PRIORITY`].
const KEEP_REPLICAS: &[(&[Column], usize)] = &[
    (WIDE, MIN_FILL),
    (COMPACT, MIN_FILL),
    (COMPACT_SHORT, MIN_FILL),
    (COMPACT_SHORT, MIN_LAG),
    (REPLICAS_NO_EPOCH, MIN_LAG),
    (REPLICAS_NO_LAG, 0),
    (NARROW, MIN_LAG),
    (BARE, MIN_LAG),
    (BAREST, 0),
];

/// While a shown partition has eligible leader replicas or a last known one (KIP-966), the sets
/// with an `ELR` column come first: `1,2` and `last 0` (LastKnownELR). Every other set
/// says the ELR in its State cell instead (`OFFLINE elr 1`), so a narrow table keeps who may
/// still be elected cleanly; the detail pane says both lists in words.
const ELR_FIRST: &[(&[Column], usize)] = &[(WIDE_ELR, MIN_FILL), (COMPACT_ELR, MIN_FILL)];

/// Whether `p` has eligible leader replicas or a last known one to show.
fn has_elr(p: &PartitionView) -> bool {
    !p.elr.is_empty() || !p.last_known_elr.is_empty()
}

/// The priority order for `slice`: [`ELR_FIRST`] while a shown partition has an ELR or
/// LastKnownELR, then [`KEEP_REPLICAS`] while one lists a replica down or out of its ISR,
/// else [`PRIORITY`].
fn elr_first(slice: &[(usize, &PartitionView)]) -> Vec<(&'static [Column], usize)> {
    let rest = if slice.iter().any(|(_, p)| replica_missing(p)) { KEEP_REPLICAS } else { PRIORITY };
    let elr = if slice.iter().any(|(_, p)| has_elr(p)) { ELR_FIRST } else { &[] };
    elr.iter().chain(rest).copied().collect()
}

/// Whether `p` lists a replica that is down or not in its ISR.
fn replica_missing(p: &PartitionView) -> bool {
    p.replicas.iter().any(|r| !p.isr.contains(r)) || p.replica_views.iter().any(|r| !r.online)
}

/// The lag column's title in the first form that fits its width.
const LAG_TITLES: [&str; 3] = ["Lag / ISR timer", "Lag/ISR", "Lag"];

/// The lag column gets no more than its widest cell (and at least this much, so it does not
/// jump about as followers fall behind and catch up): the State column stays near the data
/// on wide screens and the spare columns go to the right of the table.
const LAG_SHOWN: usize = 24;

/// Rows the table wants: its title line (when it has one), the header row and every shown
/// partition.
pub fn height_needed(model: &Model, snap: &Snapshot) -> u16 {
    let shown = model.shown(snap);
    let rows = u16::try_from(shown.rows.len()).unwrap_or(u16::MAX).max(1);
    rows.saturating_add(1).saturating_add(title_rows(model, snap))
}

/// 1 when the table has a title line (a filter narrows it or partitions are hidden), else 0.
pub fn title_rows(model: &Model, snap: &Snapshot) -> u16 {
    let shown = model.shown(snap);
    u16::from(model.table_filter.narrows() || !shown.is_all())
}

/// The title line's text: what narrows the table, `N of M`, the rows out of view (`above`
/// and `below` the window, so a filtered table never hides rows silently), and the hidden
/// internal partitions.
fn title(model: &Model, shown: &Shown, above: usize, below: usize) -> String {
    let mut parts = vec!["Partitions".to_string()];
    if model.table_filter.narrows() {
        parts.push(model.table_filter.describe());
    }
    parts.push(format!("{} of {}", group(shown.rows.len() as u64), group(shown.total as u64)));
    match (above, below) {
        (0, 0) => {}
        (0, b) => parts.push(format!("{b} more below")),
        (a, 0) => parts.push(format!("{a} more above")),
        (a, b) => parts.push(format!("{a} above, {b} below")),
    }
    if shown.internal_hidden > 0 {
        parts.push(format!("{} internal hidden (i shows)", group(shown.internal_hidden as u64)));
    }
    format!(" {} ", parts.join(" · "))
}

/// The shown rows above and below the window the table body has in `area` (its header row
/// included).
fn out_of_view(model: &Model, shown: &Shown, area: Rect) -> (usize, usize) {
    let rows = usize::from(area.height.saturating_sub(1)).max(1);
    let offset = model.visible_offset(rows, shown);
    let end = (offset + rows).min(shown.rows.len());
    (offset.min(end), shown.rows.len() - end)
}

/// Draws the table in `area` (title and header rows included). `wide` allows the long lag
/// notes.
pub fn render(frame: &mut Frame, area: Rect, model: &Model, snap: &Snapshot, wide: bool) {
    let theme = model.theme;
    if snap.partitions.is_empty() {
        let hint = " no topics yet: create one with `:create-topic T P RF`";
        frame.render_widget(Paragraph::new(Line::styled(hint, theme.muted())), area);
        return;
    }
    let shown = model.shown(snap);
    let titled = title_rows(model, snap) > 0;
    let area = if titled {
        let block = Block::new().borders(Borders::TOP);
        let inner = block.inner(area);
        let (above, below) = out_of_view(model, &shown, inner);
        let width = usize::from(area.width).saturating_sub(2);
        let text = text::truncate(&title(model, &shown, above, below), width);
        frame.render_widget(block.title(Span::styled(text, theme.title())), area);
        inner
    } else {
        area
    };
    if shown.rows.is_empty() {
        // Short enough for 80 columns.
        let hint = " no partition matches · F edits the filter · U, B and i toggle theirs";
        let hint = text::truncate(hint, usize::from(area.width));
        frame.render_widget(Paragraph::new(Line::styled(hint, theme.muted())), area);
        return;
    }
    let rows = usize::from(area.height.saturating_sub(1)).max(1);
    let offset = model.visible_offset(rows, &shown);
    let selected = model.selected_partition.min(snap.partitions.len() - 1);
    let end = (offset + rows).min(shown.rows.len());
    let slice: Vec<(usize, &PartitionView)> =
        shown.rows[offset.min(end)..end].iter().map(|&i| (i, &*snap.partitions[i])).collect();
    let width = usize::from(area.width);
    let sized = fitting(&slice, selected, theme, width);
    let forms: &[Form] =
        if wide { &[Form::Long, Form::Short, Form::Tiny] } else { &[Form::Short, Form::Tiny] };
    // The rows out of view are counted in the lag column's title, or the LEO column's
    // when the lag column gave way.
    let note_at = sized.lag_index().or_else(|| sized.index_of("LEO by replica"));
    let (widths, mut body, mut titles) = sized.finish(&slice, theme, forms);
    if let Some(at) = note_at.filter(|_| !titled) {
        note_rows_out_of_view(&mut titles[at], widths[at], offset, shown.rows.len() - end);
    }
    super::highlight::mark_rows(&mut body, &titles, model.selected_broker);
    let table_rows = body.into_iter().enumerate().map(|(n, cells)| {
        let row = Row::new(cells);
        if slice[n].0 == selected { row.style(theme.selected()) } else { row }
    });
    let constraints = widths.iter().map(|w| Constraint::Length(u16::try_from(*w).unwrap_or(u16::MAX)));
    let table =
        Table::new(table_rows, constraints).header(Row::new(titles).style(theme.title())).column_spacing(1);
    frame.render_widget(table, area);
}

/// Without a title line, the table says in its lag column's title how many rows lie above
/// and below the window (`Lag / ISR timer · ↓1 more row`), so rows cut by a small terminal are
/// never silently missing; in a column too narrow for both, the note alone, or its short
/// form (`2↑ 3↓`), so no count is ever cut.
fn note_rows_out_of_view(title: &mut Line<'static>, width: usize, above: usize, below: usize) {
    let rows = |n: usize| text::noun(n as u64, "row", "rows");
    let (note, short) = match (above, below) {
        (0, 0) => return,
        // The arrow first and `rows` named, so the count never reads as the title of the
        // column to its left (`LEO by replica 4982 more below`).
        (0, b) => (format!("↓{b} more {}", rows(b)), format!("↓{b}")),
        (a, 0) => (format!("↑{a} more {}", rows(a)), format!("↑{a}")),
        (a, b) => (format!("↑{a} ↓{b} more rows"), format!("↑{a} ↓{b}")),
    };
    let own: String = title.spans.iter().map(|s| s.content.as_ref()).collect();
    let full = format!("{own} · {note}");
    // A narrow column keeps the note rather than its own title: the missing rows matter more.
    let text = [full, note].into_iter().find(|t| text::width(t) <= width).unwrap_or(short);
    *title = Line::raw(text::truncate(&text, width));
}

/// The first column set of [`PRIORITY`] that fits `width` at full cell widths; when even
/// the barest does not (a very long topic name, ten replicas), [`BARE`] squeezed, its cells
/// cut between values with `…`. While a shown partition lists a replica that is down or out
/// of its ISR, the order is [`KEEP_REPLICAS`]; either comes after [`ELR_FIRST`] while one has
/// an ELR (see [`elr_first`]).
fn fitting(slice: &[(usize, &PartitionView)], selected: usize, theme: Theme, width: usize) -> Sized {
    let order = elr_first(slice);
    let last = order.len() - 1;
    for (n, &(columns, min_lag)) in order.iter().enumerate() {
        let sized = Sized::measure(columns, slice, selected, theme, width);
        if sized.fits(min_lag) {
            return sized;
        }
        if n == last {
            // The last resort keeps the lag column, as narrow as a note and its `…`.
            return Sized::measure(BARE, slice, selected, theme, width).squeezed();
        }
    }
    unreachable!("the priority orders are not empty")
}

/// A column set measured against the visible rows: each column's width (the lag column's
/// is what is left over) and the cells, the lag ones still empty.
struct Sized {
    columns: &'static [Column],
    widths: Vec<usize>,
    body: Vec<Vec<Line<'static>>>,
    fill: usize,
    total: usize,
}

impl Sized {
    fn measure(
        columns: &'static [Column],
        slice: &[(usize, &PartitionView)],
        selected: usize,
        theme: Theme,
        total: usize,
    ) -> Sized {
        let body: Vec<Vec<Line<'static>>> =
            slice.iter().map(|(i, p)| row_cells(columns, p, *i == selected, theme)).collect();
        let widths: Vec<usize> = titles(columns)
            .enumerate()
            .map(|(n, title)| {
                body.iter().map(|cells| cells[n].width()).max().unwrap_or(0).max(text::width(title))
            })
            .collect();
        let mut sized = Sized { columns, widths, body, fill: 0, total };
        sized.fill = sized.left_over();
        sized
    }

    /// Whether every column fits at its full width with `min_lag` columns left for the lag
    /// column (a set without one needs only to fit).
    fn fits(&self, min_lag: usize) -> bool {
        let lag_at = self.lag_index();
        let others: usize =
            self.widths.iter().enumerate().filter(|(c, _)| Some(*c) != lag_at).map(|(_, w)| w).sum();
        let need = others + self.columns.len() + if lag_at.is_some() { min_lag } else { 0 };
        need <= self.total
    }

    /// Width left for the lag column: the total minus the other columns and the spacing.
    fn left_over(&self) -> usize {
        let lag_at = self.lag_index();
        let others = self.widths.iter().enumerate().filter(|(c, _)| Some(*c) != lag_at).map(|(_, w)| w);
        self.total.saturating_sub(others.sum::<usize>() + self.columns.len())
    }

    /// Narrows the widest columns (never below their title) until the set fits with
    /// [`MIN_LAG`] for its lag column, or nothing more can give: the last resort, when even
    /// the barest set is too wide at full cell widths.
    fn squeezed(mut self) -> Sized {
        let lag_at = self.lag_index();
        let minimum: Vec<usize> = titles(self.columns).map(text::width).collect();
        while !self.fits(MIN_LAG) {
            let widest = (0..self.widths.len())
                .filter(|&c| Some(c) != lag_at && self.widths[c] > minimum[c])
                .max_by_key(|&c| self.widths[c] - minimum[c]);
            let Some(c) = widest else { break };
            self.widths[c] -= 1;
        }
        self.fill = self.left_over();
        self
    }

    /// Position of the column titled `title` (the partition column is 0).
    fn index_of(&self, title: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.title == title).map(|i| i + 1)
    }

    /// Position of the lag column (the partition column is 0).
    fn lag_index(&self) -> Option<usize> {
        self.columns.iter().position(|c| matches!(c.cell, Cell::Lag)).map(|i| i + 1)
    }

    /// Fills the lag cells in the richest of `forms` that fits, cuts every cell to its
    /// column with `…`, and returns widths, rows and header titles.
    fn finish(
        mut self,
        slice: &[(usize, &PartitionView)],
        theme: Theme,
        forms: &[Form],
    ) -> (Vec<usize>, Vec<Vec<Line<'static>>>, Vec<Line<'static>>) {
        if let Some(at) = self.lag_index() {
            for (cells, (_, p)) in self.body.iter_mut().zip(slice) {
                cells[at] = lag_cell(p, theme, forms, self.fill);
            }
            let widest = self.body.iter().map(|cells| cells[at].width()).max().unwrap_or(0);
            self.widths[at] = widest.max(LAG_SHOWN).min(self.fill);
        }
        let fit = |(line, w): (Line<'static>, &usize)| Line::from(text::truncate_spans(line.spans, *w));
        let whole = |(line, w): (Line<'static>, &usize)| cut_between_values(line, *w);
        let lag_at = self.lag_index();
        let body = self
            .body
            .into_iter()
            .map(|cells| cells.into_iter().zip(&self.widths).map(whole).collect())
            .collect();
        let titles = titles(self.columns)
            .enumerate()
            .map(|(c, title)| if Some(c) == lag_at { lag_title(self.widths[c]) } else { title })
            .map(Line::raw)
            .zip(&self.widths)
            .map(fit)
            .collect();
        (self.widths, body, titles)
    }
}

/// `line` cut to `width` with `…`, never inside a number or a word: the cut backs off to
/// the last space or comma (`0,1,2,4,…`, `0:1371 1:1371 …`). Only the last-resort squeeze
/// cuts a data cell; the lag notes arrive already cut between whole notes.
fn cut_between_values(line: Line<'static>, width: usize) -> Line<'static> {
    if line.width() <= width {
        return line;
    }
    let chars: Vec<char> = line.spans.iter().flat_map(|s| s.content.chars()).collect();
    let value = |c: &char| *c != ' ' && *c != ',';
    // Keep `k - 1` characters and the `…`: acceptable where the kept text does not end in,
    // or the cut text does not start with, part of a value.
    let keep =
        (1..=width).rev().find(|&k| k == 1 || !value(&chars[k - 2]) || !value(&chars[k - 1])).unwrap_or(1);
    Line::from(text::truncate_spans(line.spans, keep))
}

/// The lag column's title in the first of [`LAG_TITLES`] that fits `width`.
fn lag_title(width: usize) -> &'static str {
    LAG_TITLES.into_iter().find(|t| text::width(t) <= width).unwrap_or(LAG_TITLES[2])
}

/// The header titles; the first has room for the selection marker.
fn titles(columns: &[Column]) -> impl Iterator<Item = &'static str> + '_ {
    std::iter::once(" Partition").chain(columns.iter().map(|c| c.title))
}

/// One row's cells (the lag cell left empty): selection marker and partition, then the columns.
fn row_cells(columns: &[Column], p: &PartitionView, selected: bool, theme: Theme) -> Vec<Line<'static>> {
    let marker = if selected { glyph::SELECTED } else { " " };
    let mut cells = vec![Line::from(vec![Span::raw(marker), Span::styled(p.tp.to_string(), theme.leader())])];
    cells.extend(columns.iter().map(|c| match c.cell {
        Cell::Fixed(f) => f(p, theme),
        Cell::Lag => Line::default(),
    }));
    cells
}

/// The partition's follower notes in the first of `forms` that fits `width`; when none
/// does, as many whole notes of the last form as fit, then `…`: a note is never cut inside
/// its count or timer.
fn lag_cell(p: &PartitionView, theme: Theme, forms: &[Form], width: usize) -> Line<'static> {
    let mut line = Line::default();
    for form in forms {
        line = lag::partition_notes(p, theme, *form);
        if line.width() <= width {
            return line;
        }
    }
    whole_notes(line, width)
}

/// The leading whole notes of `line` (notes are the spans between the separator spaces)
/// that fit `width` with a closing `…`.
fn whole_notes(line: Line<'static>, width: usize) -> Line<'static> {
    let mut kept: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    for span in line.spans.into_iter().filter(|s| !s.content.trim().is_empty()) {
        let gap = usize::from(!kept.is_empty());
        if used + gap + span.width() + 2 > width {
            break;
        }
        if gap == 1 {
            kept.push(Span::raw(" "));
        }
        used += gap + span.width();
        kept.push(span);
    }
    kept.push(Span::raw(if kept.is_empty() { "…" } else { " …" }));
    Line::from(kept)
}

fn leader(p: &PartitionView, theme: Theme) -> Line<'static> {
    match p.leader {
        Some(b) => Line::raw(b.to_string()),
        None => Line::from(Span::styled("none", theme.bad())),
    }
}

fn epoch(p: &PartitionView, _theme: Theme) -> Line<'static> {
    Line::raw(p.leader_epoch.to_string())
}

/// The replica list; while a reassignment runs, the replicas it adds (`+`) and removes (`-`).
fn replicas(p: &PartitionView, theme: Theme) -> Line<'static> {
    let mut spans = vec![Span::raw(join_ids(&p.replicas))];
    if !p.adding.is_empty() {
        spans.push(Span::styled(format!(" +{}", join_ids(&p.adding)), theme.warn()));
    }
    if !p.removing.is_empty() {
        spans.push(Span::styled(format!(" -{}", join_ids(&p.removing)), theme.warn()));
    }
    Line::from(spans)
}

fn isr(p: &PartitionView, _theme: Theme) -> Line<'static> {
    Line::raw(join_ids(&p.isr))
}

/// The ELR column: the eligible leader replicas (`1,2`) and the LastKnownELR (`last 0`), as
/// `kafka-topics.sh --describe` lists them in `Elr:` and `LastKnownElr:`.
fn elr(p: &PartitionView, theme: Theme) -> Line<'static> {
    let mut spans = Vec::new();
    if !p.elr.is_empty() {
        spans.push(Span::styled(join_ids(&p.elr), theme.warn()));
    }
    if !p.last_known_elr.is_empty() {
        let gap = if spans.is_empty() { "" } else { " " };
        spans.push(Span::styled(format!("{gap}last {}", join_ids(&p.last_known_elr)), theme.muted()));
    }
    Line::from(spans)
}

/// ` elr 1,2` after the state word where the table has no ELR column: the replicas a clean
/// election may still choose once the ISR is empty (KIP-966).
fn elr_marker(p: &PartitionView, theme: Theme) -> Option<Span<'static>> {
    (!p.elr.is_empty()).then(|| Span::styled(format!(" elr {}", join_ids(&p.elr)), theme.warn()))
}

fn hw(p: &PartitionView, _theme: Theme) -> Line<'static> {
    Line::raw(p.hw.to_string())
}

/// `0:1042 1:1042 2:980✖`: a replica on a dead broker is marked `✖`, one outside the ISR is
/// dimmed (the ISR column says it in text).
fn leos(p: &PartitionView, theme: Theme) -> Line<'static> {
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

/// The state in a few words: `ok`, `reassigning`, `URP`, `HW frozen: waits 2`,
/// `HW frozen: <minISR`, `leader down, fenced in 7s` (or `frozen`, `cut off`), `OFFLINE`.
pub fn health_word(h: PartitionHealth) -> String {
    match h {
        PartitionHealth::Healthy => "ok".into(),
        PartitionHealth::Reassigning => "reassigning".into(),
        PartitionHealth::UnderReplicated => "URP".into(),
        PartitionHealth::HwWaiting { broker } => format!("HW frozen: waits {broker}"),
        PartitionHealth::UnderMinIsr => "HW frozen: <minISR".into(),
        PartitionHealth::LeaderUnreachable { fenced_in, why } => {
            format!("leader {}, fenced in {}", unreachable_word(why), text::countdown(fenced_in))
        }
        PartitionHealth::Offline => "OFFLINE".into(),
    }
}

/// Why the controller does not hear from a broker, in a word or two.
pub fn unreachable_word(why: Unreachable) -> &'static str {
    match why {
        Unreachable::Down => "down",
        Unreachable::Frozen => "frozen",
        Unreachable::CutOff => "cut off",
    }
}

/// The state word in its colour, for a set with an ELR column.
fn state_plain(p: &PartitionView, theme: Theme) -> Line<'static> {
    Line::from(Span::styled(health_word(p.health), health_style(p.health, theme)))
}

/// The state word in its colour, then the ELR when there is one ([`elr_marker`]).
fn state(p: &PartitionView, theme: Theme) -> Line<'static> {
    let word = Span::styled(health_word(p.health), health_style(p.health, theme));
    Line::from_iter(std::iter::once(word).chain(elr_marker(p, theme)))
}

/// The state in its short form (see [`short_health_word`]), for narrow terminals, then the
/// ELR when there is one ([`elr_marker`]).
fn state_short(p: &PartitionView, theme: Theme) -> Line<'static> {
    let word = Span::styled(short_health_word(p.health), health_style(p.health, theme));
    Line::from_iter(std::iter::once(word).chain(elr_marker(p, theme)))
}

/// The state in at most 12 columns (for a countdown under 100 s and broker ids under 100),
/// each still saying the worst thing true and why: `fence in 7s` for an unreachable leader
/// (the broker strip says down, frozen or cut off), `HW waits 2` and `HW <minISR` for a
/// frozen HW (the long form without `frozen: `), `reassign`; `ok`, `URP` and `OFFLINE` as
/// in [`health_word`].
pub fn short_health_word(h: PartitionHealth) -> String {
    match h {
        PartitionHealth::LeaderUnreachable { fenced_in, .. } => {
            format!("fence in {}", text::countdown(fenced_in))
        }
        PartitionHealth::HwWaiting { broker } => format!("HW waits {broker}"),
        PartitionHealth::UnderMinIsr => "HW <minISR".into(),
        PartitionHealth::Reassigning => "reassign".into(),
        h => health_word(h),
    }
}

/// How a state looks: the worse, the louder.
fn health_style(h: PartitionHealth, theme: Theme) -> ratatui::style::Style {
    match h {
        PartitionHealth::Healthy => theme.good(),
        PartitionHealth::Reassigning | PartitionHealth::UnderReplicated => theme.warn(),
        PartitionHealth::HwWaiting { .. } | PartitionHealth::UnderMinIsr => theme.bad(),
        PartitionHealth::LeaderUnreachable { .. } | PartitionHealth::Offline => theme.alarm(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn noted(width: usize, above: usize, below: usize) -> String {
        let mut title = Line::raw(LAG.title);
        note_rows_out_of_view(&mut title, width, above, below);
        title.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn rows_out_of_view_are_counted_in_the_lag_title() {
        assert_eq!(noted(40, 0, 0), "Lag / ISR timer");
        assert_eq!(noted(40, 0, 1), "Lag / ISR timer · ↓1 more row");
        assert_eq!(noted(40, 2, 0), "Lag / ISR timer · ↑2 more rows");
        assert_eq!(noted(16, 0, 3), "↓3 more rows", "a narrow column keeps the note");
        assert_eq!(noted(17, 2, 3), "↑2 ↓3 more rows");
        assert_eq!(noted(6, 0, 4982), "↓4982", "the short form keeps the count whole");
    }

    fn words(line: &Line<'static>) -> String {
        line.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn every_short_state_fits_twelve_columns_and_keeps_its_reason() {
        use crate::cluster::snapshot::Unreachable;
        let worst = [
            PartitionHealth::Healthy,
            PartitionHealth::Reassigning,
            PartitionHealth::UnderReplicated,
            PartitionHealth::HwWaiting { broker: 49 },
            PartitionHealth::UnderMinIsr,
            PartitionHealth::LeaderUnreachable { fenced_in: 99_000, why: Unreachable::CutOff },
            PartitionHealth::Offline,
        ];
        for h in worst {
            let short = short_health_word(h);
            assert!(text::width(&short) <= 12, "{short}");
        }
        assert_eq!(short_health_word(PartitionHealth::HwWaiting { broker: 2 }), "HW waits 2");
        assert_eq!(short_health_word(PartitionHealth::UnderMinIsr), "HW <minISR");
        let fencing = PartitionHealth::LeaderUnreachable { fenced_in: 6_200, why: Unreachable::Down };
        assert_eq!(short_health_word(fencing), "fence in 7s");
    }

    #[test]
    fn a_cut_cell_ends_between_values() {
        let leos = Line::from(vec![
            Span::raw("0:1371"),
            Span::raw(" "),
            Span::raw("1:1371"),
            Span::raw(" "),
            Span::raw("2:1371"),
        ]);
        assert_eq!(words(&cut_between_values(leos.clone(), 30)), "0:1371 1:1371 2:1371");
        assert_eq!(words(&cut_between_values(leos.clone(), 17)), "0:1371 1:1371 …");
        assert_eq!(words(&cut_between_values(leos, 9)), "0:1371 …");
        assert_eq!(words(&cut_between_values(Line::raw("0,1,2,14,5"), 8)), "0,1,2,…", "never `0,1,2,1…`");
    }

    #[test]
    fn lag_notes_give_way_whole() {
        let notes = Line::from(vec![Span::raw("2:down"), Span::raw(" "), Span::raw("1:12 behind")]);
        assert_eq!(words(&whole_notes(notes.clone(), 17)), "2:down …");
        assert_eq!(words(&whole_notes(notes.clone(), 8)), "2:down …");
        assert_eq!(words(&whole_notes(notes, 7)), "…");
    }

    #[test]
    fn the_out_of_view_note_keeps_its_counts_in_a_narrow_column() {
        assert_eq!(noted(8, 0, 3), "↓3");
        assert_eq!(noted(8, 12, 30), "↑12 ↓30");
        assert_eq!(lag_title(8), "Lag/ISR");
        assert_eq!(lag_title(16), "Lag / ISR timer");
    }

    /// At 80 columns, with five-digit offsets, a crashed leader's countdown and both frozen-HW
    /// causes, every State cell reads its whole short word and every LEO cell lists every
    /// replica with its whole offset.
    #[test]
    fn at_80_columns_no_state_word_or_offset_is_cut() {
        use crate::cluster::snapshot::Unreachable;
        use crate::ui::app::{Model, Msg, update};
        use ratatui::Terminal;
        use ratatui::backend::TestBackend;
        use std::sync::Arc;
        let mut snap = crate::ui::fixture::snapshot();
        let states = [
            PartitionHealth::LeaderUnreachable { fenced_in: 6_200, why: Unreachable::Down },
            PartitionHealth::HwWaiting { broker: 1 },
            PartitionHealth::UnderMinIsr,
            PartitionHealth::Reassigning,
            PartitionHealth::Offline,
            PartitionHealth::UnderReplicated,
        ];
        for (i, health) in states.into_iter().enumerate() {
            let mut p = (*snap.partitions[i]).clone();
            p.health = health;
            p.hw = 98_000 + i as i64;
            for r in &mut p.replica_views {
                r.leo = 99_000 + i as i64;
            }
            snap.partitions[i] = Arc::new(p);
        }
        let mut model = Model::new(1.0, Theme::new(false), &snap);
        update(&mut model, Msg::Resize(80, 24), &snap);
        let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
        terminal.draw(|f| crate::ui::view::view(&model, &snap, f)).unwrap();
        let buf = terminal.backend().buffer();
        let rows: Vec<String> =
            (0..24).map(|y| (0..80).map(|x| buf[(x, y)].symbol().to_string()).collect()).collect();
        for (i, p) in snap.partitions.iter().enumerate() {
            let name = p.tp.to_string();
            let row = rows.iter().find(|r| r.trim_start_matches(['▸', ' ']).starts_with(&format!("{name} ")));
            let row = row.unwrap_or_else(|| panic!("no row for {name}:\n{}", rows.join("\n")));
            let short = short_health_word(p.health);
            assert!(row.trim_end().ends_with(&short), "{name} `{short}`: {row}");
            for r in &p.replica_views {
                assert!(row.contains(&format!("{}:{}", r.broker, r.leo)), "{name} {}: {row}", r.broker);
            }
            assert!(row.contains(&format!(" {} ", p.hw)), "{i}: {row}");
            assert!(!row.contains('…') || row.contains(" …"), "a note cut between notes only: {row}");
        }
    }

    /// The table's header row and rows at 80×24 for the fixture with every offset grown to
    /// `digits` digits.
    fn table_at_80(snap: &mut Snapshot, digits: u32) -> Vec<String> {
        use crate::ui::app::{Model, Msg, update};
        use ratatui::Terminal;
        use ratatui::backend::TestBackend;
        use std::sync::Arc;
        let big = 10i64.pow(digits - 1);
        for p in &mut snap.partitions {
            let mut v = (**p).clone();
            v.hw += big;
            for r in &mut v.replica_views {
                r.leo += big;
            }
            *p = Arc::new(v);
        }
        let mut model = Model::new(1.0, Theme::new(false), snap);
        update(&mut model, Msg::Resize(80, 24), snap);
        let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
        terminal.draw(|f| crate::ui::view::view(&model, snap, f)).unwrap();
        let buf = terminal.backend().buffer();
        (0..24).map(|y| (0..80).map(|x| buf[(x, y)].symbol().to_string()).collect()).collect()
    }

    /// At 80×24, while a listed replica is down or out of the ISR, the replica list stays
    /// beside the ISR however wide the offsets grow: the leader epoch and the lag notes give
    /// way first. A healthy table may drop it for the lag notes.
    #[test]
    fn the_replica_list_stays_while_a_replica_is_down_or_out_of_the_isr() {
        let mut snap = crate::ui::fixture::snapshot();
        assert!(snap.partitions.iter().any(|p| replica_missing(p)), "the fixture has broker 2 down");
        for digits in [4, 5, 6, 7] {
            let rows = table_at_80(&mut snap.clone(), digits);
            let header = rows.iter().find(|r| r.starts_with(" Partition")).expect("the header row");
            assert!(header.contains("Replicas") && header.contains(" ISR "), "{digits} digits: {header}");
            let row = rows.iter().find(|r| r.contains("test_repli-0 ")).expect("a row");
            assert!(row.contains("1,2,0") || row.contains("0,1,2"), "{digits} digits: {row}");
        }
        let wide = table_at_80(&mut snap.clone(), 7);
        let header = wide.iter().find(|r| r.starts_with(" Partition")).unwrap();
        assert!(!header.contains(" Ep "), "the epoch gave way before the replicas: {header}");
        // All replicas up and in sync: the usual order, where the replica list goes before the
        // lag room.
        for p in &mut snap.partitions {
            let mut v = (**p).clone();
            v.isr = v.replicas.clone();
            for r in &mut v.replica_views {
                (r.online, r.in_isr) = (true, true);
            }
            *p = std::sync::Arc::new(v);
        }
        assert!(!snap.partitions.iter().any(|p| replica_missing(p)));
        let healthy = table_at_80(&mut snap, 7);
        let header = healthy.iter().find(|r| r.starts_with(" Partition")).unwrap();
        assert!(!header.contains("Replicas"), "{header}");
    }

    /// The screen at `w`×`h` for `snap`, one string per row.
    fn screen(snap: &Snapshot, w: u16, h: u16) -> Vec<String> {
        use crate::ui::app::{Model, Msg, update};
        use ratatui::Terminal;
        use ratatui::backend::TestBackend;
        let mut model = Model::new(1.0, Theme::new(false), snap);
        update(&mut model, Msg::Resize(w, h), snap);
        let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
        terminal.draw(|f| crate::ui::view::view(&model, snap, f)).unwrap();
        let buf = terminal.backend().buffer();
        (0..h).map(|y| (0..w).map(|x| buf[(x, y)].symbol().to_string()).collect()).collect()
    }

    /// After the last ISR member dies with ELR on, the partition is offline with an empty ISR,
    /// broker 1 eligible and the dead leader 0 its LastKnownELR: at 80 columns the State cell
    /// says `OFFLINE elr 1`; on a wide screen the ELR column says `1 last 0`; the detail pane
    /// says why broker 1 is eligible. A partition without an ELR shows neither.
    #[test]
    fn an_offline_partition_shows_its_eligible_replicas_at_every_width() {
        let mut snap = crate::ui::fixture::snapshot();
        let mut p = (*snap.partitions[0]).clone();
        (p.leader, p.isr, p.elr, p.last_known_elr) = (None, Vec::new(), vec![1], vec![0]);
        p.health = PartitionHealth::Offline;
        let name = p.tp.to_string();
        snap.partitions[0] = std::sync::Arc::new(p);
        let row = |rows: &[String]| {
            rows.iter().find(|r| r.trim_start_matches(['▸', ' ']).starts_with(&format!("{name} "))).cloned()
        };
        let narrow = screen(&snap, 80, 24);
        let at_80 = row(&narrow).unwrap_or_else(|| panic!("no row:\n{}", narrow.join("\n")));
        assert!(at_80.trim_end().ends_with("OFFLINE elr 1"), "{at_80}");
        let wide = screen(&snap, 160, 48);
        let header = wide.iter().find(|r| r.starts_with(" Partition")).expect("the header row");
        assert!(header.contains(" ELR "), "{header}");
        let at_160 = row(&wide).expect("the row at 160 columns");
        assert!(at_160.contains(" 1 last 0 "), "{at_160}");
        assert!(!at_160.contains("elr 1"), "the column says it, the state need not: {at_160}");
        assert!(wide.iter().any(|r| r.contains("ELR: 1, eligible leader replicas")), "{}", wide.join("\n"));
        assert!(wide.iter().any(|r| r.contains("LastKnownELR: 0")), "{}", wide.join("\n"));
        let others = wide.iter().filter(|r| r.contains("test_repli-") && !r.contains(&format!("{name} ")));
        assert!(others.clone().count() > 0);
        for r in others {
            assert!(!r.contains("elr") && !r.contains("last "), "{r}");
        }
    }
}
