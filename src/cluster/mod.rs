//! The runtime around the sans-IO core: brokers, the controller and producers as tokio tasks
//! on a paused (virtual) clock, the simulated network, the event log and the audit ledger.
//! The outside world drives it through [`handle::Sim`] / [`handle::LiveSim`] and reads
//! [`snapshot::Snapshot`]s.

mod build;
pub mod command;
pub mod events;
pub mod handle;
pub mod history;
pub mod link;
pub mod net;
pub mod node;
mod observe;
pub mod snapshot;
mod truncations;
mod wake;
pub use crate::sim::spec;
pub mod world;
