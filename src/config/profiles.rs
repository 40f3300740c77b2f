//! Semantics profiles: named values of [`Semantics`] for the Kafka releases a learner may want
//! to relive (rule book §0.2 toggles and §11 defaults), and the one registry of toggles they
//! set. A profile is chosen with `--profile`, `profile =` in a scenario's `[cluster]`; a toggle
//! is overridden like a property (`--set truncation=hw`, a `[cluster.config]` key), and a
//! version's default (`acks`, `unclean.leader.election.enable` …) by its Kafka property.
//!
//! Each profile is the release's defaults and rules; where isrlab does not model a rule yet,
//! [`Toggle::modelled`] says so and the run follows the newest rule instead.

use super::semantics::{IsrLag, Truncation};
use super::{ConfigError, Semantics};
use crate::kafka::Acks;

/// One named profile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Profile {
    /// Its name, `kafka-0.8` … `kafka-4.0`, and `kafka-<newest>`.
    pub name: String,
    /// What it stands for, in a few words.
    pub about: &'static str,
    /// Its rules and defaults.
    pub semantics: Semantics,
}

/// Kafka 0.8.2 with ZooKeeper: count-based ISR (`replica.lag.max.messages`), truncation to the
/// HW, unclean election on by default, `acks=1`, no retries (KafkaConfig at 0.8.2.0).
const KAFKA_0_8: Semantics =
    Semantics { kafka_version: "0.8.2", isr_lag: IsrLag::TimeAndMessages, ..KAFKA_0_10 };

/// Kafka 0.10.2: time-based ISR lag (KIP-16, 0.9.0) but still truncation to the HW (before
/// KIP-101) and unclean election on by default (before KIP-106).
const KAFKA_0_10: Semantics = Semantics {
    kafka_version: "0.10.2",
    truncation: Truncation::HighWatermark,
    default_unclean_leader_election: true,
    ..KAFKA_0_11
};

/// Kafka 0.11.0: leader epochs (KIP-101) without KIP-279's iteration, unclean off (KIP-106).
const KAFKA_0_11: Semantics = Semantics {
    kafka_version: "0.11.0",
    truncation: Truncation::Kip101,
    default_retries: 0,
    default_replica_lag_time_max_ms: 10_000,
    ..KAFKA_2_8
};

/// Kafka 2.8 with ZooKeeper: truncation on fetch (KAFKA-10554), `replica.lag.time.max.ms`
/// 30 s (KIP-537, 2.5), producer `acks=1` without idempotence (before KIP-679).
const KAFKA_2_8: Semantics = Semantics {
    kafka_version: "2.8",
    default_acks: Acks::One,
    idempotence_by_default: false,
    leader_epoch_bump_on_isr_shrink: true,
    ..KAFKA_3_6_ZK
};

/// Kafka 3.6 with ZooKeeper: the idempotent `acks=all` producer (KIP-679, 3.0), no strict min
/// ISR yet (KAFKA-15583, 3.7), `linger.ms=0` (before KIP-1030).
const KAFKA_3_6_ZK: Semantics = Semantics {
    kafka_version: "3.6",
    zookeeper_era: true,
    strict_min_isr: false,
    // The ZooKeeper controller applied `unclean.leader.election.enable` by itself (R6.5).
    kraft_unclean_election: true,
    ..KAFKA_3_9
};

/// Kafka 3.9 in KRaft mode: strict min ISR (3.7) and the KRaft controller's own unclean
/// elections (KAFKA-12670, 3.9), `linger.ms=0`.
const KAFKA_3_9: Semantics = Semantics { kafka_version: "3.9", default_linger_ms: 0, ..KAFKA_4_0 };

/// Kafka 4.0: KRaft only, `linger.ms=5` (KIP-1030), no re-registration within the old session
/// after a controlled shutdown (KAFKA-19047 came in 4.1).
const KAFKA_4_0: Semantics = Semantics {
    kafka_version: "4.0",
    reregister_after_controlled_shutdown: false,
    eligible_leader_replicas: false,
    ..Semantics::CURRENT
};

/// Every profile, oldest first; the last is the newest release, isrlab's default.
pub fn all() -> Vec<Profile> {
    let p = |name: &str, about, semantics| Profile { name: name.to_string(), about, semantics };
    let mut list = vec![
        p("kafka-0.8", "ZooKeeper; count-based ISR; HW truncation; unclean on; acks=1", KAFKA_0_8),
        p("kafka-0.10", "ZooKeeper; time-based ISR; HW truncation; unclean on; acks=1", KAFKA_0_10),
        p("kafka-0.11", "ZooKeeper; leader epochs (KIP-101); unclean off; acks=1", KAFKA_0_11),
        p("kafka-2.8", "ZooKeeper; truncation on fetch; 30 s lag; acks=1", KAFKA_2_8),
        p("kafka-3.6-zk", "ZooKeeper; idempotent acks=all producer; HW moves under min ISR", KAFKA_3_6_ZK),
        p("kafka-3.9", "KRaft; strict min ISR; the controller's own unclean elections", KAFKA_3_9),
        p("kafka-4.0", "KRaft only; linger.ms=5", KAFKA_4_0),
    ];
    let newest = Semantics::CURRENT;
    let name = format!("kafka-{}", newest.kafka_version);
    list.retain(|p| p.name != name);
    list.push(Profile { name, about: "the newest release: isrlab's default", semantics: newest });
    list
}

/// The newest profile, isrlab's default.
pub fn newest() -> Profile {
    all().pop().expect("the newest profile is always listed")
}

/// The profile named `name` (`newest` also names the newest). Errors: an unknown name, listing
/// the known ones.
pub fn find(name: &str) -> Result<Profile, ConfigError> {
    let list = all();
    if name == "newest" {
        return Ok(newest());
    }
    list.iter().find(|p| p.name == name).cloned().ok_or_else(|| {
        let names: Vec<&str> = list.iter().map(|p| p.name.as_str()).collect();
        ConfigError::Conflict(format!(
            "unknown profile `{name}`; the profiles are {} (see `isrlab profiles`)",
            names.join(", ")
        ))
    })
}

/// The profile `semantics` starts from: the one of its Kafka version (toggles overridden on top
/// of a profile keep its version).
pub fn of(semantics: &Semantics) -> Profile {
    all().into_iter().find(|p| p.semantics.kafka_version == semantics.kafka_version).unwrap_or_else(newest)
}

/// One version-dependent rule or default a profile sets: its name, its value in a profile, how
/// to override it, and the Kafka change behind its newest value.
pub struct Toggle {
    /// The name: a rule book §0.2 toggle (`truncation`) or a Kafka property whose default
    /// changed (`acks`).
    pub name: &'static str,
    /// The values it takes, newest first.
    pub values: &'static [&'static str],
    /// Its value in a profile.
    pub get: fn(&Semantics) -> &'static str,
    /// Sets it from one of [`Toggle::values`]; `None` for a Kafka property's default, which is
    /// overridden by setting the property itself.
    pub set: Option<fn(&mut Semantics, &str)>,
    /// The Kafka release where the newest value came in, and the KIP or JIRA.
    pub since: &'static str,
    /// The KIP or JIRA behind the change.
    pub change: &'static str,
    /// Whether isrlab runs the older values; when not, every profile runs the newest rule.
    pub modelled: bool,
}

fn on_off(b: bool) -> &'static str {
    if b { "on" } else { "off" }
}

/// Every toggle, in the rule book's order: the §0.2 rules first, then the §11 defaults.
pub static TOGGLES: &[Toggle] = &[
    Toggle {
        name: "controller_mode",
        values: &["kraft", "zk"],
        get: |s| if s.zookeeper_era { "zk" } else { "kraft" },
        set: Some(|s, v| s.zookeeper_era = v == "zk"),
        since: "4.0",
        change: "KIP-500, KIP-833",
        modelled: false,
    },
    Toggle {
        name: "isr_lag",
        values: &["time", "time+messages"],
        get: |s| match s.isr_lag {
            IsrLag::Time => "time",
            IsrLag::TimeAndMessages => "time+messages",
        },
        set: Some(|s, v| s.isr_lag = if v == "time" { IsrLag::Time } else { IsrLag::TimeAndMessages }),
        since: "0.9.0",
        change: "KIP-16, KAFKA-1546",
        modelled: true,
    },
    Toggle {
        name: "truncation",
        values: &["epoch_on_fetch", "offsets_for_leader_epoch", "kip101", "hw"],
        get: |s| match s.truncation {
            Truncation::EpochOnFetch => "epoch_on_fetch",
            Truncation::OffsetsForLeaderEpoch => "offsets_for_leader_epoch",
            Truncation::Kip101 => "kip101",
            Truncation::HighWatermark => "hw",
        },
        set: Some(|s, v| {
            s.truncation = match v {
                "epoch_on_fetch" => Truncation::EpochOnFetch,
                "offsets_for_leader_epoch" => Truncation::OffsetsForLeaderEpoch,
                "kip101" => Truncation::Kip101,
                _ => Truncation::HighWatermark,
            }
        }),
        since: "2.8.0",
        change: "KIP-101 (0.11), KIP-279 (2.0), KAFKA-10554 (2.8)",
        // `hw` is Kafka 0.10.2's rule (`ReplicaManager.makeFollowers` truncates to the HW,
        // `ReplicaFetcherThread.handleOffsetOutOfRange` to the leader's LEO); the three epoch
        // values run the fetch-time divergence check, which truncates where KIP-101's
        // OffsetsForLeaderEpoch would in every trace isrlab plays (KIP-279's residual
        // divergence after fast leader changes is not reproduced).
        modelled: true,
    },
    Toggle {
        name: "strict_min_isr_hw",
        values: &["on", "off"],
        get: |s| on_off(s.strict_min_isr),
        set: Some(|s, v| s.strict_min_isr = v == "on"),
        since: "3.7.0",
        change: "KAFKA-15583 (KIP-966)",
        modelled: true,
    },
    Toggle {
        name: "isr_shrink_bumps_leader_epoch",
        values: &["off", "on"],
        get: |s| on_off(s.leader_epoch_bump_on_isr_shrink),
        set: Some(|s, v| s.leader_epoch_bump_on_isr_shrink = v == "on"),
        since: "3.6.0",
        change: "KAFKA-15021",
        modelled: true,
    },
    Toggle {
        name: "unclean_in_kraft",
        values: &["honoured", "admin_only"],
        get: |s| if s.kraft_unclean_election { "honoured" } else { "admin_only" },
        set: Some(|s, v| s.kraft_unclean_election = v == "honoured"),
        since: "3.9.0",
        change: "KAFKA-12670",
        modelled: true,
    },
    Toggle {
        name: "elr",
        values: &["off", "on"],
        get: |s| on_off(s.eligible_leader_replicas),
        set: Some(|s, v| s.eligible_leader_replicas = v == "on"),
        since: "4.1.0",
        change: "KIP-966",
        modelled: false,
    },
    Toggle {
        name: "fast_reregistration",
        values: &["on", "off"],
        get: |s| on_off(s.reregister_after_controlled_shutdown),
        set: Some(|s, v| s.reregister_after_controlled_shutdown = v == "on"),
        since: "4.1.0",
        change: "KAFKA-19047",
        modelled: true,
    },
    Toggle {
        name: "unclean.leader.election.enable",
        values: &["false", "true"],
        get: |s| if s.default_unclean_leader_election { "true" } else { "false" },
        set: None,
        since: "0.11.0",
        change: "KIP-106, KAFKA-4623",
        modelled: true,
    },
    Toggle {
        name: "replica.lag.time.max.ms",
        values: &["30000", "10000"],
        get: |s| if s.default_replica_lag_time_max_ms == 30_000 { "30000" } else { "10000" },
        set: None,
        since: "2.5.0",
        change: "KIP-537",
        modelled: true,
    },
    Toggle {
        name: "acks",
        values: &["all", "1"],
        get: |s| if s.default_acks == Acks::All { "all" } else { "1" },
        set: None,
        since: "3.0.0",
        change: "KIP-679",
        modelled: true,
    },
    Toggle {
        name: "enable.idempotence",
        values: &["true", "false"],
        get: |s| if s.idempotence_by_default { "true" } else { "false" },
        set: None,
        since: "3.0.0",
        change: "KIP-679 (in effect from 3.0.1, KAFKA-13598)",
        modelled: true,
    },
    Toggle {
        name: "retries",
        values: &["2147483647", "0"],
        get: |s| if s.default_retries == 0 { "0" } else { "2147483647" },
        set: None,
        since: "2.1.0",
        change: "KIP-91",
        modelled: true,
    },
    Toggle {
        name: "linger.ms",
        values: &["5", "0"],
        get: |s| if s.default_linger_ms == 0 { "0" } else { "5" },
        set: None,
        since: "4.0.0",
        change: "KIP-1030",
        modelled: true,
    },
];

/// The toggle named `name`, if it is one that `--set` overrides (the §0.2 rules; the defaults
/// are Kafka properties of their own).
pub fn toggle(name: &str) -> Option<&'static Toggle> {
    TOGGLES.iter().find(|t| t.name == name && t.set.is_some())
}

/// Overrides toggle `name` in `semantics` with `value`. Errors: a value the toggle does not
/// take, listing those it does.
pub fn set_toggle(semantics: &mut Semantics, name: &str, value: &str) -> Result<(), ConfigError> {
    let Some(t) = toggle(name) else {
        return Err(ConfigError::Conflict(format!("`{name}` is not a semantics toggle")));
    };
    if !t.values.contains(&value) {
        return Err(ConfigError::Conflict(format!(
            "Invalid value {value} for the semantics toggle {name}: it is one of {}",
            t.values.join(", ")
        )));
    }
    (t.set.expect("toggle() returns settable toggles only"))(semantics, value);
    Ok(())
}

/// One row of the profiles table: a profile, a toggle whose value differs from the newest
/// release's, and the change behind it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// The profile's name.
    pub profile: String,
    /// The toggle's name.
    pub toggle: &'static str,
    /// Its value in the profile.
    pub value: &'static str,
    /// Its value in the newest release.
    pub newest: &'static str,
    /// The Kafka release where the newest value came in.
    pub since: &'static str,
    /// The KIP or JIRA behind it.
    pub change: &'static str,
    /// Whether isrlab runs the old value (else the newest rule stands in).
    pub modelled: bool,
}

/// What each profile changes against the newest release, oldest profile first.
pub fn rows() -> Vec<Row> {
    let newest = newest().semantics;
    let mut rows = Vec::new();
    for p in all() {
        for t in TOGGLES {
            let (value, now) = ((t.get)(&p.semantics), (t.get)(&newest));
            if value != now {
                rows.push(Row {
                    profile: p.name.clone(),
                    toggle: t.name,
                    value,
                    newest: now,
                    since: t.since,
                    change: t.change,
                    modelled: t.modelled,
                });
            }
        }
    }
    rows
}

/// The profiles table in Markdown, as the manual's profiles chapter holds it.
pub fn markdown_table() -> String {
    let mut out = String::from(
        "| Profile | Toggle | Value | Newest | Since | Change | Modelled |\n|---|---|---|---|---|---|---|\n",
    );
    for r in rows() {
        out.push_str(&format!(
            "| `{}` | `{}` | {} | {} | {} | {} | {} |\n",
            r.profile,
            r.toggle,
            r.value,
            r.newest,
            r.since,
            r.change,
            if r.modelled { "yes" } else { "not yet: the newest rule runs" }
        ));
    }
    out
}

/// The profiles table as `isrlab profiles` prints it: the profiles with what they stand for,
/// then a row per toggle that differs from the newest release.
pub fn text_table() -> String {
    let mut out = String::from("PROFILE       KAFKA    WHAT\n");
    for p in all() {
        out.push_str(&format!("{:<13} {:<8} {}\n", p.name, p.semantics.kafka_version, p.about));
    }
    out.push_str(&format!(
        "\n{:<13} {:<30} {:<15} {:<15} {:<6} {}\n",
        "PROFILE", "TOGGLE", "VALUE", "NEWEST", "SINCE", "CHANGE"
    ));
    for r in rows() {
        let star = if r.modelled { "" } else { " *" };
        out.push_str(&format!(
            "{:<13} {:<30} {:<15} {:<15} {:<6} {}{star}\n",
            r.profile, r.toggle, r.value, r.newest, r.since, r.change
        ));
    }
    out.push_str("\n* not modelled yet: the run follows the newest rule.\n");
    out.push_str("Choose one with --profile NAME or `profile = \"NAME\"` in a scenario's [cluster]; override a toggle with --set TOGGLE=VALUE, a default with its property (--set acks=all).\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_profile_is_the_default_and_changes_nothing() {
        assert_eq!(newest().semantics, Semantics::CURRENT);
        assert!(rows().iter().all(|r| r.profile != newest().name));
        assert_eq!(find("newest").unwrap(), newest());
    }

    #[test]
    fn defaults_follow_the_version() {
        let s = |n: &str| find(n).unwrap().semantics;
        assert!(
            s("kafka-0.10").default_unclean_leader_election
                && !s("kafka-0.11").default_unclean_leader_election
        );
        assert_eq!((s("kafka-2.8").default_acks, s("kafka-3.6-zk").default_acks), (Acks::One, Acks::All));
        assert_eq!((s("kafka-3.9").default_linger_ms, s("kafka-4.0").default_linger_ms), (0, 5));
        assert_eq!(s("kafka-0.11").default_replica_lag_time_max_ms, 10_000);
        assert_eq!(s("kafka-2.8").default_replica_lag_time_max_ms, 30_000);
        assert_eq!(s("kafka-0.8").isr_lag, IsrLag::TimeAndMessages);
        assert_eq!(s("kafka-0.10").isr_lag, IsrLag::Time);
        assert!(!s("kafka-3.6-zk").strict_min_isr && s("kafka-3.9").strict_min_isr);
    }

    #[test]
    fn a_toggle_takes_its_values_only() {
        let mut s = Semantics::CURRENT;
        set_toggle(&mut s, "truncation", "hw").unwrap();
        assert_eq!(s.truncation, Truncation::HighWatermark);
        let err = set_toggle(&mut s, "truncation", "never").unwrap_err().to_string();
        assert!(err.contains("epoch_on_fetch, offsets_for_leader_epoch, kip101, hw"), "{err}");
        assert!(toggle("acks").is_none(), "a default is set by its Kafka property");
        assert!(find("kafka-0.9").unwrap_err().to_string().contains("kafka-0.8, kafka-0.10"));
    }

    #[test]
    fn every_settable_toggle_reads_back_each_value() {
        for t in TOGGLES.iter().filter(|t| t.set.is_some()) {
            for v in t.values {
                let mut s = Semantics::CURRENT;
                set_toggle(&mut s, t.name, v).unwrap();
                assert_eq!((t.get)(&s), *v, "{}", t.name);
            }
        }
    }
}
