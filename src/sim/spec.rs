//! What a run starts from: brokers, topics, producers, configs and the seed.

use crate::config::{BrokerConfig, ConsumerConfig, LabConfig, ProducerConfig, TopicConfig};
use crate::kafka::BrokerId;

/// How replicas are placed when a topic is created (rule book §1).
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub enum Placement {
    /// Kafka's own placement for KRaft: `StripedReplicaPlacer` with a seeded random start (R1.6).
    #[default]
    Kafka,
    /// The seed documents' rule: partition i's replica j on broker (i + j) mod n (R1.1).
    Seed,
    /// Replica lists given by the user, one per partition.
    Explicit(Vec<Vec<BrokerId>>),
}

/// A topic to create at start.
#[derive(Clone, PartialEq, Debug)]
pub struct TopicSpec {
    /// Name.
    pub name: String,
    /// Partition count.
    pub partitions: u32,
    /// Replication factor.
    pub replication_factor: u32,
    /// Replica placement.
    pub placement: Placement,
    /// Topic-level overrides.
    pub config: TopicConfig,
}

/// A producer client to start.
#[derive(Clone, PartialEq, Debug)]
pub struct ProducerSpec {
    /// Topic it writes to (keyless, spread over partitions).
    pub topic: String,
    /// Its configuration, including `rate`.
    pub config: ProducerConfig,
}

/// A consumer client to start.
#[derive(Clone, PartialEq, Debug)]
pub struct ConsumerSpec {
    /// `group.id`; `None`: no group, it is assigned every partition of its topics (`assign()`).
    pub group: Option<String>,
    /// Topics it reads.
    pub topics: Vec<String>,
    /// Its configuration.
    pub config: ConsumerConfig,
}

/// Everything a run starts from.
#[derive(Clone, PartialEq, Debug)]
pub struct ClusterSpec {
    /// Master seed: the same seed and commands give the same run.
    pub seed: u64,
    /// Broker ids, ascending.
    pub brokers: Vec<BrokerId>,
    /// Cluster-wide broker config.
    pub broker_config: BrokerConfig,
    /// Topics created at t=0.
    pub topics: Vec<TopicSpec>,
    /// Producers started at t=0.
    pub producers: Vec<ProducerSpec>,
    /// Consumers started at t=0.
    pub consumers: Vec<ConsumerSpec>,
    /// The lab properties: the network's (`net.*`) every link starts with and the brokers'
    /// processing times (`broker.*`).
    pub net: LabConfig,
    /// Voters of the KRaft controller quorum: 1, 3 or 5 ([`CONTROLLERS_DEFAULT`]), node ids
    /// from [`crate::sim::CONTROLLER_ID`] up.
    pub controllers: usize,
}

/// The controller quorum's size when a scenario or the command line does not say: one
/// controller, as Kafka's quickstart formats a new cluster (`config/server.properties`, one
/// combined node; `controller.quorum.bootstrap.servers=localhost:9093`).
pub const CONTROLLERS_DEFAULT: usize = 1;

/// The quorum sizes isrlab runs: an odd number of voters, as Kafka advises (a majority of 1, 2
/// or 3).
pub const CONTROLLER_COUNTS: [usize; 3] = [1, 3, 5];

impl ClusterSpec {
    /// The seed document's cluster: brokers 0, 1, 2, topic `test_repli` with 6 partitions and
    /// replication factor 3, one producer at 100 records/s with Kafka's current defaults.
    pub fn default_run(seed: u64) -> Self {
        Self::default_run_as(seed, &crate::config::Semantics::CURRENT)
    }

    /// [`ClusterSpec::default_run`] with the defaults and rules of another Kafka version
    /// (a semantics profile, `--profile`).
    pub fn default_run_as(seed: u64, semantics: &crate::config::Semantics) -> Self {
        Self {
            seed,
            brokers: vec![0, 1, 2],
            broker_config: BrokerConfig::defaults_for(semantics),
            topics: vec![TopicSpec {
                name: "test_repli".into(),
                partitions: 6,
                replication_factor: 3,
                placement: Placement::Kafka,
                config: TopicConfig::default(),
            }],
            producers: vec![ProducerSpec {
                topic: "test_repli".into(),
                config: ProducerConfig::defaults_for(semantics),
            }],
            consumers: Vec::new(),
            net: LabConfig::default(),
            controllers: CONTROLLERS_DEFAULT,
        }
    }
}
