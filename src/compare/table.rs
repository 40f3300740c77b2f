//! The comparison table: a column per run, availability rows above durability rows, each row
//! named in Kafka's words (the metric or error it corresponds to in parentheses).

use super::Run;
use super::measure::Outcome;
use crate::cluster::command::Command;
use crate::cluster::command::set::Set;
use crate::scenario::Scenario;
use crate::sim::format_instant;

/// One row: its heading and how to read its cell from an outcome.
struct Row {
    heading: &'static str,
    cell: fn(&Outcome) -> String,
}

/// Partition-µs as partition-seconds with one decimal.
fn partition_seconds(us: u64) -> String {
    if us == 0 { "0".into() } else { format!("{:.1} s", us as f64 / 1e6) }
}

const AVAILABILITY: &[Row] = &[
    Row { heading: "records acknowledged", cell: |o| o.acknowledged.to_string() },
    Row { heading: "records failed (record-error-total)", cell: |o| o.failed.to_string() },
    Row { heading: "records still unacknowledged at the end", cell: |o| o.pending.to_string() },
    Row { heading: "produce error responses (all error codes)", cell: |o| o.error_responses.to_string() },
    Row {
        heading: "offline partitions × time (OfflinePartitionsCount)",
        cell: |o| partition_seconds(o.offline_us),
    },
    Row {
        heading: "led by a stopped broker, not yet fenced × time",
        cell: |o| partition_seconds(o.leader_down_us),
    },
    Row {
        heading: "under min ISR × time (UnderMinIsrPartitionCount)",
        cell: |o| partition_seconds(o.under_min_isr_us),
    },
    Row {
        heading: "produce latency p50 (ms)",
        cell: |o| o.latency.map_or_else(|| "–".into(), |l| l.p50_ms.to_string()),
    },
    Row {
        heading: "produce latency p99, worst second (ms)",
        cell: |o| o.latency.map_or_else(|| "–".into(), |l| l.p99_ms.to_string()),
    },
];

const DURABILITY: &[Row] = &[
    Row { heading: "acknowledged records lost", cell: |o| o.acked_lost.to_string() },
    Row { heading: "acks=0 records lost (never acknowledged)", cell: |o| o.unacked_lost.to_string() },
    Row { heading: "acknowledged records written twice (duplicates)", cell: |o| o.duplicates.to_string() },
    Row { heading: "diverged records truncated by followers", cell: |o| o.diverged.to_string() },
    Row {
        heading: "records consumers read, then lost",
        cell: |o| o.seen_erased.map_or_else(|| "no consumer".into(), |n| n.to_string()),
    },
];

/// The table of `outcomes`, one per run of `runs` in the same order, for `scenario`: two
/// title lines naming the scenario, its seed and end, the table, what the latency rows mean,
/// each run's produce errors by Kafka error code, a note for every `[[at]]` step that sets a
/// varied property itself, and for each run the `[[at]]` commands it refused.
pub fn table(scenario: &Scenario, runs: &[Run], outcomes: &[Outcome]) -> String {
    let mut out = format!(
        "compare \"{}\"\nseed {} · 0 to {} · the same seed and [[at]] steps in every run\n\n",
        scenario.name,
        scenario.spec.seed,
        format_instant(scenario.end)
    );
    let width =
        AVAILABILITY.iter().chain(DURABILITY).map(|r| r.heading.chars().count()).max().unwrap_or(0) + 2;
    let cells = |row: &Row| outcomes.iter().map(|o| (row.cell)(o)).collect::<Vec<_>>();
    let columns: Vec<usize> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let widest =
                AVAILABILITY.iter().chain(DURABILITY).map(|row| (row.cell)(&outcomes[i]).chars().count());
            widest.chain([r.label.chars().count()]).max().unwrap_or(0)
        })
        .collect();
    let line = |heading: &str, values: &[String]| {
        let mut l = format!("{heading:<width$}");
        for (v, w) in values.iter().zip(&columns) {
            l.push_str(&format!("  {v:>w$}"));
        }
        l.trim_end().to_string() + "\n"
    };
    out.push_str(&line("", &runs.iter().map(|r| r.label.clone()).collect::<Vec<_>>()));
    for (section, rows) in [("availability", AVAILABILITY), ("durability", DURABILITY)] {
        out.push_str(section);
        out.push('\n');
        for row in rows {
            out.push_str(&line(&format!("  {}", row.heading), &cells(row)));
        }
    }
    out.push_str(
        "\nlatency: from send() to the acknowledgement, as kafka-producer-perf-test.sh counts it per sim second; p50 is the median of the seconds' p50 weighted by their records, p99 the worst second's p99; records still unacknowledged have none yet\n",
    );
    for (run, outcome) in runs.iter().zip(outcomes).filter(|(_, o)| !o.errors.is_empty()) {
        let codes: Vec<String> = outcome.errors.iter().map(|(code, n)| format!("{code} {n}")).collect();
        out.push_str(&format!("produce errors, {}: {}\n", run.label, codes.join(", ")));
    }
    let varied: Vec<&str> = runs.iter().flat_map(|r| r.settings.iter().map(|s| s.key.as_str())).collect();
    for action in &scenario.timeline {
        let Some(Command::Set(set)) = &action.command else { continue };
        if let Some(key) = varied.iter().find(|k| set_key(set) == **k) {
            out.push_str(&format!(
                "note: the [[at]] step at {} (`{}`) sets {key} in every run from then on\n",
                format_instant(action.at),
                set
            ));
        }
    }
    for (run, outcome) in runs.iter().zip(outcomes) {
        for r in &outcome.refused {
            out.push_str(&format!("{}: {r}\n", run.label));
        }
    }
    out
}

/// The property a `set` command sets.
fn set_key(set: &Set) -> &str {
    match set {
        Set::Cluster { key, .. }
        | Set::Topic { key, .. }
        | Set::Producer { key, .. }
        | Set::Broker { key, .. }
        | Set::Link { key, .. } => key,
    }
}
