//! The keys that change the cluster: the selected broker's crash, shutdown, restart and fetch
//! pause, the selected producer's acks and rate, the selected topic's `min.insync.replicas`
//! and unclean election, the cluster's `replica.lag.time.max.ms`. Each becomes the command the
//! palette would run ([`Effect::Apply`]), so the cluster checks it and the event log records it
//! as if it were typed; a key with nothing to act on is refused in words.

use super::{Effect, LAG_STEPS, Model, RATE_STEPS, StatusKind};
use crate::cluster::command::Command;
use crate::cluster::command::fetch::Fetch;
use crate::cluster::command::set::Set;
use crate::cluster::snapshot::Snapshot;
use crate::sim::{Acks, BrokerId};
use crate::ui::filter_names::{self, broker_ids};

/// Selects broker `id`. An id the cluster lacks is refused and the selection stays
/// (a mistyped digit should not lose the broker the user picked); the refusal names the
/// broker still selected, so the next `x` hits no broker the user does not expect.
pub(super) fn select_broker(model: &mut Model, id: BrokerId, snap: &Snapshot) -> Vec<Effect> {
    match filter_names::broker(snap, id) {
        Ok(()) => {
            model.selected_broker = Some(id);
            Vec::new()
        }
        Err(why) => match model.selected_broker {
            Some(kept) => model.refuse(format!("{why}; broker {kept} stays selected")),
            None => model.refuse(why),
        },
    }
}

/// The command `make` builds for the selected broker, or a refusal when none is selected.
pub(super) fn on_selected(model: &mut Model, snap: &Snapshot, make: fn(BrokerId) -> Command) -> Vec<Effect> {
    match model.selected_broker {
        Some(id) => vec![Effect::Apply(make(id))],
        None if snap.brokers.is_empty() => model.refuse("the cluster has no brokers"),
        None => model.refuse(format!("select a broker first: {}", broker_ids(snap))),
    }
}

pub(super) fn toggle_fetch(model: &mut Model, snap: &Snapshot) -> Vec<Effect> {
    let Some(id) = model.selected_broker else {
        return on_selected(model, snap, |broker| Fetch { broker, paused: true }.into());
    };
    let paused = snap.brokers.iter().find(|b| b.id == id).is_some_and(|b| b.fetch_paused);
    vec![Effect::Apply(Fetch { broker: id, paused: !paused }.into())]
}

/// `set producer P KEY=VALUE` for the marked producer; with one producer or none, `set
/// producer KEY=VALUE` (which adds one when there is none).
fn set_producer(model: &Model, snap: &Snapshot, key: &str, value: impl ToString) -> Vec<Effect> {
    let set = match model.marked_producer(snap) {
        Some(p) => Set::producer_at(p, key, value),
        None => Set::producer(key, value),
    };
    vec![Effect::Apply(set.into())]
}

pub(super) fn cycle_acks(model: &Model, snap: &Snapshot) -> Vec<Effect> {
    let acks = model.producer(snap).map_or(Acks::default(), |p| p.config.acks);
    set_producer(model, snap, "acks", acks.cycle())
}

/// Selects the next producer, after the last the first again.
pub(super) fn next_producer(model: &mut Model, snap: &Snapshot) -> Vec<Effect> {
    let n = snap.producers.len();
    if n < 2 {
        let text = match n {
            0 => "there is no producer yet (`:produce T N` adds one)",
            _ => "producer 0 is the only producer",
        };
        model.say(StatusKind::Info, text);
        return Vec::new();
    }
    let current = model.producer(snap).map_or(0, |p| p.index as usize);
    let next = &snap.producers[(current + 1) % n];
    model.selected_producer = next.index;
    let text =
        format!("producer {} → {} selected: a and -/+ act on it ({} producers)", next.index, next.topic, n);
    model.say(StatusKind::Info, text);
    Vec::new()
}

pub(super) fn change_min_isr(model: &mut Model, delta: i64, snap: &Snapshot) -> Vec<Effect> {
    let Some(topic) = model.topic(snap) else {
        return model.refuse("no partition selected: min.insync.replicas is set per topic");
    };
    let current = topic.effective_min_isr as i64;
    let rf = topic.replication_factor.max(1) as i64;
    let wanted = current + delta;
    if wanted < 1 {
        return model.refuse("min.insync.replicas is already 1, its smallest value");
    }
    if wanted > rf {
        let text = format!(
            "min.insync.replicas={current} already equals the replication factor; \
             larger values are capped to {rf} (Kafka 3.7+)"
        );
        return model.refuse(text);
    }
    vec![Effect::Apply(Set::topic(&topic.name, "min.insync.replicas", wanted).into())]
}

pub(super) fn toggle_unclean(model: &mut Model, snap: &Snapshot) -> Vec<Effect> {
    let Some(topic) = model.topic(snap) else {
        return model.refuse("no partition selected: unclean.leader.election.enable is set per topic");
    };
    let value = !topic.unclean_leader_election_enable;
    vec![Effect::Apply(Set::topic(&topic.name, "unclean.leader.election.enable", value).into())]
}

/// The next value in `steps` after `current` (up) or before it (down); `None` at the end.
pub fn next_step(steps: &[f64], current: f64, up: bool) -> Option<f64> {
    const EPS: f64 = 1e-9;
    if up {
        steps.iter().copied().find(|s| *s > current + EPS)
    } else {
        steps.iter().rev().copied().find(|s| *s < current - EPS)
    }
}

pub(super) fn change_lag_limit(model: &mut Model, up: bool, snap: &Snapshot) -> Vec<Effect> {
    let current = snap.broker_config.replica_lag_time_max_ms as f64;
    match next_step(LAG_STEPS, current, up) {
        Some(v) => vec![Effect::Apply(Set::cluster("replica.lag.time.max.ms", v as u64).into())],
        None => {
            model.refuse(format!("replica.lag.time.max.ms is already {current} (the end of the key steps)"))
        }
    }
}

pub(super) fn change_rate(model: &mut Model, up: bool, snap: &Snapshot) -> Vec<Effect> {
    let current = model.producer(snap).map_or(0.0, |p| p.config.rate);
    match next_step(RATE_STEPS, current, up) {
        Some(v) => set_producer(model, snap, "rate", v),
        None => model.refuse(format!("producer rate is already {current}/s (the end of the key steps)")),
    }
}
