use super::*;
use crate::sim::consumer::OffsetAndEpoch;

const P: u32 = 50;

fn coord() -> (GroupCoordinator, u32) {
    let mut c = GroupCoordinator::new(1, GroupCoordinatorConfig::default(), P);
    let part = c.partition_of("g");
    c.load(0, part, &[], 0, &mut GroupOutbox::default());
    (c, part)
}

fn tp(p: u32) -> TopicPartition {
    TopicPartition::new("t", p)
}

fn join_req(member: &str, session: Ms) -> GroupRequest {
    let sub = Subscription { topics: vec!["t".into()], owned: vec![], generation: -1 };
    GroupRequest::Join {
        group: "g".into(),
        member: member.into(),
        client_id: "consumer".into(),
        session_timeout_ms: session,
        rebalance_timeout_ms: 300_000,
        protocols: vec![("range".into(), sub)],
    }
}

fn joined(out: &GroupOutbox, client: ClientId) -> Option<&JoinResponse> {
    out.responses.iter().rev().find_map(|(c, r)| match r {
        GroupResponse::Join(j) if *c == client => Some(j),
        _ => None,
    })
}

/// Joins `client` as a new member (MEMBER_ID_REQUIRED, then the real JoinGroup); returns the id.
fn join_new(c: &mut GroupCoordinator, now: Ms, client: ClientId, out: &mut GroupOutbox) -> MemberId {
    c.handle(now, client, join_req("", 45_000), out);
    let first = joined(out, client).expect("answer").clone();
    assert_eq!(first.error, Some(ErrorCode::MemberIdRequired));
    c.handle(now, client, join_req(&first.member, 45_000), out);
    first.member
}

/// Two members in a Stable group at generation 1; returns their ids (leader first).
fn stable_pair(c: &mut GroupCoordinator, part: u32) -> (MemberId, MemberId) {
    let mut out = GroupOutbox::default();
    let a = join_new(c, 0, 0, &mut out);
    let b = join_new(c, 1000, 1, &mut out);
    c.on_tick(3000, &mut out);
    // b joined during the first delay: extended once.
    assert_eq!(c.group("g").unwrap().state, GroupState::PreparingRebalance);
    c.on_tick(6000, &mut out);
    let g = c.group("g").unwrap();
    assert_eq!((g.state, g.generation), (GroupState::CompletingRebalance, 1));
    let leader = joined(&out, 0).unwrap();
    assert_eq!(leader.members.len(), 2);
    assert!(joined(&out, 1).unwrap().members.is_empty());
    c.handle(
        6000,
        1,
        GroupRequest::Sync { group: "g".into(), member: b.clone(), generation: 1, assignments: vec![] },
        &mut out,
    );
    let assignments = vec![(a.clone(), vec![tp(0)]), (b.clone(), vec![tp(1)])];
    c.handle(
        6000,
        0,
        GroupRequest::Sync { group: "g".into(), member: a.clone(), generation: 1, assignments },
        &mut out,
    );
    let append = out.appends.last().unwrap().clone();
    c.appended(6000, append.write, Ok(1), &mut out);
    assert_eq!(c.group("g").unwrap().state, GroupState::CompletingRebalance, "waits for the HW");
    c.on_high_watermark(6001, part, 1, &mut out);
    assert_eq!(c.group("g").unwrap().state, GroupState::Stable);
    (a, b)
}

fn heartbeat(
    c: &mut GroupCoordinator,
    now: Ms,
    client: ClientId,
    member: &MemberId,
    generation: i32,
) -> Option<ErrorCode> {
    let mut out = GroupOutbox::default();
    c.handle(
        now,
        client,
        GroupRequest::Heartbeat { group: "g".into(), member: member.clone(), generation },
        &mut out,
    );
    match out.responses.pop() {
        Some((_, GroupResponse::Heartbeat { error })) => error,
        other => panic!("{other:?}"),
    }
}

#[test]
fn initial_rebalance_waits_for_the_delay_and_stabilizes_after_the_write() {
    let (mut c, part) = coord();
    let (a, b) = stable_pair(&mut c, part);
    assert_eq!(c.group("g").unwrap().members[&a].assignment, [tp(0)]);
    assert_eq!(c.group("g").unwrap().members[&b].assignment, [tp(1)]);
    assert_eq!(heartbeat(&mut c, 7000, 1, &b, 1), None);
}

#[test]
fn a_leaving_member_triggers_a_rebalance_the_other_rejoins() {
    let (mut c, part) = coord();
    let (a, b) = stable_pair(&mut c, part);
    let mut out = GroupOutbox::default();
    c.handle(7000, 1, GroupRequest::Leave { group: "g".into(), member: b.clone() }, &mut out);
    assert!(out.events.iter().any(|e| matches!(e, GroupEvent::MemberLeft { .. })));
    assert_eq!(c.group("g").unwrap().state, GroupState::PreparingRebalance);
    assert_eq!(heartbeat(&mut c, 7100, 0, &a, 1), Some(ErrorCode::RebalanceInProgress));
    c.handle(7200, 0, join_req(&a, 45_000), &mut out);
    let g = c.group("g").unwrap();
    assert_eq!((g.state, g.generation, g.members.len()), (GroupState::CompletingRebalance, 2, 1));
}

#[test]
fn a_silent_member_is_removed_after_its_session_timeout() {
    let (mut c, part) = coord();
    let (a, b) = stable_pair(&mut c, part);
    let mut out = GroupOutbox::default();
    for now in (9000..51_000).step_by(3000) {
        assert_eq!(heartbeat(&mut c, now, 0, &a, 1), None);
        c.on_tick(now, &mut out);
    }
    assert!(c.group("g").unwrap().members.contains_key(&b), "session.timeout.ms not over yet");
    c.on_tick(6001 + 45_000, &mut out);
    assert!(
        out.events.iter().any(|e| matches!(e, GroupEvent::SessionExpired { member, .. } if *member == b))
    );
    assert_eq!(c.group("g").unwrap().state, GroupState::PreparingRebalance);
}

#[test]
fn commits_wait_for_the_hw_and_time_out_as_coordinator_not_available() {
    let (mut c, part) = coord();
    let (a, _) = stable_pair(&mut c, part);
    let mut out = GroupOutbox::default();
    let commit = |offset| GroupRequest::Commit {
        group: "g".into(),
        member: a.clone(),
        generation: 1,
        offsets: vec![(tp(0), OffsetAndEpoch { offset, leader_epoch: Some(2) })],
    };
    c.handle(10_000, 0, commit(5), &mut out);
    let w = out.appends.last().unwrap().write;
    c.appended(10_000, w, Ok(2), &mut out);
    assert!(out.responses.is_empty(), "the HW is still 1");
    c.on_tick(15_000, &mut out);
    assert!(matches!(
        out.responses.pop(),
        Some((0, GroupResponse::Commit { error: Some(ErrorCode::CoordinatorNotAvailable), .. }))
    ));
    c.handle(16_000, 0, commit(7), &mut out);
    let w = out.appends.last().unwrap().write;
    c.appended(16_000, w, Ok(3), &mut out);
    c.on_high_watermark(16_010, part, 3, &mut out);
    assert!(matches!(out.responses.pop(), Some((0, GroupResponse::Commit { error: None, .. }))));
    c.handle(
        16_020,
        0,
        GroupRequest::FetchOffsets { group: "g".into(), partitions: vec![tp(0), tp(1)] },
        &mut out,
    );
    assert!(matches!(
        out.responses.pop(),
        Some((0, GroupResponse::FetchOffsets { error: None, offsets })) if offsets == vec![(tp(0), Some(OffsetAndEpoch { offset: 7, leader_epoch: Some(2) })), (tp(1), None)]
    ));
}

#[test]
fn append_errors_map_as_kafka_4_does() {
    assert_eq!(coordinator_error(ErrorCode::NotEnoughReplicas), ErrorCode::CoordinatorNotAvailable);
    assert_eq!(coordinator_error(ErrorCode::RequestTimedOut), ErrorCode::CoordinatorNotAvailable);
    assert_eq!(coordinator_error(ErrorCode::NotLeaderOrFollower), ErrorCode::NotCoordinator);
}

#[test]
fn commit_validation() {
    let (mut c, part) = coord();
    let (a, _) = stable_pair(&mut c, part);
    let mut out = GroupOutbox::default();
    let req = |member: &str, generation| GroupRequest::Commit {
        group: "g".into(),
        member: member.into(),
        generation,
        offsets: vec![(tp(0), OffsetAndEpoch::at(1))],
    };
    c.handle(7000, 0, req(&a, 0), &mut out);
    assert!(matches!(
        out.responses.pop(),
        Some((_, GroupResponse::Commit { error: Some(ErrorCode::IllegalGeneration), .. }))
    ));
    c.handle(7000, 0, req("nobody", 1), &mut out);
    assert!(matches!(
        out.responses.pop(),
        Some((_, GroupResponse::Commit { error: Some(ErrorCode::UnknownMemberId), .. }))
    ));
    c.handle(7000, 0, req("", -1), &mut out);
    assert!(matches!(
        out.responses.pop(),
        Some((_, GroupResponse::Commit { error: Some(ErrorCode::UnknownMemberId), .. }))
    ));
}

#[test]
fn session_timeout_outside_the_broker_bounds_is_refused() {
    let (mut c, _) = coord();
    let mut out = GroupOutbox::default();
    c.handle(0, 0, join_req("", 1000), &mut out);
    assert_eq!(joined(&out, 0).unwrap().error, Some(ErrorCode::InvalidSessionTimeout));
    assert!(c.group("g").is_none(), "nothing changed");
}

#[test]
fn unloading_answers_not_coordinator_and_loading_replays_the_log() {
    let (mut c, part) = coord();
    let (a, b) = stable_pair(&mut c, part);
    let records = vec![
        OffsetsRecord::Commit { group: "g".into(), tp: tp(0), offset: 9, leader_epoch: Some(4) },
        metadata_record(c.group("g").unwrap(), &c.group("g").unwrap().assignment()),
    ];
    let mut out = GroupOutbox::default();
    c.unload(part, &mut out);
    assert!(!c.is_coordinator_for("g"));
    assert_eq!(heartbeat(&mut c, 7000, 0, &a, 1), Some(ErrorCode::NotCoordinator));
    let mut other = GroupCoordinator::new(2, GroupCoordinatorConfig::default(), P);
    other.load(8000, part, &records, 2, &mut out);
    let g = other.group("g").unwrap();
    assert_eq!(
        (g.state, g.generation, g.offsets.get(&tp(0))),
        (GroupState::Stable, 1, Some(&OffsetAndEpoch { offset: 9, leader_epoch: Some(4) }))
    );
    assert_eq!(g.members[&b].assignment, [tp(1)]);
    assert_eq!(heartbeat(&mut other, 8100, 1, &b, 1), None);
}

#[test]
fn unknown_member_and_wrong_generation_on_heartbeat() {
    let (mut c, part) = coord();
    let (a, _) = stable_pair(&mut c, part);
    assert_eq!(heartbeat(&mut c, 7000, 0, &"x".into(), 1), Some(ErrorCode::UnknownMemberId));
    assert_eq!(heartbeat(&mut c, 7000, 0, &a, 7), Some(ErrorCode::IllegalGeneration));
}

#[test]
fn failed_assignment_write_sends_members_back_to_join() {
    let (mut c, part) = coord();
    let mut out = GroupOutbox::default();
    let a = join_new(&mut c, 0, 0, &mut out);
    c.on_tick(3000, &mut out);
    c.handle(
        3000,
        0,
        GroupRequest::Sync { group: "g".into(), member: a.clone(), generation: 1, assignments: vec![] },
        &mut out,
    );
    c.on_tick(3000 + 5000, &mut out);
    assert!(matches!(
        out.responses.last(),
        Some((0, GroupResponse::Sync { error: Some(ErrorCode::CoordinatorNotAvailable), .. }))
    ));
    assert_eq!(c.group("g").unwrap().state, GroupState::PreparingRebalance);
    let _ = part;
}
