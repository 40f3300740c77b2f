//! The keys of the panes that take the keys from the dashboard for a while: the event log
//! (after `e` or `/`), the command palette (`:`), the help (`?`) and the describe / get pane.
//! Like every table they drive dispatch, the footer and the help at once.

use crossterm::event::KeyCode;

use super::{Binding, EventsAction, HelpAction, PaletteAction, ch, code, ctrl};

/// The Events pane's keys (while it has them).
pub static EVENTS_BINDINGS: &[Binding<EventsAction>] = &[
    Binding {
        keys: &[code(KeyCode::Esc), ch('e')],
        label: "Esc",
        footer: Some("back"),
        help: "give the keys back to the dashboard",
        action: EventsAction::Back,
    },
    Binding {
        keys: &[code(KeyCode::PageUp), code(KeyCode::PageDown)],
        label: "PgUp/PgDn",
        footer: Some("page"),
        help: "one page of events back (older) / forward (newer)",
        action: EventsAction::PageOlder,
    },
    Binding {
        keys: &[ch('/')],
        label: "/",
        footer: Some("search"),
        help: "search the text (any case); the newest hit goes to the bottom",
        action: EventsAction::Search,
    },
    Binding {
        keys: &[ch('n'), ch('N')],
        label: "n/N",
        footer: Some("older/newer hit"),
        help: "the next older / newer event holding the search text",
        action: EventsAction::OlderHit,
    },
    Binding {
        keys: &[ch('g')],
        label: "g",
        footer: Some("go to time"),
        help: "show the events up to a sim time, e.g. 12.5s, 1.5m, 800ms",
        action: EventsAction::GoToTime,
    },
    Binding {
        keys: &[ch('F')],
        label: "F",
        footer: Some("filter"),
        help: "filter: a kind, partition/topic, broker, producer, consumer",
        action: EventsAction::Filter,
    },
    Binding {
        keys: &[ch('f')],
        label: "f",
        footer: Some("important"),
        help: "important only (loss, elections, ISR, fencing, faults) or all",
        action: EventsAction::ToggleImportant,
    },
    Binding {
        keys: &[ch('c')],
        label: "c",
        footer: Some("clear"),
        help: "clear the filter, important-only and the search",
        action: EventsAction::ClearFilter,
    },
    Binding {
        keys: &[code(KeyCode::Up), ch('k'), code(KeyCode::Down), ch('j')],
        label: "↑/↓",
        footer: None,
        help: "one event back / forward",
        action: EventsAction::Older,
    },
    Binding {
        keys: &[code(KeyCode::Home)],
        label: "Home",
        footer: None,
        help: "the oldest event kept",
        action: EventsAction::Oldest,
    },
    Binding {
        keys: &[code(KeyCode::End), ch('G'), ch('}')],
        label: "End/G/}",
        footer: None,
        help: "follow the newest events",
        action: EventsAction::Newest,
    },
    Binding {
        keys: &[ch(' ')],
        label: "space",
        footer: None,
        help: "pause or resume sim time",
        action: EventsAction::TogglePause,
    },
    Binding {
        keys: &[ch('q'), ctrl('c')],
        label: "q/Ctrl-C",
        footer: None,
        help: "quit isrlab",
        action: EventsAction::Quit,
    },
];

/// The palette's keys.
pub static PALETTE_BINDINGS: &[Binding<PaletteAction>] = &[
    Binding {
        keys: &[code(KeyCode::Enter)],
        label: "Enter",
        footer: Some("run"),
        help: "parse the line and apply it",
        action: PaletteAction::Submit,
    },
    Binding {
        keys: &[code(KeyCode::Esc)],
        label: "Esc",
        footer: Some("cancel"),
        help: "close the palette",
        action: PaletteAction::Cancel,
    },
    Binding {
        keys: &[code(KeyCode::Up), code(KeyCode::Down)],
        label: "↑/↓",
        footer: Some("history"),
        help: "previous/next command",
        action: PaletteAction::HistoryPrev,
    },
    Binding {
        keys: &[code(KeyCode::Left), code(KeyCode::Right)],
        label: "←/→",
        footer: Some("move"),
        help: "move the cursor",
        action: PaletteAction::Left,
    },
    Binding {
        keys: &[code(KeyCode::Home), ctrl('a')],
        label: "Home",
        footer: None,
        help: "cursor to the start",
        action: PaletteAction::Home,
    },
    Binding {
        keys: &[code(KeyCode::End), ctrl('e')],
        label: "End",
        footer: None,
        help: "cursor to the end",
        action: PaletteAction::End,
    },
    Binding {
        keys: &[code(KeyCode::Backspace)],
        label: "Bksp",
        footer: None,
        help: "delete before the cursor",
        action: PaletteAction::Backspace,
    },
    Binding {
        keys: &[code(KeyCode::Delete)],
        label: "Del",
        footer: None,
        help: "delete under the cursor",
        action: PaletteAction::Delete,
    },
    Binding {
        keys: &[ctrl('u')],
        label: "Ctrl-U",
        footer: Some("clear"),
        help: "clear the line",
        action: PaletteAction::Clear,
    },
    Binding {
        keys: &[ctrl('c')],
        label: "Ctrl-C",
        footer: None,
        help: "quit isrlab",
        action: PaletteAction::Quit,
    },
];

/// The help overlay's keys.
pub static HELP_BINDINGS: &[Binding<HelpAction>] = &[
    Binding {
        keys: &[code(KeyCode::Esc), ch('?')],
        label: "Esc/?",
        footer: Some("close"),
        help: "close the help",
        action: HelpAction::Close,
    },
    Binding {
        keys: &[code(KeyCode::Up), ch('k'), code(KeyCode::Down), ch('j')],
        label: "↑/↓",
        footer: Some("scroll"),
        help: "scroll the help",
        action: HelpAction::Up,
    },
    Binding {
        keys: &[code(KeyCode::PageUp), code(KeyCode::PageDown)],
        label: "PgUp/PgDn",
        footer: Some("page"),
        help: "scroll the help a page",
        action: HelpAction::PageUp,
    },
    Binding {
        keys: &[ch('q'), ctrl('c')],
        label: "q/Ctrl-C",
        footer: Some("quit"),
        help: "quit isrlab",
        action: HelpAction::Quit,
    },
];

/// The help's title over [`READOUT_BINDINGS`].
pub const READOUT_TITLE: &str = "In the describe / get pane";

/// The keys of the pane `:describe` and `:get` open ([`super::readout`]): the help's
/// actions, on the keys that read naturally there.
pub static READOUT_BINDINGS: &[Binding<HelpAction>] = &[
    Binding {
        keys: &[code(KeyCode::Esc)],
        label: "Esc",
        footer: Some("close"),
        help: "close the pane",
        action: HelpAction::Close,
    },
    Binding {
        keys: &[code(KeyCode::Up), ch('k'), code(KeyCode::Down), ch('j')],
        label: "↑/↓",
        footer: Some("scroll"),
        help: "scroll the pane",
        action: HelpAction::Up,
    },
    Binding {
        keys: &[code(KeyCode::PageUp), code(KeyCode::PageDown)],
        label: "PgUp/PgDn",
        footer: Some("page"),
        help: "scroll the pane a page",
        action: HelpAction::PageUp,
    },
    Binding {
        keys: &[ch('q'), ctrl('c')],
        label: "q/Ctrl-C",
        footer: Some("quit"),
        help: "quit isrlab",
        action: HelpAction::Quit,
    },
];
