//! Expectations of a scenario: what must hold at a sim instant, checked against a
//! [`Snapshot`]. Numbers may be exact or comparisons such as `">0"` or `"<=5"`.

use crate::cluster::snapshot::{PartitionView, Snapshot};
use crate::kafka::errors::ErrorCode;
use crate::sim::{BrokerId, Ms, TopicPartition, format_time, join_ids};
use std::collections::BTreeSet;
use std::fmt;

/// A comparison operator.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Op {
    /// `==` (also a bare number).
    Eq,
    /// `!=`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
}

/// An expected number: exact (`5`, `"==5"`) or a comparison (`">0"`, `"<=5"`, `"!=0"`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Comparison {
    /// The operator.
    pub op: Op,
    /// The number it compares with.
    pub value: i64,
}

impl Comparison {
    /// Exactly `value`.
    pub fn exactly(value: i64) -> Self {
        Self { op: Op::Eq, value }
    }

    /// Parses `">0"`, `"<=5"`, `"==3"`, `"!=0"`, `"<10"`, `">=2"` or a bare `"7"`.
    /// Errors: a message naming the text and the accepted shapes.
    pub fn parse(text: &str) -> Result<Self, String> {
        let t = text.trim();
        let (op, rest) =
            [("==", Op::Eq), ("!=", Op::Ne), ("<=", Op::Le), (">=", Op::Ge), ("<", Op::Lt), (">", Op::Gt)]
                .iter()
                .find_map(|(prefix, op)| t.strip_prefix(prefix).map(|rest| (*op, rest)))
                .unwrap_or((Op::Eq, t));
        rest.trim().parse::<i64>().map(|value| Self { op, value }).map_err(|_| {
            format!(
                "`{text}` is not a number or a comparison; write e.g. 3, \">0\", \"<=5\", \"==3\" or \"!=0\""
            )
        })
    }

    /// Whether `actual` satisfies the comparison.
    pub fn holds(&self, actual: i64) -> bool {
        match self.op {
            Op::Eq => actual == self.value,
            Op::Ne => actual != self.value,
            Op::Lt => actual < self.value,
            Op::Le => actual <= self.value,
            Op::Gt => actual > self.value,
            Op::Ge => actual >= self.value,
        }
    }
}

impl fmt::Display for Comparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let op = match self.op {
            Op::Eq => "",
            Op::Ne => "!=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
        };
        write!(f, "{op}{}", self.value)
    }
}

/// One fact to check.
#[derive(Clone, PartialEq, Debug)]
pub enum Check {
    /// The partition's leader; `None` = offline.
    Leader(TopicPartition, Option<BrokerId>),
    /// The committed ISR, compared as a set.
    Isr(TopicPartition, Vec<BrokerId>),
    /// The replica list, in order.
    Replicas(TopicPartition, Vec<BrokerId>),
    /// The leader epoch.
    LeaderEpoch(TopicPartition, Comparison),
    /// The leader's high watermark.
    Hw(TopicPartition, Comparison),
    /// The log end offset of the replica on a broker.
    Leo(TopicPartition, BrokerId, Comparison),
    /// Acknowledged records lost, cluster-wide (audit ledger).
    AckedLost(Comparison),
    /// Records in the log twice, cluster-wide (audit ledger).
    Duplicates(Comparison),
    /// Partitions without a leader (`OfflinePartitionsCount`).
    OfflinePartitions(Comparison),
    /// Partitions with a leader whose ISR is smaller than the replica list.
    UnderReplicated(Comparison),
    /// Error responses of one producer (by index) with one Kafka error.
    ProducerErrors {
        /// Producer index.
        producer: u32,
        /// The error.
        error: ErrorCode,
        /// Expected count.
        count: Comparison,
    },
}

/// A check due at a sim instant.
#[derive(Clone, PartialEq, Debug)]
pub struct Expectation {
    /// Sim time (ms) at which it is checked.
    pub at: Ms,
    /// What must hold.
    pub check: Check,
}

/// The verdict on one expectation, readable as a line:
/// `at 00:00:30.0 test_repli-2 isr: expected [0,1], got [0,1,2]`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Outcome {
    /// Sim time (ms) of the check.
    pub at: Ms,
    /// What was looked at, e.g. `test_repli-2 isr`.
    pub subject: String,
    /// What the scenario expected.
    pub expected: String,
    /// What the cluster showed.
    pub got: String,
    /// Whether it held.
    pub passed: bool,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "at {} {}: expected {}, got {}",
            format_time(self.at),
            self.subject,
            self.expected,
            self.got
        )
    }
}

fn list(ids: &[BrokerId]) -> String {
    format!("[{}]", join_ids(ids))
}

fn leader_text(leader: Option<BrokerId>) -> String {
    leader.map_or_else(|| "none".to_string(), |b| b.to_string())
}

/// What a check found: the text shown and whether it held.
type Found = (String, bool);

fn compare(want: &Comparison, actual: i64) -> Found {
    (actual.to_string(), want.holds(actual))
}

fn check_partition(check: &Check, p: &PartitionView) -> Found {
    match check {
        Check::Leader(_, want) => (leader_text(p.leader), p.leader == *want),
        Check::Isr(_, want) => {
            let same = want.iter().collect::<BTreeSet<_>>() == p.isr.iter().collect::<BTreeSet<_>>();
            (list(&p.isr), same && want.len() == p.isr.len())
        }
        Check::Replicas(_, want) => (list(&p.replicas), *want == p.replicas),
        Check::LeaderEpoch(_, want) => compare(want, i64::from(p.leader_epoch)),
        Check::Hw(_, want) => compare(want, p.hw),
        Check::Leo(_, broker, want) => match p.replica_views.iter().find(|r| r.broker == *broker) {
            Some(r) => compare(want, r.leo),
            None => (format!("no replica on broker {broker}"), false),
        },
        _ => (String::new(), false),
    }
}

fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn check_cluster(check: &Check, snap: &Snapshot) -> Found {
    match check {
        Check::AckedLost(want) => compare(want, i64::try_from(snap.acked_lost).unwrap_or(i64::MAX)),
        Check::Duplicates(want) => compare(want, i64::try_from(snap.duplicates).unwrap_or(i64::MAX)),
        Check::OfflinePartitions(want) => {
            compare(want, count(snap.partitions.iter().filter(|p| p.leader.is_none()).count()))
        }
        Check::UnderReplicated(want) => {
            let under =
                snap.partitions.iter().filter(|p| p.leader.is_some() && p.isr.len() < p.replicas.len());
            compare(want, count(under.count()))
        }
        Check::ProducerErrors { producer, error, count: want } => {
            match snap.producers.iter().find(|p| p.index == *producer) {
                Some(p) => {
                    let n = p.errors.get(error.name()).copied().unwrap_or(0);
                    compare(want, i64::try_from(n).unwrap_or(i64::MAX))
                }
                None => (format!("no producer {producer}"), false),
            }
        }
        _ => (String::new(), false),
    }
}

impl Check {
    /// The partition this check is about, if any.
    pub fn partition(&self) -> Option<&TopicPartition> {
        match self {
            Check::Leader(tp, _)
            | Check::Isr(tp, _)
            | Check::Replicas(tp, _)
            | Check::LeaderEpoch(tp, _)
            | Check::Hw(tp, _)
            | Check::Leo(tp, _, _) => Some(tp),
            _ => None,
        }
    }

    /// What the check looks at, e.g. `test_repli-2 isr` or `acked_lost`.
    pub fn subject(&self) -> String {
        match self {
            Check::Leader(tp, _) => format!("{tp} leader"),
            Check::Isr(tp, _) => format!("{tp} isr"),
            Check::Replicas(tp, _) => format!("{tp} replicas"),
            Check::LeaderEpoch(tp, _) => format!("{tp} leader_epoch"),
            Check::Hw(tp, _) => format!("{tp} hw"),
            Check::Leo(tp, broker, _) => format!("{tp} leo of broker {broker}"),
            Check::AckedLost(_) => "acked_lost".into(),
            Check::Duplicates(_) => "duplicates".into(),
            Check::OfflinePartitions(_) => "offline_partitions".into(),
            Check::UnderReplicated(_) => "under_replicated".into(),
            Check::ProducerErrors { producer, error, .. } => format!("producer {producer} errors {error}"),
        }
    }

    /// The expected value as text.
    pub fn expected(&self) -> String {
        match self {
            Check::Leader(_, want) => leader_text(*want),
            Check::Isr(_, want) | Check::Replicas(_, want) => list(want),
            Check::LeaderEpoch(_, c) | Check::Hw(_, c) | Check::Leo(_, _, c) => c.to_string(),
            Check::AckedLost(c)
            | Check::Duplicates(c)
            | Check::OfflinePartitions(c)
            | Check::UnderReplicated(c) => c.to_string(),
            Check::ProducerErrors { count, .. } => count.to_string(),
        }
    }

    /// Checks the fact against a snapshot. A partition missing from the snapshot fails.
    pub fn evaluate(&self, snap: &Snapshot) -> (String, bool) {
        match self.partition() {
            Some(tp) => match snap.partitions.iter().find(|p| p.tp == *tp) {
                Some(p) => check_partition(self, p),
                None => ("no such partition".into(), false),
            },
            None => check_cluster(self, snap),
        }
    }
}

impl Expectation {
    /// Checks the expectation against a snapshot taken at its instant.
    pub fn check(&self, snap: &Snapshot) -> Outcome {
        let (got, passed) = self.check.evaluate(snap);
        Outcome { at: self.at, subject: self.check.subject(), expected: self.check.expected(), got, passed }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::snapshot::{PartitionHealth, ProducerView, ReplicaView};
    use crate::config::ProducerConfig;

    fn replica(broker: BrokerId, leo: i64) -> ReplicaView {
        ReplicaView {
            broker,
            online: true,
            leo,
            hw: leo,
            log_start: 0,
            epoch_cache: vec![(0, 0)],
            in_isr: true,
            is_leader: false,
            lag: None,
            isr_expiry_in: None,
            caught_up_ago: None,
        }
    }

    fn partition(n: u32, leader: Option<BrokerId>, replicas: &[BrokerId], isr: &[BrokerId]) -> PartitionView {
        PartitionView {
            tp: TopicPartition::new("test_repli", n),
            replicas: replicas.to_vec(),
            isr: isr.to_vec(),
            leader,
            leader_epoch: 1,
            partition_epoch: 2,
            hw: 40,
            replica_views: replicas.iter().map(|b| replica(*b, 40 + i64::from(*b))).collect(),
            health: PartitionHealth::Healthy,
            effective_min_isr: 1,
            hw_blocked_by: None,
            pending_isr: None,
            acked_lost: 0,
            leader_recovery_state: Default::default(),
            isr_shrinks: 0,
            isr_expands: 0,
        }
    }

    fn snapshot() -> Snapshot {
        let mut producer = ProducerView {
            index: 0,
            topic: "test_repli".into(),
            config: ProducerConfig::default(),
            idempotent: true,
            sent: 10,
            acked: 8,
            failed: 0,
            pending: 2,
            errors: Default::default(),
            last_error: None,
            unreachable: Vec::new(),
        };
        producer.errors.insert("NOT_ENOUGH_REPLICAS".into(), 3);
        Snapshot {
            now: 30_000,
            partitions: vec![
                partition(0, Some(0), &[0, 1, 2], &[0, 1]),
                partition(1, None, &[1, 2, 0], &[1]),
                partition(2, Some(0), &[2, 0, 1], &[0, 1, 2]),
            ],
            producers: vec![producer],
            acked_lost: 2,
            ..Default::default()
        }
    }

    fn tp(n: u32) -> TopicPartition {
        TopicPartition::new("test_repli", n)
    }

    fn outcome(check: Check) -> Outcome {
        Expectation { at: 30_000, check }.check(&snapshot())
    }

    #[test]
    fn comparisons_parse_and_hold() {
        let cases =
            [(">0", 1, true), (">0", 0, false), ("<=5", 5, true), ("==3", 3, true), ("!=0", 0, false)];
        for (text, actual, holds) in cases {
            assert_eq!(Comparison::parse(text).unwrap().holds(actual), holds, "{text} vs {actual}");
        }
        assert_eq!(Comparison::parse("<10").unwrap(), Comparison { op: Op::Lt, value: 10 });
        assert_eq!(Comparison::parse(">= 2").unwrap(), Comparison { op: Op::Ge, value: 2 });
        assert_eq!(Comparison::parse("7").unwrap(), Comparison::exactly(7));
        assert_eq!(Comparison::parse("==3").unwrap().to_string(), "3");
        assert_eq!(Comparison::parse("!=0").unwrap().to_string(), "!=0");
        assert!(Comparison::parse("=>2").unwrap_err().contains("not a number or a comparison"));
        assert!(Comparison::parse("lots").is_err());
    }

    #[test]
    fn isr_is_compared_as_a_set_and_failures_read_well() {
        assert!(outcome(Check::Isr(tp(0), vec![1, 0])).passed);
        let o = outcome(Check::Isr(tp(2), vec![0, 1]));
        assert!(!o.passed);
        assert_eq!(o.to_string(), "at 00:00:30.0 test_repli-2 isr: expected [0,1], got [0,1,2]");
    }

    #[test]
    fn replicas_are_compared_in_order() {
        assert!(outcome(Check::Replicas(tp(2), vec![2, 0, 1])).passed);
        assert!(!outcome(Check::Replicas(tp(2), vec![0, 1, 2])).passed);
    }

    #[test]
    fn leader_none_means_offline() {
        assert!(outcome(Check::Leader(tp(1), None)).passed);
        let o = outcome(Check::Leader(tp(0), None));
        assert_eq!(o.to_string(), "at 00:00:30.0 test_repli-0 leader: expected none, got 0");
    }

    #[test]
    fn offsets_and_epochs_use_comparisons() {
        assert!(outcome(Check::Hw(tp(0), Comparison::exactly(40))).passed);
        assert!(outcome(Check::LeaderEpoch(tp(0), Comparison::parse(">0").unwrap())).passed);
        assert!(outcome(Check::Leo(tp(0), 2, Comparison::exactly(42))).passed);
        let o = outcome(Check::Leo(tp(0), 7, Comparison::exactly(42)));
        assert_eq!(o.got, "no replica on broker 7");
        assert!(!o.passed);
    }

    #[test]
    fn cluster_wide_counts() {
        assert!(outcome(Check::OfflinePartitions(Comparison::exactly(1))).passed);
        assert!(outcome(Check::UnderReplicated(Comparison::exactly(1))).passed);
        let o = outcome(Check::AckedLost(Comparison::exactly(0)));
        assert_eq!(o.to_string(), "at 00:00:30.0 acked_lost: expected 0, got 2");
    }

    #[test]
    fn producer_errors_count_by_name_and_missing_means_zero() {
        let enr = Comparison::parse(">0").unwrap();
        let error = ErrorCode::NotEnoughReplicas;
        assert!(outcome(Check::ProducerErrors { producer: 0, error, count: enr }).passed);
        let zero = Comparison::exactly(0);
        let timeouts = Check::ProducerErrors { producer: 0, error: ErrorCode::RequestTimedOut, count: zero };
        assert!(outcome(timeouts).passed);
        let o = outcome(Check::ProducerErrors { producer: 3, error, count: enr });
        assert_eq!(
            o.to_string(),
            "at 00:00:30.0 producer 3 errors NOT_ENOUGH_REPLICAS: expected >0, got no producer 3"
        );
    }

    #[test]
    fn a_missing_partition_fails() {
        let o = outcome(Check::Hw(TopicPartition::new("other", 0), Comparison::exactly(0)));
        assert!(!o.passed);
        assert_eq!(o.got, "no such partition");
    }
}
