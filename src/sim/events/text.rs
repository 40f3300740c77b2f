//! The events in plain words: the one place their text is written (`Display`), never at the
//! emit sites, and the shorter forms a small pane uses ([`EventKind::brief`]). Each line
//! names what happened, to what, and the setting or rule that made it happen, so a reader
//! of the log can tell why without opening the code.

use super::{ClusterEvent, ElectionKind, EventKind, RollStep, ShrinkCause};
use crate::kafka::errors::ErrorCode;
use crate::sim::protocol::NodeId;
use crate::sim::{BrokerId, join_ids};
use std::fmt;

impl fmt::Display for RollStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RollStep::Started { order, wait: true } => write!(
                f,
                "roll: restarting brokers {} one at a time, each back in every ISR before the next",
                join_ids(order)
            ),
            RollStep::Started { order, wait: false } => write!(
                f,
                "roll --no-wait: restarting brokers {} one after the other without waiting for the ISRs",
                join_ids(order)
            ),
            RollStep::Stopping(b) => write!(f, "roll: controlled shutdown of broker {b}"),
            RollStep::Restarted(b) => write!(f, "roll: broker {b} started again"),
            RollStep::BackInIsrs(b) => write!(f, "roll: broker {b} is back in every ISR"),
            RollStep::Done => write!(f, "roll: every broker was restarted"),
            RollStep::Abandoned(b) => {
                write!(
                    f,
                    "roll stopped: broker {b} went down or froze while the roll waited, so the next restart would risk an outage"
                )
            }
        }
    }
}

impl EventKind {
    /// The event in fewer words, for a pane too short for its full text, keeping what
    /// matters most: for acknowledged records lost, the partition, the offsets and the
    /// cause in brief ([`crate::sim::loss_cause::LossCause::brief`]: `acks=1, not yet on
    /// broker 1; it won a clean election`). `None` for events whose text is short already.
    pub fn brief(&self) -> Option<String> {
        match self {
            EventKind::AckedRecordsLost { tp, count, first_offset, last_offset, cause, .. } => Some(format!(
                "{count} ACKED RECORD(S) LOST in {tp} (offsets {first_offset}–{last_offset}): {}",
                cause.brief()
            )),
            EventKind::UnackedRecordsLost { tp, count, first_offset, last_offset, cause, .. } => {
                Some(format!(
                    "sent without acknowledgement, lost: {count} in {tp} (offsets {first_offset}–{last_offset}): {}",
                    cause.brief()
                ))
            }
            _ => None,
        }
    }

    /// [`EventKind::brief`] without the offsets, for a pane with fewer rows still: the
    /// count, the partition and the cause in brief (`102 ACKED RECORD(S) LOST in t-2: acks=1,
    /// not yet on broker 1; it won a clean election`).
    pub fn briefer(&self) -> Option<String> {
        match self {
            EventKind::AckedRecordsLost { tp, count, cause, .. } => {
                Some(format!("{count} ACKED RECORD(S) LOST in {tp}: {}", cause.brief()))
            }
            EventKind::UnackedRecordsLost { tp, count, cause, .. } => {
                Some(format!("sent without acknowledgement, lost: {count} in {tp}: {}", cause.brief()))
            }
            _ => None,
        }
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use EventKind::*;
        match self {
            TopicCreated { topic, topic_id, assignment } => {
                let lists: Vec<String> = assignment.iter().map(|r| format!("[{}]", join_ids(r))).collect();
                let n = assignment.len();
                let noun = if n == 1 { "partition" } else { "partitions" };
                write!(f, "topic {topic} created with {n} {noun}: {}, topic ID {topic_id}", lists.join(" "))
            }
            ReassignmentStarted { tp, adding, removing, throttle } => {
                write!(
                    f,
                    "{tp} reassignment started: adding [{}], removing [{}]",
                    join_ids(adding),
                    join_ids(removing)
                )?;
                match throttle {
                    Some(rate) => write!(f, ", throttled at {} bytes/s", group(*rate)),
                    None => Ok(()),
                }
            }
            ReassignmentCompleted { tp, replicas } => {
                write!(f, "{tp} reassignment completed: replicas [{}]", join_ids(replicas))
            }
            ReassignmentCancelled { tp, replicas } => {
                write!(f, "{tp} reassignment cancelled: replicas back to [{}]", join_ids(replicas))
            }
            ReplicasReordered { tp, replicas, leader } => {
                let preferred = replicas.first().map_or("none".to_string(), ToString::to_string);
                write!(
                    f,
                    "{tp} replicas reordered to [{}]: broker {preferred} is now the preferred leader",
                    join_ids(replicas)
                )?;
                match leader {
                    Some(l) if replicas.first() != Some(l) => {
                        write!(f, "; broker {l} keeps leading until a preferred election moves it")
                    }
                    _ => Ok(()),
                }
            }
            ThrottlesCleared { brokers, topics } => write!(
                f,
                "reassignment throttles removed: the throttled rates on brokers {} and the throttled replicas of {}",
                join_ids(brokers),
                topics.join(", ")
            ),
            PartitionsAdded { topic, from, assignment } => {
                let lists: Vec<String> = assignment.iter().map(|r| format!("[{}]", join_ids(r))).collect();
                let to = *from as usize + assignment.len();
                write!(f, "topic {topic} grew from {from} to {to} partitions: {}", lists.join(" "))
            }
            TopicDeleted { topic } => write!(f, "topic {topic} deleted"),
            ReplicaDeleted { broker, tp, stray: None } => {
                write!(f, "broker {broker} stopped its replica of {tp} and deleted its log")
            }
            ReplicaDeleted { broker, tp, stray: Some(id) } => write!(
                f,
                "broker {broker} deleted its stray log of {tp}: its topic ID {id} is no longer in the metadata (the topic was deleted while the broker was away), so the replica starts empty"
            ),
            BrokerRegistered { broker, broker_epoch } => {
                write!(
                    f,
                    "broker {broker} registered with the controller (broker epoch {broker_epoch}), fenced until it catches up on metadata"
                )
            }
            BrokerRegistrationRefused { broker, silent_ms, timeout_ms } => write!(
                f,
                "broker {broker}'s registration refused (DUPLICATE_BROKER_REGISTRATION): the controller heard from its previous run {} ms ago, within broker.session.timeout.ms={timeout_ms}, so it cannot tell the two apart; the broker retries until that session expires and the controller fences the old run (in {} ms)",
                group(*silent_ms),
                group(timeout_ms.saturating_sub(*silent_ms) + 1)
            ),
            BrokerUnfenced { broker } => {
                write!(f, "broker {broker} unfenced: it may lead and join ISRs again")
            }
            BrokerCrashed { broker } => write!(f, "broker {broker} crashed (its log stays on disk)"),
            BrokerStarted { broker } => {
                write!(f, "broker {broker} process started: it registers with the controller")
            }
            ProcessFrozen { node, thaw_after: Some(ms) } => {
                write!(
                    f,
                    "{} frozen for {} ms: it sends, reads and answers nothing",
                    node_name(*node),
                    group(*ms)
                )
            }
            ProcessFrozen { node, thaw_after: None } => {
                write!(f, "{} frozen: it sends, reads and answers nothing until thawed", node_name(*node))
            }
            ProcessThawed { node, frozen_ms } => write!(
                f,
                "{} thawed after {} ms: it reads what waited and its late timers fire",
                node_name(*node),
                group(*frozen_ms)
            ),
            BrokerPowerLost { broker } => {
                write!(f, "broker {broker} lost power: its page cache is gone, only flushed data is on disk")
            }
            UnflushedTailLost { broker, tp, from, to } => write!(
                f,
                "broker {broker}'s {tp} on disk ends at offset {to}: offsets {to}..{from} were only in the page cache and are gone"
            ),
            BrokerFenced { broker, silent_ms, timeout_ms } => write!(
                f,
                "broker {broker} fenced: no heartbeat for {} ms (broker.session.timeout.ms={timeout_ms})",
                group(*silent_ms)
            ),
            ControllerCrashed { controller } => write!(f, "controller {controller} crashed"),
            ControllerStarted { controller } => {
                write!(
                    f,
                    "controller {controller} started: it rejoins the quorum as a voter, its metadata log from disk"
                )
            }
            ControllerElected { controller, epoch, voted_for_it } => {
                write!(f, "controller {controller} became active in epoch {epoch}")?;
                match voted_for_it.as_slice() {
                    [] => write!(f, ": the only voter"),
                    [one] => write!(f, ": voter {one} voted for it"),
                    many => write!(f, ": voters {} voted for it", join_ids(many)),
                }
            }
            ControllerLostLeader { controller, leader, epoch, timeout_ms } => write!(
                f,
                "controller {controller} lost the active controller {leader} of epoch {epoch}: no fetch answered for {} ms (controller.quorum.fetch.timeout.ms); it asks the voters for pre-votes",
                group(*timeout_ms)
            ),
            ControllerCandidate { controller, epoch } => {
                write!(f, "controller {controller} stands for election in epoch {epoch}")
            }
            ControllerResigned { controller, epoch, silent_ms } => write!(
                f,
                "controller {controller} resigned as active controller of epoch {epoch}: no fetch from a majority of voters for {} ms (1.5 × controller.quorum.fetch.timeout.ms)",
                group(*silent_ms)
            ),
            ControlledShutdownStarted { broker } => {
                write!(
                    f,
                    "broker {broker} began a controlled shutdown: its leaderships move and it leaves every ISR"
                )
            }
            BrokerStopped { broker } => write!(f, "broker {broker} stopped cleanly"),
            LeaderChanged { tp, old_leader, new_leader, leader_epoch, isr, kind } => {
                let how = match kind {
                    ElectionKind::Clean => "clean election: first live ISR member in replica order",
                    ElectionKind::Unclean => {
                        "UNCLEAN election: no live ISR member, first live replica (unclean.leader.election.enable=true)"
                    }
                    ElectionKind::ControlledShutdown => "controlled shutdown of the old leader",
                    ElectionKind::Preferred => "preferred leader election (auto.leader.rebalance.enable)",
                    ElectionKind::Recovered => "an ISR member came back",
                    ElectionKind::Requested => "election requested by an operator (kafka-leader-election.sh)",
                    ElectionKind::Reassignment => "the reassignment removed the old leader",
                    ElectionKind::UncleanRequested => {
                        "UNCLEAN election requested by an operator (kafka-leader-election.sh): no live ISR member, first live replica"
                    }
                    ElectionKind::Eligible => {
                        "elected from the eligible leader replicas (ELR): the ISR was empty, and it left the ISR under min ISR, so it has every committed record"
                    }
                    ElectionKind::LastKnownLeader => {
                        "the last known leader came back with no ISR or ELR member left: elected as an unclean leader (KIP-966)"
                    }
                };
                match new_leader {
                    Some(_) => write!(
                        f,
                        "{tp} leader {} → {}, {how}, leader epoch {leader_epoch}, ISR {}",
                        who(*old_leader),
                        who(*new_leader),
                        join_ids(isr)
                    ),
                    None if isr.is_empty() => write!(
                        f,
                        "{tp} OFFLINE: leader {} lost and no live ISR or ELR member can lead; the ISR is empty (leader epoch {leader_epoch})",
                        who(*old_leader),
                    ),
                    None => write!(
                        f,
                        "{tp} OFFLINE: leader {} lost and no live ISR member can lead; ISR stays {} (leader epoch {leader_epoch})",
                        who(*old_leader),
                        join_ids(isr)
                    ),
                }
            }
            ElrChanged { tp, elr, last_known_elr, min_isr_changed: true } => write!(
                f,
                "{tp} eligible leader replicas cleared (were {}, LastKnownElr {}): min.insync.replicas changed",
                ids_or_none(elr),
                ids_or_none(last_known_elr)
            ),
            ElrChanged { tp, elr, last_known_elr, min_isr_changed: false } if elr.is_empty() => {
                write!(
                    f,
                    "{tp} has no eligible leader replicas now (LastKnownElr {})",
                    ids_or_none(last_known_elr)
                )
            }
            ElrChanged { tp, elr, last_known_elr, min_isr_changed: false } => write!(
                f,
                "{tp} eligible leader replicas now {} (LastKnownElr {}): they left the ISR while it was under min.insync.replicas, so they hold every committed record",
                ids_or_none(elr),
                ids_or_none(last_known_elr)
            ),
            IsrShrunk { tp, removed, isr, cause } => {
                let why = match cause {
                    ShrinkCause::Lagging { behind_ms, limit_ms } => format!(
                        "not caught up for {} ms (replica.lag.time.max.ms={limit_ms})",
                        group(*behind_ms)
                    ),
                    ShrinkCause::NoFetchSinceElection { behind_ms, limit_ms } => format!(
                        "it has not fetched from this leader since it took over {} ms ago (replica.lag.time.max.ms={limit_ms})",
                        group(*behind_ms)
                    ),
                    ShrinkCause::TooFarBehind { behind, limit } => format!(
                        "{} messages behind the leader (replica.lag.max.messages={limit}, Kafka 0.8's count rule)",
                        group(*behind as u64)
                    ),
                    ShrinkCause::Fenced => "its broker was fenced by the controller".to_string(),
                    ShrinkCause::ControlledShutdown => "its broker is in controlled shutdown".to_string(),
                    ShrinkCause::UncleanShutdown => {
                        "its broker came back from an unclean shutdown (it may have lost acknowledged records)".to_string()
                    }
                };
                write!(
                    f,
                    "broker {} removed from ISR of {tp}: {why}; ISR now {}",
                    join_ids(removed),
                    join_ids(isr)
                )
            }
            IsrExpanded { tp, added, isr } => {
                write!(
                    f,
                    "broker {added} rejoined ISR of {tp}: its LEO reached the HW; ISR now {}",
                    join_ids(isr)
                )
            }
            Truncated { broker, tp, from, to, diverging_epoch: super::TRUNCATED_TO_HW, .. } => write!(
                f,
                "broker {broker} truncated {tp} from LEO {from} to {to}, its own high watermark, before fetching from the new leader (the rule before leader epochs, KIP-101)",
            ),
            Truncated { broker, tp, from, to, diverging_epoch: super::TRUNCATED_TO_LEADER_LEO, .. } => {
                write!(
                    f,
                    "broker {broker} truncated {tp} from LEO {from} to {to}, the leader's log end offset: its fetch offset was out of range (the rule before leader epochs, KIP-101)",
                )
            }
            Truncated { broker, tp, from, to, diverging_epoch, leader_end_offset }
                if to == leader_end_offset =>
            {
                write!(
                    f,
                    "broker {broker} truncated {tp} from LEO {from} to {to}: its log diverged from the leader's, whose leader epoch {diverging_epoch} ends at {to}",
                )
            }
            Truncated { broker, tp, from, to, diverging_epoch, leader_end_offset } => write!(
                f,
                "broker {broker} truncated {tp} from LEO {from} to {to}, where its own log stops matching the leader's (the leader's leader epoch {diverging_epoch} ends at {leader_end_offset})",
            ),
            AckedRecordsLost { tp, count, first_offset, last_offset, cause, .. } => write!(
                f,
                "{count} ACKED RECORD(S) LOST in {tp} (offsets {first_offset}–{last_offset}): {cause}"
            ),
            UnackedRecordsLost { tp, count, first_offset, last_offset, cause, .. } => write!(
                f,
                "sent without acknowledgement (acks=0), lost: {count} record(s) in {tp} (offsets \
                 {first_offset}–{last_offset}): {cause}"
            ),
            DuplicateAcked { tp, value, first_offset, second_offset, count: 1 } => write!(
                f,
                "DUPLICATE in {tp}: record m{value} is in the log at offset {first_offset} and again at {second_offset} (a retry without enable.idempotence)"
            ),
            DuplicateAcked { tp, value, first_offset, second_offset, count } => write!(
                f,
                "DUPLICATES in {tp}: {count} records from m{value} are in the log twice, from offset {first_offset} and again from {second_offset} (a retry without enable.idempotence)"
            ),
            AckedOutOfOrder { tp, producer, count } => write!(
                f,
                "REORDERED in {tp}: {count} record(s) of producer {producer} acknowledged after records it sent later (a retry overtaken by a later request in flight, without enable.idempotence)"
            ),
            ProduceFailing { tp, failure, errors, records_failed, .. } => {
                write!(f, "produce to {tp} failing with {}", failure.error)?;
                let times =
                    if *errors == 1 { "once".to_string() } else { format!("{} times", group(*errors)) };
                match records_failed {
                    0 if *errors > 1 => write!(f, " ({times} so far)")?,
                    0 => {}
                    1 => write!(f, " ({times}, 1 record failed so far)")?,
                    n => write!(f, " ({times}, {} records failed so far)", group(*n))?,
                }
                write!(f, ": {}", failure.detail)
            }
            ProducerRestarted { producer, old_id, new_id, idempotent, unsent, unanswered } => {
                write!(f, "producer {producer} restarted (a new application, no close()): ")?;
                if *idempotent {
                    write!(f, "producer id {old_id} → {new_id}, epoch 0, sequences from 0")?;
                } else {
                    write!(f, "not idempotent, so its batches carry no producer id")?;
                }
                match (unsent, unanswered) {
                    (0, 0) => write!(f, "; it held no unacknowledged record"),
                    _ => write!(
                        f,
                        "; {} record(s) it had not sent and {} sent but unanswered are abandoned, never acknowledged (not acked lost; unanswered ones may still be in the log)",
                        group(*unsent),
                        group(*unanswered)
                    ),
                }
            }
            ProduceRecovered { tp, errors, .. } => {
                let total: u64 = errors.iter().map(|(_, n)| n).sum();
                let noun = if total == 1 { "error" } else { "errors" };
                let list: Vec<String> = errors.iter().map(|(e, n)| format!("{} {e}", group(*n))).collect();
                write!(f, "produce to {tp} succeeds again after {} {noun}: {}", group(total), list.join(", "))
            }
            FollowerStopped { broker, tp, leo } => write!(
                f,
                "broker {broker} stopped fetching {tp}: it is in controlled shutdown and out of the ISR; its log keeps LEO {leo} until it restarts"
            ),
            FollowerStarted { broker, tp, leader, leader_epoch, offset } => write!(
                f,
                "broker {broker} starts fetching {tp} from leader {leader} (leader epoch {leader_epoch}) at offset {offset}"
            ),
            FetchSessionCreated { leader, follower, session_id, partitions } => write!(
                f,
                "broker {leader} opened fetch session {session_id} for follower {follower} with {partitions} partition{} (KIP-227): its next fetches list only what changed",
                if *partitions == 1 { "" } else { "s" }
            ),
            FetchSessionPartitionsAdded { leader, follower, session_id, added } => {
                let list: Vec<String> = added.iter().map(ToString::to_string).collect();
                write!(
                    f,
                    "fetch session {session_id} of follower {follower} at broker {leader} adds {} (incremental fetch)",
                    list.join(", ")
                )
            }
            FetchSessionRefused { broker, leader, session_id, error } => write!(
                f,
                "leader {leader} refused broker {broker}'s fetch session {session_id} with {error}; it starts over with a full fetch"
            ),
            FetchTopicIdRefused { broker, leader, tp, topic_id, error } => {
                let why = match error {
                    ErrorCode::UnknownTopicId => {
                        format!("leader {leader}'s metadata has no topic with that id (it was deleted)")
                    }
                    _ => format!("leader {leader}'s log of {tp} belongs to another topic id"),
                };
                write!(
                    f,
                    "broker {broker}'s fetch of {tp} (topic ID {topic_id}) answered {error}: {why}; nothing is applied to its log and it retries after replica.fetch.backoff.ms"
                )
            }
            FollowerCaughtUp { broker, tp, leader, leo, leader_hw } => write!(
                f,
                "broker {broker} caught up on {tp}: its LEO {leo} reached leader {leader}'s HW {leader_hw}"
            ),
            FetchPaused { broker, paused: true } => {
                write!(f, "broker {broker} stopped fetching (it still heartbeats the controller)")
            }
            FetchPaused { broker, paused: false } => write!(f, "broker {broker} resumed fetching"),
            ProducersStopped { bytes } => write!(
                f,
                "producers stopped (rate=0): the logs and the audit ledger take {} MB, isrlab's memory budget; lower retention.ms or retention.bytes, or the rate, to go on producing",
                group(*bytes >> 20)
            ),
            NetworkChanged { change } => write!(f, "network: {change}"),
            ConfigChanged { scope, name, value, note } => {
                write!(f, "{scope} config {name}={value}")?;
                if !note.is_empty() {
                    write!(f, ": {note}")?;
                }
                Ok(())
            }
            Roll(step) => write!(f, "{step}"),
            Group(e) => write!(f, "{e}"),
            ConsumerOffsetReset { consumer, tp, strategy, offset, why } => write!(
                f,
                "consumer-{consumer} reset its position on {tp} to {offset} (auto.offset.reset={strategy}): {why}"
            ),
            ConsumerTruncationDetected { consumer, tp, position, end_offset, reset_to: Some(to) } => write!(
                f,
                "consumer-{consumer} detected truncation on {tp} (KIP-320): its position {position} is past the leader's end {end_offset} for the epoch of its last record; the records it read from {to} on were erased; it goes on from {to}"
            ),
            ConsumerTruncationDetected { consumer, tp, position, end_offset, reset_to: None } => write!(
                f,
                "consumer-{consumer} detected truncation on {tp} (KIP-320): its position {position} is past the leader's end {end_offset}; auto.offset.reset=none, so LogTruncationException: it stops reading {tp}"
            ),
            ConsumerPartitionStopped { consumer, tp, error } => {
                write!(f, "consumer-{consumer} stopped reading {tp}: {error}")
            }
            ConsumerTopicGone { consumer, topic, partitions } => {
                let read: Vec<String> = partitions.iter().map(|p| format!("{topic}-{p}")).collect();
                write!(f, "consumer-{consumer}: topic {topic} is no longer in its metadata (deleted)")?;
                if !read.is_empty() {
                    write!(f, "; it stops reading {} and forgets their positions", read.join(", "))?;
                }
                write!(f, "; {topic} stays in its subscription")
            }
        }
    }
}

fn who(b: Option<BrokerId>) -> String {
    b.map_or_else(|| "none".to_string(), |b| b.to_string())
}

/// A node as events name it: `broker 2`, `the controller`, `producer 0`.
fn node_name(node: NodeId) -> String {
    match node {
        NodeId::Broker(b) => format!("broker {b}"),
        NodeId::Controller(c) => format!("controller {c}"),
        NodeId::ActiveController => "the active controller".into(),
        NodeId::Producer(p) => format!("producer {p}"),
        NodeId::Consumer(c) => format!("consumer-{c}"),
        NodeId::Client(c) => format!("client {c}"),
    }
}

/// Formats a number with thin-space thousands groups, as the events do: `30 000`.
pub fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

impl fmt::Display for ClusterEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", crate::sim::format_stamp(self.at, false), self.kind)
    }
}

/// Broker ids joined by commas, or `none`.
fn ids_or_none(ids: &[BrokerId]) -> String {
    if ids.is_empty() { "none".to_string() } else { join_ids(ids) }
}
