//! The simulated network: one ordered link for every pair of nodes, each with its latency,
//! jitter and bandwidth ([`super::link`]), delivery through the agenda, refused connections when
//! a process is down, and the link faults users make (`cut`, `hold`, `delay`, `loss`).
//!
//! Clients open connections explicitly ([`Message::Connect`]); the network answers the
//! handshake itself, as the peer's operating system would: accepted while the peer's process
//! runs, refused while it is down, and also while a started broker does not accept connections
//! yet (before its first unfencing, Kafka's `BrokerServer.startup`): then only its own traffic
//! (the controller's messages, answers to its requests) reaches it. When a process dies, every
//! connection to it is reset.
//!
//! A message that reaches a broker then waits for the broker's threads to work through it
//! ([`crate::sim::handling::RequestQueues`], kept by each broker node: a request handler
//! thread for a produce or fetch request, the replica fetcher for a fetch response), and only
//! then does the broker's core read it.
//!
//! Messages in flight are entries of the world's agenda ([`super::agenda`]), keyed by (arrival
//! µs, scheduling order): the message moves into the entry and out to the node's step, with no
//! allocation of its own. For a broker, "arrival"
//! is when its threads have worked through the message, computed when it is sent, so the
//! processing time costs no extra wake-up: the checks made on arrival (a cut link, a process
//! that died or does not listen) are made at that later instant (at most a handling time late).

use super::agenda::{Agenda, Due};
use super::link::{Link, LinkFaults};
use crate::config::NetConfig;
use crate::sim::protocol::{Message, NodeId};
use crate::sim::{BrokerId, SimTime};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

/// What a node's inbox receives: the sender and the message.
pub type Delivery = (NodeId, Message);

/// What becomes of a message that reached the end of its link ([`Network::arrive`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Arrival {
    /// The receiver's process reads it.
    Deliver,
    /// The link was cut on the way and the message is the controller's metadata: the link
    /// keeps it until it heals ([`Network::keep`]).
    Keep,
    /// Dropped, refused (the sender is told) or answered by the network itself.
    Gone,
}

#[derive(Clone, Default)]
struct NetState {
    seed: u64,
    /// The nodes whose process runs (a message to any other is refused or lost).
    up: BTreeSet<NodeId>,
    /// The cluster-wide lab properties new links start with.
    defaults: NetConfig,
    /// Links in use, created on first use.
    links: BTreeMap<(NodeId, NodeId), Link>,
    /// Messages waiting on a held (or, for metadata, cut) link, with their send sequence.
    held: BTreeMap<(NodeId, NodeId), Vec<(u64, Message)>>,
    /// Requests a node received and has not answered: (requester, correlation id).
    open: BTreeMap<NodeId, BTreeSet<(NodeId, u64)>>,
    /// Established connections: (client, server).
    connections: BTreeSet<(NodeId, NodeId)>,
    /// Running nodes that do not accept inbound connections yet (a starting broker before it
    /// is first unfenced, [`crate::sim::broker::Broker::accepts_connections`]).
    not_listening: BTreeSet<NodeId>,
}

impl NetState {
    fn link(&mut self, from: NodeId, to: NodeId) -> &mut Link {
        let (seed, defaults) = (self.seed, self.defaults);
        self.links.entry((from, to)).or_insert_with(|| Link::new(seed, from, to, defaults))
    }

    fn faults(&self, from: NodeId, to: NodeId) -> LinkFaults {
        self.links.get(&(from, to)).map(|l| l.faults).unwrap_or_default()
    }

    /// Whether `msg` reaches `to`'s process: it runs, and when `msg` comes in over an inbound
    /// connection (a handshake, a fetch or produce request) it accepts connections.
    fn reaches(&self, to: NodeId, msg: &Message) -> bool {
        self.up.contains(&to) && !(self.not_listening.contains(&to) && msg.is_inbound())
    }

    /// Puts a message on its way (once its broker's threads have finished it,
    /// [`Post::answered_at`]): an [`Due::Arrive`] entry of the agenda, at the instant the
    /// receiving broker's threads have worked through it ([`Post::handled_at`]).
    fn enqueue(&mut self, post: &mut dyn Post, now: SimTime, from: NodeId, to: NodeId, msg: Message) {
        let link = self.link(from, to);
        Self::enqueue_on(link, post, now, from, to, msg);
    }

    /// [`NetState::enqueue`] on the link `from → to`, already looked up.
    fn enqueue_on(
        link: &mut Link,
        post: &mut dyn Post,
        now: SimTime,
        from: NodeId,
        to: NodeId,
        msg: Message,
    ) {
        let leaves = match from {
            NodeId::Broker(b) => post.answered_at(now, b, to, &msg),
            _ => now,
        };
        let arrives = link.arrival(leaves, msg.size_bytes());
        let at = match to {
            NodeId::Broker(b) => post.handled_at(arrives, b, from, &msg),
            _ => arrives,
        };
        post.schedule(at, Due::Arrive { from, to, msg });
    }

    /// Keeps a message on the link until it runs again, in send order (`seq`).
    fn keep(&mut self, seq: u64, from: NodeId, to: NodeId, msg: Message) {
        self.held.entry((from, to)).or_default().push((seq, msg));
    }
}

/// Where the network puts what it sends: the agenda, with the brokers' request-processing
/// threads in between ([`crate::sim::handling::RequestQueues`], which live with each broker
/// node: the world answers for them).
pub(crate) trait Post {
    /// Schedules an entry on the agenda.
    fn schedule(&mut self, at: SimTime, what: Due);
    /// The agenda's next sequence number (for what waits on a held link, in send order).
    fn take_seq(&mut self) -> u64;
    /// When a message broker `broker` sends to `to` at `now` leaves its threads.
    fn answered_at(&self, now: SimTime, broker: BrokerId, to: NodeId, msg: &Message) -> SimTime;
    /// When broker `broker`'s threads have worked through `msg` from `from`, which reached it
    /// at `arrival`.
    fn handled_at(&mut self, arrival: SimTime, broker: BrokerId, from: NodeId, msg: &Message) -> SimTime;
}

/// An agenda alone: brokers without processing times.
impl Post for Agenda<Due> {
    fn schedule(&mut self, at: SimTime, what: Due) {
        Agenda::schedule(self, at, what);
    }
    fn take_seq(&mut self) -> u64 {
        Agenda::take_seq(self)
    }
    fn answered_at(&self, now: SimTime, _: BrokerId, _: NodeId, _: &Message) -> SimTime {
        now
    }
    fn handled_at(&mut self, arrival: SimTime, _: BrokerId, _: NodeId, _: &Message) -> SimTime {
        arrival
    }
}

/// What a link with `faults` does with `msg` from `from`: `None` delivers it, `Some(true)`
/// keeps it until the link runs again, `Some(false)` drops it.
///
/// KRaft metadata is a log (`__cluster_metadata`) that every broker fetches from the
/// controller from its own last offset (KIP-500, KIP-631), so a cut only delays it: when the
/// link heals the broker reads every record it missed. isrlab pushes those records, so a cut
/// link keeps the controller's metadata until it heals instead of dropping it; everything
/// else on a cut link is lost, as on a broken TCP connection.
fn fate(faults: LinkFaults, from: NodeId, msg: &Message) -> Option<bool> {
    let metadata = matches!(from, NodeId::Controller(_)) && matches!(msg, Message::Metadata(_));
    if faults.cut {
        Some(metadata)
    } else if faults.held {
        Some(true)
    } else {
        None
    }
}

/// The network of one simulation (single-threaded). Its messages in flight are entries of
/// the world's [`Agenda`]; it keeps the links, their faults, what waits on a held link, the
/// open requests and connections, and which processes run and listen.
#[derive(Clone, Default)]
pub struct Network {
    state: RefCell<NetState>,
}

impl Network {
    /// An empty network whose links draw jitter from streams derived from `seed` and start
    /// with the lab properties `defaults`.
    pub fn new(seed: u64, defaults: NetConfig) -> Self {
        let net = Self::default();
        {
            let mut s = net.state.borrow_mut();
            s.seed = seed;
            s.defaults = defaults;
        }
        net
    }

    /// Marks a node's process up (it runs: messages reach it) or down (requests to it are
    /// refused).
    pub(crate) fn set_up(&self, node: NodeId, up: bool) {
        let mut s = self.state.borrow_mut();
        if up {
            s.up.insert(node);
        } else {
            s.up.remove(&node);
        }
    }

    /// Whether running `node` accepts inbound connections; while it does not, handshakes and
    /// requests to it are refused as while it is down, and messages on its own connections
    /// (answers to its requests, the controller's metadata) still reach it.
    pub(crate) fn set_listening(&self, node: NodeId, listening: bool) {
        let mut s = self.state.borrow_mut();
        if listening {
            s.not_listening.remove(&node);
        } else {
            s.not_listening.insert(node);
        }
    }

    /// The cluster-wide lab properties.
    pub fn defaults(&self) -> NetConfig {
        self.state.borrow().defaults
    }

    /// Sets a `net.*` property on every link, now and to come (a per-link value set before is
    /// replaced: the later setting wins). Errors: as [`NetConfig::set`]; nothing changes then.
    pub fn set_property(&self, key: &str, value: &str) -> Result<(), crate::config::ConfigError> {
        let mut s = self.state.borrow_mut();
        s.defaults.set(key, value)?;
        for link in s.links.values_mut() {
            link.config.set(key, value)?;
        }
        Ok(())
    }

    /// Sets a `net.*` property on the link `from → to` only. Errors: as [`NetConfig::set`].
    pub fn set_link_property(
        &self,
        from: NodeId,
        to: NodeId,
        key: &str,
        value: &str,
    ) -> Result<(), crate::config::ConfigError> {
        self.state.borrow_mut().link(from, to).config.set(key, value)
    }

    /// The lab properties of the link `from → to`.
    pub fn link_config(&self, from: NodeId, to: NodeId) -> NetConfig {
        let s = self.state.borrow();
        s.links.get(&(from, to)).map_or(s.defaults, |l| l.config)
    }

    /// The faults on the link `from → to`.
    pub fn faults(&self, from: NodeId, to: NodeId) -> LinkFaults {
        self.state.borrow().faults(from, to)
    }

    /// Every link with a fault, in (from, to) order.
    pub fn faulty_links(&self) -> Vec<((NodeId, NodeId), LinkFaults)> {
        let s = self.state.borrow();
        s.links.iter().filter(|(_, l)| !l.faults.is_clear()).map(|(k, l)| (*k, l.faults)).collect()
    }

    /// Changes the faults of the link `from → to` at `now`. Once the link is neither held nor
    /// cut, what waited on it goes on, in send order, as if sent at `now`.
    pub(crate) fn set_faults(
        &self,
        post: &mut dyn Post,
        now: SimTime,
        from: NodeId,
        to: NodeId,
        faults: LinkFaults,
    ) {
        let mut s = self.state.borrow_mut();
        s.link(from, to).faults = faults;
        if !faults.held && !faults.cut {
            let mut waiting = s.held.remove(&(from, to)).unwrap_or_default();
            waiting.sort_unstable_by_key(|(seq, _)| *seq);
            for (_, msg) in waiting {
                s.enqueue(post, now, from, to, msg);
            }
        }
    }

    /// Queues a message on the link `from → to` at `now` (see [`Link::arrival`]). A cut link
    /// drops it (but keeps the controller's metadata, see [`fate`]); a held link keeps it until
    /// released.
    pub(crate) fn send(&self, post: &mut dyn Post, now: SimTime, from: NodeId, to: NodeId, msg: Message) {
        tracing::trace!(t = %now, ?from, ?to, api = msg.api_name(), "send");
        let mut s = self.state.borrow_mut();
        if let Some(c) = msg.answers()
            && let Some(open) = s.open.get_mut(&from)
        {
            open.remove(&(to, c));
        }
        // One lookup for the faults and the send (a link is created on first use: one not
        // created yet has no faults).
        let link = s.link(from, to);
        match fate(link.faults, from, &msg) {
            None => NetState::enqueue_on(link, post, now, from, to, msg),
            Some(true) => {
                let seq = post.take_seq();
                s.keep(seq, from, to, msg);
            }
            Some(false) => {
                tracing::debug!(t = %now, ?from, ?to, api = msg.api_name(), "dropped: the link is cut");
            }
        }
    }

    /// A process died: the OS closes its sockets, so every peer waiting on a request it had
    /// received learns at once (connection reset), as with a real `kill -9`, and so does every
    /// client connected to it (a [`Message::Disconnected`] with correlation id 0).
    pub(crate) fn reset_connections(&self, post: &mut dyn Post, now: SimTime, node: NodeId) {
        let (open, clients) = {
            let mut s = self.state.borrow_mut();
            let open = s.open.remove(&node).unwrap_or_default();
            let clients: Vec<NodeId> =
                s.connections.iter().filter(|(_, server)| *server == node).map(|(c, _)| *c).collect();
            s.connections.retain(|(_, server)| *server != node);
            (open, clients)
        };
        for (peer, correlation_id) in open {
            self.send(post, now, node, peer, Message::Disconnected { peer: node, correlation_id });
        }
        for client in clients {
            self.send(post, now, node, client, Message::Disconnected { peer: node, correlation_id: 0 });
        }
    }

    /// Answers a connection handshake from `client` to `server` at `now`: accepted (and
    /// remembered) while the server's process runs and listens, refused otherwise.
    fn answer_connect(&self, post: &mut dyn Post, now: SimTime, client: NodeId, server: NodeId) {
        let reply = {
            let mut s = self.state.borrow_mut();
            if s.reaches(server, &Message::Connect) {
                s.connections.insert((client, server));
                Message::Connected { peer: server }
            } else {
                Message::Disconnected { peer: server, correlation_id: 0 }
            }
        };
        self.send(post, now, server, client, reply);
    }

    /// A message from `from` reaches the end of its link to `to` at `now` (its agenda entry
    /// came): the network's checks, and what becomes of the message. A message on a link cut
    /// while it travelled is dropped (the controller's metadata is kept for the heal:
    /// [`Arrival::Keep`]); a request to a node that is down, or that does not listen yet, is
    /// answered with [`Message::Disconnected`] (connection refused); a handshake is answered
    /// by the network itself. The message is only read here, so it moves once, from its agenda
    /// entry to the reader (or to the held link).
    pub(crate) fn arrive(
        &self,
        post: &mut dyn Post,
        now: SimTime,
        from: NodeId,
        to: NodeId,
        msg: &Message,
    ) -> Arrival {
        let mut s = self.state.borrow_mut();
        let faults = s.faults(from, to);
        if faults.cut {
            if fate(faults, from, msg) == Some(true) {
                return Arrival::Keep;
            }
            tracing::debug!(t = %now, ?from, ?to, api = msg.api_name(), "dropped: the link was cut");
            return Arrival::Gone;
        }
        if matches!(msg, Message::Connect) {
            drop(s);
            self.answer_connect(post, now, from, to);
            return Arrival::Gone;
        }
        if s.reaches(to, msg) {
            if let Some(c) = msg.correlation_id() {
                s.open.entry(to).or_default().insert((from, c));
            }
            return Arrival::Deliver;
        }
        let bounce = msg.correlation_id().map(|c| Message::Disconnected { peer: to, correlation_id: c });
        drop(s);
        if let Some(b) = bounce {
            self.send(post, now, to, from, b);
        }
        Arrival::Gone
    }

    /// Keeps a message that arrived on a cut link until the link heals ([`Arrival::Keep`]),
    /// after what the link already keeps.
    pub(crate) fn keep(&self, post: &mut dyn Post, from: NodeId, to: NodeId, msg: Message) {
        let seq = post.take_seq();
        self.state.borrow_mut().keep(seq, from, to, msg);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::cluster::agenda::{Agenda, Due};

    /// A network with its agenda, delivering into per-node inboxes (what the world's node
    /// step would read).
    struct Harness {
        net: Network,
        agenda: Agenda<Due>,
        inboxes: BTreeMap<NodeId, Vec<Delivery>>,
    }

    impl Harness {
        fn new() -> Self {
            Harness {
                net: Network::new(1, NetConfig::default()),
                agenda: Agenda::default(),
                inboxes: BTreeMap::new(),
            }
        }
        fn up(&mut self, node: NodeId, up: bool) {
            self.net.set_up(node, up);
        }
        fn send(&mut self, ms: u64, from: NodeId, to: NodeId, msg: Message) {
            self.net.send(&mut self.agenda, SimTime::from_ms(ms), from, to, msg);
        }
        fn set_faults(&mut self, ms: u64, from: NodeId, to: NodeId, faults: LinkFaults) {
            self.net.set_faults(&mut self.agenda, SimTime::from_ms(ms), from, to, faults);
        }
        fn reset(&mut self, ms: u64, node: NodeId) {
            self.net.reset_connections(&mut self.agenda, SimTime::from_ms(ms), node);
        }
        fn deliver_due(&mut self, ms: u64) {
            while let Some(e) = self.agenda.pop_due(SimTime::from_ms(ms)) {
                let Due::Arrive { from, to, msg } = e.what else { continue };
                match self.net.arrive(&mut self.agenda, e.at, from, to, &msg) {
                    Arrival::Deliver => self.inboxes.entry(to).or_default().push((from, msg)),
                    Arrival::Keep => self.net.keep(&mut self.agenda, from, to, msg),
                    Arrival::Gone => {}
                }
            }
        }
        fn drain(&mut self, node: NodeId) -> Vec<Delivery> {
            self.inboxes.remove(&node).unwrap_or_default()
        }
    }

    #[test]
    fn a_handshake_is_accepted_while_the_server_runs_and_refused_while_it_is_down() {
        let mut h = Harness::new();
        let (client, server) = (NodeId::Producer(0), NodeId::Broker(1));
        h.up(client, true);
        h.send(0, client, server, Message::Connect);
        h.deliver_due(1);
        h.deliver_due(2);
        assert_eq!(
            h.drain(client),
            vec![(server, Message::Disconnected { peer: server, correlation_id: 0 })]
        );

        h.up(server, true);
        h.send(10, client, server, Message::Connect);
        h.deliver_due(11);
        h.deliver_due(12);
        assert_eq!(h.drain(client), vec![(server, Message::Connected { peer: server })]);

        // The server's process dies: its connected client hears at once.
        h.up(server, false);
        h.reset(20, server);
        h.deliver_due(21);
        assert_eq!(
            h.drain(client),
            vec![(server, Message::Disconnected { peer: server, correlation_id: 0 })]
        );
        // Only once: the connection is gone.
        h.reset(30, server);
        h.deliver_due(31);
        assert!(h.drain(client).is_empty());
    }

    /// A running broker that does not listen yet (`BrokerServer.startup` before
    /// `socketServer.enableRequestProcessing`) refuses handshakes and fetch requests as if it
    /// were down, but the controller's metadata and the answers to its own fetches reach it.
    #[test]
    fn a_broker_that_does_not_listen_refuses_inbound_but_gets_its_own_traffic() {
        use crate::sim::fetch_session::FetchMetadata;
        use crate::sim::protocol::{FetchRequest, FetchResponse};
        let mut h = Harness::new();
        let (client, follower, server) = (NodeId::Producer(0), NodeId::Broker(2), NodeId::Broker(1));
        h.up(client, true);
        h.up(follower, true);
        h.up(server, true);
        h.net.set_listening(server, false);
        let fetch = FetchRequest {
            correlation_id: 9,
            replica: 2,
            broker_epoch: 1,
            max_wait_ms: 500,
            min_bytes: 1,
            partition_max_bytes: 1,
            max_bytes: 1,
            session: FetchMetadata::INITIAL,
            partitions: Vec::new(),
            forgotten: Vec::new(),
        };
        h.send(0, client, server, Message::Connect);
        h.send(0, follower, server, Message::Fetch(fetch.clone()));
        let metadata = Message::Metadata(Default::default());
        h.send(0, NodeId::Controller(3000), server, metadata.clone());
        let answer = Message::FetchResponse(FetchResponse {
            correlation_id: 3,
            leader: 2,
            error: None,
            session_id: 0,
            partitions: Vec::new(),
        });
        h.send(0, follower, server, answer.clone());
        h.deliver_due(5);
        h.deliver_due(10);
        assert_eq!(
            h.drain(client),
            vec![(server, Message::Disconnected { peer: server, correlation_id: 0 })]
        );
        assert_eq!(
            h.drain(follower),
            vec![(server, Message::Disconnected { peer: server, correlation_id: 9 })]
        );
        assert_eq!(h.drain(server), vec![(NodeId::Controller(3000), metadata), (follower, answer)]);

        // Unfenced: it listens.
        h.net.set_listening(server, true);
        h.send(20, client, server, Message::Connect);
        h.send(20, follower, server, Message::Fetch(fetch.clone()));
        h.deliver_due(25);
        h.deliver_due(30);
        assert_eq!(h.drain(client), vec![(server, Message::Connected { peer: server })]);
        assert_eq!(h.drain(server), vec![(follower, Message::Fetch(fetch))]);
    }

    #[test]
    fn a_cut_drops_requests_but_keeps_the_metadata_log_for_after_the_heal() {
        let mut h = Harness::new();
        let (broker, controller) = (NodeId::Broker(1), NodeId::Controller(3000));
        h.up(broker, true);
        h.up(controller, true);
        let cut = LinkFaults { cut: true, ..LinkFaults::default() };
        h.set_faults(0, controller, broker, cut);
        h.set_faults(0, broker, controller, cut);
        let metadata = Message::Metadata(Default::default());
        h.send(1, controller, broker, metadata.clone());
        h.send(
            1,
            broker,
            controller,
            Message::Heartbeat { broker: 1, broker_epoch: 1, want_shutdown: false },
        );
        h.deliver_due(100);
        assert!(h.drain(broker).is_empty() && h.drain(controller).is_empty(), "nothing crosses a cut");
        h.set_faults(200, controller, broker, LinkFaults::default());
        h.set_faults(200, broker, controller, LinkFaults::default());
        h.deliver_due(201);
        assert_eq!(h.drain(broker), vec![(controller, metadata)], "the broker reads the metadata it missed");
        assert!(h.drain(controller).is_empty(), "the heartbeat is gone");
    }

    #[test]
    fn a_held_link_delivers_in_order_on_release_and_the_other_direction_flows() {
        let mut h = Harness::new();
        let (a, b) = (NodeId::Broker(1), NodeId::Broker(2));
        h.up(a, true);
        h.up(b, true);
        h.set_faults(0, a, b, LinkFaults { held: true, ..LinkFaults::default() });
        for peer in [7, 8] {
            h.send(1, a, b, Message::Connected { peer: NodeId::Broker(peer) });
        }
        h.send(1, b, a, Message::Connected { peer: b });
        h.deliver_due(50);
        assert!(h.drain(b).is_empty());
        assert_eq!(h.drain(a).len(), 1, "B's messages to A still arrive");
        h.set_faults(60, a, b, LinkFaults::default());
        assert!(h.agenda.next_at().is_some_and(|t| t >= SimTime::from_micros(60_250)), "sent at the release");
        h.deliver_due(61);
        let got: Vec<NodeId> = h
            .drain(b)
            .into_iter()
            .map(|(_, m)| match m {
                Message::Connected { peer } => peer,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(got, [NodeId::Broker(7), NodeId::Broker(8)], "in the order they were sent");
    }
}
