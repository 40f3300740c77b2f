//! Carries out user commands (the palette, scenario `do` lines) on the running world. Every
//! refusal is a [`SimError`] and changes nothing.

use super::build::new_producer;
use super::handle::SimError;
use super::node::{Node, NodeCore, ProcessState};
use super::spec::ProducerSpec;
use super::world::World;
use crate::cluster::command::Command;
use crate::config::ProducerConfig;
use crate::sim::broker::Broker;
use crate::sim::events::EventKind;
use crate::sim::protocol::{Message, NodeId};
use crate::sim::{BrokerId, Outbox, join_ids};
use std::cell::RefCell;
use std::rc::Rc;
use tokio::task::LocalSet;

fn broker_node(world: &World, id: BrokerId) -> Result<(Rc<Node>, Rc<RefCell<Broker>>), SimError> {
    let node = world.node(NodeId::Broker(id));
    node.zip(world.broker(id)).ok_or_else(|| SimError::UnknownBroker(id, join_ids(&world.broker_ids())))
}

pub(super) fn apply_command(world: &Rc<World>, local: &LocalSet, cmd: &Command) -> Result<(), SimError> {
    let now = world.now();
    let mut out = Outbox::default();
    let origin = match cmd {
        Command::Crash(b) => crash(world, *b, &mut out)?,
        Command::Shutdown(b) => {
            let (node, core) = broker_node(world, *b)?;
            core.borrow_mut().begin_controlled_shutdown(now, &mut out).map_err(SimError::InvalidState)?;
            node.state.set(ProcessState::ShuttingDown);
            NodeId::Broker(*b)
        }
        Command::Restart(b) => restart(world, local, *b, &mut out)?,
        Command::PauseFetch(b) | Command::ResumeFetch(b) => {
            let paused = matches!(cmd, Command::PauseFetch(_));
            let (_, core) = broker_node(world, *b)?;
            let mut core = core.borrow_mut();
            if !core.is_up() {
                return Err(SimError::InvalidState(format!("broker {b} is not running")));
            }
            if core.fetch_paused() == paused {
                let state = if paused { "already paused" } else { "not paused" };
                return Err(SimError::InvalidState(format!("broker {b}'s fetchers are {state}")));
            }
            core.set_fetch_paused(paused, now, &mut out);
            NodeId::Broker(*b)
        }
        Command::SetBroker { key, value } => {
            world.controller().borrow_mut().set_broker_config(now, key, value, &mut out)?;
            out.emit(config_event("broker", key, value, world));
            NodeId::Controller
        }
        Command::SetTopic { topic, key, value } => {
            world.controller().borrow_mut().set_topic_config(now, topic, key, value, &mut out)?;
            out.emit(config_event(&format!("topic {topic}"), key, value, world));
            NodeId::Controller
        }
        Command::SetProducer { key, value } => set_producer(world, local, key, value, &mut out)?,
        Command::Produce { topic, count } => produce(world, local, topic, *count, &mut out)?,
        Command::CreateTopic { name, partitions, replication_factor } => {
            let spec = super::spec::TopicSpec {
                name: name.clone(),
                partitions: *partitions,
                replication_factor: *replication_factor,
                placement: Default::default(),
                config: Default::default(),
            };
            world.controller().borrow_mut().create_topic(now, &spec, &mut out)?;
            NodeId::Controller
        }
    };
    world.dispatch(origin, now, out);
    world.poke_all();
    Ok(())
}

fn crash(world: &Rc<World>, b: BrokerId, out: &mut Outbox) -> Result<NodeId, SimError> {
    let (node, core) = broker_node(world, b)?;
    if !core.borrow().is_up() {
        return Err(SimError::InvalidState(format!("broker {b} is already down")));
    }
    world.kill_task(&node, world.now());
    core.borrow_mut().crash(world.now());
    out.emit(EventKind::BrokerCrashed { broker: b });
    Ok(NodeId::Broker(b))
}

fn restart(world: &Rc<World>, local: &LocalSet, b: BrokerId, out: &mut Outbox) -> Result<NodeId, SimError> {
    let (node, core) = broker_node(world, b)?;
    if core.borrow().is_up() {
        return Err(SimError::InvalidState(format!("broker {b} is already running")));
    }
    core.borrow_mut().start(world.now(), out);
    world.start_task(local, &node);
    Ok(NodeId::Broker(b))
}

fn set_producer(
    world: &Rc<World>,
    local: &LocalSet,
    key: &str,
    value: &str,
    out: &mut Outbox,
) -> Result<NodeId, SimError> {
    let now = world.now();
    if world.producers().is_empty() {
        let topic = world.controller().borrow().topics().next().map(|t| t.name.to_string());
        let topic = topic.ok_or_else(|| SimError::InvalidState("there is no topic to produce to".into()))?;
        add_producer(world, local, &topic, ProducerConfig { rate: 0.0, ..Default::default() });
    }
    let producers = world.producers();
    let mut configs = Vec::new();
    for p in producers.iter() {
        let mut c = p.borrow().config().clone();
        c.set(key, value)?;
        c.validate()?;
        configs.push(c);
    }
    for (p, c) in producers.iter().zip(configs) {
        p.borrow_mut().set_config(now, c);
    }
    let mut p0 = producers[0].borrow_mut();
    p0.on_tick(now, out);
    out.emit(config_event("producer", key, value, world));
    Ok(NodeId::Producer(0))
}

fn add_producer(world: &Rc<World>, local: &LocalSet, topic: &str, config: ProducerConfig) -> u32 {
    let index = world.producers().len() as u32;
    let spec = ProducerSpec { topic: topic.to_string(), config };
    let client = new_producer(&mut world.controller().borrow_mut(), index, &spec, world.seed);
    let image = world.controller().borrow().full_image();
    let mut out = Outbox::default();
    client.borrow_mut().handle(world.now(), Message::Metadata(image), &mut out);
    world.add_node(local, NodeId::Producer(index), NodeCore::Producer(client));
    world.dispatch(NodeId::Producer(index), world.now(), out);
    index
}

fn produce(
    world: &Rc<World>,
    local: &LocalSet,
    topic: &str,
    count: u64,
    out: &mut Outbox,
) -> Result<NodeId, SimError> {
    if world.controller().borrow().topic(topic).is_none() {
        return Err(SimError::UnknownTopic(topic.to_string()));
    }
    let existing = world.producers().iter().position(|p| p.borrow().topic().as_ref() == topic);
    let index = match existing {
        Some(i) => i as u32,
        None => add_producer(world, local, topic, ProducerConfig { rate: 0.0, ..Default::default() }),
    };
    let now = world.now();
    let producer = world.producers()[index as usize].clone();
    producer.borrow_mut().enqueue(now, count);
    producer.borrow_mut().on_tick(now, out);
    Ok(NodeId::Producer(index))
}

fn config_event(scope: &str, key: &str, value: &str, world: &World) -> EventKind {
    let note = match key {
        "unclean.leader.election.enable" if value == "true" => format!(
            "leaderless partitions are retried at the controller's next unclean check (every {} ms, unclean.leader.election.interval.ms) or when a replica's broker is unfenced",
            world.controller().borrow().broker_config().unclean_leader_election_interval_ms
        ),
        "min.insync.replicas" => {
            "acks=all needs this many in-sync replicas, and the HW waits for them".into()
        }
        "acks" => "applies to new batches".into(),
        _ => String::new(),
    };
    EventKind::ConfigChanged {
        scope: scope.to_string(),
        name: key.to_string(),
        value: value.to_string(),
        note,
    }
}
