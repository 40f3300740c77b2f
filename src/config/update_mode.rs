//! How a changed value reaches the processes that use it: Kafka's dynamic update modes
//! (`DynamicBrokerConfig`), and which of isrlab's properties take effect at once, at a broker's
//! or the controller's next start, or at the client's next batches.

use super::{Property, Scope};

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
pub(super) const READ_BY_CONTROLLER: &[&str] = &[
    "broker.session.timeout.ms",
    "unclean.leader.election.interval.ms",
    "auto.leader.rebalance.enable",
    "leader.imbalance.check.interval.seconds",
];

/// Broker properties Kafka applies through its broker quota configs (`QuotaConfig`, read by
/// `BrokerConfigHandler.processConfigChanges` into the `ReplicationQuotaManager`s), so dynamic.
pub(super) const DYNAMIC_QUOTA_CONFIGS: &[&str] =
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
            // A feature level goes through the metadata log (`kafka-features.sh`,
            // `FeatureControlManager`), so every node has it at once.
            Scope::Broker if self.name == "eligible.leader.replicas.version" => UpdateMode::Dynamic,
            Scope::Broker if READ_BY_CONTROLLER.contains(&self.name) => UpdateMode::ControllerRestart,
            Scope::Broker => UpdateMode::BrokerRestart,
        }
    }
}
