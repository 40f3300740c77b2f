//! Small text helpers shared by the panes: durations, speeds, truncation and word wrap.
//! Widths count characters; every glyph the dashboard prints is one column wide.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::sim::Ms;

/// `one` for a count of 1, else `many`: `1 more row`, `3 more rows` ("↓1 more rows").
pub fn noun(n: u64, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 { one } else { many }
}

/// A sim speed as the header shows it: `1×`, `0.5×`, `20×`.
pub fn speed(s: f64) -> String {
    if (s - s.round()).abs() < 1e-9 {
        format!("{}×", s.round() as i64)
    } else if s >= 0.1 {
        format!("{s:.1}×")
    } else {
        format!("{s:.2}×")
    }
}

/// A past duration in whole units: `12s`, `3m05s`, `2h04m`.
pub fn duration(ms: Ms) -> String {
    let s = ms / 1000;
    match s {
        0..=119 => format!("{s}s"),
        120..=7199 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, (s / 60) % 60),
    }
}

/// A time still to go, rounded up to whole seconds so "0s" only shows when it is due.
pub fn countdown(ms: Ms) -> String {
    duration(ms.div_ceil(1000) * 1000)
}

/// Character count of a string.
pub fn width(s: &str) -> usize {
    s.chars().count()
}

/// The string cut to at most `max` characters, with `…` when something was cut.
pub fn truncate(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let mut out: String = s.chars().take(max - 1).collect();
    out.push('…');
    out
}

/// Word-wraps `s` into lines of at most `max` characters; words longer than a line are
/// split. Always returns at least one line.
pub fn wrap(s: &str, max: usize) -> Vec<String> {
    wrap_widths(s, max, max)
}

/// Word-wraps `s` with room for `first` characters on the first line and `rest` on every
/// other line. A word is split only when it is longer than a whole line, and the pieces of a
/// split word are never separated by a space; a word too long for the first line but not
/// for the others starts on the second line (the first stays empty). Always returns at
/// least one line.
pub fn wrap_widths(s: &str, first: usize, rest: usize) -> Vec<String> {
    let (first, rest) = (first.max(1), rest.max(1));
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in s.split(' ') {
        let mut word = word.to_string();
        loop {
            let room = if lines.is_empty() { first } else { rest };
            let sep = usize::from(!line.is_empty());
            if width(&line) + sep + width(&word) <= room {
                if sep == 1 {
                    line.push(' ');
                }
                line.push_str(&word);
                break;
            }
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
                continue;
            }
            if lines.is_empty() && width(&word) <= rest {
                // Too long for the first line only: keep it whole on the next one.
                lines.push(String::new());
                continue;
            }
            let head: String = word.chars().take(room).collect();
            word = word.chars().skip(room).collect();
            lines.push(head);
            if word.is_empty() {
                break;
            }
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// Word-wraps `s` into at most `max_lines` lines of at most `width` characters; when more
/// would be needed, the last line kept ends with `…`.
pub fn wrap_at_most(s: &str, width: usize, max_lines: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = wrap(s, width);
    if lines.len() > max_lines.max(1) {
        lines.truncate(max_lines.max(1));
        if let Some(last) = lines.last_mut() {
            let keep: String = last.chars().take(width - 1).collect();
            *last = format!("{keep}…");
        }
    }
    lines
}

/// The spans cut to at most `max` characters in all; when something was cut, the last
/// character shown is `…` (in the style of the text it replaces).
pub fn truncate_spans(spans: Vec<Span<'static>>, max: usize) -> Vec<Span<'static>> {
    let total: usize = spans.iter().map(|s| width(&s.content)).sum();
    if total <= max || max == 0 {
        return if max == 0 { Vec::new() } else { spans };
    }
    let mut out = Vec::new();
    let mut room = max - 1;
    for span in spans {
        let w = width(&span.content);
        if w <= room {
            room -= w;
            out.push(span);
            continue;
        }
        let head: String = span.content.chars().take(room).collect();
        out.push(Span::styled(format!("{head}…"), span.style));
        break;
    }
    out
}

/// `line` cut to `width` columns, ending in `…` when something was cut (its style and
/// alignment kept): what every pane does to a line before it is drawn, so no text is ever
/// cut by the terminal's edge without saying so.
pub fn fit(line: Line<'static>, width: usize) -> Line<'static> {
    if line.width() <= width {
        return line;
    }
    let Line { mut spans, style, alignment } = line;
    // Trailing spaces may fall off the edge: dropping them cuts nothing.
    while let Some(last) = spans.last_mut() {
        let kept = last.content.trim_end().len();
        if kept == last.content.len() {
            break;
        }
        if kept == 0 {
            spans.pop();
        } else {
            last.content = last.content[..kept].to_string().into();
            break;
        }
    }
    Line { spans: truncate_spans(spans, width), style, alignment }
}

/// The first `max` of `lines` (wrapped to `width`); when some were left out, the last one
/// kept ends with `…`, so a cut never passes for the end of the text.
pub fn at_most(mut lines: Vec<Line<'static>>, max: usize, width: usize) -> Vec<Line<'static>> {
    if lines.len() <= max {
        return lines;
    }
    lines.truncate(max);
    if let Some(last) = lines.last_mut() {
        let mut spans = std::mem::take(&mut last.spans);
        // A `…` after the text; where that would pass the width, the cut itself ends in it.
        spans.push(Span::raw("…"));
        last.spans = truncate_spans(spans, width.max(1));
    }
    lines
}

/// Every line of `lines` [`fit`] to `width`.
pub fn fit_all(lines: Vec<Line<'static>>, width: usize) -> Vec<Line<'static>> {
    lines.into_iter().map(|l| fit(l, width)).collect()
}

/// A pane's title [`fit`] to a pane `width` columns wide whose border is its top rule: the
/// rule keeps its last column, so the title never runs into the pane beside it.
pub fn fit_title(title: Line<'static>, width: u16) -> Line<'static> {
    fit(title, usize::from(width).saturating_sub(1))
}

/// `label` then `body` word-wrapped to `width`, continuation lines indented by `indent`.
pub fn hanging(
    label: Span<'static>,
    body: &str,
    style: Style,
    width: usize,
    indent: usize,
) -> Vec<Line<'static>> {
    let first_room = width.saturating_sub(label.width() + 1).max(10);
    let rest_room = width.saturating_sub(indent + 1).max(10);
    let mut parts = wrap_widths(body, first_room, rest_room).into_iter();
    let first = parts.next().unwrap_or_default();
    let mut lines = vec![Line::from(vec![label, Span::styled(first, style)])];
    for part in parts {
        lines.push(Line::from(vec![Span::raw(" ".repeat(indent)), Span::styled(part, style)]));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speeds_and_durations_read_naturally() {
        assert_eq!(speed(1.0), "1×");
        assert_eq!(speed(0.1), "0.1×");
        assert_eq!(speed(0.05), "0.05×");
        assert_eq!(speed(0.01), "0.01×");
        assert_eq!(speed(100.0), "100×");
        assert_eq!(duration(12_400), "12s");
        assert_eq!(duration(185_000), "3m05s");
        assert_eq!(countdown(11_200), "12s");
        assert_eq!(countdown(0), "0s");
    }

    #[test]
    fn wrap_keeps_words_and_splits_long_ones() {
        assert_eq!(wrap("broker 2 crashed", 9), vec!["broker 2", "crashed"]);
        assert_eq!(wrap("abcdefghij", 4), vec!["abcd", "efgh", "ij"]);
        assert_eq!(wrap("", 5), vec![""]);
        assert_eq!(truncate("test_repli-10", 6), "test_…");
        assert_eq!(wrap_at_most("a bb cc dd ee", 5, 2), vec!["a bb", "cc d…"]);
        assert_eq!(wrap_at_most("a bb", 5, 2), vec!["a bb"]);
    }

    #[test]
    fn words_are_split_only_when_longer_than_a_whole_line() {
        assert_eq!(wrap_widths("ab abcdefghijkl", 5, 5), vec!["ab", "abcde", "fghij", "kl"]);
        assert_eq!(
            wrap_widths("delivery.timeout.ms=120000; x", 10, 30),
            vec!["", "delivery.timeout.ms=120000; x"]
        );
        assert_eq!(wrap_widths("ab cdefghij", 4, 6), vec!["ab", "cdefgh", "ij"]);
        assert_eq!(wrap_widths("abcdefghij", 4, 8), vec!["abcd", "efghij"]);
        assert_eq!(wrap_widths("", 3, 9), vec![""]);
    }

    fn plain(lines: &[Line]) -> Vec<String> {
        lines.iter().map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect()).collect()
    }

    #[test]
    fn hanging_lines_keep_numbers_whole() {
        let label = Span::raw(" last error 00:02:45.0 ");
        let body = "TIMEOUT on t-0: 1 record(s) not acknowledged within delivery.timeout.ms=120000; \
                    the last attempt timed out";
        // From 31 columns on, a continuation line holds the 27-character setting whole.
        for width in 31..=100 {
            let lines = plain(&hanging(label.clone(), body, Style::new(), width, 3));
            let text = lines.join("\n");
            assert!(text.contains("delivery.timeout.ms=120000;"), "{width}:\n{text}");
            assert!(lines.iter().skip(1).all(|l| l.starts_with("   ")), "{width}:\n{text}");
            let words: Vec<&str> = lines.iter().flat_map(|l| l.split_whitespace()).collect();
            assert_eq!(words[3..].join(" "), body, "{width}: words lost or changed");
        }
        let lines = plain(&hanging(label, body, Style::new(), 48, 3));
        assert_eq!(
            lines,
            [
                " last error 00:02:45.0 TIMEOUT on t-0: 1",
                "   record(s) not acknowledged within",
                "   delivery.timeout.ms=120000; the last attempt",
                "   timed out",
            ]
        );
    }

    #[test]
    fn lines_left_out_leave_an_ellipsis() {
        let lines = || vec![Line::raw("one two"), Line::raw("three four"), Line::raw("five")];
        let kept: Vec<String> = at_most(lines(), 2, 20).iter().map(ToString::to_string).collect();
        assert_eq!(kept, ["one two", "three four…"]);
        let kept: Vec<String> = at_most(lines(), 2, 10).iter().map(ToString::to_string).collect();
        assert_eq!(kept, ["one two", "three fou…"], "the … stays within the width");
        assert_eq!(at_most(lines(), 3, 20), lines());
    }

    #[test]
    fn a_line_too_wide_is_cut_with_an_ellipsis_and_keeps_its_style() {
        let style = Style::new().add_modifier(ratatui::style::Modifier::BOLD);
        let line =
            Line::from(vec![Span::raw("Topic: "), Span::raw("test_repli")]).style(style).right_aligned();
        let cut = fit(line.clone(), 12);
        assert_eq!(cut.to_string(), "Topic: test…");
        assert_eq!((cut.style, cut.alignment), (style, line.alignment));
        assert_eq!(fit(line.clone(), 17), line, "a line that fits is kept");
        assert_eq!(fit_title(Line::raw(" Why · test_repli-0 "), 12).to_string(), " Why · tes…");
        let spaced = Line::from(vec![Span::raw(" ● p99"), Span::raw("  "), Span::raw(" ")]);
        assert_eq!(fit(spaced, 7).to_string(), " ● p99", "trailing spaces go before anything is cut");
    }

    #[test]
    fn spans_are_cut_with_an_ellipsis() {
        let spans = || vec![Span::raw("abc"), Span::raw("def")];
        let text = |v: Vec<Span<'static>>| v.iter().map(|s| s.content.to_string()).collect::<String>();
        assert_eq!(text(truncate_spans(spans(), 6)), "abcdef");
        assert_eq!(text(truncate_spans(spans(), 5)), "abcd…");
        assert_eq!(text(truncate_spans(spans(), 4)), "abc…");
        assert_eq!(text(truncate_spans(spans(), 1)), "…");
        assert_eq!(text(truncate_spans(spans(), 0)), "");
    }
}
