//! Key overrides from the user's config file (`[keys]` in `config.toml`): an action of the
//! dashboard table gets another key. The tables stay as they are; a pressed key is translated
//! to the table key of its action before lookup, and the footer and help show the new key.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{Action, BINDINGS, Binding, Key, Resolve};

/// The user's key overrides, in the order the file gave them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeyOverrides {
    moves: Vec<(Action, Key)>,
}

impl KeyOverrides {
    /// Builds the overrides from `(action name, key)` pairs such as `("crash", "X")`. Returns
    /// them with a warning for each pair that names no action or no key; those are skipped.
    pub fn parse<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> (KeyOverrides, Vec<String>) {
        let (mut moves, mut warnings) = (Vec::new(), Vec::new());
        for (name, key) in pairs {
            match (action_by_name(name), parse_key(key)) {
                (None, _) => warnings.push(format!(
                    "[keys] {name}: no such action (one of: {})",
                    action_names().collect::<Vec<_>>().join(", ")
                )),
                (Some(_), None) => warnings
                    .push(format!("[keys] {name} = \"{key}\": not a key (a character, ctrl-C or F1 to F12)")),
                (Some(action), Some(key)) => moves.push((action, key)),
            }
        }
        (KeyOverrides { moves }, warnings)
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    /// The key event the dashboard table should see for `ev`: the table key of the action
    /// `ev` now stands for; `None` when `ev` is the old key of an action that moved (it does
    /// nothing now). Other keys pass unchanged.
    pub fn translate(&self, ev: &KeyEvent) -> Option<KeyEvent> {
        if let Some((action, _)) = self.moves.iter().rev().find(|(_, k)| super::matches(*k, ev)) {
            let key = table_key(*action)?;
            let ctrl = if key.ctrl { KeyModifiers::CONTROL } else { KeyModifiers::NONE };
            return Some(KeyEvent { code: key.code, modifiers: ctrl, kind: ev.kind, state: ev.state });
        }
        let moved = super::lookup(BINDINGS, ev).is_some_and(|a| self.moves.iter().any(|(m, _)| *m == a));
        (!moved).then_some(*ev)
    }

    /// How the keys of binding `b` are written, with the overrides applied: `X` for `x`
    /// moved to `X`, `m/K` for `M` moved to `K`. `None` when no override touches it.
    pub fn label(&self, b: &Binding<Action>) -> Option<String> {
        let count = b.keys.len();
        let action_of = |i: usize| b.action.resolve(i, count, &key_event(b.keys[i]));
        if !(0..count).any(|i| self.key_for(action_of(i)).is_some()) {
            return None;
        }
        let mut shown: Vec<String> = Vec::new();
        for i in 0..count {
            let text = match self.key_for(action_of(i)) {
                Some(key) => key_text(key),
                None => key_text(b.keys[i]),
            };
            if !shown.contains(&text) {
                shown.push(text);
            }
        }
        Some(shown.join("/"))
    }

    /// The overrides as `(action name, key)` lines for the help.
    pub fn describe(&self) -> Vec<(String, String)> {
        self.moves.iter().map(|(a, k)| (action_name(*a), key_text(*k))).collect()
    }

    fn key_for(&self, action: Action) -> Option<Key> {
        self.moves.iter().rev().find(|(a, _)| *a == action).map(|(_, k)| *k)
    }
}

/// An action's name in the config file: its name in words with dashes, e.g. `crash`,
/// `min-isr-up`, `toggle-pause`.
pub fn action_name(action: Action) -> String {
    let debug = format!("{action:?}");
    let mut out = String::new();
    for (i, c) in debug.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('-');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Every action a key can be moved to, with its table key: each half of a paired binding.
/// Broker selection by digit is not movable.
fn movable() -> impl Iterator<Item = (Action, Key)> {
    BINDINGS.iter().flat_map(movable_keys)
}

/// The actions of binding `b` a `[keys]` entry can move, each with its table key, in key
/// order; none for broker selection by digit.
fn movable_keys(b: &Binding<Action>) -> impl Iterator<Item = (Action, Key)> + '_ {
    let count = if matches!(b.action, Action::SelectBroker(_)) { 0 } else { b.keys.len() };
    (0..count).map(move |i| (b.action.resolve(i, count, &key_event(b.keys[i])), b.keys[i]))
}

/// The names `config.toml [keys]` knows binding `b`'s actions by, each once, in key order:
/// `["min-isr-down", "min-isr-up"]` for `m/M`; empty for broker selection by digit, which
/// cannot move.
pub fn config_names(b: &Binding<Action>) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (action, _) in movable_keys(b) {
        let name = action_name(action);
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

fn action_names() -> impl Iterator<Item = String> {
    let mut names: Vec<String> = Vec::new();
    for name in BINDINGS.iter().flat_map(config_names) {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names.into_iter()
}

fn action_by_name(name: &str) -> Option<Action> {
    movable().map(|(a, _)| a).find(|a| action_name(*a).eq_ignore_ascii_case(name.trim()))
}

fn table_key(action: Action) -> Option<Key> {
    movable().find(|(a, _)| *a == action).map(|(_, k)| k)
}

fn key_event(key: Key) -> KeyEvent {
    let modifiers = if key.ctrl { KeyModifiers::CONTROL } else { KeyModifiers::NONE };
    KeyEvent::new(key.code, modifiers)
}

/// Parses `X`, `ctrl-x` (or `C-x`) and `F1` to `F12`.
fn parse_key(text: &str) -> Option<Key> {
    let lower = text.to_ascii_lowercase();
    let ctrl = ["ctrl-", "ctrl+", "c-"].iter().find_map(|p| lower.strip_prefix(p));
    if let Some(rest) = ctrl {
        let mut chars = rest.chars();
        return match (chars.next(), chars.next()) {
            (Some(c), None) if c.is_ascii_alphabetic() => Some(Key { code: KeyCode::Char(c), ctrl: true }),
            _ => None,
        };
    }
    if let Some(n) = lower.strip_prefix('f').and_then(|n| n.parse::<u8>().ok()) {
        return (1..=12).contains(&n).then_some(Key { code: KeyCode::F(n), ctrl: false });
    }
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if !c.is_control() && !c.is_ascii_digit() => {
            Some(Key { code: KeyCode::Char(c), ctrl: false })
        }
        _ => None,
    }
}

/// How a key is written: `x`, `space`, `F7`, `Ctrl-U` (the config file's spelling).
pub fn key_text(key: Key) -> String {
    let base = match key.code {
        KeyCode::Char(' ') => "space".to_string(),
        KeyCode::Char(c) => c.to_string(),
        KeyCode::F(n) => format!("F{n}"),
        other => format!("{other:?}"),
    };
    if key.ctrl { format!("Ctrl-{}", base.to_ascii_uppercase()) } else { base }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
    }

    #[test]
    fn a_moved_action_answers_its_new_key_and_not_its_old_one() {
        let (o, warnings) = KeyOverrides::parse([("crash", "X")]);
        assert!(warnings.is_empty(), "{warnings:?}");
        let new = o.translate(&press('X')).expect("X now crashes");
        assert_eq!(super::super::lookup(BINDINGS, &new), Some(Action::Crash));
        assert_eq!(o.translate(&press('x')), None);
        assert_eq!(o.translate(&press('r')), Some(press('r')));
    }

    #[test]
    fn the_next_producer_key_can_move() {
        let (o, warnings) = KeyOverrides::parse([("next-producer", "w")]);
        assert!(warnings.is_empty(), "{warnings:?}");
        let new = o.translate(&press('w')).expect("w now selects the next producer");
        assert_eq!(super::super::lookup(BINDINGS, &new), Some(Action::NextProducer));
        assert_eq!(o.translate(&press('P')), None);
        let b = BINDINGS.iter().find(|b| b.action == Action::NextProducer).unwrap();
        assert_eq!(o.label(b).as_deref(), Some("w"));
    }

    #[test]
    fn one_half_of_a_pair_moves_alone() {
        let (o, _) = KeyOverrides::parse([("min-isr-up", "K")]);
        let new = o.translate(&press('K')).unwrap();
        assert_eq!(super::super::lookup(BINDINGS, &new), Some(Action::MinIsrUp));
        assert_eq!(o.translate(&press('M')), None);
        assert_eq!(o.translate(&press('m')), Some(press('m')));
        let b = BINDINGS.iter().find(|b| b.action == Action::MinIsrDown).unwrap();
        assert_eq!(o.label(b).as_deref(), Some("m/K"));
    }

    #[test]
    fn bad_entries_are_warnings_and_the_good_ones_still_apply() {
        let (o, warnings) = KeyOverrides::parse([("explode", "E"), ("crash", "ab"), ("restart", "F5")]);
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].contains("no such action") && warnings[0].contains("crash"));
        assert!(warnings[1].contains("not a key"));
        let f5 = o.translate(&KeyEvent::new(KeyCode::F(5), KeyModifiers::NONE)).unwrap();
        assert_eq!(super::super::lookup(BINDINGS, &f5), Some(Action::Restart));
    }

    /// The big-cluster keys can be moved like any other, each half of `←`/`→` alone.
    #[test]
    fn the_table_filter_and_broker_keys_can_move() {
        let (o, warnings) = KeyOverrides::parse([
            ("toggle-unhealthy", "X"),
            ("next-broker", "F7"),
            ("pick-broker", "ctrl-b"),
        ]);
        assert!(warnings.is_empty(), "{warnings:?}");
        let x = o.translate(&press('X')).unwrap();
        assert_eq!(super::super::lookup(BINDINGS, &x), Some(Action::ToggleUnhealthy));
        let f7 = o.translate(&KeyEvent::new(KeyCode::F(7), KeyModifiers::NONE)).unwrap();
        assert_eq!(super::super::lookup(BINDINGS, &f7), Some(Action::NextBroker));
        assert_eq!(o.translate(&press('U')), None, "the old key does nothing now");
        let left = KeyEvent::new(KeyCode::Left, KeyModifiers::NONE);
        assert_eq!(o.translate(&left), Some(left), "the other half stays");
        for name in ["toggle-internal", "filter-partitions", "filter-selected-broker", "previous-broker"] {
            assert!(action_by_name(name).is_some(), "{name}");
        }
    }

    #[test]
    fn the_view_keys_move_like_the_others() {
        let (o, warnings) = KeyOverrides::parse([("show-brokers", "B"), ("prev-view", "ctrl-p")]);
        assert!(warnings.is_empty(), "{warnings:?}");
        let b = o.translate(&press('B')).unwrap();
        assert_eq!(super::super::lookup(BINDINGS, &b), Some(Action::ShowBrokers));
        let ctrl_p = KeyEvent::new(KeyCode::Char('p'), KeyModifiers::CONTROL);
        let back = o.translate(&ctrl_p).unwrap();
        assert_eq!(super::super::lookup(BINDINGS, &back), Some(Action::PrevView));
        assert_eq!(o.translate(&KeyEvent::new(KeyCode::F(3), KeyModifiers::NONE)), None, "F3 moved away");
    }

    #[test]
    fn names_are_words_with_dashes() {
        assert_eq!(action_name(Action::Crash), "crash");
        assert_eq!(action_name(Action::MinIsrUp), "min-isr-up");
        assert!(action_by_name("Toggle-Pause").is_some());
    }
}
