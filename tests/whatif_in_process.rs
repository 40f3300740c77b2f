//! What-if side by side in the whole dashboard, in process against the real simulation with
//! its tape ([`ScheduledSim`], the dashboard's sim-thread code in the caller's thread): the
//! tour's loss story on `--seed 42 --topic lab:1:3` with `acks=1`, forked with `acks=all`;
//! the same faults (the followers stall, the leader crashes) then reach both runs at the same
//! instants, and the screen shows the run losing acknowledged records beside the what-if
//! losing none, at 80×24 (a line of what differs, `v` switching the run shown) and at 120×40
//! (two columns). `V` keeps the run shown: the what-if goes on as a branch, and the
//! recording holds its `acks=all` at the fork's instant.

mod support;

use crossterm::event::KeyCode;
use isrlab::cluster::snapshot::Snapshot;
use isrlab::cluster::spec::ClusterSpec;
use isrlab::config::TopicConfig;
use isrlab::sim::spec::{Placement, TopicSpec};
use support::app::{App, screen_text};

/// `isrlab --seed 42 --topic lab:1:3`: one partition, led by broker 1, followers 2 and 0.
fn lab() -> ClusterSpec {
    let mut spec = ClusterSpec::default_run(42);
    spec.topics = vec![TopicSpec {
        name: "lab".into(),
        partitions: 1,
        replication_factor: 3,
        placement: Placement::Kafka,
        config: TopicConfig::default(),
    }];
    for p in &mut spec.producers {
        p.topic = "lab".into();
    }
    spec
}

fn whatif(app: &App) -> &Snapshot {
    &app.snap.whatif.as_ref().expect("a what-if is on").snapshot
}

fn story(cols: u16, rows: u16) {
    let mut app = App::start(lab(), cols, rows);
    app.press("aa");
    app.run_for(2_000);
    assert!(app.status().contains("acks=1"), "{}", app.status());

    // `v` opens the palette on `whatif `; the setting completes it.
    app.press("v");
    app.press("producer acks=all");
    app.key(KeyCode::Enter);
    assert!(app.status().contains("what if acks=all"), "{}", app.status());
    let since = app.snap.now_us;
    assert_eq!(whatif(&app).now_us, since);

    // The followers catch up, then stall; the leader crashes: in both runs, at the same instants.
    app.run_for(500);
    app.press("2p0p");
    app.run_for(1_500);
    app.press("1x");
    app.run_for(25_000);
    assert_eq!(whatif(&app).now_us, app.snap.now_us, "time advances both runs together");
    let lost = app.snap.acked_lost;
    assert!(lost > 0, "acks=1 loses acknowledged records: {}", app.status());
    assert_eq!(whatif(&app).acked_lost, 0, "acks=all loses none under the same faults");
    assert_ne!(whatif(&app).partitions[0].leader, Some(1), "the crash reached the what-if run too");

    // Both on screen: the line of what differs, and from 120 columns the two runs.
    let screen = app.screen();
    let text = screen_text(&screen);
    assert!(screen.contains("◆ what if acks=all · showing the run"), "{text}");
    assert!(screen.contains(&format!("acked lost {lost}|0")), "{text}");
    assert!(screen.contains(&format!("acked lost: {lost}")), "the header is the run's:\n{text}");
    if cols >= 120 {
        assert!(screen.contains(" the run ◂ shown"), "{text}");
        assert!(screen.contains("what if acks=all (from 00:00:02.0)"), "{text}");
        assert!(screen.contains(&format!("acked lost {lost} ")), "{text}");
        assert!(screen.contains("acked lost 0 "), "{text}");
    }

    // `v`: the dashboard shows the what-if run.
    app.press("v");
    let screen = app.screen();
    let text = screen_text(&screen);
    assert!(screen.contains("showing the what-if"), "{text}");
    assert!(screen.contains("acked lost: 0"), "the header is the what-if's:\n{text}");

    // `V`: go on with the what-if as a branch; the run stays branch 1.
    let whatif_hash = isrlab::cluster::counts::counts(whatif(&app));
    app.press("V");
    assert!(app.snap.whatif.is_none());
    assert_eq!(isrlab::cluster::counts::counts(&app.snap), whatif_hash);
    assert!(app.status().contains("going on with what if acks=all, as branch 2"), "{}", app.status());
    let text = app.model.recording.as_ref().expect("recorded").render(app.snap.now_us);
    assert!(text.contains("time = \"2.000000s\"\ndo = \"set producer acks=all\""), "{text}");
    app.run_for(1_000);
    assert_eq!(app.snap.acked_lost, 0);
    app.palette("branch 1");
    assert_eq!(app.snap.acked_lost, lost, "branch 1 is the run with its loss");
}

#[test]
fn whatif_acks_all_beside_acks_1_at_80x24() {
    story(80, 24);
}

#[test]
fn whatif_acks_all_beside_acks_1_at_120x40() {
    story(120, 40);
}
