//! The brokers' configuration (Kafka's `KafkaConfig` for the properties isrlab models), set
//! cluster-wide as `kafka-configs.sh --entity-default --entity-type brokers` does, with the
//! values set for one broker (`--entity-name B`) kept beside them.

use super::update_mode::{DYNAMIC_QUOTA_CONFIGS, READ_BY_CONTROLLER};
use super::value::{as_bool, as_i64, as_u64};
use super::{BrokerThrottleRates, ConfigError, Scope, Semantics, lookup, scope_error};
use crate::kafka::{BrokerId, Ms};
use std::collections::BTreeMap;

/// ms per hour, for the `*.hours` properties.
const MS_PER_HOUR: i64 = 3_600_000;

/// Cluster-wide broker configuration (all brokers share it, as with `--entity-default`).
#[derive(Clone, PartialEq, Debug)]
pub struct BrokerConfig {
    /// `replica.lag.time.max.ms` (ms).
    pub replica_lag_time_max_ms: Ms,
    /// `replica.lag.max.messages` (messages): Kafka 0.8's count rule (R4.4), read only when
    /// [`Semantics::isr_lag`] is [`super::semantics::IsrLag::TimeAndMessages`]
    /// (`KafkaConfig.replicaLagMaxMessages` at 0.8.2, default 4000).
    pub replica_lag_max_messages: u64,
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
    /// `auto.create.topics.enable`: a Metadata request that allows it creates a missing topic
    /// (`KafkaApis.handleTopicMetadataRequest`).
    pub auto_create_topics_enable: bool,
    /// `num.partitions`: partitions of an automatically created topic.
    pub num_partitions: u32,
    /// `default.replication.factor`: replicas of an automatically created topic.
    pub default_replication_factor: u32,
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
        Self::defaults_for(&Semantics::CURRENT)
    }
}

impl BrokerConfig {
    /// Kafka's broker defaults in the given Kafka version (rule book §11): the version's
    /// `replica.lag.time.max.ms` (KIP-537) and `unclean.leader.election.enable` (KIP-106)
    /// defaults, and its replication rules.
    pub fn defaults_for(semantics: &Semantics) -> Self {
        Self {
            replica_lag_time_max_ms: semantics.default_replica_lag_time_max_ms,
            replica_lag_max_messages: 4000,
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
            unclean_leader_election_enable: semantics.default_unclean_leader_election,
            unclean_leader_election_interval_ms: 300_000,
            auto_leader_rebalance_enable: true,
            leader_imbalance_check_interval_seconds: 300,
            auto_create_topics_enable: true,
            num_partitions: 1,
            default_replication_factor: 1,
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
            semantics: *semantics,
        }
    }
}

impl BrokerConfig {
    /// Checks the combinations Kafka's `KafkaConfig` refuses at start-up. Errors:
    /// [`ConfigError::Conflict`] with Kafka's message.
    pub fn validate(&self) -> Result<(), ConfigError> {
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

    /// How often a leader runs its `isr-expiration` check (ms, R4.2): half of
    /// `replica.lag.time.max.ms` (`ReplicaManager.startup`), or all of it under Kafka 0.8's
    /// count rule (`ReplicaManager.startup` at 0.8.2 scheduled it every `replicaLagTimeMaxMs`).
    pub fn isr_check_interval_ms(&self) -> Ms {
        match self.semantics.isr_lag {
            super::semantics::IsrLag::Time => self.replica_lag_time_max_ms / 2,
            super::semantics::IsrLag::TimeAndMessages => self.replica_lag_time_max_ms,
        }
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

    /// This config (what a broker started with) with every [`super::UpdateMode::Dynamic`] property
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
            // A feature level reaches every node through the metadata log.
            semantics: Semantics {
                eligible_leader_replicas: latest.semantics.eligible_leader_replicas,
                ..self.semantics
            },
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
    /// broker's next start is the property's [`super::Property::update_mode`].
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
            "replica.lag.max.messages" => self.replica_lag_max_messages = as_u64(v),
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
            "eligible.leader.replicas.version" => self.semantics.eligible_leader_replicas = as_u64(v) == 1,
            "auto.leader.rebalance.enable" => self.auto_leader_rebalance_enable = as_bool(v),
            "leader.imbalance.check.interval.seconds" => {
                self.leader_imbalance_check_interval_seconds = as_u64(v)
            }
            "auto.create.topics.enable" => self.auto_create_topics_enable = as_bool(v),
            "num.partitions" => self.num_partitions = as_u64(v) as u32,
            "default.replication.factor" => self.default_replication_factor = as_u64(v) as u32,
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
