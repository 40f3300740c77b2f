//! The semantics profile: one value that holds every rule of Kafka's replication that depends on
//! the Kafka version (rule book §0.2, "Simulator toggles"). The sim core reads each such rule
//! from here, never from a hard-coded version check, and the dashboard's header renders it.
//!
//! The newest release isrlab models is [`Semantics::KAFKA_4_3`], a cluster formatted by Kafka 4.3
//! with its default features (ELR on); older behaviours (HW truncation before 0.11,
//! `NOT_ENOUGH_REPLICAS_AFTER_APPEND` as the usual outcome before 3.7, the ZooKeeper controller,
//! ELR off) become other values of this type.

use crate::kafka::{Acks, Ms};
use std::fmt;

/// Which controller keeps the cluster metadata.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MetadataMode {
    /// The KRaft quorum controller (KIP-500, KIP-631); the only mode since Kafka 4.0.
    KRaft,
}

/// How the leader judges that a follower fell out of sync (rule book R4.1, R4.4).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum IsrLag {
    /// Time only (KIP-16, KAFKA-1546, Kafka 0.9.0): out of sync when not caught up to the
    /// leader's LEO for `replica.lag.time.max.ms` (`Partition.getOutOfSyncReplicas`).
    Time,
    /// Kafka 0.8 (`Partition.getOutOfSyncReplicas` at 0.8.2): out of sync when *stuck* (no
    /// fetch for `replica.lag.time.max.ms`) or *slow* (more than `replica.lag.max.messages`
    /// behind the leader's LEO), so one burst larger than that count threw healthy followers
    /// out.
    TimeAndMessages,
}

/// How a follower finds where its log stops agreeing with the leader's (rule book R7.1–R7.6).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Truncation {
    /// Kafka 2.8+ (KAFKA-10554): the follower fetches from its LEO with `lastFetchedEpoch`
    /// and the leader answers a `divergingEpoch` (`AbstractFetcherThread.truncateOnFetchResponse`).
    EpochOnFetch,
    /// Kafka 2.0–2.7: an `OffsetsForLeaderEpoch` request before fetching, asked again with a
    /// smaller epoch while the answer's epoch is not the follower's own (KIP-279).
    OffsetsForLeaderEpoch,
    /// Kafka 0.11–1.1: `OffsetsForLeaderEpoch` once, for the follower's latest epoch only
    /// (KIP-101), which KIP-279 found could still leave logs diverged after fast leader changes.
    Kip101,
    /// Kafka ≤ 0.10.2: truncate to the local high watermark on becoming a follower, then
    /// resolve `OFFSET_OUT_OF_RANGE` by the leader's LEO (`ReplicaFetcherThread.handleOffsetOutOfRange`);
    /// the rule behind both KIP-101 traces.
    HighWatermark,
}

/// Every version-dependent replication rule isrlab models, with the Kafka release it comes from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Semantics {
    /// The Kafka release whose behaviour this is, e.g. `4.1`.
    pub kafka_version: &'static str,
    /// Who keeps the metadata.
    pub metadata_mode: MetadataMode,
    /// Strict min ISR (KAFKA-15583, Kafka 3.7.0, rule book R3.3, R5.6, R8.1): the leader's HW
    /// does not advance while the committed ISR is smaller than the effective min ISR, and
    /// `min.insync.replicas` is capped at the replica count. Before 3.7 the HW kept moving and
    /// a parked acks=all produce usually ended in `NOT_ENOUGH_REPLICAS_AFTER_APPEND`; from 3.7
    /// it usually times out instead (R5.5). The AFTER_APPEND answer itself stays in every
    /// version (`Partition.checkEnoughReplicasReachOffset`).
    pub strict_min_isr: bool,
    /// The KRaft controller applies `unclean.leader.election.enable` by itself (KAFKA-12670,
    /// Kafka 3.9.0, R6.5): a periodic check every `unclean.leader.election.interval.ms` and at
    /// unfencing. KRaft 3.0–3.8 elected an unclean leader only through the admin
    /// `ElectLeaders` API.
    pub kraft_unclean_election: bool,
    /// The controller bumps the leader epoch whenever an ISR loses a member, not only when the
    /// leader changes (KAFKA-15021: metadata versions before 3.6-IV0,
    /// `MetadataVersion.isLeaderEpochBumpRequiredOnIsrShrink`, R4.10). Since 3.6 a
    /// leader-initiated or controller-driven shrink bumps only the partition epoch.
    pub leader_epoch_bump_on_isr_shrink: bool,
    /// KIP-966 Eligible Leader Replicas (R8): the feature `eligible.leader.replicas.version`
    /// at level 1. Off by default in Kafka 4.0, on by default for clusters formatted by 4.1 or
    /// later (`EligibleLeaderReplicasVersion.ELRV_1`, bootstrap metadata version 4.1-IV0); a
    /// cluster upgraded from 4.0 keeps level 0 until `kafka-features.sh upgrade`. With it the
    /// controller keeps ELR and LastKnownELR per partition and an ISR may become empty
    /// (`PartitionChangeBuilder`, R8.3, R8.4); without it an ISR keeps its last member (R4.8).
    /// The property `eligible.leader.replicas.version` (0 or 1) sets it.
    pub eligible_leader_replicas: bool,
    /// A broker that completed a controlled shutdown may register again while its old session
    /// is still valid (KAFKA-19047, apache/kafka PR #19296, merged after 4.0.0, so in 4.1.0);
    /// others are refused with `DuplicateBrokerRegistrationException` until the session expires
    /// (`ClusterControlManager.registerBroker`).
    pub reregister_after_controlled_shutdown: bool,
    /// The producer's `enable.idempotence` default (KIP-679: `true` since Kafka 3.0, together
    /// with `acks=all`).
    pub idempotence_by_default: bool,
    /// The producer's `linger.ms` default in ms (KIP-1030: 5 since Kafka 4.0, 0 before).
    pub default_linger_ms: Ms,
    /// The Kafka version ran a ZooKeeper controller (before 2.8 always, by default until 3.x,
    /// removed in 4.0). isrlab has no ZooKeeper mode yet: its KRaft controller stands in, and
    /// the header says so.
    pub zookeeper_era: bool,
    /// How ISR lag is judged (KIP-16, Kafka 0.9.0, R4.4).
    pub isr_lag: IsrLag,
    /// How a follower finds its truncation point (KIP-101 0.11.0, KIP-279 2.0.0, KAFKA-10554
    /// 2.8.0, R7).
    pub truncation: Truncation,
    /// The producer's `acks` default (KIP-679: `all` since Kafka 3.0, `1` before).
    pub default_acks: Acks,
    /// The producer's `retries` default (KIP-91: `Integer.MAX_VALUE` since Kafka 2.1, 0 before).
    pub default_retries: u32,
    /// The `unclean.leader.election.enable` default (KIP-106: `false` since Kafka 0.11.0,
    /// `true` before).
    pub default_unclean_leader_election: bool,
    /// The `replica.lag.time.max.ms` default in ms (KIP-537: 30000 since Kafka 2.5, 10000 before).
    pub default_replica_lag_time_max_ms: Ms,
}

impl Semantics {
    /// Kafka 4.3 in KRaft mode as `kafka-storage.sh format` leaves a new cluster: ELR on
    /// (`eligible.leader.replicas.version=1`, KIP-966 part 1; part 2, unclean recovery, is not
    /// in any release), strict min ISR, the KRaft controller's own unclean elections, fast
    /// re-registration after a controlled shutdown (KAFKA-19047, 4.1), the last known leader
    /// elected only when it is unfenced (KAFKA-19522, 4.1), the idempotent producer with
    /// `linger.ms=5` by default. The replication rules did not change between 4.1 and 4.3; the
    /// version names the newest release isrlab was checked against.
    pub const KAFKA_4_3: Semantics = Semantics {
        kafka_version: "4.3",
        metadata_mode: MetadataMode::KRaft,
        strict_min_isr: true,
        kraft_unclean_election: true,
        leader_epoch_bump_on_isr_shrink: false,
        eligible_leader_replicas: true,
        reregister_after_controlled_shutdown: true,
        idempotence_by_default: true,
        default_linger_ms: 5,
        zookeeper_era: false,
        isr_lag: IsrLag::Time,
        truncation: Truncation::EpochOnFetch,
        default_acks: Acks::All,
        default_retries: i32::MAX as u32,
        default_unclean_leader_election: false,
        default_replica_lag_time_max_ms: 30_000,
    };

    /// The behaviour isrlab simulates unless told otherwise.
    pub const CURRENT: Semantics = Semantics::KAFKA_4_3;
}

impl Default for Semantics {
    fn default() -> Self {
        Semantics::CURRENT
    }
}

/// The profile in words, as the dashboard's header shows it: `KRaft · Kafka 4.3 · ELR on`.
impl fmt::Display for Semantics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mode = match self.metadata_mode {
            MetadataMode::KRaft if self.zookeeper_era => "ZooKeeper era on KRaft",
            MetadataMode::KRaft => "KRaft",
        };
        let elr = if self.eligible_leader_replicas { "on" } else { "off" };
        write!(f, "{mode} · Kafka {} · ELR {elr}", self.kafka_version)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_current_profile_is_kafka_4_3_with_elr_on_and_says_so() {
        let s = Semantics::default();
        assert_eq!(s, Semantics::KAFKA_4_3);
        assert_eq!(s.to_string(), "KRaft · Kafka 4.3 · ELR on");
        assert!(s.strict_min_isr && s.kraft_unclean_election && s.eligible_leader_replicas);
        let off = Semantics { eligible_leader_replicas: false, ..s };
        assert_eq!(off.to_string(), "KRaft · Kafka 4.3 · ELR off");
    }
}
