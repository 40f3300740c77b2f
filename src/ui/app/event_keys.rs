//! The Events pane's keys: scrolling by event and by page, the oldest and newest events,
//! `/` search with `n`/`N` between hits, `g` to a sim time, `F` filter, and the prompt that
//! types the search, the filter or the time.

use super::actions::{perform, quit};
use super::{Ask, Effect, Mode, Model, StatusKind};
use crate::cluster::snapshot::Snapshot;
use crate::scenario::duration::parse_instant;
use crate::sim::format_stamp;
use crate::ui::event_filter::EventFilter;
use crate::ui::events;
use crate::ui::keymap::{Action, EventsAction, PaletteAction};
use crate::ui::view;

/// One key while the Events pane has the keys.
pub(super) fn on_events(model: &mut Model, action: EventsAction, snap: &Snapshot) -> Vec<Effect> {
    use EventsAction::*;
    match action {
        Older => scroll(model, snap, -1),
        Newer => scroll(model, snap, 1),
        PageOlder => scroll(model, snap, -page(model, snap)),
        PageNewer => scroll(model, snap, page(model, snap)),
        Oldest => {
            let oldest = events::indexed(snap, model.events_lens()).next().map(|(i, _)| i);
            model.events_anchor = oldest;
            Vec::new()
        }
        Newest => perform(model, Action::EventsFollow, snap),
        Search => open_prompt(model, Ask::Search),
        OlderHit => next_hit(model, snap, true),
        NewerHit => next_hit(model, snap, false),
        GoToTime => open_prompt(model, Ask::GoTo),
        Filter => open_prompt(model, Ask::Filter),
        ToggleImportant => perform(model, Action::ToggleImportant, snap),
        ClearFilter => {
            model.events_filter = EventFilter::default();
            model.events_important = false;
            model.events_search = None;
            model.say(StatusKind::Info, "the Events pane shows every event again");
            Vec::new()
        }
        TogglePause => perform(model, Action::TogglePause, snap),
        Back => {
            model.mode = Mode::Normal;
            Vec::new()
        }
        Quit => quit(model),
    }
}

/// Scrolls the pane `by` shown events: back (older) when negative, forward when positive;
/// reaching the newest follows it again. Says so at either end.
pub(super) fn scroll(model: &mut Model, snap: &Snapshot, by: isize) -> Vec<Effect> {
    let (anchor, lens) = (model.events_anchor, model.events_lens());
    if by < 0 {
        match events::older_by(snap, anchor, lens, by.unsigned_abs()) {
            Some(index) => model.events_anchor = Some(index),
            None => {
                let text =
                    format!("the Events pane is at the oldest event shown; {}", before_oldest(snap, lens));
                model.say(StatusKind::Info, text);
            }
        }
    } else if anchor.is_none() {
        model.say(StatusKind::Info, "the Events pane already follows the newest events");
    } else {
        model.events_anchor = events::newer_by(snap, anchor, lens, by.unsigned_abs());
    }
    Vec::new()
}

/// How many events one page moves: those the pane shows whole now.
fn page(model: &Model, snap: &Snapshot) -> isize {
    let Some(area) = view::events_area(model, snap) else { return 1 };
    let shown = events::stamped_events(snap, model.events_anchor, model.events_lens());
    let rows = usize::from(area.height.saturating_sub(1));
    events::page_len(&shown, usize::from(area.width), rows) as isize
}

/// Opens the prompt for `ask`; the filter's starts with the current filter, to edit.
pub(super) fn open_prompt(model: &mut Model, ask: Ask) -> Vec<Effect> {
    let (prefix, text) = match ask {
        Ask::Search => ("/", String::new()),
        Ask::Filter => ("filter: ", model.events_filter.describe()),
        Ask::GoTo => ("go to sim time: ", String::new()),
        Ask::TableFilter => ("table filter: ", model.table_filter.line()),
        Ask::Broker => ("select broker: ", String::new()),
        Ask::ConfigFilter => ("filter properties: ", model.config_filter.clone()),
        // Opened with the property's value by `view_keys::edit_config`.
        Ask::ConfigValue => ("", model.prompt.input().to_string()),
    };
    model.prompt.open_as(prefix, &text);
    model.mode = Mode::Prompt(ask);
    Vec::new()
}

/// One key while the prompt is open: Enter answers, Esc gives the keys back to the pane
/// that asked (the Events pane, or the dashboard for the table's and broker prompts).
pub(super) fn on_prompt(model: &mut Model, ask: Ask, action: PaletteAction, snap: &Snapshot) -> Vec<Effect> {
    match action {
        PaletteAction::Submit => {
            model.prompt.edit(PaletteAction::Submit);
            let line = model.prompt.input().trim().to_string();
            let answer = match ask {
                Ask::Search => search(model, &line, snap),
                Ask::Filter => filter(model, &line, snap),
                Ask::GoTo => go_to(model, &line, snap),
                Ask::TableFilter => super::table_keys::filter(model, &line, snap),
                Ask::Broker => super::table_keys::pick_broker(model, &line, snap),
                Ask::ConfigFilter => super::view_keys::filter_config(model, &line),
                // Its answer is a command to apply, or the reason it stays open.
                Ask::ConfigValue => return super::view_keys::apply_config_edit(model, snap),
            };
            match answer {
                Ok(()) => {
                    model.prompt.remember(&line);
                    model.mode = ask.returns_to();
                }
                Err(why) => model.prompt.set_error(Some(why)),
            }
            Vec::new()
        }
        PaletteAction::Cancel => {
            if ask == Ask::ConfigValue {
                model.config_edit = None;
            }
            model.mode = ask.returns_to();
            Vec::new()
        }
        PaletteAction::Quit => quit(model),
        _ => {
            model.prompt.edit(action);
            Vec::new()
        }
    }
}

/// Where the keys go once the prompt closes: the Events pane, or the dashboard for the
/// config view's filter.
/// `/TEXT`: shows the newest event on or above the pane's bottom line that holds it (else
/// the oldest newer one). An empty line ends the search.
fn search(model: &mut Model, needle: &str, snap: &Snapshot) -> Result<(), String> {
    if needle.is_empty() {
        model.events_search = None;
        return Ok(());
    }
    let (anchor, lens) = (model.events_anchor, model.events_lens());
    let hit = events::find(snap, anchor, lens, needle, true, true)
        .or_else(|| events::find(snap, anchor, lens, needle, false, false));
    let Some(hit) = hit else {
        return Err(format!("no event shown holds `{needle}` (f, F and c change what is shown)"));
    };
    model.events_search = Some(needle.to_string());
    show(model, snap, hit);
    let hits = events::hit_count(snap, model.events_lens(), needle);
    model.say(StatusKind::Info, format!("/{needle} → {hits} in the events kept · n older, N newer"));
    Ok(())
}

/// `n` / `N`: the next older / newer event holding the search text.
fn next_hit(model: &mut Model, snap: &Snapshot, older: bool) -> Vec<Effect> {
    let Some(needle) = model.events_search.clone() else {
        model.say(StatusKind::Info, "nothing searched yet: / types a search");
        return Vec::new();
    };
    match events::find(snap, model.events_anchor, model.events_lens(), &needle, older, false) {
        Some(hit) => show(model, snap, hit),
        None => {
            let side = if older { "older" } else { "newer" };
            model.say(StatusKind::Info, format!("no {side} event holds `{needle}`"));
        }
    }
    Vec::new()
}

/// Puts the event with run-wide index `index` on the pane's bottom line (following the
/// newest events when it is the newest).
fn show(model: &mut Model, snap: &Snapshot, index: u64) {
    let newest = events::indexed(snap, model.events_lens()).next_back().map(|(i, _)| i);
    model.events_anchor = (Some(index) != newest).then_some(index);
}

/// `F`: the typed filter replaces the old one; a bad one, or one naming a broker, topic,
/// partition or client the cluster lacks (a typo would show an empty pane), is explained
/// and changes nothing.
fn filter(model: &mut Model, line: &str, snap: &Snapshot) -> Result<(), String> {
    let filter = EventFilter::parse(line)?;
    filter.check_names(snap)?;
    model.events_filter = filter;
    let text = if model.events_filter.is_empty() {
        "the filter is cleared".to_string()
    } else {
        format!("only {} events shown · F changes, c clears", model.events_filter.describe())
    };
    model.say(StatusKind::Info, text);
    Ok(())
}

/// `g`: shows the events up to the typed sim time.
fn go_to(model: &mut Model, line: &str, snap: &Snapshot) -> Result<(), String> {
    let t = parse_instant(line)?;
    match events::at_time(snap, t, model.events_lens()) {
        Ok(anchor) => {
            model.events_anchor = anchor;
            model.say(StatusKind::Info, format!("events up to {}", format_stamp(t, !t.is_whole_ms())));
            Ok(())
        }
        Err(first) => Err(format!(
            "the oldest event shown is at {}; {}",
            format_stamp(first, !first.is_whole_ms()),
            before_oldest(snap, model.events_lens())
        )),
    }
}

/// Why no event older than the oldest shown one is there: the pane's filter hides the older
/// events kept, or the log's ring dropped them (it keeps the newest ones only), or both, or
/// there is none (it is the run's first event).
fn before_oldest(snap: &Snapshot, lens: events::Lens<'_>) -> String {
    let dropped = snap.event_count.saturating_sub(snap.recent_events.len() as u64);
    let hidden = snap.recent_events.iter().take_while(|e| !lens.keeps(&e.kind)).count();
    let kept = snap.recent_events.len();
    match (hidden, dropped) {
        (0, 0) => "no event is older".to_string(),
        (h, 0) => format!("{h} older ones are hidden by the pane's filter (f, c show them)"),
        (0, d) => format!("{d} older ones are no longer kept (the newest {kept} are)"),
        (h, d) => format!(
            "{h} older ones are hidden by the pane's filter (f, c show them) and {d} are no longer \
             kept (the newest {kept} are)"
        ),
    }
}
