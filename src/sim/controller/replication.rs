//! Partitions as the controller keeps them (Kafka's `ReplicationControlManager`): topic
//! creation (R1.7, R1.8), AlterPartition from leaders (R4.9, R4.10), the ISR changes a broker's
//! fencing or controlled shutdown causes (R4.8, R6.2, R6.6) and the elections that follow
//! (R6.3–R6.5, R6.7). Each change is planned by [`super::partition_change`], applied here and
//! queued for the next broadcast.

use super::MAX_ELECTIONS_PER_IMBALANCE;
use super::QuorumController;
use super::cluster_control::BrokerInfo;
use super::partition_change::{Election, Plan, Rules, plan_change};
use crate::config::{BrokerConfig, TopicConfig};
use crate::kafka::errors::ErrorCode;
use crate::sim::assignment;
use crate::sim::error::SimError;
use crate::sim::events::{ElectionKind, EventKind, ShrinkCause};
use crate::sim::group::event::GroupEvent;
use crate::sim::protocol::{IsrMember, LeaderRecoveryState, PartitionState};
use crate::sim::spec::{Placement, TopicSpec};
use crate::sim::{BrokerId, Epoch, Ms, Outbox, TopicId, TopicPartition};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

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

/// What a topic's config makes of its partitions' changes.
#[derive(Clone, Copy, Debug)]
pub(super) struct TopicRules {
    /// The topic allows unclean election (R6.5).
    pub(super) unclean: bool,
    /// With ELR on, the topic's effective min ISR ([`Rules::elr_min_isr`]).
    pub(super) elr_min_isr: Option<usize>,
}

/// With ELR on (`eligible.leader.replicas.version=1`), the topic's effective min ISR as the
/// controller computes it (`ReplicationControlManager.getTopicEffectiveMinIsr`:
/// `min.insync.replicas` capped at the replica count of partition 0); `None` with ELR off.
pub(super) fn elr_min_isr(config: &BrokerConfig, topic: &TopicInfo) -> Option<usize> {
    config.semantics.eligible_leader_replicas.then(|| {
        let rf = topic.partitions.first().map_or(topic.replication_factor as usize, |p| p.replicas.len());
        (topic.config.min_insync_replicas(config) as usize).min(rf)
    })
}

/// Emits the events of one controller-made partition change: `IsrShrunk` when members left the
/// ISR (not for an unclean election, whose `LeaderChanged` names the new ISR) and
/// `LeaderChanged` when the leader changed.
pub(super) fn report(
    old: &PartitionState,
    plan: &Plan,
    cause: Option<&ShrinkCause>,
    kind: ElectionKind,
    out: &mut Outbox,
) {
    let new = &plan.state;
    report_completion(old, new, out);
    if new.elr != old.elr || new.last_known_elr != old.last_known_elr {
        out.emit(EventKind::ElrChanged {
            tp: new.tp.clone(),
            elr: new.elr.clone(),
            last_known_elr: new.last_known_elr.clone(),
            min_isr_changed: false,
        });
    }
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
                _ if plan.from_elr => ElectionKind::Eligible,
                (true, _) if old.last_known_elr == new.isr && new.isr.len() == 1 => {
                    ElectionKind::LastKnownLeader
                }
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

impl QuorumController {
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

    /// Creates a topic a broker's `AutoTopicCreationManager` forwarded (the first
    /// FindCoordinator creates `__consumer_offsets`; a Metadata request that allows it creates
    /// any missing topic). An existing topic is left alone; a refusal of `__consumer_offsets`
    /// (e.g. `offsets.topic.replication.factor` above the registered brokers:
    /// `INVALID_REPLICATION_FACTOR`) is reported once per distinct reason, and the next
    /// FindCoordinator tries again. A refusal of another topic is only logged, as Kafka's
    /// `AutoTopicCreationManager` does: its clients keep getting `UNKNOWN_TOPIC_OR_PARTITION` or
    /// `LEADER_NOT_AVAILABLE` from their Metadata requests.
    pub fn auto_create_topic(&mut self, now: Ms, spec: &TopicSpec, out: &mut Outbox) {
        if self.topics.contains_key(spec.name.as_str()) {
            return;
        }
        match self.create_topic(now, spec, out) {
            Ok(()) => self.auto_create_error = None,
            Err(e) if spec.name != crate::sim::group::OFFSETS_TOPIC => {
                tracing::info!(t = now, topic = spec.name, error = %e, "auto-creation refused");
            }
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

    /// `AlterPartition` from a leader (R4.9, R4.10): validation as [`validate_alter`], then the
    /// new ISR and leader recovery state with partition epoch + 1 (leader epoch unchanged).
    /// A request that changes nothing succeeds without a new epoch. No ISR events: the leader
    /// reports its own ISR changes when it learns the result. An ISR that holds every target
    /// replica completes a reassignment (KIP-455, `PartitionChangeBuilder.
    /// completeReassignmentIfNeeded`): `ReassignmentCompleted`, and when that took the
    /// leadership from the sender, `LeaderChanged` and the answer `NEW_LEADER_ELECTED`
    /// (`ReplicationControlManager.alterPartition`; the change is applied all the same).
    pub(super) fn alter_partition(
        &mut self,
        sender: BrokerId,
        tp: &TopicPartition,
        (leader_epoch, partition_epoch): (Epoch, Epoch),
        new_isr: &[IsrMember],
        recovery: LeaderRecoveryState,
        out: &mut Outbox,
    ) -> Result<PartitionState, ErrorCode> {
        let active = self.active_set();
        let acceptable = |r: BrokerId| active.contains(&r);
        let mut rules = self.rules(&acceptable);
        let topic = self.topics.get_mut(&*tp.topic).ok_or(ErrorCode::UnknownTopicOrPartition)?;
        let unclean = topic.config.unclean_election_automatic(&self.config);
        rules.elr_min_isr = elr_min_isr(&self.config, topic);
        let p = topic.partitions.get_mut(tp.partition as usize).ok_or(ErrorCode::UnknownTopicOrPartition)?;
        validate_alter(p, &self.brokers, sender, leader_epoch, partition_epoch, new_isr, recovery)?;
        let ids: Vec<BrokerId> = new_isr.iter().map(|m| m.id).collect();
        let Some(plan) = plan_change(p, &ids, Some(recovery), Election::Any { unclean }, &rules) else {
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

    /// `handleBrokerFenced` / controlled shutdown / re-registration (R4.8, R6.2, R6.6): for every
    /// partition with `broker` in its ISR, target ISR = ISR − broker and the KRaft election with
    /// `broker` never acceptable (R6.3); unclean where the topic allows it (R6.5).
    pub(super) fn remove_from_isrs(
        &mut self,
        broker: BrokerId,
        cause: &ShrinkCause,
        kind: ElectionKind,
        out: &mut Outbox,
    ) {
        let active = self.active_set();
        let acceptable = |r: BrokerId| r != broker && active.contains(&r);
        let rules = self.rules(&acceptable);
        let changed = self.change_partitions(|p, topic| {
            if !p.isr.contains(&broker) {
                return None;
            }
            let target: Vec<BrokerId> = p.isr.iter().copied().filter(|&r| r != broker).collect();
            let rules = Rules { elr_min_isr: topic.elr_min_isr, ..rules };
            plan_change(p, &target, None, Election::Any { unclean: topic.unclean }, &rules)
        });
        for (old, plan) in &changed {
            report(old, plan, Some(cause), kind, out);
        }
    }

    /// Elects leaderless partitions: all of them (at unfencing), or with `only_unclean_topics`
    /// only those whose topic allows unclean election (the unclean check,
    /// `ReplicationControlManager.maybeElectUncleanLeaders`), at most `max` elections. Returns
    /// whether some were left for a next run.
    pub(super) fn elect_leaderless(
        &mut self,
        only_unclean_topics: bool,
        max: usize,
        out: &mut Outbox,
    ) -> bool {
        let active = self.active_set();
        let acceptable = |r: BrokerId| active.contains(&r);
        let rules = self.rules(&acceptable);
        let (mut elected, mut more) = (0, false);
        let changed = self.change_partitions(|p, topic| {
            if p.leader.is_some() || (only_unclean_topics && !topic.unclean) {
                return None;
            }
            if elected >= max {
                more = true;
                return None;
            }
            let rules = Rules { elr_min_isr: topic.elr_min_isr, ..rules };
            let plan = plan_change(p, &p.isr, None, Election::Any { unclean: topic.unclean }, &rules)?;
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
    pub(super) fn balance_leaders(&mut self, out: &mut Outbox) -> bool {
        let active = self.active_set();
        let acceptable = |r: BrokerId| active.contains(&r);
        let rules = self.rules(&acceptable);
        let mut elected = 0;
        let mut more = false;
        let changed = self.change_partitions(|p, topic| {
            if p.leader == p.replicas.first().copied() {
                return None;
            }
            if elected >= MAX_ELECTIONS_PER_IMBALANCE {
                more = true;
                return None;
            }
            let rules = Rules { elr_min_isr: topic.elr_min_isr, ..rules };
            let plan = plan_change(p, &p.isr, None, Election::Preferred, &rules)?;
            elected += 1;
            Some(plan)
        });
        for (old, plan) in &changed {
            report(old, plan, None, ElectionKind::Preferred, out);
        }
        more
    }

    /// The rules every partition change of this controller follows, with `acceptable` as the
    /// test of who may lead; [`Rules::elr_min_isr`] is left to the caller, per topic.
    pub(super) fn rules<'a>(&self, acceptable: &'a dyn Fn(BrokerId) -> bool) -> Rules<'a> {
        Rules {
            acceptable,
            shrink_bumps_leader_epoch: self.config.semantics.leader_epoch_bump_on_isr_shrink,
            elr_min_isr: None,
            unclean_shutdown: None,
        }
    }

    /// The ELR min ISR of topic `name` ([`elr_min_isr`]); `None` with ELR off or for an
    /// unknown topic.
    pub(super) fn topic_elr_min_isr(&self, name: &str) -> Option<usize> {
        self.topics.get(name).and_then(|t| elr_min_isr(&self.config, t))
    }

    /// Clears the ELR and LastKnownELR of every partition of `topic`, or of every topic
    /// (`None`), as the controller does when `min.insync.replicas` is set for the topic or the
    /// cluster, even to the same value: the eligibility was computed against the old min ISR
    /// (KIP-966; the operations page "Eligible Leader Replicas", Kafka 4.1+, R8.3). No election
    /// follows: a partition whose ISR is empty stays leaderless. Emits `ElrCleared` for each
    /// partition that had any.
    pub(super) fn clear_elr(&mut self, topic: Option<&str>, out: &mut Outbox) {
        let changed = self.change_partitions(|p, _| {
            let keep = topic.is_some_and(|t| *p.tp.topic != *t);
            if keep || (p.elr.is_empty() && p.last_known_elr.is_empty()) {
                return None;
            }
            let mut state = p.clone();
            state.elr.clear();
            state.last_known_elr.clear();
            state.partition_epoch += 1;
            Some(Plan { state, unclean: false, from_elr: false })
        });
        for (old, _) in &changed {
            // The event names what was cleared.
            out.emit(EventKind::ElrChanged {
                tp: old.tp.clone(),
                elr: old.elr.clone(),
                last_known_elr: old.last_known_elr.clone(),
                min_isr_changed: true,
            });
        }
    }

    /// `handleBrokerUncleanShutdown` (KIP-966, R8.3): a broker registered without a matching
    /// `PreviousBrokerEpoch`, so it may have lost records it had acknowledged. Every partition
    /// with it in the ISR or the ELR gets a change with it out of both and never acceptable as
    /// leader (`generateLeaderAndIsrUpdates` with `brokerWithUncleanShutdown`).
    pub(super) fn handle_unclean_shutdown(&mut self, broker: BrokerId, out: &mut Outbox) {
        let active = self.active_set();
        let acceptable = |r: BrokerId| r != broker && active.contains(&r);
        let rules = Rules { unclean_shutdown: Some(broker), ..self.rules(&acceptable) };
        let changed = self.change_partitions(|p, topic| {
            if !p.isr.contains(&broker) && !p.elr.contains(&broker) {
                return None;
            }
            let target: Vec<BrokerId> = p.isr.iter().copied().filter(|&r| r != broker).collect();
            let rules = Rules { elr_min_isr: topic.elr_min_isr, ..rules };
            plan_change(p, &target, None, Election::Any { unclean: topic.unclean }, &rules)
        });
        for (old, plan) in &changed {
            report(old, plan, Some(&ShrinkCause::UncleanShutdown), ElectionKind::Clean, out);
        }
    }

    /// Runs `plan` over every partition in (topic, partition) order, with what its topic allows
    /// ([`TopicRules`]); applies and queues the changes; returns (old state, plan) pairs.
    fn change_partitions<F>(&mut self, mut plan: F) -> Vec<(PartitionState, Plan)>
    where
        F: FnMut(&PartitionState, TopicRules) -> Option<Plan>,
    {
        let mut changed = Vec::new();
        for topic in self.topics.values_mut() {
            let rules = TopicRules {
                unclean: topic.config.unclean_election_automatic(&self.config),
                elr_min_isr: elr_min_isr(&self.config, topic),
            };
            for p in &mut topic.partitions {
                if let Some(next) = plan(p, rules) {
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
}
