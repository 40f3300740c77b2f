//! The `isrlab` binary: parses the command line and dispatches to the dashboard, a headless
//! scenario or lesson run, the list of lessons, `describe`, `compare` (what-if runs), `export`
//! (files for slides) or `docs` (the reference pages). The
//! only place where randomness comes from the OS: a run without `--seed` (and without a seed
//! in its scenario file) gets a random seed, always shown.

use clap::Parser;
use color_eyre::eyre::{Result, WrapErr};
use isrlab::cli::{Cli, CliError, ClosedPipeTolerant, Mode, Source};
use isrlab::cluster::handle::LiveSim;
use isrlab::describe::{describe, zk_partition_states};
use isrlab::launch::{self, Start};
use isrlab::scenario::runner::{self, EXIT_INVALID, RunError};
use isrlab::sim::{SimTime, format_instant};
use isrlab::ui::Look;
use isrlab::ui::theme::Theme;
use isrlab::user_config;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let hooks =
        color_eyre::config::HookBuilder::default().display_location_section(false).display_env_section(false);
    if let Err(e) = hooks.install() {
        eprintln!("isrlab: cannot install the error reporter: {e}");
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelp => {
            match Cli::replay_help(&std::env::args().collect::<Vec<_>>()) {
                Some(help) => {
                    print!("{help}");
                    return ExitCode::SUCCESS;
                }
                None => e.exit(),
            }
        }
        // --version prints to stdout and exits 0, as clap does.
        Err(e) if !e.use_stderr() => e.exit(),
        Err(e) => {
            eprintln!("{}", isrlab::cli::usage_error(&e.render().to_string()));
            return ExitCode::from(EXIT_INVALID);
        }
    };
    if let Err(e) = isrlab::logging::init(cli.log.as_deref()) {
        eprintln!("error: {e}");
        return ExitCode::from(EXIT_INVALID);
    }
    if let Some(file) = cli.record.as_ref().filter(|_| !cli.opens_dashboard()) {
        eprintln!(
            "error: --record {} records a dashboard session; a headless run prints its report instead (redirect it to a file)",
            file.display()
        );
        return ExitCode::from(EXIT_INVALID);
    }
    match &cli.mode {
        Some(
            Mode::Run { .. } | Mode::Lesson { headless: true, .. } | Mode::Replay { headless: true, .. },
        ) => run_headless(&cli),
        Some(Mode::Describe { at, zk }) => report(describe_at(&cli, *at, *zk)),
        Some(Mode::Lessons) => list_lessons(),
        Some(Mode::Profiles { markdown }) => list_profiles(*markdown),
        Some(Mode::Serve { duration }) => {
            report(serve(&cli, cli.listen_base.unwrap_or(isrlab::wire::DEFAULT_BASE_PORT), *duration))
        }
        Some(Mode::Compare { vary, vary_set, .. }) => report(compare(&cli, vary, vary_set)),
        Some(Mode::Export { at, svg, size, cast, timeline, .. }) => {
            let request = isrlab::export::Request {
                at: at.clone(),
                svg: svg.clone(),
                size: *size,
                cast: cast.clone(),
                timeline: timeline.clone(),
            };
            report(export(&cli, &request))
        }
        Some(Mode::Docs { out }) => report(write_docs(out.as_deref())),
        Some(Mode::Check { .. }) => match isrlab::check::command::main(&cli) {
            Ok(code) => ExitCode::from(code),
            Err(e) => report(Err(e.into())),
        },
        None | Some(Mode::Lesson { headless: false, .. } | Mode::Replay { headless: false, .. }) => {
            match dashboard(&cli) {
                Ok(exit) => ExitCode::from(exit.code()),
                Err(e) => report(Err(e)),
            }
        }
    }
}

/// A file the command was asked to write could not be written (the message names it and
/// why): one plain line and exit code 1, like a failed run.
#[derive(Debug)]
struct WriteFailed(String);

impl std::fmt::Display for WriteFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for WriteFailed {}

/// A user mistake ([`CliError`]) prints one plain line and exits 2, like clap's usage errors;
/// a file that cannot be written ([`WriteFailed`]) one plain line and exits 1; anything else
/// gets color-eyre's report and exits 1.
fn report(result: Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => match e.downcast_ref::<CliError>() {
            Some(mistake) => {
                eprintln!("error: {mistake}");
                ExitCode::from(EXIT_INVALID)
            }
            None if e.downcast_ref::<WriteFailed>().is_some() => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
            None => {
                eprintln!("Error: {e:?}");
                ExitCode::FAILURE
            }
        },
    }
}

/// `isrlab run FILE` and `isrlab lesson NAME --headless`: exit code 0 all hold, 1 one
/// fails, 2 invalid file (or unknown lesson).
fn run_headless(cli: &Cli) -> ExitCode {
    let loaded = cli.source().and_then(|source| {
        let source = source.ok_or_else(|| CliError::Invalid("no scenario to run".into()))?;
        Ok((source.label(), cli.load(source, rand::random())?))
    });
    let (label, scenario) = match loaded {
        Ok(loaded) => loaded,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(EXIT_INVALID);
        }
    };
    // A reader that stops early (`| head`) does not change the verdict.
    let mut out = ClosedPipeTolerant::new(std::io::stdout().lock());
    let result = runner::run(&scenario, &mut out);
    let _ = out.flush();
    match result {
        Ok(summary) => ExitCode::from(summary.exit_code()),
        Err(e @ RunError::Start(_)) => {
            eprintln!("{label}: {e}");
            ExitCode::from(EXIT_INVALID)
        }
        Err(e) => {
            eprintln!("isrlab: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The scenario file of `compare FILE` or `export FILE`.
fn scenario_file(cli: &Cli) -> Result<&Path, CliError> {
    match cli.source()? {
        Some(Source::File(file)) => Ok(file),
        _ => Err(CliError::Invalid(
            "give the scenario file: isrlab compare FILE.toml or isrlab export FILE.toml".into(),
        )),
    }
}

/// `isrlab compare FILE --vary …`: the what-if table on stdout.
fn compare(cli: &Cli, vary: &[isrlab::compare::Vary], sets: &[isrlab::compare::VarySet]) -> Result<()> {
    let runs = isrlab::compare::runs(vary, sets).map_err(CliError::Invalid)?;
    let file = scenario_file(cli)?;
    if let Some(why) = isrlab::compare::built_in_lesson(file) {
        return Err(CliError::Invalid(why).into());
    }
    let scenario = cli.load_scenario(file, rand::random())?;
    let table = isrlab::compare::compare(&scenario, file, &runs).map_err(CliError::Invalid)?;
    let mut out = ClosedPipeTolerant::new(std::io::stdout().lock());
    out.write_all(table.as_bytes()).and_then(|()| out.flush()).wrap_err("cannot write the table")
}

/// `isrlab export FILE …`: writes the files and names each on stdout; a command the cluster
/// refused on the way is named on stderr. Drawn with `--palette` and `--ascii`, never
/// `NO_COLOR` (the files are for elsewhere).
fn export(cli: &Cli, request: &isrlab::export::Request) -> Result<()> {
    let file = scenario_file(cli)?;
    let scenario = cli.load_scenario(file, rand::random())?;
    if let Some(tp) = &request.timeline {
        isrlab::export::check_partition(&scenario, file, tp).map_err(CliError::Invalid)?;
    }
    let theme = Theme::new(true).with_palette(cli.palette.unwrap_or_default()).with_ascii(cli.ascii);
    let play = isrlab::export::Play::of(scenario);
    let exported = isrlab::export::export(&play, request, theme).map_err(CliError::Invalid)?;
    for r in &exported.refused {
        eprintln!("isrlab: {r}");
    }
    isrlab::export::write(&exported.files).map_err(WriteFailed)?;
    for f in &exported.files {
        println!("written: {}", f.path.display());
    }
    Ok(())
}

/// `isrlab lessons`: the table of built-in lessons; exit code 1 if one cannot be loaded.
fn list_lessons() -> ExitCode {
    let (text, ok) = isrlab::scenario::lessons::listing();
    let mut out = ClosedPipeTolerant::new(std::io::stdout().lock());
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        eprintln!("isrlab: cannot write the list of lessons: {e}");
        return ExitCode::FAILURE;
    }
    if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

/// `isrlab profiles [--markdown]`: the semantics profiles and what each changes.
fn list_profiles(markdown: bool) -> ExitCode {
    use isrlab::config::profiles;
    let text = if markdown { profiles::markdown_table() } else { profiles::text_table() };
    let mut out = ClosedPipeTolerant::new(std::io::stdout().lock());
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        eprintln!("isrlab: cannot write the list of profiles: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// `isrlab docs [--out DIR]`: write the reference pages, one line per page.
fn write_docs(out: Option<&Path>) -> Result<()> {
    let dir = match out {
        Some(dir) => dir.to_path_buf(),
        None => isrlab::docs::checkout_dir(Path::new("")).ok_or_else(|| {
            CliError::Invalid(format!(
                "isrlab docs writes the reference pages into {} of the isrlab checkout: run it there (`{}`), or give --out DIR",
                isrlab::docs::DIR,
                isrlab::docs::REGENERATE
            ))
        })?,
    };
    let written = isrlab::docs::write(&dir).wrap_err("cannot write the reference pages")?;
    for w in written {
        let what = if w.changed { "written" } else { "unchanged" };
        println!("{}: {what}", w.path.display());
    }
    Ok(())
}

/// `isrlab describe`: run headless to `--at` (default: the scenario's end, else 5 s) and print
/// `kafka-topics.sh --describe`.
fn describe_at(cli: &Cli, at: Option<SimTime>, zk: bool) -> Result<()> {
    let Start { spec, timeline, scenario, .. } = launch::start(cli, rand::random())?;
    let at = at.or(scenario.map(|s| s.end)).unwrap_or(SimTime::from_ms(5_000));
    let seed = spec.seed;
    let snap = runner::run_to(spec, &timeline, at).map_err(|e| CliError::Invalid(e.to_string()))?;
    let body = if zk { zk_partition_states(&snap) } else { describe(&snap) };
    let text = format!("seed {seed} · state at {}\n{body}", format_instant(at));
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        // A reader that stopped early (`| head`) is not a failure worth a report.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.wrap_err("cannot write the description"),
    }
}

/// `isrlab serve`: the cluster at 1× wall speed, every broker listening for real clients;
/// palette commands from stdin, one per line.
fn serve(cli: &Cli, listen_base: u16, duration: Option<SimTime>) -> Result<()> {
    use isrlab::cluster::command::Command;
    use isrlab::wire::{Listeners, Pacing};
    use std::io::BufRead;
    let Start { spec, timeline, .. } = launch::start(cli, rand::random())?;
    let brokers = spec.brokers.clone();
    let commands = timeline.into_iter().filter_map(|a| a.command.map(|c| (a.at, c))).collect();
    let live = isrlab::cluster::handle::LiveSim::spawn(spec, commands, None)
        .map_err(|e| CliError::Invalid(e.to_string()))?;
    let port = live.wire_port().ok_or_else(|| CliError::Invalid("the simulation stopped".into()))?;
    let ip = std::net::IpAddr::from([127, 0, 0, 1]);
    let listeners = Listeners::start(port, &brokers, ip, listen_base, Pacing::Wall { start: SimTime::ZERO })
        .map_err(|e| CliError::Invalid(e.to_string()))?;
    let mut out = std::io::stdout().lock();
    for (b, addr) in &listeners.addrs {
        writeln!(out, "broker {b} listening on {addr}")?;
    }
    out.flush()?;
    drop(out);
    if let Some(d) = duration {
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_micros(d.as_micros()));
            std::process::exit(0);
        });
    }
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let verdict = match Command::parse(line) {
            Ok(cmd) => match live.apply(cmd) {
                Ok(_) => format!("✔ {line}"),
                Err(e) => format!("✘ {line}: {e}"),
            },
            Err(e) => format!("✘ {line}: {e}"),
        };
        println!("{verdict}");
    }
    if duration.is_some() {
        loop {
            std::thread::park();
        }
    }
    drop(listeners);
    Ok(())
}

/// `isrlab` and `isrlab --scenario FILE`: the live dashboard.
fn dashboard(cli: &Cli) -> Result<isrlab::ui::Exit> {
    use std::io::IsTerminal;
    // The flags and the scenario file are checked first: their mistake is the one to report.
    let launch::Dashboard {
        cli,
        start: Start { spec, timeline, scenario, script, recording },
        config: loaded,
    } = launch::dashboard(cli, user_config::default_path(), rand::random())?;
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return Err(CliError::Invalid(
            "the dashboard needs a terminal (stdin and stdout are not both a TTY); for output into a file or pipe use `isrlab run FILE`, `isrlab lesson NAME --headless` or `isrlab describe`".into(),
        )
        .into());
    }
    if let Some(path) = &recording.autosave {
        recording
            .save(path, SimTime::ZERO)
            .map_err(|why| CliError::Invalid(format!("--record {}: {why}", path.display())))?;
    }
    let seed = spec.seed;
    let commands = timeline.into_iter().filter_map(|a| a.command.map(|c| (a.at, c))).collect();
    // A lesson watches every event (its `event` checks, the reveals' explanations).
    let spawn = if script.is_some() { LiveSim::spawn_tapped } else { LiveSim::spawn };
    let brokers = spec.brokers.clone();
    let live = spawn(spec, commands, scenario)
        .map_err(|e| CliError::Invalid(format!("the cluster cannot start: {e}")))?;
    let _listeners = match (cli.listen, live.wire_port()) {
        (true, Some(port)) => {
            let base = cli.listen_base.unwrap_or(isrlab::wire::DEFAULT_BASE_PORT);
            let ip = std::net::IpAddr::from([127, 0, 0, 1]);
            let pacing = isrlab::wire::Pacing::External;
            Some(
                isrlab::wire::Listeners::start(port, &brokers, ip, base, pacing)
                    .map_err(|e| CliError::Invalid(e.to_string()))?,
            )
        }
        _ => None,
    };
    let theme = Theme::from_env().with_palette(cli.palette.unwrap_or_default()).with_ascii(cli.ascii);
    let look = Look { theme, keys: loaded.config.keys, warnings: loaded.warnings };
    let recorded = recording.autosave.clone();
    let result = isrlab::ui::run_dashboard(live, cli.speed.unwrap_or(1.0), look, script, recording);
    // The same seed starts the same cluster; only a recording replays the session itself.
    match recorded {
        Some(path) => eprintln!(
            "isrlab: seed {seed}; session recorded in {} (replay with isrlab replay {})",
            path.display(),
            path.display()
        ),
        None => eprintln!(
            "isrlab: seed {seed} (--seed {seed} starts the same cluster; `w` or --record FILE saves a session to replay)"
        ),
    }
    result
}
