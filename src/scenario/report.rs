//! The headless report's writer: the run's log (events and applied commands) with their
//! stamps, interleaved in order with the other lines (verdicts). Stamps follow the event log's
//! rule ([`crate::sim::fine_stamps`]): milliseconds, with microseconds for every entry of a
//! millisecond that holds entries at different instants. Whether a millisecond needs them is
//! known only once an entry of a later millisecond (or the end) arrives, so the lines from the
//! first entry of a millisecond on wait until then.

use crate::sim::events::ClusterEvent;
use crate::sim::{SimTime, fine_stamps, format_stamp};
use std::io::{self, Write};

/// A line waiting for its millisecond to be complete.
enum Pending {
    /// A log entry: its instant and its text after the stamp.
    Stamped(SimTime, String),
    /// Any other line.
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
    pub fn event(&mut self, event: &ClusterEvent) -> io::Result<()> {
        self.stamped(event.at, event.kind.to_string())
    }

    /// A log entry that happened at `at` (an applied command), stamped by the rule above.
    /// Errors: `out` fails.
    pub fn stamped(&mut self, at: SimTime, text: String) -> io::Result<()> {
        if self.pending_ms().is_some_and(|ms| ms != at.as_ms()) {
            self.flush()?;
        }
        self.pending.push(Pending::Stamped(at, text));
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
                Pending::Stamped(at, _) => Some(*at),
                Pending::Text(_) => None,
            })
            .collect();
        let mut fine = fine_stamps(&times).into_iter();
        for p in std::mem::take(&mut self.pending) {
            match p {
                Pending::Stamped(at, text) => {
                    writeln!(self.out, "{} {text}", format_stamp(at, fine.next().unwrap_or(false)))?;
                }
                Pending::Text(t) => writeln!(self.out, "{t}")?,
            }
        }
        Ok(())
    }

    /// The millisecond of the held entries, if any.
    fn pending_ms(&self) -> Option<u64> {
        self.pending.iter().find_map(|p| match p {
            Pending::Stamped(at, _) => Some(at.as_ms()),
            Pending::Text(_) => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::events::EventKind;

    fn crashed(us: u64, broker: i32) -> ClusterEvent {
        ClusterEvent { at: SimTime::from_micros(us), kind: EventKind::BrokerCrashed { broker } }
    }

    #[test]
    fn events_closer_than_a_millisecond_show_microseconds_and_lines_keep_their_order() {
        let mut out = Vec::new();
        let mut r = Report::new(&mut out);
        r.line("start").unwrap();
        r.event(&crashed(1_000_000, 0)).unwrap();
        r.line("✓ checked").unwrap();
        r.stamped(SimTime::from_micros(1_000_300), "do: crash 1".into()).unwrap();
        r.event(&crashed(1_000_300, 1)).unwrap();
        r.stamped(SimTime::from_micros(1_002_000), "do: crash 2".into()).unwrap();
        r.event(&crashed(1_002_000, 2)).unwrap();
        r.event(&crashed(1_002_000, 3)).unwrap();
        r.line("✓ done").unwrap();
        r.flush().unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "start\n\
             00:00:01.000.000 broker 0 crashed (its log stays on disk)\n\
             ✓ checked\n\
             00:00:01.000.300 do: crash 1\n\
             00:00:01.000.300 broker 1 crashed (its log stays on disk)\n\
             00:00:01.002 do: crash 2\n\
             00:00:01.002 broker 2 crashed (its log stays on disk)\n\
             00:00:01.002 broker 3 crashed (its log stays on disk)\n\
             ✓ done\n"
        );
    }
}
