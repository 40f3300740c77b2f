//! The mouse: a click selects the partition row or broker under it, a click or drag on the
//! timeline strip moves its cursor, the wheel scrolls the pane under the pointer (the
//! partition table or the event log). Everything else is ignored, so a
//! stray drag never changes the cluster.

use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};

use super::actions::move_selection;
use super::{Effect, Mode, Model, event_keys};
use crate::cluster::snapshot::Snapshot;
use crate::ui::{brokers, view};

/// Rows the wheel moves per notch, as terminals scroll text.
const WHEEL_ROWS: isize = 3;

/// One mouse event in the normal or events mode; the palette, prompt and help ignore it.
pub(super) fn on_mouse(model: &mut Model, ev: MouseEvent, snap: &Snapshot) -> Vec<Effect> {
    if !matches!(model.mode, Mode::Normal | Mode::Events) {
        return Vec::new();
    }
    let (w, h) = (model.screen.0.max(view::MIN_WIDTH), model.screen.1.max(view::MIN_HEIGHT));
    let plan = view::plan(Rect::new(0, 0, w, h), snap, view::heights(model, snap, w));
    let at = Position::new(ev.column, ev.row);
    let over_events = plan.events.is_some_and(|r| r.contains(at));
    match ev.kind {
        MouseEventKind::ScrollUp if over_events => event_keys::scroll(model, snap, -WHEEL_ROWS),
        MouseEventKind::ScrollDown if over_events => event_keys::scroll(model, snap, WHEEL_ROWS),
        MouseEventKind::ScrollUp => move_selection(model, -WHEEL_ROWS, snap),
        MouseEventKind::ScrollDown => move_selection(model, WHEEL_ROWS, snap),
        MouseEventKind::Down(MouseButton::Left) | MouseEventKind::Drag(MouseButton::Left)
            if plan.tape.is_some_and(|r| r.contains(at)) =>
        {
            let strip = plan.tape.unwrap_or_default();
            scrub(model, snap, strip.width, ev.column.saturating_sub(strip.x));
            Vec::new()
        }
        MouseEventKind::Down(MouseButton::Left) => {
            click(model, snap, &plan, at);
            Vec::new()
        }
        _ => Vec::new(),
    }
}

/// A click or drag on the timeline strip's band: its cursor goes to the instant under the
/// pointer, said in the status line (`T` then goes there).
fn scrub(model: &mut Model, snap: &Snapshot, width: u16, x: u16) {
    if let Some(t) = model.tape.instant_at(width, x, snap) {
        model.tape.cursor = Some(t);
        let text = model.tape.describe(model.selected_tp.as_ref(), snap);
        model.say(super::StatusKind::Info, text);
    }
}

/// Selects what is under a left click: a partition row (the header row selects nothing) or a
/// broker in the strip.
fn click(model: &mut Model, snap: &Snapshot, plan: &view::Plan, at: Position) {
    if plan.table.contains(at) && at.y > plan.table.y {
        let first = plan.table.y + super::super::partitions::title_rows(model, snap);
        if at.y > first {
            let row = usize::from(at.y - first - 1) + model.partition_offset;
            if let Some(index) = model.shown(snap).rows.get(row).copied() {
                model.selected_partition = index;
            }
        }
    } else if plan.brokers.contains(at) {
        let line = usize::from(at.y - plan.brokers.y);
        if let Some(id) = brokers::broker_at(model, snap, plan.brokers.width, line, usize::from(at.x)) {
            model.selected_broker = Some(id);
        }
    }
}
