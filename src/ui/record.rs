//! The session's recording from the dashboard's side ([`crate::scenario::recording`]): `w`
//! and the palette's `save FILE` write it at any time, saying where in the status line;
//! with `--record FILE` it is rewritten on every new command and once more when the dashboard
//! closes. Writing a recording reads the cluster and changes nothing, so `save` is a palette
//! command, not a command of the cluster's grammar (it is not recorded itself).

use std::path::{Path, PathBuf};

use super::app::{Model, StatusKind};
use crate::cluster::snapshot::Snapshot;
use crate::sim::format_instant;

/// The palette command that writes the recording.
pub const USAGE: &str = "save FILE";

/// Reads a palette line: `None` when its verb is not `save`, else the file or why the line
/// does not name one.
pub fn parse(line: &str) -> Option<Result<PathBuf, String>> {
    let rest = line.trim_start().strip_prefix("save")?;
    if !rest.is_empty() && !rest.starts_with(char::is_whitespace) {
        return None;
    }
    match rest.trim() {
        "" => Some(Err(format!(
            "usage: {USAGE} (the session's recording, a scenario file, e.g. save crash.toml)"
        ))),
        file => Some(Ok(PathBuf::from(file))),
    }
}

/// Where `w` writes without `--record`: `isrlab-seed-SEED.toml` in the working directory.
pub fn default_path(seed: u64) -> PathBuf {
    PathBuf::from(format!("isrlab-seed-{seed}.toml"))
}

/// Writes the recording to `path` (else the `--record` file, else [`default_path`]), ending
/// at the snapshot's instant, and says in the status line where, or why not.
pub fn save(model: &mut Model, snap: &Snapshot, path: Option<PathBuf>) {
    let Some(recording) = &model.recording else {
        model.say(StatusKind::Error, "this session is not recorded");
        return;
    };
    let path = path.or_else(|| recording.autosave.clone()).unwrap_or_else(|| default_path(recording.seed()));
    let commands = recording.steps().len();
    match recording.save(&path, snap.now_us) {
        Ok(()) => model.say(StatusKind::Done, saved_text(&path, commands, snap)),
        Err(why) => model.say(StatusKind::Error, format!("cannot save the recording: {why}")),
    }
}

fn saved_text(path: &Path, commands: usize, snap: &Snapshot) -> String {
    let s = if commands == 1 { "" } else { "s" };
    format!(
        "recording saved to {} ({commands} command{s}, up to {}): isrlab replay {}",
        path.display(),
        format_instant(snap.now_us),
        path.display()
    )
}

/// `--record FILE`: rewrites the file when a command was recorded since the last write (or
/// the run restarted). Quiet when it works; a failure is said in the status line.
pub fn autosave(model: &mut Model, snap: &Snapshot) {
    let Some(recording) = &mut model.recording else { return };
    if recording.autosave.is_none() || !recording.take_changed() {
        return;
    }
    write_autosave(model, snap);
}

/// `--record FILE` when the dashboard closes: the file's last version, ending where the
/// session ended. Errors: why it could not be written, in words.
pub fn finish(model: &Model, snap: &Snapshot) -> Result<Option<PathBuf>, String> {
    let Some(recording) = &model.recording else { return Ok(None) };
    let Some(path) = &recording.autosave else { return Ok(None) };
    recording.save(path, snap.now_us).map(|()| Some(path.clone()))
}

fn write_autosave(model: &mut Model, snap: &Snapshot) {
    let Some(recording) = &model.recording else { return };
    let Some(path) = &recording.autosave else { return };
    if let Err(why) = recording.save(path, snap.now_us) {
        model.say(StatusKind::Error, format!("--record {}: {why}", path.display()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn save_takes_a_file() {
        assert_eq!(parse("save a b.toml"), Some(Ok(PathBuf::from("a b.toml"))));
        assert_eq!(parse("  save x.toml "), Some(Ok(PathBuf::from("x.toml"))));
        assert!(parse("save").unwrap().unwrap_err().starts_with("usage: save FILE"));
        assert_eq!(parse("saved x"), None);
        assert_eq!(parse("crash 1"), None);
    }
}
