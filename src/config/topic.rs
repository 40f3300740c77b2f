//! A topic's config overrides (`kafka-configs.sh --entity-type topics`) and the effective
//! settings of its partitions' logs under the broker defaults (Kafka's `LogConfig`).

use super::value::{as_bool, as_i64, as_replicas, as_u64};
use super::{BrokerConfig, ConfigError, Scope, ThrottledReplicas, lookup, scope_error};
use crate::kafka::Ms;

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
    /// R5.6, [`super::Semantics::strict_min_isr`]); the configured value before.
    pub fn effective_min_isr(&self, broker: &BrokerConfig, replica_count: usize) -> usize {
        let configured = self.min_insync_replicas(broker) as usize;
        if broker.semantics.strict_min_isr { configured.min(replica_count.max(1)) } else { configured }
    }

    /// Whether unclean election is allowed for this topic (override or broker default).
    pub fn unclean_leader_election_enable(&self, broker: &BrokerConfig) -> bool {
        self.unclean_leader_election_enable.unwrap_or(broker.unclean_leader_election_enable)
    }

    /// Whether the controller elects an unclean leader for this topic by itself: the topic
    /// allows it and the KRaft controller applies the setting ([`super::Semantics::kraft_unclean_election`],
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
