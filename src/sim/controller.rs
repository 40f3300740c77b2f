//! The KRaft quorum controller as a plain, sans-IO struct (Kafka 4.x, ELR off). Version-dependent
//! rules come from the broker config's [`crate::config::Semantics`].
//!
//! [`QuorumController`] keeps what the active controller keeps (rule book §0.2b): per broker its
//! registration, fencing and controlled-shutdown state and last heartbeat; per partition the
//! replica list, leader, ISR, leader epoch, partition epoch and leader recovery state. Its
//! methods take the sim time and write messages and events to an [`Outbox`]; it never reads a
//! clock and iterates only ordered maps, so equal inputs give equal outputs.
//!
//! What it models, with the Kafka classes it follows:
//! - broker registration, heartbeats, session-timeout fencing, unfencing and KRaft controlled
//!   shutdown (R6.1, R6.2, R6.6; `ClusterControlManager`, `BrokerHeartbeatManager`);
//! - controller-driven ISR changes with the last-member rule (R4.8) and the elections of
//!   `PartitionChangeBuilder` (R6.3–R6.5, R6.7), epochs as R6.8/R6.9/R4.10 say;
//! - AlterPartition validation (R4.9, `ReplicationControlManager.validateAlterPartitionData`);
//! - topic creation (R1.7, R1.8) via [`super::assignment::assign`];
//! - the unclean-election check of Kafka 3.9+ (R6.5) and auto leader rebalance (R6.7), both
//!   deferred tasks armed after a write, as `QuorumController` arms them.
//!
//! Every committed change is broadcast as one [`Message::Metadata`] per entry point to every
//! broker that ever registered and to every client added with [`QuorumController::add_client`].
//! A direct reply (registration, heartbeat, AlterPartition response) is queued before the
//! broadcast.

mod admin;

pub use admin::{ElectionResults, ElectionType, check_partition_increase, validate_target};

use super::assignment;
use super::events::{ElectionKind, EventKind, ShrinkCause};
use super::group::event::GroupEvent;
use super::image::MetadataImage;
use super::protocol::{
    BrokerRegistration, IsrMember, LeaderRecoveryState, Message, MetadataDelta, NodeId, PartitionState,
};
use super::{BrokerId, Epoch, Ms, Outbox, TopicId, TopicPartition};
use crate::config::{BrokerConfig, ConfigError, TopicConfig};
use crate::kafka::errors::ErrorCode;
use crate::sim::error::SimError;
use crate::sim::spec::{Placement, TopicSpec};
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Most elections one rebalance run or one unclean check performs; the rest follow 10 ms later
/// (Kafka's `QuorumController.MAX_ELECTIONS_PER_IMBALANCE`).
pub const MAX_ELECTIONS_PER_IMBALANCE: usize = 1000;

/// Delay of a rebalance run or unclean check that continues a run cut short by
/// [`MAX_ELECTIONS_PER_IMBALANCE`] (ms), as Kafka's controller schedules it.
pub const REBALANCE_CONTINUE_DELAY_MS: Ms = 10;

/// The controller's record of one broker (KRaft `BrokerRegistration` plus the heartbeat
/// manager's state).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct BrokerInfo {
    /// The broker's `node.id`.
    pub id: BrokerId,
    /// It has registered at least once. Registrations persist across crashes, as in KRaft.
    pub registered: bool,
    /// Epoch of the current registration; `-1` before the first one.
    pub broker_epoch: i64,
    /// Fenced: may not lead or join an ISR (R6.1). Brokers start fenced at registration.
    pub fenced: bool,
    /// In controlled shutdown (R6.6): not eligible to lead or join an ISR, not used by the
    /// placer, until it registers again.
    pub in_controlled_shutdown: bool,
    /// Sim time of the last accepted heartbeat or registration (ms).
    pub last_heartbeat: Ms,
}

impl BrokerInfo {
    /// A broker the controller knows by id but that has not registered yet.
    pub fn unregistered(id: BrokerId) -> Self {
        BrokerInfo {
            id,
            registered: false,
            broker_epoch: -1,
            fenced: true,
            in_controlled_shutdown: false,
            last_heartbeat: 0,
        }
    }

    /// Kafka's `isActive`: registered, unfenced and not in controlled shutdown. Only active
    /// brokers may become leader or join an ISR.
    pub fn is_active(&self) -> bool {
        self.registered && !self.fenced && !self.in_controlled_shutdown
    }

    /// The registration as brokers see it in the metadata.
    pub fn registration(&self) -> BrokerRegistration {
        BrokerRegistration {
            id: self.id,
            broker_epoch: self.broker_epoch,
            fenced: self.fenced,
            in_controlled_shutdown: self.in_controlled_shutdown,
        }
    }
}

/// A topic as the controller stores it.
#[derive(Clone, PartialEq, Debug)]
pub struct TopicInfo {
    /// Topic name.
    pub name: Arc<str>,
    /// Topic id (KIP-516), drawn when it was created.
    pub id: TopicId,
    /// Replication factor (length of every replica list).
    pub replication_factor: u32,
    /// Topic-level config overrides.
    pub config: TopicConfig,
    /// Partition states, indexed by partition number.
    pub partitions: Vec<PartitionState>,
}

impl TopicInfo {
    /// Number of partitions.
    pub fn partition_count(&self) -> u32 {
        self.partitions.len() as u32
    }
}

/// Which election `PartitionChangeBuilder` runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Election {
    /// Keep an acceptable leader, else first acceptable target-ISR member in replica order;
    /// with `unclean`, else first acceptable replica (R6.3, R6.5).
    Any {
        /// The topic allows unclean election.
        unclean: bool,
    },
    /// Preferred replica if it is in the ISR and acceptable (R6.7).
    Preferred,
}

/// A planned partition change: the new state and whether its leader came from an unclean
/// election.
#[derive(Clone, PartialEq, Debug)]
struct Plan {
    state: PartitionState,
    unclean: bool,
}

/// The replica assignment a partition change aims at: `PartitionChangeBuilder`'s target
/// replicas, adding and removing lists (KIP-455).
#[derive(Clone, PartialEq, Eq, Debug)]
struct Assignment {
    replicas: Vec<BrokerId>,
    adding: Vec<BrokerId>,
    removing: Vec<BrokerId>,
}

impl Assignment {
    /// The partition's current assignment.
    fn of(p: &PartitionState) -> Self {
        Assignment { replicas: p.replicas.clone(), adding: p.adding.clone(), removing: p.removing.clone() }
    }

    /// A reassignment from `current` to `target` (`PartitionReassignmentReplicas`): removing =
    /// current − target and adding = target − current, each ascending; replicas = target
    /// followed by the removing ones.
    fn reassign(current: &[BrokerId], target: &[BrokerId]) -> Self {
        let minus = |a: &[BrokerId], b: &[BrokerId]| -> Vec<BrokerId> {
            let set: BTreeSet<BrokerId> = a.iter().copied().filter(|r| !b.contains(r)).collect();
            set.into_iter().collect()
        };
        let removing = minus(current, target);
        let adding = minus(target, current);
        let replicas = target.iter().chain(&removing).copied().collect();
        Assignment { replicas, adding, removing }
    }

    /// The assignment a cancelled reassignment goes back to and the ISR it keeps
    /// (`PartitionReassignmentRevert`): the adding replicas leave the replicas and the ISR;
    /// when no ISR member is left, the first remaining replica is the ISR and the revert is
    /// unclean (third value).
    fn revert(p: &PartitionState) -> (Self, Vec<BrokerId>, bool) {
        let replicas: Vec<BrokerId> = p.replicas.iter().copied().filter(|r| !p.adding.contains(r)).collect();
        let mut isr: Vec<BrokerId> = p.isr.iter().copied().filter(|r| !p.adding.contains(r)).collect();
        let unclean = isr.is_empty();
        if unclean {
            isr.extend(replicas.first());
        }
        (Assignment { replicas, adding: Vec::new(), removing: Vec::new() }, isr, unclean)
    }

    /// Completes the reassignment if `target_isr` allows it
    /// (`PartitionReassignmentReplicas.maybeCompleteReassignment`): without the removing
    /// replicas, the ISR must still have a member and hold every remaining replica. Returns
    /// the final assignment and ISR, or `None` when none runs or it must wait.
    fn complete(&self, target_isr: &[BrokerId]) -> Option<(Self, Vec<BrokerId>)> {
        if self.adding.is_empty() && self.removing.is_empty() {
            return None;
        }
        let keep = |r: &BrokerId| !self.removing.contains(r);
        let isr: Vec<BrokerId> = target_isr.iter().copied().filter(keep).collect();
        let replicas: Vec<BrokerId> = self.replicas.iter().copied().filter(keep).collect();
        if isr.is_empty() || replicas.is_empty() || !replicas.iter().all(|r| isr.contains(r)) {
            return None;
        }
        Some((Assignment { replicas, adding: Vec::new(), removing: Vec::new() }, isr))
    }
}

/// Plans one partition change the way KRaft's `PartitionChangeBuilder` does (ELR off), keeping
/// the partition's assignment: see [`plan_assignment`].
fn plan_change(
    p: &PartitionState,
    target_isr: &[BrokerId],
    target_recovery: Option<LeaderRecoveryState>,
    election: Election,
    acceptable: &dyn Fn(BrokerId) -> bool,
    shrink_bumps_leader_epoch: bool,
) -> Option<Plan> {
    let target = Assignment::of(p);
    plan_assignment(p, target, target_isr, target_recovery, election, acceptable, shrink_bumps_leader_epoch)
}

/// Plans one partition change the way KRaft's `PartitionChangeBuilder.build` does (ELR off).
///
/// First a reassignment in `target` completes if `target_isr` allows it
/// ([`Assignment::complete`], `completeReassignmentIfNeeded`); the election then follows the
/// target replica order. `target_isr` is the wanted ISR; an empty one is not applied (the
/// last-member rule, R4.8), but it still decides who may lead. `acceptable` says which brokers
/// may lead (active, and not the broker being removed). The leader epoch grows by one when the
/// leader changes, including to none (R6.8, R4.10), when the new replica list lacks one of the
/// old replicas (`triggerLeaderEpochBumpForReplicaReassignmentIfNeeded`), and with
/// `shrink_bumps_leader_epoch` also when the ISR loses a member (metadata versions before 3.6,
/// KAFKA-15021: `triggerLeaderEpochBumpForIsrShrinkIfNeeded`); the partition epoch grows by one
/// on every change (R6.9). An unclean election sets ISR = [new leader] and `leader_recovery` =
/// Recovering (R6.5, KIP-704). Returns `None` when nothing would change.
fn plan_assignment(
    p: &PartitionState,
    target: Assignment,
    target_isr: &[BrokerId],
    target_recovery: Option<LeaderRecoveryState>,
    election: Election,
    acceptable: &dyn Fn(BrokerId) -> bool,
    shrink_bumps_leader_epoch: bool,
) -> Option<Plan> {
    let (target, target_isr) = target.complete(target_isr).unwrap_or_else(|| (target, target_isr.to_vec()));
    let replicas = &target.replicas;
    let valid = |r: BrokerId| target_isr.contains(&r) && acceptable(r);
    let current_valid = p.leader.is_some_and(valid);
    let (leader, unclean) = match election {
        Election::Preferred => {
            let preferred = replicas.first().copied().filter(|&r| valid(r));
            if preferred.is_some() {
                (preferred, false)
            } else if current_valid {
                (p.leader, false)
            } else {
                (replicas.iter().skip(1).copied().find(|&r| valid(r)), false)
            }
        }
        Election::Any { unclean } => elect_any(replicas, &target_isr, p.leader, unclean, acceptable),
    };
    let mut next = p.clone();
    next.leader = leader;
    match leader {
        Some(new_leader) if unclean => {
            next.isr = vec![new_leader];
            next.leader_recovery = LeaderRecoveryState::Recovering;
        }
        _ => {
            if !target_isr.is_empty() {
                next.isr = target_isr.clone();
            }
            if let Some(recovery) = target_recovery {
                next.leader_recovery = recovery;
            }
        }
    }
    next.replicas = target.replicas;
    next.adding = target.adding;
    next.removing = target.removing;
    if next == *p {
        return None;
    }
    next.partition_epoch += 1;
    let shrunk = p.isr.iter().any(|r| !next.isr.contains(r));
    let replica_left = p.replicas.iter().any(|r| !next.replicas.contains(r));
    if next.leader != p.leader || (shrink_bumps_leader_epoch && shrunk) || replica_left {
        next.leader_epoch += 1;
    }
    Some(Plan { state: next, unclean })
}

/// The leader `PartitionChangeBuilder.electLeader` picks when any leader will do (ELR off,
/// R6.3–R6.5): the current leader while it is still an acceptable ISR member, else the first
/// replica in `replicas` order that is in `isr` and `acceptable` (registered, unfenced, not in
/// controlled shutdown: `isActive`), else with `unclean` the first acceptable replica at all
/// (second value true: an unclean election, R6.5). `(None, false)` when nobody qualifies.
/// The dashboard's why panel asks it who would lead if the leader were lost.
pub fn elect_any(
    replicas: &[BrokerId],
    isr: &[BrokerId],
    current: Option<BrokerId>,
    unclean: bool,
    acceptable: &dyn Fn(BrokerId) -> bool,
) -> (Option<BrokerId>, bool) {
    let valid = |r: BrokerId| isr.contains(&r) && acceptable(r);
    if current.is_some_and(valid) {
        (current, false)
    } else if let Some(r) = replicas.iter().copied().find(|&r| valid(r)) {
        (Some(r), false)
    } else if unclean {
        match replicas.iter().copied().find(|&r| acceptable(r)) {
            Some(r) => (Some(r), true),
            None => (None, false),
        }
    } else {
        (None, false)
    }
}

/// Emits the events of one controller-made partition change: `IsrShrunk` when members left the
/// ISR (not for an unclean election, whose `LeaderChanged` names the new ISR) and
/// `LeaderChanged` when the leader changed.
fn report(
    old: &PartitionState,
    plan: &Plan,
    cause: Option<&ShrinkCause>,
    kind: ElectionKind,
    out: &mut Outbox,
) {
    let new = &plan.state;
    report_completion(old, new, out);
    if let (Some(cause), false) = (cause, plan.unclean) {
        let removed: Vec<BrokerId> = old.isr.iter().copied().filter(|r| !new.isr.contains(r)).collect();
        if !removed.is_empty() {
            out.emit(EventKind::IsrShrunk {
                tp: new.tp.clone(),
                removed,
                isr: new.isr.clone(),
                cause: cause.clone(),
            });
        }
    }
    if new.leader != old.leader {
        out.emit(EventKind::LeaderChanged {
            tp: new.tp.clone(),
            old_leader: old.leader,
            new_leader: new.leader,
            leader_epoch: new.leader_epoch,
            isr: new.isr.clone(),
            kind: match (plan.unclean, kind) {
                (true, ElectionKind::Requested) => ElectionKind::UncleanRequested,
                (true, _) => ElectionKind::Unclean,
                (false, kind) => kind,
            },
        });
    }
}

/// Emits `ReassignmentCompleted` when `old` → `new` completed a reassignment: none runs any
/// more, every adding replica stayed and every removing one left (a cancel does neither).
fn report_completion(old: &PartitionState, new: &PartitionState, out: &mut Outbox) {
    let completed = old.is_reassigning()
        && !new.is_reassigning()
        && old.adding.iter().all(|r| new.replicas.contains(r))
        && old.removing.iter().all(|r| !new.replicas.contains(r));
    if completed {
        out.emit(EventKind::ReassignmentCompleted { tp: new.tp.clone(), replicas: new.replicas.clone() });
    }
}

/// AlterPartition checks in `ReplicationControlManager.validateAlterPartitionData` order (R4.9).
///
/// Where Kafka answers `INVALID_REQUEST` (not the leader, ISR not a duplicate-free subset of the
/// replicas, ISR without the leader, RECOVERING with more than one member, RECOVERED back to
/// RECOVERING), the simulator has no such code and answers `FENCED_LEADER_EPOCH` for a sender
/// that is not the leader and `INELIGIBLE_REPLICA` for the ISR shapes.
fn validate_alter(
    p: &PartitionState,
    brokers: &BTreeMap<BrokerId, BrokerInfo>,
    sender: BrokerId,
    leader_epoch: Epoch,
    partition_epoch: Epoch,
    new_isr: &[IsrMember],
    recovery: LeaderRecoveryState,
) -> Result<(), ErrorCode> {
    if leader_epoch > p.leader_epoch || partition_epoch > p.partition_epoch {
        return Err(ErrorCode::NotController);
    }
    if leader_epoch < p.leader_epoch {
        return Err(ErrorCode::FencedLeaderEpoch);
    }
    if p.leader != Some(sender) {
        return Err(ErrorCode::FencedLeaderEpoch);
    }
    if partition_epoch < p.partition_epoch {
        return Err(ErrorCode::InvalidUpdateVersion);
    }
    let ids: Vec<BrokerId> = new_isr.iter().map(|m| m.id).collect();
    let distinct: BTreeSet<BrokerId> = ids.iter().copied().collect();
    if distinct.len() != ids.len() || !ids.iter().all(|r| p.replicas.contains(r)) || !ids.contains(&sender) {
        return Err(ErrorCode::IneligibleReplica);
    }
    if recovery == LeaderRecoveryState::Recovering
        && (ids.len() > 1 || p.leader_recovery == LeaderRecoveryState::Recovered)
    {
        return Err(ErrorCode::IneligibleReplica);
    }
    for m in new_isr {
        let eligible = brokers.get(&m.id).is_some_and(|b| {
            b.registered
                && !b.in_controlled_shutdown
                && !b.fenced
                && (m.broker_epoch == -1 || m.broker_epoch == b.broker_epoch)
        });
        if !eligible {
            return Err(ErrorCode::IneligibleReplica);
        }
    }
    Ok(())
}

/// When a deferred controller task (the auto-rebalance run or the unclean-election check) is
/// due: Kafka's `ImbalanceSchedule` SCHEDULED with its deadline.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct DeferredRun {
    /// When it was scheduled (ms).
    armed_at: Ms,
    /// Continue a run cut short by the batch limit, 10 ms later instead of a full interval.
    immediate: bool,
}

/// The first producer id isrlab hands out (Kafka's first block starts at 0; isrlab keeps
/// producer ids apart from the small numbers of broker ids and indexes in the event log).
pub const FIRST_PRODUCER_ID: i64 = 1000;

/// The KRaft active controller (`QuorumController` + `ReplicationControlManager` +
/// `ClusterControlManager` + `BrokerHeartbeatManager`), sans-IO. See the module docs.
#[derive(Clone, Debug)]
pub struct QuorumController {
    config: BrokerConfig,
    brokers: BTreeMap<BrokerId, BrokerInfo>,
    last_broker_epoch: i64,
    topics: BTreeMap<Arc<str>, TopicInfo>,
    clients: Vec<NodeId>,
    rng: ChaCha8Rng,
    /// Draws topic ids: its own stream of the seeded generator, so ids never shift replica
    /// placement (which `rng` feeds) from what it was before topics had ids.
    topic_ids: ChaCha8Rng,
    unclean_check: Option<DeferredRun>,
    rebalance: Option<DeferredRun>,
    pending: MetadataDelta,
    published: MetadataImage,
    /// The last refusal of a forwarded auto-creation, so a repeat is not reported again.
    auto_create_error: Option<String>,
    /// The target of each reassignment started with `reassign` and not yet verified done:
    /// what `kafka-reassign-partitions.sh --verify` reads back from its JSON file.
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

    /// A producer id never handed out before, for a producer's `InitProducerId` (its start,
    /// or `restart-producer`). Kafka's controller keeps the last id given out
    /// (`ProducerIdControlManager`) and hands brokers blocks of 1000 ids, from which each
    /// broker's `ProducerIdManager.generateProducerId` serves its `InitProducerId` requests
    /// (`TransactionCoordinator.handleInitProducerId`). isrlab serves them from one counter,
    /// so ids are unique and rise in the order producers asked, whichever broker answers.
    pub fn allocate_producer_id(&mut self) -> i64 {
        let id = self.next_producer_id;
        self.next_producer_id += 1;
        id
    }

    /// Registers and unfences a broker at start-up without any message or event, as if it had
    /// registered and caught up before the run began. Returns its new broker epoch.
    pub fn bootstrap_broker(&mut self, id: BrokerId, now: Ms) -> i64 {
        let epoch = self.next_broker_epoch();
        self.brokers.insert(
            id,
            BrokerInfo {
                id,
                registered: true,
                broker_epoch: epoch,
                fenced: false,
                in_controlled_shutdown: false,
                last_heartbeat: now,
            },
        );
        let registration = self.brokers[&id].registration();
        self.published.apply(&MetadataDelta { brokers: vec![registration], ..Default::default() });
        epoch
    }

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
        }
    }

    /// Handles a message from a node: `RegisterBroker`, `Heartbeat` and `AlterPartition`;
    /// anything else is ignored. Replies go to `from`; changes are broadcast afterwards.
    pub fn handle(&mut self, now: Ms, from: NodeId, msg: Message, out: &mut Outbox) {
        match msg {
            Message::RegisterBroker { broker } => self.on_register(now, from, broker, out),
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
                out.send(from, Message::AlterPartitionResponse { tp, result });
            }
            Message::CreateInternalTopic(spec) => self.auto_create_topic(now, &spec, out),
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

    /// The sim time (ms) at which the controller fences broker `id` unless a heartbeat comes
    /// first: `last heartbeat + broker.session.timeout.ms + 1` (fencing needs
    /// `now − last > timeout`, Kafka's `BrokerHeartbeatManager.hasValidSession` and
    /// `QuorumController.maybeFenceStaleBroker`). `None` when it is unknown, unregistered or
    /// already fenced.
    pub fn fences_at(&self, id: BrokerId) -> Option<Ms> {
        let b = self.brokers.get(&id).filter(|b| b.registered && !b.fenced)?;
        Some(b.last_heartbeat.saturating_add(self.config.broker_session_timeout_ms).saturating_add(1))
    }

    /// Creates a topic (R1.7, R1.8; `ReplicationControlManager.createTopic`).
    ///
    /// Placement comes from [`assignment::assign`]. Each partition starts with ISR = its active
    /// replicas (registered, unfenced, not in controlled shutdown) in replica order, leader =
    /// first ISR entry, leader epoch 0, partition epoch 0. Emits `TopicCreated` and broadcasts
    /// the new partitions and topic config.
    ///
    /// Errors (nothing changes): a bad name ([`SimError::InvalidTopic`] with Kafka's
    /// text); an existing name ([`SimError::TopicExists`]); any placement error; a partition
    /// without an active replica ([`SimError::InvalidReplicationFactor`], `Unable to replicate
    /// the partition <rf> time(s): All brokers are currently fenced or in controlled shutdown.`,
    /// or Kafka's manual-assignment text for explicit lists).
    pub fn create_topic(&mut self, now: Ms, spec: &TopicSpec, out: &mut Outbox) -> Result<(), SimError> {
        assignment::validate_topic_name(&spec.name)?;
        if self.topics.contains_key(spec.name.as_str()) {
            return Err(SimError::TopicExists(spec.name.clone()));
        }
        let infos: Vec<BrokerInfo> = self.brokers.values().copied().collect();
        let rf = spec.replication_factor;
        let assignment = assignment::assign(&spec.placement, &infos, spec.partitions, rf, &mut self.rng)?;
        let name: Arc<str> = Arc::from(spec.name.as_str());
        // A new random id for every topic created (`ReplicationControlManager.createTopic`
        // draws `Uuid.randomUuid()` until it is unused), so a name deleted and created again
        // gets another one.
        let mut id = TopicId::random(&mut self.topic_ids);
        while self.topics.values().any(|t| t.id == id) {
            id = TopicId::random(&mut self.topic_ids);
        }
        let mut partitions = Vec::with_capacity(assignment.len());
        for (i, replicas) in assignment.iter().enumerate() {
            let isr: Vec<BrokerId> = replicas.iter().copied().filter(|&r| self.is_active(r)).collect();
            if isr.is_empty() {
                return Err(SimError::InvalidReplicationFactor(match spec.placement {
                    Placement::Explicit(_) => format!(
                        "All brokers specified in the manual partition assignment for partition {i} are fenced or in controlled shutdown."
                    ),
                    _ => format!(
                        "Unable to replicate the partition {rf} time(s): All brokers are currently fenced or in controlled shutdown."
                    ),
                }));
            }
            partitions.push(PartitionState::created(
                TopicPartition::new(name.clone(), i as u32),
                id,
                replicas.clone(),
                isr,
            ));
        }
        let topic = TopicInfo {
            name: name.clone(),
            id,
            replication_factor: assignment.first().map_or(rf, |r| r.len() as u32),
            config: spec.config.clone(),
            partitions,
        };
        self.pending.topic_configs.push((name.clone(), topic.config.clone()));
        self.pending.partitions.extend(topic.partitions.iter().cloned());
        self.topics.insert(name, topic);
        out.emit(EventKind::TopicCreated { topic: spec.name.clone(), topic_id: id, assignment });
        self.after_write(now);
        self.flush(out);
        Ok(())
    }

    /// Creates an internal topic a broker's `AutoTopicCreationManager` forwarded (the first
    /// FindCoordinator creates `__consumer_offsets`). An existing topic is left alone; a
    /// refusal (e.g. `offsets.topic.replication.factor` above the registered brokers:
    /// `INVALID_REPLICATION_FACTOR`) is reported once per distinct reason, and the next
    /// FindCoordinator tries again.
    pub fn auto_create_topic(&mut self, now: Ms, spec: &TopicSpec, out: &mut Outbox) {
        if self.topics.contains_key(spec.name.as_str()) {
            return;
        }
        match self.create_topic(now, spec, out) {
            Ok(()) => self.auto_create_error = None,
            Err(e) => {
                let reason = e.to_string();
                if self.auto_create_error.as_ref() != Some(&reason) {
                    let topic = spec.name.clone();
                    out.emit(EventKind::Group(GroupEvent::InternalTopicNotCreated {
                        topic,
                        reason: reason.clone(),
                    }));
                    self.auto_create_error = Some(reason);
                }
            }
        }
    }

    /// Sets a cluster-wide broker property (`kafka-configs.sh --entity-default --entity-type
    /// brokers`) and broadcasts the new config. Enabling `unclean.leader.election.enable` acts at
    /// the next periodic unclean check, as in KRaft 3.9+ (R6.5); interval changes move the
    /// pending deadlines; disabling `auto.leader.rebalance.enable` cancels a pending rebalance.
    /// Emits no event (the supervisor reports config changes).
    ///
    /// Errors: [`ConfigError`] for an unknown name, a bad value or a producer property; nothing
    /// changes then.
    pub fn set_broker_config(
        &mut self,
        now: Ms,
        key: &str,
        value: &str,
        out: &mut Outbox,
    ) -> Result<(), ConfigError> {
        self.change_broker_config(now, out, |c| c.set(key, value))
    }

    /// Sets a property for broker `broker` alone (`kafka-configs.sh --entity-type brokers
    /// --entity-name B`; isrlab keeps only the replication throttle rates per broker,
    /// [`BrokerConfig::set_for_broker`]) and broadcasts the new config. Emits no event.
    ///
    /// Errors: [`ConfigError`] for a bad name or value, or a property not set per broker;
    /// nothing changes then.
    pub fn set_broker_config_for(
        &mut self,
        now: Ms,
        broker: BrokerId,
        key: &str,
        value: &str,
        out: &mut Outbox,
    ) -> Result<(), ConfigError> {
        self.change_broker_config(now, out, |c| c.set_for_broker(broker, key, value))
    }

    /// Applies `change` to a copy of the broker config, checks it, and broadcasts it if it
    /// differs. Errors: those of `change` or of [`BrokerConfig::validate`].
    fn change_broker_config(
        &mut self,
        now: Ms,
        out: &mut Outbox,
        change: impl FnOnce(&mut BrokerConfig) -> Result<(), ConfigError>,
    ) -> Result<(), ConfigError> {
        let mut config = self.config.clone();
        change(&mut config)?;
        config.validate()?;
        if config != self.config {
            self.config = config;
            self.pending.broker_config = Some(Arc::new(self.config.clone()));
        }
        self.after_write(now);
        self.flush(out);
        Ok(())
    }

    /// Sets a topic-level override (`kafka-configs.sh --entity-type topics`) and broadcasts the
    /// topic's new config. Enabling unclean election acts at the next periodic unclean check
    /// (R6.5, KRaft 3.9+). Emits no event.
    ///
    /// Errors (nothing changes): [`SimError::UnknownTopic`]; [`SimError::Config`] for a bad name,
    /// value or a property topics cannot override.
    pub fn set_topic_config(
        &mut self,
        now: Ms,
        topic: &str,
        key: &str,
        value: &str,
        out: &mut Outbox,
    ) -> Result<(), SimError> {
        let t = self.topics.get_mut(topic).ok_or_else(|| SimError::UnknownTopic(topic.to_string()))?;
        let mut config = t.config.clone();
        config.set(key, value)?;
        if config != t.config {
            t.config = config;
            self.pending.topic_configs.push((t.name.clone(), t.config.clone()));
        }
        self.after_write(now);
        self.flush(out);
        Ok(())
    }

    // ----- read accessors -------------------------------------------------------------------

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

    /// The metadata as published so far: every delta this controller has broadcast, replayed
    /// (Kafka's `MetadataImage` as of the last committed offset). Readers outside the
    /// controller (snapshots, the audit ledger) use this, as brokers and clients do.
    pub fn image(&self) -> &MetadataImage {
        &self.published
    }

    /// Sim time (ms) of the next unclean-election check, if one is armed: one
    /// `unclean.leader.election.interval.ms` after the write that found a partition without a
    /// leader while none was armed (R6.5, `QuorumController.maybeScheduleNextElectUncleanLeaders`);
    /// `None` while every partition has a leader.
    pub fn next_unclean_check_at(&self) -> Option<Ms> {
        let run = self.unclean_check?;
        let delay = if run.immediate {
            REBALANCE_CONTINUE_DELAY_MS
        } else {
            self.config.unclean_leader_election_interval_ms
        };
        Some(run.armed_at.saturating_add(delay))
    }

    /// Sim time (ms) of the next auto-rebalance run, if one is scheduled: one
    /// `leader.imbalance.check.interval.seconds` after the controller first saw an imbalance
    /// (R6.7, `QuorumController.maybeScheduleNextBalancePartitionLeaders`).
    pub fn next_rebalance_at(&self) -> Option<Ms> {
        let timer = self.rebalance?;
        let delay = if timer.immediate {
            REBALANCE_CONTINUE_DELAY_MS
        } else {
            self.config.leader_imbalance_check_interval_seconds.saturating_mul(1000)
        };
        Some(timer.armed_at.saturating_add(delay))
    }

    /// Checks the R4.11 invariants on every partition: a leader is in its ISR, the ISR is a
    /// non-empty subset of the replicas. Errors: the first violation, in words.
    pub fn check_invariants(&self) -> Result<(), String> {
        for p in self.partitions() {
            if p.isr.is_empty() {
                return Err(format!("{}: empty ISR", p.tp));
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

    // ----- message handlers -----------------------------------------------------------------

    /// `BrokerRegistration` (R6.1; `ClusterControlManager.registerBroker`).
    ///
    /// Refused with `DUPLICATE_BROKER_REGISTRATION` while the id's previous incarnation still
    /// has a live session ([`Self::has_valid_session`]): the controller cannot tell a restart
    /// from a second process with the same id. Sessions that ran out are fenced first, as the
    /// fencing timer would at this same instant. Emits `BrokerRegistrationRefused`.
    ///
    /// Accepted: a new broker epoch, fenced until its first heartbeat (R6.1). Registering
    /// changes no partition: with ELR off, Kafka's `handleBrokerUncleanShutdown` does nothing,
    /// and the previous incarnation already left its ISRs when it was fenced or shut down
    /// (R4.8, R6.2). Replies with the full image; emits `BrokerRegistered`.
    fn on_register(&mut self, now: Ms, from: NodeId, broker: BrokerId, out: &mut Outbox) {
        self.fence_stale_brokers(now, out);
        if let Some(old) = self.brokers.get(&broker).filter(|b| self.has_valid_session(b, now)) {
            out.emit(EventKind::BrokerRegistrationRefused {
                broker,
                silent_ms: now.saturating_sub(old.last_heartbeat),
                timeout_ms: self.config.broker_session_timeout_ms,
            });
            out.send(from, Message::RegisterBrokerRefused { error: ErrorCode::DuplicateBrokerRegistration });
            return;
        }
        let epoch = self.next_broker_epoch();
        self.brokers.insert(
            broker,
            BrokerInfo {
                id: broker,
                registered: true,
                broker_epoch: epoch,
                fenced: true,
                in_controlled_shutdown: false,
                last_heartbeat: now,
            },
        );
        self.note_broker(broker);
        out.emit(EventKind::BrokerRegistered { broker, broker_epoch: epoch });
        out.send(from, Message::RegisterBrokerResponse { broker_epoch: epoch, image: self.full_image() });
    }

    /// Whether a broker's current registration still has a live session that blocks a new
    /// incarnation (`BrokerHeartbeatManager.hasValidSession`: unfenced and heard from within
    /// `broker.session.timeout.ms`). A fenced registration has no session. One in controlled
    /// shutdown may be replaced at once where the semantics has KAFKA-19047
    /// ([`crate::config::Semantics::reregister_after_controlled_shutdown`]); before it, it
    /// blocked like any other.
    fn has_valid_session(&self, b: &BrokerInfo, now: Ms) -> bool {
        let blocking = if self.config.semantics.reregister_after_controlled_shutdown {
            b.is_active()
        } else {
            b.registered && !b.fenced
        };
        blocking && now.saturating_sub(b.last_heartbeat) <= self.config.broker_session_timeout_ms
    }

    /// `BrokerHeartbeat` (R6.1, R6.6; `BrokerHeartbeatManager` states). A heartbeat with a stale
    /// broker epoch or from an unregistered broker is ignored (no reply).
    /// - Fenced broker: unfenced at its first heartbeat (its registration response carried the
    ///   whole image, so it has caught up); leaderless partitions are then elected (R6.4, and
    ///   unclean ones at once where the topic allows it, R6.5). A fenced broker asking to shut
    ///   down may stop at once.
    /// - `want_shutdown`: starts a controlled shutdown (R6.6): it leaves every ISR (last-member
    ///   rule) and its leaderships move. The reply says `should_shutdown` at a later heartbeat,
    ///   once it leads nothing (Kafka waits for the broker to replay those changes first); the
    ///   broker is then fenced.
    fn on_heartbeat(
        &mut self,
        now: Ms,
        from: NodeId,
        broker: BrokerId,
        broker_epoch: i64,
        want_shutdown: bool,
        out: &mut Outbox,
    ) {
        let Some(b) = self.brokers.get_mut(&broker) else { return };
        if !b.registered || b.broker_epoch != broker_epoch {
            return;
        }
        b.last_heartbeat = now;
        let info = *b;
        let (fenced, should_shutdown) = if info.fenced {
            if want_shutdown || info.in_controlled_shutdown {
                // A fenced broker leads nothing: it may stop now (Kafka: FENCED → SHUTDOWN_NOW).
                self.remove_from_isrs(broker, &ShrinkCause::Fenced, ElectionKind::Clean, out);
                (true, true)
            } else {
                self.unfence(broker, out);
                (false, false)
            }
        } else if info.in_controlled_shutdown {
            if self.leader_count(broker) == 0 {
                self.set_broker(broker, |b| b.fenced = true);
                self.remove_from_isrs(
                    broker,
                    &ShrinkCause::ControlledShutdown,
                    ElectionKind::ControlledShutdown,
                    out,
                );
                (true, true)
            } else {
                (false, false)
            }
        } else if want_shutdown {
            self.set_broker(broker, |b| b.in_controlled_shutdown = true);
            out.emit(EventKind::ControlledShutdownStarted { broker });
            self.remove_from_isrs(
                broker,
                &ShrinkCause::ControlledShutdown,
                ElectionKind::ControlledShutdown,
                out,
            );
            (false, false)
        } else {
            (false, false)
        };
        out.send(from, Message::HeartbeatResponse { fenced, should_shutdown });
    }

    /// `AlterPartition` from a leader (R4.9, R4.10): validation as [`validate_alter`], then the
    /// new ISR and leader recovery state with partition epoch + 1 (leader epoch unchanged).
    /// A request that changes nothing succeeds without a new epoch. No ISR events: the leader
    /// reports its own ISR changes when it learns the result. An ISR that holds every target
    /// replica completes a reassignment (KIP-455, `PartitionChangeBuilder.
    /// completeReassignmentIfNeeded`): `ReassignmentCompleted`, and when that took the
    /// leadership from the sender, `LeaderChanged` and the answer `NEW_LEADER_ELECTED`
    /// (`ReplicationControlManager.alterPartition`; the change is applied all the same).
    fn alter_partition(
        &mut self,
        sender: BrokerId,
        tp: &TopicPartition,
        (leader_epoch, partition_epoch): (Epoch, Epoch),
        new_isr: &[IsrMember],
        recovery: LeaderRecoveryState,
        out: &mut Outbox,
    ) -> Result<PartitionState, ErrorCode> {
        let active = self.active_set();
        let bump = self.config.semantics.leader_epoch_bump_on_isr_shrink;
        let topic = self.topics.get_mut(&*tp.topic).ok_or(ErrorCode::UnknownTopicOrPartition)?;
        let unclean = topic.config.unclean_election_automatic(&self.config);
        let p = topic.partitions.get_mut(tp.partition as usize).ok_or(ErrorCode::UnknownTopicOrPartition)?;
        validate_alter(p, &self.brokers, sender, leader_epoch, partition_epoch, new_isr, recovery)?;
        let ids: Vec<BrokerId> = new_isr.iter().map(|m| m.id).collect();
        let Some(plan) =
            plan_change(p, &ids, Some(recovery), Election::Any { unclean }, &|r| active.contains(&r), bump)
        else {
            return Ok(p.clone());
        };
        let old = std::mem::replace(p, plan.state.clone());
        self.note_partition(plan.state.clone());
        if plan.state.leader != Some(sender) {
            report(&old, &plan, None, ElectionKind::Reassignment, out);
            return Err(ErrorCode::NewLeaderElected);
        }
        report_completion(&old, &plan.state, out);
        Ok(plan.state)
    }

    // ----- controller actions ---------------------------------------------------------------

    /// Fences every unfenced broker silent for longer than `broker.session.timeout.ms`, oldest
    /// heartbeat first (R6.1, R6.2; `BrokerHeartbeatManager.hasValidSession`).
    fn fence_stale_brokers(&mut self, now: Ms, out: &mut Outbox) {
        let timeout = self.config.broker_session_timeout_ms;
        let mut stale: Vec<(Ms, BrokerId)> = self
            .brokers
            .values()
            .filter(|b| b.registered && !b.fenced && now.saturating_sub(b.last_heartbeat) > timeout)
            .map(|b| (b.last_heartbeat, b.id))
            .collect();
        stale.sort_unstable();
        for (last, broker) in stale {
            out.emit(EventKind::BrokerFenced { broker, silent_ms: now - last, timeout_ms: timeout });
            self.set_broker(broker, |b| b.fenced = true);
            self.remove_from_isrs(broker, &ShrinkCause::Fenced, ElectionKind::Clean, out);
        }
    }

    /// `handleBrokerFenced` / controlled shutdown / re-registration (R4.8, R6.2, R6.6): for every
    /// partition with `broker` in its ISR, target ISR = ISR − broker and the KRaft election with
    /// `broker` never acceptable (R6.3); unclean where the topic allows it (R6.5).
    fn remove_from_isrs(
        &mut self,
        broker: BrokerId,
        cause: &ShrinkCause,
        kind: ElectionKind,
        out: &mut Outbox,
    ) {
        let active = self.active_set();
        let acceptable = |r: BrokerId| r != broker && active.contains(&r);
        let bump = self.config.semantics.leader_epoch_bump_on_isr_shrink;
        let changed = self.change_partitions(|p, unclean| {
            if !p.isr.contains(&broker) {
                return None;
            }
            let target: Vec<BrokerId> = p.isr.iter().copied().filter(|&r| r != broker).collect();
            plan_change(p, &target, None, Election::Any { unclean }, &acceptable, bump)
        });
        for (old, plan) in &changed {
            report(old, plan, Some(cause), kind, out);
        }
    }

    /// `handleBrokerUnfenced` (R6.4): marks the broker unfenced, emits `BrokerUnfenced`, then
    /// elects a leader for every leaderless partition that now has an acceptable ISR member, or
    /// an unclean one where the topic allows it (R6.5, Kafka 3.9+).
    fn unfence(&mut self, broker: BrokerId, out: &mut Outbox) {
        self.set_broker(broker, |b| b.fenced = false);
        out.emit(EventKind::BrokerUnfenced { broker });
        self.elect_leaderless(false, usize::MAX, out);
    }

    /// Elects leaderless partitions: all of them (at unfencing), or with `only_unclean_topics`
    /// only those whose topic allows unclean election (the unclean check,
    /// `ReplicationControlManager.maybeElectUncleanLeaders`), at most `max` elections. Returns
    /// whether some were left for a next run.
    fn elect_leaderless(&mut self, only_unclean_topics: bool, max: usize, out: &mut Outbox) -> bool {
        let active = self.active_set();
        let acceptable = |r: BrokerId| active.contains(&r);
        let bump = self.config.semantics.leader_epoch_bump_on_isr_shrink;
        let (mut elected, mut more) = (0, false);
        let changed = self.change_partitions(|p, unclean| {
            if p.leader.is_some() || (only_unclean_topics && !unclean) {
                return None;
            }
            if elected >= max {
                more = true;
                return None;
            }
            let plan = plan_change(p, &p.isr, None, Election::Any { unclean }, &acceptable, bump)?;
            elected += 1;
            Some(plan)
        });
        for (old, plan) in &changed {
            report(old, plan, None, ElectionKind::Recovered, out);
        }
        more
    }

    /// One auto-rebalance run (R6.7, KRaft `maybeBalancePartitionLeaders`): every partition whose
    /// leader is not its preferred replica gets a preferred election, which moves leadership
    /// only when the preferred replica is in the ISR and active. At most
    /// [`MAX_ELECTIONS_PER_IMBALANCE`] elections; returns whether some were left for later.
    fn balance_leaders(&mut self, out: &mut Outbox) -> bool {
        let active = self.active_set();
        let acceptable = |r: BrokerId| active.contains(&r);
        let bump = self.config.semantics.leader_epoch_bump_on_isr_shrink;
        let mut elected = 0;
        let mut more = false;
        let changed = self.change_partitions(|p, _| {
            if p.leader == p.replicas.first().copied() {
                return None;
            }
            if elected >= MAX_ELECTIONS_PER_IMBALANCE {
                more = true;
                return None;
            }
            let plan = plan_change(p, &p.isr, None, Election::Preferred, &acceptable, bump)?;
            elected += 1;
            Some(plan)
        });
        for (old, plan) in &changed {
            report(old, plan, None, ElectionKind::Preferred, out);
        }
        more
    }

    // ----- helpers --------------------------------------------------------------------------

    /// Hands out the next broker epoch (monotonic, like KRaft's metadata offsets).
    fn next_broker_epoch(&mut self) -> i64 {
        self.last_broker_epoch += 1;
        self.last_broker_epoch
    }

    /// Whether a broker is active (may lead or join an ISR).
    fn is_active(&self, id: BrokerId) -> bool {
        self.brokers.get(&id).is_some_and(BrokerInfo::is_active)
    }

    /// The ids of all active brokers.
    fn active_set(&self) -> BTreeSet<BrokerId> {
        self.brokers.values().filter(|b| b.is_active()).map(|b| b.id).collect()
    }

    /// Edits a broker's record and queues its registration for the next broadcast.
    fn set_broker(&mut self, id: BrokerId, edit: impl FnOnce(&mut BrokerInfo)) {
        if let Some(b) = self.brokers.get_mut(&id) {
            edit(b);
            self.note_broker(id);
        }
    }

    /// Runs `plan` over every partition in (topic, partition) order, with whether its topic
    /// allows unclean election; applies and queues the changes; returns (old state, plan) pairs.
    fn change_partitions<F>(&mut self, mut plan: F) -> Vec<(PartitionState, Plan)>
    where
        F: FnMut(&PartitionState, bool) -> Option<Plan>,
    {
        let mut changed = Vec::new();
        for topic in self.topics.values_mut() {
            let unclean = topic.config.unclean_election_automatic(&self.config);
            for p in &mut topic.partitions {
                if let Some(next) = plan(p, unclean) {
                    let old = std::mem::replace(p, next.state.clone());
                    changed.push((old, next));
                }
            }
        }
        for (_, next) in &changed {
            self.note_partition(next.state.clone());
        }
        changed
    }

    /// Queues a broker's registration for the next broadcast (latest wins).
    fn note_broker(&mut self, id: BrokerId) {
        let Some(reg) = self.brokers.get(&id).map(BrokerInfo::registration) else { return };
        match self.pending.brokers.iter_mut().find(|r| r.id == id) {
            Some(slot) => *slot = reg,
            None => self.pending.brokers.push(reg),
        }
    }

    /// Queues a partition state for the next broadcast (latest wins).
    fn note_partition(&mut self, state: PartitionState) {
        match self.pending.partitions.iter_mut().find(|p| p.tp == state.tp) {
            Some(slot) => *slot = state,
            None => self.pending.partitions.push(state),
        }
    }

    /// After every write, as `QuorumController` does (`maybeScheduleNextElectUncleanLeaders`,
    /// `maybeScheduleNextBalancePartitionLeaders`): arm the unclean check one
    /// `unclean.leader.election.interval.ms` from now if none is armed and some partition has
    /// no leader; schedule a rebalance run one interval from now if auto-rebalance is on, none
    /// is scheduled and some partition is not led by its preferred replica; cancel the
    /// rebalance when auto-rebalance is off. The unclean check exists only where the KRaft
    /// controller applies unclean election itself ([`crate::config::Semantics::kraft_unclean_election`],
    /// KAFKA-12670, Kafka 3.9).
    fn after_write(&mut self, now: Ms) {
        let unclean_task = self.config.semantics.kraft_unclean_election;
        if unclean_task && self.unclean_check.is_none() && self.partitions().any(|p| p.leader.is_none()) {
            self.unclean_check = Some(DeferredRun { armed_at: now, immediate: false });
        }
        if !self.config.auto_leader_rebalance_enable {
            self.rebalance = None;
            return;
        }
        if self.rebalance.is_none() && self.partitions().any(|p| p.leader != p.replicas.first().copied()) {
            self.rebalance = Some(DeferredRun { armed_at: now, immediate: false });
        }
    }

    /// Sends the queued changes, if any, to every broker that ever registered and every client.
    fn flush(&mut self, out: &mut Outbox) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    const CLIENT: NodeId = NodeId::Producer(0);

    /// A controller with every broker bootstrapped (registered, unfenced) at t=0 and one client.
    pub(super) fn cluster(ids: &[BrokerId]) -> QuorumController {
        let mut c = QuorumController::new(BrokerConfig::default(), ids, ChaCha8Rng::seed_from_u64(42));
        for &id in ids {
            c.bootstrap_broker(id, 0);
        }
        c.add_client(CLIENT);
        c
    }

    fn spec(name: &str, partitions: u32, rf: u32, placement: Placement) -> TopicSpec {
        TopicSpec {
            name: name.into(),
            partitions,
            replication_factor: rf,
            placement,
            config: TopicConfig::default(),
        }
    }

    pub(super) fn explicit(c: &mut QuorumController, name: &str, lists: Vec<Vec<BrokerId>>) {
        let (n, rf) = (lists.len() as u32, lists[0].len() as u32);
        c.create_topic(0, &spec(name, n, rf, Placement::Explicit(lists)), &mut Outbox::default()).unwrap();
    }

    pub(super) fn part(c: &QuorumController, topic: &str, p: u32) -> PartitionState {
        c.partition(&TopicPartition::new(topic, p)).unwrap().clone()
    }

    fn heartbeat(c: &mut QuorumController, now: Ms, id: BrokerId, want_shutdown: bool) -> Outbox {
        let mut out = Outbox::default();
        let epoch = c.broker(id).unwrap().broker_epoch;
        c.handle(
            now,
            NodeId::Broker(id),
            Message::Heartbeat { broker: id, broker_epoch: epoch, want_shutdown },
            &mut out,
        );
        out
    }

    fn register(c: &mut QuorumController, now: Ms, id: BrokerId) -> Outbox {
        let mut out = Outbox::default();
        c.handle(now, NodeId::Broker(id), Message::RegisterBroker { broker: id }, &mut out);
        out
    }

    /// Lets time run to `until`: the listed brokers heartbeat every 2 s, on_tick runs at every
    /// deadline. Returns everything the controller produced.
    pub(super) fn run(c: &mut QuorumController, from: Ms, until: Ms, alive: &[BrokerId]) -> Outbox {
        let mut out = Outbox::default();
        let mut next_hb = (from / 2000 + 1) * 2000;
        loop {
            let deadline = c.next_deadline().unwrap();
            let t = deadline.min(next_hb);
            if t > until {
                return out;
            }
            if t == next_hb {
                for &id in alive {
                    let o = heartbeat(c, t, id, false);
                    out.sends.extend(o.sends);
                    out.events.extend(o.events);
                }
                next_hb += 2000;
            }
            if c.next_deadline().is_some_and(|d| d <= t) {
                c.on_tick(t, &mut out);
            }
            c.check_invariants().unwrap();
        }
    }

    fn heartbeat_reply(out: &Outbox) -> (bool, bool) {
        out.sends
            .iter()
            .find_map(|(_, m)| match m {
                Message::HeartbeatResponse { fenced, should_shutdown } => Some((*fenced, *should_shutdown)),
                _ => None,
            })
            .expect("a heartbeat response")
    }

    pub(super) fn leader_changes(
        out: &Outbox,
    ) -> Vec<(u32, Option<BrokerId>, Option<BrokerId>, ElectionKind)> {
        out.events
            .iter()
            .filter_map(|e| match e {
                EventKind::LeaderChanged { tp, old_leader, new_leader, kind, .. } => {
                    Some((tp.partition, *old_leader, *new_leader, *kind))
                }
                _ => None,
            })
            .collect()
    }

    const SEED_LISTS: [[BrokerId; 3]; 6] = [[0, 1, 2], [1, 2, 0], [2, 0, 1], [0, 2, 1], [1, 0, 2], [2, 1, 0]];

    /// KAFKA-15021 (metadata versions before 3.6): every ISR shrink bumped the leader epoch,
    /// also when the leader stayed. Read from the semantics; off in Kafka 4.x (R4.10).
    #[test]
    fn an_isr_shrink_bumps_the_leader_epoch_only_where_the_semantics_says_so() {
        for bump in [false, true] {
            let mut c = cluster(&[0, 1, 2]);
            c.config.semantics.leader_epoch_bump_on_isr_shrink = bump;
            explicit(&mut c, "t", vec![vec![0, 1, 2]]);
            run(&mut c, 0, 9001, &[0, 1]);
            let p = part(&c, "t", 0);
            assert_eq!((p.leader, p.isr.clone(), p.partition_epoch), (Some(0), vec![0, 1], 1));
            assert_eq!(p.leader_epoch, i32::from(bump), "bump on shrink = {bump}");
        }
    }

    #[test]
    fn fencing_broker_2_in_the_seed_example() {
        let mut c = cluster(&[0, 1, 2]);
        explicit(&mut c, "test_repli", SEED_LISTS.iter().map(|l| l.to_vec()).collect());
        let out = run(&mut c, 0, 9001, &[0, 1]);
        assert!(out.events.contains(&EventKind::BrokerFenced {
            broker: 2,
            silent_ms: 9001,
            timeout_ms: 9000
        }));
        assert!(c.broker(2).unwrap().fenced);
        for (i, replicas) in SEED_LISTS.iter().enumerate() {
            let p = part(&c, "test_repli", i as u32);
            assert_eq!(p.replicas, replicas.to_vec(), "replica lists keep broker 2");
            let want_isr: Vec<BrokerId> = replicas.iter().copied().filter(|&r| r != 2).collect();
            assert_eq!(p.isr, want_isr);
            assert_eq!(p.partition_epoch, 1);
            // R4.10: removing a follower does not bump the leader epoch; a leader change does.
            let moved = replicas[0] == 2;
            assert_eq!(p.leader_epoch, if moved { 1 } else { 0 }, "partition {i}");
        }
        assert_eq!(part(&c, "test_repli", 2).leader, Some(0));
        assert_eq!(part(&c, "test_repli", 5).leader, Some(1));
        assert_eq!(
            leader_changes(&out),
            vec![(2, Some(2), Some(0), ElectionKind::Clean), (5, Some(2), Some(1), ElectionKind::Clean)]
        );
        let shrinks = out
            .events
            .iter()
            .filter(|e| matches!(e, EventKind::IsrShrunk { removed, cause: ShrinkCause::Fenced, .. } if removed == &vec![2]))
            .count();
        assert_eq!(shrinks, 6);
        // One broadcast to every registered broker (the network drops the dead one's) and the client.
        let fence_broadcast: Vec<NodeId> = out
            .sends
            .iter()
            .filter(|(_, m)| matches!(m, Message::Metadata(d) if d.partitions.len() == 6))
            .map(|(to, _)| *to)
            .collect();
        assert_eq!(fence_broadcast, vec![NodeId::Broker(0), NodeId::Broker(1), NodeId::Broker(2), CLIENT]);
    }

    #[test]
    fn last_isr_member_keeps_its_place_and_the_partition_goes_offline_s8() {
        let mut c = cluster(&[1, 2]);
        explicit(&mut c, "t", vec![vec![1, 2]]);
        // Broker 2 crashes: fenced after 9 s, ISR [1].
        run(&mut c, 0, 9001, &[1]);
        let p = part(&c, "t", 0);
        assert_eq!((p.leader, p.leader_epoch, p.isr.clone()), (Some(1), 0, vec![1]));
        // Broker 1 crashes at 10 s: offline, ISR kept, leader epoch 1.
        let out = run(&mut c, 9001, 19_001, &[]);
        let p = part(&c, "t", 0);
        assert_eq!((p.leader, p.leader_epoch, p.isr.clone()), (None, 1, vec![1]));
        assert_eq!(leader_changes(&out), vec![(0, Some(1), None, ElectionKind::Clean)]);
        assert!(!out.events.iter().any(|e| matches!(e, EventKind::IsrShrunk { .. })));
        // Broker 2 restarts: still offline, it is not in the ISR.
        register(&mut c, 20_000, 2);
        let out = heartbeat(&mut c, 20_100, 2, false);
        assert_eq!(heartbeat_reply(&out), (false, false));
        assert_eq!(part(&c, "t", 0).leader, None);
        // Broker 1 restarts: re-registration keeps it as last member; unfencing elects it.
        register(&mut c, 21_000, 1);
        assert_eq!(part(&c, "t", 0).isr, vec![1]);
        let out = heartbeat(&mut c, 21_100, 1, false);
        assert!(out.events.contains(&EventKind::BrokerUnfenced { broker: 1 }));
        let p = part(&c, "t", 0);
        assert_eq!((p.leader, p.leader_epoch, p.isr.clone()), (Some(1), 2, vec![1]));
        assert_eq!(leader_changes(&out), vec![(0, None, Some(1), ElectionKind::Recovered)]);
        c.check_invariants().unwrap();
    }

    #[test]
    fn unclean_election_when_enabled_s9() {
        let mut c = cluster(&[1, 2]);
        explicit(&mut c, "t", vec![vec![1, 2]]);
        c.set_topic_config(0, "t", "unclean.leader.election.enable", "true", &mut Outbox::default()).unwrap();
        run(&mut c, 0, 9001, &[1]);
        run(&mut c, 9001, 19_001, &[]);
        assert_eq!(part(&c, "t", 0).leader, None);
        // Broker 2 restarts: at unfencing (3.9+) the unclean election happens at once.
        register(&mut c, 20_000, 2);
        let out = heartbeat(&mut c, 20_100, 2, false);
        let p = part(&c, "t", 0);
        assert_eq!((p.leader, p.leader_epoch, p.isr.clone()), (Some(2), 2, vec![2]));
        assert_eq!(p.leader_recovery, LeaderRecoveryState::Recovering);
        assert_eq!(leader_changes(&out), vec![(0, None, Some(2), ElectionKind::Unclean)]);
        // Broker 1 comes back: it is not elected (2 is a valid leader), and its re-registration
        // leaves the ISR [2] alone.
        register(&mut c, 21_000, 1);
        heartbeat(&mut c, 21_100, 1, false);
        assert_eq!(part(&c, "t", 0).leader, Some(2));
        // Recovery ends with the leader's first AlterPartition; RECOVERING with two members is refused.
        let alter = |isr: Vec<IsrMember>, rec| Message::AlterPartition {
            leader: 2,
            broker_epoch: 0,
            tp: TopicPartition::new("t", 0),
            leader_epoch: 2,
            partition_epoch: 3,
            new_isr: isr,
            leader_recovery: rec,
        };
        let both = vec![IsrMember { id: 2, broker_epoch: -1 }, IsrMember { id: 1, broker_epoch: -1 }];
        let mut out = Outbox::default();
        c.handle(21_200, NodeId::Broker(2), alter(both.clone(), LeaderRecoveryState::Recovering), &mut out);
        assert!(matches!(
            &out.sends[0].1,
            Message::AlterPartitionResponse { result: Err(ErrorCode::IneligibleReplica), .. }
        ));
        let mut out = Outbox::default();
        c.handle(21_300, NodeId::Broker(2), alter(both, LeaderRecoveryState::Recovered), &mut out);
        let p = part(&c, "t", 0);
        assert_eq!(
            (p.isr.clone(), p.leader_recovery, p.leader_epoch),
            (vec![2, 1], LeaderRecoveryState::Recovered, 2)
        );
    }

    /// R6.5 in KRaft (`QuorumController.maybeScheduleNextElectUncleanLeaders`): the unclean
    /// check is armed by the write that leaves a partition leaderless, runs one
    /// `unclean.leader.election.interval.ms` later, and is armed again only while leaderless
    /// partitions remain. Enabling unclean election acts at that check, not at once.
    #[test]
    fn enabling_unclean_acts_at_the_check_armed_when_the_partition_went_offline() {
        let mut c = cluster(&[1, 2]);
        explicit(&mut c, "t", vec![vec![1, 2]]);
        assert_eq!(c.next_unclean_check_at(), None, "every partition has a leader");
        run(&mut c, 0, 9001, &[1]);
        let out = run(&mut c, 9001, 19_001, &[]);
        assert_eq!(leader_changes(&out), vec![(0, Some(1), None, ElectionKind::Clean)]);
        let offline_at = 8000 + 9001;
        assert_eq!(c.next_unclean_check_at(), Some(offline_at + 300_000));
        register(&mut c, 20_000, 2);
        run(&mut c, 20_000, 30_000, &[2]);
        assert!(!c.broker(2).unwrap().fenced);
        assert_eq!(part(&c, "t", 0).leader, None);
        c.set_broker_config(30_000, "unclean.leader.election.enable", "true", &mut Outbox::default())
            .unwrap();
        assert_eq!(part(&c, "t", 0).leader, None, "not at once");
        assert_eq!(c.next_unclean_check_at(), Some(offline_at + 300_000), "writes do not move it");
        let out = run(&mut c, 30_000, offline_at + 299_999, &[2]);
        assert!(leader_changes(&out).is_empty(), "not at 300 s on a fixed grid");
        let out = run(&mut c, offline_at + 299_999, offline_at + 300_000, &[2]);
        assert_eq!(leader_changes(&out), vec![(0, None, Some(2), ElectionKind::Unclean)]);
        assert_eq!(c.next_unclean_check_at(), None, "nothing leaderless: not armed again");
    }

    /// KRaft before 3.9 (no KAFKA-12670) never elects an unclean leader by itself: no check is
    /// armed and the topic's setting waits for an admin election. Read from the semantics.
    #[test]
    fn without_the_kraft_unclean_task_an_offline_partition_stays_offline() {
        let mut c = cluster(&[1, 2]);
        c.config.semantics.kraft_unclean_election = false;
        explicit(&mut c, "t", vec![vec![1, 2]]);
        c.set_topic_config(0, "t", "unclean.leader.election.enable", "true", &mut Outbox::default()).unwrap();
        run(&mut c, 0, 9001, &[1]);
        run(&mut c, 9001, 19_001, &[]);
        assert_eq!(part(&c, "t", 0).leader, None);
        assert_eq!(c.next_unclean_check_at(), None, "no unclean task");
        register(&mut c, 20_000, 2);
        run(&mut c, 20_000, 30_000, &[2]);
        assert_eq!(part(&c, "t", 0).leader, None, "not even when broker 2 is unfenced");
    }

    /// A check that finds its partitions' topics still refusing unclean election is armed again
    /// one interval later, as long as a partition stays leaderless.
    #[test]
    fn the_unclean_check_re_arms_while_partitions_stay_leaderless() {
        let mut c = cluster(&[1, 2]);
        explicit(&mut c, "t", vec![vec![1, 2]]);
        run(&mut c, 0, 9001, &[1]);
        run(&mut c, 9001, 19_001, &[]);
        let first = c.next_unclean_check_at().unwrap();
        run(&mut c, 19_001, first, &[2]);
        assert_eq!(c.next_unclean_check_at(), Some(first + 300_000));
    }

    #[test]
    fn controlled_shutdown_moves_leadership_then_lets_the_broker_stop() {
        let mut c = cluster(&[1, 2, 3]);
        explicit(&mut c, "t", vec![vec![1, 2, 3], vec![2, 1, 3]]);
        explicit(&mut c, "solo", vec![vec![1]]);
        let out = heartbeat(&mut c, 1000, 1, true);
        assert_eq!(heartbeat_reply(&out), (false, false));
        assert_eq!(out.events[0], EventKind::ControlledShutdownStarted { broker: 1 });
        let p0 = part(&c, "t", 0);
        assert_eq!((p0.leader, p0.leader_epoch, p0.isr.clone()), (Some(2), 1, vec![2, 3]));
        let p1 = part(&c, "t", 1);
        assert_eq!((p1.leader, p1.leader_epoch, p1.isr.clone()), (Some(2), 0, vec![2, 3]));
        // KRaft: the sole ISR member in controlled shutdown is not an acceptable leader.
        let solo = part(&c, "solo", 0);
        assert_eq!((solo.leader, solo.leader_epoch, solo.isr.clone()), (None, 1, vec![1]));
        assert_eq!(
            leader_changes(&out),
            vec![
                (0, Some(1), None, ElectionKind::ControlledShutdown),
                (0, Some(1), Some(2), ElectionKind::ControlledShutdown)
            ]
        );
        assert!(out.events.iter().any(|e| matches!(
            e,
            EventKind::IsrShrunk { tp, cause: ShrinkCause::ControlledShutdown, .. } if tp.partition == 1
        )));
        assert!(c.broker(1).unwrap().in_controlled_shutdown);
        // Next heartbeat: it leads nothing, so it may stop; the controller fences it.
        let out = heartbeat(&mut c, 1500, 1, true);
        assert_eq!(heartbeat_reply(&out), (true, true));
        let b = c.broker(1).unwrap();
        assert!(b.fenced && b.in_controlled_shutdown);
        // A broker in controlled shutdown is not used by the placer and does not count (R1.7).
        let err =
            c.create_topic(2000, &spec("x", 1, 3, Placement::Kafka), &mut Outbox::default()).unwrap_err();
        assert!(err.to_string().ends_with("only 2 broker(s) are registered."), "{err}");
    }

    #[test]
    fn alter_partition_validation() {
        let mut c = cluster(&[0, 1, 2]);
        explicit(&mut c, "t", vec![vec![0, 1, 2]]);
        let tp = TopicPartition::new("t", 0);
        let m = |id| IsrMember { id, broker_epoch: -1 };
        let send = |c: &mut QuorumController, leader, le, pe, isr: Vec<IsrMember>| {
            let mut out = Outbox::default();
            let msg = Message::AlterPartition {
                leader,
                broker_epoch: 1,
                tp: tp.clone(),
                leader_epoch: le,
                partition_epoch: pe,
                new_isr: isr,
                leader_recovery: LeaderRecoveryState::Recovered,
            };
            c.handle(5, NodeId::Broker(leader), msg, &mut out);
            assert!(out.events.is_empty(), "leader-driven changes emit no controller events");
            match &out.sends[0] {
                (to, Message::AlterPartitionResponse { result, .. }) => {
                    assert_eq!(*to, NodeId::Broker(leader));
                    (result.clone(), out.sends.len())
                }
                other => panic!("unexpected {other:?}"),
            }
        };
        use ErrorCode::*;
        assert_eq!(send(&mut c, 0, 1, 0, vec![m(0), m(1)]).0, Err(NotController));
        assert_eq!(send(&mut c, 0, 0, 1, vec![m(0), m(1)]).0, Err(NotController));
        assert_eq!(send(&mut c, 1, 0, 0, vec![m(0), m(1)]).0, Err(FencedLeaderEpoch));
        assert_eq!(send(&mut c, 0, 0, 0, vec![m(1)]).0, Err(IneligibleReplica), "ISR without the leader");
        assert_eq!(send(&mut c, 0, 0, 0, vec![m(0), m(7)]).0, Err(IneligibleReplica), "not a replica");
        assert_eq!(send(&mut c, 0, 0, 0, vec![m(0), m(0)]).0, Err(IneligibleReplica), "duplicate");
        let wrong_epoch = IsrMember { id: 1, broker_epoch: 99 };
        assert_eq!(send(&mut c, 0, 0, 0, vec![m(0), wrong_epoch]).0, Err(IneligibleReplica));
        // Success: shrink to [0,1]; partition epoch +1, leader epoch unchanged, broadcast follows.
        let (ok, sends) = send(&mut c, 0, 0, 0, vec![m(0), m(1)]);
        let p = ok.unwrap();
        assert_eq!((p.isr.clone(), p.leader_epoch, p.partition_epoch), (vec![0, 1], 0, 1));
        assert_eq!(sends, 1 + 4, "response, then metadata to 3 brokers and the client");
        assert_eq!(part(&c, "t", 0), p);
        // The old partition epoch is now stale.
        assert_eq!(send(&mut c, 0, 0, 0, vec![m(0), m(1), m(2)]).0, Err(InvalidUpdateVersion));
        // A fenced member is ineligible.
        run(&mut c, 0, 9001, &[0, 1]);
        assert!(c.broker(2).unwrap().fenced);
        assert_eq!(send(&mut c, 0, 0, 1, vec![m(0), m(1), m(2)]).0, Err(IneligibleReplica));
        // Unknown partition.
        let mut out = Outbox::default();
        let msg = Message::AlterPartition {
            leader: 0,
            broker_epoch: 1,
            tp: TopicPartition::new("t", 9),
            leader_epoch: 0,
            partition_epoch: 0,
            new_isr: vec![m(0)],
            leader_recovery: LeaderRecoveryState::Recovered,
        };
        c.handle(9002, NodeId::Broker(0), msg, &mut out);
        assert!(matches!(
            &out.sends[0].1,
            Message::AlterPartitionResponse { result: Err(UnknownTopicOrPartition), .. }
        ));
    }

    fn refused(out: &Outbox) -> bool {
        out.sends.iter().any(|(_, m)| {
            matches!(m, Message::RegisterBrokerRefused { error: ErrorCode::DuplicateBrokerRegistration })
        })
    }

    /// `ClusterControlManager.registerBroker` + `BrokerHeartbeatManager.hasValidSession`: a new
    /// incarnation of a broker whose previous one was heard from within
    /// `broker.session.timeout.ms` is refused with DUPLICATE_BROKER_REGISTRATION, and nothing
    /// changes. Once the controller fenced the old session (R6.2: that is what empties its
    /// ISR seats and moves its leaderships), the registration is accepted: new broker epoch,
    /// fenced, no partition touched; its first heartbeat unfences it and re-elects (R6.4).
    #[test]
    fn restart_within_the_session_is_refused_until_the_old_session_is_fenced() {
        let mut c = cluster(&[0, 1, 2]);
        explicit(&mut c, "t", vec![vec![2, 0, 1], vec![0, 1, 2]]);
        explicit(&mut c, "solo", vec![vec![2]]);
        let before = c.full_image();
        let old_epoch = c.broker(2).unwrap().broker_epoch;
        let out = register(&mut c, 3000, 2);
        assert!(refused(&out));
        assert_eq!(
            out.events,
            vec![EventKind::BrokerRegistrationRefused { broker: 2, silent_ms: 3000, timeout_ms: 9000 }]
        );
        assert!(
            out.events[0].to_string().contains("retries until that session expires"),
            "{}",
            out.events[0]
        );
        assert_eq!(c.full_image(), before, "a refusal changes nothing");
        assert_eq!(out.sends.len(), 1, "no metadata broadcast");
        // Still refused at exactly the session timeout (Kafka expires it only after).
        run(&mut c, 3000, 8999, &[0, 1]);
        assert!(refused(&register(&mut c, 9000, 2)));
        // Fencing at 9001 moves leadership and takes 2 out of the ISRs; the solo partition goes
        // offline, keeping its last ISR member.
        run(&mut c, 9000, 9001, &[0, 1]);
        assert!(c.broker(2).unwrap().fenced);
        assert_eq!((part(&c, "t", 0).leader, part(&c, "t", 0).isr.clone()), (Some(0), vec![0, 1]));
        assert_eq!(part(&c, "t", 1).isr, vec![0, 1]);
        assert_eq!((part(&c, "solo", 0).leader, part(&c, "solo", 0).isr.clone()), (None, vec![2]));
        let image = c.full_image();
        let out = register(&mut c, 9500, 2);
        let b = *c.broker(2).unwrap();
        assert!(b.fenced && b.broker_epoch > old_epoch);
        assert_eq!(out.events, vec![EventKind::BrokerRegistered { broker: 2, broker_epoch: b.broker_epoch }]);
        assert_eq!(c.full_image().partitions, image.partitions, "registration touches no partition");
        match &out.sends[0] {
            (NodeId::Broker(2), Message::RegisterBrokerResponse { broker_epoch, image }) => {
                assert_eq!(*broker_epoch, b.broker_epoch);
                assert_eq!(image, &c.full_image());
            }
            other => panic!("unexpected {other:?}"),
        }
        // A heartbeat with the old epoch is ignored.
        let mut stale = Outbox::default();
        let msg = Message::Heartbeat { broker: 2, broker_epoch: old_epoch, want_shutdown: false };
        c.handle(9600, NodeId::Broker(2), msg, &mut stale);
        assert!(stale.sends.is_empty() && c.broker(2).unwrap().fenced);
        // First heartbeat of the new incarnation: unfenced, the offline partition re-elected.
        let out = heartbeat(&mut c, 9700, 2, false);
        assert_eq!(heartbeat_reply(&out), (false, false));
        assert!(!c.broker(2).unwrap().fenced);
        assert_eq!(leader_changes(&out), vec![(0, None, Some(2), ElectionKind::Recovered)]);
        let solo = part(&c, "solo", 0);
        assert_eq!((solo.leader, solo.leader_epoch, solo.partition_epoch), (Some(2), 2, 2));
        c.check_invariants().unwrap();
    }

    /// A registration that arrives in the very millisecond the old session runs out, before the
    /// fencing timer fired, fences the old session first and is then accepted.
    #[test]
    fn registration_at_session_expiry_fences_the_old_session_first() {
        let mut c = cluster(&[0, 1]);
        explicit(&mut c, "t", vec![vec![1, 0]]);
        run(&mut c, 0, 9000, &[0]);
        let out = register(&mut c, 9001, 1);
        assert!(!refused(&out));
        assert!(matches!(
            &out.events[..],
            [EventKind::BrokerFenced { broker: 1, .. }, .., EventKind::BrokerRegistered { broker: 1, .. }]
        ));
        assert_eq!(part(&c, "t", 0).leader, Some(0));
    }

    /// KAFKA-19047: a broker whose registration is in controlled shutdown may register again
    /// at once, whether it completed the shutdown (fenced) or died during it (still unfenced).
    #[test]
    fn a_broker_in_controlled_shutdown_registers_again_at_once() {
        let mut c = cluster(&[1, 2, 3]);
        explicit(&mut c, "t", vec![vec![1, 2, 3]]);
        heartbeat(&mut c, 1000, 1, true);
        heartbeat(&mut c, 1500, 1, true);
        assert!(c.broker(1).unwrap().fenced);
        let out = register(&mut c, 2000, 1);
        assert!(!refused(&out) && c.broker(1).unwrap().registered);
        assert!(!c.broker(1).unwrap().in_controlled_shutdown);
        // Died during its controlled shutdown: unfenced, in controlled shutdown, heard from
        // 100 ms ago.
        heartbeat(&mut c, 2100, 2, true);
        assert!(!c.broker(2).unwrap().fenced && c.broker(2).unwrap().in_controlled_shutdown);
        assert!(!refused(&register(&mut c, 2200, 2)));
    }

    /// Before KAFKA-19047 (Kafka 4.0.0) a registration in controlled shutdown with a live
    /// session blocked a new incarnation like any other: the rule is read from the semantics.
    #[test]
    fn without_kafka_19047_controlled_shutdown_does_not_free_the_session() {
        let mut c = cluster(&[1, 2, 3]);
        c.config.semantics.reregister_after_controlled_shutdown = false;
        explicit(&mut c, "t", vec![vec![1, 2, 3]]);
        heartbeat(&mut c, 2100, 2, true);
        assert!(!c.broker(2).unwrap().fenced && c.broker(2).unwrap().in_controlled_shutdown);
        assert!(refused(&register(&mut c, 2200, 2)));
    }

    #[test]
    fn auto_rebalance_restores_the_preferred_leader_s10() {
        let mut c = cluster(&[1, 2, 3]);
        explicit(&mut c, "t", vec![vec![1, 2, 3]]);
        assert_eq!(c.next_rebalance_at(), None, "balanced");
        heartbeat(&mut c, 1000, 1, true);
        heartbeat(&mut c, 1500, 1, true);
        assert_eq!(part(&c, "t", 0).leader, Some(2));
        assert_eq!(c.next_rebalance_at(), Some(1000 + 300_000));
        run(&mut c, 1500, 10_000, &[2, 3]);
        // Broker 1 restarts and the leader adds it back to the ISR.
        register(&mut c, 10_000, 1);
        heartbeat(&mut c, 10_100, 1, false);
        let p = part(&c, "t", 0);
        let mut out = Outbox::default();
        let msg = Message::AlterPartition {
            leader: 2,
            broker_epoch: 0,
            tp: p.tp.clone(),
            leader_epoch: p.leader_epoch,
            partition_epoch: p.partition_epoch,
            new_isr: [2, 3, 1].iter().map(|&id| IsrMember { id, broker_epoch: -1 }).collect(),
            leader_recovery: LeaderRecoveryState::Recovered,
        };
        c.handle(11_000, NodeId::Broker(2), msg, &mut out);
        assert_eq!(part(&c, "t", 0).isr, vec![2, 3, 1]);
        let out = run(&mut c, 11_000, 301_000, &[1, 2, 3]);
        assert_eq!(leader_changes(&out), vec![(0, Some(2), Some(1), ElectionKind::Preferred)]);
        let p = part(&c, "t", 0);
        assert_eq!((p.leader, p.leader_epoch, p.isr.clone()), (Some(1), 2, vec![2, 3, 1]));
        assert_eq!(c.next_rebalance_at(), None);
    }

    #[test]
    fn rebalance_waits_while_the_preferred_replica_is_out_of_the_isr() {
        let mut c = cluster(&[1, 2]);
        explicit(&mut c, "t", vec![vec![1, 2]]);
        let out = run(&mut c, 0, 9001, &[2]);
        assert_eq!(leader_changes(&out), vec![(0, Some(1), Some(2), ElectionKind::Clean)]);
        register(&mut c, 9500, 1);
        // Broker 1 is back but not in the ISR: the run changes nothing and is re-armed.
        let out = run(&mut c, 9500, 320_000, &[1, 2]);
        assert!(leader_changes(&out).is_empty());
        assert_eq!(c.next_rebalance_at(), Some(9001 + 2 * 300_000));
        c.set_broker_config(320_000, "auto.leader.rebalance.enable", "false", &mut Outbox::default())
            .unwrap();
        assert_eq!(c.next_rebalance_at(), None);
    }

    /// The first FindCoordinator's forwarded creation of `__consumer_offsets` with RF 3 on a
    /// two-broker cluster is refused as the placer refuses any topic (reported once); RF 2 works.
    #[test]
    fn auto_created_offsets_topic_needs_enough_registered_brokers() {
        let mut c = cluster(&[1, 2]);
        let mut out = Outbox::default();
        for now in [0, 1000] {
            c.auto_create_topic(now, &spec("__consumer_offsets", 50, 3, Placement::Kafka), &mut out);
        }
        let refusals: Vec<&EventKind> =
            out.events.iter().filter(|e| matches!(e, EventKind::Group(_))).collect();
        assert_eq!(refusals.len(), 1, "{refusals:?}");
        assert!(refusals[0].to_string().contains("only 2 broker(s) are registered"), "{}", refusals[0]);
        assert!(c.topic("__consumer_offsets").is_none());
        c.auto_create_topic(2000, &spec("__consumer_offsets", 50, 2, Placement::Kafka), &mut out);
        assert_eq!(c.topic("__consumer_offsets").unwrap().partition_count(), 50);
    }

    #[test]
    fn every_created_topic_gets_a_new_id_even_under_a_deleted_name() {
        let mut c = cluster(&[1, 2, 3]);
        let mut out = Outbox::default();
        c.create_topic(0, &spec("t", 2, 3, Placement::Kafka), &mut out).unwrap();
        let first = c.topic("t").unwrap().id;
        c.create_partitions(1, "t", 3, &mut out).unwrap();
        let t = c.topic("t").unwrap();
        assert!(t.partitions.iter().all(|p| p.topic_id == first), "added partitions keep the topic's id");
        assert_ne!(first, TopicId::ZERO);
        c.delete_topic(2, "t", &mut out).unwrap();
        c.create_topic(3, &spec("t", 1, 3, Placement::Kafka), &mut out).unwrap();
        let second = c.topic("t").unwrap().id;
        assert_ne!(first, second, "ReplicationControlManager.createTopic draws a new id");
        assert!(c.full_image().partitions.iter().all(|p| p.topic_id == second));
        let ids: Vec<String> = out
            .events
            .iter()
            .filter_map(|e| match e {
                EventKind::TopicCreated { topic_id, .. } => Some(topic_id.to_string()),
                _ => None,
            })
            .collect();
        assert_eq!(ids, [first.to_string(), second.to_string()]);
    }

    #[test]
    fn create_topic_initial_state_and_errors_s1() {
        let mut c = cluster(&[1, 2, 3]);
        let mut out = Outbox::default();
        c.create_topic(0, &spec("t", 4, 3, Placement::Seed), &mut out).unwrap();
        for (i, want) in [[1, 2, 3], [2, 3, 1], [3, 1, 2], [1, 2, 3]].iter().enumerate() {
            let p = part(&c, "t", i as u32);
            assert_eq!(p.replicas, want.to_vec());
            assert_eq!(p.isr, want.to_vec());
            assert_eq!((p.leader, p.leader_epoch, p.partition_epoch), (Some(want[0]), 0, 0));
        }
        assert!(
            matches!(&out.events[0], EventKind::TopicCreated { topic, assignment, .. } if topic == "t" && assignment.len() == 4)
        );
        assert_eq!(out.sends.len(), 4, "metadata to 3 brokers and the client");
        assert_eq!(c.topic("t").unwrap().replication_factor, 3);
        // Step 2: RF 4.
        let err = c.create_topic(0, &spec("u", 1, 4, Placement::Kafka), &mut Outbox::default()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "INVALID_REPLICATION_FACTOR: Unable to replicate the partition 4 time(s): The target replication factor of 4 cannot be reached because only 3 broker(s) are registered."
        );
        // Duplicate name and bad names.
        let err = c.create_topic(0, &spec("t", 1, 1, Placement::Kafka), &mut Outbox::default()).unwrap_err();
        assert_eq!(err, SimError::TopicExists("t".into()));
        assert!(c.create_topic(0, &spec("a b", 1, 1, Placement::Kafka), &mut Outbox::default()).is_err());
        // Step 3: broker 3 down (fenced); RF 3 still works, ISR = the live replicas.
        run(&mut c, 0, 9001, &[1, 2]);
        let mut out = Outbox::default();
        c.create_topic(9001, &spec("v", 4, 3, Placement::Kafka), &mut out).unwrap();
        for i in 0..4 {
            let p = part(&c, "v", i);
            assert_eq!(p.replicas[2], 3, "the fenced broker is placed last");
            assert_eq!(p.isr, p.replicas[..2].to_vec());
            assert_eq!(p.leader, Some(p.replicas[0]));
        }
        // Seed placement with the fenced broker first: leader = first active replica.
        c.create_topic(9001, &spec("w", 3, 3, Placement::Seed), &mut Outbox::default()).unwrap();
        let p = part(&c, "w", 2);
        assert_eq!((p.replicas.clone(), p.isr.clone(), p.leader), (vec![3, 1, 2], vec![1, 2], Some(1)));
        // An explicit list of fenced brokers only.
        let err = c
            .create_topic(9001, &spec("x", 1, 1, Placement::Explicit(vec![vec![3]])), &mut Outbox::default())
            .unwrap_err();
        assert!(err.to_string().contains("are fenced or in controlled shutdown"), "{err}");
        assert!(c.topic("x").is_none());
    }

    #[test]
    fn config_changes_are_broadcast_without_events() {
        let mut c = cluster(&[0, 1]);
        explicit(&mut c, "t", vec![vec![0, 1]]);
        let mut out = Outbox::default();
        c.set_broker_config(10, "min.insync.replicas", "2", &mut out).unwrap();
        assert!(out.events.is_empty());
        assert_eq!(out.sends.len(), 3);
        assert!(
            matches!(&out.sends[0].1, Message::Metadata(d) if d.broker_config.as_ref().unwrap().min_insync_replicas == 2)
        );
        assert!(c.set_broker_config(10, "acks", "1", &mut Outbox::default()).is_err());
        let mut out = Outbox::default();
        c.set_topic_config(10, "t", "min.insync.replicas", "2", &mut out).unwrap();
        assert!(
            matches!(&out.sends[0].1, Message::Metadata(d) if d.topic_configs[0].1.min_insync_replicas == Some(2))
        );
        assert_eq!(
            c.set_topic_config(10, "nope", "min.insync.replicas", "2", &mut Outbox::default()),
            Err(SimError::UnknownTopic("nope".into()))
        );
        assert!(matches!(
            c.set_topic_config(10, "t", "replica.lag.time.max.ms", "5", &mut Outbox::default()),
            Err(SimError::Config(_))
        ));
    }

    #[test]
    fn same_seed_same_placement() {
        let make = || {
            let mut c = cluster(&[0, 1, 2, 3, 4]);
            c.create_topic(0, &spec("t", 20, 3, Placement::Kafka), &mut Outbox::default()).unwrap();
            c.full_image()
        };
        assert_eq!(make(), make());
    }

    #[test]
    fn the_published_image_follows_every_broadcast() {
        let mut c = cluster(&[0, 1, 2]);
        c.create_topic(0, &spec("t", 3, 3, Placement::Kafka), &mut Outbox::default()).unwrap();
        c.set_broker_config(5, "min.insync.replicas", "2", &mut Outbox::default()).unwrap();
        // Broker 2 stops heartbeating: it is fenced and leaves every ISR.
        run(&mut c, 0, 20_000, &[0, 1]);
        let image = c.image();
        assert!(image.broker(2).unwrap().fenced);
        assert_eq!(image.broker_config().min_insync_replicas, 2);
        let published: Vec<&PartitionState> = image.partitions().collect();
        let internal: Vec<&PartitionState> = c.partitions().collect();
        assert_eq!(published, internal);
        assert!(published.iter().all(|p| !p.isr.contains(&2)));
    }
}
