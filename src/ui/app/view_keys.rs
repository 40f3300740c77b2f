//! The keys of the views: switching views, and what the selection keys (↑/↓, PgUp/PgDn,
//! g/G) and `/` do in the broker and config views. Enter in the config view edits the
//! selected property's value in its row; Enter there makes the `set` line the palette would
//! run and checks it with the palette's own code ([`super::palette_keys::run_line`]), and the cluster's
//! `set` validates it, as when the line is typed. An error keeps the edit open.

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

/// An edit of one property in the config view: the `set` line up to its value
/// (`set producer delivery.timeout.ms=`), and once sent, the command awaiting the cluster's
/// answer with the value typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigEdit {
    /// The property.
    pub name: &'static str,
    /// The `set` line before the value.
    pub head: String,
    /// The command sent and the value typed, until the cluster answers.
    pub sent: Option<(Command, String)>,
}

/// Enter: in the config view, an editor opens in the selected row's value cell, holding the
/// current value; elsewhere it says where Enter works.
pub(super) fn edit_config(model: &mut Model, snap: &Snapshot) -> Vec<Effect> {
    if model.view != View::Config {
        model.say(StatusKind::Info, "Enter edits a property in the config view (F6)");
        return Vec::new();
    }
    let rows = config_view::rows(model);
    let Some(p) = rows.get(model.config_selected.min(rows.len().saturating_sub(1))) else {
        return model.refuse("no property matches the filter (/ changes it)");
    };
    match config_view::set_parts(model, snap, p) {
        Ok((head, value)) => open_edit(model, ConfigEdit { name: p.name, head, sent: None }, &value, None),
        Err(why) => model.say(StatusKind::Info, why),
    }
    Vec::new()
}

fn open_edit(model: &mut Model, edit: ConfigEdit, value: &str, error: Option<String>) {
    model.config_edit = Some(edit);
    model.prompt.open_as("", value);
    model.prompt.set_error(error);
    model.mode = Mode::Prompt(Ask::ConfigValue);
}

/// Enter in the row's editor: the `set` line goes through the palette's check; a line it
/// refuses keeps the edit open with the palette's reason in the row. Esc is the prompt's
/// cancel, which leaves everything as it was.
pub(super) fn apply_config_edit(model: &mut Model, snap: &Snapshot) -> Vec<Effect> {
    let Some(mut edit) = model.config_edit.take() else {
        model.mode = Mode::Normal;
        return Vec::new();
    };
    let value = model.prompt.input().trim().to_string();
    let line = if value.is_empty() {
        let default = crate::config::lookup(edit.name).map_or("", |p| p.default);
        Err(format!("the value of {} is empty: type one (its default is {default})", edit.name))
    } else {
        super::palette_keys::run_line(model, &format!("{}{value}", edit.head), snap)
    };
    match line {
        Ok(cmd) => {
            edit.sent = Some((cmd.clone(), value));
            model.config_edit = Some(edit);
            model.prompt.set_error(None);
            model.mode = Mode::Normal;
            vec![Effect::Apply(cmd)]
        }
        Err(why) => {
            model.config_edit = Some(edit);
            // Each attempt replaces the last one's reason, in the status line too (an
            // earlier refusal by the cluster would otherwise stay there).
            model.say(StatusKind::Error, why.clone());
            model.prompt.set_error(Some(why));
            Vec::new()
        }
    }
}

/// The cluster took `command`: an edit that sent it is done.
pub(super) fn edit_applied(model: &mut Model, command: &Command) {
    if model.config_edit.as_ref().and_then(|e| e.sent.as_ref()).is_some_and(|(c, _)| c == command) {
        model.config_edit = None;
    }
}

/// A `set` the cluster refused: an edit in the config view that sent it opens again in its
/// row on the typed value with the reason, so nothing typed is lost.
pub(super) fn keep_refused_edit(model: &mut Model, command: &Command, why: &str) {
    let Some(edit) = model.config_edit.take() else { return };
    match edit.sent {
        Some((ref sent, ref value)) if sent == command && model.mode == Mode::Normal => {
            let value = value.clone();
            open_edit(model, ConfigEdit { sent: None, ..edit }, &value, Some(why.to_string()));
        }
        _ => model.config_edit = Some(edit),
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
        model.say(
            StatusKind::Info,
            format!(
                "{shown} {} `{line}` · / changes the filter",
                if shown == 1 { "property holds" } else { "properties hold" }
            ),
        );
    }
    Ok(())
}
