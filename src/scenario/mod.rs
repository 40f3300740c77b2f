//! Scenario files (TOML): a cluster, a timeline of commands and expectations. The same file
//! runs interactively, as a guided lesson and headless in CI.

pub mod ask;
pub mod checks;
pub mod compare;
mod consumer_table;
pub use crate::cluster::command;
pub mod duration;
pub mod error;
pub mod expect;
mod expect_consumer;
mod expect_file;
mod expect_group;
pub mod focus;
pub mod format;
pub mod history;
pub mod lessons;
pub mod markup;
pub mod recording;
pub mod report;
pub mod runner;
#[cfg(test)]
mod v2_tests;

pub use ask::{Choice, Question, QuestionOutcome, SimAnswer};
pub use error::LoadError;
pub use focus::{Focus, Pane};
pub use format::{Action, Scenario, load, load_as, parse, parse_as};
