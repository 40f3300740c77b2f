//! The sender: in-flight limits, answers, retries, timeouts, connections, restarts.

use super::*;

/// With `max.in.flight.requests.per.connection` = 1 the Sender mutes a partition while its
/// batch is in flight (`Sender.guaranteeMessageOrder`): later records wait and go together.
#[test]
fn max_in_flight_one_mutes_the_partition_while_its_batch_is_in_flight() {
    let cfg = ProducerConfig { linger_ms: 0, max_in_flight: 1, ..config() };
    let (mut p, mut out) = with_leaders(cfg, &[Some(1)], 0);
    p.enqueue(0, 1);
    p.on_tick(0, &mut out);
    let first = requests(&mut out);
    assert_eq!(first.len(), 1);
    p.enqueue(1, 3);
    p.on_tick(1, &mut out);
    assert!(out.sends.is_empty(), "later records wait for the in-flight request");
    assert_eq!(p.view_last().pending, 4);
    p.handle(2, ok(&first[0].1, 0, 0), &mut out);
    let second = requests(&mut out);
    assert_eq!(second[0].1.batch.values, vec![1, 2, 3]);
}

#[test]
fn retry_resends_the_same_batch_with_the_same_sequence() {
    let (mut p, mut out) = with_leaders(ProducerConfig { linger_ms: 0, ..config() }, &[Some(1)], 0);
    p.enqueue(0, 3);
    p.on_tick(0, &mut out);
    let first = requests(&mut out).remove(0).1;
    assert_eq!((first.batch.producer_id, first.batch.base_sequence), (7, 0));
    assert_eq!(first.acks, Acks::All);
    assert_eq!(first.timeout_ms, 30_000);
    p.enqueue(1, 2);
    p.handle(10, err(&first, ErrorCode::NotLeaderOrFollower, ""), &mut out);
    assert!(out.sends.is_empty());
    let retry_at = p.next_deadline().unwrap();
    assert!((10 + 80..=10 + 120).contains(&retry_at), "backoff 100 ms +/- 20 %: {retry_at}");
    p.on_tick(retry_at, &mut out);
    // The retry goes first; the records behind it follow at once in the next request
    // (max.in.flight.requests.per.connection = 5).
    let sent = requests(&mut out);
    let (retry, next) = (&sent[0].1, &sent[1].1);
    assert_eq!(retry.batch, first.batch);
    assert!(retry.correlation_id > first.correlation_id);
    assert_eq!((next.batch.producer_id, next.batch.base_sequence), (7, 3));
    assert_eq!(next.batch.values, vec![3, 4]);
}

#[test]
fn not_enough_replicas_is_retried_in_one_error_run_that_a_success_ends() {
    let (mut p, mut out) = with_leaders(ProducerConfig { linger_ms: 0, ..config() }, &[Some(1)], 0);
    p.enqueue(0, 1);
    let msg = "The size of the current ISR Set(1) is insufficient to satisfy the min.isr requirement of 2 for partition t-0";
    let mut failures = 0;
    let sent = drive(&mut p, 60_000, &mut out, |r| {
        failures += 1;
        if failures <= 6 { Some(err(r, ErrorCode::NotEnoughReplicas, msg)) } else { Some(ok(r, 9, 2)) }
    });
    assert_eq!(sent.len(), 7);
    assert!(sent.windows(2).all(|w| w[0].1.batch == w[1].1.batch));
    // Exponential backoff: gaps grow up to retry.backoff.max.ms (with jitter).
    let gaps: Vec<Ms> = sent.windows(2).map(|w| w[1].0 - w[0].0).collect();
    let expect = [100, 200, 400, 800, 1000, 1000];
    for (gap, base) in gaps.iter().zip(expect) {
        assert!((base * 8 / 10..=(base * 12 / 10).min(1000)).contains(gap), "{gaps:?}");
    }
    let v = p.view_last();
    assert_eq!(v.errors.get("NOT_ENOUGH_REPLICAS"), Some(&6));
    assert_eq!(v.acked, 1);
    assert_eq!(v.failed, 0);
    assert!(v.last_error.as_ref().unwrap().1.contains("min.isr requirement of 2"));
    // One run: its event again with each error's running count (the event log keeps one
    // line for it), then the success that ends it, with the same count.
    let events = mem::take(&mut out.events);
    assert_eq!(events.len(), 7, "{events:?}");
    for (k, event) in events[..6].iter().enumerate() {
        let failure = ProduceFailure { error: ErrorCode::NotEnoughReplicas, detail: msg.to_string() };
        let run = EventKind::ProduceFailing {
            producer: 0,
            tp: tp(0),
            failure,
            errors: k as u64 + 1,
            records_failed: 0,
        };
        assert_eq!(*event, run);
    }
    assert_eq!(
        events[6],
        EventKind::ProduceRecovered {
            producer: 0,
            tp: tp(0),
            errors: vec![(ErrorCode::NotEnoughReplicas, 6)]
        }
    );
}

#[test]
fn another_error_code_starts_a_new_run_and_the_success_adds_up_both() {
    let (mut p, mut out) = with_leaders(ProducerConfig { linger_ms: 0, ..config() }, &[Some(1)], 0);
    p.enqueue(0, 1);
    let answers = [ErrorCode::NetworkException, ErrorCode::NotEnoughReplicas, ErrorCode::NotEnoughReplicas];
    let mut n = 0;
    drive(&mut p, 60_000, &mut out, |r| {
        n += 1;
        Some(answers.get(n - 1).map_or_else(|| ok(r, 0, 0), |&e| err(r, e, "")))
    });
    let runs: Vec<(ErrorCode, u64)> = out
        .events
        .iter()
        .filter_map(|e| match e {
            EventKind::ProduceFailing { failure, errors, .. } => Some((failure.error, *errors)),
            _ => None,
        })
        .collect();
    assert_eq!(
        runs,
        vec![
            (ErrorCode::NetworkException, 1),
            (ErrorCode::NotEnoughReplicas, 1),
            (ErrorCode::NotEnoughReplicas, 2)
        ]
    );
    let recovered = vec![(ErrorCode::NetworkException, 1), (ErrorCode::NotEnoughReplicas, 2)];
    assert!(
        matches!(out.events.last(), Some(EventKind::ProduceRecovered { errors, .. }) if *errors == recovered)
    );
    let v = p.view_last();
    assert_eq!(
        (v.errors.get("NETWORK_EXCEPTION"), v.errors.get("NOT_ENOUGH_REPLICAS")),
        (Some(&1), Some(&2))
    );
}

#[test]
fn non_retriable_error_fails_the_batch_and_takes_a_fresh_producer_id() {
    let (mut p, mut out) = with_leaders(ProducerConfig { linger_ms: 0, ..config() }, &[Some(1)], 0);
    p.enqueue(0, 2);
    p.on_tick(0, &mut out);
    let first = requests(&mut out).remove(0).1;
    // Not OUT_OF_ORDER_SEQUENCE_NUMBER: the idempotent producer retries that one (KIP-360).
    p.handle(5, err(&first, ErrorCode::InvalidTopicException, ""), &mut out);
    assert_eq!(p.view_last().failed, 2);
    assert_eq!(p.view_last().pending, 0);
    p.enqueue(6, 1);
    p.on_tick(6, &mut out);
    let next = requests(&mut out).remove(0).1;
    assert_eq!(next.batch.producer_id, 7 + (1 << 32));
    assert_eq!(next.batch.base_sequence, 0);
}

#[test]
fn retries_zero_means_no_retry() {
    let (mut p, mut out) =
        with_leaders(ProducerConfig { linger_ms: 0, retries: 0, acks: Acks::One, ..config() }, &[Some(1)], 0);
    p.enqueue(0, 1);
    let sent = drive(&mut p, 10_000, &mut out, |r| Some(err(r, ErrorCode::NotLeaderOrFollower, "")));
    assert_eq!(sent.len(), 1);
    assert_eq!(p.view_last().failed, 1);
}

#[test]
fn unanswered_request_times_out_on_the_client_closes_the_connection_and_is_retried() {
    let (mut p, mut out) = with_leaders(ProducerConfig { linger_ms: 0, ..config() }, &[Some(1)], 0);
    p.enqueue(0, 1);
    p.on_tick(0, &mut out);
    let first = requests(&mut out).remove(0).1;
    assert_eq!(p.next_deadline(), Some(30_000 + CLIENT_TIMEOUT_MARGIN_MS));
    p.on_tick(31_000, &mut out);
    assert_eq!(p.view_last().errors.get("REQUEST_TIMED_OUT"), Some(&1));
    assert!(p.view_last().last_error.unwrap().1.contains("Disconnected from node 1 due to timeout"));
    // NetworkClient closed the connection: the retry needs a new one first.
    assert_eq!(p.view_last().unreachable, vec![1]);
    let t = p.next_deadline().unwrap();
    p.on_tick(t, &mut out);
    assert_eq!(connects(&mut out), vec![NodeId::Broker(1)]);
    p.handle(t + 2, Message::Connected { peer: NodeId::Broker(1) }, &mut out);
    let retry = requests(&mut out).remove(0).1;
    assert_eq!(retry.batch, first.batch);
    assert!(p.view_last().unreachable.is_empty());
    // The late answer to the abandoned request is ignored.
    p.handle(t + 3, ok(&first, 0, 0), &mut out);
    assert_eq!(p.view_last().acked, 0);
}

#[test]
fn a_lost_connection_fails_the_request_in_flight_once_and_its_retry_waits_for_a_reachable_leader() {
    let cfg = ProducerConfig { linger_ms: 0, retries: 2, retry_backoff_ms: 5_000, ..config() };
    let (mut p, mut out) = with_leaders(cfg, &[Some(1)], 3);
    p.enqueue(0, 1);
    p.on_tick(0, &mut out);
    let first = requests(&mut out).remove(0).1;
    p.handle(1, Message::Disconnected { peer: NodeId::Broker(1), correlation_id: 0 }, &mut out);
    assert_eq!(p.view_last().errors.get("NETWORK_EXCEPTION"), Some(&1));
    // The per-request notice of the same loss counts nothing more.
    let lost = Message::Disconnected { peer: NodeId::Broker(1), correlation_id: first.correlation_id };
    p.handle(1, lost, &mut out);
    assert_eq!(p.view_last().errors.get("NETWORK_EXCEPTION"), Some(&1));
    let retry_at = p.next_deadline().unwrap();
    assert!(retry_at >= 4_000, "{retry_at}");
    // The controller moves leadership; the producer's copy is stale until the next disconnect.
    p.handle(900, metadata(&[Some(2)], 4), &mut out);
    assert!(out.sends.is_empty());
    // The retry is due, but broker 1 is not connected: a connection attempt instead.
    p.on_tick(retry_at, &mut out);
    assert_eq!(connects(&mut out), vec![NodeId::Broker(1)]);
    assert!(out.sends.is_empty());
    // Refused: that asks for metadata, which names broker 2 with a newer leader epoch, so the
    // retry skips what is left of its backoff (KIP-951) and connects to broker 2.
    p.handle(retry_at + 2, Message::Disconnected { peer: NodeId::Broker(1), correlation_id: 0 }, &mut out);
    assert_eq!(connects(&mut out), vec![NodeId::Broker(2)]);
    p.handle(retry_at + 4, Message::Connected { peer: NodeId::Broker(2) }, &mut out);
    let retry = requests(&mut out);
    assert_eq!(retry[0].0, NodeId::Broker(2));
    assert_eq!(retry[0].1.batch, first.batch);
    // A refused connection is no error response and spends no retry.
    let v = p.view_last();
    assert_eq!((v.errors.len(), v.failed), (1, 0));
    assert!(v.unreachable.is_empty(), "broker 1 leads nothing now: nothing waits for it");
}

/// Mirrors Kafka's SenderTest situations where the leader's node cannot be reached: the
/// accumulator keeps the data, the reconnect backoff grows, nothing fails before
/// `delivery.timeout.ms`.
#[test]
fn batches_for_an_unreachable_leader_wait_without_spending_retries() {
    let cfg = ProducerConfig { linger_ms: 0, retries: 2, ..config() };
    let mut p = producer(cfg, 1);
    let mut out = Outbox::default();
    p.handle(0, metadata(&[Some(1)], 0), &mut out);
    p.enqueue(0, 3);
    p.on_tick(0, &mut out);
    assert_eq!(connects(&mut out), vec![NodeId::Broker(1)]);
    // Refuse every attempt for 9 s; record when they come.
    let mut attempts = vec![0];
    let mut now = 0;
    while now < 9_000 {
        p.handle(now + 2, Message::Disconnected { peer: NodeId::Broker(1), correlation_id: 0 }, &mut out);
        assert!(out.sends.is_empty(), "no request to an unreachable broker");
        now = p.next_deadline().unwrap();
        p.on_tick(now, &mut out);
        assert_eq!(connects(&mut out), vec![NodeId::Broker(1)], "at {now}");
        attempts.push(now);
    }
    // Reconnect backoff: 50, 100, 200, 400, 800, then 1000 ms (each ± 20 %, at most 1000).
    let gaps: Vec<Ms> = attempts.windows(2).map(|w| w[1] - w[0] - 2).collect();
    for (gap, base) in gaps.iter().zip([50, 100, 200, 400, 800, 1000, 1000]) {
        assert!((base * 8 / 10..=(base * 12 / 10).min(1000)).contains(gap), "{gaps:?}");
    }
    let v = p.view_last();
    assert_eq!((v.failed, v.pending, v.errors.len()), (0, 3, 0));
    assert_eq!(v.unreachable, vec![1]);
    // The broker is back: the batch goes at once, as the first attempt.
    p.handle(now + 2, Message::Connected { peer: NodeId::Broker(1) }, &mut out);
    let sent = requests(&mut out).remove(0).1;
    assert_eq!(sent.batch.values, vec![0, 1, 2]);
    p.handle(now + 3, ok(&sent, 0, 0), &mut out);
    assert_eq!((p.view_last().acked, p.view_last().failed), (3, 0));
    assert!(p.view_last().unreachable.is_empty());
}

#[test]
fn an_unanswered_connection_attempt_times_out_and_the_next_waits_longer() {
    let mut p = producer(ProducerConfig { linger_ms: 0, ..config() }, 1);
    let mut out = Outbox::default();
    p.handle(0, metadata(&[Some(1)], 0), &mut out);
    p.enqueue(0, 1);
    p.on_tick(0, &mut out);
    assert_eq!(connects(&mut out), vec![NodeId::Broker(1)]);
    // No answer (the handshake was lost): socket.connection.setup.timeout.ms = 10 s ± 20 %.
    let timeout = p.next_deadline().unwrap();
    assert!((8_000..=12_000).contains(&timeout), "{timeout}");
    p.on_tick(timeout, &mut out);
    assert!(out.sends.is_empty());
    let again = p.next_deadline().unwrap();
    assert!((timeout + 40..=timeout + 60).contains(&again), "reconnect.backoff.ms: {again}");
    p.on_tick(again, &mut out);
    assert_eq!(connects(&mut out), vec![NodeId::Broker(1)]);
    // The second attempt may take twice as long (20 s ± 20 %).
    let second = p.next_deadline().unwrap() - again;
    assert!((16_000..=24_000).contains(&second), "{second}");
    assert_eq!(p.view_last().errors.len(), 0);
}

#[test]
fn acks_zero_never_waits_and_is_not_reported_to_the_ledger() {
    let cfg = ProducerConfig { linger_ms: 0, batch_size: 261, acks: Acks::Zero, ..config() };
    let (mut p, mut out) = with_leaders(cfg, &[Some(1)], 0);
    p.enqueue(0, 5);
    p.on_tick(0, &mut out);
    let sent = requests(&mut out);
    assert_eq!(sent.iter().map(|(_, r)| r.batch.values.len()).collect::<Vec<_>>(), vec![2, 2, 1]);
    assert!(sent.iter().all(|(_, r)| r.acks == Acks::Zero && r.batch.producer_id == -1));
    let v = p.view_last();
    assert_eq!((v.acked, v.unacked, v.pending, v.idempotent), (0, 5, 0, false), "sent, never acked");
    assert!(out.acked.is_empty());
    assert_eq!(p.next_deadline(), Some(METADATA_MAX_AGE_MS));
}

#[test]
fn acked_records_carry_offsets_epoch_and_acks() {
    let (mut p, mut out) = with_leaders(ProducerConfig { linger_ms: 0, ..config() }, &[Some(1)], 0);
    p.enqueue(0, 3);
    p.on_tick(0, &mut out);
    let r = requests(&mut out).remove(0).1;
    p.handle(4, ok(&r, 42, 3), &mut out);
    assert_eq!(
        out.acked,
        vec![AckedRecords {
            tp: tp(0),
            base_offset: 42,
            leader_epoch: 3,
            leader: 1,
            values: Values::range(0, 3),
            acks: Acks::All,
            retried: false,
        }]
    );
    assert_eq!(p.view_last().acked, 3);
}

/// Sends one single-record batch at `t` (linger.ms = 0) and returns its request.
fn send_one(p: &mut ProducerClient, t: Ms, out: &mut Outbox) -> ProduceRequest {
    p.enqueue(t, 1);
    p.on_tick(t, out);
    requests(out).remove(0).1
}

/// Mirrors SenderTest's in-flight limit: at most `max.in.flight.requests.per.connection`
/// requests unanswered per broker; an answer frees a place for the next.
#[test]
fn at_most_max_in_flight_requests_per_broker() {
    let cfg = ProducerConfig { linger_ms: 0, enable_idempotence: false, ..config() };
    let (mut p, mut out) = with_leaders(cfg, &[Some(1)], 0);
    let sent: Vec<ProduceRequest> = (0..5).map(|t| send_one(&mut p, t, &mut out)).collect();
    p.enqueue(5, 1);
    p.on_tick(5, &mut out);
    assert!(out.sends.is_empty(), "five requests unanswered: the sixth batch waits");
    p.handle(6, ok(&sent[0], 0, 0), &mut out);
    assert_eq!(requests(&mut out)[0].1.batch.values, vec![5]);
}

/// Without idempotence, a failed batch re-enqueued behind batches already in flight is
/// written after them (Kafka documents this for max.in.flight.requests.per.connection > 1
/// with retries): the second batch's records overtake the first's.
#[test]
fn without_idempotence_a_retry_lands_after_later_batches() {
    let cfg = ProducerConfig { linger_ms: 0, enable_idempotence: false, ..config() };
    let (mut p, mut out) = with_leaders(cfg, &[Some(1)], 0);
    let first = send_one(&mut p, 0, &mut out);
    let second = send_one(&mut p, 1, &mut out);
    assert_eq!((first.batch.producer_id, second.batch.producer_id), (-1, -1));
    p.handle(2, err(&first, ErrorCode::NotEnoughReplicas, ""), &mut out);
    p.handle(3, ok(&second, 0, 0), &mut out);
    let t = p.next_deadline().unwrap();
    p.on_tick(t, &mut out);
    let retry = requests(&mut out).remove(0).1;
    assert_eq!(retry.batch.values, vec![0]);
    p.handle(t + 1, ok(&retry, 1, 0), &mut out);
    let offsets: Vec<(i64, Vec<u64>)> =
        out.acked.iter().map(|a| (a.base_offset, a.values.to_vec())).collect();
    assert_eq!(offsets, vec![(0, vec![1]), (1, vec![0])]);
}

/// Mirrors SenderTest's idempotent retries with several batches in flight: the leader
/// refuses the second batch with OUT_OF_ORDER_SEQUENCE_NUMBER because the first was not
/// written; the client retries both (the second is not the next sequence,
/// `TransactionManager.canRetry`), in sequence order and one at a time
/// (`RecordAccumulator.shouldStopDrainBatchesForPartition`), so order is kept.
#[test]
fn idempotent_retries_keep_the_order() {
    let (mut p, mut out) = with_leaders(ProducerConfig { linger_ms: 0, ..config() }, &[Some(1)], 0);
    let first = send_one(&mut p, 0, &mut out);
    let second = send_one(&mut p, 1, &mut out);
    assert_eq!((first.batch.base_sequence, second.batch.base_sequence), (0, 1));
    p.handle(2, err(&first, ErrorCode::NotEnoughReplicas, ""), &mut out);
    p.handle(3, err(&second, ErrorCode::OutOfOrderSequenceNumber, ""), &mut out);
    assert_eq!(p.view_last().failed, 0, "the second batch is retried, not failed");
    let t = p.next_deadline().unwrap();
    p.on_tick(t, &mut out);
    let sent = requests(&mut out);
    assert_eq!(sent.len(), 1, "only the first sequence goes while retrying");
    assert_eq!(sent[0].1.batch, first.batch);
    p.handle(t + 1, ok(&sent[0].1, 0, 0), &mut out);
    let t = p.next_deadline().unwrap().max(t + 1);
    p.on_tick(t, &mut out);
    let next = requests(&mut out).remove(0).1;
    assert_eq!(next.batch, second.batch);
    p.handle(t + 1, ok(&next, 1, 0), &mut out);
    let offsets: Vec<(i64, Vec<u64>)> =
        out.acked.iter().map(|a| (a.base_offset, a.values.to_vec())).collect();
    assert_eq!(offsets, vec![(0, vec![0]), (1, vec![1])]);
    assert_eq!(p.view_last().errors.get("OUT_OF_ORDER_SEQUENCE_NUMBER"), Some(&1));
}

/// An OUT_OF_ORDER_SEQUENCE_NUMBER for the next sequence (nothing earlier unresolved) is a
/// real gap: since KIP-360 the idempotent producer bumps its epoch (here: a fresh producer
/// id), restarts the partition's unresolved batches at sequence 0 and retries
/// (`TransactionManager.canRetry`, `requestEpochBumpForPartition`,
/// `TxnPartitionEntry.startSequencesAtBeginning`); the batch behind it, in flight under the
/// old stamp, is re-stamped too, and its own OUT_OF_ORDER_SEQUENCE_NUMBER asks for no second
/// bump (`ProducerBatch.sequenceHasBeenReset`).
#[test]
fn out_of_order_sequence_for_the_next_sequence_bumps_the_epoch_and_retries() {
    let (mut p, mut out) = with_leaders(ProducerConfig { linger_ms: 0, ..config() }, &[Some(1)], 0);
    let first = send_one(&mut p, 0, &mut out);
    let second = send_one(&mut p, 1, &mut out);
    let old_id = p.producer_id();
    p.handle(2, err(&first, ErrorCode::OutOfOrderSequenceNumber, ""), &mut out);
    assert_eq!(p.view_last().failed, 0, "retried, not failed");
    let new_id = p.producer_id();
    assert_ne!(new_id, old_id, "the epoch was bumped");
    p.handle(3, err(&second, ErrorCode::OutOfOrderSequenceNumber, ""), &mut out);
    assert_eq!(p.producer_id(), new_id, "a re-stamped batch asks for no second bump");
    let t = p.next_deadline().unwrap();
    p.on_tick(t, &mut out);
    let retry = requests(&mut out).remove(0).1;
    assert_eq!(
        (retry.batch.producer_id, retry.batch.base_sequence, retry.batch.values.to_vec()),
        (new_id, 0, vec![0])
    );
    p.handle(t + 1, ok(&retry, 10, 1), &mut out);
    let t = p.next_deadline().unwrap().max(t + 1);
    p.on_tick(t, &mut out);
    let next = requests(&mut out).remove(0).1;
    assert_eq!(
        (next.batch.producer_id, next.batch.base_sequence, next.batch.values.to_vec()),
        (new_id, 1, vec![1])
    );
    p.handle(t + 1, ok(&next, 11, 1), &mut out);
    let v = p.view_last();
    assert_eq!((v.acked, v.failed), (2, 0));
    assert_eq!(v.errors.get("OUT_OF_ORDER_SEQUENCE_NUMBER"), Some(&2));
}

#[test]
fn a_restart_abandons_what_it_held_and_starts_a_new_id_at_sequence_0() {
    let (mut p, mut out) = with_leaders(ProducerConfig { linger_ms: 0, ..config() }, &[Some(1)], 0);
    p.enqueue(0, 3);
    p.on_tick(0, &mut out);
    let old = requests(&mut out).remove(0).1;
    assert_eq!((old.batch.producer_id, old.batch.base_sequence), (7, 0));
    // Two more wait in the accumulator (no tick has drained them yet).
    p.enqueue(1, 2);
    p.restart(1, 1005, &mut out);
    let v = p.view_last();
    assert_eq!((v.sent, v.acked, v.failed, v.pending), (5, 0, 5, 0));
    assert!(matches!(
        out.events.last(),
        Some(EventKind::ProducerRestarted {
            producer: 0,
            old_id: 7,
            new_id: 1005,
            idempotent: true,
            unsent: 2,
            unanswered: 3
        })
    ));
    // The old request's late answer acknowledges nothing: nobody waits for it any more.
    p.handle(2, ok(&old, 0, 0), &mut out);
    assert!(out.acked.is_empty());
    assert_eq!(p.view_last().acked, 0);
    p.enqueue(3, 1);
    p.on_tick(3, &mut out);
    let next = requests(&mut out).remove(0).1;
    assert_eq!((next.batch.producer_id, next.batch.base_sequence), (1005, 0));
    assert_eq!(p.producer_id(), 1005);
}
