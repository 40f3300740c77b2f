//! `bounce B`: crash a broker and start it again at once (`kill -9` then a service manager's
//! restart). Its page cache survives (the operating system keeps it, unlike `power-loss`), so
//! it restarts with its whole log; the controller refuses its registration while the old
//! run's session lives (`broker.session.timeout.ms`, R6.1), then unfences it.

use super::{Applied, Catalog, ParseError, Unit, Words, crash, restart, running_broker};
use crate::cluster::world::World;
use crate::sim::error::SimError;
use crate::sim::events::EventKind;
use crate::sim::protocol::NodeId;
use crate::sim::{BrokerId, Outbox};
use std::fmt;
use std::rc::Rc;

/// `bounce B`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Bounce(pub BrokerId);

impl Unit for Bounce {
    const VERBS: &'static [&'static str] = &["bounce"];
    const USAGE: &'static [&'static str] = &["bounce B"];

    const ABOUT: &'static str = "Crash broker B and start it again at once. Its page cache survives (the operating system keeps it, unlike `power-loss`), so it comes back with its whole log. The controller refuses its registration while the old run's session lasts (`broker.session.timeout.ms`), then lets it in and unfences it once it has caught up on metadata.";
    const KAFKA: Option<&'static str> = Some(
        "`kill -9` followed by a service manager's restart; the controller answers `DUPLICATE_BROKER_REGISTRATION` while the old session lives",
    );
    const EXAMPLES: &'static [&'static str] = &["bounce 2"];

    fn parse(_verb: &str, words: &mut Words<'_>) -> Result<Self, ParseError> {
        Ok(Bounce(words.broker()?))
    }

    fn validate(&self, cluster: &dyn Catalog) -> Result<(), SimError> {
        running_broker(cluster, self.0).map(|_| ())
    }

    fn apply(&self, world: &Rc<World>, out: &mut Outbox) -> Result<Applied, SimError> {
        crash::kill(world, self.0);
        out.emit(EventKind::BrokerCrashed { broker: self.0 });
        restart::start(world, self.0, out);
        Ok(Applied::by(NodeId::Broker(self.0)))
    }
}

impl fmt::Display for Bounce {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bounce {}", self.0)
    }
}
