//! What the link commands share: naming a link's ends (`2`, `controller`), checking them, and
//! changing the faults of one or both directions of a link at the current instant.

use super::{Catalog, known_broker};
use crate::cluster::link::LinkFaults;
use crate::cluster::world::World;
use crate::sim::error::SimError;
use crate::sim::events::EventKind;
use crate::sim::protocol::NodeId;
use std::fmt;

/// A node as the link commands write it: its broker id, or `controller`.
pub(crate) struct End(pub NodeId);

impl fmt::Display for End {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            NodeId::Broker(b) => write!(f, "{b}"),
            NodeId::Controller(c) => write!(f, "{c}"),
            NodeId::ActiveController => f.write_str("controller"),
            NodeId::Producer(p) => write!(f, "producer-{p}"),
            NodeId::Consumer(c) => write!(f, "consumer-{c}"),
            NodeId::Client(c) => write!(f, "client-{c}"),
        }
    }
}

/// Checks that `a` and `b` are two different nodes of the cluster (brokers or the
/// controller). Errors: an unknown broker, or a link from a node to itself.
pub(crate) fn check_ends(cluster: &dyn Catalog, a: NodeId, b: NodeId) -> Result<(), SimError> {
    for end in [a, b] {
        match end {
            NodeId::Broker(id) => known_broker(cluster, id)?,
            NodeId::Controller(id) => super::catalog::known_controller(cluster, id)?,
            _ => {}
        }
    }
    if a == b {
        return Err(SimError::InvalidState(format!("{} has no link to itself", End(a))));
    }
    Ok(())
}

/// Changes the faults of the link `from → to` with `change`, now.
pub(crate) fn change(world: &World, from: NodeId, to: NodeId, change: impl FnOnce(&mut LinkFaults)) {
    // `controller` names the active controller at the instant of the command.
    let (Ok(from), Ok(to)) =
        (super::crash::controller_target(world, from), super::crash::controller_target(world, to))
    else {
        return;
    };
    let mut faults = world.net.faults(from, to);
    change(&mut faults);
    world.with_post(|post| world.net.set_faults(post, world.now_us(), from, to, faults));
}

/// Changes both directions of the link between `a` and `b` with `change`, now.
pub(crate) fn change_both(world: &World, a: NodeId, b: NodeId, f: impl Fn(&mut LinkFaults)) {
    change(world, a, b, &f);
    change(world, b, a, &f);
}

/// The event that tells the log what the command did to the network.
pub(crate) fn event(change: impl fmt::Display) -> EventKind {
    EventKind::NetworkChanged { change: change.to_string() }
}
