//! Follower lag and ISR timers in words, as the partition table and the detail pane show
//! them: a positive "behind" count (records the follower still lacks, from the leader's view),
//! the countdown until the lag rule removes it from the ISR, or why it is out.

use ratatui::text::{Line, Span};

use super::text;
use super::theme::Theme;
use crate::cluster::snapshot::{PartitionView, ReplicaView};
use crate::sim::Ms;

/// A follower caught up this recently (ms) is just one fetch behind: no countdown for it,
/// or healthy clusters would flash timers on every produce.
pub const TIMER_AFTER_MS: Ms = 1000;

/// How much room a note may take.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Form {
    /// `2: down`, `1: 1 behind, out in 16s`, `0: 29 behind, out of ISR`.
    Long,
    /// `2:down`, `1:1 behind ⏱16s`, `0:29 behind out`.
    Short,
    /// Like short, but a follower with a timer or out of the ISR drops its count:
    /// `1:⏱16s`, `0:out`.
    Tiny,
}

/// A follower's lag and ISR state without its broker id; `None` for the leader and for a
/// caught-up ISR member. A replica on a broker that is down reads `down` in every form: it
/// fetches nothing, so a "behind" count (the leader's last view of its LEO) would say
/// nothing about a lag it could catch up; the LEO column shows that LEO, marked down.
pub fn follower_state(r: &ReplicaView, form: Form) -> Option<String> {
    if r.is_leader {
        return None;
    }
    if !r.online {
        return Some("down".to_string());
    }
    let long = form == Form::Long;
    let tail = if !r.in_isr {
        Some(if long { "out of ISR" } else { "out" }.to_string())
    } else {
        isr_timer(r).map(|t| if long { format!("out in {t}") } else { format!("⏱{t}") })
    };
    let lag =
        r.lag.filter(|l| *l > 0 && !(form == Form::Tiny && tail.is_some())).map(|l| format!("{l} behind"));
    match (lag, tail) {
        (Some(lag), Some(tail)) => Some(format!("{lag}{}{tail}", if long { ", " } else { " " })),
        (lag, tail) => lag.or(tail),
    }
}

/// Time left until the lag rule removes an ISR member, once it has not been caught up for
/// more than [`TIMER_AFTER_MS`] (the snapshot sets it only for ISR members that are behind).
fn isr_timer(r: &ReplicaView) -> Option<String> {
    let left = r.isr_expiry_in?;
    r.caught_up_ago.is_none_or(|ago| ago > TIMER_AFTER_MS).then(|| text::countdown(left))
}

/// [`follower_state`] after the broker id: `1: 1 behind, out in 16s` (short: `1:1 behind ⏱16s`),
/// `2: down` (short: `2:down`).
pub fn follower_note(r: &ReplicaView, form: Form) -> Option<String> {
    let state = follower_state(r, form)?;
    Some(format!("{}{}{state}", r.broker, if form == Form::Long { ": " } else { ":" }))
}

/// Every follower's note for one partition, coloured by trouble: down red, lagging ISR
/// members yellow, followers out of the ISR dimmed.
pub fn partition_notes(p: &PartitionView, theme: Theme, form: Form) -> Line<'static> {
    let mut spans = Vec::new();
    for r in &p.replica_views {
        let Some(note) = follower_note(r, form) else { continue };
        if !spans.is_empty() {
            spans.push(Span::raw(if form == Form::Long { "; " } else { " " }));
        }
        let style = if !r.online {
            theme.bad()
        } else if r.in_isr {
            theme.warn()
        } else {
            theme.muted()
        };
        spans.push(Span::styled(note, style));
    }
    Line::from(spans)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::fixture;

    fn notes(p: &PartitionView, form: Form) -> Vec<String> {
        p.replica_views.iter().filter_map(|r| follower_note(r, form)).collect()
    }

    #[test]
    fn follower_notes_say_lag_timer_and_state() {
        let snap = fixture::snapshot();
        let (p0, p4) = (&snap.partitions[0], &snap.partitions[4]);
        assert_eq!(notes(p0, Form::Long), ["1: 6 behind, out in 22s", "2: down"]);
        assert_eq!(notes(p0, Form::Short), ["1:6 behind ⏱22s", "2:down"]);
        assert_eq!(notes(p0, Form::Tiny), ["1:⏱22s", "2:down"]);
        assert_eq!(
            notes(p4, Form::Long),
            ["2: down", "0: 29 behind, out of ISR"],
            "down reads the same in every form"
        );
        assert_eq!(notes(p4, Form::Tiny), ["2:down", "0:out"]);
        assert_eq!(notes(&snap.partitions[5], Form::Tiny), ["2:down", "1:12 behind"]);
    }

    #[test]
    fn a_follower_one_fetch_behind_shows_no_countdown() {
        let snap = fixture::snapshot();
        let mut r = snap.partitions[0].replica_views[1].clone();
        r.lag = Some(1);
        r.isr_expiry_in = Some(29_600);
        r.caught_up_ago = Some(400);
        assert_eq!(follower_note(&r, Form::Long).as_deref(), Some("1: 1 behind"));
        r.caught_up_ago = Some(TIMER_AFTER_MS);
        assert_eq!(follower_note(&r, Form::Long).as_deref(), Some("1: 1 behind"));
        r.caught_up_ago = Some(14_000);
        r.isr_expiry_in = Some(16_000);
        assert_eq!(follower_note(&r, Form::Long).as_deref(), Some("1: 1 behind, out in 16s"));
        r.isr_expiry_in = None;
        assert_eq!(follower_note(&r, Form::Long).as_deref(), Some("1: 1 behind"), "no timer unless set");
        r.lag = Some(0);
        assert_eq!(follower_note(&r, Form::Long), None);
    }
}
