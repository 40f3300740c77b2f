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
//!
//! This file holds the model and the messages; the code a message runs lives beside it: the
//! key dispatch, mode by mode (`keys`), the one `match` over actions (`actions`), the keys that
//! send commands to the cluster (`cluster_keys`), the palette (`palette_keys`), the Events
//! pane and its prompt (`event_keys`), the partition table's filters (`table_keys`), sim time
//! (`time_keys`), the views (`view_keys`) and the mouse (`mouse`).

use crossterm::event::KeyEvent;

use super::event_filter::EventFilter;
use super::events::Lens;
use super::keymap;
use super::lesson::{self, Lesson};
use super::palette::Palette;
use super::partition_filter::{PartitionFilter, RowCache, Shown};
use super::theme::Theme;
use super::view;
use crate::cluster::command::{Answer, Command};
use crate::cluster::snapshot::{PartitionView, ProducerView, Snapshot, TopicView};
use crate::sim::{BrokerId, Ms, SimTime};

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
    /// The Events pane shows only [`super::events::is_important`] events: on at start, so the
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
    /// The session's recording, fed every snapshot; `None` when nothing records (a test's
    /// model). Written by `w`, `:save FILE` and `--record FILE` ([`super::record`]).
    pub recording: Option<crate::scenario::recording::Recording>,
    /// The timeline strip: its ticks, cursor and branches ([`super::tape`]).
    pub tape: super::tape::TapeView,
    /// Which run the dashboard shows while a what-if is on ([`super::whatif`]).
    pub whatif: super::whatif::WhatIfState,
}

/// Something that happened, fed to [`update`].
#[derive(Clone, Debug)]
pub enum Msg {
    /// A key was pressed.
    Key(KeyEvent),
    /// A mouse button or the wheel was used (see `mouse`).
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
    /// Write the session's recording ([`Model::recording`]) to this file, else to the
    /// `--record` file or the default name ([`crate::ui::record::default_path`]), and say
    /// where in the status line.
    Save(Option<std::path::PathBuf>),
    /// Take the cluster back (or forward on its branch) to this instant, paused there
    /// ([`super::Cluster::rewind_to`]).
    Rewind(SimTime),
    /// Switch to this branch ([`super::Cluster::switch_branch`]).
    SwitchBranch(usize),
    /// Say which branches there are.
    ListBranches,
    /// Fork the present into a what-if run with this `set` command applied
    /// ([`super::Cluster::start_whatif`]).
    StartWhatIf(Command),
    /// Leave the what-if, going on with the what-if run when `true`
    /// ([`super::Cluster::end_whatif`]).
    EndWhatIf(bool),
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
            recording: None,
            tape: super::tape::TapeView::new(),
            whatif: Default::default(),
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
        Msg::Key(ev) => keys::on_key(model, ev, snap),
        Msg::Mouse(ev) => mouse::on_mouse(model, ev, snap),
        Msg::Resize(w, h) => {
            model.screen = (w, h);
            Vec::new()
        }
        Msg::Snapshot => {
            if let Some(recording) = &mut model.recording {
                recording.observe(snap);
            }
            model.tape.observe(snap);
            model.whatif.observe(snap);
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
                    palette_keys::reopen_refused_line(model, &command, &why);
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
pub(super) fn ended_text(snap: &Snapshot) -> String {
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

mod actions;
mod cluster_keys;
mod event_keys;
mod keys;
mod mouse;
mod palette_keys;
mod table_keys;
mod time_keys;
mod view_keys;

pub use cluster_keys::next_step;

pub use view_keys::ConfigEdit;

#[cfg(test)]
mod tests;
