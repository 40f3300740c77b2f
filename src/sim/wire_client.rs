//! A real client's connection, as a node of the simulated cluster: the wire adapter
//! (`crate::wire`) hands it the requests it decoded, the network carries them to the broker
//! like any client's, and what the broker answers waits here until the adapter collects it.
//! Acknowledged produce answers go to the audit ledger like a simulated producer's.

use super::protocol::{Message, NodeId, Values};
use super::{AckedRecords, Acks, BrokerId, Ms, Outbox, TopicPartition};
use std::collections::BTreeMap;

/// What the connection remembers of a produce request until its answer comes.
#[derive(Clone, Debug)]
struct SentBatch {
    tp: TopicPartition,
    values: Values,
    acks: Acks,
}

/// One TCP connection of a real client to one broker, seen from inside the simulation.
#[derive(Clone, Debug, Default)]
pub struct WireClient {
    /// Answers received and not yet collected by the adapter, in arrival order.
    answers: Vec<(NodeId, Message)>,
    /// Produce requests sent with `acks` 1 or -1 and not answered yet, by correlation id.
    sent: BTreeMap<u64, SentBatch>,
}

impl WireClient {
    /// Remembers what `msg`, about to go to a broker, carries, so that its answer can be
    /// entered in the audit ledger.
    pub fn on_send(&mut self, msg: &Message) {
        if let Message::Produce(p) = msg
            && p.acks != Acks::Zero
        {
            let batch = SentBatch { tp: p.tp.clone(), values: p.batch.values.clone(), acks: p.acks };
            self.sent.insert(p.correlation_id, batch);
        }
    }

    /// Takes an answer (or a connection's news: `Connected`, `Disconnected`). A successful
    /// produce answer acknowledges its records (`Outbox::acked`), as the producer's
    /// `Sender.completeBatch` does for a simulated producer.
    pub fn handle(&mut self, _now: Ms, from: NodeId, msg: Message, out: &mut Outbox) {
        if let Message::ProduceResponse(r) = &msg
            && let Some(batch) = self.sent.remove(&r.correlation_id)
            && let (Ok((base_offset, leader_epoch)), NodeId::Broker(leader)) = (&r.result, from)
        {
            out.acked.push(AckedRecords {
                tp: batch.tp,
                base_offset: *base_offset,
                leader_epoch: *leader_epoch,
                leader: leader as BrokerId,
                values: batch.values,
                acks: batch.acks,
                retried: false,
            });
        }
        self.answers.push((from, msg));
    }

    /// The answers received since the last call, oldest first.
    pub fn take_answers(&mut self) -> Vec<(NodeId, Message)> {
        std::mem::take(&mut self.answers)
    }
}
