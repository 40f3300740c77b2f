//! The selected partition's logs: one strip per replica, scaled to the largest LEO. Each cell
//! shows its records' leader epoch and whether they are committed: `█▓▆` up to that replica's
//! HW and `▒░▂` above it, the glyph (and shade) turning at every epoch boundary; `·` for
//! offsets it does not have. A replica that truncated in the last few sim seconds
//! ([`crate::cluster::snapshot::TRUNCATION_SHOWN_MS`]) shows the removed records struck out
//! (`╳`) under its strip, with how many were acknowledged. A marks row puts the leader's log
//! start, HW and LEO and the consumers' positions on the same scale. In text: each replica's
//! role (L/F), ISR membership, HW and LEO, and why the HW is stuck or which ISR change is
//! pending, when there is one.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::app::Model;
use super::consumers::{Mark, log_marks};
use super::lag::{Form, follower_state};
use super::text;
use super::theme::{Theme, glyph};
use crate::cluster::snapshot::{
    PartitionHealth, PartitionView, Reach, ReplicaView, Snapshot, TruncationView, Unreachable,
};
use crate::sim::events::group;
use crate::sim::{BrokerId, Epoch, Offset, join_ids};
use ratatui::style::Style;

/// Rows this pane wants: title, one per replica of the widest partition, one note line.
pub fn height_needed(snap: &Snapshot) -> u16 {
    let rf = snap.partitions.iter().map(|p| p.replica_views.len()).max().unwrap_or(0);
    u16::try_from(rf).unwrap_or(u16::MAX).saturating_add(2)
}

/// Rows the selected partition's notes (loss, HW, reassignment, ISR change, leader) take in
/// full in a pane `width` columns wide; 0 without a partition. The layouts give the pane
/// the rows beyond [`height_needed`]'s one note line where they have them, so the long form
/// shows whenever it fits.
pub fn notes_rows(model: &Model, snap: &Snapshot, width: u16) -> u16 {
    let Some(p) = model.partition(snap) else { return 0 };
    let paused = paused(snap);
    u16::try_from(notes(p, &paused, model.theme, usize::from(width), false).len()).unwrap_or(u16::MAX)
}

/// The brokers whose follower fetchers the user paused (`p`, `pause-fetch`).
fn paused(snap: &Snapshot) -> Vec<BrokerId> {
    snap.brokers.iter().filter(|b| b.fetch_paused).map(|b| b.id).collect()
}

/// Draws the pane for the selected partition.
pub fn render(frame: &mut Frame, area: Rect, model: &Model, snap: &Snapshot) {
    let theme = model.theme;
    let Some(p) = model.partition(snap) else {
        let block = Block::new().borders(Borders::TOP).title(Span::styled(" Logs ", theme.title()));
        frame.render_widget(Paragraph::new(" no partition").block(block), area);
        return;
    };
    let title = Line::from(Span::styled(title(p, usize::from(area.width)), theme.title()));
    let block = Block::new().borders(Borders::TOP).title(text::fit_title(title, area.width));
    let inner = block.inner(area);
    let paused = paused(snap);
    let (mut lines, cols) = replica_lines(p, &paused, theme, usize::from(inner.width));
    let room = usize::from(inner.height);
    // The notes in full when they fit under the strips, else in their short words.
    let mut notes = notes(p, &paused, theme, usize::from(inner.width), false);
    if lines.len() + notes.len() > room {
        notes = self::notes(p, &paused, theme, usize::from(inner.width), true);
    }
    let consumers = snap.consumers.iter().any(|c| c.position(&p.tp).is_some());
    // Each row already says its HW and LEO, so without consumers the marks row comes only
    // when the legend fits too. It sits right under the strips when the notes (why the HW
    // is stuck) still fit below it; otherwise the notes come first and it gives way.
    let marks = marks(snap, p, &cols, theme).filter(|_| consumers || lines.len() + notes.len() + 2 <= room);
    if lines.len() + notes.len() + usize::from(marks.is_some()) <= room {
        lines.extend(marks);
        lines.extend(notes);
    } else {
        lines.extend(notes);
        lines.extend(marks);
    }
    if lines.len() < room {
        lines.push(legend(&cols, theme, usize::from(inner.width)));
    }
    frame.render_widget(Paragraph::new(text::fit_all(lines, usize::from(inner.width))).block(block), area);
}

/// The pane's title in the richest form that fits `width` columns (with a rule after it):
/// ` test_repli-0 logs · leader 1 · leader epoch 0 · HW 83 · leader down, fenced in 7s `,
/// then shorter words, then cut with `…`.
fn title(p: &PartitionView, width: usize) -> String {
    let leader = p.leader.map_or("none".to_string(), |b| b.to_string());
    let (epoch, hw) = (p.leader_epoch, p.hw);
    let (state, short) =
        (super::partitions::health_word(p.health), super::partitions::short_health_word(p.health));
    let forms = [
        format!(" {} logs · leader {leader} · leader epoch {epoch} · HW {hw} · {state} ", p.tp),
        format!(" {} logs · leader {leader} · epoch {epoch} · HW {hw} · {state} ", p.tp),
        format!(" {} · leader {leader} · epoch {epoch} · HW {hw} · {state} ", p.tp),
        format!(" {} · leader {leader} · epoch {epoch} · HW {hw} · {short} ", p.tp),
    ];
    let room = width.saturating_sub(2);
    match forms.iter().find(|f| text::width(f) <= room) {
        Some(form) => form.clone(),
        None => format!("{} ", text::truncate(forms[3].trim_end(), room.saturating_sub(1))),
    }
}

/// The marks row: the consumers' positions and the leader's log start (once retention moved
/// it), LEO and HW, on the strips' scale.
fn marks(snap: &Snapshot, p: &PartitionView, cols: &Columns, theme: Theme) -> Option<Line<'static>> {
    let leader = p.replica_views.iter().find(|r| r.is_leader);
    let mut marks = Vec::new();
    if let Some(l) = leader {
        // Rank: the HW's glyph wins a shared column, then the LEO's, then the log start's.
        marks.push(Mark { glyph: 'H', at: p.hw, name: "HW".into(), rank: 0 });
        marks.push(Mark { glyph: 'E', at: l.leo, name: "LEO".into(), rank: 1 });
        if cols.show_start {
            marks.push(Mark { glyph: 'S', at: l.log_start, name: "log start".into(), rank: 2 });
        }
    }
    log_marks(snap, p, (cols.bar_at(), cols.bar_w, cols.max), theme, marks)
}

/// One line per replica, and how they are laid out (where the strips are); `paused` lists
/// the brokers whose fetchers the user paused.
fn replica_lines(
    p: &PartitionView,
    paused: &[BrokerId],
    theme: Theme,
    width: usize,
) -> (Vec<Line<'static>>, Columns) {
    let max_leo = p.replica_views.iter().map(|r| r.leo).max().unwrap_or(0).max(1);
    let num_w = max_leo.to_string().len();
    let long = width >= 70;
    // The log start appears once retention (or a reset follower) moved it on some replica.
    let show_start = p.replica_views.iter().any(|r| r.log_start > 0);
    let note_w = p.replica_views.iter().map(|r| note(p, r, paused, long).chars().count()).max().unwrap_or(0);
    let id_w = p.replica_views.iter().map(|r| r.broker.to_string().len()).max().unwrap_or(1);
    // " 0 L ✔ " (wider for ids from 10 on) + bar + " HW n LEO n " + note
    let fixed = id_w + 6 + 1 + 3 + num_w + 5 + num_w + 1 + note_w;
    let bar_w = width.saturating_sub(fixed).max(4);
    let bar_w = if show_start { bar_w.saturating_sub(7 + num_w).max(4) } else { bar_w };
    let mut epochs: Vec<Epoch> =
        p.replica_views.iter().flat_map(|r| r.epoch_cache.iter().map(|&(e, _)| e)).collect();
    epochs.sort_unstable();
    epochs.dedup();
    let mut cols = Columns { bar_w, max: max_leo, num_w, show_start, id_w, epochs, drawn: Drawn::default() };
    let mut lines = Vec::new();
    let mut drawn = Drawn::default();
    for r in &p.replica_views {
        lines.push(replica_line(r, &note(p, r, paused, long), theme, &cols));
        // The legend names what the strips draw: the epochs of these very cells.
        drawn.epochs.extend(record_cells(r, &cols, theme).into_iter().filter_map(|(_, _, e)| e));
        for t in p.truncations.iter().filter(|t| t.replica == r.broker) {
            for (c, _) in truncation_cells(t, &cols, theme) {
                drawn.truncated |= c == glyph::TRUNCATED;
                drawn.acked_lost |= c == glyph::TRUNCATED_ACKED;
            }
            lines.extend(truncation_lines(t, &cols, theme, width));
        }
    }
    cols.drawn = drawn;
    (lines, cols)
}

/// What the strips of one partition draw, for the legend: the leader epochs whose records
/// have cells, and which truncation glyphs are on screen.
#[derive(Debug, Default)]
struct Drawn {
    epochs: std::collections::BTreeSet<Epoch>,
    /// `╳`: records truncated away that were never acknowledged.
    truncated: bool,
    /// `✘`: acknowledged records truncated away (lost).
    acked_lost: bool,
}

/// How a replica line is laid out.
struct Columns {
    bar_w: usize,
    max: Offset,
    num_w: usize,
    show_start: bool,
    /// Characters of the widest broker id.
    id_w: usize,
    /// Every leader epoch in any replica's epoch cache, ascending. An epoch's glyph and shade
    /// is its rank here modulo 3, so neighbouring epochs differ and one epoch looks the same
    /// on every replica.
    epochs: Vec<Epoch>,
    /// What the strips drew (filled once they are laid out).
    drawn: Drawn,
}

impl Columns {
    /// The column where the strips start: after ` ID R ✔ `.
    fn bar_at(&self) -> usize {
        self.id_w + 6
    }

    /// The glyph and shade class (0–2) of leader epoch `e`.
    fn class(&self, e: Epoch) -> usize {
        self.epochs.binary_search(&e).unwrap_or_else(|i| i) % glyph::COMMITTED_BY_EPOCH.len()
    }

    /// The strip column of offset `o` (`bar_w` for the end of the largest log).
    fn column(&self, o: Offset) -> usize {
        let max = self.max.max(1);
        ((o.clamp(0, max) as f64 / max as f64) * self.bar_w as f64).round() as usize
    }
}

fn replica_line(r: &ReplicaView, note: &str, theme: Theme, cols: &Columns) -> Line<'static> {
    let role = if r.is_leader { "L" } else { "F" };
    let (isr_glyph, isr_style) =
        if r.in_isr { (glyph::IN_ISR, theme.good()) } else { (glyph::OUT_OF_ISR, theme.muted()) };
    let [blank, _, _, missing] = bar_cells(r, cols.bar_w, cols.max);
    let id_style = if r.is_leader { theme.leader() } else { theme.normal() };
    let note_style = if r.online { theme.warn() } else { theme.bad() };
    let mut spans = vec![
        Span::styled(format!(" {} {role} ", r.broker), id_style),
        Span::styled(isr_glyph, isr_style),
        Span::raw(" "),
        Span::raw(" ".repeat(blank)),
    ];
    let cells: Vec<(char, Style)> =
        record_cells(r, cols, theme).into_iter().map(|(c, s, _)| (c, s)).collect();
    spans.extend(runs(&cells));
    spans.push(Span::styled(glyph::MISSING.to_string().repeat(missing), theme.muted()));
    spans.push(Span::styled(offsets(r, cols), theme.normal()));
    spans.push(Span::styled(note.to_string(), note_style));
    Line::from(spans)
}

/// The cells of `r`'s strip that hold records (from its log start to its LEO), each with
/// its glyph and style: committed or not (by [`bar_cells`]) and the leader epoch of the
/// records at the cell's middle offset (also returned, for the legend). Every epoch that
/// starts inside the strip gets the cell where it starts, so a short epoch stays visible.
fn record_cells(r: &ReplicaView, cols: &Columns, theme: Theme) -> Vec<(char, Style, Option<Epoch>)> {
    let [blank, committed, uncommitted, _] = bar_cells(r, cols.bar_w, cols.max);
    let (first, end) = (blank, blank + committed + uncommitted);
    let per_cell = cols.max.max(1) as f64 / cols.bar_w.max(1) as f64;
    let mut epochs: Vec<Option<Epoch>> = (first..end)
        .map(|c| {
            let o =
                (((c as f64 + 0.5) * per_cell) as Offset).clamp(r.log_start, (r.leo - 1).max(r.log_start));
            epoch_at(&r.epoch_cache, o)
        })
        .collect();
    for &(e, start) in r.epoch_cache.iter().filter(|(_, s)| (r.log_start..r.leo).contains(s)) {
        let c = cols.column(start).clamp(first, end.saturating_sub(1).max(first));
        if let Some(slot) = epochs.get_mut(c - first) {
            *slot = Some(e);
        }
    }
    epochs
        .into_iter()
        .enumerate()
        .map(|(i, e)| {
            let class = e.map_or(0, |e| cols.class(e));
            if i < committed {
                (glyph::COMMITTED_BY_EPOCH[class], theme.committed_in(class), e)
            } else {
                (glyph::UNCOMMITTED_BY_EPOCH[class], theme.uncommitted_in(class), e)
            }
        })
        .collect()
}

/// The leader epoch of the record at `offset`, from an epoch cache (ascending start offsets).
fn epoch_at(cache: &[(Epoch, Offset)], offset: Offset) -> Option<Epoch> {
    cache.iter().rev().find(|(_, start)| *start <= offset).map(|&(e, _)| e)
}

/// Neighbouring cells of the same glyph and style as one span each.
fn runs(cells: &[(char, Style)]) -> Vec<Span<'static>> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut run = String::new();
    for (i, &(c, style)) in cells.iter().enumerate() {
        run.push(c);
        if cells.get(i + 1).is_none_or(|next| *next != (c, style)) {
            spans.push(Span::styled(std::mem::take(&mut run), style));
        }
    }
    spans
}

/// The struck-out cells of truncation `t`, at the offsets its records had: the acknowledged
/// ones (acknowledged and now lost) as `✘` in the alarm's style, the others as `╳`.
fn truncation_cells(t: &TruncationView, cols: &Columns, theme: Theme) -> Vec<(char, Style)> {
    let (start, end) = truncation_span(t, cols);
    let acked = t
        .acknowledged_span
        .map(|(a, z)| (cols.column(a).max(start), cols.column(z + 1).max(cols.column(a) + 1)));
    (start..end)
        .map(|c| match acked {
            Some((a, z)) if (a..z.max(a + 1)).contains(&c) => {
                (glyph::TRUNCATED_ACKED, theme.truncated_acked())
            }
            _ => (glyph::TRUNCATED, theme.truncated()),
        })
        .collect()
}

/// The strip columns (first, past the last) of truncation `t`'s cells: at least one.
fn truncation_span(t: &TruncationView, cols: &Columns) -> (usize, usize) {
    let start = cols.column(t.from).min(cols.bar_w.saturating_sub(1));
    let end = cols.column(t.from + t.count as Offset).clamp(start + 1, cols.bar_w.max(start + 1));
    (start, end)
}

/// The records truncation `t` removed, struck out under their replica's strip at the
/// offsets they had, labelled `truncated: N records (M acknowledged)`, in the first form
/// that fits `width` columns: the label before the cells when the blank part of the row has
/// room (a truncation removes a log's tail, so its cells are often at the strip's right
/// end), else after them, each with `from offset N` and then without; else the label whole
/// on a row of its own under the cells; only a pane too narrow for the label cuts it, with `…`.
fn truncation_lines(t: &TruncationView, cols: &Columns, theme: Theme, width: usize) -> Vec<Line<'static>> {
    let (start, _) = truncation_span(t, cols);
    let label_style = if t.acknowledged > 0 { theme.alarm() } else { theme.bad() };
    let label = format!(
        "truncated: {} {} ({} acknowledged)",
        t.count,
        super::text::noun(t.count, "record", "records"),
        t.acknowledged
    );
    let struck = runs(&truncation_cells(t, cols, theme));
    let from = Span::styled(format!(" from offset {}", t.from), theme.muted());
    let before = format!(" ↳ {label} ");
    let blank = cols.bar_at() + start;
    let fits = |line: &Line| line.width() <= width;
    let after = |with_from: bool| {
        let mut spans = vec![Span::raw(" ".repeat(blank))];
        spans.extend(struck.clone());
        spans.extend([Span::raw(" "), Span::styled(label.clone(), label_style)]);
        spans.extend(Some(from.clone()).filter(|_| with_from));
        Line::from(spans)
    };
    let mut forms = Vec::new();
    for with_from in [true, false] {
        if text::width(&before) <= blank {
            let pad = " ".repeat(blank - text::width(&before));
            let mut spans = vec![Span::styled(before.clone(), label_style), Span::raw(pad)];
            spans.extend(struck.clone());
            spans.extend(Some(from.clone()).filter(|_| with_from));
            forms.push(Line::from(spans));
        }
        forms.push(after(with_from));
    }
    if let Some(line) = forms.into_iter().find(fits) {
        return vec![line];
    }
    // Neither side of the cells has room: the label whole on the next row, `from offset N`
    // with it when it fits, else cut with `…`; the cells keep their row.
    let mut cells = vec![Span::raw(" ".repeat(blank))];
    cells.extend(struck);
    let mut note = vec![Span::styled(format!(" ↳ {label}"), label_style), from];
    if Line::from(note.clone()).width() > width && text::width(&label) + 3 <= width {
        note.pop();
    }
    vec![Line::from(text::truncate_spans(cells, width)), Line::from(text::truncate_spans(note, width))]
}

/// `start n` (when shown), `HW n`, `LEO n`.
fn offsets(r: &ReplicaView, cols: &Columns) -> String {
    let w = cols.num_w;
    let start = if cols.show_start { format!(" start {:>w$}", r.log_start) } else { String::new() };
    format!("{start} HW {:>w$} LEO {:>w$} ", r.hw, r.leo)
}

/// The replica's role or trouble in words. A follower reads `in sync` only when it has
/// caught up with a live leader and fetches: ISR membership is the `✔`, and a follower the
/// controller still counts in the ISR can be far behind a leader that crashed before it was
/// fenced. Otherwise it says how far behind the leader's log it is (the leader's
/// own view while it runs, else its log on disk), that its fetching is paused (`paused`
/// lists those brokers) and that the leader is down or missing.
fn note(p: &PartitionView, r: &ReplicaView, paused: &[BrokerId], long: bool) -> String {
    let leader = p.replica_views.iter().find(|l| l.is_leader);
    if r.is_leader {
        return if r.online { "leader" } else { "leader, down" }.to_string();
    }
    let form = if long { Form::Long } else { Form::Short };
    let mut parts: Vec<String> = follower_state(r, form).into_iter().collect();
    if r.online {
        let said_behind = r.lag.is_some_and(|l| l > 0);
        if let Some(l) = leader.filter(|l| !said_behind && l.leo > r.leo) {
            parts.insert(0, format!("{} behind", l.leo - r.leo));
        }
        if paused.contains(&r.broker) {
            parts.push("fetch paused".to_string());
        }
        match leader {
            None => parts.push("no leader".to_string()),
            Some(l) if !l.online => parts.push("leader down".to_string()),
            Some(_) => {}
        }
    }
    if parts.is_empty() { "in sync".to_string() } else { parts.join(if long { ", " } else { " " }) }
}

/// Cell counts of the bar: before the log start, committed, uncommitted, missing. Any
/// non-empty part gets at least one cell so small differences stay visible.
pub fn bar_cells(r: &ReplicaView, width: usize, max: Offset) -> [usize; 4] {
    let max = max.max(1) as f64;
    let scale = |o: Offset| ((o.max(0) as f64 / max) * width as f64).round() as usize;
    let mut leo = scale(r.leo).min(width);
    if r.leo < max as Offset && leo == width {
        leo = width.saturating_sub(1);
    }
    if r.leo > 0 && leo == 0 {
        leo = 1.min(width);
    }
    let hw_off = r.hw.min(r.leo);
    let mut hw = scale(hw_off).min(leo);
    if hw_off < r.leo && hw == leo {
        hw = leo.saturating_sub(1);
    }
    let start = scale(r.log_start).min(hw);
    [start, hw - start, leo - hw, width - leo]
}

/// The notes under the strips; `short` says the leader's trouble in fewer words, for a
/// pane with little room.
fn notes(
    p: &PartitionView,
    paused: &[BrokerId],
    theme: Theme,
    width: usize,
    short: bool,
) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    if p.acked_lost > 0 {
        out.extend(loss_note(p, theme, width, short));
    }
    if let Some(why) = hw_waits_for_paused(p, paused).or_else(|| p.hw_blocked_by.clone()) {
        out.extend(hw_note(&why, theme, width));
    }
    if let Some(text) = reassignment(p) {
        let label = Span::styled(" Reassignment: ", theme.warn());
        out.extend(text::hanging(label, &text, theme.normal(), width, 3));
    }
    if let Some(change) = &p.pending_isr {
        let label = Span::styled(" ISR change pending: ", theme.warn());
        out.extend(text::hanging(label, change, theme.normal(), width, 3));
    }
    for (label, why) in eligible(p, short) {
        out.extend(text::hanging(Span::styled(label, theme.warn()), &why, theme.normal(), width, 3));
    }
    if let Some(why) = leader_unreachable(p, short) {
        let label = Span::styled(if short { " Leader " } else { " Leader unreachable: " }, theme.alarm());
        out.extend(text::hanging(label, &why, theme.normal(), width, 3));
    }
    if let Some(why) = leader_cut_off(p) {
        let label = Span::styled(" Leader cut off: ", theme.bad());
        out.extend(text::hanging(label, &why, theme.normal(), width, 3));
    }
    out
}

/// The partition's eligible leader replicas and LastKnownELR (KIP-966, R8.3–R8.4) in words,
/// each with its label; none when both are empty. Why a replica is eligible follows
/// `PartitionChangeBuilder.maybePopulateTargetElr`: while the target ISR is below
/// min.insync.replicas, the replicas leaving it (not by an unclean shutdown) join the ELR; the
/// HW could not advance without them, so each holds every committed record.
/// `PartitionChangeBuilder.maybeUpdateLastKnownLeader` records the leader in LastKnownELR when
/// the ISR becomes empty; `canElectLastKnownLeader` may elect it when ISR and ELR are empty.
fn eligible(p: &PartitionView, short: bool) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    if !p.elr.is_empty() {
        let ids = join_ids(&p.elr);
        out.push((
            " ELR: ",
            if short {
                format!("{ids}: left the ISR under min ISR, so they have every committed record")
            } else {
                format!(
                    "{ids}, eligible leader replicas: {} left the ISR while it was below min.insync.replicas, \
                     so the HW stopped with {}: {} every committed record, and a clean election may choose {} \
                     once the ISR is empty",
                    if p.elr.len() == 1 { "it" } else { "they" },
                    if p.elr.len() == 1 { "it" } else { "them" },
                    if p.elr.len() == 1 { "it has" } else { "each has" },
                    if p.elr.len() == 1 { "it" } else { "one" },
                )
            },
        ));
    }
    if !p.last_known_elr.is_empty() {
        let ids = join_ids(&p.last_known_elr);
        out.push((
            " LastKnownELR: ",
            if short {
                format!("{ids}: the leader when the ISR became empty")
            } else {
                format!(
                    "{ids}, the leader when the ISR became empty: with no ISR or ELR member left, the \
                     controller may elect it again when it comes back"
                )
            },
        ));
    }
    out
}

/// A running reassignment (KIP-455) in words: what it adds and removes and the bytes the
/// adding replicas still have to fetch; `None` when none runs.
fn reassignment(p: &PartitionView) -> Option<String> {
    if p.adding.is_empty() && p.removing.is_empty() {
        return None;
    }
    let mut text = format!("adding [{}], removing [{}]", join_ids(&p.adding), join_ids(&p.removing));
    if let Some(left) = p.reassign_bytes_left {
        text.push_str(&format!(", {} bytes left to copy", group(left)));
    }
    Some(text)
}

/// A leader whose process is down or frozen while the controller has not fenced it yet, in
/// words with the countdown; `None` otherwise (a cut-off leader has its own note).
fn leader_unreachable(p: &PartitionView, short: bool) -> Option<String> {
    let PartitionHealth::LeaderUnreachable { fenced_in, why } = p.health else { return None };
    let leader = p.leader?;
    if why == Unreachable::CutOff {
        return None;
    }
    let word = super::partitions::unreachable_word(why);
    // The last ISR member stays in the ISR when fenced (`PartitionChangeBuilder.build` applies no
    // empty ISR with ELR off): no clean election can follow.
    let last = p.isr == [leader];
    if short {
        let then =
            if last { "the ISR's last member, it stays; no clean successor" } else { "then elects another" };
        return Some(format!(
            "{leader} is {word}: the controller fences it in {}, {then}",
            text::countdown(fenced_in)
        ));
    }
    let then = if last {
        "; as the ISR's last member it stays in the ISR, and the partition is left without a leader unless \
         unclean.leader.election.enable lets another replica lead"
    } else {
        ", then elects another leader"
    };
    Some(format!(
        "broker {leader} is {word}, but the controller still counts it as the leader: it fences it in {} \
         (broker.session.timeout.ms after the last heartbeat it received){then}",
        text::countdown(fenced_in)
    ))
}

/// What a leader that cannot reach the controller means, in words; `None` when it can.
pub fn leader_cut_off(p: &PartitionView) -> Option<String> {
    let leader = p.leader?;
    let how = match p.leader_reach {
        Reach::Controller => return None,
        Reach::NoController => "its messages to the controller are blocked",
        Reach::Isolated => "it is isolated from the other brokers and the controller",
    };
    Some(format!(
        "broker {leader} cannot reach the controller ({how}): no heartbeats, so the controller fences it \
         after broker.session.timeout.ms and elects another leader, while broker {leader} still \
         believes it leads"
    ))
}

/// `⚠ 5 acked records lost: ` and why (the audit ledger's [`LossCause`]), wrapped under
/// its label; `short` tells the story in its brief form.
///
/// [`LossCause`]: crate::sim::loss_cause::LossCause
fn loss_note(p: &PartitionView, theme: Theme, width: usize, short: bool) -> Vec<Line<'static>> {
    // Short: `⚠ 5 acked lost: …`, so the brief story fits one 80-column line.
    let noun = match (short && p.loss_cause.is_some(), p.acked_lost) {
        (true, _) => "",
        (false, 1) => "record ",
        (false, _) => "records ",
    };
    let label = Span::styled(format!(" ⚠ {} acked {noun}lost", p.acked_lost), theme.alarm());
    match &p.loss_cause {
        Some(cause) => {
            let why = if short { cause.brief() } else { cause.to_string() };
            let label = Span::styled(format!("{}: ", label.content), theme.alarm());
            text::hanging(label, &why, theme.normal(), width, 3)
        }
        None => vec![Line::from(label)],
    }
}

/// The HW held back by an ISR member whose fetching the user paused (`paused`), in words:
/// it will not fetch, so the HW waits until it is resumed or the leader drops it from the
/// ISR after `replica.lag.time.max.ms` (`Partition.maybeShrinkIsr`); `None` otherwise (a
/// frozen HW keeps its own reason).
pub fn hw_waits_for_paused(p: &PartitionView, paused: &[BrokerId]) -> Option<String> {
    let h = p.hw_held_by.filter(|h| paused.contains(&h.broker))?;
    if p.hw_blocked_by.as_deref().is_some_and(|w| w.starts_with("HW frozen")) {
        return None;
    }
    let b = h.broker;
    Some(match h.leo {
        None => format!(
            "HW waits for broker {b}'s first fetch from the new leader, but broker {b}'s fetching is paused"
        ),
        Some(l) => format!("HW waits for broker {b} (LEO {l}), whose fetching is paused"),
    })
}

/// Why the HW is stuck, labelled `HW stuck:` unless the reason already starts with "HW"
/// (`HW frozen: …`, `HW waits for …`).
fn hw_note(why: &str, theme: Theme, width: usize) -> Vec<Line<'static>> {
    let (label, body) = match why.split_once(": ") {
        _ if !why.starts_with("HW") => (" HW stuck: ".to_string(), why),
        Some((head, body)) if head.len() <= 12 => (format!(" {head}: "), body),
        _ => (" ".to_string(), why),
    };
    text::hanging(Span::styled(label, theme.warn()), body, theme.normal(), width, 3)
}

/// What the glyphs mean, from what the strips above drew ([`Drawn`]): every leader epoch
/// with records on them (on empty strips the latest epoch, whose glyph the next records
/// take), in its committed glyph (` committed by epoch █0 ▓1 ▆2`), then
/// `▒░▂ above HW  · missing`, the truncation glyphs on screen (`╳ truncated`, `✘ truncated
/// (acked, lost)`, or both; `╳ truncated` while none is), `✔ in ISR  ✗ out`.
fn legend(cols: &Columns, theme: Theme, width: usize) -> Line<'static> {
    // Empty strips: the latest epoch, whose glyph the next records will take.
    let latest = cols.epochs.last().filter(|_| cols.drawn.epochs.is_empty());
    let epochs: Vec<Epoch> = cols.drawn.epochs.iter().chain(latest).copied().collect();
    let mut spans = vec![Span::styled(" committed by epoch", theme.muted())];
    if epochs.is_empty() {
        spans = vec![Span::styled(" committed ", theme.muted())];
        spans.push(Span::styled(glyph::COMMITTED.to_string(), theme.committed_in(0)));
    }
    for &e in &epochs {
        let class = cols.class(e);
        spans.push(Span::raw(" "));
        spans.push(Span::styled(glyph::COMMITTED_BY_EPOCH[class].to_string(), theme.committed_in(class)));
        spans.push(Span::styled(e.to_string(), theme.muted()));
    }
    let above: String = glyph::UNCOMMITTED_BY_EPOCH.iter().collect();
    let (truncated, acked) = (glyph::TRUNCATED, glyph::TRUNCATED_ACKED);
    let truncation = match (cols.drawn.truncated, cols.drawn.acked_lost) {
        (_, false) => format!("  {truncated} truncated"),
        (false, true) => format!("  {acked} truncated (acked, lost)"),
        (true, true) => format!("  {truncated} truncated ({acked} acked, lost)"),
    };
    let entries = [
        format!("  {above} above HW"),
        format!("  {} missing", glyph::MISSING),
        truncation,
        format!("  {} in ISR", glyph::IN_ISR),
        format!("  {} out", glyph::OUT_OF_ISR),
    ];
    // Too narrow for all: the entries give way whole, from the right, never `✗` without `out`.
    let mut used: usize = spans.iter().map(|s| text::width(&s.content)).sum();
    for entry in entries {
        used += text::width(&entry);
        if used > width {
            break;
        }
        spans.push(Span::styled(entry, theme.muted()));
    }
    Line::from(spans)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::app::Model;
    use crate::ui::fixture;

    fn plain(lines: &[Line]) -> String {
        lines.iter().flat_map(|l| l.spans.iter().map(|s| s.content.to_string())).collect()
    }

    /// a follower still in the ISR, behind a leader that crashed before it was
    /// fenced and with its fetching paused, says all three, never `in sync`; the same follower
    /// caught up with a live leader is `in sync`.
    #[test]
    fn in_sync_means_caught_up_with_a_live_leader() {
        let mut snap = fixture::snapshot();
        let p = std::sync::Arc::make_mut(&mut snap.partitions[0]);
        let leader_leo = p.replica_views.iter().find(|r| r.is_leader).expect("a leader").leo;
        let f = p.replica_views.iter().position(|r| !r.is_leader && r.in_isr).expect("an ISR follower");
        p.replica_views[f].leo = leader_leo;
        p.replica_views[f].lag = Some(0);
        p.replica_views[f].isr_expiry_in = None;
        let caught_up = p.replica_views[f].clone();
        assert_eq!(note(p, &caught_up, &[], true), "in sync");
        let b = caught_up.broker;
        assert_eq!(note(p, &caught_up, &[b], true), "fetch paused");
        // The leader crashes: its bookkeeping is gone, its log on disk is 396 records ahead.
        p.replica_views[f].leo = leader_leo - 396;
        p.replica_views[f].lag = None;
        for r in p.replica_views.iter_mut().filter(|r| r.is_leader) {
            r.online = false;
        }
        let behind = p.replica_views[f].clone();
        assert_eq!(note(p, &behind, &[b], true), "396 behind, fetch paused, leader down");
        assert_eq!(note(p, &behind, &[], false), "396 behind leader down");
        let leader = p.replica_views.iter().find(|r| r.is_leader).expect("a leader").clone();
        assert_eq!(note(p, &leader, &[], true), "leader, down");
    }

    /// the HW waiting for a member whose fetching is paused says so, in the first
    /// fetch's case and the known-LEO one; a member that fetches keeps the sim's words.
    #[test]
    fn the_hw_waiting_for_a_paused_member_says_it_is_paused() {
        let snap = fixture::snapshot();
        let mut p = (*snap.partitions[0]).clone();
        p.hw_blocked_by = Some("HW waits for broker 1's first fetch from the new leader".into());
        p.hw_held_by = Some(crate::cluster::snapshot::HwHold { broker: 1, leo: None });
        assert_eq!(hw_waits_for_paused(&p, &[2]), None);
        let text = hw_waits_for_paused(&p, &[1]).expect("paused");
        assert!(text.ends_with("but broker 1's fetching is paused"), "{text}");
        p.hw_held_by = Some(crate::cluster::snapshot::HwHold { broker: 1, leo: Some(689) });
        assert_eq!(
            hw_waits_for_paused(&p, &[1]).as_deref(),
            Some("HW waits for broker 1 (LEO 689), whose fetching is paused")
        );
        let shown = plain(&notes(&p, &[1], Theme::new(false), 80, false));
        assert!(shown.contains("whose fetching is paused"), "{shown}");
    }

    /// A cut truncation row ends with `…` (not `from off`), and a narrow legend drops whole
    /// entries (never `✗` without `out`); neither is wider than the pane.
    #[test]
    fn cut_rows_end_with_an_ellipsis_and_the_legend_gives_way_whole() {
        let theme = Theme::new(false);
        let mut snap = fixture::snapshot();
        let p = std::sync::Arc::make_mut(&mut snap.partitions[0]);
        let leo = p.replica_views.iter().map(|r| r.leo).max().unwrap_or(0);
        let follower = p.replica_views.iter().find(|r| !r.is_leader).expect("a follower").broker;
        p.truncations = vec![crate::cluster::snapshot::TruncationView {
            replica: follower,
            from: leo - 408,
            count: 408,
            acknowledged: 408,
            acknowledged_span: Some((leo - 408, leo - 1)),
            at: fixture::NOW,
        }];
        let p = &snap.partitions[0];
        for width in [60, 70, 80] {
            let (lines, cols) = replica_lines(p, &[], theme, width);
            let gone = lines.iter().map(|l| plain(std::slice::from_ref(l))).find(|l| l.contains("truncated"));
            let gone = gone.expect("a truncation row");
            assert!(text::width(&gone) <= width, "{width}: {gone}");
            let whole = gone.trim_end().ends_with(&format!("from offset {}", leo - 408));
            // Without room for `from offset N` it goes whole (never `from offset …`).
            let labelled = gone.trim_end().ends_with("(408 acknowledged)");
            assert!(whole || labelled || gone.ends_with('…'), "{width}: {gone}");
            assert!(!gone.contains("from offset …") && !gone.contains("from off…"), "{width}: {gone}");
            let legend = plain(&[legend(&cols, theme, width)]);
            assert!(text::width(&legend) <= width, "{width}: {legend}");
            let ends = ["above HW", "missing", "(acked, lost)", "in ISR", "out"];
            assert!(ends.iter().any(|e| legend.ends_with(e)), "{width}: {legend}");
        }
    }

    /// The pane's rows drawn `width` columns wide and `height` rows high, as text.
    fn rows(snap: &Snapshot, width: u16, height: u16) -> Vec<String> {
        let model = Model::new(1.0, Theme::new(false), snap);
        let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(width, height)).unwrap();
        terminal.draw(|f| render(f, f.area(), &model, snap)).unwrap();
        let buffer = terminal.backend().buffer().clone();
        (0..height).map(|y| (0..width).map(|x| buffer[(x, y)].symbol().to_string()).collect()).collect()
    }

    /// Four leader epochs on the strips (the glyphs come round again at the fourth): the
    /// legend names every one with the glyph its records are drawn in, `█0 ▓1 ▆2 █3`, and no
    /// glyph drawn on a strip is left out of it.
    #[test]
    fn the_legend_names_every_epoch_the_strips_draw() {
        let mut snap = fixture::snapshot();
        let p = std::sync::Arc::make_mut(&mut snap.partitions[0]);
        let leo = p.replica_views.iter().map(|r| r.leo).max().unwrap_or(0);
        let cache: Vec<(Epoch, Offset)> = (0..4).map(|e: Epoch| (e, leo * Offset::from(e) / 4)).collect();
        for r in &mut p.replica_views {
            r.epoch_cache = cache.clone();
        }
        // Empty strips still name the glyph their first records will take.
        let mut empty = fixture::snapshot();
        for r in &mut std::sync::Arc::make_mut(&mut empty.partitions[0]).replica_views {
            (r.leo, r.hw, r.log_start) = (0, 0, 0);
        }
        let legend = rows(&empty, 80, 12).into_iter().find(|r| r.contains("committed")).expect("a legend");
        assert!(legend.starts_with(" committed by epoch █0  ▒░▂ above HW"), "{legend}");
        for width in [80, 200] {
            let rows = rows(&snap, width, 12);
            let legend = rows.iter().find(|r| r.contains("committed by epoch")).expect("a legend");
            for (e, g) in [(0, '█'), (1, '▓'), (2, '▆'), (3, '█')] {
                assert!(legend.contains(&format!(" {g}{e} ")), "{width}: epoch {e}: {legend}");
            }
            let strips: String = rows.iter().filter(|r| r.contains(" HW ")).cloned().collect();
            for (i, g) in glyph::COMMITTED_BY_EPOCH.iter().enumerate() {
                let drawn = strips.contains(*g) || strips.contains(glyph::UNCOMMITTED_BY_EPOCH[i]);
                assert_eq!(drawn, legend.contains(*g), "{width}: {g}: {legend}\n{strips}");
            }
        }
    }

    /// The legend names the truncation glyphs the strips draw: `✘` alone while every removed
    /// record was acknowledged, `╳` with `✘` when some were not, `╳` while none is shown.
    #[test]
    fn the_legend_names_the_truncation_glyphs_on_screen() {
        let theme = Theme::new(false);
        let mut snap = fixture::snapshot();
        let p = std::sync::Arc::make_mut(&mut snap.partitions[0]);
        let leo = p.replica_views.iter().map(|r| r.leo).max().unwrap_or(0);
        let follower = p.replica_views.iter().find(|r| !r.is_leader).expect("a follower").broker;
        let cut = |acknowledged: u64, span| crate::cluster::snapshot::TruncationView {
            replica: follower,
            from: leo - 400,
            count: 400,
            acknowledged,
            acknowledged_span: span,
            at: fixture::NOW,
        };
        let legend_with = |t: Vec<crate::cluster::snapshot::TruncationView>| {
            let mut p = (*snap.partitions[0]).clone();
            p.truncations = t;
            let (lines, cols) = replica_lines(&p, &[], theme, 120);
            (plain(&lines), plain(&[legend(&cols, theme, 120)]))
        };
        let (strips, all_acked) = legend_with(vec![cut(400, Some((leo - 400, leo - 1)))]);
        assert!(strips.contains('✘') && !strips.contains('╳'), "{strips}");
        assert!(all_acked.contains("✘ truncated (acked, lost)") && !all_acked.contains('╳'), "{all_acked}");
        let (strips, some) = legend_with(vec![cut(100, Some((leo - 400, leo - 301)))]);
        assert!(strips.contains('✘') && strips.contains('╳'), "{strips}");
        assert!(some.contains("╳ truncated (✘ acked, lost)"), "{some}");
        let (_, none) = legend_with(vec![cut(0, None)]);
        assert!(none.contains("╳ truncated") && !none.contains('✘'), "{none}");
    }

    /// A truncation whose records fill most of the strip leaves room for its label on neither
    /// side of them: the label goes whole on the next row (`from offset N` with it where it
    /// fits), at 80 and 200 columns, never cut to `truncated: 95 recor…`.
    #[test]
    fn a_wide_truncation_keeps_its_label_whole() {
        let mut snap = fixture::snapshot();
        let p = std::sync::Arc::make_mut(&mut snap.partitions[0]);
        let leo = p.replica_views.iter().map(|r| r.leo).max().unwrap_or(0);
        let follower = p.replica_views.iter().find(|r| !r.is_leader).expect("a follower").broker;
        let count = u64::try_from(leo - 5).unwrap();
        p.truncations = vec![crate::cluster::snapshot::TruncationView {
            replica: follower,
            from: 5,
            count,
            acknowledged: count,
            acknowledged_span: Some((5, leo - 1)),
            at: fixture::NOW,
        }];
        let label = format!("truncated: {count} records ({count} acknowledged)");
        for width in [80u16, 120, 200] {
            let rows = rows(&snap, width, 14);
            let at = rows.iter().position(|r| r.contains('✘')).expect("struck-out cells");
            let note = rows[at..].iter().find(|r| r.contains("truncated:")).expect("the label");
            assert!(note.contains(&label), "{width}: {note}\n{}", rows.join("\n"));
            assert!(note.trim_end().ends_with("from offset 5"), "{width}: {note}");
        }
    }

    /// At 80 columns with room for one note, the title and the unreachable leader's note are
    /// whole, in shorter words; with room, in full.
    #[test]
    fn an_unreachable_leader_is_explained_whole_at_80_columns() {
        let mut snap = fixture::snapshot();
        let p = std::sync::Arc::make_mut(&mut snap.partitions[1]);
        p.health = PartitionHealth::LeaderUnreachable { fenced_in: 7_000, why: Unreachable::Down };
        p.hw_blocked_by = None;
        let mut model = Model::new(1.0, Theme::new(false), &snap);
        model.selected_partition = 1;
        let draw = |w: u16, h: u16| {
            let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).unwrap();
            terminal.draw(|f| render(f, f.area(), &model, &snap)).unwrap();
            let buffer = terminal.backend().buffer().clone();
            (0..h)
                .map(|y| (0..w).map(|x| buffer[(x, y)].symbol().to_string()).collect::<String>())
                .collect::<Vec<_>>()
        };
        let small = draw(80, 5);
        assert!(
            small[0].contains("· leader 1 · epoch 1 · HW 1371 · leader down, fenced in 7s ─"),
            "{small:?}"
        );
        assert_eq!(
            small[4].trim_end(),
            " Leader 1 is down: the controller fences it in 7s, then elects another"
        );
        let roomy = draw(120, 8);
        assert!(roomy[0].contains("logs · leader 1 · leader epoch 1 · HW 1371 · leader down, fenced in 7s"));
        let full =
            roomy.iter().any(|l| l.starts_with(" Leader unreachable: broker 1 is down, but the controller"));
        assert!(full, "{roomy:?}");
        assert!(title(&snap.partitions[1], 30).ends_with("… "), "cut as a last resort");
    }

    /// An unreachable leader that is its ISR's only member: no election follows its fencing,
    /// as `PartitionChangeBuilder.build` (ELR off) keeps the last member in the ISR.
    #[test]
    fn an_unreachable_sole_isr_leader_has_no_successor() {
        let mut p = (*fixture::snapshot().partitions[1]).clone();
        p.health = PartitionHealth::LeaderUnreachable { fenced_in: 7_000, why: Unreachable::Down };
        p.leader = Some(1);
        p.isr = vec![1, 2];
        assert!(leader_unreachable(&p, true).unwrap().ends_with("then elects another"));
        p.isr = vec![1];
        let short = leader_unreachable(&p, true).unwrap();
        assert_eq!(
            short,
            "1 is down: the controller fences it in 7s, the ISR's last member, it stays; no clean successor"
        );
        let full = leader_unreachable(&p, false).unwrap();
        assert!(full.contains("as the ISR's last member it stays in the ISR"), "{full}");
        assert!(!full.contains("elects another"), "{full}");
    }

    #[test]
    fn a_running_reassignment_says_what_it_moves_and_the_bytes_left() {
        let mut p = (*fixture::snapshot().partitions[0]).clone();
        assert_eq!(reassignment(&p), None);
        p.adding = vec![4];
        p.removing = vec![3];
        p.reassign_bytes_left = Some(1_250_000);
        assert_eq!(reassignment(&p).unwrap(), "adding [4], removing [3], 1 250 000 bytes left to copy");
    }

    #[test]
    fn the_hw_reason_is_labelled_once() {
        let theme = Theme::new(false);
        let frozen = "HW frozen: ISR [1] is below min.insync.replicas=2 (Kafka 3.7+ rule)";
        assert_eq!(
            plain(&hw_note(frozen, theme, 120)),
            " HW frozen: ISR [1] is below min.insync.replicas=2 (Kafka 3.7+ rule)"
        );
        let waits = "HW waits for broker 2 (LEO 40), still in the ISR";
        assert_eq!(plain(&hw_note(waits, theme, 120)), " HW waits for broker 2 (LEO 40), still in the ISR");
        let other = "ISR 1 is smaller than min.insync.replicas=2";
        assert_eq!(
            plain(&hw_note(other, theme, 120)),
            " HW stuck: ISR 1 is smaller than min.insync.replicas=2"
        );
    }

    #[test]
    fn bars_keep_small_differences_visible() {
        let snap = fixture::snapshot();
        let p0 = &snap.partitions[0];
        let [_, c, u, m] = bar_cells(&p0.replica_views[0], 40, 1386);
        assert_eq!((c + u, m), (40, 0));
        assert!(u >= 1, "the leader has records above the HW");
        let [_, c, u, m] = bar_cells(&p0.replica_views[1], 40, 1386);
        assert!(m >= 1 && u == 0 && c + m == 40);
        let [_, c, u, m] = bar_cells(&p0.replica_views[2], 40, 1386);
        assert_eq!(c + u + m, 40);
        assert!(m > 5);
    }

    /// Marks that share a column get one label each column, merged in rank order: the HW and
    /// LEO at one offset read `H: HW=LEO n`, close offsets `HW a, LEO b`; apart, each its own.
    #[test]
    fn marks_sharing_a_column_stay_readable() {
        let theme = Theme::new(false);
        let rows = |hw: Offset, leo: Offset, start: Offset, width: usize| {
            let mut snap = fixture::snapshot();
            let p = std::sync::Arc::make_mut(&mut snap.partitions[0]);
            p.hw = hw;
            let leader = p.replica_views.iter_mut().find(|r| r.is_leader).expect("a leader");
            (leader.hw, leader.leo, leader.log_start) = (hw, leo, start);
            let p = &snap.partitions[0];
            let (_, cols) = replica_lines(p, &[], theme, width);
            // `|` keeps the row's leading blanks (insta trims an inline snapshot's indent).
            format!("|{}", plain(&[marks(&snap, p, &cols, theme).expect("a marks row")]).trim_end())
        };
        insta::assert_snapshot!(
            [
                rows(1386, 1386, 0, 80),
                rows(1383, 1386, 0, 60),
                rows(700, 1386, 0, 80),
                rows(1386, 1386, 1380, 60),
                rows(1380, 1386, 0, 200),
            ]
            .join("\n"),
            @r"
        |                                          H   H: HW=LEO 1386
        |                             H   H: HW 1383, LEO 1386
        |                         H                E   H: HW 700  E: LEO 1386
        |                  H   H: HW=LEO 1386, log start 1380
        |                                                                                                                                                                 HE   H: HW 1380  E: LEO 1386
        "
        );
    }

    /// Once retention moved a log start, every replica line names its log start, and the bar
    /// leaves the deleted part blank.
    #[test]
    fn the_log_start_shows_once_retention_moved_it() {
        let mut snap = fixture::snapshot();
        let theme = Theme::new(false);
        let p0 = snap.partitions[0].clone();
        assert!(!plain(&replica_lines(&p0, &[], theme, 100).0).contains("start"));
        std::sync::Arc::make_mut(&mut snap.partitions[0]).replica_views[0].log_start = 700;
        let p0 = &snap.partitions[0];
        let (lines, _) = replica_lines(p0, &[], theme, 100);
        let first = plain(&lines[..1]);
        assert!(first.contains(" start  700 HW "), "{first}");
        assert!(plain(&lines[1..2]).contains(" start    0 HW "));
        let [blank, ..] = bar_cells(&p0.replica_views[0], 40, 1386);
        assert!(blank >= 19, "about half the bar is before the log start: {blank}");
    }
}

#[cfg(test)]
mod strip_tests;
