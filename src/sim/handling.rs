//! Broker processing time: when a message that reached a broker has been worked through by
//! the broker's threads and takes effect (the core reads it), as Kafka's request pipeline and
//! replica fetcher queue the work. Sans-IO arithmetic on sim instants (µs); the network calls
//! it when it sends a message to a broker, with the instant the message will arrive, so
//! handler threads are given out in the order messages are sent (on one connection that is
//! the order they arrive).
//!
//! What Kafka does, and what isrlab keeps of it:
//! - A network `Processor` (`SocketServer`) reads a request from a connection and mutes that
//!   connection (`ChannelMuteEvent.REQUEST_RECEIVED`) until the request's response has been
//!   sent (`RESPONSE_SENT`, `tryUnmuteChannel`): one request per connection at a time. It puts
//!   the request on the broker's one `RequestChannel` queue, from which the
//!   `KafkaRequestHandlerPool`'s `num.io.threads` (8) `KafkaRequestHandler` threads take
//!   requests in order and run `KafkaApis.handle` on them (a produce appends to the leader's
//!   log, a fetch reads it or parks in the fetch purgatory). isrlab handles the requests of
//!   one connection one after another, each for `broker.request.handle.ms`, on the first of
//!   eight handler threads that is free. Simplification: the connection is free again when its
//!   request has been handled, not when its response was sent, because isrlab's producer sends
//!   one request per partition where Java's sends one per broker (the mute would serialize
//!   what Java sends together).
//! - A follower's `ReplicaFetcherThread` (one per source broker, `AbstractFetcherThread`)
//!   sends a fetch, waits for its response, and processes it (`processFetchRequest`:
//!   `processPartitionData` validates and appends each partition's records) before its next
//!   `doWork` turn builds and sends the next fetch. isrlab gives each fetch response
//!   `broker.fetch.process.ms` on the fetcher of its source broker, one response after another;
//!   the fetcher does not use a request handler thread.
//! - A follower fetch that finds no new data parks in the fetch purgatory (`DelayedFetch`).
//!   An append completes it on the appending request's own handler thread, after that
//!   request's response: `ReplicaManager.appendRecords` queues the purgatory check as an
//!   action that `KafkaApis.handle` runs last (`tryCompleteActions`), and
//!   `DelayedFetch.onComplete` reads the log then. isrlab sends such a response
//!   `broker.request.handle.ms` after the core completes it: the read of a fetch, as when it
//!   is answered at once. (That work does not hold up the handler thread in isrlab.)
//! - Every other message (the controller's, connection handshakes) takes no time, but waits
//!   behind the work queued on its connection, so a connection never reorders.

use crate::config::HandlingConfig;
use crate::kafka::{BrokerId, SimTime};
use crate::sim::protocol::{Message, NodeId};
use std::collections::BTreeMap;
use std::collections::btree_map::Entry;

/// Kafka's `num.io.threads` default (8, `ServerConfigs.NUM_IO_THREADS_DEFAULT`): the request
/// handler threads of one broker.
pub const NUM_IO_THREADS: usize = 8;

/// Which of a broker's threads works on a message.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Work {
    /// A request handler thread (`KafkaRequestHandler`): a produce or fetch request.
    Request,
    /// The replica fetcher thread of the message's sender: a fetch response.
    FetchResponse,
}

impl Work {
    /// What a broker's threads do with `msg`, if it costs them time.
    pub fn of(msg: &Message) -> Option<Work> {
        match msg {
            Message::Produce(_) | Message::Fetch(_) => Some(Work::Request),
            Message::FetchResponse(_) => Some(Work::FetchResponse),
            _ => None,
        }
    }

    /// How long it takes under `config` (µs).
    fn micros(self, config: &HandlingConfig) -> u64 {
        match self {
            Work::Request => config.request_handle_us,
            Work::FetchResponse => config.fetch_process_us,
        }
    }
}

/// Every broker's processing times and queues: per connection (the broker and the peer that
/// sent), when it has worked through what came in so far; per broker, when each request
/// handler thread is free.
#[derive(Clone, Debug, Default)]
pub struct RequestQueues {
    /// The processing times every broker has, unless set for it alone.
    defaults: HandlingConfig,
    /// Processing times set for one broker (`set broker B broker.*=…`).
    own: BTreeMap<BrokerId, HandlingConfig>,
    /// Each broker's connections and threads (one lookup per message finds both).
    brokers: BTreeMap<BrokerId, BrokerQueues>,
}

/// One broker's queues.
#[derive(Clone, Debug, Default)]
struct BrokerQueues {
    /// When each connection's last message has been handled: sender → instant.
    lanes: BTreeMap<NodeId, SimTime>,
    /// When each of its request handler threads is free.
    handlers: [SimTime; NUM_IO_THREADS],
}

impl RequestQueues {
    /// Queues for brokers that all have the processing times `defaults`.
    pub fn new(defaults: HandlingConfig) -> Self {
        Self { defaults, ..Self::default() }
    }

    /// The processing times of `broker`.
    pub fn config(&self, broker: BrokerId) -> HandlingConfig {
        self.own.get(&broker).copied().unwrap_or(self.defaults)
    }

    /// Sets a `broker.*` lab property for every broker (`None`; a value set for one broker
    /// before is replaced: the later setting wins) or for one. Errors: as
    /// [`HandlingConfig::set`]; nothing changes then.
    pub fn set(
        &mut self,
        broker: Option<BrokerId>,
        key: &str,
        value: &str,
    ) -> Result<(), crate::config::ConfigError> {
        match broker {
            Some(b) => {
                let mut c = self.config(b);
                c.set(key, value)?;
                self.own.insert(b, c);
            }
            None => {
                self.defaults.set(key, value)?;
                for c in self.own.values_mut() {
                    c.set(key, value)?;
                }
            }
        }
        Ok(())
    }

    /// When `msg`, which reached `broker` from `from` at `arrival`, has been worked through
    /// and takes effect: after what came before it on the connection, and for a request also
    /// after a request handler thread is free, plus its processing time (see the module).
    pub fn handled_at(&mut self, arrival: SimTime, broker: BrokerId, from: NodeId, msg: &Message) -> SimTime {
        let work = Work::of(msg);
        let took = work.map_or(0, |w| w.micros(&self.config(broker)));
        let queues = self.brokers.entry(broker).or_default();
        let lane = queues.lanes.entry(from);
        let start = match &lane {
            Entry::Occupied(l) => (*l.get()).max(arrival),
            Entry::Vacant(_) => arrival,
        };
        let done = match work {
            None => start,
            Some(Work::Request) => on_handler_thread(&mut queues.handlers, start, took),
            Some(Work::FetchResponse) => start.plus_micros(took),
        };
        if done > arrival {
            match lane {
                Entry::Occupied(mut l) => *l.get_mut() = done,
                Entry::Vacant(l) => {
                    l.insert(done);
                }
            }
        }
        done
    }

    /// When a response `broker` sends to `to` at `now` leaves: a fetch response to a fetch
    /// that was handled before `now` (it waited in the purgatory) leaves after the read that
    /// completes it; every other message at once.
    pub fn answered_at(&self, now: SimTime, broker: BrokerId, to: NodeId, msg: &Message) -> SimTime {
        let parked = matches!(msg, Message::FetchResponse(_))
            && self.brokers.get(&broker).and_then(|q| q.lanes.get(&to)).is_some_and(|&handled| handled < now);
        if parked { now.plus_micros(self.config(broker).request_handle_us) } else { now }
    }

    /// `broker`'s process ended (or started again): the work it had queued is gone.
    pub fn forget(&mut self, broker: BrokerId) {
        self.brokers.remove(&broker);
    }
}

/// Runs `took` µs of work that may start at `ready` on the first of a broker's handler
/// `threads` to be free; returns when it is done.
fn on_handler_thread(threads: &mut [SimTime; NUM_IO_THREADS], ready: SimTime, took: u64) -> SimTime {
    if took == 0 {
        return ready;
    }
    let first_free = (0..NUM_IO_THREADS).min_by_key(|&i| threads[i]).unwrap_or(0);
    let done = threads[first_free].max(ready).plus_micros(took);
    threads[first_free] = done;
    done
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::protocol::{Message, NodeId};

    const LEADER: BrokerId = 0;

    fn us(t: u64) -> SimTime {
        SimTime::from_micros(t)
    }

    fn queues(handle: u64, process: u64) -> RequestQueues {
        RequestQueues::new(HandlingConfig { request_handle_us: handle, fetch_process_us: process })
    }

    /// Stands for a produce or fetch request (only its kind matters here).
    fn request() -> Message {
        Message::Fetch(crate::sim::protocol::FetchRequest {
            correlation_id: 1,
            replica: 1,
            broker_epoch: 1,
            max_wait_ms: 500,
            min_bytes: 1,
            partition_max_bytes: 1,
            max_bytes: 1,
            session: crate::sim::fetch_session::FetchMetadata::INITIAL,
            partitions: Vec::new(),
            forgotten: Vec::new(),
        })
    }

    fn response() -> Message {
        Message::FetchResponse(crate::sim::protocol::FetchResponse {
            correlation_id: 1,
            leader: LEADER,
            error: None,
            session_id: 0,
            partitions: Vec::new(),
        })
    }

    #[test]
    fn requests_on_one_connection_are_handled_one_after_another() {
        let mut q = queues(100, 0);
        let p = NodeId::Producer(0);
        assert_eq!(q.handled_at(us(1_000), LEADER, p, &request()), us(1_100));
        // Arrived while the first was handled: waits for it.
        assert_eq!(q.handled_at(us(1_010), LEADER, p, &request()), us(1_200));
        // Another connection is handled at once, on another handler thread.
        assert_eq!(q.handled_at(us(1_020), LEADER, NodeId::Broker(1), &request()), us(1_120));
        // A message that costs nothing keeps its place behind the connection's queue.
        assert_eq!(q.handled_at(us(1_030), LEADER, p, &Message::Connect), us(1_200));
        // Once the queue is empty, a request is handled from its arrival.
        assert_eq!(q.handled_at(us(5_000), LEADER, p, &request()), us(5_100));
    }

    #[test]
    fn a_broker_has_eight_handler_threads() {
        let mut q = queues(1_000, 0);
        let done: Vec<SimTime> =
            (0..9).map(|p| q.handled_at(us(0), LEADER, NodeId::Producer(p), &request())).collect();
        assert!(done[..8].iter().all(|&t| t == us(1_000)), "eight at once: {done:?}");
        assert_eq!(done[8], us(2_000), "the ninth waits for a free thread");
        // Another broker's threads are its own.
        assert_eq!(q.handled_at(us(0), 1, NodeId::Producer(0), &request()), us(1_000));
    }

    #[test]
    fn a_fetcher_processes_one_response_after_another_without_a_handler_thread() {
        let mut q = queues(1_000, 300);
        let follower = 1;
        for p in 0..8 {
            q.handled_at(us(0), follower, NodeId::Producer(p), &request());
        }
        let from_leader = NodeId::Broker(LEADER);
        assert_eq!(q.handled_at(us(10), follower, from_leader, &response()), us(310), "no handler thread");
        assert_eq!(q.handled_at(us(20), follower, from_leader, &response()), us(610), "behind the first");
        assert_eq!(
            q.handled_at(us(20), follower, NodeId::Broker(2), &response()),
            us(320),
            "one fetcher per source"
        );
    }

    #[test]
    fn a_fetch_answered_from_the_purgatory_leaves_after_its_read() {
        let mut q = queues(100, 0);
        let follower = NodeId::Broker(1);
        assert_eq!(q.handled_at(us(1_000), LEADER, follower, &request()), us(1_100));
        // Answered as it is handled: its read was the handling.
        assert_eq!(q.answered_at(us(1_100), LEADER, follower, &response()), us(1_100));
        // Parked, then completed by an append at 3 ms: the read comes after it.
        assert_eq!(q.answered_at(us(3_000), LEADER, follower, &response()), us(3_100));
        // Other messages leave at once.
        assert_eq!(q.answered_at(us(3_000), LEADER, NodeId::Producer(0), &Message::Connect), us(3_000));
    }

    #[test]
    fn settings_per_broker_win_until_the_next_cluster_wide_one_and_a_restart_forgets_the_queue() {
        let mut q = queues(100, 200);
        q.set(Some(2), "broker.request.handle.ms", "1.5").unwrap();
        assert_eq!(q.config(2).request_handle_us, 1_500);
        assert_eq!(q.config(1).request_handle_us, 100);
        assert!(q.set(Some(2), "broker.request.handle.ms", "x").is_err());
        assert!(q.set(None, "net.latency.ms", "1").is_err());
        assert_eq!(q.config(2).request_handle_us, 1_500, "nothing changed");
        assert_eq!(q.handled_at(us(0), 2, NodeId::Producer(0), &request()), us(1_500));
        q.forget(2);
        assert_eq!(q.handled_at(us(10), 2, NodeId::Producer(0), &request()), us(1_510), "a fresh queue");
        q.set(None, "broker.request.handle.ms", "0").unwrap();
        assert_eq!((q.config(1).request_handle_us, q.config(2).request_handle_us), (0, 0));
        assert_eq!(q.handled_at(us(7), 1, NodeId::Producer(0), &request()), us(7), "no time, no queue");
    }
}
