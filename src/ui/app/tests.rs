//! `update` in isolation: keys become the right commands, bounds hold, the palette edits and
//! runs lines, the help opens and closes. No cluster is needed: `update` returns effects.

use super::*;
use crate::sim::Acks;
use crate::ui::keymap::PaletteAction;
use crate::ui::{events, fixture};
use crossterm::event::{KeyCode, KeyModifiers};

fn model() -> (Model, Snapshot) {
    let snap = fixture::snapshot();
    let mut m = Model::new(1.0, Theme::new(false), &snap);
    // The full log, as these tests were written for; the story view the app starts in
    // has its own tests (`events_start_with_the_story`).
    m.events_important = false;
    (m, snap)
}

fn press(model: &mut Model, snap: &Snapshot, code: KeyCode) -> Vec<Effect> {
    update(model, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)), snap)
}

fn typed(model: &mut Model, snap: &Snapshot, keys: &str) -> Vec<Effect> {
    keys.chars().flat_map(|c| press(model, snap, KeyCode::Char(c))).collect()
}

fn apply(line: &str) -> Vec<Effect> {
    vec![Effect::Apply(Command::parse(line).unwrap())]
}

#[test]
fn broker_keys_act_on_the_selected_broker() {
    let (mut m, snap) = model();
    assert_eq!(typed(&mut m, &snap, "x"), apply("crash 0"));
    assert_eq!(typed(&mut m, &snap, "2"), vec![]);
    assert_eq!(m.selected_broker, Some(2));
    assert_eq!(typed(&mut m, &snap, "r"), apply("restart 2"));
    assert_eq!(typed(&mut m, &snap, "1s"), apply("shutdown 1"));
    assert_eq!(typed(&mut m, &snap, "p"), apply("pause-fetch 1"));
}

#[test]
fn an_unknown_broker_is_refused_in_the_status_line() {
    let (mut m, snap) = model();
    m.selected_broker = None;
    assert_eq!(typed(&mut m, &snap, "7"), vec![]);
    assert_eq!(m.selected_broker, None);
    let status = m.status.clone().unwrap();
    assert_eq!((status.kind, status.text.as_str()), (StatusKind::Error, "✖ no broker 7 (brokers: 0–2)"));
}

/// Issue 9: a mistyped digit keeps the broker selected (it used to select none), and the
/// refusal says which one stays, so the next broker key hits the broker the status line names.
#[test]
fn after_an_unknown_broker_the_selection_stays_and_is_named() {
    let (mut m, snap) = model();
    assert_eq!(typed(&mut m, &snap, "2"), vec![]);
    assert_eq!(typed(&mut m, &snap, "5"), vec![]);
    assert_eq!(m.selected_broker, Some(2));
    let status = m.status.clone().unwrap();
    assert_eq!(
        (status.kind, status.text.as_str()),
        (StatusKind::Error, "✖ no broker 5 (brokers: 0–2); broker 2 stays selected")
    );
    assert_eq!(typed(&mut m, &snap, "x"), apply("crash 2"));
    assert_eq!(typed(&mut m, &snap, "1x"), apply("crash 1"));

    let mut gaps = snap.clone();
    gaps.brokers.remove(1);
    assert_eq!(typed(&mut m, &gaps, "1"), vec![]);
    assert!(m.status.as_ref().unwrap().text.contains("(brokers: 0,2)"));
    let mut m = Model::new(1.0, Theme::new(false), &Snapshot::default());
    assert_eq!(m.selected_broker, None);
    assert_eq!(typed(&mut m, &Snapshot::default(), "x"), vec![]);
    assert_eq!(m.status.unwrap().text, "✖ the cluster has no brokers");
}

#[test]
fn fetch_toggle_resumes_a_paused_broker() {
    let (mut m, mut snap) = model();
    snap.brokers[0].fetch_paused = true;
    assert_eq!(typed(&mut m, &snap, "p"), apply("resume-fetch 0"));
}

#[test]
fn config_keys_send_set_commands_from_the_current_values() {
    let (mut m, mut snap) = model();
    assert_eq!(typed(&mut m, &snap, "a"), apply("set producer acks=0"));
    assert_eq!(typed(&mut m, &snap, "m"), apply("set topic test_repli min.insync.replicas=1"));
    assert_eq!(typed(&mut m, &snap, "M"), apply("set topic test_repli min.insync.replicas=3"));
    assert_eq!(typed(&mut m, &snap, "u"), apply("set topic test_repli unclean.leader.election.enable=true"));
    assert_eq!(typed(&mut m, &snap, "+"), apply("set producer rate=200"));
    assert_eq!(typed(&mut m, &snap, "-"), apply("set producer rate=50"));
    assert_eq!(typed(&mut m, &snap, "l"), apply("set replica.lag.time.max.ms=20000"));
    assert_eq!(typed(&mut m, &snap, "L"), apply("set replica.lag.time.max.ms=60000"));
    snap.producers[0].config.acks = Acks::Zero;
    snap.producers[0].config.rate = 7.0;
    assert_eq!(typed(&mut m, &snap, "a"), apply("set producer acks=1"));
    assert_eq!(typed(&mut m, &snap, "+"), apply("set producer rate=10"));
}

#[test]
fn min_isr_and_rate_stop_at_their_bounds() {
    let (mut m, mut snap) = model();
    snap.topics[0].effective_min_isr = 1;
    assert_eq!(typed(&mut m, &snap, "m"), vec![]);
    assert!(m.status.as_ref().unwrap().text.contains("already 1"));
    snap.topics[0].effective_min_isr = 3;
    assert_eq!(typed(&mut m, &snap, "M"), vec![]);
    assert!(m.status.as_ref().unwrap().text.contains("capped"));
    snap.producers[0].config.rate = 5000.0;
    assert_eq!(typed(&mut m, &snap, "+"), vec![]);
    snap.producers[0].config.rate = 0.0;
    assert_eq!(typed(&mut m, &snap, "-"), vec![]);
    assert_eq!(m.status.as_ref().unwrap().kind, StatusKind::Error);
}

#[test]
fn speed_steps_between_a_hundredth_and_a_hundred() {
    let (mut m, snap) = model();
    typed(&mut m, &snap, ">");
    assert_eq!(m.speed, 2.0);
    typed(&mut m, &snap, &">".repeat(20));
    assert_eq!(m.speed, 100.0);
    assert!(m.status.as_ref().unwrap().text.contains("fastest"));
    let mut seen = Vec::new();
    for _ in 0..20 {
        typed(&mut m, &snap, "<");
        seen.push(m.speed);
    }
    assert_eq!(seen[..12], [50.0, 20.0, 10.0, 5.0, 2.0, 1.0, 0.5, 0.2, 0.1, 0.05, 0.02, 0.01]);
    assert_eq!(m.speed, 0.01);
    assert!(m.status.as_ref().unwrap().text.contains("0.01× is the slowest speed"));
    assert_eq!(Model::new(1000.0, Theme::new(false), &snap).speed, 100.0);
    assert_eq!(Model::new(0.0, Theme::new(false), &snap).speed, 0.01);
    assert_eq!(Model::new(0.05, Theme::new(false), &snap).speed, 0.05);
    assert_eq!(Model::new(f64::NAN, Theme::new(false), &snap).speed, 1.0);
}

#[test]
fn n_pauses_and_runs_to_the_next_event_then_says_where_it_stopped() {
    let (mut m, snap) = model();
    assert!(!m.paused);
    assert_eq!(typed(&mut m, &snap, "n"), vec![Effect::NextEvent(NEXT_EVENT_WITHIN_MS)]);
    assert!(m.paused, "n pauses a running sim first");
    assert_eq!(typed(&mut m, &snap, "n"), vec![Effect::NextEvent(NEXT_EVENT_WITHIN_MS)]);
    let now_us = SimTime::from_ms(83_650);
    let later = Snapshot { now: 83_650, now_us, event_count: snap.event_count + 2, ..snap.clone() };
    let at = SimTime::from_ms(83_650).plus_micros(250);
    update(&mut m, Msg::SteppedToEvent { events_before: snap.event_count, found: Some(at) }, &later);
    assert_eq!(m.status.as_ref().unwrap().text, "paused at 00:01:23.650.250: 2 new events · n: the next one");
    update(&mut m, Msg::SteppedToEvent { events_before: snap.event_count, found: None }, &later);
    assert_eq!(
        m.status.as_ref().unwrap().text,
        "no event within 60 s: paused at 00:01:23.650 (n looks again)"
    );

    // With the important-only filter on (as the app starts), `n` says which new events the
    // pane hides, so a step that seems to show nothing is explained.
    m.events_important = true;
    use crate::sim::events::{ClusterEvent, EventKind};
    let event = |kind: EventKind| ClusterEvent { at, kind };
    let deleted = || event(EventKind::TopicDeleted { topic: "t".into() });
    let mut recent: Vec<_> = snap.recent_events.to_vec();
    recent.extend([deleted(), event(EventKind::BrokerCrashed { broker: 1 })]);
    let mixed = Snapshot { recent_events: recent.clone().into(), ..later.clone() };
    update(&mut m, Msg::SteppedToEvent { events_before: snap.event_count, found: Some(at) }, &mixed);
    assert_eq!(
        m.status.as_ref().unwrap().text,
        "paused at 00:01:23.650.250: 2 new events (1 hidden by the Events pane's filter; f: all) · n: the next one"
    );
    recent.truncate(recent.len() - 1);
    recent.push(deleted());
    let hidden = Snapshot { recent_events: recent.into(), ..later };
    update(&mut m, Msg::SteppedToEvent { events_before: snap.event_count, found: Some(at) }, &hidden);
    assert!(
        m.status
            .as_ref()
            .unwrap()
            .text
            .contains("2 new events (the Events pane's filter hides them; f: all)")
    );
}

#[test]
fn step_only_works_while_paused() {
    let (mut m, snap) = model();
    assert_eq!(typed(&mut m, &snap, "."), vec![]);
    assert!(m.status.as_ref().unwrap().text.contains("paused"));
    typed(&mut m, &snap, " ");
    assert!(m.paused);
    assert_eq!(typed(&mut m, &snap, "."), vec![Effect::Step(STEP_MS)]);
    typed(&mut m, &snap, " ");
    assert!(!m.paused);
}

#[test]
fn partition_selection_moves_clamps_and_scrolls() {
    let (mut m, snap) = model();
    press(&mut m, &snap, KeyCode::Up);
    assert_eq!(m.selected_partition, 0);
    typed(&mut m, &snap, "jjj");
    press(&mut m, &snap, KeyCode::Down);
    assert_eq!(m.selected_partition, 4);
    typed(&mut m, &snap, "G");
    assert_eq!(m.selected_partition, 5);
    typed(&mut m, &snap, "k");
    assert_eq!(m.selected_partition, 4);
    assert_eq!(typed(&mut m, &snap, "u"), apply("set topic test_repli unclean.leader.election.enable=true"));
    typed(&mut m, &snap, "g");
    assert_eq!(m.selected_partition, 0);

    // A tall topic on a short screen: the table scrolls to keep the selection visible.
    let mut big = snap.clone();
    let template = big.partitions[0].clone();
    big.partitions = (0..40)
        .map(|n| PartitionView { tp: crate::sim::TopicPartition::new("t", n), ..(*template).clone() }.into())
        .collect();
    let rows = view::table_rows(&m, &big);
    press(&mut m, &big, KeyCode::End);
    assert_eq!(m.selected_partition, 39);
    assert_eq!(m.partition_offset, 40 - rows);
    press(&mut m, &big, KeyCode::PageUp);
    assert_eq!(m.selected_partition, 39 - (rows - 1));
    assert_eq!(m.partition_offset, m.selected_partition);
}

#[test]
fn verdicts_show_in_the_status_line() {
    let (mut m, snap) = model();
    let command = Command::parse("crash 2").unwrap();
    update(
        &mut m,
        Msg::Verdict { command: command.clone(), result: Err("broker 2 is already down".into()) },
        &snap,
    );
    let status = m.status.clone().unwrap();
    assert_eq!(
        (status.kind, status.text.as_str()),
        (StatusKind::Error, "✖ crash 2: broker 2 is already down")
    );
    update(&mut m, Msg::Verdict { command, result: Ok(Answer { note: None }) }, &snap);
    assert_eq!(m.status.unwrap().text, "✔ crash 2");
}

#[test]
fn the_palette_edits_parses_and_applies_a_line() {
    let (mut m, snap) = model();
    typed(&mut m, &snap, ":");
    assert_eq!(m.mode, Mode::Palette);
    // Keys of the dashboard are text while the palette is open.
    assert_eq!(typed(&mut m, &snap, "crash 22"), vec![]);
    press(&mut m, &snap, KeyCode::Backspace);
    assert_eq!(press(&mut m, &snap, KeyCode::Enter), apply("crash 2"));
    assert_eq!(m.mode, Mode::Normal);
    assert_eq!(m.palette.history(), ["crash 2"]);

    typed(&mut m, &snap, ":");
    press(&mut m, &snap, KeyCode::Up);
    assert_eq!(m.palette.input(), "crash 2");
    typed(&mut m, &snap, "x");
    assert_eq!(press(&mut m, &snap, KeyCode::Enter), vec![]);
    assert_eq!(m.mode, Mode::Palette, "a bad line stays open for fixing");
    assert!(m.palette.error().unwrap().contains("not a valid broker id"));
    assert_eq!(m.status, None, "the reason shows in the palette, not behind it");
    press(&mut m, &snap, KeyCode::Backspace);
    assert_eq!(m.palette.input(), "crash 2", "the line stays editable");
    press(&mut m, &snap, KeyCode::Esc);
    assert_eq!(m.mode, Mode::Normal);
    assert_eq!(typed(&mut m, &snap, ":"), vec![]);
    assert_eq!(press(&mut m, &snap, KeyCode::Enter), vec![], "an empty line just closes");
    assert_eq!(m.mode, Mode::Normal);
}

#[test]
fn key_releases_are_ignored() {
    let (mut m, snap) = model();
    typed(&mut m, &snap, ":");
    let release = KeyEvent::new_with_kind(
        KeyCode::Char('x'),
        KeyModifiers::NONE,
        crossterm::event::KeyEventKind::Release,
    );
    update(&mut m, Msg::Key(release), &snap);
    assert_eq!(m.palette.input(), "");
}

/// On the too-small screen a key typed blind does nothing (it would crash a broker unseen);
/// quitting still works, and the keys act again once the terminal is large enough.
#[test]
fn keys_wait_while_the_terminal_is_too_small() {
    let (mut m, snap) = model();
    update(&mut m, Msg::Resize(60, 16), &snap);
    assert_eq!(typed(&mut m, &snap, "2x"), vec![]);
    assert_eq!(typed(&mut m, &snap, "q"), vec![Effect::Quit]);
    let (mut m, snap) = model();
    update(&mut m, Msg::Resize(60, 16), &snap);
    typed(&mut m, &snap, "x");
    update(&mut m, Msg::Resize(80, 24), &snap);
    assert_eq!(typed(&mut m, &snap, "x"), apply("crash 0"));
}

/// Esc and `:` read together arrive as Alt-`:`: it opens the palette, so the command typed
/// after it goes into the palette and not, letter by letter, to the dashboard keys.
#[test]
fn an_alt_key_from_a_quick_escape_is_the_key_alone() {
    let (mut m, snap) = model();
    let alt_colon = KeyEvent::new(KeyCode::Char(':'), KeyModifiers::ALT);
    update(&mut m, Msg::Key(alt_colon), &snap);
    assert_eq!(m.mode, Mode::Palette);
    assert_eq!(typed(&mut m, &snap, "crash 1"), vec![], "typed into the palette");
    assert_eq!(m.palette.input(), "crash 1");
}

#[test]
fn ctrl_c_quits_from_every_mode() {
    let ctrl_c = Msg::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
    for opener in ["", ":", "?", ":crsh 2\n"] {
        let (mut m, snap) = model();
        for c in opener.chars() {
            let code = if c == '\n' { KeyCode::Enter } else { KeyCode::Char(c) };
            press(&mut m, &snap, code);
        }
        assert_eq!(update(&mut m, ctrl_c.clone(), &snap), vec![Effect::Quit], "after {opener:?}");
        assert!(m.quit);
    }
}

#[test]
fn a_bad_palette_line_keeps_its_reason_until_it_is_edited() {
    let (mut m, snap) = model();
    for line in ["crsh 2", "crash", "set producer acks = 1"] {
        typed(&mut m, &snap, ":");
        typed(&mut m, &snap, line);
        assert_eq!(press(&mut m, &snap, KeyCode::Enter), vec![]);
        assert_eq!(m.mode, Mode::Palette);
        assert!(m.palette.error().is_some_and(|e| !e.is_empty()), "{line}: no reason");
        press(&mut m, &snap, KeyCode::Left);
        assert!(m.palette.error().is_some(), "{line}: a cursor move keeps the reason");
        typed(&mut m, &snap, "x");
        assert_eq!(m.palette.error(), None, "{line}: the reason goes once the line is edited");
        press(&mut m, &snap, KeyCode::Esc);
        typed(&mut m, &snap, ":");
        assert_eq!(m.palette.error(), None, "{line}: a fresh palette starts clean");
        press(&mut m, &snap, KeyCode::Esc);
    }
    typed(&mut m, &snap, ":crash 2x");
    press(&mut m, &snap, KeyCode::Enter);
    press(&mut m, &snap, KeyCode::Backspace);
    assert_eq!(press(&mut m, &snap, KeyCode::Enter), apply("crash 2"));
    assert_eq!(m.palette.error(), None);
}

#[test]
fn statuses_carry_their_glyph_once() {
    assert_eq!(Status::new(StatusKind::Error, "no broker 9").text, "✖ no broker 9");
    assert_eq!(Status::new(StatusKind::Error, "✖ no broker 9").text, "✖ no broker 9");
    assert_eq!(Status::new(StatusKind::Done, "crash 2").text, "✔ crash 2");
    assert_eq!(Status::new(StatusKind::Info, "100× is the fastest speed").text, "100× is the fastest speed");
}

#[test]
fn help_opens_scrolls_and_closes() {
    let (mut m, snap) = model();
    typed(&mut m, &snap, "?");
    assert_eq!(m.mode, Mode::Help);
    assert_eq!(typed(&mut m, &snap, "x"), vec![], "dashboard keys are off under the help");
    typed(&mut m, &snap, "jjj");
    assert_eq!(m.help_scroll, 3);
    press(&mut m, &snap, KeyCode::PageDown);
    press(&mut m, &snap, KeyCode::PageDown);
    press(&mut m, &snap, KeyCode::PageDown);
    assert!(m.help_scroll < crate::ui::help::line_count(&m.keys, m.screen.0));
    typed(&mut m, &snap, "k");
    press(&mut m, &snap, KeyCode::Esc);
    assert_eq!(m.mode, Mode::Normal);
    typed(&mut m, &snap, "?");
    assert_eq!(m.help_scroll, 0);
    typed(&mut m, &snap, "?");
    assert_eq!(m.mode, Mode::Normal);
    typed(&mut m, &snap, "?");
    assert_eq!(typed(&mut m, &snap, "q"), vec![Effect::Quit]);
}

#[test]
fn every_binding_reaches_update_without_panicking() {
    for b in keymap::BINDINGS {
        for key in b.keys {
            let (mut m, snap) = model();
            let mods = if key.ctrl { KeyModifiers::CONTROL } else { KeyModifiers::NONE };
            update(&mut m, Msg::Key(KeyEvent::new(key.code, mods)), &snap);
            update(&mut m, Msg::Key(KeyEvent::new(key.code, mods)), &Snapshot::default());
        }
    }
}

#[test]
fn a_slow_sim_shows_its_actual_speed_until_it_catches_up() {
    let (mut m, snap) = model();
    typed(&mut m, &snap, &">".repeat(20));
    assert_eq!(m.speed, 100.0);
    update(&mut m, Msg::Measured(Some(42.3)), &snap);
    assert_eq!(m.actual_speed, Some(42.0));
    update(&mut m, Msg::Measured(Some(85.0)), &snap);
    assert_eq!(m.actual_speed, Some(85.0), "shown until back above 90%");
    update(&mut m, Msg::Measured(Some(95.0)), &snap);
    assert_eq!(m.actual_speed, None);
    update(&mut m, Msg::Measured(Some(85.0)), &snap);
    assert_eq!(m.actual_speed, None, "85% is not clearly slow");
    update(&mut m, Msg::Measured(Some(0.123)), &snap);
    assert_eq!(m.actual_speed, Some(0.12));
    update(&mut m, Msg::Measured(None), &snap);
    assert_eq!(m.actual_speed, None);
    typed(&mut m, &snap, " ");
    update(&mut m, Msg::Measured(Some(3.0)), &snap);
    assert_eq!(m.actual_speed, None, "nothing to measure while paused");
}

#[test]
fn min_isr_at_the_replication_factor_is_explained_plainly() {
    let (mut m, mut snap) = model();
    snap.topics[0].effective_min_isr = 3;
    snap.topics[0].config_overrides = vec!["min.insync.replicas=5".into()];
    assert_eq!(typed(&mut m, &snap, "M"), vec![]);
    assert_eq!(
        m.status.unwrap().text,
        "✖ min.insync.replicas=3 already equals the replication factor; larger values are capped to 3 (Kafka 3.7+)"
    );
}

#[test]
fn at_the_end_of_a_scenario_space_and_step_only_explain() {
    use crate::cluster::snapshot::ScenarioInfo;
    let (mut m, mut snap) = model();
    snap.scenario = Some(ScenarioInfo { name: "S3".into(), end: snap.now_us.plus_micros(1) });
    assert!(!m.scenario_over(&snap));
    typed(&mut m, &snap, " ");
    assert!(m.paused, "space works before the end");
    typed(&mut m, &snap, " ");
    snap.scenario = Some(ScenarioInfo { name: "S3".into(), end: snap.now_us });
    assert!(m.scenario_over(&snap));
    assert_eq!(typed(&mut m, &snap, " ."), vec![]);
    assert!(!m.paused);
    let status = m.status.clone().unwrap();
    assert_eq!(status.kind, StatusKind::Info);
    assert!(status.text.contains("scenario ended at 00:01:23.4"), "{}", status.text);
    update(&mut m, Msg::Measured(Some(0.0)), &snap);
    assert_eq!(m.actual_speed, None, "a stopped scenario is not a slow sim");
}

#[test]
fn after_a_scenario_ended_keys_and_the_palette_refuse_commands_with_a_message() {
    use crate::cluster::snapshot::ScenarioInfo;
    let (mut m, mut snap) = model();
    snap.scenario = Some(ScenarioInfo { name: "S3".into(), end: snap.now_us });
    let ended = "the scenario ended at 00:01:23.4: sim time stops there, so commands are refused (q quits)";
    for key in ["x", "s", "r", "p", "a", "u", "l", "+"] {
        m.status = None;
        assert_eq!(typed(&mut m, &snap, key), vec![], "`{key}` must not reach the cluster");
        let status = m.status.clone().unwrap();
        assert_eq!((status.kind, status.text.as_str()), (StatusKind::Error, &*format!("✖ {ended}")), "{key}");
    }
    typed(&mut m, &snap, ":crash 2");
    assert_eq!(press(&mut m, &snap, KeyCode::Enter), vec![]);
    assert_eq!(m.mode, Mode::Palette, "the line stays, editable");
    assert_eq!(m.palette.error(), Some(ended));
    assert_eq!(typed(&mut m, &snap, "0"), vec![]);
    m.palette.edit(PaletteAction::Clear);
    typed(&mut m, &snap, "crash");
    press(&mut m, &snap, KeyCode::Enter);
    assert!(m.palette.error().unwrap().contains("missing broker id"), "a bad line is still explained");
}

#[test]
fn r_twice_restarts_and_any_other_key_keeps_the_run() {
    let (mut m, snap) = model();
    assert!(typed(&mut m, &snap, "R").is_empty());
    assert!(m.status.as_ref().unwrap().text.contains("R again restarts from 0"));
    typed(&mut m, &snap, "j");
    assert!(typed(&mut m, &snap, "R").is_empty(), "another key in between disarms it");
    assert_eq!(typed(&mut m, &snap, "R"), [Effect::Reset]);
    m.events_anchor = Some(3);
    update(&mut m, Msg::Restarted(Ok(())), &snap);
    assert_eq!(m.events_anchor, None);
    assert!(m.status.as_ref().unwrap().text.starts_with("✔ restarted from 0"));
}

#[test]
fn the_selected_partition_stays_selected_when_a_topic_sorts_before_it() {
    let (mut m, snap) = model();
    typed(&mut m, &snap, "jj");
    let chosen = m.partition(&snap).unwrap().tp.clone();
    // A new topic (as `__consumer_offsets` is, on first use) takes the first rows.
    let mut grown = snap.clone();
    let mut first = (*grown.partitions[0]).clone();
    first.tp = crate::sim::TopicPartition::new("__consumer_offsets", 0);
    grown.partitions.insert(0, std::sync::Arc::new(first));
    update(&mut m, Msg::Snapshot, &grown);
    assert_eq!(m.partition(&grown).unwrap().tp, chosen);
    assert_eq!(m.selected_partition, 3);
}

fn mouse(
    model: &mut Model,
    snap: &Snapshot,
    kind: crossterm::event::MouseEventKind,
    col: u16,
    row: u16,
) -> Vec<Effect> {
    let ev = crossterm::event::MouseEvent { kind, column: col, row, modifiers: KeyModifiers::NONE };
    update(model, Msg::Mouse(ev), snap)
}

#[test]
fn a_click_selects_the_row_or_broker_under_it_and_changes_nothing_else() {
    use crossterm::event::{MouseButton, MouseEventKind};
    let (mut m, snap) = model();
    update(&mut m, Msg::Resize(120, 40), &snap);
    let plan = view::plan(ratatui::layout::Rect::new(0, 0, 120, 40), &snap, view::heights(&m, &snap, 120));
    let effects = mouse(&mut m, &snap, MouseEventKind::Down(MouseButton::Left), 3, plan.table.y + 3);
    assert_eq!(effects, vec![]);
    assert_eq!(m.selected_partition, 2, "the third row under the header");
    mouse(&mut m, &snap, MouseEventKind::Down(MouseButton::Left), 3, plan.table.y);
    assert_eq!(m.selected_partition, 2, "the header row selects nothing");
    let strip = view::heights(&m, &snap, 120);
    assert_eq!(strip.strip, 1);
    let line = crate::ui::brokers::strip_lines(&m, &snap, 120)[0].to_string();
    let col = line.find(" 2 ✖").map(|b| line[..b].chars().count() + 1).expect("broker 2 in the strip");
    mouse(&mut m, &snap, MouseEventKind::Down(MouseButton::Left), col as u16, plan.brokers.y);
    assert_eq!(m.selected_broker, Some(2));
    mouse(&mut m, &snap, MouseEventKind::Down(MouseButton::Left), 1, plan.brokers.y);
    assert_eq!(m.selected_broker, Some(2), "the strip's title selects no broker");
}

#[test]
fn the_wheel_scrolls_the_pane_under_the_pointer() {
    use crossterm::event::MouseEventKind;
    let (mut m, snap) = model();
    update(&mut m, Msg::Resize(120, 40), &snap);
    let plan = view::plan(ratatui::layout::Rect::new(0, 0, 120, 40), &snap, view::heights(&m, &snap, 120));
    mouse(&mut m, &snap, MouseEventKind::ScrollDown, 3, plan.table.y + 1);
    assert_eq!(m.selected_partition, 3);
    mouse(&mut m, &snap, MouseEventKind::ScrollUp, 3, plan.table.y + 1);
    assert_eq!(m.selected_partition, 0);
    let events = plan.events.expect("the event log fits at 120×40");
    assert_eq!(m.events_anchor, None);
    mouse(&mut m, &snap, MouseEventKind::ScrollUp, 3, events.y + 1);
    assert!(m.events_anchor.is_some(), "the wheel over the event log scrolls it back");
    assert_eq!(m.selected_partition, 0, "and leaves the table alone");
}

#[test]
fn a_speed_step_down_from_the_fastest_replaces_the_fastest_note() {
    let (mut m, snap) = model();
    typed(&mut m, &snap, &">".repeat(15));
    assert!(m.status.as_ref().unwrap().text.contains("fastest"));
    typed(&mut m, &snap, "<");
    assert_eq!(m.speed, 50.0);
    let text = &m.status.as_ref().unwrap().text;
    assert!(!text.contains("fastest") && text.contains("speed 50×"), "{text}");
}

#[test]
fn a_key_after_one_r_only_cancels_the_restart() {
    let (mut m, snap) = model();
    typed(&mut m, &snap, "R");
    assert!(typed(&mut m, &snap, " ").is_empty());
    assert!(!m.paused, "space answered the question and did not also pause");
    let text = &m.status.as_ref().unwrap().text;
    assert!(text.contains("restart cancelled") && !text.contains("R again"), "{text}");
    typed(&mut m, &snap, " ");
    assert!(m.paused, "the next space pauses");
}

#[test]
fn two_esc_bytes_read_together_are_two_esc_presses() {
    let (mut m, snap) = model();
    typed(&mut m, &snap, "e/");
    assert_eq!(m.mode, Mode::Prompt(Ask::Search));
    update(&mut m, Msg::Key(KeyEvent::new(KeyCode::Esc, KeyModifiers::ALT)), &snap);
    assert_eq!(m.mode, Mode::Normal, "the first Esc closes the prompt, the second leaves the pane");
    assert!(typed(&mut m, &snap, "R").is_empty());
    assert!(m.reset_armed, "R reaches the dashboard");
}

/// Issue 9: after `:crsh 2` Enter, typing `:` and a new command appended it to the old line
/// (`:crsh 2:crash 2`) under the stale "unknown command `crsh`". A `:` as the first key
/// after a refusal starts a fresh line; a `:` later is typed as any key.
#[test]
fn a_colon_after_a_refused_line_starts_a_fresh_one() {
    let (mut m, snap) = model();
    typed(&mut m, &snap, ":crsh 2");
    press(&mut m, &snap, KeyCode::Enter);
    assert!(m.palette.error().unwrap().contains("crsh"));
    typed(&mut m, &snap, ":crash 2");
    assert_eq!(m.palette.input(), "crash 2");
    assert_eq!(m.palette.error(), None);
    assert_eq!(press(&mut m, &snap, KeyCode::Enter), apply("crash 2"));
    typed(&mut m, &snap, ":crash");
    press(&mut m, &snap, KeyCode::Enter);
    typed(&mut m, &snap, " :");
    assert_eq!(m.palette.input(), "crash :", "only the first key after a refusal");
}

/// A command the cluster refuses (`crash 7` where no broker 7 is) opens the palette again on
/// its line with the reason, as a line that does not parse keeps it open.
#[test]
fn a_line_the_cluster_refuses_opens_the_palette_again_to_fix_it() {
    let (mut m, snap) = model();
    typed(&mut m, &snap, ":crash 7");
    let sent = press(&mut m, &snap, KeyCode::Enter);
    assert_eq!(sent, apply("crash 7"));
    assert_eq!(m.mode, Mode::Normal);
    let command = Command::parse("crash 7").unwrap();
    update(&mut m, Msg::Verdict { command, result: Err("no broker 7".into()) }, &snap);
    assert_eq!(m.mode, Mode::Palette);
    assert_eq!(m.palette.input(), "crash 7");
    assert!(m.palette.error().unwrap().contains("no broker 7"));
    press(&mut m, &snap, KeyCode::Backspace);
    assert_eq!(m.palette.error(), None);
    typed(&mut m, &snap, "2");
    assert_eq!(press(&mut m, &snap, KeyCode::Enter), apply("crash 2"));
    // The same refusal for a key's command (x) leaves the keys where they are.
    let command = Command::parse("crash 2").unwrap();
    update(&mut m, Msg::Verdict { command: command.clone(), result: Ok(Answer { note: None }) }, &snap);
    update(&mut m, Msg::Verdict { command, result: Err("already crashed".into()) }, &snap);
    assert_eq!(m.mode, Mode::Normal);
}

/// Issue 9: `z`, `~`, F7 and F12 did nothing without a word. They say so, as a notice.
#[test]
fn a_key_that_does_nothing_says_so_as_a_notice() {
    let (mut m, snap) = model();
    for (code, name) in
        [(KeyCode::Char('z'), "z"), (KeyCode::Char('~'), "~"), (KeyCode::F(7), "F7"), (KeyCode::F(12), "F12")]
    {
        assert_eq!(press(&mut m, &snap, code), vec![]);
        let status = m.status.clone().expect("a notice");
        assert_eq!(status.kind, StatusKind::Info, "{status:?}");
        assert_eq!(status.text, format!("{name} does nothing here; ? lists the keys"));
    }
    typed(&mut m, &snap, "e");
    typed(&mut m, &snap, "z");
    assert!(m.status.as_ref().unwrap().text.starts_with("z does nothing here"), "in the Events pane too");
    let shift = KeyCode::Modifier(crossterm::event::ModifierKeyCode::LeftShift);
    m.status = None;
    press(&mut m, &snap, shift);
    assert_eq!(m.status, None, "a lone Shift is no key press");
}

/// A quick Esc then F5 arrives as Alt-F5: it shows the events view, not "does nothing".
#[test]
fn an_alt_function_key_from_a_quick_escape_is_the_key_alone() {
    let (mut m, snap) = model();
    update(&mut m, Msg::Key(KeyEvent::new(KeyCode::F(5), KeyModifiers::ALT)), &snap);
    assert_eq!(m.view, View::Events);
    assert_eq!(m.status, None);
}

mod events_pane;
mod partition_table;
