use super::*;
use crate::ui::app::{Msg, update};
use crate::ui::fixture;
use crate::ui::theme::Theme;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::sync::Arc;

fn model(snap: &Snapshot, w: u16, h: u16) -> Model {
    let mut m = Model::new(1.0, Theme::new(false), snap);
    update(&mut m, Msg::Resize(w, h), snap);
    m
}

fn press(m: &mut Model, snap: &Snapshot, keys: &[KeyCode]) {
    for k in keys {
        update(m, Msg::Key(KeyEvent::new(*k, KeyModifiers::NONE)), snap);
    }
}

/// Types `line` into the palette and presses Enter.
fn run(m: &mut Model, snap: &Snapshot, line: &str) {
    press(m, snap, &[KeyCode::Char(':')]);
    let typed: Vec<KeyCode> = line.chars().map(KeyCode::Char).collect();
    press(m, snap, &typed);
    press(m, snap, &[KeyCode::Enter]);
}

fn screen(m: &Model, snap: &Snapshot) -> String {
    let (w, h) = m.screen;
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| crate::ui::view::view(m, snap, f)).unwrap();
    terminal.backend().to_string()
}

#[test]
fn the_palette_reads_describe_and_get_and_leaves_the_rest_to_the_grammar() {
    assert_eq!(parse("describe"), Some(Ok(Query::Describe(None))));
    assert_eq!(parse("describe test_repli"), Some(Ok(Query::Describe(Some("test_repli".into())))));
    assert_eq!(parse("describe --topic t"), Some(Ok(Query::Describe(Some("t".into())))));
    assert_eq!(parse("describe a b"), Some(Err("usage: describe [T]".into())));
    assert_eq!(parse("describe --topic"), Some(Err("usage: describe [T]".into())));
    assert_eq!(
        parse("get /brokers/topics/secondTopic/partitions/1/state"),
        Some(Ok(Query::Get(TopicPartition::new("secondTopic", 1))))
    );
    assert_eq!(
        parse("get /brokers/ids/0"),
        Some(Err(
            "Node does not exist: /brokers/ids/0 (isrlab serves get /brokers/topics/T/partitions/P/state)"
                .into()
        ))
    );
    assert_eq!(parse("get"), Some(Err("usage: get /brokers/topics/T/partitions/P/state".into())));
    assert_eq!(parse("crash 2"), None);
    assert_eq!(parse(""), None);
}

/// `kafka-topics.sh` separates fields by tabs: the pane expands them as a terminal does and
/// wraps only between fields, the rest of a line one tab stop further in.
#[test]
fn tabs_expand_to_stops_and_lines_wrap_between_fields() {
    let line =
        "\tTopic: test_repli\tPartition: 0\tLeader: 0\tReplicas: 0,1,2\tIsr: 0,1\tElr: \tLastKnownElr: ";
    assert_eq!(
        tabbed(line, 200),
        [
            "        Topic: test_repli       Partition: 0    Leader: 0       Replicas: 0,1,2 Isr: 0,1        Elr:    LastKnownElr:"
        ]
    );
    assert_eq!(
        tabbed(line, 78),
        [
            "        Topic: test_repli       Partition: 0    Leader: 0",
            "                Replicas: 0,1,2 Isr: 0,1        Elr:    LastKnownElr:",
        ]
    );
    let long = format!("Topic: {}\tPartitionCount: 1", "x".repeat(100));
    let cut = tabbed(&long, 40);
    assert_eq!(cut[0].chars().count(), 40);
    assert!(cut[0].ends_with('…'), "a field wider than a line is cut with …: {cut:?}");
    assert_eq!(cut[1], "        PartitionCount: 1");
}

#[test]
fn describe_opens_a_live_pane_that_scrolls_and_closes_with_esc() {
    let mut snap = fixture::snapshot();
    let mut m = model(&snap, 80, 24);
    run(&mut m, &snap, "describe");
    assert_eq!(m.mode, Mode::Readout);
    let text = screen(&m, &snap);
    assert!(text.contains("kafka-topics.sh --describe · t=00:01:23.4 · live"), "{text}");
    assert!(text.contains("│ Topic: test_repli       TopicId: "), "{text}");
    assert!(text.contains("│         Topic: test_repli       Partition: 0    Leader: 0 "), "{text}");
    assert!(
        text.contains("│                 Replicas: 0,1,2 Isr: 0,1        Elr:    LastKnownElr: "),
        "{text}"
    );
    assert!(text.contains("Esc close"), "the footer says how to close it: {text}");
    // The same words as the headless `isrlab describe`.
    let headless = crate::describe::describe(&snap);
    for line in headless.lines() {
        let first = line.trim_start_matches('\t').split('\t').next().unwrap();
        assert!(text.contains(first), "{first}");
    }
    // Live: the cluster changes, the pane follows.
    let mut p = (*snap.partitions[0]).clone();
    p.isr = vec![0, 1, 2];
    snap.partitions[0] = Arc::new(p);
    update(&mut m, Msg::Snapshot, &snap);
    assert!(screen(&m, &snap).contains("Replicas: 0,1,2 Isr: 0,1,2 "), "{}", screen(&m, &snap));
    // Nothing to scroll: the text fits.
    press(&mut m, &snap, &[KeyCode::Down]);
    assert_eq!(m.readout.as_ref().map(|r| r.scroll), Some(0));
    // A big cluster's text scrolls, within its text.
    let big = fixture::big_cluster();
    press(&mut m, &big, &[KeyCode::Down]);
    assert_eq!(m.readout.as_ref().map(|r| r.scroll), Some(1));
    assert!(screen(&m, &big).contains("↑↓ more · Esc closes"));
    press(&mut m, &big, &[KeyCode::Char('k'), KeyCode::PageDown]);
    assert_eq!(m.readout.as_ref().map(|r| r.scroll), Some(18), "a page is the rows less six");
    let total = Query::Describe(None).lines(&big, 76).len();
    m.readout.as_mut().unwrap().scroll = total;
    press(&mut m, &big, &[KeyCode::PageDown]);
    assert_eq!(m.readout.as_ref().map(|r| r.scroll), Some(total - 19), "{total} lines, 19 shown");
    assert!(screen(&m, &big).contains("↑ more · Esc closes"));
    press(&mut m, &snap, &[KeyCode::Esc]);
    assert_eq!(m.mode, Mode::Normal);
    assert!(!screen(&m, &snap).contains("kafka-topics.sh"));
    assert_eq!(m.palette.history().last().map(String::as_str), Some("describe"));
}

#[test]
fn describe_of_one_topic_and_the_refusal_of_an_unknown_one() {
    let snap = fixture::snapshot();
    let mut m = model(&snap, 120, 40);
    run(&mut m, &snap, "describe test_repli");
    assert_eq!(m.mode, Mode::Readout);
    let shown = Query::Describe(Some("test_repli".into())).lines(&snap, 118).join("\n");
    assert_eq!(shown, Query::Describe(None).lines(&snap, 118).join("\n"), "the fixture has one topic");
    press(&mut m, &snap, &[KeyCode::Esc]);
    run(&mut m, &snap, "describe orders");
    assert_eq!(m.mode, Mode::Palette, "a refusal keeps the line to fix");
    assert_eq!(m.palette.input(), "describe orders");
    assert_eq!(
        m.palette.error(),
        Some(
            "Error while executing topic command : Topic 'orders' does not exist as expected (topics: test_repli)"
        )
    );
}

#[test]
fn get_shows_the_znode_as_the_seed_does_and_where_kraft_keeps_it() {
    let snap = fixture::snapshot();
    let mut m = model(&snap, 80, 24);
    run(&mut m, &snap, "get /brokers/topics/test_repli/partitions/0/state");
    assert_eq!(m.mode, Mode::Readout);
    let p = &snap.partitions[0];
    let json = r#"{"controller_epoch":1,"leader":0,"version":1,"leader_epoch":1,"isr":[0,1]}"#;
    assert_eq!(zk_state_json(p), json, "the headless `describe --zk` formatter");
    assert!(crate::describe::zk_partition_states(&snap).contains(json));
    let text = screen(&m, &snap);
    assert!(text.contains(json), "{text}");
    assert!(text.contains("KRaft mode: there is no ZooKeeper"), "{text}");
    let lines = Query::Get(p.tp.clone()).lines(&snap, 76).join(" ");
    for part in [
        "PartitionRecord",
        "PartitionChangeRecord",
        "In ZooKeeper mode",
        "/brokers/topics/test_repli/partitions/0/state",
        "leader_epoch     1",
        "isr              [0,1]",
        "partition epoch",
    ] {
        assert!(lines.contains(part), "{part}: {lines}");
    }
}

#[test]
fn get_of_a_missing_partition_or_topic_is_refused_in_kafkas_words() {
    let snap = fixture::snapshot();
    let mut m = model(&snap, 80, 24);
    run(&mut m, &snap, "get /brokers/topics/test_repli/partitions/9/state");
    assert_eq!(m.mode, Mode::Palette);
    assert_eq!(
        m.palette.error(),
        Some(
            "Node does not exist: /brokers/topics/test_repli/partitions/9/state (UNKNOWN_TOPIC_OR_PARTITION: No \
             such partition as test_repli-9 (test_repli has partitions 0 to 5))"
        )
    );
    press(&mut m, &snap, &[KeyCode::Esc]);
    run(&mut m, &snap, "get /brokers/topics/orders/partitions/0/state");
    assert!(
        m.palette
            .error()
            .unwrap()
            .ends_with("(UNKNOWN_TOPIC_OR_PARTITION: topic `orders` does not exist; topics: test_repli)")
    );
}

#[test]
fn the_palette_names_them_among_the_commands_and_the_help_lists_them() {
    let snap = fixture::snapshot();
    let mut m = model(&snap, 80, 24);
    run(&mut m, &snap, "descrbe");
    let why = m.palette.error().unwrap();
    assert!(why.starts_with("unknown command `descrbe`; commands: crash B"), "{why}");
    assert!(why.ends_with(
        "; in the palette also: describe [T] | get /brokers/topics/T/partitions/P/state | save FILE"
    ));
    let help: Vec<String> = crate::ui::help::lines(Theme::new(false))
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect();
    for usage in USAGE {
        assert!(help.iter().any(|l| l == &format!("  :{usage}")), "{usage}");
    }
    assert!(help.iter().any(|l| l == "In the describe / get pane"));
}

#[test]
fn screen_describe_80x24() {
    let snap = fixture::snapshot();
    let mut m = model(&snap, 80, 24);
    run(&mut m, &snap, "describe");
    insta::assert_snapshot!(screen(&m, &snap));
}

#[test]
fn screen_get_80x24() {
    let snap = fixture::snapshot();
    let mut m = model(&snap, 80, 24);
    run(&mut m, &snap, "get /brokers/topics/test_repli/partitions/4/state");
    insta::assert_snapshot!(screen(&m, &snap));
}

#[test]
fn screen_get_200x50() {
    let snap = fixture::snapshot();
    let mut m = model(&snap, 200, 50);
    run(&mut m, &snap, "get /brokers/topics/test_repli/partitions/4/state");
    insta::assert_snapshot!(screen(&m, &snap));
}
