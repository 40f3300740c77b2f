//! `produce T N [key=K]`: hand N records to the producer of topic T now, on top of its rate.
//! A topic no producer writes to gets one with `rate=0`, so it sends only what `produce` hands
//! it. Without a key the records are keyless (the sticky partitioner places them); with one,
//! every record has key K, and the built-in partitioner sends them all to the partition
//! `toPositive(murmur2(K)) % partitions` (`BuiltInPartitioner.partitionForKey`, the key's bytes
//! being its UTF-8, as Kafka's `StringSerializer` writes them).

use super::words::parse_error;
use super::{Applied, Catalog, MAX_PRODUCE, ParseError, Unit, Words, known_topic};
use crate::cluster::build::new_producer;
use crate::cluster::node::NodeCore;
use crate::cluster::spec::ProducerSpec;
use crate::cluster::world::World;
use crate::config::ProducerConfig;
use crate::sim::Outbox;
use crate::sim::error::SimError;
use crate::sim::protocol::{Message, NodeId};
use std::fmt;
use std::rc::Rc;

/// `produce T N [key=K]`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Produce {
    /// Topic name.
    pub topic: String,
    /// Records, 1 to [`MAX_PRODUCE`].
    pub count: u64,
    /// The records' key (one word, not empty); `None` for keyless records.
    pub key: Option<String>,
}

impl Unit for Produce {
    const VERBS: &'static [&'static str] = &["produce"];
    const USAGE: &'static [&'static str] = &["produce T N [key=K]"];

    const ABOUT: &'static str = "Hand N records to the producer of topic T now, on top of its rate. A topic that no producer writes to gets one with `rate=0`, which sends only what `produce` hands it. A topic that does not exist is created by the broker the producer asks for its metadata while `auto.create.topics.enable` is true (the default), with `num.partitions` and `default.replication.factor`. Without a key the records are keyless and the sticky partitioner places them; with `key=K` every record has key K and goes to that key's partition.";
    const KAFKA: Option<&'static str> = Some(
        "the built-in partitioner, which sends a key to partition `toPositive(murmur2(key)) % partitions`",
    );
    const EXAMPLES: &'static [&'static str] = &["produce test_repli 100", "produce test_repli 5 key=user-1"];

    fn parse(_verb: &str, words: &mut Words<'_>) -> Result<Self, ParseError> {
        let topic = words.word("topic")?.to_string();
        let count = words.bounded("record count", 1, MAX_PRODUCE)?;
        let key = match words.next() {
            None => None,
            Some(w) => match words.key_value_of(Some(w))? {
                (k, v) if k == "key" => Some(v),
                (k, _) => {
                    return Err(parse_error(format!(
                        "unknown option `{k}`: the only one is key=K; usage: {}",
                        Self::USAGE[0]
                    )));
                }
            },
        };
        if let Some(extra) = words.next() {
            return Err(parse_error(format!("unexpected `{extra}`; usage: {}", Self::USAGE[0])));
        }
        Ok(Produce { topic, count, key })
    }

    /// A missing topic is accepted while `auto.create.topics.enable` is true: the producer's
    /// Metadata request has the broker create it (`AutoTopicCreationManager`), with
    /// `num.partitions` and `default.replication.factor`. Errors: a missing topic when it is
    /// false ([`SimError::UnknownTopic`]; Kafka's producer would wait `max.block.ms` for it),
    /// and a name Kafka refuses.
    fn validate(&self, cluster: &dyn Catalog) -> Result<(), SimError> {
        match known_topic(cluster, &self.topic) {
            Err(_) if cluster.broker_config().auto_create_topics_enable => {
                crate::sim::assignment::validate_topic_name(&self.topic)
            }
            other => other.map(|_| ()),
        }
    }

    fn apply(&self, world: &Rc<World>, out: &mut Outbox) -> Result<Applied, SimError> {
        let existing = world.producers().iter().position(|p| p.borrow().topic().as_ref() == self.topic);
        let index = match existing {
            Some(i) => i as u32,
            None => add_producer(world, &self.topic),
        };
        let now = world.now();
        let producer = world.producers()[index as usize].clone();
        let mut producer = producer.borrow_mut();
        producer.enqueue_with_key(now, self.count, self.key.as_deref());
        producer.on_tick(now, out);
        Ok(Applied::by(NodeId::Producer(index)))
    }
}

/// Starts a new producer with `rate=0` writing to `topic`; returns its index.
pub(crate) fn add_producer(world: &Rc<World>, topic: &str) -> u32 {
    let index = world.producers().len() as u32;
    // The client defaults of the cluster's Kafka version (`acks`, idempotence, `linger.ms`).
    let semantics = world.controller().borrow().broker_config().semantics;
    let config = ProducerConfig { rate: 0.0, ..ProducerConfig::defaults_for(&semantics) };
    let spec = ProducerSpec { topic: topic.to_string(), config };
    let client = new_producer(&mut world.controller().borrow_mut(), index, &spec, world.seed);
    let image = world.controller().borrow().full_image();
    let mut out = Outbox::default();
    client.borrow_mut().handle(world.now(), Message::Metadata(image), &mut out);
    world.add_node(NodeId::Producer(index), NodeCore::Producer(client));
    world.dispatch(NodeId::Producer(index), &mut out);
    index
}

impl fmt::Display for Produce {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "produce {} {}", self.topic, self.count)?;
        match &self.key {
            Some(k) => write!(f, " key={k}"),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::cluster::command::Command;

    fn parse(line: &str) -> Result<Command, String> {
        Command::parse(line).map_err(|e| e.to_string())
    }

    #[test]
    fn a_key_is_optional_and_round_trips() {
        for line in ["produce t 5", "produce orders 3 key=user-42"] {
            assert_eq!(parse(line).unwrap().to_string(), line);
        }
        match parse("produce t 2 key=k").unwrap() {
            Command::Produce(p) => assert_eq!(p.key.as_deref(), Some("k")),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn bad_keys_are_clear_errors() {
        let e = parse("produce t 2 key=").unwrap_err();
        assert!(e.contains("is not KEY=VALUE") && e.contains("produce T N [key=K]"), "{e}");
        let e = parse("produce t 2 partition=1").unwrap_err();
        assert!(e.contains("unknown option `partition`"), "{e}");
        let e = parse("produce t 2 key=a b").unwrap_err();
        assert!(e.contains("unexpected `b`"), "{e}");
    }
}
