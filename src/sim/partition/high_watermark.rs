//! The leader's high watermark (R3) and the acks=all produces parked on it (R5.4):
//! Kafka's `Partition.maybeIncrementLeaderHW`, `checkEnoughReplicasReachOffset` and the
//! produce purgatory's `DelayedProduce`, with the plain-words explanations of a HW that
//! does not move.

use super::*;
use crate::sim::planted::{self, PlantedBug};

impl Partition {
    /// Recomputes the leader's HW (R3.3, Kafka 3.7+): frozen under min ISR, else the minimum
    /// LEO over the maximal ISR and caught-up eligible followers. Completes parked produces
    /// the new HW satisfies. Returns whether the HW moved.
    pub fn maybe_increment_hw(&mut self, ctx: &Ctx, out: &mut Outbox) -> bool {
        if self.hw_frozen(ctx) {
            return false;
        }
        let maximal = self.maximal_isr();
        let Role::Leader(ls) = &self.role else { return false };
        let leo = self.log.leo();
        let lag = ctx.config.replica_lag_time_max_ms;
        let candidate = ls
            .followers
            .iter()
            .filter(|(r, f)| {
                maximal.contains(r)
                    || (Self::is_caught_up(ctx, f, leo, lag) && Self::is_isr_eligible(ctx, **r, f))
            })
            .map(|(_, f)| f.leo.unwrap_or(-1))
            .filter(|_| !planted::active(PlantedBug::HwFromLeaderAlone))
            .fold(leo, Offset::min);
        let moved = self.log.maybe_increment_hw(candidate);
        if moved {
            tracing::trace!(t = ctx.now, tp = %self.tp, hw = self.log.hw(), "HW advanced");
            self.complete_delayed(ctx, out);
        }
        moved
    }

    /// Strict min ISR (R3.3 step 1, KAFKA-15583, [`crate::config::semantics::Semantics::strict_min_isr`]):
    /// the leader's HW may not advance while the committed ISR is below the effective min ISR.
    pub(super) fn hw_frozen(&self, ctx: &Ctx) -> bool {
        ctx.config.semantics.strict_min_isr && self.committed_isr().len() < self.effective_min_isr(ctx)
    }

    pub(super) fn complete_delayed(&mut self, ctx: &Ctx, out: &mut Outbox) {
        let hw = self.log.hw();
        let enough = self.maximal_isr().len() >= self.effective_min_isr(ctx);
        let Role::Leader(ls) = &mut self.role else { return };
        let (done, waiting): (Vec<_>, Vec<_>) = ls.delayed.drain(..).partition(|d| d.required_offset <= hw);
        ls.delayed = waiting;
        for d in done {
            let result = if enough {
                Ok((d.base_offset, d.leader_epoch))
            } else {
                Err(ErrorCode::NotEnoughReplicasAfterAppend)
            };
            respond(out, d.producer, d.correlation_id, &self.tp, result, String::new());
        }
    }

    pub(super) fn fail_delayed(&mut self, error: ErrorCode, out: &mut Outbox) {
        if let Role::Leader(ls) = &mut self.role {
            for d in ls.delayed.drain(..) {
                respond(out, d.producer, d.correlation_id, &self.tp, Err(error), String::new());
            }
        }
    }

    /// Times out parked produces whose request timeout passed (`REQUEST_TIMED_OUT`, R5.4.5).
    pub fn expire_delayed(&mut self, now: Ms, out: &mut Outbox) {
        let Role::Leader(ls) = &mut self.role else { return };
        let (expired, waiting): (Vec<_>, Vec<_>) = ls.delayed.drain(..).partition(|d| d.deadline <= now);
        ls.delayed = waiting;
        for d in expired {
            let msg = format!("the HW did not reach offset {} within {} ms", d.required_offset, d.timeout_ms);
            respond(out, d.producer, d.correlation_id, &self.tp, Err(ErrorCode::RequestTimedOut), msg);
        }
    }

    /// Earliest parked-produce deadline or follower backoff end (ms).
    pub fn next_deadline(&self) -> Option<Ms> {
        match &self.role {
            Role::Leader(ls) => ls.delayed.iter().map(|d| d.deadline).min(),
            Role::Follower { backoff_until, .. } if *backoff_until > 0 => Some(*backoff_until),
            _ => None,
        }
    }

    /// Why the leader's HW cannot advance right now, in plain words; `None` if it can or
    /// this replica does not lead.
    pub fn hw_blocked_by(&self, ctx: &Ctx) -> Option<String> {
        let Role::Leader(_) = &self.role else { return None };
        if self.hw_frozen(ctx) {
            return Some(format!(
                "HW frozen: ISR [{}] is below min.insync.replicas={} (Kafka 3.7+ rule)",
                join_ids(self.committed_isr()),
                self.effective_min_isr(ctx)
            ));
        }
        Some(match self.hw_held_by()? {
            (r, None) => format!("HW waits for broker {r}'s first fetch from the new leader"),
            (r, Some(l)) => format!("HW waits for broker {r} (LEO {l}), still in the ISR"),
        })
    }

    /// The follower that holds the leader's HW below its LEO: the maximal-ISR member with the
    /// lowest LEO as the leader knows it (`None` = not fetched from this leader yet), R2.7
    /// (`Partition.maybeIncrementLeaderHW` takes the minimum over the maximal ISR). `None`
    /// when this replica does not lead or its HW equals its LEO.
    pub fn hw_held_by(&self) -> Option<(BrokerId, Option<Offset>)> {
        let Role::Leader(ls) = &self.role else { return None };
        if self.log.hw() >= self.log.leo() {
            return None;
        }
        let maximal = self.maximal_isr();
        let slowest = ls
            .followers
            .iter()
            .filter(|(r, _)| maximal.contains(r))
            .min_by_key(|(_, f)| f.leo.unwrap_or(-1))?;
        Some((*slowest.0, slowest.1.leo))
    }

    /// The acks=all produces parked at this leader (Kafka's produce purgatory of
    /// `DelayedProduce`s), one entry per producer in producer order; empty unless this
    /// replica leads and some wait. A parked produce completes when the HW passes its records
    /// (`DelayedProduce.tryComplete` → `Partition.checkEnoughReplicasReachOffset`), fails
    /// with NOT_LEADER_OR_FOLLOWER when the leadership goes, or expires with REQUEST_TIMED_OUT
    /// once the request's timeout (the producer's `request.timeout.ms`) has passed since it
    /// parked (`DelayedProduce.onExpiration`): one parked before the ISR shrank below
    /// `min.insync.replicas` waits out that timeout, as the HW is frozen meanwhile (3.7+).
    pub fn parked_produces(&self) -> Vec<ParkedProduces> {
        let Role::Leader(ls) = &self.role else { return Vec::new() };
        let mut out: Vec<ParkedProduces> = Vec::new();
        for d in &ls.delayed {
            let records = u64::try_from(d.required_offset - d.base_offset).unwrap_or(0);
            let since = d.deadline.saturating_sub(d.timeout_ms);
            match out.iter_mut().find(|p| p.producer == d.producer) {
                Some(p) => {
                    p.requests += 1;
                    p.records += records;
                    p.since = p.since.min(since);
                    if d.deadline < p.first_deadline {
                        (p.first_deadline, p.timeout_ms) = (d.deadline, d.timeout_ms);
                    }
                }
                None => out.push(ParkedProduces {
                    producer: d.producer,
                    requests: 1,
                    records,
                    since,
                    first_deadline: d.deadline,
                    timeout_ms: d.timeout_ms,
                }),
            }
        }
        out.sort_by_key(|p| p.producer);
        out
    }
}
