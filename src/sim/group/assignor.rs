//! Client-side partition assignors (`partition.assignment.strategy`): the group leader runs
//! the one the group chose over every member's subscription and sends the result in its
//! SyncGroup. Members are ordered by member id, as Kafka's `MemberInfo` orders dynamic
//! members.

use super::super::TopicPartition;
use super::messages::{MemberId, Subscription};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;

/// Partitions per member.
pub type Assignment = BTreeMap<MemberId, Vec<TopicPartition>>;

/// An assignor named in `partition.assignment.strategy`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Assignor {
    /// `range` (`RangeAssignor`, the Java consumer's first default).
    Range,
    /// `roundrobin` (`RoundRobinAssignor`).
    RoundRobin,
    /// `cooperative-sticky` (`CooperativeStickyAssignor`, KIP-429).
    CooperativeSticky,
}

impl Assignor {
    /// Every assignor, for name lookups.
    pub const ALL: [Assignor; 3] = [Assignor::Range, Assignor::RoundRobin, Assignor::CooperativeSticky];

    /// The name members put in JoinGroup (`ConsumerPartitionAssignor.name()`).
    pub fn name(self) -> &'static str {
        match self {
            Assignor::Range => "range",
            Assignor::RoundRobin => "roundrobin",
            Assignor::CooperativeSticky => "cooperative-sticky",
        }
    }

    /// Looks an assignor up by name (`None` for an unknown one).
    pub fn from_name(name: &str) -> Option<Assignor> {
        Self::ALL.into_iter().find(|a| a.name() == name)
    }

    /// Whether members keep their partitions through a rebalance and revoke only what moves
    /// (`RebalanceProtocol.COOPERATIVE`), instead of revoking everything before joining (EAGER).
    pub fn is_cooperative(self) -> bool {
        self == Assignor::CooperativeSticky
    }

    /// Assigns the partitions of the subscribed topics (`partitions`: topic → partition
    /// count; topics missing from it have no partitions yet) to `members`. Every member
    /// appears in the result, possibly with no partitions.
    pub fn assign(
        self,
        partitions: &BTreeMap<Arc<str>, u32>,
        members: &[(MemberId, Subscription)],
    ) -> Assignment {
        let mut sorted: Vec<&(MemberId, Subscription)> = members.iter().collect();
        sorted.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out: Assignment = sorted.iter().map(|(m, _)| (m.clone(), Vec::new())).collect();
        match self {
            Assignor::Range => range(partitions, &sorted, &mut out),
            Assignor::RoundRobin => round_robin(partitions, &sorted, &mut out),
            Assignor::CooperativeSticky => cooperative_sticky(partitions, &sorted, &mut out),
        }
        out
    }
}

impl fmt::Display for Assignor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

fn subscribes(s: &Subscription, topic: &str) -> bool {
    s.topics.iter().any(|t| &**t == topic)
}

fn topic_partitions(topic: &Arc<str>, count: u32) -> impl Iterator<Item = TopicPartition> + '_ {
    (0..count).map(move |p| TopicPartition::new(topic.clone(), p))
}

/// `RangeAssignor`: per topic, its partitions in ranges over the members subscribed to it,
/// the first `partitions % members` members taking one more.
fn range(partitions: &BTreeMap<Arc<str>, u32>, members: &[&(MemberId, Subscription)], out: &mut Assignment) {
    for (topic, &count) in partitions {
        let subscribed: Vec<&MemberId> =
            members.iter().filter(|(_, s)| subscribes(s, topic)).map(|(m, _)| m).collect();
        let Some(n) = u32::try_from(subscribed.len()).ok().filter(|n| *n > 0) else { continue };
        let (per, extra) = (count / n, count % n);
        for (i, member) in (0u32..).zip(subscribed) {
            let start = per * i + i.min(extra);
            let len = per + u32::from(i < extra);
            out.entry(member.clone())
                .or_default()
                .extend((start..start + len).map(|p| TopicPartition::new(topic.clone(), p)));
        }
    }
}

/// `RoundRobinAssignor`: all partitions sorted by topic and partition, dealt in turn to the
/// members, skipping a member not subscribed to the partition's topic.
fn round_robin(
    partitions: &BTreeMap<Arc<str>, u32>,
    members: &[&(MemberId, Subscription)],
    out: &mut Assignment,
) {
    if members.is_empty() {
        return;
    }
    let mut next = 0usize;
    for (topic, &count) in partitions {
        if !members.iter().any(|(_, s)| subscribes(s, topic)) {
            continue;
        }
        for tp in topic_partitions(topic, count) {
            while !subscribes(&members[next % members.len()].1, topic) {
                next += 1;
            }
            out.entry(members[next % members.len()].0.clone()).or_default().push(tp);
            next += 1;
        }
    }
}

/// Owned partitions each member may keep: still subscribed and existing, and for a partition
/// two members claim, only the claim from the higher generation (`AbstractStickyAssignor
/// .allSubscriptionsEqual` drops claims from older generations).
fn valid_owned(
    partitions: &BTreeMap<Arc<str>, u32>,
    members: &[&(MemberId, Subscription)],
) -> BTreeMap<MemberId, Vec<TopicPartition>> {
    let mut claim: BTreeMap<&TopicPartition, (i32, &MemberId)> = BTreeMap::new();
    for (m, s) in members {
        for tp in &s.owned {
            let exists =
                partitions.get(&tp.topic).is_some_and(|&n| tp.partition < n) && subscribes(s, &tp.topic);
            if exists && claim.get(tp).is_none_or(|(g, _)| s.generation > *g) {
                claim.insert(tp, (s.generation, m));
            }
        }
    }
    let mut owned: BTreeMap<MemberId, Vec<TopicPartition>> =
        members.iter().map(|(m, _)| (m.clone(), vec![])).collect();
    for (m, s) in members {
        let keep = s.owned.iter().filter(|tp| claim.get(tp).is_some_and(|(_, owner)| *owner == m));
        owned.entry(m.clone()).or_default().extend(keep.cloned());
    }
    owned
}

/// `CooperativeStickyAssignor` (KIP-429, KIP-341's sticky goals): balanced, keeping as many
/// owned partitions as balance allows; then a partition that moves from one member to another
/// is withheld from its new owner this round (`CooperativeStickyAssignor.adjustAssignment`):
/// the old owner revokes it and rejoins, and the next rebalance hands it over.
///
/// When every member subscribes to the same topics this is Kafka's constrained algorithm
/// (`ConstrainedAssignmentBuilder`): quotas `floor(P/M)` and `ceil(P/M)`, members keep owned
/// partitions up to their quota, the rest go round-robin to members below the minimum, then
/// one each to members at the minimum while `P % M` slots remain. With differing subscriptions
/// isrlab keeps valid owned partitions and gives each other partition to the least-loaded
/// subscribed member (Kafka's `GeneralAssignmentBuilder` also moves partitions afterwards to
/// balance further; that is not modelled).
fn cooperative_sticky(
    partitions: &BTreeMap<Arc<str>, u32>,
    members: &[&(MemberId, Subscription)],
    out: &mut Assignment,
) {
    let owned = valid_owned(partitions, members);
    let all_equal = members.windows(2).all(|w| w[0].1.topics == w[1].1.topics);
    let fresh = if all_equal {
        constrained(partitions, members, &owned)
    } else {
        general(partitions, members, &owned)
    };
    let previous_owner: BTreeMap<&TopicPartition, &MemberId> =
        members.iter().flat_map(|(m, s)| s.owned.iter().map(move |tp| (tp, m))).collect();
    for (member, tps) in fresh {
        let kept = tps.into_iter().filter(|tp| previous_owner.get(tp).is_none_or(|o| **o == member));
        out.entry(member.clone()).or_default().extend(kept);
    }
    for tps in out.values_mut() {
        tps.sort();
    }
}

fn subscribed_partitions(
    partitions: &BTreeMap<Arc<str>, u32>,
    members: &[&(MemberId, Subscription)],
) -> Vec<TopicPartition> {
    let topics: BTreeSet<&Arc<str>> = members.iter().flat_map(|(_, s)| s.topics.iter()).collect();
    topics
        .into_iter()
        .filter_map(|t| partitions.get(t).map(|&n| (t, n)))
        .flat_map(|(t, n)| topic_partitions(t, n))
        .collect()
}

fn constrained(
    partitions: &BTreeMap<Arc<str>, u32>,
    members: &[&(MemberId, Subscription)],
    owned: &BTreeMap<MemberId, Vec<TopicPartition>>,
) -> Assignment {
    let all = subscribed_partitions(partitions, members);
    let n = members.len().max(1);
    let (min_quota, max_quota) = (all.len() / n, all.len().div_ceil(n));
    let mut over_min_slots = all.len() % n;
    let mut out: Assignment = BTreeMap::new();
    for (m, _) in members {
        let mine = &owned[m];
        let keep = if mine.len() <= min_quota {
            mine.len()
        } else if max_quota > min_quota && over_min_slots > 0 {
            over_min_slots -= 1;
            max_quota
        } else {
            min_quota
        };
        out.insert(m.clone(), mine[..keep.min(mine.len())].to_vec());
    }
    let taken: BTreeSet<&TopicPartition> = out.values().flatten().collect();
    let mut free: Vec<TopicPartition> = all.iter().filter(|tp| !taken.contains(tp)).cloned().collect();
    free.reverse();
    // Round-robin over members below the minimum quota.
    loop {
        let under: Vec<MemberId> =
            out.iter().filter(|(_, v)| v.len() < min_quota).map(|(m, _)| m.clone()).collect();
        if under.is_empty() || free.is_empty() {
            break;
        }
        for m in under {
            if let Some(tp) = free.pop() {
                out.get_mut(&m).expect("member").push(tp);
            }
        }
    }
    // Then one more each for members at the minimum, while slots over the minimum remain.
    for tps in out.values_mut() {
        if over_min_slots == 0 || free.is_empty() {
            break;
        }
        if tps.len() == min_quota {
            tps.push(free.pop().expect("non-empty"));
            over_min_slots -= 1;
        }
    }
    out
}

fn general(
    partitions: &BTreeMap<Arc<str>, u32>,
    members: &[&(MemberId, Subscription)],
    owned: &BTreeMap<MemberId, Vec<TopicPartition>>,
) -> Assignment {
    let mut out: Assignment = owned.clone();
    let taken: BTreeSet<TopicPartition> = out.values().flatten().cloned().collect();
    for tp in subscribed_partitions(partitions, members).into_iter().filter(|tp| !taken.contains(tp)) {
        let least = members
            .iter()
            .filter(|(_, s)| subscribes(s, &tp.topic))
            .min_by_key(|(m, _)| (out.get(m).map_or(0, Vec::len), m.clone()));
        if let Some((m, _)) = least {
            out.entry(m.clone()).or_default().push(tp);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tp(t: &str, p: u32) -> TopicPartition {
        TopicPartition::new(t, p)
    }

    fn sub(topics: &[&str]) -> Subscription {
        Subscription { topics: topics.iter().map(|t| Arc::from(*t)).collect(), owned: vec![], generation: -1 }
    }

    fn owning(topics: &[&str], owned: Vec<TopicPartition>, generation: i32) -> Subscription {
        Subscription { owned, generation, ..sub(topics) }
    }

    fn counts(list: &[(&str, u32)]) -> BTreeMap<Arc<str>, u32> {
        list.iter().map(|(t, n)| (Arc::from(*t), *n)).collect()
    }

    fn members(list: Vec<(&str, Subscription)>) -> Vec<(MemberId, Subscription)> {
        list.into_iter().map(|(m, s)| (Arc::from(m), s)).collect()
    }

    fn of<'a>(a: &'a Assignment, m: &str) -> &'a [TopicPartition] {
        &a[&Arc::from(m)]
    }

    #[test]
    fn names_round_trip() {
        for a in Assignor::ALL {
            assert_eq!(Assignor::from_name(a.name()), Some(a));
        }
        assert_eq!(Assignor::from_name("sticky"), None);
    }

    // RangeAssignorTest situations.
    #[test]
    fn range_one_consumer_one_topic() {
        let a = Assignor::Range.assign(&counts(&[("t", 3)]), &members(vec![("c1", sub(&["t"]))]));
        assert_eq!(of(&a, "c1"), [tp("t", 0), tp("t", 1), tp("t", 2)]);
    }

    #[test]
    fn range_two_consumers_one_partition() {
        let a = Assignor::Range
            .assign(&counts(&[("t", 1)]), &members(vec![("c1", sub(&["t"])), ("c2", sub(&["t"]))]));
        assert_eq!(of(&a, "c1"), [tp("t", 0)]);
        assert!(of(&a, "c2").is_empty());
    }

    #[test]
    fn range_multiple_consumers_mixed_topics() {
        let ms = members(vec![("c1", sub(&["t1"])), ("c2", sub(&["t1", "t2"])), ("c3", sub(&["t1"]))]);
        let a = Assignor::Range.assign(&counts(&[("t1", 3), ("t2", 2)]), &ms);
        assert_eq!(of(&a, "c1"), [tp("t1", 0)]);
        assert_eq!(of(&a, "c2"), [tp("t1", 1), tp("t2", 0), tp("t2", 1)]);
        assert_eq!(of(&a, "c3"), [tp("t1", 2)]);
    }

    #[test]
    fn range_two_consumers_two_topics_six_partitions() {
        let ms = members(vec![("c2", sub(&["t1", "t2"])), ("c1", sub(&["t1", "t2"]))]);
        let a = Assignor::Range.assign(&counts(&[("t1", 3), ("t2", 3)]), &ms);
        assert_eq!(of(&a, "c1"), [tp("t1", 0), tp("t1", 1), tp("t2", 0), tp("t2", 1)]);
        assert_eq!(of(&a, "c2"), [tp("t1", 2), tp("t2", 2)]);
    }

    #[test]
    fn range_topic_without_metadata_assigns_nothing() {
        let a = Assignor::Range.assign(&counts(&[]), &members(vec![("c1", sub(&["t"]))]));
        assert!(of(&a, "c1").is_empty());
    }

    // RoundRobinAssignorTest situations.
    #[test]
    fn round_robin_multiple_consumers_mixed_topics() {
        let ms = members(vec![("c1", sub(&["t1"])), ("c2", sub(&["t1", "t2"])), ("c3", sub(&["t1"]))]);
        let a = Assignor::RoundRobin.assign(&counts(&[("t1", 3), ("t2", 2)]), &ms);
        assert_eq!(of(&a, "c1"), [tp("t1", 0)]);
        assert_eq!(of(&a, "c2"), [tp("t1", 1), tp("t2", 0), tp("t2", 1)]);
        assert_eq!(of(&a, "c3"), [tp("t1", 2)]);
    }

    #[test]
    fn round_robin_two_consumers_two_topics_six_partitions() {
        let ms = members(vec![("c1", sub(&["t1", "t2"])), ("c2", sub(&["t1", "t2"]))]);
        let a = Assignor::RoundRobin.assign(&counts(&[("t1", 3), ("t2", 3)]), &ms);
        assert_eq!(of(&a, "c1"), [tp("t1", 0), tp("t1", 2), tp("t2", 1)]);
        assert_eq!(of(&a, "c2"), [tp("t1", 1), tp("t2", 0), tp("t2", 2)]);
    }

    #[test]
    fn round_robin_no_members() {
        assert!(Assignor::RoundRobin.assign(&counts(&[("t", 3)]), &[]).is_empty());
    }

    // CooperativeStickyAssignorTest / AbstractStickyAssignorTest situations.
    #[test]
    fn sticky_one_consumer_one_topic() {
        let a = Assignor::CooperativeSticky.assign(&counts(&[("t", 3)]), &members(vec![("c1", sub(&["t"]))]));
        assert_eq!(of(&a, "c1"), [tp("t", 0), tp("t", 1), tp("t", 2)]);
    }

    #[test]
    fn sticky_add_consumer_withholds_the_moving_partition_for_one_round() {
        let all = vec![tp("t", 0), tp("t", 1), tp("t", 2)];
        let ms = members(vec![("c1", owning(&["t"], all, 1)), ("c2", sub(&["t"]))]);
        let a = Assignor::CooperativeSticky.assign(&counts(&[("t", 3)]), &ms);
        assert_eq!(of(&a, "c1"), [tp("t", 0), tp("t", 1)]);
        assert!(of(&a, "c2").is_empty(), "t-2 is revoked by c1 first");
        // The follow-up rebalance after c1 revoked t-2.
        let ms = members(vec![
            ("c1", owning(&["t"], vec![tp("t", 0), tp("t", 1)], 2)),
            ("c2", owning(&["t"], vec![], 2)),
        ]);
        let a = Assignor::CooperativeSticky.assign(&counts(&[("t", 3)]), &ms);
        assert_eq!(of(&a, "c1"), [tp("t", 0), tp("t", 1)]);
        assert_eq!(of(&a, "c2"), [tp("t", 2)]);
    }

    #[test]
    fn sticky_remove_consumer_hands_its_partitions_over_at_once() {
        let ms = members(vec![("c2", owning(&["t"], vec![tp("t", 2)], 2))]);
        let a = Assignor::CooperativeSticky.assign(&counts(&[("t", 3)]), &ms);
        assert_eq!(of(&a, "c2"), [tp("t", 0), tp("t", 1), tp("t", 2)]);
    }

    #[test]
    fn sticky_keeps_a_balanced_assignment() {
        let ms = members(vec![
            ("c1", owning(&["t"], vec![tp("t", 1), tp("t", 3)], 4)),
            ("c2", owning(&["t"], vec![tp("t", 0), tp("t", 2)], 4)),
        ]);
        let a = Assignor::CooperativeSticky.assign(&counts(&[("t", 4)]), &ms);
        assert_eq!(of(&a, "c1"), [tp("t", 1), tp("t", 3)]);
        assert_eq!(of(&a, "c2"), [tp("t", 0), tp("t", 2)]);
    }

    #[test]
    fn sticky_claim_from_older_generation_loses() {
        let ms = members(vec![
            ("c1", owning(&["t"], vec![tp("t", 0)], 1)),
            ("c2", owning(&["t"], vec![tp("t", 0)], 2)),
        ]);
        let a = Assignor::CooperativeSticky.assign(&counts(&[("t", 2)]), &ms);
        assert_eq!(of(&a, "c2"), [tp("t", 0)]);
        assert_eq!(of(&a, "c1"), [tp("t", 1)]);
    }

    #[test]
    fn sticky_mixed_subscriptions_cover_every_partition_once() {
        let ms = members(vec![("c1", sub(&["t1"])), ("c2", sub(&["t1", "t2"]))]);
        let a = Assignor::CooperativeSticky.assign(&counts(&[("t1", 2), ("t2", 2)]), &ms);
        let mut all: Vec<_> = a.values().flatten().cloned().collect();
        all.sort();
        assert_eq!(all, [tp("t1", 0), tp("t1", 1), tp("t2", 0), tp("t2", 1)]);
        assert!(of(&a, "c1").iter().all(|tp| &*tp.topic == "t1"));
    }
}
