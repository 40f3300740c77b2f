//! A lesson played by the whole dashboard in process: the real simulation, sim time paced
//! frame by frame as the event loop paces it (so the clock stops at the lesson's instants),
//! keys through the event loop's input path, frames drawn into ratatui's `TestBackend`.

mod support;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use isrlab::cluster::handle::ScheduledSim;
use isrlab::cluster::snapshot::ScenarioInfo;
use isrlab::cluster::snapshot::Snapshot;
use isrlab::sim::SimTime;
use isrlab::ui::app::{Mode, Model, Msg, update};
use isrlab::ui::lesson::{self, Lesson, Script};
use isrlab::ui::pacer::Pacer;
use isrlab::ui::theme::Theme;
use isrlab::ui::{Cluster, FRAME, frame, handle_input, view};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::sync::Arc;
use support::Screen;

const LESSON: &str = "tests/fixtures/lesson-short.toml";

struct App {
    sim: ScheduledSim,
    model: Model,
    pacer: Pacer,
    snap: Arc<Snapshot>,
}

impl App {
    fn start(cols: u16, rows: u16) -> App {
        let scenario = isrlab::scenario::load(std::path::Path::new(LESSON)).expect("the lesson loads");
        let script = Script::of(&scenario).expect("a lesson to show");
        let info = ScenarioInfo { name: scenario.name.clone(), end: scenario.end };
        let sim = ScheduledSim::new(scenario.spec.clone(), scenario.commands(), Some(info))
            .expect("the cluster starts");
        let snap = sim.latest();
        let mut model = Model::new(10.0, Theme::new(false), &snap);
        update(&mut model, Msg::Resize(cols, rows), &snap);
        model.lesson = Some(Lesson::new(Arc::new(script)));
        update(&mut model, Msg::Events(Cluster::take_events(&sim)), &snap);
        lesson::begin(&mut model, &snap);
        let pacer = Pacer::new(snap.now_us);
        App { sim, model, pacer, snap }
    }

    fn frames(&mut self, n: usize) {
        for _ in 0..n {
            frame(&mut self.model, &self.sim, &mut self.pacer, FRAME, &mut self.snap);
        }
    }

    fn press(&mut self, keys: &str) {
        for c in keys.chars() {
            let key = Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
            assert!(!handle_input(key, &mut self.model, &self.sim, &mut self.pacer, &mut self.snap));
        }
    }

    fn press_key(&mut self, code: KeyCode) {
        let key = Msg::Key(KeyEvent::new(code, KeyModifiers::NONE));
        assert!(!handle_input(key, &mut self.model, &self.sim, &mut self.pacer, &mut self.snap));
    }

    fn screen(&self) -> Screen {
        let (cols, rows) = self.model.screen;
        let mut terminal = Terminal::new(TestBackend::new(cols, rows)).expect("a test backend");
        terminal.draw(|f| view::view(&self.model, &self.snap, f)).expect("a frame");
        Screen::of_buffer(terminal.backend().buffer())
    }

    fn show(&self) -> String {
        let s = self.screen();
        (0..s.lines.len()).map(|r| s.line(r)).collect::<Vec<_>>().join("\n")
    }
}

#[test]
fn look() {
    for (c, r) in [(80, 24), (120, 40)] {
        let mut app = App::start(c, r);
        println!("{}\n", app.show());
        app.frames(10);
        println!("t={} {:?}\n{}\n", app.snap.now_us, app.model.mode, app.show());
        app.press_key(KeyCode::Enter);
        app.frames(40);
        println!("t={} {:?}\n{}\n", app.snap.now_us, app.model.mode, app.show());
        app.press("b");
        app.frames(40);
        println!("t={} {:?}\n{}\n", app.snap.now_us, app.model.mode, app.show());
        app.press("n");
        app.frames(40);
        println!("t={} {:?}\n{}\n", app.snap.now_us, app.model.mode, app.show());
        app.press("b");
        app.frames(40);
        println!("t={} {:?}\n{}\n", app.snap.now_us, app.model.mode, app.show());
        app.press("n");
        app.frames(40);
        println!("t={} {:?}\n{}\n", app.snap.now_us, app.model.mode, app.show());
    }
    let _ = SimTime::ZERO;
    let _ = Mode::Normal;
}
