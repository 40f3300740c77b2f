//! `slow-disk B MS`: every fsync on broker B takes MS longer (0 = a healthy disk again). An
//! fsync happens when `flush.messages` or `flush.ms` asks for one; Kafka runs it on the thread
//! that appended (`UnifiedLog.append` → `flush`), so the broker answers nothing until the disk
//! is done: with `flush.messages=1`, produce latency and the HW's progress slow by MS per
//! append. Reads are not slowed: Kafka serves recent data from the page cache, and isrlab
//! models no cache misses. With Kafka's defaults (no fsync) a slow disk changes nothing here.

use super::{Applied, Catalog, ParseError, Unit, Words, broker_node, known_broker};
use crate::cluster::world::World;
use crate::sim::error::SimError;
use crate::sim::protocol::NodeId;
use crate::sim::{BrokerId, Ms, Outbox};
use std::fmt;
use std::rc::Rc;

/// Largest `slow-disk` delay (ms).
pub const MAX_SLOW_DISK_MS: Ms = 60_000;

/// `slow-disk B MS`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct SlowDisk {
    /// The broker.
    pub broker: BrokerId,
    /// Extra time per fsync (ms).
    pub ms: Ms,
}

impl Unit for SlowDisk {
    const VERBS: &'static [&'static str] = &["slow-disk"];
    const USAGE: &'static [&'static str] = &["slow-disk B MS"];

    const ABOUT: &'static str = "Every fsync on broker B takes MS milliseconds longer; `0` makes the disk healthy again. An fsync happens only when `flush.messages` or `flush.ms` asks for one, and the broker answers nothing until it is done, so with `flush.messages=1` produce latency and the HW slow by MS per append. With Kafka's defaults (no fsync) a slow disk changes nothing.";
    const KAFKA: Option<&'static str> = Some(
        "a flush runs on the thread that appended (`UnifiedLog.append`), so a slow fsync holds up the request",
    );
    const EXAMPLES: &'static [&'static str] = &["slow-disk 1 20", "slow-disk 1 0"];

    fn parse(_verb: &str, words: &mut Words<'_>) -> Result<Self, ParseError> {
        let broker = words.broker()?;
        Ok(SlowDisk { broker, ms: words.bounded("fsync delay (ms)", 0, MAX_SLOW_DISK_MS)? })
    }

    fn validate(&self, cluster: &dyn Catalog) -> Result<(), SimError> {
        known_broker(cluster, self.broker)
    }

    fn apply(&self, world: &Rc<World>, _out: &mut Outbox) -> Result<Applied, SimError> {
        let (_, core) = broker_node(world, self.broker)?;
        core.borrow_mut().set_slow_disk(self.ms);
        Ok(Applied::by(NodeId::Broker(self.broker)))
    }
}

impl fmt::Display for SlowDisk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "slow-disk {} {}", self.broker, self.ms)
    }
}
