//! Markdown-light narration ([`crate::scenario::markup`]: `*emphasis*`, `**strong**`,
//! `` `code` ``) as ratatui lines: each marker becomes a style, words wrap to the width with
//! their styles across the break, and the text's own line breaks stay.

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::text;
use super::theme::Theme;
use crate::scenario::markup::{self, Style as Mark};

/// The ratatui style of a marked-up run on top of `base`.
pub fn style_of(mark: Mark, base: Style, theme: Theme) -> Style {
    match mark {
        Mark::Plain => base,
        Mark::Emphasis => base.add_modifier(Modifier::ITALIC),
        Mark::Strong => base.add_modifier(Modifier::BOLD),
        Mark::Code => base.patch(theme.code()),
    }
}

/// One word: its pieces, each in one style (a word may change style inside, as in
/// `` `acks`=all ``).
type Word = Vec<(Style, String)>;

/// The words of `text`, with `None` for a line break of the text itself.
fn words(text: &str, base: Style, theme: Theme) -> Vec<Option<Word>> {
    let runs = markup::parse(text)
        .unwrap_or_else(|_| vec![markup::Run { style: Mark::Plain, text: text.to_string() }]);
    let mut out: Vec<Option<Word>> = Vec::new();
    let mut word: Word = Vec::new();
    let flush = |word: &mut Word, out: &mut Vec<Option<Word>>| {
        if !word.is_empty() {
            out.push(Some(std::mem::take(word)));
        }
    };
    for run in runs {
        let style = style_of(run.style, base, theme);
        for c in run.text.chars() {
            match c {
                '\n' => {
                    flush(&mut word, &mut out);
                    out.push(None);
                }
                c if c.is_whitespace() => flush(&mut word, &mut out),
                c => match word.last_mut() {
                    Some((s, piece)) if *s == style => piece.push(c),
                    _ => word.push((style, c.to_string())),
                },
            }
        }
    }
    flush(&mut word, &mut out);
    out
}

fn word_width(word: &Word) -> usize {
    word.iter().map(|(_, s)| text::width(s)).sum()
}

/// `text` word-wrapped to `width` columns: the first line starts with `lead` (a label), the
/// others with `indent` spaces. A word longer than a line is cut across lines.
pub fn hanging(
    lead: Vec<Span<'static>>,
    body: &str,
    base: Style,
    theme: Theme,
    width: usize,
    indent: usize,
) -> Vec<Line<'static>> {
    let lead_w: usize = lead.iter().map(Span::width).sum();
    let mut lines: Vec<Line<'static>> = Vec::new();
    let mut spans = lead;
    let mut used = lead_w;
    let mut fresh = true;
    let new_line = |lines: &mut Vec<Line<'static>>, spans: &mut Vec<Span<'static>>, used: &mut usize| {
        lines.push(Line::from(std::mem::take(spans)));
        spans.push(Span::raw(" ".repeat(indent)));
        *used = indent;
    };
    let room = width.max(indent + 8);
    for word in words(body, base, theme) {
        let Some(word) = word else {
            new_line(&mut lines, &mut spans, &mut used);
            fresh = true;
            continue;
        };
        let w = word_width(&word);
        let gap = usize::from(!fresh);
        if used + gap + w > room && !fresh {
            new_line(&mut lines, &mut spans, &mut used);
        } else if gap == 1 {
            spans.push(Span::styled(" ", base));
            used += 1;
        }
        for (style, piece) in word {
            let mut rest = piece.as_str();
            while !rest.is_empty() {
                let left = room.saturating_sub(used).max(1);
                let cut = rest.char_indices().nth(left).map_or(rest.len(), |(i, _)| i);
                let (now, later) = rest.split_at(cut);
                spans.push(Span::styled(now.to_string(), style));
                used += text::width(now);
                rest = later;
                if !rest.is_empty() {
                    new_line(&mut lines, &mut spans, &mut used);
                }
            }
        }
        fresh = false;
    }
    lines.push(Line::from(spans));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect()).collect()
    }

    #[test]
    fn markers_become_styles_and_words_wrap_with_them() {
        let theme = Theme::new(false);
        let lines = hanging(
            vec![Span::raw(" 1 ")],
            "the **high watermark** of `t-0` is *two* rounds",
            Style::new(),
            theme,
            23,
            3,
        );
        assert_eq!(plain(&lines), [" 1 the high watermark", "   of t-0 is two rounds"]);
        let bold: Vec<&str> = lines
            .iter()
            .flat_map(|l| l.spans.iter())
            .filter(|s| s.style.add_modifier.contains(Modifier::BOLD))
            .map(|s| s.content.as_ref())
            .collect();
        assert_eq!(bold, ["high", "watermark"]);
        let italic = lines
            .iter()
            .flat_map(|l| l.spans.iter())
            .find(|s| s.style.add_modifier.contains(Modifier::ITALIC));
        assert_eq!(italic.map(|s| s.content.as_ref()), Some("two"));
    }

    #[test]
    fn the_texts_own_line_breaks_stay_and_long_words_are_cut() {
        let theme = Theme::new(false);
        let lines = hanging(Vec::new(), "one\ntwo abcdefghijklmnop", Style::new(), theme, 10, 1);
        assert_eq!(plain(&lines), ["one", " two", " abcdefghi", " jklmnop"]);
    }
}
