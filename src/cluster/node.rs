//! The node registry: every process of the simulated cluster, each with a role (what it
//! does) and a process state (whether it runs). Controllers, brokers, producers and consumers
//! are all nodes; wire clients will be a new role, not a new collection.

use crate::config::HandlingConfig;
use crate::sim::broker::Broker;
use crate::sim::consumer::ConsumerClient;
use crate::sim::handling::RequestQueues;
use crate::sim::producer::ProducerClient;
use crate::sim::protocol::{Message, NodeId};
use crate::sim::quorum::ControllerNode;
use crate::sim::wire_client::WireClient;
use crate::sim::{Ms, Outbox, SimTime};
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;

/// What a node does in the cluster.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum Role {
    /// A KRaft controller (`process.roles=controller`).
    Controller,
    /// A broker (`process.roles=broker`).
    Broker,
    /// A producer client.
    Producer,
    /// A consumer client.
    Consumer,
    /// A real client's connection through the wire adapter.
    Client,
}

/// The operating-system view of a node's process. Fencing is not a process state: it is what
/// the controller thinks of a broker, and a running broker can be fenced.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ProcessState {
    /// The process runs.
    Running,
    /// The process runs and has asked for a controlled shutdown (R6.6); it exits when the
    /// controller lets it.
    ShuttingDown,
    /// The process exited after a controlled shutdown at the given sim time (ms).
    Stopped {
        /// When (ms).
        since: Ms,
    },
    /// The process was killed at the given sim time (ms); its disk survives.
    Crashed {
        /// When (ms).
        since: Ms,
    },
    /// The host lost power at the given sim time (ms): the process died and what the page
    /// cache had not flushed is gone (`power-loss`).
    PoweredOff {
        /// When (ms).
        since: Ms,
    },
}

/// A paused process (`freeze`): a long GC pause or a stopped VM. It keeps its state and its
/// sockets; it reads nothing and fires no timer until it thaws.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Frozen {
    /// When it froze (ms).
    pub since: Ms,
    /// When it thaws by itself (ms), if it does.
    pub until: Option<Ms>,
}

impl ProcessState {
    /// Whether the process runs (also while it shuts down).
    pub fn is_running(self) -> bool {
        matches!(self, ProcessState::Running | ProcessState::ShuttingDown)
    }
}

/// A node's sans-IO core, by role.
#[derive(Clone)]
pub(crate) enum NodeCore {
    Controller(Rc<RefCell<ControllerNode>>),
    Broker(Rc<RefCell<Broker>>),
    Producer(Rc<RefCell<ProducerClient>>),
    Consumer(Rc<RefCell<ConsumerClient>>),
    Client(Rc<RefCell<WireClient>>),
}

impl NodeCore {
    /// The role this core plays.
    pub fn role(&self) -> Role {
        match self {
            NodeCore::Controller(_) => Role::Controller,
            NodeCore::Broker(_) => Role::Broker,
            NodeCore::Producer(_) => Role::Producer,
            NodeCore::Consumer(_) => Role::Consumer,
            NodeCore::Client(_) => Role::Client,
        }
    }
}

impl NodeCore {
    /// A deep copy: a new core equal to this one, shared with nothing.
    pub fn deep_clone(&self) -> NodeCore {
        match self {
            NodeCore::Controller(c) => NodeCore::Controller(Rc::new(RefCell::new(c.borrow().clone()))),
            NodeCore::Broker(b) => NodeCore::Broker(Rc::new(RefCell::new(b.borrow().clone()))),
            NodeCore::Producer(p) => NodeCore::Producer(Rc::new(RefCell::new(p.borrow().clone()))),
            NodeCore::Consumer(c) => NodeCore::Consumer(Rc::new(RefCell::new(c.borrow().clone()))),
            NodeCore::Client(c) => NodeCore::Client(Rc::new(RefCell::new(c.borrow().clone()))),
        }
    }
}

/// A broker whose fsync on a slow disk holds its process up: what it wants sent waits until
/// the disk is done.
#[derive(Clone, Debug)]
pub(crate) struct Stall {
    /// When the disk is done and the process goes on.
    pub done: SimTime,
    /// The ms at which the work that stalled started (a controlled shutdown that it finished
    /// dates the exit from then).
    pub woke: Ms,
    /// What it sends once the disk is done.
    pub out: Outbox,
}

/// What the runtime keeps for one node's process between its steps. It lives in the world,
/// not in a task, so a clone of the world is a checkpoint.
#[derive(Clone, Debug, Default)]
pub(crate) struct NodeRuntime {
    /// Messages that arrived while the process could not read (frozen, stalled on its disk,
    /// or still reading earlier ones): its socket's receive buffer, read in arrival order.
    pub inbox: VecDeque<(NodeId, Message)>,
    /// A `Resume` entry for this process is on the agenda.
    pub resume_pending: bool,
    /// The ms of its last tick (a core leaving a timer due after its tick must not spin).
    pub last_tick: Option<Ms>,
    /// Whether it accepts inbound connections (as the network was told).
    pub listening: bool,
    /// When its one timer fires, if armed.
    pub timer: Option<SimTime>,
    /// Bumped whenever the timer moves: an agenda entry of another generation is stale.
    pub generation: u64,
    /// Its fsync stall, if one holds it up.
    pub stalled: Option<Stall>,
    /// Bumped at each start and death: an agenda `Resume` of an earlier life is stale.
    pub life: u64,
    /// The outbox its steps reuse (buffers kept).
    pub out: Outbox,
}

/// One process: its core, its state and what the runtime keeps for it between steps.
pub(crate) struct Node {
    pub id: NodeId,
    pub core: NodeCore,
    pub state: Cell<ProcessState>,
    /// Set while a running process is paused (orthogonal to `state`: a frozen process still
    /// runs, and a frozen broker can be shutting down).
    pub frozen: Cell<Option<Frozen>>,
    /// Its runtime state ([`NodeRuntime`]).
    pub rt: RefCell<NodeRuntime>,
    /// A broker's request-processing threads: its processing times and the work queued on
    /// them (Kafka's network and request handler threads live in the broker's process).
    pub threads: RefCell<RequestQueues>,
}

impl Node {
    /// A running node whose process has not been started yet.
    pub fn new(id: NodeId, core: NodeCore) -> Node {
        Node {
            id,
            core,
            state: Cell::new(ProcessState::Running),
            frozen: Cell::new(None),
            rt: RefCell::new(NodeRuntime::default()),
            threads: RefCell::new(RequestQueues::new(HandlingConfig::NONE)),
        }
    }

    /// Its role.
    pub fn role(&self) -> Role {
        self.core.role()
    }

    /// A deep copy (its core too), for a fork of the world.
    pub fn deep_clone(&self, core: NodeCore) -> Node {
        Node {
            id: self.id,
            core,
            state: Cell::new(self.state.get()),
            frozen: Cell::new(self.frozen.get()),
            rt: RefCell::new(self.rt.borrow().clone()),
            threads: RefCell::new(self.threads.borrow().clone()),
        }
    }
}

/// Every node of one simulation, in [`NodeId`] order. Nodes are added (a producer created by a
/// command) but never removed: a stopped process is still a node.
#[derive(Default)]
pub(crate) struct Registry {
    nodes: RefCell<BTreeMap<NodeId, Rc<Node>>>,
}

impl Registry {
    /// Adds a node (replacing none: ids are unique by construction).
    pub fn insert(&self, node: Node) -> Rc<Node> {
        let node = Rc::new(node);
        self.nodes.borrow_mut().insert(node.id, node.clone());
        node
    }

    /// One node by id.
    pub fn get(&self, id: NodeId) -> Option<Rc<Node>> {
        self.nodes.borrow().get(&id).cloned()
    }

    /// Every node, in id order.
    pub fn all(&self) -> Vec<Rc<Node>> {
        self.nodes.borrow().values().cloned().collect()
    }

    /// Every node with the given role, in id order.
    pub fn with_role(&self, role: Role) -> Vec<Rc<Node>> {
        self.nodes.borrow().values().filter(|n| n.role() == role).cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::BrokerConfig;

    #[test]
    fn nodes_are_listed_by_role_in_id_order() {
        let reg = Registry::default();
        for id in [2, 0, 1] {
            let core = NodeCore::Broker(Rc::new(RefCell::new(Broker::new(id, BrokerConfig::default()))));
            reg.insert(Node::new(NodeId::Broker(id), core));
        }
        let ids: Vec<NodeId> = reg.with_role(Role::Broker).iter().map(|n| n.id).collect();
        assert_eq!(ids, [NodeId::Broker(0), NodeId::Broker(1), NodeId::Broker(2)]);
        assert!(reg.with_role(Role::Producer).is_empty());
        assert!(reg.get(NodeId::Broker(1)).unwrap().state.get().is_running());
        assert!(reg.get(NodeId::Controller(3000)).is_none());
    }
}
