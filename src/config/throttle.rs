//! The value of the topic properties `leader.replication.throttled.replicas` and
//! `follower.replication.throttled.replicas` (KIP-73 replication quotas): which replicas of a
//! topic a broker's replication throttle applies to.

use crate::kafka::BrokerId;
use std::fmt;

/// A topic's list of throttled replicas: `*` (every replica of the topic), or
/// `partition:brokerId` pairs. Kafka's `ThrottledReplicaListValidator` accepts exactly these
/// two forms, and each broker keeps the partitions paired with its own id
/// (`TopicConfigHandler.parseThrottledPartitions`, `ReplicationQuotaManager.markThrottled`).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ThrottledReplicas {
    /// `*`: every replica of the topic, on every broker (`ReplicationQuotaManager.ALL_REPLICAS`).
    All,
    /// `partition:brokerId` pairs, in the order given (empty = none).
    Listed(Vec<(u32, BrokerId)>),
}

impl ThrottledReplicas {
    /// Parses `*`, a comma-separated list of `partition:brokerId` pairs, or an empty value
    /// (also written `""`, as the command line cannot pass an empty word). Spaces around
    /// entries are ignored, as Kafka's list parser trims them.
    ///
    /// Errors: anything else, with Kafka's wording in `Err` (the expected form).
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if text == "*" {
            return Ok(ThrottledReplicas::All);
        }
        if text.is_empty() || text == "\"\"" {
            return Ok(ThrottledReplicas::Listed(Vec::new()));
        }
        text.split(',')
            .map(|entry| {
                let (p, b) = entry.trim().split_once(':').ok_or(())?;
                let digits = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
                if !digits(p) || !digits(b) {
                    return Err(());
                }
                Ok((p.parse().map_err(|_| ())?, b.parse().map_err(|_| ())?))
            })
            .collect::<Result<Vec<_>, ()>>()
            .map(ThrottledReplicas::Listed)
            .map_err(|()| {
                "the literal '*' or a list of replicas in the format [partitionId]:[brokerId],[partitionId]:[brokerId],... (Kafka's ThrottledReplicaListValidator)".to_string()
            })
    }

    /// Whether the list names no replica (Kafka's default, the empty list).
    pub fn is_empty(&self) -> bool {
        matches!(self, ThrottledReplicas::Listed(pairs) if pairs.is_empty())
    }

    /// Whether broker `broker`'s replica of partition `partition` is throttled: `*`, or the
    /// pair `partition:broker` is listed (`ReplicationQuotaManager.isThrottled` on that
    /// broker).
    pub fn covers(&self, partition: u32, broker: BrokerId) -> bool {
        match self {
            ThrottledReplicas::All => true,
            ThrottledReplicas::Listed(pairs) => pairs.contains(&(partition, broker)),
        }
    }
}

/// `list` with partition `partition`'s pairs replaced by `partition:b` for each of `brokers`
/// (a reassignment's throttle, as `ReassignPartitionsCommand.calculateLeaderThrottles` /
/// `calculateFollowerThrottles` write them for the partitions it moves); `*` stays `*`.
/// Returns `None` for an empty list (Kafka's default).
pub fn with_partition(
    list: Option<&ThrottledReplicas>,
    partition: u32,
    brokers: &[BrokerId],
) -> Option<ThrottledReplicas> {
    let mut pairs = match list {
        Some(ThrottledReplicas::All) => return Some(ThrottledReplicas::All),
        Some(ThrottledReplicas::Listed(pairs)) => pairs.clone(),
        None => Vec::new(),
    };
    pairs.retain(|&(p, _)| p != partition);
    pairs.extend(brokers.iter().map(|&b| (partition, b)));
    pairs.sort_unstable();
    (!pairs.is_empty()).then_some(ThrottledReplicas::Listed(pairs))
}

impl fmt::Display for ThrottledReplicas {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ThrottledReplicas::All => f.write_str("*"),
            ThrottledReplicas::Listed(pairs) => {
                let text: Vec<String> = pairs.iter().map(|(p, b)| format!("{p}:{b}")).collect();
                f.write_str(&text.join(","))
            }
        }
    }
}

/// One broker's own replication throttle rates (`kafka-configs.sh --entity-type brokers
/// --entity-name B`), which win over the cluster-wide defaults (`--entity-default`), as in
/// Kafka's `BrokerConfigHandler.processConfigChanges` (broker value, else default value, else
/// `Long.MAX_VALUE`). `None` = not set for this broker.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct BrokerThrottleRates {
    /// `leader.replication.throttled.rate` for this broker (bytes/s).
    pub leader: Option<u64>,
    /// `follower.replication.throttled.rate` for this broker (bytes/s).
    pub follower: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kafka's `ConfigHandlerTest.shouldParseReplicationQuotaProperties` and
    /// `shouldParseWildcardReplicationQuotaProperties`, in our words: each broker is throttled
    /// only for the partitions paired with its id; `*` throttles every replica.
    #[test]
    fn each_broker_takes_the_partitions_paired_with_its_id() {
        let list = ThrottledReplicas::parse("0:101,0:102, 1:101,1:102").unwrap();
        assert!(list.covers(0, 102) && list.covers(1, 102) && list.covers(1, 101));
        assert!(!list.covers(0, 103) && !list.covers(2, 101));
        assert_eq!(list.to_string(), "0:101,0:102,1:101,1:102");
        let all = ThrottledReplicas::parse("*").unwrap();
        assert!(all.covers(7, 3));
        assert_eq!(all.to_string(), "*");
        assert!(ThrottledReplicas::parse("").unwrap().is_empty());
        assert!(ThrottledReplicas::parse("\"\"").unwrap().is_empty());
    }

    #[test]
    fn malformed_lists_are_refused() {
        for bad in ["0-1", "0:1,", "a:1", "0:", ":1", "*,0:1", "0:1:2", "-1:0"] {
            assert!(ThrottledReplicas::parse(bad).is_err(), "{bad}");
        }
    }
}
