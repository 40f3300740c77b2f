//! Why acks=all produces wait at a leader and how the wait ends, in plain words: one text
//! for the clients pane and the why panel alike.
//!
//! Kafka's leader parks an acks=all produce in its produce purgatory (`DelayedProduce`)
//! until the HW passes the batch (`Partition.checkEnoughReplicasReachOffset`), and expires
//! it with `REQUEST_TIMED_OUT` once the request's timeout, the producer's
//! `request.timeout.ms`, has passed since it arrived (`DelayedProduce.onExpiration`). A
//! produce that arrives while the ISR is below `min.insync.replicas` is refused at once with
//! `NOT_ENOUGH_REPLICAS` (`Partition.appendRecordsToLeader`), but one parked *before* the ISR
//! shrank is not: since Kafka 3.7 (KAFKA-15583) the HW stays frozen under min ISR, so it
//! waits out the whole timeout. That is why, with `min.insync.replicas=3` and a broker
//! crash, `NOT_ENOUGH_REPLICAS` shows only about `broker.session.timeout.ms` +
//! `request.timeout.ms` later: first the crashed follower holds the HW until the controller
//! fences it, then the frozen HW holds the parked requests until they time out, and only
//! the retries meet the refusal.

use crate::cluster::snapshot::{BrokerState, PartitionView, Snapshot};
use crate::sim::partition::ParkedProduces;
use crate::sim::producer::CLIENT_TIMEOUT_MARGIN_MS;
use crate::sim::{BrokerId, Ms, format_time, join_ids};

use super::text;

/// Parked produces are told about once the first has waited this long (ms), or at once
/// while the HW is frozen: every acks=all produce parks for a fetch round trip, which is no
/// news.
pub const SHOWN_AFTER_MS: Ms = 1000;

/// Why parked produces wait and what ends the wait.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Cause {
    /// The ISR is below `min.insync.replicas`, so the HW is frozen (3.7+): they expire.
    Frozen,
    /// ISR member `broker` holds the HW and will leave the ISR in `leaves_in` ms: fenced by
    /// the controller (`how` is its state: crashed, frozen, cut off), or dropped by the lag
    /// rule (`how` is how far behind it is).
    Leaving { broker: BrokerId, how: String, leaves_in: Ms, fenced: bool },
    /// ISR member `broker` holds the HW and is expected to fetch the records.
    Fetching { broker: BrokerId },
    /// The leader itself is frozen: it answers nothing; the producer gives up on its own.
    LeaderFrozen,
    /// Nothing holds the HW any more: they complete at the leader's next check.
    Completing,
}

/// One producer's parked produces at one partition's leader, worth telling.
#[derive(Clone, Debug)]
pub struct Wait<'a> {
    /// The partition.
    pub p: &'a PartitionView,
    /// The producer's parked produces there.
    pub parked: ParkedProduces,
}

/// Whether `parked` at `p` is worth telling at `now`: waited [`SHOWN_AFTER_MS`], or the HW
/// is frozen.
fn shown(p: &PartitionView, parked: &ParkedProduces, now: Ms, snap: &Snapshot) -> bool {
    now.saturating_sub(parked.since) >= SHOWN_AFTER_MS || frozen(p, snap)
}

fn frozen(p: &PartitionView, snap: &Snapshot) -> bool {
    snap.semantics.strict_min_isr && p.isr.len() < p.effective_min_isr
}

/// The waits of every producer at partition `p` worth telling, in producer order.
pub fn at_partition<'a>(snap: &Snapshot, p: &'a PartitionView) -> Vec<Wait<'a>> {
    let now = snap.now;
    p.parked.iter().filter(|w| shown(p, w, now, snap)).map(|&parked| Wait { p, parked }).collect()
}

/// The waits of producer `producer` (its index) worth telling, soonest expiry first.
pub fn of_producer(snap: &Snapshot, producer: u32) -> Vec<Wait<'_>> {
    let mut out: Vec<Wait<'_>> = snap
        .partitions
        .iter()
        .flat_map(|p| at_partition(snap, p))
        .filter(|w| w.parked.producer == producer)
        .collect();
    out.sort_by_key(|w| (w.parked.first_deadline, w.p.tp.clone()));
    out
}

impl Wait<'_> {
    fn cause(&self, snap: &Snapshot) -> Cause {
        let p = self.p;
        let leader = p.leader.and_then(|l| snap.brokers.iter().find(|b| b.id == l));
        if leader.is_some_and(|b| b.state() == BrokerState::Frozen) {
            return Cause::LeaderFrozen;
        }
        if frozen(p, snap) {
            return Cause::Frozen;
        }
        let Some(hold) = p.hw_held_by else { return Cause::Completing };
        let broker = hold.broker;
        let view = snap.brokers.iter().find(|b| b.id == broker);
        if let Some(b) = view.filter(|b| !b.fenced)
            && let Some(leaves_in) = b.fenced_in
        {
            let how = match b.state() {
                BrokerState::Running | BrokerState::ShuttingDown => "cut off from the controller".to_string(),
                s => s.to_string(),
            };
            return Cause::Leaving { broker, how, leaves_in, fenced: true };
        }
        let replica = p.replica_views.iter().find(|r| r.broker == broker);
        if let Some(leaves_in) = replica.and_then(|r| r.isr_expiry_in) {
            let how = match replica.and_then(|r| r.lag).filter(|l| *l > 0) {
                Some(l) => format!("{l} behind"),
                None => "not caught up".to_string(),
            };
            return Cause::Leaving { broker, how, leaves_in, fenced: false };
        }
        Cause::Fetching { broker }
    }

    /// Whether the wait ends in a failure the producer sees (`REQUEST_TIMED_OUT`): under a
    /// frozen HW, at a frozen leader, or because the ISR member they wait for leaves too late
    /// or leaves the ISR below `min.insync.replicas`.
    pub fn fails(&self, snap: &Snapshot) -> bool {
        match self.cause(snap) {
            Cause::Frozen | Cause::LeaderFrozen => true,
            Cause::Leaving { broker, leaves_in, .. } => {
                let rest = self.p.isr.iter().filter(|&&r| r != broker).count();
                leaves_in >= self.expires_in(snap.now)
                    || (snap.semantics.strict_min_isr && rest < self.p.effective_min_isr)
            }
            Cause::Fetching { .. } | Cause::Completing => false,
        }
    }

    /// Ms until the first of them expires at the leader (`REQUEST_TIMED_OUT`).
    fn expires_in(&self, now: Ms) -> Ms {
        self.parked.first_deadline.saturating_sub(now)
    }

    /// `request.timeout.ms=30000`, the timeout the requests carry.
    fn timeout(&self) -> String {
        format!("request.timeout.ms={}", self.parked.timeout_ms)
    }

    /// `REQUEST_TIMED_OUT in 21s (request.timeout.ms=30000, at 00:00:43.0)`.
    fn times_out(&self, now: Ms, long: bool) -> String {
        let left = text::countdown(self.expires_in(now));
        if long {
            format!(
                "REQUEST_TIMED_OUT in {left} ({}, at {})",
                self.timeout(),
                format_time(self.parked.first_deadline)
            )
        } else {
            format!("REQUEST_TIMED_OUT in {left} ({})", self.timeout())
        }
    }

    /// What they wait for and how the wait ends, in words: `long` is the why panel's
    /// sentences, else the clients pane's few words, [`Wait::short`] joined (`HW frozen (ISR
    /// 0,1 < min.insync.replicas=3); REQUEST_TIMED_OUT in 21s (request.timeout.ms=30000), then
    /// NOT_ENOUGH_REPLICAS`).
    pub fn story(&self, snap: &Snapshot, long: bool) -> String {
        if !long {
            let (why, end) = self.short(snap);
            return format!("{why}; {end}");
        }
        let now = snap.now;
        let p = self.p;
        let min = p.effective_min_isr;
        let expire = |why: String| {
            format!(
                "{why} They wait out request.timeout.ms and fail with {}. The producer then retries, and \
                 each retry gets NOT_ENOUGH_REPLICAS at once, until delivery.timeout.ms fails the records.",
                self.times_out(now, true)
            )
        };
        match self.cause(snap) {
            Cause::Frozen => expire(format!(
                "The HW is frozen: ISR [{}] is below min.insync.replicas={min}, so they cannot complete.",
                join_ids(&p.isr)
            )),
            Cause::Leaving { broker, how, leaves_in, fenced } => {
                let rest: Vec<BrokerId> = p.isr.iter().copied().filter(|&r| r != broker).collect();
                let when = text::countdown(leaves_in);
                let head = if fenced {
                    format!(
                        "They wait for broker {broker}, still in the ISR but {how}, until the controller fences \
                         it in {when}."
                    )
                } else {
                    format!(
                        "They wait for broker {broker}, {how}, until the lag rule drops it from the ISR in {when} \
                         (replica.lag.time.max.ms)."
                    )
                };
                // The ISR still meets min.insync.replicas (else the HW would be frozen): a retry
                // after the timeout is taken again and waits again.
                if leaves_in >= self.expires_in(now) {
                    return format!(
                        "{head} {} comes first; the producer retries, and the retry waits again.",
                        self.times_out(now, true)
                    );
                }
                let rest_ids = join_ids(&rest);
                if rest.len() >= min || !snap.semantics.strict_min_isr {
                    format!(
                        "{head} ISR [{rest_ids}] then still meets min.insync.replicas={min}: the HW passes them \
                         and they are acknowledged."
                    )
                } else {
                    expire(format!(
                        "{head} ISR [{rest_ids}] is then below min.insync.replicas={min}, so the HW freezes."
                    ))
                }
            }
            Cause::Fetching { broker } => format!(
                "They wait for broker {broker} to fetch them; if the HW has not passed them by then, they fail with {}.",
                self.times_out(now, true)
            ),
            Cause::LeaderFrozen => format!(
                "The leader, broker {}, is frozen and answers nothing: the producer gives up on them after {} \
                 plus isrlab's {} s margin, in about {}, with REQUEST_TIMED_OUT, and retries.",
                p.leader.unwrap_or(-1),
                self.timeout(),
                CLIENT_TIMEOUT_MARGIN_MS / 1000,
                text::countdown(self.client_gives_up_in(now))
            ),
            Cause::Completing => format!(
                "Nothing holds the HW now: they complete at the leader's next check, else fail with {}.",
                self.times_out(now, true)
            ),
        }
    }

    /// The clients pane's few words: what they wait for (`HW frozen (ISR 0,1 <
    /// min.insync.replicas=3)`) and how it ends (`REQUEST_TIMED_OUT in 21s
    /// (request.timeout.ms=30000), then NOT_ENOUGH_REPLICAS`).
    pub fn short(&self, snap: &Snapshot) -> (String, String) {
        let now = snap.now;
        let p = self.p;
        let min = p.effective_min_isr;
        let refused = format!("{}, then NOT_ENOUGH_REPLICAS", self.times_out(now, false));
        match self.cause(snap) {
            Cause::Frozen => {
                (format!("HW frozen (ISR {} < min.insync.replicas={min})", join_ids(&p.isr)), refused)
            }
            Cause::Leaving { broker, how, leaves_in, fenced } => {
                let rest: Vec<BrokerId> = p.isr.iter().copied().filter(|&r| r != broker).collect();
                let when = text::countdown(leaves_in);
                let head = if fenced {
                    format!("broker {broker} ({how}) is fenced in {when}")
                } else {
                    format!("broker {broker} ({how}) leaves the ISR in {when}")
                };
                if leaves_in >= self.expires_in(now) {
                    (head, format!("{} first, then a retry", self.times_out(now, false)))
                } else if rest.len() >= min || !snap.semantics.strict_min_isr {
                    (head, "then acked".to_string())
                } else {
                    (format!("{head}, then ISR {} < min.insync.replicas={min}", join_ids(&rest)), refused)
                }
            }
            Cause::Fetching { broker } => {
                (format!("broker {broker} has to fetch them"), format!("else {}", self.times_out(now, false)))
            }
            Cause::LeaderFrozen => (
                format!("leader {} frozen", p.leader.unwrap_or(-1)),
                format!(
                    "REQUEST_TIMED_OUT in about {} ({} + 1 s)",
                    text::countdown(self.client_gives_up_in(now)),
                    self.timeout()
                ),
            ),
            Cause::Completing => ("completing".to_string(), format!("else {}", self.times_out(now, false))),
        }
    }

    /// Ms until the producer gives up on them itself: `request.timeout.ms` after it sent them
    /// (about when they parked), plus isrlab's client margin.
    fn client_gives_up_in(&self, now: Ms) -> Ms {
        (self.parked.since + self.parked.timeout_ms + CLIENT_TIMEOUT_MARGIN_MS).saturating_sub(now)
    }

    /// `3 acks=all requests (42 records) from producer 0 parked here since 00:00:13.0`.
    pub fn what(&self) -> String {
        let n = self.parked.requests;
        let noun = if n == 1 { "request" } else { "requests" };
        format!(
            "{n} acks=all {noun} ({} records) from producer {} parked here since {}",
            self.parked.records,
            self.parked.producer,
            format_time(self.parked.since)
        )
    }
}

/// What producer `producer` waits for, in one sentence for the clients pane: its parked
/// produces counted over partitions, told by the one that expires first (`None` when none
/// waits worth telling); how it ends first when that is a failure: `waits:
/// REQUEST_TIMED_OUT in 21s (request.timeout.ms=30000), then NOT_ENOUGH_REPLICAS · 3 acks=all
/// requests at test_repli-0: HW frozen (ISR 0,1 < min.insync.replicas=3)`.
/// With `failing_only`, only waits that end in `REQUEST_TIMED_OUT` ([`Wait::fails`]) count:
/// the clients pane's compact form, at 80×24, keeps its rows for those.
pub fn producer_line(snap: &Snapshot, producer: u32, failing_only: bool) -> Option<String> {
    let mut waits = of_producer(snap, producer);
    waits.retain(|w| !failing_only || w.fails(snap));
    let first = waits.first()?;
    let requests: u32 = waits.iter().map(|w| w.parked.requests).sum();
    let noun = if requests == 1 { "request" } else { "requests" };
    let at = match waits.len() {
        1 => first.p.tp.to_string(),
        n => format!("{n} leaders ({} first)", first.p.tp),
    };
    let (why, end) = first.short(snap);
    // How it ends first when it fails: that is what the producer will see.
    Some(if first.fails(snap) {
        format!("waits: {end} · {requests} acks=all {noun} at {at}: {why}")
    } else {
        format!("waits: {requests} acks=all {noun} at {at}: {why}; {end}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::app::{Model, Msg, update};
    use crate::ui::theme::Theme;
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use std::sync::Arc;

    /// The fixture with producer 0's requests parked at `test_repli-4`'s leader, whose ISR
    /// [1] is below min.insync.replicas=2 (its HW is frozen), since 00:01:10.0.
    fn parked_under_min_isr() -> Snapshot {
        let mut snap = crate::ui::fixture::snapshot();
        let mut p = (*snap.partitions[4]).clone();
        assert!(p.isr.len() < p.effective_min_isr, "the fixture's test_repli-4 is under min ISR");
        p.parked = vec![ParkedProduces {
            producer: 0,
            requests: 3,
            records: 42,
            since: 70_000,
            first_deadline: 100_000,
            timeout_ms: 30_000,
        }];
        snap.partitions[4] = Arc::new(p);
        snap
    }

    fn screen(snap: &Snapshot, w: u16, h: u16, keys: &[KeyCode]) -> String {
        let mut model = Model::new(1.0, Theme::new(false), snap);
        update(&mut model, Msg::Resize(w, h), snap);
        for k in keys {
            update(&mut model, Msg::Key(KeyEvent::new(*k, KeyModifiers::NONE)), snap);
        }
        let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
        terminal.draw(|f| crate::ui::view::view(&model, snap, f)).unwrap();
        let buf = terminal.backend().buffer();
        (0..h)
            .map(|y| (0..w).map(|x| buf[(x, y)].symbol().to_string()).collect::<String>())
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn the_producer_line_says_what_it_waits_for_and_when_it_fails() {
        let snap = parked_under_min_isr();
        assert_eq!(
            producer_line(&snap, 0, true).as_deref(),
            Some(
                "waits: REQUEST_TIMED_OUT in 17s (request.timeout.ms=30000), then NOT_ENOUGH_REPLICAS · 3 \
                 acks=all requests at test_repli-4: HW frozen (ISR 1 < min.insync.replicas=2)"
            )
        );
        assert_eq!(producer_line(&snap, 1, false), None, "another producer waits for nothing");
        let fresh = crate::ui::fixture::snapshot();
        assert_eq!(producer_line(&fresh, 0, false), None);
    }

    /// A follower that lags, but whose leaving keeps the ISR at min.insync.replicas: the
    /// parked produces are acknowledged once it leaves, before request.timeout.ms. The why
    /// panel and the full clients pane say so; the compact one keeps its rows.
    #[test]
    fn a_wait_that_ends_acknowledged_is_not_told_in_the_compact_form() {
        let mut snap = crate::ui::fixture::snapshot();
        let mut p = (*snap.partitions[0]).clone();
        p.effective_min_isr = 1;
        p.hw_held_by = Some(crate::cluster::snapshot::HwHold { broker: 1, leo: Some(1380) });
        p.parked = vec![ParkedProduces {
            producer: 0,
            requests: 1,
            records: 6,
            since: 80_000,
            first_deadline: 110_000,
            timeout_ms: 30_000,
        }];
        snap.partitions[0] = Arc::new(p);
        let waits = at_partition(&snap, &snap.partitions[0]);
        assert!(!waits[0].fails(&snap));
        assert_eq!(producer_line(&snap, 0, true), None);
        assert_eq!(
            producer_line(&snap, 0, false).as_deref(),
            Some(
                "waits: 1 acks=all request at test_repli-0: broker 1 (6 behind) leaves the ISR in 22s; then acked"
            )
        );
        let long = waits[0].story(&snap, true);
        assert!(long.ends_with("ISR [0] then still meets min.insync.replicas=1: the HW passes them and they are acknowledged."), "{long}");
        // Leaving after the timeout: REQUEST_TIMED_OUT first, and the retry waits again.
        let mut p = (*snap.partitions[0]).clone();
        p.parked[0].first_deadline = 90_000;
        snap.partitions[0] = Arc::new(p);
        let line = producer_line(&snap, 0, true).unwrap();
        assert!(
            line.starts_with(
                "waits: REQUEST_TIMED_OUT in 7s (request.timeout.ms=30000) first, then a retry · 1"
            ),
            "{line}"
        );
    }

    /// At 80×24 the clients pane keeps the wait (the producer line and the wait both show);
    /// the partition view's why panel tells it in full.
    #[test]
    fn the_clients_pane_and_the_why_panel_say_the_produce_waits_for_request_timeout() {
        let snap = parked_under_min_isr();
        let overview = screen(&snap, 80, 24, &[]);
        assert!(overview.contains(" p0 100/s  acks=all  idempotent · sent 8342"), "{overview}");
        let joined: String = overview.lines().map(str::trim).collect::<Vec<_>>().join(" ");
        assert!(
            joined.contains(
                "p0 waits: REQUEST_TIMED_OUT in 17s (request.timeout.ms=30000), then NOT_ENOUGH_REPLICAS"
            ),
            "{overview}"
        );
        // Select test_repli-4 and open the partition view.
        let keys = [KeyCode::Down, KeyCode::Down, KeyCode::Down, KeyCode::Down, KeyCode::F(2)];
        let why = screen(&snap, 120, 40, &keys);
        for part in [
            "parked: 3 acks=all requests (42 records) from producer 0 parked",
            "The HW is frozen: ISR [1] is below",
            "request.timeout.ms and fail with REQUEST_TIMED_OUT in 17s",
            "(request.timeout.ms=30000, at 00:01:40.0). The producer then",
            "retries, and each retry gets NOT_ENOUGH_REPLICAS at once,",
        ] {
            assert!(why.contains(part), "{part}:\n{why}");
        }
        let wide = screen(&snap, 200, 60, &[]);
        assert!(
            wide.contains("p0 waits: REQUEST_TIMED_OUT in 17s (request.timeout.ms=30000), then"),
            "{wide}"
        );
        assert!(wide.contains("acks=all requests at test_repli-4: HW frozen"), "{wide}");
    }
}
