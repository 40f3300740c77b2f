//! `elect-preferred [T | T-P]` and `elect-unclean T | T-P`: leader elections an operator asks
//! for, as `kafka-leader-election.sh --election-type preferred|unclean` does through the
//! controller's `ElectLeaders` (`ReplicationControlManager.electLeaders`), at once. An unclean
//! election of a whole topic elects its leaderless partitions; the others answer
//! `ELECTION_NOT_NEEDED` (`electLeader` elects unclean only where there is no leader).
//!
//! As `LeaderElectionCommand` reports them: the partitions elected, those that needed no
//! election ("Valid replica already elected"), and the errors. `ELECTION_NOT_NEEDED` is no
//! failure: the tool counts those partitions as `noop`, prints their line and succeeds, so
//! the answer is a notice. When nothing was elected and some partition failed, the command is
//! refused with the first error.

use super::catalog::known_partition;
use super::{Applied, Catalog, Live, ParseError, Unit, Words, known_topic};
use crate::cluster::world::World;
use crate::kafka::errors::ErrorCode;
use crate::sim::controller::{ElectionResults, ElectionType};
use crate::sim::error::SimError;
use crate::sim::protocol::NodeId;
use crate::sim::{Outbox, TopicPartition};
use std::fmt;
use std::rc::Rc;

/// Which partitions an election names.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Partitions {
    /// Every partition (`--all-topic-partitions`).
    All,
    /// Every partition of a topic (`--topic T`, or a word that can only be a topic).
    Topic(String),
    /// One partition: topic and partition number (`--topic T --partition P`).
    One(String, u32),
    /// A word `NAME-N` that may be partition N of topic NAME or the topic `NAME-N`; which it
    /// is depends on the cluster's topics ([`resolve`]).
    Either(String, u32),
}

/// `elect-preferred [T | T-P]` or `elect-unclean T | T-P`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Elect {
    /// Preferred or unclean.
    pub election: ElectionType,
    /// The partitions it names.
    pub partitions: Partitions,
}

/// The word `w` as a topic, or as a topic or a partition when it ends in `-` and digits.
fn partitions_of(w: &str) -> Partitions {
    match super::words::split_partition(w) {
        Some((topic, p)) => Partitions::Either(topic, p),
        None => Partitions::Topic(w.to_string()),
    }
}

/// `partitions` with a `NAME-N` word settled against `cluster`'s topics: partition N of
/// topic NAME when only NAME exists, the topic `NAME-N` when only it exists (Kafka allows
/// topic names such as `logs-2024`, `Topic.validate`), and partition N of NAME when neither
/// does (the check then names the unknown topic). Errors: both exist, with the two forms
/// that say which is meant.
pub fn resolve(cluster: &dyn Catalog, partitions: &Partitions) -> Result<Partitions, SimError> {
    let Partitions::Either(topic, p) = partitions else { return Ok(partitions.clone()) };
    let whole = format!("{topic}-{p}");
    match (cluster.partition_count(topic).is_some(), cluster.partition_count(&whole).is_some()) {
        (true, true) => Err(SimError::InvalidState(format!(
            "`{whole}` names both the topic {whole} and partition {p} of topic {topic}; write \
             `--topic {whole}` for the topic or `--topic {topic} --partition {p}` for the partition"
        ))),
        (false, true) => Ok(Partitions::Topic(whole)),
        _ => Ok(Partitions::One(topic.clone(), *p)),
    }
}

/// `--topic T [--partition P]`, as `kafka-leader-election.sh` spells it, after `--topic` was
/// read; `verb` is the command, for the usage.
fn explicit(verb: &str, words: &mut Words<'_>) -> Result<Partitions, ParseError> {
    let topic = words.word("topic after --topic")?.to_string();
    match words.next() {
        None => Ok(Partitions::Topic(topic)),
        Some("--partition") => Ok(Partitions::One(topic, words.number("partition number")?)),
        Some(w) => Err(super::words::parse_error(format!(
            "unexpected `{w}`; usage: {verb} --topic T [--partition P]"
        ))),
    }
}

/// Kafka's text for the error of a partition's election (`Errors.java` messages).
fn error_text(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::PreferredLeaderNotAvailable => "The preferred leader was not available.",
        ErrorCode::EligibleLeadersNotAvailable => "Eligible topic partition leaders are not available.",
        ErrorCode::ElectionNotNeeded => "Leader election not needed for topic partition.",
        _ => "This server does not host this topic-partition.",
    }
}

fn join(tps: &[TopicPartition]) -> String {
    tps.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
}

/// The answer to `results`, in `LeaderElectionCommand`'s words: the note when something was
/// elected or nothing needed an election (`ELECTION_NOT_NEEDED` named with it), else the
/// refusal.
fn answer(election: ElectionType, results: &ElectionResults) -> Result<Option<String>, SimError> {
    let kind = match election {
        ElectionType::Preferred => "PREFERRED",
        ElectionType::Unclean => "UNCLEAN",
    };
    let mut lines = Vec::new();
    if !results.elected.is_empty() {
        lines.push(format!(
            "Successfully completed leader election ({kind}) for partitions {}",
            join(&results.elected)
        ));
    }
    if !results.not_needed.is_empty() {
        lines.push(format!("Valid replica already elected for partitions {}", join(&results.not_needed)));
    }
    for (tp, code) in &results.failed {
        lines.push(format!(
            "Error completing leader election ({kind}) for partition: {tp}: {code}: {}",
            error_text(*code)
        ));
    }
    if !results.elected.is_empty() {
        return Ok(Some(lines.join("; ")));
    }
    match results.failed.first() {
        Some(&(_, code)) => Err(SimError::Api(code, lines.join("; "))),
        None => Ok(Some(format!("{}: {}", ErrorCode::ElectionNotNeeded, lines.join("; ")))),
    }
}

impl Unit for Elect {
    const VERBS: &'static [&'static str] = &["elect-preferred", "elect-unclean"];
    const USAGE: &'static [&'static str] = &[
        "elect-preferred [T | T-P | --topic T [--partition P]]",
        "elect-unclean T | T-P | --topic T [--partition P]",
    ];

    /// Errors: `elect-unclean` without a topic or partition (`kafka-leader-election.sh` too
    /// wants one named, and an unclean election of everything is rarely meant).
    const ABOUT: &'static str = "A leader election an operator asks for, at once. `elect-preferred` moves leadership back to each partition's preferred replica (the first in its replica list) where that replica is alive and in the ISR: for every partition, one topic, or one partition. `elect-unclean` elects a leader for leaderless partitions from any live replica, in the ISR or not, whatever `unclean.leader.election.enable` says, so acknowledged records can be lost. Partitions that need no election answer `ELECTION_NOT_NEEDED`, which is no failure. `--topic T --partition P` names a topic called like a partition (`logs-2024`) without doubt.";
    const KAFKA: Option<&'static str> = Some(
        "`kafka-leader-election.sh --election-type preferred|unclean`, through the controller's `ElectLeaders`",
    );
    const EXAMPLES: &'static [&'static str] = &[
        "elect-preferred",
        "elect-preferred test_repli-0",
        "elect-unclean test_repli",
        "elect-unclean --topic logs --partition 2024",
    ];

    fn parse(verb: &str, words: &mut Words<'_>) -> Result<Self, ParseError> {
        let election = if verb == "elect-unclean" { ElectionType::Unclean } else { ElectionType::Preferred };
        words.usage(if election == ElectionType::Unclean { Self::USAGE[1] } else { Self::USAGE[0] });
        let partitions = match words.next() {
            None if election == ElectionType::Unclean => {
                return Err(super::words::parse_error(format!(
                    "elect-unclean needs a topic or a partition; usage: {}",
                    Self::USAGE[1]
                )));
            }
            None => Partitions::All,
            Some("--topic") => explicit(verb, words)?,
            Some(w) => partitions_of(w),
        };
        Ok(Elect { election, partitions })
    }

    fn validate(&self, cluster: &dyn Catalog) -> Result<(), SimError> {
        match resolve(cluster, &self.partitions)? {
            Partitions::Topic(t) => known_topic(cluster, &t).map(|_| ()),
            Partitions::One(t, p) | Partitions::Either(t, p) => known_partition(cluster, &t, p),
            Partitions::All => Ok(()),
        }
    }

    /// Errors: nothing could be elected (see the module docs); nothing changes then.
    fn apply(&self, world: &Rc<World>, out: &mut Outbox) -> Result<Applied, SimError> {
        let partitions = resolve(&Live(world), &self.partitions)?;
        let controller = world.active_controller()?;
        let mut controller = controller.borrow_mut();
        let named: Option<Vec<TopicPartition>> = match &partitions {
            Partitions::All => None,
            Partitions::Topic(t) => {
                let count = controller.topic(t).map_or(0, |t| t.partition_count());
                Some((0..count).map(|p| TopicPartition::new(t.as_str(), p)).collect())
            }
            Partitions::One(t, p) | Partitions::Either(t, p) => {
                Some(vec![TopicPartition::new(t.as_str(), *p)])
            }
        };
        let results = controller.elect_leaders(world.now(), self.election, named.as_deref(), out);
        let note = answer(self.election, &results)?;
        Ok(Applied { origin: NodeId::ActiveController, note })
    }
}

impl fmt::Display for Elect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verb = match self.election {
            ElectionType::Preferred => "elect-preferred",
            ElectionType::Unclean => "elect-unclean",
        };
        match &self.partitions {
            Partitions::All => f.write_str(verb),
            Partitions::Topic(t) if super::words::split_partition(t).is_some() => {
                write!(f, "{verb} --topic {t}")
            }
            Partitions::Topic(t) => write!(f, "{verb} {t}"),
            Partitions::One(t, p) => write!(f, "{verb} --topic {t} --partition {p}"),
            Partitions::Either(t, p) => write!(f, "{verb} {t}-{p}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_ending_in_a_number_names_a_partition() {
        assert_eq!(partitions_of("orders-2"), Partitions::Either("orders".into(), 2));
        assert_eq!(partitions_of("my-topic-10"), Partitions::Either("my-topic".into(), 10));
        assert_eq!(partitions_of("my-topic"), Partitions::Topic("my-topic".into()));
        assert_eq!(partitions_of("-3"), Partitions::Topic("-3".into()));
    }

    #[test]
    fn a_failed_election_is_a_refusal_and_none_needed_a_notice() {
        let tp = TopicPartition::new("t", 0);
        let noop = ElectionResults { not_needed: vec![tp.clone()], ..Default::default() };
        let note = answer(ElectionType::Preferred, &noop).unwrap().unwrap();
        assert_eq!(note, "ELECTION_NOT_NEEDED: Valid replica already elected for partitions t-0");
        let failed = ElectionResults {
            failed: vec![(tp.clone(), ErrorCode::PreferredLeaderNotAvailable)],
            ..Default::default()
        };
        let err = answer(ElectionType::Preferred, &failed).unwrap_err().to_string();
        assert_eq!(
            err,
            "PREFERRED_LEADER_NOT_AVAILABLE: Error completing leader election (PREFERRED) for partition: t-0: PREFERRED_LEADER_NOT_AVAILABLE: The preferred leader was not available."
        );
        let some = ElectionResults { elected: vec![tp], failed: failed.failed.clone(), ..Default::default() };
        let note = answer(ElectionType::Preferred, &some).unwrap().unwrap();
        assert!(note.starts_with("Successfully completed leader election (PREFERRED) for partitions t-0"));
    }
}
