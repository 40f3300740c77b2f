//! Why acknowledged records were lost, in plain words: how they were acknowledged (the audit
//! ledger keeps that with every acknowledged batch) and how the leader whose log lacks them
//! came to lead (the latest election's event). The event log's loss line and the logs pane's
//! loss note both print this one text.
//!
//! The three ways Kafka loses acknowledged records, each a path in its source:
//! - `acks=1` (or 0): `ReplicaManager.appendRecords` answers as soon as
//!   `Partition.appendRecordsToLeader` has appended to the leader's log, since it parks a
//!   `DelayedProduce` only for `acks=-1` (`ReplicaManager.delayedProduceRequestRequired`),
//!   before any follower fetched; a clean election (`PartitionChangeBuilder.electLeader`, the
//!   first live ISR member) may then pick a follower still in the ISR that had not fetched them.
//! - `acks=all` with an ISR of one: `DelayedProduce.tryComplete` asks
//!   `Partition.checkEnoughReplicasReachOffset`, which waits only for the HW to pass the batch;
//!   `Partition.maybeIncrementLeaderHW` (the lowest LEO over the maximal ISR, and over caught-up
//!   followers about to join it) lets the leader alone move it when it is the whole ISR, and
//!   `min.insync.replicas=1` lets that ISR take writes.
//! - an unclean election (`unclean.leader.election.enable`, or `kafka-leader-election.sh
//!   --election-type unclean`): a replica outside the ISR leads with whatever it has.
//!
//! The old leader then truncates the records when it follows the new one: the new leader's
//! fetch response names the diverging epoch (KIP-320 truncation on fetch, answered from its
//! leader-epoch cache), and the follower's `AbstractFetcherThread.truncateOnFetchResponse`
//! truncates through `ReplicaFetcherThread.truncate` → `Partition.truncateTo` →
//! `UnifiedLog.truncateTo`.

use super::events::ElectionKind;
use super::{Acks, BrokerId, Epoch, join_ids};
use std::fmt;
use std::sync::Arc;

/// How one batch of records was acknowledged to its producer.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct AckedUnder {
    /// The producer's `acks` setting for the batch.
    pub acks: Acks,
    /// The leader that acknowledged (for `acks=0`, appended) the batch.
    pub leader: BrokerId,
    /// The leader epoch it was appended in.
    pub leader_epoch: Epoch,
    /// That leader's ISR when the acknowledgement went out (its maximal ISR, the one its HW
    /// waits for). Shared between batches acknowledged under the same ISR.
    pub isr: Arc<[BrokerId]>,
}

/// A partition's latest leader change, as the controller's event reported it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Election {
    /// Which rule chose the leader.
    pub kind: ElectionKind,
    /// The leader before, `None` if the partition was offline.
    pub old_leader: Option<BrokerId>,
    /// The leader chosen.
    pub new_leader: BrokerId,
    /// The new leader epoch.
    pub leader_epoch: Epoch,
}

/// Why acknowledged records are lost: how they were acknowledged, which leader's log now
/// decides without them, and the election that made it leader (when the ledger saw one for
/// that leader).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct LossCause {
    /// How the first lost batch was acknowledged.
    pub acked: AckedUnder,
    /// Other ways later lost batches were acknowledged (another leader, ISR or `acks`), in
    /// offset order; usually empty. A loss that spans a failover has one per leader.
    pub also: Vec<AckedUnder>,
    /// The leader whose log now decides and lacks them.
    pub deciding: BrokerId,
    /// The election that made `deciding` leader, if it was the latest one seen.
    pub election: Option<Election>,
}

impl LossCause {
    /// The same story in one 80-column line's words, for a pane with little room: `acks=1,
    /// not yet on broker 2; it won a clean election`.
    pub fn brief(&self) -> String {
        let AckedUnder { acks, leader: n, ref isr, .. } = self.acked;
        let m = self.deciding;
        let (how, who) = match acks {
            Acks::Zero | Acks::One if m == n => (format!("acks={acks}, on no follower"), "it"),
            Acks::Zero | Acks::One => (format!("acks={acks}, not yet on broker {m}"), "it"),
            Acks::All if isr.len() <= 1 => (format!("acks=all, ISR only leader {n}"), ""),
            Acks::All => (format!("acks=all, ISR {}", join_ids(isr)), ""),
        };
        if m == n {
            return format!("{how}; a power loss took them from leader {n}");
        }
        let who = if who.is_empty() { format!("broker {m}") } else { who.to_string() };
        let then = match self.election.filter(|e| e.new_leader == m).map(|e| e.kind) {
            Some(ElectionKind::Clean) => "won a clean election",
            Some(ElectionKind::Unclean | ElectionKind::UncleanRequested) => "won an UNCLEAN election",
            Some(ElectionKind::Eligible) => "was elected from the eligible leader replicas",
            Some(ElectionKind::LastKnownLeader) => "was elected as the last known leader",
            _ => "became leader",
        };
        format!("{how}; {who} {then}")
    }
}

impl fmt::Display for LossCause {
    /// E.g. `leader 1 acknowledged them under acks=1 as soon as it had written them, before
    /// broker 2 copied them; leader 1 was fenced and broker 2, whose log lacks them, won a
    /// clean election (leader epoch 1), so broker 1 truncates them when it follows`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.acked.leader;
        let m = self.deciding;
        write!(f, "{}", acknowledged(&self.acked, "them", m))?;
        for later in self.also.iter().take(SHOWN_WAYS) {
            write!(f, "; {}", acknowledged(later, "later ones", m))?;
        }
        if let Some(more) = self.also.len().checked_sub(SHOWN_WAYS).filter(|&k| k > 0) {
            write!(f, "; and {more} more way(s), under other ISRs")?;
        }
        if m == n {
            // Only a power loss takes records from a leader's own log (the unflushed tail).
            return write!(
                f,
                "; its own log no longer has them (a power loss took the tail it had not yet written to disk)"
            );
        }
        match self.election.filter(|e| e.new_leader == m) {
            Some(e) => {
                let epoch = e.leader_epoch;
                let before = match (e.kind, e.old_leader) {
                    (ElectionKind::ControlledShutdown, Some(old)) => format!("leader {old} shut down and "),
                    (_, None) => "the partition had no leader and ".to_string(),
                    (ElectionKind::Clean | ElectionKind::Unclean, Some(old)) => {
                        format!("leader {old} was fenced and ")
                    }
                    (_, Some(_)) => String::new(),
                };
                let (how, why) = match e.kind {
                    ElectionKind::Clean => ("won a clean election", ""),
                    ElectionKind::Unclean => (
                        "won an UNCLEAN election from outside the ISR",
                        "unclean.leader.election.enable=true, ",
                    ),
                    ElectionKind::UncleanRequested => {
                        ("won an UNCLEAN election from outside the ISR", "an operator asked for it, ")
                    }
                    ElectionKind::ControlledShutdown => ("took over as leader", ""),
                    ElectionKind::Preferred => ("became leader as the preferred replica", ""),
                    ElectionKind::Recovered => ("became leader when it came back", ""),
                    ElectionKind::Requested => ("became leader in an election an operator asked for", ""),
                    ElectionKind::Reassignment => ("became leader when a reassignment moved it", ""),
                    ElectionKind::Eligible => ("was elected from the eligible leader replicas", ""),
                    ElectionKind::LastKnownLeader => (
                        "was elected as the last known leader, outside the ISR and the ELR",
                        "no ISR or ELR member was left, ",
                    ),
                };
                write!(f, "; {before}broker {m}, whose log lacks them, {how} ({why}leader epoch {epoch})")?;
            }
            None => write!(f, "; broker {m}, whose log lacks them, leads now")?,
        }
        let mut holders: Vec<BrokerId> = Vec::new();
        for a in std::iter::once(&self.acked).chain(&self.also) {
            if a.leader != m && !holders.contains(&a.leader) {
                holders.push(a.leader);
            }
        }
        match holders.as_slice() {
            [one] => write!(f, ", so broker {one} truncates them when it follows"),
            many => write!(f, ", so brokers {} truncate them when they follow", join_ids(many)),
        }
    }
}

/// How many of the later ways of acknowledging a loss the text spells out.
const SHOWN_WAYS: usize = 2;

/// How one way of acknowledging lost records reads: `leader 1 acknowledged them under acks=1
/// as soon as it had written them (leader epoch 0), before broker 2 copied them`. `what` names
/// the records (`them`, `later ones`); `deciding` is the leader whose log lacks them.
fn acknowledged(a: &AckedUnder, what: &str, deciding: BrokerId) -> String {
    let AckedUnder { acks, leader: n, leader_epoch, ref isr } = *a;
    let copier = if deciding == n { "any follower".to_string() } else { format!("broker {deciding}") };
    match acks {
        Acks::Zero => {
            format!(
                "leader {n} appended {what} under acks=0 (leader epoch {leader_epoch}), before {copier} copied them"
            )
        }
        Acks::One => format!(
            "leader {n} acknowledged {what} under acks=1 as soon as it had written them (leader epoch \
             {leader_epoch}), before {copier} copied them"
        ),
        Acks::All if isr.len() <= 1 => format!(
            "leader {n} acknowledged {what} under acks=all while its ISR was only itself (an ISR of one \
             that min.insync.replicas allowed), so no follower had to have them"
        ),
        Acks::All => {
            format!("leader {n} acknowledged {what} under acks=all once ISR {} had them", join_ids(isr))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cause(acks: Acks, isr: &[BrokerId], kind: Option<ElectionKind>) -> LossCause {
        LossCause {
            acked: AckedUnder { acks, leader: 1, leader_epoch: 0, isr: isr.into() },
            also: Vec::new(),
            deciding: 2,
            election: kind.map(|kind| Election { kind, old_leader: Some(1), new_leader: 2, leader_epoch: 1 }),
        }
    }

    #[test]
    fn each_way_of_losing_records_is_named() {
        assert_eq!(
            cause(Acks::One, &[1, 2], Some(ElectionKind::Clean)).to_string(),
            "leader 1 acknowledged them under acks=1 as soon as it had written them (leader epoch 0), before \
             broker 2 copied them; leader 1 was fenced and broker 2, whose log lacks them, won a clean \
             election (leader epoch 1), so broker 1 truncates them when it follows"
        );
        assert_eq!(
            cause(Acks::All, &[1], Some(ElectionKind::Unclean)).to_string(),
            "leader 1 acknowledged them under acks=all while its ISR was only itself (an ISR of one that \
             min.insync.replicas allowed), so no follower had to have them; leader 1 was fenced and broker \
             2, whose log lacks them, won an UNCLEAN election from outside the ISR \
             (unclean.leader.election.enable=true, leader epoch 1), so broker 1 truncates them when it follows"
        );
        assert_eq!(
            cause(Acks::All, &[1, 0], None).to_string(),
            "leader 1 acknowledged them under acks=all once ISR 1,0 had them; broker 2, whose log lacks \
             them, leads now, so broker 1 truncates them when it follows"
        );
    }

    /// A loss that spans a failover: leader 1 acknowledged the first records with ISR 1,0,
    /// then leader 0, alone in the ISR, the later ones; both truncate them under broker 2.
    #[test]
    fn a_loss_across_a_failover_names_each_leader() {
        let mut c = cause(Acks::All, &[1, 0], Some(ElectionKind::UncleanRequested));
        c.election = c.election.map(|e| Election { old_leader: None, ..e });
        c.also.push(AckedUnder { acks: Acks::All, leader: 0, leader_epoch: 1, isr: Arc::from([0]) });
        assert_eq!(
            c.to_string(),
            "leader 1 acknowledged them under acks=all once ISR 1,0 had them; leader 0 acknowledged later \
             ones under acks=all while its ISR was only itself (an ISR of one that min.insync.replicas \
             allowed), so no follower had to have them; the partition had no leader and broker 2, whose log \
             lacks them, won an UNCLEAN election from outside the ISR (an operator asked for it, leader epoch \
             1), so brokers 1,0 truncate them when they follow"
        );
    }

    #[test]
    fn the_brief_form_names_the_setting_and_the_election() {
        assert_eq!(
            cause(Acks::One, &[1, 2], Some(ElectionKind::Clean)).brief(),
            "acks=1, not yet on broker 2; it won a clean election"
        );
        assert_eq!(
            cause(Acks::All, &[1], Some(ElectionKind::UncleanRequested)).brief(),
            "acks=all, ISR only leader 1; broker 2 won an UNCLEAN election"
        );
        assert_eq!(cause(Acks::Zero, &[1, 2], None).brief(), "acks=0, not yet on broker 2; it became leader");
    }

    #[test]
    fn a_leader_that_lost_its_own_records_says_so() {
        let mut c = cause(Acks::One, &[1], None);
        c.deciding = 1;
        assert!(c.to_string().ends_with(
            "before any follower copied them; its own log no longer has them (a power loss took the tail it \
             had not yet written to disk)"
        ));
    }
}
