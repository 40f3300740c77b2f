//! A consumer's [`Membership`] in a classic group: the [`GroupMember`] state machine plugged
//! into the consumer client. It sends the member's requests as [`Message::Group`] with its own
//! correlation ids (so an answer is known to come from the broker it was sent to), sends
//! FindCoordinator to a broker the consumer knows (Kafka's `leastLoadedNode`; isrlab takes the
//! known brokers in turn), and turns the member's events into event-log entries.

use super::member::{GroupMember, MemberOutbox, MemberState};
use crate::sim::consumer::{Membership, OffsetAndEpoch, Start};
use crate::sim::events::EventKind;
use crate::sim::protocol::{Message, NodeId};
use crate::sim::{BrokerId, Ms, Outbox, TopicPartition};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The first correlation id of group requests, apart from the consumer's own fetch and
/// offset requests (a bounced request names its correlation id).
pub const CORRELATION_BASE: u64 = 1 << 40;

/// A consumer's group membership.
#[derive(Clone, Debug)]
pub struct GroupMembership {
    member: GroupMember,
    /// Brokers the consumer's metadata names (leaders of its partitions), for FindCoordinator.
    brokers: Vec<BrokerId>,
    next_lookup: usize,
    /// Requests in flight: correlation id → the broker it went to.
    in_flight: BTreeMap<u64, BrokerId>,
    next_correlation: u64,
}

impl GroupMembership {
    /// A membership driving `member`.
    pub fn new(member: GroupMember) -> Self {
        Self {
            member,
            brokers: vec![],
            next_lookup: 0,
            in_flight: BTreeMap::new(),
            next_correlation: CORRELATION_BASE,
        }
    }

    /// The member state machine.
    pub fn member(&self) -> &GroupMember {
        &self.member
    }

    fn drain(&mut self, mo: MemberOutbox, out: &mut Outbox) {
        for e in mo.events {
            out.emit(EventKind::Group(e));
        }
        for (to, request) in mo.requests {
            let broker = match to {
                Some(b) => b,
                None => {
                    let Some(&b) = self.brokers.get(self.next_lookup % self.brokers.len().max(1)) else {
                        // No broker known yet: the member asks again after its backoff.
                        continue;
                    };
                    self.next_lookup += 1;
                    b
                }
            };
            let correlation_id = self.next_correlation;
            self.next_correlation += 1;
            self.in_flight.insert(correlation_id, broker);
            out.send(NodeId::Broker(broker), Message::Group { correlation_id, request: Box::new(request) });
        }
    }
}

impl Membership for GroupMembership {
    fn clone_box(&self) -> Box<dyn Membership> {
        Box::new(self.clone())
    }

    fn group(&self) -> Option<&str> {
        Some(&self.member.config().group)
    }

    fn assignment(&self, _subscribed: &[TopicPartition]) -> Option<Vec<TopicPartition>> {
        match self.member.state() {
            MemberState::Failed(_) => Some(vec![]),
            _ => Some(self.member.assigned().to_vec()),
        }
    }

    fn start(&self, tp: &TopicPartition) -> Start {
        match self.member.start(tp) {
            None => Start::Pending,
            Some(None) => Start::Reset,
            Some(Some(committed)) => Start::At(committed),
        }
    }

    fn commit(&mut self, now: Ms, offsets: &[(TopicPartition, OffsetAndEpoch)], out: &mut Outbox) {
        for (tp, p) in offsets {
            self.member.set_position(tp.clone(), *p);
        }
        let mut mo = MemberOutbox::default();
        self.member.commit(now, &mut mo);
        self.drain(mo, out);
    }

    fn handle(&mut self, now: Ms, msg: Message, out: &mut Outbox) -> Option<Message> {
        let Message::GroupResponse { correlation_id, response } = msg else { return Some(msg) };
        // An answer to a request the member gave up on is dropped (handled: `None`).
        let from = self.in_flight.remove(&correlation_id)?;
        let mut mo = MemberOutbox::default();
        self.member.handle(now, from, *response, &mut mo);
        self.drain(mo, out);
        None
    }

    fn on_tick(&mut self, now: Ms, out: &mut Outbox) {
        if self.brokers.is_empty() {
            // No metadata yet: nowhere to look the coordinator up.
            return;
        }
        let mut mo = MemberOutbox::default();
        self.member.on_tick(now, &mut mo);
        self.drain(mo, out);
    }

    fn next_deadline(&self) -> Option<Ms> {
        self.member.next_deadline()
    }

    fn on_metadata(&mut self, subscribed: &[TopicPartition], brokers: &[BrokerId]) {
        let mut counts: BTreeMap<Arc<str>, u32> = BTreeMap::new();
        for tp in subscribed {
            let n = counts.entry(tp.topic.clone()).or_default();
            *n = (*n).max(tp.partition + 1);
        }
        self.member.set_metadata(counts);
        self.brokers = brokers.to_vec();
    }

    fn note_positions(&mut self, positions: &[(TopicPartition, OffsetAndEpoch)]) {
        for (tp, p) in positions {
            self.member.set_position(tp.clone(), *p);
        }
    }

    fn on_disconnected(&mut self, _now: Ms, broker: BrokerId, out: &mut Outbox) {
        self.in_flight.retain(|_, b| *b != broker);
        let mut mo = MemberOutbox::default();
        self.member.on_disconnected(broker, &mut mo);
        self.drain(mo, out);
    }

    fn close(&mut self, now: Ms, out: &mut Outbox) {
        let mut mo = MemberOutbox::default();
        self.member.close(now, &mut mo);
        self.drain(mo, out);
    }

    fn view(&self) -> Option<GroupMemberView> {
        let m = &self.member;
        Some(GroupMemberView {
            member_id: m.member_id().to_string(),
            generation: m.generation(),
            coordinator: m.coordinator(),
            state: format!("{:?}", m.state()),
            rebalances: m.rebalances(),
            committed: m.committed().iter().map(|(tp, o)| (tp.clone(), o.offset)).collect(),
        })
    }
}

/// What the dashboard and expectations see of a consumer's group membership.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct GroupMemberView {
    /// Its member id.
    pub member_id: String,
    /// Its generation (`-1` outside one).
    pub generation: i32,
    /// The coordinator it knows.
    pub coordinator: Option<BrokerId>,
    /// The member state.
    pub state: String,
    /// Completed rebalances it took part in.
    pub rebalances: u32,
    /// Offsets the coordinator confirmed, per partition.
    pub committed: Vec<(TopicPartition, crate::sim::Offset)>,
}
