//! The follower side of replication: one fetcher per leader broker (R2.5), each with its
//! incremental fetch session (KIP-227, `ReplicaFetcherThread` + `FetchSessionHandler`).

use super::Broker;
use crate::sim::events::EventKind;
use crate::sim::fetch_session::{FetchRequestData, FetchSessionHandler};
use crate::sim::partition::Partition;
use crate::sim::protocol::{FetchRequest, FetchResponse, Message, NodeId};
use crate::sim::{BrokerId, Ms, Outbox, TopicPartition};
use std::collections::{BTreeMap, BTreeSet};

/// `replica.fetch.min.bytes` (Kafka's default, 1 byte): a follower fetch completes as soon as
/// any record is ready. isrlab does not make it settable.
pub const REPLICA_FETCH_MIN_BYTES: u64 = 1;

/// One follower fetch loop towards one leader broker (Kafka's `ReplicaFetcherThread` with
/// its `FetchSessionHandler`).
#[derive(Clone, Debug, Default)]
pub(super) struct Fetcher {
    /// Correlation id and give-up time (`replica.socket.timeout.ms`) of the request in flight.
    pub(super) in_flight: Option<(u64, Ms)>,
    /// No request before this time (after a connection error).
    pub(super) backoff_until: Ms,
    /// The partitions this broker follows from that leader (`partitionStates`).
    pub(super) members: BTreeSet<TopicPartition>,
    /// Its fetch session (KIP-227).
    pub(super) session: FetchSessionHandler,
    /// Partitions its last fetch left out for the follower replication throttle (KIP-73):
    /// looked at again at every fetch it builds.
    pub(super) held_back: BTreeSet<TopicPartition>,
    /// Its entry in [`Fetchers`]' timer index.
    timer: Option<Ms>,
}

impl Fetcher {
    /// Its next timer: the give-up time of the request in flight, else the end of its
    /// backoff (a backoff already over still counts until `expire_fetchers` clears it).
    fn timer(&self) -> Option<Ms> {
        match self.in_flight {
            Some((_, deadline)) => Some(deadline),
            None => (self.backoff_until > 0).then_some(self.backoff_until),
        }
    }
}

/// A broker's fetchers by leader (Kafka's `ReplicaFetcherManager.fetcherThreadMap`), with the
/// indexes that let the passes run after every message visit only the fetchers that can have
/// work: their timers in time order (for `next_deadline` and `expire_fetchers`), the fetchers
/// changed since `maybe_send_fetches` last looked, and the fetchers with a request in flight
/// whose backoff is still set (`expire_fetchers` clears it once over). A broker with 49 idle
/// fetchers, each with a fetch parked at its leader, pays nothing per message for them.
#[derive(Clone, Debug, Default)]
pub(super) struct Fetchers {
    by_leader: BTreeMap<BrokerId, Fetcher>,
    timers: BTreeSet<(Ms, BrokerId)>,
    /// Unordered, without repeats (a few at a time: a Vec keeps its room between passes).
    to_check: Vec<BrokerId>,
    stale_backoff: BTreeSet<BrokerId>,
}

impl Fetchers {
    /// The fetcher towards `leader`.
    pub(super) fn get(&self, leader: BrokerId) -> Option<&Fetcher> {
        self.by_leader.get(&leader)
    }

    /// The fetcher towards `leader`, to change its session or held-back set; a change to its
    /// request in flight, backoff or members must be followed by [`Fetchers::sync`] (or made
    /// through [`Fetchers::update`]).
    pub(super) fn get_mut(&mut self, leader: BrokerId) -> Option<&mut Fetcher> {
        self.by_leader.get_mut(&leader)
    }

    /// Every fetcher in leader order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (&BrokerId, &Fetcher)> {
        self.by_leader.iter()
    }

    /// Forgets every fetcher (the process stopped).
    pub(super) fn clear(&mut self) {
        *self = Self::default();
    }

    /// The earliest fetcher timer (ms).
    pub(super) fn next_timer(&self) -> Option<Ms> {
        self.timers.first().map(|&(t, _)| t)
    }

    /// Changes the fetcher towards `leader`, if there is one, and takes note.
    pub(super) fn update<R>(&mut self, leader: BrokerId, f: impl FnOnce(&mut Fetcher) -> R) -> Option<R> {
        let r = f(self.by_leader.get_mut(&leader)?);
        self.sync(leader, true);
        Some(r)
    }

    /// Changes the fetcher towards `leader`, created if there is none, and takes note.
    pub(super) fn update_or_insert<R>(&mut self, leader: BrokerId, f: impl FnOnce(&mut Fetcher) -> R) -> R {
        let r = f(self.by_leader.entry(leader).or_default());
        self.sync(leader, true);
        r
    }

    /// Changes every fetcher and takes note.
    pub(super) fn update_all(&mut self, mut f: impl FnMut(&mut Fetcher)) {
        let leaders: Vec<BrokerId> = self.by_leader.keys().copied().collect();
        for leader in leaders {
            self.update(leader, &mut f);
        }
    }

    /// Brings the indexes up to date with the fetcher towards `leader`; `check`: the next
    /// `maybe_send_fetches` looks at it.
    pub(super) fn sync(&mut self, leader: BrokerId, check: bool) {
        let Some(f) = self.by_leader.get_mut(&leader) else { return };
        let timer = f.timer();
        if f.timer != timer {
            if let Some(old) = f.timer {
                self.timers.remove(&(old, leader));
            }
            if let Some(new) = timer {
                self.timers.insert((new, leader));
            }
            f.timer = timer;
        }
        if f.in_flight.is_some() && f.backoff_until > 0 {
            self.stale_backoff.insert(leader);
        } else {
            self.stale_backoff.remove(&leader);
        }
        if check && !self.to_check.contains(&leader) {
            self.to_check.push(leader);
        }
    }

    /// Shuts the fetcher towards `leader` down.
    fn remove(&mut self, leader: BrokerId) {
        if let Some(f) = self.by_leader.remove(&leader)
            && let Some(t) = f.timer
        {
            self.timers.remove(&(t, leader));
        }
        self.stale_backoff.remove(&leader);
        self.to_check.retain(|&l| l != leader);
    }

    /// The fetchers that may be ready to send at `now`, in leader order: those changed since
    /// the last pass and those whose timer is due (a backoff that ended). Hand the list back
    /// with [`Fetchers::give_back`].
    fn take_candidates(&mut self, now: Ms) -> Vec<BrokerId> {
        let mut candidates = std::mem::take(&mut self.to_check);
        let due = self.timers.iter().take_while(|&&(t, _)| t <= now).map(|&(_, l)| l);
        candidates.extend(due);
        candidates.sort_unstable();
        candidates.dedup();
        candidates
    }

    /// Returns a list from [`Fetchers::take_candidates`], emptied, to keep its room.
    fn give_back(&mut self, mut list: Vec<BrokerId>) {
        if self.to_check.is_empty() {
            list.clear();
            self.to_check = list;
        }
    }

    /// The fetchers whose timer is due at `now`, or whose backoff may be over while a request
    /// is in flight.
    fn due(&self, now: Ms) -> BTreeSet<BrokerId> {
        let due = self.timers.iter().take_while(|&&(t, _)| t <= now).map(|&(_, l)| l);
        due.chain(self.stale_backoff.iter().copied()).collect()
    }
}

impl Broker {
    /// Sends one Fetch per leader whose fetcher is idle (R2.3, R2.5): a full fetch listing
    /// every partition it follows from that leader when its session must (re)start, else an
    /// incremental one listing only the partitions added or changed since the last and those
    /// to forget (`RemoteLeaderEndPoint.buildFetch`). A partition the follower replication
    /// throttle leaves out is not added to the builder, so it leaves the session until it may
    /// be fetched again; a fetcher with nothing to send for that reason backs off
    /// `replica.fetch.backoff.ms` ([`super::throttle`]). A fetcher left without partitions is
    /// shut down, its session with it (`AbstractFetcherManager.shutdownIdleFetcherThreads`).
    pub(super) fn maybe_send_fetches(&mut self, now: Ms, out: &mut Outbox) {
        if !self.up || !self.registered || self.fetch_paused {
            return;
        }
        // Runs after every message: only the fetchers changed since the last pass, or whose
        // backoff ended, can have become ready; most of the time there are none.
        let mut ready = self.fetchers.take_candidates(now);
        ready.retain(|&leader| match self.fetchers.get(leader) {
            Some(f) if f.members.is_empty() => {
                self.fetchers.remove(leader);
                false
            }
            Some(f) => f.in_flight.is_none() && now >= f.backoff_until,
            None => false,
        });
        if ready.is_empty() {
            return self.fetchers.give_back(ready);
        }
        let follower_over = self.follower_quota_exceeded(now);
        let mut requests = Vec::with_capacity(ready.len());
        let mut throttled = BTreeSet::new();
        let mut retry = Vec::new();
        for &leader in &ready {
            let held_back = self.throttle_marks(leader, follower_over);
            let Some(fetcher) = self.fetchers.get_mut(leader) else { continue };
            let data = build_fetch(&self.partitions, leader, fetcher, now, &held_back);
            fetcher.held_back = held_back;
            if data.is_empty() {
                if fetcher.held_back.is_empty() {
                    // Nothing to fetch yet (every partition backing off): looked at again at
                    // every pass, as a fetcher thread that finds nothing tries again.
                    retry.push(leader);
                } else {
                    throttled.insert(leader);
                }
                continue;
            }
            let correlation_id = self.next_correlation;
            self.next_correlation += 1;
            fetcher.in_flight = Some((correlation_id, now + self.config.replica_socket_timeout_ms));
            self.fetchers.sync(leader, false);
            requests.push((leader, correlation_id, data));
        }
        self.back_off_throttled_fetchers(now, throttled);
        for leader in retry {
            self.fetchers.sync(leader, true);
        }
        self.fetchers.give_back(ready);
        for (leader, correlation_id, data) in requests {
            for fp in &data.to_send {
                if let Some(p) = self.partitions.get_mut(&fp.tp) {
                    p.note_fetch_sent(self.id, leader, fp.fetch_offset, out);
                    self.view_marks.mark(&fp.tp);
                }
            }
            out.send(
                NodeId::Broker(leader),
                Message::Fetch(FetchRequest {
                    correlation_id,
                    replica: self.id,
                    broker_epoch: self.broker_epoch,
                    max_wait_ms: self.config.replica_fetch_wait_max_ms,
                    min_bytes: REPLICA_FETCH_MIN_BYTES,
                    partition_max_bytes: self.config.replica_fetch_max_bytes,
                    max_bytes: self.config.replica_fetch_response_max_bytes,
                    session: data.metadata,
                    partitions: data.to_send,
                    forgotten: data.to_forget,
                }),
            );
        }
    }

    /// A leader's answer: the session takes it first (`FetchSessionHandler.handleResponse`;
    /// a session error means starting over, with nothing to apply), then each partition it
    /// carries is applied. Partitions it leaves out had nothing new.
    pub(super) fn on_fetch_response(&mut self, now: Ms, resp: FetchResponse, out: &mut Outbox) {
        let Some(f) = self.fetchers.get_mut(resp.leader) else { return };
        if f.in_flight.is_none_or(|(c, _)| c != resp.correlation_id) {
            return;
        }
        f.in_flight = None;
        let session_id = f.session.metadata().session_id;
        let usable = f.session.handle_response(now, resp.error, resp.session_id);
        self.fetchers.sync(resp.leader, true);
        if !usable {
            if let Some(error) = resp.error {
                out.emit(EventKind::FetchSessionRefused {
                    broker: self.id,
                    leader: resp.leader,
                    session_id,
                    error,
                });
            }
            return;
        }
        self.record_follower_throttled(now, &resp.partitions);
        for fp in resp.partitions {
            self.touch(now, &fp.tp, |p, ctx| p.on_fetch_response(ctx, resp.leader, &fp.result, out));
        }
    }

    /// The connection to `leader` broke with fetch `correlation_id` in flight: back off, and
    /// the next fetch closes the session and opens a new one (`FetchSessionHandler.handleError`).
    pub(super) fn on_fetch_lost(&mut self, now: Ms, leader: BrokerId, correlation_id: u64) {
        let backoff = now + self.config.replica_fetch_backoff_ms;
        self.fetchers.update(leader, |f| {
            if f.in_flight.is_some_and(|(c, _)| c == correlation_id) {
                f.abandon(now, backoff);
            }
        });
    }

    /// Abandons fetches unanswered for `replica.socket.timeout.ms` (as a lost request) and
    /// ends fetcher backoffs that ran out, visiting only the fetchers whose timer is due.
    pub(super) fn expire_fetchers(&mut self, now: Ms) {
        let backoff = now + self.config.replica_fetch_backoff_ms;
        for leader in self.fetchers.due(now) {
            self.fetchers.update(leader, |f| {
                if f.in_flight.is_some_and(|(_, deadline)| deadline <= now) {
                    f.abandon(now, backoff);
                } else if f.backoff_until <= now {
                    f.backoff_until = 0;
                }
            });
        }
    }
}

impl Fetcher {
    /// Gives up on the request in flight: no fetch before `backoff_until`, and the next one
    /// closes the session and opens a new one (`FetchSessionHandler.handleError`).
    fn abandon(&mut self, now: Ms, backoff_until: Ms) {
        self.in_flight = None;
        self.backoff_until = backoff_until;
        self.session.handle_error(now);
    }
}

/// What `fetcher` asks `leader` for now: every partition it follows and may fetch for a full
/// fetch, else only the ones marked since its last request; never those `held_back` by the
/// follower throttle.
fn build_fetch(
    partitions: &BTreeMap<TopicPartition, Partition>,
    leader: BrokerId,
    fetcher: &mut Fetcher,
    now: Ms,
    held_back: &BTreeSet<TopicPartition>,
) -> FetchRequestData {
    let wanted = |tp: &TopicPartition| {
        let (from, fp) = partitions.get(tp)?.fetch_request(now)?;
        (from == leader && !held_back.contains(tp)).then_some(fp)
    };
    if fetcher.session.needs_full() {
        let all = fetcher.members.iter().filter_map(wanted).collect();
        fetcher.session.build_full(now, all)
    } else {
        fetcher.session.build_incremental(wanted)
    }
}
