//! The whole dashboard against the real simulation, in process: keys go through the same input
//! path the event loop uses (`ui::handle_input`) into a real [`Sim`], sim time moves only when
//! the test says so, and each frame is drawn into ratatui's `TestBackend` and read cell by
//! cell. No pseudo-terminal and no wall clock, so these tests are exact and fast; the
//! terminal itself (raw mode, alternate screen, signals) is left to `e2e_dashboard.rs`.

mod support;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use isrlab::cluster::handle::Sim;
use isrlab::cluster::snapshot::Snapshot;
use isrlab::cluster::spec::ClusterSpec;
use isrlab::sim::{Ms, SimTime};
use isrlab::ui::app::{Model, Msg, update};
use isrlab::ui::pacer::Pacer;
use isrlab::ui::theme::Theme;
use isrlab::ui::{Cluster, handle_input, view};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::sync::Arc;
use support::{Screen, Table, broker_2_fenced_out, ids};

/// The dashboard's state around one real simulation, driven by the test.
struct App {
    sim: Sim,
    model: Model,
    pacer: Pacer,
    snap: Arc<Snapshot>,
}

impl App {
    /// The default cluster (`isrlab --seed 42`) in a `cols`×`rows` terminal, without colour.
    fn start(cols: u16, rows: u16) -> App {
        App::start_with(ClusterSpec::default_run(42), cols, rows)
    }

    /// The cluster `spec` in a `cols`×`rows` terminal, without colour.
    fn start_with(spec: ClusterSpec, cols: u16, rows: u16) -> App {
        let sim = Sim::new(spec).expect("the run is valid");
        let snap = sim.latest();
        let mut model = Model::new(1.0, Theme::new(false), &snap);
        update(&mut model, Msg::Resize(cols, rows), &snap);
        let pacer = Pacer::new(snap.now_us);
        App { sim, model, pacer, snap }
    }

    /// Types `keys` one after the other, as a burst from the terminal.
    fn press(&mut self, keys: &str) {
        for c in keys.chars() {
            let key = Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
            assert!(!handle_input(key, &mut self.model, &self.sim, &mut self.pacer, &mut self.snap));
        }
    }

    /// Presses a key that is not a character (Enter, Esc, PgUp).
    fn press_key(&mut self, code: KeyCode) {
        let key = Msg::Key(KeyEvent::new(code, KeyModifiers::NONE));
        assert!(!handle_input(key, &mut self.model, &self.sim, &mut self.pacer, &mut self.snap));
    }

    /// Lets `ms` of sim time pass and hands the newest snapshot to the model, as the event
    /// loop does when the sim thread publishes one.
    fn run_for(&mut self, ms: Ms) {
        self.sim.advance_to(self.snap.now_us.plus_micros(ms * 1000));
        self.snap = self.sim.latest();
        update(&mut self.model, Msg::Snapshot, &self.snap);
    }

    /// The frame the dashboard draws now.
    fn screen(&self) -> Screen {
        let (cols, rows) = self.model.screen;
        let mut terminal = Terminal::new(TestBackend::new(cols, rows)).expect("a test backend");
        terminal.draw(|frame| view::view(&self.model, &self.snap, frame)).expect("a frame");
        Screen::of_buffer(terminal.backend().buffer())
    }
}

/// Starts the default cluster, checks broker 2 is in every ISR, crashes it with `2` `x`, lets
/// 15 s of sim time pass (more than `broker.session.timeout.ms` = 9 s plus the leaders'
/// reaction) and requires the frame to show broker 2 crashed and fenced, out of every ISR but
/// still a replica.
fn crash_broker_2(cols: u16, rows: u16) {
    let mut app = App::start(cols, rows);
    app.run_for(1_000);
    let before = app.screen();
    let table = Table::read(&before).unwrap_or_else(|| panic!("no partition table:\n{before}"));
    assert!(table.has_all_partitions(), "not every partition is shown:\n{before}");
    for r in 0..table.rows.len() {
        let isr = ids(table.cell(r, "ISR").unwrap_or_default());
        assert!(isr.contains(&"2"), "{} starts without broker 2 in its ISR:\n{before}", table.partition(r));
    }
    app.press("2");
    assert!(app.screen().contains("▸2 "), "broker 2 is not selected:\n{}", app.screen());
    app.press("x");
    assert!(!broker_2_fenced_out(&app.screen()), "fenced before the session timed out:\n{}", app.screen());
    app.run_for(15_000);
    let after = app.screen();
    assert!(broker_2_fenced_out(&after), "broker 2 is not shown fenced and out of every ISR:\n{after}");
}

#[test]
fn keys_2_x_crash_broker_2_and_it_leaves_every_isr_at_80x24() {
    crash_broker_2(80, 24);
}

#[test]
fn keys_2_x_crash_broker_2_and_it_leaves_every_isr_at_100x30() {
    crash_broker_2(100, 30);
}

/// 140 columns: the wide table, which has a `Replicas` column of its own.
#[test]
fn keys_2_x_crash_broker_2_and_it_stays_in_the_replicas_column_at_140x40() {
    crash_broker_2(140, 40);
}

#[test]
fn a_refused_key_shows_the_real_simulations_answer() {
    let mut app = App::start(100, 30);
    app.press("2x");
    app.run_for(1_000);
    app.press("x");
    let screen = app.screen();
    assert!(screen.contains("✖ crash 2: broker 2 is already down"), "{screen}");
}

/// The broker strip line (the one titled `Brokers`).
fn strip(screen: &Screen) -> String {
    (0..screen.lines.len()).map(|r| screen.line(r)).find(|l| l.contains(" Brokers ")).unwrap_or_default()
}

#[test]
fn keys_2_s_stop_broker_2_cleanly_and_2_r_brings_it_back_into_every_isr() {
    let mut app = App::start(100, 30);
    app.run_for(1_000);
    app.press("2s");
    app.run_for(10_000);
    let stopped = app.screen();
    assert!(strip(&stopped).contains("2 ■ stopped"), "broker 2 is not shown stopped:\n{stopped}");
    let table = Table::read(&stopped).expect("a partition table");
    assert!((0..table.rows.len()).all(|r| !ids(table.cell(r, "ISR").unwrap_or_default()).contains(&"2")));
    app.press("r");
    app.run_for(10_000);
    let back = app.screen();
    assert!(strip(&back).contains("2 ● up"), "broker 2 is not shown running:\n{back}");
    let table = Table::read(&back).expect("a partition table");
    for r in 0..table.rows.len() {
        let isr = ids(table.cell(r, "ISR").unwrap_or_default());
        assert!(isr.contains(&"2"), "{} has not taken broker 2 back:\n{back}", table.partition(r));
    }
}

/// One press of `n`: the sim time it stopped at and the event lines that appeared.
struct Stepped {
    at: SimTime,
    lines: Vec<String>,
}

impl App {
    /// Presses `n` and returns where it stopped and the new events' lines, after checking
    /// that the frame shows the newest of them at the bottom of the Events pane.
    fn next_event(&mut self) -> Stepped {
        let before = self.snap.event_count;
        self.press("n");
        let new = (self.snap.event_count - before) as usize;
        let lines: Vec<String> =
            self.snap.recent_events.iter().rev().take(new).rev().map(|e| e.kind.to_string()).collect();
        let screen = self.screen();
        if let Some(newest) = lines.last() {
            // The head only: from 160 columns on the why panel sits beside the event log,
            // whose lines then wrap sooner.
            let head: String = newest.chars().take(60).collect();
            assert!(screen.contains(&head), "the newest event is not on screen: {newest}\n{screen}");
        }
        Stepped { at: self.sim.now_us(), lines }
    }
}

/// A restart the class steps through with `n`: broker 2 leads two partitions whose followers
/// are stalled (`p`), so its log holds records nobody else has; it crashes, is restarted
/// within its session and then every press of `n` stops at the next instant that logs events,
/// in this order: registration refused (DUPLICATE_BROKER_REGISTRATION) while the old session
/// lives, fenced, registered, starts fetching, unfenced, truncated, caught up, rejoined ISR.
#[test]
fn key_n_steps_a_restart_one_event_at_a_time() {
    let mut app = App::start(200, 50);
    app.run_for(1_000);
    // `f`: the whole log, registration and fetchers included (the pane starts on the story).
    app.press("f 0p1p.....2x0p1p..........2r");
    assert!(app.model.paused);
    let story: [(&str, &str); 8] = [
        ("refused", "broker 2's registration refused (DUPLICATE_BROKER_REGISTRATION)"),
        ("fenced", "broker 2 fenced: no heartbeat"),
        ("registered", "broker 2 registered with the controller"),
        ("fetching", "broker 2 starts fetching test_repli-1 from leader 0"),
        ("unfenced", "broker 2 unfenced"),
        ("truncated", "broker 2 truncated test_repli-1 from LEO"),
        ("caught up", "broker 2 caught up on test_repli-1"),
        ("rejoined", "broker 2 rejoined ISR of test_repli-1"),
    ];
    let mut seen: Vec<(usize, SimTime)> = Vec::new();
    let mut last_at = app.sim.now_us();
    for _ in 0..60 {
        let step = app.next_event();
        assert!(step.at > last_at, "n did not move sim time forward from {last_at}");
        assert!(!step.lines.is_empty(), "n stopped at {} without a new event", step.at);
        last_at = step.at;
        for (i, (_, text)) in story.iter().enumerate() {
            if seen.iter().all(|(j, _)| *j != i) && step.lines.iter().any(|l| l.starts_with(text)) {
                seen.push((i, step.at));
            }
        }
        if seen.len() == story.len() {
            break;
        }
    }
    let names: Vec<&str> = seen.iter().map(|(i, _)| story[*i].0).collect();
    assert_eq!(names, story.iter().map(|s| s.0).collect::<Vec<_>>(), "steps seen in order: {seen:?}");
    assert!(seen.windows(2).all(|w| w[0].1 < w[1].1), "each step of the story at a later sim time: {seen:?}");
    let status = &app.model.status.as_ref().expect("a status line").text;
    assert!(status.starts_with("paused at 00:00:"), "{status}");
}

/// `isolate 0` shows where it acts: the broker strip says `isolated` in words, and every
/// partition broker 0 leads says `leader cut off` in its state column (the detail pane says
/// why) until the controller fences broker 0 and elects other leaders.
#[test]
fn an_isolated_broker_and_the_partitions_it_leads_say_so() {
    let mut app = App::start(200, 50);
    app.run_for(1_000);
    Cluster::apply(&app.sim, isrlab::cluster::command::Command::parse("isolate 0").expect("a command"))
        .expect("applied");
    app.run_for(100);
    let cut = app.screen();
    assert!(strip(&cut).contains("0 ● up, isolated"), "the strip does not say broker 0 is isolated:\n{cut}");
    let table = Table::read(&cut).expect("a partition table");
    let led: Vec<usize> = (0..table.rows.len()).filter(|&r| table.cell(r, "Leader") == Some("0")).collect();
    assert!(!led.is_empty(), "broker 0 leads nothing:\n{cut}");
    for r in 0..table.rows.len() {
        let state = table.cell(r, "State").unwrap_or_default();
        assert_eq!(
            state.contains("leader cut off"),
            led.contains(&r),
            "{}: {state}\n{cut}",
            table.partition(r)
        );
    }
    app.press(&"j".repeat(led[0]));
    let detail = app.screen();
    assert!(detail.contains("Leader cut off: broker 0 cannot reach the controller"), "{detail}");
    app.run_for(15_000);
    let fenced = app.screen();
    assert!(strip(&fenced).contains("0 ● up, fenced, isolated"), "{fenced}");
    assert!(!fenced.contains("leader cut off"), "the controller elected other leaders:\n{fenced}");
}

/// The number of seconds in `… fenced in Ns` / `fence in Ns`, if the text has one.
fn fencing_countdown(text: &str) -> Option<u64> {
    let at = text.find("fence")?;
    let rest = text[at..].split_once(" in ")?.1;
    rest.split('s').next()?.trim().parse().ok()
}

/// Crashing a leader: until the controller fences it (`broker.session.timeout.ms` = 9 s after
/// its last heartbeat), the partitions it leads say so with a countdown, and so does the
/// broker strip; the countdown runs down with sim time, and once fenced the partitions have
/// another leader and no countdown is left.
fn crash_a_leader_and_see_the_fencing_countdown(cols: u16, rows: u16, word: &str) {
    let mut app = App::start(cols, rows);
    app.run_for(1_000);
    app.press("0x");
    app.run_for(2_000);
    let first = app.screen();
    assert!(strip(&first).contains("crashed"), "{first}");
    let strip_left =
        fencing_countdown(&strip(&first)).unwrap_or_else(|| panic!("no countdown in the strip:\n{first}"));
    let table = Table::read(&first).expect("a partition table");
    let led: Vec<usize> =
        (0..table.rows.len()).filter(|&r| table.cell(r, table.titles[1]) == Some("0")).collect();
    assert!(!led.is_empty(), "broker 0 leads nothing:\n{first}");
    let mut left = Vec::new();
    for r in 0..table.rows.len() {
        let state = table.cell(r, "State").unwrap_or_default();
        if led.contains(&r) {
            assert!(state.starts_with(word), "{}: {state}\n{first}", table.partition(r));
            left.push(fencing_countdown(state).unwrap_or_else(|| panic!("no countdown: {state}\n{first}")));
        } else {
            assert!(fencing_countdown(state).is_none(), "{}: {state}\n{first}", table.partition(r));
        }
    }
    // Crashed 2 s ago, heard from at most 2 s (broker.heartbeat.interval.ms) before that.
    assert!(left.iter().all(|&s| s == strip_left && (5..=8).contains(&s)), "{left:?} {strip_left}\n{first}");
    app.run_for(2_000);
    let later = app.screen();
    assert_eq!(fencing_countdown(&strip(&later)), Some(strip_left - 2), "{later}");
    app.run_for(6_000);
    let fenced = app.screen();
    assert!(
        strip(&fenced).contains("fenced") && fencing_countdown(&fenced.to_string()).is_none(),
        "{fenced}"
    );
    let table = Table::read(&fenced).expect("a partition table");
    assert!((0..table.rows.len()).all(|r| table.cell(r, table.titles[1]) != Some("0")), "{fenced}");
}

#[test]
fn a_crashed_leader_shows_the_fencing_countdown_at_200x50() {
    crash_a_leader_and_see_the_fencing_countdown(200, 50, "leader down, fenced in ");
}

#[test]
fn a_crashed_leader_shows_the_fencing_countdown_at_80x24() {
    crash_a_leader_and_see_the_fencing_countdown(80, 24, "fence in ");
}

/// Stalling a follower (`p`: its fetchers pause) while producers write: after
/// `HW_STALL_MS` (1 s) without catching up, every partition it follows in the ISR that got
/// records since then says its HW is frozen waiting for it; the partitions it leads are not
/// held back. Keyless records go to one sticky partition at a time (Kafka's built-in
/// partitioner), so a followed partition that got none since the stall has nothing to wait for
/// and stays ok, its HW at its LEO.
fn stall_a_follower_and_see_hw_frozen(cols: u16, rows: u16, word: &str) {
    let mut app = App::start(cols, rows);
    app.run_for(1_000);
    app.press("2p");
    app.run_for(2_000);
    let stalled = app.screen();
    let table = Table::read(&stalled).expect("a partition table");
    let leader = table.titles[1];
    let mut frozen = 0;
    for r in 0..table.rows.len() {
        let state = table.cell(r, "State").unwrap_or_default();
        let led_by_2 = table.cell(r, leader) == Some("2");
        let hw = table.cell(r, "HW").unwrap_or_default();
        let leos = table.cell(r, "LEO by replica").unwrap_or_default();
        let caught_up = leos.split_whitespace().all(|l| l.split_once(':').is_some_and(|(_, o)| o == hw));
        let partition = table.partition(r);
        if led_by_2 || caught_up {
            assert!(!state.starts_with(word), "{partition}: {state}\n{stalled}");
        } else {
            assert!(state.starts_with(word), "{partition}: {state}\n{stalled}");
            frozen += 1;
        }
    }
    assert!(frozen > 0, "{stalled}");
}

#[test]
fn a_stalled_follower_freezes_the_hw_at_200x50() {
    stall_a_follower_and_see_hw_frozen(200, 50, "HW frozen: waits 2");
}

#[test]
fn a_stalled_follower_freezes_the_hw_at_80x24() {
    stall_a_follower_and_see_hw_frozen(80, 24, "HW waits 2");
}

/// The event lines of the Events pane (those starting with a time stamp), top to bottom.
fn event_lines(screen: &Screen) -> Vec<String> {
    let rows: Vec<String> = (0..screen.lines.len()).map(|r| screen.line(r)).collect();
    let start = rows.iter().position(|l| l.starts_with(" Events")).expect("an Events pane");
    rows[start + 1..].iter().filter(|l| l.starts_with(" 00:")).cloned().collect()
}

/// The story of a crash, told by the real simulation: `2 x` crashes broker 2 and, once it is
/// fenced, `e F election broker 2 Enter` leaves only its elections in the pane (instead of
/// scrolling through every ISR change), and `c / fenced: no Enter` finds the fencing.
#[test]
fn a_few_keys_filter_and_search_the_events_of_the_real_sim() {
    let mut app = App::start(120, 40);
    app.run_for(1_000);
    app.press("2x");
    app.run_for(15_000);
    let everything = event_lines(&app.screen());
    assert!(everything.iter().any(|l| !l.contains("leader 2 →")), "{everything:?}");
    app.press("eF");
    app.press("election broker 2");
    app.press_key(KeyCode::Enter);
    let screen = app.screen();
    let elections = event_lines(&screen);
    assert!(!elections.is_empty(), "no election of broker 2's partitions shown:\n{screen}");
    assert!(elections.iter().all(|l| l.contains("leader 2 → ")), "{elections:?}\n{screen}");
    assert!(screen.contains("only election broker 2"), "the title names the filter:\n{screen}");

    app.press("c/");
    app.press("fenced: no");
    app.press_key(KeyCode::Enter);
    let screen = app.screen();
    let found = event_lines(&screen);
    assert!(found.last().is_some_and(|l| l.contains("broker 2 fenced: no heartbeat")), "{found:?}\n{screen}");
}

/// `R R` on the dashboard's own simulation thread: the crashed broker is back, sim time and
/// every counter start from 0, and the run is the same as a fresh one with the same seed.
#[test]
fn r_twice_restarts_the_real_sim_from_zero_with_every_counter_cleared() {
    use isrlab::cluster::handle::LiveSim;
    let live =
        LiveSim::spawn(ClusterSpec::default_run(42), Vec::new(), None).expect("the default run starts");
    let mut snap = live.latest();
    let fresh = snap.clone();
    let mut model = Model::new(1.0, Theme::new(false), &snap);
    update(&mut model, Msg::Resize(100, 30), &snap);
    let mut pacer = Pacer::new(snap.now_us);
    let press = |keys: &str, model: &mut Model, snap: &mut Arc<Snapshot>, pacer: &mut Pacer| {
        for c in keys.chars() {
            let key = Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
            assert!(!handle_input(key, model, &live, pacer, snap));
        }
    };
    press("2xa", &mut model, &mut snap, &mut pacer);
    live.advance_to(SimTime::from_ms(15_000));
    live.next_event(0);
    snap = live.latest();
    assert!(snap.now >= 15_000 && snap.event_count > fresh.event_count + 5, "the run moved on");
    assert!(snap.commands.len() >= 2, "crash and acks were applied");
    press("R", &mut model, &mut snap, &mut pacer);
    assert!(snap.now >= 15_000, "one R only asks");
    press("R", &mut model, &mut snap, &mut pacer);
    assert_eq!(snap.now_us, SimTime::ZERO, "sim time is back at 0");
    assert_eq!(snap.event_count, fresh.event_count, "the event log starts over");
    assert!(snap.commands.is_empty(), "the commands applied at runtime are gone");
    assert_eq!(snap.acked_lost, 0);
    assert_eq!(format!("{:?}", snap.brokers), format!("{:?}", fresh.brokers), "broker 2 is up again");
    assert_eq!(
        format!("{:?}", snap.producers),
        format!("{:?}", fresh.producers),
        "acks is back to its start value"
    );
    assert!(model.status.as_ref().is_some_and(|s| s.text.starts_with("✔ restarted from 0")));
}

/// The charts at 200×60 on the real simulation: select a partition broker 2 follows, crash
/// broker 2, and once the controller has fenced it (`broker.session.timeout.ms` = 9 s) the
/// partition's ISR-size series drops from 3 to 2 and its chart says so.
#[test]
fn crashing_a_follower_drops_the_isr_size_series_of_the_selected_partition() {
    let mut app = App::start(200, 60);
    app.run_for(10_000);
    while app.model.partition(&app.snap).is_some_and(|p| p.leader == Some(2)) {
        app.press_key(KeyCode::Down);
    }
    let tp = app.model.partition(&app.snap).expect("a partition is selected").tp.clone();
    let isr = |app: &App| -> Vec<u16> {
        let h = app.snap.history.partition(&tp).expect("every partition has a history");
        h.isr.iter().copied().collect()
    };
    assert_eq!(isr(&app).len(), 10, "one sample a second");
    assert!(isr(&app).iter().all(|&n| n == 3), "{tp} starts with a full ISR: {:?}", isr(&app));
    let before = app.screen();
    // The title's long or shorter form, whichever fits the chart's width.
    let says = |screen: &Screen, n: u16| {
        screen.contains(&format!("{tp} · ISR size {n} of 3 replicas, lowest {n}"))
            || screen.contains(&format!("{tp} · ISR {n} of 3, lowest {n}"))
    };
    assert!(says(&before, 3), "{before}");
    app.press("2x");
    app.run_for(20_000);
    let series = isr(&app);
    assert_eq!(series.first(), Some(&3));
    assert_eq!(series.last(), Some(&2), "the ISR-size series has not dropped: {series:?}");
    let after = app.screen();
    assert!(says(&after, 2), "{after}");
    assert!(after.contains("Throughput, records/s"), "{after}");
    assert!(after.contains("producer 0 · 100 acked/s · latency p50"), "{after}");
}

/// The sim takes its chart samples on sim time: a run paced in 33 ms frames and one run in a
/// single jump (as at 100×) hold the same samples, one per second, none missed.
#[test]
fn chart_samples_do_not_depend_on_how_sim_time_is_paced() {
    let framed = Sim::new(ClusterSpec::default_run(42)).expect("the default run is valid");
    let mut t = 0;
    while t < 30_000 {
        t += 33;
        framed.advance_to(SimTime::from_ms(t));
    }
    let jumped = Sim::new(ClusterSpec::default_run(42)).expect("the default run is valid");
    jumped.advance_to(SimTime::from_ms(t));
    let (a, b) = (framed.snapshot(), jumped.snapshot());
    assert_eq!(a.history.cluster.len(), 30);
    assert_eq!(a.history, b.history);
    assert!(a.history.cluster.iter().skip(2).all(|s| s.acked > 0), "{:?}", a.history.cluster);
}

impl App {
    /// 50 brokers and `test_repli` with 5 000 partitions (RF 3, seed 1), as `isrlab --brokers
    /// 50 --topic test_repli:5000:3` starts, in a `cols`×`rows` terminal.
    fn start_large(cols: u16, rows: u16) -> App {
        let mut spec = ClusterSpec::default_run(1);
        spec.brokers = (0..50).collect();
        spec.topics[0].partitions = 5_000;
        App::start_with(spec, cols, rows)
    }

    /// Types a line into the prompt or palette that is open, then Enter.
    fn enter(&mut self, line: &str) {
        self.press(line);
        self.press_key(KeyCode::Enter);
    }
}

/// 50 brokers × 5 000 partitions: select broker 17 by typing its id (`b 17`), crash it, wait
/// until the controller fenced it and it left the ISRs, then `U`: the table shows exactly the
/// partitions with a replica on broker 17, says how many of all, and the header still counts
/// every under-replicated partition.
#[test]
fn unhealthy_only_shows_the_crashed_brokers_partitions_of_5000() {
    let mut app = App::start_large(200, 50);
    app.run_for(2_000);
    app.press("b");
    app.enter("17");
    assert_eq!(app.model.selected_broker, Some(17));
    app.press("x");
    app.run_for(12_000);
    let on_17: Vec<String> =
        app.snap.partitions.iter().filter(|p| p.replicas.contains(&17)).map(|p| p.tp.to_string()).collect();
    let urp = app.snap.health_counts().under_replicated;
    assert_eq!(urp, on_17.len(), "every partition on broker 17 is under-replicated, no other");
    app.press("U");
    let screen = app.screen();
    let title = format!("Partitions · unhealthy · {} of 5 000", on_17.len());
    assert!(screen.contains(&title), "{title} missing:\n{screen}");
    assert!(screen.contains(&format!("URP {urp} ")), "the header counts every partition:\n{screen}");
    let table = Table::read(&screen).unwrap_or_else(|| panic!("no partition table:\n{screen}"));
    assert!(table.rows.len() >= 10, "a screenful of rows:\n{screen}");
    for r in 0..table.rows.len() {
        assert!(
            on_17.iter().any(|p| p == table.partition(r)),
            "{} is not on broker 17:\n{screen}",
            table.partition(r)
        );
        assert!(ids(table.cell(r, "Replicas").unwrap()).contains(&"17"));
        assert!(!ids(table.cell(r, "ISR").unwrap()).contains(&"17"));
    }
    let shown: Vec<String> =
        app.model.shown(&app.snap).rows.iter().map(|&i| app.snap.partitions[i].tp.to_string()).collect();
    assert_eq!(shown, on_17, "the rows below the screen too");
}

/// Once a consumer group created `__consumer_offsets` (50 partitions, sorting before
/// `test_repli`), the table still opens on the user's topic: the internal partitions are
/// hidden and counted in the title, and `i` shows them.
#[test]
fn internal_topics_are_hidden_once_a_consumer_group_creates_them_at_80x24() {
    let mut app = App::start(80, 24);
    app.run_for(1_000);
    app.press(":");
    app.enter("add-consumer test_repli group=g");
    app.run_for(3_000);
    assert!(
        app.snap.partitions.iter().any(|p| &*p.tp.topic == "__consumer_offsets"),
        "the group made its topic"
    );
    let screen = app.screen();
    // At 80×24 with a consumer the table gives rows to the producer line (it never gives
    // way), so not every partition fits, and the title counts the row out of view; the rows
    // shown are the user's topic from its first.
    assert!(
        screen.contains("Partitions · 6 of 56 · 1 more below · 50 internal hidden (i shows)"),
        "{screen}"
    );
    assert!(screen.contains("▸test_repli-0 "), "the table opens on the user's topic:\n{screen}");
    let internal_rows = |screen: &Screen| {
        (0..screen.lines.len())
            .filter(|&r| {
                screen
                    .line(r)
                    .strip_prefix(['▸', ' '])
                    .is_some_and(|row| row.starts_with("__consumer_offsets-"))
            })
            .count()
    };
    assert_eq!(internal_rows(&screen), 0, "{screen}");
    app.press("i");
    let shown = app.screen();
    assert!(internal_rows(&shown) > 0, "i shows them:\n{shown}");
    assert!(shown.contains("test_repli-0"), "the selection stays on the user's topic:\n{shown}");
}

/// The default cluster with a second producer on the same topic (both as `isrlab` starts them).
fn two_producers() -> ClusterSpec {
    let mut spec = ClusterSpec::default_run(42);
    let second = spec.producers[0].clone();
    spec.producers.push(second);
    spec
}

/// Each producer's acks and rate as the real simulation has them.
fn producer_settings(app: &App) -> Vec<(String, f64)> {
    app.snap.producers.iter().map(|p| (p.config.acks.to_string(), p.config.rate)).collect()
}

#[test]
fn key_p_selects_producer_1_and_a_changes_its_acks_alone() {
    let mut app = App::start_with(two_producers(), 100, 30);
    app.run_for(500);
    let before = app.screen();
    assert!(
        before.contains("▸p0 ") || before.contains("▸producer 0 "),
        "producer 0 is not marked:\n{before}"
    );
    assert!(before.contains(" producer 0: acks=all rate=100/s"), "{before}");
    app.press("P");
    app.press("a");
    app.run_for(100);
    assert_eq!(producer_settings(&app), vec![("all".into(), 100.0), ("0".into(), 100.0)]);
    app.press("+");
    app.run_for(100);
    assert_eq!(producer_settings(&app), vec![("all".into(), 100.0), ("0".into(), 200.0)]);
    let screen = app.screen();
    assert!(screen.contains("✔ set producer 1 rate=200"), "{screen}");
    assert!(screen.contains(" producer 1: acks=0 rate=200/s"), "{screen}");
    assert!(
        screen.contains("▸p1 ") || screen.contains("▸producer 1 "),
        "producer 1 is not marked:\n{screen}"
    );
    // P wraps around to producer 0, and `a` now changes producer 0 alone.
    app.press("Pa");
    app.run_for(100);
    assert_eq!(producer_settings(&app), vec![("0".into(), 100.0), ("0".into(), 200.0)]);
}

#[test]
fn with_one_producer_a_changes_every_producer_as_before() {
    let mut app = App::start(100, 30);
    app.run_for(500);
    app.press("P");
    assert!(app.screen().contains("producer 0 is the only producer"), "{}", app.screen());
    app.press("a");
    app.run_for(100);
    let screen = app.screen();
    assert!(screen.contains("✔ set producer acks=0"), "{screen}");
    assert!(screen.line(2).starts_with(" acks=0  min.insync="), "{screen}");
    assert!(!screen.contains("▸p0") && !screen.contains("▸producer"), "{screen}");
}

/// 80×24 with a consumer: its group's `__consumer_offsets` (50 partitions) lengthens the
/// table, which gives rows so that the producer line stays (issue 9: producer counts never
/// give way), and the consumer takes what is left.
#[test]
fn at_80x24_the_producer_lines_stay_once_a_consumer_exists() {
    let mut app = App::start_with(two_producers(), 80, 24);
    app.run_for(500);
    app.press(":add-consumer test_repli group=g");
    app.press_key(KeyCode::Enter);
    app.run_for(5_000);
    assert!(app.snap.partitions.len() > 6, "no __consumer_offsets yet");
    let screen = app.screen();
    assert!(screen.contains(" Clients"), "the clients pane is gone:\n{screen}");
    assert!(screen.contains("▸p0 "), "producer 0's line is gone:\n{screen}");
    assert!(screen.contains(" p1 "), "producer 1's line is gone:\n{screen}");
    assert!(screen.contains("+1 consumer(s) not shown"), "the consumer is not even counted:\n{screen}");
    assert!(screen.contains("test_repli-0 logs"), "the selected partition's logs are gone:\n{screen}");
}

/// Every line of the screen, for a failure message.
fn dump(screen: &Screen, rows: u16) -> String {
    (0..usize::from(rows)).map(|r| screen.line(r)).collect::<Vec<_>>().join("\n")
}

/// Tab goes round the six views on the real sim; the header names each, and the broker view
/// shows what crashing broker 2 did: crashed, fenced by the controller, leading nothing.
#[test]
fn tab_walks_every_view_and_the_broker_view_shows_a_crash() {
    let mut app = App::start(120, 40);
    app.run_for(3_000);
    for name in ["overview", "partition", "brokers", "clients", "events", "config", "overview"] {
        let screen = app.screen();
        assert!(screen.contains(&format!("[{name}]")), "{name}:\n{}", dump(&screen, 40));
        app.press_key(KeyCode::Tab);
    }
    app.press("2x");
    app.run_for(15_000);
    app.press_key(KeyCode::F(3));
    let screen = app.screen();
    let row = (0..40).map(|r| screen.line(r)).find(|l| l.starts_with("▸2")).expect("broker 2's row");
    assert!(row.contains("crashed") && row.contains("fenced") && row.contains("leads 0"), "{row}");
    app.press_key(KeyCode::Up);
    assert_eq!(app.model.selected_broker, Some(1), "↑ selects the broker above in the broker view");
}

/// The config view's row of `name` on `screen` (selected or not).
fn config_row(screen: &Screen, name: &str) -> String {
    (0..screen.lines.len())
        .map(|r| screen.line(r))
        .find(|l| l[l.char_indices().nth(1).map_or(0, |(i, _)| i)..].starts_with(name))
        .unwrap_or_else(|| panic!("no row for {name}:\n{screen}"))
}

/// The dashboard at 120×40 in the config view, with `delivery.timeout.ms`'s row editor open
/// on its current value (F6, `/delivery.timeout`, Enter to keep the filter, Enter to edit).
fn editing_delivery_timeout() -> App {
    let mut app = App::start(120, 40);
    app.press_key(KeyCode::F(6));
    app.press("/delivery.timeout");
    app.press_key(KeyCode::Enter);
    app.press_key(KeyCode::Enter);
    app
}

/// Erases the editor's prefilled `120000`.
fn clear_value(app: &mut App) {
    for _ in 0.."120000".len() {
        app.press_key(KeyCode::Backspace);
    }
}

/// The config view edits in place: Enter opens an editor in the selected row's value cell
/// holding the current value (the palette stays closed, the status line stays), and Enter
/// there runs the `set` line through the palette's check and the real sim, which applies it:
/// the row shows the new value before the default.
#[test]
fn enter_edits_a_property_in_its_row_and_enter_applies_it() {
    let mut app = editing_delivery_timeout();
    assert_eq!(app.model.prompt.input(), "120000", "prefilled with the current value");
    let editing = app.screen();
    let row = config_row(&editing, "delivery.timeout.ms");
    assert!(
        row.starts_with("▸delivery.timeout.ms") && row.contains("120000") && row.contains("Esc cancel"),
        "{row}"
    );
    assert!(editing.contains("1 property holds `delivery.timeout`"), "the status line stays:\n{editing}");
    assert!((0..40).all(|r| !editing.line(r).starts_with(':')), "no palette line:\n{editing}");
    clear_value(&mut app);
    app.press("60000");
    app.press_key(KeyCode::Enter);
    assert_eq!(app.snap.producers[0].config.delivery_timeout_ms, 60_000, "{:?}", app.model.status);
    assert_eq!(
        app.model.palette.history().last().map(String::as_str),
        Some("set producer delivery.timeout.ms=60000")
    );
    let row = config_row(&app.screen(), "delivery.timeout.ms");
    assert!(
        row.contains("60000") && row.contains("120000") && !row.contains("Esc"),
        "value then default: {row}"
    );
}

/// Esc in the row's editor leaves the property as it was, whatever was typed.
#[test]
fn esc_cancels_an_edit_in_the_config_view() {
    let mut app = editing_delivery_timeout();
    app.press("999");
    app.press_key(KeyCode::Esc);
    app.run_for(100);
    assert_eq!(app.snap.producers[0].config.delivery_timeout_ms, 120_000);
    assert!(app.model.config_edit.is_none());
    let row = config_row(&app.screen(), "delivery.timeout.ms");
    assert!(!row.contains("999") && !row.contains("Esc cancel"), "{row}");
}

/// A value the cluster refuses, and a line the palette's parser refuses, each leave the edit
/// open on the typed text with the reason in the row, and change nothing; correcting it then
/// applies.
#[test]
fn a_refused_value_shows_the_reason_in_the_row_and_keeps_the_edit_open() {
    let mut app = editing_delivery_timeout();
    clear_value(&mut app);
    app.press("soon");
    app.press_key(KeyCode::Enter);
    let why = app.model.prompt.error().expect("the cluster's reason").to_string();
    assert!(why.contains("invalid value `soon`"), "{why}");
    assert_eq!(app.model.prompt.input(), "soon", "the typed text stays");
    let row = config_row(&app.screen(), "delivery.timeout.ms");
    assert!(row.contains("soon") && row.contains("✖ invalid value `soon`"), "{row}");
    assert_eq!(app.snap.producers[0].config.delivery_timeout_ms, 120_000, "nothing changed");
    // The palette's own parser: a value with a space is no `KEY=VALUE`.
    for _ in 0..4 {
        app.press_key(KeyCode::Backspace);
    }
    app.press("1 2");
    app.press_key(KeyCode::Enter);
    let parse = app.model.prompt.error().expect("the palette's reason").to_string();
    assert_eq!(
        parse,
        isrlab::cluster::command::Command::parse("set producer delivery.timeout.ms=1 2").unwrap_err().message
    );
    assert!(config_row(&app.screen(), "delivery.timeout.ms").contains('✖'));
    for _ in 0..3 {
        app.press_key(KeyCode::Backspace);
    }
    app.press("90000");
    app.press_key(KeyCode::Enter);
    assert_eq!(app.snap.producers[0].config.delivery_timeout_ms, 90_000);
    assert!(app.model.config_edit.is_none());
}

/// An empty value says so (not "is not KEY=VALUE"), and each refused attempt replaces the
/// last one's reason in the status line: after the cluster refuses `1000`, a line the parser
/// refuses (`30000 extra`) shows its own reason there.
#[test]
fn each_refused_edit_replaces_the_last_reason() {
    let mut app = editing_delivery_timeout();
    clear_value(&mut app);
    app.press_key(KeyCode::Enter);
    let why = app.model.prompt.error().expect("a reason").to_string();
    assert!(why.contains("is empty") && !why.contains("KEY=VALUE"), "{why}");
    app.press("1000");
    app.press_key(KeyCode::Enter);
    app.run_for(100);
    let refused = app.model.prompt.error().expect("the cluster's reason").to_string();
    for _ in 0..4 {
        app.press_key(KeyCode::Backspace);
    }
    app.press("30000 extra");
    app.press_key(KeyCode::Enter);
    let parse = app.model.prompt.error().expect("the parser's reason").to_string();
    assert_ne!(parse, refused);
    let status = format!("{:?}", app.model.status);
    assert!(status.contains("extra") && !status.contains(&refused), "{status}");
}

/// The broker view's fetch-session lines of the selected broker (`←L (N partitions): …`).
fn session_lines(screen: &Screen) -> Vec<String> {
    (0..screen.lines.len()).map(|r| screen.line(r)).filter(|l| l.trim_start().starts_with('←')).collect()
}

/// Broker 1's fetch session with leader 0 on the real sim (KIP-227): open and held by the
/// leader while all is well; started over with "request lost" when broker 0 crashes with a
/// fetch in flight (`FetchSessionHandler.handleError`); gone once the controller fenced broker
/// 0 and its partitions moved (the fetcher had nothing left to fetch). The epoch grows with
/// each fetch.
#[test]
fn the_broker_view_shows_each_fetchers_session_and_why_it_started_over() {
    let mut app = App::start(120, 40);
    app.run_for(3_000);
    app.press_key(KeyCode::F(3));
    app.press("1");
    let open = app.screen();
    let lines = session_lines(&open);
    let to_0 = lines.iter().find(|l| l.trim_start().starts_with("←0 ")).unwrap_or_else(|| panic!("{open}"));
    assert!(to_0.contains("session ") && to_0.contains("leader has it"), "{open}");
    assert!(to_0.contains("new fetcher"), "{open}");
    let epoch = |l: &str| -> u64 {
        l.split(" epoch ")
            .nth(1)
            .and_then(|r| r.split([',', ' ']).next())
            .and_then(|n| n.parse().ok())
            .unwrap()
    };
    let before = epoch(to_0);
    app.run_for(1_000);
    let later = session_lines(&app.screen());
    let to_0_later = later.iter().find(|l| l.trim_start().starts_with("←0 ")).expect("still fetching from 0");
    assert!(epoch(to_0_later) > before, "{to_0} → {to_0_later}");
    app.press("0x");
    app.run_for(2_000);
    app.press("1");
    let crashed = app.screen();
    let to_0 = session_lines(&crashed).into_iter().find(|l| l.trim_start().starts_with("←0 "));
    let to_0 = to_0.unwrap_or_else(|| panic!("the fetcher to 0 is gone before fencing:\n{crashed}"));
    assert!(to_0.contains("request lost"), "{crashed}");
    app.run_for(15_000);
    let fenced = app.screen();
    assert!(session_lines(&fenced).iter().all(|l| !l.trim_start().starts_with("←0 ")), "{fenced}");
    app.press("0");
    let down = app.screen();
    assert!(down.contains("fetch sessions: none while down"), "{down}");
}

/// The three states of README's stories at 80×24 on the real simulation (`--seed 42`), drawn
/// whole: every state word fits its column in its short form, no LEO, HW or count is cut, and
/// the producer counts, the selected partition's replicas and the status line stay.
fn story_screen(keys_and_waits: &[(&str, Ms)]) -> Screen {
    let mut app = App::start(80, 24);
    app.run_for(1_000);
    for (keys, wait) in keys_and_waits {
        app.press(keys);
        app.run_for(*wait);
    }
    app.screen()
}

/// `0 x`: broker 0 crashed 2 s ago and is not fenced yet; the partitions it leads count down.
#[test]
fn story_80x24_a_crashed_leader_before_fencing() {
    insta::assert_snapshot!(story_screen(&[("0x", 2_000)]).to_string());
}

/// `2 p`: broker 2 stopped fetching; the HW of the partitions that got records since waits for it.
#[test]
fn story_80x24_a_frozen_hw() {
    insta::assert_snapshot!(story_screen(&[("2p", 2_000)]).to_string());
}

/// README's data-loss recipe: `a a` (acks=1), both followers of broker 0's partitions stall
/// (`1 p 2 p`), records go through, then `0 x` crashes the leader and the controller elects a
/// stalled follower that lacks them.
#[test]
fn story_80x24_acknowledged_records_lost() {
    let screen = story_screen(&[("aa", 100), ("1p2p", 3_000), ("0x", 12_000)]);
    assert!(screen.contains("acked lost"), "{screen}");
    insta::assert_snapshot!(screen.to_string());
}

/// The Events pane starts on the story: after `2 x`, the fencing, `r` and the rejoin on the
/// real simulation, the events it shows by default are the crash, the fencing, the elections,
/// the ISR shrinks and expansions and the restart, and none of the plumbing (fetch sessions,
/// fetchers starting, the producer's retries and timeouts, registration); `f` shows them all.
#[test]
fn events_start_with_the_story_and_f_shows_the_plumbing_too() {
    use isrlab::ui::events;
    let mut app = App::start(80, 24);
    app.run_for(1_000);
    app.press("2x");
    app.run_for(15_000);
    app.press("r");
    app.run_for(15_000);
    let texts = |app: &App| -> Vec<String> {
        events::shown_events(&app.snap, app.model.events_anchor, app.model.events_lens())
            .iter()
            .map(|e| e.kind.to_string())
            .collect()
    };
    let story = texts(&app);
    let has = |lines: &[String], words: &str| lines.iter().any(|l| l.contains(words));
    for words in ["broker 2 crashed", "broker 2 fenced", "leader 2 → ", "removed from ISR", "unfenced"] {
        assert!(has(&story, words), "`{words}` missing from the story: {story:#?}");
    }
    assert!(has(&story, "rejoined ISR"), "no ISR expansion: {story:#?}");
    for plumbing in ["fetch session", "starts fetching", "failing with", "recovered", "registered"] {
        assert!(!has(&story, plumbing), "`{plumbing}` in the default view: {story:#?}");
    }
    let screen = app.screen();
    assert!(screen.contains("important only"), "the title says the pane is filtered:\n{screen}");

    app.press("f");
    let all = texts(&app);
    assert!(has(&all, "fetch session") && has(&all, "starts fetching"), "{all:#?}");
    assert!(all.len() > story.len());
}

/// The dashboard on its own simulation thread ([`LiveSim`], which `R R` can restart), as in
/// `r_twice_restarts_the_real_sim_from_zero_with_every_counter_cleared`.
struct Live {
    live: isrlab::cluster::handle::LiveSim,
    model: Model,
    pacer: Pacer,
    snap: Arc<Snapshot>,
}

impl Live {
    fn start() -> Live {
        let live = isrlab::cluster::handle::LiveSim::spawn(ClusterSpec::default_run(42), Vec::new(), None)
            .expect("the default run starts");
        let snap = live.latest();
        let mut model = Model::new(1.0, Theme::new(false), &snap);
        update(&mut model, Msg::Resize(100, 30), &snap);
        Live { live, model, pacer: Pacer::new(snap.now_us), snap }
    }

    fn key(&mut self, code: KeyCode) {
        let key = Msg::Key(KeyEvent::new(code, KeyModifiers::NONE));
        assert!(!handle_input(key, &mut self.model, &self.live, &mut self.pacer, &mut self.snap));
    }

    fn press(&mut self, keys: &str) {
        keys.chars().for_each(|c| self.key(KeyCode::Char(c)));
    }

    fn run_to(&mut self, ms: Ms) {
        self.live.advance_to(SimTime::from_ms(ms));
        self.live.next_event(0);
        self.snap = self.live.latest();
        update(&mut self.model, Msg::Snapshot, &self.snap);
    }
}

/// `R R` after `:create-topic t3 3 3` (whose rows sort before test_repli's): the new run has
/// no t3, and the partition selected before the reset stays selected by name, not by row.
#[test]
fn r_twice_keeps_the_selected_partition_by_name() {
    let mut app = Live::start();
    app.press(":create-topic t3 3 3");
    app.key(KeyCode::Enter);
    app.run_to(2_000);
    let at = app.snap.partitions.iter().position(|p| p.tp.to_string() == "test_repli-0").unwrap();
    assert!(at > 0, "t3's rows come first");
    while app.model.partition(&app.snap).is_some_and(|p| p.tp.to_string() != "test_repli-0") {
        app.press("j");
    }
    app.press("RR");
    assert_eq!(app.snap.now_us, SimTime::ZERO);
    assert_eq!(app.model.partition(&app.snap).unwrap().tp.to_string(), "test_repli-0");
}

/// A reset is a fresh run: the events search ends (its hits are gone), and the filter the
/// teacher set is kept and named in the status line.
#[test]
fn r_twice_ends_the_events_search_and_says_the_filter_is_kept() {
    let mut app = Live::start();
    app.run_to(5_000);
    app.model.events_search = Some("broker".into());
    app.press("eF");
    app.model.prompt.edit(isrlab::ui::keymap::PaletteAction::Clear);
    app.press("broker 1");
    app.key(KeyCode::Enter);
    app.key(KeyCode::Esc);
    assert_eq!(app.model.events_filter.broker, Some(1));
    app.press("RR");
    assert_eq!(app.snap.now_us, SimTime::ZERO);
    assert_eq!(app.model.events_search, None);
    let status = &app.model.status.as_ref().unwrap().text;
    assert!(status.contains("the Events filter (broker 1) is kept"), "{status}");
}

/// With a table filter the title line counts the rows out of view, as the lag column's
/// title does without one: `2` `B` shows 6 of 6 but 80×24 has room for fewer.
#[test]
fn a_filtered_table_counts_the_rows_out_of_view_in_its_title() {
    let mut app = App::start(80, 24);
    app.press("2B");
    let screen = app.screen();
    let title = screen.lines.iter().map(|l| l.concat()).find(|l| l.contains("Partitions ·")).unwrap();
    let body = Table::read(&screen).map_or(0, |t| t.rows.len());
    assert!(body < 6, "the screen has room for fewer than 6 rows\n{screen}");
    assert!(title.contains(&format!("6 of 6 · {} more below", 6 - body)), "{title}\n{screen}");
}

/// `F` refuses a broker or a topic the cluster lacks, in the prompt, which stays open.
#[test]
fn the_table_filter_refuses_an_unknown_broker_or_topic() {
    let mut app = App::start(100, 30);
    for (line, error) in [("broker 99", "no broker 99 (brokers: 0–2)"), ("topic nope", "no topic `nope`")] {
        app.press("F");
        app.model.prompt.edit(isrlab::ui::keymap::PaletteAction::Clear);
        app.press(line);
        app.press_key(KeyCode::Enter);
        assert!(app.model.prompt.error().is_some_and(|e| e.contains(error)), "{line}");
        assert!(matches!(app.model.mode, isrlab::ui::app::Mode::Prompt(_)), "the prompt stays open");
        assert!(!app.model.table_filter.narrows(), "a refused filter changes nothing");
        app.press_key(KeyCode::Esc);
    }
    app.press("F");
    app.model.prompt.edit(isrlab::ui::keymap::PaletteAction::Clear);
    app.press("topic test_repli broker 2");
    app.press_key(KeyCode::Enter);
    assert!(app.model.table_filter.narrows());
}

/// `elect-preferred` on a cluster whose preferred leaders lead: Kafka answers
/// `ELECTION_NOT_NEEDED`, nothing was done, so the status line has a notice mark, not ✔.
#[test]
fn an_election_not_needed_is_a_notice_not_a_check_mark() {
    let mut app = App::start(100, 30);
    app.run_for(3_000);
    app.press(":elect-preferred test_repli");
    app.press_key(KeyCode::Enter);
    let status = app.model.status.clone().unwrap();
    assert!(status.text.contains("ELECTION_NOT_NEEDED"), "{status:?}");
    assert!(status.text.starts_with("ℹ elect-preferred"), "{status:?}");
}

/// README's data-loss recipe (as in `story_80x24_acknowledged_records_lost`) on a
/// `cols`×`rows` terminal, with the partition that lost records (test_repli-2) selected.
fn loss_story(cols: u16, rows: u16) -> App {
    let mut app = App::start(cols, rows);
    app.run_for(1_000);
    for (keys, wait) in [("aa", 100), ("1p2p", 3_000), ("0x", 12_000)] {
        app.press(keys);
        app.run_for(wait);
    }
    app.press_key(KeyCode::Down);
    app.press_key(KeyCode::Down);
    app
}

/// The rows of the logs pane: from its title to the next pane's title (or the end).
fn logs_pane(screen: &Screen, rows: u16) -> String {
    let lines: Vec<String> = (0..usize::from(rows)).map(|r| screen.line(r)).collect();
    let from = lines.iter().position(|l| l.contains(" logs · leader ")).unwrap_or_else(|| panic!("{screen}"));
    let end = lines[from + 1..]
        .iter()
        .position(|l| l.contains(" Why · ") || l.contains(" Events · ") || l.contains(" Clients "))
        .map_or(lines.len(), |n| from + 1 + n);
    lines[from..end].join("\n")
}

/// Where the logs pane can give the loss note its rows (the overview at 200×60, the
/// partition view at 120×40 and 200×60), it says why in full, never in the brief form.
#[test]
fn the_loss_note_is_in_full_where_the_screen_has_room() {
    for (cols, rows, view) in [(200, 60, 1), (200, 60, 2), (120, 40, 2)] {
        let mut app = loss_story(cols, rows);
        app.press_key(KeyCode::F(view));
        let screen = app.screen();
        let logs = logs_pane(&screen, rows);
        assert!(logs.contains("test_repli-2 logs"), "{cols}×{rows} F{view}:\n{screen}");
        assert!(
            logs.contains("acked records lost: leader 0 acknowledged them"),
            "{cols}×{rows} F{view}:\n{logs}"
        );
        assert!(
            logs.contains("so broker 0 truncates them when it follows"),
            "{cols}×{rows} F{view}:\n{logs}"
        );
    }
}

/// At 80×24 the Events pane has four rows, too few for a loss event in full: it keeps the
/// cause in brief and says where the whole text is, and the events view (F5) shows it whole.
#[test]
fn a_loss_event_keeps_its_cause_at_80x24_and_f5_shows_it_whole() {
    // The Events pane's text, its wrapped lines joined.
    let pane = |screen: &Screen| {
        let rows: Vec<String> = (0..screen.lines.len()).map(|r| screen.line(r)).collect();
        let start = rows.iter().position(|l| l.starts_with(" Events")).expect("an Events pane");
        let text: Vec<String> = rows[start + 1..]
            .iter()
            .take_while(|l| l.starts_with(" 00:") || l.starts_with("   "))
            .cloned()
            .collect();
        text.join(" ").split_whitespace().collect::<Vec<_>>().join(" ")
    };
    let mut app = loss_story(80, 24);
    let screen = app.screen();
    let words = pane(&screen);
    assert!(words.contains("LOST in test_repli-2"), "{screen}");
    assert!(words.contains("acks=1, not yet on broker 1; it won a clean election (F5: in full)"), "{screen}");
    let loss = &words[words.find("LOST in").expect("the loss event")..];
    assert!(!loss.contains('…'), "the loss event is cut: {screen}");
    app.press_key(KeyCode::F(5));
    let whole = app.screen();
    let words = pane(&whole);
    assert!(
        words.contains("won a clean election (leader epoch 1), so broker 0 truncates them when it follows"),
        "{whole}"
    );
}

/// Issue 9's stale prompt line, tried the way a terminal sees it: one terminal whose cells
/// only change where ratatui's diff writes. The palette with a long line, a refusal under
/// it, a success, Esc and two resizes leave nothing of the palette behind, cell for cell the
/// same as a fresh draw of the same state.
#[test]
fn no_palette_text_stays_behind_after_it_closes_and_the_terminal_resizes() {
    let mut app = App::start(80, 24);
    app.run_for(1_000);
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).expect("a test backend");
    let draw = |app: &App, terminal: &mut Terminal<TestBackend>| {
        terminal.draw(|frame| view::view(&app.model, &app.snap, frame)).expect("a frame");
        Screen::of_buffer(terminal.backend().buffer()).to_string()
    };
    app.press(":frobnicate the cluster with a very long command line that does not parse at all");
    app.press_key(KeyCode::Enter);
    let refused = draw(&app, &mut terminal);
    assert!(refused.contains("unknown command"), "{refused}");
    app.press_key(KeyCode::Esc);
    app.press(":set producer delivery.timeout.ms=60000");
    app.press_key(KeyCode::Enter);
    draw(&app, &mut terminal);
    app.press(":a long line typed and then given up with Esc, long enough to wrap if it could");
    draw(&app, &mut terminal);
    app.press_key(KeyCode::Esc);
    for (cols, rows) in [(80, 24), (120, 40), (80, 24)] {
        update(&mut app.model, Msg::Resize(cols, rows), &app.snap);
        terminal.backend_mut().resize(cols, rows);
        let seen = draw(&app, &mut terminal);
        assert_eq!(seen, app.screen().to_string(), "{cols}×{rows}: cells differ from a fresh frame");
        for gone in ["frobnicate", "given up", "Enter run", "unknown command"] {
            assert!(!seen.contains(gone), "{cols}×{rows}: `{gone}` stayed:\n{seen}");
        }
    }
}

/// The screen, and the three status rows from the one that starts with the `✔` of a done
/// command, joined by newlines.
fn status_rows(app: &App) -> (Screen, String) {
    let screen = app.screen();
    let rows: Vec<String> = (0..screen.lines.len())
        .map(|r| screen.line(r))
        .skip_while(|l| !l.starts_with(" ✔"))
        .take(3)
        .collect();
    let text = rows.join("\n");
    (screen, text)
}

/// Issue 9: the answer to `u` (with no partition leaderless, and once one is) fits the status
/// line's three rows at 80 columns, whole, and keeps the time of the controller's next
/// unclean check.
#[test]
fn the_answer_to_u_fits_the_status_lines_at_80_columns() {
    let mut app = App::start(80, 24);
    app.run_for(1_000);
    app.press("u");
    let (screen, text) = status_rows(&app);
    assert!(text.contains("unclean.leader.election.enable=true"), "{screen}");
    assert!(text.contains("unfencing") && !text.contains('…'), "cut:\n{screen}");
    // Every broker down: the partitions are leaderless and the answer names the check's time.
    app.press("0x1x2x");
    app.run_for(15_000);
    app.press("uu");
    let (screen, text) = status_rows(&app);
    assert!(text.contains("unclean check at 00:0"), "{screen}");
    assert!(text.contains("unfencing") && !text.contains('…'), "cut:\n{screen}");
}

/// Draws the dashboard's frame with `app`'s model, whose charts keep their last drawings
/// across frames (`terminal` too keeps its buffers, as the live one does), and requires it to
/// equal the frame a model without any kept drawing gives: a memo that missed a change would
/// show the old chart. Returns the frame.
fn drawn_as_fresh(app: &App, terminal: &mut Terminal<TestBackend>, what: &str) -> Screen {
    let kept =
        terminal.draw(|frame| view::view(&app.model, &app.snap, frame)).expect("a frame").buffer.clone();
    let mut fresh = app.model.clone();
    fresh.charts = Default::default();
    let (cols, rows) = app.model.screen;
    let mut scratch = Terminal::new(TestBackend::new(cols, rows)).expect("a test backend");
    scratch.draw(|frame| view::view(&fresh, &app.snap, frame)).expect("a frame");
    let fresh = scratch.backend().buffer();
    assert_eq!(&kept, fresh, "{what}: the kept drawings differ from a fresh frame");
    Screen::of_buffer(fresh)
}

/// The charts are copied from their last drawing while their samples are unchanged (the why
/// panel's height too is worked out once per frame): through new snapshots every 33 ms of
/// sim time (one new sample a second), a key that selects another partition, a crash and its
/// fencing countdown, the other views and a resize, every frame equals one drawn from
/// scratch, and each of those changes shows.
#[test]
fn memoized_frames_equal_fresh_ones() {
    let mut app = App::start(200, 60);
    let mut terminal = Terminal::new(TestBackend::new(200, 60)).expect("a test backend");
    app.run_for(2_500);
    let mut last = drawn_as_fresh(&app, &mut terminal, "at 2.5 s");
    assert!(last.contains("Throughput"), "the charts row is shown at 200×60:\n{}", dump(&last, 60));
    let mut frames_that_changed = 0;
    for n in 0..40 {
        app.run_for(33);
        let now = drawn_as_fresh(&app, &mut terminal, &format!("frame {n}"));
        frames_that_changed += usize::from(now.lines != last.lines);
        last = now;
    }
    assert!(frames_that_changed > 30, "new snapshots show: {frames_that_changed} of 40 frames changed");
    app.press_key(KeyCode::Down);
    let moved = drawn_as_fresh(&app, &mut terminal, "after Down");
    assert!(
        moved.contains("test_repli-1 · ISR"),
        "the partition chart follows the key:\n{}",
        dump(&moved, 60)
    );
    app.press("2x");
    let mut countdowns = Vec::new();
    for s in 0..12 {
        app.run_for(1_000);
        let screen = drawn_as_fresh(&app, &mut terminal, &format!("{s} s after the crash"));
        countdowns.extend(fencing_countdown(&dump(&screen, 60)));
    }
    countdowns.dedup();
    assert!(countdowns.len() >= 3, "the fencing countdown ticks on screen: {countdowns:?}");
    for view in ["partition view", "brokers view", "clients view"] {
        app.press_key(KeyCode::Tab);
        app.run_for(1_000);
        drawn_as_fresh(&app, &mut terminal, view);
    }
    update(&mut app.model, Msg::Resize(120, 40), &app.snap);
    let mut smaller = Terminal::new(TestBackend::new(120, 40)).expect("a test backend");
    drawn_as_fresh(&app, &mut smaller, "at 120×40");
}

/// Issue 9's newcomer: F5, `F`, `broker 2 election` Enter emptied the overview's partition
/// table. In the events view `F` filters the events (and the footer says so); back in the
/// overview every partition is still listed and `F` is the table's filter again.
#[test]
fn f_in_the_events_view_filters_the_events_not_the_table() {
    let mut app = App::start(240, 50);
    app.run_for(1_000);
    app.press("2x");
    app.run_for(15_000);
    app.press_key(KeyCode::F(5));
    let screen = app.screen();
    assert!(screen.line(49).contains("F filter events"), "the footer:\n{}", dump(&screen, 50));
    app.press("F");
    app.press("broker 2 election");
    app.press_key(KeyCode::Enter);
    let screen = app.screen();
    assert!(
        screen.contains("only election broker 2"),
        "the events' title names the filter:\n{}",
        dump(&screen, 50)
    );
    app.press_key(KeyCode::Esc);
    app.press_key(KeyCode::F(1));
    let screen = app.screen();
    let table = Table::read(&screen).unwrap_or_else(|| panic!("no partition table:\n{}", dump(&screen, 50)));
    assert!(table.has_all_partitions(), "the table lost partitions:\n{}", dump(&screen, 50));
    assert!(screen.line(49).contains("F filter ") && !screen.line(49).contains("filter events"));
}

/// Issue 9: F7, F12, `z` and `~` gave no feedback. The status line says the key does
/// nothing, as a notice, in any view.
#[test]
fn a_key_that_does_nothing_says_so_on_the_screen() {
    let mut app = App::start(120, 40);
    app.run_for(1_000);
    app.press_key(KeyCode::F(7));
    assert!(app.screen().contains("F7 does nothing here; ? lists the keys"), "{}", dump(&app.screen(), 40));
    app.press_key(KeyCode::F(5));
    app.press("~");
    assert!(app.screen().contains("~ does nothing here"), "{}", dump(&app.screen(), 40));
}
