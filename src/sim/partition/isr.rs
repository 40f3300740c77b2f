//! ISR management on the leader (R4): proposals to shrink or expand the ISR through the
//! controller (`AlterPartition`), their answers, and who counts as caught up. Kafka's
//! `Partition.maybeShrinkIsr`, `maybeExpandIsr`, `prepareIsrShrink`/`prepareIsrExpand` and
//! `handleAlterPartitionUpdate`.

use super::*;
use crate::config::semantics::IsrLag;
use crate::sim::planted::{self, PlantedBug};

impl Partition {
    /// When the committed state equals the leader's own pending proposal, the proposal was
    /// accepted: report the ISR change.
    pub(super) fn commit_pending_if_matches(&mut self, ctx: &Ctx, new: &PartitionState, out: &mut Outbox) {
        let Role::Leader(ls) = &mut self.role else { return };
        let Some(pending) = &ls.pending else { return };
        let same_epoch = self.state.as_ref().is_some_and(|s| s.leader_epoch == new.leader_epoch);
        // An expansion that completed a reassignment comes back without the removed replicas
        // and with a new leader epoch (`PartitionChangeBuilder.completeReassignmentIfNeeded`).
        let completed = new.leader == Some(ctx.me)
            && self.state.as_ref().is_some_and(PartitionState::is_reassigning)
            && !new.is_reassigning();
        // Before metadata version 3.6 the controller also bumped the leader epoch of an
        // accepted shrink (KAFKA-15021, R4.10): the leader is the same, its epoch is not.
        let bumped_shrink = matches!(pending.change, IsrChange::Shrink { .. })
            && ctx.config.semantics.leader_epoch_bump_on_isr_shrink
            && new.leader == Some(ctx.me);
        let kept: Vec<BrokerId> = pending.isr.iter().copied().filter(|r| new.replicas.contains(r)).collect();
        if !(same_epoch || completed || bumped_shrink) || kept != new.isr {
            return;
        }
        let event = match &pending.change {
            IsrChange::Expand(r) => {
                EventKind::IsrExpanded { tp: self.tp.clone(), added: *r, isr: new.isr.clone() }
            }
            IsrChange::Shrink { removed, behind_ms, never_fetched, behind_messages } => {
                let (behind_ms, limit_ms) = (*behind_ms, ctx.config.replica_lag_time_max_ms);
                let cause = if let Some(behind) = *behind_messages {
                    ShrinkCause::TooFarBehind { behind, limit: ctx.config.replica_lag_max_messages }
                } else if *never_fetched {
                    ShrinkCause::NoFetchSinceElection { behind_ms, limit_ms }
                } else {
                    ShrinkCause::Lagging { behind_ms, limit_ms }
                };
                EventKind::IsrShrunk {
                    tp: self.tp.clone(),
                    removed: removed.clone(),
                    isr: new.isr.clone(),
                    cause,
                }
            }
        };
        out.emit(event);
        ls.pending = None;
    }

    /// The answer to this leader's AlterPartition (R4.7).
    pub fn on_alter_partition_response(
        &mut self,
        ctx: &Ctx,
        result: &Result<PartitionState, ErrorCode>,
        out: &mut Outbox,
    ) {
        match result {
            Ok(state) => self.apply_state(ctx, state, out),
            Err(ErrorCode::IneligibleReplica) => {
                if let Role::Leader(ls) = &mut self.role {
                    ls.pending = None;
                }
            }
            // Fenced or stale: stay pending until new metadata arrives.
            Err(_) => {}
        }
    }

    pub(super) fn is_caught_up(ctx: &Ctx, f: &FollowerState, leader_leo: Offset, lag_ms: Ms) -> bool {
        f.leo == Some(leader_leo)
            || f.caught_up_at(ctx.session_fetches).is_some_and(|t| ctx.now.saturating_sub(t) <= lag_ms)
    }

    pub(super) fn is_isr_eligible(ctx: &Ctx, r: BrokerId, f: &FollowerState) -> bool {
        ctx.brokers.get(&r).is_some_and(|reg| {
            !reg.fenced
                && !reg.in_controlled_shutdown
                && (f.broker_epoch == -1 || f.broker_epoch == reg.broker_epoch)
        })
    }

    pub(super) fn isr_member(ctx: &Ctx, ls: &LeaderState, r: BrokerId) -> IsrMember {
        let broker_epoch =
            if r == ctx.me { ctx.broker_epoch } else { ls.followers.get(&r).map_or(-1, |f| f.broker_epoch) };
        IsrMember { id: r, broker_epoch }
    }

    pub(super) fn propose(&mut self, ctx: &Ctx, isr: Vec<BrokerId>, change: IsrChange, out: &mut Outbox) {
        let (leader_epoch, partition_epoch) = match &self.state {
            Some(s) => (s.leader_epoch, s.partition_epoch),
            None => {
                tracing::error!(t = ctx.now, tp = %self.tp, "ISR change proposed without partition state");
                return;
            }
        };
        let Role::Leader(ls) = &mut self.role else {
            tracing::error!(t = ctx.now, tp = %self.tp, "ISR change proposed by a replica that is not the leader");
            return;
        };
        tracing::debug!(t = ctx.now, tp = %self.tp, ?isr, ?change, partition_epoch, "AlterPartition proposed");
        let new_isr = isr.iter().map(|&r| Self::isr_member(ctx, ls, r)).collect();
        out.send(
            NodeId::ActiveController,
            Message::AlterPartition {
                leader: ctx.me,
                broker_epoch: ctx.broker_epoch,
                tp: self.tp.clone(),
                leader_epoch,
                partition_epoch,
                new_isr,
                leader_recovery: LeaderRecoveryState::Recovered,
            },
        );
        ls.pending = Some(PendingIsr { isr, change });
    }

    /// ISR expansion on a follower fetch (R4.6): not already in, caught up to the HW and to
    /// this leader's epoch start, and eligible.
    pub(super) fn maybe_expand_isr(&mut self, ctx: &Ctx, replica: BrokerId, out: &mut Outbox) {
        let hw = self.log.hw();
        let Role::Leader(ls) = &self.role else { return };
        if ls.pending.is_some() || self.committed_isr().contains(&replica) {
            return;
        }
        let Some(f) = ls.followers.get(&replica) else { return };
        let Some(leo) = f.leo else { return };
        let caught_up = leo >= hw && leo >= ls.epoch_start_offset;
        if (caught_up || planted::active(PlantedBug::IsrBeforeCaughtUp))
            && Self::is_isr_eligible(ctx, replica, f)
        {
            let mut isr = self.committed_isr().to_vec();
            isr.push(replica);
            self.propose(ctx, isr, IsrChange::Expand(replica), out);
        }
    }

    /// The periodic ISR-expiration check (R4.1, R4.2): proposes removing followers that have
    /// not been caught up for `replica.lag.time.max.ms`.
    pub fn maybe_shrink_isr(&mut self, ctx: &Ctx, out: &mut Outbox) {
        let leo = self.log.leo();
        let lag = ctx.config.replica_lag_time_max_ms;
        let Role::Leader(ls) = &self.role else { return };
        if ls.pending.is_some() {
            return;
        }
        let mut removed = Vec::new();
        let mut behind_ms = 0;
        let mut never_fetched = true;
        let mut behind_messages = None;
        for &r in self.committed_isr() {
            if r == ctx.me {
                continue;
            }
            let f = ls.followers.get(&r).cloned().unwrap_or_default();
            if let Some(behind) = Self::too_far_behind(ctx, &f, leo) {
                removed.push(r);
                behind_messages = Some(behind_messages.unwrap_or(0).max(behind));
            } else if Self::is_out_of_sync(ctx, &f, leo, lag) {
                removed.push(r);
                behind_ms =
                    behind_ms.max(ctx.now.saturating_sub(f.caught_up_at(ctx.session_fetches).unwrap_or(0)));
                never_fetched &= f.last_fetch(ctx.session_fetches).is_none();
            }
        }
        if removed.is_empty() {
            return;
        }
        let isr = self.committed_isr().iter().copied().filter(|r| !removed.contains(r)).collect();
        let change = IsrChange::Shrink { removed, behind_ms, never_fetched, behind_messages };
        self.propose(ctx, isr, change, out);
    }

    /// Out of sync by time (R4.1): not caught up for `replica.lag.time.max.ms`. Under Kafka
    /// 0.8's rule (R4.4, `Partition.getOutOfSyncReplicas` at 0.8.2) it is *stuck* instead: no
    /// fetch moved its LEO for that long (`Replica.logEndOffsetUpdateTimeMs`), caught up or not.
    fn is_out_of_sync(ctx: &Ctx, f: &FollowerState, leader_leo: Offset, lag_ms: Ms) -> bool {
        match (ctx.config.semantics.isr_lag, f.last_fetch(ctx.session_fetches)) {
            (IsrLag::TimeAndMessages, Some(fetched)) => ctx.now.saturating_sub(fetched) > lag_ms,
            _ => !Self::is_caught_up(ctx, f, leader_leo, lag_ms),
        }
    }

    /// Kafka 0.8's *slow* follower (R4.4): more than `replica.lag.max.messages` behind the
    /// leader's LEO, however recently it fetched; `None` under the time rule (KIP-16, 0.9).
    fn too_far_behind(ctx: &Ctx, f: &FollowerState, leader_leo: Offset) -> Option<i64> {
        if ctx.config.semantics.isr_lag != IsrLag::TimeAndMessages {
            return None;
        }
        let behind = leader_leo - f.leo?;
        (behind > ctx.config.replica_lag_max_messages as i64).then_some(behind)
    }

    /// The leader's unanswered ISR proposal, in words.
    pub fn pending_isr(&self) -> Option<String> {
        let Role::Leader(LeaderState { pending: Some(p), .. }) = &self.role else { return None };
        let what = match &p.change {
            IsrChange::Expand(r) => format!("adding {r}"),
            IsrChange::Shrink { removed, .. } => format!("removing {}", join_ids(removed)),
        };
        Some(format!("AlterPartition ISR [{}] ({what}) awaiting the controller", join_ids(&p.isr)))
    }
}
