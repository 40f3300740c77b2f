//! Produce latency as `kafka-producer-perf-test.sh` reports it: for every acknowledged record,
//! the sim time from `send()` (the record handed to the producer) to its acknowledgement,
//! so accumulator time (Kafka's `record-queue-time`), request latency and every retry count.
//!
//! Kafka's tool (`org.apache.kafka.tools.ProducerPerformance`) records the latency in its
//! `PerfCallback.onCompletion`, only for records sent without an exception, and its
//! `Stats.percentiles` sorts the latencies and takes the one at index ⌊p × n⌋. isrlab keeps no
//! list of latencies: a fixed histogram per sim second (ms exact up to 99 ms, two significant
//! digits above) gives the same index rule in fixed memory, a few KB per producer.

use super::Ms;

/// Seconds of sim time [`LatencyRecorder::recent`] looks back over (the producer's p50 and
/// p99 in the clients pane).
pub const RECENT_WINDOW_S: u64 = 10;

/// Latencies below this are kept to the millisecond.
const EXACT_BELOW: u64 = 100;
/// Two-significant-digit buckets per decade above [`EXACT_BELOW`] (10…99 as leading digits).
const PER_DECADE: u64 = 90;
/// Decades above [`EXACT_BELOW`]: up to 10⁸ ms (about 28 h); longer latencies count as 99·10⁶ ms.
const DECADES: u64 = 6;
/// Buckets in one histogram.
const BUCKETS: usize = (EXACT_BELOW + PER_DECADE * DECADES) as usize;

/// The histogram bucket of a latency of `ms`.
fn bucket(ms: Ms) -> usize {
    if ms < EXACT_BELOW {
        return ms as usize;
    }
    // `ms` = d.ddd × 10^e with e ≥ 2; the bucket keeps the two leading digits.
    let e = u64::from(ms.ilog10()).min(DECADES + 1);
    let leading = (ms / 10u64.pow((e - 1) as u32)).min(99);
    (EXACT_BELOW + (e - 2) * PER_DECADE + (leading - 10)) as usize
}

/// The smallest latency (ms) in bucket `b`: exact below 100 ms, else its two leading digits.
fn bucket_floor(b: usize) -> Ms {
    let b = b as u64;
    if b < EXACT_BELOW {
        return b;
    }
    let (e, leading) = ((b - EXACT_BELOW) / PER_DECADE + 2, (b - EXACT_BELOW) % PER_DECADE + 10);
    leading * 10u64.pow((e - 1) as u32)
}

/// When the records of one batch were handed to the producer: runs of (sim ms, count), in
/// the order the records were sent (several records share a millisecond at high rates).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SendTimes {
    runs: Vec<(Ms, u32)>,
}

impl SendTimes {
    /// The send times of records created at `times`, in order.
    pub fn from_times(times: impl IntoIterator<Item = Ms>) -> SendTimes {
        let mut runs: Vec<(Ms, u32)> = Vec::new();
        for t in times {
            match runs.last_mut() {
                Some((at, n)) if *at == t => *n += 1,
                _ => runs.push((t, 1)),
            }
        }
        SendTimes { runs }
    }

    /// How many records.
    pub fn len(&self) -> u64 {
        self.runs.iter().map(|(_, n)| u64::from(*n)).sum()
    }

    /// No records.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }
}

/// p50 and p99 of the records acknowledged in a span of sim time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LatencySummary {
    /// Records acknowledged in the span.
    pub records: u64,
    /// Median latency (sim ms; two significant digits from 100 ms on, rounded down).
    pub p50_ms: Ms,
    /// 99th percentile latency (sim ms, as `p50_ms`).
    pub p99_ms: Ms,
}

/// One second's histogram.
#[derive(Clone, Debug)]
struct Second {
    /// Which sim second (ms / 1000) it counts; `None` when unused.
    sec: Option<u64>,
    counts: Box<[u32]>,
}

/// The latencies of the records a producer had acknowledged in the last
/// [`RECENT_WINDOW_S`] seconds of sim time, one histogram per second, reused in a ring: fixed
/// memory whatever the rate.
#[derive(Clone, Debug)]
pub struct LatencyRecorder {
    seconds: Vec<Second>,
}

impl Default for LatencyRecorder {
    fn default() -> Self {
        let empty = Second { sec: None, counts: vec![0; BUCKETS].into_boxed_slice() };
        LatencyRecorder { seconds: vec![empty; RECENT_WINDOW_S as usize + 1] }
    }
}

impl LatencyRecorder {
    /// The records of one batch were acknowledged at `now` (`acks=0` records, which get no
    /// acknowledgement, are not recorded).
    pub fn record(&mut self, now: Ms, sent: &SendTimes) {
        let sec = now / 1000;
        let len = self.seconds.len() as u64;
        let slot = &mut self.seconds[(sec % len) as usize];
        if slot.sec != Some(sec) {
            slot.counts.fill(0);
            slot.sec = Some(sec);
        }
        for &(at, n) in &sent.runs {
            let b = bucket(now.saturating_sub(at));
            slot.counts[b] = slot.counts[b].saturating_add(n);
        }
    }

    /// p50 and p99 over the sim seconds `first..=last` (ms / 1000) that are still kept;
    /// `None` when no record was acknowledged in them.
    pub fn summary(&self, first: u64, last: u64) -> Option<LatencySummary> {
        let mut counts = vec![0u64; BUCKETS];
        for s in self.seconds.iter().filter(|s| s.sec.is_some_and(|t| (first..=last).contains(&t))) {
            for (sum, c) in counts.iter_mut().zip(s.counts.iter()) {
                *sum += u64::from(*c);
            }
        }
        let records: u64 = counts.iter().sum();
        (records > 0).then(|| LatencySummary {
            records,
            p50_ms: percentile(&counts, records, 0.5),
            p99_ms: percentile(&counts, records, 0.99),
        })
    }

    /// p50 and p99 over the [`RECENT_WINDOW_S`] seconds up to `now` (the current second
    /// included).
    pub fn recent(&self, now: Ms) -> Option<LatencySummary> {
        let sec = now / 1000;
        self.summary((sec + 1).saturating_sub(RECENT_WINDOW_S), sec)
    }
}

/// The latency at index ⌊p × n⌋ (0-based, at most n − 1) of the `n` latencies counted in
/// `counts`, as `ProducerPerformance.Stats.percentiles` picks it from its sorted array.
fn percentile(counts: &[u64], n: u64, p: f64) -> Ms {
    let index = ((p * n as f64) as u64).min(n.saturating_sub(1));
    let mut seen = 0;
    for (b, c) in counts.iter().enumerate() {
        seen += c;
        if seen > index {
            return bucket_floor(b);
        }
    }
    bucket_floor(BUCKETS - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_exact_below_100_ms_and_keep_two_digits_above() {
        for ms in [0, 1, 57, 99] {
            assert_eq!(bucket_floor(bucket(ms)), ms);
        }
        assert_eq!(bucket_floor(bucket(100)), 100);
        assert_eq!(bucket_floor(bucket(109)), 100);
        assert_eq!(bucket_floor(bucket(110)), 110);
        assert_eq!(bucket_floor(bucket(999)), 990);
        assert_eq!(bucket_floor(bucket(1_000)), 1_000);
        assert_eq!(bucket_floor(bucket(30_123)), 30_000);
        assert_eq!(bucket_floor(bucket(120_000)), 120_000);
        // Beyond the last decade everything lands in the last bucket, never out of range.
        assert_eq!(bucket(u64::MAX), BUCKETS - 1);
        assert!((0..BUCKETS).all(|b| bucket(bucket_floor(b)) == b));
    }

    #[test]
    fn send_times_group_records_of_the_same_millisecond() {
        let t = SendTimes::from_times([5, 5, 5, 6, 9, 9]);
        assert_eq!(t.runs, vec![(5, 3), (6, 1), (9, 2)]);
        assert_eq!(t.len(), 6);
        assert!(SendTimes::from_times([]).is_empty());
    }

    /// 100 records with latencies 1..=100 ms: index ⌊0.5 × 100⌋ = 50 holds 51 ms and index
    /// ⌊0.99 × 100⌋ = 99 holds 100 ms, as Kafka's tool would print them.
    #[test]
    fn percentiles_take_the_latency_at_index_p_times_n() {
        let mut r = LatencyRecorder::default();
        let now = 2_500;
        r.record(now, &SendTimes::from_times((1..=100).map(|l| now - l)));
        let s = r.recent(now).expect("records were acknowledged");
        assert_eq!((s.records, s.p50_ms, s.p99_ms), (100, 51, 100));
    }

    #[test]
    fn one_record_is_its_own_p50_and_p99() {
        let mut r = LatencyRecorder::default();
        r.record(1_040, &SendTimes::from_times([1_000]));
        let s = r.recent(1_040).expect("one record");
        assert_eq!((s.records, s.p50_ms, s.p99_ms), (1, 40, 40));
    }

    #[test]
    fn the_window_forgets_seconds_older_than_it_and_slots_are_reused() {
        let mut r = LatencyRecorder::default();
        r.record(500, &SendTimes::from_times([400; 10]));
        assert_eq!(r.summary(0, 0).map(|s| s.p50_ms), Some(100));
        // Ten seconds later the first second is out of the window.
        let later = 500 + RECENT_WINDOW_S * 1000;
        r.record(later, &SendTimes::from_times([later - 3]));
        let s = r.recent(later).expect("the new record");
        assert_eq!((s.records, s.p50_ms), (1, 3));
        // Its slot was reused after the ring went round: second 0 is gone for good.
        r.record(500 + (RECENT_WINDOW_S + 1) * 1000, &SendTimes::from_times([0]));
        assert_eq!(r.summary(0, 0), None);
    }

    #[test]
    fn no_record_gives_no_summary() {
        assert_eq!(LatencyRecorder::default().recent(10_000), None);
    }
}
