//! Scenario files (TOML), formats v1 and v2: the serde types that mirror the file and their
//! validation into a [`Scenario`]. Every mistake is reported as `FILE:LINE:COLUMN: message`
//! at the offending value.
//!
//! Format v2 (`version = 2`) makes a scenario a lesson: `minutes`, `teaches` and a `[focus]`
//! at the top; `say`, `pause` and `focus` on `[[at]]` steps, whose `do` becomes optional; and
//! `[[ask]]` questions ([`super::ask`]). A file without `version`, or with `version = 1`, is
//! v1 and reads exactly as before; a v2 key in it is an error that says to add `version = 2`.

use super::ask::{self, Question, RawAsk};
use super::checks::{self, Known, KnownOverTime};
use super::consumer_table;
use super::duration::{DURATION_HINT, TimeSpec, parse_time};
use super::error::{LoadError, SpanError};
use super::expect::Expectation;
use super::expect_file::{Names, RawExpect, expectation};
use super::focus::{self, Focus, RawFocus};
use crate::cluster::command::Command;
use crate::cluster::spec::{
    CONTROLLER_COUNTS, CONTROLLERS_DEFAULT, ClusterSpec, Placement, ProducerSpec, TopicSpec,
};
use crate::config::profiles::{self, Profile};
use crate::config::{
    self, BrokerConfig, ConfigError, LabConfig, ProducerConfig, Scope, Semantics, TopicConfig,
};
use crate::sim::{BrokerId, CONTROLLER_ID, SimTime, format_instant, join_ids};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use toml::{Spanned, Value};

/// The newest scenario format version this build reads (it reads every version from 1).
pub const FORMAT_VERSION: i64 = 2;

/// Longest lesson `minutes` accepted (a school day).
pub const MAX_MINUTES: u32 = 600;

/// Most brokers a cluster may have (isrlab's limit, see [`crate::cluster::handle::MAX_BROKERS`]).
pub const MAX_BROKERS: i64 = crate::cluster::handle::MAX_BROKERS as i64;

/// A loaded, validated scenario (or lesson: a v2 scenario with narration and questions).
#[derive(Clone, Debug)]
pub struct Scenario {
    /// The format version the file declares: 1 (also when it has no `version`) or 2.
    pub version: u32,
    /// Its title (`name`); a lesson's title as `isrlab lessons` lists it.
    pub name: String,
    /// Optional longer text.
    pub description: Option<String>,
    /// v2 `minutes`: how long the lesson takes in class, whole minutes (1 to [`MAX_MINUTES`]).
    pub minutes: Option<u32>,
    /// v2 `teaches`: what the lesson teaches, one line.
    pub teaches: Option<String>,
    /// v2 `[focus]`: what the lesson keeps on screen from the start, until a step's `focus`
    /// replaces it.
    pub focus: Option<Focus>,
    /// The seed the file fixes, if any (`spec.seed` holds it, or 0).
    pub seed: Option<u64>,
    /// The cluster to start.
    pub spec: ClusterSpec,
    /// Commands with the sim time (µs resolution) to apply them, in time order (file order
    /// within an instant).
    pub timeline: Vec<Action>,
    /// Checks with their sim time (µs resolution), in time order (file order within an instant).
    pub expectations: Vec<Expectation>,
    /// v2 `[[ask]]`: questions in the order they are asked (by `time`; file order within an
    /// instant), numbered from 1.
    pub questions: Vec<Question>,
    /// Sim time at which a headless run stops.
    pub end: SimTime,
}

/// A step of the timeline (`[[at]]`): a command, narration, a pause, a new focus, or several
/// of these at one instant. In that order: the command is applied, then the narration shows,
/// the focus changes, and the clock stops if `pause`.
#[derive(Clone, Debug, PartialEq)]
pub struct Action {
    /// Sim time at which it is applied, to the microsecond.
    pub at: SimTime,
    /// `do = "..."`: the command. Always present in v1; in v2 it may be left out when the
    /// step has `say`, `pause` or `focus`.
    pub command: Option<Command>,
    /// `refused = "TEXT"`: the command must be refused with an answer containing `TEXT`
    /// (e.g. Kafka's error code `INVALID_REPLICATION_FACTOR`).
    pub refused: Option<String>,
    /// `answered = "TEXT"`: the command must be accepted with an answer containing `TEXT`
    /// (e.g. `reassign --verify`'s "Reassignment of partition t-0 is completed.").
    pub answered: Option<String>,
    /// v2 `say = "..."`: narration, Markdown-light ([`super::markup`]), shown with the step's
    /// number and sim time.
    pub say: Option<String>,
    /// v2 `pause = true`: the dashboard's clock stops at this instant, after the step's
    /// command and narration, until the user continues (Enter or `n`). Headless runs do not
    /// stop.
    pub pause: bool,
    /// v2 `focus = { ... }`: what must be on screen from this step on (it replaces the
    /// focus before it).
    pub focus: Option<Focus>,
}

impl Action {
    /// A step that only applies `command` at `at`, as every v1 step does.
    pub fn command(at: SimTime, command: Command) -> Self {
        Action {
            at,
            command: Some(command),
            refused: None,
            answered: None,
            say: None,
            pause: false,
            focus: None,
        }
    }
}

impl Scenario {
    /// The timeline's commands as (sim time, command) pairs, for a live run; steps without
    /// a command are left out.
    pub fn commands(&self) -> Vec<(SimTime, Command)> {
        self.timeline.iter().filter_map(|a| a.command.clone().map(|c| (a.at, c))).collect()
    }

    /// Whether the file is a lesson: format v2 with narration, a pause or a question.
    pub fn is_lesson(&self) -> bool {
        !self.questions.is_empty() || self.timeline.iter().any(|a| a.say.is_some() || a.pause)
    }
}

/// A TOML table whose keys and values keep their place in the file.
pub(super) type Table = BTreeMap<Spanned<String>, Spanned<Value>>;
/// A result whose error points into the file.
pub(super) type Res<T> = Result<T, SpanError>;
/// A list of broker ids that keeps each id's place in the file.
pub(super) type IdList = Spanned<Vec<Spanned<BrokerId>>>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScenario {
    version: Option<Spanned<i64>>,
    name: String,
    description: Option<String>,
    seed: Option<u64>,
    end: Spanned<Value>,
    minutes: Option<Spanned<i64>>,
    teaches: Option<Spanned<String>>,
    focus: Option<Spanned<RawFocus>>,
    cluster: RawCluster,
    #[serde(default)]
    topic: Vec<RawTopic>,
    #[serde(default)]
    producer: Vec<Spanned<Table>>,
    #[serde(default)]
    consumer: Vec<Spanned<Table>>,
    #[serde(default)]
    at: Vec<RawAction>,
    #[serde(default)]
    expect: Vec<Spanned<RawExpect>>,
    #[serde(default)]
    ask: Vec<Spanned<RawAsk>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCluster {
    brokers: Spanned<Value>,
    controllers: Option<Spanned<i64>>,
    profile: Option<Spanned<String>>,
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
    command: Option<Spanned<String>>,
    refused: Option<Spanned<String>>,
    answered: Option<Spanned<String>>,
    say: Option<Spanned<String>>,
    pause: Option<Spanned<bool>>,
    focus: Option<Spanned<RawFocus>>,
}

/// Reads and validates a scenario file. Errors: [`LoadError`] naming the file, and for
/// invalid content the line and column of the offending value.
pub fn load(path: &Path) -> Result<Scenario, LoadError> {
    load_as(path, None)
}

/// [`load`], with `profile` in place of the file's own `profile` (`--profile`).
pub fn load_as(path: &Path, profile: Option<&Profile>) -> Result<Scenario, LoadError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| LoadError::Read { file: file.clone(), message: e.to_string() })?;
    parse_as(&file, &text, profile)
}

/// Validates scenario `text`; `file` names it in errors. Errors: [`LoadError::Invalid`].
pub fn parse(file: &str, text: &str) -> Result<Scenario, LoadError> {
    parse_as(file, text, None)
}

/// [`parse`], with `profile` in place of the file's own `profile` (`--profile`).
pub fn parse_as(file: &str, text: &str, profile: Option<&Profile>) -> Result<Scenario, LoadError> {
    let raw: RawScenario = toml::from_str(text).map_err(|e| {
        let span = e.span().unwrap_or(0..0);
        SpanError::new(span, e.message().trim().to_string()).locate(file, text)
    })?;
    build(raw, profile).map_err(|e| e.locate(file, text))
}

/// An error at byte range `spanned_at` of the file.
pub(super) fn err<T>(spanned_at: std::ops::Range<usize>, message: impl Into<String>) -> Res<T> {
    Err(SpanError::new(spanned_at, message))
}

fn build(raw: RawScenario, profile: Option<&Profile>) -> Res<Scenario> {
    let version = version(&raw)?;
    let end = end_time(&raw.end)?;
    let semantics = match (profile, &raw.cluster.profile) {
        (Some(p), _) => p.semantics,
        (None, Some(name)) => {
            profiles::find(name.get_ref()).map_err(|e| SpanError::new(name.span(), e.to_string()))?.semantics
        }
        (None, None) => Semantics::CURRENT,
    };
    let spec = cluster_spec(&raw, &semantics)?;
    let mut over_time = KnownOverTime::new(Known::new(&spec));
    let timeline = timeline(&raw.at, &mut over_time, end)?;
    // Consumers an `add-consumer` starts take the indices after the file's, in timeline order.
    let added = timeline
        .iter()
        .filter(|a| a.refused.is_none() && matches!(a.command, Some(Command::AddConsumer(_))))
        .count();
    let consumers = spec.consumers.len() + added;
    let names = Names { over_time: &over_time, producers: spec.producers.len(), consumers };
    let mut expectations = Vec::new();
    for e in &raw.expect {
        expectations.extend(expectation(e, &names, end)?);
    }
    expectations.sort_by_key(|e| e.at);
    let questions = ask::questions(&raw.ask, &names, end)?;
    let focus = raw.focus.as_ref().map(|f| focus::focus(f, SimTime::ZERO, &over_time)).transpose()?;
    Ok(Scenario {
        version,
        name: raw.name,
        description: raw.description,
        minutes: raw.minutes.as_ref().map(minutes).transpose()?,
        teaches: raw.teaches.as_ref().map(teaches).transpose()?,
        focus,
        seed: raw.seed,
        spec,
        timeline,
        expectations,
        questions,
        end,
    })
}

/// The file's format version, 1 or 2. Errors: another version, or a v2 key in a v1 file (the
/// first one in the file), saying to add `version = 2`.
fn version(raw: &RawScenario) -> Res<u32> {
    let version = match &raw.version {
        None => 1,
        Some(v) => match *v.get_ref() {
            n @ 1..=FORMAT_VERSION => n as u32,
            n => {
                return err(
                    v.span(),
                    format!("this file is scenario format v{n}; this isrlab reads v1 to v{FORMAT_VERSION}"),
                );
            }
        },
    };
    if version >= 2 {
        return Ok(version);
    }
    let mut v2_keys: Vec<(&str, std::ops::Range<usize>)> = Vec::new();
    v2_keys.extend(raw.minutes.as_ref().map(|v| ("minutes", v.span())));
    v2_keys.extend(raw.teaches.as_ref().map(|v| ("teaches", v.span())));
    v2_keys.extend(raw.focus.as_ref().map(|v| ("[focus]", v.span())));
    v2_keys.extend(raw.ask.first().map(|v| ("[[ask]]", v.span())));
    for a in &raw.at {
        v2_keys.extend(a.say.as_ref().map(|v| ("say", v.span())));
        v2_keys.extend(a.pause.as_ref().map(|v| ("pause", v.span())));
        v2_keys.extend(a.focus.as_ref().map(|v| ("focus", v.span())));
    }
    match v2_keys.into_iter().min_by_key(|(_, span)| span.start) {
        Some((key, span)) => {
            err(span, format!("`{key}` is scenario format v2; add `version = 2` at the top of the file"))
        }
        None => Ok(version),
    }
}

/// `minutes`: whole minutes from 1 to [`MAX_MINUTES`].
fn minutes(v: &Spanned<i64>) -> Res<u32> {
    match u32::try_from(*v.get_ref()) {
        Ok(m @ 1..=MAX_MINUTES) => Ok(m),
        _ => err(v.span(), format!("`minutes` is the lesson's length in whole minutes, 1 to {MAX_MINUTES}")),
    }
}

/// `teaches`: one line, not empty.
fn teaches(v: &Spanned<String>) -> Res<String> {
    let text = v.get_ref().trim();
    if text.is_empty() || text.contains('\n') {
        return err(v.span(), "`teaches` is one line saying what the lesson teaches");
    }
    Ok(text.to_string())
}

fn cluster_spec(raw: &RawScenario, semantics: &Semantics) -> Res<ClusterSpec> {
    let brokers = broker_ids(&raw.cluster.brokers)?;
    let placement = placement(raw.cluster.placement.as_ref())?;
    let mut broker_config = BrokerConfig::defaults_for(semantics);
    let mut net = LabConfig::default();
    apply_config(in_file_order(&raw.cluster.config), |k, v| {
        if profiles::toggle(k).is_some() {
            return profiles::set_toggle(&mut broker_config.semantics, k, v);
        }
        match config::lookup(k)?.scope {
            Scope::Lab => net.set(k, v),
            _ => broker_config.set(k, v),
        }
    })?;
    let mut topics: Vec<TopicSpec> = Vec::new();
    for t in &raw.topic {
        if topics.iter().any(|known| known.name == *t.name.get_ref()) {
            return err(t.name.span(), format!("topic `{}` is defined twice", t.name.get_ref()));
        }
        topics.push(topic(t, &brokers, &placement)?);
    }
    let producers = raw.producer.iter().map(|p| producer(p, &topics, semantics)).collect::<Res<Vec<_>>>()?;
    let consumers =
        raw.consumer.iter().map(|c| consumer_table::consumer(c, &topics)).collect::<Res<Vec<_>>>()?;
    let controllers = controllers(raw.cluster.controllers.as_ref())?;
    Ok(ClusterSpec {
        seed: raw.seed.unwrap_or(0),
        brokers,
        broker_config,
        topics,
        producers,
        consumers,
        net,
        controllers,
    })
}

/// `controllers`: the quorum's voters, 1, 3 or 5; [`CONTROLLERS_DEFAULT`] when absent.
fn controllers(v: Option<&Spanned<i64>>) -> Res<usize> {
    let Some(v) = v else { return Ok(CONTROLLERS_DEFAULT) };
    match usize::try_from(*v.get_ref()).ok().filter(|n| CONTROLLER_COUNTS.contains(n)) {
        Some(n) => Ok(n),
        None => err(
            v.span(),
            format!("controllers is 1, 3 or 5 (voters of the KRaft quorum), not {}", v.get_ref()),
        ),
    }
}

fn end_time(v: &Spanned<Value>) -> Res<SimTime> {
    match time_of(v)? {
        TimeSpec::At(SimTime::ZERO) => err(v.span(), "`end` must be after 0 ms"),
        TimeSpec::At(t) => Ok(t),
        TimeSpec::End => err(v.span(), format!("`end` cannot be \"end\"; {DURATION_HINT}")),
    }
}

fn time_of(v: &Spanned<Value>) -> Res<TimeSpec> {
    match v.get_ref() {
        Value::Integer(n) if *n >= 0 => Ok(TimeSpec::At(SimTime::from_ms(n.unsigned_abs()))),
        Value::Integer(_) => err(v.span(), "a time cannot be negative; sim time starts at 0"),
        Value::String(s) => parse_time(s).map_err(|m| SpanError::new(v.span(), m)),
        _ => err(v.span(), "expected a time such as \"30s\", \"1500ms\", \"2m\", \"250us\" or \"end\""),
    }
}

/// A time no later than `end`, with `end` resolved.
pub(super) fn time_within(v: &Spanned<Value>, end: SimTime) -> Res<SimTime> {
    let t = time_of(v)?.resolve(end);
    if t > end {
        let msg = format!("time {} is after the scenario's end ({})", format_instant(t), format_instant(end));
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
pub(super) fn in_file_order(table: &Table) -> Vec<(&Spanned<String>, &Spanned<Value>)> {
    let mut entries: Vec<_> = table.iter().collect();
    entries.sort_by_key(|(k, _)| k.span().start);
    entries
}

/// Applies `"property" = value` entries through the registry, in order.
pub(super) fn apply_config<'a>(
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
pub(super) fn id_list(list: &IdList, brokers: &[BrokerId]) -> Res<Vec<BrokerId>> {
    list.get_ref().iter().map(|id| existing_broker(*id.get_ref(), id.span(), brokers)).collect()
}

/// `id` if it is one of `brokers`, else an error at `span` listing them.
pub(super) fn existing_broker(
    id: impl Into<i64>,
    span: std::ops::Range<usize>,
    brokers: &[BrokerId],
) -> Res<BrokerId> {
    let id = id.into();
    match brokers.iter().find(|b| i64::from(**b) == id) {
        Some(b) => Ok(*b),
        None => err(span, format!("broker {id} does not exist (brokers: {})", join_ids(brokers))),
    }
}

fn producer(table: &Spanned<Table>, topics: &[TopicSpec], semantics: &Semantics) -> Res<ProducerSpec> {
    let topic = table.get_ref().iter().find(|(k, _)| k.get_ref() == "topic").map(|(_, v)| v);
    let Some(topic) = topic else {
        return err(table.span(), "a [[producer]] needs `topic = \"NAME\"`");
    };
    let name = match topic.get_ref() {
        Value::String(s) if topics.iter().any(|t| t.name == *s) => s.clone(),
        other => {
            let names: Vec<String> = topics.iter().map(|t| format!("`{}`", t.name)).collect();
            let what = match other {
                Value::String(s) => format!("the producer's topic `{s}` is not defined"),
                _ => "a producer's `topic` is the name of a [[topic]], in quotes".to_string(),
            };
            let known = match names.len() {
                0 => "the file defines no [[topic]]".to_string(),
                1 => format!("the file's only [[topic]] is {}", names[0]),
                _ => format!("the file's [[topic]] tables define {}", names.join(", ")),
            };
            return err(topic.span(), format!("{what}: {known}"));
        }
    };
    let mut config = ProducerConfig::defaults_for(semantics);
    let rest = in_file_order(table.get_ref()).into_iter().filter(|(k, _)| k.get_ref() != "topic");
    apply_config(rest, |k, v| config.set(k, v))?;
    Ok(ProducerSpec { topic: name, config })
}

/// The `[[at]]` steps in time order (file order within an instant). Commands are checked
/// against the cluster as the steps before them leave it (recorded in `over_time`); a
/// step's focus against what exists at its instant.
fn timeline(actions: &[RawAction], over_time: &mut KnownOverTime, end: SimTime) -> Res<Vec<Action>> {
    let mut timed = Vec::new();
    for a in actions {
        timed.push((step(a, end)?, a));
    }
    timed.sort_by_key(|(action, _)| action.at);
    for (action, raw) in &timed {
        let (Some(command), Some(span)) = (&action.command, raw.command.as_ref().map(Spanned::span)) else {
            continue;
        };
        let mut known = over_time.last().clone();
        let checked = known.check_command(command);
        match (&action.refused, checked) {
            (None, Err(m)) => return err(span, format!("`{command}`: {m}")),
            (None, Ok(())) => over_time.record(action.at, known),
            // A command that must be refused changes nothing, whatever the check says.
            (Some(_), _) => {}
        }
    }
    let mut steps = Vec::new();
    for (mut action, raw) in timed {
        action.focus = raw.focus.as_ref().map(|f| focus::focus(f, action.at, over_time)).transpose()?;
        steps.push(action);
    }
    Ok(steps)
}

/// One `[[at]]` step without its focus (checked once the whole timeline is known). Errors:
/// a bad time or command, `refused`/`answered` without `do` or both at once, bad narration,
/// or a step that does nothing.
fn step(a: &RawAction, end: SimTime) -> Res<Action> {
    let at = time_within(&a.time, end)?;
    let command = a
        .command
        .as_ref()
        .map(|c| {
            Command::parse(c.get_ref()).map_err(|e| SpanError::new(c.span(), format!("invalid command: {e}")))
        })
        .transpose()?;
    let refused =
        a.refused.as_ref().map(|v| expected_text(v, "refused", "INVALID_REPLICATION_FACTOR")).transpose()?;
    let answered = a.answered.as_ref().map(|v| expected_text(v, "answered", "is completed")).transpose()?;
    if let (Some(_), Some(v)) = (&refused, &a.answered) {
        return err(v.span(), "a command is either `refused` or `answered`, not both");
    }
    if command.is_none() {
        if let Some((key, v)) =
            a.refused.as_ref().map(|v| ("refused", v)).or(a.answered.as_ref().map(|v| ("answered", v)))
        {
            return err(v.span(), format!("`{key}` checks the step's command; add `do = \"COMMAND\"`"));
        }
        if a.say.is_none() && a.pause.is_none() && a.focus.is_none() {
            return err(
                a.time.span(),
                "this [[at]] step does nothing; give `do = \"COMMAND\"` (and in format v2 `say`, `pause` or `focus`)",
            );
        }
    }
    let say = a.say.as_ref().map(|v| ask::text(v, "say")).transpose()?;
    let pause = a.pause.as_ref().is_some_and(|p| *p.get_ref());
    Ok(Action { at, command, refused, answered, say, pause, focus: None })
}

/// `refused = "TEXT"` or `answered = "TEXT"` (`key`): the text the answer must contain, not
/// empty; `example` shows one in the error.
fn expected_text(v: &Spanned<String>, key: &str, example: &str) -> Res<String> {
    if v.get_ref().trim().is_empty() {
        return err(v.span(), format!("`{key}` needs the text the answer must contain, e.g. \"{example}\""));
    }
    Ok(v.get_ref().clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::expect::{Check, Comparison, LeaderWant, ReplicaNumber};
    use crate::sim::{Acks, TopicPartition};

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
            s.commands(),
            vec![
                (SimTime::from_ms(10_000), Command::parse("crash 2").unwrap()),
                (SimTime::from_ms(20_000), Command::parse("restart 2").unwrap())
            ]
        );
        assert_eq!(s.spec.producers[0].config.acks, Acks::One);
        assert_eq!(s.spec.producers[0].config.rate, 0.0);
        assert_eq!(s.end, SimTime::from_ms(60_000));
        let at: Vec<crate::sim::Ms> = s.expectations.iter().map(|e| e.at.as_ms()).collect();
        assert_eq!(at, [30_000, 30_000, 60_000, 60_000, 60_000]);
        let tp = TopicPartition::new("t", 1);
        assert_eq!(s.expectations[2].check, Check::Leader(tp.clone(), LeaderWant::is(None)));
        let leo = Check::Replica(tp, 0, ReplicaNumber::Leo, Comparison::parse(">=3").unwrap());
        assert_eq!(s.expectations[4].check, leo);
    }

    #[test]
    fn times_keep_their_microseconds_and_order() {
        let text = format!(
            "{HEAD}[[at]]\ntime = \"1.0003s\"\ndo = \"crash 2\"\n[[at]]\ntime = \"1s\"\ndo = \"crash 1\"\n\
             [[at]]\ntime = \"250us\"\ndo = \"crash 0\"\n[[expect]]\ntime = \"0.25ms\"\nacked_lost = 0\n"
        );
        let s = parse("f", &text).unwrap();
        let at: Vec<u64> = s.timeline.iter().map(|a| a.at.as_micros()).collect();
        assert_eq!(at, [250, 1_000_000, 1_000_300]);
        assert_eq!(s.expectations[0].at, SimTime::from_micros(250));
        assert_eq!(
            error("[[at]]\ntime = \"59.9999995s\"\ndo = \"crash 1\"\n"),
            "13:8: `59.9999995s` is finer than a microsecond, sim time's resolution"
        );
        assert_eq!(
            error("[[at]]\ntime = \"60.000001s\"\ndo = \"crash 1\"\n"),
            "13:8: time 00:01:00.000.001 is after the scenario's end (00:01:00.0)"
        );
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
            "15:10: expected a broker id, \"none\" (offline), \"!=ID\" or \"!=none\""
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
    fn the_new_keys_become_checks() {
        let text = format!(
            "{HEAD}[[expect]]\ntime = \"5s\"\npartition = \"t-0\"\nleader = \"!=none\"\nhw = {{ 1 = \">=0\", 2 = 0 }}\n\
             log_start = {{ 0 = 0 }}\npartition_epoch = \">0\"\nisr_shrinks = 0\nisr_expands = \"<2\"\nleader_recovery_state = \"RECOVERED\"\n\
             [[expect]]\ntime = \"6s\"\npartition = \"t-1\"\nleader = \"!=0\"\nhw = \">=0\"\n\
             [[expect]]\ntime = \"7s\"\nsent = \">0\"\nacked = 3\nfailed = 0\nbroker = 2\nstate = \"shutting-down\"\nevent = \"broker 2 .*\"\n"
        );
        let s = parse("f", &text).unwrap();
        let subjects: Vec<String> =
            s.expectations.iter().map(|e| format!("{} {}", e.check.subject(), e.check.expected())).collect();
        assert_eq!(
            subjects,
            [
                "t-0 leader !=none",
                "t-0 partition_epoch >0",
                "t-0 isr_shrinks 0",
                "t-0 isr_expands <2",
                "t-0 hw of broker 1 >=0",
                "t-0 hw of broker 2 0",
                "t-0 log_start of broker 0 0",
                "t-0 leader_recovery_state RECOVERED",
                "t-1 leader !=0",
                "t-1 hw >=0",
                "producer 0 sent >0",
                "producer 0 acked 3",
                "producer 0 failed 0",
                "broker 2 state shutting-down",
                "event an event matching /broker 2 .*/",
            ]
        );
    }

    #[test]
    fn mistakes_in_the_new_keys_point_at_the_value() {
        let at = |rest: &str| error(&format!("[[expect]]\ntime = \"1s\"\n{rest}\n"));
        assert_eq!(
            at("partition = \"t-0\"\nhw = { x = 1 }"),
            "15:8: `x` is not a broker id; write hw = { 0 = 10 }"
        );
        assert_eq!(
            at("partition = \"t-0\"\nlog_start = { 7 = 1 }"),
            "15:15: broker 7 does not exist (brokers: 0,1,2)"
        );
        assert_eq!(at("partition = \"t-0\"\nhw = [1]").split(": ").next(), Some("15:6"));
        assert_eq!(
            at("partition = \"t-0\"\nleader = \"!=9\""),
            "15:10: broker 9 does not exist (brokers: 0,1,2)"
        );
        assert_eq!(
            at("partition = \"t-0\"\nleader_recovery_state = \"DONE\""),
            "15:25: unknown leader recovery state `DONE`; expected \"RECOVERED\" or \"RECOVERING\" (KIP-704)"
        );
        assert_eq!(
            at("isr_shrinks = 1"),
            "14:15: `isr_shrinks` needs `partition = \"TOPIC-N\"` in the same [[expect]]"
        );
        assert_eq!(
            at("broker = 1\nstate = \"dead\""),
            "15:9: unknown broker state `dead`; expected one of running, fenced, shutting-down, stopped, crashed, frozen, powered-off"
        );
        assert_eq!(at("broker = 5\nstate = \"fenced\""), "14:10: broker 5 does not exist (brokers: 0,1,2)");
        assert_eq!(
            at("broker = 99999999999\nstate = \"fenced\""),
            "14:10: broker 99999999999 does not exist (brokers: 0,1,2)"
        );
        assert_eq!(at("broker = \"x\"\nstate = \"fenced\""), "14:10: expected a broker id such as 2");
        assert_eq!(
            at("partition = \"t-0\"\nleader = 4294967296"),
            "15:10: broker 4294967296 does not exist (brokers: 0,1,2)"
        );
        assert_eq!(at("state = \"fenced\""), "14:9: `state` needs `broker = ID` in the same [[expect]]");
        assert!(at("broker = 1").starts_with("14:10: `broker` selects whose `state`"));
        assert!(at("event = \"(\"").starts_with("14:9: `(` is not a valid regular expression: "));
        assert_eq!(
            at("producer = 2\nacked = 1"),
            "14:12: there is no producer 2: the file defines 1 [[producer]] table(s), numbered from 0"
        );
        assert!(at("producer = 0").starts_with("14:12: `producer` selects whose"));
        assert_eq!(
            error("[[at]]\ntime = \"1s\"\ndo = \"crash 1\"\nrefused = \" \"\n"),
            "15:11: `refused` needs the text the answer must contain, e.g. \"INVALID_REPLICATION_FACTOR\""
        );
    }

    #[test]
    fn expectations_follow_the_timeline() {
        let create = "[[at]]\ntime = \"10s\"\ndo = \"create-topic late 2 3\"\n";
        let late = |time: &str| {
            format!("{create}[[expect]]\ntime = \"{time}\"\npartition = \"late-1\"\nisr = [0, 1, 2]\n")
        };
        let ok = parse("f", &format!("{HEAD}{}", late("10s"))).unwrap();
        assert_eq!(ok.expectations[0].check.partition(), Some(&TopicPartition::new("late", 1)));
        assert_eq!(
            error(&late("9s")),
            "17:13: unknown topic `late` (topics: t) at 00:00:09.0; an [[at]] command creates it at 00:00:10.0"
        );
        let refused = "[[at]]\ntime = \"1s\"\ndo = \"create-topic big 1 4\"\nrefused = \"INVALID_REPLICATION_FACTOR\"\n";
        let s = parse("f", &format!("{HEAD}{refused}[[expect]]\ntime = \"2s\"\nacked_lost = 0\n")).unwrap();
        assert_eq!(s.timeline[0].refused.as_deref(), Some("INVALID_REPLICATION_FACTOR"));
        let named = format!("{HEAD}{refused}[[expect]]\ntime = \"2s\"\npartition = \"big-0\"\nhw = 0\n");
        assert!(parse("f", &named).unwrap_err().to_string().contains("unknown topic `big`"));
    }

    /// A producer's unknown topic names the topics the file does define.
    #[test]
    fn an_unknown_producer_topic_names_the_defined_topics() {
        let text = HEAD.replace("[[producer]]\ntopic = \"t\"", "[[producer]]\ntopic = \"orders\"");
        let e = parse("f", &text).unwrap_err().to_string();
        assert!(
            e.contains("the producer's topic `orders` is not defined: the file's only [[topic]] is `t`"),
            "{e}"
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
                .contains("1 to 100 brokers")
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
        let v3 = parse("f", "version = 3\nname = \"x\"\nend = \"1m\"\n[cluster]\nbrokers = 1\n").unwrap_err();
        assert_eq!(v3.to_string(), "f:1:11: this file is scenario format v3; this isrlab reads v1 to v2");
        let v2 = parse("f", "version = 2\nname = \"x\"\nend = \"1m\"\n[cluster]\nbrokers = 1\n").unwrap();
        assert_eq!((v2.version, v2.is_lesson()), (2, false));
        let end = parse("f", "name = \"x\"\nend = \"end\"\n[cluster]\nbrokers = 1\n").unwrap_err();
        assert!(end.to_string().starts_with("f:2:7: `end` cannot be \"end\""), "{end}");
        let ok =
            parse("f", "version = 1\nname = \"x\"\nend = 90000\n[cluster]\nbrokers = [1, 2, 3]\n").unwrap();
        assert_eq!((ok.end, ok.spec.brokers), (SimTime::from_ms(90_000), vec![1, 2, 3]));
    }
}
