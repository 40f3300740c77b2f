//! The producer's `RecordAccumulator`: per-partition queues of records not yet sent
//! (`TopicInfo.batches`, a deque per partition), the batches formed from them
//! (`ProducerBatch`), when a batch is ready (`RecordAccumulator.ready`: full at `batch.size`
//! or lingered `linger.ms`), and when records expire (`RecordAccumulator.expiredBatches`,
//! KIP-91's `delivery.timeout.ms`). Also the index of partitions that hold something, which
//! the sender's passes follow.

use super::ProducerClient;
use super::failures::ErrorRun;
use super::partitioner::Queues;
use super::sender::{InFlight, Retry};
use super::transaction::increment_sequence;
use crate::kafka::errors::ErrorCode;
use crate::sim::producer_latency::SendTimes;
use crate::sim::protocol::Values;
use crate::sim::{Acks, BrokerId, Epoch, Ms, Outbox, TopicPartition};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::mem;
use std::sync::Arc;

/// A record handed to the producer and not yet in a batch.
#[derive(Clone, Copy, Debug)]
pub(super) struct PendingRecord {
    /// Unique payload.
    pub(super) value: u64,
    /// Sim time it was handed to the producer (start of its delivery timeout).
    pub(super) created: Ms,
    /// [`partitioner::key_hash`] of its key; `None` for a keyless record.
    pub(super) key_hash: Option<u32>,
}

/// A batch after it left the accumulator: it keeps its sequence for every retry.
#[derive(Clone, Debug)]
pub(super) struct ProducerBatch {
    /// Its records' payloads, in order (formed once: sending and acknowledging clone them).
    pub(super) values: Values,
    /// Creation time of its first record (Java `ProducerBatch.createdMs`).
    pub(super) created: Ms,
    /// Creation time of its last record: the batch's max timestamp (`CreateTime`).
    pub(super) last_created: Ms,
    pub(super) producer_id: i64,
    pub(super) base_sequence: i32,
    pub(super) acks: Acks,
    /// Retries done so far (Java `ProducerBatch.attempts` after re-enqueueing).
    pub(super) retries_done: u32,
    /// Error of the latest failed attempt.
    pub(super) last_error: Option<ErrorCode>,
    /// Its producer id and sequence were re-stamped by an epoch bump after it was first sent
    /// (Java `ProducerBatch.sequenceHasBeenReset`, set by `resetProducerState`): an
    /// `OUT_OF_ORDER_SEQUENCE_NUMBER` for an attempt sent under the old stamp is retried
    /// without another bump.
    pub(super) sequence_reset: bool,
    /// When each of its records was handed to the producer (for the produce latency).
    pub(super) sent_at: SendTimes,
}

/// What the producer knows and holds for one partition.
#[derive(Clone, Debug)]
pub(super) struct PartitionQueue {
    pub(super) tp: TopicPartition,
    pub(super) leader: Option<BrokerId>,
    pub(super) leader_epoch: Epoch,
    /// When the leader epoch last increased (KIP-951: a retry then skips its backoff).
    pub(super) epoch_changed_at: Ms,
    pub(super) waiting: VecDeque<PendingRecord>,
    /// Batches re-enqueued after a failed attempt; they stand ahead of `waiting` in the
    /// partition's deque, and only the first one is looked at when draining.
    pub(super) retries: VecDeque<Retry>,
    /// Batches sent and not answered, oldest first.
    pub(super) in_flight: Vec<InFlight>,
    /// Next sequence for the current producer id.
    pub(super) next_sequence: i32,
    /// The current error run: one error code, its errors and failed records so far.
    pub(super) run: Option<ErrorRun>,
    /// Errors since the last success, per error code (the runs since then, added up).
    pub(super) since_ok: BTreeMap<ErrorCode, u64>,
    /// Where [`Holding`] lists the partition: `None` when it is not listed, `Some(leader)`
    /// when it is, under that leader (or with no leader).
    pub(super) listed: Option<Option<BrokerId>>,
}

impl PartitionQueue {
    pub(super) fn new(tp: TopicPartition) -> Self {
        Self {
            tp,
            leader: None,
            leader_epoch: -1,
            epoch_changed_at: 0,
            waiting: VecDeque::new(),
            retries: VecDeque::new(),
            in_flight: Vec::new(),
            next_sequence: 0,
            run: None,
            since_ok: BTreeMap::new(),
            listed: None,
        }
    }

    /// Whether the partition holds a record or a batch: waiting, re-enqueued or in flight.
    pub(super) fn holds(&self) -> bool {
        !self.waiting.is_empty() || !self.retries.is_empty() || !self.in_flight.is_empty()
    }

    pub(super) fn pending(&self) -> u64 {
        self.waiting.len() as u64 + self.batches().map(|b| b.values.len() as u64).sum::<u64>()
    }

    /// Every batch of the partition that left the accumulator once: re-enqueued or in flight.
    pub(super) fn batches(&self) -> impl Iterator<Item = &ProducerBatch> {
        self.retries.iter().map(|r| &r.batch).chain(self.in_flight.iter().map(|f| &f.batch))
    }

    /// The lowest sequence of an idempotent batch of `producer_id` not completed yet (Java
    /// `TransactionManager.firstInFlightSequence`: batches stay "in flight" there until they
    /// complete, re-enqueued ones included).
    pub(super) fn first_pending_sequence(&self, producer_id: i64) -> Option<i32> {
        self.batches()
            .filter(|b| b.producer_id == producer_id && b.base_sequence >= 0)
            .map(|b| b.base_sequence)
            .min()
    }
}

/// The partitions that hold a record or a batch (waiting, re-enqueued or in flight), per
/// leader: the sender's work follows them, not every partition of the topic. Kafka's
/// `RecordAccumulator.ready` only looks at partitions with a deque of batches, and
/// `RecordAccumulator.drain` fills one request per node from that node's partitions; a
/// partition that holds nothing can neither be ready, expire, time out nor be drained. Kept up
/// to date by [`ProducerClient::relist`] wherever a partition's queues or leader change.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Holding {
    /// Every partition that holds something, in partition order.
    pub(super) all: BTreeSet<usize>,
    /// Those of them with a known leader, per leader, in partition order.
    pub(super) by_leader: BTreeMap<BrokerId, BTreeSet<usize>>,
}

impl Holding {
    /// Lists partition `i` as `to` (see [`PartitionQueue::listed`]), given it was listed as
    /// `from`.
    pub(super) fn move_to(&mut self, i: usize, from: Option<Option<BrokerId>>, to: Option<Option<BrokerId>>) {
        if let Some(Some(l)) = from
            && let Some(set) = self.by_leader.get_mut(&l)
        {
            set.remove(&i);
            if set.is_empty() {
                self.by_leader.remove(&l);
            }
        }
        match to {
            None => {
                self.all.remove(&i);
            }
            Some(leader) => {
                self.all.insert(i);
                if let Some(l) = leader {
                    self.by_leader.entry(l).or_default().insert(i);
                }
            }
        }
    }

    /// The partitions that hold something, copied (for passes that change them).
    pub(super) fn snapshot(&self) -> Vec<usize> {
        self.all.iter().copied().collect()
    }
}

impl ProducerClient {
    pub(super) fn max_batch_records(&self) -> usize {
        self.config.records_per_batch()
    }

    /// Puts `record` in the queue of the partition the partitioner picks, or with the records
    /// waiting for metadata while the partition count is unknown.
    pub(super) fn append(&mut self, record: PendingRecord) {
        if self.partitions.is_empty() {
            self.unassigned.push_back(record);
            return;
        }
        let queues = Accumulated {
            parts: &self.partitions,
            with_leader: &self.with_leader,
            holding: &self.holding.all,
            per_batch: self.config.records_per_batch(),
        };
        let i = self.partitioner.choose(&self.config, record.key_hash, &queues);
        self.partitions[i].waiting.push_back(record);
        self.relist(i);
    }

    /// Brings partition `i`'s entry in [`Holding`] up to date with its queues and leader.
    /// Called after every change to either.
    pub(super) fn relist(&mut self, i: usize) {
        let p = &mut self.partitions[i];
        let to = p.holds().then_some(p.leader);
        if to != p.listed {
            self.holding.move_to(i, p.listed, to);
            p.listed = to;
        }
    }

    /// When partition `i`'s accumulated records form a ready batch (`RecordAccumulator.ready`):
    /// no re-enqueued batch stands before them, the leader is known, and the batch is full or
    /// lingered.
    pub(super) fn batch_ready_at(&self, i: usize) -> Option<Ms> {
        let p = &self.partitions[i];
        if !p.retries.is_empty() || p.leader.is_none() {
            return None;
        }
        let first = p.waiting.front()?;
        if p.waiting.len() >= self.max_batch_records() {
            Some(first.created)
        } else {
            Some(first.created + self.config.linger_ms)
        }
    }

    /// Takes the next batch out of partition `i`'s queue; idempotent batches get the producer
    /// id and the partition's next sequence here, once (Java assigns it at drain time).
    pub(super) fn form_batch(&mut self, i: usize) -> ProducerBatch {
        let take = self.partitions[i].waiting.len().min(self.max_batch_records());
        let idempotent = self.config.idempotence_in_effect();
        let producer_id = self.producer_id();
        let acks = self.config.acks;
        let p = &mut self.partitions[i];
        let records = p.waiting.range(..take);
        // Callers form a batch only from waiting records.
        let created = records.clone().next().map_or(0, |r| r.created);
        let last_created = records.clone().next_back().map_or(created, |r| r.created);
        let sent_at = SendTimes::from_times(records.clone().map(|r| r.created));
        let values = values_of(records);
        p.waiting.drain(..take);
        let (producer_id, base_sequence) = if idempotent {
            let seq = p.next_sequence;
            p.next_sequence = increment_sequence(seq, take);
            (producer_id, seq)
        } else {
            (-1, -1)
        };
        ProducerBatch {
            created,
            last_created,
            sent_at,
            values,
            producer_id,
            base_sequence,
            acks,
            retries_done: 0,
            last_error: None,
            sequence_reset: false,
        }
    }

    /// Fails every batch whose delivery timeout passed, whole (Java
    /// `RecordAccumulator.expiredBatches` and `Sender.getExpiredInflightBatches`): a batch
    /// expires `delivery.timeout.ms` after its first record was created, with every record in
    /// it. Waiting records form batches of up to `batch.size` from the front of the queue, as
    /// Java's deque of batches does. Each expired batch counts one `TIMEOUT` error and its
    /// records as `failed`. A late response to an expired request is ignored.
    pub(super) fn expire(&mut self, now: Ms, out: &mut Outbox) {
        self.expire_unassigned(now);
        let dt = self.config.delivery_timeout_ms;
        let max = self.max_batch_records();
        let current = self.producer_id();
        let mut bump = false;
        // Most passes expire nothing: they look without copying the index.
        let expiring = |p: &PartitionQueue| {
            p.waiting.front().is_some_and(|r| r.created + dt <= now)
                || p.batches().any(|b| b.created + dt <= now)
        };
        if !self.holding.all.iter().any(|&i| expiring(&self.partitions[i])) {
            return;
        }
        // Only a partition that holds something can expire; in partition order, as the events go.
        for i in self.holding.snapshot() {
            let p = &mut self.partitions[i];
            let mut expired: Vec<(u64, Ms, String)> = Vec::new();
            // Split only where something expired: this runs for every partition that holds
            // something, on every tick.
            let (gone, kept): (Vec<InFlight>, Vec<InFlight>) =
                match p.in_flight.iter().any(|f| f.batch.created + dt <= now) {
                    true => {
                        mem::take(&mut p.in_flight).into_iter().partition(|f| f.batch.created + dt <= now)
                    }
                    false => (Vec::new(), mem::take(&mut p.in_flight)),
                };
            p.in_flight = kept;
            for f in gone {
                bump |= f.batch.producer_id >= 0 && f.batch.producer_id == current;
                let why = format!("; the request to broker {} is still unanswered", f.leader);
                expired.push((f.batch.values.len() as u64, f.batch.created, why));
            }
            let (gone, kept): (VecDeque<Retry>, VecDeque<Retry>) =
                match p.retries.iter().any(|r| r.batch.created + dt <= now) {
                    true => mem::take(&mut p.retries).into_iter().partition(|r| r.batch.created + dt <= now),
                    false => (VecDeque::new(), mem::take(&mut p.retries)),
                };
            p.retries = kept;
            for r in gone {
                bump |= r.batch.producer_id >= 0 && r.batch.producer_id == current;
                let why = r
                    .batch
                    .last_error
                    .map_or(String::new(), |e| format!("; the last attempt failed with {e}"));
                expired.push((r.batch.values.len() as u64, r.batch.created, why));
            }
            while let Some(first) = p.waiting.front()
                && first.created + dt <= now
            {
                let created = first.created;
                let n = p.waiting.len().min(max);
                p.waiting.drain(..n);
                let why = match p.leader {
                    None => "; the partition has no leader".to_string(),
                    Some(l) if !self.conns.is_ready(l) => {
                        format!("; its leader, broker {l}, cannot be reached")
                    }
                    Some(_) => String::new(),
                };
                expired.push((n as u64, created, why));
            }
            self.relist(i);
            for (n, created, why) in expired {
                let tp = &self.partitions[i].tp;
                let detail = format!(
                    "Expiring {n} record(s) for {tp}: {} ms has passed since batch creation (delivery.timeout.ms={dt}){why}",
                    now - created
                );
                self.failed += n;
                self.note_error(now, i, ErrorCode::DeliveryTimeout, detail, n, out);
            }
        }
        if bump {
            self.bump_producer_id();
        }
    }

    /// Fails the records that waited for the topic's metadata longer than
    /// `delivery.timeout.ms` (one `TIMEOUT` error per call that fails any; no partition, so
    /// no event).
    pub(super) fn expire_unassigned(&mut self, now: Ms) {
        let dt = self.config.delivery_timeout_ms;
        let mut lost = 0u64;
        while self.unassigned.front().is_some_and(|r| r.created + dt <= now) {
            self.unassigned.pop_front();
            lost += 1;
        }
        if lost > 0 {
            self.failed += lost;
            *self.errors.entry(ErrorCode::DeliveryTimeout.name().to_string()).or_insert(0) += 1;
            self.last_error = Some((
                now,
                format!(
                    "TIMEOUT: {lost} record(s) for {} expired: no metadata for the topic within delivery.timeout.ms={dt}",
                    self.topic
                ),
            ));
        }
    }
}

/// The producer's partition queues as the partitioner reads them; waiting records form
/// batches of `per_batch` from the front, as [`ProducerClient::form_batch`] takes them.
pub(super) struct Accumulated<'a> {
    pub(super) parts: &'a [PartitionQueue],
    pub(super) with_leader: &'a Arc<[usize]>,
    pub(super) holding: &'a BTreeSet<usize>,
    pub(super) per_batch: usize,
}

impl Queues for Accumulated<'_> {
    fn count(&self) -> usize {
        self.parts.len()
    }

    fn leader(&self, i: usize) -> Option<BrokerId> {
        self.parts[i].leader
    }

    fn waiting(&self, i: usize) -> usize {
        self.parts[i].waiting.len()
    }

    fn queued_batches(&self, i: usize) -> usize {
        self.parts[i].retries.len() + self.parts[i].waiting.len().div_ceil(self.per_batch.max(1))
    }

    fn with_leader(&self) -> Option<&Arc<[usize]>> {
        Some(self.with_leader)
    }

    fn holding(&self) -> Vec<usize> {
        self.holding.iter().copied().collect()
    }
}

/// The payloads of `records` as [`Values::from_slice`] gives them, without copying them out
/// when they form a run (as a producer's batch almost always does).
pub(super) fn values_of<'a>(records: impl Iterator<Item = &'a PendingRecord> + Clone) -> Values {
    let mut values = records.clone().map(|r| r.value);
    let run = match (values.next(), values.next()) {
        (Some(first), None) => Some((first, 1, 1)),
        (Some(first), Some(second)) => {
            let stride = second.checked_sub(first).and_then(|s| u32::try_from(s).ok()).filter(|&s| s > 0);
            stride.and_then(|stride| {
                let mut count = 2u32;
                let mut prev = second;
                for v in values {
                    if prev.checked_add(u64::from(stride)) != Some(v) {
                        return None;
                    }
                    prev = v;
                    count = count.checked_add(1)?;
                }
                Some((first, stride, count))
            })
        }
        _ => None,
    };
    match run {
        Some((first, stride, count)) => Values::Run { first, stride, count },
        None => Values::from_slice(&records.map(|r| r.value).collect::<Vec<u64>>()),
    }
}
