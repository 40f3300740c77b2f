//! The partition table's keys for big clusters in isolation: the internal-topic, unhealthy and
//! selected-broker filters, the typed filter, and a selection the filter hides.

use super::*;

/// 50 brokers, 5 050 partitions, broker 7 down ([`fixture::big_cluster`]).
fn big() -> (Model, Snapshot) {
    let snap = fixture::big_cluster();
    let mut m = Model::new(1.0, Theme::new(false), &snap);
    update(&mut m, Msg::Resize(80, 24), &snap);
    (m, snap)
}

fn shown_names(m: &Model, snap: &Snapshot) -> Vec<String> {
    m.shown(snap).rows.iter().map(|&i| snap.partitions[i].tp.to_string()).collect()
}

#[test]
fn internal_topics_are_hidden_at_start_and_i_shows_them() {
    let (mut m, snap) = big();
    assert_eq!(m.partition(&snap).unwrap().tp.to_string(), "test_repli-0", "the first shown row is selected");
    assert_eq!(m.shown(&snap).rows.len(), 5_000);
    typed(&mut m, &snap, "i");
    assert_eq!(m.shown(&snap).rows.len(), 5_050);
    assert_eq!(m.partition(&snap).unwrap().tp.to_string(), "test_repli-0", "the selection stays");
    assert!(m.status.as_ref().unwrap().text.contains("internal topics too · 5 050 of 5 050 partitions"));
    typed(&mut m, &snap, "g");
    assert_eq!(m.partition(&snap).unwrap().tp.to_string(), "__consumer_offsets-0");
}

#[test]
fn unhealthy_only_keeps_the_selection_while_shown_and_moves_within_the_shown_rows() {
    let (mut m, snap) = big();
    typed(&mut m, &snap, "jjjjjj");
    assert_eq!(m.partition(&snap).unwrap().tp.to_string(), "test_repli-6", "on broker 7");
    typed(&mut m, &snap, "U");
    assert_eq!(m.partition(&snap).unwrap().tp.to_string(), "test_repli-6", "still shown: still selected");
    let names = shown_names(&m, &snap);
    assert_eq!(names.len(), 300, "3 in 50 partitions have a replica on broker 7");
    assert!(
        names
            .iter()
            .all(|n| snap.partitions.iter().any(|p| p.tp.to_string() == *n && p.replicas.contains(&7)))
    );
    typed(&mut m, &snap, "j");
    assert_eq!(m.partition(&snap).unwrap().tp.to_string(), "test_repli-7", "the next shown row");
    typed(&mut m, &snap, "jj");
    assert_eq!(m.partition(&snap).unwrap().tp.to_string(), "test_repli-56", "rows between are skipped");
    typed(&mut m, &snap, "G");
    assert_eq!(m.partition(&snap).unwrap().tp.to_string(), "test_repli-4957");
    typed(&mut m, &snap, "U");
    assert_eq!(m.partition(&snap).unwrap().tp.to_string(), "test_repli-4957", "all again: it stays");
}

#[test]
fn a_selection_the_filter_hides_moves_to_the_next_shown_partition() {
    let (mut m, snap) = big();
    typed(&mut m, &snap, "jj");
    assert_eq!(m.partition(&snap).unwrap().tp.to_string(), "test_repli-2", "not on broker 7");
    typed(&mut m, &snap, "U");
    assert_eq!(m.partition(&snap).unwrap().tp.to_string(), "test_repli-5");
    assert_eq!(m.partition_offset, 0);
}

#[test]
fn the_typed_filter_parses_edits_and_refuses_bad_lines_in_place() {
    let (mut m, snap) = big();
    typed(&mut m, &snap, "F");
    assert_eq!(m.mode, Mode::Prompt(Ask::TableFilter));
    typed(&mut m, &snap, "broker x");
    press(&mut m, &snap, KeyCode::Enter);
    assert_eq!(m.mode, Mode::Prompt(Ask::TableFilter), "a bad line stays open");
    assert!(m.prompt.error().unwrap().contains("not a broker id"));
    press(&mut m, &snap, KeyCode::Esc);
    assert_eq!(m.mode, Mode::Normal, "Esc gives the keys back to the dashboard");
    assert!(!m.table_filter.narrows());
    typed(&mut m, &snap, "F");
    typed(&mut m, &snap, "topic test_repli repli-49");
    press(&mut m, &snap, KeyCode::Enter);
    assert_eq!(m.mode, Mode::Normal);
    let names = shown_names(&m, &snap);
    assert_eq!(names.len(), 111, "repli-49, repli-490..499, repli-4900..4999: {names:?}");
    assert!(m.status.as_ref().unwrap().text.contains("111 of 5 050 partitions"));
    typed(&mut m, &snap, "F");
    assert_eq!(m.prompt.input(), "topic test_repli repli-49", "the prompt starts with the filter");
    press(&mut m, &snap, KeyCode::Char('u'));
    assert_eq!(m.prompt.input(), "topic test_repli repli-49u", "keys type into the prompt");
}

#[test]
fn b_filters_the_selected_brokers_partitions_and_arrows_step_through_all_brokers() {
    let (mut m, snap) = big();
    press(&mut m, &snap, KeyCode::Left);
    assert_eq!(m.selected_broker, Some(49), "wraps around");
    press(&mut m, &snap, KeyCode::Right);
    press(&mut m, &snap, KeyCode::Right);
    assert_eq!(m.selected_broker, Some(1));
    typed(&mut m, &snap, "b");
    typed(&mut m, &snap, "77");
    press(&mut m, &snap, KeyCode::Enter);
    assert!(m.prompt.error().unwrap().contains("no broker 77 (brokers: 0–49)"));
    press(&mut m, &snap, KeyCode::Esc);
    typed(&mut m, &snap, "b");
    typed(&mut m, &snap, "23");
    press(&mut m, &snap, KeyCode::Enter);
    assert_eq!((m.mode, m.selected_broker), (Mode::Normal, Some(23)));
    typed(&mut m, &snap, "B");
    let names = shown_names(&m, &snap);
    assert_eq!(names.len(), 300);
    assert!(names.contains(&"test_repli-21".to_string()) && !names.contains(&"test_repli-20".to_string()));
    assert_eq!(typed(&mut m, &snap, "x"), apply("crash 23"), "the keys still act on the broker");
    typed(&mut m, &snap, "B");
    assert_eq!(m.shown(&snap).rows.len(), 5_000);
}

#[test]
fn the_rows_follow_a_new_snapshot_and_the_header_counts_ignore_the_filter() {
    let (mut m, snap) = big();
    typed(&mut m, &snap, "U");
    assert_eq!(m.shown(&snap).rows.len(), 300);
    let mut healed = snap.clone();
    for p in &mut healed.partitions {
        if p.tp.partition % 2 == 0 && p.health != crate::cluster::snapshot::PartitionHealth::Healthy {
            std::sync::Arc::make_mut(p).health = crate::cluster::snapshot::PartitionHealth::Healthy;
        }
    }
    update(&mut m, Msg::Snapshot, &healed);
    assert!(m.table_rows.is_for(&healed, &m.table_filter), "filtered when the snapshot came");
    let shown = m.shown(&healed).rows.len();
    assert!(shown < 300 && shown > 0, "{shown}");
    assert_eq!(snap.health_counts().under_replicated, 303, "the header counts every partition");
}
