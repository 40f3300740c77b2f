//! Replica placement when a topic is created (rule book §1).
//!
//! Three placers live here:
//! - [`seed_rule`]: the seed documents' teaching rule, partition `i` replica `j` on broker
//!   `b[(i + j) mod n]` (R1.1);
//! - [`admin_rack_unaware`]: the ZooKeeper-era / admin-tool algorithm with its start index and
//!   follower shift (R1.2, worked examples R1.3; Kafka's `AdminUtils`);
//! - [`striped`]: the KRaft default, `StripedReplicaPlacer`, for a single rack (R1.6).
//!
//! [`assign`] is the one entry point the controller calls. It validates the request with the
//! KRaft controller's exact messages (R1.7) and then runs the chosen placer. All randomness
//! comes from the caller's seeded [`ChaCha8Rng`], so equal seeds give equal placements.

use super::BrokerId;
use super::controller::BrokerInfo;
use crate::sim::error::SimError;
use crate::sim::spec::Placement;
use rand::RngExt;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

/// Kafka's topic name rules (`org.apache.kafka.common.internals.Topic.validate`), with its
/// messages. Errors: [`SimError::InvalidTopic`].
pub fn validate_topic_name(name: &str) -> Result<(), SimError> {
    let bad = |m: String| Err(SimError::InvalidTopic(m));
    if name.is_empty() {
        return bad("Topic name is illegal, it can't be empty".into());
    }
    if name == "." || name == ".." {
        return bad("Topic name cannot be \".\" or \"..\"".into());
    }
    if name.len() > 249 {
        return bad(format!(
            "Topic name is illegal, it can't be longer than 249 characters, topic name: {name}"
        ));
    }
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')) {
        return bad(format!(
            "Topic name \"{name}\" is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'"
        ));
    }
    Ok(())
}

/// A partition count from 1 to [`MAX_PARTITIONS`]. Errors: [`SimError::InvalidPartitions`]
/// with Kafka's message for 0.
pub fn validate_partition_count(partitions: u32) -> Result<(), SimError> {
    if partitions == 0 {
        return Err(SimError::InvalidPartitions(
            "Number of partitions was set to an invalid non-positive value.".into(),
        ));
    }
    if partitions > MAX_PARTITIONS {
        return Err(SimError::InvalidPartitions(format!(
            "isrlab simulates at most {MAX_PARTITIONS} partitions per topic, not {partitions}."
        )));
    }
    Ok(())
}

/// Most partitions one topic may have in isrlab (every partition costs sim time; Kafka itself
/// allows far more).
pub const MAX_PARTITIONS: u32 = 10_000;

/// Sorted, de-duplicated copy of a broker id list.
fn sorted_ids(brokers: &[BrokerId]) -> Vec<BrokerId> {
    let mut ids = brokers.to_vec();
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// The seed documents' rule (R1.1): with the brokers in ascending id order `b[0..n]`,
/// partition `i` gets replicas `b[(i + j) mod n]` for `j = 0..rf`; replica 0 is the preferred
/// leader.
///
/// `brokers` may be in any order (it is sorted first). No validation happens here: `rf` is
/// capped at the number of brokers, and no brokers give empty replica lists. Use [`assign`]
/// for Kafka's error messages.
pub fn seed_rule(brokers: &[BrokerId], partitions: u32, rf: u32) -> Vec<Vec<BrokerId>> {
    let ids = sorted_ids(brokers);
    let n = ids.len();
    let rf = (rf as usize).min(n);
    (0..partitions as usize).map(|i| (0..rf).map(|j| ids[(i + j) % n]).collect()).collect()
}

/// Kafka's rack-unaware admin placement (R1.2, `AdminUtils.assignReplicasToBrokersRackUnaware`)
/// with both random inputs fixed by the caller.
///
/// - `start_index`: position (in the ascending broker list) of partition 0's first replica;
///   Kafka draws it uniformly from `[0, n)` unless it is given.
/// - `replica_shift`: the initial follower shift; Kafka draws it uniformly from `[0, n)` unless
///   it is given. It grows by one every `n` partitions.
///
/// The `k`-th follower of a partition whose first replica sits at index `f` is at index
/// `(f + 1 + (shift + k) mod (n − 1)) mod n`, so a follower never lands on the first replica.
/// `brokers` may be in any order (it is sorted first). `rf` is capped at the number of brokers;
/// no brokers give empty replica lists. With both values 0 the result reproduces the worked
/// examples of R1.3.
pub fn admin_rack_unaware(
    brokers: &[BrokerId],
    partitions: u32,
    rf: u32,
    start_index: usize,
    replica_shift: usize,
) -> Vec<Vec<BrokerId>> {
    let ids = sorted_ids(brokers);
    let n = ids.len();
    let rf = (rf as usize).min(n);
    let mut shift = replica_shift;
    let mut out = Vec::with_capacity(partitions as usize);
    for p in 0..partitions as usize {
        if n == 0 {
            out.push(Vec::new());
            continue;
        }
        if p > 0 && p.is_multiple_of(n) {
            shift += 1;
        }
        let first = (p + start_index) % n;
        let mut replicas = Vec::with_capacity(rf);
        replicas.push(ids[first]);
        for k in 0..rf.saturating_sub(1) {
            // rf ≥ 2 here, so n ≥ 2 and n − 1 ≥ 1.
            let step = 1 + (shift + k) % (n - 1);
            replicas.push(ids[(first + step) % n]);
        }
        out.push(replicas);
    }
    out
}

/// One of the two broker lists of a rack in `StripedReplicaPlacer` (unfenced or fenced): a
/// sorted list read from a rotating start. Every new pass (one pass per partition) moves the
/// start one step further; within a pass each broker is handed out at most once.
struct Rotation {
    ids: Vec<BrokerId>,
    /// The pass the list was last read in.
    pass: u32,
    /// How many brokers were handed out in that pass.
    taken: usize,
    /// Where the pass starts in `ids`.
    start: usize,
}

impl Rotation {
    /// A sorted list with a random starting position.
    fn new(ids: Vec<BrokerId>, rng: &mut ChaCha8Rng) -> Self {
        let ids = sorted_ids(&ids);
        let start = if ids.is_empty() { 0 } else { rng.random_range(0..ids.len()) };
        Rotation { ids, pass: 0, taken: 0, start }
    }

    /// The next broker of pass `pass`, or `None` when this pass has used every broker.
    fn next(&mut self, pass: u32) -> Option<BrokerId> {
        let n = self.ids.len();
        if n == 0 {
            return None;
        }
        if self.pass != pass {
            self.pass = pass;
            self.taken = 0;
            self.start = (self.start + 1) % n;
        }
        if self.taken >= n {
            return None;
        }
        let id = self.ids[(self.start + self.taken) % n];
        self.taken += 1;
        Some(id)
    }

    /// Shuffles the order (the start position is kept).
    fn shuffle(&mut self, rng: &mut ChaCha8Rng) {
        self.ids.shuffle(rng);
    }
}

/// Prefix the KRaft controller puts before every placer error (R1.7, `ReplicationControlManager`).
fn unable(rf: u32, why: &str) -> SimError {
    SimError::InvalidReplicationFactor(format!("Unable to replicate the partition {rf} time(s): {why}"))
}

/// The placer's own checks, in `StripedReplicaPlacer`'s order (R1.7): replication factor
/// positive, at least one unfenced broker, replication factor ≤ usable brokers.
fn check_placer_inputs(rf: u32, unfenced: usize, total: usize) -> Result<(), SimError> {
    if rf == 0 {
        return Err(unable(
            rf,
            &format!("Invalid replication factor {rf}: the replication factor must be positive."),
        ));
    }
    if unfenced == 0 {
        return Err(unable(rf, "All brokers are currently fenced."));
    }
    if rf as usize > total {
        return Err(unable(
            rf,
            &format!(
                "The target replication factor of {rf} cannot be reached because only {total} broker(s) are registered."
            ),
        ));
    }
    Ok(())
}

/// Brokers a placer may use: registered and not in controlled shutdown (R1.6, Kafka's
/// `BrokerHeartbeatManager.usableBrokers`). Fenced brokers count.
fn usable(brokers: &[BrokerInfo]) -> impl Iterator<Item = &BrokerInfo> {
    brokers.iter().filter(|b| b.registered && !b.in_controlled_shutdown)
}

/// KRaft's `StripedReplicaPlacer` for a single rack (R1.6).
///
/// Only registered brokers that are not in controlled shutdown are used. Unfenced and fenced
/// brokers are kept in two sorted lists, each starting at a random position. Partition `k`
/// takes its first replica (the leader) from the unfenced list and fills the rest from the
/// unfenced list first, then from the fenced one; each list's start moves one step per
/// partition. After as many partitions as there are unfenced brokers (when there are at least
/// two) both lists are shuffled and the count starts again. With every broker unfenced, the
/// first `n` partitions are R1.1 with a random start.
///
/// Errors ([`SimError::InvalidReplicationFactor`], Kafka's KRaft text, R1.7): `rf` = 0, every
/// usable broker fenced, or `rf` larger than the number of usable brokers.
pub fn striped(
    brokers: &[BrokerInfo],
    partitions: u32,
    rf: u32,
    rng: &mut ChaCha8Rng,
) -> Result<Vec<Vec<BrokerId>>, SimError> {
    let (unfenced_ids, fenced_ids): (Vec<&BrokerInfo>, Vec<&BrokerInfo>) =
        usable(brokers).partition(|b| !b.fenced);
    let unfenced_ids: Vec<BrokerId> = unfenced_ids.into_iter().map(|b| b.id).collect();
    let fenced_ids: Vec<BrokerId> = fenced_ids.into_iter().map(|b| b.id).collect();
    let unfenced_count = unfenced_ids.len() as u32;
    check_placer_inputs(rf, unfenced_ids.len(), unfenced_ids.len() + fenced_ids.len())?;
    // Kafka sets up the fenced list before the unfenced one; keep that order of random draws.
    let mut fenced = Rotation::new(fenced_ids, rng);
    let mut unfenced = Rotation::new(unfenced_ids, rng);
    let mut pass: u32 = 0;
    let mut out = Vec::with_capacity(partitions as usize);
    for _ in 0..partitions {
        if pass == unfenced_count && unfenced_count > 1 {
            fenced.shuffle(rng);
            unfenced.shuffle(rng);
            pass = 0;
        }
        let mut replicas = Vec::with_capacity(rf as usize);
        // At least one unfenced broker exists, and a new pass always has one left.
        replicas.extend(unfenced.next(pass));
        while replicas.len() < rf as usize {
            match unfenced.next(pass).or_else(|| fenced.next(pass)) {
                Some(id) => replicas.push(id),
                None => break, // unreachable: rf ≤ usable brokers was checked
            }
        }
        out.push(replicas);
        pass += 1;
    }
    Ok(out)
}

/// Checks a user-given assignment (`Placement::Explicit`) the way the KRaft controller checks a
/// manual assignment (`ReplicationControlManager.validateManualPartitionAssignment`): one list
/// per partition, no empty list, only registered brokers, no broker twice in a list, and every
/// list as long as the first one.
///
/// Errors: [`SimError::InvalidPartitions`] when the number of lists is not `partitions` (or is
/// 0); [`SimError::InvalidReplicationFactor`] with Kafka's `INVALID_REPLICA_ASSIGNMENT` text for
/// the rest (the simulator has no separate variant for that code).
pub fn validate_explicit(
    lists: &[Vec<BrokerId>],
    brokers: &[BrokerInfo],
    partitions: u32,
) -> Result<(), SimError> {
    if partitions == 0 || lists.is_empty() {
        return Err(SimError::InvalidPartitions(
            "Number of partitions was set to an invalid non-positive value.".into(),
        ));
    }
    if lists.len() != partitions as usize {
        return Err(SimError::InvalidPartitions(format!(
            "The manual partition assignment has {} replica list(s), but the topic has {partitions} partition(s).",
            lists.len()
        )));
    }
    let bad =
        |msg: String| SimError::InvalidReplicationFactor(format!("The manual partition assignment {msg}"));
    let mut first_len: Option<usize> = None;
    for list in lists {
        if list.is_empty() {
            return Err(bad("includes an empty replica list.".into()));
        }
        let mut sorted = list.clone();
        sorted.sort_unstable();
        let mut prev: Option<BrokerId> = None;
        for &id in &sorted {
            if !brokers.iter().any(|b| b.id == id && b.registered) {
                return Err(bad(format!("includes broker {id}, but no such broker is registered.")));
            }
            if prev == Some(id) {
                return Err(bad(format!("includes the broker {id} more than once.")));
            }
            prev = Some(id);
        }
        match first_len {
            Some(len) if len != list.len() => {
                return Err(bad(format!(
                    "includes a partition with {} replica(s), but this is not consistent with previous partitions, which have {len} replica(s).",
                    list.len()
                )));
            }
            _ => first_len = Some(list.len()),
        }
    }
    Ok(())
}

/// Places the replicas of a new topic: the entry point the controller uses.
///
/// Checks first, in the KRaft controller's order (R1.7, `ReplicationControlManager.createTopic`):
/// - explicit lists: [`validate_explicit`];
/// - otherwise `rf` = 0 → [`SimError::InvalidReplicationFactor`] `Replication factor must be
///   larger than 0, or -1 to use the default value.`; `partitions` = 0 →
///   [`SimError::InvalidPartitions`] `Number of partitions was set to an invalid non-positive
///   value.`; then the placer's checks (all usable brokers fenced, `rf` > usable brokers) with
///   the `Unable to replicate the partition <rf> time(s): …` texts.
///
/// Then [`Placement::Kafka`] runs [`striped`]; [`Placement::Seed`] runs [`seed_rule`] over the
/// usable brokers (registered, not in controlled shutdown), fenced ones included; explicit
/// lists are returned as given. Whether each partition has an active replica to lead is the
/// controller's check (R1.8). `rng` is only drawn from by [`Placement::Kafka`].
pub fn assign(
    placement: &Placement,
    brokers: &[BrokerInfo],
    partitions: u32,
    rf: u32,
    rng: &mut ChaCha8Rng,
) -> Result<Vec<Vec<BrokerId>>, SimError> {
    if let Placement::Explicit(lists) = placement {
        validate_explicit(lists, brokers, partitions)?;
        return Ok(lists.clone());
    }
    if rf == 0 {
        return Err(SimError::InvalidReplicationFactor(
            "Replication factor must be larger than 0, or -1 to use the default value.".into(),
        ));
    }
    validate_partition_count(partitions)?;
    match placement {
        Placement::Kafka => striped(brokers, partitions, rf, rng),
        Placement::Seed => {
            let ids: Vec<BrokerId> = usable(brokers).map(|b| b.id).collect();
            let unfenced = usable(brokers).filter(|b| !b.fenced).count();
            check_placer_inputs(rf, unfenced, ids.len())?;
            Ok(seed_rule(&ids, partitions, rf))
        }
        Placement::Explicit(_) => unreachable!("handled above"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn broker(id: BrokerId, fenced: bool) -> BrokerInfo {
        BrokerInfo {
            id,
            registered: true,
            broker_epoch: 1,
            fenced,
            in_controlled_shutdown: false,
            last_heartbeat: 0,
        }
    }

    fn live(ids: &[BrokerId]) -> Vec<BrokerInfo> {
        ids.iter().map(|&id| broker(id, false)).collect()
    }

    fn rng(seed: u64) -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(seed)
    }

    fn message(e: SimError) -> String {
        match e {
            SimError::InvalidReplicationFactor(m) | SimError::InvalidPartitions(m) => m,
            other => panic!("unexpected error {other:?}"),
        }
    }

    #[test]
    fn seed_rule_is_the_seed_documents_table() {
        assert_eq!(
            seed_rule(&[2, 0, 1], 6, 3),
            vec![vec![0, 1, 2], vec![1, 2, 0], vec![2, 0, 1], vec![0, 1, 2], vec![1, 2, 0], vec![2, 0, 1]]
        );
        assert_eq!(seed_rule(&[0, 1, 2], 2, 2), vec![vec![0, 1], vec![1, 2]]);
    }

    #[test]
    fn admin_placement_reproduces_r1_3_example_1() {
        assert_eq!(
            admin_rack_unaware(&[0, 1, 2], 6, 3, 0, 0),
            vec![vec![0, 1, 2], vec![1, 2, 0], vec![2, 0, 1], vec![0, 2, 1], vec![1, 0, 2], vec![2, 1, 0]]
        );
    }

    #[test]
    fn admin_placement_reproduces_r1_3_example_2() {
        assert_eq!(
            admin_rack_unaware(&[0, 1, 2, 3, 4], 10, 3, 0, 0),
            vec![
                vec![0, 1, 2],
                vec![1, 2, 3],
                vec![2, 3, 4],
                vec![3, 4, 0],
                vec![4, 0, 1],
                vec![0, 2, 3],
                vec![1, 3, 4],
                vec![2, 4, 0],
                vec![3, 0, 1],
                vec![4, 1, 2],
            ]
        );
    }

    #[test]
    fn admin_placement_reproduces_r1_3_example_3_and_s1_step_1() {
        assert_eq!(
            admin_rack_unaware(&[1, 2, 3], 4, 3, 0, 0),
            vec![vec![1, 2, 3], vec![2, 3, 1], vec![3, 1, 2], vec![1, 3, 2]]
        );
    }

    #[test]
    fn admin_placement_first_n_partitions_equal_seed_rule() {
        assert_eq!(admin_rack_unaware(&[0, 1, 2, 3], 4, 3, 0, 0), seed_rule(&[0, 1, 2, 3], 4, 3));
        // A start index rotates the leaders.
        assert_eq!(admin_rack_unaware(&[0, 1, 2], 1, 2, 2, 0), vec![vec![2, 0]]);
    }

    #[test]
    fn striped_all_unfenced_is_a_rotated_seed_rule_for_the_first_n_partitions() {
        for seed in 0..20 {
            let got = striped(&live(&[0, 1, 2, 3]), 4, 3, &mut rng(seed)).unwrap();
            let s = (0..4).find(|&s| got[0][0] == s).unwrap() as usize;
            for (k, replicas) in got.iter().enumerate() {
                let want: Vec<BrokerId> = (0..3).map(|j| ((s + k + j) % 4) as BrokerId).collect();
                assert_eq!(replicas, &want, "seed {seed}");
            }
        }
    }

    #[test]
    fn striped_is_deterministic_per_seed_and_spreads_leaders() {
        let a = striped(&live(&[0, 1, 2]), 12, 3, &mut rng(7)).unwrap();
        let b = striped(&live(&[0, 1, 2]), 12, 3, &mut rng(7)).unwrap();
        assert_eq!(a, b);
        for replicas in &a {
            let mut s = replicas.clone();
            s.sort_unstable();
            assert_eq!(s, vec![0, 1, 2]);
        }
        // Every block of n partitions has each broker leading once.
        for block in a.chunks(3) {
            let mut leaders: Vec<BrokerId> = block.iter().map(|r| r[0]).collect();
            leaders.sort_unstable();
            assert_eq!(leaders, vec![0, 1, 2]);
        }
    }

    #[test]
    fn striped_puts_fenced_brokers_last_and_never_leading() {
        let mut brokers = live(&[1, 2]);
        brokers.push(broker(3, true));
        for seed in 0..20 {
            let got = striped(&brokers, 6, 3, &mut rng(seed)).unwrap();
            for replicas in got {
                assert_eq!(replicas[2], 3, "seed {seed}: {replicas:?}");
                assert_ne!(replicas[0], 3);
            }
        }
        // RF ≤ unfenced brokers: fenced brokers are not used at all.
        let got = striped(&brokers, 6, 2, &mut rng(1)).unwrap();
        assert!(got.iter().all(|r| !r.contains(&3)));
    }

    #[test]
    fn striped_skips_brokers_in_controlled_shutdown_and_unregistered_ones() {
        let mut brokers = live(&[0, 1, 2]);
        brokers[1].in_controlled_shutdown = true;
        brokers.push(BrokerInfo { registered: false, ..broker(9, false) });
        let got = striped(&brokers, 4, 2, &mut rng(3)).unwrap();
        assert!(got.iter().all(|r| !r.contains(&1) && !r.contains(&9)));
        let err = striped(&brokers, 1, 3, &mut rng(3)).unwrap_err();
        assert_eq!(
            message(err),
            "Unable to replicate the partition 3 time(s): The target replication factor of 3 cannot be reached because only 2 broker(s) are registered."
        );
    }

    #[test]
    fn s1_rf_larger_than_registered_brokers() {
        let err = assign(&Placement::Kafka, &live(&[1, 2, 3]), 1, 4, &mut rng(0)).unwrap_err();
        assert_eq!(
            err,
            SimError::InvalidReplicationFactor(
                "Unable to replicate the partition 4 time(s): The target replication factor of 4 cannot be reached because only 3 broker(s) are registered.".into()
            )
        );
        assert!(err.to_string().starts_with("INVALID_REPLICATION_FACTOR: Unable to replicate"));
        // The seed rule validates the same way.
        let err = assign(&Placement::Seed, &live(&[1, 2, 3]), 1, 4, &mut rng(0)).unwrap_err();
        assert!(message(err).ends_with("only 3 broker(s) are registered."));
    }

    #[test]
    fn s1_step_3_fenced_broker_counts_as_registered() {
        let mut brokers = live(&[1, 2]);
        brokers.push(broker(3, true));
        let got = assign(&Placement::Kafka, &brokers, 4, 3, &mut rng(5)).unwrap();
        assert!(got.iter().all(|r| r.len() == 3 && r[2] == 3));
    }

    #[test]
    fn zero_rf_zero_partitions_and_all_fenced_messages() {
        let err = assign(&Placement::Kafka, &live(&[0, 1]), 3, 0, &mut rng(0)).unwrap_err();
        assert_eq!(
            err,
            SimError::InvalidReplicationFactor(
                "Replication factor must be larger than 0, or -1 to use the default value.".into()
            )
        );
        let err = assign(&Placement::Kafka, &live(&[0, 1]), 0, 1, &mut rng(0)).unwrap_err();
        assert_eq!(
            err,
            SimError::InvalidPartitions(
                "Number of partitions was set to an invalid non-positive value.".into()
            )
        );
        let fenced = vec![broker(0, true), broker(1, true)];
        let err = assign(&Placement::Kafka, &fenced, 1, 1, &mut rng(0)).unwrap_err();
        assert_eq!(
            message(err),
            "Unable to replicate the partition 1 time(s): All brokers are currently fenced."
        );
        // The placer's own RF check (reached only by direct calls).
        let err = striped(&live(&[0]), 1, 0, &mut rng(0)).unwrap_err();
        assert_eq!(
            message(err),
            "Unable to replicate the partition 0 time(s): Invalid replication factor 0: the replication factor must be positive."
        );
    }

    #[test]
    fn seed_placement_uses_usable_brokers_in_id_order() {
        let got = assign(&Placement::Seed, &live(&[2, 0, 1]), 6, 3, &mut rng(0)).unwrap();
        assert_eq!(got, seed_rule(&[0, 1, 2], 6, 3));
    }

    #[test]
    fn explicit_assignments_are_validated() {
        let brokers = live(&[0, 1, 2]);
        let ok = Placement::Explicit(vec![vec![0, 1], vec![2, 0]]);
        assert_eq!(assign(&ok, &brokers, 2, 2, &mut rng(0)).unwrap(), vec![vec![0, 1], vec![2, 0]]);
        let cases: Vec<(Vec<Vec<BrokerId>>, u32, &str)> = vec![
            (
                vec![vec![0, 1]],
                2,
                "The manual partition assignment has 1 replica list(s), but the topic has 2 partition(s).",
            ),
            (vec![vec![]], 1, "The manual partition assignment includes an empty replica list."),
            (
                vec![vec![0, 7]],
                1,
                "The manual partition assignment includes broker 7, but no such broker is registered.",
            ),
            (vec![vec![1, 0, 1]], 1, "The manual partition assignment includes the broker 1 more than once."),
            (
                vec![vec![0, 1], vec![2]],
                2,
                "The manual partition assignment includes a partition with 1 replica(s), but this is not consistent with previous partitions, which have 2 replica(s).",
            ),
        ];
        for (lists, partitions, want) in cases {
            let err = assign(&Placement::Explicit(lists.clone()), &brokers, partitions, 2, &mut rng(0))
                .unwrap_err();
            assert_eq!(message(err), want, "{lists:?}");
        }
    }
}
