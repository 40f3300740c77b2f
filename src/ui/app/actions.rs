//! The one `match` over the dashboard's actions ([`Action`]), whichever key or table they came
//! from, and the few actions that belong to no pane: restarting the run, quitting, moving the
//! partition table's selection.

use super::cluster_keys::{
    change_lag_limit, change_min_isr, change_rate, cycle_acks, next_producer, on_selected, select_broker,
    toggle_fetch, toggle_unclean,
};
use super::{Ask, Effect, Mode, Model, NEXT_EVENT_WITHIN_MS, StatusKind, View};
use super::{event_keys, table_keys, time_keys, view_keys};
use crate::cluster::command::crash::Crash;
use crate::cluster::command::restart::Restart;
use crate::cluster::command::shutdown::Shutdown;
use crate::cluster::snapshot::Snapshot;
use crate::sim::format_instant;
use crate::ui::keymap::Action;
use crate::ui::view;

/// The one `match` over the dashboard's actions.
pub(super) fn perform(model: &mut Model, action: Action, snap: &Snapshot) -> Vec<Effect> {
    match action {
        Action::TogglePause | Action::Step | Action::NextEvent if model.scenario_over(snap) => {
            scenario_ended(model, snap)
        }
        a if view_keys::takes(model, a) => view_keys::on_view_key(model, a, snap),
        Action::SelectBroker(id) => select_broker(model, id, snap),
        Action::Crash => on_selected(model, snap, |b| Crash(b).into()),
        Action::Shutdown => on_selected(model, snap, |b| Shutdown(b).into()),
        Action::Restart => on_selected(model, snap, |b| Restart(b).into()),
        Action::ToggleFetch => toggle_fetch(model, snap),
        Action::PartitionUp => move_selection(model, -1, snap),
        Action::PartitionDown => move_selection(model, 1, snap),
        Action::PartitionPageUp => move_selection(model, -page(model, snap), snap),
        Action::PartitionPageDown => move_selection(model, page(model, snap), snap),
        Action::PartitionFirst => move_selection(model, isize::MIN / 2, snap),
        Action::PartitionLast => move_selection(model, isize::MAX / 2, snap),
        Action::CycleAcks => cycle_acks(model, snap),
        Action::NextProducer => next_producer(model, snap),
        Action::MinIsrDown => change_min_isr(model, -1, snap),
        Action::MinIsrUp => change_min_isr(model, 1, snap),
        Action::ToggleUnclean => toggle_unclean(model, snap),
        Action::LagLimitDown => change_lag_limit(model, false, snap),
        Action::LagLimitUp => change_lag_limit(model, true, snap),
        Action::RateDown => change_rate(model, false, snap),
        Action::RateUp => change_rate(model, true, snap),
        Action::TogglePause => {
            model.paused = !model.paused;
            Vec::new()
        }
        Action::Step => time_keys::step(model),
        Action::NextEvent => {
            model.paused = true;
            vec![Effect::NextEvent(NEXT_EVENT_WITHIN_MS)]
        }
        Action::SpeedDown => time_keys::change_speed(model, false),
        Action::SpeedUp => time_keys::change_speed(model, true),
        Action::EventsOlder => event_keys::scroll(model, snap, -1),
        Action::EventsNewer => event_keys::scroll(model, snap, 1),
        Action::EventsFollow => {
            if model.events_anchor.take().is_some() {
                // Replaces an "events up to …" left from scrolling, which would now be stale.
                model.say(StatusKind::Info, "the Events pane follows the newest events again");
            }
            Vec::new()
        }
        Action::ToggleImportant => {
            model.events_important = !model.events_important;
            // Replaces any earlier word on what the pane shows ("every event again").
            let text = if model.events_important {
                "the Events pane shows the important events only · f: every event"
            } else {
                "the Events pane shows every event · f: the important ones only"
            };
            model.say(StatusKind::Info, text);
            Vec::new()
        }
        Action::FocusEvents => {
            model.mode = Mode::Events;
            Vec::new()
        }
        Action::SearchEvents => event_keys::open_prompt(model, Ask::Search),
        Action::FilterEvents => event_keys::open_prompt(model, Ask::Filter),
        Action::Reset => reset(model, false, snap),
        Action::SaveRecording => vec![Effect::Save(None)],
        Action::ToggleTape => {
            model.tape.open = !model.tape.open;
            if !model.tape.open {
                model.tape.cursor = None;
            }
            let text = if model.tape.open {
                model.tape.describe(model.selected_tp.as_ref(), snap)
            } else {
                "timeline hidden · t shows it".to_string()
            };
            model.say(StatusKind::Info, text);
            Vec::new()
        }
        Action::TapeBack | Action::TapeForward => {
            let tp = model.selected_tp.clone();
            let text = model.tape.step(action == Action::TapeForward, tp.as_ref(), snap);
            model.say(StatusKind::Info, text);
            Vec::new()
        }
        Action::WhatIf => match &snap.whatif {
            Some(w) => {
                model.whatif.showing_whatif = !model.whatif.showing_whatif;
                let which = if model.whatif.showing_whatif {
                    crate::ui::whatif::name(w)
                } else {
                    "the run".to_string()
                };
                model.say(
                    StatusKind::Info,
                    format!("showing {which} · v the other, V goes on with the one shown"),
                );
                Vec::new()
            }
            None => {
                model.mode = Mode::Palette;
                model.palette.open_as("", "whatif ");
                Vec::new()
            }
        },
        Action::LeaveWhatIf => match snap.whatif {
            Some(_) => vec![Effect::EndWhatIf(model.whatif.showing_whatif)],
            None => {
                model.say(StatusKind::Info, "no what-if is on · v starts one (:whatif PROPERTY=VALUE)");
                Vec::new()
            }
        },
        Action::TapeGo => match model.tape.cursor {
            Some(t) => {
                model.paused = true;
                vec![Effect::Rewind(t)]
            }
            None => {
                model.tape.open = true;
                model.say(StatusKind::Info, "move the timeline's cursor first: ( back, ) forward, then T");
                Vec::new()
            }
        },
        Action::OpenPalette => {
            model.mode = Mode::Palette;
            model.palette.open();
            Vec::new()
        }
        Action::ToggleHelp => {
            model.mode = Mode::Help;
            // In a lesson, the help opens at the lesson's keys.
            model.help_scroll = match model.lesson {
                Some(_) => crate::ui::help::lesson_keys_line(&model.keys, model.screen.0),
                None => 0,
            };
            Vec::new()
        }
        Action::Quit => quit(model),
        Action::ToggleUnhealthy => table_keys::toggle_unhealthy(model, snap),
        Action::ToggleInternal => table_keys::toggle_internal(model, snap),
        Action::FilterSelectedBroker => table_keys::toggle_selected_broker(model, snap),
        Action::FilterPartitions => event_keys::open_prompt(model, Ask::TableFilter),
        Action::PreviousBroker => table_keys::step_broker(model, snap, false),
        Action::NextBroker => table_keys::step_broker(model, snap, true),
        Action::PickBroker => event_keys::open_prompt(model, Ask::Broker),
        Action::NextView => view_keys::show(model, model.view.turn(1)),
        Action::PrevView => view_keys::show(model, model.view.turn(-1)),
        Action::ShowOverview => view_keys::show(model, View::Overview),
        Action::ShowPartition => view_keys::show(model, View::Partition),
        Action::ShowBrokers => view_keys::show(model, View::Brokers),
        Action::ShowClients => view_keys::show(model, View::Clients),
        Action::ShowEvents => view_keys::show(model, View::Events),
        Action::ShowConfig => view_keys::show(model, View::Config),
        Action::EditConfig => view_keys::edit_config(model, snap),
    }
}

/// `R`: the first press asks, the second restarts the run from time 0.
pub(super) fn reset(model: &mut Model, armed: bool, snap: &Snapshot) -> Vec<Effect> {
    if armed {
        return vec![Effect::Reset];
    }
    model.reset_armed = true;
    let text = format!(
        "R again restarts from 0 (the same cluster, seed {} and startup settings, \
         every counter cleared); any other key cancels",
        snap.seed
    );
    model.say(StatusKind::Info, text);
    Vec::new()
}

fn scenario_ended(model: &mut Model, snap: &Snapshot) -> Vec<Effect> {
    let end = snap.scenario.as_ref().map_or(snap.now_us, |s| s.end);
    let text = format!("the scenario ended at {}: sim time stops there (q quits)", format_instant(end));
    model.say(StatusKind::Info, text);
    Vec::new()
}

pub(super) fn quit(model: &mut Model) -> Vec<Effect> {
    model.quit = true;
    vec![Effect::Quit]
}

fn page(model: &Model, snap: &Snapshot) -> isize {
    let rows = view::table_rows(model, snap);
    rows.saturating_sub(1).max(1) as isize
}

/// Moves the selection `delta` rows among the rows the table shows.
pub(super) fn move_selection(model: &mut Model, delta: isize, snap: &Snapshot) -> Vec<Effect> {
    let shown = model.shown(snap);
    let last = shown.rows.len().saturating_sub(1) as isize;
    let current = model.selected_row(&shown) as isize;
    let row = current.saturating_add(delta).clamp(0, last) as usize;
    if let Some(index) = shown.rows.get(row).copied() {
        model.selected_partition = index;
    }
    Vec::new()
}
