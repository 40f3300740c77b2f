//! Developer logging. The runtime (`cluster`) and the core (`sim`) emit `tracing` events and
//! spans; this module decides where they go. `ISRLAB_LOG` holds a filter in `RUST_LOG` syntax
//! (`debug`, `isrlab::sim=trace,info`, ...) and `--log FILE` names the file. Without either,
//! no subscriber is installed and every disabled callsite costs one load of the global max
//! level: nothing is formatted.
//!
//! Logs never go to the terminal (the dashboard owns it). There is no wall clock in the
//! simulation, so lines carry no timestamp; events carry the sim time in ms as the field `t`
//! (their own, or their `node` span's).

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use tracing_subscriber::EnvFilter;

/// The environment variable holding the filter.
pub const ENV: &str = "ISRLAB_LOG";

/// The filter when `--log FILE` is given without `ISRLAB_LOG`: elections, ISR changes,
/// crashes and restarts (info), fencing and unclean elections (warn), impossible states (error).
pub const DEFAULT_FILTER: &str = "info";

/// Why logging could not start.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// `ISRLAB_LOG` is not a valid filter.
    #[error("{ENV}=`{filter}` is not a valid filter ({reason}); write e.g. debug or isrlab::sim=trace,info")]
    Filter {
        /// The text given.
        filter: String,
        /// The parser's reason.
        reason: String,
    },
    /// `ISRLAB_LOG` is set, no `--log` is given and there is no state directory (no `$HOME`).
    #[error("{ENV} is set but there is no state directory for the log file; give --log FILE")]
    NoStateDir,
    /// The log file cannot be created.
    #[error("cannot create the log file {path}: {reason}")]
    File {
        /// The file.
        path: String,
        /// The operating system's reason.
        reason: String,
    },
}

/// The default log file: `$XDG_STATE_HOME/isrlab/isrlab.log` (`~/.local/state/isrlab/isrlab.log`;
/// the local data directory on systems without a state directory).
pub fn default_log_file() -> Option<PathBuf> {
    dirs::state_dir().or_else(dirs::data_local_dir).map(|d| d.join("isrlab").join("isrlab.log"))
}

/// Where the log goes: `flag` (`--log FILE`) if given, else the default file when a filter is
/// set, else nowhere. Errors: a filter is set but there is no state directory.
pub fn log_file(flag: Option<&Path>, filter: Option<&str>) -> Result<Option<PathBuf>, LogError> {
    match (flag, filter) {
        (Some(path), _) => Ok(Some(path.to_path_buf())),
        (None, Some(_)) => default_log_file().map(Some).ok_or(LogError::NoStateDir),
        (None, None) => Ok(None),
    }
}

/// Parses a filter in `RUST_LOG` syntax. Errors: [`LogError::Filter`].
pub fn parse_filter(text: &str) -> Result<EnvFilter, LogError> {
    EnvFilter::builder()
        .parse(text)
        .map_err(|e| LogError::Filter { filter: text.to_string(), reason: e.to_string() })
}

/// Installs the file subscriber when `--log FILE` (`flag`) or `ISRLAB_LOG` asks for one, and
/// returns the file it writes (truncated first). Errors: a bad filter or an unwritable file;
/// nothing is installed then.
pub fn init(flag: Option<&Path>) -> Result<Option<PathBuf>, LogError> {
    let env = std::env::var(ENV).ok().filter(|s| !s.trim().is_empty());
    let filter = parse_filter(env.as_deref().unwrap_or(DEFAULT_FILTER))?;
    let Some(path) = log_file(flag, env.as_deref())? else { return Ok(None) };
    let file_error =
        |e: std::io::Error| LogError::File { path: path.display().to_string(), reason: e.to_string() };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(file_error)?;
    }
    let file = File::create(&path).map_err(file_error)?;
    // Fails only if a subscriber is already installed (tests); the first one stays.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(Mutex::new(file))
        .with_ansi(false)
        .without_time()
        .try_init();
    Ok(Some(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_wins_and_a_filter_alone_uses_the_state_dir() {
        let flag = Path::new("/tmp/x.log");
        assert_eq!(log_file(Some(flag), None).unwrap(), Some(flag.to_path_buf()));
        assert_eq!(log_file(Some(flag), Some("debug")).unwrap(), Some(flag.to_path_buf()));
        assert_eq!(log_file(None, None).unwrap(), None);
        if let Some(default) = default_log_file() {
            assert!(default.ends_with("isrlab/isrlab.log"), "{}", default.display());
            assert_eq!(log_file(None, Some("debug")).unwrap(), Some(default));
        }
    }

    #[test]
    fn filters_use_rust_log_syntax() {
        assert!(parse_filter("debug").is_ok());
        assert!(parse_filter("isrlab::sim=trace,info").is_ok());
        let e = parse_filter("isrlab=loud").unwrap_err().to_string();
        assert!(e.starts_with("ISRLAB_LOG=`isrlab=loud` is not a valid filter"), "{e}");
    }
}
