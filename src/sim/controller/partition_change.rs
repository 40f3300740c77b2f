//! How the controller plans one partition change (Kafka's `PartitionChangeBuilder`, ELR off):
//! the target assignment of a reassignment (`PartitionReassignmentReplicas`,
//! `PartitionReassignmentRevert`, KIP-455), the election (R6.3–R6.5, R6.7) and the epochs
//! (R6.8, R6.9, R4.10). Pure functions of the partition's state: applying the plan and
//! reporting it is the caller's job.

use crate::sim::BrokerId;
use crate::sim::protocol::{LeaderRecoveryState, PartitionState};
use std::collections::BTreeSet;

/// Which election `PartitionChangeBuilder` runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Election {
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
pub(super) struct Plan {
    /// The partition as it will be.
    pub(super) state: PartitionState,
    /// Its leader came from an unclean election (R6.5).
    pub(super) unclean: bool,
}

/// The replica assignment a partition change aims at: `PartitionChangeBuilder`'s target
/// replicas, adding and removing lists (KIP-455).
#[derive(Clone, PartialEq, Eq, Debug)]
pub(super) struct Assignment {
    /// The replica list, in preference order.
    pub(super) replicas: Vec<BrokerId>,
    /// Replicas a running reassignment adds.
    pub(super) adding: Vec<BrokerId>,
    /// Replicas a running reassignment removes.
    pub(super) removing: Vec<BrokerId>,
}

impl Assignment {
    /// The partition's current assignment.
    pub(super) fn of(p: &PartitionState) -> Self {
        Assignment { replicas: p.replicas.clone(), adding: p.adding.clone(), removing: p.removing.clone() }
    }

    /// A reassignment from `current` to `target` (`PartitionReassignmentReplicas`): removing =
    /// current − target and adding = target − current, each ascending; replicas = target
    /// followed by the removing ones.
    pub(super) fn reassign(current: &[BrokerId], target: &[BrokerId]) -> Self {
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
    pub(super) fn revert(p: &PartitionState) -> (Self, Vec<BrokerId>, bool) {
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
    pub(super) fn complete(&self, target_isr: &[BrokerId]) -> Option<(Self, Vec<BrokerId>)> {
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
pub(super) fn plan_change(
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
pub(super) fn plan_assignment(
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
    let ignore_isr = crate::sim::planted::active(crate::sim::planted::PlantedBug::ElectionIgnoresIsr);
    let valid = |r: BrokerId| (ignore_isr || isr.contains(&r)) && acceptable(r);
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
