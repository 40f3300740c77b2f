//! How the dashboard keeps sim time flowing.
//!
//! Each frame tick adds wall-elapsed × speed to the sim time the user *wants*. What is
//! *granted* to `live.advance_to` never runs more than [`MAX_LEAD_MS`] ahead of the newest
//! snapshot; when a snapshot shows the sim caught up, [`Pacer::refill`] grants the next
//! slice at once (that is how 100× gets more than one lead per frame). The wanted time may
//! run at most one wall second (× speed) beyond that, so a sim that cannot keep up is not
//! buried under a growing backlog: the screen then runs slower than asked, honestly.
//! Plain arithmetic: the caller reads the wall clock, so this is tested without one.

use std::time::Duration;

use crate::sim::Ms;

/// How far a grant may run ahead of the newest snapshot (ms of sim time).
pub const MAX_LEAD_MS: f64 = 1000.0;

/// How much wall time of backlog the wanted time may hold beyond the lead.
const MAX_BACKLOG_WALL_MS: f64 = 1000.0;

/// The sim time the user wants and the part of it granted so far.
#[derive(Clone, Debug, PartialEq)]
pub struct Pacer {
    wanted: f64,
    granted: Ms,
}

impl Pacer {
    /// Starts at the sim's current time.
    pub fn new(now: Ms) -> Pacer {
        Pacer { wanted: now as f64, granted: now }
    }

    /// The sim time granted so far (ms).
    pub fn granted(&self) -> Ms {
        self.granted
    }

    /// One frame tick: `elapsed` wall time passed at `speed`; `sim_now` is the newest
    /// snapshot's time. Returns a new grant for `advance_to`, if it moved by at least 1 ms.
    /// Pausing drops whatever was wanted but not yet granted.
    pub fn tick(&mut self, elapsed: Duration, speed: f64, paused: bool, sim_now: Ms) -> Option<Ms> {
        if paused {
            self.wanted = self.wanted.min(self.granted as f64);
        } else {
            self.wanted += elapsed.as_secs_f64() * 1000.0 * speed;
        }
        self.bound(speed, sim_now);
        self.grant(sim_now)
    }

    /// A new snapshot arrived: grant more of the wanted time if the lead allows it.
    pub fn refill(&mut self, sim_now: Ms) -> Option<Ms> {
        self.grant(sim_now)
    }

    /// Sim time jumped to `now` on its own (the `n` key ran it to the next event): nothing
    /// before it is wanted or granted any more.
    pub fn jump_to(&mut self, now: Ms) {
        self.granted = self.granted.max(now);
        self.wanted = self.wanted.max(self.granted as f64);
    }

    /// A single step of `ms` (while paused).
    pub fn step(&mut self, ms: Ms, sim_now: Ms) -> Option<Ms> {
        self.wanted = self.wanted.max(sim_now as f64) + ms as f64;
        self.bound(1.0, sim_now);
        self.grant(sim_now)
    }

    fn bound(&mut self, speed: f64, sim_now: Ms) {
        let now = sim_now as f64;
        let most = now + MAX_LEAD_MS + MAX_BACKLOG_WALL_MS * speed.max(1.0);
        self.wanted = self.wanted.clamp(now, most);
    }

    fn grant(&mut self, sim_now: Ms) -> Option<Ms> {
        let t = self.wanted.min(sim_now as f64 + MAX_LEAD_MS).floor() as Ms;
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
    fn a_hundredth_accumulates_sub_millisecond_ticks_into_whole_ms_grants() {
        // 0.01×: 0.33 sim ms per 33 ms tick. Nothing is lost or stalled: every third or
        // fourth tick grants the next whole ms, so a wall second grants 10 ms.
        let mut p = Pacer::new(0);
        let mut grants = Vec::new();
        for tick in 0..31 {
            if let Some(t) = p.tick(TICK, 0.01, false, p.granted()) {
                grants.push((tick, t));
            }
        }
        assert_eq!(grants.iter().map(|g| g.1).collect::<Vec<_>>(), (1..=10).collect::<Vec<_>>());
        assert!(grants.windows(2).all(|w| (3..=4).contains(&(w[1].0 - w[0].0))), "{grants:?}");
    }

    #[test]
    fn paused_grants_nothing_but_steps() {
        let mut p = Pacer::new(500);
        assert_eq!(p.tick(TICK, 1.0, true, 500), None);
        assert_eq!(p.step(100, 500), Some(600));
        assert_eq!(p.step(100, 500), Some(700));
    }

    #[test]
    fn grants_stay_within_a_second_of_the_sim_and_refill_as_it_catches_up() {
        let mut p = Pacer::new(0);
        // 100×: one tick wants 3.3 s, the lead allows 1 s now...
        assert_eq!(p.tick(TICK, 100.0, false, 0), Some(1000));
        assert_eq!(p.refill(0), None, "no progress: no new grant beyond the lead");
        // ...and each newer snapshot releases up to a second beyond itself.
        assert_eq!(p.refill(500), Some(1500));
        assert_eq!(p.refill(1500), Some(2500));
        assert_eq!(p.refill(2500), Some(3300));
        assert_eq!(p.refill(3300), None, "nothing wanted beyond 3.3 s yet");
    }

    #[test]
    fn a_slow_sim_builds_no_backlog_and_pause_drops_it() {
        let mut p = Pacer::new(0);
        // Ten wall seconds at 100× while the sim stands still: at most ~1 wall s is kept.
        p.tick(Duration::from_secs(10), 100.0, false, 0);
        let mut now = p.granted();
        while let Some(t) = p.refill(now) {
            now = t;
        }
        assert_eq!(now, 101_000);
        // Pausing forgets what was wanted but not granted.
        let mut p = Pacer::new(0);
        p.tick(Duration::from_secs(1), 100.0, false, 0);
        assert_eq!(p.tick(TICK, 100.0, true, 0), None);
        assert_eq!(p.refill(1000), None);
        assert_eq!(p.granted(), 1000);
    }
}
