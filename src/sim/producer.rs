//! The sans-IO producer client: what the Java `KafkaProducer` does for one topic, reduced to the
//! parts that matter for replication, loss and duplicates (rule book R5.2, R5.7, R5.8).
//!
//! One [`ProducerClient`] plays the roles of several Java classes:
//! - `BuiltInPartitioner` and `RoundRobinPartitioner` ([`super::partitioner`]): keyed records
//!   by the murmur2 hash of their key, keyless ones to a sticky partition that changes after
//!   `batch.size` bytes, chosen among the partitions with a leader (FC-12) and weighted towards
//!   short queues (KIP-794); or every record to the next partition with `partitioner.class`
//!   set to the round-robin partitioner.
//! - `RecordAccumulator`: per-partition queues of records; a batch is ready when `linger.ms`
//!   has passed since its first record or when it is full (`batch.size` bytes: a 61-byte header
//!   and records of `record.size` bytes each); records expire after `delivery.timeout.ms`
//!   (KIP-91).
//! - `Sender`: sends ready batches to the partition leader, at most
//!   `max.in.flight.requests.per.connection` requests unanswered per broker (a request is the
//!   batches drained for one broker at one instant, one per partition), handles responses,
//!   re-enqueues failed batches (`RecordAccumulator.reenqueue`: at the front, or in sequence
//!   order when idempotent) and retries them with exponential backoff and jitter
//!   (`ExponentialBackoff`), skips the backoff when the leader changed (KIP-951), and times
//!   out unanswered requests. With 1 in flight a partition is muted while its batch is in
//!   flight; without idempotence and more than 1, a retried batch can land after later ones.
//! - `NetworkClient` with `ClusterConnectionStates` ([`ConnectionStates`]): a batch is drained
//!   only for a leader the producer is connected to (`Sender.sendProducerData` drops nodes for
//!   which `NetworkClient.ready` is false). A leader it is not connected to gets a connection
//!   attempt; one that refused or dropped a connection is tried again after the reconnect
//!   backoff (`reconnect.backoff.ms` doubling up to `reconnect.backoff.max.ms`, with jitter).
//!   Meanwhile its batches wait in the accumulator and spend no retries, bounded only by
//!   `delivery.timeout.ms`. When a connection drops, the requests in flight on it fail with
//!   `NETWORK_EXCEPTION` and are retried, and a metadata update is requested
//!   (`NetworkClient.processDisconnection`, `DefaultMetadataUpdater.handleServerDisconnect`).
//! - `TransactionManager` (idempotent part): producer id and per-partition sequence numbers
//!   (R5.8); after a batch with an assigned sequence fails for good, the producer takes a
//!   fresh producer id and restarts sequences at 0, which stands in for the epoch bump of
//!   KIP-360 (our [`Batch`] has no epoch field). An `OUT_OF_ORDER_SEQUENCE_NUMBER` for a
//!   batch behind an unresolved earlier one is retried (`TransactionManager.canRetry`), and
//!   retried batches go one at a time in sequence order, so order survives retries.
//!
//! Simplifications (isrlab's, not Kafka's):
//! - Batches stay in flight under the producer id they were sent with: Kafka re-stamps the
//!   unresolved batches of a partition with the new epoch and sequences from 0 after an
//!   epoch bump (`TransactionManager.startSequencesAtBeginning`); isrlab only holds new
//!   batches back until the old id's batches are resolved.
//! - acks=0 requests are fire-and-forget: the records are done for the producer when sent
//!   (R5.2), counted as sent without acknowledgement (never as acknowledged), they never
//!   occupy the in-flight slot and never get a response.
//! - On the wire each batch is its own message; the batches drained together for one broker
//!   count as one request against `max.in.flight.requests.per.connection`, as Java's one
//!   request per broker would.
//! - `Metadata`: the controller pushes [`Message::Metadata`] to every client; that stands for
//!   what a Metadata request would answer. The producer routes by its own copy and refreshes it
//!   from the latest answer only when Java's `Metadata` would ask for an update: at start, after
//!   an error that invalidates metadata (`NOT_LEADER_OR_FOLLOWER`, a lost connection, ...),
//!   after every refused or lost connection (`DefaultMetadataUpdater.handleServerDisconnect`),
//!   every `retry.backoff.ms` while a partition has no known leader, and every
//!   [`METADATA_MAX_AGE_MS`]. So a producer learns of a leader move the way a real one does:
//!   one `NOT_LEADER_OR_FOLLOWER`, then a refresh (the request's round trip is not modelled).
//!   A requested refresh happens at once; Java's `Metadata.timeToAllowUpdate` may delay it by
//!   a backoff that grows while answers bring nothing new (at most `retry.backoff.max.ms`,
//!   the same bound the reconnect backoff gives here).
//!   Records wait while the topic's metadata is unknown and expire after
//!   `delivery.timeout.ms` (Java's `send()` would block up to `max.block.ms` instead); such
//!   records count as failed under `TIMEOUT` but emit no event, having no partition yet.
//! - A request with no answer after `request.timeout.ms` + [`CLIENT_TIMEOUT_MARGIN_MS`] fails
//!   with `REQUEST_TIMED_OUT`, and the producer closes its connection to that broker, failing
//!   every other request in flight on it the same way (`NetworkClient.handleTimedOutRequests`,
//!   `Sender.handleProduceResponse`). The margin lets the broker's own `REQUEST_TIMED_OUT`
//!   (R5.4 step 5) normally arrive first.
//! - Config changes take effect for new batches, except `acks`, which also applies to a batch
//!   waiting for a retry (as if the application restarted its producer with the new setting and
//!   sent its pending records again): flipping to acks=1 under `NOT_ENOUGH_REPLICAS` lets the
//!   stuck records through at once.

use super::backoff::exponential_backoff;
use super::connections::{ConnectionState, ConnectionStates};
use super::events::{EventKind, ProduceFailure};
use super::partitioner::{self, Partitioner, Queues};
use super::producer_latency::{LatencyRecorder, LatencySummary, SendTimes};
use super::protocol::{Batch, Message, MetadataDelta, NodeId, ProduceRequest, ProduceResponse, Values};
use super::{AckedRecords, Acks, BrokerId, Epoch, Ms, Outbox, TopicPartition};
use crate::config::ProducerConfig;
use crate::kafka::errors::ErrorCode;
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::mem;
use std::sync::Arc;

/// Extra wait (ms) on top of `request.timeout.ms` before the client gives up on an unanswered
/// request, so that the leader's own `REQUEST_TIMED_OUT` answer for a parked acks=all request
/// (R5.4 step 5), which is measured from when the broker received it, normally arrives first.
pub const CLIENT_TIMEOUT_MARGIN_MS: Ms = 1_000;

/// Record values of producer `i` are `i * VALUES_PER_PRODUCER + counter`, so every payload is
/// unique across the run as long as one producer sends fewer than this many records.
pub const VALUES_PER_PRODUCER: u64 = 1_000_000_000;

/// A fresh producer id (taken after an idempotent batch failed for good) is the base producer
/// id plus `generation << PRODUCER_ID_GENERATION_SHIFT`, so ids stay unique across producers
/// as long as base ids are below 2^32.
pub const PRODUCER_ID_GENERATION_SHIFT: u32 = 32;

/// Java's `metadata.max.age.ms` default: metadata is refreshed at least this often (ms).
pub const METADATA_MAX_AGE_MS: Ms = 300_000;

/// Flipped into the producer stream's number to give its partitioner a stream of its own.
const PARTITIONER_STREAM: u64 = 1 << 63;

/// Units of rate credit per record: the generator accumulates micro-records so that
/// fractional rates (0.5 records/s) work with integer arithmetic.
const MICROS_PER_RECORD: u64 = 1_000_000;

/// A record handed to the producer and not yet in a batch.
#[derive(Clone, Copy, Debug)]
struct PendingRecord {
    /// Unique payload.
    value: u64,
    /// Sim time it was handed to the producer (start of its delivery timeout).
    created: Ms,
    /// [`partitioner::key_hash`] of its key; `None` for a keyless record.
    key_hash: Option<u32>,
}

/// A batch after it left the accumulator: it keeps its sequence for every retry.
#[derive(Clone, Debug)]
struct ProducerBatch {
    values: Vec<u64>,
    /// Creation time of its first record (Java `ProducerBatch.createdMs`).
    created: Ms,
    /// Creation time of its last record: the batch's max timestamp (`CreateTime`).
    last_created: Ms,
    producer_id: i64,
    base_sequence: i32,
    acks: Acks,
    /// Retries done so far (Java `ProducerBatch.attempts` after re-enqueueing).
    retries_done: u32,
    /// Error of the latest failed attempt.
    last_error: Option<ErrorCode>,
    /// When each of its records was handed to the producer (for the produce latency).
    sent_at: SendTimes,
}

/// A batch sent and not answered yet.
#[derive(Clone, Debug)]
struct InFlight {
    correlation_id: u64,
    /// The request it went out in: the batches drained for one broker at one instant form one
    /// request, which counts once against `max.in.flight.requests.per.connection`.
    request: u64,
    leader: BrokerId,
    /// Leader epoch the producer believed in when it sent the request.
    sent_epoch: Epoch,
    /// Client-side request timeout.
    timeout_at: Ms,
    batch: ProducerBatch,
}

/// A batch back in the accumulator after a failed attempt (Java `RecordAccumulator.reenqueue`),
/// waiting for its retry backoff.
#[derive(Clone, Debug)]
struct Retry {
    retry_at: Ms,
    /// Leader epoch of the failed attempt (KIP-951: a newer one ends the backoff).
    sent_epoch: Epoch,
    batch: ProducerBatch,
}

/// What the producer knows and holds for one partition.
#[derive(Clone, Debug)]
struct PartitionQueue {
    tp: TopicPartition,
    leader: Option<BrokerId>,
    leader_epoch: Epoch,
    /// When the leader epoch last increased (KIP-951: a retry then skips its backoff).
    epoch_changed_at: Ms,
    waiting: VecDeque<PendingRecord>,
    /// Batches re-enqueued after a failed attempt; they stand ahead of `waiting` in the
    /// partition's deque, and only the first one is looked at when draining.
    retries: VecDeque<Retry>,
    /// Batches sent and not answered, oldest first.
    in_flight: Vec<InFlight>,
    /// Next sequence for the current producer id.
    next_sequence: i32,
    /// The current error run: one error code, its errors and failed records so far.
    run: Option<ErrorRun>,
    /// Errors since the last success, per error code (the runs since then, added up).
    since_ok: BTreeMap<ErrorCode, u64>,
    /// Where [`Holding`] lists the partition: `None` when it is not listed, `Some(leader)`
    /// when it is, under that leader (or with no leader).
    listed: Option<Option<BrokerId>>,
}

impl PartitionQueue {
    fn new(tp: TopicPartition) -> Self {
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
    fn holds(&self) -> bool {
        !self.waiting.is_empty() || !self.retries.is_empty() || !self.in_flight.is_empty()
    }

    fn pending(&self) -> u64 {
        self.waiting.len() as u64 + self.batches().map(|b| b.values.len() as u64).sum::<u64>()
    }

    /// Every batch of the partition that left the accumulator once: re-enqueued or in flight.
    fn batches(&self) -> impl Iterator<Item = &ProducerBatch> {
        self.retries.iter().map(|r| &r.batch).chain(self.in_flight.iter().map(|f| &f.batch))
    }

    /// The lowest sequence of an idempotent batch of `producer_id` not completed yet (Java
    /// `TransactionManager.firstInFlightSequence`: batches stay "in flight" there until they
    /// complete, re-enqueued ones included).
    fn first_pending_sequence(&self, producer_id: i64) -> Option<i32> {
        self.batches()
            .filter(|b| b.producer_id == producer_id && b.base_sequence >= 0)
            .map(|b| b.base_sequence)
            .min()
    }
}

/// Consecutive errors of one code on one partition (what one event line stands for).
#[derive(Clone, Copy, Debug)]
struct ErrorRun {
    error: ErrorCode,
    errors: u64,
    records_failed: u64,
}

/// The partitions that hold a record or a batch (waiting, re-enqueued or in flight), per
/// leader: the sender's work follows them, not every partition of the topic. Kafka's
/// `RecordAccumulator.ready` only looks at partitions with a deque of batches, and
/// `RecordAccumulator.drain` fills one request per node from that node's partitions; a
/// partition that holds nothing can neither be ready, expire, time out nor be drained. Kept up
/// to date by [`ProducerClient::relist`] wherever a partition's queues or leader change.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Holding {
    /// Every partition that holds something, in partition order.
    all: BTreeSet<usize>,
    /// Those of them with a known leader, per leader, in partition order.
    by_leader: BTreeMap<BrokerId, BTreeSet<usize>>,
}

impl Holding {
    /// Lists partition `i` as `to` (see [`PartitionQueue::listed`]), given it was listed as
    /// `from`.
    fn move_to(&mut self, i: usize, from: Option<Option<BrokerId>>, to: Option<Option<BrokerId>>) {
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
    fn snapshot(&self) -> Vec<usize> {
        self.all.iter().copied().collect()
    }
}

/// Adds `n` to a producer sequence, wrapping past `i32::MAX` to 0 as Kafka's
/// `DefaultRecordBatch.incrementSequence` does.
fn increment_sequence(sequence: i32, n: usize) -> i32 {
    ((sequence as i64 + n as i64) % (i32::MAX as i64 + 1)) as i32
}

/// Plain words for a broker error that came without an error message.
fn explain(error: ErrorCode) -> &'static str {
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

/// A simulated Kafka producer client for one topic (Java `KafkaProducer` with its
/// `BuiltInPartitioner`, `RecordAccumulator`, `Sender` and idempotent `TransactionManager`;
/// rule book R5.2, R5.7, R5.8). Sans-IO: the runtime feeds it messages and ticks and sends
/// what it puts in the [`Outbox`].
#[derive(Clone, Debug)]
pub struct ProducerClient {
    index: u32,
    topic: Arc<str>,
    config: ProducerConfig,
    base_producer_id: i64,
    /// How many fresh producer ids were taken (KIP-360 stand-in).
    generation: i64,
    rng: ChaCha8Rng,
    /// Indexed by partition number.
    partitions: Vec<PartitionQueue>,
    /// The partitions that hold something, per leader.
    holding: Holding,
    /// The partitions with a known leader, in partition order: where keyless records may go
    /// (Java's `Cluster.availablePartitionsForTopic`); any partition missing from it makes
    /// metadata refresh sooner.
    with_leader: Arc<[usize]>,
    /// Connection state towards each broker.
    conns: ConnectionStates,
    /// What a Metadata request would answer now: leader and leader epoch per partition.
    latest: BTreeMap<u32, (Option<BrokerId>, Epoch)>,
    /// When the routing copy was last refreshed from `latest` (`None` before any metadata).
    last_refresh: Option<Ms>,
    /// An error asked for a metadata update.
    refresh_wanted: bool,
    /// Records handed over before the topic's metadata was known.
    unassigned: VecDeque<PendingRecord>,
    /// Picks each record's partition (its own seeded stream).
    partitioner: Partitioner,
    /// Records created so far (the counter part of the values).
    next_value: u64,
    /// Sim time up to which the rate generator has run (`None` until first called).
    gen_last: Option<Ms>,
    /// Rate credit in micro-records.
    gen_credit: u64,
    next_correlation_id: u64,
    /// Id of the next request (a drain's batches for one broker).
    next_request: u64,
    sent: u64,
    acked: u64,
    /// Records sent with `acks=0` (written to the socket; no acknowledgement ever comes).
    unacked: u64,
    failed: u64,
    errors: BTreeMap<String, u64>,
    last_error: Option<(Ms, String)>,
    /// Latencies of the records acknowledged lately ([`super::producer_latency`]).
    latency: LatencyRecorder,
}

impl ProducerClient {
    /// Creates a producer for `topic`. `index` is its place in the scenario's producer list (the
    /// [`NodeId::Producer`] it answers to), `producer_id` its idempotent producer id (R5.8; sent
    /// only while idempotence is in effect), `rng` its own seeded stream (used for backoff
    /// jitter; the partitioner draws from a stream derived from it, so neither shifts the
    /// other). The rate generator starts at the first call that passes a sim time.
    pub fn new(
        index: u32,
        topic: Arc<str>,
        config: ProducerConfig,
        producer_id: i64,
        rng: ChaCha8Rng,
    ) -> Self {
        let mut partitioner_rng = rng.clone();
        partitioner_rng.set_stream(rng.get_stream() ^ PARTITIONER_STREAM);
        Self {
            index,
            topic,
            config,
            base_producer_id: producer_id,
            generation: 0,
            rng,
            partitions: Vec::new(),
            holding: Holding::default(),
            with_leader: Arc::from([]),
            conns: ConnectionStates::default(),
            latest: BTreeMap::new(),
            last_refresh: None,
            refresh_wanted: false,
            unassigned: VecDeque::new(),
            partitioner: Partitioner::new(partitioner_rng),
            next_value: 0,
            gen_last: None,
            gen_credit: 0,
            next_correlation_id: 1,
            next_request: 1,
            sent: 0,
            acked: 0,
            unacked: 0,
            failed: 0,
            errors: BTreeMap::new(),
            last_error: None,
            latency: LatencyRecorder::default(),
        }
    }

    /// The producer's index in the scenario's producer list.
    pub fn index(&self) -> u32 {
        self.index
    }

    /// The topic it produces to.
    pub fn topic(&self) -> &Arc<str> {
        &self.topic
    }

    /// Its current configuration.
    pub fn config(&self) -> &ProducerConfig {
        &self.config
    }

    /// The producer id new idempotent batches get: the base id, changed each time a batch with
    /// an assigned sequence failed for good (KIP-360 stand-in, see the module docs).
    pub fn producer_id(&self) -> i64 {
        self.base_producer_id + (self.generation << PRODUCER_ID_GENERATION_SHIFT)
    }

    /// Handles a message from the network:
    /// - `Metadata`: learns leaders, leader epochs and the partition count of its topic (a
    ///   partition with `leader: None` has none); older leader epochs are ignored.
    /// - `ProduceResponse`: completes, retries or fails the in-flight batch it answers.
    /// - `Connected`: the connection to a broker is ready; batches for it may go.
    /// - `Disconnected`: a connection attempt was refused, or the connection was lost; every
    ///   request in flight on it fails with the retriable `NETWORK_EXCEPTION`.
    ///
    /// Unknown or stale correlation ids (e.g. of expired batches) are ignored. Afterwards it
    /// does whatever is due at `now`, like [`Self::on_tick`].
    pub fn handle(&mut self, now: Ms, msg: Message, out: &mut Outbox) {
        match msg {
            Message::Metadata(delta) => self.apply_metadata(now, &delta),
            Message::ProduceResponse(resp) => self.on_response(now, resp, out),
            Message::Connected { peer: NodeId::Broker(b) } => self.conns.ready(b),
            Message::Disconnected { peer: NodeId::Broker(b), correlation_id } => {
                self.on_disconnected(now, b, correlation_id, out)
            }
            other => {
                tracing::error!(t = now, api = other.api_name(), "a producer cannot handle this message")
            }
        }
        self.run(now, out);
    }

    /// Does everything due at `now`: generates records at `rate`, expires records older than
    /// `delivery.timeout.ms`, times out unanswered requests, fires retries whose backoff ended
    /// and sends ready batches. The runtime calls it whenever `now ≥ next_deadline()`.
    pub fn on_tick(&mut self, now: Ms, out: &mut Outbox) {
        self.run(now, out);
    }

    /// The earliest sim time (ms) at which [`Self::on_tick`] has something to do, or `None`
    /// when nothing will happen without an input. It may lie in the past (call it now).
    pub fn next_deadline(&self) -> Option<Ms> {
        let dt = self.config.delivery_timeout_ms;
        let mut next = self.generation_due();
        let mut consider = |t: Option<Ms>| {
            if let Some(t) = t {
                next = Some(next.map_or(t, |n: Ms| n.min(t)));
            }
        };
        consider(self.metadata_refresh_at());
        consider(self.unassigned.front().map(|r| r.created + dt));
        let requests = self.in_flight_requests();
        // A partition that holds nothing has no deadline.
        for &i in &self.holding.all {
            consider(self.partition_deadline(i, &requests));
        }
        consider(self.conns.next_setup_timeout());
        next
    }

    /// Partition `i`'s earliest deadline (ms): its oldest record's or batch's
    /// `delivery.timeout.ms`, its earliest request timeout, and, unless the in-flight limit
    /// holds it back, when a retry or a batch can be sent.
    fn partition_deadline(&self, i: usize, requests: &RequestCounts) -> Option<Ms> {
        let dt = self.config.delivery_timeout_ms;
        let p = &self.partitions[i];
        let sendable = (!self.held_back(i, requests)).then(|| {
            [self.sendable_at(i, self.retry_ready_at(i)), self.sendable_at(i, self.batch_ready_at(i))]
        });
        [
            p.waiting.front().map(|r| r.created + dt),
            p.batches().map(|b| b.created + dt).min(),
            p.in_flight.iter().map(|f| f.timeout_at).min(),
        ]
        .into_iter()
        .chain(sendable.into_iter().flatten())
        .flatten()
        .min()
    }

    /// The `produce T N` command: hands `count` keyless records to the producer at `now`. They
    /// are partitioned at once (or wait for metadata) and sent by the next tick.
    pub fn enqueue(&mut self, now: Ms, count: u64) {
        self.enqueue_with_key(now, count, None);
    }

    /// The `produce T N key=K` command: like [`Self::enqueue`], every record with `key` (its
    /// UTF-8 bytes hashed with murmur2 pick the partition) or none.
    pub fn enqueue_with_key(&mut self, now: Ms, count: u64, key: Option<&str>) {
        self.generate(now);
        self.add_records(now, count, key.map(partitioner::key_hash));
    }

    /// Replaces the configuration at `now`. Records due under the old `rate` are generated
    /// first; acks, idempotence, batch size and the rest apply to batches formed from now on.
    pub fn set_config(&mut self, now: Ms, config: ProducerConfig) {
        self.generate(now);
        self.config = config;
    }

    /// `restart-producer P`: the application dies without `close()` and starts again with the
    /// same config, as a new `KafkaProducer`. What the old instance held is gone: records
    /// not yet sent (`RecordAccumulator`), batches waiting for a retry and requests in flight.
    /// Their callbacks never fire, so they count as `failed`, never as acknowledged: the
    /// audit ledger knows only acknowledged records, and a late answer to an old request finds
    /// no batch here (its correlation id is unknown) and is ignored. A request in flight may
    /// still have been written to the log; nobody was told it is safe.
    ///
    /// The new instance takes `producer_id` (a fresh id from the cluster's allocation: with
    /// no `transactional.id`, `TransactionCoordinator.handleInitProducerId` hands out a new id
    /// from `ProducerIdManager.generateProducerId` with epoch 0), and the `TransactionManager`
    /// starts every partition's sequence at 0. Its rate generator and counters carry on, so
    /// payloads stay unique and the totals cover the run. Simplifications: the connections and
    /// metadata are kept (a real restart reconnects and refetches metadata, which would take a
    /// round trip), and a metadata refresh is asked for.
    pub fn restart(&mut self, now: Ms, producer_id: i64, out: &mut Outbox) {
        self.generate(now);
        let old_id = self.producer_id();
        let mut unsent = mem::take(&mut self.unassigned).len() as u64;
        let mut unanswered = 0u64;
        for p in &mut self.partitions {
            unsent += mem::take(&mut p.waiting).len() as u64;
            unanswered += p.batches().map(|b| b.values.len() as u64).sum::<u64>();
            p.retries.clear();
            p.in_flight.clear();
            p.next_sequence = 0;
            p.run = None;
            p.since_ok.clear();
        }
        for i in self.holding.snapshot() {
            self.relist(i);
        }
        self.failed += unsent + unanswered;
        self.base_producer_id = producer_id;
        self.generation = 0;
        self.refresh_wanted = true;
        out.emit(EventKind::ProducerRestarted {
            producer: self.index,
            old_id,
            new_id: producer_id,
            idempotent: self.config.idempotence_in_effect(),
            unsent,
            unanswered,
        });
    }

    /// The producer's counters for the snapshot.
    pub fn view(&self) -> ProducerView {
        ProducerView {
            index: self.index,
            topic: self.topic.to_string(),
            config: self.config.clone(),
            idempotent: self.config.idempotence_in_effect(),
            sent: self.sent,
            acked: self.acked,
            unacked: self.unacked,
            failed: self.failed,
            pending: self.unassigned.len() as u64
                + self.holding.all.iter().map(|&i| self.partitions[i].pending()).sum::<u64>(),
            errors: self.errors.clone(),
            last_error: self.last_error.clone(),
            unreachable: self.unreachable_leaders(),
            acked_lost: 0,
            unacked_lost: 0,
            reordered: 0,
            latency: None,
        }
    }

    /// p50 and p99 produce latency of the records acknowledged in the last
    /// [`super::producer_latency::RECENT_WINDOW_S`] s up to `now`; `None` when there were none.
    pub fn latency(&self, now: Ms) -> Option<LatencySummary> {
        self.latency.recent(now)
    }

    /// p50 and p99 produce latency of the records acknowledged in sim second `sec`
    /// (ms / 1000), while it is within the recent window.
    pub fn latency_in_second(&self, sec: u64) -> Option<LatencySummary> {
        self.latency.summary(sec, sec)
    }

    /// Leaders of this producer's partitions that it cannot connect to (a broker that no
    /// longer leads any of them is not waited for, whatever its connection state).
    fn unreachable_leaders(&self) -> Vec<BrokerId> {
        let unreachable = self.conns.unreachable();
        if unreachable.is_empty() {
            // Nothing to filter: skips a pass over every partition (a snapshot asks each frame).
            return unreachable;
        }
        let leaders: BTreeSet<BrokerId> = self.partitions.iter().filter_map(|p| p.leader).collect();
        unreachable.into_iter().filter(|b| leaders.contains(b)).collect()
    }

    // ----- accumulator and partitioner -----

    fn max_batch_records(&self) -> usize {
        self.config.records_per_batch()
    }

    /// Rate in micro-records per ms (records/s × 1000).
    fn rate_micros_per_ms(&self) -> u64 {
        (self.config.rate.max(0.0) * 1000.0).round() as u64
    }

    /// When the rate generator owes the next record.
    fn generation_due(&self) -> Option<Ms> {
        let per_ms = self.rate_micros_per_ms();
        if per_ms == 0 {
            return None;
        }
        match self.gen_last {
            None => Some(0),
            Some(last) => Some(last + (MICROS_PER_RECORD - self.gen_credit).div_ceil(per_ms)),
        }
    }

    /// Runs the rate generator up to `now`.
    fn generate(&mut self, now: Ms) {
        let Some(last) = self.gen_last else {
            self.gen_last = Some(now);
            return;
        };
        if now <= last {
            return;
        }
        let credit = self.gen_credit + self.rate_micros_per_ms() * (now - last);
        self.gen_credit = credit % MICROS_PER_RECORD;
        self.gen_last = Some(now);
        self.add_records(now, credit / MICROS_PER_RECORD, None);
    }

    fn add_records(&mut self, now: Ms, count: u64, key_hash: Option<u32>) {
        if let Some(why) = self.config.record_too_large() {
            self.refuse_records(now, count, why);
            return;
        }
        for _ in 0..count {
            let record = PendingRecord {
                value: self.index as u64 * VALUES_PER_PRODUCER + self.next_value,
                created: now,
                key_hash,
            };
            self.next_value += 1;
            self.sent += 1;
            self.append(record);
        }
    }

    /// Puts `record` in the queue of the partition the partitioner picks, or with the records
    /// waiting for metadata while the partition count is unknown.
    fn append(&mut self, record: PendingRecord) {
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
    fn relist(&mut self, i: usize) {
        let p = &mut self.partitions[i];
        let to = p.holds().then_some(p.leader);
        if to != p.listed {
            self.holding.move_to(i, p.listed, to);
            p.listed = to;
        }
    }

    /// Relists every partition that holds something and lists those with a leader again,
    /// after leaders changed.
    fn leaders_changed(&mut self) {
        for i in self.holding.snapshot() {
            self.relist(i);
        }
        self.with_leader =
            (0..self.partitions.len()).filter(|&i| self.partitions[i].leader.is_some()).collect();
    }

    /// Fails `count` records that `send()` refused before they reached the accumulator: Kafka's
    /// `KafkaProducer.doSend` calls `ensureValidRecordSize` and completes the record's future
    /// with the `RecordTooLargeException` (error code `MESSAGE_TOO_LARGE`, not retried). They
    /// have no partition yet (the built-in partitioner picks one only in the accumulator), so
    /// they count in the producer's totals and its last error, with no partition event.
    fn refuse_records(&mut self, now: Ms, count: u64, why: String) {
        if count == 0 {
            return;
        }
        self.next_value += count;
        self.sent += count;
        self.failed += count;
        *self.errors.entry(ErrorCode::MessageTooLarge.name().to_string()).or_insert(0) += count;
        self.last_error = Some((now, format!("{} on {}: {why}", ErrorCode::MessageTooLarge, self.topic)));
    }

    fn apply_metadata(&mut self, now: Ms, delta: &MetadataDelta) {
        if delta.deleted_topics.contains(&self.topic) {
            // The topic is gone from the metadata: no partition has a leader any more, so
            // batches wait for one until `delivery.timeout.ms` (Java's `Sender` with an
            // unknown leader); a topic created again with the name starts over at epoch 0.
            self.latest.values_mut().for_each(|v| *v = (None, -1));
            for p in &mut self.partitions {
                p.leader = None;
                p.leader_epoch = -1;
            }
            self.leaders_changed();
            self.refresh_wanted = true;
        }
        for state in delta.partitions.iter().filter(|s| s.tp.topic == self.topic) {
            let known = self.latest.get(&state.tp.partition).map_or(-1, |k| k.1);
            if state.leader_epoch >= known {
                self.latest.insert(state.tp.partition, (state.leader, state.leader_epoch));
            }
        }
        if self.last_refresh.is_none() && !self.latest.is_empty() {
            self.refresh_metadata(now);
        }
    }

    /// When the routing copy should next be refreshed (Java's `Metadata.timeToNextUpdate`).
    fn metadata_refresh_at(&self) -> Option<Ms> {
        let last = self.last_refresh?;
        if self.refresh_wanted {
            return Some(last);
        }
        let mut at = last + METADATA_MAX_AGE_MS;
        if self.with_leader.len() < self.partitions.len() {
            at = at.min(last + self.config.retry_backoff_ms.max(1));
        }
        Some(at)
    }

    fn refresh_if_due(&mut self, now: Ms) {
        if self.metadata_refresh_at().is_some_and(|t| t <= now) {
            self.refresh_metadata(now);
        }
    }

    /// Copies the latest metadata into the routing view.
    fn refresh_metadata(&mut self, now: Ms) {
        self.last_refresh = Some(now);
        self.refresh_wanted = false;
        for (&idx, &(leader, epoch)) in &self.latest {
            let idx = idx as usize;
            while self.partitions.len() <= idx {
                let tp = TopicPartition::new(self.topic.clone(), self.partitions.len() as u32);
                self.partitions.push(PartitionQueue::new(tp));
            }
            let p = &mut self.partitions[idx];
            if epoch < p.leader_epoch {
                continue;
            }
            if epoch > p.leader_epoch {
                p.epoch_changed_at = now;
            }
            p.leader = leader;
            p.leader_epoch = epoch;
        }
        self.leaders_changed();
        if !self.partitions.is_empty() {
            while let Some(record) = self.unassigned.pop_front() {
                self.append(record);
            }
        }
    }

    // ----- sender -----

    fn run(&mut self, now: Ms, out: &mut Outbox) {
        self.refresh_if_due(now);
        self.generate(now);
        self.expire(now, out);
        self.time_out_requests(now, out);
        for broker in self.conns.timed_out_attempts(now) {
            self.conns.disconnected(broker, now, true, &self.config, &mut self.rng);
            self.refresh_wanted = true;
        }
        // A disconnect above asks for metadata, which the sends below should already use.
        self.refresh_if_due(now);
        self.drain(now, out);
    }

    /// Sends what is ready, as Java's `Sender.sendProducerData` loop does: every leader that is
    /// connected and has fewer than `max.in.flight.requests.per.connection` requests unanswered
    /// (`NetworkClient.ready`, `InFlightRequests.canSendMore`) gets one request holding the
    /// first drainable batch of each of its partitions (`RecordAccumulator.drainBatchesForOneNode`);
    /// this repeats while requests go out.
    fn drain(&mut self, now: Ms, out: &mut Outbox) {
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
    fn drain_plan(&self, now: Ms, requests: &RequestCounts) -> Vec<(BrokerId, Vec<usize>)> {
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
    fn update_partitioner(&mut self, now: Ms) {
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

    /// Whether partition `i` has a batch to send at `now` and nothing holds it back.
    fn drainable(&self, now: Ms, i: usize, requests: &RequestCounts) -> bool {
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
    fn held_back(&self, i: usize, requests: &RequestCounts) -> bool {
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
    fn in_flight_requests(&self) -> RequestCounts {
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
    fn take_batch(&mut self, i: usize) -> ProducerBatch {
        match self.partitions[i].retries.pop_front() {
            Some(r) => r.batch,
            None => self.form_batch(i),
        }
    }

    /// Whether `broker` can take a request now (Java `NetworkClient.ready`): the connection to
    /// it is ready. If not, and its reconnect backoff has passed, a connection attempt starts
    /// (the handshake goes out now).
    fn broker_ready(&mut self, now: Ms, leader: BrokerId, out: &mut Outbox) -> bool {
        self.conns.ready_or_connect(leader, now, &self.config, &mut self.rng, out)
    }

    /// When data of partition `i` that is ready at `ready` can actually go: then if its leader
    /// is connected, not before the reconnect backoff ends if it is not (Java
    /// `ClusterConnectionStates.connectionDelay`), and with no timer while a connection attempt
    /// is under way (its answer or its setup timeout wakes the producer).
    fn sendable_at(&self, i: usize, ready: Option<Ms>) -> Option<Ms> {
        let ready = ready?;
        self.conns.sendable_at(self.partitions[i].leader?, ready)
    }

    /// Client-side request timeouts (Java `NetworkClient.handleTimedOutRequests`): a broker
    /// with a request unanswered after `request.timeout.ms` plus [`CLIENT_TIMEOUT_MARGIN_MS`]
    /// is disconnected, and every request in flight to it fails with `REQUEST_TIMED_OUT`.
    fn time_out_requests(&mut self, now: Ms, out: &mut Outbox) {
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
    fn on_disconnected(&mut self, now: Ms, broker: BrokerId, correlation_id: u64, out: &mut Outbox) {
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
    fn close_connection(
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

    /// When partition `i`'s first re-enqueued batch may be re-sent: after its backoff, or as
    /// soon as a newer leader epoch is known (KIP-951); never while the partition has no leader.
    fn retry_ready_at(&self, i: usize) -> Option<Ms> {
        let p = &self.partitions[i];
        let r = p.retries.front()?;
        p.leader?;
        if p.leader_epoch > r.sent_epoch {
            Some(r.retry_at.min(p.epoch_changed_at))
        } else {
            Some(r.retry_at)
        }
    }

    /// When partition `i`'s accumulated records form a ready batch (`RecordAccumulator.ready`):
    /// no re-enqueued batch stands before them, the leader is known, and the batch is full or
    /// lingered.
    fn batch_ready_at(&self, i: usize) -> Option<Ms> {
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
    fn form_batch(&mut self, i: usize) -> ProducerBatch {
        let take = self.partitions[i].waiting.len().min(self.max_batch_records());
        let idempotent = self.config.idempotence_in_effect();
        let producer_id = self.producer_id();
        let acks = self.config.acks;
        let p = &mut self.partitions[i];
        let records: Vec<PendingRecord> = p.waiting.drain(..take).collect();
        let (producer_id, base_sequence) = if idempotent {
            let seq = p.next_sequence;
            p.next_sequence = increment_sequence(seq, take);
            (producer_id, seq)
        } else {
            (-1, -1)
        };
        ProducerBatch {
            created: records[0].created,
            last_created: records[records.len() - 1].created,
            sent_at: SendTimes::from_times(records.iter().map(|r| r.created)),
            values: records.into_iter().map(|r| r.value).collect(),
            producer_id,
            base_sequence,
            acks,
            retries_done: 0,
            last_error: None,
        }
    }

    /// Sends `batch` to partition `i`'s leader (callers check there is one) as part of request
    /// `request`. acks=0 batches are done right away, sent without acknowledgement (R5.2);
    /// others stay in flight until answered.
    fn send_batch(&mut self, now: Ms, i: usize, mut batch: ProducerBatch, request: u64, out: &mut Outbox) {
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
                values: Values::from_slice(&batch.values),
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
    fn find_in_flight(&self, correlation_id: u64) -> Option<usize> {
        (self.holding.all.iter().copied())
            .find(|&i| self.partitions[i].in_flight.iter().any(|f| f.correlation_id == correlation_id))
    }

    /// Takes partition `i`'s batch in flight under `correlation_id` out of the in-flight list.
    fn take_in_flight(&mut self, i: usize, correlation_id: u64) -> Option<InFlight> {
        let p = &mut self.partitions[i];
        let k = p.in_flight.iter().position(|f| f.correlation_id == correlation_id)?;
        let taken = p.in_flight.remove(k);
        self.relist(i);
        Some(taken)
    }

    fn on_response(&mut self, now: Ms, resp: ProduceResponse, out: &mut Outbox) {
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
                    values: Values::from_slice(&batch.values),
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
    fn fail_in_flight(
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
        let can_retry = (error.is_retriable() || self.sequence_overtaken(i, &batch, error))
            && batch.retries_done < self.config.retries
            && now < batch.created + self.config.delivery_timeout_ms;
        let given_up = if can_retry { 0 } else { batch.values.len() as u64 };
        self.note_error(now, i, error, detail, given_up, out);
        if can_retry {
            batch.retries_done += 1;
            let retry_at = now + self.retry_backoff(batch.retries_done);
            self.reenqueue(i, Retry { retry_at, sent_epoch, batch });
        } else {
            self.failed += batch.values.len() as u64;
            if batch.producer_id >= 0 && batch.producer_id == self.producer_id() {
                self.bump_producer_id();
            }
        }
    }

    /// Whether an `OUT_OF_ORDER_SEQUENCE_NUMBER` for `batch` only means that an earlier batch
    /// of the same producer id is still unresolved (failed and waiting for its retry, or in
    /// flight): the leader saw a gap because that one was not written yet. Java's
    /// `TransactionManager.canRetry` retries such a batch ("not the next sequence"); one that
    /// is the next sequence fails for good.
    fn sequence_overtaken(&self, i: usize, batch: &ProducerBatch, error: ErrorCode) -> bool {
        error == ErrorCode::OutOfOrderSequenceNumber
            && batch.base_sequence >= 0
            && self.partitions[i]
                .first_pending_sequence(batch.producer_id)
                .is_some_and(|first| first < batch.base_sequence)
    }

    /// Puts a failed batch back in partition `i`'s deque (Java `RecordAccumulator.reenqueue`):
    /// an idempotent batch in sequence order among the re-enqueued ones
    /// (`insertInSequenceOrder`), any other at the front (`addFirst`), so without idempotence
    /// the latest failure goes first.
    fn reenqueue(&mut self, i: usize, retry: Retry) {
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
    fn retry_backoff(&mut self, retry: u32) -> Ms {
        let base = self.config.retry_backoff_ms;
        let max = self.config.retry_backoff_max_ms.max(base);
        exponential_backoff(&mut self.rng, base, max, retry.saturating_sub(1))
    }

    /// Counts an error for partition `i` (with `records_failed` records given up by it) in the
    /// producer's error counters and in the partition's error run, and emits the run's
    /// [`EventKind::ProduceFailing`] with its running count. The same error code continues the
    /// run; another one starts a new run.
    fn note_error(
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
    fn mark_success(&mut self, i: usize, out: &mut Outbox) {
        let p = &mut self.partitions[i];
        p.run = None;
        if !p.since_ok.is_empty() {
            let errors = mem::take(&mut p.since_ok).into_iter().collect();
            out.emit(EventKind::ProduceRecovered { producer: self.index, tp: p.tp.clone(), errors });
        }
    }

    /// Takes a fresh producer id and restarts every partition's sequence at 0 (KIP-360
    /// stand-in). Batches already sent keep their old id and sequence for their retries.
    fn bump_producer_id(&mut self) {
        self.generation += 1;
        for p in &mut self.partitions {
            p.next_sequence = 0;
        }
    }

    /// Fails every batch whose delivery timeout passed, whole (Java
    /// `RecordAccumulator.expiredBatches` and `Sender.getExpiredInflightBatches`): a batch
    /// expires `delivery.timeout.ms` after its first record was created, with every record in
    /// it. Waiting records form batches of up to `batch.size` from the front of the queue, as
    /// Java's deque of batches does. Each expired batch counts one `TIMEOUT` error and its
    /// records as `failed`. A late response to an expired request is ignored.
    fn expire(&mut self, now: Ms, out: &mut Outbox) {
        self.expire_unassigned(now);
        let dt = self.config.delivery_timeout_ms;
        let max = self.max_batch_records();
        let current = self.producer_id();
        let mut bump = false;
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
    fn expire_unassigned(&mut self, now: Ms) {
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
struct Accumulated<'a> {
    parts: &'a [PartitionQueue],
    with_leader: &'a Arc<[usize]>,
    holding: &'a BTreeSet<usize>,
    per_batch: usize,
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

/// One producer client.
#[derive(Clone, Debug)]
pub struct ProducerView {
    /// Index.
    pub index: u32,
    /// Target topic.
    pub topic: String,
    /// Its configuration.
    pub config: ProducerConfig,
    /// Idempotence actually in effect (R5.8).
    pub idempotent: bool,
    /// Records handed to the producer.
    pub sent: u64,
    /// Records acknowledged (`acks=1` or `all`).
    pub acked: u64,
    /// Records sent with `acks=0`: written to the socket and done for the producer, which
    /// never hears whether they were kept (`KafkaProducer`'s callback gets offset -1). Never
    /// part of [`ProducerView::acked`].
    pub unacked: u64,
    /// Records that failed for good (delivery timeout or non-retriable error), or that a
    /// `restart-producer` abandoned unacknowledged.
    pub failed: u64,
    /// Records waiting in the accumulator or in flight.
    pub pending: u64,
    /// Error responses by Kafka error name.
    pub errors: BTreeMap<String, u64>,
    /// The latest error, with sim time.
    pub last_error: Option<(Ms, String)>,
    /// Brokers the producer cannot connect to right now (refused or lost, in reconnect
    /// backoff or trying again); batches for partitions they lead wait in the accumulator.
    pub unreachable: Vec<BrokerId>,
    /// Its acknowledged records lost (the audit ledger's count; 0 in the client's own view,
    /// filled in by the cluster's snapshot).
    pub acked_lost: u64,
    /// Its `acks=0` records a leader appended and the deciding log lost since (the audit
    /// ledger's [`super::audit::Ledger::unacked_lost_by`], filled in like `acked_lost`).
    pub unacked_lost: u64,
    /// Its acknowledged records written after records it sent later (the audit ledger's
    /// count, filled in like `acked_lost`).
    pub reordered: u64,
    /// p50 and p99 produce latency over the last
    /// [`super::producer_latency::RECENT_WINDOW_S`] s of sim time, `None` when no record was
    /// acknowledged then (filled in by the cluster's snapshot, which knows the time).
    pub latency: Option<LatencySummary>,
}

/// Requests not answered yet per broker ([`ProducerClient::in_flight_requests`]), sorted by
/// broker.
#[derive(Debug, PartialEq, Eq)]
struct RequestCounts(Vec<(BrokerId, usize)>);

impl RequestCounts {
    /// The counts of `requests`, (leader, request id) pairs in any order, a request listed
    /// once per partition it spans: sorted and deduplicated, then counted in runs.
    fn of_pairs(mut requests: Vec<(BrokerId, u64)>) -> Self {
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
    fn of(&self, broker: BrokerId) -> usize {
        self.0.binary_search_by_key(&broker, |&(b, _)| b).map_or(0, |k| self.0[k].1)
    }
}

/// The sender's decisions made by walking every partition, as the producer did before
/// [`Holding`]: the reference the index is checked against (a missed [`ProducerClient::relist`]
/// shows as a difference).
#[cfg(test)]
impl ProducerClient {
    /// [`Holding`] rebuilt from every partition's queues and leader.
    fn holding_walk(&self) -> Holding {
        let mut h = Holding::default();
        for (i, p) in self.partitions.iter().enumerate() {
            h.move_to(i, None, p.holds().then_some(p.leader));
        }
        h
    }

    fn in_flight_requests_walk(&self) -> RequestCounts {
        let requests =
            self.partitions.iter().flat_map(|p| &p.in_flight).map(|f| (f.leader, f.request)).collect();
        RequestCounts::of_pairs(requests)
    }

    /// [`Self::next_deadline`] over every partition.
    fn next_deadline_walk(&self) -> Option<Ms> {
        let dt = self.config.delivery_timeout_ms;
        let mut next = self.generation_due();
        let mut consider = |t: Option<Ms>| {
            if let Some(t) = t {
                next = Some(next.map_or(t, |n: Ms| n.min(t)));
            }
        };
        let last = self.last_refresh;
        consider(last.map(|last| match self.refresh_wanted {
            true => last,
            false if self.partitions.iter().any(|p| p.leader.is_none()) => {
                (last + METADATA_MAX_AGE_MS).min(last + self.config.retry_backoff_ms.max(1))
            }
            false => last + METADATA_MAX_AGE_MS,
        }));
        consider(self.unassigned.front().map(|r| r.created + dt));
        let requests = self.in_flight_requests_walk();
        for i in 0..self.partitions.len() {
            consider(self.partition_deadline(i, &requests));
        }
        consider(self.conns.next_setup_timeout());
        next
    }

    /// [`Self::drain_plan`] over every partition: the leaders with a drainable partition, then
    /// for each the drainable partitions it leads.
    fn drain_plan_walk(&self, now: Ms) -> Vec<(BrokerId, Vec<usize>)> {
        let requests = self.in_flight_requests_walk();
        let leaders: BTreeSet<BrokerId> = (0..self.partitions.len())
            .filter(|&i| self.drainable(now, i, &requests))
            .filter_map(|i| self.partitions[i].leader)
            .collect();
        leaders
            .into_iter()
            .map(|b| {
                let led = (0..self.partitions.len())
                    .filter(|&i| self.partitions[i].leader == Some(b) && self.drainable(now, i, &requests));
                (b, led.collect())
            })
            .collect()
    }

    /// [`ProducerView::pending`] over every partition.
    fn pending_walk(&self) -> u64 {
        self.unassigned.len() as u64 + self.partitions.iter().map(|p| p.pending()).sum::<u64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::PartitionerClass;
    use crate::sim::protocol::PartitionState;
    use rand::SeedableRng;

    const TOPIC: &str = "t";

    fn config() -> ProducerConfig {
        ProducerConfig { rate: 0.0, ..ProducerConfig::default() }
    }

    fn producer(config: ProducerConfig, seed: u64) -> ProducerClient {
        ProducerClient::new(0, Arc::from(TOPIC), config, 7, ChaCha8Rng::seed_from_u64(seed))
    }

    /// A producer (seed 1) that has learned the leaders (one per partition) at `epoch`.
    fn with_leaders(
        config: ProducerConfig,
        leaders: &[Option<BrokerId>],
        epoch: Epoch,
    ) -> (ProducerClient, Outbox) {
        let mut p = producer(config, 1);
        let mut out = Outbox::default();
        p.handle(0, metadata(leaders, epoch), &mut out);
        for &b in leaders.iter().flatten() {
            connect(&mut p, b);
        }
        (p, out)
    }

    /// Gives `p` a ready connection to broker `b` (as if its handshake had been answered).
    fn connect(p: &mut ProducerClient, b: BrokerId) {
        p.conns.connecting(b, 0, &p.config, &mut p.rng);
        p.conns.ready(b);
    }

    fn connects(out: &mut Outbox) -> Vec<NodeId> {
        let (connects, rest): (Vec<_>, Vec<_>) =
            mem::take(&mut out.sends).into_iter().partition(|(_, m)| *m == Message::Connect);
        out.sends = rest;
        connects.into_iter().map(|(to, _)| to).collect()
    }

    fn tp(p: u32) -> TopicPartition {
        TopicPartition::new(TOPIC, p)
    }

    /// Metadata where partition `i` has leader `leaders[i]` at `epoch`.
    fn metadata(leaders: &[Option<BrokerId>], epoch: Epoch) -> Message {
        Message::Metadata(MetadataDelta {
            partitions: leaders
                .iter()
                .enumerate()
                .map(|(i, &leader)| PartitionState {
                    topic_id: crate::sim::TopicId::from_bits(7),
                    tp: tp(i as u32),
                    replicas: vec![0, 1, 2],
                    isr: vec![0, 1, 2],
                    leader,
                    leader_epoch: epoch,
                    partition_epoch: epoch,
                    leader_recovery: Default::default(),
                    adding: Vec::new(),
                    removing: Vec::new(),
                })
                .collect(),
            ..Default::default()
        })
    }

    fn requests(out: &mut Outbox) -> Vec<(NodeId, ProduceRequest)> {
        mem::take(&mut out.sends)
            .into_iter()
            .map(|(to, m)| match m {
                Message::Produce(r) => (to, r),
                other => panic!("unexpected {other:?}"),
            })
            .collect()
    }

    fn ok(r: &ProduceRequest, base_offset: i64, epoch: Epoch) -> Message {
        Message::ProduceResponse(ProduceResponse {
            correlation_id: r.correlation_id,
            tp: r.tp.clone(),
            result: Ok((base_offset, epoch)),
            error_message: String::new(),
        })
    }

    fn err(r: &ProduceRequest, e: ErrorCode, msg: &str) -> Message {
        Message::ProduceResponse(ProduceResponse {
            correlation_id: r.correlation_id,
            tp: r.tp.clone(),
            result: Err(e),
            error_message: msg.to_string(),
        })
    }

    /// Calls `on_tick` at every deadline up to `until`, answering each request with `answer`
    /// at the same instant; returns every request sent.
    fn drive(
        p: &mut ProducerClient,
        until: Ms,
        out: &mut Outbox,
        mut answer: impl FnMut(&ProduceRequest) -> Option<Message>,
    ) -> Vec<(Ms, ProduceRequest)> {
        let mut all = Vec::new();
        while let Some(t) = p.next_deadline()
            && t <= until
        {
            p.on_tick(t, out);
            for peer in connects(out) {
                p.handle(t, Message::Connected { peer }, out);
            }
            let mut batch = requests(out);
            while !batch.is_empty() {
                let mut next = Vec::new();
                for (_, r) in batch {
                    if let Some(m) = answer(&r) {
                        p.handle(t, m, out);
                        next.extend(requests(out));
                    }
                    all.push((t, r));
                }
                batch = next;
            }
        }
        all
    }

    #[test]
    fn rate_generates_records_evenly_and_fractional_rates_work() {
        let (mut p, mut out) = with_leaders(ProducerConfig { rate: 100.0, ..config() }, &[Some(0)], 0);
        // Records are created at 10, 20, …, 1000 ms; the last one leaves at 1005.
        let sent = drive(&mut p, 1005, &mut out, |r| Some(ok(r, 0, 0)));
        assert_eq!(p.view().sent, 100);
        assert_eq!(p.view().acked, 100);
        // One record every 10 ms, each sent alone after linger.ms = 5.
        assert_eq!(sent.len(), 100);
        assert_eq!(sent[0].0, 15);
        assert_eq!(sent[1].0, 25);
        let values: Vec<u64> = sent.iter().flat_map(|(_, r)| r.batch.values.clone()).collect();
        assert_eq!(values, (0..100).collect::<Vec<u64>>());

        let mut slow = producer(ProducerConfig { rate: 0.5, ..config() }, 1);
        slow.handle(0, metadata(&[Some(0)], 0), &mut out);
        drive(&mut slow, 10_000, &mut out, |r| Some(ok(r, 0, 0)));
        assert_eq!(slow.view().sent, 5);
    }

    #[test]
    fn full_batches_go_at_once_and_the_rest_after_linger() {
        let (mut p, mut out) =
            with_leaders(ProducerConfig { batch_size: 561, linger_ms: 1000, ..config() }, &[Some(1)], 0);
        p.enqueue(0, 12);
        assert_eq!(p.next_deadline(), Some(0));
        let sent = drive(&mut p, 5000, &mut out, |r| Some(ok(r, 0, 0)));
        let shape: Vec<(Ms, usize)> = sent.iter().map(|(t, r)| (*t, r.batch.values.len())).collect();
        assert_eq!(shape, vec![(0, 5), (0, 5), (1000, 2)]);
        // 561 bytes: the 61-byte batch header and five 100-byte records.
        assert!(sent.iter().all(|(_, r)| r.batch.record_size == 100));
        assert_eq!(sent[0].1.batch.size_bytes(), 561);
        assert_eq!(p.view().pending, 0);
    }

    /// `max.request.size` bounds every request's bytes, below a larger `batch.size`
    /// (`RecordAccumulator.drain`'s `maxSize`; isrlab's request is one batch).
    #[test]
    fn no_request_exceeds_max_request_size() {
        let cfg = ProducerConfig { batch_size: 1 << 20, max_request_size: 1061, linger_ms: 1000, ..config() };
        let (mut p, mut out) = with_leaders(cfg, &[Some(1)], 0);
        p.enqueue(0, 25);
        let sent = drive(&mut p, 5000, &mut out, |r| Some(ok(r, 0, 0)));
        let shape: Vec<(Ms, usize)> = sent.iter().map(|(t, r)| (*t, r.batch.values.len())).collect();
        assert_eq!(shape, vec![(0, 10), (0, 10), (1000, 5)]);
        assert!(sent.iter().all(|(_, r)| r.batch.size_bytes() <= 1061));
        assert_eq!(p.view().acked, 25);
    }

    /// A record that cannot fit in a request fails at once with `MESSAGE_TOO_LARGE`
    /// (`KafkaProducer.ensureValidRecordSize`), is never sent and never retried.
    #[test]
    fn a_record_larger_than_max_request_size_fails_without_being_sent() {
        let cfg = ProducerConfig { record_size: 1001, max_request_size: 1061, ..config() };
        let (mut p, mut out) = with_leaders(cfg, &[Some(1)], 0);
        p.enqueue(0, 3);
        let sent = drive(&mut p, 5000, &mut out, |r| Some(ok(r, 0, 0)));
        assert!(sent.is_empty());
        let v = p.view();
        assert_eq!((v.sent, v.acked, v.failed, v.pending), (3, 0, 3, 0));
        assert_eq!(v.errors.get("MESSAGE_TOO_LARGE"), Some(&3));
        assert!(v.last_error.unwrap().1.contains("The message is 1062 bytes"));
    }

    /// With `max.in.flight.requests.per.connection` = 1 the Sender mutes a partition while its
    /// batch is in flight (`Sender.guaranteeMessageOrder`): later records wait and go together.
    #[test]
    fn max_in_flight_one_mutes_the_partition_while_its_batch_is_in_flight() {
        let cfg = ProducerConfig { linger_ms: 0, max_in_flight: 1, ..config() };
        let (mut p, mut out) = with_leaders(cfg, &[Some(1)], 0);
        p.enqueue(0, 1);
        p.on_tick(0, &mut out);
        let first = requests(&mut out);
        assert_eq!(first.len(), 1);
        p.enqueue(1, 3);
        p.on_tick(1, &mut out);
        assert!(out.sends.is_empty(), "later records wait for the in-flight request");
        assert_eq!(p.view().pending, 4);
        p.handle(2, ok(&first[0].1, 0, 0), &mut out);
        let second = requests(&mut out);
        assert_eq!(second[0].1.batch.values, vec![1, 2, 3]);
    }

    /// Records handed over before metadata wait, then go where the partitioner says; with
    /// `partitioner.class` = RoundRobinPartitioner that is each partition with a leader in turn.
    fn partitions_after_metadata(
        partitioner_class: PartitionerClass,
    ) -> Vec<(NodeId, TopicPartition, Vec<u64>)> {
        let cfg = ProducerConfig { linger_ms: 0, acks: Acks::Zero, partitioner_class, ..config() };
        let mut p = producer(cfg, 1);
        let mut out = Outbox::default();
        p.enqueue(0, 2);
        p.on_tick(0, &mut out);
        assert!(out.sends.is_empty(), "no metadata yet: records wait");
        assert_eq!(p.view().pending, 2);
        connect(&mut p, 0);
        connect(&mut p, 2);
        p.handle(1, metadata(&[Some(0), None, Some(2)], 0), &mut out);
        p.enqueue(1, 2);
        p.on_tick(1, &mut out);
        requests(&mut out).into_iter().map(|(to, r)| (to, r.tp, r.batch.values.to_vec())).collect()
    }

    #[test]
    fn round_robin_partitioner_only_over_partitions_with_a_leader() {
        assert_eq!(
            partitions_after_metadata(PartitionerClass::RoundRobin),
            vec![
                (NodeId::Broker(0), tp(0), vec![0]),
                (NodeId::Broker(2), tp(2), vec![1]),
                (NodeId::Broker(0), tp(0), vec![2]),
                (NodeId::Broker(2), tp(2), vec![3]),
            ]
        );
    }

    /// The built-in partitioner keeps keyless records on one partition with a leader (far
    /// below batch.size bytes here): the two that waited for metadata and the two after.
    #[test]
    fn keyless_records_stick_to_one_partition_with_a_leader() {
        let sent = partitions_after_metadata(PartitionerClass::BuiltIn);
        let (to, tp) = (sent[0].0, sent[0].1.clone());
        assert!(to == NodeId::Broker(tp.partition as i32) && tp.partition != 1, "{sent:?}");
        assert!(sent.iter().all(|s| s.1 == tp), "{sent:?}");
        assert_eq!(sent.iter().flat_map(|s| s.2.clone()).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
    }

    /// Keyed records go to `toPositive(murmur2(key)) % 3`: "abc" (479470107) to partition 0,
    /// "foobar" (-790332482 → 1357151166) to partition 0, "21" (-973932308 → 1173551340) to 0;
    /// "order-2" is computed by the same function and lands on partition 1 even without its
    /// leader known, where it waits.
    #[test]
    fn keyed_records_go_to_their_murmur2_partition() {
        let (mut p, mut out) =
            with_leaders(ProducerConfig { linger_ms: 0, ..config() }, &[Some(0), Some(1), Some(2)], 0);
        p.enqueue_with_key(0, 2, Some("abc"));
        p.on_tick(0, &mut out);
        let sent = requests(&mut out);
        assert_eq!(sent.len(), 1);
        assert_eq!((sent[0].1.tp.partition, sent[0].1.batch.values.len()), ((479470107 % 3) as u32, 2));
        for key in ["k1", "k2", "k3", "k4"] {
            p.enqueue_with_key(1, 1, Some(key));
        }
        p.on_tick(1, &mut out);
        let mut got: Vec<u32> = requests(&mut out).iter().map(|(_, r)| r.tp.partition).collect();
        let mut want: Vec<u32> = ["k1", "k2", "k3", "k4"]
            .iter()
            .map(|k| partitioner::partition_for_key(partitioner::key_hash(k), 3) as u32)
            .collect();
        got.sort_unstable();
        want.sort_unstable();
        want.dedup();
        assert_eq!(got, want);
    }

    #[test]
    fn values_are_unique_per_producer_index() {
        let mut p = ProducerClient::new(3, Arc::from(TOPIC), config(), 7, ChaCha8Rng::seed_from_u64(1));
        let mut out = Outbox::default();
        p.handle(0, metadata(&[Some(0)], 0), &mut out);
        p.enqueue(0, 2);
        let sent = drive(&mut p, 100, &mut out, |_| None);
        assert_eq!(sent[0].1.batch.values, vec![3_000_000_000, 3_000_000_001]);
        assert_eq!(sent[0].1.producer, 3);
    }

    #[test]
    fn retry_resends_the_same_batch_with_the_same_sequence() {
        let (mut p, mut out) = with_leaders(ProducerConfig { linger_ms: 0, ..config() }, &[Some(1)], 0);
        p.enqueue(0, 3);
        p.on_tick(0, &mut out);
        let first = requests(&mut out).remove(0).1;
        assert_eq!((first.batch.producer_id, first.batch.base_sequence), (7, 0));
        assert_eq!(first.acks, Acks::All);
        assert_eq!(first.timeout_ms, 30_000);
        p.enqueue(1, 2);
        p.handle(10, err(&first, ErrorCode::NotLeaderOrFollower, ""), &mut out);
        assert!(out.sends.is_empty());
        let retry_at = p.next_deadline().unwrap();
        assert!((10 + 80..=10 + 120).contains(&retry_at), "backoff 100 ms ± 20 %: {retry_at}");
        p.on_tick(retry_at, &mut out);
        // The retry goes first; the records behind it follow at once in the next request
        // (max.in.flight.requests.per.connection = 5).
        let sent = requests(&mut out);
        let (retry, next) = (&sent[0].1, &sent[1].1);
        assert_eq!(retry.batch, first.batch);
        assert!(retry.correlation_id > first.correlation_id);
        assert_eq!((next.batch.producer_id, next.batch.base_sequence), (7, 3));
        assert_eq!(next.batch.values, vec![3, 4]);
    }

    #[test]
    fn not_enough_replicas_is_retried_in_one_error_run_that_a_success_ends() {
        let (mut p, mut out) = with_leaders(ProducerConfig { linger_ms: 0, ..config() }, &[Some(1)], 0);
        p.enqueue(0, 1);
        let msg = "The size of the current ISR Set(1) is insufficient to satisfy the min.isr requirement of 2 for partition t-0";
        let mut failures = 0;
        let sent = drive(&mut p, 60_000, &mut out, |r| {
            failures += 1;
            if failures <= 6 { Some(err(r, ErrorCode::NotEnoughReplicas, msg)) } else { Some(ok(r, 9, 2)) }
        });
        assert_eq!(sent.len(), 7);
        assert!(sent.windows(2).all(|w| w[0].1.batch == w[1].1.batch));
        // Exponential backoff: gaps grow up to retry.backoff.max.ms (with jitter).
        let gaps: Vec<Ms> = sent.windows(2).map(|w| w[1].0 - w[0].0).collect();
        let expect = [100, 200, 400, 800, 1000, 1000];
        for (gap, base) in gaps.iter().zip(expect) {
            assert!((base * 8 / 10..=(base * 12 / 10).min(1000)).contains(gap), "{gaps:?}");
        }
        let v = p.view();
        assert_eq!(v.errors.get("NOT_ENOUGH_REPLICAS"), Some(&6));
        assert_eq!(v.acked, 1);
        assert_eq!(v.failed, 0);
        assert!(v.last_error.as_ref().unwrap().1.contains("min.isr requirement of 2"));
        // One run: its event again with each error's running count (the event log keeps one
        // line for it), then the success that ends it, with the same count.
        let events = mem::take(&mut out.events);
        assert_eq!(events.len(), 7, "{events:?}");
        for (k, event) in events[..6].iter().enumerate() {
            let failure = ProduceFailure { error: ErrorCode::NotEnoughReplicas, detail: msg.to_string() };
            let run = EventKind::ProduceFailing {
                producer: 0,
                tp: tp(0),
                failure,
                errors: k as u64 + 1,
                records_failed: 0,
            };
            assert_eq!(*event, run);
        }
        assert_eq!(
            events[6],
            EventKind::ProduceRecovered {
                producer: 0,
                tp: tp(0),
                errors: vec![(ErrorCode::NotEnoughReplicas, 6)]
            }
        );
    }

    #[test]
    fn another_error_code_starts_a_new_run_and_the_success_adds_up_both() {
        let (mut p, mut out) = with_leaders(ProducerConfig { linger_ms: 0, ..config() }, &[Some(1)], 0);
        p.enqueue(0, 1);
        let answers =
            [ErrorCode::NetworkException, ErrorCode::NotEnoughReplicas, ErrorCode::NotEnoughReplicas];
        let mut n = 0;
        drive(&mut p, 60_000, &mut out, |r| {
            n += 1;
            Some(answers.get(n - 1).map_or_else(|| ok(r, 0, 0), |&e| err(r, e, "")))
        });
        let runs: Vec<(ErrorCode, u64)> = out
            .events
            .iter()
            .filter_map(|e| match e {
                EventKind::ProduceFailing { failure, errors, .. } => Some((failure.error, *errors)),
                _ => None,
            })
            .collect();
        assert_eq!(
            runs,
            vec![
                (ErrorCode::NetworkException, 1),
                (ErrorCode::NotEnoughReplicas, 1),
                (ErrorCode::NotEnoughReplicas, 2)
            ]
        );
        let recovered = vec![(ErrorCode::NetworkException, 1), (ErrorCode::NotEnoughReplicas, 2)];
        assert!(
            matches!(out.events.last(), Some(EventKind::ProduceRecovered { errors, .. }) if *errors == recovered)
        );
        let v = p.view();
        assert_eq!(
            (v.errors.get("NETWORK_EXCEPTION"), v.errors.get("NOT_ENOUGH_REPLICAS")),
            (Some(&1), Some(&2))
        );
    }

    #[test]
    fn non_retriable_error_fails_the_batch_and_takes_a_fresh_producer_id() {
        let (mut p, mut out) = with_leaders(ProducerConfig { linger_ms: 0, ..config() }, &[Some(1)], 0);
        p.enqueue(0, 2);
        p.on_tick(0, &mut out);
        let first = requests(&mut out).remove(0).1;
        p.handle(5, err(&first, ErrorCode::OutOfOrderSequenceNumber, ""), &mut out);
        assert_eq!(p.view().failed, 2);
        assert_eq!(p.view().pending, 0);
        p.enqueue(6, 1);
        p.on_tick(6, &mut out);
        let next = requests(&mut out).remove(0).1;
        assert_eq!(next.batch.producer_id, 7 + (1 << 32));
        assert_eq!(next.batch.base_sequence, 0);
    }

    #[test]
    fn retries_zero_means_no_retry() {
        let (mut p, mut out) = with_leaders(
            ProducerConfig { linger_ms: 0, retries: 0, acks: Acks::One, ..config() },
            &[Some(1)],
            0,
        );
        p.enqueue(0, 1);
        let sent = drive(&mut p, 10_000, &mut out, |r| Some(err(r, ErrorCode::NotLeaderOrFollower, "")));
        assert_eq!(sent.len(), 1);
        assert_eq!(p.view().failed, 1);
    }

    #[test]
    fn delivery_timeout_expires_records_and_resets_sequences() {
        let cfg = ProducerConfig { linger_ms: 0, delivery_timeout_ms: 5_000, ..config() };
        let (mut p, mut out) = with_leaders(cfg, &[Some(1)], 0);
        p.enqueue(0, 4);
        let sent =
            drive(&mut p, 20_000, &mut out, |r| Some(err(r, ErrorCode::NotEnoughReplicas, "isr too small")));
        assert!(sent.iter().all(|(t, r)| *t < 5_000 && r.batch.base_sequence == 0));
        let v = p.view();
        assert_eq!(v.failed, 4);
        assert_eq!(v.pending, 0);
        assert_eq!(v.errors.get("TIMEOUT"), Some(&1));
        // Two runs: NOT_ENOUGH_REPLICAS, then TIMEOUT for the whole batch.
        let events = mem::take(&mut out.events);
        let started =
            events.iter().filter(|e| matches!(e, EventKind::ProduceFailing { errors: 1, .. })).count();
        assert_eq!(started, 2);
        assert!(matches!(
            events.last(),
            Some(EventKind::ProduceFailing { failure, errors: 1, records_failed: 4, .. })
                if failure.error == ErrorCode::DeliveryTimeout
                    && failure.detail.starts_with("Expiring 4 record(s) for t-0: 5000 ms has passed since batch creation")
                    && failure.detail.ends_with("the last attempt failed with NOT_ENOUGH_REPLICAS")
        ));
        // A fresh producer id with sequences from 0 (KIP-360 stand-in).
        p.enqueue(20_000, 1);
        p.on_tick(20_000, &mut out);
        let next = requests(&mut out).remove(0).1;
        assert_eq!((next.batch.producer_id, next.batch.base_sequence), (7 + (1 << 32), 0));
    }

    #[test]
    fn records_for_a_leaderless_partition_expire_with_an_event() {
        let cfg = ProducerConfig { linger_ms: 0, delivery_timeout_ms: 5_000, ..config() };
        let (mut p, mut out) = with_leaders(cfg, &[None], 0);
        p.enqueue(100, 3);
        // Metadata is re-read every retry.backoff.ms while a partition has no leader.
        assert_eq!(p.next_deadline(), Some(100));
        p.on_tick(5_100, &mut out);
        assert!(out.sends.is_empty());
        assert_eq!(p.view().failed, 3);
        assert!(matches!(
            &out.events[..],
            [EventKind::ProduceFailing { failure, errors: 1, records_failed: 3, .. }]
                if failure.error == ErrorCode::DeliveryTimeout && failure.detail.contains("no leader")
        ));
        // The same producer id continues: no sequence was assigned.
        assert_eq!(p.producer_id(), 7);
    }

    /// Mirrors RecordAccumulatorTest's expiry cases: records appended while the partition has
    /// no leader fill batches of `batch.size`; each batch expires whole, `delivery.timeout.ms`
    /// after its first record, not record by record.
    #[test]
    fn a_leaderless_partition_expires_whole_batches() {
        // 61-byte header + 5 records of 100 bytes: 5 records per batch.
        let cfg = ProducerConfig { rate: 10.0, batch_size: 561, delivery_timeout_ms: 30_000, ..config() };
        let (mut p, mut out) = with_leaders(cfg, &[None], 0);
        // Records at 100, 200, ... ms: batches begin with records 0, 5, 10, ... (0.5 s apart).
        let mut expiries = Vec::new();
        while let Some(t) = p.next_deadline()
            && t <= 33_000
        {
            let failed = p.view().failed;
            p.on_tick(t, &mut out);
            if p.view().failed > failed {
                expiries.push((t, p.view().failed - failed));
            }
        }
        assert!(out.sends.is_empty());
        let expected: Vec<(Ms, u64)> = (0..6).map(|k| (30_100 + k * 500, 5)).collect();
        assert_eq!(expiries, expected);
        let v = p.view();
        assert_eq!((v.errors.get("TIMEOUT"), v.failed), (Some(&6), 30));
        let last = out.events.last().unwrap();
        assert!(matches!(last, EventKind::ProduceFailing { errors: 6, records_failed: 30, .. }), "{last:?}");
        assert!(last.to_string().starts_with("produce to t-0 failing with TIMEOUT (6 times, 30 records failed so far): Expiring 5 record(s) for t-0: 30000 ms has passed since batch creation"), "{last}");
    }

    #[test]
    fn unanswered_request_times_out_on_the_client_closes_the_connection_and_is_retried() {
        let (mut p, mut out) = with_leaders(ProducerConfig { linger_ms: 0, ..config() }, &[Some(1)], 0);
        p.enqueue(0, 1);
        p.on_tick(0, &mut out);
        let first = requests(&mut out).remove(0).1;
        assert_eq!(p.next_deadline(), Some(30_000 + CLIENT_TIMEOUT_MARGIN_MS));
        p.on_tick(31_000, &mut out);
        assert_eq!(p.view().errors.get("REQUEST_TIMED_OUT"), Some(&1));
        assert!(p.view().last_error.unwrap().1.contains("Disconnected from node 1 due to timeout"));
        // NetworkClient closed the connection: the retry needs a new one first.
        assert_eq!(p.view().unreachable, vec![1]);
        let t = p.next_deadline().unwrap();
        p.on_tick(t, &mut out);
        assert_eq!(connects(&mut out), vec![NodeId::Broker(1)]);
        p.handle(t + 2, Message::Connected { peer: NodeId::Broker(1) }, &mut out);
        let retry = requests(&mut out).remove(0).1;
        assert_eq!(retry.batch, first.batch);
        assert!(p.view().unreachable.is_empty());
        // The late answer to the abandoned request is ignored.
        p.handle(t + 3, ok(&first, 0, 0), &mut out);
        assert_eq!(p.view().acked, 0);
    }

    #[test]
    fn a_lost_connection_fails_the_request_in_flight_once_and_its_retry_waits_for_a_reachable_leader() {
        let cfg = ProducerConfig { linger_ms: 0, retries: 2, retry_backoff_ms: 5_000, ..config() };
        let (mut p, mut out) = with_leaders(cfg, &[Some(1)], 3);
        p.enqueue(0, 1);
        p.on_tick(0, &mut out);
        let first = requests(&mut out).remove(0).1;
        p.handle(1, Message::Disconnected { peer: NodeId::Broker(1), correlation_id: 0 }, &mut out);
        assert_eq!(p.view().errors.get("NETWORK_EXCEPTION"), Some(&1));
        // The per-request notice of the same loss counts nothing more.
        let lost = Message::Disconnected { peer: NodeId::Broker(1), correlation_id: first.correlation_id };
        p.handle(1, lost, &mut out);
        assert_eq!(p.view().errors.get("NETWORK_EXCEPTION"), Some(&1));
        let retry_at = p.next_deadline().unwrap();
        assert!(retry_at >= 4_000, "{retry_at}");
        // The controller moves leadership; the producer's copy is stale until the next disconnect.
        p.handle(900, metadata(&[Some(2)], 4), &mut out);
        assert!(out.sends.is_empty());
        // The retry is due, but broker 1 is not connected: a connection attempt instead.
        p.on_tick(retry_at, &mut out);
        assert_eq!(connects(&mut out), vec![NodeId::Broker(1)]);
        assert!(out.sends.is_empty());
        // Refused: that asks for metadata, which names broker 2 with a newer leader epoch, so the
        // retry skips what is left of its backoff (KIP-951) and connects to broker 2.
        p.handle(
            retry_at + 2,
            Message::Disconnected { peer: NodeId::Broker(1), correlation_id: 0 },
            &mut out,
        );
        assert_eq!(connects(&mut out), vec![NodeId::Broker(2)]);
        p.handle(retry_at + 4, Message::Connected { peer: NodeId::Broker(2) }, &mut out);
        let retry = requests(&mut out);
        assert_eq!(retry[0].0, NodeId::Broker(2));
        assert_eq!(retry[0].1.batch, first.batch);
        // A refused connection is no error response and spends no retry.
        let v = p.view();
        assert_eq!((v.errors.len(), v.failed), (1, 0));
        assert!(v.unreachable.is_empty(), "broker 1 leads nothing now: nothing waits for it");
    }

    /// Mirrors Kafka's SenderTest situations where the leader's node cannot be reached: the
    /// accumulator keeps the data, the reconnect backoff grows, nothing fails before
    /// `delivery.timeout.ms`.
    #[test]
    fn batches_for_an_unreachable_leader_wait_without_spending_retries() {
        let cfg = ProducerConfig { linger_ms: 0, retries: 2, ..config() };
        let mut p = producer(cfg, 1);
        let mut out = Outbox::default();
        p.handle(0, metadata(&[Some(1)], 0), &mut out);
        p.enqueue(0, 3);
        p.on_tick(0, &mut out);
        assert_eq!(connects(&mut out), vec![NodeId::Broker(1)]);
        // Refuse every attempt for 9 s; record when they come.
        let mut attempts = vec![0];
        let mut now = 0;
        while now < 9_000 {
            p.handle(now + 2, Message::Disconnected { peer: NodeId::Broker(1), correlation_id: 0 }, &mut out);
            assert!(out.sends.is_empty(), "no request to an unreachable broker");
            now = p.next_deadline().unwrap();
            p.on_tick(now, &mut out);
            assert_eq!(connects(&mut out), vec![NodeId::Broker(1)], "at {now}");
            attempts.push(now);
        }
        // Reconnect backoff: 50, 100, 200, 400, 800, then 1000 ms (each ± 20 %, at most 1000).
        let gaps: Vec<Ms> = attempts.windows(2).map(|w| w[1] - w[0] - 2).collect();
        for (gap, base) in gaps.iter().zip([50, 100, 200, 400, 800, 1000, 1000]) {
            assert!((base * 8 / 10..=(base * 12 / 10).min(1000)).contains(gap), "{gaps:?}");
        }
        let v = p.view();
        assert_eq!((v.failed, v.pending, v.errors.len()), (0, 3, 0));
        assert_eq!(v.unreachable, vec![1]);
        // The broker is back: the batch goes at once, as the first attempt.
        p.handle(now + 2, Message::Connected { peer: NodeId::Broker(1) }, &mut out);
        let sent = requests(&mut out).remove(0).1;
        assert_eq!(sent.batch.values, vec![0, 1, 2]);
        p.handle(now + 3, ok(&sent, 0, 0), &mut out);
        assert_eq!((p.view().acked, p.view().failed), (3, 0));
        assert!(p.view().unreachable.is_empty());
    }

    #[test]
    fn an_unanswered_connection_attempt_times_out_and_the_next_waits_longer() {
        let mut p = producer(ProducerConfig { linger_ms: 0, ..config() }, 1);
        let mut out = Outbox::default();
        p.handle(0, metadata(&[Some(1)], 0), &mut out);
        p.enqueue(0, 1);
        p.on_tick(0, &mut out);
        assert_eq!(connects(&mut out), vec![NodeId::Broker(1)]);
        // No answer (the handshake was lost): socket.connection.setup.timeout.ms = 10 s ± 20 %.
        let timeout = p.next_deadline().unwrap();
        assert!((8_000..=12_000).contains(&timeout), "{timeout}");
        p.on_tick(timeout, &mut out);
        assert!(out.sends.is_empty());
        let again = p.next_deadline().unwrap();
        assert!((timeout + 40..=timeout + 60).contains(&again), "reconnect.backoff.ms: {again}");
        p.on_tick(again, &mut out);
        assert_eq!(connects(&mut out), vec![NodeId::Broker(1)]);
        // The second attempt may take twice as long (20 s ± 20 %).
        let second = p.next_deadline().unwrap() - again;
        assert!((16_000..=24_000).contains(&second), "{second}");
        assert_eq!(p.view().errors.len(), 0);
    }

    #[test]
    fn acks_zero_never_waits_and_is_not_reported_to_the_ledger() {
        let cfg = ProducerConfig { linger_ms: 0, batch_size: 261, acks: Acks::Zero, ..config() };
        let (mut p, mut out) = with_leaders(cfg, &[Some(1)], 0);
        p.enqueue(0, 5);
        p.on_tick(0, &mut out);
        let sent = requests(&mut out);
        assert_eq!(sent.iter().map(|(_, r)| r.batch.values.len()).collect::<Vec<_>>(), vec![2, 2, 1]);
        assert!(sent.iter().all(|(_, r)| r.acks == Acks::Zero && r.batch.producer_id == -1));
        let v = p.view();
        assert_eq!((v.acked, v.unacked, v.pending, v.idempotent), (0, 5, 0, false), "sent, never acked");
        assert!(out.acked.is_empty());
        assert_eq!(p.next_deadline(), Some(METADATA_MAX_AGE_MS));
    }

    #[test]
    fn acked_records_carry_offsets_epoch_and_acks() {
        let (mut p, mut out) = with_leaders(ProducerConfig { linger_ms: 0, ..config() }, &[Some(1)], 0);
        p.enqueue(0, 3);
        p.on_tick(0, &mut out);
        let r = requests(&mut out).remove(0).1;
        p.handle(4, ok(&r, 42, 3), &mut out);
        assert_eq!(
            out.acked,
            vec![AckedRecords {
                tp: tp(0),
                base_offset: 42,
                leader_epoch: 3,
                leader: 1,
                values: Values::range(0, 3),
                acks: Acks::All,
                retried: false,
            }]
        );
        assert_eq!(p.view().acked, 3);
    }

    #[test]
    fn config_changes_apply_to_new_batches() {
        let (mut p, mut out) = with_leaders(ProducerConfig { linger_ms: 0, ..config() }, &[Some(1)], 0);
        p.enqueue(0, 1);
        p.on_tick(0, &mut out);
        let first = requests(&mut out).remove(0).1;
        p.set_config(1, ProducerConfig { linger_ms: 0, acks: Acks::One, ..config() });
        p.handle(2, err(&first, ErrorCode::NotLeaderOrFollower, ""), &mut out);
        p.enqueue(2, 1);
        let t = p.next_deadline().unwrap();
        p.on_tick(t, &mut out);
        let sent = requests(&mut out);
        let (retry, next) = (&sent[0].1, &sent[1].1);
        // The retry keeps its producer id and sequence but takes the new acks.
        assert_eq!((retry.acks, retry.batch.producer_id), (Acks::One, 7));
        assert_eq!((next.acks, next.batch.producer_id, next.batch.base_sequence), (Acks::One, -1, -1));
    }

    #[test]
    fn same_seed_gives_the_same_requests() {
        let run = |seed: u64| {
            let mut p = producer(ProducerConfig { rate: 37.5, ..config() }, seed);
            let mut out = Outbox::default();
            p.handle(0, metadata(&[Some(0), Some(1), None, Some(2)], 0), &mut out);
            let mut n = 0u64;
            let sent = drive(&mut p, 20_000, &mut out, |r| {
                n += 1;
                Some(if n.is_multiple_of(3) {
                    err(r, ErrorCode::NotEnoughReplicas, "")
                } else {
                    ok(r, n as i64, 0)
                })
            });
            (sent, out.acked, out.events, p.view().errors)
        };
        let a = run(42);
        assert!(a.0.len() > 100);
        assert_eq!(a, run(42));
    }

    /// A clone taken mid-run (a world checkpoint) carries on exactly as the original: same
    /// requests, acknowledgements, events and errors, backoff jitter and sticky partition
    /// choices included (both random streams clone with their position).
    #[test]
    fn a_clone_continues_like_the_original() {
        let answer = |n: &mut u64, r: &ProduceRequest| {
            *n += 1;
            Some(if n.is_multiple_of(4) {
                err(r, ErrorCode::NotEnoughReplicas, "")
            } else {
                ok(r, *n as i64, 0)
            })
        };
        let mut p = producer(ProducerConfig { rate: 55.0, ..config() }, 9);
        let mut out = Outbox::default();
        p.handle(0, metadata(&[Some(0), Some(1), Some(2)], 0), &mut out);
        let mut n = 0u64;
        drive(&mut p, 7_000, &mut out, |r| answer(&mut n, r));
        let mut twin = p.clone();
        let mut twin_n = n;
        let run_on = |p: &mut ProducerClient, n: &mut u64| {
            let mut out = Outbox::default();
            let sent = drive(p, 15_000, &mut out, |r| answer(n, r));
            (sent, out.acked, out.events, p.view().errors, p.next_deadline())
        };
        let a = run_on(&mut p, &mut n);
        assert!(a.0.len() > 50);
        assert_eq!(a, run_on(&mut twin, &mut twin_n));
    }

    /// Sends one single-record batch at `t` (linger.ms = 0) and returns its request.
    fn send_one(p: &mut ProducerClient, t: Ms, out: &mut Outbox) -> ProduceRequest {
        p.enqueue(t, 1);
        p.on_tick(t, out);
        requests(out).remove(0).1
    }

    /// Mirrors SenderTest's in-flight limit: at most `max.in.flight.requests.per.connection`
    /// requests unanswered per broker; an answer frees a place for the next.
    #[test]
    fn at_most_max_in_flight_requests_per_broker() {
        let cfg = ProducerConfig { linger_ms: 0, enable_idempotence: false, ..config() };
        let (mut p, mut out) = with_leaders(cfg, &[Some(1)], 0);
        let sent: Vec<ProduceRequest> = (0..5).map(|t| send_one(&mut p, t, &mut out)).collect();
        p.enqueue(5, 1);
        p.on_tick(5, &mut out);
        assert!(out.sends.is_empty(), "five requests unanswered: the sixth batch waits");
        p.handle(6, ok(&sent[0], 0, 0), &mut out);
        assert_eq!(requests(&mut out)[0].1.batch.values, vec![5]);
    }

    /// Without idempotence, a failed batch re-enqueued behind batches already in flight is
    /// written after them (Kafka documents this for max.in.flight.requests.per.connection > 1
    /// with retries): the second batch's records overtake the first's.
    #[test]
    fn without_idempotence_a_retry_lands_after_later_batches() {
        let cfg = ProducerConfig { linger_ms: 0, enable_idempotence: false, ..config() };
        let (mut p, mut out) = with_leaders(cfg, &[Some(1)], 0);
        let first = send_one(&mut p, 0, &mut out);
        let second = send_one(&mut p, 1, &mut out);
        assert_eq!((first.batch.producer_id, second.batch.producer_id), (-1, -1));
        p.handle(2, err(&first, ErrorCode::NotEnoughReplicas, ""), &mut out);
        p.handle(3, ok(&second, 0, 0), &mut out);
        let t = p.next_deadline().unwrap();
        p.on_tick(t, &mut out);
        let retry = requests(&mut out).remove(0).1;
        assert_eq!(retry.batch.values, vec![0]);
        p.handle(t + 1, ok(&retry, 1, 0), &mut out);
        let offsets: Vec<(i64, Vec<u64>)> =
            out.acked.iter().map(|a| (a.base_offset, a.values.to_vec())).collect();
        assert_eq!(offsets, vec![(0, vec![1]), (1, vec![0])]);
    }

    /// Mirrors SenderTest's idempotent retries with several batches in flight: the leader
    /// refuses the second batch with OUT_OF_ORDER_SEQUENCE_NUMBER because the first was not
    /// written; the client retries both (the second is not the next sequence,
    /// `TransactionManager.canRetry`), in sequence order and one at a time
    /// (`RecordAccumulator.shouldStopDrainBatchesForPartition`), so order is kept.
    #[test]
    fn idempotent_retries_keep_the_order() {
        let (mut p, mut out) = with_leaders(ProducerConfig { linger_ms: 0, ..config() }, &[Some(1)], 0);
        let first = send_one(&mut p, 0, &mut out);
        let second = send_one(&mut p, 1, &mut out);
        assert_eq!((first.batch.base_sequence, second.batch.base_sequence), (0, 1));
        p.handle(2, err(&first, ErrorCode::NotEnoughReplicas, ""), &mut out);
        p.handle(3, err(&second, ErrorCode::OutOfOrderSequenceNumber, ""), &mut out);
        assert_eq!(p.view().failed, 0, "the second batch is retried, not failed");
        let t = p.next_deadline().unwrap();
        p.on_tick(t, &mut out);
        let sent = requests(&mut out);
        assert_eq!(sent.len(), 1, "only the first sequence goes while retrying");
        assert_eq!(sent[0].1.batch, first.batch);
        p.handle(t + 1, ok(&sent[0].1, 0, 0), &mut out);
        let t = p.next_deadline().unwrap().max(t + 1);
        p.on_tick(t, &mut out);
        let next = requests(&mut out).remove(0).1;
        assert_eq!(next.batch, second.batch);
        p.handle(t + 1, ok(&next, 1, 0), &mut out);
        let offsets: Vec<(i64, Vec<u64>)> =
            out.acked.iter().map(|a| (a.base_offset, a.values.to_vec())).collect();
        assert_eq!(offsets, vec![(0, vec![0]), (1, vec![1])]);
        assert_eq!(p.view().errors.get("OUT_OF_ORDER_SEQUENCE_NUMBER"), Some(&1));
    }

    /// An OUT_OF_ORDER_SEQUENCE_NUMBER for the next sequence (nothing earlier unresolved)
    /// fails the batch for good, as before.
    #[test]
    fn out_of_order_sequence_for_the_next_sequence_is_fatal() {
        let (mut p, mut out) = with_leaders(ProducerConfig { linger_ms: 0, ..config() }, &[Some(1)], 0);
        let first = send_one(&mut p, 0, &mut out);
        p.handle(1, err(&first, ErrorCode::OutOfOrderSequenceNumber, ""), &mut out);
        assert_eq!(p.view().failed, 1);
    }

    #[test]
    fn a_restart_abandons_what_it_held_and_starts_a_new_id_at_sequence_0() {
        let (mut p, mut out) = with_leaders(ProducerConfig { linger_ms: 0, ..config() }, &[Some(1)], 0);
        p.enqueue(0, 3);
        p.on_tick(0, &mut out);
        let old = requests(&mut out).remove(0).1;
        assert_eq!((old.batch.producer_id, old.batch.base_sequence), (7, 0));
        // Two more wait in the accumulator (no tick has drained them yet).
        p.enqueue(1, 2);
        p.restart(1, 1005, &mut out);
        let v = p.view();
        assert_eq!((v.sent, v.acked, v.failed, v.pending), (5, 0, 5, 0));
        assert!(matches!(
            out.events.last(),
            Some(EventKind::ProducerRestarted {
                producer: 0,
                old_id: 7,
                new_id: 1005,
                idempotent: true,
                unsent: 2,
                unanswered: 3
            })
        ));
        // The old request's late answer acknowledges nothing: nobody waits for it any more.
        p.handle(2, ok(&old, 0, 0), &mut out);
        assert!(out.acked.is_empty());
        assert_eq!(p.view().acked, 0);
        p.enqueue(3, 1);
        p.on_tick(3, &mut out);
        let next = requests(&mut out).remove(0).1;
        assert_eq!((next.batch.producer_id, next.batch.base_sequence), (1005, 0));
        assert_eq!(p.producer_id(), 1005);
    }

    /// One step of [`the_index_decides_as_a_walk_over_every_partition`].
    #[derive(Clone, Debug)]
    enum Step {
        /// Time passes by this many ms, then the producer ticks.
        Tick(u8),
        /// The producer ticks at its next deadline, if any, within this many ms.
        Deadline(u16),
        /// `produce` of that many records, with key `k{n}` or none.
        Produce(u8, Option<u8>),
        /// Metadata: leader of each partition (`None` for 3), epoch raised or not; fewer
        /// partitions than the topic has leave the rest as they are.
        Metadata(Vec<u8>, bool),
        /// The request at this place among those unanswered gets an answer: `None` success,
        /// else the error at this place in [`ERRORS`].
        Answer(u8, Option<u8>),
        /// Broker `b`'s connection handshake is answered.
        Connected(u8),
        /// Broker `b` refuses or drops the connection.
        Disconnected(u8),
        /// A config change: max in flight, acks, idempotence, linger, adaptive, availability
        /// timeout, round robin.
        Config(u8, u8, bool, u8, bool, bool, bool),
        Restart,
        DeleteTopic,
    }

    const ERRORS: &[ErrorCode] = &[
        ErrorCode::NotLeaderOrFollower,
        ErrorCode::NotEnoughReplicas,
        ErrorCode::OutOfOrderSequenceNumber,
        ErrorCode::RequestTimedOut,
        ErrorCode::InvalidRequiredAcks,
    ];

    fn step() -> impl proptest::strategy::Strategy<Value = Step> {
        use proptest::prelude::*;
        prop_oneof![
            4 => any::<u8>().prop_map(Step::Tick),
            4 => (0u16..2_000).prop_map(Step::Deadline),
            4 => (0u8..40, proptest::option::of(0u8..8)).prop_map(|(n, k)| Step::Produce(n, k)),
            1 => (proptest::collection::vec(0u8..4, 1..8), any::<bool>()).prop_map(|(l, e)| Step::Metadata(l, e)),
            5 => (any::<u8>(), proptest::option::weighted(0.3, 0u8..5)).prop_map(|(i, e)| Step::Answer(i, e)),
            2 => (0u8..3).prop_map(Step::Connected),
            1 => (0u8..3).prop_map(Step::Disconnected),
            1 => (1u8..4, 0u8..3, any::<bool>(), 0u8..3, any::<bool>(), any::<bool>(), proptest::bool::weighted(0.2))
                .prop_map(|(m, a, i, l, ad, av, rr)| Step::Config(m, a, i, l, ad, av, rr)),
            1 => Just(Step::Restart),
            1 => Just(Step::DeleteTopic),
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 256,
            rng_seed: proptest::test_runner::RngSeed::Fixed(20261202),
            failure_persistence: None,
            ..Default::default()
        })]

        /// Whatever happens (records, metadata and leader moves, answers and errors, lost
        /// connections, config changes, restarts, a deleted topic), the index of partitions
        /// that hold something matches one rebuilt from every partition, and the deadline, the
        /// in-flight counts, the pending count and what a drain would send at several instants
        /// are what a walk over every partition decides.
        #[test]
        fn the_index_decides_as_a_walk_over_every_partition(steps in proptest::collection::vec(step(), 1..120)) {
            let cfg = ProducerConfig { delivery_timeout_ms: 3_000, request_timeout_ms: 500, linger_ms: 5, batch_size: 300, ..config() };
            let (mut p, mut out) = with_leaders(cfg, &[Some(0), Some(1), Some(2), Some(0)], 0);
            let (mut now, mut epoch) = (0 as Ms, 0 as Epoch);
            let mut unanswered: Vec<ProduceRequest> = Vec::new();
            for step in steps {
                match step {
                    Step::Tick(dt) => {
                        now += Ms::from(dt);
                        p.on_tick(now, &mut out);
                    }
                    Step::Deadline(within) => {
                        if let Some(t) = p.next_deadline().filter(|&t| t <= now + Ms::from(within)) {
                            now = now.max(t);
                            p.on_tick(now, &mut out);
                        }
                    }
                    Step::Produce(n, key) => p.enqueue_with_key(now, u64::from(n), key.map(|k| format!("k{k}")).as_deref()),
                    Step::Metadata(leaders, bump) => {
                        epoch += Epoch::from(bump);
                        let leaders: Vec<Option<BrokerId>> =
                            leaders.iter().map(|&b| (b < 3).then_some(BrokerId::from(b))).collect();
                        p.handle(now, metadata(&leaders, epoch), &mut out);
                    }
                    Step::Answer(k, e) => {
                        if !unanswered.is_empty() {
                            let r = unanswered.remove(usize::from(k) % unanswered.len());
                            let m = match e {
                                None => ok(&r, 0, epoch),
                                Some(e) => err(&r, ERRORS[usize::from(e)], ""),
                            };
                            p.handle(now, m, &mut out);
                        }
                    }
                    Step::Connected(b) => {
                        p.handle(now, Message::Connected { peer: NodeId::Broker(BrokerId::from(b)) }, &mut out)
                    }
                    Step::Disconnected(b) => {
                        let peer = NodeId::Broker(BrokerId::from(b));
                        p.handle(now, Message::Disconnected { peer, correlation_id: 0 }, &mut out)
                    }
                    Step::Config(m, a, idempotence, l, adaptive, availability, rr) => {
                        let config = ProducerConfig {
                            max_in_flight: u32::from(m) * 2 - 1,
                            acks: [Acks::Zero, Acks::One, Acks::All][usize::from(a)],
                            enable_idempotence: idempotence,
                            linger_ms: [0, 5, 50][usize::from(l)],
                            partitioner_adaptive: adaptive,
                            partitioner_availability_timeout_ms: if availability { 20 } else { 0 },
                            partitioner_class: if rr { PartitionerClass::RoundRobin } else { PartitionerClass::BuiltIn },
                            ..p.config.clone()
                        };
                        p.set_config(now, config);
                    }
                    Step::Restart => p.restart(now, 100 + now as i64, &mut out),
                    Step::DeleteTopic => {
                        let delta = MetadataDelta { deleted_topics: vec![Arc::from(TOPIC)], ..Default::default() };
                        p.handle(now, Message::Metadata(delta), &mut out);
                    }
                }
                for (_, m) in mem::take(&mut out.sends) {
                    if let Message::Produce(r) = m && r.acks != Acks::Zero {
                        unanswered.push(r);
                    }
                }
                proptest::prop_assert_eq!(&p.holding, &p.holding_walk());
                proptest::prop_assert_eq!(p.in_flight_requests(), p.in_flight_requests_walk());
                proptest::prop_assert_eq!(p.next_deadline(), p.next_deadline_walk());
                proptest::prop_assert_eq!(p.view().pending, p.pending_walk());
                let with_leader: Vec<usize> = (0..p.partitions.len()).filter(|&i| p.partitions[i].leader.is_some()).collect();
                proptest::prop_assert_eq!(&p.with_leader[..], &with_leader[..]);
                let requests = p.in_flight_requests();
                for t in [now, now + 5, now + 60, now + 2_000] {
                    proptest::prop_assert_eq!(p.drain_plan(t, &requests), p.drain_plan_walk(t));
                }
            }
        }
    }
}
