//! Kafka's shared vocabulary, the ground floor every other layer builds on: broker ids,
//! offsets, epochs, sim time in ms, topic-partitions, `acks` and Kafka's error codes. It
//! imports nothing from the rest of the crate.

pub mod errors;

use std::fmt;
use std::sync::Arc;

/// A broker's `node.id` (Kafka uses a 32-bit int; `-1` means "none" on the wire).
pub type BrokerId = i32;

/// Sim time in milliseconds since the run started (Kafka's own unit for every duration).
pub type Ms = u64;

/// Sim time with microsecond resolution, as the runtime keeps it (the network, timers, event
/// stamps). Kafka's own code reads time in milliseconds (`Time.milliseconds()`), so the
/// sans-IO cores see [`SimTime::as_ms`] (floored); every config value stays in ms. Conversions
/// are explicit: there is no `From<Ms>`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct SimTime(u64);

impl SimTime {
    /// The start of the run.
    pub const ZERO: SimTime = SimTime(0);

    /// `us` microseconds since the start.
    pub const fn from_micros(us: u64) -> Self {
        SimTime(us)
    }

    /// The start of millisecond `ms`.
    pub const fn from_ms(ms: Ms) -> Self {
        SimTime(ms.saturating_mul(1000))
    }

    /// Microseconds since the start.
    pub const fn as_micros(self) -> u64 {
        self.0
    }

    /// The millisecond this instant falls in (floor): what the cores are told `now` is.
    pub const fn as_ms(self) -> Ms {
        self.0 / 1000
    }

    /// Whether this instant is the start of a millisecond (no microseconds beyond it).
    pub const fn is_whole_ms(self) -> bool {
        self.0.is_multiple_of(1000)
    }

    /// This instant plus `us` microseconds (saturating).
    pub const fn plus_micros(self, us: u64) -> Self {
        SimTime(self.0.saturating_add(us))
    }

    /// Microseconds from `earlier` to this instant (0 when `earlier` is later).
    pub const fn micros_since(self, earlier: SimTime) -> u64 {
        self.0.saturating_sub(earlier.0)
    }
}

impl fmt::Display for SimTime {
    /// Milliseconds with three decimals (µs), e.g. `1234.250ms`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:03}ms", self.0 / 1000, self.0 % 1000)
    }
}

/// A log offset (Kafka `long`).
pub type Offset = i64;

/// A leader epoch or partition epoch (Kafka `int`).
pub type Epoch = i32;

/// Node id of the single KRaft controller in isolated mode. It is never a broker id.
pub const CONTROLLER_ID: i32 = 3000;

/// A topic's id (KIP-516), Kafka's `org.apache.kafka.common.Uuid`: 128 bits, drawn at random
/// by the controller when the topic is created (`ReplicationControlManager.createTopic`), so a
/// topic deleted and created again under the same name gets a new one. Every record about the
/// topic in the metadata log, every Fetch (v13+) and every log's `partition.metadata` file
/// carries it. Shown as Kafka prints it (`Uuid.toString`): the 16 bytes, most significant
/// first, in URL-safe base64 without padding (22 characters), e.g. `pT2xQ0cLRyuM9bV1YwJk3A`.
/// Ordered as Kafka compares them (unsigned, most significant half first). Kept as Kafka's two
/// `long` halves, so it is aligned like a `u64` and does not widen the messages holding it.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct TopicId([u64; 2]);

impl TopicId {
    /// The null id (`Uuid.ZERO_UUID`): a fetch without a topic id, or a log whose
    /// `partition.metadata` was never written. Never drawn for a topic.
    pub const ZERO: TopicId = TopicId([0, 0]);

    /// The id of `__cluster_metadata` in KRaft (`Uuid.METADATA_TOPIC_ID`, `ONE_UUID`). Never
    /// drawn for a topic.
    pub const METADATA_TOPIC_ID: TopicId = TopicId([0, 1]);

    /// The id with these 128 bits.
    pub const fn from_bits(bits: u128) -> Self {
        TopicId([(bits >> 64) as u64, bits as u64])
    }

    /// Its 128 bits.
    pub const fn bits(self) -> u128 {
        ((self.0[0] as u128) << 64) | self.0[1] as u128
    }

    /// A random id from `rng`, as `Uuid.randomUuid` makes one: a version 4, variant 2 UUID,
    /// drawn again while it is reserved (zero or one) or its text would start with `-`.
    pub fn random(rng: &mut impl rand::Rng) -> Self {
        use rand::RngExt;
        loop {
            let mut bits: u128 = rng.random();
            // Version 4 in bits 76..80, variant 0b10 in bits 62..64 (as java.util.UUID sets).
            bits = (bits & !(0xf << 76)) | (0x4 << 76);
            bits = (bits & !(0x3 << 62)) | (0x2 << 62);
            let id = TopicId::from_bits(bits);
            if id != TopicId::ZERO && id != TopicId::METADATA_TOPIC_ID && !id.to_string().starts_with('-') {
                return id;
            }
        }
    }

    /// Parses Kafka's text form (`Uuid.fromString`). Errors: not base64url of 16 bytes.
    pub fn parse(text: &str) -> Result<Self, String> {
        use base64::Engine;
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(text)
            .map_err(|e| format!("`{text}` is not a base64 topic id: {e}"))?;
        let bytes: [u8; 16] = bytes.try_into().map_err(|b: Vec<u8>| {
            format!("`{text}` decoded as {} bytes, not the 16 of a topic id", b.len())
        })?;
        Ok(TopicId::from_bits(u128::from_be_bytes(bytes)))
    }
}

impl fmt::Display for TopicId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use base64::Engine;
        f.write_str(&base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(self.bits().to_be_bytes()))
    }
}

/// A topic id plus partition number (Kafka's `TopicIdPartition`, without the name it also
/// carries): the key of a fetch session's partitions on both ends (`FetchSession`'s
/// `CachedPartition`s, `FetchSessionHandler`'s session), `Copy`, compared as two integers.
/// A partition of a deleted topic and the one of the topic re-created under its name are
/// different keys.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct TopicIdPartition {
    /// The topic's id.
    pub topic_id: TopicId,
    /// Partition index, from 0.
    pub partition: u32,
}

/// A topic name plus partition number, displayed as Kafka does: `test_repli-3`. Ordered by
/// topic name, then partition number.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct TopicPartition {
    /// Topic name.
    pub topic: Arc<str>,
    /// Partition index, from 0.
    pub partition: u32,
}

impl Ord for TopicPartition {
    /// The derived order, without comparing the names' bytes when both share one `Arc` (the
    /// usual case: the names come from one metadata image), as `Arc`'s `==` already does.
    /// Ordered maps and the snapshot's cursors compare partitions of one topic all the time.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        let topic = if Arc::ptr_eq(&self.topic, &other.topic) {
            std::cmp::Ordering::Equal
        } else {
            self.topic.cmp(&other.topic)
        };
        topic.then(self.partition.cmp(&other.partition))
    }
}

impl PartialOrd for TopicPartition {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl TopicPartition {
    /// Builds a topic-partition.
    pub fn new(topic: impl Into<Arc<str>>, partition: u32) -> Self {
        Self { topic: topic.into(), partition }
    }
}

impl fmt::Display for TopicPartition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.topic, self.partition)
    }
}

/// Kafka's internal topics (`org.apache.kafka.common.internals.Topic.isInternal`: the group
/// coordinator's, the transaction coordinator's and the share-group state topics). Only the
/// brokers' own coordinators write to them: a client's produce is refused
/// (`ReplicaManager.appendToLocalLog`).
pub const INTERNAL_TOPICS: [&str; 3] = ["__consumer_offsets", "__transaction_state", "__share_group_state"];

/// Whether `topic` is one of Kafka's internal topics ([`INTERNAL_TOPICS`]).
pub fn is_internal(topic: &str) -> bool {
    INTERNAL_TOPICS.contains(&topic)
}

/// The producer `acks` setting (rule book R5.1–R5.4).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Acks {
    /// `acks=0`: no response at all.
    Zero,
    /// `acks=1`: the leader's local append suffices.
    One,
    /// `acks=all` (`-1`): every member of the (maximal) ISR must have the record.
    #[default]
    All,
}

impl Acks {
    /// The next value in the cycle 0 → 1 → all → 0 used by the `a` key.
    pub fn cycle(self) -> Self {
        match self {
            Acks::Zero => Acks::One,
            Acks::One => Acks::All,
            Acks::All => Acks::Zero,
        }
    }
}

impl fmt::Display for Acks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Acks::Zero => "0",
            Acks::One => "1",
            Acks::All => "all",
        })
    }
}

/// Formats a list of broker ids the way `kafka-topics.sh --describe` does: `0,1,2`.
pub fn join_ids(ids: &[BrokerId]) -> String {
    let mut out = String::new();
    for (i, id) in ids.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&id.to_string());
    }
    out
}

/// Formats sim time as `HH:MM:SS.t` (tenths of a second), as the header shows it.
pub fn format_time(ms: Ms) -> String {
    let tenths = (ms % 1000) / 100;
    let s = ms / 1000;
    format!("{:02}:{:02}:{:02}.{}", s / 3600, (s / 60) % 60, s % 60, tenths)
}

/// Formats an event's stamp for the event log: `HH:MM:SS.mmm` (milliseconds), with three more
/// digits (`HH:MM:SS.mmm.uuu`, microseconds) when `fine` is set, which the log does when
/// consecutive events are closer together than 1 ms.
pub fn format_stamp(at: SimTime, fine: bool) -> String {
    let ms = at.as_ms();
    let s = ms / 1000;
    let base = format!("{:02}:{:02}:{:02}.{:03}", s / 3600, (s / 60) % 60, s % 60, ms % 1000);
    if fine { format!("{base}.{:03}", at.as_micros() % 1000) } else { base }
}

/// Formats a scenario instant (a command's or a check's time) exactly, with no more digits
/// than it needs: tenths as the header shows time (`00:00:10.0`), milliseconds when it is not
/// on a tenth (`00:00:01.250`), microseconds when it is not on a millisecond
/// (`00:00:01.250.500`).
pub fn format_instant(at: SimTime) -> String {
    let us = at.as_micros();
    if us.is_multiple_of(100_000) { format_time(at.as_ms()) } else { format_stamp(at, !at.is_whole_ms()) }
}

/// Which event stamps of an event log need microseconds, for `times` in log order (oldest
/// first). The rule: the log shows milliseconds, and every event of a millisecond that holds
/// events at two or more different instants shows its microseconds, so events closer together
/// than 1 ms read apart and in order. Events at one and the same instant (a timer firing
/// several things at once) keep the plain millisecond stamp.
pub fn fine_stamps(times: &[SimTime]) -> Vec<bool> {
    let mut fine = vec![false; times.len()];
    let mut start = 0;
    while start < times.len() {
        let ms = times[start].as_ms();
        let len = times[start..].iter().take_while(|t| t.as_ms() == ms).count();
        let run = &times[start..start + len];
        if run.iter().any(|t| *t != run[0]) {
            fine[start..start + len].fill(true);
        }
        start += len;
    }
    fine
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topic_partitions_order_by_name_then_number_shared_name_or_not() {
        let shared: Arc<str> = "b".into();
        let tps = [
            TopicPartition::new("a", 7),
            TopicPartition::new(shared.clone(), 2),
            TopicPartition::new("b", 3),
            TopicPartition::new(shared, 10),
            TopicPartition::new("ba", 0),
        ];
        for (i, x) in tps.iter().enumerate() {
            for (j, y) in tps.iter().enumerate() {
                let by_fields = (&*x.topic, x.partition).cmp(&(&*y.topic, y.partition));
                assert_eq!(x.cmp(y), by_fields, "{x} vs {y}");
                assert_eq!(x.cmp(y), i.cmp(&j), "{x} vs {y}");
            }
        }
    }

    #[test]
    fn topic_ids_print_as_kafka_does_and_parse_back() {
        use rand::SeedableRng;
        // Kafka's Uuid(0x1234567890abcdef, 0x1234567890abcdef).toString().
        let id = TopicId::from_bits(0x1234_5678_90ab_cdef_1234_5678_90ab_cdef);
        assert_eq!(id.to_string(), "EjRWeJCrze8SNFZ4kKvN7w");
        assert_eq!(TopicId::parse("EjRWeJCrze8SNFZ4kKvN7w"), Ok(id));
        assert_eq!(TopicId::ZERO.to_string(), "AAAAAAAAAAAAAAAAAAAAAA");
        assert!(TopicId::parse("short").is_err());
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let (a, b) = (TopicId::random(&mut rng), TopicId::random(&mut rng));
        assert_ne!(a, b);
        for id in [a, b] {
            let text = id.to_string();
            assert_eq!(text.len(), 22);
            assert!(!text.starts_with('-'));
            assert_eq!((id.bits() >> 76) & 0xf, 4, "version 4");
            assert_eq!((id.bits() >> 62) & 0x3, 2, "variant 2");
        }
    }

    #[test]
    fn instants_show_as_many_digits_as_they_need() {
        assert_eq!(format_instant(SimTime::from_ms(10_000)), "00:00:10.0");
        assert_eq!(format_instant(SimTime::from_ms(1_250)), "00:00:01.250");
        assert_eq!(format_instant(SimTime::from_micros(1_250_500)), "00:00:01.250.500");
        assert_eq!(format_instant(SimTime::from_micros(1_000_001)), "00:00:01.000.001");
    }

    #[test]
    fn only_a_millisecond_with_events_at_different_instants_shows_microseconds() {
        let t = |us| SimTime::from_micros(us);
        let times =
            [t(5_000), t(7_000), t(7_000), t(7_250), t(7_999), t(8_000), t(8_000), t(9_100), t(12_345_678)];
        let fine = fine_stamps(&times);
        assert_eq!(fine, [false, true, true, true, true, false, false, false, false]);
        assert!(fine_stamps(&[]).is_empty());
    }

    #[test]
    fn sim_time_converts_explicitly_and_floors_to_ms() {
        let t = SimTime::from_ms(1234).plus_micros(999);
        assert_eq!((t.as_ms(), t.as_micros()), (1234, 1_234_999));
        assert_eq!(t.to_string(), "1234.999ms");
        assert_eq!(t.micros_since(SimTime::from_ms(1234)), 999);
        assert_eq!(format_stamp(t, false), "00:00:01.234");
        assert_eq!(format_stamp(t, true), "00:00:01.234.999");
    }
}
