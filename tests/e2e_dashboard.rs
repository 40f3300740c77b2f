//! End-to-end tests of the live dashboard: the real `isrlab` binary runs in a pseudo-terminal
//! (`portable-pty`), a background thread collects everything it writes, and `vt100` turns
//! that stream into the screen a user would see. The tests type keys into the terminal and
//! wait, polling the parsed screen, until the dashboard shows what they expect.
//!
//! Nothing here asserts how fast anything happens: every wait is a poll with a generous hang
//! guard ([`HANG_GUARD`]), after which the child is killed and the test fails with the last
//! screen. On quit the tests check that the terminal was handed back as it was found:
//!
//! - `ratatui::restore` turns raw mode off (no bytes: a `tcsetattr` on the tty, which we see
//!   through the master's termios) and leaves the alternate screen (`ESC [ ? 1049 l`);
//! - dropping the `Terminal` afterwards shows the cursor again (`ESC [ ? 25 h`);
//! - after that the binary only prints its plain `isrlab: seed N …` line
//!   on stderr, which shares the terminal, so that line is the only thing allowed to follow.
//!
//! Only what needs a real terminal is tested here (keys through the tty, raw mode, the
//! alternate screen, signals, the terminal's size). What the dashboard shows at other sizes
//! is tested in process against the real simulation, in `dashboard_in_process.rs`.

use std::io::{Read, Write};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use portable_pty::{Child, CommandBuilder, ExitStatus, MasterPty, PtySize, SlavePty, native_pty_system};

mod support;
use support::{Screen, Table, broker_2_fenced_out, ids, partitions_shown};

/// How long any single wait may take before the test gives up (wall time). Far above what a
/// healthy run needs, so that a loaded machine never trips it.
const HANG_GUARD: Duration = Duration::from_secs(30);
/// Time between two looks at the screen.
const POLL: Duration = Duration::from_millis(20);

const ENTER_ALT_SCREEN: &str = "\x1b[?1049h";
const LEAVE_ALT_SCREEN: &str = "\x1b[?1049l";
const SHOW_CURSOR: &str = "\x1b[?25h";

/// A deadline `HANG_GUARD` from now.
#[allow(clippy::disallowed_methods)] // a hang guard for the test itself; the sim never sees it
fn deadline() -> Instant {
    Instant::now() + HANG_GUARD
}

#[allow(clippy::disallowed_methods)] // see `deadline`
fn passed(deadline: Instant) -> bool {
    Instant::now() >= deadline
}

/// What the reader thread has collected.
struct Output {
    /// Every byte the child wrote, in order.
    raw: Vec<u8>,
    /// The same bytes, interpreted.
    parser: vt100::Parser,
    /// The reader saw end of file (every handle on the terminal's slave side is closed).
    eof: bool,
}

/// A running dashboard in a pseudo-terminal. Dropping it kills the child if it still runs,
/// so a failing test never leaves it behind.
struct Dashboard {
    child: Box<dyn Child + Send + Sync>,
    master: Box<dyn MasterPty + Send>,
    /// Kept open until the termios check after exit (see [`Dashboard::quit_and_check`]).
    slave: Option<Box<dyn SlavePty + Send>>,
    writer: Box<dyn Write + Send>,
    output: Arc<Mutex<Output>>,
    reader: Option<JoinHandle<()>>,
    /// The terminal's line settings before the child started.
    cooked: String,
}

impl Dashboard {
    /// Starts `isrlab ARGS` in a `cols`×`rows` pseudo-terminal.
    fn start(cols: u16, rows: u16, args: &[&str]) -> Dashboard {
        Dashboard::start_with_env(cols, rows, args, &[])
    }

    /// [`Dashboard::start`] with the environment variables `env` set (after the defaults, so
    /// they override them).
    fn start_with_env(cols: u16, rows: u16, args: &[&str], env: &[(&str, &str)]) -> Dashboard {
        let size = PtySize { rows, cols, pixel_width: 0, pixel_height: 0 };
        let pair = native_pty_system().openpty(size).expect("a pseudo-terminal opens");
        let cooked = termios(&*pair.master);
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_isrlab"));
        cmd.args(args);
        cmd.cwd(env!("CARGO_MANIFEST_DIR"));
        cmd.env("TERM", "xterm-256color");
        // The developer's own config file must not change what the tests see.
        cmd.env("XDG_CONFIG_HOME", env!("CARGO_TARGET_TMPDIR"));
        cmd.env_remove("NO_COLOR");
        cmd.env_remove("ISRLAB_LOG");
        for (name, value) in env {
            cmd.env(name, value);
        }
        let child = pair.slave.spawn_command(cmd).expect("isrlab starts in the pseudo-terminal");
        let mut reader = pair.master.try_clone_reader().expect("the terminal can be read");
        let writer = pair.master.take_writer().expect("the terminal can be written");
        let rows_nz = std::num::NonZeroU16::new(rows).expect("rows > 0");
        let cols_nz = std::num::NonZeroU16::new(cols).expect("cols > 0");
        let output = Arc::new(Mutex::new(Output {
            raw: Vec::new(),
            parser: vt100::Parser::new(rows_nz, cols_nz, 0),
            eof: false,
        }));
        let sink = Arc::clone(&output);
        let reader = thread::spawn(move || {
            let mut buf = [0u8; 16 * 1024];
            loop {
                match reader.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        let mut out = lock(&sink);
                        out.raw.extend_from_slice(&buf[..n]);
                        out.parser.process(&buf[..n]);
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    // Linux answers EIO once the slave side is closed everywhere.
                    Err(_) => break,
                }
            }
            lock(&sink).eof = true;
        });
        Dashboard {
            child,
            master: pair.master,
            slave: Some(pair.slave),
            writer,
            output,
            reader: Some(reader),
            cooked,
        }
    }

    /// Sends SIGTERM to the process, as `kill` or a closing session would.
    fn terminate(&mut self) {
        let Some(pid) = self.child.process_id() else { self.fail("no process id to signal") };
        let sent = std::process::Command::new("sh").arg("-c").arg(format!("kill -TERM {pid}")).status();
        if !sent.is_ok_and(|s| s.success()) {
            self.fail("could not send SIGTERM");
        }
    }

    fn screen(&self) -> Screen {
        Screen::of(&lock(&self.output).parser)
    }

    /// Kills the child and fails the test with `why`, the last screen and the tail of the
    /// raw output.
    fn fail(&mut self, why: &str) -> ! {
        let status = match self.child.try_wait() {
            Ok(Some(s)) => format!("exited with {s:?}"),
            _ => {
                let _ = self.child.kill();
                "still running (killed)".to_string()
            }
        };
        let screen = self.screen();
        let raw = tail(&lock(&self.output).raw, 400);
        panic!("{why}\nisrlab {status}\nlast screen:\n{screen}\nlast output bytes: {raw}");
    }

    /// Polls the screen until `ready` holds; fails (after killing the child) if it does not
    /// within [`HANG_GUARD`] or if the child exits first.
    fn wait_for(&mut self, what: &str, ready: impl Fn(&Screen) -> bool) -> Screen {
        let end = deadline();
        loop {
            let screen = self.screen();
            if ready(&screen) {
                return screen;
            }
            if let Ok(Some(_)) = self.child.try_wait() {
                self.fail(&format!("isrlab exited while the test waited for {what}"));
            }
            if passed(end) {
                self.fail(&format!("{what}: not seen within {HANG_GUARD:?}"));
            }
            thread::sleep(POLL);
        }
    }

    /// Types `keys` into the terminal.
    fn press(&mut self, keys: &[u8]) {
        self.writer.write_all(keys).expect("keys reach the terminal");
        self.writer.flush().expect("keys reach the terminal");
    }

    /// Waits for the child to exit; fails after [`HANG_GUARD`].
    fn wait_exit(&mut self, after: &str) -> ExitStatus {
        let end = deadline();
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return status,
                Ok(None) if passed(end) => {
                    self.fail(&format!("isrlab did not exit within {HANG_GUARD:?} after {after}"))
                }
                Ok(None) => thread::sleep(POLL),
                Err(e) => self.fail(&format!("cannot learn whether isrlab exited: {e}")),
            }
        }
    }

    /// Asserts the dashboard took over the terminal: alternate screen and cursor hidden (waited
    /// for: ratatui flushes a frame's cells before it hides the cursor, so the two can arrive in
    /// separate reads), and raw mode on. Makes the checks after quitting meaningful.
    fn assert_took_over(&mut self) {
        self.wait_for("the alternate screen with the cursor hidden", |s| s.alternate && s.cursor_hidden);
        let now = termios(&*self.master);
        if now == self.cooked {
            self.fail("the dashboard is drawn but the terminal is not in raw mode");
        }
    }

    /// Changes the terminal's size, as dragging the window does (the child gets SIGWINCH).
    fn resize(&mut self, cols: u16, rows: u16) {
        let size = PtySize { rows, cols, pixel_width: 0, pixel_height: 0 };
        if let Err(e) = self.master.resize(size) {
            self.fail(&format!("cannot resize the terminal: {e}"));
        }
        let (rows, cols) = (std::num::NonZeroU16::new(rows), std::num::NonZeroU16::new(cols));
        lock(&self.output).parser.screen_mut().set_size(rows.expect("rows > 0"), cols.expect("cols > 0"));
    }

    /// A left click at the screen cell (`col`, `row`), counted from 0, in the SGR mouse
    /// encoding the dashboard asks the terminal for.
    fn click(&mut self, col: usize, row: usize) {
        let (x, y) = (col + 1, row + 1);
        self.press(format!("\x1b[<0;{x};{y}M\x1b[<0;{x};{y}m").as_bytes());
    }

    /// One notch of the wheel, down or up, over the cell (`col`, `row`).
    fn wheel(&mut self, down: bool, col: usize, row: usize) {
        let button = if down { 65 } else { 64 };
        self.press(format!("\x1b[<{button};{};{}M", col + 1, row + 1).as_bytes());
    }

    /// Sends `keys` (which should quit), then asserts the exit status a shell expects
    /// (`code`) and a restored terminal: the line settings are back to those from before the
    /// start, the alternate screen was left and the cursor shown as the last control
    /// sequences, and only plain text follows.
    fn quit_and_check(mut self, keys: &[u8], name: &str, code: u32) {
        self.press(keys);
        let status = self.wait_exit(name);
        if status.exit_code() != code {
            self.fail(&format!("after {name}, isrlab exited with {status:?}, not {code}"));
        }
        let settings = termios(&*self.master);
        if settings != self.cooked {
            let why = format!(
                "after {name}, the terminal is still in raw mode:\n before: {}\n after:  {settings}",
                self.cooked
            );
            self.fail(&why);
        }
        // Now let the reader reach end of file, so the output below is complete.
        drop(self.slave.take());
        let end = deadline();
        while !lock(&self.output).eof {
            if passed(end) {
                self.fail("the terminal never reported end of file after isrlab exited");
            }
            thread::sleep(POLL);
        }
        if let Some(reader) = self.reader.take() {
            reader.join().expect("the reader thread ends cleanly");
        }
        let out = lock(&self.output);
        let raw = String::from_utf8_lossy(&out.raw).into_owned();
        let screen = Screen::of(&out.parser);
        drop(out);
        let entered = raw.rfind(ENTER_ALT_SCREEN);
        let Some(left) = raw.rfind(LEAVE_ALT_SCREEN).filter(|l| entered.is_some_and(|e| e < *l)) else {
            self.fail(&format!(
                "after {name}, the output never leaves the alternate screen after entering it"
            ))
        };
        let rest = &raw[left + LEAVE_ALT_SCREEN.len()..];
        let Some(after_cursor) = rest.strip_prefix(SHOW_CURSOR) else {
            self.fail(&format!(
                "after {name}, leaving the alternate screen is not followed by showing the cursor: {}",
                tail(rest.as_bytes(), 200)
            ))
        };
        if after_cursor.contains('\x1b') {
            self.fail(&format!(
                "after {name}, control sequences follow the restore: {}",
                tail(after_cursor.as_bytes(), 200)
            ));
        }
        if !after_cursor.trim().is_empty() && !after_cursor.trim_start().starts_with("isrlab: seed ") {
            self.fail(&format!("after {name}, unexpected text follows the restore: {after_cursor:?}"));
        }
        if screen.alternate || screen.cursor_hidden {
            let why = format!(
                "after {name}, the emulated terminal has alternate screen = {}, cursor hidden = {}",
                screen.alternate, screen.cursor_hidden
            );
            self.fail(&why);
        }
    }
}

impl Drop for Dashboard {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn lock(output: &Mutex<Output>) -> MutexGuard<'_, Output> {
    output.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The terminal's line settings (input, output, control and local flags) as text; raw mode
/// changes them, and restoring puts the old ones back.
fn termios(master: &dyn MasterPty) -> String {
    let t = master.get_termios().expect("the pseudo-terminal reports its termios");
    format!("{:?} {:?} {:?} {:?}", t.input_flags, t.output_flags, t.control_flags, t.local_flags)
}

/// The last `n` bytes of `bytes`, escaped so that control sequences are readable.
fn tail(bytes: &[u8], n: usize) -> String {
    let from = bytes.len().saturating_sub(n);
    format!("{:?}", String::from_utf8_lossy(&bytes[from..]))
}

/// Starts the default cluster at `cols`×`rows`, crashes broker 2 with `2` `x`, waits until
/// the table shows it out of every ISR, then quits with `q`.
fn crash_broker_2_then_quit(cols: u16, rows: u16) {
    let mut d = Dashboard::start(cols, rows, &["--seed", "42", "--speed", "20"]);
    let before = d.wait_for("rows test_repli-0..test_repli-5", partitions_shown);
    let table = Table::read(&before).expect("the table was just read");
    for r in 0..table.rows.len() {
        let isr = ids(table.cell(r, "ISR").unwrap_or_default());
        assert!(isr.contains(&"2"), "{} starts without broker 2 in its ISR:\n{before}", table.partition(r));
    }
    d.assert_took_over();
    d.press(b"2");
    d.wait_for("broker 2 selected", |s| s.contains("▸2 "));
    d.press(b"x");
    d.wait_for("broker 2 crashed and fenced, out of every ISR but still a replica", broker_2_fenced_out);
    d.quit_and_check(b"q", "`q`", 0);
}

#[test]
fn crashing_broker_2_at_100x30_takes_it_out_of_every_isr_and_q_restores_the_terminal() {
    crash_broker_2_then_quit(100, 30);
}

#[test]
fn ctrl_c_quits_with_status_130_and_restores_the_terminal() {
    let mut d = Dashboard::start(100, 30, &["--seed", "42", "--speed", "20"]);
    d.wait_for("rows test_repli-0..test_repli-5", partitions_shown);
    // Only now: before raw mode is on, the line discipline would turn ^C into SIGINT.
    d.assert_took_over();
    d.quit_and_check(b"\x03", "Ctrl-C", 130);
}

#[test]
fn sigterm_quits_with_status_143_and_restores_the_terminal() {
    let mut d = Dashboard::start(100, 30, &["--seed", "42"]);
    d.wait_for("rows test_repli-0..test_repli-5", partitions_shown);
    d.assert_took_over();
    d.terminate();
    d.quit_and_check(b"", "SIGTERM", 143);
}

/// The row of the screen whose text contains `text`.
fn row_of(screen: &Screen, text: &str) -> Option<usize> {
    (0..screen.lines.len()).find(|&r| screen.line(r).contains(text))
}

#[test]
fn a_click_selects_a_partition_the_wheel_moves_and_a_resize_redraws() {
    let mut d = Dashboard::start(120, 40, &["--seed", "42"]);
    let screen = d.wait_for("rows test_repli-0..test_repli-5", partitions_shown);
    d.assert_took_over();
    d.press(b" ");
    let row = row_of(&screen, " test_repli-3 ").unwrap_or_else(|| d.fail("no row for test_repli-3"));
    d.click(4, row);
    d.wait_for("test_repli-3 selected by the click", |s| s.contains("▸test_repli-3"));
    d.wheel(true, 4, row);
    d.wait_for("the wheel moved the selection down 3 rows (to the last)", |s| s.contains("▸test_repli-5"));
    let strip = row_of(&screen, " Brokers ").unwrap_or_else(|| d.fail("no broker strip"));
    let col = screen.line(strip).find(" 2 ●").map(|c| screen.line(strip)[..c].chars().count() + 1);
    let col = col.unwrap_or_else(|| d.fail("no broker 2 in the strip"));
    d.click(col, strip);
    d.wait_for("broker 2 selected by the click", |s| s.contains("▸2 "));
    d.resize(80, 24);
    d.wait_for("the dashboard redrawn at 80×24", |s| {
        s.lines.len() == 24 && s.contains("▸test_repli-5") && s.contains("▸2")
    });
    d.resize(60, 20);
    d.wait_for("the too-small notice after shrinking", |s| {
        s.contains("Terminal too small") && s.contains("60×20")
    });
    d.quit_and_check(b"q", "`q` after mouse and resize", 0);
}

#[test]
fn the_config_file_moves_keys_and_warns_of_bad_entries_inside_the_dashboard() {
    let file = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("e2e-config.toml");
    std::fs::write(&file, "speed = 20\nbogus = 1\nascii = true\n[keys]\ncrash = \"X\"\n")
        .expect("config written");
    let path = file.to_str().expect("a UTF-8 path");
    let mut d = Dashboard::start(120, 40, &["--seed", "42", "--config", path]);
    d.wait_for("the warning about `bogus`", |s| s.contains("bogus: no such setting"));
    d.assert_took_over();
    let screen = d.screen();
    let all: String = (0..screen.lines.len()).map(|r| screen.line(r)).collect();
    assert!(all.is_ascii(), "ascii = true draws ASCII only:\n{screen}");
    d.press(b"2x");
    d.wait_for("the old key says where crash went", |s| s.contains("crash is on X now"));
    d.press(b"X");
    d.wait_for("X crashed broker 2", |s| s.contains("crash 2"));
    d.quit_and_check(b"q", "`q` with a config file", 0);
}

/// Whether `raw` sets a foreground or background colour: an SGR sequence (`ESC [ … m`) with
/// a colour parameter (30–38, 40–48, 90–97, 100–107; 39 and 49 only reset to the default).
fn sets_a_colour(raw: &str) -> bool {
    raw.split("\x1b[").skip(1).any(|seq| {
        let params: String = seq.chars().take_while(|c| c.is_ascii_digit() || *c == ';').collect();
        seq[params.len()..].starts_with('m')
            && params
                .split(';')
                .filter_map(|p| p.parse::<u32>().ok())
                .any(|p| matches!(p, 30..=38 | 40..=48 | 90..=97 | 100..=107))
    })
}

/// The conventions of issue 9 item 10 in the real binary: the config file found in
/// `$XDG_CONFIG_HOME/isrlab/config.toml` (its bad entry warned of inside the dashboard),
/// `--ascii` (only ASCII on screen), `NO_COLOR` (no colour sequence in the whole output,
/// where the same run without it has some), and `ISRLAB_LOG` (the log goes to
/// `$XDG_STATE_HOME/isrlab/isrlab.log`, never to the terminal).
#[test]
fn the_xdg_config_file_ascii_no_color_and_isrlab_log_in_the_real_terminal() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("e2e-xdg");
    let _ = std::fs::remove_dir_all(&dir);
    let (config, state) = (dir.join("config"), dir.join("state"));
    std::fs::create_dir_all(config.join("isrlab")).expect("config dir");
    std::fs::write(config.join("isrlab/config.toml"), "bogus = 1\n").expect("config written");
    let (config, state) = (config.to_str().expect("UTF-8"), state.to_str().expect("UTF-8"));
    let env = [("XDG_CONFIG_HOME", config), ("XDG_STATE_HOME", state), ("ISRLAB_LOG", "debug")];

    let mut coloured = Dashboard::start_with_env(120, 40, &["--seed", "42"], &env);
    coloured.wait_for("the first frame", partitions_shown);
    let raw = String::from_utf8_lossy(&lock(&coloured.output).raw).into_owned();
    assert!(sets_a_colour(&raw), "without NO_COLOR the dashboard has colours");
    coloured.quit_and_check(b"q", "`q` with colour", 0);

    let env = [env[0], env[1], env[2], ("NO_COLOR", "1")];
    let mut d = Dashboard::start_with_env(120, 40, &["--seed", "42", "--ascii"], &env);
    d.wait_for("the warning about `bogus` from the XDG config file", |s| {
        s.contains("bogus: no such setting")
    });
    d.assert_took_over();
    let screen = d.wait_for("the partition rows", |s| s.contains("test_repli-5"));
    let all: String = (0..screen.lines.len()).map(|r| screen.line(r)).collect();
    assert!(all.is_ascii(), "--ascii draws ASCII only:\n{screen}");
    d.press(b"2x");
    d.wait_for("broker 2 crashed", |s| s.contains("crash 2"));
    let raw = String::from_utf8_lossy(&lock(&d.output).raw).into_owned();
    assert!(!sets_a_colour(&raw), "NO_COLOR: no colour in the output");
    assert!(!raw.contains("DEBUG") && !raw.contains(" INFO "), "no log line on the terminal");
    d.quit_and_check(b"q", "`q` with --ascii and NO_COLOR", 0);
    let log = std::fs::read_to_string(dir.join("state/isrlab/isrlab.log")).expect("the log file");
    assert!(log.lines().any(|l| l.starts_with("DEBUG")), "ISRLAB_LOG=debug logs at debug:\n{log}");
    assert!(log.contains("crash 2"), "the command is logged");
}

#[test]
fn a_too_small_terminal_says_so_and_q_still_quits() {
    let mut d = Dashboard::start(60, 20, &["--seed", "42", "--speed", "20"]);
    d.wait_for("the too-small message", |s| {
        s.contains("Terminal too small") && s.contains("60×20") && s.contains("at least 80×24")
    });
    d.assert_took_over();
    d.quit_and_check(b"q", "`q` on the too-small screen", 0);
}
