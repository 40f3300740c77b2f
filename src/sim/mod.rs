//! The sans-IO protocol core: plain structs whose methods take the current sim time and a
//! message and return messages, timers and events. Nothing here touches tokio, the wall clock
//! or a terminal, so every rule can be unit-tested directly.

pub mod assignment;
pub mod audit;
pub mod backoff;
pub mod batches;
pub mod broker;
pub mod connections;
pub mod consumer;
pub mod controller;
pub mod disk;
pub mod error;

pub mod events;
pub mod fetch_session;
pub mod group;
pub mod handling;
pub mod image;
pub mod log;
pub mod loss_cause;
pub mod partition;
pub mod planted;
pub mod producer;
pub mod producer_latency;
pub mod protocol;
pub mod quorum;
pub mod quota;
pub mod raft;
pub mod segments;
pub mod spec;
pub mod wire_client;

pub use crate::kafka::{
    Acks, BrokerId, CONTROLLER_ID, Epoch, Ms, Offset, SimTime, TopicId, TopicIdPartition, TopicPartition,
    fine_stamps, format_instant, format_stamp, format_time, join_ids,
};

/// What a sans-IO component wants done after handling an input: messages to send and events
/// to publish. The runtime task drains it; unit tests inspect it.
#[derive(Clone, Debug, Default)]
pub struct Outbox {
    /// Messages to send, in order.
    pub sends: Vec<(protocol::NodeId, protocol::Message)>,
    /// Events that happened, in order.
    pub events: Vec<events::EventKind>,
    /// Records that became acknowledged (producer side for acks=1/all), or that a leader
    /// appended under acks=0 (never acknowledged; the ledger counts them apart), for the
    /// audit ledger.
    pub acked: Vec<AckedRecords>,
    /// Records a consumer read, for the audit ledger's `seen_erased`.
    pub seen: Vec<SeenRecords>,
    /// Partitions whose log changed shape on some replica (it became leader, or truncated);
    /// the audit ledger re-checks them.
    pub touched: Vec<TopicPartition>,
    /// Records a follower's truncation removed (R7.5, R7.6), for the audit ledger to count
    /// the acknowledged ones among them and the dashboard to show them struck out.
    pub truncations: Vec<Truncation>,
    /// Logs the core fsynced while handling this (`flush.messages`, `flush.ms`, shutdown):
    /// each costs the broker's `slow-disk` delay before it answers anything.
    pub fsyncs: u32,
}

/// Records a producer was told are safe, with where they were written.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct AckedRecords {
    /// The partition.
    pub tp: TopicPartition,
    /// Offset of the first record.
    pub base_offset: Offset,
    /// Leader epoch they were appended in.
    pub leader_epoch: Epoch,
    /// The leader that acknowledged them (for `acks=0`, the one that appended them).
    pub leader: BrokerId,
    /// Payload values, one per record, at consecutive offsets.
    pub values: protocol::Values,
    /// The acks setting they were sent with.
    pub acks: Acks,
    /// The batch was sent more than once (a retry after an error that may have followed its
    /// append): an earlier copy may be in the log, a duplicate (R5.9) unless idempotence
    /// deduplicated it.
    pub retried: bool,
}

/// A follower truncated its log on divergence (`Partition.truncateTo` →
/// `UnifiedLog.truncateTo`, R7.5, R7.6): what it removed.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Truncation {
    /// The truncating broker.
    pub broker: BrokerId,
    /// The partition.
    pub tp: TopicPartition,
    /// Its LEO after the truncation: the first removed offset.
    pub from: Offset,
    /// How many records went (its LEO before minus [`Truncation::from`]).
    pub count: u64,
    /// The removed batches, whole (a truncation never splits a batch).
    pub removed: Vec<protocol::RecordBatch>,
}

/// Records a consumer read (handed to its application), with where they were.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct SeenRecords {
    /// The consumer's index.
    pub consumer: u32,
    /// The partition.
    pub tp: TopicPartition,
    /// Offset of the first record.
    pub base_offset: Offset,
    /// Payload values, one per record, at consecutive offsets.
    pub values: protocol::Values,
}

impl Outbox {
    /// Queues a message.
    pub fn send(&mut self, to: protocol::NodeId, msg: protocol::Message) {
        self.sends.push((to, msg));
    }

    /// Records an event.
    pub fn emit(&mut self, kind: events::EventKind) {
        self.events.push(kind);
    }
}
