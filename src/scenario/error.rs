//! Why a scenario file could not be loaded, pointing at the place in the file:
//! `FILE:LINE:COLUMN: what is wrong`.

use std::ops::Range;

/// A scenario file that could not be read or is invalid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("{file}: cannot read: {message}")]
    Read {
        /// The path as given.
        file: String,
        /// The operating system's reason.
        message: String,
    },
    /// The file is not a valid scenario. Line and column are 1-based; the column counts
    /// characters.
    #[error("{file}:{line}:{column}: {message}")]
    Invalid {
        /// The path as given.
        file: String,
        /// Line of the offending value.
        line: usize,
        /// Column of the offending value.
        column: usize,
        /// What is wrong and what would be right.
        message: String,
    },
}

/// A problem found at a byte range of the file, before it is turned into line and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpanError {
    /// Byte range of the offending text.
    pub span: Range<usize>,
    /// What is wrong.
    pub message: String,
}

impl SpanError {
    /// A problem at `span`.
    pub fn new(span: Range<usize>, message: impl Into<String>) -> Self {
        Self { span, message: message.into() }
    }

    /// Places the problem in `text` (the whole file) and names the file.
    pub fn locate(self, file: &str, text: &str) -> LoadError {
        let (line, column) = line_column(text, self.span.start);
        LoadError::Invalid { file: file.to_string(), line, column, message: self.message }
    }
}

/// The 1-based line and character column of byte `offset` in `text` (clamped to the text).
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_become_lines_and_character_columns() {
        let text = "a = 1\nbé = \"x\"\n";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 4), (1, 5));
        assert_eq!(line_column(text, 6), (2, 1));
        // `é` is two bytes but one column.
        assert_eq!(line_column(text, 11), (2, 5));
        assert_eq!(line_column(text, 999), (3, 1));
    }

    #[test]
    fn errors_print_file_line_column() {
        let e = SpanError::new(6..7, "bad").locate("s.toml", "a = 1\nb = 2\n");
        assert_eq!(e.to_string(), "s.toml:2:1: bad");
    }
}
