//! What a headless run has seen besides the cluster's current state: for each `event = "regex"`
//! expectation, the first event whose text matched it so far.

use crate::sim::SimTime;
use crate::sim::events::ClusterEvent;
use regex::Regex;
use std::fmt;

/// A regular expression (the `regex` crate's syntax) matched against an event's text as the
/// report prints it after the time, e.g. `broker 2 fenced .*`.
#[derive(Clone, Debug)]
pub struct EventPattern(Regex);

impl EventPattern {
    /// Compiles `text`. Errors: the regex crate's reason, on one line.
    pub fn new(text: &str) -> Result<Self, String> {
        Regex::new(text).map(Self).map_err(|e| {
            let reason = e.to_string();
            let last = reason.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or_default();
            let last = last.trim().trim_start_matches("error: ");
            format!("`{text}` is not a valid regular expression: {last}")
        })
    }

    /// The expression as written.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// Whether it matches somewhere in `text`.
    pub fn is_match(&self, text: &str) -> bool {
        self.0.is_match(text)
    }
}

impl PartialEq for EventPattern {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl fmt::Display for EventPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "/{}/", self.as_str())
    }
}

/// The first event that matched one pattern: its sim time and text.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Match {
    /// Sim time of the event (µs resolution).
    pub at: SimTime,
    /// The event's text.
    pub text: String,
}

/// The patterns a run watches for and what matched each, in the order they were given.
/// Each event is formatted only while some pattern has not matched yet.
#[derive(Clone, Debug, Default)]
pub struct History {
    watched: Vec<(EventPattern, Option<Match>)>,
}

impl History {
    /// Watches `patterns` (duplicates are watched once).
    pub fn watching<'a>(patterns: impl IntoIterator<Item = &'a EventPattern>) -> Self {
        let mut watched: Vec<(EventPattern, Option<Match>)> = Vec::new();
        for p in patterns {
            if !watched.iter().any(|(w, _)| w == p) {
                watched.push((p.clone(), None));
            }
        }
        Self { watched }
    }

    /// Tests one event against every pattern that has not matched yet.
    pub fn observe(&mut self, event: &ClusterEvent) {
        if self.watched.iter().all(|(_, m)| m.is_some()) {
            return;
        }
        let text = event.kind.to_string();
        for (pattern, found) in self.watched.iter_mut().filter(|(_, m)| m.is_none()) {
            if pattern.is_match(&text) {
                *found = Some(Match { at: event.at, text: text.clone() });
            }
        }
    }

    /// The first event seen that matched `pattern`, if any.
    pub fn first_match(&self, pattern: &EventPattern) -> Option<&Match> {
        self.watched.iter().find(|(p, _)| p == pattern).and_then(|(_, m)| m.as_ref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::events::EventKind;

    #[test]
    fn the_first_matching_event_is_kept() {
        let fenced = EventPattern::new("broker [0-9] fenced").unwrap();
        let crashed = EventPattern::new("^broker 2 crashed").unwrap();
        let mut history = History::watching([&fenced, &crashed, &fenced]);
        history.observe(&ClusterEvent {
            at: crate::sim::SimTime::from_ms(5),
            kind: EventKind::BrokerCrashed { broker: 1 },
        });
        assert_eq!(history.first_match(&crashed), None);
        history.observe(&ClusterEvent {
            at: crate::sim::SimTime::from_ms(9),
            kind: EventKind::BrokerCrashed { broker: 2 },
        });
        history.observe(&ClusterEvent {
            at: crate::sim::SimTime::from_ms(12),
            kind: EventKind::BrokerCrashed { broker: 2 },
        });
        assert_eq!(history.first_match(&crashed).map(|m| m.at), Some(SimTime::from_ms(9)));
        assert_eq!(history.first_match(&fenced), None);
    }

    #[test]
    fn a_bad_pattern_is_one_readable_line() {
        let e = EventPattern::new("broker (2").unwrap_err();
        assert!(e.starts_with("`broker (2` is not a valid regular expression: "), "{e}");
        assert!(!e.contains('\n'), "{e}");
    }
}
