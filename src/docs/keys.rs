//! The keys page (`keys.md`), written from the key tables of [`crate::ui::keymap`] in the
//! order and groups of the `?` help, so the page, the help, the footer and what the keys do
//! come from one table.

use super::markdown::{code, head, page_start, row};
use crate::ui::event_filter::FILTER_SYNTAX;
use crate::ui::keymap::{
    self, Action, Binding, EventsAction, Group, HelpAction, Key, PaletteAction, ViewBinding, config_names,
    key_text,
};
use crate::ui::partition_filter::TABLE_FILTER_SYNTAX;
use crossterm::event::KeyCode;

/// The tables a keys page is written from: the built-in ones ([`KeyTables::BUILT_IN`]), or
/// others in a test.
#[derive(Clone, Copy)]
pub struct KeyTables<'a> {
    /// The dashboard's keys ([`keymap::BINDINGS`]).
    pub dashboard: &'a [Binding<Action>],
    /// The keys one view gives its own meaning ([`keymap::VIEW_BINDINGS`]).
    pub views: &'a [ViewBinding],
    /// The Events pane's keys while it has them ([`keymap::EVENTS_BINDINGS`]).
    pub events: &'a [Binding<EventsAction>],
    /// The command palette's keys ([`keymap::PALETTE_BINDINGS`]).
    pub palette: &'a [Binding<PaletteAction>],
    /// The tables of the other modes, which the help lists after the dashboard's groups, in
    /// the help's order.
    pub modes: &'a [ModeTable],
    /// The help overlay's keys ([`keymap::HELP_BINDINGS`]).
    pub help: &'a [Binding<HelpAction>],
}

/// The key table of another mode (a lesson's keys, say), as the help lists it: its title and
/// its rows, whatever its action type ([`rows`]).
#[derive(Clone, Copy)]
pub struct ModeTable {
    /// The help's title over the table.
    pub title: &'static str,
    /// Its rows, e.g. `|| rows(keymap::HELP_BINDINGS)`.
    pub rows: fn() -> Vec<Row>,
}

/// One row of a mode's table, as the page writes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// The keys, as Markdown (the label, and the keys it does not show).
    pub keys: String,
    /// What they do.
    pub help: &'static str,
    /// The footer's word, or empty.
    pub footer: String,
}

/// The rows of a key table of any mode.
pub fn rows<A>(bindings: &[Binding<A>]) -> Vec<Row> {
    bindings.iter().map(|b| Row { keys: keys(b), help: b.help, footer: footer(b) }).collect()
}

impl KeyTables<'static> {
    /// The tables the dashboard runs on.
    pub const BUILT_IN: KeyTables<'static> = KeyTables {
        dashboard: keymap::BINDINGS,
        views: keymap::VIEW_BINDINGS,
        events: keymap::EVENTS_BINDINGS,
        palette: keymap::PALETTE_BINDINGS,
        modes: &[
            ModeTable { title: keymap::READOUT_TITLE, rows: || rows(keymap::READOUT_BINDINGS) },
            ModeTable { title: keymap::LESSON_TITLE, rows: || rows(keymap::LESSON_BINDINGS) },
            ModeTable { title: keymap::QUESTION_TITLE, rows: || rows(keymap::QUESTION_BINDINGS) },
        ],
        help: keymap::HELP_BINDINGS,
    };
}

/// The page's file name under the reference directory.
pub const FILE: &str = "keys.md";

/// The keys page for `tables`.
pub fn page(tables: &KeyTables<'_>) -> String {
    let mut out = page_start("Keys", "the key tables in `src/ui/keymap.rs`");
    out.push_str(
        "Every key the dashboard knows, in the groups and the order of its `?` help, which is \
         drawn from the same tables: a key that is not here does nothing (the dashboard says so \
         when it is pressed). Keys written `a/b` come in a pair: the first does the first half \
         of the meaning, the second the other half (`m/M`: min.insync.replicas down / up). The \
         footer column is the word the bottom line shows for the key, when it shows one.\n\n\
         A config file's `[keys]` table moves a dashboard action to another key, by the name \
         in the last column (`crash = \"X\"`); see `--config` in the [command line \
         reference](cli.md).\n\n",
    );
    for group in Group::ALL {
        out.push_str(&format!("## {}\n\n", group.name()));
        if let Some(note) = group.note() {
            out.push_str(&format!("{}.\n\n", capitalized(note)));
        }
        dashboard_table(tables, group, &mut out);
        match group {
            Group::Partitions => syntax("The table's filter (`F`) takes", TABLE_FILTER_SYNTAX, &mut out),
            Group::Events => {
                out.push_str(&format!("### {}\n\n", keymap::EVENTS_TITLE));
                table(&rows(tables.events), &mut out);
                syntax(
                    "The event filter (`F` here, or `F` in the events view) takes",
                    FILTER_SYNTAX,
                    &mut out,
                );
            }
            Group::Palette => {
                out.push_str(&format!("### {}\n\n", keymap::PALETTE_TITLE));
                out.push_str(
                    "Other printable keys are typed into the line. What the line may say is the \
                     command grammar: see the [commands reference](commands.md).\n\n",
                );
                table(&rows(tables.palette), &mut out);
            }
            _ => {}
        }
    }
    for mode in tables.modes {
        out.push_str(&format!("## {}\n\n", mode.title));
        table(&(mode.rows)(), &mut out);
    }
    out.push_str(&format!("## {}\n\n", keymap::HELP_TITLE));
    table(&rows(tables.help), &mut out);
    out.trim_end().to_string() + "\n"
}

/// The dashboard keys of `group`, then the view keys listed in it, as one table.
fn dashboard_table(tables: &KeyTables<'_>, group: Group, out: &mut String) {
    out.push_str(&head(&["Key", "What it does", "Footer", "`[keys]` name"]));
    for b in tables.dashboard.iter().filter(|b| b.action.group() == group) {
        out.push_str(&row(&[keys(b), b.help.to_string(), footer(b), names(&config_names(b))]));
    }
    for v in tables.views.iter().filter(|v| v.binding.action.group() == group) {
        let replaced = tables.dashboard.iter().find(|b| b.action == v.replaces);
        let moves = replaced.map(|b| format!("moves with {}", names(&config_names(b)))).unwrap_or_default();
        let b = &v.binding;
        out.push_str(&row(&[keys(b), b.help.to_string(), footer(b), moves]));
    }
    out.push('\n');
}

/// A mode's table: key, meaning, footer.
fn table(rows: &[Row], out: &mut String) {
    out.push_str(&head(&["Key", "What it does", "Footer"]));
    for r in rows {
        out.push_str(&row(&[r.keys.clone(), r.help.to_string(), r.footer.clone()]));
    }
    out.push('\n');
}

/// The binding's label, then the character and Ctrl keys it answers to that the label does
/// not show: `` `-/+` (also `_`, `=`) ``.
fn keys<A>(b: &Binding<A>) -> String {
    // `/` parts a label (`m/M`), except when it is the key itself.
    let shown: Vec<&str> = if b.label == "/" { vec!["/"] } else { b.label.split('/').collect() };
    let also: Vec<String> =
        b.keys.iter().filter(|k| !shows(&shown, **k)).map(|k| code(&key_text(*k))).collect();
    match also.is_empty() {
        true => code(b.label),
        false => format!("{} (also {})", code(b.label), also.join(", ")),
    }
}

/// Whether a label made of `shown` parts shows `key`: named in a part, or in a range of
/// characters such as `0-9`. Keys that are no character (arrows, Home, Tab) are written with
/// symbols or short names (`↑`, `S-Tab`) and count as shown.
fn shows(shown: &[&str], key: Key) -> bool {
    let KeyCode::Char(c) = key.code else { return true };
    let text = key_text(key);
    shown.iter().any(|part| {
        let range: Vec<char> = part.chars().collect();
        *part == text
            || (!key.ctrl && range.len() == 3 && range[1] == '-' && (range[0]..=range[2]).contains(&c))
    })
}

fn footer<A>(b: &Binding<A>) -> String {
    b.footer.map(str::to_string).unwrap_or_default()
}

fn names(names: &[String]) -> String {
    names.iter().map(|n| code(n)).collect::<Vec<_>>().join(", ")
}

fn syntax(lead: &str, syntax: &str, out: &mut String) {
    out.push_str(&format!("{lead} {syntax}.\n\n"));
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_of_every_table_is_on_the_page() {
        let page = page(&KeyTables::BUILT_IN);
        for b in keymap::BINDINGS {
            assert!(page.contains(b.help), "{}", b.label);
        }
        for help in keymap::EVENTS_BINDINGS.iter().map(|b| b.help) {
            assert!(page.contains(help), "{help}");
        }
        assert!(page.contains("| `m/M` | min.insync.replicas down/up (selected topic) | min.isr | `min-isr-down`, `min-isr-up` |"));
        assert!(page.contains("moves with `filter-partitions`"));
        assert!(page.contains("| `-/+` (also `_`, `=`) |"), "{page}");
        assert!(page.contains("| `Home` (also `Ctrl-A`) |"), "{page}");
        assert!(page.contains("| `0-9` | select a broker by id |"), "{page}");
        assert!(page.contains("| `/` | search the events' text"), "{page}");
    }

    /// Every table the `?` help lists has its section here: a key table added to the help
    /// without the page fails this test. The help's sections that are not key tables (the
    /// glossary, the error codes, the grammar, the glyphs) are the other references' business.
    #[test]
    fn every_key_table_of_the_help_is_on_the_page() {
        let page = page(&KeyTables::BUILT_IN);
        let not_keys = [
            "Glossary",
            "Kafka error codes",
            "Commands",
            "Glyphs",
            crate::ui::help::READOUT_COMMANDS_TITLE,
            crate::ui::help::HELP_INTRO,
        ];
        let help = crate::ui::help::lines(crate::ui::theme::Theme::new(false));
        let titles: Vec<String> = help
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect::<String>())
            .filter(|l| !l.is_empty() && !l.starts_with(' '))
            .filter(|l| !not_keys.iter().any(|n| l.starts_with(n)))
            .collect();
        assert!(titles.len() >= Group::ALL.len() + 3, "{titles:?}");
        for title in titles {
            let heading =
                Group::ALL.iter().find(|g| g.title() == title).map_or(title.clone(), |g| g.name().into());
            let found =
                page.contains(&format!("\n## {heading}\n")) || page.contains(&format!("\n### {heading}\n"));
            assert!(found, "the help's section `{title}` has no section on the keys page");
        }
    }

    /// Another mode's table gets its section before the help's own keys.
    #[test]
    fn a_modes_table_gets_its_section() {
        let modes = [ModeTable { title: "In a lesson", rows: || rows(keymap::HELP_BINDINGS) }];
        let page = page(&KeyTables { modes: &modes, ..KeyTables::BUILT_IN });
        let at = page.find("\n## In a lesson\n\n| Key | What it does | Footer |\n").expect("the section");
        assert!(at < page.find("\n## In this help\n").unwrap(), "{page}");
    }

    /// The page follows the table: a changed help text changes it.
    #[test]
    fn another_table_gives_another_page() {
        let first = &keymap::BINDINGS[0];
        let changed = [Binding {
            keys: first.keys,
            label: first.label,
            footer: None,
            help: "HELP",
            action: first.action,
        }];
        let tables = KeyTables { dashboard: &changed, ..KeyTables::BUILT_IN };
        let page = page(&tables);
        assert!(page.contains("| `?` | HELP |  | `toggle-help` |"), "{page}");
        assert_ne!(page, super::page(&KeyTables::BUILT_IN));
    }
}
