//! Log matching across replicas, for `isrlab check`: every replica's log must agree with its
//! leader's on each offset both have committed (below both HWs). Kafka's replication
//! guarantees it through leader epochs and follower truncation (KIP-101, KIP-279;
//! `AbstractFetcherThread.truncateToEpochEndOffsets`, rule book R7.5): a follower whose log
//! differs at an offset below its HW holds a committed record the leader does not.

use super::world::World;
use crate::sim::log::PartitionLog;
use crate::sim::{BrokerId, Offset, TopicPartition};
use std::collections::BTreeMap;

/// A replica whose committed prefix differs from its leader's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// The partition.
    pub tp: TopicPartition,
    /// The leader (its log decides).
    pub leader: BrokerId,
    /// The replica that differs.
    pub replica: BrokerId,
    /// The first offset, below both HWs, where the two logs hold different records.
    pub offset: Offset,
}

/// Each follower in the ISR that differs from its partition's leader below both HWs.
pub(crate) fn diverged_replicas(world: &World) -> Vec<Divergence> {
    let brokers = world.brokers();
    let mut logs: BTreeMap<TopicPartition, Vec<(BrokerId, bool)>> = BTreeMap::new();
    for (id, core) in &brokers {
        let core = core.borrow();
        for (tp, p) in core.partitions() {
            logs.entry(tp.clone()).or_default().push((*id, p.is_leader()));
        }
    }
    let mut found = Vec::new();
    for (tp, replicas) in logs {
        let state = world.with_image(|image| image.partition(&tp).map(|p| (p.leader, p.isr.clone())));
        let Some((Some(leader), isr)) = state else { continue };
        let Some(leader_core) = brokers.iter().find(|(id, _)| *id == leader).map(|(_, c)| c.borrow()) else {
            continue;
        };
        let Some(leader_log) = leader_core.partition(&tp).map(|p| &p.log) else { continue };
        for (replica, _) in replicas.iter().filter(|(id, _)| *id != leader && isr.contains(id)) {
            let Some((_, core)) = brokers.iter().find(|(id, _)| id == replica) else { continue };
            let core = core.borrow();
            let Some(log) = core.partition(&tp).map(|p| &p.log) else { continue };
            if let Some(offset) = first_difference(leader_log, log) {
                found.push(Divergence { tp: tp.clone(), leader, replica: *replica, offset });
            }
        }
    }
    found
}

/// The first offset below both logs' HWs (and above both log starts) where they differ.
fn first_difference(a: &PartitionLog, b: &PartitionLog) -> Option<Offset> {
    let (from, to) = (a.log_start().max(b.log_start()), a.hw().min(b.hw()));
    let values = |log: &PartitionLog| {
        let mut v = Vec::with_capacity((to - from).max(0) as usize);
        for batch in log.batches_from(from).take_while(|batch| batch.base_offset < to) {
            for o in batch.base_offset.max(from)..batch.next_offset().min(to) {
                v.push((o, batch.value_at(o)));
            }
        }
        v
    };
    let (va, vb) = (values(a), values(b));
    va.iter().zip(&vb).find(|(x, y)| x != y).map(|(x, _)| x.0).or_else(|| {
        // One log has a gap the other fills: they differ at the first offset not shared.
        (va.len() != vb.len()).then(|| va.len().min(vb.len()) as Offset + from)
    })
}
