//! The command palette (`:`): a one-line editor with a small history, and its pane. The line
//! is parsed with [`crate::cluster::command::Command::parse`], the same grammar scenario
//! files and recorded sessions use.

use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::keymap::PaletteAction;
use super::text;
use super::theme::Theme;

/// How many commands the history keeps.
pub const HISTORY_LEN: usize = 50;

/// The palette's line, cursor and history.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Palette {
    input: String,
    /// Cursor position in characters.
    cursor: usize,
    history: Vec<String>,
    /// Which history entry is shown while browsing (`None` = the draft).
    browsing: Option<usize>,
    /// The line typed before browsing started.
    draft: String,
    /// Why the last submitted line was refused; shown under the line until the line is
    /// edited, the next submit, or the palette closes.
    error: Option<String>,
    /// No key was pressed since the refusal: a `:` now starts a fresh line (the user is
    /// typing a new command, not fixing this one).
    just_refused: bool,
    /// What the line starts with: `:` for commands (the default), e.g. `/` for a search.
    prefix: &'static str,
}

impl Palette {
    /// Starts a new line that shows `prefix` before it (e.g. `/`, `filter: `) and holds
    /// `text` with the cursor at its end.
    pub fn open_as(&mut self, prefix: &'static str, text: &str) {
        self.open();
        self.prefix = prefix;
        self.set_line(text.to_string());
    }

    /// What the line starts with (`:` unless [`Palette::open_as`] said otherwise).
    pub fn prefix(&self) -> &'static str {
        if self.prefix.is_empty() { ":" } else { self.prefix }
    }

    /// Starts a new, empty line (the history stays).
    pub fn open(&mut self) {
        self.set_line(String::new());
        self.browsing = None;
        self.error = None;
    }

    /// Why the last submitted line was refused, if it was.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// Records (or clears) why the submitted line was refused. The reason goes as soon as
    /// the line is edited, so it never describes a line that is no longer there.
    pub fn set_error(&mut self, error: Option<String>) {
        self.just_refused = error.is_some();
        self.error = error;
    }

    /// Opens the palette again on a refused `line` with the reason under it, to fix it.
    pub fn reopen_refused(&mut self, line: &str, why: String) {
        self.open();
        self.set_line(line.to_string());
        self.set_error(Some(why));
    }

    /// The current line.
    pub fn input(&self) -> &str {
        &self.input
    }

    /// The cursor position in characters.
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// The remembered commands, oldest first.
    pub fn history(&self) -> &[String] {
        &self.history
    }

    /// Types a character at the cursor; the line changed, so a refusal's reason goes. A `:`
    /// as the first key after a refusal starts a fresh, empty line instead.
    pub fn insert(&mut self, c: char) {
        let fresh = std::mem::take(&mut self.just_refused) && c == ':' && self.prefix() == ":";
        self.error = None;
        if fresh {
            self.set_line(String::new());
            return;
        }
        let at = self.byte_index(self.cursor);
        self.input.insert(at, c);
        self.cursor += 1;
    }

    /// Adds a command that ran to the history (a repeat of the last one is not stored twice).
    pub fn remember(&mut self, line: &str) {
        if self.history.last().map(String::as_str) != Some(line) {
            self.history.push(line.to_string());
        }
        if self.history.len() > HISTORY_LEN {
            self.history.remove(0);
        }
        self.browsing = None;
    }

    /// Applies an editing action (submit and cancel only reset browsing; the model decides
    /// what they mean).
    pub fn edit(&mut self, action: PaletteAction) {
        self.just_refused = false;
        let before = self.input.len();
        self.edit_line(action);
        // Cursor moves keep the reason; anything that changed the line drops it.
        if self.input.len() != before
            || matches!(action, PaletteAction::HistoryPrev | PaletteAction::HistoryNext)
        {
            self.error = None;
        }
    }

    fn edit_line(&mut self, action: PaletteAction) {
        let len = self.input.chars().count();
        match action {
            PaletteAction::Left => self.cursor = self.cursor.saturating_sub(1),
            PaletteAction::Right => self.cursor = (self.cursor + 1).min(len),
            PaletteAction::Home => self.cursor = 0,
            PaletteAction::End => self.cursor = len,
            PaletteAction::Backspace if self.cursor > 0 => {
                self.cursor -= 1;
                self.input.remove(self.byte_index(self.cursor));
            }
            PaletteAction::Delete if self.cursor < len => {
                self.input.remove(self.byte_index(self.cursor));
            }
            PaletteAction::Clear => self.set_line(String::new()),
            PaletteAction::HistoryPrev => self.browse(true),
            PaletteAction::HistoryNext => self.browse(false),
            PaletteAction::Submit | PaletteAction::Cancel => self.browsing = None,
            PaletteAction::Quit => {}
            PaletteAction::Backspace | PaletteAction::Delete => {}
        }
    }

    fn browse(&mut self, older: bool) {
        let next = match (self.browsing, older) {
            (None, true) => self.history.len().checked_sub(1),
            (None, false) => return,
            (Some(i), true) => Some(i.saturating_sub(1)),
            (Some(i), false) if i + 1 < self.history.len() => Some(i + 1),
            (Some(_), false) => None,
        };
        if self.browsing.is_none() {
            self.draft = self.input.clone();
        }
        let line = match next {
            Some(i) => self.history[i].clone(),
            None if self.browsing.is_some() => self.draft.clone(),
            None => return,
        };
        self.browsing = next;
        self.set_line(line);
    }

    fn set_line(&mut self, line: String) {
        self.cursor = line.chars().count();
        self.input = line;
    }

    fn byte_index(&self, chars: usize) -> usize {
        self.input.char_indices().nth(chars).map_or(self.input.len(), |(i, _)| i)
    }
}

/// Most lines the error under the palette line may take.
pub const ERROR_MAX_LINES: usize = 3;

/// The error's text lines for a screen `width` columns wide (none without an error).
fn error_parts(palette: &Palette, width: u16) -> Vec<String> {
    let room = usize::from(width).saturating_sub(4);
    palette.error().map_or_else(Vec::new, |e| text::wrap_at_most(e, room, ERROR_MAX_LINES))
}

/// Rows the palette needs: its line, plus the wrapped error under it.
pub fn height(palette: &Palette, width: u16) -> usize {
    1 + error_parts(palette, width).len()
}

/// Draws the palette line (`:` prompt, the text scrolled so the cursor stays in view, a block
/// cursor) in the first row of `area` and the error, if any, in red under it; places the
/// terminal cursor on the line.
pub fn render(frame: &mut Frame, area: Rect, palette: &Palette, theme: Theme) {
    let (line, at) = input_line(palette, area.width, theme);
    let mut lines = vec![line];
    for (i, part) in error_parts(palette, area.width).into_iter().enumerate() {
        let lead = if i == 0 { " ✖ " } else { "   " };
        lines.push(Line::styled(format!("{lead}{part}"), theme.bad()));
    }
    // Every cell of the area is written, so nothing of a longer line drawn there before
    // (the status line, an earlier prompt) is left after the text.
    frame.render_widget(ratatui::widgets::Clear, area);
    frame.render_widget(Paragraph::new(lines), area);
    let lead = u16::try_from(text::width(palette.prefix())).unwrap_or(1);
    let x = area.x.saturating_add(lead).saturating_add(at);
    frame.set_cursor_position(Position::new(x.min(area.right().saturating_sub(1)), area.y));
}

/// The prompt line, scrolled horizontally so the cursor is visible, and the cursor's column
/// within the text. Widths are terminal columns, so wide characters scroll correctly too.
fn input_line(palette: &Palette, width: u16, theme: Theme) -> (Line<'static>, u16) {
    let lead = text::width(palette.prefix());
    let (mut spans, at) = field(palette, usize::from(width).saturating_sub(lead), theme);
    spans.insert(0, Span::styled(palette.prefix(), theme.key()));
    (Line::from(spans), at)
}

/// The line's text without its prefix in `width` columns, scrolled so the cursor (a reversed
/// cell) is visible, and the cursor's column: the palette line, and the config view's
/// in-place editor.
pub fn field(palette: &Palette, width: usize, theme: Theme) -> (Vec<Span<'static>>, u16) {
    let (before, under, after) = visible_parts(palette, width.saturating_sub(1).max(1));
    let at: usize = before.chars().map(columns).sum();
    let spans = vec![Span::raw(before), Span::styled(under, theme.selected()), Span::raw(after)];
    (spans, u16::try_from(at).unwrap_or(u16::MAX))
}

/// The text before the cursor, under it (a space at the end of the line) and after it that
/// fit in `room` columns: as much before the cursor as fits, then what follows.
fn visible_parts(palette: &Palette, room: usize) -> (String, String, String) {
    let chars: Vec<char> = palette.input().chars().collect();
    let cursor = palette.cursor().min(chars.len());
    let mut used = chars.get(cursor).map_or(1, |c| columns(*c));
    let mut start = cursor;
    while start > 0 && used + columns(chars[start - 1]) <= room {
        start -= 1;
        used += columns(chars[start]);
    }
    let mut end = (cursor + 1).min(chars.len());
    while end < chars.len() && used + columns(chars[end]) <= room {
        used += columns(chars[end]);
        end += 1;
    }
    let under = chars.get(cursor).map_or(" ".to_string(), char::to_string);
    let after = chars.get(cursor + 1..end).unwrap_or_default().iter().collect();
    (chars[start..cursor].iter().collect(), under, after)
}

/// Terminal columns a character takes.
fn columns(c: char) -> usize {
    let mut buf = [0u8; 4];
    Span::raw(&*c.encode_utf8(&mut buf)).width()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(text: &str) -> Palette {
        let mut p = Palette::default();
        text.chars().for_each(|c| p.insert(c));
        p
    }

    #[test]
    fn editing_moves_the_cursor_and_deletes_characters() {
        let mut p = typed("crash 2");
        p.edit(PaletteAction::Left);
        p.edit(PaletteAction::Backspace);
        assert_eq!(p.input(), "crash2");
        p.insert('→');
        p.edit(PaletteAction::Home);
        p.edit(PaletteAction::Delete);
        assert_eq!(p.input(), "rash→2");
        p.edit(PaletteAction::End);
        p.edit(PaletteAction::Right);
        assert_eq!(p.cursor(), 6);
        p.edit(PaletteAction::Clear);
        assert_eq!((p.input(), p.cursor()), ("", 0));
        p.edit(PaletteAction::Backspace);
        assert_eq!(p.input(), "");
    }

    #[test]
    fn a_long_line_scrolls_so_the_cursor_stays_visible() {
        let long: String = (0..120).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
        let mut p = typed(&long);
        let (before, under, after) = visible_parts(&p, 78);
        assert_eq!((before.len(), under.as_str(), after.as_str()), (77, " ", ""));
        assert!(long.ends_with(&before));
        p.edit(PaletteAction::Home);
        let (before, under, after) = visible_parts(&p, 78);
        assert_eq!((before.as_str(), under.as_str(), after.len()), ("", "a", 77));
        for _ in 0..50 {
            p.edit(PaletteAction::Right);
        }
        let (before, under, _) = visible_parts(&p, 78);
        assert_eq!((before.len(), under.as_str()), (50, "y"));
        let mut wide = typed(&"語".repeat(60));
        let (before, under, _) = visible_parts(&wide, 78);
        assert_eq!((before.chars().count(), under.as_str()), (38, " "), "38 wide characters + cursor");
        wide.edit(PaletteAction::Home);
        let (_, under, after) = visible_parts(&wide, 78);
        assert_eq!((under.as_str(), after.chars().count()), ("語", 38));
    }

    #[test]
    fn history_recalls_older_and_newer_lines_and_the_draft() {
        let mut p = Palette::default();
        p.remember("crash 2");
        p.remember("restart 2");
        p.remember("restart 2");
        assert_eq!(p.history().len(), 2);
        p.open();
        p.insert('s');
        p.edit(PaletteAction::HistoryPrev);
        assert_eq!(p.input(), "restart 2");
        p.edit(PaletteAction::HistoryPrev);
        p.edit(PaletteAction::HistoryPrev);
        assert_eq!(p.input(), "crash 2");
        p.edit(PaletteAction::HistoryNext);
        assert_eq!(p.input(), "restart 2");
        p.edit(PaletteAction::HistoryNext);
        assert_eq!(p.input(), "s");
    }
}
