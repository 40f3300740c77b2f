//! How the dashboard keeps sim time flowing. Each frame tick adds wall-elapsed × speed to a
//! target sim time and hands it to `live.advance_to`. The target never runs more than
//! [`MAX_LEAD_MS`] ahead of the newest snapshot, so a sim that cannot keep up is not buried
//! under an ever-growing backlog (the screen then runs slower than asked, honestly).
//! Plain arithmetic: the wall clock is read by the caller, so this is tested without one.

use std::time::Duration;

use crate::sim::Ms;

/// How far the target may run ahead of the newest snapshot (ms of sim time).
pub const MAX_LEAD_MS: f64 = 1000.0;

/// The sim time the dashboard has allowed so far.
#[derive(Clone, Debug, PartialEq)]
pub struct Pacer {
    target: f64,
    granted: Ms,
}

impl Pacer {
    /// Starts at the sim's current time.
    pub fn new(now: Ms) -> Pacer {
        Pacer { target: now as f64, granted: now }
    }

    /// The target so far (ms).
    pub fn target(&self) -> Ms {
        self.granted
    }

    /// One frame tick: `elapsed` wall time passed at `speed`; `sim_now` is the newest
    /// snapshot's time. Returns a new target to grant, if it moved by at least 1 ms.
    pub fn tick(&mut self, elapsed: Duration, speed: f64, paused: bool, sim_now: Ms) -> Option<Ms> {
        self.target = self.target.max(sim_now as f64);
        if !paused {
            let wanted = self.target + elapsed.as_secs_f64() * 1000.0 * speed;
            self.target = wanted.min(sim_now as f64 + MAX_LEAD_MS);
        }
        self.grant()
    }

    /// A single step of `ms` (while paused), with the same lead limit.
    pub fn step(&mut self, ms: Ms, sim_now: Ms) -> Option<Ms> {
        let from = self.target.max(sim_now as f64);
        self.target = (from + ms as f64).min(sim_now as f64 + MAX_LEAD_MS);
        self.grant()
    }

    fn grant(&mut self) -> Option<Ms> {
        let t = self.target.floor() as Ms;
        (t > self.granted).then(|| {
            self.granted = t;
            t
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TICK: Duration = Duration::from_millis(33);

    #[test]
    fn running_advances_by_wall_time_times_speed() {
        let mut p = Pacer::new(0);
        assert_eq!(p.tick(TICK, 1.0, false, 0), Some(33));
        assert_eq!(p.tick(TICK, 2.0, false, 33), Some(99));
        // 0.1×: 3.3 ms per tick accumulates without rounding loss.
        let mut slow = Pacer::new(0);
        let grants: Vec<_> = (0..3).filter_map(|_| slow.tick(TICK, 0.1, false, 0)).collect();
        assert_eq!(grants, [3, 6, 9]);
    }

    #[test]
    fn paused_grants_nothing_but_steps() {
        let mut p = Pacer::new(500);
        assert_eq!(p.tick(TICK, 1.0, true, 500), None);
        assert_eq!(p.step(100, 500), Some(600));
        assert_eq!(p.step(100, 500), Some(700));
    }

    #[test]
    fn the_target_stays_within_a_second_of_the_sim() {
        let mut p = Pacer::new(0);
        assert_eq!(p.tick(Duration::from_secs(5), 100.0, false, 0), Some(1000));
        assert_eq!(p.tick(TICK, 100.0, false, 10), Some(1010));
        assert_eq!(p.tick(TICK, 100.0, false, 800), Some(1800));
        for _ in 0..20 {
            p.step(100, 800);
        }
        assert_eq!(p.target(), 1800);
    }
}
