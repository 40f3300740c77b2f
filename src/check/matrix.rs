//! The safety matrix: the durability settings `isrlab check --matrix` measures, one row each,
//! as data. A row is `--set` values and whether power loss is in the fault mix. Rows for
//! Eligible Leader Replicas (KIP-966) and for the semantics profiles of older Kafka versions
//! are added here when the simulation has them.

use super::schedule::FaultKind;
use crate::cli::Setting;

/// One row of the matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Row {
    /// `acks` of every producer: `"1"` or `"all"`.
    pub acks: &'static str,
    /// `min.insync.replicas`.
    pub min_isr: u32,
    /// `unclean.leader.election.enable`.
    pub unclean: bool,
    /// Whether power loss is in the fault mix.
    pub power_loss: bool,
    /// `flush.messages=1`, set as the broker default `log.flush.interval.messages=1` (else
    /// Kafka's default, never forced).
    pub flush_each: bool,
}

/// The rows, in the order the manual lists them: `flush.messages` varies only where power
/// loss is in the mix (a crash keeps the page cache, so it changes nothing else).
pub fn rows() -> Vec<Row> {
    let mut rows = Vec::new();
    for acks in ["all", "1"] {
        for min_isr in [2, 1] {
            for unclean in [false, true] {
                for (power_loss, flush_each) in [(false, false), (true, false), (true, true)] {
                    rows.push(Row { acks, min_isr, unclean, power_loss, flush_each });
                }
            }
        }
    }
    rows
}

impl Row {
    /// Its `--set` values.
    pub fn sets(&self) -> Vec<Setting> {
        let mut sets = vec![
            Setting { key: "acks".into(), value: self.acks.into() },
            Setting { key: "min.insync.replicas".into(), value: self.min_isr.to_string() },
            Setting { key: "unclean.leader.election.enable".into(), value: self.unclean.to_string() },
        ];
        if self.acks != "all" {
            // An idempotent producer needs acks=all (KIP-679); the row's producers are plain.
            sets.push(Setting { key: "enable.idempotence".into(), value: "false".into() });
        }
        if self.flush_each {
            sets.push(Setting { key: "log.flush.interval.messages".into(), value: "1".into() });
        }
        sets
    }

    /// Its fault kinds.
    pub fn faults(&self) -> Vec<FaultKind> {
        if self.power_loss { FaultKind::ALL.to_vec() } else { FaultKind::default_mix() }
    }

    /// The `isrlab check` flags that run it.
    pub fn flags(&self) -> String {
        let sets: Vec<String> = self.sets().iter().map(|s| format!("--set {}={}", s.key, s.value)).collect();
        let faults = if self.power_loss { " --faults all" } else { "" };
        format!("{}{faults}", sets.join(" "))
    }

    /// A short label: `acks=all minISR=2 unclean=off power-loss flush=1`.
    pub fn label(&self) -> String {
        format!(
            "acks={} min.isr={} unclean={} {}{}",
            self.acks,
            self.min_isr,
            if self.unclean { "on" } else { "off" },
            if self.power_loss { "power-loss" } else { "no-power-loss" },
            if self.flush_each { " flush=1" } else { "" }
        )
    }
}
