//! The time keys' words: the speed steps, `.` (a step while paused) and where `n` stopped.

use super::{Effect, Model, NEXT_EVENT_WITHIN_MS, SPEED_STEPS, STEP_MS, StatusKind, next_step};
use crate::cluster::snapshot::Snapshot;
use crate::sim::{SimTime, format_stamp};
use crate::ui::lesson;

/// `<`/`>`: one speed step slower or faster, said in the status line.
pub(super) fn change_speed(model: &mut Model, up: bool) -> Vec<Effect> {
    match next_step(SPEED_STEPS, model.speed, up) {
        // Replaces a "fastest/slowest speed" note, which the step just made untrue.
        Some(v) => {
            model.speed = v;
            model.say(StatusKind::Info, format!("speed {} · < slower, > faster", crate::ui::text::speed(v)));
        }
        None => {
            let bound = if up { "fastest" } else { "slowest" };
            model.say(
                StatusKind::Info,
                format!("{} is the {bound} speed", crate::ui::text::speed(model.speed)),
            );
        }
    }
    Vec::new()
}

/// Says where the `n` key stopped: the new events' time (with µs when not on a whole ms) and
/// how many of them the Events pane's filter hides, or that none came within the look-ahead.
pub(super) fn stepped_to_event(
    model: &mut Model,
    events_before: u64,
    found: Option<SimTime>,
    snap: &Snapshot,
) {
    let exact = |t: SimTime| format_stamp(t, !t.is_whole_ms());
    let text = match found {
        Some(t) => {
            let at = exact(t);
            let new = snap.event_count.saturating_sub(events_before);
            let noun = if new == 1 { "event" } else { "events" };
            // The pane may hide them (it starts important-only): say so, and how to see them.
            let fresh = snap.recent_events.iter().rev().take(usize::try_from(new).unwrap_or(usize::MAX));
            let lens = model.events_lens();
            let hidden = fresh.filter(|e| !lens.keeps(&e.kind)).count();
            let note = match hidden {
                0 => String::new(),
                h if h as u64 == new => " (the Events pane's filter hides them; f: all)".to_string(),
                h => format!(" ({h} hidden by the Events pane's filter; f: all)"),
            };
            format!("paused at {at}: {new} new {noun}{note} · n: the next one")
        }
        // The pane says what the lesson waits for.
        None if lesson::waits(model) => return,
        None if lesson::stops_at(model, snap.now_us) => {
            format!("no event before the lesson's next instant: paused at {} (n goes on)", exact(snap.now_us))
        }
        None => format!(
            "no event within {} s: paused at {} (n looks again)",
            NEXT_EVENT_WITHIN_MS / 1000,
            exact(snap.now_us)
        ),
    };
    model.say(StatusKind::Info, text);
}

pub(super) fn step(model: &mut Model) -> Vec<Effect> {
    if model.paused {
        vec![Effect::Step(STEP_MS)]
    } else {
        model.say(StatusKind::Info, "`.` steps while paused: press space first");
        Vec::new()
    }
}
