//! The controller's admin operations (Kafka's `ReplicationControlManager`): leader elections
//! an operator asks for (`electLeaders`), partition reassignment with its throttle
//! (`alterPartitionReassignments`, KIP-455, and what `ReassignPartitionsCommand --throttle`
//! sets), more partitions (`createPartitions`) and topic deletion (`deleteTopics`).
//!
//! The throttle belongs to the tool, not to the controller: `kafka-reassign-partitions.sh
//! --execute --throttle` writes the throttle configs, and nothing removes them when the
//! reassignment completes. `--verify` removes them once no reassignment is left in the
//! cluster, and `--cancel` removes them after cancelling (`ReassignPartitionsCommand.
//! verifyAssignment` / `cancelAssignment` → `clearAllThrottles`). The controller here keeps
//! what the tool's JSON file would hold, the target of each reassignment started, so that
//! `reassign --verify` can read it back.

use super::QuorumController;
use super::partition_change::{Assignment, Election, Rules, plan_assignment, plan_change};
use super::replication::report;
use crate::config::with_partition;
use crate::kafka::errors::ErrorCode;
use crate::sim::assignment;
use crate::sim::error::SimError;
use crate::sim::events::{ElectionKind, EventKind};
use crate::sim::protocol::PartitionState;
use crate::sim::spec::Placement;
use crate::sim::{BrokerId, Ms, Outbox, TopicPartition};
use std::collections::BTreeSet;
use std::sync::Arc;

/// What `reassign --verify` found (`ReassignPartitionsCommand.verifyAssignment`).
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct VerifyReport {
    /// One line per partition verified, in the tool's words
    /// (`partitionReassignmentStatesToString`), by topic then partition.
    pub states: Vec<String>,
    /// The tool's lines about the throttles it removed (`clearAllThrottles`); empty while a
    /// reassignment is still running anywhere in the cluster.
    pub cleared: Vec<String>,
}

impl VerifyReport {
    /// The report as one line: the tool's heading, the states, the throttle lines.
    pub fn line(&self) -> String {
        let mut parts = vec![format!("Status of partition reassignment: {}", self.states.join("; "))];
        parts.extend(self.cleared.iter().cloned());
        parts.join("; ")
    }
}

/// `s` when `n` is not 1, as the tool's messages pluralise ("broker" / "brokers").
fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Which election an operator asks for (`kafka-leader-election.sh --election-type`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ElectionType {
    /// The preferred replica (the first one) leads, if it is in the ISR and active.
    Preferred,
    /// A leaderless partition gets a leader now, from the ISR if it can, else any active
    /// replica (data loss).
    Unclean,
}

/// What an `ElectLeaders` request did, partition by partition (`ElectLeadersResponse`).
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct ElectionResults {
    /// Partitions that got a new leader.
    pub elected: Vec<TopicPartition>,
    /// Partitions that needed no election (`ELECTION_NOT_NEEDED`).
    pub not_needed: Vec<TopicPartition>,
    /// Partitions where no replica could be elected, with the error
    /// (`PREFERRED_LEADER_NOT_AVAILABLE`, `ELIGIBLE_LEADERS_NOT_AVAILABLE`,
    /// `UNKNOWN_TOPIC_OR_PARTITION`).
    pub failed: Vec<(TopicPartition, ErrorCode)>,
}

/// Kafka's `INVALID_REPLICA_ASSIGNMENT` with `message`.
fn invalid_assignment(message: String) -> SimError {
    SimError::Api(ErrorCode::InvalidReplicaAssignment, message)
}

/// Checks a reassignment's target replicas as `ReplicationControlManager.
/// validateManualPartitionAssignment` does (no replication factor to match): not empty, every
/// broker `registered`, none twice. Errors: `INVALID_REPLICA_ASSIGNMENT` with Kafka's text.
pub fn validate_target(target: &[BrokerId], registered: &dyn Fn(BrokerId) -> bool) -> Result<(), SimError> {
    if target.is_empty() {
        return Err(invalid_assignment(
            "The manual partition assignment includes an empty replica list.".into(),
        ));
    }
    let mut sorted = target.to_vec();
    sorted.sort_unstable();
    for (i, &b) in sorted.iter().enumerate() {
        if !registered(b) {
            return Err(invalid_assignment(format!(
                "The manual partition assignment includes broker {b}, but no such broker is registered."
            )));
        }
        if i > 0 && sorted[i - 1] == b {
            return Err(invalid_assignment(format!(
                "The manual partition assignment includes the broker {b} more than once."
            )));
        }
    }
    Ok(())
}

/// Checks that `count` grows topic `topic` from `current` partitions
/// (`ReplicationControlManager.createPartitions`). Errors: `INVALID_PARTITIONS` with Kafka's
/// two messages, or isrlab's limit on partitions per topic.
pub fn check_partition_increase(topic: &str, current: u32, count: u32) -> Result<(), SimError> {
    if count == current {
        return Err(SimError::InvalidPartitions(format!("Topic already has {current} partition(s).")));
    }
    if count < current {
        return Err(SimError::InvalidPartitions(format!(
            "The topic {topic} currently has {current} partition(s); {count} would not be an increase."
        )));
    }
    assignment::validate_partition_count(count)
}

impl QuorumController {
    /// Runs the elections an operator asked for (`ReplicationControlManager.electLeaders` and
    /// `electLeader`): every partition when `partitions` is `None`, else the ones named.
    /// A preferred election is not needed when the preferred replica leads, an unclean one
    /// when the partition has a leader. Otherwise `PartitionChangeBuilder` runs with the
    /// preferred election, or the unclean one (an ISR member if one is active, else the first
    /// active replica, whose ISR becomes itself alone: data loss, R6.5); when it changes
    /// nothing, the partition fails with `PREFERRED_LEADER_NOT_AVAILABLE` or
    /// `ELIGIBLE_LEADERS_NOT_AVAILABLE`. Emits `LeaderChanged` for each election.
    pub fn elect_leaders(
        &mut self,
        now: Ms,
        election: ElectionType,
        partitions: Option<&[TopicPartition]>,
        out: &mut Outbox,
    ) -> ElectionResults {
        let all: Vec<TopicPartition>;
        let partitions = match partitions {
            Some(list) => list,
            None => {
                all = self.partitions().map(|p| p.tp.clone()).collect();
                &all
            }
        };
        let mut results = ElectionResults::default();
        for tp in partitions {
            match self.elect_leader(tp, election, out) {
                Ok(()) => results.elected.push(tp.clone()),
                Err(ErrorCode::ElectionNotNeeded) => results.not_needed.push(tp.clone()),
                Err(code) => results.failed.push((tp.clone(), code)),
            }
        }
        self.after_write(now);
        self.flush(out);
        results
    }

    /// One partition's requested election (`ReplicationControlManager.electLeader`).
    fn elect_leader(
        &mut self,
        tp: &TopicPartition,
        election: ElectionType,
        out: &mut Outbox,
    ) -> Result<(), ErrorCode> {
        let p = self.partition(tp).ok_or(ErrorCode::UnknownTopicOrPartition)?.clone();
        let needed = match election {
            ElectionType::Preferred => p.leader.is_none() || p.leader != p.replicas.first().copied(),
            ElectionType::Unclean => p.leader.is_none(),
        };
        if !needed {
            return Err(ErrorCode::ElectionNotNeeded);
        }
        let active = self.active_set();
        let kind = match election {
            ElectionType::Preferred => Election::Preferred,
            ElectionType::Unclean => Election::Any { unclean: true },
        };
        let acceptable = |r: BrokerId| active.contains(&r);
        let rules = Rules { elr_min_isr: self.topic_elr_min_isr(&p.tp.topic), ..self.rules(&acceptable) };
        let Some(plan) = plan_change(&p, &p.isr, None, kind, &rules) else {
            return Err(match election {
                ElectionType::Preferred => ErrorCode::PreferredLeaderNotAvailable,
                ElectionType::Unclean => ErrorCode::EligibleLeadersNotAvailable,
            });
        };
        self.replace_partition(plan.state.clone());
        report(&p, &plan, None, ElectionKind::Requested, out);
        Ok(())
    }

    /// Starts, changes or cancels (`target` = `None`) the reassignment of partition `tp`
    /// (`ReplicationControlManager.alterPartitionReassignment`, KIP-455).
    ///
    /// A new target: the replicas become target + removing, with the adding and removing
    /// lists (`Assignment::reassign`, `changePartitionReassignment`); the reassignment
    /// completes when every target replica is in the ISR, at once if it already is, and the
    /// leader moves if it is being removed. With `throttle` (bytes/s) the throttle
    /// `kafka-reassign-partitions.sh --throttle` sets is set too: the topic's
    /// `leader.replication.throttled.replicas` gets the partition's current replicas and
    /// `follower.replication.throttled.replicas` the adding ones
    /// (`ReassignPartitionsCommand.calculateLeaderThrottles` / `calculateFollowerThrottles`),
    /// and every broker involved gets both rates (`modifyInterBrokerThrottle`). isrlab removes
    /// them when the reassignment completes or is cancelled, as `--verify` does once it finds
    /// the reassignment done.
    ///
    /// Cancelling (`cancelPartitionReassignment`, `Assignment::revert`) takes the adding
    /// replicas out again.
    ///
    /// Errors (nothing changes): `UNKNOWN_TOPIC_OR_PARTITION`; `INVALID_REPLICA_ASSIGNMENT` for
    /// an empty list, an unregistered broker or one named twice
    /// (`validateManualPartitionAssignment`), or a cancel that would need an unclean election
    /// the topic does not allow; `NO_REASSIGNMENT_IN_PROGRESS` for a cancel without one.
    pub fn alter_reassignment(
        &mut self,
        now: Ms,
        tp: &TopicPartition,
        target: Option<&[BrokerId]>,
        throttle: Option<u64>,
        out: &mut Outbox,
    ) -> Result<(), SimError> {
        let p = self.reassignable(tp)?;
        match target {
            Some(target) => self.change_reassignment(&p, target, throttle, out)?,
            None => self.cancel_reassignment(&p, out)?,
        }
        self.after_write(now);
        self.flush(out);
        Ok(())
    }

    /// The partition to reassign. Errors: `UNKNOWN_TOPIC_OR_PARTITION` with the controller's
    /// text.
    fn reassignable(&self, tp: &TopicPartition) -> Result<PartitionState, SimError> {
        let unknown = |message: String| SimError::Api(ErrorCode::UnknownTopicOrPartition, message);
        let topic = self
            .topic(&tp.topic)
            .ok_or_else(|| unknown(format!("Unable to find a topic named {}.", tp.topic)))?;
        let p = topic.partitions.get(tp.partition as usize);
        p.cloned().ok_or_else(|| unknown(format!("Unable to find partition {}:{}.", tp.topic, tp.partition)))
    }

    /// `changePartitionReassignment`.
    fn change_reassignment(
        &mut self,
        p: &PartitionState,
        target: &[BrokerId],
        throttle: Option<u64>,
        out: &mut Outbox,
    ) -> Result<(), SimError> {
        validate_target(target, &|b| self.broker(b).is_some_and(|info| info.registered))?;
        let wanted = Assignment::reassign(&p.replicas, target);
        let active = self.active_set();
        let acceptable = |r: BrokerId| active.contains(&r);
        let rules = Rules { elr_min_isr: self.topic_elr_min_isr(&p.tp.topic), ..self.rules(&acceptable) };
        let election = Election::Any { unclean: false };
        let Some(plan) = plan_assignment(p, wanted.clone(), &p.isr, None, election, &rules) else {
            return Ok(());
        };
        let throttle = throttle.filter(|_| plan.state.is_reassigning());
        if plan.state.is_reassigning() {
            out.emit(EventKind::ReassignmentStarted {
                tp: p.tp.clone(),
                adding: wanted.adding.clone(),
                removing: wanted.removing.clone(),
                throttle,
            });
        }
        if let Some(rate) = throttle {
            self.throttle_reassignment(&p.tp, &p.replicas, &wanted.adding, rate);
        }
        if !plan.state.is_reassigning() && plan.state.replicas != p.replicas {
            // The same replicas in a new order (`PartitionChangeBuilder` writes the target at
            // once): the first one is the preferred leader from now on, and the leader stays.
            out.emit(EventKind::ReplicasReordered {
                tp: p.tp.clone(),
                replicas: plan.state.replicas.clone(),
                leader: plan.state.leader,
            });
        }
        self.reassign_targets.insert(p.tp.clone(), target.to_vec());
        self.replace_partition(plan.state.clone());
        report(p, &plan, None, ElectionKind::Reassignment, out);
        Ok(())
    }

    /// `cancelPartitionReassignment`.
    fn cancel_reassignment(&mut self, p: &PartitionState, out: &mut Outbox) -> Result<(), SimError> {
        if !p.is_reassigning() {
            return Err(SimError::Api(
                ErrorCode::NoReassignmentInProgress,
                "No partition reassignment is in progress.".into(),
            ));
        }
        let (reverted, isr, unclean_revert) = Assignment::revert(p);
        let unclean =
            self.topic(&p.tp.topic).is_some_and(|t| t.config.unclean_election_automatic(&self.config));
        if unclean_revert && !unclean {
            return Err(invalid_assignment(format!(
                "Unable to revert partition assignment for {}:{} because it would require an unclean leader election.",
                p.tp.topic, p.tp.partition
            )));
        }
        let active = self.active_set();
        let acceptable = |r: BrokerId| active.contains(&r);
        let rules = Rules { elr_min_isr: self.topic_elr_min_isr(&p.tp.topic), ..self.rules(&acceptable) };
        let replicas = reverted.replicas.clone();
        let election = Election::Any { unclean };
        if let Some(plan) = plan_assignment(p, reverted, &isr, None, election, &rules) {
            self.replace_partition(plan.state.clone());
            out.emit(EventKind::ReassignmentCancelled { tp: p.tp.clone(), replicas });
            report(p, &plan, None, ElectionKind::Reassignment, out);
        }
        // `cancelAssignment` clears the throttles right after cancelling, whatever else runs.
        // The target stays for `--verify`, as the JSON file the user cancelled with does.
        let target = self.reassign_targets.get(&p.tp).cloned().unwrap_or_default();
        self.clear_all_throttles(&[(p.tp.clone(), target)], out);
        Ok(())
    }

    /// Sets the throttle of one reassignment (see [`Self::alter_reassignment`]): it stays
    /// until `reassign --verify` finds no reassignment running, or `reassign --cancel`.
    fn throttle_reassignment(
        &mut self,
        tp: &TopicPartition,
        sources: &[BrokerId],
        adding: &[BrokerId],
        rate: u64,
    ) {
        if let Some(t) = self.topics.get_mut(&*tp.topic) {
            let c = &mut t.config;
            c.leader_replication_throttled_replicas =
                with_partition(c.leader_replication_throttled_replicas.as_ref(), tp.partition, sources);
            c.follower_replication_throttled_replicas =
                with_partition(c.follower_replication_throttled_replicas.as_ref(), tp.partition, adding);
            self.pending.topic_configs.push((t.name.clone(), t.config.clone()));
        }
        let brokers: BTreeSet<BrokerId> = sources.iter().chain(adding).copied().collect();
        for &b in &brokers {
            let rates = self.config.throttle_rates_by_broker.entry(b).or_default();
            rates.leader = Some(rate);
            rates.follower = Some(rate);
        }
        self.pending.broker_config = Some(Arc::new(self.config.clone()));
    }

    /// `reassign --verify [T-P]` (`ReassignPartitionsCommand.verifyAssignment`): the state of
    /// each reassignment started with `reassign` (of `only`, or of all of them), and, when no
    /// reassignment is running anywhere in the cluster, the removal of every throttle
    /// (`Self::clear_all_throttles`). The targets are kept, as the tool's JSON file is: a
    /// second `--verify` reports the same moves again and clears the throttles again, and a
    /// cancelled move reads "There is no active reassignment of partition t-0, but replica set
    /// is 1,2,3 rather than 1,2,4." (`findPartitionReassignmentStates`: a partition missing
    /// from `listPartitionReassignments` is compared with its target).
    ///
    /// Errors: `InvalidState` when no reassignment (of `only`) was started with `reassign`,
    /// since the tool verifies against the targets it was given.
    pub fn verify_reassignments(
        &mut self,
        now: Ms,
        only: Option<&TopicPartition>,
        out: &mut Outbox,
    ) -> Result<VerifyReport, SimError> {
        let targets: Vec<(TopicPartition, Vec<BrokerId>)> = self
            .reassign_targets
            .iter()
            .filter(|(tp, _)| only.is_none_or(|o| o == *tp))
            .map(|(tp, t)| (tp.clone(), t.clone()))
            .collect();
        if targets.is_empty() {
            return Err(SimError::InvalidState(match only {
                Some(tp) => format!("no reassignment of {tp} was started with `reassign`; nothing to verify"),
                None => "no reassignment was started with `reassign`; nothing to verify".into(),
            }));
        }
        let mut report = VerifyReport::default();
        for (tp, target) in &targets {
            let state = self.partition(tp);
            report.states.push(match state {
                Some(p) if p.is_reassigning() => format!("Reassignment of partition {tp} is still in progress."),
                _ => {
                    let current = state.map(|p| p.replicas.clone()).unwrap_or_default();
                    if &current == target {
                        format!("Reassignment of partition {tp} is completed.")
                    } else {
                        format!(
                            "There is no active reassignment of partition {tp}, but replica set is {} rather than {}.",
                            crate::sim::join_ids(&current),
                            crate::sim::join_ids(target)
                        )
                    }
                }
            });
        }
        if !self.partitions().any(PartitionState::is_reassigning) {
            report.cleared = self.clear_all_throttles(&targets, out);
            self.after_write(now);
            self.flush(out);
        }
        Ok(report)
    }

    /// `clearAllThrottles`: deletes `leader.replication.throttled.rate` and
    /// `follower.replication.throttled.rate` on every registered broker and every broker a
    /// target names (`clearBrokerLevelThrottles`; the tool cannot know which brokers earlier
    /// moves throttled), and both `*.replication.throttled.replicas` of the targets' topics
    /// (`clearTopicLevelThrottles`), whoever set them. Emits `ThrottlesCleared`; returns the
    /// tool's two lines.
    fn clear_all_throttles(
        &mut self,
        targets: &[(TopicPartition, Vec<BrokerId>)],
        out: &mut Outbox,
    ) -> Vec<String> {
        let mut brokers: BTreeSet<BrokerId> =
            self.brokers.values().filter(|b| b.registered).map(|b| b.id).collect();
        brokers.extend(targets.iter().flat_map(|(_, t)| t.iter().copied()));
        let topics: BTreeSet<String> = targets.iter().map(|(tp, _)| tp.topic.to_string()).collect();
        self.config.throttle_rates_by_broker.retain(|b, _| !brokers.contains(b));
        self.pending.broker_config = Some(Arc::new(self.config.clone()));
        for topic in &topics {
            if let Some(t) = self.topics.get_mut(topic.as_str()) {
                t.config.leader_replication_throttled_replicas = None;
                t.config.follower_replication_throttled_replicas = None;
                self.pending.topic_configs.push((t.name.clone(), t.config.clone()));
            }
        }
        let brokers: Vec<BrokerId> = brokers.into_iter().collect();
        let topics: Vec<String> = topics.into_iter().collect();
        let lines = vec![
            format!(
                "Clearing broker-level throttles on broker{} {}",
                plural(brokers.len()),
                crate::sim::join_ids(&brokers)
            ),
            format!("Clearing topic-level throttles on topic{} {}", plural(topics.len()), topics.join(",")),
        ];
        out.emit(EventKind::ThrottlesCleared { brokers, topics });
        lines
    }

    /// Grows topic `topic` to `count` partitions (`ReplicationControlManager.createPartitions`,
    /// `kafka-topics.sh --alter --partitions`): the new partitions get the topic's replication
    /// factor from the striped placer, ISR = their active replicas, leader = the first.
    /// Emits `PartitionsAdded`.
    ///
    /// Errors (nothing changes): `UNKNOWN_TOPIC_OR_PARTITION`; `INVALID_PARTITIONS` when
    /// `count` is not larger than the current count (Kafka's two messages) or too large;
    /// `INVALID_REPLICATION_FACTOR` when too few brokers are registered or every replica of a
    /// new partition is fenced or in controlled shutdown.
    pub fn create_partitions(
        &mut self,
        now: Ms,
        topic: &str,
        count: u32,
        out: &mut Outbox,
    ) -> Result<(), SimError> {
        let t = self.topics.get(topic).ok_or_else(|| SimError::UnknownTopic(topic.to_string()))?;
        let current = t.partition_count();
        check_partition_increase(topic, current, count)?;
        let rf = t.partitions.first().map_or(t.replication_factor, |p| p.replicas.len() as u32);
        let (name, topic_id) = (t.name.clone(), t.id);
        let infos: Vec<_> = self.brokers.values().copied().collect();
        let lists = assignment::assign(&Placement::Kafka, &infos, count - current, rf, &mut self.rng)?;
        let mut added = Vec::with_capacity(lists.len());
        for (i, replicas) in lists.iter().enumerate() {
            let isr: Vec<BrokerId> = replicas.iter().copied().filter(|&r| self.is_active(r)).collect();
            if isr.is_empty() {
                return Err(SimError::InvalidReplicationFactor(format!(
                    "Unable to replicate the partition {rf} time(s): All brokers are currently fenced or in controlled shutdown."
                )));
            }
            let tp = TopicPartition::new(name.clone(), current + i as u32);
            added.push(PartitionState::created(tp, topic_id, replicas.clone(), isr));
        }
        self.pending.partitions.extend(added.iter().cloned());
        if let Some(t) = self.topics.get_mut(topic) {
            t.partitions.extend(added);
        }
        out.emit(EventKind::PartitionsAdded { topic: topic.to_string(), from: current, assignment: lists });
        self.after_write(now);
        self.flush(out);
        Ok(())
    }

    /// Deletes topic `topic` (`ReplicationControlManager.deleteTopic`, a `RemoveTopicRecord`):
    /// brokers stop and delete its replicas when they replay it, clients forget it, and a
    /// reassignment of it ends with its throttle. Emits `TopicDeleted`.
    ///
    /// Errors: `UNKNOWN_TOPIC_OR_PARTITION` when there is no such topic; nothing changes.
    pub fn delete_topic(&mut self, now: Ms, topic: &str, out: &mut Outbox) -> Result<(), SimError> {
        let t = self.topics.remove(topic).ok_or_else(|| SimError::UnknownTopic(topic.to_string()))?;
        self.pending.partitions.retain(|p| p.tp.topic != t.name);
        self.pending.topic_configs.retain(|(name, _)| *name != t.name);
        self.pending.deleted_topics.push(t.name);
        out.emit(EventKind::TopicDeleted { topic: topic.to_string() });
        self.after_write(now);
        self.flush(out);
        Ok(())
    }

    /// Puts a planned state in place and queues it for the next broadcast.
    fn replace_partition(&mut self, state: PartitionState) {
        let Some(t) = self.topics.get_mut(&*state.tp.topic) else { return };
        if let Some(slot) = t.partitions.get_mut(state.tp.partition as usize) {
            *slot = state.clone();
            self.note_partition(state);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{cluster, explicit, leader_changes, part, run};
    use super::*;
    use crate::config::ThrottledReplicas;
    use crate::sim::protocol::{IsrMember, LeaderRecoveryState, Message, NodeId};

    fn tp() -> TopicPartition {
        TopicPartition::new("t", 0)
    }

    /// Leader `leader` proposes ISR `isr` for t-0 at its current epochs; returns the answer.
    fn alter(
        c: &mut QuorumController,
        leader: BrokerId,
        isr: &[BrokerId],
        out: &mut Outbox,
    ) -> Result<PartitionState, ErrorCode> {
        let p = part(c, "t", 0);
        let msg = Message::AlterPartition {
            leader,
            broker_epoch: -1,
            tp: tp(),
            leader_epoch: p.leader_epoch,
            partition_epoch: p.partition_epoch,
            new_isr: isr.iter().map(|&id| IsrMember { id, broker_epoch: -1 }).collect(),
            leader_recovery: LeaderRecoveryState::Recovered,
        };
        c.handle(100, NodeId::Broker(leader), msg, out);
        out.sends
            .iter()
            .find_map(|(_, m)| match m {
                Message::AlterPartitionResponse { result, .. } => Some((**result).clone()),
                _ => None,
            })
            .expect("an AlterPartition response")
    }

    /// `ReplicationControlManagerTest.testReassignPartitions` in our words: the target is added
    /// with adding/removing lists, the throttle is set, and the ISR change that brings the
    /// adding replica in completes it and bumps the leader epoch. The throttle stays until
    /// `--verify` finds nothing running (`ReassignPartitionsCommand.verifyAssignment`).
    #[test]
    fn a_throttled_reassignment_runs_kip_455_and_verify_removes_its_throttle() {
        let mut c = cluster(&[1, 2, 3, 4]);
        explicit(&mut c, "t", vec![vec![1, 2, 3]]);
        let mut out = Outbox::default();
        c.alter_reassignment(10, &tp(), Some(&[1, 2, 4]), Some(1000), &mut out).unwrap();
        let p = part(&c, "t", 0);
        assert_eq!(
            (p.replicas.clone(), p.adding.clone(), p.removing.clone()),
            (vec![1, 2, 4, 3], vec![4], vec![3])
        );
        assert_eq!(
            (p.isr.clone(), p.leader, p.leader_epoch, p.partition_epoch),
            (vec![1, 2, 3], Some(1), 0, 1)
        );
        let config = &c.topic("t").unwrap().config;
        assert_eq!(
            config.leader_replication_throttled_replicas,
            Some(ThrottledReplicas::Listed(vec![(0, 1), (0, 2), (0, 3)]))
        );
        assert_eq!(
            config.follower_replication_throttled_replicas,
            Some(ThrottledReplicas::Listed(vec![(0, 4)]))
        );
        assert!((1..=4).all(|b| c.broker_config().leader_throttle_rate(b) == 1000));
        let running = c.verify_reassignments(20, None, &mut Outbox::default()).unwrap();
        assert_eq!(running.states, ["Reassignment of partition t-0 is still in progress."]);
        assert!(running.cleared.is_empty());

        let mut out = Outbox::default();
        let done = alter(&mut c, 1, &[1, 2, 3, 4], &mut out).unwrap();
        assert_eq!((done.replicas, done.isr, done.leader_epoch), (vec![1, 2, 4], vec![1, 2, 4], 1));
        assert!(done.adding.is_empty() && done.removing.is_empty());
        assert!(out.events.iter().any(|e| matches!(e, EventKind::ReassignmentCompleted { .. })));
        let config = &c.topic("t").unwrap().config;
        assert!(config.follower_replication_throttled_replicas.is_some(), "kept after completion");
        assert!((1..=4).all(|b| c.broker_config().follower_throttle_rate(b) == 1000));

        let mut out = Outbox::default();
        let verified = c.verify_reassignments(30, Some(&tp()), &mut out).unwrap();
        assert_eq!(
            verified.line(),
            "Status of partition reassignment: Reassignment of partition t-0 is completed.; \
             Clearing broker-level throttles on brokers 1,2,3,4; Clearing topic-level throttles on topic t"
        );
        assert!(out.events.iter().any(|e| matches!(e, EventKind::ThrottlesCleared { .. })));
        let config = &c.topic("t").unwrap().config;
        assert_eq!(
            (
                config.leader_replication_throttled_replicas.clone(),
                config.follower_replication_throttled_replicas.clone()
            ),
            (None, None)
        );
        assert!(c.broker_config().throttle_rates_by_broker.is_empty());
        // The targets are the tool's JSON file: verifying again reports the move again.
        let again = c.verify_reassignments(40, None, &mut Outbox::default()).unwrap();
        assert_eq!(again.states, verified.states);
    }

    /// `--cancel` clears the throttles right away (`cancelAssignment` → `clearAllThrottles`),
    /// and `--verify` names a partition whose replicas are not the target it was given.
    #[test]
    fn cancel_clears_throttles_and_verify_reports_a_target_not_reached() {
        let mut c = cluster(&[1, 2, 3, 4]);
        explicit(&mut c, "t", vec![vec![1, 2, 3], vec![1, 2, 3]]);
        c.alter_reassignment(10, &tp(), Some(&[1, 2, 4]), Some(1000), &mut Outbox::default()).unwrap();
        let mut out = Outbox::default();
        c.alter_reassignment(20, &tp(), None, None, &mut out).unwrap();
        assert!(out.events.iter().any(|e| matches!(e, EventKind::ThrottlesCleared { .. })));
        assert!(c.broker_config().throttle_rates_by_broker.is_empty());
        assert_eq!(c.topic("t").unwrap().config.follower_replication_throttled_replicas, None);

        let t1 = TopicPartition::new("t", 1);
        c.alter_reassignment(30, &t1, Some(&[1, 2, 4]), None, &mut Outbox::default()).unwrap();
        c.alter_reassignment(31, &t1, None, None, &mut Outbox::default()).unwrap();
        c.alter_reassignment(32, &t1, Some(&[2, 1, 3]), None, &mut Outbox::default()).unwrap();
        let report = c.verify_reassignments(40, Some(&t1), &mut Outbox::default()).unwrap();
        assert_eq!(report.states, ["Reassignment of partition t-1 is completed."]);
        explicit(&mut c, "u", vec![vec![1, 2, 3]]);
        let u = TopicPartition::new("u", 0);
        c.alter_reassignment(50, &u, Some(&[1, 2, 4]), None, &mut Outbox::default()).unwrap();
        c.alter_reassignment(51, &u, None, None, &mut Outbox::default()).unwrap();
        let report = c.verify_reassignments(60, Some(&u), &mut Outbox::default()).unwrap();
        assert_eq!(
            report.states,
            ["There is no active reassignment of partition u-0, but replica set is 1,2,3 rather than 1,2,4."]
        );
    }

    /// `ReplicationControlManagerTest.testReassignPartitions`' leader case: removing the
    /// leader moves leadership when the reassignment completes, and the leader that sent the
    /// AlterPartition learns it with NEW_LEADER_ELECTED.
    #[test]
    fn completing_a_reassignment_that_removes_the_leader_elects_a_new_one() {
        let mut c = cluster(&[1, 2, 3, 4]);
        explicit(&mut c, "t", vec![vec![1, 2, 3]]);
        c.alter_reassignment(10, &tp(), Some(&[2, 3, 4]), None, &mut Outbox::default()).unwrap();
        assert_eq!(part(&c, "t", 0).leader, Some(1), "the leader stays until the target is in sync");
        let mut out = Outbox::default();
        assert_eq!(alter(&mut c, 1, &[1, 2, 3, 4], &mut out), Err(ErrorCode::NewLeaderElected));
        let p = part(&c, "t", 0);
        assert_eq!((p.replicas, p.isr, p.leader, p.leader_epoch), (vec![2, 3, 4], vec![2, 3, 4], Some(2), 1));
        assert_eq!(leader_changes(&out), vec![(0, Some(1), Some(2), ElectionKind::Reassignment)]);
    }

    /// A reassignment that only reorders the replicas completes at once (the ISR already
    /// holds the target) and says so in an event, and a cancel reverts a running one
    /// (`PartitionReassignmentRevert`).
    #[test]
    fn reorder_completes_at_once_and_cancel_reverts() {
        let mut c = cluster(&[1, 2, 3, 4]);
        explicit(&mut c, "t", vec![vec![1, 2, 3]]);
        let mut out = Outbox::default();
        c.alter_reassignment(10, &tp(), Some(&[3, 2, 1]), None, &mut out).unwrap();
        let p = part(&c, "t", 0);
        assert_eq!((p.replicas.clone(), p.leader, p.is_reassigning()), (vec![3, 2, 1], Some(1), false));
        let reordered: Vec<String> = out
            .events
            .iter()
            .filter(|e| matches!(e, EventKind::ReplicasReordered { .. }))
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            reordered,
            [
                "t-0 replicas reordered to [3,2,1]: broker 3 is now the preferred leader; broker 1 keeps leading until a preferred election moves it"
            ]
        );
        c.alter_reassignment(20, &tp(), Some(&[3, 2, 4]), None, &mut Outbox::default()).unwrap();
        assert_eq!(part(&c, "t", 0).replicas, vec![3, 2, 4, 1]);
        c.alter_reassignment(30, &tp(), None, None, &mut Outbox::default()).unwrap();
        let p = part(&c, "t", 0);
        assert_eq!(
            (p.replicas.clone(), p.isr.clone(), p.is_reassigning()),
            (vec![3, 2, 1], vec![1, 2, 3], false)
        );
        let err = c.alter_reassignment(40, &tp(), None, None, &mut Outbox::default()).unwrap_err();
        assert_eq!(err.to_string(), "NO_REASSIGNMENT_IN_PROGRESS: No partition reassignment is in progress.");
        let err = c.alter_reassignment(40, &tp(), Some(&[1, 7]), None, &mut Outbox::default()).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("INVALID_REPLICA_ASSIGNMENT: The manual partition assignment includes broker 7")
        );
    }

    /// `ReplicationControlManagerTest.testElectUncleanLeaders` in our words: ISR [1], broker 1
    /// fenced, the partition offline; a preferred election cannot help, an unclean one elects
    /// broker 2 at once with ISR [2] and RECOVERING; a second one is not needed.
    #[test]
    fn requested_elections_follow_electleader() {
        let mut c = cluster(&[1, 2]);
        explicit(&mut c, "t", vec![vec![1, 2]]);
        alter(&mut c, 1, &[1], &mut Outbox::default()).unwrap();
        run(&mut c, 0, 20_000, &[2]);
        assert_eq!(part(&c, "t", 0).leader, None);
        let preferred =
            c.elect_leaders(20_000, ElectionType::Preferred, Some(&[tp()]), &mut Outbox::default());
        assert_eq!(preferred.failed, vec![(tp(), ErrorCode::PreferredLeaderNotAvailable)]);
        let mut out = Outbox::default();
        let unclean = c.elect_leaders(20_000, ElectionType::Unclean, None, &mut out);
        assert_eq!(unclean.elected, vec![tp()]);
        let p = part(&c, "t", 0);
        assert_eq!((p.leader, p.isr, p.leader_recovery), (Some(2), vec![2], LeaderRecoveryState::Recovering));
        assert_eq!(leader_changes(&out), vec![(0, None, Some(2), ElectionKind::UncleanRequested)]);
        let again = c.elect_leaders(20_001, ElectionType::Unclean, Some(&[tp()]), &mut Outbox::default());
        assert_eq!(again.not_needed, vec![tp()]);
    }

    /// `createPartitions`' checks and `deleteTopic`: new partitions get the topic's
    /// replication factor; the deletion is broadcast as a removed topic.
    #[test]
    fn partitions_are_added_and_topics_deleted() {
        let mut c = cluster(&[1, 2, 3]);
        explicit(&mut c, "t", vec![vec![1, 2, 3]]);
        let err = c.create_partitions(5, "t", 1, &mut Outbox::default()).unwrap_err();
        assert_eq!(err.to_string(), "INVALID_PARTITIONS: Topic already has 1 partition(s).");
        c.create_partitions(5, "t", 3, &mut Outbox::default()).unwrap();
        let t = c.topic("t").unwrap();
        assert_eq!(t.partition_count(), 3);
        assert!(t.partitions.iter().all(|p| p.replicas.len() == 3 && p.isr.len() == 3));
        let mut out = Outbox::default();
        c.delete_topic(6, "t", &mut out).unwrap();
        assert!(c.topic("t").is_none() && c.image().topic("t").is_none());
        let deleted =
            out.sends.iter().any(|(_, m)| matches!(m, Message::Metadata(d) if d.deleted_topics.len() == 1));
        assert!(deleted);
        assert!(c.delete_topic(7, "t", &mut Outbox::default()).is_err());
    }
}
