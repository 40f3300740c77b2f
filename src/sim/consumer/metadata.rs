//! A consumer's view of where its partitions are led (Java `ConsumerMetadata`): the latest
//! metadata the controller pushed, and the copy the consumer routes by, refreshed from it
//! only when Java's `Metadata` would ask for an update, as the producer does
//! ([`crate::sim::producer`]): at start, after an error or a lost connection, every
//! `retry.backoff.ms` while a partition has no leader, and every `metadata.max.age.ms`.

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
}

impl ClientMetadata {
    /// Metadata for `topics`, empty until the first push.
    pub fn new(topics: &[Arc<str>]) -> Self {
        Self { topics: topics.iter().cloned().collect(), ..Default::default() }
    }

    /// Takes in a push; an older leader epoch than known is ignored.
    pub fn apply(&mut self, delta: &MetadataDelta) {
        for state in delta.partitions.iter().filter(|s| self.topics.contains(&s.tp.topic)) {
            let known = self.latest.get(&state.tp).map_or(-1, |k| k.1);
            if state.leader_epoch >= known {
                self.latest.insert(state.tp.clone(), (state.leader, state.leader_epoch));
            }
        }
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

    /// Every partition of its topics it knows, in (topic, partition) order.
    pub fn partitions(&self) -> Vec<TopicPartition> {
        self.routing.keys().cloned().collect()
    }
}
