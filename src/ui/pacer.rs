//! How the dashboard keeps sim time flowing.
//!
//! Each frame tick adds wall-elapsed × speed to the sim time the user *wants*. What is
//! *granted* to `live.advance_to` never runs more than [`MAX_LEAD_US`] ahead of the newest
//! snapshot; when a snapshot shows the sim caught up, [`Pacer::refill`] grants the next
//! slice at once (that is how 100× gets more than one lead per frame). The wanted time may
//! run at most one wall second (× speed) beyond that, so a sim that cannot keep up is not
//! buried under a growing backlog: the screen then runs slower than asked, honestly.
//!
//! Sim time is granted in microseconds, so slow motion is smooth: at 0.01× a 50 ms frame
//! grants 500 µs. The arithmetic is exact integers: the speed is read in millionths and the
//! part of a microsecond a tick earns is carried to the next, so over any run the wanted time
//! is wall time × speed to the microsecond (no drift, no lost fractions). Plain arithmetic:
//! the caller reads the wall clock, so this is tested without one.
//!
//! A lesson stops the clock at exact instants (a step that pauses, a question, a check): with
//! a [`Pacer::set_stop`] nothing is granted past that instant, by ticks, refills or steps
//! alike, so the sim stands exactly there until the stop is lifted.

use std::time::Duration;

use crate::sim::{Ms, SimTime};

/// How far a grant may run ahead of the newest snapshot (µs of sim time: one second).
pub const MAX_LEAD_US: u64 = 1_000_000;

/// How much wall time of backlog the wanted time may hold beyond the lead (µs).
const MAX_BACKLOG_WALL_US: u64 = 1_000_000;

/// Speeds are read in millionths (0.01× is 10 000).
const SPEED_SCALE: u128 = 1_000_000;

/// Wall nanoseconds × speed millionths per sim microsecond.
const PER_SIM_US: u128 = 1_000 * SPEED_SCALE;

/// The sim time the user wants and the part of it granted so far.
#[derive(Clone, Debug, PartialEq)]
pub struct Pacer {
    /// Sim µs wanted.
    wanted: u64,
    /// What the wall time so far earned beyond `wanted`, in wall ns × speed millionths
    /// (less than [`PER_SIM_US`]).
    carry: u128,
    granted: SimTime,
    /// No grant goes past this instant ([`Pacer::set_stop`]).
    stop: Option<SimTime>,
}

impl Pacer {
    /// Starts at the sim's current time.
    pub fn new(now: SimTime) -> Pacer {
        Pacer { wanted: now.as_micros(), carry: 0, granted: now, stop: None }
    }

    /// Grants nothing past `stop` from now on (`None`: no stop). The wanted time is kept,
    /// so lifting a stop the clock merely touched (a check) lets time flow on at once.
    pub fn set_stop(&mut self, stop: Option<SimTime>) {
        self.stop = stop;
    }

    /// The instant no grant passes, if any.
    pub fn stop(&self) -> Option<SimTime> {
        self.stop
    }

    /// The sim time granted so far.
    pub fn granted(&self) -> SimTime {
        self.granted
    }

    /// One frame tick: `elapsed` wall time passed at `speed` (sim per wall time; not finite
    /// or below 0 counts as 0); `sim_now` is the newest snapshot's time. Returns a new grant
    /// for `advance_to`, if it moved by at least 1 µs. Pausing drops whatever was wanted but
    /// not yet granted.
    pub fn tick(&mut self, elapsed: Duration, speed: f64, paused: bool, sim_now: SimTime) -> Option<SimTime> {
        if paused {
            self.wanted = self.wanted.min(self.granted.as_micros());
            self.carry = 0;
        } else {
            let earned = self.carry + elapsed.as_nanos() * millionths(speed);
            let whole = u64::try_from(earned / PER_SIM_US).unwrap_or(u64::MAX);
            self.wanted = self.wanted.saturating_add(whole);
            self.carry = earned % PER_SIM_US;
        }
        self.bound(speed, sim_now);
        self.grant(sim_now)
    }

    /// More sim time is wanted than the lead let [`Pacer::tick`] grant: the next snapshot
    /// should be taken in at once, so that [`Pacer::refill`] grants the rest.
    pub fn waiting(&self) -> bool {
        self.wanted > self.granted.as_micros() && self.stop.is_none_or(|s| self.granted < s)
    }

    /// A new snapshot arrived: grant more of the wanted time if the lead allows it.
    pub fn refill(&mut self, sim_now: SimTime) -> Option<SimTime> {
        self.grant(sim_now)
    }

    /// Sim time jumped to `now` on its own (the `n` key ran it to the next event): nothing
    /// before it is wanted or granted any more.
    pub fn jump_to(&mut self, now: SimTime) {
        self.granted = self.granted.max(now);
        if self.wanted < self.granted.as_micros() {
            self.wanted = self.granted.as_micros();
            self.carry = 0;
        }
    }

    /// A single step of `ms` (while paused).
    pub fn step(&mut self, ms: Ms, sim_now: SimTime) -> Option<SimTime> {
        self.wanted = self.wanted.max(sim_now.as_micros()).saturating_add(ms.saturating_mul(1000));
        self.bound(1.0, sim_now);
        self.grant(sim_now)
    }

    /// Keeps the wanted time between the sim's time and the lead plus a wall second of
    /// backlog; what is cut off is forgotten, with its carry.
    fn bound(&mut self, speed: f64, sim_now: SimTime) {
        let now = sim_now.as_micros();
        let backlog = (MAX_BACKLOG_WALL_US as u128 * millionths(speed.max(1.0)) / SPEED_SCALE) as u64;
        let most = now.saturating_add(MAX_LEAD_US).saturating_add(backlog);
        let bounded = self.wanted.clamp(now, most);
        if bounded != self.wanted {
            self.wanted = bounded;
            self.carry = 0;
        }
    }

    fn grant(&mut self, sim_now: SimTime) -> Option<SimTime> {
        let most = self.wanted.min(sim_now.as_micros().saturating_add(MAX_LEAD_US));
        let most = self.stop.map_or(most, |s| most.min(s.as_micros()));
        let t = SimTime::from_micros(most);
        (t > self.granted).then(|| {
            self.granted = t;
            t
        })
    }
}

/// `speed` in millionths, rounded (0 when not finite or negative).
fn millionths(speed: f64) -> u128 {
    if speed.is_finite() && speed > 0.0 { (speed * SPEED_SCALE as f64).round() as u128 } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TICK: Duration = Duration::from_millis(33);

    fn ms(ms: Ms) -> SimTime {
        SimTime::from_ms(ms)
    }

    fn us(us: u64) -> SimTime {
        SimTime::from_micros(us)
    }

    #[test]
    fn running_advances_by_wall_time_times_speed() {
        let mut p = Pacer::new(ms(0));
        assert_eq!(p.tick(TICK, 1.0, false, ms(0)), Some(ms(33)));
        assert_eq!(p.tick(TICK, 2.0, false, ms(33)), Some(ms(99)));
        // 0.1×: 3.3 ms per tick, to the microsecond.
        let mut slow = Pacer::new(ms(0));
        let grants: Vec<_> = (0..3).filter_map(|_| slow.tick(TICK, 0.1, false, ms(0))).collect();
        assert_eq!(grants, [us(3_300), us(6_600), us(9_900)]);
    }

    #[test]
    fn a_hundredth_grants_microseconds_every_tick() {
        // 0.01×: 330 sim µs per 33 ms tick, every tick: slow motion does not stutter.
        let mut p = Pacer::new(ms(0));
        let grants: Vec<_> = (0..4).map(|_| p.tick(TICK, 0.01, false, p.granted())).collect();
        assert_eq!(grants, [Some(us(330)), Some(us(660)), Some(us(990)), Some(us(1_320))]);
    }

    #[test]
    fn fractions_of_a_microsecond_carry_over_so_nothing_drifts() {
        // 60 fps frames of 16 666 667 ns at 0.01× earn 166.666 67 µs each: the grants move
        // by 166 or 167 µs, and after 3 000 frames (50.000 001 wall s) exactly 500 000 µs
        // (⌊50 000 001 000 ns × 0.01 / 1000⌋) are granted.
        let frame = Duration::from_nanos(16_666_667);
        let mut p = Pacer::new(ms(0));
        let mut last = p.granted();
        for _ in 0..3_000 {
            let t = p.tick(frame, 0.01, false, p.granted()).expect("every frame grants");
            assert!((166..=167).contains(&t.micros_since(last)), "{t} after {last}");
            last = t;
        }
        assert_eq!(p.granted(), us(500_000));
        // The same wall time in one go gives the same time: no loss from many small ticks.
        let mut once = Pacer::new(ms(0));
        once.tick(frame * 3_000, 0.01, false, ms(0));
        assert_eq!(once.wanted, 500_000);
        // A speed is read to the millionth: ⅓× runs at 0.333 333×.
        let mut third = Pacer::new(ms(0));
        let t = (0..3).filter_map(|_| third.tick(Duration::from_millis(1), 1.0 / 3.0, false, ms(0))).last();
        assert_eq!(t, Some(us(999)), "⌊3 000 000 ns × 0.333 333 / 1000⌋");
    }

    #[test]
    fn paused_grants_nothing_but_steps() {
        let mut p = Pacer::new(ms(500));
        assert_eq!(p.tick(TICK, 1.0, true, ms(500)), None);
        assert_eq!(p.step(100, ms(500)), Some(ms(600)));
        assert_eq!(p.step(100, ms(500)), Some(ms(700)));
        // A step from a µs instant (after `n`) keeps its microseconds.
        let mut p = Pacer::new(us(1_234_567));
        assert_eq!(p.step(100, us(1_234_567)), Some(us(1_334_567)));
    }

    #[test]
    fn jumping_to_an_event_moves_the_grant_to_its_microsecond() {
        let mut p = Pacer::new(ms(0));
        p.jump_to(us(2_250));
        assert_eq!(p.granted(), us(2_250));
        assert_eq!(p.tick(TICK, 0.01, false, us(2_250)), Some(us(2_580)));
    }

    #[test]
    fn grants_stay_within_a_second_of_the_sim_and_refill_as_it_catches_up() {
        let mut p = Pacer::new(ms(0));
        // 100×: one tick wants 3.3 s, the lead allows 1 s now...
        assert_eq!(p.tick(TICK, 100.0, false, ms(0)), Some(ms(1000)));
        assert_eq!(p.refill(ms(0)), None, "no progress: no new grant beyond the lead");
        // ...and each newer snapshot releases up to a second beyond itself.
        assert_eq!(p.refill(ms(500)), Some(ms(1500)));
        assert_eq!(p.refill(ms(1500)), Some(ms(2500)));
        assert_eq!(p.refill(ms(2500)), Some(ms(3300)));
        assert_eq!(p.refill(ms(3300)), None, "nothing wanted beyond 3.3 s yet");
    }

    #[test]
    fn a_slow_sim_builds_no_backlog_and_pause_drops_it() {
        let mut p = Pacer::new(ms(0));
        // Ten wall seconds at 100× while the sim stands still: at most ~1 wall s is kept.
        p.tick(Duration::from_secs(10), 100.0, false, ms(0));
        let mut now = p.granted();
        while let Some(t) = p.refill(now) {
            now = t;
        }
        assert_eq!(now, ms(101_000));
        // Pausing forgets what was wanted but not granted.
        let mut p = Pacer::new(ms(0));
        p.tick(Duration::from_secs(1), 100.0, false, ms(0));
        assert_eq!(p.tick(TICK, 100.0, true, ms(0)), None);
        assert_eq!(p.refill(ms(1000)), None);
        assert_eq!(p.granted(), ms(1000));
    }

    #[test]
    fn nothing_is_granted_past_a_stop_by_ticks_refills_or_steps() {
        let mut p = Pacer::new(ms(0));
        p.set_stop(Some(us(50_250)));
        assert_eq!(p.tick(TICK, 1.0, false, ms(0)), Some(ms(33)));
        assert_eq!(p.tick(TICK, 1.0, false, ms(33)), Some(us(50_250)), "exactly the stop");
        assert!(!p.waiting(), "nothing more can be granted: no snapshot is waited for");
        assert_eq!(p.tick(TICK, 1.0, false, us(50_250)), None);
        assert_eq!(p.refill(us(50_250)), None);
        assert_eq!(p.step(100, us(50_250)), None, "a step stops there too");
        // 100×: a tick wants 3.3 s, but the grant ends at the stop.
        let mut fast = Pacer::new(ms(0));
        fast.set_stop(Some(ms(700)));
        assert_eq!(fast.tick(TICK, 100.0, false, ms(0)), Some(ms(700)));
        // Lifted, the time wanted meanwhile is granted at once, up to the next stop.
        fast.set_stop(Some(ms(2_000)));
        assert_eq!(fast.refill(ms(700)), Some(ms(1_700)), "a second's lead beyond the snapshot");
        fast.set_stop(None);
        assert_eq!(fast.refill(ms(1_700)), Some(ms(2_700)));
        assert_eq!(fast.stop(), None);
    }

    #[test]
    fn a_speed_that_is_not_a_number_grants_nothing() {
        let mut p = Pacer::new(ms(0));
        assert_eq!(p.tick(TICK, f64::NAN, false, ms(0)), None);
        assert_eq!(p.tick(TICK, -1.0, false, ms(0)), None);
    }
}
