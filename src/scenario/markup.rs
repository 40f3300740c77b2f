//! Markdown-light, the markup of a lesson's narration (`say`, `explain`, `question`, a
//! choice's `text`): `*emphasis*`, `**strong**` and `` `code` ``. Nothing else is markup: the
//! rest is plain text, line breaks included. Inside `` `code` `` every character is literal.
//! A scenario file is checked with [`parse`] when it loads, so the dashboard can render any
//! loaded narration without an error path.

/// How a run of text is shown.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Style {
    /// Ordinary text.
    Plain,
    /// `*text*`: emphasis (italic, or another highlight where italic is missing).
    Emphasis,
    /// `**text**`: strong (bold).
    Strong,
    /// `` `text` ``: a command, property or value, shown as code.
    Code,
}

/// A piece of narration in one style, markers removed.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Run {
    /// How to show it.
    pub style: Style,
    /// The text, without its markers; may hold line breaks.
    pub text: String,
}

/// Splits `text` into styled runs, in order; empty runs are left out. Errors: a marker that
/// is not closed (`*`, `**` or `` ` ``), or emphasis and strong nested in each other, in
/// words that say how to write a literal `*`.
pub fn parse(text: &str) -> Result<Vec<Run>, String> {
    let mut runs = Vec::new();
    let mut style = Style::Plain;
    let mut current = String::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let (marker, next) = match c {
            '`' => (Style::Code, &rest[1..]),
            '*' if style == Style::Code => (Style::Plain, rest),
            '*' if rest.starts_with("**") => (Style::Strong, &rest[2..]),
            '*' => (Style::Emphasis, &rest[1..]),
            _ => (Style::Plain, rest),
        };
        if marker == Style::Plain || (style == Style::Code && marker != Style::Code) {
            current.push(c);
            rest = &rest[c.len_utf8()..];
            continue;
        }
        push(&mut runs, style, std::mem::take(&mut current));
        style = if style == marker {
            Style::Plain
        } else if style == Style::Plain {
            marker
        } else {
            return Err(format!(
                "{} inside {} is not supported in narration; close one before opening the other",
                describe(marker),
                describe(style)
            ));
        };
        rest = next;
    }
    if style != Style::Plain {
        return Err(format!(
            "{} is not closed in this narration; to show a literal `*`, put it inside `code`",
            describe(style)
        ));
    }
    push(&mut runs, style, current);
    Ok(runs)
}

/// `text` with its markers removed, as plain text.
pub fn plain(text: &str) -> String {
    match parse(text) {
        Ok(runs) => runs.into_iter().map(|r| r.text).collect(),
        Err(_) => text.to_string(),
    }
}

fn push(runs: &mut Vec<Run>, style: Style, text: String) {
    if !text.is_empty() {
        runs.push(Run { style, text });
    }
}

fn describe(style: Style) -> &'static str {
    match style {
        Style::Plain => "plain text",
        Style::Emphasis => "`*emphasis*`",
        Style::Strong => "`**strong**`",
        Style::Code => "`` `code` ``",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn styled(text: &str) -> Vec<(Style, String)> {
        parse(text).unwrap().into_iter().map(|r| (r.style, r.text)).collect()
    }

    #[test]
    fn the_three_markers_become_styles() {
        assert_eq!(
            styled("a *b* **c** `d*e` f"),
            [
                (Style::Plain, "a ".into()),
                (Style::Emphasis, "b".into()),
                (Style::Plain, " ".into()),
                (Style::Strong, "c".into()),
                (Style::Plain, " ".into()),
                (Style::Code, "d*e".into()),
                (Style::Plain, " f".into()),
            ]
        );
        assert_eq!(styled("plain\nlines é"), [(Style::Plain, "plain\nlines é".into())]);
        assert_eq!(plain("the **HW** of `t-0`"), "the HW of t-0");
    }

    #[test]
    fn unclosed_and_nested_markers_are_errors() {
        assert!(parse("2 * 3").unwrap_err().contains("`*emphasis*` is not closed"));
        assert!(parse("`acks").unwrap_err().contains("is not closed"));
        assert!(parse("**a *b* c**").unwrap_err().contains("inside `**strong**`"));
        assert!(parse("*a `b` c*").unwrap_err().contains("inside `*emphasis*`"));
    }
}
