//! `hold A B` and `release A B`: messages from A to B wait on the link until released, then
//! go on in the order they were sent, as a stalled TCP connection whose buffers fill and then
//! drain. Nothing is lost; the receiver only sees them late (and the sender's timeouts may
//! fire meanwhile). B's messages to A are not affected.

use super::links::{End, change, check_ends, event};
use super::{Applied, Catalog, ParseError, Unit, Words};
use crate::cluster::world::World;
use crate::sim::Outbox;
use crate::sim::error::SimError;
use crate::sim::protocol::NodeId;
use std::fmt;
use std::rc::Rc;

/// `hold A B` (`held`) or `release A B`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Hold {
    /// The sender.
    pub from: NodeId,
    /// The receiver.
    pub to: NodeId,
    /// Hold (`true`) or release.
    pub held: bool,
}

impl Unit for Hold {
    const VERBS: &'static [&'static str] = &["hold", "release"];
    const USAGE: &'static [&'static str] = &["hold A B", "release A B"];

    const ABOUT: &'static str = "Messages from A to B wait on the link until `release A B`, then go on in the order they were sent, as a stalled TCP connection whose buffers fill and then drain. Nothing is lost; B only sees them late, and the sender's timeouts may fire meanwhile. B's messages to A are not affected.";
    const KAFKA: Option<&'static str> = None;
    const EXAMPLES: &'static [&'static str] = &["hold 0 controller", "release 0 controller"];

    fn parse(verb: &str, words: &mut Words<'_>) -> Result<Self, ParseError> {
        let held = verb == "hold";
        words.usage(if held { Self::USAGE[0] } else { Self::USAGE[1] });
        Ok(Hold { from: words.node()?, to: words.node()?, held })
    }

    fn validate(&self, cluster: &dyn Catalog) -> Result<(), SimError> {
        check_ends(cluster, self.from, self.to)
    }

    fn apply(&self, world: &Rc<World>, out: &mut Outbox) -> Result<Applied, SimError> {
        let from = super::crash::controller_target(world, self.from)?;
        let to = super::crash::controller_target(world, self.to)?;
        if world.net.faults(from, to).held == self.held {
            let state = if self.held { "already held" } else { "not held" };
            return Err(SimError::InvalidState(format!(
                "the link {} → {} is {state}",
                End(self.from),
                End(self.to)
            )));
        }
        change(world, self.from, self.to, |f| f.held = self.held);
        out.emit(event(self));
        Ok(Applied::by(self.from))
    }
}

impl fmt::Display for Hold {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verb = if self.held { "hold" } else { "release" };
        write!(f, "{verb} {} {}", End(self.from), End(self.to))
    }
}
