//! Robustness of the front end: random keys, palette lines, sim time and resizes (down to
//! 1×1) through the in-process dashboard, with no panic, every frame drawn, and the state
//! consistent after each input (the model's screen is the last size given, every ISR within
//! its replicas). CI runs a few thousand inputs with a fixed seed; for the long run:
//! `ISRLAB_FUZZ_CASES=2500 ISRLAB_PROPTEST_RANDOM=1 cargo test --release --test frontend_fuzz`
//! (2,500 cases of 40 inputs: 100,000 inputs).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use isrlab::cluster::handle::Sim;
use isrlab::cluster::snapshot::Snapshot;
use isrlab::cluster::spec::ClusterSpec;
use isrlab::ui::app::{Model, Msg, update};
use isrlab::ui::pacer::Pacer;
use isrlab::ui::theme::Theme;
use isrlab::ui::{Cluster, handle_input, view};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::sync::Arc;

fn config() -> ProptestConfig {
    let cases = std::env::var("ISRLAB_FUZZ_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(60);
    let rng_seed = match std::env::var("ISRLAB_PROPTEST_RANDOM") {
        Ok(_) => RngSeed::Random,
        Err(_) => RngSeed::Fixed(20261206),
    };
    ProptestConfig { cases, rng_seed, failure_persistence: None, ..ProptestConfig::default() }
}

/// One thing the user (or the terminal) does.
#[derive(Clone, Debug)]
enum Input {
    Char(char),
    Key(KeyCode),
    /// `:` then the line, then Enter.
    Palette(String),
    Resize(u16, u16),
    /// Sim time passes (ms).
    Run(u64),
}

/// Words palette lines are made of: commands, their arguments and noise.
const WORDS: &[&str] = &[
    "crash",
    "restart",
    "shutdown",
    "bounce",
    "cut",
    "cut-oneway",
    "heal",
    "heal-all",
    "isolate",
    "freeze",
    "thaw",
    "pause-fetch",
    "resume-fetch",
    "power-loss",
    "slow-disk",
    "set",
    "acks=1",
    "acks=all",
    "min.insync.replicas=2",
    "elect-preferred",
    "elect-unclean",
    "describe",
    "rewind",
    "branch",
    "branches",
    "produce",
    "create-topic",
    "delete-topic",
    "reassign",
    "help",
    "0",
    "1",
    "2",
    "3",
    "-1",
    "controller",
    "test_repli-0",
    "test_repli",
    "10s",
    "5000",
    "x",
    "",
    "é",
    "\u{7f}",
    "99999999999999999999",
];

fn input() -> impl Strategy<Value = Input> {
    // `w` saves a recording (none here), `q` quits: both stay in; quitting ends the case.
    let chars = prop::char::range(' ', '~').prop_map(Input::Char);
    let keys = prop::sample::select(vec![
        KeyCode::Enter,
        KeyCode::Esc,
        KeyCode::Tab,
        KeyCode::BackTab,
        KeyCode::Backspace,
        KeyCode::Up,
        KeyCode::Down,
        KeyCode::Left,
        KeyCode::Right,
        KeyCode::PageUp,
        KeyCode::PageDown,
        KeyCode::Home,
        KeyCode::End,
        KeyCode::F(1),
    ])
    .prop_map(Input::Key);
    let palette =
        prop::collection::vec(prop::sample::select(WORDS), 0..5).prop_map(|w| Input::Palette(w.join(" ")));
    let resize = (1u16..220, 1u16..70).prop_map(|(c, r)| Input::Resize(c, r));
    let tiny = (1u16..4, 1u16..4).prop_map(|(c, r)| Input::Resize(c, r));
    let run = (0u64..3_000).prop_map(Input::Run);
    prop_oneof![6 => chars, 3 => keys, 2 => palette, 1 => resize, 1 => tiny, 1 => run]
}

struct App {
    sim: Sim,
    model: Model,
    pacer: Pacer,
    snap: Arc<Snapshot>,
}

impl App {
    fn key(&mut self, code: KeyCode) -> bool {
        let key = Msg::Key(KeyEvent::new(code, KeyModifiers::NONE));
        handle_input(key, &mut self.model, &self.sim, &mut self.pacer, &mut self.snap)
    }

    /// Applies one input; `true` when the user quit.
    fn apply(&mut self, input: &Input) -> bool {
        match input {
            Input::Char(c) => self.key(KeyCode::Char(*c)),
            Input::Key(k) => self.key(*k),
            Input::Palette(line) => {
                std::iter::once(':').chain(line.chars()).any(|c| self.key(KeyCode::Char(c)))
                    || self.key(KeyCode::Enter)
            }
            Input::Resize(c, r) => {
                handle_input(Msg::Resize(*c, *r), &mut self.model, &self.sim, &mut self.pacer, &mut self.snap)
            }
            Input::Run(ms) => {
                self.sim.advance_to(self.snap.now_us.plus_micros(ms * 1000));
                self.snap = self.sim.latest();
                update(&mut self.model, Msg::Snapshot, &self.snap);
                false
            }
        }
    }

    fn draw(&self) {
        let (cols, rows) = self.model.screen;
        let mut terminal = Terminal::new(TestBackend::new(cols, rows)).expect("a test backend");
        terminal.draw(|frame| view::view(&self.model, &self.snap, frame)).expect("a frame");
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn random_inputs_never_panic_and_keep_the_state_consistent(
        inputs in prop::collection::vec(input(), 1..40),
    ) {
        let sim = Sim::new(ClusterSpec::default_run(3)).expect("the default cluster");
        let snap = sim.latest();
        let mut model = Model::new(1.0, Theme::new(false), &snap);
        update(&mut model, Msg::Resize(80, 24), &snap);
        let mut app = App { sim, pacer: Pacer::new(snap.now_us), model, snap };
        let mut size = (80, 24);
        for input in &inputs {
            if let Input::Resize(c, r) = input {
                size = (*c, *r);
            }
            if app.apply(input) {
                break;
            }
            app.draw();
            prop_assert_eq!(app.model.screen, size);
            for p in &app.snap.partitions {
                prop_assert!(p.isr.iter().all(|r| p.replicas.contains(r)), "{} ISR {:?}", p.tp, p.isr);
            }
        }
    }
}
