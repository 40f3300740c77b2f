//! The accumulator, the rate generator and the partitioner.

use super::*;

#[test]
fn rate_generates_records_evenly_and_fractional_rates_work() {
    let (mut p, mut out) = with_leaders(ProducerConfig { rate: 100.0, ..config() }, &[Some(0)], 0);
    // Records are created at 10, 20, …, 1000 ms; the last one leaves at 1005.
    let sent = drive(&mut p, 1005, &mut out, |r| Some(ok(r, 0, 0)));
    assert_eq!(p.view_last().sent, 100);
    assert_eq!(p.view_last().acked, 100);
    // One record every 10 ms, each sent alone after linger.ms = 5.
    assert_eq!(sent.len(), 100);
    assert_eq!(sent[0].0, 15);
    assert_eq!(sent[1].0, 25);
    let values: Vec<u64> = sent.iter().flat_map(|(_, r)| r.batch.values.clone()).collect();
    assert_eq!(values, (0..100).collect::<Vec<u64>>());

    let mut slow = producer(ProducerConfig { rate: 0.5, ..config() }, 1);
    slow.handle(0, metadata(&[Some(0)], 0), &mut out);
    drive(&mut slow, 10_000, &mut out, |r| Some(ok(r, 0, 0)));
    // The record of 10 000 ms is handed over, though it waits for its linger.ms before the
    // producer wakes for it.
    assert_eq!(slow.view(10_000).pending, 1);
    assert_eq!(slow.view(10_000).sent, 5);
}

#[test]
fn full_batches_go_at_once_and_the_rest_after_linger() {
    let (mut p, mut out) =
        with_leaders(ProducerConfig { batch_size: 561, linger_ms: 1000, ..config() }, &[Some(1)], 0);
    p.enqueue(0, 12);
    assert_eq!(p.next_deadline(), Some(0));
    let sent = drive(&mut p, 5000, &mut out, |r| Some(ok(r, 0, 0)));
    let shape: Vec<(Ms, usize)> = sent.iter().map(|(t, r)| (*t, r.batch.values.len())).collect();
    assert_eq!(shape, vec![(0, 5), (0, 5), (1000, 2)]);
    // 561 bytes: the 61-byte batch header and five 100-byte records.
    assert!(sent.iter().all(|(_, r)| r.batch.record_size == 100));
    assert_eq!(sent[0].1.batch.size_bytes(), 561);
    assert_eq!(p.view_last().pending, 0);
}

/// `max.request.size` bounds every request's bytes, below a larger `batch.size`
/// (`RecordAccumulator.drain`'s `maxSize`; isrlab's request is one batch).
#[test]
fn no_request_exceeds_max_request_size() {
    let cfg = ProducerConfig { batch_size: 1 << 20, max_request_size: 1061, linger_ms: 1000, ..config() };
    let (mut p, mut out) = with_leaders(cfg, &[Some(1)], 0);
    p.enqueue(0, 25);
    let sent = drive(&mut p, 5000, &mut out, |r| Some(ok(r, 0, 0)));
    let shape: Vec<(Ms, usize)> = sent.iter().map(|(t, r)| (*t, r.batch.values.len())).collect();
    assert_eq!(shape, vec![(0, 10), (0, 10), (1000, 5)]);
    assert!(sent.iter().all(|(_, r)| r.batch.size_bytes() <= 1061));
    assert_eq!(p.view_last().acked, 25);
}

/// A record that cannot fit in a request fails at once with `MESSAGE_TOO_LARGE`
/// (`KafkaProducer.ensureValidRecordSize`), is never sent and never retried.
#[test]
fn a_record_larger_than_max_request_size_fails_without_being_sent() {
    let cfg = ProducerConfig { record_size: 1001, max_request_size: 1061, ..config() };
    let (mut p, mut out) = with_leaders(cfg, &[Some(1)], 0);
    p.enqueue(0, 3);
    let sent = drive(&mut p, 5000, &mut out, |r| Some(ok(r, 0, 0)));
    assert!(sent.is_empty());
    let v = p.view_last();
    assert_eq!((v.sent, v.acked, v.failed, v.pending), (3, 0, 3, 0));
    assert_eq!(v.errors.get("MESSAGE_TOO_LARGE"), Some(&3));
    assert!(v.last_error.unwrap().1.contains("The message is 1062 bytes"));
}

/// Records handed over before metadata wait, then go where the partitioner says; with
/// `partitioner.class` = RoundRobinPartitioner that is each partition with a leader in turn.
fn partitions_after_metadata(partitioner_class: PartitionerClass) -> Vec<(NodeId, TopicPartition, Vec<u64>)> {
    let cfg = ProducerConfig { linger_ms: 0, acks: Acks::Zero, partitioner_class, ..config() };
    let mut p = producer(cfg, 1);
    let mut out = Outbox::default();
    p.enqueue(0, 2);
    p.on_tick(0, &mut out);
    assert!(out.sends.is_empty(), "no metadata yet: records wait");
    assert_eq!(p.view_last().pending, 2);
    connect(&mut p, 0);
    connect(&mut p, 2);
    p.handle(1, metadata(&[Some(0), None, Some(2)], 0), &mut out);
    p.enqueue(1, 2);
    p.on_tick(1, &mut out);
    requests(&mut out).into_iter().map(|(to, r)| (to, r.tp, r.batch.values.to_vec())).collect()
}

#[test]
fn round_robin_partitioner_only_over_partitions_with_a_leader() {
    assert_eq!(
        partitions_after_metadata(PartitionerClass::RoundRobin),
        vec![
            (NodeId::Broker(0), tp(0), vec![0]),
            (NodeId::Broker(2), tp(2), vec![1]),
            (NodeId::Broker(0), tp(0), vec![2]),
            (NodeId::Broker(2), tp(2), vec![3]),
        ]
    );
}

/// The built-in partitioner keeps keyless records on one partition with a leader (far
/// below batch.size bytes here): the two that waited for metadata and the two after.
#[test]
fn keyless_records_stick_to_one_partition_with_a_leader() {
    let sent = partitions_after_metadata(PartitionerClass::BuiltIn);
    let (to, tp) = (sent[0].0, sent[0].1.clone());
    assert!(to == NodeId::Broker(tp.partition as i32) && tp.partition != 1, "{sent:?}");
    assert!(sent.iter().all(|s| s.1 == tp), "{sent:?}");
    assert_eq!(sent.iter().flat_map(|s| s.2.clone()).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
}

/// Keyed records go to `toPositive(murmur2(key)) % 3`: "abc" (479470107) to partition 0,
/// "foobar" (-790332482 → 1357151166) to partition 0, "21" (-973932308 → 1173551340) to 0;
/// "order-2" is computed by the same function and lands on partition 1 even without its
/// leader known, where it waits.
#[test]
fn keyed_records_go_to_their_murmur2_partition() {
    let (mut p, mut out) =
        with_leaders(ProducerConfig { linger_ms: 0, ..config() }, &[Some(0), Some(1), Some(2)], 0);
    p.enqueue_with_key(0, 2, Some("abc"));
    p.on_tick(0, &mut out);
    let sent = requests(&mut out);
    assert_eq!(sent.len(), 1);
    assert_eq!((sent[0].1.tp.partition, sent[0].1.batch.values.len()), ((479470107 % 3) as u32, 2));
    for key in ["k1", "k2", "k3", "k4"] {
        p.enqueue_with_key(1, 1, Some(key));
    }
    p.on_tick(1, &mut out);
    let mut got: Vec<u32> = requests(&mut out).iter().map(|(_, r)| r.tp.partition).collect();
    let mut want: Vec<u32> = ["k1", "k2", "k3", "k4"]
        .iter()
        .map(|k| partitioner::partition_for_key(partitioner::key_hash(k), 3) as u32)
        .collect();
    got.sort_unstable();
    want.sort_unstable();
    want.dedup();
    assert_eq!(got, want);
}

#[test]
fn values_are_unique_per_producer_index() {
    let mut p = ProducerClient::new(3, Arc::from(TOPIC), config(), 7, ChaCha8Rng::seed_from_u64(1));
    let mut out = Outbox::default();
    p.handle(0, metadata(&[Some(0)], 0), &mut out);
    p.enqueue(0, 2);
    let sent = drive(&mut p, 100, &mut out, |_| None);
    assert_eq!(sent[0].1.batch.values, vec![3_000_000_000, 3_000_000_001]);
    assert_eq!(sent[0].1.producer, 3);
}

#[test]
fn delivery_timeout_expires_records_and_resets_sequences() {
    let cfg = ProducerConfig { linger_ms: 0, delivery_timeout_ms: 5_000, ..config() };
    let (mut p, mut out) = with_leaders(cfg, &[Some(1)], 0);
    p.enqueue(0, 4);
    let sent =
        drive(&mut p, 20_000, &mut out, |r| Some(err(r, ErrorCode::NotEnoughReplicas, "isr too small")));
    assert!(sent.iter().all(|(t, r)| *t < 5_000 && r.batch.base_sequence == 0));
    let v = p.view_last();
    assert_eq!(v.failed, 4);
    assert_eq!(v.pending, 0);
    assert_eq!(v.errors.get("TIMEOUT"), Some(&1));
    // Two runs: NOT_ENOUGH_REPLICAS, then TIMEOUT for the whole batch.
    let events = mem::take(&mut out.events);
    let started = events.iter().filter(|e| matches!(e, EventKind::ProduceFailing { errors: 1, .. })).count();
    assert_eq!(started, 2);
    assert!(matches!(
        events.last(),
        Some(EventKind::ProduceFailing { failure, errors: 1, records_failed: 4, .. })
            if failure.error == ErrorCode::DeliveryTimeout
                && failure.detail.starts_with("Expiring 4 record(s) for t-0: 5000 ms has passed since batch creation")
                && failure.detail.ends_with("the last attempt failed with NOT_ENOUGH_REPLICAS")
    ));
    // A fresh producer id with sequences from 0 (KIP-360 stand-in).
    p.enqueue(20_000, 1);
    p.on_tick(20_000, &mut out);
    let next = requests(&mut out).remove(0).1;
    assert_eq!((next.batch.producer_id, next.batch.base_sequence), (7 + (1 << 32), 0));
}

#[test]
fn records_for_a_leaderless_partition_expire_with_an_event() {
    let cfg = ProducerConfig { linger_ms: 0, delivery_timeout_ms: 5_000, ..config() };
    let (mut p, mut out) = with_leaders(cfg, &[None], 0);
    p.enqueue(100, 3);
    // Metadata is re-read every retry.backoff.ms while a partition has no leader.
    assert_eq!(p.next_deadline(), Some(100));
    p.on_tick(5_100, &mut out);
    assert!(out.sends.is_empty());
    assert_eq!(p.view_last().failed, 3);
    assert!(matches!(
        &out.events[..],
        [EventKind::ProduceFailing { failure, errors: 1, records_failed: 3, .. }]
            if failure.error == ErrorCode::DeliveryTimeout && failure.detail.contains("no leader")
    ));
    // The same producer id continues: no sequence was assigned.
    assert_eq!(p.producer_id(), 7);
}

/// Mirrors RecordAccumulatorTest's expiry cases: records appended while the partition has
/// no leader fill batches of `batch.size`; each batch expires whole, `delivery.timeout.ms`
/// after its first record, not record by record.
#[test]
fn a_leaderless_partition_expires_whole_batches() {
    // 61-byte header + 5 records of 100 bytes: 5 records per batch.
    let cfg = ProducerConfig { rate: 10.0, batch_size: 561, delivery_timeout_ms: 30_000, ..config() };
    let (mut p, mut out) = with_leaders(cfg, &[None], 0);
    // Records at 100, 200, ... ms: batches begin with records 0, 5, 10, ... (0.5 s apart).
    let mut expiries = Vec::new();
    while let Some(t) = p.next_deadline()
        && t <= 33_000
    {
        let failed = p.view_last().failed;
        p.on_tick(t, &mut out);
        if p.view_last().failed > failed {
            expiries.push((t, p.view_last().failed - failed));
        }
    }
    assert!(out.sends.is_empty());
    let expected: Vec<(Ms, u64)> = (0..6).map(|k| (30_100 + k * 500, 5)).collect();
    assert_eq!(expiries, expected);
    let v = p.view_last();
    assert_eq!((v.errors.get("TIMEOUT"), v.failed), (Some(&6), 30));
    let last = out.events.last().unwrap();
    assert!(matches!(last, EventKind::ProduceFailing { errors: 6, records_failed: 30, .. }), "{last:?}");
    assert!(last.to_string().starts_with("produce to t-0 failing with TIMEOUT (6 times, 30 records failed so far): Expiring 5 record(s) for t-0: 30000 ms has passed since batch creation"), "{last}");
}

#[test]
fn config_changes_apply_to_new_batches() {
    let (mut p, mut out) = with_leaders(ProducerConfig { linger_ms: 0, ..config() }, &[Some(1)], 0);
    p.enqueue(0, 1);
    p.on_tick(0, &mut out);
    let first = requests(&mut out).remove(0).1;
    p.set_config(1, ProducerConfig { linger_ms: 0, acks: Acks::One, ..config() });
    p.handle(2, err(&first, ErrorCode::NotLeaderOrFollower, ""), &mut out);
    p.enqueue(2, 1);
    let t = p.next_deadline().unwrap();
    p.on_tick(t, &mut out);
    let sent = requests(&mut out);
    let (retry, next) = (&sent[0].1, &sent[1].1);
    // The retry keeps its producer id and sequence but takes the new acks.
    assert_eq!((retry.acks, retry.batch.producer_id), (Acks::One, 7));
    assert_eq!((next.acks, next.batch.producer_id, next.batch.base_sequence), (Acks::One, -1, -1));
}

#[test]
fn same_seed_gives_the_same_requests() {
    let run = |seed: u64| {
        let mut p = producer(ProducerConfig { rate: 37.5, ..config() }, seed);
        let mut out = Outbox::default();
        p.handle(0, metadata(&[Some(0), Some(1), None, Some(2)], 0), &mut out);
        let mut n = 0u64;
        let sent = drive(&mut p, 20_000, &mut out, |r| {
            n += 1;
            Some(if n.is_multiple_of(3) {
                err(r, ErrorCode::NotEnoughReplicas, "")
            } else {
                ok(r, n as i64, 0)
            })
        });
        (sent, out.acked, out.events, p.view_last().errors)
    };
    let a = run(42);
    assert!(a.0.len() > 100);
    assert_eq!(a, run(42));
}

/// A clone taken mid-run (a world checkpoint) carries on exactly as the original: same
/// requests, acknowledgements, events and errors, backoff jitter and sticky partition
/// choices included (both random streams clone with their position).
#[test]
fn a_clone_continues_like_the_original() {
    let answer = |n: &mut u64, r: &ProduceRequest| {
        *n += 1;
        Some(if n.is_multiple_of(4) { err(r, ErrorCode::NotEnoughReplicas, "") } else { ok(r, *n as i64, 0) })
    };
    let mut p = producer(ProducerConfig { rate: 55.0, ..config() }, 9);
    let mut out = Outbox::default();
    p.handle(0, metadata(&[Some(0), Some(1), Some(2)], 0), &mut out);
    let mut n = 0u64;
    drive(&mut p, 7_000, &mut out, |r| answer(&mut n, r));
    let mut twin = p.clone();
    let mut twin_n = n;
    let run_on = |p: &mut ProducerClient, n: &mut u64| {
        let mut out = Outbox::default();
        let sent = drive(p, 15_000, &mut out, |r| answer(n, r));
        (sent, out.acked, out.events, p.view_last().errors, p.next_deadline())
    };
    let a = run_on(&mut p, &mut n);
    assert!(a.0.len() > 50);
    assert_eq!(a, run_on(&mut twin, &mut twin_n));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: 512,
        rng_seed: proptest::test_runner::RngSeed::Fixed(20261204),
        failure_persistence: None,
        ..Default::default()
    })]

    /// A batch's payloads taken straight from the waiting records are what
    /// `Values::from_slice` makes of them copied out: a run where they form one, else the list.
    #[test]
    fn batch_values_are_what_from_slice_gives(
        first in 0u64..1_000,
        steps in proptest::collection::vec(proptest::prop_oneof![4 => proptest::strategy::Just(1u64), 1 => 0u64..4], 0..12),
    ) {
        let mut values = vec![first];
        for s in steps {
            values.push(values[values.len() - 1] + s);
        }
        let records: Vec<PendingRecord> =
            values.iter().map(|&value| PendingRecord { value, created: 0, key_hash: None }).collect();
        proptest::prop_assert_eq!(super::super::accumulator::values_of(records.iter()), Values::from_slice(&values));
    }
}
