//! The manual stays true to the program:
//!
//! - the reference pages in `docs/src/reference/` are what the code generates from its key
//!   tables, command grammar, config registry and command line (`isrlab docs` writes them);
//! - every example in README.md and `docs/src/**/*.md` holds, by the conventions in
//!   [`examples`]: shell lines run or validate, inline `isrlab …` spans validate, TOML blocks
//!   load;
//! - every relative link and `#anchor` resolves ([`links`]).
//!
//! Each problem is reported as `FILE:LINE: what`, all of a file's problems at once. The tests
//! at the end show that each check fails on a small bad example.

#[path = "docs/examples.rs"]
mod examples;
#[path = "docs/links.rs"]
mod links;
#[path = "docs/markdown.rs"]
mod markdown;

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Where the examples run; `scratch` names the test's own scratch directory.
fn env_in(scratch: &str) -> examples::Env {
    examples::Env {
        root: root(),
        bin: PathBuf::from(env!("CARGO_BIN_EXE_isrlab")),
        scratch: PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(scratch),
    }
}

fn env() -> examples::Env {
    env_in("docs-examples")
}

/// The book's Markdown files under `docs/src`, relative to the root, sorted.
fn book() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(&root().join("docs/src"), &mut files);
    let mut files: Vec<PathBuf> =
        files.into_iter().map(|p| p.strip_prefix(root()).unwrap().to_path_buf()).collect();
    files.sort();
    files
}

fn read(file: &Path) -> String {
    std::fs::read_to_string(root().join(file)).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
}

/// The problems `check` finds in each of `files`; the test fails listing them all.
fn assert_clean(files: &[PathBuf], check: impl Fn(&Path, &[markdown::Item]) -> Vec<String>) {
    let problems: Vec<String> = files.iter().flat_map(|f| check(f, &markdown::items(&read(f)))).collect();
    assert!(problems.is_empty(), "{} problem(s):\n{}", problems.len(), problems.join("\n"));
}

// ---------------------------------------------------------------------------------------
// The reference pages

/// Where a committed page and the generated one first differ, as a message naming the file
/// and the line; `None` when they are the same.
fn drift(file: &str, committed: Option<&str>, generated: &str) -> Option<String> {
    let fix = format!("run `{}` to regenerate", isrlab::docs::REGENERATE);
    let Some(committed) = committed else {
        return Some(format!("{file}: missing; {fix}"));
    };
    if committed == generated {
        return None;
    }
    let (mut old, mut new) = (committed.lines(), generated.lines());
    let mut line = 1;
    loop {
        match (old.next(), new.next()) {
            (Some(a), Some(b)) if a == b => line += 1,
            (a, b) => {
                let show =
                    |l: Option<&str>| l.map_or("(the end of the file)".to_string(), |l| format!("{l:?}"));
                return Some(format!(
                    "{file}:{line}: differs from what the code generates\n  committed: {}\n  generated: {}\n{fix}",
                    show(a),
                    show(b)
                ));
            }
        }
    }
}

#[test]
fn the_reference_pages_are_what_the_code_generates() {
    let dir = isrlab::docs::DIR;
    let pages = isrlab::docs::pages();
    let mut problems: Vec<String> = pages
        .iter()
        .filter_map(|p| {
            let path = format!("{dir}/{}", p.file);
            drift(&path, std::fs::read_to_string(root().join(&path)).ok().as_deref(), &p.text)
        })
        .collect();
    for entry in std::fs::read_dir(root().join(dir)).expect("docs/src/reference").flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if !pages.iter().any(|p| p.file == name) {
            problems.push(format!(
                "{dir}/{name}: no code generates it (the directory holds generated pages only)"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// A key, a command or a property that changes without its page is caught, with the file and
/// the first line that differs.
#[test]
fn a_changed_table_shows_as_a_changed_page() {
    use isrlab::docs::{commands, configuration, keys};
    let committed =
        |file: &str| std::fs::read_to_string(root().join("docs/src/reference").join(file)).unwrap();

    let first = &isrlab::ui::keymap::BINDINGS[0];
    let changed = [isrlab::ui::keymap::Binding {
        keys: first.keys,
        label: first.label,
        footer: first.footer,
        help: "a key that says something else",
        action: first.action,
    }];
    let tables = keys::KeyTables { dashboard: &changed, ..keys::KeyTables::BUILT_IN };
    let msg =
        drift("docs/src/reference/keys.md", Some(&committed(keys::FILE)), &keys::page(&tables)).unwrap();
    assert!(msg.starts_with("docs/src/reference/keys.md:") && msg.contains("cargo run -- docs"), "{msg}");

    let mut grammar = isrlab::cluster::command::Command::reference();
    grammar[0].about = "Something else.";
    let msg = drift("commands.md", Some(&committed(commands::FILE)), &commands::page(&grammar)).unwrap();
    let line: usize = msg.split(':').nth(1).unwrap().parse().unwrap();
    assert!(msg.contains("Something else."), "{msg}");
    assert_eq!(
        committed(commands::FILE).lines().nth(line - 1),
        Some(isrlab::cluster::command::Command::reference()[0].about)
    );

    let props = isrlab::config::PROPERTIES;
    let registry: Vec<isrlab::config::Property> =
        props[1..].iter().map(|p| isrlab::config::Property { ..*p }).collect();
    let msg =
        drift("configuration.md", Some(&committed(configuration::FILE)), &configuration::page(&registry));
    assert!(msg.unwrap().contains(props[0].name), "a property left out shows");

    assert_eq!(
        drift("keys.md", None, "x").unwrap(),
        "keys.md: missing; run `cargo run -- docs` to regenerate"
    );
    assert!(drift("f.md", Some("a\nb\n"), "a\n").unwrap().starts_with("f.md:2: differs"));
}

// ---------------------------------------------------------------------------------------
// The manual's examples and links

/// The profiles chapter holds the table `isrlab profiles --markdown` prints, after its marker.
#[test]
fn the_profiles_chapter_holds_the_profiles_table() {
    const MARKER: &str = "<!-- generated by `isrlab profiles --markdown`; tests/docs.rs checks it -->\n";
    let chapter = read(Path::new("docs/src/profiles.md"));
    let (_, table) = chapter.split_once(MARKER).expect("docs/src/profiles.md has the table's marker line");
    let generated = isrlab::config::profiles::markdown_table();
    if let Some(problem) = drift("docs/src/profiles.md (after the marker)", Some(table), &generated) {
        panic!("{problem}\n(the table is `isrlab profiles --markdown`)");
    }
}

#[test]
fn the_readme_examples_hold() {
    let env = env();
    assert_clean(&[PathBuf::from("README.md")], |f, items| examples::check(&env, f, items));
}

#[test]
fn the_books_examples_hold() {
    let env = env();
    assert_clean(&book(), |f, items| examples::check(&env, f, items));
}

#[test]
fn every_link_resolves() {
    let mut files = vec![PathBuf::from("README.md")];
    files.extend(book());
    assert_clean(&files, |f, items| links::check(&root(), f, items));
}

/// Once the book has its table of contents, every page is in it.
#[test]
fn every_page_of_the_book_is_in_its_summary() {
    let summary = PathBuf::from("docs/src/SUMMARY.md");
    if !root().join(&summary).is_file() {
        return;
    }
    let problems = links::unlisted(&summary, &markdown::items(&read(&summary)), &book());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

// ---------------------------------------------------------------------------------------
// Each check fails on a bad example

/// The problems of an inline Markdown text posing as the file `name`.
fn problems_in(name: &str, text: &str) -> Vec<String> {
    let items = markdown::items(text);
    let mut out = examples::check(&env_in("docs-examples-unit"), Path::new(name), &items);
    out.extend(links::check(&root(), Path::new(name), &items));
    out
}

#[test]
fn anchors_are_slugged_as_mdbook_and_github_do() {
    assert_eq!(markdown::slug("The event log's keys (`e` or `/`)"), "the-event-logs-keys-e-or-");
    assert_eq!(markdown::slug("Charts (160×50 and larger)"), "charts-16050-and-larger");
    assert_eq!(markdown::slug("set_link and net.KEY"), "set_link-and-netkey");
    let text =
        "# Views\n\n## Keys\n\n## Keys\n\n```toml\n# not a heading\n```\n\n## Keys\n\n## Other {#own-id}\n";
    assert_eq!(links::anchors_of(text), ["views", "keys", "keys-1", "keys-2", "own-id"]);
}

#[test]
fn a_broken_link_or_anchor_is_caught_with_its_line() {
    let text = "# Start\n\nSee [keys](reference/keys.md#sim-time), [here](#start) and [the web](https://kafka.apache.org).\n\n\
                [gone](reference/nothing.md) [bad](#nowhere)\n[wrong](reference/keys.md#no-such-heading) [out](../../src/cli.rs)\n";
    let problems = problems_in("docs/src/test.md", text);
    assert_eq!(problems.len(), 4, "{problems:#?}");
    assert!(
        problems[0].starts_with(
            "docs/src/test.md:5: link `reference/nothing.md`: docs/src/reference/nothing.md does not exist"
        ),
        "{problems:#?}"
    );
    assert!(problems[1].starts_with("docs/src/test.md:5: link `#nowhere`: no heading"), "{problems:#?}");
    assert!(problems[2].starts_with("docs/src/test.md:6: link `reference/keys.md#no-such-heading`: no heading in docs/src/reference/keys.md"), "{problems:#?}");
    assert!(problems[3].contains("outside the book"), "{problems:#?}");
    assert!(
        problems_in("README.md", "[cli](src/cli.rs) [book](docs/src/reference/cli.md#isrlab-run)").is_empty()
    );
}

#[test]
fn a_page_missing_from_the_summary_is_caught() {
    let summary = Path::new("docs/src/SUMMARY.md");
    let pages: Vec<PathBuf> = ["docs/src/SUMMARY.md", "docs/src/tour.md", "docs/src/reference/keys.md"]
        .iter()
        .map(PathBuf::from)
        .collect();
    let listed = markdown::items("# Summary\n\n- [Tour](tour.md)\n- [Keys](./reference/keys.md)\n");
    assert_eq!(links::unlisted(summary, &listed, &pages), Vec::<String>::new());
    let short = markdown::items("# Summary\n\n- [Tour](tour.md)\n");
    assert_eq!(
        links::unlisted(summary, &short, &pages),
        ["docs/src/reference/keys.md: not listed in docs/src/SUMMARY.md: mdBook leaves it out of the book"]
    );
}

#[test]
fn a_bad_toml_block_is_caught_with_its_line() {
    let good = "# T\n\n```toml\nname = \"one broker\"\nend = \"1s\"\n[cluster]\nbrokers = 1\n[[topic]]\nname = \"t\"\npartitions = 1\nreplication_factor = 1\n```\n";
    assert_eq!(problems_in("docs/src/t.md", good), Vec::<String>::new());
    let bad = good.replace("brokers = 1", "brokerz = 1");
    let problems = problems_in("docs/src/t.md", &bad);
    assert_eq!(problems.len(), 1, "{problems:#?}");
    assert!(
        problems[0].starts_with(
            "docs/src/t.md:3: the ```toml block does not load as a scenario file: docs/src/t.md:7:"
        ),
        "{problems:#?}"
    );

    let config = "```toml\n# config file\nspeed = 2\n```\n";
    assert_eq!(problems_in("docs/src/t.md", config), Vec::<String>::new());
    let problems = problems_in("docs/src/t.md", &config.replace("speed = 2", "sped = 2"));
    assert!(
        problems[0].starts_with("docs/src/t.md:1: the config file block gives warnings")
            && problems[0].contains("sped"),
        "{problems:#?}"
    );
    let unmarked = problems_in("docs/src/t.md", "```toml\nspeed = 2\n```\n");
    assert!(
        unmarked[0].contains("does not load as a scenario file") && unmarked[0].contains("# config file"),
        "{unmarked:#?}"
    );
}

#[test]
fn a_bad_command_line_is_caught_with_its_line() {
    let text = "# Try\n\n```sh\nisrlab --seed 42 --brokers 5\ncargo run --release -- --brokers 0\nisrlab --speed 500   # too fast\nisrlab run FILE.toml\n$ isrlab\n```\n\n\
                Inline: `isrlab --brokers 2` and `isrlab --topic t:1:3` and `isrlab run FILE` and `isrlab --sed 1`.\n\n\
                ```bash\nisrlab --seed 1\n```\n";
    let problems = problems_in("docs/src/t.md", text);
    let lines: Vec<&str> = problems.iter().map(|p| p.split(": ").next().unwrap()).collect();
    assert_eq!(
        lines,
        [
            "docs/src/t.md:5",
            "docs/src/t.md:6",
            "docs/src/t.md:7",
            "docs/src/t.md:8",
            "docs/src/t.md:11",
            "docs/src/t.md:11",
            "docs/src/t.md:14"
        ],
        "{problems:#?}"
    );
    assert!(problems[0].contains("--brokers 0") && problems[0].contains("1..=100"), "{problems:#?}");
    assert!(problems[2].contains("`FILE` is a placeholder"), "{problems:#?}");
    assert!(problems[3].contains("a prompt"), "{problems:#?}");
    assert!(
        problems[4].contains("`isrlab --brokers 2`") && problems[4].contains("INVALID_REPLICATION_FACTOR"),
        "{problems:#?}"
    );
    assert!(problems[5].contains("--sed"), "{problems:#?}");
    assert!(problems[6].contains("```bash block goes unchecked"), "{problems:#?}");
}

/// A headless example runs: it must end with exit code 0 or the one its comment states.
#[test]
fn a_headless_example_must_end_as_it_says() {
    let run = |line: &str| problems_in("docs/src/t.md", &format!("```sh\n{line}\n```\n"));
    assert_eq!(
        run("isrlab run tests/scenarios/fc-15b-acks-all-no-loss.toml | tail -3"),
        Vec::<String>::new()
    );
    let missing = run("isrlab run tests/scenarios/no-such-file.toml");
    assert!(
        missing.len() == 1
            && missing[0].starts_with("docs/src/t.md:2: ")
            && missing[0].contains("exited 2, not 0"),
        "{missing:#?}"
    );
    assert_eq!(run("isrlab run tests/scenarios/no-such-file.toml   # exits 2"), Vec::<String>::new());
    assert_eq!(run("NO_COLOR=1 isrlab describe --at 1s"), Vec::<String>::new());
    assert_eq!(run("isrlab --help"), Vec::<String>::new());
    let scratch = env_in("docs-examples-unit").scratch.join("reference");
    let _ = std::fs::remove_dir_all(&scratch);
    assert_eq!(run("isrlab docs"), Vec::<String>::new());
    assert!(
        scratch.join("keys.md").is_file(),
        "`isrlab docs` wrote into the scratch directory, not the checkout"
    );
}

#[test]
fn shell_lines_are_read_as_the_shell_reads_them() {
    let line = examples::isrlab_line(
        "NO_COLOR=1 cargo run --release -- --set 'acks=1' run a.toml > out.txt # exits 1",
    )
    .unwrap()
    .unwrap();
    assert_eq!(line.vars, [("NO_COLOR".to_string(), "1".to_string())]);
    assert_eq!(line.args, ["--set", "acks=1", "run", "a.toml"]);
    assert_eq!(line.exits, 1);
    assert_eq!(examples::isrlab_line("cargo test").unwrap(), None);
    assert_eq!(examples::isrlab_line("target/release/isrlab").unwrap().unwrap().args, Vec::<String>::new());
    assert!(examples::isrlab_line("isrlab --set 'acks=1").is_err());
    let words = |s: &str| s.split_whitespace().map(str::to_string).collect::<Vec<_>>();
    assert_eq!(examples::placeholder(&words("--topic NAME:PARTITIONS:RF")), Some("NAME".into()));
    assert_eq!(examples::placeholder(&words("-V --seed 42 --set acks=all")), None);
}
