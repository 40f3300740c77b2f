//! `crash B`: kill a broker's process without warning. Its log stays on disk; the controller
//! notices only when heartbeats stop (`broker.session.timeout.ms`, R6.1).

use super::{Applied, Catalog, ParseError, Unit, Words, broker_node, known_broker};
use crate::cluster::world::World;
use crate::sim::error::SimError;
use crate::sim::events::EventKind;
use crate::sim::protocol::NodeId;
use crate::sim::{BrokerId, CONTROLLER_ID, Outbox};
use std::fmt;
use std::rc::Rc;

/// `crash B`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Crash(pub BrokerId);

impl Unit for Crash {
    const VERBS: &'static [&'static str] = &["crash"];
    const USAGE: &'static [&'static str] = &["crash B"];

    const ABOUT: &'static str = "Kill broker B's process without warning. Its log stays on disk. The controller notices only when its heartbeats stop: after `broker.session.timeout.ms` it fences the broker and elects new leaders for the partitions it led. B may be a controller id (3000, 3001, …): its followers stop hearing from it and the quorum elects another active controller.";
    const KAFKA: Option<&'static str> = Some(
        "a broker killed with `kill -9`, with no controlled shutdown, so the controller learns of it only by the heartbeat timeout",
    );
    const EXAMPLES: &'static [&'static str] = &["crash 2"];

    fn parse(_verb: &str, words: &mut Words<'_>) -> Result<Self, ParseError> {
        Ok(Crash(words.broker()?))
    }

    fn validate(&self, cluster: &dyn Catalog) -> Result<(), SimError> {
        if self.0 >= CONTROLLER_ID {
            super::catalog::known_controller(cluster, self.0)?;
            return match cluster.controller_running(self.0) {
                Some(false) => Err(SimError::InvalidState(format!("controller {} is already down", self.0))),
                _ => Ok(()),
            };
        }
        known_broker(cluster, self.0)?;
        match cluster.broker_state(self.0) {
            Some(s) if !s.running => {
                Err(SimError::InvalidState(format!("broker {} is already down", self.0)))
            }
            _ => Ok(()),
        }
    }

    fn apply(&self, world: &Rc<World>, out: &mut Outbox) -> Result<Applied, SimError> {
        if self.0 >= CONTROLLER_ID {
            let node = world.node(NodeId::Controller(self.0));
            let node = node.ok_or_else(|| SimError::InvalidState(format!("no controller {}", self.0)))?;
            world.kill_process(&node, world.now());
            out.emit(EventKind::ControllerCrashed { controller: self.0 });
            return Ok(Applied::by(NodeId::Controller(self.0)));
        }
        kill(world, self.0);
        out.emit(EventKind::BrokerCrashed { broker: self.0 });
        Ok(Applied::by(NodeId::Broker(self.0)))
    }
}

/// The node a crash, restart or isolate names: a controller for ids from
/// [`CONTROLLER_ID`] up, else a broker.
pub(crate) fn node_of(id: i32) -> NodeId {
    if id >= CONTROLLER_ID { NodeId::Controller(id) } else { NodeId::Broker(id) }
}

/// The process a fault command names: `controller` is the active controller now. Errors:
/// the quorum has none.
pub(crate) fn controller_target(world: &World, node: NodeId) -> Result<NodeId, SimError> {
    match node {
        NodeId::ActiveController => world
            .active_controller_id()
            .map(NodeId::Controller)
            .ok_or_else(|| SimError::InvalidState("the controller quorum has no active controller".into())),
        other => Ok(other),
    }
}

/// Ends broker `b`'s process and cuts its connections, as a killed process does.
pub(crate) fn kill(world: &Rc<World>, b: BrokerId) {
    let Ok((node, core)) = broker_node(world, b) else { return };
    world.kill_process(&node, world.now());
    core.borrow_mut().crash(world.now());
}

impl fmt::Display for Crash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "crash {}", self.0)
    }
}
