//! Consumers on screen: their lines in the clients pane (position and lag behind the HW and
//! the LEO per partition, records read, records read and erased afterwards), and the marks of
//! their positions under the selected partition's log strips.

use ratatui::text::{Line, Span};

use super::text;
use super::theme::Theme;
use crate::cluster::snapshot::{ConsumerStatus, PartitionView, Snapshot};
use crate::sim::Offset;

/// Rows the full form of the clients pane gives each consumer.
pub const FULL_ROWS: u16 = 2;

/// Rows the consumers take in the clients pane's full form.
pub fn full_rows(snap: &Snapshot) -> u16 {
    u16::try_from(snap.consumers.len()).unwrap_or(u16::MAX).saturating_mul(FULL_ROWS)
}

/// `group g` or `no group`, its `auto.offset.reset`, and with a group its generation,
/// coordinator (`looking up` while it has none: `FindCoordinator` in flight or to be retried,
/// `AbstractCoordinator.ensureCoordinatorReady`), rebalances and committed offsets (summed).
/// A closed consumer says so first, and nothing of a membership it gave up.
fn settings(c: &ConsumerStatus) -> String {
    let group = c.view.group.as_deref().map_or("no group".to_string(), |g| format!("group {g}"));
    if c.view.closed {
        return format!("closed  ({group}; it reads nothing)");
    }
    let mut s = format!("{group}  reset {}", c.view.config.auto_offset_reset.name());
    if let Some(m) = &c.view.member {
        let coordinator = m.coordinator.map_or("looking up".to_string(), |b| b.to_string());
        let committed: i64 = m.committed.iter().map(|(_, o)| *o).sum();
        s.push_str(&format!(
            "  gen {} coordinator {coordinator} rebalances {} committed {committed}",
            m.generation, m.rebalances
        ));
    }
    s
}

/// Records read and records read and erased afterwards.
fn totals(c: &ConsumerStatus, theme: Theme) -> Vec<Span<'static>> {
    let erased = if c.seen_erased > 0 { theme.alarm() } else { theme.normal() };
    vec![
        Span::raw(format!(" read {}  ", c.view.consumed)),
        Span::styled(format!("seen erased {}", c.seen_erased), erased),
    ]
}

/// `t-0 @5 lag 0/5` per partition: position, lag behind the HW / the LEO (`?` without a
/// position); its fetch state instead while it has no position.
fn positions(c: &ConsumerStatus) -> String {
    let parts: Vec<String> = c
        .view
        .partitions
        .iter()
        .zip(&c.lags)
        .map(|(p, l)| {
            let lag = |v: Option<i64>| v.map_or("?".to_string(), |v| v.to_string());
            match p.position {
                Some(pos) => format!("{} @{pos} lag {}/{}", p.tp, lag(l.behind_hw), lag(l.behind_leo)),
                None => format!("{} {}", p.tp, p.state),
            }
        })
        .collect();
    match parts.len() {
        0 => "no partition assigned".to_string(),
        1 => parts.join(""),
        n => format!("{n} partitions: {}", parts.join("  ")),
    }
}

/// The full form per consumer: who it is, then what it read and where it stands, cut to
/// `width`.
pub fn full_lines(snap: &Snapshot, theme: Theme, width: usize) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    for c in &snap.consumers {
        let name = format!(" consumer-{} ← {}  ", c.view.index, c.view.topics.join(","));
        lines.push(Line::from(vec![Span::styled(name, theme.leader()), Span::raw(settings(c))]));
        let mut spans = totals(c, theme);
        spans.push(Span::raw(format!(" · {}", positions(c))));
        lines.push(Line::from(text::truncate_spans(spans, width)));
    }
    lines
}

/// The compact form: one line per consumer.
pub fn compact_lines(snap: &Snapshot, theme: Theme) -> Vec<Line<'static>> {
    snap.consumers
        .iter()
        .map(|c| {
            let mut spans = vec![Span::styled(
                format!(" c{} ← {} ", c.view.index, c.view.topics.join(",")),
                theme.leader(),
            )];
            spans.push(Span::raw("·"));
            spans.extend(totals(c, theme));
            Line::from(spans)
        })
        .collect()
}

/// A mark under the log strips: its glyph, the offset it stands at and its name.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Mark {
    /// One column wide.
    pub glyph: char,
    /// The offset it marks.
    pub at: Offset,
    /// What it is, e.g. `HW`, `consumer-0`.
    pub name: String,
    /// Which mark's glyph a shared column shows and whose name comes first: the lowest.
    pub rank: u8,
}

impl Mark {
    /// `HW 7`, or `consumer-0 @5` for a consumer's position.
    fn label(&self) -> String {
        if self.glyph == CONSUMER {
            format!("{} @{}", self.name, self.at)
        } else {
            format!("{} {}", self.name, self.at)
        }
    }
}

/// A consumer's position on the marks row.
const CONSUMER: char = '▲';

/// Marks under `p`'s log strips, on the strips' scale (`bar_at` columns in, `bar_w` wide,
/// `max` offsets across): the consumers' positions (`▲`, `consumer-0 @5`) and `others`, and
/// after the row, left to right, one label per column that has marks: `▲: consumer-0 @5  H:
/// HW=LEO 7`. Marks sharing a column show the glyph of the lowest rank; their names are
/// merged, in rank order: `HW=LEO 590` when they stand at the same offset, `HW 588, LEO 590`
/// when the scale only puts them in the same column. `None` when there is no mark at all.
pub fn log_marks(
    snap: &Snapshot,
    p: &PartitionView,
    (bar_at, bar_w, max): (usize, usize, Offset),
    theme: Theme,
    others: Vec<Mark>,
) -> Option<Line<'static>> {
    let consumers = snap.consumers.iter().filter_map(|c| {
        let at = c.position(&p.tp)?;
        Some(Mark { glyph: CONSUMER, at, name: format!("consumer-{}", c.view.index), rank: u8::MAX })
    });
    let marks: Vec<Mark> = consumers.chain(others).collect();
    if marks.is_empty() {
        return None;
    }
    let column =
        |o: Offset| ((o.clamp(0, max.max(1)) as f64 / max.max(1) as f64) * bar_w as f64).round() as usize;
    let width = bar_at + bar_w + 1;
    // Marks by column, each column's in rank order (then offset, then name: deterministic).
    let mut by_column: std::collections::BTreeMap<usize, Vec<&Mark>> = Default::default();
    for m in &marks {
        by_column.entry((bar_at + column(m.at)).min(width - 1)).or_default().push(m);
    }
    let mut row: Vec<char> = vec![' '; width];
    let mut labels = Vec::new();
    for (&at, group) in &mut by_column {
        group.sort_by(|a, b| (a.rank, a.at, &a.name).cmp(&(b.rank, b.at, &b.name)));
        row[at] = group[0].glyph;
        // `H: HW=LEO 7`, a key: `H HW=LEO` right after the row's `H` read as a doubled glyph.
        labels.push(format!("{}: {}", group[0].glyph, merged(group)));
    }
    let row: String = row.into_iter().collect();
    Some(Line::from(vec![
        Span::styled(row.trim_end().to_string(), theme.leader()),
        Span::styled(format!("   {}", labels.join("  ")), theme.muted()),
    ]))
}

/// One label for the marks of one column (in rank order): a lone mark's own label; names
/// at one offset joined by `=` (`HW=LEO 590`); different offsets apart (`HW 588, LEO 590`).
fn merged(group: &[&Mark]) -> String {
    if let [one] = group {
        return one.label();
    }
    let mut offsets: Vec<Offset> = Vec::new();
    for m in group {
        if !offsets.contains(&m.at) {
            offsets.push(m.at);
        }
    }
    let parts: Vec<String> = offsets
        .iter()
        .map(|&o| {
            let at: Vec<&&Mark> = group.iter().filter(|m| m.at == o).collect();
            match at.as_slice() {
                [one] => one.label(),
                many => {
                    let names: Vec<&str> = many.iter().map(|m| m.name.as_str()).collect();
                    format!("{} {o}", names.join("="))
                }
            }
        })
        .collect();
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::snapshot::{ConsumerLag, ConsumerPartitionView, ConsumerView};
    use crate::config::ConsumerConfig;
    use crate::ui::fixture;

    fn plain(line: &Line) -> String {
        line.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    fn with_consumer(position: Offset) -> Snapshot {
        let mut snap = fixture::snapshot();
        let tp = snap.partitions[0].tp.clone();
        let hw = snap.partitions[0].hw;
        snap.consumers.push(ConsumerStatus {
            view: ConsumerView {
                index: 0,
                group: None,
                topics: vec![tp.topic.to_string()],
                config: ConsumerConfig::default(),
                partitions: vec![ConsumerPartitionView {
                    tp: tp.clone(),
                    position: Some(position),
                    state: "fetch",
                    consumed: 7,
                }],
                consumed: 7,
                last_error: None,
                member: None,
                closed: false,
                polls: 1,
            },
            seen_erased: 3,
            lags: vec![ConsumerLag {
                tp,
                behind_hw: Some(hw - position),
                behind_leo: Some(hw - position + 2),
            }],
        });
        snap
    }

    #[test]
    fn a_consumer_shows_its_position_and_both_lags() {
        let snap = with_consumer(4);
        let theme = Theme::new(false);
        let lines: Vec<String> = full_lines(&snap, theme, 120).iter().map(plain).collect();
        let hw = snap.partitions[0].hw;
        assert!(lines[0].contains("no group  reset latest"), "{}", lines[0]);
        assert!(lines[1].contains("seen erased 3"), "{}", lines[1]);
        let want = format!("{} @4 lag {}/{}", snap.partitions[0].tp, hw - 4, hw - 2);
        assert!(lines[1].contains(&want), "{} lacks {want}", lines[1]);
        assert_eq!(compact_lines(&snap, theme).len(), 1);
    }

    #[test]
    fn a_group_member_shows_its_generation_coordinator_and_commits() {
        let mut snap = with_consumer(4);
        let tp = snap.partitions[0].tp.clone();
        let c = &mut snap.consumers[0].view;
        c.group = Some("g".into());
        c.member = Some(crate::sim::group::membership::GroupMemberView {
            member_id: "consumer-0-2.0".into(),
            generation: 2,
            coordinator: Some(3),
            state: "Stable".into(),
            rebalances: 2,
            committed: vec![(tp, 4)],
        });
        let line = plain(&full_lines(&snap, Theme::new(false), 160)[0]);
        assert!(
            line.contains("group g  reset latest  gen 2 coordinator 3 rebalances 2 committed 4"),
            "{line}"
        );
    }

    /// While the member has no coordinator (its broker died, `FindCoordinator` is retried) the
    /// line says it is looking one up; a closed consumer says `closed` first and shows no
    /// membership it gave up (a closed member's generation and old coordinator mislead).
    #[test]
    fn a_member_without_coordinator_looks_one_up_and_a_closed_one_says_closed() {
        let mut snap = with_consumer(4);
        let c = &mut snap.consumers[0].view;
        c.group = Some("g".into());
        c.member = Some(crate::sim::group::membership::GroupMemberView {
            member_id: "consumer-0-2.0".into(),
            generation: 2,
            coordinator: None,
            state: "Stable".into(),
            rebalances: 2,
            committed: Vec::new(),
        });
        let line = plain(&full_lines(&snap, Theme::new(false), 160)[0]);
        assert!(line.contains("gen 2 coordinator looking up rebalances 2"), "{line}");
        snap.consumers[0].view.closed = true;
        let line = plain(&full_lines(&snap, Theme::new(false), 80)[0]);
        assert!(
            line.contains("consumer-0 ← ") && line.contains("closed  (group g; it reads nothing)"),
            "{line}"
        );
        assert!(!line.contains("gen 2") && !line.contains("coordinator"), "{line}");
    }

    #[test]
    fn several_partitions_are_counted_before_the_list() {
        let mut snap = with_consumer(4);
        let mut second = snap.consumers[0].view.partitions[0].clone();
        second.tp = snap.partitions[1].tp.clone();
        snap.consumers[0].view.partitions.push(second);
        let lag = snap.consumers[0].lags[0].clone();
        snap.consumers[0].lags.push(lag);
        let line = plain(&full_lines(&snap, Theme::new(false), 200)[1]);
        assert!(line.contains(" · 2 partitions: "), "{line}");
    }

    #[test]
    fn the_log_strips_mark_the_position_on_their_scale() {
        let snap = with_consumer(5);
        let p = &snap.partitions[0];
        let line = log_marks(&snap, p, (7, 10, 10), Theme::new(false), Vec::new()).unwrap();
        assert_eq!(plain(&line), format!("{}▲   ▲: consumer-0 @5", " ".repeat(12)));
        assert!(log_marks(&snap, &snap.partitions[1], (7, 10, 10), Theme::new(false), Vec::new()).is_none());
        let hw = Mark { glyph: 'H', at: 5, name: "HW".into(), rank: 0 };
        let line = log_marks(&snap, p, (7, 10, 10), Theme::new(false), vec![hw]).unwrap();
        assert_eq!(
            plain(&line),
            format!("{}H   H: HW=consumer-0 5", " ".repeat(12)),
            "the HW's mark wins its column"
        );
    }
}
