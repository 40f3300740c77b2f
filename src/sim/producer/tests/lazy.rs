//! The lazy rate generator against a wake-up per record: a producer that appends the records
//! it owes only when it next runs must send, acknowledge, fail, retry and report exactly what
//! one woken for every record does, and show the same counters at any instant.

use super::*;

/// Something the script does to both producers at an instant.
#[derive(Clone, Debug)]
enum Act {
    /// `produce` of that many records, with key `k{n}` or none.
    Produce(u8, Option<u8>),
    /// Metadata: leader of each partition (`None` for 3), epoch raised or not.
    Metadata(Vec<u8>, bool),
    /// Broker `b` drops the connection.
    Disconnected(u8),
    /// A config change: rate index, linger index, max in flight, adaptive, availability
    /// timeout, round robin, batch size index.
    Config(u8, u8, u8, bool, bool, bool, u8),
    Restart,
}

fn act() -> impl proptest::strategy::Strategy<Value = Act> {
    use proptest::prelude::*;
    prop_oneof![
        2 => (0u8..30, proptest::option::of(0u8..8)).prop_map(|(n, k)| Act::Produce(n, k)),
        2 => (proptest::collection::vec(0u8..4, 1..5), any::<bool>()).prop_map(|(l, e)| Act::Metadata(l, e)),
        1 => (0u8..3).prop_map(Act::Disconnected),
        3 => (0u8..5, 0u8..4, 1u8..4, any::<bool>(), proptest::bool::weighted(0.3), proptest::bool::weighted(0.2), 0u8..3)
            .prop_map(|(r, l, m, ad, av, rr, b)| Act::Config(r, l, m, ad, av, rr, b)),
        1 => Just(Act::Restart),
    ]
}

/// What a run shows: every send, event and acknowledgement with its instant, and the
/// counters sampled at fixed instants.
type Trace = Vec<(Ms, String)>;

/// Runs `p` against a fake cluster for `end` ms: `script` acts at its instants, connection
/// handshakes are answered 1 ms later, and every produce request `answer_ms` later, with
/// `NOT_ENOUGH_REPLICAS` for every `error_every`-th one. The producer runs at its deadlines
/// and whenever a message reaches it, as the runtime runs it.
fn run(mut p: ProducerClient, script: &[(Ms, Act)], end: Ms, answer_ms: Ms, error_every: u64) -> Trace {
    let mut trace = Trace::new();
    let mut out = Outbox::default();
    let mut mail: BTreeMap<(Ms, u64), Message> = BTreeMap::new();
    let (mut seq, mut now, mut epoch, mut answered) = (0u64, 0 as Ms, 0 as Epoch, 0u64);
    let mut script = script.iter().peekable();
    let mut samples = (0..=end).step_by(97).peekable();
    let mut spins = 0;
    loop {
        let next = [
            p.next_deadline(),
            mail.keys().next().map(|k| k.0),
            script.peek().map(|s| s.0),
            samples.peek().copied(),
        ]
        .into_iter()
        .flatten()
        .min();
        let Some(next) = next.filter(|&t| t <= end) else { break };
        spins = if next <= now { spins + 1 } else { 0 };
        assert!(spins < 1_000, "the producer keeps asking to run at {now}");
        now = now.max(next);
        while let Some(entry) = mail.first_entry().filter(|e| e.key().0 <= now) {
            p.handle(now, entry.remove(), &mut out);
        }
        while let Some((_, a)) = script.next_if(|s| s.0 <= now) {
            match a.clone() {
                Act::Produce(n, key) => {
                    p.enqueue_with_key(now, u64::from(n), key.map(|k| format!("k{k}")).as_deref())
                }
                Act::Metadata(leaders, bump) => {
                    epoch += Epoch::from(bump);
                    let leaders: Vec<Option<BrokerId>> =
                        leaders.iter().map(|&b| (b < 3).then_some(BrokerId::from(b))).collect();
                    p.handle(now, metadata(&leaders, epoch), &mut out);
                }
                Act::Disconnected(b) => {
                    let peer = NodeId::Broker(BrokerId::from(b));
                    p.handle(now, Message::Disconnected { peer, correlation_id: 0 }, &mut out)
                }
                Act::Config(r, l, m, adaptive, availability, rr, b) => {
                    let config = ProducerConfig {
                        rate: [0.0, 0.5, 100.0, 1_000.0, 3_300.0][usize::from(r)],
                        linger_ms: [0, 5, 30, 200][usize::from(l)],
                        max_in_flight: u32::from(m) * 2 - 1,
                        partitioner_adaptive: adaptive,
                        partitioner_availability_timeout_ms: if availability { 20 } else { 0 },
                        partitioner_class: if rr {
                            PartitionerClass::RoundRobin
                        } else {
                            PartitionerClass::BuiltIn
                        },
                        batch_size: [300, 1_000, 16_384][usize::from(b)],
                        ..p.config().clone()
                    };
                    p.set_config(now, config);
                }
                Act::Restart => p.restart(now, 100 + now as i64, &mut out),
            }
        }
        while samples.next_if(|&s| s <= now).is_some() {
            let v = p.view(now);
            trace.push((
                now,
                format!("sent {} acked {} failed {} pending {}", v.sent, v.acked, v.failed, v.pending),
            ));
        }
        if p.next_deadline().is_some_and(|t| t <= now) {
            p.on_tick(now, &mut out);
        }
        for (to, m) in mem::take(&mut out.sends) {
            trace.push((now, format!("{to:?} {m:?}")));
            seq += 1;
            match m {
                Message::Connect => {
                    mail.insert((now + 1, seq), Message::Connected { peer: to });
                }
                Message::Produce(r) if r.acks != Acks::Zero => {
                    answered += 1;
                    let answer = match answered.is_multiple_of(error_every) {
                        true => err(&r, ErrorCode::NotEnoughReplicas, ""),
                        false => ok(&r, answered as i64, epoch),
                    };
                    mail.insert((now + answer_ms, seq), answer);
                }
                _ => {}
            }
        }
        trace.extend(mem::take(&mut out.events).into_iter().map(|e| (now, format!("{e:?}"))));
        trace.extend(mem::take(&mut out.acked).into_iter().map(|a| (now, format!("{a:?}"))));
    }
    trace
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: 64,
        rng_seed: proptest::test_runner::RngSeed::Fixed(20261204),
        failure_persistence: None,
        ..Default::default()
    })]

    /// Whatever the rate, linger, batch size, partitioner, in-flight limit, answers, errors,
    /// leader moves, lost connections and restarts, a producer that appends the records it
    /// owes only when it next runs (each at its own instant) sends the same requests at the
    /// same instants, with the same records, sequences and timestamps, acknowledges and fails
    /// the same records with the same events, and shows the same counters at every instant as
    /// one woken for every record.
    #[test]
    fn lazy_generation_decides_as_a_wake_up_per_record(
        acts in proptest::collection::vec((0u64..6_000, act()), 1..25),
        rate in 0u8..5,
        linger in 0u8..4,
        answer_ms in 1u64..40,
        error_every in 2u64..9,
    ) {
        let cfg = ProducerConfig {
            rate: [0.5, 50.0, 700.0, 1_000.0, 2_500.0][usize::from(rate)],
            linger_ms: [0, 5, 20, 100][usize::from(linger)],
            delivery_timeout_ms: 2_500,
            request_timeout_ms: 400,
            batch_size: 1_000,
            ..config()
        };
        let mut script: Vec<(Ms, Act)> = vec![(0, Act::Metadata(vec![0, 1, 2, 0], false))];
        script.extend(acts);
        script.sort_by_key(|s| s.0);
        let lazy = producer(cfg, 3);
        let mut eager = lazy.clone();
        eager.tick_per_record = true;
        let (a, b) = (run(lazy, &script, 6_500, answer_ms, error_every), run(eager, &script, 6_500, answer_ms, error_every));
        proptest::prop_assert!(a.len() > 60);
        if let Some(k) = (0..a.len().min(b.len())).find(|&k| a[k] != b[k]) {
            proptest::prop_assert_eq!(&a[k], &b[k], "first difference at entry {}", k);
        }
        proptest::prop_assert_eq!(a.len(), b.len());
    }
}

/// The lazy producer wakes about once per batch at 1,000 records/s (linger.ms = 5), not once
/// per record, and sends what a producer woken for every record sends.
#[test]
fn at_a_thousand_records_a_second_the_producer_wakes_per_batch_not_per_record() {
    let cfg = ProducerConfig { rate: 1_000.0, linger_ms: 5, ..config() };
    let (lazy, _) = with_leaders(cfg, &[Some(0), Some(1), Some(2)], 0);
    let mut eager = lazy.clone();
    eager.tick_per_record = true;
    // Runs to 2 s, answering every request at once; counts the wake-ups at deadlines.
    let run = |mut p: ProducerClient| {
        let mut out = Outbox::default();
        let (mut wake_ups, mut sent) = (0u32, Vec::new());
        while let Some(t) = p.next_deadline().filter(|&t| t <= 2_000) {
            p.on_tick(t, &mut out);
            wake_ups += 1;
            for (_, m) in mem::take(&mut out.sends) {
                if let Message::Produce(r) = m {
                    p.handle(t, ok(&r, 0, 0), &mut out);
                    sent.push((t, r));
                }
            }
        }
        (sent, p.view(2_000).sent, wake_ups)
    };
    let (lazy_sent, lazy_records, lazy_wake_ups) = run(lazy);
    let (eager_sent, eager_records, eager_wake_ups) = run(eager);
    assert_eq!(lazy_sent, eager_sent);
    assert_eq!((lazy_records, eager_records), (2_000, 2_000));
    assert!(eager_wake_ups >= 2_000, "{eager_wake_ups}");
    // A batch every 6 ms: its first record lingers 5 ms and takes the records of its linger.
    assert!(lazy_wake_ups <= 2_000 / 5, "{lazy_wake_ups}");
    assert!(lazy_sent.len() >= 2_000 / 7, "{}", lazy_sent.len());
}
