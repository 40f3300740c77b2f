//! Kafka's shared vocabulary, the ground floor every other layer builds on: broker ids,
//! offsets, epochs, sim time in ms, topic-partitions, `acks` and Kafka's error codes. It
//! imports nothing from the rest of the crate.

pub mod errors;

use std::fmt;
use std::sync::Arc;

/// A broker's `node.id` (Kafka uses a 32-bit int; `-1` means "none" on the wire).
pub type BrokerId = i32;

/// Sim time in milliseconds since the run started (Kafka's own unit for every duration).
pub type Ms = u64;

/// A log offset (Kafka `long`).
pub type Offset = i64;

/// A leader epoch or partition epoch (Kafka `int`).
pub type Epoch = i32;

/// Node id of the single KRaft controller in isolated mode. It is never a broker id.
pub const CONTROLLER_ID: i32 = 3000;

/// A topic name plus partition number, displayed as Kafka does: `test_repli-3`.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct TopicPartition {
    /// Topic name.
    pub topic: Arc<str>,
    /// Partition index, from 0.
    pub partition: u32,
}

impl TopicPartition {
    /// Builds a topic-partition.
    pub fn new(topic: impl Into<Arc<str>>, partition: u32) -> Self {
        Self { topic: topic.into(), partition }
    }
}

impl fmt::Display for TopicPartition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.topic, self.partition)
    }
}

/// The producer `acks` setting (rule book R5.1–R5.4).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Acks {
    /// `acks=0`: no response at all.
    Zero,
    /// `acks=1`: the leader's local append suffices.
    One,
    /// `acks=all` (`-1`): every member of the (maximal) ISR must have the record.
    #[default]
    All,
}

impl Acks {
    /// The next value in the cycle 0 → 1 → all → 0 used by the `a` key.
    pub fn cycle(self) -> Self {
        match self {
            Acks::Zero => Acks::One,
            Acks::One => Acks::All,
            Acks::All => Acks::Zero,
        }
    }
}

impl fmt::Display for Acks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Acks::Zero => "0",
            Acks::One => "1",
            Acks::All => "all",
        })
    }
}

/// Formats a list of broker ids the way `kafka-topics.sh --describe` does: `0,1,2`.
pub fn join_ids(ids: &[BrokerId]) -> String {
    let mut out = String::new();
    for (i, id) in ids.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&id.to_string());
    }
    out
}

/// Formats sim time as `HH:MM:SS.t` (tenths of a second), as the header and event log show it.
pub fn format_time(ms: Ms) -> String {
    let tenths = (ms % 1000) / 100;
    let s = ms / 1000;
    format!("{:02}:{:02}:{:02}.{}", s / 3600, (s / 60) % 60, s % 60, tenths)
}
