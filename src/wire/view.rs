//! What a broker's metadata says to a client, read on the sim thread from the published
//! metadata image (Kafka's `KRaftMetadataCache`): the live brokers, the topics with their
//! ids, and every partition's leader, epoch, replicas and ISR.

use crate::cluster::world::World;
use crate::sim::protocol::PartitionState;
use crate::sim::{BrokerId, TopicId};
use std::sync::Arc;

/// One topic as a metadata answer shows it.
#[derive(Clone, Debug)]
pub struct TopicView {
    /// Its name.
    pub name: Arc<str>,
    /// Its id.
    pub id: TopicId,
    /// Whether it is internal (`__consumer_offsets`).
    pub internal: bool,
    /// Its partitions, by index.
    pub partitions: Vec<PartitionState>,
}

/// The cluster as a broker's metadata cache shows it.
#[derive(Clone, Debug, Default)]
pub struct ClusterView {
    /// Registered, unfenced brokers (`KRaftMetadataCache.getAliveBrokerNodes`), by id.
    pub alive: Vec<BrokerId>,
    /// Every topic, by name.
    pub topics: Vec<TopicView>,
}

impl ClusterView {
    /// Reads the published image.
    pub(crate) fn read(world: &World) -> ClusterView {
        world.with_image(|image| ClusterView {
            alive: image.brokers().filter(|b| !b.fenced).map(|b| b.id).collect(),
            topics: image
                .topics()
                .map(|t| TopicView {
                    name: t.name.clone(),
                    id: t.id,
                    internal: t.name.starts_with("__"),
                    partitions: t.partitions.clone(),
                })
                .collect(),
        })
    }

    /// The topic named `name`.
    pub fn topic(&self, name: &str) -> Option<&TopicView> {
        self.topics.iter().find(|t| &*t.name == name)
    }

    /// The topic with id `id`.
    pub fn topic_by_id(&self, id: TopicId) -> Option<&TopicView> {
        self.topics.iter().find(|t| t.id == id)
    }

    /// Whether broker `b` is alive (registered and unfenced).
    pub fn is_alive(&self, b: BrokerId) -> bool {
        self.alive.contains(&b)
    }

    /// The id a metadata answer gives as the controller's: under KRaft clients cannot reach
    /// the controller, so Kafka names an alive broker (`KRaftMetadataCache.getRandomAliveBrokerId`);
    /// isrlab names the lowest, so answers stay stable. `-1` with none alive.
    pub fn controller_id(&self) -> BrokerId {
        self.alive.iter().min().copied().unwrap_or(-1)
    }
}
