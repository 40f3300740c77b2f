//! The clients pane: per producer its rate, acks, idempotence, sent/acked/failed/pending
//! counts, errors by Kafka error name and the last error; per consumer its positions and lags
//! ([`super::consumers`]); then the cluster's acked-lost and duplicate counts. When rows are
//! short it switches to a compact form, one line per client, in which the producers come
//! first and never give way: consumers take the rows left, with a `+N more` line for those
//! that do not fit. With more than one producer the selected one (the target of `a` and
//! `-`/`+`) is marked `▸` and drawn reversed, so the mark does not rest on colour.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use std::collections::BTreeMap;

use super::brokers::number;
use super::consumers;
use super::text;
use super::theme::{Theme, glyph};
use crate::cluster::snapshot::{ProducerView, Snapshot};
use crate::sim::{format_time, join_ids};

/// Rows the full form needs: title, the cluster line, four per producer and its wait lines
/// (as they wrap at 80 columns), two per consumer.
fn full_rows(snap: &Snapshot) -> u16 {
    let n = u16::try_from(snap.producers.len()).unwrap_or(u16::MAX);
    let waits = u16::try_from(waiting_rows(snap, true, 80)).unwrap_or(u16::MAX);
    n.max(1)
        .saturating_mul(4)
        .saturating_add(2)
        .saturating_add(waits)
        .saturating_add(consumers::full_rows(snap))
}

/// Rows this pane would like: the full form plus two for a long last error.
pub fn height_needed(snap: &Snapshot) -> u16 {
    full_rows(snap).saturating_add(2)
}

/// Rows the pane needs so that no producer gives way: its title and one compact line per
/// producer (or the "no producer" line), and the lines saying what a waiting producer waits
/// for, as they wrap at 80 columns (the narrowest screen this minimum serves).
pub fn min_rows(snap: &Snapshot) -> u16 {
    let rows = snap.producers.len().max(1) + waiting_rows(snap, false, 80) + 1;
    u16::try_from(rows).unwrap_or(u16::MAX)
}

/// Rows the producers' wait lines take at `width` columns.
fn waiting_rows(snap: &Snapshot, full: bool, width: usize) -> usize {
    snap.producers.iter().map(|p| wait_lines(snap, p, full, Theme::new(false), width).len()).sum()
}

/// Most lines a waiting producer's wait takes: in the full form, and in the compact one (at
/// 80×24 every row counts; how it ends comes first, so the cut loses only the cause, which
/// the table and the logs pane show too).
const WAIT_MAX_LINES: (usize, usize) = (3, 2);

/// What producer `p` waits for ([`super::waits::producer_line`]), word-wrapped to `width`
/// in at most [`WAIT_MAX_LINES`] (the last ends with `…` when cut); none while it does
/// not wait. The compact form (not `full`) tells only waits that end in REQUEST_TIMED_OUT:
/// a crashed follower the producer waits for until it is fenced, then acknowledged, is the
/// partition table's story at 80×24, not worth its rows.
fn wait_lines(
    snap: &Snapshot,
    p: &ProducerView,
    full: bool,
    theme: Theme,
    width: usize,
) -> Vec<Line<'static>> {
    let Some(line) = super::waits::producer_line(snap, p.index, !full) else { return Vec::new() };
    let label = Span::styled(format!(" p{} ", p.index), theme.leader());
    let most = if full { WAIT_MAX_LINES.0 } else { WAIT_MAX_LINES.1 };
    text::at_most(text::hanging(label, &line, theme.warn(), width, 4), most, width)
}

/// Draws the pane; `selected` is the producer to mark (`None`: mark none).
pub fn render(frame: &mut Frame, area: Rect, theme: Theme, snap: &Snapshot, selected: Option<u32>) {
    let full = area.height >= full_rows(snap);
    let width = usize::from(area.width);
    let mut lines = Vec::new();
    if snap.producers.is_empty() {
        lines.push(Line::styled(" no producer (produce with `:produce T N`)", theme.muted()));
    }
    let title = if full {
        lines.insert(0, cluster_line(snap, theme, width));
        for p in &snap.producers {
            lines.extend(full_lines(p, selected == Some(p.index), theme, width));
            lines.extend(wait_lines(snap, p, true, theme, width));
        }
        lines.extend(consumers::full_lines(snap, theme, width));
        vec![Span::styled(" Clients ", theme.title())]
    } else {
        for p in &snap.producers {
            lines.push(compact_line(p, selected == Some(p.index), theme, width));
            lines.extend(wait_lines(snap, p, false, theme, width));
        }
        let rows = usize::from(area.height.saturating_sub(1)).saturating_sub(lines.len());
        let (shown, hidden) = consumer_lines(snap, theme, rows);
        lines.extend(shown);
        lines.extend(snap.producers.iter().flat_map(|p| last_error_lines(p, theme, width)));
        compact_title(snap, theme, hidden, width)
    };
    let block = Block::new().borders(Borders::TOP).title(text::fit_title(Line::from(title), area.width));
    frame.render_widget(Paragraph::new(text::fit_all(lines, width)).block(block), area);
}

/// The consumers' compact lines in `rows` rows: all when they fit, else all but the last
/// row's worth and a `+N more` line. Also how many are left out with no row to say so.
fn consumer_lines(snap: &Snapshot, theme: Theme, rows: usize) -> (Vec<Line<'static>>, usize) {
    let mut lines = consumers::compact_lines(snap, theme);
    let n = lines.len();
    if n <= rows {
        return (lines, 0);
    }
    if rows == 0 {
        return (Vec::new(), n);
    }
    lines.truncate(rows - 1);
    let more = n - lines.len();
    let noun = if more == 1 { "consumer" } else { "consumers" };
    lines.push(Line::styled(format!(" +{more} more {noun} (a taller terminal shows them)"), theme.muted()));
    (lines, 0)
}

/// The compact title carries what the missing rows would: loss, errors by name, and the
/// consumers left out without a row of their own (`hidden`).
fn compact_title(snap: &Snapshot, theme: Theme, hidden: usize, width: usize) -> Vec<Span<'static>> {
    let lost = if snap.acked_lost > 0 { theme.alarm() } else { theme.title() };
    let mut spans = vec![
        Span::styled(" Clients · ", theme.title()),
        Span::styled(format!("acked lost {}", snap.acked_lost), lost),
        Span::styled(" ", theme.title()),
    ];
    if snap.unacked_lost > 0 {
        spans.push(Span::styled(format!("· no-ack lost {} ", snap.unacked_lost), theme.bad()));
    }
    if hidden > 0 {
        spans.push(Span::styled(format!("· +{hidden} consumer(s) not shown "), theme.title()));
    }
    let mut errors: BTreeMap<&str, u64> = BTreeMap::new();
    for (name, n) in snap.producers.iter().flat_map(|p| &p.errors) {
        *errors.entry(name).or_default() += n;
    }
    if !errors.is_empty() {
        let list: Vec<String> = errors.iter().map(|(name, n)| format!("{name} {n}")).collect();
        let used: usize = spans.iter().map(Span::width).sum();
        // Two columns for the rule's ends; errors that do not fit are counted, never cut.
        let room = width.saturating_sub(used + 2);
        spans.push(Span::styled(whole_errors(&list, room), theme.bad()));
    }
    spans
}

/// `· errors: A 3, B 40 ` in `room` columns: the leading whole entries that fit, then
/// `+N more` for the rest, so no count is cut mid-number.
fn whole_errors(list: &[String], room: usize) -> String {
    format!("{} ", whole_list("· errors: ", list, room.saturating_sub(1)))
}

/// `head` and the leading entries of `list` that fit whole in `room` columns, then `+N more`
/// for the rest; just the count when not even that fits.
fn whole_list(head: &str, list: &[String], room: usize) -> String {
    (0..=list.len())
        .rev()
        .map(|n| {
            let more = list.len() - n;
            let mut shown: Vec<String> = list[..n].to_vec();
            if more > 0 {
                shown.push(format!("+{more} more"));
            }
            format!("{head}{}", shown.join(", "))
        })
        .find(|t| text::width(t) <= room)
        .unwrap_or_else(|| format!("{head}{}", list.len()))
}

/// A producer's name: `▸` and reversed when it is the selected one, else a space.
fn name_span(text: String, selected: bool, theme: Theme) -> Span<'static> {
    if selected {
        Span::styled(format!("{}{text}", glyph::SELECTED), theme.leader().patch(theme.selected()))
    } else {
        Span::styled(format!(" {text}"), theme.leader())
    }
}

fn settings(p: &ProducerView) -> String {
    let idem = if p.idempotent { "idempotent" } else { "not idempotent" };
    format!("{}/s  acks={}  {idem}", number(p.config.rate), p.config.acks)
}

/// `sent N  acked N  failed N  pending N`, with `no ack N` after `acked` once the producer
/// sent records with `acks=0` (done at the socket, never acknowledged, so never counted as
/// acked); `tight` takes one space between the counts instead of two.
fn counts(p: &ProducerView, theme: Theme, tight: bool) -> Vec<Span<'static>> {
    let gap = if tight { " " } else { "  " };
    let failed = if p.failed > 0 { theme.bad() } else { theme.normal() };
    let no_ack = if p.unacked > 0 { format!("no ack {}{gap}", p.unacked) } else { String::new() };
    vec![
        Span::raw(format!(" sent {}{gap}acked {}{gap}{no_ack}", p.sent, p.acked)),
        Span::styled(format!("failed {}", p.failed), failed),
        Span::raw(format!("{gap}pending {}", p.pending)),
    ]
}

fn full_lines(p: &ProducerView, selected: bool, theme: Theme, width: usize) -> Vec<Line<'static>> {
    let name = |long: bool| {
        if long {
            format!("producer {} → {}", p.index, p.topic)
        } else {
            format!("p{} → {}", p.index, p.topic)
        }
    };
    let fits = text::width(&name(true)) + 3 + text::width(&settings(p)) <= width;
    let head =
        Line::from(vec![name_span(name(fits), selected, theme), Span::raw("  "), Span::raw(settings(p))]);
    let mut lines = vec![head, Line::from(counts(p, theme, false)), errors_line(p, theme, width)];
    lines.extend(last_error_lines(p, theme, width));
    lines
}

/// One producer on one line, in `width` columns. Its counts are never cut (the producer
/// counts never give way at 80×24), and whether it is idempotent stays as long as anything
/// but the counts can give way: first the double spaces, then the rate (the settings line
/// under the broker strip shows it), and only then idempotence, then acks.
fn compact_line(p: &ProducerView, selected: bool, theme: Theme, width: usize) -> Line<'static> {
    let idem = if p.idempotent { "idempotent" } else { "not idempotent" };
    let (rate, acks) = (number(p.config.rate), p.config.acks);
    let forms = [
        (Some(format!("{rate}/s  acks={acks}  {idem}")), false),
        (Some(format!("{rate}/s acks={acks} {idem}")), true),
        (Some(format!("acks={acks} {idem}")), true),
        (Some(format!("acks={acks}")), true),
        (None, true),
    ];
    let line = |(settings, tight): &(Option<String>, bool)| {
        let mut spans = vec![name_span(format!("p{}", p.index), selected, theme)];
        if let Some(settings) = settings {
            spans.extend([Span::raw(" "), Span::raw(settings.clone()), Span::raw(" ·")]);
        }
        spans.extend(counts(p, theme, *tight));
        Line::from(spans)
    };
    forms.iter().map(line).find(|l| l.width() <= width).unwrap_or_else(|| line(&(None, true)))
}

/// ` errors: A 3, B 40` in `width` columns, with the unreachable brokers after it: the
/// errors that do not fit give way whole (`+N more`), so no count is cut (at 80
/// columns the last error's count was cut off).
fn errors_line(p: &ProducerView, theme: Theme, width: usize) -> Line<'static> {
    let unreachable = unreachable_span(p, theme);
    let mut spans = if p.errors.is_empty() {
        vec![Span::styled(" errors: none", theme.muted())]
    } else {
        let list: Vec<String> = p.errors.iter().map(|(name, n)| format!("{name} {n}")).collect();
        let room = width.saturating_sub(unreachable.as_ref().map_or(0, Span::width));
        vec![Span::styled(whole_list(" errors: ", &list, room), theme.bad())]
    };
    spans.extend(unreachable);
    Line::from(spans)
}

/// Brokers the producer cannot connect to: their partitions' batches wait (no retry is spent)
/// while it reconnects.
fn unreachable_span(p: &ProducerView, theme: Theme) -> Option<Span<'static>> {
    let noun = match p.unreachable.len() {
        0 => return None,
        1 => "broker",
        _ => "brokers",
    };
    let ids = join_ids(&p.unreachable);
    Some(Span::styled(format!("  · {noun} {ids} unreachable"), theme.warn()))
}

/// The last error, word-wrapped onto at most three lines (the last ends with `…` when more
/// would be needed).
fn last_error_lines(p: &ProducerView, theme: Theme, width: usize) -> Vec<Line<'static>> {
    let Some((at, what)) = &p.last_error else {
        return vec![Line::styled(" last error: none", theme.muted())];
    };
    let stamp = Span::styled(format!(" last error {} ", format_time(*at)), theme.muted());
    text::at_most(text::hanging(stamp, what, theme.normal(), width, 3), 3, width)
}

/// ` cluster: acked lost N  duplicates N`, then what consumers saw erased (once there are
/// consumers) and the `acks=0` records lost (once a producer sent any): `sent without
/// acknowledgement, lost N`, in the short words `no-ack lost N` when that does not fit.
fn cluster_line(snap: &Snapshot, theme: Theme, width: usize) -> Line<'static> {
    let lost = if snap.acked_lost > 0 { theme.alarm() } else { theme.good() };
    let dups = if snap.duplicates > 0 { theme.warn() } else { theme.normal() };
    let mut spans = vec![
        Span::raw(" cluster: "),
        Span::styled(format!("acked lost {}", snap.acked_lost), lost),
        Span::raw("  "),
        Span::styled(format!("duplicates {}", snap.duplicates), dups),
    ];
    // Only consumers can read records that are erased afterwards.
    if !snap.consumers.is_empty() || snap.seen_erased > 0 {
        spans.push(Span::raw("  "));
        spans.push(Span::styled(format!("seen erased {}", snap.seen_erased), seen_erased_style(snap, theme)));
    }
    if snap.unacked_lost > 0 || snap.producers.iter().any(|p| p.unacked > 0) {
        let style = if snap.unacked_lost > 0 { theme.bad() } else { theme.normal() };
        let used: usize = spans.iter().map(Span::width).sum();
        let long = format!("sent without acknowledgement, lost {}", snap.unacked_lost);
        let text = if used + 2 + text::width(&long) <= width {
            long
        } else {
            format!("no-ack lost {}", snap.unacked_lost)
        };
        spans.push(Span::raw("  "));
        spans.push(Span::styled(text, style));
    }
    Line::from(spans)
}

/// How records consumers read and that were erased afterwards look: alarming when any.
fn seen_erased_style(snap: &Snapshot, theme: Theme) -> ratatui::style::Style {
    if snap.seen_erased > 0 { theme.alarm() } else { theme.normal() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::fixture;

    fn text(line: &Line) -> String {
        line.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    /// The fixture with a second producer and `n` consumers.
    fn crowded(n: u32) -> Snapshot {
        use crate::cluster::snapshot::{ConsumerStatus, ConsumerView};
        let mut snap = fixture::snapshot();
        let second = ProducerView { index: 1, ..snap.producers[0].clone() };
        snap.producers.push(second);
        for index in 0..n {
            snap.consumers.push(ConsumerStatus {
                view: ConsumerView {
                    index,
                    group: None,
                    topics: vec!["t".into()],
                    config: Default::default(),
                    partitions: Vec::new(),
                    consumed: 0,
                    polls: 0,
                    last_error: None,
                    member: None,
                    closed: false,
                },
                seen_erased: 0,
                lags: Vec::new(),
            });
        }
        snap
    }

    /// The pane drawn in `rows` rows, 80 wide, as plain text lines.
    fn drawn(snap: &Snapshot, rows: u16, selected: Option<u32>, ascii: bool) -> Vec<String> {
        let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, rows)).unwrap();
        let theme = Theme::new(false);
        terminal
            .draw(|f| {
                render(f, f.area(), theme, snap, selected);
                if ascii {
                    crate::ui::ascii::transliterate(f.buffer_mut());
                }
            })
            .unwrap();
        let buf = terminal.backend().buffer();
        (0..rows).map(|y| (0..80).map(|x| buf[(x, y)].symbol().to_string()).collect()).collect()
    }

    #[test]
    fn producers_never_give_way_and_consumers_get_a_more_line() {
        let snap = crowded(3);
        let lines = drawn(&snap, 5, Some(1), false);
        assert!(lines[1].starts_with(" p0 "), "{lines:?}");
        assert!(lines[2].starts_with("▸p1 "), "{lines:?}");
        assert!(lines[3].starts_with(" c0 "), "{lines:?}");
        assert!(lines[4].starts_with(" +2 more consumers"), "{lines:?}");
        // No row for a consumer: the title counts them.
        let lines = drawn(&snap, 3, None, false);
        assert!(lines[0].contains("+3 consumer(s) not shown"), "{lines:?}");
        assert!(lines[1].starts_with(" p0 ") && lines[2].starts_with(" p1 "), "{lines:?}");
    }

    #[test]
    fn the_selected_producer_is_marked_by_glyph_and_style_and_in_ascii() {
        let snap = crowded(0);
        let ascii = drawn(&snap, 3, Some(0), true);
        assert!(ascii[1].starts_with(">p0 ") && ascii[2].starts_with(" p1 "), "{ascii:?}");
        let line = compact_line(&snap.producers[0], true, Theme::new(false), 80);
        let style = line.spans[0].style;
        assert!(style.add_modifier.contains(ratatui::style::Modifier::REVERSED), "{style:?}");
        let full = full_lines(&snap.producers[1], true, Theme::new(false), 120);
        assert!(text(&full[0]).starts_with("▸producer 1 → "), "{}", text(&full[0]));
    }

    #[test]
    fn the_errors_line_names_unreachable_brokers() {
        let mut p = fixture::snapshot().producers.remove(0);
        let theme = Theme::new(false);
        assert!(!text(&errors_line(&p, theme, 120)).contains("unreachable"));
        p.unreachable = vec![0];
        assert_eq!(
            text(&errors_line(&p, theme, 120)),
            " errors: NOT_ENOUGH_REPLICAS 37  · broker 0 unreachable"
        );
        p.errors.clear();
        p.unreachable = vec![0, 2];
        assert_eq!(text(&errors_line(&p, theme, 120)), " errors: none  · brokers 0,2 unreachable");
    }

    #[test]
    fn at_80_columns_a_producer_keeps_its_counts_whole() {
        let mut p = fixture::snapshot().producers[0].clone();
        let theme = Theme::new(false);
        p.idempotent = false;
        (p.sent, p.acked, p.failed, p.pending) = (3_600_000, 3_599_000, 12_345, 1_000);
        let line = text(&compact_line(&p, false, theme, 80));
        assert!(line.chars().count() <= 80, "{line}");
        for count in ["sent 3600000", "acked 3599000", "failed 12345", "pending 1000"] {
            assert!(line.contains(count), "{count}: {line}");
        }
        assert!(!line.contains("idempotent"), "the settings gave way first: {line}");
        (p.sent, p.acked, p.failed, p.pending) = (12, 12, 0, 0);
        assert!(text(&compact_line(&p, false, theme, 80)).contains("not idempotent"));
    }

    /// As the counts grow, the producer line keeps saying it is idempotent: the spacing and
    /// the rate give way first.
    #[test]
    fn the_producer_line_keeps_idempotent_as_the_numbers_grow() {
        let mut p = fixture::snapshot().producers[0].clone();
        let theme = Theme::new(false);
        p.config.rate = 5000.0;
        for (sent, acked, failed, pending) in [
            (12, 12, 0, 0),
            (83_420, 82_050, 37, 1_370),
            (3_600_000, 3_599_000, 12_345, 1_000),
            (144_000_000, 143_999_000, 0, 1_000),
        ] {
            (p.sent, p.acked, p.failed, p.pending) = (sent, acked, failed, pending);
            let line = text(&compact_line(&p, false, theme, 80));
            assert!(line.chars().count() <= 80, "{line}");
            assert!(
                line.contains("acks=all idempotent ·") || line.contains("acks=all  idempotent ·"),
                "{line}"
            );
            for count in [format!("sent {sent}"), format!("acked {acked}"), format!("pending {pending}")] {
                assert!(line.contains(&count), "{count}: {line}");
            }
        }
        (p.sent, p.acked) = (12, 12);
        assert_eq!(
            text(&compact_line(&p, false, theme, 80)),
            " p0 5000/s  acks=all  idempotent · sent 12  acked 12  failed 0  pending 1000"
        );
        (p.sent, p.acked) = (3_600_000, 3_599_000);
        assert_eq!(
            text(&compact_line(&p, false, theme, 80)),
            " p0 acks=all idempotent · sent 3600000 acked 3599000 failed 0 pending 1000",
            "the rate went first"
        );
    }

    /// acks=0 records are sent, never acked: the producer counts them as `no ack`, and the
    /// cluster line counts those lost apart from acknowledged ones.
    #[test]
    fn acks_zero_records_are_counted_as_sent_without_acknowledgement() {
        let mut snap = fixture::snapshot();
        let theme = Theme::new(false);
        let p = &mut snap.producers[0];
        (p.sent, p.acked, p.unacked, p.failed, p.pending) = (500, 200, 299, 0, 1);
        p.config.acks = crate::sim::Acks::Zero;
        let line = text(&Line::from(counts(p, theme, false)));
        assert_eq!(line, " sent 500  acked 200  no ack 299  failed 0  pending 1");
        assert!(text(&cluster_line(&snap, theme, 120)).ends_with("sent without acknowledgement, lost 0"));
        snap.unacked_lost = 7;
        assert_eq!(
            text(&cluster_line(&snap, theme, 120)),
            " cluster: acked lost 0  duplicates 0  sent without acknowledgement, lost 7"
        );
        assert!(text(&cluster_line(&snap, theme, 60)).ends_with("  no-ack lost 7"));
        let title: String = compact_title(&snap, theme, 0, 80).iter().map(|s| s.content.as_ref()).collect();
        assert!(title.starts_with(" Clients · acked lost 0 · no-ack lost 7 "), "{title}");
        snap.producers[0].unacked = 0;
        snap.unacked_lost = 0;
        assert!(!text(&cluster_line(&snap, theme, 120)).contains("acknowledgement"));
    }

    /// Issue 9: at 80 columns the full form's errors line gives way by whole entries.
    #[test]
    fn the_errors_line_never_cuts_a_count() {
        let mut p = fixture::snapshot().producers[0].clone();
        let theme = Theme::new(false);
        p.errors = [
            ("NETWORK_EXCEPTION", 3),
            ("NOT_LEADER_OR_FOLLOWER", 5),
            ("OUT_OF_ORDER_SEQUENCE_NUMBER", 1),
            ("REQUEST_TIMED_OUT", 12),
        ]
        .into_iter()
        .map(|(name, n)| (name.into(), n))
        .collect();
        let line = text(&errors_line(&p, theme, 80));
        assert!(line.chars().count() <= 80, "{line}");
        assert_eq!(line, " errors: NETWORK_EXCEPTION 3, NOT_LEADER_OR_FOLLOWER 5, +2 more");
        assert!(line.ends_with(" more"), "{line}");
        assert!(!line.contains("REQUEST_TIMED_OUT"), "the last entry gave way whole: {line}");
        assert!(text(&errors_line(&p, theme, 200)).ends_with("REQUEST_TIMED_OUT 12"));
    }

    #[test]
    fn the_compact_title_counts_the_errors_it_has_no_room_for() {
        let list: Vec<String> = ["NETWORK_EXCEPTION 12", "NOT_LEADER_OR_FOLLOWER 40", "REQUEST_TIMED_OUT 3"]
            .map(String::from)
            .into();
        assert_eq!(
            whole_errors(&list, 80),
            "· errors: NETWORK_EXCEPTION 12, NOT_LEADER_OR_FOLLOWER 40, REQUEST_TIMED_OUT 3 "
        );
        assert_eq!(whole_errors(&list, 50), "· errors: NETWORK_EXCEPTION 12, +2 more ");
        assert_eq!(whole_errors(&list, 20), "· errors: +3 more ");
        assert_eq!(whole_errors(&list, 5), "· errors: 3 ");
    }
}
