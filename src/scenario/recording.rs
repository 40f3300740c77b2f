//! Recordings of live dashboard sessions: the seed, the start-up settings and every command
//! with the sim instant it was applied at, written as a scenario file (format v2), so a
//! recording is a scenario: `isrlab replay FILE` plays it in the dashboard, `isrlab replay
//! FILE --headless` and `isrlab run FILE` run it headless, and a teacher turns it into a
//! lesson by adding `say`, `pause`, `[[expect]]` or `[[ask]]` to it.
//!
//! Each command becomes an `[[at]]` step at its exact instant (`time = "12.345678s"`, to the
//! microsecond, the sim's resolution), followed by the events it led to, as TOML comments
//! (the first [`EVENTS_PER_STEP`] events logged from its instant until the next step).
//!
//! The commands come from the snapshots ([`Snapshot::commands`]): the sim records each one
//! with the instant it applied it, so the recording never depends on when a key reached the
//! dashboard. A session started from the flags is written as a whole scenario (its
//! `[cluster]`, `[[topic]]` and `[[producer]]` tables and the `--set` values); a session
//! started from a scenario file keeps that file's text, with the run's seed, and appends the
//! user's commands (the file's own scheduled ones are in it already). Before a recording is
//! written it is read back as a scenario and checked to start the same cluster with the same
//! commands, so a file that would not replay the session is never written silently.

use super::format::{Scenario, parse};
use crate::cluster::command::Command;
use crate::cluster::events::AppliedCommand;
use crate::cluster::snapshot::Snapshot;
use crate::cluster::spec::{ClusterSpec, Placement};
use crate::config::{self, Scope};
use crate::sim::{SimTime, format_instant};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// How many events each step carries as comments; the rest are counted.
pub const EVENTS_PER_STEP: usize = 12;

/// Where a session's cluster came from.
#[derive(Clone, Debug)]
pub enum Origin {
    /// The command-line flags (the default cluster, `--brokers`, `--topic`, `--placement`,
    /// `--set`): the recording writes the whole scenario.
    Flags {
        /// The `--set KEY=VALUE` values, in the order given (config file's first).
        sets: Vec<(String, String)>,
    },
    /// A scenario or lesson file: the recording keeps its text.
    File {
        /// How messages name it (its path).
        label: String,
        /// The file's text.
        text: String,
        /// The commands its timeline schedules, at their instants: they are in the text, so
        /// they are not written again.
        scheduled: Vec<(SimTime, Command)>,
    },
}

/// One recorded command and the events it led to.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// The instant it was applied, to the microsecond.
    pub at: SimTime,
    /// The command.
    pub command: Command,
    /// The first [`EVENTS_PER_STEP`] events from its instant until the next step, each as
    /// `STAMP TEXT`.
    pub events: Vec<String>,
    /// How many more events there were.
    pub more_events: u64,
}

/// A live session as it is recorded: fed every snapshot ([`Recording::observe`]), written as a
/// scenario file at any time ([`Recording::save`]).
#[derive(Clone, Debug)]
pub struct Recording {
    origin: Origin,
    spec: ClusterSpec,
    steps: Vec<Step>,
    /// How many of the run's applied commands have been looked at.
    seen_commands: usize,
    /// The scheduled commands not yet seen applied.
    scheduled_left: Vec<(SimTime, Command)>,
    /// How many of the run's events have been looked at.
    seen_events: u64,
    /// Sim time of the newest snapshot.
    now: SimTime,
    /// A command was recorded (or the run restarted) since the last [`Recording::take_changed`].
    changed: bool,
    /// `--record FILE`: the file rewritten on every new command and at the end.
    pub autosave: Option<PathBuf>,
    /// The other branches of the run (after going back and acting there), one line each,
    /// written as comments at the end: the recording holds the branch the run is on.
    other_branches: Vec<String>,
}

impl Recording {
    /// A recording of a session that starts `spec` (its seed included) from `origin`.
    pub fn new(origin: Origin, spec: ClusterSpec) -> Recording {
        let scheduled_left = match &origin {
            Origin::File { scheduled, .. } => scheduled.clone(),
            Origin::Flags { .. } => Vec::new(),
        };
        Recording {
            origin,
            spec,
            steps: Vec::new(),
            seen_commands: 0,
            scheduled_left,
            seen_events: 0,
            now: SimTime::ZERO,
            changed: false,
            autosave: None,
            other_branches: Vec::new(),
        }
    }

    /// Names the run's other branches (one line each), written as comments at the end of the
    /// file; the recording itself holds the branch the run is on.
    pub fn set_other_branches(&mut self, lines: Vec<String>) {
        if lines != self.other_branches {
            self.other_branches = lines;
            self.changed = true;
        }
    }

    /// The user's commands recorded so far, oldest first.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// The seed of the recorded run.
    pub fn seed(&self) -> u64 {
        self.spec.seed
    }

    /// Sim time of the newest snapshot observed.
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Takes in a snapshot: the commands applied since the last one (a scheduled command of
    /// the scenario file is not the user's and is skipped), and the new events, as comments
    /// of the step they follow. A snapshot of a run that started again (`R`) starts the
    /// recording again.
    pub fn observe(&mut self, snap: &Snapshot) {
        if snap.commands.len() < self.seen_commands
            || snap.now_us < self.now
            || snap.event_count < self.seen_events
        {
            self.restart();
        }
        self.now = snap.now_us;
        for applied in &snap.commands[self.seen_commands..] {
            self.take_command(applied);
        }
        self.seen_commands = snap.commands.len();
        let first = snap.event_count.saturating_sub(snap.recent_events.len() as u64);
        for (i, event) in snap.recent_events.iter().enumerate() {
            if first + (i as u64) < self.seen_events {
                continue;
            }
            let Some(step) = self.steps.iter_mut().rev().find(|s| s.at <= event.at) else { continue };
            if step.events.len() < EVENTS_PER_STEP {
                let text = event.kind.to_string().replace('\n', " ");
                step.events.push(format!("{} {text}", format_instant(event.at)));
            } else {
                step.more_events += 1;
            }
        }
        // Events that left the window before this snapshot are not seen; they are not counted.
        self.seen_events = snap.event_count;
    }

    /// Starts the recording again from the next snapshot's command list: the run went on
    /// as another one at the same instant (a what-if kept), whose commands differ.
    pub fn start_again(&mut self) {
        self.restart();
    }

    fn restart(&mut self) {
        self.steps.clear();
        self.seen_commands = 0;
        self.seen_events = 0;
        self.scheduled_left = match &self.origin {
            Origin::File { scheduled, .. } => scheduled.clone(),
            Origin::Flags { .. } => Vec::new(),
        };
        self.changed = true;
    }

    fn take_command(&mut self, applied: &AppliedCommand) {
        let scheduled =
            self.scheduled_left.iter().position(|(at, c)| *at == applied.at && *c == applied.command);
        if let Some(i) = scheduled {
            self.scheduled_left.remove(i);
            return;
        }
        self.steps.push(Step {
            at: applied.at,
            command: applied.command.clone(),
            events: Vec::new(),
            more_events: 0,
        });
        self.changed = true;
    }

    /// Whether a command was recorded (or the run restarted) since the last call.
    pub fn take_changed(&mut self) -> bool {
        std::mem::take(&mut self.changed)
    }

    /// The recording as a scenario file that ends at `end` (at least the last step's instant,
    /// and never 0).
    pub fn render(&self, end: SimTime) -> String {
        let last = self.steps.last().map_or(SimTime::ZERO, |s| s.at);
        let end = end.max(last).max(SimTime::from_micros(1));
        let mut out = String::new();
        match &self.origin {
            Origin::Flags { sets } => self.render_flags(sets, end, &mut out),
            Origin::File { label, text, .. } => {
                out.push_str(&with_seed(text, self.spec.seed));
                if !out.ends_with('\n') {
                    out.push('\n');
                }
                let _ = writeln!(
                    out,
                    "\n# Recorded in the dashboard from {label} (seed {}): the commands given live, at their instants.",
                    self.spec.seed
                );
            }
        }
        for step in &self.steps {
            let _ = writeln!(out, "\n[[at]]\ntime = {}", quoted(&time_text(step.at)));
            let _ = writeln!(out, "do = {}", quoted(&step.command.to_string()));
            for event in &step.events {
                let _ = writeln!(out, "# {event}");
            }
            if step.more_events > 0 {
                let _ = writeln!(out, "# … and {} more events", step.more_events);
            }
        }
        if !self.other_branches.is_empty() {
            out.push_str("\n# This is the branch the session was on. Its other branches (:branch N in the dashboard):\n");
            for line in &self.other_branches {
                let _ = writeln!(out, "# {line}");
            }
        }
        out
    }

    fn render_flags(&self, sets: &[(String, String)], end: SimTime, out: &mut String) {
        let spec = &self.spec;
        let _ = writeln!(
            out,
            "# A recorded isrlab session. Replay it with `isrlab replay FILE` (the dashboard) or\n\
             # `isrlab replay FILE --headless`. It is a scenario file: add `say` or `pause` to a\n\
             # step, or [[expect]] and [[ask]] tables, to make it a lesson."
        );
        out.push_str("version = 2\n");
        let _ = writeln!(out, "name = {}", quoted(&format!("recorded session, seed {}", spec.seed)));
        let _ = writeln!(out, "seed = {}", spec.seed);
        let _ = writeln!(out, "end = {}", quoted(&time_text(end)));
        out.push_str("\n[cluster]\n");
        let ids: Vec<String> = spec.brokers.iter().map(ToString::to_string).collect();
        let _ = writeln!(out, "brokers = [{}]", ids.join(", "));
        if spec.topics.iter().any(|t| t.placement == Placement::Seed) {
            out.push_str("placement = \"seed\"\n");
        }
        // The profile the session started from (`--profile`); its toggles overridden with
        // `--set` follow in [cluster.config].
        let profile = config::profiles::of(&spec.broker_config.semantics);
        if profile != config::profiles::newest() {
            let _ = writeln!(out, "profile = {}", quoted(&profile.name));
        }
        let (producer_sets, cluster_sets): (Vec<_>, Vec<_>) = sets
            .iter()
            .filter(|(k, _)| config::lookup(k).map_or(true, |p| p.scope != Scope::Consumer))
            .partition(|(k, _)| config::lookup(k).is_ok_and(|p| p.scope == Scope::Producer));
        if !cluster_sets.is_empty() {
            out.push_str("\n[cluster.config]\n");
            for (k, v) in cluster_sets {
                let _ = writeln!(out, "{} = {}", quoted(k), quoted(v));
            }
        }
        for t in &spec.topics {
            let _ = writeln!(out, "\n[[topic]]\nname = {}", quoted(&t.name));
            let _ =
                writeln!(out, "partitions = {}\nreplication_factor = {}", t.partitions, t.replication_factor);
            if let Placement::Explicit(lists) = &t.placement {
                let lists: Vec<String> = lists
                    .iter()
                    .map(|l| {
                        format!("[{}]", l.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "))
                    })
                    .collect();
                let _ = writeln!(out, "assignment = [{}]", lists.join(", "));
            }
            let overrides = t.config.overrides();
            if !overrides.is_empty() {
                out.push_str("[topic.config]\n");
                for o in overrides {
                    let (k, v) = o.split_once('=').unwrap_or((&o, ""));
                    let _ = writeln!(out, "{} = {}", quoted(k), quoted(v));
                }
            }
        }
        for p in &spec.producers {
            let _ = writeln!(out, "\n[[producer]]\ntopic = {}", quoted(&p.topic));
            for (k, v) in &producer_sets {
                let _ = writeln!(out, "{} = {}", quoted(k), quoted(v));
            }
        }
    }

    /// [`Recording::render`], read back and checked: the file must load as a scenario that
    /// starts the same cluster with the same seed and holds the recorded commands at their
    /// instants. Errors: why it would not replay the session, in words.
    pub fn checked(&self, end: SimTime) -> Result<String, String> {
        let text = self.render(end);
        let scenario = parse("the recording", &text).map_err(|e| format!("it does not read back: {e}"))?;
        self.check(&scenario)?;
        Ok(text)
    }

    fn check(&self, scenario: &Scenario) -> Result<(), String> {
        if scenario.spec != self.spec {
            let why = match &self.origin {
                Origin::File { label, .. } => format!(
                    "the session's cluster is not the one {label} describes (settings given with --set are not in the file's text; write them into its [cluster.config] or [[producer]] tables)"
                ),
                Origin::Flags { .. } => "the session's cluster cannot be written as a scenario file".into(),
            };
            return Err(why);
        }
        let mut commands = scenario.commands();
        for step in &self.steps {
            match commands.iter().position(|(at, c)| *at == step.at && *c == step.command) {
                Some(i) => {
                    commands.remove(i);
                }
                None => {
                    return Err(format!(
                        "`{}` at {} does not read back as the same command",
                        step.command,
                        format_instant(step.at)
                    ));
                }
            }
        }
        Ok(())
    }

    /// Writes the recording, ending at `end`, to `path` ([`Recording::checked`], then
    /// [`write_atomically`]). Errors: the check's or the file system's, in words.
    pub fn save(&self, path: &Path, end: SimTime) -> Result<(), String> {
        let text = self.checked(end)?;
        write_atomically(path, &text).map_err(|e| format!("cannot write {}: {e}", path.display()))
    }
}

/// Writes `text` to `path` so that a reader sees the old file or the new one, never half of
/// it: into a temporary file beside it, then renamed over it. Errors: the file system's.
pub fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let name = path.file_name().ok_or_else(|| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, "the path names a directory, not a file")
    })?;
    let mut temp_name = std::ffi::OsString::from(".");
    temp_name.push(name);
    temp_name.push(".tmp");
    let temp = path.with_file_name(temp_name);
    std::fs::write(&temp, text)?;
    std::fs::rename(&temp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&temp);
    })
}

/// A sim instant as a scenario time, to the microsecond: `12.345678s`.
pub fn time_text(at: SimTime) -> String {
    let us = at.as_micros();
    format!("{}.{:06}s", us / 1_000_000, us % 1_000_000)
}

/// `text` as a TOML basic string, quotes and escapes included.
fn quoted(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

/// A scenario file's text with `seed = SEED`: its own top-level `seed` line replaced, or one
/// added as the first line.
fn with_seed(text: &str, seed: u64) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut replaced = false;
    let mut in_top = true;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if trimmed.starts_with('[') {
            in_top = false;
        }
        let is_seed = trimmed.strip_prefix("seed").is_some_and(|rest| rest.trim_start().starts_with('='));
        if in_top && !replaced && is_seed {
            out.push_str(&format!("seed = {seed}\n"));
            replaced = true;
        } else {
            out.push_str(line);
        }
    }
    if replaced { out } else { format!("seed = {seed}\n{out}") }
}

#[cfg(test)]
mod tests;
