//! A consumer's view of where its partitions are led (Java `ConsumerMetadata`): the latest
//! metadata the controller pushed, and the copy the consumer routes by, refreshed from it
//! only when Java's `Metadata` would ask for an update, as the producer does
//! ([`crate::sim::producer`]): at start, after an error or a lost connection, every
//! `retry.backoff.ms` while a partition has no leader, and every `metadata.max.age.ms`.
//!
//! A deleted topic leaves the metadata: a `MetadataResponse` no longer lists it (its error is
//! UNKNOWN_TOPIC_OR_PARTITION) and `Metadata.update` builds the new cache from the response
//! alone, so the refresh after the deletion drops the topic's partitions. The subscription keeps
//! the topic (`SubscriptionState.subscription` is the topics asked for, not those that exist):
//! were it created again, the next refresh would bring its partitions back.
//!
//! A subscribed topic the metadata does not list is asked for with a Metadata request whose
//! `allowAutoTopicCreation` is `allow.auto.create.topics` (`ConsumerMetadata`, KIP-361): with
//! the broker's `auto.create.topics.enable` the broker has it created
//! ([`crate::sim::broker::Broker::topic_metadata_errors`]).

use crate::sim::producer::METADATA_MAX_AGE_MS;
use crate::sim::protocol::MetadataDelta;
use crate::sim::{BrokerId, Epoch, Ms, TopicPartition};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// A partition's leader (none while offline) and leader epoch.
pub type LeaderAndEpoch = (Option<BrokerId>, Epoch);

/// The consumer's metadata for its topics.
#[derive(Clone, Debug, Default)]
pub struct ClientMetadata {
    topics: BTreeSet<Arc<str>>,
    latest: BTreeMap<TopicPartition, LeaderAndEpoch>,
    routing: BTreeMap<TopicPartition, LeaderAndEpoch>,
    last_refresh: Option<Ms>,
    refresh_wanted: bool,
    /// A push arrived: a subscribed topic it does not list is missing.
    pushed: bool,
    /// The unfenced brokers, where a Metadata request can go.
    brokers: BTreeSet<BrokerId>,
    /// When the last Metadata request for missing topics went out.
    topic_request_sent: Option<Ms>,
}

impl ClientMetadata {
    /// Metadata for `topics`, empty until the first push.
    pub fn new(topics: &[Arc<str>]) -> Self {
        Self { topics: topics.iter().cloned().collect(), ..Default::default() }
    }

    /// Takes in a push; an older leader epoch than known is ignored, a deleted topic's
    /// partitions are forgotten.
    pub fn apply(&mut self, delta: &MetadataDelta) {
        self.pushed = true;
        for b in &delta.brokers {
            if b.fenced {
                self.brokers.remove(&b.id);
            } else {
                self.brokers.insert(b.id);
            }
        }
        for name in delta.deleted_topics.iter().filter(|t| self.topics.contains(*t)) {
            self.latest.retain(|tp, _| tp.topic != *name);
        }
        for state in delta.partitions.iter().filter(|s| self.topics.contains(&s.tp.topic)) {
            let known = self.latest.get(&state.tp).map_or(-1, |k| k.1);
            if state.leader_epoch >= known {
                self.latest.insert(state.tp.clone(), (state.leader, state.leader_epoch));
            }
        }
    }

    /// The subscribed topics the latest metadata does not list (none before the first push).
    pub fn missing_topics(&self) -> Vec<Arc<str>> {
        if !self.pushed {
            return Vec::new();
        }
        let listed: BTreeSet<&Arc<str>> = self.latest.keys().map(|tp| &tp.topic).collect();
        self.topics.iter().filter(|t| !listed.contains(t)).cloned().collect()
    }

    /// When the next Metadata request for missing topics is due: at once for the first, then
    /// every `retry_backoff_ms` while one is missing (Java's `Metadata` backs off up to
    /// `retry.backoff.max.ms`; isrlab keeps the first step).
    pub fn topic_request_at(&self, retry_backoff_ms: Ms) -> Option<Ms> {
        if self.brokers.is_empty() || self.missing_topics().is_empty() {
            return None;
        }
        Some(self.topic_request_sent.map_or(0, |t| t + retry_backoff_ms.max(1)))
    }

    /// Where a Metadata request for the missing topics goes at `now`
    /// (`NetworkClient.leastLoadedNode`: the first broker `connected` accepts, else the lowest
    /// id), and the topics; notes it as sent.
    pub fn take_topic_request(
        &mut self,
        now: Ms,
        connected: impl Fn(BrokerId) -> bool,
    ) -> Option<(BrokerId, Vec<Arc<str>>)> {
        let broker =
            self.brokers.iter().copied().find(|&b| connected(b)).or(self.brokers.first().copied())?;
        self.topic_request_sent = Some(now);
        Some((broker, self.missing_topics()))
    }

    /// Asks for a refresh at the next chance (an error said the metadata is stale).
    pub fn want_refresh(&mut self) {
        self.refresh_wanted = true;
    }

    /// When the routing copy should next be refreshed (`Metadata.timeToNextUpdate`).
    pub fn refresh_at(&self, retry_backoff_ms: Ms) -> Option<Ms> {
        let Some(last) = self.last_refresh else { return (!self.latest.is_empty()).then_some(0) };
        if self.refresh_wanted {
            return Some(last);
        }
        let leaderless = self.routing.values().any(|(l, _)| l.is_none());
        let backoff = if leaderless { retry_backoff_ms.max(1) } else { METADATA_MAX_AGE_MS };
        Some(last + backoff.min(METADATA_MAX_AGE_MS))
    }

    /// Copies the latest metadata into the routing view at `now`; returns the partitions
    /// whose leader epoch went up.
    pub fn refresh(&mut self, now: Ms) -> Vec<TopicPartition> {
        self.last_refresh = Some(now);
        self.refresh_wanted = false;
        let latest = &self.latest;
        self.routing.retain(|tp, _| latest.contains_key(tp));
        let mut newer = Vec::new();
        for (tp, &(leader, epoch)) in &self.latest {
            let known = self.routing.get(tp).map(|r| r.1);
            if known.is_some_and(|k| epoch < k) {
                continue;
            }
            if known.is_some_and(|k| epoch > k) {
                newer.push(tp.clone());
            }
            self.routing.insert(tp.clone(), (leader, epoch));
        }
        newer
    }

    /// The leader and epoch the consumer routes `tp` by (`None`: unknown partition).
    pub fn leader(&self, tp: &TopicPartition) -> Option<LeaderAndEpoch> {
        self.routing.get(tp).copied()
    }

    /// The topics the routing view has partitions of.
    pub fn topics_known(&self) -> BTreeSet<Arc<str>> {
        self.routing.keys().map(|tp| tp.topic.clone()).collect()
    }

    /// Every partition of its topics it knows, in (topic, partition) order.
    pub fn partitions(&self) -> Vec<TopicPartition> {
        self.routing.keys().cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::protocol::{LeaderRecoveryState, PartitionState};

    fn state(topic: &str, partition: u32, leader: BrokerId) -> PartitionState {
        PartitionState {
            topic_id: crate::sim::TopicId::from_bits(7),
            tp: TopicPartition::new(topic, partition),
            replicas: vec![leader],
            isr: vec![leader],
            leader: Some(leader),
            leader_epoch: 0,
            partition_epoch: 0,
            leader_recovery: LeaderRecoveryState::Recovered,
            adding: vec![],
            removing: vec![],
            elr: Vec::new(),
            last_known_elr: Vec::new(),
        }
    }

    /// A deleted topic's partitions leave the routing view at the next refresh, and come back
    /// if the topic is created again (the subscription keeps it).
    #[test]
    fn a_deleted_topic_leaves_at_the_next_refresh() {
        let mut m = ClientMetadata::new(&[Arc::from("t"), Arc::from("u")]);
        let push = MetadataDelta {
            partitions: vec![state("t", 0, 1), state("t", 1, 2), state("u", 0, 1)],
            ..Default::default()
        };
        m.apply(&push);
        m.refresh(0);
        assert_eq!(m.partitions().len(), 3);
        m.apply(&MetadataDelta { deleted_topics: vec![Arc::from("t")], ..Default::default() });
        assert_eq!(m.partitions().len(), 3, "routing changes only at a refresh");
        m.want_refresh();
        assert_eq!(m.refresh_at(100), Some(0));
        m.refresh(10);
        assert_eq!(m.partitions(), vec![TopicPartition::new("u", 0)]);
        assert_eq!(m.leader(&TopicPartition::new("t", 0)), None);
        m.apply(&MetadataDelta { partitions: vec![state("t", 0, 3)], ..Default::default() });
        m.refresh(20);
        assert_eq!(m.leader(&TopicPartition::new("t", 0)), Some((Some(3), 0)));
    }
}
