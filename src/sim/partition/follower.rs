//! The follower side of a replica: what its fetcher asks the leader for and what it does
//! with the answer (Kafka's `ReplicaFetcherThread.processPartitionData` via
//! `Partition.appendRecordsToFollowerOrFutureReplica`, truncation on a diverging epoch), and
//! its fetch backoff after an error.

use super::*;
use crate::config::semantics::Truncation as TruncationRule;
use crate::sim::events::TRUNCATED_TO_HW;
use crate::sim::protocol::EpochEndOffset;

impl Partition {
    /// What this follower asks its leader for, or `None` when it should not fetch now.
    pub fn fetch_request(&self, now: Ms) -> Option<(BrokerId, FetchPartition)> {
        let Role::Follower { leader: Some(leader), backoff_until } = self.role else { return None };
        if now < backoff_until || self.fetch_stopped {
            return None;
        }
        Some((
            leader,
            FetchPartition {
                tp: self.tp.clone(),
                topic_id: self.topic_id,
                current_leader_epoch: self.leader_epoch(),
                fetch_offset: self.log.leo(),
                last_fetched_epoch: self.log.latest_epoch(),
                log_start_offset: self.log.log_start(),
            },
        ))
    }

    /// Follower side of a fetch response (R2.9, R7.5–R7.6): append, learn the HW, or truncate
    /// on divergence. Errors back the partition off for `replica.fetch.backoff.ms`.
    pub fn on_fetch_response(
        &mut self,
        ctx: &Ctx,
        from: BrokerId,
        result: &Result<FetchedData, ErrorCode>,
        out: &mut Outbox,
    ) {
        if self.following() != Some(from) || self.fetch_stopped {
            return;
        }
        let data = match result {
            Ok(d) => d,
            Err(e @ (ErrorCode::UnknownTopicId | ErrorCode::InconsistentTopicId)) => {
                if self.topic_id_refused != Some(*e) {
                    self.topic_id_refused = Some(*e);
                    out.emit(EventKind::FetchTopicIdRefused {
                        broker: ctx.me,
                        leader: from,
                        tp: self.tp.clone(),
                        topic_id: self.topic_id,
                        error: *e,
                    });
                }
                return self.back_off(ctx);
            }
            Err(_) => return self.back_off(ctx),
        };
        self.topic_id_refused = None;
        if data.diverging_epoch.is_none() && data.log_start_offset > self.log.leo() {
            // The leader's retention deleted everything up to its log start, beyond this LEO
            // (a replica down for longer than retention.ms). Kafka's leader answers
            // OFFSET_OUT_OF_RANGE and the fetcher asks for the leader's earliest offset
            // (ListOffsets), then empties its log to start there
            // (`AbstractFetcherThread.handleOutOfRangeError` → `fetchOffsetAndTruncate` →
            // `truncateFullyAndStartAt`). isrlab's response carries that log start, sparing
            // the extra round trip.
            self.log.truncate_fully_and_start_at(data.log_start_offset);
            return;
        }
        if let Some(div) = data.diverging_epoch {
            let to = match ctx.config.semantics.truncation {
                // Before KIP-101 the leader answers out of range and the follower truncates to
                // the leader's LEO (Kafka 0.10.2 `ReplicaFetcherThread.handleOffsetOutOfRange`,
                // which asks it with a ListOffsets request; isrlab's answer carries it).
                TruncationRule::HighWatermark => div.end_offset.min(self.log.leo()),
                _ => self.log.truncation_point(div),
            };
            let epochs_before = self.log.epoch_cache().len();
            if !self.truncate_recorded(ctx, to, div, out) && self.log.epoch_cache().len() == epochs_before {
                // Only a stale epoch entry went; with nothing changed, wait before asking again.
                self.back_off(ctx);
            }
            return;
        }
        let leo_before = self.log.leo();
        let appended = self.log.append_as_follower(&data.batches);
        if appended > 0 && self.log.written(ctx.now) {
            out.fsyncs += 1;
        }
        // `AbstractFetcherThread.processFetchRequest`: the lag is refreshed by a response that
        // brought records, or set by the first response.
        if appended > 0 || self.fetch_lag.is_none() {
            self.fetch_lag = Some((data.high_watermark - self.log.leo()).max(0));
        }
        // R2.9: the follower takes min(leader HW, own LEO) even when that is lower than the HW
        // it had (a new leader may not yet know the HW an older leader told it), as Kafka's
        // `ReplicaFetcherThread.processPartitionData` does via
        // `UnifiedLog.maybeUpdateHighWatermark` → `updateHighWatermark`. Only a leader's HW is
        // monotonic.
        self.log.set_hw(data.high_watermark);
        self.log.maybe_increment_log_start(data.log_start_offset);
        self.note_catch_up(ctx, from, leo_before, data.high_watermark, out);
    }

    /// Truncates this replica's log to `to` after the leader's answer `div` (or the rule before
    /// KIP-101, `div.epoch` one of [`TRUNCATED_TO_HW`] and [`crate::sim::events::TRUNCATED_TO_LEADER_LEO`]),
    /// keeping what goes for the audit ledger and the dashboard. Returns whether records went.
    pub(super) fn truncate_recorded(
        &mut self,
        ctx: &Ctx,
        to: Offset,
        div: EpochEndOffset,
        out: &mut Outbox,
    ) -> bool {
        let from_leo = self.log.leo();
        // Kept for the audit ledger and the dashboard before they go; only a truncation
        // pays for this copy.
        let removed: Vec<_> = if to < from_leo { self.log.batches_from(to).collect() } else { Vec::new() };
        self.log.truncate_to(to);
        if to >= from_leo {
            return false;
        }
        out.emit(EventKind::Truncated {
            broker: ctx.me,
            tp: self.tp.clone(),
            from: from_leo,
            to,
            diverging_epoch: div.epoch,
            leader_end_offset: div.end_offset,
        });
        out.touched.push(self.tp.clone());
        let from = self.log.leo();
        out.truncations.push(Truncation {
            broker: ctx.me,
            tp: self.tp.clone(),
            from,
            count: u64::try_from(from_leo - from).unwrap_or(0),
            removed,
        });
        true
    }

    /// Before KIP-101 (Kafka ≤ 0.10.2), a replica becoming a follower first truncates its log
    /// to its own high watermark, the checkpointed one after a restart (R7.1;
    /// `ReplicaManager.makeFollowers` → `logManager.truncateTo(… replica.highWatermark)`). The
    /// records above it may be committed on the leader: KIP-101's first trace.
    pub(super) fn truncate_to_hw_on_follow(&mut self, ctx: &Ctx, out: &mut Outbox) {
        if ctx.config.semantics.truncation != TruncationRule::HighWatermark {
            return;
        }
        let hw = self.log.hw().min(self.log.leo());
        self.truncate_recorded(ctx, hw, EpochEndOffset { epoch: TRUNCATED_TO_HW, end_offset: hw }, out);
    }

    pub(super) fn back_off(&mut self, ctx: &Ctx) {
        if let Role::Follower { backoff_until, .. } = &mut self.role {
            *backoff_until = ctx.now + ctx.config.replica_fetch_backoff_ms;
        }
    }

    /// Clears an expired follower backoff; returns whether one ended.
    pub fn end_backoff(&mut self, now: Ms) -> bool {
        match &mut self.role {
            Role::Follower { backoff_until, .. } if *backoff_until > 0 && *backoff_until <= now => {
                *backoff_until = 0;
                true
            }
            _ => false,
        }
    }
}
