//! The header line: `isrlab [view]  seed 42  t=00:01:23.4  ▶ 1×  <semantics>   acked lost: N`.
//! The partition counts (under-replicated, under min ISR, offline) and the loss counter are
//! right-aligned and always shown; the semantics text gives way first, and never shows
//! where the seed (how a run is replayed) has no room.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::app::Model;
use super::text;
use super::theme::{Theme, glyph};
use crate::cluster::snapshot::Snapshot;
use crate::sim::{format_stamp, format_time};

/// Draws the header.
pub fn render(frame: &mut Frame, area: Rect, model: &Model, snap: &Snapshot) {
    let theme = model.theme;
    let (mut left, right, seed_shown) = essentials(model, snap, usize::from(area.width));
    let right_w = right.width() as u16;
    let [left_area, right_area] =
        Layout::horizontal([Constraint::Fill(1), Constraint::Length(right_w + 1)]).areas(area);
    let room = |left: &[Span]| {
        let used: usize = left.iter().map(Span::width).sum();
        usize::from(left_area.width).saturating_sub(used + 3)
    };
    if let Some(scenario) = &snap.scenario {
        let spans = scenario_name(&scenario.name, room(&left), theme);
        left.extend(spans);
    }
    // The seed matters more than the semantics: no semantics where the seed gave way.
    if let Some(semantics) = semantics_in(&snap.semantics.to_string(), room(&left)).filter(|_| seed_shown) {
        left.push(Span::raw("  "));
        left.push(Span::styled(semantics, theme.muted()));
    }
    frame.render_widget(Paragraph::new(text::fit(Line::from(left), usize::from(left_area.width))), left_area);
    let right = text::fit(right, usize::from(right_area.width));
    frame.render_widget(Paragraph::new(right).right_aligned(), right_area);
}

/// Which view is shown, `[brokers]`: always in the other views; in the overview from
/// [`super::view::WIDE`] columns on (at 80 columns the plain screen is the overview, and its
/// room goes to the scenario name and the counts).
fn view_tag(model: &Model, width: u16) -> Span<'static> {
    use super::app::View;
    if model.view == View::Overview && width < super::view::WIDE {
        return Span::raw("");
    }
    Span::styled(format!(" [{}]", model.view.name()), model.theme.title())
}

/// The sim time as the header shows it: tenths of a second, or milliseconds below 1×, where
/// tenths would stand still for seconds (at 0.01× a tenth takes ten wall seconds).
fn sim_time(model: &Model, snap: &Snapshot) -> String {
    if model.speed < 1.0 { format_stamp(snap.now_us, false) } else { format_time(snap.now) }
}

/// The semantics (`KRaft · Kafka 4.1 · ELR off`) in `room` columns: whole, or its leading
/// parts up to a ` · `, never a cut word such as `Ka…`; nothing when not even the first part
/// fits.
fn semantics_in(full: &str, room: usize) -> Option<String> {
    let parts: Vec<&str> = full.split(" · ").collect();
    (1..=parts.len()).rev().map(|n| parts[..n].join(" · ")).find(|s| text::width(s) <= room)
}

/// Text shorter than this is not worth showing in the header.
const MIN_ROOM: usize = 8;

/// `  scenario <name>` in `room` columns: the label goes first, then the name is cut with `…`.
fn scenario_name(name: &str, room: usize, theme: Theme) -> Vec<Span<'static>> {
    const LABEL: &str = "  scenario ";
    let labelled = room.saturating_sub(LABEL.len());
    if labelled >= MIN_ROOM.max(text::width(name).min(24)) {
        vec![Span::styled(LABEL, theme.muted()), Span::styled(text::truncate(name, labelled), theme.title())]
    } else if room >= MIN_ROOM + 2 {
        vec![Span::raw("  "), Span::styled(text::truncate(name, room - 2), theme.title())]
    } else {
        Vec::new()
    }
}

/// Running, paused or ended; `terse` leaves out the word "actual" before the speed sim time
/// really runs at.
fn clock(model: &Model, snap: &Snapshot, terse: bool) -> Span<'static> {
    let theme = model.theme;
    if model.scenario_over(snap) {
        Span::styled(format!("{} end of scenario", glyph::ENDED), theme.warn())
    } else if model.paused {
        Span::styled(format!("{} paused", glyph::PAUSED), theme.warn())
    } else if let Some(actual) = model.actual_speed {
        let actual_word = if terse { "" } else { "actual " };
        let text = format!("{} {} ({actual_word}{actual}×)", glyph::RUNNING, text::speed(model.speed));
        Span::styled(text, theme.warn())
    } else {
        Span::styled(format!("{} {}", glyph::RUNNING, text::speed(model.speed)), theme.good())
    }
}

/// The left part (name, seed, sim time, clock) and the right-aligned part (partition counts,
/// loss counters) in the richest forms that fit `width` columns. The time, the clock and the
/// loss counters always show; the rest gives way in this order: the zero counts, the loss
/// counters' long labels where that keeps the seed, the seed (printed again on exit) where
/// that keeps the other counts, the other counts (the seed comes back when they are gone),
/// the word "actual" before the speed sim time really runs at, then the name; a playing
/// scenario keeps at least [`MIN_ROOM`] columns of its name. The third value says whether
/// the seed is in the left part.
fn essentials(model: &Model, snap: &Snapshot, width: usize) -> (Vec<Span<'static>>, Line<'static>, bool) {
    let theme = model.theme;
    let left = |seed: bool, terse: u8| {
        let mut spans = Vec::new();
        if terse < 2 {
            spans.push(Span::styled(" isrlab", theme.brand()));
        }
        spans.push(view_tag(model, u16::try_from(width).unwrap_or(u16::MAX)));
        if seed {
            spans.push(Span::styled("  seed ", theme.muted()));
            spans.push(Span::raw(snap.seed.to_string()));
        }
        spans.push(Span::styled("  t=", theme.muted()));
        spans.push(Span::styled(sim_time(model, snap), theme.title()));
        spans.push(Span::raw("  "));
        spans.push(clock(model, snap, terse > 0));
        spans
    };
    // What `scenario_name` needs for MIN_ROOM columns of the name: its two spaces and the
    // three columns `room` keeps free.
    let keep = if snap.scenario.is_some() { MIN_ROOM + 5 } else { 0 };
    // (seed, counts with or without the zeros, short loss labels, terse: 1 without "actual",
    // 2 without the name too)
    let tries = [
        (true, Some(true), false, 0),
        (true, Some(false), false, 0),
        (true, Some(false), true, 0),
        (false, Some(false), false, 0),
        (true, None, false, 0),
        (false, None, false, 0),
        (false, None, true, 0),
        (false, None, true, 1),
        (false, None, true, 2),
    ];
    let mut chosen = (Vec::new(), Line::default(), false);
    for (seed, zeros, short, terse) in tries {
        let left = left(seed, terse);
        let counts = zeros.map_or_else(Vec::new, |zeros| counts(theme, snap, zeros));
        let right = Line::from(counts.into_iter().chain(loss(theme, snap, short).spans).collect::<Vec<_>>());
        let used: usize = left.iter().map(Span::width).sum();
        let fits = used + keep + 1 + right.width() <= width;
        chosen = (left, right, seed);
        if fits {
            break;
        }
    }
    chosen
}

/// `URP n <minISR n offline n  ` (Kafka's `UnderReplicatedPartitions`,
/// `UnderMinIsrPartitionCount`, `OfflinePartitionsCount`); without `zeros`, only the counts
/// above zero (nothing when all are zero).
fn counts(theme: Theme, snap: &Snapshot, zeros: bool) -> Vec<Span<'static>> {
    let c = snap.health_counts();
    let all = [
        ("URP", c.under_replicated, theme.warn()),
        ("<minISR", c.under_min_isr, theme.bad()),
        ("offline", c.offline, theme.alarm()),
    ];
    let mut spans: Vec<Span<'static>> = all
        .into_iter()
        .filter(|(_, n, _)| zeros || *n > 0)
        .map(|(label, n, bad)| Span::styled(format!("{label} {n} "), if n > 0 { bad } else { theme.muted() }))
        .collect();
    if !spans.is_empty() {
        spans.push(Span::raw(" "));
    }
    spans
}

/// Duplicates, seen-erased records, `acks=0` records lost (`no-ack lost`) and acked-lost
/// records (the last always shown; it counts only acknowledged records); `short` takes
/// shorter labels (`dup: 3`, `⚠ erased: 17`, `no-ack: 5`) and spacing.
fn loss(theme: Theme, snap: &Snapshot, short: bool) -> Line<'static> {
    let mut spans = Vec::new();
    let gap = if short { " " } else { "  " };
    if snap.duplicates > 0 {
        let label = if short { "dup" } else { "duplicates" };
        spans.push(Span::styled(format!("{label}: {}", snap.duplicates), theme.warn()));
        spans.push(Span::raw(gap));
    }
    if snap.seen_erased > 0 {
        let label = if short { "erased" } else { "seen erased" };
        spans.push(Span::styled(format!(" ⚠ {label}: {} ", snap.seen_erased), theme.alarm()));
        spans.push(Span::raw(gap));
    }
    // Records sent with acks=0 were never acknowledged: their loss is counted apart.
    if snap.unacked_lost > 0 {
        let label = if short { "no-ack" } else { "no-ack lost" };
        spans.push(Span::styled(format!("{label}: {}", snap.unacked_lost), theme.bad()));
        spans.push(Span::raw(gap));
    }
    if snap.acked_lost > 0 {
        spans.push(Span::styled(format!(" ⚠ acked lost: {} ", snap.acked_lost), theme.alarm()));
    } else {
        spans.push(Span::styled("acked lost: 0", theme.good()));
    }
    Line::from(spans)
}

#[cfg(test)]
mod tests {
    use crate::ui::app::{Model, Msg, update};
    use crate::ui::fixture;
    use crate::ui::theme::Theme;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    fn header_line(seed: u64, loss: u64, width: u16) -> String {
        header_at(seed, loss, width, None)
    }

    fn header_at(seed: u64, loss: u64, width: u16, actual: Option<f64>) -> String {
        let mut snap = fixture::snapshot();
        snap.seed = seed;
        snap.acked_lost = loss;
        let mut model = Model::new(1.0, Theme::new(false), &snap);
        update(&mut model, Msg::Resize(width, 24), &snap);
        model.actual_speed = actual;
        let mut terminal = Terminal::new(TestBackend::new(width, 1)).unwrap();
        terminal.draw(|f| super::render(f, f.area(), &model, &snap)).unwrap();
        let buf = terminal.backend().buffer();
        (0..width).map(|x| buf[(x, 0)].symbol().to_string()).collect()
    }

    /// A random seed has up to 20 digits; at 80 columns the header still shows the time, the
    /// clock, the counts and the loss counter whole, and the seed whole or not at all (the
    /// dashboard prints it on exit).
    #[test]
    fn any_seed_fits_the_header_at_80_columns() {
        for seed in [42, 7_508_602_240_744_138_370, u64::MAX] {
            for loss in [0, 1_234_567] {
                let line = header_line(seed, loss, 80);
                assert!(line.contains("t=00:01:23.4") && line.contains("▶ 1×"), "{line}");
                assert!(line.trim_end().ends_with(&format!("acked lost: {loss}")), "{line}");
                assert!(line.contains("URP 6"), "{line}");
                let digits = seed.to_string();
                let shown = line.contains(&format!("seed {digits} "));
                assert!(shown || !line.contains("seed"), "the seed is cut: {line}");
                // the semantics never takes the seed's place.
                assert!(shown || !line.contains("KRaft"), "the semantics without the seed: {line}");
                assert_eq!(line.chars().count(), 80);
            }
        }
        assert!(header_line(42, 0, 80).contains("seed 42 "));
        assert_eq!(
            super::semantics_in("KRaft · Kafka 4.1 · ELR off", 40).as_deref(),
            Some("KRaft · Kafka 4.1 · ELR off")
        );
        assert_eq!(super::semantics_in("KRaft · Kafka 4.1 · ELR off", 12).as_deref(), Some("KRaft"));
        assert_eq!(super::semantics_in("KRaft · Kafka 4.1 · ELR off", 4), None);
        // Running behind its speed, the clock keeps its actual speed, the seed still whole or gone.
        let behind = header_at(u64::MAX, 99, 80, Some(0.5));
        assert!(behind.contains("0.5×)") && behind.trim_end().ends_with("acked lost: 99"), "{behind}");
        assert!(!behind.contains("seed") || behind.contains(&format!("seed {} ", u64::MAX)), "{behind}");
        assert!(behind.contains("seed") || !behind.contains("KRaft"), "{behind}");
    }
}
