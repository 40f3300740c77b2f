//! The whole dashboard in process against the real simulation with its tape
//! ([`ScheduledSim`], the dashboard's sim-thread code run in the caller's thread): keys go
//! through the event loop's input path, and sim time moves only when the test says so.

use super::Screen;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use isrlab::cluster::handle::ScheduledSim;
use isrlab::cluster::snapshot::Snapshot;
use isrlab::cluster::spec::ClusterSpec;
use isrlab::scenario::recording::{Origin, Recording};
use isrlab::sim::Ms;
use isrlab::ui::app::{Model, Msg, update};
use isrlab::ui::pacer::Pacer;
use isrlab::ui::theme::Theme;
use isrlab::ui::{Cluster, handle_input, view};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::sync::Arc;

/// The dashboard's model over a [`ScheduledSim`], recorded as a session from the flags.
pub struct App {
    pub sim: ScheduledSim,
    pub model: Model,
    pub pacer: Pacer,
    pub snap: Arc<Snapshot>,
}

impl App {
    /// `spec` on a `cols`×`rows` screen, recorded.
    pub fn start(spec: ClusterSpec, cols: u16, rows: u16) -> App {
        let sim = ScheduledSim::new(spec.clone(), Vec::new(), None).expect("the run is valid");
        let snap = Cluster::latest(&sim);
        let mut model = Model::new(1.0, Theme::new(false), &snap);
        model.recording = Some(Recording::new(Origin::Flags { sets: Vec::new() }, spec));
        update(&mut model, Msg::Resize(cols, rows), &snap);
        let pacer = Pacer::new(snap.now_us);
        App { sim, model, pacer, snap }
    }

    pub fn key(&mut self, code: KeyCode) {
        let key = Msg::Key(KeyEvent::new(code, KeyModifiers::NONE));
        assert!(!handle_input(key, &mut self.model, &self.sim, &mut self.pacer, &mut self.snap));
    }

    pub fn press(&mut self, keys: &str) {
        for c in keys.chars() {
            self.key(KeyCode::Char(c));
        }
    }

    /// A left click (or, with `drag`, a drag) at column `col`, row `row`.
    pub fn click(&mut self, col: u16, row: u16, drag: bool) {
        use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
        let kind = if drag {
            MouseEventKind::Drag(MouseButton::Left)
        } else {
            MouseEventKind::Down(MouseButton::Left)
        };
        let ev = MouseEvent { kind, column: col, row, modifiers: KeyModifiers::NONE };
        assert!(!handle_input(Msg::Mouse(ev), &mut self.model, &self.sim, &mut self.pacer, &mut self.snap));
    }

    /// `:LINE` Enter.
    pub fn palette(&mut self, line: &str) {
        self.press(":");
        self.press(line);
        self.key(KeyCode::Enter);
    }

    /// Runs sim time `ms` on and shows the model the newest snapshot.
    pub fn run_for(&mut self, ms: Ms) {
        Cluster::advance_to(&self.sim, self.snap.now_us.plus_micros(ms * 1000));
        self.snap = Cluster::latest(&self.sim);
        update(&mut self.model, Msg::Snapshot, &self.snap);
    }

    pub fn screen(&self) -> Screen {
        let (cols, rows) = self.model.screen;
        let mut terminal = Terminal::new(TestBackend::new(cols, rows)).expect("a test backend");
        terminal.draw(|frame| view::view(&self.model, &self.snap, frame)).expect("a frame");
        Screen::of_buffer(terminal.backend().buffer())
    }

    pub fn status(&self) -> String {
        self.model.status.as_ref().map(|s| s.text.clone()).unwrap_or_default()
    }
}

/// The screen's rows, one a line.
pub fn screen_text(screen: &Screen) -> String {
    (0..screen.lines.len()).map(|r| screen.line(r)).collect::<Vec<_>>().join("\n")
}
