//! The ratatui dashboard: model, update, view over [`crate::cluster::snapshot::Snapshot`]s.

pub mod app;
pub mod brokers;
pub mod clients;
pub mod detail;
pub mod events;
pub mod fixture;
pub mod footer;
pub mod header;
pub mod help;
pub mod keymap;
pub mod pacer;
pub mod palette;
pub mod partitions;
pub mod text;
pub mod theme;
pub mod view;

#[cfg(test)]
mod tests;

use crate::cluster::handle::LiveSim;

/// Opens the dashboard on a running simulation and returns when the user quits. `speed` is
/// the initial sim speed (sim ms per wall ms, 0.1 to 100). The terminal is restored on quit,
/// on Ctrl-C and on a panic.
pub fn run_dashboard(live: LiveSim, speed: f64) -> color_eyre::Result<()> {
    let _ = (live, speed);
    unimplemented!("dashboard not written yet")
}
