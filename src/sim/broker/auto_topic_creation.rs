//! What a broker does for a Metadata request that names a topic its metadata lacks
//! (`KafkaApis.handleTopicMetadataRequest` → `getTopicMetadata`): when the request allows it
//! (`allowAutoTopicCreation`: a producer's always does, a consumer's when
//! `allow.auto.create.topics` is true) and the broker's `auto.create.topics.enable` is true,
//! `AutoTopicCreationManager.createTopics` forwards a CreateTopics to the controller with
//! `num.partitions` and `default.replication.factor` (`creatableTopic`), and the topic is
//! answered `LEADER_NOT_AVAILABLE` while it is being created; a topic whose creation is already
//! in flight from this broker is answered `UNKNOWN_TOPIC_OR_PARTITION`
//! (`filterCreatableTopics`: `inflightTopics.add` fails), as is a missing topic when creation
//! is not allowed; an illegal name is `INVALID_TOPIC_EXCEPTION`.
//!
//! [`Broker::topic_metadata_errors`] is the one entry point: the simulated clients call it
//! through [`Message::TopicMetadata`], and a real client's Metadata request can call it too.

use super::Broker;
use super::groups::CREATION_RETRY_MS;
use crate::kafka::errors::ErrorCode;
use crate::sim::assignment::validate_topic_name;
use crate::sim::group::OFFSETS_TOPIC;
use crate::sim::protocol::{Message, NodeId};
use crate::sim::spec::TopicSpec;
use crate::sim::{Ms, Outbox};
use std::sync::Arc;

impl Broker {
    /// Whether this broker's metadata has topic `name`.
    pub fn knows_topic(&self, name: &str) -> bool {
        self.topic_names.values().any(|n| &**n == name)
    }

    /// The per-topic errors of a Metadata request for `topics` at `now`
    /// (`KafkaApis.handleTopicMetadataRequest`), forwarding the creation of missing ones to
    /// the controller when `allow_auto_topic_creation` and `auto.create.topics.enable` let it
    /// (see the module docs). Topics the metadata has get no entry. A forwarded creation counts
    /// as in flight for [`CREATION_RETRY_MS`] (the controller's answer is not modelled), then a
    /// request may forward it again; the controller leaves an existing topic alone.
    pub fn topic_metadata_errors(
        &mut self,
        now: Ms,
        topics: &[Arc<str>],
        allow_auto_topic_creation: bool,
        out: &mut Outbox,
    ) -> Vec<(Arc<str>, ErrorCode)> {
        let create = allow_auto_topic_creation && self.config.auto_create_topics_enable;
        self.auto_creating.retain(|_, sent| now < *sent + CREATION_RETRY_MS);
        let mut errors = Vec::new();
        let missing: Vec<&Arc<str>> = topics.iter().filter(|t| !self.knows_topic(t)).collect();
        for topic in missing {
            let error = if validate_topic_name(topic).is_err() {
                ErrorCode::InvalidTopicException
            } else if !create || self.auto_creating.contains_key(topic) {
                ErrorCode::UnknownTopicOrPartition
            } else {
                self.auto_creating.insert(topic.clone(), now);
                out.send(
                    NodeId::ActiveController,
                    Message::AutoCreateTopic(Box::new(self.creatable_topic(topic))),
                );
                ErrorCode::LeaderNotAvailable
            };
            errors.push((topic.clone(), error));
        }
        errors
    }

    /// `AutoTopicCreationManager.creatableTopic`: `__consumer_offsets` with its own settings,
    /// any other topic with `num.partitions` and `default.replication.factor`.
    pub(super) fn creatable_topic(&self, topic: &str) -> TopicSpec {
        let (partitions, replication_factor) = if topic == OFFSETS_TOPIC {
            (self.config.offsets_topic_num_partitions, self.config.offsets_topic_replication_factor)
        } else {
            (self.config.num_partitions, self.config.default_replication_factor)
        };
        TopicSpec {
            name: topic.to_string(),
            partitions,
            replication_factor,
            placement: Default::default(),
            config: Default::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::BrokerConfig;
    use crate::sim::protocol::{BrokerRegistration, MetadataDelta};

    fn broker(config: BrokerConfig) -> Broker {
        let mut b = Broker::new(0, config);
        let reg = BrokerRegistration { id: 0, broker_epoch: 1, fenced: false, in_controlled_shutdown: false };
        let image = MetadataDelta { brokers: vec![reg], ..Default::default() };
        b.start_bootstrapped(0, 1, &image, &mut Outbox::default());
        b
    }

    fn creations(out: &Outbox) -> Vec<(String, u32, u32)> {
        (out.sends.iter())
            .filter_map(|(to, m)| match m {
                Message::AutoCreateTopic(s) if *to == NodeId::ActiveController => {
                    Some((s.name.clone(), s.partitions, s.replication_factor))
                }
                _ => None,
            })
            .collect()
    }

    /// `KafkaApis.handleTopicMetadataRequest` with `AutoTopicCreationManager`: a missing topic
    /// is forwarded with `num.partitions` and `default.replication.factor` and answered
    /// LEADER_NOT_AVAILABLE; while that creation is in flight the same topic is
    /// UNKNOWN_TOPIC_OR_PARTITION (`inflightTopics`); an illegal name is
    /// INVALID_TOPIC_EXCEPTION and is never forwarded.
    #[test]
    fn a_missing_topic_is_created_once_with_the_broker_defaults() {
        let config =
            BrokerConfig { num_partitions: 4, default_replication_factor: 2, ..BrokerConfig::default() };
        let mut b = broker(config);
        let mut out = Outbox::default();
        let topics: Vec<Arc<str>> = vec!["orders".into(), "bad name".into()];
        let errors = b.topic_metadata_errors(10, &topics, true, &mut out);
        assert_eq!(
            errors,
            vec![
                (Arc::from("orders"), ErrorCode::LeaderNotAvailable),
                (Arc::from("bad name"), ErrorCode::InvalidTopicException)
            ]
        );
        assert_eq!(creations(&out), vec![("orders".to_string(), 4, 2)]);
        let mut again = Outbox::default();
        let errors = b.topic_metadata_errors(20, &topics[..1], true, &mut again);
        assert_eq!(errors, vec![(Arc::from("orders"), ErrorCode::UnknownTopicOrPartition)]);
        assert!(creations(&again).is_empty(), "one creation in flight");
        let later = b.topic_metadata_errors(10 + CREATION_RETRY_MS, &topics[..1], true, &mut again);
        assert_eq!(later, vec![(Arc::from("orders"), ErrorCode::LeaderNotAvailable)]);
    }

    /// Without `allowAutoTopicCreation` in the request, or with `auto.create.topics.enable`
    /// false, a missing topic is UNKNOWN_TOPIC_OR_PARTITION and nothing is created.
    #[test]
    fn no_creation_when_the_request_or_the_broker_forbids_it() {
        let topics: Vec<Arc<str>> = vec!["orders".into()];
        let unknown = vec![(Arc::from("orders"), ErrorCode::UnknownTopicOrPartition)];
        let mut out = Outbox::default();
        let mut b = broker(BrokerConfig::default());
        assert_eq!(b.topic_metadata_errors(10, &topics, false, &mut out), unknown);
        let mut off = broker(BrokerConfig { auto_create_topics_enable: false, ..BrokerConfig::default() });
        assert_eq!(off.topic_metadata_errors(10, &topics, true, &mut out), unknown);
        assert!(creations(&out).is_empty());
    }
}
