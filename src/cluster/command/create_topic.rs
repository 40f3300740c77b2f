//! `create-topic T P RF`: create a topic the way the KRaft controller does
//! (`ReplicationControlManager.createTopic`, R1.7): the name first, then whether it exists,
//! then the replication factor, then the partition count, then the placer's check that enough
//! brokers are registered (`StripedReplicaPlacer.place`). Each refusal carries Kafka's error
//! name and message. `__cluster_metadata` is refused before all of these, as
//! `ControllerApis.createTopics` takes it out of the request (`INVALID_REQUEST`); the other
//! internal topics (`Topic.isInternal`: `__consumer_offsets`, `__transaction_state`, ...) may
//! be created like any topic.

use super::{Applied, Catalog, ParseError, Unit, Words};
use crate::cluster::spec::TopicSpec;
use crate::cluster::world::World;
use crate::kafka::errors::ErrorCode;
use crate::sim::Outbox;
use crate::sim::assignment::{validate_partition_count, validate_topic_name};
use crate::sim::error::SimError;
use crate::sim::protocol::NodeId;
use std::fmt;
use std::rc::Rc;

/// The KRaft metadata log's name (`Topic.CLUSTER_METADATA_TOPIC_NAME`): not a topic a
/// client may create.
pub const CLUSTER_METADATA_TOPIC: &str = "__cluster_metadata";

/// Whether the controller takes `name` for a new topic: `__cluster_metadata` is
/// `INVALID_REQUEST` (`ControllerApis.createTopics`), then Kafka's name rule
/// (`Topic.validate`: `INVALID_TOPIC_EXCEPTION`). Shared by `create-topic`, `--topic` and a
/// scenario's `[[topic]]`, which all stand for a CreateTopics request.
pub fn check_topic_name(name: &str) -> Result<(), SimError> {
    if name == CLUSTER_METADATA_TOPIC {
        return Err(SimError::Api(
            ErrorCode::InvalidRequest,
            format!("Creation of internal topic {CLUSTER_METADATA_TOPIC} is prohibited."),
        ));
    }
    validate_topic_name(name)
}

/// `create-topic T P RF`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct CreateTopic {
    /// Topic name.
    pub name: String,
    /// Partition count.
    pub partitions: u32,
    /// Replication factor.
    pub replication_factor: u32,
}

/// Kafka's replication factor rule for `brokers` registered brokers. Errors:
/// `INVALID_REPLICATION_FACTOR` with the controller's message for 0
/// (`ReplicationControlManager.createTopic`) or the placer's when too few brokers are
/// registered (`StripedReplicaPlacer`).
pub fn check_replication_factor(rf: u32, brokers: usize) -> Result<(), SimError> {
    if rf == 0 {
        return Err(SimError::InvalidReplicationFactor(
            "Replication factor must be larger than 0, or -1 to use the default value.".into(),
        ));
    }
    if rf as usize > brokers {
        return Err(SimError::InvalidReplicationFactor(format!(
            "Unable to replicate the partition {rf} time(s): The target replication factor of {rf} cannot be reached because only {brokers} broker(s) are registered."
        )));
    }
    Ok(())
}

impl Unit for CreateTopic {
    const VERBS: &'static [&'static str] = &["create-topic"];
    const USAGE: &'static [&'static str] = &["create-topic T P RF"];

    const ABOUT: &'static str = "Create topic T with P partitions and replication factor RF, placed on the brokers as the controller places a new topic. A refusal carries Kafka's error name and message, checked in Kafka's order: the name, whether it exists, the replication factor, the partition count, enough registered brokers.";
    const KAFKA: Option<&'static str> =
        Some("`kafka-topics.sh --create`, through the controller's `CreateTopics`");
    const EXAMPLES: &'static [&'static str] = &["create-topic orders 3 2"];

    fn parse(_verb: &str, words: &mut Words<'_>) -> Result<Self, ParseError> {
        let name = words.word("topic name")?.to_string();
        let partitions = words.number("partition count")?;
        let replication_factor = words.number("replication factor")?;
        Ok(CreateTopic { name, partitions, replication_factor })
    }

    /// Errors: `INVALID_REQUEST` for `__cluster_metadata`, `INVALID_TOPIC_EXCEPTION`,
    /// `TOPIC_ALREADY_EXISTS`, `INVALID_REPLICATION_FACTOR`, `INVALID_PARTITIONS`.
    fn validate(&self, cluster: &dyn Catalog) -> Result<(), SimError> {
        check_topic_name(&self.name)?;
        if cluster.partition_count(&self.name).is_some() {
            return Err(SimError::TopicExists(self.name.clone()));
        }
        if self.replication_factor == 0 {
            check_replication_factor(0, 0)?;
        }
        validate_partition_count(self.partitions)?;
        check_replication_factor(self.replication_factor, cluster.broker_ids().len())
    }

    /// Errors: the controller's own refusal, e.g. every broker fenced.
    fn apply(&self, world: &Rc<World>, out: &mut Outbox) -> Result<Applied, SimError> {
        let spec = TopicSpec {
            name: self.name.clone(),
            partitions: self.partitions,
            replication_factor: self.replication_factor,
            placement: Default::default(),
            config: Default::default(),
        };
        world.active_controller()?.borrow_mut().create_topic(world.now(), &spec, out)?;
        Ok(Applied::by(NodeId::ActiveController))
    }
}

impl fmt::Display for CreateTopic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "create-topic {} {} {}", self.name, self.partitions, self.replication_factor)
    }
}
