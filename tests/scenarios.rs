//! Every scenario in `tests/scenarios/` (and every format v2 fixture in `tests/v2/`) is its own named test (`scenario::<file>`), generated
//! by the `datatest-stable` harness: a new file becomes a test by itself, and
//! `cargo test --test scenarios NAME` runs only the scenarios whose file name contains NAME.
//! Each one runs headless and requires every expectation to hold (exit code 0).

use isrlab::scenario::runner::{self, EXIT_PASSED};
use std::path::Path;

/// A failure whose report prints as written (the harness shows errors with `{:?}`, which would
/// escape the report's line breaks).
struct Failed(String);

impl std::fmt::Debug for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Failed {}

fn fail(report: String) -> datatest_stable::Result<()> {
    Err(Box::new(Failed(report)))
}

fn run(path: &Path) -> datatest_stable::Result<(u8, String)> {
    let scenario = isrlab::scenario::load(path)?;
    let mut out = Vec::new();
    let summary = runner::run(&scenario, &mut out).map_err(|e| Failed(format!("{}: {e}", path.display())))?;
    Ok((summary.exit_code(), String::from_utf8_lossy(&out).into_owned()))
}

/// One scenario file: every expectation holds.
fn scenario(path: &Path) -> datatest_stable::Result<()> {
    let (code, report) = run(path)?;
    if code != EXIT_PASSED {
        return fail(format!("{} (exit {code})\n{report}", path.display()));
    }
    Ok(())
}

/// Running a scenario twice with its seed gives the same report, byte for byte.
fn same_seed_same_report(path: &Path) -> datatest_stable::Result<()> {
    let (first, second) = (run(path)?, run(path)?);
    if first != second {
        return fail(format!("{}: two runs differ:\n{}\n---\n{}", path.display(), first.1, second.1));
    }
    Ok(())
}

datatest_stable::harness! {
    { test = scenario, root = "tests/scenarios", pattern = r"\.toml$" },
    { test = scenario, root = "tests/v2", pattern = r"\.toml$" },
    { test = same_seed_same_report, root = "tests/scenarios", pattern = r"^seed-example\.toml$" },
}
