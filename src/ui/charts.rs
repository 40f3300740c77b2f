//! Charts over sim time, drawn from the samples the sim takes every second
//! ([`crate::cluster::history`]):
//!
//! - [`render_cluster`]: records/s handed to the producers and acknowledged, cluster-wide;
//! - [`render_partition`]: the selected partition's ISR size, and its HW against each
//!   replica's LEO, over its last 60 s;
//! - [`render_producers`]: per producer, records acknowledged per second and the p50 and p99
//!   produce latency (sim ms, from `send()` to the acknowledgement).
//!
//! Every series has its own glyph, named in the pane's title, so the charts read the same
//! with `NO_COLOR`: a replica's LEO is drawn with its broker's id digit, the HW with `━`.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Borders, Chart, Dataset, GraphType, Paragraph, Sparkline};

use super::app::Model;
use super::pane_memo::{PaneMemo, Same};
use super::text;
use super::theme::Theme;
use crate::cluster::history::{History, PartitionHistory, Ring, SAMPLE_MS};
use crate::cluster::snapshot::{PartitionView, Snapshot};
use crate::sim::{BrokerId, Ms, TopicPartition};

/// Width of the y axis labels (columns), so the plots of stacked charts line up.
const Y_LABEL_W: usize = 6;
/// The fewest seconds a throughput chart spans, however narrow.
const MIN_WINDOW: usize = 30;
/// Glyph of the records handed to the producers.
const PRODUCED: char = '·';
/// Glyph of the acknowledged records.
const ACKED: char = '•';
/// Glyph of the HW.
const HW: char = '━';
/// Glyph of the p50 latency.
const P50: char = '○';
/// Glyph of the p99 latency.
const P99: char = '●';
/// Below this many rows a producer's charts are not drawn.
const PRODUCER_MIN_ROWS: u16 = 6;

/// The charts' last drawings ([`PaneMemo`]), keyed by the samples they show (a new sample
/// is a new `History`), the theme and, for the partition's chart, the selected partition and
/// its replica count.
#[derive(Clone, Debug, Default)]
pub struct Drawings {
    cluster: PaneMemo<(Same<History>, Theme)>,
    partition: PaneMemo<(Same<History>, Theme, Option<Selected>)>,
    producers: PaneMemo<(Same<History>, Theme)>,
}

/// The selected partition and its replica count, as the partition's chart shows them.
type Selected = (TopicPartition, usize);

/// One series of a chart: its points, glyph, style and name (for the title's legend).
struct Series {
    name: String,
    /// The name in a legend short of room (`None`: the name itself); the LEO series take
    /// their glyphs alone but the last (`0 1 2 LEO`), as the glyph is the broker's digit.
    short: Option<&'static str>,
    glyph: char,
    style: Style,
    points: Vec<(f64, f64)>,
}

impl Series {
    /// `glyph name` in the legend; with `short`, the short name (and one space after a bare
    /// glyph, so `0 1 2 LEO` groups).
    fn legend(&self, short: bool) -> Vec<Span<'static>> {
        let name = match (short, self.short) {
            (true, Some(s)) => s,
            _ => self.name.as_str(),
        };
        let gap = if name.is_empty() { "" } else { "  " };
        vec![Span::styled(format!("{} ", self.glyph), self.style), Span::raw(format!("{name}{gap}"))]
    }
}

/// A chart's title line: the first of `titles` (the longest first) with its series'
/// legend, in the first form that fits `width` columns: full names, then short names, then
/// the last title with short names, then as many legend entries as fit and `+N` for the
/// others; only a title that fits nowhere is cut (`…`).
fn title_line(titles: &[&str], series: &[Series], theme: Theme, width: usize) -> Line<'static> {
    let room = width.saturating_sub(1);
    let line = |title: &str, entries: &[Series], short: bool, more: usize| {
        let mut spans = vec![Span::styled(title.to_string(), theme.title())];
        spans.extend(entries.iter().flat_map(|s| s.legend(short)));
        if more > 0 {
            spans.push(Span::raw(format!("+{more} ")));
        }
        spans
    };
    // The spaces after the last entry may fall off the edge.
    let fits = |spans: &[Span]| {
        let all: String = spans.iter().map(|s| s.content.as_ref()).collect();
        text::width(all.trim_end()) <= room
    };
    let (first, last) = (titles.first().copied().unwrap_or(""), titles.last().copied().unwrap_or(""));
    for (title, short) in [(first, false), (first, true), (last, true)] {
        let spans = line(title, series, short, 0);
        if fits(&spans) {
            return Line::from(spans);
        }
    }
    for k in (0..series.len()).rev() {
        let spans = line(last, &series[..k], true, series.len() - k);
        if fits(&spans) {
            return Line::from(spans);
        }
    }
    Line::from(text::truncate_spans(line(last, &[], true, 0), room))
}

/// Draws cluster throughput: records/s produced and acknowledged over the last samples
/// (as many seconds as the plot has columns, at least 30, at most the ring's ten minutes).
pub fn render_cluster(frame: &mut Frame, area: Rect, model: &Model, snap: &Snapshot) {
    let key = (Same(snap.history.clone()), model.theme);
    model
        .charts
        .cluster
        .draw(frame, area, key, |frame| draw_cluster(frame, area, model.theme, &snap.history));
}

fn draw_cluster(frame: &mut Frame, area: Rect, theme: Theme, h: &History) {
    let n = window(&h.cluster, area.width);
    let times: Vec<f64> = h.times(n).map(seconds).collect();
    let recent = h.cluster.iter().skip(h.cluster.len() - n);
    let per_s = 1000.0 / SAMPLE_MS as f64;
    let (produced, acked): (Vec<f64>, Vec<f64>) =
        recent.map(|s| (s.produced as f64 * per_s, s.acked as f64 * per_s)).unzip();
    let series = vec![
        Series {
            name: "produced".into(),
            short: None,
            glyph: PRODUCED,
            style: theme.muted(),
            points: zip(&times, &produced),
        },
        Series {
            name: "acked".into(),
            short: None,
            glyph: ACKED,
            style: theme.good(),
            points: zip(&times, &acked),
        },
    ];
    let now =
        acked.last().map_or(String::new(), |a| format!("(now {} acked/s) ", super::brokers::number(*a)));
    // No `·` separator here: it is the produced series' glyph in the legend.
    let title = format!(" Throughput, records/s {now}");
    let titles = [title.as_str(), " Throughput, records/s "];
    draw(frame, area, theme, &titles, h, n, series, (Bounds::from_zero(), "rec/s"));
}

/// Draws the selected partition's history: its ISR size as a sparkline, then its HW and
/// each replica's LEO over its last 60 s.
pub fn render_partition(frame: &mut Frame, area: Rect, model: &Model, snap: &Snapshot) {
    let p = model.partition(snap);
    let key = (Same(snap.history.clone()), model.theme, p.map(|p| (p.tp.clone(), p.replicas.len())));
    model
        .charts
        .partition
        .draw(frame, area, key, |frame| draw_partition(frame, area, model.theme, p, &snap.history));
}

fn draw_partition(frame: &mut Frame, area: Rect, theme: Theme, p: Option<&PartitionView>, history: &History) {
    let Some(p) = p else {
        return empty(frame, area, theme, " Partition history ", "no partition");
    };
    let Some(h) = history.partition(&p.tp).filter(|h| !h.is_empty()) else {
        return empty(frame, area, theme, &format!(" {} history ", p.tp), NO_SAMPLES);
    };
    let [isr_area, chart_area] = Layout::vertical([Constraint::Length(3), Constraint::Fill(1)]).areas(area);
    render_isr(frame, isr_area, theme, p, h);
    let times: Vec<f64> = history.times(h.len()).map(seconds).collect();
    let brokers = h.leo.len();
    let mut series: Vec<Series> = h
        .leo
        .iter()
        .enumerate()
        .map(|(i, (broker, leos))| Series {
            // `b0 LEO`, not `LEO 0`: a bare digit reads as a y-axis label.
            name: format!("b{broker} LEO"),
            short: Some(if i + 1 == brokers { "LEO" } else { "" }),
            glyph: broker_glyph(*broker),
            style: theme.uncommitted(),
            points: times
                .iter()
                .zip(leos.iter())
                .filter_map(|(t, leo)| leo.map(|leo| (*t, leo as f64)))
                .collect(),
        })
        .collect();
    let hw: Vec<f64> = h.hw.iter().map(|hw| *hw as f64).collect();
    // The HW goes last, so it is drawn over the LEOs it equals.
    series.push(Series {
        name: "HW".into(),
        short: None,
        glyph: HW,
        style: theme.committed(),
        points: zip(&times, &hw),
    });
    let titles = [" HW and LEO by broker, offset ", " HW, LEO "];
    draw(frame, chart_area, theme, &titles, history, h.len(), series, (Bounds::fit(), "offset"));
}

/// The ISR size over the partition's samples, one bar per second, scaled to its replicas.
fn render_isr(frame: &mut Frame, area: Rect, theme: Theme, p: &PartitionView, h: &PartitionHistory) {
    let replicas = p.replicas.len().max(1) as u64;
    let now = h.isr.last().copied().unwrap_or(0);
    let low = h.isr.iter().copied().min().unwrap_or(0);
    let title =
        isr_title(&p.tp.to_string(), now, replicas, low, h.len() as u64 * SAMPLE_MS / 1000, area.width);
    let title = text::fit_title(Line::from(Span::styled(title, theme.title())), area.width);
    let block = Block::new().borders(Borders::TOP).title(title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [label, bars] =
        Layout::horizontal([Constraint::Length(Y_LABEL_W as u16 + 1), Constraint::Fill(1)]).areas(inner);
    let labels =
        vec![Line::raw(format!("{replicas:>Y_LABEL_W$}")), Line::raw(format!("{:>Y_LABEL_W$}", "0"))];
    frame.render_widget(Paragraph::new(labels).style(theme.muted()), label);
    let values: Vec<u64> = h.isr.iter().map(|v| u64::from(*v)).collect();
    let shown = &values[values.len().saturating_sub(usize::from(bars.width))..];
    let style = if now as u64 >= replicas { theme.good() } else { theme.warn() };
    frame.render_widget(Sparkline::default().data(shown).max(replicas).style(style), bars);
}

/// The ISR chart's title, the longest of its forms that fits `width` columns: the words
/// shorten before a number or its unit is ever cut (`lowest 2 in the last 29 s` keeps its
/// `s` when the seconds reach two digits).
fn isr_title(tp: &str, now: u16, replicas: u64, low: u16, secs: u64, width: u16) -> String {
    let forms = [
        format!(
            " {tp} · ISR size {now} of {replicas} {}, lowest {low} in the last {secs} s ",
            super::text::noun(replicas, "replica", "replicas")
        ),
        format!(" {tp} · ISR {now} of {replicas}, lowest {low} in {secs} s "),
        format!(" ISR {now} of {replicas}, lowest {low} in {secs} s "),
        format!(" ISR {now}/{replicas}, min {low}/{secs}s "),
    ];
    let last = forms[forms.len() - 1].clone();
    forms.into_iter().find(|t| text::width(t) <= usize::from(width)).unwrap_or(last)
}

/// The latency part of a producer's title. With no acks in the newest sample the last
/// known percentiles are old, and the title says so rather than quote them as current.
fn latency_words(ring: &Ring<crate::cluster::history::ProducerSample>) -> String {
    let Some(l) = ring.iter().rev().find_map(|s| s.latency) else {
        return "no record acknowledged lately".into();
    };
    let figures = format!("p50 {} ms, p99 {} ms", l.p50_ms, l.p99_ms);
    if ring.last().is_some_and(|s| s.acked == 0) {
        format!("no acks in the last second (before: {figures})")
    } else {
        format!("latency {figures}")
    }
}

/// Draws each producer's acknowledged records/s and its p50 and p99 latency, one row of two
/// charts per producer, as many producers as have [`PRODUCER_MIN_ROWS`] rows.
pub fn render_producers(frame: &mut Frame, area: Rect, model: &Model, snap: &Snapshot) {
    let key = (Same(snap.history.clone()), model.theme);
    model
        .charts
        .producers
        .draw(frame, area, key, |frame| draw_producers(frame, area, model.theme, &snap.history));
}

fn draw_producers(frame: &mut Frame, area: Rect, theme: Theme, h: &History) {
    if h.producers.is_empty() {
        return empty(frame, area, theme, " Producers ", "no producer samples yet");
    }
    let fit = usize::from(area.height / PRODUCER_MIN_ROWS).max(1);
    let shown = h.producers.len().min(fit);
    let rows = Layout::vertical(vec![Constraint::Fill(1); shown]).split(area);
    for (i, row) in rows.iter().enumerate() {
        let note = if i + 1 == shown && shown < h.producers.len() {
            format!("(+{} more) ", h.producers.len() - shown)
        } else {
            String::new()
        };
        render_producer(frame, *row, theme, h, i, &note);
    }
}

/// One producer's row: a title line with its latest figures, then its records/s chart and
/// its latency chart side by side.
fn render_producer(frame: &mut Frame, area: Rect, theme: Theme, h: &History, i: usize, note: &str) {
    let ring = &h.producers[i];
    let per_s = 1000.0 / SAMPLE_MS as f64;
    let latest = ring.last().copied().unwrap_or_default();
    let latency = latency_words(ring);
    let title = format!(
        " producer {i} · {} acked/s · {latency} {note}",
        super::brokers::number(latest.acked as f64 * per_s)
    );
    let title = text::fit_title(Line::from(Span::styled(title, theme.title())), area.width);
    let block = Block::new().borders(Borders::TOP).title(title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [left, right] = Layout::horizontal([Constraint::Fill(1); 2]).spacing(1).areas(inner);
    let n = window(ring, left.width);
    let times: Vec<f64> = h.times(n).map(seconds).collect();
    let recent: Vec<_> = ring.iter().skip(ring.len() - n).collect();
    let acked: Vec<f64> = recent.iter().map(|s| s.acked as f64 * per_s).collect();
    let series = vec![Series {
        name: "acked".into(),
        short: None,
        glyph: ACKED,
        style: theme.good(),
        points: zip(&times, &acked),
    }];
    draw(
        frame,
        left,
        theme,
        &[" acked, records/s ", " acked/s "],
        h,
        n,
        series,
        (Bounds::from_zero(), "rec/s"),
    );
    let latency = |pick: fn(&crate::sim::producer_latency::LatencySummary) -> Ms| -> Vec<(f64, f64)> {
        times
            .iter()
            .zip(&recent)
            .filter_map(|(t, s)| s.latency.as_ref().map(|l| (*t, pick(l) as f64)))
            .collect()
    };
    let series = vec![
        Series {
            name: "p50".into(),
            short: None,
            glyph: P50,
            style: theme.normal(),
            points: latency(|l| l.p50_ms),
        },
        Series {
            name: "p99".into(),
            short: None,
            glyph: P99,
            style: theme.warn(),
            points: latency(|l| l.p99_ms),
        },
    ];
    draw(frame, right, theme, &[" latency, sim ms ", " ms "], h, n, series, (Bounds::from_zero(), "ms"));
}

/// How the y axis is scaled.
#[derive(Clone, Copy)]
struct Bounds {
    from_zero: bool,
}

impl Bounds {
    /// From 0 to a little above the largest value: rates and latencies.
    fn from_zero() -> Bounds {
        Bounds { from_zero: true }
    }

    /// From the smallest to the largest value: offsets, which only differ near the top.
    fn fit() -> Bounds {
        Bounds { from_zero: false }
    }

    fn of(self, series: &[Series]) -> (f64, f64) {
        let values = || series.iter().flat_map(|s| s.points.iter().map(|p| p.1));
        let max = values().fold(f64::MIN, f64::max);
        let min = if self.from_zero { 0.0 } else { values().fold(f64::MAX, f64::min) };
        if max < min {
            return (0.0, 1.0);
        }
        (min, if max > min { max } else { min + 1.0 })
    }
}

/// Draws `series` as lines over the `n` newest sample times of `h`, under a one-row title
/// that names each series' glyph (the first of `titles` that fits, see [`title_line`]); the y axis is scaled by `bounds` and titled with its
/// quantity's unit (`rec/s`, `offset`, `ms`) between its bottom and top values, the x axis
/// `sim time` between its first and last times.
#[allow(clippy::too_many_arguments)]
fn draw(
    frame: &mut Frame,
    area: Rect,
    theme: Theme,
    titles: &[&str],
    h: &History,
    n: usize,
    series: Vec<Series>,
    (bounds, unit): (Bounds, &str),
) {
    if n == 0 {
        return empty(frame, area, theme, titles.first().copied().unwrap_or(""), NO_SAMPLES);
    }
    let title = title_line(titles, &series, theme, usize::from(area.width));
    let block = Block::new().borders(Borders::TOP).title(text::fit_title(title, area.width));
    let (y_min, y_max) = bounds.of(&series);
    let first = h.times(n).next().unwrap_or(0);
    let last = h.last_at.unwrap_or(0);
    // A single sample still gets an x range one sample wide.
    let x_max = seconds(last).max(seconds(first) + SAMPLE_MS as f64 / 1000.0);
    let x_axis = Axis::default()
        .bounds([seconds(first), x_max])
        // The quantity between the two times: a label, which (unlike an axis title) never
        // covers a point; in a narrow chart the word `sim` alone, so it is never cut.
        .labels([
            Span::raw(clock(first)),
            Span::raw(if area.width >= 60 { "sim time" } else { "sim" }),
            Span::raw(clock(last)),
        ])
        .style(theme.muted());
    // The unit between the bottom and top values: `rec/s`, `offset`, `ms`.
    let y_axis = Axis::default()
        .bounds([y_min, y_max])
        .labels([Span::raw(y_label(y_min)), Span::raw(unit.to_string()), Span::raw(y_label(y_max))])
        .style(theme.muted());
    let datasets = series
        .iter()
        .map(|s| {
            Dataset::default()
                .name(s.name.clone())
                .marker(Marker::Custom(s.glyph))
                .graph_type(GraphType::Line)
                .style(s.style)
                .data(&s.points)
        })
        .collect();
    let chart = Chart::new(datasets).block(block).x_axis(x_axis).y_axis(y_axis).legend_position(None);
    frame.render_widget(chart, area);
}

const NO_SAMPLES: &str = "no samples yet: the sim takes one every second of sim time";

fn empty(frame: &mut Frame, area: Rect, theme: Theme, title: &str, text: &str) {
    let title = text::fit_title(Line::from(Span::styled(title.to_string(), theme.title())), area.width);
    let block = Block::new().borders(Borders::TOP).title(title);
    let line = text::fit(Line::styled(format!(" {text}"), theme.muted()), usize::from(area.width));
    frame.render_widget(Paragraph::new(line).block(block), area);
}

/// How many of the newest samples of `ring` a chart `width` columns wide shows: one per
/// plot column, at least [`MIN_WINDOW`], never more than it holds.
fn window<T>(ring: &Ring<T>, width: u16) -> usize {
    let plot = usize::from(width).saturating_sub(Y_LABEL_W + 2).max(MIN_WINDOW);
    ring.len().min(plot)
}

/// A broker's glyph in the LEO chart: its id's last digit.
fn broker_glyph(broker: BrokerId) -> char {
    char::from_digit(broker.rem_euclid(10) as u32, 10).unwrap_or('?')
}

fn zip(times: &[f64], values: &[f64]) -> Vec<(f64, f64)> {
    times.iter().copied().zip(values.iter().copied()).collect()
}

fn seconds(ms: Ms) -> f64 {
    ms as f64 / 1000.0
}

/// Sim time as `m:ss` (or `h:mm:ss` from an hour on), short enough for an axis.
fn clock(ms: Ms) -> String {
    let s = ms / 1000;
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

/// An axis value in [`Y_LABEL_W`] columns (up to 10¹⁴): `950`, `12.3k`, `4.1M`.
fn y_label(v: f64) -> String {
    let text = match v.abs() {
        a if a < 1e4 => format!("{v:.0}"),
        a if a < 1e5 => format!("{:.1}k", v / 1e3),
        a if a < 1e6 => format!("{:.0}k", v / 1e3),
        a if a < 1e8 => format!("{:.1}M", v / 1e6),
        a if a < 1e9 => format!("{:.0}M", v / 1e6),
        _ => format!("{:.0}G", v / 1e9),
    };
    format!("{text:>Y_LABEL_W$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The LEO chart's legend at the widths the layouts give it: in full where it fits,
    /// then the brokers' digits grouped (`0 1 2 LEO`), then a shorter title, then `+N`.
    #[test]
    fn the_leo_legend_shortens_to_fit_its_chart() {
        let theme = Theme::new(false);
        let leo = |i: usize, n: usize| Series {
            name: format!("b{i} LEO"),
            short: Some(if i + 1 == n { "LEO" } else { "" }),
            glyph: broker_glyph(i as BrokerId),
            style: theme.normal(),
            points: Vec::new(),
        };
        let hw =
            Series { name: "HW".into(), short: None, glyph: HW, style: theme.normal(), points: Vec::new() };
        let series: Vec<Series> = (0..3).map(|i| leo(i, 3)).chain([hw]).collect();
        let titles = [" HW and LEO by broker, offset ", " HW, LEO "];
        let at = |w: usize| -> String {
            title_line(&titles, &series, theme, w).spans.iter().map(|s| s.content.as_ref()).collect()
        };
        assert_eq!(at(66).trim_end(), " HW and LEO by broker, offset 0 b0 LEO  1 b1 LEO  2 b2 LEO  ━ HW");
        assert_eq!(at(53).trim_end(), " HW and LEO by broker, offset 0 1 2 LEO  ━ HW");
        assert_eq!(at(30).trim_end(), " HW, LEO 0 1 2 LEO  ━ HW");
        assert_eq!(at(20).trim_end(), " HW, LEO 0 1 +2");
        for w in [12, 20, 30, 53, 66, 100] {
            assert!(text::width(at(w).trim_end()) < w, "{w}: {}", at(w));
        }
    }

    #[test]
    fn axis_labels_fit_their_width() {
        for v in [0.0, 950.0, 9_999.0, 12_345.0, 999_999.0, 4_100_000.0, 7.5e12] {
            assert_eq!(y_label(v).chars().count(), Y_LABEL_W, "{v}");
        }
        assert_eq!(y_label(12_345.0).trim(), "12.3k");
        assert_eq!(clock(83_400), "1:23");
        assert_eq!(clock(3_723_000), "1:02:03");
    }

    #[test]
    fn brokers_are_drawn_with_their_last_digit() {
        assert_eq!([0, 2, 9, 12].map(broker_glyph), ['0', '2', '9', '2']);
    }

    #[test]
    fn the_window_is_one_sample_per_plot_column() {
        let mut ring = Ring::new(600);
        (0..600).for_each(|v| ring.push(v));
        assert_eq!(window(&ring, 100), 100 - Y_LABEL_W - 2);
        assert_eq!(window(&ring, 10), MIN_WINDOW);
        assert_eq!(window(&Ring::<u8>::new(5), 100), 0);
    }
}

#[cfg(test)]
mod title_tests {
    use super::*;
    use crate::cluster::history::ProducerSample;

    /// The ISR title shortens its words, never a number's unit: at the width where the long
    /// form lost its ` s`, a shorter form keeps `29 s` whole.
    #[test]
    fn the_isr_title_never_cuts_the_seconds_unit() {
        let long = isr_title("test_repli-0", 2, 3, 2, 29, 80);
        assert_eq!(long, " test_repli-0 · ISR size 2 of 3 replicas, lowest 2 in the last 29 s ");
        let w = u16::try_from(text::width(&long) - 1).unwrap();
        let short = isr_title("test_repli-0", 2, 3, 2, 29, w);
        assert!(short.ends_with("29 s ") && text::width(&short) <= usize::from(w), "{short}");
    }

    /// With no acks in the newest sample, the title does not quote old latencies as current.
    #[test]
    fn no_acks_means_no_current_latency() {
        use crate::sim::producer_latency::LatencySummary;
        let mut ring = Ring::new(4);
        let l = LatencySummary { records: 100, p50_ms: 8, p99_ms: 8 };
        ring.push(ProducerSample { acked: 100, latency: Some(l) });
        assert_eq!(latency_words(&ring), "latency p50 8 ms, p99 8 ms");
        ring.push(ProducerSample { acked: 0, latency: None });
        assert_eq!(latency_words(&ring), "no acks in the last second (before: p50 8 ms, p99 8 ms)");
    }
}
