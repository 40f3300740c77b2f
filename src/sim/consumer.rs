//! The sans-IO consumer client: what the Java `KafkaConsumer` (classic) does to read a set of
//! topics, reduced to what matters for replication: it reads only below the HW, it feels
//! leader moves, and it detects truncation (KIP-320).
//!
//! One [`ConsumerClient`] plays the roles of several Java classes:
//! - `SubscriptionState` ([`position`]): per assigned partition a fetch state and a position
//!   (offset plus the leader epoch of the last record read).
//! - The assignment and the committed offsets come from one [`Membership`]: [`Standalone`]
//!   without a group (`assign()` of every partition of its topics), the group member with one.
//! - `Fetcher` / `AbstractFetch`: one Fetch per leader broker at a time, with replica id -1,
//!   `fetch.min.bytes`, `fetch.max.wait.ms` and `max.partition.fetch.bytes`; the leader
//!   parks it in its fetch purgatory and answers with records below its HW only (R3.8).
//! - `FetchCollector`: records move the position; NOT_LEADER_OR_FOLLOWER,
//!   FENCED_LEADER_EPOCH, UNKNOWN_TOPIC_OR_PARTITION and OFFSET_NOT_AVAILABLE ask for a
//!   metadata update; UNKNOWN_LEADER_EPOCH is retried as is; OFFSET_OUT_OF_RANGE resets by
//!   `auto.offset.reset` (`handleInitializeErrors`, `handleOffsetOutOfRange`).
//! - `OffsetFetcher`: ListOffsets (earliest or latest) for a reset, then OffsetsForLeaderEpoch
//!   to validate a position after every leader change (`OffsetsForLeaderEpochUtils`,
//!   `SubscriptionState.maybeCompleteValidation`): a position past the leader's end for the
//!   epoch of its last record is a truncation.
//! - `NetworkClient` with `ClusterConnectionStates` ([`ConnectionStates`]), as the producer.
//! - `ConsumerCoordinator.maybeAutoCommitOffsetsAsync`: every `auto.commit.interval.ms` with
//!   a group and `enable.auto.commit`, the positions go to [`Membership::commit`].
//!
//! - `KafkaConsumer.poll` / `FetchCollector.collectFetch`: a fetch response fills the
//!   partition's buffer; each poll returns at most `max.poll.records` records and moves the
//!   position past those only, so the auto-commit commits what the application was given.
//!
//! Simplifications (isrlab's, not Kafka's):
//! - The application does no work between polls: it polls again as soon as a poll returns,
//!   so a fetch of 1 200 records is returned by three polls (500, 500, 200) at the instant it
//!   arrives. Kafka has no poll cadence of its own: how often `poll()` is called is the
//!   application's loop (bounded only by `max.poll.interval.ms`), so isrlab adds none.
//! - Fetches are sessionless (Kafka's consumer uses incremental fetch sessions, KIP-227; a
//!   sessionless fetch lists every partition, which only costs bytes on the wire).
//! - Metadata comes from the controller's pushes, refreshed as the producer refreshes it.

pub mod membership;
pub mod metadata;
pub mod position;

use super::connections::ConnectionStates;
use super::events::EventKind;
use super::fetch_session::{FINAL_EPOCH, FetchMetadata, INVALID_SESSION_ID};
use super::protocol::{
    CONSUMER_REPLICA_ID, EpochRequest, EpochResponse, FetchPartition, FetchRequest, FetchResponse,
    FetchedPartition, ListOffsetsRequest, ListOffsetsResponse, Message, NodeId, OffsetSpec,
};
use super::{BrokerId, Epoch, Ms, Offset, Outbox, TopicPartition};
use crate::config::{AutoOffsetReset, ConsumerConfig, ProducerConfig};
use crate::kafka::errors::ErrorCode;
pub use membership::{Membership, OffsetAndEpoch, Standalone, Start};
use metadata::ClientMetadata;
use position::{Assigned, FetchState, Pending};
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// A fetch in flight to one broker: its correlation id, when the consumer gives up on it, and
/// the position each listed partition was fetched from.
#[derive(Clone, Debug)]
struct InFlightFetch {
    correlation_id: u64,
    timeout_at: Ms,
    offsets: BTreeMap<TopicPartition, Offset>,
}

/// A simulated Kafka consumer (see the module docs). Sans-IO: the runtime feeds it messages
/// and ticks and sends what it puts in the [`Outbox`].
#[derive(Clone, Debug)]
pub struct ConsumerClient {
    index: u32,
    topics: Vec<Arc<str>>,
    config: ConsumerConfig,
    membership: Box<dyn Membership>,
    metadata: ClientMetadata,
    conns: ConnectionStates,
    /// The common client network settings (`reconnect.backoff.*`,
    /// `socket.connection.setup.timeout.*`: `CommonClientConfigs`, the same defaults for
    /// consumers and producers), in the form [`ConnectionStates`] reads them.
    net: ProducerConfig,
    rng: ChaCha8Rng,
    assigned: BTreeMap<TopicPartition, Assigned>,
    fetches: BTreeMap<BrokerId, InFlightFetch>,
    next_correlation_id: u64,
    /// When the next auto-commit is due (ms), once the consumer has started.
    next_auto_commit: Option<Ms>,
    last_error: Option<(Ms, String)>,
    /// Closed by `close-consumer`: it reads and sends nothing more.
    closed: bool,
    /// Polls that returned records.
    polls: u64,
}

/// One assigned partition as the dashboard shows it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ConsumerPartitionView {
    /// The partition.
    pub tp: TopicPartition,
    /// The next offset it reads, once known.
    pub position: Option<Offset>,
    /// Its fetch state (`fetch`, `reset`, `validate`, `init`, `stopped`).
    pub state: &'static str,
    /// Records read from it.
    pub consumed: u64,
}

/// A consumer's state for the snapshot.
#[derive(Clone, PartialEq, Debug)]
pub struct ConsumerView {
    /// Index.
    pub index: u32,
    /// `group.id`, if any.
    pub group: Option<String>,
    /// Topics it reads.
    pub topics: Vec<String>,
    /// Its configuration.
    pub config: ConsumerConfig,
    /// Its assigned partitions, in order.
    pub partitions: Vec<ConsumerPartitionView>,
    /// Records read in all.
    pub consumed: u64,
    /// The latest error, with sim time.
    pub last_error: Option<(Ms, String)>,
    /// Its group membership, with a group.
    pub member: Option<crate::sim::group::membership::GroupMemberView>,
    /// Closed (`close-consumer`).
    pub closed: bool,
    /// Polls that returned records (each at most `max.poll.records`).
    pub polls: u64,
}

impl ConsumerClient {
    /// A consumer of `topics` with [`Standalone`] membership. `index` is its place in the
    /// scenario's consumer list (the [`NodeId::Consumer`] it answers to), `rng` its own seeded
    /// stream (reconnect jitter).
    pub fn new(index: u32, topics: Vec<Arc<str>>, config: ConsumerConfig, rng: ChaCha8Rng) -> Self {
        Self {
            index,
            metadata: ClientMetadata::new(&topics),
            topics,
            config,
            membership: Box::new(Standalone),
            conns: ConnectionStates::default(),
            net: ProducerConfig::default(),
            rng,
            assigned: BTreeMap::new(),
            fetches: BTreeMap::new(),
            next_correlation_id: 1,
            next_auto_commit: None,
            last_error: None,
            closed: false,
            polls: 0,
        }
    }

    /// Closes the consumer (`KafkaConsumer.close`): a group member commits (with auto-commit)
    /// and leaves its group; it fetches nothing more.
    pub fn close(&mut self, now: Ms, out: &mut Outbox) {
        if self.closed {
            return;
        }
        self.note_positions();
        self.membership.close(now, out);
        self.closed = true;
        self.assigned.clear();
        self.fetches.clear();
    }

    /// Whether it was closed.
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    fn note_positions(&mut self) {
        if self.membership.group().is_some() {
            let positions = self.positions();
            self.membership.note_positions(&positions);
        }
    }

    /// The same consumer with another membership (a group member).
    pub fn with_membership(mut self, membership: Box<dyn Membership>) -> Self {
        self.membership = membership;
        self
    }

    /// Its index.
    pub fn index(&self) -> u32 {
        self.index
    }

    /// The topics it reads.
    pub fn topics(&self) -> &[Arc<str>] {
        &self.topics
    }

    /// Its configuration.
    pub fn config(&self) -> &ConsumerConfig {
        &self.config
    }

    /// Its membership (the group member, or [`Standalone`]).
    pub fn membership(&self) -> &dyn Membership {
        self.membership.as_ref()
    }

    /// The position of each assigned partition that has one, for commits and the dashboard.
    pub fn positions(&self) -> Vec<(TopicPartition, OffsetAndEpoch)> {
        self.assigned.values().filter_map(|a| Some((a.tp.clone(), a.position?))).collect()
    }

    /// Handles a message from the network: metadata pushes, connection events, Fetch,
    /// ListOffsets and OffsetsForLeaderEpoch answers; anything else goes to the membership.
    /// Afterwards it does whatever is due at `now`, like [`Self::on_tick`].
    pub fn handle(&mut self, now: Ms, msg: Message, out: &mut Outbox) {
        if self.closed {
            return;
        }
        match msg {
            Message::Metadata(delta) => self.metadata.apply(&delta),
            Message::Connected { peer: NodeId::Broker(b) } => self.conns.ready(b),
            Message::Disconnected { peer: NodeId::Broker(b), correlation_id } => {
                self.on_disconnected(now, b, correlation_id);
                self.membership.on_disconnected(now, b, out);
            }
            Message::FetchResponse(resp) => self.on_fetch_response(now, resp, out),
            Message::ListOffsetsResponse(resp) => self.on_list_offsets(now, resp, out),
            Message::OffsetsForLeaderEpochResponse(resp) => self.on_epoch_end(now, resp, out),
            Message::TopicMetadataResponse { errors, .. } => {
                if let Some((topic, error)) = errors.first() {
                    let why = format!("{error} for topic {topic} in a Metadata answer");
                    self.last_error = Some((now, why));
                }
            }
            other => {
                if let Some(m) = self.membership.handle(now, other, out) {
                    tracing::error!(t = now, api = m.api_name(), "a consumer cannot handle this message");
                }
            }
        }
        self.run(now, out);
    }

    /// Does everything due at `now`: metadata refresh, timeouts, the assignment, resets and
    /// validations, fetches and the auto-commit.
    pub fn on_tick(&mut self, now: Ms, out: &mut Outbox) {
        self.run(now, out);
    }

    /// The earliest sim time (ms) at which [`Self::on_tick`] has something to do, or `None`.
    pub fn next_deadline(&self) -> Option<Ms> {
        if self.closed {
            return None;
        }
        let mut times: Vec<Ms> = Vec::new();
        times.extend(self.metadata.refresh_at(self.config.retry_backoff_ms));
        times.extend(self.metadata.topic_request_at(self.config.retry_backoff_ms));
        times.extend(self.fetches.values().map(|f| f.timeout_at));
        times.extend(self.conns.next_setup_timeout());
        times.extend(self.membership.next_deadline());
        if self.config.auto_commit_in_effect(self.membership.group()) {
            times.extend(self.next_auto_commit);
        }
        for a in self.assigned.values() {
            times.extend(a.pending.map(|p| p.timeout_at));
            if a.pending.is_none()
                && matches!(a.state, FetchState::AwaitReset(_) | FetchState::AwaitValidation)
            {
                times.extend(self.sendable_at(&a.tp, a.retry_at));
            }
        }
        for broker in self.fetch_leaders() {
            if !self.fetches.contains_key(&broker) {
                times.extend(self.broker_sendable_at(broker, 0));
            }
        }
        times.into_iter().min()
    }

    /// The consumer's state for the snapshot.
    pub fn view(&self) -> ConsumerView {
        ConsumerView {
            index: self.index,
            group: self.membership.group().map(str::to_string),
            topics: self.topics.iter().map(|t| t.to_string()).collect(),
            config: self.config.clone(),
            partitions: self
                .assigned
                .values()
                .map(|a| ConsumerPartitionView {
                    tp: a.tp.clone(),
                    position: a.position.map(|p| p.offset),
                    state: a.state.word(),
                    consumed: a.consumed,
                })
                .collect(),
            consumed: self.assigned.values().map(|a| a.consumed).sum(),
            last_error: self.last_error.clone(),
            member: self.membership.view(),
            closed: self.closed,
            polls: self.polls,
        }
    }

    /// Sends a Metadata request for the subscribed topics the metadata does not list, when
    /// due, allowing auto-creation as `allow.auto.create.topics` says.
    fn request_missing_topics(&mut self, now: Ms, out: &mut Outbox) {
        if self.metadata.topic_request_at(self.config.retry_backoff_ms).is_none_or(|t| t > now) {
            return;
        }
        let conns = &self.conns;
        let Some((broker, topics)) = self.metadata.take_topic_request(now, |b| conns.is_ready(b)) else {
            return;
        };
        let correlation_id = self.correlation();
        let allow_auto_topic_creation = self.config.allow_auto_create_topics;
        out.send(
            NodeId::Broker(broker),
            Message::TopicMetadata { correlation_id, topics, allow_auto_topic_creation },
        );
    }

    fn correlation(&mut self) -> u64 {
        let id = self.next_correlation_id;
        self.next_correlation_id += 1;
        id
    }

    fn run(&mut self, now: Ms, out: &mut Outbox) {
        if self.closed {
            return;
        }
        self.note_positions();
        self.membership.on_tick(now, out);
        if self.metadata.refresh_at(self.config.retry_backoff_ms).is_some_and(|t| t <= now) {
            let before = self.metadata.topics_known();
            for tp in self.metadata.refresh(now) {
                if let Some(a) = self.assigned.get_mut(&tp) {
                    a.leader_changed();
                }
            }
            let after = self.metadata.topics_known();
            for topic in before.difference(&after) {
                let partitions = self.assigned.keys().filter(|tp| tp.topic == *topic).map(|tp| tp.partition);
                let partitions = partitions.collect();
                out.emit(EventKind::ConsumerTopicGone {
                    consumer: self.index,
                    topic: topic.clone(),
                    partitions,
                });
            }
        }
        self.request_missing_topics(now, out);
        self.time_out(now);
        self.sync_assignment();
        self.start_partitions(now, out);
        self.send_offset_requests(now, out);
        // `KafkaConsumer.poll`: the coordinator's auto-commit of what earlier polls returned,
        // then the records; then the fetches for the partitions whose buffer emptied.
        self.maybe_auto_commit(now, out);
        self.poll_records(out);
        self.send_fetches(now, out);
    }

    /// The application's polls (see the module docs): until the buffers are empty, each poll
    /// returns at most `max.poll.records` records, partition by partition in order
    /// (`FetchCollector.collectFetch`).
    fn poll_records(&mut self, out: &mut Outbox) {
        let max = u64::from(self.config.max_poll_records.max(1));
        while self.assigned.values().any(|a| !a.buffered.is_empty()) {
            let mut left = max;
            for a in self.assigned.values_mut() {
                if left == 0 {
                    break;
                }
                let seen = a.take_records(self.index, left);
                left -= seen.iter().map(|s| s.values.len() as u64).sum::<u64>();
                out.seen.extend(seen);
            }
            if left < max {
                self.polls += 1;
            }
        }
    }

    /// Connection attempts and requests that took too long: the connection is closed and
    /// what was in flight on it fails (`NetworkClient.handleTimedOutRequests`).
    fn time_out(&mut self, now: Ms) {
        for broker in self.conns.timed_out_attempts(now) {
            self.conns.disconnected(broker, now, true, &self.net, &mut self.rng);
            self.metadata.want_refresh();
        }
        let late: BTreeSet<BrokerId> = self
            .fetches
            .iter()
            .filter(|(_, f)| f.timeout_at <= now)
            .map(|(&b, _)| b)
            .chain(
                self.assigned
                    .values()
                    .filter_map(|a| a.pending.filter(|p| p.timeout_at <= now).map(|p| p.broker)),
            )
            .collect();
        for broker in late {
            self.close_connection(now, broker, "a request got no answer within request.timeout.ms");
        }
    }

    /// The connection to `broker` was refused or lost, or a request on it was.
    fn on_disconnected(&mut self, now: Ms, broker: BrokerId, correlation_id: u64) {
        if self.conns.is_ready(broker) || correlation_id == 0 {
            self.close_connection(now, broker, "the connection was lost");
            return;
        }
        self.fetches.retain(|_, f| f.correlation_id != correlation_id);
        for a in self.assigned.values_mut() {
            if a.pending.is_some_and(|p| p.correlation_id == correlation_id) {
                a.pending = None;
            }
        }
        self.metadata.want_refresh();
    }

    /// Marks the connection to `broker` lost: what was in flight on it is dropped (to be sent
    /// again) and a metadata update is asked for (`DefaultMetadataUpdater.handleServerDisconnect`).
    fn close_connection(&mut self, now: Ms, broker: BrokerId, why: &str) {
        self.conns.disconnected(broker, now, false, &self.net, &mut self.rng);
        self.fetches.remove(&broker);
        for a in self.assigned.values_mut() {
            if a.pending.is_some_and(|p| p.broker == broker) {
                a.pending = None;
            }
        }
        self.metadata.want_refresh();
        self.last_error = Some((now, format!("Disconnected from node {broker}: {why}")));
    }

    /// Takes the membership's assignment: new partitions start initializing, revoked ones go.
    fn sync_assignment(&mut self) {
        let subscribed = self.metadata.partitions();
        if self.membership.group().is_some() {
            let leaders: BTreeSet<BrokerId> =
                subscribed.iter().filter_map(|tp| self.metadata.leader(tp).and_then(|(l, _)| l)).collect();
            self.membership.on_metadata(&subscribed, &leaders.into_iter().collect::<Vec<_>>());
        }
        let Some(owned) = self.membership.assignment(&subscribed) else { return };
        let owned: BTreeSet<TopicPartition> = owned.into_iter().collect();
        self.assigned.retain(|tp, _| owned.contains(tp));
        for tp in owned {
            self.assigned.entry(tp.clone()).or_insert_with(|| Assigned::new(tp));
        }
    }

    /// Newly assigned partitions learn where they start (`Membership::start`).
    fn start_partitions(&mut self, now: Ms, out: &mut Outbox) {
        if self.next_auto_commit.is_none() {
            self.next_auto_commit = Some(now + self.config.auto_commit_interval_ms);
        }
        for a in self.assigned.values_mut().filter(|a| a.state == FetchState::Initializing) {
            match self.membership.start(&a.tp) {
                Start::Pending => {}
                Start::Reset => a.state = FetchState::AwaitReset("it has no position yet".into()),
                Start::At(position) => a.seek_unvalidated(position),
            }
        }
        let policy = self.config.auto_offset_reset;
        for a in self.assigned.values_mut() {
            if policy == AutoOffsetReset::None
                && let FetchState::AwaitReset(why) = &a.state
            {
                let error = format!("NoOffsetForPartitionException: no reset policy for {} ({why})", a.tp);
                out.emit(a.stop(self.index, error));
            }
        }
    }

    /// The leader of `tp` if the consumer knows one, with the epoch it routes by.
    fn leader(&self, tp: &TopicPartition) -> Option<(BrokerId, Epoch)> {
        let (leader, epoch) = self.metadata.leader(tp)?;
        Some((leader?, epoch))
    }

    /// When a request to `tp`'s leader can go, not before `not_before`: `None` while the
    /// leader is unknown or a connection attempt is under way.
    fn sendable_at(&self, tp: &TopicPartition, not_before: Ms) -> Option<Ms> {
        let (leader, _) = self.leader(tp)?;
        self.broker_sendable_at(leader, not_before)
    }

    fn broker_sendable_at(&self, broker: BrokerId, not_before: Ms) -> Option<Ms> {
        self.conns.sendable_at(broker, not_before)
    }

    /// Whether `broker` can take a request now (Java `NetworkClient.ready`); if not and its
    /// reconnect backoff has passed, a connection attempt starts.
    fn ready(&mut self, now: Ms, broker: BrokerId, out: &mut Outbox) -> bool {
        self.conns.ready_or_connect(broker, now, &self.net, &mut self.rng, out)
    }

    /// ListOffsets for partitions to reset, OffsetsForLeaderEpoch for positions to validate.
    fn send_offset_requests(&mut self, now: Ms, out: &mut Outbox) {
        let waiting: Vec<TopicPartition> = self
            .assigned
            .values()
            .filter(|a| a.pending.is_none() && a.retry_at <= now)
            .filter(|a| matches!(a.state, FetchState::AwaitReset(_) | FetchState::AwaitValidation))
            .map(|a| a.tp.clone())
            .collect();
        for tp in waiting {
            let Some((leader, epoch)) = self.leader(&tp) else { continue };
            if !self.ready(now, leader, out) {
                continue;
            }
            let correlation_id = self.correlation();
            let timeout_at = now + self.config.request_timeout_ms;
            let Some(a) = self.assigned.get_mut(&tp) else { continue };
            let msg = match (&a.state, a.position.and_then(|p| p.leader_epoch)) {
                (FetchState::AwaitReset(_), _) => {
                    let spec = match self.config.auto_offset_reset {
                        AutoOffsetReset::Earliest => OffsetSpec::Earliest,
                        _ => OffsetSpec::Latest,
                    };
                    Message::ListOffsets(ListOffsetsRequest {
                        correlation_id,
                        tp,
                        current_leader_epoch: epoch,
                        spec,
                    })
                }
                (_, Some(leader_epoch)) => Message::OffsetsForLeaderEpoch(EpochRequest {
                    correlation_id,
                    tp,
                    current_leader_epoch: epoch,
                    leader_epoch,
                }),
                (_, None) => {
                    a.state = FetchState::Fetching;
                    continue;
                }
            };
            a.pending = Some(Pending { correlation_id, broker: leader, timeout_at });
            out.send(NodeId::Broker(leader), msg);
        }
    }

    /// Leaders of the partitions ready to fetch.
    fn fetch_leaders(&self) -> BTreeSet<BrokerId> {
        self.fetchable().filter_map(|a| self.leader(&a.tp)).map(|(l, _)| l).collect()
    }

    /// Partitions a fetch may name: fetching, with a position, and nothing left in the buffer
    /// (`AbstractFetch.fetchablePartitions`).
    fn fetchable(&self) -> impl Iterator<Item = &Assigned> {
        self.assigned
            .values()
            .filter(|a| a.state == FetchState::Fetching && a.position.is_some() && a.buffered.is_empty())
    }

    /// One Fetch per leader with no fetch in flight, listing every fetchable partition it
    /// leads (`AbstractFetch.prepareFetchRequests`).
    fn send_fetches(&mut self, now: Ms, out: &mut Outbox) {
        let mut by_leader: BTreeMap<BrokerId, Vec<FetchPartition>> = BTreeMap::new();
        for a in self.fetchable() {
            let (Some((leader, epoch)), Some(pos)) = (self.leader(&a.tp), a.position) else { continue };
            by_leader.entry(leader).or_default().push(FetchPartition {
                tp: a.tp.clone(),
                topic_id: crate::sim::TopicId::ZERO,
                current_leader_epoch: epoch,
                fetch_offset: pos.offset,
                last_fetched_epoch: None,
                log_start_offset: -1,
            });
        }
        for (leader, partitions) in by_leader {
            if self.fetches.contains_key(&leader) || !self.ready(now, leader, out) {
                continue;
            }
            let correlation_id = self.correlation();
            let offsets = partitions.iter().map(|p| (p.tp.clone(), p.fetch_offset)).collect();
            let timeout_at = now + self.config.request_timeout_ms + self.config.fetch_max_wait_ms;
            self.fetches.insert(leader, InFlightFetch { correlation_id, timeout_at, offsets });
            out.send(
                NodeId::Broker(leader),
                Message::Fetch(FetchRequest {
                    correlation_id,
                    replica: CONSUMER_REPLICA_ID,
                    broker_epoch: -1,
                    max_wait_ms: self.config.fetch_max_wait_ms,
                    min_bytes: self.config.fetch_min_bytes,
                    partition_max_bytes: self.config.max_partition_fetch_bytes,
                    max_bytes: self.config.fetch_max_bytes,
                    session: FetchMetadata { session_id: INVALID_SESSION_ID, epoch: FINAL_EPOCH },
                    partitions,
                    forgotten: Vec::new(),
                }),
            );
        }
    }

    fn on_fetch_response(&mut self, now: Ms, resp: FetchResponse, out: &mut Outbox) {
        let Some(f) = self.fetches.get(&resp.leader).filter(|f| f.correlation_id == resp.correlation_id)
        else {
            return;
        };
        let offsets = f.offsets.clone();
        self.fetches.remove(&resp.leader);
        for p in resp.partitions {
            if let Some(&offset) = offsets.get(&p.tp) {
                self.on_fetched(now, offset, p, out);
            }
        }
    }

    /// One partition of a fetch response (`FetchCollector.initialize`), applied only if the
    /// position is still the one fetched from.
    fn on_fetched(&mut self, now: Ms, offset: Offset, p: FetchedPartition, out: &mut Outbox) {
        let (index, policy) = (self.index, self.config.auto_offset_reset);
        let Some(a) = self.assigned.get_mut(&p.tp) else { return };
        if a.state != FetchState::Fetching || a.position.map(|p| p.offset) != Some(offset) {
            return;
        }
        match p.result {
            Ok(data) => {
                a.high_watermark = Some(data.high_watermark);
                a.buffer(data.batches);
            }
            Err(ErrorCode::OffsetOutOfRange) => out.events.extend(a.out_of_range(index, policy)),
            Err(ErrorCode::UnknownLeaderEpoch) => {}
            Err(e) => self.note_error(now, e, format!("fetching {}", p.tp)),
        }
    }

    /// A ListOffsets answer (`OffsetFetcher.resetPositionsIfNeeded`): the partition seeks to
    /// it; an error asks for fresh metadata and retries after `retry.backoff.ms`.
    fn on_list_offsets(&mut self, now: Ms, resp: ListOffsetsResponse, out: &mut Outbox) {
        let (index, policy) = (self.index, self.config.auto_offset_reset);
        let Some(a) = self.answered(&resp.tp, resp.correlation_id) else { return };
        match resp.result {
            Ok((offset, epoch)) if matches!(a.state, FetchState::AwaitReset(_)) => {
                out.emit(a.reset_to(index, policy, offset, epoch));
            }
            Ok(_) => {}
            Err(e) => self.offset_request_failed(now, &resp.tp, e, "listing offsets of"),
        }
    }

    /// An OffsetsForLeaderEpoch answer: the KIP-320 check of the position
    /// ([`Assigned::validated`]); an error retries after `retry.backoff.ms`.
    fn on_epoch_end(&mut self, now: Ms, resp: EpochResponse, out: &mut Outbox) {
        let (index, policy) = (self.index, self.config.auto_offset_reset);
        let Some(a) = self.answered(&resp.tp, resp.correlation_id) else { return };
        match resp.result {
            Ok(end) if a.state == FetchState::AwaitValidation => {
                out.events.extend(a.validated(index, end, policy))
            }
            Ok(_) => {}
            Err(e) => self.offset_request_failed(now, &resp.tp, e, "validating the position on"),
        }
    }

    /// An error that says the metadata is stale: noted, and a refresh asked for.
    fn note_error(&mut self, now: Ms, error: ErrorCode, what: String) {
        self.last_error = Some((now, format!("{error} {what}")));
        self.metadata.want_refresh();
    }

    /// An offset request for `tp` failed: it is sent again after `retry.backoff.ms`
    /// (`SubscriptionState.requestFailed`), with fresh metadata.
    fn offset_request_failed(&mut self, now: Ms, tp: &TopicPartition, error: ErrorCode, what: &str) {
        if let Some(a) = self.assigned.get_mut(tp) {
            a.retry_at = now + self.config.retry_backoff_ms;
        }
        self.note_error(now, error, format!("{what} {tp}"));
    }

    /// The assigned partition whose offset request `correlation_id` answers, its request
    /// cleared; `None` for a stale answer.
    fn answered(&mut self, tp: &TopicPartition, correlation_id: u64) -> Option<&mut Assigned> {
        let a = self.assigned.get_mut(tp)?;
        if a.pending.is_none_or(|p| p.correlation_id != correlation_id) {
            return None;
        }
        a.pending = None;
        Some(a)
    }

    /// Commits the positions every `auto.commit.interval.ms` when auto-commit is in effect.
    fn maybe_auto_commit(&mut self, now: Ms, out: &mut Outbox) {
        if !self.config.auto_commit_in_effect(self.membership.group()) {
            return;
        }
        let Some(due) = self.next_auto_commit.filter(|&t| t <= now) else { return };
        self.next_auto_commit = Some(due.max(now) + self.config.auto_commit_interval_ms.max(1));
        let positions = self.positions();
        if !positions.is_empty() {
            self.membership.commit(now, &positions, out);
        }
    }
}

#[cfg(test)]
mod tests;
