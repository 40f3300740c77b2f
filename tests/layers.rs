//! The crate's layers may only import downwards. The order, lowest first:
//!
//! ```text
//! suggest (did-you-mean) < kafka (shared vocabulary) < config < sim (sans-IO core) < cluster (runtime)
//!   < describe < scenario < ui < compare (what-if runs) < export (files for slides) < logging < cli < user_config (the user's file fills the flags)
//!   < launch (everything before the terminal) < docs (the reference pages, from every table)
//! ```
//!
//! This test reads every source file and fails on a `crate::…` path that names a higher layer,
//! so the rule holds without anyone having to remember it.

use std::fs;
use std::path::{Path, PathBuf};

/// Layers, lowest first. A module may use its own layer and every layer before it.
const LAYERS: &[&str] = &[
    "suggest",
    "kafka",
    "config",
    "sim",
    "cluster",
    "describe",
    "wire",
    "scenario",
    "ui",
    "compare",
    "export",
    "logging",
    "cli",
    "check",
    "user_config",
    "launch",
    "docs",
];

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

/// Every top-level module named after `crate::` in `text`, with its line number, including the
/// names inside a grouped `use crate::{a::X, b::{Y, Z}}`, also when rustfmt spreads the group
/// over several lines. Line comments are ignored.
fn crate_paths(text: &str) -> Vec<(usize, String)> {
    let code: String =
        text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
    let line_of = |at: usize| code[..at].matches('\n').count() + 1;
    let ident = |s: &str| -> String { s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect() };
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(i) = code[from..].find("crate::") {
        let at = from + i + "crate::".len();
        from = at;
        if !code[at..].starts_with('{') {
            found.push((line_of(at), ident(&code[at..])));
            continue;
        }
        // Top-level items of the group: split at commas outside nested braces.
        let (mut depth, mut item_start) = (0usize, at + 1);
        for (k, c) in code[at..].char_indices() {
            let pos = at + k;
            match c {
                '{' => depth += 1,
                '}' | ',' if depth == 1 => {
                    let item = &code[item_start..pos];
                    let name = ident(item.trim_start());
                    if !name.is_empty() {
                        let lead = item.len() - item.trim_start().len();
                        found.push((line_of(item_start + lead), name));
                    }
                    item_start = pos + 1;
                    if c == '}' {
                        break;
                    }
                }
                '}' => depth -= 1,
                _ => {}
            }
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

#[test]
fn the_checker_sees_multi_line_and_nested_groups() {
    let text = "use crate::{\n    kafka::{BrokerId, Ms},\n    scenario::Runner,\n};\n";
    assert_eq!(crate_paths(text), [(2, "kafka".to_string()), (3, "scenario".to_string())]);
}
