//! Shared by the dashboard tests: one screenful read cell by cell, from a pseudo-terminal
//! (through `vt100`) or from ratatui's `TestBackend`, and the partition table read off it.
#![allow(dead_code)] // each test crate uses its own part

pub mod app;
pub mod files;

/// Column titles of the partition table, in order: the full set (terminals 120 columns wide
/// and more), the compact one (the narrow set plus the replica list) and the narrow one. See `src/ui/partitions.rs`.
pub const WIDE_TITLES: &[&str] =
    &["Partition", "Leader", "Epoch", "Replicas", "ISR", "HW", "LEO by replica", "Lag / ISR timer", "State"];
pub const COMPACT_TITLES: &[&str] =
    &["Partition", "Ldr", "Ep", "Replicas", "ISR", "HW", "LEO by replica", "Lag / ISR timer", "State"];
pub const NARROW_TITLES: &[&str] =
    &["Partition", "Ldr", "Ep", "ISR", "HW", "LEO by replica", "Lag / ISR timer", "State"];
/// Without the leader epoch, keeping the replica list (while a replica is down or out of
/// the ISR, the epoch gives way first).
pub const REPLICAS_NO_EPOCH_TITLES: &[&str] =
    &["Partition", "Ldr", "Replicas", "ISR", "HW", "LEO by replica", "Lag / ISR timer", "State"];

/// The lag column's title in its narrower forms.
const LAG_TITLES: [&str; 3] = ["Lag / ISR timer", "Lag/ISR", "Lag"];

/// Every title set the table can show: each of the sets above with each form of the lag
/// column's title, and without the lag column.
fn title_sets() -> Vec<Vec<&'static str>> {
    let mut sets = Vec::new();
    for base in [WIDE_TITLES, COMPACT_TITLES, NARROW_TITLES, REPLICAS_NO_EPOCH_TITLES] {
        for lag in LAG_TITLES {
            sets.push(base.iter().map(|t| if *t == LAG_TITLES[0] { lag } else { *t }).collect());
        }
        sets.push(base.iter().copied().filter(|t| *t != LAG_TITLES[0]).collect());
    }
    sets
}

/// The six partitions of the default topic.
pub const PARTITIONS: [&str; 6] =
    ["test_repli-0", "test_repli-1", "test_repli-2", "test_repli-3", "test_repli-4", "test_repli-5"];

/// One screenful, cell by cell, so that column indices are terminal columns even where a
/// line holds multi-byte glyphs.
pub struct Screen {
    /// Each row's cells.
    pub lines: Vec<Vec<String>>,
    /// The terminal shows its alternate screen.
    pub alternate: bool,
    /// The cursor is hidden.
    pub cursor_hidden: bool,
}

impl Screen {
    pub fn of(parser: &vt100::Parser) -> Screen {
        let screen = parser.screen();
        let (rows, cols) = screen.size();
        let lines = (0..rows.get())
            .map(|r| {
                (0..cols.get())
                    .map(|c| match screen.cell(r, c) {
                        Some(cell) if cell.is_wide_continuation() => String::new(),
                        Some(cell) if cell.has_contents() => cell.contents().to_string(),
                        _ => " ".to_string(),
                    })
                    .collect()
            })
            .collect();
        Screen { lines, alternate: screen.alternate_screen(), cursor_hidden: screen.hide_cursor() }
    }

    /// The screen a `TestBackend` holds after a draw (main screen, cursor state unknown). The
    /// cells a wide glyph covers after its first are empty, as a terminal shows them.
    pub fn of_buffer(buffer: &ratatui::buffer::Buffer) -> Screen {
        use ratatui::buffer::CellWidth;
        let area = buffer.area;
        let lines = (area.top()..area.bottom())
            .map(|y| {
                let mut covered = 0;
                (area.left()..area.right())
                    .map(|x| {
                        let cell = &buffer[(x, y)];
                        let text = if covered > 0 { String::new() } else { cell.symbol().to_string() };
                        covered = covered.max(cell.cell_width()).saturating_sub(1);
                        text
                    })
                    .collect()
            })
            .collect();
        Screen { lines, alternate: false, cursor_hidden: false }
    }

    /// Row `r` from column `from` up to (not including) `to`.
    pub fn span(&self, r: usize, from: usize, to: usize) -> String {
        let line = &self.lines[r];
        line[from.min(line.len())..to.min(line.len())].concat()
    }

    pub fn line(&self, r: usize) -> String {
        self.lines[r].concat()
    }

    pub fn contains(&self, text: &str) -> bool {
        (0..self.lines.len()).any(|r| self.line(r).contains(text))
    }
}

impl std::fmt::Display for Screen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for r in 0..self.lines.len() {
            writeln!(f, "|{}|", self.line(r))?;
        }
        Ok(())
    }
}

/// The partition table read off the screen: its column titles and, for each partition row,
/// the text under each title (trimmed).
pub struct Table {
    /// Column titles, in order.
    pub titles: Vec<&'static str>,
    /// Per partition row, the text under each title.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// Finds the header line (the one that starts with `Partition`), takes each column's
    /// extent from where its title starts, and reads the rows under it.
    pub fn read(screen: &Screen) -> Option<Table> {
        let (header, titles, starts) = (0..screen.lines.len()).find_map(|r| {
            let line = screen.line(r);
            if !line.trim_start().starts_with("Partition ") {
                return None;
            }
            title_sets()
                .into_iter()
                .find_map(|titles| title_columns(&screen.lines[r], &titles).map(|starts| (r, titles, starts)))
        })?;
        let width = screen.lines[header].len();
        let mut rows = Vec::new();
        for r in header + 1..screen.lines.len() {
            let cells: Vec<String> = (0..starts.len())
                .map(|i| {
                    // The first column starts at 0: the selection marker sits before the title.
                    let from = if i == 0 { 0 } else { starts[i] };
                    let to = starts.get(i + 1).copied().unwrap_or(width);
                    screen.span(r, from, to).trim().to_string()
                })
                .collect();
            // A partition row names a partition and has numbers (or `none` for the leader)
            // under the leader, epoch and HW titles; the detail pane's title under the table
            // (` test_repli-0 logs · leader 1 · …`) does not.
            let name = cells[0].trim_start_matches('▸').trim();
            let number = |i: usize| !cells[i].is_empty() && cells[i].chars().all(|c| c.is_ascii_digit());
            let numbers = (1..starts.len()).all(|i| match titles[i] {
                "Leader" | "Ldr" => cells[i] == "none" || number(i),
                "Epoch" | "Ep" | "HW" => number(i),
                _ => true,
            });
            if !name.starts_with("test_repli-") || !numbers {
                break;
            }
            rows.push(cells);
        }
        Some(Table { titles, rows })
    }

    /// Text of `title`'s column in row `row`, if the table has that column.
    pub fn cell(&self, row: usize, title: &str) -> Option<&str> {
        let i = self.titles.iter().position(|t| *t == title)?;
        Some(self.rows[row][i].as_str())
    }

    pub fn partition(&self, row: usize) -> &str {
        self.rows[row][0].trim_start_matches('▸').trim()
    }

    pub fn has_all_partitions(&self) -> bool {
        PARTITIONS.iter().all(|p| (0..self.rows.len()).any(|r| self.partition(r) == *p))
    }
}

/// Start columns of `titles`, found in order in `line` (cells), each a whole word; `None`
/// unless every title is there.
pub fn title_columns(line: &[String], titles: &[&str]) -> Option<Vec<usize>> {
    let mut starts = Vec::new();
    let mut from = 0;
    for title in titles {
        let width = title.chars().count();
        let start = (from..line.len().saturating_sub(width - 1)).find(|&c| {
            let before = c == 0 || line[c - 1] == " ";
            let after = line.get(c + width).is_none_or(|s| s == " ");
            before && after && line[c..c + width].concat() == *title
        })?;
        starts.push(start);
        from = start + width;
    }
    Some(starts)
}

/// Broker ids in a `0,1,2` list.
pub fn ids(list: &str) -> Vec<&str> {
    list.split(',').map(str::trim).filter(|s| !s.is_empty()).collect()
}

/// All six partition rows are on screen.
pub fn partitions_shown(screen: &Screen) -> bool {
    Table::read(screen).is_some_and(|t| t.has_all_partitions())
}

/// Broker 2 is shown crashed and fenced, and every partition row shows it out of the ISR
/// while still a replica: in the `Replicas` column when the table has one, otherwise in
/// `LEO by replica`, which lists every assigned replica (`2:980✖`).
pub fn broker_2_fenced_out(screen: &Screen) -> bool {
    let strip = (0..screen.lines.len()).map(|r| screen.line(r)).find(|l| l.contains(" Brokers "));
    let fenced =
        strip.is_some_and(|l| l.split_once("2 ✖ crashed").is_some_and(|(_, s)| s.contains(", fenced")));
    fenced
        && Table::read(screen).is_some_and(|t| {
            t.has_all_partitions()
                && (0..t.rows.len()).all(|r| {
                    let isr = t.cell(r, "ISR").unwrap_or_default();
                    let still_replica = match t.cell(r, "Replicas") {
                        Some(replicas) => ids(replicas).contains(&"2"),
                        None => t
                            .cell(r, "LEO by replica")
                            .is_some_and(|leos| leos.split_whitespace().any(|l| l.starts_with("2:"))),
                    };
                    !ids(isr).is_empty() && !ids(isr).contains(&"2") && still_replica
                })
        })
}

/// Runs the isrlab binary with `args` from the crate's directory and waits for it.
pub fn isrlab(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_isrlab"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("isrlab runs")
}
