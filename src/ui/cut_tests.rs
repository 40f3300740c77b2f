//! Text cut for width always ends with `…`: every view at every size, drawn from a fixture
//! whose names and numbers are too long for the panes, shows each long name either whole or
//! cut with `…`, never cut off by a pane's edge.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::sync::Arc;

use super::app::{Model, Msg, View, update};
use super::theme::Theme;
use super::{fixture, view};
use crate::cluster::snapshot::Snapshot;
use crate::sim::TopicPartition;

/// A topic name too long for most panes.
const LONG: &str = "orders.eu-west-1.payments.settled.archive.v2";

/// The fixture with its topic renamed to [`LONG`], big counters and a long error.
fn stressed() -> Snapshot {
    let mut snap = fixture::snapshot();
    snap.topics[0].name = LONG.into();
    for p in &mut snap.partitions {
        let mut v = (**p).clone();
        v.tp = TopicPartition::new(LONG, v.tp.partition);
        v.hw += 9_000_000_000;
        for r in &mut v.replica_views {
            r.leo += 9_000_000_000;
        }
        *p = Arc::new(v);
    }
    let p = &mut snap.producers[0];
    p.topic = LONG.into();
    (p.sent, p.acked, p.failed, p.pending) = (123_456_789_012, 123_456_789_000, 12, 0);
    p.last_error =
        Some((83_100, format!("NOT_ENOUGH_REPLICAS on {LONG}-4: {}", "the ISR is too small ".repeat(8))));
    snap.seed = u64::MAX;
    snap
}

/// Each occurrence of [`LONG`]'s start in `row`: whole, or cut right before a `…`.
fn cuts_without_ellipsis(row: &str) -> Vec<String> {
    let head: String = LONG.chars().take(8).collect();
    let mut bad = Vec::new();
    let chars: Vec<char> = row.chars().collect();
    for start in 0..chars.len() {
        let rest: String = chars[start..].iter().collect();
        if !rest.starts_with(&head) {
            continue;
        }
        let same = rest.chars().zip(LONG.chars()).take_while(|(a, b)| a == b).count();
        if same == LONG.chars().count() {
            continue;
        }
        if rest.chars().nth(same) != Some('…') {
            bad.push(rest.chars().take(same + 3).collect());
        }
    }
    bad
}

#[test]
fn no_view_at_any_size_cuts_a_name_without_an_ellipsis() {
    let snap = stressed();
    for (w, h) in [(80, 24), (100, 30), (120, 40), (160, 50), (200, 60)] {
        for v in View::ALL {
            for selected in [0, 4] {
                let mut m = Model::new(1.0, Theme::new(false), &snap);
                m.events_important = false;
                update(&mut m, Msg::Resize(w, h), &snap);
                for _ in 0..selected {
                    update(&mut m, Msg::Key(KeyEvent::new(KeyCode::Down, KeyModifiers::NONE)), &snap);
                }
                m.view = v;
                let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
                terminal.draw(|f| view::view(&m, &snap, f)).unwrap();
                let buf = terminal.backend().buffer();
                for y in 0..h {
                    let row: String = (0..w).map(|x| buf[(x, y)].symbol().to_string()).collect();
                    let bad = cuts_without_ellipsis(&row);
                    assert!(bad.is_empty(), "{v:?} {w}x{h}, row {y}: {bad:?}\n{row}");
                }
            }
        }
    }
}
