//! The hand-off between the tasks driver and the node tasks: a node's mailbox (one step's
//! wake-up at a time) and the driver's signal that the step is done.
//!
//! Every task runs on one thread (a `LocalSet`), so a wake-up needs no lock and no atomic: a
//! slot in a `RefCell` or a flag in a `Cell`, and the waker of the one task that waits on it.
//! The waker is kept across turns (cloned again only when it changes), so a hand-off
//! allocates nothing.

use std::cell::{Cell, RefCell};
use std::task::{Context, Poll, Waker};

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
#[doc(hidden)]
#[derive(Default)]
pub struct Signal {
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

    /// Ready once the flag is raised (taking it); otherwise the polling task is woken when it is.
    pub fn poll(&self, cx: &Context<'_>) -> Poll<()> {
        if self.take() {
            return Poll::Ready(());
        }
        self.waiter.register(cx);
        Poll::Pending
    }
}

/// A node task's mailbox: the driver puts in the one step it is to run, the task takes it.
#[doc(hidden)]
pub struct Mailbox<W> {
    work: RefCell<Option<W>>,
    waiter: Waiter,
}

impl<W> Default for Mailbox<W> {
    fn default() -> Self {
        Mailbox { work: RefCell::new(None), waiter: Waiter::default() }
    }
}

impl<W> Mailbox<W> {
    /// Hands over a step and wakes the node's task.
    pub fn put(&self, wake: W) {
        let old = self.work.borrow_mut().replace(wake);
        debug_assert!(old.is_none(), "the driver hands one step at a time");
        self.waiter.wake();
    }

    /// The step handed over, if any; otherwise the polling task is woken when one comes.
    pub fn poll(&self, cx: &Context<'_>) -> Poll<W> {
        if let Some(wake) = self.work.borrow_mut().take() {
            return Poll::Ready(wake);
        }
        self.waiter.register(cx);
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::world::Wake;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    struct Count(AtomicUsize);

    impl std::task::Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn a_mailbox_holds_one_step_and_wakes_its_task() {
        let count = Arc::new(Count(AtomicUsize::new(0)));
        let waker = Waker::from(count.clone());
        let cx = Context::from_waker(&waker);
        let mailbox = Mailbox::<Wake>::default();
        assert!(mailbox.poll(&cx).is_pending(), "empty: the task waits");
        mailbox.put(Wake::Timer(3));
        assert_eq!(count.0.load(Ordering::SeqCst), 1, "the hand-off wakes the waiting task");
        assert!(matches!(mailbox.poll(&cx), Poll::Ready(Wake::Timer(3))));
        assert!(mailbox.poll(&cx).is_pending());
    }

    #[test]
    fn a_signal_is_kept_until_taken() {
        let signal = Signal::default();
        signal.raise();
        assert!(signal.take());
        assert!(!signal.take());
    }
}
