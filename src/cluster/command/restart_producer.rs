//! `restart-producer P`: producer P's application restarts without calling `close()` (a
//! crash, a redeploy, `kill -9`), and a new `KafkaProducer` starts with the same config. The
//! new instance sends `InitProducerId` with no `transactional.id`, and gets a new producer id
//! with epoch 0 (`TransactionCoordinator.handleInitProducerId` takes it from
//! `ProducerIdManager.generateProducerId`; isrlab serves it from the controller's allocation,
//! [`crate::sim::controller::QuorumController::allocate_producer_id`]); its
//! `TransactionManager` starts every sequence at 0. The records the old instance held, unsent
//! or unanswered, are abandoned: their callbacks never fire, so they are never acknowledged
//! ([`crate::sim::producer::ProducerClient::restart`]).

use super::{Applied, Catalog, ParseError, Unit, Words, known_producer, no_such_producer};
use crate::cluster::world::World;
use crate::sim::Outbox;
use crate::sim::error::SimError;
use crate::sim::protocol::NodeId;
use std::fmt;
use std::rc::Rc;

/// `restart-producer P`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct RestartProducer {
    /// The producer's index (from 0, in the order they were added).
    pub index: u32,
}

impl Unit for RestartProducer {
    const VERBS: &'static [&'static str] = &["restart-producer"];
    const USAGE: &'static [&'static str] = &["restart-producer P"];

    const ABOUT: &'static str = "Producer P's application restarts without calling `close()` (a crash, a redeploy): a new producer starts with the same config and gets a new producer id, its sequences starting again at 0. The records the old instance had not sent, or had no answer for, are abandoned: they are never acknowledged.";
    const KAFKA: Option<&'static str> = Some(
        "a new `KafkaProducer`, whose `InitProducerId` without a `transactional.id` gets a new producer id with epoch 0",
    );
    const EXAMPLES: &'static [&'static str] = &["restart-producer 0"];

    fn parse(_verb: &str, words: &mut Words<'_>) -> Result<Self, ParseError> {
        Ok(RestartProducer { index: words.number("producer index")? })
    }

    /// Errors: no producer has that index (the message names those that exist).
    fn validate(&self, cluster: &dyn Catalog) -> Result<(), SimError> {
        known_producer(cluster, self.index).map(|_| ())
    }

    fn apply(&self, world: &Rc<World>, out: &mut Outbox) -> Result<Applied, SimError> {
        let producers = world.producers();
        let producer = producers
            .get(self.index as usize)
            .ok_or_else(|| no_such_producer(self.index, producers.len()))?;
        let producer_id = world.controller().borrow_mut().allocate_producer_id();
        let now = world.now();
        let mut producer = producer.borrow_mut();
        producer.restart(now, producer_id, out);
        // The new instance sends what is due at once (its rate goes on).
        producer.on_tick(now, out);
        Ok(Applied::by(NodeId::Producer(self.index)))
    }
}

impl fmt::Display for RestartProducer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "restart-producer {}", self.index)
    }
}

#[cfg(test)]
mod tests {
    use super::super::Command;

    #[test]
    fn restart_producer_parses_an_index() {
        assert_eq!(Command::parse("restart-producer 1").unwrap().to_string(), "restart-producer 1");
        let missing = Command::parse("restart-producer").unwrap_err().message;
        assert_eq!(missing, "missing producer index; usage: restart-producer P");
        let bad = Command::parse("restart-producer one").unwrap_err().message;
        assert_eq!(bad, "`one` is not a valid producer index; usage: restart-producer P");
        assert!(Command::parse("restart-producer 1 2").unwrap_err().message.contains("unexpected `2`"));
    }
}
