//! The config view (F6): every property of the config registry ([`crate::config::PROPERTIES`],
//! the one that serves `--set`, the `set` command and scenario `config` tables) with its
//! current value, its default, its scope, how a change takes effect (Kafka's dynamic update
//! modes, `DynamicBrokerConfig`), a broker's "restart pending", and its meaning. Enter edits
//! the selected one's value in its row; the edit runs as the `set` line the palette would run
//! ([`set_parts`]). Only the visible rows are built.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::app::{Ask, Mode, Model};
use super::text;
use crate::cluster::command::Command;
use crate::cluster::command::set::Set;
use crate::cluster::snapshot::Snapshot;
use crate::config::{PROPERTIES, Property, Scope};
use crate::sim::join_ids;

/// The properties the view's filter keeps, in registry order: those whose name, scope or
/// meaning hold every word of the filter (any case).
pub fn rows(model: &Model) -> Vec<&'static Property> {
    let words: Vec<String> = model.config_filter.split_whitespace().map(str::to_lowercase).collect();
    PROPERTIES
        .iter()
        .filter(|p| {
            let hay = format!("{} {} {}", p.name, scope_name(p.scope), p.doc).to_lowercase();
            words.iter().all(|w| hay.contains(w.as_str()))
        })
        .collect()
}

/// Rows one page moves: the list's rows on the model's screen.
pub fn page_rows(model: &Model) -> usize {
    let h = model.screen.1.max(super::view::MIN_HEIGHT);
    // Header, broker strip and settings, list title, column row, meaning, status, footer.
    usize::from(h.saturating_sub(12)).max(1)
}

/// The scope as the view writes it.
pub fn scope_name(scope: Scope) -> &'static str {
    scope.name()
}

/// How a change takes effect, in a few words.
fn mode_name(p: &Property) -> &'static str {
    p.update_mode().name()
}

/// The value the property has now, as `set` takes it, or `None` where the snapshot holds
/// none: a topic property the selected topic does not override (the broker default applies),
/// a `null` broker default, a consumer property with no consumer running. A lab property
/// shows the value of the last `set` of it, else its default.
pub fn current(model: &Model, snap: &Snapshot, p: &Property) -> Option<String> {
    match p.scope {
        Scope::Broker | Scope::BrokerAndTopic => snap.broker_config.get(p.name),
        Scope::Topic => {
            let topic = model.topic(snap)?;
            let prefix = format!("{}=", p.name);
            topic.config_overrides.iter().find_map(|o| o.strip_prefix(&prefix)).map(str::to_string)
        }
        Scope::Producer => Some(match snap.producers.first() {
            Some(producer) => producer.config.get(p.name)?,
            None => crate::config::ProducerConfig::defaults_for(&snap.semantics).get(p.name)?,
        }),
        Scope::Consumer => snap.consumers.first()?.view.config.get(p.name),
        Scope::Lab => {
            let last = snap.commands.iter().rev().find_map(|c| match &c.command {
                Command::Set(Set::Cluster { key, value }) if key == p.name => Some(value.clone()),
                _ => None,
            });
            Some(last.unwrap_or_else(|| p.default.to_string()))
        }
    }
}

/// The `set` line that changes `p`, holding its current value to edit: `set KEY=V` for broker
/// and lab properties, `set topic T KEY=V` for the selected partition's topic, `set producer
/// KEY=V` for every producer. Errors: as [`set_parts`].
pub fn set_line(model: &Model, snap: &Snapshot, p: &Property) -> Result<String, String> {
    set_parts(model, snap, p).map(|(head, value)| format!("{head}{value}"))
}

/// The `set` line that changes `p`, split before its value (`set producer acks=`, `1`): the
/// in-place editor edits the value and Enter runs the whole line. Errors: a consumer
/// property (set when a consumer is added), a topic property with no topic selected.
pub fn set_parts(model: &Model, snap: &Snapshot, p: &Property) -> Result<(String, String), String> {
    let value = current(model, snap, p).unwrap_or_else(|| p.default.to_string());
    let head = match p.scope {
        Scope::Broker | Scope::BrokerAndTopic | Scope::Lab => format!("set {}=", p.name),
        Scope::Producer => format!("set producer {}=", p.name),
        Scope::Topic => match model.topic(snap) {
            Some(t) => format!("set topic {} {}=", t.name, p.name),
            None => {
                return Err(format!("{} is a topic property: select a partition of its topic first", p.name));
            }
        },
        Scope::Consumer => {
            return Err(format!(
                "{} is a consumer property: it is given when the consumer starts (:add-consumer T {}=…)",
                p.name, p.name
            ));
        }
    };
    Ok((head, value))
}

/// Brokers that run with an older value of `p` than the stored one (a static property set
/// since they started).
fn pending_on(snap: &Snapshot, p: &Property) -> Vec<crate::sim::BrokerId> {
    snap.brokers.iter().filter(|b| b.restart_pending.iter().any(|n| n == p.name)).map(|b| b.id).collect()
}

/// How a value is written in the list: Java's `Long.MAX_VALUE` (the default of the
/// replication throttles, `LEADER_REPLICATION_THROTTLED_RATE_DEFAULT` in Kafka's
/// `QuotaConfig`) as `Long.MAX`, so no number is ever cut; the meaning pane gives it exactly.
pub fn shown(value: &str) -> String {
    if value == LONG_MAX { "Long.MAX".to_string() } else { value.to_string() }
}

/// `Long.MAX_VALUE` as text.
const LONG_MAX: &str = "9223372036854775807";

/// Narrower than this, the scope column gives way (the meaning pane names the scope).
const SCOPE_FROM: usize = 100;

/// The scope column's width.
const SCOPE_W: usize = 12;

/// The columns' widths for `width`: name, value, default, scope (0 when it gives way), mode
/// and meaning (0 when there is no room). Value, default and mode are as wide as their
/// longest visible cell, so a number is never cut; the name takes what is left.
fn widths(width: usize, cells: &[[String; 3]]) -> [usize; 6] {
    let widest =
        |i: usize, head: &str| cells.iter().map(|c| text::width(&c[i])).chain([text::width(head)]).max();
    let value_w = widest(0, "Value").unwrap_or(5).min(20);
    let default_w = widest(1, "Default").unwrap_or(7).min(20);
    let mode_w = widest(2, "Takes effect").unwrap_or(12).min(24);
    let scope_w = if width >= SCOPE_FROM { SCOPE_W } else { 0 };
    let fixed = value_w + default_w + mode_w + scope_w + usize::from(scope_w > 0) + 4;
    let name_w = width.saturating_sub(fixed).clamp(16, 46);
    let doc_w = width.saturating_sub(name_w + fixed + 1);
    let doc_w = if doc_w >= 20 { doc_w } else { 0 };
    [name_w, value_w, default_w, scope_w, mode_w, doc_w]
}

/// The value column's text: the current value, or `null` where the property has none (the
/// one spelling for "unset", as Kafka's `kafka-configs.sh --describe` writes it).
fn value_cell(model: &Model, snap: &Snapshot, p: &Property) -> String {
    current(model, snap, p).map_or_else(|| "null".to_string(), |v| shown(&v))
}

/// The mode column's text: how a change takes effect, or the brokers still waiting for a
/// restart to take it.
fn mode_cell(snap: &Snapshot, p: &Property) -> String {
    let pending = pending_on(snap, p);
    if pending.is_empty() {
        mode_name(p).to_string()
    } else {
        format!("restart pending {}", join_ids(&pending))
    }
}

/// Draws the view in `area`: the list (visible rows only) and the selected property's
/// meaning in full under it.
pub fn render(frame: &mut Frame, area: Rect, model: &Model, snap: &Snapshot) {
    let theme = model.theme;
    let rows = rows(model);
    let selected = model.config_selected.min(rows.len().saturating_sub(1));
    let width = usize::from(area.width);
    let meaning = rows.get(selected).map(|p| meaning_lines(model, snap, p, width)).unwrap_or_default();
    let meaning_h = u16::try_from(meaning.len()).unwrap_or(3).min(area.height / 3);
    let warned = warning_lines(snap, width, usize::from(area.height / 3), theme);
    let warned_h = u16::try_from(warned.len()).unwrap_or(0);
    let [warnings, list, about] =
        Layout::vertical([Constraint::Length(warned_h), Constraint::Fill(1), Constraint::Length(meaning_h)])
            .areas(area);
    frame.render_widget(Paragraph::new(text::fit_all(warned, width)), warnings);
    let filter = if model.config_filter.is_empty() {
        String::new()
    } else {
        format!(" · filter `{}`", model.config_filter)
    };
    let title = format!(
        " Config · {} of {} properties{filter} · ↑/↓ select  Enter edit  / filter ",
        rows.len(),
        PROPERTIES.len()
    );
    let block =
        Block::new().borders(Borders::TOP).title(Span::styled(text::truncate(&title, width), theme.title()));
    let inner = block.inner(list);
    let height = usize::from(inner.height);
    let visible = height.saturating_sub(1).max(1);
    let offset = (selected + 1).saturating_sub(visible);
    let shown_rows: Vec<(usize, &Property, [String; 3])> = rows
        .iter()
        .enumerate()
        .skip(offset)
        .take(visible)
        .map(|(i, p)| (i, *p, [value_cell(model, snap, p), shown(p.default), mode_cell(snap, p)]))
        .collect();
    let cells: Vec<[String; 3]> = shown_rows.iter().map(|r| r.2.clone()).collect();
    let w = widths(width, &cells);
    let mut lines = Vec::with_capacity(height);
    let head = row_text(["Property", "Value", "Default", "Scope", "Takes effect"], w, "Meaning");
    lines.push(Line::styled(text::truncate(&head, width), theme.muted()));
    let editing = model.mode == Mode::Prompt(Ask::ConfigValue);
    for (i, p, [value, default, mode]) in &shown_rows {
        if editing && *i == selected {
            let y = inner.y + u16::try_from(lines.len()).unwrap_or(0);
            let x = inner.x + u16::try_from(w[0] + 2).unwrap_or(0);
            lines.push(edit_row(frame, (x, y), model, p, w, width));
            continue;
        }
        let marker = if *i == selected { "▸" } else { " " };
        let text = format!(
            "{marker}{}",
            &row_text([p.name, value, default, scope_name(p.scope), mode], w, p.doc)[1..]
        );
        let style = if *i == selected {
            theme.selected()
        } else if *value != *default && value != "null" {
            theme.title()
        } else {
            theme.normal()
        };
        lines.push(Line::styled(text::truncate(&text, width), style));
    }
    frame.render_widget(Paragraph::new(text::fit_all(lines, width)).block(block), list);
    frame.render_widget(Paragraph::new(text::fit_all(meaning, width)), about);
}

/// Most lines one warning takes in the view.
const WARNING_MAX_LINES: usize = 3;

/// The settings' warnings ([`Snapshot::warnings`]) above the list, each with why, wrapped to
/// `width` in at most [`WARNING_MAX_LINES`] lines (cut with `…`), in at most `rows` rows in
/// all; when they do not all fit, the last row says how many more there are.
fn warning_lines(
    snap: &Snapshot,
    width: usize,
    rows: usize,
    theme: crate::ui::theme::Theme,
) -> Vec<Line<'static>> {
    use crate::config::warnings::Level;
    let each: Vec<Vec<Line<'static>>> = snap
        .warnings()
        .iter()
        .map(|w| {
            let style = if w.level == Level::Warning { theme.warn() } else { theme.muted() };
            let label = Span::styled(format!(" {} {}: ", w.level.mark(), w.setting), style);
            text::at_most(text::hanging(label, &w.why, style, width, 3), WARNING_MAX_LINES, width)
        })
        .collect();
    if each.iter().map(Vec::len).sum::<usize>() <= rows {
        return each.into_iter().flatten().collect();
    }
    let mut out: Vec<Line<'static>> = Vec::new();
    let mut shown = 0;
    for lines in &each {
        if out.len() + lines.len() + 1 > rows {
            break;
        }
        out.extend(lines.iter().cloned());
        shown += 1;
    }
    if rows > 0 {
        let note = format!(" … {} more (a taller terminal shows them)", each.len() - shown);
        out.push(Line::styled(text::truncate(&note, width), theme.muted()));
    }
    out
}

/// The edited row: the name, the editor in the value cell (widened over the default's
/// column, the text scrolled to keep the cursor in view) with the terminal cursor placed in
/// it at `at`'s row, then the palette's error for the typed value, if any, else the default.
fn edit_row(
    frame: &mut Frame,
    at: (u16, u16),
    model: &Model,
    p: &Property,
    w: [usize; 6],
    width: usize,
) -> Line<'static> {
    let theme = model.theme;
    let name_w = w[0];
    let field_w = (w[1] + 1 + w[2]).max(24);
    let (mut spans, cursor) = super::palette::field(&model.prompt, field_w, theme);
    let used: usize = spans.iter().map(Span::width).sum();
    spans.insert(0, Span::styled(format!("▸{:<name_w$} ", text::truncate(p.name, name_w)), theme.selected()));
    spans.push(Span::raw(" ".repeat(field_w.saturating_sub(used) + 1)));
    let room = width.saturating_sub(name_w + 3 + field_w);
    match model.prompt.error() {
        Some(e) => spans.push(Span::styled(text::truncate(&format!("✖ {e}"), room), theme.bad())),
        None => {
            // The hint gives way whole: the meaning pane says what Enter and Esc do.
            let full = format!("default {} · Enter apply  Esc cancel", shown(p.default));
            let hint =
                if text::width(&full) <= room { full } else { format!("default {}", shown(p.default)) };
            spans.push(Span::styled(text::truncate(&hint, room), theme.muted()));
        }
    }
    let (x, y) = at;
    frame.set_cursor_position(ratatui::layout::Position::new(x.saturating_add(cursor), y));
    Line::from(spans)
}

/// One row: the cells cut to their columns (the scope only when it has a column), then the
/// meaning when there is room.
fn row_text(cells: [&str; 5], w: [usize; 6], doc: &str) -> String {
    let [name, value, default, scope, mode] = cells;
    let [name_w, value_w, default_w, scope_w, mode_w, doc_w] = w;
    let fit = |s: &str, w: usize| format!("{:<w$}", text::truncate(s, w));
    let mut out = format!(" {} {} {}", fit(name, name_w), fit(value, value_w), fit(default, default_w));
    if scope_w > 0 {
        out.push(' ');
        out.push_str(&fit(scope, scope_w));
    }
    out.push(' ');
    out.push_str(&fit(mode, mode_w));
    if doc_w > 0 {
        out.push(' ');
        out.push_str(&text::truncate(doc, doc_w));
    }
    out.trim_end().to_string()
}

/// The selected property's name, scope and meaning in full, word-wrapped (at most 4 lines).
fn meaning_lines(model: &Model, snap: &Snapshot, p: &Property, width: usize) -> Vec<Line<'static>> {
    let theme = model.theme;
    let how = p.takes_effect();
    let scope = scope_name(p.scope);
    let long_max = p.default == LONG_MAX || current(model, snap, p).as_deref() == Some(LONG_MAX);
    let exact = if long_max { format!(" (Long.MAX = {LONG_MAX})") } else { String::new() };
    let edit = model.config_edit.as_ref().filter(|_| model.mode == Mode::Prompt(Ask::ConfigValue));
    let line = match (edit, set_line(model, snap, p)) {
        (Some(e), _) => match model.prompt.error() {
            Some(why) => format!("{}: ✖ {why}", p.name),
            None => format!(
                "{}: Enter runs :{}{} · Esc leaves it as it was",
                p.name,
                e.head,
                model.prompt.input()
            ),
        },
        (None, Ok(set)) => format!("{}{exact}: {} · {scope} · {how} · Enter: :{set}", p.name, p.doc),
        (None, Err(why)) => format!("{}{exact}: {} · {scope} · {why}", p.name, p.doc),
    };
    // Each line after one space, as in the other panes (the wrap drops a leading space).
    text::wrap_at_most(&line, width.saturating_sub(1).max(1), 4)
        .into_iter()
        .map(|l| Line::styled(format!(" {l}"), theme.muted()))
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::ui::app::{Model, Msg, update};
    use crate::ui::theme::Theme;
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    /// The config view lists every warning with why above the properties, at 80×24 too
    /// (each in at most two lines), and a safe cluster's view has none.
    #[test]
    fn the_config_view_lists_the_warnings_with_why() {
        let mut snap = crate::ui::fixture::snapshot();
        let draw = |snap: &crate::cluster::snapshot::Snapshot, w: u16, h: u16| {
            let mut model = Model::new(1.0, Theme::new(false), snap);
            update(&mut model, Msg::Resize(w, h), snap);
            update(&mut model, Msg::Key(KeyEvent::new(KeyCode::F(6), KeyModifiers::NONE)), snap);
            let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
            terminal.draw(|f| crate::ui::view::view(&model, snap, f)).unwrap();
            let buf = terminal.backend().buffer();
            (0..h)
                .map(|y| (0..w).map(|x| buf[(x, y)].symbol().to_string()).collect::<String>())
                .collect::<Vec<_>>()
        };
        let safe = draw(&snap, 80, 24);
        assert!(safe[3].starts_with(" Config · "), "{safe:#?}");
        snap.producers[0].config.acks = crate::sim::Acks::One;
        snap.topics[0].unclean_leader_election_enable = true;
        let rows = draw(&snap, 80, 24);
        assert!(
            rows[3].starts_with(" ⚠ unclean.leader.election.enable=true (test_repli): with no ISR member"),
            "{rows:#?}"
        );
        let acks = rows
            .iter()
            .position(|r| r.starts_with(" ⚠ acks=1 (producer 0 → test_repli): the leader"))
            .expect("acks=1");
        let list = rows.iter().position(|r| r.starts_with(" Config · ")).expect("the list");
        assert!(list > acks && list - acks <= 3, "at most three lines a warning: {rows:#?}");
        let told: Vec<&str> = rows[acks..list].iter().map(|r| r.trim()).collect();
        assert!(
            told.join(" ").ends_with("a follower without it is elected and the record is lost"),
            "{rows:#?}"
        );
        let wide = draw(&snap, 200, 60);
        assert!(
            wide.iter()
                .any(|r| r
                    .contains("if it fails then, a follower without it is elected and the record is lost")),
            "{wide:#?}"
        );
    }
}
