//! The leader side of a consumer's requests for one partition: Fetch below the HW (R3.8),
//! ListOffsets (R3.9) and OffsetsForLeaderEpoch (R7.5, KIP-320). Kafka's `Partition`
//! (`fetchRecords`, `fetchOffsetForTimestamp`, `lastOffsetForLeaderEpoch`) with
//! `fetchOnlyFromLeader = true`.

use super::{Partition, Role};
use crate::kafka::errors::ErrorCode;
use crate::sim::protocol::{EpochEndOffset, FetchPartition, FetchedData, OffsetSpec};
use crate::sim::{Epoch, Offset};

impl Partition {
    /// Leader-only requests' epoch fencing (KIP-320, R2.8; `Partition.localLogWithEpochOrThrow`):
    /// NOT_LEADER_OR_FOLLOWER on a replica that does not lead, FENCED_LEADER_EPOCH when the
    /// request's epoch is older than the leader's, UNKNOWN_LEADER_EPOCH when newer.
    pub(super) fn check_leader_epoch(&self, current_leader_epoch: Epoch) -> Result<(), ErrorCode> {
        if !self.is_leader() {
            return Err(ErrorCode::NotLeaderOrFollower);
        }
        let epoch = self.leader_epoch();
        // `Partition.checkCurrentLeaderEpoch`: a request without an epoch (its -1 is
        // `Optional.empty`, as an older request version sends, `NO_PARTITION_LEADER_EPOCH`) is not checked.
        if current_leader_epoch == -1 {
            return Ok(());
        }
        if current_leader_epoch < epoch {
            return Err(ErrorCode::FencedLeaderEpoch);
        }
        if current_leader_epoch > epoch {
            return Err(ErrorCode::UnknownLeaderEpoch);
        }
        Ok(())
    }

    /// Whether this replica leads in `epoch` (a parked fetch for another epoch completes at
    /// once, with the error a fresh read gives).
    pub fn leads_in(&self, epoch: Epoch) -> bool {
        self.is_leader() && self.leader_epoch() == epoch
    }

    /// A consumer's fetch of this partition (R3.8; `Partition.fetchRecords` with
    /// `FetchIsolation.HIGH_WATERMARK`, `LocalLog.read` with `maxOffsetMetadata` = HW): whole
    /// batches from the one holding the fetch offset, none reaching past the HW, at most
    /// `max_bytes` but at least one (KIP-74). At or above the HW and up to the LEO the answer
    /// is empty; above the LEO or below the log start it is OFFSET_OUT_OF_RANGE. Nothing is
    /// recorded: a consumer is not a follower.
    pub fn read_for_consumer(&self, fp: &FetchPartition, max_bytes: u64) -> Result<FetchedData, ErrorCode> {
        self.check_leader_epoch(fp.current_leader_epoch)?;
        if fp.fetch_offset > self.log.leo() || fp.fetch_offset < self.log.log_start() {
            return Err(ErrorCode::OffsetOutOfRange);
        }
        let batches = self.log.read_below(fp.fetch_offset, max_bytes, self.log.hw());
        Ok(self.fetched(None, batches))
    }

    /// A ListOffsets for this partition (READ_UNCOMMITTED; `Partition.fetchOffsetForTimestamp`):
    /// earliest is the log start offset with the epoch of its record (the current epoch on
    /// an empty log); latest is the HW with the current leader epoch, except that a leader
    /// whose HW is still below its epoch's start offset answers OFFSET_NOT_AVAILABLE (R3.9,
    /// KIP-207): it does not know yet where the committed log ends.
    pub fn list_offset(
        &self,
        current_leader_epoch: Epoch,
        spec: OffsetSpec,
    ) -> Result<(Offset, Epoch), ErrorCode> {
        self.check_leader_epoch(current_leader_epoch)?;
        let epoch = self.leader_epoch();
        match spec {
            OffsetSpec::Earliest => {
                let start = self.log.log_start();
                let at = self.log.batch_at(start).map_or(epoch, |b| b.leader_epoch);
                Ok((start, at))
            }
            OffsetSpec::Latest => {
                let epoch_start = match &self.role {
                    Role::Leader(ls) => ls.epoch_start_offset,
                    _ => 0,
                };
                if epoch_start > self.log.hw() {
                    return Err(ErrorCode::OffsetNotAvailable);
                }
                Ok((self.log.hw(), epoch))
            }
        }
    }

    /// An OffsetsForLeaderEpoch from a consumer (`Partition.lastOffsetForLeaderEpoch` →
    /// `LeaderEpochFileCache.endOffsetFor`, R7.5): the largest epoch at or below `epoch` and
    /// where it ends here (the LEO for the latest epoch; for an epoch older than all it knows,
    /// the asked epoch and the start of its first epoch); epoch and offset `-1` when `epoch` is
    /// newer than every epoch it knows, or it knows none.
    pub fn end_offset_for_consumer(
        &self,
        current_leader_epoch: Epoch,
        epoch: Epoch,
    ) -> Result<EpochEndOffset, ErrorCode> {
        self.check_leader_epoch(current_leader_epoch)?;
        Ok(self.log.end_offset_for(epoch).unwrap_or(EpochEndOffset { epoch: -1, end_offset: -1 }))
    }
}
