//! Whole-screen snapshots with ratatui's `TestBackend`, from the hand-made fixture, plus a
//! few cell checks where colour or glyph carries the meaning.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier, Style};
use std::sync::Arc;

use super::app::{Model, Msg, update};
use super::theme::Theme;
use super::{fixture, view};
use crate::cluster::snapshot::Snapshot;

fn model_at(w: u16, h: u16, snap: &Snapshot, color: bool) -> Model {
    let mut m = Model::new(1.0, Theme::new(color), snap);
    // The full log, as these tests were written for; the story view the app starts in
    // has its own tests (`events_start_with_the_story`).
    m.events_important = false;
    update(&mut m, Msg::Resize(w, h), snap);
    m
}

fn keys(m: &mut Model, snap: &Snapshot, keys: &[KeyCode]) {
    for k in keys {
        update(m, Msg::Key(KeyEvent::new(*k, KeyModifiers::NONE)), snap);
    }
}

fn render(m: &Model, snap: &Snapshot) -> Buffer {
    let (w, h) = m.screen;
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| view::view(m, snap, f)).unwrap();
    terminal.backend().buffer().clone()
}

fn screen(m: &Model, snap: &Snapshot) -> String {
    let (w, h) = m.screen;
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| view::view(m, snap, f)).unwrap();
    terminal.backend().to_string()
}

#[test]
fn screen_80x24() {
    let snap = fixture::snapshot();
    let m = model_at(80, 24, &snap, false);
    insta::assert_snapshot!(screen(&m, &snap));
}

#[test]
fn screen_160x48_under_min_isr_selected() {
    let snap = fixture::snapshot();
    let mut m = model_at(160, 48, &snap, true);
    keys(&mut m, &snap, &[KeyCode::Char('2'), KeyCode::Down, KeyCode::Down, KeyCode::Down, KeyCode::Down]);
    let verdict = Err("broker 2 is already down".to_string());
    update(
        &mut m,
        Msg::Verdict {
            command: crate::cluster::command::Command::parse("crash 2").unwrap(),
            result: verdict,
        },
        &snap,
    );
    insta::assert_snapshot!(screen(&m, &snap));
}

#[test]
fn screen_120x30_paused_with_loss() {
    let mut snap = fixture::snapshot();
    snap.acked_lost = 12;
    snap.duplicates = 3;
    let p5 = Arc::make_mut(&mut snap.partitions[5]);
    p5.acked_lost = 12;
    p5.loss_cause = Some(crate::sim::loss_cause::LossCause {
        acked: crate::sim::loss_cause::AckedUnder {
            acks: crate::sim::Acks::One,
            leader: 2,
            leader_epoch: 1,
            isr: Arc::from([2, 0, 1]),
        },
        also: Vec::new(),
        deciding: 0,
        election: Some(crate::sim::loss_cause::Election {
            kind: crate::sim::events::ElectionKind::Clean,
            old_leader: Some(2),
            new_leader: 0,
            leader_epoch: 2,
        }),
    });
    let mut m = model_at(120, 30, &snap, true);
    keys(&mut m, &snap, &[KeyCode::Char(' '), KeyCode::End]);
    insta::assert_snapshot!(screen(&m, &snap));
}

#[test]
fn screen_80x24_events_scrolled_back_important_only() {
    let snap = fixture::snapshot();
    let mut m = model_at(80, 24, &snap, false);
    keys(&mut m, &snap, &[KeyCode::Char('f'), KeyCode::Char('['), KeyCode::Char('[')]);
    insta::assert_snapshot!(screen(&m, &snap));
}

/// The Events pane with the keys, searched for "fenced" and stepped one hit older.
fn events_searched(w: u16, h: u16) -> String {
    let snap = fixture::snapshot();
    let mut m = model_at(w, h, &snap, false);
    keys(&mut m, &snap, &[KeyCode::Char('e'), KeyCode::Char('/')]);
    keys(&mut m, &snap, &"fenced".chars().map(KeyCode::Char).collect::<Vec<_>>());
    keys(&mut m, &snap, &[KeyCode::Enter, KeyCode::Char('n')]);
    screen(&m, &snap)
}

#[test]
fn screen_events_searched_80x24() {
    insta::assert_snapshot!(events_searched(80, 24));
}

#[test]
fn the_search_hit_at_the_bottom_has_its_stamp_reversed() {
    let snap = fixture::snapshot();
    let mut m = model_at(80, 24, &snap, false);
    keys(&mut m, &snap, &[KeyCode::Char('e'), KeyCode::Char('/')]);
    keys(&mut m, &snap, &"crashed".chars().map(KeyCode::Char).collect::<Vec<_>>());
    keys(&mut m, &snap, &[KeyCode::Enter]);
    let buf = render(&m, &snap);
    let (x, y) = find(&buf, "broker 2 crashed");
    let stamp = &buf[(x - 3, y)];
    assert!(stamp.modifier.contains(ratatui::style::Modifier::REVERSED), "{stamp:?}");
    let text = &buf[(x + 1, y)];
    assert!(!text.modifier.contains(ratatui::style::Modifier::REVERSED));
}

#[test]
fn screen_events_searched_120x40() {
    insta::assert_snapshot!(events_searched(120, 40));
}

/// The Events pane filtered to broker 2's ISR changes, as a learner types it.
#[test]
fn screen_events_filtered_120x40() {
    let snap = fixture::snapshot();
    let mut m = model_at(120, 40, &snap, false);
    keys(&mut m, &snap, &[KeyCode::Char('e'), KeyCode::Char('F')]);
    keys(&mut m, &snap, &"isr broker 2".chars().map(KeyCode::Char).collect::<Vec<_>>());
    keys(&mut m, &snap, &[KeyCode::Enter]);
    insta::assert_snapshot!(screen(&m, &snap));
}

#[test]
fn screen_events_prompt_80x24() {
    let snap = fixture::snapshot();
    let mut m = model_at(80, 24, &snap, false);
    keys(&mut m, &snap, &[KeyCode::Char('e'), KeyCode::Char('g')]);
    keys(&mut m, &snap, &"12.5x".chars().map(KeyCode::Char).collect::<Vec<_>>());
    keys(&mut m, &snap, &[KeyCode::Enter]);
    insta::assert_snapshot!(screen(&m, &snap));
}

#[test]
fn events_title_groups_thousands_and_fits() {
    let mut snap = fixture::snapshot();
    snap.event_count = 1234;
    let at = super::events::bottom(&snap, None, true).and_then(|b| b.checked_sub(1));
    let full = super::events::title(&snap, at, true, 120);
    assert_eq!(full, " Events · 1 234 so far · scrolled back, 1 newer (} to follow) · important only ");
    for width in [30, 60, 80] {
        let t = super::events::title(&snap, at, true, width);
        assert!(super::text::width(&t) < width, "{t:?} fits in {width}");
    }
}

#[test]
fn screen_too_small() {
    let snap = fixture::snapshot();
    let m = model_at(60, 20, &snap, true);
    insta::assert_snapshot!(screen(&m, &snap));
}

#[test]
fn screen_help_80x24() {
    let snap = fixture::snapshot();
    let mut m = model_at(80, 24, &snap, false);
    keys(&mut m, &snap, &[KeyCode::Char('?')]);
    insta::assert_snapshot!(screen(&m, &snap));
}

#[test]
fn screen_too_small_20x5_wraps() {
    let snap = fixture::snapshot();
    let m = model_at(20, 5, &snap, false);
    insta::assert_snapshot!(screen(&m, &snap));
}

#[test]
fn screen_palette_80x24() {
    let snap = fixture::snapshot();
    let mut m = model_at(80, 24, &snap, false);
    keys(&mut m, &snap, &[KeyCode::Char(':')]);
    let typed: Vec<KeyCode> = "set producer acks=1".chars().map(KeyCode::Char).collect();
    keys(&mut m, &snap, &typed);
    insta::assert_snapshot!(screen(&m, &snap));
}

#[test]
fn screen_palette_error_80x24() {
    let snap = fixture::snapshot();
    let mut m = model_at(80, 24, &snap, false);
    keys(&mut m, &snap, &[KeyCode::Char(':')]);
    let typed: Vec<KeyCode> = "crsh 2".chars().map(KeyCode::Char).collect();
    keys(&mut m, &snap, &typed);
    keys(&mut m, &snap, &[KeyCode::Enter]);
    insta::assert_snapshot!(screen(&m, &snap));
}

#[test]
fn screen_long_refusal_wraps_80x24() {
    let snap = fixture::snapshot();
    let mut m = model_at(80, 24, &snap, false);
    let command = crate::cluster::command::Command::parse("create-topic w 3 5").unwrap();
    let why = "INVALID_REPLICATION_FACTOR: Unable to replicate the partition 5 time(s): \
               The target replication factor of 5 cannot be reached because only 3 broker(s) are registered.";
    update(&mut m, Msg::Verdict { command, result: Err(why.to_string()) }, &snap);
    let text = screen(&m, &snap);
    assert!(text.contains("only 3 broker(s) are registered."), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn the_header_tells_when_the_sim_runs_slower_than_asked() {
    let snap = fixture::snapshot();
    let mut m = model_at(80, 24, &snap, false);
    m.speed = 100.0;
    update(&mut m, Msg::Measured(Some(42.0)), &snap);
    let text = screen(&m, &snap);
    assert!(text.lines().next().is_some_and(|l| l.contains("▶ 100× (actual 42×)")), "{text}");
}

#[test]
fn below_1x_the_header_shows_milliseconds() {
    let mut snap = fixture::snapshot();
    snap.now_us = crate::sim::SimTime::from_micros(83_456_789);
    snap.now = snap.now_us.as_ms();
    let mut m = model_at(80, 24, &snap, false);
    let text = screen(&m, &snap);
    assert!(text.lines().next().is_some_and(|l| l.contains("t=00:01:23.4  ▶ 1×")), "{text}");
    m.speed = 0.01;
    let text = screen(&m, &snap);
    assert!(text.lines().next().is_some_and(|l| l.contains("t=00:01:23.456  ▶ 0.01×")), "{text}");
}

/// The settings line (row 2 of the screen, or 3 when the broker strip wraps).
fn settings_row(text: &str) -> String {
    text.lines().find(|l| l.contains("acks=")).unwrap_or_default().to_string()
}

#[test]
fn min_isr_above_the_replication_factor_shows_both_values() {
    let mut snap = fixture::snapshot();
    snap.topics[0].config_overrides = vec!["min.insync.replicas=5".into()];
    snap.topics[0].effective_min_isr = 3;
    let row = settings_row(&screen(&model_at(80, 24, &snap, false), &snap));
    assert!(row.contains("min.insync=5 (effective 3)  unclean=off"), "{row}");
    let row = settings_row(&screen(&model_at(200, 50, &snap, false), &snap));
    assert!(row.contains("min.insync.replicas=5 (effective 3, test_repli)"), "{row}");
    snap.topics[0].config_overrides.clear();
    snap.topics[0].effective_min_isr = 1;
    let row = settings_row(&screen(&model_at(80, 24, &snap, false), &snap));
    assert!(row.contains("min.insync=1  "), "{row}");
}

#[test]
fn the_settings_line_form_depends_on_the_width_only() {
    let mut snap = fixture::snapshot();
    for (rate, acks) in [(0.0, crate::sim::Acks::Zero), (5000.0, crate::sim::Acks::All)] {
        snap.producers[0].config.rate = rate;
        snap.producers[0].config.acks = acks;
        for w in [120, 159] {
            let row = settings_row(&screen(&model_at(w, 40, &snap, false), &snap));
            assert!(row.contains(" min.insync=2  unclean=off  lag.max=30s  rate="), "{w}: {row}");
        }
        let row = settings_row(&screen(&model_at(160, 40, &snap, false), &snap));
        assert!(row.contains("min.insync.replicas=2 (test_repli)  unclean.leader.election"), "{row}");
    }
}

#[test]
fn a_stored_static_lag_change_is_marked_pending_until_the_brokers_restart() {
    let mut snap = fixture::snapshot();
    snap.broker_config.replica_lag_time_max_ms = 20_000;
    let row = settings_row(&screen(&model_at(120, 40, &snap, false), &snap));
    assert!(row.contains("lag.max=20s  rate="), "{row}");
    snap.brokers[1].restart_pending = vec!["replica.lag.time.max.ms".into()];
    let row = settings_row(&screen(&model_at(120, 40, &snap, false), &snap));
    assert!(row.contains("lag.max=20s*  rate="), "{row}");
    let row = settings_row(&screen(&model_at(200, 40, &snap, false), &snap));
    assert!(row.contains("replica.lag.time.max.ms=20000 (restart pending)"), "{row}");
}

/// The fixture with ten brokers (3 and 7 crashed) and `test_repli-1` replicated on all ten.
fn ten_brokers() -> Snapshot {
    use crate::cluster::snapshot::BrokerStatus;
    let mut snap = fixture::snapshot();
    let template = snap.brokers[0].clone();
    snap.brokers =
        (0..10).map(|id| crate::cluster::snapshot::BrokerView { id, ..template.clone() }).collect();
    for id in [3, 7] {
        snap.brokers[id].status = BrokerStatus::Crashed { since: fixture::CRASHED_AT };
        snap.brokers[id].fenced = true;
    }
    let p = Arc::make_mut(&mut snap.partitions[1]);
    let follower = p.replica_views[2].clone();
    p.replicas = (0..10).collect();
    p.isr = (0..10).filter(|b| ![3, 7].contains(b)).collect();
    p.replica_views = (0..10)
        .map(|broker| crate::cluster::snapshot::ReplicaView {
            broker,
            is_leader: broker == 1,
            online: ![3, 7].contains(&broker),
            in_isr: ![3, 7].contains(&broker),
            ..follower.clone()
        })
        .collect();
    snap
}

#[test]
fn screen_ten_brokers_80x24() {
    let snap = ten_brokers();
    let mut m = model_at(80, 24, &snap, false);
    keys(&mut m, &snap, &[KeyCode::Char('9'), KeyCode::Down]);
    insta::assert_snapshot!(screen(&m, &snap));
}

#[test]
fn the_strip_says_restart_pending_for_a_broker_running_an_old_static_config() {
    let mut snap = fixture::snapshot();
    snap.brokers[0].restart_pending = vec!["replica.lag.time.max.ms".into()];
    let text = screen(&model_at(120, 30, &snap, false), &snap);
    assert!(text.lines().nth(1).is_some_and(|l| l.contains("0 ● up, restart pending")), "{text}");
    assert!(!text.lines().nth(1).is_some_and(|l| l.contains("1 ● up, restart pending")), "{text}");
}

#[test]
fn the_strip_says_frozen_and_powered_off_in_words() {
    use crate::cluster::snapshot::BrokerStatus;
    let mut snap = fixture::snapshot();
    snap.brokers[0].status = BrokerStatus::Frozen { since: fixture::CRASHED_AT };
    snap.brokers[2].status = BrokerStatus::PoweredOff { since: fixture::CRASHED_AT };
    let text = screen(&model_at(120, 30, &snap, false), &snap);
    let strip = text.lines().nth(1).unwrap_or_default();
    assert!(strip.contains("0 ■ frozen 12s"), "{text}");
    assert!(strip.contains("2 ✖ powered off 12s, fenced"), "{text}");
}

#[test]
fn the_controller_id_gives_way_before_the_strip_wraps() {
    let mut snap = fixture::snapshot();
    snap.brokers[1].fetch_paused = true;
    let text = screen(&model_at(80, 24, &snap, false), &snap);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[1].contains("1 ● up, fetch paused L2   2 ✖ crashed 12s, fenced L0"), "{text}");
    assert!(!lines[1].contains("ctrl") && lines[2].contains("acks="), "{text}");
    let text = screen(&model_at(120, 24, &snap, false), &snap);
    assert!(text.lines().nth(1).is_some_and(|l| l.contains("KRaft controller 3000")), "{text}");
}

#[test]
fn ten_brokers_fit_and_cut_cells_end_with_an_ellipsis() {
    let snap = ten_brokers();
    for (w, h) in [(80, 24), (100, 30), (120, 40), (200, 50)] {
        let mut m = model_at(w, h, &snap, false);
        keys(&mut m, &snap, &[KeyCode::Char('9'), KeyCode::Down]);
        let text = screen(&m, &snap);
        let lines: Vec<&str> = text.lines().collect();
        let strip: String = lines[1..3].iter().filter(|l| !l.contains("acks=")).copied().collect();
        for id in 0..10 {
            assert!(strip.contains(&format!("{id}")), "{w}x{h}: broker {id} missing:\n{text}");
        }
        assert!(strip.contains("▸9 ● up"), "{w}x{h}: the selected broker's state:\n{text}");
        let row = lines.iter().find(|l| l.contains("test_repli-1")).unwrap();
        let cut = row.contains('…');
        let full_isr = row.contains("0,1,2,4,5,6,8,9");
        assert!(cut || full_isr, "{w}x{h}: ISR cut without …:\n{text}");
    }
}

fn with_scenario(end: crate::sim::Ms) -> Snapshot {
    let mut snap = fixture::snapshot();
    let name = "S3: acks=1 acknowledged write lost on leader crash".to_string();
    let end = crate::sim::SimTime::from_ms(end);
    snap.scenario = Some(crate::cluster::snapshot::ScenarioInfo { name, end });
    snap
}

#[test]
fn screen_scenario_ended_80x24() {
    let snap = with_scenario(fixture::NOW);
    let mut m = model_at(80, 24, &snap, false);
    keys(&mut m, &snap, &[KeyCode::Char(' ')]);
    insta::assert_snapshot!(screen(&m, &snap));
}

#[test]
fn the_header_names_the_scenario_as_far_as_it_fits() {
    let snap = with_scenario(fixture::NOW + 60_000);
    let header =
        |w: u16| screen(&model_at(w, 40, &snap, false), &snap).lines().next().unwrap_or_default().to_string();
    // At 80 columns the partition counts come before the scenario name (the header
    // counts unhealthy partitions); the name keeps its first columns.
    assert!(header(80).contains("▶ 1×  S3: ack…"), "{}", header(80));
    assert!(header(80).contains("URP 6 <minISR 1  acked lost: 0\""), "{}", header(80));
    assert!(
        header(200).contains("scenario S3: acks=1 acknowledged write lost on leader crash  KRaft"),
        "{}",
        header(200)
    );
}

#[test]
fn every_size_draws_without_panicking() {
    let long = "x".repeat(300);
    for snap in [fixture::snapshot(), ten_brokers(), with_scenario(0), Snapshot::default()] {
        for (w, h) in [(80, 24), (81, 25), (99, 24), (119, 30), (120, 24), (160, 24), (250, 60), (79, 23)] {
            let mut m = model_at(w, h, &snap, w % 2 == 0);
            let verdict = Err(format!("{long} {long}"));
            let command = crate::cluster::command::Command::parse("crash 9").unwrap();
            update(&mut m, Msg::Verdict { command, result: verdict }, &snap);
            render(&m, &snap);
            keys(&mut m, &snap, &[KeyCode::Char(':')]);
            let typed: Vec<KeyCode> = long.chars().map(KeyCode::Char).collect();
            keys(&mut m, &snap, &typed);
            keys(&mut m, &snap, &[KeyCode::Enter, KeyCode::Home]);
            render(&m, &snap);
        }
    }
}

#[test]
fn an_empty_cluster_draws_without_panicking() {
    let snap = Snapshot::default();
    for (w, h) in [(80, 24), (160, 48), (10, 3), (0, 0)] {
        let mut m = model_at(w, h, &snap, true);
        keys(&mut m, &snap, &[KeyCode::Char('x'), KeyCode::Char('m'), KeyCode::Down]);
        render(&m, &snap);
    }
}

fn find(buf: &Buffer, text: &str) -> (u16, u16) {
    let area = buf.area;
    for y in 0..area.height {
        let row: String = (0..area.width).map(|x| buf[(x, y)].symbol().to_string()).collect();
        if let Some(i) = row.find(text) {
            return (row[..i].chars().count() as u16, y);
        }
    }
    panic!("{text:?} not on screen");
}

#[test]
fn loss_is_red_in_colour_and_reversed_without() {
    let mut snap = fixture::snapshot();
    snap.acked_lost = 5;
    let buf = render(&model_at(80, 24, &snap, true), &snap);
    let (x, y) = find(&buf, "acked lost: 5");
    assert_eq!(buf[(x, y)].fg, Color::Red);
    let buf = render(&model_at(80, 24, &snap, false), &snap);
    let (x, y) = find(&buf, "acked lost: 5");
    assert_eq!(buf[(x, y)].fg, Color::Reset);
    assert!(buf[(x, y)].modifier.contains(ratatui::style::Modifier::REVERSED));
}

#[test]
fn no_color_means_no_colour_anywhere() {
    let snap = fixture::snapshot();
    let mut m = model_at(160, 48, &snap, false);
    for k in [KeyCode::Char('?'), KeyCode::Esc, KeyCode::Char(':')] {
        let buf = render(&m, &snap);
        assert!(buf.content.iter().all(|c| c.fg == Color::Reset && c.bg == Color::Reset));
        keys(&mut m, &snap, &[k]);
    }
}

/// A cluster that records what it was asked, refuses every command when told to, and
/// otherwise carries the settings commands into the snapshot it hands out, like the real
/// one publishes a command's effect before answering.
struct FakeCluster {
    applied: std::cell::RefCell<Vec<crate::cluster::command::Command>>,
    advanced: std::cell::RefCell<Vec<crate::sim::Ms>>,
    snap: std::cell::RefCell<std::sync::Arc<Snapshot>>,
    refuse: bool,
}

impl FakeCluster {
    fn new(snap: &Snapshot, refuse: bool) -> FakeCluster {
        FakeCluster {
            applied: Default::default(),
            advanced: Default::default(),
            snap: std::cell::RefCell::new(std::sync::Arc::new(snap.clone())),
            refuse,
        }
    }
}

/// What a settings command does to a snapshot (only what the dashboard keys send).
fn carry_out(snap: &mut Snapshot, cmd: &crate::cluster::command::Command) {
    use crate::cluster::command::Command;
    use crate::cluster::command::set::Set;
    use crate::sim::Acks;
    match cmd {
        Command::Set(Set::Producer { index, key, value }) => {
            for p in snap.producers.iter_mut().filter(|p| index.is_none_or(|i| i == p.index)) {
                match (key.as_str(), value.as_str()) {
                    ("acks", "0") => p.config.acks = Acks::Zero,
                    ("acks", "1") => p.config.acks = Acks::One,
                    ("acks", "all") => p.config.acks = Acks::All,
                    ("rate", v) => p.config.rate = v.parse().unwrap_or(p.config.rate),
                    _ => {}
                }
            }
        }
        Command::Set(Set::Topic { topic, key, value }) => {
            for t in snap.topics.iter_mut().filter(|t| *t.name == **topic) {
                match key.as_str() {
                    "unclean.leader.election.enable" => t.unclean_leader_election_enable = value == "true",
                    "min.insync.replicas" => {
                        t.effective_min_isr = value.parse().unwrap_or(t.effective_min_isr)
                    }
                    _ => {}
                }
            }
        }
        Command::Set(Set::Cluster { key, value }) if key == "replica.lag.time.max.ms" => {
            let lag = &mut snap.broker_config.replica_lag_time_max_ms;
            *lag = value.parse().unwrap_or(*lag);
        }
        Command::Fetch(f) => {
            for b in snap.brokers.iter_mut().filter(|b| b.id == f.broker) {
                b.fetch_paused = f.paused;
            }
        }
        _ => {}
    }
}

impl super::Cluster for FakeCluster {
    fn apply(
        &self,
        cmd: crate::cluster::command::Command,
    ) -> Result<crate::cluster::command::Answer, crate::cluster::handle::SimError> {
        self.applied.borrow_mut().push(cmd.clone());
        if self.refuse {
            let why =
                format!("broker {} is already down", cmd.to_string().split(' ').next_back().unwrap_or("?"));
            return Err(crate::cluster::handle::SimError::InvalidState(why));
        }
        let mut next = Snapshot::clone(&self.snap.borrow());
        carry_out(&mut next, &cmd);
        *self.snap.borrow_mut() = std::sync::Arc::new(next);
        Ok(Default::default())
    }

    fn advance_to(&self, t: crate::sim::SimTime) {
        self.advanced.borrow_mut().push(t.as_ms());
    }

    fn latest(&self) -> std::sync::Arc<Snapshot> {
        self.snap.borrow().clone()
    }

    fn next_event(
        &self,
        within: crate::sim::Ms,
        _stop: Option<crate::sim::SimTime>,
    ) -> Option<crate::sim::SimTime> {
        self.advanced.borrow_mut().push(within);
        None
    }

    fn take_events(&self) -> Vec<crate::sim::events::ClusterEvent> {
        Vec::new()
    }

    fn reset(&self) -> Result<(), crate::cluster::handle::SimError> {
        self.applied.borrow_mut().clear();
        Ok(())
    }
}

/// Types `keys` through the event loop's input path, one after the other with nothing in
/// between (a burst); returns whether the last one asked to quit.
fn press_through(
    m: &mut Model,
    snap: &mut std::sync::Arc<Snapshot>,
    cluster: &FakeCluster,
    pacer: &mut super::pacer::Pacer,
    keys: &str,
) -> bool {
    let mut quit = false;
    for c in keys.chars() {
        let msg = Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
        quit = super::handle_input(msg, m, cluster, pacer, snap);
    }
    quit
}

#[test]
fn effects_reach_the_cluster_and_refusals_reach_the_status_line() {
    use crate::cluster::command::Command;
    let mut snap = std::sync::Arc::new(fixture::snapshot());
    let mut m = model_at(80, 24, &snap, false);
    let mut pacer = super::pacer::Pacer::new(snap.now_us);
    let cluster = FakeCluster::new(&snap, true);
    assert!(!press_through(&mut m, &mut snap, &cluster, &mut pacer, "2"));
    assert!(!press_through(&mut m, &mut snap, &cluster, &mut pacer, "x"));
    assert_eq!(*cluster.applied.borrow(), [Command::parse("crash 2").unwrap()]);
    assert_eq!(m.status.as_ref().unwrap().text, "✖ crash 2: broker 2 is already down");
    assert!(screen(&m, &snap).contains("✖ crash 2: broker 2 is already down"));

    press_through(&mut m, &mut snap, &cluster, &mut pacer, " ..");
    assert_eq!(*cluster.advanced.borrow(), [snap.now + 100, snap.now + 200]);
    assert!(press_through(&mut m, &mut snap, &cluster, &mut pacer, "q"));
}

/// Issue 9: a mistyped digit keeps the selected broker marked and says so.
#[test]
fn an_unknown_broker_keeps_the_selected_one_on_screen() {
    let snap = fixture::snapshot();
    let mut m = model_at(120, 40, &snap, false);
    keys(&mut m, &snap, &[KeyCode::Char('2'), KeyCode::Char('5')]);
    let text = screen(&m, &snap);
    let strip = text.lines().nth(1).unwrap_or_default();
    assert!(strip.contains("▸2"), "broker 2 stays marked selected:\n{text}");
    assert!(text.contains("✖ no broker 5 (brokers: 0–2); broker 2 stays selected"), "{text}");
}

#[test]
fn repeated_keys_start_from_the_state_the_last_one_left() {
    let mut snap = std::sync::Arc::new(fixture::snapshot());
    let mut m = model_at(120, 40, &snap, false);
    let mut pacer = super::pacer::Pacer::new(snap.now_us);
    let cluster = FakeCluster::new(&snap, false);
    let sent = |keys: &str, m: &mut Model, snap: &mut std::sync::Arc<Snapshot>, pacer: &mut _| {
        cluster.applied.borrow_mut().clear();
        press_through(m, snap, &cluster, pacer, keys);
        cluster.applied.borrow().iter().map(ToString::to_string).collect::<Vec<_>>()
    };
    let unclean = "set topic test_repli unclean.leader.election.enable";
    assert_eq!(
        sent("uu", &mut m, &mut snap, &mut pacer),
        [format!("{unclean}=true"), format!("{unclean}=false")]
    );
    assert!(!snap.topics[0].unclean_leader_election_enable, "u u leaves it off");
    assert_eq!(m.status.as_ref().unwrap().text, format!("✔ {unclean}=false"));
    assert!(settings_row(&screen(&m, &snap)).contains("unclean=off"));

    assert_eq!(
        sent("aaa", &mut m, &mut snap, &mut pacer),
        ["set producer acks=0", "set producer acks=1", "set producer acks=all"]
    );
    assert_eq!(
        sent("+++", &mut m, &mut snap, &mut pacer),
        ["set producer rate=200", "set producer rate=500", "set producer rate=1000"]
    );
    assert_eq!(sent("--", &mut m, &mut snap, &mut pacer), ["set producer rate=500", "set producer rate=200"]);
    assert_eq!(sent("2pp", &mut m, &mut snap, &mut pacer), ["pause-fetch 2", "resume-fetch 2"]);
    assert!(!snap.brokers[2].fetch_paused, "2 p p leaves fetching on");
    assert_eq!(
        sent("llL", &mut m, &mut snap, &mut pacer),
        [
            "set replica.lag.time.max.ms=20000",
            "set replica.lag.time.max.ms=15000",
            "set replica.lag.time.max.ms=20000"
        ]
    );
    let min_isr = "set topic test_repli min.insync.replicas";
    assert_eq!(sent("MM", &mut m, &mut snap, &mut pacer), [format!("{min_isr}=3")]);
    assert!(m.status.as_ref().unwrap().text.contains("capped"), "the second M is refused at rf=3");
    assert_eq!(sent("mmm", &mut m, &mut snap, &mut pacer), [format!("{min_isr}=2"), format!("{min_isr}=1")]);
    assert!(m.status.as_ref().unwrap().text.contains("already 1"));
}

/// The State cell of each partition row (text after the last column break) and the style of
/// its first character, at `w`×`h` in colour.
fn state_cells(snap: &Snapshot, w: u16, h: u16) -> Vec<(String, Style)> {
    let buf = render(&model_at(w, h, snap, true), snap);
    let (state_x, header_y) = find(&buf, "State");
    (header_y + 1..header_y + 1 + snap.partitions.len() as u16)
        .map(|y| {
            let text: String = (state_x..buf.area.width).map(|x| buf[(x, y)].symbol().to_string()).collect();
            let cell = &buf[(state_x, y)];
            (text.trim().to_string(), Style::default().fg(cell.fg).add_modifier(cell.modifier))
        })
        .collect()
}

#[test]
fn offline_frozen_hw_and_unreachable_leader_cells_say_so_in_their_colour() {
    use crate::cluster::snapshot::{PartitionHealth, Unreachable};
    let mut snap = fixture::snapshot();
    let parts: Vec<_> = snap.partitions.iter().map(|p| (**p).clone()).collect();
    let mut set = |i: usize, health: PartitionHealth| {
        let mut p = parts[i].clone();
        p.health = health;
        if health == PartitionHealth::Offline {
            p.leader = None;
        }
        snap.partitions[i] = Arc::new(p);
    };
    set(1, PartitionHealth::Offline);
    set(2, PartitionHealth::HwWaiting { broker: 1 });
    set(3, PartitionHealth::LeaderUnreachable { fenced_in: 6_200, why: Unreachable::Frozen });
    set(5, PartitionHealth::Reassigning);
    let bold_red = Style::default().fg(Color::Red).add_modifier(Modifier::BOLD);
    let wide = state_cells(&snap, 200, 50);
    let words: Vec<&str> = wide.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(
        words,
        [
            "URP",
            "OFFLINE",
            "HW frozen: waits 1",
            "leader frozen, fenced in 7s",
            "HW frozen: <minISR",
            "reassigning"
        ]
    );
    let fg = |cells: &[(String, Style)], i: usize| cells[i].1.fg;
    assert_eq!(wide[1].1.add_modifier, bold_red.add_modifier);
    assert_eq!([fg(&wide, 1), fg(&wide, 2), fg(&wide, 3), fg(&wide, 4)], [Some(Color::Red); 4]);
    assert_eq!([fg(&wide, 0), fg(&wide, 5)], [Some(Color::Yellow); 2]);
    let narrow = state_cells(&snap, 80, 24);
    let words: Vec<&str> = narrow.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(words, ["URP", "OFFLINE", "HW waits 1", "fence in 7s", "HW <minISR", "reassign"]);
    assert_eq!(fg(&narrow, 2), Some(Color::Red));
}

/// The overview at 200×60 has the charts row: throughput, the selected partition's ISR size
/// and HW against each replica's LEO, the producer's records/s and latency; without colour
/// every series keeps its own glyph (LEOs by broker digit, the HW as `━`).
#[test]
fn screen_200x60_with_charts() {
    let snap = fixture::snapshot();
    let m = model_at(200, 60, &snap, false);
    insta::assert_snapshot!(screen(&m, &snap));
}

#[test]
fn charts_appear_only_on_large_screens_and_name_their_glyphs() {
    let snap = fixture::snapshot();
    for (w, h) in [(80, 24), (120, 40), (159, 60), (200, 49)] {
        let text = screen(&model_at(w, h, &snap, false), &snap);
        assert!(!text.contains("Throughput, records/s"), "charts at {w}×{h}:\n{text}");
    }
    let text = screen(&model_at(200, 60, &snap, false), &snap);
    for needle in [
        "Throughput, records/s",
        "ISR 2 of 3, lowest 2 in 60 s",
        "━ HW",
        "2 b2 LEO",
        "○ p50",
        "● p99",
        "sim time",
        "rec/s",
        "offset",
        "latency, sim ms",
    ] {
        assert!(text.contains(needle), "no {needle:?} at 200×60:\n{text}");
    }
}

/// 50 brokers, 5 050 partitions, broker 7 down, `U` pressed: only its 300 partitions show,
/// the title says what is shown and that the 50 internal ones are hidden, and the header
/// still counts every partition.
#[test]
fn screen_unhealthy_only_80x24() {
    let snap = fixture::big_cluster();
    let mut m = model_at(80, 24, &snap, false);
    keys(&mut m, &snap, &[KeyCode::Char('U')]);
    let text = screen(&m, &snap);
    // The rows out of view are counted in the title (they were missing before).
    assert!(text.contains("Partitions · unhealthy · 300 of 5 050 · 29"), "{text}");
    assert!(text.contains("more below"), "{text}");
    assert!(text.contains("URP 303"), "the header counts every partition: {text}");
    insta::assert_snapshot!(text);
}

/// The typed filter at 200×50: the unhealthy partitions with a replica on broker 8, the
/// broker picked with `b`; the State column stays next to the data.
#[test]
fn screen_typed_filter_200x50() {
    let snap = fixture::big_cluster();
    let mut m = model_at(200, 50, &snap, false);
    keys(&mut m, &snap, &[KeyCode::Char('b'), KeyCode::Char('4'), KeyCode::Char('4'), KeyCode::Enter]);
    assert_eq!(m.selected_broker, Some(44));
    keys(&mut m, &snap, &[KeyCode::Char('F')]);
    for c in "unhealthy broker 8".chars() {
        keys(&mut m, &snap, &[KeyCode::Char(c)]);
    }
    keys(&mut m, &snap, &[KeyCode::Enter, KeyCode::Down]);
    let text = screen(&m, &snap);
    assert!(text.contains("Partitions · unhealthy · broker 8 · 200 of 5 050"), "{text}");
    let header = text.lines().find(|l| l.contains("Lag / ISR timer")).expect("the header row");
    assert!(header.find("State").unwrap() < 110, "State stays near the data: {header}");
    insta::assert_snapshot!(text);
}

/// At 80 columns a 20-digit seed, a slow sim and every loss counter still leave the sim
/// time, the clock and the counters whole: the seed, the counts and long labels give way.
#[test]
fn the_header_keeps_time_clock_and_losses_whole_at_80_columns() {
    let mut snap = fixture::snapshot();
    snap.seed = 14_695_981_039_346_656_037;
    (snap.acked_lost, snap.duplicates, snap.seen_erased) = (1234, 3, 17);
    let mut m = model_at(80, 24, &snap, false);
    (m.speed, m.actual_speed) = (100.0, Some(0.34));
    let header = |m: &Model, snap: &Snapshot| screen(m, snap).lines().next().unwrap().to_string();
    let worst = header(&m, &snap);
    for part in ["t=00:01:23.4", "▶ 100× (0.34×)", "dup: 3", "⚠ erased: 17", "⚠ acked lost: 1234 "] {
        assert!(worst.contains(part), "{part} in {worst}");
    }
    (snap.duplicates, snap.seen_erased) = (0, 0);
    let slow = header(&m, &snap);
    assert!(slow.contains("▶ 100× (actual 0.34×)") && slow.contains("⚠ acked lost: 1234 "), "{slow}");
    snap.seed = 42;
    m.actual_speed = None;
    let usual = header(&m, &snap);
    assert!(usual.contains("seed 42") && usual.contains("URP 6 <minISR 1"), "{usual}");
}

/// A refusal too long for the three status lines at 80 columns (a long value echoed in the
/// command) shortens the echo, never the reason.
#[test]
fn a_long_refusal_keeps_its_reason_and_shortens_the_echo_80x24() {
    let snap = fixture::snapshot();
    let mut m = model_at(80, 24, &snap, false);
    let value = "x_long_value_long_value_long_value_long_value_long_value_long";
    let why = format!(
        "invalid value `{value}` for `delivery.timeout.ms`: expected an integer from 30005 \
         (linger.ms + request.timeout.ms) to 2147483647"
    );
    use super::app::{Status, StatusKind};
    m.status =
        Some(Status::new(StatusKind::Error, format!("set producer delivery.timeout.ms={value}: {why}")));
    let lines: Vec<String> = crate::ui::footer::status_lines(&m, &snap, 80)
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect();
    assert!(lines.len() <= crate::ui::footer::STATUS_MAX_LINES, "{lines:#?}");
    let words = lines.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ");
    assert!(words.starts_with("✖ set producer"), "{words}");
    assert!(words.ends_with("(linger.ms + request.timeout.ms) to 2147483647"), "{words}");
    assert!(words.contains("…: invalid value"), "{words}");
    insta::assert_snapshot!(lines.join("\n"));
}
