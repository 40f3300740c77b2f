//! Each API's translation: a decoded request becomes the simulated broker's messages (or is
//! answered from the brokers' metadata), and the broker's answers become the response.

use super::Shared;
use super::conn::is_disconnect;
use super::versions::{SUPPORTED, supports};
use super::view::ClusterView;
use crate::kafka::errors::ErrorCode;
use crate::sim::fetch_session::{FINAL_EPOCH, FetchMetadata, INVALID_SESSION_ID};
use crate::sim::protocol::{
    self as sim, CONSUMER_REPLICA_ID, EpochRequest, ListOffsetsRequest, Message, NodeId, OffsetSpec,
    WIRE_PRODUCER_BASE,
};
use crate::sim::{Acks, BrokerId, TopicId, TopicPartition};
use bytes::{BufMut, Bytes, BytesMut};
use kafka_protocol::messages::{
    ApiKey, ApiVersionsResponse, FetchRequest, FetchResponse, InitProducerIdRequest, InitProducerIdResponse,
    ListOffsetsRequest as WireListOffsets, ListOffsetsResponse, MetadataRequest, MetadataResponse,
    OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse, ProduceRequest, ProduceResponse, RequestKind,
    ResponseHeader, ResponseKind, TopicName, api_versions_response::ApiVersion, fetch_response,
    list_offsets_response, metadata_response, offset_for_leader_epoch_response, produce_response,
};
use kafka_protocol::protocol::{Encodable, StrBytes, decode_request_header_from_buffer};
use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::sync::mpsc::UnboundedReceiver;

/// `CORRUPT_MESSAGE`: records that cannot be read (`Errors.CORRUPT_MESSAGE`).
const CORRUPT_MESSAGE: i16 = 2;
/// `UNSUPPORTED_VERSION` (`Errors.UNSUPPORTED_VERSION`).
const UNSUPPORTED_VERSION: i16 = 35;

/// The connection must close, for the reason given.
#[derive(Debug)]
pub(crate) struct Closed(pub String);

/// One connection's request handling.
pub(crate) struct Handler {
    pub(super) shared: Arc<Shared>,
    pub(super) broker: BrokerId,
    pub(super) client: u32,
    peer: SocketAddr,
    answers: UnboundedReceiver<(NodeId, Message)>,
    next_correlation: u64,
}

pub(super) fn error_code(e: ErrorCode) -> i16 {
    e.code()
}

fn uuid(id: TopicId) -> uuid::Uuid {
    uuid::Uuid::from_u128(id.bits())
}

pub(super) fn topic_name(name: &str) -> TopicName {
    TopicName(StrBytes::from_string(name.to_string()))
}

impl Handler {
    pub(crate) fn new(
        shared: Arc<Shared>,
        broker: BrokerId,
        client: u32,
        peer: SocketAddr,
        answers: UnboundedReceiver<(NodeId, Message)>,
    ) -> Self {
        Handler { shared, broker, client, peer, answers, next_correlation: 1 }
    }

    /// The largest frame this connection reads.
    pub(crate) fn max_frame(&self) -> usize {
        self.shared.max_frame
    }

    /// Waits for the simulated handshake. Errors: the broker is down (connection refused).
    pub(crate) async fn connected(&mut self) -> Result<(), Closed> {
        loop {
            match self.answers.recv().await {
                Some((_, Message::Connected { .. })) => return Ok(()),
                Some((_, m)) if is_disconnect(&m) => {
                    return Err(Closed(format!("broker {} is down: connection refused", self.broker)));
                }
                Some(_) => {}
                None => return Err(Closed("the listeners stopped".into())),
            }
        }
    }

    /// Waits for news from the network between requests: `Some(reason)` when the connection
    /// is gone (the broker died), `None` for anything else.
    pub(crate) async fn next_news(&mut self) -> Option<String> {
        match self.answers.recv().await {
            Some((_, m)) if is_disconnect(&m) => Some(format!("broker {} went down", self.broker)),
            Some(_) => None,
            None => Some("the listeners stopped".into()),
        }
    }

    pub(super) fn correlation(&mut self) -> u64 {
        self.next_correlation += 1;
        self.next_correlation
    }

    /// Sends `msgs` to the broker and waits for the answer to each that expects one, in any
    /// order. Errors: the connection died meanwhile.
    pub(super) async fn call(&mut self, msgs: Vec<Message>) -> Result<BTreeMap<u64, Message>, Closed> {
        let mut waiting: BTreeSet<u64> = msgs.iter().filter_map(Message::correlation_id).collect();
        let (client, broker) = (self.client, self.broker);
        self.shared.port.run(move |w| {
            for m in msgs {
                w.wire_send(client, broker, m);
            }
        });
        let mut got = BTreeMap::new();
        while !waiting.is_empty() {
            match self.answers.recv().await {
                Some((_, m)) if is_disconnect(&m) => {
                    return Err(Closed(format!("broker {} went down", self.broker)));
                }
                Some((_, m)) => {
                    if let Some(c) = m.answers()
                        && waiting.remove(&c)
                    {
                        got.insert(c, m);
                    }
                }
                None => return Err(Closed("the listeners stopped".into())),
            }
        }
        Ok(got)
    }

    async fn view(&self) -> Result<ClusterView, Closed> {
        self.shared.view().await.ok_or_else(|| Closed("the simulation stopped".into()))
    }

    /// Handles one request frame: `Ok(Some(frame))` to write back, `Ok(None)` for no response
    /// (acks=0). Errors: the connection must close (malformed frame, unsupported version, an
    /// error on an acks=0 produce, the broker died).
    pub(crate) async fn handle(&mut self, frame: Bytes) -> Result<Option<Bytes>, Closed> {
        if frame.len() < 8 {
            return Err(Closed(format!(
                "a frame of {} bytes is too short for a request header",
                frame.len()
            )));
        }
        let raw_key = i16::from_be_bytes([frame[0], frame[1]]);
        let version = i16::from_be_bytes([frame[2], frame[3]]);
        let correlation = i32::from_be_bytes([frame[4], frame[5], frame[6], frame[7]]);
        let key = ApiKey::try_from(raw_key).map_err(|_| Closed(format!("unknown API key {raw_key}")))?;
        if key == ApiKey::ApiVersions && !supports(key, version) {
            // KIP-511: answer an ApiVersions of a version it does not know with
            // UNSUPPORTED_VERSION and the supported ranges, in version 0.
            return Ok(Some(encode(
                correlation,
                ApiKey::ApiVersions,
                0,
                api_versions(UNSUPPORTED_VERSION).into(),
            )?));
        }
        if !supports(key, version) {
            return Err(Closed(format!("{key:?} version {version} is not supported")));
        }
        let decoded = std::panic::catch_unwind(|| {
            let mut buf = frame.clone();
            let header = decode_request_header_from_buffer(&mut buf)?;
            let body = RequestKind::decode(key, &mut buf, version)?;
            Ok::<_, anyhow::Error>((header, body))
        });
        let (header, request) = match decoded {
            Ok(Ok(pair)) => pair,
            Ok(Err(e)) => return Err(Closed(format!("malformed {key:?} v{version}: {e}"))),
            Err(_) => return Err(Closed(format!("malformed {key:?} v{version}"))),
        };
        tracing::debug!(client = self.client, peer = %self.peer, api = ?key, version, "request");
        let response: Option<ResponseKind> = match request {
            RequestKind::ApiVersions(_) => Some(api_versions(0).into()),
            RequestKind::Metadata(r) => Some(self.metadata(r, version).await?.into()),
            RequestKind::Produce(r) => self.produce(r, version).await?.map(Into::into),
            RequestKind::Fetch(r) => Some(self.fetch(r, version).await?.into()),
            RequestKind::ListOffsets(r) => Some(self.list_offsets(r, version).await?.into()),
            RequestKind::OffsetForLeaderEpoch(r) => Some(self.offset_for_leader_epoch(r).await?.into()),
            RequestKind::InitProducerId(r) => Some(self.init_producer_id(r).await?.into()),
            RequestKind::DescribeTopicPartitions(r) => Some(self.describe_topic_partitions(r).await?.into()),
            RequestKind::FindCoordinator(r) => Some(self.find_coordinator(r, version).await?.into()),
            RequestKind::JoinGroup(r) => {
                let client_id: Arc<str> = Arc::from(header.client_id.as_ref().map_or("", |c| c.as_str()));
                Some(self.join_group(r, version, client_id).await?.into())
            }
            RequestKind::SyncGroup(r) => Some(self.sync_group(r).await?.into()),
            RequestKind::Heartbeat(r) => Some(self.heartbeat(r).await?.into()),
            RequestKind::LeaveGroup(r) => Some(self.leave_group(r, version).await?.into()),
            RequestKind::OffsetCommit(r) => Some(self.offset_commit(r).await?.into()),
            RequestKind::OffsetFetch(r) => Some(self.offset_fetch(r).await?.into()),
            _ => return Err(Closed(format!("{key:?} is not served"))),
        };
        match response {
            Some(r) => Ok(Some(encode(header.correlation_id, key, version, r)?)),
            None => Ok(None),
        }
    }

    /// Metadata (`KafkaApis.handleTopicMetadataRequest`, `KRaftMetadataCache.getTopicMetadata`):
    /// the alive brokers; each partition's leader, or `LEADER_NOT_AVAILABLE` and leader -1 when
    /// its leader is not alive; all replicas and the whole ISR, and the replicas on brokers that
    /// are not alive as offline.
    async fn metadata(&mut self, r: MetadataRequest, version: i16) -> Result<MetadataResponse, Closed> {
        let view = self.view().await?;
        let mut resp = MetadataResponse::default();
        if version >= 2 {
            resp.cluster_id = Some(StrBytes::from_static_str("isrlab"));
        }
        if version >= 1 {
            resp.controller_id = view.controller_id().into();
        }
        resp.cluster_authorized_operations = i32::MIN;
        for b in &view.alive {
            let Some(addr) = self.shared.addrs.get(b) else { continue };
            let mut broker = metadata_response::MetadataResponseBroker::default();
            broker.node_id = (*b).into();
            broker.host = StrBytes::from_string(addr.ip().to_string());
            broker.port = i32::from(addr.port());
            resp.brokers.push(broker);
        }
        let wanted: Option<Vec<String>> = match &r.topics {
            None => None,
            Some(t) if t.is_empty() && version == 0 => None,
            Some(t) => Some(t.iter().filter_map(|t| t.name.as_ref().map(|n| n.0.to_string())).collect()),
        };
        let names: Vec<String> = match wanted {
            None => view.topics.iter().filter(|t| !t.internal).map(|t| t.name.to_string()).collect(),
            Some(names) => names,
        };
        let missing: Vec<Arc<str>> =
            names.iter().filter(|n| view.topic(n).is_none()).map(|n| Arc::from(n.as_str())).collect();
        let errors = self.missing_topics(missing, version < 4 || r.allow_auto_topic_creation).await?;
        for name in names {
            let mut topic = metadata_response::MetadataResponseTopic::default();
            topic.name = Some(topic_name(&name));
            topic.topic_authorized_operations = i32::MIN;
            match view.topic(&name) {
                None => {
                    let e = errors.iter().find(|(n, _)| **n == *name).map(|(_, e)| *e);
                    topic.error_code = error_code(e.unwrap_or(ErrorCode::UnknownTopicOrPartition));
                }
                Some(t) => {
                    if version >= 10 {
                        topic.topic_id = uuid(t.id);
                    }
                    topic.is_internal = version >= 1 && t.internal;
                    for p in &t.partitions {
                        topic.partitions.push(partition_metadata(&view, p, version));
                    }
                }
            }
            resp.topics.push(topic);
        }
        Ok(resp)
    }

    /// What the broker answers for topics its metadata does not have
    /// (`Broker::topic_metadata_errors`, through [`Message::TopicMetadata`]): with
    /// `allowAutoTopicCreation` (always, before Metadata v4) and `auto.create.topics.enable`,
    /// the broker forwards their creation and answers `LEADER_NOT_AVAILABLE`; otherwise
    /// `UNKNOWN_TOPIC_OR_PARTITION`.
    async fn missing_topics(
        &mut self,
        topics: Vec<Arc<str>>,
        allow_auto_topic_creation: bool,
    ) -> Result<Vec<(Arc<str>, ErrorCode)>, Closed> {
        if topics.is_empty() {
            return Ok(Vec::new());
        }
        let correlation_id = self.correlation();
        let request = Message::TopicMetadata { correlation_id, topics, allow_auto_topic_creation };
        match self.call(vec![request]).await?.remove(&correlation_id) {
            Some(Message::TopicMetadataResponse { errors, .. }) => Ok(errors),
            _ => Ok(Vec::new()),
        }
    }

    /// Produce (`KafkaApis.handleProduceRequest`): each partition's batch goes to the simulated
    /// leader; with acks=0 nothing is answered, and an error closes the connection.
    async fn produce(&mut self, r: ProduceRequest, version: i16) -> Result<Option<ProduceResponse>, Closed> {
        let acks = match r.acks {
            0 => Acks::Zero,
            1 => Acks::One,
            -1 => Acks::All,
            other => return Err(Closed(format!("acks={other} is not valid"))),
        };
        let mut msgs = Vec::new();
        // (topic, partition, correlation or the error found here)
        let mut slots: Vec<(String, i32, Result<u64, i16>)> = Vec::new();
        for t in &r.topic_data {
            let name = t.name.0.to_string();
            for p in &t.partition_data {
                let records = p.records.clone().unwrap_or_default();
                let slot = match (u32::try_from(p.index), self.shared.store.accept(&records)) {
                    (Ok(index), Ok(batch)) => {
                        let correlation_id = self.correlation();
                        msgs.push(Message::Produce(sim::ProduceRequest {
                            correlation_id,
                            producer: WIRE_PRODUCER_BASE + self.client,
                            tp: TopicPartition::new(name.as_str(), index),
                            acks,
                            timeout_ms: u64::try_from(r.timeout_ms).unwrap_or(0),
                            batch,
                        }));
                        Ok(correlation_id)
                    }
                    (Err(_), _) => Err(error_code(ErrorCode::UnknownTopicOrPartition)),
                    (_, Err(bad)) => {
                        tracing::info!(client = self.client, "refused records: {}", bad.0);
                        Err(CORRUPT_MESSAGE)
                    }
                };
                slots.push((name.clone(), p.index, slot));
            }
        }
        if acks == Acks::Zero {
            let view = self.view().await?;
            let refused = slots.iter().find(|(topic, partition, slot)| {
                let leads =
                    view.topic(topic).and_then(|t| t.partitions.get(usize::try_from(*partition).ok()?));
                slot.is_err() || leads.and_then(|p| p.leader) != Some(self.broker)
            });
            self.call(msgs).await?;
            if let Some((topic, partition, _)) = refused {
                // `KafkaApis.handleProduceRequest`: with acks=0 an error closes the connection.
                return Err(Closed(format!("acks=0 produce to {topic}-{partition} failed")));
            }
            return Ok(None);
        }
        let answers = self.call(msgs).await?;
        let mut resp = ProduceResponse::default();
        for (topic, partition, slot) in slots {
            let mut p = produce_response::PartitionProduceResponse::default();
            p.index = partition;
            p.base_offset = -1;
            p.log_append_time_ms = -1;
            p.log_start_offset = -1;
            let messages = version >= 8;
            match slot {
                Err(code) => p.error_code = code,
                Ok(c) => match answers.get(&c) {
                    Some(Message::ProduceResponse(a)) => match &a.result {
                        Ok((offset, _)) => p.base_offset = *offset,
                        Err(e) => {
                            p.error_code = error_code(*e);
                            if messages && !a.error_message.is_empty() {
                                p.error_message = Some(StrBytes::from_string(a.error_message.clone()));
                            }
                        }
                    },
                    _ => p.error_code = error_code(ErrorCode::RequestTimedOut),
                },
            }
            let name = topic_name(&topic);
            match resp.responses.iter_mut().find(|t| t.name == name) {
                Some(t) => t.partition_responses.push(p),
                None => {
                    let mut t = produce_response::TopicProduceResponse::default();
                    t.name = name;
                    t.partition_responses.push(p);
                    resp.responses.push(t);
                }
            }
        }
        Ok(Some(resp))
    }

    /// Fetch as a consumer (`replica_id` -1: data only below the HW), without a fetch session
    /// (the answer's session id 0 tells the client to send full fetches), long-polling as the
    /// simulated broker parks it.
    async fn fetch(&mut self, r: FetchRequest, version: i16) -> Result<FetchResponse, Closed> {
        let view = self.view().await?;
        let mut partitions = Vec::new();
        let mut unknown: Vec<(String, uuid::Uuid, i32)> = Vec::new();
        let mut partition_max = 0u64;
        for t in &r.topics {
            let topic = if version >= 13 {
                view.topic_by_id(TopicId::from_bits(t.topic_id.as_u128()))
            } else {
                view.topic(&t.topic.0)
            };
            for p in &t.partitions {
                partition_max = partition_max.max(u64::try_from(p.partition_max_bytes).unwrap_or(0));
                match (topic, u32::try_from(p.partition)) {
                    (Some(topic), Ok(index)) if (index as usize) < topic.partitions.len() => {
                        partitions.push(sim::FetchPartition {
                            tp: TopicPartition::new(topic.name.clone(), index),
                            topic_id: topic.id,
                            current_leader_epoch: p.current_leader_epoch,
                            fetch_offset: p.fetch_offset,
                            last_fetched_epoch: (p.last_fetched_epoch >= 0).then_some(p.last_fetched_epoch),
                            log_start_offset: p.log_start_offset,
                        });
                    }
                    _ => unknown.push((t.topic.0.to_string(), t.topic_id, p.partition)),
                }
            }
        }
        let correlation_id = self.correlation();
        let request = sim::FetchRequest {
            correlation_id,
            replica: CONSUMER_REPLICA_ID,
            broker_epoch: -1,
            max_wait_ms: u64::try_from(r.max_wait_ms).unwrap_or(0),
            min_bytes: u64::try_from(r.min_bytes).unwrap_or(0),
            partition_max_bytes: partition_max,
            max_bytes: u64::try_from(r.max_bytes).unwrap_or(0),
            session: FetchMetadata { session_id: INVALID_SESSION_ID, epoch: FINAL_EPOCH },
            partitions,
            forgotten: Vec::new(),
        };
        let mut resp = FetchResponse::default();
        let push =
            |resp: &mut FetchResponse, topic: &str, id: uuid::Uuid, data: fetch_response::PartitionData| {
                let name = topic_name(topic);
                match resp.responses.iter_mut().find(|t| t.topic == name) {
                    Some(t) => t.partitions.push(data),
                    None => {
                        let mut t = fetch_response::FetchableTopicResponse::default();
                        t.topic = name;
                        t.topic_id = id;
                        t.partitions.push(data);
                        resp.responses.push(t);
                    }
                }
            };
        if !request.partitions.is_empty() {
            let answers = self.call(vec![Message::Fetch(request)]).await?;
            if let Some(Message::FetchResponse(f)) = answers.get(&correlation_id) {
                if let Some(e) = f.error {
                    resp.error_code = error_code(e);
                }
                for p in &f.partitions {
                    let mut data = fetch_response::PartitionData::default();
                    data.partition_index = p.tp.partition as i32;
                    data.high_watermark = -1;
                    data.last_stable_offset = -1;
                    data.log_start_offset = -1;
                    data.aborted_transactions = Some(Vec::new());
                    match &p.result {
                        Ok(d) => {
                            data.high_watermark = d.high_watermark;
                            data.last_stable_offset = d.high_watermark;
                            if version >= 5 {
                                data.log_start_offset = d.log_start_offset;
                            }
                            data.records = Some(self.shared.store.encode(&d.batches));
                        }
                        Err(e) => data.error_code = error_code(*e),
                    }
                    push(&mut resp, &p.tp.topic, uuid(p.topic_id), data);
                }
            }
        }
        for (topic, id, partition) in unknown {
            let mut data = fetch_response::PartitionData::default();
            data.partition_index = partition;
            data.high_watermark = -1;
            data.last_stable_offset = -1;
            data.log_start_offset = -1;
            data.error_code = error_code(if version >= 13 {
                ErrorCode::UnknownTopicId
            } else {
                ErrorCode::UnknownTopicOrPartition
            });
            push(&mut resp, &topic, id, data);
        }
        Ok(resp)
    }

    /// ListOffsets (`KafkaApis.handleListOffsetRequest`): -2 is the log start offset; every
    /// other timestamp is answered as -1, the latest offset (the HW for a consumer).
    async fn list_offsets(
        &mut self,
        r: WireListOffsets,
        version: i16,
    ) -> Result<ListOffsetsResponse, Closed> {
        let mut msgs = Vec::new();
        let mut slots = Vec::new();
        for t in &r.topics {
            for p in &t.partitions {
                let Ok(index) = u32::try_from(p.partition_index) else { continue };
                let correlation_id = self.correlation();
                let spec = if p.timestamp == -2 { OffsetSpec::Earliest } else { OffsetSpec::Latest };
                msgs.push(Message::ListOffsets(ListOffsetsRequest {
                    correlation_id,
                    tp: TopicPartition::new(t.name.0.to_string(), index),
                    current_leader_epoch: p.current_leader_epoch,
                    spec,
                }));
                slots.push((t.name.clone(), p.partition_index, correlation_id));
            }
        }
        let answers = self.call(msgs).await?;
        let mut resp = ListOffsetsResponse::default();
        for (name, partition, c) in slots {
            let mut p = list_offsets_response::ListOffsetsPartitionResponse::default();
            p.partition_index = partition;
            p.timestamp = -1;
            p.offset = -1;
            p.leader_epoch = -1;
            match answers.get(&c) {
                Some(Message::ListOffsetsResponse(a)) => match a.result {
                    Ok((offset, epoch)) => {
                        p.offset = offset;
                        if version >= 4 {
                            p.leader_epoch = epoch;
                        }
                    }
                    Err(e) => p.error_code = error_code(e),
                },
                _ => p.error_code = error_code(ErrorCode::RequestTimedOut),
            }
            match resp.topics.iter_mut().find(|t| t.name == name) {
                Some(t) => t.partitions.push(p),
                None => {
                    let mut t = list_offsets_response::ListOffsetsTopicResponse::default();
                    t.name = name;
                    t.partitions.push(p);
                    resp.topics.push(t);
                }
            }
        }
        Ok(resp)
    }

    /// InitProducerId without a transactional id (an idempotent producer): a new producer id
    /// from the controller, epoch 0, as `TransactionCoordinator.handleInitProducerId` does
    /// when `transactionalId` is null (isrlab asks the controller for each id rather than for
    /// a block, `ProducerIdControlManager`). Errors: a transactional producer (transactions are
    /// not served).
    async fn init_producer_id(&mut self, r: InitProducerIdRequest) -> Result<InitProducerIdResponse, Closed> {
        if r.transactional_id.is_some() {
            return Err(Closed("transactional producers are not served".into()));
        }
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.shared.port.run(move |w| {
            let _ = tx.send(w.controller().borrow_mut().allocate_producer_id());
        });
        let id = rx.await.map_err(|_| Closed("the simulation stopped".into()))?;
        let mut resp = InitProducerIdResponse::default();
        resp.producer_id = id.into();
        resp.producer_epoch = 0;
        Ok(resp)
    }

    /// OffsetForLeaderEpoch (KIP-320): the end offset of the asked epoch on the leader, so a
    /// consumer can find out whether its position was truncated away.
    async fn offset_for_leader_epoch(
        &mut self,
        r: OffsetForLeaderEpochRequest,
    ) -> Result<OffsetForLeaderEpochResponse, Closed> {
        let mut msgs = Vec::new();
        let mut slots = Vec::new();
        for t in &r.topics {
            for p in &t.partitions {
                let Ok(index) = u32::try_from(p.partition) else { continue };
                let correlation_id = self.correlation();
                msgs.push(Message::OffsetsForLeaderEpoch(EpochRequest {
                    correlation_id,
                    tp: TopicPartition::new(t.topic.0.to_string(), index),
                    current_leader_epoch: p.current_leader_epoch,
                    leader_epoch: p.leader_epoch,
                }));
                slots.push((t.topic.clone(), p.partition, correlation_id));
            }
        }
        let answers = self.call(msgs).await?;
        let mut resp = OffsetForLeaderEpochResponse::default();
        for (name, partition, c) in slots {
            let mut p = offset_for_leader_epoch_response::EpochEndOffset::default();
            p.partition = partition;
            p.leader_epoch = -1;
            p.end_offset = -1;
            match answers.get(&c) {
                Some(Message::OffsetsForLeaderEpochResponse(a)) => match a.result {
                    Ok(e) => {
                        p.leader_epoch = e.epoch;
                        p.end_offset = e.end_offset;
                    }
                    Err(e) => p.error_code = error_code(e),
                },
                _ => p.error_code = error_code(ErrorCode::RequestTimedOut),
            }
            match resp.topics.iter_mut().find(|t| t.topic == name) {
                Some(t) => t.partitions.push(p),
                None => {
                    let mut t = offset_for_leader_epoch_response::OffsetForLeaderTopicResult::default();
                    t.topic = name;
                    t.partitions.push(p);
                    resp.topics.push(t);
                }
            }
        }
        Ok(resp)
    }
}

/// One partition as metadata shows it (`KRaftMetadataCache.getPartitionMetadata`).
fn partition_metadata(
    view: &ClusterView,
    p: &sim::PartitionState,
    version: i16,
) -> metadata_response::MetadataResponsePartition {
    let mut m = metadata_response::MetadataResponsePartition::default();
    m.partition_index = p.tp.partition as i32;
    if version >= 7 {
        m.leader_epoch = p.leader_epoch;
    }
    m.replica_nodes = p.replicas.iter().map(|b| (*b).into()).collect();
    m.isr_nodes = p.isr.iter().map(|b| (*b).into()).collect();
    m.offline_replicas = if version < 5 {
        Vec::new()
    } else {
        p.replicas.iter().filter(|b| !view.is_alive(**b)).map(|b| (*b).into()).collect()
    };
    match p.leader.filter(|l| view.is_alive(*l)) {
        Some(l) => m.leader_id = l.into(),
        None => {
            m.leader_id = (-1).into();
            m.error_code = error_code(ErrorCode::LeaderNotAvailable);
        }
    }
    m
}

/// The ApiVersions answer: every range of [`SUPPORTED`], with `error`.
fn api_versions(error: i16) -> ApiVersionsResponse {
    let mut resp = ApiVersionsResponse::default();
    resp.error_code = error;
    resp.api_keys = SUPPORTED
        .iter()
        .map(|(k, lo, hi)| {
            let mut v = ApiVersion::default();
            v.api_key = *k as i16;
            v.min_version = *lo;
            v.max_version = *hi;
            v
        })
        .collect();
    resp
}

/// A response frame: size, header (of the API's header version), body.
fn encode(correlation: i32, key: ApiKey, version: i16, body: ResponseKind) -> Result<Bytes, Closed> {
    let mut buf = BytesMut::new();
    buf.put_i32(0);
    let mut header = ResponseHeader::default();
    header.correlation_id = correlation;
    let failed = |e: anyhow::Error| Closed(format!("cannot encode the {key:?} v{version} response: {e}"));
    header.encode(&mut buf, key.response_header_version(version)).map_err(failed)?;
    body.encode(&mut buf, version).map_err(failed)?;
    let size = i32::try_from(buf.len() - 4).map_err(|_| Closed("response too large".into()))?;
    buf[..4].copy_from_slice(&size.to_be_bytes());
    Ok(buf.freeze())
}
