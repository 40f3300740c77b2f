//! `isolate B` and `heal-all`: cut a broker off from every other broker and the controller
//! (its clients still reach it, as when they sit on its side of the partition), and put every
//! link back to normal.
//!
//! An isolated leader is the textbook zombie: the controller stops hearing its heartbeats,
//! fences it after `broker.session.timeout.ms` and elects another leader, while the old one
//! still believes it leads and still appends `acks=1` writes from its clients; it learns
//! nothing until the partition heals, and then truncates those writes away.

use super::links::{change_both, event};
use super::{Applied, Catalog, ParseError, Unit, Words, known_broker};
use crate::cluster::link::LinkFaults;
use crate::cluster::world::World;
use crate::sim::error::SimError;
use crate::sim::protocol::NodeId;
use crate::sim::{BrokerId, Outbox};
use std::fmt;
use std::rc::Rc;

/// `isolate B` (`Some(B)`) or `heal-all` (`None`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Isolate(pub Option<BrokerId>);

impl Unit for Isolate {
    const VERBS: &'static [&'static str] = &["isolate", "heal-all"];
    const USAGE: &'static [&'static str] = &["isolate B", "heal-all"];

    const ABOUT: &'static str = "`isolate B` cuts broker B off from every other broker and the controller; its clients still reach it, as when they sit on its side of the partition. An isolated leader is the textbook zombie: it is fenced and replaced after `broker.session.timeout.ms`, but still takes `acks=1` writes until the partition heals, and then truncates them away. `heal-all` puts every link back to normal.";
    const KAFKA: Option<&'static str> = None;
    const EXAMPLES: &'static [&'static str] = &["isolate 2", "heal-all"];

    fn parse(verb: &str, words: &mut Words<'_>) -> Result<Self, ParseError> {
        if verb == "heal-all" {
            return Ok(Isolate(None));
        }
        Ok(Isolate(Some(words.broker()?)))
    }

    fn validate(&self, cluster: &dyn Catalog) -> Result<(), SimError> {
        match self.0 {
            Some(c) if c >= crate::sim::CONTROLLER_ID => super::catalog::known_controller(cluster, c),
            Some(b) => known_broker(cluster, b),
            None => Ok(()),
        }
    }

    fn apply(&self, world: &Rc<World>, out: &mut Outbox) -> Result<Applied, SimError> {
        match self.0 {
            Some(b) => {
                let me = super::crash::node_of(b);
                let brokers = world.broker_ids().into_iter().map(NodeId::Broker);
                let voters = world.controller_nodes().into_iter().map(|(id, _)| NodeId::Controller(id));
                for other in brokers.chain(voters).filter(|&o| o != me) {
                    change_both(world, me, other, |f| f.cut = true);
                }
            }
            None => {
                let now = world.now_us();
                for ((from, to), _) in world.net.faulty_links() {
                    world.with_post(|post| world.net.set_faults(post, now, from, to, LinkFaults::default()));
                }
            }
        }
        out.emit(event(self));
        Ok(Applied::by(self.0.map_or(NodeId::ActiveController, super::crash::node_of)))
    }
}

impl fmt::Display for Isolate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(b) => write!(f, "isolate {b}"),
            None => f.write_str("heal-all"),
        }
    }
}
