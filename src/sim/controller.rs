//! The KRaft quorum controller as a plain, sans-IO struct (Kafka 4.x). Version-dependent
//! rules come from the broker config's [`crate::config::Semantics`].
//!
//! [`QuorumController`] keeps what the active controller keeps (rule book §0.2b): per broker its
//! registration, fencing and controlled-shutdown state and last heartbeat; per partition the
//! replica list, leader, ISR, leader epoch, partition epoch and leader recovery state. Its
//! methods take the sim time and write messages and events to an [`Outbox`]; it never reads a
//! clock and iterates only ordered maps, so equal inputs give equal outputs.
//!
//! Kafka's `QuorumController` delegates to one manager per kind of record; so do these files,
//! each an `impl QuorumController` block over the one state below:
//! - `cluster_control`: broker registration, heartbeats, session-timeout fencing, unfencing
//!   and KRaft controlled shutdown (R6.1, R6.2, R6.6; `ClusterControlManager`,
//!   `BrokerHeartbeatManager`);
//! - `replication`: topic creation (R1.7, R1.8) via [`super::assignment::assign`],
//!   AlterPartition validation (R4.9, `ReplicationControlManager.validateAlterPartitionData`),
//!   controller-driven ISR changes with the last-member rule (R4.8) and the elections
//!   (`ReplicationControlManager`);
//! - `partition_change`: how one partition change is planned, its elections (R6.3–R6.5,
//!   R6.7) and epochs (R6.8/R6.9/R4.10) (`PartitionChangeBuilder`,
//!   `PartitionReassignmentReplicas`);
//! - `admin`: operator-requested elections, reassignment, more partitions, topic deletion;
//! - `deferred_tasks`: the unclean-election check of Kafka 3.9+ (R6.5) and auto leader
//!   rebalance (R6.7), both deferred tasks armed after a write, as `QuorumController` arms them;
//! - `configuration`: broker and topic config changes (`ConfigurationControlManager`);
//! - `producer_ids`: producer id allocation (`ProducerIdControlManager`);
//! - `publishing`: the queued metadata delta, its broadcast and the published image.
//!
//! Every committed change is broadcast as one [`Message::Metadata`] per entry point to every
//! broker that ever registered and to every client added with [`QuorumController::add_client`].
//! A direct reply (registration, heartbeat, AlterPartition response) is queued before the
//! broadcast.

mod admin;
mod cluster_control;
mod configuration;
mod deferred_tasks;
mod partition_change;
mod producer_ids;
mod publishing;
mod replication;

pub use admin::{ElectionResults, ElectionType, check_partition_increase, validate_target};
pub use cluster_control::BrokerInfo;
pub use deferred_tasks::{MAX_ELECTIONS_PER_IMBALANCE, REBALANCE_CONTINUE_DELAY_MS};
pub use partition_change::elect_any;
pub use producer_ids::FIRST_PRODUCER_ID;
pub use replication::TopicInfo;

use super::image::MetadataImage;
use super::protocol::{Message, MetadataDelta, NodeId, PartitionState};
use super::{BrokerId, Ms, Outbox, TopicPartition};
use crate::config::BrokerConfig;
use deferred_tasks::DeferredRun;
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The KRaft active controller (`QuorumController` with its `ClusterControlManager`,
/// `BrokerHeartbeatManager`, `ReplicationControlManager`, `ConfigurationControlManager` and
/// `ProducerIdControlManager`), sans-IO. One struct rather than one per manager, because a
/// single write often touches several of them (a fencing changes a broker and its partitions and
/// is broadcast as one delta). See the module docs for which file handles what.
#[derive(Clone, Debug)]
pub struct QuorumController {
    /// The cluster-wide broker config, with its per-broker throttle rates (`configuration`).
    config: BrokerConfig,
    /// Every broker the controller knows, registered or not (`cluster_control`).
    brokers: BTreeMap<BrokerId, BrokerInfo>,
    /// The last broker epoch handed out (`cluster_control`).
    last_broker_epoch: i64,
    /// Every topic with its partitions (`replication`).
    topics: BTreeMap<Arc<str>, TopicInfo>,
    /// Client nodes that receive every broadcast (`publishing`).
    clients: Vec<NodeId>,
    /// Feeds replica placement (R1.6).
    rng: ChaCha8Rng,
    /// Draws topic ids: its own stream of the seeded generator, so ids never shift replica
    /// placement (which `rng` feeds) from what it was before topics had ids.
    topic_ids: ChaCha8Rng,
    /// The armed unclean-election check (`deferred_tasks`).
    unclean_check: Option<DeferredRun>,
    /// The scheduled auto leader rebalance (`deferred_tasks`).
    rebalance: Option<DeferredRun>,
    /// Changes made since the last broadcast (`publishing`).
    pending: MetadataDelta,
    /// Every delta broadcast so far, replayed (`publishing`).
    published: MetadataImage,
    /// The last refusal of a forwarded auto-creation, so a repeat is not reported again.
    auto_create_error: Option<String>,
    /// The last target each partition was given with `reassign`: what
    /// `kafka-reassign-partitions.sh --verify` reads back from its JSON file, which neither a
    /// cancel nor a verify erases.
    reassign_targets: BTreeMap<TopicPartition, Vec<BrokerId>>,
    /// The next producer id to hand out ([`QuorumController::allocate_producer_id`]).
    next_producer_id: i64,
}

impl QuorumController {
    /// A controller for the given broker ids (none registered yet) with the cluster-wide
    /// broker config. `rng` feeds replica placement only (R1.6).
    pub fn new(config: BrokerConfig, broker_ids: &[BrokerId], rng: ChaCha8Rng) -> Self {
        let config_for_image = config.clone();
        let mut topic_ids = rng.clone();
        topic_ids.set_stream(rng.get_stream().wrapping_add(1));
        QuorumController {
            config,
            brokers: broker_ids.iter().map(|&id| (id, BrokerInfo::unregistered(id))).collect(),
            last_broker_epoch: 0,
            topics: BTreeMap::new(),
            clients: Vec::new(),
            rng,
            topic_ids,
            unclean_check: None,
            rebalance: None,
            pending: MetadataDelta::default(),
            published: MetadataImage::new(config_for_image),
            auto_create_error: None,
            reassign_targets: BTreeMap::new(),
            next_producer_id: FIRST_PRODUCER_ID,
        }
    }

    /// Handles a message from a node: `RegisterBroker`, `Heartbeat` and `AlterPartition`;
    /// anything else is ignored. Replies go to `from`; changes are broadcast afterwards.
    pub fn handle(&mut self, now: Ms, from: NodeId, msg: Message, out: &mut Outbox) {
        match msg {
            Message::RegisterBroker { broker, previous_broker_epoch } => {
                self.on_register(now, from, broker, previous_broker_epoch, out)
            }
            Message::Heartbeat { broker, broker_epoch, want_shutdown } => {
                self.on_heartbeat(now, from, broker, broker_epoch, want_shutdown, out)
            }
            Message::AlterPartition {
                leader,
                broker_epoch: _,
                tp,
                leader_epoch,
                partition_epoch,
                new_isr,
                leader_recovery,
            } => {
                let result = self.alter_partition(
                    leader,
                    &tp,
                    (leader_epoch, partition_epoch),
                    &new_isr,
                    leader_recovery,
                    out,
                );
                tracing::debug!(t = now, tp = %tp, leader, ?result, "AlterPartition answered");
                out.send(from, Message::AlterPartitionResponse { tp, result: Box::new(result) });
            }
            Message::AutoCreateTopic(spec) => self.auto_create_topic(now, &spec, out),
            other => {
                tracing::error!(
                    t = now,
                    ?from,
                    api = other.api_name(),
                    "the controller cannot handle this message"
                )
            }
        }
        self.after_write(now);
        self.flush(out);
    }

    /// Runs the timed work due at `now`: session-timeout fencing (R6.1, R6.2), the
    /// unclean-election check (R6.5, Kafka 3.9+) and the auto leader rebalance (R6.7), each
    /// when its deferred run is due. Call it whenever `now ≥` [`Self::next_deadline`].
    pub fn on_tick(&mut self, now: Ms, out: &mut Outbox) {
        self.fence_stale_brokers(now, out);
        if self.next_unclean_check_at().is_some_and(|t| now >= t) {
            let more = self.elect_leaderless(true, MAX_ELECTIONS_PER_IMBALANCE, out);
            self.unclean_check = more.then_some(DeferredRun { armed_at: now, immediate: true });
        }
        if self.next_rebalance_at().is_some_and(|t| now >= t) {
            let more = self.balance_leaders(out);
            self.rebalance = more.then_some(DeferredRun { armed_at: now, immediate: true });
        }
        self.after_write(now);
        self.flush(out);
    }

    /// The earliest sim time (ms) at which [`Self::on_tick`] has work: a broker's session
    /// expiring (`last heartbeat + broker.session.timeout.ms + 1`, since fencing needs
    /// `now − last > timeout`), the next unclean check, or the next rebalance run.
    pub fn next_deadline(&self) -> Option<Ms> {
        let fence = self.brokers.keys().filter_map(|&id| self.fences_at(id)).min();
        [fence, self.next_unclean_check_at(), self.next_rebalance_at()].into_iter().flatten().min()
    }

    /// Every broker the controller knows, in id order (registered or not).
    pub fn brokers(&self) -> impl Iterator<Item = &BrokerInfo> {
        self.brokers.values()
    }

    /// One broker's record.
    pub fn broker(&self, id: BrokerId) -> Option<&BrokerInfo> {
        self.brokers.get(&id)
    }

    /// Every topic, in name order.
    pub fn topics(&self) -> impl Iterator<Item = &TopicInfo> {
        self.topics.values()
    }

    /// One topic by name.
    pub fn topic(&self, name: &str) -> Option<&TopicInfo> {
        self.topics.get(name)
    }

    /// Every partition, in (topic, partition) order.
    pub fn partitions(&self) -> impl Iterator<Item = &PartitionState> {
        self.topics.values().flat_map(|t| t.partitions.iter())
    }

    /// One partition's state.
    pub fn partition(&self, tp: &TopicPartition) -> Option<&PartitionState> {
        self.topics.get(&*tp.topic)?.partitions.get(tp.partition as usize)
    }

    /// How many partitions a broker leads.
    pub fn leader_count(&self, id: BrokerId) -> usize {
        self.partitions().filter(|p| p.leader == Some(id)).count()
    }

    /// The cluster-wide broker config.
    pub fn broker_config(&self) -> &BrokerConfig {
        &self.config
    }

    /// Checks the R4.11 invariants on every partition: a leader is in its ISR, the ISR is a
    /// subset of the replicas, non-empty unless ELR is on (R8.3); the ELR is a subset of the
    /// replicas that shares no member with the ISR. Errors: the first violation, in words.
    pub fn check_invariants(&self) -> Result<(), String> {
        for p in self.partitions() {
            if p.isr.is_empty() && !self.config.semantics.eligible_leader_replicas {
                return Err(format!("{}: empty ISR", p.tp));
            }
            if let Some(r) = p.elr.iter().find(|r| p.isr.contains(r) || !p.replicas.contains(r)) {
                return Err(format!("{}: ELR member {r} is in the ISR or not a replica", p.tp));
            }
            if let Some(r) = p.isr.iter().find(|r| !p.replicas.contains(r)) {
                return Err(format!("{}: ISR member {r} is not a replica", p.tp));
            }
            if let Some(l) = p.leader.filter(|l| !p.isr.contains(l)) {
                return Err(format!("{}: leader {l} is not in the ISR", p.tp));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
