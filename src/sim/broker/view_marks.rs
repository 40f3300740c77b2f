//! Which of a broker's replicas changed since the dashboard's snapshot last looked:
//! the snapshot rebuilds the views of marked partitions only. Marks change nothing
//! in the simulation; they are read and cleared by [`Broker::take_view_marks`].

use super::Broker;
use crate::sim::TopicPartition;
use std::collections::BTreeSet;

/// The partitions of one broker whose replica state (log, role, leader bookkeeping) may have
/// changed since the marks were last taken.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ViewMarks {
    /// Everything may have changed (a start, crash, power loss or config change): every
    /// partition's view has to be worked out again.
    pub all: bool,
    /// The partitions changed one by one, in (topic, partition) order.
    pub partitions: BTreeSet<TopicPartition>,
}

impl ViewMarks {
    /// Marks `tp`. Costs a lookup, and a clone (of an `Arc` and a number) the first time.
    pub(super) fn mark(&mut self, tp: &TopicPartition) {
        if !self.all && !self.partitions.contains(tp) {
            self.partitions.insert(tp.clone());
        }
    }

    /// Marks every partition.
    pub fn mark_all(&mut self) {
        self.all = true;
        self.partitions.clear();
    }

    /// Adds `other`'s marks to these.
    pub fn merge(&mut self, other: ViewMarks) {
        if other.all {
            self.mark_all();
        } else if !self.all {
            self.partitions.extend(other.partitions);
        }
    }
}

impl Broker {
    /// The partitions marked since the previous call, and clears the marks. Every change to a
    /// replica marks it: [`Broker::touch`] (every handler's change), the fetches sent for it,
    /// the leader's idle-session bookkeeping, the ISR-expiration task's proposals, and
    /// everything at once on a start, crash, power loss or config change.
    pub fn take_view_marks(&mut self) -> ViewMarks {
        std::mem::take(&mut self.view_marks)
    }
}
