//! The configuration page (`configuration.md`), written from the config registry
//! ([`crate::config::PROPERTIES`]): every property's name, scope, default, accepted values,
//! how a change takes effect, and meaning.

use super::markdown::{code, head, page_start, row};
use crate::config::{PROPERTIES, Property, Scope, UpdateMode};

/// The page's file name under the reference directory.
pub const FILE: &str = "configuration.md";

/// The configuration page for the registry `props` (in practice [`PROPERTIES`]).
pub fn page(props: &[Property]) -> String {
    let mut out = page_start("Configuration", "the config registry in `src/config/properties.rs`");
    out.push_str(
        "Every property isrlab understands. One registry checks them all, by the same rules \
         wherever they are set: `--set KEY=VALUE` on the command line, the `set` command (in \
         the palette or a scenario's `do` line, see the [commands reference](commands.md)), a \
         scenario file's `config` tables and the config view (F6). Names, defaults and \
         accepted values are Kafka's (Kafka 4.x), except the lab properties, which describe \
         the simulated world and are isrlab's own.\n\n\
         How a change takes effect (the Update column):\n\n",
    );
    for mode in UpdateMode::ALL {
        let mut meanings: Vec<&str> = Vec::new();
        let in_mode = Scope::ALL.iter().flat_map(|s| props.iter().filter(move |p| p.scope == *s));
        for p in in_mode.filter(|p| p.update_mode() == mode) {
            // The config view's meaning line starts with "static: "; here the name says it.
            let meaning = p.takes_effect().strip_prefix("static: ").unwrap_or(p.takes_effect());
            if !meanings.contains(&meaning) {
                meanings.push(meaning);
            }
        }
        if !meanings.is_empty() {
            out.push_str(&format!("- {}: {}\n", code(mode.name()), meanings.join("; ")));
        }
    }
    out.push('\n');
    for scope in Scope::ALL {
        let in_scope: Vec<&Property> = props.iter().filter(|p| p.scope == scope).collect();
        if in_scope.is_empty() {
            continue;
        }
        out.push_str(&format!("## {}\n\n{}\n\n", code(scope.name()), scope.about()));
        out.push_str(&head(&["Property", "Default", "Accepts", "Update", "Meaning"]));
        for p in in_scope {
            out.push_str(&row(&[
                code(p.name),
                code(p.default),
                p.kind.accepts(),
                p.update_mode().name().to_string(),
                p.doc.to_string(),
            ]));
        }
        out.push('\n');
    }
    out.trim_end().to_string() + "\n"
}

/// The page for the registry the program runs on.
pub fn built_in() -> String {
    page(PROPERTIES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_property_has_a_row() {
        let page = built_in();
        for p in PROPERTIES {
            assert!(page.contains(&format!("| `{}` | `{}` |", p.name, p.default)), "{}", p.name);
        }
        assert!(page.contains("- `static`: each broker takes it at its next start (:roll)\n"), "{page}");
        let client =
            "- `client`: the producer uses it for its next batches; a consumer reads it when it starts\n";
        assert!(page.contains(client), "{page}");
    }

    /// The page follows the registry: a changed default changes it.
    #[test]
    fn another_registry_gives_another_page() {
        let first = &PROPERTIES[0];
        let changed = [Property { default: "12345", ..*first }];
        let page = page(&changed);
        assert!(page.contains(&format!("| `{}` | `12345` |", first.name)), "{page}");
        assert_ne!(page, built_in());
    }
}
