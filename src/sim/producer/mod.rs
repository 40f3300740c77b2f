//! The sans-IO producer client: what the Java `KafkaProducer` does for one topic, reduced to the
//! parts that matter for replication, loss and duplicates (rule book R5.2, R5.7, R5.8).
//!
//! One [`ProducerClient`] plays the roles of several Java classes:
//! - `BuiltInPartitioner` and `RoundRobinPartitioner` ([`partitioner`]): keyed records
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
//!   (R5.8). An `OUT_OF_ORDER_SEQUENCE_NUMBER` is retried, as Java's client does since 2.5
//!   (KIP-360, `TransactionManager.canRetry`): for a batch behind an unresolved earlier one
//!   as it is; for the next sequence (a real gap, e.g. after an unclean election) with an
//!   epoch bump that restarts the partition's unresolved batches at sequence 0
//!   (`requestEpochBumpForPartition`, `TxnPartitionEntry.startSequencesAtBeginning`). Our
//!   [`Batch`](super::protocol::Batch) has no epoch field, so a bump takes a fresh producer id,
//!   which the leader treats the same way. After a batch with an assigned sequence fails for
//!   another reason, the producer also takes a fresh id and restarts sequences at 0. Retried
//!   batches go one at a time in sequence order, so order survives retries.
//! - `ProducerMetadata`: while its topic is missing from the metadata and records wait for
//!   it, a Metadata request with `allowAutoTopicCreation` goes to a broker every
//!   `retry.backoff.ms`, which lets the broker create the topic (`auto.create.topics.enable`).
//!
//! Simplifications (isrlab's, not Kafka's):
//! - After a batch failed for good for another reason than `OUT_OF_ORDER_SEQUENCE_NUMBER`,
//!   batches stay in flight under the producer id they were sent with (Kafka re-stamps the
//!   partition's unresolved batches, `TxnPartitionEntry.startSequencesAtBeginning`); isrlab
//!   holds new batches back until the old id's batches are resolved.
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
//!
//! The code follows the Java classes: `accumulator` (`RecordAccumulator`, `ProducerBatch`),
//! `generator` (the application calling `KafkaProducer.send` at `rate`), [`partitioner`]
//! (`BuiltInPartitioner`, `RoundRobinPartitioner`), `sender` (`Sender`, `NetworkClient`'s
//! in-flight requests and timeouts), `metadata` (`Metadata`), `transaction`
//! (`TransactionManager`'s idempotent part) and `failures` (how errors are counted and told);
//! this file holds the facade, [`ProducerClient`] (`KafkaProducer`).
//!
//! Records at `rate` cost no wake-up each: the producer appends the records owed since it last
//! ran when it next runs, each created at its own instant and with what its instant's sender
//! pass did, and it asks to run only when those records can change something
//! ([`ProducerClient::next_deadline`]); batches, sticky partition switches, timestamps,
//! latencies and timeouts are those of a producer woken for every record (a test holds the
//! two side by side).

mod accumulator;
mod failures;
mod generator;
mod metadata;
pub mod partitioner;
mod sender;
#[cfg(test)]
mod tests;
mod transaction;

use self::accumulator::{Holding, PartitionQueue, PendingRecord};
use self::partitioner::Partitioner;
use self::sender::RequestCounts;
use super::connections::ConnectionStates;
use super::events::EventKind;
use super::producer_latency::{LatencyRecorder, LatencySummary};
use super::protocol::{Message, NodeId};
use super::{BrokerId, Epoch, Ms, Outbox};
use crate::config::ProducerConfig;
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
    /// Partitions whose sequences an epoch bump must restart before the next send
    /// (`TransactionManager.partitionsToRewriteSequences`).
    epoch_bump_for: BTreeSet<usize>,
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
    /// Whether the metadata lists its topic (false before it does, and after a deletion).
    topic_in_metadata: bool,
    /// The unfenced brokers the metadata lists: where a Metadata request can go.
    brokers: BTreeSet<BrokerId>,
    /// When the last Metadata request for its missing topic went out.
    topic_request_sent: Option<Ms>,
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
    /// Wakes the producer for every record the generator owes, as it did before records were
    /// generated lazily: the reference the lazy generator is checked against.
    #[cfg(test)]
    tick_per_record: bool,
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
            epoch_bump_for: BTreeSet::new(),
            rng,
            partitions: Vec::new(),
            holding: Holding::default(),
            with_leader: Arc::from([]),
            conns: ConnectionStates::default(),
            latest: BTreeMap::new(),
            last_refresh: None,
            refresh_wanted: false,
            topic_in_metadata: false,
            brokers: BTreeSet::new(),
            topic_request_sent: None,
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
            #[cfg(test)]
            tick_per_record: false,
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
        // Records owed from earlier instants came before the message.
        self.generate_before(now);
        match msg {
            Message::Metadata(delta) => self.apply_metadata(now, &delta),
            Message::ProduceResponse(resp) => self.on_response(now, resp, out),
            Message::TopicMetadataResponse { errors, .. } => self.on_topic_metadata_errors(now, &errors),
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
    /// Records the rate generator owes are not a deadline each: they are appended, each at its
    /// own instant, whenever the producer next runs, and the deadline is the first instant at
    /// which they can make something happen (a batch lingered or full, a record expired).
    pub fn next_deadline(&self) -> Option<Ms> {
        let dt = self.config.delivery_timeout_ms;
        // Not every record's instant: only when records owed by then can matter.
        let mut next = self.generation_deadline();
        let mut consider = |t: Option<Ms>| {
            if let Some(t) = t {
                next = Some(next.map_or(t, |n: Ms| n.min(t)));
            }
        };
        consider(self.metadata_refresh_at());
        consider(self.topic_metadata_request_at());
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
        self.epoch_bump_for.clear();
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

    /// The producer's counters for the snapshot at `now` (the records the rate generator owes
    /// by `now` counted as handed over, though the producer appends them only when it next
    /// runs).
    pub fn view(&self, now: Ms) -> ProducerView {
        // Records the application handed over since the producer last ran wait in the
        // accumulator (refused ones never get there).
        let owed = self.owed(now);
        let (waiting, refused) = if self.refuses_records() { (0, owed) } else { (owed, 0) };
        ProducerView {
            index: self.index,
            topic: self.topic.to_string(),
            config: self.config.clone(),
            idempotent: self.config.idempotence_in_effect(),
            sent: self.sent + owed,
            acked: self.acked,
            unacked: self.unacked,
            failed: self.failed + refused,
            pending: waiting
                + self.unassigned.len() as u64
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
