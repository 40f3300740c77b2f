//! The dashboard's model and its `update` function.
//!
//! ```text
//!  isrlab  seed 42  t=00:01:23.4  ▶ 1×  KRaft · Kafka 4.1            acked lost: 0   header
//!  Brokers ▸0 ● up L4   1 ● up L2   2 ✖ crashed 12s, fenced L0    controller 3000   brokers
//!  acks=all  min.insync.replicas=2  unclean=off  replica.lag.time.max.ms=30000      settings
//!  Partition     Ldr Ep ISR  HW    LEO by replica        Lag / ISR timer   State    partitions
//! ▸test_repli-0  0   1  0,1  1380  0:1386 1:1383 2:980✖  1:3 behind 2:down URP
//! ─ test_repli-0 logs ─────────────────────────────────────────────────────────    detail
//!  0 L ✔ ██████████████████████████▒  HW 1380 LEO 1386
//! ─ Clients ───────────────────────────────────────────────────────────────────    clients
//! ─ Events ────────────────────────────────────────────────────────────────────    events
//!  00:01:20.4 broker 2 fenced: no heartbeat for 9 000 ms (broker.session.timeout.ms=9000)
//!  ✔ crash 2                                                                       status
//!  ? help  space pause  x crash  s shutdown  r restart  a acks  …                  footer
//! ```
//!
//! [`Model`] is plain data; [`update`] is the only thing that changes it. `update` never
//! touches the cluster: it returns [`Effect`]s, and the event loop carries them out
//! (`live.apply`, `live.advance_to`) and feeds the verdicts back as [`Msg::Verdict`].

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::event_filter::EventFilter;
use super::events::Lens;
use super::filter_names::{self, broker_ids};
use super::keymap::{self, Action, HelpAction, PaletteAction, QuestionAction};
use super::lesson::{self, Lesson};
use super::palette::Palette;
use super::partition_filter::{PartitionFilter, RowCache, Shown};
use super::theme::Theme;
use super::view;
use crate::cluster::command::crash::Crash;
use crate::cluster::command::fetch::Fetch;
use crate::cluster::command::restart::Restart;
use crate::cluster::command::set::Set;
use crate::cluster::command::shutdown::Shutdown;
use crate::cluster::command::{Answer, Command};
use crate::cluster::snapshot::{PartitionView, ProducerView, Snapshot, TopicView};
use crate::sim::{Acks, BrokerId, Ms, SimTime, format_instant};

/// Producer rates the `+`/`-` keys step through (records per second).
pub const RATE_STEPS: &[f64] =
    &[0.0, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0, 5000.0];

/// Sim speeds the `<`/`>` keys step through (sim ms per wall ms).
pub const SPEED_STEPS: &[f64] = &[0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0];

/// `replica.lag.time.max.ms` values the `l`/`L` keys step through.
pub const LAG_STEPS: &[f64] =
    &[1000.0, 2000.0, 5000.0, 10_000.0, 15_000.0, 20_000.0, 30_000.0, 60_000.0, 120_000.0];

/// Sim time one `.` press advances while paused (ms).
pub const STEP_MS: Ms = 100;

/// How far ahead the `n` key looks for the next event (ms of sim time).
pub const NEXT_EVENT_WITHIN_MS: Ms = 60_000;

/// Which keys are live.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    /// The dashboard keys ([`keymap::BINDINGS`]).
    Normal,
    /// The command palette is open ([`keymap::PALETTE_BINDINGS`]).
    Palette,
    /// The help overlay is open ([`keymap::HELP_BINDINGS`]).
    Help,
    /// The Events pane has the keys ([`keymap::EVENTS_BINDINGS`]).
    Events,
    /// A line is being typed for the Events pane ([`keymap::PALETTE_BINDINGS`] edit it).
    Prompt(Ask),
    /// A lesson's question is open: letters answer ([`keymap::QUESTION_BINDINGS`]).
    Question,
    /// The pane of `:describe` or `:get` is open ([`keymap::READOUT_BINDINGS`]).
    Readout,
}

/// Which screen the dashboard shows (Tab / Shift-Tab go round them in this order, F1–F6
/// name one each).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum View {
    /// Every pane at once: brokers, partitions, logs, clients, charts, events.
    #[default]
    Overview,
    /// The selected partition in full: its log strips, why panel, charts and events.
    Partition,
    /// Every broker: leaderships, fetchers, heartbeat and fencing timers, links.
    Brokers,
    /// Producers and consumers in full, with the producers' chart.
    Clients,
    /// The event log on the whole screen.
    Events,
    /// Every property of the config registry with its value, default and scope.
    Config,
}

impl View {
    /// Every view, in Tab order.
    pub const ALL: [View; 6] =
        [View::Overview, View::Partition, View::Brokers, View::Clients, View::Events, View::Config];

    /// Its name, as the header shows it.
    pub fn name(self) -> &'static str {
        match self {
            View::Overview => "overview",
            View::Partition => "partition",
            View::Brokers => "brokers",
            View::Clients => "clients",
            View::Events => "events",
            View::Config => "config",
        }
    }

    /// The view `by` steps further round (negative: back).
    pub fn turn(self, by: isize) -> View {
        let n = Self::ALL.len() as isize;
        let at = Self::ALL.iter().position(|v| *v == self).unwrap_or(0) as isize;
        Self::ALL[(at + by).rem_euclid(n) as usize]
    }
}

/// What the Events pane's prompt asks for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Ask {
    /// A text to search the events for (`/`).
    Search,
    /// A filter ([`crate::ui::event_filter::EventFilter::parse`]).
    Filter,
    /// A sim time to go to (`g`), as scenario files write durations.
    GoTo,
    /// The partition table's filter ([`PartitionFilter::parse`]; `F` in the dashboard).
    TableFilter,
    /// A broker id to select (`b`).
    Broker,
    /// The config view's filter (`/`): words a property's name or meaning must hold.
    ConfigFilter,
    /// The selected property's value, edited in its row of the config view (Enter).
    ConfigValue,
}

impl Ask {
    /// The keys go back to the dashboard after a table, broker or config-view prompt, else
    /// to the Events pane.
    pub fn returns_to(self) -> Mode {
        match self {
            Ask::TableFilter | Ask::Broker | Ask::ConfigFilter | Ask::ConfigValue => Mode::Normal,
            Ask::Search | Ask::Filter | Ask::GoTo => Mode::Events,
        }
    }
}

/// How a status line message should look.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum StatusKind {
    /// Neutral information.
    Info,
    /// A command was accepted.
    Done,
    /// A command or key was refused.
    Error,
}

/// The message under the panes (word-wrapped onto a few lines when long).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Status {
    /// How it looks.
    pub kind: StatusKind,
    /// What it says, starting with `✔ ` for [`StatusKind::Done`] and `✖ ` for
    /// [`StatusKind::Error`].
    pub text: String,
}

impl Status {
    /// A message of `kind`; the `✔`/`✖` prefix is added when `text` lacks it.
    pub fn new(kind: StatusKind, text: impl Into<String>) -> Status {
        let text = text.into();
        let glyph = match kind {
            StatusKind::Info => None,
            StatusKind::Done => Some("✔"),
            StatusKind::Error => Some("✖"),
        };
        let text = match glyph {
            Some(g) if !text.starts_with(g) => format!("{g} {text}"),
            _ => text,
        };
        Status { kind, text }
    }
}

/// Everything the dashboard remembers between frames.
#[derive(Clone, Debug)]
pub struct Model {
    /// Which keys are live.
    pub mode: Mode,
    /// Which screen is shown.
    pub view: View,
    /// The config view's selected row, an index into the rows its filter keeps.
    pub config_selected: usize,
    /// The config view's filter (`/`); empty shows every property.
    pub config_filter: String,
    /// The property being edited in its row of the config view, or whose edit was sent and
    /// awaits the cluster's answer.
    pub config_edit: Option<ConfigEdit>,
    /// Selected broker id (the target of `x`, `s`, `r`, `p`); `None` after a digit that
    /// names no broker, so those keys never hit a broker the user did not mean.
    pub selected_broker: Option<BrokerId>,
    /// Index of the selected producer (the target of `a`, `-` and `+`); clamped to the
    /// producers there are ([`Model::producer`]).
    pub selected_producer: u32,
    /// Index of the selected partition in [`Snapshot::partitions`] (the table may hide it
    /// for a moment: then the next shown one is selected, see [`Model::shown`]).
    pub selected_partition: usize,
    /// The partition that index named when the model last saw a snapshot: a topic created
    /// before it in the table (`__consumer_offsets`) moves the index, not the selection.
    pub selected_tp: Option<crate::sim::TopicPartition>,
    /// First row shown in the table, counted in the rows the filter shows.
    pub partition_offset: usize,
    /// Which partitions the table shows.
    pub table_filter: PartitionFilter,
    /// The rows [`Model::table_filter`] shows in the newest snapshot, worked out when either
    /// changes (see [`RowCache`]).
    pub table_rows: RowCache,
    /// Terminal size (columns, rows), as last reported.
    pub screen: (u16, u16),
    /// Sim time is stopped.
    pub paused: bool,
    /// Sim ms per wall ms.
    pub speed: f64,
    /// The speed sim time really runs at (rounded), when clearly below [`Model::speed`]:
    /// the simulation cannot keep up.
    pub actual_speed: Option<f64>,
    /// The status line; it ages out ([`super::status_age`]).
    pub status: Option<Status>,
    /// Counts the messages [`Model::say`] has shown, so the same words said again are a
    /// new message that starts aging anew.
    pub status_serial: u64,
    /// The command palette's line and history.
    pub palette: Palette,
    /// The command the palette last sent and its line, until the cluster answers: a
    /// refusal opens the palette again on that line, as a parse error keeps it open.
    pub palette_sent: Option<(Command, String)>,
    /// First line of the help overlay shown.
    pub help_scroll: usize,
    /// The Events pane is scrolled back: the run-wide index (0 = the first event ever) of
    /// the newest event it shows. An index, not a distance from the end, so events that
    /// arrive meanwhile do not move the view. `None` follows the newest events.
    pub events_anchor: Option<u64>,
    /// The Events pane shows only [`events::is_important`] events: on at start, so the
    /// overview's few event lines tell the story (crash, fencing, election, ISR changes,
    /// truncation, loss) rather than fetch sessions and client retries; `f` and `c` show all.
    pub events_important: bool,
    /// The Events pane shows only the events this filter keeps.
    pub events_filter: EventFilter,
    /// The text `/` searched for last; `n`/`N` move between the events that hold it.
    pub events_search: Option<String>,
    /// The line typed for the Events pane (search, filter, time), with its own history.
    pub prompt: Palette,
    /// `R` was pressed once: the next `R` restarts the run; any other key keeps it.
    pub reset_armed: bool,
    /// Colours on or off.
    pub theme: Theme,
    /// Key overrides from the user's config file.
    pub keys: keymap::KeyOverrides,
    /// The user asked to quit.
    pub quit: bool,
    /// The charts' last drawings, copied while their samples are unchanged.
    pub charts: super::charts::Drawings,
    /// The scenario played as a lesson (narration, checks, questions), if any.
    pub lesson: Option<Lesson>,
    /// What the pane of `:describe` or `:get` shows ([`super::readout`]).
    pub readout: Option<super::readout::Readout>,
}

/// Something that happened, fed to [`update`].
#[derive(Clone, Debug)]
pub enum Msg {
    /// A key was pressed.
    Key(KeyEvent),
    /// A mouse button or the wheel was used (see [`mouse`]).
    Mouse(crossterm::event::MouseEvent),
    /// The terminal has a new size (columns, rows).
    Resize(u16, u16),
    /// A new snapshot arrived (it is passed to [`update`] alongside).
    Snapshot,
    /// Events the cluster logged since the last such message (a lesson watches them all).
    Events(Vec<crate::sim::events::ClusterEvent>),
    /// The simulation thread is gone; no more snapshots will come.
    SimEnded,
    /// The speed sim time ran at lately (sim ms per wall ms), `None` while unknown.
    Measured(Option<f64>),
    /// Where [`Effect::NextEvent`] stopped: it started with `events_before` events logged;
    /// `found` is the new events' time, `None` when none came within the look-ahead.
    SteppedToEvent {
        /// The run-wide event count before the step.
        events_before: u64,
        /// The new events' sim time (µs).
        found: Option<SimTime>,
    },
    /// The run restarted from time 0 ([`Effect::Reset`]), or why it could not.
    Restarted(Result<(), String>),
    /// The cluster's answer to an applied command.
    Verdict {
        /// The command.
        command: Command,
        /// The answer, or the refusal in words.
        result: Result<Answer, String>,
    },
}

/// Something `update` wants the event loop to do.
#[derive(Clone, PartialEq, Debug)]
pub enum Effect {
    /// Apply a command with `live.apply` and report the verdict as [`Msg::Verdict`].
    Apply(Command),
    /// Let sim time run this many ms further (single step while paused).
    Step(Ms),
    /// Run sim time to the next new event, looking at most this many ms ahead, and report
    /// where it stopped as [`Msg::SteppedToEvent`].
    NextEvent(Ms),
    /// Restart the same cluster, seed and startup settings from time 0 and report it as
    /// [`Msg::Restarted`].
    Reset,
    /// Leave the dashboard.
    Quit,
}

impl Model {
    /// A fresh model: first broker selected, first partition, running at `speed` (clamped
    /// to 0.01–100).
    pub fn new(speed: f64, theme: Theme, snap: &Snapshot) -> Model {
        let speed = if speed.is_finite() { speed.clamp(SPEED_STEPS[0], 100.0) } else { 1.0 };
        Model {
            mode: Mode::Normal,
            view: View::Overview,
            config_selected: 0,
            config_filter: String::new(),
            config_edit: None,
            selected_broker: snap.brokers.first().map(|b| b.id),
            selected_producer: 0,
            selected_partition: 0,
            selected_tp: snap.partitions.first().map(|p| p.tp.clone()),
            partition_offset: 0,
            table_filter: PartitionFilter::default(),
            table_rows: RowCache::default(),
            screen: (80, 24),
            paused: false,
            speed,
            actual_speed: None,
            status: None,
            status_serial: 0,
            palette: Palette::default(),
            palette_sent: None,
            charts: Default::default(),
            help_scroll: 0,
            events_anchor: None,
            events_important: true,
            events_filter: EventFilter::default(),
            events_search: None,
            keys: keymap::KeyOverrides::default(),
            prompt: Palette::default(),
            reset_armed: false,
            theme,
            quit: false,
            lesson: None,
            readout: None,
        }
    }

    /// The instant sim time must not pass now: a lesson's next stop, if one is played.
    pub fn clock_stop(&self) -> Option<SimTime> {
        self.lesson.as_ref().and_then(Lesson::clock_stop)
    }

    /// What the Events pane lets through: the important-only switch and the filter.
    pub fn events_lens(&self) -> Lens<'_> {
        Lens { important: self.events_important, filter: &self.events_filter }
    }

    /// The selected partition, clamped to the snapshot's partitions.
    pub fn partition<'a>(&self, snap: &'a Snapshot) -> Option<&'a PartitionView> {
        let last = snap.partitions.len().checked_sub(1)?;
        snap.partitions.get(self.selected_partition.min(last)).map(|p| &**p)
    }

    /// The selected producer: [`Model::selected_producer`], or the last producer when that
    /// many are no longer there; `None` without producers.
    pub fn producer<'a>(&self, snap: &'a Snapshot) -> Option<&'a ProducerView> {
        let last = snap.producers.len().checked_sub(1)?;
        snap.producers.get((self.selected_producer as usize).min(last))
    }

    /// The selected producer's index when the dashboard marks it: with more than one producer
    /// (with one, everything reads as it did before producers could be told apart).
    pub fn marked_producer(&self, snap: &Snapshot) -> Option<u32> {
        (snap.producers.len() > 1).then(|| self.producer(snap).map(|p| p.index)).flatten()
    }

    /// The topic of the selected partition.
    pub fn topic<'a>(&self, snap: &'a Snapshot) -> Option<&'a TopicView> {
        let p = self.partition(snap)?;
        snap.topics.iter().find(|t| *t.name == *p.tp.topic)
    }

    /// Sim time reached the end of the scenario being played (it stops there).
    pub fn scenario_over(&self, snap: &Snapshot) -> bool {
        snap.scenario.as_ref().is_some_and(|s| snap.now_us >= s.end)
    }

    /// The rows the table shows in `snap`: the cached ones when the model saw `snap`, else
    /// worked out now.
    pub fn shown<'a>(&'a self, snap: &Snapshot) -> std::borrow::Cow<'a, Shown> {
        self.table_rows.get(snap, &self.table_filter)
    }

    /// The table row of the selected partition among the `shown` ones (the row it would
    /// have when it is hidden).
    pub fn selected_row(&self, shown: &Shown) -> usize {
        shown
            .row_of(self.selected_partition)
            .unwrap_or_else(|row| row)
            .min(shown.rows.len().saturating_sub(1))
    }

    /// The first of the `shown` rows to draw so that the selection is visible in `rows` rows.
    pub fn visible_offset(&self, rows: usize, shown: &Shown) -> usize {
        let rows = rows.max(1);
        let total = shown.rows.len();
        let selected = self.selected_row(shown);
        let low = (selected + 1).saturating_sub(rows);
        self.partition_offset.clamp(low, selected).min(total.saturating_sub(rows))
    }

    /// Shows `text` in the status line.
    pub fn say(&mut self, kind: StatusKind, text: impl Into<String>) {
        self.status = Some(Status::new(kind, text));
        self.status_serial += 1;
    }

    fn refuse(&mut self, text: impl Into<String>) -> Vec<Effect> {
        self.say(StatusKind::Error, text);
        Vec::new()
    }
}

/// Applies one message to the model. `snap` is the newest snapshot; it is read (for the
/// selected topic, the current settings) but never changed.
pub fn update(model: &mut Model, msg: Msg, snap: &Snapshot) -> Vec<Effect> {
    let commands_refused = model.scenario_over(snap);
    // Asked before the key: a command sent while a question waits would change its answer.
    let question_open = lesson::refusal(model);
    let effects = match msg {
        Msg::Key(ev) => on_key(model, ev, snap),
        Msg::Mouse(ev) => mouse::on_mouse(model, ev, snap),
        Msg::Resize(w, h) => {
            model.screen = (w, h);
            Vec::new()
        }
        Msg::Snapshot => {
            follow_selected_partition(model, snap);
            lesson::arrive(model, snap);
            Vec::new()
        }
        Msg::Events(events) => {
            if let Some(lesson) = &mut model.lesson {
                lesson.observe(events);
            }
            return Vec::new();
        }
        Msg::Measured(actual) => {
            // Every frame tick: only the header's "actual N×" changes, nothing the table's
            // rows, selection or layout depend on, so the layout is not worked out again.
            model.actual_speed = shown_speed(model, actual, snap);
            return Vec::new();
        }
        Msg::SimEnded => model.refuse("the simulation stopped; press q to quit"),
        Msg::SteppedToEvent { events_before, found } => {
            time_keys::stepped_to_event(model, events_before, found, snap);
            Vec::new()
        }
        Msg::Restarted(result) => {
            if result.is_ok() {
                lesson::restart(model, snap);
            }
            restarted(model, result, snap);
            Vec::new()
        }
        Msg::Verdict { command, result } => {
            match result {
                Ok(answer) => {
                    match answer.note {
                        None => model.say(StatusKind::Done, command.to_string()),
                        // Kafka answered with an error code (`ELECTION_NOT_NEEDED`): nothing
                        // was done, so a notice mark rather than a check mark.
                        Some(note) if is_error_code_note(&note) => {
                            model.say(StatusKind::Info, format!("{NOTICE} {command}: {note}"))
                        }
                        Some(note) => model.say(StatusKind::Done, format!("{command}: {note}")),
                    }
                    view_keys::edit_applied(model, &command);
                    model.palette_sent.take_if(|(sent, _)| *sent == command);
                }
                Err(why) => {
                    model.say(StatusKind::Error, format!("{command}: {why}"));
                    view_keys::keep_refused_edit(model, &command, &why);
                    reopen_refused_line(model, &command, &why);
                }
            }
            Vec::new()
        }
    };
    keep_selection_visible(model, snap);
    if commands_refused && effects.iter().any(|e| matches!(e, Effect::Apply(_))) {
        return model.refuse(ended_text(snap));
    }
    if let Some(why) = question_open
        && effects.iter().any(|e| matches!(e, Effect::Apply(_)))
    {
        model.palette_sent = None;
        return model.refuse(why);
    }
    effects
}

/// The mark of a notice that a command was taken but changed nothing (`i` with `--ascii`).
pub const NOTICE: &str = "ℹ";

/// Whether `note` starts with a Kafka error code (`ELECTION_NOT_NEEDED: …`), as an answer
/// that needed no change does (`LeaderElectionCommand` prints the code of a partition whose
/// election was not needed).
fn is_error_code_note(note: &str) -> bool {
    note.split_once(':').is_some_and(|(code, _)| {
        code.len() > 3 && code.contains('_') && code.chars().all(|c| c.is_ascii_uppercase() || c == '_')
    })
}

/// Why commands are refused once the scenario reached its end: the same words the sim uses.
fn ended_text(snap: &Snapshot) -> String {
    let end = snap.scenario.as_ref().map_or(snap.now_us, |s| s.end);
    crate::cluster::handle::scenario_ended(end).to_string()
}

/// Below this share of the asked speed the measured one is shown...
const SLOW_SHOW: f64 = 0.8;
/// ...and it stays shown until it is back above this share (no flicker around the edge).
const SLOW_HIDE: f64 = 0.9;

fn shown_speed(model: &Model, actual: Option<f64>, snap: &Snapshot) -> Option<f64> {
    let actual = actual.filter(|a| a.is_finite() && !model.paused && !model.scenario_over(snap))?;
    let limit = if model.actual_speed.is_some() { SLOW_HIDE } else { SLOW_SHOW };
    (actual < model.speed * limit).then(|| round_speed(actual))
}

/// Two significant digits at most, so the header does not churn: 42, 4.2, 0.42.
pub fn round_speed(v: f64) -> f64 {
    let scale = if v >= 10.0 {
        1.0
    } else if v >= 1.0 {
        10.0
    } else if v >= 0.1 {
        100.0
    } else {
        1000.0
    };
    (v * scale).round() / scale
}

fn on_key(model: &mut Model, ev: KeyEvent, snap: &Snapshot) -> Vec<Effect> {
    // Terminals that report releases (Windows, the kitty protocol) would type twice.
    if ev.kind == KeyEventKind::Release {
        return Vec::new();
    }
    // Below the smallest screen nothing shows what a key did, so a key typed blind must not
    // crash a broker: only quitting works until the terminal is large enough again.
    let (w, h) = model.screen;
    if w < super::view::MIN_WIDTH || h < super::view::MIN_HEIGHT {
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
            Some(action) => super::readout::on_key(model, action, snap),
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

fn typed_char(ev: &KeyEvent) -> Option<char> {
    let plain = !ev.modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
    match ev.code {
        KeyCode::Char(c) if plain && !c.is_control() => Some(c),
        _ => None,
    }
}

/// The one `match` over the dashboard's actions.
fn perform(model: &mut Model, action: Action, snap: &Snapshot) -> Vec<Effect> {
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
        Action::OpenPalette => {
            model.mode = Mode::Palette;
            model.palette.open();
            Vec::new()
        }
        Action::ToggleHelp => {
            model.mode = Mode::Help;
            // In a lesson, the help opens at the lesson's keys.
            model.help_scroll = match model.lesson {
                Some(_) => super::help::lesson_keys_line(&model.keys, model.screen.0),
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
fn reset(model: &mut Model, armed: bool, snap: &Snapshot) -> Vec<Effect> {
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

/// After [`Effect::Reset`]: the view follows the new run from its start. The selected
/// partition stays selected by name when the new run has it (topics created at runtime are
/// gone, so its row index may name another partition), else the first row is. A fresh run
/// has no search hits to step through, so the search ends; the Events filter is the
/// teacher's choice of what to watch, so it is kept, and the status line says so.
fn restarted(model: &mut Model, result: Result<(), String>, snap: &Snapshot) {
    match result {
        Ok(()) => {
            model.events_anchor = None;
            model.actual_speed = None;
            model.events_search = None;
            let same =
                model.selected_tp.as_ref().and_then(|tp| snap.partitions.iter().position(|p| p.tp == *tp));
            model.selected_partition = same.unwrap_or(0);
            model.partition_offset = 0;
            let mut text =
                format!("restarted from 0 with seed {}: counters cleared, startup settings", snap.seed);
            if !model.events_filter.is_empty() {
                text.push_str(&format!(
                    "; the Events filter ({}) is kept (e then c clears it)",
                    model.events_filter.describe()
                ));
            }
            model.say(StatusKind::Done, text);
        }
        Err(why) => model.say(StatusKind::Error, format!("cannot restart: {why}")),
    }
}

fn scenario_ended(model: &mut Model, snap: &Snapshot) -> Vec<Effect> {
    let end = snap.scenario.as_ref().map_or(snap.now_us, |s| s.end);
    let text = format!("the scenario ended at {}: sim time stops there (q quits)", format_instant(end));
    model.say(StatusKind::Info, text);
    Vec::new()
}

/// Selects broker `id`. An id the cluster lacks is refused and the selection stays (issue 9:
/// a mistyped digit should not lose the broker the user picked); the refusal names the
/// broker still selected, so the next `x` hits no broker the user does not expect.
fn select_broker(model: &mut Model, id: BrokerId, snap: &Snapshot) -> Vec<Effect> {
    match filter_names::broker(snap, id) {
        Ok(()) => {
            model.selected_broker = Some(id);
            Vec::new()
        }
        Err(why) => match model.selected_broker {
            Some(kept) => model.refuse(format!("{why}; broker {kept} stays selected")),
            None => model.refuse(why),
        },
    }
}

/// The command `make` builds for the selected broker, or a refusal when none is selected.
fn on_selected(model: &mut Model, snap: &Snapshot, make: fn(BrokerId) -> Command) -> Vec<Effect> {
    match model.selected_broker {
        Some(id) => vec![Effect::Apply(make(id))],
        None if snap.brokers.is_empty() => model.refuse("the cluster has no brokers"),
        None => model.refuse(format!("select a broker first: {}", broker_ids(snap))),
    }
}

fn toggle_fetch(model: &mut Model, snap: &Snapshot) -> Vec<Effect> {
    let Some(id) = model.selected_broker else {
        return on_selected(model, snap, |broker| Fetch { broker, paused: true }.into());
    };
    let paused = snap.brokers.iter().find(|b| b.id == id).is_some_and(|b| b.fetch_paused);
    vec![Effect::Apply(Fetch { broker: id, paused: !paused }.into())]
}

fn page(model: &Model, snap: &Snapshot) -> isize {
    let rows = view::table_rows(model, snap);
    rows.saturating_sub(1).max(1) as isize
}

/// Moves the selection `delta` rows among the rows the table shows.
fn move_selection(model: &mut Model, delta: isize, snap: &Snapshot) -> Vec<Effect> {
    let shown = model.shown(snap);
    let last = shown.rows.len().saturating_sub(1) as isize;
    let current = model.selected_row(&shown) as isize;
    let row = current.saturating_add(delta).clamp(0, last) as usize;
    if let Some(index) = shown.rows.get(row).copied() {
        model.selected_partition = index;
    }
    Vec::new()
}

/// Moves the selection index to where the selected partition is now, if partitions were
/// added or removed before it; a deleted partition leaves the index where it was.
fn follow_selected_partition(model: &mut Model, snap: &Snapshot) {
    let Some(tp) = &model.selected_tp else { return };
    if snap.partitions.get(model.selected_partition).is_some_and(|p| p.tp == *tp) {
        return;
    }
    if let Some(i) = snap.partitions.iter().position(|p| p.tp == *tp) {
        model.selected_partition = i;
    }
}

/// Filters the snapshot for the table when it or the filter changed, moves a selection the
/// filter hides to the next shown partition (the last when none follows; it stays when
/// nothing is shown), and scrolls the table to it.
fn keep_selection_visible(model: &mut Model, snap: &Snapshot) {
    let total = snap.partitions.len();
    model.selected_partition = model.selected_partition.min(total.saturating_sub(1));
    model.table_rows.refresh(snap, &model.table_filter);
    let shown = model.table_rows.get(snap, &model.table_filter);
    if let Err(row) = shown.row_of(model.selected_partition)
        && let Some(&index) = shown.rows.get(row.min(shown.rows.len().saturating_sub(1)))
    {
        model.selected_partition = index;
    }
    model.selected_tp = snap.partitions.get(model.selected_partition).map(|p| p.tp.clone());
    let rows = view::table_rows(model, snap);
    let offset = model.visible_offset(rows, &shown);
    model.partition_offset = offset;
}

/// `set producer P KEY=VALUE` for the marked producer; with one producer or none, `set
/// producer KEY=VALUE` (which adds one when there is none).
fn set_producer(model: &Model, snap: &Snapshot, key: &str, value: impl ToString) -> Vec<Effect> {
    let set = match model.marked_producer(snap) {
        Some(p) => Set::producer_at(p, key, value),
        None => Set::producer(key, value),
    };
    vec![Effect::Apply(set.into())]
}

fn cycle_acks(model: &Model, snap: &Snapshot) -> Vec<Effect> {
    let acks = model.producer(snap).map_or(Acks::default(), |p| p.config.acks);
    set_producer(model, snap, "acks", acks.cycle())
}

/// Selects the next producer, after the last the first again.
fn next_producer(model: &mut Model, snap: &Snapshot) -> Vec<Effect> {
    let n = snap.producers.len();
    if n < 2 {
        let text = match n {
            0 => "there is no producer yet (`:produce T N` adds one)",
            _ => "producer 0 is the only producer",
        };
        model.say(StatusKind::Info, text);
        return Vec::new();
    }
    let current = model.producer(snap).map_or(0, |p| p.index as usize);
    let next = &snap.producers[(current + 1) % n];
    model.selected_producer = next.index;
    let text =
        format!("producer {} → {} selected: a and -/+ act on it ({} producers)", next.index, next.topic, n);
    model.say(StatusKind::Info, text);
    Vec::new()
}

fn change_min_isr(model: &mut Model, delta: i64, snap: &Snapshot) -> Vec<Effect> {
    let Some(topic) = model.topic(snap) else {
        return model.refuse("no partition selected: min.insync.replicas is set per topic");
    };
    let current = topic.effective_min_isr as i64;
    let rf = topic.replication_factor.max(1) as i64;
    let wanted = current + delta;
    if wanted < 1 {
        return model.refuse("min.insync.replicas is already 1, its smallest value");
    }
    if wanted > rf {
        let text = format!(
            "min.insync.replicas={current} already equals the replication factor; \
             larger values are capped to {rf} (Kafka 3.7+)"
        );
        return model.refuse(text);
    }
    vec![Effect::Apply(Set::topic(&topic.name, "min.insync.replicas", wanted).into())]
}

fn toggle_unclean(model: &mut Model, snap: &Snapshot) -> Vec<Effect> {
    let Some(topic) = model.topic(snap) else {
        return model.refuse("no partition selected: unclean.leader.election.enable is set per topic");
    };
    let value = !topic.unclean_leader_election_enable;
    vec![Effect::Apply(Set::topic(&topic.name, "unclean.leader.election.enable", value).into())]
}

/// The next value in `steps` after `current` (up) or before it (down); `None` at the end.
pub fn next_step(steps: &[f64], current: f64, up: bool) -> Option<f64> {
    const EPS: f64 = 1e-9;
    if up {
        steps.iter().copied().find(|s| *s > current + EPS)
    } else {
        steps.iter().rev().copied().find(|s| *s < current - EPS)
    }
}

fn change_lag_limit(model: &mut Model, up: bool, snap: &Snapshot) -> Vec<Effect> {
    let current = snap.broker_config.replica_lag_time_max_ms as f64;
    match next_step(LAG_STEPS, current, up) {
        Some(v) => vec![Effect::Apply(Set::cluster("replica.lag.time.max.ms", v as u64).into())],
        None => {
            model.refuse(format!("replica.lag.time.max.ms is already {current} (the end of the key steps)"))
        }
    }
}

fn change_rate(model: &mut Model, up: bool, snap: &Snapshot) -> Vec<Effect> {
    let current = model.producer(snap).map_or(0.0, |p| p.config.rate);
    match next_step(RATE_STEPS, current, up) {
        Some(v) => set_producer(model, snap, "rate", v),
        None => model.refuse(format!("producer rate is already {current}/s (the end of the key steps)")),
    }
}

fn on_palette(model: &mut Model, action: PaletteAction, snap: &Snapshot) -> Vec<Effect> {
    match action {
        PaletteAction::Submit => submit(model, snap),
        PaletteAction::Quit => quit(model),
        PaletteAction::Cancel => {
            model.mode = Mode::Normal;
            model.palette.edit(action);
            Vec::new()
        }
        _ => {
            model.palette.edit(action);
            Vec::new()
        }
    }
}

/// A command the palette sent and the cluster refused (`crash 7`): the palette opens again on
/// its line with the reason, as for a line that does not parse, so every refusal of a typed
/// line can be fixed in place. Not when other keys took over meanwhile (a prompt, the help).
fn reopen_refused_line(model: &mut Model, command: &Command, why: &str) {
    let Some((sent, line)) = model.palette_sent.take() else { return };
    if sent == *command && model.mode == Mode::Normal {
        model.palette.reopen_refused(&line, format!("{command}: {why}"));
        model.mode = Mode::Palette;
    } else if sent != *command {
        model.palette_sent = Some((sent, line));
    }
}

/// Enter in the palette: a valid line runs and closes it; a bad one stays open, editable,
/// with the reason shown under it, as does any line once the scenario reached its end. The
/// reason goes once the line is edited, and a `:` typed first starts a fresh line.
fn submit(model: &mut Model, snap: &Snapshot) -> Vec<Effect> {
    model.palette.edit(PaletteAction::Submit);
    let line = model.palette.input().trim().to_string();
    if line.is_empty() {
        model.mode = Mode::Normal;
        return Vec::new();
    }
    if let Some(query) = super::readout::parse(&line) {
        return super::readout::open(model, query, &line, snap);
    }
    match run_line(model, &line, snap) {
        Ok(cmd) => {
            model.palette.set_error(None);
            model.mode = Mode::Normal;
            model.palette_sent = Some((cmd.clone(), line));
            vec![Effect::Apply(cmd)]
        }
        Err(why) => {
            model.palette.set_error(Some(why));
            Vec::new()
        }
    }
}

/// The palette's check of a command line, for the palette and the config view's in-place
/// editor alike: a line that parses (the grammar of [`Command::parse`]) while the run goes
/// on is remembered in the palette's history and returned to apply; otherwise the reason,
/// in the palette's words.
pub(super) fn run_line(model: &mut Model, line: &str, snap: &Snapshot) -> Result<Command, String> {
    let cmd = Command::parse(line).map_err(|e| super::readout::with_palette_usage(e.message))?;
    if model.scenario_over(snap) {
        return Err(ended_text(snap));
    }
    model.palette.remember(line);
    Ok(cmd)
}

fn quit(model: &mut Model) -> Vec<Effect> {
    model.quit = true;
    vec![Effect::Quit]
}

fn on_help(model: &mut Model, action: HelpAction) -> Vec<Effect> {
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
        model.help_scroll.min(super::help::line_count(&model.keys, model.screen.0).saturating_sub(1));
    Vec::new()
}

mod event_keys;
mod mouse;
mod table_keys;
mod time_keys;
mod view_keys;

pub use view_keys::ConfigEdit;

#[cfg(test)]
mod tests;
