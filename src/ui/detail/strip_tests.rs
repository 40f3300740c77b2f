//! The log strips cell by cell on the real simulation, in field case FC-15a (acks=1 records
//! lost in a clean election): broker 1 leads `t-0` and acknowledges m5–m9 alone while broker
//! 2's fetchers are paused; broker 1 crashes, broker 2 wins a clean election (leader epoch
//! 1), and broker 1, restarted, truncates the five acknowledged records away.

use super::*;
use crate::cluster::command::Command;
use crate::cluster::handle::Sim;
use crate::cluster::snapshot::TruncationView;
use crate::cluster::spec::{ClusterSpec, Placement, ProducerSpec, TopicSpec};
use crate::config::{ProducerConfig, TopicConfig};
use crate::sim::{Acks, Ms};
use crate::ui::app::Model;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};

/// FC-15a's cluster: brokers 1 and 2, `t-0` on [1, 2], min ISR 1, unclean off,
/// `replica.lag.time.max.ms=10000`, a producer with acks=1 that sends only on `produce`.
fn fc15a() -> Sim {
    let mut spec = ClusterSpec::default_run(115);
    spec.brokers = vec![1, 2];
    spec.broker_config.replica_lag_time_max_ms = 10_000;
    spec.topics = vec![TopicSpec {
        name: "t".into(),
        partitions: 1,
        replication_factor: 2,
        placement: Placement::Explicit(vec![vec![1, 2]]),
        config: TopicConfig { min_insync_replicas: Some(1), ..TopicConfig::default() },
    }];
    let config =
        ProducerConfig { acks: Acks::One, enable_idempotence: false, rate: 0.0, ..Default::default() };
    spec.producers = vec![ProducerSpec { topic: "t".into(), config }];
    Sim::new(spec).expect("FC-15a's cluster is valid")
}

/// Runs FC-15a's timeline up to `until` (ms).
fn run_until(sim: &mut Sim, until: Ms) {
    let timeline: [(Ms, &str); 7] = [
        (1_000, "produce t 5"),
        (5_000, "pause-fetch 2"),
        (6_000, "produce t 5"),
        (7_000, "crash 1"),
        (7_000, "resume-fetch 2"),
        (20_000, "produce t 1"),
        (25_000, "restart 1"),
    ];
    for (at, line) in timeline.into_iter().filter(|(at, _)| *at <= until) {
        sim.advance_to(at);
        sim.apply(&Command::parse(line).expect("a valid command")).expect("accepted");
    }
    sim.advance_to(until);
}

/// The logs pane of `t-0` drawn 100 columns wide, in colour.
fn draw(snap: &Snapshot) -> Buffer {
    let model = Model::new(1.0, Theme::new(true), snap);
    let mut terminal = Terminal::new(TestBackend::new(100, 9)).expect("a test backend");
    terminal.draw(|frame| render(frame, frame.area(), &model, snap)).expect("a frame");
    terminal.backend().buffer().clone()
}

fn row(buf: &Buffer, y: u16) -> String {
    (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect()
}

/// The row whose text starts with `start`.
fn row_starting(buf: &Buffer, start: &str) -> u16 {
    (0..buf.area.height)
        .find(|&y| row(buf, y).starts_with(start))
        .unwrap_or_else(|| panic!("no row starts with {start:?}:\n{}", screen(buf)))
}

fn screen(buf: &Buffer) -> String {
    (0..buf.area.height).map(|y| row(buf, y)).collect::<Vec<_>>().join("\n")
}

/// The strip cells (glyph, modifiers) of row `y`, from the strip's first column on.
fn cells(buf: &Buffer, y: u16, from: u16) -> Vec<(String, Modifier)> {
    (from..buf.area.width).map(|x| (buf[(x, y)].symbol().to_string(), buf[(x, y)].modifier)).collect()
}

/// While broker 1 is down and fenced: broker 2 leads (its `L` in bold) and broker 1 is out of
/// the ISR (`✗`).
#[test]
fn the_leader_is_bold_and_the_fenced_replica_out_of_the_isr() {
    let mut sim = fc15a();
    run_until(&mut sim, 18_000);
    let snap = sim.snapshot();
    assert_eq!(snap.partitions[0].leader, Some(2));
    let buf = draw(&snap);
    let leader = row_starting(&buf, " 2 L ✔ ");
    assert!(buf[(3, leader)].modifier.contains(Modifier::BOLD), "the leader's L is bold");
    let out = row_starting(&buf, " 1 F ✗ ");
    assert!(!buf[(3, out)].modifier.contains(Modifier::BOLD));
    assert!(row(&buf, out).contains("down"), "{}", row(&buf, out));
}

/// Right after broker 1 restarts and truncates: the snapshot carries the truncation with
/// its five acknowledged records (the audit ledger's count), the pane shows them struck out
/// under broker 1's strip, and broker 2's strip turns glyph where leader epoch 1 starts.
#[test]
fn a_truncation_stays_struck_out_for_a_few_seconds() {
    let mut sim = fc15a();
    run_until(&mut sim, 27_000);
    let snap = sim.snapshot();
    let p = &snap.partitions[0];
    let [t] = p.truncations.as_slice() else { panic!("one truncation: {:?}", p.truncations) };
    assert_eq!(
        TruncationView { at: 0, ..*t },
        TruncationView {
            replica: 1,
            from: 5,
            count: 5,
            acknowledged: 5,
            acknowledged_span: Some((5, 9)),
            at: 0
        },
        "m5-m9 went, all five acknowledged"
    );
    let buf = draw(&snap);
    let broker_1 = row_starting(&buf, " 1 F ");
    let gone = broker_1 + 1;
    let text = row(&buf, gone);
    assert!(text.starts_with(" ↳ truncated: 5 records (5 acknowledged) "), "{}", screen(&buf));
    assert!(text.trim_end().ends_with("✘ from offset 5"), "{}", screen(&buf));
    // All five were acknowledged: `✘`, struck out and bold (the loss alarm), in red.
    let struck: Vec<_> = (0..buf.area.width).map(|x| &buf[(x, gone)]).filter(|c| c.symbol() == "✘").collect();
    assert!(!struck.is_empty());
    assert!(!text.contains('╳'), "no unacknowledged record went: {text}");
    assert!(
        struck
            .iter()
            .all(|c| c.modifier.contains(Modifier::CROSSED_OUT | Modifier::BOLD) && c.fg == Color::Red),
        "struck out in the alarm's style: {struck:?}"
    );

    let leader = row_starting(&buf, " 2 L ✔ ");
    let strip: Vec<String> = cells(&buf, leader, 7).into_iter().map(|(g, _)| g).collect();
    let epoch_0 = strip.iter().position(|g| g == "█").expect("epoch 0's records");
    let epoch_1 = strip.iter().position(|g| g == "▓").expect("epoch 1's records, in another glyph");
    assert!(epoch_0 < epoch_1, "epoch 1 comes after epoch 0: {strip:?}");
    assert!(strip[epoch_1 - 1] == "█", "the glyph turns right at the boundary: {strip:?}");

    // Five sim seconds later the struck-out records are gone from the snapshot and the pane.
    sim.advance_to(27_000 + crate::cluster::snapshot::TRUNCATION_SHOWN_MS);
    let later = sim.snapshot();
    assert!(later.partitions[0].truncations.is_empty());
    assert!(!screen(&draw(&later)).contains("truncated:"));
}

/// The logs pane of `t-0` drawn `w`×`h`.
fn draw_sized(snap: &Snapshot, w: u16, h: u16) -> Buffer {
    let model = Model::new(1.0, Theme::new(true), snap);
    let mut terminal = Terminal::new(TestBackend::new(w, h)).expect("a test backend");
    terminal.draw(|frame| render(frame, frame.area(), &model, snap)).expect("a frame");
    terminal.backend().buffer().clone()
}

/// After the clean election the pane ties the loss to its cause: acks=1, the leader that
/// acknowledged, the election that made broker 2 leader without the records; in full when
/// there is room, in the brief form when there is not.
#[test]
fn the_loss_note_says_why_the_records_were_lost() {
    let mut sim = fc15a();
    run_until(&mut sim, 18_000);
    let snap = sim.snapshot();
    let text = |buf: &Buffer| {
        let rows: Vec<String> = (0..buf.area.height).map(|y| row(buf, y).trim().to_string()).collect();
        let from = rows.iter().position(|r| r.starts_with("⚠")).unwrap_or_else(|| panic!("{rows:?}"));
        rows[from..]
            .iter()
            .take_while(|r| !r.starts_with("committed by"))
            .cloned()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let roomy = draw_sized(&snap, 100, 12);
    assert_eq!(
        text(&roomy),
        "⚠ 5 acked records lost: leader 1 acknowledged them under acks=1 as soon as it had written them \
         (leader epoch 0), before broker 2 copied them; leader 1 was fenced and broker 2, whose log lacks \
         them, won a clean election (leader epoch 1), so broker 1 truncates them when it follows"
    );
    let small = draw_sized(&snap, 80, 6);
    assert_eq!(
        text(&small),
        "⚠ 5 acked lost: acks=1, not yet on broker 2; it won a clean election",
        "{}",
        screen(&small)
    );
}

/// Cell styles of the strips' other states on the real run: the leader's id bold; a replica
/// out of the ISR `✗` in grey; a down replica's note in red; a frozen HW (broker 2 stalled
/// in the ISR) the leader's records above it in the uncommitted yellow `▒` and the state in
/// the title.
#[test]
fn leader_out_of_isr_down_and_frozen_hw_cells_have_their_styles() {
    let mut sim = fc15a();
    run_until(&mut sim, 6_900);
    let snap = sim.snapshot();
    let buf = draw(&snap);
    assert!(row(&buf, 0).contains("HW frozen"), "{}", screen(&buf));
    let leader = row_starting(&buf, " 1 L ✔ ");
    assert!(buf[(1, leader)].modifier.contains(Modifier::BOLD), "the leader's id is bold");
    let above: Vec<_> =
        (7..buf.area.width).map(|x| &buf[(x, leader)]).filter(|c| c.symbol() == "▒").collect();
    assert!(!above.is_empty(), "records above the frozen HW: {}", screen(&buf));
    assert!(above.iter().all(|c| c.fg == Color::Yellow), "{above:?}");
    let committed = &buf[(7, leader)];
    assert_eq!((committed.symbol(), committed.fg), ("█", Color::Green), "committed records are green");

    let mut sim = fc15a();
    run_until(&mut sim, 18_000);
    let snap = sim.snapshot();
    let buf = draw(&snap);
    let out = row_starting(&buf, " 1 F ✗ ");
    assert_eq!(buf[(5, out)].fg, Color::DarkGray, "out of the ISR: a grey ✗");
    let text = row(&buf, out);
    let down = text.find("down").map(|i| text[..i].chars().count() as u16).expect("a down note");
    assert_eq!(buf[(down, out)].fg, Color::Red, "a down replica's note is red: {text}");
}

/// A truncation that removed acknowledged and unacknowledged records draws the acknowledged
/// span `✘` (alarm: bold, red) and the rest `╳` (red), all struck out.
#[test]
fn acknowledged_truncated_cells_stand_apart_from_the_others() {
    let mut sim = fc15a();
    run_until(&mut sim, 18_000);
    let mut snap = sim.snapshot();
    let p = std::sync::Arc::make_mut(&mut snap.partitions[0]);
    let now = snap.now;
    p.truncations = vec![TruncationView {
        replica: 1,
        from: 0,
        count: 5,
        acknowledged: 2,
        acknowledged_span: Some((3, 4)),
        at: now,
    }];
    let buf = draw(&snap);
    let gone = row_starting(&buf, " 1 F ") + 1;
    let cells: Vec<_> = (0..buf.area.width).map(|x| &buf[(x, gone)]).collect();
    let acked: Vec<_> = cells.iter().filter(|c| c.symbol() == "✘").collect();
    let other: Vec<_> = cells.iter().filter(|c| c.symbol() == "╳").collect();
    assert!(!acked.is_empty() && !other.is_empty(), "{}", screen(&buf));
    assert!(acked.iter().all(|c| c.modifier.contains(Modifier::CROSSED_OUT | Modifier::BOLD)));
    assert!(
        other
            .iter()
            .all(|c| c.modifier.contains(Modifier::CROSSED_OUT) && !c.modifier.contains(Modifier::BOLD))
    );
    let first_acked = cells.iter().position(|c| c.symbol() == "✘").unwrap();
    let last_other = cells.iter().rposition(|c| c.symbol() == "╳").unwrap();
    assert!(last_other < first_acked, "offsets 0-2 before 3-4: {}", row(&buf, gone));
    assert!(screen(&buf).contains("(✘ acked, lost)"), "the legend names it");
}
