//! What a typed filter may name: the cluster's brokers, topics, partitions and clients. The
//! partition table's filter, the Events pane's filter and the broker keys refuse a name the
//! cluster lacks through these checks, in the same words (`no broker 99 (brokers: 0–2)`),
//! since a typo would otherwise show an empty table or pane with no word of why.

use crate::cluster::snapshot::Snapshot;
use crate::sim::{BrokerId, join_ids};

/// How many names a refusal lists before `…`.
const LISTED: usize = 5;

/// The cluster's broker ids for a message: `0–2` when they run without gaps, else `0,2,5`;
/// `none` when there is no broker.
pub fn broker_ids(snap: &Snapshot) -> String {
    let mut ids: Vec<BrokerId> = snap.brokers.iter().map(|b| b.id).collect();
    ids.sort_unstable();
    ids.dedup();
    // Sorted and distinct, so `w[0] + 1` cannot overflow.
    let gapless = ids.windows(2).all(|w| w[0] + 1 == w[1]);
    match (ids.first(), ids.last()) {
        (Some(lo), Some(hi)) if ids.len() >= 3 && gapless => format!("{lo}–{hi}"),
        _ if ids.is_empty() => "none".to_string(),
        _ => join_ids(&ids),
    }
}

/// Broker `id` is in the cluster. Error: `no broker 99 (brokers: 0–2)`.
pub fn broker(snap: &Snapshot, id: BrokerId) -> Result<(), String> {
    if snap.brokers.iter().any(|b| b.id == id) {
        Ok(())
    } else {
        Err(format!("no broker {id} (brokers: {})", broker_ids(snap)))
    }
}

/// Topic `name` has partitions in the cluster. Error: `no topic `x` (topics: a, b)`.
pub fn topic(snap: &Snapshot, name: &str) -> Result<(), String> {
    if snap.partitions.iter().any(|p| *p.tp.topic == *name) {
        Ok(())
    } else {
        Err(format!("no topic `{name}` (topics: {})", topic_names(snap)))
    }
}

/// `name` is a topic of the cluster or one of its partitions (`test_repli-0`), as the Events
/// filter's `partition` and `topic` words take either. Error: the topics, or the partition
/// numbers when the topic exists (`test_repli has partitions 0–2`).
pub fn topic_or_partition(snap: &Snapshot, name: &str) -> Result<(), String> {
    if topic(snap, name).is_ok() || snap.partitions.iter().any(|p| p.tp.to_string() == name) {
        return Ok(());
    }
    let owner = name.rsplit_once('-').map(|(t, _)| t).filter(|t| topic(snap, t).is_ok());
    match owner {
        Some(t) => {
            let numbers: Vec<u32> =
                snap.partitions.iter().filter(|p| *p.tp.topic == *t).map(|p| p.tp.partition).collect();
            let (lo, hi) = (numbers.iter().min(), numbers.iter().max());
            let range = match (lo, hi) {
                (Some(lo), Some(hi)) if lo != hi => format!("partitions {lo}–{hi}"),
                (Some(lo), _) => format!("partition {lo}"),
                _ => "no partitions".to_string(),
            };
            Err(format!("no partition {name} ({t} has {range})"))
        }
        None => Err(format!("no topic or partition `{name}` (topics: {})", topic_names(snap))),
    }
}

/// Producer `index` runs in the cluster. Error: `no producer 5 (producers: 0)`.
pub fn producer(snap: &Snapshot, index: u32) -> Result<(), String> {
    let ids: Vec<u32> = snap.producers.iter().map(|p| p.index).collect();
    client("producer", index, &ids)
}

/// Consumer `index` runs in the cluster. Error: `no consumer 5 (consumers: 0,1)`.
pub fn consumer(snap: &Snapshot, index: u32) -> Result<(), String> {
    let ids: Vec<u32> = snap.consumers.iter().map(|c| c.view.index).collect();
    client("consumer", index, &ids)
}

fn client(noun: &str, index: u32, ids: &[u32]) -> Result<(), String> {
    if ids.contains(&index) {
        return Ok(());
    }
    let list: Vec<String> = ids.iter().map(u32::to_string).collect();
    let list = if list.is_empty() { "none".to_string() } else { list.join(",") };
    Err(format!("no {noun} {index} ({noun}s: {list})"))
}

/// The first topics by name, `…` when there are more.
fn topic_names(snap: &Snapshot) -> String {
    let names: Vec<&str> = snap.topics.iter().map(|t| &*t.name).collect();
    if names.is_empty() {
        return "none".to_string();
    }
    let more = if names.len() > LISTED { ", …" } else { "" };
    format!("{}{more}", names[..names.len().min(LISTED)].join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::fixture;

    #[test]
    fn names_the_cluster_lacks_are_refused_with_those_it_has() {
        let snap = fixture::snapshot();
        assert!(broker(&snap, 2).is_ok());
        assert_eq!(broker(&snap, 99).unwrap_err(), "no broker 99 (brokers: 0–2)");
        let t = snap.partitions[0].tp.topic.to_string();
        assert!(topic(&snap, &t).is_ok() && topic_or_partition(&snap, &t).is_ok());
        assert!(topic_or_partition(&snap, &format!("{t}-0")).is_ok());
        let wrong = topic_or_partition(&snap, &format!("{t}-99")).unwrap_err();
        assert!(wrong.starts_with(&format!("no partition {t}-99 ({t} has partition")), "{wrong}");
        let typo = topic_or_partition(&snap, "tset").unwrap_err();
        assert!(typo.starts_with("no topic or partition `tset` (topics: ") && typo.contains(&t), "{typo}");
        assert!(topic(&snap, "tset").unwrap_err().starts_with("no topic `tset`"));
        assert!(producer(&snap, 0).is_ok());
        assert!(producer(&snap, 9).unwrap_err().starts_with("no producer 9 (producers: "));
        let no_consumers = Snapshot { consumers: Vec::new(), ..snap.clone() };
        assert_eq!(consumer(&no_consumers, 0).unwrap_err(), "no consumer 0 (consumers: none)");
    }
}
