//! A figure of one partition over sim time, as SVG: its leader and leader epoch as bands
//! (one per epoch, coloured by leader, red while it has none), its ISR size, and its high
//! watermark with each replica's log end offset, drawn as steps (each value holds until the
//! next sample).

use super::svg::{FONTS, escape};
use crate::cluster::snapshot::PartitionView;
use crate::sim::{BrokerId, Epoch, Offset, SimTime, TopicPartition};
use std::fmt::Write;

/// One sample of the partition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sample {
    /// When.
    pub at: SimTime,
    /// Its leader, `None` = offline.
    pub leader: Option<BrokerId>,
    /// Leader epoch.
    pub epoch: Epoch,
    /// ISR size.
    pub isr: usize,
    /// Replicas (the replication factor).
    pub replicas: usize,
    /// The leader's HW.
    pub hw: Offset,
    /// Each replica's LEO, by broker.
    pub leos: Vec<(BrokerId, Offset)>,
}

impl Sample {
    /// The sample of `p` at `at`.
    pub fn of(p: &PartitionView, at: SimTime) -> Sample {
        Sample {
            at,
            leader: p.leader,
            epoch: p.leader_epoch,
            isr: p.isr.len(),
            replicas: p.replicas.len(),
            hw: p.hw,
            leos: p.replica_views.iter().map(|r| (r.broker, r.leo)).collect(),
        }
    }
}

const WIDTH: f64 = 960.0;
const LEFT: f64 = 110.0;
const RIGHT: f64 = 24.0;
const BAND: (f64, f64) = (44.0, 70.0);
const ISR: (f64, f64) = (92.0, 148.0);
const OFFSETS: (f64, f64) = (172.0, 400.0);
const AXIS: f64 = 404.0;
const HEIGHT: f64 = 470.0;
const BACKGROUND: &str = "#0c0c0c";
const INK: &str = "#cccccc";
const FAINT: &str = "#3a3a3a";
const OFFLINE: &str = "#c50f1f";
const HW: &str = "#f2f2f2";
/// Colours of brokers, in the order of their ids among the partition's replicas.
const BROKERS: [&str; 6] = ["#3b78ff", "#16c60c", "#f9a825", "#b4009e", "#61d6d6", "#e74856"];

/// A tick spacing for `span` µs: 1, 2 or 5 × a power of ten seconds, about 8 ticks.
fn tick_us(span: u64) -> u64 {
    let rough = (span / 8).max(1);
    let mut step = 1_000u64;
    loop {
        for m in [1, 2, 5] {
            if step * m >= rough {
                return step * m;
            }
        }
        step *= 10;
    }
}

/// `us` as a short label: `10s`, `1m30s`, `250ms`.
fn label(us: u64) -> String {
    let ms = us / 1000;
    match (ms / 60_000, ms % 60_000) {
        (0, rest) if rest % 1000 == 0 => format!("{}s", rest / 1000),
        (0, rest) => format!("{rest}ms"),
        (m, 0) => format!("{m}m"),
        (m, rest) => format!("{m}m{}s", rest / 1000),
    }
}

/// The figure of `tp` from `samples` (in time order), titled with `title`.
pub fn figure(tp: &TopicPartition, title: &str, samples: &[Sample]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="{FONTS}" font-size="12">"#
    );
    let heading = format!("{tp} · leader and epoch, ISR size, HW and each replica's LEO");
    let _ = writeln!(out, "<title>{}</title>", escape(&format!("{heading} · {title}")));
    let _ = writeln!(out, r#"<rect width="{WIDTH}" height="{HEIGHT}" fill="{BACKGROUND}"/>"#);
    let _ =
        writeln!(out, r#"<text x="{LEFT}" y="18" fill="{INK}" font-size="14">{}</text>"#, escape(&heading));
    // The scenario's name, cut to the figure's width.
    let room = ((WIDTH - LEFT - RIGHT) / 6.6) as usize;
    let name: String = if title.chars().count() > room {
        title.chars().take(room - 1).chain(['…']).collect()
    } else {
        title.to_string()
    };
    let _ = writeln!(
        out,
        r#"<text x="{LEFT}" y="34" fill="{INK}" fill-opacity="0.7" font-size="11">{}</text>"#,
        escape(&name)
    );
    let (Some(first), Some(last)) = (samples.first(), samples.last()) else {
        out.push_str("</svg>\n");
        return out;
    };
    let (t0, t1) = (first.at.as_micros(), last.at.as_micros().max(first.at.as_micros() + 1));
    let x = |t: SimTime| LEFT + (t.as_micros() - t0) as f64 / (t1 - t0) as f64 * (WIDTH - LEFT - RIGHT);
    let end = WIDTH - RIGHT;
    let mut brokers: Vec<BrokerId> = samples.iter().flat_map(|s| s.leos.iter().map(|(b, _)| *b)).collect();
    brokers.sort_unstable();
    brokers.dedup();
    let colour = |b: BrokerId| BROKERS[brokers.iter().position(|x| *x == b).unwrap_or(0) % BROKERS.len()];
    // Each sample's value holds until the next one (the last until the end).
    let spans: Vec<(f64, f64, &Sample)> = samples
        .iter()
        .enumerate()
        .map(|(i, s)| (x(s.at), samples.get(i + 1).map_or(end, |n| x(n.at)), s))
        .collect();

    // Row labels.
    for (text, (top, bottom)) in [("leader", BAND), ("ISR size", ISR), ("offset", OFFSETS)] {
        let _ = writeln!(
            out,
            r#"<text x="{}" y="{:.1}" fill="{INK}">{text}</text>"#,
            8.0,
            (top + bottom) / 2.0 + 4.0
        );
    }

    // Leader bands: one per run of samples with the same leader and epoch.
    let mut bands: Vec<(f64, f64, Option<BrokerId>, Epoch)> = Vec::new();
    for &(from, to, s) in &spans {
        match bands.last_mut() {
            Some(b) if b.2 == s.leader && b.3 == s.epoch => b.1 = to,
            _ => bands.push((from, to, s.leader, s.epoch)),
        }
    }
    for (i, &(from, to, leader, epoch)) in bands.iter().enumerate() {
        let fill = leader.map_or(OFFLINE, colour);
        let _ = writeln!(
            out,
            r#"<rect x="{from:.1}" y="{}" width="{:.1}" height="{}" fill="{fill}" fill-opacity="0.55" stroke="{BACKGROUND}"/>"#,
            BAND.0,
            (to - from).max(0.5),
            BAND.1 - BAND.0
        );
        let text = leader
            .map_or_else(|| format!("offline · epoch {epoch}"), |b| format!("broker {b} · epoch {epoch}"));
        if to - from > text.len() as f64 * 7.2 + 8.0 {
            let _ = writeln!(
                out,
                r#"<text x="{:.1}" y="{}" fill="{HW}">{}</text>"#,
                from + 4.0,
                BAND.0 + 17.0,
                escape(&text)
            );
        }
        if i > 0 {
            let _ = writeln!(
                out,
                r#"<line x1="{from:.1}" y1="{}" x2="{from:.1}" y2="{}" stroke="{INK}" stroke-opacity="0.35" stroke-dasharray="3 3"/>"#,
                BAND.1, OFFSETS.1
            );
        }
    }

    // ISR size, 0 to the replication factor.
    let rf = samples.iter().map(|s| s.replicas.max(s.isr)).max().unwrap_or(1).max(1);
    let isr_y = |n: usize| ISR.1 - n as f64 / rf as f64 * (ISR.1 - ISR.0);
    for n in [0, rf] {
        gridline(&mut out, isr_y(n), end, n);
    }
    let _ = writeln!(out, "{}", steps(&spans, |s| Some(isr_y(s.isr)), INK, 2.0));

    // HW and LEOs, from the lowest to the highest offset shown.
    let values = samples.iter().flat_map(|s| s.leos.iter().map(|(_, o)| *o).chain([s.hw]));
    let (low, high) = values.fold((Offset::MAX, Offset::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let (low, high) = (low.min(high), high.max(low + 1));
    let off_y = |o: Offset| OFFSETS.1 - (o - low) as f64 / (high - low) as f64 * (OFFSETS.1 - OFFSETS.0);
    let middle = low + (high - low) / 2;
    for o in [low, middle, high].into_iter().filter(|o| *o != low || middle != low) {
        gridline(&mut out, off_y(o), end, o);
    }
    // The HW underneath, wide and pale; each LEO over it, a pixel or two apart from the
    // others, so equal offsets stay visible side by side.
    let _ = writeln!(
        out,
        "{}",
        steps(&spans, |s| Some(off_y(s.hw)), HW, 5.0).replace("/>", r#" stroke-opacity="0.45"/>"#)
    );
    let mid = (brokers.len() as f64 - 1.0) / 2.0;
    for (i, &b) in brokers.iter().enumerate() {
        let nudge = (i as f64 - mid) * 2.0;
        let leo = |s: &Sample| s.leos.iter().find(|(x, _)| *x == b).map(|(_, o)| off_y(*o) + nudge);
        let _ = writeln!(out, "{}", steps(&spans, leo, colour(b), 1.5));
    }

    // The time axis.
    let _ = writeln!(out, r#"<line x1="{LEFT}" y1="{AXIS}" x2="{end}" y2="{AXIS}" stroke="{INK}"/>"#);
    let step = tick_us(t1 - t0);
    let mut tick = t0.div_ceil(step) * step;
    while tick <= t1 {
        let tx = x(SimTime::from_micros(tick));
        let _ = writeln!(
            out,
            r#"<line x1="{tx:.1}" y1="{AXIS}" x2="{tx:.1}" y2="{}" stroke="{INK}"/>"#,
            AXIS + 5.0
        );
        let _ = writeln!(
            out,
            r#"<text x="{tx:.1}" y="{}" fill="{INK}" text-anchor="middle">{}</text>"#,
            AXIS + 18.0,
            label(tick)
        );
        tick += step;
    }

    // The legend.
    let mut lx = LEFT;
    let ly = HEIGHT - 20.0;
    let mut legend = vec![(HW.to_string(), "HW".to_string())];
    legend.extend(brokers.iter().map(|b| (colour(*b).to_string(), format!("LEO of broker {b}"))));
    legend.push((OFFLINE.to_string(), "no leader".to_string()));
    for (fill, text) in legend {
        let _ = writeln!(out, r#"<rect x="{lx:.1}" y="{}" width="14" height="4" fill="{fill}"/>"#, ly - 4.0);
        let _ = writeln!(out, r#"<text x="{:.1}" y="{ly}" fill="{INK}">{}</text>"#, lx + 20.0, escape(&text));
        lx += 40.0 + text.len() as f64 * 7.2;
    }
    out.push_str("</svg>\n");
    out
}

/// A step line through `spans` of the values `y` gives (a gap where it gives none).
fn steps(
    spans: &[(f64, f64, &Sample)],
    y: impl Fn(&Sample) -> Option<f64>,
    stroke: &str,
    width: f64,
) -> String {
    let mut paths: Vec<String> = Vec::new();
    let mut current = String::new();
    for &(from, to, s) in spans {
        match y(s) {
            Some(v) if current.is_empty() => {
                let _ = write!(current, "M{from:.1},{v:.1} H{to:.1}");
            }
            Some(v) => {
                let _ = write!(current, " V{v:.1} H{to:.1}");
            }
            None if !current.is_empty() => paths.push(std::mem::take(&mut current)),
            None => {}
        }
    }
    if !current.is_empty() {
        paths.push(current);
    }
    format!(r#"<path d="{}" fill="none" stroke="{stroke}" stroke-width="{width}"/>"#, paths.join(" "))
}

/// A faint horizontal line across the plot at `y`, up to `end`, with `label` left of it.
fn gridline(out: &mut String, y: f64, end: impl std::fmt::Display, label: impl std::fmt::Display) {
    let _ = writeln!(out, r#"<line x1="{LEFT}" y1="{y:.1}" x2="{end}" y2="{y:.1}" stroke="{FAINT}"/>"#);
    let _ = writeln!(
        out,
        r#"<text x="{}" y="{:.1}" fill="{INK}" text-anchor="end">{label}</text>"#,
        LEFT - 6.0,
        y + 4.0
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(s: u64, leader: Option<BrokerId>, epoch: Epoch, hw: Offset) -> Sample {
        Sample {
            at: SimTime::from_ms(s * 1000),
            leader,
            epoch,
            isr: 2,
            replicas: 2,
            hw,
            leos: vec![(1, hw + 1), (2, hw)],
        }
    }

    #[test]
    fn bands_follow_leader_epochs_and_ticks_are_round() {
        let tp = TopicPartition::new("t", 0);
        let samples = [
            sample(0, Some(1), 0, 0),
            sample(5, None, 0, 5),
            sample(10, Some(2), 1, 5),
            sample(20, Some(2), 1, 9),
        ];
        let svg = figure(&tp, "story", &samples);
        assert!(svg.contains(">broker 1 · epoch 0</text>"), "{svg}");
        assert!(svg.contains(">broker 2 · epoch 1</text>"), "{svg}");
        assert!(svg.contains(&format!(r#"fill="{OFFLINE}" fill-opacity"#)), "{svg}");
        assert!(svg.contains(">LEO of broker 2</text>"));
        assert_eq!(tick_us(20_000_000), 5_000_000);
        assert_eq!(
            (label(5_000_000), label(90_000_000), label(250_000)),
            ("5s".into(), "1m30s".into(), "250ms".into())
        );
        assert!(figure(&tp, "none", &[]).ends_with("</svg>\n"));
    }
}
