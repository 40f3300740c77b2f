//! What a lesson wants on screen (scenario format v2): the lesson's `[focus]` table and a
//! step's `focus = { ... }`. A focus names a partition to select in the table, a broker to
//! select, and the panes that must stay on screen; on a small terminal (80×24) the dashboard
//! keeps those panes and gives the others up first.

use super::checks::KnownOverTime;
use super::error::SpanError;
use super::expect_file::{broker_id_of, partition_of};
use super::format::{Res, err};
use crate::sim::{BrokerId, SimTime, TopicPartition};
use serde::Deserialize;
use std::fmt;
use toml::{Spanned, Value};

/// A pane a focus can keep on screen (`panes = ["logs", "why"]`).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
pub enum Pane {
    /// `"logs"`: the log strips of the selected partition's replicas (LEO, HW per replica).
    Logs,
    /// `"why"`: the Why panel, which explains the selected partition's state in words.
    Why,
    /// `"clients"`: the producers' and consumers' lines.
    Clients,
    /// `"events"`: the event log.
    Events,
    /// `"checks"`: the scenario's `[[expect]]` results as they fall due.
    Checks,
}

impl Pane {
    /// Every pane, in the order the format lists them.
    pub const ALL: [Pane; 5] = [Pane::Logs, Pane::Why, Pane::Clients, Pane::Events, Pane::Checks];

    /// The name a scenario file uses for it, e.g. `"why"`.
    pub fn name(self) -> &'static str {
        match self {
            Pane::Logs => "logs",
            Pane::Why => "why",
            Pane::Clients => "clients",
            Pane::Events => "events",
            Pane::Checks => "checks",
        }
    }

    /// The pane a file names, if any (exact, lowercase).
    pub fn from_name(name: &str) -> Option<Pane> {
        Pane::ALL.into_iter().find(|p| p.name() == name)
    }
}

impl fmt::Display for Pane {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What must be on screen: the lesson's default (`[focus]`, from the start) or a step's
/// (`focus = { ... }` in an `[[at]]`). A step's focus replaces the one before it from that
/// step on, whole: a key it leaves out is not focused any more. At least one of the three
/// is given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Focus {
    /// `partition = "T-P"`: the partition to select in the partition table. It exists at the
    /// instant the focus applies.
    pub partition: Option<TopicPartition>,
    /// `broker = N`: the broker to select. It exists.
    pub broker: Option<BrokerId>,
    /// `panes = [...]`: the panes that must stay on screen, in file order, each once.
    pub panes: Vec<Pane>,
}

/// A focus table as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawFocus {
    partition: Option<Spanned<String>>,
    broker: Option<Spanned<Value>>,
    panes: Option<Spanned<Vec<Spanned<String>>>>,
}

/// Validates a focus against what exists at `at` (the start for `[focus]`, the step's time
/// for a step's). Errors: a partition or broker that does not exist then, an unknown or
/// repeated pane, or a focus that names nothing.
pub(super) fn focus(raw: &Spanned<RawFocus>, at: SimTime, over_time: &KnownOverTime) -> Res<Focus> {
    let f = raw.get_ref();
    let partition = f.partition.as_ref().map(|p| partition_of(p, at, over_time)).transpose()?;
    let broker = f.broker.as_ref().map(|b| broker_id_of(b, &over_time.at(at).brokers)).transpose()?;
    let mut panes = Vec::new();
    for name in f.panes.iter().flat_map(|p| p.get_ref()) {
        let pane = Pane::from_name(name.get_ref()).ok_or_else(|| unknown_pane(name))?;
        if panes.contains(&pane) {
            return err(name.span(), format!("pane `{pane}` is listed twice"));
        }
        panes.push(pane);
    }
    if partition.is_none() && broker.is_none() && panes.is_empty() {
        return err(
            raw.span(),
            "this focus names nothing; give `partition = \"T-P\"`, `broker = N` or `panes = [\"logs\", \"why\"]`",
        );
    }
    Ok(Focus { partition, broker, panes })
}

fn unknown_pane(name: &Spanned<String>) -> SpanError {
    let all: Vec<String> = Pane::ALL.iter().map(|p| format!("\"{p}\"")).collect();
    let typed = name.get_ref().to_lowercase();
    let close = crate::suggest::closest(&typed, Pane::ALL.iter().map(|p| (p.name(), p)));
    let hint = match close.first() {
        Some(p) => format!("did you mean \"{p}\"? "),
        None => String::new(),
    };
    SpanError::new(
        name.span(),
        format!("unknown pane `{}`; {hint}the panes are {}", name.get_ref(), all.join(", ")),
    )
}
