//! Terminal input on a thread of its own, handed to the event loop through a channel.
//!
//! crossterm's `EventStream` polls the terminal on every turn of the event loop, and while
//! its helper thread waits for input, each of those polls spins for crossterm's event-reader
//! lock (seven `sched_yield`s at a time): about a third of a millisecond per frame of the
//! dashboard at 1×. A thread that blocks in `crossterm::event::read` costs nothing until a
//! key, a mouse event or a resize arrives, and the event loop waits on a channel instead.

use crossterm::event::Event;
use tokio::sync::mpsc;

/// Terminal events as they arrive, and the error that ended them, if one did.
pub struct Input {
    events: mpsc::UnboundedReceiver<std::io::Result<Event>>,
}

impl Input {
    /// Starts the reading thread. It ends after the first read error, or at the first event
    /// after the `Input` is dropped (the process usually exits before). Errors: the thread
    /// cannot be started.
    pub fn start() -> std::io::Result<Input> {
        let (tx, events) = mpsc::unbounded_channel();
        std::thread::Builder::new().name("isrlab-input".into()).spawn(move || {
            loop {
                let event = crossterm::event::read();
                let failed = event.is_err();
                if tx.send(event).is_err() || failed {
                    break;
                }
            }
        })?;
        Ok(Input { events })
    }

    /// The next event; `None` once the reading thread has ended.
    pub async fn next(&mut self) -> Option<std::io::Result<Event>> {
        self.events.recv().await
    }
}
