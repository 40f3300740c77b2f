//! `reassign T-P R,R,R [--throttle MB/s]`, `reassign T-P --cancel` and `reassign --verify
//! [T-P]`: move a partition's replicas as `kafka-reassign-partitions.sh --execute` /
//! `--cancel` / `--verify` do, through the controller's `AlterPartitionReassignments`
//! (KIP-455, `ReplicationControlManager.alterPartitionReassignments`).
//!
//! The adding replicas fetch the log over the network model, join the ISR, and then the
//! removing ones leave; the leader moves if it is removed. `--throttle` sets the replication
//! throttle `ReassignPartitionsCommand` sets for the move (Kafka's flag takes bytes/s; isrlab's
//! takes MB/s, 1 MB = 1 000 000 bytes). As with the tool, the throttle outlives the move:
//! `--verify` reports each reassignment ("Reassignment of partition t-0 is completed.") and
//! removes every throttle only once none is running (`verifyAssignment` →
//! `clearAllThrottles`); `--cancel` removes them after cancelling.

use super::catalog::known_partition;
use super::{Applied, Catalog, ParseError, Unit, Words, words::parse_error};
use crate::cluster::world::World;
use crate::sim::controller::validate_target;
use crate::sim::error::SimError;
use crate::sim::protocol::NodeId;
use crate::sim::{BrokerId, Outbox, TopicPartition, join_ids};
use std::fmt;
use std::rc::Rc;

/// Bytes in the MB of `--throttle`.
const MB: f64 = 1_000_000.0;

/// `reassign T-P R,R,R [--throttle MB/s]`, `reassign T-P --cancel` or `reassign --verify [T-P]`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Reassign {
    /// Move a partition to `target` (`--execute`).
    Move {
        /// Topic name.
        topic: String,
        /// Partition number.
        partition: u32,
        /// The target replicas, preferred leader first.
        target: Vec<BrokerId>,
        /// The replication throttle (bytes/s), if asked.
        throttle: Option<u64>,
    },
    /// Cancel a partition's reassignment (`--cancel`).
    Cancel {
        /// Topic name.
        topic: String,
        /// Partition number.
        partition: u32,
    },
    /// Report the reassignments started, and remove the throttles when none runs
    /// (`--verify`): one partition, or every one started.
    Verify(Option<(String, u32)>),
}

/// `R,R,R` as broker ids.
fn replica_list(w: &str) -> Result<Vec<BrokerId>, ParseError> {
    w.split(',')
        .map(|r| {
            r.trim().parse().map_err(|_| {
                parse_error(format!(
                    "`{r}` in `{w}` is not a broker id; usage: reassign T-P R,R,R [--throttle MB/s]"
                ))
            })
        })
        .collect()
}

/// `MB/s` as bytes/s: a positive number, at most 1 000 000 MB/s.
fn throttle_rate(w: &str) -> Result<u64, ParseError> {
    match w.parse::<f64>() {
        Ok(mb) if mb > 0.0 && mb <= 1_000_000.0 => Ok((mb * MB).round() as u64),
        _ => Err(parse_error(format!(
            "throttle must be a number of MB/s above 0 and at most 1000000, got `{w}`"
        ))),
    }
}

impl Unit for Reassign {
    const VERBS: &'static [&'static str] = &["reassign"];
    const USAGE: &'static [&'static str] =
        &["reassign T-P R,R,R [--throttle MB/s]", "reassign T-P --cancel", "reassign --verify [T-P]"];

    const ABOUT: &'static str = "Move partition T-P to the replicas R,R,R, or cancel or check a move. The new replicas copy the log over the network, join the ISR, and then the removed ones leave; the leader moves if it is removed. `--throttle` limits the copy to that many MB/s (1 MB = 1 000 000 bytes) and, as with Kafka's tool, the throttle outlives the move: `--verify` reports each move and removes the throttles once none is running, `--cancel` stops the move and removes them.";
    const KAFKA: Option<&'static str> = Some(
        "`kafka-reassign-partitions.sh --execute`, `--cancel` and `--verify`, through the controller's `AlterPartitionReassignments` (KIP-455)",
    );
    const EXAMPLES: &'static [&'static str] =
        &["reassign test_repli-0 1,2,0 --throttle 2", "reassign test_repli-0 --cancel", "reassign --verify"];

    fn parse(_verb: &str, words: &mut Words<'_>) -> Result<Self, ParseError> {
        if words.peek() == Some("--verify") {
            words.next();
            words.usage(Self::USAGE[2]);
            return match words.peek() {
                None => Ok(Reassign::Verify(None)),
                Some(_) => Ok(Reassign::Verify(Some(words.partition()?))),
            };
        }
        let (topic, partition) = words.partition()?;
        let list = words.word("replica list R,R,R or --cancel")?;
        if list == "--cancel" {
            return Ok(Reassign::Cancel { topic, partition });
        }
        let target = replica_list(list)?;
        let throttle = match words.peek() {
            Some("--throttle") => {
                words.next();
                Some(throttle_rate(words.word("throttle in MB/s")?)?)
            }
            _ => None,
        };
        Ok(Reassign::Move { topic, partition, target, throttle })
    }

    fn validate(&self, cluster: &dyn Catalog) -> Result<(), SimError> {
        match self {
            Reassign::Move { topic, partition, target, .. } => {
                known_partition(cluster, topic, *partition)?;
                validate_target(target, &|b| cluster.broker_ids().contains(&b))
            }
            Reassign::Cancel { topic, partition } => known_partition(cluster, topic, *partition),
            // A verified partition may belong to a topic deleted since its move started.
            Reassign::Verify(_) => Ok(()),
        }
    }

    /// Errors: the controller's refusal (a cancel without a reassignment, a revert that
    /// needs an unclean election, a verify with nothing started); nothing changes then.
    fn apply(&self, world: &Rc<World>, out: &mut Outbox) -> Result<Applied, SimError> {
        let now = world.now();
        let controller = world.active_controller()?;
        let mut controller = controller.borrow_mut();
        match self {
            Reassign::Move { topic, partition, target, throttle } => {
                let tp = TopicPartition::new(topic.as_str(), *partition);
                controller.alter_reassignment(now, &tp, Some(target), *throttle, out)?;
            }
            Reassign::Cancel { topic, partition } => {
                let tp = TopicPartition::new(topic.as_str(), *partition);
                controller.alter_reassignment(now, &tp, None, None, out)?;
            }
            Reassign::Verify(only) => {
                let tp = only.as_ref().map(|(t, p)| TopicPartition::new(t.as_str(), *p));
                let report = controller.verify_reassignments(now, tp.as_ref(), out)?;
                return Ok(Applied { origin: NodeId::ActiveController, note: Some(report.line()) });
            }
        }
        Ok(Applied::by(NodeId::ActiveController))
    }
}

impl fmt::Display for Reassign {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reassign::Move { topic, partition, target, throttle } => {
                write!(f, "reassign {topic}-{partition} {}", join_ids(target))?;
                match throttle {
                    Some(rate) => write!(f, " --throttle {}", *rate as f64 / MB),
                    None => Ok(()),
                }
            }
            Reassign::Cancel { topic, partition } => write!(f, "reassign {topic}-{partition} --cancel"),
            Reassign::Verify(None) => f.write_str("reassign --verify"),
            Reassign::Verify(Some((topic, partition))) => write!(f, "reassign --verify {topic}-{partition}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Reassign, ParseError> {
        Reassign::parse("reassign", &mut Words::new(line.split_whitespace(), Reassign::USAGE[0]))
    }

    #[test]
    fn parses_targets_throttles_cancel_and_verify() {
        let r = parse("t-0 0,1,3 --throttle 0.5").unwrap();
        let Reassign::Move { target, throttle, .. } = &r else { panic!("{r:?}") };
        assert_eq!((target.clone(), *throttle), (vec![0, 1, 3], Some(500_000)));
        assert_eq!(r.to_string(), "reassign t-0 0,1,3 --throttle 0.5");
        assert_eq!(parse("t-1 --cancel").unwrap().to_string(), "reassign t-1 --cancel");
        assert_eq!(parse("--verify").unwrap(), Reassign::Verify(None));
        assert_eq!(parse("--verify t-2").unwrap().to_string(), "reassign --verify t-2");
        assert!(parse("--verify t").unwrap_err().message.contains("reassign --verify [T-P]"));
        assert!(throttle_rate("0").is_err() && throttle_rate("x").is_err());
        assert!(replica_list("1,a").unwrap_err().message.contains("`a`"));
    }
}
