//! The toy world the runtime benchmarks share: four nodes passing messages at jittered
//! instants (50–250 µs apart) through the simulation's own agenda, each message handled by the
//! same tiny handler (it counts, and says to whom the next message goes, after how long,
//! carrying what). Run three ways: [`baseline`] (a plain loop calling the handlers, no
//! agenda), [`direct`] (the agenda and the direct driver) and [`tasks`] (the agenda and the
//! tasks driver). The simulation's benchmarks print their cost per agenda entry next to
//! [`direct`]'s, measured in the same process, so the ratio holds on a noisy machine.

use super::Clock;
use criterion::measurement::Measurement;
use isrlab::cluster::agenda::Agenda;
use isrlab::cluster::driver::{Stepper, Tasks, run_direct};
use isrlab::sim::SimTime;
use isrlab::sim::protocol::NodeId;
use std::cell::{Cell, RefCell};
use std::hint::black_box;
use std::rc::Rc;
use std::time::Duration;

const NODES: usize = 4;

/// A toy node's state.
#[derive(Default)]
struct ToyNode {
    received: u64,
    sum: u64,
}

/// The handler: a node reads message `v`; the next message goes to the node, after the delay
/// (µs), carrying the value returned.
fn handle(node: &mut ToyNode, v: u64) -> (usize, u64, u64) {
    node.received += 1;
    node.sum = node.sum.wrapping_add(v);
    let next = v.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
    ((next >> 62) as usize % NODES, 50 + (next >> 40) % 200, next)
}

/// The toy world: its clock, the simulation's agenda type, four nodes.
struct Toy {
    clock: Cell<SimTime>,
    agenda: RefCell<Agenda<(usize, u64)>>,
    nodes: Vec<RefCell<ToyNode>>,
}

impl Toy {
    /// Four nodes, each with one message on its way.
    fn new() -> Rc<Toy> {
        let toy = Toy {
            clock: Cell::new(SimTime::ZERO),
            agenda: RefCell::new(Agenda::default()),
            nodes: (0..NODES).map(|_| RefCell::new(ToyNode::default())).collect(),
        };
        for n in 0..NODES {
            toy.agenda.borrow_mut().schedule(SimTime::from_micros(n as u64), (n, n as u64 + 1));
        }
        Rc::new(toy)
    }

    fn received(&self) -> u64 {
        self.nodes.iter().map(|n| n.borrow().received).sum()
    }
}

impl Stepper for Toy {
    type Wake = u64;

    fn next_work(self: &Rc<Self>, until: SimTime, _stop: &dyn Fn(&Self) -> bool) -> Option<(NodeId, u64)> {
        let entry = self.agenda.borrow_mut().pop_due(until)?;
        self.clock.set(entry.at);
        Some((NodeId::Broker(entry.what.0 as i32), entry.what.1))
    }

    fn step(&self, node: NodeId, v: u64) {
        let NodeId::Broker(i) = node else { return };
        let (to, delay, next) = handle(&mut self.nodes[i as usize].borrow_mut(), v);
        self.agenda.borrow_mut().schedule(self.clock.get().plus_micros(delay), (to, next));
    }
}

/// The plain loop (returns the messages delivered): the same handlers on four chains of messages, round robin.
pub fn baseline(messages: u64) -> u64 {
    let mut nodes: Vec<ToyNode> = (0..NODES).map(|_| ToyNode::default()).collect();
    let mut chains: [(usize, u64); NODES] = std::array::from_fn(|n| (n, n as u64 + 1));
    for i in 0..messages {
        let slot = (i % NODES as u64) as usize;
        let (node, v) = chains[slot];
        let (to, delay, next) = handle(&mut nodes[node], v);
        black_box(delay);
        chains[slot] = (to, next);
    }
    nodes.iter().map(|n| n.received).sum()
}

/// The sim time by which about `messages` have been delivered: four chains, one message every
/// 150 µs on average in each (the count delivered is what the figures divide by).
fn until_for(messages: u64) -> SimTime {
    SimTime::from_micros(messages * 150 / NODES as u64)
}

/// The agenda and the direct driver (returns the messages delivered).
pub fn direct(messages: u64) -> u64 {
    let toy = Toy::new();
    run_direct(&toy, until_for(messages), &|_| false);
    toy.received()
}

/// The agenda and the tasks driver (returns the messages delivered).
pub fn tasks(messages: u64) -> u64 {
    let toy = Toy::new();
    let driver: Tasks<Toy> = Tasks::new().expect("a tokio runtime");
    for n in 0..NODES {
        driver.start(&toy, NodeId::Broker(n as i32));
    }
    driver.run(&toy, until_for(messages), &|_| false);
    toy.received()
}

/// ns per delivered message of `run`, the best of three runs.
pub fn ns_per_message(clock: Clock, messages: u64, run: fn(u64) -> u64) -> f64 {
    (0..3)
        .map(|_| {
            let start = clock.start();
            let delivered = black_box(run(messages));
            let took: Duration = clock.end(start);
            assert!(delivered > messages / 2, "the run delivered {delivered} messages");
            took.as_nanos() as f64 / delivered as f64
        })
        .fold(f64::INFINITY, f64::min)
}
