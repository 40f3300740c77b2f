//! The running simulation: the node registry (every process's sans-IO core, state and task),
//! the network, the event log and the audit ledger, plus the tokio tasks that move messages
//! and fire timers. Tasks only move messages; all protocol decisions happen in the cores.

use super::events::EventLog;
use super::net::Network;
use super::node::{Frozen, Node, NodeCore, ProcessState, Registry, Role};
use super::wake::{Mailbox, Woken};
use crate::config::BrokerConfig;
use crate::sim::audit::Ledger;
use crate::sim::broker::Broker;
use crate::sim::consumer::ConsumerClient;
use crate::sim::controller::QuorumController;
use crate::sim::events::EventKind;
use crate::sim::image::MetadataImage;
use crate::sim::loss_cause::Election;
use crate::sim::producer::ProducerClient;
use crate::sim::protocol::{Message, NodeId};
use crate::sim::{BrokerId, Ms, Outbox, SimTime, TopicPartition};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::future::poll_fn;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};
use tokio::task::{JoinHandle, LocalSet};
use tokio::time::{Duration, Instant, Sleep};

/// Most bytes the logs' batches and the audit ledger may take before isrlab stops the
/// producers: a last resort (2 GiB). Retention bounds memory in normal use; only a long run
/// at a high rate with retention far longer than the run meets it.
pub const MEMORY_BUDGET_BYTES: u64 = 2 << 30;

/// How often the memory guard looks (ms of sim time).
const MEMORY_CHECK_MS: Ms = 1_000;

/// Where a new task goes: the sim's `LocalSet` (from outside it, e.g. a command applied
/// between advances) or the `LocalSet` running the caller (from inside a task, e.g. `roll`).
#[derive(Clone, Copy)]
pub(crate) enum Spawner<'a> {
    /// The given `LocalSet`.
    Local(&'a LocalSet),
    /// The `LocalSet` the calling task runs on.
    Current,
}

impl Spawner<'_> {
    /// Spawns `task` where this spawner says.
    pub fn spawn<F: std::future::Future<Output = ()> + 'static>(self, task: F) -> JoinHandle<()> {
        match self {
            Spawner::Local(local) => local.spawn_local(task),
            Spawner::Current => tokio::task::spawn_local(task),
        }
    }
}

impl<'a> From<&'a LocalSet> for Spawner<'a> {
    fn from(local: &'a LocalSet) -> Self {
        Spawner::Local(local)
    }
}

/// A sans-IO component a task can drive.
pub(crate) trait Core {
    /// Handles one delivered message.
    fn handle(&mut self, now: Ms, from: NodeId, msg: Message, out: &mut Outbox);
    /// Fires due timers.
    fn on_tick(&mut self, now: Ms, out: &mut Outbox);
    /// When `on_tick` next has work.
    fn next_deadline(&self) -> Option<Ms>;
    /// How long the work that produced `out` holds the process up before it can send
    /// anything (ms): a broker's fsyncs on a slow disk.
    fn stall_ms(&self, _out: &Outbox) -> Ms {
        0
    }
    /// Whether the process has exited by itself (a finished controlled shutdown).
    fn has_exited(&self) -> bool {
        false
    }
    /// Whether it accepts inbound connections ([`Broker::accepts_connections`]; any other
    /// process as soon as it runs).
    fn accepts_connections(&self) -> bool {
        true
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
    fn accepts_connections(&self) -> bool {
        Broker::accepts_connections(self)
    }
    fn stall_ms(&self, out: &Outbox) -> Ms {
        self.disk_stall_ms(out)
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

impl Core for ConsumerClient {
    fn handle(&mut self, now: Ms, _from: NodeId, msg: Message, out: &mut Outbox) {
        ConsumerClient::handle(self, now, msg, out)
    }
    fn on_tick(&mut self, now: Ms, out: &mut Outbox) {
        ConsumerClient::on_tick(self, now, out)
    }
    fn next_deadline(&self) -> Option<Ms> {
        ConsumerClient::next_deadline(self)
    }
}

/// Everything one simulation holds. Single-threaded: shared through `Rc`.
pub(crate) struct World {
    pub start: Instant,
    pub seed: u64,
    pub net: Network,
    /// Every process: controllers, brokers, producers.
    pub nodes: Registry,
    pub ledger: RefCell<Ledger>,
    pub log: RefCell<EventLog>,
    /// Record copies the logs may hold before the producers are stopped.
    pub memory_budget: std::cell::Cell<u64>,
    /// The broker config every process reads from its `server.properties` when it starts:
    /// the spec's, with every `set` since. Dynamic properties reach running brokers through
    /// the metadata log as well; static ones only through a restart.
    pub server_properties: RefCell<BrokerConfig>,
    /// Static properties set since each broker last started (its restart would apply them).
    pub restart_pending: RefCell<BTreeMap<BrokerId, BTreeSet<&'static str>>>,
    /// A `roll` is under way.
    pub rolling: std::cell::Cell<bool>,
    /// The latest truncations per partition, for the dashboard.
    pub truncations: RefCell<super::truncations::Truncations>,
    /// Each partition's latest leader change (from the controller's `LeaderChanged` events),
    /// so a loss can say how the leader that lacks the records came to lead.
    pub elections: RefCell<BTreeMap<TopicPartition, Election>>,
    /// The charts' samples ([`World::spawn_history`]); shared with the snapshots.
    pub history: RefCell<std::sync::Arc<super::history::History>>,
}

impl World {
    /// Sim time now (µs). Must run inside the sim's runtime context.
    ///
    /// tokio's timer wheel counts whole milliseconds, so the runtime's paused clock runs a
    /// thousand times slow: one tokio millisecond is one sim microsecond. Every sleep goes
    /// through [`World::instant`], so nothing else sees the scale.
    pub fn now_us(&self) -> SimTime {
        SimTime::from_micros(Instant::now().duration_since(self.start).as_millis() as u64)
    }

    /// Sim time now in whole ms (floored): the `now` the cores are called with, as Kafka reads
    /// `Time.milliseconds()`.
    pub fn now(&self) -> Ms {
        self.now_us().as_ms()
    }

    /// The virtual-clock instant of sim time `t`.
    pub fn instant(&self, t: SimTime) -> Instant {
        self.start + Duration::from_millis(t.as_micros())
    }

    /// The virtual-clock instant of the start of millisecond `ms` (a core's deadline).
    pub fn instant_ms(&self, ms: Ms) -> Instant {
        self.instant(SimTime::from_ms(ms))
    }

    /// The active controller's core. Every world has one (built first by `build_world`).
    pub fn controller(&self) -> Rc<RefCell<QuorumController>> {
        match self.nodes.get(NodeId::Controller).map(|n| n.core.clone()) {
            Some(NodeCore::Controller(c)) => c,
            _ => unreachable!("every world is built with a controller node"),
        }
    }

    /// Reads the metadata image the active controller has published.
    pub fn with_image<R>(&self, read: impl FnOnce(&MetadataImage) -> R) -> R {
        read(self.controller().borrow().image())
    }

    /// One node by id.
    pub fn node(&self, id: NodeId) -> Option<Rc<Node>> {
        self.nodes.get(id)
    }

    /// A broker's core, if the cluster has that broker.
    pub fn broker(&self, id: BrokerId) -> Option<Rc<RefCell<Broker>>> {
        match self.nodes.get(NodeId::Broker(id))?.core.clone() {
            NodeCore::Broker(b) => Some(b),
            _ => None,
        }
    }

    /// Every broker id, ascending.
    pub fn broker_ids(&self) -> Vec<BrokerId> {
        self.brokers().into_iter().map(|(id, _)| id).collect()
    }

    /// Every broker's id and core, in id order.
    pub fn brokers(&self) -> Vec<(BrokerId, Rc<RefCell<Broker>>)> {
        let nodes = self.nodes.with_role(Role::Broker);
        nodes
            .iter()
            .filter_map(|n| match (&n.id, &n.core) {
                (NodeId::Broker(id), NodeCore::Broker(b)) => Some((*id, b.clone())),
                _ => None,
            })
            .collect()
    }

    /// Every producer's core, in index order.
    pub fn producers(&self) -> Vec<Rc<RefCell<ProducerClient>>> {
        let nodes = self.nodes.with_role(Role::Producer);
        nodes
            .iter()
            .filter_map(|n| match &n.core {
                NodeCore::Producer(p) => Some(p.clone()),
                _ => None,
            })
            .collect()
    }

    /// Every consumer's core, in index order.
    pub fn consumers(&self) -> Vec<Rc<RefCell<ConsumerClient>>> {
        let nodes = self.nodes.with_role(Role::Consumer);
        nodes
            .iter()
            .filter_map(|n| match &n.core {
                NodeCore::Consumer(c) => Some(c.clone()),
                _ => None,
            })
            .collect()
    }

    /// Carries out what a core asked for, at the current instant (µs): sends, events, ledger
    /// updates. Leaves `out` empty for the next turn (its buffers are kept).
    pub fn dispatch(&self, from: NodeId, out: &mut Outbox) {
        self.dispatch_at(self.now_us(), from, out);
    }

    /// [`World::dispatch`] by a caller that has read the clock: `now` is the current instant.
    fn dispatch_at(&self, now: SimTime, from: NodeId, out: &mut Outbox) {
        for (to, msg) in out.sends.drain(..) {
            self.net.send(now, from, to, msg);
        }
        let events = &mut out.events;
        for acked in out.acked.drain(..) {
            let isr = self.isr_of(acked.leader, &acked.tp);
            let election = self.elections.borrow().get(&acked.tp).copied();
            self.with_deciding_log(&acked.tp, |pair| {
                self.ledger.borrow_mut().on_acked(&acked, &isr, pair, election, events)
            });
        }
        for seen in out.seen.drain(..) {
            self.with_deciding_log(&seen.tp, |pair| {
                let log = pair.map(|(_, log)| log);
                self.ledger.borrow_mut().on_seen(seen.consumer, &seen.tp, seen.base_offset, &seen.values, log)
            });
        }
        if !out.truncations.is_empty() {
            let (ledger, mut kept) = (self.ledger.borrow(), self.truncations.borrow_mut());
            for t in out.truncations.drain(..) {
                kept.record(now.as_ms(), &t, &ledger);
            }
        }
        for tp in out.touched.drain(..) {
            self.reconcile(&tp, events);
        }
        let mut log = self.log.borrow_mut();
        for kind in events.drain(..) {
            if let EventKind::TopicDeleted { topic } = &kind {
                self.ledger.borrow_mut().forget_topic(topic);
                self.elections.borrow_mut().retain(|tp, _| &*tp.topic != topic.as_str());
            }
            if let EventKind::LeaderChanged {
                tp,
                old_leader,
                new_leader: Some(new_leader),
                leader_epoch,
                kind,
                ..
            } = &kind
            {
                let election = Election {
                    kind: *kind,
                    old_leader: *old_leader,
                    new_leader: *new_leader,
                    leader_epoch: *leader_epoch,
                };
                self.elections.borrow_mut().insert(tp.clone(), election);
            }
            log.push(now, kind);
        }
        out.fsyncs = 0;
    }

    /// Calls `f` with the partition's leader in the published metadata and that leader's log
    /// (the log that decides what is kept), if it has a leader hosting the partition.
    fn with_deciding_log<R>(
        &self,
        tp: &TopicPartition,
        f: impl FnOnce(Option<(BrokerId, &crate::sim::log::PartitionLog)>) -> R,
    ) -> R {
        let leader = self.leader_of(tp);
        let core = leader.and_then(|l| self.broker(l));
        let broker = core.as_ref().map(|b| b.borrow());
        let log = broker.as_ref().and_then(|b| b.partition(tp)).map(|p| &p.log);
        f(leader.zip(log))
    }

    /// The partition's leader in the published metadata.
    fn leader_of(&self, tp: &TopicPartition) -> Option<BrokerId> {
        self.with_image(|image| image.partition(tp).and_then(|p| p.leader))
    }

    fn reconcile(&self, tp: &TopicPartition, events: &mut Vec<EventKind>) {
        let Some(leader) = self.leader_of(tp) else { return };
        let Some(core) = self.broker(leader) else { return };
        let core = core.borrow();
        if let Some(p) = core.partition(tp) {
            let election = self.elections.borrow().get(tp).copied();
            self.ledger.borrow_mut().reconcile(tp, leader, election, &p.log, events);
        }
    }

    /// Broker `broker`'s ISR of `tp` as it leads it (its maximal ISR, the one its HW and so
    /// `acks=all` wait for: Kafka's `Partition.maybeIncrementLeaderHW`); empty if it has no
    /// such partition.
    fn isr_of(&self, broker: BrokerId, tp: &TopicPartition) -> Vec<BrokerId> {
        let core = self.broker(broker);
        let core = core.as_ref().map(|b| b.borrow());
        core.as_ref().and_then(|b| b.partition(tp)).map(|p| p.maximal_isr()).unwrap_or_default()
    }

    /// Adds a node to the registry and starts its task. Returns the node.
    pub fn add_node<'a>(
        self: &Rc<Self>,
        local: impl Into<Spawner<'a>>,
        id: NodeId,
        core: NodeCore,
    ) -> Rc<Node> {
        let node = self.nodes.insert(Node::new(id, core));
        self.start_task(local, &node);
        node
    }

    /// Starts (or restarts) a node's task with a fresh inbox routed from the network, and marks
    /// its process running.
    pub fn start_task<'a>(self: &Rc<Self>, local: impl Into<Spawner<'a>>, node: &Node) {
        let local = local.into();
        node.abort_task();
        let mailbox = Rc::new(Mailbox::default());
        self.net.set_route(node.id, Some(mailbox.clone()));
        let listening = match &node.core {
            NodeCore::Broker(b) => b.borrow().accepts_connections(),
            _ => true,
        };
        self.net.set_listening(node.id, listening);
        *node.mailbox.borrow_mut() = Some(mailbox.clone());
        let task = match &node.core {
            NodeCore::Controller(c) => local.spawn(run_node(self.clone(), node.id, c.clone(), mailbox)),
            NodeCore::Broker(b) => local.spawn(run_node(self.clone(), node.id, b.clone(), mailbox)),
            NodeCore::Producer(p) => local.spawn(run_node(self.clone(), node.id, p.clone(), mailbox)),
            NodeCore::Consumer(c) => local.spawn(run_node(self.clone(), node.id, c.clone(), mailbox)),
        };
        *node.task.borrow_mut() = Some(task);
        node.state.set(ProcessState::Running);
    }

    /// Kills a node's process at `now`: its task ends, the network refuses connections to it
    /// and resets the ones it had. The core is left for the caller to reset.
    pub fn kill_task(&self, node: &Node, now: Ms) {
        node.abort_task();
        self.net.set_route(node.id, None);
        self.net.reset_connections(self.now_us(), node.id);
        node.state.set(ProcessState::Crashed { since: now });
    }

    /// Pauses a running node's process at `now` (`freeze`), thawing it by itself after
    /// `thaw_after` ms when given. Its task stops reading its inbox and firing its timers;
    /// messages sent to it wait in its socket (the inbox) and are read in order when it thaws.
    /// The network still accepts connections to it: the operating system does that.
    pub fn freeze(&self, node: &Node, now: Ms, thaw_after: Option<Ms>) {
        node.frozen.set(Some(Frozen { since: now, until: thaw_after.map(|d| now + d) }));
        self.poke_all();
    }

    /// Lets a frozen node run again at `now` (`thaw`, or its freeze's time is up): it reads
    /// what waited in its inbox, then its overdue timers fire. Logs how long it was frozen.
    pub fn thaw(&self, node: &Node, now: Ms) {
        let Some(frozen) = node.frozen.take() else { return };
        let kind =
            crate::sim::events::EventKind::ProcessThawed { node: node.id, frozen_ms: now - frozen.since };
        self.log.borrow_mut().push(self.now_us(), kind);
        self.poke_all();
    }

    /// A process exited by itself (a finished controlled shutdown) at `now`.
    fn on_exited(&self, id: NodeId, now: Ms) {
        self.net.set_route(id, None);
        self.net.reset_connections(self.now_us(), id);
        if let Some(node) = self.nodes.get(id) {
            node.state.set(ProcessState::Stopped { since: now });
            node.task.borrow_mut().take();
        }
    }

    /// Makes every task re-read its core's timers (after a command changed a core directly).
    pub fn poke_all(&self) {
        self.nodes.for_each(|n| {
            if let Some(m) = n.mailbox.borrow().as_ref() {
                m.poke();
            }
        });
    }

    /// Bytes the logs' batches and the audit ledger take (what memory grows with): every
    /// replica's batches in their compact form, and the ledger.
    pub fn memory_held(&self) -> u64 {
        let logs: u64 = self.brokers().iter().map(|(_, b)| b.borrow().log_memory_bytes()).sum();
        logs + self.ledger.borrow().memory_bytes()
    }

    /// Starts the memory guard: once a second of sim time it checks the logs and the ledger
    /// against the budget ([`MEMORY_BUDGET_BYTES`] by default) and stops the producers when
    /// they exceed it. It runs on sim
    /// time, so the same seed and commands stop them at the same instant.
    pub fn spawn_memory_guard(self: &Rc<Self>, local: &LocalSet) {
        let world = self.clone();
        local.spawn_local(async move {
            let mut next = 0;
            loop {
                next += MEMORY_CHECK_MS;
                tokio::time::sleep_until(world.instant_ms(next)).await;
                let held = world.memory_held();
                if held > world.memory_budget.get() {
                    world.stop_producers(next, held);
                }
            }
        });
    }

    /// Starts the charts' sampler: every [`super::history::SAMPLE_MS`] of sim time it adds a
    /// sample to [`World::history`]. It only reads the world, so runs with and without it
    /// are the same; it runs on sim time, so the same seed and commands give the same
    /// samples however the dashboard paces the run.
    pub fn spawn_history(self: &Rc<Self>, local: &LocalSet) {
        let world = self.clone();
        local.spawn_local(async move {
            let mut next = 0;
            loop {
                next += super::history::SAMPLE_MS;
                tokio::time::sleep_until(world.instant_ms(next)).await;
                let mut history = world.history.borrow_mut();
                super::observe::take_sample(&world, next, std::sync::Arc::make_mut(&mut history));
            }
        });
    }

    fn stop_producers(&self, now: Ms, bytes: u64) {
        let producers = self.producers();
        if producers.iter().all(|p| p.borrow().config().rate == 0.0) {
            return;
        }
        for p in producers.iter() {
            let config = crate::config::ProducerConfig { rate: 0.0, ..p.borrow().config().clone() };
            p.borrow_mut().set_config(now, config);
        }
        self.log
            .borrow_mut()
            .push(SimTime::from_ms(now), crate::sim::events::EventKind::ProducersStopped { bytes });
        self.poke_all();
    }

    /// Starts the network's delivery task: one timer, reset to the next arrival when it
    /// changes, and the network's signal for new messages.
    pub fn spawn_network(self: &Rc<Self>, local: &LocalSet) {
        let world = self.clone();
        local.spawn_local(async move {
            let mut timer = Timer::new(&world);
            loop {
                timer.set(&world, world.net.next_due());
                if timer.fires_before(|cx| world.net.poll_changed(cx)).await {
                    world.net.deliver_due(world.now_us());
                }
            }
        });
    }
}

/// A node as logs name it: `broker-2`, `controller`, `producer-0`.
pub(crate) fn node_label(node: NodeId) -> String {
    match node {
        NodeId::Broker(b) => format!("broker-{b}"),
        NodeId::Controller => "controller".into(),
        NodeId::Producer(p) => format!("producer-{p}"),
        NodeId::Consumer(c) => format!("consumer-{c}"),
    }
}

/// How far ahead an unarmed [`Timer`] sleeps: never reached (tokio time runs a thousand times
/// slow, so this is over a year of sim time).
const NEVER: Duration = Duration::from_secs(1 << 35);

/// A task's one timer: a tokio `Sleep` kept for the task's life and moved only when its
/// deadline changes, instead of a new timer-wheel entry on every turn of the task's loop.
struct Timer {
    sleep: Pin<Box<Sleep>>,
    /// When it fires; `None`: never.
    at: Option<SimTime>,
}

impl Timer {
    /// A timer that never fires.
    fn new(world: &World) -> Self {
        Timer { sleep: Box::pin(tokio::time::sleep_until(world.start + NEVER)), at: None }
    }

    /// Moves it to fire at `at` (never for `None`), when that is not where it stands.
    fn set(&mut self, world: &World, at: Option<SimTime>) {
        if at != self.at {
            self.at = at;
            self.sleep.as_mut().reset(at.map_or(world.start + NEVER, |t| world.instant(t)));
        }
    }

    /// Whether it has fired; if not, the polling task is woken when it does.
    fn poll(&mut self, cx: &mut Context<'_>) -> bool {
        self.at.is_some() && self.sleep.as_mut().poll(cx).is_ready()
    }

    /// Waits for `signalled` (polled first) or for the timer: true when the timer fired.
    async fn fires_before(&mut self, mut signalled: impl FnMut(&mut Context<'_>) -> bool) -> bool {
        poll_fn(|cx| {
            if signalled(cx) {
                Poll::Ready(false)
            } else if self.poll(cx) {
                Poll::Ready(true)
            } else {
                Poll::Pending
            }
        })
        .await
    }
}

/// One node's task: deliver messages to its core, fire its timers, dispatch its outbox. It
/// waits on its mailbox and its one timer; its outbox is reused from turn to turn.
async fn run_node<C: Core>(world: Rc<World>, node: NodeId, core: Rc<RefCell<C>>, mailbox: Rc<Mailbox>) {
    let mut last_tick = None;
    let this = world.node(node);
    let mut timer = Timer::new(&world);
    let mut out = Outbox::default();
    let mut listening = core.borrow().accepts_connections();
    loop {
        // A poke asks the task to re-read its core, which this turn does anyway.
        mailbox.clear_poke();
        if let Some(frozen) = this.as_ref().and_then(|n| n.frozen.get()) {
            // Paused: nothing is read and no timer fires until a thaw pokes, or its time is up.
            timer.set(&world, frozen.until.map(SimTime::from_ms));
            let thawed = timer.fires_before(|cx| mailbox.poll_poke(cx)).await;
            if let Some(n) = this.as_ref().filter(|_| thawed) {
                world.thaw(n, world.now());
            }
            continue;
        }
        let mut due = core.borrow().next_deadline();
        // A core that leaves a timer due after its tick must not spin at one instant.
        if let (Some(d), Some(t)) = (due, last_tick)
            && d <= t
        {
            due = Some(t + 1);
        }
        timer.set(&world, due.map(SimTime::from_ms));
        let woken = poll_fn(|cx| match mailbox.poll(cx) {
            Some(woken) => Poll::Ready(Some(woken)),
            None if timer.poll(cx) => Poll::Ready(None),
            None => Poll::Pending,
        })
        .await;
        let now_us = world.now_us();
        let now = now_us.as_ms();
        match woken {
            Some(Woken::Poked) => continue,
            Some(Woken::Closed) => return,
            Some(Woken::Message((from, msg))) => {
                let _node = tracing::debug_span!("node", id = %node_label(node), t = now).entered();
                let _request =
                    tracing::debug_span!("request", from = %node_label(from), api = msg.api_name()).entered();
                tracing::debug!("received");
                tracing::trace!(?msg, "message");
                core.borrow_mut().handle(now, from, msg, &mut out);
            }
            None => {
                last_tick = Some(now);
                let _span = tracing::trace_span!("node", id = %node_label(node), t = now).entered();
                core.borrow_mut().on_tick(now, &mut out);
            }
        }
        let stall = core.borrow().stall_ms(&out);
        let mut sent_at = now_us;
        if stall > 0 {
            // The fsync blocks the broker: nothing goes out, and nothing else is read, until the
            // slow disk is done (Kafka appends and flushes on the request's own thread).
            let done = now_us.plus_micros(stall.saturating_mul(1000));
            tokio::time::sleep_until(world.instant(done)).await;
            sent_at = world.now_us();
        }
        world.dispatch_at(sent_at, node, &mut out);
        if core.borrow().accepts_connections() != listening {
            listening = !listening;
            world.net.set_listening(node, listening);
        }
        if core.borrow().has_exited() {
            world.on_exited(node, now);
            return;
        }
    }
}
