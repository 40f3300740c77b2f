//! Measures how fast sim time actually runs: sim ms gained per wall ms over the last
//! [`WINDOW_MS`] of wall time, sampled once per frame from the newest snapshot's `now`. When
//! the simulation cannot keep up with the asked speed (a thousand partitions at 100×, a huge
//! topic being created), the header shows this number next to the asked one. Plain
//! arithmetic: the caller reads the wall clock.

use std::collections::VecDeque;
use std::time::Duration;

use crate::sim::Ms;

/// Wall time the measurement looks back over (ms).
pub const WINDOW_MS: f64 = 1500.0;

/// Wall time a measurement must cover before it is reported (ms).
pub const MIN_SPAN_MS: f64 = 1000.0;

/// Recent (wall ms, sim ms) samples taken while sim time was asked to run at one speed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SpeedMeter {
    samples: VecDeque<(f64, Ms)>,
    asked: Option<f64>,
}

impl SpeedMeter {
    /// Records one frame: `wall` is wall time since any fixed origin, `sim_now` the newest
    /// snapshot's time, `asked` the speed sim time should run at (`None` while it is meant to
    /// stand still). A new asked speed, or a pause, starts the measurement afresh.
    pub fn record(&mut self, wall: Duration, sim_now: Ms, asked: Option<f64>) {
        // A new speed, or sim time going back (the run restarted with `R`), starts over.
        let restarted = self.samples.back().is_some_and(|&(_, s)| sim_now < s);
        if asked != self.asked || restarted {
            self.samples.clear();
            self.asked = asked;
        }
        if asked.is_none() {
            return;
        }
        let t = wall.as_secs_f64() * 1000.0;
        self.samples.push_back((t, sim_now));
        while self.samples.len() > 2 && self.samples[1].0 <= t - WINDOW_MS {
            self.samples.pop_front();
        }
    }

    /// Sim ms per wall ms over the window; `None` until [`MIN_SPAN_MS`] of running time is
    /// covered.
    pub fn actual(&self) -> Option<f64> {
        let (&(t0, s0), &(t1, s1)) = (self.samples.front()?, self.samples.back()?);
        let span = t1 - t0;
        (span >= MIN_SPAN_MS).then(|| s1.saturating_sub(s0) as f64 / span)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(meter: &mut SpeedMeter, frames: u64, sim_per_frame: Ms, asked: f64) {
        for i in 0..frames {
            meter.record(Duration::from_millis(i * 33), i * sim_per_frame, Some(asked));
        }
    }

    #[test]
    fn reports_sim_ms_per_wall_ms_after_a_second() {
        let mut m = SpeedMeter::default();
        run(&mut m, 20, 33 * 100, 100.0);
        assert_eq!(m.actual(), None, "0.63 s is too short to tell");
        let mut m = SpeedMeter::default();
        run(&mut m, 100, 33 * 42, 100.0);
        let actual = m.actual().unwrap();
        assert!((actual - 42.0).abs() < 0.01, "{actual}");
    }

    #[test]
    fn pausing_or_changing_speed_starts_over() {
        let mut m = SpeedMeter::default();
        run(&mut m, 100, 33, 1.0);
        assert!(m.actual().is_some());
        m.record(Duration::from_secs(4), 3300, None);
        assert_eq!(m.actual(), None);
        let mut m = SpeedMeter::default();
        run(&mut m, 100, 33, 1.0);
        m.record(Duration::from_secs(4), 3300, Some(2.0));
        assert_eq!(m.actual(), None);
        // A restart (R) sends sim time back to 0: no false "slow" reading follows.
        let mut m = SpeedMeter::default();
        run(&mut m, 100, 33, 1.0);
        m.record(Duration::from_secs(4), 0, Some(1.0));
        assert_eq!(m.actual(), None);
    }

    #[test]
    fn a_stalled_sim_reads_zero() {
        let mut m = SpeedMeter::default();
        run(&mut m, 100, 0, 100.0);
        assert_eq!(m.actual(), Some(0.0));
    }
}
