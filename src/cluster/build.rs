//! Builds a running world from a [`ClusterSpec`]: the controller node with its registered
//! brokers and topics, the broker nodes started at t=0, the producer and consumer nodes, and the services on the agenda.

use super::events::EventLog;
use super::handle::SimError;
use super::net::Network;
use super::node::NodeCore;
use super::spec::{ClusterSpec, ConsumerSpec, ProducerSpec};
use super::world::{MEMORY_BUDGET_BYTES, World};
use crate::sim::audit::Ledger;
use crate::sim::broker::Broker;
use crate::sim::consumer::ConsumerClient;
use crate::sim::controller::QuorumController;
use crate::sim::group::assignor::Assignor;
use crate::sim::group::member::{GroupMember, MemberConfig};
use crate::sim::group::membership::GroupMembership;
use crate::sim::producer::ProducerClient;
use crate::sim::protocol::{Message, NodeId};
use crate::sim::quorum::ControllerNode;
use crate::sim::raft::{QuorumConfig, RaftState};
use crate::sim::{CONTROLLER_ID, Outbox};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::cell::RefCell;
use std::rc::Rc;

/// One deterministic random stream per subsystem, all derived from the master seed.
fn stream(seed: u64, subsystem: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(subsystem);
    rng
}

pub(super) fn build_world(spec: &ClusterSpec) -> Result<Rc<World>, SimError> {
    let mut out = Outbox::default();
    let mut controller =
        QuorumController::new(spec.broker_config.clone(), &spec.brokers, stream(spec.seed, 1));
    let epochs: Vec<i64> = spec.brokers.iter().map(|&b| controller.bootstrap_broker(b, 0)).collect();
    for t in &spec.topics {
        controller.create_topic(0, t, &mut out)?;
    }
    let mut producers = Vec::new();
    for (i, p) in spec.producers.iter().enumerate() {
        if controller.topic(&p.topic).is_none() {
            return Err(SimError::UnknownTopic(p.topic.clone()));
        }
        producers.push(new_producer(&mut controller, i as u32, p, spec.seed));
    }
    let mut consumers = Vec::new();
    for (i, c) in spec.consumers.iter().enumerate() {
        if let Some(t) = c.topics.iter().find(|t| controller.topic(t).is_none()) {
            return Err(SimError::UnknownTopic(t.clone()));
        }
        consumers.push(new_consumer(&mut controller, i as u32, c, spec.seed));
    }
    // The metadata log at start holds the quorum's first leader-change record (offset 1).
    let image = crate::sim::protocol::MetadataDelta { offset: 1, ..controller.full_image() };
    let book = crate::sim::group::book::OffsetsBook::default();
    let brokers: Vec<Broker> = spec
        .brokers
        .iter()
        .zip(&epochs)
        .map(|(&id, &epoch)| {
            let mut b = Broker::new(id, spec.broker_config.clone());
            b.set_offsets_book(book.clone());
            b.start_bootstrapped(0, epoch, &image, &mut out);
            b
        })
        .collect();
    for p in &producers {
        p.borrow_mut().handle(0, Message::Metadata(image.clone()), &mut out);
    }

    let world = Rc::new(World {
        clock: Default::default(),
        agenda: Default::default(),
        entries_taken: Default::default(),
        seed: spec.seed,
        offsets_book: book,
        net: Network::new(spec.seed, spec.net.links),
        handling: std::cell::Cell::new(spec.net.brokers),
        nodes: Default::default(),
        ledger: RefCell::new(Ledger::new()),
        log: RefCell::new(EventLog::default()),
        memory_budget: std::cell::Cell::new(MEMORY_BUDGET_BYTES),
        server_properties: RefCell::new(spec.broker_config.clone()),
        restart_pending: Default::default(),
        rolling: Default::default(),
        truncations: Default::default(),
        elections: Default::default(),
        history: Default::default(),
        roll: Default::default(),
        plant_swap: Default::default(),
        held_back: Default::default(),
    });
    world.schedule_services();
    let voters: Vec<i32> = (0..spec.controllers.max(1) as i32).map(|i| CONTROLLER_ID + i).collect();
    for &id in &voters {
        // Each voter draws its election timeouts from its own stream.
        let rng = stream(spec.seed, 20_000 + u64::from(id as u32));
        let mut node = ControllerNode::new(
            RaftState::new(id, &voters, QuorumConfig::default(), rng),
            controller.clone(),
        );
        node.bootstrap(0, CONTROLLER_ID);
        world.add_node(NodeId::Controller(id), NodeCore::Controller(Rc::new(RefCell::new(node))));
    }
    for b in brokers {
        world.add_node(NodeId::Broker(b.id()), NodeCore::Broker(Rc::new(RefCell::new(b))));
    }
    for (i, p) in producers.into_iter().enumerate() {
        world.add_node(NodeId::Producer(i as u32), NodeCore::Producer(p));
    }
    world.dispatch(NodeId::Controller(CONTROLLER_ID), &mut out);
    for (i, c) in consumers.into_iter().enumerate() {
        let id = NodeId::Consumer(i as u32);
        // Its first metadata, and the connections it opens on it, are its own sends.
        c.borrow_mut().handle(0, Message::Metadata(image.clone()), &mut out);
        world.add_node(id, NodeCore::Consumer(c));
        world.dispatch(id, &mut out);
    }
    Ok(world)
}

/// A consumer client for `spec` at `index`, registered with the controller for metadata
/// pushes. Its random stream is its own (reconnect jitter).
pub(crate) fn new_consumer(
    controller: &mut QuorumController,
    index: u32,
    spec: &ConsumerSpec,
    seed: u64,
) -> Rc<RefCell<ConsumerClient>> {
    controller.add_client(NodeId::Consumer(index));
    let topics = spec.topics.iter().map(|t| t.as_str().into()).collect();
    let mut client =
        ConsumerClient::new(index, topics, spec.config.clone(), stream(seed, 10_000 + u64::from(index)));
    if let Some(group) = &spec.group {
        let member = GroupMember::new(member_config(index, group, spec), 0);
        client = client.with_membership(Box::new(GroupMembership::new(member)));
    }
    Rc::new(RefCell::new(client))
}

/// The group settings of consumer `index` in `group`. Its `client.id` is `consumer-<index>`,
/// the name the commands, events and panes give it, as if the application had set
/// `client.id`: Kafka's default, `consumer-<group>-<n>` from a per-process sequence, would
/// give the same consumer a second name. The member id the coordinator hands out starts with
/// it (`GroupMetadataManager.generateMemberId`: client id, `-`, a unique suffix).
fn member_config(index: u32, group: &str, spec: &ConsumerSpec) -> MemberConfig {
    let c = &spec.config;
    let topics = spec.topics.iter().map(|t| t.as_str().into()).collect();
    let mut m = MemberConfig::new(group, &format!("consumer-{index}"), topics);
    m.assignors = c.partition_assignment_strategy.split(',').filter_map(Assignor::from_name).collect();
    m.session_timeout_ms = c.session_timeout_ms;
    m.heartbeat_interval_ms = c.heartbeat_interval_ms;
    m.max_poll_interval_ms = c.max_poll_interval_ms;
    m.enable_auto_commit = c.auto_commit_in_effect(Some(group));
    // The consumer runs the auto-commit timer and hands its positions to the membership.
    m.auto_commit_timer = false;
    m.auto_commit_interval_ms = c.auto_commit_interval_ms;
    m.retry_backoff_ms = c.retry_backoff_ms;
    m.request_timeout_ms = c.request_timeout_ms;
    m
}

pub(crate) fn new_producer(
    controller: &mut QuorumController,
    index: u32,
    spec: &ProducerSpec,
    seed: u64,
) -> Rc<RefCell<ProducerClient>> {
    controller.add_client(NodeId::Producer(index));
    // The producer's first InitProducerId, answered from the cluster's allocation.
    let producer_id = controller.allocate_producer_id();
    let client = ProducerClient::new(
        index,
        spec.topic.as_str().into(),
        spec.config.clone(),
        producer_id,
        stream(seed, 100 + u64::from(index)),
    );
    Rc::new(RefCell::new(client))
}
