//! Which events the Events pane shows: the important-only switch and a filter by kind,
//! partition, broker and client, typed as words (`broker 2 election`, `partition
//! test_repli-0`, `producer 0`), and the `/` search over the shown events' text.

use super::filter_names;
use crate::cluster::snapshot::Snapshot;
use crate::sim::BrokerId;
use crate::sim::events::{EventKind, RollStep};
use crate::sim::protocol::NodeId;

/// A kind of event, as the filter names it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Category {
    /// Acknowledged records lost or duplicated, truncation, an unflushed tail lost.
    Loss,
    /// Leader elections and partitions going offline.
    Election,
    /// ISR shrinks and expansions, followers catching up.
    Isr,
    /// Fencing, unfencing and broker registration.
    Fencing,
    /// Crashes, stops, starts, power loss, frozen processes, network changes, paused fetching.
    Fault,
    /// Producer and consumer errors, retries, resets and recoveries.
    Client,
    /// Consumer groups: coordinators found, joins, rebalances, assignments, commits
    /// (`ClassicGroup` and `ConsumerCoordinator` steps).
    Group,
    /// Topics, reassignments, config changes, rolling restarts.
    Admin,
    /// Fetchers and fetch sessions.
    Fetch,
}

impl Category {
    /// Every kind with the word that names it, in help order.
    pub const ALL: [(Category, &'static str); 9] = [
        (Category::Loss, "loss"),
        (Category::Election, "election"),
        (Category::Isr, "isr"),
        (Category::Fencing, "fencing"),
        (Category::Fault, "fault"),
        (Category::Client, "client"),
        (Category::Group, "group"),
        (Category::Admin, "admin"),
        (Category::Fetch, "fetch"),
    ];

    /// The word that names it.
    pub fn name(self) -> &'static str {
        Category::ALL.iter().find(|(c, _)| *c == self).map_or("?", |(_, n)| n)
    }

    fn named(word: &str) -> Option<Category> {
        Category::ALL.iter().find(|(_, n)| n.eq_ignore_ascii_case(word)).map(|(c, _)| *c)
    }

    /// The kind of an event.
    pub fn of(kind: &EventKind) -> Category {
        use EventKind::*;
        match kind {
            AckedRecordsLost { .. } | DuplicateAcked { .. } | Truncated { .. } | UnflushedTailLost { .. } => {
                Category::Loss
            }
            UnackedRecordsLost { .. } => Category::Loss,
            AckedOutOfOrder { .. } => Category::Loss,
            LeaderChanged { .. } => Category::Election,
            IsrShrunk { .. } | IsrExpanded { .. } | FollowerCaughtUp { .. } => Category::Isr,
            ElrChanged { .. } => Category::Isr,
            BrokerFenced { .. } | BrokerUnfenced { .. } | BrokerRegistered { .. } => Category::Fencing,
            BrokerRegistrationRefused { .. } => Category::Fencing,
            BrokerCrashed { .. } | BrokerStopped { .. } | BrokerStarted { .. } | BrokerPowerLost { .. } => {
                Category::Fault
            }
            ControlledShutdownStarted { .. } | ProcessFrozen { .. } | ProcessThawed { .. } => Category::Fault,
            ControllerCrashed { .. } | ControllerStarted { .. } => Category::Fault,
            ControllerElected { .. }
            | ControllerLostLeader { .. }
            | ControllerCandidate { .. }
            | ControllerResigned { .. } => Category::Election,
            NetworkChanged { .. } | FetchPaused { .. } => Category::Fault,
            ProduceFailing { .. } | ProduceRecovered { .. } | ProducersStopped { .. } => Category::Client,
            ProducerRestarted { .. } => Category::Client,
            ConsumerOffsetReset { .. }
            | ConsumerTruncationDetected { .. }
            | ConsumerPartitionStopped { .. }
            | ConsumerTopicGone { .. } => Category::Client,
            Group(_) => Category::Group,
            TopicCreated { .. } | PartitionsAdded { .. } | TopicDeleted { .. } | ReplicaDeleted { .. } => {
                Category::Admin
            }
            ReassignmentStarted { .. } | ReassignmentCompleted { .. } | ReassignmentCancelled { .. } => {
                Category::Admin
            }
            ReplicasReordered { .. } | ThrottlesCleared { .. } => Category::Admin,
            ConfigChanged { .. } | Roll(_) => Category::Admin,
            FollowerStopped { .. } | FollowerStarted { .. } => Category::Fetch,
            FetchSessionCreated { .. }
            | FetchSessionPartitionsAdded { .. }
            | FetchSessionRefused { .. }
            | FetchTopicIdRefused { .. } => Category::Fetch,
        }
    }
}

/// A client, as the filter names it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Client {
    /// `producer N`.
    Producer(u32),
    /// `consumer N`.
    Consumer(u32),
}

/// The filter: an event is shown when it matches every part that is set.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct EventFilter {
    /// Only events of this kind.
    pub kind: Option<Category>,
    /// Only events of this partition (`test_repli-0`) or of any partition of this topic.
    pub partition: Option<String>,
    /// Only events that name this broker.
    pub broker: Option<BrokerId>,
    /// Only events of this client.
    pub client: Option<Client>,
}

/// No filter at all.
pub static NO_FILTER: EventFilter = EventFilter { kind: None, partition: None, broker: None, client: None };

/// How to write a filter, for the prompt's errors and the help.
pub const FILTER_SYNTAX: &str = "words: a kind (loss election isr fencing fault client group admin fetch), partition P or topic T, broker B, producer N, consumer N; empty clears";

/// The words that take a value.
const KEYWORDS: [&str; 6] = ["kind", "partition", "topic", "broker", "producer", "consumer"];

impl EventFilter {
    /// Parses the filter prompt's line. Errors: an unknown word or a missing or bad value,
    /// in words; nothing is changed then.
    pub fn parse(line: &str) -> Result<EventFilter, String> {
        let mut filter = EventFilter::default();
        let words: Vec<&str> =
            line.split(|c: char| c.is_whitespace() || c == '=').filter(|w| !w.is_empty()).collect();
        let mut rest = words.iter();
        while let Some(word) = rest.next() {
            if let Some(kind) = Category::named(word) {
                filter.kind = Some(kind);
                continue;
            }
            let key = word.to_ascii_lowercase();
            // A word that is neither a kind nor a keyword is a typo (`lsos`): say so before
            // asking it for a value it was never meant to take.
            if !KEYWORDS.contains(&key.as_str()) {
                return Err(format!("unknown word `{word}` ({FILTER_SYNTAX})"));
            }
            let value = rest.next().ok_or_else(|| format!("`{word}` needs a value ({FILTER_SYNTAX})"))?;
            let number = || value.parse::<u32>().map_err(|_| format!("`{word} {value}`: not a number"));
            match key.as_str() {
                "kind" => {
                    filter.kind = Some(
                        Category::named(value)
                            .ok_or_else(|| format!("no kind `{value}` ({FILTER_SYNTAX})"))?,
                    )
                }
                "partition" | "topic" => filter.partition = Some((*value).to_string()),
                "broker" => {
                    let id = value.parse::<BrokerId>().ok().filter(|b| *b >= 0);
                    filter.broker = Some(id.ok_or_else(|| format!("`{word} {value}`: not a broker id"))?)
                }
                "producer" => filter.client = Some(Client::Producer(number()?)),
                "consumer" => filter.client = Some(Client::Consumer(number()?)),
                _ => unreachable!("every keyword is matched above"),
            }
        }
        Ok(filter)
    }

    /// Each broker, topic, partition and client the filter names is in the cluster (the
    /// same checks as the partition table's filter, [`filter_names`]), or at least one kept
    /// event is about it (a deleted topic's events, say). Error: the first name that is
    /// neither, with the names the cluster has.
    pub fn check_names(&self, snap: &Snapshot) -> Result<(), String> {
        let about = |part: EventFilter| snap.recent_events.iter().any(|ev| part.keeps(&ev.kind));
        let known = |check: Result<(), String>, part: EventFilter| match check {
            Err(_) if about(part) => Ok(()),
            other => other,
        };
        if let Some(b) = self.broker {
            known(filter_names::broker(snap, b), EventFilter { broker: Some(b), ..EventFilter::default() })?;
        }
        if let Some(p) = &self.partition {
            let part = EventFilter { partition: Some(p.clone()), ..EventFilter::default() };
            known(filter_names::topic_or_partition(snap, p), part)?;
        }
        if let Some(c) = self.client {
            let check = match c {
                Client::Producer(n) => filter_names::producer(snap, n),
                Client::Consumer(n) => filter_names::consumer(snap, n),
            };
            known(check, EventFilter { client: Some(c), ..EventFilter::default() })?;
        }
        Ok(())
    }

    /// No part is set.
    pub fn is_empty(&self) -> bool {
        *self == NO_FILTER
    }

    /// The filter as the pane's title shows it, e.g. `broker 2 election`.
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        parts.extend(self.kind.map(|k| k.name().to_string()));
        parts.extend(self.partition.as_ref().map(|p| format!("partition {p}")));
        parts.extend(self.broker.map(|b| format!("broker {b}")));
        parts.extend(self.client.map(|c| match c {
            Client::Producer(n) => format!("producer {n}"),
            Client::Consumer(n) => format!("consumer-{n}"),
        }));
        parts.join(" ")
    }

    /// Whether an event passes the filter.
    pub fn keeps(&self, kind: &EventKind) -> bool {
        if self.is_empty() {
            return true;
        }
        let about = Subjects::of(kind);
        self.kind.is_none_or(|k| Category::of(kind) == k)
            && self.partition.as_ref().is_none_or(|p| about.partition_matches(p))
            && self.broker.is_none_or(|b| about.brokers.contains(&b))
            && self.client.is_none_or(|c| about.client == Some(c))
    }
}

/// The partition an event is about (`test_repli-0`), if it is about one; `None` for a
/// broker's, a client's or a topic's event.
pub fn partition_of(kind: &EventKind) -> Option<String> {
    Subjects::of(kind).partition
}

/// What an event is about: its partition (or topic), the brokers it names and its client.
#[derive(Default)]
struct Subjects {
    /// `topic-partition`, when it is about one partition.
    partition: Option<String>,
    /// The topic, when it is about a topic or one of its partitions.
    topic: Option<String>,
    brokers: Vec<BrokerId>,
    client: Option<Client>,
}

impl Subjects {
    fn partition_matches(&self, wanted: &str) -> bool {
        self.partition.as_deref() == Some(wanted) || self.topic.as_deref() == Some(wanted)
    }

    fn of(kind: &EventKind) -> Subjects {
        use EventKind::*;
        let on = |tp: &crate::sim::TopicPartition, brokers: Vec<BrokerId>| Subjects {
            partition: Some(tp.to_string()),
            topic: Some(tp.topic.to_string()),
            brokers,
            client: None,
        };
        let topic = |t: &str| Subjects { topic: Some(t.to_string()), ..Subjects::default() };
        let one_broker = |b: BrokerId| Subjects { brokers: vec![b], ..Subjects::default() };
        match kind {
            TopicCreated { topic: t, .. } | PartitionsAdded { topic: t, .. } | TopicDeleted { topic: t } => {
                topic(t)
            }
            ReassignmentStarted { tp, adding, removing, .. } => {
                on(tp, [adding.as_slice(), removing].concat())
            }
            ReassignmentCompleted { tp, replicas }
            | ReassignmentCancelled { tp, replicas }
            | ReplicasReordered { tp, replicas, .. } => on(tp, replicas.clone()),
            ThrottlesCleared { brokers, .. } => Subjects { brokers: brokers.clone(), ..Subjects::default() },
            ReplicaDeleted { broker, tp, .. }
            | UnflushedTailLost { broker, tp, .. }
            | Truncated { broker, tp, .. }
            | FollowerStopped { broker, tp, .. } => on(tp, vec![*broker]),
            FollowerStarted { broker, tp, leader, .. } | FollowerCaughtUp { broker, tp, leader, .. } => {
                on(tp, vec![*broker, *leader])
            }
            BrokerRegistered { broker, .. }
            | BrokerRegistrationRefused { broker, .. }
            | BrokerUnfenced { broker }
            | BrokerCrashed { broker }
            | BrokerStarted { broker }
            | BrokerPowerLost { broker }
            | BrokerFenced { broker, .. }
            | ControlledShutdownStarted { broker }
            | BrokerStopped { broker }
            | FetchPaused { broker, .. } => one_broker(*broker),
            ProcessFrozen { node, .. } | ProcessThawed { node, .. } => Subjects::node(*node),
            LeaderChanged { tp, old_leader, new_leader, .. } => {
                on(tp, old_leader.iter().chain(new_leader.iter()).copied().collect())
            }
            IsrShrunk { tp, removed, .. } => on(tp, removed.clone()),
            ElrChanged { tp, elr, .. } => on(tp, elr.clone()),
            IsrExpanded { tp, added, .. } => on(tp, vec![*added]),
            AckedRecordsLost { tp, leader, .. } | UnackedRecordsLost { tp, leader, .. } => {
                on(tp, vec![*leader])
            }
            DuplicateAcked { tp, .. } => on(tp, Vec::new()),
            ProduceFailing { producer, tp, .. }
            | ProduceRecovered { producer, tp, .. }
            | AckedOutOfOrder { producer, tp, .. } => {
                Subjects { client: Some(Client::Producer(*producer)), ..on(tp, Vec::new()) }
            }
            ProducerRestarted { producer, .. } => {
                Subjects { client: Some(Client::Producer(*producer)), ..Subjects::default() }
            }
            ConsumerOffsetReset { consumer, tp, .. }
            | ConsumerTruncationDetected { consumer, tp, .. }
            | ConsumerPartitionStopped { consumer, tp, .. } => {
                Subjects { client: Some(Client::Consumer(*consumer)), ..on(tp, Vec::new()) }
            }
            ConsumerTopicGone { consumer, topic: t, .. } => {
                Subjects { client: Some(Client::Consumer(*consumer)), ..topic(t) }
            }
            FetchSessionCreated { leader, follower, .. }
            | FetchSessionPartitionsAdded { leader, follower, .. } => {
                Subjects { brokers: vec![*leader, *follower], ..Subjects::default() }
            }
            FetchSessionRefused { broker, leader, .. } => {
                Subjects { brokers: vec![*broker, *leader], ..Subjects::default() }
            }
            FetchTopicIdRefused { broker, leader, tp, .. } => on(tp, vec![*broker, *leader]),
            Roll(step) => match step {
                RollStep::Stopping(b)
                | RollStep::Restarted(b)
                | RollStep::BackInIsrs(b)
                | RollStep::Abandoned(b) => one_broker(*b),
                RollStep::Started { .. } | RollStep::Done => Subjects::default(),
            },
            Group(e) => e.broker().map_or_else(Subjects::default, one_broker),
            ProducersStopped { .. } | NetworkChanged { .. } | ConfigChanged { .. } => Subjects::default(),
            ControllerCrashed { .. }
            | ControllerStarted { .. }
            | ControllerElected { .. }
            | ControllerLostLeader { .. }
            | ControllerCandidate { .. }
            | ControllerResigned { .. } => Subjects::default(),
        }
    }

    fn node(node: NodeId) -> Subjects {
        match node {
            NodeId::Broker(b) => Subjects { brokers: vec![b], ..Subjects::default() },
            NodeId::Producer(p) => Subjects { client: Some(Client::Producer(p)), ..Subjects::default() },
            NodeId::Consumer(c) => Subjects { client: Some(Client::Consumer(c)), ..Subjects::default() },
            NodeId::Controller(_) | NodeId::ActiveController | NodeId::Client(_) => Subjects::default(),
        }
    }
}

/// Whether `text` holds `needle`, ignoring ASCII case (the `/` search).
pub fn contains_ignoring_case(text: &str, needle: &str) -> bool {
    text.to_lowercase().contains(&needle.to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::TopicPartition;

    #[test]
    fn words_parse_in_any_order_and_bad_ones_are_explained() {
        let f = EventFilter::parse("election broker 2 partition t-0").unwrap();
        assert_eq!(f.kind, Some(Category::Election));
        assert_eq!((f.broker, f.partition.as_deref()), (Some(2), Some("t-0")));
        assert_eq!(f.describe(), "election partition t-0 broker 2");
        assert_eq!(EventFilter::parse("kind=isr producer=1").unwrap().client, Some(Client::Producer(1)));
        assert!(EventFilter::parse("  ").unwrap().is_empty());
        assert!(EventFilter::parse("broker").unwrap_err().contains("needs a value"));
        assert!(EventFilter::parse("broker -1").unwrap_err().contains("not a broker id"));
        assert!(EventFilter::parse("kind weather").unwrap_err().contains("no kind `weather`"));
        assert!(EventFilter::parse("colour red").unwrap_err().contains("unknown word `colour`"));
        let typo = EventFilter::parse("lsos").unwrap_err();
        assert!(typo.starts_with("unknown word `lsos`") && typo.contains("loss election isr"), "{typo}");
        assert!(!typo.contains("needs a value"), "{typo}");
    }

    #[test]
    fn an_event_passes_when_every_part_set_matches() {
        let tp = TopicPartition::new("t", 0);
        let elected = EventKind::LeaderChanged {
            tp: tp.clone(),
            old_leader: Some(1),
            new_leader: Some(2),
            leader_epoch: 1,
            isr: vec![2],
            kind: crate::sim::events::ElectionKind::Unclean,
        };
        let failing = EventKind::ProduceRecovered { producer: 0, tp, errors: Vec::new() };
        let keeps = |line: &str, kind: &EventKind| EventFilter::parse(line).unwrap().keeps(kind);
        assert!(keeps("election broker 1", &elected) && keeps("broker 2 topic t", &elected));
        assert!(!keeps("broker 0", &elected) && !keeps("isr", &elected) && !keeps("partition t-1", &elected));
        assert!(keeps("producer 0 partition t-0", &failing) && !keeps("consumer 0", &failing));
        assert!(keeps("client", &failing) && keeps("", &failing));
        let joined = EventKind::Group(crate::sim::group::event::GroupEvent::MemberJoined {
            group: "g".into(),
            member: "consumer-0-1.0".into(),
        });
        assert!(keeps("group", &joined) && !keeps("client", &joined) && !keeps("group", &failing));
    }
}
