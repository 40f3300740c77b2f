//! The producer's `Sender` with the parts of `NetworkClient` it leans on: which batches are
//! drained for which leader (`Sender.sendProducerData`, `RecordAccumulator.drain`), the
//! in-flight requests (`InFlightRequests`, `max.in.flight.requests.per.connection`), answers,
//! retries with backoff (`Sender.canRetry`, `RecordAccumulator.reenqueue`, KIP-951), client-side
//! request timeouts and lost connections (`NetworkClient.handleTimedOutRequests`,
//! `NetworkClient.processDisconnection`).

use super::accumulator::{Accumulated, ProducerBatch};
use super::failures::explain;
use super::{CLIENT_TIMEOUT_MARGIN_MS, ProducerClient};
use crate::kafka::errors::ErrorCode;
use crate::sim::backoff::exponential_backoff;
use crate::sim::connections::ConnectionState;
use crate::sim::protocol::{Batch, Message, NodeId, ProduceRequest, ProduceResponse};
use crate::sim::{AckedRecords, Acks, BrokerId, Epoch, Ms, Outbox};
use std::collections::BTreeSet;

/// A batch sent and not answered yet.
#[derive(Clone, Debug)]
pub(super) struct InFlight {
    pub(super) correlation_id: u64,
    /// The request it went out in: the batches drained for one broker at one instant form one
    /// request, which counts once against `max.in.flight.requests.per.connection`.
    pub(super) request: u64,
    pub(super) leader: BrokerId,
    /// Leader epoch the producer believed in when it sent the request.
    pub(super) sent_epoch: Epoch,
    /// Client-side request timeout.
    pub(super) timeout_at: Ms,
    pub(super) batch: ProducerBatch,
}

/// A batch back in the accumulator after a failed attempt (Java `RecordAccumulator.reenqueue`),
/// waiting for its retry backoff.
#[derive(Clone, Debug)]
pub(super) struct Retry {
    pub(super) retry_at: Ms,
    /// Leader epoch of the failed attempt (KIP-951: a newer one ends the backoff).
    pub(super) sent_epoch: Epoch,
    pub(super) batch: ProducerBatch,
}

/// Requests not answered yet per broker ([`ProducerClient::in_flight_requests`]), sorted by
/// broker.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct RequestCounts(Vec<(BrokerId, usize)>);

impl RequestCounts {
    /// The counts of `requests`, (leader, request id) pairs in any order, a request listed
    /// once per partition it spans: sorted and deduplicated, then counted in runs.
    pub(super) fn of_pairs(mut requests: Vec<(BrokerId, u64)>) -> Self {
        requests.sort_unstable();
        requests.dedup();
        let mut counts: Vec<(BrokerId, usize)> = Vec::new();
        for (broker, _) in requests {
            match counts.last_mut() {
                Some((b, n)) if *b == broker => *n += 1,
                _ => counts.push((broker, 1)),
            }
        }
        RequestCounts(counts)
    }

    /// How many requests to `broker` await an answer.
    pub(super) fn of(&self, broker: BrokerId) -> usize {
        self.0.binary_search_by_key(&broker, |&(b, _)| b).map_or(0, |k| self.0[k].1)
    }
}

impl ProducerClient {
    pub(super) fn run(&mut self, now: Ms, out: &mut Outbox) {
        // Records owed from earlier instants first: they met the metadata of their time.
        self.generate_before(now);
        self.refresh_if_due(now);
        self.generate(now);
        self.request_topic_metadata(now, out);
        self.expire(now, out);
        self.time_out_requests(now, out);
        for broker in self.conns.timed_out_attempts(now) {
            self.conns.disconnected(broker, now, true, &self.config, &mut self.rng);
            self.refresh_wanted = true;
        }
        // A disconnect above asks for metadata, which the sends below should already use.
        self.refresh_if_due(now);
        // `Sender.runOnce`: a requested epoch bump happens before anything is sent.
        self.bump_epoch_if_needed();
        self.drain(now, out);
    }

    /// Sends what is ready, as Java's `Sender.sendProducerData` loop does: every leader that is
    /// connected and has fewer than `max.in.flight.requests.per.connection` requests unanswered
    /// (`NetworkClient.ready`, `InFlightRequests.canSendMore`) gets one request holding the
    /// first drainable batch of each of its partitions (`RecordAccumulator.drainBatchesForOneNode`);
    /// this repeats while requests go out.
    pub(super) fn drain(&mut self, now: Ms, out: &mut Outbox) {
        self.update_partitioner(now);
        loop {
            // Counted once per round, as `NetworkClient.ready` checks a node once before
            // `drainBatchesForOneNode` fills its request.
            let requests = self.in_flight_requests();
            let mut sent = false;
            for (broker, drained) in self.drain_plan(now, &requests) {
                if !self.broker_ready(now, broker, out) {
                    continue;
                }
                let request = self.next_request;
                self.next_request += 1;
                for i in drained {
                    let batch = self.take_batch(i);
                    self.send_batch(now, i, batch, request, out);
                    self.relist(i);
                    sent = true;
                }
            }
            if !sent {
                return;
            }
        }
    }

    /// What one round of [`Self::drain`] sends: each leader with a drainable partition, in
    /// broker order, with its drainable partitions in partition order. Sending to one leader
    /// changes only its own partitions, so the plan made up front is what checking each leader
    /// in turn would find.
    pub(super) fn drain_plan(&self, now: Ms, requests: &RequestCounts) -> Vec<(BrokerId, Vec<usize>)> {
        self.holding
            .by_leader
            .iter()
            .map(|(&broker, parts)| {
                (
                    broker,
                    parts.iter().copied().filter(|&i| self.drainable(now, i, requests)).collect::<Vec<_>>(),
                )
            })
            .filter(|(_, drained)| !drained.is_empty())
            .collect()
    }

    /// What the sender's `RecordAccumulator.ready` pass tells the partitioner
    /// (`partitionReady`, then `Sender.sendProducerData`'s `updateNodeLatencyStats`): the
    /// queue sizes for adaptive partitioning, and, when `partitioner.availability.timeout.ms`
    /// is set, which leaders had batches ready and whether they could take them (connected,
    /// under `max.in.flight.requests.per.connection`).
    pub(super) fn update_partitioner(&mut self, now: Ms) {
        let queues = Accumulated {
            parts: &self.partitions,
            with_leader: &self.with_leader,
            holding: &self.holding.all,
            per_batch: self.config.records_per_batch(),
        };
        self.partitioner.update_load(&self.config, &queues);
        if self.config.partitioner_availability_timeout_ms == 0 {
            return;
        }
        let requests = self.in_flight_requests();
        let max = self.config.max_in_flight.max(1) as usize;
        let ready: BTreeSet<BrokerId> = (self.holding.all.iter().copied())
            .filter(|&i| {
                let p = &self.partitions[i];
                let muted = self.config.max_in_flight <= 1 && !p.in_flight.is_empty();
                let at = if p.retries.is_empty() { self.batch_ready_at(i) } else { self.retry_ready_at(i) };
                !muted && at.is_some_and(|t| t <= now)
            })
            .filter_map(|i| self.partitions[i].leader)
            .collect();
        for leader in ready {
            let can_drain = self.conns.is_ready(leader) && requests.of(leader) < max;
            self.partitioner.note_leader(&self.config, leader, now, can_drain);
        }
    }

    /// Load stats a pass left out of date ([`super::partitioner::Partitioner::defer_load`]),
    /// computed from the queues as they stand.
    pub(super) fn settle_partitioner(&mut self) {
        let queues = Accumulated {
            parts: &self.partitions,
            with_leader: &self.with_leader,
            holding: &self.holding.all,
            per_batch: self.config.records_per_batch(),
        };
        self.partitioner.settle_load(&self.config, &queues);
    }

    /// Whether partition `i` has a batch to send at `now` and nothing holds it back.
    pub(super) fn drainable(&self, now: Ms, i: usize, requests: &RequestCounts) -> bool {
        if self.held_back(i, requests) {
            return false;
        }
        let ready = if self.partitions[i].retries.is_empty() {
            self.batch_ready_at(i)
        } else {
            self.retry_ready_at(i)
        };
        ready.is_some_and(|t| t <= now)
    }

    /// Whether partition `i` must wait for an answer before sending more, whatever its data:
    /// - its leader already has `max.in.flight.requests.per.connection` requests unanswered;
    /// - with `max.in.flight.requests.per.connection` = 1, the partition is muted while one of
    ///   its batches is in flight (`Sender.guaranteeMessageOrder`, `RecordAccumulator.mutePartition`);
    /// - idempotent ordering (`RecordAccumulator.shouldStopDrainBatchesForPartition`): a
    ///   re-enqueued batch goes only when it holds the partition's first sequence not yet
    ///   completed, so retries go one at a time and in sequence order; and no new batch goes
    ///   while batches of an older producer id are unanswered, lest sequence 0 of the new id
    ///   overtake them.
    ///
    /// `requests` is [`Self::in_flight_requests`].
    pub(super) fn held_back(&self, i: usize, requests: &RequestCounts) -> bool {
        let p = &self.partitions[i];
        let Some(leader) = p.leader else { return true };
        if requests.of(leader) >= self.config.max_in_flight.max(1) as usize {
            return true;
        }
        if self.config.max_in_flight <= 1 && !p.in_flight.is_empty() {
            return true;
        }
        match p.retries.front() {
            Some(r) if r.batch.base_sequence >= 0 => {
                p.first_pending_sequence(r.batch.producer_id) != Some(r.batch.base_sequence)
                    || p.in_flight.iter().any(|f| f.batch.producer_id == r.batch.producer_id)
            }
            Some(_) => false,
            None => {
                let current = self.producer_id();
                self.config.idempotence_in_effect()
                    && p.batches().any(|b| b.producer_id >= 0 && b.producer_id != current)
            }
        }
    }

    /// Requests not answered yet, per broker (Java `InFlightRequests.count(node)`), counted
    /// in one pass over what is in flight (per partition it would cost partitions²).
    pub(super) fn in_flight_requests(&self) -> RequestCounts {
        // A Vec, not ordered sets: this runs on every tick (`next_deadline`), and a producer
        // has few requests in flight.
        let requests = (self.holding.all.iter())
            .flat_map(|&i| &self.partitions[i].in_flight)
            .map(|f| (f.leader, f.request))
            .collect();
        RequestCounts::of_pairs(requests)
    }

    /// The next batch of partition `i` (callers checked [`Self::drainable`]): its first
    /// re-enqueued batch, else a new one from its waiting records.
    pub(super) fn take_batch(&mut self, i: usize) -> ProducerBatch {
        match self.partitions[i].retries.pop_front() {
            Some(r) => r.batch,
            None => self.form_batch(i),
        }
    }

    /// Whether `broker` can take a request now (Java `NetworkClient.ready`): the connection to
    /// it is ready. If not, and its reconnect backoff has passed, a connection attempt starts
    /// (the handshake goes out now).
    pub(super) fn broker_ready(&mut self, now: Ms, leader: BrokerId, out: &mut Outbox) -> bool {
        self.conns.ready_or_connect(leader, now, &self.config, &mut self.rng, out)
    }

    /// When data of partition `i` that is ready at `ready` can actually go: then if its leader
    /// is connected, not before the reconnect backoff ends if it is not (Java
    /// `ClusterConnectionStates.connectionDelay`), and with no timer while a connection attempt
    /// is under way (its answer or its setup timeout wakes the producer).
    pub(super) fn sendable_at(&self, i: usize, ready: Option<Ms>) -> Option<Ms> {
        let ready = ready?;
        self.conns.sendable_at(self.partitions[i].leader?, ready)
    }

    /// When partition `i`'s first re-enqueued batch may be re-sent: after its backoff, or as
    /// soon as a newer leader epoch is known (KIP-951); never while the partition has no leader.
    pub(super) fn retry_ready_at(&self, i: usize) -> Option<Ms> {
        let p = &self.partitions[i];
        let r = p.retries.front()?;
        p.leader?;
        if p.leader_epoch > r.sent_epoch {
            Some(r.retry_at.min(p.epoch_changed_at))
        } else {
            Some(r.retry_at)
        }
    }

    /// Sends `batch` to partition `i`'s leader (callers check there is one) as part of request
    /// `request`. acks=0 batches are done right away, sent without acknowledgement (R5.2);
    /// others stay in flight until answered.
    pub(super) fn send_batch(
        &mut self,
        now: Ms,
        i: usize,
        mut batch: ProducerBatch,
        request: u64,
        out: &mut Outbox,
    ) {
        batch.acks = self.config.acks;
        let p = &self.partitions[i];
        let Some(leader) = p.leader else {
            // Defensive: keep the batch until a leader is known.
            let retry = Retry { retry_at: now, sent_epoch: p.leader_epoch, batch };
            self.partitions[i].retries.push_front(retry);
            self.relist(i);
            return;
        };
        let correlation_id = self.next_correlation_id;
        self.next_correlation_id += 1;
        let message = ProduceRequest {
            correlation_id,
            producer: self.index,
            tp: p.tp.clone(),
            acks: batch.acks,
            timeout_ms: self.config.request_timeout_ms,
            batch: Batch {
                producer_id: batch.producer_id,
                base_sequence: batch.base_sequence,
                values: batch.values.clone(),
                record_size: self.config.record_size,
                max_timestamp: batch.last_created,
            },
        };
        out.send(NodeId::Broker(leader), Message::Produce(message));
        if batch.acks == Acks::Zero {
            // Done for the producer, yet never acknowledged: no answer, no latency to measure.
            self.unacked += batch.values.len() as u64;
            self.mark_success(i, out);
        } else {
            let sent_epoch = p.leader_epoch;
            let timeout_at = now + self.config.request_timeout_ms + CLIENT_TIMEOUT_MARGIN_MS;
            let sent = InFlight { correlation_id, request, leader, sent_epoch, timeout_at, batch };
            self.partitions[i].in_flight.push(sent);
        }
    }

    /// The partition with the batch in flight under `correlation_id`.
    pub(super) fn find_in_flight(&self, correlation_id: u64) -> Option<usize> {
        (self.holding.all.iter().copied())
            .find(|&i| self.partitions[i].in_flight.iter().any(|f| f.correlation_id == correlation_id))
    }

    /// Takes partition `i`'s batch in flight under `correlation_id` out of the in-flight list.
    pub(super) fn take_in_flight(&mut self, i: usize, correlation_id: u64) -> Option<InFlight> {
        let p = &mut self.partitions[i];
        let k = p.in_flight.iter().position(|f| f.correlation_id == correlation_id)?;
        let taken = p.in_flight.remove(k);
        self.relist(i);
        Some(taken)
    }

    pub(super) fn on_response(&mut self, now: Ms, resp: ProduceResponse, out: &mut Outbox) {
        let Some(i) = self.find_in_flight(resp.correlation_id) else { return };
        if self.partitions[i].tp != resp.tp {
            return;
        }
        match resp.result {
            Ok((base_offset, leader_epoch)) => {
                let Some(InFlight { batch, leader, .. }) = self.take_in_flight(i, resp.correlation_id) else {
                    return;
                };
                self.acked += batch.values.len() as u64;
                self.latency.record(now, &batch.sent_at);
                out.acked.push(AckedRecords {
                    tp: resp.tp,
                    base_offset,
                    leader_epoch,
                    leader,
                    retried: batch.retries_done > 0,
                    values: batch.values.clone(),
                    acks: batch.acks,
                });
                self.mark_success(i, out);
            }
            Err(error) => {
                let detail = if resp.error_message.is_empty() {
                    explain(error).to_string()
                } else {
                    resp.error_message
                };
                self.fail_in_flight(now, i, resp.correlation_id, error, detail, out);
            }
        }
    }

    /// An attempt of partition `i`'s batch in flight under `correlation_id` failed with
    /// `error`: count it, report the partition as failing if it was fine, then retry after
    /// backoff (retriable error, retries left, delivery timeout not reached: Java
    /// `Sender.canRetry`) or fail the batch.
    pub(super) fn fail_in_flight(
        &mut self,
        now: Ms,
        i: usize,
        correlation_id: u64,
        error: ErrorCode,
        detail: String,
        out: &mut Outbox,
    ) {
        let Some(InFlight { mut batch, sent_epoch, .. }) = self.take_in_flight(i, correlation_id) else {
            return;
        };
        // Java's Sender asks for a metadata update on errors that mean "wrong or gone leader".
        self.refresh_wanted |= matches!(
            error,
            ErrorCode::NotLeaderOrFollower
                | ErrorCode::LeaderNotAvailable
                | ErrorCode::UnknownTopicOrPartition
                | ErrorCode::NetworkException
                | ErrorCode::FencedLeaderEpoch
                | ErrorCode::UnknownLeaderEpoch
        );
        batch.last_error = Some(error);
        // Idempotent batches: every OUT_OF_ORDER_SEQUENCE_NUMBER is retriable since KIP-360.
        let sequence_error = error == ErrorCode::OutOfOrderSequenceNumber && batch.base_sequence >= 0;
        let gap = self.sequence_gap(i, &batch, error);
        let can_retry = (error.is_retriable() || sequence_error)
            && batch.retries_done < self.config.retries
            && now < batch.created + self.config.delivery_timeout_ms;
        let given_up = if can_retry { 0 } else { batch.values.len() as u64 };
        self.note_error(now, i, error, detail, given_up, out);
        if gap || (sequence_error && !can_retry) {
            // `canRetry` asks for the bump when the retry is allowed; `handleFailedBatch` when
            // the batch fails for good.
            self.request_epoch_bump(i);
        }
        if can_retry {
            batch.retries_done += 1;
            let retry_at = now + self.retry_backoff(batch.retries_done);
            self.reenqueue(i, Retry { retry_at, sent_epoch, batch });
        } else {
            self.failed += batch.values.len() as u64;
            if !sequence_error && batch.producer_id >= 0 && batch.producer_id == self.producer_id() {
                self.bump_producer_id();
            }
        }
    }

    /// Puts a failed batch back in partition `i`'s deque (Java `RecordAccumulator.reenqueue`):
    /// an idempotent batch in sequence order among the re-enqueued ones
    /// (`insertInSequenceOrder`), any other at the front (`addFirst`), so without idempotence
    /// the latest failure goes first.
    pub(super) fn reenqueue(&mut self, i: usize, retry: Retry) {
        let retries = &mut self.partitions[i].retries;
        if retry.batch.base_sequence >= 0 {
            let at = retries
                .iter()
                .position(|r| {
                    r.batch.producer_id == retry.batch.producer_id
                        && r.batch.base_sequence > retry.batch.base_sequence
                })
                .unwrap_or(retries.len());
            retries.insert(at, retry);
        } else {
            retries.push_front(retry);
        }
        self.relist(i);
    }

    /// Backoff before retry number `retry` (1-based): `retry.backoff.ms · 2^(retry-1)` capped
    /// at `retry.backoff.max.ms`, with jitter (Java `ExponentialBackoff`). A max below the
    /// base means a constant base backoff.
    pub(super) fn retry_backoff(&mut self, retry: u32) -> Ms {
        let base = self.config.retry_backoff_ms;
        let max = self.config.retry_backoff_max_ms.max(base);
        exponential_backoff(&mut self.rng, base, max, retry.saturating_sub(1))
    }

    /// Client-side request timeouts (Java `NetworkClient.handleTimedOutRequests`): a broker
    /// with a request unanswered after `request.timeout.ms` plus [`CLIENT_TIMEOUT_MARGIN_MS`]
    /// is disconnected, and every request in flight to it fails with `REQUEST_TIMED_OUT`.
    pub(super) fn time_out_requests(&mut self, now: Ms, out: &mut Outbox) {
        let brokers: BTreeSet<BrokerId> = (self.holding.all.iter())
            .flat_map(|&i| &self.partitions[i].in_flight)
            .filter(|f| f.timeout_at <= now)
            .map(|f| f.leader)
            .collect();
        for broker in brokers {
            let detail = format!(
                "Disconnected from node {broker} due to timeout: a request got no answer within request.timeout.ms={} (plus isrlab's {CLIENT_TIMEOUT_MARGIN_MS} ms margin), so the client closed the connection",
                self.config.request_timeout_ms
            );
            self.close_connection(now, broker, ErrorCode::RequestTimedOut, &detail, out);
        }
    }

    /// A connection to `broker` was refused or lost (`correlation_id` 0), or a request on it
    /// was (Java `NetworkClient.processDisconnection`).
    pub(super) fn on_disconnected(
        &mut self,
        now: Ms,
        broker: BrokerId,
        correlation_id: u64,
        out: &mut Outbox,
    ) {
        let detail =
            format!("Disconnected from node {broker}: the connection was lost (its process is down)");
        if self.conns.state(broker) == ConnectionState::Connecting {
            // Connection refused: nothing was in flight on it.
            self.conns.disconnected(broker, now, false, &self.config, &mut self.rng);
            self.refresh_wanted = true;
        } else if self.conns.is_ready(broker) {
            self.close_connection(now, broker, ErrorCode::NetworkException, &detail, out);
        } else if let Some(i) = self.find_in_flight(correlation_id) {
            self.fail_in_flight(now, i, correlation_id, ErrorCode::NetworkException, detail, out);
        }
    }

    /// Marks the connection to `broker` lost, fails every request in flight on it with `error`
    /// and asks for a metadata update (`DefaultMetadataUpdater.handleServerDisconnect`).
    pub(super) fn close_connection(
        &mut self,
        now: Ms,
        broker: BrokerId,
        error: ErrorCode,
        detail: &str,
        out: &mut Outbox,
    ) {
        self.conns.disconnected(broker, now, false, &self.config, &mut self.rng);
        self.refresh_wanted = true;
        // Oldest request first, as `NetworkClient.processDisconnection` completes them.
        let mut lost: Vec<(u64, usize)> = Vec::new();
        for &i in &self.holding.all {
            let in_flight = &self.partitions[i].in_flight;
            lost.extend(in_flight.iter().filter(|f| f.leader == broker).map(|f| (f.correlation_id, i)));
        }
        lost.sort_unstable();
        for (correlation_id, i) in lost {
            self.fail_in_flight(now, i, correlation_id, error, detail.to_string(), out);
        }
    }
}
