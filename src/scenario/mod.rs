//! Scenario files (TOML): a cluster, a timeline of commands and expectations. The same file
//! runs interactively, as a guided lesson and headless in CI.

pub mod command;
pub mod duration;
pub mod error;
pub mod expect;
