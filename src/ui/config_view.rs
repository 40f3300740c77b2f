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
use crate::config::{PROPERTIES, Property, Scope, UpdateMode};
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
    match scope {
        Scope::Broker => "broker",
        Scope::BrokerAndTopic => "broker+topic",
        Scope::Topic => "topic",
        Scope::Producer => "producer",
        Scope::Consumer => "consumer",
        Scope::Lab => "lab",
    }
}

/// How a change takes effect, in a few words.
fn mode_name(p: &Property) -> &'static str {
    match p.update_mode() {
        UpdateMode::Dynamic => "dynamic",
        UpdateMode::BrokerRestart => "static",
        UpdateMode::ControllerRestart => "static (ctrl)",
        UpdateMode::Client => "client",
    }
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

/// Column widths: name, value, default, scope, mode; the meaning takes the rest (when wide).
const COLS: [usize; 4] = [12, 12, 12, 13];

/// Draws the view in `area`: the list (visible rows only) and the selected property's
/// meaning in full under it.
pub fn render(frame: &mut Frame, area: Rect, model: &Model, snap: &Snapshot) {
    let theme = model.theme;
    let rows = rows(model);
    let selected = model.config_selected.min(rows.len().saturating_sub(1));
    let width = usize::from(area.width);
    let meaning = rows.get(selected).map(|p| meaning_lines(model, snap, p, width)).unwrap_or_default();
    let meaning_h = u16::try_from(meaning.len()).unwrap_or(3).min(area.height / 3);
    let [list, about] = Layout::vertical([Constraint::Fill(1), Constraint::Length(meaning_h)]).areas(area);
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
    let name_w = width.saturating_sub(COLS.iter().sum::<usize>() + 6).clamp(16, 46);
    let doc_w = width.saturating_sub(name_w + COLS.iter().sum::<usize>() + 7);
    let mut lines = Vec::with_capacity(height);
    let head = row_text(["Property", "Value", "Default", "Scope", "Takes effect"], name_w, doc_w, "Meaning");
    lines.push(Line::styled(text::truncate(&head, width), theme.muted()));
    let visible = height.saturating_sub(1).max(1);
    let offset = (selected + 1).saturating_sub(visible);
    let editing = model.mode == Mode::Prompt(Ask::ConfigValue);
    for (i, p) in rows.iter().enumerate().skip(offset).take(visible) {
        if editing && i == selected {
            let y = inner.y + u16::try_from(lines.len()).unwrap_or(0);
            let x = inner.x + u16::try_from(name_w + 2).unwrap_or(0);
            lines.push(edit_row(frame, (x, y), model, p, name_w, width));
            continue;
        }
        let value = current(model, snap, p).unwrap_or_else(|| "—".into());
        let pending = pending_on(snap, p);
        let mode = if pending.is_empty() {
            mode_name(p).to_string()
        } else {
            format!("restart pending {}", join_ids(&pending))
        };
        let marker = if i == selected { "▸" } else { " " };
        let cells = [p.name, &value, p.default, scope_name(p.scope), &mode];
        let text = format!("{marker}{}", &row_text(cells, name_w, doc_w, p.doc)[1..]);
        let style = if i == selected {
            theme.selected()
        } else if value != p.default && value != "—" {
            theme.title()
        } else {
            theme.normal()
        };
        lines.push(Line::styled(text::truncate(&text, width), style));
    }
    frame.render_widget(Paragraph::new(lines).block(block), list);
    frame.render_widget(Paragraph::new(meaning), about);
}

/// The edited row: the name, the editor in the value cell (widened over the default's
/// column, the text scrolled to keep the cursor in view) with the terminal cursor placed in
/// it at `at`'s row, then the palette's error for the typed value, if any, else the default.
fn edit_row(
    frame: &mut Frame,
    at: (u16, u16),
    model: &Model,
    p: &Property,
    name_w: usize,
    width: usize,
) -> Line<'static> {
    let theme = model.theme;
    let field_w = COLS[0] + 1 + COLS[1];
    let (mut spans, cursor) = super::palette::field(&model.prompt, field_w, theme);
    let used: usize = spans.iter().map(Span::width).sum();
    spans.insert(0, Span::styled(format!("▸{:<name_w$} ", text::truncate(p.name, name_w)), theme.selected()));
    spans.push(Span::raw(" ".repeat(field_w.saturating_sub(used) + 1)));
    let room = width.saturating_sub(name_w + 3 + field_w);
    match model.prompt.error() {
        Some(e) => spans.push(Span::styled(text::truncate(&format!("✖ {e}"), room), theme.bad())),
        None => spans.push(Span::styled(
            text::truncate(&format!("default {} · Enter apply  Esc cancel", p.default), room),
            theme.muted(),
        )),
    }
    let (x, y) = at;
    frame.set_cursor_position(ratatui::layout::Position::new(x.saturating_add(cursor), y));
    Line::from(spans)
}

/// One row: the cells cut to their columns, then the meaning when there is room.
fn row_text(cells: [&str; 5], name_w: usize, doc_w: usize, doc: &str) -> String {
    let [name, value, default, scope, mode] = cells;
    let fit = |s: &str, w: usize| format!("{:<w$}", text::truncate(s, w));
    let mut out = format!(
        " {} {} {} {} {}",
        fit(name, name_w),
        fit(value, COLS[0]),
        fit(default, COLS[1]),
        fit(scope, COLS[2]),
        fit(mode, COLS[3])
    );
    if doc_w >= 20 {
        out.push(' ');
        out.push_str(&text::truncate(doc, doc_w));
    }
    out.trim_end().to_string()
}

/// The selected property's name, scope and meaning in full, word-wrapped (at most 4 lines).
fn meaning_lines(model: &Model, snap: &Snapshot, p: &Property, width: usize) -> Vec<Line<'static>> {
    let theme = model.theme;
    let how = match p.update_mode() {
        UpdateMode::Dynamic => "changes at once",
        UpdateMode::BrokerRestart => "static: each broker takes it at its next start (:roll)",
        UpdateMode::ControllerRestart => "static: the controller takes it at its next start",
        UpdateMode::Client => "the producer uses it for its next batches",
    };
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
        (None, Ok(set)) => format!("{}: {} · {how} · Enter: :{set}", p.name, p.doc),
        (None, Err(why)) => format!("{}: {} · {why}", p.name, p.doc),
    };
    text::wrap_at_most(&format!(" {line}"), width.max(1), 4)
        .into_iter()
        .map(|l| Line::styled(l, theme.muted()))
        .collect()
}
