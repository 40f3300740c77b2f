//! Long-lived wake-ups for the sim's tasks: a node's mailbox and the network's signal.
//!
//! Every task of a simulation runs on one thread (a `LocalSet` on the paused clock), so a
//! wake-up needs no lock and no atomic: a flag or a queue in a `Cell`, and the waker of the
//! one task that waits on it. The task keeps its waker here across turns (it is cloned again
//! only when the task's waker changes), so a turn of a task's loop allocates nothing and
//! registers nothing, unlike a fresh `Notify::notified()` or channel receive per turn.

use super::net::Delivery;
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::task::{Context, Waker};

/// The waker of the one task that waits on a wake-up.
#[derive(Default)]
struct Waiter(RefCell<Option<Waker>>);

impl Waiter {
    /// Wakes the task, if one waits; the waker stays for the next time.
    fn wake(&self) {
        if let Some(w) = self.0.borrow().as_ref() {
            w.wake_by_ref();
        }
    }

    /// Remembers the polling task's waker (cloned only when it changed).
    fn register(&self, cx: &Context<'_>) {
        let mut slot = self.0.borrow_mut();
        if !slot.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
            *slot = Some(cx.waker().clone());
        }
    }
}

/// A flag one task waits on, kept until the task takes it (like a `Notify` permit).
#[derive(Default)]
pub(crate) struct Signal {
    raised: Cell<bool>,
    waiter: Waiter,
}

impl Signal {
    /// Raises the flag and wakes the waiting task.
    pub fn raise(&self) {
        self.raised.set(true);
        self.waiter.wake();
    }

    /// Lowers the flag; says whether it was raised.
    pub fn take(&self) -> bool {
        self.raised.replace(false)
    }

    /// Makes the polling task the one [`Signal::raise`] wakes.
    pub fn register(&self, cx: &Context<'_>) {
        self.waiter.register(cx);
    }
}

/// What woke a node's task.
pub(crate) enum Woken {
    /// Something outside changed its core or its process (a command, a freeze, a thaw): it
    /// re-reads its timers.
    Poked,
    /// A message arrived.
    Message(Delivery),
    /// Its mailbox was closed (the process is gone).
    Closed,
}

/// A node's inbox and its wake-up: the network puts messages in, commands poke it. One
/// running process has one mailbox; a restarted process gets a new one.
#[derive(Default)]
pub(crate) struct Mailbox {
    inbox: RefCell<VecDeque<Delivery>>,
    poked: Cell<bool>,
    closed: Cell<bool>,
    waiter: Waiter,
}

impl Mailbox {
    /// Delivers a message (in arrival order) and wakes the node.
    pub fn push(&self, delivery: Delivery) {
        self.inbox.borrow_mut().push_back(delivery);
        self.waiter.wake();
    }

    /// Asks the node to re-read its timers.
    pub fn poke(&self) {
        self.poked.set(true);
        self.waiter.wake();
    }

    /// Forgets a poke made while the node was busy: it is about to re-read its timers anyway.
    pub fn clear_poke(&self) {
        self.poked.set(false);
    }

    /// No more messages come: the node's task ends once it has read what is there.
    pub fn close(&self) {
        self.closed.set(true);
        self.waiter.wake();
    }

    /// What is there for the node: a poke first, then the oldest message, then whether the
    /// mailbox is closed. `None` registers the polling task to be woken.
    pub fn poll(&self, cx: &Context<'_>) -> Option<Woken> {
        if self.poked.replace(false) {
            return Some(Woken::Poked);
        }
        if let Some(delivery) = self.inbox.borrow_mut().pop_front() {
            return Some(Woken::Message(delivery));
        }
        if self.closed.get() {
            return Some(Woken::Closed);
        }
        self.waiter.register(cx);
        None
    }

    /// Like [`Mailbox::poll`], but only for a poke: a frozen node reads nothing.
    pub fn poll_poke(&self, cx: &Context<'_>) -> bool {
        if self.poked.replace(false) {
            return true;
        }
        self.waiter.register(cx);
        false
    }

    /// Takes every waiting message (tests).
    #[cfg(test)]
    pub fn drain(&self) -> Vec<Delivery> {
        self.inbox.borrow_mut().drain(..).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::protocol::{Message, NodeId};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::Wake;

    struct Count(AtomicUsize);

    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn a_mailbox_gives_pokes_first_then_messages_in_order_then_closed_and_wakes_its_task() {
        let count = Arc::new(Count(AtomicUsize::new(0)));
        let waker = Waker::from(count.clone());
        let cx = Context::from_waker(&waker);
        let mailbox = Mailbox::default();
        assert!(mailbox.poll(&cx).is_none(), "empty: the task waits");
        mailbox.push((NodeId::Broker(1), Message::Connect));
        mailbox.push((NodeId::Broker(2), Message::Connect));
        mailbox.poke();
        assert_eq!(count.0.load(Ordering::SeqCst), 3, "each arrival wakes the waiting task");
        assert!(matches!(mailbox.poll(&cx), Some(Woken::Poked)));
        let from = |w: Option<Woken>| match w {
            Some(Woken::Message((from, _))) => from,
            _ => panic!("a message"),
        };
        assert_eq!(from(mailbox.poll(&cx)), NodeId::Broker(1));
        mailbox.close();
        assert_eq!(from(mailbox.poll(&cx)), NodeId::Broker(2), "what came before the close is read");
        assert!(matches!(mailbox.poll(&cx), Some(Woken::Closed)));
    }

    #[test]
    fn a_signal_is_kept_until_taken() {
        let signal = Signal::default();
        signal.raise();
        assert!(signal.take());
        assert!(!signal.take());
    }
}
