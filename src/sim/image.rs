//! The cluster metadata as the controller has published it: Kafka's `MetadataImage`
//! (`org.apache.kafka.image.MetadataImage`), the state a broker or client gets by replaying
//! every `__cluster_metadata` record up to the last committed offset.
//!
//! The image is built only from [`MetadataDelta`]s, the same changes brokers and clients
//! receive, so whoever reads it (the snapshot, the audit ledger, the dashboard) sees exactly
//! what the cluster has committed, never the controller's in-progress bookkeeping.

use super::protocol::{BrokerRegistration, MetadataDelta, PartitionState};
use super::{BrokerId, TopicId, TopicPartition};
use crate::config::{BrokerConfig, TopicConfig};
use std::collections::BTreeMap;
use std::sync::Arc;

/// One topic in the image (Kafka's `TopicImage` plus the topic's `ConfigurationImage`).
#[derive(Clone, PartialEq, Debug)]
pub struct TopicImage {
    /// Topic name.
    pub name: Arc<str>,
    /// Topic id (KIP-516; `TopicImage.id`), from its partitions' records.
    pub id: TopicId,
    /// Topic-level config overrides.
    pub config: TopicConfig,
    /// Partition states, indexed by partition number.
    pub partitions: Vec<PartitionState>,
}

impl TopicImage {
    /// Number of partitions.
    pub fn partition_count(&self) -> u32 {
        self.partitions.len() as u32
    }

    /// Replication factor: the length of the first partition's replica list without the
    /// replicas a reassignment is adding (`TopicCommand.getReplicationFactor`).
    pub fn replication_factor(&self) -> usize {
        self.partitions.first().map_or(0, |p| p.replicas.len() - p.adding.len())
    }
}

/// The published cluster metadata: broker registrations, topics with their partitions and
/// configs, and the cluster-wide broker config. Ordered maps only, so iteration is
/// deterministic.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct MetadataImage {
    brokers: BTreeMap<BrokerId, BrokerRegistration>,
    topics: BTreeMap<Arc<str>, TopicImage>,
    broker_config: BrokerConfig,
}

impl MetadataImage {
    /// An empty image with the given cluster-wide broker config.
    pub fn new(broker_config: BrokerConfig) -> Self {
        MetadataImage { broker_config, ..Default::default() }
    }

    /// Replays one delta (`MetadataImage` + `MetadataDelta.apply` in Kafka). A delta holds
    /// whole records, not differences, so replaying the same delta twice changes nothing.
    pub fn apply(&mut self, delta: &MetadataDelta) {
        for b in &delta.brokers {
            self.brokers.insert(b.id, *b);
        }
        if let Some(c) = &delta.broker_config {
            self.broker_config = BrokerConfig::clone(c);
        }
        for (name, config) in &delta.topic_configs {
            self.topic_mut(name).config = config.clone();
        }
        for name in &delta.deleted_topics {
            self.topics.remove(name);
        }
        for ps in &delta.partitions {
            let topic = self.topic_mut(&ps.tp.topic);
            topic.id = ps.topic_id;
            let i = ps.tp.partition as usize;
            if i < topic.partitions.len() {
                topic.partitions[i] = ps.clone();
            } else if i == topic.partitions.len() {
                topic.partitions.push(ps.clone());
            }
        }
    }

    fn topic_mut(&mut self, name: &Arc<str>) -> &mut TopicImage {
        self.topics.entry(name.clone()).or_insert_with(|| TopicImage {
            name: name.clone(),
            id: TopicId::ZERO,
            config: TopicConfig::default(),
            partitions: Vec::new(),
        })
    }

    /// Every registered broker, in id order.
    pub fn brokers(&self) -> impl Iterator<Item = &BrokerRegistration> {
        self.brokers.values()
    }

    /// One broker's registration (`None` before it first registered).
    pub fn broker(&self, id: BrokerId) -> Option<&BrokerRegistration> {
        self.brokers.get(&id)
    }

    /// Every topic, in name order.
    pub fn topics(&self) -> impl Iterator<Item = &TopicImage> {
        self.topics.values()
    }

    /// One topic by name.
    pub fn topic(&self, name: &str) -> Option<&TopicImage> {
        self.topics.get(name)
    }

    /// Every partition, in (topic, partition) order.
    pub fn partitions(&self) -> impl Iterator<Item = &PartitionState> {
        self.topics.values().flat_map(|t| t.partitions.iter())
    }

    /// One partition's state.
    pub fn partition(&self, tp: &TopicPartition) -> Option<&PartitionState> {
        self.topics.get(&*tp.topic)?.partitions.get(tp.partition as usize)
    }

    /// The cluster-wide broker config.
    pub fn broker_config(&self) -> &BrokerConfig {
        &self.broker_config
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::protocol::LeaderRecoveryState;

    fn state(topic: &Arc<str>, p: u32, isr: &[BrokerId], leader: Option<BrokerId>) -> PartitionState {
        PartitionState {
            topic_id: crate::sim::TopicId::from_bits(7),
            tp: TopicPartition::new(topic.clone(), p),
            replicas: vec![0, 1, 2],
            isr: isr.to_vec(),
            leader,
            leader_epoch: 0,
            partition_epoch: 0,
            leader_recovery: LeaderRecoveryState::Recovered,
            adding: Vec::new(),
            removing: Vec::new(),
            elr: Vec::new(),
            last_known_elr: Vec::new(),
        }
    }

    #[test]
    fn replaying_deltas_builds_topics_and_later_records_replace_earlier_ones() {
        let t: Arc<str> = Arc::from("orders");
        let mut image = MetadataImage::default();
        let created = MetadataDelta {
            partitions: vec![state(&t, 0, &[0, 1, 2], Some(0)), state(&t, 1, &[1, 2, 0], Some(1))],
            topic_configs: vec![(t.clone(), TopicConfig::default())],
            ..Default::default()
        };
        image.apply(&created);
        let shrunk = MetadataDelta { partitions: vec![state(&t, 1, &[1], Some(1))], ..Default::default() };
        image.apply(&shrunk);
        image.apply(&shrunk);
        let topic = image.topic("orders").unwrap();
        assert_eq!((topic.partition_count(), topic.replication_factor()), (2, 3));
        assert_eq!(image.partition(&TopicPartition::new(t.clone(), 1)).unwrap().isr, vec![1]);
        assert_eq!(image.partitions().count(), 2);
    }

    #[test]
    fn broker_registrations_and_config_come_from_the_delta() {
        let mut image = MetadataImage::default();
        let reg = BrokerRegistration { id: 2, broker_epoch: 7, fenced: true, in_controlled_shutdown: false };
        let config = BrokerConfig { min_insync_replicas: 2, ..Default::default() };
        image.apply(&MetadataDelta {
            brokers: vec![reg],
            broker_config: Some(config.into()),
            ..Default::default()
        });
        assert_eq!(image.broker(2), Some(&reg));
        assert_eq!(image.broker(1), None);
        assert_eq!(image.broker_config().min_insync_replicas, 2);
    }
}
