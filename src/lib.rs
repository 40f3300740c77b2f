//! isrlab: a simulated multi-broker Apache Kafka cluster with a live terminal dashboard of its
//! replication (leaders, ISR, LEO, HW, lag), built to behave exactly like real Kafka.

#![warn(missing_docs)]

pub mod check;
pub mod cli;
pub mod cluster;
pub mod compare;
pub mod config;
pub mod describe;
pub mod docs;
pub mod export;
pub mod kafka;
pub mod launch;
pub mod logging;
pub mod scenario;
pub mod sim;
pub mod suggest;
pub mod ui;
pub mod user_config;
pub mod wire;
