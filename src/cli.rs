//! The command line: `isrlab` (dashboard), `isrlab --scenario FILE` (a scenario in the
//! dashboard), `isrlab run FILE` (headless, exit code 0/1/2), `isrlab describe` (the state
//! at `--at` as `kafka-topics.sh --describe`), `isrlab lessons` (the built-in lessons) and
//! `isrlab lesson NAME` (one in the dashboard, or headless with `--headless`). Parsing and
//! turning flags into a [`ClusterSpec`] or a [`Scenario`] live here so they can be tested;
//! `main.rs` only dispatches.

use crate::cluster::handle::MAX_BROKERS;
use crate::cluster::spec::{ClusterSpec, Placement, TopicSpec};
use crate::config::{ConfigError, TopicConfig};
use crate::scenario::checks;
use crate::scenario::duration::parse_duration;
use crate::scenario::lessons::{self, Lesson, UnknownLesson};
use crate::scenario::{LoadError, Scenario};
use crate::sim::SimTime;
use clap::{Parser, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};

/// isrlab: a live Kafka replication lab in the terminal.
#[derive(Parser, Debug, Clone)]
// Negative numbers reach the value parsers, so `--speed -1` and `--seed -5` get their range
// errors instead of "unexpected argument".
#[command(name = "isrlab", version, about, long_about = None, allow_negative_numbers = true)]
pub struct Cli {
    /// What to do; without one, the dashboard opens.
    #[command(subcommand)]
    pub mode: Option<Mode>,
    /// Open this scenario in the dashboard (with `describe`: describe its state).
    #[arg(long, value_name = "FILE.toml", global = true)]
    pub scenario: Option<PathBuf>,
    /// Master seed; the same seed and commands give the same run. Random when not given
    /// (a scenario file's own seed wins over random, this flag over both).
    #[arg(long, value_name = "N", value_parser = parse_seed, global = true)]
    pub seed: Option<u64>,
    /// Number of brokers, ids 0..N-1 (default 3, at most 100).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=MAX_BROKERS as i64), global = true)]
    pub brokers: Option<u16>,
    /// Voters of the KRaft controller quorum, node ids 3000.. (1, 3 or 5; default 1, as
    /// Kafka's quickstart formats a cluster).
    #[arg(long, value_name = "N", value_parser = parse_controllers, global = true)]
    pub controllers: Option<usize>,
    /// A topic to create instead of the default `test_repli:6:3` (repeatable); the producer
    /// writes to the first one.
    #[arg(long = "topic", value_name = "NAME:PARTITIONS:RF", value_parser = parse_topic, global = true)]
    pub topics: Vec<TopicArg>,
    /// A broker or producer property, routed by the config registry (repeatable),
    /// e.g. `--set acks=1 --set min.insync.replicas=2`.
    #[arg(long = "set", value_name = "KEY=VALUE", value_parser = parse_setting, global = true)]
    pub sets: Vec<Setting>,
    /// In the dashboard, let every broker listen for real Kafka clients on 127.0.0.1 (broker
    /// i on `--listen-base` + i, 9092 + i by default). Keep the speed at 1× while clients run.
    #[arg(long)]
    pub listen: bool,
    /// The first broker's port for `--listen` (broker i listens on this + i).
    #[arg(long, value_name = "PORT", global = true)]
    pub listen_base: Option<u16>,
    /// Initial sim speed in the dashboard, 0.01 to 100 (sim ms per wall ms; default 1).
    #[arg(long, value_name = "X", value_parser = parse_speed, global = true)]
    pub speed: Option<f64>,
    /// Colours of healthy, degraded and broken things: standard (green, yellow, red) or
    /// color-blind (blue, orange, vermillion). `NO_COLOR` turns colour off either way.
    #[arg(long, value_enum, value_name = "NAME", global = true)]
    pub palette: Option<crate::ui::theme::Palette>,
    /// Draw with ASCII characters only, for terminals or fonts that show symbols at the
    /// wrong width.
    #[arg(long, global = true)]
    pub ascii: bool,
    /// The dashboard's config file (default `$XDG_CONFIG_HOME/isrlab/config.toml`): default
    /// flags and `[keys]` overrides; flags given here win over it.
    #[arg(long, value_name = "FILE.toml", global = true)]
    pub config: Option<PathBuf>,
    /// How replicas are placed on brokers.
    #[arg(long, value_enum, global = true)]
    pub placement: Option<PlacementArg>,
    /// The Kafka release whose replication rules and defaults the cluster follows, e.g.
    /// `kafka-0.10` (see `isrlab profiles`; default the newest). It replaces a scenario
    /// file's own `profile`.
    #[arg(long, value_name = "NAME", value_parser = parse_profile, global = true)]
    pub profile: Option<crate::config::profiles::Profile>,
    /// Write the developer log (tracing) to this file, filtered by `ISRLAB_LOG` (RUST_LOG
    /// syntax, default `info`). With `ISRLAB_LOG` alone it goes to
    /// `$XDG_STATE_HOME/isrlab/isrlab.log`; never to the terminal.
    #[arg(long, value_name = "FILE", global = true)]
    pub log: Option<PathBuf>,
    /// Record the dashboard session into this scenario file as it runs (the seed, the
    /// start-up settings, every command at its sim instant), rewritten on every command;
    /// `isrlab replay FILE` plays it again.
    #[arg(long, value_name = "FILE.toml", global = true)]
    pub record: Option<PathBuf>,
}

/// The headless modes.
#[derive(Subcommand, Debug, Clone, PartialEq)]
pub enum Mode {
    /// Run a scenario headless: prints events and ✓/✗ per expectation; exit code 0 when all
    /// hold, 1 when one fails, 2 when the file is invalid.
    #[command(allow_negative_numbers = true)]
    Run {
        /// The scenario file.
        #[arg(value_name = "FILE.toml")]
        file: PathBuf,
    },
    /// Run the cluster headless to `--at` and print `kafka-topics.sh --describe` output.
    #[command(allow_negative_numbers = true)]
    Describe {
        /// Sim time to stop at, e.g. `5s`, `1500ms`, `2m` (default: a scenario's end, else 5s).
        // Hyphen values reach the parser, so `-1s` gets its "negative" error.
        #[arg(long, value_name = "TIME", value_parser = parse_duration, allow_hyphen_values = true)]
        at: Option<SimTime>,
        /// Print each partition's state as the JSON of ZooKeeper's
        /// `/brokers/topics/T/partitions/P/state` znode (leader, leader_epoch, isr), instead of
        /// `kafka-topics.sh --describe`.
        #[arg(long)]
        zk: bool,
    },
    /// Run the cluster headless at 1× wall speed with every broker listening for real Kafka
    /// clients on 127.0.0.1 (broker i on `--listen-base` + i, 9092 + i by default; 0 picks free ports). Prints each broker's address,
    /// then reads palette commands (`crash 1`, `set min.insync.replicas=3`) from stdin, one
    /// per line, and prints each verdict; stops at end of input or after `--for`.
    #[command(allow_negative_numbers = true)]
    Serve {
        /// Stop after this much time, e.g. `30s` (default: at the end of stdin).
        #[arg(long = "for", value_name = "TIME", value_parser = parse_duration)]
        duration: Option<SimTime>,
    },
    /// List the built-in lessons: number, name, minutes, title and what each teaches.
    Lessons,
    /// List the semantics profiles (`--profile`): the Kafka releases isrlab can play, what
    /// each changes against the newest release, and the Kafka version and KIP behind it.
    Profiles {
        /// Print the table in Markdown, as the manual's profiles chapter holds it.
        #[arg(long)]
        markdown: bool,
    },
    /// Play a lesson in the dashboard: a built-in one by name or number (see `isrlab lessons`),
    /// or a lesson file of your own. With `--headless`, run it as `isrlab run` does. A lesson
    /// plays its own cluster and seed: `--seed`, `--set`, `--brokers`, `--topic` and
    /// `--placement` are refused.
    #[command(allow_negative_numbers = true)]
    Lesson {
        /// A built-in lesson's name or number, or a path to a FILE.toml.
        #[arg(value_name = "NAME|NUMBER|FILE.toml")]
        name: String,
        /// Run it headless: print the narration, each question with the simulation's answer
        /// and ✓/✗, and exit 0 when all hold, 1 when one fails, 2 when the file is invalid.
        #[arg(long)]
        headless: bool,
    },
    /// What if: run a scenario under several settings and print one table of availability
    /// against durability.
    ///
    /// Every run starts from the same seed and plays the same `[[at]]` steps (its faults); the
    /// table has a column per run: records failed, time offline or under min ISR, produce
    /// latency, against acknowledged records lost, diverged records, and records consumers
    /// read and then lost. The file's expectations are not checked. Exit code 0, or 2 for
    /// invalid input.
    #[command(allow_negative_numbers = true)]
    Compare {
        /// The scenario file.
        #[arg(value_name = "FILE.toml")]
        file: PathBuf,
        /// A property and the values to try, e.g. `acks=1,all` (values split at commas).
        /// Repeated, it runs every combination (`--vary acks=1,all --vary
        /// min.insync.replicas=1,2` makes four runs).
        #[arg(long, value_name = "KEY=V1,V2", value_parser = crate::compare::parse_vary)]
        vary: Vec<crate::compare::Vary>,
        /// One run's whole set of settings, separated by spaces, e.g. `'acks=1
        /// min.insync.replicas=1'`; give it once per run (instead of `--vary`).
        #[arg(long = "vary-set", value_name = "'K=V K=V'", value_parser = crate::compare::parse_vary_set)]
        vary_set: Vec<crate::compare::VarySet>,
    },
    /// Export a scenario's dashboard for slides: screens as SVG, a recording, a partition's
    /// timeline.
    ///
    /// SVG pictures of the dashboard at chosen sim instants, an asciicast v2 recording of the
    /// whole run, and an SVG figure of one partition over the run. The same file and seed give
    /// the same files. Exit code 0, 1 when a file cannot be written, 2 for invalid input.
    #[command(allow_negative_numbers = true)]
    Export {
        /// The scenario file.
        #[arg(value_name = "FILE.toml")]
        file: PathBuf,
        /// Sim instants to draw the dashboard at, separated by commas, e.g. `10s,25s`; each
        /// becomes `DIR/screen-10s.svg`, … (needs `--svg`).
        #[arg(long, value_name = "TIME,…", value_delimiter = ',', value_parser = parse_duration, allow_hyphen_values = true)]
        at: Vec<SimTime>,
        /// The directory to write the SVG files into (made if missing).
        #[arg(long, value_name = "DIR")]
        svg: Option<PathBuf>,
        /// The screen size in cells, COLUMNSxROWS.
        #[arg(long, value_name = "COLUMNSxROWS", default_value = "120x40", value_parser = crate::export::parse_size)]
        size: crate::export::Size,
        /// Write an asciicast v2 recording of the whole run (10 frames per sim second,
        /// playing at 1×) to this file; asciinema's player plays it.
        #[arg(long, value_name = "FILE.cast")]
        cast: Option<PathBuf>,
        /// Draw one partition over the run (leader and epoch, ISR size, HW and each
        /// replica's LEO) as `DIR/timeline-TOPIC-P.svg` (needs `--svg`).
        #[arg(long, value_name = "TOPIC-P", value_parser = crate::export::parse_partition)]
        timeline: Option<crate::sim::TopicPartition>,
    },
    /// Play a recorded session (`--record FILE`, `w`, `:save FILE`) in the dashboard: its
    /// commands at their sim instants, on its own cluster and seed. With `--headless`, print
    /// what `isrlab run` prints; exit 2 when the file is not a valid recording.
    #[command(allow_negative_numbers = true)]
    Replay {
        /// The recording (a scenario file).
        #[arg(value_name = "FILE.toml")]
        file: PathBuf,
        /// Run it headless, as `isrlab run FILE` does.
        #[arg(long)]
        headless: bool,
    },
    /// Prove it: run randomized fault schedules over many seeds, on every core, and hold
    /// each run to the invariants of replication.
    ///
    /// Each seed draws a schedule of faults (crashes, controlled shutdowns, restarts,
    /// bounces, cuts, one-way cuts, isolation, paused fetchers, frozen processes, slow
    /// disks, power loss) over the brokers and the controller, runs it on the cluster (the
    /// default one with an idempotent and a plain producer and a group consumer, or
    /// `--scenario FILE`'s, with `--set` applied), then heals everything and lets the cluster
    /// settle. The summary counts the schedules that broke each invariant and the dangerous
    /// states reached. A seed that breaks an invariant the settings promise is shrunk and
    /// written as a scenario file into `--out`. Exit code 0, 1 when a promised invariant
    /// broke, 2 for invalid input.
    #[command(allow_negative_numbers = true)]
    Check {
        /// How many seeds to run.
        #[arg(long, value_name = "N", default_value_t = 100)]
        seeds: u64,
        /// The first seed (seeds run from here on).
        #[arg(long, value_name = "N", default_value_t = 0, value_parser = parse_seed)]
        seed_start: u64,
        /// How long faults go on in each run (sim time), before the heal.
        #[arg(long, value_name = "TIME", default_value = "60s", value_parser = parse_duration)]
        duration: SimTime,
        /// The fault kinds to mix, separated by commas (crash, shutdown, bounce, cut,
        /// cut-oneway, isolate, pause-fetch, freeze, slow-disk, power-loss), or `all`;
        /// by default all but power-loss.
        #[arg(long, value_name = "KIND,…")]
        faults: Option<String>,
        /// Worker threads (default: one per core).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
        threads: Option<u16>,
        /// Where shrunk failing schedules are written as scenario files.
        #[arg(long, value_name = "DIR", default_value = "check-failures")]
        out: PathBuf,
        /// How many failing seeds to shrink and write (0: none).
        #[arg(long, value_name = "N", default_value_t = 1)]
        shrink: usize,
        /// Run every row of the safety matrix (acks, min ISR, unclean election, power loss,
        /// flush.messages) with `--seeds` each and print the table; an unsafe row that lost
        /// records gets its shrunk example in `--out`.
        #[arg(long)]
        matrix: bool,
    },
    /// Write the manual's reference pages (keys, commands, configuration, command line),
    /// generated from the tables the program runs on. For the project's own checkout, so
    /// hidden from the help.
    #[command(hide = true)]
    Docs {
        /// The directory to write into (default: `docs/src/reference` of the checkout, which
        /// must be the working directory).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
}

impl Cli {
    /// Whether the command line opens the dashboard (no subcommand, or a lesson without
    /// `--headless`), rather than running without a terminal and ending with an exit code.
    pub fn opens_dashboard(&self) -> bool {
        match self.mode {
            None | Some(Mode::Lesson { headless: false, .. } | Mode::Replay { headless: false, .. }) => true,
            Some(
                Mode::Run { .. }
                | Mode::Describe { .. }
                | Mode::Serve { .. }
                | Mode::Lessons
                | Mode::Profiles { .. }
                | Mode::Lesson { headless: true, .. }
                | Mode::Compare { .. }
                | Mode::Export { .. }
                | Mode::Replay { headless: true, .. }
                | Mode::Check { .. }
                | Mode::Docs { .. },
            ) => false,
        }
    }
}

/// Where a run's scenario comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Source<'a> {
    /// A scenario or lesson file.
    File(&'a Path),
    /// A built-in lesson.
    Lesson(&'static Lesson),
}

impl Source<'_> {
    /// How messages name it: the path as given, or `assets/lessons/NN-slug.toml`.
    pub fn label(&self) -> String {
        match self {
            Source::File(path) => path.display().to_string(),
            Source::Lesson(lesson) => lesson.path(),
        }
    }
}

/// `isrlab lesson NAME`: a path when NAME holds a path separator or is a `.toml` file here,
/// else a built-in lesson (by number, slug or file name), else a path when it ends with
/// `.toml` (loading it then says it cannot be read). Errors: [`UnknownLesson`], naming the
/// close matches and the lessons.
pub fn lesson_source(name: &str) -> Result<Source<'_>, UnknownLesson> {
    let path = name.contains('/') || name.contains(std::path::MAIN_SEPARATOR);
    if path || (name.ends_with(".toml") && Path::new(name).is_file()) {
        return Ok(Source::File(Path::new(name)));
    }
    match lessons::find(name) {
        Ok(lesson) => Ok(Source::Lesson(lesson)),
        // A `.toml` name that is neither a file here nor a built-in lesson's file name is a
        // path that does not exist: loading it says so.
        Err(_) if name.ends_with(".toml") => Ok(Source::File(Path::new(name))),
        Err(e) => Err(e),
    }
}

/// `--placement` values.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlacementArg {
    /// Kafka's own placement: leaders and followers striped over the brokers, as the
    /// controller places a new topic.
    // Kafka's StripedReplicaPlacer; rule book R1.6.
    Kafka,
    /// A simple round robin: replica j of partition i on broker (i + j) mod n.
    // Rule book R1.1.
    Seed,
}

/// A `--topic NAME:PARTITIONS:RF`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopicArg {
    /// Topic name.
    pub name: String,
    /// Partition count.
    pub partitions: u32,
    /// Replication factor.
    pub replication_factor: u32,
}

/// A `--set KEY=VALUE`, already checked against the config registry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting {
    /// Property name.
    pub key: String,
    /// Value as text.
    pub value: String,
}

/// A command-line mistake.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// A configuration mistake.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The scenario file is unreadable or invalid (`FILE:LINE:COLUMN: ...`).
    #[error(transparent)]
    Load(#[from] LoadError),
    /// Flags that do not fit together, or an impossible cluster.
    #[error("{0}")]
    Invalid(String),
    /// `isrlab lesson NAME` names no built-in lesson.
    #[error(transparent)]
    UnknownLesson(#[from] UnknownLesson),
}

/// Parses `NAME:PARTITIONS:RF`. Errors: the problem in words.
pub fn parse_topic(text: &str) -> Result<TopicArg, String> {
    let parts: Vec<&str> = text.split(':').collect();
    let [name, partitions, rf] = parts[..] else {
        return Err(format!("`{text}` is not NAME:PARTITIONS:RF, e.g. orders:3:2"));
    };
    checks::check_topic_name(name)?;
    let number = |s: &str, what: &str| s.parse::<u32>().map_err(|_| format!("`{s}` is not a valid {what}"));
    let partitions = number(partitions, "partition count")?;
    checks::check_partitions(partitions)?;
    let replication_factor = number(rf, "replication factor")?;
    Ok(TopicArg { name: name.to_string(), partitions, replication_factor })
}

/// A `--profile NAME`, one of `isrlab profiles`. Errors: an unknown name, listing the known.
pub fn parse_profile(text: &str) -> Result<crate::config::profiles::Profile, String> {
    crate::config::profiles::find(text).map_err(|e| e.to_string())
}

/// Parses `KEY=VALUE` and checks it against the config registry. Errors: the problem in words.
pub fn parse_setting(text: &str) -> Result<Setting, String> {
    let Some((key, value)) = text.split_once('=').filter(|(k, v)| !k.is_empty() && !v.is_empty()) else {
        return Err(format!("`{text}` is not KEY=VALUE, e.g. acks=1"));
    };
    checks::check_setting(key, value)?;
    Ok(Setting { key: key.to_string(), value: value.to_string() })
}

/// `--controllers`: 1, 3 or 5.
fn parse_controllers(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if crate::cluster::spec::CONTROLLER_COUNTS.contains(&n) => Ok(n),
        _ => Err(format!("`{s}`: the controller quorum has 1, 3 or 5 voters")),
    }
}

/// Parses a seed, a whole number from 0 to 18446744073709551615. Errors: the problem in words.
pub fn parse_seed(text: &str) -> Result<u64, String> {
    text.parse::<u64>()
        .map_err(|_| format!("`{text}` is not a seed: give a whole number from 0 to {}", u64::MAX))
}

/// Parses a sim speed, 0.01 to 100 (sim ms per wall ms). Errors: the problem in words.
pub fn parse_speed(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if (0.01..=100.0).contains(&x) => Ok(x),
        _ => Err(format!("`{text}` is not a speed from 0.01 to 100")),
    }
}

impl From<PlacementArg> for Placement {
    fn from(p: PlacementArg) -> Self {
        match p {
            PlacementArg::Kafka => Placement::Kafka,
            PlacementArg::Seed => Placement::Seed,
        }
    }
}

impl Cli {
    /// The cluster the flags describe: the default run with `--brokers`, `--topic`,
    /// `--placement` and `--set` applied. Errors: an impossible topic (Kafka's
    /// `INVALID_REPLICATION_FACTOR` message) or a bad setting.
    pub fn cluster_spec(&self, seed: u64) -> Result<ClusterSpec, CliError> {
        let semantics = self.profile.as_ref().map_or(crate::config::Semantics::CURRENT, |p| p.semantics);
        let mut spec = ClusterSpec::default_run_as(seed, &semantics);
        if let Some(n) = self.brokers {
            spec.brokers = (0..i32::from(n)).collect();
        }
        if let Some(n) = self.controllers {
            spec.controllers = n;
        }
        let placement = self.placement.map_or(Placement::Kafka, Placement::from);
        if let Some(first) = self.topics.first() {
            let repeated = self
                .topics
                .iter()
                .enumerate()
                .find(|(i, t)| self.topics[..*i].iter().any(|e| e.name == t.name));
            if let Some((_, t)) = repeated {
                return Err(CliError::Invalid(format!("--topic `{}` is given twice", t.name)));
            }
            if crate::kafka::is_internal(&first.name) {
                return Err(CliError::Invalid(internal_producer_topic(&first.name)));
            }
            spec.topics = self.topics.iter().map(topic_spec).collect();
            spec.producers.iter_mut().for_each(|p| p.topic = first.name.clone());
        }
        for t in &mut spec.topics {
            t.placement = placement.clone();
            // Kafka's words first, then how to get a topic the brokers can hold
            // (`--brokers 2` alone failed with no hint, the default topic having RF 3).
            let brokers = spec.brokers.len();
            checks::check_replication_factor(t.replication_factor, brokers).map_err(|kafka| {
                if (t.replication_factor as usize) <= brokers {
                    return CliError::Invalid(kafka);
                }
                let example = format!("{}:{}:{brokers}", t.name, t.partitions);
                CliError::Invalid(format!(
                    "{kafka}\n  hint: topic {} has replication factor {}; pass --topic NAME:PARTITIONS:RF with RF ≤ {brokers} (the broker count), e.g. --topic {example}",
                    t.name, t.replication_factor
                ))
            })?;
        }
        self.apply_sets(&mut spec)?;
        Ok(spec)
    }

    fn apply_sets(&self, spec: &mut ClusterSpec) -> Result<(), CliError> {
        for s in &self.sets {
            checks::apply_setting(spec, &s.key, &s.value)?;
        }
        Ok(())
    }

    /// Loads a scenario file and applies the flags that may change it: `--seed` (else the
    /// file's seed, else `fallback_seed`) and `--set`. Errors: an invalid file, or
    /// `--brokers`, `--topic` or `--placement`, which the file defines itself.
    pub fn load_scenario(&self, file: &Path, fallback_seed: u64) -> Result<Scenario, CliError> {
        self.load(Source::File(file), fallback_seed)
    }

    /// Loads a scenario file or built-in lesson and applies `--seed` (else its own seed, else
    /// `fallback_seed`) and `--set`. Errors: an invalid file; `--brokers`, `--topic` or
    /// `--placement`, which a scenario defines itself; and for `isrlab lesson` of a file with
    /// questions, any flag that changes the cluster or the run (`--seed`, `--set` too), since
    /// the lesson's answers hold only for its own cluster and seed.
    pub fn load(&self, source: Source<'_>, fallback_seed: u64) -> Result<Scenario, CliError> {
        if matches!(self.mode, Some(Mode::Replay { .. }))
            && let Some(flags) = self.cluster_flags()
        {
            return Err(CliError::Invalid(format!(
                "{flags} cannot be given with `isrlab replay`: a recording replays its own cluster, seed and settings; to vary it, copy the file and change its [cluster], [[producer]] or seed"
            )));
        }
        let cluster_flags = self.brokers.is_some()
            || self.controllers.is_some()
            || !self.topics.is_empty()
            || self.placement.is_some();
        let lesson_mode = matches!(self.mode, Some(Mode::Lesson { .. }));
        if cluster_flags && !lesson_mode {
            return Err(CliError::Invalid(SCENARIO_CLUSTER_FLAGS.into()));
        }
        let mut scenario = match source {
            Source::File(file) => crate::scenario::load_as(file, self.profile.as_ref())?,
            Source::Lesson(lesson) => lesson.load_as(self.profile.as_ref())?,
        };
        if lesson_mode {
            match self.cluster_flags() {
                Some(flags) if !scenario.questions.is_empty() => {
                    return Err(CliError::Invalid(lesson_flags_refused(&flags, &source)));
                }
                _ if cluster_flags => return Err(CliError::Invalid(SCENARIO_CLUSTER_FLAGS.into())),
                _ => {}
            }
        }
        scenario.spec.seed = self.seed.or(scenario.seed).unwrap_or(fallback_seed);
        self.apply_sets(&mut scenario.spec)?;
        Ok(scenario)
    }

    /// The flags given that change the cluster or the run (`--seed`, `--set`, `--brokers`,
    /// `--topic`, `--placement`), as one phrase such as "--seed and --set"; `None` when none is.
    fn cluster_flags(&self) -> Option<String> {
        let given = [
            ("--seed", self.seed.is_some()),
            ("--set", !self.sets.is_empty()),
            ("--brokers", self.brokers.is_some()),
            ("--controllers", self.controllers.is_some()),
            ("--topic", !self.topics.is_empty()),
            ("--placement", self.placement.is_some()),
            ("--profile", self.profile.is_some()),
        ];
        let names: Vec<&str> = given.iter().filter(|(_, on)| *on).map(|(name, _)| *name).collect();
        match names.split_last()? {
            (last, []) => Some((*last).to_string()),
            (last, rest) => Some(format!("{} and {last}", rest.join(", "))),
        }
    }

    /// The scenario file of `run FILE` or `--scenario FILE`. Errors: both given.
    pub fn scenario_file(&self) -> Result<Option<&Path>, CliError> {
        match self.source()? {
            Some(Source::File(file)) => Ok(Some(file)),
            _ => Ok(None),
        }
    }

    /// The scenario of `run FILE`, `--scenario FILE` or `lesson NAME`, if any. Errors: two
    /// of them given, or an unknown lesson.
    pub fn source(&self) -> Result<Option<Source<'_>>, CliError> {
        match (&self.mode, &self.scenario) {
            (Some(Mode::Run { .. } | Mode::Lesson { .. } | Mode::Replay { .. } | Mode::Compare { .. } | Mode::Export { .. }), Some(_)) => Err(CliError::Invalid(
                "give the scenario once: `isrlab run FILE`, `isrlab lesson NAME`, `isrlab replay FILE`, `isrlab compare FILE`, `isrlab export FILE` or `isrlab --scenario FILE`"
                    .into(),
            )),
            (Some(Mode::Run { file } | Mode::Replay { file, .. } | Mode::Compare { file, .. } | Mode::Export { file, .. }), None) => {
                Ok(Some(Source::File(file)))
            }
            (Some(Mode::Lesson { name, .. }), None) => Ok(Some(lesson_source(name)?)),
            (_, s) => Ok(s.as_deref().map(Source::File)),
        }
    }

    /// The scenario [`Cli::source`] names, loaded as [`Cli::load`] does; `None` for the
    /// default cluster. Errors: those of both.
    pub fn scenario(&self, fallback_seed: u64) -> Result<Option<Scenario>, CliError> {
        self.source()?.map(|source| self.load(source, fallback_seed)).transpose()
    }
}

/// Why a scenario refuses `--brokers`, `--topic` and `--placement`.
const SCENARIO_CLUSTER_FLAGS: &str = "--brokers, --topic and --placement describe the default cluster; a scenario file defines its own [cluster] and [[topic]]";

/// Why `isrlab lesson` refuses `flags`: a lesson's questions and answers hold for the cluster
/// and seed it is written for, so a changed run would state answers the simulation no longer
/// gives. Says how to make a variant instead.
fn lesson_flags_refused(flags: &str, source: &Source<'_>) -> String {
    let copy = match source {
        Source::Lesson(lesson) => format!("copy {} from isrlab's source", lesson.path()),
        Source::File(file) => format!("copy {}", file.display()),
    };
    format!(
        "{flags} cannot be given with a lesson: its questions and answers hold for its own cluster and seed only. To make a variant, {copy} to a file of your own, change its [cluster], [[topic]], seed or settings there (and its answers), and play it with `isrlab lesson FILE.toml`"
    )
}

/// Why an internal topic cannot be the first `--topic`: the default producer would write to it,
/// and every batch would fail (`ReplicaManager.appendToLocalLog` refuses a client's append to an
/// internal topic with INVALID_TOPIC_EXCEPTION, which the producer does not retry). Creating it
/// is fine (`ControllerApis.createTopics` refuses only `__cluster_metadata`), so it may come
/// later in the list.
fn internal_producer_topic(name: &str) -> String {
    format!(
        "--topic `{name}`: the producer writes to the first --topic, and Kafka refuses a client's records for an internal topic (INVALID_TOPIC_EXCEPTION, not retried); name another topic first (an internal topic later in the list is created as given)"
    )
}

/// The global flags `isrlab replay` refuses (a recording replays its own cluster, seed and
/// settings), by argument id: its help does not offer them.
const REPLAY_REFUSES: [&str; 6] = ["seed", "sets", "brokers", "topics", "placement", "scenario"];

impl Cli {
    /// The command line as its help shows it: clap's, with the global flags `isrlab replay`
    /// refuses hidden from replay's help, so that help offers only what replay takes. For
    /// help only: the arguments are parsed by [`Cli`] itself (a built command changed
    /// afterwards would match values to the wrong flags).
    pub fn command_line() -> clap::Command {
        let mut cmd = <Cli as clap::CommandFactory>::command();
        cmd.build();
        cmd.mut_subcommand("replay", |replay| {
            REPLAY_REFUSES.iter().fold(replay, |replay, id| replay.mut_arg(*id, |a| a.hide(true)))
        })
    }

    /// The help `args` ask for, when they ask for replay's (`replay --help`, `replay -h`,
    /// `help replay`): from [`Cli::command_line`]. `None` for any other.
    pub fn replay_help(args: &[String]) -> Option<String> {
        let words: Vec<&str> =
            args.iter().skip(1).map(String::as_str).filter(|a| !a.starts_with('-')).collect();
        let asks = words.first() == Some(&"replay") || words.starts_with(&["help", "replay"]);
        if !asks {
            return None;
        }
        let mut cmd = Cli::command_line();
        let replay = cmd.find_subcommand_mut("replay")?;
        let short = args.iter().any(|a| a == "-h");
        Some(if short { replay.render_help() } else { replay.render_long_help() }.to_string())
    }
}

/// A usage error in at most two lines: clap's message (its list of missing arguments and its
/// tips joined onto it) and the usage with where to find more, without clap's blank lines and
/// its "For more information" trailer. `rendered` is clap's rendered error.
pub fn usage_error(rendered: &str) -> String {
    let mut message = Vec::new();
    let mut usage = None;
    for line in rendered.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(u) = line.strip_prefix("Usage: ") {
            usage = Some(u.to_string());
        } else if !line.starts_with("For more information") {
            message.push(line.trim_end_matches(':').to_string());
        }
    }
    let first = message.join(": ").replacen(": tip: ", "; tip: ", 1);
    match usage {
        Some(u) => format!("{first}\nusage: {u} (--help tells more)"),
        None => first,
    }
}

fn topic_spec(t: &TopicArg) -> TopicSpec {
    TopicSpec {
        name: t.name.clone(),
        partitions: t.partitions,
        replication_factor: t.replication_factor,
        placement: Placement::Kafka,
        config: TopicConfig::default(),
    }
}

/// Output to a reader that may go away (`isrlab run FILE | head -1`): once a write fails
/// with a broken pipe, this and every later write are discarded as if written, so the run
/// finishes and exits with its verdict instead of an error. Other errors pass through.
pub struct ClosedPipeTolerant<W> {
    inner: W,
    closed: bool,
}

impl<W: std::io::Write> ClosedPipeTolerant<W> {
    /// Wraps `inner`.
    pub fn new(inner: W) -> Self {
        Self { inner, closed: false }
    }

    fn guard<T>(&mut self, result: std::io::Result<T>, written: T) -> std::io::Result<T> {
        match result {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(written)
            }
            other => other,
        }
    }
}

impl<W: std::io::Write> std::io::Write for ClosedPipeTolerant<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.closed {
            return Ok(buf.len());
        }
        let result = self.inner.write(buf);
        self.guard(result, buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.closed {
            return Ok(());
        }
        let result = self.inner.flush();
        self.guard(result, ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Accepts `room` bytes, then fails like a pipe whose reader has gone.
    struct Pipe {
        room: usize,
        got: Vec<u8>,
    }

    impl std::io::Write for Pipe {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.got.len() + buf.len() > self.room {
                return Err(std::io::ErrorKind::BrokenPipe.into());
            }
            self.got.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Usage errors are two lines at most, the trailer gone: an unknown flag, a missing
    /// argument (clap's list joined onto its message), a tip kept on the first line.
    #[test]
    fn usage_errors_are_two_lines() {
        use clap::Parser;
        for args in [&["--bogus"][..], &["replay"][..], &["--seeed", "4"][..]] {
            let e = Cli::try_parse_from(std::iter::once("isrlab").chain(args.iter().copied())).unwrap_err();
            let text = usage_error(&e.render().to_string());
            let lines: Vec<&str> = text.lines().collect();
            assert_eq!(lines.len(), 2, "{args:?}: {text}");
            assert!(lines[0].starts_with("error: ") && lines[1].starts_with("usage: isrlab"), "{text}");
            assert!(!text.contains("For more information"), "{text}");
        }
        let e = Cli::try_parse_from(["isrlab", "replay"]).unwrap_err();
        assert!(usage_error(&e.render().to_string()).contains("not provided: <FILE.toml>"));
    }

    /// `isrlab help replay` offers only the flags replay takes: the ones it refuses are
    /// hidden there (and still refused with a reason when given), shown for the dashboard.
    #[test]
    fn replay_help_offers_only_what_replay_takes() {
        let mut cmd = Cli::command_line();
        let replay = cmd.find_subcommand_mut("replay").expect("replay").render_long_help().to_string();
        for flag in ["--seed", "--set", "--brokers", "--topic", "--placement", "--scenario"] {
            assert!(!replay.contains(flag), "{flag} in:\n{replay}");
        }
        assert!(replay.contains("--headless") && replay.contains("--speed"), "{replay}");
        assert!(cmd.render_long_help().to_string().contains("--seed"));
        let args = |a: &[&str]| a.iter().map(ToString::to_string).collect::<Vec<_>>();
        assert!(
            Cli::replay_help(&args(&["isrlab", "help", "replay"])).is_some_and(|h| !h.contains("--seed"))
        );
        assert!(Cli::replay_help(&args(&["isrlab", "replay", "-h"])).is_some());
        assert!(Cli::replay_help(&args(&["isrlab", "run", "--help"])).is_none());
        let refused =
            parse(&["replay", "x.toml", "--seed", "3"]).unwrap().load_scenario(Path::new("x.toml"), 1);
        assert!(refused.is_err());
    }

    #[test]
    fn a_closed_pipe_swallows_the_rest_quietly() {
        use std::io::Write;
        let mut out = ClosedPipeTolerant::new(Pipe { room: 6, got: Vec::new() });
        writeln!(out, "first").unwrap();
        writeln!(out, "second").unwrap();
        writeln!(out, "x").unwrap();
        out.flush().unwrap();
        assert_eq!(out.inner.got, b"first\n");
    }
    use crate::sim::Acks;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("isrlab").chain(args.iter().copied()))
    }

    #[test]
    fn no_arguments_is_the_default_dashboard() {
        let cli = parse(&[]).unwrap();
        assert_eq!(cli.mode, None);
        assert_eq!(cli.speed, None);
        assert_eq!(cli.cluster_spec(7).unwrap(), ClusterSpec::default_run(7));
        assert_eq!(cli.scenario_file().unwrap(), None);
    }

    /// The size limits: 100 brokers and 10 000 partitions per topic are accepted, one more
    /// of either is a clear error.
    #[test]
    fn brokers_and_partitions_have_limits_with_clear_errors() {
        let big = parse(&["--brokers", "100", "--topic", "big:10000:3"]).unwrap();
        let spec = big.cluster_spec(1).unwrap();
        assert_eq!(spec.brokers.len(), 100);
        assert_eq!(spec.topics[0].partitions, 10_000);
        let brokers = parse(&["--brokers", "101"]).unwrap_err().to_string();
        assert!(brokers.contains("101 is not in 1..=100"), "{brokers}");
        let partitions = parse(&["--topic", "big:10001:3"]).unwrap_err().to_string();
        assert!(partitions.contains("at most 10000 partitions per topic, not 10001"), "{partitions}");
    }

    /// Issue 9: `--brokers 2` under the default topic (RF 3) keeps Kafka's error first and says
    /// what to pass.
    #[test]
    fn too_few_brokers_for_the_topic_gets_a_hint_after_kafkas_error() {
        let err = parse(&["--brokers", "2"]).unwrap().cluster_spec(1).unwrap_err().to_string();
        assert!(
            err.starts_with("INVALID_REPLICATION_FACTOR: Unable to replicate the partition 3 time(s)"),
            "{err}"
        );
        assert!(
            err.contains(
                "hint: topic test_repli has replication factor 3; pass --topic NAME:PARTITIONS:RF with RF ≤ 2"
            ),
            "{err}"
        );
        let example = err.rsplit("e.g. ").next().unwrap();
        let fixed = parse(&[
            "--brokers",
            "2",
            example.split_whitespace().next().unwrap(),
            example.split_whitespace().nth(1).unwrap(),
        ]);
        assert!(fixed.unwrap().cluster_spec(1).is_ok(), "the hint's example works: {example}");
    }

    #[test]
    fn run_takes_a_file_and_global_flags_after_it() {
        let cli = parse(&["run", "s.toml", "--seed", "5", "--set", "acks=1"]).unwrap();
        assert_eq!(cli.mode, Some(Mode::Run { file: "s.toml".into() }));
        assert_eq!(cli.seed, Some(5));
        assert_eq!(cli.scenario_file().unwrap(), Some(Path::new("s.toml")));
        assert!(parse(&["run", "a.toml", "--scenario", "b.toml"]).unwrap().scenario_file().is_err());
        assert!(parse(&["run"]).is_err());
    }

    #[test]
    fn lesson_takes_a_name_or_a_file_and_headless() {
        let cli = parse(&["lesson", "failover", "--headless", "--seed", "3"]).unwrap();
        assert_eq!(cli.mode, Some(Mode::Lesson { name: "failover".into(), headless: true }));
        assert_eq!(cli.seed, Some(3));
        assert_eq!(parse(&["lessons"]).unwrap().mode, Some(Mode::Lessons));
        assert!(parse(&["lesson"]).is_err());
        let file = parse(&["lesson", "tests/v2/seed-example-lesson.toml"]).unwrap();
        assert_eq!(
            file.source().unwrap(),
            Some(Source::File(Path::new("tests/v2/seed-example-lesson.toml")))
        );
        assert_eq!(file.scenario_file().unwrap(), Some(Path::new("tests/v2/seed-example-lesson.toml")));
        let lesson = file.scenario(9).unwrap().unwrap();
        assert_eq!((lesson.version, lesson.spec.seed), (2, 1), "the file's own seed wins over the fallback");
        let twice = parse(&["lesson", "x.toml", "--scenario", "y.toml"]).unwrap();
        assert!(twice.source().unwrap_err().to_string().contains("give the scenario once"));
        assert_eq!(lesson_source("my-lesson.toml"), Ok(Source::File(Path::new("my-lesson.toml"))));
        assert_eq!(lesson_source("lessons/x"), Ok(Source::File(Path::new("lessons/x"))));
        let unknown = parse(&["lesson", "no-such-lesson"]).unwrap().source().unwrap_err();
        assert!(matches!(unknown, CliError::UnknownLesson(_)), "{unknown}");
        for l in lessons::all() {
            assert_eq!(lesson_source(l.slug), Ok(Source::Lesson(l)));
            assert_eq!(lesson_source(&l.number.to_string()), Ok(Source::Lesson(l)));
            assert_eq!(Source::Lesson(l).label(), format!("assets/lessons/{}", l.file));
        }
    }

    #[test]
    fn describe_defaults_to_five_seconds() {
        assert_eq!(parse(&["describe"]).unwrap().mode, Some(Mode::Describe { at: None, zk: false }));
        assert_eq!(
            parse(&["describe", "--at", "2m"]).unwrap().mode,
            Some(Mode::Describe { at: Some(SimTime::from_ms(120_000)), zk: false })
        );
        let err = parse(&["describe", "--at", "soon"]).unwrap_err().to_string();
        assert!(err.contains("is not a duration"), "{err}");
    }

    #[test]
    fn cluster_flags_shape_the_spec() {
        let cli = parse(&[
            "--brokers",
            "5",
            "--topic",
            "orders:3:2",
            "--topic",
            "audit:1:5",
            "--placement",
            "seed",
            "--set",
            "acks=1",
            "--set",
            "min.insync.replicas=2",
        ])
        .unwrap();
        let spec = cli.cluster_spec(1).unwrap();
        assert_eq!(spec.brokers, vec![0, 1, 2, 3, 4]);
        let names: Vec<&str> = spec.topics.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["orders", "audit"]);
        assert!(spec.topics.iter().all(|t| t.placement == Placement::Seed));
        assert_eq!(spec.producers[0].topic, "orders");
        assert_eq!(spec.producers[0].config.acks, Acks::One);
        assert_eq!(spec.broker_config.min_insync_replicas, 2);
    }

    /// An internal topic may be created (`ControllerApis.createTopics` refuses only
    /// `__cluster_metadata`), but not as the producer's topic: Kafka would refuse every batch.
    #[test]
    fn internal_topics_are_created_but_not_as_the_producers_topic() {
        let first = parse(&["--topic", "__consumer_offsets:3:3"]).unwrap().cluster_spec(1).unwrap_err();
        assert!(first.to_string().contains("INVALID_TOPIC_EXCEPTION"), "{first}");
        let later = parse(&["--topic", "t:1:3", "--topic", "__consumer_offsets:3:3"])
            .unwrap()
            .cluster_spec(1)
            .unwrap();
        assert_eq!(
            (later.topics[1].name.as_str(), later.producers[0].topic.as_str()),
            ("__consumer_offsets", "t")
        );
        let metadata = parse(&["--topic", "__cluster_metadata:1:1"]).unwrap_err().to_string();
        assert!(
            metadata
                .contains("INVALID_REQUEST: Creation of internal topic __cluster_metadata is prohibited."),
            "{metadata}"
        );
    }

    #[test]
    fn replication_factor_above_broker_count_is_kafkas_error() {
        let err = parse(&["--brokers", "2"]).unwrap().cluster_spec(1).unwrap_err().to_string();
        assert_eq!(
            err.lines().next().unwrap(),
            "INVALID_REPLICATION_FACTOR: Unable to replicate the partition 3 time(s): The target replication factor of 3 cannot be reached because only 2 broker(s) are registered."
        );
        assert!(parse(&["--topic", "t:1:4"]).unwrap().cluster_spec(1).is_err());
        assert!(parse(&["--topic", "t:1:1", "--topic", "t:2:1"]).unwrap().cluster_spec(1).is_err());
    }

    #[test]
    fn bad_flags_are_clear_errors() {
        let err = parse(&["--set", "min.insync.replica=2"]).unwrap_err().to_string();
        assert!(err.contains("did you mean `min.insync.replicas`"), "{err}");
        assert!(parse(&["--set", "acks=2"]).unwrap_err().to_string().contains("0, 1, all or -1"));
        assert!(parse(&["--set", "acks"]).unwrap_err().to_string().contains("not KEY=VALUE"));
        assert!(parse(&["--topic", "orders:3"]).unwrap_err().to_string().contains("NAME:PARTITIONS:RF"));
        assert!(parse(&["--topic", "a b:3:1"]).unwrap_err().to_string().contains("illegal"));
        assert!(parse(&["--topic", "t:0:1"]).unwrap_err().to_string().contains("INVALID_PARTITIONS"));
        assert!(parse(&["--speed", "200"]).unwrap_err().to_string().contains("0.01 to 100"));
        assert!(parse(&["--brokers", "0"]).is_err());
        assert!(parse(&["--placement", "random"]).is_err());
        assert!(parse(&["--seed", "-1"]).is_err());
    }

    #[test]
    fn scenario_files_refuse_cluster_flags() {
        let cli = parse(&["run", "tests/scenarios/seed-example.toml", "--brokers", "4"]).unwrap();
        let err = cli.load_scenario(Path::new("tests/scenarios/seed-example.toml"), 1).unwrap_err();
        assert!(err.to_string().contains("a scenario file defines its own"), "{err}");
    }
}
