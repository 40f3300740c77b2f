//! The controller's deferred tasks (Kafka's `QuorumController` with its `ImbalanceSchedule`):
//! the unclean-election check of Kafka 3.9+ (R6.5) and the auto leader rebalance (R6.7). Each is
//! armed after a write that leaves work for it and runs from [`QuorumController::on_tick`] when
//! due; the elections themselves are [`super::replication`]'s.

use super::QuorumController;
use crate::sim::Ms;

/// Most elections one rebalance run or one unclean check performs; the rest follow 10 ms later
/// (Kafka's `QuorumController.MAX_ELECTIONS_PER_IMBALANCE`).
pub const MAX_ELECTIONS_PER_IMBALANCE: usize = 1000;

/// Delay of a rebalance run or unclean check that continues a run cut short by
/// [`MAX_ELECTIONS_PER_IMBALANCE`] (ms), as Kafka's controller schedules it.
pub const REBALANCE_CONTINUE_DELAY_MS: Ms = 10;

/// When a deferred controller task (the auto-rebalance run or the unclean-election check) is
/// due: Kafka's `ImbalanceSchedule` SCHEDULED with its deadline.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct DeferredRun {
    /// When it was scheduled (ms).
    pub(super) armed_at: Ms,
    /// Continue a run cut short by the batch limit, 10 ms later instead of a full interval.
    pub(super) immediate: bool,
}

impl QuorumController {
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

    /// After every write, as `QuorumController` does (`maybeScheduleNextElectUncleanLeaders`,
    /// `maybeScheduleNextBalancePartitionLeaders`): arm the unclean check one
    /// `unclean.leader.election.interval.ms` from now if none is armed and some partition has
    /// no leader; schedule a rebalance run one interval from now if auto-rebalance is on, none
    /// is scheduled and some partition is not led by its preferred replica; cancel the
    /// rebalance when auto-rebalance is off. The unclean check exists only where the KRaft
    /// controller applies unclean election itself ([`crate::config::Semantics::kraft_unclean_election`],
    /// KAFKA-12670, Kafka 3.9).
    pub(super) fn after_write(&mut self, now: Ms) {
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
}
