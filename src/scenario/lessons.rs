//! The built-in lessons: the files `assets/lessons/NN-slug.toml` (scenario format v2),
//! embedded in the binary by `build.rs` in one static table sorted by file name, so a new
//! lesson is a new file and nothing else. `isrlab lessons` lists them ([`listing`]);
//! `isrlab lesson NAME` finds one by number, slug or file name ([`find`]).

use super::error::LoadError;
use super::format::Scenario;
use std::fmt::Write as _;

/// One embedded lesson file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lesson {
    /// `NN` of the file name: its number in the list, from 1.
    pub number: u32,
    /// The name after the number, e.g. `failover` for `06-failover.toml`.
    pub slug: &'static str,
    /// The file name, e.g. `06-failover.toml`.
    pub file: &'static str,
    /// The file's text.
    pub text: &'static str,
}

/// The table `build.rs` generates from `assets/lessons/`, sorted by file name.
static LESSONS: &[Lesson] = include!(concat!(env!("OUT_DIR"), "/lessons.rs"));

/// Every built-in lesson, in number order (possibly none).
pub fn all() -> &'static [Lesson] {
    LESSONS
}

impl Lesson {
    /// The path errors name it by, as in the source tree: `assets/lessons/NN-slug.toml`.
    pub fn path(&self) -> String {
        format!("assets/lessons/{}", self.file)
    }

    /// The lesson's scenario. Errors: [`LoadError::Invalid`] at `assets/lessons/FILE:LINE:COLUMN`
    /// (the tests load every built-in lesson, so a shipped one does not fail).
    pub fn load(&self) -> Result<Scenario, LoadError> {
        self.load_as(None)
    }

    /// [`Lesson::load`] with another semantics profile (`--profile`) in place of its own.
    pub fn load_as(&self, profile: Option<&crate::config::profiles::Profile>) -> Result<Scenario, LoadError> {
        super::parse_as(&self.path(), self.text, profile)
    }
}

/// A lesson name that matches no built-in lesson.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct UnknownLesson {
    /// The name as given.
    pub name: String,
    /// What went wrong, with the close matches and the list of lessons.
    pub message: String,
}

/// The built-in lesson `name` names: its number (`6` or `06`), its slug (`failover`) or its
/// file name with or without `.toml` (`06-failover`), in any case. Errors: [`UnknownLesson`],
/// whose message suggests the closest slug and lists the lessons.
pub fn find(name: &str) -> Result<&'static Lesson, UnknownLesson> {
    find_in(LESSONS, name)
}

fn find_in(lessons: &'static [Lesson], name: &str) -> Result<&'static Lesson, UnknownLesson> {
    let wanted = name.trim().to_lowercase();
    let stem = wanted.strip_suffix(".toml").unwrap_or(&wanted);
    let by_number = stem.parse::<u32>().ok();
    let found = lessons.iter().find(|l| {
        by_number == Some(l.number) || l.slug == stem || l.file.strip_suffix(".toml") == Some(stem)
    });
    found.ok_or_else(|| UnknownLesson {
        name: name.to_string(),
        message: unknown(lessons, name, stem, by_number),
    })
}

fn unknown(lessons: &[Lesson], name: &str, stem: &str, number: Option<u32>) -> String {
    if lessons.is_empty() {
        return format!(
            "unknown lesson `{name}`: this build has no built-in lessons; give a path to a lesson file, e.g. `isrlab lesson my-lesson.toml`"
        );
    }
    let mut message = match number {
        Some(n) => format!(
            "there is no lesson {n}; the lessons are numbered {} to {}",
            lessons[0].number,
            lessons[lessons.len() - 1].number
        ),
        None => {
            let close = crate::suggest::closest(stem, lessons.iter().map(|l| (l.slug, l)));
            match close.first() {
                Some(l) => {
                    format!("unknown lesson `{name}`; did you mean `{}` (lesson {})?", l.slug, l.number)
                }
                None => format!("unknown lesson `{name}`"),
            }
        }
    };
    message.push_str("\nthe lessons (`isrlab lessons` lists what each teaches):");
    for l in lessons {
        let _ = write!(message, "\n  {:>2}  {}", l.number, l.slug);
    }
    message.push_str("\ngive a number, a name from the list, or a path to your own FILE.toml");
    message
}

/// The text `isrlab lessons` prints: for each lesson its number, slug, minutes and title on
/// one line and what it teaches on the next (indented), then how to play one. The `bool` is false when
/// a lesson cannot be loaded (its row then says why).
pub fn listing() -> (String, bool) {
    listing_of(LESSONS)
}

fn listing_of(lessons: &[Lesson]) -> (String, bool) {
    if lessons.is_empty() {
        let text = "This build has no built-in lessons.\nPlay a lesson file of your own: isrlab lesson FILE.toml (with --headless: check it without the dashboard)\n";
        return (text.to_string(), true);
    }
    let width = lessons.iter().map(|l| l.slug.chars().count()).max().unwrap_or(0).max("lesson".len());
    let mut ok = true;
    let mut out = format!(" #  {:<width$}  minutes  title\n", "lesson");
    for l in lessons {
        let (minutes, title, note) = match l.load() {
            Ok(s) => (
                s.minutes.map_or_else(|| "-".to_string(), |m| format!("{m} min")),
                s.name,
                s.teaches.map(|t| format!("teaches: {t}")),
            ),
            Err(e) => {
                ok = false;
                ("-".to_string(), "(cannot be loaded)".to_string(), Some(format!("error: {e}")))
            }
        };
        let _ = writeln!(out, "{:>2}  {:<width$}  {minutes:>7}  {title}", l.number, l.slug);
        if let Some(note) = note {
            let _ = writeln!(out, "    {note}");
        }
    }
    out.push_str(
        "\nPlay one in the dashboard: isrlab lesson NAME (its name or number, or a FILE.toml of your own)\n\
         Check one without the dashboard: isrlab lesson NAME --headless\n",
    );
    (out, ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: &str = "version = 2\nname = \"Failover\"\nminutes = 7\nteaches = \"leaders move\"\nend = \"1s\"\n[cluster]\nbrokers = 1\n";
    const TWO: &str = "version = 2\nname = \"HW\"\nend = \"1s\"\n[cluster]\nbrokers = 1\n";
    static TABLE: &[Lesson] = &[
        Lesson { number: 4, slug: "high-watermark", file: "04-high-watermark.toml", text: TWO },
        Lesson { number: 6, slug: "failover", file: "06-failover.toml", text: ONE },
        Lesson { number: 7, slug: "broken", file: "07-broken.toml", text: "name = 1" },
    ];

    #[test]
    fn a_lesson_is_found_by_number_slug_or_file_name() {
        for name in ["6", "06", "failover", "FailOver", "06-failover", "06-failover.toml"] {
            assert_eq!(find_in(TABLE, name).map(|l| l.number), Ok(6), "{name}");
        }
    }

    #[test]
    fn an_unknown_lesson_suggests_and_lists() {
        let e = find_in(TABLE, "failvoer").unwrap_err().message;
        assert!(e.starts_with("unknown lesson `failvoer`; did you mean `failover` (lesson 6)?"), "{e}");
        assert!(e.contains("\n   4  high-watermark\n   6  failover\n"), "{e}");
        let e = find_in(TABLE, "13").unwrap_err().message;
        assert!(e.starts_with("there is no lesson 13; the lessons are numbered 4 to 7"), "{e}");
        assert!(find_in(TABLE, "zzz").unwrap_err().message.starts_with("unknown lesson `zzz`\n"));
        assert!(find_in(&[], "x").unwrap_err().message.contains("this build has no built-in lessons"));
    }

    #[test]
    fn the_listing_shows_number_slug_minutes_title_and_teaches() {
        let (text, ok) = listing_of(TABLE);
        assert!(!ok, "lesson 7 cannot be loaded");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], " #  lesson          minutes  title");
        assert_eq!(lines[1], " 4  high-watermark        -  HW");
        assert_eq!(lines[2], " 6  failover          7 min  Failover");
        assert_eq!(lines[3], "    teaches: leaders move");
        assert_eq!(lines[4], " 7  broken                -  (cannot be loaded)");
        assert!(lines[5].starts_with("    error: assets/lessons/07-broken.toml:1:8: "), "{}", lines[5]);
        assert!(text.ends_with("Check one without the dashboard: isrlab lesson NAME --headless\n"));
        assert!(listing_of(&[]).1);
    }
}
