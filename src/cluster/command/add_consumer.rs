//! `add-consumer T[,T…] [group=G] [KEY=VALUE…]`: start a consumer of the topics, in group `G`
//! or without one (then it is assigned every partition of its topics), with consumer
//! properties such as `auto.offset.reset=earliest` or `fetch.min.bytes=1024`.

use super::{Applied, Catalog, ParseError, Unit, Words, known_topic, parse_error};
use crate::cluster::build::new_consumer;
use crate::cluster::node::NodeCore;
use crate::cluster::spec::ConsumerSpec;
use crate::cluster::world::World;
use crate::config::ConsumerConfig;
use crate::sim::Outbox;
use crate::sim::error::SimError;
use crate::sim::protocol::{Message, NodeId};
use std::fmt;
use std::rc::Rc;

/// `add-consumer T[,T…] [group=G] [KEY=VALUE…]`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct AddConsumer {
    /// Topics it reads.
    pub topics: Vec<String>,
    /// `group.id`, if any.
    pub group: Option<String>,
    /// Consumer properties as typed, in order.
    pub settings: Vec<(String, String)>,
}

impl AddConsumer {
    /// Its configuration. Errors: a bad property or combination (Kafka's `ConsumerConfig`).
    fn config(&self) -> Result<ConsumerConfig, crate::config::ConfigError> {
        let mut config = ConsumerConfig::default();
        for (k, v) in &self.settings {
            config.set(k, v)?;
        }
        config.validate(self.group.as_deref())?;
        Ok(config)
    }
}

impl Unit for AddConsumer {
    const VERBS: &'static [&'static str] = &["add-consumer"];
    const USAGE: &'static [&'static str] = &["add-consumer T[,T…] [group=G] [KEY=VALUE…]"];

    const ABOUT: &'static str = "Start a consumer of the topics T (several, comma-separated). With `group=G` it joins consumer group G, and the group's coordinator assigns it partitions; without a group it is assigned every partition of its topics. Further `KEY=VALUE` words are consumer properties, such as `auto.offset.reset=earliest` or `fetch.min.bytes=1024`; a property Kafka's consumer would refuse is refused here.";
    const KAFKA: Option<&'static str> = Some(
        "a `KafkaConsumer` that subscribes with a `group.id`, or is assigned every partition without one",
    );
    const EXAMPLES: &'static [&'static str] =
        &["add-consumer test_repli", "add-consumer test_repli group=readers auto.offset.reset=earliest"];

    fn parse(_verb: &str, words: &mut Words<'_>) -> Result<Self, ParseError> {
        let topics: Vec<String> = words.word("topic")?.split(',').map(str::to_string).collect();
        if topics.iter().any(String::is_empty) {
            return Err(parse_error(
                "empty topic name in the list; usage: add-consumer T[,T…] [group=G] [KEY=VALUE…]",
            ));
        }
        let (mut group, mut settings) = (None, Vec::new());
        while words.peek().is_some() {
            match words.key_value()? {
                (k, v) if k == "group" || k == "group.id" => group = Some(v),
                kv => settings.push(kv),
            }
        }
        let unit = AddConsumer { topics, group, settings };
        unit.config().map_err(|e| parse_error(e.to_string()))?;
        Ok(unit)
    }

    fn validate(&self, cluster: &dyn Catalog) -> Result<(), SimError> {
        self.topics.iter().try_for_each(|t| known_topic(cluster, t).map(|_| ()))
    }

    fn apply(&self, world: &Rc<World>, out: &mut Outbox) -> Result<Applied, SimError> {
        let spec =
            ConsumerSpec { group: self.group.clone(), topics: self.topics.clone(), config: self.config()? };
        let index = world.consumers().len() as u32;
        let client = new_consumer(&mut world.controller().borrow_mut(), index, &spec, world.seed);
        let image = world.controller().borrow().full_image();
        client.borrow_mut().handle(world.now(), Message::Metadata(image), out);
        world.add_node(NodeId::Consumer(index), NodeCore::Consumer(client));
        Ok(Applied::by(NodeId::Consumer(index)))
    }
}

impl fmt::Display for AddConsumer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "add-consumer {}", self.topics.join(","))?;
        if let Some(g) = &self.group {
            write!(f, " group={g}")?;
        }
        for (k, v) in &self.settings {
            write!(f, " {k}={v}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::Command;

    #[test]
    fn add_consumer_parses_its_settings_and_refuses_what_kafka_refuses() {
        let line = "add-consumer t,u group=g auto.offset.reset=earliest fetch.min.bytes=1024";
        let cmd = Command::parse(line).unwrap();
        assert_eq!(cmd.to_string(), line);
        let no_group = Command::parse("add-consumer t enable.auto.commit=true").unwrap_err();
        assert!(no_group.to_string().contains("default group id (null)"), "{no_group}");
        assert!(Command::parse("add-consumer t auto.offset.reset=smallest").is_err());
        assert!(
            Command::parse("add-consumer t acks=1").unwrap_err().to_string().contains("producer property")
        );
        assert!(Command::parse("add-consumer").is_err());
    }
}
