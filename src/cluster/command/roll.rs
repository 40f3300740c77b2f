//! `roll` / `roll --no-wait`: a rolling restart, one broker at a time in id order, as an
//! operator applies a static config change: a controlled shutdown (R6.6), wait for the process
//! to exit, start it again (it reads `server.properties`, so static configs take effect).
//!
//! `roll` waits before the next broker until the restarted one is unfenced and back in the ISR
//! of every partition it replicates, which keeps `acks=all` with `min.insync.replicas=2`
//! producing through the whole roll on RF 3. `roll --no-wait` moves on as soon as the process
//! runs again: the next shutdown can then take the last caught-up follower out of an ISR,
//! the classic too-fast rolling restart (NOT_ENOUGH_REPLICAS, offline partitions).

use super::{Applied, Catalog, ParseError, Unit, Words, broker_node, parse_error};
use super::{restart, shutdown};
use crate::cluster::agenda::{Due, Service};
use crate::cluster::node::ProcessState;
use crate::cluster::world::World;
use crate::sim::error::SimError;
use crate::sim::events::{EventKind, RollStep};
use crate::sim::protocol::NodeId;
use crate::sim::{BrokerId, Ms, Outbox, SimTime, join_ids};
use std::fmt;
use std::rc::Rc;

/// How often (ms of sim time) the roll looks whether it may go on.
pub const ROLL_POLL_MS: Ms = 100;

/// `roll` (`wait`) or `roll --no-wait`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Roll {
    /// Wait for each restarted broker to be back in every ISR before the next.
    pub wait: bool,
}

impl Unit for Roll {
    const VERBS: &'static [&'static str] = &["roll"];
    const USAGE: &'static [&'static str] = &["roll [--no-wait]"];

    const ABOUT: &'static str = "A rolling restart, one broker at a time in id order, as an operator applies a static config change: a controlled shutdown, then a start, which reads the static properties. `roll` waits before the next broker until the restarted one is unfenced and back in the ISR of every partition it replicates, so `acks=all` with `min.insync.replicas=2` keeps producing through the roll on replication factor 3. `roll --no-wait` moves on as soon as the process runs again: the classic too-fast rolling restart, with `NOT_ENOUGH_REPLICAS` and offline partitions.";
    const KAFKA: Option<&'static str> =
        Some("an operator's rolling restart after editing `server.properties`");
    const EXAMPLES: &'static [&'static str] = &["roll", "roll --no-wait"];

    fn parse(_verb: &str, words: &mut Words<'_>) -> Result<Self, ParseError> {
        match words.next() {
            None => Ok(Roll { wait: true }),
            Some("--no-wait") => Ok(Roll { wait: false }),
            Some(other) => Err(parse_error(format!("unknown option `{other}`; usage: {}", Self::USAGE[0]))),
        }
    }

    fn validate(&self, cluster: &dyn Catalog) -> Result<(), SimError> {
        if cluster.roll_running() == Some(true) {
            return Err(SimError::InvalidState("a roll is already under way".into()));
        }
        if cluster.controller_frozen() == Some(true) {
            return Err(SimError::InvalidState(
                "the controller is frozen: no controlled shutdown can complete (thaw controller first)"
                    .into(),
            ));
        }
        for b in cluster.broker_ids() {
            let Some(state) = cluster.broker_state(b) else { continue };
            let why = if !state.running {
                Some(format!("broker {b} is not running (restart {b} first)"))
            } else if state.shutting_down {
                Some(format!(
                    "broker {b} is in controlled shutdown (wait until it has stopped, then restart it)"
                ))
            } else if state.frozen {
                Some(format!("broker {b} is frozen (thaw {b} first)"))
            } else {
                None
            };
            if let Some(why) = why {
                return Err(SimError::InvalidState(format!(
                    "{why}: a rolling restart starts from a cluster whose brokers all run"
                )));
            }
        }
        Ok(())
    }

    fn apply(&self, world: &Rc<World>, out: &mut Outbox) -> Result<Applied, SimError> {
        let order = world.broker_ids();
        world.rolling.set(true);
        out.emit(EventKind::Roll(RollStep::Started { order: order.clone(), wait: self.wait }));
        let rolling = Rolling {
            order: order.clone(),
            next: 0,
            wait: self.wait,
            phase: Phase::Stopping { asked: false },
        };
        *world.roll.borrow_mut() = Some(rolling);
        // Its first step runs at this instant, after the command's own effects.
        world.schedule(world.now_us(), Due::Service(Service::Roll));
        let note =
            format!("restarting brokers {} one at a time; the events show each step", join_ids(&order));
        Ok(Applied { origin: NodeId::ActiveController, note: Some(note) })
    }
}

/// Where a roll stands: the brokers in order, the next one, and what it waits for. Kept in
/// the world (not in a task), so a fork of the world carries the roll on.
#[derive(Clone, Debug)]
pub(crate) struct Rolling {
    order: Vec<BrokerId>,
    next: usize,
    wait: bool,
    phase: Phase,
}

/// What the roll waits for with its current broker.
#[derive(Clone, Copy, Debug)]
enum Phase {
    /// Its process to be down (a controlled shutdown asked for once it accepted).
    Stopping { asked: bool },
    /// It to be unfenced and back in the ISR of every partition it replicates (`roll`).
    CatchingUp,
}

/// The roll's step on sim time (its agenda entry came): goes as far as it can now, then looks
/// again [`ROLL_POLL_MS`] later, until it is done or abandoned.
pub(crate) fn step(world: &Rc<World>) {
    let Some(mut rolling) = world.roll.borrow_mut().take() else { return };
    if advance(world, &mut rolling) {
        let next = SimTime::from_ms(world.now() + ROLL_POLL_MS);
        *world.roll.borrow_mut() = Some(rolling);
        world.schedule(next, Due::Service(Service::Roll));
    } else {
        world.rolling.set(false);
    }
}

/// Moves the roll on as far as it can at this instant; `true` while it goes on. For each
/// broker: ask it for a controlled shutdown (again each look while it refuses, e.g. before it
/// registered), wait until its process is down, start it again, and with `roll` wait until it
/// is back in every ISR; an `Abandoned` event names a broker whose process goes down or
/// freezes first.
fn advance(world: &Rc<World>, rolling: &mut Rolling) -> bool {
    loop {
        let Some(&b) = rolling.order.get(rolling.next) else {
            emit(world, RollStep::Done);
            return false;
        };
        match rolling.phase {
            Phase::Stopping { asked } => {
                let state = broker_node(world, b).map(|(node, _)| node.state.get());
                match state {
                    Ok(ProcessState::Running) if !asked => {
                        let mut out = Outbox::default();
                        let asked = shutdown::begin(world, b, &mut out).is_ok();
                        if asked {
                            out.emit(EventKind::Roll(RollStep::Stopping(b)));
                        }
                        world.dispatch(NodeId::Broker(b), &mut out);
                        world.rearm_all();
                        rolling.phase = Phase::Stopping { asked };
                        return true;
                    }
                    Ok(ProcessState::Running | ProcessState::ShuttingDown) => return true,
                    _ => {
                        let mut out = Outbox::default();
                        restart::start(world, b, &mut out);
                        out.emit(EventKind::Roll(RollStep::Restarted(b)));
                        world.dispatch(NodeId::Broker(b), &mut out);
                        world.rearm_all();
                        if rolling.wait {
                            rolling.phase = Phase::CatchingUp;
                        } else {
                            rolling.next += 1;
                            rolling.phase = Phase::Stopping { asked: false };
                        }
                    }
                }
            }
            Phase::CatchingUp => {
                // Another broker going down while we wait would make the next step an outage,
                // as an operator's roll script stops too: give up and say which broker.
                if let Some(down) = world.broker_ids().into_iter().find(|id| !is_running(world, *id)) {
                    emit(world, RollStep::Abandoned(down));
                    return false;
                }
                let caught_up = world.with_image(|image| {
                    let active = image.broker(b).is_some_and(|r| !r.fenced && !r.in_controlled_shutdown);
                    active
                        && image.partitions().filter(|p| p.replicas.contains(&b)).all(|p| p.isr.contains(&b))
                });
                if !caught_up {
                    return true;
                }
                emit(world, RollStep::BackInIsrs(b));
                rolling.next += 1;
                rolling.phase = Phase::Stopping { asked: false };
            }
        }
    }
}

fn emit(world: &World, step: RollStep) {
    let mut out = Outbox::default();
    out.emit(EventKind::Roll(step));
    world.dispatch(NodeId::ActiveController, &mut out);
}

fn is_running(world: &Rc<World>, b: BrokerId) -> bool {
    broker_node(world, b).is_ok_and(|(node, _)| node.state.get().is_running() && node.frozen.get().is_none())
}

impl fmt::Display for Roll {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.wait { write!(f, "roll") } else { write!(f, "roll --no-wait") }
    }
}
