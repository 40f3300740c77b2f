//! The wire adapter: every simulated broker speaks the Kafka protocol on its own TCP listener,
//! so real clients (kcat, kafka-python, confluent-kafka, kafkajs) can use the simulated
//! cluster. This is the only module that uses the `kafka-protocol` crate.
//!
//! Each accepted connection becomes a [`NodeId::Client`] node of the simulation
//! (`crate::sim::wire_client`). A request is decoded, its version checked against
//! [`versions::SUPPORTED`], translated into the simulated broker's messages, sent through the
//! simulated network at the sim instant it arrived, and answered once the broker's answer
//! comes back on the virtual clock (`handlers`). Requests on one connection are read one at a
//! time, as Kafka's `SocketServer` mutes a channel until its response is sent, so responses
//! come back in request order. A frame above the maximum size, or one that cannot be decoded,
//! closes its connection with a logged reason.
//!
//! Real clients bring wall-clock time: while listening, the simulation runs at 1× wall speed
//! (the adapter's pump grants sim time when [`Pacing::Wall`]; the dashboard's pacer does it
//! otherwise). Their requests are not part of a recording, so a session with real clients does
//! not replay.

mod conn;
mod describe;
mod groups;
mod handlers;
pub mod records;
pub mod versions;
pub mod view;

use crate::cluster::handle::WirePort;
use crate::sim::protocol::{Message, NodeId};
use crate::sim::{BrokerId, SimTime};
use records::RecordStore;
use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr, TcpListener as StdListener};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::mpsc::UnboundedSender;
use view::ClusterView;

/// The largest request frame read (bytes), Kafka's `socket.request.max.bytes` default.
pub const MAX_FRAME_BYTES: usize = 104_857_600;

/// The first listener's port by default (broker index 0); broker `i` listens on this + `i`.
pub const DEFAULT_BASE_PORT: u16 = 9092;

/// How often the pump collects the brokers' answers (and grants sim time).
const PUMP_EVERY: Duration = Duration::from_millis(2);

/// Who moves sim time while the adapter listens.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Pacing {
    /// The adapter itself: sim time follows the wall clock from `start` (a headless run).
    Wall {
        /// The sim instant when listening started.
        start: SimTime,
    },
    /// Someone else (the dashboard's pacer).
    External,
}

/// Where each open connection's answers go, by connection number.
type Routes = Arc<Mutex<BTreeMap<u32, UnboundedSender<(NodeId, Message)>>>>;

/// What the listeners share.
pub(crate) struct Shared {
    port: WirePort,
    /// The address each broker listens on, by broker id.
    addrs: BTreeMap<BrokerId, SocketAddr>,
    /// Where each open connection's answers go, by connection number.
    routes: Routes,
    next_client: AtomicU32,
    store: RecordStore,
    max_frame: usize,
    /// Which brokers listen (their process runs and accepts connections), by broker id.
    listening: tokio::sync::watch::Sender<BTreeMap<BrokerId, bool>>,
}

impl Shared {
    /// Reads the cluster as the brokers' metadata shows it, on the sim thread.
    pub(crate) async fn view(&self) -> Option<ClusterView> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.port.run(move |w| {
            let _ = tx.send(ClusterView::read(w));
        });
        rx.await.ok()
    }
}

/// The running listeners, one per broker. Dropping it stops them.
pub struct Listeners {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// The address of each broker's listener, by broker id.
    pub addrs: BTreeMap<BrokerId, SocketAddr>,
}

impl Listeners {
    /// Binds one listener per broker on `ip`, at `base_port` + the broker's index (its place
    /// among `brokers`; with `base_port` 0, each on a free port the system picks), and serves them on a thread of their own. Errors: a port that cannot
    /// be bound (in use, or above 65535).
    pub fn start(
        port: WirePort,
        brokers: &[BrokerId],
        ip: IpAddr,
        base_port: u16,
        pacing: Pacing,
    ) -> std::io::Result<Listeners> {
        let mut bound = Vec::new();
        for (i, b) in brokers.iter().enumerate() {
            let offset = if base_port == 0 { 0 } else { i };
            let p = u16::try_from(usize::from(base_port) + offset).map_err(|_| {
                std::io::Error::other(format!(
                    "broker {b}'s port {} is above 65535",
                    usize::from(base_port) + i
                ))
            })?;
            let l = StdListener::bind((ip, p)).map_err(|e| {
                std::io::Error::new(e.kind(), format!("cannot listen on {ip}:{p} for broker {b}: {e}"))
            })?;
            l.set_nonblocking(true)?;
            bound.push((*b, l));
        }
        let addrs: BTreeMap<BrokerId, SocketAddr> =
            bound.iter().map(|(b, l)| Ok((*b, l.local_addr()?))).collect::<std::io::Result<_>>()?;
        let shared = Arc::new(Shared {
            port,
            addrs: addrs.clone(),
            routes: Arc::default(),
            next_client: AtomicU32::new(0),
            store: RecordStore::default(),
            max_frame: MAX_FRAME_BYTES,
            listening: tokio::sync::watch::Sender::new(brokers.iter().map(|b| (*b, true)).collect()),
        });
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        let thread = std::thread::Builder::new().name("isrlab-wire".into()).spawn(move || {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_all().build() else { return };
            rt.block_on(async move {
                for (b, l) in bound {
                    let Ok(l) = tokio::net::TcpListener::from_std(l) else { continue };
                    tokio::spawn(conn::accept_loop(shared.clone(), b, l));
                }
                pump(shared, pacing, stopping).await;
            });
        })?;
        Ok(Listeners { stop, thread: Some(thread), addrs })
    }
}

impl Drop for Listeners {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Collects the brokers' answers every [`PUMP_EVERY`] and hands each to its connection; with
/// [`Pacing::Wall`], also lets sim time follow the wall clock. Ends when stopped or when the
/// simulation has stopped.
// Real clients live on the wall clock: the pump's period and the 1× pacing read it; the sim
// itself never does (it only receives "advance to T").
#[allow(clippy::disallowed_methods)]
async fn pump(shared: Arc<Shared>, pacing: Pacing, stop: Arc<AtomicBool>) {
    let started = Instant::now();
    let mut tick = tokio::time::interval(PUMP_EVERY);
    while !stop.load(Ordering::Relaxed) {
        tick.tick().await;
        if let Pacing::Wall { start } = pacing {
            let elapsed = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
            shared.port.advance_to(start.plus_micros(elapsed));
        }
        let routes = shared.routes.clone();
        let listening = shared.listening.clone();
        let brokers: Vec<BrokerId> = shared.addrs.keys().copied().collect();
        let alive = shared.port.run(move |w| {
            let now: BTreeMap<BrokerId, bool> = brokers.iter().map(|b| (*b, w.wire_listening(*b))).collect();
            listening.send_if_modified(|was| {
                let changed = *was != now;
                *was = now;
                changed
            });
            let answers = w.wire_take();
            if answers.is_empty() {
                return;
            }
            let routes = routes.lock().unwrap_or_else(|e| e.into_inner());
            for (client, from, msg) in answers {
                if let Some(tx) = routes.get(&client) {
                    let _ = tx.send((from, msg));
                }
            }
        });
        if !alive {
            break;
        }
    }
}
