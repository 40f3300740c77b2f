//! The seam between a consumer and its group: which partitions it owns, where a newly owned
//! partition starts, and where its commits go. A consumer without a group uses
//! [`Standalone`] (Java `KafkaConsumer.assign()` of every partition of its topics); the group
//! member (classic protocol: join, sync, heartbeat, `__consumer_offsets`) implements the
//! same trait and is plugged in with [`super::ConsumerClient::with_membership`].

use crate::sim::group::membership::GroupMemberView;
use crate::sim::protocol::Message;
use crate::sim::{BrokerId, Epoch, Ms, Offset, Outbox, TopicPartition};
use std::fmt;

/// A position with the epoch of the record before it (Java `OffsetAndMetadata` with its
/// `leaderEpoch`, as committed and as `SubscriptionState.FetchPosition` holds it).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct OffsetAndEpoch {
    /// The next offset to read.
    pub offset: Offset,
    /// Leader epoch of the last record read, when known (KIP-320).
    pub leader_epoch: Option<Epoch>,
}

impl OffsetAndEpoch {
    /// `offset` with no known leader epoch (a commit made without one, as clients before
    /// KIP-320 made them).
    pub const fn at(offset: Offset) -> Self {
        OffsetAndEpoch { offset, leader_epoch: None }
    }
}

/// Where a newly owned partition starts.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Start {
    /// Not known yet (the committed offsets are being fetched): wait.
    Pending,
    /// No committed offset: reset by `auto.offset.reset`.
    Reset,
    /// At a committed offset (validated against the leader's log first, KIP-320).
    At(OffsetAndEpoch),
}

/// Where a consumer's partitions come from and where its commits go. Every method but
/// [`Membership::assignment`], [`Membership::start`] and [`Membership::commit`] has a default
/// for a membership without a protocol of its own.
pub trait Membership: fmt::Debug {
    /// A copy of it (a fork of the world copies every consumer).
    fn clone_box(&self) -> Box<dyn Membership>;

    /// Its `group.id`, if any.
    fn group(&self) -> Option<&str>;

    /// The partitions the consumer owns now, out of `subscribed` (every partition of its
    /// topics the metadata knows, in order); `None` while that is not known (a rebalance under
    /// way): the consumer then fetches nothing and keeps what it has.
    fn assignment(&self, subscribed: &[TopicPartition]) -> Option<Vec<TopicPartition>>;

    /// Where a partition the consumer was just given starts (`ConsumerCoordinator.refreshCommittedOffsets`).
    fn start(&self, tp: &TopicPartition) -> Start;

    /// Commits `offsets` (auto-commit every `auto.commit.interval.ms`, or the group's own
    /// commits before a rebalance): `OffsetCommit` to the group coordinator.
    fn commit(&mut self, now: Ms, offsets: &[(TopicPartition, OffsetAndEpoch)], out: &mut Outbox);

    /// A message of the group protocol; returns it if it is not one.
    fn handle(&mut self, _now: Ms, msg: Message, _out: &mut Outbox) -> Option<Message> {
        Some(msg)
    }

    /// Fires the membership's timers (heartbeats, session and rebalance timeouts).
    fn on_tick(&mut self, _now: Ms, _out: &mut Outbox) {}

    /// When [`Membership::on_tick`] next has work (ms).
    fn next_deadline(&self) -> Option<Ms> {
        None
    }

    /// The consumer's metadata: every partition of its topics, and the brokers that lead
    /// them (where a group member can look its coordinator up).
    fn on_metadata(&mut self, _subscribed: &[TopicPartition], _brokers: &[BrokerId]) {}

    /// The consumer's current positions (a group member commits them before a rebalance).
    fn note_positions(&mut self, _positions: &[(TopicPartition, OffsetAndEpoch)]) {}

    /// The connection to `broker` broke.
    fn on_disconnected(&mut self, _now: Ms, _broker: BrokerId, _out: &mut Outbox) {}

    /// The consumer closes (`KafkaConsumer.close`): a group member commits and leaves.
    fn close(&mut self, _now: Ms, _out: &mut Outbox) {}

    /// The group side of the consumer, for the dashboard and expectations (`None` without a
    /// group).
    fn view(&self) -> Option<GroupMemberView> {
        None
    }
}

/// No group: the consumer is assigned every partition of its topics as the metadata knows
/// them (Java `assign()` of them all), starts every partition by `auto.offset.reset`, and
/// never commits (a consumer without `group.id` cannot: `enable.auto.commit` is off, and
/// `commitSync` throws `InvalidGroupIdException`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Standalone;

impl Clone for Box<dyn Membership> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

impl Membership for Standalone {
    fn clone_box(&self) -> Box<dyn Membership> {
        Box::new(*self)
    }

    fn group(&self) -> Option<&str> {
        None
    }

    fn assignment(&self, subscribed: &[TopicPartition]) -> Option<Vec<TopicPartition>> {
        Some(subscribed.to_vec())
    }

    fn start(&self, _tp: &TopicPartition) -> Start {
        Start::Reset
    }

    fn commit(&mut self, _now: Ms, _offsets: &[(TopicPartition, OffsetAndEpoch)], _out: &mut Outbox) {}
}
