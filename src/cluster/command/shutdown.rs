//! `shutdown B`: a controlled shutdown (R6.6). The broker asks the controller to move its
//! leaderships away, waits until it may stop, then exits; its log stays on disk.

use super::{Applied, Catalog, ParseError, Unit, Words, broker_node, not_frozen, running_broker};
use crate::cluster::node::ProcessState;
use crate::cluster::world::World;
use crate::sim::error::SimError;
use crate::sim::protocol::NodeId;
use crate::sim::{BrokerId, Outbox};
use std::fmt;
use std::rc::Rc;

/// `shutdown B`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Shutdown(pub BrokerId);

impl Unit for Shutdown {
    const VERBS: &'static [&'static str] = &["shutdown"];
    const USAGE: &'static [&'static str] = &["shutdown B"];

    const ABOUT: &'static str = "A controlled shutdown of broker B: it asks the controller to move its leaderships away and to take it out of the ISRs, waits until it may stop, then exits. Its log stays on disk. Unlike `crash`, no acknowledged record is lost when the followers were caught up.";
    const KAFKA: Option<&'static str> = Some(
        "a controlled shutdown (`controlled.shutdown.enable`), which the broker asks for through its heartbeat and which ends once its leaderships have moved",
    );
    const EXAMPLES: &'static [&'static str] = &["shutdown 1"];

    fn parse(_verb: &str, words: &mut Words<'_>) -> Result<Self, ParseError> {
        Ok(Shutdown(words.broker()?))
    }

    fn validate(&self, cluster: &dyn Catalog) -> Result<(), SimError> {
        not_frozen(self.0, running_broker(cluster, self.0)?)
    }

    /// Errors: the broker's own refusal (not running, already shutting down).
    fn apply(&self, world: &Rc<World>, out: &mut Outbox) -> Result<Applied, SimError> {
        begin(world, self.0, out)?;
        Ok(Applied::by(NodeId::Broker(self.0)))
    }
}

/// Starts broker `b`'s controlled shutdown (R6.6) and marks its process shutting down.
/// Errors: [`SimError::UnknownBroker`]; [`SimError::InvalidState`] when the broker refuses
/// (e.g. it has not registered yet); nothing changes then.
pub(crate) fn begin(world: &World, b: BrokerId, out: &mut Outbox) -> Result<(), SimError> {
    let (node, core) = broker_node(world, b)?;
    core.borrow_mut().begin_controlled_shutdown(world.now(), out).map_err(SimError::InvalidState)?;
    node.state.set(ProcessState::ShuttingDown);
    Ok(())
}

impl fmt::Display for Shutdown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "shutdown {}", self.0)
    }
}
