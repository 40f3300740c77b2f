//! Builds [`Snapshot`]s from the running world: O(partitions) small fields, no log contents.
//! Partition state comes from the controller's published [`MetadataImage`], process state from
//! the node registry, replica state from the broker cores.

use super::node::ProcessState;
use super::snapshot::{
    BrokerStatus, BrokerView, PartitionHealth, PartitionView, Reach, ReplicaView, Snapshot, TopicView,
};
use super::world::World;
use crate::config::BrokerConfig;
use crate::sim::broker::Broker;
use crate::sim::controller::QuorumController;
use crate::sim::image::{MetadataImage, TopicImage};
use crate::sim::protocol::{NodeId, PartitionState};
use crate::sim::{BrokerId, Ms};
use std::cell::{Ref, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

pub(crate) fn snapshot(world: &World) -> Snapshot {
    let controller = world.controller();
    let controller = controller.borrow();
    let cores = world.brokers().into_iter().collect();
    let o = Observer { world, now: world.now(), image: controller.image(), cores };
    let broker_config = o.image.broker_config().clone();
    let partitions: Vec<PartitionView> = o.image.partitions().map(|ps| o.partition_view(ps)).collect();
    let brokers = o.cores.keys().map(|&id| o.broker_view(id, &controller, &partitions)).collect();
    let topics = o.image.topics().map(|t| topic_view(world.seed, t, &broker_config)).collect();
    let producers = world.producers().iter().map(|p| p.borrow().view()).collect();
    let ledger = world.ledger.borrow();
    let mut log = world.log.borrow_mut();
    Snapshot {
        seed: world.seed,
        now: o.now,
        now_us: world.now_us(),
        semantics: broker_config.semantics,
        brokers,
        topics,
        partitions,
        producers,
        broker_config: world.server_properties.borrow().clone(),
        rolling: world.rolling.get(),
        acked_lost: ledger.lost(),
        duplicates: ledger.duplicates(),
        recent_events: log.recent(),
        event_count: log.count(),
        commands: log.commands(),
        scenario: None,
    }
}

fn topic_view(seed: u64, t: &TopicImage, broker_config: &BrokerConfig) -> TopicView {
    let rf = t.replication_factor();
    TopicView {
        name: t.name.to_string(),
        topic_id: topic_id(seed, &t.name),
        partitions: t.partition_count(),
        replication_factor: rf,
        config_overrides: t.config.overrides(),
        effective_min_isr: t.config.effective_min_isr(broker_config, rf),
        unclean_leader_election_enable: t.config.unclean_leader_election_enable(broker_config),
    }
}

/// What one snapshot reads: partition state from the published metadata image, replica state
/// from the broker cores (their logs are on disk even while they are down).
struct Observer<'a> {
    world: &'a World,
    now: Ms,
    image: &'a MetadataImage,
    cores: BTreeMap<BrokerId, Rc<RefCell<Broker>>>,
}

impl Observer<'_> {
    /// The static properties set since broker `id` started, while the config it runs with
    /// differs from `server.properties` in a static property.
    fn restart_pending(&self, id: BrokerId, running: &BrokerConfig) -> Vec<String> {
        let stored = self.world.server_properties.borrow();
        if running.with_dynamic_from(&stored) == *stored {
            return Vec::new();
        }
        let pending = self.world.restart_pending.borrow();
        pending.get(&id).map_or_else(Vec::new, |names| names.iter().map(|n| n.to_string()).collect())
    }

    fn broker_view(
        &self,
        id: BrokerId,
        controller: &QuorumController,
        partitions: &[PartitionView],
    ) -> BrokerView {
        let core = self.cores[&id].borrow();
        let reg = self.image.broker(id);
        let node = self.world.node(NodeId::Broker(id));
        let state = node.as_ref().map_or(ProcessState::Running, |n| n.state.get());
        let frozen = node.as_ref().and_then(|n| n.frozen.get());
        let status = match state {
            ProcessState::Running | ProcessState::ShuttingDown if frozen.is_some() => {
                BrokerStatus::Frozen { since: frozen.map_or(0, |f| f.since) }
            }
            ProcessState::Running | ProcessState::ShuttingDown => BrokerStatus::Up,
            ProcessState::PoweredOff { since } => BrokerStatus::PoweredOff { since },
            ProcessState::Stopped { since } => BrokerStatus::Stopped { since },
            ProcessState::Crashed { since } => BrokerStatus::Crashed { since },
        };
        BrokerView {
            id,
            status,
            fenced: reg.is_none_or(|r| r.fenced),
            in_controlled_shutdown: reg.is_some_and(|r| r.in_controlled_shutdown),
            broker_epoch: core.broker_epoch(),
            leader_count: partitions.iter().filter(|p| p.leader == Some(id)).count(),
            fetch_paused: core.fetch_paused(),
            // The heartbeat manager's clock is controller-local state, not metadata.
            last_heartbeat: controller.broker(id).map_or(0, |r| r.last_heartbeat),
            restart_pending: self.restart_pending(id, core.config()),
            reach: self.reach(id),
        }
    }

    /// Whether broker `id`'s links to the controller and to the other brokers are blocked
    /// (cut or held).
    fn reach(&self, id: BrokerId) -> Reach {
        let me = NodeId::Broker(id);
        let blocked = |from, to| {
            let f = self.world.net.faults(from, to);
            f.cut || f.held
        };
        let others = self.cores.keys().filter(|&&b| b != id).map(|&b| NodeId::Broker(b));
        let peers: Vec<NodeId> = others.chain(std::iter::once(NodeId::Controller)).collect();
        if peers.iter().all(|&p| blocked(me, p) && blocked(p, me)) {
            Reach::Isolated
        } else if blocked(me, NodeId::Controller) {
            Reach::NoController
        } else {
            Reach::Controller
        }
    }

    fn partition_view(&self, ps: &PartitionState) -> PartitionView {
        let config = self.image.topic(&ps.tp.topic).map(|t| t.config.clone()).unwrap_or_default();
        let min_isr = config.effective_min_isr(self.image.broker_config(), ps.replicas.len());
        let leader_core = ps.leader.and_then(|l| self.cores.get(&l)).map(|c| c.borrow());
        let leader_part = leader_core.as_ref().and_then(|c| c.partition(&ps.tp).map(|p| (c, p)));
        let replica_views = ps.replicas.iter().map(|&r| self.replica_view(ps, r, leader_part)).collect();
        let hw = match leader_part {
            Some((_, p)) => p.log.hw(),
            None => self.last_known_hw(ps),
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
        let hw_blocked_by = leader_part.and_then(|(c, p)| p.hw_blocked_by(&c.ctx_for(self.now, &ps.tp)));
        let pending_isr = leader_part.and_then(|(_, p)| p.pending_isr());
        let isr_changes = self.world.log.borrow().isr_changes(&ps.tp);
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
            acked_lost: self.world.ledger.borrow().lost_in(&ps.tp),
            leader_recovery_state: ps.leader_recovery,
            isr_shrinks: isr_changes.shrinks,
            isr_expands: isr_changes.expands,
            leader_reach: ps.leader.map_or(Reach::Controller, |l| self.reach(l)),
        }
    }

    fn last_known_hw(&self, ps: &PartitionState) -> i64 {
        ps.replicas
            .iter()
            .filter_map(|r| self.cores.get(r))
            .filter_map(|c| c.borrow().partition(&ps.tp).map(|p| p.log.hw()))
            .max()
            .unwrap_or(0)
    }

    fn replica_view(
        &self,
        ps: &PartitionState,
        r: BrokerId,
        leader: Option<(&Ref<'_, Broker>, &crate::sim::partition::Partition)>,
    ) -> ReplicaView {
        let node = self.cores.get(&r).map(|c| c.borrow());
        let part = node.as_ref().and_then(|c| c.partition(&ps.tp));
        let follower = leader
            .filter(|_| ps.leader != Some(r))
            .and_then(|(c, p)| p.follower_view(&c.ctx_for(self.now, &ps.tp), r));
        ReplicaView {
            broker: r,
            online: node.as_ref().is_some_and(|c| c.is_up()),
            leo: part.map_or(0, |p| p.log.leo()),
            hw: part.map_or(0, |p| p.log.hw()),
            log_start: part.map_or(0, |p| p.log.log_start()),
            fetch_requests: part.map_or(0, |p| p.fetch_requests()),
            epoch_cache: part.map(|p| p.log.epoch_cache().to_vec()).unwrap_or_default(),
            in_isr: ps.isr.contains(&r),
            is_leader: ps.leader == Some(r),
            lag: follower.and_then(|f| f.lag),
            isr_expiry_in: follower.and_then(|f| f.isr_expiry_in),
            caught_up_ago: follower.and_then(|f| f.caught_up_ago),
        }
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
