//! The application side: the records a producer is handed, as a program calling
//! `KafkaProducer.send` would hand them: `rate` records per second, evenly spaced (fractional
//! rates work), each a unique payload, plus the `produce` command's records; records larger
//! than `max.request.size` are refused as `KafkaProducer.doSend` refuses them.

use super::accumulator::PendingRecord;
use super::{MICROS_PER_RECORD, ProducerClient, VALUES_PER_PRODUCER};
use crate::config::RECORD_BATCH_OVERHEAD;
use crate::kafka::errors::ErrorCode;
use crate::sim::Ms;

impl ProducerClient {
    /// Rate in micro-records per ms (records/s × 1000).
    pub(super) fn rate_micros_per_ms(&self) -> u64 {
        (self.config.rate.max(0.0) * 1000.0).round() as u64
    }

    /// When the rate generator owes the next record.
    pub(super) fn generation_due(&self) -> Option<Ms> {
        self.record_due(1)
    }

    /// When the rate generator owes its `k`-th record from now on (`k` ≥ 1); `Some(0)` before
    /// it first ran.
    fn record_due(&self, k: u64) -> Option<Ms> {
        let per_ms = self.rate_micros_per_ms();
        if per_ms == 0 {
            return None;
        }
        match self.gen_last {
            None => Some(0),
            Some(last) => {
                Some(last + (k.saturating_mul(MICROS_PER_RECORD) - self.gen_credit).div_ceil(per_ms))
            }
        }
    }

    /// The generator's part of [`ProducerClient::next_deadline`]: the first instant at which the
    /// records it owes can make something happen besides being appended, so that the producer
    /// needs no wake-up per record (it appends them when it next runs, each at its own instant,
    /// see [`Self::generate`]). Until then an appended record can change nothing that is seen:
    /// - a record starting a new batch makes it ready `linger.ms` later, and expires
    ///   `delivery.timeout.ms` later: not before the next record's instant plus the smaller;
    /// - a batch is ready at once when it fills (`RecordAccumulator.ready`'s `full`): not before
    ///   as many records as the fullest partition's first batch lacks.
    ///
    /// Records refused for their size are counted at their instant, one wake-up per record.
    pub(super) fn generation_deadline(&self) -> Option<Ms> {
        let first = self.generation_due()?;
        if self.gen_last.is_none() || self.refuses_records() || self.tick_per_record() {
            return Some(first);
        }
        let by_time = first + self.config.linger_ms.min(self.config.delivery_timeout_ms);
        let max = self.max_batch_records().max(1);
        let to_fill = (self.holding.all.iter())
            .map(|&i| self.partitions[i].waiting.len())
            .filter(|&w| w < max)
            .map(|w| max - w)
            .min()
            .unwrap_or(max);
        self.record_due(to_fill as u64).map(|fill| fill.min(by_time))
    }

    /// Whether `send()` refuses every record for its size ([`ProducerConfig::record_too_large`]).
    ///
    /// [`ProducerConfig::record_too_large`]: crate::config::ProducerConfig::record_too_large
    pub(super) fn refuses_records(&self) -> bool {
        u64::from(RECORD_BATCH_OVERHEAD) + u64::from(self.config.record_size) > self.config.max_request_size
    }

    /// Whether every record gets its own wake-up (the reference the lazy generator is checked
    /// against in tests).
    #[cfg(test)]
    fn tick_per_record(&self) -> bool {
        self.tick_per_record
    }

    #[cfg(not(test))]
    fn tick_per_record(&self) -> bool {
        false
    }

    /// Records the rate generator owes at instants in (last run, `now`] that are not appended
    /// yet: what the application has handed over by `now` (for the view between wake-ups).
    pub(super) fn owed(&self, now: Ms) -> u64 {
        match self.gen_last {
            Some(last) if now > last => {
                (self.gen_credit + self.rate_micros_per_ms() * (now - last)) / MICROS_PER_RECORD
            }
            _ => 0,
        }
    }

    /// Runs the rate generator up to `now`: appends every record owed at an instant up to
    /// `now`, each created at its own instant. What the producer did at each earlier instant
    /// (it would have woken for the record) is done there too: the sender's pass that refreshes
    /// the partitioner's load stats; nothing else can be due then (see
    /// [`Self::generation_deadline`]). The pass at `now` is the caller's.
    pub(super) fn generate(&mut self, now: Ms) {
        self.catch_up(now, false);
    }

    /// [`Self::generate`] for the instants before `now` only, each with its pass: what was due
    /// before whatever happens at `now` (a message, a metadata refresh) happened.
    pub(super) fn generate_before(&mut self, now: Ms) {
        if self.gen_last.is_some() && now > 0 {
            self.catch_up(now - 1, true);
        }
    }

    /// Appends the records owed at instants in (last run, `until`], evenly spaced by the rate
    /// credit (micro-records, so fractional rates work), and after each instant before `until`
    /// (and at `until` too when `pass_at_until`) the sender's pass that instant had: the
    /// partitioner's load stats (`RecordAccumulator.partitionReady`), computed at once with
    /// `partitioner.availability.timeout.ms` (the pass also stamps the leaders' latencies),
    /// else left to the next draw that reads them (see [`super::partitioner::Partitioner::defer_load`]).
    fn catch_up(&mut self, until: Ms, pass_at_until: bool) {
        let Some(mut last) = self.gen_last else {
            self.gen_last = Some(until);
            return;
        };
        if until <= last {
            return;
        }
        let per_ms = self.rate_micros_per_ms();
        let stamps_leaders = self.config.partitioner_availability_timeout_ms > 0;
        let mut deferred = false;
        if per_ms > 0 {
            loop {
                let t = last + (MICROS_PER_RECORD - self.gen_credit).div_ceil(per_ms);
                if t > until {
                    break;
                }
                let credit = self.gen_credit + per_ms * (t - last);
                self.gen_credit = credit % MICROS_PER_RECORD;
                last = t;
                let count = credit / MICROS_PER_RECORD;
                let pass = t < until || pass_at_until;
                // Deferred stats are valid only while nothing but one record changed the queues.
                if deferred && (count > 1 || !pass) {
                    self.settle_partitioner();
                    deferred = false;
                }
                self.add_records(t, count, None);
                if pass && stamps_leaders {
                    self.update_partitioner(t);
                } else if pass {
                    self.partitioner.defer_load();
                    deferred = true;
                }
            }
            self.gen_credit += per_ms * (until - last);
        }
        self.gen_last = Some(until);
        if deferred {
            self.settle_partitioner();
        }
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
