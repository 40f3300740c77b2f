//! The invariants `isrlab check` holds every run to, named in Kafka's and Jepsen's words, and
//! which of them a configuration promises. Some are watched during the run (each leader
//! change, and the cluster's state after every command and every second of sim time), the
//! rest at the end, after the faults are healed and the cluster has settled.

use super::schedule::FaultKind;
use crate::cluster::snapshot::Snapshot;
use crate::sim::events::{ClusterEvent, ElectionKind, EventKind};
use crate::sim::producer::VALUES_PER_PRODUCER;
use crate::sim::spec::ClusterSpec;
use crate::sim::{Acks, BrokerId, Epoch, Offset, TopicPartition};
use std::collections::BTreeMap;

/// An invariant, or the anomaly that breaks it.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum Invariant {
    /// Jepsen's "lost write": a record a producer was told is written is gone from the log
    /// that decides (the leader's), at the end of the run.
    LostWrite,
    /// Log matching: two replicas of the ISR hold different records at an offset both have
    /// committed (below both HWs).
    LogDivergence,
    /// Leader completeness: a leader chosen from the ISR (a clean election) lacks acknowledged
    /// records (Kafka's guarantee that an ISR member holds every committed record).
    LeaderCompleteness,
    /// At most one leader per leader epoch.
    OneLeaderPerEpoch,
    /// The ISR is a subset of the replicas, never empty, and holds the leader.
    IsrWithinReplicas,
    /// The leader's HW never moves back within its leader epoch.
    HwMonotonic,
    /// A consumer never reads above the HW (its position is never past the leader's HW once
    /// the cluster has settled).
    ReadAboveHw,
    /// A consumer never reads a record that is later erased (Jepsen's "read of a record
    /// that was lost": read below the HW, then gone).
    ReadErased,
    /// An idempotent producer (`enable.idempotence=true`) never writes a record twice.
    IdempotentDuplicate,
    /// Jepsen's "poll skip": a group consumer's reads of a partition never jump over offsets.
    PollSkip,
}

impl Invariant {
    /// Every invariant, in the order the summary lists them.
    pub const ALL: [Invariant; 10] = [
        Invariant::LostWrite,
        Invariant::LogDivergence,
        Invariant::LeaderCompleteness,
        Invariant::OneLeaderPerEpoch,
        Invariant::IsrWithinReplicas,
        Invariant::HwMonotonic,
        Invariant::ReadAboveHw,
        Invariant::ReadErased,
        Invariant::IdempotentDuplicate,
        Invariant::PollSkip,
    ];

    /// Its name in Kafka's or Jepsen's words.
    pub fn name(self) -> &'static str {
        match self {
            Invariant::LostWrite => "lost write",
            Invariant::LogDivergence => "log divergence",
            Invariant::LeaderCompleteness => "leader completeness",
            Invariant::OneLeaderPerEpoch => "one leader per epoch",
            Invariant::IsrWithinReplicas => "ISR within replicas",
            Invariant::HwMonotonic => "HW monotonic in an epoch",
            Invariant::ReadAboveHw => "read above HW",
            Invariant::ReadErased => "read of erased records",
            Invariant::IdempotentDuplicate => "idempotent duplicate",
            Invariant::PollSkip => "poll skip",
        }
    }

    /// Whether every configuration promises it: the structure of replication (epochs, the
    /// ISR, the HW, log matching) holds whatever the durability settings.
    pub fn always(self) -> bool {
        matches!(
            self,
            Invariant::LogDivergence
                | Invariant::OneLeaderPerEpoch
                | Invariant::IsrWithinReplicas
                | Invariant::HwMonotonic
        )
    }
}

/// One broken invariant: which, and what was seen, in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The invariant.
    pub invariant: Invariant,
    /// What broke it.
    pub detail: String,
}

/// Whether a cluster and fault mix are what Kafka calls safe for acknowledged records:
/// every producer `acks=all`, every topic an effective `min.insync.replicas` of at least 2,
/// unclean leader election off, and, when power loss is in the mix, `flush.messages=1` (an
/// acknowledged record is on the disk of every ISR member; without it a power loss loses what
/// only page caches held, as Kafka documents for `flush.messages`/`log.flush.interval.messages`
/// and KIP-966 explains as the case ELR closes). Returns why not, when not.
pub fn unsafe_because(spec: &ClusterSpec, kinds: &[FaultKind]) -> Option<String> {
    if let Some(p) = spec.producers.iter().find(|p| p.config.acks != Acks::All) {
        return Some(format!("a producer writes with acks={}", p.config.acks));
    }
    let broker = &spec.broker_config;
    for t in &spec.topics {
        let min_isr = t.config.effective_min_isr(broker, t.replication_factor as usize);
        if min_isr < 2 {
            return Some(format!("topic {} has an effective min.insync.replicas of {min_isr}", t.name));
        }
        if t.config.unclean_leader_election_enable(broker) {
            return Some(format!("topic {} allows unclean leader election", t.name));
        }
        if kinds.contains(&FaultKind::PowerLoss) && t.config.log_config(broker).flush_messages != 1 {
            return Some(format!(
                "power loss is in the mix and topic {} does not set flush.messages=1 (acknowledged records may be in page caches only)",
                t.name
            ));
        }
    }
    None
}

/// What a run watches as it goes: the leader of each (partition, epoch) and the highest HW of
/// each (partition, epoch), and what broke.
#[derive(Default)]
pub struct Monitor {
    leaders: BTreeMap<(TopicPartition, Epoch), BrokerId>,
    /// The highest HW of each (partition, epoch), with the leader that had it: a leader whose
    /// process starts again reads its HW back from its checkpoint
    /// (`replication-offset-checkpoint`), so its entries are dropped then.
    hws: BTreeMap<(TopicPartition, Epoch), (BrokerId, Offset)>,
    /// What broke so far (the first of each invariant only).
    pub violations: Vec<Violation>,
    /// Producers (index) with `enable.idempotence=true`.
    idempotent: Vec<u32>,
}

impl Monitor {
    /// A monitor for a run of `spec`.
    pub fn new(spec: &ClusterSpec) -> Monitor {
        let idempotent = spec
            .producers
            .iter()
            .enumerate()
            .filter(|(_, p)| p.config.enable_idempotence)
            .map(|(i, _)| i as u32)
            .collect();
        Monitor { idempotent, ..Monitor::default() }
    }

    /// Notes a broken invariant (once per invariant).
    pub fn broke(&mut self, invariant: Invariant, detail: String) {
        if !self.violations.iter().any(|v| v.invariant == invariant) {
            self.violations.push(Violation { invariant, detail });
        }
    }

    /// Whether `invariant` broke.
    pub fn has(&self, invariant: Invariant) -> bool {
        self.violations.iter().any(|v| v.invariant == invariant)
    }

    /// Checks events as they come: a second leader in one epoch, an idempotent producer's
    /// duplicate, acknowledged records lost after a clean election.
    pub fn on_events(&mut self, events: &[ClusterEvent]) {
        for e in events {
            match &e.kind {
                EventKind::LeaderChanged { tp, new_leader: Some(leader), leader_epoch, .. } => {
                    let key = (tp.clone(), *leader_epoch);
                    match self.leaders.get(&key) {
                        Some(first) if first != leader => {
                            let detail = format!("{tp} epoch {leader_epoch}: leader {first}, then {leader}");
                            self.broke(Invariant::OneLeaderPerEpoch, detail);
                        }
                        _ => {
                            self.leaders.insert(key, *leader);
                        }
                    }
                }
                EventKind::BrokerStarted { broker, .. } => self.hws.retain(|_, (leader, _)| leader != broker),
                EventKind::DuplicateAcked { tp, value, .. } => {
                    let producer = (value / VALUES_PER_PRODUCER) as u32;
                    if self.idempotent.contains(&producer) {
                        let detail = format!("{tp}: idempotent producer {producer} wrote m{value} twice");
                        self.broke(Invariant::IdempotentDuplicate, detail);
                    }
                }
                EventKind::AckedRecordsLost { tp, count, leader, cause, .. } => {
                    let clean = cause.election.is_none_or(|el| el.kind != ElectionKind::Unclean);
                    if clean {
                        let detail = format!(
                            "{tp}: broker {leader} leads without {count} acknowledged record(s): {}",
                            e.kind
                        );
                        self.broke(Invariant::LeaderCompleteness, detail);
                    }
                }
                _ => {}
            }
        }
    }

    /// Checks the cluster's state: each ISR within its replicas, holding the leader, never
    /// empty but for a leaderless partition under ELR (KIP-966: `PartitionChangeBuilder`
    /// lets the last member go into the ELR, and `LastKnownElr` then names the last leader);
    /// each leader's HW not below what it was earlier in the same epoch and the same
    /// run of its process.
    pub fn on_state(&mut self, snap: &Snapshot) {
        for p in &snap.partitions {
            let empty_under_elr = p.leader.is_none() && !(p.elr.is_empty() && p.last_known_elr.is_empty());
            if (p.isr.is_empty() && !empty_under_elr) || !p.isr.iter().all(|r| p.replicas.contains(r)) {
                let detail = format!("{}: ISR [{:?}], replicas {:?}", p.tp, p.isr, p.replicas);
                self.broke(Invariant::IsrWithinReplicas, detail);
            }
            if let Some(l) = p.leader.filter(|l| !p.isr.contains(l)) {
                let detail = format!("{}: leader {l} not in ISR {:?}", p.tp, p.isr);
                self.broke(Invariant::IsrWithinReplicas, detail);
            }
            // A leader whose process is down keeps the epoch until the controller fences it;
            // its HW is not served meanwhile.
            let running =
                |l: BrokerId| p.replica_views.iter().any(|r| r.broker == l && r.online && r.is_leader);
            if !p.leader.is_some_and(running) {
                continue;
            }
            let (Some(leader), key) = (p.leader, (p.tp.clone(), p.leader_epoch)) else { continue };
            let (_, high) = *self.hws.entry(key.clone()).or_insert((leader, p.hw));
            self.hws.insert(key, (leader, p.hw));
            if p.hw < high {
                let detail =
                    format!("{} epoch {}: leader {leader}'s HW {} after {high}", p.tp, p.leader_epoch, p.hw);
                self.broke(Invariant::HwMonotonic, detail);
            }
        }
    }
}
