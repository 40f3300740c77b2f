//! The idempotent part of the producer's `TransactionManager`: sequence numbers per partition,
//! a fresh producer id after a batch with a sequence failed for good (standing for KIP-360's
//! epoch bump), and which `OUT_OF_ORDER_SEQUENCE_NUMBER` answers may be retried
//! (`TransactionManager.canRetry`).

use super::ProducerClient;
use super::accumulator::ProducerBatch;
use crate::kafka::errors::ErrorCode;

/// Adds `n` to a producer sequence, wrapping past `i32::MAX` to 0 as Kafka's
/// `DefaultRecordBatch.incrementSequence` does.
pub(super) fn increment_sequence(sequence: i32, n: usize) -> i32 {
    ((sequence as i64 + n as i64) % (i32::MAX as i64 + 1)) as i32
}

impl ProducerClient {
    /// Whether an `OUT_OF_ORDER_SEQUENCE_NUMBER` for `batch` only means that an earlier batch
    /// of the same producer id is still unresolved (failed and waiting for its retry, or in
    /// flight): the leader saw a gap because that one was not written yet. Java's
    /// `TransactionManager.canRetry` retries such a batch ("not the next sequence"); one that
    /// is the next sequence fails for good.
    pub(super) fn sequence_overtaken(&self, i: usize, batch: &ProducerBatch, error: ErrorCode) -> bool {
        error == ErrorCode::OutOfOrderSequenceNumber
            && batch.base_sequence >= 0
            && self.partitions[i]
                .first_pending_sequence(batch.producer_id)
                .is_some_and(|first| first < batch.base_sequence)
    }

    /// Takes a fresh producer id and restarts every partition's sequence at 0 (KIP-360
    /// stand-in). Batches already sent keep their old id and sequence for their retries.
    pub(super) fn bump_producer_id(&mut self) {
        self.generation += 1;
        for p in &mut self.partitions {
            p.next_sequence = 0;
        }
    }
}
