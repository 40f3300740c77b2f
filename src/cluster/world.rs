//! The running simulation: the sim clock and its agenda, the node registry (every process's
//! sans-IO core, state and runtime state), the network, the event log and the audit ledger,
//! and the one node step the drivers run (`World::step`). The runtime only moves messages
//! and fires timers; all protocol decisions happen in the cores.

use super::agenda::{Agenda, Due, Entry, Service};
use super::events::EventLog;
use super::net::{Arrival, Network, Post};
use super::node::{Frozen, Node, NodeCore, ProcessState, Registry, Role, Stall};
use crate::config::{BrokerConfig, HandlingConfig};
use crate::sim::audit::Ledger;
use crate::sim::broker::Broker;
use crate::sim::consumer::ConsumerClient;
use crate::sim::controller::QuorumController;
use crate::sim::events::EventKind;
use crate::sim::image::MetadataImage;
use crate::sim::loss_cause::Election;
use crate::sim::producer::ProducerClient;
use crate::sim::protocol::{Message, NodeId};
use crate::sim::quorum::ControllerNode;
use crate::sim::wire_client::WireClient;
use crate::sim::{BrokerId, Ms, Outbox, SimTime, TopicPartition};
use std::cell::{Cell, Ref, RefCell, RefMut};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

/// Most bytes the logs' batches and the audit ledger may take before isrlab stops the
/// producers: a last resort (2 GiB). Retention bounds memory in normal use; only a long run
/// at a high rate with retention far longer than the run meets it.
pub const MEMORY_BUDGET_BYTES: u64 = 2 << 30;

/// How often the memory guard looks (ms of sim time).
const MEMORY_CHECK_MS: Ms = 1_000;

/// A sans-IO component a node step drives.
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

impl Core for ControllerNode {
    fn handle(&mut self, now: Ms, from: NodeId, msg: Message, out: &mut Outbox) {
        ControllerNode::handle(self, now, from, msg, out)
    }
    fn on_tick(&mut self, now: Ms, out: &mut Outbox) {
        ControllerNode::on_tick(self, now, out)
    }
    fn next_deadline(&self) -> Option<Ms> {
        ControllerNode::next_deadline(self)
    }
}

/// A controller process's controller state, borrowed as a [`QuorumController`]: what
/// [`World::controller`] hands out.
pub(crate) struct ControllerRef(Rc<RefCell<ControllerNode>>);

impl ControllerRef {
    /// Reads the controller state.
    pub fn borrow(&self) -> Ref<'_, QuorumController> {
        Ref::map(self.0.borrow(), ControllerNode::controller)
    }
    /// Changes the controller state (what a command asks of the active controller).
    pub fn borrow_mut(&self) -> RefMut<'_, QuorumController> {
        RefMut::map(self.0.borrow_mut(), ControllerNode::controller_mut)
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

impl Core for WireClient {
    fn handle(&mut self, now: Ms, from: NodeId, msg: Message, out: &mut Outbox) {
        self.handle(now, from, msg, out);
    }
    fn on_tick(&mut self, _now: Ms, _out: &mut Outbox) {}
    fn next_deadline(&self) -> Option<Ms> {
        None
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
    /// Sim time now: set only by the driver, as it takes each agenda entry.
    pub clock: Cell<SimTime>,
    /// Everything due later: messages in flight, node timers, resumes, services.
    pub agenda: RefCell<Agenda<Due>>,
    /// Agenda entries taken so far (stale ones included): the work a run did, which the
    /// benchmarks divide their time by.
    pub entries_taken: Cell<u64>,
    pub seed: u64,
    /// The `__consumer_offsets` record book every broker shares.
    pub offsets_book: crate::sim::group::book::OffsetsBook,
    pub net: Network,
    /// The processing times every broker has unless set for it alone (`broker.*`); each
    /// broker node keeps its own request-processing threads ([`Node::threads`]).
    pub handling: Cell<HandlingConfig>,
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
    /// Where the `roll` under way stands.
    pub roll: RefCell<Option<super::command::roll::Rolling>>,
    /// A planted fault for the driver-equivalence test: two same-instant messages are taken
    /// in the wrong order ([`super::handle::Sim::plant_same_instant_swap`]).
    pub plant_swap: Cell<bool>,
    /// The entry a planted swap held back, taken next.
    pub held_back: RefCell<Option<Entry<Due>>>,
    /// The latest truncations per partition, for the dashboard.
    pub truncations: RefCell<super::truncations::Truncations>,
    /// Each partition's latest leader change (from the controller's `LeaderChanged` events),
    /// so a loss can say how the leader that lacks the records came to lead.
    pub elections: RefCell<BTreeMap<TopicPartition, Election>>,
    /// The charts' samples ([`World::schedule_services`]); shared with the snapshots.
    pub history: RefCell<std::sync::Arc<super::history::History>>,
}

impl World {
    /// Sim time now (µs).
    pub fn now_us(&self) -> SimTime {
        self.clock.get()
    }

    /// Sim time now in whole ms (floored): the `now` the cores are called with, as Kafka reads
    /// `Time.milliseconds()`.
    pub fn now(&self) -> Ms {
        self.now_us().as_ms()
    }

    /// Schedules `what` at `at` on the agenda.
    pub fn schedule(&self, at: SimTime, what: Due) {
        self.agenda.borrow_mut().schedule(at, what);
    }

    /// The controller state as the cluster knows it: the active controller's, or while the
    /// quorum has no leader the most up-to-date voter's (the metadata brokers last read).
    /// Every world has at least one controller (built first by `build_world`).
    pub fn controller(&self) -> ControllerRef {
        if let Some(id) = self.active_controller_id() {
            return ControllerRef(self.controller_node(id).expect("the active controller is a node"));
        }
        let best = self
            .controller_nodes()
            .into_iter()
            .max_by_key(|(id, c)| {
                let c = c.borrow();
                (c.raft().log().last_epoch(), c.raft().log().end, -id)
            })
            .map(|(_, c)| c);
        ControllerRef(best.expect("every world is built with a controller node"))
    }

    /// The active controller's state, for a command that changes metadata. Errors: the
    /// quorum has no active controller (an admin client's request would time out).
    pub fn active_controller(&self) -> Result<ControllerRef, crate::sim::error::SimError> {
        match self.active_controller_id() {
            Some(id) => Ok(ControllerRef(self.controller_node(id).expect("the active controller is a node"))),
            None => Err(crate::sim::error::SimError::InvalidState(
                "REQUEST_TIMED_OUT: no active controller (the controller quorum has no leader: a majority of \
                 voters must run and reach each other)"
                    .into(),
            )),
        }
    }

    /// The node id of the active controller: the running, unfrozen voter that leads the
    /// highest epoch. `None` while the quorum has no leader.
    pub fn active_controller_id(&self) -> Option<i32> {
        self.controller_nodes()
            .into_iter()
            .filter(|(id, c)| {
                let node = self.nodes.get(NodeId::Controller(*id));
                node.is_some_and(|n| n.state.get().is_running()) && c.borrow().is_active()
            })
            .max_by_key(|(_, c)| c.borrow().raft().epoch())
            .map(|(id, _)| id)
    }

    /// One controller process by node id.
    pub fn controller_node(&self, id: i32) -> Option<Rc<RefCell<ControllerNode>>> {
        match self.nodes.get(NodeId::Controller(id))?.core.clone() {
            NodeCore::Controller(c) => Some(c),
            _ => None,
        }
    }

    /// Every controller process (the quorum's voters), in id order.
    pub fn controller_nodes(&self) -> Vec<(i32, Rc<RefCell<ControllerNode>>)> {
        let nodes = self.nodes.with_role(Role::Controller);
        nodes
            .iter()
            .filter_map(|n| match (&n.id, &n.core) {
                (NodeId::Controller(id), NodeCore::Controller(c)) => Some((*id, c.clone())),
                _ => None,
            })
            .collect()
    }

    /// Where a message to [`NodeId::ActiveController`] goes: for a broker, the active
    /// controller it knows; for anyone else, the active controller. `None`: nowhere.
    fn resolve_controller(&self, from: NodeId) -> Option<NodeId> {
        if let NodeId::Broker(b) = from
            && let Some(core) = self.broker(b)
            && let Ok(core) = core.try_borrow()
        {
            return Some(NodeId::Controller(core.known_controller().0));
        }
        self.active_controller_id().map(NodeId::Controller)
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
        if from == NodeId::ActiveController {
            // A command's changes to the active controller: written to its metadata log, and
            // sent from it once committed.
            let Some(id) = self.active_controller_id() else {
                // No active controller: nothing is written; what happened is still told.
                out.sends.clear();
                return self.dispatch_at(now, NodeId::Controller(crate::sim::CONTROLLER_ID), out);
            };
            let node = self.controller_node(id).expect("the active controller is a node");
            let mut written = Outbox::default();
            written.touched.append(&mut out.touched);
            node.borrow_mut().write_command(now.as_ms(), out, &mut written);
            self.dispatch_at(now, NodeId::Controller(id), &mut written);
            if let Some(n) = self.nodes.get(NodeId::Controller(id)) {
                self.rearm(&n);
            }
            return;
        }
        if !out.sends.is_empty() {
            self.with_post(|post| {
                for (to, msg) in out.sends.drain(..) {
                    let to = match to {
                        NodeId::ActiveController => match self.resolve_controller(from) {
                            Some(to) => to,
                            None => continue,
                        },
                        to => to,
                    };
                    self.net.send(post, now, from, to, msg);
                }
            });
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

    /// Calls `f` with what the network posts through: the agenda, and the brokers' threads.
    pub fn with_post<R>(&self, f: impl FnOnce(&mut dyn Post) -> R) -> R {
        let mut agenda = self.agenda.borrow_mut();
        f(&mut WorldPost { world: self, agenda: &mut agenda })
    }

    /// Sets a `broker.*` lab property (a processing time) for every broker (`None`) or one.
    /// Errors: as [`HandlingConfig::set`]; nothing changes then.
    pub fn set_handling(
        &self,
        broker: Option<BrokerId>,
        key: &str,
        value: &str,
    ) -> Result<(), crate::config::ConfigError> {
        let nodes = self.nodes.with_role(Role::Broker);
        match broker {
            Some(b) => match nodes.iter().find(|n| n.id == NodeId::Broker(b)) {
                Some(node) => node.threads.borrow_mut().set(Some(b), key, value),
                None => Ok(()),
            },
            None => {
                let mut defaults = self.handling.get();
                defaults.set(key, value)?;
                self.handling.set(defaults);
                for node in nodes {
                    node.threads.borrow_mut().set(None, key, value)?;
                }
                Ok(())
            }
        }
    }

    /// Adds a node to the registry and starts its process. Returns the node.
    pub fn add_node(&self, id: NodeId, core: NodeCore) -> Rc<Node> {
        let node = Node::new(id, core);
        *node.threads.borrow_mut() = crate::sim::handling::RequestQueues::new(self.handling.get());
        let node = self.nodes.insert(node);
        self.start_process(&node);
        node
    }

    /// Starts (or restarts) a node's process with an empty socket, reachable through the
    /// network, and marks it running; its timer is armed from its core.
    pub fn start_process(&self, node: &Node) {
        {
            let mut rt = node.rt.borrow_mut();
            rt.life += 1;
            rt.inbox.clear();
            rt.resume_pending = false;
            rt.stalled = None;
            rt.last_tick = None;
            rt.listening = with_core(&node.core, |c| c.accepts_connections());
            self.forget_queued_work(node);
            self.net.set_up(node.id, true);
            self.net.set_listening(node.id, rt.listening);
        }
        node.frozen.set(None);
        node.state.set(ProcessState::Running);
        self.rearm(node);
    }

    /// Kills a node's process at `now`: what waited in its socket and on its disk is gone, the
    /// network refuses connections to it and resets the ones it had. The core is left for the
    /// caller to reset.
    pub fn kill_process(&self, node: &Node, now: Ms) {
        self.process_gone(node);
        self.net.set_up(node.id, false);
        self.with_post(|post| self.net.reset_connections(post, self.now_us(), node.id));
        node.state.set(ProcessState::Crashed { since: now });
    }

    /// A broker's process ended or started: the work its threads had queued is gone.
    fn forget_queued_work(&self, node: &Node) {
        if let NodeId::Broker(b) = node.id {
            node.threads.borrow_mut().forget(b);
        }
    }

    /// Forgets a dead process's runtime state; its pending agenda entries become stale.
    fn process_gone(&self, node: &Node) {
        self.forget_queued_work(node);
        let mut rt = node.rt.borrow_mut();
        rt.life += 1;
        rt.inbox.clear();
        rt.resume_pending = false;
        rt.stalled = None;
        rt.timer = None;
        rt.generation += 1;
        node.frozen.set(None);
    }

    /// Pauses a running node's process at `now` (`freeze`), thawing it by itself after
    /// `thaw_after` ms when given. It stops reading and firing its timers; messages sent to
    /// it wait in its socket (the inbox) and are read in order when it thaws. The network
    /// still accepts connections to it: the operating system does that.
    pub fn freeze(&self, node: &Node, now: Ms, thaw_after: Option<Ms>) {
        node.frozen.set(Some(Frozen { since: now, until: thaw_after.map(|d| now + d) }));
        self.rearm_all();
    }

    /// Lets a frozen node run again at `now` (`thaw`, or its freeze's time is up): it reads
    /// what waited in its inbox, then its overdue timers fire. Logs how long it was frozen.
    pub fn thaw(&self, node: &Node, now: Ms) {
        let Some(frozen) = node.frozen.take() else { return };
        let kind = EventKind::ProcessThawed { node: node.id, frozen_ms: now - frozen.since };
        self.log.borrow_mut().push(self.now_us(), kind);
        self.ensure_resume(node);
        self.rearm_all();
    }

    /// A process exited by itself (a finished controlled shutdown) at `now`.
    fn on_exited(&self, node: &Node, now: Ms) {
        self.process_gone(node);
        self.net.set_up(node.id, false);
        self.with_post(|post| self.net.reset_connections(post, self.now_us(), node.id));
        node.state.set(ProcessState::Stopped { since: now });
    }

    /// Re-reads every node's timer from its core (after a command changed cores directly).
    pub fn rearm_all(&self) {
        for node in self.nodes.all() {
            self.rearm(&node);
        }
    }

    /// Re-reads a node's timer: a frozen process's is its thaw; a process stalled on its disk
    /// or with messages waiting has none (its `Resume` re-arms it); a running one's is its
    /// core's next deadline, never at or before its last tick (a core that leaves a timer due
    /// after its tick must not spin at one instant). A new agenda entry is pushed only when
    /// the deadline moved.
    pub fn rearm(&self, node: &Node) {
        let due = if !node.state.get().is_running() {
            None
        } else if let Some(frozen) = node.frozen.get() {
            frozen.until.map(SimTime::from_ms)
        } else {
            let rt = node.rt.borrow();
            if rt.stalled.is_some() || !rt.inbox.is_empty() {
                None
            } else {
                let mut due = with_core(&node.core, |c| c.next_deadline());
                if let (Some(d), Some(t)) = (due, rt.last_tick)
                    && d <= t
                {
                    due = Some(t + 1);
                }
                due.map(SimTime::from_ms)
            }
        };
        let mut rt = node.rt.borrow_mut();
        if rt.timer != due {
            rt.timer = due;
            rt.generation += 1;
            if let Some(at) = due {
                let generation = rt.generation;
                self.schedule(at, Due::Timer { node: node.id, generation });
            }
        }
    }

    /// Schedules a `Resume` at once when the node can read and has messages waiting.
    fn ensure_resume(&self, node: &Node) {
        let mut rt = node.rt.borrow_mut();
        if node.frozen.get().is_none() && rt.stalled.is_none() && !rt.inbox.is_empty() && !rt.resume_pending {
            rt.resume_pending = true;
            let life = rt.life;
            self.schedule(self.now_us(), Due::Resume { node: node.id, life });
        }
    }

    /// Takes the next agenda entry due by `until` (by `now` once `stop` holds: what is due at
    /// the current instant still runs) and carries it out as far as the runtime does by
    /// itself (the network's arrival checks, the services); returns the node step it leads
    /// to, for the driver to run. `None`: nothing more is due. Sets the clock to each entry's
    /// instant.
    pub fn next_work(
        self: &Rc<Self>,
        until: SimTime,
        stop: &dyn Fn(&World) -> bool,
    ) -> Option<(NodeId, Wake)> {
        loop {
            let limit = if stop(self) { until.min(self.now_us()) } else { until };
            let entry = self.take_entry(limit)?;
            self.clock.set(entry.at);
            match entry.what {
                Due::Arrive { from, to, msg } => {
                    match self.with_post(|post| self.net.arrive(post, entry.at, from, to, &msg)) {
                        Arrival::Deliver => return Some((to, Wake::Message(from, msg))),
                        Arrival::Keep => self.with_post(|post| self.net.keep(post, from, to, msg)),
                        Arrival::Gone => {}
                    }
                }
                Due::Timer { node, generation } => return Some((node, Wake::Timer(generation))),
                Due::Resume { node, life } => return Some((node, Wake::Resume(life))),
                Due::Service(service) => self.run_service(service),
            }
        }
    }

    /// The next entry due by `limit`; a planted swap takes the second of two same-instant
    /// messages first.
    fn take_entry(&self, limit: SimTime) -> Option<Entry<Due>> {
        if let Some(e) = self.held_back.borrow_mut().take() {
            return Some(e);
        }
        let mut agenda = self.agenda.borrow_mut();
        let first = agenda.pop_due(limit)?;
        self.entries_taken.set(self.entries_taken.get() + 1);
        if self.plant_swap.get()
            && matches!(first.what, Due::Arrive { .. })
            && agenda.next_at() == Some(first.at)
        {
            let second = agenda.pop_due(limit)?;
            if matches!(second.what, Due::Arrive { .. }) {
                *self.held_back.borrow_mut() = Some(first);
                return Some(second);
            }
            agenda.schedule(second.at, second.what);
        }
        Some(first)
    }

    /// One node step: what one turn of a node's process does with what woke it.
    ///
    /// A message: read now if the process can (not frozen, not stalled on its disk, nothing
    /// older waiting), else kept in its socket. A timer: a frozen process thaws when its
    /// freeze's time is up; a process with messages waiting reads those first; else its core
    /// ticks. A resume: the held outbox of a finished disk stall goes out, then one waiting
    /// message is read (another resume follows at the same instant while more wait).
    ///
    /// After the core's work: a stall on a slow disk holds what it sends until the disk is
    /// done (Kafka appends and flushes on the request's own thread); otherwise it is
    /// dispatched now. Then whether it listens, whether it exited, and its timer.
    pub fn step(&self, id: NodeId, wake: Wake) {
        let Some(node) = self.nodes.get(id) else { return };
        if !node.state.get().is_running() {
            return;
        }
        match wake {
            Wake::Message(from, msg) => {
                let busy = {
                    let rt = node.rt.borrow();
                    node.frozen.get().is_some() || rt.stalled.is_some() || !rt.inbox.is_empty()
                };
                if busy {
                    node.rt.borrow_mut().inbox.push_back((from, msg));
                    self.ensure_resume(&node);
                    return;
                }
                self.work(&node, Some((from, msg)));
            }
            Wake::Timer(generation) => {
                {
                    let mut rt = node.rt.borrow_mut();
                    if rt.generation != generation {
                        return;
                    }
                    rt.timer = None;
                }
                if node.frozen.get().is_some() {
                    self.thaw(&node, self.now());
                    return;
                }
                let waiting = {
                    let rt = node.rt.borrow();
                    rt.stalled.is_some() || !rt.inbox.is_empty()
                };
                if waiting {
                    self.rearm(&node);
                    return;
                }
                self.work(&node, None);
            }
            Wake::Resume(life) => {
                let stall_done = {
                    let mut rt = node.rt.borrow_mut();
                    if rt.life != life {
                        return;
                    }
                    rt.resume_pending = false;
                    match &rt.stalled {
                        Some(stall) if stall.done <= self.now_us() => rt.stalled.take(),
                        Some(_) => return,
                        None => None,
                    }
                };
                if let Some(mut stall) = stall_done {
                    self.dispatch_at(self.now_us(), id, &mut stall.out);
                    node.rt.borrow_mut().out = stall.out;
                    if self.after_dispatch(&node, stall.woke) {
                        return;
                    }
                }
                let next = {
                    let mut rt = node.rt.borrow_mut();
                    if node.frozen.get().is_some() { None } else { rt.inbox.pop_front() }
                };
                match next {
                    Some(delivery) => self.work(&node, Some(delivery)),
                    None => {
                        self.ensure_resume(&node);
                        self.rearm(&node);
                    }
                }
            }
        }
    }

    /// The core reads one message (or ticks, `None`), then its outbox goes out (or waits for
    /// its disk stall), then the node's state and timer follow.
    fn work(&self, node: &Node, delivery: Option<(NodeId, Message)>) {
        let now_us = self.now_us();
        let now = now_us.as_ms();
        let mut out = std::mem::take(&mut node.rt.borrow_mut().out);
        match delivery {
            Some((from, msg)) => {
                let _node = tracing::debug_span!("node", id = %node_label(node.id), t = now).entered();
                let _request =
                    tracing::debug_span!("request", from = %node_label(from), api = msg.api_name()).entered();
                tracing::debug!("received");
                tracing::trace!(?msg, "message");
                with_core(&node.core, |c| c.handle(now, from, msg, &mut out));
            }
            None => {
                node.rt.borrow_mut().last_tick = Some(now);
                let _span = tracing::trace_span!("node", id = %node_label(node.id), t = now).entered();
                with_core(&node.core, |c| c.on_tick(now, &mut out));
            }
        }
        let stall = with_core(&node.core, |c| c.stall_ms(&out));
        if stall > 0 {
            // The fsync blocks the broker: nothing goes out, and nothing else is read, until
            // the slow disk is done.
            let done = now_us.plus_micros(stall.saturating_mul(1000));
            let mut rt = node.rt.borrow_mut();
            rt.stalled = Some(Stall { done, woke: now, out });
            let life = rt.life;
            drop(rt);
            self.schedule(done, Due::Resume { node: node.id, life });
            self.rearm(node);
            return;
        }
        self.dispatch_at(now_us, node.id, &mut out);
        node.rt.borrow_mut().out = out;
        if self.after_dispatch(node, now) {
            return;
        }
        self.ensure_resume(node);
        self.rearm(node);
    }

    /// After a node's outbox went out: tells the network whether it listens, and ends its
    /// process if it exited (at `woke` ms). Says whether it exited.
    fn after_dispatch(&self, node: &Node, woke: Ms) -> bool {
        let listening = with_core(&node.core, |c| c.accepts_connections());
        let changed = {
            let mut rt = node.rt.borrow_mut();
            let changed = rt.listening != listening;
            rt.listening = listening;
            changed
        };
        if changed {
            self.net.set_listening(node.id, listening);
        }
        if with_core(&node.core, |c| c.has_exited()) {
            self.on_exited(node, woke);
            return true;
        }
        false
    }

    /// Bytes the logs' batches and the audit ledger take (what memory grows with): every
    /// replica's batches in their compact form, and the ledger.
    pub fn memory_held(&self) -> u64 {
        let logs: u64 = self.brokers().iter().map(|(_, b)| b.borrow().log_memory_bytes()).sum();
        logs + self.ledger.borrow().memory_bytes()
    }

    /// Puts the runtime's services on the agenda: the memory guard (once a second of sim
    /// time it checks the logs and the ledger against the budget, [`MEMORY_BUDGET_BYTES`] by
    /// default, and stops the producers when they exceed it) and the charts' sampler (every
    /// [`super::history::SAMPLE_MS`] it adds a sample to [`World::history`]; it only reads
    /// the world, so runs with and without it are the same). Both run on sim time, so the
    /// same seed and commands give the same result however the dashboard paces the run.
    pub fn schedule_services(&self) {
        self.schedule(SimTime::from_ms(MEMORY_CHECK_MS), Due::Service(Service::MemoryGuard));
        self.schedule(SimTime::from_ms(super::history::SAMPLE_MS), Due::Service(Service::History));
    }

    fn run_service(self: &Rc<Self>, service: Service) {
        let now = self.now();
        match service {
            Service::MemoryGuard => {
                let held = self.memory_held();
                if held > self.memory_budget.get() {
                    self.stop_producers(now, held);
                }
                self.schedule(SimTime::from_ms(now + MEMORY_CHECK_MS), Due::Service(service));
            }
            Service::History => {
                let mut history = self.history.borrow_mut();
                super::observe::take_sample(self, now, std::sync::Arc::make_mut(&mut history));
                drop(history);
                self.schedule(SimTime::from_ms(now + super::history::SAMPLE_MS), Due::Service(service));
            }
            Service::Roll => super::command::roll::step(self),
        }
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
        self.log.borrow_mut().push(SimTime::from_ms(now), EventKind::ProducersStopped { bytes });
        self.rearm_all();
    }

    /// A deep copy of the whole world: every node's core and runtime state, the network, the
    /// agenda, the ledger, the event log, the rng streams with their positions. The brokers'
    /// shared offsets book is copied once and shared by the copied brokers, as in the original.
    pub fn fork(&self) -> World {
        let book = self.offsets_book.deep_clone();
        let nodes = Registry::default();
        for node in self.nodes.all() {
            let core = node.core.deep_clone();
            if let NodeCore::Broker(b) = &core {
                b.borrow_mut().set_offsets_book(book.clone());
            }
            nodes.insert(node.deep_clone(core));
        }
        World {
            clock: Cell::new(self.clock.get()),
            agenda: RefCell::new(self.agenda.borrow().clone()),
            entries_taken: Cell::new(self.entries_taken.get()),
            seed: self.seed,
            offsets_book: book,
            net: self.net.clone(),
            handling: Cell::new(self.handling.get()),
            nodes,
            ledger: RefCell::new(self.ledger.borrow().clone()),
            log: RefCell::new(self.log.borrow().clone()),
            memory_budget: Cell::new(self.memory_budget.get()),
            server_properties: RefCell::new(self.server_properties.borrow().clone()),
            restart_pending: RefCell::new(self.restart_pending.borrow().clone()),
            rolling: Cell::new(self.rolling.get()),
            truncations: RefCell::new(self.truncations.borrow().clone()),
            elections: RefCell::new(self.elections.borrow().clone()),
            history: RefCell::new(self.history.borrow().clone()),
            roll: RefCell::new(self.roll.borrow().clone()),
            plant_swap: Cell::new(self.plant_swap.get()),
            held_back: RefCell::new(self.held_back.borrow().clone()),
        }
    }
}

/// The network's way onto the agenda, through the brokers' request-processing threads, which
/// each broker node keeps ([`Node::threads`]).
struct WorldPost<'w> {
    world: &'w World,
    agenda: &'w mut Agenda<Due>,
}

impl Post for WorldPost<'_> {
    fn schedule(&mut self, at: SimTime, what: Due) {
        self.agenda.schedule(at, what);
    }
    fn take_seq(&mut self) -> u64 {
        self.agenda.take_seq()
    }
    fn answered_at(&self, now: SimTime, broker: BrokerId, to: NodeId, msg: &Message) -> SimTime {
        match self.world.nodes.get(NodeId::Broker(broker)) {
            Some(node) => node.threads.borrow().answered_at(now, broker, to, msg),
            None => now,
        }
    }
    fn handled_at(&mut self, arrival: SimTime, broker: BrokerId, from: NodeId, msg: &Message) -> SimTime {
        match self.world.nodes.get(NodeId::Broker(broker)) {
            Some(node) => node.threads.borrow_mut().handled_at(arrival, broker, from, msg),
            None => arrival,
        }
    }
}

/// What wakes a node's step: an agenda entry for that node.
#[derive(Debug)]
pub(crate) enum Wake {
    /// A message reached its process (the network's checks passed).
    Message(NodeId, Message),
    /// Its timer of the given generation.
    Timer(u64),
    /// A resume of the given process life.
    Resume(u64),
}

/// Calls `f` with the node's core, borrowed for the call.
fn with_core<R>(core: &NodeCore, f: impl FnOnce(&mut dyn Core) -> R) -> R {
    match core {
        NodeCore::Controller(c) => f(&mut *c.borrow_mut()),
        NodeCore::Broker(b) => f(&mut *b.borrow_mut()),
        NodeCore::Producer(p) => f(&mut *p.borrow_mut()),
        NodeCore::Consumer(c) => f(&mut *c.borrow_mut()),
        NodeCore::Client(c) => f(&mut *c.borrow_mut()),
    }
}

/// A node as logs name it: `broker-2`, `controller`, `producer-0`.
pub(crate) fn node_label(node: NodeId) -> String {
    match node {
        NodeId::Broker(b) => format!("broker-{b}"),
        NodeId::Controller(c) => format!("controller-{c}"),
        NodeId::ActiveController => "active-controller".into(),
        NodeId::Producer(p) => format!("producer-{p}"),
        NodeId::Consumer(c) => format!("consumer-{c}"),
        NodeId::Client(c) => format!("client-{c}"),
    }
}
