//! Everything a run does before it opens the terminal: read the user's config file, fill the
//! flags it leaves unset, and build the cluster and timeline from the flags or the scenario
//! file. `main` runs it first, so a mistake is reported before the screen changes; the
//! manual's tests (`tests/docs.rs`) run the same code on every dashboard command line the
//! manual shows.

use crate::cli::{Cli, CliError, Source};
use crate::cluster::snapshot::ScenarioInfo;
use crate::cluster::spec::ClusterSpec;
use crate::scenario::Action;
use crate::scenario::recording::{Origin, Recording};
use crate::ui::lesson::Script;
use crate::user_config::{self, Loaded};
use std::path::PathBuf;

/// What a run starts from: the cluster, the timeline and, for a scenario, its name and end and
/// what the dashboard plays of it.
#[derive(Debug)]
pub struct Start {
    /// The cluster to build.
    pub spec: ClusterSpec,
    /// The commands to apply, each at its sim instant (empty without a scenario).
    pub timeline: Vec<Action>,
    /// The scenario's name and end, when there is one.
    pub scenario: Option<ScenarioInfo>,
    /// What the dashboard plays of the scenario (narration, checks, questions), when it has
    /// any of them.
    pub script: Option<Script>,
    /// The session's recording, empty at start (`--record FILE` sets where it is written).
    pub recording: Recording,
}

/// The cluster and timeline of `--scenario FILE`, or of the flags. `fallback_seed` is the
/// seed when neither `--seed` nor the scenario file gives one. Errors: an invalid scenario
/// file, flags that do not fit together, an impossible cluster.
pub fn start(cli: &Cli, fallback_seed: u64) -> Result<Start, CliError> {
    let source = cli.source()?;
    match source.map(|source| cli.load(source, fallback_seed).map(|s| (source, s))).transpose()? {
        Some((source, scenario)) => {
            let info = ScenarioInfo { name: scenario.name.clone(), end: scenario.end };
            let script = Script::of(&scenario);
            let text = match source {
                Source::File(path) => std::fs::read_to_string(path).map_err(|e| {
                    CliError::Invalid(format!(
                        "{}: cannot read it again to record the session: {e}",
                        path.display()
                    ))
                })?,
                Source::Lesson(lesson) => lesson.text.to_string(),
            };
            let origin = Origin::File { label: source.label(), text, scheduled: scenario.commands() };
            let recording = Recording::new(origin, scenario.spec.clone());
            Ok(Start {
                spec: scenario.spec,
                timeline: scenario.timeline,
                scenario: Some(info),
                script,
                recording,
            })
        }
        None => {
            let spec = cli.cluster_spec(cli.seed.unwrap_or(fallback_seed))?;
            let sets = cli.sets.iter().map(|s| (s.key.clone(), s.value.clone())).collect();
            let recording = Recording::new(Origin::Flags { sets }, spec.clone());
            Ok(Start { spec, timeline: Vec::new(), scenario: None, script: None, recording })
        }
    }
}

/// The user's config file: `--config FILE` (which must exist), else `default_path` if there
/// is a file there. A bad entry is no error: it is skipped, with a warning in
/// [`Loaded::warnings`]. Errors: `--config` names no file.
pub fn user_config(cli: &Cli, default_path: Option<PathBuf>) -> Result<Loaded, CliError> {
    match &cli.config {
        Some(path) if !path.is_file() => {
            Err(CliError::Invalid(format!("--config {}: no such file", path.display())))
        }
        Some(path) => Ok(user_config::load(path)),
        None => Ok(default_path.map(|p| user_config::load(&p)).unwrap_or_default()),
    }
}

/// A dashboard ready to open: the flags with the config file's defaults filled in, what it
/// starts from, and the config file (its keys and warnings).
#[derive(Debug)]
pub struct Dashboard {
    /// The flags, config file applied.
    pub cli: Cli,
    /// The cluster and timeline.
    pub start: Start,
    /// The user's config file.
    pub config: Loaded,
}

/// Everything the dashboard does before the terminal: the config file (`--config`, else
/// `default_config`), then the flags and the scenario file, whose mistakes are the ones to
/// report; with `--record FILE`, the recording is checked to read back as this session.
/// Errors: those of [`user_config`] and [`start`], and a recording that would not replay.
pub fn dashboard(
    cli: &Cli,
    default_config: Option<PathBuf>,
    fallback_seed: u64,
) -> Result<Dashboard, CliError> {
    let config = user_config(cli, default_config)?;
    let mut cli = cli.clone();
    cli.with_user_config(&config.config);
    let mut start = start(&cli, fallback_seed)?;
    if let Some(path) = &cli.record {
        // Checked now, so a session whose recording would not replay it is refused before
        // the screen changes; `main` writes the file once the terminal is there.
        start
            .recording
            .checked(crate::sim::SimTime::ZERO)
            .map_err(|why| CliError::Invalid(format!("--record {}: {why}", path.display())))?;
        start.recording.autosave = Some(path.clone());
    }
    Ok(Dashboard { cli, start, config })
}
