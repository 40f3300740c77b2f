//! `isrlab check` from the command line: builds the check from the flags, runs the seeds with
//! a progress bar, prints the summary, shrinks and writes failing seeds; with `--matrix`,
//! every row of the safety matrix.

use super::cluster::{Base, BaseError};
use super::invariants::Invariant;
use super::matrix::{self, Row};
use super::schedule::FaultKind;
use super::shrink::{self, Shrunk};
use super::summary::Summary;
use super::{Check, SeedRun, parallel};
use crate::cli::{Cli, CliError, Mode, Setting, Source};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What `isrlab check` was asked, from its flags.
struct Request<'a> {
    seeds: u64,
    seed_start: u64,
    duration_ms: u64,
    faults: Vec<FaultKind>,
    threads: usize,
    out: &'a Path,
    shrink: usize,
}

/// Checks the flags and builds the cluster of `isrlab check` without running a seed (the
/// manual's tests validate its examples so). Errors: as [`main`]'s.
pub fn validate(cli: &Cli) -> Result<(), CliError> {
    let Some(Mode::Check { duration, faults, .. }) = &cli.mode else {
        return Err(CliError::Invalid("not a check".into()));
    };
    let request = Request {
        seeds: 0,
        seed_start: 0,
        duration_ms: duration.as_ms().max(2_000),
        faults: match faults {
            Some(text) => super::schedule::parse_faults(text).map_err(CliError::Invalid)?.0,
            None => FaultKind::default_mix(),
        },
        threads: 1,
        out: Path::new("."),
        shrink: 0,
    };
    build(cli, &cli.sets, &request).map(|_| ())
}

/// Runs `isrlab check`. Returns the exit code: 0 when no promised invariant broke, 1 when
/// one did. Errors: invalid flags or cluster (exit 2).
pub fn main(cli: &Cli) -> Result<u8, CliError> {
    let Some(Mode::Check { seeds, seed_start, duration, faults, threads, out, shrink, matrix }) = &cli.mode
    else {
        return Err(CliError::Invalid("not a check".into()));
    };
    let request = Request {
        seeds: *seeds,
        seed_start: *seed_start,
        duration_ms: duration.as_ms().max(2_000),
        faults: match faults {
            Some(text) => super::schedule::parse_faults(text).map_err(CliError::Invalid)?.0,
            None => FaultKind::default_mix(),
        },
        threads: threads.map_or_else(parallel::cores, usize::from),
        out,
        shrink: *shrink,
    };
    if *matrix {
        return run_matrix(cli, &request);
    }
    let check = build(cli, &cli.sets, &request)?;
    let (runs, secs) = run_all(&check, &request);
    let summary = Summary::of(&check, &runs);
    print!("cluster: {}\n{}", check.base.label, summary.render(&check, secs));
    let failing: Vec<&SeedRun> = runs.iter().filter(|r| check.failure(&r.outcome).is_some()).collect();
    for run in failing.iter().take(request.shrink) {
        let invariant = check.failure(&run.outcome).map_or(Invariant::LostWrite, |v| v.invariant);
        let how = command_line(cli, run.seed);
        match write_shrunk(&check, run, invariant, request.out, &how) {
            Ok(path) => println!("seed {}: {} — shrunk to {}", run.seed, invariant.name(), path.display()),
            Err(e) => eprintln!("seed {}: cannot write the shrunk schedule: {e}", run.seed),
        }
    }
    Ok(if failing.is_empty() { 0 } else { 1 })
}

/// The check the flags describe, with `sets`.
fn build(cli: &Cli, sets: &[Setting], request: &Request<'_>) -> Result<Check, CliError> {
    let base = match cli.source()? {
        Some(Source::File(path)) => {
            if cli.brokers.is_some() || !cli.topics.is_empty() || cli.placement.is_some() {
                return Err(CliError::Invalid(
                    "--brokers, --topic and --placement describe the default cluster; a scenario file defines its own [cluster] and [[topic]]".into(),
                ));
            }
            Base::from_file(path, sets)
        }
        Some(Source::Lesson(_)) => return Err(CliError::Invalid("give a scenario file".into())),
        None => Base::from_flags(cli.brokers, &cli.topics, cli.placement, sets),
    };
    let mut base = base.map_err(|e| match e {
        BaseError::File(m) | BaseError::Invalid(m) => CliError::Invalid(m),
    })?;
    base.set_cluster(cli.profile.as_ref().map(|p| p.name.as_str()), cli.controllers);
    Check::new(base, request.duration_ms, request.faults.clone())
        .map_err(|e| CliError::Invalid(e.to_string()))
}

/// Runs the seeds with a progress bar on the terminal (none when stderr is not one).
fn run_all(check: &Check, request: &Request<'_>) -> (Vec<SeedRun>, f64) {
    let bar = indicatif::ProgressBar::new(request.seeds);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} seeds · {per_sec} · eta {eta} · {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let failed = std::sync::atomic::AtomicU64::new(0);
    // Wall time of the check itself, for the summary; the runs never read it.
    #[allow(clippy::disallowed_methods)]
    let started = Instant::now();
    let runs = parallel::run_seeds(check, request.seed_start, request.seeds, request.threads, &|run| {
        if check.failure(&run.outcome).is_some() {
            let n = failed.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            bar.set_message(format!("{n} failing"));
        }
        bar.inc(1);
    });
    bar.finish_and_clear();
    (runs, started.elapsed().as_secs_f64())
}

/// Shrinks `run` and writes it into `dir` as `seed-N-INVARIANT.toml`.
fn write_shrunk(
    check: &Check,
    run: &SeedRun,
    invariant: Invariant,
    dir: &Path,
    how: &str,
) -> Result<PathBuf, String> {
    let shrunk: Shrunk = shrink::shrink(check, run, invariant);
    let text = shrink::scenario_text(&shrunk, how);
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = dir.join(format!("seed-{}-{}.toml", run.seed, invariant.name().replace(' ', "-")));
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

/// The command line that runs only `seed` of this check.
fn command_line(cli: &Cli, seed: u64) -> String {
    let mut line = format!("isrlab check --seed-start {seed} --seeds 1");
    if let Some(path) = &cli.scenario {
        line.push_str(&format!(" --scenario {}", path.display()));
    }
    for s in &cli.sets {
        line.push_str(&format!(" --set {}={}", s.key, s.value));
    }
    if let Some(Mode::Check { faults: Some(f), duration, .. }) = &cli.mode {
        line.push_str(&format!(" --faults {f} --duration {}ms", duration.as_ms()));
    }
    line
}

/// `--matrix`: every row with `--seeds` each, as a Markdown table.
fn run_matrix(cli: &Cli, request: &Request<'_>) -> Result<u8, CliError> {
    println!("| settings | seeds | lost | diverged | read erased | time (s) | example |");
    println!("|---|---|---|---|---|---|---|");
    let mut code = 0;
    for row in matrix::rows() {
        let mut sets = row.sets();
        sets.extend(cli.sets.iter().cloned());
        let request = Request { faults: row.faults(), ..*request };
        let check = build(cli, &sets, &request)?;
        let (runs, secs) = run_all(&check, &request);
        let summary = Summary::of(&check, &runs);
        if !summary.failing.is_empty() {
            code = 1;
        }
        let example = example(&check, &row, &runs, request.out);
        println!(
            "| `{}` | {} | {} | {} | {} | {secs:.0} | {example} |",
            row.flags(),
            summary.seeds,
            summary.count(Invariant::LostWrite),
            summary.count(Invariant::LogDivergence),
            summary.count(Invariant::ReadErased),
        );
    }
    Ok(code)
}

/// The shrunk example of a row that lost records, written into `dir`; `—` when none lost.
fn example(check: &Check, row: &Row, runs: &[SeedRun], dir: &Path) -> String {
    let Some(run) = runs.iter().find(|r| r.outcome.broke(Invariant::LostWrite)) else { return "—".into() };
    let how = format!("isrlab check --seed-start {} --seeds 1 {}", run.seed, row.flags());
    let name = row.label().replace([' ', '='], "-").replace('.', "");
    let shrunk = shrink::shrink(check, run, Invariant::LostWrite);
    let path = dir.join(format!("{name}.toml"));
    let written = std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&path, shrink::scenario_text(&shrunk, &how)));
    match written {
        Ok(()) => format!("`{}`", path.display()),
        Err(e) => format!("not written: {e}"),
    }
}
