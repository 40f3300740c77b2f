//! The runtime around the sans-IO core: brokers, the controller and producers as tokio tasks
//! on a paused (virtual) clock, the simulated network, the event bus and the audit ledger.
//! The outside world drives it through [`handle::Sim`] and reads [`snapshot::Snapshot`]s.

pub mod handle;
pub mod net;
pub mod snapshot;
pub mod spec;
