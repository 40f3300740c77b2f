//! The test inputs kept as files: every scenario-like `.toml` of a folder, in name order.

use std::path::PathBuf;

/// Every `.toml` file in `dir` (relative to the crate root), sorted by path. Panics with the
/// folder's name when it cannot be read: a test without its inputs must not pass.
pub fn toml_files(dir: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    files
}
