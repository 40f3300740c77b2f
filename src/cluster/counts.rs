//! What a snapshot counts of a run's outcome: the producers' counters (the Java producer's
//! `record-send-total`, `record-error-total`, `SenderMetricsRegistry`) and the audit
//! ledger's counts ([`crate::sim::audit::Ledger`]). One piece of code for `isrlab compare`
//! and the dashboard's what-if, so both count alike.

use super::snapshot::Snapshot;
use std::collections::BTreeMap;

/// What one snapshot tells of a run's outcome so far: the producers' counters and the audit
/// ledger's counts (the [`Outcome`] fields that need no tracking over time). `isrlab compare`
/// ([`crate::compare::measure`]) reads them at a run's end, the dashboard's what-if at every snapshot of both runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Records acknowledged to the producers.
    pub acknowledged: u64,
    /// Records that failed for good (`record-error-total`).
    pub failed: u64,
    /// Records not acknowledged and not failed yet.
    pub pending: u64,
    /// Error responses to produce requests, every Kafka error code together.
    pub error_responses: u64,
    /// The same by Kafka error code.
    pub errors: BTreeMap<String, u64>,
    /// Acknowledged records lost (audit ledger).
    pub acked_lost: u64,
    /// `acks=0` records appended and gone since.
    pub unacked_lost: u64,
    /// Acknowledged records in the log twice.
    pub duplicates: u64,
    /// Records consumers read that were erased afterwards; `None` without consumers.
    pub seen_erased: Option<u64>,
}

/// The [`Counts`] of `snap`: its producers' counters summed, and its audit ledger's counts.
pub fn counts(snap: &Snapshot) -> Counts {
    let producers = &snap.producers;
    Counts {
        acknowledged: producers.iter().map(|p| p.acked).sum(),
        failed: producers.iter().map(|p| p.failed).sum(),
        pending: producers.iter().map(|p| p.pending).sum(),
        error_responses: producers.iter().flat_map(|p| p.errors.values()).sum(),
        errors: producers.iter().flat_map(|p| p.errors.iter()).fold(BTreeMap::new(), |mut all, (code, n)| {
            *all.entry(code.clone()).or_insert(0) += n;
            all
        }),
        acked_lost: snap.acked_lost,
        unacked_lost: snap.unacked_lost,
        duplicates: snap.duplicates,
        seen_erased: (!snap.consumers.is_empty()).then_some(snap.seen_erased),
    }
}
