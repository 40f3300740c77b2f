//! Render cost of one dashboard frame: `view` plus ratatui's diff, drawn into a `TestBackend`
//! at the smallest supported terminal (80×24) and a large one (200×50).
//!
//! - `fixture`: the hand-made snapshot of `isrlab::ui::fixture` drawn again and again; the
//!   screen does not change, so this is the cost of building the frame and diffing it.
//! - `sim`: the default cluster 60 s into a run; each iteration draws the other of two
//!   snapshots one frame (33 ms of sim time) apart, so every draw also writes the cells that
//!   changed, as the live dashboard does at 1×.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use isrlab::cluster::handle::Sim;
use isrlab::cluster::snapshot::Snapshot;
use isrlab::cluster::spec::ClusterSpec;
use isrlab::ui::app::{Model, Msg, update};
use isrlab::ui::theme::Theme;
use isrlab::ui::{FRAME, fixture, view};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::hint::black_box;

const SIZES: [(u16, u16); 2] = [(80, 24), (200, 50)];

/// A colour model sized `w`×`h` and a terminal of that size with one frame already drawn.
fn setup(w: u16, h: u16, snap: &Snapshot) -> (Model, Terminal<TestBackend>) {
    let mut model = Model::new(1.0, Theme::new(true), snap);
    update(&mut model, Msg::Resize(w, h), snap);
    let mut terminal = Terminal::new(TestBackend::new(w, h)).expect("a test terminal");
    terminal.draw(|f| view::view(&model, snap, f)).expect("the first frame draws");
    (model, terminal)
}

fn fixture_frames(c: &mut Criterion) {
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

fn sim_frames(c: &mut Criterion) {
    let mut sim = Sim::new(ClusterSpec::default_run(1)).expect("the default cluster starts");
    sim.advance_to(60_000);
    let first = sim.snapshot();
    sim.advance_to(60_000 + FRAME.as_millis() as u64);
    let second = sim.snapshot();
    let mut group = c.benchmark_group("render sim at 60 s");
    for (w, h) in SIZES {
        let (model, mut terminal) = setup(w, h, &first);
        let mut flip = false;
        group.bench_function(BenchmarkId::from_parameter(format!("{w}x{h}")), |b| {
            b.iter(|| {
                flip = !flip;
                let snap = if flip { &second } else { &first };
                let frame = terminal.draw(|f| view::view(&model, snap, f)).expect("a frame draws");
                black_box(frame.area)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, fixture_frames, sim_frames);
criterion_main!(benches);
