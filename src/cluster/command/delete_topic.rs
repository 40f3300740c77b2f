//! `delete-topic T`: delete a topic, as `kafka-topics.sh --delete` does through the
//! controller's `DeleteTopics` (`ReplicationControlManager.deleteTopics`, a
//! `RemoveTopicRecord`). Brokers delete its replicas; producers writing to it get
//! `UNKNOWN_TOPIC_OR_PARTITION` from the brokers and retry until `delivery.timeout.ms`, as
//! Kafka's producer does.

use super::{Applied, Catalog, ParseError, Unit, Words, known_topic};
use crate::cluster::world::World;
use crate::sim::Outbox;
use crate::sim::error::SimError;
use crate::sim::protocol::NodeId;
use std::fmt;
use std::rc::Rc;

/// `delete-topic T`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct DeleteTopic {
    /// Topic name.
    pub topic: String,
}

impl Unit for DeleteTopic {
    const VERBS: &'static [&'static str] = &["delete-topic"];
    const USAGE: &'static [&'static str] = &["delete-topic T"];

    const ABOUT: &'static str = "Delete topic T. Brokers delete its replicas. Producers still writing to it get `UNKNOWN_TOPIC_OR_PARTITION` and retry until `delivery.timeout.ms`.";
    const KAFKA: Option<&'static str> =
        Some("`kafka-topics.sh --delete`, through the controller's `DeleteTopics`");
    const EXAMPLES: &'static [&'static str] = &["delete-topic orders"];

    fn parse(_verb: &str, words: &mut Words<'_>) -> Result<Self, ParseError> {
        Ok(DeleteTopic { topic: words.word("topic name")?.to_string() })
    }

    /// Errors: `UNKNOWN_TOPIC_OR_PARTITION`.
    fn validate(&self, cluster: &dyn Catalog) -> Result<(), SimError> {
        known_topic(cluster, &self.topic).map(|_| ())
    }

    fn apply(&self, world: &Rc<World>, out: &mut Outbox) -> Result<Applied, SimError> {
        world.active_controller()?.borrow_mut().delete_topic(world.now(), &self.topic, out)?;
        Ok(Applied::by(NodeId::ActiveController))
    }
}

impl fmt::Display for DeleteTopic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "delete-topic {}", self.topic)
    }
}
