//! The keys for big clusters: the partition table's filters (`U` unhealthy only, `i` internal
//! topics, `B` the selected broker's partitions, `F` the typed filter) and broker selection
//! beyond the digits (`←`/`→` step through the brokers, `b` takes a typed id). The typed lines
//! use the Events pane's prompt ([`super::event_keys::on_prompt`]).

use super::cluster_keys::select_broker;
use super::{Effect, Model, StatusKind};
use crate::cluster::snapshot::Snapshot;
use crate::sim::BrokerId;
use crate::sim::events::group;
use crate::ui::filter_names;
use crate::ui::filter_names::broker_ids;
use crate::ui::partition_filter::PartitionFilter;

/// `U`: only the partitions whose state is not `ok`, or every partition again.
pub(super) fn toggle_unhealthy(model: &mut Model, snap: &Snapshot) -> Vec<Effect> {
    model.table_filter.unhealthy = !model.table_filter.unhealthy;
    say_shown(model, snap);
    Vec::new()
}

/// `i`: shows or hides the internal topics.
pub(super) fn toggle_internal(model: &mut Model, snap: &Snapshot) -> Vec<Effect> {
    model.table_filter.internal = !model.table_filter.internal;
    say_shown(model, snap);
    Vec::new()
}

/// `B`: only the partitions with a replica on the selected broker; again, every partition.
pub(super) fn toggle_selected_broker(model: &mut Model, snap: &Snapshot) -> Vec<Effect> {
    let Some(id) = model.selected_broker else {
        return model.refuse(format!("select a broker first: {}", broker_ids(snap)));
    };
    model.table_filter.broker = if model.table_filter.broker == Some(id) { None } else { Some(id) };
    say_shown(model, snap);
    Vec::new()
}

/// `←` / `→`: the broker before / after the selected one in id order, wrapping around (the
/// first or last one when none is selected).
pub(super) fn step_broker(model: &mut Model, snap: &Snapshot, forward: bool) -> Vec<Effect> {
    let ids: Vec<BrokerId> = snap.brokers.iter().map(|b| b.id).collect();
    let Some((&first, &last)) = ids.first().zip(ids.last()) else {
        return model.refuse("the cluster has no brokers");
    };
    let at = model.selected_broker.and_then(|id| ids.iter().position(|b| *b == id));
    model.selected_broker = Some(match (at, forward) {
        (None, true) => first,
        (None, false) => last,
        (Some(i), true) => ids[(i + 1) % ids.len()],
        (Some(i), false) => ids[(i + ids.len() - 1) % ids.len()],
    });
    Vec::new()
}

/// The `F` prompt's line: the typed filter replaces the old one; a bad one, or one naming a
/// broker or topic the cluster lacks (a typo would show an empty table), is explained under
/// the line and changes nothing.
pub(super) fn filter(model: &mut Model, line: &str, snap: &Snapshot) -> Result<(), String> {
    let filter = PartitionFilter::parse(line, model.table_filter.internal)?;
    if let Some(id) = filter.broker {
        filter_names::broker(snap, id)?;
    }
    if let Some(topic) = filter.topic.as_deref() {
        filter_names::topic(snap, topic)?;
    }
    model.table_filter = filter;
    say_shown(model, snap);
    Ok(())
}

/// The `b` prompt's line: selects that broker; an id the cluster lacks is explained under
/// the line.
pub(super) fn pick_broker(model: &mut Model, line: &str, snap: &Snapshot) -> Result<(), String> {
    let id = line.trim().parse::<BrokerId>().map_err(|_| format!("`{line}` is not a broker id"))?;
    filter_names::broker(snap, id)?;
    select_broker(model, id, snap);
    Ok(())
}

/// Says what the table shows now: `table: unhealthy · 12 of 5 000 partitions · U: all`.
fn say_shown(model: &mut Model, snap: &Snapshot) {
    model.table_rows.refresh(snap, &model.table_filter);
    let text = shown_text(model, snap);
    model.say(StatusKind::Info, text);
}

fn shown_text(model: &Model, snap: &Snapshot) -> String {
    let shown = model.shown(snap);
    let filter = &model.table_filter;
    let total = shown.total as u64;
    let noun = crate::ui::text::noun(total, "partition", "partitions");
    let count = format!("{} of {} {noun}", group(shown.rows.len() as u64), group(total));
    if filter.narrows() {
        format!("table: {} · {count} · F edits", filter.describe())
    } else if filter.internal {
        format!("table: every partition, internal topics too · {count}")
    } else {
        format!("table: every partition but the internal topics · {count}")
    }
}
