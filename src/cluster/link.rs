//! One ordered link between two nodes (`A → B`): its lab properties (latency, jitter,
//! bandwidth), its own seeded random stream, the faults a user put on it, and the arithmetic
//! of when a message sent on it arrives.
//!
//! A message goes onto the wire once the link has finished sending the messages before it
//! (bandwidth: `size × 8 / Mbit/s` µs each), then travels for the latency plus a jitter drawn
//! from the link's stream; it never overtakes an earlier message (a TCP connection keeps
//! order).

use crate::config::NetConfig;
use crate::sim::SimTime;
use crate::sim::protocol::NodeId;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Linux's minimum TCP retransmission timeout, `TCP_RTO_MIN` (200 ms, `include/net/tcp.h`):
/// inside a data centre the computed RTO (srtt + 4 × rttvar) is far below it, so a lost
/// segment is resent after 200 ms, and after 400, 800 ... ms if the resends are lost too.
pub const TCP_RTO_MIN_US: u64 = 200_000;

/// How many times in a row a segment may be lost before isrlab stops doubling the timeout
/// (Linux gives up on a connection after `tcp_retries2` = 15 timeouts, minutes later).
const MAX_RETRANSMISSIONS: u32 = 15;

/// What a user did to one direction of a link (`cut`, `hold`, `delay`, `loss`).
#[derive(Clone, Copy, PartialEq, Debug, Default)]
pub struct LinkFaults {
    /// `cut`: every message on the link is dropped, also those already on their way.
    pub cut: bool,
    /// `hold`: messages wait on the link until `release`.
    pub held: bool,
    /// `delay`: extra one-way delay (µs).
    pub extra_delay_us: u64,
    /// `loss`: percent of segments lost (0–99); TCP resends them, so they arrive late.
    pub loss_percent: u8,
}

impl LinkFaults {
    /// Whether the link runs as configured.
    pub fn is_clear(&self) -> bool {
        *self == LinkFaults::default()
    }
}

/// One direction of a link.
#[derive(Clone)]
pub(crate) struct Link {
    /// Its lab properties (the cluster-wide ones unless set for this link).
    pub config: NetConfig,
    /// Its faults.
    pub faults: LinkFaults,
    rng: ChaCha8Rng,
    /// When the link has finished putting its last message on the wire.
    busy_until: SimTime,
    /// When its last message arrives (a later one never arrives before it).
    last_arrival: SimTime,
}

/// A number for each node, unique across roles, that names a link's random stream.
fn node_code(node: NodeId) -> u64 {
    match node {
        NodeId::Broker(b) => u64::from(b as u32),
        NodeId::Controller(c) => u64::from(c as u32),
        NodeId::ActiveController => u64::from(u32::MAX),
        NodeId::Producer(p) => (1 << 31) | u64::from(p),
        NodeId::Consumer(c) => (1 << 30) | u64::from(c),
        NodeId::Client(c) => (1 << 29) | u64::from(c),
    }
}

/// Salt that keeps the links' streams apart from the cores' (which use `seed` directly).
const LINK_SEED_SALT: u64 = 0x6e65_7477_6f72_6b00;

impl Link {
    /// The link `from → to` with `config`. Its random stream depends only on the master seed
    /// and its two ends, so adding a node leaves every other link's draws unchanged.
    pub fn new(seed: u64, from: NodeId, to: NodeId, config: NetConfig) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ LINK_SEED_SALT);
        rng.set_stream((node_code(from) << 32) | node_code(to));
        Self {
            config,
            faults: LinkFaults::default(),
            rng,
            busy_until: SimTime::ZERO,
            last_arrival: SimTime::ZERO,
        }
    }

    /// When a message of `bytes` sent at `now` arrives: after the link's earlier messages have
    /// gone out, its own transmission time, the latency, a jitter draw, any `delay`, and the
    /// retransmission timeouts of any `loss`; never before the link's previous message.
    pub fn arrival(&mut self, now: SimTime, bytes: u64) -> SimTime {
        let start = now.max(self.busy_until);
        self.busy_until = start.plus_micros(self.config.transmit_micros(bytes));
        let jitter = match self.config.jitter_us {
            0 => 0,
            j => self.rng.random_range(0..=j),
        };
        let delay = self.config.latency_us + jitter + self.faults.extra_delay_us + self.retransmissions();
        let at = self.busy_until.plus_micros(delay).max(self.last_arrival);
        self.last_arrival = at;
        at
    }

    /// The time lost to TCP retransmissions under `loss`: each try is lost with the link's
    /// loss probability, and each lost try costs the (doubling) retransmission timeout.
    fn retransmissions(&mut self) -> u64 {
        let p = f64::from(self.faults.loss_percent) / 100.0;
        let mut waited = 0;
        let mut rto = TCP_RTO_MIN_US;
        for _ in 0..MAX_RETRANSMISSIONS {
            if p == 0.0 || self.rng.random::<f64>() >= p {
                break;
            }
            waited += rto;
            rto *= 2;
        }
        waited
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quiet() -> NetConfig {
        NetConfig { jitter_us: 0, ..NetConfig::default() }
    }

    #[test]
    fn a_message_takes_latency_plus_its_transmission_time_behind_earlier_ones() {
        let mut link = Link::new(1, NodeId::Broker(0), NodeId::Broker(1), quiet());
        // 125,000 bytes at 1 Gbit/s take 1 ms to send, then 0.25 ms to travel.
        assert_eq!(link.arrival(SimTime::ZERO, 125_000), SimTime::from_micros(1_250));
        // Sent at once after it: it waits for the first to leave the wire.
        assert_eq!(link.arrival(SimTime::ZERO, 125), SimTime::from_micros(1_251));
        // Much later, the link is idle again.
        assert_eq!(link.arrival(SimTime::from_ms(10), 0), SimTime::from_micros(10_250));
    }

    #[test]
    fn jitter_never_reorders_a_link_and_each_link_has_its_own_stream() {
        let config = NetConfig { jitter_us: 500, ..NetConfig::default() };
        let mut a = Link::new(7, NodeId::Broker(0), NodeId::Broker(1), config);
        let mut b = Link::new(7, NodeId::Broker(1), NodeId::Broker(0), config);
        let mut last = SimTime::ZERO;
        let mut draws = Vec::new();
        for i in 0..50 {
            let at = a.arrival(SimTime::from_micros(i * 10), 100);
            assert!(at >= last, "order is kept");
            last = at;
            draws.push((at, b.arrival(SimTime::from_micros(i * 10), 100)));
        }
        assert!(draws.iter().any(|(x, y)| x != y), "the two directions draw differently");
        let mut again = Link::new(7, NodeId::Broker(0), NodeId::Broker(1), config);
        assert_eq!(again.arrival(SimTime::ZERO, 100), draws[0].0, "same seed and ends, same draws");
    }

    #[test]
    fn loss_delays_by_retransmission_timeouts_instead_of_dropping() {
        let mut link = Link::new(3, NodeId::Broker(0), NodeId::Broker(1), quiet());
        link.faults.loss_percent = 50;
        let mut late = 0;
        for i in 0..200 {
            let sent = SimTime::from_ms(i * 10_000);
            let took = link.arrival(sent, 0).micros_since(sent);
            assert!(took == 250 || took >= 250 + TCP_RTO_MIN_US, "{took}");
            late += u32::from(took > 250);
        }
        assert!((60..140).contains(&late), "about half are resent: {late}");
    }
}
