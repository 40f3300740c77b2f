//! A broker's part in consumer groups:
//! - FindCoordinator (`KafkaApis.getCoordinator`): the leader of the group's
//!   `__consumer_offsets` partition if it is alive; `COORDINATOR_NOT_AVAILABLE` otherwise, and
//!   when the topic does not exist yet, after forwarding its creation to the controller
//!   (`AutoTopicCreationManager.createTopics` with `offsets.topic.num.partitions` and
//!   `offsets.topic.replication.factor`, one creation in flight at a time).
//! - Hosting the [`GroupCoordinator`] of the offsets partitions this broker leads: it loads a
//!   partition's groups when it becomes leader and unloads them when it stops leading
//!   (`GroupCoordinatorService.onElection` / `onResignation`), appends its records to the
//!   leader log ([`Partition::append_as_coordinator`]) and tells it each HW change.
//!
//! The coordinator lives in memory: a crash forgets it, and the new leader reloads from its log.

use super::Broker;
use crate::kafka::errors::ErrorCode;
use crate::sim::group::book::OffsetsBook;
use crate::sim::group::coordinator::{GroupCoordinator, GroupOutbox};
use crate::sim::group::messages::{GroupRequest, GroupResponse, OffsetsRecord};
use crate::sim::group::{GroupCoordinatorConfig, OFFSETS_TOPIC, partition_for};
use crate::sim::protocol::{Batch, Message, NodeId, PartitionState};
use crate::sim::{BrokerId, Ms, Outbox, TopicPartition};
use std::collections::{BTreeMap, BTreeSet};

/// How long a forwarded auto-creation counts as in flight before a FindCoordinator may
/// forward it again (ms): the broker's channel to the controller times out after
/// `request.timeout.ms` (`NodeToControllerChannelManager`); the controller's answer is not
/// modelled, so a failed creation is retried after this.
pub const CREATION_RETRY_MS: Ms = 1000;

/// Record size of a `__consumer_offsets` record (bytes): an `OffsetCommitKey` with a short
/// group id, topic and partition, and an `OffsetCommitValue`, about 100 bytes.
pub const OFFSETS_RECORD_BYTES: u32 = 100;

/// The broker's group state.
#[derive(Clone, Debug, Default)]
pub(super) struct GroupHost {
    coordinator: Option<GroupCoordinator>,
    /// Leader of each `__consumer_offsets` partition, as the metadata says.
    leaders: BTreeMap<u32, Option<BrokerId>>,
    /// Offsets partitions whose replica here changed since the coordinator last looked.
    dirty: BTreeSet<u32>,
    book: OffsetsBook,
    /// When the last auto-creation was forwarded.
    creation_sent: Option<Ms>,
    /// The correlation id of each client's latest request per API, for the answers.
    correlations: BTreeMap<(u32, &'static str), u64>,
}

impl GroupHost {
    /// Forgets everything held in memory (a crash); the book stays, it stands for log bytes.
    pub(super) fn crash(&mut self) {
        let book = self.book.clone();
        *self = GroupHost { book, ..GroupHost::default() };
    }

    /// Uses the cluster's shared record book.
    pub(super) fn set_book(&mut self, book: OffsetsBook) {
        self.book = book;
    }

    /// Notes a partition state from the metadata.
    pub(super) fn note_partition(&mut self, ps: &PartitionState) {
        if &*ps.tp.topic == OFFSETS_TOPIC {
            self.leaders.insert(ps.tp.partition, ps.leader);
            self.dirty.insert(ps.tp.partition);
        }
    }

    /// Notes that this broker's replica of `tp` changed.
    pub(super) fn note_changed(&mut self, tp: &TopicPartition) {
        if &*tp.topic == OFFSETS_TOPIC {
            self.dirty.insert(tp.partition);
        }
    }

    /// The coordinator, if this broker has one.
    pub(super) fn coordinator(&self) -> Option<&GroupCoordinator> {
        self.coordinator.as_ref()
    }

    /// When the coordinator's next timer fires (ms).
    pub(super) fn next_deadline(&self) -> Option<Ms> {
        self.coordinator.as_ref().and_then(GroupCoordinator::next_deadline)
    }
}

fn response_api(r: &GroupResponse) -> &'static str {
    match r {
        GroupResponse::FindCoordinator { .. } => "FindCoordinator",
        GroupResponse::Join(_) => "JoinGroup",
        GroupResponse::Sync { .. } => "SyncGroup",
        GroupResponse::Heartbeat { .. } => "Heartbeat",
        GroupResponse::Leave { .. } => "LeaveGroup",
        GroupResponse::Commit { .. } => "OffsetCommit",
        GroupResponse::FetchOffsets { .. } => "OffsetFetch",
    }
}

impl Broker {
    /// Shares the cluster's `__consumer_offsets` record book with this broker.
    pub fn set_offsets_book(&mut self, book: OffsetsBook) {
        self.groups.set_book(book);
    }

    /// This broker's group coordinator, if it has one (it created one once
    /// `__consumer_offsets` existed).
    pub fn group_coordinator(&self) -> Option<&GroupCoordinator> {
        self.groups.coordinator()
    }

    /// A group request from a consumer.
    pub(super) fn on_group_request(
        &mut self,
        now: Ms,
        from: NodeId,
        correlation_id: u64,
        request: GroupRequest,
        out: &mut Outbox,
    ) {
        let Some(client) = crate::sim::protocol::group_client(from) else { return };
        self.groups.correlations.insert((client, request.api_name()), correlation_id);
        if let GroupRequest::FindCoordinator { group } = &request {
            let (error, coordinator) = match self.find_coordinator(now, group, out) {
                Ok(b) => (None, Some(b)),
                Err(e) => (Some(e), None),
            };
            let response = GroupResponse::FindCoordinator { group: group.clone(), error, coordinator };
            out.send(from, Message::GroupResponse { correlation_id, response: Box::new(response) });
            return;
        }
        let mut g = GroupOutbox::default();
        self.ensure_coordinator();
        match self.groups.coordinator.as_mut() {
            Some(c) => c.handle(now, client, request, &mut g),
            None => {
                // No `__consumer_offsets` here yet: not this broker's group.
                let mut c = GroupCoordinator::new(self.id, GroupCoordinatorConfig::default(), 1);
                c.handle(now, client, request, &mut g);
            }
        }
        self.drain_group_outbox(now, g, out);
    }

    /// `KafkaApis.getCoordinator` for a group.
    fn find_coordinator(&mut self, now: Ms, group: &str, out: &mut Outbox) -> Result<BrokerId, ErrorCode> {
        if self.groups.leaders.is_empty() {
            self.forward_offsets_topic_creation(now, out);
            return Err(ErrorCode::CoordinatorNotAvailable);
        }
        let partition = partition_for(group, self.groups.leaders.len() as u32);
        let leader = self.groups.leaders.get(&partition).copied().flatten();
        let alive = |b: BrokerId| self.brokers.get(&b).is_some_and(|r| !r.fenced);
        leader.filter(|&b| alive(b)).ok_or(ErrorCode::CoordinatorNotAvailable)
    }

    /// Forwards the creation of `__consumer_offsets` to the controller, once per
    /// [`CREATION_RETRY_MS`].
    fn forward_offsets_topic_creation(&mut self, now: Ms, out: &mut Outbox) {
        if self.groups.creation_sent.is_some_and(|t| now < t + CREATION_RETRY_MS) {
            return;
        }
        self.groups.creation_sent = Some(now);
        let spec = self.creatable_topic(OFFSETS_TOPIC);
        out.send(NodeId::ActiveController, Message::AutoCreateTopic(Box::new(spec)));
    }

    /// Creates the coordinator once the offsets topic is known.
    fn ensure_coordinator(&mut self) {
        if self.groups.coordinator.is_none() && !self.groups.leaders.is_empty() {
            let config = GroupCoordinatorConfig::from_broker(&self.config);
            let n = self.groups.leaders.len() as u32;
            self.groups.coordinator = Some(GroupCoordinator::new(self.id, config, n));
        }
    }

    /// Loads, unloads and tells the HW for every offsets partition that changed here.
    pub(super) fn sync_groups(&mut self, now: Ms, out: &mut Outbox) {
        if self.groups.dirty.is_empty() {
            return;
        }
        self.ensure_coordinator();
        let dirty = std::mem::take(&mut self.groups.dirty);
        let mut g = GroupOutbox::default();
        for partition in dirty {
            let tp = TopicPartition::new(OFFSETS_TOPIC, partition);
            let (leading, hw) = self.partitions.get(&tp).map_or((false, 0), |p| (p.is_leader(), p.log.hw()));
            let records = if leading { self.offsets_records(&tp) } else { vec![] };
            let Some(c) = self.groups.coordinator.as_mut() else { return };
            let loaded = c.loaded_partitions().any(|p| p == partition);
            match (leading, loaded) {
                (true, false) => c.load(now, partition, &records, hw, &mut g),
                (false, true) => c.unload(partition, &mut g),
                (true, true) => c.on_high_watermark(now, partition, hw, &mut g),
                (false, false) => {}
            }
        }
        self.drain_group_outbox(now, g, out);
    }

    /// `__consumer_offsets` was deleted (Kafka refuses no such delete: neither
    /// `ControllerApis.deleteTopics` nor `ReplicationControlManager.deleteTopic` checks
    /// `Topic.isInternal`). The coordinator resigns every partition it led
    /// (`BrokerMetadataPublisher.updateCoordinator`: `topicWasDeleted` → `onResignation`), and the
    /// broker forgets the topic's leaders, so the next FindCoordinator forwards its creation
    /// again (`KafkaApis.getCoordinator`: no metadata for the topic → `createTopics`) and the
    /// groups start over on the new, empty topic.
    pub(super) fn offsets_topic_deleted(&mut self, now: Ms, out: &mut Outbox) {
        let mut g = GroupOutbox::default();
        if let Some(c) = self.groups.coordinator.as_mut() {
            let loaded: Vec<u32> = c.loaded_partitions().collect();
            loaded.into_iter().for_each(|p| c.unload(p, &mut g));
        }
        self.drain_group_outbox(now, g, out);
        self.groups.coordinator = None;
        self.groups.leaders.clear();
        self.groups.dirty.clear();
        self.groups.creation_sent = None;
    }

    /// Topic `topic` (not `__consumer_offsets`) was deleted: the coordinator drops the
    /// groups' committed offsets of it and writes their tombstones
    /// ([`GroupCoordinator::on_topic_deleted`]).
    pub(super) fn groups_topic_deleted(&mut self, now: Ms, topic: &str, out: &mut Outbox) {
        let mut g = GroupOutbox::default();
        if let Some(c) = self.groups.coordinator.as_mut() {
            c.on_topic_deleted(now, topic, &mut g);
        }
        self.drain_group_outbox(now, g, out);
    }

    /// Fires the coordinator's timers.
    pub(super) fn tick_groups(&mut self, now: Ms, out: &mut Outbox) {
        let mut g = GroupOutbox::default();
        if let Some(c) = self.groups.coordinator.as_mut() {
            c.on_tick(now, &mut g);
        }
        self.drain_group_outbox(now, g, out);
    }

    /// The records in this broker's replica of an offsets partition, in offset order.
    fn offsets_records(&self, tp: &TopicPartition) -> Vec<OffsetsRecord> {
        let Some(p) = self.partitions.get(tp) else { return vec![] };
        let book = &self.groups.book;
        let start = p.log.log_start();
        p.log
            .batches_from(start)
            .flat_map(|b| b.values.iter().collect::<Vec<u64>>())
            .filter_map(|v| book.get(v))
            .collect()
    }

    /// Sends the coordinator's answers, appends its records and feeds the append results
    /// back, until nothing more comes out.
    fn drain_group_outbox(&mut self, now: Ms, mut g: GroupOutbox, out: &mut Outbox) {
        loop {
            for e in g.events.drain(..) {
                out.emit(crate::sim::events::EventKind::Group(e));
            }
            for (client, response) in g.responses.drain(..) {
                let correlation_id =
                    self.groups.correlations.get(&(client, response_api(&response))).copied().unwrap_or(0);
                let response = Box::new(response);
                let to = crate::sim::protocol::group_client_node(client);
                out.send(to, Message::GroupResponse { correlation_id, response });
            }
            let appends = std::mem::take(&mut g.appends);
            if appends.is_empty() {
                return;
            }
            for append in appends {
                let tp = TopicPartition::new(OFFSETS_TOPIC, append.partition);
                let batch = Batch {
                    producer_id: -1,
                    base_sequence: -1,
                    values: self.groups.book.add(append.records),
                    record_size: OFFSETS_RECORD_BYTES,
                    max_timestamp: now,
                };
                let result = self
                    .touch(now, &tp, |p, ctx| p.append_as_coordinator(ctx, &batch, out))
                    .unwrap_or(Err(ErrorCode::NotLeaderOrFollower));
                if let Some(c) = self.groups.coordinator.as_mut() {
                    c.appended(now, append.write, result, &mut g);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::BrokerConfig;
    use crate::sim::protocol::{BrokerRegistration, LeaderRecoveryState, MetadataDelta};

    fn offsets_state(
        partition: u32,
        isr: &[BrokerId],
        leader: Option<BrokerId>,
        epoch: i32,
    ) -> PartitionState {
        PartitionState {
            topic_id: crate::sim::TopicId::from_bits(7),
            tp: TopicPartition::new(OFFSETS_TOPIC, partition),
            replicas: vec![0, 1],
            isr: isr.to_vec(),
            leader,
            leader_epoch: epoch,
            partition_epoch: epoch,
            leader_recovery: LeaderRecoveryState::Recovered,
            adding: vec![],
            removing: vec![],
            elr: Vec::new(),
            last_known_elr: Vec::new(),
        }
    }

    fn reg(id: BrokerId) -> BrokerRegistration {
        BrokerRegistration { id, broker_epoch: 1, fenced: false, in_controlled_shutdown: false }
    }

    fn group(b: &mut Broker, now: Ms, request: GroupRequest) -> Outbox {
        let mut out = Outbox::default();
        b.handle(
            now,
            NodeId::Consumer(0),
            Message::Group { correlation_id: 7, request: Box::new(request) },
            &mut out,
        );
        out
    }

    fn answers(out: &Outbox) -> Vec<GroupResponse> {
        out.sends
            .iter()
            .filter_map(|(to, m)| match m {
                Message::GroupResponse { correlation_id: 7, response } if *to == NodeId::Consumer(0) => {
                    Some((**response).clone())
                }
                _ => None,
            })
            .collect()
    }

    #[test]
    fn find_coordinator_forwards_the_creation_of_the_offsets_topic() {
        let mut b = Broker::new(0, BrokerConfig::default());
        b.start_bootstrapped(
            0,
            1,
            &MetadataDelta { brokers: vec![reg(0)], ..Default::default() },
            &mut Outbox::default(),
        );
        let out = group(&mut b, 10, GroupRequest::FindCoordinator { group: "g".into() });
        assert_eq!(
            answers(&out),
            [GroupResponse::FindCoordinator {
                group: "g".into(),
                error: Some(ErrorCode::CoordinatorNotAvailable),
                coordinator: None
            }]
        );
        let created: Vec<&crate::sim::spec::TopicSpec> = out
            .sends
            .iter()
            .filter_map(|(to, m)| match m {
                Message::AutoCreateTopic(s) if *to == NodeId::ActiveController => Some(&**s),
                _ => None,
            })
            .collect();
        assert_eq!(created.len(), 1);
        assert_eq!((created[0].partitions, created[0].replication_factor), (50, 3));
        let again = group(&mut b, 20, GroupRequest::FindCoordinator { group: "g".into() });
        assert!(!again.sends.iter().any(|(_, m)| matches!(m, Message::AutoCreateTopic(_))), "one in flight");
    }

    /// Broker 0 leads the one-partition `__consumer_offsets` with follower 1 in the ISR: the
    /// group's commit waits for the HW, which needs the follower.
    #[test]
    fn the_leader_coordinates_and_commits_wait_for_the_hw() {
        let mut b = Broker::new(0, BrokerConfig::default());
        let image = MetadataDelta {
            brokers: vec![reg(0), reg(1)],
            partitions: vec![offsets_state(0, &[0, 1], Some(0), 0)],
            ..Default::default()
        };
        let mut out = Outbox::default();
        b.start_bootstrapped(0, 1, &image, &mut out);
        b.handle(1, NodeId::Controller(3000), Message::Metadata(MetadataDelta::default()), &mut out);
        assert!(b.group_coordinator().is_some_and(|c| c.is_coordinator_for("g")));
        let found = answers(&group(&mut b, 10, GroupRequest::FindCoordinator { group: "g".into() }));
        assert!(matches!(&found[0], GroupResponse::FindCoordinator { coordinator: Some(0), .. }));
        let commit = GroupRequest::Commit {
            group: "g".into(),
            member: "".into(),
            generation: -1,
            offsets: vec![(TopicPartition::new("t", 0), crate::sim::consumer::OffsetAndEpoch::at(5))],
        };
        let out = group(&mut b, 20, commit);
        assert!(answers(&out).is_empty(), "waits for the follower to fetch the record");
        let tp = TopicPartition::new(OFFSETS_TOPIC, 0);
        assert_eq!(b.partition(&tp).unwrap().log.leo(), 1);
        let mut out = Outbox::default();
        b.on_tick(5020, &mut out);
        assert!(answers(&out).iter().any(|r| matches!(
            r,
            GroupResponse::Commit { error: Some(ErrorCode::CoordinatorNotAvailable), .. }
        )));
    }
}
