//! The broker side of a consumer's offset requests: ListOffsets (`KafkaApis.handleListOffsetRequest`
//! → `ReplicaManager.fetchOffset`) and OffsetsForLeaderEpoch
//! (`KafkaApis.handleOffsetForLeaderEpochRequest` → `ReplicaManager.lastOffsetForLeaderEpoch`).
//! A broker with no replica of the partition answers NOT_LEADER_OR_FOLLOWER.

use super::Broker;
use crate::kafka::errors::ErrorCode;
use crate::sim::protocol::{
    EpochRequest, EpochResponse, ListOffsetsRequest, ListOffsetsResponse, Message, NodeId,
};
use crate::sim::{Ms, Outbox};

impl Broker {
    /// Answers a consumer's ListOffsets ([`crate::sim::partition::Partition::list_offset`]).
    pub(super) fn on_list_offsets(
        &mut self,
        _now: Ms,
        from: NodeId,
        req: ListOffsetsRequest,
        out: &mut Outbox,
    ) {
        let result = match self.partitions.get(&req.tp) {
            Some(p) => p.list_offset(req.current_leader_epoch, req.spec),
            None => Err(ErrorCode::NotLeaderOrFollower),
        };
        let resp = ListOffsetsResponse { correlation_id: req.correlation_id, tp: req.tp, result };
        out.send(from, Message::ListOffsetsResponse(resp));
    }

    /// Answers a consumer's OffsetsForLeaderEpoch
    /// ([`crate::sim::partition::Partition::end_offset_for_consumer`]).
    pub(super) fn on_offsets_for_leader_epoch(&mut self, from: NodeId, req: EpochRequest, out: &mut Outbox) {
        let result = match self.partitions.get(&req.tp) {
            Some(p) => p.end_offset_for_consumer(req.current_leader_epoch, req.leader_epoch),
            None => Err(ErrorCode::NotLeaderOrFollower),
        };
        let resp = EpochResponse { correlation_id: req.correlation_id, tp: req.tp, result };
        out.send(from, Message::OffsetsForLeaderEpochResponse(resp));
    }
}
