//! Expectations of a scenario: what must hold at a sim instant, checked against a
//! [`Snapshot`] and the run's [`History`]. Numbers may be exact or comparisons such as `">0"`
//! or `"<=5"`.

pub use super::compare::{Comparison, Op};
use super::history::{EventPattern, History};
use crate::cluster::snapshot::{
    BrokerState, ConsumerStatus, GroupStatus, PartitionView, ReplicaView, Snapshot,
};
use crate::kafka::errors::ErrorCode;
use crate::sim::group::classic::GroupState;
use crate::sim::producer::ProducerView;
use crate::sim::protocol::LeaderRecoveryState;
use crate::sim::{BrokerId, SimTime, TopicPartition, format_instant, join_ids};
use std::collections::BTreeSet;
use std::fmt;

/// The expected leader: a broker or `none` (offline), or anything but one (`"!=0"`,
/// `"!=none"`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct LeaderWant {
    /// `None` = no leader (offline).
    pub broker: Option<BrokerId>,
    /// The leader must differ from `broker` (`!=`).
    pub negated: bool,
}

impl LeaderWant {
    /// Exactly this leader (`None` = offline).
    pub fn is(broker: Option<BrokerId>) -> Self {
        Self { broker, negated: false }
    }

    /// Any leader but this one (`None`: any leader at all).
    pub fn not(broker: Option<BrokerId>) -> Self {
        Self { broker, negated: true }
    }

    fn holds(&self, actual: Option<BrokerId>) -> bool {
        (actual == self.broker) != self.negated
    }
}

impl fmt::Display for LeaderWant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let not = if self.negated { "!=" } else { "" };
        write!(f, "{not}{}", leader_text(self.broker))
    }
}

/// A number a partition reports, compared with [`Check::Partition`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PartitionNumber {
    /// `leader_epoch`: bumped on every leader change (R6.8).
    LeaderEpoch,
    /// `partition_epoch`: bumped on every change of the partition's state (R6.9).
    PartitionEpoch,
    /// `hw` as a number: the leader's high watermark (the last leader's when offline).
    Hw,
    /// `isr_shrinks`: ISR shrinks so far.
    IsrShrinks,
    /// `isr_expands`: ISR expansions so far.
    IsrExpands,
}

impl PartitionNumber {
    /// Its key in scenario files.
    pub fn key(self) -> &'static str {
        match self {
            Self::LeaderEpoch => "leader_epoch",
            Self::PartitionEpoch => "partition_epoch",
            Self::Hw => "hw",
            Self::IsrShrinks => "isr_shrinks",
            Self::IsrExpands => "isr_expands",
        }
    }

    fn read(self, p: &PartitionView) -> i64 {
        match self {
            Self::LeaderEpoch => i64::from(p.leader_epoch),
            Self::PartitionEpoch => i64::from(p.partition_epoch),
            Self::Hw => p.hw,
            Self::IsrShrinks => saturating(p.isr_shrinks),
            Self::IsrExpands => saturating(p.isr_expands),
        }
    }
}

/// An offset one replica reports (offsets), compared with [`Check::Replica`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ReplicaNumber {
    /// `leo`: log end offset.
    Leo,
    /// `hw = { B = … }`: the replica's own high watermark (a follower learns it from fetch
    /// responses, R2.9).
    Hw,
    /// `log_start`: log start offset (moves with retention and deletion).
    LogStart,
    /// `fetch_requests`: how many Fetch requests the replica's broker sent listing the
    /// partition (with fetch sessions, KIP-227, only when it was added or its fetch state
    /// changed).
    FetchRequests,
}

impl ReplicaNumber {
    /// Its key in scenario files.
    pub fn key(self) -> &'static str {
        match self {
            Self::Leo => "leo",
            Self::Hw => "hw",
            Self::LogStart => "log_start",
            Self::FetchRequests => "fetch_requests",
        }
    }

    fn read(self, r: &ReplicaView) -> i64 {
        match self {
            Self::Leo => r.leo,
            Self::Hw => r.hw,
            Self::LogStart => r.log_start,
            Self::FetchRequests => saturating(r.fetch_requests),
        }
    }
}

/// A count a producer reports (records), compared with [`Check::Producer`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ProducerNumber {
    /// `sent`: records handed to the producer.
    Sent,
    /// `acked`: records acknowledged (acks=1 or all).
    Acked,
    /// `unacked`: records sent with acks=0, which no broker answers.
    Unacked,
    /// `failed`: records whose send failed for good (the callback got an error).
    Failed,
    /// `lost`: its acknowledged records lost (audit ledger).
    Lost,
}

impl ProducerNumber {
    /// Its key in scenario files.
    pub fn key(self) -> &'static str {
        match self {
            Self::Sent => "sent",
            Self::Acked => "acked",
            Self::Unacked => "unacked",
            Self::Failed => "failed",
            Self::Lost => "lost",
        }
    }

    fn read(self, p: &ProducerView) -> i64 {
        saturating(match self {
            Self::Sent => p.sent,
            Self::Acked => p.acked,
            Self::Unacked => p.unacked,
            Self::Failed => p.failed,
            Self::Lost => p.acked_lost,
        })
    }
}

/// A number a consumer reports (records), compared with [`Check::Consumer`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ConsumerNumber {
    /// `lag`: the leader HW minus its position, summed over its partitions.
    Lag,
    /// `seen_erased`: records it read that were erased afterwards (audit ledger).
    SeenErased,
    /// `committed`: the offsets its group coordinator confirmed, summed over its partitions.
    Committed,
    /// `rebalances`: rebalances it completed (SyncGroup answers received).
    Rebalances,
}

impl ConsumerNumber {
    /// Its key in scenario files.
    pub fn key(self) -> &'static str {
        match self {
            Self::Lag => "lag",
            Self::SeenErased => "seen_erased",
            Self::Committed => "committed",
            Self::Rebalances => "rebalances",
        }
    }

    fn read(self, c: &ConsumerStatus) -> i64 {
        match self {
            Self::Lag => c.lag(),
            Self::SeenErased => saturating(c.seen_erased),
            Self::Committed => {
                c.view.member.as_ref().map_or(0, |m| m.committed.iter().map(|(_, o)| *o).sum())
            }
            Self::Rebalances => c.view.member.as_ref().map_or(0, |m| i64::from(m.rebalances)),
        }
    }
}

/// One fact to check.
#[derive(Clone, PartialEq, Debug)]
pub enum Check {
    /// The partition's leader (or not this leader).
    Leader(TopicPartition, LeaderWant),
    /// The committed ISR, compared as a set.
    Isr(TopicPartition, Vec<BrokerId>),
    /// The replica list, in order.
    Replicas(TopicPartition, Vec<BrokerId>),
    /// The replicas a reassignment is adding (KIP-455 `addingReplicas`), ascending; `[]` when
    /// none runs.
    Adding(TopicPartition, Vec<BrokerId>),
    /// The replicas a reassignment is removing (KIP-455 `removingReplicas`), ascending.
    Removing(TopicPartition, Vec<BrokerId>),
    /// The eligible leader replicas (KIP-966), compared as a set.
    Elr(TopicPartition, Vec<BrokerId>),
    /// LastKnownELR (KIP-966), compared as a set.
    LastKnownElr(TopicPartition, Vec<BrokerId>),
    /// A number of the partition (epochs, leader HW, ISR change counts).
    Partition(TopicPartition, PartitionNumber, Comparison),
    /// An offset of the replica on a broker.
    Replica(TopicPartition, BrokerId, ReplicaNumber, Comparison),
    /// The KIP-704 leader recovery state.
    LeaderRecovery(TopicPartition, LeaderRecoveryState),
    /// Acknowledged records lost, cluster-wide (audit ledger).
    AckedLost(Comparison),
    /// Records sent with acks=0 that a leader appended and that were lost since,
    /// cluster-wide (audit ledger); counted apart from [`Check::AckedLost`].
    UnackedLost(Comparison),
    /// Records in the log twice, cluster-wide (audit ledger).
    Duplicates(Comparison),
    /// Acknowledged records written after records of the same producer sent later,
    /// cluster-wide (audit ledger).
    Reordered(Comparison),
    /// Partitions without a leader (`OfflinePartitionsCount`).
    OfflinePartitions(Comparison),
    /// The active controller's node id; `-1` (written `"none"`) when the quorum has none.
    ActiveController(Comparison),
    /// The controller epoch: the active controller's quorum epoch (the highest voter epoch
    /// while none is active).
    ControllerEpoch(Comparison),
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
    /// A record count of one producer (by index).
    Producer(u32, ProducerNumber, Comparison),
    /// A consumer's (by index) position on a partition; `None`: its only partition.
    ConsumerPosition(u32, Option<TopicPartition>, Comparison),
    /// A record count of one consumer (by index).
    Consumer(u32, ConsumerNumber, Comparison),
    /// A broker's state.
    Broker(BrokerId, BrokerState),
    /// A consumer group, by id, as its coordinator holds it.
    Group(String, GroupWant),
    /// Some event up to the check's instant matched.
    Event(EventPattern),
}

/// What a `group = "G"` expectation checks.
#[derive(Clone, PartialEq, Debug)]
pub enum GroupWant {
    /// `state`: the group's state (`Stable`, `PreparingRebalance`, ...).
    State(GroupState),
    /// `coordinator`: the broker coordinating it.
    Coordinator(BrokerId),
    /// `members`: how many members it has.
    Members(Comparison),
}

impl GroupWant {
    fn key(&self) -> &'static str {
        match self {
            GroupWant::State(_) => "state",
            GroupWant::Coordinator(_) => "coordinator",
            GroupWant::Members(_) => "members",
        }
    }

    fn check(&self, g: &GroupStatus) -> Found {
        match self {
            GroupWant::State(s) => (g.state.to_string(), g.state == *s),
            GroupWant::Coordinator(b) => (format!("broker {}", g.coordinator), g.coordinator == *b),
            GroupWant::Members(c) => compare(c, count(g.members.len())),
        }
    }
}

impl fmt::Display for GroupWant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GroupWant::State(s) => write!(f, "{s}"),
            GroupWant::Coordinator(b) => write!(f, "broker {b}"),
            GroupWant::Members(c) => write!(f, "{c}"),
        }
    }
}

/// A check due at a sim instant.
#[derive(Clone, PartialEq, Debug)]
pub struct Expectation {
    /// Sim time at which it is checked, to the microsecond.
    pub at: SimTime,
    /// What must hold.
    pub check: Check,
}

/// The verdict on one expectation, readable as a line:
/// `at 00:00:30.0 test_repli-2 isr: expected [0,1], got [0,1,2]`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Outcome {
    /// Sim time of the check.
    pub at: SimTime,
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
            format_instant(self.at),
            self.subject,
            self.expected,
            self.got
        )
    }
}

fn list(ids: &[BrokerId]) -> String {
    format!("[{}]", join_ids(ids))
}

/// A list compared as a set (no member twice): the actual list as text, and whether it holds.
fn same_set(want: &[BrokerId], actual: &[BrokerId]) -> (String, bool) {
    let same = want.iter().collect::<BTreeSet<_>>() == actual.iter().collect::<BTreeSet<_>>();
    (list(actual), same && want.len() == actual.len())
}

fn leader_text(leader: Option<BrokerId>) -> String {
    leader.map_or_else(|| "none".to_string(), |b| b.to_string())
}

/// Kafka's name of a KIP-704 state (`LeaderRecoveryState.RECOVERED` / `RECOVERING`).
pub fn recovery_name(state: LeaderRecoveryState) -> &'static str {
    match state {
        LeaderRecoveryState::Recovered => "RECOVERED",
        LeaderRecoveryState::Recovering => "RECOVERING",
    }
}

fn saturating(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// What a check found: the text shown and whether it held.
type Found = (String, bool);

fn compare(want: &Comparison, actual: i64) -> Found {
    (actual.to_string(), want.holds(actual))
}

fn check_partition(check: &Check, p: &PartitionView) -> Found {
    match check {
        Check::Leader(_, want) => (leader_text(p.leader), want.holds(p.leader)),
        Check::Isr(_, want) => same_set(want, &p.isr),
        Check::Elr(_, want) => same_set(want, &p.elr),
        Check::LastKnownElr(_, want) => same_set(want, &p.last_known_elr),
        Check::Replicas(_, want) => (list(&p.replicas), *want == p.replicas),
        Check::Adding(_, want) => (list(&p.adding), *want == p.adding),
        Check::Removing(_, want) => (list(&p.removing), *want == p.removing),
        Check::Partition(_, number, want) => compare(want, number.read(p)),
        Check::Replica(_, broker, number, want) => match p.replica_views.iter().find(|r| r.broker == *broker)
        {
            Some(r) => compare(want, number.read(r)),
            None => (format!("no replica on broker {broker}"), false),
        },
        Check::LeaderRecovery(_, want) => {
            (recovery_name(p.leader_recovery_state).to_string(), p.leader_recovery_state == *want)
        }
        _ => (String::new(), false),
    }
}

/// A controller id as expectations print it: `none` for `-1`.
fn controller_text(id: i64) -> String {
    if id < 0 { "none".into() } else { id.to_string() }
}

fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn check_producer(snap: &Snapshot, producer: u32, read: impl Fn(&ProducerView) -> Found) -> Found {
    match snap.producers.iter().find(|p| p.index == producer) {
        Some(p) => read(p),
        None => (format!("no producer {producer}"), false),
    }
}

fn check_consumer(snap: &Snapshot, consumer: u32, read: impl Fn(&ConsumerStatus) -> Found) -> Found {
    match snap.consumers.iter().find(|c| c.view.index == consumer) {
        Some(c) => read(c),
        None => (format!("no consumer-{consumer}"), false),
    }
}

/// A consumer's position on `tp`, or on its only partition.
fn consumer_position(c: &ConsumerStatus, tp: Option<&TopicPartition>, want: &Comparison) -> Found {
    let parts = &c.view.partitions;
    let part = match tp {
        Some(tp) => parts.iter().find(|p| p.tp == *tp),
        None if parts.len() == 1 => parts.first(),
        None => return (format!("{} assigned partitions (name one)", parts.len()), false),
    };
    match part.map(|p| p.position) {
        Some(Some(pos)) => compare(want, pos),
        Some(None) => ("no position yet".into(), false),
        None => ("not assigned".into(), false),
    }
}

fn check_cluster(check: &Check, snap: &Snapshot, history: &History) -> Found {
    match check {
        Check::AckedLost(want) => compare(want, saturating(snap.acked_lost)),
        Check::UnackedLost(want) => compare(want, saturating(snap.unacked_lost)),
        Check::Duplicates(want) => compare(want, saturating(snap.duplicates)),
        Check::Reordered(want) => compare(want, saturating(snap.reordered)),
        Check::OfflinePartitions(want) => {
            compare(want, count(snap.partitions.iter().filter(|p| p.leader.is_none()).count()))
        }
        Check::ActiveController(want) => {
            let actual = snap.quorum.active.map_or(-1, i64::from);
            (controller_text(actual), want.holds(actual))
        }
        Check::ControllerEpoch(want) => compare(want, i64::from(snap.quorum.epoch)),
        Check::UnderReplicated(want) => {
            let under = snap
                .partitions
                .iter()
                .filter(|p| p.leader.is_some() && p.isr.len() < p.replicas.len() - p.adding.len());
            compare(want, count(under.count()))
        }
        Check::ProducerErrors { producer, error, count: want } => check_producer(snap, *producer, |p| {
            compare(want, saturating(p.errors.get(error.name()).copied().unwrap_or(0)))
        }),
        Check::Producer(producer, number, want) => {
            check_producer(snap, *producer, |p| compare(want, number.read(p)))
        }
        Check::ConsumerPosition(consumer, tp, want) => {
            check_consumer(snap, *consumer, |c| consumer_position(c, tp.as_ref(), want))
        }
        Check::Consumer(consumer, number, want) => {
            check_consumer(snap, *consumer, |c| compare(want, number.read(c)))
        }
        Check::Group(id, want) => match snap.groups.iter().find(|g| g.id == *id) {
            Some(g) => want.check(g),
            None => (format!("no coordinator holds group {id}"), false),
        },
        Check::Broker(id, want) => match snap.brokers.iter().find(|b| b.id == *id) {
            Some(b) => (b.state().to_string(), b.state() == *want),
            None => (format!("no broker {id}"), false),
        },
        Check::Event(pattern) => match history.first_match(pattern) {
            Some(m) => (format!("\"{}\" at {}", m.text, format_instant(m.at)), true),
            None => ("no such event".into(), false),
        },
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
            | Check::Adding(tp, _)
            | Check::Removing(tp, _)
            | Check::Elr(tp, _)
            | Check::LastKnownElr(tp, _)
            | Check::Partition(tp, _, _)
            | Check::Replica(tp, _, _, _)
            | Check::LeaderRecovery(tp, _) => Some(tp),
            _ => None,
        }
    }

    /// The event pattern this check waits for, if it is an `event` check.
    pub fn event_pattern(&self) -> Option<&EventPattern> {
        match self {
            Check::Event(p) => Some(p),
            _ => None,
        }
    }

    /// What the check looks at, e.g. `test_repli-2 isr` or `acked_lost`.
    pub fn subject(&self) -> String {
        match self {
            Check::Leader(tp, _) => format!("{tp} leader"),
            Check::Isr(tp, _) => format!("{tp} isr"),
            Check::Replicas(tp, _) => format!("{tp} replicas"),
            Check::Adding(tp, _) => format!("{tp} adding"),
            Check::Removing(tp, _) => format!("{tp} removing"),
            Check::Elr(tp, _) => format!("{tp} elr"),
            Check::LastKnownElr(tp, _) => format!("{tp} last_known_elr"),
            Check::Partition(tp, number, _) => format!("{tp} {}", number.key()),
            Check::Replica(tp, broker, number, _) => format!("{tp} {} of broker {broker}", number.key()),
            Check::LeaderRecovery(tp, _) => format!("{tp} leader_recovery_state"),
            Check::AckedLost(_) => "acked_lost".into(),
            Check::UnackedLost(_) => "unacked_lost".into(),
            Check::Duplicates(_) => "duplicates".into(),
            Check::Reordered(_) => "reordered".into(),
            Check::OfflinePartitions(_) => "offline_partitions".into(),
            Check::ActiveController(_) => "active_controller".into(),
            Check::ControllerEpoch(_) => "controller_epoch".into(),
            Check::UnderReplicated(_) => "under_replicated".into(),
            Check::ProducerErrors { producer, error, .. } => format!("producer {producer} errors {error}"),
            Check::Producer(producer, number, _) => format!("producer {producer} {}", number.key()),
            Check::ConsumerPosition(consumer, Some(tp), _) => format!("consumer-{consumer} position on {tp}"),
            Check::ConsumerPosition(consumer, None, _) => format!("consumer-{consumer} position"),
            Check::Consumer(consumer, number, _) => format!("consumer-{consumer} {}", number.key()),
            Check::Broker(id, _) => format!("broker {id} state"),
            Check::Group(id, want) => format!("group {id} {}", want.key()),
            Check::Event(_) => "event".into(),
        }
    }

    /// The expected value as text.
    pub fn expected(&self) -> String {
        match self {
            Check::Leader(_, want) => want.to_string(),
            Check::Isr(_, want)
            | Check::Replicas(_, want)
            | Check::Adding(_, want)
            | Check::Removing(_, want)
            | Check::Elr(_, want)
            | Check::LastKnownElr(_, want) => list(want),
            Check::LeaderRecovery(_, want) => recovery_name(*want).to_string(),
            Check::Broker(_, want) => want.to_string(),
            Check::Group(_, want) => want.to_string(),
            Check::Event(pattern) => format!("an event matching {pattern}"),
            Check::ActiveController(c) if c.op == Op::Eq => controller_text(c.value),
            Check::ActiveController(c) => c.to_string(),
            Check::Partition(_, _, c)
            | Check::Replica(_, _, _, c)
            | Check::AckedLost(c)
            | Check::UnackedLost(c)
            | Check::Duplicates(c)
            | Check::Reordered(c)
            | Check::OfflinePartitions(c)
            | Check::UnderReplicated(c)
            | Check::ControllerEpoch(c)
            | Check::Producer(_, _, c)
            | Check::ConsumerPosition(_, _, c)
            | Check::Consumer(_, _, c)
            | Check::ProducerErrors { count: c, .. } => c.to_string(),
        }
    }

    /// Checks the fact against a snapshot and the run's history. A partition missing from
    /// the snapshot fails.
    pub fn evaluate(&self, snap: &Snapshot, history: &History) -> Found {
        match self.partition() {
            Some(tp) => match snap.partitions.iter().find(|p| p.tp == *tp) {
                Some(p) => check_partition(self, p),
                None => ("no such partition".into(), false),
            },
            None => check_cluster(self, snap, history),
        }
    }
}

impl Expectation {
    /// Checks the expectation against a snapshot taken at its instant and the events seen up
    /// to then.
    pub fn check(&self, snap: &Snapshot, history: &History) -> Outcome {
        let (got, passed) = self.check.evaluate(snap, history);
        Outcome { at: self.at, subject: self.check.subject(), expected: self.check.expected(), got, passed }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::snapshot::{BrokerStatus, BrokerView, PartitionHealth, ReplicaView};
    use crate::config::ProducerConfig;
    use crate::sim::events::{ClusterEvent, EventKind};

    fn replica(broker: BrokerId, leo: i64) -> ReplicaView {
        ReplicaView {
            broker,
            online: true,
            leo,
            hw: leo - 2,
            log_start: 3,
            fetch_requests: 0,
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
            adding: Vec::new(),
            removing: Vec::new(),
            elr: Vec::new(),
            last_known_elr: Vec::new(),
            reassign_bytes_left: None,
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
            loss_cause: None,
            leader_recovery_state: if leader.is_none() {
                LeaderRecoveryState::Recovering
            } else {
                LeaderRecoveryState::Recovered
            },
            isr_shrinks: 2,
            isr_expands: 1,
            leader_reach: Default::default(),
            hw_held_by: None,
            parked: Vec::new(),
            truncations: Vec::new(),
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
            unacked: 0,
            failed: 0,
            pending: 2,
            errors: Default::default(),
            last_error: None,
            unreachable: Vec::new(),
            acked_lost: 1,
            unacked_lost: 0,
            reordered: 0,
            latency: None,
        };
        producer.errors.insert("NOT_ENOUGH_REPLICAS".into(), 3);
        Snapshot {
            now: 30_000,
            partitions: vec![
                partition(0, Some(0), &[0, 1, 2], &[0, 1]).into(),
                partition(1, None, &[1, 2, 0], &[1]).into(),
                partition(2, Some(0), &[2, 0, 1], &[0, 1, 2]).into(),
            ],
            producers: vec![producer],
            brokers: vec![broker(0, BrokerStatus::Up, false), broker(2, BrokerStatus::Up, true)],
            acked_lost: 2,
            ..Default::default()
        }
    }

    fn broker(id: BrokerId, status: BrokerStatus, fenced: bool) -> BrokerView {
        BrokerView::for_test(id, status, fenced)
    }

    fn tp(n: u32) -> TopicPartition {
        TopicPartition::new("test_repli", n)
    }

    fn outcome(check: Check) -> Outcome {
        let fenced = EventPattern::new("broker 2 fenced").unwrap();
        let mut history = History::watching([&fenced]);
        let event = EventKind::BrokerFenced { broker: 2, silent_ms: 9000, timeout_ms: 9000 };
        history.observe(&ClusterEvent { at: crate::sim::SimTime::from_ms(18_000), kind: event });
        Expectation { at: SimTime::from_ms(30_000), check }.check(&snapshot(), &history)
    }

    fn cmp(text: &str) -> Comparison {
        Comparison::parse(text).unwrap()
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
        assert!(outcome(Check::Leader(tp(1), LeaderWant::is(None))).passed);
        let o = outcome(Check::Leader(tp(0), LeaderWant::is(None)));
        assert_eq!(o.to_string(), "at 00:00:30.0 test_repli-0 leader: expected none, got 0");
    }

    #[test]
    fn leader_comparisons() {
        assert!(outcome(Check::Leader(tp(0), LeaderWant::not(Some(1)))).passed);
        assert!(outcome(Check::Leader(tp(0), LeaderWant::not(None))).passed);
        let o = outcome(Check::Leader(tp(0), LeaderWant::not(Some(0))));
        assert_eq!(o.to_string(), "at 00:00:30.0 test_repli-0 leader: expected !=0, got 0");
        let o = outcome(Check::Leader(tp(1), LeaderWant::not(None)));
        assert_eq!(o.to_string(), "at 00:00:30.0 test_repli-1 leader: expected !=none, got none");
    }

    #[test]
    fn partition_numbers_fail_with_the_key_and_value() {
        let number = |n, c| outcome(Check::Partition(tp(0), n, cmp(c)));
        assert!(number(PartitionNumber::PartitionEpoch, "2").passed);
        assert!(number(PartitionNumber::IsrShrinks, ">=2").passed);
        assert!(number(PartitionNumber::IsrExpands, "1").passed);
        let o = number(PartitionNumber::PartitionEpoch, ">2");
        assert_eq!(o.to_string(), "at 00:00:30.0 test_repli-0 partition_epoch: expected >2, got 2");
        let o = number(PartitionNumber::IsrShrinks, "0");
        assert_eq!(o.to_string(), "at 00:00:30.0 test_repli-0 isr_shrinks: expected 0, got 2");
        let o = number(PartitionNumber::IsrExpands, "!=1");
        assert_eq!(o.to_string(), "at 00:00:30.0 test_repli-0 isr_expands: expected !=1, got 1");
    }

    #[test]
    fn replica_hw_and_log_start_fail_per_broker() {
        assert!(outcome(Check::Replica(tp(0), 1, ReplicaNumber::Hw, cmp("39"))).passed);
        assert!(outcome(Check::Replica(tp(0), 1, ReplicaNumber::LogStart, cmp("3"))).passed);
        let o = outcome(Check::Replica(tp(0), 1, ReplicaNumber::Hw, cmp("40")));
        assert_eq!(o.to_string(), "at 00:00:30.0 test_repli-0 hw of broker 1: expected 40, got 39");
        let o = outcome(Check::Replica(tp(0), 2, ReplicaNumber::LogStart, cmp("0")));
        assert_eq!(o.to_string(), "at 00:00:30.0 test_repli-0 log_start of broker 2: expected 0, got 3");
    }

    #[test]
    fn leader_recovery_state_fails_with_kafkas_names() {
        assert!(outcome(Check::LeaderRecovery(tp(1), LeaderRecoveryState::Recovering)).passed);
        let o = outcome(Check::LeaderRecovery(tp(0), LeaderRecoveryState::Recovering));
        assert_eq!(
            o.to_string(),
            "at 00:00:30.0 test_repli-0 leader_recovery_state: expected RECOVERING, got RECOVERED"
        );
    }

    #[test]
    fn producer_counts_fail_by_name() {
        assert!(outcome(Check::Producer(0, ProducerNumber::Sent, cmp("10"))).passed);
        assert!(outcome(Check::Producer(0, ProducerNumber::Failed, cmp("0"))).passed);
        let o = outcome(Check::Producer(0, ProducerNumber::Acked, cmp(">=10")));
        assert_eq!(o.to_string(), "at 00:00:30.0 producer 0 acked: expected >=10, got 8");
        let o = outcome(Check::Producer(0, ProducerNumber::Failed, cmp(">0")));
        assert_eq!(o.to_string(), "at 00:00:30.0 producer 0 failed: expected >0, got 0");
        let o = outcome(Check::Producer(0, ProducerNumber::Sent, cmp("<10")));
        assert_eq!(o.to_string(), "at 00:00:30.0 producer 0 sent: expected <10, got 10");
        let o = outcome(Check::Producer(1, ProducerNumber::Sent, cmp("1")));
        assert_eq!(o.to_string(), "at 00:00:30.0 producer 1 sent: expected 1, got no producer 1");
    }

    #[test]
    fn broker_states_fail_with_their_names() {
        assert!(outcome(Check::Broker(0, BrokerState::Running)).passed);
        assert!(outcome(Check::Broker(2, BrokerState::Fenced)).passed);
        let o = outcome(Check::Broker(2, BrokerState::Crashed));
        assert_eq!(o.to_string(), "at 00:00:30.0 broker 2 state: expected crashed, got fenced");
        assert_eq!(outcome(Check::Broker(5, BrokerState::Running)).got, "no broker 5");
    }

    #[test]
    fn broker_state_words() {
        let mut b = broker(1, BrokerStatus::Up, false);
        b.in_controlled_shutdown = true;
        assert_eq!(b.state(), BrokerState::ShuttingDown);
        assert_eq!(broker(1, BrokerStatus::Stopped { since: 5 }, true).state(), BrokerState::Stopped);
        assert_eq!(broker(1, BrokerStatus::Crashed { since: 5 }, true).state(), BrokerState::Crashed);
        for s in BrokerState::ALL {
            assert_eq!(BrokerState::from_name(s.name()), Some(s));
        }
        assert_eq!(BrokerState::from_name("dead"), None);
    }

    #[test]
    fn events_pass_when_one_matched_and_fail_otherwise() {
        let o = outcome(Check::Event(EventPattern::new("broker 2 fenced").unwrap()));
        assert!(o.passed, "{o}");
        assert!(o.got.ends_with("at 00:00:18.0"), "{o}");
        let o = outcome(Check::Event(EventPattern::new("unclean election").unwrap()));
        assert_eq!(
            o.to_string(),
            "at 00:00:30.0 event: expected an event matching /unclean election/, got no such event"
        );
    }

    #[test]
    fn offsets_and_epochs_use_comparisons() {
        assert!(outcome(Check::Partition(tp(0), PartitionNumber::Hw, Comparison::exactly(40))).passed);
        assert!(outcome(Check::Partition(tp(0), PartitionNumber::LeaderEpoch, cmp(">0"))).passed);
        assert!(outcome(Check::Replica(tp(0), 2, ReplicaNumber::Leo, Comparison::exactly(42))).passed);
        let o = outcome(Check::Replica(tp(0), 7, ReplicaNumber::Leo, Comparison::exactly(42)));
        assert_eq!(o.got, "no replica on broker 7");
        assert!(!o.passed);
    }

    /// Records sent with acks=0 are counted apart: `unacked_lost` (cluster-wide) and a
    /// producer's `unacked`, neither of which `acked_lost` or `acked` includes.
    #[test]
    fn records_sent_without_acknowledgement_count_apart() {
        let mut snap = snapshot();
        snap.unacked_lost = 4;
        snap.producers[0].unacked = 3;
        let history = History::watching(Vec::<&EventPattern>::new());
        let check = |check| Expectation { at: SimTime::from_ms(30_000), check }.check(&snap, &history);
        assert!(check(Check::UnackedLost(Comparison::exactly(4))).passed);
        let o = check(Check::UnackedLost(Comparison::exactly(0)));
        assert_eq!(o.to_string(), "at 00:00:30.0 unacked_lost: expected 0, got 4");
        assert!(check(Check::AckedLost(Comparison::exactly(2))).passed, "acked_lost leaves them out");
        assert!(check(Check::Producer(0, ProducerNumber::Unacked, cmp("3"))).passed);
        let o = check(Check::Producer(0, ProducerNumber::Unacked, cmp(">3")));
        assert!(!o.passed && o.to_string().contains("unacked: expected >3, got 3"), "{o}");
        assert!(check(Check::Producer(0, ProducerNumber::Acked, cmp("8"))).passed);
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
        let hw =
            Check::Partition(TopicPartition::new("other", 0), PartitionNumber::Hw, Comparison::exactly(0));
        let o = outcome(hw);
        assert!(!o.passed);
        assert_eq!(o.got, "no such partition");
    }
}
