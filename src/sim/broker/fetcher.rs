//! The follower side of replication: one fetcher per leader broker (R2.5), each with its
//! incremental fetch session (KIP-227, `ReplicaFetcherThread` + `FetchSessionHandler`).

use super::{Broker, Fetcher};
use crate::sim::events::EventKind;
use crate::sim::fetch_session::FetchRequestData;
use crate::sim::partition::Partition;
use crate::sim::protocol::{FetchRequest, FetchResponse, Message, NodeId};
use crate::sim::{BrokerId, Ms, Outbox, TopicPartition};
use std::collections::{BTreeMap, BTreeSet};

/// `replica.fetch.min.bytes` (Kafka's default, 1 byte): a follower fetch completes as soon as
/// any record is ready. isrlab does not make it settable.
pub const REPLICA_FETCH_MIN_BYTES: u64 = 1;

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
        // Runs after every message: most of the time every fetcher has a fetch in flight, so
        // one pass that finds none ready is all it costs (no allocation, no quota read).
        let mut ready = Vec::new();
        let mut idle = false;
        for (&leader, f) in &self.fetchers {
            if f.members.is_empty() {
                idle = true;
            } else if f.in_flight.is_none() && now >= f.backoff_until {
                ready.push(leader);
            }
        }
        if idle {
            self.fetchers.retain(|_, f| !f.members.is_empty());
        }
        if ready.is_empty() {
            return;
        }
        let follower_over = self.follower_quota_exceeded(now);
        let mut requests = Vec::new();
        let mut throttled = BTreeSet::new();
        for leader in ready {
            let held_back = self.throttle_marks(leader, follower_over);
            let Some(fetcher) = self.fetchers.get_mut(&leader) else { continue };
            let data = build_fetch(&self.partitions, leader, fetcher, now, &held_back);
            fetcher.held_back = held_back;
            if data.is_empty() {
                if !fetcher.held_back.is_empty() {
                    throttled.insert(leader);
                }
                continue;
            }
            let correlation_id = self.next_correlation;
            self.next_correlation += 1;
            fetcher.in_flight = Some((correlation_id, now + self.config.replica_socket_timeout_ms));
            requests.push((leader, correlation_id, data));
        }
        self.back_off_throttled_fetchers(now, throttled);
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
        let Some(f) = self.fetchers.get_mut(&resp.leader) else { return };
        if f.in_flight.is_none_or(|(c, _)| c != resp.correlation_id) {
            return;
        }
        f.in_flight = None;
        let session_id = f.session.metadata().session_id;
        if !f.session.handle_response(now, resp.error, resp.session_id) {
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
        if let Some(f) = self.fetchers.get_mut(&leader)
            && f.in_flight.is_some_and(|(c, _)| c == correlation_id)
        {
            f.abandon(now, backoff);
        }
    }

    /// Abandons fetches unanswered for `replica.socket.timeout.ms` (as a lost request) and
    /// ends fetcher backoffs that ran out.
    pub(super) fn expire_fetchers(&mut self, now: Ms) {
        let backoff = now + self.config.replica_fetch_backoff_ms;
        for f in self.fetchers.values_mut() {
            if f.in_flight.is_some_and(|(_, deadline)| deadline <= now) {
                f.abandon(now, backoff);
            } else if f.backoff_until <= now {
                f.backoff_until = 0;
            }
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
