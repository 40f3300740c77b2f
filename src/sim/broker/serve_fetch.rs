//! The leader side of fetches (R2.4, R2.6, R3.8, KIP-227): Kafka's `KafkaApis.handleFetchRequest`
//! with `FetchManager.newContext`, `ReplicaManager.fetchMessages` and the fetch purgatory
//! (`DelayedFetch`). A fetch costs the partitions it lists plus those of its session that
//! changed since; idle ones are not read. A consumer's fetch (replica id
//! [`CONSUMER_REPLICA_ID`]) goes the same way, parked by the same purgatory, but reads only
//! below the HW (`FetchIsolation.HIGH_WATERMARK`), records no follower state and is never
//! throttled (the replication quotas apply to follower fetches only).

use super::{Broker, ParkKey, ParkedFetch};
use crate::kafka::errors::ErrorCode;
use crate::sim::events::EventKind;
use crate::sim::fetch_session::{FetchContext, INVALID_SESSION_ID};
use crate::sim::protocol::{
    CONSUMER_REPLICA_ID, FetchPartition, FetchRequest, FetchResponse, FetchedData, FetchedPartition, Message,
    NodeId,
};
use crate::sim::{BrokerId, Ms, Outbox, TopicId, TopicIdPartition};

/// Whether a partition's result lets a fetch answer at once whatever its size: a diverging
/// epoch, an error, or a log start beyond the fetch offset (`DelayedFetch.tryComplete`).
fn has_news(fp: &FetchPartition, result: &Result<FetchedData, ErrorCode>) -> bool {
    match result {
        Ok(d) => d.diverging_epoch.is_some() || d.log_start_offset > fp.fetch_offset,
        Err(_) => true,
    }
}

/// Bytes of records a partition's result carries, towards the fetch's `min_bytes`.
fn record_bytes(result: &Result<FetchedData, ErrorCode>) -> u64 {
    result.as_ref().map_or(0, |d| d.batches.iter().map(|b| u64::from(b.size_bytes)).sum())
}

/// Whether a fetch with these results answers at once: its wait is 0, it lists nothing,
/// a partition has news, or its records reach `min_bytes` (`DelayedFetch.tryComplete`,
/// `ReplicaManager.fetchMessages`: `bytesReadable >= params.minBytes`).
fn answers_now(req: &FetchRequest, listed: &[FetchPartition], results: &[FetchedPartition]) -> bool {
    let news = listed.iter().zip(results).any(|(fp, r)| has_news(fp, &r.result));
    let bytes: u64 = results.iter().map(|r| record_bytes(&r.result)).sum();
    req.max_wait_ms == 0 || news || bytes >= req.min_bytes.max(1)
}

impl Broker {
    /// A Fetch from a follower or a consumer (`from`): its session decides what to read
    /// (`FetchManager.newContext`); the answer goes at once if enough is ready, else the fetch
    /// is parked for its `max_wait_ms`.
    pub(super) fn on_fetch(&mut self, now: Ms, from: NodeId, req: FetchRequest, out: &mut Outbox) {
        let (context, added) =
            self.purgatory.sessions.new_context(now, req.session, &req.partitions, &req.forgotten);
        if !added.is_empty()
            && let FetchContext::Incremental(session_id) = context
        {
            out.emit(EventKind::FetchSessionPartitionsAdded {
                leader: self.id,
                follower: req.replica,
                session_id,
                added,
            });
        }
        match context {
            FetchContext::Error(error) => {
                self.send_fetch_response(now, from, &req, Some(error), 0, Vec::new(), out)
            }
            FetchContext::Incremental(id) => self.serve_incremental(now, from, id, req, out),
            FetchContext::Full | FetchContext::Sessionless => self.serve_listed(now, from, req, context, out),
        }
    }

    /// Whether `req` comes from an earlier incarnation of its broker (KIP-903): every
    /// partition answers NOT_LEADER_OR_FOLLOWER and nothing is recorded.
    fn is_stale_incarnation(&self, req: &FetchRequest) -> bool {
        self.brokers.get(&req.replica).is_some_and(|reg| reg.broker_epoch > req.broker_epoch)
    }

    /// Kafka's topic id checks on one partition of a fetch. An id this broker's metadata does
    /// not know is UNKNOWN_TOPIC_ID: `KafkaApis.handleFetchRequest` resolves each id to a
    /// name first and answers so for the ids that resolve to none (the topic was deleted,
    /// perhaps created again under its name with a new id). A known id that is not the one of
    /// this broker's log of the partition is INCONSISTENT_TOPIC_ID
    /// (`ReplicaManager.readFromLog`, `hasConsistentTopicId`). A fetch without an id
    /// ([`TopicId::ZERO`], a consumer's, as Fetch v12 names topics) is not checked. The usual
    /// case costs one integer compare: the log is there with the fetch's id.
    fn check_topic_id(&self, fp: &FetchPartition) -> Result<(), ErrorCode> {
        if fp.topic_id == TopicId::ZERO {
            return Ok(());
        }
        match self.partitions.get(&fp.tp) {
            Some(p) if p.topic_id == fp.topic_id => Ok(()),
            _ if !self.topic_names.contains_key(&fp.topic_id) => Err(ErrorCode::UnknownTopicId),
            Some(_) => Err(ErrorCode::InconsistentTopicId),
            None => Ok(()),
        }
    }

    /// Reads one partition for a follower fetch (R2.6–R2.8, R7.6), without the records the
    /// leader replication throttle holds back ([`super::throttle`]).
    fn read_for_follower(
        &mut self,
        now: Ms,
        req: &FetchRequest,
        fp: &FetchPartition,
        stale: bool,
        out: &mut Outbox,
    ) -> FetchedPartition {
        let _span = tracing::trace_span!("partition", tp = %fp.tp).entered();
        let (replica, epoch) = (req.replica, req.broker_epoch);
        if replica == CONSUMER_REPLICA_ID {
            return self.read_for_consumer(req, fp);
        }
        if let Err(e) = self.check_topic_id(fp) {
            return FetchedPartition { tp: fp.tp.clone(), topic_id: fp.topic_id, result: Err(e) };
        }
        let result = match stale {
            true => None,
            false => self.touch(now, &fp.tp, |p, ctx| p.on_follower_fetch(ctx, replica, epoch, fp, out)),
        };
        let mut fetched = FetchedPartition {
            tp: fp.tp.clone(),
            topic_id: fp.topic_id,
            result: result.unwrap_or(Err(ErrorCode::NotLeaderOrFollower)),
        };
        self.throttle_read(now, replica, &mut fetched);
        fetched
    }

    /// A consumer's read of one partition: records below the HW only (R3.8,
    /// `Partition.fetchRecords` with `FetchIsolation.HIGH_WATERMARK`).
    fn read_for_consumer(&self, req: &FetchRequest, fp: &FetchPartition) -> FetchedPartition {
        let result = self.check_topic_id(fp).and_then(|()| match self.partitions.get(&fp.tp) {
            Some(p) => p.read_for_consumer(fp, req.partition_max_bytes),
            None => Err(ErrorCode::NotLeaderOrFollower),
        });
        FetchedPartition { tp: fp.tp.clone(), topic_id: fp.topic_id, result }
    }

    /// A full or sessionless fetch: every listed partition is read and answered.
    fn serve_listed(
        &mut self,
        now: Ms,
        from: NodeId,
        req: FetchRequest,
        context: FetchContext,
        out: &mut Outbox,
    ) {
        let stale = self.is_stale_incarnation(&req);
        let mut results = Vec::with_capacity(req.partitions.len());
        for fp in &req.partitions {
            results.push(self.read_for_follower(now, &req, fp, stale, out));
        }
        if req.partitions.is_empty() || answers_now(&req, &req.partitions, &results) {
            return self.respond_listed(now, from, &req, context, results, out);
        }
        let key = (from, req.correlation_id);
        for (i, fp) in req.partitions.iter().enumerate() {
            self.purgatory.by_partition.entry(fp.tp.clone()).or_default().insert((key, i));
        }
        self.park(now, key, req, context);
    }

    /// Answers a full or sessionless fetch with `results`; a full one also tries to cache the
    /// session (`FullFetchContext.updateAndGenerateResponseData`).
    fn respond_listed(
        &mut self,
        now: Ms,
        to: NodeId,
        req: &FetchRequest,
        context: FetchContext,
        results: Vec<FetchedPartition>,
        out: &mut Outbox,
    ) {
        let mut session_id = INVALID_SESSION_ID;
        if context == FetchContext::Full && req.replica != CONSUMER_REPLICA_ID {
            let slots = self.config.max_incremental_fetch_session_cache_slots as usize;
            session_id =
                self.purgatory.sessions.maybe_create(now, req.replica, slots, &req.partitions, &results);
            if session_id != INVALID_SESSION_ID {
                let partitions = req.partitions.len();
                out.emit(EventKind::FetchSessionCreated {
                    leader: self.id,
                    follower: req.replica,
                    session_id,
                    partitions,
                });
            }
        }
        self.send_fetch_response(now, to, req, None, session_id, results, out);
    }

    /// An incremental fetch: reads the session's pending partitions (those listed, changed on
    /// this broker, or not idle); partitions found idle leave the pending set and cost
    /// nothing until they change.
    fn serve_incremental(&mut self, now: Ms, from: NodeId, id: u32, req: FetchRequest, out: &mut Outbox) {
        let stale = self.is_stale_incarnation(&req);
        let pending = self.session_requests(id);
        let mut results = Vec::with_capacity(pending.len());
        for fp in &pending {
            let r = self.read_for_follower(now, &req, fp, stale, out);
            if !stale {
                self.maybe_idle(id, req.replica, fp, &r);
            }
            results.push(r);
        }
        if !stale {
            self.purgatory.sessions.record_fetch(id, now);
        }
        if answers_now(&req, &pending, &results) {
            return self.respond_incremental(now, from, &req, id, results, out);
        }
        let key = (from, req.correlation_id);
        self.purgatory.by_session.insert(id, key);
        self.park(now, key, req, FetchContext::Incremental(id));
    }

    /// The request data the session caches for its pending partitions.
    fn session_requests(&self, id: u32) -> Vec<FetchPartition> {
        let Some(s) = self.purgatory.sessions.get(id) else { return Vec::new() };
        s.pending.iter().filter_map(|key| s.partitions.get(key)).map(|c| c.request.clone()).collect()
    }

    /// A partition read with nothing to say whose follower is caught up and in the ISR
    /// leaves the session's pending set.
    fn maybe_idle(&mut self, id: u32, replica: BrokerId, fp: &FetchPartition, r: &FetchedPartition) {
        let Some(s) = self.purgatory.sessions.get_mut(id) else { return };
        let quiet = s.partitions.get(&fp.key()).is_some_and(|c| !c.would_respond(r));
        if quiet
            && let Some(p) = self.partitions.get_mut(&fp.tp)
            && p.mark_idle_in_session(replica, fp, id)
        {
            s.pending.remove(&fp.key());
            self.view_marks.mark(&fp.tp);
        }
    }

    /// Answers an incremental fetch with the partitions of `results` that have something to
    /// say (`IncrementalFetchContext.updateAndGenerateResponseData`).
    fn respond_incremental(
        &mut self,
        now: Ms,
        to: NodeId,
        req: &FetchRequest,
        id: u32,
        results: Vec<FetchedPartition>,
        out: &mut Outbox,
    ) {
        let Some(s) = self.purgatory.sessions.get_mut(id) else {
            return self.send_fetch_response(
                now,
                to,
                req,
                Some(ErrorCode::FetchSessionIdNotFound),
                0,
                Vec::new(),
                out,
            );
        };
        let included = results
            .into_iter()
            .filter(|r| s.partitions.get_mut(&r.key()).is_some_and(|c| c.must_respond(r)))
            .collect();
        self.send_fetch_response(now, to, req, None, id, included, out);
    }

    /// Sends the answer to `to`, recording the bytes of its leader-throttled partitions (a
    /// follower's only: `KafkaApis` records them when `fetchRequest.isFromFollower`).
    #[allow(clippy::too_many_arguments)]
    fn send_fetch_response(
        &mut self,
        now: Ms,
        to: NodeId,
        req: &FetchRequest,
        error: Option<ErrorCode>,
        session_id: u32,
        partitions: Vec<FetchedPartition>,
        out: &mut Outbox,
    ) {
        if req.replica != CONSUMER_REPLICA_ID {
            self.record_leader_throttled(now, &partitions);
        }
        let resp = FetchResponse {
            correlation_id: req.correlation_id,
            leader: self.id,
            error,
            session_id,
            partitions,
        };
        out.send(to, Message::FetchResponse(resp));
    }

    fn park(&mut self, now: Ms, key: ParkKey, request: FetchRequest, context: FetchContext) {
        let deadline = now + request.max_wait_ms;
        self.purgatory.deadlines.insert((deadline, key));
        self.purgatory.parked.insert(key, ParkedFetch { request, deadline, context });
    }

    /// Completes a parked fetch: reads again what it waits on (`DelayedFetch.onComplete`).
    fn complete_parked(&mut self, now: Ms, key: ParkKey, out: &mut Outbox) {
        let Some(pf) = self.purgatory.parked.remove(&key) else { return };
        self.purgatory.deadlines.remove(&(pf.deadline, key));
        let replica = pf.request.replica;
        let to = key.0;
        let read = |b: &mut Self, fp: &FetchPartition| {
            if replica == CONSUMER_REPLICA_ID {
                return b.read_for_consumer(&pf.request, fp);
            }
            let result = b
                .check_topic_id(fp)
                .and_then(|()| b.partitions.get(&fp.tp).ok_or(ErrorCode::NotLeaderOrFollower));
            let mut r = match result {
                Ok(p) => p.read_for_parked(&b.ctx_for(now, &fp.tp), replica, fp),
                Err(e) => FetchedPartition { tp: fp.tp.clone(), topic_id: fp.topic_id, result: Err(e) },
            };
            b.throttle_read(now, replica, &mut r);
            r
        };
        if let FetchContext::Incremental(id) = pf.context {
            self.purgatory.by_session.remove(&id);
            let results = self.session_requests(id).iter().map(|fp| read(self, fp)).collect();
            return self.respond_incremental(now, to, &pf.request, id, results, out);
        }
        for (i, fp) in pf.request.partitions.iter().enumerate() {
            if let Some(keys) = self.purgatory.by_partition.get_mut(&fp.tp) {
                keys.remove(&(key, i));
                if keys.is_empty() {
                    self.purgatory.by_partition.remove(&fp.tp);
                }
            }
        }
        let results = pf.request.partitions.iter().map(|fp| read(self, fp)).collect();
        self.respond_listed(now, to, &pf.request, pf.context, results, out);
    }

    /// Completes the parked fetches whose wait ran out.
    pub(super) fn expire_parked(&mut self, now: Ms, out: &mut Outbox) {
        while let Some(&(due, key)) = self.purgatory.deadlines.first()
            && due <= now
        {
            self.complete_parked(now, key, out);
        }
    }

    /// Follows up on the partitions changed since the last call: the sessions that hold one
    /// look at it on their next fetch, and parked fetches that it lets complete (new data, or
    /// this replica stopped leading: `ReplicaManager.tryCompleteDelayedFetch` on the
    /// partition's key) are answered.
    pub(super) fn process_changes(&mut self, now: Ms, out: &mut Outbox) {
        let changed = std::mem::take(&mut self.purgatory.changed);
        let mut ready = std::collections::BTreeSet::new();
        for (tp, &topic_id) in &changed {
            let key = TopicIdPartition { topic_id, partition: tp.partition };
            let ids: Vec<u32> = self.purgatory.sessions.sessions_with(key).collect();
            for id in ids {
                let Some(s) = self.purgatory.sessions.get_mut(id) else { continue };
                s.pending.insert(key);
                let fp = s.partitions.get(&key).map(|c| c.request.clone());
                if let (Some(&key), Some(fp)) = (self.purgatory.by_session.get(&id), fp)
                    && self.parked_fetch_ready(now, key, &fp)
                {
                    ready.insert(key);
                }
            }
            let listed: Vec<(ParkKey, FetchPartition)> = self
                .purgatory
                .by_partition
                .get(tp)
                .into_iter()
                .flatten()
                .filter_map(|&(key, i)| {
                    Some((key, self.purgatory.parked.get(&key)?.request.partitions.get(i)?.clone()))
                })
                .collect();
            for (key, fp) in listed {
                if self.parked_fetch_ready(now, key, &fp) {
                    ready.insert(key);
                }
            }
        }
        for key in ready {
            self.complete_parked(now, key, out);
        }
    }

    /// Whether the parked fetch `key` may complete now that its partition `fp` changed. A
    /// follower's: `fp` moved or has records it may take ([`Broker::parked_partition_ready`]).
    /// A consumer's: `fp` moved, or every partition it lists together holds at least its
    /// `min_bytes` below the HW (`DelayedFetch.tryComplete` sums the bytes of all of them).
    fn parked_fetch_ready(&mut self, now: Ms, key: ParkKey, fp: &FetchPartition) -> bool {
        let Some(pf) = self.purgatory.parked.get(&key) else { return false };
        if pf.request.replica != CONSUMER_REPLICA_ID {
            let replica = pf.request.replica;
            return self.parked_partition_ready(now, replica, fp);
        }
        let moved = self.partitions.get(&fp.tp).is_none_or(|p| !p.leads_in(fp.current_leader_epoch));
        if moved {
            return true;
        }
        let req = &pf.request;
        let results: Vec<FetchedPartition> =
            req.partitions.iter().map(|p| self.read_for_consumer(req, p)).collect();
        answers_now(req, &req.partitions, &results)
    }
}
