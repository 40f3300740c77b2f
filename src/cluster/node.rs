//! The node registry: every process of the simulated cluster, each with a role (what it
//! does) and a process state (whether it runs). Controllers, brokers, producers and consumers
//! are all nodes; wire clients will be a new role, not a new collection.

use super::wake::Mailbox;
use crate::sim::Ms;
use crate::sim::broker::Broker;
use crate::sim::consumer::ConsumerClient;
use crate::sim::controller::QuorumController;
use crate::sim::producer::ProducerClient;
use crate::sim::protocol::NodeId;
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;
use tokio::task::JoinHandle;

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
    Controller(Rc<RefCell<QuorumController>>),
    Broker(Rc<RefCell<Broker>>),
    Producer(Rc<RefCell<ProducerClient>>),
    Consumer(Rc<RefCell<ConsumerClient>>),
}

impl NodeCore {
    /// The role this core plays.
    pub fn role(&self) -> Role {
        match self {
            NodeCore::Controller(_) => Role::Controller,
            NodeCore::Broker(_) => Role::Broker,
            NodeCore::Producer(_) => Role::Producer,
            NodeCore::Consumer(_) => Role::Consumer,
        }
    }
}

/// One process: its core, its state and the task running it (none while it is down).
pub(crate) struct Node {
    pub id: NodeId,
    pub core: NodeCore,
    pub state: Cell<ProcessState>,
    /// Set while a running process is paused (orthogonal to `state`: a frozen process still
    /// runs, and a frozen broker can be shutting down).
    pub frozen: Cell<Option<Frozen>>,
    pub task: RefCell<Option<JoinHandle<()>>>,
    /// The running task's mailbox, through which commands poke it (none while it is down).
    pub mailbox: RefCell<Option<Rc<Mailbox>>>,
}

impl Node {
    /// A running node whose task has not been started yet.
    pub fn new(id: NodeId, core: NodeCore) -> Node {
        Node {
            id,
            core,
            state: Cell::new(ProcessState::Running),
            frozen: Cell::new(None),
            task: RefCell::new(None),
            mailbox: RefCell::new(None),
        }
    }

    /// Its role.
    pub fn role(&self) -> Role {
        self.core.role()
    }

    /// Stops its task, if one runs (the process is gone; its core stays for the disk).
    pub fn abort_task(&self) {
        if let Some(task) = self.task.borrow_mut().take() {
            task.abort();
        }
        self.mailbox.borrow_mut().take();
        self.frozen.set(None);
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

    /// Calls `f` on every node, in id order.
    pub fn for_each(&self, mut f: impl FnMut(&Node)) {
        for node in self.nodes.borrow().values() {
            f(node);
        }
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
        assert!(reg.get(NodeId::Controller).is_none());
    }
}
