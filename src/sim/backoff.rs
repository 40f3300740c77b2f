//! Exponential backoff with jitter, as every Java client wait uses it (retries, reconnects,
//! connection setup timeouts): Kafka's `ExponentialBackoff` with base 2 and jitter 0.2
//! (`CommonClientConfigs.RETRY_BACKOFF_EXP_BASE`, `RETRY_BACKOFF_JITTER`; the same values in
//! `ClusterConnectionStates.RECONNECT_BACKOFF_*` and `CONNECTION_SETUP_TIMEOUT_*`).

use super::Ms;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

/// Relative jitter of every client backoff: the wait is multiplied by a factor drawn uniformly
/// from `[1 - j, 1 + j)`.
pub const BACKOFF_JITTER: f64 = 0.2;

/// The wait (ms) after `attempts` earlier failures (0 for the first wait):
/// `initial · 2^attempts`, at most `max` before the jitter and again after it. When `max` is not
/// above `initial` the wait is the constant `min(initial, max)` without jitter, as in Java's
/// `ExponentialBackoff.backoff`. The jitter comes from `rng`, the caller's seeded stream.
pub fn exponential_backoff(rng: &mut ChaCha8Rng, initial: Ms, max: Ms, attempts: u32) -> Ms {
    let initial = initial.min(max);
    if max <= initial {
        return initial;
    }
    let term = initial.saturating_mul(1u64 << attempts.min(63)).min(max);
    if term == 0 {
        return 0;
    }
    let factor = rng.random_range(1.0 - BACKOFF_JITTER..1.0 + BACKOFF_JITTER);
    ((term as f64 * factor) as Ms).min(max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn doubles_up_to_the_max_with_jitter() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for (attempts, base) in [(0, 50), (1, 100), (2, 200), (3, 400), (4, 800), (5, 1000), (40, 1000)] {
            let wait = exponential_backoff(&mut rng, 50, 1000, attempts);
            let low = base * 8 / 10;
            let high = (base * 12 / 10).min(1000);
            assert!((low..=high).contains(&wait), "attempt {attempts}: {wait}");
        }
    }

    #[test]
    fn a_max_not_above_the_initial_wait_is_constant() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        assert_eq!(exponential_backoff(&mut rng, 100, 100, 7), 100);
        assert_eq!(exponential_backoff(&mut rng, 100, 40, 0), 40);
        assert_eq!(exponential_backoff(&mut rng, 0, 1000, 3), 0);
    }
}
