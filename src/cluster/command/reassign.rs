//! `reassign T-P R,R,R [--throttle MB/s]` and `reassign T-P --cancel`: move a partition's
//! replicas as `kafka-reassign-partitions.sh --execute` / `--cancel` do, through the
//! controller's `AlterPartitionReassignments` (KIP-455,
//! `ReplicationControlManager.alterPartitionReassignments`).
//!
//! The adding replicas fetch the log over the network model, join the ISR, and then the
//! removing ones leave; the leader moves if it is removed. `--throttle` sets the replication
//! throttle `ReassignPartitionsCommand` sets for the move (Kafka's flag takes bytes/s; isrlab's
//! takes MB/s, 1 MB = 1 000 000 bytes), removed when the reassignment ends.

use super::catalog::known_partition;
use super::{Applied, Catalog, ParseError, Unit, Words, words::parse_error};
use crate::cluster::world::{Spawner, World};
use crate::sim::controller::validate_target;
use crate::sim::error::SimError;
use crate::sim::protocol::NodeId;
use crate::sim::{BrokerId, Outbox, TopicPartition, join_ids};
use std::fmt;
use std::rc::Rc;

/// Bytes in the MB of `--throttle`.
const MB: f64 = 1_000_000.0;

/// `reassign T-P R,R,R [--throttle MB/s]` or `reassign T-P --cancel`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Reassign {
    /// Topic name.
    pub topic: String,
    /// Partition number.
    pub partition: u32,
    /// The target replicas, preferred leader first; `None` cancels.
    pub target: Option<Vec<BrokerId>>,
    /// The replication throttle (bytes/s), if asked.
    pub throttle: Option<u64>,
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
    const USAGE: &'static [&'static str] = &["reassign T-P R,R,R [--throttle MB/s]", "reassign T-P --cancel"];

    fn parse(_verb: &str, words: &mut Words<'_>) -> Result<Self, ParseError> {
        let (topic, partition) = words.partition()?;
        let list = words.word("replica list R,R,R or --cancel")?;
        if list == "--cancel" {
            return Ok(Reassign { topic, partition, target: None, throttle: None });
        }
        let target = Some(replica_list(list)?);
        let throttle = match words.peek() {
            Some("--throttle") => {
                words.next();
                Some(throttle_rate(words.word("throttle in MB/s")?)?)
            }
            _ => None,
        };
        Ok(Reassign { topic, partition, target, throttle })
    }

    fn validate(&self, cluster: &dyn Catalog) -> Result<(), SimError> {
        known_partition(cluster, &self.topic, self.partition)?;
        match &self.target {
            Some(target) => validate_target(target, &|b| cluster.broker_ids().contains(&b)),
            None => Ok(()),
        }
    }

    /// Errors: the controller's refusal (a cancel without a reassignment, a revert that
    /// needs an unclean election); nothing changes then.
    fn apply(&self, world: &Rc<World>, _spawner: Spawner<'_>, out: &mut Outbox) -> Result<Applied, SimError> {
        let tp = TopicPartition::new(self.topic.as_str(), self.partition);
        let target = self.target.as_deref();
        world.controller().borrow_mut().alter_reassignment(world.now(), &tp, target, self.throttle, out)?;
        Ok(Applied::by(NodeId::Controller))
    }
}

impl fmt::Display for Reassign {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "reassign {}-{} ", self.topic, self.partition)?;
        match &self.target {
            None => f.write_str("--cancel"),
            Some(target) => {
                f.write_str(&join_ids(target))?;
                match self.throttle {
                    Some(rate) => write!(f, " --throttle {}", rate as f64 / MB),
                    None => Ok(()),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_targets_throttles_and_cancel() {
        let mut w = Words::new("t-0 0,1,3 --throttle 0.5".split_whitespace(), Reassign::USAGE[0]);
        let r = Reassign::parse("reassign", &mut w).unwrap();
        assert_eq!((r.target.clone(), r.throttle), (Some(vec![0, 1, 3]), Some(500_000)));
        assert_eq!(r.to_string(), "reassign t-0 0,1,3 --throttle 0.5");
        assert!(throttle_rate("0").is_err() && throttle_rate("x").is_err());
        assert!(replica_list("1,a").unwrap_err().message.contains("`a`"));
    }
}
