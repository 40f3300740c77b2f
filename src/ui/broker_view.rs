//! The broker view (F3): one row per broker (only the visible rows are built) with its
//! process state, its registration as the controller sees it (fenced or not, broker epoch),
//! its heartbeat age and the `broker.session.timeout.ms` countdown to fencing (Kafka's
//! `BrokerHeartbeatManager`: the controller fences a broker it has not heard from for the
//! session timeout), the partitions it leads and follows, whom it fetches from (one fetcher
//! per leader, Kafka's `ReplicaFetcherManager`) and its faulty links; then the selected
//! broker in full, with each fetcher's incremental fetch session (KIP-227) as the follower's
//! `FetchSessionHandler` and the leader's `FetchSessionCache` hold it.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::app::Model;
use super::text;
use crate::cluster::snapshot::{BrokerStatus, BrokerView, FetchSessionView, LinkFaultView, Snapshot};
use crate::sim::fetch_session::{INITIAL_EPOCH, INVALID_SESSION_ID, ResetReason, next_epoch};
use crate::sim::protocol::NodeId;
use crate::sim::{BrokerId, Ms};

/// What one broker does for the partitions, counted from the snapshot's partitions.
#[derive(Default)]
struct Roles {
    leads: usize,
    follows: usize,
    /// Leader → partitions this broker fetches from it, by leader id.
    fetches_from: std::collections::BTreeMap<BrokerId, usize>,
}

/// Every broker's roles, in one pass over the partitions (a pass per broker would cost
/// brokers × partitions a frame).
fn all_roles(snap: &Snapshot) -> std::collections::BTreeMap<BrokerId, Roles> {
    let mut all: std::collections::BTreeMap<BrokerId, Roles> = std::collections::BTreeMap::new();
    for p in &snap.partitions {
        for &id in &p.replicas {
            let r = all.entry(id).or_default();
            match p.leader {
                Some(l) if l == id => r.leads += 1,
                Some(l) => {
                    r.follows += 1;
                    *r.fetches_from.entry(l).or_default() += 1;
                }
                None => r.follows += 1,
            }
        }
    }
    all
}

/// The process in words, with how long it has been so.
fn process(b: &BrokerView, now: Ms) -> String {
    let since = |t: Ms| text::duration(now.saturating_sub(t));
    match b.status {
        BrokerStatus::Up => "running".into(),
        BrokerStatus::Crashed { since: t } => format!("crashed {}", since(t)),
        BrokerStatus::Stopped { since: t } => format!("stopped {}", since(t)),
        BrokerStatus::Frozen { since: t } => format!("frozen {}", since(t)),
        BrokerStatus::PoweredOff { since: t } => format!("powered off {}", since(t)),
    }
}

/// Registration as the controller sees it.
fn registration(b: &BrokerView) -> String {
    let state = if b.in_controlled_shutdown {
        "shutting down"
    } else if b.fenced {
        "fenced"
    } else {
        "unfenced"
    };
    format!("{state} ep {}", b.broker_epoch)
}

/// Heartbeat age and what the session timeout does next.
fn heartbeat(b: &BrokerView, snap: &Snapshot) -> String {
    let age = snap.now.saturating_sub(b.last_heartbeat);
    let tenths = |ms: Ms| format!("{}.{}s", ms / 1000, (ms % 1000) / 100);
    let next = match b.fenced_in {
        Some(ms) => format!("fenced in {}", text::countdown(ms)),
        None if b.fenced => "fenced".into(),
        None => {
            let left = snap.broker_config.broker_session_timeout_ms.saturating_sub(age);
            format!("timeout in {}", tenths(left))
        }
    };
    format!("hb {} ago, {next}", tenths(age))
}

fn end(n: NodeId) -> String {
    match n {
        NodeId::Broker(b) => b.to_string(),
        NodeId::Controller(c) => format!("c{c}"),
        NodeId::ActiveController => "ctrl".into(),
        NodeId::Producer(p) => format!("p{p}"),
        NodeId::Consumer(c) => format!("c{c}"),
        NodeId::Client(c) => format!("k{c}"),
    }
}

/// One faulty link direction in words: `1→0 delay 50ms`, `2→ctrl cut`, `0→1 held`,
/// `1→2 loss 20%`. A link cut both ways reads as two directions.
fn link_text(l: &LinkFaultView) -> String {
    let f = l.faults;
    let mut what = Vec::new();
    if f.cut {
        what.push("cut".to_string());
    }
    if f.held {
        what.push("held".to_string());
    }
    if f.extra_delay_us > 0 {
        what.push(format!("delay {}ms", f.extra_delay_us as f64 / 1000.0));
    }
    if f.loss_percent > 0 {
        what.push(format!("loss {}%", f.loss_percent));
    }
    format!("{}→{} {}", end(l.from), end(l.to), what.join(" "))
}

/// The faulty links into or out of broker `id`, with `one-way` where the other direction is
/// clear and `isolated` for a broker whose every link is blocked.
fn links(snap: &Snapshot, b: &BrokerView) -> String {
    let me = NodeId::Broker(b.id);
    let mine: Vec<&LinkFaultView> = snap.faulty_links.iter().filter(|l| l.from == me || l.to == me).collect();
    if mine.is_empty() {
        return "links clear".into();
    }
    if b.reach == crate::cluster::snapshot::Reach::Isolated {
        return "isolated (every link cut)".into();
    }
    let parts: Vec<String> = mine
        .iter()
        .map(|l| {
            let back = snap.faulty_links.iter().any(|o| o.from == l.to && o.to == l.from);
            if back { link_text(l) } else { format!("{} (one-way)", link_text(l)) }
        })
        .collect();
    parts.join("; ")
}

/// How many link directions into or out of broker `b` are faulty: `1 bad link`,
/// `isolated`, for a row with no room for [`links`].
fn faulty_links(snap: &Snapshot, b: &BrokerView) -> String {
    if b.reach == crate::cluster::snapshot::Reach::Isolated {
        return "isolated".into();
    }
    let me = NodeId::Broker(b.id);
    match snap.faulty_links.iter().filter(|l| l.from == me || l.to == me).count() {
        0 => "links clear".into(),
        1 => "1 bad link".into(),
        n => format!("{n} bad links"),
    }
}

/// `fetch ←1:2 ←2:1`: how many partitions it follows from each leader; a broker that is not
/// running has no fetcher threads, whatever its assignments.
fn fetchers(r: &Roles, b: &BrokerView) -> String {
    if is_down(b) {
        return "no fetchers".into();
    }
    if r.fetches_from.is_empty() {
        return "no fetchers".into();
    }
    let list: Vec<String> = r.fetches_from.iter().map(|(l, n)| format!("←{l}:{n}")).collect();
    let paused = if b.fetch_paused { " paused" } else { "" };
    format!("fetch {}{paused}", list.join(" "))
}

/// Why a session last started over, in Kafka's words where Kafka has them.
fn reset_reason(why: ResetReason) -> String {
    match why {
        ResetReason::NewFetcher => "new fetcher".into(),
        ResetReason::Refused(e) => e.to_string(),
        ResetReason::RequestLost => "request lost".into(),
        ResetReason::ClosedByLeader => "closed by the leader".into(),
        ResetReason::NoSlot => "leader's session cache full".into(),
    }
}

/// A crashed, stopped or powered-off process: it runs no fetchers at all.
fn is_down(b: &BrokerView) -> bool {
    matches!(
        b.status,
        BrokerStatus::Crashed { .. } | BrokerStatus::Stopped { .. } | BrokerStatus::PoweredOff { .. }
    )
}

/// One fetcher's session: `←1 (2 partitions): session 1 epoch 1377, leader has it · new
/// fetcher 82s ago`. The follower names the session and the epoch its next fetch carries; the
/// leader's side says whether it still caches that session, and what it holds when the two
/// disagree.
fn session_line(f: &FetchSessionView, now: Ms) -> String {
    let session = if f.session_id == INVALID_SESSION_ID {
        "no session, full fetches".to_string()
    } else if f.epoch == INITIAL_EPOCH {
        format!("closing session {}, next fetch full", f.session_id)
    } else {
        let leader = match f.at_leader {
            // The leader moves to the next epoch when it takes a fetch; the follower when
            // the answer arrives. Both are in step while a fetch is in flight.
            Some(l)
                if l.partitions == f.partitions && (l.epoch == f.epoch || l.epoch == next_epoch(f.epoch)) =>
            {
                "leader has it".to_string()
            }
            Some(l) => format!("leader has {} at epoch {}", l.partitions, l.epoch),
            None => "leader does not know it".into(),
        };
        let held =
            if f.partitions == f.members { String::new() } else { format!(" ({} in it)", f.partitions) };
        format!("session {} epoch {}{held}, {leader}", f.session_id, f.epoch)
    };
    let reset = f
        .reset
        .map(|r| format!(" · {} {} ago", reset_reason(r.why), text::duration(now.saturating_sub(r.at))))
        .unwrap_or_default();
    let noun = if f.members == 1 { "partition" } else { "partitions" };
    format!(" ←{} ({} {noun}): {session}{reset}", f.leader, f.members)
}

/// Draws the view: the broker table on top (the selected broker's row marked `▸` and
/// reversed), the selected broker in full below.
pub fn render(frame: &mut Frame, area: Rect, model: &Model, snap: &Snapshot) {
    let theme = model.theme;
    let width = usize::from(area.width);
    let selected = model.selected_broker.and_then(|id| snap.brokers.iter().position(|b| b.id == id));
    let roles = all_roles(snap);
    let none = Roles::default();
    let role = |id: BrokerId| roles.get(&id).unwrap_or(&none);
    // The table keeps a row per broker (up to half the height); the details get the rest.
    let table_h = u16::try_from(snap.brokers.len() + 1).unwrap_or(u16::MAX).min(area.height / 2);
    let room = usize::from(area.height.saturating_sub(table_h).saturating_sub(1));
    let detail = selected
        .map(|i| detail_lines(model, snap, &snap.brokers[i], role(snap.brokers[i].id), (width, room)))
        .unwrap_or_default();
    let detail_h =
        u16::try_from(detail.len() + 1).unwrap_or(u16::MAX).min(area.height.saturating_sub(table_h));
    let [table, below] = Layout::vertical([Constraint::Fill(1), Constraint::Length(detail_h)]).areas(area);
    let title = " Brokers · ↑/↓ or 0–9 select · x crash  s shutdown  r restart  p fetch ";
    let block =
        Block::new().borders(Borders::TOP).title(Span::styled(text::truncate(title, width), theme.title()));
    let inner = block.inner(table);
    let rows = usize::from(inner.height).max(1);
    let at = selected.unwrap_or(0);
    let offset = (at + 1).saturating_sub(rows);
    let lines: Vec<Line> = snap
        .brokers
        .iter()
        .enumerate()
        .skip(offset)
        .take(rows)
        .map(|(i, b)| {
            let r = role(b.id);
            let mark = if Some(i) == selected { "▸" } else { " " };
            let row = if width >= usize::from(super::view::WIDE) {
                format!(
                    "{mark}{:<3}{:<14} {:<16} {:<29} leads {:<4} follows {:<4} {}  {}",
                    b.id,
                    process(b, snap.now),
                    registration(b),
                    heartbeat(b, snap),
                    r.leads,
                    r.follows,
                    fetchers(r, b),
                    links(snap, b)
                )
            } else {
                // 80 columns: the timers and the counts first; the epoch, fetchers and links
                // are in the selected broker's lines below.
                // Links too long for the row are counted; the selected broker's lines below
                // name them.
                let reg = registration(b);
                let reg = reg.split(" ep").next().unwrap_or_default();
                let row = |links: &str| {
                    format!(
                        "{mark}{:<3}{:<12} {:<8} {:<30} L {:<3} F {:<3}{links}",
                        b.id,
                        process(b, snap.now),
                        reg,
                        heartbeat(b, snap),
                        r.leads,
                        r.follows,
                    )
                };
                let full = row(&links(snap, b));
                if text::width(&full) <= width { full } else { row(&faulty_links(snap, b)) }
            };
            let style = if Some(i) == selected {
                theme.selected()
            } else if b.status != BrokerStatus::Up || b.fenced {
                theme.bad()
            } else {
                theme.normal()
            };
            Line::styled(text::truncate(&row, width), style)
        })
        .collect();
    frame.render_widget(Paragraph::new(lines).block(block), table);
    let block = Block::new().borders(Borders::TOP);
    let detail = text::fit_all(detail, usize::from(block.inner(below).width));
    frame.render_widget(Paragraph::new(detail).block(block), below);
}

/// ` label: a b c` on at most `max_lines` lines of `width` columns, each name whole, the
/// lines after the first indented under the label. When every name fits, the lines share
/// them evenly (no name left alone under a full line); otherwise as many as fit, then
/// `+N more` (`total` counts every name; `names` may hold only the first ones).
fn list(label: &str, names: &[String], total: usize, width: usize, max_lines: usize) -> Vec<String> {
    let head = format!(" {label}:");
    if total == 0 {
        return vec![format!("{head} none")];
    }
    let fits = |rows: &[String]| rows.iter().all(|r| text::width(r) <= width);
    if names.len() == total {
        for k in 1..=max_lines.min(total) {
            for extras_first in [true, false] {
                let rows = spread(&head, names, k, extras_first);
                if fits(&rows) {
                    return rows;
                }
            }
        }
    }
    if names.len() == total {
        let items: Vec<&str> = names.iter().map(String::as_str).collect();
        let rows = greedy(&head, &items, width);
        if rows.len() <= max_lines && fits(&rows) {
            return rows;
        }
    }
    // Cut: the most names that fit with `+N more` after them.
    let with_more = |m: usize| {
        let more = format!("+{} more", total - m);
        let items: Vec<&str> = names[..m].iter().map(String::as_str).chain([more.as_str()]).collect();
        greedy(&head, &items, width)
    };
    let mut shown = 0;
    while shown < names.len().min(total - 1) {
        let rows = with_more(shown + 1);
        if rows.len() > max_lines || !fits(&rows) {
            break;
        }
        shown += 1;
    }
    with_more(shown).into_iter().take(max_lines.max(1)).map(|r| text::truncate(&r, width)).collect()
}

/// The indent of a list's lines after the first.
const LIST_INDENT: &str = "   ";

/// `names` on `k` lines after `head`, as evenly as they go: the lines differ by one name at
/// most, the longer ones first or last.
fn spread(head: &str, names: &[String], k: usize, extras_first: bool) -> Vec<String> {
    let (per, extra) = (names.len() / k, names.len() % k);
    let mut rest = names;
    (0..k)
        .map(|i| {
            let longer = if extras_first { i < extra } else { i >= k - extra };
            let (line, tail) = rest.split_at(per + usize::from(longer));
            rest = tail;
            let lead = if i == 0 { head } else { LIST_INDENT };
            format!("{lead} {}", line.join(" "))
        })
        .collect()
}

/// `items` after `head`, each line filled before the next starts (an item longer than a
/// line gets a line of its own).
fn greedy(head: &str, items: &[&str], width: usize) -> Vec<String> {
    let mut rows = vec![head.to_string()];
    for item in items {
        let last = rows.last_mut().expect("a first row");
        let bare = last.as_str() == head || last.as_str() == LIST_INDENT;
        if bare || text::width(last) + 1 + text::width(item) <= width {
            last.push(' ');
            last.push_str(item);
        } else {
            rows.push(format!("{LIST_INDENT} {item}"));
        }
    }
    rows
}

/// The selected broker in full: what it leads and follows (✔ in the ISR, ✗ out), its
/// fetchers, its timers and its links.
fn detail_lines(
    model: &Model,
    snap: &Snapshot,
    b: &BrokerView,
    r: &Roles,
    (width, room): (usize, usize),
) -> Vec<Line<'static>> {
    let theme = model.theme;
    // Lines wrapped to the pane, each after one space; the lists come wrapped already.
    let wrap = |l: &str| -> Vec<String> {
        text::wrap(l.trim_start(), width.saturating_sub(1).max(1))
            .into_iter()
            .map(|l| format!(" {l}"))
            .collect()
    };
    let mut out: Vec<String> = Vec::new();
    let head = format!(
        " broker {} · {} · {} · {}",
        b.id,
        process(b, snap.now),
        registration(b),
        if is_down(b) {
            "no fetchers (down)"
        } else if b.fetch_paused {
            "fetchers paused (p)"
        } else {
            "fetchers running"
        }
    );
    out.extend(wrap(&head));
    // Two lines' worth of names at most (a name is at least 3 columns with its space), and
    // one more to tell whether all of them fit.
    let shown = width * 2 / 3 + 1;
    let leads: Vec<String> = snap
        .partitions
        .iter()
        .filter(|p| p.leader == Some(b.id))
        .take(shown)
        .map(|p| p.tp.to_string())
        .collect();
    out.extend(list(&format!("leads {}", r.leads), &leads, r.leads, width, 2));
    let follows: Vec<String> = snap
        .partitions
        .iter()
        .filter(|p| p.leader != Some(b.id) && p.replicas.contains(&b.id))
        .take(shown)
        .map(|p| format!("{}{}", p.tp, if p.isr.contains(&b.id) { "✔" } else { "✗" }))
        .collect();
    out.extend(list(&format!("follows {} (✔ in ISR, ✗ out)", r.follows), &follows, r.follows, width, 2));
    let c = &snap.broker_config;
    let mut more: Vec<String> = Vec::new();
    more.push(format!(
        " heartbeat: {} · broker.heartbeat.interval.ms={} broker.session.timeout.ms={}",
        heartbeat(b, snap),
        c.broker_heartbeat_interval_ms,
        c.broker_session_timeout_ms
    ));
    let link_text = links(snap, b);
    more.push(format!(" links: {}", link_text.strip_prefix("links ").unwrap_or(&link_text)));
    if !b.restart_pending.is_empty() {
        more.push(format!(" restart pending: {}", b.restart_pending.join(", ")));
    }
    if b.fetch_sessions.is_empty() {
        let why = if b.status == BrokerStatus::Up { "" } else { " while down (sessions live in memory)" };
        more.push(format!(" fetch sessions: none{why}"));
    }
    out.extend(more.iter().flat_map(|l| wrap(l)));
    // One fetcher a line as long as they fit; the ones after that counted on the last row.
    let sessions: Vec<Vec<String>> =
        b.fetch_sessions.iter().map(|f| wrap(&session_line(f, snap.now))).collect();
    let all: usize = sessions.iter().map(Vec::len).sum();
    let left = room.saturating_sub(out.len());
    if all <= left {
        out.extend(sessions.into_iter().flatten());
    } else {
        let mut kept = 0;
        for s in &sessions {
            if out.len() + s.len() + 1 > room {
                break;
            }
            out.extend(s.iter().cloned());
            kept += 1;
        }
        let rest: Vec<String> = b.fetch_sessions[kept..].iter().map(|f| format!("←{}", f.leader)).collect();
        let line = format!(" +{} more fetch sessions: {}", rest.len(), rest.join(" "));
        out.push(text::truncate(&line, width));
    }
    out.into_iter().map(|l| Line::styled(l, theme.normal())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::snapshot::CachedSessionView;
    use crate::kafka::errors::ErrorCode;
    use crate::sim::fetch_session::SessionReset;

    fn view(
        session_id: u32,
        epoch: i32,
        at_leader: Option<(i32, usize)>,
        why: ResetReason,
    ) -> FetchSessionView {
        FetchSessionView {
            leader: 2,
            members: 3,
            session_id,
            epoch,
            partitions: 3,
            reset: Some(SessionReset { at: 1_000, why }),
            at_leader: at_leader.map(|(epoch, partitions)| CachedSessionView {
                epoch,
                partitions,
                last_used_ms: 0,
            }),
        }
    }

    /// Each state of a session in words: none, closing, held by the leader (also with a fetch
    /// in flight), unknown to the leader, and the leader holding other partitions.
    #[test]
    fn a_session_line_says_what_each_end_holds_and_why_it_last_started_over() {
        let line = |v| session_line(&v, 13_000);
        let refused = ResetReason::Refused(ErrorCode::FetchSessionIdNotFound);
        assert_eq!(
            line(view(0, 0, None, refused)),
            " ←2 (3 partitions): no session, full fetches · FETCH_SESSION_ID_NOT_FOUND 12s ago"
        );
        assert_eq!(
            line(view(4, 0, Some((9, 3)), ResetReason::RequestLost)),
            " ←2 (3 partitions): closing session 4, next fetch full · request lost 12s ago"
        );
        let held = " ←2 (3 partitions): session 4 epoch 9, leader has it · new fetcher 12s ago";
        assert_eq!(line(view(4, 9, Some((9, 3)), ResetReason::NewFetcher)), held);
        assert_eq!(line(view(4, 9, Some((10, 3)), ResetReason::NewFetcher)), held, "a fetch in flight");
        assert!(line(view(4, 9, None, ResetReason::NewFetcher)).contains("leader does not know it"));
        assert!(line(view(4, 9, Some((12, 2)), ResetReason::NoSlot)).contains("leader has 2 at epoch 12"));
        assert!(
            line(view(4, 9, Some((9, 3)), ResetReason::ClosedByLeader))
                .ends_with("closed by the leader 12s ago")
        );
    }
}

#[cfg(test)]
mod words {
    use super::*;
    use crate::cluster::snapshot::{BrokerView, Reach};

    /// A one-partition session says `partition`, not `partitions`.
    #[test]
    fn one_partition_is_singular() {
        let v = FetchSessionView {
            leader: 1,
            members: 1,
            session_id: 0,
            epoch: 0,
            partitions: 1,
            reset: None,
            at_leader: None,
        };
        assert!(session_line(&v, 0).starts_with(" ←1 (1 partition): "), "{}", session_line(&v, 0));
    }

    /// A crashed broker runs no fetchers, and its detail line says so.
    #[test]
    fn a_crashed_broker_runs_no_fetchers() {
        let b = BrokerView {
            reach: Reach::Controller,
            ..BrokerView::for_test(2, BrokerStatus::Crashed { since: 0 }, true)
        };
        let snap = Snapshot { brokers: vec![b.clone()], ..Snapshot::default() };
        let model = Model::new(1.0, super::super::theme::Theme::new(false), &snap);
        let head: String = detail_lines(&model, &snap, &b, &Roles::default(), (80, 20))[0]
            .spans
            .iter()
            .map(|s| s.content.as_ref())
            .collect();
        assert!(head.contains("no fetchers (down)") && !head.contains("running"), "{head}");
    }
}

#[cfg(test)]
mod lists {
    use super::*;
    use crate::cluster::snapshot::Reach;

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("test_repli-{i}✔")).collect()
    }

    /// Four names where three fit beside the label: two lines of two, not three and one.
    #[test]
    fn a_list_shares_its_names_evenly_between_its_lines() {
        let rows = list("follows 4 (✔ in ISR, ✗ out)", &names(4), 4, 80, 2);
        assert_eq!(
            rows,
            [" follows 4 (✔ in ISR, ✗ out): test_repli-0✔ test_repli-1✔", "    test_repli-2✔ test_repli-3✔"]
        );
        // Seven on three lines 50 columns wide: 2, 2, 3 (the label leaves room for two).
        let rows = list("leads 7", &names(7), 7, 50, 3);
        let counts: Vec<usize> = rows.iter().map(|r| r.matches("test_repli").count()).collect();
        assert_eq!(counts, [2, 2, 3], "{rows:?}");
        assert_eq!(list("leads 0", &[], 0, 80, 2), [" leads 0: none"]);
    }

    /// More names than two lines hold: as many as fit, then `+N more`, within the width.
    #[test]
    fn a_list_too_long_for_its_lines_ends_in_n_more() {
        let rows = list("follows 200 (✔ in ISR, ✗ out)", &names(12), 200, 80, 2);
        assert_eq!(rows.len(), 2, "{rows:?}");
        assert!(rows.iter().all(|r| text::width(r) <= 80), "{rows:?}");
        let shown = rows.iter().map(|r| r.matches("test_repli").count()).sum::<usize>();
        assert!(rows[1].ends_with(&format!("+{} more", 200 - shown)), "{rows:?}");
        assert!(shown >= 6, "{rows:?}");
    }

    /// A broker with more fetchers than rows: the sessions that fit, then one line counting
    /// the others by leader.
    #[test]
    fn fetch_sessions_that_do_not_fit_are_counted() {
        let session = |leader| FetchSessionView {
            leader,
            members: 2,
            session_id: 7,
            epoch: 3,
            partitions: 2,
            reset: None,
            at_leader: None,
        };
        let b = BrokerView {
            reach: Reach::Controller,
            fetch_sessions: (1..=12).map(session).collect(),
            ..BrokerView::for_test(0, BrokerStatus::Up, false)
        };
        let snap = Snapshot { brokers: vec![b.clone()], ..Snapshot::default() };
        let model = Model::new(1.0, super::super::theme::Theme::new(false), &snap);
        let text: Vec<String> = detail_lines(&model, &snap, &b, &Roles::default(), (120, 9))
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect();
        assert_eq!(text.len(), 9, "{text:#?}");
        let kept = text.iter().filter(|l| l.trim_start().starts_with('←')).count();
        let last = text.last().expect("a last line");
        assert!(
            last.starts_with(&format!(" +{} more fetch sessions: ←{}", 12 - kept, kept + 1)),
            "{text:#?}"
        );
        assert!(last.ends_with("←12"), "{text:#?}");
    }
}
