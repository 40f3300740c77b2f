//! Dynamic config changes (Kafka's `ConfigurationControlManager`, what `kafka-configs.sh
//! --alter` writes): the cluster-wide broker config, per-broker throttle rates and topic
//! overrides. A change is checked on a copy, kept only when valid, and broadcast.

use super::QuorumController;
use crate::config::{BrokerConfig, ConfigError};
use crate::sim::error::SimError;
use crate::sim::{BrokerId, Ms, Outbox};
use std::sync::Arc;

impl QuorumController {
    /// Sets a cluster-wide broker property (`kafka-configs.sh --entity-default --entity-type
    /// brokers`) and broadcasts the new config. Enabling `unclean.leader.election.enable` acts at
    /// the next periodic unclean check, as in KRaft 3.9+ (R6.5); interval changes move the
    /// pending deadlines; disabling `auto.leader.rebalance.enable` cancels a pending rebalance.
    /// With ELR on, setting `min.insync.replicas`, even to the value it had, clears every
    /// partition's ELR and LastKnownELR ([`QuorumController::clear_elr`]). Emits no event of its
    /// own (the supervisor reports config changes).
    ///
    /// Errors: [`ConfigError`] for an unknown name, a bad value or a producer property; nothing
    /// changes then.
    pub fn set_broker_config(
        &mut self,
        now: Ms,
        key: &str,
        value: &str,
        out: &mut Outbox,
    ) -> Result<(), ConfigError> {
        self.change_broker_config(now, out, |c| c.set(key, value))?;
        self.clear_elr_after(key, None, now, out);
        Ok(())
    }

    /// Clears ELR state after a `min.insync.replicas` change of `topic` (or the cluster), with
    /// ELR on (R8.3), and broadcasts it.
    fn clear_elr_after(&mut self, key: &str, topic: Option<&str>, now: Ms, out: &mut Outbox) {
        if key == "min.insync.replicas" && self.config.semantics.eligible_leader_replicas {
            self.clear_elr(topic, out);
            self.after_write(now);
            self.flush(out);
        }
    }

    /// Sets a property for broker `broker` alone (`kafka-configs.sh --entity-type brokers
    /// --entity-name B`; isrlab keeps only the replication throttle rates per broker,
    /// [`BrokerConfig::set_for_broker`]) and broadcasts the new config. Emits no event.
    ///
    /// Errors: [`ConfigError`] for a bad name or value, or a property not set per broker;
    /// nothing changes then.
    pub fn set_broker_config_for(
        &mut self,
        now: Ms,
        broker: BrokerId,
        key: &str,
        value: &str,
        out: &mut Outbox,
    ) -> Result<(), ConfigError> {
        self.change_broker_config(now, out, |c| c.set_for_broker(broker, key, value))
    }

    /// Applies `change` to a copy of the broker config, checks it, and broadcasts it if it
    /// differs. Errors: those of `change` or of [`BrokerConfig::validate`].
    fn change_broker_config(
        &mut self,
        now: Ms,
        out: &mut Outbox,
        change: impl FnOnce(&mut BrokerConfig) -> Result<(), ConfigError>,
    ) -> Result<(), ConfigError> {
        let mut config = self.config.clone();
        change(&mut config)?;
        config.validate()?;
        if config != self.config {
            self.config = config;
            self.pending.broker_config = Some(Arc::new(self.config.clone()));
        }
        self.after_write(now);
        self.flush(out);
        Ok(())
    }

    /// Sets a topic-level override (`kafka-configs.sh --entity-type topics`) and broadcasts the
    /// topic's new config. Enabling unclean election acts at the next periodic unclean check
    /// (R6.5, KRaft 3.9+). With ELR on, setting `min.insync.replicas` clears the ELR state of
    /// the topic's partitions, even for the same value. Emits no event of its own.
    ///
    /// Errors (nothing changes): [`SimError::UnknownTopic`]; [`SimError::Config`] for a bad name,
    /// value or a property topics cannot override.
    pub fn set_topic_config(
        &mut self,
        now: Ms,
        topic: &str,
        key: &str,
        value: &str,
        out: &mut Outbox,
    ) -> Result<(), SimError> {
        let t = self.topics.get_mut(topic).ok_or_else(|| SimError::UnknownTopic(topic.to_string()))?;
        let mut config = t.config.clone();
        config.set(key, value)?;
        if config != t.config {
            t.config = config;
            self.pending.topic_configs.push((t.name.clone(), t.config.clone()));
        }
        self.after_write(now);
        self.flush(out);
        self.clear_elr_after(key, Some(topic), now, out);
        Ok(())
    }
}
