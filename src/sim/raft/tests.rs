//! The quorum's election and commit rules on three voters, messages passed by hand.

use super::*;
use rand::SeedableRng;

fn voter(id: VoterId) -> RaftState {
    RaftState::new(id, &[3000, 3001, 3002], QuorumConfig::default(), ChaCha8Rng::seed_from_u64(id as u64))
}

/// Delivers every raft message in `out` to the voters in `all` (none lost), until quiet.
fn deliver(now: Ms, all: &mut [RaftState], from: VoterId, out: Outbox) {
    let mut queue: Vec<(VoterId, VoterId, RaftMessage)> = out
        .sends
        .into_iter()
        .filter_map(|(to, m)| match (to, m) {
            (NodeId::Controller(to), Message::Raft(m)) => Some((from, to, *m)),
            _ => None,
        })
        .collect();
    while let Some((from, to, msg)) = queue.pop() {
        let Some(v) = all.iter_mut().find(|v| v.id() == to) else { continue };
        let mut out = Outbox::default();
        v.handle(now, from, &msg, &mut out);
        for (next, m) in out.sends {
            if let (NodeId::Controller(next), Message::Raft(m)) = (next, m) {
                queue.insert(0, (to, next, *m));
            }
        }
    }
}

#[test]
fn a_follower_that_loses_its_leader_is_elected_by_the_others() {
    let mut all = [voter(3000), voter(3001), voter(3002)];
    for v in &mut all {
        v.bootstrap(0, 3000);
    }
    // 3000 dies: the followers' fetch timeout runs out.
    let mut live = [all[1].clone(), all[2].clone()];
    let mut out = Outbox::default();
    live[0].on_tick(FETCH_TIMEOUT_MS, &mut out);
    assert!(out.events.iter().any(|e| matches!(e, EventKind::ControllerLostLeader { controller: 3001, .. })));
    // 3002 still hears from nobody either: its pre-vote goes to 3001's request.
    live[1].last_leader_contact = None;
    deliver(FETCH_TIMEOUT_MS, &mut live, 3001, out);
    assert!(live[0].is_leader(), "{:?}", live[0].role());
    assert_eq!(live[0].epoch(), 2);
    assert_eq!(live[1].leader(), Some(3001));
}

#[test]
fn a_follower_that_still_hears_its_leader_refuses_a_pre_vote() {
    let mut v = voter(3002);
    v.bootstrap(0, 3000);
    let mut out = Outbox::default();
    v.handle(500, 3001, &RaftMessage::Vote { epoch: 2, last_epoch: 1, end: 1, pre_vote: true }, &mut out);
    let granted = out.sends.iter().any(|(_, m)| {
        matches!(m, Message::Raft(r) if matches!(**r, RaftMessage::VoteResponse { granted: true, .. }))
    });
    assert!(!granted);
    assert_eq!(v.epoch(), 1, "a pre-vote changes no epoch");
}

#[test]
fn a_shorter_log_gets_no_vote() {
    let mut v = voter(3002);
    v.bootstrap(0, 3000);
    v.log.append(1);
    v.restart(0);
    let mut out = Outbox::default();
    v.handle(10, 3001, &RaftMessage::Vote { epoch: 2, last_epoch: 1, end: 1, pre_vote: false }, &mut out);
    let granted = out.sends.iter().any(|(_, m)| {
        matches!(m, Message::Raft(r) if matches!(**r, RaftMessage::VoteResponse { granted: true, .. }))
    });
    assert!(!granted);
}

#[test]
fn the_high_watermark_needs_a_majority() {
    let mut leader = voter(3000);
    leader.bootstrap(0, 3000);
    let mut out = Outbox::default();
    leader.append(10, &mut out);
    assert_eq!(leader.high_watermark(), 1, "only the leader has offset 1");
    leader.handle(
        20,
        3001,
        &RaftMessage::Fetch { epoch: 1, fetch_offset: 2, last_fetched_epoch: 1 },
        &mut out,
    );
    assert_eq!(leader.high_watermark(), 2, "two of three have it");
}

#[test]
fn a_leader_cut_off_from_a_majority_resigns() {
    let mut leader = voter(3000);
    leader.bootstrap(0, 3000);
    let mut out = Outbox::default();
    leader.on_tick(FETCH_TIMEOUT_MS * 3 / 2, &mut out);
    assert!(!leader.is_leader());
    assert!(out.events.iter().any(|e| matches!(e, EventKind::ControllerResigned { controller: 3000, .. })));
}
