//! `produce T N`: hand N records to the producer of topic T now, on top of its rate. A topic
//! no producer writes to gets one with `rate=0`, so it sends only what `produce` hands it.

use super::{Applied, Catalog, MAX_PRODUCE, ParseError, Unit, Words, known_topic};
use crate::cluster::build::new_producer;
use crate::cluster::node::NodeCore;
use crate::cluster::spec::ProducerSpec;
use crate::cluster::world::Spawner;
use crate::cluster::world::World;
use crate::config::ProducerConfig;
use crate::sim::Outbox;
use crate::sim::error::SimError;
use crate::sim::protocol::{Message, NodeId};
use std::fmt;
use std::rc::Rc;

/// `produce T N`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Produce {
    /// Topic name.
    pub topic: String,
    /// Records, 1 to [`MAX_PRODUCE`].
    pub count: u64,
}

impl Unit for Produce {
    const VERBS: &'static [&'static str] = &["produce"];
    const USAGE: &'static [&'static str] = &["produce T N"];

    fn parse(_verb: &str, words: &mut Words<'_>) -> Result<Self, ParseError> {
        let topic = words.word("topic")?.to_string();
        let count = words.bounded("record count", 1, MAX_PRODUCE)?;
        Ok(Produce { topic, count })
    }

    fn validate(&self, cluster: &dyn Catalog) -> Result<(), SimError> {
        known_topic(cluster, &self.topic).map(|_| ())
    }

    fn apply(&self, world: &Rc<World>, spawner: Spawner<'_>, out: &mut Outbox) -> Result<Applied, SimError> {
        let existing = world.producers().iter().position(|p| p.borrow().topic().as_ref() == self.topic);
        let index = match existing {
            Some(i) => i as u32,
            None => add_producer(world, spawner, &self.topic),
        };
        let now = world.now();
        let producer = world.producers()[index as usize].clone();
        let mut producer = producer.borrow_mut();
        producer.enqueue(now, self.count);
        producer.on_tick(now, out);
        Ok(Applied::by(NodeId::Producer(index)))
    }
}

/// Starts a new producer with `rate=0` writing to `topic`; returns its index.
pub(crate) fn add_producer(world: &Rc<World>, spawner: Spawner<'_>, topic: &str) -> u32 {
    let index = world.producers().len() as u32;
    let config = ProducerConfig { rate: 0.0, ..Default::default() };
    let spec = ProducerSpec { topic: topic.to_string(), config };
    let client = new_producer(&mut world.controller().borrow_mut(), index, &spec, world.seed);
    let image = world.controller().borrow().full_image();
    let mut out = Outbox::default();
    client.borrow_mut().handle(world.now(), Message::Metadata(image), &mut out);
    world.add_node(spawner, NodeId::Producer(index), NodeCore::Producer(client));
    world.dispatch(NodeId::Producer(index), &mut out);
    index
}

impl fmt::Display for Produce {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "produce {} {}", self.topic, self.count)
    }
}
