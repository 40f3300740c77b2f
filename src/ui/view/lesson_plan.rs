//! Where the lesson pane goes, and what gives way for it. The pane sits at the bottom of the
//! panes, above the status line, in every view. It takes the rows it wants from the other
//! panes by priority, never more than there are: on a narrow screen (80×24) the event log
//! gives way first, then the clients pane, the logs pane and the table's rows beyond its
//! first three, unless the lesson's focus keeps them; a focused Why panel is shown even
//! there, where it otherwise needs 120 columns.

use ratatui::layout::{Constraint, Layout, Rect};

use super::{EVENTS_MIN_NARROW, Heights, Plan, TABLE_MIN, at_least_two, some_if};
use crate::cluster::snapshot::Snapshot;
use crate::ui::{clients, detail};

/// What the lesson's focus keeps on screen.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Keep {
    /// The logs pane (log strips of the selected partition).
    pub logs: bool,
    /// The Why panel.
    pub why: bool,
    /// The clients pane.
    pub clients: bool,
    /// The event log.
    pub events: bool,
}

/// Rows a focused Why panel gets at least (its title and three lines).
const WHY_MIN: u16 = 4;

/// Takes up to `want` rows from `left`, or none when fewer than `floor` would be left for it.
fn take(left: &mut u16, want: u16, floor: u16) -> u16 {
    let n = want.min(*left);
    if n < floor.max(1) {
        return 0;
    }
    *left -= n;
    n
}

/// The narrow overview (under 120 columns) with a lesson pane: every pane's rows by
/// priority (first the table's first rows, the lesson's smallest form and the focused
/// panes'; then the lesson's want, a focused event log's first rows, the table's want, a
/// focused Why panel's, the logs, the producer lines, the event log), top to bottom table, logs, clients, why, events, lesson. `middle` is the area
/// between the settings line and the status line.
pub(super) fn narrow(middle: Rect, snap: &Snapshot, heights: Heights, mut plan: Plan) -> Plan {
    let Some(lesson) = heights.lesson else { return plan };
    let keep = heights.keep;
    let mut left = middle.height;
    let detail_need = detail::height_needed(snap);
    let (clients_need, clients_min) = (clients::height_needed(snap), clients::min_rows(snap));
    let table_want = heights.table.min((middle.height / 2).max(TABLE_MIN));
    // What must show: the table's first rows, the lesson, and the focused panes.
    let mut table = take(&mut left, TABLE_MIN.min(table_want), 1);
    let mut lesson_h = take(&mut left, lesson.min, 2);
    let why_min = WHY_MIN.min(heights.why);
    let mut why = if keep.why { take(&mut left, why_min, why_min) } else { 0 };
    let mut detail_h = if keep.logs { take(&mut left, detail_need, 2) } else { 0 };
    let mut clients_h = if keep.clients { take(&mut left, clients_min, 2) } else { 0 };
    // Then what they want, by priority: the lesson's before the event log's, even a focused one.
    lesson_h += take(&mut left, lesson.want.saturating_sub(lesson_h), 1);
    let mut events = if keep.events { take(&mut left, EVENTS_MIN_NARROW, 2) } else { 0 };
    table += take(&mut left, table_want.saturating_sub(table), 1);
    if keep.why {
        why += take(&mut left, heights.why.saturating_sub(why), 1);
    }
    if detail_h == 0 {
        detail_h = take(&mut left, detail_need, detail_need);
    }
    if clients_h == 0 {
        clients_h = take(&mut left, clients_min, clients_min);
    } else {
        clients_h += take(&mut left, clients_need.saturating_sub(clients_h), 1);
    }
    // The event log up to the rows its events fill: rows it would leave blank go to the
    // lesson rather than sit empty above it.
    let more = at_least_two(left.min(heights.events.saturating_sub(events)));
    events += more;
    left -= more;
    // A row nobody could use goes to the lesson.
    lesson_h += left;
    let [t, d, c, w, e, l] = Layout::vertical([
        Constraint::Length(table),
        Constraint::Length(detail_h),
        Constraint::Length(clients_h),
        Constraint::Length(why),
        Constraint::Length(events),
        Constraint::Length(lesson_h),
    ])
    .areas(middle);
    plan.table = t;
    plan.detail = some_if(d, detail_h);
    plan.clients = some_if(c, clients_h);
    plan.why = some_if(w, why);
    plan.events = some_if(e, events);
    plan.charts = None;
    // The status line as it was before the overview's plan grew it into the event log.
    let status = Rect { y: plan.footer.y.saturating_sub(1), height: 1, ..plan.footer };
    let (lesson, status) = grow_status(l, status, heights.status);
    plan.lesson = lesson;
    plan.status = status;
    plan
}

/// The rows of `middle` the lesson pane takes at its bottom, leaving `keep` rows above (for
/// the table and the panes that must show) unless its smallest form needs them; `None`
/// when it has no room.
pub(super) fn carve(middle: Rect, heights: Heights, keep: u16) -> (Rect, Option<Rect>) {
    let Some(lesson) = heights.lesson else { return (middle, None) };
    let room = middle.height.saturating_sub(keep);
    let rows = lesson.want.min(room.max(lesson.min.min(middle.height / 2)));
    if rows < 2 {
        return (middle, None);
    }
    let [rest, pane] = Layout::vertical([Constraint::Fill(1), Constraint::Length(rows)]).areas(middle);
    (rest, Some(pane))
}

/// Moves the top of the status area up into the lesson pane above it by up to
/// `rows - 1` rows, as long as the pane keeps its title and a line.
pub(super) fn grow_status(lesson: Rect, status: Rect, rows: u16) -> (Option<Rect>, Rect) {
    let extra = rows.saturating_sub(1).min(lesson.height.saturating_sub(2));
    let lesson = Rect { height: lesson.height - extra, ..lesson };
    let status = Rect { y: status.y.saturating_sub(extra), height: status.height + extra, ..status };
    (some_if(lesson, lesson.height), status)
}
