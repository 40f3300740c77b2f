//! The leader appending a group coordinator's records to its own replica of a
//! `__consumer_offsets` partition.

use super::{Ctx, Partition};
use crate::kafka::errors::ErrorCode;
use crate::sim::protocol::Batch;
use crate::sim::{Offset, Outbox};

impl Partition {
    /// Appends `batch` as leader with `requiredAcks = 1`, as Kafka 4.x's
    /// `CoordinatorPartitionWriter.append` does (`ReplicaManager.appendRecords` with
    /// `AppendOrigin.COORDINATOR`): no min ISR check on the append, the HW recomputed after it.
    /// Returns the offset after the last record, which the write waits for the HW to reach.
    /// Errors: `NOT_LEADER_OR_FOLLOWER` on a replica that does not lead.
    pub fn append_as_coordinator(
        &mut self,
        ctx: &Ctx,
        batch: &Batch,
        out: &mut Outbox,
    ) -> Result<Offset, ErrorCode> {
        if !self.is_leader() {
            return Err(ErrorCode::NotLeaderOrFollower);
        }
        let info = self.log.append_as_leader(batch, self.leader_epoch())?;
        if self.log.written(ctx.now) {
            out.fsyncs += 1;
        }
        self.maybe_increment_hw(ctx, out);
        Ok(info.last_offset + 1)
    }
}
