//! A lesson played by the whole dashboard in process: the real simulation with the lesson's
//! timeline ([`ScheduledSim`], the sim thread's own stepping code without the thread), sim
//! time paced frame by frame as the event loop paces it ([`isrlab::ui::frame`]), so the clock
//! stops exactly at the lesson's instants; keys through the event loop's input path; frames
//! drawn into ratatui's `TestBackend`. The fixture `tests/fixtures/lesson-short.toml` has
//! narration with a pause, two questions and a check written to fail.

mod support;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use isrlab::cluster::handle::ScheduledSim;
use isrlab::cluster::snapshot::{ScenarioInfo, Snapshot};
use isrlab::scenario::Scenario;
use isrlab::sim::SimTime;
use isrlab::ui::app::{Mode, Model, Msg, update};
use isrlab::ui::lesson::{self, Entry, Lesson, Script};
use isrlab::ui::pacer::Pacer;
use isrlab::ui::theme::Theme;
use isrlab::ui::{Cluster, FRAME, frame, handle_input, view};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::path::Path;
use std::sync::Arc;
use support::Screen;

const LESSON: &str = "tests/fixtures/lesson-short.toml";

/// Frames one instant may take to come at 10× (50 ms frames: 0.5 s of sim time each).
const MAX_FRAMES: usize = 200;

fn scenario() -> Scenario {
    isrlab::scenario::load(Path::new(LESSON)).expect("the lesson loads")
}

/// The dashboard around the lesson's simulation, driven by the test.
struct App {
    sim: ScheduledSim,
    model: Model,
    pacer: Pacer,
    snap: Arc<Snapshot>,
}

impl App {
    /// The lesson at 10× in a `cols`×`rows` terminal, without colour, as `isrlab --scenario
    /// FILE` starts it.
    fn start(cols: u16, rows: u16) -> App {
        App::start_file(LESSON, cols, rows)
    }

    /// The lesson file at `path`, as [`App::start`] starts the fixture.
    fn start_file(path: &str, cols: u16, rows: u16) -> App {
        let scenario = isrlab::scenario::load(Path::new(path)).expect("the lesson loads");
        let info = ScenarioInfo { name: scenario.name.clone(), end: scenario.end };
        let sim = ScheduledSim::new(scenario.spec.clone(), scenario.commands(), Some(info))
            .expect("the cluster starts");
        let snap = sim.latest();
        let mut model = Model::new(10.0, Theme::new(false), &snap);
        update(&mut model, Msg::Resize(cols, rows), &snap);
        model.lesson = Some(Lesson::new(Arc::new(Script::of(&scenario).expect("a lesson to show"))));
        update(&mut model, Msg::Events(Cluster::take_events(&sim)), &snap);
        lesson::begin(&mut model, &snap);
        let pacer = Pacer::new(snap.now_us);
        App { sim, model, pacer, snap }
    }

    /// Runs frames until sim time stands at `t`, then a few more, which must not move it
    /// (the lesson holds the clock there) when `held`.
    fn run_to(&mut self, t: SimTime, held: bool) {
        for _ in 0..MAX_FRAMES {
            if self.snap.now_us >= t {
                break;
            }
            frame(&mut self.model, &self.sim, &mut self.pacer, FRAME, &mut self.snap);
        }
        assert_eq!(self.snap.now_us, t, "the clock stops exactly at the lesson's instant");
        if held {
            for _ in 0..5 {
                frame(&mut self.model, &self.sim, &mut self.pacer, FRAME, &mut self.snap);
            }
            assert_eq!(self.snap.now_us, t, "the lesson holds the clock:\n{}", self.screen());
            assert!(self.model.paused);
        }
    }

    fn press(&mut self, code: KeyCode) {
        let key = Msg::Key(KeyEvent::new(code, KeyModifiers::NONE));
        assert!(!handle_input(key, &mut self.model, &self.sim, &mut self.pacer, &mut self.snap));
    }

    fn screen(&self) -> Screen {
        let (cols, rows) = self.model.screen;
        let mut terminal = Terminal::new(TestBackend::new(cols, rows)).expect("a test backend");
        terminal.draw(|f| view::view(&self.model, &self.snap, f)).expect("a frame");
        Screen::of_buffer(terminal.backend().buffer())
    }

    fn assert_shows(&self, texts: &[&str]) {
        let screen = self.screen();
        for text in texts {
            assert!(screen.contains(text), "`{text}` is not on screen:\n{screen}");
        }
    }
}

fn s(secs: u64) -> SimTime {
    SimTime::from_ms(secs * 1000)
}

/// The whole lesson at one size: the intro, the narration and its pause, a question answered
/// wrongly and its reveal with the events that explain it, the checks (one holds, one fails),
/// a second question answered rightly, the end with the score. Returns the screens of the
/// first question and the first reveal.
fn play(cols: u16, rows: u16) -> (Screen, Screen) {
    let mut app = App::start(cols, rows);
    app.assert_shows(&["Lesson · Short failover lesson", "Broker 2 crashes; the controller fences it"]);
    // 2 s: the narration, Markdown-light rendered (no markers left), and the pause.
    app.run_to(s(2), true);
    app.assert_shows(&["1/2 00:00:02.0 Broker 2 leads test_repli-2. Watch its ISR.", "⏸ the lesson waits"]);
    assert!(app.screen().contains("Enter/n continue"), "the footer says how to go on");
    app.press(KeyCode::Enter);
    // 6 s: broker 2 crashed at 5 s; the first question, the clock stopped until it is answered.
    app.run_to(s(6), true);
    assert_eq!(app.model.mode, Mode::Question);
    app.assert_shows(&["Question 1/2 · 00:00:06.0", "a) broker 0", "b) broker 1", "press a–b to answer"]);
    let asked = app.screen();
    app.press(KeyCode::Char('b'));
    // 20 s: the simulation answers: broker 0 leads, not 1.
    app.run_to(s(20), true);
    app.assert_shows(&[
        "the simulation says a) broker 0",
        "you said b) broker 1 ✗",
        "test_repli-2 leader 2 → 0",
    ]);
    let revealed = app.screen();
    app.press(KeyCode::Char('n'));
    // The checks due at 20 s: one held, the one written to fail did not.
    frame(&mut app.model, &app.sim, &mut app.pacer, FRAME, &mut app.snap);
    app.assert_shows(&[
        "✓ 00:00:20.0 test_repli-2 leader: expected 0, got 0",
        "✗ 00:00:20.0 test_repli-0 isr: expected [0,1,2], got [0,1]",
        "checks ✓1 ✗1",
    ]);
    // 22 s: the second question, answered rightly; its answer comes at 24 s.
    app.run_to(s(22), true);
    app.assert_shows(&["Question 2/2", "b) 2, 0 and 1"]);
    app.press(KeyCode::Char('b'));
    app.run_to(s(24), true);
    app.assert_shows(&["the simulation says b) 2, 0 and 1", "you said b ✓ right"]);
    app.press(KeyCode::Enter);
    app.run_to(s(26), false);
    app.assert_shows(&["⏹ 00:00:26.0 the end · checks ✓1 ✗1 · questions 1/2 right"]);
    // What the dashboard said of each check is what `isrlab run` says.
    let mut report = Vec::new();
    isrlab::scenario::runner::run(&scenario(), &mut report).expect("the headless run");
    let report = String::from_utf8(report).expect("text");
    let lesson = app.model.lesson.as_ref().expect("a lesson");
    for entry in &lesson.log {
        if let Entry::Checked(outcome) = entry {
            let mark = if outcome.passed { '✓' } else { '✗' };
            assert!(report.contains(&format!("{mark} {outcome}")), "{mark} {outcome} not in:\n{report}");
        }
    }
    (asked, revealed)
}

#[test]
fn a_lesson_plays_at_80x24() {
    let (asked, revealed) = play(80, 24);
    insta::assert_snapshot!("lesson_80x24_question", asked.to_string());
    insta::assert_snapshot!("lesson_80x24_reveal", revealed.to_string());
}

#[test]
fn a_lesson_plays_at_120x40() {
    let (asked, revealed) = play(120, 40);
    insta::assert_snapshot!("lesson_120x40_question", asked.to_string());
    insta::assert_snapshot!("lesson_120x40_reveal", revealed.to_string());
}

/// Esc closes a question to look at the cluster; the clock still waits, the dashboard's keys
/// work (here a crash that the sim refuses), and Enter asks again.
#[test]
fn a_question_closed_for_a_look_keeps_the_clock_stopped() {
    let mut app = App::start(80, 24);
    app.run_to(s(2), true);
    app.press(KeyCode::Enter);
    app.run_to(s(6), true);
    app.press(KeyCode::Esc);
    assert_eq!(app.model.mode, Mode::Normal);
    // Closed, it takes one line that says how to open it again; its choices are gone.
    app.assert_shows(&["Question 1/2 waits, hidden · Enter/n: show it again · a–b: answer", "a-b answer"]);
    assert!(!app.screen().contains("a) broker 0"), "{}", app.screen());
    app.press(KeyCode::Char(' '));
    app.run_to(s(6), true);
    app.press(KeyCode::Enter);
    assert_eq!(app.model.mode, Mode::Question);
}

/// While a question waits for its answer, open or closed for a look, its letters answer it
/// (`a` is not the dashboard's acks key then) and nothing that changes the cluster runs, by
/// key or in the palette: it would change the answer. What only reads still works.
#[test]
fn a_waiting_question_takes_its_letters_and_refuses_changes() {
    let mut app = App::start(80, 24);
    app.run_to(s(2), true);
    app.press(KeyCode::Enter);
    app.run_to(s(6), true);
    let refused = "answer question 1 first: a change now would change its answer";
    // Open: `x` (crash) is refused, a broker can be selected.
    app.press(KeyCode::Char('x'));
    app.assert_shows(&[refused]);
    app.press(KeyCode::Char('0'));
    assert_eq!(app.model.selected_broker, Some(0), "selecting changes nothing and still works");
    app.press(KeyCode::Esc);
    // Closed: the palette refuses a change, and still describes.
    app.press(KeyCode::Char(':'));
    for c in "crash 1".chars() {
        app.press(KeyCode::Char(c));
    }
    app.press(KeyCode::Enter);
    app.assert_shows(&[refused]);
    assert!(app.snap.brokers.iter().find(|b| b.id == 1).is_some_and(|b| !b.fenced));
    app.press(KeyCode::Esc);
    assert_eq!(app.model.mode, Mode::Normal);
    // `a` answers the closed question; the producer keeps acks=all.
    app.press(KeyCode::Char('a'));
    let lesson = app.model.lesson.as_ref().expect("a lesson");
    assert_eq!(lesson.picked[0], Some(0), "a answered question 1");
    assert!(app.snap.producers.iter().all(|p| p.config.acks == isrlab::sim::Acks::All));
}

/// Between the user's answer and the simulation's, a change to the cluster is refused too:
/// it would change what the simulation answers (the reveal would judge another cluster).
#[test]
fn an_answered_question_refuses_changes_until_its_reveal() {
    let mut app = App::start(80, 24);
    app.run_to(s(2), true);
    app.press(KeyCode::Enter);
    app.run_to(s(6), true);
    app.press(KeyCode::Char('a'));
    app.press(KeyCode::Char('1'));
    app.press(KeyCode::Char('x'));
    app.assert_shows(&["question 1 is answered; the simulation answers it at 00:00:20.0"]);
    assert!(app.snap.brokers.iter().find(|b| b.id == 1).is_some_and(|b| !b.fenced));
    app.run_to(s(20), true);
    app.press(KeyCode::Enter);
    // Revealed: the keys change the cluster again.
    let lesson = app.model.lesson.as_ref().expect("a lesson");
    assert!(lesson.awaiting_reveal().is_none(), "question 1 is revealed");
}

/// Space at a reveal does not run the clock past it: the answer stays until Enter or n, and
/// once read it stays in the lesson's log with its explanation.
#[test]
fn a_reveal_stays_until_read_and_then_in_the_log() {
    let mut app = App::start(120, 40);
    app.run_to(s(2), true);
    app.press(KeyCode::Enter);
    app.run_to(s(6), true);
    // Space at an open question: the question is on screen, a letter answers it.
    app.press(KeyCode::Char(' '));
    let status = app.model.status.as_ref().map(|s| s.text.clone()).unwrap_or_default();
    assert!(status.contains("a letter answers it") && !status.contains("shows it"), "{status}");
    app.press(KeyCode::Char('b'));
    app.run_to(s(20), true);
    app.press(KeyCode::Char(' '));
    app.run_to(s(20), true);
    app.assert_shows(&["the simulation says a) broker 0", "the simulation's answer stays until Enter or n"]);
    app.press(KeyCode::Enter);
    frame(&mut app.model, &app.sim, &mut app.pacer, FRAME, &mut app.snap);
    app.assert_shows(&[
        "Q1 00:00:06.0 Who leads test_repli-2 once broker 2 is fenced? — you said b, the simulation a ✗",
        "the simulation: a) broker 0",
        "The first live ISR member in replica order: 2, 0, 1.",
    ]);
}

/// The checks are listed once, in the pane (not in the status line too); a word in the
/// status line from before a question goes when it is asked.
#[test]
fn checks_are_said_once_and_a_question_clears_an_older_word() {
    let mut app = App::start(120, 40);
    app.run_to(s(2), true);
    app.press(KeyCode::Enter);
    app.press(KeyCode::Char('z'));
    assert!(app.model.status.is_some());
    app.run_to(s(6), true);
    assert_eq!(app.model.status.as_ref().map(|s| s.text.as_str()), None);
    app.press(KeyCode::Char('a'));
    app.run_to(s(20), true);
    app.press(KeyCode::Enter);
    frame(&mut app.model, &app.sim, &mut app.pacer, FRAME, &mut app.snap);
    let screen = app.screen();
    assert!(screen.contains("✓ 00:00:20.0 test_repli-2 leader"), "{screen}");
    assert!(!screen.contains("check holds") && !screen.contains("check fails"), "{screen}");
}

/// The Why panel does not give the answer away while a question waits: who would lead next
/// is hidden until it is answered.
#[test]
fn the_why_panel_keeps_the_answer_until_the_question_is_answered() {
    let mut app = App::start(120, 40);
    app.run_to(s(2), true);
    app.press(KeyCode::Enter);
    app.run_to(s(6), true);
    let screen = app.screen();
    assert!(screen.contains("Why · test_repli-2"), "{screen}");
    assert!(!screen.contains("would lead") && !screen.contains("will lead"), "{screen}");
    app.assert_shows(&["election: hidden while question 1 waits for its answer; it comes back after"]);
    app.press(KeyCode::Char('a'));
    app.run_to(s(20), true);
    let why: Vec<String> =
        isrlab::ui::why::lines(&app.model, &app.snap).iter().map(|l| l.to_string()).collect();
    assert!(why.iter().any(|l| l.contains("broker 1 would lead")), "after the answer: {why:?}");
}

/// `?` during a lesson opens the help at the lesson's keys.
#[test]
fn help_in_a_lesson_opens_at_its_keys() {
    let mut app = App::start(100, 30);
    app.run_to(s(2), true);
    app.press(KeyCode::Char('?'));
    assert_eq!(app.model.mode, Mode::Help);
    app.assert_shows(&["In a lesson, while it waits", "While a lesson asks a question"]);
}

/// Lesson 6 at 80×24: the narration of the step the lesson waits at shows whole, and the
/// lesson pane takes its rows before the event log does (the step keeps the events in focus).
#[test]
fn lesson_6s_narration_shows_whole_at_80x24() {
    let mut app = App::start_file("assets/lessons/06-failover.toml", 80, 24);
    app.run_to(SimTime::ZERO, true);
    app.assert_shows(&["second with acks=all."]);
    app.press(KeyCode::Enter);
    app.run_to(s(3), true);
    app.press(KeyCode::Char('b'));
    app.run_to(s(5), true);
    app.press(KeyCode::Char('a'));
    app.run_to(SimTime::from_ms(13_500), true);
    app.press(KeyCode::Enter);
    app.press(KeyCode::Enter);
    app.run_to(s(14), true);
    app.assert_shows(&["⏸ the lesson waits at 00:00:14.0", "3/6 00:00:14.0 The partitions broker 2 led"]);
    app.assert_shows(&["The events pane (F5) lists each step."]);
}

/// `n` outside a pause keeps its meaning (the next event), and never runs past the lesson's
/// next instant: from 2 s, the next events come with the crash at 5 s, and the question at
/// 6 s stops it there.
#[test]
fn n_steps_to_events_but_stops_at_the_lessons_next_instant() {
    let mut app = App::start(100, 30);
    app.run_to(s(2), true);
    app.press(KeyCode::Enter);
    app.press(KeyCode::Char(' '));
    let mut stops = Vec::new();
    for _ in 0..20 {
        app.press(KeyCode::Char('n'));
        stops.push(app.snap.now_us);
        if app.model.mode == Mode::Question {
            break;
        }
    }
    assert_eq!(stops.first(), Some(&s(5)), "the crash at 5 s is the next event: {stops:?}");
    assert_eq!(stops.last(), Some(&s(6)), "n stops at the question: {stops:?}");
    assert!(stops.iter().all(|t| *t <= s(6)), "{stops:?}");
}

/// `R R` restarts the run and the lesson with it.
#[test]
fn a_restart_plays_the_lesson_again() {
    let mut app = App::start(80, 24);
    app.run_to(s(2), true);
    app.press(KeyCode::Enter);
    app.run_to(s(6), true);
    app.press(KeyCode::Char('a'));
    app.press(KeyCode::Char('R'));
    app.press(KeyCode::Char('R'));
    assert_eq!(app.snap.now_us, SimTime::ZERO);
    assert!(app.model.lesson.as_ref().is_some_and(|l| l.log.is_empty()));
    app.run_to(s(2), true);
    app.assert_shows(&["1/2 00:00:02.0 Broker 2 leads test_repli-2"]);
}

/// Lesson 9 at 80×24: a quiet event log leaves no blank rows above the lesson pane; the
/// rows its events do not fill go to the lesson's log.
#[test]
fn lesson_9_leaves_no_blank_rows_above_the_lesson_pane() {
    let mut app = App::start_file("assets/lessons/09-unclean-election.toml", 80, 24);
    app.run_to(SimTime::ZERO, true);
    app.press(KeyCode::Enter);
    app.run_to(s(3), false);
    let screen = app.screen();
    let rows: Vec<String> = (0..24).map(|r| screen.line(r)).collect();
    let pane = rows.iter().position(|l| l.starts_with(" Lesson · ")).expect("the lesson pane");
    let events = rows.iter().position(|l| l.starts_with(" Events · ")).expect("the event log");
    assert!(
        rows[events..pane].iter().all(|l| !l.trim().is_empty()),
        "a blank row above the lesson pane:\n{screen}"
    );
    app.assert_shows(&["2/7 00:00:03.0 Broker 1's fetcher stops"]);
}
