//! The ratatui dashboard: model, update, view over [`crate::cluster::snapshot::Snapshot`]s.
//!
//! - [`app`]: the model and `update` (keys → [`keymap`] actions → effects).
//! - [`view`]: the layout and `view`, one file per pane (`header`, `brokers`, `partitions`,
//!   `detail`, `clients`, `events`, `footer`, `help`, `palette`).
//! - this file: the terminal and the event loop, which carries out the effects against a
//!   [`Cluster`] and paces sim time with a [`pacer::Pacer`].

pub mod app;
pub mod ascii;
pub mod broker_view;
pub mod brokers;
pub mod charts;
pub mod clients;
pub mod config_view;
pub mod consumers;
pub mod detail;
pub mod event_filter;
pub mod events;
pub mod filter_names;
pub mod fixture;
pub mod footer;
pub mod header;
pub mod help;
pub mod highlight;
pub mod input;
pub mod keymap;
pub mod lag;
pub mod lesson;
pub mod meter;
pub mod narration;
pub mod pacer;
pub mod palette;
pub mod pane_memo;
pub mod partition_filter;
pub mod partitions;
pub mod readout;
pub mod record;
pub mod rich;
pub mod status_age;
pub mod tape;
pub mod text;
pub mod theme;
pub mod view;
pub mod waits;
pub mod whatif;
pub mod why;

#[cfg(test)]
mod cut_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod view_tests;

use std::sync::Arc;
use std::time::{Duration, Instant};

use crossterm::event::{DisableMouseCapture, EnableMouseCapture, Event};
use crossterm::terminal::{BeginSynchronizedUpdate, EndSynchronizedUpdate};
use crossterm::{execute, queue};
use tokio::time::MissedTickBehavior;

use self::app::{Effect, Model, Msg, StatusKind, update};
use self::input::Input;
use self::meter::SpeedMeter;
use self::pacer::Pacer;
use self::theme::Theme;
use crate::cluster::command::{Answer, Command};
use crate::cluster::handle::{LiveSim, ScheduledSim, Sim, SimError};
use crate::cluster::snapshot::Snapshot;
use crate::cluster::tape::BranchInfo;
use crate::sim::events::ClusterEvent;
use crate::sim::{Ms, SimTime, format_instant};

/// Time between frame ticks: at most 20 redraws a second, plus one per key (drawn at once).
/// 20 rather than 30: at 1× the default cluster changes every frame, so each tick draws, and
/// 33 ms ticks cost 3.6–4.0 % of a core against the 3 % target (50 ms: 2.5–2.7 %, README
/// "Live CPU of the default cluster at 1×").
pub const FRAME: Duration = Duration::from_millis(50);

/// What the dashboard needs from a running simulation. [`LiveSim`] runs it on its own thread;
/// [`Sim`] runs it in the caller's thread, so a test can press keys against the real
/// simulation, move sim time itself and draw frames with ratatui's `TestBackend` (no terminal,
/// no wall clock); tests can also pass a fake that records what was asked.
pub trait Cluster {
    /// Applies a command now; `Err` is the refusal. When it returns, [`Cluster::latest`]
    /// already shows the command's effect.
    fn apply(&self, cmd: Command) -> Result<Answer, SimError>;
    /// Lets sim time run up to `t` (µs resolution).
    fn advance_to(&self, t: SimTime);
    /// The newest snapshot.
    fn latest(&self) -> Arc<Snapshot>;
    /// Runs sim time to the next new event, looking at most `within` ms ahead and never past
    /// `stop` (see [`Sim::run_to_next_event`]); returns its sim time (µs), `None` when none
    /// came. When it returns, [`Cluster::latest`] shows that instant.
    fn next_event(&self, within: Ms, stop: Option<SimTime>) -> Option<SimTime>;
    /// The events logged since the last call, oldest first (a lesson's `event` checks and
    /// the reveal of a question read them); empty for a cluster that does not keep them.
    fn take_events(&self) -> Vec<ClusterEvent>;
    /// Starts the run again from time 0: the same cluster, seed and startup settings (and a
    /// scenario's timeline), every counter cleared. When it returns, [`Cluster::latest`]
    /// shows time 0. Errors: the simulation cannot start again (the old run goes on).
    fn reset(&self) -> Result<(), SimError>;
    /// Takes the run back (or forward on its branch) to sim instant `t`, paused there; when
    /// it returns, [`Cluster::latest`] shows the cluster as it was at `t`. Errors: this
    /// cluster keeps no checkpoints, or the rewind failed (the run stays where it was).
    fn rewind_to(&self, _t: SimTime) -> Result<(), SimError> {
        Err(SimError::InvalidState("this simulation keeps no checkpoints, so it cannot go back".into()))
    }
    /// The run's branches, branch 1 first (empty for a cluster without a tape).
    fn branches(&self) -> Vec<BranchInfo> {
        Vec::new()
    }
    /// Switches to branch `number` at the latest instant it reached. Errors: no such branch,
    /// or this cluster keeps no branches.
    fn switch_branch(&self, _number: usize) -> Result<(), SimError> {
        Err(SimError::InvalidState("this simulation keeps no branches".into()))
    }
    /// Forks the present into a what-if run with `setting` (a `set` command) applied, shown
    /// beside the run; later commands and time apply to both. When it returns,
    /// [`Cluster::latest`] carries the what-if run. Errors: the refusal, or this cluster
    /// cannot fork.
    fn start_whatif(&self, _setting: Command) -> Result<Answer, SimError> {
        Err(SimError::InvalidState("this simulation keeps no tape, so it cannot fork a what-if".into()))
    }
    /// Ends the what-if, going on with the what-if run when `keep_whatif` (as a new branch),
    /// else with the run. Errors: no what-if is on.
    fn end_whatif(&self, _keep_whatif: bool) -> Result<(), SimError> {
        Err(SimError::InvalidState("no what-if is on".into()))
    }
}

impl Cluster for LiveSim {
    fn apply(&self, cmd: Command) -> Result<Answer, SimError> {
        LiveSim::apply(self, cmd)
    }

    fn advance_to(&self, t: SimTime) {
        LiveSim::advance_to(self, t);
    }

    fn latest(&self) -> Arc<Snapshot> {
        LiveSim::latest(self)
    }

    fn next_event(&self, within: Ms, stop: Option<SimTime>) -> Option<SimTime> {
        LiveSim::next_event_until(self, within, stop)
    }

    fn take_events(&self) -> Vec<ClusterEvent> {
        LiveSim::take_events(self)
    }

    fn reset(&self) -> Result<(), SimError> {
        LiveSim::reset(self)
    }

    fn rewind_to(&self, t: SimTime) -> Result<(), SimError> {
        LiveSim::rewind_to(self, t)
    }

    fn branches(&self) -> Vec<BranchInfo> {
        LiveSim::branches(self)
    }

    fn switch_branch(&self, number: usize) -> Result<(), SimError> {
        LiveSim::switch_branch(self, number)
    }

    fn start_whatif(&self, setting: Command) -> Result<Answer, SimError> {
        LiveSim::start_whatif(self, setting)
    }

    fn end_whatif(&self, keep_whatif: bool) -> Result<(), SimError> {
        LiveSim::end_whatif(self, keep_whatif)
    }
}

impl Cluster for ScheduledSim {
    fn apply(&self, cmd: Command) -> Result<Answer, SimError> {
        ScheduledSim::apply(self, &cmd)
    }

    /// Runs sim time up to `t` before returning (the caller's thread is the sim thread).
    fn advance_to(&self, t: SimTime) {
        ScheduledSim::advance_to(self, t);
    }

    fn latest(&self) -> Arc<Snapshot> {
        Arc::new(self.snapshot())
    }

    fn next_event(&self, within: Ms, stop: Option<SimTime>) -> Option<SimTime> {
        self.next_event_until(within, stop)
    }

    fn take_events(&self) -> Vec<ClusterEvent> {
        ScheduledSim::take_events(self)
    }

    fn reset(&self) -> Result<(), SimError> {
        ScheduledSim::reset(self)
    }

    fn rewind_to(&self, t: SimTime) -> Result<(), SimError> {
        ScheduledSim::rewind_to(self, t)
    }

    fn branches(&self) -> Vec<BranchInfo> {
        ScheduledSim::branches(self)
    }

    fn switch_branch(&self, number: usize) -> Result<(), SimError> {
        ScheduledSim::switch_branch(self, number)
    }

    fn start_whatif(&self, setting: Command) -> Result<Answer, SimError> {
        ScheduledSim::start_whatif(self, &setting)
    }

    fn end_whatif(&self, keep_whatif: bool) -> Result<(), SimError> {
        ScheduledSim::end_whatif(self, keep_whatif)
    }
}

impl Cluster for Sim {
    fn apply(&self, cmd: Command) -> Result<Answer, SimError> {
        self.apply_now(&cmd)
    }

    /// Runs sim time up to `t` before returning (the caller's thread is the sim thread).
    fn advance_to(&self, t: SimTime) {
        if t > self.now_us() {
            self.run_to(t);
        }
    }

    fn latest(&self) -> Arc<Snapshot> {
        Arc::new(self.snapshot())
    }

    fn next_event(&self, within: Ms, stop: Option<SimTime>) -> Option<SimTime> {
        let ahead = self.now_us().plus_micros(within.saturating_mul(1000));
        self.next_event_by(stop.map_or(ahead, |s| s.min(ahead)))
    }

    fn take_events(&self) -> Vec<ClusterEvent> {
        Sim::take_events(self)
    }

    /// A step-by-step [`Sim`] belongs to its caller, which builds a new one to start over;
    /// the dashboard's [`LiveSim`] restarts itself.
    fn reset(&self) -> Result<(), SimError> {
        Err(SimError::InvalidState(
            "this simulation is driven step by step by its caller and cannot restart itself".into(),
        ))
    }
}

/// Handles one key or resize: `update`, then its effects against the cluster. `snap` is
/// left at the newest snapshot, so the next message (even one from the same burst of keys)
/// starts from the state these effects left: `u u` turns unclean election on and off
/// again. Returns `true` when the user asked to quit.
pub fn handle_input(
    msg: Msg,
    model: &mut Model,
    cluster: &impl Cluster,
    pacer: &mut Pacer,
    snap: &mut Arc<Snapshot>,
) -> bool {
    let effects = update(model, msg, snap);
    sync_stop(model, pacer);
    run_effects(effects, model, cluster, pacer, snap)
}

/// Tells the pacer the instant a lesson stops the clock at, if one is played.
fn sync_stop(model: &Model, pacer: &mut Pacer) {
    pacer.set_stop(model.clock_stop());
}

/// Carries out the effects of one `update`, feeding command verdicts back into the model.
/// After each applied command `snap` becomes the cluster's newest snapshot (which shows the
/// command's effect) and the model hears of it, before the verdict. Returns `true` when the
/// user asked to quit.
pub fn run_effects(
    effects: Vec<Effect>,
    model: &mut Model,
    cluster: &impl Cluster,
    pacer: &mut Pacer,
    snap: &mut Arc<Snapshot>,
) -> bool {
    let mut quit = false;
    for effect in effects {
        match effect {
            Effect::Apply(command) => {
                let result = cluster.apply(command.clone()).map_err(|e| e.to_string());
                *snap = cluster.latest();
                let forked = after_command(model, cluster);
                on_snapshot(model, cluster, pacer, snap);
                update(model, Msg::Verdict { command, result }, snap);
                if let Some(note) = forked {
                    let verdict = model.status.as_ref().map(|s| s.text.trim_start_matches("✔ ").to_string());
                    model.say(StatusKind::Done, format!("{} · {note}", verdict.unwrap_or_default()));
                }
            }
            Effect::Step(ms) => {
                if let Some(t) = pacer.step(ms, snap.now_us) {
                    cluster.advance_to(t);
                }
            }
            Effect::NextEvent(within) => {
                let events_before = snap.event_count;
                let found = cluster.next_event(within, pacer.stop());
                *snap = cluster.latest();
                pacer.jump_to(snap.now_us);
                on_snapshot(model, cluster, pacer, snap);
                update(model, Msg::SteppedToEvent { events_before, found }, snap);
            }
            Effect::Reset => {
                let result = cluster.reset().map_err(|e| e.to_string());
                *snap = cluster.latest();
                *pacer = Pacer::new(snap.now_us);
                update(model, Msg::Restarted(result), snap);
                sync_stop(model, pacer);
            }
            Effect::Save(path) => record::save(model, snap, path),
            Effect::Rewind(t) => {
                let result = cluster.rewind_to(t);
                went_back(model, cluster, pacer, snap, result, |snap| {
                    format!(
                        "at {} (paused): the cluster as it was then · space runs on; a command starts a new branch",
                        format_instant(snap.now_us)
                    )
                });
            }
            Effect::SwitchBranch(n) => {
                let result = cluster.switch_branch(n);
                went_back(model, cluster, pacer, snap, result, |snap| {
                    format!(
                        "on branch {n}, at {} (paused), where it had reached · :branches lists them",
                        format_instant(snap.now_us)
                    )
                });
            }
            Effect::ListBranches => {
                let branches = cluster.branches();
                model.say(StatusKind::Info, tape::describe_branches(&branches));
            }
            Effect::StartWhatIf(setting) => {
                let result = cluster.start_whatif(setting.clone());
                *snap = cluster.latest();
                on_snapshot(model, cluster, pacer, snap);
                match result {
                    Ok(answer) => {
                        let name = snap.whatif.as_deref().map(whatif::name).unwrap_or_default();
                        let note = answer.note.map(|n| format!(" ({n})")).unwrap_or_default();
                        model.say(
                            StatusKind::Done,
                            format!(
                                "{name}{note}: two runs from {} on; later commands go to both · v shows the other, V goes on with the one shown",
                                format_instant(snap.now_us)
                            ),
                        );
                    }
                    Err(e) => model.say(StatusKind::Error, format!("whatif {setting}: {e}")),
                }
            }
            Effect::EndWhatIf(keep_whatif) => {
                let name = snap.whatif.as_deref().map(whatif::name).unwrap_or_default();
                match cluster.end_whatif(keep_whatif) {
                    Ok(()) => {
                        *snap = cluster.latest();
                        let branches = cluster.branches();
                        if keep_whatif {
                            // The run is the what-if's branch now: its ticks and its recording.
                            model.tape.went_back(snap, &branches);
                            if let Some(recording) = &mut model.recording {
                                recording.start_again();
                            }
                        }
                        if let Some(recording) = &mut model.recording {
                            recording.set_other_branches(tape::other_branches(&branches));
                        }
                        on_snapshot(model, cluster, pacer, snap);
                        let text = if keep_whatif {
                            format!(
                                "going on with {name}, as branch {}; the run it was compared with is branch {} (:branch N goes back)",
                                model.tape.branch,
                                branches
                                    .iter()
                                    .find(|b| b.current)
                                    .and_then(|b| b.parent)
                                    .map_or(1, |(n, _)| n)
                            )
                        } else {
                            format!("going on with the run; {name} is dropped")
                        };
                        model.say(StatusKind::Done, text);
                    }
                    Err(e) => model.say(StatusKind::Error, format!("cannot leave the what-if: {e}")),
                }
            }
            Effect::Quit => quit = true,
        }
    }
    quit
}

/// After a command: the tape hears whether it started a new branch; if so, the words for the
/// status line.
fn after_command(model: &mut Model, cluster: &impl Cluster) -> Option<String> {
    let branches = cluster.branches();
    let before = model.tape.branch;
    model.tape.after_command(&branches);
    if let Some(recording) = &mut model.recording {
        recording.set_other_branches(tape::other_branches(&branches));
    }
    (model.tape.branch != before).then(|| {
        format!(
            "branch {} starts here; branch {before} keeps its future (:branch {before} goes back)",
            model.tape.branch
        )
    })
}

/// After a rewind or a branch switch: the new snapshot, a pacer from its instant, the tape and
/// the recording follow, and the status line says where the run is (or why it is not).
fn went_back(
    model: &mut Model,
    cluster: &impl Cluster,
    pacer: &mut Pacer,
    snap: &mut Arc<Snapshot>,
    result: Result<(), SimError>,
    say: impl Fn(&Snapshot) -> String,
) {
    match result {
        Ok(()) => {
            *snap = cluster.latest();
            *pacer = Pacer::new(snap.now_us);
            model.paused = true;
            model.events_anchor = None;
            let branches = cluster.branches();
            model.tape.went_back(snap, &branches);
            if let Some(recording) = &mut model.recording {
                recording.set_other_branches(tape::other_branches(&branches));
            }
            update(model, Msg::Snapshot, snap);
            model.say(StatusKind::Done, say(snap));
            sync_stop(model, pacer);
        }
        Err(e) => model.say(StatusKind::Error, format!("cannot go there: {e}")),
    }
}

/// A newer snapshot is in `snap`: tells the model (a lesson first hears of the events that
/// led there) and grants more sim time if the pacer's lead and the lesson allow it.
fn on_snapshot(model: &mut Model, cluster: &impl Cluster, pacer: &mut Pacer, snap: &Snapshot) {
    if model.lesson.is_some() {
        update(model, Msg::Events(cluster.take_events()), snap);
    }
    update(model, Msg::Snapshot, snap);
    record::autosave(model, snap);
    sync_stop(model, pacer);
    if let Some(t) = pacer.refill(snap.now_us) {
        cluster.advance_to(t);
    }
}

/// Most snapshots one [`frame`] takes in (each grant runs at most a second ahead).
const FRAME_REFILLS: usize = 256;

/// One frame of the event loop for a cluster that runs in the caller's thread (a [`Sim`]),
/// for whole-app tests in process: `elapsed` wall time passes at the model's speed, sim time
/// runs as far as the pacer grants (never past a lesson's stop), and the model takes in each
/// newer snapshot as the event loop does, `snap` ending at the newest.
pub fn frame(
    model: &mut Model,
    cluster: &impl Cluster,
    pacer: &mut Pacer,
    elapsed: Duration,
    snap: &mut Arc<Snapshot>,
) {
    sync_stop(model, pacer);
    if let Some(t) = pacer.tick(elapsed, model.speed, model.paused, snap.now_us) {
        cluster.advance_to(t);
    }
    for _ in 0..FRAME_REFILLS {
        let latest = cluster.latest();
        let moved = latest.now_us != snap.now_us;
        *snap = latest;
        on_snapshot(model, cluster, pacer, snap);
        if !moved {
            break;
        }
    }
}

/// How the dashboard ended. The process exits with [`Exit::code`], the status a shell expects
/// of a program that stopped that way (128 + the signal number for a signal).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Exit {
    /// `q`, or the input closed: status 0.
    Quit,
    /// Ctrl-C (as a key in raw mode, or SIGINT): status 130.
    Interrupted,
    /// SIGTERM: status 143.
    Terminated,
    /// SIGHUP, the terminal closed: status 129.
    HungUp,
}

impl Exit {
    /// The process exit status.
    pub const fn code(self) -> u8 {
        match self {
            Exit::Quit => 0,
            Exit::Interrupted => 130,
            Exit::Terminated => 143,
            Exit::HungUp => 129,
        }
    }
}

/// How the dashboard looks and answers keys, from the flags and the user's config file.
#[derive(Clone, Debug)]
pub struct Look {
    /// Colours, palette and glyphs.
    pub theme: Theme,
    /// Key overrides (`[keys]`).
    pub keys: keymap::KeyOverrides,
    /// Config file entries that were skipped; shown in the status line at start.
    pub warnings: Vec<String>,
}

/// Opens the dashboard on a running simulation and returns how the user left it. `speed` is
/// the initial sim speed (sim ms per wall ms, 0.01 to 100); `recording` is fed every snapshot
/// and, with `--record`, written on every command and once more at the end (a failure of that
/// last write is the error returned). The terminal is restored on quit,
/// on Ctrl-C, on a signal and on a panic; mouse reporting is switched off with it.
pub fn run_dashboard(
    live: LiveSim,
    speed: f64,
    look: Look,
    script: Option<lesson::Script>,
    recording: crate::scenario::recording::Recording,
) -> color_eyre::Result<Exit> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    // The panic hook restores the terminal (as `ratatui::init`'s does) before the report,
    // and first stops mouse reporting.
    let previous_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = execute!(std::io::stdout(), DisableMouseCapture);
        ratatui::restore();
        previous_hook(info);
    }));
    let mut terminal = open_terminal().inspect_err(|_| ratatui::restore())?;
    let result = match execute!(std::io::stdout(), EnableMouseCapture) {
        Ok(()) => runtime.block_on(event_loop(&mut terminal, &live, speed, look, script, recording)),
        Err(e) => Err(e.into()),
    };
    // Whatever the terminal still buffers (a resize's clear, a last frame) goes out now, on
    // the alternate screen: written after leaving it, it would stay on the user's screen.
    let _ = std::io::Write::flush(terminal.backend_mut());
    let _ = execute!(std::io::stdout(), DisableMouseCapture);
    ratatui::restore();
    result
}

/// The dashboard's terminal: crossterm on a buffered stdout.
type Term = ratatui::Terminal<ratatui::backend::CrosstermBackend<std::io::BufWriter<std::io::Stdout>>>;

/// Raw mode, the alternate screen and a terminal to draw on. The viewport is fixed at the
/// terminal's size and follows its resize events, so a frame does not ask the terminal for
/// its size (ratatui's full-screen viewport opens `/dev/tty` and asks on every draw). Stdout
/// is buffered beyond its 1 KiB line buffer, so a frame is one write, not one per KiB.
fn open_terminal() -> std::io::Result<Term> {
    let (w, h) = crossterm::terminal::size()?;
    crossterm::terminal::enable_raw_mode()?;
    execute!(std::io::stdout(), crossterm::terminal::EnterAlternateScreen)?;
    let backend = ratatui::backend::CrosstermBackend::new(std::io::BufWriter::with_capacity(
        1 << 16,
        std::io::stdout(),
    ));
    let viewport = ratatui::Viewport::Fixed(ratatui::layout::Rect::new(0, 0, w, h));
    ratatui::Terminal::with_options(backend, ratatui::TerminalOptions { viewport })
}

/// Signals that end the dashboard the way `q` does, so the terminal is restored even when the
/// process is told to stop from outside (`kill`, the terminal closing).
struct Stop {
    #[cfg(unix)]
    signals: Vec<(tokio::signal::unix::Signal, Exit)>,
}

impl Stop {
    #[cfg(unix)]
    fn listen() -> std::io::Result<Stop> {
        use tokio::signal::unix::{SignalKind, signal};
        let kinds = [
            (SignalKind::interrupt(), Exit::Interrupted),
            (SignalKind::terminate(), Exit::Terminated),
            (SignalKind::hangup(), Exit::HungUp),
        ];
        let signals = kinds.into_iter().map(|(kind, exit)| Ok((signal(kind)?, exit)));
        Ok(Stop { signals: signals.collect::<std::io::Result<_>>()? })
    }

    #[cfg(not(unix))]
    fn listen() -> std::io::Result<Stop> {
        Ok(Stop {})
    }

    /// Resolves when any of the signals arrives, with how the dashboard should end.
    #[cfg(unix)]
    async fn requested(&mut self) -> Exit {
        // Polled on every turn of the event loop: no future is built or boxed per turn.
        std::future::poll_fn(|cx| {
            let mut arrived =
                self.signals.iter_mut().filter_map(|(s, exit)| s.poll_recv(cx).is_ready().then_some(*exit));
            arrived.next().map_or(std::task::Poll::Pending, std::task::Poll::Ready)
        })
        .await
    }

    #[cfg(not(unix))]
    async fn requested(&mut self) -> Exit {
        let _ = tokio::signal::ctrl_c().await;
        Exit::Interrupted
    }
}

/// Wall time between frame ticks, for pacing, and since the start, for the speed meter.
struct WallClock {
    origin: Instant,
    last: Instant,
}

impl WallClock {
    #[allow(clippy::disallowed_methods)] // UI pacing follows the wall clock; the sim never reads it
    fn start() -> WallClock {
        let now = Instant::now();
        WallClock { origin: now, last: now }
    }

    #[allow(clippy::disallowed_methods)] // UI pacing follows the wall clock; the sim never reads it
    fn lap(&mut self) -> Duration {
        let now = Instant::now();
        let elapsed = now.saturating_duration_since(self.last);
        self.last = now;
        elapsed
    }

    /// Wall time from the start to the last lap.
    fn since_start(&self) -> Duration {
        self.last.saturating_duration_since(self.origin)
    }
}

// The frame ticker and the status line's expiry run on wall-clock time, on the UI thread's
// own runtime: the simulation's clock is the sim thread's, and no sim code runs here.
#[allow(clippy::disallowed_methods)]
async fn event_loop(
    terminal: &mut Term,
    live: &LiveSim,
    speed: f64,
    look: Look,
    script: Option<lesson::Script>,
    recording: crate::scenario::recording::Recording,
) -> color_eyre::Result<Exit> {
    let mut snapshots = live.watch();
    let mut snap: Arc<Snapshot> = snapshots.borrow_and_update().clone();
    let mut model = Model::new(speed, look.theme, &snap);
    model.recording = Some(recording);
    model.keys = look.keys;
    model.lesson = script.map(|s| lesson::Lesson::new(Arc::new(s)));
    update(&mut model, Msg::Events(live.take_events()), &snap);
    lesson::begin(&mut model, &snap);
    if !look.warnings.is_empty() {
        model.say(app::StatusKind::Error, look.warnings.join("; "));
    } else if let Some(path) = model.recording.as_ref().and_then(|r| r.autosave.clone()) {
        let text = format!("recording this session to {} as it runs (w writes it now)", path.display());
        model.say(app::StatusKind::Info, text);
    }
    let size = terminal.size()?;
    update(&mut model, Msg::Resize(size.width, size.height), &snap);
    let mut pacer = Pacer::new(snap.now_us);
    let mut keys = Input::start()?;
    let mut ticks = tokio::time::interval(FRAME);
    ticks.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let mut clock = WallClock::start();
    let mut meter = SpeedMeter::default();
    let (mut dirty, mut sim_alive) = (true, true);
    let mut stop = Stop::listen()?;
    let mut status_age = status_age::StatusAge::default();
    // `return` in this block ends the loop, not the function: the recording is written after.
    let exit: color_eyre::Result<Exit> = async { loop {
        // The status line ages out; once the sim is gone its last word stays.
        let status_due = status_age.remaining(&model, clock.since_start()).filter(|_| sim_alive);
        tokio::select! {
            biased;
            exit = stop.requested() => return Ok(exit),
            _ = tokio::time::sleep(status_due.unwrap_or_default()), if status_due.is_some() => {
                if status_age.expire(&mut model, clock.since_start()) {
                    draw(terminal, &model, &snap)?;
                }
            }
            event = keys.next() => {
                let msg = match event {
                    None => return Ok(Exit::Quit),
                    Some(event) => match event? {
                        Event::Key(key) => Msg::Key(key),
                        Event::Mouse(mouse) => Msg::Mouse(mouse),
                        Event::Resize(w, h) => {
                            // The viewport is fixed (no size query per frame): it follows here.
                            terminal.resize(ratatui::layout::Rect::new(0, 0, w, h))?;
                            Msg::Resize(w, h)
                        }
                        _ => continue,
                    },
                };
                let exit = if is_ctrl_c(&msg) { Exit::Interrupted } else { Exit::Quit };
                let key = matches!(msg, Msg::Key(_));
                let was_paused = model.paused;
                if handle_input(msg, &mut model, live, &mut pacer, &mut snap) {
                    return Ok(exit);
                }
                if was_paused && !model.paused {
                    // The paused time earns no sim time: the next tick counts from now.
                    clock.lap();
                }
                // A key is answered at once, not at the next tick; mouse motion and resizes,
                // which can come in floods, wait for the tick.
                if key {
                    draw(terminal, &model, &snap)?;
                    dirty = false;
                } else {
                    dirty = true;
                }
            }
            // Paused with nothing to draw, the dashboard sleeps until input or a snapshot.
            _ = ticks.tick(), if !model.paused || dirty => {
                // The snapshot the last tick's grant produced, if it came: read here rather
                // than woken for, so a frame costs one wake-up, not two.
                if sim_alive {
                    dirty |= take_snapshot(snapshots.has_changed(), &mut snapshots, &mut model, live, &mut pacer, &mut snap, &mut sim_alive);
                }
                dirty |= on_tick(&mut model, live, &mut pacer, &mut clock, &mut meter, &snap, sim_alive);
                if dirty {
                    draw(terminal, &model, &snap)?;
                    dirty = false;
                }
            }
            // Woken by a snapshot only when something waits for it: a grant beyond the
            // lead (fast speeds refill at once), or a step while paused (no ticks run).
            changed = snapshots.changed(), if sim_alive && (model.paused || pacer.waiting()) => {
                let changed = changed.map(|()| true);
                dirty |= take_snapshot(changed, &mut snapshots, &mut model, live, &mut pacer, &mut snap, &mut sim_alive);
            }
        }
    } }.await;
    // The recording's last version ends where the session did.
    record::finish(&model, &snap)
        .map_err(|why| color_eyre::eyre::eyre!("cannot write the recording: {why}"))?;
    exit
}

/// Takes in a new snapshot (`Ok(true)`), or the end of the sim (`Err`): tells the model and
/// grants more sim time if the pacer's lead allows it. Returns whether anything changed.
fn take_snapshot(
    changed: Result<bool, tokio::sync::watch::error::RecvError>,
    snapshots: &mut tokio::sync::watch::Receiver<Arc<Snapshot>>,
    model: &mut Model,
    live: &LiveSim,
    pacer: &mut Pacer,
    snap: &mut Arc<Snapshot>,
    sim_alive: &mut bool,
) -> bool {
    match changed {
        Ok(false) => false,
        Ok(true) => {
            *snap = snapshots.borrow_and_update().clone();
            on_snapshot(model, live, pacer, snap);
            true
        }
        Err(_) => {
            *sim_alive = false;
            update(model, Msg::SimEnded, snap);
            true
        }
    }
}

/// Ctrl-C arrives as a key in raw mode; quitting with it exits as SIGINT would.
fn is_ctrl_c(msg: &Msg) -> bool {
    use crossterm::event::{KeyCode, KeyModifiers};
    matches!(msg, Msg::Key(k) if k.code == KeyCode::Char('c') && k.modifiers.contains(KeyModifiers::CONTROL))
}

/// One frame tick: grants sim time by the wall time that passed and measures the speed
/// sim time really runs at. Returns whether the model changed in a way the screen shows.
fn on_tick(
    model: &mut Model,
    live: &LiveSim,
    pacer: &mut Pacer,
    clock: &mut WallClock,
    meter: &mut SpeedMeter,
    snap: &Snapshot,
    sim_alive: bool,
) -> bool {
    sync_stop(model, pacer);
    if let Some(t) = pacer.tick(clock.lap(), model.speed, model.paused, snap.now_us) {
        live.advance_to(t);
    }
    let asked = (sim_alive && !model.paused && !model.scenario_over(snap)).then_some(model.speed);
    meter.record(clock.since_start(), snap.now, asked);
    let shown = model.actual_speed;
    update(model, Msg::Measured(meter.actual()), snap);
    model.actual_speed != shown
}

/// Draws one frame inside a synchronized update, so the terminal never shows half of it.
fn draw(terminal: &mut Term, model: &Model, snap: &Snapshot) -> color_eyre::Result<()> {
    queue!(terminal.backend_mut(), BeginSynchronizedUpdate)?;
    terminal.draw(|frame| view::view(model, snap, frame))?;
    execute!(terminal.backend_mut(), EndSynchronizedUpdate)?;
    Ok(())
}
