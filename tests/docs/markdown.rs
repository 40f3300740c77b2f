//! What the manual's tests read in a Markdown file: fenced code blocks with their language,
//! inline code spans, links and headings, each with the line it starts on. Parsed with
//! pulldown-cmark, the parser mdBook uses, so a code span or a link is what the book sees.

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

/// One thing the checks look at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// A code block: its language (the info string's first word, empty for none or an
    /// indented block), the line of its opening fence, and its text.
    Block { line: usize, lang: String, text: String },
    /// An inline code span and its line.
    Inline { line: usize, code: String },
    /// A link's or an image's destination and its line.
    Link { line: usize, dest: String },
    /// A heading: its text (code spans included, markup dropped) and its `{#id}`, if any.
    Heading { line: usize, text: String, id: Option<String> },
}

/// The parser options mdBook turns on that change what is a link, a heading or a span.
fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_HEADING_ATTRIBUTES
}

/// The items of `text`, in order.
pub fn items(text: &str) -> Vec<Item> {
    let line_of = |offset: usize| text[..offset].matches('\n').count() + 1;
    let mut out = Vec::new();
    let mut block: Option<(usize, String, String)> = None;
    let mut heading: Option<(usize, String, Option<String>)> = None;
    for (event, range) in Parser::new_ext(text, options()).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(kind)) => {
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => info.split_whitespace().next().unwrap_or("").to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                block = Some((line_of(range.start), lang, String::new()));
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some((line, lang, text)) = block.take() {
                    out.push(Item::Block { line, lang, text });
                }
            }
            Event::Start(Tag::Heading { id, .. }) => {
                heading = Some((line_of(range.start), String::new(), id.map(|i| i.to_string())));
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((line, text, id)) = heading.take() {
                    out.push(Item::Heading { line, text, id });
                }
            }
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                out.push(Item::Link { line: line_of(range.start), dest: dest_url.to_string() });
            }
            Event::Text(t) => {
                if let Some((_, _, body)) = block.as_mut() {
                    body.push_str(&t);
                } else if let Some((_, body, _)) = heading.as_mut() {
                    body.push_str(&t);
                }
            }
            Event::Code(code) => {
                if let Some((_, body, _)) = heading.as_mut() {
                    body.push_str(&code);
                }
                out.push(Item::Inline { line: line_of(range.start), code: code.to_string() });
            }
            _ => {}
        }
    }
    out
}

/// A heading's anchor as mdBook and GitHub make it: lower case, each space a `-`, every
/// other character that is not a letter, a digit, `-` or `_` dropped.
pub fn slug(heading: &str) -> String {
    heading
        .trim()
        .chars()
        .filter_map(|c| match c {
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c.to_lowercase().collect::<String>()),
            c if c.is_whitespace() => Some("-".to_string()),
            _ => None,
        })
        .collect()
}

/// Every anchor a page's headings give, in order: a heading's own `{#id}`, else its slug, with
/// `-1`, `-2`, ... after the slug of a heading whose slug came before.
pub fn anchors(items: &[Item]) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for item in items {
        let Item::Heading { text, id, .. } = item else { continue };
        if let Some(id) = id {
            out.push(id.clone());
            continue;
        }
        let base = slug(text);
        let count = seen.iter().filter(|s| **s == base).count();
        out.push(if count == 0 { base.clone() } else { format!("{base}-{count}") });
        seen.push(base);
    }
    out
}
