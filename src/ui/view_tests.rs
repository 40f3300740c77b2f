//! Whole-screen snapshots of every view at 80×24, 120×40 and 200×60, from the fixture, and
//! the key facts each view must keep at 80×24.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use super::app::{Model, Msg, View, update};
use super::theme::Theme;
use super::{fixture, view};
use crate::cluster::snapshot::Snapshot;

const SIZES: [(u16, u16); 3] = [(80, 24), (120, 40), (200, 60)];

fn screen_of(view_key: KeyCode, w: u16, h: u16, snap: &Snapshot) -> (Model, String) {
    let mut m = Model::new(1.0, Theme::new(false), snap);
    // The full log, as these tests were written for; the story view the app starts in
    // has its own tests (`events_start_with_the_story`).
    m.events_important = false;
    update(&mut m, Msg::Resize(w, h), snap);
    update(&mut m, Msg::Key(KeyEvent::new(view_key, KeyModifiers::NONE)), snap);
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| view::view(&m, snap, f)).unwrap();
    (m, terminal.backend().to_string())
}

fn snapshots_of(name: &str, key: KeyCode, want: View, facts: &[&str]) {
    let snap = fixture::snapshot();
    for (w, h) in SIZES {
        let (m, text) = screen_of(key, w, h, &snap);
        assert_eq!(m.view, want);
        if w > 80 || want != View::Overview {
            assert!(
                text.contains(&format!("[{}]", want.name())),
                "{name} {w}×{h}: the header names the view"
            );
        }
        for fact in facts {
            assert!(text.contains(fact), "{name} at {w}×{h} lacks `{fact}`:\n{text}");
        }
        // The status line and the footer never give way.
        assert!(text.contains("selected: broker 0"), "{name} {w}×{h}: status line");
        assert!(text.contains("? help"), "{name} {w}×{h}: footer");
        insta::assert_snapshot!(format!("view_{name}_{w}x{h}"), text);
    }
}

#[test]
fn overview() {
    snapshots_of("overview", KeyCode::F(1), View::Overview, &["test_repli-0", "acked lost"]);
}

#[test]
fn partition() {
    snapshots_of("partition", KeyCode::F(2), View::Partition, &["test_repli-0 logs", "HW 1380", "Events"]);
}

#[test]
fn brokers() {
    snapshots_of(
        "brokers",
        KeyCode::F(3),
        View::Brokers,
        &[
            "crashed 12s",
            "leads 4",
            "1→0 delay 50ms",
            "←1 (2 partitions): session 1 epoch 1377, leader has it",
        ],
    );
}

#[test]
fn clients() {
    snapshots_of("clients", KeyCode::F(4), View::Clients, &["producer 0", "sent 8342"]);
}

#[test]
fn events() {
    snapshots_of("events", KeyCode::F(5), View::Events, &["Events", "fenced"]);
}

#[test]
fn config() {
    snapshots_of("config", KeyCode::F(6), View::Config, &["replica.lag.time.max.ms", "30000", "Enter edit"]);
}

#[test]
fn tab_goes_round_every_view_and_shift_tab_back() {
    let snap = fixture::snapshot();
    let mut m = Model::new(1.0, Theme::new(false), &snap);
    m.events_important = false;
    let mut seen = vec![m.view];
    for _ in 0..6 {
        update(&mut m, Msg::Key(KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE)), &snap);
        seen.push(m.view);
    }
    assert_eq!(&seen[..6], &View::ALL);
    assert_eq!(m.view, View::Overview);
    update(&mut m, Msg::Key(KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT)), &snap);
    assert_eq!(m.view, View::Config);
}

#[test]
fn arrows_select_brokers_in_the_broker_view_and_properties_in_the_config_view() {
    let snap = fixture::snapshot();
    let mut m = Model::new(1.0, Theme::new(false), &snap);
    m.events_important = false;
    let press = |m: &mut Model, k| update(m, Msg::Key(KeyEvent::new(k, KeyModifiers::NONE)), &snap);
    press(&mut m, KeyCode::F(3));
    press(&mut m, KeyCode::Down);
    assert_eq!(m.selected_broker, Some(1));
    assert_eq!(m.selected_partition, 0, "the partition selection stays");
    press(&mut m, KeyCode::End);
    assert_eq!(m.selected_broker, Some(2));
    press(&mut m, KeyCode::F(6));
    press(&mut m, KeyCode::Down);
    press(&mut m, KeyCode::Down);
    assert_eq!(m.config_selected, 2);
    for c in "/session".chars() {
        press(&mut m, KeyCode::Char(c));
    }
    press(&mut m, KeyCode::Enter);
    let rows = super::config_view::rows(&m);
    assert!(rows.iter().all(|p| format!("{} {}", p.name, p.doc).contains("session")), "filtered");
    assert!(rows.iter().any(|p| p.name == "broker.session.timeout.ms"));
    assert_eq!(m.config_selected, 0);
}

/// At 80 columns the config view gives way by whole columns (the scope goes to the meaning
/// pane): no number is cut, Long.MAX_VALUE reads `Long.MAX` with its exact value in the
/// meaning pane, and an unset value is spelled `null` like its default.
#[test]
fn the_config_view_at_80_columns_cuts_no_number() {
    let snap = fixture::snapshot();
    let (_, text) = screen_of(KeyCode::F(6), 80, 24, &snap);
    assert!(!text.contains('—'), "{text}");
    let row = text.lines().find(|l| l.contains("leader.replication.throttled.rate")).expect("the row");
    assert!(row.contains("Long.MAX Long.MAX"), "{row}");
    assert!(!row.contains('…'), "{row}");
    let cut = regex::Regex::new(r"[0-9]…").unwrap();
    for line in text.lines().filter(|l| l.contains("replica.")) {
        assert!(!cut.is_match(line), "a cut number: {line}");
    }
    let mut m = Model::new(1.0, Theme::new(false), &snap);
    update(&mut m, Msg::Resize(80, 24), &snap);
    for k in [KeyCode::F(6), KeyCode::Down, KeyCode::Down, KeyCode::Down, KeyCode::Down, KeyCode::Down] {
        update(&mut m, Msg::Key(KeyEvent::new(k, KeyModifiers::NONE)), &snap);
    }
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
    terminal.draw(|f| view::view(&m, &snap, f)).unwrap();
    let text = terminal.backend().to_string();
    assert!(text.contains("Long.MAX = 9223372036854775807"), "the exact value in the meaning pane:\n{text}");
}

/// Selecting broker 1 marks its id, bold and underlined (no colour needed), in the Replicas,
/// ISR and LEO cells of the overview's partition rows, and no other id.
#[test]
fn the_selected_brokers_replicas_are_marked_in_the_partition_table() {
    let snap = fixture::snapshot();
    let mut m = Model::new(1.0, Theme::new(false), &snap);
    m.events_important = false;
    update(&mut m, Msg::Resize(120, 40), &snap);
    update(&mut m, Msg::Key(KeyEvent::new(KeyCode::Char('1'), KeyModifiers::NONE)), &snap);
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
    terminal.draw(|f| view::view(&m, &snap, f)).unwrap();
    let buf = terminal.backend().buffer();
    let first_row = 4; // header, strip, settings, table titles
    let marked: Vec<String> = (0..120)
        .map(|x| &buf[(x, first_row)])
        .filter(|c| super::highlight::is_marked(c.style()))
        .map(|c| c.symbol().to_string())
        .collect();
    // test_repli-0: replicas 0,1,2, ISR 0,1, LEOs 0:… 1:… 2:…
    assert_eq!(
        marked,
        ["1", "1", "1"],
        "row: {:?}",
        (0..120).map(|x| buf[(x, first_row)].symbol()).collect::<String>()
    );
}

/// The config view's in-place editor at every size: Enter opens it in the selected row on
/// the current value; a line the palette's parser refuses shows the parser's reason in the
/// row (and in full below), the cursor stays in the value cell, and the edit stays open.
#[test]
fn config_edit_in_place() {
    let snap = fixture::snapshot();
    for (w, h) in SIZES {
        let (mut m, _) = screen_of(KeyCode::F(6), w, h, &snap);
        let press = |m: &mut Model, k| update(m, Msg::Key(KeyEvent::new(k, KeyModifiers::NONE)), &snap);
        for c in "/replica.lag".chars() {
            press(&mut m, KeyCode::Char(c));
        }
        press(&mut m, KeyCode::Enter);
        press(&mut m, KeyCode::Enter);
        assert_eq!(m.prompt.input(), "30000", "{w}×{h}");
        press(&mut m, KeyCode::Char(' '));
        press(&mut m, KeyCode::Char('s'));
        press(&mut m, KeyCode::Enter);
        let why = crate::cluster::command::Command::parse("set replica.lag.time.max.ms=30000 s")
            .unwrap_err()
            .message;
        assert_eq!(m.prompt.error(), Some(why.as_str()), "{w}×{h}");
        assert_eq!(m.mode, super::app::Mode::Prompt(super::app::Ask::ConfigValue), "the edit stays open");
        let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
        terminal.draw(|f| view::view(&m, &snap, f)).unwrap();
        let text = terminal.backend().to_string();
        let row = text.lines().find(|l| l.contains("▸replica.lag.time.max.ms")).expect("the edited row");
        assert!(row.contains("30000 s") && row.contains('✖'), "{w}×{h}: {row}");
        insta::assert_snapshot!(format!("config_edit_{w}x{h}"), text);
        press(&mut m, KeyCode::Esc);
        assert!(m.config_edit.is_none() && m.mode == super::app::Mode::Normal);
    }
}

/// Every abbreviation a view shows is defined in the help's glossary: each view and the help
/// at every size are walked for acronyms (two or more capitals, e.g. `URP`, `<minISR`, outside
/// Kafka's UPPER_SNAKE error names) and for the short forms the screens are known to use
/// (`Ep`, `ctrl`, `lag.max`, `Ldr`, `p0`, `hb 1.2s`, `ep 1`, the short states `fence in 5s`,
/// `HW waits 2`, `HW <minISR`, `reassign`, …). The fixture alone never shows a crash story's
/// short states at 80 columns, so the screens of one on the real sim are walked too
/// (`Ldr`, `p0`, `hb`, `ep 1`, `fence in 5s` and `HW waits 2` went unexplained). A new
/// abbreviation without a definition fails here, and so does a Kafka error code shown on
/// screen without its line in the glossary.
#[test]
fn every_abbreviation_on_screen_is_in_the_glossary() {
    let mut missing = unexplained(&fixture::snapshot(), &SIZES);
    missing.extend(unexplained(&crash_story(), &[(80, 24), (120, 40)]));
    assert!(missing.is_empty(), "on screen but not in the help's glossary: {missing:?}");
}

/// The README's data-loss recipe on the real sim: both followers of broker 0's partitions
/// stop fetching, records arrive, then broker 0 crashes and is not fenced yet.
fn crash_story() -> Snapshot {
    use crate::cluster::command::Command;
    use crate::cluster::handle::Sim;
    use crate::cluster::spec::ClusterSpec;
    let mut sim = Sim::new(ClusterSpec::default_run(42)).expect("the default run is valid");
    let apply = |sim: &mut Sim, line: &str| sim.apply(&Command::parse(line).expect(line)).expect(line);
    sim.advance_to(2_000);
    apply(&mut sim, "pause-fetch 1");
    apply(&mut sim, "pause-fetch 2");
    sim.advance_to(4_000);
    apply(&mut sim, "crash 0");
    sim.advance_to(5_000);
    sim.snapshot()
}

/// The abbreviations and error codes on the screens of `snap` (every view and the help, at
/// each of `sizes`) that the help's glossary does not define.
fn unexplained(snap: &Snapshot, sizes: &[(u16, u16)]) -> std::collections::BTreeSet<String> {
    // Short forms a capitals pattern cannot find.
    const SHORT_FORMS: [&str; 8] =
        ["Ep", "ctrl", "lag.max", "min.insync", "p50", "p99", "idempotent", "rec/s"];
    // Capitals that are not abbreviations: the palette grammar's placeholders, and the marks
    // row's `H` and `E` glyphs side by side.
    const NOT_TERMS: [&str; 6] = ["KEY", "VALUE", "PROPERTY", "FILE", "SEED", "HE"];
    // Lower-case short forms with a number, and one-capital ones, each with its glossary term.
    let patterns: Vec<(regex::Regex, &str)> = [
        (r"(?:^|[^\w.])Ldr(?:$|\W)", "Ldr"),
        (r"(?:^|[^\w.:<])[pc]\d+(?:$|[^\w.])", "p0"),
        (r"(?:^|\W)hb \d", "hb"),
        (r"(?:^|\W)ep \d", "ep"),
        (r"(?:^|\W)fence in \d", "fence in Ns"),
        (r"(?:^|\W)HW waits \d", "HW waits N"),
        (r"(?:^|\W)HW <minISR", "HW <minISR"),
        (r"(?:^|[^\w:])reassign(?:$|[^\w-])", "reassign"),
    ]
    .into_iter()
    .map(|(p, term)| (regex::Regex::new(p).expect("a valid pattern"), term))
    .collect();
    let defined = |token: &str| {
        let terms = super::help::GLOSSARY.iter().flat_map(|(term, _)| term.split(" / "));
        // `MAX` of `Long.MAX`: the regex below sees only the part after the dot.
        terms
            .into_iter()
            .any(|t| t == token || token.strip_suffix('s') == Some(t) || t.ends_with(&format!(".{token}")))
    };
    let acronym =
        regex::Regex::new(r"(?:^|[^A-Za-z0-9_])(<?[a-z]*[A-Z]{2,}[a-z]*)(?:$|[^A-Za-z0-9_])").unwrap();
    let help = help_text();
    let explained = |name: &str| glossary_explains(&help, name);
    let mut missing = std::collections::BTreeSet::new();
    let keys = [
        KeyCode::F(1),
        KeyCode::F(2),
        KeyCode::F(3),
        KeyCode::F(4),
        KeyCode::F(5),
        KeyCode::F(6),
        KeyCode::Char('?'),
    ];
    for key in keys {
        for &(w, h) in sizes {
            let (_, text) = screen_of(key, w, h, snap);
            for line in text.lines() {
                // Overlapping matches: scan from each match's end less its closing character.
                let mut at = 0;
                while let Some(c) = acronym.captures_at(line, at) {
                    let m = c.get(1).expect("the token");
                    let token = m.as_str();
                    // A Kafka error name (or a piece of one a wrapped line cut) is Kafka's word.
                    let error_name = crate::kafka::errors::ALL.iter().any(|e| e.name().contains(token));
                    // The tail of a defined term that a popup's border cuts (`│SR` of `ISR`).
                    let cut_by_border = line[..m.start()].ends_with('│')
                        && super::help::GLOSSARY
                            .iter()
                            .any(|(term, _)| term.split(" / ").any(|t| t.ends_with(token)));
                    if !NOT_TERMS.contains(&token) && !error_name && !cut_by_border && !defined(token) {
                        missing.insert(token.to_string());
                    }
                    at = m.end();
                }
                for e in crate::kafka::errors::ALL {
                    let on_screen = regex::Regex::new(&format!(r"(?:^|[^A-Z_]){}(?:$|[^A-Z_])", e.name()))
                        .expect("an error name is a plain word");
                    if on_screen.is_match(line) && !explained(e.name()) {
                        missing.insert(e.name().to_string());
                    }
                }
                for form in SHORT_FORMS.iter().chain(&["fetch session"]) {
                    if line.contains(form) && !defined(form) {
                        missing.insert(form.to_string());
                    }
                }
                for (pattern, term) in &patterns {
                    if pattern.is_match(line) && !defined(term) {
                        missing.insert(term.to_string());
                    }
                }
            }
        }
    }
    missing
}

/// The help's lines as text.
fn help_text() -> Vec<String> {
    super::help::lines(Theme::new(false))
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect()
}

/// Whether the help's glossary has a line for error code `name`, as drawn.
fn glossary_explains(help: &[String], name: &str) -> bool {
    help.iter().any(|l| l.starts_with(&format!("  {name} ")))
}

/// Issue 9: each Kafka error code a producer can count, shown alone in the clients view at
/// 80×24, has its line in the help's glossary, saying whether it is retried.
#[test]
fn every_error_code_a_client_shows_is_explained_in_the_glossary() {
    let help = help_text();
    let mut missing = Vec::new();
    for e in crate::kafka::errors::ALL {
        let mut snap = fixture::snapshot();
        snap.producers[0].errors = [(e.name().to_string(), 3)].into_iter().collect();
        let (_, text) = screen_of(KeyCode::F(4), 80, 24, &snap);
        assert!(text.contains(&format!("{} 3", e.name())), "{} not on screen:\n{text}", e.name());
        let line = help.iter().find(|l| l.starts_with(&format!("  {} ", e.name())));
        match line {
            Some(l)
                if l.contains("retriable")
                    || help
                        .iter()
                        .skip_while(|x| *x != l)
                        .nth(1)
                        .is_some_and(|n| n.contains("retriable")) => {}
            _ => missing.push(e.name()),
        }
    }
    assert!(missing.is_empty(), "shown but not in the glossary: {missing:?}");
}
