//! The commands page (`commands.md`), written from the command grammar
//! ([`Command::reference`]): each command's usage lines, what it does, and the Kafka tool or
//! behaviour it follows.

use super::markdown::{code, page_start};
use crate::cluster::command::{Command, CommandDoc};

/// The page's file name under the reference directory.
pub const FILE: &str = "commands.md";

/// The commands page for the grammar `docs` (in practice [`Command::reference`]).
pub fn page(docs: &[CommandDoc]) -> String {
    let mut out = page_start("Commands", "the command grammar in `src/cluster/command/`");
    out.push_str(
        "One grammar serves the command palette (`:` in the dashboard), the `do` lines of a \
         scenario file's `[[at]]` steps and recorded sessions: the same words, checked by the \
         same code, refused with the same message. The dashboard's keys send these commands \
         too (`x` is `crash B` for the selected broker).\n\n\
         In the forms below, `B` is a broker id; `T` a topic; `T-P` partition P of topic T \
         (`test_repli-0`); `A`, `B` and `N` in the network and process commands are nodes: a \
         broker id, `controller`, or `consumer-C` for consumer C; `KEY=VALUE` a property (see \
         the [configuration reference](configuration.md)). Words in `[ ]` may be left out, \
         `…` may repeat.\n\n",
    );
    out.push_str("| Command | Forms |\n| --- | --- |\n");
    for doc in docs {
        let forms: Vec<String> = doc.usage.iter().map(|u| code(u)).collect();
        out.push_str(&super::markdown::row(&[
            format!("[{}](#{})", doc.verbs.join(", "), anchor(doc)),
            forms.join("<br>"),
        ]));
    }
    out.push('\n');
    for doc in docs {
        section(doc, &mut out);
    }
    palette_only(&mut out);
    out.trim_end().to_string() + "\n"
}

/// The palette's read-only commands ([`crate::ui::readout::USAGE`]): they show the cluster
/// and change nothing, so they are not in the grammar that scenario files and recordings use.
fn palette_only(out: &mut String) {
    out.push_str(&format!(
        "## Palette only: describe, get\n\n```text\n{}\n```\n\n",
        crate::ui::readout::USAGE.join("\n")
    ));
    out.push_str(
        "These two show the cluster in Kafka's words and change nothing, so only the palette \
         takes them (not scenario files). `describe` prints what `kafka-topics.sh --describe` \
         prints, for every topic or for one (`describe T` or `describe --topic T`); `get` \
         prints a partition's state as the JSON of ZooKeeper's \
         `/brokers/topics/T/partitions/P/state` znode, filled from the KRaft metadata. Each \
         opens a pane that follows the cluster live; Esc closes it. The headless \
         `isrlab describe` and `isrlab describe --zk` print the same text.\n\n",
    );
    out.push_str("Examples: `describe`, `describe test_repli`, `get /brokers/topics/test_repli/partitions/0/state`.\n\n");
    out.push_str(&format!("## Palette only: save\n\n```text\n{}\n```\n\n", crate::ui::record::USAGE));
    out.push_str(
        "Writes the session's recording to FILE: a scenario file with the seed, the start-up \
         settings and every command at the sim instant it was applied, which `isrlab replay \
         FILE` plays again (see [Recording and replay](../record.md)). The key `w` writes it \
         to the `--record` file, else to `isrlab-seed-SEED.toml`. Like `describe` it changes \
         nothing in the cluster and is not recorded itself.\n\n",
    );
    out.push_str(&format!("## Palette only: whatif\n\n```text\n{}\n```\n\n", crate::ui::whatif::USAGE));
    out.push_str(
        "Forks the present into two runs, the run and a what-if run with one setting changed \
         (the words `set` takes), and shows them side by side: time advances both, and every \
         later command applies to both at the same sim instant (see [What if, side by \
         side](../timeline.md#what-if-side-by-side)). `whatif end` (or `V`) goes on with the \
         run shown; the what-if run kept becomes a branch whose recording holds the `set`.\n\n",
    );
}

/// The page for the grammar the program runs on.
pub fn built_in() -> String {
    page(&Command::reference())
}

/// The heading's anchor as mdBook and GitHub make it: the verbs, lower case, joined by `-`
/// where the heading has `, ` (the comma is dropped, the space becomes `-`).
fn anchor(doc: &CommandDoc) -> String {
    doc.verbs.join("-")
}

fn section(doc: &CommandDoc, out: &mut String) {
    out.push_str(&format!("## {}\n\n```text\n{}\n```\n\n", doc.verbs.join(", "), doc.usage.join("\n")));
    out.push_str(doc.about);
    out.push_str("\n\n");
    if let Some(kafka) = doc.kafka {
        out.push_str(&format!("In Kafka: {kafka}.\n\n"));
    }
    let examples: Vec<String> = doc.examples.iter().map(|e| code(e)).collect();
    let label = if examples.len() == 1 { "Example" } else { "Examples" };
    out.push_str(&format!("{label}: {}.\n\n", examples.join(", ")));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_has_a_section_with_its_forms() {
        let page = built_in();
        for doc in Command::reference() {
            assert!(page.contains(&format!("\n## {}\n", doc.verbs.join(", "))), "{:?}", doc.verbs);
            for usage in doc.usage {
                assert!(page.contains(&format!("{usage}\n")), "{usage}");
            }
            assert!(page.contains(doc.about));
        }
        assert!(page.contains("In Kafka: `kafka-topics.sh --create`"), "{page}");
    }

    /// The page follows the grammar: a changed usage line changes it.
    #[test]
    fn another_grammar_gives_another_page() {
        let mut docs = Command::reference();
        docs[0].usage = &["crash BROKER"];
        let page = page(&docs);
        assert!(page.contains("```text\ncrash BROKER\n```"), "{page}");
        assert_ne!(page, built_in());
    }
}
