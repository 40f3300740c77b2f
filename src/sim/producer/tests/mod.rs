//! Tests of the producer, by part: the accumulator and partitioner, the sender, and the
//! index of partitions checked against walks over every partition.

use super::accumulator::{Holding, PendingRecord};
use super::sender::RequestCounts;
use super::*;
use crate::config::PartitionerClass;
use crate::kafka::errors::ErrorCode;
use crate::sim::events::ProduceFailure;
use crate::sim::protocol::PartitionState;
use crate::sim::protocol::{MetadataDelta, ProduceRequest, ProduceResponse, Values};
use crate::sim::{AckedRecords, Acks, TopicPartition};
use rand::SeedableRng;

mod accumulator;
mod index;
mod lazy;
mod sender;

pub(super) const TOPIC: &str = "t";

pub(super) fn config() -> ProducerConfig {
    ProducerConfig { rate: 0.0, ..ProducerConfig::default() }
}

pub(super) fn producer(config: ProducerConfig, seed: u64) -> ProducerClient {
    ProducerClient::new(0, Arc::from(TOPIC), config, 7, ChaCha8Rng::seed_from_u64(seed))
}

/// A producer (seed 1) that has learned the leaders (one per partition) at `epoch`.
pub(super) fn with_leaders(
    config: ProducerConfig,
    leaders: &[Option<BrokerId>],
    epoch: Epoch,
) -> (ProducerClient, Outbox) {
    let mut p = producer(config, 1);
    let mut out = Outbox::default();
    p.handle(0, metadata(leaders, epoch), &mut out);
    for &b in leaders.iter().flatten() {
        connect(&mut p, b);
    }
    (p, out)
}

/// Gives `p` a ready connection to broker `b` (as if its handshake had been answered).
pub(super) fn connect(p: &mut ProducerClient, b: BrokerId) {
    p.conns.connecting(b, 0, &p.config, &mut p.rng);
    p.conns.ready(b);
}

pub(super) fn connects(out: &mut Outbox) -> Vec<NodeId> {
    let (connects, rest): (Vec<_>, Vec<_>) =
        mem::take(&mut out.sends).into_iter().partition(|(_, m)| *m == Message::Connect);
    out.sends = rest;
    connects.into_iter().map(|(to, _)| to).collect()
}

pub(super) fn tp(p: u32) -> TopicPartition {
    TopicPartition::new(TOPIC, p)
}

/// Metadata where partition `i` has leader `leaders[i]` at `epoch`.
pub(super) fn metadata(leaders: &[Option<BrokerId>], epoch: Epoch) -> Message {
    Message::Metadata(MetadataDelta {
        partitions: leaders
            .iter()
            .enumerate()
            .map(|(i, &leader)| PartitionState {
                topic_id: crate::sim::TopicId::from_bits(7),
                tp: tp(i as u32),
                replicas: vec![0, 1, 2],
                isr: vec![0, 1, 2],
                leader,
                leader_epoch: epoch,
                partition_epoch: epoch,
                leader_recovery: Default::default(),
                adding: Vec::new(),
                removing: Vec::new(),
                elr: Vec::new(),
                last_known_elr: Vec::new(),
            })
            .collect(),
        ..Default::default()
    })
}

pub(super) fn requests(out: &mut Outbox) -> Vec<(NodeId, ProduceRequest)> {
    mem::take(&mut out.sends)
        .into_iter()
        .map(|(to, m)| match m {
            Message::Produce(r) => (to, r),
            other => panic!("unexpected {other:?}"),
        })
        .collect()
}

pub(super) fn ok(r: &ProduceRequest, base_offset: i64, epoch: Epoch) -> Message {
    Message::ProduceResponse(ProduceResponse {
        correlation_id: r.correlation_id,
        tp: r.tp.clone(),
        result: Ok((base_offset, epoch)),
        error_message: String::new(),
    })
}

pub(super) fn err(r: &ProduceRequest, e: ErrorCode, msg: &str) -> Message {
    Message::ProduceResponse(ProduceResponse {
        correlation_id: r.correlation_id,
        tp: r.tp.clone(),
        result: Err(e),
        error_message: msg.to_string(),
    })
}

/// Calls `on_tick` at every deadline up to `until`, answering each request with `answer`
/// at the same instant; returns every request sent.
pub(super) fn drive(
    p: &mut ProducerClient,
    until: Ms,
    out: &mut Outbox,
    mut answer: impl FnMut(&ProduceRequest) -> Option<Message>,
) -> Vec<(Ms, ProduceRequest)> {
    let mut all = Vec::new();
    while let Some(t) = p.next_deadline()
        && t <= until
    {
        p.on_tick(t, out);
        for peer in connects(out) {
            p.handle(t, Message::Connected { peer }, out);
        }
        let mut batch = requests(out);
        while !batch.is_empty() {
            let mut next = Vec::new();
            for (_, r) in batch {
                if let Some(m) = answer(&r) {
                    p.handle(t, m, out);
                    next.extend(requests(out));
                }
                all.push((t, r));
            }
            batch = next;
        }
    }
    all
}

impl ProducerClient {
    /// [`ProducerClient::view`] as of the producer's last run.
    pub(super) fn view_last(&self) -> ProducerView {
        self.view(self.gen_last.unwrap_or(0))
    }
}
