//! `pause-fetch B` / `resume-fetch B`: stop or resume a broker's follower fetchers while it
//! keeps heartbeating, the "silent follower" of field case 5: it stays registered and
//! unfenced but falls behind until `replica.lag.time.max.ms` evicts it from the ISR.

use super::{Applied, Catalog, ParseError, Unit, Words, broker_node, not_frozen, running_broker};
use crate::cluster::world::World;
use crate::sim::error::SimError;
use crate::sim::protocol::NodeId;
use crate::sim::{BrokerId, Outbox};
use std::fmt;
use std::rc::Rc;

/// `pause-fetch B` (`paused`) or `resume-fetch B`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Fetch {
    /// The broker.
    pub broker: BrokerId,
    /// Pause (`true`) or resume.
    pub paused: bool,
}

impl Unit for Fetch {
    const VERBS: &'static [&'static str] = &["pause-fetch", "resume-fetch"];
    const USAGE: &'static [&'static str] = &["pause-fetch B", "resume-fetch B"];

    const ABOUT: &'static str = "Stop or resume broker B's follower fetchers while it keeps heartbeating: the silent follower. It stays registered and unfenced, so the controller sees nothing wrong, but it falls behind until `replica.lag.time.max.ms` removes it from the ISRs it is in.";
    const KAFKA: Option<&'static str> = Some(
        "a follower whose fetcher threads stalled, which only the leader's lag rule (`replica.lag.time.max.ms`) notices",
    );
    const EXAMPLES: &'static [&'static str] = &["pause-fetch 2", "resume-fetch 2"];

    fn parse(verb: &str, words: &mut Words<'_>) -> Result<Self, ParseError> {
        let paused = verb == "pause-fetch";
        words.usage(if paused { Self::USAGE[0] } else { Self::USAGE[1] });
        Ok(Fetch { broker: words.broker()?, paused })
    }

    fn validate(&self, cluster: &dyn Catalog) -> Result<(), SimError> {
        let b = self.broker;
        let state = running_broker(cluster, b)?;
        not_frozen(b, state)?;
        match state {
            Some(s) if s.fetch_paused == self.paused => {
                let state = if self.paused { "already paused" } else { "not paused" };
                Err(SimError::InvalidState(format!("broker {b}'s fetchers are {state}")))
            }
            _ => Ok(()),
        }
    }

    fn apply(&self, world: &Rc<World>, out: &mut Outbox) -> Result<Applied, SimError> {
        let (_, core) = broker_node(world, self.broker)?;
        core.borrow_mut().set_fetch_paused(self.paused, world.now(), out);
        Ok(Applied::by(NodeId::Broker(self.broker)))
    }
}

impl fmt::Display for Fetch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verb = if self.paused { "pause-fetch" } else { "resume-fetch" };
        write!(f, "{verb} {}", self.broker)
    }
}
