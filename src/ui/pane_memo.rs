//! The last drawing of a pane, kept so that a frame whose inputs for that pane did not change
//! copies its cells instead of building the pane again.
//!
//! The charts change once a second of sim time (when the sim takes a sample), but the
//! dashboard draws up to 30 frames a second: at 1× the three charts were about a fifth of a
//! frame's work. A pane is drawn from scratch whenever its key (everything it is drawn from)
//! or its area differs from the last drawing there, so what is copied is exactly what
//! drawing would give; the in-process test `memoized_frames_equal_fresh_ones` holds the
//! screen to that through keys, new snapshots and time passing.

use std::cell::RefCell;
use std::sync::Arc;

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

/// Most drawings kept (one per area a pane was drawn at lately).
const KEPT: usize = 4;

/// The cells of a pane's last drawings, by area, with the key each was drawn from.
#[derive(Clone, Debug)]
pub struct PaneMemo<K> {
    drawn: RefCell<Vec<(Rect, K, Buffer)>>,
}

impl<K> Default for PaneMemo<K> {
    fn default() -> PaneMemo<K> {
        PaneMemo { drawn: RefCell::new(Vec::new()) }
    }
}

impl<K: PartialEq> PaneMemo<K> {
    /// Draws a pane into `frame` at `area`: the kept cells when the last drawing at `area`
    /// had this `key`, else `draw` (which must draw inside `area` only and depend on nothing
    /// but `key` and `area`), whose cells are then kept.
    pub fn draw(&self, frame: &mut Frame, area: Rect, key: K, draw: impl FnOnce(&mut Frame)) {
        let area = area.intersection(frame.area());
        let mut drawn = self.drawn.borrow_mut();
        let buf = frame.buffer_mut();
        if let Some((_, _, cells)) = drawn.iter().find(|(at, k, _)| *at == area && *k == key) {
            for (x, y) in positions(area) {
                buf[(x, y)].clone_from(&cells[(x, y)]);
            }
            return;
        }
        draw(frame);
        let buf = frame.buffer_mut();
        let mut cells = Buffer::empty(area);
        for (x, y) in positions(area) {
            cells[(x, y)].clone_from(&buf[(x, y)]);
        }
        drawn.retain(|(at, _, _)| *at != area);
        if drawn.len() == KEPT {
            drawn.remove(0);
        }
        drawn.push((area, key, cells));
    }
}

fn positions(area: Rect) -> impl Iterator<Item = (u16, u16)> {
    area.rows().flat_map(|row| row.columns().map(|c| (c.x, c.y)))
}

/// An `Arc` compared by identity: the same allocation holds the same value as long as one
/// holder keeps it (the sim's `Arc::make_mut` copies a shared one before changing it), and
/// the memo keeps it, so its address is not reused meanwhile.
#[derive(Clone, Debug)]
pub struct Same<T>(pub Arc<T>);

impl<T> PartialEq for Same<T> {
    fn eq(&self, other: &Same<T>) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use ratatui::widgets::Paragraph;

    fn frame_with(memo: &PaneMemo<u32>, key: u32, text: &str, draws: &mut usize) -> Buffer {
        let mut terminal = Terminal::new(TestBackend::new(12, 3)).unwrap();
        terminal
            .draw(|frame| {
                frame.render_widget(Paragraph::new("outside"), Rect::new(0, 2, 12, 1));
                memo.draw(frame, Rect::new(2, 0, 8, 2), key, |frame| {
                    *draws += 1;
                    frame.render_widget(Paragraph::new(text), Rect::new(2, 0, 8, 2));
                });
            })
            .unwrap();
        terminal.backend().buffer().clone()
    }

    #[test]
    fn the_same_key_copies_the_cells_and_a_new_key_draws_again() {
        let memo = PaneMemo::default();
        let mut draws = 0;
        let first = frame_with(&memo, 1, "one", &mut draws);
        // Same key: not drawn again, and the screen is the same (the text passed is ignored).
        assert_eq!(frame_with(&memo, 1, "ignored", &mut draws), first);
        assert_eq!(draws, 1);
        let second = frame_with(&memo, 2, "two", &mut draws);
        assert_eq!(draws, 2);
        assert_ne!(second, first);
        assert_eq!(second, frame_with(&PaneMemo::default(), 2, "two", &mut 0), "as drawn from scratch");
    }

    #[test]
    fn arcs_are_the_same_only_when_they_share_the_allocation() {
        let a = Arc::new(5);
        assert_eq!(Same(a.clone()), Same(a));
        assert_ne!(Same(Arc::new(5)), Same(Arc::new(5)));
    }
}
