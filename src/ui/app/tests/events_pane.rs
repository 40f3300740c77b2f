//! The Events pane's keys in isolation: scrolling back while events arrive, the important-only
//! filter, search, going to a sim time, the typed filter, and the keys that still work while
//! the pane has them.

use super::*;

/// `snap` after `n` more events arrived (broker 1 crashing over and over), keeping at most
/// `keep` of them as the cluster does.
fn arrived(snap: &Snapshot, n: u64, keep: usize) -> Snapshot {
    use crate::sim::events::{ClusterEvent, EventKind};
    let mut next = snap.clone();
    let mut kept: Vec<ClusterEvent> = snap.recent_events.to_vec();
    for i in 0..n {
        kept.push(ClusterEvent {
            at: crate::sim::SimTime::from_ms(snap.now + i),
            kind: EventKind::BrokerCrashed { broker: 1 },
        });
    }
    let drop = kept.len().saturating_sub(keep);
    next.recent_events = kept.split_off(drop).into();
    next.event_count += n;
    next
}

#[test]
fn scrolled_back_events_hold_still_while_new_ones_arrive() {
    let (mut m, snap) = model();
    // The fixture keeps events 9..=20 of 21.
    assert_eq!(events::bottom(&snap, m.events_anchor, false), Some(20));
    typed(&mut m, &snap, "[[");
    assert_eq!(m.events_anchor, Some(18));
    assert_eq!(events::newer_count(&snap, m.events_anchor, false), 2);

    let busier = arrived(&snap, 5, 300);
    update(&mut m, Msg::Snapshot, &busier);
    assert_eq!(m.events_anchor, Some(18), "new events do not move the view");
    let shown = events::shown_events(&busier, m.events_anchor, false);
    assert_eq!(shown.last().map(|e| e.at), snap.recent_events.get(9).map(|e| e.at));
    assert_eq!(events::newer_count(&busier, m.events_anchor, false), 7);
    assert!(
        events::title(&busier, m.events_anchor, false, 200).contains("scrolled back, 7 newer (} to follow)")
    );

    typed(&mut m, &busier, "]");
    assert_eq!(m.events_anchor, Some(19));
    typed(&mut m, &busier, "}");
    assert_eq!(m.events_anchor, None);
    typed(&mut m, &busier, "]");
    assert_eq!(m.status.as_ref().map(|s| s.kind), Some(StatusKind::Info), "already following");
    assert_eq!(m.events_anchor, None);

    // Forward onto the newest event follows again.
    typed(&mut m, &busier, "[]");
    assert_eq!(m.events_anchor, None);
}

#[test]
fn scrolling_stops_at_the_oldest_kept_event() {
    let (mut m, snap) = model();
    typed(&mut m, &snap, &"[".repeat(11));
    assert_eq!(m.events_anchor, Some(9));
    m.status = None;
    typed(&mut m, &snap, "[");
    assert_eq!(m.events_anchor, Some(9));
    assert!(
        m.status
            .as_ref()
            .is_some_and(|s| s.text.contains("9 older ones are no longer kept (the newest 12 are)"))
    );

    // Once the anchored events age out, the pane shows the oldest kept one.
    let later = arrived(&snap, 20, 12);
    assert_eq!(events::bottom(&later, m.events_anchor, false), Some(29));
    typed(&mut m, &later, "]");
    assert_eq!(m.events_anchor, Some(30));
}

#[test]
fn the_filter_keeps_only_important_events() {
    let (mut m, snap) = model();
    typed(&mut m, &snap, "f");
    assert!(m.events_important);
    let shown = events::shown_events(&snap, m.events_anchor, true);
    assert_eq!(shown.len(), 9, "topic creation, the config echo and the produce failure are hidden");
    assert!(shown.iter().all(|e| events::is_important(&e.kind)));
    assert!(events::title(&snap, None, true, 80).ends_with("· important only "));

    // With the filter on, scrolling stops at the oldest important event (index 11).
    typed(&mut m, &snap, &"[".repeat(9));
    assert_eq!(m.events_anchor, Some(11));
    typed(&mut m, &snap, "[");
    assert_eq!(m.events_anchor, Some(11));
    typed(&mut m, &snap, "f[");
    assert!(!m.events_important);
    assert_eq!(m.events_anchor, Some(10), "without the filter the config echo shows");

    // Filtered again, the pane shows the oldest important event and moves on from there.
    typed(&mut m, &snap, "f");
    assert_eq!(events::bottom(&snap, m.events_anchor, true), Some(11));
    typed(&mut m, &snap, "]");
    assert_eq!(m.events_anchor, Some(12));
    assert_eq!(events::newer_count(&snap, m.events_anchor, true), 7);
}

fn line(model: &mut Model, snap: &Snapshot, text: &str) {
    typed(model, snap, text);
    press(model, snap, KeyCode::Enter);
}

#[test]
fn e_gives_the_keys_to_the_events_and_esc_gives_them_back() {
    let (mut m, snap) = model();
    typed(&mut m, &snap, "e");
    assert_eq!(m.mode, Mode::Events);
    // Keys of the pane now: x pages nothing and crashes nothing.
    assert!(typed(&mut m, &snap, "x").is_empty());
    press(&mut m, &snap, KeyCode::PageUp);
    assert!(m.events_anchor.is_some(), "PgUp scrolls the events, not the partitions");
    press(&mut m, &snap, KeyCode::End);
    assert_eq!(m.events_anchor, None);
    press(&mut m, &snap, KeyCode::Home);
    assert_eq!(m.events_anchor, Some(events::indexed(&snap, false).next().unwrap().0));
    press(&mut m, &snap, KeyCode::Esc);
    assert_eq!(m.mode, Mode::Normal);
}

#[test]
fn a_page_moves_as_many_events_as_the_pane_shows() {
    let (mut m, snap) = model();
    update(&mut m, Msg::Resize(120, 40), &snap);
    let snap = arrived(&snap, 100, 300);
    typed(&mut m, &snap, "e");
    press(&mut m, &snap, KeyCode::PageUp);
    let newest = events::bottom(&snap, None, false).unwrap();
    let area = view::events_area(&m, &snap).unwrap();
    let rows = u64::from(area.height - 1);
    assert_eq!(m.events_anchor, Some(newest - rows), "one event a line: a page is the pane's rows");
    press(&mut m, &snap, KeyCode::PageDown);
    assert_eq!(m.events_anchor, None, "a page forward from there follows again");
}

#[test]
fn slash_searches_and_n_and_shift_n_move_between_hits() {
    let (mut m, snap) = model();
    typed(&mut m, &snap, "/");
    assert_eq!(m.mode, Mode::Prompt(Ask::Search));
    line(&mut m, &snap, "REMOVED FROM ISR");
    assert_eq!(m.mode, Mode::Events);
    let hits: Vec<u64> = events::indexed(&snap, false)
        .filter(|(_, e)| e.kind.to_string().contains("removed from ISR"))
        .map(|(i, _)| i)
        .collect();
    assert!(hits.len() >= 3, "{hits:?}");
    let newest = events::bottom(&snap, None, false).unwrap();
    let last = *hits.last().unwrap();
    assert_eq!(m.events_anchor, (last != newest).then_some(last), "the newest hit is at the bottom");
    assert!(m.status.as_ref().unwrap().text.contains(&format!("{} in the events kept", hits.len())));
    typed(&mut m, &snap, "n");
    assert_eq!(m.events_anchor, Some(hits[hits.len() - 2]));
    typed(&mut m, &snap, "nnnnnnnn");
    assert_eq!(m.events_anchor, Some(hits[0]), "n stops at the oldest hit");
    assert!(m.status.as_ref().unwrap().text.contains("no older event"));
    typed(&mut m, &snap, "N");
    assert_eq!(m.events_anchor, Some(hits[1]));

    // A search without a hit is explained in the prompt, which stays open.
    typed(&mut m, &snap, "/");
    line(&mut m, &snap, "zebra");
    assert_eq!(m.mode, Mode::Prompt(Ask::Search));
    assert!(m.prompt.error().unwrap().contains("no event shown holds `zebra`"));
    press(&mut m, &snap, KeyCode::Esc);
    assert_eq!(m.mode, Mode::Events);
}

#[test]
fn g_goes_to_a_sim_time_typed_as_scenario_files_write_it() {
    let (mut m, snap) = model();
    typed(&mut m, &snap, "eg");
    line(&mut m, &snap, "76s");
    let bottom = events::bottom(&snap, m.events_anchor, false).unwrap();
    let shown = events::shown_events(&snap, m.events_anchor, false);
    assert!(shown.last().unwrap().at.as_ms() <= 76_000, "{bottom}");
    assert!(events::indexed(&snap, false).any(|(i, e)| i == bottom + 1 && e.at.as_ms() > 76_000));
    typed(&mut m, &snap, "g");
    line(&mut m, &snap, "soon");
    assert_eq!(m.mode, Mode::Prompt(Ask::GoTo), "a bad time keeps the prompt open");
    assert!(m.prompt.error().is_some());
}

#[test]
fn the_filter_prompt_keeps_one_broker_or_kind_and_refuses_unknown_words() {
    let (mut m, snap) = model();
    typed(&mut m, &snap, "eF");
    line(&mut m, &snap, "broker 2");
    let shown = events::shown_events(&snap, None, m.events_lens());
    assert!(!shown.is_empty());
    assert!(shown.iter().all(|e| e.kind.to_string().contains('2')), "{shown:?}");
    assert!(events::title(&snap, None, m.events_lens(), 120).contains("only broker 2"));
    typed(&mut m, &snap, "F");
    assert_eq!(m.prompt.input(), "broker 2", "the prompt starts from the current filter");
    press(&mut m, &snap, KeyCode::Char('u'));
    line(&mut m, &snap, "");
    assert!(
        m.prompt.error().unwrap().contains("unknown word `2u`")
            || m.prompt.error().unwrap().contains("broker 2u")
    );
    assert_eq!(m.events_filter.broker, Some(2), "a refused filter changes nothing");
    press(&mut m, &snap, KeyCode::Esc);
    typed(&mut m, &snap, "c");
    assert!(m.events_filter.is_empty());
}

/// Issue 9: `election broker 99` used to pass and show "none of the events pass the filter";
/// names the cluster lacks are refused as the partition table's filter refuses them.
#[test]
fn the_events_filter_refuses_brokers_topics_partitions_and_clients_the_cluster_lacks() {
    let (mut m, snap) = model();
    typed(&mut m, &snap, "e");
    let topic = snap.partitions[0].tp.topic.to_string();
    for (words, why) in [
        ("election broker 99".to_string(), "no broker 99 (brokers: 0–2)".to_string()),
        ("topic nosuch".to_string(), "no topic or partition `nosuch`".to_string()),
        (format!("partition {topic}-99"), format!("no partition {topic}-99")),
        ("producer 9".to_string(), "no producer 9 (producers: ".to_string()),
        ("lsos".to_string(), "unknown word `lsos` (words: a kind (loss election".to_string()),
    ] {
        typed(&mut m, &snap, "F");
        line(&mut m, &snap, &words);
        let error = m.prompt.error().unwrap_or_default().to_string();
        assert!(error.starts_with(&why), "{words}: {error}");
        assert!(m.events_filter.is_empty(), "{words}: a refused filter changes nothing");
        press(&mut m, &snap, KeyCode::Esc);
    }
    typed(&mut m, &snap, "F");
    line(&mut m, &snap, "election broker 2");
    assert_eq!(m.events_filter.broker, Some(2));
}

#[test]
fn brace_follows_the_newest_events_from_the_pane_too_and_says_so() {
    let (mut m, snap) = model();
    typed(&mut m, &snap, "e");
    assert_eq!(m.mode, Mode::Events);
    m.events_anchor = Some(3);
    m.say(StatusKind::Info, "events up to 00:00:01.000");
    typed(&mut m, &snap, "}");
    assert_eq!(m.events_anchor, None);
    let status = m.status.clone().expect("a status");
    assert!(status.text.contains("follows the newest"), "{}", status.text);
}

#[test]
fn f_replaces_the_word_that_every_event_is_shown() {
    let (mut m, snap) = model();
    typed(&mut m, &snap, "ec");
    assert!(m.status.as_ref().unwrap().text.contains("every event again"));
    typed(&mut m, &snap, "f");
    assert!(m.events_important);
    let text = &m.status.as_ref().unwrap().text;
    assert!(text.contains("important events only"), "{text}");
}

#[test]
fn going_before_the_oldest_shown_event_says_why_nothing_is_older() {
    let (mut m, mut snap) = model();
    m.events_important = true;
    let oldest_kept = snap.recent_events.iter().position(|e| events::is_important(&e.kind)).unwrap();
    assert!(oldest_kept > 0, "the fixture's first event is not important");
    snap.event_count = snap.recent_events.len() as u64;
    typed(&mut m, &snap, "eg0");
    press(&mut m, &snap, KeyCode::Enter);
    let error = m.prompt.error().unwrap().to_string();
    assert!(!error.contains("no longer kept"), "nothing was dropped: {error}");
    assert!(error.contains(&format!("{oldest_kept} older ones are hidden by the pane's filter")), "{error}");
    press(&mut m, &snap, KeyCode::Esc);
    press(&mut m, &snap, KeyCode::Home);
    press(&mut m, &snap, KeyCode::Up);
    let text = m.status.as_ref().unwrap().text.clone();
    assert!(!text.contains("are kept)"), "{text}");
    assert!(text.contains("hidden by the pane's filter"), "{text}");
    snap.event_count += 7;
    m.events_important = false;
    press(&mut m, &snap, KeyCode::Up);
    let text = m.status.as_ref().unwrap().text.clone();
    assert!(text.contains("7 older ones are no longer kept"), "{text}");
}

/// Issue 9: `F` in the events view filtered the partition table, unseen there, and emptied
/// it for the overview. There it types the Events pane's filter; elsewhere the table's.
#[test]
fn f_in_the_events_view_filters_the_events_and_the_table_elsewhere() {
    let (mut m, snap) = model();
    press(&mut m, &snap, KeyCode::F(5));
    typed(&mut m, &snap, "F");
    assert_eq!(m.mode, Mode::Prompt(Ask::Filter), "the events' own filter prompt");
    line(&mut m, &snap, "broker 2");
    assert_eq!(m.events_filter.broker, Some(2));
    assert!(!m.table_filter.narrows(), "the table's filter is untouched");
    assert_eq!(m.mode, Mode::Events, "as after e then F, the events keep the keys");
    press(&mut m, &snap, KeyCode::Esc);
    typed(&mut m, &snap, "/");
    assert_eq!(m.mode, Mode::Prompt(Ask::Search), "/ searches the events there too");
    press(&mut m, &snap, KeyCode::Esc);
    press(&mut m, &snap, KeyCode::Esc);
    for view in [KeyCode::F(1), KeyCode::F(2)] {
        press(&mut m, &snap, view);
        typed(&mut m, &snap, "F");
        assert_eq!(m.mode, Mode::Prompt(Ask::TableFilter), "{view:?}: the table's filter");
        press(&mut m, &snap, KeyCode::Esc);
    }
}

/// While the Events pane has the keys (the events view, or `e`), the view keys, the palette
/// and the help still work: a newcomer in F5 pressed F1 and `:` and got "does nothing", then
/// typed a command into the pane's own keys (its space paused the sim).
#[test]
fn view_keys_and_the_palette_work_while_the_events_pane_has_the_keys() {
    let (mut m, snap) = model();
    typed(&mut m, &snap, "e");
    assert_eq!(m.mode, Mode::Events);
    press(&mut m, &snap, KeyCode::F(1));
    assert_eq!((m.mode, m.view), (Mode::Normal, View::Overview));
    typed(&mut m, &snap, "e");
    typed(&mut m, &snap, ":");
    assert_eq!(m.mode, Mode::Palette, "`:` opens the palette from the Events pane");
    press(&mut m, &snap, KeyCode::Esc);
    typed(&mut m, &snap, "e");
    press(&mut m, &snap, KeyCode::F(3));
    assert_eq!((m.mode, m.view), (Mode::Normal, View::Brokers));
}
