//! Brokers as the controller knows them (Kafka's `ClusterControlManager` with its
//! `BrokerHeartbeatManager`): registration, heartbeats, session-timeout fencing, unfencing and
//! KRaft controlled shutdown (R6.1, R6.2, R6.6). What a broker's state change does to the
//! partitions (leaving ISRs, elections) is [`super::replication`]'s.

use super::QuorumController;
use crate::kafka::errors::ErrorCode;
use crate::sim::events::{ElectionKind, EventKind, ShrinkCause};
use crate::sim::protocol::{BrokerRegistration, Message, MetadataDelta, NodeId};
use crate::sim::{BrokerId, Ms, Outbox};
use std::collections::BTreeSet;

/// The controller's record of one broker (KRaft `BrokerRegistration` plus the heartbeat
/// manager's state).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct BrokerInfo {
    /// The broker's `node.id`.
    pub id: BrokerId,
    /// It has registered at least once. Registrations persist across crashes, as in KRaft.
    pub registered: bool,
    /// Epoch of the current registration; `-1` before the first one.
    pub broker_epoch: i64,
    /// Fenced: may not lead or join an ISR (R6.1). Brokers start fenced at registration.
    pub fenced: bool,
    /// In controlled shutdown (R6.6): not eligible to lead or join an ISR, not used by the
    /// placer, until it registers again.
    pub in_controlled_shutdown: bool,
    /// Sim time of the last accepted heartbeat or registration (ms).
    pub last_heartbeat: Ms,
}

impl BrokerInfo {
    /// A broker the controller knows by id but that has not registered yet.
    pub fn unregistered(id: BrokerId) -> Self {
        BrokerInfo {
            id,
            registered: false,
            broker_epoch: -1,
            fenced: true,
            in_controlled_shutdown: false,
            last_heartbeat: 0,
        }
    }

    /// Kafka's `isActive`: registered, unfenced and not in controlled shutdown. Only active
    /// brokers may become leader or join an ISR.
    pub fn is_active(&self) -> bool {
        self.registered && !self.fenced && !self.in_controlled_shutdown
    }

    /// The registration as brokers see it in the metadata.
    pub fn registration(&self) -> BrokerRegistration {
        BrokerRegistration {
            id: self.id,
            broker_epoch: self.broker_epoch,
            fenced: self.fenced,
            in_controlled_shutdown: self.in_controlled_shutdown,
        }
    }
}

impl QuorumController {
    /// Registers and unfences a broker at start-up without any message or event, as if it had
    /// registered and caught up before the run began. Returns its new broker epoch.
    pub fn bootstrap_broker(&mut self, id: BrokerId, now: Ms) -> i64 {
        let epoch = self.next_broker_epoch();
        self.brokers.insert(
            id,
            BrokerInfo {
                id,
                registered: true,
                broker_epoch: epoch,
                fenced: false,
                in_controlled_shutdown: false,
                last_heartbeat: now,
            },
        );
        let registration = self.brokers[&id].registration();
        self.published.apply(&MetadataDelta { brokers: vec![registration], ..Default::default() });
        epoch
    }

    /// The sim time (ms) at which the controller fences broker `id` unless a heartbeat comes
    /// first: `last heartbeat + broker.session.timeout.ms + 1` (fencing needs
    /// `now − last > timeout`, Kafka's `BrokerHeartbeatManager.hasValidSession` and
    /// `QuorumController.maybeFenceStaleBroker`). `None` when it is unknown, unregistered or
    /// already fenced.
    pub fn fences_at(&self, id: BrokerId) -> Option<Ms> {
        let b = self.brokers.get(&id).filter(|b| b.registered && !b.fenced)?;
        Some(b.last_heartbeat.saturating_add(self.config.broker_session_timeout_ms).saturating_add(1))
    }

    /// `BrokerRegistration` (R6.1; `ClusterControlManager.registerBroker`).
    ///
    /// Refused with `DUPLICATE_BROKER_REGISTRATION` while the id's previous incarnation still
    /// has a live session ([`Self::has_valid_session`]): the controller cannot tell a restart
    /// from a second process with the same id. Sessions that ran out are fenced first, as the
    /// fencing timer would at this same instant. Emits `BrokerRegistrationRefused`.
    ///
    /// Accepted: a new broker epoch, fenced until its first heartbeat (R6.1). When
    /// `previous_broker_epoch` is not the epoch of the registration it replaces (no clean
    /// shutdown file: a crash or a power loss), or there was none, the shutdown was unclean and
    /// the broker leaves every ISR and ELR first ([`Self::handle_unclean_shutdown`];
    /// `ClusterControlManager.registerBroker`, restored by KAFKA-18635, R8.3), with ELR on. Replies with the full image; emits `BrokerRegistered`.
    pub(super) fn on_register(
        &mut self,
        now: Ms,
        from: NodeId,
        broker: BrokerId,
        previous_broker_epoch: i64,
        out: &mut Outbox,
    ) {
        self.fence_stale_brokers(now, out);
        if let Some(old) = self.brokers.get(&broker).filter(|b| self.has_valid_session(b, now)) {
            out.emit(EventKind::BrokerRegistrationRefused {
                broker,
                silent_ms: now.saturating_sub(old.last_heartbeat),
                timeout_ms: self.config.broker_session_timeout_ms,
            });
            out.send(from, Message::RegisterBrokerRefused { error: ErrorCode::DuplicateBrokerRegistration });
            return;
        }
        let clean = self
            .brokers
            .get(&broker)
            .is_some_and(|b| b.registered && b.broker_epoch == previous_broker_epoch);
        // Kafka runs this whenever the metadata version supports ELR (4.0-IV1+), also with the
        // feature at 0, where it can start an unclean election at registration on a topic that
        // allows one; isrlab runs it with ELR on only (see the fidelity chapter).
        if !clean && self.config.semantics.eligible_leader_replicas {
            self.handle_unclean_shutdown(broker, out);
        }
        let epoch = self.next_broker_epoch();
        self.brokers.insert(
            broker,
            BrokerInfo {
                id: broker,
                registered: true,
                broker_epoch: epoch,
                fenced: true,
                in_controlled_shutdown: false,
                last_heartbeat: now,
            },
        );
        self.note_broker(broker);
        out.emit(EventKind::BrokerRegistered { broker, broker_epoch: epoch });
        out.send(from, Message::RegisterBrokerResponse { broker_epoch: epoch, image: self.full_image() });
    }

    /// Whether a broker's current registration still has a live session that blocks a new
    /// incarnation (`BrokerHeartbeatManager.hasValidSession`: unfenced and heard from within
    /// `broker.session.timeout.ms`). A fenced registration has no session. One in controlled
    /// shutdown may be replaced at once where the semantics has KAFKA-19047
    /// ([`crate::config::Semantics::reregister_after_controlled_shutdown`]); before it, it
    /// blocked like any other.
    fn has_valid_session(&self, b: &BrokerInfo, now: Ms) -> bool {
        let blocking = if self.config.semantics.reregister_after_controlled_shutdown {
            b.is_active()
        } else {
            b.registered && !b.fenced
        };
        blocking && now.saturating_sub(b.last_heartbeat) <= self.config.broker_session_timeout_ms
    }

    /// `BrokerHeartbeat` (R6.1, R6.6; `BrokerHeartbeatManager` states). A heartbeat with a stale
    /// broker epoch or from an unregistered broker is ignored (no reply).
    /// - Fenced broker: unfenced at its first heartbeat (its registration response carried the
    ///   whole image, so it has caught up); leaderless partitions are then elected (R6.4, and
    ///   unclean ones at once where the topic allows it, R6.5). A fenced broker asking to shut
    ///   down may stop at once.
    /// - `want_shutdown`: starts a controlled shutdown (R6.6): it leaves every ISR (last-member
    ///   rule) and its leaderships move. The reply says `should_shutdown` at a later heartbeat,
    ///   once it leads nothing (Kafka waits for the broker to replay those changes first); the
    ///   broker is then fenced.
    pub(super) fn on_heartbeat(
        &mut self,
        now: Ms,
        from: NodeId,
        broker: BrokerId,
        broker_epoch: i64,
        want_shutdown: bool,
        out: &mut Outbox,
    ) {
        let Some(b) = self.brokers.get_mut(&broker) else { return };
        if !b.registered || b.broker_epoch != broker_epoch {
            return;
        }
        b.last_heartbeat = now;
        let info = *b;
        let (fenced, should_shutdown) = if info.fenced {
            if want_shutdown || info.in_controlled_shutdown {
                // A fenced broker leads nothing: it may stop now (Kafka: FENCED → SHUTDOWN_NOW).
                self.remove_from_isrs(broker, &ShrinkCause::Fenced, ElectionKind::Clean, out);
                (true, true)
            } else {
                self.unfence(broker, out);
                (false, false)
            }
        } else if info.in_controlled_shutdown {
            if self.leader_count(broker) == 0 {
                self.set_broker(broker, |b| b.fenced = true);
                self.remove_from_isrs(
                    broker,
                    &ShrinkCause::ControlledShutdown,
                    ElectionKind::ControlledShutdown,
                    out,
                );
                (true, true)
            } else {
                (false, false)
            }
        } else if want_shutdown {
            self.set_broker(broker, |b| b.in_controlled_shutdown = true);
            out.emit(EventKind::ControlledShutdownStarted { broker });
            self.remove_from_isrs(
                broker,
                &ShrinkCause::ControlledShutdown,
                ElectionKind::ControlledShutdown,
                out,
            );
            (false, false)
        } else {
            (false, false)
        };
        out.send(from, Message::HeartbeatResponse { fenced, should_shutdown });
    }

    /// Fences every unfenced broker silent for longer than `broker.session.timeout.ms`, oldest
    /// heartbeat first (R6.1, R6.2; `BrokerHeartbeatManager.hasValidSession`).
    pub(super) fn fence_stale_brokers(&mut self, now: Ms, out: &mut Outbox) {
        let timeout = self.config.broker_session_timeout_ms;
        let mut stale: Vec<(Ms, BrokerId)> = self
            .brokers
            .values()
            .filter(|b| b.registered && !b.fenced && now.saturating_sub(b.last_heartbeat) > timeout)
            .map(|b| (b.last_heartbeat, b.id))
            .collect();
        stale.sort_unstable();
        for (last, broker) in stale {
            out.emit(EventKind::BrokerFenced { broker, silent_ms: now - last, timeout_ms: timeout });
            self.set_broker(broker, |b| b.fenced = true);
            self.remove_from_isrs(broker, &ShrinkCause::Fenced, ElectionKind::Clean, out);
        }
    }

    /// `handleBrokerUnfenced` (R6.4): marks the broker unfenced, emits `BrokerUnfenced`, then
    /// elects a leader for every leaderless partition that now has an acceptable ISR member, or
    /// an unclean one where the topic allows it (R6.5, Kafka 3.9+).
    fn unfence(&mut self, broker: BrokerId, out: &mut Outbox) {
        self.set_broker(broker, |b| b.fenced = false);
        out.emit(EventKind::BrokerUnfenced { broker });
        self.elect_leaderless(false, usize::MAX, out);
    }

    /// Takes over as the active controller at `now` in quorum epoch `epoch`
    /// (`QuorumController.QuorumMetaLogListener.handleLeaderChange` → `claim`): every broker
    /// gets a fresh session, since `ClusterControlManager.activate` builds a new
    /// `BrokerHeartbeatManager` whose `register` stamps each broker's last contact now (no
    /// broker is fenced for the silence before the takeover), and every registered broker
    /// reads the leader change from the metadata log (a [`Message::LeaderChange`]).
    pub fn activate(&mut self, now: Ms, epoch: crate::sim::Epoch, _offset: i64, out: &mut Outbox) {
        for b in self.brokers.values_mut().filter(|b| b.registered) {
            b.last_heartbeat = now;
        }
        for b in self.brokers.values().filter(|b| b.registered) {
            out.send(NodeId::Broker(b.id), Message::LeaderChange { epoch });
        }
    }

    /// Hands out the next broker epoch (monotonic, like KRaft's metadata offsets).
    fn next_broker_epoch(&mut self) -> i64 {
        self.last_broker_epoch += 1;
        self.last_broker_epoch
    }

    /// Whether a broker is active (may lead or join an ISR).
    pub(super) fn is_active(&self, id: BrokerId) -> bool {
        self.brokers.get(&id).is_some_and(BrokerInfo::is_active)
    }

    /// The ids of all active brokers.
    pub(super) fn active_set(&self) -> BTreeSet<BrokerId> {
        self.brokers.values().filter(|b| b.is_active()).map(|b| b.id).collect()
    }

    /// Edits a broker's record and queues its registration for the next broadcast.
    fn set_broker(&mut self, id: BrokerId, edit: impl FnOnce(&mut BrokerInfo)) {
        if let Some(b) = self.brokers.get_mut(&id) {
            edit(b);
            self.note_broker(id);
        }
    }
}
