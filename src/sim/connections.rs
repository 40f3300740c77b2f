//! A client's connection to each broker: Java's `ClusterConnectionStates` with the connect
//! part of `NetworkClient` (`ready`, `initiateConnect`, `processDisconnection`,
//! `handleTimedOutConnections`). Requests go only over a connection that is ready; a node that
//! refused or dropped a connection is not tried again before its reconnect backoff
//! (`reconnect.backoff.ms`, doubling per failed attempt up to `reconnect.backoff.max.ms`, with
//! jitter); a connection attempt with no answer is given up after
//! `socket.connection.setup.timeout.ms` (doubling up to `socket.connection.setup.timeout.max.ms`).
//!
//! Simplification: a connection is ready as soon as the broker accepts it (Java first checks
//! API versions, one more round trip).

use super::backoff::exponential_backoff;
use super::{BrokerId, Ms};
use crate::config::ProducerConfig;
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;

/// Where the connection to one broker stands (Java `ConnectionState`, without the API-version
/// and authentication steps).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ConnectionState {
    /// No connection; a new attempt may start once the reconnect backoff has passed.
    Disconnected,
    /// An attempt is under way (the handshake has not been answered yet).
    Connecting,
    /// Connected: requests may be sent.
    Ready,
}

/// One broker's connection (Java `NodeConnectionState`).
#[derive(Clone, Debug)]
struct NodeConnection {
    state: ConnectionState,
    /// Start of the latest attempt, or the time of the latest disconnect (ms).
    last_attempt: Ms,
    /// Wait after `last_attempt` before the next attempt while disconnected (ms).
    reconnect_backoff: Ms,
    /// Failed attempts and lost connections since the connection was last ready.
    failed_attempts: u32,
    /// How long the current attempt may take (ms).
    setup_timeout: Ms,
    /// Attempts in a row that timed out.
    failed_connects: u32,
}

/// The connection state of one client towards every broker it talked to. Sans-IO: the caller
/// sends the handshake and reports what the network answered.
#[derive(Clone, Debug, Default)]
pub struct ConnectionStates {
    nodes: BTreeMap<BrokerId, NodeConnection>,
}

impl ConnectionStates {
    /// The state of the connection to `broker` (`Disconnected` when never tried).
    pub fn state(&self, broker: BrokerId) -> ConnectionState {
        self.nodes.get(&broker).map_or(ConnectionState::Disconnected, |n| n.state)
    }

    /// Whether requests can go to `broker` now (Java `ClusterConnectionStates.isReady`).
    pub fn is_ready(&self, broker: BrokerId) -> bool {
        self.state(broker) == ConnectionState::Ready
    }

    /// The earliest time (ms) a new attempt to `broker` may start: `Some(0)` for a broker never
    /// tried, `None` while connecting or connected (Java `canConnect` / `connectionDelay`).
    pub fn can_connect_at(&self, broker: BrokerId) -> Option<Ms> {
        match self.nodes.get(&broker) {
            None => Some(0),
            Some(n) if n.state == ConnectionState::Disconnected => Some(n.last_attempt + n.reconnect_backoff),
            Some(_) => None,
        }
    }

    /// When a request to `broker` that may go at `not_before` can go: then if connected, not
    /// before the reconnect backoff ends if not (Java `ClusterConnectionStates.connectionDelay`),
    /// and `None` while an attempt is under way (its answer or setup timeout wakes the client).
    pub fn sendable_at(&self, broker: BrokerId, not_before: Ms) -> Option<Ms> {
        if self.is_ready(broker) {
            return Some(not_before);
        }
        self.can_connect_at(broker).map(|t| t.max(not_before))
    }

    /// Whether `broker` can take a request now (Java `NetworkClient.ready`); if not, and its
    /// reconnect backoff has passed, an attempt starts and its handshake goes out.
    pub fn ready_or_connect(
        &mut self,
        broker: BrokerId,
        now: Ms,
        config: &ProducerConfig,
        rng: &mut ChaCha8Rng,
        out: &mut super::Outbox,
    ) -> bool {
        if self.is_ready(broker) {
            return true;
        }
        if self.can_connect_at(broker).is_some_and(|t| t <= now) {
            self.connecting(broker, now, config, rng);
            out.send(super::protocol::NodeId::Broker(broker), super::protocol::Message::Connect);
        }
        false
    }

    /// Starts an attempt to `broker` at `now` (Java `connecting`); the caller sends the
    /// handshake. The first attempt after a ready connection gets the base setup timeout.
    pub fn connecting(&mut self, broker: BrokerId, now: Ms, config: &ProducerConfig, rng: &mut ChaCha8Rng) {
        let node = self.nodes.entry(broker).or_insert_with(|| NodeConnection {
            state: ConnectionState::Disconnected,
            last_attempt: now,
            reconnect_backoff: 0,
            failed_attempts: 0,
            setup_timeout: 0,
            failed_connects: 0,
        });
        if node.setup_timeout == 0 {
            node.setup_timeout = setup_timeout(config, rng, node.failed_connects);
        }
        node.state = ConnectionState::Connecting;
        node.last_attempt = now;
    }

    /// The handshake with `broker` succeeded: the connection is ready and the backoffs start
    /// over (Java `ready`). Ignored unless an attempt was under way.
    pub fn ready(&mut self, broker: BrokerId) {
        if let Some(n) = self.nodes.get_mut(&broker)
            && n.state == ConnectionState::Connecting
        {
            n.state = ConnectionState::Ready;
            n.failed_attempts = 0;
            n.failed_connects = 0;
            n.setup_timeout = 0;
        }
    }

    /// The connection to `broker` was refused, lost or given up at `now`: the node waits out a
    /// reconnect backoff that doubles with every failure since it was last ready (Java
    /// `disconnected`, `updateReconnectBackoff`). `timed_out` is a connection setup timeout,
    /// which also doubles the next attempt's setup timeout. Returns whether the node was
    /// connecting or connected (a second report of the same loss returns `false`).
    pub fn disconnected(
        &mut self,
        broker: BrokerId,
        now: Ms,
        timed_out: bool,
        config: &ProducerConfig,
        rng: &mut ChaCha8Rng,
    ) -> bool {
        let Some(n) = self.nodes.get_mut(&broker) else { return false };
        if n.state == ConnectionState::Disconnected {
            return false;
        }
        if n.state == ConnectionState::Connecting && timed_out {
            n.failed_connects += 1;
            n.setup_timeout = setup_timeout(config, rng, n.failed_connects);
        } else {
            n.failed_connects = 0;
            n.setup_timeout = 0;
        }
        n.reconnect_backoff = exponential_backoff(
            rng,
            config.reconnect_backoff_ms,
            config.reconnect_backoff_max_ms,
            n.failed_attempts,
        );
        n.failed_attempts += 1;
        n.last_attempt = now;
        n.state = ConnectionState::Disconnected;
        true
    }

    /// Brokers whose connection attempt has taken longer than its setup timeout at `now`
    /// (Java `nodesWithConnectionSetupTimeout`).
    pub fn timed_out_attempts(&self, now: Ms) -> Vec<BrokerId> {
        self.nodes
            .iter()
            .filter(|(_, n)| {
                n.state == ConnectionState::Connecting && n.last_attempt + n.setup_timeout <= now
            })
            .map(|(&b, _)| b)
            .collect()
    }

    /// When the earliest connection attempt under way times out (ms).
    pub fn next_setup_timeout(&self) -> Option<Ms> {
        self.nodes
            .values()
            .filter(|n| n.state == ConnectionState::Connecting)
            .map(|n| n.last_attempt + n.setup_timeout)
            .min()
    }

    /// Brokers whose connection failed or was lost and is not ready again, in id order.
    pub fn unreachable(&self) -> Vec<BrokerId> {
        self.nodes
            .iter()
            .filter(|(_, n)| n.state != ConnectionState::Ready && n.failed_attempts > 0)
            .map(|(&b, _)| b)
            .collect()
    }
}

/// Setup timeout after `failures` timed-out attempts (Java `connectionSetupTimeout.backoff`).
fn setup_timeout(config: &ProducerConfig, rng: &mut ChaCha8Rng, failures: u32) -> Ms {
    exponential_backoff(
        rng,
        config.socket_connection_setup_timeout_ms,
        config.socket_connection_setup_timeout_max_ms,
        failures,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// Connects to broker 1 at `now` and has it refused 2 ms later; returns the backoff.
    fn refused(c: &mut ConnectionStates, now: Ms, rng: &mut ChaCha8Rng) -> Ms {
        let config = ProducerConfig::default();
        c.connecting(1, now, &config, rng);
        assert_eq!(c.can_connect_at(1), None, "one attempt at a time");
        assert!(c.disconnected(1, now + 2, false, &config, rng));
        c.can_connect_at(1).unwrap() - (now + 2)
    }

    #[test]
    fn backoff_grows_with_failures_and_starts_over_once_connected() {
        let config = ProducerConfig::default();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut c = ConnectionStates::default();
        assert_eq!(c.can_connect_at(1), Some(0), "never tried: connect at once");
        let first = refused(&mut c, 0, &mut rng);
        let second = refused(&mut c, 100, &mut rng);
        assert!((40..=60).contains(&first) && (80..=120).contains(&second), "{first} {second}");
        assert_eq!(c.unreachable(), vec![1]);
        c.connecting(1, 300, &config, &mut rng);
        c.ready(1);
        assert!(c.is_ready(1) && c.unreachable().is_empty());
        assert!(!c.disconnected(2, 400, false, &config, &mut rng), "an unknown broker");
        let after_ready = refused(&mut c, 500, &mut rng);
        assert!((40..=60).contains(&after_ready), "{after_ready}");
        // A repeated report of the same loss changes nothing.
        assert!(!c.disconnected(1, 600, false, &config, &mut rng));
    }
}
