//! One TCP connection: frames in, responses out, in request order. A connection is a
//! simulated client node for as long as it is open; the broker's crash (a `Disconnected` from
//! the simulated network) closes it, as a killed broker's sockets close.

use super::Shared;
use super::handlers::{Closed, Handler};
use crate::sim::BrokerId;
use crate::sim::protocol::Message;
use bytes::Bytes;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::OwnedReadHalf;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

/// Accepts connections to broker `broker` until the runtime ends. While the broker's process
/// is down its listener is closed, so connections are refused as by a dead host; when it runs
/// again the listener binds the same address again.
pub(super) async fn accept_loop(shared: Arc<Shared>, broker: BrokerId, listener: TcpListener) {
    let Ok(addr) = listener.local_addr() else { return };
    let mut listener = Some(listener);
    let mut news = shared.listening.subscribe();
    loop {
        let up = news.borrow_and_update().get(&broker).copied().unwrap_or(false);
        match (&listener, up) {
            (Some(_), false) => {
                tracing::info!(broker, %addr, "the broker is down: its listener closes");
                listener = None;
                continue;
            }
            (None, true) => match TcpListener::bind(addr).await {
                Ok(l) => {
                    tracing::info!(broker, %addr, "the broker runs again: listening");
                    listener = Some(l);
                    continue;
                }
                Err(e) => tracing::warn!(broker, %addr, "cannot listen again: {e}"),
            },
            _ => {}
        }
        match &listener {
            Some(l) => tokio::select! {
                accepted = l.accept() => match accepted {
                    Ok((stream, peer)) => {
                        tokio::spawn(serve(shared.clone(), broker, stream, peer));
                    }
                    Err(e) => tracing::warn!(broker, "accept failed: {e}"),
                },
                changed = news.changed() => if changed.is_err() { return },
            },
            None => {
                if news.changed().await.is_err() {
                    return;
                }
            }
        }
    }
}

/// Serves one connection until the client or the broker closes it, or a frame is bad.
async fn serve(shared: Arc<Shared>, broker: BrokerId, stream: TcpStream, peer: SocketAddr) {
    let client = shared.next_client.fetch_add(1, Ordering::Relaxed);
    let (tx, answers) = mpsc::unbounded_channel();
    shared.routes.lock().unwrap_or_else(|e| e.into_inner()).insert(client, tx);
    shared.port.run(move |w| w.wire_open(client, broker));
    let mut handler = Handler::new(shared.clone(), broker, client, peer, answers);
    let reason = match handler.connected().await {
        Ok(()) => converse(&mut handler, stream).await,
        Err(Closed(reason)) => reason,
    };
    tracing::info!(broker, %peer, client, "connection closed: {reason}");
    shared.routes.lock().unwrap_or_else(|e| e.into_inner()).remove(&client);
    shared.port.run(move |w| w.wire_close(client));
}

/// Reads requests and writes responses until the connection ends; returns why it ended.
async fn converse(handler: &mut Handler, stream: TcpStream) -> String {
    let (read, mut write) = stream.into_split();
    let (frames_tx, mut frames) = mpsc::channel(1);
    let max = handler.max_frame();
    let reader = tokio::spawn(read_frames(read, max, frames_tx));
    let reason = loop {
        tokio::select! {
            frame = frames.recv() => {
                let frame = match frame {
                    Some(Ok(f)) => f,
                    Some(Err(reason)) => break reason,
                    None => break "the client closed the connection".to_string(),
                };
                match handler.handle(frame).await {
                    Ok(Some(response)) => {
                        if let Err(e) = write.write_all(&response).await {
                            break format!("write failed: {e}");
                        }
                    }
                    Ok(None) => {}
                    Err(Closed(reason)) => break reason,
                }
            }
            news = handler.next_news() => {
                if let Some(reason) = news {
                    break reason;
                }
            }
        }
    };
    reader.abort();
    let _ = write.shutdown().await;
    reason
}

/// Reads size-prefixed frames into `out`; a frame of a negative size or above `max` bytes ends
/// the stream with the reason.
async fn read_frames(mut read: OwnedReadHalf, max: usize, out: mpsc::Sender<Result<Bytes, String>>) {
    loop {
        let mut size = [0u8; 4];
        if read.read_exact(&mut size).await.is_err() {
            return;
        }
        let size = i32::from_be_bytes(size);
        let Some(len) = usize::try_from(size).ok().filter(|l| *l <= max) else {
            let _ = out.send(Err(format!("frame of {size} bytes (the maximum is {max})"))).await;
            return;
        };
        let mut frame = vec![0u8; len];
        if read.read_exact(&mut frame).await.is_err() {
            return;
        }
        if out.send(Ok(Bytes::from(frame))).await.is_err() {
            return;
        }
    }
}

/// Whether `msg` from the network says the connection is gone.
pub(super) fn is_disconnect(msg: &Message) -> bool {
    matches!(msg, Message::Disconnected { .. })
}
