//! Scenario files, format v1 (TOML): the serde types that mirror the file and their
//! validation into a [`Scenario`]. Every mistake is reported as `FILE:LINE:COLUMN: message`
//! at the offending value. Later versions add fields; v1 files keep working.

use super::checks::{self, Known};
use super::duration::{DURATION_HINT, TimeSpec, parse_time};
use super::error::{LoadError, SpanError};
use super::expect::{Check, Comparison, Expectation};
use crate::cluster::command::Command;
use crate::cluster::spec::{ClusterSpec, Placement, ProducerSpec, TopicSpec};
use crate::config::{BrokerConfig, ConfigError, ProducerConfig, TopicConfig};
use crate::kafka::errors::{self, ErrorCode};
use crate::sim::{BrokerId, CONTROLLER_ID, Ms, TopicPartition, format_time, join_ids};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use toml::{Spanned, Value};

/// The scenario format version this build reads.
pub const FORMAT_VERSION: i64 = 1;

/// Most brokers a cluster may have (isrlab's limit, see [`crate::cluster::handle::MAX_BROKERS`]).
pub const MAX_BROKERS: i64 = crate::cluster::handle::MAX_BROKERS as i64;

/// A loaded, validated scenario.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// Its title.
    pub name: String,
    /// Optional longer text.
    pub description: Option<String>,
    /// The seed the file fixes, if any (`spec.seed` holds it, or 0).
    pub seed: Option<u64>,
    /// The cluster to start.
    pub spec: ClusterSpec,
    /// Commands with the sim time (ms) to apply them, in time order (file order within an
    /// instant).
    pub timeline: Vec<(Ms, Command)>,
    /// Checks with their sim time (ms), in time order (file order within an instant).
    pub expectations: Vec<Expectation>,
    /// Sim time (ms) at which a headless run stops.
    pub end: Ms,
}

type Table = BTreeMap<Spanned<String>, Spanned<Value>>;
type Res<T> = Result<T, SpanError>;
type IdList = Spanned<Vec<Spanned<BrokerId>>>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScenario {
    version: Option<Spanned<i64>>,
    name: String,
    description: Option<String>,
    seed: Option<u64>,
    end: Spanned<Value>,
    cluster: RawCluster,
    #[serde(default)]
    topic: Vec<RawTopic>,
    #[serde(default)]
    producer: Vec<Spanned<Table>>,
    #[serde(default)]
    at: Vec<RawAction>,
    #[serde(default)]
    expect: Vec<Spanned<RawExpect>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCluster {
    brokers: Spanned<Value>,
    placement: Option<Spanned<String>>,
    #[serde(default)]
    config: Table,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTopic {
    name: Spanned<String>,
    partitions: Spanned<u32>,
    replication_factor: Spanned<u32>,
    assignment: Option<Spanned<Vec<IdList>>>,
    #[serde(default)]
    config: Table,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAction {
    time: Spanned<Value>,
    #[serde(rename = "do")]
    command: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExpect {
    time: Spanned<Value>,
    partition: Option<Spanned<String>>,
    leader: Option<Spanned<Value>>,
    isr: Option<IdList>,
    replicas: Option<IdList>,
    leader_epoch: Option<Spanned<Value>>,
    hw: Option<Spanned<Value>>,
    leo: Option<Table>,
    acked_lost: Option<Spanned<Value>>,
    duplicates: Option<Spanned<Value>>,
    offline_partitions: Option<Spanned<Value>>,
    under_replicated: Option<Spanned<Value>>,
    errors: Option<Table>,
    producer: Option<Spanned<u32>>,
}

/// Reads and validates a scenario file. Errors: [`LoadError`] naming the file, and for
/// invalid content the line and column of the offending value.
pub fn load(path: &Path) -> Result<Scenario, LoadError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| LoadError::Read { file: file.clone(), message: e.to_string() })?;
    parse(&file, &text)
}

/// Validates scenario `text`; `file` names it in errors. Errors: [`LoadError::Invalid`].
pub fn parse(file: &str, text: &str) -> Result<Scenario, LoadError> {
    let raw: RawScenario = toml::from_str(text).map_err(|e| {
        let span = e.span().unwrap_or(0..0);
        SpanError::new(span, e.message().trim().to_string()).locate(file, text)
    })?;
    build(raw).map_err(|e| e.locate(file, text))
}

fn err<T>(spanned_at: std::ops::Range<usize>, message: impl Into<String>) -> Res<T> {
    Err(SpanError::new(spanned_at, message))
}

fn build(raw: RawScenario) -> Res<Scenario> {
    if let Some(v) = &raw.version
        && *v.get_ref() != FORMAT_VERSION
    {
        let msg =
            format!("this file is scenario format v{}; this isrlab reads v{FORMAT_VERSION}", v.get_ref());
        return err(v.span(), msg);
    }
    let end = end_time(&raw.end)?;
    let spec = cluster_spec(&raw)?;
    let mut known = Known::new(&spec);
    let timeline = timeline(&raw.at, &mut known, end)?;
    let mut expectations = Vec::new();
    for e in &raw.expect {
        expectations.extend(expectation(e, &known, spec.producers.len(), end)?);
    }
    expectations.sort_by_key(|e| e.at);
    Ok(Scenario {
        name: raw.name,
        description: raw.description,
        seed: raw.seed,
        spec,
        timeline,
        expectations,
        end,
    })
}

fn cluster_spec(raw: &RawScenario) -> Res<ClusterSpec> {
    let brokers = broker_ids(&raw.cluster.brokers)?;
    let placement = placement(raw.cluster.placement.as_ref())?;
    let mut broker_config = BrokerConfig::default();
    apply_config(in_file_order(&raw.cluster.config), |k, v| broker_config.set(k, v))?;
    let mut topics: Vec<TopicSpec> = Vec::new();
    for t in &raw.topic {
        if topics.iter().any(|known| known.name == *t.name.get_ref()) {
            return err(t.name.span(), format!("topic `{}` is defined twice", t.name.get_ref()));
        }
        topics.push(topic(t, &brokers, &placement)?);
    }
    let producers = raw.producer.iter().map(|p| producer(p, &topics)).collect::<Res<Vec<_>>>()?;
    Ok(ClusterSpec { seed: raw.seed.unwrap_or(0), brokers, broker_config, topics, producers })
}

fn end_time(v: &Spanned<Value>) -> Res<Ms> {
    match time_of(v)? {
        TimeSpec::At(0) => err(v.span(), "`end` must be after 0 ms"),
        TimeSpec::At(t) => Ok(t),
        TimeSpec::End => err(v.span(), format!("`end` cannot be \"end\"; {DURATION_HINT}")),
    }
}

fn time_of(v: &Spanned<Value>) -> Res<TimeSpec> {
    match v.get_ref() {
        Value::Integer(n) if *n >= 0 => Ok(TimeSpec::At(n.unsigned_abs())),
        Value::String(s) => parse_time(s).map_err(|m| SpanError::new(v.span(), m)),
        _ => err(v.span(), "expected a time such as \"30s\", \"1500ms\", \"2m\" or \"end\""),
    }
}

/// A time no later than `end`, with `end` resolved.
fn time_within(v: &Spanned<Value>, end: Ms) -> Res<Ms> {
    let t = time_of(v)?.resolve(end);
    if t > end {
        let msg = format!("time {} is after the scenario's end ({})", format_time(t), format_time(end));
        return err(v.span(), msg);
    }
    Ok(t)
}

fn broker_ids(v: &Spanned<Value>) -> Res<Vec<BrokerId>> {
    let ids: Vec<BrokerId> = match v.get_ref() {
        Value::Integer(n) if (1..=MAX_BROKERS).contains(n) => {
            (0..*n).filter_map(|i| i32::try_from(i).ok()).collect()
        }
        Value::Integer(n) => {
            return err(v.span(), format!("a cluster has 1 to {MAX_BROKERS} brokers, not {n}"));
        }
        Value::Array(items) if !items.is_empty() && items.len() <= MAX_BROKERS as usize => {
            items.iter().map(broker_id_value).collect::<Option<_>>().ok_or_else(|| {
                SpanError::new(v.span(), format!("broker ids are integers from 0 to {}", CONTROLLER_ID - 1))
            })?
        }
        _ => {
            return err(
                v.span(),
                format!("expected a broker count (1 to {MAX_BROKERS}) or a list such as [1, 2, 3]"),
            );
        }
    };
    let unique: BTreeSet<BrokerId> = ids.iter().copied().collect();
    if unique.len() != ids.len() {
        return err(v.span(), "a broker id appears twice");
    }
    Ok(unique.into_iter().collect())
}

fn broker_id_value(v: &Value) -> Option<BrokerId> {
    v.as_integer().and_then(|n| i32::try_from(n).ok()).filter(|n| (0..CONTROLLER_ID).contains(n))
}

fn placement(v: Option<&Spanned<String>>) -> Res<Placement> {
    match v.map(|s| s.get_ref().as_str()) {
        None | Some("kafka") => Ok(Placement::Kafka),
        Some("seed") => Ok(Placement::Seed),
        Some(other) => err(
            v.map_or(0..0, Spanned::span),
            format!(
                "unknown placement `{other}`; expected \"kafka\" (StripedReplicaPlacer) or \"seed\" (i+j mod n)"
            ),
        ),
    }
}

/// A config value as the registry's text: TOML integers, floats, booleans and strings.
fn config_text(v: &Spanned<Value>) -> Res<String> {
    match v.get_ref() {
        Value::Integer(n) => Ok(n.to_string()),
        Value::Float(f) => Ok(f.to_string()),
        Value::Boolean(b) => Ok(b.to_string()),
        Value::String(s) => Ok(s.clone()),
        _ => err(v.span(), "expected a number, a boolean or a string"),
    }
}

/// A table's entries in the order the file lists them.
fn in_file_order(table: &Table) -> Vec<(&Spanned<String>, &Spanned<Value>)> {
    let mut entries: Vec<_> = table.iter().collect();
    entries.sort_by_key(|(k, _)| k.span().start);
    entries
}

/// Applies `"property" = value` entries through the registry, in order.
fn apply_config<'a>(
    entries: impl IntoIterator<Item = (&'a Spanned<String>, &'a Spanned<Value>)>,
    mut set: impl FnMut(&str, &str) -> Result<(), ConfigError>,
) -> Res<()> {
    for (key, value) in entries {
        let text = config_text(value)?;
        set(key.get_ref(), &text).map_err(|e| {
            let span = if matches!(e, ConfigError::InvalidValue { .. }) { value.span() } else { key.span() };
            SpanError::new(span, e.to_string())
        })?;
    }
    Ok(())
}

fn topic(raw: &RawTopic, brokers: &[BrokerId], cluster_placement: &Placement) -> Res<TopicSpec> {
    let name = raw.name.get_ref();
    checks::check_topic_name(name).map_err(|m| SpanError::new(raw.name.span(), m))?;
    let (partitions, rf) = (*raw.partitions.get_ref(), *raw.replication_factor.get_ref());
    checks::check_partitions(partitions).map_err(|m| SpanError::new(raw.partitions.span(), m))?;
    checks::check_replication_factor(rf, brokers.len())
        .map_err(|m| SpanError::new(raw.replication_factor.span(), m))?;
    let placement = match &raw.assignment {
        Some(lists) => Placement::Explicit(assignment(lists, partitions, rf, brokers)?),
        None => cluster_placement.clone(),
    };
    let mut config = TopicConfig::default();
    apply_config(in_file_order(&raw.config), |k, v| config.set(k, v))?;
    Ok(TopicSpec { name: name.clone(), partitions, replication_factor: rf, placement, config })
}

fn assignment(
    lists: &Spanned<Vec<IdList>>,
    partitions: u32,
    rf: u32,
    brokers: &[BrokerId],
) -> Res<Vec<Vec<BrokerId>>> {
    if lists.get_ref().len() != partitions as usize {
        let msg = format!(
            "assignment has {} replica lists but the topic has {partitions} partitions",
            lists.get_ref().len()
        );
        return err(lists.span(), msg);
    }
    let mut out = Vec::new();
    for list in lists.get_ref() {
        if list.get_ref().len() != rf as usize {
            let msg = format!(
                "this replica list has {} brokers but replication_factor is {rf}",
                list.get_ref().len()
            );
            return err(list.span(), msg);
        }
        let ids = id_list(list, brokers)?;
        if ids.iter().collect::<BTreeSet<_>>().len() != ids.len() {
            return err(list.span(), "a broker appears twice in this replica list");
        }
        out.push(ids);
    }
    Ok(out)
}

/// A list of broker ids that must all exist.
fn id_list(list: &IdList, brokers: &[BrokerId]) -> Res<Vec<BrokerId>> {
    list.get_ref().iter().map(|id| existing_broker(*id.get_ref(), id.span(), brokers)).collect()
}

fn existing_broker(id: BrokerId, span: std::ops::Range<usize>, brokers: &[BrokerId]) -> Res<BrokerId> {
    if brokers.contains(&id) {
        Ok(id)
    } else {
        err(span, format!("broker {id} does not exist (brokers: {})", join_ids(brokers)))
    }
}

fn producer(table: &Spanned<Table>, topics: &[TopicSpec]) -> Res<ProducerSpec> {
    let topic = table.get_ref().iter().find(|(k, _)| k.get_ref() == "topic").map(|(_, v)| v);
    let Some(topic) = topic else {
        return err(table.span(), "a [[producer]] needs `topic = \"NAME\"`");
    };
    let name = match topic.get_ref() {
        Value::String(s) if topics.iter().any(|t| t.name == *s) => s.clone(),
        _ => {
            let names: Vec<&str> = topics.iter().map(|t| t.name.as_str()).collect();
            return err(topic.span(), format!("expected the name of a [[topic]] ({})", names.join(", ")));
        }
    };
    let mut config = ProducerConfig::default();
    let rest = in_file_order(table.get_ref()).into_iter().filter(|(k, _)| k.get_ref() != "topic");
    apply_config(rest, |k, v| config.set(k, v))?;
    Ok(ProducerSpec { topic: name, config })
}

fn timeline(actions: &[RawAction], known: &mut Known, end: Ms) -> Res<Vec<(Ms, Command)>> {
    let mut timed = Vec::new();
    for a in actions {
        let at = time_within(&a.time, end)?;
        let cmd = Command::parse(a.command.get_ref())
            .map_err(|e| SpanError::new(a.command.span(), format!("invalid command: {e}")))?;
        timed.push((at, cmd, a.command.span()));
    }
    timed.sort_by_key(|(at, _, _)| *at);
    for (_, cmd, span) in &timed {
        known.check_command(cmd).map_err(|m| SpanError::new(span.clone(), format!("`{cmd}`: {m}")))?;
    }
    Ok(timed.into_iter().map(|(at, cmd, _)| (at, cmd)).collect())
}

fn comparison_of(v: &Spanned<Value>) -> Res<Comparison> {
    match v.get_ref() {
        Value::Integer(n) => Ok(Comparison::exactly(*n)),
        Value::String(s) => Comparison::parse(s).map_err(|m| SpanError::new(v.span(), m)),
        _ => err(v.span(), "expected a number or a comparison such as \">0\" or \"<=5\""),
    }
}

fn partition_of(v: &Spanned<String>, known: &Known) -> Res<TopicPartition> {
    let text = v.get_ref();
    let parsed = text.rsplit_once('-').and_then(|(t, n)| n.parse::<u32>().ok().map(|n| (t, n)));
    let Some((topic, n)) = parsed else {
        return err(v.span(), format!("`{text}` is not TOPIC-PARTITION such as `test_repli-2`"));
    };
    let count = known.topic(topic).map_err(|m| SpanError::new(v.span(), m))?;
    if n >= count {
        return err(
            v.span(),
            format!("no partition `{text}`: topic `{topic}` has partitions 0 to {}", count - 1),
        );
    }
    Ok(TopicPartition::new(topic, n))
}

fn expectation(raw: &Spanned<RawExpect>, known: &Known, producers: usize, end: Ms) -> Res<Vec<Expectation>> {
    let e = raw.get_ref();
    let at = time_within(&e.time, end)?;
    let mut checks = match &e.partition {
        Some(p) => partition_checks(e, &partition_of(p, known)?, &known.brokers)?,
        None => no_partition_checks(e)?,
    };
    if let Some(v) = &e.acked_lost {
        checks.push(Check::AckedLost(comparison_of(v)?));
    }
    if let Some(v) = &e.duplicates {
        checks.push(Check::Duplicates(comparison_of(v)?));
    }
    if let Some(v) = &e.offline_partitions {
        checks.push(Check::OfflinePartitions(comparison_of(v)?));
    }
    if let Some(v) = &e.under_replicated {
        checks.push(Check::UnderReplicated(comparison_of(v)?));
    }
    checks.extend(error_checks(e, producers)?);
    if checks.is_empty() {
        return err(
            raw.span(),
            "this [[expect]] checks nothing; add e.g. `leader`, `isr`, `hw` or `acked_lost`",
        );
    }
    Ok(checks.into_iter().map(|check| Expectation { at, check }).collect())
}

/// Errors if a partition-level field is given without `partition`.
fn no_partition_checks(e: &RawExpect) -> Res<Vec<Check>> {
    let spans = [
        e.leader.as_ref().map(|v| ("leader", v.span())),
        e.isr.as_ref().map(|v| ("isr", v.span())),
        e.replicas.as_ref().map(|v| ("replicas", v.span())),
        e.leader_epoch.as_ref().map(|v| ("leader_epoch", v.span())),
        e.hw.as_ref().map(|v| ("hw", v.span())),
        e.leo.as_ref().and_then(|t| t.keys().next()).map(|k| ("leo", k.span())),
    ];
    match spans.into_iter().flatten().next() {
        Some((field, span)) => {
            err(span, format!("`{field}` needs `partition = \"TOPIC-N\"` in the same [[expect]]"))
        }
        None => Ok(Vec::new()),
    }
}

fn partition_checks(e: &RawExpect, tp: &TopicPartition, brokers: &[BrokerId]) -> Res<Vec<Check>> {
    let mut checks = Vec::new();
    if let Some(v) = &e.leader {
        checks.push(Check::Leader(tp.clone(), leader_of(v, brokers)?));
    }
    if let Some(list) = &e.isr {
        checks.push(Check::Isr(tp.clone(), id_list(list, brokers)?));
    }
    if let Some(list) = &e.replicas {
        checks.push(Check::Replicas(tp.clone(), id_list(list, brokers)?));
    }
    if let Some(v) = &e.leader_epoch {
        checks.push(Check::LeaderEpoch(tp.clone(), comparison_of(v)?));
    }
    if let Some(v) = &e.hw {
        checks.push(Check::Hw(tp.clone(), comparison_of(v)?));
    }
    for (key, value) in e.leo.iter().flat_map(in_file_order) {
        let id = key.get_ref().parse::<BrokerId>().map_err(|_| {
            SpanError::new(
                key.span(),
                format!("`{}` is not a broker id; write leo = {{ 0 = 10 }}", key.get_ref()),
            )
        })?;
        let id = existing_broker(id, key.span(), brokers)?;
        checks.push(Check::Leo(tp.clone(), id, comparison_of(value)?));
    }
    if checks.is_empty() {
        let span = e.partition.as_ref().map_or(0..0, Spanned::span);
        return err(
            span,
            "nothing to check for this partition; add `leader`, `isr`, `replicas`, `leader_epoch`, `hw` or `leo`",
        );
    }
    Ok(checks)
}

fn leader_of(v: &Spanned<Value>, brokers: &[BrokerId]) -> Res<Option<BrokerId>> {
    match v.get_ref() {
        Value::String(s) if s == "none" => Ok(None),
        Value::Integer(n) => {
            let id = i32::try_from(*n).unwrap_or(-1);
            existing_broker(id, v.span(), brokers).map(Some)
        }
        _ => err(v.span(), "expected a broker id or \"none\" (offline)"),
    }
}

fn error_checks(e: &RawExpect, producers: usize) -> Res<Vec<Check>> {
    let Some(table) = &e.errors else {
        return match &e.producer {
            Some(p) => err(p.span(), "`producer` selects whose `errors` to check; add an `errors` table"),
            None => Ok(Vec::new()),
        };
    };
    let producer = e.producer.as_ref().map_or(0, |p| *p.get_ref());
    if producer as usize >= producers {
        let span = e
            .producer
            .as_ref()
            .map_or_else(|| table.keys().next().map_or(0..0, Spanned::span), Spanned::span);
        return err(
            span,
            format!(
                "there is no producer {producer}: the file defines {producers} [[producer]] table(s), numbered from 0"
            ),
        );
    }
    let mut checks = Vec::new();
    for (key, value) in in_file_order(table) {
        let error = ErrorCode::from_name(key.get_ref())
            .ok_or_else(|| SpanError::new(key.span(), unknown_error(key.get_ref())))?;
        checks.push(Check::ProducerErrors { producer, error, count: comparison_of(value)? });
    }
    Ok(checks)
}

fn unknown_error(name: &str) -> String {
    let mut close: Vec<(f64, &str)> = errors::ALL
        .iter()
        .map(|e| (strsim::jaro_winkler(name, e.name()), e.name()))
        .filter(|(score, _)| *score > 0.8)
        .collect();
    close.sort_by(|a, b| b.0.total_cmp(&a.0));
    match close.first() {
        Some((_, best)) => format!("unknown Kafka error `{name}`; did you mean `{best}`?"),
        None => {
            let all: Vec<&str> = errors::ALL.iter().map(|e| e.name()).collect();
            format!("unknown Kafka error `{name}`; known errors: {}", all.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Acks;

    const HEAD: &str = "name = \"x\"\nend = \"60s\"\n[cluster]\nbrokers = 3\n[[topic]]\nname = \"t\"\npartitions = 2\nreplication_factor = 3\n[[producer]]\ntopic = \"t\"\nrate = 0\n";

    /// The error for HEAD followed by `rest`, as `LINE:COLUMN: message` (HEAD has 11 lines).
    fn error(rest: &str) -> String {
        match parse("f", &format!("{HEAD}{rest}")) {
            Err(LoadError::Invalid { line, column, message, .. }) => format!("{line}:{column}: {message}"),
            other => panic!("expected an error, got {other:?}"),
        }
    }

    #[test]
    fn a_full_file_becomes_a_scenario() {
        let text = format!(
            "{HEAD}acks = 1\n\"enable.idempotence\" = false\n[[at]]\ntime = \"20s\"\ndo = \"restart 2\"\n[[at]]\ntime = 10000\ndo = \"crash 2\"\n\
             [[expect]]\ntime = \"end\"\npartition = \"t-1\"\nleader = \"none\"\nisr = [2, 0]\nleo = {{ 0 = \">=3\" }}\n\
             [[expect]]\ntime = \"30s\"\nerrors = {{ NOT_ENOUGH_REPLICAS = \">0\" }}\nacked_lost = 0\n"
        );
        let s = parse("f", &text).unwrap();
        assert_eq!(
            s.timeline,
            vec![
                (10_000, Command::parse("crash 2").unwrap()),
                (20_000, Command::parse("restart 2").unwrap())
            ]
        );
        assert_eq!(s.spec.producers[0].config.acks, Acks::One);
        assert_eq!(s.spec.producers[0].config.rate, 0.0);
        assert_eq!(s.end, 60_000);
        let at: Vec<Ms> = s.expectations.iter().map(|e| e.at).collect();
        assert_eq!(at, [30_000, 30_000, 60_000, 60_000, 60_000]);
        let tp = TopicPartition::new("t", 1);
        assert_eq!(s.expectations[2].check, Check::Leader(tp.clone(), None));
        assert_eq!(s.expectations[4].check, Check::Leo(tp, 0, Comparison::parse(">=3").unwrap()));
    }

    #[test]
    fn semantic_errors_point_at_the_value() {
        assert_eq!(
            error("[[at]]\ntime = \"70s\"\ndo = \"crash 1\"\n"),
            "13:8: time 00:01:10.0 is after the scenario's end (00:01:00.0)"
        );
        assert_eq!(
            error("[[at]]\ntime = \"1s\"\ndo = \"crash 9\"\n"),
            "14:6: `crash 9`: broker 9 does not exist (brokers: 0,1,2)"
        );
        assert_eq!(
            error("[[expect]]\ntime = \"1s\"\npartition = \"t-2\"\nhw = 0\n"),
            "14:13: no partition `t-2`: topic `t` has partitions 0 to 1"
        );
        assert_eq!(
            error("[[expect]]\ntime = \"1s\"\nerrors = { NOT_ENOUGH_REPLICA = 1 }\n"),
            "14:12: unknown Kafka error `NOT_ENOUGH_REPLICA`; did you mean `NOT_ENOUGH_REPLICAS`?"
        );
        assert_eq!(
            error("[[expect]]\ntime = \"1s\"\nhw = 0\n"),
            "14:6: `hw` needs `partition = \"TOPIC-N\"` in the same [[expect]]"
        );
        assert_eq!(
            error("[[expect]]\ntime = \"1s\"\npartition = \"t-0\"\nleader = \"nobody\"\n"),
            "15:10: expected a broker id or \"none\" (offline)"
        );
        assert_eq!(
            error("[[expect]]\ntime = \"1s\"\nacked_lost = \"=>1\"\n").split(": ").next(),
            Some("14:14")
        );
        assert!(error("[[expect]]\ntime = \"1s\"\n").contains("checks nothing"));
        assert!(
            error("[[expect]]\ntime = \"1s\"\nproducer = 1\nerrors = { TIMEOUT = 0 }\n")
                .starts_with("14:12: there is no producer 1")
        );
    }

    #[test]
    fn config_errors_point_at_key_or_value() {
        assert_eq!(
            error("[topic.config]\n\"min.insync.replicas\" = 0\n"),
            "13:25: invalid value `0` for `min.insync.replicas`: expected an integer from 1 to 2147483647"
        );
        assert_eq!(error("linger = 5\n"), "12:1: unknown property `linger`; did you mean `linger.ms`?");
        assert_eq!(
            error("\"replica.lag.time.max.ms\" = 5\n"),
            "12:1: `replica.lag.time.max.ms` is a broker property and cannot be set on the producer"
        );
    }

    fn cluster_error(cluster: &str, topic: &str) -> String {
        let text =
            format!("name = \"x\"\nend = \"1m\"\n[cluster]\n{cluster}\n[[topic]]\nname = \"t\"\n{topic}\n");
        parse("f", &text).unwrap_err().to_string()
    }

    #[test]
    fn cluster_and_topic_errors() {
        let rf = cluster_error("brokers = 2", "partitions = 1\nreplication_factor = 3");
        assert_eq!(
            rf,
            "f:8:22: INVALID_REPLICATION_FACTOR: Unable to replicate the partition 3 time(s): The target replication factor of 3 cannot be reached because only 2 broker(s) are registered."
        );
        assert!(
            cluster_error("brokers = 0", "partitions = 1\nreplication_factor = 1")
                .contains("1 to 10 brokers")
        );
        assert!(
            cluster_error("brokers = [1, 1]", "partitions = 1\nreplication_factor = 1")
                .contains("appears twice")
        );
        assert!(
            cluster_error("brokers = [1, -2]", "partitions = 1\nreplication_factor = 1")
                .contains("integers from 0")
        );
        let wrong = cluster_error(
            "brokers = [1, 2]",
            "partitions = 2\nreplication_factor = 2\nassignment = [[1, 2]]",
        );
        assert!(wrong.starts_with("f:9:14: assignment has 1 replica lists"), "{wrong}");
        let unknown = cluster_error(
            "brokers = [1, 2]",
            "partitions = 1\nreplication_factor = 2\nassignment = [[1, 3]]",
        );
        assert_eq!(unknown, "f:9:19: broker 3 does not exist (brokers: 1,2)");
        assert!(
            cluster_error("brokers = 3\nplacement = \"random\"", "partitions = 1\nreplication_factor = 1")
                .contains("unknown placement")
        );
        assert!(
            cluster_error("brokers = 3", "partitions = 0\nreplication_factor = 1")
                .contains("INVALID_PARTITIONS")
        );
    }

    #[test]
    fn versions_and_end() {
        let v2 = parse("f", "version = 2\nname = \"x\"\nend = \"1m\"\n[cluster]\nbrokers = 1\n").unwrap_err();
        assert_eq!(v2.to_string(), "f:1:11: this file is scenario format v2; this isrlab reads v1");
        let end = parse("f", "name = \"x\"\nend = \"end\"\n[cluster]\nbrokers = 1\n").unwrap_err();
        assert!(end.to_string().starts_with("f:2:7: `end` cannot be \"end\""), "{end}");
        let ok =
            parse("f", "version = 1\nname = \"x\"\nend = 90000\n[cluster]\nbrokers = [1, 2, 3]\n").unwrap();
        assert_eq!((ok.end, ok.spec.brokers), (90_000, vec![1, 2, 3]));
    }
}
