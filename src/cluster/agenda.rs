//! The simulation's one agenda: everything due at a later sim instant, in the order it runs.
//!
//! Messages in flight, each node's one timer, the end of a node's disk stall, and the
//! runtime's own services (the memory guard, the charts' sampler, a `roll`) are entries of
//! one min-heap keyed by (instant, sequence number). The sequence number is a counter taken
//! when the entry is scheduled, so:
//!
//! **At one instant, entries run in the order they were scheduled.**
//!
//! That rule is isrlab's own: it does not depend on a runtime's timer wheel or task queue, so
//! both drivers ([`super::driver`]) run the same entries in the same order, by construction.
//! Entries that became stale (a timer that was moved, the resume of a process that has since
//! died) stay in the heap and are skipped when taken (lazy deletion): moving a timer costs one
//! push, never a search.

use crate::sim::SimTime;
use crate::sim::protocol::{Message, NodeId};
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A runtime service that runs on sim time (not a node of the cluster).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Service {
    /// The memory guard's check ([`super::world::World::memory_held`]).
    MemoryGuard,
    /// The charts' sampler ([`super::history`]).
    History,
    /// The next step of the `roll` under way ([`super::command::roll`]).
    Roll,
}

/// What an entry does when its instant comes.
#[derive(Clone, Debug)]
pub(crate) enum Due {
    /// A message reaches the end of its link (the network's arrival checks run then).
    Arrive { from: NodeId, to: NodeId, msg: Message },
    /// A node's timer; stale unless `generation` is the node's current timer generation.
    Timer { node: NodeId, generation: u64 },
    /// A node may go on: its disk stall is over, or it has more waiting in its inbox.
    /// Stale unless `life` is the node's current process life (a restart starts a new one).
    Resume { node: NodeId, life: u64 },
    /// A runtime service.
    Service(Service),
}

/// One scheduled entry: what it does (`D`, a `Due` in the simulation) and when.
#[derive(Clone, Debug)]
pub struct Entry<D> {
    /// When it runs.
    pub at: SimTime,
    /// Its place among the entries of the same instant (scheduling order).
    pub seq: u64,
    /// What it does.
    pub what: D,
}

/// An entry's place in the heap: its instant, its sequence number and the slot holding what
/// it does. The heap moves only these small keys; what an entry does (a message of a hundred
/// bytes and more) is moved once in and once out.
#[derive(Clone, Copy, Debug)]
struct Key {
    at: SimTime,
    seq: u64,
    slot: u32,
}

impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}

impl Eq for Key {}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Key {
    /// Reversed, so the heap's top is the earliest (instant, then sequence number).
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

/// The agenda: a min-heap of entries by (instant, scheduling order). Generic over what an
/// entry does so a bench's toy world can run on the same agenda and drivers.
#[derive(Clone)]
pub struct Agenda<D> {
    heap: BinaryHeap<Key>,
    /// What each entry does, by slot; a taken entry's slot is reused.
    slots: Vec<Option<D>>,
    free: Vec<u32>,
    seq: u64,
}

impl<D> Default for Agenda<D> {
    fn default() -> Self {
        Agenda { heap: BinaryHeap::new(), slots: Vec::new(), free: Vec::new(), seq: 0 }
    }
}

impl<D> Agenda<D> {
    /// Schedules `what` at `at`, after every entry already scheduled for that instant.
    pub fn schedule(&mut self, at: SimTime, what: D) {
        let seq = self.take_seq();
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slots[slot as usize] = Some(what);
                slot
            }
            None => {
                self.slots.push(Some(what));
                (self.slots.len() - 1) as u32
            }
        };
        self.heap.push(Key { at, seq, slot });
    }

    /// Takes the next sequence number (also for what waits outside the agenda in send order:
    /// a held link's messages).
    pub fn take_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq - 1
    }

    /// When the next entry runs.
    pub fn next_at(&self) -> Option<SimTime> {
        self.heap.peek().map(|k| k.at)
    }

    /// Takes the next entry if it runs at or before `until`.
    pub fn pop_due(&mut self, until: SimTime) -> Option<Entry<D>> {
        if self.heap.peek()?.at > until {
            return None;
        }
        let Key { at, seq, slot } = self.heap.pop()?;
        let what = self.slots[slot as usize].take()?;
        self.free.push(slot);
        Some(Entry { at, seq, what })
    }

    /// How many entries wait (stale ones included).
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether none waits.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_run_by_instant_then_in_the_order_they_were_scheduled() {
        let mut agenda = Agenda::default();
        let t = SimTime::from_micros;
        agenda.schedule(t(5), Due::Service(Service::History));
        agenda.schedule(t(3), Due::Service(Service::Roll));
        agenda.schedule(t(5), Due::Service(Service::MemoryGuard));
        agenda.schedule(t(3), Due::Timer { node: NodeId::Controller(3000), generation: 1 });
        let mut order = Vec::new();
        while let Some(e) = agenda.pop_due(t(4)) {
            order.push((e.at, format!("{:?}", e.what)));
        }
        assert_eq!(order.len(), 2, "only what is due by the limit");
        assert!(order[0].1.contains("Roll") && order[1].1.contains("Timer"), "{order:?}");
        assert_eq!(agenda.next_at(), Some(t(5)));
        let a = agenda.pop_due(t(5)).unwrap();
        let b = agenda.pop_due(t(5)).unwrap();
        assert!(matches!(a.what, Due::Service(Service::History)));
        assert!(matches!(b.what, Due::Service(Service::MemoryGuard)));
        assert_eq!(agenda.len(), 0);
    }
}
