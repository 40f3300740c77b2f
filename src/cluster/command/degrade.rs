//! `delay A B MS` and `loss A B PERCENT`: a slow or lossy link between two nodes, in both
//! directions; `0` puts that property back.
//!
//! Kafka talks over TCP, and TCP does not lose a message inside a connection: it resends a
//! lost segment after the retransmission timeout, at least 200 ms on Linux (`TCP_RTO_MIN`),
//! doubling each time the resend is lost too. So `loss` delays messages, by whole timeouts and
//! at random, and never reorders or drops them (see [`crate::cluster::link`]). A link that
//! carries nothing at all is `cut`.

use super::links::{End, change_both, check_ends, event};
use super::{Applied, Catalog, ParseError, Unit, Words};
use crate::cluster::world::World;
use crate::sim::error::SimError;
use crate::sim::protocol::NodeId;
use crate::sim::{Ms, Outbox};
use std::fmt;
use std::rc::Rc;

/// Largest extra delay `delay` accepts (ms): ten minutes.
pub const MAX_DELAY_MS: Ms = 600_000;

/// Largest loss `loss` accepts (percent): at 100 nothing arrives, which is `cut`.
pub const MAX_LOSS_PERCENT: u8 = 99;

/// What a [`Degrade`] sets.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Degradation {
    /// `delay A B MS`: extra one-way delay (ms).
    Delay(Ms),
    /// `loss A B PERCENT`: percent of segments lost and resent.
    Loss(u8),
}

/// `delay A B MS` or `loss A B PERCENT`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Degrade {
    /// One end.
    pub a: NodeId,
    /// The other end.
    pub b: NodeId,
    /// What it sets.
    pub what: Degradation,
}

impl Unit for Degrade {
    const VERBS: &'static [&'static str] = &["delay", "loss"];
    const USAGE: &'static [&'static str] = &["delay A B MS", "loss A B PERCENT"];

    const ABOUT: &'static str = "A slow or lossy link between A and B, both ways. `delay A B MS` adds MS milliseconds to every message's trip; `loss A B PERCENT` loses that share of segments, which TCP sends again after its retransmission timeout, so messages arrive late but never out of order or not at all. `0` puts the link's delay or loss back to none.";
    const KAFKA: Option<&'static str> = Some(
        "TCP retransmission, which resends a lost segment after at least 200 ms on Linux (`TCP_RTO_MIN`), doubling the wait each time",
    );
    const EXAMPLES: &'static [&'static str] = &["delay 0 1 30", "loss 1 2 5"];

    fn parse(verb: &str, words: &mut Words<'_>) -> Result<Self, ParseError> {
        let delay = verb == "delay";
        words.usage(if delay { Self::USAGE[0] } else { Self::USAGE[1] });
        let (a, b) = (words.node()?, words.node()?);
        let what = if delay {
            Degradation::Delay(words.bounded("delay in ms", 0, MAX_DELAY_MS)?)
        } else {
            Degradation::Loss(words.bounded("loss percent", 0, MAX_LOSS_PERCENT)?)
        };
        Ok(Degrade { a, b, what })
    }

    fn validate(&self, cluster: &dyn Catalog) -> Result<(), SimError> {
        check_ends(cluster, self.a, self.b)
    }

    fn apply(&self, world: &Rc<World>, out: &mut Outbox) -> Result<Applied, SimError> {
        match self.what {
            Degradation::Delay(ms) => change_both(world, self.a, self.b, |f| f.extra_delay_us = ms * 1000),
            Degradation::Loss(p) => change_both(world, self.a, self.b, |f| f.loss_percent = p),
        }
        out.emit(event(self));
        Ok(Applied::by(self.a))
    }
}

impl fmt::Display for Degrade {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (a, b) = (End(self.a), End(self.b));
        match self.what {
            Degradation::Delay(ms) => write!(f, "delay {a} {b} {ms}"),
            Degradation::Loss(p) => write!(f, "loss {a} {b} {p}"),
        }
    }
}
