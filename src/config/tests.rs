//! Tests of the registry and the typed configs.

use super::*;
use crate::kafka::Acks;

/// A valid value other than `p`'s default.
fn other_value(p: &Property) -> String {
    match p.kind {
        Kind::Bool => (p.default != "true").to_string(),
        Kind::Long { min, max } => {
            let d: i64 = p.default.parse().unwrap_or(min);
            if d < max { (d + 1).to_string() } else { min.to_string() }
        }
        Kind::Acks => if p.default == "1" { "0" } else { "1" }.to_string(),
        Kind::Rate | Kind::Decimal { .. } => "7".to_string(),
        Kind::ReplicaList => "*".to_string(),
        Kind::Choice(words) => words.iter().find(|w| **w != p.default).unwrap_or(&p.default).to_string(),
        Kind::Class(names) => names[0].to_string(),
    }
}

/// The meanings are user-facing: they speak of what the user sees, never of the rule
/// book's internal numbers (`R4.1`), which live in the comments beside each entry.
#[test]
fn no_meaning_cites_a_rule_book_number() {
    let rule = regex::Regex::new(r"\bR[0-9]+\.[0-9]").unwrap();
    for p in PROPERTIES {
        assert!(!rule.is_match(p.doc), "{}: {}", p.name, p.doc);
    }
}

#[test]
fn a_running_broker_takes_only_dynamic_properties() {
    let base = BrokerConfig::default();
    for p in PROPERTIES
        .iter()
        .filter(|p| !matches!(p.scope, Scope::Producer | Scope::Consumer | Scope::Topic | Scope::Lab))
    {
        let mut latest = BrokerConfig::default();
        latest.set(p.name, &other_value(p)).unwrap();
        let applied = base.with_dynamic_from(&latest);
        let dynamic = p.update_mode() == UpdateMode::Dynamic;
        assert_eq!(applied == latest, dynamic, "{}", p.name);
        assert_eq!(applied == base, !dynamic, "{}", p.name);
    }
    assert_eq!(lookup("replica.lag.time.max.ms").unwrap().update_mode(), UpdateMode::BrokerRestart);
    assert_eq!(lookup("broker.session.timeout.ms").unwrap().update_mode(), UpdateMode::ControllerRestart);
    assert_eq!(lookup("acks").unwrap().update_mode(), UpdateMode::Client);
}

#[test]
fn every_property_accepts_its_default_in_its_scope() {
    for p in PROPERTIES.iter().filter(|p| p.default != "null") {
        match p.scope {
            Scope::Topic => TopicConfig::default().set(p.name, p.default).unwrap(),
            Scope::Broker => BrokerConfig::default().set(p.name, p.default).unwrap(),
            Scope::BrokerAndTopic => {
                let mut b = BrokerConfig::default();
                b.set(p.name, p.default).unwrap();
                assert_eq!(b, BrokerConfig::default(), "{} default differs", p.name);
                TopicConfig::default().set(p.name, p.default).unwrap();
            }
            Scope::Lab => {
                let mut n = LabConfig::default();
                n.set(p.name, p.default).unwrap();
                assert_eq!(n, LabConfig::default(), "{} default differs", p.name);
            }
            Scope::Producer => {
                let mut c = ProducerConfig::default();
                c.set(p.name, p.default).unwrap();
                c.enable_idempotence_set = false;
                assert_eq!(c, ProducerConfig::default(), "{} default differs", p.name);
            }
            Scope::Consumer => {
                let mut c = ConsumerConfig::default();
                c.set(p.name, p.default).unwrap();
                c.enable_auto_commit_set = false;
                assert_eq!(c, ConsumerConfig::default(), "{} default differs", p.name);
            }
        }
        if p.scope == Scope::Broker {
            let mut b = BrokerConfig::default();
            b.set(p.name, p.default).unwrap();
            assert_eq!(b, BrokerConfig::default(), "{} default differs", p.name);
        }
    }
}

#[test]
fn lab_properties_keep_microseconds_and_refuse_a_dead_link() {
    let mut n = NetConfig::default();
    n.set("net.latency.ms", "1.5").unwrap();
    n.set("net.jitter.ms", "0.001").unwrap();
    assert_eq!((n.latency_us, n.jitter_us), (1500, 1));
    assert!(n.set("net.bandwidth.mbps", "0").is_err());
    assert!(n.set("net.latency.ms", "-1").is_err());
    assert!(n.set("acks", "1").is_err());
    assert!(BrokerConfig::default().set("net.latency.ms", "1").is_err());
    // 1 Gbit/s moves 125 bytes per µs.
    assert_eq!(NetConfig::default().transmit_micros(1_250_000), 10_000);
}

#[test]
fn unknown_property_names_close_matches() {
    let err = lookup("min.insync.replica").unwrap_err();
    assert!(err.to_string().contains("did you mean `min.insync.replicas`"), "{err}");
}

#[test]
fn partitioner_class_takes_kafkas_round_robin_partitioner_or_nothing() {
    let mut p = ProducerConfig::default();
    p.set("partitioner.class", ROUND_ROBIN_PARTITIONER).unwrap();
    assert_eq!(p.partitioner_class, PartitionerClass::RoundRobin);
    p.set("partitioner.class", "null").unwrap();
    assert_eq!(p.partitioner_class, PartitionerClass::BuiltIn);
    p.set("partitioner.class", "RoundRobinPartitioner").unwrap();
    p.set("partitioner.class", "").unwrap();
    assert_eq!(p, ProducerConfig::default());
    let e = p.set("partitioner.class", "com.example.MyPartitioner").unwrap_err().to_string();
    assert!(e.contains("Class com.example.MyPartitioner could not be found"), "{e}");
    assert!(e.contains(ROUND_ROBIN_PARTITIONER), "{e}");
    let e = p
        .set("partitioner.class", "org.apache.kafka.clients.producer.internals.DefaultPartitioner")
        .unwrap_err()
        .to_string();
    assert!(e.contains("removed in Kafka 4.0"), "{e}");
    p.set("partitioner.ignore.keys", "true").unwrap();
    p.set("partitioner.adaptive.partitioning.enable", "false").unwrap();
    p.set("partitioner.availability.timeout.ms", "250").unwrap();
    assert!(p.partitioner_ignore_keys && !p.partitioner_adaptive);
    assert_eq!(p.partitioner_availability_timeout_ms, 250);
    assert!(p.set("partitioner.availability.timeout.ms", "-1").is_err());
}

#[test]
fn bad_values_and_scopes_are_errors() {
    let mut b = BrokerConfig::default();
    assert!(b.set("min.insync.replicas", "0").is_err());
    assert!(b.set("unclean.leader.election.enable", "yes").is_err());
    assert!(b.set("acks", "1").is_err());
    let mut t = TopicConfig::default();
    assert!(t.set("replica.lag.time.max.ms", "1").is_err());
    let mut p = ProducerConfig::default();
    assert!(p.set("acks", "2").is_err());
    p.set("acks", "-1").unwrap();
    assert_eq!(p.acks, Acks::All);
}

#[test]
fn kafka_refuses_contradicting_settings() {
    let mut p = ProducerConfig::default();
    p.set("acks", "1").unwrap();
    assert!(p.validate().is_ok(), "default idempotence quietly turns off");
    p.set("enable.idempotence", "true").unwrap();
    assert!(p.validate().unwrap_err().to_string().starts_with("Must set acks to all"));
    let mut p = ProducerConfig::default();
    let soon = p.set("delivery.timeout.ms", "soon").unwrap_err().to_string();
    assert!(soon.contains("an integer from 30005 (linger.ms + request.timeout.ms)"), "{soon}");
    p.set("delivery.timeout.ms", "1").unwrap();
    assert!(p.validate().unwrap_err().to_string().contains("linger.ms + request.timeout.ms"));
    let mut b = BrokerConfig::default();
    b.set("replica.lag.time.max.ms", "100").unwrap();
    assert!(b.validate().unwrap_err().to_string().contains("replica.fetch.wait.max.ms should always"));
    b.set("replica.fetch.wait.max.ms", "50").unwrap();
    assert!(b.validate().is_ok());
    b.set("broker.heartbeat.interval.ms", "5000").unwrap();
    assert!(b.validate().is_ok(), "Kafka only logs it as an error");
    assert!(b.warnings(None)[0].why.contains("half of broker.session.timeout.ms"));
}

/// A batch is its 61-byte header plus whole records; an oversized record still goes,
/// alone.
#[test]
fn record_size_sets_how_many_records_a_batch_holds() {
    let mut p = ProducerConfig::default();
    assert_eq!(p.records_per_batch(), 163);
    p.set("record.size", "1000").unwrap();
    assert_eq!(p.records_per_batch(), 16);
    p.set("record.size", "20000").unwrap();
    assert_eq!(p.records_per_batch(), 1);
    assert!(p.set("record.size", "0").is_err());
    assert!(p.set("record.size", "40000000").is_err(), "above buffer.memory");
}

/// `max.request.size` caps what one request (here one batch) holds, and a record that
/// cannot fit in a request with its batch header is refused, with Kafka's message.
#[test]
fn max_request_size_caps_batches_and_refuses_larger_records() {
    let mut p = ProducerConfig::default();
    assert_eq!(p.record_too_large(), None);
    p.set("batch.size", "100000").unwrap();
    assert_eq!(p.records_per_batch(), 999);
    p.set("max.request.size", "10061").unwrap();
    assert_eq!(p.records_per_batch(), 100, "10061 - 61 bytes of header = 100 records");
    p.set("record.size", "10000").unwrap();
    assert_eq!(p.record_too_large(), None, "61 + 10000 fits exactly");
    p.set("record.size", "10001").unwrap();
    assert_eq!(
        p.record_too_large().unwrap(),
        "RecordTooLargeException: The message is 10062 bytes when serialized which is larger than 10061, which is the value of the max.request.size configuration."
    );
}

/// The replication throttles: rates are dynamic broker configs, windows static ones, and
/// the replica lists topic configs shown among the topic's overrides; an empty list is
/// the default and removes the override.
#[test]
fn replication_throttles_are_broker_rates_and_topic_lists() {
    assert_eq!(lookup("leader.replication.throttled.rate").unwrap().update_mode(), UpdateMode::Dynamic);
    assert_eq!(lookup("follower.replication.throttled.rate").unwrap().update_mode(), UpdateMode::Dynamic);
    assert_eq!(lookup("replication.quota.window.num").unwrap().update_mode(), UpdateMode::BrokerRestart);
    let mut b = BrokerConfig::default();
    assert_eq!(b.leader_replication_throttled_rate, i64::MAX as u64);
    b.set("leader.replication.throttled.rate", "10000").unwrap();
    assert!(b.set("leader.replication.throttled.rate", "-1").is_err());
    assert!(b.set("leader.replication.throttled.replicas", "*").is_err(), "a topic config");
    let mut t = TopicConfig::default();
    t.set("leader.replication.throttled.replicas", "0:1,1:2").unwrap();
    t.set("follower.replication.throttled.replicas", "*").unwrap();
    assert_eq!(
        t.overrides(),
        vec!["leader.replication.throttled.replicas=0:1,1:2", "follower.replication.throttled.replicas=*"]
    );
    let err = t.set("leader.replication.throttled.replicas", "0-1").unwrap_err().to_string();
    assert!(err.contains("the literal '*'"), "{err}");
    t.set("follower.replication.throttled.replicas", "\"\"").unwrap();
    assert_eq!(t.follower_replication_throttled_replicas, None);
}

/// A broker's own rate wins over the cluster-wide one, whichever was set last
/// (`BrokerConfigHandler.processConfigChanges`), and a running broker takes it like the
/// other dynamic configs.
#[test]
fn a_brokers_own_throttle_rate_wins_over_the_cluster_wide_one() {
    let mut b = BrokerConfig::default();
    b.set_for_broker(1, "leader.replication.throttled.rate", "5000").unwrap();
    b.set("leader.replication.throttled.rate", "7000").unwrap();
    assert_eq!((b.leader_throttle_rate(1), b.leader_throttle_rate(2)), (5000, 7000));
    assert_eq!(b.follower_throttle_rate(1), i64::MAX as u64);
    assert!(b.set_for_broker(1, "follower.replication.throttled.rate", "x").is_err());
    assert_eq!(BrokerConfig::default().with_dynamic_from(&b).leader_throttle_rate(1), 5000);
}

/// Any broker property may be set for one broker (`DynamicBrokerConfig` per-broker
/// entries): it wins over the cluster-wide value for that broker only, the combined config
/// must still be valid, and what the controller reads or what is not a broker's is
/// refused, changing nothing.
#[test]
fn one_brokers_own_properties_win_for_it_alone() {
    let mut b = BrokerConfig::default();
    b.set_for_broker(1, "min.insync.replicas", "2").unwrap();
    b.set_for_broker(1, "replica.fetch.max.bytes", "10000").unwrap();
    b.set("min.insync.replicas", "3").unwrap();
    let (one, two) = (b.for_broker(1), b.for_broker(2));
    assert_eq!((one.min_insync_replicas, two.min_insync_replicas), (2, 3));
    assert_eq!((one.replica_fetch_max_bytes, two.replica_fetch_max_bytes), (10000, 1_048_576));
    let before = b.clone();
    let err = b.set_for_broker(1, "broker.session.timeout.ms", "5000").unwrap_err().to_string();
    assert!(err.contains("read by the controller"), "{err}");
    assert!(b.set_for_broker(1, "acks", "1").is_err());
    let err = b.set_for_broker(1, "replica.fetch.wait.max.ms", "60000").unwrap_err().to_string();
    assert!(err.contains("replica.fetch.wait.max.ms"), "{err}");
    assert_eq!(b, before);
}

/// `log.retention.ms` wins over `log.retention.hours`; a topic override wins over both;
/// the broker and topic names are Kafka's synonyms and each is refused at the other level.
#[test]
fn retention_settings_follow_kafkas_precedence() {
    let mut b = BrokerConfig::default();
    assert_eq!(
        TopicConfig::NONE.log_config(&b),
        LogConfig {
            retention_ms: 604_800_000,
            retention_bytes: -1,
            segment_bytes: 1 << 30,
            segment_ms: 604_800_000,
            flush_messages: i64::MAX as u64,
            flush_ms: i64::MAX as u64,
            os_dirty_expire_ms: 30_000,
            os_dirty_writeback_ms: 5_000,
        }
    );
    b.set("log.retention.hours", "1").unwrap();
    assert_eq!(b.log_retention_ms(), 3_600_000);
    b.set("log.retention.ms", "60000").unwrap();
    b.set("log.retention.hours", "2").unwrap();
    assert_eq!(b.log_retention_ms(), 60_000);
    b.set("log.retention.ms", "-5").unwrap_err();
    let mut t = TopicConfig::default();
    t.set("retention.ms", "1000").unwrap();
    t.set("segment.bytes", "1048576").unwrap();
    assert!(t.set("segment.bytes", "1000").is_err(), "at least 1 MiB since Kafka 4.0");
    assert_eq!((t.log_config(&b).retention_ms, t.log_config(&b).segment_bytes), (1000, 1 << 20));
    assert_eq!(t.overrides(), vec!["retention.ms=1000", "segment.bytes=1048576"]);
    assert!(b.set("retention.ms", "1").is_err());
    assert!(t.set("log.retention.ms", "1").is_err());
}

#[test]
fn version_dependent_rules_read_the_semantics() {
    let mut b = BrokerConfig::default();
    let t = TopicConfig {
        min_insync_replicas: Some(3),
        unclean_leader_election_enable: Some(true),
        ..TopicConfig::NONE
    };
    assert!(t.unclean_election_automatic(&b));
    b.semantics.strict_min_isr = false;
    b.semantics.kraft_unclean_election = false;
    assert_eq!(t.effective_min_isr(&b, 2), 3, "before 3.7 min ISR was not capped");
    assert!(!t.unclean_election_automatic(&b), "KRaft before 3.9 left unclean election to the admin");
    let old = Semantics { idempotence_by_default: false, default_linger_ms: 0, ..Semantics::CURRENT };
    let p = ProducerConfig::defaults_for(&old);
    assert!(!p.enable_idempotence && p.linger_ms == 0);
    assert_eq!(ProducerConfig::default(), ProducerConfig::defaults_for(&Semantics::CURRENT));
    let mut elr = BrokerConfig::default();
    assert!(elr.semantics.eligible_leader_replicas, "a new cluster has ELR on");
    elr.set("eligible.leader.replicas.version", "0").unwrap();
    assert!(!elr.semantics.eligible_leader_replicas);
    assert_eq!(elr.get("eligible.leader.replicas.version").as_deref(), Some("0"));
    assert!(elr.set("eligible.leader.replicas.version", "2").is_err(), "level 1 is the highest");
}

#[test]
fn effective_min_isr_is_capped_by_replica_count() {
    let b = BrokerConfig::default();
    let t = TopicConfig { min_insync_replicas: Some(3), ..Default::default() };
    assert_eq!(t.effective_min_isr(&b, 2), 2);
    assert_eq!(t.effective_min_isr(&b, 3), 3);
}
