//! Typed Kafka configuration with one registry of properties (name, scope, default, meaning,
//! validator). The registry serves `--set`, the `set` command and scenario `config` tables.
//! Defaults are Kafka 4.x's (rule book §11).

use crate::kafka::{Acks, BrokerId, Ms};
use std::collections::BTreeMap;
use std::fmt;

pub mod consumer;
mod current;
pub mod lab;
pub mod semantics;
pub mod throttle;
pub mod warnings;

pub use consumer::{AutoOffsetReset, ConsumerConfig};
pub use lab::{HandlingConfig, LabConfig};
pub use semantics::Semantics;
pub use throttle::{BrokerThrottleRates, ThrottledReplicas, with_partition};

/// Where a property can be set.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Scope {
    /// Cluster-wide broker default (`kafka-configs.sh --entity-default --entity-type brokers`).
    Broker,
    /// Broker default that a topic may override (`--entity-type topics`).
    BrokerAndTopic,
    /// Topic property whose broker default has another name (`retention.ms` and
    /// `log.retention.ms`, Kafka's `ServerTopicConfigSynonyms`).
    Topic,
    /// Producer client property.
    Producer,
    /// Consumer client property (Kafka's `ConsumerConfig`).
    Consumer,
    /// isrlab's lab property, not Kafka's: the simulated world, the network (`net.*`) and the
    /// brokers' processing times (`broker.request.handle.ms`, `broker.fetch.process.ms`).
    Lab,
}

impl Scope {
    /// Every scope, in the order the reference lists them.
    pub const ALL: [Scope; 6] =
        [Scope::Broker, Scope::BrokerAndTopic, Scope::Topic, Scope::Producer, Scope::Consumer, Scope::Lab];

    /// The scope in one word, as the config view writes it: `broker`, `broker+topic`, ...
    pub fn name(self) -> &'static str {
        match self {
            Scope::Broker => "broker",
            Scope::BrokerAndTopic => "broker+topic",
            Scope::Topic => "topic",
            Scope::Producer => "producer",
            Scope::Consumer => "consumer",
            Scope::Lab => "lab",
        }
    }

    /// Where a property of this scope is set, in a sentence.
    pub fn about(self) -> &'static str {
        match self {
            Scope::Broker => {
                "Broker properties, cluster-wide (as `kafka-configs.sh --entity-type brokers --entity-default` sets them): `--set`, `set KEY=VALUE`, a scenario's `[cluster.config]`; `set broker B KEY=VALUE` sets one broker's own value."
            }
            Scope::BrokerAndTopic => {
                "Broker defaults a topic may override under the same name: `--set` and `set KEY=VALUE` set the default, `set topic T KEY=VALUE` and a scenario's `[topic.config]` the topic's own value."
            }
            Scope::Topic => {
                "Topic properties whose broker default has another name (`retention.ms` and `log.retention.ms`): `set topic T KEY=VALUE`, a scenario's `[topic.config]`."
            }
            Scope::Producer => {
                "Producer client properties: `--set`, `set producer [P] KEY=VALUE`, a scenario's `[[producer]]` tables."
            }
            Scope::Consumer => {
                "Consumer client properties: `add-consumer T KEY=VALUE…`, a scenario's `[[consumer]]` tables, or `--set` for every consumer a scenario starts with."
            }
            Scope::Lab => {
                "isrlab's own properties, not Kafka's: the simulated network (`net.*`: `--set` and `set KEY=VALUE` for every link, `set link A B` for one) and the brokers' processing times (`set broker B` for one broker)."
            }
        }
    }
}

/// The value type and bounds of a property.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// An integer within inclusive bounds.
    Long {
        /// Smallest allowed value.
        min: i64,
        /// Largest allowed value.
        max: i64,
    },
    /// `true` or `false`.
    Bool,
    /// `0`, `1`, `all` or `-1`.
    Acks,
    /// A non-negative decimal number (records per second).
    Rate,
    /// A decimal number from `min` to `max` (a lab property in ms or Mbit/s).
    Decimal {
        /// Smallest allowed value.
        min: i64,
        /// Largest allowed value.
        max: i64,
    },
    /// `*` or a list of `partition:brokerId` pairs ([`ThrottledReplicas`]).
    ReplicaList,
    /// One of a fixed set of words (`auto.offset.reset`: `earliest`, `latest`, `none`).
    Choice(&'static [&'static str]),
    /// A Java class name from a fixed set, or empty / `null` for none (Kafka's `Type.CLASS`
    /// with a `null` default, e.g. `partitioner.class`).
    Class(&'static [&'static str]),
}

impl Kind {
    /// The values it accepts, in words: `an integer from 1 to 2147483647`, `true or false`.
    pub fn accepts(self) -> String {
        match self {
            Kind::Long { min, max } => format!("an integer from {min} to {max}"),
            Kind::Bool => "true or false".into(),
            Kind::Acks => "0, 1, all or -1".into(),
            Kind::Rate => "a number of records per second from 0 to 100000".into(),
            Kind::Decimal { min, max } => format!("a number from {min} to {max}"),
            Kind::ReplicaList => {
                "`*` (every replica) or a list of PARTITION:BROKER pairs, e.g. 0:1,1:2".into()
            }
            Kind::Choice(words) => words.join(", "),
            Kind::Class(names) => format!("{}, or empty or null for none", names.join(" or ")),
        }
    }
}

/// One configuration property known to isrlab.
#[derive(Debug)]
pub struct Property {
    /// Kafka's property name, e.g. `min.insync.replicas`.
    pub name: &'static str,
    /// Where it can be set.
    pub scope: Scope,
    /// Kafka's default, as text.
    pub default: &'static str,
    /// Value type and bounds.
    pub kind: Kind,
    /// What it means, in plain words.
    pub doc: &'static str,
}

const MAX_INT: i64 = i32::MAX as i64;

/// Smallest `segment.bytes` / `log.segment.bytes`: 1 MiB since Kafka 4.0 (KIP-1030).
const SEGMENT_BYTES_MIN: i64 = 1024 * 1024;

/// The Java producer's `buffer.memory` default (bytes): no record can be larger
/// (`KafkaProducer.ensureValidRecordSize`), so it bounds isrlab's `record.size`.
const BUFFER_MEMORY: i64 = 33_554_432;

/// ms per hour, for the `*.hours` properties.
const MS_PER_HOUR: i64 = 3_600_000;

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
        doc: "brokers heartbeat the KRaft controller this often",
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
        doc: "how often the KRaft controller retries unclean elections",
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

/// A configuration mistake, with what was expected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// No property has that name.
    #[error("unknown property `{name}`{}", suggest(.suggestions))]
    Unknown {
        /// What was given.
        name: String,
        /// Known names close to it.
        suggestions: Vec<&'static str>,
    },
    /// The value does not fit the property.
    #[error("invalid value `{value}` for `{name}`: expected {expected}")]
    InvalidValue {
        /// Property name.
        name: &'static str,
        /// What was given.
        value: String,
        /// What would be accepted.
        expected: String,
    },
    /// Two properties contradict each other; Kafka refuses the combination.
    #[error("{0}")]
    Conflict(String),
    /// The property exists but not at this level.
    #[error("`{name}` is a {actual} property and cannot be set {wanted}")]
    WrongScope {
        /// Property name.
        name: &'static str,
        /// Where it lives.
        actual: &'static str,
        /// Where the user tried to set it.
        wanted: &'static str,
    },
}

fn suggest(s: &[&'static str]) -> String {
    if s.is_empty() {
        String::new()
    } else {
        format!("; did you mean {}?", s.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(" or "))
    }
}

/// A parsed property value.
#[derive(Clone, PartialEq, Debug)]
pub enum Value {
    /// An integer.
    Long(i64),
    /// A boolean.
    Bool(bool),
    /// An acks setting.
    Acks(Acks),
    /// A rate in records per second.
    Rate(f64),
    /// A decimal lab value (ms or Mbit/s).
    Decimal(f64),
    /// A list of throttled replicas.
    Replicas(ThrottledReplicas),
    /// One of a [`Kind::Choice`]'s words.
    Choice(&'static str),
    /// One of a [`Kind::Class`]'s class names, `None` when unset (empty or `null`).
    Class(Option<&'static str>),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Long(v) => write!(f, "{v}"),
            Value::Bool(v) => write!(f, "{v}"),
            Value::Acks(v) => write!(f, "{v}"),
            Value::Rate(v) | Value::Decimal(v) => write!(f, "{v}"),
            Value::Replicas(v) => write!(f, "{v}"),
            Value::Choice(v) => f.write_str(v),
            Value::Class(v) => f.write_str(v.unwrap_or("null")),
        }
    }
}

/// How a changed value reaches the processes that use it (Kafka's dynamic update modes).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum UpdateMode {
    /// Applied by every broker at once, through the metadata log (`kafka-configs.sh --alter`).
    Dynamic,
    /// Read from `server.properties` when a broker starts: it takes effect on each broker at
    /// its next start.
    BrokerRestart,
    /// Read from `server.properties` when the controller starts.
    ControllerRestart,
    /// A client property: the producer uses it for the batches it makes next.
    Client,
}

impl UpdateMode {
    /// Every mode, in the order the reference explains them.
    pub const ALL: [UpdateMode; 4] =
        [UpdateMode::Dynamic, UpdateMode::BrokerRestart, UpdateMode::ControllerRestart, UpdateMode::Client];

    /// The mode in a word or two, as the config view's column writes it.
    pub fn name(self) -> &'static str {
        match self {
            UpdateMode::Dynamic => "dynamic",
            UpdateMode::BrokerRestart => "static",
            UpdateMode::ControllerRestart => "static (ctrl)",
            UpdateMode::Client => "client",
        }
    }

    /// How a change takes effect, in a few words.
    pub fn meaning(self) -> &'static str {
        match self {
            UpdateMode::Dynamic => "changes at once",
            UpdateMode::BrokerRestart => "static: each broker takes it at its next start (:roll)",
            UpdateMode::ControllerRestart => "static: the controller takes it at its next start",
            UpdateMode::Client => "the producer uses it for its next batches",
        }
    }
}

impl Property {
    /// How a change of this property takes effect, in a few words: its [`UpdateMode`]'s
    /// meaning, except that a consumer reads its properties when it starts.
    pub fn takes_effect(&self) -> &'static str {
        match (self.update_mode(), self.scope) {
            (UpdateMode::Client, Scope::Consumer) => "a consumer reads it when it starts",
            (mode, _) => mode.meaning(),
        }
    }
}

/// Broker-scope properties the KRaft controller reads (its `QuorumController` and
/// `BrokerHeartbeatManager` take them from the controller's own `KafkaConfig` at start).
const READ_BY_CONTROLLER: &[&str] = &[
    "broker.session.timeout.ms",
    "unclean.leader.election.interval.ms",
    "auto.leader.rebalance.enable",
    "leader.imbalance.check.interval.seconds",
];

/// Broker properties Kafka applies through its broker quota configs (`QuotaConfig`, read by
/// `BrokerConfigHandler.processConfigChanges` into the `ReplicationQuotaManager`s), so dynamic.
const DYNAMIC_QUOTA_CONFIGS: &[&str] =
    &["leader.replication.throttled.rate", "follower.replication.throttled.rate"];

/// Broker defaults of topic properties that are their topic property's first server synonym
/// (`ServerTopicConfigSynonyms.TOPIC_CONFIG_SYNONYMS`), so dynamic (`DynamicLogConfig`).
const DYNAMIC_LOG_DEFAULTS: &[&str] = &[
    "log.retention.ms",
    "log.retention.bytes",
    "log.segment.bytes",
    "log.roll.ms",
    "log.flush.interval.messages",
    "log.flush.interval.ms",
];

impl Property {
    /// How a change of this property takes effect. In Kafka 4.x only the properties in
    /// `DynamicBrokerConfig.AllDynamicConfigs` change without a restart; of isrlab's broker
    /// properties those are the topic-config synonyms (`DynamicLogConfig.ReconfigurableConfigs`
    /// = `ServerTopicConfigSynonyms.TOPIC_CONFIG_SYNONYMS`): `min.insync.replicas` and
    /// `unclean.leader.election.enable` (the [`Scope::BrokerAndTopic`] ones), and
    /// `log.retention.ms`, `log.retention.bytes`, `log.segment.bytes` and `log.roll.ms`; topic
    /// overrides are always dynamic. Every `replica.*`, `broker.*` and controller property
    /// here is static, as are `log.retention.hours`, `log.roll.hours` and
    /// `log.retention.check.interval.ms` (none is in
    /// `DynamicReplicationConfig.RECONFIGURABLE_CONFIGS`, which holds only
    /// `follower.fetch.last.tiered.offset.enable`), and `AlterConfigs` refuses them with
    /// "Cannot update these configs dynamically" (`DynamicBrokerConfig.validateConfigs`).
    pub fn update_mode(&self) -> UpdateMode {
        match self.scope {
            Scope::Producer | Scope::Consumer => UpdateMode::Client,
            // A lab property changes the simulated world at once.
            Scope::BrokerAndTopic | Scope::Topic | Scope::Lab => UpdateMode::Dynamic,
            Scope::Broker if DYNAMIC_LOG_DEFAULTS.contains(&self.name) => UpdateMode::Dynamic,
            Scope::Broker if DYNAMIC_QUOTA_CONFIGS.contains(&self.name) => UpdateMode::Dynamic,
            Scope::Broker if READ_BY_CONTROLLER.contains(&self.name) => UpdateMode::ControllerRestart,
            Scope::Broker => UpdateMode::BrokerRestart,
        }
    }
}

/// Finds a property by name. Errors: [`ConfigError::Unknown`] with close matches.
pub fn lookup(name: &str) -> Result<&'static Property, ConfigError> {
    if let Some(p) = PROPERTIES.iter().find(|p| p.name == name) {
        return Ok(p);
    }
    let close = crate::suggest::closest(name, PROPERTIES.iter().map(|p| (p.name, p.name)));
    Err(ConfigError::Unknown { name: name.to_string(), suggestions: close.into_iter().take(3).collect() })
}

impl Property {
    /// Parses `text` as this property's value. Errors: [`ConfigError::InvalidValue`].
    pub fn parse(&'static self, text: &str) -> Result<Value, ConfigError> {
        let text = text.trim();
        let bad = |expected: String| ConfigError::InvalidValue {
            name: self.name,
            value: text.to_string(),
            expected,
        };
        match self.kind {
            Kind::Long { min, max } => match text.parse::<i64>() {
                Ok(v) if (min..=max).contains(&v) => Ok(Value::Long(v)),
                _ => Err(bad(self.kind.accepts())),
            },
            Kind::Bool => match text {
                "true" => Ok(Value::Bool(true)),
                "false" => Ok(Value::Bool(false)),
                _ => Err(bad(self.kind.accepts())),
            },
            Kind::Acks => match text {
                "0" => Ok(Value::Acks(Acks::Zero)),
                "1" => Ok(Value::Acks(Acks::One)),
                "all" | "-1" => Ok(Value::Acks(Acks::All)),
                _ => Err(bad(self.kind.accepts())),
            },
            Kind::Rate => match text.parse::<f64>() {
                Ok(v) if v.is_finite() && (0.0..=100_000.0).contains(&v) => Ok(Value::Rate(v)),
                _ => Err(bad(self.kind.accepts())),
            },
            Kind::Decimal { min, max } => match text.parse::<f64>() {
                Ok(v) if v.is_finite() && (min as f64..=max as f64).contains(&v) => Ok(Value::Decimal(v)),
                _ => Err(bad(self.kind.accepts())),
            },
            Kind::ReplicaList => ThrottledReplicas::parse(text).map(Value::Replicas).map_err(bad),
            Kind::Choice(words) => match words.iter().find(|w| **w == text) {
                Some(w) => Ok(Value::Choice(w)),
                None => Err(bad(self.kind.accepts())),
            },
            Kind::Class(names) => match names.iter().find(|n| **n == text) {
                _ if text.is_empty() || text == "null" => Ok(Value::Class(None)),
                Some(n) => Ok(Value::Class(Some(n))),
                None => Err(bad(class_not_found(text, names))),
            },
        }
    }
}

/// What a [`Kind::Class`] property accepts, after Kafka's own words for a class it cannot load
/// (`ConfigDef.parseType`: "Class X could not be found."). The partitioners Kafka 4.0 removed
/// (KAFKA-18262) get a pointer to what replaced them.
fn class_not_found(text: &str, names: &[&str]) -> String {
    let removed = ["DefaultPartitioner", "UniformStickyPartitioner"];
    let hint = match removed.iter().find(|r| text.ends_with(*r)) {
        Some(r) => format!(
            " ({r} was removed in Kafka 4.0, KAFKA-18262: leave partitioner.class empty for the built-in partitioner{})",
            if *r == "UniformStickyPartitioner" { " and set partitioner.ignore.keys=true" } else { "" }
        ),
        None => String::new(),
    };
    format!(
        "{}, or empty or null for the built-in partitioner; Class {text} could not be found{hint}",
        names.join(" or ")
    )
}

pub(crate) fn scope_error(p: &'static Property, wanted: &'static str) -> ConfigError {
    let actual = match p.scope {
        Scope::Broker => "broker",
        Scope::BrokerAndTopic => "broker/topic",
        Scope::Topic => "topic",
        Scope::Producer => "producer",
        Scope::Consumer => "consumer",
        Scope::Lab => "lab",
    };
    ConfigError::WrongScope { name: p.name, actual, wanted }
}

fn as_u64(v: Value) -> u64 {
    match v {
        Value::Long(n) => n.max(0) as u64,
        _ => 0,
    }
}

fn as_i64(v: Value) -> i64 {
    match v {
        Value::Long(n) => n,
        _ => 0,
    }
}

fn as_bool(v: Value) -> bool {
    matches!(v, Value::Bool(true))
}

/// A throttled-replica list to store: `None` for the empty list (the default).
fn as_replicas(v: Value) -> Option<ThrottledReplicas> {
    match v {
        Value::Replicas(r) if !r.is_empty() => Some(r),
        _ => None,
    }
}

/// Cluster-wide broker configuration (all brokers share it, as with `--entity-default`).
#[derive(Clone, PartialEq, Debug)]
pub struct BrokerConfig {
    /// `replica.lag.time.max.ms` (ms).
    pub replica_lag_time_max_ms: Ms,
    /// `replica.fetch.wait.max.ms` (ms).
    pub replica_fetch_wait_max_ms: Ms,
    /// `replica.fetch.max.bytes` (bytes).
    pub replica_fetch_max_bytes: u64,
    /// `replica.fetch.response.max.bytes` (bytes).
    pub replica_fetch_response_max_bytes: u64,
    /// `leader.replication.throttled.rate` (bytes/s; `i64::MAX` = unthrottled).
    pub leader_replication_throttled_rate: u64,
    /// `follower.replication.throttled.rate` (bytes/s; `i64::MAX` = unthrottled).
    pub follower_replication_throttled_rate: u64,
    /// Per-broker `leader/follower.replication.throttled.rate` (`set broker B ...`), over
    /// the two cluster-wide values above.
    pub throttle_rates_by_broker: BTreeMap<BrokerId, BrokerThrottleRates>,
    /// Every other property set for one broker (`set broker B KEY=VALUE`, `kafka-configs.sh
    /// --entity-type brokers --entity-name B`), as (name, value text) in the order set, one
    /// entry per name; [`BrokerConfig::for_broker`] applies them over the cluster-wide values.
    pub overrides_by_broker: BTreeMap<BrokerId, Vec<(&'static str, String)>>,
    /// `replication.quota.window.num` (samples).
    pub replication_quota_window_num: u32,
    /// `replication.quota.window.size.seconds` (s).
    pub replication_quota_window_size_seconds: u64,
    /// `replica.fetch.backoff.ms` (ms).
    pub replica_fetch_backoff_ms: Ms,
    /// `replica.socket.timeout.ms` (ms).
    pub replica_socket_timeout_ms: Ms,
    /// `max.incremental.fetch.session.cache.slots` (sessions): how many incremental fetch
    /// sessions (KIP-227) each broker caches (`FetchSessionCache`).
    pub max_incremental_fetch_session_cache_slots: u32,
    /// `replica.high.watermark.checkpoint.interval.ms` (ms).
    pub replica_high_watermark_checkpoint_interval_ms: Ms,
    /// `broker.heartbeat.interval.ms` (ms).
    pub broker_heartbeat_interval_ms: Ms,
    /// `broker.session.timeout.ms` (ms).
    pub broker_session_timeout_ms: Ms,
    /// `min.insync.replicas` broker default (replicas).
    pub min_insync_replicas: u32,
    /// `unclean.leader.election.enable` broker default.
    pub unclean_leader_election_enable: bool,
    /// `unclean.leader.election.interval.ms` (ms).
    pub unclean_leader_election_interval_ms: Ms,
    /// `auto.leader.rebalance.enable`.
    pub auto_leader_rebalance_enable: bool,
    /// `leader.imbalance.check.interval.seconds` (s).
    pub leader_imbalance_check_interval_seconds: u64,
    /// `offsets.topic.num.partitions` (partitions).
    pub offsets_topic_num_partitions: u32,
    /// `offsets.topic.replication.factor` (replicas).
    pub offsets_topic_replication_factor: u32,
    /// `offsets.commit.timeout.ms` (ms).
    pub offsets_commit_timeout_ms: Ms,
    /// `group.initial.rebalance.delay.ms` (ms).
    pub group_initial_rebalance_delay_ms: Ms,
    /// `group.min.session.timeout.ms` (ms).
    pub group_min_session_timeout_ms: Ms,
    /// `group.max.session.timeout.ms` (ms).
    pub group_max_session_timeout_ms: Ms,
    /// `log.retention.ms` (ms), `None` = unset.
    pub log_retention_ms: Option<i64>,
    /// `log.retention.hours` (h).
    pub log_retention_hours: i64,
    /// `log.retention.bytes` (bytes, -1 = no limit).
    pub log_retention_bytes: i64,
    /// `log.segment.bytes` (bytes).
    pub log_segment_bytes: u64,
    /// `log.roll.ms` (ms), `None` = unset.
    pub log_roll_ms: Option<i64>,
    /// `log.roll.hours` (h).
    pub log_roll_hours: i64,
    /// `log.retention.check.interval.ms` (ms).
    pub log_retention_check_interval_ms: Ms,
    /// `log.flush.interval.messages` (records).
    pub log_flush_interval_messages: u64,
    /// `log.flush.interval.ms` (ms), `None` = unset.
    pub log_flush_interval_ms: Option<u64>,
    /// `log.flush.scheduler.interval.ms` (ms).
    pub log_flush_scheduler_interval_ms: Ms,
    /// `os.dirty.expire.ms` (ms), a lab property: the operating system's
    /// `vm.dirty_expire_centisecs`.
    pub os_dirty_expire_ms: Ms,
    /// `os.dirty.writeback.ms` (ms), a lab property: the operating system's
    /// `vm.dirty_writeback_centisecs`.
    pub os_dirty_writeback_ms: Ms,
    /// The Kafka version's replication rules every broker and the controller follow (not a
    /// Kafka property: the release the cluster runs).
    pub semantics: Semantics,
}

impl Default for BrokerConfig {
    fn default() -> Self {
        Self {
            replica_lag_time_max_ms: 30_000,
            replica_fetch_wait_max_ms: 500,
            replica_fetch_max_bytes: 1_048_576,
            replica_fetch_response_max_bytes: 10_485_760,
            leader_replication_throttled_rate: i64::MAX as u64,
            follower_replication_throttled_rate: i64::MAX as u64,
            throttle_rates_by_broker: BTreeMap::new(),
            overrides_by_broker: BTreeMap::new(),
            replication_quota_window_num: 11,
            replication_quota_window_size_seconds: 1,
            replica_fetch_backoff_ms: 1000,
            replica_socket_timeout_ms: 30_000,
            max_incremental_fetch_session_cache_slots: 1000,
            replica_high_watermark_checkpoint_interval_ms: 5000,
            broker_heartbeat_interval_ms: 2000,
            broker_session_timeout_ms: 9000,
            min_insync_replicas: 1,
            unclean_leader_election_enable: false,
            unclean_leader_election_interval_ms: 300_000,
            auto_leader_rebalance_enable: true,
            leader_imbalance_check_interval_seconds: 300,
            offsets_topic_num_partitions: 50,
            offsets_topic_replication_factor: 3,
            offsets_commit_timeout_ms: 5000,
            group_initial_rebalance_delay_ms: 3000,
            group_min_session_timeout_ms: 6000,
            group_max_session_timeout_ms: 1_800_000,
            log_retention_ms: None,
            log_retention_hours: 168,
            log_retention_bytes: -1,
            log_segment_bytes: 1 << 30,
            log_roll_ms: None,
            log_roll_hours: 168,
            log_retention_check_interval_ms: 300_000,
            log_flush_interval_messages: i64::MAX as u64,
            log_flush_interval_ms: None,
            log_flush_scheduler_interval_ms: i64::MAX as u64,
            os_dirty_expire_ms: 30_000,
            os_dirty_writeback_ms: 5_000,
            semantics: Semantics::CURRENT,
        }
    }
}

impl BrokerConfig {
    /// Checks the combinations Kafka's `KafkaConfig` refuses at start-up, and that the semantics
    /// asks only for what isrlab models (no ELR yet). Errors: [`ConfigError::Conflict`] with
    /// Kafka's message.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.semantics.eligible_leader_replicas {
            return Err(ConfigError::Conflict(
                "eligible.leader.replicas.version=1 (KIP-966 ELR) is not modelled yet: the cluster runs with ELR off".into(),
            ));
        }
        if self.replica_fetch_wait_max_ms > self.replica_socket_timeout_ms {
            return Err(ConfigError::Conflict(
                "replica.socket.timeout.ms should always be at least replica.fetch.wait.max.ms to prevent unnecessary socket timeouts".into(),
            ));
        }
        if self.replica_fetch_wait_max_ms > self.replica_lag_time_max_ms {
            return Err(ConfigError::Conflict(
                "replica.fetch.wait.max.ms should always be less than or equal to replica.lag.time.max.ms to prevent frequent changes in ISR".into(),
            ));
        }
        Ok(())
    }

    /// The broker default of `retention.ms` (ms, -1 = keep forever): `log.retention.ms`, else
    /// `log.retention.hours` (Kafka's `KafkaConfig.logRetentionTimeMillis`; any negative value
    /// means no limit).
    pub fn log_retention_ms(&self) -> i64 {
        let ms = self.log_retention_ms.unwrap_or(self.log_retention_hours.saturating_mul(MS_PER_HOUR));
        if ms < 0 { -1 } else { ms }
    }

    /// The broker default of `flush.ms` (ms): `log.flush.interval.ms`, else
    /// `log.flush.scheduler.interval.ms` (Kafka's `KafkaConfig.logFlushIntervalMs`).
    pub fn log_flush_ms(&self) -> u64 {
        self.log_flush_interval_ms.unwrap_or(self.log_flush_scheduler_interval_ms)
    }

    /// The broker default of `segment.ms` (ms): `log.roll.ms`, else `log.roll.hours`.
    pub fn log_roll_ms(&self) -> Ms {
        self.log_roll_ms.unwrap_or(self.log_roll_hours.saturating_mul(MS_PER_HOUR)).max(1) as Ms
    }

    /// This config (what a broker started with) with every [`UpdateMode::Dynamic`] property
    /// taken from `latest`: what a running broker applies when the cluster's config changes
    /// (`DynamicBrokerConfig.updateCurrentConfig` reconfigures only dynamic properties).
    pub fn with_dynamic_from(&self, latest: &BrokerConfig) -> BrokerConfig {
        BrokerConfig {
            min_insync_replicas: latest.min_insync_replicas,
            unclean_leader_election_enable: latest.unclean_leader_election_enable,
            log_retention_ms: latest.log_retention_ms,
            log_retention_bytes: latest.log_retention_bytes,
            log_segment_bytes: latest.log_segment_bytes,
            log_roll_ms: latest.log_roll_ms,
            log_flush_interval_messages: latest.log_flush_interval_messages,
            log_flush_interval_ms: latest.log_flush_interval_ms,
            leader_replication_throttled_rate: latest.leader_replication_throttled_rate,
            follower_replication_throttled_rate: latest.follower_replication_throttled_rate,
            throttle_rates_by_broker: latest.throttle_rates_by_broker.clone(),
            ..self.clone()
        }
    }

    /// Broker `broker`'s `leader.replication.throttled.rate` (bytes/s): its own value, else
    /// the cluster-wide one (`BrokerConfigHandler.processConfigChanges`).
    pub fn leader_throttle_rate(&self, broker: BrokerId) -> u64 {
        let own = self.throttle_rates_by_broker.get(&broker).and_then(|r| r.leader);
        own.unwrap_or(self.leader_replication_throttled_rate)
    }

    /// Broker `broker`'s `follower.replication.throttled.rate` (bytes/s): its own value,
    /// else the cluster-wide one.
    pub fn follower_throttle_rate(&self, broker: BrokerId) -> u64 {
        let own = self.throttle_rates_by_broker.get(&broker).and_then(|r| r.follower);
        own.unwrap_or(self.follower_replication_throttled_rate)
    }

    /// Sets a property for broker `broker` alone (`kafka-configs.sh --entity-type brokers
    /// --entity-name B`, a per-broker entry of `DynamicBrokerConfig`): the replication throttle
    /// rates (Kafka's per-broker quota configs) in [`Self::throttle_rates_by_broker`], any other
    /// broker property in [`Self::overrides_by_broker`], checked against the result
    /// ([`Self::for_broker`] then [`Self::validate`]). Whether it acts at once or at the
    /// broker's next start is the property's [`Property::update_mode`].
    ///
    /// Errors: unknown name, bad value, a property that is not a broker's (producer, topic,
    /// lab), or one the controller reads ([`ConfigError::Conflict`]: it has no per-broker
    /// meaning); nothing changes then.
    pub fn set_for_broker(&mut self, broker: BrokerId, name: &str, text: &str) -> Result<(), ConfigError> {
        let p = lookup(name)?;
        if DYNAMIC_QUOTA_CONFIGS.contains(&p.name) {
            let v = as_u64(p.parse(text)?);
            let rates = self.throttle_rates_by_broker.entry(broker).or_default();
            match p.name {
                "leader.replication.throttled.rate" => rates.leader = Some(v),
                _ => rates.follower = Some(v),
            }
            return Ok(());
        }
        if matches!(p.scope, Scope::Producer | Scope::Consumer | Scope::Topic | Scope::Lab) {
            return Err(scope_error(p, "on brokers"));
        }
        if READ_BY_CONTROLLER.contains(&p.name) {
            return Err(ConfigError::Conflict(format!(
                "`{}` is read by the controller, not by broker {broker}: set it for every broker with `set {}=...`",
                p.name, p.name
            )));
        }
        let mut next = self.clone();
        let list = next.overrides_by_broker.entry(broker).or_default();
        list.retain(|(n, _)| *n != p.name);
        list.push((p.name, text.to_string()));
        next.for_broker(broker).validate()?;
        *self = next;
        Ok(())
    }

    /// Broker `broker`'s own config: the cluster-wide values with its per-broker overrides
    /// applied (Kafka's `DynamicBrokerConfig`: a broker's own entry wins over the cluster
    /// default). Overrides were checked when set, so none fails here.
    pub fn for_broker(&self, broker: BrokerId) -> BrokerConfig {
        let mut config = self.clone();
        for (name, text) in self.overrides_by_broker.get(&broker).into_iter().flatten() {
            _ = config.set(name, text);
        }
        config
    }

    /// Sets a broker-level property from text. Errors: unknown name, bad value, or a
    /// producer property.
    pub fn set(&mut self, name: &str, text: &str) -> Result<(), ConfigError> {
        let p = lookup(name)?;
        if matches!(p.scope, Scope::Producer | Scope::Topic | Scope::Lab) {
            return Err(scope_error(p, "on brokers"));
        }
        let v = p.parse(text)?;
        match p.name {
            "replica.lag.time.max.ms" => self.replica_lag_time_max_ms = as_u64(v),
            "replica.fetch.wait.max.ms" => self.replica_fetch_wait_max_ms = as_u64(v),
            "replica.fetch.max.bytes" => self.replica_fetch_max_bytes = as_u64(v),
            "replica.fetch.response.max.bytes" => self.replica_fetch_response_max_bytes = as_u64(v),
            "leader.replication.throttled.rate" => self.leader_replication_throttled_rate = as_u64(v),
            "follower.replication.throttled.rate" => self.follower_replication_throttled_rate = as_u64(v),
            "replication.quota.window.num" => self.replication_quota_window_num = as_u64(v) as u32,
            "replication.quota.window.size.seconds" => self.replication_quota_window_size_seconds = as_u64(v),
            "replica.fetch.backoff.ms" => self.replica_fetch_backoff_ms = as_u64(v),
            "replica.socket.timeout.ms" => self.replica_socket_timeout_ms = as_u64(v),
            "max.incremental.fetch.session.cache.slots" => {
                self.max_incremental_fetch_session_cache_slots = as_u64(v) as u32
            }
            "replica.high.watermark.checkpoint.interval.ms" => {
                self.replica_high_watermark_checkpoint_interval_ms = as_u64(v)
            }
            "broker.heartbeat.interval.ms" => self.broker_heartbeat_interval_ms = as_u64(v),
            "broker.session.timeout.ms" => self.broker_session_timeout_ms = as_u64(v),
            "min.insync.replicas" => self.min_insync_replicas = as_u64(v) as u32,
            "unclean.leader.election.enable" => self.unclean_leader_election_enable = as_bool(v),
            "unclean.leader.election.interval.ms" => self.unclean_leader_election_interval_ms = as_u64(v),
            "auto.leader.rebalance.enable" => self.auto_leader_rebalance_enable = as_bool(v),
            "leader.imbalance.check.interval.seconds" => {
                self.leader_imbalance_check_interval_seconds = as_u64(v)
            }
            "offsets.topic.num.partitions" => self.offsets_topic_num_partitions = as_u64(v) as u32,
            "offsets.topic.replication.factor" => self.offsets_topic_replication_factor = as_u64(v) as u32,
            "offsets.commit.timeout.ms" => self.offsets_commit_timeout_ms = as_u64(v),
            "group.initial.rebalance.delay.ms" => self.group_initial_rebalance_delay_ms = as_u64(v),
            "group.min.session.timeout.ms" => self.group_min_session_timeout_ms = as_u64(v),
            "group.max.session.timeout.ms" => self.group_max_session_timeout_ms = as_u64(v),
            "log.retention.ms" => self.log_retention_ms = Some(as_i64(v)),
            "log.retention.hours" => self.log_retention_hours = as_i64(v),
            "log.retention.bytes" => self.log_retention_bytes = as_i64(v),
            "log.segment.bytes" => self.log_segment_bytes = as_u64(v),
            "log.roll.ms" => self.log_roll_ms = Some(as_i64(v)),
            "log.roll.hours" => self.log_roll_hours = as_i64(v),
            "log.retention.check.interval.ms" => self.log_retention_check_interval_ms = as_u64(v),
            "log.flush.interval.messages" => self.log_flush_interval_messages = as_u64(v),
            "log.flush.interval.ms" => self.log_flush_interval_ms = Some(as_u64(v)),
            "log.flush.scheduler.interval.ms" => self.log_flush_scheduler_interval_ms = as_u64(v),
            "os.dirty.expire.ms" => self.os_dirty_expire_ms = as_u64(v),
            "os.dirty.writeback.ms" => self.os_dirty_writeback_ms = as_u64(v),
            other => unreachable!("registry entry {other} has no broker field"),
        }
        Ok(())
    }
}

/// Topic-level overrides (`kafka-configs.sh --entity-type topics`); `None` = broker default.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct TopicConfig {
    /// `min.insync.replicas` override.
    pub min_insync_replicas: Option<u32>,
    /// `unclean.leader.election.enable` override.
    pub unclean_leader_election_enable: Option<bool>,
    /// `retention.ms` override (ms, -1 = keep forever).
    pub retention_ms: Option<i64>,
    /// `retention.bytes` override (bytes, -1 = no limit).
    pub retention_bytes: Option<i64>,
    /// `segment.bytes` override (bytes).
    pub segment_bytes: Option<u64>,
    /// `segment.ms` override (ms).
    pub segment_ms: Option<Ms>,
    /// `flush.messages` override (records).
    pub flush_messages: Option<u64>,
    /// `flush.ms` override (ms).
    pub flush_ms: Option<u64>,
    /// `leader.replication.throttled.replicas` (`None` = Kafka's default, the empty list).
    pub leader_replication_throttled_replicas: Option<ThrottledReplicas>,
    /// `follower.replication.throttled.replicas` (`None` = the empty list).
    pub follower_replication_throttled_replicas: Option<ThrottledReplicas>,
}

/// A partition log's effective settings: topic overrides over broker defaults (Kafka's
/// `LogConfig`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct LogConfig {
    /// `retention.ms` (ms, -1 = keep forever).
    pub retention_ms: i64,
    /// `retention.bytes` (bytes, -1 = no limit).
    pub retention_bytes: i64,
    /// `segment.bytes` (bytes).
    pub segment_bytes: u64,
    /// `segment.ms` (ms).
    pub segment_ms: Ms,
    /// `flush.messages` (records): fsync once this many are unflushed.
    pub flush_messages: u64,
    /// `flush.ms` (ms): fsync a log unflushed this long, when the flusher checks.
    pub flush_ms: u64,
    /// `os.dirty.expire.ms` (ms, lab): the OS writes back data dirty this long.
    pub os_dirty_expire_ms: Ms,
    /// `os.dirty.writeback.ms` (ms, lab): how often the OS flusher wakes.
    pub os_dirty_writeback_ms: Ms,
}

impl Default for LogConfig {
    fn default() -> Self {
        TopicConfig::NONE.log_config(&BrokerConfig::default())
    }
}

impl TopicConfig {
    /// No overrides.
    pub const NONE: TopicConfig = TopicConfig {
        min_insync_replicas: None,
        unclean_leader_election_enable: None,
        retention_ms: None,
        retention_bytes: None,
        segment_bytes: None,
        segment_ms: None,
        flush_messages: None,
        flush_ms: None,
        leader_replication_throttled_replicas: None,
        follower_replication_throttled_replicas: None,
    };

    /// Sets a topic-level property. Errors: unknown name, bad value, or a property that
    /// topics cannot override.
    pub fn set(&mut self, name: &str, text: &str) -> Result<(), ConfigError> {
        let p = lookup(name)?;
        if !matches!(p.scope, Scope::BrokerAndTopic | Scope::Topic) {
            return Err(scope_error(p, "on a topic"));
        }
        let v = p.parse(text)?;
        match p.name {
            "min.insync.replicas" => self.min_insync_replicas = Some(as_u64(v) as u32),
            "unclean.leader.election.enable" => self.unclean_leader_election_enable = Some(as_bool(v)),
            "retention.ms" => self.retention_ms = Some(as_i64(v)),
            "retention.bytes" => self.retention_bytes = Some(as_i64(v)),
            "segment.bytes" => self.segment_bytes = Some(as_u64(v)),
            "segment.ms" => self.segment_ms = Some(as_u64(v)),
            "flush.messages" => self.flush_messages = Some(as_u64(v)),
            "flush.ms" => self.flush_ms = Some(as_u64(v)),
            // An empty list is Kafka's default: setting it removes the override, as
            // `kafka-configs.sh --delete-config` would.
            "leader.replication.throttled.replicas" => {
                self.leader_replication_throttled_replicas = as_replicas(v)
            }
            "follower.replication.throttled.replicas" => {
                self.follower_replication_throttled_replicas = as_replicas(v)
            }
            other => unreachable!("registry entry {other} has no topic field"),
        }
        Ok(())
    }

    /// The effective log settings of this topic's partitions under `broker` defaults.
    pub fn log_config(&self, broker: &BrokerConfig) -> LogConfig {
        LogConfig {
            retention_ms: self.retention_ms.unwrap_or_else(|| broker.log_retention_ms()),
            retention_bytes: self.retention_bytes.unwrap_or(broker.log_retention_bytes),
            segment_bytes: self.segment_bytes.unwrap_or(broker.log_segment_bytes),
            segment_ms: self.segment_ms.unwrap_or_else(|| broker.log_roll_ms()),
            flush_messages: self.flush_messages.unwrap_or(broker.log_flush_interval_messages),
            flush_ms: self.flush_ms.unwrap_or_else(|| broker.log_flush_ms()),
            os_dirty_expire_ms: broker.os_dirty_expire_ms,
            os_dirty_writeback_ms: broker.os_dirty_writeback_ms.max(1),
        }
    }

    /// The configured `min.insync.replicas` (override or broker default).
    pub fn min_insync_replicas(&self, broker: &BrokerConfig) -> u32 {
        self.min_insync_replicas.unwrap_or(broker.min_insync_replicas)
    }

    /// Effective min ISR: `min(min.insync.replicas, replicas)` under strict min ISR (Kafka 3.7+,
    /// R5.6, [`Semantics::strict_min_isr`]); the configured value before.
    pub fn effective_min_isr(&self, broker: &BrokerConfig, replica_count: usize) -> usize {
        let configured = self.min_insync_replicas(broker) as usize;
        if broker.semantics.strict_min_isr { configured.min(replica_count.max(1)) } else { configured }
    }

    /// Whether unclean election is allowed for this topic (override or broker default).
    pub fn unclean_leader_election_enable(&self, broker: &BrokerConfig) -> bool {
        self.unclean_leader_election_enable.unwrap_or(broker.unclean_leader_election_enable)
    }

    /// Whether the controller elects an unclean leader for this topic by itself: the topic
    /// allows it and the KRaft controller applies the setting ([`Semantics::kraft_unclean_election`],
    /// Kafka 3.9+, R6.5).
    pub fn unclean_election_automatic(&self, broker: &BrokerConfig) -> bool {
        broker.semantics.kraft_unclean_election && self.unclean_leader_election_enable(broker)
    }

    /// The overrides as `name=value` pairs, as `kafka-topics.sh --describe` lists `Configs:`.
    pub fn overrides(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(v) = self.min_insync_replicas {
            out.push(format!("min.insync.replicas={v}"));
        }
        if let Some(v) = self.unclean_leader_election_enable {
            out.push(format!("unclean.leader.election.enable={v}"));
        }
        let longs = [
            ("retention.ms", self.retention_ms),
            ("retention.bytes", self.retention_bytes),
            ("segment.bytes", self.segment_bytes.map(|v| v as i64)),
            ("segment.ms", self.segment_ms.map(|v| v as i64)),
            ("flush.messages", self.flush_messages.map(|v| v as i64)),
            ("flush.ms", self.flush_ms.map(|v| v as i64)),
        ];
        out.extend(longs.iter().filter_map(|(name, v)| v.map(|v| format!("{name}={v}"))));
        let lists = [
            ("leader.replication.throttled.replicas", &self.leader_replication_throttled_replicas),
            ("follower.replication.throttled.replicas", &self.follower_replication_throttled_replicas),
        ];
        out.extend(lists.iter().filter_map(|(name, v)| v.as_ref().map(|v| format!("{name}={v}"))));
        out
    }
}

/// The network's lab properties (`net.*`), isrlab's own and not Kafka's: one link's, or the
/// defaults every link starts from. Times are kept in µs, the runtime's resolution.
///
/// Defaults model one data centre: a round trip of about 0.5 ms between hosts (so 0.25 ms one
/// way), a little jitter, and 1 Gbit/s links (sources in the README, "Network model").
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct NetConfig {
    /// `net.latency.ms`, in µs: one-way latency.
    pub latency_us: u64,
    /// `net.jitter.ms`, in µs: the most extra delay drawn (uniformly) for each message.
    pub jitter_us: u64,
    /// `net.bandwidth.mbps` (Mbit/s, more than 0).
    pub bandwidth_mbps: f64,
}

impl Default for NetConfig {
    fn default() -> Self {
        Self { latency_us: 250, jitter_us: 20, bandwidth_mbps: 1000.0 }
    }
}

impl NetConfig {
    /// Sets a `net.*` property from text (ms values keep µs precision). Errors: unknown name,
    /// bad value (a bandwidth of 0), or a property that is not a lab one.
    pub fn set(&mut self, name: &str, text: &str) -> Result<(), ConfigError> {
        let p = lookup(name)?;
        if lab::is_handling_property(p.name) {
            return Err(scope_error(
                p,
                "on a link (a broker's processing time: `set KEY=VALUE` or `set broker B KEY=VALUE`)",
            ));
        }
        if p.scope != Scope::Lab {
            return Err(scope_error(p, "on the network"));
        }
        let Value::Decimal(v) = p.parse(text)? else { unreachable!("lab properties are decimal") };
        let micros = (v * 1000.0).round() as u64;
        match p.name {
            "net.latency.ms" => self.latency_us = micros,
            "net.jitter.ms" => self.jitter_us = micros,
            "net.bandwidth.mbps" if v > 0.0 => self.bandwidth_mbps = v,
            "net.bandwidth.mbps" => {
                return Err(ConfigError::InvalidValue {
                    name: p.name,
                    value: text.trim().to_string(),
                    expected: "a bandwidth above 0 Mbit/s (a cut link is `cut A B`)".into(),
                });
            }
            other => unreachable!("registry entry {other} has no network field"),
        }
        Ok(())
    }

    /// Microseconds `bytes` take to go onto the link at its bandwidth (rounded up).
    pub fn transmit_micros(&self, bytes: u64) -> u64 {
        (bytes as f64 * 8.0 / self.bandwidth_mbps).ceil() as u64
    }
}

/// Default `record.size` (bytes): the record size of Kafka's own producer benchmarks
/// (`tests/kafkatest/benchmarks/core/benchmark_test.py`, `DEFAULT_RECORD_SIZE = 100`), a small
/// key-less value plus its per-record framing. Kafka's `kafka-producer-perf-test` has no
/// default for `--record-size`.
pub const DEFAULT_RECORD_SIZE: u32 = 100;

/// Bytes of a record batch's header (v2 format) on top of its records: Kafka's
/// `DefaultRecordBatch.RECORD_BATCH_OVERHEAD` (61).
pub const RECORD_BATCH_OVERHEAD: u32 = 61;

/// Producer client configuration (Java client defaults, R5.7), plus isrlab's `record.size`
/// and `rate`.
#[derive(Clone, PartialEq, Debug)]
pub struct ProducerConfig {
    /// `acks`.
    pub acks: Acks,
    /// `enable.idempotence`.
    pub enable_idempotence: bool,
    /// `retries`.
    pub retries: u32,
    /// `delivery.timeout.ms` (ms).
    pub delivery_timeout_ms: Ms,
    /// `request.timeout.ms` (ms).
    pub request_timeout_ms: Ms,
    /// `retry.backoff.ms` (ms).
    pub retry_backoff_ms: Ms,
    /// `retry.backoff.max.ms` (ms).
    pub retry_backoff_max_ms: Ms,
    /// `reconnect.backoff.ms` (ms).
    pub reconnect_backoff_ms: Ms,
    /// `reconnect.backoff.max.ms` (ms).
    pub reconnect_backoff_max_ms: Ms,
    /// `socket.connection.setup.timeout.ms` (ms).
    pub socket_connection_setup_timeout_ms: Ms,
    /// `socket.connection.setup.timeout.max.ms` (ms).
    pub socket_connection_setup_timeout_max_ms: Ms,
    /// `max.in.flight.requests.per.connection` (requests per broker).
    pub max_in_flight: u32,
    /// `linger.ms` (ms).
    pub linger_ms: Ms,
    /// `batch.size` (bytes).
    pub batch_size: u64,
    /// `max.request.size` (bytes).
    pub max_request_size: u64,
    /// Bytes of every record inside a batch (isrlab's `record.size`; Kafka records vary).
    pub record_size: u32,
    /// Records per second (isrlab's load knob; 0 = only explicit `produce` commands).
    pub rate: f64,
    /// `partitioner.class`.
    pub partitioner_class: PartitionerClass,
    /// `partitioner.ignore.keys`.
    pub partitioner_ignore_keys: bool,
    /// `partitioner.adaptive.partitioning.enable`.
    pub partitioner_adaptive: bool,
    /// `partitioner.availability.timeout.ms` (ms; 0 = off).
    pub partitioner_availability_timeout_ms: Ms,
    /// `enable.idempotence` was set by the user, not left at its default: Kafka then refuses
    /// settings that cannot be idempotent instead of quietly turning idempotence off (R5.8).
    pub enable_idempotence_set: bool,
}

/// Kafka's full name of its round-robin partitioner, accepted by `partitioner.class` (as is
/// the short `RoundRobinPartitioner`).
pub const ROUND_ROBIN_PARTITIONER: &str = "org.apache.kafka.clients.producer.RoundRobinPartitioner";

/// Which partitioner picks each record's partition (`partitioner.class`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum PartitionerClass {
    /// Unset: Kafka's built-in partitioner (`BuiltInPartitioner`: murmur2 for keys, sticky and
    /// adaptive for keyless records).
    #[default]
    BuiltIn,
    /// `org.apache.kafka.clients.producer.RoundRobinPartitioner`.
    RoundRobin,
}

/// Most requests in flight per connection the idempotent producer allows (Kafka's
/// `ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION_FOR_IDEMPOTENCE`; the broker keeps the
/// last 5 batches per producer for duplicate detection).
pub const MAX_IN_FLIGHT_FOR_IDEMPOTENCE: u32 = 5;

impl Default for ProducerConfig {
    fn default() -> Self {
        Self::defaults_for(&Semantics::CURRENT)
    }
}

impl ProducerConfig {
    /// The Java client's defaults in the given Kafka version (R5.7): `enable.idempotence` and
    /// `linger.ms` come from the semantics (KIP-679, KIP-1030).
    pub fn defaults_for(semantics: &Semantics) -> Self {
        Self {
            acks: Acks::All,
            enable_idempotence: semantics.idempotence_by_default,
            retries: i32::MAX as u32,
            delivery_timeout_ms: 120_000,
            request_timeout_ms: 30_000,
            retry_backoff_ms: 100,
            retry_backoff_max_ms: 1000,
            reconnect_backoff_ms: 50,
            reconnect_backoff_max_ms: 1000,
            socket_connection_setup_timeout_ms: 10_000,
            socket_connection_setup_timeout_max_ms: 30_000,
            max_in_flight: 5,
            linger_ms: semantics.default_linger_ms,
            batch_size: 16_384,
            max_request_size: 1_048_576,
            record_size: DEFAULT_RECORD_SIZE,
            rate: 100.0,
            partitioner_class: PartitionerClass::BuiltIn,
            partitioner_ignore_keys: false,
            partitioner_adaptive: true,
            partitioner_availability_timeout_ms: 0,
            enable_idempotence_set: false,
        }
    }
}

impl ProducerConfig {
    /// Sets a producer property. Errors: unknown name, bad value, or a broker property.
    pub fn set(&mut self, name: &str, text: &str) -> Result<(), ConfigError> {
        let p = lookup(name)?;
        if p.scope != Scope::Producer {
            return Err(scope_error(p, "on the producer"));
        }
        let v = p.parse(text).map_err(|e| self.with_floor(e))?;
        match (p.name, v) {
            ("acks", Value::Acks(a)) => self.acks = a,
            ("enable.idempotence", v) => {
                self.enable_idempotence = as_bool(v);
                self.enable_idempotence_set = true;
            }
            ("retries", v) => self.retries = as_u64(v) as u32,
            ("delivery.timeout.ms", v) => self.delivery_timeout_ms = as_u64(v),
            ("request.timeout.ms", v) => self.request_timeout_ms = as_u64(v),
            ("retry.backoff.ms", v) => self.retry_backoff_ms = as_u64(v),
            ("retry.backoff.max.ms", v) => self.retry_backoff_max_ms = as_u64(v),
            ("reconnect.backoff.ms", v) => self.reconnect_backoff_ms = as_u64(v),
            ("reconnect.backoff.max.ms", v) => self.reconnect_backoff_max_ms = as_u64(v),
            ("socket.connection.setup.timeout.ms", v) => self.socket_connection_setup_timeout_ms = as_u64(v),
            ("socket.connection.setup.timeout.max.ms", v) => {
                self.socket_connection_setup_timeout_max_ms = as_u64(v)
            }
            ("max.in.flight.requests.per.connection", v) => self.max_in_flight = as_u64(v) as u32,
            ("linger.ms", v) => self.linger_ms = as_u64(v),
            ("batch.size", v) => self.batch_size = as_u64(v),
            ("max.request.size", v) => self.max_request_size = as_u64(v),
            ("record.size", v) => self.record_size = as_u64(v) as u32,
            ("rate", Value::Rate(r)) => self.rate = r,
            ("partitioner.class", Value::Class(c)) => {
                self.partitioner_class = c.map_or(PartitionerClass::BuiltIn, |_| PartitionerClass::RoundRobin)
            }
            ("partitioner.ignore.keys", v) => self.partitioner_ignore_keys = as_bool(v),
            ("partitioner.adaptive.partitioning.enable", v) => self.partitioner_adaptive = as_bool(v),
            ("partitioner.availability.timeout.ms", v) => {
                self.partitioner_availability_timeout_ms = as_u64(v)
            }
            (other, _) => unreachable!("registry entry {other} has no producer field"),
        }
        Ok(())
    }

    /// `e` with the real lower bound where another property raises it: `delivery.timeout.ms`
    /// must be at least `linger.ms + request.timeout.ms` (Kafka's
    /// `KafkaProducer.configureDeliveryTimeout`), so a bad value's message names that floor
    /// instead of the bare parse range.
    fn with_floor(&self, e: ConfigError) -> ConfigError {
        match e {
            ConfigError::InvalidValue { name: "delivery.timeout.ms", value, .. } => {
                let floor = self.linger_ms + self.request_timeout_ms;
                ConfigError::InvalidValue {
                    name: "delivery.timeout.ms",
                    value,
                    expected: format!(
                        "an integer from {floor} (linger.ms + request.timeout.ms) to {MAX_INT}"
                    ),
                }
            }
            other => other,
        }
    }

    /// Checks the combinations Kafka's `ProducerConfig` refuses (R5.7, R5.8). Errors:
    /// [`ConfigError::Conflict`] with Kafka's message.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.enable_idempotence_set && self.enable_idempotence {
            if self.acks != Acks::All {
                return Err(ConfigError::Conflict(
                    "Must set acks to all in order to use the idempotent producer. Otherwise we cannot guarantee idempotence. (isrlab: set acks=all, or enable.idempotence=false.)".into(),
                ));
            }
            if self.retries == 0 {
                return Err(ConfigError::Conflict(
                    "Must set retries to non-zero when using the idempotent producer.".into(),
                ));
            }
        }
        // Kafka 4.x `ProducerConfig.postProcessAndValidateIdempotenceConfigs` checks this one
        // whenever enable.idempotence is true, set by the user or left at its default.
        if self.enable_idempotence && self.max_in_flight > MAX_IN_FLIGHT_FOR_IDEMPOTENCE {
            return Err(ConfigError::Conflict(format!(
                "To use the idempotent producer, max.in.flight.requests.per.connection must be set to at most {MAX_IN_FLIGHT_FOR_IDEMPOTENCE}. Current value is {}. (isrlab: set enable.idempotence=false first for more.)",
                self.max_in_flight
            )));
        }
        if self.delivery_timeout_ms < self.linger_ms + self.request_timeout_ms {
            return Err(ConfigError::Conflict(format!(
                "delivery.timeout.ms should be equal to or larger than linger.ms + request.timeout.ms ({} ms)",
                self.linger_ms + self.request_timeout_ms
            )));
        }
        Ok(())
    }

    /// Records one batch holds: as many as fit in `batch.size` after the batch header, at
    /// least one (Java's `MemoryRecordsBuilder.hasRoomFor`: a batch takes a record while
    /// header plus records stay within `batch.size`, and always takes its first), and no more
    /// than fit in one produce request of `max.request.size` bytes.
    ///
    /// isrlab sends one batch per request, so the request cap is the batch's. Kafka's
    /// `RecordAccumulator.drain` stops adding batches to a request before it would pass
    /// `max.request.size` (`maxSize`), but always takes the first, so with `batch.size` above
    /// `max.request.size` Java would send one over-size batch and the broker would refuse it
    /// past `message.max.bytes`; isrlab, which models neither that refusal nor the split that
    /// follows (`Sender.completeBatch` → `RecordAccumulator.splitAndReenqueue`), caps the batch
    /// instead, so no request it sends exceeds `max.request.size`.
    pub fn records_per_batch(&self) -> usize {
        let limit = self.batch_size.min(self.max_request_size);
        let room = limit.saturating_sub(u64::from(RECORD_BATCH_OVERHEAD));
        (room / u64::from(self.record_size.max(1))).max(1) as usize
    }

    /// Why a record of `record.size` bytes cannot be sent, if it cannot: with its batch
    /// header it is larger than `max.request.size`. Kafka's `KafkaProducer.ensureValidRecordSize`
    /// checks the record's upper-bound size in its own batch
    /// (`AbstractRecords.estimateSizeInBytesUpperBound`) and fails the send with a
    /// `RecordTooLargeException` (error code `MESSAGE_TOO_LARGE`) before it reaches the
    /// accumulator; the message is Kafka's.
    pub fn record_too_large(&self) -> Option<String> {
        let size = u64::from(RECORD_BATCH_OVERHEAD) + u64::from(self.record_size);
        (size > self.max_request_size).then(|| {
            format!(
                "RecordTooLargeException: The message is {size} bytes when serialized which is larger than {}, which is the value of the max.request.size configuration.",
                self.max_request_size
            )
        })
    }

    /// Whether idempotence is in effect: Kafka quietly turns the default off when acks is not
    /// `all` or retries is 0 (R5.8).
    pub fn idempotence_in_effect(&self) -> bool {
        self.enable_idempotence && self.acks == Acks::All && self.retries > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A valid value other than `p`'s default.
    fn other_value(p: &Property) -> String {
        match p.kind {
            Kind::Bool => (p.default != "true").to_string(),
            Kind::Long { min, max } => {
                let d: i64 = p.default.parse().unwrap_or(min);
                if d < max { (d + 1).to_string() } else { min.to_string() }
            }
            Kind::Acks => if p.default == "1" { "0" } else { "1" }.to_string(),
            Kind::Rate | Kind::Decimal { .. } => "7".to_string(),
            Kind::ReplicaList => "*".to_string(),
            Kind::Choice(words) => words.iter().find(|w| **w != p.default).unwrap_or(&p.default).to_string(),
            Kind::Class(names) => names[0].to_string(),
        }
    }

    /// The meanings are user-facing: they speak of what the user sees, never of the rule
    /// book's internal numbers (`R4.1`), which live in the comments beside each entry.
    #[test]
    fn no_meaning_cites_a_rule_book_number() {
        let rule = regex::Regex::new(r"\bR[0-9]+\.[0-9]").unwrap();
        for p in PROPERTIES {
            assert!(!rule.is_match(p.doc), "{}: {}", p.name, p.doc);
        }
    }

    #[test]
    fn a_running_broker_takes_only_dynamic_properties() {
        let base = BrokerConfig::default();
        for p in PROPERTIES
            .iter()
            .filter(|p| !matches!(p.scope, Scope::Producer | Scope::Consumer | Scope::Topic | Scope::Lab))
        {
            let mut latest = BrokerConfig::default();
            latest.set(p.name, &other_value(p)).unwrap();
            let applied = base.with_dynamic_from(&latest);
            let dynamic = p.update_mode() == UpdateMode::Dynamic;
            assert_eq!(applied == latest, dynamic, "{}", p.name);
            assert_eq!(applied == base, !dynamic, "{}", p.name);
        }
        assert_eq!(lookup("replica.lag.time.max.ms").unwrap().update_mode(), UpdateMode::BrokerRestart);
        assert_eq!(lookup("broker.session.timeout.ms").unwrap().update_mode(), UpdateMode::ControllerRestart);
        assert_eq!(lookup("acks").unwrap().update_mode(), UpdateMode::Client);
    }

    #[test]
    fn every_property_accepts_its_default_in_its_scope() {
        for p in PROPERTIES.iter().filter(|p| p.default != "null") {
            match p.scope {
                Scope::Topic => TopicConfig::default().set(p.name, p.default).unwrap(),
                Scope::Broker => BrokerConfig::default().set(p.name, p.default).unwrap(),
                Scope::BrokerAndTopic => {
                    let mut b = BrokerConfig::default();
                    b.set(p.name, p.default).unwrap();
                    assert_eq!(b, BrokerConfig::default(), "{} default differs", p.name);
                    TopicConfig::default().set(p.name, p.default).unwrap();
                }
                Scope::Lab => {
                    let mut n = LabConfig::default();
                    n.set(p.name, p.default).unwrap();
                    assert_eq!(n, LabConfig::default(), "{} default differs", p.name);
                }
                Scope::Producer => {
                    let mut c = ProducerConfig::default();
                    c.set(p.name, p.default).unwrap();
                    c.enable_idempotence_set = false;
                    assert_eq!(c, ProducerConfig::default(), "{} default differs", p.name);
                }
                Scope::Consumer => {
                    let mut c = ConsumerConfig::default();
                    c.set(p.name, p.default).unwrap();
                    c.enable_auto_commit_set = false;
                    assert_eq!(c, ConsumerConfig::default(), "{} default differs", p.name);
                }
            }
            if p.scope == Scope::Broker {
                let mut b = BrokerConfig::default();
                b.set(p.name, p.default).unwrap();
                assert_eq!(b, BrokerConfig::default(), "{} default differs", p.name);
            }
        }
    }

    #[test]
    fn lab_properties_keep_microseconds_and_refuse_a_dead_link() {
        let mut n = NetConfig::default();
        n.set("net.latency.ms", "1.5").unwrap();
        n.set("net.jitter.ms", "0.001").unwrap();
        assert_eq!((n.latency_us, n.jitter_us), (1500, 1));
        assert!(n.set("net.bandwidth.mbps", "0").is_err());
        assert!(n.set("net.latency.ms", "-1").is_err());
        assert!(n.set("acks", "1").is_err());
        assert!(BrokerConfig::default().set("net.latency.ms", "1").is_err());
        // 1 Gbit/s moves 125 bytes per µs.
        assert_eq!(NetConfig::default().transmit_micros(1_250_000), 10_000);
    }

    #[test]
    fn unknown_property_names_close_matches() {
        let err = lookup("min.insync.replica").unwrap_err();
        assert!(err.to_string().contains("did you mean `min.insync.replicas`"), "{err}");
    }

    #[test]
    fn partitioner_class_takes_kafkas_round_robin_partitioner_or_nothing() {
        let mut p = ProducerConfig::default();
        p.set("partitioner.class", ROUND_ROBIN_PARTITIONER).unwrap();
        assert_eq!(p.partitioner_class, PartitionerClass::RoundRobin);
        p.set("partitioner.class", "null").unwrap();
        assert_eq!(p.partitioner_class, PartitionerClass::BuiltIn);
        p.set("partitioner.class", "RoundRobinPartitioner").unwrap();
        p.set("partitioner.class", "").unwrap();
        assert_eq!(p, ProducerConfig::default());
        let e = p.set("partitioner.class", "com.example.MyPartitioner").unwrap_err().to_string();
        assert!(e.contains("Class com.example.MyPartitioner could not be found"), "{e}");
        assert!(e.contains(ROUND_ROBIN_PARTITIONER), "{e}");
        let e = p
            .set("partitioner.class", "org.apache.kafka.clients.producer.internals.DefaultPartitioner")
            .unwrap_err()
            .to_string();
        assert!(e.contains("removed in Kafka 4.0"), "{e}");
        p.set("partitioner.ignore.keys", "true").unwrap();
        p.set("partitioner.adaptive.partitioning.enable", "false").unwrap();
        p.set("partitioner.availability.timeout.ms", "250").unwrap();
        assert!(p.partitioner_ignore_keys && !p.partitioner_adaptive);
        assert_eq!(p.partitioner_availability_timeout_ms, 250);
        assert!(p.set("partitioner.availability.timeout.ms", "-1").is_err());
    }

    #[test]
    fn bad_values_and_scopes_are_errors() {
        let mut b = BrokerConfig::default();
        assert!(b.set("min.insync.replicas", "0").is_err());
        assert!(b.set("unclean.leader.election.enable", "yes").is_err());
        assert!(b.set("acks", "1").is_err());
        let mut t = TopicConfig::default();
        assert!(t.set("replica.lag.time.max.ms", "1").is_err());
        let mut p = ProducerConfig::default();
        assert!(p.set("acks", "2").is_err());
        p.set("acks", "-1").unwrap();
        assert_eq!(p.acks, Acks::All);
    }

    #[test]
    fn kafka_refuses_contradicting_settings() {
        let mut p = ProducerConfig::default();
        p.set("acks", "1").unwrap();
        assert!(p.validate().is_ok(), "default idempotence quietly turns off");
        p.set("enable.idempotence", "true").unwrap();
        assert!(p.validate().unwrap_err().to_string().starts_with("Must set acks to all"));
        let mut p = ProducerConfig::default();
        let soon = p.set("delivery.timeout.ms", "soon").unwrap_err().to_string();
        assert!(soon.contains("an integer from 30005 (linger.ms + request.timeout.ms)"), "{soon}");
        p.set("delivery.timeout.ms", "1").unwrap();
        assert!(p.validate().unwrap_err().to_string().contains("linger.ms + request.timeout.ms"));
        let mut b = BrokerConfig::default();
        b.set("replica.lag.time.max.ms", "100").unwrap();
        assert!(b.validate().unwrap_err().to_string().contains("replica.fetch.wait.max.ms should always"));
        b.set("replica.fetch.wait.max.ms", "50").unwrap();
        assert!(b.validate().is_ok());
        b.set("broker.heartbeat.interval.ms", "5000").unwrap();
        assert!(b.validate().is_ok(), "Kafka only logs it as an error");
        assert!(b.warnings(None)[0].why.contains("half of broker.session.timeout.ms"));
    }

    /// A batch is its 61-byte header plus whole records; an oversized record still goes,
    /// alone.
    #[test]
    fn record_size_sets_how_many_records_a_batch_holds() {
        let mut p = ProducerConfig::default();
        assert_eq!(p.records_per_batch(), 163);
        p.set("record.size", "1000").unwrap();
        assert_eq!(p.records_per_batch(), 16);
        p.set("record.size", "20000").unwrap();
        assert_eq!(p.records_per_batch(), 1);
        assert!(p.set("record.size", "0").is_err());
        assert!(p.set("record.size", "40000000").is_err(), "above buffer.memory");
    }

    /// `max.request.size` caps what one request (here one batch) holds, and a record that
    /// cannot fit in a request with its batch header is refused, with Kafka's message.
    #[test]
    fn max_request_size_caps_batches_and_refuses_larger_records() {
        let mut p = ProducerConfig::default();
        assert_eq!(p.record_too_large(), None);
        p.set("batch.size", "100000").unwrap();
        assert_eq!(p.records_per_batch(), 999);
        p.set("max.request.size", "10061").unwrap();
        assert_eq!(p.records_per_batch(), 100, "10061 - 61 bytes of header = 100 records");
        p.set("record.size", "10000").unwrap();
        assert_eq!(p.record_too_large(), None, "61 + 10000 fits exactly");
        p.set("record.size", "10001").unwrap();
        assert_eq!(
            p.record_too_large().unwrap(),
            "RecordTooLargeException: The message is 10062 bytes when serialized which is larger than 10061, which is the value of the max.request.size configuration."
        );
    }

    /// The replication throttles: rates are dynamic broker configs, windows static ones, and
    /// the replica lists topic configs shown among the topic's overrides; an empty list is
    /// the default and removes the override.
    #[test]
    fn replication_throttles_are_broker_rates_and_topic_lists() {
        assert_eq!(lookup("leader.replication.throttled.rate").unwrap().update_mode(), UpdateMode::Dynamic);
        assert_eq!(lookup("follower.replication.throttled.rate").unwrap().update_mode(), UpdateMode::Dynamic);
        assert_eq!(lookup("replication.quota.window.num").unwrap().update_mode(), UpdateMode::BrokerRestart);
        let mut b = BrokerConfig::default();
        assert_eq!(b.leader_replication_throttled_rate, i64::MAX as u64);
        b.set("leader.replication.throttled.rate", "10000").unwrap();
        assert!(b.set("leader.replication.throttled.rate", "-1").is_err());
        assert!(b.set("leader.replication.throttled.replicas", "*").is_err(), "a topic config");
        let mut t = TopicConfig::default();
        t.set("leader.replication.throttled.replicas", "0:1,1:2").unwrap();
        t.set("follower.replication.throttled.replicas", "*").unwrap();
        assert_eq!(
            t.overrides(),
            vec![
                "leader.replication.throttled.replicas=0:1,1:2",
                "follower.replication.throttled.replicas=*"
            ]
        );
        let err = t.set("leader.replication.throttled.replicas", "0-1").unwrap_err().to_string();
        assert!(err.contains("the literal '*'"), "{err}");
        t.set("follower.replication.throttled.replicas", "\"\"").unwrap();
        assert_eq!(t.follower_replication_throttled_replicas, None);
    }

    /// A broker's own rate wins over the cluster-wide one, whichever was set last
    /// (`BrokerConfigHandler.processConfigChanges`), and a running broker takes it like the
    /// other dynamic configs.
    #[test]
    fn a_brokers_own_throttle_rate_wins_over_the_cluster_wide_one() {
        let mut b = BrokerConfig::default();
        b.set_for_broker(1, "leader.replication.throttled.rate", "5000").unwrap();
        b.set("leader.replication.throttled.rate", "7000").unwrap();
        assert_eq!((b.leader_throttle_rate(1), b.leader_throttle_rate(2)), (5000, 7000));
        assert_eq!(b.follower_throttle_rate(1), i64::MAX as u64);
        assert!(b.set_for_broker(1, "follower.replication.throttled.rate", "x").is_err());
        assert_eq!(BrokerConfig::default().with_dynamic_from(&b).leader_throttle_rate(1), 5000);
    }

    /// Any broker property may be set for one broker (`DynamicBrokerConfig` per-broker
    /// entries): it wins over the cluster-wide value for that broker only, the combined config
    /// must still be valid, and what the controller reads or what is not a broker's is
    /// refused, changing nothing.
    #[test]
    fn one_brokers_own_properties_win_for_it_alone() {
        let mut b = BrokerConfig::default();
        b.set_for_broker(1, "min.insync.replicas", "2").unwrap();
        b.set_for_broker(1, "replica.fetch.max.bytes", "10000").unwrap();
        b.set("min.insync.replicas", "3").unwrap();
        let (one, two) = (b.for_broker(1), b.for_broker(2));
        assert_eq!((one.min_insync_replicas, two.min_insync_replicas), (2, 3));
        assert_eq!((one.replica_fetch_max_bytes, two.replica_fetch_max_bytes), (10000, 1_048_576));
        let before = b.clone();
        let err = b.set_for_broker(1, "broker.session.timeout.ms", "5000").unwrap_err().to_string();
        assert!(err.contains("read by the controller"), "{err}");
        assert!(b.set_for_broker(1, "acks", "1").is_err());
        let err = b.set_for_broker(1, "replica.fetch.wait.max.ms", "60000").unwrap_err().to_string();
        assert!(err.contains("replica.fetch.wait.max.ms"), "{err}");
        assert_eq!(b, before);
    }

    /// `log.retention.ms` wins over `log.retention.hours`; a topic override wins over both;
    /// the broker and topic names are Kafka's synonyms and each is refused at the other level.
    #[test]
    fn retention_settings_follow_kafkas_precedence() {
        let mut b = BrokerConfig::default();
        assert_eq!(
            TopicConfig::NONE.log_config(&b),
            LogConfig {
                retention_ms: 604_800_000,
                retention_bytes: -1,
                segment_bytes: 1 << 30,
                segment_ms: 604_800_000,
                flush_messages: i64::MAX as u64,
                flush_ms: i64::MAX as u64,
                os_dirty_expire_ms: 30_000,
                os_dirty_writeback_ms: 5_000,
            }
        );
        b.set("log.retention.hours", "1").unwrap();
        assert_eq!(b.log_retention_ms(), 3_600_000);
        b.set("log.retention.ms", "60000").unwrap();
        b.set("log.retention.hours", "2").unwrap();
        assert_eq!(b.log_retention_ms(), 60_000);
        b.set("log.retention.ms", "-5").unwrap_err();
        let mut t = TopicConfig::default();
        t.set("retention.ms", "1000").unwrap();
        t.set("segment.bytes", "1048576").unwrap();
        assert!(t.set("segment.bytes", "1000").is_err(), "at least 1 MiB since Kafka 4.0");
        assert_eq!((t.log_config(&b).retention_ms, t.log_config(&b).segment_bytes), (1000, 1 << 20));
        assert_eq!(t.overrides(), vec!["retention.ms=1000", "segment.bytes=1048576"]);
        assert!(b.set("retention.ms", "1").is_err());
        assert!(t.set("log.retention.ms", "1").is_err());
    }

    #[test]
    fn version_dependent_rules_read_the_semantics() {
        let mut b = BrokerConfig::default();
        let t = TopicConfig {
            min_insync_replicas: Some(3),
            unclean_leader_election_enable: Some(true),
            ..TopicConfig::NONE
        };
        assert!(t.unclean_election_automatic(&b));
        b.semantics.strict_min_isr = false;
        b.semantics.kraft_unclean_election = false;
        assert_eq!(t.effective_min_isr(&b, 2), 3, "before 3.7 min ISR was not capped");
        assert!(!t.unclean_election_automatic(&b), "KRaft before 3.9 left unclean election to the admin");
        let old = Semantics { idempotence_by_default: false, default_linger_ms: 0, ..Semantics::CURRENT };
        let p = ProducerConfig::defaults_for(&old);
        assert!(!p.enable_idempotence && p.linger_ms == 0);
        assert_eq!(ProducerConfig::default(), ProducerConfig::defaults_for(&Semantics::CURRENT));
        let elr = BrokerConfig {
            semantics: Semantics { eligible_leader_replicas: true, ..Semantics::CURRENT },
            ..b
        };
        assert!(elr.validate().unwrap_err().to_string().contains("ELR"), "ELR is refused, not half-modelled");
    }

    #[test]
    fn effective_min_isr_is_capped_by_replica_count() {
        let b = BrokerConfig::default();
        let t = TopicConfig { min_insync_replicas: Some(3), ..Default::default() };
        assert_eq!(t.effective_min_isr(&b, 2), 2);
        assert_eq!(t.effective_min_isr(&b, 3), 3);
    }
}
