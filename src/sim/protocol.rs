//! Messages the simulated nodes exchange over the simulated network. They mirror the Kafka
//! RPCs that matter for replication: Fetch, Produce, BrokerRegistration, BrokerHeartbeat,
//! AlterPartition and the KRaft metadata records brokers replay.

use super::fetch_session::FetchMetadata;
use super::group::messages::{GroupRequest, GroupResponse};
use super::spec::TopicSpec;
use super::{Acks, BrokerId, Epoch, Ms, Offset, TopicId, TopicIdPartition, TopicPartition};
use crate::config::{BrokerConfig, TopicConfig};
use crate::kafka::errors::ErrorCode;
use std::sync::Arc;

/// An addressable node of the simulated cluster.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum NodeId {
    /// A broker, by `node.id`.
    Broker(BrokerId),
    /// A KRaft controller (a voter of the metadata quorum) by `node.id`: 3000, 3001, …
    /// ([`super::CONTROLLER_ID`] is the first).
    Controller(i32),
    /// Whichever controller the sender knows as the active one: a broker's requests to the
    /// controller (`NodeToControllerChannelManager`), addressed by the runtime to the
    /// controller the broker learned from the metadata log.
    ActiveController,
    /// A producer client, by index in the scenario's producer list.
    Producer(u32),
    /// A consumer client, by index in the scenario's consumer list.
    Consumer(u32),
    /// A real client's TCP connection to one broker, through the wire adapter
    /// ([`super::wire_client::WireClient`]), numbered in the order connections opened.
    Client(u32),
}

/// Where the producer numbers of real clients' connections start
/// ([`ProduceRequest::producer`] of a [`NodeId::Client`]): above every simulated producer.
pub const WIRE_PRODUCER_BASE: u32 = 1 << 31;

/// The node a produce answer goes to: the simulated producer with that index, or the real
/// client's connection numbered from [`WIRE_PRODUCER_BASE`].
pub fn producer_node(producer: u32) -> NodeId {
    match producer.checked_sub(WIRE_PRODUCER_BASE) {
        Some(client) => NodeId::Client(client),
        None => NodeId::Producer(producer),
    }
}

/// The node a group coordinator's answer goes to: the simulated consumer with that client
/// number, or the real client's connection numbered from [`WIRE_PRODUCER_BASE`] (real
/// clients' connections share one numbering for producing and for group membership).
pub fn group_client_node(client: u32) -> NodeId {
    match client.checked_sub(WIRE_PRODUCER_BASE) {
        Some(connection) => NodeId::Client(connection),
        None => NodeId::Consumer(client),
    }
}

/// The group coordinator's client number of `node` (the inverse of [`group_client_node`]):
/// `None` for a node that is neither a consumer nor a real client's connection.
pub fn group_client(node: NodeId) -> Option<u32> {
    match node {
        NodeId::Consumer(c) => Some(c),
        NodeId::Client(c) => Some(WIRE_PRODUCER_BASE + c),
        _ => None,
    }
}

/// The replica id a consumer's Fetch carries (Kafka's `FetchRequest.CONSUMER_REPLICA_ID`):
/// not a broker, so the leader reads only below the HW and records no follower state.
pub const CONSUMER_REPLICA_ID: BrokerId = -1;

pub use crate::config::RECORD_BATCH_OVERHEAD;

/// A record batch as a replica's log stores it and a Fetch response carries it: Kafka's v2
/// `RecordBatch` header without the bytes of its records (`DefaultRecordBatch`,
/// `FileRecords`). Followers store the leader's batches as they are; a log keeps them in the
/// compact form of [`super::batches::BatchStore`].
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct RecordBatch {
    /// Offset of its first record.
    pub base_offset: Offset,
    /// Leader epoch of the leader that appended it (`partitionLeaderEpoch`, R7.4).
    pub leader_epoch: Epoch,
    /// Idempotent producer id, `-1` without idempotence (R5.8).
    pub producer_id: i64,
    /// Producer sequence of its first record, `-1` without idempotence.
    pub base_sequence: i32,
    /// Size on disk and on the wire in bytes: [`RECORD_BATCH_OVERHEAD`] plus its records.
    pub size_bytes: u32,
    /// Largest record timestamp (ms, `CreateTime`: when the producer created the record).
    pub max_timestamp: Ms,
    /// The records' payloads, one per record, in offset order.
    pub values: Values,
}

impl RecordBatch {
    /// Records in the batch.
    pub fn count(&self) -> u32 {
        self.values.count()
    }

    /// Offset after its last record.
    pub fn next_offset(&self) -> Offset {
        self.base_offset + Offset::from(self.count())
    }

    /// Offset of its last record.
    pub fn last_offset(&self) -> Offset {
        self.next_offset() - 1
    }

    /// Producer sequence of its last record (`DefaultRecordBatch.lastSequence`, which wraps
    /// after `i32::MAX`), `-1` without idempotence.
    pub fn last_sequence(&self) -> i32 {
        if self.base_sequence < 0 {
            return -1;
        }
        sequence_after(self.base_sequence, self.count().saturating_sub(1))
    }

    /// The payload of the record at `offset`, if the batch holds that offset.
    pub fn value_at(&self, offset: Offset) -> Option<u64> {
        let i = usize::try_from(offset - self.base_offset).ok()?;
        self.values.get(i)
    }
}

/// The sequence `n` records after `sequence`, wrapping to 0 after `i32::MAX` as Kafka's
/// `DefaultRecordBatch.incrementSequence` does.
pub fn sequence_after(sequence: i32, n: u32) -> i32 {
    ((i64::from(sequence) + i64::from(n)) % (i64::from(i32::MAX) + 1)) as i32
}

/// The payload values of a batch's records, in offset order. Each value is unique across a
/// run (shown as `m<value>`), so the audit ledger can tell records apart. A producer's batch
/// almost always holds an arithmetic run (its round-robin deals every n-th record to a
/// partition), stored in 16 bytes whatever the record count; any other sequence is shared.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Values {
    /// `count` values `first, first + stride, …`.
    Run {
        /// The first value.
        first: u64,
        /// Distance between neighbours.
        stride: u32,
        /// How many values.
        count: u32,
    },
    /// Any other sequence.
    List(Arc<[u64]>),
}

impl Default for Values {
    fn default() -> Self {
        Values::Run { first: 0, stride: 1, count: 0 }
    }
}

impl Values {
    /// The values of `slice`, as a run when they form one.
    pub fn from_slice(slice: &[u64]) -> Self {
        let Some(&first) = slice.first() else { return Self::default() };
        let Ok(count) = u32::try_from(slice.len()) else { return Values::List(Arc::from(slice)) };
        let stride = match slice.get(1) {
            None => 1,
            Some(&second) => match second.checked_sub(first).map(u32::try_from) {
                Some(Ok(s)) if s > 0 => s,
                _ => return Values::List(Arc::from(slice)),
            },
        };
        let is_run = slice.windows(2).all(|w| w[0].checked_add(u64::from(stride)) == Some(w[1]));
        if is_run { Values::Run { first, stride, count } } else { Values::List(Arc::from(slice)) }
    }

    /// `count` consecutive values from `first`.
    pub fn range(first: u64, count: u32) -> Self {
        Values::Run { first, stride: 1, count }
    }

    /// How many values.
    pub fn count(&self) -> u32 {
        match self {
            Values::Run { count, .. } => *count,
            Values::List(v) => u32::try_from(v.len()).unwrap_or(u32::MAX),
        }
    }

    /// How many values (as `usize`).
    pub fn len(&self) -> usize {
        self.count() as usize
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.count() == 0
    }

    /// The `i`-th value.
    pub fn get(&self, i: usize) -> Option<u64> {
        match self {
            Values::Run { first, stride, count } => {
                (i < *count as usize).then(|| first + i as u64 * u64::from(*stride))
            }
            Values::List(v) => v.get(i).copied(),
        }
    }

    /// Where `value` is among them.
    pub fn position(&self, value: u64) -> Option<usize> {
        match self {
            Values::Run { first, stride, count } => {
                let d = value.checked_sub(*first)?;
                let i = d / u64::from(*stride);
                (d % u64::from(*stride) == 0 && i < u64::from(*count)).then_some(i as usize)
            }
            Values::List(v) => v.iter().position(|&x| x == value),
        }
    }

    /// The smallest and largest value, when there is one.
    pub fn bounds(&self) -> Option<(u64, u64)> {
        match self {
            Values::Run { count: 0, .. } => None,
            Values::Run { first, stride, count } => {
                Some((*first, first + u64::from(count - 1) * u64::from(*stride)))
            }
            Values::List(v) => Some((*v.iter().min()?, *v.iter().max()?)),
        }
    }

    /// Whether the `n` values from position `i` equal the `n` values of `other` from
    /// position `j`: `Some` when the two runs decide it at once (same stride: all equal or
    /// none), `None` when only a value-by-value comparison can tell.
    pub fn same_span(&self, i: usize, other: &Values, j: usize, n: usize) -> Option<bool> {
        if n == 0 {
            return Some(true);
        }
        let (Values::Run { stride: sa, .. }, Values::Run { stride: sb, .. }) = (self, other) else {
            return None;
        };
        let (a, b) = (self.get(i)?, other.get(j)?);
        (n == 1 || sa == sb).then_some(a == b)
    }

    /// Whether the `n` values from position `i` equal the `n` values of `other` from `j`.
    pub fn span_eq(&self, i: usize, other: &Values, j: usize, n: usize) -> bool {
        self.same_span(i, other, j, n).unwrap_or_else(|| (0..n).all(|k| self.get(i + k) == other.get(j + k)))
    }

    /// These values followed by `next`, when together they still form one run.
    pub fn joined(&self, next: &Values) -> Option<Values> {
        let (Values::Run { first, stride, count }, Values::Run { first: nf, stride: ns, count: nc }) =
            (self, next)
        else {
            return None;
        };
        let (_, last) = self.bounds()?;
        let step = if *count > 1 {
            *stride
        } else if *nc > 1 {
            *ns
        } else {
            u32::try_from(nf.checked_sub(last)?).ok()?
        };
        let fits = step > 0 && (*nc == 1 || *ns == step) && last.checked_add(u64::from(step)) == Some(*nf);
        let total = count.checked_add(*nc).filter(|&t| t <= u32::MAX / 2)?;
        fits.then_some(Values::Run { first: *first, stride: step, count: total })
    }

    /// The values in order.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }

    /// The values as a vector.
    pub fn to_vec(&self) -> Vec<u64> {
        self.iter().collect()
    }
}

impl PartialEq<Vec<u64>> for Values {
    fn eq(&self, other: &Vec<u64>) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(a, &b)| a == b)
    }
}

impl FromIterator<u64> for Values {
    fn from_iter<I: IntoIterator<Item = u64>>(iter: I) -> Self {
        Values::from_slice(&iter.into_iter().collect::<Vec<u64>>())
    }
}

impl IntoIterator for Values {
    type Item = u64;
    type IntoIter = std::vec::IntoIter<u64>;
    fn into_iter(self) -> Self::IntoIter {
        self.to_vec().into_iter()
    }
}

/// A producer batch before the leader assigns offsets.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Batch {
    /// Idempotent producer id, `-1` without idempotence.
    pub producer_id: i64,
    /// Sequence of the first record, `-1` without idempotence.
    pub base_sequence: i32,
    /// Record payloads, one per record.
    pub values: Values,
    /// Size of each record in bytes.
    pub record_size: u32,
    /// Largest record timestamp (ms): when the producer created its newest record.
    pub max_timestamp: Ms,
}

impl Batch {
    /// Its size in bytes once written: header plus records.
    pub fn size_bytes(&self) -> u32 {
        RECORD_BATCH_OVERHEAD.saturating_add(self.record_size.saturating_mul(self.values.count()))
    }
}

/// Whether a partition's leader is known to hold all committed data (KIP-704).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum LeaderRecoveryState {
    /// Normal state.
    #[default]
    Recovered,
    /// Set by an unclean election until the new leader's first AlterPartition.
    Recovering,
}

/// A partition's state as the controller stores it and brokers replay it (KRaft
/// `PartitionRegistration`, the seeds' ZooKeeper `state` znode).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PartitionState {
    /// The partition.
    pub tp: TopicPartition,
    /// Its topic's id (KIP-516; KRaft's `PartitionRecord.topicId`): a broker checks its log's
    /// id against it, and its fetches name the partition by it.
    pub topic_id: TopicId,
    /// Assigned replicas in order; position 0 is the preferred leader.
    pub replicas: Vec<BrokerId>,
    /// Committed ISR.
    pub isr: Vec<BrokerId>,
    /// Current leader, `None` when offline.
    pub leader: Option<BrokerId>,
    /// Leader epoch, bumped on every leader change (R6.8).
    pub leader_epoch: Epoch,
    /// Partition epoch, bumped on every change (R6.9).
    pub partition_epoch: Epoch,
    /// KIP-704 recovery state.
    pub leader_recovery: LeaderRecoveryState,
    /// Replicas a reassignment is adding (KIP-455 `addingReplicas`, ascending); they are in
    /// `replicas` and catch up before the reassignment completes. Empty when none runs.
    pub adding: Vec<BrokerId>,
    /// Replicas a reassignment is removing (KIP-455 `removingReplicas`, ascending); they stay
    /// in `replicas` until every target replica is in the ISR. Empty when none runs.
    pub removing: Vec<BrokerId>,
    /// Eligible leader replicas (KIP-966, `PartitionRegistration.elr`, ascending): replicas
    /// that left the ISR while it was below min ISR and so hold every record up to the HW
    /// (R8.2, R8.3). Always empty with `eligible.leader.replicas.version=0`.
    pub elr: Vec<BrokerId>,
    /// `PartitionRegistration.lastKnownElr`: with the controller's default
    /// `useLastKnownLeaderInBalancedRecovery`, the last leader, recorded when the ISR became
    /// empty and cleared once the partition has a leader again (R8.3, R8.4).
    pub last_known_elr: Vec<BrokerId>,
}

impl PartitionState {
    /// A new partition as topic or partition creation registers it
    /// (`ReplicationControlManager.createTopic` / `createPartitions`): leader = the first ISR
    /// member (`None` for an empty ISR), both epochs 0, RECOVERED, no reassignment.
    pub fn created(
        tp: TopicPartition,
        topic_id: TopicId,
        replicas: Vec<BrokerId>,
        isr: Vec<BrokerId>,
    ) -> Self {
        PartitionState {
            tp,
            topic_id,
            replicas,
            leader: isr.first().copied(),
            isr,
            leader_epoch: 0,
            partition_epoch: 0,
            leader_recovery: LeaderRecoveryState::Recovered,
            adding: Vec::new(),
            removing: Vec::new(),
            elr: Vec::new(),
            last_known_elr: Vec::new(),
        }
    }

    /// Whether a reassignment is in progress (`PartitionReassignmentReplicas.
    /// isReassignmentInProgress`: some replica is being added or removed).
    pub fn is_reassigning(&self) -> bool {
        !self.adding.is_empty() || !self.removing.is_empty()
    }
}

/// A broker's registration as the controller publishes it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct BrokerRegistration {
    /// The broker.
    pub id: BrokerId,
    /// Epoch of this registration; changes on every restart.
    pub broker_epoch: i64,
    /// Fenced brokers may not lead or join an ISR.
    pub fenced: bool,
    /// In controlled shutdown: not eligible for leadership or ISR.
    pub in_controlled_shutdown: bool,
}

/// A batch of metadata changes, as a broker replaying `__cluster_metadata` would apply them.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct MetadataDelta {
    /// Changed broker registrations.
    pub brokers: Vec<BrokerRegistration>,
    /// Changed partitions.
    pub partitions: Vec<PartitionState>,
    /// Changed topic configs (topic name, its overrides).
    pub topic_configs: Vec<(Arc<str>, TopicConfig)>,
    /// The cluster-wide dynamic broker config, when it changed (shared: the controller sends
    /// the same delta to every broker, and a config is large next to the other fields).
    pub broker_config: Option<Arc<BrokerConfig>>,
    /// Topics deleted (KRaft `RemoveTopicRecord`): brokers delete their replicas, clients
    /// forget them.
    pub deleted_topics: Vec<Arc<str>>,
    /// The metadata log end offset once these records are in (`__cluster_metadata`); 0 when
    /// the quorum has not stamped it (start-up images).
    pub offset: i64,
}

/// A replica id plus the broker epoch the leader saw in its fetches (KIP-903).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct IsrMember {
    /// Broker id.
    pub id: BrokerId,
    /// Broker epoch seen by the leader, `-1` if unknown.
    pub broker_epoch: i64,
}

/// Epoch and end offset answered for a divergence check (R7.5, R7.6).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct EpochEndOffset {
    /// The largest epoch at or below the requested one, known to the leader.
    pub epoch: Epoch,
    /// Where that epoch ends on the leader.
    pub end_offset: Offset,
}

/// One partition inside a follower's Fetch request (R2.3).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct FetchPartition {
    /// The partition (its name is for events and the follower's own bookkeeping; the leader
    /// finds the partition by `topic_id`).
    pub tp: TopicPartition,
    /// Its topic's id as the fetching replica knows it (Fetch v13+, KIP-516). A consumer's
    /// fetch carries [`TopicId::ZERO`]: it names topics, as Fetch v12 and older do.
    pub topic_id: TopicId,
    /// The leader epoch the follower believes is current (KIP-320).
    pub current_leader_epoch: Epoch,
    /// The follower's LEO.
    pub fetch_offset: Offset,
    /// Epoch of the follower's last record, if any (KIP-595 style divergence check).
    pub last_fetched_epoch: Option<Epoch>,
    /// The follower's log start offset.
    pub log_start_offset: Offset,
}

impl FetchPartition {
    /// The key of this partition in a fetch session (`TopicIdPartition`).
    pub fn key(&self) -> TopicIdPartition {
        TopicIdPartition { topic_id: self.topic_id, partition: self.tp.partition }
    }
}

/// A follower's Fetch request to one leader (one per fetcher loop, R2.5).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct FetchRequest {
    /// Correlation id, echoed in the response.
    pub correlation_id: u64,
    /// The fetching follower, or [`CONSUMER_REPLICA_ID`] for a consumer.
    pub replica: BrokerId,
    /// The follower's broker epoch (Fetch v15).
    pub broker_epoch: i64,
    /// `replica.fetch.wait.max.ms` (a consumer's `fetch.max.wait.ms`).
    pub max_wait_ms: Ms,
    /// `replica.fetch.min.bytes` (a consumer's `fetch.min.bytes`): the leader parks the fetch
    /// until this many bytes are ready or `max_wait_ms` passes (`DelayedFetch.tryComplete`).
    pub min_bytes: u64,
    /// `replica.fetch.max.bytes` per partition (soft: one batch is always returned).
    pub partition_max_bytes: u64,
    /// `replica.fetch.response.max.bytes`.
    pub max_bytes: u64,
    /// Its fetch session id and epoch (KIP-227): a full fetch lists every partition the
    /// fetcher replicates from the leader, an incremental one only those added or changed.
    pub session: FetchMetadata,
    /// The partitions listed.
    pub partitions: Vec<FetchPartition>,
    /// Partitions an incremental fetch drops from its session (`ForgottenTopicsData`, by
    /// topic id since Fetch v13).
    pub forgotten: Vec<TopicIdPartition>,
}

/// Data or an error for one partition of a Fetch response.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct FetchedPartition {
    /// The partition.
    pub tp: TopicPartition,
    /// The topic id the fetch named it by, echoed (Fetch v13+ answers by topic id).
    pub topic_id: TopicId,
    /// Records and watermarks, or the partition-level error.
    pub result: Result<FetchedData, ErrorCode>,
}

impl FetchedPartition {
    /// The key of this partition in a fetch session (`TopicIdPartition`).
    pub fn key(&self) -> TopicIdPartition {
        TopicIdPartition { topic_id: self.topic_id, partition: self.tp.partition }
    }
}

/// What a leader returns for one partition.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct FetchedData {
    /// The leader's HW.
    pub high_watermark: Offset,
    /// The leader's log start offset.
    pub log_start_offset: Offset,
    /// Set when the follower's log diverged; no records come with it (R7.6).
    pub diverging_epoch: Option<EpochEndOffset>,
    /// Batches from the one holding the fetch offset on.
    pub batches: Vec<RecordBatch>,
}

/// A leader's Fetch response.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct FetchResponse {
    /// Echo of the request's correlation id.
    pub correlation_id: u64,
    /// The leader that answered.
    pub leader: BrokerId,
    /// A top-level error: the fetch session was not found or its epoch was wrong (KIP-227);
    /// no partitions come with it.
    pub error: Option<ErrorCode>,
    /// The fetch session the answer belongs to ([`INVALID_SESSION_ID`](super::fetch_session::INVALID_SESSION_ID) when none: a
    /// sessionless fetch, a full cache, or a closed session).
    pub session_id: u32,
    /// Per-partition results: for a full or sessionless fetch every listed partition, for an
    /// incremental one only those with something to say.
    pub partitions: Vec<FetchedPartition>,
}

/// A produce request for one partition.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ProduceRequest {
    /// Correlation id, echoed in the response.
    pub correlation_id: u64,
    /// The sending producer: its index, or a real client's connection from [`WIRE_PRODUCER_BASE`] ([`producer_node`]).
    pub producer: u32,
    /// Target partition.
    pub tp: TopicPartition,
    /// Required acks.
    pub acks: Acks,
    /// Broker-side wait limit for acks=all (producer `request.timeout.ms`).
    pub timeout_ms: Ms,
    /// The records.
    pub batch: Batch,
}

/// The answer to a produce request (never sent for acks=0, R5.2).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ProduceResponse {
    /// Echo of the request's correlation id.
    pub correlation_id: u64,
    /// The partition.
    pub tp: TopicPartition,
    /// Base offset and the leader epoch it was written in, or the error.
    pub result: Result<(Offset, Epoch), ErrorCode>,
    /// Kafka's error message for the error, e.g. the min ISR text of R5.4 (empty on success).
    pub error_message: String,
}

/// Which offset a ListOffsets asks for (Kafka's `ListOffsetsRequest.EARLIEST_TIMESTAMP` and
/// `LATEST_TIMESTAMP`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum OffsetSpec {
    /// The log start offset.
    Earliest,
    /// The last fetchable offset: the HW for READ_UNCOMMITTED.
    Latest,
}

/// A consumer's ListOffsets for one partition.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ListOffsetsRequest {
    /// Correlation id, echoed in the response.
    pub correlation_id: u64,
    /// The partition.
    pub tp: TopicPartition,
    /// The leader epoch the consumer believes is current (KIP-320).
    pub current_leader_epoch: Epoch,
    /// Earliest or latest.
    pub spec: OffsetSpec,
}

/// The answer to a ListOffsets.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ListOffsetsResponse {
    /// Echo of the request's correlation id.
    pub correlation_id: u64,
    /// The partition.
    pub tp: TopicPartition,
    /// The offset and the leader epoch of the answering leader, or the error.
    pub result: Result<(Offset, Epoch), ErrorCode>,
}

/// A consumer's OffsetsForLeaderEpoch for one partition (KIP-320).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct EpochRequest {
    /// Correlation id, echoed in the response.
    pub correlation_id: u64,
    /// The partition.
    pub tp: TopicPartition,
    /// The leader epoch the consumer believes is current, for fencing.
    pub current_leader_epoch: Epoch,
    /// The epoch of the last record the consumer consumed.
    pub leader_epoch: Epoch,
}

/// The answer to an OffsetsForLeaderEpoch.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct EpochResponse {
    /// Echo of the request's correlation id.
    pub correlation_id: u64,
    /// The partition.
    pub tp: TopicPartition,
    /// The largest epoch at or below the asked one and where it ends on the leader (epoch
    /// and offset `-1` when undefined), or the error.
    pub result: Result<EpochEndOffset, ErrorCode>,
}

/// Everything that travels over the simulated network.
#[derive(Clone, PartialEq, Debug)]
pub enum Message {
    /// Broker → controller: register after (re)start; gets a new broker epoch.
    RegisterBroker {
        /// The broker.
        broker: BrokerId,
        /// `BrokerRegistrationRequest.PreviousBrokerEpoch`: the broker epoch its last clean
        /// shutdown wrote to the `.kafka_cleanshutdown` file (`LogManager.shutdown`,
        /// `BrokerLifecycleManager`), `-1` after a crash. The controller treats a mismatch as an
        /// unclean shutdown (KIP-966, R8.3).
        previous_broker_epoch: i64,
    },
    /// Controller → broker: registration accepted, with the full metadata image.
    RegisterBrokerResponse {
        /// The new broker epoch.
        broker_epoch: i64,
        /// Everything the broker must know.
        image: MetadataDelta,
    },
    /// Controller → broker: registration refused, Kafka's `BrokerRegistrationResponse` with an
    /// error code (`DUPLICATE_BROKER_REGISTRATION` while the id's previous incarnation still has
    /// a live session). The broker retries with backoff.
    RegisterBrokerRefused {
        /// Why.
        error: ErrorCode,
    },
    /// Broker → controller, every `broker.heartbeat.interval.ms`.
    Heartbeat {
        /// The broker.
        broker: BrokerId,
        /// Its broker epoch.
        broker_epoch: i64,
        /// Asks for a controlled shutdown.
        want_shutdown: bool,
    },
    /// Controller → broker.
    HeartbeatResponse {
        /// Still fenced.
        fenced: bool,
        /// Controlled shutdown may complete now.
        should_shutdown: bool,
    },
    /// Leader → controller: propose an ISR change (KIP-497).
    AlterPartition {
        /// The proposing leader.
        leader: BrokerId,
        /// Its broker epoch.
        broker_epoch: i64,
        /// The partition.
        tp: TopicPartition,
        /// Leader epoch the proposal is based on.
        leader_epoch: Epoch,
        /// Partition epoch the proposal is based on.
        partition_epoch: Epoch,
        /// The proposed ISR.
        new_isr: Vec<IsrMember>,
        /// KIP-704: the leader has recovered.
        leader_recovery: LeaderRecoveryState,
    },
    /// Controller → leader.
    AlterPartitionResponse {
        /// The partition.
        tp: TopicPartition,
        /// The committed state, or why it was refused (boxed: a partition state is the largest
        /// payload of any message, and every message in flight is as large as its largest
        /// variant).
        result: Box<Result<PartitionState, ErrorCode>>,
    },
    /// Controller → brokers and clients: replayed metadata records.
    Metadata(MetadataDelta),
    /// Follower → leader.
    Fetch(FetchRequest),
    /// Leader → follower.
    FetchResponse(FetchResponse),
    /// Producer → leader.
    Produce(ProduceRequest),
    /// Leader → producer.
    ProduceResponse(ProduceResponse),
    /// Consumer → leader: where a partition starts or ends (Kafka's ListOffsets with
    /// `EARLIEST_TIMESTAMP` or `LATEST_TIMESTAMP`, isolation READ_UNCOMMITTED).
    ListOffsets(ListOffsetsRequest),
    /// Leader → consumer.
    ListOffsetsResponse(ListOffsetsResponse),
    /// Consumer → leader: where an epoch ends (KIP-320 position validation).
    OffsetsForLeaderEpoch(EpochRequest),
    /// Leader → consumer.
    OffsetsForLeaderEpochResponse(EpochResponse),
    /// Client → broker: open a connection (Java `NetworkClient.initiateConnect`). The network
    /// answers it: [`Message::Connected`] while the broker's process runs and accepts
    /// connections, and [`Message::Disconnected`] with correlation id 0 (connection refused)
    /// while it is down or not yet unfenced (`Broker::accepts_connections`).
    Connect,
    /// Network → client: the connection to `peer` is established.
    Connected {
        /// The broker that accepted the connection.
        peer: NodeId,
    },
    /// Network → sender: the peer's process is down: a connection was refused, or an
    /// established one was reset (correlation id 0), or a request was lost with it.
    Disconnected {
        /// The node that could not be reached.
        peer: NodeId,
        /// The correlation id of the lost request (0 when it had none).
        correlation_id: u64,
    },
    /// Consumer → broker: a group RPC (FindCoordinator to any broker, the others to the
    /// group's coordinator).
    Group {
        /// Correlation id, echoed in the response.
        correlation_id: u64,
        /// The request (boxed: group requests are rare and large).
        request: Box<GroupRequest>,
    },
    /// Broker → consumer: the answer to a group RPC.
    GroupResponse {
        /// Echo of the request's correlation id.
        correlation_id: u64,
        /// The answer (boxed, as the request).
        response: Box<GroupResponse>,
    },
    /// Broker → controller: create a topic, as the CreateTopics a broker's
    /// `AutoTopicCreationManager` forwards when a FindCoordinator finds no
    /// `__consumer_offsets`, or a Metadata request that allows it names a missing topic.
    AutoCreateTopic(Box<TopicSpec>),
    /// Client → broker: a `Metadata` request for `topics`, with `allowAutoTopicCreation`
    /// (`MetadataRequest` v4+; a producer's always allows it, a consumer's when
    /// `allow.auto.create.topics` is true). Only what it does for missing topics is modelled:
    /// the partitions and leaders a real answer lists reach the clients as
    /// [`Message::Metadata`].
    TopicMetadata {
        /// Correlation id, echoed in the answer.
        correlation_id: u64,
        /// The topics asked for.
        topics: Vec<Arc<str>>,
        /// `allowAutoTopicCreation`.
        allow_auto_topic_creation: bool,
    },
    /// Broker → client: the per-topic errors of a Metadata answer
    /// (`KafkaApis.handleTopicMetadataRequest`): `LEADER_NOT_AVAILABLE` while a topic is
    /// being created, `UNKNOWN_TOPIC_OR_PARTITION` for a missing topic that is not,
    /// `INVALID_TOPIC_EXCEPTION` for a name Kafka refuses.
    TopicMetadataResponse {
        /// Echo of the request's correlation id.
        correlation_id: u64,
        /// The topics with an error (those that exist have none).
        errors: Vec<(Arc<str>, ErrorCode)>,
    },
    /// Controller ↔ controller: the metadata quorum's RPCs (Vote, BeginQuorumEpoch, Fetch).
    Raft(Box<super::raft::RaftMessage>),
    /// Controller → broker: a new active controller took over in `epoch` (the
    /// `LeaderChangeMessage` record brokers read from the metadata log).
    LeaderChange {
        /// The quorum epoch, which is the new controller epoch.
        epoch: Epoch,
    },
}

/// Bytes every message costs on a link besides its record batches: the 4-byte size prefix,
/// Kafka's request header v2 (api key, api version, correlation id, a short client id such as
/// `broker-1`, tagged fields: about 20 bytes; a response header is 5) and the fixed fields of a
/// small body (topic name, partition, epochs, offsets, error code). 64 bytes is a round figure
/// for that; the record batches dominate whenever data moves.
pub const MESSAGE_OVERHEAD_BYTES: u64 = 64;

/// Extra bytes per partition in a Fetch request or response (topic id, partition index,
/// offsets, epochs, error code: Kafka's `FetchRequest`/`FetchResponse` v13+ per-partition fields).
/// With fetch sessions (KIP-227) only the partitions added or changed, and in responses those
/// with something to say, pay it.
pub const FETCH_PARTITION_BYTES: u64 = 40;

/// Bytes per partition an incremental Fetch request forgets (`ForgottenTopicsData`: topic id
/// and partition index).
pub const FORGOTTEN_PARTITION_BYTES: u64 = 20;

impl Message {
    /// The message's size on the wire in bytes: [`MESSAGE_OVERHEAD_BYTES`], plus
    /// [`FETCH_PARTITION_BYTES`] per partition a Fetch lists or its response carries,
    /// [`FORGOTTEN_PARTITION_BYTES`] per partition a Fetch forgets, plus the record batches it carries
    /// (their `size_bytes`: the 61-byte v2 header and the records). What a link's bandwidth
    /// is charged with.
    pub fn size_bytes(&self) -> u64 {
        let batches = |b: &[RecordBatch]| b.iter().map(|b| u64::from(b.size_bytes)).sum::<u64>();
        MESSAGE_OVERHEAD_BYTES
            + match self {
                Message::Produce(p) => u64::from(p.batch.size_bytes()),
                Message::Fetch(f) => {
                    FETCH_PARTITION_BYTES * f.partitions.len() as u64
                        + FORGOTTEN_PARTITION_BYTES * f.forgotten.len() as u64
                }
                Message::FetchResponse(f) => f
                    .partitions
                    .iter()
                    .map(|p| FETCH_PARTITION_BYTES + p.result.as_ref().map_or(0, |d| batches(&d.batches)))
                    .sum(),
                _ => 0,
            }
    }

    /// The Kafka API the message belongs to (`Fetch`, `Produce`, `BrokerHeartbeat`, ...), for
    /// logs; KRaft metadata records are `Metadata`, a connection handshake `Connect` /
    /// `Connected`, a refused or dropped connection `Disconnected`.
    pub fn api_name(&self) -> &'static str {
        match self {
            Message::RegisterBroker { .. } => "BrokerRegistration",
            Message::RegisterBrokerResponse { .. } | Message::RegisterBrokerRefused { .. } => {
                "BrokerRegistrationResponse"
            }
            Message::Heartbeat { .. } => "BrokerHeartbeat",
            Message::HeartbeatResponse { .. } => "BrokerHeartbeatResponse",
            Message::AlterPartition { .. } => "AlterPartition",
            Message::AlterPartitionResponse { .. } => "AlterPartitionResponse",
            Message::Metadata(_) => "Metadata",
            Message::Fetch(_) => "Fetch",
            Message::FetchResponse(_) => "FetchResponse",
            Message::Produce(_) => "Produce",
            Message::ProduceResponse(_) => "ProduceResponse",
            Message::ListOffsets(_) => "ListOffsets",
            Message::ListOffsetsResponse(_) => "ListOffsetsResponse",
            Message::OffsetsForLeaderEpoch(_) => "OffsetsForLeaderEpoch",
            Message::OffsetsForLeaderEpochResponse(_) => "OffsetsForLeaderEpochResponse",
            Message::Connect => "Connect",
            Message::Connected { .. } => "Connected",
            Message::Disconnected { .. } => "Disconnected",
            Message::Group { request, .. } => request.api_name(),
            Message::GroupResponse { .. } => "GroupResponse",
            Message::AutoCreateTopic(_) => "CreateTopics",
            Message::TopicMetadata { .. } => "Metadata",
            Message::TopicMetadataResponse { .. } => "MetadataResponse",
            Message::Raft(m) => match **m {
                super::raft::RaftMessage::Vote { .. } => "Vote",
                super::raft::RaftMessage::VoteResponse { .. } => "VoteResponse",
                super::raft::RaftMessage::BeginQuorumEpoch { .. } => "BeginQuorumEpoch",
                super::raft::RaftMessage::Fetch { .. } => "Fetch",
                super::raft::RaftMessage::FetchResponse { .. } => "FetchResponse",
            },
            Message::LeaderChange { .. } => "LeaderChange",
        }
    }

    /// The correlation id a response answers, for connection bookkeeping.
    pub fn answers(&self) -> Option<u64> {
        match self {
            Message::FetchResponse(f) => Some(f.correlation_id),
            Message::ProduceResponse(p) => Some(p.correlation_id),
            Message::GroupResponse { correlation_id, .. } => Some(*correlation_id),
            Message::ListOffsetsResponse(r) => Some(r.correlation_id),
            Message::OffsetsForLeaderEpochResponse(r) => Some(r.correlation_id),
            Message::TopicMetadataResponse { correlation_id, .. } => Some(*correlation_id),
            _ => None,
        }
    }

    /// Whether it comes in over a connection its receiver accepted (a handshake, a fetch or
    /// produce request), as opposed to the controller's messages and answers on the
    /// receiver's own connections: a broker that does not listen yet refuses only these.
    pub fn is_inbound(&self) -> bool {
        matches!(
            self,
            Message::Connect
                | Message::Fetch(_)
                | Message::Produce(_)
                | Message::ListOffsets(_)
                | Message::OffsetsForLeaderEpoch(_)
                | Message::Group { .. }
                | Message::TopicMetadata { .. }
        )
    }

    /// The correlation id of a request that expects a response, for bounces.
    pub fn correlation_id(&self) -> Option<u64> {
        match self {
            Message::Fetch(f) => Some(f.correlation_id),
            Message::Produce(p) if p.acks != Acks::Zero => Some(p.correlation_id),
            Message::Group { correlation_id, .. } => Some(*correlation_id),
            Message::ListOffsets(r) => Some(r.correlation_id),
            Message::OffsetsForLeaderEpoch(r) => Some(r.correlation_id),
            Message::TopicMetadata { correlation_id, .. } => Some(*correlation_id),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every message in flight is moved from the outbox to the network, the agenda and the
    /// core, and is as large as the largest variant: rare large payloads stay boxed.
    #[test]
    fn a_message_stays_small() {
        assert!(std::mem::size_of::<Message>() <= 120, "{} bytes", std::mem::size_of::<Message>());
    }
}
