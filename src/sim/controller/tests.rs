//! The controller's tests, in the words of the rule book sections they check. Shared helpers
//! here are used by `admin`'s tests too.

use super::*;
use crate::config::TopicConfig;
use crate::kafka::errors::ErrorCode;
use crate::sim::TopicId;
use crate::sim::error::SimError;
use crate::sim::events::{ElectionKind, EventKind, ShrinkCause};
use crate::sim::protocol::{IsrMember, LeaderRecoveryState};
use crate::sim::spec::{Placement, TopicSpec};
use rand::SeedableRng;

const CLIENT: NodeId = NodeId::Producer(0);

/// A controller with every broker bootstrapped (registered, unfenced) at t=0 and one client.
pub(super) fn cluster(ids: &[BrokerId]) -> QuorumController {
    cluster_with(BrokerConfig::default(), ids)
}

/// A cluster with ELR off (`eligible.leader.replicas.version=0`), for the stories of the last
/// ISR member staying in the ISR (R4.8).
fn cluster_elr_off(ids: &[BrokerId]) -> QuorumController {
    let mut config = BrokerConfig::default();
    config.set("eligible.leader.replicas.version", "0").unwrap();
    cluster_with(config, ids)
}

fn cluster_with(config: BrokerConfig, ids: &[BrokerId]) -> QuorumController {
    let mut c = QuorumController::new(config, ids, ChaCha8Rng::seed_from_u64(42));
    for &id in ids {
        c.bootstrap_broker(id, 0);
    }
    c.add_client(CLIENT);
    c
}

fn spec(name: &str, partitions: u32, rf: u32, placement: Placement) -> TopicSpec {
    TopicSpec {
        name: name.into(),
        partitions,
        replication_factor: rf,
        placement,
        config: TopicConfig::default(),
    }
}

pub(super) fn explicit(c: &mut QuorumController, name: &str, lists: Vec<Vec<BrokerId>>) {
    let (n, rf) = (lists.len() as u32, lists[0].len() as u32);
    c.create_topic(0, &spec(name, n, rf, Placement::Explicit(lists)), &mut Outbox::default()).unwrap();
}

pub(super) fn part(c: &QuorumController, topic: &str, p: u32) -> PartitionState {
    c.partition(&TopicPartition::new(topic, p)).unwrap().clone()
}

fn heartbeat(c: &mut QuorumController, now: Ms, id: BrokerId, want_shutdown: bool) -> Outbox {
    let mut out = Outbox::default();
    let epoch = c.broker(id).unwrap().broker_epoch;
    c.handle(
        now,
        NodeId::Broker(id),
        Message::Heartbeat { broker: id, broker_epoch: epoch, want_shutdown },
        &mut out,
    );
    out
}

fn register(c: &mut QuorumController, now: Ms, id: BrokerId) -> Outbox {
    let mut out = Outbox::default();
    c.handle(
        now,
        NodeId::Broker(id),
        Message::RegisterBroker { broker: id, previous_broker_epoch: -1 },
        &mut out,
    );
    out
}

/// Lets time run to `until`: the listed brokers heartbeat every 2 s, on_tick runs at every
/// deadline. Returns everything the controller produced.
pub(super) fn run(c: &mut QuorumController, from: Ms, until: Ms, alive: &[BrokerId]) -> Outbox {
    let mut out = Outbox::default();
    let mut next_hb = (from / 2000 + 1) * 2000;
    loop {
        let deadline = c.next_deadline().unwrap();
        let t = deadline.min(next_hb);
        if t > until {
            return out;
        }
        if t == next_hb {
            for &id in alive {
                let o = heartbeat(c, t, id, false);
                out.sends.extend(o.sends);
                out.events.extend(o.events);
            }
            next_hb += 2000;
        }
        if c.next_deadline().is_some_and(|d| d <= t) {
            c.on_tick(t, &mut out);
        }
        c.check_invariants().unwrap();
    }
}

fn heartbeat_reply(out: &Outbox) -> (bool, bool) {
    out.sends
        .iter()
        .find_map(|(_, m)| match m {
            Message::HeartbeatResponse { fenced, should_shutdown } => Some((*fenced, *should_shutdown)),
            _ => None,
        })
        .expect("a heartbeat response")
}

pub(super) fn leader_changes(out: &Outbox) -> Vec<(u32, Option<BrokerId>, Option<BrokerId>, ElectionKind)> {
    out.events
        .iter()
        .filter_map(|e| match e {
            EventKind::LeaderChanged { tp, old_leader, new_leader, kind, .. } => {
                Some((tp.partition, *old_leader, *new_leader, *kind))
            }
            _ => None,
        })
        .collect()
}

const SEED_LISTS: [[BrokerId; 3]; 6] = [[0, 1, 2], [1, 2, 0], [2, 0, 1], [0, 2, 1], [1, 0, 2], [2, 1, 0]];

/// KAFKA-15021 (metadata versions before 3.6): every ISR shrink bumped the leader epoch,
/// also when the leader stayed. Read from the semantics; off in Kafka 4.x (R4.10).
#[test]
fn an_isr_shrink_bumps_the_leader_epoch_only_where_the_semantics_says_so() {
    for bump in [false, true] {
        let mut c = cluster(&[0, 1, 2]);
        c.config.semantics.leader_epoch_bump_on_isr_shrink = bump;
        explicit(&mut c, "t", vec![vec![0, 1, 2]]);
        run(&mut c, 0, 9001, &[0, 1]);
        let p = part(&c, "t", 0);
        assert_eq!((p.leader, p.isr.clone(), p.partition_epoch), (Some(0), vec![0, 1], 1));
        assert_eq!(p.leader_epoch, i32::from(bump), "bump on shrink = {bump}");
    }
}

#[test]
fn fencing_broker_2_in_the_seed_example() {
    let mut c = cluster(&[0, 1, 2]);
    explicit(&mut c, "test_repli", SEED_LISTS.iter().map(|l| l.to_vec()).collect());
    let out = run(&mut c, 0, 9001, &[0, 1]);
    assert!(out.events.contains(&EventKind::BrokerFenced { broker: 2, silent_ms: 9001, timeout_ms: 9000 }));
    assert!(c.broker(2).unwrap().fenced);
    for (i, replicas) in SEED_LISTS.iter().enumerate() {
        let p = part(&c, "test_repli", i as u32);
        assert_eq!(p.replicas, replicas.to_vec(), "replica lists keep broker 2");
        let want_isr: Vec<BrokerId> = replicas.iter().copied().filter(|&r| r != 2).collect();
        assert_eq!(p.isr, want_isr);
        assert_eq!(p.partition_epoch, 1);
        // R4.10: removing a follower does not bump the leader epoch; a leader change does.
        let moved = replicas[0] == 2;
        assert_eq!(p.leader_epoch, if moved { 1 } else { 0 }, "partition {i}");
    }
    assert_eq!(part(&c, "test_repli", 2).leader, Some(0));
    assert_eq!(part(&c, "test_repli", 5).leader, Some(1));
    assert_eq!(
        leader_changes(&out),
        vec![(2, Some(2), Some(0), ElectionKind::Clean), (5, Some(2), Some(1), ElectionKind::Clean)]
    );
    let shrinks = out
        .events
        .iter()
        .filter(|e| matches!(e, EventKind::IsrShrunk { removed, cause: ShrinkCause::Fenced, .. } if removed == &vec![2]))
        .count();
    assert_eq!(shrinks, 6);
    // One broadcast to every registered broker (the network drops the dead one's) and the client.
    let fence_broadcast: Vec<NodeId> = out
        .sends
        .iter()
        .filter(|(_, m)| matches!(m, Message::Metadata(d) if d.partitions.len() == 6))
        .map(|(to, _)| *to)
        .collect();
    assert_eq!(fence_broadcast, vec![NodeId::Broker(0), NodeId::Broker(1), NodeId::Broker(2), CLIENT]);
}

#[test]
fn last_isr_member_keeps_its_place_and_the_partition_goes_offline_s8() {
    let mut c = cluster_elr_off(&[1, 2]);
    explicit(&mut c, "t", vec![vec![1, 2]]);
    // Broker 2 crashes: fenced after 9 s, ISR [1].
    run(&mut c, 0, 9001, &[1]);
    let p = part(&c, "t", 0);
    assert_eq!((p.leader, p.leader_epoch, p.isr.clone()), (Some(1), 0, vec![1]));
    // Broker 1 crashes at 10 s: offline, ISR kept, leader epoch 1.
    let out = run(&mut c, 9001, 19_001, &[]);
    let p = part(&c, "t", 0);
    assert_eq!((p.leader, p.leader_epoch, p.isr.clone()), (None, 1, vec![1]));
    assert_eq!(leader_changes(&out), vec![(0, Some(1), None, ElectionKind::Clean)]);
    assert!(!out.events.iter().any(|e| matches!(e, EventKind::IsrShrunk { .. })));
    // Broker 2 restarts: still offline, it is not in the ISR.
    register(&mut c, 20_000, 2);
    let out = heartbeat(&mut c, 20_100, 2, false);
    assert_eq!(heartbeat_reply(&out), (false, false));
    assert_eq!(part(&c, "t", 0).leader, None);
    // Broker 1 restarts: re-registration keeps it as last member; unfencing elects it.
    register(&mut c, 21_000, 1);
    assert_eq!(part(&c, "t", 0).isr, vec![1]);
    let out = heartbeat(&mut c, 21_100, 1, false);
    assert!(out.events.contains(&EventKind::BrokerUnfenced { broker: 1 }));
    let p = part(&c, "t", 0);
    assert_eq!((p.leader, p.leader_epoch, p.isr.clone()), (Some(1), 2, vec![1]));
    assert_eq!(leader_changes(&out), vec![(0, None, Some(1), ElectionKind::Recovered)]);
    c.check_invariants().unwrap();
}

#[test]
fn unclean_election_when_enabled_s9() {
    let mut c = cluster(&[1, 2]);
    explicit(&mut c, "t", vec![vec![1, 2]]);
    c.set_topic_config(0, "t", "unclean.leader.election.enable", "true", &mut Outbox::default()).unwrap();
    run(&mut c, 0, 9001, &[1]);
    run(&mut c, 9001, 19_001, &[]);
    assert_eq!(part(&c, "t", 0).leader, None);
    // Broker 2 restarts: at unfencing (3.9+) the unclean election happens at once.
    register(&mut c, 20_000, 2);
    let out = heartbeat(&mut c, 20_100, 2, false);
    let p = part(&c, "t", 0);
    assert_eq!((p.leader, p.leader_epoch, p.isr.clone()), (Some(2), 2, vec![2]));
    assert_eq!(p.leader_recovery, LeaderRecoveryState::Recovering);
    assert_eq!(leader_changes(&out), vec![(0, None, Some(2), ElectionKind::Unclean)]);
    // Broker 1 comes back: it is not elected (2 is a valid leader), and its re-registration
    // leaves the ISR [2] alone.
    register(&mut c, 21_000, 1);
    heartbeat(&mut c, 21_100, 1, false);
    assert_eq!(part(&c, "t", 0).leader, Some(2));
    // Recovery ends with the leader's first AlterPartition; RECOVERING with two members is refused.
    let alter = |isr: Vec<IsrMember>, rec| Message::AlterPartition {
        leader: 2,
        broker_epoch: 0,
        tp: TopicPartition::new("t", 0),
        leader_epoch: 2,
        partition_epoch: 3,
        new_isr: isr,
        leader_recovery: rec,
    };
    let both = vec![IsrMember { id: 2, broker_epoch: -1 }, IsrMember { id: 1, broker_epoch: -1 }];
    let mut out = Outbox::default();
    c.handle(21_200, NodeId::Broker(2), alter(both.clone(), LeaderRecoveryState::Recovering), &mut out);
    assert!(matches!(
        &out.sends[0].1,
        Message::AlterPartitionResponse { result, .. } if matches!(**result, Err(ErrorCode::IneligibleReplica))
    ));
    let mut out = Outbox::default();
    c.handle(21_300, NodeId::Broker(2), alter(both, LeaderRecoveryState::Recovered), &mut out);
    let p = part(&c, "t", 0);
    assert_eq!(
        (p.isr.clone(), p.leader_recovery, p.leader_epoch),
        (vec![2, 1], LeaderRecoveryState::Recovered, 2)
    );
}

/// R6.5 in KRaft (`QuorumController.maybeScheduleNextElectUncleanLeaders`): the unclean
/// check is armed by the write that leaves a partition leaderless, runs one
/// `unclean.leader.election.interval.ms` later, and is armed again only while leaderless
/// partitions remain. Enabling unclean election acts at that check, not at once.
#[test]
fn enabling_unclean_acts_at_the_check_armed_when_the_partition_went_offline() {
    let mut c = cluster(&[1, 2]);
    explicit(&mut c, "t", vec![vec![1, 2]]);
    assert_eq!(c.next_unclean_check_at(), None, "every partition has a leader");
    run(&mut c, 0, 9001, &[1]);
    let out = run(&mut c, 9001, 19_001, &[]);
    assert_eq!(leader_changes(&out), vec![(0, Some(1), None, ElectionKind::Clean)]);
    let offline_at = 8000 + 9001;
    assert_eq!(c.next_unclean_check_at(), Some(offline_at + 300_000));
    register(&mut c, 20_000, 2);
    run(&mut c, 20_000, 30_000, &[2]);
    assert!(!c.broker(2).unwrap().fenced);
    assert_eq!(part(&c, "t", 0).leader, None);
    c.set_broker_config(30_000, "unclean.leader.election.enable", "true", &mut Outbox::default()).unwrap();
    assert_eq!(part(&c, "t", 0).leader, None, "not at once");
    assert_eq!(c.next_unclean_check_at(), Some(offline_at + 300_000), "writes do not move it");
    let out = run(&mut c, 30_000, offline_at + 299_999, &[2]);
    assert!(leader_changes(&out).is_empty(), "not at 300 s on a fixed grid");
    let out = run(&mut c, offline_at + 299_999, offline_at + 300_000, &[2]);
    assert_eq!(leader_changes(&out), vec![(0, None, Some(2), ElectionKind::Unclean)]);
    assert_eq!(c.next_unclean_check_at(), None, "nothing leaderless: not armed again");
}

/// KRaft before 3.9 (no KAFKA-12670) never elects an unclean leader by itself: no check is
/// armed and the topic's setting waits for an admin election. Read from the semantics.
#[test]
fn without_the_kraft_unclean_task_an_offline_partition_stays_offline() {
    let mut c = cluster(&[1, 2]);
    c.config.semantics.kraft_unclean_election = false;
    explicit(&mut c, "t", vec![vec![1, 2]]);
    c.set_topic_config(0, "t", "unclean.leader.election.enable", "true", &mut Outbox::default()).unwrap();
    run(&mut c, 0, 9001, &[1]);
    run(&mut c, 9001, 19_001, &[]);
    assert_eq!(part(&c, "t", 0).leader, None);
    assert_eq!(c.next_unclean_check_at(), None, "no unclean task");
    register(&mut c, 20_000, 2);
    run(&mut c, 20_000, 30_000, &[2]);
    assert_eq!(part(&c, "t", 0).leader, None, "not even when broker 2 is unfenced");
}

/// A check that finds its partitions' topics still refusing unclean election is armed again
/// one interval later, as long as a partition stays leaderless.
#[test]
fn the_unclean_check_re_arms_while_partitions_stay_leaderless() {
    let mut c = cluster(&[1, 2]);
    explicit(&mut c, "t", vec![vec![1, 2]]);
    run(&mut c, 0, 9001, &[1]);
    run(&mut c, 9001, 19_001, &[]);
    let first = c.next_unclean_check_at().unwrap();
    run(&mut c, 19_001, first, &[2]);
    assert_eq!(c.next_unclean_check_at(), Some(first + 300_000));
}

#[test]
fn controlled_shutdown_moves_leadership_then_lets_the_broker_stop() {
    let mut c = cluster_elr_off(&[1, 2, 3]);
    explicit(&mut c, "t", vec![vec![1, 2, 3], vec![2, 1, 3]]);
    explicit(&mut c, "solo", vec![vec![1]]);
    let out = heartbeat(&mut c, 1000, 1, true);
    assert_eq!(heartbeat_reply(&out), (false, false));
    assert_eq!(out.events[0], EventKind::ControlledShutdownStarted { broker: 1 });
    let p0 = part(&c, "t", 0);
    assert_eq!((p0.leader, p0.leader_epoch, p0.isr.clone()), (Some(2), 1, vec![2, 3]));
    let p1 = part(&c, "t", 1);
    assert_eq!((p1.leader, p1.leader_epoch, p1.isr.clone()), (Some(2), 0, vec![2, 3]));
    // KRaft: the sole ISR member in controlled shutdown is not an acceptable leader.
    let solo = part(&c, "solo", 0);
    assert_eq!((solo.leader, solo.leader_epoch, solo.isr.clone()), (None, 1, vec![1]));
    assert_eq!(
        leader_changes(&out),
        vec![
            (0, Some(1), None, ElectionKind::ControlledShutdown),
            (0, Some(1), Some(2), ElectionKind::ControlledShutdown)
        ]
    );
    assert!(out.events.iter().any(|e| matches!(
        e,
        EventKind::IsrShrunk { tp, cause: ShrinkCause::ControlledShutdown, .. } if tp.partition == 1
    )));
    assert!(c.broker(1).unwrap().in_controlled_shutdown);
    // Next heartbeat: it leads nothing, so it may stop; the controller fences it.
    let out = heartbeat(&mut c, 1500, 1, true);
    assert_eq!(heartbeat_reply(&out), (true, true));
    let b = c.broker(1).unwrap();
    assert!(b.fenced && b.in_controlled_shutdown);
    // A broker in controlled shutdown is not used by the placer and does not count (R1.7).
    let err = c.create_topic(2000, &spec("x", 1, 3, Placement::Kafka), &mut Outbox::default()).unwrap_err();
    assert!(err.to_string().ends_with("only 2 broker(s) are registered."), "{err}");
}

#[test]
fn alter_partition_validation() {
    let mut c = cluster(&[0, 1, 2]);
    explicit(&mut c, "t", vec![vec![0, 1, 2]]);
    let tp = TopicPartition::new("t", 0);
    let m = |id| IsrMember { id, broker_epoch: -1 };
    let send = |c: &mut QuorumController, leader, le, pe, isr: Vec<IsrMember>| {
        let mut out = Outbox::default();
        let msg = Message::AlterPartition {
            leader,
            broker_epoch: 1,
            tp: tp.clone(),
            leader_epoch: le,
            partition_epoch: pe,
            new_isr: isr,
            leader_recovery: LeaderRecoveryState::Recovered,
        };
        c.handle(5, NodeId::Broker(leader), msg, &mut out);
        assert!(out.events.is_empty(), "leader-driven changes emit no controller events");
        match &out.sends[0] {
            (to, Message::AlterPartitionResponse { result, .. }) => {
                assert_eq!(*to, NodeId::Broker(leader));
                ((**result).clone(), out.sends.len())
            }
            other => panic!("unexpected {other:?}"),
        }
    };
    use ErrorCode::*;
    assert_eq!(send(&mut c, 0, 1, 0, vec![m(0), m(1)]).0, Err(NotController));
    assert_eq!(send(&mut c, 0, 0, 1, vec![m(0), m(1)]).0, Err(NotController));
    assert_eq!(send(&mut c, 1, 0, 0, vec![m(0), m(1)]).0, Err(FencedLeaderEpoch));
    assert_eq!(send(&mut c, 0, 0, 0, vec![m(1)]).0, Err(IneligibleReplica), "ISR without the leader");
    assert_eq!(send(&mut c, 0, 0, 0, vec![m(0), m(7)]).0, Err(IneligibleReplica), "not a replica");
    assert_eq!(send(&mut c, 0, 0, 0, vec![m(0), m(0)]).0, Err(IneligibleReplica), "duplicate");
    let wrong_epoch = IsrMember { id: 1, broker_epoch: 99 };
    assert_eq!(send(&mut c, 0, 0, 0, vec![m(0), wrong_epoch]).0, Err(IneligibleReplica));
    // Success: shrink to [0,1]; partition epoch +1, leader epoch unchanged, broadcast follows.
    let (ok, sends) = send(&mut c, 0, 0, 0, vec![m(0), m(1)]);
    let p = ok.unwrap();
    assert_eq!((p.isr.clone(), p.leader_epoch, p.partition_epoch), (vec![0, 1], 0, 1));
    assert_eq!(sends, 1 + 4, "response, then metadata to 3 brokers and the client");
    assert_eq!(part(&c, "t", 0), p);
    // The old partition epoch is now stale.
    assert_eq!(send(&mut c, 0, 0, 0, vec![m(0), m(1), m(2)]).0, Err(InvalidUpdateVersion));
    // A fenced member is ineligible.
    run(&mut c, 0, 9001, &[0, 1]);
    assert!(c.broker(2).unwrap().fenced);
    assert_eq!(send(&mut c, 0, 0, 1, vec![m(0), m(1), m(2)]).0, Err(IneligibleReplica));
    // Unknown partition.
    let mut out = Outbox::default();
    let msg = Message::AlterPartition {
        leader: 0,
        broker_epoch: 1,
        tp: TopicPartition::new("t", 9),
        leader_epoch: 0,
        partition_epoch: 0,
        new_isr: vec![m(0)],
        leader_recovery: LeaderRecoveryState::Recovered,
    };
    c.handle(9002, NodeId::Broker(0), msg, &mut out);
    assert!(matches!(
        &out.sends[0].1,
        Message::AlterPartitionResponse { result, .. } if matches!(**result, Err(UnknownTopicOrPartition))
    ));
}

fn refused(out: &Outbox) -> bool {
    out.sends.iter().any(|(_, m)| {
        matches!(m, Message::RegisterBrokerRefused { error: ErrorCode::DuplicateBrokerRegistration })
    })
}

/// `ClusterControlManager.registerBroker` + `BrokerHeartbeatManager.hasValidSession`: a new
/// incarnation of a broker whose previous one was heard from within
/// `broker.session.timeout.ms` is refused with DUPLICATE_BROKER_REGISTRATION, and nothing
/// changes. Once the controller fenced the old session (R6.2: that is what empties its
/// ISR seats and moves its leaderships), the registration is accepted: new broker epoch,
/// fenced, no partition touched; its first heartbeat unfences it and re-elects (R6.4).
#[test]
fn restart_within_the_session_is_refused_until_the_old_session_is_fenced() {
    let mut c = cluster_elr_off(&[0, 1, 2]);
    explicit(&mut c, "t", vec![vec![2, 0, 1], vec![0, 1, 2]]);
    explicit(&mut c, "solo", vec![vec![2]]);
    let before = c.full_image();
    let old_epoch = c.broker(2).unwrap().broker_epoch;
    let out = register(&mut c, 3000, 2);
    assert!(refused(&out));
    assert_eq!(
        out.events,
        vec![EventKind::BrokerRegistrationRefused { broker: 2, silent_ms: 3000, timeout_ms: 9000 }]
    );
    assert!(out.events[0].to_string().contains("retries until that session expires"), "{}", out.events[0]);
    assert_eq!(c.full_image(), before, "a refusal changes nothing");
    assert_eq!(out.sends.len(), 1, "no metadata broadcast");
    // Still refused at exactly the session timeout (Kafka expires it only after).
    run(&mut c, 3000, 8999, &[0, 1]);
    assert!(refused(&register(&mut c, 9000, 2)));
    // Fencing at 9001 moves leadership and takes 2 out of the ISRs; the solo partition goes
    // offline, keeping its last ISR member.
    run(&mut c, 9000, 9001, &[0, 1]);
    assert!(c.broker(2).unwrap().fenced);
    assert_eq!((part(&c, "t", 0).leader, part(&c, "t", 0).isr.clone()), (Some(0), vec![0, 1]));
    assert_eq!(part(&c, "t", 1).isr, vec![0, 1]);
    assert_eq!((part(&c, "solo", 0).leader, part(&c, "solo", 0).isr.clone()), (None, vec![2]));
    let image = c.full_image();
    let out = register(&mut c, 9500, 2);
    let b = *c.broker(2).unwrap();
    assert!(b.fenced && b.broker_epoch > old_epoch);
    assert_eq!(out.events, vec![EventKind::BrokerRegistered { broker: 2, broker_epoch: b.broker_epoch }]);
    assert_eq!(c.full_image().partitions, image.partitions, "registration touches no partition");
    match &out.sends[0] {
        (NodeId::Broker(2), Message::RegisterBrokerResponse { broker_epoch, image }) => {
            assert_eq!(*broker_epoch, b.broker_epoch);
            assert_eq!(image, &c.full_image());
        }
        other => panic!("unexpected {other:?}"),
    }
    // A heartbeat with the old epoch is ignored.
    let mut stale = Outbox::default();
    let msg = Message::Heartbeat { broker: 2, broker_epoch: old_epoch, want_shutdown: false };
    c.handle(9600, NodeId::Broker(2), msg, &mut stale);
    assert!(stale.sends.is_empty() && c.broker(2).unwrap().fenced);
    // First heartbeat of the new incarnation: unfenced, the offline partition re-elected.
    let out = heartbeat(&mut c, 9700, 2, false);
    assert_eq!(heartbeat_reply(&out), (false, false));
    assert!(!c.broker(2).unwrap().fenced);
    assert_eq!(leader_changes(&out), vec![(0, None, Some(2), ElectionKind::Recovered)]);
    let solo = part(&c, "solo", 0);
    assert_eq!((solo.leader, solo.leader_epoch, solo.partition_epoch), (Some(2), 2, 2));
    c.check_invariants().unwrap();
}

/// A registration that arrives in the very millisecond the old session runs out, before the
/// fencing timer fired, fences the old session first and is then accepted.
#[test]
fn registration_at_session_expiry_fences_the_old_session_first() {
    let mut c = cluster(&[0, 1]);
    explicit(&mut c, "t", vec![vec![1, 0]]);
    run(&mut c, 0, 9000, &[0]);
    let out = register(&mut c, 9001, 1);
    assert!(!refused(&out));
    assert!(matches!(
        &out.events[..],
        [EventKind::BrokerFenced { broker: 1, .. }, .., EventKind::BrokerRegistered { broker: 1, .. }]
    ));
    assert_eq!(part(&c, "t", 0).leader, Some(0));
}

/// KAFKA-19047: a broker whose registration is in controlled shutdown may register again
/// at once, whether it completed the shutdown (fenced) or died during it (still unfenced).
#[test]
fn a_broker_in_controlled_shutdown_registers_again_at_once() {
    let mut c = cluster(&[1, 2, 3]);
    explicit(&mut c, "t", vec![vec![1, 2, 3]]);
    heartbeat(&mut c, 1000, 1, true);
    heartbeat(&mut c, 1500, 1, true);
    assert!(c.broker(1).unwrap().fenced);
    let out = register(&mut c, 2000, 1);
    assert!(!refused(&out) && c.broker(1).unwrap().registered);
    assert!(!c.broker(1).unwrap().in_controlled_shutdown);
    // Died during its controlled shutdown: unfenced, in controlled shutdown, heard from
    // 100 ms ago.
    heartbeat(&mut c, 2100, 2, true);
    assert!(!c.broker(2).unwrap().fenced && c.broker(2).unwrap().in_controlled_shutdown);
    assert!(!refused(&register(&mut c, 2200, 2)));
}

/// Before KAFKA-19047 (Kafka 4.0.0) a registration in controlled shutdown with a live
/// session blocked a new incarnation like any other: the rule is read from the semantics.
#[test]
fn without_kafka_19047_controlled_shutdown_does_not_free_the_session() {
    let mut c = cluster(&[1, 2, 3]);
    c.config.semantics.reregister_after_controlled_shutdown = false;
    explicit(&mut c, "t", vec![vec![1, 2, 3]]);
    heartbeat(&mut c, 2100, 2, true);
    assert!(!c.broker(2).unwrap().fenced && c.broker(2).unwrap().in_controlled_shutdown);
    assert!(refused(&register(&mut c, 2200, 2)));
}

#[test]
fn auto_rebalance_restores_the_preferred_leader_s10() {
    let mut c = cluster(&[1, 2, 3]);
    explicit(&mut c, "t", vec![vec![1, 2, 3]]);
    assert_eq!(c.next_rebalance_at(), None, "balanced");
    heartbeat(&mut c, 1000, 1, true);
    heartbeat(&mut c, 1500, 1, true);
    assert_eq!(part(&c, "t", 0).leader, Some(2));
    assert_eq!(c.next_rebalance_at(), Some(1000 + 300_000));
    run(&mut c, 1500, 10_000, &[2, 3]);
    // Broker 1 restarts and the leader adds it back to the ISR.
    register(&mut c, 10_000, 1);
    heartbeat(&mut c, 10_100, 1, false);
    let p = part(&c, "t", 0);
    let mut out = Outbox::default();
    let msg = Message::AlterPartition {
        leader: 2,
        broker_epoch: 0,
        tp: p.tp.clone(),
        leader_epoch: p.leader_epoch,
        partition_epoch: p.partition_epoch,
        new_isr: [2, 3, 1].iter().map(|&id| IsrMember { id, broker_epoch: -1 }).collect(),
        leader_recovery: LeaderRecoveryState::Recovered,
    };
    c.handle(11_000, NodeId::Broker(2), msg, &mut out);
    assert_eq!(part(&c, "t", 0).isr, vec![2, 3, 1]);
    let out = run(&mut c, 11_000, 301_000, &[1, 2, 3]);
    assert_eq!(leader_changes(&out), vec![(0, Some(2), Some(1), ElectionKind::Preferred)]);
    let p = part(&c, "t", 0);
    assert_eq!((p.leader, p.leader_epoch, p.isr.clone()), (Some(1), 2, vec![2, 3, 1]));
    assert_eq!(c.next_rebalance_at(), None);
}

#[test]
fn rebalance_waits_while_the_preferred_replica_is_out_of_the_isr() {
    let mut c = cluster(&[1, 2]);
    explicit(&mut c, "t", vec![vec![1, 2]]);
    let out = run(&mut c, 0, 9001, &[2]);
    assert_eq!(leader_changes(&out), vec![(0, Some(1), Some(2), ElectionKind::Clean)]);
    register(&mut c, 9500, 1);
    // Broker 1 is back but not in the ISR: the run changes nothing and is re-armed.
    let out = run(&mut c, 9500, 320_000, &[1, 2]);
    assert!(leader_changes(&out).is_empty());
    assert_eq!(c.next_rebalance_at(), Some(9001 + 2 * 300_000));
    c.set_broker_config(320_000, "auto.leader.rebalance.enable", "false", &mut Outbox::default()).unwrap();
    assert_eq!(c.next_rebalance_at(), None);
}

/// The first FindCoordinator's forwarded creation of `__consumer_offsets` with RF 3 on a
/// two-broker cluster is refused as the placer refuses any topic (reported once); RF 2 works.
#[test]
fn auto_created_offsets_topic_needs_enough_registered_brokers() {
    let mut c = cluster(&[1, 2]);
    let mut out = Outbox::default();
    for now in [0, 1000] {
        c.auto_create_topic(now, &spec("__consumer_offsets", 50, 3, Placement::Kafka), &mut out);
    }
    let refusals: Vec<&EventKind> = out.events.iter().filter(|e| matches!(e, EventKind::Group(_))).collect();
    assert_eq!(refusals.len(), 1, "{refusals:?}");
    assert!(refusals[0].to_string().contains("only 2 broker(s) are registered"), "{}", refusals[0]);
    assert!(c.topic("__consumer_offsets").is_none());
    c.auto_create_topic(2000, &spec("__consumer_offsets", 50, 2, Placement::Kafka), &mut out);
    assert_eq!(c.topic("__consumer_offsets").unwrap().partition_count(), 50);
}

#[test]
fn every_created_topic_gets_a_new_id_even_under_a_deleted_name() {
    let mut c = cluster(&[1, 2, 3]);
    let mut out = Outbox::default();
    c.create_topic(0, &spec("t", 2, 3, Placement::Kafka), &mut out).unwrap();
    let first = c.topic("t").unwrap().id;
    c.create_partitions(1, "t", 3, &mut out).unwrap();
    let t = c.topic("t").unwrap();
    assert!(t.partitions.iter().all(|p| p.topic_id == first), "added partitions keep the topic's id");
    assert_ne!(first, TopicId::ZERO);
    c.delete_topic(2, "t", &mut out).unwrap();
    c.create_topic(3, &spec("t", 1, 3, Placement::Kafka), &mut out).unwrap();
    let second = c.topic("t").unwrap().id;
    assert_ne!(first, second, "ReplicationControlManager.createTopic draws a new id");
    assert!(c.full_image().partitions.iter().all(|p| p.topic_id == second));
    let ids: Vec<String> = out
        .events
        .iter()
        .filter_map(|e| match e {
            EventKind::TopicCreated { topic_id, .. } => Some(topic_id.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(ids, [first.to_string(), second.to_string()]);
}

#[test]
fn create_topic_initial_state_and_errors_s1() {
    let mut c = cluster(&[1, 2, 3]);
    let mut out = Outbox::default();
    c.create_topic(0, &spec("t", 4, 3, Placement::Seed), &mut out).unwrap();
    for (i, want) in [[1, 2, 3], [2, 3, 1], [3, 1, 2], [1, 2, 3]].iter().enumerate() {
        let p = part(&c, "t", i as u32);
        assert_eq!(p.replicas, want.to_vec());
        assert_eq!(p.isr, want.to_vec());
        assert_eq!((p.leader, p.leader_epoch, p.partition_epoch), (Some(want[0]), 0, 0));
    }
    assert!(
        matches!(&out.events[0], EventKind::TopicCreated { topic, assignment, .. } if topic == "t" && assignment.len() == 4)
    );
    assert_eq!(out.sends.len(), 4, "metadata to 3 brokers and the client");
    assert_eq!(c.topic("t").unwrap().replication_factor, 3);
    // Step 2: RF 4.
    let err = c.create_topic(0, &spec("u", 1, 4, Placement::Kafka), &mut Outbox::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "INVALID_REPLICATION_FACTOR: Unable to replicate the partition 4 time(s): The target replication factor of 4 cannot be reached because only 3 broker(s) are registered."
    );
    // Duplicate name and bad names.
    let err = c.create_topic(0, &spec("t", 1, 1, Placement::Kafka), &mut Outbox::default()).unwrap_err();
    assert_eq!(err, SimError::TopicExists("t".into()));
    assert!(c.create_topic(0, &spec("a b", 1, 1, Placement::Kafka), &mut Outbox::default()).is_err());
    // Step 3: broker 3 down (fenced); RF 3 still works, ISR = the live replicas.
    run(&mut c, 0, 9001, &[1, 2]);
    let mut out = Outbox::default();
    c.create_topic(9001, &spec("v", 4, 3, Placement::Kafka), &mut out).unwrap();
    for i in 0..4 {
        let p = part(&c, "v", i);
        assert_eq!(p.replicas[2], 3, "the fenced broker is placed last");
        assert_eq!(p.isr, p.replicas[..2].to_vec());
        assert_eq!(p.leader, Some(p.replicas[0]));
    }
    // Seed placement with the fenced broker first: leader = first active replica.
    c.create_topic(9001, &spec("w", 3, 3, Placement::Seed), &mut Outbox::default()).unwrap();
    let p = part(&c, "w", 2);
    assert_eq!((p.replicas.clone(), p.isr.clone(), p.leader), (vec![3, 1, 2], vec![1, 2], Some(1)));
    // An explicit list of fenced brokers only.
    let err = c
        .create_topic(9001, &spec("x", 1, 1, Placement::Explicit(vec![vec![3]])), &mut Outbox::default())
        .unwrap_err();
    assert!(err.to_string().contains("are fenced or in controlled shutdown"), "{err}");
    assert!(c.topic("x").is_none());
}

#[test]
fn config_changes_are_broadcast_without_events() {
    let mut c = cluster(&[0, 1]);
    explicit(&mut c, "t", vec![vec![0, 1]]);
    let mut out = Outbox::default();
    c.set_broker_config(10, "min.insync.replicas", "2", &mut out).unwrap();
    assert!(out.events.is_empty());
    assert_eq!(out.sends.len(), 3);
    assert!(
        matches!(&out.sends[0].1, Message::Metadata(d) if d.broker_config.as_ref().unwrap().min_insync_replicas == 2)
    );
    assert!(c.set_broker_config(10, "acks", "1", &mut Outbox::default()).is_err());
    let mut out = Outbox::default();
    c.set_topic_config(10, "t", "min.insync.replicas", "2", &mut out).unwrap();
    assert!(
        matches!(&out.sends[0].1, Message::Metadata(d) if d.topic_configs[0].1.min_insync_replicas == Some(2))
    );
    assert_eq!(
        c.set_topic_config(10, "nope", "min.insync.replicas", "2", &mut Outbox::default()),
        Err(SimError::UnknownTopic("nope".into()))
    );
    assert!(matches!(
        c.set_topic_config(10, "t", "replica.lag.time.max.ms", "5", &mut Outbox::default()),
        Err(SimError::Config(_))
    ));
}

#[test]
fn same_seed_same_placement() {
    let make = || {
        let mut c = cluster(&[0, 1, 2, 3, 4]);
        c.create_topic(0, &spec("t", 20, 3, Placement::Kafka), &mut Outbox::default()).unwrap();
        c.full_image()
    };
    assert_eq!(make(), make());
}

#[test]
fn a_clone_continues_like_the_original() {
    // The placement and topic-id streams clone at their position, so a clone taken
    // mid-run places and names the next topic exactly as the original does.
    let mut c = cluster(&[0, 1, 2, 3, 4]);
    c.create_topic(0, &spec("a", 7, 3, Placement::Kafka), &mut Outbox::default()).unwrap();
    let mut copy = c.clone();
    let next = spec("b", 11, 3, Placement::Kafka);
    let (mut out, mut copy_out) = (Outbox::default(), Outbox::default());
    c.create_topic(5, &next, &mut out).unwrap();
    copy.create_topic(5, &next, &mut copy_out).unwrap();
    assert_eq!(c.full_image(), copy.full_image());
    assert_eq!(c.topic("b").unwrap().id, copy.topic("b").unwrap().id);
    assert_eq!(c.image(), copy.image());
}

#[test]
fn the_published_image_follows_every_broadcast() {
    let mut c = cluster(&[0, 1, 2]);
    c.create_topic(0, &spec("t", 3, 3, Placement::Kafka), &mut Outbox::default()).unwrap();
    c.set_broker_config(5, "min.insync.replicas", "2", &mut Outbox::default()).unwrap();
    // Broker 2 stops heartbeating: it is fenced and leaves every ISR.
    run(&mut c, 0, 20_000, &[0, 1]);
    let image = c.image();
    assert!(image.broker(2).unwrap().fenced);
    assert_eq!(image.broker_config().min_insync_replicas, 2);
    let published: Vec<&PartitionState> = image.partitions().collect();
    let internal: Vec<&PartitionState> = c.partitions().collect();
    assert_eq!(published, internal);
    assert!(published.iter().all(|p| !p.isr.contains(&2)));
}
