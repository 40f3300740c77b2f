//! Unit tests of the consumer core: its position rules alone, and a consumer talking to a
//! real leader [`Broker`] with the messages handed over by hand.

use super::position::{Assigned, FetchState};
use super::*;
use crate::config::BrokerConfig;
use crate::sim::broker::Broker;
use crate::sim::events::EventKind;
use crate::sim::protocol::{
    Batch, BrokerRegistration, EpochEndOffset, LeaderRecoveryState, MetadataDelta, PartitionState,
    ProduceRequest, RecordBatch, Values,
};
use crate::sim::{Acks, SeenRecords};
use rand::SeedableRng;

fn tp() -> TopicPartition {
    TopicPartition::new("t", 0)
}

fn at(offset: Offset, epoch: Epoch) -> OffsetAndEpoch {
    OffsetAndEpoch { offset, leader_epoch: Some(epoch) }
}

fn fetching(offset: Offset, epoch: Epoch) -> Assigned {
    let mut a = Assigned::new(tp());
    a.position = Some(at(offset, epoch));
    a.state = FetchState::AwaitValidation;
    a
}

/// `SubscriptionState.maybeCompleteValidation`: an end at or past the position keeps it; an
/// end below it is a truncation: with a reset policy the consumer seeks to that end, without
/// one it stops (`LogTruncationException`); an undefined end resets by the policy.
#[test]
fn validation_keeps_seeks_back_or_resets() {
    let end = |epoch, end_offset| EpochEndOffset { epoch, end_offset };
    let mut a = fetching(10, 0);
    assert_eq!(a.validated(0, end(0, 10), AutoOffsetReset::Latest), None);
    assert_eq!(a.state, FetchState::Fetching);

    let mut a = fetching(10, 0);
    let event = a.validated(0, end(0, 2), AutoOffsetReset::Latest);
    assert!(matches!(
        event,
        Some(EventKind::ConsumerTruncationDetected { position: 10, reset_to: Some(2), .. })
    ));
    assert_eq!((a.state.clone(), a.position), (FetchState::Fetching, Some(at(2, 0))));

    let mut a = fetching(10, 0);
    let event = a.validated(0, end(0, 2), AutoOffsetReset::None);
    assert!(matches!(event, Some(EventKind::ConsumerTruncationDetected { reset_to: None, .. })));
    assert!(matches!(a.state, FetchState::Stopped(_)));
    assert_eq!(a.position, Some(at(10, 0)), "the position stays where the truncation found it");

    let mut a = fetching(10, 3);
    assert_eq!(a.validated(0, end(-1, -1), AutoOffsetReset::Earliest), None);
    assert!(matches!(a.state, FetchState::AwaitReset(_)));
}

/// `FetchCollector`: a batch that starts before the position gives only its records from the
/// position on; the position moves past every batch and takes the epoch of the last one.
fn batch(base: Offset, epoch: Epoch, first: u64, count: u32) -> RecordBatch {
    RecordBatch {
        base_offset: base,
        leader_epoch: epoch,
        producer_id: -1,
        base_sequence: -1,
        size_bytes: 100,
        max_timestamp: 0,
        values: Values::range(first, count),
    }
}

#[test]
fn records_move_the_position_from_where_it_stands() {
    let mut a = fetching(3, 0);
    a.state = FetchState::Fetching;
    a.buffer(vec![batch(0, 0, 100, 5), batch(5, 1, 105, 2)]);
    let seen = a.take_records(7, 500);
    let want = |base_offset, first, n| SeenRecords {
        consumer: 7,
        tp: tp(),
        base_offset,
        values: Values::range(first, n),
    };
    assert_eq!(seen, vec![want(3, 103, 2), want(5, 105, 2)]);
    assert_eq!((a.position, a.consumed), (Some(at(7, 1)), 4));
    assert!(a.buffered.is_empty());
    a.buffer(vec![batch(0, 0, 100, 5)]);
    assert!(a.take_records(7, 500).is_empty(), "records below the position are skipped");
}

/// `FetchCollector.collectFetch` with `max.poll.records`: a poll returns at most that many
/// records, the position stops where it stopped (inside a batch if need be), and the rest waits
/// in the buffer for the next poll; a partition that is no longer fetching drops its buffer.
#[test]
fn a_poll_returns_at_most_max_poll_records() {
    let mut a = fetching(0, 0);
    a.state = FetchState::Fetching;
    a.buffer(vec![batch(0, 0, 100, 4), batch(4, 0, 104, 4)]);
    let first = a.take_records(0, 3);
    assert_eq!(first.iter().map(|s| s.values.len()).sum::<usize>(), 3);
    assert_eq!((a.position, a.buffered.len()), (Some(at(3, 0)), 2));
    let second = a.take_records(0, 3);
    assert_eq!(second.iter().map(|s| (s.base_offset, s.values.len())).collect::<Vec<_>>(), [(3, 1), (4, 2)]);
    assert_eq!((a.position, a.buffered.len()), (Some(at(6, 0)), 1));
    a.leader_changed();
    assert!(a.take_records(0, 3).is_empty() && a.buffered.is_empty(), "a validation drops the buffer");
    assert_eq!(a.position, Some(at(6, 0)));
}

/// Leader 0 alone leads t-0 (ISR {0}, epoch `epoch`).
fn image(epoch: Epoch) -> MetadataDelta {
    MetadataDelta {
        brokers: vec![BrokerRegistration {
            id: 0,
            broker_epoch: 1,
            fenced: false,
            in_controlled_shutdown: false,
        }],
        partitions: vec![PartitionState {
            topic_id: crate::sim::TopicId::from_bits(7),
            tp: tp(),
            replicas: vec![0, 1],
            isr: vec![0],
            leader: Some(0),
            leader_epoch: epoch,
            partition_epoch: epoch,
            leader_recovery: LeaderRecoveryState::Recovered,
            adding: Vec::new(),
            removing: Vec::new(),
            elr: Vec::new(),
            last_known_elr: Vec::new(),
        }],
        ..Default::default()
    }
}

fn consumer(config: ConsumerConfig) -> ConsumerClient {
    ConsumerClient::new(0, vec!["t".into()], config, ChaCha8Rng::seed_from_u64(1))
}

/// Appends `n` records (acks=1) at `now`; returns what the leader sent meanwhile (parked
/// fetches it completed).
fn produce(leader: &mut Broker, now: Ms, first: u64, n: u32) -> Outbox {
    let req = ProduceRequest {
        correlation_id: now,
        producer: 0,
        tp: tp(),
        acks: Acks::One,
        timeout_ms: 30_000,
        batch: Batch {
            producer_id: -1,
            base_sequence: -1,
            values: Values::range(first, n),
            record_size: 100,
            max_timestamp: now,
        },
    };
    let mut out = Outbox::default();
    leader.handle(now, NodeId::Producer(0), Message::Produce(req), &mut out);
    out.sends.retain(|(to, _)| *to != NodeId::Producer(0));
    out
}

/// Hands every message between the consumer and the leader over until neither sends more;
/// the handshake is answered as the network would. Returns what the consumer saw.
fn exchange(now: Ms, c: &mut ConsumerClient, leader: &mut Broker, mut out: Outbox) -> Vec<SeenRecords> {
    let mut seen = Vec::new();
    for _ in 0..40 {
        seen.append(&mut out.seen);
        if out.sends.is_empty() {
            return seen;
        }
        let mut next = Outbox::default();
        for (to, msg) in out.sends.drain(..) {
            match (to, msg) {
                (_, Message::Connect) => {
                    c.handle(now, Message::Connected { peer: NodeId::Broker(0) }, &mut next)
                }
                (NodeId::Consumer(_), msg) => c.handle(now, msg, &mut next),
                (_, msg) => leader.handle(now, NodeId::Consumer(0), msg, &mut next),
            }
        }
        out = next;
    }
    panic!("the exchange does not settle");
}

fn started(config: ConsumerConfig) -> (ConsumerClient, Broker, Vec<SeenRecords>) {
    let mut leader = Broker::new(0, BrokerConfig::default());
    leader.start_bootstrapped(0, 1, &image(0), &mut Outbox::default());
    let _ = produce(&mut leader, 1, 0, 5);
    let mut c = consumer(config);
    let mut out = Outbox::default();
    c.handle(2, Message::Metadata(image(0)), &mut out);
    let seen = exchange(2, &mut c, &mut leader, out);
    (c, leader, seen)
}

fn position(c: &ConsumerClient) -> Option<Offset> {
    c.positions().first().map(|(_, p)| p.offset)
}

/// `auto.offset.reset`: earliest reads the log from its start, latest starts at the HW and
/// reads only what comes after; each reset is an event.
#[test]
fn a_new_consumer_starts_where_auto_offset_reset_says() {
    let earliest = ConsumerConfig { auto_offset_reset: AutoOffsetReset::Earliest, ..Default::default() };
    let (c, _, seen) = started(earliest);
    assert_eq!(position(&c), Some(5));
    assert_eq!(seen.iter().map(|s| s.values.len()).sum::<usize>(), 5);
    let (c, _, seen) = started(ConsumerConfig::default());
    assert_eq!(position(&c), Some(5), "latest: the HW");
    assert!(seen.is_empty());
    let none = ConsumerConfig { auto_offset_reset: AutoOffsetReset::None, ..Default::default() };
    let (c, _, _) = started(none);
    assert_eq!(position(&c), None);
    assert_eq!(c.view().partitions[0].state, "stopped", "NoOffsetForPartitionException");
}

/// The leader parks a consumer fetch until `fetch.min.bytes` are below the HW
/// (`DelayedFetch`): one 161-byte batch is not enough for 300 bytes, two are; and the
/// records above the HW never come.
#[test]
fn the_leader_parks_a_fetch_until_min_bytes_are_below_the_hw() {
    let config = ConsumerConfig { fetch_min_bytes: 300, ..Default::default() };
    let (mut c, mut leader, _) = started(config);
    assert_eq!(position(&c), Some(5));
    let out = produce(&mut leader, 10, 5, 1);
    assert!(out.sends.is_empty(), "parked: 161 bytes < fetch.min.bytes");
    let out = produce(&mut leader, 20, 6, 1);
    assert_eq!(out.sends.len(), 1, "322 bytes complete it");
    let seen = exchange(20, &mut c, &mut leader, out);
    assert_eq!(seen.iter().map(|s| s.values.len()).sum::<usize>(), 2);
    assert_eq!(position(&c), Some(7));
}

/// A record the leader appended but did not commit: with follower 1 added to the ISR the HW
/// waits for it, and the consumer's fetch brings nothing; `fetch.max.wait.ms` later the
/// leader answers empty, with the HW.
#[test]
fn a_consumer_gets_nothing_above_the_hw() {
    let (mut c, mut leader, _) = started(ConsumerConfig::default());
    let mut two = image(1);
    two.partitions[0].isr = vec![0, 1];
    leader.handle(30, NodeId::Controller(3000), Message::Metadata(two.clone()), &mut Outbox::default());
    c.handle(30, Message::Metadata(two), &mut Outbox::default());
    assert!(produce(&mut leader, 31, 5, 3).sends.is_empty());
    let mut out = Outbox::default();
    c.on_tick(40, &mut out);
    exchange(40, &mut c, &mut leader, out);
    let mut out = Outbox::default();
    leader.on_tick(600, &mut out);
    let seen = exchange(600, &mut c, &mut leader, out);
    assert!(seen.is_empty());
    assert_eq!(position(&c), Some(5));
    let p = leader.partition(&tp()).unwrap();
    assert_eq!((p.log.hw(), p.log.leo()), (5, 8));
}

/// `max.poll.records`: the five records of the first fetch come back in polls of at most two
/// (2, 2, 1), each poll moving the position by what it returned, at the instant they arrive.
#[test]
fn polls_return_at_most_max_poll_records() {
    let config = ConsumerConfig {
        auto_offset_reset: AutoOffsetReset::Earliest,
        max_poll_records: 2,
        ..Default::default()
    };
    let (c, _, seen) = started(config);
    assert_eq!(
        seen.iter().map(|s| (s.base_offset, s.values.len())).collect::<Vec<_>>(),
        [(0, 2), (2, 2), (4, 1)]
    );
    assert_eq!((position(&c), c.view().polls), (Some(5), 3));
    let (c, _, seen) =
        started(ConsumerConfig { auto_offset_reset: AutoOffsetReset::Earliest, ..Default::default() });
    assert_eq!((seen.len(), c.view().polls), (1, 1), "the default 500 takes the five at once");
}
