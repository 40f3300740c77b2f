//! `isrlab compare FILE.toml --vary KEY=V1,V2`: what-if runs of one scenario. Every run starts
//! from the same seed and plays the same `[[at]]` steps (the fault timeline) to the
//! scenario's end; only the varied settings differ. One table then sets availability (records
//! failed, time without a leader or under min ISR, produce latency) against durability
//! (acknowledged records lost, records truncated on divergence, records consumers read and then
//! lost), a column per run.
//!
//! - [`Vary`] and [`VarySet`] are the command line's two ways to name the runs: `--vary` once
//!   or more (the cross product of the values), or `--vary-set` once per run (a whole set of
//!   settings each). [`runs`] turns them into [`Run`]s.
//! - [`measure`] plays one run headless and counts its [`Outcome`] from the snapshot, the
//!   audit ledger and the events ([`measure::Tracker`]).
//! - [`table`] prints the table.

pub mod measure;
pub mod table;

pub use measure::{Outcome, measure};
pub use table::table;

use crate::cluster::spec::ClusterSpec;
use crate::config::{self, ConfigError, Scope};
use crate::scenario::{Scenario, checks, lessons};
use std::path::Path;

/// Most runs one comparison makes (the cross product of the `--vary` values, or the
/// `--vary-set`s): each is a whole headless run, and a table wider than that is unreadable.
pub const MAX_RUNS: usize = 12;

/// One `--vary KEY=V1,V2,…`: a property from the config registry and the values to try, in
/// the order given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vary {
    /// Property name.
    pub key: String,
    /// Its values, each checked against the registry.
    pub values: Vec<String>,
}

/// One `KEY=VALUE` of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting {
    /// Property name.
    pub key: String,
    /// Value as text.
    pub value: String,
}

impl std::fmt::Display for Setting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}={}", self.key, self.value)
    }
}

/// One `--vary-set 'K1=V1 K2=V2'`: the settings of one whole run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarySet(pub Vec<Setting>);

/// One run of a comparison: its column heading and the settings it applies over the
/// scenario's own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    /// The column heading: the settings that tell this run from the others.
    pub label: String,
    /// The settings, applied in order.
    pub settings: Vec<Setting>,
}

/// Parses `KEY=V1,V2,…` (`--vary`); each value is checked against the config registry.
/// Values are split at commas, so a list-valued property (throttled replicas) takes
/// `--vary-set`. Errors: the problem in words (the registry's own for an unknown property or
/// a bad value).
pub fn parse_vary(text: &str) -> Result<Vary, String> {
    let Some((key, values)) = text.split_once('=').filter(|(k, v)| !k.trim().is_empty() && !v.is_empty())
    else {
        return Err(format!("`{text}` is not KEY=VALUE,VALUE…, e.g. acks=1,all"));
    };
    let key = key.trim();
    config::lookup(key).map_err(|e| e.to_string())?;
    let values: Vec<String> = values.split(',').map(|v| v.trim().to_string()).collect();
    if let Some(empty) = values.iter().position(String::is_empty) {
        return Err(format!("`{text}`: value {} is empty; write e.g. {key}=1,all", empty + 1));
    }
    for (i, v) in values.iter().enumerate() {
        checks::check_setting(key, v)?;
        if values[..i].contains(v) {
            return Err(format!("`{text}`: {key}={v} is given twice"));
        }
    }
    Ok(Vary { key: key.to_string(), values })
}

/// Parses `K1=V1 K2=V2 …` (`--vary-set`, settings separated by spaces); each is checked
/// against the config registry. Errors: the problem in words.
pub fn parse_vary_set(text: &str) -> Result<VarySet, String> {
    let mut settings: Vec<Setting> = Vec::new();
    for word in text.split_whitespace() {
        let Some((key, value)) = word.split_once('=').filter(|(k, v)| !k.is_empty() && !v.is_empty()) else {
            return Err(format!(
                "`{word}` in `{text}` is not KEY=VALUE; write the set as e.g. 'acks=1 min.insync.replicas=1'"
            ));
        };
        checks::check_setting(key, value)?;
        if settings.iter().any(|s| s.key == key) {
            return Err(format!("`{text}` sets {key} twice"));
        }
        settings.push(Setting { key: key.to_string(), value: value.to_string() });
    }
    if settings.is_empty() {
        return Err("a --vary-set is empty; write e.g. 'acks=1 min.insync.replicas=1'".into());
    }
    Ok(VarySet(settings))
}

/// The runs that `--vary` (the cross product of their values, the first `--vary` varying
/// slowest) or `--vary-set` (one run each) name. Errors: both kinds given, none, fewer than
/// two runs, more than [`MAX_RUNS`], the same property in two `--vary`, or two runs alike.
pub fn runs(vary: &[Vary], sets: &[VarySet]) -> Result<Vec<Run>, String> {
    let runs: Vec<Run> = match (vary.is_empty(), sets.is_empty()) {
        (false, false) => {
            return Err("give either --vary (the values of a property) or --vary-set (whole sets of settings), not both".into());
        }
        (true, true) => {
            return Err(
                "compare needs the runs to compare: --vary KEY=V1,V2 (e.g. --vary acks=1,all) or --vary-set 'K=V …' once per run".into(),
            );
        }
        (false, true) => {
            if let Some((i, v)) =
                vary.iter().enumerate().find(|(i, v)| vary[..*i].iter().any(|w| w.key == v.key))
            {
                return Err(format!(
                    "--vary {} is given twice (number {}); list all its values in one: --vary {}=V1,V2",
                    v.key,
                    i + 1,
                    v.key
                ));
            }
            let count = vary.iter().map(|v| v.values.len()).product::<usize>();
            if count > MAX_RUNS {
                return Err(too_many(count));
            }
            let mut runs: Vec<Vec<Setting>> = vec![Vec::new()];
            for v in vary {
                runs = runs
                    .into_iter()
                    .flat_map(|run| {
                        v.values.iter().map(move |value| {
                            let mut run = run.clone();
                            run.push(Setting { key: v.key.clone(), value: value.clone() });
                            run
                        })
                    })
                    .collect();
            }
            // A property with one value is the same in every run: not part of the headings.
            let varied = |s: &Setting| vary.iter().any(|v| v.key == s.key && v.values.len() > 1);
            runs.into_iter()
                .map(|settings| {
                    let shown: Vec<String> =
                        settings.iter().filter(|s| varied(s)).map(Setting::to_string).collect();
                    Run { label: shown.join(" "), settings }
                })
                .collect()
        }
        (true, false) => {
            if sets.len() > MAX_RUNS {
                return Err(too_many(sets.len()));
            }
            sets.iter()
                .map(|VarySet(settings)| Run {
                    label: settings.iter().map(Setting::to_string).collect::<Vec<_>>().join(" "),
                    settings: settings.clone(),
                })
                .collect()
        }
    };
    if runs.len() < 2 {
        return Err(
            "compare needs at least two runs: give two values (--vary acks=1,all) or two --vary-set".into()
        );
    }
    if let Some((i, r)) =
        runs.iter().enumerate().find(|(i, r)| runs[..*i].iter().any(|o| o.settings == r.settings))
    {
        return Err(format!("run {} ({}) is given twice", i + 1, r.label));
    }
    Ok(runs)
}

fn too_many(count: usize) -> String {
    format!(
        "that is {count} runs; compare makes at most {MAX_RUNS} (vary fewer values, or one property at a time)"
    )
}

/// Applies a run's `setting` to `spec` so that it holds for the whole cluster: a producer
/// property on every producer, a broker property cluster-wide, and a topic property also on
/// every topic (a topic's own override would otherwise win over the cluster-wide default, and
/// the run would not differ). Errors: the registry's.
pub fn apply(spec: &mut ClusterSpec, setting: &Setting) -> Result<(), ConfigError> {
    let Setting { key, value } = setting;
    checks::apply_setting(spec, key, value)?;
    if matches!(config::lookup(key)?.scope, Scope::BrokerAndTopic | Scope::Topic) {
        spec.topics.iter_mut().try_for_each(|t| t.config.set(key, value))?;
    }
    Ok(())
}

/// Why `file`, which does not exist, is no scenario to compare: it names a built-in lesson.
/// `None` for anything else (loading it then says what is wrong).
pub fn built_in_lesson(file: &Path) -> Option<String> {
    if file.exists() {
        return None;
    }
    let lesson = lessons::find(&file.to_string_lossy()).ok()?;
    Some(format!(
        "`{}` is a built-in lesson, not a scenario file: compare runs scenario files ({} is played by `isrlab lesson {}`)",
        file.display(),
        lesson.path(),
        lesson.slug
    ))
}

/// `isrlab compare FILE.toml …`: makes every run of `scenario` (loaded from `file`, with
/// `--seed` and `--set` applied as `isrlab run` applies them) and returns the table. Errors:
/// a lesson (its questions hold for its own settings only), a setting that does not apply, a
/// cluster that cannot start.
pub fn compare(scenario: &Scenario, file: &Path, runs: &[Run]) -> Result<String, String> {
    if !scenario.questions.is_empty() {
        return Err(format!(
            "{} is a lesson: its [[ask]] questions and answers hold for its own settings only, so compare does not vary it; copy its [cluster], [[topic]], [[producer]] and [[at]] steps into a scenario file and compare that",
            file.display()
        ));
    }
    let outcomes = runs
        .iter()
        .map(|run| measure(scenario, run))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    Ok(table(scenario, runs, &outcomes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vary(text: &str) -> Vary {
        parse_vary(text).unwrap()
    }

    #[test]
    fn vary_lists_checked_values() {
        assert_eq!(vary("acks=1,all"), Vary { key: "acks".into(), values: vec!["1".into(), "all".into()] });
        let unknown = parse_vary("ack=1,all").unwrap_err();
        assert!(unknown.contains("did you mean `acks`"), "{unknown}");
        assert!(parse_vary("acks=1,2").unwrap_err().contains("0, 1, all or -1"));
        assert!(parse_vary("acks").unwrap_err().contains("not KEY=VALUE"));
        assert!(parse_vary("acks=1,,all").unwrap_err().contains("value 2 is empty"));
        assert!(parse_vary("acks=1,1").unwrap_err().contains("given twice"));
    }

    #[test]
    fn vary_sets_are_whole_runs() {
        let set = parse_vary_set("acks=1  min.insync.replicas=1").unwrap();
        assert_eq!(set.0.len(), 2);
        assert!(parse_vary_set("acks=1 acks=all").unwrap_err().contains("twice"));
        assert!(parse_vary_set("  ").unwrap_err().contains("empty"));
        assert!(parse_vary_set("acks=1 minisr").unwrap_err().contains("not KEY=VALUE"));
    }

    #[test]
    fn varies_make_the_cross_product_and_label_what_differs() {
        let runs = runs(&[vary("acks=1,all"), vary("min.insync.replicas=1,2")], &[]).unwrap();
        let labels: Vec<&str> = runs.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "acks=1 min.insync.replicas=1",
                "acks=1 min.insync.replicas=2",
                "acks=all min.insync.replicas=1",
                "acks=all min.insync.replicas=2"
            ]
        );
        let fixed = super::runs(&[vary("acks=1,all"), vary("linger.ms=5")], &[]).unwrap();
        assert_eq!(fixed[1].label, "acks=all");
        assert_eq!(fixed[1].settings.len(), 2);
    }

    #[test]
    fn bad_combinations_are_refused() {
        let set = parse_vary_set("acks=1").unwrap();
        assert!(runs(&[vary("acks=1,all")], std::slice::from_ref(&set)).unwrap_err().contains("not both"));
        assert!(runs(&[], &[]).unwrap_err().contains("needs the runs"));
        assert!(runs(&[vary("acks=1")], &[]).unwrap_err().contains("at least two"));
        assert!(runs(&[vary("acks=1,all"), vary("acks=0")], &[]).unwrap_err().contains("given twice"));
        assert!(runs(&[], &[set.clone(), set]).unwrap_err().contains("given twice"));
        let many = vary("linger.ms=0,1,2,3,4,5,6");
        assert!(runs(&[many, vary("acks=1,all")], &[]).unwrap_err().contains("at most 12"));
    }

    #[test]
    fn a_topic_property_overrides_the_topics_own_value() {
        let mut spec = ClusterSpec::default_run(1);
        spec.topics[0].config.set("min.insync.replicas", "1").unwrap();
        apply(&mut spec, &Setting { key: "min.insync.replicas".into(), value: "2".into() }).unwrap();
        assert_eq!(spec.broker_config.min_insync_replicas, 2);
        assert_eq!(spec.topics[0].config.min_insync_replicas, Some(2));
        apply(&mut spec, &Setting { key: "acks".into(), value: "1".into() }).unwrap();
        assert_eq!(spec.producers[0].config.acks, crate::sim::Acks::One);
    }
}
