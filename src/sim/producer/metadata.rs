//! The producer's `Metadata`: what the latest metadata says (pushed by the controller, standing
//! for a Metadata response), the routing copy the producer works from, and when that copy is
//! refreshed (`Metadata.timeToNextUpdate`, `metadata.max.age.ms`, an update asked for after an
//! error or a lost connection), and the Metadata request it sends while its topic is missing,
//! which lets the broker create the topic (`ProducerMetadata` builds its requests with
//! `allowAutoTopicCreation` = true; `KafkaApis.handleTopicMetadataRequest`).

use super::accumulator::PartitionQueue;
use super::{METADATA_MAX_AGE_MS, ProducerClient};
use crate::kafka::errors::ErrorCode;
use crate::sim::protocol::{Message, MetadataDelta, NodeId};
use crate::sim::{Ms, Outbox, TopicPartition};

impl ProducerClient {
    /// Relists every partition that holds something and lists those with a leader again,
    /// after leaders changed.
    pub(super) fn leaders_changed(&mut self) {
        for i in self.holding.snapshot() {
            self.relist(i);
        }
        self.with_leader =
            (0..self.partitions.len()).filter(|&i| self.partitions[i].leader.is_some()).collect();
    }

    pub(super) fn apply_metadata(&mut self, now: Ms, delta: &MetadataDelta) {
        for b in &delta.brokers {
            if b.fenced {
                self.brokers.remove(&b.id);
            } else {
                self.brokers.insert(b.id);
            }
        }
        if delta.partitions.iter().any(|s| s.tp.topic == self.topic) {
            self.topic_in_metadata = true;
        }
        if delta.deleted_topics.contains(&self.topic) {
            self.topic_in_metadata = false;
            // The topic is gone from the metadata: no partition has a leader any more, so
            // batches wait for one until `delivery.timeout.ms` (Java's `Sender` with an
            // unknown leader); a topic created again with the name starts over at epoch 0.
            self.latest.values_mut().for_each(|v| *v = (None, -1));
            for p in &mut self.partitions {
                p.leader = None;
                p.leader_epoch = -1;
            }
            self.leaders_changed();
            self.refresh_wanted = true;
        }
        for state in delta.partitions.iter().filter(|s| s.tp.topic == self.topic) {
            let known = self.latest.get(&state.tp.partition).map_or(-1, |k| k.1);
            if state.leader_epoch >= known {
                self.latest.insert(state.tp.partition, (state.leader, state.leader_epoch));
            }
        }
        if self.last_refresh.is_none() && !self.latest.is_empty() {
            self.refresh_metadata(now);
        }
    }

    /// When the routing copy should next be refreshed (Java's `Metadata.timeToNextUpdate`).
    pub(super) fn metadata_refresh_at(&self) -> Option<Ms> {
        let last = self.last_refresh?;
        if self.refresh_wanted {
            return Some(last);
        }
        let mut at = last + METADATA_MAX_AGE_MS;
        if self.with_leader.len() < self.partitions.len() {
            at = at.min(last + self.config.retry_backoff_ms.max(1));
        }
        Some(at)
    }

    pub(super) fn refresh_if_due(&mut self, now: Ms) {
        if self.metadata_refresh_at().is_some_and(|t| t <= now) {
            self.refresh_metadata(now);
        }
    }

    /// Copies the latest metadata into the routing view.
    pub(super) fn refresh_metadata(&mut self, now: Ms) {
        self.last_refresh = Some(now);
        self.refresh_wanted = false;
        for (&idx, &(leader, epoch)) in &self.latest {
            let idx = idx as usize;
            while self.partitions.len() <= idx {
                let tp = TopicPartition::new(self.topic.clone(), self.partitions.len() as u32);
                self.partitions.push(PartitionQueue::new(tp));
            }
            let p = &mut self.partitions[idx];
            if epoch < p.leader_epoch {
                continue;
            }
            if epoch > p.leader_epoch {
                p.epoch_changed_at = now;
            }
            p.leader = leader;
            p.leader_epoch = epoch;
        }
        self.leaders_changed();
        if !self.partitions.is_empty() {
            while let Some(record) = self.unassigned.pop_front() {
                self.append(record);
            }
        }
    }

    /// Whether the producer must ask a broker for its topic's metadata: the metadata does not
    /// list the topic (never created, or deleted) and records wait for it (Java's
    /// `KafkaProducer.waitOnMetadata` requests an update for a topic it has no partitions of).
    fn wants_topic_metadata(&self) -> bool {
        !self.topic_in_metadata && (!self.unassigned.is_empty() || !self.holding.all.is_empty())
    }

    /// When the next Metadata request for the missing topic is due: at once for the first,
    /// then every `retry.backoff.ms` (Java's `Metadata` backs off from `retry.backoff.ms` up to
    /// `retry.backoff.max.ms` while answers bring nothing new; isrlab keeps the first step).
    pub(super) fn topic_metadata_request_at(&self) -> Option<Ms> {
        if !self.wants_topic_metadata() || self.brokers.is_empty() {
            return None;
        }
        Some(self.topic_request_sent.map_or(0, |t| t + self.config.retry_backoff_ms.max(1)))
    }

    /// Sends the Metadata request for the missing topic when due, to the least loaded broker
    /// (`NetworkClient.leastLoadedNode`: a connected one first, else the lowest id). Its
    /// `allowAutoTopicCreation` is true, as every producer's is: with
    /// `auto.create.topics.enable` the broker has the controller create the topic, which then
    /// reaches the producer with the next metadata.
    pub(super) fn request_topic_metadata(&mut self, now: Ms, out: &mut Outbox) {
        if self.topic_metadata_request_at().is_none_or(|t| t > now) {
            return;
        }
        let connected = self.brokers.iter().copied().find(|&b| self.conns.is_ready(b));
        let Some(broker) = connected.or_else(|| self.brokers.first().copied()) else { return };
        self.topic_request_sent = Some(now);
        let correlation_id = self.next_correlation_id;
        self.next_correlation_id += 1;
        let request = Message::TopicMetadata {
            correlation_id,
            topics: vec![self.topic.clone()],
            allow_auto_topic_creation: true,
        };
        out.send(NodeId::Broker(broker), request);
    }

    /// The errors of a Metadata answer for its topic: counted among the producer's errors
    /// (Java's `NetworkClient` logs "Error while fetching metadata with correlation id ...:
    /// {t=LEADER_NOT_AVAILABLE}"); the records keep waiting.
    pub(super) fn on_topic_metadata_errors(&mut self, now: Ms, errors: &[(std::sync::Arc<str>, ErrorCode)]) {
        for (topic, error) in errors.iter().filter(|(t, _)| *t == self.topic) {
            *self.errors.entry(error.name().to_string()).or_insert(0) += 1;
            let detail = match error {
                ErrorCode::LeaderNotAvailable => {
                    "the broker is creating the topic (auto.create.topics.enable)"
                }
                ErrorCode::UnknownTopicOrPartition => "no such topic, and the broker does not create it",
                _ => "the broker refused the topic",
            };
            self.last_error =
                Some((now, format!("{error} for topic {topic} in a Metadata answer: {detail}")));
        }
    }
}
