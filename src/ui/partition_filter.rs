//! Which partitions the table shows: unhealthy only, one topic, the partitions with a replica
//! on one broker, a text search, and whether Kafka's internal topics (`__consumer_offsets`)
//! are shown (hidden by default). Typed as words in the table's `F` prompt (`unhealthy
//! broker 7 topic orders`), or toggled by single keys.
//!
//! The rows are worked out when the snapshot or the filter changes, not on every frame: a
//! [`RowCache`] keeps the shown rows with what they were computed from. A snapshot shares
//! every unchanged partition's view (`Arc`) with the previous one (`observe::ViewCache`), so
//! "the same partition views, the same filter" is checked by pointer identity, without
//! reading a view.

use std::borrow::Cow;
use std::sync::Arc;

use super::event_filter::contains_ignoring_case;
use super::partitions::health_word;
use crate::cluster::snapshot::{PartitionHealth, PartitionView, Snapshot};
use crate::kafka::is_internal;
use crate::sim::BrokerId;

/// The table's filter: a partition is shown when it passes every part that is set.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct PartitionFilter {
    /// Only partitions whose state is not `ok` (URP, HW frozen, leader unreachable, offline,
    /// reassigning).
    pub unhealthy: bool,
    /// Show the internal topics too (they are hidden by default; naming one with `topic`
    /// shows it anyway).
    pub internal: bool,
    /// Only this topic's partitions.
    pub topic: Option<String>,
    /// Only partitions with a replica on this broker (in the replica list, or being added).
    pub broker: Option<BrokerId>,
    /// Only partitions whose name (`orders-3`) or state word (`HW frozen: waits 2`) holds this
    /// text, ignoring case.
    pub text: Option<String>,
}

/// How the table's filter is written, for the prompt's errors and the help.
pub const TABLE_FILTER_SYNTAX: &str = "words: unhealthy, internal, topic T, broker B, any other text searches the partition names and states; empty shows all";

impl PartitionFilter {
    /// Parses the table's `F` prompt. The keywords take their value (`topic T`, `broker B`);
    /// every other word is searched for. The internal-topics switch keeps its value unless
    /// the line says `internal`. Errors: a keyword without its value or a broker id that is
    /// not a number, in words.
    pub fn parse(line: &str, internal: bool) -> Result<PartitionFilter, String> {
        let mut filter = PartitionFilter { internal, ..PartitionFilter::default() };
        let mut text: Vec<&str> = Vec::new();
        let mut words = line.split_whitespace();
        while let Some(word) = words.next() {
            match word.to_ascii_lowercase().as_str() {
                "unhealthy" => filter.unhealthy = true,
                "internal" => filter.internal = true,
                "topic" | "broker" => {
                    let value = words
                        .next()
                        .ok_or_else(|| format!("`{word}` needs a value ({TABLE_FILTER_SYNTAX})"))?;
                    if word.eq_ignore_ascii_case("topic") {
                        filter.topic = Some(value.to_string());
                    } else {
                        let id = value.parse::<BrokerId>().ok().filter(|b| *b >= 0);
                        filter.broker = Some(id.ok_or_else(|| format!("`{word} {value}`: not a broker id"))?);
                    }
                }
                _ => text.push(word),
            }
        }
        filter.text = (!text.is_empty()).then(|| text.join(" "));
        Ok(filter)
    }

    /// The filter as the prompt shows it to edit: the words [`PartitionFilter::parse`] reads
    /// back into the same filter.
    pub fn line(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        if self.unhealthy {
            parts.push("unhealthy".into());
        }
        if self.internal {
            parts.push("internal".into());
        }
        parts.extend(self.topic.iter().map(|t| format!("topic {t}")));
        parts.extend(self.broker.map(|b| format!("broker {b}")));
        parts.extend(self.text.clone());
        parts.join(" ")
    }

    /// What narrows the table, as its title shows it (`unhealthy · broker 7 · "repli-1"`);
    /// empty when nothing does. The internal-topics switch is not named: the title counts
    /// the hidden partitions instead.
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        if self.unhealthy {
            parts.push("unhealthy".into());
        }
        parts.extend(self.topic.iter().map(|t| format!("topic {t}")));
        parts.extend(self.broker.map(|b| format!("broker {b}")));
        parts.extend(self.text.iter().map(|t| format!("\"{t}\"")));
        parts.join(" · ")
    }

    /// Whether anything but the internal-topics switch narrows the table.
    pub fn narrows(&self) -> bool {
        self.unhealthy || self.topic.is_some() || self.broker.is_some() || self.text.is_some()
    }

    /// Whether the partition is hidden for being in an internal topic alone.
    fn hides_internal(&self, p: &PartitionView) -> bool {
        !self.internal && self.topic.as_deref() != Some(&*p.tp.topic) && is_internal(&p.tp.topic)
    }

    /// Whether the table shows the partition.
    pub fn keeps(&self, p: &PartitionView) -> bool {
        !self.hides_internal(p)
            && (!self.unhealthy || p.health != PartitionHealth::Healthy)
            && self.topic.as_deref().is_none_or(|t| *p.tp.topic == *t)
            && self.broker.is_none_or(|b| p.replicas.contains(&b) || p.adding.contains(&b))
            && self.text.as_deref().is_none_or(|t| {
                contains_ignoring_case(&p.tp.to_string(), t)
                    || contains_ignoring_case(&health_word(p.health), t)
            })
    }
}

/// The rows the table shows for one snapshot and filter.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Shown {
    /// Indices into [`Snapshot::partitions`] of the shown partitions, ascending (table order).
    pub rows: Vec<usize>,
    /// Partitions hidden only because they are in an internal topic.
    pub internal_hidden: usize,
    /// Every partition of the snapshot.
    pub total: usize,
}

impl Shown {
    /// Filters `snap`'s partitions.
    pub fn of(snap: &Snapshot, filter: &PartitionFilter) -> Shown {
        let mut shown = Shown { total: snap.partitions.len(), ..Shown::default() };
        for (i, p) in snap.partitions.iter().enumerate() {
            if filter.keeps(p) {
                shown.rows.push(i);
            } else if filter.hides_internal(p) {
                shown.internal_hidden += 1;
            }
        }
        shown
    }

    /// The row of partition index `index`: `Ok(row)` when it is shown, else `Err(row)` of
    /// the first shown partition after it (`rows.len()` when none is).
    pub fn row_of(&self, index: usize) -> Result<usize, usize> {
        self.rows.binary_search(&index)
    }

    /// Whether every partition is shown.
    pub fn is_all(&self) -> bool {
        self.rows.len() == self.total
    }
}

/// The shown rows with what they were computed from: the snapshot's partition views (by
/// identity) and the filter.
#[derive(Clone, Debug, Default)]
pub struct RowCache {
    views: Vec<Arc<PartitionView>>,
    filter: PartitionFilter,
    shown: Shown,
}

impl RowCache {
    /// Whether the cache holds the rows of `snap` under `filter`: the same filter and the
    /// very same partition views (a changed partition is a new `Arc`).
    pub fn is_for(&self, snap: &Snapshot, filter: &PartitionFilter) -> bool {
        self.filter == *filter
            && self.views.len() == snap.partitions.len()
            && self.views.iter().zip(&snap.partitions).all(|(a, b)| Arc::ptr_eq(a, b))
    }

    /// Filters `snap` again unless the cache already holds its rows under `filter`.
    pub fn refresh(&mut self, snap: &Snapshot, filter: &PartitionFilter) {
        if !self.is_for(snap, filter) {
            self.shown = Shown::of(snap, filter);
            self.views.clone_from(&snap.partitions);
            self.filter.clone_from(filter);
        }
    }

    /// The rows of `snap` under `filter`: the cached ones when they are for them, else
    /// computed now (a snapshot the model has not seen, as in tests that draw one directly).
    pub fn get<'a>(&'a self, snap: &Snapshot, filter: &PartitionFilter) -> Cow<'a, Shown> {
        if self.is_for(snap, filter) {
            Cow::Borrowed(&self.shown)
        } else {
            Cow::Owned(Shown::of(snap, filter))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::TopicPartition;
    use crate::ui::fixture;

    /// The fixture's partitions plus two of `__consumer_offsets` before them, as a consumer
    /// group makes them (the table is in topic order).
    fn with_offsets_topic() -> Snapshot {
        let mut snap = fixture::snapshot();
        let template = (*snap.partitions[0]).clone();
        let internal = (0..2).map(|n| {
            let mut p = template.clone();
            p.tp = TopicPartition::new("__consumer_offsets", n);
            p.health = PartitionHealth::Healthy;
            Arc::new(p)
        });
        snap.partitions = internal.chain(snap.partitions.iter().cloned()).collect();
        snap
    }

    fn names(snap: &Snapshot, filter: &PartitionFilter) -> Vec<String> {
        Shown::of(snap, filter).rows.iter().map(|&i| snap.partitions[i].tp.to_string()).collect()
    }

    #[test]
    fn words_parse_back_into_the_same_filter_and_bad_ones_are_explained() {
        let f = PartitionFilter::parse("unhealthy broker 7 topic orders repli-1", false).unwrap();
        assert!(f.unhealthy && !f.internal);
        assert_eq!(
            (f.broker, f.topic.as_deref(), f.text.as_deref()),
            (Some(7), Some("orders"), Some("repli-1"))
        );
        assert_eq!(f.describe(), "unhealthy · topic orders · broker 7 · \"repli-1\"");
        assert_eq!(PartitionFilter::parse(&f.line(), false).unwrap(), f);
        assert!(PartitionFilter::parse("", true).unwrap().internal, "the switch keeps its value");
        assert!(!PartitionFilter::parse("", true).unwrap().narrows());
        assert!(PartitionFilter::parse("broker", false).unwrap_err().contains("needs a value"));
        assert!(PartitionFilter::parse("broker seven", false).unwrap_err().contains("not a broker id"));
        assert!(PartitionFilter::parse("topic", false).unwrap_err().contains("needs a value"));
    }

    #[test]
    fn internal_topics_are_hidden_and_counted_unless_shown_or_named() {
        let snap = with_offsets_topic();
        let all = snap.partitions.len();
        let shown = Shown::of(&snap, &PartitionFilter::default());
        assert_eq!((shown.rows.len(), shown.internal_hidden, shown.total), (all - 2, 2, all));
        assert!(!names(&snap, &PartitionFilter::default()).iter().any(|n| n.starts_with("__")));
        let internal = PartitionFilter { internal: true, ..PartitionFilter::default() };
        assert_eq!(Shown::of(&snap, &internal).rows.len(), all);
        let named = PartitionFilter::parse("topic __consumer_offsets", false).unwrap();
        assert_eq!(names(&snap, &named), ["__consumer_offsets-0", "__consumer_offsets-1"]);
        assert_eq!(Shown::of(&snap, &named).internal_hidden, 0);
    }

    #[test]
    fn each_part_narrows_the_rows() {
        let mut snap = fixture::snapshot();
        Arc::make_mut(&mut snap.partitions[2]).health = PartitionHealth::Healthy;
        let healthy: Vec<String> = snap
            .partitions
            .iter()
            .filter(|p| p.health == PartitionHealth::Healthy)
            .map(|p| p.tp.to_string())
            .collect();
        let unhealthy = names(&snap, &PartitionFilter::parse("unhealthy", false).unwrap());
        assert!(!unhealthy.is_empty() && !healthy.is_empty(), "the fixture has both kinds");
        assert!(unhealthy.iter().all(|n| !healthy.contains(n)));
        assert_eq!(unhealthy.len() + healthy.len(), snap.partitions.len());
        let on = |b: BrokerId| -> Vec<String> {
            snap.partitions.iter().filter(|p| p.replicas.contains(&b)).map(|p| p.tp.to_string()).collect()
        };
        let broker = snap.partitions.last().unwrap().replicas[0];
        assert_eq!(
            names(&snap, &PartitionFilter::parse(&format!("broker {broker}"), false).unwrap()),
            on(broker)
        );
        assert!(names(&snap, &PartitionFilter::parse("broker 99", false).unwrap()).is_empty());
        let first = snap.partitions[0].tp.to_string();
        let search = PartitionFilter::parse(&first.to_uppercase(), false).unwrap();
        assert!(names(&snap, &search).contains(&first), "the search ignores case");
        let topic = snap.partitions[0].tp.topic.to_string();
        let by_topic = names(&snap, &PartitionFilter::parse(&format!("topic {topic}"), false).unwrap());
        assert_eq!(by_topic.len(), snap.partitions.iter().filter(|p| *p.tp.topic == *topic).count());
        assert!(names(&snap, &PartitionFilter::parse("topic nosuch", false).unwrap()).is_empty());
    }

    #[test]
    fn a_state_word_is_searched_too() {
        let mut snap = fixture::snapshot();
        Arc::make_mut(&mut snap.partitions[1]).health = PartitionHealth::Offline;
        let offline = names(&snap, &PartitionFilter::parse("offline", false).unwrap());
        assert_eq!(offline, [snap.partitions[1].tp.to_string()]);
    }

    #[test]
    fn the_cache_filters_again_only_when_a_view_or_the_filter_changed() {
        let mut snap = fixture::snapshot();
        let unhealthy = PartitionFilter::parse("unhealthy", false).unwrap();
        let mut cache = RowCache::default();
        assert!(!cache.is_for(&snap, &unhealthy));
        cache.refresh(&snap, &unhealthy);
        assert!(cache.is_for(&snap, &unhealthy));
        let later = Snapshot { now: snap.now + 33, ..snap.clone() };
        assert!(cache.is_for(&later, &unhealthy), "the same views: nothing to filter");
        assert!(!cache.is_for(&snap, &PartitionFilter::default()), "another filter");
        let before = cache.get(&snap, &unhealthy).rows.clone();
        // A partition whose view changed is a new Arc, even with equal contents.
        let healed = snap.partitions.iter().position(|p| p.health != PartitionHealth::Healthy).unwrap();
        let mut view = (*snap.partitions[healed]).clone();
        view.health = PartitionHealth::Healthy;
        snap.partitions[healed] = Arc::new(view);
        assert!(!cache.is_for(&snap, &unhealthy));
        let after = cache.get(&snap, &unhealthy).rows.clone();
        assert_eq!(after.len() + 1, before.len());
        assert!(!after.contains(&healed));
    }
}
