//! The application side: the records a producer is handed, as a program calling
//! `KafkaProducer.send` would hand them: `rate` records per second, evenly spaced (fractional
//! rates work), each a unique payload, plus the `produce` command's records; records larger
//! than `max.request.size` are refused as `KafkaProducer.doSend` refuses them.

use super::accumulator::PendingRecord;
use super::{MICROS_PER_RECORD, ProducerClient, VALUES_PER_PRODUCER};
use crate::kafka::errors::ErrorCode;
use crate::sim::Ms;

impl ProducerClient {
    /// Rate in micro-records per ms (records/s × 1000).
    pub(super) fn rate_micros_per_ms(&self) -> u64 {
        (self.config.rate.max(0.0) * 1000.0).round() as u64
    }

    /// When the rate generator owes the next record.
    pub(super) fn generation_due(&self) -> Option<Ms> {
        let per_ms = self.rate_micros_per_ms();
        if per_ms == 0 {
            return None;
        }
        match self.gen_last {
            None => Some(0),
            Some(last) => Some(last + (MICROS_PER_RECORD - self.gen_credit).div_ceil(per_ms)),
        }
    }

    /// Runs the rate generator up to `now`.
    pub(super) fn generate(&mut self, now: Ms) {
        let Some(last) = self.gen_last else {
            self.gen_last = Some(now);
            return;
        };
        if now <= last {
            return;
        }
        let credit = self.gen_credit + self.rate_micros_per_ms() * (now - last);
        self.gen_credit = credit % MICROS_PER_RECORD;
        self.gen_last = Some(now);
        self.add_records(now, credit / MICROS_PER_RECORD, None);
    }

    pub(super) fn add_records(&mut self, now: Ms, count: u64, key_hash: Option<u32>) {
        if let Some(why) = self.config.record_too_large() {
            self.refuse_records(now, count, why);
            return;
        }
        for _ in 0..count {
            let record = PendingRecord {
                value: self.index as u64 * VALUES_PER_PRODUCER + self.next_value,
                created: now,
                key_hash,
            };
            self.next_value += 1;
            self.sent += 1;
            self.append(record);
        }
    }

    /// Fails `count` records that `send()` refused before they reached the accumulator: Kafka's
    /// `KafkaProducer.doSend` calls `ensureValidRecordSize` and completes the record's future
    /// with the `RecordTooLargeException` (error code `MESSAGE_TOO_LARGE`, not retried). They
    /// have no partition yet (the built-in partitioner picks one only in the accumulator), so
    /// they count in the producer's totals and its last error, with no partition event.
    pub(super) fn refuse_records(&mut self, now: Ms, count: u64, why: String) {
        if count == 0 {
            return;
        }
        self.next_value += count;
        self.sent += count;
        self.failed += count;
        *self.errors.entry(ErrorCode::MessageTooLarge.name().to_string()).or_insert(0) += count;
        self.last_error = Some((now, format!("{} on {}: {why}", ErrorCode::MessageTooLarge, self.topic)));
    }
}
