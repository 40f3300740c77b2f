//! The selected broker's replicas, marked wherever the partition table names them: in the
//! Replicas, ISR and LEO columns its id is bold and underlined, so the mark reads without
//! colour (`NO_COLOR`) and survives `--ascii` (which changes glyphs, not styles).

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::sim::BrokerId;

/// The style added to the selected broker's id.
pub const MARK: Modifier = Modifier::BOLD.union(Modifier::UNDERLINED);

/// The columns whose cells name brokers by id.
const BROKER_COLUMNS: [&str; 3] = ["Replicas", "ISR", "LEO by replica"];

/// Marks `broker`'s id in the cells of `rows` under the broker columns of `titles`.
pub fn mark_rows(rows: &mut [Vec<Line<'static>>], titles: &[Line<'static>], broker: Option<BrokerId>) {
    let Some(broker) = broker else { return };
    let id = broker.to_string();
    let columns: Vec<usize> = titles
        .iter()
        .enumerate()
        .filter(|(_, t)| BROKER_COLUMNS.contains(&t.to_string().trim()))
        .map(|(i, _)| i)
        .collect();
    for row in rows.iter_mut() {
        for &c in &columns {
            if let Some(cell) = row.get_mut(c) {
                *cell = mark_line(std::mem::take(cell), &id);
            }
        }
    }
}

/// Splits each span at the broker ids it names (a run of digits between separators, not an
/// offset after `:`) and styles those equal to `id` with [`MARK`].
pub fn mark_line(line: Line<'static>, id: &str) -> Line<'static> {
    let mut spans = Vec::with_capacity(line.spans.len() + 2);
    for span in line.spans {
        let text = span.content.to_string();
        let mut start = 0;
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if !bytes[i].is_ascii_digit() {
                i += 1;
                continue;
            }
            let run_start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            let before = text[..run_start].chars().next_back();
            let is_id = !matches!(before, Some(':')) && &text[run_start..i] == id;
            if is_id {
                if run_start > start {
                    spans.push(Span::styled(text[start..run_start].to_string(), span.style));
                }
                spans.push(Span::styled(text[run_start..i].to_string(), span.style.add_modifier(MARK)));
                start = i;
            }
        }
        if start == 0 {
            spans.push(span);
        } else if start < text.len() {
            spans.push(Span::styled(text[start..].to_string(), span.style));
        }
    }
    let mut out = Line::from(spans).style(line.style);
    out.alignment = line.alignment;
    out
}

/// Whether `style` carries the mark.
pub fn is_marked(style: Style) -> bool {
    style.add_modifier.contains(MARK)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marked(line: &Line) -> Vec<String> {
        line.spans.iter().filter(|s| is_marked(s.style)).map(|s| s.content.to_string()).collect()
    }

    #[test]
    fn the_id_is_marked_in_lists_and_before_a_colon_but_not_in_offsets() {
        let l = mark_line(Line::raw("2,0,1"), "0");
        assert_eq!(marked(&l), ["0"]);
        assert_eq!(l.to_string(), "2,0,1");
        let l = mark_line(Line::from(vec![Span::raw("0:1386"), Span::raw(" 1:1380 2:10✖")]), "1");
        assert_eq!(marked(&l), ["1"], "the 1 of 1386 and 1380 are offsets");
        assert_eq!(l.to_string(), "0:1386 1:1380 2:10✖");
        assert!(marked(&mark_line(Line::raw("10,11"), "1")).is_empty(), "10 is not broker 1");
    }
}
