//! `restart B`: start a crashed or stopped broker's process again. It registers with the
//! controller, catches up on metadata, and rejoins ISRs as its followers catch up (R6.3).

use super::{Applied, Catalog, ParseError, Unit, Words, known_broker};
use crate::cluster::world::World;
use crate::sim::error::SimError;
use crate::sim::protocol::NodeId;
use crate::sim::{BrokerId, Outbox};
use std::fmt;
use std::rc::Rc;
use tokio::task::LocalSet;

/// `restart B`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Restart(pub BrokerId);

impl Unit for Restart {
    const VERBS: &'static [&'static str] = &["restart"];
    const USAGE: &'static [&'static str] = &["restart B"];

    fn parse(_verb: &str, words: &mut Words<'_>) -> Result<Self, ParseError> {
        Ok(Restart(words.broker()?))
    }

    fn validate(&self, cluster: &dyn Catalog) -> Result<(), SimError> {
        known_broker(cluster, self.0)?;
        match cluster.broker_state(self.0) {
            Some(s) if s.running => {
                Err(SimError::InvalidState(format!("broker {} is already running", self.0)))
            }
            _ => Ok(()),
        }
    }

    fn apply(&self, world: &Rc<World>, local: &LocalSet, out: &mut Outbox) -> Result<Applied, SimError> {
        start(world, local, self.0, out);
        Ok(Applied::by(NodeId::Broker(self.0)))
    }
}

/// Starts broker `b`'s process (a down one) and its task.
pub(crate) fn start(world: &Rc<World>, local: &LocalSet, b: BrokerId, out: &mut Outbox) {
    let Some(node) = world.brokers.get(&b) else { return };
    if let Some(task) = node.task.borrow_mut().take() {
        task.abort();
    }
    node.core.borrow_mut().start(world.now(), out);
    *node.task.borrow_mut() = Some(world.spawn_node(local, NodeId::Broker(b), node.core.clone()));
}

impl fmt::Display for Restart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "restart {}", self.0)
    }
}
