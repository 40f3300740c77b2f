//! The latest truncations of each partition's replicas, as the dashboard shows them (struck
//! out for [`TRUNCATION_SHOWN_MS`]): filled from the sans-IO cores' [`Truncation`]s at
//! dispatch, with the acknowledged count the audit ledger gives, and read by the snapshot in
//! one ordered pass.

use super::snapshot::{TRUNCATION_SHOWN_MS, TruncationView};
use crate::sim::audit::Ledger;
use crate::sim::{Ms, TopicPartition, Truncation};
use std::collections::BTreeMap;

/// At most this many truncations are kept per partition (one per replica of an RF-3
/// partition and a spare); older ones have long left the screen.
const KEPT: usize = 4;

/// Recent truncations by partition, oldest first in each.
#[derive(Clone, Default)]
pub(crate) struct Truncations {
    by_partition: BTreeMap<TopicPartition, Vec<TruncationView>>,
}

impl Truncations {
    /// Notes `t`, which happened at `now`, counting its acknowledged records in `ledger`.
    pub fn record(&mut self, now: Ms, t: &Truncation, ledger: &Ledger) {
        let (acknowledged, acknowledged_span) = ledger.acknowledged_among(&t.tp, t.from, &t.removed);
        let view = TruncationView {
            replica: t.broker,
            from: t.from,
            count: t.count,
            acknowledged,
            acknowledged_span,
            at: now,
        };
        let kept = self.by_partition.entry(t.tp.clone()).or_default();
        kept.retain(|k| now.saturating_sub(k.at) < TRUNCATION_SHOWN_MS);
        if kept.len() == KEPT {
            kept.remove(0);
        }
        kept.push(view);
    }

    /// Every partition's kept truncations, in (topic, partition) order; callers drop those
    /// older than [`TRUNCATION_SHOWN_MS`] (see [`shown`]).
    pub fn by_partition(&self) -> impl Iterator<Item = (&TopicPartition, &[TruncationView])> {
        self.by_partition.iter().map(|(tp, v)| (tp, v.as_slice()))
    }
}

/// The truncations of `kept` still shown at `now`.
pub(crate) fn shown(kept: &[TruncationView], now: Ms) -> impl Iterator<Item = &TruncationView> {
    kept.iter().filter(move |t| now.saturating_sub(t.at) < TRUNCATION_SHOWN_MS)
}
