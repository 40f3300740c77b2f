//! "Sometimes" coverage: the dangerous states a run reached, so that a check that found no
//! anomaly can show it went where anomalies happen (in the manner of Antithesis's
//! "sometimes" assertions). A summary that never reached one says so.

use crate::cluster::snapshot::Snapshot;
use crate::sim::TopicPartition;
use crate::sim::events::{ClusterEvent, ElectionKind, EventKind};
use std::collections::BTreeSet;

/// A dangerous state a run may reach.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum Danger {
    /// A partition lost its leader while a follower was behind it (its LEO below the
    /// leader's at the last look).
    LeaderLostFollowersBehind,
    /// A partition with more than one replica had an ISR of one.
    IsrOfOne,
    /// An unclean leader election (a leader from outside the ISR, R6.5).
    UncleanElection,
    /// A replica truncated records that had been acknowledged.
    AckedTruncated,
    /// The controller failed over while a partition waited for its election. The cluster has
    /// one controller today, so no run reaches it.
    ControllerFailoverDuringElection,
}

impl Danger {
    /// Every state, in the order the summary lists them.
    pub const ALL: [Danger; 5] = [
        Danger::LeaderLostFollowersBehind,
        Danger::IsrOfOne,
        Danger::UncleanElection,
        Danger::AckedTruncated,
        Danger::ControllerFailoverDuringElection,
    ];

    /// In words.
    pub fn name(self) -> &'static str {
        match self {
            Danger::LeaderLostFollowersBehind => "leader lost with followers behind",
            Danger::IsrOfOne => "ISR of one",
            Danger::UncleanElection => "unclean election",
            Danger::AckedTruncated => "truncation of acknowledged records",
            Danger::ControllerFailoverDuringElection => "controller failover during an election",
        }
    }
}

/// The dangerous states one run reached.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reached {
    /// Each state reached at least once.
    pub states: BTreeSet<Danger>,
    /// Partitions whose followers were behind at the last look.
    behind: BTreeSet<TopicPartition>,
}

impl Reached {
    /// Notes the states events show.
    pub fn on_events(&mut self, events: &[ClusterEvent]) {
        for e in events {
            if let EventKind::LeaderChanged { tp, old_leader: Some(_), kind, .. } = &e.kind {
                if matches!(kind, ElectionKind::Unclean | ElectionKind::UncleanRequested) {
                    self.states.insert(Danger::UncleanElection);
                }
                if self.behind.contains(tp) && !matches!(kind, ElectionKind::Preferred) {
                    self.states.insert(Danger::LeaderLostFollowersBehind);
                }
            }
        }
    }

    /// Notes the states the cluster is in.
    pub fn on_state(&mut self, snap: &Snapshot) {
        self.behind.clear();
        for p in &snap.partitions {
            if p.replicas.len() > 1 && p.isr.len() == 1 {
                self.states.insert(Danger::IsrOfOne);
            }
            let leo = p.replica_views.iter().find(|r| r.is_leader).map(|r| r.leo);
            if leo.is_some_and(|leo| p.replica_views.iter().any(|r| r.leo < leo)) {
                self.behind.insert(p.tp.clone());
            }
            if p.truncations.iter().any(|t| t.acknowledged > 0) {
                self.states.insert(Danger::AckedTruncated);
            }
        }
    }
}
