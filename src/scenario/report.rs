//! The headless report's writer: events with their stamps, interleaved in order with the
//! other lines (commands, verdicts). Event stamps follow the event log's rule
//! ([`crate::sim::fine_stamps`]): milliseconds, with microseconds for every event of a
//! millisecond that holds events at different instants. Whether a millisecond needs them is
//! known only once an event of a later millisecond (or the end) arrives, so the lines from the
//! first event of a millisecond on wait until then.

use crate::sim::events::ClusterEvent;
use crate::sim::{fine_stamps, format_stamp};
use std::io::{self, Write};

/// A line waiting for its millisecond to be complete.
enum Pending {
    Event(ClusterEvent),
    Text(String),
}

/// Writes report lines to `out`, holding back the current millisecond's lines.
pub struct Report<'a> {
    out: &'a mut dyn Write,
    pending: Vec<Pending>,
}

impl<'a> Report<'a> {
    /// A report written to `out`.
    pub fn new(out: &'a mut dyn Write) -> Self {
        Report { out, pending: Vec::new() }
    }

    /// An event, stamped by the rule above. Errors: `out` fails.
    pub fn event(&mut self, event: ClusterEvent) -> io::Result<()> {
        if self.pending_ms().is_some_and(|ms| ms != event.at.as_ms()) {
            self.flush()?;
        }
        self.pending.push(Pending::Event(event));
        Ok(())
    }

    /// Any other line, after every event before it. Errors: `out` fails.
    pub fn line(&mut self, text: impl Into<String>) -> io::Result<()> {
        if self.pending.is_empty() {
            writeln!(self.out, "{}", text.into())
        } else {
            self.pending.push(Pending::Text(text.into()));
            Ok(())
        }
    }

    /// Writes every held line (at the end of the report). Errors: `out` fails.
    pub fn flush(&mut self) -> io::Result<()> {
        let times: Vec<_> = self
            .pending
            .iter()
            .filter_map(|p| match p {
                Pending::Event(e) => Some(e.at),
                Pending::Text(_) => None,
            })
            .collect();
        let mut fine = fine_stamps(&times).into_iter();
        for p in std::mem::take(&mut self.pending) {
            match p {
                Pending::Event(e) => {
                    let stamp = format_stamp(e.at, fine.next().unwrap_or(false));
                    writeln!(self.out, "{stamp} {}", e.kind)?;
                }
                Pending::Text(t) => writeln!(self.out, "{t}")?,
            }
        }
        Ok(())
    }

    /// The millisecond of the held events, if any.
    fn pending_ms(&self) -> Option<u64> {
        self.pending.iter().find_map(|p| match p {
            Pending::Event(e) => Some(e.at.as_ms()),
            Pending::Text(_) => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::SimTime;
    use crate::sim::events::EventKind;

    fn crashed(us: u64, broker: i32) -> ClusterEvent {
        ClusterEvent { at: SimTime::from_micros(us), kind: EventKind::BrokerCrashed { broker } }
    }

    #[test]
    fn events_closer_than_a_millisecond_show_microseconds_and_lines_keep_their_order() {
        let mut out = Vec::new();
        let mut r = Report::new(&mut out);
        r.line("start").unwrap();
        r.event(crashed(1_000_000, 0)).unwrap();
        r.line("00:00:01.0 do: crash 1").unwrap();
        r.event(crashed(1_000_300, 1)).unwrap();
        r.event(crashed(1_002_000, 2)).unwrap();
        r.event(crashed(1_002_000, 3)).unwrap();
        r.line("✓ done").unwrap();
        r.flush().unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "start\n\
             00:00:01.000.000 broker 0 crashed (its log stays on disk)\n\
             00:00:01.0 do: crash 1\n\
             00:00:01.000.300 broker 1 crashed (its log stays on disk)\n\
             00:00:01.002 broker 2 crashed (its log stays on disk)\n\
             00:00:01.002 broker 3 crashed (its log stays on disk)\n\
             ✓ done\n"
        );
    }
}
