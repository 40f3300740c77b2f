//! The cluster `isrlab check` runs its schedules on, kept as the TOML of a scenario file so
//! that a failing schedule is written as a scenario that starts exactly that cluster: the
//! default cluster with the load `check` adds (an idempotent and a plain producer, a consumer
//! in a group), shaped by `--brokers`, `--topic`, `--placement` and `--set`; or the cluster of
//! a scenario file (`--scenario FILE`, its timeline, expectations and questions dropped) with
//! `--set` applied.

use crate::cli::{PlacementArg, Setting, TopicArg};
use crate::config::{self, Scope};
use crate::scenario::Scenario;
use crate::sim::BrokerId;
use std::path::Path;
use toml::{Table, Value};

/// Records per second of each of the two producers of the default load.
pub const PRODUCER_RATE: i64 = 50;

/// `__consumer_offsets` partitions in the default load (Kafka's default is 50): the group's
/// coordinator moves with its leader all the same, at a fraction of the cost per seed.
pub const OFFSETS_PARTITIONS: i64 = 3;

/// A cluster as scenario TOML (without timeline or expectations).
#[derive(Clone, Debug)]
pub struct Base {
    /// The scenario's tables: `[cluster]`, `[[topic]]`, `[[producer]]`, `[[consumer]]`.
    pub table: Table,
    /// Where it came from, for messages.
    pub label: String,
}

/// Why a cluster cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum BaseError {
    /// The scenario file cannot be read or parsed (with its location).
    #[error("{0}")]
    File(String),
    /// The cluster the flags or the file give does not load.
    #[error("{0}")]
    Invalid(String),
}

impl Base {
    /// The default cluster with `check`'s load, shaped by the flags.
    pub fn from_flags(
        brokers: Option<u16>,
        topics: &[TopicArg],
        placement: Option<PlacementArg>,
        sets: &[Setting],
    ) -> Result<Base, BaseError> {
        let ids: Vec<BrokerId> = (0..i32::from(brokers.unwrap_or(3))).collect();
        let mut cluster = Table::new();
        cluster
            .insert("brokers".into(), Value::Array(ids.iter().map(|&b| Value::Integer(b.into())).collect()));
        if placement == Some(PlacementArg::Seed) {
            cluster.insert("placement".into(), "seed".into());
        }
        let mut cluster_config = Table::new();
        cluster_config.insert("offsets.topic.num.partitions".into(), Value::Integer(OFFSETS_PARTITIONS));
        cluster.insert("config".into(), Value::Table(cluster_config));
        let default_topic = TopicArg { name: "test_repli".into(), partitions: 6, replication_factor: 3 };
        let topics: Vec<&TopicArg> =
            if topics.is_empty() { vec![&default_topic] } else { topics.iter().collect() };
        let topic_tables = topics.iter().map(|t| {
            let mut table = Table::new();
            table.insert("name".into(), t.name.clone().into());
            table.insert("partitions".into(), Value::Integer(t.partitions.into()));
            table.insert("replication_factor".into(), Value::Integer(t.replication_factor.into()));
            Value::Table(table)
        });
        let first = topics[0].name.clone();
        let producer = |idempotent: bool| {
            let mut table = Table::new();
            table.insert("topic".into(), first.clone().into());
            table.insert("rate".into(), Value::Integer(PRODUCER_RATE));
            if !idempotent {
                table.insert("enable.idempotence".into(), false.into());
            }
            Value::Table(table)
        };
        let mut consumer = Table::new();
        consumer.insert("topics".into(), Value::Array(vec![first.clone().into()]));
        consumer.insert("group".into(), "check".into());
        consumer.insert("auto.offset.reset".into(), "earliest".into());
        let mut table = Table::new();
        table.insert("name".into(), "isrlab check".into());
        table.insert("cluster".into(), Value::Table(cluster));
        table.insert("topic".into(), Value::Array(topic_tables.collect()));
        table.insert("producer".into(), Value::Array(vec![producer(true), producer(false)]));
        table.insert("consumer".into(), Value::Array(vec![Value::Table(consumer)]));
        let mut base = Base { table, label: "the default cluster".into() };
        base.apply(sets)?;
        Ok(base)
    }

    /// The cluster of scenario file `path` (its timeline, expectations and questions
    /// dropped), with `sets` applied. Errors: the file cannot be read or does not load.
    pub fn from_file(path: &Path, sets: &[Setting]) -> Result<Base, BaseError> {
        let label = path.display().to_string();
        // Loading it first gives the file's own located errors (FILE:LINE:COLUMN).
        crate::scenario::load(path).map_err(|e| BaseError::File(e.to_string()))?;
        let text = std::fs::read_to_string(path).map_err(|e| BaseError::File(format!("{label}: {e}")))?;
        let mut table: Table = text.parse().map_err(|e| BaseError::File(format!("{label}: {e}")))?;
        for key in ["at", "expect", "ask", "focus", "seed", "end"] {
            table.remove(key);
        }
        let mut base = Base { table, label };
        base.apply(sets)?;
        Ok(base)
    }

    /// Sets the global `--profile` and `--controllers` in `[cluster]`, as a scenario file
    /// would hold them (the flags win over the file's own, as for `isrlab run`).
    pub fn set_cluster(&mut self, profile: Option<&str>, controllers: Option<usize>) {
        let Some(Value::Table(cluster)) = self.table.get_mut("cluster") else { return };
        if let Some(name) = profile {
            cluster.insert("profile".into(), Value::String(name.to_string()));
        }
        if let Some(n) = controllers {
            cluster.insert("controllers".into(), Value::Integer(n as i64));
        }
    }

    /// Routes each `--set` to where a scenario file holds it: producer properties into every
    /// `[[producer]]`, consumer ones into every `[[consumer]]`, the rest into
    /// `[cluster.config]` (as `isrlab run FILE --set` applies them).
    fn apply(&mut self, sets: &[Setting]) -> Result<(), BaseError> {
        for s in sets {
            let scope = config::lookup(&s.key).map_err(|e| BaseError::Invalid(e.to_string()))?.scope;
            let value = Value::String(s.value.clone());
            match scope {
                Scope::Producer | Scope::Consumer => {
                    let key = if scope == Scope::Producer { "producer" } else { "consumer" };
                    if let Some(Value::Array(clients)) = self.table.get_mut(key) {
                        for c in clients.iter_mut().filter_map(Value::as_table_mut) {
                            c.insert(s.key.clone(), value.clone());
                        }
                    }
                }
                Scope::Broker | Scope::BrokerAndTopic | Scope::Topic | Scope::Lab => {
                    let cluster = self.table.entry("cluster").or_insert_with(|| Table::new().into());
                    if let Some(cluster) = cluster.as_table_mut() {
                        let config = cluster.entry("config").or_insert_with(|| Table::new().into());
                        if let Some(config) = config.as_table_mut() {
                            config.insert(s.key.clone(), value);
                        }
                    }
                }
            }
        }
        self.scenario(0, 1_000).map(|_| ())
    }

    /// The scenario text of this cluster with `seed`, running to `end_ms`, then `extra`
    /// (timeline and expectations, as TOML).
    pub fn text(&self, seed: u64, end_ms: u64, extra: &str) -> String {
        let mut table = self.table.clone();
        table.insert("seed".into(), Value::Integer(i64::try_from(seed).unwrap_or(i64::MAX)));
        table.insert("end".into(), format!("{end_ms}ms").into());
        let mut text = toml::to_string(&table).unwrap_or_default();
        text.push_str(extra);
        text
    }

    /// This cluster as a scenario with `seed` (its timeline empty). Errors: it does not load.
    pub fn scenario(&self, seed: u64, end_ms: u64) -> Result<Scenario, BaseError> {
        crate::scenario::format::parse(&self.label, &self.text(seed, end_ms, ""))
            .map_err(|e| BaseError::Invalid(e.to_string()))
    }
}
