//! The idempotent part of the producer's `TransactionManager`: sequence numbers per partition,
//! the epoch bump of KIP-360 (a fresh producer id stands for the bumped epoch, as our
//! [`Batch`](crate::sim::protocol::Batch) has no epoch field), and which
//! `OUT_OF_ORDER_SEQUENCE_NUMBER` answers are retried with or without a bump
//! (`TransactionManager.canRetry`, `handleFailedBatch`).

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
    /// `TransactionManager.canRetry` retries such a batch without bumping the epoch ("not the
    /// next sequence").
    pub(super) fn sequence_overtaken(&self, i: usize, batch: &ProducerBatch, error: ErrorCode) -> bool {
        error == ErrorCode::OutOfOrderSequenceNumber
            && batch.base_sequence >= 0
            && self.partitions[i]
                .first_pending_sequence(batch.producer_id)
                .is_some_and(|first| first < batch.base_sequence)
    }

    /// Whether an `OUT_OF_ORDER_SEQUENCE_NUMBER` for `batch` is a real gap in the leader's
    /// sequence for this producer, so the epoch must be bumped: the batch is the next
    /// sequence (nothing earlier unresolved) and was not already re-stamped by a bump.
    /// Since Kafka 2.5 (KIP-360) the idempotent producer retries every
    /// `OUT_OF_ORDER_SEQUENCE_NUMBER` (`TransactionManager.canRetry`: "For the idempotent
    /// producer, retry all OUT_OF_ORDER_SEQUENCE_NUMBER errors"), asking for a bump in this
    /// case (`requestEpochBumpForPartition`); a broker that lost the producer's state (an
    /// unclean election onto a replica that lacks its last batches) answers so.
    pub(super) fn sequence_gap(&self, i: usize, batch: &ProducerBatch, error: ErrorCode) -> bool {
        error == ErrorCode::OutOfOrderSequenceNumber
            && batch.base_sequence >= 0
            && !batch.sequence_reset
            && !self.sequence_overtaken(i, batch, error)
    }

    /// Asks for an epoch bump that restarts partition `i`'s sequences at 0
    /// (`TransactionManager.requestEpochBumpForPartition`); the sender does it before its next
    /// send ([`Self::bump_epoch_if_needed`]).
    pub(super) fn request_epoch_bump(&mut self, i: usize) {
        self.epoch_bump_for.insert(i);
    }

    /// Does a requested epoch bump, as `Sender.runOnce` does through
    /// `TransactionManager.bumpIdempotentEpochAndResetIdIfNeeded` before sending: the producer
    /// takes its next epoch (here a fresh producer id, see the module docs), and each
    /// partition that asked for it has its unresolved batches, in flight or waiting for a
    /// retry, re-stamped with the new id and sequences from 0 in their order
    /// (`TxnPartitionEntry.startSequencesAtBeginning`); its next new batch follows them. The
    /// leader takes sequence 0 of a new epoch whatever it held for the old one
    /// (`ProducerAppendInfo.checkSequence`), so the retries go through. Other partitions
    /// switch to the new id once their batches of the old one are answered
    /// (`RecordAccumulator.shouldStopDrainBatchesForPartition`, `maybeUpdateProducerIdAndEpoch`).
    pub(super) fn bump_epoch_if_needed(&mut self) {
        if self.epoch_bump_for.is_empty() {
            return;
        }
        self.bump_producer_id();
        let id = self.producer_id();
        for i in std::mem::take(&mut self.epoch_bump_for) {
            let p = &mut self.partitions[i];
            let mut batches: Vec<&mut ProducerBatch> = (p.in_flight.iter_mut().map(|f| &mut f.batch))
                .chain(p.retries.iter_mut().map(|r| &mut r.batch))
                .filter(|b| b.base_sequence >= 0)
                .collect();
            batches.sort_by_key(|b| (b.producer_id, b.base_sequence));
            let mut sequence = 0;
            for b in batches {
                b.producer_id = id;
                b.base_sequence = sequence;
                b.sequence_reset = true;
                sequence = increment_sequence(sequence, b.values.len());
            }
            p.next_sequence = sequence;
        }
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
