//! The two drivers of the one node step (`World::step`): one loop over the agenda, which
//! takes each entry due in order, sets the sim clock to its instant and carries it out. They
//! differ only in how a node's step runs:
//!
//! - **Direct** calls the step inline: a plain loop, for headless runs, scenario tests,
//!   benches and checkers.
//! - **Tasks** runs every node as a tokio task on one current-thread runtime (a `LocalSet`),
//!   each awaiting its own mailbox for its whole life, as the dashboard's design has it. The
//!   driver hands one entry's step to the node's task and waits until the task reports it has
//!   stepped before it takes the next entry. So the same-instant order is the agenda's by
//!   construction, and "nothing is ready" is known exactly. tokio only executes tasks here:
//!   the sim owns its clock, and no tokio timer is involved.
//!
//! Both give the same trace for the same run (`tests/drivers.rs` checks it on every scenario
//! and on random command schedules).

use super::wake::{Mailbox, Signal};
use super::world::{Wake, World};
use crate::sim::SimTime;
use crate::sim::error::SimError;
use crate::sim::protocol::NodeId;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::future::poll_fn;
use std::rc::Rc;
use tokio::runtime::Runtime;
use tokio::task::LocalSet;

/// Which driver runs a simulation's node steps.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Driver {
    /// A plain loop calling each step inline (headless runs, tests, benches).
    #[default]
    Direct,
    /// One tokio task per node awaiting its mailbox (the dashboard).
    Tasks,
}

/// What a driver drives: a world with an agenda and a node step. The simulation's
/// [`World`] is the one; a bench's toy world is another, so the drivers' own cost can be
/// measured apart from the cores'.
#[doc(hidden)]
pub trait Stepper: 'static {
    /// What wakes a node's step.
    type Wake: 'static;
    /// Takes agenda entries due by `until` (by the current instant once `stop` holds), sets
    /// the clock, carries out what is not a node's step, and returns the next node step.
    fn next_work(
        self: &Rc<Self>,
        until: SimTime,
        stop: &dyn Fn(&Self) -> bool,
    ) -> Option<(NodeId, Self::Wake)>;
    /// Runs one node step.
    fn step(&self, node: NodeId, wake: Self::Wake);
}

impl Stepper for World {
    type Wake = Wake;
    fn next_work(self: &Rc<Self>, until: SimTime, stop: &dyn Fn(&World) -> bool) -> Option<(NodeId, Wake)> {
        World::next_work(self, until, stop)
    }
    fn step(&self, node: NodeId, wake: Wake) {
        World::step(self, node, wake)
    }
}

/// The direct driver: runs every agenda entry due by `until`, each node step inline.
#[doc(hidden)]
pub fn run_direct<S: Stepper>(world: &Rc<S>, until: SimTime, stop: &dyn Fn(&S) -> bool) {
    while let Some((node, wake)) = world.next_work(until, stop) {
        world.step(node, wake);
    }
}

/// A driver with what it needs to run.
pub(crate) enum Runner {
    Direct,
    Tasks(Tasks<World>),
}

impl Runner {
    /// A runner of the given kind. Errors: the tokio runtime could not start.
    pub fn new(kind: Driver) -> Result<Runner, SimError> {
        Ok(match kind {
            Driver::Direct => Runner::Direct,
            Driver::Tasks => Runner::Tasks(Tasks::new()?),
        })
    }

    /// Its kind.
    pub fn kind(&self) -> Driver {
        match self {
            Runner::Direct => Driver::Direct,
            Runner::Tasks(_) => Driver::Tasks,
        }
    }

    /// Starts what the driver keeps per node (a task for each node of `world`).
    pub fn attach(&self, world: &Rc<World>) {
        if let Runner::Tasks(tasks) = self {
            for node in world.nodes.all() {
                tasks.start(world, node.id);
            }
        }
    }

    /// Runs every agenda entry due by `until`, in order; once `stop` holds, only what is due
    /// at that same instant still runs.
    pub fn run(&self, world: &Rc<World>, until: SimTime, stop: &dyn Fn(&World) -> bool) {
        match self {
            Runner::Direct => run_direct(world, until, stop),
            Runner::Tasks(tasks) => tasks.run(world, until, stop),
        }
    }
}

/// The tasks driver: a current-thread runtime and its `LocalSet`, one task per node.
#[doc(hidden)]
pub struct Tasks<S: Stepper> {
    rt: Runtime,
    local: LocalSet,
    mailboxes: RefCell<BTreeMap<NodeId, Rc<Mailbox<S::Wake>>>>,
    /// Raised by a node's task when it has stepped.
    stepped: Rc<Signal>,
}

impl<S: Stepper> Tasks<S> {
    /// A tasks driver with no task yet. Errors: the tokio runtime could not start.
    pub fn new() -> Result<Tasks<S>, SimError> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .map_err(|e| SimError::InvalidCluster(format!("cannot start the sim runtime: {e}")))?;
        Ok(Tasks { rt, local: LocalSet::new(), mailboxes: Default::default(), stepped: Default::default() })
    }

    /// Starts the node's task (once; a node added by a command gets its task when it is
    /// first due) and returns its mailbox.
    pub fn start(&self, world: &Rc<S>, node: NodeId) -> Rc<Mailbox<S::Wake>> {
        if let Some(m) = self.mailboxes.borrow().get(&node) {
            return m.clone();
        }
        let mailbox = Rc::new(Mailbox::default());
        self.mailboxes.borrow_mut().insert(node, mailbox.clone());
        let _ctx = self.rt.enter();
        self.local.spawn_local(node_task(world.clone(), node, mailbox.clone(), self.stepped.clone()));
        mailbox
    }

    /// Runs every agenda entry due by `until`: each node step by the node's task, one at a
    /// time, the next entry taken only once the task has stepped.
    pub fn run(&self, world: &Rc<S>, until: SimTime, stop: &dyn Fn(&S) -> bool) {
        self.rt.block_on(self.local.run_until(async {
            while let Some((node, wake)) = world.next_work(until, stop) {
                self.start(world, node).put(wake);
                poll_fn(|cx| self.stepped.poll(cx)).await;
            }
        }));
    }
}

/// A node's task for its whole life: waits for its mailbox, steps, reports.
async fn node_task<S: Stepper>(
    world: Rc<S>,
    node: NodeId,
    mailbox: Rc<Mailbox<S::Wake>>,
    stepped: Rc<Signal>,
) {
    loop {
        let wake = poll_fn(|cx| mailbox.poll(cx)).await;
        world.step(node, wake);
        stepped.raise();
    }
}
