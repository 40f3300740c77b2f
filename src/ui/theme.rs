//! Styles and glyphs. Colour only ever doubles a signal that a glyph or a word already gives,
//! so the screen reads the same with `NO_COLOR` set (then no colour is used at all; bold,
//! dim and reverse remain).

use ratatui::style::{Color, Modifier, Style};

/// Glyphs that carry meaning on their own, without colour.
pub mod glyph {
    /// A running broker.
    pub const UP: &str = "●";
    /// A crashed broker or a replica on a broker that is down.
    pub const DOWN: &str = "✖";
    /// A broker stopped after a controlled shutdown.
    pub const STOPPED: &str = "■";
    /// A broker in controlled shutdown.
    pub const SHUTTING_DOWN: &str = "◐";
    /// A replica in the ISR.
    pub const IN_ISR: &str = "✔";
    /// A replica outside the ISR.
    pub const OUT_OF_ISR: &str = "✗";
    /// The selection marker.
    pub const SELECTED: &str = "▸";
    /// Log records at or below the HW (committed).
    pub const COMMITTED: char = COMMITTED_BY_EPOCH[0];
    /// Log records above the HW (not yet committed).
    pub const UNCOMMITTED: char = UNCOMMITTED_BY_EPOCH[0];
    /// Committed records by leader epoch: the epochs of a partition take these in turn, so
    /// neighbouring epochs differ without colour.
    pub const COMMITTED_BY_EPOCH: [char; 3] = ['█', '▓', '▆'];
    /// Records above the HW by leader epoch, as [`COMMITTED_BY_EPOCH`].
    pub const UNCOMMITTED_BY_EPOCH: [char; 3] = ['▒', '░', '▂'];
    /// Records a replica truncated away a moment ago (struck out as well).
    pub const TRUNCATED: char = '╳';
    /// Truncated records that had been acknowledged to a producer: acknowledged and lost.
    pub const TRUNCATED_ACKED: char = '✘';
    /// Offsets the replica does not have.
    pub const MISSING: char = '·';
    /// Running sim time.
    pub const RUNNING: &str = "▶";
    /// Paused sim time.
    pub const PAUSED: &str = "⏸";
    /// Sim time that reached the end of the scenario.
    pub const ENDED: &str = "⏹";
}

/// The colours of the three signal levels.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, clap::ValueEnum)]
pub enum Palette {
    /// Green, yellow, red.
    #[default]
    Standard,
    /// Blue, orange, vermillion, from the Okabe–Ito set, which readers with red–green colour
    /// blindness (deuteranopia, protanopia) tell apart.
    ColorBlind,
}

/// The dashboard's palette; with colour off every style keeps only its modifiers.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Theme {
    color: bool,
    palette: Palette,
    ascii: bool,
}

impl Theme {
    /// Colour unless the `NO_COLOR` environment variable is set to a non-empty value
    /// (<https://no-color.org>).
    pub fn from_env() -> Theme {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Theme::new(!no_color)
    }

    /// A theme with colour on or off, the standard palette, Unicode glyphs.
    pub const fn new(color: bool) -> Theme {
        Theme { color, palette: Palette::Standard, ascii: false }
    }

    /// The same theme with another palette.
    pub const fn with_palette(self, palette: Palette) -> Theme {
        Theme { palette, ..self }
    }

    /// The same theme drawing only ASCII (`--ascii`): every other character is replaced
    /// when the frame is drawn (see [`super::ascii`]).
    pub const fn with_ascii(self, ascii: bool) -> Theme {
        Theme { ascii, ..self }
    }

    /// Whether the screen is drawn in ASCII only.
    pub const fn ascii(self) -> bool {
        self.ascii
    }

    /// The palette in use.
    pub const fn palette(self) -> Palette {
        self.palette
    }

    /// The colour of a healthy, a degraded and a broken thing.
    const fn levels(self) -> [Color; 3] {
        match self.palette {
            Palette::Standard => [Color::Green, Color::Yellow, Color::Red],
            Palette::ColorBlind => [Color::Rgb(0, 114, 178), Color::Rgb(230, 159, 0), Color::Rgb(213, 94, 0)],
        }
    }

    /// Whether colours are used.
    pub const fn has_color(self) -> bool {
        self.color
    }

    fn fg(self, color: Color) -> Style {
        if self.color { Style::new().fg(color) } else { Style::new() }
    }

    /// Plain text.
    pub fn normal(self) -> Style {
        Style::new()
    }

    /// Something healthy: up brokers, `ok` partitions, zero loss.
    pub fn good(self) -> Style {
        self.fg(self.levels()[0])
    }

    /// Something degraded: under-replicated, lagging, fenced.
    pub fn warn(self) -> Style {
        self.fg(self.levels()[1])
    }

    /// Something broken: crashed, offline, refused, lost.
    pub fn bad(self) -> Style {
        self.fg(self.levels()[2])
    }

    /// The loudest signal on screen: acknowledged records lost.
    pub fn alarm(self) -> Style {
        let style = self.bad().add_modifier(Modifier::BOLD);
        if self.color { style } else { style.add_modifier(Modifier::REVERSED) }
    }

    /// Secondary text: timestamps, labels, absent data.
    pub fn muted(self) -> Style {
        if self.color { self.fg(Color::DarkGray) } else { Style::new().add_modifier(Modifier::DIM) }
    }

    /// Pane titles and table headers.
    pub fn title(self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    /// Keys in the footer and help.
    pub fn key(self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    /// Narration's `` `code` ``: a command, property or value.
    pub fn code(self) -> Style {
        self.fg(Color::Cyan)
    }

    /// The selected row or broker.
    pub fn selected(self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED)
    }

    /// The program name in the header.
    pub fn brand(self) -> Style {
        self.fg(Color::Magenta).add_modifier(Modifier::BOLD)
    }

    /// A leader replica.
    pub fn leader(self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }

    /// Committed part of a log bar.
    pub fn committed(self) -> Style {
        self.fg(self.levels()[0])
    }

    /// Uncommitted part of a log bar.
    pub fn uncommitted(self) -> Style {
        self.fg(self.levels()[1])
    }

    /// Committed records of the leader epoch with shade `class` (0–2, see
    /// [`glyph::COMMITTED_BY_EPOCH`]); shade 0 is [`Theme::committed`]'s colour.
    pub fn committed_in(self, class: usize) -> Style {
        let shades = match self.palette {
            Palette::Standard => [Color::Green, Color::LightGreen, Color::Cyan],
            // Okabe–Ito blue, sky blue and bluish green.
            Palette::ColorBlind => [self.levels()[0], Color::Rgb(86, 180, 233), Color::Rgb(0, 158, 115)],
        };
        self.fg(shades[class % 3])
    }

    /// Records above the HW of the leader epoch with shade `class` (0–2); shade 0 is
    /// [`Theme::uncommitted`]'s colour.
    pub fn uncommitted_in(self, class: usize) -> Style {
        let shades = match self.palette {
            Palette::Standard => [Color::Yellow, Color::LightYellow, Color::LightMagenta],
            // Okabe–Ito orange, yellow and reddish purple.
            Palette::ColorBlind => [self.levels()[1], Color::Rgb(240, 228, 66), Color::Rgb(204, 121, 167)],
        };
        self.fg(shades[class % 3])
    }

    /// Records truncated away: struck out, so they read as gone without colour too.
    pub fn truncated(self) -> Style {
        self.bad().add_modifier(Modifier::CROSSED_OUT)
    }

    /// Truncated records that had been acknowledged: struck out, in the loss alarm's style.
    pub fn truncated_acked(self) -> Style {
        self.alarm().add_modifier(Modifier::CROSSED_OUT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_colour_no_style_sets_a_colour() {
        let t = Theme::new(false);
        let epochs = (0..3).flat_map(|c| [t.committed_in(c), t.uncommitted_in(c), t.truncated()]);
        for s in [t.good(), t.warn(), t.bad(), t.alarm(), t.muted(), t.title(), t.key(), t.committed()]
            .into_iter()
            .chain(epochs)
        {
            assert_eq!(s.fg, None);
            assert_eq!(s.bg, None);
        }
    }

    #[test]
    fn the_colour_blind_palette_avoids_red_and_green() {
        let t = Theme::new(true).with_palette(Palette::ColorBlind);
        let epochs = (0..3).flat_map(|c| [t.committed_in(c), t.uncommitted_in(c)]);
        for s in [t.good(), t.warn(), t.bad(), t.committed(), t.uncommitted()].into_iter().chain(epochs) {
            assert!(!matches!(s.fg, Some(Color::Red | Color::Green | Color::LightRed | Color::LightGreen)));
        }
        assert_ne!(t.good().fg, t.bad().fg);
        assert_ne!(t.warn().fg, t.bad().fg);
    }
}
