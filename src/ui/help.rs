//! The `?` overlay, generated from the key tables and the command grammar, so it can never
//! disagree with what the keys do.

use ratatui::Frame;
use ratatui::layout::{Margin, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use super::app::Model;
use super::event_filter::FILTER_SYNTAX;
use super::keymap::{self, Binding, Group};
use super::partition_filter::TABLE_FILTER_SYNTAX;
use super::theme::{Theme, glyph};
use crate::cluster::command::Command;

const KEY_W: usize = 10;

fn section<A>(title: &str, table: &[Binding<A>], theme: Theme, out: &mut Vec<Line<'static>>) {
    out.push(Line::styled(title.to_string(), theme.title()));
    out.extend(table.iter().map(|b| binding_line(b, theme)));
    out.push(Line::raw(""));
}

fn binding_line<A>(b: &Binding<A>, theme: Theme) -> Line<'static> {
    Line::from(vec![Span::styled(format!("  {:<KEY_W$} ", b.label), theme.key()), Span::raw(b.help)])
}

/// The dashboard keys, one section per [`Group`], each in key-table order.
fn dashboard_keys(theme: Theme, out: &mut Vec<Line<'static>>) {
    for group in Group::ALL {
        out.push(Line::styled(group.title(), theme.title()));
        for b in keymap::BINDINGS.iter().filter(|b| b.action.group() == group) {
            out.push(binding_line(b, theme));
        }
        for v in keymap::VIEW_BINDINGS.iter().filter(|v| v.binding.action.group() == group) {
            out.push(binding_line(&v.binding, theme));
        }
        if group == Group::Partitions {
            let syntax = format!("  F {TABLE_FILTER_SYNTAX}");
            for part in super::text::wrap(&syntax, MEANING_W + 12) {
                out.push(Line::styled(format!("  {part}"), theme.muted()));
            }
        }
        out.push(Line::raw(""));
        if group == Group::Events {
            section(keymap::EVENTS_TITLE, keymap::EVENTS_BINDINGS, theme, out);
            out.pop();
            let syntax = format!("  filter {FILTER_SYNTAX}");
            for part in super::text::wrap(&syntax, MEANING_W + 12) {
                out.push(Line::styled(format!("  {part}"), theme.muted()));
            }
            out.push(Line::raw(""));
        }
        if group == Group::Palette {
            grammar(theme, out);
            section(keymap::PALETTE_TITLE, keymap::PALETTE_BINDINGS, theme, out);
        }
    }
}

/// The command grammar, which scenario files use too.
fn grammar(theme: Theme, out: &mut Vec<Line<'static>>) {
    out.push(Line::styled("Commands (the grammar scenario files use too)", theme.title()));
    for usage in Command::usage() {
        out.push(Line::from(vec![Span::styled("  :", theme.key()), Span::raw(usage)]));
    }
    out.push(Line::styled(
        "  e.g. :set producer acks=1   :set topic test_repli min.insync.replicas=2   :crash 0",
        theme.muted(),
    ));
    out.push(Line::raw(""));
    out.push(Line::styled(READOUT_COMMANDS_TITLE, theme.title()));
    for usage in super::readout::USAGE {
        out.push(Line::from(vec![Span::styled("  :", theme.key()), Span::raw(*usage)]));
    }
    out.push(Line::styled(
        "  describe: kafka-topics.sh --describe; get: the partition's ZooKeeper-era state znode, from KRaft's metadata",
        theme.muted(),
    ));
    out.push(Line::from(vec![Span::styled("  :", theme.key()), Span::raw(super::record::USAGE)]));
    out.push(Line::styled(
        "  save: write the session's recording, a scenario file `isrlab replay FILE` plays (w: to --record FILE)",
        theme.muted(),
    ));
    out.push(Line::from(vec![Span::styled("  :", theme.key()), Span::raw(super::whatif::USAGE)]));
    out.push(Line::styled(
        "  whatif: two runs from now, one with the setting changed; later commands go to both (v, V)",
        theme.muted(),
    ));
    out.push(Line::raw(""));
    section(keymap::READOUT_TITLE, keymap::READOUT_BINDINGS, theme, out);
}

/// The help's title over the palette-only commands of [`super::readout::USAGE`] (the
/// commands page lists them too).
pub const READOUT_COMMANDS_TITLE: &str =
    "In the palette only: the cluster in Kafka's words (changes nothing)";

/// The help's first line: where the keys and the glossary are.
pub const HELP_INTRO: &str =
    "The keys first; the glossary of the screen's terms and the glyphs follow them (PgDn)";

/// Every line of the help, in order.
pub fn lines(theme: Theme) -> Vec<Line<'static>> {
    // The keys first, as the help opens on its first line; the glossary after them.
    let mut out = vec![Line::styled(HELP_INTRO, theme.muted())];
    dashboard_keys(theme, &mut out);
    section(keymap::LESSON_TITLE, keymap::LESSON_BINDINGS, theme, &mut out);
    section(keymap::QUESTION_TITLE, keymap::QUESTION_BINDINGS, theme, &mut out);
    section(keymap::HELP_TITLE, keymap::HELP_BINDINGS, theme, &mut out);
    glossary(theme, &mut out);
    out.push(Line::styled("Glyphs", theme.title()));
    out.push(Line::raw(format!(
        "  {} up  {} crashed/down  {} stopped  {} shutting down  {} in ISR  {} not in ISR",
        glyph::UP,
        glyph::DOWN,
        glyph::STOPPED,
        glyph::SHUTTING_DOWN,
        glyph::IN_ISR,
        glyph::OUT_OF_ISR
    )));
    out.push(Line::raw(format!(
        "  {} committed (≤ HW)  {} above the HW  {} missing  {} truncated a moment ago",
        glyph::COMMITTED,
        glyph::UNCOMMITTED,
        glyph::MISSING,
        glyph::TRUNCATED
    )));
    out.push(Line::raw("  █▓▆ / ▒░▂: the log glyph turns at each leader epoch (the legend names them)"));
    out.push(Line::raw(format!(
        "  {}1 {} up L4: broker 1, selected, leads 4 partitions (\"leads 4\" when wide)",
        glyph::SELECTED,
        glyph::UP
    )));
    out.push(Line::raw("  L / F in the logs pane: that replica is the leader / a follower"));
    out.push(Line::raw("  N behind: records a follower still lacks (the leader's LEO minus its LEO)"));
    out.push(Line::raw(
        "  out in 16s (⏱16s): time until the lag rule removes a follower from the ISR; up to \
         1.5× lag.max, as the leader checks every half of it (see ⏱ in the glossary)",
    ));
    out.push(Line::raw("  lag.max=20s*: stored, reaches each broker at its next start (restart pending)"));
    out.push(Line::raw("  State, worst first: OFFLINE no leader"));
    out.push(Line::raw("    leader down, fenced in 7s: the controller fences that leader in 7s"));
    out.push(Line::raw("    HW frozen: <minISR, or waits 2 (a stalled ISR member holds it)"));
    out.push(Line::raw("    URP under-replicated, reassigning, ok"));
    out.push(Line::raw(
        "    elr 1 after it: broker 1 is an eligible leader replica (the ELR column when wide)",
    ));
    out
}

/// The glossary: each term the screen uses, in one or two lines, in Kafka's words.
// Sources, by the rule book's numbers: LEO R3.1 (UnifiedLog.logEndOffset); HW R3.2–R3.3
// (Partition.maybeIncrementLeaderHW, frozen under min ISR since 3.7); ISR R4.1, R4.6
// (Partition.maybeShrinkIsr / maybeExpandIsr, replica.lag.time.max.ms); leader epoch R6.8, R7.4
// (KIP-101); partition epoch R6.9 (KRaft partitionEpoch, INVALID_UPDATE_VERSION); fencing
// R6.1 (BrokerHeartbeatManager, broker.session.timeout.ms) and R2.8 (KIP-320
// FENCED_LEADER_EPOCH); acks R5.2–R5.4 (NOT_ENOUGH_REPLICAS); clean and unclean election
// (PartitionChangeBuilder.electLeader, unclean.leader.election.enable); truncation (KIP-101,
// Partition.truncateTo); the ⏱ timer (ReplicaManager.startup schedules maybeShrinkIsr every
// replica.lag.time.max.ms / 2, Partition.getOutOfSyncReplicas counts from lastCaughtUpTimeMs).
pub const GLOSSARY: &[(&str, &str)] = &[
    ("LEO", "log end offset: the offset the next record appended to this replica's log will get"),
    (
        "HW",
        "high watermark: records below it are committed (on every in-sync replica) and readable \
         by consumers; the leader raises it to the lowest LEO in the ISR, never while the ISR is \
         below min.insync.replicas",
    ),
    (
        "ISR",
        "in-sync replicas: the leader and the followers that caught up to its LEO within \
         replica.lag.time.max.ms; only they may be elected in a clean election",
    ),
    (
        "leader epoch",
        "the leadership's generation, +1 at each leader change and stamped on every batch the \
         leader appends; followers truncate where their epochs stop matching the leader's",
    ),
    (
        "partition epoch",
        "the partition state's version, +1 at every change (leader or ISR); the controller \
         refuses an ISR change made against an older one (INVALID_UPDATE_VERSION)",
    ),
    (
        "fencing",
        "the controller fences a broker whose heartbeats stopped for broker.session.timeout.ms: \
         it leaves every ISR it is not the last member of and cannot lead until it is back and \
         caught up (unfenced)",
    ),
    (
        "acks",
        "when the producer is answered: 0 never, 1 once the leader appended, all once every ISR \
         member has it (refused with NOT_ENOUGH_REPLICAS when the ISR is below min.insync.replicas)",
    ),
    (
        "no ack",
        "records sent with acks=0: written to the socket and done for the producer, which never \
         hears back; they are never acknowledged, so their loss is counted apart (no-ack lost, \
         sent without acknowledgement), never as acked lost",
    ),
    (
        "clean election",
        "a new leader chosen from the ISR: it has every committed record, so no acknowledged \
         acks=all write is lost",
    ),
    (
        "unclean election",
        "a new leader from outside the ISR (unclean.leader.election.enable or elect-unclean): \
         records it lacks are lost, even acknowledged ones",
    ),
    (
        "truncation",
        "a follower of a new leader cuts its log back to where their leader epochs agree, \
         removing records the new leader lacks (the log strips strike them out)",
    ),
    ("L / F", "a replica's role on its log strip and detail line: L the leader, F a follower"),
    (
        "⏱",
        "a follower's time left in the ISR: the leader checks every half of \
         replica.lag.time.max.ms and counts from its last catch-up, so it can reach 1.5× lag.max",
    ),
    (
        "URP",
        "under-replicated partitions: those whose ISR is smaller than their replica list \
         (Kafka's UnderReplicatedPartitions metric)",
    ),
    (
        "<minISR",
        "partitions whose ISR is below min.insync.replicas: acks=all writes are refused and the \
         HW stays (UnderMinIsrPartitionCount)",
    ),
    ("min.insync", "min.insync.replicas: the ISR size below which acks=all writes are refused"),
    ("lag.max", "replica.lag.time.max.ms: how long a follower may lag before it leaves the ISR"),
    (
        "ELR",
        "eligible leader replicas (KIP-966, on by default since Kafka 4.1): replicas that left the \
         ISR while it was below min.insync.replicas, so they have every committed record and may \
         win a clean election once the ISR is empty; the table's ELR column (elr 1 after the state \
         when narrow), last 0 for LastKnownELR, the leader when the ISR became empty",
    ),
    (
        "KRaft",
        "Kafka's own metadata mode, without ZooKeeper: a controller keeps the cluster's metadata \
         (ctrl 3000 is its node id), fences brokers and elects leaders",
    ),
    ("ctrl", "the KRaft controller; the number after it is its node id"),
    ("Ep", "the partition table's leader epoch column"),
    ("Ldr", "the partition table's leader column at 80 columns: the broker that leads it"),
    ("p0 / c0", "producer 0 / consumer 0: clients are numbered in the order they were added"),
    (
        "hb",
        "heartbeat, in the broker view: how long ago the controller last heard from the broker, \
         then when broker.session.timeout.ms fences it",
    ),
    (
        "ep",
        "broker epoch, in the broker view (ep 1): the controller gives a broker a new one each \
         time it registers, so it can tell a restarted broker from its old self",
    ),
    (
        "fence in Ns",
        "short state: the leader is down, frozen or cut off and the controller fences it in N \
         seconds (broker.session.timeout.ms), then elects another",
    ),
    ("HW waits N", "short state: the HW waits for ISR member N, which has not fetched the leader's records"),
    ("HW <minISR", "short state: the ISR is below min.insync.replicas, so the HW is frozen"),
    ("reassign", "short state: a reassignment (KIP-455) is moving the partition's replicas"),
    (
        "idempotent",
        "enable.idempotence: the producer numbers its batches so a retry is written once and in \
         order; without it (not idempotent) a retry may duplicate or reorder records",
    ),
    (
        "fetch session",
        "KIP-227 incremental fetch: a leader remembers a follower's partitions, so each fetch \
         names only those that changed",
    ),
    ("KIP", "Kafka Improvement Proposal: the document a Kafka change is designed in"),
    ("rec/s", "records per second, on the charts' y axes"),
    ("p50 / p99", "the median and the 99th percentile of produce latency, in sim ms"),
    ("OS", "operating system: its page cache holds written records until they reach the disk"),
    (
        "Long.MAX",
        "Java's Long.MAX_VALUE, 9223372036854775807: Kafka's default for a limit that is off \
         (the replication throttles); the config view writes it so",
    ),
];

/// Columns of a glossary meaning: the help box at 80 columns, less the term column.
const MEANING_W: usize = 56;

/// Columns of the glossary's term column: the widest term and two spaces after it, so every
/// term stands apart from its meaning, however long it is (the help box at 80 columns has 74).
fn term_w() -> usize {
    GLOSSARY.iter().map(|(t, _)| super::text::width(t)).max().unwrap_or(0) + 2
}

/// The glossary section: each term, then its meaning wrapped beside it; then every Kafka
/// error code the screens can show, with whether the client retries it.
fn glossary(theme: Theme, out: &mut Vec<Line<'static>>) {
    out.push(Line::styled("Glossary", theme.title()));
    let term_w = term_w();
    // The meanings keep the box's 74 columns at 80, beside the term column.
    let meaning_w = (MEANING_W + 16).saturating_sub(term_w).max(20);
    for (term, meaning) in GLOSSARY {
        for (i, part) in super::text::wrap(meaning, meaning_w).into_iter().enumerate() {
            let pad = term_w.saturating_sub(super::text::width(term));
            let head = if i == 0 { format!("  {term}{}", " ".repeat(pad)) } else { " ".repeat(term_w + 2) };
            out.push(Line::from(vec![Span::styled(head, theme.key()), Span::raw(part)]));
        }
    }
    out.push(Line::raw(""));
    out.push(Line::styled("Kafka error codes (retriable: the client tries again)", theme.title()));
    for (name, meaning) in error_lines() {
        let text = format!("{name} {meaning}");
        for (i, part) in super::text::wrap(&text, MEANING_W + 16).into_iter().enumerate() {
            let line = match part.strip_prefix(name.as_str()).filter(|_| i == 0) {
                Some(rest) => vec![
                    Span::raw("  "),
                    Span::styled(name.clone(), theme.key()),
                    Span::raw(rest.to_string()),
                ],
                None => vec![Span::raw(format!("    {part}"))],
            };
            out.push(Line::from(line));
        }
    }
    out.push(Line::raw(""));
}

/// Each Kafka error code with its meaning and whether the client retries it, in code order:
/// every code the simulation answers with, so whichever a screen shows is explained.
pub fn error_lines() -> Vec<(String, String)> {
    let mut codes = crate::kafka::errors::ALL.to_vec();
    codes.sort_by_key(|e| e.code());
    codes
        .into_iter()
        .map(|e| {
            let how = if e.is_retriable() { "retriable" } else { "not retriable" };
            (e.name().to_string(), format!("{} ({how})", e.meaning()))
        })
        .collect()
}

/// How many lines the help has on a screen `screen_width` columns wide (long lines wrap).
pub fn line_count(keys: &keymap::KeyOverrides, screen_width: u16) -> usize {
    fit(lines_with(Theme::new(false), keys), text_width(screen_width)).len()
}

/// The line (as [`line_count`] counts them) where the lesson's keys begin: where the help
/// opens during a lesson.
pub fn lesson_keys_line(keys: &keymap::KeyOverrides, screen_width: u16) -> usize {
    let lines = fit(lines_with(Theme::new(false), keys), text_width(screen_width));
    let title =
        |l: &Line<'_>| l.spans.iter().map(|s| s.content.as_ref()).collect::<String>() == keymap::LESSON_TITLE;
    lines.iter().position(title).unwrap_or(0)
}

/// The help box on a screen `screen_width` columns wide: at most 96 columns, borders included.
fn box_width(screen_width: u16) -> u16 {
    screen_width.saturating_sub(4).min(96)
}

/// Columns of text inside the help box.
fn text_width(screen_width: u16) -> usize {
    usize::from(box_width(screen_width).saturating_sub(2))
}

/// Word-wraps the lines wider than `width`, continuation lines indented under the text after
/// the key column (or under a line's own indentation, plus two).
fn fit(lines: Vec<Line<'static>>, width: usize) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for line in lines {
        if line.width() <= width || line.spans.is_empty() {
            out.push(line);
            continue;
        }
        let mut spans = line.spans;
        let (label, body, style) = if spans.len() >= 2 {
            let label = spans.remove(0);
            let style = spans.last().map_or_else(Default::default, |s| s.style);
            let body: String = spans.iter().map(|s| s.content.as_ref()).collect();
            (label, body, style)
        } else {
            let only = spans.remove(0);
            let text = only.content.as_ref();
            let lead = text.len() - text.trim_start().len();
            (Span::raw(text[..lead].to_string()), text[lead..].to_string(), only.style)
        };
        let indent = if label.content.trim().is_empty() { label.width() + 2 } else { label.width() };
        out.extend(super::text::hanging(label, &body, style, width + 1, indent));
    }
    out
}

/// The help's lines, led by the user's key overrides when there are any.
fn lines_with(theme: Theme, keys: &keymap::KeyOverrides) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    if !keys.is_empty() {
        out.push(Line::styled(
            "Your keys (config.toml [keys]; the lists below show the defaults)",
            theme.title(),
        ));
        for (action, key) in keys.describe() {
            out.push(Line::from(vec![
                Span::styled(format!("  {key:<KEY_W$} "), theme.key()),
                Span::raw(action),
            ]));
        }
        out.push(Line::raw(""));
    }
    out.extend(lines(theme));
    out
}

/// Draws the overlay over the whole screen area.
pub fn render(frame: &mut Frame, area: Rect, model: &Model) {
    let theme = model.theme;
    let inner_w = box_width(area.width);
    let x = area.x + (area.width - inner_w) / 2;
    let box_area = Rect::new(x, area.y, inner_w, area.height.saturating_sub(1)).inner(Margin::new(0, 1));
    let block = Block::bordered().title(Span::styled(" isrlab help ", theme.title()));
    let text = fit(lines_with(theme, &model.keys), text_width(area.width));
    let visible = usize::from(block.inner(box_area).height);
    let scroll = model.help_scroll.min(text.len().saturating_sub(visible));
    let more = if scroll + visible < text.len() { " ↓ more " } else { "" };
    let block = block.title_bottom(Span::styled(more, theme.muted()));
    frame.render_widget(Clear, box_area);
    frame.render_widget(Paragraph::new(text).block(block).scroll((scroll as u16, 0)), box_area);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain() -> Vec<String> {
        lines(Theme::new(false))
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    /// The help opens at the keys: its first section is the dashboard's first key group, and
    /// the glossary comes after every key section.
    #[test]
    fn the_help_opens_at_the_keys_and_the_glossary_follows_them() {
        let lines = plain();
        let first_title = lines.iter().skip(1).find(|l| !l.is_empty()).expect("a title");
        assert_eq!(*first_title, Group::ALL[0].title());
        let glossary = lines.iter().position(|l| l == "Glossary").expect("a glossary");
        let help_keys = lines.iter().position(|l| l == keymap::HELP_TITLE).expect("the help's keys");
        assert!(glossary > help_keys, "the glossary follows the keys");
    }

    /// At 80 columns every line fits the box: long ones wrap under the text after the key
    /// column, and nothing is lost.
    /// Issue 9: the glossary opens with the core terms, not with `Long.MAX`.
    #[test]
    fn the_glossary_opens_with_the_core_terms() {
        let terms: Vec<&str> = GLOSSARY.iter().map(|(t, _)| *t).collect();
        assert_eq!(terms[..4], ["LEO", "HW", "ISR", "leader epoch"]);
        for term in ["clean election", "unclean election", "truncation", "L / F", "⏱"] {
            assert!(terms.contains(&term), "{term}");
        }
        assert!(terms.iter().position(|t| *t == "Long.MAX") > terms.iter().position(|t| *t == "fencing"));
    }

    /// Every glossary term stands apart from its meaning (at least two spaces) on the help
    /// drawn 80 and 200 columns wide, the longest terms too ("unclean election").
    #[test]
    fn every_glossary_term_is_set_apart_from_its_meaning() {
        for width in [80, 200] {
            let model = crate::ui::app::Model::new(1.0, Theme::new(false), &crate::ui::fixture::snapshot());
            let height = 900;
            let backend = ratatui::backend::TestBackend::new(width, height);
            let mut terminal = ratatui::Terminal::new(backend).expect("a test backend");
            terminal.draw(|f| render(f, f.area(), &model)).expect("a frame");
            let buf = terminal.backend().buffer().clone();
            let rows: Vec<String> =
                (0..height).map(|y| (0..width).map(|x| buf[(x, y)].symbol()).collect()).collect();
            for (term, meaning) in GLOSSARY {
                let first = meaning.split_whitespace().next().expect("a meaning");
                let row = rows
                    .iter()
                    .find(|r| r.contains(&format!(" {term} ")) && r.contains(first))
                    .unwrap_or_else(|| panic!("{width}: no row for {term:?}:\n{}", rows.join("\n")));
                let after = &row[row.find(&format!(" {term} ")).expect("the term") + term.len() + 1..];
                assert!(after.starts_with("  "), "{width}: {term:?} runs into its meaning: {row}");
            }
        }
    }

    #[test]
    fn long_lines_wrap_inside_the_box_at_80_columns() {
        let width = text_width(80);
        let lines = fit(lines_with(Theme::new(false), &keymap::KeyOverrides::default()), width);
        let plain: Vec<String> =
            lines.iter().map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect()).collect();
        assert!(plain.iter().all(|l| super::super::text::width(l) <= width), "{plain:#?}");
        let at = plain.iter().position(|l| l.starts_with("  [/]")).expect("the [/] key");
        assert!(
            plain[at + 1].starts_with(&" ".repeat(KEY_W + 3)) && plain[at + 1].contains("arrive"),
            "{plain:#?}"
        );
        assert!(plain.iter().any(|l| l.contains(":crash 0")), "the example's tail is kept");
        assert_eq!(line_count(&keymap::KeyOverrides::default(), 80), lines.len());
    }

    #[test]
    fn sections_follow_the_help_order_and_list_every_key() {
        let text = plain();
        let at = |title: &str| text.iter().position(|l| l == title).unwrap_or_else(|| panic!("{title}"));
        let order: Vec<usize> = Group::ALL.iter().map(|g| at(&g.title())).collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
        let quit = &text[order[5]..];
        assert!(quit.iter().any(|l| l.contains("Ctrl-C") && l.contains("quit")));
        for b in keymap::BINDINGS.iter().chain(keymap::VIEW_BINDINGS.iter().map(|v| &v.binding)) {
            assert!(text.iter().any(|l| l.contains(b.help)), "{} missing", b.label);
        }
        assert!(text.iter().any(|l| l.contains("up L4: broker 1") && l.contains("leads 4 partitions")));
        assert!(
            text.iter().any(|l| l.contains("L / F in the logs pane") && l.contains("leader / a follower"))
        );
    }
}
