//! `cut A B`, `cut-oneway A B`, `heal A B`: a network partition between two nodes (a broker
//! or the controller), in both directions or one.
//!
//! A cut drops every message on the link, also those already on their way. Kafka's TCP
//! connection then carries nothing: the sender's request never gets an answer and the
//! client's timeout fails it (`replica.socket.timeout.ms` for a follower's fetch,
//! `request.timeout.ms` for a producer, `broker.session.timeout.ms` for the controller that
//! stops hearing heartbeats); a new connection cannot be set up while the cut lasts
//! (`socket.connection.setup.timeout.ms`). `heal` puts the link back to normal in both
//! directions: it lifts cuts, holds (sending what waited), delays and loss.

use super::links::{End, change, change_both, check_ends, event};
use super::{Applied, Catalog, ParseError, Unit, Words};
use crate::cluster::link::LinkFaults;
use crate::cluster::world::World;
use crate::sim::Outbox;
use crate::sim::error::SimError;
use crate::sim::protocol::NodeId;
use std::fmt;
use std::rc::Rc;

/// What a [`Cut`] does to the link.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CutKind {
    /// `cut A B`: both directions.
    Both,
    /// `cut-oneway A B`: A's messages to B are dropped; B's to A still arrive.
    OneWay,
    /// `heal A B`: both directions back to normal.
    Heal,
}

/// `cut A B`, `cut-oneway A B` or `heal A B`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Cut {
    /// What to do.
    pub kind: CutKind,
    /// One end (the sender for `cut-oneway`).
    pub a: NodeId,
    /// The other end.
    pub b: NodeId,
}

impl Unit for Cut {
    const VERBS: &'static [&'static str] = &["cut", "cut-oneway", "heal"];
    const USAGE: &'static [&'static str] = &["cut A B", "cut-oneway A B", "heal A B"];

    const ABOUT: &'static str = "A network partition between nodes A and B (a broker id or `controller`). `cut A B` drops every message between them both ways, including those already on their way; `cut-oneway A B` drops only A's messages to B; `heal A B` puts the link back to normal both ways, lifting cuts, holds, delays and loss. A request over a cut link gets no answer, so the sender's own timeout fails it.";
    const KAFKA: Option<&'static str> = Some(
        "a TCP connection that carries nothing; `replica.socket.timeout.ms` fails a follower's fetch, `request.timeout.ms` a producer's request, `broker.session.timeout.ms` fences a broker the controller no longer hears",
    );
    const EXAMPLES: &'static [&'static str] =
        &["cut 1 controller", "cut-oneway controller 2", "heal 1 controller"];

    fn parse(verb: &str, words: &mut Words<'_>) -> Result<Self, ParseError> {
        let (kind, usage) = match verb {
            "cut" => (CutKind::Both, Self::USAGE[0]),
            "cut-oneway" => (CutKind::OneWay, Self::USAGE[1]),
            // `isolate B` has no one-end undo; say what does.
            _ => (CutKind::Heal, "heal A B (to undo `isolate B`, or every fault at once: heal-all)"),
        };
        words.usage(usage);
        Ok(Cut { kind, a: words.node()?, b: words.node()? })
    }

    fn validate(&self, cluster: &dyn Catalog) -> Result<(), SimError> {
        check_ends(cluster, self.a, self.b)
    }

    fn apply(&self, world: &Rc<World>, out: &mut Outbox) -> Result<Applied, SimError> {
        match self.kind {
            CutKind::Both => change_both(world, self.a, self.b, |f| f.cut = true),
            CutKind::OneWay => change(world, self.a, self.b, |f| f.cut = true),
            CutKind::Heal => change_both(world, self.a, self.b, |f| *f = LinkFaults::default()),
        }
        out.emit(event(self));
        Ok(Applied::by(self.a))
    }
}

impl fmt::Display for Cut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verb = match self.kind {
            CutKind::Both => "cut",
            CutKind::OneWay => "cut-oneway",
            CutKind::Heal => "heal",
        };
        write!(f, "{verb} {} {}", End(self.a), End(self.b))
    }
}
