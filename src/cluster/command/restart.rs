//! `restart B`: start a crashed or stopped broker's process again. It registers with the
//! controller, catches up on metadata, and rejoins ISRs as its followers catch up (R6.3).

use super::{Applied, Catalog, ParseError, Unit, Words, broker_node, known_broker};
use crate::cluster::world::World;
use crate::sim::error::SimError;
use crate::sim::events::EventKind;
use crate::sim::protocol::NodeId;
use crate::sim::{BrokerId, Outbox};
use std::fmt;
use std::rc::Rc;

/// `restart B`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Restart(pub BrokerId);

impl Unit for Restart {
    const VERBS: &'static [&'static str] = &["restart"];
    const USAGE: &'static [&'static str] = &["restart B"];

    const ABOUT: &'static str = "Start a crashed or stopped broker's process again. It registers with the controller, catches up on metadata, is unfenced, and rejoins ISRs as its followers catch up.";
    const KAFKA: Option<&'static str> = Some(
        "a starting broker registers with a new broker epoch and stays fenced until it has caught up on the metadata log",
    );
    const EXAMPLES: &'static [&'static str] = &["restart 2"];

    fn parse(_verb: &str, words: &mut Words<'_>) -> Result<Self, ParseError> {
        Ok(Restart(words.broker()?))
    }

    fn validate(&self, cluster: &dyn Catalog) -> Result<(), SimError> {
        if self.0 >= crate::sim::CONTROLLER_ID {
            super::catalog::known_controller(cluster, self.0)?;
            return match cluster.controller_running(self.0) {
                Some(true) => {
                    Err(SimError::InvalidState(format!("controller {} is already running", self.0)))
                }
                _ => Ok(()),
            };
        }
        known_broker(cluster, self.0)?;
        match cluster.broker_state(self.0) {
            Some(s) if s.running => {
                Err(SimError::InvalidState(format!("broker {} is already running", self.0)))
            }
            _ => Ok(()),
        }
    }

    fn apply(&self, world: &Rc<World>, out: &mut Outbox) -> Result<Applied, SimError> {
        if self.0 >= crate::sim::CONTROLLER_ID {
            let id = self.0;
            let node = world.node(NodeId::Controller(id));
            let node = node.ok_or_else(|| SimError::InvalidState(format!("no controller {id}")))?;
            if let Some(c) = world.controller_node(id) {
                c.borrow_mut().restart(world.now());
            }
            out.emit(EventKind::ControllerStarted { controller: id });
            world.start_process(&node);
            return Ok(Applied::by(NodeId::Controller(id)));
        }
        start(world, self.0, out);
        Ok(Applied::by(NodeId::Broker(self.0)))
    }
}

/// Starts broker `b`'s process (a down one). Like a real start it reads
/// `server.properties` ([`World::server_properties`]), so static configs set since its last
/// start take effect now.
pub(crate) fn start(world: &Rc<World>, b: BrokerId, out: &mut Outbox) {
    let Ok((node, core)) = broker_node(world, b) else { return };
    core.borrow_mut().load_config(world.server_properties.borrow().for_broker(b));
    world.restart_pending.borrow_mut().remove(&b);
    out.emit(EventKind::BrokerStarted { broker: b });
    if let Some(active) = world.active_controller_id().and_then(|id| world.controller_node(id)) {
        let active = active.borrow();
        core.borrow_mut().set_known_controller(active.raft().id(), active.raft().epoch());
    }
    core.borrow_mut().start(world.now(), out);
    world.start_process(&node);
}

impl fmt::Display for Restart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "restart {}", self.0)
    }
}
