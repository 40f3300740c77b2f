//! The producer's `Metadata`: what the latest metadata says (pushed by the controller, standing
//! for a Metadata response), the routing copy the producer works from, and when that copy is
//! refreshed (`Metadata.timeToNextUpdate`, `metadata.max.age.ms`, an update asked for after an
//! error or a lost connection).

use super::accumulator::PartitionQueue;
use super::{METADATA_MAX_AGE_MS, ProducerClient};
use crate::sim::protocol::MetadataDelta;
use crate::sim::{Ms, TopicPartition};

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
        if delta.deleted_topics.contains(&self.topic) {
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
}
