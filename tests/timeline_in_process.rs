//! The timeline in the whole dashboard, in process against the real simulation with its
//! tape (the dashboard's sim-thread code run in the caller's thread, [`ScheduledSim`]): lose
//! acknowledged records with acks=1, go back to before the faults, act there with acks=all
//! (a new branch), see no loss, and switch back to branch 1 to see the loss again; at 80×24
//! and 120×40. Keys go through the event loop's input path; sim time moves only when the
//! test says so, so the run is exact.

mod support;

use isrlab::cluster::spec::ClusterSpec;
use isrlab::sim::SimTime;
use support::app::{App, screen_text};

/// The faults: the followers of broker 2 stop fetching, then broker 2 (a leader) crashes,
/// and the new leaders lack what it acknowledged alone (with acks=1).
fn faults(app: &mut App) {
    app.press("0p1p");
    app.run_for(1_500);
    app.press("2x");
    app.run_for(25_000);
}

fn story(cols: u16, rows: u16) {
    let mut app = App::start(ClusterSpec::default_run(42), cols, rows);
    app.palette("set producer acks=1");
    app.run_for(2_000);
    faults(&mut app);
    let lost = app.snap.acked_lost;
    assert!(lost > 0, "acks=1 loses acknowledged records: {}", app.status());
    let at_loss = app.snap.now_us;

    // The tape: shown with `t`, its cursor moves over the ticks, each said in words.
    app.press("t");
    let screen = app.screen();
    assert!(screen.contains("b1/1"), "the tape names the branch:\n{}", screen_text(&screen));
    // The mouse scrubs: a click near the band's left end, then a drag to its middle.
    let row = (0..screen.lines.len()).find(|r| screen.line(*r).contains("b1/1")).expect("the strip");
    let band = screen.line(row).find('|').expect("the band") as u16 + 1;
    let width = app.model.screen.0;
    app.click(band + 1, row as u16, false);
    let early = app.model.tape.cursor.expect("a click moves the cursor");
    assert!(app.status().starts_with("tape at "), "{}", app.status());
    app.click(width / 2, row as u16, true);
    let middle = app.model.tape.cursor.expect("a drag moves the cursor");
    assert!(early < middle && middle < at_loss, "{early} {middle} {at_loss}");
    app.press("(((");
    assert!(app.status().starts_with("tape at "), "{}", app.status());
    let cursor = app.model.tape.cursor.expect("the cursor moved");
    assert!(cursor < at_loss);
    app.press("T");
    assert_eq!(app.snap.now_us, cursor, "T goes to the cursor");
    assert!(app.model.paused, "going back pauses");

    // Back to before the faults: no loss there yet; with acks=all the same faults lose nothing.
    app.palette("rewind 2s");
    assert_eq!(app.snap.now_us, SimTime::from_ms(2_000), "{}", app.status());
    assert_eq!(app.snap.acked_lost, 0, "before the crash nothing is lost");
    assert!(app.status().starts_with("✔ at 00:00:02.0 (paused)"), "{}", app.status());
    app.palette("set producer acks=all");
    assert!(app.status().contains("branch 2 starts here"), "{}", app.status());
    app.model.paused = false;
    faults(&mut app);
    assert_eq!(app.snap.acked_lost, 0, "acks=all loses nothing under the same faults");
    let screen = app.screen();
    assert!(screen.contains("b2/2"), "the tape is on branch 2:\n{}", screen_text(&screen));

    // The recording holds branch 2 (its acks=all) and names branch 1 in comments.
    let text = app.model.recording.as_ref().expect("recorded").render(app.snap.now_us);
    let steps: Vec<&str> = text.lines().filter(|l| l.starts_with("do = ")).collect();
    assert_eq!(steps.first(), Some(&"do = \"set producer acks=1\""), "{text}");
    assert!(steps.contains(&"do = \"set producer acks=all\""), "{text}");
    assert!(text.contains("# branch 1, the run as it started, up to "), "{text}");

    app.palette("branches");
    assert!(app.status().contains("2 (here): from 1 at 00:00:02.0"), "{}", app.status());

    // Branch 1 again: where it had reached, the loss as it was.
    app.palette("branch 1");
    assert_eq!(app.snap.now_us, at_loss, "{}", app.status());
    assert_eq!(app.snap.acked_lost, lost, "branch 1's loss again");
    let screen = app.screen();
    assert!(screen.contains("b1/2"), "{}", screen_text(&screen));
    app.palette("branch 3");
    assert!(app.status().contains("there is no branch 3"), "{}", app.status());
}

#[test]
fn lose_with_acks_1_go_back_fork_with_acks_all_and_switch_back_at_80x24() {
    story(80, 24);
}

#[test]
fn lose_with_acks_1_go_back_fork_with_acks_all_and_switch_back_at_120x40() {
    story(120, 40);
}
