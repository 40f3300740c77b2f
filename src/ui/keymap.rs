//! The key tables. Each mode of the dashboard has exactly one table of [`Binding`]s, and that
//! table drives three things at once: dispatch ([`lookup`]), the footer hints
//! ([`footer_hints`]) and the `?` help overlay. A key that is not in a table does nothing, and
//! a key in a table can never be missing from the help.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::sim::BrokerId;
use crate::ui::app::View;

mod lesson;
mod overlays;
mod overrides;
pub use lesson::{
    LESSON_BINDINGS, LESSON_TITLE, LessonAction, QUESTION_BINDINGS, QUESTION_TITLE, QuestionAction,
};
pub use overlays::{EVENTS_BINDINGS, HELP_BINDINGS, PALETTE_BINDINGS, READOUT_BINDINGS, READOUT_TITLE};
pub use overrides::{KeyOverrides, action_name, config_names, key_text};

/// What a key asks for in the normal (dashboard) mode.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Action {
    /// Select a broker by id; the table holds a placeholder id, the digit typed decides.
    SelectBroker(BrokerId),
    /// `crash B` for the selected broker.
    Crash,
    /// `shutdown B` (controlled shutdown) for the selected broker.
    Shutdown,
    /// `restart B` for the selected broker.
    Restart,
    /// `pause-fetch B` or `resume-fetch B` for the selected broker.
    ToggleFetch,
    /// Select the partition above.
    PartitionUp,
    /// Select the partition below.
    PartitionDown,
    /// Move the selection one page up.
    PartitionPageUp,
    /// Move the selection one page down.
    PartitionPageDown,
    /// Select the first partition.
    PartitionFirst,
    /// Select the last partition.
    PartitionLast,
    /// `set producer [P] acks=…` for the selected producer, cycling 0 → 1 → all.
    CycleAcks,
    /// Select the next producer (the target of `a` and `-`/`+`), wrapping around.
    NextProducer,
    /// Lower `min.insync.replicas` of the selected partition's topic.
    MinIsrDown,
    /// Raise `min.insync.replicas` of the selected partition's topic.
    MinIsrUp,
    /// Flip `unclean.leader.election.enable` of the selected partition's topic.
    ToggleUnclean,
    /// Lower `replica.lag.time.max.ms` one step.
    LagLimitDown,
    /// Raise `replica.lag.time.max.ms` one step.
    LagLimitUp,
    /// Lower the selected producer's rate one step.
    RateDown,
    /// Raise the selected producer's rate one step.
    RateUp,
    /// Pause or resume sim time.
    TogglePause,
    /// Advance sim time by one step while paused.
    Step,
    /// Run sim time to the next event and pause there (pausing first if running).
    NextEvent,
    /// Slow sim time down one step.
    SpeedDown,
    /// Speed sim time up one step.
    SpeedUp,
    /// Scroll the Events pane back one event (older).
    EventsOlder,
    /// Scroll the Events pane forward one event (newer); reaching the newest follows again.
    EventsNewer,
    /// Follow the newest events again.
    EventsFollow,
    /// Show only the important events (loss, elections, ISR changes, faults) or all.
    ToggleImportant,
    /// Give the keys to the Events pane: paging, search, filter, a jump to a sim time.
    FocusEvents,
    /// Search the events' text (gives the keys to the Events pane).
    SearchEvents,
    /// Type the Events pane's filter (`F` in the events view, see [`VIEW_BINDINGS`]).
    FilterEvents,
    /// Restart the same cluster, seed and startup settings from time 0 (asks first).
    Reset,
    /// Write the session's recording (a scenario file): to the `--record` file, else to
    /// `isrlab-seed-SEED.toml` in the working directory.
    SaveRecording,
    /// Show or hide the timeline strip ([`crate::ui::tape`]).
    ToggleTape,
    /// Move the tape's cursor to the tick before it (shows the strip).
    TapeBack,
    /// Move the tape's cursor to the tick after it (shows the strip).
    TapeForward,
    /// Take the cluster to the tape cursor's instant, paused there.
    TapeGo,
    /// Start a what-if (opens the palette on `whatif `), or, while one is on, show the other
    /// run ([`crate::ui::whatif`]).
    WhatIf,
    /// Leave the what-if, going on with the run shown.
    LeaveWhatIf,
    /// Open the command palette.
    OpenPalette,
    /// Show the help overlay.
    ToggleHelp,
    /// Leave the dashboard.
    Quit,
    // Big clusters: the table's filters and broker selection beyond the digits.
    /// Show only the partitions whose state is not `ok`, or all again.
    ToggleUnhealthy,
    /// Show or hide Kafka's internal topics (`__consumer_offsets`; hidden at start).
    ToggleInternal,
    /// Type the table's filter: unhealthy, topic, broker, text.
    FilterPartitions,
    /// Show only the partitions with a replica on the selected broker, or all again.
    FilterSelectedBroker,
    /// Select the broker before the selected one (in id order, wrapping around).
    PreviousBroker,
    /// Select the broker after the selected one (in id order, wrapping around).
    NextBroker,
    /// Type a broker id to select (any id, not only 0–9).
    PickBroker,
    /// Show the next view (overview → partition → brokers → clients → events → config).
    NextView,
    /// Show the previous view.
    PrevView,
    /// Show the overview (every pane at once).
    ShowOverview,
    /// Show the selected partition in full: log strips, why panel, its charts, events.
    ShowPartition,
    /// Show the broker view: leaderships, fetchers, heartbeats and fencing, links.
    ShowBrokers,
    /// Show the clients view: producers, consumers, their charts.
    ShowClients,
    /// Show the event log on the whole screen.
    ShowEvents,
    /// Show the config view: every property with its value, default and scope.
    ShowConfig,
    /// In the config view: edit the selected property (a `set` line in the palette).
    EditConfig,
}

/// Where a dashboard key is listed in the help, in the help's order.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Group {
    /// Pause, step, speed.
    Time,
    /// Select, crash, stop, restart, pause fetching.
    Brokers,
    /// Move the partition selection.
    Partitions,
    /// Durability settings and the producer rate.
    Settings,
    /// Scroll and filter the Events pane.
    Events,
    /// Open the command palette.
    Palette,
    /// Help and quit.
    Quit,
    /// Switch views; the keys of the broker and config views.
    Views,
}

impl Group {
    /// Every group, in help order.
    pub const ALL: [Group; 8] = [
        Group::Views,
        Group::Time,
        Group::Brokers,
        Group::Partitions,
        Group::Settings,
        Group::Events,
        Group::Palette,
        Group::Quit,
    ];

    /// The section's name, e.g. `Brokers`.
    pub fn name(self) -> &'static str {
        match self {
            Group::Time => "Sim time",
            Group::Brokers => "Brokers",
            Group::Partitions => "Partitions",
            Group::Settings => "Settings",
            Group::Events => "Events pane",
            Group::Palette => "Command palette",
            Group::Quit => "Help and quit",
            Group::Views => "Views",
        }
    }

    /// What the section's keys act on, when the name alone does not say.
    pub fn note(self) -> Option<&'static str> {
        match self {
            Group::Brokers => Some("keys act on the selected broker ▸"),
            Group::Settings => Some(
                "acks and rate act on the selected producer ▸, min.insync and unclean on the selected partition's topic",
            ),
            Group::Views => Some("the header names the one shown"),
            Group::Time | Group::Partitions | Group::Events | Group::Palette | Group::Quit => None,
        }
    }

    /// The help's section title: the name, then the note in brackets.
    pub fn title(self) -> String {
        match self.note() {
            Some(note) => format!("{} ({note})", self.name()),
            None => self.name().to_string(),
        }
    }
}

/// The help's title over [`EVENTS_BINDINGS`].
pub const EVENTS_TITLE: &str = "In the event log (after e or /)";
/// The help's title over [`PALETTE_BINDINGS`].
pub const PALETTE_TITLE: &str = "In the palette";
/// The help's title over [`HELP_BINDINGS`].
pub const HELP_TITLE: &str = "In this help";

impl Action {
    /// The help section the action is listed in.
    pub fn group(self) -> Group {
        use Action::*;
        match self {
            TogglePause | Step | NextEvent | SpeedDown | SpeedUp => Group::Time,
            SelectBroker(_) | Crash | Shutdown | Restart | ToggleFetch => Group::Brokers,
            PreviousBroker | NextBroker | PickBroker => Group::Brokers,
            PartitionUp | PartitionDown | PartitionPageUp | PartitionPageDown | PartitionFirst
            | PartitionLast => Group::Partitions,
            ToggleUnhealthy | ToggleInternal | FilterPartitions | FilterSelectedBroker => Group::Partitions,
            CycleAcks | NextProducer | MinIsrDown | MinIsrUp | ToggleUnclean | LagLimitDown | LagLimitUp
            | RateDown | RateUp => Group::Settings,
            EventsOlder | EventsNewer | EventsFollow | ToggleImportant | FocusEvents | SearchEvents
            | FilterEvents => Group::Events,
            Reset | SaveRecording | ToggleTape | TapeBack | TapeForward | TapeGo | WhatIf | LeaveWhatIf => {
                Group::Time
            }
            OpenPalette => Group::Palette,
            ToggleHelp | Quit => Group::Quit,
            NextView | PrevView | ShowOverview | ShowPartition | ShowBrokers | ShowClients | ShowEvents
            | ShowConfig | EditConfig => Group::Views,
        }
    }
}

/// What a key asks for while the Events pane has the keys (after `e` or `/`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum EventsAction {
    /// One event back (older).
    Older,
    /// One event forward (newer).
    Newer,
    /// One page back.
    PageOlder,
    /// One page forward.
    PageNewer,
    /// The oldest event kept.
    Oldest,
    /// Follow the newest events.
    Newest,
    /// Type a text to search for.
    Search,
    /// The next older event holding the search text.
    OlderHit,
    /// The next newer event holding the search text.
    NewerHit,
    /// Type a sim time to show the events of.
    GoToTime,
    /// Type a filter: kind, partition, broker, client.
    Filter,
    /// Important events only, or all.
    ToggleImportant,
    /// Clear the filter, the important-only switch and the search.
    ClearFilter,
    /// Pause or resume sim time.
    TogglePause,
    /// Give the keys back to the dashboard.
    Back,
    /// Leave the dashboard.
    Quit,
}

/// What a key asks for while the command palette is open. Printable characters that are not
/// in the table are typed into the line.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PaletteAction {
    /// Parse the line and apply it.
    Submit,
    /// Close the palette without running anything.
    Cancel,
    /// Recall the previous command from the history.
    HistoryPrev,
    /// Recall the next command from the history.
    HistoryNext,
    /// Move the cursor left.
    Left,
    /// Move the cursor right.
    Right,
    /// Move the cursor to the start.
    Home,
    /// Move the cursor to the end.
    End,
    /// Delete the character before the cursor.
    Backspace,
    /// Delete the character under the cursor.
    Delete,
    /// Clear the whole line.
    Clear,
    /// Leave the dashboard (Ctrl-C).
    Quit,
}

/// What a key asks for while the help overlay is open.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum HelpAction {
    /// Scroll up one line.
    Up,
    /// Scroll down one line.
    Down,
    /// Scroll up one page.
    PageUp,
    /// Scroll down one page.
    PageDown,
    /// Close the overlay.
    Close,
    /// Leave the dashboard.
    Quit,
}

/// One physical key: a key code, with or without Ctrl. Shift is part of the character
/// (`M`, `>`), so it is not matched separately.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Key {
    /// The key code.
    pub code: KeyCode,
    /// Whether Ctrl must be held.
    pub ctrl: bool,
}

const fn ch(c: char) -> Key {
    Key { code: KeyCode::Char(c), ctrl: false }
}

const fn code(code: KeyCode) -> Key {
    Key { code, ctrl: false }
}

const fn ctrl(c: char) -> Key {
    Key { code: KeyCode::Char(c), ctrl: true }
}

/// One row of a key table.
#[derive(Debug)]
pub struct Binding<A: 'static> {
    /// The keys that trigger it. For an action that comes in a pair (down/up, prev/next)
    /// the first half of the keys gives the action and the second half its partner.
    pub keys: &'static [Key],
    /// How the keys are written in the footer and the help, e.g. `m/M`.
    pub label: &'static str,
    /// Short footer text; `None` keeps the binding out of the footer (it stays in the help).
    pub footer: Option<&'static str>,
    /// One-line explanation for the help overlay.
    pub help: &'static str,
    /// What it does.
    pub action: A,
}

const DIGITS: &[Key] =
    &[ch('0'), ch('1'), ch('2'), ch('3'), ch('4'), ch('5'), ch('6'), ch('7'), ch('8'), ch('9')];

/// The dashboard's keys, in footer order (the footer drops entries from the end when the
/// terminal is narrow).
pub static BINDINGS: &[Binding<Action>] = &[
    Binding {
        keys: &[ch('?')],
        label: "?",
        footer: Some("help"),
        help: "show this help",
        action: Action::ToggleHelp,
    },
    Binding {
        keys: &[ch(' ')],
        label: "space",
        footer: Some("pause"),
        help: "pause or resume sim time",
        action: Action::TogglePause,
    },
    Binding {
        keys: &[ch('x')],
        label: "x",
        footer: Some("crash"),
        help: "crash the selected broker (kill -9; its log stays on disk)",
        action: Action::Crash,
    },
    Binding {
        keys: &[ch('r')],
        label: "r",
        footer: Some("restart"),
        help: "restart the selected broker",
        action: Action::Restart,
    },
    Binding {
        keys: &[ch('a')],
        label: "a",
        footer: Some("acks"),
        help: "cycle the selected producer's acks: 0 → 1 → all",
        action: Action::CycleAcks,
    },
    Binding {
        keys: &[ch('m'), ch('M')],
        label: "m/M",
        footer: Some("min.isr"),
        help: "min.insync.replicas down/up (selected topic)",
        action: Action::MinIsrDown,
    },
    Binding {
        keys: &[ch(':')],
        label: ":",
        footer: Some("command"),
        help: "open the command palette",
        action: Action::OpenPalette,
    },
    Binding { keys: &[ch('q')], label: "q", footer: Some("quit"), help: "quit", action: Action::Quit },
    Binding {
        keys: &[ch('n')],
        label: "n",
        footer: Some("next event"),
        help: "run to the next event, pause there (pauses first if running)",
        action: Action::NextEvent,
    },
    Binding {
        keys: &[ch('u')],
        label: "u",
        footer: Some("unclean"),
        help: "unclean.leader.election.enable on/off (selected topic)",
        action: Action::ToggleUnclean,
    },
    Binding {
        keys: &[ch('-'), ch('_'), ch('+'), ch('=')],
        label: "-/+",
        footer: Some("rate"),
        help: "the selected producer's rate down/up (records per second)",
        action: Action::RateDown,
    },
    Binding {
        keys: &[ch('s')],
        label: "s",
        footer: Some("shutdown"),
        help: "controlled shutdown of the selected broker",
        action: Action::Shutdown,
    },
    Binding {
        keys: DIGITS,
        label: "0-9",
        footer: Some("broker"),
        help: "select a broker by id",
        action: Action::SelectBroker(0),
    },
    Binding {
        keys: &[ch('e')],
        label: "e",
        footer: Some("event log"),
        help: "the events take the keys: page, search, filter, go to a time",
        action: Action::FocusEvents,
    },
    Binding {
        keys: &[ch('/')],
        label: "/",
        footer: Some("search events"),
        help: "search the events' text (then n/N: older/newer hit)",
        action: Action::SearchEvents,
    },
    // Big clusters: the table's filters and broker selection beyond the digits.
    Binding {
        keys: &[ch('U')],
        label: "U",
        footer: Some("unhealthy"),
        help: "table: only the partitions whose state is not ok, or all",
        action: Action::ToggleUnhealthy,
    },
    Binding {
        keys: &[ch('F')],
        label: "F",
        footer: Some("filter"),
        help: "table: filter by unhealthy, topic T, broker B or a text (then Enter)",
        action: Action::FilterPartitions,
    },
    Binding {
        keys: &[code(KeyCode::Left), code(KeyCode::Right)],
        label: "←/→",
        footer: Some("prev/next broker"),
        help: "select the previous / next broker (any id)",
        action: Action::PreviousBroker,
    },
    Binding {
        keys: &[ch('b')],
        label: "b",
        footer: None,
        help: "select a broker by typing its id (then Enter)",
        action: Action::PickBroker,
    },
    Binding {
        keys: &[ch('B')],
        label: "B",
        footer: None,
        help: "table: only the partitions with a replica on the selected broker, or all",
        action: Action::FilterSelectedBroker,
    },
    Binding {
        keys: &[ch('i')],
        label: "i",
        footer: None,
        help: "table: show / hide the internal topics (__consumer_offsets; hidden at start)",
        action: Action::ToggleInternal,
    },
    Binding {
        keys: &[ch('R')],
        label: "R",
        footer: None,
        help: "restart from 0, same seed and startup settings (press twice)",
        action: Action::Reset,
    },
    Binding {
        keys: &[ch('w')],
        label: "w",
        footer: None,
        help: "write the session's recording, a scenario file (to --record FILE, else isrlab-seed-SEED.toml); :save FILE names one",
        action: Action::SaveRecording,
    },
    Binding {
        keys: &[ch('t')],
        label: "t",
        footer: None,
        help: "show / hide the timeline strip: epochs, crashes, elections, ISR changes, losses, commands",
        action: Action::ToggleTape,
    },
    Binding {
        keys: &[ch('('), ch(')')],
        label: "(/)",
        footer: None,
        help: "timeline: cursor to the tick before / after (a command's tick: just before it)",
        action: Action::TapeBack,
    },
    Binding {
        keys: &[ch('T')],
        label: "T",
        footer: None,
        help: "timeline: go to the cursor, paused (a command then starts a branch; :branches, :branch N)",
        action: Action::TapeGo,
    },
    Binding {
        keys: &[ch('v')],
        label: "v",
        footer: None,
        help: "what-if: fork the present with one setting changed (:whatif PROPERTY=VALUE); while on, show the other run",
        action: Action::WhatIf,
    },
    Binding {
        keys: &[ch('V')],
        label: "V",
        footer: None,
        help: "leave the what-if, going on with the run shown (the other stays a branch when the what-if is kept)",
        action: Action::LeaveWhatIf,
    },
    Binding {
        keys: &[ch('['), ch(']')],
        label: "[/]",
        footer: Some("events"),
        help: "scroll the events back (older) / forward (newer); the view holds while new ones arrive",
        action: Action::EventsOlder,
    },
    Binding {
        keys: &[ch('}')],
        label: "}",
        footer: None,
        help: "events: follow the newest again",
        action: Action::EventsFollow,
    },
    Binding {
        keys: &[ch('f')],
        label: "f",
        footer: Some("important"),
        help: "events: important only (loss, elections, ISR, fencing, faults) or all",
        action: Action::ToggleImportant,
    },
    Binding {
        keys: &[ch('P')],
        label: "P",
        footer: Some("next producer"),
        help: "select the next producer (a and -/+ act on it)",
        action: Action::NextProducer,
    },
    Binding {
        keys: &[code(KeyCode::Up), ch('k')],
        label: "↑/k",
        footer: None,
        help: "select the partition above",
        action: Action::PartitionUp,
    },
    Binding {
        keys: &[code(KeyCode::Down), ch('j')],
        label: "↓/j",
        footer: None,
        help: "select the partition below",
        action: Action::PartitionDown,
    },
    Binding {
        keys: &[code(KeyCode::PageUp)],
        label: "PgUp",
        footer: None,
        help: "partitions: one page up",
        action: Action::PartitionPageUp,
    },
    Binding {
        keys: &[code(KeyCode::PageDown)],
        label: "PgDn",
        footer: None,
        help: "partitions: one page down",
        action: Action::PartitionPageDown,
    },
    Binding {
        keys: &[code(KeyCode::Home), ch('g')],
        label: "g/Home",
        footer: None,
        help: "select the first partition",
        action: Action::PartitionFirst,
    },
    Binding {
        keys: &[code(KeyCode::End), ch('G')],
        label: "G/End",
        footer: None,
        help: "select the last partition",
        action: Action::PartitionLast,
    },
    Binding {
        keys: &[ch('p')],
        label: "p",
        footer: None,
        help: "pause or resume its fetching (it keeps heartbeating)",
        action: Action::ToggleFetch,
    },
    Binding {
        keys: &[ch('l'), ch('L')],
        label: "l/L",
        footer: None,
        help: "replica.lag.time.max.ms down/up (static: restart pending until :roll)",
        action: Action::LagLimitDown,
    },
    Binding {
        keys: &[ch('.')],
        label: ".",
        footer: None,
        help: "while paused: advance sim time by 100 ms",
        action: Action::Step,
    },
    Binding {
        keys: &[ch('<'), ch('>')],
        label: "</>",
        footer: None,
        help: "sim speed down/up (0.01× to 100×)",
        action: Action::SpeedDown,
    },
    Binding {
        keys: &[ctrl('c')],
        label: "Ctrl-C",
        footer: None,
        help: "quit, from anywhere (also in the palette and in this help)",
        action: Action::Quit,
    },
    // Views: F1–F6 name one each (digits select brokers), Tab / Shift-Tab go round.
    Binding {
        keys: &[code(KeyCode::Tab), code(KeyCode::BackTab)],
        label: "Tab/S-Tab",
        footer: Some("view"),
        help: "next / previous view: overview, partition, brokers, clients, events, config",
        action: Action::NextView,
    },
    Binding {
        keys: &[code(KeyCode::F(1))],
        label: "F1",
        footer: None,
        help: "overview: every pane at once",
        action: Action::ShowOverview,
    },
    Binding {
        keys: &[code(KeyCode::F(2))],
        label: "F2",
        footer: None,
        help: "partition: the selected partition's log strips, why panel, charts and events",
        action: Action::ShowPartition,
    },
    Binding {
        keys: &[code(KeyCode::F(3))],
        label: "F3",
        footer: None,
        help: "brokers: leaderships, fetchers, heartbeat and fencing, links (↑/↓ select)",
        action: Action::ShowBrokers,
    },
    Binding {
        keys: &[code(KeyCode::F(4))],
        label: "F4",
        footer: None,
        help: "clients: producers and consumers in full, with their charts",
        action: Action::ShowClients,
    },
    Binding {
        keys: &[code(KeyCode::F(5))],
        label: "F5",
        footer: None,
        help: "events: the event log on the whole screen (e gives it the keys)",
        action: Action::ShowEvents,
    },
    Binding {
        keys: &[code(KeyCode::F(6))],
        label: "F6",
        footer: None,
        help: "config: every property, value, default, scope (↑/↓ select, / filter)",
        action: Action::ShowConfig,
    },
    Binding {
        keys: &[code(KeyCode::Enter)],
        label: "Enter",
        footer: None,
        help: "config view: edit the selected value in its row (Enter applies as the palette would, Esc cancels)",
        action: Action::EditConfig,
    },
];

/// A dashboard binding that one view gives its own meaning: its keys are those of the
/// binding of [`ViewBinding::replaces`] (moved with it by `config.toml [keys]`), and in
/// [`ViewBinding::view`] the footer and dispatch use this binding instead.
#[derive(Debug)]
pub struct ViewBinding {
    /// The view it applies in.
    pub view: View,
    /// The action of [`BINDINGS`] it stands in for there.
    pub replaces: Action,
    /// What the footer and the help say, and the action. Its `keys` are the replaced
    /// binding's, for the help.
    pub binding: Binding<Action>,
}

/// The keys that mean something else in one view: `F` in the events view would filter the
/// partition table nobody can see there, so it filters the events instead.
pub static VIEW_BINDINGS: &[ViewBinding] = &[ViewBinding {
    view: View::Events,
    replaces: Action::FilterPartitions,
    binding: Binding {
        keys: &[ch('F')],
        label: "F",
        footer: Some("filter events"),
        help: "events view (F5): filter the events by kind, partition, broker, client (then Enter)",
        action: Action::FilterEvents,
    },
}];

/// The dashboard's action for a key event in `view`: [`BINDINGS`]' action, or the one
/// [`VIEW_BINDINGS`] gives it in that view.
pub fn lookup_in(view: View, ev: &KeyEvent) -> Option<Action> {
    let action = lookup(BINDINGS, ev)?;
    Some(in_view(view, action))
}

/// `action` as `view` takes it ([`VIEW_BINDINGS`]).
pub fn in_view(view: View, action: Action) -> Action {
    view_binding(view, action).map_or(action, |v| v.binding.action)
}

/// The binding `view` puts in place of the [`BINDINGS`] binding of `action`, if any.
pub fn view_binding(view: View, action: Action) -> Option<&'static ViewBinding> {
    VIEW_BINDINGS.iter().find(|v| v.view == view && v.replaces == action)
}

/// Actions whose binding covers a pair of keys (down/up, prev/next): the second half of the
/// key list gives the opposite action.
trait Paired: Copy {
    /// The action of the second half of the keys, if this action comes in a pair.
    fn partner(self) -> Option<Self>;
}

impl Paired for Action {
    fn partner(self) -> Option<Self> {
        match self {
            Action::MinIsrDown => Some(Action::MinIsrUp),
            Action::RateDown => Some(Action::RateUp),
            Action::LagLimitDown => Some(Action::LagLimitUp),
            Action::SpeedDown => Some(Action::SpeedUp),
            Action::EventsOlder => Some(Action::EventsNewer),
            Action::PreviousBroker => Some(Action::NextBroker),
            Action::NextView => Some(Action::PrevView),
            Action::TapeBack => Some(Action::TapeForward),
            _ => None,
        }
    }
}

impl Paired for EventsAction {
    fn partner(self) -> Option<Self> {
        match self {
            EventsAction::Older => Some(EventsAction::Newer),
            EventsAction::PageOlder => Some(EventsAction::PageNewer),
            EventsAction::OlderHit => Some(EventsAction::NewerHit),
            _ => None,
        }
    }
}

impl Paired for PaletteAction {
    fn partner(self) -> Option<Self> {
        match self {
            PaletteAction::HistoryPrev => Some(PaletteAction::HistoryNext),
            PaletteAction::Left => Some(PaletteAction::Right),
            _ => None,
        }
    }
}

impl Paired for HelpAction {
    fn partner(self) -> Option<Self> {
        match self {
            HelpAction::Up => Some(HelpAction::Down),
            HelpAction::PageUp => Some(HelpAction::PageDown),
            _ => None,
        }
    }
}

/// Whether a key event matches a table key. Ctrl must match; Shift is ignored (it is already
/// in the character); Alt never matches.
fn matches(key: Key, ev: &KeyEvent) -> bool {
    let has_ctrl = ev.modifiers.contains(KeyModifiers::CONTROL);
    let has_alt = ev.modifiers.contains(KeyModifiers::ALT);
    key.code == ev.code && key.ctrl == has_ctrl && !has_alt
}

/// Finds the action of a key event in a table. Key releases are ignored. For paired
/// bindings the second half of the keys gives the partner action; for
/// [`Action::SelectBroker`] the digit typed becomes the broker id.
pub fn lookup<A: Copy + Resolve>(table: &[Binding<A>], ev: &KeyEvent) -> Option<A> {
    if ev.kind == KeyEventKind::Release {
        return None;
    }
    table.iter().find_map(|b| {
        let i = b.keys.iter().position(|k| matches(*k, ev))?;
        Some(b.action.resolve(i, b.keys.len(), ev))
    })
}

/// How a table entry becomes the action for the exact key pressed.
pub trait Resolve: Sized {
    /// The action for key number `index` of a binding with `count` keys.
    fn resolve(self, index: usize, count: usize, ev: &KeyEvent) -> Self;
}

fn second_half<A: Paired>(action: A, index: usize, count: usize) -> A {
    match action.partner() {
        Some(other) if count >= 2 && index >= count.div_ceil(2) => other,
        _ => action,
    }
}

impl Resolve for Action {
    fn resolve(self, index: usize, count: usize, ev: &KeyEvent) -> Self {
        match (self, ev.code) {
            (Action::SelectBroker(_), KeyCode::Char(c)) => {
                Action::SelectBroker(c.to_digit(10).map_or(0, |d| d as BrokerId))
            }
            _ => second_half(self, index, count),
        }
    }
}

impl Resolve for PaletteAction {
    fn resolve(self, index: usize, count: usize, _ev: &KeyEvent) -> Self {
        second_half(self, index, count)
    }
}

impl Resolve for EventsAction {
    fn resolve(self, index: usize, count: usize, _ev: &KeyEvent) -> Self {
        second_half(self, index, count)
    }
}

impl Resolve for HelpAction {
    fn resolve(self, index: usize, count: usize, _ev: &KeyEvent) -> Self {
        second_half(self, index, count)
    }
}

/// How the keys of the dashboard binding for `action` are written, e.g. `}`; `None` when
/// no binding has that action.
pub fn label_of(action: Action) -> Option<&'static str> {
    BINDINGS.iter().find(|b| b.action == action).map(|b| b.label)
}

/// How the key of `ev` is written in a notice: `z`, `~`, `F7`, `Ctrl-X`.
pub fn key_name(ev: &KeyEvent) -> String {
    let key = Key { code: ev.code, ctrl: ev.modifiers.contains(KeyModifiers::CONTROL) };
    overrides::key_text(key)
}

/// The notice for a key no table binds in the mode shown (a key must never do nothing
/// without a word); `None` for keys a terminal sends alone (Shift, Caps Lock, media
/// keys), which are not presses the user means.
pub fn unbound_text(ev: &KeyEvent) -> Option<String> {
    if matches!(ev.code, KeyCode::Modifier(_) | KeyCode::Media(_) | KeyCode::Null | KeyCode::CapsLock) {
        return None;
    }
    Some(format!("{} does nothing here; ? lists the keys", key_name(ev)))
}

/// The footer entries of a table as `(keys, text)` pairs, in table order.
pub fn footer_hints<A>(table: &[Binding<A>]) -> impl Iterator<Item = (&'static str, &'static str)> + '_ {
    table.iter().filter_map(|b| b.footer.map(|f| (b.label, f)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
    }

    #[test]
    fn paired_keys_give_both_directions() {
        assert_eq!(lookup(BINDINGS, &key('m')), Some(Action::MinIsrDown));
        assert_eq!(lookup(BINDINGS, &key('M')), Some(Action::MinIsrUp));
        assert_eq!(lookup(BINDINGS, &key('-')), Some(Action::RateDown));
        assert_eq!(lookup(BINDINGS, &key('+')), Some(Action::RateUp));
        assert_eq!(lookup(BINDINGS, &key('=')), Some(Action::RateUp));
        assert_eq!(lookup(BINDINGS, &key('<')), Some(Action::SpeedDown));
        assert_eq!(lookup(BINDINGS, &key('>')), Some(Action::SpeedUp));
        assert_eq!(lookup(BINDINGS, &key('L')), Some(Action::LagLimitUp));
        assert_eq!(lookup(BINDINGS, &key('[')), Some(Action::EventsOlder));
        assert_eq!(lookup(BINDINGS, &key(']')), Some(Action::EventsNewer));
        assert_eq!(label_of(Action::EventsFollow), Some("}"));
        let down = KeyEvent::new(KeyCode::Down, KeyModifiers::NONE);
        assert_eq!(lookup(HELP_BINDINGS, &down), Some(HelpAction::Down));
        assert_eq!(lookup(PALETTE_BINDINGS, &down), Some(PaletteAction::HistoryNext));
    }

    #[test]
    fn digits_select_that_broker_and_ctrl_c_quits() {
        assert_eq!(lookup(BINDINGS, &key('7')), Some(Action::SelectBroker(7)));
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(lookup(BINDINGS, &ctrl_c), Some(Action::Quit));
        assert_eq!(lookup(BINDINGS, &key('c')), None);
        assert_eq!(lookup(BINDINGS, &key('P')), Some(Action::NextProducer));
        assert_eq!(lookup(BINDINGS, &key('p')), Some(Action::ToggleFetch));
        let shifted = KeyEvent::new(KeyCode::Char('M'), KeyModifiers::SHIFT);
        assert_eq!(lookup(BINDINGS, &shifted), Some(Action::MinIsrUp));
    }

    #[test]
    fn tab_goes_round_the_views_and_function_keys_name_one() {
        let press = |c| KeyEvent::new(c, KeyModifiers::NONE);
        assert_eq!(lookup(BINDINGS, &press(KeyCode::Tab)), Some(Action::NextView));
        let back = KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT);
        assert_eq!(lookup(BINDINGS, &back), Some(Action::PrevView));
        assert_eq!(lookup(BINDINGS, &press(KeyCode::F(3))), Some(Action::ShowBrokers));
        assert_eq!(lookup(BINDINGS, &press(KeyCode::F(6))), Some(Action::ShowConfig));
        assert_eq!(lookup(BINDINGS, &press(KeyCode::Enter)), Some(Action::EditConfig));
    }

    #[test]
    fn no_key_is_bound_twice_in_a_table() {
        fn check<A>(table: &[Binding<A>]) {
            let keys: Vec<Key> = table.iter().flat_map(|b| b.keys.iter().copied()).collect();
            for (i, k) in keys.iter().enumerate() {
                assert!(!keys[i + 1..].contains(k), "{k:?} bound twice");
            }
        }
        check(BINDINGS);
        check(PALETTE_BINDINGS);
        check(HELP_BINDINGS);
        check(EVENTS_BINDINGS);
        check(LESSON_BINDINGS);
        check(QUESTION_BINDINGS);
        check(READOUT_BINDINGS);
    }
}
