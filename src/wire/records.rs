//! Record batches between the wire and the simulation. A real producer's batch is kept
//! verbatim (its bytes, in [`RecordStore`]) while the simulated log holds its header and one
//! unique value per record; a fetch answers with the kept bytes, the base offset and the
//! partition leader epoch rewritten as the leader's `UnifiedLog.append` assigns them (both
//! precede the CRC, which covers only the bytes from `attributes` on: `DefaultRecordBatch`).
//! A simulated producer's records, which have no bytes, are written as records whose value
//! is their `m<value>` name.

use crate::sim::protocol::{Batch, RecordBatch, Values};
use bytes::{Buf, BufMut, Bytes, BytesMut};
use kafka_protocol::records::{Compression, Record, RecordBatchEncoder, RecordEncodeOptions, TimestampType};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// `DefaultRecordBatch.RECORD_BATCH_OVERHEAD`: the v2 header's size.
const HEADER: usize = 61;
/// Where the v2 header keeps its fields (`DefaultRecordBatch`).
const LENGTH_AT: usize = 8;
const EPOCH_AT: usize = 12;
const MAGIC_AT: usize = 16;
const MAX_TIMESTAMP_AT: usize = 35;
const PRODUCER_ID_AT: usize = 43;
const BASE_SEQUENCE_AT: usize = 53;
const COUNT_AT: usize = 57;

/// The first value real clients' records take: far above any simulated producer's.
const FIRST_WIRE_VALUE: u64 = 1 << 60;

/// The bytes of real producers' batches, by the first value of the simulated batch that
/// stands for them.
#[derive(Debug)]
pub struct RecordStore {
    next_value: AtomicU64,
    batches: Mutex<BTreeMap<u64, Bytes>>,
}

impl Default for RecordStore {
    fn default() -> Self {
        RecordStore { next_value: AtomicU64::new(FIRST_WIRE_VALUE), batches: Mutex::default() }
    }
}

/// Why a produce request's records cannot be read (`CORRUPT_MESSAGE`,
/// `UNSUPPORTED_FOR_MESSAGE_FORMAT`, `INVALID_RECORD`).
#[derive(Debug, PartialEq, Eq)]
pub struct BadRecords(pub String);

impl RecordStore {
    /// Reads one partition's records of a produce request: exactly one v2 batch, as Kafka
    /// requires since produce v3 (`ProduceRequest.validateRecords`). Keeps its bytes and
    /// returns the batch the simulated leader appends. Errors: not one whole v2 batch.
    pub fn accept(&self, records: &Bytes) -> Result<Batch, BadRecords> {
        if records.len() < HEADER {
            return Err(BadRecords(format!("{} bytes is shorter than a batch header", records.len())));
        }
        let length = (&records[LENGTH_AT..]).get_i32();
        if usize::try_from(length).ok().map(|l| l + 12) != Some(records.len()) {
            return Err(BadRecords("a produce request must carry exactly one record batch".into()));
        }
        if records[MAGIC_AT] != 2 {
            return Err(BadRecords(format!("record format v{} (only v2 is accepted)", records[MAGIC_AT])));
        }
        let count = (&records[COUNT_AT..]).get_i32();
        let count = u32::try_from(count)
            .ok()
            .filter(|c| *c > 0)
            .ok_or_else(|| BadRecords("a batch without records".into()))?;
        let first = self.next_value.fetch_add(u64::from(count), Ordering::Relaxed);
        let record_bytes = u32::try_from(records.len() - HEADER).unwrap_or(u32::MAX);
        let batch = Batch {
            producer_id: (&records[PRODUCER_ID_AT..]).get_i64(),
            base_sequence: (&records[BASE_SEQUENCE_AT..]).get_i32(),
            values: Values::range(first, count),
            record_size: record_bytes.div_ceil(count),
            max_timestamp: u64::try_from((&records[MAX_TIMESTAMP_AT..]).get_i64()).unwrap_or(0),
        };
        self.batches.lock().unwrap_or_else(|e| e.into_inner()).insert(first, records.clone());
        Ok(batch)
    }

    /// The bytes a fetch answer carries for `batches`, in order.
    pub fn encode(&self, batches: &[RecordBatch]) -> Bytes {
        let mut out = BytesMut::new();
        let kept = self.batches.lock().unwrap_or_else(|e| e.into_inner());
        for b in batches {
            match b.values.get(0).and_then(|v| kept.get(&v)) {
                Some(raw) => {
                    let start = out.len();
                    out.extend_from_slice(raw);
                    out[start..start + 8].copy_from_slice(&b.base_offset.to_be_bytes());
                    out[start + EPOCH_AT..start + EPOCH_AT + 4]
                        .copy_from_slice(&b.leader_epoch.to_be_bytes());
                }
                None => synthesize(b, &mut out),
            }
        }
        out.freeze()
    }
}

/// Writes a simulated producer's batch as a v2 batch whose records' values name them.
fn synthesize(b: &RecordBatch, out: &mut BytesMut) {
    let records: Vec<Record> = b
        .values
        .iter()
        .enumerate()
        .map(|(i, v)| Record {
            transactional: false,
            control: false,
            delete_horizon: false,
            partition_leader_epoch: b.leader_epoch,
            producer_id: b.producer_id,
            producer_epoch: if b.producer_id < 0 { -1 } else { 0 },
            timestamp_type: TimestampType::Creation,
            offset: b.base_offset + i as i64,
            // The encoder keeps records in one batch while offset − sequence stays the same and
            // writes the first record's sequence: a batch without idempotence keeps -1.
            sequence: if b.base_sequence < 0 {
                b.base_sequence.wrapping_add(i as i32)
            } else {
                crate::sim::protocol::sequence_after(b.base_sequence, i as u32)
            },
            timestamp: i64::try_from(b.max_timestamp).unwrap_or(0),
            key: None,
            value: Some(Bytes::from(format!("m{v}"))),
            headers: Default::default(),
        })
        .collect();
    let options = RecordEncodeOptions { version: 2, compression: Compression::None };
    let mut buf = BytesMut::new();
    if RecordBatchEncoder::encode(&mut buf, records.iter(), &options).is_ok() {
        out.put(buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch_bytes(values: &[&str]) -> Bytes {
        let records: Vec<Record> = values
            .iter()
            .enumerate()
            .map(|(i, v)| Record {
                transactional: false,
                control: false,
                delete_horizon: false,
                partition_leader_epoch: -1,
                producer_id: -1,
                producer_epoch: -1,
                timestamp_type: TimestampType::Creation,
                offset: i as i64,
                sequence: i as i32 - 1,
                timestamp: 1000,
                key: None,
                value: Some(Bytes::from(v.to_string())),
                headers: Default::default(),
            })
            .collect();
        let mut buf = BytesMut::new();
        let options = RecordEncodeOptions { version: 2, compression: Compression::None };
        RecordBatchEncoder::encode(&mut buf, records.iter(), &options).unwrap();
        buf.freeze()
    }

    #[test]
    fn a_batch_comes_back_verbatim_with_its_offset_and_epoch_rewritten() {
        let store = RecordStore::default();
        let raw = batch_bytes(&["a", "b", "c"]);
        let batch = store.accept(&raw).unwrap();
        assert_eq!(batch.values.count(), 3);
        let stored = RecordBatch {
            base_offset: 40,
            leader_epoch: 7,
            producer_id: -1,
            base_sequence: -1,
            size_bytes: raw.len() as u32,
            max_timestamp: 1000,
            values: batch.values,
        };
        let mut out = store.encode(&[stored]);
        let back = kafka_protocol::records::RecordBatchDecoder::decode(&mut out).unwrap();
        let offsets: Vec<i64> = back.records.iter().map(|r| r.offset).collect();
        assert_eq!(offsets, [40, 41, 42]);
        assert!(back.records.iter().all(|r| r.partition_leader_epoch == 7));
        assert_eq!(back.records[1].value.as_deref(), Some(&b"b"[..]));
    }

    #[test]
    fn truncated_or_doubled_batches_are_refused() {
        let store = RecordStore::default();
        let raw = batch_bytes(&["a"]);
        assert!(store.accept(&raw.slice(..raw.len() - 1)).is_err());
        let mut two = BytesMut::from(&raw[..]);
        two.extend_from_slice(&raw);
        assert!(store.accept(&two.freeze()).is_err());
        assert!(store.accept(&Bytes::from_static(b"short")).is_err());
    }

    #[test]
    fn a_simulated_batch_is_written_with_named_values() {
        let store = RecordStore::default();
        let b = RecordBatch {
            base_offset: 5,
            leader_epoch: 2,
            producer_id: -1,
            base_sequence: -1,
            size_bytes: 100,
            max_timestamp: 9,
            values: Values::range(11, 2),
        };
        let mut out = store.encode(&[b]);
        let back = kafka_protocol::records::RecordBatchDecoder::decode(&mut out).unwrap();
        assert_eq!(back.records[1].offset, 6);
        assert_eq!(back.records[1].value.as_deref(), Some(&b"m12"[..]));
    }
}
