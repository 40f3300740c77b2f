//! How fast the dashboard answers a key with 50 brokers and 5 000 partitions
//! ("Measured": the UI answers keys within one frame at 1×). Each case times what the event
//! loop does for one input, at 200×50: the model update (`update`, as `handle_input` calls it;
//! these keys send nothing to the sim) and then the frame it draws at the next tick (`view`
//! plus ratatui's diff into a `TestBackend`). The loop draws at most once per [`FRAME`]
//! (33 ms), so a key is answered within one frame when this cost, added to a snapshot's in the
//! same tick, stays well under it.
//!
//! - `j/k`: the selection down, then up (the partition table and the selected partition's
//!   detail move).
//! - `U`: the unhealthy-only filter on, then off (the table's rows are filtered again).
//! - `Tab`: the next view (round all six).
//! - `/ typing`: a character typed into the event search prompt, then Backspace.
//! - `/ Enter`: the search for `leader` runs over the event log (the typing is set up outside
//!   the timing).
//! - `snapshot`: a new snapshot arriving (`Msg::Snapshot`: the table's rows are filtered
//!   again) and its frame, the other of two snapshots one frame apart each time.
//!
//! The large cluster has broker 17 crashed 12 s before, so `U` has 300 rows to keep and the
//! event log has the elections to search.
//! `cargo bench --bench keys` (`ISRLAB_BENCH_CLOCK=cpu` for thread CPU time).

mod common;

use common::{Clock, setup, two_frames};

use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group, criterion_main};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use isrlab::cluster::snapshot::Snapshot;
use isrlab::ui::app::{Model, Msg, update};
use isrlab::ui::{FRAME, view};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::hint::black_box;

const SIZE: (u16, u16) = (200, 50);

fn key(code: KeyCode) -> Msg {
    let shift = if matches!(code, KeyCode::Char(c) if c.is_uppercase()) {
        KeyModifiers::SHIFT
    } else {
        KeyModifiers::NONE
    };
    Msg::Key(KeyEvent::new(code, shift))
}

/// One input and the frame drawn after it.
fn answer(model: &mut Model, terminal: &mut Terminal<TestBackend>, msg: Msg, snap: &Snapshot) -> u16 {
    update(model, msg, snap);
    terminal.draw(|f| view::view(model, snap, f)).expect("a frame draws").area.width
}

fn keys(c: &mut Criterion<Clock>) {
    let (first, second) = two_frames(common::large_with_a_crash());
    let (w, h) = SIZE;
    let mut group = c.benchmark_group(format!("keys 50 brokers, 5000 partitions, {w}x{h}"));
    // Each case alternates two inputs so that the state stays bounded.
    let pairs: [(&str, [KeyCode; 2]); 4] = [
        ("j/k", [KeyCode::Char('j'), KeyCode::Char('k')]),
        ("U", [KeyCode::Char('U'), KeyCode::Char('U')]),
        ("Tab", [KeyCode::Tab, KeyCode::Tab]),
        ("/ typing", [KeyCode::Char('e'), KeyCode::Backspace]),
    ];
    for (name, [a, b]) in pairs {
        group.bench_function(BenchmarkId::from_parameter(name), |bench| {
            let (mut model, mut terminal) = setup(w, h, &first);
            if name == "/ typing" {
                update(&mut model, key(KeyCode::Char('/')), &first);
            }
            let mut flip = false;
            bench.iter(|| {
                flip = !flip;
                let code = if flip { a } else { b };
                black_box(answer(&mut model, &mut terminal, key(code), &first))
            })
        });
    }
    group.bench_function(BenchmarkId::from_parameter("/ Enter"), |bench| {
        let (mut typed, mut terminal) = setup(w, h, &first);
        for c in "/leader".chars() {
            update(&mut typed, key(KeyCode::Char(c)), &first);
        }
        bench.iter_batched_ref(
            || typed.clone(),
            |model| black_box(answer(model, &mut terminal, key(KeyCode::Enter), &first)),
            BatchSize::SmallInput,
        )
    });
    group.bench_function(BenchmarkId::from_parameter("snapshot"), |bench| {
        let (mut model, mut terminal) = setup(w, h, &first);
        let mut flip = false;
        bench.iter(|| {
            flip = !flip;
            let snap = if flip { &second } else { &first };
            black_box(answer(&mut model, &mut terminal, Msg::Snapshot, snap))
        })
    });
    group.finish();
    println!("frame interval (FRAME, the pacer's tick): {} ms", FRAME.as_millis());
}

criterion_group! {
    name = benches;
    config = common::criterion();
    targets = keys
}
criterion_main!(benches);
