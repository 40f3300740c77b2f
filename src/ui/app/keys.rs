//! What a key does, mode by mode: the one place that reads a key event. Each mode looks the key
//! up in its own table ([`keymap`]) and hands the action to the code of that mode; a key no
//! table binds gets a short notice. Keys are taken as the terminal sends them, so the quirks of
//! real terminals (releases, Esc read together with the next key) are handled here first.

use super::actions::{perform, quit, reset};
use super::palette_keys::on_palette;
use super::{Effect, Mode, Model, StatusKind, event_keys};
use crate::cluster::snapshot::Snapshot;
use crate::ui::keymap::{self, Action, HelpAction, QuestionAction};
use crate::ui::lesson;
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

pub(super) fn on_key(model: &mut Model, ev: KeyEvent, snap: &Snapshot) -> Vec<Effect> {
    // Terminals that report releases (Windows, the kitty protocol) would type twice.
    if ev.kind == KeyEventKind::Release {
        return Vec::new();
    }
    // Below the smallest screen nothing shows what a key did, so a key typed blind must not
    // crash a broker: only quitting works until the terminal is large enough again.
    let (w, h) = model.screen;
    if w < crate::ui::view::MIN_WIDTH || h < crate::ui::view::MIN_HEIGHT {
        let quits = keymap::lookup(keymap::BINDINGS, &ev) == Some(Action::Quit)
            || (ev.code == KeyCode::Char('c') && ev.modifiers.contains(KeyModifiers::CONTROL));
        return if quits { quit(model) } else { Vec::new() };
    }
    if ev.code == KeyCode::Esc && ev.modifiers.contains(KeyModifiers::ALT) {
        // Two Esc bytes read together (tmux's `send-keys Escape Escape`) are two presses.
        let esc = KeyEvent::new(KeyCode::Esc, ev.modifiers - KeyModifiers::ALT);
        let mut effects = on_key(model, esc, snap);
        effects.extend(on_key(model, esc, snap));
        return effects;
    }
    let ev = without_alt(ev);
    let reset_armed = std::mem::take(&mut model.reset_armed);
    let ev = match model.mode {
        Mode::Normal => match model.keys.translate(&ev) {
            Some(ev) => ev,
            None => {
                let text = moved_key_text(&model.keys, &ev);
                model.say(StatusKind::Info, text);
                return Vec::new();
            }
        },
        _ => ev,
    };
    match model.mode {
        Mode::Normal if keymap::lookup(keymap::BINDINGS, &ev) == Some(Action::Reset) => {
            reset(model, reset_armed, snap)
        }
        // The key after a first `R` only answers the question: it does not also act.
        _ if reset_armed => {
            model.say(StatusKind::Info, "restart cancelled: this run goes on (R asks again)");
            Vec::new()
        }
        Mode::Events => match keymap::lookup(keymap::EVENTS_BINDINGS, &ev) {
            Some(action) => event_keys::on_events(model, action, snap),
            None => match keymap::lookup_in(model.view, &ev).filter(|a| leaves_events(*a)) {
                // The view keys, the palette and the help work wherever the keys are: the
                // pane gives them back first.
                Some(action) => {
                    model.mode = Mode::Normal;
                    perform(model, action, snap)
                }
                None => unbound(model, &ev),
            },
        },
        Mode::Prompt(ask) => match keymap::lookup(keymap::PALETTE_BINDINGS, &ev) {
            Some(action) => event_keys::on_prompt(model, ask, action, snap),
            None => {
                if let Some(c) = typed_char(&ev) {
                    model.prompt.insert(c);
                }
                Vec::new()
            }
        },
        // A question closed for a look is still answered by its letters, never by the
        // dashboard's keys on them (`a` cycles acks).
        Mode::Normal => match keymap::lookup(keymap::QUESTION_BINDINGS, &ev) {
            Some(answer @ QuestionAction::Answer(_)) if lesson::answers_hidden(model) => {
                lesson::on_question(model, Some(answer), snap)
            }
            _ => match lesson::on_key(model, &ev, snap) {
                Some(effects) => effects,
                None => match keymap::lookup_in(model.view, &ev) {
                    Some(action) => perform(model, action, snap),
                    None => unbound(model, &ev),
                },
            },
        },
        // Letters a–f answer; the dashboard's other keys work as usual (the question stays;
        // one that would change the cluster is refused, see `update`), but for `q`: no
        // quitting by a slip of the finger while answering.
        Mode::Question => match keymap::lookup(keymap::QUESTION_BINDINGS, &ev) {
            None if keymap::lookup_in(model.view, &ev) != Some(Action::Quit) => {
                match lesson::on_key(model, &ev, snap)
                    .or_else(|| keymap::lookup_in(model.view, &ev).map(|a| perform(model, a, snap)))
                {
                    Some(effects) => lesson::kept_asking(model, effects),
                    None => unbound(model, &ev),
                }
            }
            action => lesson::on_question(model, action, snap),
        },
        Mode::Palette => match keymap::lookup(keymap::PALETTE_BINDINGS, &ev) {
            Some(action) => on_palette(model, action, snap),
            None => {
                if let Some(c) = typed_char(&ev) {
                    model.palette.insert(c);
                }
                Vec::new()
            }
        },
        Mode::Help => match keymap::lookup(keymap::HELP_BINDINGS, &ev) {
            Some(action) => on_help(model, action),
            None => Vec::new(),
        },
        Mode::Readout => match keymap::lookup(keymap::READOUT_BINDINGS, &ev) {
            Some(action) => crate::ui::readout::on_key(model, action, snap),
            None => Vec::new(),
        },
    }
}

/// Whether `action`, bound outside the Events pane, also works while the pane has the keys:
/// switching views, the command palette and the help.
fn leaves_events(action: Action) -> bool {
    use Action::*;
    matches!(
        action,
        NextView
            | PrevView
            | ShowOverview
            | ShowPartition
            | ShowBrokers
            | ShowClients
            | ShowEvents
            | ShowConfig
            | OpenPalette
            | ToggleHelp
    )
}

/// A key the live table does not bind: a short notice (not an error: nothing was refused).
fn unbound(model: &mut Model, ev: &KeyEvent) -> Vec<Effect> {
    if let Some(text) = keymap::unbound_text(ev) {
        model.say(StatusKind::Info, text);
    }
    Vec::new()
}

/// What the old key of a moved action says when pressed.
fn moved_key_text(keys: &keymap::KeyOverrides, ev: &KeyEvent) -> String {
    let action = keymap::lookup(keymap::BINDINGS, ev);
    let moved =
        keys.describe().into_iter().find(|(name, _)| action.is_some_and(|a| keymap::action_name(a) == *name));
    match moved {
        Some((name, key)) => format!("{name} is on {key} now (config.toml [keys])"),
        None => "that key is moved by config.toml [keys]".to_string(),
    }
}

/// A terminal sends Esc and the key after it as two bytes; read together (a quick Esc, then
/// `:`; tmux's `send-keys Escape :`) they arrive as Alt and the key. No table binds Alt, so
/// such a key is taken as the key alone: otherwise a command typed after it would fall
/// through, letter by letter, to the dashboard's keys. The same holds for a function or
/// arrow key after a quick Esc (tmux's `send-keys Escape F5` arrives as Alt-F5, which would
/// otherwise be a key that does nothing).
fn without_alt(mut ev: KeyEvent) -> KeyEvent {
    ev.modifiers.remove(KeyModifiers::ALT);
    ev
}

pub(super) fn typed_char(ev: &KeyEvent) -> Option<char> {
    let plain = !ev.modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
    match ev.code {
        KeyCode::Char(c) if plain && !c.is_control() => Some(c),
        _ => None,
    }
}

pub(super) fn on_help(model: &mut Model, action: HelpAction) -> Vec<Effect> {
    let page = usize::from(model.screen.1.saturating_sub(6)).max(1);
    match action {
        HelpAction::Up => model.help_scroll = model.help_scroll.saturating_sub(1),
        HelpAction::Down => model.help_scroll += 1,
        HelpAction::PageUp => model.help_scroll = model.help_scroll.saturating_sub(page),
        HelpAction::PageDown => model.help_scroll += page,
        HelpAction::Close => model.mode = Mode::Normal,
        HelpAction::Quit => return quit(model),
    }
    model.help_scroll =
        model.help_scroll.min(crate::ui::help::line_count(&model.keys, model.screen.0).saturating_sub(1));
    Vec::new()
}
