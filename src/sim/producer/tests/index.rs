//! The index of partitions that hold something, checked against walks over every partition.

use super::*;

/// The sender's decisions made by walking every partition, as the producer did before
/// [`Holding`]: the reference the index is checked against (a missed [`ProducerClient::relist`]
/// shows as a difference).
impl ProducerClient {
    /// [`Holding`] rebuilt from every partition's queues and leader.
    fn holding_walk(&self) -> Holding {
        let mut h = Holding::default();
        for (i, p) in self.partitions.iter().enumerate() {
            h.move_to(i, None, p.holds().then_some(p.leader));
        }
        h
    }

    fn in_flight_requests_walk(&self) -> RequestCounts {
        let requests =
            self.partitions.iter().flat_map(|p| &p.in_flight).map(|f| (f.leader, f.request)).collect();
        RequestCounts::of_pairs(requests)
    }

    /// [`Self::next_deadline`] over every partition.
    fn next_deadline_walk(&self) -> Option<Ms> {
        let dt = self.config.delivery_timeout_ms;
        let mut next = self.generation_deadline();
        let mut consider = |t: Option<Ms>| {
            if let Some(t) = t {
                next = Some(next.map_or(t, |n: Ms| n.min(t)));
            }
        };
        let last = self.last_refresh;
        consider(last.map(|last| match self.refresh_wanted {
            true => last,
            false if self.partitions.iter().any(|p| p.leader.is_none()) => {
                (last + METADATA_MAX_AGE_MS).min(last + self.config.retry_backoff_ms.max(1))
            }
            false => last + METADATA_MAX_AGE_MS,
        }));
        consider(self.unassigned.front().map(|r| r.created + dt));
        let requests = self.in_flight_requests_walk();
        for i in 0..self.partitions.len() {
            consider(self.partition_deadline(i, &requests));
        }
        consider(self.conns.next_setup_timeout());
        next
    }

    /// [`Self::drain_plan`] over every partition: the leaders with a drainable partition, then
    /// for each the drainable partitions it leads.
    fn drain_plan_walk(&self, now: Ms) -> Vec<(BrokerId, Vec<usize>)> {
        let requests = self.in_flight_requests_walk();
        let leaders: BTreeSet<BrokerId> = (0..self.partitions.len())
            .filter(|&i| self.drainable(now, i, &requests))
            .filter_map(|i| self.partitions[i].leader)
            .collect();
        leaders
            .into_iter()
            .map(|b| {
                let led = (0..self.partitions.len())
                    .filter(|&i| self.partitions[i].leader == Some(b) && self.drainable(now, i, &requests));
                (b, led.collect())
            })
            .collect()
    }

    /// [`ProducerView::pending`] over every partition.
    fn pending_walk(&self) -> u64 {
        self.unassigned.len() as u64 + self.partitions.iter().map(|p| p.pending()).sum::<u64>()
    }
}

/// One step of [`the_index_decides_as_a_walk_over_every_partition`].
#[derive(Clone, Debug)]
enum Step {
    /// Time passes by this many ms, then the producer ticks.
    Tick(u8),
    /// The producer ticks at its next deadline, if any, within this many ms.
    Deadline(u16),
    /// `produce` of that many records, with key `k{n}` or none.
    Produce(u8, Option<u8>),
    /// Metadata: leader of each partition (`None` for 3), epoch raised or not; fewer
    /// partitions than the topic has leave the rest as they are.
    Metadata(Vec<u8>, bool),
    /// The request at this place among those unanswered gets an answer: `None` success,
    /// else the error at this place in [`ERRORS`].
    Answer(u8, Option<u8>),
    /// Broker `b`'s connection handshake is answered.
    Connected(u8),
    /// Broker `b` refuses or drops the connection.
    Disconnected(u8),
    /// A config change: max in flight, acks, idempotence, linger, adaptive, availability
    /// timeout, round robin.
    Config(u8, u8, bool, u8, bool, bool, bool),
    Restart,
    DeleteTopic,
}

const ERRORS: &[ErrorCode] = &[
    ErrorCode::NotLeaderOrFollower,
    ErrorCode::NotEnoughReplicas,
    ErrorCode::OutOfOrderSequenceNumber,
    ErrorCode::RequestTimedOut,
    ErrorCode::InvalidRequiredAcks,
];

fn step() -> impl proptest::strategy::Strategy<Value = Step> {
    use proptest::prelude::*;
    prop_oneof![
        4 => any::<u8>().prop_map(Step::Tick),
        4 => (0u16..2_000).prop_map(Step::Deadline),
        4 => (0u8..40, proptest::option::of(0u8..8)).prop_map(|(n, k)| Step::Produce(n, k)),
        1 => (proptest::collection::vec(0u8..4, 1..8), any::<bool>()).prop_map(|(l, e)| Step::Metadata(l, e)),
        5 => (any::<u8>(), proptest::option::weighted(0.3, 0u8..5)).prop_map(|(i, e)| Step::Answer(i, e)),
        2 => (0u8..3).prop_map(Step::Connected),
        1 => (0u8..3).prop_map(Step::Disconnected),
        1 => (1u8..4, 0u8..3, any::<bool>(), 0u8..3, any::<bool>(), any::<bool>(), proptest::bool::weighted(0.2))
            .prop_map(|(m, a, i, l, ad, av, rr)| Step::Config(m, a, i, l, ad, av, rr)),
        1 => Just(Step::Restart),
        1 => Just(Step::DeleteTopic),
    ]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: 256,
        rng_seed: proptest::test_runner::RngSeed::Fixed(20261202),
        failure_persistence: None,
        ..Default::default()
    })]

    /// Whatever happens (records, metadata and leader moves, answers and errors, lost
    /// connections, config changes, restarts, a deleted topic), the index of partitions
    /// that hold something matches one rebuilt from every partition, and the deadline, the
    /// in-flight counts, the pending count and what a drain would send at several instants
    /// are what a walk over every partition decides.
    #[test]
    fn the_index_decides_as_a_walk_over_every_partition(steps in proptest::collection::vec(step(), 1..120)) {
        let cfg = ProducerConfig { delivery_timeout_ms: 3_000, request_timeout_ms: 500, linger_ms: 5, batch_size: 300, ..config() };
        let (mut p, mut out) = with_leaders(cfg, &[Some(0), Some(1), Some(2), Some(0)], 0);
        let (mut now, mut epoch) = (0 as Ms, 0 as Epoch);
        let mut unanswered: Vec<ProduceRequest> = Vec::new();
        for step in steps {
            match step {
                Step::Tick(dt) => {
                    now += Ms::from(dt);
                    p.on_tick(now, &mut out);
                }
                Step::Deadline(within) => {
                    if let Some(t) = p.next_deadline().filter(|&t| t <= now + Ms::from(within)) {
                        now = now.max(t);
                        p.on_tick(now, &mut out);
                    }
                }
                Step::Produce(n, key) => p.enqueue_with_key(now, u64::from(n), key.map(|k| format!("k{k}")).as_deref()),
                Step::Metadata(leaders, bump) => {
                    epoch += Epoch::from(bump);
                    let leaders: Vec<Option<BrokerId>> =
                        leaders.iter().map(|&b| (b < 3).then_some(BrokerId::from(b))).collect();
                    p.handle(now, metadata(&leaders, epoch), &mut out);
                }
                Step::Answer(k, e) => {
                    if !unanswered.is_empty() {
                        let r = unanswered.remove(usize::from(k) % unanswered.len());
                        let m = match e {
                            None => ok(&r, 0, epoch),
                            Some(e) => err(&r, ERRORS[usize::from(e)], ""),
                        };
                        p.handle(now, m, &mut out);
                    }
                }
                Step::Connected(b) => {
                    p.handle(now, Message::Connected { peer: NodeId::Broker(BrokerId::from(b)) }, &mut out)
                }
                Step::Disconnected(b) => {
                    let peer = NodeId::Broker(BrokerId::from(b));
                    p.handle(now, Message::Disconnected { peer, correlation_id: 0 }, &mut out)
                }
                Step::Config(m, a, idempotence, l, adaptive, availability, rr) => {
                    let config = ProducerConfig {
                        max_in_flight: u32::from(m) * 2 - 1,
                        acks: [Acks::Zero, Acks::One, Acks::All][usize::from(a)],
                        enable_idempotence: idempotence,
                        linger_ms: [0, 5, 50][usize::from(l)],
                        partitioner_adaptive: adaptive,
                        partitioner_availability_timeout_ms: if availability { 20 } else { 0 },
                        partitioner_class: if rr { PartitionerClass::RoundRobin } else { PartitionerClass::BuiltIn },
                        ..p.config.clone()
                    };
                    p.set_config(now, config);
                }
                Step::Restart => p.restart(now, 100 + now as i64, &mut out),
                Step::DeleteTopic => {
                    let delta = MetadataDelta { deleted_topics: vec![Arc::from(TOPIC)], ..Default::default() };
                    p.handle(now, Message::Metadata(delta), &mut out);
                }
            }
            for (_, m) in mem::take(&mut out.sends) {
                if let Message::Produce(r) = m && r.acks != Acks::Zero {
                    unanswered.push(r);
                }
            }
            proptest::prop_assert_eq!(&p.holding, &p.holding_walk());
            proptest::prop_assert_eq!(p.in_flight_requests(), p.in_flight_requests_walk());
            proptest::prop_assert_eq!(p.next_deadline(), p.next_deadline_walk());
            proptest::prop_assert_eq!(p.view_last().pending, p.pending_walk());
            let with_leader: Vec<usize> = (0..p.partitions.len()).filter(|&i| p.partitions[i].leader.is_some()).collect();
            proptest::prop_assert_eq!(&p.with_leader[..], &with_leader[..]);
            let requests = p.in_flight_requests();
            for t in [now, now + 5, now + 60, now + 2_000] {
                proptest::prop_assert_eq!(p.drain_plan(t, &requests), p.drain_plan_walk(t));
            }
        }
    }
}
