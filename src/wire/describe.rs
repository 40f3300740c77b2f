//! DescribeTopicPartitions (Kafka 3.7+, KIP-966), the request 4.x `kafka-topics.sh
//! --describe` sends: every partition's leader, epoch, replicas, ISR, offline replicas and
//! its eligible leader replicas (ELR) and last known ELR, read from the brokers' metadata as
//! `KRaftMetadataCache.getPartitionMetadataForDescribeTopicResponse` does, paged by a
//! cursor as `DescribeTopicPartitionsRequestHandler` pages them.

use super::handlers::{Closed, Handler, error_code, topic_name};
use super::view::ClusterView;
use crate::kafka::errors::ErrorCode;
use crate::sim::protocol::PartitionState;
use kafka_protocol::messages::{
    DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse,
    describe_topic_partitions_response as resp,
};

impl Handler {
    /// DescribeTopicPartitions v0: the topics asked for (every topic, by name, when none is
    /// named; `UNKNOWN_TOPIC_OR_PARTITION` for a missing one), from the cursor's topic and
    /// partition on, at most `response_partition_limit` partitions, with a cursor to the next
    /// partition when more remain.
    pub(super) async fn describe_topic_partitions(
        &mut self,
        r: DescribeTopicPartitionsRequest,
    ) -> Result<DescribeTopicPartitionsResponse, Closed> {
        let view = self.shared.view().await.ok_or_else(|| Closed("the simulation stopped".into()))?;
        let mut names: Vec<String> = if r.topics.is_empty() {
            view.topics.iter().map(|t| t.name.to_string()).collect()
        } else {
            r.topics.iter().map(|t| t.name.0.to_string()).collect()
        };
        names.sort();
        names.dedup();
        let (start_topic, mut start_partition) = match &r.cursor {
            Some(c) => (c.topic_name.0.to_string(), usize::try_from(c.partition_index).unwrap_or(0)),
            None => (String::new(), 0),
        };
        let mut room = usize::try_from(r.response_partition_limit).unwrap_or(0);
        let mut out = DescribeTopicPartitionsResponse::default();
        for name in names.into_iter().filter(|n| *n >= start_topic) {
            let mut topic = resp::DescribeTopicPartitionsResponseTopic::default();
            topic.name = Some(topic_name(&name));
            topic.topic_authorized_operations = i32::MIN;
            let Some(t) = view.topic(&name) else {
                topic.error_code = error_code(ErrorCode::UnknownTopicOrPartition);
                out.topics.push(topic);
                continue;
            };
            topic.topic_id = uuid::Uuid::from_u128(t.id.bits());
            topic.is_internal = t.internal;
            let first = if name == start_topic { start_partition } else { 0 };
            start_partition = 0;
            for p in t.partitions.iter().skip(first) {
                if room == 0 {
                    let mut cursor = resp::Cursor::default();
                    cursor.topic_name = topic_name(&name);
                    cursor.partition_index = p.tp.partition as i32;
                    out.next_cursor = Some(cursor);
                    break;
                }
                room -= 1;
                topic.partitions.push(partition(&view, p));
            }
            out.topics.push(topic);
            if out.next_cursor.is_some() {
                break;
            }
        }
        Ok(out)
    }
}

/// One partition: the leader whatever its state (`getAliveEndpoint` finds any registered
/// broker), offline replicas those fenced or unregistered, and the ELR and last known ELR of
/// the partition's registration.
fn partition(view: &ClusterView, p: &PartitionState) -> resp::DescribeTopicPartitionsResponsePartition {
    let ids = |v: &[crate::sim::BrokerId]| v.iter().map(|b| (*b).into()).collect::<Vec<_>>();
    let mut m = resp::DescribeTopicPartitionsResponsePartition::default();
    m.partition_index = p.tp.partition as i32;
    m.leader_id = p.leader.unwrap_or(-1).into();
    m.leader_epoch = p.leader_epoch;
    m.replica_nodes = ids(&p.replicas);
    m.isr_nodes = ids(&p.isr);
    m.eligible_leader_replicas = Some(ids(&p.elr));
    m.last_known_elr = Some(ids(&p.last_known_elr));
    m.offline_replicas = p.replicas.iter().filter(|b| !view.is_alive(**b)).map(|b| (*b).into()).collect();
    m
}
