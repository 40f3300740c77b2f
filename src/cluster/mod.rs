//! The runtime around the sans-IO core: the sim's own clock and agenda, one step for every
//! node (brokers, the controller, producers, consumers), the two drivers of that step (a
//! plain loop, or one tokio task per node), the simulated network, the event log and the
//! audit ledger.
//! The outside world drives it through [`handle::Sim`] / [`handle::LiveSim`] and reads
//! [`snapshot::Snapshot`]s.

#[doc(hidden)]
pub mod agenda;
mod build;
pub mod command;
pub mod consistency;
pub mod counts;
pub mod driver;
pub mod events;
pub mod handle;
pub mod history;
pub mod link;
pub mod net;
pub mod node;
mod observe;
pub mod snapshot;
pub mod tape;
mod truncations;
#[doc(hidden)]
pub mod wake;
pub use crate::sim::spec;
mod wire_nodes;
pub mod world;
