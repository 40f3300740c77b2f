//! The `[[expect]]` tables of a scenario file: their serde shape and their validation into
//! [`Expectation`]s. An expectation is validated against what exists at its own instant: the
//! starting cluster plus what the `[[at]]` commands up to then create. Every mistake points at
//! the offending key or value.

use super::checks::{Known, KnownOverTime};
use super::error::SpanError;
use super::expect::{
    Check, Comparison, Expectation, LeaderWant, PartitionNumber, ProducerNumber, ReplicaNumber,
};
use super::format::{IdList, Res, Table, err, existing_broker, id_list, in_file_order, time_within};
use super::history::EventPattern;
use crate::cluster::snapshot::BrokerState;
use crate::kafka::errors::{self, ErrorCode};
use crate::sim::protocol::LeaderRecoveryState;
use crate::sim::{BrokerId, SimTime, TopicPartition, format_instant};
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use std::fmt;
use toml::{Spanned, Value};

/// One `[[expect]]` table as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawExpect {
    /// Required in an `[[expect]]`; absent in a question's choice (checked at `answer_at`).
    pub(super) time: Option<Spanned<Value>>,
    partition: Option<Spanned<String>>,
    leader: Option<Spanned<Value>>,
    isr: Option<IdList>,
    replicas: Option<IdList>,
    adding: Option<IdList>,
    removing: Option<IdList>,
    elr: Option<IdList>,
    last_known_elr: Option<IdList>,
    leader_epoch: Option<Spanned<Value>>,
    partition_epoch: Option<Spanned<Value>>,
    hw: Option<Spanned<HwValue>>,
    leo: Option<Table>,
    log_start: Option<Table>,
    fetch_requests: Option<Table>,
    isr_shrinks: Option<Spanned<Value>>,
    isr_expands: Option<Spanned<Value>>,
    leader_recovery_state: Option<Spanned<String>>,
    acked_lost: Option<Spanned<Value>>,
    unacked_lost: Option<Spanned<Value>>,
    duplicates: Option<Spanned<Value>>,
    reordered: Option<Spanned<Value>>,
    offline_partitions: Option<Spanned<Value>>,
    active_controller: Option<Spanned<Value>>,
    controller_epoch: Option<Spanned<Value>>,
    under_replicated: Option<Spanned<Value>>,
    producer: Option<Spanned<u32>>,
    errors: Option<Table>,
    sent: Option<Spanned<Value>>,
    acked: Option<Spanned<Value>>,
    unacked: Option<Spanned<Value>>,
    failed: Option<Spanned<Value>>,
    lost: Option<Spanned<Value>>,
    pub(super) consumer: Option<Spanned<u32>>,
    pub(super) position: Option<Spanned<Value>>,
    pub(super) lag: Option<Spanned<Value>>,
    pub(super) seen_erased: Option<Spanned<Value>>,
    pub(super) committed: Option<Spanned<Value>>,
    pub(super) rebalances: Option<Spanned<Value>>,
    pub(super) group: Option<Spanned<String>>,
    pub(super) coordinator: Option<Spanned<Value>>,
    pub(super) members: Option<Spanned<Value>>,
    broker: Option<Spanned<Value>>,
    pub(super) state: Option<Spanned<String>>,
    event: Option<Spanned<String>>,
}

/// `hw`: a number or comparison (the leader's HW) or a table from broker id to that
/// replica's own HW.
pub(super) enum HwValue {
    Leader(Value),
    Replicas(Table),
}

impl<'de> Deserialize<'de> for HwValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct HwVisitor;
        impl<'de> Visitor<'de> for HwVisitor {
            type Value = HwValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number, a comparison such as \">0\", or a table such as { 1 = 40 }")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<HwValue, E> {
                Ok(HwValue::Leader(Value::Integer(v)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<HwValue, E> {
                i64::try_from(v)
                    .map(|v| HwValue::Leader(Value::Integer(v)))
                    .map_err(|_| E::custom("offset too large"))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<HwValue, E> {
                Ok(HwValue::Leader(Value::String(v.to_string())))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<HwValue, A::Error> {
                let mut table = Table::new();
                while let Some((k, v)) = map.next_entry::<Spanned<String>, Spanned<Value>>()? {
                    table.insert(k, v);
                }
                Ok(HwValue::Replicas(table))
            }
        }
        d.deserialize_any(HwVisitor)
    }
}

/// What an expectation may name: brokers, producers, and the topics over the timeline.
pub(super) struct Names<'a> {
    /// Topics and brokers at each instant.
    pub over_time: &'a KnownOverTime,
    /// How many `[[producer]]` tables the file has.
    pub producers: usize,
    /// How many `[[consumer]]` tables the file has.
    pub consumers: usize,
}

/// Validates one `[[expect]]` into its checks, all due at its `time`. Errors: no `time`,
/// or what [`checks_at`] finds.
pub(super) fn expectation(
    raw: &Spanned<RawExpect>,
    names: &Names<'_>,
    end: SimTime,
) -> Res<Vec<Expectation>> {
    let Some(time) = &raw.get_ref().time else {
        return err(raw.span(), "this [[expect]] needs `time`, e.g. `time = \"30s\"` or `time = \"end\"`");
    };
    let at = time_within(time, end)?;
    let checks = checks_at(raw, names, at, "this [[expect]]")?;
    Ok(checks.into_iter().map(|check| Expectation { at, check }).collect())
}

/// Validates the keys of an `[[expect]]` (`what` names it in errors, e.g. "a choice's
/// `expect`") into checks, against what exists at `at`. Its `time`, if any, is not read here.
/// Errors: a key that names something missing at `at`, a bad value, or no check at all.
pub(super) fn checks_at(
    raw: &Spanned<RawExpect>,
    names: &Names<'_>,
    at: SimTime,
    what: &str,
) -> Res<Vec<Check>> {
    let e = raw.get_ref();
    let known = names.over_time.at(at);
    let mut checks = match &e.partition {
        Some(p) => partition_checks(e, &partition_of(p, at, names.over_time)?, &known.brokers)?,
        None => no_partition_checks(e)?,
    };
    let counts = [
        (&e.acked_lost, Check::AckedLost as fn(Comparison) -> Check),
        (&e.unacked_lost, Check::UnackedLost),
        (&e.duplicates, Check::Duplicates),
        (&e.reordered, Check::Reordered),
        (&e.offline_partitions, Check::OfflinePartitions),
        (&e.controller_epoch, Check::ControllerEpoch),
        (&e.under_replicated, Check::UnderReplicated),
    ];
    for (v, check) in counts {
        if let Some(v) = v {
            checks.push(check(comparison_of(v)?));
        }
    }
    if let Some(v) = &e.active_controller {
        let want = match v.get_ref() {
            Value::String(s) if s == "none" => Comparison::exactly(-1),
            _ => comparison_of(v)?,
        };
        checks.push(Check::ActiveController(want));
    }
    checks.extend(producer_checks(e, names.producers)?);
    checks.extend(super::expect_consumer::consumer_checks(e, names, at)?);
    match &e.group {
        Some(g) => checks.extend(super::expect_group::group_checks(e, g, &known.brokers)?),
        None => {
            if let Some(v) = e.coordinator.as_ref().or(e.members.as_ref()) {
                return err(
                    v.span(),
                    "`coordinator` and `members` need `group = \"G\"` in the same [[expect]]",
                );
            }
            checks.extend(broker_check(e, known)?)
        }
    }
    if let Some(v) = &e.event {
        checks.push(Check::Event(EventPattern::new(v.get_ref()).map_err(|m| SpanError::new(v.span(), m))?));
    }
    if checks.is_empty() {
        return err(
            raw.span(),
            format!(
                "{what} checks nothing; add e.g. `leader`, `isr`, `hw`, `acked_lost`, `state` or `event`"
            ),
        );
    }
    Ok(checks)
}

/// A number or a comparison string.
pub(super) fn comparison_of(v: &Spanned<Value>) -> Res<Comparison> {
    match v.get_ref() {
        Value::Integer(n) => Ok(Comparison::exactly(*n)),
        Value::String(s) => Comparison::parse(s).map_err(|m| SpanError::new(v.span(), m)),
        _ => err(v.span(), "expected a number or a comparison such as \">0\" or \"<=5\""),
    }
}

/// `TOPIC-N` naming a partition that exists at `at`.
pub(super) fn partition_of(
    v: &Spanned<String>,
    at: SimTime,
    over_time: &KnownOverTime,
) -> Res<TopicPartition> {
    let text = v.get_ref();
    let parsed = text.rsplit_once('-').and_then(|(t, n)| n.parse::<u32>().ok().map(|n| (t, n)));
    let Some((topic, n)) = parsed else {
        return err(v.span(), format!("`{text}` is not TOPIC-PARTITION such as `test_repli-2`"));
    };
    let then = format_instant(at);
    let later = |what: String| match over_time.first_with_partition(topic, n) {
        Some(t) => format!("{what} at {then}; an [[at]] command creates it at {}", format_instant(t)),
        None => what,
    };
    let count = over_time.at(at).topic(topic).map_err(|m| SpanError::new(v.span(), later(m)))?;
    if n >= count {
        let range = format!("no partition `{text}`: topic `{topic}` has partitions 0 to {}", count - 1);
        return err(v.span(), later(range));
    }
    Ok(TopicPartition::new(topic, n))
}

/// Errors if a partition-level field is given without `partition`.
fn no_partition_checks(e: &RawExpect) -> Res<Vec<Check>> {
    let first_key = |t: &Option<Table>| t.as_ref().and_then(|t| t.keys().next()).map(Spanned::span);
    let spans = [
        ("leader", e.leader.as_ref().map(Spanned::span)),
        ("isr", e.isr.as_ref().map(Spanned::span)),
        ("replicas", e.replicas.as_ref().map(Spanned::span)),
        ("adding", e.adding.as_ref().map(Spanned::span)),
        ("removing", e.removing.as_ref().map(Spanned::span)),
        ("elr", e.elr.as_ref().map(Spanned::span)),
        ("last_known_elr", e.last_known_elr.as_ref().map(Spanned::span)),
        ("leader_epoch", e.leader_epoch.as_ref().map(Spanned::span)),
        ("partition_epoch", e.partition_epoch.as_ref().map(Spanned::span)),
        ("hw", e.hw.as_ref().map(Spanned::span)),
        ("leo", first_key(&e.leo)),
        ("log_start", first_key(&e.log_start)),
        ("fetch_requests", first_key(&e.fetch_requests)),
        ("isr_shrinks", e.isr_shrinks.as_ref().map(Spanned::span)),
        ("isr_expands", e.isr_expands.as_ref().map(Spanned::span)),
        ("leader_recovery_state", e.leader_recovery_state.as_ref().map(Spanned::span)),
    ];
    match spans.into_iter().find_map(|(field, span)| span.map(|s| (field, s))) {
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
    if let Some(list) = &e.adding {
        checks.push(Check::Adding(tp.clone(), id_list(list, brokers)?));
    }
    if let Some(list) = &e.removing {
        checks.push(Check::Removing(tp.clone(), id_list(list, brokers)?));
    }
    if let Some(list) = &e.elr {
        checks.push(Check::Elr(tp.clone(), id_list(list, brokers)?));
    }
    if let Some(list) = &e.last_known_elr {
        checks.push(Check::LastKnownElr(tp.clone(), id_list(list, brokers)?));
    }
    let numbers = [
        (&e.leader_epoch, PartitionNumber::LeaderEpoch),
        (&e.partition_epoch, PartitionNumber::PartitionEpoch),
        (&e.isr_shrinks, PartitionNumber::IsrShrinks),
        (&e.isr_expands, PartitionNumber::IsrExpands),
    ];
    for (v, number) in numbers {
        if let Some(v) = v {
            checks.push(Check::Partition(tp.clone(), number, comparison_of(v)?));
        }
    }
    match e.hw.as_ref().map(|v| (v.get_ref(), v.span())) {
        Some((HwValue::Leader(v), span)) => {
            let v = Spanned::new(span, v.clone());
            checks.push(Check::Partition(tp.clone(), PartitionNumber::Hw, comparison_of(&v)?));
        }
        Some((HwValue::Replicas(table), _)) => {
            checks.extend(replica_checks(table, tp, ReplicaNumber::Hw, brokers)?);
        }
        None => {}
    }
    let tables = [
        (&e.leo, ReplicaNumber::Leo),
        (&e.log_start, ReplicaNumber::LogStart),
        (&e.fetch_requests, ReplicaNumber::FetchRequests),
    ];
    for (table, number) in tables {
        if let Some(table) = table {
            checks.extend(replica_checks(table, tp, number, brokers)?);
        }
    }
    if let Some(v) = &e.leader_recovery_state {
        checks.push(Check::LeaderRecovery(tp.clone(), recovery_of(v)?));
    }
    if checks.is_empty() {
        let span = e.partition.as_ref().map_or(0..0, Spanned::span);
        return err(
            span,
            "nothing to check for this partition; add `leader`, `isr`, `replicas`, `adding`, `removing`, `elr`, `last_known_elr`, `leader_epoch`, `partition_epoch`, `hw`, `leo`, `log_start`, `fetch_requests`, `isr_shrinks`, `isr_expands` or `leader_recovery_state`",
        );
    }
    Ok(checks)
}

/// `{ BROKER = number or comparison }` per replica, in file order.
fn replica_checks(
    table: &Table,
    tp: &TopicPartition,
    number: ReplicaNumber,
    brokers: &[BrokerId],
) -> Res<Vec<Check>> {
    let mut checks = Vec::new();
    for (key, value) in in_file_order(table) {
        let id = key.get_ref().parse::<BrokerId>().map_err(|_| {
            let msg =
                format!("`{}` is not a broker id; write {} = {{ 0 = 10 }}", key.get_ref(), number.key());
            SpanError::new(key.span(), msg)
        })?;
        let id = existing_broker(id, key.span(), brokers)?;
        checks.push(Check::Replica(tp.clone(), id, number, comparison_of(value)?));
    }
    Ok(checks)
}

/// `leader`: a broker id, `"none"`, or `"!=ID"` / `"!=none"` (also `"==ID"`).
fn leader_of(v: &Spanned<Value>, brokers: &[BrokerId]) -> Res<LeaderWant> {
    const HINT: &str = "expected a broker id, \"none\" (offline), \"!=ID\" or \"!=none\"";
    let broker = |text: &str| -> Res<Option<BrokerId>> {
        match text.trim() {
            "none" => Ok(None),
            id => match id.parse::<BrokerId>() {
                Ok(id) => existing_broker(id, v.span(), brokers).map(Some),
                Err(_) => err(v.span(), HINT),
            },
        }
    };
    match v.get_ref() {
        Value::Integer(n) => existing_broker(*n, v.span(), brokers).map(|b| LeaderWant::is(Some(b))),
        Value::String(s) => match s.trim().strip_prefix("!=") {
            Some(rest) => broker(rest).map(LeaderWant::not),
            None => broker(s.trim().strip_prefix("==").unwrap_or(s)).map(LeaderWant::is),
        },
        _ => err(v.span(), HINT),
    }
}

/// `leader_recovery_state`: Kafka's `RECOVERED` or `RECOVERING` (KIP-704; any case).
fn recovery_of(v: &Spanned<String>) -> Res<LeaderRecoveryState> {
    match v.get_ref().to_ascii_uppercase().as_str() {
        "RECOVERED" => Ok(LeaderRecoveryState::Recovered),
        "RECOVERING" => Ok(LeaderRecoveryState::Recovering),
        _ => err(
            v.span(),
            format!(
                "unknown leader recovery state `{}`; expected \"RECOVERED\" or \"RECOVERING\" (KIP-704)",
                v.get_ref()
            ),
        ),
    }
}

/// `errors`, `sent`, `acked`, `unacked`, `failed` and `lost` of the producer `producer` selects (default 0).
fn producer_checks(e: &RawExpect, producers: usize) -> Res<Vec<Check>> {
    let numbers = [
        (&e.sent, ProducerNumber::Sent),
        (&e.acked, ProducerNumber::Acked),
        (&e.unacked, ProducerNumber::Unacked),
        (&e.failed, ProducerNumber::Failed),
        (&e.lost, ProducerNumber::Lost),
    ];
    let first_span = e
        .errors
        .as_ref()
        .and_then(|t| t.keys().next().map(Spanned::span))
        .or_else(|| numbers.iter().find_map(|(v, _)| v.as_ref().map(Spanned::span)));
    let Some(first_span) = first_span else {
        return match &e.producer {
            Some(p) => err(
                p.span(),
                "`producer` selects whose `errors`, `sent`, `acked`, `failed` or `lost` to check; add one of them",
            ),
            None => Ok(Vec::new()),
        };
    };
    let producer = e.producer.as_ref().map_or(0, |p| *p.get_ref());
    if producer as usize >= producers {
        let span = e.producer.as_ref().map_or(first_span, Spanned::span);
        return err(
            span,
            format!(
                "there is no producer {producer}: the file defines {producers} [[producer]] table(s), numbered from 0"
            ),
        );
    }
    let mut checks = Vec::new();
    for (key, value) in e.errors.iter().flat_map(in_file_order) {
        let error = ErrorCode::from_name(key.get_ref())
            .ok_or_else(|| SpanError::new(key.span(), unknown_error(key.get_ref())))?;
        checks.push(Check::ProducerErrors { producer, error, count: comparison_of(value)? });
    }
    for (v, number) in numbers {
        if let Some(v) = v {
            checks.push(Check::Producer(producer, number, comparison_of(v)?));
        }
    }
    Ok(checks)
}

/// `broker = ID`: an existing broker's id.
pub(super) fn broker_id_of(v: &Spanned<Value>, brokers: &[BrokerId]) -> Res<BrokerId> {
    match v.get_ref() {
        Value::Integer(n) => existing_broker(*n, v.span(), brokers),
        _ => err(v.span(), "expected a broker id such as 2"),
    }
}

/// `broker = ID` with `state = "NAME"`.
fn broker_check(e: &RawExpect, known: &Known) -> Res<Option<Check>> {
    match (&e.broker, &e.state) {
        (None, None) => Ok(None),
        (Some(b), None) => {
            err(b.span(), "`broker` selects whose `state` to check; add e.g. `state = \"fenced\"`")
        }
        (None, Some(s)) => err(s.span(), "`state` needs `broker = ID` in the same [[expect]]"),
        (Some(b), Some(s)) => {
            let id = broker_id_of(b, &known.brokers)?;
            let state = BrokerState::from_name(s.get_ref()).ok_or_else(|| {
                let names: Vec<&str> = BrokerState::ALL.iter().map(|s| s.name()).collect();
                let msg =
                    format!("unknown broker state `{}`; expected one of {}", s.get_ref(), names.join(", "));
                SpanError::new(s.span(), msg)
            })?;
            Ok(Some(Check::Broker(id, state)))
        }
    }
}

fn unknown_error(name: &str) -> String {
    let close = crate::suggest::closest(name, errors::ALL.iter().map(|e| (e.name(), e.name())));
    match close.first() {
        Some(best) => format!("unknown Kafka error `{name}`; did you mean `{best}`?"),
        None => {
            let all: Vec<&str> = errors::ALL.iter().map(|e| e.name()).collect();
            format!("unknown Kafka error `{name}`; known errors: {}", all.join(", "))
        }
    }
}
