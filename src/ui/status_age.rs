//! Status notices and errors age out (an old error stayed on the status line for
//! more than a minute, across views, and read as the answer to later keys). The model keeps
//! no wall clock, so this timer lives beside the event loop and is fed the wall time: a
//! message goes once it has been shown for [`STATUS_TTL`]; a new message starts it again.

use std::time::Duration;

use super::app::Model;

/// How long a status message stays (wall time), then the line shows the selection again.
pub const STATUS_TTL: Duration = Duration::from_secs(10);

/// When the status shown now first appeared.
#[derive(Clone, Copy, Debug, Default)]
pub struct StatusAge {
    /// The message's [`Model::status_serial`] and the wall time it was first seen at.
    seen: Option<(u64, Duration)>,
}

impl StatusAge {
    /// How long until the status shown at wall time `now` ages out (zero: it is due), its
    /// clock starting now when it is new; `None` without a status.
    pub fn remaining(&mut self, model: &Model, now: Duration) -> Option<Duration> {
        if model.status.is_none() {
            self.seen = None;
            return None;
        }
        let since = match self.seen {
            Some((serial, at)) if serial == model.status_serial => at,
            _ => {
                self.seen = Some((model.status_serial, now));
                now
            }
        };
        Some(STATUS_TTL.saturating_sub(now.saturating_sub(since)))
    }

    /// Clears a status shown for [`STATUS_TTL`] by `now`; returns whether it did.
    pub fn expire(&mut self, model: &mut Model, now: Duration) -> bool {
        if self.remaining(model, now) != Some(Duration::ZERO) {
            return false;
        }
        model.status = None;
        self.seen = None;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::app::StatusKind;
    use crate::ui::fixture;
    use crate::ui::theme::Theme;

    #[test]
    fn a_message_goes_after_ten_seconds_and_a_new_one_starts_again() {
        let snap = fixture::snapshot();
        let mut m = Model::new(1.0, Theme::new(false), &snap);
        let mut age = StatusAge::default();
        let s = Duration::from_secs;
        assert_eq!(age.remaining(&m, s(0)), None);
        m.say(StatusKind::Error, "no broker 7");
        assert_eq!(age.remaining(&m, s(1)), Some(s(10)));
        assert!(!age.expire(&mut m, s(10)));
        m.say(StatusKind::Error, "no broker 7");
        assert!(!age.expire(&mut m, s(12)), "the same words again are a new message");
        assert_eq!(age.remaining(&m, s(15)), Some(s(7)));
        assert!(age.expire(&mut m, s(22)));
        assert_eq!(m.status, None);
        assert!(!age.expire(&mut m, s(40)));
    }
}
