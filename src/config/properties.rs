//! The registry: every property isrlab understands, with Kafka's name, scope, default, bounds
//! and meaning (Kafka's `ConfigDef`s of `KafkaConfig`, `LogConfig`, `ProducerConfig` and
//! `ConsumerConfig`, plus isrlab's own lab properties). Kept in one table so `--set`, the config
//! view, the reference and scenario files can never disagree.

use super::ROUND_ROBIN_PARTITIONER;
use super::registry::{Kind, Property, Scope};

/// Java's `Integer.MAX_VALUE`: the top of every `int` property.
pub(super) const MAX_INT: i64 = i32::MAX as i64;

/// Smallest `segment.bytes` / `log.segment.bytes`: 1 MiB since Kafka 4.0 (KIP-1030).
const SEGMENT_BYTES_MIN: i64 = 1024 * 1024;

/// The Java producer's `buffer.memory` default (bytes): no record can be larger
/// (`KafkaProducer.ensureValidRecordSize`), so it bounds isrlab's `record.size`.
const BUFFER_MEMORY: i64 = 33_554_432;

const fn long(min: i64, max: i64) -> Kind {
    Kind::Long { min, max }
}

/// Every property isrlab understands.
pub static PROPERTIES: &[Property] = &[
    // Rule book R4.1.
    Property {
        name: "replica.lag.time.max.ms",
        scope: Scope::Broker,
        default: "30000",
        kind: long(1, MAX_INT),
        doc: "a follower not caught up for this long leaves the ISR",
    },
    // Rule book R4.4: read only under the profile kafka-0.8 (`isr_lag=time+messages`).
    Property {
        name: "replica.lag.max.messages",
        scope: Scope::Broker,
        default: "4000",
        kind: long(0, i64::MAX),
        doc: "Kafka 0.8 only (removed in 0.9 by KIP-16): a follower more than this many messages behind the leader leaves the ISR; read with isr_lag=time+messages (profile kafka-0.8)",
    },
    // Rule book R2.4.
    Property {
        name: "replica.fetch.wait.max.ms",
        scope: Scope::Broker,
        default: "500",
        kind: long(0, MAX_INT),
        doc: "how long a leader parks an empty follower fetch",
    },
    Property {
        name: "replica.fetch.max.bytes",
        scope: Scope::Broker,
        default: "1048576",
        kind: long(1, MAX_INT),
        doc: "bytes per partition in one follower fetch (soft)",
    },
    Property {
        name: "replica.fetch.response.max.bytes",
        scope: Scope::Broker,
        default: "10485760",
        kind: long(1, MAX_INT),
        doc: "bytes in one follower fetch response",
    },
    Property {
        name: "leader.replication.throttled.rate",
        scope: Scope::Broker,
        default: "9223372036854775807",
        kind: long(0, i64::MAX),
        doc: "bytes/s a leader may send for the replicas in leader.replication.throttled.replicas; once over it, it sends followers outside the ISR nothing for them (ReplicationQuotaManager, KIP-73); Long.MAX_VALUE = unthrottled",
    },
    Property {
        name: "follower.replication.throttled.rate",
        scope: Scope::Broker,
        default: "9223372036854775807",
        kind: long(0, i64::MAX),
        doc: "bytes/s a follower may fetch for the replicas in follower.replication.throttled.replicas; once over it, it leaves them out of its fetches while they are behind the HW (KIP-73); Long.MAX_VALUE = unthrottled",
    },
    Property {
        name: "replication.quota.window.num",
        scope: Scope::Broker,
        default: "11",
        kind: long(1, MAX_INT),
        doc: "samples the replication throttles average their byte rate over (ReplicationQuotaManagerConfig)",
    },
    Property {
        name: "replication.quota.window.size.seconds",
        scope: Scope::Broker,
        default: "1",
        kind: long(1, MAX_INT),
        doc: "length of one replication throttle sample (s)",
    },
    Property {
        name: "replica.fetch.backoff.ms",
        scope: Scope::Broker,
        default: "1000",
        kind: long(0, MAX_INT),
        doc: "pause after a fetch error",
    },
    Property {
        name: "replica.socket.timeout.ms",
        scope: Scope::Broker,
        default: "30000",
        kind: long(1, MAX_INT),
        doc: "a follower fetch with no answer is abandoned after this",
    },
    Property {
        name: "max.incremental.fetch.session.cache.slots",
        scope: Scope::Broker,
        default: "1000",
        kind: long(0, MAX_INT),
        doc: "how many incremental fetch sessions (KIP-227) a leader caches; 0 = every fetch lists every partition",
    },
    // Rule book R3.11.
    Property {
        name: "replica.high.watermark.checkpoint.interval.ms",
        scope: Scope::Broker,
        default: "5000",
        kind: long(1, MAX_INT),
        doc: "how often each broker writes its HWs to disk",
    },
    // Rule book R6.1.
    Property {
        name: "broker.heartbeat.interval.ms",
        scope: Scope::Broker,
        default: "2000",
        kind: long(1, MAX_INT),
        doc: "how often brokers heartbeat the controller",
    },
    // Rule book R6.1.
    Property {
        name: "broker.session.timeout.ms",
        scope: Scope::Broker,
        default: "9000",
        kind: long(1, MAX_INT),
        doc: "the controller fences a broker silent for this long",
    },
    // Rule book R5.4, R3.3.
    Property {
        name: "min.insync.replicas",
        scope: Scope::BrokerAndTopic,
        default: "1",
        kind: long(1, MAX_INT),
        doc: "acks=all needs an ISR at least this big; the HW waits for it too",
    },
    // Rule book R6.5.
    Property {
        name: "unclean.leader.election.enable",
        scope: Scope::BrokerAndTopic,
        default: "false",
        kind: Kind::Bool,
        doc: "let a replica outside the ISR lead when no ISR member is alive",
    },
    // Rule book R6.5.
    Property {
        name: "unclean.leader.election.interval.ms",
        scope: Scope::Broker,
        default: "300000",
        kind: long(1, MAX_INT),
        doc: "how often the controller retries unclean elections",
    },
    // Rule book R8 (KIP-966): a feature level, finalized at format time
    // (`kafka-storage.sh format --feature eligible.leader.replicas.version=0`) and changed with
    // `kafka-features.sh upgrade|downgrade`; `EligibleLeaderReplicasVersion`.
    Property {
        name: "eligible.leader.replicas.version",
        scope: Scope::Broker,
        default: "1",
        kind: long(0, 1),
        doc: "feature level: 1 keeps eligible leader replicas (ELR), 0 turns them off",
    },
    // Rule book R6.7.
    Property {
        name: "auto.leader.rebalance.enable",
        scope: Scope::Broker,
        default: "true",
        kind: Kind::Bool,
        doc: "move leadership back to preferred replicas periodically",
    },
    // Rule book R6.7.
    Property {
        name: "leader.imbalance.check.interval.seconds",
        scope: Scope::Broker,
        default: "300",
        kind: long(1, MAX_INT),
        doc: "how often the controller checks for leader imbalance",
    },
    // `KafkaApis.handleTopicMetadataRequest`, `AutoTopicCreationManager.createTopics`.
    Property {
        name: "auto.create.topics.enable",
        scope: Scope::Broker,
        default: "true",
        kind: Kind::Bool,
        doc: "a Metadata request that allows it (a producer's always does, a consumer's with allow.auto.create.topics) creates a missing topic with num.partitions and default.replication.factor",
    },
    Property {
        name: "num.partitions",
        scope: Scope::Broker,
        default: "1",
        kind: long(1, MAX_INT),
        doc: "partitions of a topic created automatically (auto.create.topics.enable)",
    },
    Property {
        name: "default.replication.factor",
        scope: Scope::Broker,
        default: "1",
        kind: long(1, i16::MAX as i64),
        doc: "replication factor of a topic created automatically; the creation fails while fewer brokers are registered",
    },
    Property {
        name: "offsets.topic.num.partitions",
        scope: Scope::Broker,
        default: "50",
        kind: long(1, MAX_INT),
        doc: "partitions of __consumer_offsets when the first FindCoordinator creates it; a group lives on partition abs(hash(group.id)) % this",
    },
    Property {
        name: "offsets.topic.replication.factor",
        scope: Scope::Broker,
        default: "3",
        kind: long(1, i16::MAX as i64),
        doc: "replication factor of __consumer_offsets; its creation fails (and groups wait) while fewer brokers are registered",
    },
    Property {
        name: "offsets.commit.timeout.ms",
        scope: Scope::Broker,
        default: "5000",
        kind: long(1, MAX_INT),
        doc: "a commit or group write waits this long for the offsets partition's HW, then fails as COORDINATOR_NOT_AVAILABLE",
    },
    Property {
        name: "group.initial.rebalance.delay.ms",
        scope: Scope::Broker,
        default: "3000",
        kind: long(0, MAX_INT),
        doc: "the first rebalance of an empty group waits this long for more members (extended per new member)",
    },
    Property {
        name: "group.min.session.timeout.ms",
        scope: Scope::Broker,
        default: "6000",
        kind: long(0, MAX_INT),
        doc: "smallest session.timeout.ms a consumer may ask for (else INVALID_SESSION_TIMEOUT)",
    },
    Property {
        name: "group.max.session.timeout.ms",
        scope: Scope::Broker,
        default: "1800000",
        kind: long(0, MAX_INT),
        doc: "largest session.timeout.ms a consumer may ask for (else INVALID_SESSION_TIMEOUT)",
    },
    Property {
        name: "log.retention.ms",
        scope: Scope::Broker,
        default: "null",
        kind: long(-1, i64::MAX),
        doc: "broker default of retention.ms; unset, log.retention.hours decides; -1 = keep forever",
    },
    Property {
        name: "log.retention.hours",
        scope: Scope::Broker,
        default: "168",
        kind: long(-1, MAX_INT),
        doc: "broker default of retention.ms in hours (7 days), used when log.retention.ms is unset",
    },
    Property {
        name: "log.retention.bytes",
        scope: Scope::Broker,
        default: "-1",
        kind: long(-1, i64::MAX),
        doc: "broker default of retention.bytes; -1 = no size limit",
    },
    Property {
        name: "log.segment.bytes",
        scope: Scope::Broker,
        default: "1073741824",
        kind: long(SEGMENT_BYTES_MIN, MAX_INT),
        doc: "broker default of segment.bytes (1 GiB; at least 1 MiB since Kafka 4.0, KIP-1030)",
    },
    Property {
        name: "log.roll.ms",
        scope: Scope::Broker,
        default: "null",
        kind: long(1, i64::MAX),
        doc: "broker default of segment.ms; unset, log.roll.hours decides",
    },
    Property {
        name: "log.roll.hours",
        scope: Scope::Broker,
        default: "168",
        kind: long(1, MAX_INT),
        doc: "broker default of segment.ms in hours (7 days), used when log.roll.ms is unset",
    },
    Property {
        name: "log.retention.check.interval.ms",
        scope: Scope::Broker,
        default: "300000",
        kind: long(1, i64::MAX),
        doc: "how often each broker deletes segments past retention (LogManager's kafka-log-retention task)",
    },
    Property {
        name: "log.flush.interval.messages",
        scope: Scope::Broker,
        default: "9223372036854775807",
        kind: long(1, i64::MAX),
        doc: "broker default of flush.messages (ServerLogConfigs: Long.MAX_VALUE, so Kafka never fsyncs by count)",
    },
    Property {
        name: "log.flush.interval.ms",
        scope: Scope::Broker,
        default: "null",
        kind: long(0, i64::MAX),
        doc: "broker default of flush.ms; unset, log.flush.scheduler.interval.ms stands in (KafkaConfig)",
    },
    Property {
        name: "log.flush.scheduler.interval.ms",
        scope: Scope::Broker,
        default: "9223372036854775807",
        kind: long(1, i64::MAX),
        doc: "how often LogManager.flushDirtyLogs checks flush.ms (Long.MAX_VALUE: never)",
    },
    Property {
        name: "os.dirty.expire.ms",
        scope: Scope::Broker,
        default: "30000",
        kind: long(0, i64::MAX),
        doc: "lab (isrlab's, not Kafka's): the OS writes page-cache data back to disk once it is dirty this long (Linux vm.dirty_expire_centisecs=3000)",
    },
    Property {
        name: "os.dirty.writeback.ms",
        scope: Scope::Broker,
        default: "5000",
        kind: long(1, i64::MAX),
        doc: "lab (isrlab's, not Kafka's): how often the OS flusher wakes to write expired dirty data (Linux vm.dirty_writeback_centisecs=500)",
    },
    Property {
        name: "flush.messages",
        scope: Scope::Topic,
        default: "9223372036854775807",
        kind: long(1, i64::MAX),
        doc: "Kafka fsyncs a log once this many records are unflushed (UnifiedLog.append); 1 = fsync every append",
    },
    Property {
        name: "flush.ms",
        scope: Scope::Topic,
        default: "9223372036854775807",
        kind: long(0, i64::MAX),
        doc: "Kafka fsyncs a log not flushed for this long, checked every log.flush.scheduler.interval.ms (LogManager.flushDirtyLogs)",
    },
    Property {
        name: "leader.replication.throttled.replicas",
        scope: Scope::Topic,
        default: "",
        kind: Kind::ReplicaList,
        doc: "replicas whose leader-side traffic leader.replication.throttled.rate limits: `*` or partition:brokerId pairs naming the leader's broker (KIP-73)",
    },
    Property {
        name: "follower.replication.throttled.replicas",
        scope: Scope::Topic,
        default: "",
        kind: Kind::ReplicaList,
        doc: "replicas whose fetches follower.replication.throttled.rate limits: `*` or partition:brokerId pairs naming the follower's broker (KIP-73)",
    },
    Property {
        name: "retention.ms",
        scope: Scope::Topic,
        default: "604800000",
        kind: long(-1, i64::MAX),
        doc: "a closed segment whose newest record is older than this is deleted, once it is below the HW; -1 = keep forever (UnifiedLog.deleteRetentionMsBreachedSegments)",
    },
    Property {
        name: "retention.bytes",
        scope: Scope::Topic,
        default: "-1",
        kind: long(-1, i64::MAX),
        doc: "oldest segments are deleted while the partition's log is larger than this; -1 = no limit (UnifiedLog.deleteRetentionSizeBreachedSegments)",
    },
    Property {
        name: "segment.bytes",
        scope: Scope::Topic,
        default: "1073741824",
        kind: long(SEGMENT_BYTES_MIN, MAX_INT),
        doc: "a log segment is closed (rolled) before it would grow past this; retention deletes whole segments",
    },
    Property {
        name: "segment.ms",
        scope: Scope::Topic,
        default: "604800000",
        kind: long(1, i64::MAX),
        doc: "a log segment is rolled once its records span this long (LogSegment.shouldRoll)",
    },
    Property {
        name: "auto.offset.reset",
        scope: Scope::Consumer,
        default: "latest",
        kind: Kind::Choice(&["earliest", "latest", "none"]),
        doc: "where a consumer without a valid position starts: the log start, the HW, or nowhere (an error)",
    },
    Property {
        name: "enable.auto.commit",
        scope: Scope::Consumer,
        default: "true",
        kind: Kind::Bool,
        doc: "a consumer in a group commits its positions every auto.commit.interval.ms (false without a group)",
    },
    Property {
        name: "auto.commit.interval.ms",
        scope: Scope::Consumer,
        default: "5000",
        kind: long(0, MAX_INT),
        doc: "how often a group consumer commits its positions",
    },
    Property {
        name: "fetch.min.bytes",
        scope: Scope::Consumer,
        default: "1",
        kind: long(0, MAX_INT),
        doc: "the leader parks a consumer fetch until this many bytes are below the HW",
    },
    Property {
        name: "fetch.max.wait.ms",
        scope: Scope::Consumer,
        default: "500",
        kind: long(0, MAX_INT),
        doc: "how long the leader parks a consumer fetch that has fewer than fetch.min.bytes",
    },
    Property {
        name: "max.partition.fetch.bytes",
        scope: Scope::Consumer,
        default: "1048576",
        kind: long(0, MAX_INT),
        doc: "bytes per partition in one consumer fetch (soft: one batch always comes)",
    },
    Property {
        name: "fetch.max.bytes",
        scope: Scope::Consumer,
        default: "52428800",
        kind: long(0, MAX_INT),
        doc: "bytes in one consumer fetch response (soft)",
    },
    // `ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG`, `ConsumerMetadata` (KIP-361).
    Property {
        name: "allow.auto.create.topics",
        scope: Scope::Consumer,
        default: "true",
        kind: Kind::Bool,
        doc: "its Metadata requests let the broker create a subscribed topic that does not exist (when the broker's auto.create.topics.enable is true too)",
    },
    Property {
        name: "max.poll.records",
        scope: Scope::Consumer,
        default: "500",
        kind: long(1, MAX_INT),
        doc: "records one poll() hands the application",
    },
    Property {
        name: "session.timeout.ms",
        scope: Scope::Consumer,
        default: "45000",
        kind: long(1, MAX_INT),
        doc: "a group member not heard from for this long is removed from its group",
    },
    Property {
        name: "heartbeat.interval.ms",
        scope: Scope::Consumer,
        default: "3000",
        kind: long(1, MAX_INT),
        doc: "how often a group member heartbeats its coordinator",
    },
    Property {
        name: "max.poll.interval.ms",
        scope: Scope::Consumer,
        default: "300000",
        kind: long(1, MAX_INT),
        doc: "a group member's rebalance timeout: how long the coordinator waits for it to rejoin",
    },
    Property {
        name: "partition.assignment.strategy",
        scope: Scope::Consumer,
        default: "range,cooperative-sticky",
        kind: Kind::Choice(&["range,cooperative-sticky", "range", "roundrobin", "cooperative-sticky"]),
        doc: "the assignors a group member offers, in order; cooperative-sticky alone runs the cooperative protocol",
    },
    // Rule book R5.2-R5.4.
    Property {
        name: "acks",
        scope: Scope::Producer,
        default: "all",
        kind: Kind::Acks,
        doc: "how many replicas must have a record before the producer hears success",
    },
    // Rule book R5.8.
    Property {
        name: "enable.idempotence",
        scope: Scope::Producer,
        default: "true",
        kind: Kind::Bool,
        doc: "producer id and sequence numbers let the leader drop retried duplicates",
    },
    Property {
        name: "retries",
        scope: Scope::Producer,
        default: "2147483647",
        kind: long(0, MAX_INT),
        doc: "how many times a retriable error is retried",
    },
    Property {
        name: "delivery.timeout.ms",
        scope: Scope::Producer,
        default: "120000",
        kind: long(1, MAX_INT),
        doc: "a record not acknowledged within this fails with a TimeoutException",
    },
    // Rule book R5.4.
    Property {
        name: "request.timeout.ms",
        scope: Scope::Producer,
        default: "30000",
        kind: long(1, MAX_INT),
        doc: "how long the leader may park an acks=all request",
    },
    Property {
        name: "retry.backoff.ms",
        scope: Scope::Producer,
        default: "100",
        kind: long(0, MAX_INT),
        doc: "first wait before a retry",
    },
    Property {
        name: "retry.backoff.max.ms",
        scope: Scope::Producer,
        default: "1000",
        kind: long(0, MAX_INT),
        doc: "longest wait before a retry (exponential backoff)",
    },
    Property {
        name: "reconnect.backoff.ms",
        scope: Scope::Producer,
        default: "50",
        kind: long(0, MAX_INT),
        doc: "first wait before reconnecting to a broker after a failed or lost connection",
    },
    Property {
        name: "reconnect.backoff.max.ms",
        scope: Scope::Producer,
        default: "1000",
        kind: long(0, MAX_INT),
        doc: "longest wait before reconnecting to a broker (exponential backoff)",
    },
    Property {
        name: "socket.connection.setup.timeout.ms",
        scope: Scope::Producer,
        default: "10000",
        kind: long(1, MAX_INT),
        doc: "a connection attempt with no answer is given up after this (first attempt)",
    },
    Property {
        name: "socket.connection.setup.timeout.max.ms",
        scope: Scope::Producer,
        default: "30000",
        kind: long(1, MAX_INT),
        doc: "longest connection setup timeout (it doubles per failed attempt)",
    },
    Property {
        name: "max.in.flight.requests.per.connection",
        scope: Scope::Producer,
        default: "5",
        kind: long(1, MAX_INT),
        doc: "requests a producer may have unanswered per broker; above 1 without idempotence a retry can land after later batches (reordering); the idempotent producer allows at most 5",
    },
    Property {
        name: "linger.ms",
        scope: Scope::Producer,
        default: "5",
        kind: long(0, MAX_INT),
        doc: "how long records wait to fill a batch",
    },
    Property {
        name: "batch.size",
        scope: Scope::Producer,
        default: "16384",
        kind: long(1, MAX_INT),
        doc: "bytes in one producer batch",
    },
    Property {
        name: "partitioner.class",
        scope: Scope::Producer,
        default: "null",
        kind: Kind::Class(&[ROUND_ROBIN_PARTITIONER, "RoundRobinPartitioner"]),
        doc: "null: the built-in partitioner (keys by murmur2 hash, keyless records sticky, KIP-794); RoundRobinPartitioner: each record to the next partition with a leader, keys ignored",
    },
    Property {
        name: "partitioner.ignore.keys",
        scope: Scope::Producer,
        default: "false",
        kind: Kind::Bool,
        doc: "true: the built-in partitioner treats keyed records as keyless (sticky); no effect with a partitioner.class",
    },
    Property {
        name: "partitioner.adaptive.partitioning.enable",
        scope: Scope::Producer,
        default: "true",
        kind: Kind::Bool,
        doc: "keyless records switch to partitions with shorter queues more often (KIP-794); false: uniformly at random; no effect with a partitioner.class",
    },
    Property {
        name: "partitioner.availability.timeout.ms",
        scope: Scope::Producer,
        default: "0",
        kind: long(0, i64::MAX),
        doc: "a leader that had batches ready but could not take them for this long is skipped by keyless records (0 = never); needs adaptive partitioning",
    },
    Property {
        name: "max.request.size",
        scope: Scope::Producer,
        default: "1048576",
        kind: long(0, MAX_INT),
        doc: "bytes in one produce request; a record that cannot fit in one (with its batch header) fails with RecordTooLargeException (KafkaProducer.ensureValidRecordSize)",
    },
    Property {
        name: "record.size",
        scope: Scope::Producer,
        default: "100",
        kind: long(1, BUFFER_MEMORY),
        doc: "isrlab: bytes of every record in a batch (key, value, headers, framing); a batch is 61 bytes of header plus its records, and replication moves those bytes. 100 as in Kafka's own benchmarks; at most buffer.memory (33554432); above max.request.size every record fails",
    },
    Property {
        name: "rate",
        scope: Scope::Producer,
        default: "100",
        kind: Kind::Rate,
        doc: "isrlab: records per second the producer sends (0 = only `produce` commands)",
    },
    Property {
        name: "net.latency.ms",
        scope: Scope::Lab,
        default: "0.25",
        kind: Kind::Decimal { min: 0, max: 60_000 },
        doc: "lab: one-way latency of a link (ms, µs resolution); 0.25 is half a typical data-centre round trip",
    },
    Property {
        name: "net.jitter.ms",
        scope: Scope::Lab,
        default: "0.02",
        kind: Kind::Decimal { min: 0, max: 60_000 },
        doc: "lab: most random delay added to each message on a link (ms, uniform, seeded per link)",
    },
    Property {
        name: "net.bandwidth.mbps",
        scope: Scope::Lab,
        default: "1000",
        kind: Kind::Decimal { min: 0, max: 1_000_000 },
        // 0 is refused by NetConfig::set: a link always moves data.
        doc: "lab: link bandwidth (Mbit/s); a message takes its size divided by this to go out, queued behind the link's earlier messages",
    },
    Property {
        name: "broker.request.handle.ms",
        scope: Scope::Lab,
        default: "0.5",
        kind: Kind::Decimal { min: 0, max: 60_000 },
        doc: "lab: time a broker's request handler thread takes on one produce or fetch request (ms, µs resolution); requests on one connection are handled one after another, on up to num.io.threads (8) threads",
    },
    Property {
        name: "broker.fetch.process.ms",
        scope: Scope::Lab,
        default: "1",
        kind: Kind::Decimal { min: 0, max: 60_000 },
        doc: "lab: time a follower's fetcher thread takes on one fetch response (validate, append) before it sends its next fetch (ms, µs resolution)",
    },
];
