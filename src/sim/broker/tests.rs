use super::*;
use crate::sim::fetch_session::FetchMetadata;
use crate::sim::protocol::{FetchPartition, PartitionState};

fn registrations(out: &Outbox) -> usize {
    out.sends.iter().filter(|(_, m)| matches!(m, Message::RegisterBroker { .. })).count()
}

fn state(partition: u32, isr: &[BrokerId], leader: Option<BrokerId>, epochs: (i32, i32)) -> PartitionState {
    PartitionState {
        topic_id: crate::sim::TopicId::from_bits(7),
        tp: TopicPartition::new("foo", partition),
        replicas: vec![0, 1],
        isr: isr.to_vec(),
        leader,
        leader_epoch: epochs.0,
        partition_epoch: epochs.1,
        leader_recovery: crate::sim::protocol::LeaderRecoveryState::Recovered,
        adding: Vec::new(),
        removing: Vec::new(),
        elr: Vec::new(),
        last_known_elr: Vec::new(),
    }
}

/// Kafka's `ReplicaManagerTest.testReplicasAreStoppedWhileInControlledShutdownWithKRaft`,
/// in our words: broker 0 follows foo-0 (in the ISR), leads foo-1 alone and follows foo-2
/// (outside the ISR). It begins a controlled shutdown; the controller takes it out of
/// foo-0's ISR and leaves foo-1 without a leader, and does not touch foo-2. The fetchers of
/// foo-0 and foo-1 stop; foo-2, whose state did not change, keeps fetching.
#[test]
fn controlled_shutdown_stops_the_fetchers_of_partitions_it_left() {
    let mut b = Broker::new(0, BrokerConfig::default());
    let image = MetadataDelta {
        brokers: vec![reg(0), reg(1)],
        partitions: vec![
            state(0, &[0, 1], Some(1), (0, 0)),
            state(1, &[0], Some(0), (0, 0)),
            state(2, &[1], Some(1), (0, 0)),
        ],
        ..Default::default()
    };
    b.start_bootstrapped(0, 1, &image, &mut Outbox::default());
    let foo = |p| TopicPartition::new("foo", p);
    b.begin_controlled_shutdown(100, &mut Outbox::default()).unwrap();
    let delta = MetadataDelta {
        partitions: vec![state(0, &[1], Some(1), (0, 1)), state(1, &[0], None, (1, 1))],
        ..Default::default()
    };
    let mut out = Outbox::default();
    b.handle(200, NodeId::Controller(3000), Message::Metadata(delta), &mut out);
    let stopped: Vec<u32> = out
        .events
        .iter()
        .filter_map(|e| match e {
            EventKind::FollowerStopped { broker: 0, tp, .. } => Some(tp.partition),
            _ => None,
        })
        .collect();
    assert_eq!(stopped, vec![0, 1]);
    for (p, fetching) in [(0, false), (1, false), (2, true)] {
        let part = b.partition(&foo(p)).unwrap();
        assert_eq!(part.fetch_request(300).is_some(), fetching, "foo-{p}");
        assert_eq!(part.fetch_stopped(), !fetching, "foo-{p}");
    }
    // A restart starts every fetcher again.
    b.crash(400);
    b.start(500, &mut Outbox::default());
    assert!(!b.partition(&foo(0)).unwrap().fetch_stopped());
}

fn reg(id: BrokerId) -> BrokerRegistration {
    BrokerRegistration { id, broker_epoch: 1, fenced: false, in_controlled_shutdown: false }
}

/// Leader 0 and follower 1 of foo-0 and foo-1, both in the ISR.
fn leader_and_follower() -> (Broker, Broker, MetadataDelta) {
    let image = MetadataDelta {
        brokers: vec![reg(0), reg(1)],
        partitions: vec![state(0, &[0, 1], Some(0), (0, 0)), state(1, &[0, 1], Some(0), (0, 0))],
        ..Default::default()
    };
    let mut leader = Broker::new(0, BrokerConfig::default());
    leader.start_bootstrapped(0, 1, &image, &mut Outbox::default());
    let mut follower = Broker::new(1, BrokerConfig::default());
    follower.start_bootstrapped(0, 1, &image, &mut Outbox::default());
    (leader, follower, image)
}

/// The messages of `out` as their receiver gets them.
fn deliver(now: Ms, from: BrokerId, out: Outbox, to: &mut Broker) -> Outbox {
    let mut next = Outbox::default();
    for (_, msg) in out.sends {
        to.handle(now, NodeId::Broker(from), msg, &mut next);
    }
    next
}

fn the_fetch(out: &Outbox) -> &FetchRequest {
    out.sends.iter().find_map(|(_, m)| if let Message::Fetch(f) = m { Some(f) } else { None }).unwrap()
}

fn the_response(out: &Outbox) -> &crate::sim::protocol::FetchResponse {
    out.sends
        .iter()
        .find_map(|(_, m)| if let Message::FetchResponse(r) = m { Some(r) } else { None })
        .unwrap()
}

fn partitions_of(f: &FetchRequest) -> Vec<u32> {
    f.partitions.iter().map(|p| p.tp.partition).collect()
}

/// Opens follower 1's session at leader 0: the full fetch, parked (no data), answered
/// after `replica.fetch.wait.max.ms` with a session id. Returns the follower's next fetch.
fn open_session(leader: &mut Broker, follower: &mut Broker) -> Outbox {
    let mut out = Outbox::default();
    follower.on_tick(0, &mut out);
    let full = the_fetch(&out);
    assert_eq!((full.session, partitions_of(full)), (FetchMetadata::INITIAL, vec![0, 1]));
    assert!(deliver(1, 1, out, leader).sends.is_empty(), "parked");
    let mut answer = Outbox::default();
    leader.on_tick(501, &mut answer);
    assert!(answer.events.iter().any(|e| matches!(e, EventKind::FetchSessionCreated { session_id: 1, .. })));
    assert_eq!(the_response(&answer).partitions.len(), 2, "a full response carries every partition");
    deliver(502, 0, answer, follower)
}

fn produce(tp: TopicPartition) -> Message {
    Message::Produce(crate::sim::protocol::ProduceRequest {
        correlation_id: 1,
        producer: 0,
        tp,
        acks: crate::sim::Acks::One,
        timeout_ms: 30_000,
        batch: crate::sim::protocol::Batch {
            producer_id: -1,
            base_sequence: -1,
            values: crate::sim::protocol::Values::range(0, 1),
            record_size: 10,
            max_timestamp: 0,
        },
    })
}

/// KIP-516 on a running broker that missed a topic's deletion: a partition record of the
/// same name under a new topic id makes its log stray (`Partition.checkOrSetTopicId`
/// refuses to reuse it); the replica starts empty under the new id, and a fetch that still
/// names the old id is UNKNOWN_TOPIC_ID, one with the new id is served.
#[test]
fn a_partition_record_under_a_new_topic_id_replaces_the_stray_log() {
    let (old, new) = (crate::sim::TopicId::from_bits(7), crate::sim::TopicId::from_bits(8));
    let mut b = Broker::new(0, BrokerConfig::default());
    let image = MetadataDelta {
        brokers: vec![reg(0), reg(1)],
        partitions: vec![state(0, &[0, 1], Some(0), (0, 0))],
        ..Default::default()
    };
    b.start_bootstrapped(0, 1, &image, &mut Outbox::default());
    let foo0 = TopicPartition::new("foo", 0);
    b.handle(10, NodeId::Producer(0), produce(foo0.clone()), &mut Outbox::default());
    assert_eq!(b.partition(&foo0).map(|p| (p.topic_id, p.log.leo())), Some((old, 1)));
    let recreated = PartitionState { topic_id: new, ..state(0, &[0, 1], Some(0), (0, 0)) };
    let mut out = Outbox::default();
    b.handle(
        20,
        NodeId::Controller(3000),
        Message::Metadata(MetadataDelta { partitions: vec![recreated], ..Default::default() }),
        &mut out,
    );
    assert!(
        out.events
            .iter()
            .any(|e| matches!(e, EventKind::ReplicaDeleted { broker: 0, stray: Some(id), .. } if *id == old)),
        "{:?}",
        out.events
    );
    assert_eq!(b.partition(&foo0).map(|p| (p.topic_id, p.log.leo())), Some((new, 0)));
    let fetch = |topic_id| {
        let fp = FetchPartition {
            tp: foo0.clone(),
            topic_id,
            current_leader_epoch: 0,
            fetch_offset: 0,
            last_fetched_epoch: None,
            log_start_offset: 0,
        };
        Message::Fetch(FetchRequest {
            correlation_id: 1,
            replica: 1,
            broker_epoch: 1,
            max_wait_ms: 0,
            min_bytes: 1,
            partition_max_bytes: 1 << 20,
            max_bytes: 1 << 20,
            session: FetchMetadata { session_id: 0, epoch: crate::sim::fetch_session::FINAL_EPOCH },
            partitions: vec![fp],
            forgotten: Vec::new(),
        })
    };
    let answer = |b: &mut Broker, topic_id| {
        let mut out = Outbox::default();
        b.handle(30, NodeId::Broker(1), fetch(topic_id), &mut out);
        out.sends.into_iter().find_map(|(_, m)| match m {
            Message::FetchResponse(r) => Some(r.partitions[0].result.clone().err()),
            _ => None,
        })
    };
    assert_eq!(answer(&mut b, old), Some(Some(ErrorCode::UnknownTopicId)));
    assert_eq!(answer(&mut b, new), Some(None));
}

/// `ReplicaManager.applyDelta` and `getPartitionOrError`: a replica the metadata moves
/// away is deleted, and a produce for it is NOT_LEADER_OR_FOLLOWER while the topic exists;
/// once the topic is deleted, UNKNOWN_TOPIC_OR_PARTITION.
#[test]
fn replicas_that_leave_are_deleted_and_produce_answers_follow_the_metadata() {
    let mut b = Broker::new(1, BrokerConfig::default());
    let mut image = MetadataDelta {
        brokers: vec![reg(0), reg(1)],
        partitions: vec![state(0, &[0, 1], Some(0), (0, 0)), state(1, &[0, 1], Some(0), (0, 0))],
        ..Default::default()
    };
    image.topic_configs.push((Arc::from("foo"), TopicConfig::default()));
    b.start_bootstrapped(0, 1, &image, &mut Outbox::default());
    let mut moved = state(0, &[0], Some(0), (1, 1));
    moved.replicas = vec![0];
    let mut out = Outbox::default();
    b.handle(
        10,
        NodeId::Controller(3000),
        Message::Metadata(MetadataDelta { partitions: vec![moved], ..Default::default() }),
        &mut out,
    );
    assert!(b.partition(&TopicPartition::new("foo", 0)).is_none());
    assert!(out.events.iter().any(|e| matches!(e, EventKind::ReplicaDeleted { broker: 1, .. })));
    let answer = |b: &mut Broker, p: u32| {
        let mut out = Outbox::default();
        b.handle(20, NodeId::Producer(0), produce(TopicPartition::new("foo", p)), &mut out);
        out.sends.iter().find_map(|(_, m)| match m {
            Message::ProduceResponse(r) => r.result.err(),
            _ => None,
        })
    };
    assert_eq!(answer(&mut b, 0), Some(ErrorCode::NotLeaderOrFollower));
    let deleted = MetadataDelta { deleted_topics: vec![Arc::from("foo")], ..Default::default() };
    b.handle(30, NodeId::Controller(3000), Message::Metadata(deleted), &mut Outbox::default());
    assert_eq!(b.partitions().count(), 0);
    assert_eq!(answer(&mut b, 1), Some(ErrorCode::UnknownTopicOrPartition));
}

/// `ReplicaManager.appendToLocalLog` with `internalTopicsAllowed = false` (every client's
/// produce): an append to `__consumer_offsets` is INVALID_TOPIC_EXCEPTION without an error
/// message, at its leader (nothing is written) and at a broker that is not its leader alike,
/// while an ordinary topic's produce at the same leader is written.
#[test]
fn a_client_produce_to_an_internal_topic_is_invalid_topic_exception() {
    let offsets = |p: u32| {
        let mut s = state(p, &[0, 1], Some(0), (0, 0));
        s.tp = TopicPartition::new(OFFSETS_TOPIC, p);
        s
    };
    let image = MetadataDelta {
        brokers: vec![reg(0), reg(1)],
        partitions: vec![offsets(0), state(0, &[0, 1], Some(0), (0, 0))],
        topic_configs: vec![
            (Arc::from(OFFSETS_TOPIC), TopicConfig::default()),
            (Arc::from("foo"), TopicConfig::default()),
        ],
        ..Default::default()
    };
    let answer = |b: &mut Broker, tp: TopicPartition| {
        let mut out = Outbox::default();
        b.handle(20, NodeId::Producer(0), produce(tp), &mut out);
        out.sends.iter().find_map(|(_, m)| match m {
            Message::ProduceResponse(r) => Some((r.result, r.error_message.clone())),
            _ => None,
        })
    };
    let internal = TopicPartition::new(OFFSETS_TOPIC, 0);
    let mut leader = Broker::new(0, BrokerConfig::default());
    leader.start_bootstrapped(0, 1, &image, &mut Outbox::default());
    let refused = Some((Err(ErrorCode::InvalidTopicException), String::new()));
    assert_eq!(answer(&mut leader, internal.clone()), refused);
    assert_eq!(leader.partition(&internal).unwrap().log.leo(), 0, "nothing is written");
    assert_eq!(answer(&mut leader, TopicPartition::new("foo", 0)), Some((Ok((0, 0)), String::new())));
    let mut follower = Broker::new(1, BrokerConfig::default());
    follower.start_bootstrapped(0, 1, &image, &mut Outbox::default());
    assert_eq!(answer(&mut follower, internal), refused, "checked before leadership");
}

/// KIP-227: after the full fetch, an incremental fetch lists nothing while nothing
/// changed; the leader finds both partitions idle and parks it; a record on foo-0
/// completes it with foo-0 alone, and the follower's next fetch lists only foo-0 (its
/// fetch offset moved). The idle partition foo-1 never travels again.
#[test]
fn an_incremental_fetch_carries_only_what_changed() {
    let (mut leader, mut follower, _) = leader_and_follower();
    let out = open_session(&mut leader, &mut follower);
    let inc = the_fetch(&out);
    assert_eq!(inc.session, FetchMetadata { session_id: 1, epoch: 1 });
    assert!(inc.partitions.is_empty() && inc.forgotten.is_empty());
    assert!(deliver(503, 1, out, &mut leader).sends.is_empty(), "parked: nothing to say");
    assert!(leader.purgatory.sessions.get(1).unwrap().pending.is_empty(), "both idle");
    let mut out = Outbox::default();
    leader.handle(600, NodeId::Producer(0), produce(TopicPartition::new("foo", 0)), &mut out);
    let resp = the_response(&out);
    assert_eq!(resp.partitions.iter().map(|p| p.tp.partition).collect::<Vec<_>>(), vec![0]);
    let out = deliver(601, 0, out, &mut follower);
    let next = the_fetch(&out);
    assert_eq!((next.session.epoch, partitions_of(next)), (2, vec![0]));
    assert_eq!(next.partitions[0].fetch_offset, 1);
    // The idle partition's follower still counts as fetching: each session fetch is one.
    let ctx = leader.ctx_for(700, &TopicPartition::new("foo", 1));
    let view = leader.partition(&TopicPartition::new("foo", 1)).unwrap().follower_view(&ctx, 1).unwrap();
    assert_eq!(view.caught_up_ago, Some(700 - 503));
}

/// `FetchSessionHandler.handleResponse`: a restarted leader has no sessions; it answers
/// the follower's incremental fetch with FETCH_SESSION_ID_NOT_FOUND and the follower's
/// next fetch is a full one that opens a new session (id 2: ids count on).
#[test]
fn a_restarted_leader_refuses_the_session_and_the_follower_starts_over() {
    let (mut leader, mut follower, image) = leader_and_follower();
    let out = open_session(&mut leader, &mut follower);
    leader.crash(510);
    leader.start_bootstrapped(520, 2, &image, &mut Outbox::default());
    let refused = deliver(530, 1, out, &mut leader);
    assert_eq!(the_response(&refused).error, Some(ErrorCode::FetchSessionIdNotFound));
    let out = deliver(531, 0, refused, &mut follower);
    assert!(out.events.iter().any(|e| matches!(e, EventKind::FetchSessionRefused { session_id: 1, .. })));
    let full = the_fetch(&out);
    assert_eq!((full.session, partitions_of(full)), (FetchMetadata::INITIAL, vec![0, 1]));
    deliver(532, 1, out, &mut leader);
    let mut answer = Outbox::default();
    leader.on_tick(1032, &mut answer);
    assert_eq!(the_response(&answer).session_id, 2);
}

/// `BrokerLifecycleManager`: after each DUPLICATE_BROKER_REGISTRATION the broker waits
/// 100 ms, then twice as long each time, at most half of `broker.session.timeout.ms`
/// (9000 ms → 4500 ms), and registers again; it sends no heartbeat and no fetch meanwhile.
#[test]
fn a_refused_registration_is_retried_with_capped_exponential_backoff() {
    let mut b = Broker::new(2, BrokerConfig::default());
    let mut out = Outbox::default();
    b.start(1000, &mut out);
    assert_eq!(registrations(&out), 1);
    let refused = Message::RegisterBrokerRefused { error: ErrorCode::DuplicateBrokerRegistration };
    let mut now = 1000;
    for wait in [100, 200, 400, 800, 1600, 3200, 4500, 4500] {
        b.handle(now, NodeId::Controller(3000), refused.clone(), &mut Outbox::default());
        let mut out = Outbox::default();
        b.on_tick(now + wait - 1, &mut out);
        assert!(out.sends.is_empty(), "nothing before {wait} ms: {:?}", out.sends);
        assert!(b.next_deadline().is_some_and(|d| d <= now + wait));
        let mut out = Outbox::default();
        b.on_tick(now + wait, &mut out);
        assert_eq!(registrations(&out), 1, "retry after {wait} ms");
        now += wait;
    }
    // Accepted: the retries stop and the backoff starts over at the next start.
    let image = MetadataDelta::default();
    b.handle(
        now,
        NodeId::Controller(3000),
        Message::RegisterBrokerResponse { broker_epoch: 7, image },
        &mut out,
    );
    assert_eq!(b.broker_epoch(), 7);
    assert_eq!(registration_backoff(0, 9000), 100);
    assert_eq!(registration_backoff(40, 9000), 4500);
}

/// `BrokerServer.startup` enables request processing only once the broker is unfenced
/// (`BrokerLifecycleManager`: first heartbeat response with `isFenced=false`): a started
/// broker refuses inbound connections while its registration is refused and while it is
/// registered but fenced, accepts them from its first unfenced heartbeat response on, and
/// keeps accepting when fenced later; a crash closes them, a bootstrapped broker accepts.
#[test]
fn a_started_broker_accepts_connections_from_its_first_unfencing_on() {
    let heartbeat = |fenced| Message::HeartbeatResponse { fenced, should_shutdown: false };
    let mut b = Broker::new(2, BrokerConfig::default());
    let mut out = Outbox::default();
    assert!(!b.accepts_connections(), "never started");
    b.start(1000, &mut out);
    assert!(!b.accepts_connections(), "registering");
    let refused = Message::RegisterBrokerRefused { error: ErrorCode::DuplicateBrokerRegistration };
    b.handle(1001, NodeId::Controller(3000), refused, &mut out);
    b.handle(1002, NodeId::Controller(3000), heartbeat(false), &mut out);
    assert!(!b.accepts_connections(), "refused registration: an answer to the old run does not count");
    let image = MetadataDelta::default();
    b.handle(
        1100,
        NodeId::Controller(3000),
        Message::RegisterBrokerResponse { broker_epoch: 7, image },
        &mut out,
    );
    // One heartbeat in flight at a time: each answer follows a heartbeat sent, and the next
    // goes broker.heartbeat.interval.ms (2 s) after the answer.
    b.on_tick(1100, &mut out);
    b.handle(1101, NodeId::Controller(3000), heartbeat(true), &mut out);
    assert!(!b.accepts_connections(), "registered but fenced");
    b.on_tick(3101, &mut out);
    b.handle(3102, NodeId::Controller(3000), heartbeat(false), &mut out);
    assert!(b.accepts_connections(), "unfenced");
    b.on_tick(5102, &mut out);
    b.handle(5103, NodeId::Controller(3000), heartbeat(true), &mut out);
    assert!(b.accepts_connections(), "a later fence does not close the socket server");
    let sent = out.sends.iter().filter(|(_, m)| matches!(m, Message::Heartbeat { .. })).count();
    assert_eq!(sent, 3, "one heartbeat per answer");
    b.crash(1200);
    assert!(!b.accepts_connections(), "down");
    b.start_bootstrapped(1300, 8, &MetadataDelta::default(), &mut out);
    assert!(b.accepts_connections(), "bootstrapped: registered and unfenced at once");
}
