//! Warnings before trouble: settings Kafka accepts that leave the ISR rule no margin, make
//! brokers get fenced by their own heartbeat timing, or lose acknowledged records on one
//! failure.
//! Each says why in one line, in plain words and Kafka's property names. One list serves the
//! dashboard (the settings line and the config view) and lessons
//! (`crate::cluster::snapshot::Snapshot::warnings`).
//!
//! Where Kafka checks a rule itself, it is cited: `KafkaConfig.validateValues` refuses
//! `replica.fetch.wait.max.ms` above `replica.lag.time.max.ms` ([`BrokerConfig::validate`]
//! refuses it too), so only the two being equal is left to note here. That check dates from
//! the ISR rule before Kafka 0.9 (a follower that sent no fetch for `replica.lag.time.max.ms`
//! left the ISR, and an idle follower's fetch is parked for `replica.fetch.wait.max.ms`);
//! since KAFKA-1546 a follower whose log end equals the leader's is caught up
//! (`Replica.isCaughtUp`), so equal values no longer make the ISR flap, and the simulation
//! agrees (`tests/sim_core.rs`): a notice, not a warning. Kafka also logs an error
//! (and starts) when `broker.heartbeat.interval.ms` is more than half of
//! `broker.session.timeout.ms`. The durability rules follow Kafka's own advice for
//! `min.insync.replicas` ("a typical scenario would be to create a topic with a replication
//! factor of 3, set min.insync.replicas to 2, and produce with acks of all") and the three
//! ways to lose acknowledged records that [`crate::sim::loss_cause`] names.

use std::fmt;

use super::BrokerConfig;
use crate::kafka::{Acks, BrokerId};

/// How loud a warning is.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum Level {
    /// A risk that needs something else to go wrong first (an ISR that has already shrunk
    /// to the leader alone), or Kafka's own default: said quietly.
    Notice,
    /// Trouble that one event brings (one failure, one late heartbeat, an idle follower).
    Warning,
}

impl Level {
    /// Its mark: `⚠` for a warning, `ℹ` for a notice.
    pub fn mark(self) -> &'static str {
        match self {
            Level::Notice => "ℹ",
            Level::Warning => "⚠",
        }
    }
}

/// One setting that invites trouble.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Warning {
    /// How loud.
    pub level: Level,
    /// The setting and where it applies, in Kafka's property names: `acks=1 (producer 0)`.
    pub setting: String,
    /// The trouble in a few words, for a line with little room: `a leader crash loses acked
    /// records`.
    pub brief: &'static str,
    /// Why, in one line of plain words.
    pub why: String,
}

impl fmt::Display for Warning {
    /// `⚠ acks=1 (producer 0): the leader acknowledges …`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: {}", self.level.mark(), self.setting, self.why)
    }
}

/// A topic's durability settings, as the warnings read them.
#[derive(Clone, Copy, Debug)]
pub struct TopicSettings<'a> {
    /// Its name.
    pub name: &'a str,
    /// Its replication factor.
    pub replication_factor: usize,
    /// Its effective `min.insync.replicas` (capped at the replica count from Kafka 3.7).
    pub min_insync_replicas: usize,
    /// Whether `min.insync.replicas` is Kafka's default (1) for it: neither the topic nor the
    /// brokers set it.
    pub min_insync_replicas_default: bool,
    /// Its effective `unclean.leader.election.enable`.
    pub unclean_leader_election_enable: bool,
}

/// A producer's settings, as the warnings read them.
#[derive(Clone, Copy, Debug)]
pub struct ProducerSettings<'a> {
    /// Its index.
    pub index: u32,
    /// The topic it writes to.
    pub topic: &'a str,
    /// Its `acks`.
    pub acks: Acks,
}

impl BrokerConfig {
    /// The broker settings that invite trouble (see [`warnings`]), for the cluster-wide
    /// config; `broker` names a broker whose own overrides these are.
    pub fn warnings(&self, broker: Option<BrokerId>) -> Vec<Warning> {
        let on = broker.map_or(String::new(), |b| format!(" (broker {b})"));
        let mut out = Vec::new();
        let (lag, wait) = (self.replica_lag_time_max_ms, self.replica_fetch_wait_max_ms);
        if lag <= wait {
            out.push(Warning {
                level: Level::Notice,
                setting: format!("replica.lag.time.max.ms={lag}{on}"),
                brief: "no margin over replica.fetch.wait.max.ms",
                why: format!(
                    "not above replica.fetch.wait.max.ms={wait}, the least Kafka accepts (a rule from before 0.9); \
                     a follower at the leader's log end stays in sync, so the ISR does not flap for this alone"
                ),
            });
        }
        let (beat, session) = (self.broker_heartbeat_interval_ms, self.broker_session_timeout_ms);
        if session <= beat {
            out.push(Warning {
                level: Level::Warning,
                setting: format!("broker.session.timeout.ms={session}{on}"),
                brief: "brokers get fenced between heartbeats",
                why: format!(
                    "not above broker.heartbeat.interval.ms={beat}: each broker's session runs out before its next \
                     heartbeat arrives, so the controller fences every broker between heartbeats"
                ),
            });
        } else if beat * 2 > session {
            out.push(Warning {
                level: Level::Warning,
                setting: format!("broker.heartbeat.interval.ms={beat}{on}"),
                brief: "one late heartbeat fences a broker",
                why: format!(
                    "more than half of broker.session.timeout.ms={session} (Kafka logs an error at start): one late \
                     or lost heartbeat gets the broker fenced"
                ),
            });
        }
        out
    }
}

/// Every setting of the cluster that invites trouble, loudest first, then in the order of
/// the rules: the brokers' (the cluster-wide config, then each broker's own overrides where
/// they warn of more), each topic's (internal topics, named `__…`, left out), each producer's.
pub fn warnings(
    broker: &BrokerConfig,
    topics: &[TopicSettings<'_>],
    producers: &[ProducerSettings<'_>],
) -> Vec<Warning> {
    let mut out = broker.warnings(None);
    for &b in broker.overrides_by_broker.keys() {
        let own = broker.for_broker(b);
        for w in own.warnings(Some(b)) {
            let cluster_wide = out.iter().any(|o| o.brief == w.brief && o.why == w.why);
            if !cluster_wide {
                out.push(w);
            }
        }
    }
    for t in topics.iter().filter(|t| !t.name.starts_with("__")) {
        let writers: Vec<&ProducerSettings<'_>> = producers.iter().filter(|p| p.topic == t.name).collect();
        if t.replication_factor == 1 {
            out.push(Warning {
                level: Level::Warning,
                setting: format!("replication factor 1 ({})", t.name),
                brief: "one copy only",
                why:
                    "one copy per record, on its leader: a power loss there (the tail not yet on disk) loses \
                     acknowledged records"
                        .to_string(),
            });
        } else if t.min_insync_replicas <= 1 && writers.iter().any(|p| p.acks == Acks::All) {
            let default = if t.min_insync_replicas_default { ", Kafka's default" } else { "" };
            out.push(Warning {
                level: Level::Notice,
                setting: format!("min.insync.replicas=1 ({}{default})", t.name),
                brief: "acks=all may rest on one copy",
                why: "once the ISR is the leader alone, acks=all is acknowledged with one copy, which a power loss \
                      or an unclean election can lose (min.insync.replicas=2 refuses such writes instead)"
                    .to_string(),
            });
        }
        if t.unclean_leader_election_enable {
            out.push(Warning {
                level: Level::Warning,
                setting: format!("unclean.leader.election.enable=true ({})", t.name),
                brief: "an unclean election loses acked records",
                why: "with no ISR member left to lead, a replica outside the ISR is elected and every record it \
                      lacks is lost, acknowledged ones included"
                    .to_string(),
            });
        }
    }
    for p in producers {
        let on = format!("producer {} → {}", p.index, p.topic);
        match p.acks {
            Acks::One => out.push(Warning {
                level: Level::Warning,
                setting: format!("acks=1 ({on})"),
                brief: "a leader crash loses acked records",
                why: "the leader acknowledges before any follower has the record; if it fails then, a follower \
                      without it is elected and the record is lost"
                    .to_string(),
            }),
            Acks::Zero => out.push(Warning {
                level: Level::Warning,
                setting: format!("acks=0 ({on})"),
                brief: "records are lost unseen",
                why: "nothing is acknowledged: a record the leader lacks when it fails, or one a broker refuses, is \
                      lost without the producer knowing"
                    .to_string(),
            }),
            Acks::All => {}
        }
    }
    // Loudest first; the order within a level stays.
    out.sort_by_key(|w| std::cmp::Reverse(w.level));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn topic(name: &str, rf: usize, min: usize, unclean: bool) -> TopicSettings<'_> {
        TopicSettings {
            name,
            replication_factor: rf,
            min_insync_replicas: min,
            min_insync_replicas_default: false,
            unclean_leader_election_enable: unclean,
        }
    }

    fn producer(acks: Acks) -> ProducerSettings<'static> {
        ProducerSettings { index: 0, topic: "t", acks }
    }

    fn settings(w: &[Warning]) -> Vec<String> {
        w.iter().map(|w| w.setting.clone()).collect()
    }

    /// RF 3, min.insync.replicas=2, acks=all, unclean off and Kafka's broker defaults: safe,
    /// nothing to say.
    #[test]
    fn a_safe_cluster_shows_none() {
        let b = BrokerConfig::default();
        assert_eq!(warnings(&b, &[topic("t", 3, 2, false)], &[producer(Acks::All)]), vec![]);
        assert_eq!(b.warnings(None), vec![], "Kafka's broker defaults are fine");
        // Internal topics are Kafka's business, not the user's settings.
        assert_eq!(warnings(&b, &[topic("__consumer_offsets", 1, 1, false)], &[]), vec![]);
    }

    #[test]
    fn a_lag_limit_not_above_the_fetch_wait_is_noted() {
        let mut b = BrokerConfig::default();
        b.set("replica.fetch.wait.max.ms", "1000").unwrap();
        b.set("replica.lag.time.max.ms", "1000").unwrap();
        let w = b.warnings(None);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].level, Level::Notice, "Kafka 0.9+ keeps a follower at the log end in sync");
        assert!(
            w[0].to_string().starts_with(
                "ℹ replica.lag.time.max.ms=1000: not above replica.fetch.wait.max.ms=1000, the least Kafka accepts"
            ),
            "{}",
            w[0]
        );
        b.set("replica.lag.time.max.ms", "1001").unwrap();
        assert_eq!(b.warnings(None), vec![]);
    }

    #[test]
    fn brokers_fence_themselves_when_the_session_is_not_above_the_heartbeat() {
        let mut b = BrokerConfig::default();
        b.set("broker.heartbeat.interval.ms", "9000").unwrap();
        let w = b.warnings(None);
        assert_eq!(settings(&w), ["broker.session.timeout.ms=9000"]);
        assert!(w[0].why.starts_with("not above broker.heartbeat.interval.ms=9000: "), "{}", w[0].why);
        assert!(w[0].why.contains("fences every broker between heartbeats"));
        // Above it but more than half: Kafka logs an error; one late heartbeat fences.
        b.set("broker.heartbeat.interval.ms", "5000").unwrap();
        let w = b.warnings(None);
        assert_eq!(settings(&w), ["broker.heartbeat.interval.ms=5000"]);
        assert!(w[0].why.contains("more than half of broker.session.timeout.ms=9000"), "{}", w[0].why);
        b.set("broker.heartbeat.interval.ms", "4500").unwrap();
        assert_eq!(b.warnings(None), vec![], "exactly half is Kafka's limit");
    }

    #[test]
    fn a_broker_of_its_own_warns_by_name() {
        let mut b = BrokerConfig::default();
        b.set_for_broker(2, "broker.heartbeat.interval.ms", "6000").unwrap();
        let w = warnings(&b, &[], &[]);
        assert_eq!(settings(&w), ["broker.heartbeat.interval.ms=6000 (broker 2)"]);
    }

    #[test]
    fn settings_that_lose_acknowledged_records_on_one_failure() {
        let b = BrokerConfig::default();
        let w = warnings(&b, &[topic("t", 3, 2, false)], &[producer(Acks::One)]);
        assert_eq!(settings(&w), ["acks=1 (producer 0 → t)"]);
        assert_eq!(w[0].level, Level::Warning);
        assert!(w[0].why.contains("before any follower has the record"));
        let w = warnings(&b, &[topic("t", 3, 2, true)], &[producer(Acks::All)]);
        assert_eq!(settings(&w), ["unclean.leader.election.enable=true (t)"]);
        assert!(w[0].why.contains("acknowledged ones included"));
        let w = warnings(&b, &[topic("t", 3, 1, false)], &[producer(Acks::All)]);
        assert_eq!(settings(&w), ["min.insync.replicas=1 (t)"]);
        assert_eq!(w[0].level, Level::Notice, "it needs the ISR to shrink first");
        assert!(
            w[0].to_string().starts_with("ℹ min.insync.replicas=1 (t): once the ISR is the leader alone")
        );
        let w = warnings(&b, &[topic("t", 1, 1, false)], &[producer(Acks::All)]);
        assert_eq!(settings(&w), ["replication factor 1 (t)"]);
        let w = warnings(&b, &[topic("t", 3, 2, false)], &[producer(Acks::Zero)]);
        assert_eq!(settings(&w), ["acks=0 (producer 0 → t)"]);
        assert!(w[0].why.starts_with("nothing is acknowledged"));
        // min.insync.replicas=1 matters only to acks=all writers: acks=1 warns on its own.
        let w = warnings(&b, &[topic("t", 3, 1, false)], &[producer(Acks::One)]);
        assert_eq!(settings(&w), ["acks=1 (producer 0 → t)"]);
    }

    /// Kafka's defaults (min.insync.replicas=1, acks=all) do lose acknowledged records once
    /// the ISR is the leader alone: a notice that names the default, after every warning.
    #[test]
    fn kafkas_default_min_insync_replicas_is_a_notice_after_the_warnings() {
        let b = BrokerConfig::default();
        let t = TopicSettings { min_insync_replicas_default: true, ..topic("t", 3, 1, true) };
        let w = warnings(&b, &[t], &[producer(Acks::All)]);
        assert_eq!(
            settings(&w),
            ["unclean.leader.election.enable=true (t)", "min.insync.replicas=1 (t, Kafka's default)"]
        );
        assert_eq!((w[0].level, w[1].level), (Level::Warning, Level::Notice));
    }
}
