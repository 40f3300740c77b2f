//! `--ascii`: the finished frame is rewritten so that every cell holds one ASCII character.
//! Terminals and fonts disagree on the width of symbols such as `✔` or `⏸`; ASCII has one
//! width everywhere. Doing it on the frame, not in each pane, means no pane can forget it.

use ratatui::buffer::Buffer;

/// The ASCII stand-in for a symbol. Each stand-in keeps the symbol's meaning apart from the
/// others on screen: `+` in the ISR, `x` out of it, `X` down, `#` `%` `@` committed and `:`
/// `;` `,` above HW (by leader epoch, as `█▓▆` and `▒░▂`), `/` truncated.
pub fn stand_in(symbol: &str) -> &'static str {
    match symbol {
        "─" | "━" | "┄" | "╌" => "-",
        "│" | "┃" | "┆" => "|",
        "┌" | "┐" | "└" | "┘" | "├" | "┤" | "┬" | "┴" | "┼" | "╭" | "╮" | "╰" | "╯" => {
            "+"
        }
        "▸" | "▶" | "→" | "⇥" | "›" | "↳" => ">",
        "◂" | "←" | "‹" => "<",
        "↑" | "▲" => "^",
        "↓" | "▼" => "v",
        "✔" | "✓" => "+",
        "ℹ" => "i",
        "✗" | "×" => "x",
        "✖" => "X",
        "●" | "•" | "◆" => "o",
        "■" | "█" | "⏹" => "#",
        "▓" => "%",
        "▆" => "@",
        "◐" => "~",
        "▒" => ":",
        "░" => ";",
        "▂" => ",",
        "╳" => "/",
        "✘" => "!",
        "·" | "…" => ".",
        "⏸" => "=",
        "µ" => "u",
        "—" | "–" => "-",
        "≥" => ">",
        "≤" => "<",
        "≈" => "~",
        _ => "?",
    }
}

/// Replaces every non-ASCII cell of `buf` by its [`stand_in`]. A wide symbol's second cell
/// is blank already, so the stand-in keeps the layout.
pub fn transliterate(buf: &mut Buffer) {
    for cell in &mut buf.content {
        if !cell.symbol().is_ascii() {
            let ascii = stand_in(cell.symbol());
            cell.set_symbol(ascii);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;

    #[test]
    fn every_cell_becomes_ascii_and_meanings_stay_apart() {
        let mut buf = Buffer::empty(Rect::new(0, 0, 12, 1));
        buf.set_string(0, 0, "▸✔✗✖█▒·⏸─", ratatui::style::Style::new());
        transliterate(&mut buf);
        let text: String = buf.content.iter().map(|c| c.symbol()).collect();
        assert!(text.is_ascii());
        assert!(text.starts_with(">+xX#:.=-"), "{text}");
    }

    #[test]
    fn the_glyphs_that_carry_meaning_have_distinct_stand_ins() {
        use crate::ui::theme::glyph;
        let glyphs =
            [glyph::UP, glyph::DOWN, glyph::STOPPED, glyph::SHUTTING_DOWN, glyph::IN_ISR, glyph::OUT_OF_ISR];
        let mut seen: Vec<&str> = glyphs.iter().map(|g| stand_in(g)).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), glyphs.len());
        let bars = [glyph::COMMITTED, glyph::UNCOMMITTED, glyph::MISSING]
            .map(|c| stand_in(c.encode_utf8(&mut [0; 4])));
        assert!(bars[0] != bars[1] && bars[1] != bars[2] && bars[0] != bars[2]);
        // Every leader epoch's glyph, committed or not, and the truncated mark, stay apart.
        let strips: Vec<char> = glyph::COMMITTED_BY_EPOCH
            .into_iter()
            .chain(glyph::UNCOMMITTED_BY_EPOCH)
            .chain([glyph::MISSING, glyph::TRUNCATED, glyph::TRUNCATED_ACKED])
            .collect();
        let mut seen: Vec<&str> = strips.iter().map(|c| stand_in(c.encode_utf8(&mut [0; 4]))).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), strips.len(), "{seen:?}");
        assert!(!seen.contains(&"?"));
    }
}
