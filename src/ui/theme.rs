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
    /// Offsets the replica does not have.
    pub const MISSING: char = '·';
    /// Running sim time.
    pub const RUNNING: &str = "▶";
    /// Paused sim time.
    pub const PAUSED: &str = "⏸";
    /// Sim time that reached the end of the scenario.
    pub const ENDED: &str = "⏹";
}

/// The dashboard's palette; with colour off every style keeps only its modifiers.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Theme {
    color: bool,
}

impl Theme {
    /// Colour unless the `NO_COLOR` environment variable is set to a non-empty value
    /// (<https://no-color.org>).
    pub fn from_env() -> Theme {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Theme { color: !no_color }
    }

    /// A theme with colour on or off.
    pub const fn new(color: bool) -> Theme {
        Theme { color }
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
        self.fg(Color::Green)
    }

    /// Something degraded: under-replicated, lagging, fenced.
    pub fn warn(self) -> Style {
        self.fg(Color::Yellow)
    }

    /// Something broken: crashed, offline, refused, lost.
    pub fn bad(self) -> Style {
        self.fg(Color::Red)
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
        self.fg(Color::Green)
    }

    /// Uncommitted part of a log bar.
    pub fn uncommitted(self) -> Style {
        self.fg(Color::Yellow)
    }

    /// Committed records of the leader epoch with shade `class` (0–2, see
    /// [`glyph::COMMITTED_BY_EPOCH`]).
    pub fn committed_in(self, class: usize) -> Style {
        self.fg([Color::Green, Color::LightGreen, Color::Cyan][class % 3])
    }

    /// Records above the HW of the leader epoch with shade `class` (0–2).
    pub fn uncommitted_in(self, class: usize) -> Style {
        self.fg([Color::Yellow, Color::LightYellow, Color::LightMagenta][class % 3])
    }

    /// Records truncated away: struck out, so they read as gone without colour too.
    pub fn truncated(self) -> Style {
        self.bad().add_modifier(Modifier::CROSSED_OUT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_colour_no_style_sets_a_colour() {
        let t = Theme::new(false);
        for s in [t.good(), t.warn(), t.bad(), t.alarm(), t.muted(), t.title(), t.key(), t.committed()] {
            assert_eq!(s.fg, None);
            assert_eq!(s.bg, None);
        }
    }
}
