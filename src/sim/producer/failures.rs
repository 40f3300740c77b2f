//! How the producer counts and tells its failures: error counters, the per-partition error
//! run that one [`EventKind::ProduceFailing`] line stands for, and the
//! [`EventKind::ProduceRecovered`] that a success ends it with (isrlab's events; Kafka's
//! `Sender.failBatch` and `completeBatch` are where they happen).

use super::ProducerClient;
use crate::kafka::errors::ErrorCode;
use crate::sim::Ms;
use crate::sim::Outbox;
use crate::sim::events::{EventKind, ProduceFailure};
use std::mem;

/// Consecutive errors of one code on one partition (what one event line stands for).
#[derive(Clone, Copy, Debug)]
pub(super) struct ErrorRun {
    pub(super) error: ErrorCode,
    pub(super) errors: u64,
    pub(super) records_failed: u64,
}

/// Plain words for a broker error that came without an error message.
pub(super) fn explain(error: ErrorCode) -> &'static str {
    match error {
        ErrorCode::NotLeaderOrFollower => "the broker is no longer the partition's leader",
        ErrorCode::LeaderNotAvailable => "the partition has no leader right now",
        ErrorCode::NotEnoughReplicas => "the ISR is smaller than min.insync.replicas; nothing was written",
        ErrorCode::NotEnoughReplicasAfterAppend => {
            "written, but the ISR fell below min.insync.replicas before the acknowledgement"
        }
        ErrorCode::RequestTimedOut => "the leader could not satisfy acks=all within request.timeout.ms",
        ErrorCode::UnknownTopicOrPartition => "the broker does not host this partition",
        ErrorCode::OutOfOrderSequenceNumber => "the leader saw a gap in the producer's sequence numbers",
        ErrorCode::InvalidRequiredAcks => "acks must be 0, 1 or all",
        ErrorCode::InvalidTopicException => {
            "the topic is internal: Kafka takes no client's records for it (only its own coordinators write there); the error is not retriable, so the batch fails"
        }
        _ => "the broker refused the batch",
    }
}

impl ProducerClient {
    /// Counts an error for partition `i` (with `records_failed` records given up by it) in the
    /// producer's error counters and in the partition's error run, and emits the run's
    /// [`EventKind::ProduceFailing`] with its running count. The same error code continues the
    /// run; another one starts a new run.
    pub(super) fn note_error(
        &mut self,
        now: Ms,
        i: usize,
        error: ErrorCode,
        detail: String,
        records_failed: u64,
        out: &mut Outbox,
    ) {
        *self.errors.entry(error.name().to_string()).or_insert(0) += 1;
        let p = &mut self.partitions[i];
        self.last_error = Some((now, format!("{error} on {}: {detail}", p.tp)));
        *p.since_ok.entry(error).or_insert(0) += 1;
        let run = match p.run {
            Some(run) if run.error == error => run,
            _ => ErrorRun { error, errors: 0, records_failed: 0 },
        };
        let run =
            ErrorRun { errors: run.errors + 1, records_failed: run.records_failed + records_failed, ..run };
        p.run = Some(run);
        out.emit(EventKind::ProduceFailing {
            producer: self.index,
            tp: p.tp.clone(),
            failure: ProduceFailure { error, detail },
            errors: run.errors,
            records_failed: run.records_failed,
        });
    }

    /// Partition `i` had a success: ends its error run with [`EventKind::ProduceRecovered`],
    /// which adds up every error since the previous success.
    pub(super) fn mark_success(&mut self, i: usize, out: &mut Outbox) {
        let p = &mut self.partitions[i];
        p.run = None;
        if !p.since_ok.is_empty() {
            let errors = mem::take(&mut p.since_ok).into_iter().collect();
            out.emit(EventKind::ProduceRecovered { producer: self.index, tp: p.tp.clone(), errors });
        }
    }
}
