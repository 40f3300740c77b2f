//! The running simulation: every node's sans-IO core, the network, the event log and the
//! audit ledger, plus the tokio tasks that move messages and fire timers. Tasks only move
//! messages; all protocol decisions happen in the cores.

use super::events::EventLog;
use super::net::{Delivery, Network};
use crate::sim::audit::Ledger;
use crate::sim::broker::Broker;
use crate::sim::controller::QuorumController;
use crate::sim::producer::ProducerClient;
use crate::sim::protocol::{Message, NodeId};
use crate::sim::{BrokerId, Ms, Outbox, TopicPartition};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use tokio::sync::Notify;
use tokio::sync::mpsc::{self, UnboundedReceiver};
use tokio::task::{JoinHandle, LocalSet};
use tokio::time::{Duration, Instant};

/// Most record copies all logs together may hold before isrlab stops the producers (about
/// 40 bytes each, so roughly 2 GB with the audit ledger).
pub const MEMORY_BUDGET_RECORDS: u64 = 40_000_000;

/// How often the memory guard looks (ms of sim time).
const MEMORY_CHECK_MS: Ms = 1_000;

/// A sans-IO component a task can drive.
pub(crate) trait Core {
    /// Handles one delivered message.
    fn handle(&mut self, now: Ms, from: NodeId, msg: Message, out: &mut Outbox);
    /// Fires due timers.
    fn on_tick(&mut self, now: Ms, out: &mut Outbox);
    /// When `on_tick` next has work.
    fn next_deadline(&self) -> Option<Ms>;
    /// Whether the process has exited by itself (a finished controlled shutdown).
    fn has_exited(&self) -> bool {
        false
    }
}

impl Core for Broker {
    fn handle(&mut self, now: Ms, from: NodeId, msg: Message, out: &mut Outbox) {
        Broker::handle(self, now, from, msg, out)
    }
    fn on_tick(&mut self, now: Ms, out: &mut Outbox) {
        Broker::on_tick(self, now, out)
    }
    fn next_deadline(&self) -> Option<Ms> {
        Broker::next_deadline(self)
    }
    fn has_exited(&self) -> bool {
        self.has_stopped()
    }
}

impl Core for QuorumController {
    fn handle(&mut self, now: Ms, from: NodeId, msg: Message, out: &mut Outbox) {
        QuorumController::handle(self, now, from, msg, out)
    }
    fn on_tick(&mut self, now: Ms, out: &mut Outbox) {
        QuorumController::on_tick(self, now, out)
    }
    fn next_deadline(&self) -> Option<Ms> {
        QuorumController::next_deadline(self)
    }
}

impl Core for ProducerClient {
    fn handle(&mut self, now: Ms, _from: NodeId, msg: Message, out: &mut Outbox) {
        ProducerClient::handle(self, now, msg, out)
    }
    fn on_tick(&mut self, now: Ms, out: &mut Outbox) {
        ProducerClient::on_tick(self, now, out)
    }
    fn next_deadline(&self) -> Option<Ms> {
        ProducerClient::next_deadline(self)
    }
}

/// A broker core and the task running it (none while the process is down).
pub(crate) struct BrokerNode {
    pub core: Rc<RefCell<Broker>>,
    pub task: RefCell<Option<JoinHandle<()>>>,
}

/// Everything one simulation holds. Single-threaded: shared through `Rc`.
pub(crate) struct World {
    pub start: Instant,
    pub seed: u64,
    pub net: Network,
    pub controller: Rc<RefCell<QuorumController>>,
    pub brokers: BTreeMap<BrokerId, BrokerNode>,
    pub producers: RefCell<Vec<Rc<RefCell<ProducerClient>>>>,
    pub ledger: RefCell<Ledger>,
    pub log: RefCell<EventLog>,
    /// Wakes every task so it re-reads its core's timers after an outside change.
    pub poke: Rc<Notify>,
    /// Record copies the logs may hold before the producers are stopped.
    pub memory_budget: std::cell::Cell<u64>,
}

impl World {
    /// Sim time now (ms). Must run inside the sim's runtime context.
    pub fn now(&self) -> Ms {
        Instant::now().duration_since(self.start).as_millis() as Ms
    }

    /// The virtual-clock instant of sim time `ms`.
    pub fn instant(&self, ms: Ms) -> Instant {
        self.start + Duration::from_millis(ms)
    }

    /// Carries out what a core asked for: sends, events, ledger updates.
    pub fn dispatch(&self, from: NodeId, now: Ms, out: Outbox) {
        for (to, msg) in out.sends {
            self.net.send(now, from, to, msg);
        }
        let mut events = out.events;
        for acked in &out.acked {
            let leader = self.leader_of(&acked.tp);
            let broker = leader.and_then(|l| self.brokers.get(&l)).map(|n| n.core.borrow());
            let log = broker.as_ref().and_then(|b| b.partition(&acked.tp)).map(|p| &p.log);
            let pair = leader.zip(log);
            self.ledger.borrow_mut().on_acked(acked, pair, &mut events);
        }
        for tp in &out.touched {
            self.reconcile(tp, &mut events);
        }
        let mut log = self.log.borrow_mut();
        for kind in events {
            log.push(now, kind);
        }
    }

    fn leader_of(&self, tp: &TopicPartition) -> Option<BrokerId> {
        self.controller.borrow().partition(tp).and_then(|p| p.leader)
    }

    fn reconcile(&self, tp: &TopicPartition, events: &mut Vec<crate::sim::events::EventKind>) {
        let Some(leader) = self.leader_of(tp) else { return };
        let Some(node) = self.brokers.get(&leader) else { return };
        let core = node.core.borrow();
        if let Some(p) = core.partition(tp) {
            self.ledger.borrow_mut().reconcile(tp, leader, &p.log, events);
        }
    }

    /// Starts the task of a core with a fresh inbox routed from the network.
    pub fn spawn_node<C: Core + 'static>(
        self: &Rc<Self>,
        local: &LocalSet,
        node: NodeId,
        core: Rc<RefCell<C>>,
    ) -> JoinHandle<()> {
        let (tx, rx) = mpsc::unbounded_channel();
        self.net.set_route(node, Some(tx));
        local.spawn_local(run_node(self.clone(), node, core, rx))
    }

    /// Makes every task re-read its core's timers (after a command changed a core directly).
    pub fn poke_all(&self) {
        self.poke.notify_waiters();
    }

    /// Record copies held in every replica's log (what memory grows with).
    pub fn records_held(&self) -> u64 {
        self.brokers.values().map(|n| n.core.borrow().records_held()).sum()
    }

    /// Starts the memory guard: once a second of sim time it checks the logs against
    /// [`MEMORY_BUDGET_RECORDS`] and stops the producers when they exceed it. It runs on sim
    /// time, so the same seed and commands stop them at the same instant.
    pub fn spawn_memory_guard(self: &Rc<Self>, local: &LocalSet) {
        let world = self.clone();
        local.spawn_local(async move {
            let mut next = 0;
            loop {
                next += MEMORY_CHECK_MS;
                tokio::time::sleep_until(world.instant(next)).await;
                let held = world.records_held();
                if held > world.memory_budget.get() {
                    world.stop_producers(next, held);
                }
            }
        });
    }

    fn stop_producers(&self, now: Ms, records: u64) {
        let producers = self.producers.borrow();
        if producers.iter().all(|p| p.borrow().config().rate == 0.0) {
            return;
        }
        for p in producers.iter() {
            let config = crate::config::ProducerConfig { rate: 0.0, ..p.borrow().config().clone() };
            p.borrow_mut().set_config(now, config);
        }
        self.log.borrow_mut().push(now, crate::sim::events::EventKind::ProducersStopped { records });
        self.poke_all();
    }

    /// Starts the network's delivery task.
    pub fn spawn_network(self: &Rc<Self>, local: &LocalSet) {
        let world = self.clone();
        local.spawn_local(async move {
            loop {
                let due = world.net.next_due();
                tokio::select! {
                    biased;
                    _ = world.net.changed() => {}
                    _ = sleep_until_ms(&world, due) => world.net.deliver_due(world.now()),
                }
            }
        });
    }
}

async fn sleep_until_ms(world: &World, at: Option<Ms>) {
    match at {
        Some(ms) => tokio::time::sleep_until(world.instant(ms)).await,
        None => std::future::pending().await,
    }
}

/// One node's task: deliver messages to its core, fire its timers, dispatch its outbox.
async fn run_node<C: Core>(
    world: Rc<World>,
    node: NodeId,
    core: Rc<RefCell<C>>,
    mut inbox: UnboundedReceiver<Delivery>,
) {
    let mut last_tick = None;
    loop {
        let mut due = core.borrow().next_deadline();
        // A core that leaves a timer due after its tick must not spin at one instant.
        if let (Some(d), Some(t)) = (due, last_tick)
            && d <= t
        {
            due = Some(t + 1);
        }
        let mut out = Outbox::default();
        let now;
        let poke = world.poke.clone();
        tokio::select! {
            biased;
            _ = poke.notified() => continue,
            msg = inbox.recv() => {
                let Some((from, msg)) = msg else { return };
                now = world.now();
                core.borrow_mut().handle(now, from, msg, &mut out);
            }
            _ = sleep_until_ms(&world, due) => {
                now = world.now();
                last_tick = Some(now);
                core.borrow_mut().on_tick(now, &mut out);
            }
        }
        world.dispatch(node, now, out);
        if core.borrow().has_exited() {
            world.net.set_route(node, None);
            world.net.reset_connections(now, node);
            return;
        }
    }
}
