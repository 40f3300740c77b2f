//! An asciicast v2 recording (the format asciinema's player reads): a JSON header line with
//! `version`, `width`, `height` and `title`, then one `[time, "o", data]` line per frame, the
//! time in seconds of sim time (a cast plays at 1×) and the data the ANSI text that turns the
//! previous frame into this one: each changed row redrawn in full, with SGR colours and
//! attributes. The header has no `timestamp`, so the same run gives the same file.

use super::cells::{self, ansi_index};
use ratatui::buffer::{Buffer, Cell};
use ratatui::style::{Color, Modifier};
use serde_json::json;
use std::fmt::Write;

/// The header line.
pub fn header(width: u16, height: u16, title: &str) -> String {
    json!({ "version": 2, "width": width, "height": height, "title": title, "env": { "TERM": "xterm-256color" } })
        .to_string()
}

/// The event line of a frame at `seconds` showing `data`.
pub fn event(seconds: f64, data: &str) -> String {
    // Milliseconds are enough for a player, and keep the number short.
    let t = (seconds * 1000.0).round() / 1000.0;
    json!([t, "o", data]).to_string()
}

/// The SGR parameters of a colour, `base` 30 for the text, 40 for the background.
fn colour(c: Color, base: u8) -> String {
    match c {
        Color::Reset => (base + 9).to_string(),
        Color::Rgb(r, g, b) => format!("{};2;{r};{g};{b}", base + 8),
        Color::Indexed(i) => format!("{};5;{i}", base + 8),
        named => match ansi_index(named) {
            Some(i) if i < 8 => (base + i).to_string(),
            Some(i) => (base + 60 + i - 8).to_string(),
            None => (base + 9).to_string(),
        },
    }
}

/// The escape sequence that sets `cell`'s style from a reset.
fn sgr(cell: &Cell) -> String {
    let mut p = vec!["0".to_string()];
    for (m, code) in [
        (Modifier::BOLD, "1"),
        (Modifier::DIM, "2"),
        (Modifier::ITALIC, "3"),
        (Modifier::UNDERLINED, "4"),
        (Modifier::REVERSED, "7"),
        (Modifier::CROSSED_OUT, "9"),
    ] {
        if cell.modifier.contains(m) {
            p.push(code.into());
        }
    }
    p.push(colour(cell.fg, 30));
    p.push(colour(cell.bg, 40));
    format!("\x1b[{}m", p.join(";"))
}

/// Row `y` of `buf` as ANSI text from its first column, styles changing only where they do.
fn row(buf: &Buffer, y: u16) -> String {
    let mut out = format!("\x1b[{};1H", y + 1);
    let mut style = String::new();
    for cell in cells::row(buf, y) {
        let s = sgr(cell.cell);
        if s != style {
            out.push_str(&s);
            style = s;
        }
        out.push_str(&cell.symbol);
    }
    out.push_str("\x1b[0m");
    out
}

/// The ANSI text that turns the screen `before` (`None`: a blank terminal) into `after`:
/// the rows that differ, each redrawn whole; empty when nothing changed.
pub fn frame(before: Option<&Buffer>, after: &Buffer) -> String {
    let mut out = String::new();
    if before.is_none() {
        // Hide the cursor and clear the screen.
        out.push_str("\x1b[?25l\x1b[2J");
    }
    let width = after.area.width as usize;
    for y in 0..after.area.height {
        let cells = |b: &Buffer| {
            let start = y as usize * width;
            b.content()[start..start + width].to_vec()
        };
        if before.is_none_or(|b| b.area != after.area || cells(b) != cells(after)) {
            let _ = write!(out, "{}", row(after, y));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::Style;

    #[test]
    fn the_header_and_events_are_asciicast_v2_json() {
        let h: serde_json::Value = serde_json::from_str(&header(80, 24, "a \"b\"")).unwrap();
        assert_eq!(
            (h["version"].as_u64(), h["width"].as_u64(), h["height"].as_u64()),
            (Some(2), Some(80), Some(24))
        );
        assert_eq!(h["title"], "a \"b\"");
        assert_eq!(event(1.23456, "\x1b[1mx"), r#"[1.235,"o","\u001b[1mx"]"#);
    }

    #[test]
    fn a_frame_redraws_only_changed_rows_with_their_colours() {
        let before = Buffer::with_lines(["ab", "cd"]);
        let mut after = before.clone();
        after.set_string(0, 1, "x", Style::new().fg(Color::Green).add_modifier(Modifier::BOLD));
        let first = frame(None, &before);
        assert!(first.starts_with("\x1b[?25l\x1b[2J\x1b[1;1H\x1b[0;39;49mab\x1b[0m\x1b[2;1H"), "{first:?}");
        let next = frame(Some(&before), &after);
        assert_eq!(next, "\x1b[2;1H\x1b[0;1;32;49mx\x1b[0;39;49md\x1b[0m");
        assert_eq!(frame(Some(&after), &after), "");
        assert_eq!(colour(Color::LightRed, 30), "91");
        assert_eq!(colour(Color::Rgb(1, 2, 3), 40), "48;2;1;2;3");
    }
}
