//! Publishing the controller's changes: Kafka's controller appends records to the metadata log
//! and every broker replays them into its `MetadataImage`. Here each entry point queues its
//! changes in one pending [`MetadataDelta`] (latest state per broker and partition wins), and
//! [`QuorumController::flush`] sends it as one [`Message::Metadata`] to every broker that ever
//! registered and every client, and replays it into the image the controller publishes.

use super::QuorumController;
use super::cluster_control::BrokerInfo;
use crate::sim::image::MetadataImage;
use crate::sim::protocol::{Message, MetadataDelta, NodeId, PartitionState};
use crate::sim::{BrokerId, Outbox};
use std::sync::Arc;

impl QuorumController {
    /// Adds a client node (a producer) that receives every metadata broadcast from now on.
    pub fn add_client(&mut self, node: NodeId) {
        if !self.clients.contains(&node) {
            self.clients.push(node);
        }
    }

    /// Everything a broker must know: every registered broker, every partition, every topic's
    /// config and the broker config (what a registering broker gets, R6.1).
    pub fn full_image(&self) -> MetadataDelta {
        MetadataDelta {
            brokers: self.brokers.values().filter(|b| b.registered).map(BrokerInfo::registration).collect(),
            partitions: self.partitions().cloned().collect(),
            topic_configs: self.topics.values().map(|t| (t.name.clone(), t.config.clone())).collect(),
            broker_config: Some(Arc::new(self.config.clone())),
            deleted_topics: Vec::new(),
            offset: 0,
        }
    }

    /// The metadata as published so far: every delta this controller has broadcast, replayed
    /// (Kafka's `MetadataImage` as of the last committed offset). Readers outside the
    /// controller (snapshots, the audit ledger) use this, as brokers and clients do.
    pub fn image(&self) -> &MetadataImage {
        &self.published
    }

    /// Queues a broker's registration for the next broadcast (latest wins).
    pub(super) fn note_broker(&mut self, id: BrokerId) {
        let Some(reg) = self.brokers.get(&id).map(BrokerInfo::registration) else { return };
        match self.pending.brokers.iter_mut().find(|r| r.id == id) {
            Some(slot) => *slot = reg,
            None => self.pending.brokers.push(reg),
        }
    }

    /// Queues a partition state for the next broadcast (latest wins).
    pub(super) fn note_partition(&mut self, state: PartitionState) {
        match self.pending.partitions.iter_mut().find(|p| p.tp == state.tp) {
            Some(slot) => *slot = state,
            None => self.pending.partitions.push(state),
        }
    }

    /// Sends the queued changes, if any, to every broker that ever registered and every client.
    pub(super) fn flush(&mut self, out: &mut Outbox) {
        let d = &self.pending;
        if d.brokers.is_empty()
            && d.partitions.is_empty()
            && d.topic_configs.is_empty()
            && d.broker_config.is_none()
            && d.deleted_topics.is_empty()
        {
            return;
        }
        let delta = std::mem::take(&mut self.pending);
        self.published.apply(&delta);
        let targets = self
            .brokers
            .values()
            .filter(|b| b.registered)
            .map(|b| NodeId::Broker(b.id))
            .chain(self.clients.iter().copied());
        for to in targets {
            out.send(to, Message::Metadata(delta.clone()));
        }
    }
}
