//! The lesson's `update` in isolation: stops, holds, answers and reveals against snapshots
//! made by hand (no cluster). The choices here look at cluster-wide numbers, which a
//! default snapshot carries, so each snapshot states the facts a test needs.

use super::*;
use crate::ui::app::{Msg, update};
use crate::ui::theme::Theme;
use crossterm::event::{KeyCode, KeyModifiers};

const LESSON: &str = r#"
version = 2
name = "unit lesson"
description = "what the unit tests play"
end = "30s"
[cluster]
brokers = 3
[[topic]]
name = "t"
partitions = 1
replication_factor = 3
[[at]]
time = "2s"
say = "one"
pause = true
[[expect]]
time = "2s"
acked_lost = 0
[[ask]]
time = "5s"
question = "Will records be lost?"
answer_at = "10s"
answer = "a"
explain = "acks=all"
[[ask.choice]]
text = "none"
expect = { acked_lost = 0 }
[[ask.choice]]
text = "some"
expect = { acked_lost = ">0" }
[[ask]]
time = "20s"
question = "Now?"
answer_at = "20s"
[[ask.choice]]
text = "none"
expect = { acked_lost = 0 }
[[ask.choice]]
text = "some"
expect = { acked_lost = ">0" }
[[expect]]
time = "10s"
acked_lost = ">0"
"#;

fn at(ms: u64) -> Snapshot {
    Snapshot { now: ms, now_us: SimTime::from_ms(ms), ..Snapshot::default() }
}

fn start() -> Model {
    let scenario = crate::scenario::parse("unit.toml", LESSON).expect("the lesson parses");
    let script = Script::of(&scenario).expect("something to show");
    let snap = at(0);
    let mut model = Model::new(1.0, Theme::new(false), &snap);
    model.lesson = Some(Lesson::new(Arc::new(script)));
    begin(&mut model, &snap);
    model
}

fn key(model: &mut Model, snap: &Snapshot, code: KeyCode) -> Vec<Effect> {
    update(model, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)), snap)
}

fn lesson(model: &Model) -> &Lesson {
    model.lesson.as_ref().expect("a lesson")
}

#[test]
fn the_clock_stops_at_every_instant_the_scenario_names() {
    let model = start();
    assert_eq!(lesson(&model).script.stops(), [2_000, 5_000, 10_000, 20_000, 30_000].map(SimTime::from_ms));
    assert_eq!(model.clock_stop(), Some(SimTime::from_ms(2_000)));
    assert!(lesson(&model).log.is_empty(), "nothing is due at 0");
}

#[test]
fn a_pause_holds_the_clock_until_enter_and_n_keeps_its_meaning_otherwise() {
    let mut model = start();
    let snap = at(2_000);
    update(&mut model, Msg::Snapshot, &snap);
    assert!(model.paused);
    assert_eq!(lesson(&model).waiting(), Some(Hold::Pause(0)));
    assert_eq!(model.clock_stop(), Some(SimTime::from_ms(2_000)), "held there");
    assert_eq!(lesson(&model).log.len(), 2, "the narration and the check: {:?}", lesson(&model).log);
    assert!(matches!(&lesson(&model).log[1], Entry::Checked(o) if o.passed));
    // `.` cannot step past a waiting lesson; Enter goes on.
    assert_eq!(key(&mut model, &snap, KeyCode::Char('.')), vec![]);
    assert!(lesson(&model).waiting().is_some());
    assert_eq!(key(&mut model, &snap, KeyCode::Enter), vec![]);
    assert!(!model.paused);
    assert_eq!(lesson(&model).waiting(), None);
    assert_eq!(model.clock_stop(), Some(SimTime::from_ms(5_000)));
    // Nothing waits: `n` runs to the next event, as always.
    model.mode = Mode::Normal;
    assert_eq!(key(&mut model, &snap, KeyCode::Char('n')), vec![Effect::NextEvent(60_000)]);
}

#[test]
fn a_question_takes_a_letter_the_clock_waits_and_the_simulation_answers_later() {
    let mut model = start();
    update(&mut model, Msg::Snapshot, &at(2_000));
    key(&mut model, &at(2_000), KeyCode::Enter);
    let asked = at(5_000);
    update(&mut model, Msg::Snapshot, &asked);
    assert_eq!(model.mode, Mode::Question);
    assert_eq!(lesson(&model).waiting(), Some(Hold::Ask(0)));
    // A letter that is no choice is refused; Esc closes the question but the clock waits.
    key(&mut model, &asked, KeyCode::Char('d'));
    assert!(model.status.as_ref().is_some_and(|s| s.text.contains("d is not a choice here: a to b")));
    key(&mut model, &asked, KeyCode::Esc);
    assert_eq!(model.mode, Mode::Normal);
    assert_eq!(model.clock_stop(), Some(SimTime::from_ms(5_000)));
    key(&mut model, &asked, KeyCode::Char(' '));
    assert!(model.paused, "space does not run the clock past an unanswered question");
    key(&mut model, &asked, KeyCode::Char('n'));
    assert_eq!(model.mode, Mode::Question, "n asks again");
    key(&mut model, &asked, KeyCode::Char('b'));
    assert_eq!(model.mode, Mode::Normal);
    assert!(!model.paused, "answered: the run goes on to answer_at");
    assert_eq!(model.clock_stop(), Some(SimTime::from_ms(10_000)));
    // At answer_at the simulation answers: no record lost, so choice a; the user said b.
    let answered = at(10_000);
    update(&mut model, Msg::Snapshot, &answered);
    assert_eq!(lesson(&model).waiting(), Some(Hold::Reveal(0)));
    let reveal = lesson(&model).revealed[0].clone().expect("revealed");
    assert_eq!((reveal.answer(), reveal.picked, reveal.right()), (Some(0), Some(1), false));
    assert!(reveal.outcome.passed, "the lesson states a, as the simulation answers");
    // The check due then fails, as `isrlab run` says.
    let failed = lesson(&model).log.iter().any(|e| matches!(e, Entry::Checked(o) if !o.passed));
    assert!(failed, "{:?}", lesson(&model).log);
    assert_eq!((lesson(&model).passed, lesson(&model).failed), (1, 1));
    key(&mut model, &answered, KeyCode::Enter);
    assert_eq!(lesson(&model).score(), (1, 0));
    assert_eq!(model.clock_stop(), Some(SimTime::from_ms(20_000)));
}

#[test]
fn a_question_answered_where_it_is_asked_is_revealed_at_once() {
    let mut model = start();
    for (t, keys) in [(2_000, "\n"), (5_000, "a"), (10_000, "\n")] {
        update(&mut model, Msg::Snapshot, &at(t));
        for c in keys.chars() {
            let code = if c == '\n' { KeyCode::Enter } else { KeyCode::Char(c) };
            key(&mut model, &at(t), code);
        }
    }
    let now = at(20_000);
    update(&mut model, Msg::Snapshot, &now);
    assert_eq!(lesson(&model).waiting(), Some(Hold::Ask(1)));
    key(&mut model, &now, KeyCode::Char('A'));
    assert_eq!(lesson(&model).waiting(), Some(Hold::Reveal(1)), "answer_at = time: the answer at once");
    assert!(lesson(&model).revealed[1].as_ref().is_some_and(Reveal::right));
    key(&mut model, &now, KeyCode::Char('n'));
    assert_eq!(lesson(&model).score(), (2, 2));
    update(&mut model, Msg::Snapshot, &at(30_000));
    assert_eq!(lesson(&model).log.last(), Some(&Entry::Ended));
    assert_eq!(model.clock_stop(), None, "everything is done");
}

#[test]
fn a_restart_plays_the_lesson_from_its_start() {
    let mut model = start();
    update(&mut model, Msg::Snapshot, &at(2_000));
    assert!(lesson(&model).waiting().is_some());
    update(&mut model, Msg::Restarted(Ok(())), &at(0));
    assert!(lesson(&model).log.is_empty());
    assert_eq!(lesson(&model).waiting(), None);
    assert_eq!(model.clock_stop(), Some(SimTime::from_ms(2_000)));
}

#[test]
fn events_count_once_a_snapshot_shows_their_time() {
    use crate::sim::events::EventKind;
    let mut model = start();
    let crash = |ms| ClusterEvent { at: SimTime::from_ms(ms), kind: EventKind::BrokerCrashed { broker: 2 } };
    update(&mut model, Msg::Events(vec![crash(6_000), crash(12_000)]), &at(2_000));
    let l = model.lesson.as_mut().expect("a lesson");
    l.take_in(SimTime::from_ms(7_000));
    assert_eq!(l.important.len(), 1, "the later one waits: {:?}", l.important);
    assert_eq!(l.early.len(), 1);
}

#[test]
fn a_scenario_with_nothing_to_show_has_no_script() {
    let plain = "name = \"plain\"\nend = \"5s\"\n[cluster]\nbrokers = 1\n";
    let scenario = crate::scenario::parse("plain.toml", plain).expect("parses");
    assert!(Script::of(&scenario).is_none());
    let checked = format!("{plain}[[expect]]\ntime = \"1s\"\nacked_lost = 0\n");
    let scenario = crate::scenario::parse("checked.toml", &checked).expect("parses");
    let script = Script::of(&scenario).expect("its check is shown");
    assert!(!script.is_lesson());
}

#[test]
fn the_help_and_the_footer_list_the_lesson_keys() {
    let text: Vec<String> = crate::ui::help::lines(Theme::new(false))
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect();
    let has = |what: &str| text.iter().any(|l| l.contains(what));
    assert!(has("In a lesson, while it waits"), "{text:#?}");
    assert!(has("Enter/n") && has("a-f") && has("answer with that choice"), "{text:#?}");
    let mut model = start();
    update(&mut model, Msg::Snapshot, &at(2_000));
    let screen = draw(&model, &at(2_000));
    assert!(screen.last().is_some_and(|l| l.starts_with(" Enter/n continue")), "{screen:#?}");
}

/// The screen's lines, 80×24, no colour.
fn draw(model: &Model, snap: &Snapshot) -> Vec<String> {
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 24)).expect("a backend");
    terminal.draw(|f| crate::ui::view::view(model, snap, f)).expect("a frame");
    let buffer = terminal.backend().buffer();
    (0..24).map(|y| (0..80).map(|x| buffer[(x, y)].symbol().to_string()).collect()).collect()
}

#[test]
fn while_a_question_is_open_letters_answer_and_other_keys_work_as_usual() {
    let mut model = start();
    update(&mut model, Msg::Snapshot, &at(2_000));
    key(&mut model, &at(2_000), KeyCode::Enter);
    let asked = at(5_000);
    update(&mut model, Msg::Snapshot, &asked);
    assert_eq!(model.mode, Mode::Question);
    key(&mut model, &asked, KeyCode::Char('x'));
    // `x` is the dashboard's (crash): here refused as there is no broker; with one, because
    // the question waits (tests/lesson_in_process.rs).
    assert!(model.status.as_ref().is_some_and(|s| !s.text.contains("letters")), "{:?}", model.status);
    assert_eq!(lesson(&model).picked[0], None, "x neither answers nor crashes a broker");
    key(&mut model, &asked, KeyCode::Char('q'));
    assert!(model.status.as_ref().is_some_and(|s| s.text.contains("letters answer here: a to b")));
    assert!(!model.quit, "q does not quit while a question is open");
    key(&mut model, &asked, KeyCode::F(2));
    assert_eq!((model.view, model.mode), (crate::ui::app::View::Partition, Mode::Question));
    key(&mut model, &asked, KeyCode::Char(' '));
    assert!(model.paused, "space does not run the clock past the question");
    key(&mut model, &asked, KeyCode::Char(':'));
    assert_eq!(model.mode, Mode::Palette);
    assert!(lesson(&model).hidden, "the palette has the keys: the question waits closed");
    key(&mut model, &asked, KeyCode::Esc);
    key(&mut model, &asked, KeyCode::Enter);
    assert_eq!(model.mode, Mode::Question, "Enter asks again");
}
