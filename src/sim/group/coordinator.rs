//! A broker's group coordinator for classic groups: Kafka 4.x `GroupMetadataManager` (its
//! classic-group half) and `OffsetMetadataManager`, over the groups whose `__consumer_offsets`
//! partition this broker leads and has loaded.
//!
//! Writes: what the coordinator stores (a commit, a generation's assignment, an emptied
//! group) goes out as an [`OffsetsAppend`] that the broker appends to its leader log of the
//! offsets partition. As in Kafka 4.x (`CoordinatorPartitionWriter.append` uses
//! `requiredAcks = 1`; `CoordinatorRuntime` completes the write when the partition's HW passes
//! it), the write completes when [`GroupCoordinator::on_high_watermark`] reports the HW at or
//! past its end, and fails after `offsets.commit.timeout.ms` with `REQUEST_TIMED_OUT`. While
//! the partition is under min ISR its HW stands still (`Partition.maybeIncrementLeaderHW`
//! returns early when `isUnderMinIsr`, KAFKA-15583), so commits and rebalances of its groups
//! time out: the group stalls until the ISR is restored. Append errors reach the member as
//! `CoordinatorOperationExceptionHelper.handleOperationException` maps them
//! ([`coordinator_error`]): `NOT_ENOUGH_REPLICAS`, `REQUEST_TIMED_OUT` and
//! `UNKNOWN_TOPIC_OR_PARTITION` become `COORDINATOR_NOT_AVAILABLE`; `NOT_LEADER_OR_FOLLOWER`
//! becomes `NOT_COORDINATOR`.
//!
//! Not modelled: static membership (`group.instance.id`), the consumer (KIP-848) protocol,
//! offset expiry, transactions, `group.max.size`.

use super::super::{BrokerId, Ms, Offset, TopicPartition};
use super::classic::{
    ClassicGroup, ClientId, GroupMember, GroupState, JoinTimer, NEW_MEMBER_JOIN_TIMEOUT_MS,
};
use super::event::{GroupEvent, RebalanceReason};
use super::messages::{
    GroupId, GroupRequest, GroupResponse, JoinResponse, MemberId, MemberRecord, OffsetsRecord, Subscription,
};
use super::{GroupCoordinatorConfig, partition_for};
use crate::kafka::errors::ErrorCode;
use crate::sim::consumer::OffsetAndEpoch;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Records for the broker to append to its `__consumer_offsets` partition.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct OffsetsAppend {
    /// Write id, to report back with [`GroupCoordinator::appended`].
    pub write: u64,
    /// The `__consumer_offsets` partition.
    pub partition: u32,
    /// The records, in order.
    pub records: Vec<OffsetsRecord>,
}

/// What the coordinator wants done after an input.
#[derive(Debug, Default)]
pub struct GroupOutbox {
    /// Responses to send, by client.
    pub responses: Vec<(ClientId, GroupResponse)>,
    /// Records to append.
    pub appends: Vec<OffsetsAppend>,
    /// Events for the event log.
    pub events: Vec<GroupEvent>,
}

/// How Kafka 4.x answers a failed write to `__consumer_offsets`
/// (`CoordinatorOperationExceptionHelper.handleOperationException`,
/// `GroupMetadataManager.appendGroupMetadataErrorToResponseError`).
pub fn coordinator_error(append_error: ErrorCode) -> ErrorCode {
    match append_error {
        ErrorCode::UnknownTopicOrPartition | ErrorCode::NotEnoughReplicas | ErrorCode::RequestTimedOut => {
            ErrorCode::CoordinatorNotAvailable
        }
        ErrorCode::NotLeaderOrFollower => ErrorCode::NotCoordinator,
        other => other,
    }
}

#[derive(Clone, Debug)]
enum WriteKind {
    Commit { client: ClientId, group: GroupId, offsets: Vec<(TopicPartition, OffsetAndEpoch)> },
    Sync { group: GroupId, generation: i32, assignment: Vec<(MemberId, Vec<TopicPartition>)> },
    Empty,
}

#[derive(Clone, Debug)]
struct PendingWrite {
    partition: u32,
    /// The offset the HW must reach (`lastOffset + 1`), once appended.
    end: Option<Offset>,
    deadline: Ms,
    kind: WriteKind,
}

/// A broker's group coordinator.
#[derive(Clone, Debug)]
pub struct GroupCoordinator {
    broker: BrokerId,
    config: GroupCoordinatorConfig,
    num_partitions: u32,
    /// Loaded offsets partitions with their last known HW.
    loaded: BTreeMap<u32, Offset>,
    groups: BTreeMap<GroupId, ClassicGroup>,
    writes: BTreeMap<u64, PendingWrite>,
    next_write: u64,
    next_member: u64,
}

fn join_error(out: &mut GroupOutbox, client: ClientId, error: ErrorCode, member: &MemberId) {
    out.responses.push((client, GroupResponse::Join(JoinResponse::error(error, member.clone()))));
}

fn sync_answer(error: Option<ErrorCode>, assignment: Vec<TopicPartition>) -> GroupResponse {
    GroupResponse::Sync { error, assignment }
}

impl GroupCoordinator {
    /// A coordinator on broker `broker`; `num_partitions` is the partition count of
    /// `__consumer_offsets`.
    pub fn new(broker: BrokerId, config: GroupCoordinatorConfig, num_partitions: u32) -> Self {
        Self {
            broker,
            config,
            num_partitions,
            loaded: BTreeMap::new(),
            groups: BTreeMap::new(),
            writes: BTreeMap::new(),
            next_write: 0,
            next_member: 0,
        }
    }

    /// Applies new broker-side settings (they take effect for new timers).
    pub fn set_config(&mut self, config: GroupCoordinatorConfig) {
        self.config = config;
    }

    /// The offsets partition of `group`.
    pub fn partition_of(&self, group: &str) -> u32 {
        partition_for(group, self.num_partitions)
    }

    /// Whether this broker coordinates `group` now (it has loaded the group's partition).
    pub fn is_coordinator_for(&self, group: &str) -> bool {
        self.loaded.contains_key(&self.partition_of(group))
    }

    /// The offsets partitions loaded here.
    pub fn loaded_partitions(&self) -> impl Iterator<Item = u32> + '_ {
        self.loaded.keys().copied()
    }

    /// A group, if this coordinator has it.
    pub fn group(&self, id: &str) -> Option<&ClassicGroup> {
        self.groups.get(id)
    }

    /// Every group this coordinator has, by id.
    pub fn groups(&self) -> impl Iterator<Item = &ClassicGroup> {
        self.groups.values()
    }

    /// Becomes coordinator of `partition`'s groups: replays `records` (the partition's log
    /// up to its HW, as `CoordinatorLoaderImpl` does) and starts session timers for the
    /// members it finds (a loaded group with members is Stable, `ClassicGroup.fromRecord`).
    pub fn load(
        &mut self,
        now: Ms,
        partition: u32,
        records: &[OffsetsRecord],
        hw: Offset,
        out: &mut GroupOutbox,
    ) {
        self.loaded.insert(partition, hw);
        let num_partitions = self.num_partitions;
        for record in records.iter().filter(|r| partition_for(r.group(), num_partitions) == partition) {
            let g = self
                .groups
                .entry(record.group().clone())
                .or_insert_with(|| ClassicGroup::new(record.group().clone()));
            replay(g, record, now);
        }
        let groups = self.groups.keys().filter(|g| self.partition_of(g) == partition).count();
        // A partition without groups moves silently: there is nobody to notice.
        if groups > 0 {
            out.events.push(GroupEvent::CoordinatorLoaded { broker: self.broker, partition, groups });
        }
    }

    /// Stops coordinating `partition`'s groups (the broker lost its leadership): waiting
    /// JoinGroup and SyncGroup requests and pending writes get `NOT_COORDINATOR`
    /// (`GroupMetadataManager.onUnloaded`, `CoordinatorRuntime` failing deferred events).
    pub fn unload(&mut self, partition: u32, out: &mut GroupOutbox) {
        if self.loaded.remove(&partition).is_none() {
            return;
        }
        let ids: Vec<GroupId> =
            self.groups.keys().filter(|g| self.partition_of(g) == partition).cloned().collect();
        let had_groups = !ids.is_empty();
        for id in ids {
            let g = self.groups.remove(&id).expect("listed");
            for (member, m) in &g.members {
                if let Some(c) = m.awaiting_join {
                    join_error(out, c, ErrorCode::NotCoordinator, member);
                }
                if let Some(c) = m.awaiting_sync {
                    out.responses.push((c, sync_answer(Some(ErrorCode::NotCoordinator), vec![])));
                }
            }
        }
        let failed: Vec<u64> =
            self.writes.iter().filter(|(_, w)| w.partition == partition).map(|(id, _)| *id).collect();
        for id in failed {
            self.finish_write(0, id, Err(ErrorCode::NotLeaderOrFollower), out);
        }
        if had_groups {
            out.events.push(GroupEvent::CoordinatorUnloaded { broker: self.broker, partition });
        }
    }

    /// Handles a group request from `from` (FindCoordinator is the broker's, not answered here).
    pub fn handle(&mut self, now: Ms, from: ClientId, request: GroupRequest, out: &mut GroupOutbox) {
        if !self.is_coordinator_for(request.group()) {
            return not_coordinator(from, &request, out);
        }
        match request {
            GroupRequest::FindCoordinator { .. } => {}
            GroupRequest::Join {
                group,
                member,
                client_id,
                session_timeout_ms,
                rebalance_timeout_ms,
                protocols,
            } => {
                let join =
                    Join { from, member, client_id, session_timeout_ms, rebalance_timeout_ms, protocols };
                self.join(now, group, join, out)
            }
            GroupRequest::Sync { group, member, generation, assignments } => {
                self.sync(now, from, group, member, generation, assignments, out)
            }
            GroupRequest::Heartbeat { group, member, generation } => {
                let error = self.heartbeat(now, &group, &member, generation);
                out.responses.push((from, GroupResponse::Heartbeat { error }));
            }
            GroupRequest::Leave { group, member } => self.leave(now, from, group, member, out),
            GroupRequest::Commit { group, member, generation, offsets } => {
                self.commit(now, from, group, member, generation, offsets, out)
            }
            GroupRequest::FetchOffsets { group, partitions } => {
                let committed = self.groups.get(&group).map(|g| &g.offsets);
                let offsets = partitions
                    .into_iter()
                    .map(|tp| (tp.clone(), committed.and_then(|o| o.get(&tp).copied())))
                    .collect();
                out.responses.push((from, GroupResponse::FetchOffsets { error: None, offsets }));
            }
        }
    }

    /// The broker appended write `write` (`Ok(end)`: the offset after its last record) or
    /// could not (`Err`: the append's error, e.g. `NOT_LEADER_OR_FOLLOWER`).
    pub fn appended(
        &mut self,
        now: Ms,
        write: u64,
        result: Result<Offset, ErrorCode>,
        out: &mut GroupOutbox,
    ) {
        match result {
            Err(e) => self.finish_write(now, write, Err(e), out),
            Ok(end) => {
                let Some(w) = self.writes.get_mut(&write) else { return };
                w.end = Some(end);
                let hw = self.loaded.get(&w.partition).copied().unwrap_or(0);
                if end <= hw {
                    self.finish_write(now, write, Ok(()), out);
                }
            }
        }
    }

    /// The HW of offsets partition `partition` is now `hw`: writes it covers complete.
    pub fn on_high_watermark(&mut self, now: Ms, partition: u32, hw: Offset, out: &mut GroupOutbox) {
        let Some(known) = self.loaded.get_mut(&partition) else { return };
        *known = hw;
        let done: Vec<u64> = self
            .writes
            .iter()
            .filter(|(_, w)| w.partition == partition && w.end.is_some_and(|e| e <= hw))
            .map(|(id, _)| *id)
            .collect();
        for id in done {
            self.finish_write(now, id, Ok(()), out);
        }
    }

    /// Fires due timers: write timeouts, session expiries, join and sync phase timeouts.
    pub fn on_tick(&mut self, now: Ms, out: &mut GroupOutbox) {
        let late: Vec<u64> =
            self.writes.iter().filter(|(_, w)| w.deadline <= now).map(|(id, _)| *id).collect();
        for id in late {
            self.finish_write(now, id, Err(ErrorCode::RequestTimedOut), out);
        }
        let due: Vec<GroupId> = self
            .groups
            .values()
            .filter(|g| g.next_deadline().is_some_and(|d| d <= now))
            .map(|g| g.id.clone())
            .collect();
        for id in due {
            let Some(mut g) = self.groups.remove(&id) else { continue };
            self.expire_pending_members(now, &mut g, out);
            self.expire_members(now, &mut g, out);
            self.fire_join_timer(now, &mut g, out);
            self.fire_sync_timer(now, &mut g, out);
            self.groups.insert(id, g);
        }
    }

    /// The partitions of `topic` were deleted (`GroupCoordinatorService.onPartitionsDeleted`,
    /// called by `BrokerMetadataPublisher` for each topic id a metadata delta deletes): every
    /// group loaded here forgets its committed offsets of the topic, and a tombstone for each
    /// goes to its offsets partition (`OffsetMetadataManager.onPartitionsDeleted`), so a
    /// coordinator that loads the partition later forgets them too. A topic created again
    /// under the same name (a new topic id) starts with no committed offsets: its consumers
    /// begin at `auto.offset.reset`.
    pub fn on_topic_deleted(&mut self, now: Ms, topic: &str, out: &mut GroupOutbox) {
        let groups: Vec<(GroupId, Vec<TopicPartition>)> = (self.groups.values_mut())
            .filter_map(|g| {
                let gone: Vec<TopicPartition> =
                    g.offsets.keys().filter(|tp| &*tp.topic == topic).cloned().collect();
                gone.iter().for_each(|tp| _ = g.offsets.remove(tp));
                (!gone.is_empty()).then(|| (g.id.clone(), gone))
            })
            .collect();
        for (group, gone) in groups {
            let records = gone
                .into_iter()
                .map(|tp| OffsetsRecord::CommitTombstone { group: group.clone(), tp })
                .collect();
            self.write(now, &group, records, WriteKind::Empty, out);
        }
    }

    /// When [`Self::on_tick`] next has something to do (ms).
    pub fn next_deadline(&self) -> Option<Ms> {
        let writes = self.writes.values().map(|w| w.deadline);
        writes.chain(self.groups.values().filter_map(ClassicGroup::next_deadline)).min()
    }

    fn write(
        &mut self,
        now: Ms,
        group: &GroupId,
        records: Vec<OffsetsRecord>,
        kind: WriteKind,
        out: &mut GroupOutbox,
    ) {
        let id = self.next_write;
        self.next_write += 1;
        let partition = self.partition_of(group);
        out.appends.push(OffsetsAppend { write: id, partition, records });
        let deadline = now + self.config.commit_timeout_ms;
        self.writes.insert(id, PendingWrite { partition, end: None, deadline, kind });
    }

    fn finish_write(&mut self, now: Ms, id: u64, result: Result<(), ErrorCode>, out: &mut GroupOutbox) {
        let Some(w) = self.writes.remove(&id) else { return };
        let error = result.err().map(coordinator_error);
        match w.kind {
            WriteKind::Commit { client, group, offsets } => {
                if error.is_none()
                    && let Some(g) = self.groups.get_mut(&group)
                {
                    g.offsets.extend(offsets.iter().cloned());
                }
                out.responses.push((client, GroupResponse::Commit { error, offsets }));
            }
            WriteKind::Sync { group, generation, assignment } => {
                let Some(mut g) = self.groups.remove(&group) else { return };
                if g.state == GroupState::CompletingRebalance && g.generation == generation {
                    match error {
                        None => stabilize(&mut g, assignment, out),
                        Some(e) => {
                            reset_and_propagate(&mut g, e, out);
                            self.prepare_or_complete(now, &mut g, RebalanceReason::StoreFailed(e), out);
                        }
                    }
                }
                self.groups.insert(group, g);
            }
            WriteKind::Empty => {}
        }
    }

    fn join(&mut self, now: Ms, group: GroupId, j: Join, out: &mut GroupOutbox) {
        let session = j.session_timeout_ms;
        if session < self.config.min_session_timeout_ms || session > self.config.max_session_timeout_ms {
            return join_error(out, j.from, ErrorCode::InvalidSessionTimeout, &j.member);
        }
        if !self.groups.contains_key(&group) {
            if !j.member.is_empty() {
                return join_error(out, j.from, ErrorCode::UnknownMemberId, &j.member);
            }
            self.groups.insert(group.clone(), ClassicGroup::new(group.clone()));
        }
        let mut g = self.groups.remove(&group).expect("present");
        if g.state == GroupState::Dead {
            join_error(out, j.from, ErrorCode::CoordinatorNotAvailable, &j.member);
        } else if !g.supports(&j.protocols) {
            join_error(out, j.from, ErrorCode::InconsistentGroupProtocol, &j.member);
        } else if j.member.is_empty() {
            // KIP-394: hand out a member id and ask the member to join again with it.
            let id: MemberId = format!("{}-{}.{}", j.client_id, self.broker, self.next_member).into();
            self.next_member += 1;
            g.pending_members.insert(id.clone(), now + session);
            join_error(out, j.from, ErrorCode::MemberIdRequired, &id);
        } else if g.pending_members.remove(&j.member).is_some() {
            self.add_member(now, &mut g, j, out);
        } else if !g.members.contains_key(&j.member) {
            join_error(out, j.from, ErrorCode::UnknownMemberId, &j.member);
        } else {
            self.rejoin(now, &mut g, j, out);
        }
        self.groups.insert(group, g);
    }

    fn add_member(&mut self, now: Ms, g: &mut ClassicGroup, j: Join, out: &mut GroupOutbox) {
        if g.leader.is_none() {
            g.leader = Some(j.member.clone());
        }
        if g.state == GroupState::PreparingRebalance && g.generation == 0 {
            g.new_member_added = true;
        }
        let member = GroupMember {
            session_timeout_ms: j.session_timeout_ms,
            rebalance_timeout_ms: j.rebalance_timeout_ms,
            protocols: j.protocols,
            assignment: vec![],
            awaiting_join: Some(j.from),
            awaiting_sync: None,
            heartbeat_deadline: now + NEW_MEMBER_JOIN_TIMEOUT_MS,
            is_new: true,
        };
        g.members.insert(j.member.clone(), member);
        out.events.push(GroupEvent::MemberJoined { group: g.id.clone(), member: j.member.clone() });
        self.prepare_or_complete(now, g, RebalanceReason::MemberJoined(j.member), out);
    }

    /// A JoinGroup from a known member (`classicGroupJoinExistingMember`).
    fn rejoin(&mut self, now: Ms, g: &mut ClassicGroup, j: Join, out: &mut GroupOutbox) {
        let m = g.members.get_mut(&j.member).expect("known member");
        let same = m.protocols == j.protocols;
        let is_leader = g.leader.as_ref() == Some(&j.member);
        let unchanged = match g.state {
            GroupState::CompletingRebalance => same,
            GroupState::Stable => same && !is_leader,
            GroupState::PreparingRebalance => false,
            GroupState::Empty | GroupState::Dead => {
                return join_error(out, j.from, ErrorCode::UnknownMemberId, &j.member);
            }
        };
        if unchanged {
            // The member missed its answer: give it the current generation again.
            let members = if is_leader { g.subscriptions() } else { vec![] };
            let answer = JoinResponse {
                error: None,
                generation: g.generation,
                protocol: g.protocol.clone(),
                leader: g.leader.clone().unwrap_or_else(|| "".into()),
                member: j.member,
                members,
            };
            out.responses.push((j.from, GroupResponse::Join(answer)));
            return;
        }
        m.protocols = j.protocols;
        m.session_timeout_ms = j.session_timeout_ms;
        m.rebalance_timeout_ms = j.rebalance_timeout_ms;
        m.awaiting_join = Some(j.from);
        self.prepare_or_complete(now, g, RebalanceReason::MemberJoined(j.member), out);
    }

    #[allow(clippy::too_many_arguments)]
    fn sync(
        &mut self,
        now: Ms,
        from: ClientId,
        group: GroupId,
        member: MemberId,
        generation: i32,
        assignments: Vec<(MemberId, Vec<TopicPartition>)>,
        out: &mut GroupOutbox,
    ) {
        let Some(g) = self.groups.get_mut(&group) else {
            return out.responses.push((from, sync_answer(Some(ErrorCode::UnknownMemberId), vec![])));
        };
        let error = match g.state {
            GroupState::Dead => Some(ErrorCode::CoordinatorNotAvailable),
            _ if !g.members.contains_key(&member) => Some(ErrorCode::UnknownMemberId),
            _ if generation != g.generation => Some(ErrorCode::IllegalGeneration),
            GroupState::PreparingRebalance => Some(ErrorCode::RebalanceInProgress),
            _ => None,
        };
        if let Some(e) = error {
            return out.responses.push((from, sync_answer(Some(e), vec![])));
        }
        g.pending_sync.remove(&member);
        if g.state == GroupState::Stable {
            let mine = g.members[&member].assignment.clone();
            return out.responses.push((from, sync_answer(None, mine)));
        }
        g.members.get_mut(&member).expect("known").awaiting_sync = Some(from);
        if g.leader.as_ref() != Some(&member) {
            return;
        }
        let given: BTreeMap<MemberId, Vec<TopicPartition>> = assignments.into_iter().collect();
        let assignment: Vec<(MemberId, Vec<TopicPartition>)> =
            g.members.keys().map(|id| (id.clone(), given.get(id).cloned().unwrap_or_default())).collect();
        let record = metadata_record(g, &assignment);
        let kind = WriteKind::Sync { group: group.clone(), generation, assignment };
        self.write(now, &group, vec![record], kind, out);
    }

    fn heartbeat(
        &mut self,
        now: Ms,
        group: &GroupId,
        member: &MemberId,
        generation: i32,
    ) -> Option<ErrorCode> {
        let Some(g) = self.groups.get_mut(group) else { return Some(ErrorCode::UnknownMemberId) };
        if g.state == GroupState::Dead {
            return Some(ErrorCode::CoordinatorNotAvailable);
        }
        let Some(m) = g.members.get_mut(member) else { return Some(ErrorCode::UnknownMemberId) };
        if generation != g.generation {
            return Some(ErrorCode::IllegalGeneration);
        }
        m.heartbeat_deadline = now + m.session_timeout_ms;
        (g.state == GroupState::PreparingRebalance).then_some(ErrorCode::RebalanceInProgress)
    }

    fn leave(&mut self, now: Ms, from: ClientId, group: GroupId, member: MemberId, out: &mut GroupOutbox) {
        let Some(mut g) = self.groups.remove(&group) else {
            return out
                .responses
                .push((from, GroupResponse::Leave { error: Some(ErrorCode::UnknownMemberId) }));
        };
        let error = if g.state == GroupState::Dead {
            Some(ErrorCode::CoordinatorNotAvailable)
        } else if g.pending_members.remove(&member).is_some() {
            self.maybe_complete_join(now, &mut g, out);
            None
        } else if g.members.contains_key(&member) {
            out.events.push(GroupEvent::MemberLeft { group: group.clone(), member: member.clone() });
            self.remove_member(now, &mut g, &member, RebalanceReason::MemberLeft(member.clone()), out);
            None
        } else {
            Some(ErrorCode::UnknownMemberId)
        };
        self.groups.insert(group, g);
        out.responses.push((from, GroupResponse::Leave { error }));
    }

    #[allow(clippy::too_many_arguments)]
    fn commit(
        &mut self,
        now: Ms,
        from: ClientId,
        group: GroupId,
        member: MemberId,
        generation: i32,
        offsets: Vec<(TopicPartition, OffsetAndEpoch)>,
        out: &mut GroupOutbox,
    ) {
        if !self.groups.contains_key(&group) && generation < 0 {
            self.groups.insert(group.clone(), ClassicGroup::new(group.clone()));
        }
        let error = match self.groups.get(&group) {
            None => Some(ErrorCode::IllegalGeneration),
            Some(g) => validate_commit(g, &member, generation),
        };
        if let Some(error) = error {
            return out.responses.push((from, GroupResponse::Commit { error: Some(error), offsets }));
        }
        let records = offsets
            .iter()
            .map(|(tp, committed)| OffsetsRecord::Commit {
                group: group.clone(),
                tp: tp.clone(),
                offset: committed.offset,
                leader_epoch: committed.leader_epoch,
            })
            .collect();
        self.write(
            now,
            &group,
            records,
            WriteKind::Commit { client: from, group: group.clone(), offsets },
            out,
        );
    }

    /// `maybePrepareRebalanceOrCompleteJoin`.
    fn prepare_or_complete(
        &mut self,
        now: Ms,
        g: &mut ClassicGroup,
        reason: RebalanceReason,
        out: &mut GroupOutbox,
    ) {
        if g.can_rebalance() {
            self.prepare_rebalance(now, g, reason, out);
        } else {
            self.maybe_complete_join(now, g, out);
        }
    }

    /// `GroupMetadataManager.prepareRebalance`.
    fn prepare_rebalance(
        &mut self,
        now: Ms,
        g: &mut ClassicGroup,
        reason: RebalanceReason,
        out: &mut GroupOutbox,
    ) {
        if g.state == GroupState::CompletingRebalance {
            reset_and_propagate(g, ErrorCode::RebalanceInProgress, out);
        }
        g.sync_deadline = None;
        g.pending_sync.clear();
        let initial = g.state == GroupState::Empty;
        if initial {
            let delay_ms = self.config.initial_rebalance_delay_ms;
            let remaining_ms = g.rebalance_timeout_ms().saturating_sub(delay_ms);
            g.join_timer = Some((now + delay_ms, JoinTimer::Initial { delay_ms, remaining_ms }));
        }
        g.transition(GroupState::PreparingRebalance);
        out.events.push(GroupEvent::RebalanceStarted {
            group: g.id.clone(),
            generation: g.generation,
            reason,
        });
        if !initial {
            if g.all_members_joined() {
                self.complete_join(now, g, out);
            } else {
                g.join_timer = Some((now + g.rebalance_timeout_ms(), JoinTimer::Rebalance));
            }
        }
    }

    /// `maybeCompleteJoinPhase`: not during the initial delay, only once everyone rejoined.
    fn maybe_complete_join(&mut self, now: Ms, g: &mut ClassicGroup, out: &mut GroupOutbox) {
        if g.state == GroupState::PreparingRebalance
            && g.previous_state != GroupState::Empty
            && g.all_members_joined()
        {
            self.complete_join(now, g, out);
        }
    }

    /// `completeClassicGroupJoin`: drops members that did not rejoin, starts the next
    /// generation and answers every JoinGroup (the leader's with all subscriptions).
    fn complete_join(&mut self, now: Ms, g: &mut ClassicGroup, out: &mut GroupOutbox) {
        g.join_timer = None;
        let gone: Vec<MemberId> =
            g.members.iter().filter(|(_, m)| m.awaiting_join.is_none()).map(|(id, _)| id.clone()).collect();
        for member in gone {
            g.remove(&member);
            out.events.push(GroupEvent::RemovedNotRejoined { group: g.id.clone(), member });
        }
        if g.state == GroupState::Dead {
            return;
        }
        if !g.elect_joined_leader() && !g.members.is_empty() {
            g.join_timer = Some((now + g.rebalance_timeout_ms(), JoinTimer::Rebalance));
            return;
        }
        g.generation += 1;
        if g.members.is_empty() {
            g.protocol = None;
            g.leader = None;
            g.transition(GroupState::Empty);
            out.events.push(GroupEvent::Emptied { group: g.id.clone(), generation: g.generation });
            let record = metadata_record(g, &[]);
            let id = g.id.clone();
            return self.write(now, &id, vec![record], WriteKind::Empty, out);
        }
        g.protocol = g.select_protocol();
        g.transition(GroupState::CompletingRebalance);
        let leader = g.leader.clone().expect("elected");
        let subscriptions = g.subscriptions();
        for (id, m) in &mut g.members {
            let members = if *id == leader { subscriptions.clone() } else { vec![] };
            let answer = JoinResponse {
                error: None,
                generation: g.generation,
                protocol: g.protocol.clone(),
                leader: leader.clone(),
                member: id.clone(),
                members,
            };
            if let Some(client) = m.awaiting_join.take() {
                out.responses.push((client, GroupResponse::Join(answer)));
            }
            m.heartbeat_deadline = now + m.session_timeout_ms;
            m.is_new = false;
            g.pending_sync.insert(id.clone());
        }
        out.events.push(GroupEvent::JoinCompleted {
            group: g.id.clone(),
            generation: g.generation,
            leader,
            members: g.members.len(),
            protocol: g.protocol.as_deref().unwrap_or("").to_string(),
        });
        g.sync_deadline = Some(now + g.rebalance_timeout_ms());
    }

    /// `removeMemberAndUpdateClassicGroup`.
    fn remove_member(
        &mut self,
        now: Ms,
        g: &mut ClassicGroup,
        member: &MemberId,
        reason: RebalanceReason,
        out: &mut GroupOutbox,
    ) {
        if let Some(client) = g.members.get(member).and_then(|m| m.awaiting_join) {
            join_error(out, client, ErrorCode::UnknownMemberId, &"".into());
        }
        g.remove(member);
        match g.state {
            GroupState::Stable | GroupState::CompletingRebalance => {
                self.prepare_or_complete(now, g, reason, out)
            }
            GroupState::PreparingRebalance if g.all_members_joined() => self.complete_join(now, g, out),
            _ => {}
        }
    }

    fn expire_pending_members(&mut self, now: Ms, g: &mut ClassicGroup, out: &mut GroupOutbox) {
        let before = g.pending_members.len();
        g.pending_members.retain(|_, deadline| *deadline > now);
        if g.pending_members.len() < before
            && g.state == GroupState::PreparingRebalance
            && g.all_members_joined()
        {
            self.complete_join(now, g, out);
        }
    }

    fn expire_members(&mut self, now: Ms, g: &mut ClassicGroup, out: &mut GroupOutbox) {
        while let Some(member) = g.members.iter().find(|(_, m)| m.expired(now)).map(|(id, _)| id.clone()) {
            out.events.push(GroupEvent::SessionExpired { group: g.id.clone(), member: member.clone() });
            self.remove_member(now, g, &member, RebalanceReason::SessionTimeout(member.clone()), out);
        }
    }

    fn fire_join_timer(&mut self, now: Ms, g: &mut ClassicGroup, out: &mut GroupOutbox) {
        let Some((at, kind)) = g.join_timer.filter(|(at, _)| *at <= now) else { return };
        let _ = at;
        match kind {
            JoinTimer::Initial { delay_ms, remaining_ms } if g.new_member_added && remaining_ms > 0 => {
                g.new_member_added = false;
                let next = self.config.initial_rebalance_delay_ms.min(remaining_ms);
                let left = remaining_ms.saturating_sub(delay_ms);
                g.join_timer = Some((now + next, JoinTimer::Initial { delay_ms: next, remaining_ms: left }));
            }
            _ => self.complete_join(now, g, out),
        }
    }

    /// `expirePendingSync`: members that never sent SyncGroup are removed, then the group
    /// rebalances.
    fn fire_sync_timer(&mut self, now: Ms, g: &mut ClassicGroup, out: &mut GroupOutbox) {
        if g.sync_deadline.is_none_or(|d| d > now) {
            return;
        }
        g.sync_deadline = None;
        if !matches!(g.state, GroupState::CompletingRebalance | GroupState::Stable)
            || g.pending_sync.is_empty()
        {
            return;
        }
        let late: Vec<MemberId> = std::mem::take(&mut g.pending_sync).into_iter().collect();
        for member in late {
            g.remove(&member);
            out.events.push(GroupEvent::RemovedNotRejoined { group: g.id.clone(), member });
        }
        self.prepare_rebalance(now, g, RebalanceReason::SyncTimeout, out);
    }
}

/// A JoinGroup's fields.
struct Join {
    from: ClientId,
    member: MemberId,
    client_id: Arc<str>,
    session_timeout_ms: Ms,
    rebalance_timeout_ms: Ms,
    protocols: Vec<(Arc<str>, Subscription)>,
}

fn not_coordinator(from: ClientId, request: &GroupRequest, out: &mut GroupOutbox) {
    let e = Some(ErrorCode::NotCoordinator);
    let answer = match request {
        GroupRequest::FindCoordinator { .. } => return,
        GroupRequest::Join { member, .. } => {
            GroupResponse::Join(JoinResponse::error(ErrorCode::NotCoordinator, member.clone()))
        }
        GroupRequest::Sync { .. } => sync_answer(e, vec![]),
        GroupRequest::Heartbeat { .. } => GroupResponse::Heartbeat { error: e },
        GroupRequest::Leave { .. } => GroupResponse::Leave { error: e },
        GroupRequest::Commit { offsets, .. } => GroupResponse::Commit { error: e, offsets: offsets.clone() },
        GroupRequest::FetchOffsets { .. } => GroupResponse::FetchOffsets { error: e, offsets: vec![] },
    };
    out.responses.push((from, answer));
}

/// `ClassicGroup.validateOffsetCommit` (non-transactional).
fn validate_commit(g: &ClassicGroup, member: &MemberId, generation: i32) -> Option<ErrorCode> {
    if g.state == GroupState::Dead {
        return Some(ErrorCode::CoordinatorNotAvailable);
    }
    if generation < 0 && g.state == GroupState::Empty {
        return None;
    }
    if generation >= 0 || !member.is_empty() {
        if !g.members.contains_key(member) {
            return Some(ErrorCode::UnknownMemberId);
        }
        if generation != g.generation {
            return Some(ErrorCode::IllegalGeneration);
        }
    } else if g.state != GroupState::Empty {
        return Some(ErrorCode::UnknownMemberId);
    }
    (g.state == GroupState::CompletingRebalance).then_some(ErrorCode::RebalanceInProgress)
}

fn metadata_record(g: &ClassicGroup, assignment: &[(MemberId, Vec<TopicPartition>)]) -> OffsetsRecord {
    let protocol = g.protocol.clone();
    let members = assignment
        .iter()
        .filter_map(|(id, tps)| {
            let m = g.members.get(id)?;
            let subscription =
                protocol.as_deref().and_then(|p| m.subscription(p)).cloned().unwrap_or_default();
            Some(MemberRecord {
                id: id.clone(),
                session_timeout_ms: m.session_timeout_ms,
                rebalance_timeout_ms: m.rebalance_timeout_ms,
                subscription,
                assignment: tps.clone(),
            })
        })
        .collect();
    OffsetsRecord::Metadata {
        group: g.id.clone(),
        generation: g.generation,
        protocol,
        leader: g.leader.clone(),
        members,
    }
}

/// The leader's assignment is stored: every member gets its partitions and the group is
/// Stable (`setAndPropagateAssignment`).
fn stabilize(g: &mut ClassicGroup, assignment: Vec<(MemberId, Vec<TopicPartition>)>, out: &mut GroupOutbox) {
    for (id, tps) in &assignment {
        if let Some(m) = g.members.get_mut(id) {
            m.assignment = tps.clone();
            if let Some(client) = m.awaiting_sync.take() {
                out.responses.push((client, sync_answer(None, tps.clone())));
            }
        }
    }
    g.transition(GroupState::Stable);
    out.events.push(GroupEvent::Stabilized {
        group: g.id.clone(),
        generation: g.generation,
        assignment: g.assignment(),
    });
}

/// `resetAndPropagateAssignmentWithError`: waiting SyncGroups get `error`.
fn reset_and_propagate(g: &mut ClassicGroup, error: ErrorCode, out: &mut GroupOutbox) {
    for m in g.members.values_mut() {
        m.assignment.clear();
        if let Some(client) = m.awaiting_sync.take() {
            out.responses.push((client, sync_answer(Some(error), vec![])));
        }
    }
}

/// Replays one record into `g` while loading.
fn replay(g: &mut ClassicGroup, record: &OffsetsRecord, now: Ms) {
    match record {
        OffsetsRecord::Commit { tp, offset, leader_epoch, .. } => {
            g.offsets.insert(tp.clone(), OffsetAndEpoch { offset: *offset, leader_epoch: *leader_epoch });
        }
        OffsetsRecord::CommitTombstone { tp, .. } => {
            g.offsets.remove(tp);
        }
        OffsetsRecord::Metadata { generation, protocol, leader, members, .. } => {
            g.generation = *generation;
            g.protocol = protocol.clone();
            g.leader = leader.clone();
            g.members = members
                .iter()
                .map(|r| {
                    let protocols = protocol.iter().map(|p| (p.clone(), r.subscription.clone())).collect();
                    let m = GroupMember {
                        session_timeout_ms: r.session_timeout_ms,
                        rebalance_timeout_ms: r.rebalance_timeout_ms,
                        protocols,
                        assignment: r.assignment.clone(),
                        awaiting_join: None,
                        awaiting_sync: None,
                        heartbeat_deadline: now + r.session_timeout_ms,
                        is_new: false,
                    };
                    (r.id.clone(), m)
                })
                .collect();
            let state = if g.members.is_empty() { GroupState::Empty } else { GroupState::Stable };
            g.state = state;
            g.previous_state = state;
        }
    }
}

#[cfg(test)]
mod tests;
