//! `freeze N [MS]` / `thaw N`: pause a process, as a long garbage-collection pause or a
//! stopped VM does, and let it run again. A frozen process sends no heartbeats, reads and
//! answers nothing, and its timers do not fire; what is sent to it waits in its socket. When
//! it thaws it reads that, in order, and its overdue timers fire: it finds time has moved on.
//! A consumer (`freeze consumer-C`) frozen past its `session.timeout.ms` is removed from its
//! group by the coordinator; when it thaws, its heartbeat gets `UNKNOWN_MEMBER_ID` and it joins
//! again. A leader frozen past `broker.session.timeout.ms` is fenced and replaced (R6.1) but still
//! believes it leads until it reads the metadata that says otherwise (a zombie leader).

use super::{Applied, Catalog, ParseError, Unit, Words, running_broker};
use crate::cluster::world::World;
use crate::sim::error::SimError;
use crate::sim::events::EventKind;
use crate::sim::protocol::NodeId;
use crate::sim::{Ms, Outbox};
use std::fmt;
use std::rc::Rc;

/// Longest `freeze N MS` (ms): one day.
pub const MAX_FREEZE_MS: Ms = 86_400_000;

/// `freeze N [MS]` (`freeze`) or `thaw N`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Freeze {
    /// The process: a broker or the controller.
    pub node: NodeId,
    /// Freeze (`true`) or thaw.
    pub freeze: bool,
    /// With `freeze`, it thaws by itself after this long (ms).
    pub thaw_after: Option<Ms>,
}

/// A broker or the controller as the messages name it.
fn name(node: NodeId) -> String {
    match node {
        NodeId::Broker(b) => format!("broker {b}"),
        NodeId::Consumer(c) => format!("consumer-{c}"),
        NodeId::Controller(c) => format!("controller {c}"),
        _ => "the controller".into(),
    }
}

impl Unit for Freeze {
    const VERBS: &'static [&'static str] = &["freeze", "thaw"];
    const USAGE: &'static [&'static str] = &["freeze N [MS]", "thaw N"];

    const ABOUT: &'static str = "Pause process N (a broker id, `controller` or `consumer-C`), as a long garbage-collection pause or a stopped virtual machine does; with MS it thaws by itself after MS ms. A frozen process sends no heartbeats, answers nothing and its timers do not fire; what is sent to it waits. When it thaws it reads what waited, its overdue timers fire, and it finds that time has moved on: a leader frozen past `broker.session.timeout.ms` has been replaced but still believes it leads until it reads the news (a zombie leader).";
    const KAFKA: Option<&'static str> = Some(
        "a JVM stopped by a long GC pause; the controller fences a broker past `broker.session.timeout.ms`, a group coordinator removes a consumer past `session.timeout.ms`",
    );
    const EXAMPLES: &'static [&'static str] = &["freeze 1", "freeze controller 12000", "thaw 1"];

    fn parse(verb: &str, words: &mut Words<'_>) -> Result<Self, ParseError> {
        let freeze = verb == "freeze";
        words.usage(if freeze { Self::USAGE[0] } else { Self::USAGE[1] });
        let node = words.node()?;
        let thaw_after = match words.peek() {
            Some(_) if freeze => Some(words.bounded("freeze duration (ms)", 1, MAX_FREEZE_MS)?),
            _ => None,
        };
        Ok(Freeze { node, freeze, thaw_after })
    }

    fn validate(&self, cluster: &dyn Catalog) -> Result<(), SimError> {
        let frozen = match self.node {
            NodeId::Broker(b) => running_broker(cluster, b)?.map(|s| s.frozen),
            // A consumer's state is checked when the command applies.
            NodeId::Consumer(_) | NodeId::Controller(_) => None,
            _ => cluster.controller_frozen(),
        };
        match frozen {
            Some(true) if self.freeze => {
                Err(SimError::InvalidState(format!("{} is already frozen", name(self.node))))
            }
            Some(false) if !self.freeze => {
                Err(SimError::InvalidState(format!("{} is not frozen", name(self.node))))
            }
            _ => Ok(()),
        }
    }

    fn apply(&self, world: &Rc<World>, out: &mut Outbox) -> Result<Applied, SimError> {
        let target = super::crash::controller_target(world, self.node)?;
        let node =
            world.node(target).ok_or_else(|| SimError::InvalidState(format!("no {}", name(self.node))))?;
        match (self.freeze, node.frozen.get().is_some()) {
            (true, true) => {
                return Err(SimError::InvalidState(format!("{} is already frozen", name(self.node))));
            }
            (false, false) => {
                return Err(SimError::InvalidState(format!("{} is not frozen", name(self.node))));
            }
            _ => {}
        }
        if self.freeze {
            world.freeze(&node, world.now(), self.thaw_after);
            out.emit(EventKind::ProcessFrozen { node: target, thaw_after: self.thaw_after });
        } else {
            world.thaw(&node, world.now());
        }
        Ok(Applied::by(target))
    }
}

impl fmt::Display for Freeze {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verb = if self.freeze { "freeze" } else { "thaw" };
        let node = match self.node {
            NodeId::Broker(b) => b.to_string(),
            NodeId::Consumer(c) => format!("consumer-{c}"),
            NodeId::Controller(c) => c.to_string(),
            _ => "controller".into(),
        };
        write!(f, "{verb} {node}")?;
        match self.thaw_after {
            Some(ms) => write!(f, " {ms}"),
            None => Ok(()),
        }
    }
}
