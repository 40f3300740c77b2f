//! The crate's layers may only import downwards. The order, lowest first:
//!
//! ```text
//! kafka (shared vocabulary) < config < sim (sans-IO core) < cluster (runtime)
//!   < describe < scenario < ui < logging < cli
//! ```
//!
//! This test reads every source file and fails on a `crate::…` path that names a higher layer,
//! so the rule holds without anyone having to remember it.

use std::fs;
use std::path::{Path, PathBuf};

/// Layers, lowest first. A module may use its own layer and every layer before it.
const LAYERS: &[&str] =
    &["kafka", "config", "sim", "cluster", "describe", "scenario", "ui", "logging", "cli"];

fn rank(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| *l == module)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> =
        fs::read_dir(dir).expect("read src").map(|e| e.expect("entry").path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file belongs to: `src/sim/log.rs` → `sim`, `src/config.rs` → `config`.
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).expect("under src");
    let first = rel.components().next().expect("non-empty").as_os_str().to_string_lossy().to_string();
    first.trim_end_matches(".rs").to_string()
}

/// Every top-level module named after `crate::` in `text`, including the names inside a
/// grouped `use crate::{a::X, b::Y}`.
fn crate_paths(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(i) = rest.find("crate::") {
            let after = &rest[i + "crate::".len()..];
            if let Some(group) = after.strip_prefix('{') {
                let inner = group.split('}').next().unwrap_or("");
                for item in inner.split(',') {
                    let name: String =
                        item.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                    if !name.is_empty() {
                        found.push((n + 1, name));
                    }
                }
            } else {
                let name: String = after.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                found.push((n + 1, name));
            }
            rest = after;
        }
    }
    found
}

#[test]
fn no_layer_imports_a_higher_one() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut violations = Vec::new();
    for file in &files {
        let module = module_of(&src, file);
        let Some(own) = rank(&module) else { continue };
        let text = fs::read_to_string(file).expect("read file");
        for (line, name) in crate_paths(&text) {
            if let Some(theirs) = rank(&name)
                && theirs > own
            {
                violations.push(format!("{}:{line}: `{module}` uses `crate::{name}`", file.display()));
            }
        }
    }
    assert!(violations.is_empty(), "upward imports:\n{}", violations.join("\n"));
}

#[test]
fn every_module_has_a_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    for file in &files {
        let module = module_of(&src, file);
        if module == "lib" || module == "main" {
            continue;
        }
        assert!(rank(&module).is_some(), "{} belongs to no layer; add `{module}` to LAYERS", file.display());
    }
}

#[test]
fn the_checker_sees_grouped_and_plain_paths() {
    let text =
        "use crate::{sim::Ms, ui::Theme};\nlet x = crate::cluster::handle::Sim::new(); // crate::cli\n";
    let names: Vec<String> = crate_paths(text).into_iter().map(|(_, n)| n).collect();
    assert_eq!(names, ["sim", "ui", "cluster"]);
}
