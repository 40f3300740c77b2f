//! `--ascii`: the finished frame is rewritten so that every cell holds one ASCII character.
//! Terminals and fonts disagree on the width of symbols such as `✔` or `⏸`; ASCII has one
//! width everywhere. Doing it on the frame, not in each pane, means no pane can forget it.

use ratatui::buffer::Buffer;

/// The ASCII stand-in for a symbol. Each stand-in keeps the symbol's meaning apart from the
/// others on screen: `+` in the ISR, `x` out of it, `X` down, `#` `%` `@` committed and `:`
/// `;` `,` above HW (by leader epoch, as `█▓▆` and `▒░▂`), `/` truncated. A warning `⚠`
/// becomes `!` and the ISR timer `⏱` becomes `t` (`1:t22s`, as the header writes `t=` for
/// the sim time). No symbol the dashboard prints becomes `?`, which would read as "unknown"
/// (and is the help key); [`UNKNOWN`] is left only for a symbol nobody planned for.
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
        "⚠" => "!",
        "⏱" => "t",
        "○" => "O",
        "μ" => "u",
        // The sparklines' lower bars (`▂`, `▆` and `█` are above).
        "▁" => "_",
        "▃" | "▄" => "=",
        "▅" | "▇" => "#",
        _ => UNKNOWN,
    }
}

/// The stand-in of a symbol [`stand_in`] does not know.
pub const UNKNOWN: &str = "?";

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

    /// Every non-ASCII character the program's own code can print (string and char literals
    /// outside comments and tests, in every layer: events, errors and panes alike) has a
    /// stand-in other than `?`.
    #[test]
    fn no_printed_symbol_becomes_a_question_mark() {
        let mut files = Vec::new();
        sources(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut files);
        let mut unknown = std::collections::BTreeMap::new();
        for path in files {
            let text = std::fs::read_to_string(&path).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
                for c in line.chars().filter(|c| !c.is_ascii()) {
                    if stand_in(c.encode_utf8(&mut [0; 4])) == UNKNOWN {
                        unknown.entry(c).or_insert_with(|| path.display().to_string());
                    }
                }
            }
        }
        assert!(unknown.is_empty(), "symbols with no ASCII stand-in: {unknown:?}");
        for symbol in ["⚠", "⏱", "ℹ", "▁", "▃", "▄", "▅", "▇", "○"] {
            assert_ne!(stand_in(symbol), UNKNOWN, "{symbol}");
        }
        assert_eq!((stand_in("⚠"), stand_in("⏱")), ("!", "t"));
    }

    /// The `.rs` files under `dir` that are not tests, in path order.
    fn sources(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for path in entries {
            let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
            if path.is_dir() {
                sources(&path, out);
            } else if name.ends_with(".rs") && !name.contains("tests") && name != "fixture.rs" {
                out.push(path);
            }
        }
    }

    /// Every screen of every view, at the size with charts, drawn with `--ascii`: no cell
    /// reads `?` unless the Unicode frame had a `?` there (the widgets' own symbols, such as
    /// the sparklines' bars, included).
    #[test]
    fn no_cell_of_any_view_becomes_a_question_mark() {
        use crate::ui::app::{Model, Msg, View, update};
        use crate::ui::theme::Theme;
        use ratatui::Terminal;
        use ratatui::backend::TestBackend;
        let snap = crate::ui::fixture::snapshot();
        for view in View::ALL {
            for (w, h) in [(80, 24), (200, 60)] {
                let mut model = Model::new(1.0, Theme::new(false), &snap);
                update(&mut model, Msg::Resize(w, h), &snap);
                model.view = view;
                let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
                terminal.draw(|f| crate::ui::view::view(&model, &snap, f)).unwrap();
                let plain = terminal.backend().buffer().clone();
                model.theme = model.theme.with_ascii(true);
                terminal.draw(|f| crate::ui::view::view(&model, &snap, f)).unwrap();
                let ascii = terminal.backend().buffer();
                for (i, (a, u)) in ascii.content.iter().zip(&plain.content).enumerate() {
                    assert!(
                        a.symbol() != "?" || u.symbol() == "?",
                        "{view:?} {w}x{h}: `{}` at cell {i} became `?`",
                        u.symbol()
                    );
                }
            }
        }
    }
}
