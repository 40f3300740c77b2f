//! Runs every scenario in `tests/scenarios/` headless and requires every expectation to hold
//! (exit code 0). These need the simulation runtime.

use isrlab::scenario::runner::{self, EXIT_PASSED};
use std::path::{Path, PathBuf};

fn run(path: &Path) -> (u8, String) {
    let scenario = isrlab::scenario::load(path).unwrap_or_else(|e| panic!("{e}"));
    let mut out = Vec::new();
    let code = match runner::run(&scenario, &mut out) {
        Ok(summary) => summary.exit_code(),
        Err(e) => panic!("{}: {e}", path.display()),
    };
    (code, String::from_utf8_lossy(&out).into_owned())
}

#[test]
fn every_scenario_holds() {
    let mut files: Vec<PathBuf> = std::fs::read_dir("tests/scenarios")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    let failures: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let (code, report) = run(path);
            (code != EXIT_PASSED).then(|| format!("== {} (exit {code})\n{report}", path.display()))
        })
        .collect();
    assert!(failures.is_empty(), "{} scenario(s) failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn the_same_seed_gives_the_same_report() {
    let path = Path::new("tests/scenarios/seed-example.toml");
    assert_eq!(run(path), run(path));
}
