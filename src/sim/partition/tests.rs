use super::*;
use crate::sim::protocol::{Batch, FetchedData, Values};

struct Fixture {
    config: BrokerConfig,
    topic: TopicConfig,
    brokers: BTreeMap<BrokerId, BrokerRegistration>,
    session_fetches: SessionFetchTimes,
}

impl Fixture {
    fn new(min_isr: u32) -> Self {
        let brokers = [1, 2, 3]
            .into_iter()
            .map(|id| {
                (id, BrokerRegistration { id, broker_epoch: 1, fenced: false, in_controlled_shutdown: false })
            })
            .collect();
        let topic = TopicConfig { min_insync_replicas: Some(min_isr), ..Default::default() };
        Self {
            config: BrokerConfig::default(),
            topic,
            brokers,
            session_fetches: SessionFetchTimes::default(),
        }
    }

    fn ctx(&self, me: BrokerId, now: Ms) -> Ctx<'_> {
        Ctx {
            now,
            me,
            broker_epoch: 1,
            config: &self.config,
            topic: &self.topic,
            brokers: &self.brokers,
            next_isr_check: 0,
            session_fetches: &self.session_fetches,
        }
    }
}

fn state(
    leader: Option<BrokerId>,
    isr: &[BrokerId],
    leader_epoch: Epoch,
    partition_epoch: Epoch,
) -> PartitionState {
    PartitionState {
        topic_id: crate::sim::TopicId::from_bits(7),
        tp: TopicPartition::new("t", 0),
        replicas: vec![1, 2, 3],
        isr: isr.to_vec(),
        leader,
        leader_epoch,
        partition_epoch,
        leader_recovery: LeaderRecoveryState::Recovered,
        adding: Vec::new(),
        removing: Vec::new(),
        elr: Vec::new(),
        last_known_elr: Vec::new(),
    }
}

fn leader(f: &Fixture) -> Partition {
    let mut p = Partition::new(TopicPartition::new("t", 0), PartitionLog::new());
    p.apply_state(&f.ctx(1, 0), &state(Some(1), &[1, 2, 3], 0, 0), &mut Outbox::default());
    p
}

fn produce(p: &mut Partition, f: &Fixture, now: Ms, n: u64, acks: Acks) -> Outbox {
    let mut out = Outbox::default();
    let req = ProduceRequest {
        correlation_id: now,
        producer: 0,
        tp: p.tp.clone(),
        acks,
        timeout_ms: 30_000,
        batch: Batch {
            producer_id: -1,
            base_sequence: -1,
            values: (0..n).collect(),
            record_size: 100,
            max_timestamp: now,
        },
    };
    p.on_produce(&f.ctx(1, now), &req, &mut out);
    out
}

fn fetch(
    p: &mut Partition,
    f: &Fixture,
    now: Ms,
    replica: BrokerId,
    offset: Offset,
) -> (FetchedData, Outbox) {
    let mut out = Outbox::default();
    let fp = FetchPartition {
        topic_id: TopicId::ZERO,
        tp: p.tp.clone(),
        current_leader_epoch: 0,
        fetch_offset: offset,
        last_fetched_epoch: (offset > 0).then_some(0),
        log_start_offset: 0,
    };
    let r = p.on_follower_fetch(&f.ctx(1, now), replica, 1, &fp, &mut out);
    (r.expect("fetch served"), out)
}

fn responses(out: &Outbox) -> Vec<Result<(Offset, Epoch), ErrorCode>> {
    out.sends
        .iter()
        .filter_map(|(_, m)| match m {
            Message::ProduceResponse(r) => Some(r.result),
            _ => None,
        })
        .collect()
}

/// S2: the HW moves only when every ISR follower's next fetch reports the record, and the
/// acks=all produce completes then (two-round commit, R3.7).
#[test]
fn hw_advances_after_every_isr_follower_fetched_past_the_record() {
    let f = Fixture::new(2);
    let mut p = leader(&f);
    let out = produce(&mut p, &f, 10, 1, Acks::All);
    assert!(responses(&out).is_empty(), "acks=all waits");
    let (data, _) = fetch(&mut p, &f, 11, 2, 0);
    assert_eq!(data.batches.len(), 1);
    fetch(&mut p, &f, 11, 3, 0);
    assert_eq!(p.log.hw(), 0);
    let (_, out) = fetch(&mut p, &f, 12, 2, 1);
    assert_eq!(p.log.hw(), 0, "broker 3 still in the ISR at LEO 0");
    assert!(responses(&out).is_empty());
    let (data, out) = fetch(&mut p, &f, 12, 3, 1);
    assert_eq!(p.log.hw(), 1);
    assert_eq!(data.high_watermark, 1);
    assert_eq!(responses(&out), vec![Ok((0, 0))]);
}

#[test]
fn acks_all_is_refused_below_min_isr_and_nothing_is_appended() {
    let f = Fixture::new(2);
    let mut p = Partition::new(TopicPartition::new("t", 0), PartitionLog::new());
    p.apply_state(&f.ctx(1, 0), &state(Some(1), &[1], 0, 0), &mut Outbox::default());
    let out = produce(&mut p, &f, 5, 3, Acks::All);
    assert_eq!(responses(&out), vec![Err(ErrorCode::NotEnoughReplicas)]);
    assert_eq!(p.log.leo(), 0);
    // acks=1 is appended but the HW stays frozen under min ISR (R3.3 step 1, Kafka 3.7+).
    let out = produce(&mut p, &f, 6, 3, Acks::One);
    assert_eq!(responses(&out), vec![Ok((0, 0))]);
    assert_eq!((p.log.leo(), p.log.hw()), (3, 0));
    assert!(p.hw_blocked_by(&f.ctx(1, 6)).unwrap().contains("min.insync.replicas=2"));
}

/// Without strict min ISR (before KAFKA-15583, Kafka 3.7) the same acks=1 append commits:
/// the rule is read from the semantics, not hard-coded.
#[test]
fn the_hw_freeze_under_min_isr_follows_the_semantics() {
    let mut f = Fixture::new(2);
    f.config.semantics.strict_min_isr = false;
    let mut p = Partition::new(TopicPartition::new("t", 0), PartitionLog::new());
    p.apply_state(&f.ctx(1, 0), &state(Some(1), &[1], 0, 0), &mut Outbox::default());
    produce(&mut p, &f, 6, 3, Acks::One);
    assert_eq!((p.log.leo(), p.log.hw()), (3, 3));
    assert_eq!(p.hw_blocked_by(&f.ctx(1, 6)), None);
}

#[test]
fn parked_produce_times_out_with_request_timed_out() {
    let f = Fixture::new(1);
    let mut p = leader(&f);
    produce(&mut p, &f, 0, 1, Acks::All);
    assert_eq!(p.next_deadline(), Some(30_000));
    let mut out = Outbox::default();
    p.expire_delayed(30_000, &mut out);
    assert_eq!(responses(&out), vec![Err(ErrorCode::RequestTimedOut)]);
}

/// R4.1/R4.2: a follower not caught up for more than replica.lag.time.max.ms is proposed
/// for removal; the committed change is reported with the lag.
#[test]
fn lagging_follower_is_shrunk_out_of_the_isr() {
    let f = Fixture::new(1);
    let mut p = leader(&f);
    fetch(&mut p, &f, 500, 3, 0);
    produce(&mut p, &f, 1_000, 1, Acks::One);
    fetch(&mut p, &f, 1_001, 2, 0);
    fetch(&mut p, &f, 1_002, 2, 1);
    let mut out = Outbox::default();
    p.maybe_shrink_isr(&f.ctx(1, 30_000), &mut out);
    assert!(out.sends.is_empty(), "broker 3 was caught up at 500 ms, within 30 s");
    fetch(&mut p, &f, 31_000, 2, 1);
    p.maybe_shrink_isr(&f.ctx(1, 31_000), &mut out);
    let proposed = out.sends.iter().find_map(|(_, m)| match m {
        Message::AlterPartition { new_isr, .. } => Some(new_isr.iter().map(|m| m.id).collect::<Vec<_>>()),
        _ => None,
    });
    assert_eq!(proposed, Some(vec![1, 2]));
    assert!(p.pending_isr().unwrap().contains("removing 3"));
    let mut out = Outbox::default();
    p.on_alter_partition_response(&f.ctx(1, 31_001), &Ok(state(Some(1), &[1, 2], 0, 1)), &mut out);
    assert!(matches!(
        &out.events[..],
        [EventKind::IsrShrunk { removed, cause: ShrinkCause::Lagging { behind_ms: 30_500, limit_ms: 30_000 }, .. }] if removed == &vec![3]
    ));
    assert_eq!(p.log.hw(), 1, "HW jumps once 3 is gone");
}

/// R4.6: a returning follower is proposed for the ISR once its LEO reaches the HW; while
/// pending it already counts in the maximal ISR (R4.7).
#[test]
fn caught_up_follower_is_expanded_into_the_isr() {
    let f = Fixture::new(1);
    let mut p = Partition::new(TopicPartition::new("t", 0), PartitionLog::new());
    p.apply_state(&f.ctx(1, 0), &state(Some(1), &[1, 2], 0, 0), &mut Outbox::default());
    produce(&mut p, &f, 1, 4, Acks::One);
    fetch(&mut p, &f, 2, 2, 4);
    assert_eq!(p.log.hw(), 4);
    let (_, out) = fetch(&mut p, &f, 3, 3, 2);
    assert!(out.sends.is_empty(), "LEO 2 is below the HW 4");
    let (_, out) = fetch(&mut p, &f, 4, 3, 4);
    assert!(matches!(&out.sends[..], [(NodeId::ActiveController, Message::AlterPartition { .. })]));
    assert_eq!(p.maximal_isr(), vec![1, 2, 3]);
    let mut out = Outbox::default();
    p.apply_state(&f.ctx(1, 5), &state(Some(1), &[1, 2, 3], 0, 1), &mut out);
    assert!(matches!(&out.events[..], [EventKind::IsrExpanded { added: 3, .. }]));
}

/// R2.10: a new leader knows no follower LEO, so its HW waits for every ISR follower's
/// first fetch; R7.6: a follower with a dead epoch's tail learns where to truncate.
#[test]
fn new_leader_waits_for_followers_and_reports_divergence() {
    let f = Fixture::new(1);
    let mut old = leader(&f);
    produce(&mut old, &f, 1, 3, Acks::One);
    produce(&mut old, &f, 2, 2, Acks::One);
    let mut p = Partition::new(TopicPartition::new("t", 0), PartitionLog::new());
    p.log.append_as_follower(&old.log.read(0, u64::MAX)[..1]);
    p.apply_state(&f.ctx(2, 10), &state(Some(2), &[2, 3], 1, 1), &mut Outbox::default());
    let mut out = Outbox::default();
    produce_as(&mut p, &f, 2, 11, &mut out);
    assert_eq!(p.log.hw(), 0);
    assert!(p.hw_blocked_by(&f.ctx(2, 11)).unwrap().contains("first fetch"));
    let fp = FetchPartition {
        topic_id: TopicId::ZERO,
        tp: p.tp.clone(),
        current_leader_epoch: 1,
        fetch_offset: 5,
        last_fetched_epoch: Some(0),
        log_start_offset: 0,
    };
    let r = p.on_follower_fetch(&f.ctx(2, 12), 1, 1, &fp, &mut out).unwrap();
    assert_eq!(r.diverging_epoch, Some(crate::sim::protocol::EpochEndOffset { epoch: 0, end_offset: 3 }));
    // A follower still on an older leader epoch is fenced (KIP-320).
    let stale = FetchPartition { current_leader_epoch: 0, ..fp };
    assert_eq!(p.on_follower_fetch(&f.ctx(2, 12), 3, 1, &stale, &mut out), Err(ErrorCode::FencedLeaderEpoch));
}

fn produce_as(p: &mut Partition, f: &Fixture, me: BrokerId, now: Ms, out: &mut Outbox) {
    let req = ProduceRequest {
        correlation_id: 1,
        producer: 0,
        tp: p.tp.clone(),
        acks: Acks::One,
        timeout_ms: 30_000,
        batch: Batch {
            producer_id: -1,
            base_sequence: -1,
            values: Values::range(99, 1),
            record_size: 100,
            max_timestamp: now,
        },
    };
    p.on_produce(&f.ctx(me, now), &req, out);
}

/// A follower that never fetched from a newly elected leader is removed by the lag rule too,
/// counted from the election (R2.10), and the event says so.
#[test]
fn follower_silent_since_the_election_is_named_as_such() {
    let f = Fixture::new(1);
    let mut p = leader(&f);
    produce(&mut p, &f, 1_000, 1, Acks::One);
    fetch(&mut p, &f, 1_001, 2, 1);
    let mut out = Outbox::default();
    p.maybe_shrink_isr(&f.ctx(1, 31_000), &mut out);
    let mut out = Outbox::default();
    p.on_alter_partition_response(&f.ctx(1, 31_001), &Ok(state(Some(1), &[1, 2], 0, 1)), &mut out);
    let text = out.events[0].to_string();
    assert!(text.contains("has not fetched from this leader since it took over 31 000 ms ago"), "{text}");
}

/// R4.2: the expiration task runs every lag/2, so removal lands between 1× and 1.5× the
/// lag after the last caught-up moment.
#[test]
fn isr_removal_waits_for_the_next_expiration_check() {
    assert_eq!(isr_removal_in(10_000, Some(0), 30_000, 15_000), 35_000);
    assert_eq!(isr_removal_in(40_000, Some(0), 30_000, 45_000), 5_000);
    assert_eq!(isr_removal_in(20_000, Some(14_000), 30_000, 30_000), 25_000);
}

/// R2.9 (`UnifiedLog.updateHighWatermark`): a follower takes min(leader HW, own LEO) from
/// every fetch response, also when that is lower than its HW. Kafka's PartitionTest has the
/// follower-side twin of this in its fetcher tests; here: a follower that learned HW 5 from
/// one leader follows a new leader whose HW is 3, then one that claims more than it holds.
#[test]
fn follower_hw_follows_the_leader_down_and_is_capped_by_its_leo() {
    let f = Fixture::new(1);
    let mut source = leader(&f);
    produce(&mut source, &f, 1, 5, Acks::One);
    let records = source.log.read(0, u64::MAX);
    let mut p = Partition::new(TopicPartition::new("t", 0), PartitionLog::new());
    p.apply_state(&f.ctx(2, 2), &state(Some(1), &[1, 2, 3], 0, 0), &mut Outbox::default());
    let data = |hw, batches: Vec<_>| {
        Ok(FetchedData { high_watermark: hw, log_start_offset: 0, diverging_epoch: None, batches })
    };
    let mut out = Outbox::default();
    p.on_fetch_response(&f.ctx(2, 3), 1, &data(5, records), &mut out);
    assert_eq!((p.log.leo(), p.log.hw()), (5, 5));
    // Broker 3 takes over knowing only HW 3: the follower's HW goes back to 3.
    p.apply_state(&f.ctx(2, 4), &state(Some(3), &[3, 2], 1, 1), &mut Outbox::default());
    p.on_fetch_response(&f.ctx(2, 5), 3, &data(3, Vec::new()), &mut out);
    assert_eq!(p.log.hw(), 3, "lower than before, as the leader says");
    // A leader HW past the follower's LEO is capped at the LEO.
    p.on_fetch_response(&f.ctx(2, 6), 3, &data(9, Vec::new()), &mut out);
    assert_eq!(p.log.hw(), 5);
}

/// `Partition.appendRecordsToLeader` recomputes the HW after every append, an idempotent
/// duplicate included, and the purgatory then completes what the new HW satisfies. Here a
/// follower outside the ISR that was caught up holds the HW back (R3.3); once it no longer
/// counts, the producer's retry of the parked batch is found to be a duplicate, and that
/// append moves the HW: the parked original and the retry both succeed.
#[test]
fn duplicate_append_recomputes_the_hw_and_completes_parked_produces() {
    let f = Fixture::new(1);
    let mut p = Partition::new(TopicPartition::new("t", 0), PartitionLog::new());
    p.apply_state(&f.ctx(1, 0), &state(Some(1), &[1], 0, 0), &mut Outbox::default());
    fetch(&mut p, &f, 0, 2, 0);
    let refused = Err(ErrorCode::IneligibleReplica);
    p.on_alter_partition_response(&f.ctx(1, 0), &refused, &mut Outbox::default());
    let req = |correlation_id| ProduceRequest {
        correlation_id,
        producer: 0,
        tp: p.tp.clone(),
        acks: Acks::All,
        timeout_ms: 60_000,
        batch: Batch {
            producer_id: 7,
            base_sequence: 0,
            values: Values::range(42, 1),
            record_size: 100,
            max_timestamp: 0,
        },
    };
    let (first, retry) = (req(1), req(2));
    let mut out = Outbox::default();
    assert!(p.on_produce(&f.ctx(1, 1), &first, &mut out));
    assert_eq!(p.log.hw(), 0, "broker 2 was caught up at 0 ms and still counts");
    assert!(responses(&out).is_empty());
    let mut out = Outbox::default();
    assert!(!p.on_produce(&f.ctx(1, 40_000), &retry, &mut out), "a duplicate appends nothing");
    assert_eq!((p.log.leo(), p.log.hw()), (1, 1));
    assert_eq!(responses(&out), vec![Ok((0, 0)), Ok((0, 0))]);
}

#[test]
fn demoted_leader_fails_parked_produces_with_not_leader() {
    let f = Fixture::new(1);
    let mut p = leader(&f);
    produce(&mut p, &f, 1, 1, Acks::All);
    let mut out = Outbox::default();
    p.apply_state(&f.ctx(1, 2), &state(Some(2), &[2, 3], 1, 1), &mut out);
    assert_eq!(responses(&out), vec![Err(ErrorCode::NotLeaderOrFollower)]);
    assert_eq!(p.following(), Some(2));
}

/// R3.8, R3.9: a new leader whose HW (0, learnt as a follower) lags its epoch's start
/// offset (3) answers a consumer's ListOffsets for the latest offset with
/// OFFSET_NOT_AVAILABLE (`Partition.fetchOffsetForTimestamp`), gives the earliest, and
/// serves a consumer fetch nothing at or above its HW; above its LEO is out of range, and
/// an older epoch is fenced. OffsetsForLeaderEpoch answers where epoch 0 ends here.
#[test]
fn a_new_leader_serves_consumers_only_below_its_hw() {
    let f = Fixture::new(1);
    let mut old = leader(&f);
    produce(&mut old, &f, 1, 3, Acks::One);
    let mut p = Partition::new(TopicPartition::new("t", 0), PartitionLog::new());
    p.log.append_as_follower(&old.log.read(0, u64::MAX));
    p.apply_state(&f.ctx(2, 10), &state(Some(2), &[2, 3], 1, 1), &mut Outbox::default());
    assert_eq!((p.log.hw(), p.log.leo()), (0, 3));
    use crate::sim::protocol::{EpochEndOffset, OffsetSpec};
    assert_eq!(p.list_offset(1, OffsetSpec::Latest), Err(ErrorCode::OffsetNotAvailable));
    assert_eq!(p.list_offset(1, OffsetSpec::Earliest), Ok((0, 0)));
    assert_eq!(p.list_offset(0, OffsetSpec::Earliest), Err(ErrorCode::FencedLeaderEpoch));
    let tp = p.tp.clone();
    let at = |fetch_offset, current_leader_epoch| FetchPartition {
        topic_id: TopicId::ZERO,
        tp: tp.clone(),
        current_leader_epoch,
        fetch_offset,
        last_fetched_epoch: None,
        log_start_offset: -1,
    };
    assert!(p.read_for_consumer(&at(0, 1), 1 << 20).unwrap().batches.is_empty(), "HW 0");
    assert!(p.read_for_consumer(&at(3, 1), 1 << 20).unwrap().batches.is_empty(), "at the LEO");
    assert_eq!(p.read_for_consumer(&at(4, 1), 1 << 20), Err(ErrorCode::OffsetOutOfRange));
    assert_eq!(p.read_for_consumer(&at(0, 0), 1 << 20), Err(ErrorCode::FencedLeaderEpoch));
    assert_eq!(p.read_for_consumer(&at(0, 2), 1 << 20), Err(ErrorCode::UnknownLeaderEpoch));
    assert_eq!(p.end_offset_for_consumer(1, 0), Ok(EpochEndOffset { epoch: 0, end_offset: 3 }));
    assert_eq!(p.end_offset_for_consumer(1, 5), Ok(EpochEndOffset { epoch: -1, end_offset: -1 }));
    // Once the follower caught up the HW moves, and the records below it are served.
    fetch_as(&mut p, &f, 3, 3);
    assert_eq!(p.log.hw(), 3);
    assert_eq!(p.list_offset(1, OffsetSpec::Latest), Ok((3, 1)));
    assert_eq!(p.read_for_consumer(&at(0, 1), 1 << 20).unwrap().batches.len(), 1);
}

fn fetch_as(p: &mut Partition, f: &Fixture, replica: BrokerId, offset: Offset) {
    let fp = FetchPartition {
        topic_id: TopicId::ZERO,
        tp: p.tp.clone(),
        current_leader_epoch: 1,
        fetch_offset: offset,
        last_fetched_epoch: Some(0),
        log_start_offset: 0,
    };
    p.on_follower_fetch(&f.ctx(2, 20), replica, 1, &fp, &mut Outbox::default()).unwrap();
}
