//! `close-consumer consumer-C` (or `close-consumer C`): consumer `C` closes, as `KafkaConsumer.close()` does: with a group and
//! auto-commit it commits its positions, gives its partitions up and sends LeaveGroup, so the
//! group rebalances at once instead of after `session.timeout.ms`. It reads nothing more.

use super::{Applied, Catalog, ParseError, Unit, Words};
use crate::cluster::world::World;
use crate::sim::Outbox;
use crate::sim::error::SimError;
use crate::sim::protocol::NodeId;
use std::fmt;
use std::rc::Rc;

/// `close-consumer consumer-C`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct CloseConsumer {
    /// The consumer's index (from 0, in the order they were added).
    pub index: u32,
}

impl Unit for CloseConsumer {
    const VERBS: &'static [&'static str] = &["close-consumer"];
    const USAGE: &'static [&'static str] = &["close-consumer consumer-C"];

    /// `consumer-C`, the consumer's one name, or its bare index `C`.
    const ABOUT: &'static str = "Consumer C closes. In a group with auto-commit it commits its positions first, then gives its partitions up and leaves the group, so the group rebalances at once instead of after `session.timeout.ms`. The bare index works too: `close-consumer 0` is `close-consumer consumer-0`.";
    const KAFKA: Option<&'static str> = Some("`KafkaConsumer.close()`, a last commit and then `LeaveGroup`");
    const EXAMPLES: &'static [&'static str] = &["close-consumer consumer-0"];

    fn parse(_verb: &str, words: &mut Words<'_>) -> Result<Self, ParseError> {
        words.usage(Self::USAGE[0]);
        let w = words.word("consumer, e.g. consumer-0")?;
        let index = w.strip_prefix("consumer-").unwrap_or(w).parse().map_err(|_| {
            super::words::parse_error(format!(
                "`{w}` is not a consumer such as consumer-0; usage: {}",
                Self::USAGE[0]
            ))
        })?;
        Ok(CloseConsumer { index })
    }

    fn validate(&self, _cluster: &dyn Catalog) -> Result<(), SimError> {
        Ok(())
    }

    /// Errors (nothing changes): no such consumer, or it is closed already.
    fn apply(&self, world: &Rc<World>, out: &mut Outbox) -> Result<Applied, SimError> {
        let consumers = world.consumers();
        let Some(c) = consumers.get(self.index as usize) else {
            let n = consumers.len();
            return Err(SimError::InvalidState(format!(
                "there is no consumer-{}: {n} consumer(s), numbered from consumer-0",
                self.index
            )));
        };
        let mut c = c.borrow_mut();
        if c.is_closed() {
            return Err(SimError::InvalidState(format!("consumer-{} is closed already", self.index)));
        }
        c.close(world.now(), out);
        Ok(Applied::by(NodeId::Consumer(self.index)))
    }
}

impl fmt::Display for CloseConsumer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "close-consumer consumer-{}", self.index)
    }
}

#[cfg(test)]
mod tests {
    use super::super::Command;

    #[test]
    fn close_consumer_takes_the_consumers_name_or_index() {
        assert_eq!(Command::parse("close-consumer 1").unwrap().to_string(), "close-consumer consumer-1");
        assert_eq!(
            Command::parse("close-consumer consumer-1").unwrap().to_string(),
            "close-consumer consumer-1"
        );
        assert!(Command::parse("close-consumer").is_err());
        assert!(Command::parse("close-consumer x").unwrap_err().to_string().contains("consumer-0"));
        assert!(Command::parse("close-consumer consumer-x").is_err());
    }
}
