//! A cell buffer as an SVG picture: a background rectangle per run of cells with one
//! background colour, and a `<text>` per run of cells with one look (colour, bold, italic,
//! dim, underlined, crossed out), stretched to its cells' width (`textLength`) so the columns
//! line up in any monospace font.

use super::cells::{self, BACKGROUND, Look, Rgb};
use ratatui::buffer::Buffer;
use std::fmt::Write;

/// Width of a cell (px).
pub const CELL_WIDTH: u32 = 9;
/// Height of a cell (px).
pub const CELL_HEIGHT: u32 = 18;
/// Font size (px).
const FONT_SIZE: u32 = 15;
/// The baseline's distance from a row's top (px).
const BASELINE: u32 = 14;
/// The fonts asked for, best first.
pub const FONTS: &str = "'DejaVu Sans Mono', 'Menlo', 'Consolas', 'Liberation Mono', monospace";

/// `text` with XML's special characters escaped.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// A run of visible cells of one look in a row.
struct Run {
    x: u16,
    width: u16,
    text: String,
    look: Look,
}

/// The runs of row `y`: neighbouring visible cells with the same look join.
fn runs(buf: &Buffer, y: u16) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    for cell in cells::row(buf, y) {
        let look = cells::look(cell.cell);
        match runs.last_mut() {
            Some(run) if run.look == look => {
                run.text.push_str(&cell.symbol);
                run.width += cell.width;
            }
            _ => runs.push(Run { x: cell.x, width: cell.width, text: cell.symbol, look }),
        }
    }
    runs
}

/// `buf` as a standalone SVG document titled `title`.
pub fn screen(buf: &Buffer, title: &str) -> String {
    let (w, h) = (u32::from(buf.area.width) * CELL_WIDTH, u32::from(buf.area.height) * CELL_HEIGHT);
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="{FONTS}" font-size="{FONT_SIZE}">"#
    );
    let _ = writeln!(out, "<title>{}</title>", escape(title));
    let _ = writeln!(out, r#"<rect width="{w}" height="{h}" fill="{}"/>"#, BACKGROUND.hex());
    let rows: Vec<Vec<Run>> = (0..buf.area.height).map(|y| runs(buf, y)).collect();
    out.push_str("<g shape-rendering=\"crispEdges\">\n");
    for (y, row) in rows.iter().enumerate() {
        let top = y as u32 * CELL_HEIGHT;
        // Neighbouring runs with one background share a rectangle.
        let mut spans: Vec<(u16, u16, Rgb)> = Vec::new();
        for run in row {
            match spans.last_mut() {
                Some((_, width, bg)) if *bg == run.look.bg => *width += run.width,
                _ => spans.push((run.x, run.width, run.look.bg)),
            }
        }
        for (x, width, bg) in spans.into_iter().filter(|(_, _, bg)| *bg != BACKGROUND) {
            let _ = writeln!(
                out,
                r#"<rect x="{}" y="{top}" width="{}" height="{CELL_HEIGHT}" fill="{}"/>"#,
                u32::from(x) * CELL_WIDTH,
                u32::from(width) * CELL_WIDTH,
                bg.hex()
            );
        }
    }
    out.push_str("</g>\n<g xml:space=\"preserve\">\n");
    for (y, row) in rows.iter().enumerate() {
        let baseline = y as u32 * CELL_HEIGHT + BASELINE;
        for run in row {
            let decorated = run.look.underlined || run.look.crossed_out;
            if run.text.trim().is_empty() && !decorated {
                continue;
            }
            let mut attrs = format!(r#" fill="{}""#, run.look.fg.hex());
            if run.look.bold {
                attrs.push_str(r#" font-weight="bold""#);
            }
            if run.look.italic {
                attrs.push_str(r#" font-style="italic""#);
            }
            if run.look.dim {
                attrs.push_str(r#" opacity="0.6""#);
            }
            let lines: Vec<&str> =
                [(run.look.underlined, "underline"), (run.look.crossed_out, "line-through")]
                    .into_iter()
                    .filter_map(|(on, name)| on.then_some(name))
                    .collect();
            if !lines.is_empty() {
                let _ = write!(attrs, r#" text-decoration="{}""#, lines.join(" "));
            }
            let _ = writeln!(
                out,
                r#"<text x="{}" y="{baseline}" textLength="{}" lengthAdjust="spacingAndGlyphs"{attrs}>{}</text>"#,
                u32::from(run.x) * CELL_WIDTH,
                u32::from(run.width) * CELL_WIDTH,
                escape(&run.text)
            );
        }
    }
    out.push_str("</g>\n</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::{Color, Modifier, Style};

    #[test]
    fn runs_keep_colours_and_bold_and_escape_text() {
        let mut buf = Buffer::with_lines(["a<b & c  "]);
        buf.set_style(
            ratatui::layout::Rect::new(0, 0, 3, 1),
            Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
        );
        buf.set_style(ratatui::layout::Rect::new(6, 0, 2, 1), Style::new().bg(Color::Blue));
        let svg = screen(&buf, "t & u");
        assert!(svg.contains("<title>t &amp; u</title>"), "{svg}");
        assert!(svg.contains(r##"fill="#c50f1f" font-weight="bold">a&lt;b</text>"##), "{svg}");
        assert!(svg.contains(r##"<rect x="54" y="0" width="18" height="18" fill="#0037da"/>"##), "{svg}");
        assert!(svg.contains("> &amp; </text>"), "{svg}");
        assert!(svg.contains(">c </text>"), "{svg}");
    }
}
