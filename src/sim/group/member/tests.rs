//! Members and a coordinator wired together in a small loop: requests go straight to the
//! coordinator, the offsets partition's HW follows its log end unless frozen (the partition
//! under min ISR).

use super::*;
use crate::sim::Offset;
use crate::sim::group::GroupCoordinatorConfig;
use crate::sim::group::coordinator::{GroupCoordinator, GroupOutbox};
use crate::sim::group::messages::OffsetsRecord;

struct Lab {
    now: Ms,
    coordinators: BTreeMap<BrokerId, GroupCoordinator>,
    active: BrokerId,
    part: u32,
    log: Vec<OffsetsRecord>,
    hw_frozen: bool,
    members: Vec<GroupMember>,
    frozen: BTreeSet<usize>,
    events: Vec<GroupEvent>,
    started: Vec<Vec<(TopicPartition, Option<OffsetAndEpoch>)>>,
}

fn tp(p: u32) -> TopicPartition {
    TopicPartition::new("t", p)
}

impl Lab {
    fn new(assignors: Vec<Assignor>, members: usize) -> Self {
        let mut c = GroupCoordinator::new(1, GroupCoordinatorConfig::default(), 50);
        let part = c.partition_of("g");
        let mut out = GroupOutbox::default();
        c.load(0, part, &[], 0, &mut out);
        let mut lab = Lab {
            now: 0,
            coordinators: BTreeMap::from([(1, c)]),
            active: 1,
            part,
            log: vec![],
            hw_frozen: false,
            members: vec![],
            frozen: BTreeSet::new(),
            events: out.events,
            started: vec![],
        };
        for _ in 0..members {
            lab.add_member(assignors.clone());
        }
        lab
    }

    fn add_member(&mut self, assignors: Vec<Assignor>) {
        let i = self.members.len();
        let mut config = MemberConfig::new("g", &format!("consumer-g-{}", i + 1), vec!["t".into()]);
        config.assignors = assignors;
        let mut m = GroupMember::new(config, self.now);
        m.set_metadata(BTreeMap::from([(Arc::from("t"), 4)]));
        self.members.push(m);
        self.started.push(vec![]);
    }

    fn coordinator(&mut self) -> &mut GroupCoordinator {
        self.coordinators.get_mut(&self.active).expect("active")
    }

    fn drain_coordinator(&mut self, mut out: GroupOutbox) {
        loop {
            self.events.append(&mut out.events);
            let mut next = GroupOutbox::default();
            for append in out.appends.drain(..) {
                self.log.extend(append.records);
                let end = self.log.len() as Offset;
                let (now, frozen, part) = (self.now, self.hw_frozen, self.part);
                let c = self.coordinator();
                c.appended(now, append.write, Ok(end), &mut next);
                if !frozen {
                    c.on_high_watermark(now, part, end, &mut next);
                }
            }
            for (client, response) in out.responses.drain(..) {
                let i = client as usize;
                if self.frozen.contains(&i) {
                    continue;
                }
                let mut mo = MemberOutbox::default();
                let (now, from) = (self.now, self.active);
                self.members[i].handle(now, from, response, &mut mo);
                self.drain_member(i, mo, &mut next);
            }
            if next.responses.is_empty() && next.appends.is_empty() {
                self.events.append(&mut next.events);
                return;
            }
            out = next;
        }
    }

    fn drain_member(&mut self, i: usize, mut mo: MemberOutbox, next: &mut GroupOutbox) {
        self.events.append(&mut mo.events);
        self.started[i].append(&mut mo.started);
        for (to, request) in mo.requests {
            let now = self.now;
            match to {
                None => {
                    let answer = GroupResponse::FindCoordinator {
                        group: "g".into(),
                        error: None,
                        coordinator: Some(self.active),
                    };
                    let mut again = MemberOutbox::default();
                    self.members[i].handle(now, self.active, answer, &mut again);
                    self.drain_member(i, again, next);
                }
                Some(b) if b == self.active => self.coordinator().handle(now, i as u32, request, next),
                Some(b) => {
                    // An old coordinator answers at once, as itself.
                    let mut old = GroupOutbox::default();
                    if let Some(c) = self.coordinators.get_mut(&b) {
                        c.handle(now, i as u32, request, &mut old);
                    }
                    for (client, response) in old.responses {
                        let mut again = MemberOutbox::default();
                        self.members[client as usize].handle(now, b, response, &mut again);
                        self.drain_member(client as usize, again, next);
                    }
                }
            }
        }
    }

    fn run_until(&mut self, until: Ms) {
        while self.now < until {
            self.now += 50;
            let mut out = GroupOutbox::default();
            let now = self.now;
            for c in self.coordinators.values_mut() {
                c.on_tick(now, &mut out);
            }
            for i in 0..self.members.len() {
                if self.frozen.contains(&i) {
                    continue;
                }
                let mut mo = MemberOutbox::default();
                self.members[i].on_tick(now, &mut mo);
                self.drain_member(i, mo, &mut out);
            }
            self.drain_coordinator(out);
        }
    }

    fn group_state(&self) -> crate::sim::group::classic::GroupState {
        self.coordinators[&self.active].group("g").expect("group").state
    }

    fn count(&self, f: impl Fn(&GroupEvent) -> bool) -> usize {
        self.events.iter().filter(|e| f(e)).count()
    }
}

#[test]
fn two_members_split_the_partitions_with_range() {
    let mut lab = Lab::new(vec![Assignor::Range, Assignor::CooperativeSticky], 2);
    lab.run_until(8000);
    assert_eq!(lab.group_state(), crate::sim::group::classic::GroupState::Stable);
    assert_eq!(lab.members[0].assigned(), [tp(0), tp(1)]);
    assert_eq!(lab.members[1].assigned(), [tp(2), tp(3)]);
    assert_eq!(
        lab.started[1],
        [(tp(2), None), (tp(3), None)],
        "nothing committed: auto.offset.reset decides"
    );
    assert!(lab.members.iter().all(|m| m.rebalances() == 1 && m.generation() == 1));
}

#[test]
fn a_closing_member_leaves_and_the_other_takes_everything() {
    let mut lab = Lab::new(vec![Assignor::Range], 2);
    lab.run_until(8000);
    let mut mo = MemberOutbox::default();
    let now = lab.now;
    lab.members[1].close(now, &mut mo);
    let mut out = GroupOutbox::default();
    lab.drain_member(1, mo, &mut out);
    lab.drain_coordinator(out);
    lab.run_until(12_000);
    assert_eq!(lab.count(|e| matches!(e, GroupEvent::MemberLeft { .. })), 1);
    assert_eq!(lab.members[0].assigned(), [tp(0), tp(1), tp(2), tp(3)]);
    assert_eq!((lab.members[0].rebalances(), lab.members[0].generation()), (2, 2));
    assert!(lab.members[1].is_done() && lab.members[1].assigned().is_empty());
}

#[test]
fn a_frozen_member_is_removed_after_session_timeout_ms() {
    let mut lab = Lab::new(vec![Assignor::Range], 2);
    lab.run_until(8000);
    lab.frozen.insert(1);
    lab.run_until(8000 + 40_000);
    assert_eq!(lab.count(|e| matches!(e, GroupEvent::SessionExpired { .. })), 0, "45 s not over");
    lab.run_until(8000 + 60_000);
    assert_eq!(lab.count(|e| matches!(e, GroupEvent::SessionExpired { .. })), 1);
    assert_eq!(lab.members[0].assigned().len(), 4);
    // Thawed, it learns it was removed, rejoins, and the group splits again.
    lab.frozen.clear();
    lab.run_until(8000 + 80_000);
    assert_eq!(lab.members[0].assigned().len(), 2);
    assert_eq!(lab.members[1].assigned().len(), 2);
}

#[test]
fn commits_stall_while_the_hw_is_frozen_and_recover_after() {
    let mut lab = Lab::new(vec![Assignor::Range], 1);
    lab.run_until(8000);
    lab.members[0].set_position(tp(0), OffsetAndEpoch::at(10));
    lab.run_until(11_000);
    assert_eq!(lab.members[0].committed().get(&tp(0)).map(|c| c.offset), Some(10));
    lab.hw_frozen = true;
    lab.members[0].set_position(tp(0), OffsetAndEpoch::at(20));
    lab.run_until(30_000);
    assert_eq!(lab.members[0].committed().get(&tp(0)).map(|c| c.offset), Some(10));
    assert!(
        lab.events
            .iter()
            .any(|e| matches!(e, GroupEvent::CommitFailed { error: ErrorCode::CoordinatorNotAvailable, .. }))
    );
    assert!(lab.count(|e| matches!(e, GroupEvent::CoordinatorLost { .. })) >= 1);
    lab.hw_frozen = false;
    lab.run_until(45_000);
    assert_eq!(lab.members[0].committed().get(&tp(0)).map(|c| c.offset), Some(20));
    assert_eq!(lab.count(|e| matches!(e, GroupEvent::CommitRecovered { .. })), 1);
}

#[test]
fn cooperative_members_move_only_what_must_move() {
    let mut lab = Lab::new(vec![Assignor::CooperativeSticky], 1);
    lab.run_until(8000);
    assert_eq!(lab.members[0].assigned().len(), 4);
    lab.add_member(vec![Assignor::CooperativeSticky]);
    lab.run_until(20_000);
    assert_eq!(lab.members[0].assigned(), [tp(0), tp(1)]);
    assert_eq!(lab.members[1].assigned(), [tp(2), tp(3)]);
    let revoked: Vec<&GroupEvent> =
        lab.events.iter().filter(|e| matches!(e, GroupEvent::Revoked { .. })).collect();
    assert_eq!(revoked.len(), 1, "{revoked:?}");
    assert!(matches!(revoked[0], GroupEvent::Revoked { partitions, .. } if *partitions == [tp(2), tp(3)]));
}

#[test]
fn members_follow_a_coordinator_move() {
    let mut lab = Lab::new(vec![Assignor::Range], 2);
    lab.run_until(8000);
    lab.members[0].set_position(tp(0), OffsetAndEpoch::at(3));
    lab.run_until(11_000);
    let mut out = GroupOutbox::default();
    let part = lab.part;
    lab.coordinators.get_mut(&1).unwrap().unload(part, &mut out);
    let mut other = GroupCoordinator::new(2, GroupCoordinatorConfig::default(), 50);
    other.load(lab.now, part, &lab.log, lab.log.len() as Offset, &mut out);
    lab.coordinators.insert(2, other);
    lab.active = 2;
    lab.drain_coordinator(out);
    lab.run_until(30_000);
    assert_eq!(
        lab.count(|e| matches!(e, GroupEvent::CoordinatorFound { broker: 2, .. })),
        2,
        "{:#?}",
        lab.events
    );
    assert_eq!(lab.group_state(), crate::sim::group::classic::GroupState::Stable);
    assert!(lab.members.iter().all(|m| m.coordinator() == Some(2) && m.generation() == 1));
    let g = lab.coordinators[&2].group("g").unwrap();
    assert_eq!(g.offsets.get(&tp(0)).map(|c| c.offset), Some(3));
}
