//! Builds [`Snapshot`]s from the running world: O(partitions) small fields, no log contents.

use super::snapshot::{
    BrokerStatus, BrokerView, PartitionHealth, PartitionView, ReplicaView, Snapshot, TopicView,
};
use super::world::World;
use crate::sim::broker::Broker;
use crate::sim::protocol::PartitionState;
use crate::sim::{BrokerId, Ms};

/// The semantics profile this build simulates.
pub const SEMANTICS: &str = "KRaft · Kafka 4.0 semantics";

pub(crate) fn snapshot(world: &World) -> Snapshot {
    let now = world.now();
    let controller = world.controller.borrow();
    let broker_config = controller.broker_config().clone();
    let partitions: Vec<PartitionView> =
        controller.partitions().map(|ps| partition_view(world, now, ps)).collect();
    let brokers = world.brokers.keys().map(|&id| broker_view(world, id, &partitions)).collect();
    let topics = controller
        .topics()
        .map(|info| {
            let rf = info.replication_factor as usize;
            TopicView {
                name: info.name.to_string(),
                topic_id: topic_id(world.seed, &info.name),
                partitions: info.partition_count(),
                replication_factor: rf,
                config_overrides: info.config.overrides(),
                effective_min_isr: info.config.effective_min_isr(&broker_config, rf),
                unclean_leader_election_enable: info.config.unclean_leader_election_enable(&broker_config),
            }
        })
        .collect();
    drop(controller);
    let producers = world.producers.borrow().iter().map(|p| p.borrow().view()).collect();
    let ledger = world.ledger.borrow();
    let mut log = world.log.borrow_mut();
    Snapshot {
        seed: world.seed,
        now,
        semantics: SEMANTICS.to_string(),
        brokers,
        topics,
        partitions,
        producers,
        broker_config,
        acked_lost: ledger.lost(),
        duplicates: ledger.duplicates(),
        recent_events: log.recent(),
        event_count: log.count(),
        commands: log.commands(),
        scenario: None,
    }
}

fn broker_view(world: &World, id: BrokerId, partitions: &[PartitionView]) -> BrokerView {
    let core = world.brokers[&id].core.borrow();
    let controller = world.controller.borrow();
    let reg = controller.broker(id);
    let status = match core.down_since() {
        None => BrokerStatus::Up,
        Some((since, true)) => BrokerStatus::Stopped { since },
        Some((since, false)) => BrokerStatus::Crashed { since },
    };
    BrokerView {
        id,
        status,
        fenced: reg.is_none_or(|r| r.fenced),
        in_controlled_shutdown: reg.is_some_and(|r| r.in_controlled_shutdown),
        broker_epoch: core.broker_epoch(),
        leader_count: partitions.iter().filter(|p| p.leader == Some(id)).count(),
        fetch_paused: core.fetch_paused(),
        last_heartbeat: reg.map_or(0, |r| r.last_heartbeat),
    }
}

fn partition_view(world: &World, now: Ms, ps: &PartitionState) -> PartitionView {
    let controller = world.controller.borrow();
    let config = controller.topic(&ps.tp.topic).map(|t| t.config.clone()).unwrap_or_default();
    let min_isr = config.effective_min_isr(controller.broker_config(), ps.replicas.len());
    drop(controller);
    let leader_core = ps.leader.and_then(|l| world.brokers.get(&l)).map(|n| n.core.borrow());
    let leader_part = leader_core.as_ref().and_then(|c| c.partition(&ps.tp).map(|p| (c, p)));
    let replica_views = ps.replicas.iter().map(|&r| replica_view(world, now, ps, r, leader_part)).collect();
    let hw = match leader_part {
        Some((_, p)) => p.log.hw(),
        None => last_known_hw(world, ps),
    };
    let health = if ps.leader.is_none() {
        PartitionHealth::Offline
    } else if ps.isr.len() < min_isr {
        PartitionHealth::UnderMinIsr
    } else if ps.isr.len() < ps.replicas.len() {
        PartitionHealth::UnderReplicated
    } else {
        PartitionHealth::Healthy
    };
    let hw_blocked_by = leader_part.and_then(|(c, p)| p.hw_blocked_by(&c.ctx_for(now, &ps.tp)));
    let pending_isr = leader_part.and_then(|(_, p)| p.pending_isr());
    PartitionView {
        tp: ps.tp.clone(),
        replicas: ps.replicas.clone(),
        isr: ps.isr.clone(),
        leader: ps.leader,
        leader_epoch: ps.leader_epoch,
        partition_epoch: ps.partition_epoch,
        hw,
        replica_views,
        health,
        effective_min_isr: min_isr,
        hw_blocked_by,
        pending_isr,
        acked_lost: world.ledger.borrow().lost_in(&ps.tp),
    }
}

fn last_known_hw(world: &World, ps: &PartitionState) -> i64 {
    ps.replicas
        .iter()
        .filter_map(|r| world.brokers.get(r))
        .filter_map(|n| n.core.borrow().partition(&ps.tp).map(|p| p.log.hw()))
        .max()
        .unwrap_or(0)
}

fn replica_view(
    world: &World,
    now: Ms,
    ps: &PartitionState,
    r: BrokerId,
    leader: Option<(&std::cell::Ref<'_, Broker>, &crate::sim::partition::Partition)>,
) -> ReplicaView {
    let node = world.brokers.get(&r).map(|n| n.core.borrow());
    let part = node.as_ref().and_then(|c| c.partition(&ps.tp));
    let follower = leader
        .filter(|_| ps.leader != Some(r))
        .and_then(|(c, p)| p.follower_view(&c.ctx_for(now, &ps.tp), r));
    ReplicaView {
        broker: r,
        online: node.as_ref().is_some_and(|c| c.is_up()),
        leo: part.map_or(0, |p| p.log.leo()),
        hw: part.map_or(0, |p| p.log.hw()),
        log_start: part.map_or(0, |p| p.log.log_start()),
        epoch_cache: part.map(|p| p.log.epoch_cache().to_vec()).unwrap_or_default(),
        in_isr: ps.isr.contains(&r),
        is_leader: ps.leader == Some(r),
        lag: follower.and_then(|f| f.lag),
        isr_expiry_in: follower.and_then(|f| f.isr_expiry_in),
        caught_up_ago: follower.and_then(|f| f.caught_up_ago),
    }
}

/// A stable 22-character base64url id per (seed, topic), shaped like Kafka's topic ids.
fn topic_id(seed: u64, name: &str) -> String {
    use rand::{RngExt, SeedableRng};
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut h = seed ^ 0x9e37_79b9_7f4a_7c15;
    for b in name.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(h);
    (0..22).map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char).collect()
}
