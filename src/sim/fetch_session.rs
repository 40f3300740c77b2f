//! Incremental fetch sessions (KIP-227), both ends.
//!
//! A follower's fetcher opens a session with a full fetch that lists every partition it
//! replicates from that leader; the leader caches them (`FetchSession`) and answers with a
//! session id. Each later fetch is incremental: it lists only the partitions added, or whose
//! fetch state changed (fetch offset, log start offset, leader epoch, last fetched epoch), and
//! the partitions removed ("forgotten"). The leader answers only for partitions with something
//! to say: records, an error, a diverging epoch, or a HW or log start offset that changed since
//! the last response (`CachedPartition.maybeUpdateResponseData`). An idle partition travels in
//! neither direction.
//!
//! Follower side: [`FetchSessionHandler`] (Kafka's `org.apache.kafka.clients.FetchSessionHandler`
//! with its `Builder.build` and `handleResponse`). Leader side: [`FetchSessionCache`] (Kafka's
//! `FetchManager.newContext`, `FetchSessionCacheShard`, `FetchSession`, and the
//! `FullFetchContext` / `IncrementalFetchContext` / `SessionlessFetchContext` /
//! `SessionErrorContext` kinds as [`FetchContext`]).

use super::protocol::{FetchPartition, FetchedPartition};
use super::{BrokerId, Ms, Offset, TopicIdPartition, TopicPartition};
use crate::kafka::errors::ErrorCode;
use std::collections::{BTreeMap, BTreeSet};

/// Session id meaning "no session" (`FetchMetadata.INVALID_SESSION_ID`).
pub const INVALID_SESSION_ID: u32 = 0;
/// Epoch of a full fetch that asks for a new session (`FetchMetadata.INITIAL_EPOCH`).
pub const INITIAL_EPOCH: i32 = 0;
/// Epoch of a full fetch that wants no session (`FetchMetadata.FINAL_EPOCH`).
pub const FINAL_EPOCH: i32 = -1;
/// How long (ms) a session must be unused before a new one may evict it, and how old it must
/// be before a larger one may (`KafkaBroker.MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS`).
pub const MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS: Ms = 120_000;

/// The epoch after `prev` (`FetchMetadata.nextEpoch`): FINAL stays FINAL, and after
/// `i32::MAX` comes 1 (0 is reserved for full fetches).
pub fn next_epoch(prev: i32) -> i32 {
    match prev {
        p if p < 0 => FINAL_EPOCH,
        i32::MAX => 1,
        p => p + 1,
    }
}

/// A fetch's session id and epoch (Kafka's `FetchMetadata`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct FetchMetadata {
    /// The session, [`INVALID_SESSION_ID`] for none.
    pub session_id: u32,
    /// [`INITIAL_EPOCH`] or [`FINAL_EPOCH`] for a full fetch, else the session's next epoch.
    pub epoch: i32,
}

impl FetchMetadata {
    /// A full fetch that asks for a new session (`FetchMetadata.INITIAL`).
    pub const INITIAL: Self = Self { session_id: INVALID_SESSION_ID, epoch: INITIAL_EPOCH };

    /// Whether the fetch lists every partition (`isFull`).
    pub fn is_full(self) -> bool {
        self.epoch == INITIAL_EPOCH || self.epoch == FINAL_EPOCH
    }

    /// The first incremental fetch of session `id` (`newIncremental`).
    pub fn new_incremental(id: u32) -> Self {
        Self { session_id: id, epoch: next_epoch(INITIAL_EPOCH) }
    }

    /// The next incremental fetch of this session (`nextIncremental`).
    pub fn next_incremental(self) -> Self {
        Self { session_id: self.session_id, epoch: next_epoch(self.epoch) }
    }

    /// A full fetch that closes this session and asks for a new one
    /// (`nextCloseExistingAttemptNew`).
    pub fn next_close_existing_attempt_new(self) -> Self {
        Self { session_id: self.session_id, epoch: INITIAL_EPOCH }
    }
}

/// What one fetch carries, as [`FetchSessionHandler`] built it (Kafka's `FetchRequestData`).
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct FetchRequestData {
    /// Partitions listed in the request: all of them for a full fetch, else the added and
    /// altered ones.
    pub to_send: Vec<FetchPartition>,
    /// Partitions the session drops (incremental fetches only), by topic id.
    pub to_forget: Vec<TopicIdPartition>,
    /// Session id and epoch to send.
    pub metadata: FetchMetadata,
    /// How many partitions the session holds after this request.
    pub session_len: usize,
}

impl FetchRequestData {
    /// Whether the fetch is worth sending: Kafka's `RemoteLeaderEndPoint.buildFetch` sends none
    /// when the session is empty and nothing is to be forgotten.
    pub fn is_empty(&self) -> bool {
        self.session_len == 0 && self.to_forget.is_empty()
    }
}

/// A follower fetcher's side of its session with one leader (Kafka's `FetchSessionHandler`).
/// It remembers what the leader caches for each partition, and which partitions may have
/// changed since the last request, so building an incremental fetch costs only those. Keyed by
/// name, as Kafka's `sessionPartitions` are; each entry carries its topic id, and a partition
/// whose id changed (its topic was deleted and created again) is forgotten under the old id
/// and added under the new one (`Builder.build`'s `replaced`).
#[derive(Clone, Debug, Default)]
pub struct FetchSessionHandler {
    next: FetchMetadata,
    session: BTreeMap<TopicPartition, FetchPartition>,
    dirty: BTreeSet<TopicPartition>,
    /// When and why the session last started over; `None` before the first fetch.
    reset: Option<SessionReset>,
}

/// When (ms) and why a follower's fetch session last started over with a full fetch.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct SessionReset {
    /// Sim time of the reset (ms).
    pub at: Ms,
    /// What made it start over.
    pub why: ResetReason,
}

/// What made a follower's fetch session start over: the branches of Kafka's
/// `FetchSessionHandler.handleResponse` and `handleError` that leave the session, and the
/// creation of the fetcher itself.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ResetReason {
    /// The fetcher is new: the first partition this broker follows from that leader, after a
    /// leader change or this broker's start (`ReplicaFetcherManager.addFetcherForPartitions`
    /// creates the fetcher, whose handler starts with a full fetch).
    NewFetcher,
    /// The leader refused the session with this error: FETCH_SESSION_ID_NOT_FOUND (it
    /// restarted or evicted the session) or INVALID_FETCH_SESSION_EPOCH (a lost response).
    Refused(ErrorCode),
    /// The request was lost: its connection broke, `replica.socket.timeout.ms` passed, or the
    /// fetcher was paused with it in flight (`handleError`).
    RequestLost,
    /// The leader's incremental response closed the session (every partition forgotten).
    ClosedByLeader,
    /// The leader answered a full fetch without a session: its cache had no free slot
    /// (`max.incremental.fetch.session.cache.slots`), so fetches stay full.
    NoSlot,
}

impl FetchSessionHandler {
    /// The session id and epoch the next request carries.
    pub fn metadata(&self) -> FetchMetadata {
        self.next
    }

    /// Whether the next request must be a full one.
    pub fn needs_full(&self) -> bool {
        self.next.is_full()
    }

    /// How many partitions the leader holds in the session.
    pub fn session_len(&self) -> usize {
        self.session.len()
    }

    /// When and why the session last started over; `None` before the first fetch.
    pub fn last_reset(&self) -> Option<SessionReset> {
        self.reset
    }

    fn start_over(&mut self, at: Ms, why: ResetReason) {
        self.reset = Some(SessionReset { at, why });
    }

    /// Notes that `tp`'s fetch state may have changed (or it joined or left this fetcher).
    pub fn mark(&mut self, tp: &TopicPartition) {
        if !self.dirty.contains(tp) {
            self.dirty.insert(tp.clone());
        }
    }

    /// A full fetch of `partitions` at `now` (ms), which become the session (`Builder.build`
    /// when `nextMetadata.isFull`). The first one of a fetcher counts as its reset.
    pub fn build_full(&mut self, now: Ms, partitions: Vec<FetchPartition>) -> FetchRequestData {
        if self.reset.is_none() {
            self.start_over(now, ResetReason::NewFetcher);
        }
        self.dirty.clear();
        self.session = partitions.iter().map(|fp| (fp.tp.clone(), fp.clone())).collect();
        FetchRequestData {
            session_len: partitions.len(),
            to_send: partitions,
            to_forget: Vec::new(),
            metadata: self.next,
        }
    }

    /// An incremental fetch (`Builder.build` otherwise): for each partition marked since the
    /// last request, `wanted` says what the fetcher wants now (`None`: not fetching it, e.g.
    /// backing off after an error or no longer following this leader). New ones are added,
    /// changed ones sent again, dropped ones forgotten; unchanged ones stay out.
    pub fn build_incremental(
        &mut self,
        mut wanted: impl FnMut(&TopicPartition) -> Option<FetchPartition>,
    ) -> FetchRequestData {
        let mut data = FetchRequestData { metadata: self.next, ..FetchRequestData::default() };
        for tp in std::mem::take(&mut self.dirty) {
            match (self.session.get(&tp), wanted(&tp)) {
                (Some(prev), Some(fp)) if *prev == fp => {}
                (prev, Some(fp)) => {
                    if let Some(prev) = prev.filter(|p| p.topic_id != fp.topic_id) {
                        data.to_forget.push(prev.key());
                    }
                    self.session.insert(tp, fp.clone());
                    data.to_send.push(fp);
                }
                (Some(prev), None) => {
                    data.to_forget.push(prev.key());
                    self.session.remove(&tp);
                }
                (None, None) => {}
            }
        }
        data.session_len = self.session.len();
        data
    }

    /// Takes the leader's answer (`handleResponse`): a session error starts over with a full
    /// fetch (FETCH_SESSION_ID_NOT_FOUND: a fresh one; any other: one that also closes the old
    /// session); a full response with a session id opens the session, one without keeps full
    /// fetches; an incremental response moves to the next epoch, or back to full fetches when
    /// the leader closed the session. Each of these notes its reset at `now` (ms); a run of
    /// full responses without a session notes only the first. Returns whether the response's
    /// partitions may be used.
    pub fn handle_response(&mut self, now: Ms, error: Option<ErrorCode>, session_id: u32) -> bool {
        if let Some(e) = error {
            self.next = if e == ErrorCode::FetchSessionIdNotFound {
                FetchMetadata::INITIAL
            } else {
                self.next.next_close_existing_attempt_new()
            };
            self.start_over(now, ResetReason::Refused(e));
            return false;
        }
        let full = self.next.is_full();
        self.next = match (full, session_id) {
            (false, INVALID_SESSION_ID) => {
                self.start_over(now, ResetReason::ClosedByLeader);
                FetchMetadata::INITIAL
            }
            (true, INVALID_SESSION_ID) => {
                if self.reset.is_none_or(|r| r.why != ResetReason::NoSlot) {
                    self.start_over(now, ResetReason::NoSlot);
                }
                FetchMetadata::INITIAL
            }
            (true, id) => FetchMetadata::new_incremental(id),
            (false, _) => self.next.next_incremental(),
        };
        true
    }

    /// The request was lost at `now` (ms; connection error or timeout, `handleError`): the
    /// next fetch is a full one that closes the session.
    pub fn handle_error(&mut self, now: Ms) {
        self.next = self.next.next_close_existing_attempt_new();
        self.start_over(now, ResetReason::RequestLost);
    }
}

/// The time (ms) of each session's latest fetch, read by the leader's bookkeeping of the
/// followers whose partitions sit idle in a session (see `Partition::mark_idle_in_session`):
/// while a partition is idle, every fetch of its session counts as a fetch of it, as Kafka's
/// leader would record by reading it again on each fetch
/// (`IncrementalFetchContext.foreachPartition`). A session's entry outlives the session (an
/// evicted session's idle partitions keep its last fetch time until their follower's next full
/// fetch reads them again); the table is emptied when the process stops, with the followers'
/// state. Plain values, so a cloned broker shares nothing with its original.
#[derive(Clone, Debug, Default)]
pub struct SessionFetchTimes(BTreeMap<u32, Ms>);

impl SessionFetchTimes {
    /// The latest fetch time (ms) of session `id`, if it ever fetched.
    pub fn get(&self, id: u32) -> Option<Ms> {
        self.0.get(&id).copied()
    }

    fn set(&mut self, id: u32, now: Ms) {
        self.0.insert(id, now);
    }
}

/// What the leader caches per partition of a session (`FetchSession.CachedPartition`).
#[derive(Clone, Debug)]
pub struct CachedPartition {
    /// The follower's latest request data for it.
    pub request: FetchPartition,
    /// The HW last sent, `-1` before the first response or after an error.
    pub high_watermark: Offset,
    /// The log start offset last sent, `-1` before the first response.
    pub log_start_offset: Offset,
}

impl CachedPartition {
    fn new(request: FetchPartition) -> Self {
        Self { request, high_watermark: -1, log_start_offset: -1 }
    }

    /// Whether a response must carry this partition with `result`
    /// (`CachedPartition.maybeUpdateResponseData`): records, a diverging epoch and errors
    /// always go; otherwise only a HW or log start offset that changed since the last one.
    pub fn would_respond(&self, result: &FetchedPartition) -> bool {
        match &result.result {
            Err(_) => true,
            Ok(d) => {
                d.high_watermark != self.high_watermark
                    || d.log_start_offset != self.log_start_offset
                    || !d.batches.is_empty()
                    || d.diverging_epoch.is_some()
            }
        }
    }

    /// [`CachedPartition::would_respond`], remembering what the response carries (an error
    /// resets the cached HW so the partition is sent again once the error is gone).
    pub fn must_respond(&mut self, result: &FetchedPartition) -> bool {
        let respond = self.would_respond(result);
        match &result.result {
            Err(_) => self.high_watermark = -1,
            Ok(d) => {
                self.high_watermark = d.high_watermark;
                self.log_start_offset = d.log_start_offset;
            }
        }
        respond
    }
}

/// One follower's session at this leader (Kafka's `FetchSession`).
#[derive(Clone, Debug)]
pub struct FetchSession {
    /// Session id.
    pub id: u32,
    /// The follower.
    pub replica: BrokerId,
    /// The epoch the next incremental fetch must carry.
    pub epoch: i32,
    /// Cached partitions, by topic id and partition (`FetchSession.partitionMap`, keyed by
    /// `TopicIdPartition`): a deleted topic's partition and the one of the topic created again
    /// under its name are different entries.
    pub partitions: BTreeMap<TopicIdPartition, CachedPartition>,
    /// Partitions the next fetch must look at: added or changed by the follower, changed on
    /// this broker since, or not idle (see `Partition::idle_follower`). The others are idle:
    /// nothing to read, nothing to say.
    pub pending: BTreeSet<TopicIdPartition>,
    /// When it was created (ms).
    pub created_ms: Ms,
    /// When it was last used (ms).
    pub last_used_ms: Ms,
}

impl FetchSession {
    /// Marks it used at `now` (`FetchSessionCacheShard.touch`).
    pub fn touch(&mut self, now: Ms) {
        self.last_used_ms = now;
    }
}

/// How the leader serves one fetch (Kafka's `FetchContext` implementations).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FetchContext {
    /// A full fetch that wants no session (`SessionlessFetchContext`, epoch FINAL), or an
    /// incremental one that emptied its session: answer for the listed partitions.
    Sessionless,
    /// A full fetch that asks for a session (`FullFetchContext`): answer for every listed
    /// partition and try to cache them.
    Full,
    /// An incremental fetch of this session (`IncrementalFetchContext`).
    Incremental(u32),
    /// The session is unknown or the epoch wrong (`SessionErrorContext`).
    Error(ErrorCode),
}

/// The leader's session cache (Kafka's `FetchSessionCache` with one shard).
#[derive(Clone, Debug, Default)]
pub struct FetchSessionCache {
    sessions: BTreeMap<u32, FetchSession>,
    by_partition: BTreeMap<TopicIdPartition, BTreeSet<u32>>,
    next_id: u32,
    /// Each session's latest fetch time.
    fetch_times: SessionFetchTimes,
}

impl FetchSessionCache {
    /// Each session's latest fetch time, for the followers idle in a session.
    pub fn fetch_times(&self) -> &SessionFetchTimes {
        &self.fetch_times
    }

    /// Records that session `id`'s follower fetched at `now`, after the fetch's partitions
    /// were read: from then on its idle partitions count as fetched at `now`.
    pub fn record_fetch(&mut self, id: u32, now: Ms) {
        if self.sessions.contains_key(&id) {
            self.fetch_times.set(id, now);
        }
    }

    /// A session.
    pub fn get(&self, id: u32) -> Option<&FetchSession> {
        self.sessions.get(&id)
    }

    /// A session, to change.
    pub fn get_mut(&mut self, id: u32) -> Option<&mut FetchSession> {
        self.sessions.get_mut(&id)
    }

    /// How many sessions it holds.
    pub fn len(&self) -> usize {
        self.sessions.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }

    /// Forgets every session (the process stopped).
    pub fn clear(&mut self) {
        self.sessions.clear();
        self.by_partition.clear();
        self.fetch_times.0.clear();
    }

    /// The sessions that cache `tp`.
    pub fn sessions_with(&self, tp: TopicIdPartition) -> impl Iterator<Item = u32> + '_ {
        self.by_partition.get(&tp).into_iter().flatten().copied()
    }

    /// Decides how to serve a fetch from `replica` and applies its session changes
    /// (`FetchManager.newContext`): a full fetch closes the session it names; an incremental
    /// one must name a cached session (else FETCH_SESSION_ID_NOT_FOUND) at its expected epoch
    /// (else INVALID_FETCH_SESSION_EPOCH); its listed partitions are added or updated, its
    /// forgotten ones dropped; if none remain the session closes and the fetch is served
    /// without one. Also returns the partitions the fetch added to its session.
    pub fn new_context(
        &mut self,
        now: Ms,
        metadata: FetchMetadata,
        partitions: &[FetchPartition],
        forgotten: &[TopicIdPartition],
    ) -> (FetchContext, Vec<TopicPartition>) {
        if metadata.is_full() {
            if metadata.session_id != INVALID_SESSION_ID {
                self.remove(metadata.session_id);
            }
            let context =
                if metadata.epoch == FINAL_EPOCH { FetchContext::Sessionless } else { FetchContext::Full };
            return (context, Vec::new());
        }
        let id = metadata.session_id;
        let Some(session) = self.sessions.get_mut(&id) else {
            return (FetchContext::Error(ErrorCode::FetchSessionIdNotFound), Vec::new());
        };
        if session.epoch != metadata.epoch {
            return (FetchContext::Error(ErrorCode::InvalidFetchSessionEpoch), Vec::new());
        }
        let mut added = Vec::new();
        // Forgotten first: a partition replaced under a new topic id is forgotten under the old
        // one in the same request (`IncrementalFetchContext` removes, then adds).
        for key in forgotten {
            session.pending.remove(key);
            if session.partitions.remove(key).is_some() {
                unindex(&mut self.by_partition, *key, id);
            }
        }
        for fp in partitions {
            let key = fp.key();
            session.pending.insert(key);
            match session.partitions.get_mut(&key) {
                Some(c) => c.request = fp.clone(),
                None => {
                    session.partitions.insert(key, CachedPartition::new(fp.clone()));
                    self.by_partition.entry(key).or_default().insert(id);
                    added.push(fp.tp.clone());
                }
            }
        }
        if session.partitions.is_empty() {
            self.remove(id);
            return (FetchContext::Sessionless, added);
        }
        session.touch(now);
        session.epoch = next_epoch(session.epoch);
        (FetchContext::Incremental(id), added)
    }

    /// Caches a new session for `replica` holding `partitions` with what the full response
    /// said of each (`FullFetchContext.updateAndGenerateResponseData` →
    /// `FetchSessionCacheShard.maybeCreateSession`), if there is room for it or one can be
    /// evicted: at most `max_slots` sessions (`max.incremental.fetch.session.cache.slots`).
    /// Returns its id, or [`INVALID_SESSION_ID`] when none was created. Session ids count up
    /// from 1 on each broker (Kafka draws them at random; counting keeps runs reproducible).
    pub fn maybe_create(
        &mut self,
        now: Ms,
        replica: BrokerId,
        max_slots: usize,
        partitions: &[FetchPartition],
        results: &[FetchedPartition],
    ) -> u32 {
        if self.sessions.len() >= max_slots && !self.try_evict(now, partitions.len()) {
            return INVALID_SESSION_ID;
        }
        self.next_id = self.next_id.checked_add(1).unwrap_or(1);
        let id = self.next_id;
        let mut cached = BTreeMap::new();
        for (fp, r) in partitions.iter().zip(results) {
            let mut c = CachedPartition::new(fp.clone());
            c.must_respond(r);
            cached.insert(fp.key(), c);
            self.by_partition.entry(fp.key()).or_default().insert(id);
        }
        let pending = cached.keys().copied().collect();
        let mut session = FetchSession {
            id,
            replica,
            epoch: next_epoch(INITIAL_EPOCH),
            partitions: cached,
            pending,
            created_ms: now,
            last_used_ms: now,
        };
        session.touch(now);
        self.fetch_times.set(id, now);
        self.sessions.insert(id, session);
        id
    }

    /// Makes room for a session of `size` partitions (`FetchSessionCacheShard.tryEvict`): the
    /// least recently used session goes if it was unused for longer than
    /// [`MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS`]; otherwise the smallest session older
    /// than that goes if the new one is larger. Every session here is a follower's
    /// (privileged), so the consumer-session rule does not apply.
    fn try_evict(&mut self, now: Ms, size: usize) -> bool {
        let stale = self.sessions.values().min_by_key(|s| (s.last_used_ms, s.id));
        let Some(stale) = stale else { return false };
        if now.saturating_sub(stale.last_used_ms) > MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS {
            let id = stale.id;
            self.remove(id);
            return true;
        }
        let smallest = self
            .sessions
            .values()
            .filter(|s| now.saturating_sub(s.created_ms) > MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS)
            .min_by_key(|s| (s.partitions.len(), s.id))
            .filter(|s| size > s.partitions.len())
            .map(|s| s.id);
        smallest.is_some_and(|id| self.remove(id).is_some())
    }

    /// Drops a session.
    pub fn remove(&mut self, id: u32) -> Option<FetchSession> {
        let session = self.sessions.remove(&id)?;
        for &key in session.partitions.keys() {
            unindex(&mut self.by_partition, key, id);
        }
        Some(session)
    }
}

fn unindex(index: &mut BTreeMap<TopicIdPartition, BTreeSet<u32>>, key: TopicIdPartition, id: u32) {
    if let Some(ids) = index.get_mut(&key) {
        ids.remove(&id);
        if ids.is_empty() {
            index.remove(&key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::TopicId;
    use crate::sim::protocol::FetchedData;

    const ID: TopicId = TopicId::from_bits(7);

    fn key(partition: u32) -> TopicIdPartition {
        TopicIdPartition { topic_id: ID, partition }
    }

    fn fp(p: u32, offset: Offset) -> FetchPartition {
        FetchPartition {
            tp: TopicPartition::new("t", p),
            topic_id: ID,
            current_leader_epoch: 0,
            fetch_offset: offset,
            last_fetched_epoch: None,
            log_start_offset: 0,
        }
    }

    fn ok(p: u32, hw: Offset) -> FetchedPartition {
        FetchedPartition {
            tp: TopicPartition::new("t", p),
            topic_id: ID,
            result: Ok(FetchedData {
                high_watermark: hw,
                log_start_offset: 0,
                diverging_epoch: None,
                batches: vec![],
            }),
        }
    }

    /// `FetchSessionHandlerTest.testIncrementals`, in our words: after a full fetch opens a
    /// session, only the changed, added and removed partitions travel.
    #[test]
    fn the_handler_sends_only_what_changed() {
        let mut h = FetchSessionHandler::default();
        let full = h.build_full(0, vec![fp(0, 0), fp(1, 0), fp(2, 0)]);
        assert_eq!((full.to_send.len(), full.metadata), (3, FetchMetadata::INITIAL));
        assert!(h.handle_response(0, None, 7));
        assert_eq!(h.metadata(), FetchMetadata { session_id: 7, epoch: 1 });
        // Nothing marked: an empty incremental fetch that keeps the session.
        let idle = h.build_incremental(|_| unreachable!());
        assert!(idle.to_send.is_empty() && idle.to_forget.is_empty() && !idle.is_empty());
        h.handle_response(0, None, 7);
        for p in [0, 1, 2, 3] {
            h.mark(&TopicPartition::new("t", p));
        }
        let inc = h.build_incremental(|tp| match tp.partition {
            0 => Some(fp(0, 0)),
            1 => Some(fp(1, 5)),
            2 => None,
            _ => Some(fp(3, 0)),
        });
        let sent: Vec<u32> = inc.to_send.iter().map(|f| f.tp.partition).collect();
        assert_eq!(sent, vec![1, 3]);
        assert_eq!(inc.to_forget, vec![key(2)]);
        assert_eq!((inc.metadata.epoch, inc.session_len), (2, 3));
    }

    /// `handleResponse` and `handleError`: a lost request or a session error starts over.
    #[test]
    fn errors_start_the_session_over() {
        let mut h = FetchSessionHandler::default();
        h.build_full(0, vec![fp(0, 0)]);
        h.handle_response(0, None, 3);
        h.handle_error(0);
        assert_eq!(h.metadata(), FetchMetadata { session_id: 3, epoch: INITIAL_EPOCH });
        assert!(h.needs_full());
        h.handle_response(0, None, 4);
        assert!(!h.handle_response(0, Some(ErrorCode::FetchSessionIdNotFound), 0));
        assert_eq!(h.metadata(), FetchMetadata::INITIAL);
        h.handle_response(0, None, 5);
        assert!(!h.handle_response(0, Some(ErrorCode::InvalidFetchSessionEpoch), 0));
        assert_eq!(h.metadata(), FetchMetadata { session_id: 5, epoch: INITIAL_EPOCH });
        // A full response without a session keeps full fetches.
        h.handle_response(0, None, INVALID_SESSION_ID);
        assert_eq!(h.metadata(), FetchMetadata::INITIAL);
        assert_eq!(next_epoch(i32::MAX), 1);
        assert_eq!(next_epoch(FINAL_EPOCH), FINAL_EPOCH);
    }

    /// Each way a session starts over is noted with its time: the fetcher's first full fetch,
    /// a refusal, a lost request, a leader that closes it; a cache with no slot is noted once.
    #[test]
    fn the_handler_notes_when_and_why_its_session_started_over() {
        let mut h = FetchSessionHandler::default();
        assert_eq!(h.last_reset(), None);
        h.build_full(10, vec![fp(0, 0)]);
        let reset = |at, why| Some(SessionReset { at, why });
        assert_eq!(h.last_reset(), reset(10, ResetReason::NewFetcher));
        h.handle_response(20, None, 4);
        h.build_full(30, vec![fp(0, 0)]);
        assert_eq!(h.last_reset(), reset(10, ResetReason::NewFetcher), "a later full fetch is no reset");
        h.handle_response(40, Some(ErrorCode::FetchSessionIdNotFound), 0);
        assert_eq!(h.last_reset(), reset(40, ResetReason::Refused(ErrorCode::FetchSessionIdNotFound)));
        h.handle_response(50, None, INVALID_SESSION_ID);
        h.handle_response(60, None, INVALID_SESSION_ID);
        assert_eq!(h.last_reset(), reset(50, ResetReason::NoSlot), "noted once");
        h.handle_response(70, None, 5);
        h.handle_response(80, None, 5);
        h.handle_error(90);
        assert_eq!(h.last_reset(), reset(90, ResetReason::RequestLost));
        h.handle_response(100, None, 6);
        h.handle_response(110, None, INVALID_SESSION_ID);
        assert_eq!(h.last_reset(), reset(110, ResetReason::ClosedByLeader));
        assert_eq!(h.metadata(), FetchMetadata::INITIAL);
    }

    /// `FetchManager.newContext` and `CachedPartition.maybeUpdateResponseData`.
    #[test]
    fn the_cache_checks_ids_and_epochs_and_answers_only_for_changes() {
        let mut cache = FetchSessionCache::default();
        let parts = [fp(0, 0), fp(1, 0)];
        assert_eq!(cache.new_context(0, FetchMetadata::INITIAL, &parts, &[]).0, FetchContext::Full);
        let id = cache.maybe_create(0, 1, 1000, &parts, &[ok(0, 0), ok(1, 0)]);
        assert_eq!(id, 1);
        let unknown = FetchMetadata { session_id: 9, epoch: 1 };
        assert_eq!(
            cache.new_context(1, unknown, &[], &[]).0,
            FetchContext::Error(ErrorCode::FetchSessionIdNotFound)
        );
        let stale = FetchMetadata { session_id: id, epoch: 5 };
        assert_eq!(
            cache.new_context(1, stale, &[], &[]).0,
            FetchContext::Error(ErrorCode::InvalidFetchSessionEpoch)
        );
        let m = FetchMetadata::new_incremental(id);
        let (context, added) = cache.new_context(1, m, &[fp(0, 0), fp(2, 0)], &[]);
        assert_eq!((context, added), (FetchContext::Incremental(id), vec![TopicPartition::new("t", 2)]));
        assert_eq!(cache.sessions_with(key(2)).collect::<Vec<_>>(), vec![id]);
        let s = cache.get_mut(id).unwrap();
        assert_eq!(s.epoch, 2);
        let c = s.partitions.get_mut(&key(0)).unwrap();
        assert!(!c.must_respond(&ok(0, 0)), "nothing new");
        assert!(c.must_respond(&ok(0, 4)), "the HW moved");
        let err = FetchedPartition { result: Err(ErrorCode::NotLeaderOrFollower), ..ok(0, 0) };
        assert!(c.must_respond(&err) && c.high_watermark == -1);
        // Forgetting every partition closes the session.
        let all: Vec<TopicIdPartition> = (0..3).map(key).collect();
        let m = m.next_incremental();
        assert_eq!(cache.new_context(2, m, &[], &all).0, FetchContext::Sessionless);
        assert!(cache.is_empty() && cache.sessions_with(all[0]).next().is_none());
    }

    /// KIP-516: a partition whose topic was deleted and created again under its name is a
    /// new session entry. The follower forgets the old id and adds the new one in one
    /// incremental fetch (`FetchSessionHandler.Builder.build`'s `replaced`); the leader drops
    /// the old entry and caches the new one (`FetchSession` keyed by `TopicIdPartition`).
    #[test]
    fn a_recreated_topic_replaces_its_partitions_in_the_session_by_id() {
        let new_id = TopicId::from_bits(8);
        let renewed = |p, offset| FetchPartition { topic_id: new_id, ..fp(p, offset) };
        let mut h = FetchSessionHandler::default();
        let full = h.build_full(0, vec![fp(0, 40), fp(1, 40)]);
        let mut cache = FetchSessionCache::default();
        let id = cache.maybe_create(0, 1, 1000, &full.to_send, &[ok(0, 40), ok(1, 40)]);
        h.handle_response(0, None, id);
        h.mark(&TopicPartition::new("t", 0));
        let inc = h.build_incremental(|_| Some(renewed(0, 0)));
        assert_eq!(inc.to_forget, vec![key(0)]);
        assert_eq!(inc.to_send, vec![renewed(0, 0)]);
        assert_eq!(inc.session_len, 2);
        let (context, added) = cache.new_context(1, inc.metadata, &inc.to_send, &inc.to_forget);
        assert_eq!((context, added), (FetchContext::Incremental(id), vec![TopicPartition::new("t", 0)]));
        let s = cache.get(id).unwrap();
        let keys: Vec<TopicIdPartition> = s.partitions.keys().copied().collect();
        assert_eq!(keys, vec![key(1), TopicIdPartition { topic_id: new_id, partition: 0 }]);
        assert_eq!(cache.sessions_with(key(0)).count(), 0, "the old id is gone from the index");
    }

    /// `FetchSessionCacheTest.testSessionCache` / `testPrivilegedSessionHandling`: no room
    /// means no session, until one goes stale or a larger one may evict an old small one.
    #[test]
    fn a_full_cache_creates_no_session_until_one_can_be_evicted() {
        let mut cache = FetchSessionCache::default();
        let one = [fp(0, 0)];
        assert_eq!(cache.maybe_create(0, 1, 0, &one, &[ok(0, 0)]), INVALID_SESSION_ID);
        assert_eq!(cache.maybe_create(0, 1, 1, &one, &[ok(0, 0)]), 1);
        assert_eq!(cache.maybe_create(1000, 2, 1, &one, &[ok(0, 0)]), INVALID_SESSION_ID);
        let two = [fp(0, 0), fp(1, 0)];
        let results = [ok(0, 0), ok(1, 0)];
        let old = MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS + 1;
        cache.get_mut(1).unwrap().touch(old);
        assert_eq!(cache.maybe_create(old, 2, 1, &one, &[ok(0, 0)]), INVALID_SESSION_ID, "same size");
        assert_eq!(cache.maybe_create(old, 2, 1, &two, &results), 2, "larger evicts the old one");
        let later = old + MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS + 1;
        assert_eq!(cache.maybe_create(later, 3, 1, &one, &[ok(0, 0)]), 3, "stale is evicted");
        assert_eq!(cache.len(), 1);
    }

    /// A cloned cache is a checkpoint: fetches recorded on the clone leave the original's
    /// session times alone, and an evicted session's time stays for its idle partitions.
    #[test]
    fn session_fetch_times_belong_to_one_cache_and_outlive_their_session() {
        let mut cache = FetchSessionCache::default();
        let id = cache.maybe_create(5, 1, 1000, &[fp(0, 0)], &[ok(0, 0)]);
        let mut clone = cache.clone();
        clone.record_fetch(id, 500);
        assert_eq!(clone.fetch_times().get(id), Some(500));
        assert_eq!(cache.fetch_times().get(id), Some(5), "the original is untouched");
        cache.remove(id);
        cache.record_fetch(id, 900);
        assert_eq!(cache.fetch_times().get(id), Some(5), "a removed session no longer fetches");
        cache.clear();
        assert_eq!(cache.fetch_times().get(id), None);
    }
}
