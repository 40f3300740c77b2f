//! Every relative link of the manual resolves: the file it names exists, and its `#anchor` is
//! the anchor of a heading there (as mdBook and GitHub make anchors, [`super::markdown::slug`]).
//! A link from the book (`docs/src/`) must stay inside it: mdBook copies nothing else, so a
//! link out of it works on a forge and breaks in the book.

use super::markdown::{Item, anchors, items};
use std::path::{Component, Path, PathBuf};

/// The problems of the links among `items_of_file`, the items of `file` (a path relative to
/// `root`; its text need not be on disk), each as `FILE:LINE: what`.
pub fn check(root: &Path, file: &Path, items_of_file: &[Item]) -> Vec<String> {
    let own = anchors(items_of_file);
    let mut problems = Vec::new();
    for item in items_of_file {
        let Item::Link { line, dest } = item else { continue };
        if let Err(why) = resolve(root, file, &own, dest) {
            problems.push(format!("{}:{line}: link `{dest}`: {why}", file.display()));
        }
    }
    problems
}

/// Whether `dest` is a link to elsewhere on the web or by another scheme (not checked).
fn external(dest: &str) -> bool {
    let scheme = dest.split_once(':').map(|(s, _)| s);
    scheme.is_some_and(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)))
        || dest.starts_with("//")
}

fn resolve(root: &Path, file: &Path, own: &[String], dest: &str) -> Result<(), String> {
    if external(dest) {
        return Ok(());
    }
    let (path, anchor) = match dest.split_once('#') {
        Some((p, a)) => (p, Some(a)),
        None => (dest, None),
    };
    if path.starts_with('/') {
        return Err("an absolute path: write it relative to this file".into());
    }
    let (target, anchors) = if path.is_empty() {
        (file.to_path_buf(), own.to_vec())
    } else {
        let target = normalize(&file.parent().unwrap_or(Path::new("")).join(decode(path)))
            .ok_or("it leaves the repository")?;
        let in_book = |p: &Path| p.starts_with("docs/src");
        if in_book(file) && !in_book(&target) {
            return Err(format!(
                "{} is outside the book (docs/src): mdBook would not copy it, so the link breaks there",
                target.display()
            ));
        }
        let on_disk = root.join(&target);
        if !on_disk.exists() {
            return Err(format!("{} does not exist", target.display()));
        }
        let anchors = match anchor {
            Some(_) if target.extension().is_some_and(|e| e == "md") => {
                let text =
                    std::fs::read_to_string(&on_disk).map_err(|e| format!("{}: {e}", target.display()))?;
                anchors_of(&text)
            }
            Some(_) => return Err(format!("an anchor into {}, which is no Markdown file", target.display())),
            None => Vec::new(),
        };
        (target, anchors)
    };
    match anchor {
        Some(a) if !anchors.iter().any(|x| x == a) => {
            Err(format!("no heading in {} has the anchor #{a}", target.display()))
        }
        _ => Ok(()),
    }
}

/// The anchors of the headings of a Markdown text.
pub fn anchors_of(text: &str) -> Vec<String> {
    anchors(&items(text))
}

/// `path` without `.` and `..` parts; `None` when `..` climbs above the root.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::Normal(p) => out.push(p),
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

/// `%20` and the like as the characters they stand for.
fn decode(path: &str) -> String {
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The book's pages (paths relative to the root) that its `SUMMARY.md` (at `summary`, with
/// `summary_items`) lists nowhere: mdBook renders only the pages it lists, so a link to any
/// other page breaks in the book. Each problem names the page.
pub fn unlisted(summary: &Path, summary_items: &[Item], pages: &[PathBuf]) -> Vec<String> {
    let dir = summary.parent().unwrap_or(Path::new(""));
    let listed: Vec<PathBuf> = summary_items
        .iter()
        .filter_map(|i| match i {
            Item::Link { dest, .. } if !external(dest) => {
                normalize(&dir.join(decode(dest.split('#').next().unwrap_or(""))))
            }
            _ => None,
        })
        .collect();
    pages
        .iter()
        .filter(|p| p.as_path() != summary && !listed.contains(p))
        .map(|p| {
            format!("{}: not listed in {}: mdBook leaves it out of the book", p.display(), summary.display())
        })
        .collect()
}
