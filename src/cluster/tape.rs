//! The sim thread's tape: the running [`Sim`] with checkpoints of it every
//! [`CHECKPOINT_EVERY_MS`] of sim time, the commands applied with their instants, and the
//! branches that acting in the past made. Rewinding to an instant restores the checkpoint
//! before it and runs on to it, applying the same commands at the same instants, so the
//! cluster is exactly as it was then (the same trace). The commands after that instant stay
//! on the tape and play again as time runs on; a command applied in the past starts a new
//! branch from that instant, and the old future is kept as a branch to go back to.

use super::handle::{Frozen, Sim, SimError, Timeline, advance, apply_before_end, next_event_to};
use super::snapshot::{ScenarioInfo, Snapshot, WhatIfView};
use crate::cluster::command::{Answer, Command};
use crate::sim::{Ms, SimTime};
use std::rc::Rc;

/// Sim time between two checkpoints (ms). Measured by `benches/rewind.rs` on the default
/// cluster: a rewind restores the checkpoint at or before the instant (a copy of a frozen
/// world) and re-runs at most this much sim time (the hour runs at about 0.8 ms of wall time
/// per sim second, so ≤ 0.1 s), inside 0.2 s; a checkpoint of the default cluster takes
/// about 5 MB on average over the first hour (20 s gave 181 checkpoints and 940 MB), so one
/// hour's 31 stay under 200 MB. The figures are in the performance chapter.
pub const CHECKPOINT_EVERY_MS: Ms = 120_000;

/// Most checkpoints a branch keeps: about an hour of sim time at [`CHECKPOINT_EVERY_MS`].
/// Past that, every other one of the older half goes (the first, at 0, stays), so a long
/// session's checkpoints stay bounded in number and going far back re-runs a little more.
pub const MAX_CHECKPOINTS: usize = 32;

/// A frozen copy of the run at one instant.
struct Checkpoint {
    at: SimTime,
    world: Frozen,
    /// The scenario's scheduled commands not yet applied then.
    timeline: Timeline,
    /// How many of the branch's commands had been applied then.
    commands_before: usize,
}

/// One history of the run: the user's commands with their instants, its checkpoints and the
/// latest instant it reached.
#[derive(Clone)]
struct Branch {
    commands: Vec<(SimTime, Command)>,
    checkpoints: Vec<Rc<Checkpoint>>,
    tip: SimTime,
    /// The branch (number) and instant it was forked from; `None` for the first.
    parent: Option<(usize, SimTime)>,
}

/// What [`Tape::branches`] tells about one branch.
#[derive(Clone, Debug, PartialEq)]
pub struct BranchInfo {
    /// Its number, from 1 (the run as it started).
    pub number: usize,
    /// The branch and instant it was forked from (`None` for branch 1).
    pub parent: Option<(usize, SimTime)>,
    /// The latest instant it reached.
    pub tip: SimTime,
    /// Its commands with their instants, oldest first.
    pub commands: Vec<(SimTime, Command)>,
    /// Whether it is the branch the run is on.
    pub current: bool,
}

/// The what-if run beside the current one ([`Tape::start_whatif`]): a fork of the present
/// with one setting changed, kept at the current run's instant and given the same commands.
struct Twin {
    sim: Sim,
    timeline: Timeline,
    /// The `set` command it was forked with.
    setting: Command,
    /// The instant it was forked at.
    since: SimTime,
    /// Its history as a branch would hold it: the current branch's commands before the fork,
    /// the setting, then every command it took since.
    commands: Vec<(SimTime, Command)>,
}

/// The running sim with its checkpoints and branches (see the module doc).
pub struct Tape {
    sim: Sim,
    timeline: Timeline,
    end: Option<SimTime>,
    branches: Vec<Branch>,
    current: usize,
    /// How many of the current branch's commands the sim has applied.
    applied: usize,
    every: Ms,
    /// The what-if run, while one is compared with the current run.
    twin: Option<Twin>,
}

impl Tape {
    /// A tape of `sim` (at its start) with the scenario's scheduled commands and end.
    pub fn new(sim: Sim, timeline: Vec<(SimTime, Command)>, end: Option<SimTime>) -> Tape {
        Tape::with_interval(sim, timeline, end, CHECKPOINT_EVERY_MS)
    }

    /// [`Tape::new`] with checkpoints every `every` ms (at least 1) instead of
    /// [`CHECKPOINT_EVERY_MS`].
    pub fn with_interval(
        sim: Sim,
        mut timeline: Vec<(SimTime, Command)>,
        end: Option<SimTime>,
        every: Ms,
    ) -> Tape {
        timeline.sort_by_key(|(t, _)| *t);
        let mut tape = Tape {
            sim,
            timeline: timeline.into_iter().peekable(),
            end,
            branches: vec![Branch {
                commands: Vec::new(),
                checkpoints: Vec::new(),
                tip: SimTime::ZERO,
                parent: None,
            }],
            current: 0,
            applied: 0,
            every: every.max(1),
            twin: None,
        };
        tape.checkpoint();
        tape
    }

    /// The running sim.
    pub fn sim(&self) -> &Sim {
        &self.sim
    }

    /// The scenario's end, if any.
    pub fn end(&self) -> Option<SimTime> {
        self.end
    }

    fn branch(&self) -> &Branch {
        &self.branches[self.current]
    }

    fn checkpoint(&mut self) {
        let now = self.sim.now_us();
        let applied = self.applied;
        let world = self.sim.freeze();
        let timeline = self.timeline.clone();
        let branch = &mut self.branches[self.current];
        branch.checkpoints.push(Rc::new(Checkpoint { at: now, world, timeline, commands_before: applied }));
        if branch.checkpoints.len() > MAX_CHECKPOINTS {
            let half = branch.checkpoints.len() / 2;
            let mut i = 0;
            branch.checkpoints.retain(|_| {
                i += 1;
                i > half || i % 2 == 1
            });
        }
    }

    /// After time moved: a checkpoint when one is due, and the tip follows.
    fn moved(&mut self) {
        let now = self.sim.now_us();
        let last = self.branch().checkpoints.last().map_or(SimTime::ZERO, |c| c.at);
        if now.micros_since(last) >= self.every * 1000 && now > last {
            self.checkpoint();
        }
        let branch = &mut self.branches[self.current];
        branch.tip = branch.tip.max(now);
    }

    /// The instant of the current branch's next command not yet applied.
    fn next_command_at(&self) -> Option<SimTime> {
        self.branch().commands.get(self.applied).map(|(at, _)| *at)
    }

    /// Applies the current branch's commands due by `t` (each after running to its instant).
    fn replay_until(&mut self, t: SimTime, inclusive: bool) {
        while let Some(at) = self.next_command_at().filter(|at| if inclusive { *at <= t } else { *at < t }) {
            advance(&mut self.sim, &mut self.timeline, Some(at), self.end);
            let cmd = self.branch().commands[self.applied].1.clone();
            let _ = apply_before_end(&mut self.sim, &cmd, self.end);
            let _ = self.twin_apply(&cmd);
            self.applied += 1;
            self.moved();
        }
    }

    /// Runs sim time up to `target` (never past the end), applying scheduled commands and the
    /// branch's own later commands on the way.
    pub fn advance(&mut self, target: Option<SimTime>) {
        let Some(t) = target else { return };
        // Step through checkpoint instants so a long jump still leaves checkpoints behind.
        loop {
            let last = self.branch().checkpoints.last().map_or(SimTime::ZERO, |c| c.at);
            let due = last.plus_micros(self.every * 1000);
            let step = due.min(t);
            self.replay_until(step, true);
            advance(&mut self.sim, &mut self.timeline, Some(step), self.end);
            let before = self.sim.now_us();
            self.moved();
            if step >= t || self.end.is_some_and(|e| before >= e) || before < step {
                break;
            }
        }
        self.twin_follow();
    }

    /// Applies `cmd` now. In the past of the current branch (after a rewind) an accepted
    /// command starts a new branch from this instant; the old one keeps its future (a refused
    /// one changes nothing and starts none). Errors: the refusal.
    pub fn apply(&mut self, cmd: &Command) -> Result<Answer, SimError> {
        let now = self.sim.now_us();
        let in_past = self.applied < self.branch().commands.len() || now < self.branch().tip;
        let mut result = apply_before_end(&mut self.sim, cmd, self.end);
        if in_past && result.is_err() {
            return result;
        }
        if let (Ok(answer), Some(Err(why))) = (&mut result, self.twin_apply(cmd)) {
            let note = format!("the what-if run refused it: {why}");
            answer.note = Some(answer.note.take().map_or(note.clone(), |n| format!("{n}; {note}")));
        }
        if in_past {
            let old = self.branch();
            let fork = Branch {
                commands: old.commands[..self.applied].to_vec(),
                checkpoints: old.checkpoints.iter().filter(|c| c.at <= now).cloned().collect(),
                tip: now,
                parent: Some((self.current + 1, now)),
            };
            self.branches.push(fork);
            self.current = self.branches.len() - 1;
        }
        if self.end.is_none_or(|e| now < e) {
            self.branches[self.current].commands.push((now, cmd.clone()));
            self.applied += 1;
        }
        result
    }

    /// [`Sim::run_to_next_event`] within `within` ms and never past `stop` or the end; scheduled
    /// commands and the branch's later commands on the way are applied.
    pub fn next_event(&mut self, within: Ms, stop: Option<SimTime>) -> Option<SimTime> {
        let found = self.next_event_here(within, stop);
        self.twin_follow();
        found
    }

    /// [`Tape::next_event`] of the current run alone.
    fn next_event_here(&mut self, within: Ms, stop: Option<SimTime>) -> Option<SimTime> {
        let look_ahead = self.sim.now_us().plus_micros(within.saturating_mul(1000));
        let deadline = [Some(look_ahead), stop, self.end].into_iter().flatten().min().unwrap_or(look_ahead);
        loop {
            let until = self.next_command_at().map_or(deadline, |at| at.clamp(self.sim.now_us(), deadline));
            let found = next_event_to(&mut self.sim, &mut self.timeline, until);
            self.moved();
            if found.is_some() {
                return found;
            }
            if self.next_command_at().is_none_or(|at| at > deadline) {
                return None;
            }
            let before = self.sim.trace_len();
            self.replay_until(until, true);
            if self.sim.trace_len() > before {
                return Some(self.sim.now_us());
            }
        }
    }

    /// Puts the run back at `t` on the current branch: restores the latest checkpoint before
    /// `t` and runs on to `t`, applying the branch's commands before `t` at their instants
    /// (those at `t` and after stay on the tape and play as time runs on). Errors: the
    /// checkpoint's driver could not start (the run stays where it was).
    pub fn rewind_to(&mut self, t: SimTime) -> Result<(), SimError> {
        self.twin = None;
        let t = self.end.map_or(t, |e| t.min(e));
        let branch = self.branch();
        let cp = branch.checkpoints.iter().rev().find(|c| c.at < t || c.at == SimTime::ZERO).cloned();
        let Some(cp) = cp else { return Err(SimError::InvalidState("no checkpoint to rewind to".into())) };
        let sim = Sim::thaw(&cp.world, self.sim.driver())?;
        self.sim = sim;
        self.timeline = cp.timeline.clone();
        self.applied = cp.commands_before;
        self.replay_until(t, false);
        advance(&mut self.sim, &mut self.timeline, Some(t), self.end);
        Ok(())
    }

    /// Every branch, branch 1 first.
    pub fn branches(&self) -> Vec<BranchInfo> {
        let mut out = Vec::new();
        for (i, b) in self.branches.iter().enumerate() {
            out.push(BranchInfo {
                number: i + 1,
                parent: b.parent,
                tip: b.tip,
                commands: b.commands.clone(),
                current: i == self.current,
            });
        }
        out
    }

    /// The current branch's number (from 1).
    pub fn current_branch(&self) -> usize {
        self.current + 1
    }

    /// Switches to branch `number` (from 1) at the latest instant it reached. Errors: no such
    /// branch, or the rewind failed.
    pub fn switch_to(&mut self, number: usize) -> Result<(), SimError> {
        if number == 0 || number > self.branches.len() {
            return Err(SimError::InvalidState(format!(
                "there is no branch {number}: the branches are 1 to {}",
                self.branches.len()
            )));
        }
        self.twin = None;
        let previous = self.current;
        self.current = number - 1;
        let tip = self.branch().tip;
        let result = self.rewind_to(tip);
        if result.is_err() {
            self.current = previous;
        }
        result
    }
}

/// What-if: the present forked into two runs, one with a setting changed, run side by side.
impl Tape {
    /// Forks the present into a what-if run with `setting` (a `set` command) applied, which
    /// from now on runs beside the current one: time advances both to the same instants, and
    /// every later command (the user's, and the branch's own as they replay) is applied to
    /// both. Errors: a what-if is on already, the fork's driver could not start, or the what-if
    /// run refused the setting (nothing changes then).
    pub fn start_whatif(&mut self, setting: &Command) -> Result<Answer, SimError> {
        if let Some(twin) = &self.twin {
            return Err(SimError::InvalidState(format!(
                "a what-if ({}) is on already: leave it first",
                twin.setting
            )));
        }
        let mut sim = self.sim.fork()?;
        let answer = apply_before_end(&mut sim, setting, self.end)?;
        let since = self.sim.now_us();
        let mut commands = self.branch().commands[..self.applied].to_vec();
        commands.push((since, setting.clone()));
        let timeline = self.timeline.clone();
        self.twin = Some(Twin { sim, timeline, setting: setting.clone(), since, commands });
        Ok(answer)
    }

    /// Ends the what-if. With `keep_whatif` the what-if run goes on as the run, on a new
    /// branch forked at the what-if's instant (its commands: the branch's before it, the
    /// setting, and those given since), and the run it was compared with stays a branch to
    /// go back to; otherwise the what-if run is dropped. Errors: no what-if is on.
    pub fn end_whatif(&mut self, keep_whatif: bool) -> Result<(), SimError> {
        let Some(twin) = self.twin.take() else {
            return Err(SimError::InvalidState("no what-if is on".into()));
        };
        if !keep_whatif {
            return Ok(());
        }
        let Twin { sim, timeline, since, commands, .. } = twin;
        let now = sim.now_us();
        let old = self.branch();
        let branch = Branch {
            checkpoints: old.checkpoints.iter().filter(|c| c.at <= since).cloned().collect(),
            tip: now,
            parent: Some((self.current + 1, since)),
            commands,
        };
        self.applied = branch.commands.len();
        self.branches.push(branch);
        self.current = self.branches.len() - 1;
        self.sim = sim;
        self.timeline = timeline;
        Ok(())
    }

    /// The what-if run as the dashboard shows it, naming `scenario`; `None` when no what-if
    /// is on.
    pub fn whatif_view(&self, scenario: Option<ScenarioInfo>) -> Option<WhatIfView> {
        let twin = self.twin.as_ref()?;
        Some(WhatIfView {
            setting: twin.setting.clone(),
            since: twin.since,
            snapshot: Snapshot { scenario, ..twin.sim.snapshot() },
        })
    }

    /// The what-if run, if one is on (for tests and headless callers).
    pub fn whatif_sim(&self) -> Option<&Sim> {
        self.twin.as_ref().map(|t| &t.sim)
    }

    /// Runs the what-if run up to the current run's instant.
    fn twin_follow(&mut self) {
        let now = self.sim.now_us();
        if let Some(twin) = &mut self.twin {
            advance(&mut twin.sim, &mut twin.timeline, Some(now), self.end);
        }
    }

    /// Applies `cmd` to the what-if run at the current run's instant; `None` without one.
    fn twin_apply(&mut self, cmd: &Command) -> Option<Result<Answer, SimError>> {
        self.twin_follow();
        let end = self.end;
        let twin = self.twin.as_mut()?;
        let now = twin.sim.now_us();
        let result = apply_before_end(&mut twin.sim, cmd, end);
        if end.is_none_or(|e| now < e) {
            twin.commands.push((now, cmd.clone()));
        }
        Some(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::spec::ClusterSpec;

    fn cmd(s: &str) -> Command {
        Command::parse(s).unwrap()
    }

    /// A rewind gives exactly the cluster a fresh run stopped there gives: the same trace
    /// hash and the same snapshot, commands before the instant included.
    #[test]
    fn a_rewind_gives_the_cluster_a_fresh_run_stopped_there_gives() {
        let mut tape =
            Tape::with_interval(Sim::new(ClusterSpec::default_run(3)).unwrap(), Vec::new(), None, 5_000);
        tape.advance(Some(SimTime::from_ms(7_300)));
        tape.apply(&cmd("crash 2")).unwrap();
        tape.advance(Some(SimTime::from_ms(31_000)));
        tape.apply(&cmd("restart 2")).unwrap();
        tape.advance(Some(SimTime::from_ms(60_000)));
        for t in [45_123_456, 7_300_000, 12_000_000, 31_000_001, 2_000] {
            let t = SimTime::from_micros(t);
            tape.rewind_to(t).unwrap();
            let mut fresh = Sim::new(ClusterSpec::default_run(3)).unwrap();
            for (at, c) in [(7_300, "crash 2"), (31_000, "restart 2")] {
                if SimTime::from_ms(at) < t {
                    fresh.advance_to(at);
                    fresh.apply(&cmd(c)).unwrap();
                }
            }
            fresh.advance_to_time(t);
            assert_eq!(tape.sim().now_us(), t);
            assert_eq!(tape.sim().trace_hash(), fresh.trace_hash(), "at {t}");
            assert_eq!(tape.sim().snapshot().partitions, fresh.snapshot().partitions, "at {t}");
        }
        // Run on from a rewind without acting: the tape's later commands play again.
        tape.rewind_to(SimTime::from_ms(1_000)).unwrap();
        tape.advance(Some(SimTime::from_ms(60_000)));
        assert_eq!(tape.branches().len(), 1, "no command, no branch");
        assert_eq!(tape.sim().commands().len(), 2);
    }

    /// A command in the past starts branch 2; branch 1 keeps its future and switching back
    /// gives its trace again.
    #[test]
    fn acting_in_the_past_forks_and_the_old_future_stays_a_branch() {
        let mut tape =
            Tape::with_interval(Sim::new(ClusterSpec::default_run(3)).unwrap(), Vec::new(), None, 5_000);
        tape.advance(Some(SimTime::from_ms(10_000)));
        tape.apply(&cmd("crash 1")).unwrap();
        tape.advance(Some(SimTime::from_ms(30_000)));
        let first = tape.sim().trace_hash();
        tape.rewind_to(SimTime::from_ms(5_000)).unwrap();
        tape.apply(&cmd("set acks=1")).unwrap();
        tape.advance(Some(SimTime::from_ms(20_000)));
        let branches = tape.branches();
        assert_eq!(branches.len(), 2);
        assert_eq!(branches[1].parent, Some((1, SimTime::from_ms(5_000))));
        assert!(branches[1].current);
        assert_eq!(branches[1].commands, vec![(SimTime::from_ms(5_000), cmd("set acks=1"))]);
        assert_eq!(branches[0].commands, vec![(SimTime::from_ms(10_000), cmd("crash 1"))]);
        let second = tape.sim().trace_hash();
        tape.switch_to(1).unwrap();
        assert_eq!(tape.sim().now_us(), SimTime::from_ms(30_000));
        assert_eq!(tape.sim().trace_hash(), first);
        tape.switch_to(2).unwrap();
        assert_eq!(tape.sim().trace_hash(), second);
        assert!(tape.switch_to(3).is_err());
    }

    /// A what-if runs beside the run with the same later commands at the same instants;
    /// kept, it becomes a branch whose replay gives its trace exactly, and the run it was
    /// compared with stays branch 1.
    #[test]
    fn a_kept_whatif_is_a_branch_that_replays_to_its_own_trace() {
        let mut tape =
            Tape::with_interval(Sim::new(ClusterSpec::default_run(3)).unwrap(), Vec::new(), None, 5_000);
        tape.advance(Some(SimTime::from_ms(4_000)));
        tape.start_whatif(&cmd("set producer acks=1")).unwrap();
        assert!(tape.start_whatif(&cmd("set producer acks=0")).is_err(), "one what-if at a time");
        tape.advance(Some(SimTime::from_ms(9_000)));
        tape.apply(&cmd("crash 1")).unwrap();
        tape.advance(Some(SimTime::from_ms(20_000)));
        let twin = tape.whatif_sim().unwrap();
        assert_eq!(twin.now_us(), tape.sim().now_us(), "both runs stand at the same instant");
        let crashes = |sim: &Sim| sim.commands().iter().filter(|c| c.command == cmd("crash 1")).count();
        assert_eq!(crashes(twin), 1, "the later command reached the what-if run");
        let (run, whatif) = (tape.sim().trace_hash(), twin.trace_hash());
        assert_ne!(run, whatif, "the setting made a difference");

        tape.end_whatif(true).unwrap();
        assert!(tape.whatif_sim().is_none());
        assert_eq!(tape.sim().trace_hash(), whatif, "the what-if run goes on");
        let branches = tape.branches();
        assert_eq!(branches[1].parent, Some((1, SimTime::from_ms(4_000))));
        assert_eq!(branches[1].commands.len(), 2, "{:?}", branches[1].commands);
        tape.rewind_to(SimTime::from_ms(3_000)).unwrap();
        tape.advance(Some(SimTime::from_ms(20_000)));
        assert_eq!(tape.sim().trace_hash(), whatif, "the branch replays to the what-if's trace");
        tape.switch_to(1).unwrap();
        assert_eq!(tape.sim().trace_hash(), run, "the compared run stays branch 1");
        assert!(tape.end_whatif(false).is_err(), "no what-if is on");
    }
}
