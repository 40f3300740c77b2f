//! Render cost of one dashboard frame: `view` plus ratatui's diff, drawn into a `TestBackend`
//! at the smallest supported terminal (80×24) and a large one (200×50).
//!
//! - `fixture`: the hand-made snapshot of `isrlab::ui::fixture` drawn again and again; the
//!   screen does not change, so this is the cost of building the frame and diffing it.
//! - `sim`: the default cluster 60 s into a run; each iteration draws the other of two
//!   snapshots one frame (33 ms of sim time) apart, so every draw also writes the cells that
//!   changed, as the live dashboard does at 1×.
//! - `charts`: the default cluster 60 s into a run at 200×60, where the overview adds the
//!   charts row (throughput, the selected partition's ISR size, HW and LEOs, the producer's
//!   records/s and latency), each chart built from the snapshot's history every frame.
//! - `large`: the same with 50 brokers and one topic of 5 000 partitions (RF 3) 30 s into a
//!   run, at 200×50 (target: ≤ 2 ms).
//! - `large, unhealthy only`: that cluster with broker 17 crashed 12 s before and fenced (300
//!   under-replicated partitions), the table filtered with `U`.
//!
//! Each draw of a new snapshot first hands it to the model (`Msg::Snapshot`), as the event
//! loop does when the sim publishes one: that is where the table's rows are filtered.

mod common;

use common::{Clock, setup, two_frames};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use isrlab::cluster::handle::Sim;
use isrlab::cluster::spec::ClusterSpec;
use isrlab::ui::app::{Msg, View, update};
use isrlab::ui::{fixture, view};
use std::hint::black_box;

const SIZES: [(u16, u16); 2] = [(80, 24), (200, 50)];

fn fixture_frames(c: &mut Criterion<Clock>) {
    let snap = fixture::snapshot();
    let mut group = c.benchmark_group("render fixture");
    for (w, h) in SIZES {
        let (model, mut terminal) = setup(w, h, &snap);
        group.bench_function(BenchmarkId::from_parameter(format!("{w}x{h}")), |b| {
            b.iter(|| {
                let frame = terminal.draw(|f| view::view(&model, &snap, f)).expect("a frame draws");
                black_box(frame.area)
            })
        });
    }
    group.finish();
}

/// Draws, again and again, the other of two snapshots one frame apart, at each of `sizes`.
/// The sim is built (by `start`) only when a benchmark of the group runs.
fn flip_frames(c: &mut Criterion<Clock>, group: &str, start: fn() -> Sim, sizes: &[(u16, u16)]) {
    flip_views(c, group, start, sizes, &[View::Overview], "");
}

/// [`flip_frames`] in each of `views` (the overview's id is the size alone), after typing
/// `keys` into the dashboard (e.g. `U` for unhealthy only).
fn flip_views(
    c: &mut Criterion<Clock>,
    group: &str,
    start: fn() -> Sim,
    sizes: &[(u16, u16)],
    views: &[View],
    keys: &str,
) {
    let snaps = std::cell::OnceCell::new();
    let mut group = c.benchmark_group(group);
    for (&(w, h), &shown) in sizes.iter().flat_map(|s| views.iter().map(move |v| (s, v))) {
        let id = match shown {
            View::Overview => format!("{w}x{h}"),
            other => format!("{w}x{h} {}", other.name()),
        };
        group.bench_function(BenchmarkId::from_parameter(id), |b| {
            let (first, second) = snaps.get_or_init(|| two_frames(start()));
            let (mut model, mut terminal) = setup(w, h, first);
            for c in keys.chars() {
                let key = KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
                update(&mut model, Msg::Key(key), first);
            }
            model.view = shown;
            let mut flip = false;
            b.iter(|| {
                flip = !flip;
                let snap = if flip { second } else { first };
                update(&mut model, Msg::Snapshot, snap);
                let frame = terminal.draw(|f| view::view(&model, snap, f)).expect("a frame draws");
                black_box(frame.area)
            })
        });
    }
    group.finish();
}

fn default_at_60_s() -> Sim {
    let mut sim = Sim::new(ClusterSpec::default_run(1)).expect("the default cluster starts");
    sim.advance_to(60_000);
    sim
}

fn sim_frames(c: &mut Criterion<Clock>) {
    flip_frames(c, "render sim at 60 s", default_at_60_s, &SIZES);
}

fn chart_frames(c: &mut Criterion<Clock>) {
    flip_frames(c, "render sim at 60 s with charts", default_at_60_s, &[(200, 60)]);
}

fn large_frames(c: &mut Criterion<Clock>) {
    let views = [View::Overview, View::Partition, View::Brokers, View::Config];
    flip_views(c, "render 50 brokers, 5000 partitions", common::large_cluster, &[(200, 50)], &views, "");
}

fn filtered_frames(c: &mut Criterion<Clock>) {
    let group = "render 50 brokers, 5000 partitions, unhealthy only";
    flip_views(c, group, common::large_with_a_crash, &[(200, 50)], &[View::Overview], "U");
}

criterion_group! {
    name = benches;
    config = common::criterion();
    targets = fixture_frames, sim_frames, chart_frames, large_frames, filtered_frames
}
criterion_main!(benches);
