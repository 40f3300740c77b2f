//! The manual's examples hold, by the conventions its writers follow:
//!
//! - A ```` ```sh ```` block holds runnable command lines. Each line that runs isrlab
//!   (`isrlab …`, a path ending in `/isrlab`, or `cargo run [--release] -- …`) is checked: a
//!   mode without a terminal (`run`, `describe`, `compare`, `export`, `check`, `lessons`, `lesson NAME --headless`, `docs`,
//!   `--help`) is run with the built
//!   binary from the repository's root and must exit 0, or the code a trailing `# exits N`
//!   states; a dashboard line is parsed by the real parser and everything the dashboard does
//!   before it opens the terminal is done (`isrlab::launch::dashboard`, then the cluster is
//!   built). Words before the program that set variables (`NO_COLOR=1 isrlab`) are passed on;
//!   a pipe or a redirection ends what is checked (`isrlab run F | head` checks `isrlab run
//!   F`). `isrlab docs` writes into a scratch directory unless the line says `--out`, and
//!   `isrlab export` writes its `--svg` and `--cast` paths under it, so a test never rewrites
//!   the checkout. A synopsis (a placeholder in CAPITALS) has no place
//!   here.
//! - An inline code span that starts with `isrlab ` is parsed and validated the same way
//!   (a mode without a terminal is validated, not run), unless it holds a placeholder in
//!   CAPITALS (`isrlab run FILE`), which makes it a synopsis.
//! - A ```` ```toml ```` block is a whole scenario file and must load, or the dashboard's
//!   config file when its first line is `# config file` and must load without a warning.
//! - A ```` ```text ```` block is an illustration and is never run; a block in any other
//!   language may not hold an isrlab line, which would go unchecked.
//!
//! Every problem is reported as `FILE:LINE: what`.

use super::markdown::Item;
use clap::Parser;
use isrlab::cli::{Cli, Mode};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// Where the examples run: the repository's root, the built binary, a scratch directory.
pub struct Env {
    /// The repository's root (the working directory of every command).
    pub root: PathBuf,
    /// The `isrlab` binary under test.
    pub bin: PathBuf,
    /// A directory the commands may write into.
    pub scratch: PathBuf,
}

/// Longest a headless example may run (a debug build).
const TIMEOUT: Duration = Duration::from_secs(300);

/// How often a running example is looked at.
const POLL: Duration = Duration::from_millis(20);

/// The problems of the examples among `items` of `file`.
pub fn check(env: &Env, file: &Path, items: &[Item]) -> Vec<String> {
    let mut problems = Vec::new();
    for item in items {
        match item {
            Item::Block { line, lang, text } => match lang.as_str() {
                "sh" => problems.extend(check_sh(env, file, *line, text)),
                "toml" => problems.extend(check_toml(file, *line, text)),
                "text" => {}
                other => problems.extend(unchecked(file, *line, other, text)),
            },
            Item::Inline { line, code } => problems.extend(check_inline(file, *line, code)),
            _ => {}
        }
    }
    problems
}

/// One command line that runs isrlab.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// Variables set before the program (`NO_COLOR=1`).
    pub vars: Vec<(String, String)>,
    /// The arguments after the program.
    pub args: Vec<String>,
    /// The exit code it must end with (`# exits N`, else 0).
    pub exits: i32,
}

/// The isrlab command of a shell line, `None` when the line runs something else. Errors: a
/// line the shell could not read, or a prompt (`$ `) in front.
pub fn isrlab_line(line: &str) -> Result<Option<Line>, String> {
    let exits = match regex::Regex::new(r"#\s*exits\s+(\d+)\s*$").expect("regex").captures(line) {
        Some(c) => c[1].parse().map_err(|_| format!("`{}` is no exit code", &c[1]))?,
        None => 0,
    };
    let words = shlex::split(line).ok_or("the shell cannot read it (an unclosed quote?)")?;
    let mut words = words.into_iter().peekable();
    let mut vars = Vec::new();
    while let Some((name, value)) = words.peek().and_then(|w| w.split_once('=')) {
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            break;
        }
        vars.push((name.to_string(), value.to_string()));
        words.next();
    }
    let words: Vec<String> = words.collect();
    let Some(program) = words.first() else { return Ok(None) };
    let rest = if program == "isrlab" || program.ends_with("/isrlab") {
        &words[1..]
    } else if program == "$" {
        return Err("a prompt (`$ `) in front: write the command alone, so it can be copied".into());
    } else if words.get(1).map(String::as_str) == Some("run") && program == "cargo" {
        let dashes = words.iter().position(|w| w == "--").unwrap_or(words.len());
        if let Some(flag) =
            words[2..dashes].iter().find(|w| !["--release", "-r", "-q", "--quiet"].contains(&w.as_str()))
        {
            return Err(format!("`cargo run {flag}` is not checked: write `cargo run --release -- ARGS`"));
        }
        words.get(dashes + 1..).unwrap_or(&[])
    } else {
        return Ok(None);
    };
    const OPERATORS: &[&str] = &["|", "||", "&&", ";", "&", ">", ">>", "<", "2>", "2>>", "&>", "2>&1"];
    let args = rest.iter().take_while(|w| !OPERATORS.contains(&w.as_str())).cloned().collect();
    Ok(Some(Line { vars, args, exits }))
}

/// The first placeholder in CAPITALS among `args` (`FILE`, `NAME`, `N`, `T-P`), which makes the
/// line a synopsis. Flags themselves (`-V`) are no placeholders; a value after `=` may be.
pub fn placeholder(args: &[String]) -> Option<String> {
    args.iter()
        .filter_map(|a| if a.starts_with('-') { a.split_once('=').map(|(_, v)| v) } else { Some(a.as_str()) })
        .flat_map(|a| a.split(|c: char| !c.is_ascii_alphabetic()))
        .find(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_uppercase()))
        .map(str::to_string)
}

/// The parsed command line. `Ok(None)`: it asks for the help or the version, which is fine.
fn parse(args: &[String]) -> Result<Option<Cli>, String> {
    match Cli::try_parse_from(std::iter::once("isrlab".to_string()).chain(args.iter().cloned())) {
        Ok(cli) => Ok(Some(cli)),
        Err(e)
            if matches!(
                e.kind(),
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
            ) =>
        {
            Ok(None)
        }
        // clap's message without its usage and tips, on one line.
        Err(e) => {
            let text = e.render().to_string();
            let message: Vec<&str> = text
                .lines()
                .take_while(|l| !l.starts_with("Usage:"))
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect();
            Err(message.join(" "))
        }
    }
}

/// Everything the command line does before it runs: for the dashboard (a lesson in it too),
/// what `main` does before the terminal opens (`launch::dashboard`, then the cluster is
/// built, as the live run builds it); for a headless scenario or lesson run, loading it; for
/// `describe`, its cluster and timeline. A config file that gives warnings counts as a problem here: a manual's example
/// should not need them.
pub fn validate(cli: &Cli) -> Result<(), String> {
    if cli.opens_dashboard() {
        let ready = isrlab::launch::dashboard(cli, None, 0).map_err(|e| e.to_string())?;
        if !ready.config.warnings.is_empty() {
            return Err(format!("the config file gives warnings: {}", ready.config.warnings.join("; ")));
        }
        return isrlab::cluster::handle::Sim::new(ready.start.spec).map(|_| ()).map_err(|e| e.to_string());
    }
    match &cli.mode {
        // The dashboard was validated above.
        None => Ok(()),
        Some(Mode::Run { .. } | Mode::Lesson { .. } | Mode::Replay { .. }) => {
            cli.scenario(0).map(|_| ()).map_err(|e| e.to_string())
        }
        Some(Mode::Describe { .. } | Mode::Serve { .. }) => {
            isrlab::launch::start(cli, 0).map(|_| ()).map_err(|e| e.to_string())
        }
        Some(Mode::Compare { vary, vary_set, .. }) => {
            isrlab::compare::runs(vary, vary_set)?;
            cli.scenario(0).map(|_| ()).map_err(|e| e.to_string())
        }
        Some(Mode::Export { .. }) => cli.scenario(0).map(|_| ()).map_err(|e| e.to_string()),
        Some(Mode::Lessons | Mode::Profiles { .. }) => Ok(()),
        Some(Mode::Docs { .. }) => Ok(()),
        Some(Mode::Check { .. }) => isrlab::check::command::validate(cli).map_err(|e| e.to_string()),
    }
}

fn check_sh(env: &Env, file: &Path, fence: usize, text: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let mut pending = String::new();
    let mut first = 0;
    for (i, raw) in text.lines().enumerate() {
        if pending.is_empty() {
            first = fence + 1 + i;
        }
        // A line ending in `\` goes on on the next one.
        if let Some(head) = raw.strip_suffix('\\') {
            pending.push_str(head);
            pending.push(' ');
            continue;
        }
        pending.push_str(raw);
        let line = std::mem::take(&mut pending);
        let at = |why: String| format!("{}:{first}: `{}`: {why}", file.display(), line.trim());
        match isrlab_line(&line) {
            Ok(None) => {}
            Err(why) => problems.push(at(why)),
            Ok(Some(cmd)) => {
                if let Some(word) = placeholder(&cmd.args) {
                    problems.push(at(format!(
                        "`{word}` is a placeholder, and a ```sh block holds runnable lines: give a real value, or show the synopsis in a ```text block or an inline span"
                    )));
                    continue;
                }
                if let Err(why) = check_command(env, &cmd) {
                    problems.push(at(why));
                }
            }
        }
    }
    problems
}

/// Parses the command; runs it when it needs no terminal, validates it when it opens the
/// dashboard.
fn check_command(env: &Env, cmd: &Line) -> Result<(), String> {
    match parse(&cmd.args)? {
        Some(cli) if cli.opens_dashboard() => {
            if cmd.exits != 0 {
                return Err("`# exits N` on a dashboard line: only a mode without a terminal is run".into());
            }
            validate(&cli)
        }
        Some(cli) => run(env, &cli, cmd),
        None => run_args(env, cmd, cmd.args.clone()),
    }
}

fn run(env: &Env, cli: &Cli, cmd: &Line) -> Result<(), String> {
    let mut args = cmd.args.clone();
    if matches!(cli.mode, Some(Mode::Docs { .. }))
        && !args.iter().any(|a| a == "--out" || a.starts_with("--out="))
    {
        args.push("--out".into());
        args.push(env.scratch.join("reference").display().to_string());
    }
    // `isrlab export` writes where the line says, under the scratch directory.
    if matches!(cli.mode, Some(Mode::Export { .. })) {
        for i in 1..args.len() {
            if matches!(args[i - 1].as_str(), "--svg" | "--cast") {
                args[i] = env.scratch.join(&args[i]).display().to_string();
            }
        }
    }
    run_args(env, cmd, args)
}

/// Runs the binary with `args` from the root; its exit code must be `cmd.exits`.
fn run_args(env: &Env, cmd: &Line, args: Vec<String>) -> Result<(), String> {
    std::fs::create_dir_all(&env.scratch).map_err(|e| format!("{}: {e}", env.scratch.display()))?;
    // One pair of files per run: the tests run side by side.
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out_path = env.scratch.join(format!("out-{run}.txt"));
    let err_path = env.scratch.join(format!("err-{run}.txt"));
    let file = |p: &Path| std::fs::File::create(p).map_err(|e| format!("{}: {e}", p.display()));
    let mut child = Command::new(&env.bin)
        .args(&args)
        .envs(cmd.vars.iter().cloned())
        .current_dir(&env.root)
        .stdin(Stdio::null())
        .stdout(file(&out_path)?)
        .stderr(file(&err_path)?)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", env.bin.display()))?;
    // Polled, not timed by the wall clock (which the crate's lint keeps out).
    let mut waited = Duration::ZERO;
    let status = loop {
        match child.try_wait().map_err(|e| e.to_string())? {
            Some(status) => break status,
            None if waited > TIMEOUT => {
                let _ = child.kill();
                return Err(format!("still running after {} s", TIMEOUT.as_secs()));
            }
            None => {
                std::thread::sleep(POLL);
                waited += POLL;
            }
        }
    };
    let code = status.code().unwrap_or(-1);
    if code == cmd.exits {
        return Ok(());
    }
    let tail = |p: &Path| {
        let text = std::fs::read_to_string(p).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(5)..].join("\n    ")
    };
    Err(format!(
        "exited {code}, not {} (mark another code with a trailing `# exits N`)\n    stdout: {}\n    stderr: {}",
        cmd.exits,
        tail(&out_path),
        tail(&err_path)
    ))
}

fn check_inline(file: &Path, line: usize, code: &str) -> Option<String> {
    if code != "isrlab" && !code.starts_with("isrlab ") {
        return None;
    }
    let at = |why: String| Some(format!("{}:{line}: `{code}`: {why}", file.display()));
    let cmd = match isrlab_line(code) {
        Ok(Some(cmd)) => cmd,
        Ok(None) => return None,
        Err(why) => return at(why),
    };
    if placeholder(&cmd.args).is_some() {
        return None;
    }
    match parse(&cmd.args) {
        Ok(Some(cli)) => validate(&cli).err().and_then(at),
        Ok(None) => None,
        Err(why) => at(why),
    }
}

fn check_toml(file: &Path, fence: usize, text: &str) -> Option<String> {
    let origin = file.display().to_string();
    if text.lines().next().map(str::trim) == Some("# config file") {
        let loaded = isrlab::user_config::parse(text, &format!("{origin}:{fence}"));
        return (!loaded.warnings.is_empty()).then(|| {
            format!("{origin}:{fence}: the config file block gives warnings: {}", loaded.warnings.join("; "))
        });
    }
    // Blank lines in front, so the error's line numbers are the file's.
    let padded = format!("{}{text}", "\n".repeat(fence));
    isrlab::scenario::parse(&origin, &padded).err().map(|e| {
        // An error with no place in the text (a missing key) points at the start: the block's.
        let e = e.to_string();
        let e = match e.strip_prefix(&format!("{origin}:1:1: ")) {
            Some(rest) => format!("{origin}:{}: {rest}", fence + 1),
            None => e,
        };
        format!(
            "{origin}:{fence}: the ```toml block does not load as a scenario file: {e} (a block of the dashboard's config file starts with the line `# config file`)"
        )
    })
}

fn unchecked(file: &Path, fence: usize, lang: &str, text: &str) -> Vec<String> {
    let shown = if lang.is_empty() { "an unlabelled".to_string() } else { format!("a ```{lang}") };
    text.lines()
        .enumerate()
        .filter(|(_, l)| matches!(isrlab_line(l), Ok(Some(_))))
        .map(|(i, l)| {
            format!(
                "{}:{}: `{}`: an isrlab line in {shown} block goes unchecked: use ```sh to run it or ```text to show it",
                file.display(),
                fence + 1 + i,
                l.trim()
            )
        })
        .collect()
}
