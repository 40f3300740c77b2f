//! The way in and out of a running simulation: [`Sim`] (synchronous, for tests and headless
//! runs) and [`LiveSim`] (a sim thread paced by the dashboard).

use super::events::EventLog;
use super::observe;
use super::snapshot::{ScenarioInfo, Snapshot};
use super::spec::{ClusterSpec, ProducerSpec};
use super::world::{BrokerNode, World};
use crate::config::{ConfigError, ProducerConfig};
use crate::scenario::command::Command;
use crate::sim::audit::Ledger;
use crate::sim::broker::Broker;
use crate::sim::controller::QuorumController;
use crate::sim::events::{ClusterEvent, EventKind};
use crate::sim::producer::ProducerClient;
use crate::sim::protocol::{Message, NodeId};
use crate::sim::{BrokerId, Ms, Outbox, join_ids};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::mpsc;
use tokio::runtime::Runtime;
use tokio::task::LocalSet;

/// Why a run could not start or a command was refused. Nothing changes when one is returned.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimError {
    /// `INVALID_REPLICATION_FACTOR` (38) with Kafka's message (R1.7).
    #[error("INVALID_REPLICATION_FACTOR: {0}")]
    InvalidReplicationFactor(String),
    /// Invalid partition count.
    #[error("INVALID_PARTITIONS: {0}")]
    InvalidPartitions(String),
    /// Invalid topic name (Kafka's `InvalidTopicException`).
    #[error("INVALID_TOPIC_EXCEPTION: {0}")]
    InvalidTopic(String),
    /// The topic already exists (`TOPIC_ALREADY_EXISTS`).
    #[error("TOPIC_ALREADY_EXISTS: Topic '{0}' already exists.")]
    TopicExists(String),
    /// No such topic (`UNKNOWN_TOPIC_OR_PARTITION`).
    #[error("UNKNOWN_TOPIC_OR_PARTITION: topic `{0}` does not exist")]
    UnknownTopic(String),
    /// No such broker.
    #[error("broker {0} does not exist (brokers: {1})")]
    UnknownBroker(BrokerId, String),
    /// The command does not fit the broker's state, e.g. restarting a running broker.
    #[error("{0}")]
    InvalidState(String),
    /// A configuration mistake.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The cluster definition itself is impossible (no brokers, duplicate ids, ...).
    #[error("invalid cluster: {0}")]
    InvalidCluster(String),
}

/// Most brokers a cluster may have (the dashboard selects brokers with one key).
pub const MAX_BROKERS: usize = 10;

/// Same-instant work allowed to settle after a time target is reached.
const SETTLE_YIELDS: usize = 16;

/// One deterministic random stream per subsystem, all derived from the master seed.
fn stream(seed: u64, subsystem: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(subsystem);
    rng
}

/// A simulation driven step by step from the calling thread. Time only moves inside
/// [`Sim::advance_to`], so between calls the cluster is frozen and can be inspected.
pub struct Sim {
    rt: Runtime,
    local: LocalSet,
    world: Rc<World>,
}

fn validate_brokers(ids: &[BrokerId]) -> Result<(), SimError> {
    if ids.is_empty() {
        return Err(SimError::InvalidCluster("a cluster needs at least one broker".into()));
    }
    if ids.len() > MAX_BROKERS {
        return Err(SimError::InvalidCluster(format!(
            "at most {MAX_BROKERS} brokers are supported, got {}",
            ids.len()
        )));
    }
    if ids.iter().any(|&b| b < 0) {
        return Err(SimError::InvalidCluster("broker ids must be 0 or more".into()));
    }
    let mut sorted = ids.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    if sorted.len() != ids.len() {
        return Err(SimError::InvalidCluster(format!("duplicate broker ids in [{}]", join_ids(ids))));
    }
    Ok(())
}

impl Sim {
    /// Builds the cluster, registers the brokers, creates the topics and starts the producers
    /// at t=0. Errors: any [`SimError`] from the spec.
    pub fn new(spec: ClusterSpec) -> Result<Sim, SimError> {
        validate_brokers(&spec.brokers)?;
        spec.broker_config.validate()?;
        for p in &spec.producers {
            p.config.validate()?;
        }
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .map_err(|e| SimError::InvalidCluster(format!("cannot start the sim runtime: {e}")))?;
        let local = LocalSet::new();
        let world = {
            let _ctx = rt.enter();
            build_world(&spec, &local)?
        };
        Ok(Sim { rt, local, world })
    }

    /// Current sim time (ms).
    pub fn now(&self) -> Ms {
        let _ctx = self.rt.enter();
        self.world.now()
    }

    /// Runs every task and timer up to sim time `t` (ms), in order, then lets work due at
    /// `t` itself settle.
    pub fn advance_to(&mut self, t: Ms) {
        let deadline = self.world.instant(t);
        self.rt.block_on(self.local.run_until(async {
            tokio::time::sleep_until(deadline).await;
            for _ in 0..SETTLE_YIELDS {
                tokio::task::yield_now().await;
            }
        }));
    }

    /// Applies a command at the current instant. Errors leave the cluster unchanged.
    pub fn apply(&mut self, cmd: &Command) -> Result<(), SimError> {
        let _ctx = self.rt.enter();
        apply_command(&self.world, &self.local, cmd)
    }

    /// The cluster as it is now.
    pub fn snapshot(&self) -> Snapshot {
        let _ctx = self.rt.enter();
        observe::snapshot(&self.world)
    }

    /// Events since the previous call, oldest first.
    pub fn drain_events(&mut self) -> Vec<ClusterEvent> {
        self.world.log.borrow_mut().drain()
    }

    /// Changes how many record copies the logs may hold before isrlab stops the producers
    /// (default [`super::world::MEMORY_BUDGET_RECORDS`]).
    pub fn set_memory_budget(&mut self, records: u64) {
        self.world.memory_budget.set(records);
    }

    /// A hash of the whole event trace so far; equal runs give equal hashes.
    pub fn trace_hash(&self) -> u64 {
        self.world.log.borrow().trace_hash()
    }
}

fn build_world(spec: &ClusterSpec, local: &LocalSet) -> Result<Rc<World>, SimError> {
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
    let image = controller.full_image();
    let brokers = spec
        .brokers
        .iter()
        .zip(&epochs)
        .map(|(&id, &epoch)| {
            let mut b = Broker::new(id, spec.broker_config.clone());
            b.start_bootstrapped(0, epoch, &image, &mut out);
            (id, BrokerNode { core: Rc::new(RefCell::new(b)), task: RefCell::new(None) })
        })
        .collect();
    for p in &producers {
        p.borrow_mut().handle(0, Message::Metadata(image.clone()), &mut out);
    }
    let world = Rc::new(World {
        start: tokio::time::Instant::now(),
        seed: spec.seed,
        net: Default::default(),
        controller: Rc::new(RefCell::new(controller)),
        brokers,
        producers: RefCell::new(producers),
        ledger: RefCell::new(Ledger::new()),
        log: RefCell::new(EventLog::default()),
        poke: Default::default(),
        memory_budget: std::cell::Cell::new(super::world::MEMORY_BUDGET_RECORDS),
    });
    world.spawn_network(local);
    world.spawn_memory_guard(local);
    world.spawn_node(local, NodeId::Controller, world.controller.clone());
    for (&id, node) in &world.brokers {
        *node.task.borrow_mut() = Some(world.spawn_node(local, NodeId::Broker(id), node.core.clone()));
    }
    for (i, p) in world.producers.borrow().iter().enumerate() {
        world.spawn_node(local, NodeId::Producer(i as u32), p.clone());
    }
    world.dispatch(NodeId::Controller, 0, out);
    Ok(world)
}

fn new_producer(
    controller: &mut QuorumController,
    index: u32,
    spec: &ProducerSpec,
    seed: u64,
) -> Rc<RefCell<ProducerClient>> {
    controller.add_client(NodeId::Producer(index));
    let producer_id = 1000 + i64::from(index);
    let client = ProducerClient::new(
        index,
        spec.topic.as_str().into(),
        spec.config.clone(),
        producer_id,
        stream(seed, 100 + u64::from(index)),
    );
    Rc::new(RefCell::new(client))
}

fn broker_node(world: &World, id: BrokerId) -> Result<&BrokerNode, SimError> {
    world.brokers.get(&id).ok_or_else(|| {
        let ids: Vec<BrokerId> = world.brokers.keys().copied().collect();
        SimError::UnknownBroker(id, join_ids(&ids))
    })
}

fn apply_command(world: &Rc<World>, local: &LocalSet, cmd: &Command) -> Result<(), SimError> {
    let now = world.now();
    let mut out = Outbox::default();
    let origin = match cmd {
        Command::Crash(b) => crash(world, *b, &mut out)?,
        Command::Shutdown(b) => {
            let node = broker_node(world, *b)?;
            node.core
                .borrow_mut()
                .begin_controlled_shutdown(now, &mut out)
                .map_err(SimError::InvalidState)?;
            NodeId::Broker(*b)
        }
        Command::Restart(b) => restart(world, local, *b, &mut out)?,
        Command::PauseFetch(b) | Command::ResumeFetch(b) => {
            let paused = matches!(cmd, Command::PauseFetch(_));
            let node = broker_node(world, *b)?;
            let mut core = node.core.borrow_mut();
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
            world.controller.borrow_mut().set_broker_config(now, key, value, &mut out)?;
            out.emit(config_event("broker", key, value, world));
            NodeId::Controller
        }
        Command::SetTopic { topic, key, value } => {
            world.controller.borrow_mut().set_topic_config(now, topic, key, value, &mut out)?;
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
            world.controller.borrow_mut().create_topic(now, &spec, &mut out)?;
            NodeId::Controller
        }
    };
    world.dispatch(origin, now, out);
    world.poke_all();
    Ok(())
}

fn crash(world: &Rc<World>, b: BrokerId, out: &mut Outbox) -> Result<NodeId, SimError> {
    let node = broker_node(world, b)?;
    if !node.core.borrow().is_up() {
        return Err(SimError::InvalidState(format!("broker {b} is already down")));
    }
    if let Some(task) = node.task.borrow_mut().take() {
        task.abort();
    }
    world.net.set_route(NodeId::Broker(b), None);
    world.net.reset_connections(world.now(), NodeId::Broker(b));
    node.core.borrow_mut().crash(world.now());
    out.emit(EventKind::BrokerCrashed { broker: b });
    Ok(NodeId::Broker(b))
}

fn restart(world: &Rc<World>, local: &LocalSet, b: BrokerId, out: &mut Outbox) -> Result<NodeId, SimError> {
    let node = broker_node(world, b)?;
    if node.core.borrow().is_up() {
        return Err(SimError::InvalidState(format!("broker {b} is already running")));
    }
    if let Some(task) = node.task.borrow_mut().take() {
        task.abort();
    }
    node.core.borrow_mut().start(world.now(), out);
    *node.task.borrow_mut() = Some(world.spawn_node(local, NodeId::Broker(b), node.core.clone()));
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
    if world.producers.borrow().is_empty() {
        let topic = world.controller.borrow().topics().next().map(|t| t.name.to_string());
        let topic = topic.ok_or_else(|| SimError::InvalidState("there is no topic to produce to".into()))?;
        add_producer(world, local, &topic, ProducerConfig { rate: 0.0, ..Default::default() });
    }
    let producers = world.producers.borrow();
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
    let index = world.producers.borrow().len() as u32;
    let spec = ProducerSpec { topic: topic.to_string(), config };
    let client = new_producer(&mut world.controller.borrow_mut(), index, &spec, world.seed);
    let image = world.controller.borrow().full_image();
    let mut out = Outbox::default();
    client.borrow_mut().handle(world.now(), Message::Metadata(image), &mut out);
    world.producers.borrow_mut().push(client.clone());
    world.spawn_node(local, NodeId::Producer(index), client);
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
    if world.controller.borrow().topic(topic).is_none() {
        return Err(SimError::UnknownTopic(topic.to_string()));
    }
    let existing = world.producers.borrow().iter().position(|p| p.borrow().topic().as_ref() == topic);
    let index = match existing {
        Some(i) => i as u32,
        None => add_producer(world, local, topic, ProducerConfig { rate: 0.0, ..Default::default() }),
    };
    let now = world.now();
    let producer = world.producers.borrow()[index as usize].clone();
    producer.borrow_mut().enqueue(now, count);
    producer.borrow_mut().on_tick(now, out);
    Ok(NodeId::Producer(index))
}

fn config_event(scope: &str, key: &str, value: &str, world: &World) -> EventKind {
    let note = match key {
        "unclean.leader.election.enable" if value == "true" => format!(
            "leaderless partitions are retried at the controller's next unclean check (every {} ms, unclean.leader.election.interval.ms) or when a replica's broker is unfenced",
            world.controller.borrow().broker_config().unclean_leader_election_interval_ms
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

/// What the dashboard thread sends the sim thread.
enum Control {
    AdvanceTo(Ms),
    Apply(Command, mpsc::Sender<Result<(), SimError>>),
}

/// A simulation on its own thread, paced from outside (the dashboard). Snapshots arrive on a
/// watch channel; commands are applied at the sim instant they arrive.
pub struct LiveSim {
    control: Option<mpsc::Sender<Control>>,
    snapshots: tokio::sync::watch::Receiver<Arc<Snapshot>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl LiveSim {
    /// Starts the sim thread. `timeline` holds commands to apply at given sim times (ms), as a
    /// scenario's `[[at]]` entries do; with `scenario`, sim time stops at its end and every
    /// snapshot names it. Errors: the spec's [`SimError`].
    pub fn spawn(
        spec: ClusterSpec,
        mut timeline: Vec<(Ms, Command)>,
        scenario: Option<ScenarioInfo>,
    ) -> Result<LiveSim, SimError> {
        let (control_tx, control_rx) = mpsc::channel();
        let (ready_tx, ready_rx) = mpsc::channel();
        let (snap_tx, snap_rx) = tokio::sync::watch::channel(Arc::new(Snapshot::default()));
        timeline.sort_by_key(|(t, _)| *t);
        let thread = std::thread::Builder::new()
            .name("isrlab-sim".into())
            .spawn(move || {
                let mut sim = match Sim::new(spec) {
                    Ok(sim) => sim,
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                let publish = |sim: &Sim| Arc::new(Snapshot { scenario: scenario.clone(), ..sim.snapshot() });
                let _ = snap_tx.send(publish(&sim));
                let _ = ready_tx.send(Ok(()));
                let end = scenario.as_ref().map(|s| s.end);
                pace(&mut sim, control_rx, timeline, end, |sim| {
                    let _ = snap_tx.send(publish(sim));
                });
            })
            .map_err(|e| SimError::InvalidCluster(format!("cannot start the sim thread: {e}")))?;
        match ready_rx.recv() {
            Ok(Ok(())) => Ok(LiveSim { control: Some(control_tx), snapshots: snap_rx, thread: Some(thread) }),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(SimError::InvalidCluster("the sim thread stopped during start-up".into())),
        }
    }

    fn send(&self, c: Control) {
        if let Some(tx) = &self.control {
            let _ = tx.send(c);
        }
    }

    /// Lets sim time run up to `t` (ms). Returns at once.
    pub fn advance_to(&self, t: Ms) {
        self.send(Control::AdvanceTo(t));
    }

    /// Applies a command at the sim's current instant and waits for the verdict; by then
    /// [`LiveSim::latest`] already shows its effect.
    pub fn apply(&self, cmd: Command) -> Result<(), SimError> {
        let (tx, rx) = mpsc::channel();
        self.send(Control::Apply(cmd, tx));
        rx.recv().unwrap_or_else(|_| Err(SimError::InvalidState("the simulation has stopped".into())))
    }

    /// The newest snapshot.
    pub fn latest(&self) -> Arc<Snapshot> {
        self.snapshots.borrow().clone()
    }

    /// A receiver that wakes on every new snapshot.
    pub fn watch(&self) -> tokio::sync::watch::Receiver<Arc<Snapshot>> {
        self.snapshots.clone()
    }
}

impl Drop for LiveSim {
    fn drop(&mut self) {
        self.control = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The sim thread's loop: wait (the clock is frozen meanwhile), advance (never past `end`),
/// apply, publish.
fn pace(
    sim: &mut Sim,
    control: mpsc::Receiver<Control>,
    timeline: Vec<(Ms, Command)>,
    end: Option<Ms>,
    publish: impl Fn(&Sim),
) {
    let mut timeline = timeline.into_iter().peekable();
    while let Ok(first) = control.recv() {
        let mut target = None;
        for c in std::iter::once(first).chain(control.try_iter()) {
            match c {
                Control::AdvanceTo(t) => target = Some(target.map_or(t, |x: Ms| x.max(t))),
                Control::Apply(cmd, reply) => {
                    // Publish before answering, so the caller sees the command's effect at once.
                    let result = sim.apply(&cmd);
                    publish(sim);
                    let _ = reply.send(result);
                }
            }
        }
        if let Some(t) = target.map(|t| end.map_or(t, |e| t.min(e))) {
            while let Some((at, _)) = timeline.peek()
                && *at <= t
            {
                let (at, cmd) = timeline.next().expect("peeked");
                sim.advance_to(at.max(sim.now()));
                // A refused scheduled command is visible in the event log of a headless run;
                // interactively the user sees the state it left.
                let _ = sim.apply(&cmd);
            }
            if t > sim.now() {
                sim.advance_to(t);
            }
        }
        publish(sim);
    }
}
