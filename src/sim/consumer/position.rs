//! One assigned partition's fetch state and position (Java `SubscriptionState.TopicPartitionState`
//! with `FetchPosition`), and what the answers of the leader do to it: records read, an
//! out-of-range position, a ListOffsets answer, and the KIP-320 validation
//! (`SubscriptionState.maybeCompleteValidation`).

use super::membership::OffsetAndEpoch;
use crate::config::AutoOffsetReset;
use crate::sim::events::EventKind;
use crate::sim::protocol::{EpochEndOffset, RecordBatch, Values};
use crate::sim::{BrokerId, Epoch, Ms, Offset, SeenRecords, TopicPartition};

/// Where an assigned partition stands (Java `FetchStates`).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum FetchState {
    /// Just assigned; waiting to learn where it starts.
    Initializing,
    /// To be reset by `auto.offset.reset` (`AWAIT_RESET`), for the given reason.
    AwaitReset(String),
    /// The position must be checked against the leader's log (`AWAIT_VALIDATION`, KIP-320).
    AwaitValidation,
    /// Fetching from the position (`FETCHING`).
    Fetching,
    /// Stopped with Kafka's exception (`auto.offset.reset=none`).
    Stopped(String),
}

impl FetchState {
    /// A short word for the dashboard.
    pub fn word(&self) -> &'static str {
        match self {
            FetchState::Initializing => "init",
            FetchState::AwaitReset(_) => "reset",
            FetchState::AwaitValidation => "validate",
            FetchState::Fetching => "fetch",
            FetchState::Stopped(_) => "stopped",
        }
    }
}

/// An offset request in flight for the partition (ListOffsets or OffsetsForLeaderEpoch).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Pending {
    /// Its correlation id.
    pub correlation_id: u64,
    /// The broker it went to.
    pub broker: BrokerId,
    /// When the consumer gives up on it (ms).
    pub timeout_at: Ms,
}

/// One assigned partition.
#[derive(Clone, Debug)]
pub struct Assigned {
    /// The partition.
    pub tp: TopicPartition,
    /// Its state.
    pub state: FetchState,
    /// The next offset to read and the epoch of the last record read, once known.
    pub position: Option<OffsetAndEpoch>,
    /// An offset request in flight.
    pub pending: Option<Pending>,
    /// No offset request before this time (ms; `retry.backoff.ms` after a failed one).
    pub retry_at: Ms,
    /// The HW the last fetch response reported.
    pub high_watermark: Option<Offset>,
    /// Records read so far (returned to the application by a poll).
    pub consumed: u64,
    /// Batches a fetch brought that no poll has returned yet (the partition's `CompletedFetch`
    /// in Java's `FetchBuffer`); no new fetch is sent for the partition while it holds any
    /// (`AbstractFetch.fetchablePartitions` leaves buffered partitions out).
    pub buffered: Vec<RecordBatch>,
}

impl Assigned {
    /// A partition just assigned.
    pub fn new(tp: TopicPartition) -> Self {
        Self {
            tp,
            state: FetchState::Initializing,
            position: None,
            pending: None,
            retry_at: 0,
            high_watermark: None,
            consumed: 0,
            buffered: Vec::new(),
        }
    }

    /// Seeks to `position` unvalidated (`seekUnvalidated`): with the epoch of its last record
    /// known it is validated first, else fetched from at once.
    pub fn seek_unvalidated(&mut self, position: OffsetAndEpoch) {
        self.position = Some(position);
        self.state = match position.leader_epoch {
            Some(_) => FetchState::AwaitValidation,
            None => FetchState::Fetching,
        };
    }

    /// The leader's epoch went up: a position with an epoch is validated again before the
    /// next fetch (`SubscriptionState.maybeValidatePositionForCurrentLeader`).
    pub fn leader_changed(&mut self) {
        if self.state == FetchState::Fetching && self.position.is_some_and(|p| p.leader_epoch.is_some()) {
            self.state = FetchState::AwaitValidation;
        }
    }

    /// Keeps the batches of a fetch response for the application's polls.
    pub fn buffer(&mut self, batches: Vec<RecordBatch>) {
        self.buffered = batches;
    }

    /// Returns up to `limit` buffered records from the position on, as one poll does
    /// (`FetchCollector.fetchRecords` with the records a `max.poll.records` poll has left):
    /// moves the position past them (epoch of their batch), counts them, drops what the
    /// position has passed, and returns what the application saw. Nothing is returned, and
    /// the buffer is dropped, unless the partition is fetching (`SubscriptionState.isFetchable`:
    /// a partition being reset or validated discards what it had fetched).
    pub fn take_records(&mut self, consumer: u32, limit: u64) -> Vec<SeenRecords> {
        let mut seen = Vec::new();
        if self.state != FetchState::Fetching {
            self.buffered.clear();
            return seen;
        }
        let mut left = limit;
        for b in &self.buffered {
            let Some(pos) = self.position else { break };
            if left == 0 {
                break;
            }
            if b.next_offset() <= pos.offset {
                continue;
            }
            let from = pos.offset.max(b.base_offset);
            let skip = (from - b.base_offset) as usize;
            let end = (b.values.len() as u64).min(skip as u64 + left) as usize;
            let values: Values = (skip..end).filter_map(|i| b.values.get(i)).collect();
            let n = values.len() as u64;
            self.consumed += n;
            left -= n;
            seen.push(SeenRecords { consumer, tp: self.tp.clone(), base_offset: from, values });
            let offset = from + n as Offset;
            self.position = Some(OffsetAndEpoch { offset, leader_epoch: Some(b.leader_epoch) });
        }
        let pos = self.position.map_or(Offset::MAX, |p| p.offset);
        self.buffered.retain(|b| b.next_offset() > pos);
        seen
    }

    /// The leader answered OFFSET_OUT_OF_RANGE for the position (`FetchCollector.handleOffsetOutOfRange`):
    /// reset by the policy, or stop without one.
    pub fn out_of_range(&mut self, consumer: u32, policy: AutoOffsetReset) -> Option<EventKind> {
        let offset = self.position.map_or(-1, |p| p.offset);
        match policy {
            AutoOffsetReset::None => Some(self.stop(
                consumer,
                format!(
                    "OffsetOutOfRangeException: fetch position {offset} is out of range for partition {}",
                    self.tp
                ),
            )),
            _ => {
                self.state = FetchState::AwaitReset(format!("OFFSET_OUT_OF_RANGE for position {offset}"));
                None
            }
        }
    }

    /// Stops the partition with `error` (`auto.offset.reset=none`).
    pub fn stop(&mut self, consumer: u32, error: String) -> EventKind {
        self.state = FetchState::Stopped(error.clone());
        EventKind::ConsumerPartitionStopped { consumer, tp: self.tp.clone(), error }
    }

    /// A ListOffsets answer for a reset by `strategy`: seeks there, unvalidated
    /// (`SubscriptionState.maybeSeekUnvalidated`, "Resetting offset for partition …").
    pub fn reset_to(
        &mut self,
        consumer: u32,
        strategy: AutoOffsetReset,
        offset: Offset,
        epoch: Epoch,
    ) -> EventKind {
        let why = match &self.state {
            FetchState::AwaitReset(why) => why.clone(),
            _ => String::new(),
        };
        self.seek_unvalidated(OffsetAndEpoch { offset, leader_epoch: Some(epoch) });
        EventKind::ConsumerOffsetReset {
            consumer,
            tp: self.tp.clone(),
            strategy: strategy.name(),
            offset,
            why,
        }
    }

    /// The leader's answer to the KIP-320 validation of the position
    /// (`SubscriptionState.maybeCompleteValidation`): an undefined end resets by the policy; an
    /// end below the position means the log was truncated under the consumer, which seeks to
    /// that end (the first offset known to diverge) with a policy, and stops without one
    /// (`LogTruncationException`); otherwise the position stands.
    pub fn validated(
        &mut self,
        consumer: u32,
        end: EpochEndOffset,
        policy: AutoOffsetReset,
    ) -> Option<EventKind> {
        let position = self.position?.offset;
        let tp = self.tp.clone();
        if end.end_offset < 0 || end.epoch < 0 {
            if policy == AutoOffsetReset::None {
                return Some(self.stop(
                    consumer,
                    format!("LogTruncationException: truncation detected at position {position}; the leader knows no end for its epoch"),
                ));
            }
            // Kafka resets by the policy ("Truncation detected … resetting offset"); the reset's
            // event says why.
            self.state = FetchState::AwaitReset(format!(
                "truncation detected at position {position}: the leader knows no end for the epoch of its last record"
            ));
            return None;
        }
        if end.end_offset >= position {
            self.state = FetchState::Fetching;
            return None;
        }
        if policy == AutoOffsetReset::None {
            self.state = FetchState::Stopped(format!(
                "LogTruncationException: truncation detected at position {position}; the first offset known to diverge is {}",
                end.end_offset
            ));
            return Some(EventKind::ConsumerTruncationDetected {
                consumer,
                tp,
                position,
                end_offset: end.end_offset,
                reset_to: None,
            });
        }
        self.position = Some(OffsetAndEpoch { offset: end.end_offset, leader_epoch: Some(end.epoch) });
        self.state = FetchState::Fetching;
        Some(EventKind::ConsumerTruncationDetected {
            consumer,
            tp,
            position,
            end_offset: end.end_offset,
            reset_to: Some(end.end_offset),
        })
    }
}
