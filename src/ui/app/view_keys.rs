//! The keys of the views: switching views, and what the selection keys (↑/↓, PgUp/PgDn,
//! g/G) and `/` do in the broker and config views; Enter in the config view opens the
//! palette on a `set` line for the selected property, so the palette's parser checks it and
//! the cluster's `set` validates it, as when the line is typed.

use super::{Ask, Effect, Mode, Model, StatusKind, View, event_keys};
use crate::cluster::command::Command;
use crate::cluster::snapshot::Snapshot;
use crate::ui::config_view;
use crate::ui::keymap::Action;

/// Shows `view`.
pub(super) fn show(model: &mut Model, view: View) -> Vec<Effect> {
    model.view = view;
    Vec::new()
}

/// Whether the shown view gives `action` its own meaning.
pub(super) fn takes(model: &Model, action: Action) -> bool {
    use Action::*;
    let moves = matches!(
        action,
        PartitionUp | PartitionDown | PartitionPageUp | PartitionPageDown | PartitionFirst | PartitionLast
    );
    match model.view {
        View::Brokers => moves,
        View::Config => moves || action == SearchEvents,
        _ => false,
    }
}

/// One key the shown view took (see [`takes`]).
pub(super) fn on_view_key(model: &mut Model, action: Action, snap: &Snapshot) -> Vec<Effect> {
    if model.view == View::Config && action == Action::SearchEvents {
        return event_keys::open_prompt(model, Ask::ConfigFilter);
    }
    let page = config_view::page_rows(model) as isize;
    let by = match action {
        Action::PartitionUp => -1,
        Action::PartitionDown => 1,
        Action::PartitionPageUp => -page,
        Action::PartitionPageDown => page,
        Action::PartitionFirst => isize::MIN / 2,
        _ => isize::MAX / 2,
    };
    let step =
        |at: usize, len: usize| (at as isize).saturating_add(by).clamp(0, len.saturating_sub(1) as isize);
    if model.view == View::Brokers {
        let ids: Vec<_> = snap.brokers.iter().map(|b| b.id).collect();
        let at = model.selected_broker.and_then(|id| ids.iter().position(|b| *b == id)).unwrap_or(0);
        model.selected_broker = ids.get(step(at, ids.len()) as usize).copied();
    } else {
        let len = config_view::rows(model).len();
        model.config_selected = step(model.config_selected.min(len.saturating_sub(1)), len) as usize;
    }
    Vec::new()
}

/// Enter: in the config view, the palette opens on the `set` line of the selected property
/// with its value, to edit; elsewhere it says where Enter works.
pub(super) fn edit_config(model: &mut Model, snap: &Snapshot) -> Vec<Effect> {
    if model.view != View::Config {
        model.say(StatusKind::Info, "Enter edits a property in the config view (F6)");
        return Vec::new();
    }
    let rows = config_view::rows(model);
    let Some(p) = rows.get(model.config_selected.min(rows.len().saturating_sub(1))) else {
        return model.refuse("no property matches the filter (/ changes it)");
    };
    match config_view::set_line(model, snap, p) {
        Ok(line) => {
            model.palette.open_as(":", &line);
            model.mode = Mode::Palette;
        }
        Err(why) => model.say(StatusKind::Info, why),
    }
    Vec::new()
}

/// A `set` the cluster refused while the config view is shown: the palette opens again on
/// the same line with the reason under it, so nothing typed is lost.
pub(super) fn keep_refused_edit(model: &mut Model, command: &Command, why: &str) {
    if model.view == View::Config && model.mode == Mode::Normal && matches!(command, Command::Set(_)) {
        model.palette.open_as(":", &command.to_string());
        model.palette.set_error(Some(why.to_string()));
        model.mode = Mode::Palette;
    }
}

/// `/` in the config view: only the properties whose name, scope or meaning hold every word.
pub(super) fn filter_config(model: &mut Model, line: &str) -> Result<(), String> {
    model.config_filter = line.to_string();
    model.config_selected = 0;
    let shown = config_view::rows(model).len();
    if line.is_empty() {
        model.say(StatusKind::Info, "the config view shows every property");
    } else {
        model.say(StatusKind::Info, format!("{shown} properties hold `{line}` · / changes the filter"));
    }
    Ok(())
}
