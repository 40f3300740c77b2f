//! The value a property has now, as text in the form `set` takes it back: the read side of
//! each config's `set`, for the dashboard's config view (Kafka's `DescribeConfigs`, which
//! `kafka-configs.sh --describe --all` prints as `name=value`).

use super::{BrokerConfig, ConsumerConfig, PartitionerClass, ProducerConfig, ROUND_ROBIN_PARTITIONER};

impl BrokerConfig {
    /// The stored (cluster-wide, `server.properties`) value of broker property `name`, as
    /// `set` takes it; `None` for a name that is not a broker property, or for
    /// `log.retention.ms`, `log.roll.ms` and `log.flush.interval.ms` while unset (Kafka then
    /// falls back on `log.retention.hours`, `log.roll.hours` and the topic's `flush.ms`).
    pub fn get(&self, name: &str) -> Option<String> {
        let v = |n: u64| Some(n.to_string());
        match name {
            "replica.lag.time.max.ms" => v(self.replica_lag_time_max_ms),
            "replica.lag.max.messages" => v(self.replica_lag_max_messages),
            "replica.fetch.wait.max.ms" => v(self.replica_fetch_wait_max_ms),
            "replica.fetch.max.bytes" => v(self.replica_fetch_max_bytes),
            "replica.fetch.response.max.bytes" => v(self.replica_fetch_response_max_bytes),
            "leader.replication.throttled.rate" => v(self.leader_replication_throttled_rate),
            "follower.replication.throttled.rate" => v(self.follower_replication_throttled_rate),
            "replication.quota.window.num" => v(self.replication_quota_window_num.into()),
            "replication.quota.window.size.seconds" => v(self.replication_quota_window_size_seconds),
            "replica.fetch.backoff.ms" => v(self.replica_fetch_backoff_ms),
            "replica.socket.timeout.ms" => v(self.replica_socket_timeout_ms),
            "max.incremental.fetch.session.cache.slots" => {
                v(self.max_incremental_fetch_session_cache_slots.into())
            }
            "replica.high.watermark.checkpoint.interval.ms" => {
                v(self.replica_high_watermark_checkpoint_interval_ms)
            }
            "broker.heartbeat.interval.ms" => v(self.broker_heartbeat_interval_ms),
            "broker.session.timeout.ms" => v(self.broker_session_timeout_ms),
            "min.insync.replicas" => v(self.min_insync_replicas.into()),
            "unclean.leader.election.enable" => Some(self.unclean_leader_election_enable.to_string()),
            "unclean.leader.election.interval.ms" => v(self.unclean_leader_election_interval_ms),
            "eligible.leader.replicas.version" => v(u64::from(self.semantics.eligible_leader_replicas)),
            "auto.leader.rebalance.enable" => Some(self.auto_leader_rebalance_enable.to_string()),
            "leader.imbalance.check.interval.seconds" => v(self.leader_imbalance_check_interval_seconds),
            "auto.create.topics.enable" => Some(self.auto_create_topics_enable.to_string()),
            "num.partitions" => v(self.num_partitions.into()),
            "default.replication.factor" => v(self.default_replication_factor.into()),
            "offsets.topic.num.partitions" => v(self.offsets_topic_num_partitions.into()),
            "offsets.topic.replication.factor" => v(self.offsets_topic_replication_factor.into()),
            "offsets.commit.timeout.ms" => v(self.offsets_commit_timeout_ms),
            "group.initial.rebalance.delay.ms" => v(self.group_initial_rebalance_delay_ms),
            "group.min.session.timeout.ms" => v(self.group_min_session_timeout_ms),
            "group.max.session.timeout.ms" => v(self.group_max_session_timeout_ms),
            "log.retention.ms" => self.log_retention_ms.map(|n| n.to_string()),
            "log.retention.hours" => Some(self.log_retention_hours.to_string()),
            "log.retention.bytes" => Some(self.log_retention_bytes.to_string()),
            "log.segment.bytes" => v(self.log_segment_bytes),
            "log.roll.ms" => self.log_roll_ms.map(|n| n.to_string()),
            "log.roll.hours" => Some(self.log_roll_hours.to_string()),
            "log.retention.check.interval.ms" => v(self.log_retention_check_interval_ms),
            "log.flush.interval.messages" => v(self.log_flush_interval_messages),
            "log.flush.interval.ms" => self.log_flush_interval_ms.map(|n| n.to_string()),
            "log.flush.scheduler.interval.ms" => v(self.log_flush_scheduler_interval_ms),
            "os.dirty.expire.ms" => v(self.os_dirty_expire_ms),
            "os.dirty.writeback.ms" => v(self.os_dirty_writeback_ms),
            _ => None,
        }
    }
}

impl ProducerConfig {
    /// The value of producer property `name`, as `set producer` takes it; `None` for a name
    /// that is not a producer property.
    pub fn get(&self, name: &str) -> Option<String> {
        let v = |n: u64| Some(n.to_string());
        match name {
            "acks" => Some(self.acks.to_string()),
            "enable.idempotence" => Some(self.enable_idempotence.to_string()),
            "retries" => v(self.retries.into()),
            "delivery.timeout.ms" => v(self.delivery_timeout_ms),
            "request.timeout.ms" => v(self.request_timeout_ms),
            "retry.backoff.ms" => v(self.retry_backoff_ms),
            "retry.backoff.max.ms" => v(self.retry_backoff_max_ms),
            "reconnect.backoff.ms" => v(self.reconnect_backoff_ms),
            "reconnect.backoff.max.ms" => v(self.reconnect_backoff_max_ms),
            "socket.connection.setup.timeout.ms" => v(self.socket_connection_setup_timeout_ms),
            "socket.connection.setup.timeout.max.ms" => v(self.socket_connection_setup_timeout_max_ms),
            "max.in.flight.requests.per.connection" => v(self.max_in_flight.into()),
            "linger.ms" => v(self.linger_ms),
            "batch.size" => v(self.batch_size),
            "max.request.size" => v(self.max_request_size),
            "record.size" => v(self.record_size.into()),
            "rate" => Some(self.rate.to_string()),
            "partitioner.class" => Some(
                match self.partitioner_class {
                    PartitionerClass::BuiltIn => "null",
                    PartitionerClass::RoundRobin => ROUND_ROBIN_PARTITIONER,
                }
                .to_string(),
            ),
            "partitioner.ignore.keys" => Some(self.partitioner_ignore_keys.to_string()),
            "partitioner.adaptive.partitioning.enable" => Some(self.partitioner_adaptive.to_string()),
            "partitioner.availability.timeout.ms" => v(self.partitioner_availability_timeout_ms),
            _ => None,
        }
    }
}

impl ConsumerConfig {
    /// The value of consumer property `name`, as `add-consumer … KEY=VALUE` takes it; `None`
    /// for a name that is not a consumer property.
    pub fn get(&self, name: &str) -> Option<String> {
        let v = |n: u64| Some(n.to_string());
        match name {
            "auto.offset.reset" => Some(self.auto_offset_reset.name().to_string()),
            "enable.auto.commit" => Some(self.enable_auto_commit.to_string()),
            "auto.commit.interval.ms" => v(self.auto_commit_interval_ms),
            "fetch.min.bytes" => v(self.fetch_min_bytes),
            "fetch.max.wait.ms" => v(self.fetch_max_wait_ms),
            "max.partition.fetch.bytes" => v(self.max_partition_fetch_bytes),
            "fetch.max.bytes" => v(self.fetch_max_bytes),
            "max.poll.records" => v(self.max_poll_records.into()),
            "allow.auto.create.topics" => Some(self.allow_auto_create_topics.to_string()),
            "session.timeout.ms" => v(self.session_timeout_ms),
            "heartbeat.interval.ms" => v(self.heartbeat_interval_ms),
            "max.poll.interval.ms" => v(self.max_poll_interval_ms),
            "partition.assignment.strategy" => Some(self.partition_assignment_strategy.to_string()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{PROPERTIES, Scope};
    use super::*;

    /// Every registry property of these scopes reads back what `set` stored: a property added
    /// to the registry without a getter fails here.
    #[test]
    fn every_property_reads_back_what_set_stored() {
        for p in PROPERTIES {
            let text = match p.default {
                "true" => "false",
                "false" => "true",
                other if p.parse(other).is_ok() => other,
                // `null` defaults (unset): any valid value reads back.
                _ => "60000",
            };
            let got = match p.scope {
                Scope::Broker | Scope::BrokerAndTopic => {
                    let mut c = BrokerConfig::default();
                    c.set(p.name, text).unwrap_or_else(|e| panic!("{}: {e}", p.name));
                    c.get(p.name)
                }
                Scope::Producer => {
                    let mut c = ProducerConfig::default();
                    c.set(p.name, text).unwrap_or_else(|e| panic!("{}: {e}", p.name));
                    c.get(p.name)
                }
                Scope::Consumer => {
                    let mut c = ConsumerConfig::default();
                    c.set(p.name, text).unwrap_or_else(|e| panic!("{}: {e}", p.name));
                    c.get(p.name)
                }
                Scope::Topic | Scope::Lab => continue,
            };
            let want = if p.name == "acks" && text == "-1" { "all" } else { text };
            assert_eq!(got.as_deref(), Some(want), "{}", p.name);
        }
    }
}
