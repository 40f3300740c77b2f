//! The dashboard played without a terminal: a [`Sim`] stepped through a scenario's timeline
//! and the dashboard's own model and view ([`crate::ui::app`], [`crate::ui::view::view`])
//! drawn on ratatui's `TestBackend`, so an exported screen is the cell buffer the dashboard
//! would show at that instant.
//!
//! The model takes in a snapshot every [`FRAME_US`] of sim time, as the live dashboard takes
//! one per frame, and the scenario's commands are applied at their exact instants, as the
//! dashboard's sim thread applies them. A lesson's narration and questions are not drawn.

use crate::cluster::command::Command;
use crate::cluster::handle::{Sim, SimError};
use crate::cluster::snapshot::{ScenarioInfo, Snapshot};
use crate::cluster::spec::ClusterSpec;
use crate::scenario::Action;
use crate::scenario::runner::Driven;
use crate::sim::{SimTime, format_instant};
use crate::ui::app::{Model, Msg, update};
use crate::ui::theme::Theme;
use crate::ui::view;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;

/// Sim time between two snapshots the model takes in, and between two frames of a cast
/// (µs): 10 frames per sim second.
pub const FRAME_US: u64 = 100_000;

/// A screen size in cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    /// Columns.
    pub width: u16,
    /// Rows.
    pub height: u16,
}

/// The scenario a [`Player`] plays.
#[derive(Clone, Debug)]
pub struct Play {
    /// The cluster.
    pub spec: ClusterSpec,
    /// The `[[at]]` steps, in time order.
    pub timeline: Vec<Action>,
    /// The scenario's name and end, as the dashboard's header shows them.
    pub info: ScenarioInfo,
}

/// The dashboard on a sim, stepped by the caller.
pub struct Player {
    sim: Sim,
    timeline: Vec<(SimTime, Command, bool)>,
    next: usize,
    info: ScenarioInfo,
    model: Model,
    terminal: Terminal<TestBackend>,
    snap: Snapshot,
    refused: Vec<String>,
}

impl Player {
    /// Starts `play`'s cluster at time 0 with a dashboard of `size` drawn in `theme`.
    /// Errors: the cluster cannot start.
    pub fn new(play: &Play, size: Size, theme: Theme) -> Result<Player, SimError> {
        let sim = Sim::new(play.spec.clone())?;
        let timeline = play
            .timeline
            .iter()
            .filter_map(|a| a.command.clone().map(|c| (a.at, c, a.refused.is_some())))
            .collect();
        let snap = Snapshot { scenario: Some(play.info.clone()), ..Driven::snapshot(&sim) };
        let mut model = Model::new(1.0, theme, &snap);
        update(&mut model, Msg::Resize(size.width, size.height), &snap);
        let terminal = Terminal::new(TestBackend::new(size.width, size.height))
            .map_err(|e| SimError::InvalidCluster(format!("cannot make a screen: {e}")))?;
        Ok(Player {
            sim,
            timeline,
            next: 0,
            info: play.info.clone(),
            model,
            terminal,
            snap,
            refused: Vec::new(),
        })
    }

    /// Sim time now.
    pub fn now(&self) -> SimTime {
        self.snap.now_us
    }

    /// The snapshot the screen shows.
    pub fn snapshot(&self) -> &Snapshot {
        &self.snap
    }

    /// Commands the cluster refused that the file did not expect to be refused, as
    /// `at TIME `COMMAND` was refused: WHY`.
    pub fn refused(&self) -> &[String] {
        &self.refused
    }

    /// Runs to `t` (never back), applying the commands due on the way at their instants and
    /// handing the model a snapshot at every [`FRAME_US`] boundary and at `t`.
    pub fn advance_to(&mut self, t: SimTime) {
        if self.apply_due() {
            self.take_snapshot(self.now());
        }
        while self.now() < t {
            let frame = SimTime::from_micros((self.now().as_micros() / FRAME_US + 1) * FRAME_US);
            let command = self.timeline.get(self.next).map(|(at, _, _)| *at).filter(|at| *at <= t);
            let target = command.into_iter().chain([frame, t]).min().unwrap_or(t).max(self.now());
            Driven::advance_to(&mut self.sim, target);
            self.apply_due();
            self.take_snapshot(target);
        }
    }

    /// Applies the commands due by the sim's instant; whether there were any.
    fn apply_due(&mut self) -> bool {
        let now = Driven::now(&self.sim);
        let mut any = false;
        while let Some((at, cmd, expected)) = self.timeline.get(self.next).filter(|(at, _, _)| *at <= now) {
            if let Err(e) = Driven::apply(&mut self.sim, cmd)
                && !expected
            {
                self.refused.push(format!("at {} `{cmd}` was refused: {e}", format_instant(*at)));
            }
            self.next += 1;
            any = true;
        }
        any
    }

    fn take_snapshot(&mut self, at: SimTime) {
        debug_assert_eq!(Driven::now(&self.sim), at, "the sim stands where it was run to");
        self.snap = Snapshot { scenario: Some(self.info.clone()), ..Driven::snapshot(&self.sim) };
        update(&mut self.model, Msg::Snapshot, &self.snap);
    }

    /// Draws the dashboard as it stands and returns its cells.
    pub fn draw(&mut self) -> &Buffer {
        let (model, snap) = (&self.model, &self.snap);
        // The test backend cannot fail to draw.
        let _ = self.terminal.draw(|f| view::view(model, snap, f));
        self.terminal.backend().buffer()
    }
}
