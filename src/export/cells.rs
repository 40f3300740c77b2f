//! What an exported screen needs to know of a cell buffer: the visible cells of a row (a
//! double-width symbol hides the cell after it), their styles resolved to colours, and the
//! terminal palette those colours are drawn in (Windows Terminal's "Campbell" scheme, readable
//! on a projector).

use ratatui::buffer::{Buffer, Cell};
use ratatui::style::{Color, Modifier};
use ratatui::text::Span;

/// The screen's background where a cell sets none.
pub const BACKGROUND: Rgb = Rgb(0x0c, 0x0c, 0x0c);
/// The text colour where a cell sets none.
pub const FOREGROUND: Rgb = Rgb(0xcc, 0xcc, 0xcc);

/// A colour as red, green and blue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// `#rrggbb`.
    pub fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }
}

/// The 16 ANSI colours: black, red, green, yellow, blue, magenta, cyan, white (ratatui's
/// `Gray`), then their bright forms (`DarkGray` to `White`).
const ANSI: [Rgb; 16] = [
    Rgb(0x0c, 0x0c, 0x0c),
    Rgb(0xc5, 0x0f, 0x1f),
    Rgb(0x13, 0xa1, 0x0e),
    Rgb(0xc1, 0x9c, 0x00),
    Rgb(0x00, 0x37, 0xda),
    Rgb(0x88, 0x17, 0x98),
    Rgb(0x3a, 0x96, 0xdd),
    Rgb(0xcc, 0xcc, 0xcc),
    Rgb(0x76, 0x76, 0x76),
    Rgb(0xe7, 0x48, 0x56),
    Rgb(0x16, 0xc6, 0x0c),
    Rgb(0xf9, 0xf1, 0xa5),
    Rgb(0x3b, 0x78, 0xff),
    Rgb(0xb4, 0x00, 0x9e),
    Rgb(0x61, 0xd6, 0xd6),
    Rgb(0xf2, 0xf2, 0xf2),
];

/// The index (0–15) of a named ANSI colour; `None` for `Reset`, indexed and RGB colours.
pub fn ansi_index(c: Color) -> Option<u8> {
    Some(match c {
        Color::Black => 0,
        Color::Red => 1,
        Color::Green => 2,
        Color::Yellow => 3,
        Color::Blue => 4,
        Color::Magenta => 5,
        Color::Cyan => 6,
        Color::Gray => 7,
        Color::DarkGray => 8,
        Color::LightRed => 9,
        Color::LightGreen => 10,
        Color::LightYellow => 11,
        Color::LightBlue => 12,
        Color::LightMagenta => 13,
        Color::LightCyan => 14,
        Color::White => 15,
        _ => return None,
    })
}

/// The xterm 256-colour palette: the 16 ANSI colours, the 6×6×6 cube, 24 greys.
fn indexed(i: u8) -> Rgb {
    match i {
        0..=15 => ANSI[i as usize],
        16..=231 => {
            let n = i - 16;
            let level = |v: u8| if v == 0 { 0 } else { 55 + v * 40 };
            Rgb(level(n / 36), level(n / 6 % 6), level(n % 6))
        }
        _ => {
            let v = 8 + (i - 232) * 10;
            Rgb(v, v, v)
        }
    }
}

/// `c` as a colour, `default` for `Reset`.
pub fn rgb(c: Color, default: Rgb) -> Rgb {
    match c {
        Color::Reset => default,
        Color::Rgb(r, g, b) => Rgb(r, g, b),
        Color::Indexed(i) => indexed(i),
        named => ansi_index(named).map_or(default, |i| ANSI[i as usize]),
    }
}

/// How a run of cells looks once resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Look {
    /// Text colour (after `REVERSED`).
    pub fg: Rgb,
    /// Background colour (after `REVERSED`).
    pub bg: Rgb,
    /// `BOLD`.
    pub bold: bool,
    /// `DIM`.
    pub dim: bool,
    /// `ITALIC`.
    pub italic: bool,
    /// `UNDERLINED`.
    pub underlined: bool,
    /// `CROSSED_OUT`.
    pub crossed_out: bool,
}

/// A cell's look.
pub fn look(cell: &Cell) -> Look {
    let m = cell.modifier;
    let (mut fg, mut bg) = (rgb(cell.fg, FOREGROUND), rgb(cell.bg, BACKGROUND));
    if m.contains(Modifier::REVERSED) {
        std::mem::swap(&mut fg, &mut bg);
    }
    Look {
        fg,
        bg,
        bold: m.contains(Modifier::BOLD),
        dim: m.contains(Modifier::DIM),
        italic: m.contains(Modifier::ITALIC),
        underlined: m.contains(Modifier::UNDERLINED),
        crossed_out: m.contains(Modifier::CROSSED_OUT),
    }
}

/// A visible cell: its column, its symbol, how many columns it takes (1 or 2) and the cell.
pub struct Visible<'a> {
    /// Column, from 0.
    pub x: u16,
    /// What it shows (control characters made spaces).
    pub symbol: String,
    /// Columns it covers.
    pub width: u16,
    /// The cell, for its style.
    pub cell: &'a Cell,
}

/// The cells of row `y` that show, left to right: a cell after a double-width symbol is
/// hidden by it, as a terminal draws them.
pub fn row(buf: &Buffer, y: u16) -> Vec<Visible<'_>> {
    let width = buf.area.width;
    let mut out = Vec::with_capacity(width as usize);
    let mut x = 0;
    while x < width {
        let cell = &buf[(buf.area.x + x, buf.area.y + y)];
        let symbol: String = cell.symbol().chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
        let symbol = if symbol.is_empty() { " ".to_string() } else { symbol };
        let w = (Span::raw(symbol.as_str()).width() as u16).clamp(1, 2).min(width - x);
        out.push(Visible { x, symbol, width: w, cell });
        x += w;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_resolve_like_a_terminal() {
        assert_eq!(rgb(Color::Reset, FOREGROUND), FOREGROUND);
        assert_eq!(rgb(Color::Rgb(1, 2, 3), FOREGROUND), Rgb(1, 2, 3));
        assert_eq!(rgb(Color::Indexed(196), FOREGROUND), Rgb(255, 0, 0));
        assert_eq!(rgb(Color::Indexed(232), FOREGROUND), Rgb(8, 8, 8));
        assert_eq!(rgb(Color::Red, FOREGROUND), ANSI[1]);
        assert_eq!(Rgb(255, 0, 16).hex(), "#ff0010");
    }

    #[test]
    fn a_wide_symbol_hides_the_next_cell() {
        let buf = Buffer::with_lines(["a界b"]);
        let cells: Vec<(u16, String, u16)> =
            row(&buf, 0).into_iter().map(|c| (c.x, c.symbol, c.width)).collect();
        assert_eq!(cells, [(0, "a".into(), 1), (1, "界".into(), 2), (3, "b".into(), 1)]);
    }
}
