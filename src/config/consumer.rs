//! Consumer client configuration: the part of Kafka's `ConsumerConfig` isrlab models, with
//! the Java client's defaults (Kafka 4.x).

use super::{ConfigError, Scope, Value, as_bool, as_u64, lookup, scope_error};
use crate::kafka::Ms;

/// `auto.offset.reset`: where a consumer starts when it has no valid position (Kafka's
/// `AutoOffsetResetStrategy`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum AutoOffsetReset {
    /// The log start offset.
    Earliest,
    /// The last fetchable offset: the HW.
    #[default]
    Latest,
    /// No reset: the partition stops with an error (`NoOffsetForPartitionException`,
    /// `OffsetOutOfRangeException`, `LogTruncationException`).
    None,
}

impl AutoOffsetReset {
    /// Kafka's word for it.
    pub fn name(self) -> &'static str {
        match self {
            AutoOffsetReset::Earliest => "earliest",
            AutoOffsetReset::Latest => "latest",
            AutoOffsetReset::None => "none",
        }
    }
}

/// A consumer's configuration (Java `ConsumerConfig` defaults). `group` is `group.id`.
#[derive(Clone, PartialEq, Debug)]
pub struct ConsumerConfig {
    /// `auto.offset.reset`.
    pub auto_offset_reset: AutoOffsetReset,
    /// `enable.auto.commit` as set (see [`ConsumerConfig::auto_commit_in_effect`]).
    pub enable_auto_commit: bool,
    /// `enable.auto.commit` was set by the user, not left at its default.
    pub enable_auto_commit_set: bool,
    /// `auto.commit.interval.ms` (ms).
    pub auto_commit_interval_ms: Ms,
    /// `fetch.min.bytes` (bytes).
    pub fetch_min_bytes: u64,
    /// `fetch.max.wait.ms` (ms).
    pub fetch_max_wait_ms: Ms,
    /// `max.partition.fetch.bytes` (bytes).
    pub max_partition_fetch_bytes: u64,
    /// `fetch.max.bytes` (bytes).
    pub fetch_max_bytes: u64,
    /// `max.poll.records` (records).
    pub max_poll_records: u32,
    /// `allow.auto.create.topics`: its Metadata requests allow auto-creation (KIP-361).
    pub allow_auto_create_topics: bool,
    /// `session.timeout.ms` (ms).
    pub session_timeout_ms: Ms,
    /// `heartbeat.interval.ms` (ms).
    pub heartbeat_interval_ms: Ms,
    /// `max.poll.interval.ms` (ms), the rebalance timeout.
    pub max_poll_interval_ms: Ms,
    /// `partition.assignment.strategy`: assignor names, comma-separated, in preference order.
    pub partition_assignment_strategy: &'static str,
    /// `retry.backoff.ms` (ms; the consumer's default, 100, not settable in isrlab: the name
    /// belongs to the producer's property in the registry).
    pub retry_backoff_ms: Ms,
    /// `request.timeout.ms` (ms; the consumer's default, 30000, not settable in isrlab).
    pub request_timeout_ms: Ms,
}

impl Default for ConsumerConfig {
    fn default() -> Self {
        Self {
            auto_offset_reset: AutoOffsetReset::Latest,
            enable_auto_commit: true,
            enable_auto_commit_set: false,
            auto_commit_interval_ms: 5_000,
            fetch_min_bytes: 1,
            fetch_max_wait_ms: 500,
            max_partition_fetch_bytes: 1_048_576,
            fetch_max_bytes: 52_428_800,
            max_poll_records: 500,
            allow_auto_create_topics: true,
            session_timeout_ms: 45_000,
            heartbeat_interval_ms: 3000,
            max_poll_interval_ms: 300_000,
            partition_assignment_strategy: "range,cooperative-sticky",
            retry_backoff_ms: 100,
            request_timeout_ms: 30_000,
        }
    }
}

impl ConsumerConfig {
    /// Sets a consumer property. Errors: unknown name, bad value, or another scope's property.
    pub fn set(&mut self, name: &str, text: &str) -> Result<(), ConfigError> {
        let p = lookup(name)?;
        if p.scope != Scope::Consumer {
            return Err(scope_error(p, "on a consumer"));
        }
        match (p.name, p.parse(text)?) {
            ("auto.offset.reset", Value::Choice(w)) => {
                self.auto_offset_reset = match w {
                    "earliest" => AutoOffsetReset::Earliest,
                    "none" => AutoOffsetReset::None,
                    _ => AutoOffsetReset::Latest,
                }
            }
            ("enable.auto.commit", v) => {
                self.enable_auto_commit = as_bool(v);
                self.enable_auto_commit_set = true;
            }
            ("auto.commit.interval.ms", v) => self.auto_commit_interval_ms = as_u64(v),
            ("fetch.min.bytes", v) => self.fetch_min_bytes = as_u64(v),
            ("fetch.max.wait.ms", v) => self.fetch_max_wait_ms = as_u64(v),
            ("max.partition.fetch.bytes", v) => self.max_partition_fetch_bytes = as_u64(v),
            ("fetch.max.bytes", v) => self.fetch_max_bytes = as_u64(v),
            ("max.poll.records", v) => self.max_poll_records = as_u64(v) as u32,
            ("allow.auto.create.topics", v) => self.allow_auto_create_topics = as_bool(v),
            ("session.timeout.ms", v) => self.session_timeout_ms = as_u64(v),
            ("heartbeat.interval.ms", v) => self.heartbeat_interval_ms = as_u64(v),
            ("max.poll.interval.ms", v) => self.max_poll_interval_ms = as_u64(v),
            ("partition.assignment.strategy", Value::Choice(w)) => self.partition_assignment_strategy = w,
            (other, _) => unreachable!("registry entry {other} has no consumer field"),
        }
        Ok(())
    }

    /// Checks what Kafka's `ConsumerConfig.maybeOverrideEnableAutoCommit` refuses: without a
    /// group, `enable.auto.commit=true` set explicitly. Errors: [`ConfigError::Conflict`] with
    /// Kafka's message.
    pub fn validate(&self, group: Option<&str>) -> Result<(), ConfigError> {
        if self.heartbeat_interval_ms >= self.session_timeout_ms {
            // Kafka's `Heartbeat` constructor.
            return Err(ConfigError::Conflict("Heartbeat must be set lower than the session timeout".into()));
        }
        if group.is_none() && self.enable_auto_commit_set && self.enable_auto_commit {
            return Err(ConfigError::Conflict(
                "enable.auto.commit cannot be set to true when default group id (null) is used.".into(),
            ));
        }
        Ok(())
    }

    /// Whether offsets are committed automatically: `enable.auto.commit` with a group; never
    /// without one (`maybeOverrideEnableAutoCommit` turns the default off).
    pub fn auto_commit_in_effect(&self, group: Option<&str>) -> bool {
        group.is_some() && self.enable_auto_commit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn properties_parse_and_auto_commit_needs_a_group() {
        let mut c = ConsumerConfig::default();
        c.set("auto.offset.reset", "earliest").unwrap();
        assert_eq!(c.auto_offset_reset, AutoOffsetReset::Earliest);
        assert!(c.set("auto.offset.reset", "smallest").is_err());
        assert!(c.set("acks", "1").is_err(), "a producer property");
        assert!(!c.auto_commit_in_effect(None));
        assert!(c.validate(None).is_ok(), "the default is turned off without a group");
        c.set("enable.auto.commit", "true").unwrap();
        assert!(c.validate(None).is_err());
        assert!(c.validate(Some("g")).is_ok());
        assert!(c.auto_commit_in_effect(Some("g")));
    }
}
