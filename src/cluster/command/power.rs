//! `power-loss B [B…]`: the hosts of the given brokers lose power at once (several is a rack
//! or data-centre power cut). Each process dies as in `crash`, and each log keeps only what
//! had reached the disk: what Kafka fsynced (`flush.messages`, `flush.ms`, a clean shutdown)
//! or the operating system wrote back (`os.dirty.expire.ms`). Kafka's defaults never fsync, so
//! records acknowledged with `acks=all` a moment before a cut that takes every replica are
//! gone: `acks=all` is not fsync. `restart B` brings a broker back from what is left.

use super::{Applied, Catalog, ParseError, Unit, Words, broker_node, known_broker};
use crate::cluster::node::ProcessState;
use crate::cluster::world::World;
use crate::sim::error::SimError;
use crate::sim::protocol::NodeId;
use crate::sim::{BrokerId, Outbox};
use std::fmt;
use std::rc::Rc;

/// `power-loss B [B…]`: the brokers, in the order given, without repeats.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PowerLoss(pub Vec<BrokerId>);

impl Unit for PowerLoss {
    const VERBS: &'static [&'static str] = &["power-loss"];
    const USAGE: &'static [&'static str] = &["power-loss B [B…]"];

    const ABOUT: &'static str = "The hosts of the given brokers lose power at once; several at once is a rack or data-centre power cut. Each broker dies as in `crash`, and each log keeps only what had reached the disk: what Kafka flushed (`flush.messages`, `flush.ms`, a clean shutdown) or the operating system wrote back. Kafka's defaults never flush, so `acks=all` records acknowledged a moment before a cut that takes every replica are gone. `restart B` brings a broker back from what is left.";
    const KAFKA: Option<&'static str> = Some(
        "flushing is left to the operating system by default, so `acks=all` means in the page cache of every ISR member, not on disk",
    );
    const EXAMPLES: &'static [&'static str] = &["power-loss 1", "power-loss 0 1 2"];

    fn parse(_verb: &str, words: &mut Words<'_>) -> Result<Self, ParseError> {
        let mut brokers = vec![words.broker()?];
        while words.peek().is_some() {
            let b = words.broker()?;
            if brokers.contains(&b) {
                return Err(super::words::parse_error(format!("broker {b} is named twice")));
            }
            brokers.push(b);
        }
        Ok(PowerLoss(brokers))
    }

    fn validate(&self, cluster: &dyn Catalog) -> Result<(), SimError> {
        for &b in &self.0 {
            known_broker(cluster, b)?;
            if let Some(s) = cluster.broker_state(b)
                && !s.running
            {
                return Err(SimError::InvalidState(format!("broker {b} is already down")));
            }
        }
        Ok(())
    }

    fn apply(&self, world: &Rc<World>, out: &mut Outbox) -> Result<Applied, SimError> {
        let now = world.now();
        for &b in &self.0 {
            let (node, core) = broker_node(world, b)?;
            world.kill_process(&node, now);
            node.state.set(ProcessState::PoweredOff { since: now });
            core.borrow_mut().power_loss(now, out);
        }
        Ok(Applied::by(NodeId::Broker(self.0[0])))
    }
}

impl fmt::Display for PowerLoss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "power-loss")?;
        self.0.iter().try_for_each(|b| write!(f, " {b}"))
    }
}
