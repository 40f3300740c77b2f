//! The classic consumer group APIs (FindCoordinator, JoinGroup, SyncGroup, Heartbeat,
//! LeaveGroup, OffsetCommit, OffsetFetch), translated onto the simulated brokers' own group
//! coordinator (`crate::sim::group`), the one the simulated consumers use: a request becomes
//! a [`GroupRequest`] sent to the broker this connection reaches, as Kafka's `KafkaApis`
//! hands it to its `GroupCoordinator`. The embedded consumer protocol
//! (`ConsumerProtocolSubscription`, `ConsumerProtocolAssignment`) is decoded into the
//! coordinator's structured subscriptions and assignments and encoded back for the client;
//! their `userData` is not kept (the range and round-robin assignors do not use it).

use super::handlers::{Closed, Handler, error_code, topic_name};
use crate::kafka::errors::ErrorCode;
use crate::sim::TopicPartition;
use crate::sim::consumer::OffsetAndEpoch;
use crate::sim::group::messages::{GroupRequest, GroupResponse, Subscription};
use crate::sim::protocol::Message;
use bytes::{Buf, BufMut, Bytes, BytesMut};
use kafka_protocol::messages::{
    ConsumerProtocolAssignment, ConsumerProtocolSubscription, FindCoordinatorRequest,
    FindCoordinatorResponse, HeartbeatRequest, HeartbeatResponse, JoinGroupRequest, JoinGroupResponse,
    LeaveGroupRequest, LeaveGroupResponse, OffsetCommitRequest, OffsetCommitResponse, OffsetFetchRequest,
    OffsetFetchResponse, SyncGroupRequest, SyncGroupResponse, consumer_protocol_assignment,
    consumer_protocol_subscription, join_group_response, leave_group_response, offset_commit_response,
    offset_fetch_response,
};
use kafka_protocol::protocol::{Decodable, Encodable, StrBytes};
use std::sync::Arc;

/// The highest `ConsumerProtocolSubscription` version read and the one written.
const SUBSCRIPTION_VERSION: i16 = 1;

impl Handler {
    /// Sends one group request to this connection's broker and waits for its answer.
    async fn group(&mut self, request: GroupRequest) -> Result<GroupResponse, Closed> {
        let correlation_id = self.correlation();
        let msg = Message::Group { correlation_id, request: Box::new(request) };
        match self.call(vec![msg]).await?.remove(&correlation_id) {
            Some(Message::GroupResponse { response, .. }) => Ok(*response),
            _ => Err(Closed("the group coordinator did not answer".into())),
        }
    }

    /// FindCoordinator v0–3 for a group (`KafkaApis.handleFindCoordinatorRequest`): the
    /// leader of the group's `__consumer_offsets` partition, or `COORDINATOR_NOT_AVAILABLE`
    /// while that topic is being created. Errors: a transaction coordinator is asked for.
    pub(super) async fn find_coordinator(
        &mut self,
        r: FindCoordinatorRequest,
        version: i16,
    ) -> Result<FindCoordinatorResponse, Closed> {
        if r.key_type != 0 {
            return Err(Closed("only group coordinators are served".into()));
        }
        let answer = self.group(GroupRequest::FindCoordinator { group: Arc::from(r.key.as_str()) }).await?;
        let mut resp = FindCoordinatorResponse::default();
        resp.node_id = (-1).into();
        resp.host = StrBytes::from_static_str("");
        resp.port = -1;
        if let GroupResponse::FindCoordinator { error, coordinator, .. } = answer {
            match coordinator.and_then(|b| Some((b, self.shared.addrs.get(&b)?))) {
                Some((b, addr)) if error.is_none() => {
                    resp.node_id = b.into();
                    resp.host = StrBytes::from_string(addr.ip().to_string());
                    resp.port = i32::from(addr.port());
                }
                _ => {
                    let e = error.unwrap_or(ErrorCode::CoordinatorNotAvailable);
                    resp.error_code = error_code(e);
                    if version >= 1 {
                        resp.error_message = Some(StrBytes::from_string(format!("{e:?}")));
                    }
                }
            }
        }
        Ok(resp)
    }

    /// JoinGroup v0–5 (`GroupCoordinator.handleJoinGroup`). The coordinator always asks a new
    /// member to join again with the id it hands out (KIP-394, JoinGroup v4+); for v0–3
    /// clients, which do not know `MEMBER_ID_REQUIRED`, the adapter joins again for them.
    pub(super) async fn join_group(
        &mut self,
        r: JoinGroupRequest,
        version: i16,
        client_id: Arc<str>,
    ) -> Result<JoinGroupResponse, Closed> {
        let mut protocols = Vec::new();
        for p in &r.protocols {
            let subscription = decode_subscription(p.metadata.clone())
                .ok_or_else(|| Closed(format!("the {} subscription cannot be read", p.name.as_str())))?;
            protocols.push((Arc::from(p.name.as_str()), subscription));
        }
        let rebalance = if version >= 1 { r.rebalance_timeout_ms } else { r.session_timeout_ms };
        let join = |member: Arc<str>| GroupRequest::Join {
            group: Arc::from(r.group_id.0.as_str()),
            member,
            client_id: client_id.clone(),
            session_timeout_ms: u64::try_from(r.session_timeout_ms).unwrap_or(0),
            rebalance_timeout_ms: u64::try_from(rebalance).unwrap_or(0),
            protocols: protocols.clone(),
        };
        let mut answer = self.group(join(Arc::from(r.member_id.as_str()))).await?;
        if let GroupResponse::Join(j) = &answer
            && version < 4
            && j.error == Some(ErrorCode::MemberIdRequired)
        {
            answer = self.group(join(j.member.clone())).await?;
        }
        let mut resp = JoinGroupResponse::default();
        resp.generation_id = -1;
        let GroupResponse::Join(j) = answer else { return Ok(resp) };
        resp.error_code = j.error.map_or(0, error_code);
        resp.generation_id = j.generation;
        resp.protocol_name = Some(StrBytes::from_string(j.protocol.as_deref().unwrap_or("").to_string()));
        resp.leader = StrBytes::from_string(j.leader.to_string());
        resp.member_id = StrBytes::from_string(j.member.to_string());
        for (id, subscription) in &j.members {
            let mut m = join_group_response::JoinGroupResponseMember::default();
            m.member_id = StrBytes::from_string(id.to_string());
            m.metadata = encode_subscription(subscription)?;
            resp.members.push(m);
        }
        Ok(resp)
    }

    /// SyncGroup v0–3 (`GroupCoordinator.handleSyncGroup`): the leader's assignments go in,
    /// each member's own comes back.
    pub(super) async fn sync_group(&mut self, r: SyncGroupRequest) -> Result<SyncGroupResponse, Closed> {
        let mut assignments = Vec::new();
        for a in &r.assignments {
            let partitions = decode_assignment(a.assignment.clone())
                .ok_or_else(|| Closed("an assignment cannot be read".into()))?;
            assignments.push((Arc::from(a.member_id.as_str()), partitions));
        }
        let request = GroupRequest::Sync {
            group: Arc::from(r.group_id.0.as_str()),
            member: Arc::from(r.member_id.as_str()),
            generation: r.generation_id,
            assignments,
        };
        let mut resp = SyncGroupResponse::default();
        if let GroupResponse::Sync { error, assignment } = self.group(request).await? {
            resp.error_code = error.map_or(0, error_code);
            resp.assignment = encode_assignment(&assignment)?;
        }
        Ok(resp)
    }

    /// Heartbeat v0–3 (`GroupCoordinator.handleHeartbeat`).
    pub(super) async fn heartbeat(&mut self, r: HeartbeatRequest) -> Result<HeartbeatResponse, Closed> {
        let request = GroupRequest::Heartbeat {
            group: Arc::from(r.group_id.0.as_str()),
            member: Arc::from(r.member_id.as_str()),
            generation: r.generation_id,
        };
        let mut resp = HeartbeatResponse::default();
        if let GroupResponse::Heartbeat { error } = self.group(request).await? {
            resp.error_code = error.map_or(0, error_code);
        }
        Ok(resp)
    }

    /// LeaveGroup v0–4 (`GroupCoordinator.handleLeaveGroup`): one member before v3, a batch
    /// of members from v3 (KIP-345), each left in turn.
    pub(super) async fn leave_group(
        &mut self,
        r: LeaveGroupRequest,
        version: i16,
    ) -> Result<LeaveGroupResponse, Closed> {
        let group: Arc<str> = Arc::from(r.group_id.0.as_str());
        let members: Vec<StrBytes> = if version >= 3 {
            r.members.iter().map(|m| m.member_id.clone()).collect()
        } else {
            vec![r.member_id.clone()]
        };
        let mut resp = LeaveGroupResponse::default();
        for member in members {
            let request = GroupRequest::Leave { group: group.clone(), member: Arc::from(member.as_str()) };
            let error = match self.group(request).await? {
                GroupResponse::Leave { error } => error.map_or(0, error_code),
                _ => error_code(ErrorCode::CoordinatorNotAvailable),
            };
            if version >= 3 {
                let mut m = leave_group_response::MemberResponse::default();
                m.member_id = member;
                m.error_code = error;
                resp.members.push(m);
            } else {
                resp.error_code = error;
            }
        }
        Ok(resp)
    }

    /// OffsetCommit v2–8 (`GroupCoordinator.handleCommitOffsets`): the coordinator commits or
    /// refuses the whole request, so every partition carries the one error.
    pub(super) async fn offset_commit(
        &mut self,
        r: OffsetCommitRequest,
    ) -> Result<OffsetCommitResponse, Closed> {
        let mut offsets = Vec::new();
        for t in &r.topics {
            for p in &t.partitions {
                let Ok(index) = u32::try_from(p.partition_index) else { continue };
                let epoch = (p.committed_leader_epoch >= 0).then_some(p.committed_leader_epoch);
                offsets.push((
                    TopicPartition::new(t.name.0.as_str(), index),
                    OffsetAndEpoch { offset: p.committed_offset, leader_epoch: epoch },
                ));
            }
        }
        let request = GroupRequest::Commit {
            group: Arc::from(r.group_id.0.as_str()),
            member: Arc::from(r.member_id.as_str()),
            generation: r.generation_id_or_member_epoch,
            offsets,
        };
        let error = match self.group(request).await? {
            GroupResponse::Commit { error, .. } => error.map_or(0, error_code),
            _ => error_code(ErrorCode::CoordinatorNotAvailable),
        };
        let mut resp = OffsetCommitResponse::default();
        for t in &r.topics {
            let mut topic = offset_commit_response::OffsetCommitResponseTopic::default();
            topic.name = t.name.clone();
            for p in &t.partitions {
                let mut part = offset_commit_response::OffsetCommitResponsePartition::default();
                part.partition_index = p.partition_index;
                part.error_code = error;
                topic.partitions.push(part);
            }
            resp.topics.push(topic);
        }
        Ok(resp)
    }

    /// OffsetFetch v1–7 (`GroupCoordinator.handleFetchOffsets`): each partition's committed
    /// offset and leader epoch, `-1` where nothing is committed. Asking for every partition
    /// (topics null, v2+) is answered with none.
    pub(super) async fn offset_fetch(
        &mut self,
        r: OffsetFetchRequest,
    ) -> Result<OffsetFetchResponse, Closed> {
        let mut partitions = Vec::new();
        for t in r.topics.iter().flatten() {
            for p in &t.partition_indexes {
                let Ok(index) = u32::try_from(*p) else { continue };
                partitions.push(TopicPartition::new(t.name.0.as_str(), index));
            }
        }
        let request = GroupRequest::FetchOffsets { group: Arc::from(r.group_id.0.as_str()), partitions };
        let mut resp = OffsetFetchResponse::default();
        let GroupResponse::FetchOffsets { error, offsets } = self.group(request).await? else {
            resp.error_code = error_code(ErrorCode::CoordinatorNotAvailable);
            return Ok(resp);
        };
        resp.error_code = error.map_or(0, error_code);
        for (tp, committed) in offsets {
            let mut p = offset_fetch_response::OffsetFetchResponsePartition::default();
            p.partition_index = tp.partition as i32;
            p.committed_offset = committed.map_or(-1, |c| c.offset);
            p.committed_leader_epoch = committed.and_then(|c| c.leader_epoch).unwrap_or(-1);
            p.metadata = Some(StrBytes::from_static_str(""));
            p.error_code = error.map_or(0, error_code);
            let name = topic_name(&tp.topic);
            match resp.topics.iter_mut().find(|t| t.name == name) {
                Some(t) => t.partitions.push(p),
                None => {
                    let mut t = offset_fetch_response::OffsetFetchResponseTopic::default();
                    t.name = name;
                    t.partitions.push(p);
                    resp.topics.push(t);
                }
            }
        }
        Ok(resp)
    }
}

/// Reads a `ConsumerProtocolSubscription` (its version first, `ConsumerProtocol`);
/// `None` when it cannot be read.
fn decode_subscription(mut buf: Bytes) -> Option<Subscription> {
    if buf.remaining() < 2 {
        return None;
    }
    let version = buf.get_i16().clamp(0, 3);
    let s = std::panic::catch_unwind(move || ConsumerProtocolSubscription::decode(&mut buf, version))
        .ok()?
        .ok()?;
    let mut topics: Vec<Arc<str>> = s.topics.iter().map(|t| Arc::from(t.as_str())).collect();
    topics.sort();
    let owned = s
        .owned_partitions
        .iter()
        .flat_map(|t| {
            t.partitions
                .iter()
                .filter_map(|p| Some(TopicPartition::new(t.topic.0.as_str(), u32::try_from(*p).ok()?)))
        })
        .collect();
    Some(Subscription { topics, owned, generation: s.generation_id })
}

/// Writes `s` as a `ConsumerProtocolSubscription` of [`SUBSCRIPTION_VERSION`].
fn encode_subscription(s: &Subscription) -> Result<Bytes, Closed> {
    let mut m = ConsumerProtocolSubscription::default();
    m.topics = s.topics.iter().map(|t| StrBytes::from_string(t.to_string())).collect();
    for tp in &s.owned {
        let name = topic_name(&tp.topic);
        let index = tp.partition as i32;
        match m.owned_partitions.iter_mut().find(|t| t.topic == name) {
            Some(t) => t.partitions.push(index),
            None => {
                let mut t = consumer_protocol_subscription::TopicPartition::default();
                t.topic = name;
                t.partitions.push(index);
                m.owned_partitions.push(t);
            }
        }
    }
    m.generation_id = s.generation;
    let mut buf = BytesMut::new();
    buf.put_i16(SUBSCRIPTION_VERSION);
    m.encode(&mut buf, SUBSCRIPTION_VERSION)
        .map_err(|e| Closed(format!("cannot write a subscription: {e}")))?;
    Ok(buf.freeze())
}

/// Reads a `ConsumerProtocolAssignment` (its version first); an empty one is no partitions.
/// `None` when it cannot be read.
fn decode_assignment(mut buf: Bytes) -> Option<Vec<TopicPartition>> {
    if buf.remaining() < 2 {
        return Some(Vec::new());
    }
    let version = buf.get_i16().clamp(0, 3);
    let a =
        std::panic::catch_unwind(move || ConsumerProtocolAssignment::decode(&mut buf, version)).ok()?.ok()?;
    Some(
        a.assigned_partitions
            .iter()
            .flat_map(|t| {
                t.partitions
                    .iter()
                    .filter_map(|p| Some(TopicPartition::new(t.topic.0.as_str(), u32::try_from(*p).ok()?)))
            })
            .collect(),
    )
}

/// Writes `partitions` as a version 0 `ConsumerProtocolAssignment`.
fn encode_assignment(partitions: &[TopicPartition]) -> Result<Bytes, Closed> {
    let mut m = ConsumerProtocolAssignment::default();
    for tp in partitions {
        let name = topic_name(&tp.topic);
        let index = tp.partition as i32;
        match m.assigned_partitions.iter_mut().find(|t| t.topic == name) {
            Some(t) => t.partitions.push(index),
            None => {
                let mut t = consumer_protocol_assignment::TopicPartition::default();
                t.topic = name;
                t.partitions.push(index);
                m.assigned_partitions.push(t);
            }
        }
    }
    let mut buf = BytesMut::new();
    buf.put_i16(0);
    m.encode(&mut buf, 0).map_err(|e| Closed(format!("cannot write an assignment: {e}")))?;
    Ok(buf.freeze())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subscriptions_and_assignments_read_back_what_was_written() {
        let s = Subscription {
            topics: vec!["a".into(), "b".into()],
            owned: vec![TopicPartition::new("a", 1), TopicPartition::new("a", 3)],
            generation: -1, // version 1 has no generation (v2+)
        };
        assert_eq!(decode_subscription(encode_subscription(&s).unwrap()), Some(s.clone()));
        let a = vec![TopicPartition::new("a", 0), TopicPartition::new("b", 2)];
        assert_eq!(decode_assignment(encode_assignment(&a).unwrap()), Some(a));
        assert_eq!(decode_subscription(Bytes::from_static(&[0, 0, 0, 9])), None, "truncated");
    }
}
