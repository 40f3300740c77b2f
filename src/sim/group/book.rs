//! How `__consumer_offsets` records travel in isrlab's logs. A log stores one `u64` per
//! record; a coordinator's record is stored as [`OFFSETS_VALUE_BASE`] plus its index in the
//! cluster's [`OffsetsBook`], which every broker shares, so a broker that becomes leader of an
//! offsets partition can read back what its log holds (Kafka's records carry their key and
//! value bytes themselves).

use super::messages::OffsetsRecord;
use crate::sim::protocol::Values;
use std::sync::{Arc, Mutex};

/// The first value of a `__consumer_offsets` record, far above any producer's values.
pub const OFFSETS_VALUE_BASE: u64 = 1 << 62;

/// The records every coordinator of the cluster wrote, by index (append-only).
#[derive(Clone, Debug, Default)]
pub struct OffsetsBook(Arc<Mutex<Vec<OffsetsRecord>>>);

impl OffsetsBook {
    /// Files `records` and returns the log values that stand for them (a run).
    pub fn add(&self, records: Vec<OffsetsRecord>) -> Values {
        let mut book = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let first = OFFSETS_VALUE_BASE + book.len() as u64;
        let count = records.len() as u32;
        book.extend(records);
        Values::Run { first, stride: 1, count }
    }

    /// A copy with its own records, shared with nothing (a fork of the world copies the book
    /// once and gives the copy to every copied broker).
    pub fn deep_clone(&self) -> OffsetsBook {
        let records = self.0.lock().unwrap_or_else(|e| e.into_inner()).clone();
        OffsetsBook(Arc::new(Mutex::new(records)))
    }

    /// The record a log value stands for (`None` for any other value).
    pub fn get(&self, value: u64) -> Option<OffsetsRecord> {
        let index = usize::try_from(value.checked_sub(OFFSETS_VALUE_BASE)?).ok()?;
        self.0.lock().unwrap_or_else(|e| e.into_inner()).get(index).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::TopicPartition;

    #[test]
    fn values_read_back_as_records() {
        let book = OffsetsBook::default();
        let r = |o| OffsetsRecord::Commit {
            group: "g".into(),
            tp: TopicPartition::new("t", 0),
            offset: o,
            leader_epoch: Some(0),
        };
        let values = book.add(vec![r(1), r(2)]);
        assert_eq!(values.count(), 2);
        assert_eq!(book.get(values.get(1).unwrap()), Some(r(2)));
        assert_eq!(book.get(7), None);
        assert_eq!(book.get(OFFSETS_VALUE_BASE + 2), None);
    }
}
