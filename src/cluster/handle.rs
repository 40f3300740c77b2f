//! The way in and out of a running simulation: [`Sim`] (synchronous, for tests and headless
//! runs) and [`LiveSim`] (a sim thread paced by the dashboard).

use super::driver::{Driver, Runner};
use super::observe;
use super::snapshot::{ScenarioInfo, Snapshot};
use super::spec::ClusterSpec;
use super::tape::{BranchInfo, Tape};
use super::world::World;
use crate::cluster::command::{Answer, Command};
use crate::cluster::events::AppliedCommand;
use crate::sim::events::ClusterEvent;
use crate::sim::{BrokerId, Ms, SimTime, join_ids};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::mpsc;

pub use crate::sim::error::SimError;

/// Most brokers a cluster may have (isrlab's limit: every broker is a node with its own logs;
/// the dashboard's `0`–`9` keys select the first ten, the palette any of them).
pub const MAX_BROKERS: usize = 100;

/// A simulation driven step by step from the calling thread. Time only moves inside
/// [`Sim::advance_to`], so between calls the cluster is frozen and can be inspected.
pub struct Sim {
    world: Rc<World>,
    runner: Runner,
    /// The last snapshot's partition views, which the next snapshot shares where unchanged.
    views: RefCell<observe::ViewCache>,
}

fn validate_brokers(ids: &[BrokerId]) -> Result<(), SimError> {
    if ids.is_empty() {
        return Err(SimError::InvalidCluster("a cluster needs at least one broker".into()));
    }
    if ids.len() > MAX_BROKERS {
        return Err(SimError::InvalidCluster(format!(
            "at most {MAX_BROKERS} brokers are supported, got {}",
            ids.len()
        )));
    }
    if ids.iter().any(|&b| b < 0) {
        return Err(SimError::InvalidCluster("broker ids must be 0 or more".into()));
    }
    let mut sorted = ids.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    if sorted.len() != ids.len() {
        return Err(SimError::InvalidCluster(format!("duplicate broker ids in [{}]", join_ids(ids))));
    }
    Ok(())
}

impl Sim {
    /// Builds the cluster, registers the brokers, creates the topics and starts the producers
    /// at t=0. Errors: any [`SimError`] from the spec.
    pub fn new(spec: ClusterSpec) -> Result<Sim, SimError> {
        Sim::with_driver(spec, Driver::Direct)
    }

    /// [`Sim::new`] with the given driver of the node steps ([`Driver::Direct`] by default;
    /// the dashboard runs [`Driver::Tasks`]). Both give the same trace.
    pub fn with_driver(spec: ClusterSpec, driver: Driver) -> Result<Sim, SimError> {
        validate_brokers(&spec.brokers)?;
        spec.broker_config.validate()?;
        for p in &spec.producers {
            p.config.validate()?;
        }
        let world = super::build::build_world(&spec)?;
        let runner = Runner::new(driver)?;
        runner.attach(&world);
        Ok(Sim { world, runner, views: RefCell::new(observe::ViewCache::following()) })
    }

    /// A frozen checkpoint: a deep copy of the world as it is now, without a driver (so it
    /// holds no runtime); [`Sim::thaw`] runs a copy of it.
    pub fn freeze(&self) -> Frozen {
        Frozen(Rc::new(self.world.fork()))
    }

    /// A sim run by `driver` from a copy of `frozen` (which stays as it is, to thaw again).
    /// Errors: the driver could not start.
    pub fn thaw(frozen: &Frozen, driver: Driver) -> Result<Sim, SimError> {
        let world = Rc::new(frozen.0.fork());
        let runner = Runner::new(driver)?;
        runner.attach(&world);
        Ok(Sim { world, runner, views: RefCell::new(observe::ViewCache::following()) })
    }

    /// How many events and commands the trace holds so far.
    pub(crate) fn trace_len(&self) -> u64 {
        self.world.log.borrow().count()
    }

    /// Which driver runs it.
    pub fn driver(&self) -> Driver {
        self.runner.kind()
    }

    /// A checkpoint: a deep copy of the whole simulation as it is now (every node, link,
    /// message in flight, timer, client and random stream), run by the same kind of driver.
    /// The copy and the original go on independently; given the same commands they give the
    /// same trace. Errors: the copy's driver could not start.
    pub fn fork(&self) -> Result<Sim, SimError> {
        let world = Rc::new(self.world.fork());
        let runner = Runner::new(self.runner.kind())?;
        runner.attach(&world);
        Ok(Sim { world, runner, views: RefCell::new(observe::ViewCache::following()) })
    }

    /// Followers whose committed prefix differs from their leader's (log matching; see
    /// [`super::consistency`]).
    pub fn diverged_replicas(&self) -> Vec<super::consistency::Divergence> {
        super::consistency::diverged_replicas(&self.world)
    }

    /// Offsets consumers jumped over between two reads of a partition (the audit ledger's
    /// [`crate::sim::audit::Ledger::poll_skipped`]).
    pub fn poll_skipped(&self) -> u64 {
        self.world.ledger.borrow().poll_skipped()
    }

    /// A planted fault, for the test that shows the driver-equivalence check can fail: from
    /// now on, of two messages due at the same instant the later-scheduled one is taken first.
    #[doc(hidden)]
    pub fn plant_same_instant_swap(&mut self) {
        self.world.plant_swap.set(true);
    }

    /// Current sim time (ms).
    pub fn now(&self) -> Ms {
        self.world.now()
    }

    /// Runs every agenda entry up to sim time `t` (ms), in order, including those due at `t`
    /// itself.
    pub fn advance_to(&mut self, t: Ms) {
        self.run_to(SimTime::from_ms(t));
    }

    /// Current sim time with its microseconds.
    pub fn now_us(&self) -> SimTime {
        self.world.now_us()
    }

    /// [`Sim::advance_to`] to a microsecond: a command applied then acts between the
    /// milliseconds on which the cores' timers fire, e.g. while messages are on their way.
    pub fn advance_to_time(&mut self, t: SimTime) {
        self.run_to(t);
    }

    /// [`Sim::advance_to_time`] through a shared reference, for the dashboard's cluster
    /// interface (single-threaded: nothing else can run meanwhile).
    pub(crate) fn run_to(&self, t: SimTime) {
        self.runner.run(&self.world, t, &|_| false);
        if t > self.world.now_us() {
            self.world.clock.set(t);
        }
    }

    /// Runs sim time until at least one new event enters the event log, then finishes every
    /// agenda entry due at that same instant (so every event of that instant is in), and
    /// stops there. Time moves from one agenda entry to the next (the earliest timer of any
    /// node or message arrival), never in fixed slices. Searches at most `within` ms of sim
    /// time; returns the new events' time (µs), or `None` when there were none by then (sim
    /// time then stands exactly `within` ms later, to the microsecond).
    pub fn run_to_next_event(&mut self, within: Ms) -> Option<SimTime> {
        self.next_event_by(self.now_us().plus_micros(within.saturating_mul(1000)))
    }

    /// [`Sim::run_to_next_event`] up to the absolute sim time `deadline`, through a shared
    /// reference.
    pub(crate) fn next_event_by(&self, deadline: SimTime) -> Option<SimTime> {
        let before = self.world.log.borrow().count();
        self.runner.run(&self.world, deadline, &|w| w.log.borrow().count() > before);
        if self.world.log.borrow().count() > before {
            return Some(self.now_us());
        }
        if deadline > self.world.now_us() {
            self.world.clock.set(deadline);
        }
        None
    }

    /// Validates a command against the cluster as it is now and applies it at the current
    /// instant; it joins [`Sim::commands`]. Errors: the refusal; the cluster is unchanged.
    pub fn apply(&mut self, cmd: &Command) -> Result<Answer, SimError> {
        self.apply_now(cmd)
    }

    /// [`Sim::apply`] through a shared reference, for the dashboard's cluster interface.
    pub(crate) fn apply_now(&self, cmd: &Command) -> Result<Answer, SimError> {
        let now = self.world.now();
        let _span = tracing::info_span!("command", t = now, command = %cmd).entered();
        let result = cmd.apply(&self.world);
        match &result {
            Ok(_) => tracing::info!("applied"),
            Err(e) => tracing::info!(refused = %e, "refused"),
        }
        result
    }

    /// Every command applied so far with its sim time, oldest first (part of the trace).
    pub fn commands(&self) -> Vec<AppliedCommand> {
        self.world.log.borrow_mut().commands().to_vec()
    }

    /// The cluster as it is now.
    pub fn snapshot(&self) -> Snapshot {
        observe::snapshot(&self.world, &mut self.views.borrow_mut())
    }

    /// Events since the previous call, oldest first.
    pub fn drain_events(&mut self) -> Vec<ClusterEvent> {
        self.world.log.borrow_mut().drain()
    }

    /// [`Sim::drain_events`] through a shared reference, for the dashboard's cluster
    /// interface (a lesson watches every event, not only the snapshot's recent window).
    pub(crate) fn take_events(&self) -> Vec<ClusterEvent> {
        self.world.log.borrow_mut().drain()
    }

    /// Stops keeping events for [`Sim::drain_events`] (they stay in the snapshot's recent
    /// window): for a run nobody drains, so its memory does not grow with every event.
    pub fn stop_draining(&mut self) {
        self.world.log.borrow_mut().stop_undrained();
    }

    /// Bytes the logs' batches and the audit ledger take now (what the memory guard watches).
    pub fn memory_held(&self) -> u64 {
        self.world.memory_held()
    }

    /// Changes how many bytes the logs' batches and the audit ledger may take before isrlab
    /// stops the producers (default [`super::world::MEMORY_BUDGET_BYTES`]).
    pub fn set_memory_budget(&mut self, bytes: u64) {
        self.world.memory_budget.set(bytes);
    }

    /// Agenda entries the run has taken so far (messages delivered, timers fired, resumes,
    /// services, and stale entries skipped): the unit the benchmarks divide their time by.
    pub fn entries_taken(&self) -> u64 {
        self.world.entries_taken.get()
    }

    /// A hash of the whole trace so far (events and applied commands); equal runs give equal
    /// hashes.
    pub fn trace_hash(&self) -> u64 {
        self.world.log.borrow().trace_hash()
    }
}

/// A frozen copy of a simulation's world ([`Sim::freeze`]).
pub struct Frozen(Rc<World>);

/// What the dashboard thread sends the sim thread.
enum Control {
    AdvanceTo(SimTime),
    Apply(Command, mpsc::Sender<Result<Answer, SimError>>),
    /// Look `Ms` ahead for the next event, never past the instant given.
    NextEvent(Ms, Option<SimTime>, mpsc::Sender<Option<SimTime>>),
    Reset(mpsc::Sender<Result<(), SimError>>),
    Rewind(SimTime, mpsc::Sender<Result<(), SimError>>),
    Branches(mpsc::Sender<Vec<BranchInfo>>),
    Switch(usize, mpsc::Sender<Result<(), SimError>>),
    WhatIf(Command, mpsc::Sender<Result<Answer, SimError>>),
    EndWhatIf(bool, mpsc::Sender<Result<(), SimError>>),
    /// Work of the wire adapter on the world, at the current sim instant (a real client's
    /// request, or collecting the answers).
    Wire(WireWork),
}

/// A piece of the wire adapter's work, run on the sim thread against the world.
pub(crate) type WireWork = Box<dyn FnOnce(&World) + Send>;

/// The wire adapter's way into a [`LiveSim`]'s thread: cheap to clone, usable from any
/// thread. Its work runs between two advances, at the sim instant the thread has reached.
#[derive(Clone)]
pub struct WirePort {
    control: mpsc::Sender<Control>,
}

impl WirePort {
    /// Runs `work` on the sim thread. Returns false once the simulation has stopped.
    pub(crate) fn run(&self, work: impl FnOnce(&World) + Send + 'static) -> bool {
        self.control.send(Control::Wire(Box::new(work))).is_ok()
    }

    /// Lets sim time run up to `t`, as [`LiveSim::advance_to`] does.
    pub fn advance_to(&self, t: SimTime) {
        let _ = self.control.send(Control::AdvanceTo(t));
    }
}

/// Why [`pace`] returned.
enum Paced {
    /// The dashboard is gone.
    Closed,
    /// The dashboard asked for a restart from time 0.
    Reset(mpsc::Sender<Result<(), SimError>>),
}

/// A simulation on its own thread, paced from outside (the dashboard). Snapshots arrive on a
/// watch channel; commands are applied at the sim instant they arrive.
pub struct LiveSim {
    control: Option<mpsc::Sender<Control>>,
    snapshots: tokio::sync::watch::Receiver<Arc<Snapshot>>,
    /// Every event, in batches, when spawned with [`LiveSim::spawn_tapped`].
    tap: Option<mpsc::Receiver<Tapped>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// What the event tap of a [`LiveSim`] carries.
enum Tapped {
    /// The events logged since the last batch, oldest first.
    Events(Vec<ClusterEvent>),
    /// The run started again from time 0: the batches before belong to the old run.
    Restarted,
}

impl LiveSim {
    /// Starts the sim thread. `timeline` holds commands to apply at given sim times (to the
    /// microsecond), as a scenario's `[[at]]` entries do; with `scenario`, sim time stops at
    /// its end and every snapshot names it. Errors: the spec's [`SimError`].
    pub fn spawn(
        spec: ClusterSpec,
        timeline: Vec<(SimTime, Command)>,
        scenario: Option<ScenarioInfo>,
    ) -> Result<LiveSim, SimError> {
        LiveSim::start(spec, timeline, scenario, false)
    }

    /// [`LiveSim::spawn`], keeping every event for [`LiveSim::take_events`] (a lesson checks
    /// `event = "…"` expectations against all of them, not only the snapshot's recent window).
    /// The events wait for the dashboard in batches; as sim time runs at most a second ahead
    /// of the newest snapshot the dashboard took, they stay few.
    pub fn spawn_tapped(
        spec: ClusterSpec,
        timeline: Vec<(SimTime, Command)>,
        scenario: Option<ScenarioInfo>,
    ) -> Result<LiveSim, SimError> {
        LiveSim::start(spec, timeline, scenario, true)
    }

    fn start(
        spec: ClusterSpec,
        mut timeline: Vec<(SimTime, Command)>,
        scenario: Option<ScenarioInfo>,
        tapped: bool,
    ) -> Result<LiveSim, SimError> {
        let (control_tx, control_rx) = mpsc::channel();
        let (tap_tx, tap_rx) = mpsc::channel();
        let (ready_tx, ready_rx) = mpsc::channel();
        let (snap_tx, snap_rx) = tokio::sync::watch::channel(Arc::new(Snapshot::default()));
        timeline.sort_by_key(|(t, _)| *t);
        let thread = std::thread::Builder::new()
            .name("isrlab-sim".into())
            .spawn(move || {
                let start = |spec: ClusterSpec| {
                    Sim::with_driver(spec, Driver::Tasks).map(|mut sim| {
                        if !tapped {
                            sim.stop_draining();
                        }
                        sim
                    })
                };
                let sim = match start(spec.clone()) {
                    Ok(sim) => sim,
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                let publish = |tape: &Tape| {
                    let sim = tape.sim();
                    // The events first: whoever sees the snapshot finds its events in the tap.
                    if tapped {
                        let _ = tap_tx.send(Tapped::Events(sim.take_events()));
                    }
                    let _ = snap_tx.send(Arc::new(tape_snapshot(tape, scenario.clone())));
                };
                let end = scenario.as_ref().map(|s| s.end);
                let mut tape = Tape::new(sim, timeline.clone(), end);
                publish(&tape);
                let _ = ready_tx.send(Ok(()));
                while let Paced::Reset(reply) = pace(&mut tape, &control_rx, &publish) {
                    // The same spec started once, so it starts again; if not, the run goes on.
                    let fresh = start(spec.clone()).map(|fresh| {
                        tape = Tape::new(fresh, timeline.clone(), end);
                        if tapped {
                            let _ = tap_tx.send(Tapped::Restarted);
                        }
                        publish(&tape);
                    });
                    let _ = reply.send(fresh);
                }
            })
            .map_err(|e| SimError::InvalidCluster(format!("cannot start the sim thread: {e}")))?;
        match ready_rx.recv() {
            Ok(Ok(())) => Ok(LiveSim {
                control: Some(control_tx),
                snapshots: snap_rx,
                tap: tapped.then_some(tap_rx),
                thread: Some(thread),
            }),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(SimError::InvalidCluster("the sim thread stopped during start-up".into())),
        }
    }

    fn send(&self, c: Control) {
        if let Some(tx) = &self.control {
            let _ = tx.send(c);
        }
    }

    /// Lets sim time run up to `t` (µs resolution). Returns at once.
    pub fn advance_to(&self, t: SimTime) {
        self.send(Control::AdvanceTo(t));
    }

    /// Applies a command at the sim's current instant and waits for the verdict; by then
    /// [`LiveSim::latest`] already shows its effect. Errors: the refusal, including every
    /// command once a scenario has reached its end.
    pub fn apply(&self, cmd: Command) -> Result<Answer, SimError> {
        let (tx, rx) = mpsc::channel();
        self.send(Control::Apply(cmd, tx));
        rx.recv().unwrap_or_else(|_| Err(SimError::InvalidState("the simulation has stopped".into())))
    }

    /// Runs sim time to the next new event, searching at most `within` ms, as
    /// [`Sim::run_to_next_event`] does (a scenario's scheduled commands are applied on the
    /// way, and time never passes its end); waits for the answer, by when
    /// [`LiveSim::latest`] shows that instant. `None`: no event within `within` ms.
    pub fn next_event(&self, within: Ms) -> Option<SimTime> {
        self.next_event_until(within, None)
    }

    /// [`LiveSim::next_event`], never past `stop` either (a lesson's next step): with no
    /// event before it, sim time stands at `stop` (or `within` ms on, if sooner).
    pub fn next_event_until(&self, within: Ms, stop: Option<SimTime>) -> Option<SimTime> {
        let (tx, rx) = mpsc::channel();
        self.send(Control::NextEvent(within, stop, tx));
        rx.recv().ok().flatten()
    }

    /// The events logged since the last call, oldest first, of the run as it is now (after
    /// [`LiveSim::reset`], only the new run's); empty unless spawned with
    /// [`LiveSim::spawn_tapped`]. The events of the newest snapshot are in by the time
    /// [`LiveSim::latest`] shows it.
    pub fn take_events(&self) -> Vec<ClusterEvent> {
        let Some(tap) = &self.tap else { return Vec::new() };
        let mut events = Vec::new();
        for batch in tap.try_iter() {
            match batch {
                Tapped::Events(more) => events.extend(more),
                Tapped::Restarted => events.clear(),
            }
        }
        events
    }

    /// Starts the run again from time 0 with the spec and timeline it was spawned with
    /// (so the same cluster, seed and startup settings; commands applied since are gone),
    /// and waits until [`LiveSim::latest`] shows time 0. Errors: the sim could not start
    /// again (the old run goes on), or it has stopped.
    pub fn reset(&self) -> Result<(), SimError> {
        let (tx, rx) = mpsc::channel();
        self.send(Control::Reset(tx));
        rx.recv().unwrap_or_else(|_| Err(SimError::InvalidState("the simulation has stopped".into())))
    }

    /// Puts the run back at sim instant `t` of the current branch (see [`Tape::rewind_to`]);
    /// the clock stays there until the next [`LiveSim::advance_to`], and by the time this
    /// returns [`LiveSim::latest`] shows the cluster as it was at `t`. Errors: it could not.
    pub fn rewind_to(&self, t: SimTime) -> Result<(), SimError> {
        let (tx, rx) = mpsc::channel();
        self.send(Control::Rewind(t, tx));
        rx.recv().unwrap_or_else(|_| Err(SimError::InvalidState("the simulation has stopped".into())))
    }

    /// Every branch of the run, branch 1 (the run as it started) first.
    pub fn branches(&self) -> Vec<BranchInfo> {
        let (tx, rx) = mpsc::channel();
        self.send(Control::Branches(tx));
        rx.recv().unwrap_or_default()
    }

    /// Switches to branch `number` at the latest instant it reached ([`Tape::switch_to`]).
    /// Errors: no such branch, or it has stopped.
    pub fn switch_branch(&self, number: usize) -> Result<(), SimError> {
        let (tx, rx) = mpsc::channel();
        self.send(Control::Switch(number, tx));
        rx.recv().unwrap_or_else(|_| Err(SimError::InvalidState("the simulation has stopped".into())))
    }

    /// Forks the present into a what-if run with `setting` changed, run beside this one
    /// ([`Tape::start_whatif`]). Errors: the refusal.
    pub fn start_whatif(&self, setting: Command) -> Result<Answer, SimError> {
        let (tx, rx) = mpsc::channel();
        self.send(Control::WhatIf(setting, tx));
        rx.recv().unwrap_or_else(|_| Err(SimError::InvalidState("the simulation has stopped".into())))
    }

    /// Ends the what-if, going on with the what-if run when `keep_whatif`
    /// ([`Tape::end_whatif`]). Errors: none is on, or it has stopped.
    pub fn end_whatif(&self, keep_whatif: bool) -> Result<(), SimError> {
        let (tx, rx) = mpsc::channel();
        self.send(Control::EndWhatIf(keep_whatif, tx));
        rx.recv().unwrap_or_else(|_| Err(SimError::InvalidState("the simulation has stopped".into())))
    }

    /// A port for the wire adapter (`crate::wire`), `None` once stopped.
    pub fn wire_port(&self) -> Option<WirePort> {
        self.control.as_ref().map(|c| WirePort { control: c.clone() })
    }

    /// The newest snapshot.
    pub fn latest(&self) -> Arc<Snapshot> {
        self.snapshots.borrow().clone()
    }

    /// A receiver that wakes on every new snapshot.
    pub fn watch(&self) -> tokio::sync::watch::Receiver<Arc<Snapshot>> {
        self.snapshots.clone()
    }
}

impl Drop for LiveSim {
    fn drop(&mut self) {
        self.control = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The refusal of a command sent after a scenario's end (sim time stops there).
pub fn scenario_ended(end: SimTime) -> SimError {
    SimError::InvalidState(format!(
        "the scenario ended at {}: sim time stops there, so commands are refused (q quits)",
        crate::sim::format_instant(end)
    ))
}

/// The sim thread's loop: wait (the clock is frozen meanwhile), advance (never past the
/// end), apply, rewind, publish; until the dashboard is gone or asks for a restart.
fn pace(tape: &mut Tape, control: &mpsc::Receiver<Control>, publish: &impl Fn(&Tape)) -> Paced {
    while let Ok(first) = control.recv() {
        let mut target = None;
        for c in std::iter::once(first).chain(control.try_iter()) {
            match c {
                Control::AdvanceTo(t) => target = Some(target.map_or(t, |x: SimTime| x.max(t))),
                Control::Apply(cmd, reply) => {
                    // Publish before answering, so the caller sees the command's effect at once.
                    let result = tape.apply(&cmd);
                    publish(tape);
                    let _ = reply.send(result);
                }
                Control::NextEvent(within, stop, reply) => {
                    tape.advance(target.take());
                    let found = tape.next_event(within, stop);
                    publish(tape);
                    let _ = reply.send(found);
                }
                Control::Rewind(t, reply) => {
                    target = None;
                    let result = tape.rewind_to(t);
                    publish(tape);
                    let _ = reply.send(result);
                }
                Control::Branches(reply) => {
                    let _ = reply.send(tape.branches());
                }
                Control::Switch(n, reply) => {
                    target = None;
                    let result = tape.switch_to(n);
                    publish(tape);
                    let _ = reply.send(result);
                }
                Control::WhatIf(cmd, reply) => {
                    let result = tape.start_whatif(&cmd);
                    publish(tape);
                    let _ = reply.send(result);
                }
                Control::EndWhatIf(keep, reply) => {
                    let result = tape.end_whatif(keep);
                    publish(tape);
                    let _ = reply.send(result);
                }
                Control::Reset(reply) => return Paced::Reset(reply),
                Control::Wire(work) => work(&tape.sim().world),
            }
        }
        tape.advance(target);
        publish(tape);
    }
    Paced::Closed
}

/// The snapshot the dashboard gets of `tape`: the run's, naming `scenario`, with the what-if
/// run beside it while one is on.
fn tape_snapshot(tape: &Tape, scenario: Option<ScenarioInfo>) -> Snapshot {
    let whatif = tape.whatif_view(scenario.clone()).map(Arc::new);
    Snapshot { scenario, whatif, ..tape.sim().snapshot() }
}

/// Applies `cmd` now, unless sim time reached the scenario's `end` (then every command is
/// refused).
pub(crate) fn apply_before_end(
    sim: &mut Sim,
    cmd: &Command,
    end: Option<SimTime>,
) -> Result<Answer, SimError> {
    match end.filter(|e| sim.now_us() >= *e) {
        Some(e) => Err(scenario_ended(e)),
        None => sim.apply(cmd),
    }
}

/// A simulation with a scenario's timeline, driven from the calling thread: what the sim
/// thread of a [`LiveSim`] does with its controls (the same code), without the thread, so a
/// whole-app test in process plays a scenario exactly as the dashboard does. Keeps every
/// event for [`ScheduledSim::take_events`].
pub struct ScheduledSim {
    tape: RefCell<Tape>,
    scenario: Option<ScenarioInfo>,
    /// What it started from, to start again.
    start: (ClusterSpec, Vec<(SimTime, Command)>),
}

impl ScheduledSim {
    /// Starts `spec` with the commands of `timeline` to apply at their sim times; with
    /// `scenario`, sim time stops at its end and every snapshot names it. Errors: the spec's
    /// [`SimError`].
    pub fn new(
        spec: ClusterSpec,
        timeline: Vec<(SimTime, Command)>,
        scenario: Option<ScenarioInfo>,
    ) -> Result<ScheduledSim, SimError> {
        let sim = Sim::with_driver(spec.clone(), Driver::Tasks)?;
        let end = scenario.as_ref().map(|s| s.end);
        Ok(ScheduledSim {
            tape: RefCell::new(Tape::new(sim, timeline.clone(), end)),
            scenario,
            start: (spec, timeline),
        })
    }

    /// Starts again from time 0, as [`LiveSim::reset`] does. Errors: the sim cannot start
    /// again (the old run goes on).
    pub fn reset(&self) -> Result<(), SimError> {
        let (spec, timeline) = &self.start;
        let sim = Sim::with_driver(spec.clone(), Driver::Tasks)?;
        *self.tape.borrow_mut() = Tape::new(sim, timeline.clone(), self.scenario.as_ref().map(|s| s.end));
        Ok(())
    }

    /// Runs sim time up to `t` (never past the end), applying scheduled commands on the way.
    pub fn advance_to(&self, t: SimTime) {
        self.tape.borrow_mut().advance(Some(t));
    }

    /// Applies a command now, as [`LiveSim::apply`] does (refused once the scenario ended).
    pub fn apply(&self, cmd: &Command) -> Result<Answer, SimError> {
        self.tape.borrow_mut().apply(cmd)
    }

    /// [`LiveSim::next_event_until`].
    pub fn next_event_until(&self, within: Ms, stop: Option<SimTime>) -> Option<SimTime> {
        self.tape.borrow_mut().next_event(within, stop)
    }

    /// [`LiveSim::rewind_to`].
    pub fn rewind_to(&self, t: SimTime) -> Result<(), SimError> {
        self.tape.borrow_mut().rewind_to(t)
    }

    /// [`LiveSim::branches`].
    pub fn branches(&self) -> Vec<BranchInfo> {
        self.tape.borrow().branches()
    }

    /// [`LiveSim::switch_branch`].
    pub fn switch_branch(&self, number: usize) -> Result<(), SimError> {
        self.tape.borrow_mut().switch_to(number)
    }

    /// [`LiveSim::start_whatif`].
    pub fn start_whatif(&self, setting: &Command) -> Result<Answer, SimError> {
        self.tape.borrow_mut().start_whatif(setting)
    }

    /// [`LiveSim::end_whatif`].
    pub fn end_whatif(&self, keep_whatif: bool) -> Result<(), SimError> {
        self.tape.borrow_mut().end_whatif(keep_whatif)
    }

    /// The cluster as it is now, naming the scenario, with the what-if run while one is on.
    pub fn snapshot(&self) -> Snapshot {
        tape_snapshot(&self.tape.borrow(), self.scenario.clone())
    }

    /// The events logged since the last call, oldest first.
    pub fn take_events(&self) -> Vec<ClusterEvent> {
        self.tape.borrow().sim().take_events()
    }

    /// Current sim time.
    pub fn now_us(&self) -> SimTime {
        self.tape.borrow().sim().now_us()
    }

    /// A hash of the whole trace so far ([`Sim::trace_hash`]).
    pub fn trace_hash(&self) -> u64 {
        self.tape.borrow().sim().trace_hash()
    }
}

/// The scenario's scheduled commands not yet applied, in time order.
pub(crate) type Timeline = std::iter::Peekable<std::vec::IntoIter<(SimTime, Command)>>;

/// Applies the next scheduled command if it is due by `t`; returns whether there was one.
fn apply_due(sim: &mut Sim, timeline: &mut Timeline, t: SimTime) -> bool {
    let Some((at, cmd)) = timeline.next_if(|(at, _)| *at <= t) else { return false };
    sim.advance_to_time(at.max(sim.now_us()));
    // A refused scheduled command is visible in the event log of a headless run;
    // interactively the user sees the state it left.
    let _ = sim.apply(&cmd);
    true
}

/// Runs sim time up to `target` (never past `end`), applying scheduled commands on the way.
pub(crate) fn advance(sim: &mut Sim, timeline: &mut Timeline, target: Option<SimTime>, end: Option<SimTime>) {
    if let Some(t) = target.map(|t| end.map_or(t, |e| t.min(e))) {
        while apply_due(sim, timeline, t) {}
        if t > sim.now_us() {
            sim.advance_to_time(t);
        }
    }
}

/// Runs sim time to the next new event, never past `deadline`; a scheduled command on the way
/// is applied, and counts as the next event when it logs one.
pub(crate) fn next_event_to(sim: &mut Sim, timeline: &mut Timeline, deadline: SimTime) -> Option<SimTime> {
    loop {
        let stop = timeline.peek().map_or(deadline, |(at, _)| (*at).clamp(sim.now_us(), deadline));
        if let Some(t) = sim.next_event_by(stop) {
            return Some(t);
        }
        let before = sim.world.log.borrow().count();
        if !apply_due(sim, timeline, stop) {
            return None;
        }
        if sim.world.log.borrow().count() > before {
            return Some(sim.now_us());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::events::EventKind;

    #[test]
    fn once_a_scenario_ends_every_command_is_refused_with_a_message() {
        let (control_tx, control_rx) = mpsc::channel();
        let (seen_tx, seen_rx) = mpsc::channel();
        let pacer = std::thread::spawn(move || {
            let sim = Sim::new(ClusterSpec::default_run(7)).unwrap();
            let mut tape = Tape::new(sim, Vec::new(), Some(SimTime::from_ms(1_000)));
            pace(&mut tape, &control_rx, &|t: &Tape| {
                let _ = seen_tx.send(t.sim().now());
            });
            tape.sim().commands()
        });
        control_tx.send(Control::AdvanceTo(SimTime::from_ms(5_000))).unwrap();
        while seen_rx.recv().unwrap() < 1_000 {}
        let (reply_tx, reply_rx) = mpsc::channel();
        control_tx.send(Control::Apply(Command::parse("crash 2").unwrap(), reply_tx)).unwrap();
        let refusal = reply_rx.recv().unwrap().unwrap_err().to_string();
        assert_eq!(
            refusal,
            "the scenario ended at 00:00:01.0: sim time stops there, so commands are refused (q quits)"
        );
        drop(control_tx);
        assert_eq!(pacer.join().unwrap(), Vec::new(), "nothing was applied");
    }

    /// The runtime keeps µs, the cores ms: a core's timer due at a whole ms fires exactly
    /// then (the controller's session check fences a crashed broker on a ms boundary), while
    /// messages arrive between ms (a registration takes 0.25 ms and some jitter).
    #[test]
    fn timers_fire_on_their_ms_and_messages_arrive_between() {
        let mut sim = Sim::new(ClusterSpec::default_run(7)).unwrap();
        sim.advance_to(5_000);
        assert_eq!(sim.now(), 5_000);
        sim.apply(&Command::parse("crash 2").unwrap()).unwrap();
        sim.advance_to(20_000);
        let events = sim.drain_events();
        let fenced = events.iter().find(|e| matches!(e.kind, EventKind::BrokerFenced { broker: 2, .. }));
        let at = fenced.expect("broker 2 is fenced").at;
        assert_eq!(at.as_micros() % 1000, 0, "a timer event sits on its ms: {at}");
        assert!((12_000..=14_100).contains(&at.as_ms()), "{at}");
        sim.apply(&Command::parse("restart 2").unwrap()).unwrap();
        sim.advance_to(21_000);
        let events = sim.drain_events();
        let registered =
            events.iter().find(|e| matches!(e.kind, EventKind::BrokerRegistered { broker: 2, .. }));
        let at = registered.expect("broker 2 registers again").at;
        let took = at.micros_since(crate::sim::SimTime::from_ms(20_000));
        assert!((250..=270).contains(&took), "its registration travels 0.25 ms plus jitter: {at}");
    }

    /// A snapshot that follows changes equals one built from scratch at every step, through
    /// appends, a crash, an isolation, an ISR shrink and a restart; and between two snapshots
    /// of an idle partition its view is shared, not rebuilt.
    #[test]
    fn snapshots_that_follow_changes_equal_snapshots_built_from_scratch() {
        let mut sim = Sim::new(ClusterSpec::default_run(7)).unwrap();
        let steps = [
            (3_000, "set producer rate=2000"),
            (6_000, "crash 2"),
            (20_000, "isolate 1"),
            (50_000, "heal-all"),
            (60_000, "restart 2"),
            (75_000, "set producer rate=0"),
        ];
        let mut t = 0;
        for (at, command) in steps {
            while t < at {
                t += 777;
                sim.advance_to(t);
                let followed = sim.snapshot();
                let scratch = observe::snapshot(&sim.world, &mut observe::ViewCache::default());
                assert_eq!(followed.partitions, scratch.partitions, "at {t} ms");
                let leaders: Vec<usize> = followed.brokers.iter().map(|b| b.leader_count).collect();
                let again: Vec<usize> = scratch.brokers.iter().map(|b| b.leader_count).collect();
                assert_eq!(leaders, again, "at {t} ms");
            }
            sim.apply(&Command::parse(command).unwrap()).unwrap();
        }
        sim.advance_to(120_000);
        let before = sim.snapshot();
        sim.advance_to(120_033);
        let after = sim.snapshot();
        let shared = before.partitions.iter().zip(&after.partitions).filter(|(a, b)| Arc::ptr_eq(a, b));
        assert_eq!(shared.count(), after.partitions.len(), "an idle cluster's views are all shared");
    }

    /// Commands that change what the views show: processes, links, fetchers, configs,
    /// elections and reassignments, producer load (the default cluster: brokers 0 to 2).
    const VIEW_CHANGING: &[&str] = &[
        "crash 1",
        "restart 1",
        "crash 2",
        "restart 2",
        "isolate 0",
        "heal-all",
        "cut 0 1",
        "hold 1 controller",
        "power-loss 2",
        "pause-fetch 1",
        "resume-fetch 1",
        "freeze 0 2000",
        "thaw 0",
        "shutdown 2",
        "set producer rate=3000",
        "set producer rate=0",
        "set producer acks=1",
        "set min.insync.replicas=3",
        "set topic test_repli min.insync.replicas=1",
        "set replica.lag.time.max.ms=4000",
        "reassign test_repli-0 0,1",
        "slow-disk 1 300",
        "elect-preferred",
        "delete-topic test_repli",
        "create-topic other 2 3",
    ];

    #[test]
    fn the_view_changing_commands_parse() {
        for line in VIEW_CHANGING {
            assert!(Command::parse(line).is_ok(), "{line}: {:?}", Command::parse(line));
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 12, ..Default::default() })]

        /// After any sequence of commands, with snapshots at random gaps, the snapshot that
        /// follows the brokers' marks equals one built from scratch: a change a broker did
        /// not mark, or a clock a settled view hides, would make them differ.
        #[test]
        fn followed_snapshots_equal_scratch_ones_after_random_commands(
            seed in 0u64..1_000,
            steps in proptest::collection::vec((1u64..2_500, 0..VIEW_CHANGING.len(), 1usize..6), 1..10),
        ) {
            let mut sim = Sim::new(ClusterSpec::default_run(seed)).unwrap();
            for (gap, command, looks) in steps {
                let _ = sim.apply(&Command::parse(VIEW_CHANGING[command]).unwrap());
                for _ in 0..looks {
                    let t = sim.now() + gap;
                    sim.advance_to(t);
                    let followed = sim.snapshot();
                    let scratch = observe::snapshot(&sim.world, &mut observe::ViewCache::default());
                    proptest::prop_assert_eq!(
                        &followed.partitions,
                        &scratch.partitions,
                        "at {} ms after {}",
                        t,
                        VIEW_CHANGING[command]
                    );
                }
            }
        }
    }

    #[test]
    fn applied_commands_are_in_the_trace_with_their_sim_time() {
        let mut sim = Sim::new(ClusterSpec::default_run(7)).unwrap();
        let before = sim.trace_hash();
        sim.advance_to(2_000);
        sim.apply(&Command::parse("crash 2").unwrap()).unwrap();
        assert!(sim.apply(&Command::parse("crash 2").unwrap()).is_err(), "refused: not in the trace");
        sim.advance_to(3_000);
        sim.apply(&Command::parse("set producer acks=1").unwrap()).unwrap();
        let lines: Vec<String> = sim.commands().iter().map(ToString::to_string).collect();
        assert_eq!(lines, ["00:00:02.0 crash 2", "00:00:03.0 set producer acks=1"]);
        assert_eq!(sim.snapshot().commands.len(), 2);
        let mut other = Sim::new(ClusterSpec::default_run(7)).unwrap();
        other.advance_to(2_000);
        other.apply(&Command::parse("crash 2").unwrap()).unwrap();
        other.advance_to(3_000);
        other.apply(&Command::parse("set producer acks=0").unwrap()).unwrap();
        assert_ne!(sim.trace_hash(), before);
        assert_ne!(sim.trace_hash(), other.trace_hash(), "the hash covers the commands");
    }

    #[test]
    fn run_to_next_event_stops_at_the_instant_of_the_next_events_or_after_the_look_ahead() {
        let mut sim = Sim::new(ClusterSpec::default_run(7)).unwrap();
        sim.advance_to(1_000);
        sim.drain_events();
        // A quiet cluster: nothing within 5 ms, and sim time moved on by exactly that.
        assert_eq!(sim.run_to_next_event(5), None);
        assert_eq!(sim.now(), 1_005);
        sim.apply(&Command::parse("crash 2").unwrap()).unwrap();
        sim.drain_events();
        let at = sim.run_to_next_event(60_000).expect("the crash leads to events");
        assert!(at.as_ms() > 1_005 && at.as_ms() < 61_005, "{at}");
        assert_eq!(sim.now_us(), at);
        let events = sim.drain_events();
        assert!(!events.is_empty());
        assert!(events.iter().all(|e| e.at == at), "only that instant's events: {events:?}");
    }

    /// A tapped live sim hands over every event, also those that left the snapshot's window;
    /// after a restart only the new run's.
    #[test]
    fn a_tapped_live_sim_keeps_every_event_and_a_restart_drops_the_old_runs() {
        let timeline = vec![(SimTime::from_ms(2_000), Command::parse("crash 2").unwrap())];
        let live = LiveSim::spawn_tapped(ClusterSpec::default_run(7), timeline, None).unwrap();
        live.advance_to(SimTime::from_ms(20_000));
        while live.latest().now < 20_000 {
            std::thread::yield_now();
        }
        let events = live.take_events();
        let count = live.latest().event_count;
        assert_eq!(events.len() as u64, count, "every event of the run so far");
        assert!(events.iter().any(|e| matches!(e.kind, EventKind::BrokerCrashed { broker: 2 })));
        assert!(live.take_events().is_empty(), "each event is handed over once");
        live.reset().unwrap();
        let fresh = live.take_events();
        assert!(fresh.iter().all(|e| e.at.as_ms() == 0), "only the new run's start: {fresh:?}");
        let untapped = LiveSim::spawn(ClusterSpec::default_run(7), Vec::new(), None).unwrap();
        untapped.advance_to(SimTime::from_ms(1_000));
        assert!(untapped.take_events().is_empty());
    }

    /// `n` never runs past a stop: with no event before it, sim time stands at the stop.
    #[test]
    fn next_event_stops_at_the_stop_it_is_given() {
        let live = LiveSim::spawn(ClusterSpec::default_run(7), Vec::new(), None).unwrap();
        live.advance_to(SimTime::from_ms(1_000));
        let stop = SimTime::from_micros(1_000_250);
        assert_eq!(live.next_event_until(60_000, Some(stop)), None, "a quiet cluster");
        assert_eq!(live.latest().now_us, stop);
    }

    /// The caller-driven [`ScheduledSim`] applies the timeline and stops at the end as the
    /// sim thread does: the same trace for the same steps.
    #[test]
    fn a_scheduled_sim_steps_as_the_sim_thread_does() {
        let timeline = vec![(SimTime::from_ms(2_000), Command::parse("crash 2").unwrap())];
        let info = ScenarioInfo { name: "s".into(), end: SimTime::from_ms(15_000) };
        let scheduled = ScheduledSim::new(ClusterSpec::default_run(7), timeline.clone(), Some(info)).unwrap();
        let (control_tx, control_rx) = mpsc::channel();
        let thread = std::thread::spawn(move || {
            let sim = Sim::new(ClusterSpec::default_run(7)).unwrap();
            let mut tape = Tape::new(sim, timeline, Some(SimTime::from_ms(15_000)));
            pace(&mut tape, &control_rx, &|_: &Tape| {});
            tape.sim().trace_hash()
        });
        for t in [1_000, 2_000, 7_500, 20_000] {
            scheduled.advance_to(SimTime::from_ms(t));
            control_tx.send(Control::AdvanceTo(SimTime::from_ms(t))).unwrap();
        }
        assert_eq!(scheduled.now_us(), SimTime::from_ms(15_000), "never past the end");
        assert!(scheduled.apply(&Command::parse("restart 2").unwrap()).is_err(), "refused after the end");
        drop(control_tx);
        assert_eq!(scheduled.trace_hash(), thread.join().unwrap());
        assert!(
            scheduled.take_events().iter().any(|e| matches!(e.kind, EventKind::BrokerCrashed { broker: 2 }))
        );
    }

    #[test]
    fn next_event_of_a_live_sim_applies_scheduled_commands_on_the_way_and_stops_at_the_end() {
        let (control_tx, control_rx) = mpsc::channel();
        let pacer = std::thread::spawn(move || {
            let sim = Sim::new(ClusterSpec::default_run(7)).unwrap();
            let timeline = vec![(SimTime::from_ms(5_000), Command::parse("crash 2").unwrap())];
            let mut tape = Tape::new(sim, timeline, Some(SimTime::from_ms(20_000)));
            pace(&mut tape, &control_rx, &|_: &Tape| {});
        });
        let next = |within| {
            let (tx, rx) = mpsc::channel();
            control_tx.send(Control::NextEvent(within, None, tx)).unwrap();
            rx.recv().unwrap()
        };
        control_tx.send(Control::AdvanceTo(SimTime::from_ms(1_000))).unwrap();
        assert_eq!(next(60_000), Some(SimTime::from_ms(5_000)), "the scheduled crash is the next event");
        let mut last = SimTime::from_ms(5_000);
        while let Some(t) = next(60_000) {
            assert!(t > last && t <= SimTime::from_ms(20_000), "{t} after {last}");
            last = t;
        }
        assert_eq!(next(60_000), None, "nothing after the scenario's end");
        drop(control_tx);
        pacer.join().unwrap();
    }
}
