//! The reference pages of the manual (`docs/src/reference/`), generated from the tables the
//! program runs on so they cannot drift from it: the keys from the key tables, the commands
//! from the command grammar, the configuration from the config registry and the command line
//! from the clap definition. `isrlab docs` writes them; a test (`tests/docs.rs`) fails when a
//! committed page differs from what the code generates.

pub mod cli;
pub mod commands;
pub mod configuration;
pub mod keys;
pub mod markdown;

use std::io;
use std::path::{Path, PathBuf};

/// The command that regenerates the pages from a checkout, as the pages and the drift test
/// tell the reader.
pub const REGENERATE: &str = "cargo run -- docs";

/// Where the pages live in the repository, relative to its root.
pub const DIR: &str = "docs/src/reference";

/// The reference directory of the isrlab checkout at `root`: `None` when `root` holds no
/// `Cargo.toml` of the `isrlab` package, so that `isrlab docs` run elsewhere writes nothing.
pub fn checkout_dir(root: &Path) -> Option<PathBuf> {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).ok()?;
    let package: toml::Table = manifest.parse().ok()?;
    let name = package.get("package")?.get("name")?.as_str()?;
    (name == "isrlab").then(|| root.join(DIR))
}

/// One generated page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page {
    /// Its file name in the reference directory, e.g. `keys.md`.
    pub file: &'static str,
    /// Its whole text.
    pub text: String,
}

/// Every reference page, generated from the built-in tables, in the order the book lists them.
pub fn pages() -> Vec<Page> {
    vec![
        Page { file: keys::FILE, text: keys::page(&keys::KeyTables::BUILT_IN) },
        Page { file: commands::FILE, text: commands::built_in() },
        Page { file: configuration::FILE, text: configuration::built_in() },
        Page { file: cli::FILE, text: cli::built_in() },
    ]
}

/// What [`write`] did with one page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    /// The page's path.
    pub path: PathBuf,
    /// Whether its text changed (`false`: the file already held it and was left alone).
    pub changed: bool,
}

/// Writes every page into `dir` (created if missing), leaving a file untouched when it already
/// holds the page. Errors: the directory cannot be created or a file cannot be written, with
/// its path.
pub fn write(dir: &Path) -> io::Result<Vec<Written>> {
    let named = |path: &Path, e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
    std::fs::create_dir_all(dir).map_err(|e| named(dir, e))?;
    let mut written = Vec::new();
    for page in pages() {
        let path = dir.join(page.file);
        let changed = std::fs::read_to_string(&path).ok().as_deref() != Some(page.text.as_str());
        if changed {
            std::fs::write(&path, &page.text).map_err(|e| named(&path, e))?;
        }
        written.push(Written { path, changed });
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_written_once_and_then_left_alone() {
        let dir = std::env::temp_dir().join(format!("isrlab-docs-{}", std::process::id()));
        let first = write(&dir).unwrap();
        assert!(first.iter().all(|w| w.changed), "{first:?}");
        let second = write(&dir).unwrap();
        assert!(second.iter().all(|w| !w.changed), "{second:?}");
        for page in pages() {
            assert_eq!(std::fs::read_to_string(dir.join(page.file)).unwrap(), page.text);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_default_directory_is_the_checkouts_only() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        assert_eq!(checkout_dir(root), Some(root.join("docs/src/reference")));
        assert_eq!(checkout_dir(&root.join("src")), None);
    }

    #[test]
    fn a_directory_that_cannot_be_made_is_a_named_error() {
        let file = std::env::temp_dir().join(format!("isrlab-docs-file-{}", std::process::id()));
        std::fs::write(&file, "").unwrap();
        let err = write(&file.join("sub")).unwrap_err().to_string();
        assert!(err.contains(&file.display().to_string()), "{err}");
        std::fs::remove_file(&file).unwrap();
    }
}
