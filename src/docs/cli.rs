//! The command-line page (`cli.md`), written from the clap definition ([`crate::cli::Cli`]):
//! the help of `isrlab` and of each of its visible subcommands, as `--help` prints it.

use super::markdown::{code, page_start};

/// The page's file name under the reference directory.
pub const FILE: &str = "cli.md";

/// Columns the help texts are wrapped at, whatever the terminal that generates the page.
const WIDTH: usize = 100;

/// The command-line page for `cli` (in practice `Cli::command()`); hidden subcommands are
/// left out, as `--help` leaves them out.
pub fn page(cli: clap::Command) -> String {
    let mut cli = cli.term_width(WIDTH);
    cli.build();
    let name = cli.get_name().to_string();
    let mut out = page_start("Command line", "the clap definition in `src/cli.rs`");
    out.push_str(&format!(
        "What {} and {} print. Without a subcommand isrlab opens the dashboard; the \
         subcommands run without a terminal and end with an exit code. The options marked \
         global may be given before or after a subcommand.\n\n",
        code(&format!("{name} --help")),
        code(&format!("{name} SUBCOMMAND --help")),
    ));
    section(&name, &mut cli.clone(), &mut out);
    // Hidden ones stay out, as `--help` leaves them out, and so does clap's own `help`.
    let shown = |s: &&clap::Command| !s.is_hide_set() && s.get_name() != "help";
    let subcommands: Vec<clap::Command> = cli.get_subcommands().filter(shown).cloned().collect();
    for mut sub in subcommands {
        let title = format!("{name} {}", sub.get_name());
        section(&title, &mut sub, &mut out);
    }
    out.trim_end().to_string() + "\n"
}

/// The page for the command line the program parses.
pub fn built_in() -> String {
    page(crate::cli::Cli::command_line())
}

fn section(title: &str, cmd: &mut clap::Command, out: &mut String) {
    let help = cmd.render_long_help().to_string();
    let help: Vec<&str> = help.lines().map(str::trim_end).collect();
    out.push_str(&format!("## {title}\n\n```text\n{}\n```\n\n", help.join("\n").trim()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_main_command_and_each_visible_subcommand_have_a_section() {
        let page = built_in();
        for heading in ["## isrlab\n", "## isrlab run\n", "## isrlab describe\n"] {
            assert!(page.contains(heading), "{heading}\n{page}");
        }
        assert!(page.contains("--seed <N>"), "{page}");
        assert!(!page.contains("## isrlab docs"), "the hidden subcommand stays hidden");
        assert!(!page.contains("## isrlab help"), "clap's own help subcommand is no mode");
    }

    /// The page follows the parser: another flag changes it.
    #[test]
    fn another_parser_gives_another_page() {
        let cli = <crate::cli::Cli as clap::CommandFactory>::command()
            .arg(clap::Arg::new("extra").long("extra").help("EXTRA FLAG"));
        let page = page(cli);
        assert!(page.contains("EXTRA FLAG"), "{page}");
        assert_ne!(page, built_in());
    }
}
