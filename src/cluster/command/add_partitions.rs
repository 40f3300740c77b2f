//! `add-partitions T N`: grow topic T to N partitions, as `kafka-topics.sh --alter
//! --partitions N` does through the controller's `CreatePartitions`
//! (`ReplicationControlManager.createPartitions`). N is the new total.

use super::{Applied, Catalog, ParseError, Unit, Words, known_topic};
use crate::cluster::world::World;
use crate::sim::Outbox;
use crate::sim::controller::check_partition_increase;
use crate::sim::error::SimError;
use crate::sim::protocol::NodeId;
use std::fmt;
use std::rc::Rc;

/// `add-partitions T N`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct AddPartitions {
    /// Topic name.
    pub topic: String,
    /// The new partition count.
    pub count: u32,
}

impl Unit for AddPartitions {
    const VERBS: &'static [&'static str] = &["add-partitions"];
    const USAGE: &'static [&'static str] = &["add-partitions T N"];

    const ABOUT: &'static str = "Grow topic T to N partitions. N is the new total, not the number to add, and it must be larger than the current count. The new partitions get replicas as a new topic's partitions do.";
    const KAFKA: Option<&'static str> =
        Some("`kafka-topics.sh --alter --partitions N`, through the controller's `CreatePartitions`");
    const EXAMPLES: &'static [&'static str] = &["add-partitions test_repli 12"];

    fn parse(_verb: &str, words: &mut Words<'_>) -> Result<Self, ParseError> {
        let topic = words.word("topic name")?.to_string();
        let count = words.number("partition count")?;
        Ok(AddPartitions { topic, count })
    }

    /// Errors: `UNKNOWN_TOPIC_OR_PARTITION`; `INVALID_PARTITIONS` when N is not an increase
    /// (Kafka's two messages) or too large.
    fn validate(&self, cluster: &dyn Catalog) -> Result<(), SimError> {
        let current = known_topic(cluster, &self.topic)?;
        check_partition_increase(&self.topic, current, self.count)
    }

    /// Errors: the controller's own refusal, e.g. every broker fenced.
    fn apply(&self, world: &Rc<World>, out: &mut Outbox) -> Result<Applied, SimError> {
        world.active_controller()?.borrow_mut().create_partitions(
            world.now(),
            &self.topic,
            self.count,
            out,
        )?;
        Ok(Applied::by(NodeId::ActiveController))
    }
}

impl fmt::Display for AddPartitions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "add-partitions {} {}", self.topic, self.count)
    }
}
