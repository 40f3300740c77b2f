//! The simulated network: ordered links with a fixed latency, delivery by a tokio task on
//! the virtual clock, refused connections when a process is down, and user-made cuts.
//!
//! Clients open connections explicitly ([`Message::Connect`]); the network answers the
//! handshake itself, as the peer's operating system would: accepted while the peer's process
//! runs, refused while it is down. When a process dies, every connection to it is reset.

use crate::sim::Ms;
use crate::sim::protocol::{Message, NodeId};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use tokio::sync::Notify;
use tokio::sync::mpsc::UnboundedSender;

/// One-way delay of every link (ms). Kafka inside one data centre sees well under a
/// millisecond; 1 ms keeps every hop visible in event times.
pub const LINK_LATENCY_MS: Ms = 1;

/// What a node's inbox receives: the sender and the message.
pub type Delivery = (NodeId, Message);

#[derive(Default)]
struct NetState {
    queue: BTreeMap<(Ms, u64), (NodeId, NodeId, Message)>,
    seq: u64,
    routes: BTreeMap<NodeId, UnboundedSender<Delivery>>,
    link_last: BTreeMap<(NodeId, NodeId), Ms>,
    cuts: BTreeSet<(NodeId, NodeId)>,
    /// Requests a node received and has not answered: (requester, correlation id).
    open: BTreeMap<NodeId, BTreeSet<(NodeId, u64)>>,
    /// Established connections: (client, server).
    connections: BTreeSet<(NodeId, NodeId)>,
}

/// The network shared by every task of one simulation (single-threaded).
#[derive(Default)]
pub struct Network {
    state: RefCell<NetState>,
    wake: Notify,
}

impl Network {
    /// An empty network.
    pub fn new() -> Self {
        Self::default()
    }

    /// Connects a running node's inbox, or disconnects it (`None`: the process is down, and
    /// requests to it are refused).
    pub fn set_route(&self, node: NodeId, inbox: Option<UnboundedSender<Delivery>>) {
        let mut s = self.state.borrow_mut();
        match inbox {
            Some(tx) => s.routes.insert(node, tx),
            None => s.routes.remove(&node),
        };
    }

    /// Cuts (or heals) the one-way link `from → to`: messages on it are silently dropped.
    pub fn set_cut(&self, from: NodeId, to: NodeId, cut: bool) {
        let mut s = self.state.borrow_mut();
        if cut {
            s.cuts.insert((from, to));
        } else {
            s.cuts.remove(&(from, to));
        }
    }

    /// Queues a message for delivery after the link latency, after anything already queued on
    /// the same link (links are ordered, like TCP).
    pub fn send(&self, now: Ms, from: NodeId, to: NodeId, msg: Message) {
        tracing::trace!(t = now, ?from, ?to, api = msg.api_name(), "send");
        let mut s = self.state.borrow_mut();
        if let Some(c) = msg.answers()
            && let Some(open) = s.open.get_mut(&from)
        {
            open.remove(&(to, c));
        }
        if s.cuts.contains(&(from, to)) {
            tracing::debug!(t = now, ?from, ?to, api = msg.api_name(), "dropped: the link is cut");
            return;
        }
        let last = s.link_last.get(&(from, to)).copied().unwrap_or(0);
        let at = (now + LINK_LATENCY_MS).max(last);
        s.link_last.insert((from, to), at);
        let seq = s.seq;
        s.seq += 1;
        s.queue.insert((at, seq), (from, to, msg));
        drop(s);
        self.wake.notify_one();
    }

    /// A process died: the OS closes its sockets, so every peer waiting on a request it had
    /// received learns at once (connection reset), as with a real `kill -9`, and so does every
    /// client connected to it (a [`Message::Disconnected`] with correlation id 0).
    pub fn reset_connections(&self, now: Ms, node: NodeId) {
        let (open, clients) = {
            let mut s = self.state.borrow_mut();
            let open = s.open.remove(&node).unwrap_or_default();
            let clients: Vec<NodeId> =
                s.connections.iter().filter(|(_, server)| *server == node).map(|(c, _)| *c).collect();
            s.connections.retain(|(_, server)| *server != node);
            (open, clients)
        };
        for (peer, correlation_id) in open {
            self.send(now, node, peer, Message::Disconnected { peer: node, correlation_id });
        }
        for client in clients {
            self.send(now, node, client, Message::Disconnected { peer: node, correlation_id: 0 });
        }
    }

    /// Answers a connection handshake from `client` to `server` at `now`: accepted (and
    /// remembered) while the server's process runs, refused while it is down.
    fn answer_connect(&self, now: Ms, client: NodeId, server: NodeId) {
        let reply = {
            let mut s = self.state.borrow_mut();
            if s.routes.contains_key(&server) {
                s.connections.insert((client, server));
                Message::Connected { peer: server }
            } else {
                Message::Disconnected { peer: server, correlation_id: 0 }
            }
        };
        self.send(now, server, client, reply);
    }

    /// When the next message is due (ms).
    pub fn next_due(&self) -> Option<Ms> {
        self.state.borrow().queue.keys().next().map(|k| k.0)
    }

    /// Delivers every message due at or before `now`. A request to a node that is down is
    /// answered with [`Message::Disconnected`] (connection refused); a handshake is answered
    /// by the network itself.
    pub fn deliver_due(&self, now: Ms) {
        loop {
            let mut s = self.state.borrow_mut();
            let Some(entry) = s.queue.first_entry() else { return };
            if entry.key().0 > now {
                return;
            }
            let (from, to, msg) = entry.remove();
            if msg == Message::Connect {
                drop(s);
                self.answer_connect(now, from, to);
                continue;
            }
            match s.routes.get(&to) {
                Some(tx) => {
                    let request = msg.correlation_id();
                    let _ = tx.send((from, msg));
                    if let Some(c) = request {
                        s.open.entry(to).or_default().insert((from, c));
                    }
                }
                None => {
                    let bounce =
                        msg.correlation_id().map(|c| Message::Disconnected { peer: to, correlation_id: c });
                    drop(s);
                    if let Some(b) = bounce {
                        self.send(now, to, from, b);
                    }
                }
            }
        }
    }

    /// Waits until a new message is queued.
    pub async fn changed(&self) {
        self.wake.notified().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::sync::mpsc;

    fn drain(rx: &mut mpsc::UnboundedReceiver<Delivery>) -> Vec<Delivery> {
        std::iter::from_fn(|| rx.try_recv().ok()).collect()
    }

    #[test]
    fn a_handshake_is_accepted_while_the_server_runs_and_refused_while_it_is_down() {
        let net = Network::new();
        let (client, server) = (NodeId::Producer(0), NodeId::Broker(1));
        let (tx, mut rx) = mpsc::unbounded_channel();
        net.set_route(client, Some(tx));
        net.send(0, client, server, Message::Connect);
        net.deliver_due(1);
        net.deliver_due(2);
        assert_eq!(drain(&mut rx), vec![(server, Message::Disconnected { peer: server, correlation_id: 0 })]);

        let (broker_tx, _broker_rx) = mpsc::unbounded_channel();
        net.set_route(server, Some(broker_tx));
        net.send(10, client, server, Message::Connect);
        net.deliver_due(11);
        net.deliver_due(12);
        assert_eq!(drain(&mut rx), vec![(server, Message::Connected { peer: server })]);

        // The server's process dies: its connected client hears at once.
        net.set_route(server, None);
        net.reset_connections(20, server);
        net.deliver_due(21);
        assert_eq!(drain(&mut rx), vec![(server, Message::Disconnected { peer: server, correlation_id: 0 })]);
        // Only once: the connection is gone.
        net.reset_connections(30, server);
        net.deliver_due(31);
        assert!(drain(&mut rx).is_empty());
    }
}
