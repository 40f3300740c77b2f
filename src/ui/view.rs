//! `view`: draws the whole screen from the model and the newest snapshot, and changes
//! nothing. [`plan`] decides which panes fit and where; the panes draw themselves.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

use super::app::{Ask, Mode, Model, View};
use super::narration;
use super::text;
use super::theme::Theme;
use super::{
    broker_view, brokers, charts, clients, config_view, detail, events, footer, header, help, palette,
    partitions, why,
};
use crate::cluster::snapshot::Snapshot;

mod lesson_plan;
pub use lesson_plan::Keep;

/// The smallest terminal the dashboard draws in (columns).
pub const MIN_WIDTH: u16 = 80;
/// The smallest terminal the dashboard draws in (rows).
pub const MIN_HEIGHT: u16 = 24;
/// From this width on, detail and clients sit side by side and the table shows every column.
pub const WIDE: u16 = 120;
/// The event log never gets fewer rows than this (title included).
const EVENTS_MIN: u16 = 4;
/// In the narrow layout the event log keeps one more row; the clients pane gives it up.
const EVENTS_MIN_NARROW: u16 = 5;
/// The partition table gives rows to the panes below down to this many (its header and three
/// partitions, the selected one kept in view).
const TABLE_MIN: u16 = 4;
/// From this width on, the why panel sits beside the event log instead of above it.
pub const WHY_BESIDE: u16 = 160;
/// The why panel shows only when the event log keeps at least this many rows (title
/// included) below or beside it: it never takes rows the smaller layouts need.
const EVENTS_WITH_WHY: u16 = 8;
/// From this size on (columns, rows) the overview has a row of charts ([`super::charts`]).
pub const CHARTS_SIZE: (u16, u16) = (160, 50);
/// Rows of the charts row.
const CHARTS_ROWS: u16 = 16;

/// Rows of the parts whose height follows their content.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Heights {
    /// The broker strip (1, or 2 when it wraps).
    pub strip: u16,
    /// The status line or the palette with its error (1 and up; taken from the event log).
    pub status: u16,
    /// The why panel, title included, at the width it would get (0: do not show it).
    pub why: u16,
    /// The partition table: its title line, header row and the rows the filter shows.
    pub table: u16,
    /// The rows the selected partition's notes take in full beyond the one note line
    /// [`detail::height_needed`] counts, at the width the shown view gives the logs pane (0
    /// in the narrow overview, where the notes keep their brief form).
    pub notes: u16,
    /// The view shown.
    pub view: View,
    /// Whether the timeline strip takes a row ([`super::tape`]).
    pub tape: bool,
    /// The lesson pane's rows, when a scenario is played.
    pub lesson: Option<narration::Rows>,
    /// What the lesson's focus keeps on screen.
    pub keep: Keep,
    /// The rows the event log fills, title included, when a lesson is played (the rows
    /// beyond go to the lesson pane rather than stay blank above it); 0 without a lesson.
    pub events: u16,
}

/// Where each pane goes. Panes that do not fit are `None`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Plan {
    /// One line: name, seed, time, speed, semantics, loss.
    pub header: Rect,
    /// Broker strip (one or two lines) and the settings line.
    pub brokers: Rect,
    /// Partition table, header row included.
    pub table: Rect,
    /// Logs of the selected partition.
    pub detail: Option<Rect>,
    /// Producers.
    pub clients: Option<Rect>,
    /// Charts over sim time: throughput, the selected partition, the producers.
    pub charts: Option<Rect>,
    /// Event log.
    pub events: Option<Rect>,
    /// The why panel of the selected partition (wide and tall enough terminals only).
    pub why: Option<Rect>,
    /// Status lines (or the palette line and its error), bottom-aligned above the footer.
    pub status: Rect,
    /// Key hints.
    pub footer: Rect,
    /// The terminal is wide: full column set, side-by-side panes.
    pub wide: bool,
    /// The broker or config view's own area.
    pub body: Option<Rect>,
    /// The one chart of the partition view (the selected partition) or the clients view (the
    /// producers).
    pub chart: Option<Rect>,
    /// The lesson pane: narration, checks, questions (at the bottom, above the status line).
    pub lesson: Option<Rect>,
    /// The timeline strip under the broker strip, when shown ([`super::tape`]).
    pub tape: Option<Rect>,
}

/// The screen's rows, top to bottom, in every view: header, broker strip (one or two rows
/// and its border), the timeline strip (when shown), the view's own area, status, footer.
fn rows(area: Rect, heights: Heights) -> [Rect; 6] {
    use Constraint::{Fill, Length};
    let strip = heights.strip.clamp(1, 2);
    Layout::vertical([
        Length(1),
        Length(strip + 1),
        Length(u16::from(heights.tape)),
        Fill(1),
        Length(1),
        Length(1),
    ])
    .areas(area)
}

/// Lays the screen out for `area` (at least [`MIN_WIDTH`]×[`MIN_HEIGHT`]). Status rows
/// beyond the first are taken from the event log, which keeps at least its title row.
pub fn plan(area: Rect, snap: &Snapshot, heights: Heights) -> Plan {
    if heights.view != View::Overview {
        return plan_view(area, snap, heights);
    }
    use Constraint::{Fill, Length};
    let wide = area.width >= WIDE;
    let [header, brokers, tape, middle, status, footer] = rows(area, heights);
    let detail_need = detail::height_needed(snap);
    let clients_need = clients::height_needed(snap);
    // A wide screen gives the lesson pane its rows at the bottom first, leaving the table,
    // the logs and clients and a few event rows (a focused Why panel's too).
    let keep_rows = heights.table.min((middle.height / 2).max(TABLE_MIN))
        + (detail_need + 1).max(clients_need)
        + if heights.keep.why { EVENTS_WITH_WHY } else { EVENTS_MIN };
    let (middle, lesson) = if wide { lesson_plan::carve(middle, heights, keep_rows) } else { (middle, None) };
    let charts_fit = area.width >= CHARTS_SIZE.0 && area.height >= CHARTS_SIZE.1;
    let charts_room = lesson.is_none() || middle.height >= CHARTS_ROWS + keep_rows + EVENTS_WITH_WHY;
    let charts_h = if charts_fit && charts_room { CHARTS_ROWS } else { 0 };
    let avail = middle.height - charts_h;
    let mut table_h = heights.table.min((avail / 2).max(TABLE_MIN)).min(avail);
    if !wide {
        // What never gives way: the selected partition's replicas and the producer
        // lines. A long table (`__consumer_offsets` has 50 partitions) gives rows for them.
        let keep = detail_need + clients::min_rows(snap) + EVENTS_MIN_NARROW;
        let short = keep.saturating_sub(avail - table_h);
        table_h -= short.min(table_h.saturating_sub(TABLE_MIN));
    }
    let rest = avail - table_h;
    let (lower_h, detail_h, clients_h) = if wide {
        // One more row for the strips' marks (HW, LEO, consumers) where there is room, and
        // the notes in full (a loss story takes two or three lines) up to half the rows below
        // the table: the event log and the why panel keep the rest.
        // Rows that cannot show the notes in full go to the events instead.
        let base = (detail_need + 1).max(clients_need);
        let full = (detail_need + 1 + heights.notes).max(clients_need);
        let lower = if full <= base.max(rest / 2) { full } else { base };
        let lower = lower.min(rest.saturating_sub(EVENTS_MIN));
        let lower = if lower < 2 { 0 } else { lower };
        (lower, lower, lower)
    } else {
        let room = rest.saturating_sub(EVENTS_MIN_NARROW);
        // The producer lines come before the detail pane's last rows.
        let clients_min = clients::min_rows(snap).min(room);
        let d = at_least_two(detail_need.min(room - clients_min));
        let c = at_least_two(clients_need.min(room - d));
        (d + c, d, c)
    };
    let [table, lower, charts, events] =
        Layout::vertical([Length(table_h), Length(lower_h), Length(charts_h), Fill(1)]).areas(middle);
    let (detail, clients) = if wide && lower_h > 0 {
        let [d, c] = wide_split(lower);
        (Some(d), Some(c))
    } else {
        let [d, c] = Layout::vertical([Length(detail_h), Length(clients_h)]).areas(lower);
        (some_if(d, detail_h), some_if(c, clients_h))
    };
    let events_kept = if heights.keep.why && !heights.keep.events { EVENTS_MIN } else { EVENTS_WITH_WHY };
    let (events, why) = if wide { place_why(events, heights.why, events_kept) } else { (events, None) };
    let (events, why, lesson) = match lesson {
        Some(pane) => {
            let (events, why, pane) = lend_blank_rows(events, why, pane, heights);
            (events, why, Some(pane))
        }
        None => (events, why, None),
    };
    let (events, lesson, status) = match lesson {
        Some(pane) => {
            let (pane, status) = lesson_plan::grow_status(pane, status, heights.status);
            (some_if(events, events.height), pane, status)
        }
        None => {
            let (events, status) = grow_status(events, status, heights.status);
            (events, None, status)
        }
    };
    let charts = some_if(charts, charts_h);
    let plan = Plan {
        header,
        brokers,
        table,
        detail,
        clients,
        charts,
        events,
        why,
        status,
        footer,
        wide,
        body: None,
        chart: None,
        lesson,
        tape: some_if(tape, tape.height),
    };
    if wide { plan } else { lesson_plan::narrow(middle, snap, heights, plan) }
}

/// Lays out a view other than the overview: the header, the broker strip and settings, the
/// status line and the footer as in the overview (they never give way), and the view's panes
/// in between. Status rows beyond the first come from the bottom of the view's area.
fn plan_view(area: Rect, snap: &Snapshot, heights: Heights) -> Plan {
    use Constraint::{Fill, Length, Percentage};
    let wide = area.width >= WIDE;
    let [header, brokers, tape, middle, status, footer] = rows(area, heights);
    let extra = heights.status.saturating_sub(1).min(middle.height.saturating_sub(EVENTS_MIN));
    let middle = Rect { height: middle.height - extra, ..middle };
    let status = Rect { y: status.y - extra, height: status.height + extra, ..status };
    let (middle, lesson) = lesson_plan::carve(middle, heights, middle.height / 2);
    let mut plan = Plan {
        header,
        brokers,
        table: Rect::default(),
        detail: None,
        clients: None,
        charts: None,
        events: None,
        why: None,
        status,
        footer,
        wide,
        body: None,
        chart: None,
        lesson,
        tape: some_if(tape, tape.height),
    };
    match heights.view {
        View::Brokers | View::Config | View::Overview => plan.body = Some(middle),
        View::Events => plan.events = Some(middle),
        View::Partition => {
            // The strips first (with their marks row and their notes in full), then the why
            // panel (beside the chart when wide), the events below with at least EVENTS_MIN rows.
            let base = detail::height_needed(snap) + 1;
            let full = base + heights.notes;
            let detail_h = if full <= middle.height / 2 { full } else { base.min(middle.height / 2) }.max(2);
            let rest = middle.height - detail_h;
            let events_h = (rest / 3).max(EVENTS_MIN).min(rest);
            let [d, mid, e] = Layout::vertical([Length(detail_h), Fill(1), Length(events_h)]).areas(middle);
            plan.detail = Some(d);
            plan.events = some_if(e, e.height);
            if wide && mid.height >= 6 {
                let [w, c] = Layout::horizontal([Percentage(55), Fill(1)]).spacing(1).areas(mid);
                plan.why = Some(w);
                plan.chart = Some(c);
            } else {
                plan.why = some_if(mid, mid.height);
            }
        }
        View::Clients => {
            let need = clients::height_needed(snap) + 1;
            let clients_h = need.min(middle.height.saturating_sub(EVENTS_MIN)).max(2);
            let rest = middle.height - clients_h;
            let chart_h = if rest >= 2 * EVENTS_MIN + 8 { (rest / 2).min(CHARTS_ROWS) } else { 0 };
            let [c, ch, e] = Layout::vertical([Length(clients_h), Length(chart_h), Fill(1)]).areas(middle);
            plan.clients = Some(c);
            plan.chart = some_if(ch, chart_h);
            plan.events = some_if(e, e.height);
        }
    }
    plan
}

/// Takes the why panel's place from the event log's area: its left part from
/// [`WHY_BESIDE`] columns on (the log keeps its rows), else its top rows, as long as the log
/// keeps `events_kept` rows ([`EVENTS_WITH_WHY`], fewer when a lesson focuses the panel);
/// otherwise no why panel.
fn place_why(events: Rect, need: u16, events_kept: u16) -> (Rect, Option<Rect>) {
    use Constraint::{Fill, Length, Percentage};
    if need < 2 || events.height < events_kept {
        return (events, None);
    }
    if events.width >= WHY_BESIDE {
        let [w, e] = Layout::horizontal([Percentage(45), Fill(1)]).spacing(1).areas(events);
        return (e, Some(w));
    }
    let rows = need.min(events.height - events_kept);
    if rows < 4 {
        return (events, None);
    }
    let [w, e] = Layout::vertical([Length(rows), Fill(1)]).areas(events);
    (e, Some(w))
}

/// The rows at the bottom of the event log (and of the why panel beside it) that their
/// lines leave blank, moved to the lesson pane below them: the lesson shows more of its log
/// rather than blank rows sitting above it. A focused event log keeps [`EVENTS_MIN`] rows.
fn lend_blank_rows(
    events: Rect,
    why: Option<Rect>,
    lesson: Rect,
    heights: Heights,
) -> (Rect, Option<Rect>, Rect) {
    if events.y + events.height != lesson.y {
        return (events, why, lesson);
    }
    let events_need = heights.events.max(if heights.keep.events { EVENTS_MIN } else { 2 });
    let beside = why.filter(|w| w.y == events.y && w.height == events.height);
    let need = beside.map_or(events_need, |_| events_need.max(heights.why));
    let spare = events.height.saturating_sub(need);
    if spare == 0 {
        return (events, why, lesson);
    }
    let events = Rect { height: events.height - spare, ..events };
    let why = match (why, beside) {
        (Some(w), Some(_)) => Some(Rect { height: w.height - spare, ..w }),
        (w, _) => w,
    };
    let lesson = Rect { y: lesson.y - spare, height: lesson.height + spare, ..lesson };
    (events, why, lesson)
}

/// The width the why panel gets on a screen `width` columns wide (see [`place_why`]).
fn why_width(width: u16) -> u16 {
    if width >= WHY_BESIDE { (width - 1) * 45 / 100 } else { width }
}

/// Moves the top of the status area up into the event log, by up to `rows - 1` rows, as
/// long as the log keeps its title row.
fn grow_status(events: Rect, status: Rect, rows: u16) -> (Option<Rect>, Rect) {
    let extra = rows.saturating_sub(1).min(events.height.saturating_sub(1));
    let events = Rect { height: events.height - extra, ..events };
    let status = Rect { y: status.y.saturating_sub(extra), height: status.height + extra, ..status };
    (some_if(events, events.height), status)
}

fn at_least_two(h: u16) -> u16 {
    if h < 2 { 0 } else { h }
}

fn some_if(r: Rect, h: u16) -> Option<Rect> {
    (h > 0 && r.height > 0).then_some(r)
}

/// How many partition rows the table shows on the model's screen.
pub fn table_rows(model: &Model, snap: &Snapshot) -> usize {
    let (w, h) = (model.screen.0.max(MIN_WIDTH), model.screen.1.max(MIN_HEIGHT));
    // The overview's table, whichever view is shown: the selection keeps its place there.
    let overview = Heights { view: View::Overview, ..heights(model, snap, w) };
    let table = plan(Rect::new(0, 0, w, h), snap, overview).table;
    // The header row, and the title line a filter adds.
    let chrome = 1 + super::partitions::title_rows(model, snap);
    usize::from(table.height.saturating_sub(chrome)).max(1)
}

/// Where the Events pane is on the model's screen, if it fits.
pub fn events_area(model: &Model, snap: &Snapshot) -> Option<Rect> {
    let (w, h) = (model.screen.0.max(MIN_WIDTH), model.screen.1.max(MIN_HEIGHT));
    plan(Rect::new(0, 0, w, h), snap, heights(model, snap, w)).events
}

/// The content-driven heights for a screen `width` columns wide.
pub fn heights(model: &Model, snap: &Snapshot, width: u16) -> Heights {
    let status = match model.mode {
        Mode::Palette => palette::height(&model.palette, width),
        // The config view's editor is in its row: the status line stays.
        Mode::Prompt(Ask::ConfigValue)
        | Mode::Normal
        | Mode::Help
        | Mode::Events
        | Mode::Question
        | Mode::Readout => footer::status_lines(model, snap, width).len(),
        Mode::Prompt(_) => palette::height(&model.prompt, width),
    };
    let status = u16::try_from(status).unwrap_or(1);
    let strip = u16::try_from(brokers::strip_lines(model, snap, width).len()).unwrap_or(1);
    let keep = keep(model);
    let why = if width >= WIDE || keep.why { why::height_needed(model, snap, why_width(width)) } else { 0 };
    let table = partitions::height_needed(model, snap);
    let detail_width = match model.view {
        View::Partition => width,
        _ if width >= WIDE => wide_detail_width(width),
        _ => 0,
    };
    let notes =
        if detail_width == 0 { 0 } else { detail::notes_rows(model, snap, detail_width).saturating_sub(1) };
    let lesson = narration::rows(model, snap, width, model.screen.1.max(MIN_HEIGHT));
    let events = match lesson {
        Some(_) => {
            // The event log's width: beside the why panel on a wide screen.
            let w = if width >= WIDE { width.saturating_sub(why_width(width) + 1) } else { width };
            events::rows_filled(model, snap, usize::from(w), usize::from(model.screen.1))
        }
        None => 0,
    };
    Heights {
        strip,
        status,
        why,
        table,
        notes,
        view: model.view,
        tape: model.tape.open,
        lesson,
        keep,
        events,
    }
}

/// What the played lesson's focus keeps on screen.
fn keep(model: &Model) -> Keep {
    use crate::scenario::Pane;
    let Some(lesson) = &model.lesson else { return Keep::default() };
    Keep {
        logs: lesson.keeps(Pane::Logs),
        why: lesson.keeps(Pane::Why),
        clients: lesson.keeps(Pane::Clients),
        events: lesson.keeps(Pane::Events),
    }
}

/// The wide overview's logs and clients panes side by side in `lower`.
fn wide_split(lower: Rect) -> [Rect; 2] {
    Layout::horizontal([Constraint::Percentage(58), Constraint::Fill(1)]).spacing(1).areas(lower)
}

/// The logs pane's width in the wide overview, beside the clients pane (see [`plan`]).
fn wide_detail_width(width: u16) -> u16 {
    wide_split(Rect::new(0, 0, width, 1))[0].width
}

/// Draws the dashboard; with `--ascii`, in ASCII only.
pub fn view(model: &Model, snap: &Snapshot, frame: &mut Frame) {
    draw_panes(model, snap, frame);
    if model.theme.ascii() {
        super::ascii::transliterate(frame.buffer_mut());
    }
}

fn draw_panes(model: &Model, run: &Snapshot, frame: &mut Frame) {
    // While a what-if is on, the panes show the run `v` chose.
    let snap = super::whatif::shown(model, run);
    let area = frame.area();
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        too_small(frame, area, model.theme);
        return;
    }
    let plan = plan(area, snap, heights(model, snap, area.width));
    header::render(frame, plan.header, model, snap);
    brokers::render(frame, plan.brokers, model, snap);
    if let Some(r) = plan.tape {
        model.tape.render(frame, r, model, snap);
    }
    if model.view == View::Overview {
        partitions::render(frame, plan.table, model, snap, plan.wide);
    }
    if let Some(r) = plan.body {
        match model.view {
            View::Config => config_view::render(frame, r, model, snap),
            _ => broker_view::render(frame, r, model, snap),
        }
    }
    if let Some(r) = plan.chart {
        match model.view {
            View::Clients => charts::render_producers(frame, r, model, snap),
            _ => charts::render_partition(frame, r, model, snap),
        }
    }
    match (plan.detail, plan.clients) {
        // From WIDE columns the what-if's two runs side by side take the logs and clients.
        (Some(d), Some(c)) if run.whatif.is_some() && plan.wide => {
            super::whatif::render(frame, d.union(c), model, run);
        }
        (detail, clients) => {
            if let Some(r) = detail {
                detail::render(frame, r, model, snap);
            }
            if let Some(r) = clients {
                clients::render(frame, r, model.theme, snap, model.marked_producer(snap));
            }
        }
    }
    if let Some(r) = plan.charts {
        render_charts(frame, r, model, snap);
    }
    if let Some(r) = plan.events {
        events::render(frame, r, model, snap);
    }
    if let Some(r) = plan.why {
        why::render(frame, r, model, snap);
    }
    if let Some(r) = plan.lesson {
        narration::render(frame, r, model, snap);
    }
    match model.mode {
        Mode::Palette => palette::render(frame, plan.status, &model.palette, model.theme),
        Mode::Prompt(ask) if ask != Ask::ConfigValue => {
            palette::render(frame, plan.status, &model.prompt, model.theme)
        }
        Mode::Prompt(_) | Mode::Normal | Mode::Help | Mode::Events | Mode::Question | Mode::Readout => {
            footer::render_status(frame, plan.status, footer::status_lines(model, snap, area.width))
        }
    }
    footer::render(frame, plan.footer, model);
    if model.mode == Mode::Help {
        help::render(frame, area, model);
    }
    if model.mode == Mode::Readout {
        super::readout::render(frame, area, model, snap);
    }
}

/// The charts row: cluster throughput, the selected partition, the producers.
fn render_charts(frame: &mut Frame, area: Rect, model: &Model, snap: &Snapshot) {
    let [cluster, partition, producers] = Layout::horizontal([Constraint::Fill(1); 3]).spacing(1).areas(area);
    charts::render_cluster(frame, cluster, model, snap);
    charts::render_partition(frame, partition, model, snap);
    charts::render_producers(frame, producers, model, snap);
}

/// The too-small notice, each sentence word-wrapped to the screen and centred.
fn too_small(frame: &mut Frame, area: Rect, theme: Theme) {
    let width = usize::from(area.width);
    let notice = [
        ("Terminal too small".to_string(), theme.warn()),
        (format!("{}×{}", area.width, area.height), theme.normal()),
        (format!("isrlab needs at least {MIN_WIDTH}×{MIN_HEIGHT}"), theme.normal()),
    ];
    let lines: Vec<Line> = notice
        .iter()
        .flat_map(|(text, style)| text::wrap(text, width).into_iter().map(|part| Line::styled(part, *style)))
        .collect();
    let height = u16::try_from(lines.len()).unwrap_or(u16::MAX).min(area.height);
    let [middle] =
        Layout::vertical([Constraint::Length(height)]).flex(ratatui::layout::Flex::Center).areas(area);
    frame.render_widget(Paragraph::new(lines).centered(), middle);
}
