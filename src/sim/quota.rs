//! Replication throttles (KIP-73): one broker's leader-side and follower-side byte-rate quotas,
//! measured the way Kafka's `ReplicationQuotaManager` measures them.
//!
//! Kafka keeps one `ReplicationQuotaManager` per direction. Each holds a `Sensor` with a
//! `SimpleRate` over a `SampledStat` of `replication.quota.window.num` samples (11) of
//! `replication.quota.window.size.seconds` (1 s) each, and a bound: the broker's
//! `leader.replication.throttled.rate` or `follower.replication.throttled.rate` (bytes/s,
//! `Long.MAX_VALUE` = no throttle). Bytes of throttled partitions are recorded whether or not
//! the quota is exceeded (`record`); the fetch path asks `isQuotaExceeded` before it moves
//! data of a throttled replica that is not in sync. Which partitions are throttled is the
//! topics' business ([`crate::config::ThrottledReplicas`]); this module only measures.

use super::Ms;
use crate::config::BrokerConfig;

/// One sample of the sampled stat (Kafka's `SampledStat.Sample` of a `WindowedSum`).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Sample {
    /// When the sample began (ms).
    start_ms: Ms,
    /// When a value was last recorded into it (ms).
    last_event_ms: Ms,
    /// Bytes recorded into it.
    bytes: u64,
}

impl Sample {
    fn new(now: Ms) -> Self {
        Self { start_ms: now, last_event_ms: now, bytes: 0 }
    }
}

/// A byte rate over a sliding set of time samples: Kafka's `SimpleRate` over a `WindowedSum`
/// (`org.apache.kafka.common.metrics.stats`). Deterministic: every call passes the sim time.
#[derive(Clone, Debug, PartialEq)]
pub struct RateSampler {
    samples: Vec<Sample>,
    current: usize,
    /// `replication.quota.window.num` (samples, at least 1).
    num_samples: usize,
    /// `replication.quota.window.size.seconds`, in ms.
    window_ms: Ms,
}

impl RateSampler {
    /// A sampler of `num_samples` windows of `window_ms` ms each (both at least 1).
    pub fn new(num_samples: u32, window_ms: Ms) -> Self {
        Self {
            samples: Vec::new(),
            current: 0,
            num_samples: num_samples.max(1) as usize,
            window_ms: window_ms.max(1),
        }
    }

    /// Adds `bytes` at `now` (`SampledStat.record`): into the current sample, or into the
    /// next one once the current sample is a window old. Kafka keeps one sample more than
    /// configured (`advance` cycles over `samples + 1`), so the oldest window still counts
    /// while the newest fills.
    pub fn record(&mut self, now: Ms, bytes: u64) {
        if self.samples.is_empty() {
            self.samples.push(Sample::new(now));
        }
        if now.saturating_sub(self.samples[self.current].start_ms) >= self.window_ms {
            self.current = (self.current + 1) % (self.num_samples + 1);
            if self.current >= self.samples.len() {
                self.samples.push(Sample::new(now));
            } else {
                self.samples[self.current] = Sample::new(now);
            }
        }
        let sample = &mut self.samples[self.current];
        sample.bytes = sample.bytes.saturating_add(bytes);
        sample.last_event_ms = now;
    }

    /// The rate at `now` in bytes/s (`Rate.measure` with `SimpleRate.windowSize`): samples with
    /// no event for `num_samples × window` are cleared first (`purgeObsoleteSamples`), then the
    /// bytes of all samples are divided by the time since the oldest sample began, but by at
    /// least one window (so a first burst is not measured over a few ms).
    pub fn rate(&mut self, now: Ms) -> f64 {
        let expire_ms = self.window_ms.saturating_mul(self.num_samples as Ms);
        for s in &mut self.samples {
            if now.saturating_sub(s.last_event_ms) >= expire_ms {
                *s = Sample::new(now);
            }
        }
        if self.samples.is_empty() {
            self.samples.push(Sample::new(now));
        }
        let total: u64 = self.samples.iter().map(|s| s.bytes).sum();
        let oldest = self.samples.iter().map(|s| s.start_ms).min().unwrap_or(now);
        let window = now.saturating_sub(oldest).max(self.window_ms);
        total as f64 * 1000.0 / window as f64
    }
}

/// One direction's replication quota on one broker (Kafka's `ReplicationQuotaManager` without
/// its throttled-partition list, which [`crate::config::ThrottledReplicas`] holds).
#[derive(Clone, Debug, PartialEq)]
pub struct ReplicationQuota {
    sampler: RateSampler,
}

impl ReplicationQuota {
    /// A quota measured over the broker's `replication.quota.window.*` settings.
    pub fn new(config: &BrokerConfig) -> Self {
        let window_ms = config.replication_quota_window_size_seconds.saturating_mul(1000);
        Self { sampler: RateSampler::new(config.replication_quota_window_num, window_ms) }
    }

    /// Counts `bytes` of throttled partitions moved at `now`, whether or not the quota is
    /// exceeded (`ReplicationQuotaManager.record`).
    pub fn record(&mut self, now: Ms, bytes: u64) {
        if bytes > 0 {
            self.sampler.record(now, bytes);
        }
    }

    /// Whether the measured rate is above `bound_bytes_per_s` at `now`
    /// (`ReplicationQuotaManager.isQuotaExceeded`: `Sensor.checkQuotas` fails when the rate
    /// is over the quota's upper bound). `i64::MAX` (Kafka's default) is never exceeded.
    pub fn is_exceeded(&mut self, now: Ms, bound_bytes_per_s: u64) -> bool {
        bound_bytes_per_s < i64::MAX as u64 && self.sampler.rate(now) > bound_bytes_per_s as f64
    }

    /// The measured rate at `now` (bytes/s), for views and tests.
    pub fn rate(&mut self, now: Ms) -> f64 {
        self.sampler.rate(now)
    }
}

/// A broker's two replication quotas: `leader` limits what it sends for its throttled leader
/// replicas, `follower` what it fetches for its throttled follower replicas (Kafka's
/// `QuotaFactory.QuotaManagers.leader` and `.follower`).
#[derive(Clone, Debug, PartialEq)]
pub struct ReplicationQuotas {
    /// `QuotaType.LEADER_REPLICATION`.
    pub leader: ReplicationQuota,
    /// `QuotaType.FOLLOWER_REPLICATION`.
    pub follower: ReplicationQuota,
}

impl ReplicationQuotas {
    /// Fresh quotas for a process started with `config` (its sensors start empty).
    pub fn new(config: &BrokerConfig) -> Self {
        Self { leader: ReplicationQuota::new(config), follower: ReplicationQuota::new(config) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A first burst is measured over at least one window, not over the ms it took.
    #[test]
    fn a_first_burst_is_averaged_over_one_window() {
        let mut s = RateSampler::new(11, 1000);
        s.record(0, 5000);
        assert_eq!(s.rate(0), 5000.0);
        assert_eq!(s.rate(10), 5000.0);
        // Later the divisor is the time since the oldest sample began.
        assert_eq!(s.rate(2000), 2500.0);
    }

    /// A steady flow settles at its rate once the samples span the whole window set.
    #[test]
    fn a_steady_flow_measures_its_rate() {
        let mut s = RateSampler::new(11, 1000);
        for t in (0..30_000).step_by(100) {
            s.record(t, 100);
        }
        let r = s.rate(30_000);
        assert!((900.0..=1100.0).contains(&r), "{r}");
    }

    /// Kafka keeps `samples + 1` samples: the 12th window reuses the first's slot.
    #[test]
    fn samples_cycle_over_one_more_than_configured() {
        let mut s = RateSampler::new(2, 1000);
        s.record(0, 1);
        s.record(1000, 1);
        s.record(2000, 1);
        assert_eq!(s.samples.len(), 3);
        s.record(3000, 1);
        assert_eq!(s.samples.len(), 3);
        assert_eq!(s.samples.iter().map(|x| x.start_ms).min(), Some(1000));
    }

    /// Samples with no event for `num × window` are cleared: an idle quota measures 0.
    #[test]
    fn old_samples_expire() {
        let mut s = RateSampler::new(11, 1000);
        s.record(0, 1_000_000);
        assert!(s.rate(10_999) > 0.0);
        assert_eq!(s.rate(11_000), 0.0);
    }

    #[test]
    fn the_quota_is_exceeded_only_above_its_bound() {
        let config = BrokerConfig::default();
        let mut q = ReplicationQuota::new(&config);
        assert!(!q.is_exceeded(0, 1000), "nothing recorded");
        q.record(0, 1000);
        assert!(!q.is_exceeded(0, 1000), "exactly at the bound is acceptable");
        q.record(1, 1);
        assert!(q.is_exceeded(1, 1000));
        q.record(2, u64::MAX / 2);
        assert!(!q.is_exceeded(2, i64::MAX as u64), "Long.MAX_VALUE never throttles");
        // The window set drains: after 11 idle s the rate is 0 again.
        assert!(!q.is_exceeded(20_000, 1000));
    }
}
