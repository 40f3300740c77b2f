//! The why panel: for the selected partition, in plain words, why its HW stands where it
//! does, how the acks=all produces parked at its leader will end ([`super::waits`]), what the
//! next produce would get under each `acks` setting, when each lagging
//! follower leaves the ISR (and why that takes longer than `replica.lag.time.max.ms`), and
//! which replicas could win an election now. Every statement is read from the snapshot, which
//! takes it from the sim's own state (the leader's follower bookkeeping, the controller's
//! registrations, the election rule of [`crate::sim::controller::elect_any`]).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::app::Model;
use super::lag::TIMER_AFTER_MS;
use super::text;
use super::theme::Theme;
use crate::cluster::snapshot::{
    BrokerState, BrokerView, PartitionHealth, PartitionView, ReplicaView, Snapshot, TopicView, Unreachable,
};
use crate::config::ProducerConfig;
use crate::sim::controller::elect_any;
use crate::sim::{Acks, BrokerId, Ms, join_ids};

/// Continuation lines are indented this far (under the start of the label's text).
const INDENT: usize = 3;

/// One statement: a short label (`HW`, `acks=1`, `broker 2`) and what is true, in words.
#[derive(PartialEq)]
struct Entry {
    label: String,
    style: Style,
    body: String,
}

impl Entry {
    fn new(label: impl Into<String>, style: Style, body: impl Into<String>) -> Entry {
        Entry { label: label.into(), style, body: body.into() }
    }
}

/// What the panel says about the selected partition, one line per statement (not wrapped;
/// see [`wrapped`]). Empty without a partition.
pub fn lines(model: &Model, snap: &Snapshot) -> Vec<Line<'static>> {
    entries(model, snap)
        .into_iter()
        .map(|e| Line::from(vec![Span::styled(format!(" {}: ", e.label), e.style), Span::raw(e.body)]))
        .collect()
}

/// [`lines`] word-wrapped to `width` columns, continuation lines indented.
pub fn wrapped(model: &Model, snap: &Snapshot, width: usize) -> Vec<Line<'static>> {
    entries(model, snap)
        .into_iter()
        .flat_map(|e| {
            let label = Span::styled(format!(" {}: ", e.label), e.style);
            text::hanging(label, &e.body, model.theme.normal(), width, INDENT)
        })
        .collect()
}

/// Rows the panel wants in an area `width` columns wide: its title and every wrapped line.
pub fn height_needed(model: &Model, snap: &Snapshot, width: u16) -> u16 {
    let entries = entries(model, snap);
    let rows = LAST_HEIGHT.with_borrow_mut(|last| match last {
        Some((w, said, rows)) if *w == width && *said == entries => *rows,
        _ => {
            let rows = entries
                .iter()
                .map(|e| {
                    let label = Span::raw(format!(" {}: ", e.label));
                    text::hanging(label, &e.body, Style::default(), usize::from(width), INDENT).len()
                })
                .sum();
            *last = Some((width, entries, rows));
            rows
        }
    });
    u16::try_from(rows).unwrap_or(u16::MAX).saturating_add(1)
}

thread_local! {
    /// The last [`height_needed`]: its width, the statements and their wrapped rows. The
    /// layout asks for the height two or three times a frame (the model keeps the selection
    /// in view, then the view lays the panes out) with the same statements; wrapping them
    /// once is enough. A pure memo: the answer is the same with or without it.
    static LAST_HEIGHT: std::cell::RefCell<Option<(u16, Vec<Entry>, usize)>> = const { std::cell::RefCell::new(None) };
}

/// Draws the panel; lines that do not fit are cut at the bottom (the election list last).
pub fn render(frame: &mut Frame, area: Rect, model: &Model, snap: &Snapshot) {
    let theme = model.theme;
    let title = match model.partition(snap) {
        Some(p) => format!(" Why · {} ", p.tp),
        None => " Why ".to_string(),
    };
    let title = text::fit_title(Line::from(Span::styled(title, theme.title())), area.width);
    let block = Block::new().borders(Borders::TOP).title(title);
    let inner = block.inner(area);
    let lines = fitted(model, snap, usize::from(inner.width), usize::from(inner.height));
    frame.render_widget(Paragraph::new(text::fit_all(lines, usize::from(inner.width))).block(block), area);
}

/// [`wrapped`] cut to `height` rows: when it does not fit, the last line kept ends with `…`
/// if its statement goes on, and the bottom row names what was cut (`↓ 9 more lines:
/// election, 0, 1, 2`), so a cut never passes for the end of the panel.
fn fitted(model: &Model, snap: &Snapshot, width: usize, height: usize) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    // (label, first row) of every statement.
    let mut starts = Vec::new();
    for e in entries(model, snap) {
        starts.push((e.label.trim().to_string(), lines.len()));
        let label = Span::styled(format!(" {}: ", e.label), e.style);
        lines.extend(text::hanging(label, &e.body, model.theme.normal(), width, INDENT));
    }
    if lines.len() <= height || height == 0 {
        return lines;
    }
    let keep = height - 1;
    let hidden = lines.len() - keep;
    let continues = keep > 0 && !starts.iter().any(|&(_, row)| row == keep);
    lines.truncate(keep);
    if let Some(last) = lines.last_mut().filter(|_| continues) {
        let mut spans = text::truncate_spans(std::mem::take(&mut last.spans), width.saturating_sub(1));
        if !spans.last().is_some_and(|s| s.content.ends_with('…')) {
            spans.push(Span::raw("…"));
        }
        last.spans = spans;
    }
    let cut: Vec<&str> = starts.iter().filter(|&&(_, row)| row >= keep).map(|(l, _)| l.as_str()).collect();
    let what = if cut.is_empty() { String::new() } else { format!(": {}", cut.join(", ")) };
    let marker = format!(" ↓ {hidden} more lines{what}");
    lines.push(Line::from(Span::styled(text::truncate(&marker, width), model.theme.muted())));
    lines
}

/// Every statement, in the panel's order: HW, acks, ISR timers, election.
fn entries(model: &Model, snap: &Snapshot) -> Vec<Entry> {
    let Some(p) = model.partition(snap) else { return Vec::new() };
    let theme = model.theme;
    let topic = model.topic(snap);
    let producer = snap.producers.iter().find(|pr| *pr.topic == *p.tp.topic).map(|pr| &pr.config);
    let facts = Facts { p, snap, theme, unclean: topic.is_some_and(|t| t.unclean_leader_election_enable) };
    let mut out = vec![facts.hw()];
    // The acks=all produces already waiting, and how their wait ends (request.timeout.ms).
    out.extend(
        super::waits::at_partition(snap, p)
            .iter()
            .map(|w| Entry::new("parked", theme.warn(), format!("{}. {}", w.what(), w.story(snap, true)))),
    );
    out.extend(facts.acks(producer));
    out.extend(facts.isr_timers());
    match model.lesson.as_ref().and_then(|l| l.unanswered()) {
        // Who would lead if the leader were lost is often what a lesson's question asks.
        Some(q) => out.push(Entry::new(
            "election",
            theme.muted(),
            format!("hidden while question {} waits for its answer; it comes back after", q.number),
        )),
        None => out.extend(facts.election(topic)),
    }
    out
}

/// What the statements are made of.
struct Facts<'a> {
    p: &'a PartitionView,
    snap: &'a Snapshot,
    theme: Theme,
    /// The topic's effective `unclean.leader.election.enable`.
    unclean: bool,
}

impl Facts<'_> {
    fn broker(&self, id: BrokerId) -> Option<&BrokerView> {
        self.snap.brokers.iter().find(|b| b.id == id)
    }

    fn leader_replica(&self) -> Option<&ReplicaView> {
        self.p.replica_views.iter().find(|r| r.is_leader)
    }

    /// Kafka's `isActive` for the controller's elections: registered, unfenced, not in
    /// controlled shutdown (the snapshot counts an unregistered broker as fenced).
    fn active(&self, id: BrokerId) -> bool {
        self.broker(id).is_some_and(|b| !b.fenced && !b.in_controlled_shutdown)
    }

    /// Why the HW is where it is: frozen under min ISR (KAFKA-15583), held by the ISR member
    /// with the lowest LEO (R2.7, `Partition.maybeIncrementLeaderHW`), or equal to every ISR
    /// member's LEO.
    fn hw(&self) -> Entry {
        let p = self.p;
        let label = "HW";
        let Some(leader) = self.leader_replica().filter(|_| p.leader.is_some()) else {
            return Entry::new(
                label,
                self.theme.bad(),
                format!("no leader, so nothing commits; the last leader's HW was {}", p.hw),
            );
        };
        let above = leader.leo - p.hw;
        if let Some(why) = p.hw_blocked_by.as_deref().and_then(|w| w.strip_prefix("HW frozen: ")) {
            return Entry::new(
                label,
                self.theme.warn(),
                format!(
                    "frozen at {}: {why}; the {above} record(s) above it stay invisible to consumers",
                    p.hw
                ),
            );
        }
        match p.hw_held_by {
            Some(h) => {
                // A paused member fetches nothing until `resume-fetch` or until the leader
                // drops it after replica.lag.time.max.ms (`Partition.maybeShrinkIsr`).
                let paused = if self.broker(h.broker).is_some_and(|b| b.fetch_paused) {
                    format!(
                        "; broker {}'s fetching is paused, so it waits until resumed or dropped from the ISR",
                        h.broker
                    )
                } else {
                    String::new()
                };
                let body = match h.leo {
                    Some(leo) => format!(
                        "{}, held back by broker {}: its LEO {leo} is {} record(s) behind the leader's LEO {} \
                         (the HW is the lowest LEO in the ISR)",
                        p.hw,
                        h.broker,
                        leader.leo - leo,
                        leader.leo
                    ),
                    None => format!(
                        "{}, held back by broker {}, which has not fetched from this leader yet (leader \
                         epoch {}); {above} record(s) wait above it",
                        p.hw, h.broker, p.leader_epoch
                    ),
                };
                Entry::new(label, self.theme.warn(), body + &paused)
            }
            None => Entry::new(
                label,
                self.theme.good(),
                format!("{} = LEO of every ISR member [{}]", p.hw, join_ids(&p.isr)),
            ),
        }
    }

    /// What the next produce would get with each `acks` setting. `producer` is the config of
    /// the topic's producer, if it has one (its timeouts are quoted, its own setting marked).
    fn acks(&self, producer: Option<&ProducerConfig>) -> Vec<Entry> {
        let config = producer.cloned().unwrap_or_default();
        if let Some(why) = self.no_produce(&config) {
            return vec![Entry::new("every acks", self.theme.bad(), why)];
        }
        let mine = |acks: Acks| if producer.is_some_and(|c| c.acks == acks) { " ◂ producer" } else { "" };
        let leo = self.leader_replica().map_or(0, |r| r.leo);
        let leader = self.p.leader.unwrap_or_default();
        let zero = format!(
            "appended at offset {leo} with no answer: the producer counts it sent at once and never \
             hears of a failure"
        );
        let one = format!(
            "acked once broker {leader} appends it (offset {leo}), before any follower has it: lost if \
             broker {leader} fails before they fetch it{}",
            if self.hw_frozen() { "; it stays above the frozen HW, unseen by consumers" } else { "" }
        );
        let (all, style) = self.acks_all(&config);
        vec![
            Entry::new(format!("acks=0{}", mine(Acks::Zero)), self.theme.normal(), zero),
            Entry::new(format!("acks=1{}", mine(Acks::One)), self.theme.normal(), one),
            Entry::new(format!("acks=all{}", mine(Acks::All)), style, all),
        ]
    }

    fn hw_frozen(&self) -> bool {
        self.snap.semantics.strict_min_isr && self.p.isr.len() < self.p.effective_min_isr
    }

    /// acks=all: refused below min ISR (`Partition.appendRecordsToLeader`, R5.4), else
    /// appended and parked until the HW passes it (`DelayedProduce.tryComplete` →
    /// `Partition.checkEnoughReplicasReachOffset`, R5.4).
    fn acks_all(&self, config: &ProducerConfig) -> (String, Style) {
        let p = self.p;
        let (isr, min) = (join_ids(&p.isr), p.effective_min_isr);
        if p.isr.len() < min {
            let text = format!(
                "NOT_ENOUGH_REPLICAS: ISR [{isr}] has {} member(s), fewer than min.insync.replicas={min}, \
                 so nothing is appended; the producer retries until delivery.timeout.ms ({})",
                p.isr.len(),
                text::duration(config.delivery_timeout_ms)
            );
            return (text, self.theme.bad());
        }
        let waiting = match p.hw_held_by {
            Some(h) => match (h.leo, self.leader_replica()) {
                (Some(leo), Some(l)) => {
                    format!(", now waiting for broker {} ({} behind)", h.broker, l.leo - leo)
                }
                _ => format!(", now waiting for broker {}'s first fetch", h.broker),
            },
            None => String::new(),
        };
        // From 3.7 (KAFKA-15583) an ISR below min ISR freezes the HW, so the parked request
        // times out; before, the shrink let the HW pass it and the answer was AFTER_APPEND
        // (`Partition.checkEnoughReplicasReachOffset`, rule book R5.5).
        let shrink = if self.snap.semantics.strict_min_isr {
            format!("an ISR below min.insync.replicas={min} meanwhile freezes the HW, so it times out")
        } else {
            format!(
                "NOT_ENOUGH_REPLICAS_AFTER_APPEND if the ISR drops below min.insync.replicas={min} meanwhile"
            )
        };
        let text = format!(
            "appended, then parked until the HW passes it: every ISR member [{isr}] must fetch it{waiting}; \
             REQUEST_TIMED_OUT after request.timeout.ms ({}); {shrink}",
            text::duration(config.request_timeout_ms)
        );
        (text, if waiting.is_empty() { self.theme.normal() } else { self.theme.warn() })
    }

    /// What every produce meets while the partition has no leader or its leader cannot
    /// answer; `None` when the leader serves. The producer keeps records and retries until
    /// `delivery.timeout.ms` (`Sender`, `NetworkClient`).
    fn no_produce(&self, config: &ProducerConfig) -> Option<String> {
        let delivery = text::duration(config.delivery_timeout_ms);
        let Some(leader) = self.p.leader else {
            return Some(format!(
                "no leader: the producer's metadata names none (LEADER_NOT_AVAILABLE), so it keeps the \
                 records and asks again every retry.backoff.ms until delivery.timeout.ms ({delivery}) fails them"
            ));
        };
        let PartitionHealth::LeaderUnreachable { fenced_in, why } = self.p.health else { return None };
        let fence = format!(
            "until the controller fences broker {leader} in {} and elects another leader; the producer's \
             metadata refresh then finds it (NOT_LEADER_OR_FOLLOWER from a stale leader). Records still \
             unsent after delivery.timeout.ms ({delivery}) fail",
            text::countdown(fenced_in)
        );
        Some(match why {
            Unreachable::Down => {
                format!(
                    "broker {leader} is down: connections fail (NETWORK_EXCEPTION) and the producer retries {fence}"
                )
            }
            Unreachable::Frozen => format!(
                "broker {leader} is frozen: requests get no answer and fail with REQUEST_TIMED_OUT after \
                 request.timeout.ms ({}), then are retried {fence}",
                text::duration(config.request_timeout_ms)
            ),
            Unreachable::CutOff => format!(
                "broker {leader} still answers producers, but cannot reach the controller: acks=0/1 records it \
                 takes now may be lost {fence}"
            ),
        })
    }

    /// Each ISR follower's time to leaving the ISR (R4.1, R4.2): the leader's
    /// `maybeShrinkIsr` runs every `replica.lag.time.max.ms / 2` (`ReplicaManager.startup`)
    /// and removes followers not caught up for `replica.lag.time.max.ms`
    /// (`Partition.getOutOfSyncReplicas`, from `lastCaughtUpTimeMs`), so removal comes up to
    /// 1.5× the setting after the last catch-up, plus the AlterPartition round trip to the
    /// controller (KIP-497). Out-of-ISR followers say what brings them back (R4.6).
    fn isr_timers(&self) -> Vec<Entry> {
        let lag_ms = self.p.leader.and_then(|l| self.broker(l)).map_or(0, |b| b.replica_lag_time_max_ms);
        let followers = self.p.replica_views.iter().filter(|r| !r.is_leader);
        followers.filter_map(|r| self.isr_timer(r, lag_ms)).collect()
    }

    fn isr_timer(&self, r: &ReplicaView, lag_ms: u64) -> Option<Entry> {
        let label = format!("broker {}", r.broker);
        // Without a leader nobody keeps the ISR timers.
        self.p.leader?;
        if !r.in_isr {
            let why = if r.online { "" } else { " (down)" };
            return Some(Entry::new(
                label,
                self.theme.muted(),
                format!(
                    "out of the ISR{why}: it rejoins once it has fetched up to the HW ({}) and the leader's \
                     epoch start",
                    self.p.hw
                ),
            ));
        }
        let behind = r.lag.filter(|&l| l > 0).map_or(String::new(), |l| format!(", {l} behind"));
        if let Some(unheard) = self.unheard(r.broker) {
            let left = text::countdown(self.fenced_in(r.broker).unwrap_or(0));
            let elr = self.snap.semantics.eligible_leader_replicas;
            let body = if elr && self.last_isr_member_when_fenced(r.broker) {
                format!(
                    "{unheard}: still in the ISR{behind}; the other members are fenced first, so when the \
                     controller fences it in {left} the ISR becomes empty and it joins the eligible leader \
                     replicas (ELR on)"
                )
            } else if self.last_isr_member_when_fenced(r.broker) {
                format!(
                    "{unheard}: still in the ISR{behind}; the other members are fenced first, so when the \
                     controller fences it in {left} it is the last ISR member and stays, with no leader"
                )
            } else {
                format!(
                    "{unheard}: still in the ISR{behind}, it leaves it when the controller fences it in {left} \
                     (a fenced broker leaves every ISR it is not the last member of)"
                )
            };
            return Some(Entry::new(label, self.theme.bad(), body));
        }
        let (Some(left), Some(ago)) = (r.isr_expiry_in, r.caught_up_ago) else {
            return Some(Entry::new(
                label,
                self.theme.good(),
                format!("in the ISR{behind}, caught up lately"),
            ));
        };
        if ago <= TIMER_AFTER_MS {
            let body = format!("in the ISR{behind}, caught up at its last fetch");
            return Some(Entry::new(label, self.theme.good(), body));
        }
        let half = lag_ms / 2;
        Some(Entry::new(
            label,
            self.theme.warn(),
            format!(
                "leaves the ISR in {}: last caught up {} ago. replica.lag.time.max.ms={lag_ms}, but the leader \
                 checks only every {half} ms (half of it), so removal comes {}–{} after the last catch-up, \
                 then the controller must accept the AlterPartition",
                text::countdown(left),
                text::duration(ago),
                text::duration(lag_ms),
                text::duration(lag_ms + half),
            ),
        ))
    }

    /// In how many ms the controller fences broker `id` (`None`: heard, or fenced already).
    fn fenced_in(&self, id: BrokerId) -> Option<Ms> {
        self.broker(id).filter(|b| !b.fenced).and_then(|b| b.fenced_in)
    }

    /// Whether broker `id`, an ISR member the controller will fence, is by then the ISR's last
    /// member: every other member is fenced before it (oldest heartbeat first, then lower id, as
    /// the controller fences). `handleBrokerFenced` takes the fenced broker out of each ISR, but
    /// `PartitionChangeBuilder.build` (ELR off) does not apply an empty target ISR: the last
    /// member stays, and the partition is left without a leader.
    fn last_isr_member_when_fenced(&self, id: BrokerId) -> bool {
        let Some(mine) = self.fenced_in(id) else { return false };
        self.p
            .isr
            .iter()
            .filter(|&&r| r != id)
            .all(|&r| self.fenced_in(r).is_some_and(|t| (t, r) < (mine, id)))
    }

    /// How broker `id` stands while the controller does not hear from it and has not fenced
    /// it yet (`None` when it is heard or already fenced): `is crashed`, `is frozen`, `cannot
    /// reach the controller`. Its session times out in [`BrokerView::fenced_in`]; the controller
    /// then fences it and removes it from every ISR and leadership at once
    /// (`ReplicationControlManager.handleBrokerFenced`), sooner than any ISR lag timer.
    fn unheard(&self, id: BrokerId) -> Option<String> {
        let b = self.broker(id).filter(|b| !b.fenced && b.fenced_in.is_some())?;
        Some(match b.state() {
            BrokerState::Running | BrokerState::ShuttingDown => "cannot reach the controller".to_string(),
            s => format!("is {s}"),
        })
    }

    /// The ELR an election after losing `gone` would see (`maybePopulateTargetElr`, R8.3): with
    /// ELR on and fewer than min ISR members left, the ELR and the old ISR less the ISR left.
    fn elr_after_losing(&self, gone: Option<BrokerId>, isr: &[BrokerId]) -> Vec<BrokerId> {
        let p = self.p;
        if !self.snap.semantics.eligible_leader_replicas || gone.is_none() {
            return p.elr.clone();
        }
        if isr.len() >= p.effective_min_isr {
            return Vec::new();
        }
        let all: std::collections::BTreeSet<BrokerId> = p.elr.iter().chain(&p.isr).copied().collect();
        all.into_iter().filter(|r| !isr.contains(r)).collect()
    }

    /// Who could win an election now, by the controller's own rule ([`elect_any`],
    /// `PartitionChangeBuilder.electLeader`; `ReplicationControlManager` runs it when the
    /// leader is fenced or shuts down): with a leader, the election its loss would start (the
    /// leader excluded); without one, the election that waits for a candidate. With ELR on an
    /// empty ISR hands the election to the ELR, then to the last known leader (R8.4).
    fn election(&self, topic: Option<&TopicView>) -> Vec<Entry> {
        let p = self.p;
        let gone = p.leader;
        let isr: Vec<BrokerId> = p.isr.iter().copied().filter(|&r| Some(r) != gone).collect();
        let elr = self.elr_after_losing(gone, &isr);
        // Only a leaderless partition's LastKnownELR counts: losing a leader records it there
        // for the election after this one.
        let last_known =
            match (self.snap.semantics.eligible_leader_replicas, gone, p.last_known_elr.as_slice()) {
                (true, None, [only]) => Some(*only),
                _ => None,
            };
        let acceptable = |r: BrokerId| Some(r) != gone && self.active(r);
        let (winner, unclean) =
            elect_any(&p.replicas, &isr, &elr, last_known, None, self.unclean, &acceptable);
        let from_elr = winner.is_some_and(|w| isr.is_empty() && elr.contains(&w));
        let setting = format!(
            "unclean.leader.election.enable={}{}",
            self.unclean,
            if topic.is_some_and(|t| t.config_overrides.iter().any(|o| o.starts_with("unclean"))) {
                " (topic)"
            } else {
                ""
            }
        );
        // A leader the controller does not hear from will be fenced: its election is coming.
        let would = if gone.is_some_and(|l| self.unheard(l).is_some()) { "will" } else { "would" };
        let when = match (gone, self.snap.next_unclean_check_at) {
            (Some(l), _) => match self.unheard(l) {
                Some(unheard) => format!(
                    "broker {l} {unheard}; when the controller fences it in {}",
                    text::countdown(self.broker(l).and_then(|b| b.fenced_in).unwrap_or(0))
                ),
                None => format!("if broker {l} were lost now"),
            },
            // The KRaft controller elects leaderless partitions uncleanly only at its check.
            (None, Some(at)) if unclean && winner.is_some() => format!(
                "at the controller's unclean check in {} (unclean.leader.election.interval.ms; at once with \
                 elect-unclean {})",
                text::countdown(at.saturating_sub(self.snap.now)),
                p.tp
            ),
            (None, _) => "now".to_string(),
        };
        let verdict = match winner {
            Some(w) if unclean => {
                format!(
                    "{when}, broker {w} {would} lead in an UNCLEAN election ({setting}): no ISR member can lead, \
                         so records only the others had are lost"
                )
            }
            Some(w) if from_elr => format!(
                "{when}, broker {w} {would} lead: no ISR member is left, and it is the first live eligible \
                 leader replica (ELR {}) in replica order; it left the ISR under min ISR, so it has every \
                 committed record",
                join_ids(&elr)
            ),
            Some(w) => format!(
                "{when}, broker {w} {would} lead: the first live ISR member in replica order ({setting})"
            ),
            None if gone.is_some() => {
                let kept = match gone {
                    Some(l) if p.isr == [l] && self.snap.semantics.eligible_leader_replicas => format!(
                        ", with an empty ISR; ELR {} waits for a member to come back",
                        if elr.is_empty() { "none".to_string() } else { join_ids(&elr) }
                    ),
                    Some(l) if p.isr == [l] => {
                        format!(", with broker {l} left in its ISR (the last member stays, leader none)")
                    }
                    _ => String::new(),
                };
                format!("{when}, no replica could lead ({setting}): the partition {would} go offline{kept}")
            }
            None if p.isr.is_empty() => format!(
                "{when}, no replica can lead ({setting}): it stays offline until an eligible leader replica \
                 (ELR {}) or its last leader ({}) is unfenced",
                if p.elr.is_empty() { "none".to_string() } else { join_ids(&p.elr) },
                if p.last_known_elr.is_empty() { "none".to_string() } else { join_ids(&p.last_known_elr) }
            ),
            None => format!(
                "{when}, no replica can lead ({setting}): it stays offline until an ISR member is unfenced"
            ),
        };
        let style = match (winner, unclean) {
            (Some(_), false) => self.theme.normal(),
            (Some(_), true) => self.theme.bad(),
            (None, _) => self.theme.bad(),
        };
        let mut out = vec![Entry::new("election", style, verdict)];
        out.extend(p.replicas.iter().map(|&r| self.candidate(r, winner)));
        out
    }

    /// Whether replica `r` could win, and why not.
    fn candidate(&self, r: BrokerId, winner: Option<BrokerId>) -> Entry {
        let label = format!("  {r}");
        let b = self.broker(r);
        let state = b.map(BrokerView::state);
        if Some(r) == self.p.leader {
            let body = match state.filter(|s| *s != BrokerState::Running) {
                Some(s) if winner.is_some() => {
                    format!("leads now, but it is {s}: another is elected once the controller fences it")
                }
                Some(s) if self.p.isr == [r] => format!(
                    "leads now, but it is {s}: once the controller fences it, it stays in the ISR as its last \
                     member, and the partition has no leader"
                ),
                Some(s) => format!("leads now, but it is {s}: once the controller fences it, none can lead"),
                None => "leads now".to_string(),
            };
            return Entry::new(label, self.theme.leader(), body);
        }
        let not = |why: String| Entry::new(format!("  {r} ✗"), self.theme.muted(), why);
        if let Some(b) = b.filter(|b| b.fenced) {
            let down = match b.state() {
                BrokerState::Fenced => String::new(),
                s => format!(" ({s})"),
            };
            return not(format!("fenced{down}: a fenced broker may not lead"));
        }
        if b.is_some_and(|b| b.in_controlled_shutdown) {
            return not("in controlled shutdown: it is handing its leaderships away".to_string());
        }
        if !self.p.isr.contains(&r) {
            let why = if self.unclean {
                "not in the ISR: only in an unclean election, when no ISR member can lead, losing what it lacks"
            } else {
                "not in the ISR, and unclean.leader.election.enable=false"
            };
            return if Some(r) == winner {
                Entry::new(format!("  {r} ✔ next, unclean"), self.theme.bad(), why)
            } else {
                not(why.to_string())
            };
        }
        let mut why = "could win: in the ISR and unfenced".to_string();
        if let Some(s) = state.filter(|s| !matches!(s, BrokerState::Running)) {
            why.push_str(&format!(
                ", but it is {s}: the controller picks it all the same until its session times out and it is fenced"
            ));
        }
        let style = if Some(r) == winner { self.theme.good() } else { self.theme.normal() };
        Entry::new(if Some(r) == winner { format!("  {r} ✔ next") } else { format!("  {r} ✔") }, style, why)
    }
}

#[cfg(test)]
mod tests;
