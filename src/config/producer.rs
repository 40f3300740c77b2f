//! The producer client's configuration (Kafka's `ProducerConfig`, Java client defaults, R5.7),
//! with the combinations it refuses (R5.8) and what a batch of `record.size` records holds.

use super::properties::MAX_INT;
use super::value::{as_bool, as_u64};
use super::{ConfigError, Scope, Semantics, Value, lookup, scope_error};
use crate::kafka::{Acks, Ms};

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
    /// `linger.ms` come from the semantics (KIP-679, KIP-1030), and so do `acks` (KIP-679) and
    /// `retries` (KIP-91).
    pub fn defaults_for(semantics: &Semantics) -> Self {
        Self {
            acks: semantics.default_acks,
            enable_idempotence: semantics.idempotence_by_default,
            retries: semantics.default_retries,
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
