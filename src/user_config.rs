//! The user's config file, `$XDG_CONFIG_HOME/isrlab/config.toml` (or `--config FILE`): the
//! dashboard's defaults and key overrides. Command-line flags win over it. A bad entry never
//! stops the dashboard: it is skipped and shown as a warning inside it; the other entries
//! still apply.
//!
//! ```toml
//! speed = 2            # like --speed
//! palette = "color-blind"   # like --palette (standard or color-blind)
//! ascii = true         # like --ascii
//! brokers = 5          # like --brokers, for the default cluster
//! topics = ["orders:12:3"]  # like --topic
//! set = ["acks=1"]     # like --set
//!
//! [keys]               # an action's new key: a character, ctrl-X or F1 to F12
//! crash = "X"
//! min-isr-up = "K"
//! ```

use std::path::{Path, PathBuf};

use crate::cli::{Cli, Setting, TopicArg, parse_setting, parse_speed, parse_topic};
use crate::cluster::handle::MAX_BROKERS;
use crate::ui::keymap::KeyOverrides;
use crate::ui::theme::Palette;

/// What the config file sets; `None` and empty lists leave the built-in default.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UserConfig {
    /// Initial sim speed (sim ms per wall ms), as `--speed`.
    pub speed: Option<f64>,
    /// Colour palette, as `--palette`.
    pub palette: Option<Palette>,
    /// ASCII-only drawing, as `--ascii`.
    pub ascii: Option<bool>,
    /// Brokers of the default cluster, as `--brokers`.
    pub brokers: Option<u16>,
    /// Topics of the default cluster, as `--topic`.
    pub topics: Vec<TopicArg>,
    /// Properties, as `--set`.
    pub sets: Vec<Setting>,
    /// The `[keys]` table.
    pub keys: KeyOverrides,
}

/// A loaded config file and what was wrong with it.
#[derive(Clone, Debug, Default)]
pub struct Loaded {
    /// The entries that were valid.
    pub config: UserConfig,
    /// One line per entry skipped, naming the file and the entry.
    pub warnings: Vec<String>,
}

impl Cli {
    /// Fills what the flags left unset from the user's config file; flags win (its `set`
    /// entries come first, so a `--set` of the same key overrides them). Its cluster entries
    /// (brokers, topics) apply only without a scenario, which defines its own cluster; for
    /// `isrlab lesson` neither they nor its `set` entries apply, as a lesson plays its own
    /// cluster and settings (its answers hold for them only).
    pub fn with_user_config(&mut self, cfg: &UserConfig) {
        self.speed = self.speed.or(cfg.speed);
        self.palette = self.palette.or(cfg.palette);
        self.ascii |= cfg.ascii.unwrap_or(false);
        // A lesson and a recording play their own cluster and settings.
        if matches!(self.mode, Some(crate::cli::Mode::Lesson { .. } | crate::cli::Mode::Replay { .. })) {
            return;
        }
        if self.scenario.is_none() {
            self.brokers = self.brokers.or(cfg.brokers);
            if self.topics.is_empty() {
                self.topics = cfg.topics.clone();
            }
        }
        let flags = std::mem::take(&mut self.sets);
        self.sets = cfg.sets.iter().cloned().chain(flags).collect();
    }
}

/// Where the config file is looked for: `$XDG_CONFIG_HOME/isrlab/config.toml` (on macOS and
/// Windows, the platform's config directory).
pub fn default_path() -> Option<PathBuf> {
    dirs::config_dir().map(|d| d.join("isrlab").join("config.toml"))
}

/// Reads the config file at `path`. A file that does not exist gives the defaults and no
/// warning; one that cannot be read or parsed gives the defaults and one warning.
pub fn load(path: &Path) -> Loaded {
    match std::fs::read_to_string(path) {
        Ok(text) => parse(&text, &path.display().to_string()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Loaded::default(),
        Err(e) => Loaded {
            warnings: vec![format!("{}: cannot read it: {e}", path.display())],
            ..Default::default()
        },
    }
}

/// Parses the text of a config file; `origin` names it in warnings.
pub fn parse(text: &str, origin: &str) -> Loaded {
    let table: toml::Table = match text.parse() {
        Ok(t) => t,
        Err(e) => {
            let why = e.message().to_string();
            return Loaded {
                warnings: vec![format!("{origin}: not TOML, ignored: {why}")],
                ..Default::default()
            };
        }
    };
    let mut out = Loaded::default();
    let mut warn = |entry: &str, why: String| out.warnings.push(format!("{origin}: {entry}: {why}, ignored"));
    let c = &mut out.config;
    for (key, value) in &table {
        match key.as_str() {
            "speed" => {
                c.speed = number(value)
                    .map_err(|w| warn(key, w))
                    .ok()
                    .and_then(|v| checked(key, parse_speed(&v), &mut warn))
            }
            "palette" => {
                c.palette = text_of(value).map_err(|w| warn(key, w)).ok().and_then(|v| palette(&v, &mut warn))
            }
            "ascii" => {
                c.ascii = value.as_bool().or_else(|| {
                    warn(key, "not true or false".into());
                    None
                })
            }
            "brokers" => c.brokers = brokers(value).map_err(|w| warn(key, w)).ok(),
            "topics" => c.topics = list(value, key, parse_topic, &mut warn),
            "set" => c.sets = list(value, key, parse_setting, &mut warn),
            "keys" => c.keys = keys(value, &mut warn),
            other => {
                warn(other, "no such setting (speed, palette, ascii, brokers, topics, set, [keys])".into())
            }
        }
    }
    out
}

fn checked<T>(key: &str, parsed: Result<T, String>, warn: &mut impl FnMut(&str, String)) -> Option<T> {
    parsed.map_err(|w| warn(key, w)).ok()
}

fn number(value: &toml::Value) -> Result<String, String> {
    match value {
        toml::Value::Integer(i) => Ok(i.to_string()),
        toml::Value::Float(f) => Ok(f.to_string()),
        toml::Value::String(s) => Ok(s.clone()),
        _ => Err("not a number".into()),
    }
}

fn text_of(value: &toml::Value) -> Result<String, String> {
    value.as_str().map(str::to_string).ok_or_else(|| "not a string".into())
}

fn palette(name: &str, warn: &mut impl FnMut(&str, String)) -> Option<Palette> {
    use clap::ValueEnum;
    let found = Palette::from_str(name, true);
    found.map_err(|_| warn("palette", format!("`{name}` is not standard or color-blind"))).ok()
}

fn brokers(value: &toml::Value) -> Result<u16, String> {
    let n = value.as_integer().ok_or("not a whole number")?;
    let max = MAX_BROKERS as i64;
    if (1..=max).contains(&n) { Ok(n as u16) } else { Err(format!("{n} is not 1 to {max}")) }
}

fn list<T>(
    value: &toml::Value,
    key: &str,
    parse_one: fn(&str) -> Result<T, String>,
    warn: &mut impl FnMut(&str, String),
) -> Vec<T> {
    let Some(items) = value.as_array() else {
        warn(key, "not a list of strings".into());
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in items {
        match item.as_str().map(parse_one) {
            Some(Ok(v)) => out.push(v),
            Some(Err(why)) => warn(&format!("{key} entry {item}"), why),
            None => warn(&format!("{key} entry {item}"), "not a string".into()),
        }
    }
    out
}

fn keys(value: &toml::Value, warn: &mut impl FnMut(&str, String)) -> KeyOverrides {
    let Some(table) = value.as_table() else {
        warn("keys", "not a table".into());
        return KeyOverrides::default();
    };
    let mut pairs = Vec::new();
    for (action, key) in table {
        match key.as_str() {
            Some(k) => pairs.push((action.as_str(), k)),
            None => warn(&format!("[keys] {action}"), "not a string".into()),
        }
    }
    let (overrides, problems) = KeyOverrides::parse(pairs);
    for p in problems {
        warn("keys", p);
    }
    overrides
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lesson plays its own cluster and settings: the config file's brokers, topics and
    /// `set` entries are left out for `isrlab lesson`, its speed is kept.
    #[test]
    fn a_lesson_takes_no_cluster_or_settings_from_the_config_file() {
        let cfg =
            parse("speed = 2\nbrokers = 5\ntopics = [\"o:12:3\"]\nset = [\"acks=1\"]\n", "c.toml").config;
        let mut lesson = <Cli as clap::Parser>::try_parse_from(["isrlab", "lesson", "6"]).unwrap();
        lesson.with_user_config(&cfg);
        assert_eq!(lesson.speed, Some(2.0));
        assert!(lesson.brokers.is_none() && lesson.topics.is_empty() && lesson.sets.is_empty());
        let mut plain = <Cli as clap::Parser>::try_parse_from(["isrlab"]).unwrap();
        plain.with_user_config(&cfg);
        assert_eq!((plain.brokers, plain.topics.len(), plain.sets.len()), (Some(5), 1, 1));
    }

    #[test]
    fn every_setting_is_read() {
        let text = "speed = 2\npalette = \"color-blind\"\nascii = true\nbrokers = 5\ntopics = [\"o:12:3\"]\nset = [\"acks=1\"]\n[keys]\ncrash = \"X\"\n";
        let loaded = parse(text, "c.toml");
        assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
        let c = loaded.config;
        assert_eq!(c.speed, Some(2.0));
        assert_eq!(c.palette, Some(Palette::ColorBlind));
        assert_eq!(c.ascii, Some(true));
        assert_eq!(c.brokers, Some(5));
        assert_eq!(c.topics.len(), 1);
        assert_eq!(c.sets.len(), 1);
        assert!(!c.keys.is_empty());
    }

    #[test]
    fn bad_entries_warn_and_the_rest_still_apply() {
        let text = "speed = 1000\npalette = \"pink\"\nbrokers = 0\ncolour = 1\ntopics = [\"o:0:3\", \"p:3:1\"]\n[keys]\nexplode = \"E\"\nrestart = \"R2\"\ncrash = \"X\"\n";
        let loaded = parse(text, "c.toml");
        let all = loaded.warnings.join("\n");
        for entry in ["speed", "palette", "brokers", "colour", "topics entry \"o:0:3\"", "explode", "R2"] {
            assert!(all.contains(entry), "no warning for {entry}:\n{all}");
        }
        assert!(loaded.warnings.iter().all(|w| w.starts_with("c.toml: ")));
        assert_eq!(loaded.config.topics.len(), 1);
        assert!(!loaded.config.keys.is_empty());
        assert_eq!(loaded.config.speed, None);
    }

    #[test]
    fn a_file_that_is_not_toml_is_one_warning() {
        let loaded = parse("speed = = 2", "c.toml");
        assert_eq!(loaded.warnings.len(), 1);
        assert!(loaded.warnings[0].contains("not TOML"));
        assert_eq!(loaded.config, UserConfig::default());
    }

    #[test]
    fn a_missing_file_is_no_warning() {
        let loaded = load(Path::new("/nonexistent/isrlab/config.toml"));
        assert!(loaded.warnings.is_empty());
    }
}
