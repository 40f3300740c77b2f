//! The cluster's topics in the exact shape `kafka-topics.sh --describe` prints them (Kafka 4.x).
//! Fields are separated by tabs (shown here as `⇥`):
//!
//! ```text
//! Topic: t⇥TopicId: …⇥PartitionCount: 6⇥ReplicationFactor: 3⇥Configs: min.insync.replicas=2
//! ⇥Topic: t⇥Partition: 0⇥Leader: 1⇥Replicas: 1,2,3⇥Isr: 1,2,3⇥Elr: ⇥LastKnownElr:
//! ```
//!
//! `Leader: none` marks an offline partition. While a reassignment runs, `Adding Replicas:` and
//! `Removing Replicas:` follow `Isr:`, as `TopicCommand.PartitionDescription.printDescription`
//! prints them for a partition `listPartitionReassignments` returns. `Elr:` and `LastKnownElr:`
//! list the eligible leader replicas and the last known leader the controller keeps (KIP-966,
//! `DescribeTopicPartitions`); both are empty while the ISR has at least min ISR members, and
//! always with ELR off.

use crate::cluster::snapshot::{PartitionView, Snapshot, TopicView};
use crate::sim::join_ids;

/// Every topic of `snap` in name order, each header followed by its partitions; one line per
/// row, each ending in `\n`.
pub fn describe(snap: &Snapshot) -> String {
    snap.topics.iter().map(|t| topic_block(snap, t)).collect()
}

/// One topic as `kafka-topics.sh --describe --topic T` prints it: its header, then its
/// partitions, each line ending in `\n`; `None` when `snap` has no such topic.
pub fn describe_topic(snap: &Snapshot, topic: &str) -> Option<String> {
    snap.topics.iter().find(|t| *t.name == *topic).map(|t| topic_block(snap, t))
}

fn topic_block(snap: &Snapshot, topic: &TopicView) -> String {
    let mut out = topic_line(topic);
    out.push('\n');
    for p in snap.partitions.iter().filter(|p| *p.tp.topic == *topic.name) {
        out.push_str(&partition_line(p));
        out.push('\n');
    }
    out
}

/// The header line of one topic.
pub fn topic_line(t: &TopicView) -> String {
    format!(
        "Topic: {}\tTopicId: {}\tPartitionCount: {}\tReplicationFactor: {}\tConfigs: {}",
        t.name,
        t.topic_id,
        t.partitions,
        t.replication_factor,
        t.config_overrides.join(",")
    )
}

/// The line of one partition, starting with a tab.
pub fn partition_line(p: &PartitionView) -> String {
    let leader = p.leader.map_or_else(|| "none".to_string(), |b| b.to_string());
    let reassignment = if p.adding.is_empty() && p.removing.is_empty() {
        String::new()
    } else {
        format!("\tAdding Replicas: {}\tRemoving Replicas: {}", join_ids(&p.adding), join_ids(&p.removing))
    };
    format!(
        "\tTopic: {}\tPartition: {}\tLeader: {leader}\tReplicas: {}\tIsr: {}{reassignment}\tElr: {}\tLastKnownElr: {}",
        p.tp.topic,
        p.tp.partition,
        join_ids(&p.replicas),
        join_ids(&p.isr),
        join_ids(&p.elr),
        join_ids(&p.last_known_elr)
    )
}

/// Every partition's state as the ZooKeeper-era `state` znode the seed documents show
/// (`get /brokers/topics/T/partitions/P/state`, R4.9 `TopicPartitionStateZNode`): the znode path,
/// then its JSON. A leaderless partition shows `"leader":-1`. KRaft keeps the same fields in its
/// metadata log; with one controller that never fails over, `controller_epoch` is 1.
pub fn zk_partition_states(snap: &Snapshot) -> String {
    let mut out = String::new();
    for p in &snap.partitions {
        out.push_str(&zk_state_path(p));
        out.push('\n');
        out.push_str(&zk_state_json(p));
        out.push('\n');
    }
    out
}

/// The partition's `state` znode path: `/brokers/topics/T/partitions/P/state`.
pub fn zk_state_path(p: &PartitionView) -> String {
    format!("/brokers/topics/{}/partitions/{}/state", p.tp.topic, p.tp.partition)
}

/// The partition's state as the `state` znode's JSON, fields in the seed documents' order:
/// `{"controller_epoch":1,"leader":0,"version":1,"leader_epoch":0,"isr":[0,1]}`.
pub fn zk_state_json(p: &PartitionView) -> String {
    let isr: Vec<String> = p.isr.iter().map(|b| b.to_string()).collect();
    format!(
        "{{\"controller_epoch\":{ZK_CONTROLLER_EPOCH},\"leader\":{},\"version\":1,\"leader_epoch\":{},\"isr\":[{}]}}",
        p.leader.unwrap_or(-1),
        p.leader_epoch,
        isr.join(",")
    )
}

/// The `controller_epoch` the znode shows: KRaft's equivalent is the metadata quorum's
/// leader epoch, 1 for isrlab's one controller, which never fails over.
pub const ZK_CONTROLLER_EPOCH: i32 = 1;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::snapshot::PartitionHealth;
    use crate::sim::TopicPartition;

    fn topic(name: &str, partitions: u32, configs: &[&str]) -> TopicView {
        TopicView {
            name: name.into(),
            topic_id: format!("{name}Id0000000000000000"),
            partitions,
            replication_factor: 3,
            config_overrides: configs.iter().map(|c| c.to_string()).collect(),
            effective_min_isr: 2,
            unclean_leader_election_enable: false,
        }
    }

    fn partition(topic: &str, n: u32, leader: Option<i32>, replicas: &[i32], isr: &[i32]) -> PartitionView {
        PartitionView {
            tp: TopicPartition::new(topic, n),
            replicas: replicas.to_vec(),
            isr: isr.to_vec(),
            adding: Vec::new(),
            removing: Vec::new(),
            elr: Vec::new(),
            last_known_elr: Vec::new(),
            reassign_bytes_left: None,
            leader,
            leader_epoch: 0,
            partition_epoch: 0,
            hw: 0,
            replica_views: Vec::new(),
            health: PartitionHealth::Healthy,
            effective_min_isr: 2,
            hw_blocked_by: None,
            pending_isr: None,
            acked_lost: 0,
            loss_cause: None,
            leader_recovery_state: Default::default(),
            isr_shrinks: 0,
            isr_expands: 0,
            leader_reach: Default::default(),
            hw_held_by: None,
            parked: Vec::new(),
            truncations: Vec::new(),
        }
    }

    #[test]
    fn matches_kafka_topics_describe() {
        let snap = Snapshot {
            topics: vec![
                topic("a", 1, &[]),
                topic("t", 2, &["min.insync.replicas=2", "unclean.leader.election.enable=true"]),
            ],
            partitions: vec![
                partition("a", 0, Some(3), &[3, 1, 2], &[3, 1, 2]).into(),
                partition("t", 0, Some(1), &[1, 2, 3], &[1, 2]).into(),
                partition("t", 1, None, &[2, 3, 1], &[2]).into(),
            ],
            ..Default::default()
        };
        let expected = "\
Topic: a\tTopicId: aId0000000000000000\tPartitionCount: 1\tReplicationFactor: 3\tConfigs: \n\
\tTopic: a\tPartition: 0\tLeader: 3\tReplicas: 3,1,2\tIsr: 3,1,2\tElr: \tLastKnownElr: \n\
Topic: t\tTopicId: tId0000000000000000\tPartitionCount: 2\tReplicationFactor: 3\tConfigs: min.insync.replicas=2,unclean.leader.election.enable=true\n\
\tTopic: t\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1,2\tElr: \tLastKnownElr: \n\
\tTopic: t\tPartition: 1\tLeader: none\tReplicas: 2,3,1\tIsr: 2\tElr: \tLastKnownElr: \n";
        assert_eq!(describe(&snap), expected);
    }

    /// A reassignment from [1,2,3] to [1,2,4] in progress (KIP-455): replicas are the target
    /// then the removing one, and `TopicCommand` prints the adding and removing lists.
    #[test]
    fn a_reassignment_in_progress_shows_adding_and_removing_replicas() {
        let mut p = partition("t", 0, Some(1), &[1, 2, 4, 3], &[1, 2, 3]);
        p.adding = vec![4];
        p.removing = vec![3];
        assert_eq!(
            partition_line(&p),
            "\tTopic: t\tPartition: 0\tLeader: 1\tReplicas: 1,2,4,3\tIsr: 1,2,3\tAdding Replicas: 4\tRemoving Replicas: 3\tElr: \tLastKnownElr: "
        );
    }

    /// An offline partition with ELR on (KIP-966): the ISR is empty, broker 2 is eligible and
    /// broker 1 was the last leader; `TopicCommand` joins each list with commas.
    #[test]
    fn eligible_leader_replicas_are_listed() {
        let mut p = partition("t", 0, None, &[1, 2, 3], &[]);
        p.elr = vec![1, 2];
        p.last_known_elr = vec![1];
        assert_eq!(
            partition_line(&p),
            "\tTopic: t\tPartition: 0\tLeader: none\tReplicas: 1,2,3\tIsr: \tElr: 1,2\tLastKnownElr: 1"
        );
    }

    #[test]
    fn a_topic_name_that_prefixes_another_keeps_its_own_partitions() {
        let snap = Snapshot {
            topics: vec![topic("t", 1, &[]), topic("t-1", 1, &[])],
            partitions: vec![
                partition("t", 0, Some(1), &[1], &[1]).into(),
                partition("t-1", 0, Some(2), &[2], &[2]).into(),
            ],
            ..Default::default()
        };
        let text = describe(&snap);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4);
        assert!(lines[1].contains("Topic: t\tPartition: 0\tLeader: 1"));
        assert!(lines[3].contains("Topic: t-1\tPartition: 0\tLeader: 2"));
    }

    /// The seed documents' znode JSON, field order included.
    #[test]
    fn zookeeper_state_znodes_like_the_seed() {
        let snap = Snapshot {
            partitions: vec![
                partition("secondTopic", 1, Some(0), &[0, 1], &[0, 1]).into(),
                partition("t", 0, None, &[2], &[2]).into(),
            ],
            ..Default::default()
        };
        let expected = "\
/brokers/topics/secondTopic/partitions/1/state\n\
{\"controller_epoch\":1,\"leader\":0,\"version\":1,\"leader_epoch\":0,\"isr\":[0,1]}\n\
/brokers/topics/t/partitions/0/state\n\
{\"controller_epoch\":1,\"leader\":-1,\"version\":1,\"leader_epoch\":0,\"isr\":[2]}\n";
        assert_eq!(zk_partition_states(&snap), expected);
    }

    #[test]
    fn empty_cluster_prints_nothing() {
        assert_eq!(describe(&Snapshot::default()), "");
    }
}
