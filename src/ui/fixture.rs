//! A hand-made, realistic [`Snapshot`] for tests and benches: the seed document's cluster
//! 83.4 s into a run. Brokers 0, 1, 2; topic `test_repli` with 6 partitions, replication
//! factor 3 and `min.insync.replicas=2`; broker 2 crashed 12 s ago and is fenced, so every
//! ISR lacks it and its leaderships moved to broker 0. Broker 0 had fallen out of the ISR of
//! `test_repli-4` before, so that partition is under min ISR, its HW is stuck and the
//! producer collects `NOT_ENOUGH_REPLICAS` errors.
//!
//! Public (not test-only) so that integration tests and render benches can reuse it.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::cluster::history::History;
use crate::cluster::snapshot::{
    BrokerStatus, BrokerView, CachedSessionView, FetchSessionView, HwHold, LinkFaultView, PartitionHealth,
    PartitionView, ProducerView, ReplicaView, Snapshot, TopicView,
};
use crate::config::{BrokerConfig, ProducerConfig};
use crate::kafka::errors::ErrorCode;
use crate::sim::events::{ClusterEvent, ElectionKind, EventKind, ProduceFailure, ShrinkCause};
use crate::sim::fetch_session::{ResetReason, SessionReset};
use crate::sim::{BrokerId, Epoch, Ms, Offset, TopicPartition};

/// Sim time of the fixture: 00:01:23.4.
pub const NOW: Ms = 83_400;
/// When broker 2 crashed.
pub const CRASHED_AT: Ms = 71_400;
/// When the controller fenced it (9 s session timeout later, plus a heartbeat interval).
pub const FENCED_AT: Ms = 80_400;
/// The topic.
pub const TOPIC: &str = "test_repli";

const NOT_ENOUGH: &str = "The size of the current ISR [1] is insufficient to satisfy the min.isr requirement of 2 for partition test_repli-4";

/// The fixture topic's id.
const FIXTURE_TOPIC_ID: &str = "pT2xQ0cLRyuM9bV1YwJk3A";

/// The whole fixture.
pub fn snapshot() -> Snapshot {
    Snapshot {
        quorum: Default::default(),
        seed: 42,
        now: NOW,
        now_us: crate::sim::SimTime::from_ms(NOW),
        semantics: crate::config::Semantics::CURRENT,
        brokers: brokers(),
        topics: vec![TopicView {
            name: TOPIC.into(),
            topic_id: FIXTURE_TOPIC_ID.into(),
            partitions: 6,
            replication_factor: 3,
            config_overrides: vec!["min.insync.replicas=2".into()],
            effective_min_isr: 2,
            unclean_leader_election_enable: false,
        }],
        partitions: partitions().into_iter().map(Arc::new).collect(),
        producers: vec![producer()],
        consumers: Vec::new(),
        groups: Vec::new(),
        broker_config: BrokerConfig::default(),
        acked_lost: 0,
        unacked_lost: 0,
        duplicates: 0,
        reordered: 0,
        seen_erased: 0,
        recent_events: events().into(),
        event_count: 21,
        commands: Default::default(),
        scenario: None,
        rolling: false,
        history: Arc::new(history()),
        faulty_links: vec![delayed_link()],
        next_unclean_check_at: None,
        whatif: None,
    }
}

/// `delay 1 0 50ms`: broker 1's messages to broker 0 take 50 ms longer (its fetches of the
/// partitions broker 0 leads answer late; nothing is lost).
fn delayed_link() -> LinkFaultView {
    use crate::sim::protocol::NodeId;
    let faults = crate::cluster::link::LinkFaults { extra_delay_us: 50_000, ..Default::default() };
    LinkFaultView { from: NodeId::Broker(1), to: NodeId::Broker(0), faults }
}

/// The charts' samples up to [`NOW`]: 100 records/s produced and acknowledged, until broker
/// 2 crashes; from then until it is fenced the HW of every partition is frozen (broker 2 is
/// still in the ISR) and nothing is acknowledged while the leaders' LEOs grow; at the fencing
/// the ISRs shrink to two, the HWs jump and the records held back are acknowledged at once,
/// about 9 s late.
pub fn history() -> History {
    use crate::cluster::history::{PartitionReading, ProducerReading};
    use crate::sim::producer_latency::LatencySummary;
    let mut h = History::default();
    let (mut sent, mut acked) = (0, 0);
    let parts = partitions();
    for at in (1..=NOW / 1000).map(|s| s * 1000) {
        let frozen = (CRASHED_AT..FENCED_AT).contains(&at);
        sent += 100;
        let latency = match at {
            _ if frozen => None,
            _ if at < CRASHED_AT => Some(LatencySummary { records: 100, p50_ms: 3, p99_ms: 7 }),
            _ if at < FENCED_AT + 1000 => {
                Some(LatencySummary { records: sent - acked, p50_ms: 4_800, p99_ms: 9_000 })
            }
            _ => Some(LatencySummary { records: 100, p50_ms: 3, p99_ms: 6 }),
        };
        if !frozen {
            acked = sent;
        }
        h.sample_producers(at, &[ProducerReading { sent, acked, latency }]);
        let leos: Vec<Vec<(BrokerId, Option<Offset>)>> = parts
            .iter()
            .map(|p| p.replica_views.iter().map(|r| (r.broker, Some(leo_at(p, r, at)))).collect())
            .collect();
        h.sample_partitions(parts.iter().zip(&leos).map(|(p, leos)| PartitionReading {
            tp: &p.tp,
            isr: if at < FENCED_AT { 3 } else { p.isr.len() },
            hw: hw_at(p, at),
            leos,
        }));
    }
    h
}

/// A replica's LEO at `at`: it grew evenly to its value at [`NOW`]; a crashed one stopped.
fn leo_at(p: &PartitionView, r: &ReplicaView, at: Ms) -> Offset {
    let leader = p.replica_views.iter().map(|r| r.leo).max().unwrap_or(0);
    (leader * at as Offset / NOW as Offset).min(r.leo)
}

/// The partition's HW at `at`: two records behind the leader, frozen from the crash to the
/// fencing.
fn hw_at(p: &PartitionView, at: Ms) -> Offset {
    let leader = p.replica_views.iter().map(|r| r.leo).max().unwrap_or(0);
    let at = if (CRASHED_AT..FENCED_AT).contains(&at) { CRASHED_AT } else { at };
    (leader * at as Offset / NOW as Offset - 2).clamp(0, p.hw)
}

fn broker(id: BrokerId, status: BrokerStatus, leader_count: usize, last_heartbeat: Ms) -> BrokerView {
    BrokerView {
        id,
        status,
        fenced: matches!(status, BrokerStatus::Crashed { .. }),
        in_controlled_shutdown: false,
        broker_epoch: 10 + i64::from(id),
        leader_count,
        fetch_paused: false,
        last_heartbeat,
        restart_pending: Vec::new(),
        reach: Default::default(),
        fenced_in: None,
        replica_lag_time_max_ms: 30_000,
        fetch_sessions: Vec::new(),
    }
}

fn brokers() -> Vec<BrokerView> {
    let mut zero = broker(0, BrokerStatus::Up, 4, 82_800);
    zero.fetch_sessions = vec![session(1, 2, 1, 1377, 1_200, ResetReason::NewFetcher)];
    let mut one = broker(1, BrokerStatus::Up, 2, 83_100);
    // Its fetch to broker 0 timed out while broker 2 went down; the new session is broker 0's
    // second.
    one.fetch_sessions = vec![session(0, 4, 2, 24, 72_900, ResetReason::RequestLost)];
    vec![zero, one, broker(2, BrokerStatus::Crashed { since: CRASHED_AT }, 0, 70_800)]
}

/// A follower's session with `leader`, which caches it at the same epoch.
fn session(
    leader: BrokerId,
    members: usize,
    id: u32,
    epoch: i32,
    reset_at: Ms,
    why: ResetReason,
) -> FetchSessionView {
    FetchSessionView {
        leader,
        members,
        session_id: id,
        epoch,
        partitions: members,
        reset: Some(SessionReset { at: reset_at, why }),
        at_leader: Some(CachedSessionView { epoch, partitions: members, last_used_ms: NOW - 100 }),
    }
}

/// A replica: `(broker, leo, hw)`, then its ISR and liveness facts.
struct R {
    broker: BrokerId,
    leo: Offset,
    hw: Offset,
    online: bool,
    in_isr: bool,
    leader: bool,
    lag: Option<Offset>,
    expiry: Option<Ms>,
}

const fn leader(broker: BrokerId, leo: Offset, hw: Offset) -> R {
    R { broker, leo, hw, online: true, in_isr: true, leader: true, lag: None, expiry: None }
}

const fn follower(broker: BrokerId, leo: Offset, hw: Offset, lag: Offset) -> R {
    R { broker, leo, hw, online: true, in_isr: true, leader: false, lag: Some(lag), expiry: None }
}

const fn crashed(broker: BrokerId, leo: Offset, hw: Offset, lag: Offset) -> R {
    R { broker, leo, hw, online: false, in_isr: false, leader: false, lag: Some(lag), expiry: None }
}

fn replica_view(r: R) -> ReplicaView {
    ReplicaView {
        broker: r.broker,
        online: r.online,
        leo: r.leo,
        hw: r.hw,
        log_start: 0,
        fetch_requests: 0,
        epoch_cache: vec![(0, 0)],
        in_isr: r.in_isr,
        is_leader: r.leader,
        lag: r.lag,
        isr_expiry_in: r.expiry,
        caught_up_ago: r.expiry.map(|left| 30_000 - left),
    }
}

fn partition(n: u32, epoch: Epoch, health: PartitionHealth, replicas: Vec<R>) -> PartitionView {
    let leader = replicas.iter().find(|r| r.leader).map(|r| r.broker);
    let hw = replicas.iter().find(|r| r.leader).map_or(0, |r| r.hw);
    let in_order: Vec<BrokerId> = replicas.iter().map(|r| r.broker).collect();
    let isr = replicas.iter().filter(|r| r.in_isr).map(|r| r.broker).collect();
    PartitionView {
        tp: TopicPartition::new(TOPIC, n),
        replicas: in_order,
        isr,
        adding: Vec::new(),
        removing: Vec::new(),
        elr: Vec::new(),
        last_known_elr: Vec::new(),
        reassign_bytes_left: None,
        leader,
        leader_epoch: epoch,
        partition_epoch: epoch + 2,
        hw,
        replica_views: replicas.into_iter().map(replica_view).collect(),
        health,
        effective_min_isr: 2,
        hw_blocked_by: None,
        pending_isr: None,
        acked_lost: 0,
        loss_cause: None,
        leader_recovery_state: Default::default(),
        isr_shrinks: 0,
        isr_expands: 0,
        leader_reach: Default::default(),
        hw_held_by: None,
        parked: Vec::new(),
        truncations: Vec::new(),
    }
}

fn partitions() -> Vec<PartitionView> {
    use PartitionHealth::{UnderMinIsr, UnderReplicated};
    let lagging_1 = R { expiry: Some(21_200), ..follower(1, 1380, 1380, 6) };
    let mut p0 =
        partition(0, 1, UnderReplicated, vec![leader(0, 1386, 1380), lagging_1, crashed(2, 980, 975, 406)]);
    let p1 = partition(
        1,
        1,
        UnderReplicated,
        vec![leader(1, 1371, 1371), crashed(2, 975, 970, 396), follower(0, 1371, 1371, 0)],
    );
    let p2 = partition(
        2,
        2,
        UnderReplicated,
        vec![crashed(2, 1010, 1004, 392), leader(0, 1402, 1402), follower(1, 1402, 1402, 0)],
    );
    let p3 = partition(
        3,
        1,
        UnderReplicated,
        vec![leader(0, 1365, 1365), follower(1, 1365, 1365, 0), crashed(2, 968, 962, 397)],
    );
    let out_0 = R { in_isr: false, ..follower(0, 1261, 1261, 29) };
    let mut p4 = partition(4, 1, UnderMinIsr, vec![leader(1, 1290, 1261), crashed(2, 990, 985, 300), out_0]);
    p4.hw_blocked_by = Some("HW frozen: ISR [1] is below min.insync.replicas=2 (Kafka 3.7+ rule)".into());
    let mut p5 = partition(
        5,
        2,
        UnderReplicated,
        vec![crashed(2, 1001, 996, 376), leader(0, 1377, 1365), follower(1, 1365, 1365, 12)],
    );
    p0.hw_held_by = Some(HwHold { broker: 1, leo: Some(1380) });
    p5.hw_held_by = Some(HwHold { broker: 1, leo: Some(1365) });
    p5.pending_isr =
        Some("0,1 → 0: leader 0 sent AlterPartition, the controller has not answered yet".into());
    vec![p0, p1, p2, p3, p4, p5]
}

fn producer() -> ProducerView {
    ProducerView {
        index: 0,
        topic: TOPIC.into(),
        config: ProducerConfig::default(),
        idempotent: true,
        sent: 8342,
        acked: 8205,
        unacked: 0,
        failed: 0,
        pending: 137,
        errors: BTreeMap::from([("NOT_ENOUGH_REPLICAS".to_string(), 37)]),
        last_error: Some((83_100, format!("NOT_ENOUGH_REPLICAS: {NOT_ENOUGH}"))),
        unreachable: Vec::new(),
        acked_lost: 0,
        unacked_lost: 0,
        reordered: 0,
        latency: None,
    }
}

fn tp(n: u32) -> TopicPartition {
    TopicPartition::new(TOPIC, n)
}

fn at(at: Ms, kind: EventKind) -> ClusterEvent {
    ClusterEvent { at: crate::sim::SimTime::from_ms(at), kind }
}

fn fenced_out(n: u32, isr: Vec<BrokerId>) -> ClusterEvent {
    at(FENCED_AT, EventKind::IsrShrunk { tp: tp(n), removed: vec![2], isr, cause: ShrinkCause::Fenced })
}

fn moved(n: u32) -> ClusterEvent {
    let kind = EventKind::LeaderChanged {
        tp: tp(n),
        old_leader: Some(2),
        new_leader: Some(0),
        leader_epoch: 2,
        isr: vec![0, 1],
        kind: ElectionKind::Clean,
    };
    at(FENCED_AT, kind)
}

fn events() -> Vec<ClusterEvent> {
    let assignment = (0..6).map(|i| (0..3).map(|j| (i + j) % 3).collect()).collect();
    let lagging = ShrinkCause::Lagging { behind_ms: 30_000, limit_ms: 30_000 };
    vec![
        at(
            0,
            EventKind::TopicCreated {
                topic: TOPIC.into(),
                topic_id: crate::sim::TopicId::parse(FIXTURE_TOPIC_ID).expect("a valid id"),
                assignment,
            },
        ),
        at(
            0,
            EventKind::ConfigChanged {
                scope: format!("topic {TOPIC}"),
                name: "min.insync.replicas".into(),
                value: "2".into(),
                note: "acks=all now needs 2 in-sync replicas".into(),
            },
        ),
        at(CRASHED_AT, EventKind::BrokerCrashed { broker: 2 }),
        at(76_000, EventKind::IsrShrunk { tp: tp(4), removed: vec![0], isr: vec![1, 2], cause: lagging }),
        at(FENCED_AT, EventKind::BrokerFenced { broker: 2, silent_ms: 9_600, timeout_ms: 9_000 }),
        moved(2),
        moved(5),
        fenced_out(0, vec![0, 1]),
        fenced_out(1, vec![1, 0]),
        fenced_out(3, vec![0, 1]),
        fenced_out(4, vec![1]),
        at(
            80_500,
            EventKind::ProduceFailing {
                producer: 0,
                tp: tp(4),
                failure: ProduceFailure { error: ErrorCode::NotEnoughReplicas, detail: NOT_ENOUGH.into() },
                errors: 1,
                records_failed: 0,
            },
        ),
    ]
}

/// The fixture grown to a big cluster: 50 brokers, `__consumer_offsets` (50 partitions, as a
/// consumer group creates it) and `test_repli` with 5 000 partitions, each on three
/// neighbouring brokers (`n`, `n + 1`, `n + 2` modulo 50). Broker 7 is crashed and fenced: the
/// partitions with a replica on it are under-replicated, and those it led moved to the next
/// replica. Every other partition is healthy.
pub fn big_cluster() -> Snapshot {
    const BROKERS: BrokerId = 50;
    const DOWN: BrokerId = 7;
    let mut snap = snapshot();
    let up = snap.brokers[0].clone();
    let down = snap.brokers[2].clone();
    snap.brokers =
        (0..BROKERS).map(|id| BrokerView { id, ..(if id == DOWN { &down } else { &up }).clone() }).collect();
    let template = snap.partitions[1].as_ref().clone();
    let partition = |topic: &str, n: u32| {
        let replicas: Vec<BrokerId> = (0..3).map(|j| (n as BrokerId + j) % BROKERS).collect();
        let isr: Vec<BrokerId> = replicas.iter().copied().filter(|b| *b != DOWN).collect();
        let leader = isr[0];
        let replica_views = replicas
            .iter()
            .map(|&broker| ReplicaView {
                broker,
                online: broker != DOWN,
                in_isr: broker != DOWN,
                is_leader: broker == leader,
                leo: if broker == DOWN { 975 } else { 1371 },
                hw: if broker == DOWN { 975 } else { 1371 },
                lag: (broker != leader).then_some(if broker == DOWN { 396 } else { 0 }),
                isr_expiry_in: None,
                caught_up_ago: None,
                ..template.replica_views[0].clone()
            })
            .collect();
        let health = if isr.len() < replicas.len() {
            PartitionHealth::UnderReplicated
        } else {
            PartitionHealth::Healthy
        };
        Arc::new(PartitionView {
            tp: TopicPartition::new(topic, n),
            leader: Some(leader),
            leader_epoch: Epoch::from(replicas[0] == DOWN),
            hw: 1371,
            hw_blocked_by: None,
            pending_isr: None,
            hw_held_by: None,
            parked: Vec::new(),
            effective_min_isr: 2,
            health,
            replicas,
            isr,
            replica_views,
            ..template.clone()
        })
    };
    let internal = (0..50).map(|n| partition("__consumer_offsets", n));
    snap.partitions = internal.chain((0..5_000).map(|n| partition(TOPIC, n))).collect();
    snap.topics[0].partitions = 5_000;
    snap
}
