//! The world's side of real clients: each TCP connection the wire adapter accepts is a
//! [`NodeId::Client`] node whose requests travel the simulated network to a broker, and whose
//! answers wait in its core until the adapter collects them ([`World::wire_take`]).

use super::node::{NodeCore, Role};
use super::world::World;
use crate::sim::protocol::{Message, NodeId};
use crate::sim::wire_client::WireClient;
use crate::sim::{BrokerId, Outbox};
use std::cell::RefCell;
use std::rc::Rc;

impl World {
    /// Opens connection `client` to `broker`: the node is created and the handshake goes out
    /// (the network answers `Connected`, or `Disconnected` while the broker is down).
    pub fn wire_open(&self, client: u32, broker: BrokerId) {
        let id = NodeId::Client(client);
        if self.node(id).is_none() {
            self.add_node(id, NodeCore::Client(Rc::new(RefCell::new(WireClient::default()))));
        }
        self.wire_send(client, broker, Message::Connect);
    }

    /// Sends `msg` from connection `client` to `broker` at the current instant.
    pub fn wire_send(&self, client: u32, broker: BrokerId, msg: Message) {
        let id = NodeId::Client(client);
        let Some(node) = self.node(id) else { return };
        if let NodeCore::Client(core) = &node.core {
            core.borrow_mut().on_send(&msg);
        }
        let mut out = Outbox::default();
        out.send(NodeId::Broker(broker), msg);
        self.dispatch(id, &mut out);
    }

    /// Closes connection `client`: its process ends, what the broker still answers is lost.
    pub fn wire_close(&self, client: u32) {
        if let Some(node) = self.node(NodeId::Client(client)) {
            self.kill_process(&node, self.now());
        }
    }

    /// Whether broker `broker`'s process runs and accepts connections: while it does not,
    /// its real listener is closed, so clients' connections are refused as by a dead host.
    pub fn wire_listening(&self, broker: BrokerId) -> bool {
        self.node(NodeId::Broker(broker))
            .is_some_and(|n| n.state.get().is_running() && n.rt.borrow().listening)
    }

    /// Every answer a connection received since the last call, by connection, oldest first.
    pub fn wire_take(&self) -> Vec<(u32, NodeId, Message)> {
        let mut taken = Vec::new();
        for node in self.nodes.with_role(Role::Client) {
            let (NodeId::Client(c), NodeCore::Client(core)) = (node.id, &node.core) else { continue };
            taken.extend(core.borrow_mut().take_answers().into_iter().map(|(from, m)| (c, from, m)));
        }
        taken
    }
}
