//! How the controller plans one partition change (Kafka's `PartitionChangeBuilder`): the target
//! assignment of a reassignment (`PartitionReassignmentReplicas`, `PartitionReassignmentRevert`,
//! KIP-455), the eligible leader replicas (KIP-966, R8.3), the election (R6.3–R6.5, R6.7, R8.4)
//! and the epochs (R6.8, R6.9, R4.10). Pure functions of the partition's state: applying the
//! plan and reporting it is the caller's job.

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

/// A planned partition change: the new state and how its leader was found.
#[derive(Clone, PartialEq, Debug)]
pub(super) struct Plan {
    /// The partition as it will be.
    pub(super) state: PartitionState,
    /// Its leader came from an unclean election (R6.5), or is the last known leader, which
    /// Kafka elects the same way (R8.4).
    pub(super) unclean: bool,
    /// Its new leader came from the ELR (R8.4).
    pub(super) from_elr: bool,
}

/// What `PartitionChangeBuilder` is told besides the partition and the target: who may lead
/// (`isAcceptableLeader`), the metadata version's ISR-shrink rule, the ELR feature with the
/// topic's effective min ISR, and the broker found to have shut down uncleanly.
#[derive(Clone, Copy)]
pub(super) struct Rules<'a> {
    /// Which brokers may lead: active, and not the broker being removed or found unclean.
    pub(super) acceptable: &'a dyn Fn(BrokerId) -> bool,
    /// The leader epoch grows when the ISR loses a member (metadata versions before 3.6,
    /// KAFKA-15021: `triggerLeaderEpochBumpForIsrShrinkIfNeeded`).
    pub(super) shrink_bumps_leader_epoch: bool,
    /// With ELR on (`setEligibleLeaderReplicasEnabled`), the topic's effective min ISR:
    /// `min.insync.replicas` capped at the replica count
    /// (`ReplicationControlManager.getTopicEffectiveMinIsr`). `None` with ELR off.
    pub(super) elr_min_isr: Option<usize>,
    /// A broker whose registration showed an unclean shutdown (`setUncleanShutdownReplicas`):
    /// it may not stay in the ELR.
    pub(super) unclean_shutdown: Option<BrokerId>,
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

/// Plans one partition change the way KRaft's `PartitionChangeBuilder` does, keeping the
/// partition's assignment: see [`plan_assignment`].
pub(super) fn plan_change(
    p: &PartitionState,
    target_isr: &[BrokerId],
    target_recovery: Option<LeaderRecoveryState>,
    election: Election,
    rules: &Rules,
) -> Option<Plan> {
    plan_assignment(p, Assignment::of(p), target_isr, target_recovery, election, rules)
}

/// Plans one partition change in the steps of KRaft's `PartitionChangeBuilder.build`.
///
/// 1. A reassignment in `target` completes if `target_isr` allows it ([`Assignment::complete`],
///    `completeReassignmentIfNeeded`).
/// 2. With ELR on, the target ELR (`maybePopulateTargetElr`, R8.3): empty when the target ISR
///    has at least min ISR members; else the old ELR and old ISR, less the target ISR and the
///    unclean-shutdown broker. So every replica that leaves the ISR while the ISR is, or falls,
///    under min ISR becomes eligible, whatever removed it (the leader's lag rule, fencing,
///    controlled shutdown).
/// 3. The election ([`elect_any`] or the preferred one, `electLeader`): a valid leader is an
///    acceptable member of the target ISR, or of the target ELR when the target ISR is empty. A
///    leader taken from the ELR becomes the ISR alone and leaves the ELR (`tryElection`). An
///    unclean election, or that of the last known leader, sets ISR = [new leader] and
///    `leader_recovery` = Recovering (R6.5, KIP-704).
/// 4. The ELR is dropped after an unclean election or with ELR off (`maybeUpdateRecordElr`).
/// 5. The target ISR is applied; an empty one only with ELR on (with ELR off the ISR keeps its
///    last member, R4.8), though it still decides who may lead.
/// 6. With ELR on, LastKnownELR (`maybeUpdateLastKnownLeader`): the old leader when the ISR
///    becomes empty; cleared once the partition has a leader.
///
/// The leader epoch grows by one when the leader changes, including to none (R6.8, R4.10), when
/// the new replica list lacks one of the old replicas
/// (`triggerLeaderEpochBumpForReplicaReassignmentIfNeeded`), and with
/// [`Rules::shrink_bumps_leader_epoch`] also when the ISR loses a member; the partition epoch
/// grows by one on every change (R6.9). Returns `None` when nothing would change.
pub(super) fn plan_assignment(
    p: &PartitionState,
    target: Assignment,
    target_isr: &[BrokerId],
    target_recovery: Option<LeaderRecoveryState>,
    election: Election,
    rules: &Rules,
) -> Option<Plan> {
    let (target, mut target_isr) =
        target.complete(target_isr).unwrap_or_else(|| (target, target_isr.to_vec()));
    let elr_on = rules.elr_min_isr.is_some();
    let mut target_elr = target_elr(p, &target_isr, rules);
    let last_known = last_known_leader(p, elr_on);
    let replicas = &target.replicas;
    let (leader, unclean) = match election {
        Election::Preferred => {
            elect_preferred(replicas, &target_isr, &target_elr, last_known, p.leader, rules.acceptable)
        }
        Election::Any { unclean } => {
            elect_any(replicas, &target_isr, &target_elr, last_known, p.leader, unclean, rules.acceptable)
        }
    };
    let mut next = p.clone();
    let mut from_elr = false;
    let mut isr_set = false;
    if leader != p.leader {
        next.leader = leader;
        if let Some(l) = leader.filter(|l| target_elr.contains(l)) {
            target_isr = vec![l];
            target_elr.retain(|&r| r != l);
            from_elr = true;
        }
        if let (Some(l), true) = (leader, unclean) {
            next.isr = vec![l];
            next.leader_recovery = LeaderRecoveryState::Recovering;
            isr_set = true;
        }
    }
    next.elr = if isr_set || !elr_on { Vec::new() } else { target_elr };
    if !isr_set {
        if !target_isr.is_empty() || elr_on {
            next.isr = target_isr;
        }
        if let Some(recovery) = target_recovery {
            next.leader_recovery = recovery;
        }
    }
    if elr_on {
        update_last_known_leader(p, &mut next);
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
    if next.leader != p.leader || (rules.shrink_bumps_leader_epoch && shrunk) || replica_left {
        next.leader_epoch += 1;
    }
    Some(Plan { state: next, unclean, from_elr })
}

/// The ELR the change aims at (`PartitionChangeBuilder.maybePopulateTargetElr`, R8.3): with ELR
/// off, the partition's own (dropped later); with at least min ISR members in the target ISR,
/// none; else (old ELR ∪ old ISR) − target ISR − the unclean-shutdown broker, ascending.
fn target_elr(p: &PartitionState, target_isr: &[BrokerId], rules: &Rules) -> Vec<BrokerId> {
    let Some(min_isr) = rules.elr_min_isr else { return p.elr.clone() };
    if target_isr.len() >= min_isr {
        return Vec::new();
    }
    let candidates: BTreeSet<BrokerId> = p.elr.iter().chain(&p.isr).copied().collect();
    candidates.into_iter().filter(|r| !target_isr.contains(r) && Some(*r) != rules.unclean_shutdown).collect()
}

/// The last known leader an election may fall back on (`canElectLastKnownLeader`, R8.4): with
/// ELR on, the single member of LastKnownELR. Whether it may lead is the election's question.
fn last_known_leader(p: &PartitionState, elr_on: bool) -> Option<BrokerId> {
    match p.last_known_elr.as_slice() {
        [only] if elr_on => Some(*only),
        _ => None,
    }
}

/// `PartitionChangeBuilder.maybeUpdateLastKnownLeader` with the controller's default
/// `useLastKnownLeaderInBalancedRecovery`: when the ISR becomes empty, LastKnownELR records the
/// old leader (Kafka writes `-1` when there was none), unless it already does; when the
/// partition has a leader, LastKnownELR is cleared.
fn update_last_known_leader(p: &PartitionState, next: &mut PartitionState) {
    let old_leader = p.leader.unwrap_or(-1);
    let emptied = next.isr.is_empty() && next.isr != p.isr;
    if emptied && p.last_known_elr != [old_leader] {
        next.last_known_elr = vec![old_leader];
    } else if next.leader.is_some() {
        next.last_known_elr.clear();
    }
}

/// `PartitionChangeBuilder.electPreferredLeader` (R6.7): the preferred replica if it is a valid
/// leader, else the current leader while valid, else the next valid replica, else the last
/// known leader (an unclean-type election, R8.4).
fn elect_preferred(
    replicas: &[BrokerId],
    isr: &[BrokerId],
    elr: &[BrokerId],
    last_known: Option<BrokerId>,
    current: Option<BrokerId>,
    acceptable: &dyn Fn(BrokerId) -> bool,
) -> (Option<BrokerId>, bool) {
    let valid = |r: BrokerId| valid_leader(r, isr, elr, acceptable);
    if let Some(r) = replicas.first().copied().filter(|&r| valid(r)) {
        (Some(r), false)
    } else if current.is_some_and(valid) {
        (current, false)
    } else if let Some(r) = replicas.iter().skip(1).copied().find(|&r| valid(r)) {
        (Some(r), false)
    } else if let Some(r) = electable_last_known(isr, elr, last_known, acceptable) {
        (Some(r), true)
    } else {
        (None, false)
    }
}

/// `PartitionChangeBuilder.isValidNewLeader`: an acceptable member of the ISR, or of the ELR
/// when the ISR is empty.
fn valid_leader(
    r: BrokerId,
    isr: &[BrokerId],
    elr: &[BrokerId],
    acceptable: &dyn Fn(BrokerId) -> bool,
) -> bool {
    (isr.contains(&r) || (isr.is_empty() && elr.contains(&r))) && acceptable(r)
}

/// `PartitionChangeBuilder.canElectLastKnownLeader`: the last known leader, when the ISR and the
/// ELR are both empty and it is acceptable (KAFKA-19522, Kafka 4.1: before it a fenced last
/// known leader could be elected).
fn electable_last_known(
    isr: &[BrokerId],
    elr: &[BrokerId],
    last_known: Option<BrokerId>,
    acceptable: &dyn Fn(BrokerId) -> bool,
) -> Option<BrokerId> {
    last_known.filter(|&r| isr.is_empty() && elr.is_empty() && acceptable(r))
}

/// The leader `PartitionChangeBuilder.electAnyLeader` picks (R6.3–R6.5, R8.4): the current
/// leader while it is still valid; else the first replica in `replicas` order that is an
/// acceptable member of `isr`, or of `elr` when `isr` is empty; else `last_known` (the single
/// LastKnownELR member, given only with ELR on) when `isr` and `elr` are both empty and it is
/// acceptable; else with `unclean` the first acceptable replica at all. The second value says
/// the election was unclean (the last known leader counts as one, as in Kafka). `acceptable`:
/// registered, unfenced, not in controlled shutdown (`isActive`). `(None, false)` when nobody
/// qualifies. The dashboard's why panel asks it who would lead if the leader were lost.
pub fn elect_any(
    replicas: &[BrokerId],
    isr: &[BrokerId],
    elr: &[BrokerId],
    last_known: Option<BrokerId>,
    current: Option<BrokerId>,
    unclean: bool,
    acceptable: &dyn Fn(BrokerId) -> bool,
) -> (Option<BrokerId>, bool) {
    let ignore_isr = crate::sim::planted::active(crate::sim::planted::PlantedBug::ElectionIgnoresIsr);
    let valid = |r: BrokerId| (ignore_isr && acceptable(r)) || valid_leader(r, isr, elr, acceptable);
    if current.is_some_and(valid) {
        (current, false)
    } else if let Some(r) = replicas.iter().copied().find(|&r| valid(r)) {
        (Some(r), false)
    } else if let Some(r) = electable_last_known(isr, elr, last_known, acceptable) {
        (Some(r), true)
    } else if unclean {
        match replicas.iter().copied().find(|&r| acceptable(r)) {
            Some(r) => (Some(r), true),
            None => (None, false),
        }
    } else {
        (None, false)
    }
}
