//! One KRaft controller process (`process.roles=controller`): a voter of the metadata quorum
//! ([`RaftState`]) with its copy of the controller state ([`QuorumController`]), sans-IO.
//!
//! Every voter keeps the controller state the metadata log holds (Kafka's standby controllers
//! replay the committed log into their own `QuorumController`). Only the leader of the quorum
//! is the active controller: it alone answers brokers and writes records. What it writes and
//! what it answers waits until the records are committed (Kafka's controller completes a
//! write's future, and so sends its response, once the high watermark passes the write's
//! offset: `QuorumController.ControllerWriteEvent`, its `DeferredEventQueue`). A follower
//! copies the leader's state whenever it fetches new records. A voter that becomes leader
//! takes over from its copy with a new controller epoch, the quorum's epoch, and gives every
//! broker a fresh session (`ClusterControlManager.activate` builds a new
//! `BrokerHeartbeatManager`, whose `register` stamps each broker's last contact now).
//!
//! A voter that is not the active controller ignores brokers' requests: they go unanswered, as
//! `NOT_CONTROLLER` would leave them, until the brokers learn the new leader from the
//! `LeaderChangeMessage` record the new leader writes.

use super::controller::QuorumController;
use super::protocol::{Message, NodeId};
use super::raft::{Changes, MetaOffset, QuorumConfig, RaftMessage, RaftState, VoterId};
use super::{Ms, Outbox};
use std::collections::VecDeque;
use std::fmt;
use std::sync::Arc;

/// The controller state a fetch response carries with the leader's log: the records, as the
/// state they replay into. Compared by identity (it is a copy in flight).
#[derive(Clone)]
pub struct Replica(pub Arc<QuorumController>);

impl PartialEq for Replica {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl fmt::Debug for Replica {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Replica(..)")
    }
}

/// One controller process: its quorum state, its controller state and what the active
/// controller holds back until it commits.
#[derive(Clone, Debug)]
pub struct ControllerNode {
    raft: RaftState,
    controller: QuorumController,
    /// Replies and broadcasts of the active controller, each with the log end offset it waits
    /// for, in order.
    held: VecDeque<(MetaOffset, NodeId, Message)>,
    /// A reused outbox for the controller's own steps.
    scratch: Outbox,
}

impl ControllerNode {
    /// A voter with the given controller state; call [`RaftState::bootstrap`] through
    /// [`Self::bootstrap`] to start it in the quorum formed before the run.
    pub fn new(raft: RaftState, controller: QuorumController) -> Self {
        ControllerNode { raft, controller, held: VecDeque::new(), scratch: Outbox::default() }
    }

    /// Starts the run with `leader` active in epoch 1, every voter caught up.
    pub fn bootstrap(&mut self, now: Ms, leader: VoterId) {
        self.raft.bootstrap(now, leader);
    }

    /// The voter's quorum state.
    pub fn raft(&self) -> &RaftState {
        &self.raft
    }

    /// Its controller state (the active controller's, when it leads).
    pub fn controller(&self) -> &QuorumController {
        &self.controller
    }

    /// Its controller state, to change (the active controller's, when it leads).
    pub fn controller_mut(&mut self) -> &mut QuorumController {
        &mut self.controller
    }

    /// Whether it is the active controller.
    pub fn is_active(&self) -> bool {
        self.raft.is_leader()
    }

    /// Handles a message: quorum traffic goes to the voter; anything else is a broker's or
    /// client's request, which only the active controller answers.
    pub fn handle(&mut self, now: Ms, from: NodeId, msg: Message, out: &mut Outbox) {
        match msg {
            Message::Raft(m) => {
                let NodeId::Controller(voter) = from else { return };
                let changes = self.raft.handle(now, voter, &m, out);
                if changes.replaced
                    && let RaftMessage::FetchResponse { state: Some(state), .. } = *m
                {
                    self.controller = (*state.0).clone();
                }
                self.after_raft(now, changes, out);
            }
            other if self.raft.is_leader() => {
                let mut scratch = std::mem::take(&mut self.scratch);
                self.controller.handle(now, from, other, &mut scratch);
                self.write(now, &mut scratch, out);
                self.scratch = scratch;
            }
            _ => {}
        }
        self.attach_records(out);
    }

    /// Fires due timers: the quorum's, then (when it leads) the controller's.
    pub fn on_tick(&mut self, now: Ms, out: &mut Outbox) {
        let changes = self.raft.on_tick(now, out);
        self.after_raft(now, changes, out);
        if self.raft.is_leader() {
            if self.controller.next_deadline().is_some_and(|t| now >= t) {
                let mut scratch = std::mem::take(&mut self.scratch);
                self.controller.on_tick(now, &mut scratch);
                self.write(now, &mut scratch, out);
                self.scratch = scratch;
            }
        } else {
            self.raft.poll_fetch(now, out);
        }
        self.attach_records(out);
    }

    /// When [`Self::on_tick`] next has work (ms).
    pub fn next_deadline(&self) -> Option<Ms> {
        let quorum = Some(self.raft.next_deadline());
        let own = if self.raft.is_leader() { self.controller.next_deadline() } else { None };
        [quorum, own].into_iter().flatten().min()
    }

    /// Takes what the controller's step did: its events go out now; if it changed metadata
    /// (a broadcast), one record batch is appended; its messages wait for the log end to
    /// commit, stamped with that offset.
    pub fn write(&mut self, now: Ms, scratch: &mut Outbox, out: &mut Outbox) {
        out.events.append(&mut scratch.events);
        if scratch.sends.is_empty() {
            return;
        }
        let wrote = scratch.sends.iter().any(|(_, m)| matches!(m, Message::Metadata(_)));
        let offset = if wrote { self.raft.append(now, out) } else { self.raft.log().end };
        for (to, mut msg) in scratch.sends.drain(..) {
            match &mut msg {
                Message::Metadata(d) => d.offset = offset,
                Message::RegisterBrokerResponse { image, .. } => image.offset = offset,
                _ => {}
            }
            self.held.push_back((offset, to, msg));
        }
        self.release(out);
    }

    /// [`Self::write`] for a command's changes made directly on the active controller's
    /// state, with the records attached to any fetch the write answers.
    pub fn write_command(&mut self, now: Ms, scratch: &mut Outbox, out: &mut Outbox) {
        self.write(now, scratch, out);
        self.attach_records(out);
    }

    /// Sends what the high watermark has committed.
    fn release(&mut self, out: &mut Outbox) {
        let hw = self.raft.high_watermark();
        while self.held.front().is_some_and(|h| h.0 <= hw) {
            let (_, to, msg) = self.held.pop_front().expect("checked");
            out.send(to, msg);
        }
    }

    /// Acts on what the quorum step changed: a new active controller takes over, a lost
    /// leadership drops what was never committed, a commit releases what waited for it.
    fn after_raft(&mut self, now: Ms, changes: Changes, out: &mut Outbox) {
        if changes.lost_leadership {
            self.held.clear();
        }
        if changes.became_leader {
            let mut scratch = std::mem::take(&mut self.scratch);
            self.controller.activate(now, self.raft.epoch(), self.raft.log().end, &mut scratch);
            let offset = self.raft.log().end;
            for (to, msg) in scratch.sends.drain(..) {
                self.held.push_back((offset, to, msg));
            }
            out.events.append(&mut scratch.events);
            self.scratch = scratch;
        }
        if self.raft.is_leader() {
            self.release(out);
        }
    }

    /// Fetch responses that carry the leader's log also carry its state (the records).
    fn attach_records(&self, out: &mut Outbox) {
        for (_, msg) in out.sends.iter_mut() {
            if let Message::Raft(m) = msg
                && let RaftMessage::FetchResponse { log: Some(_), state, .. } = &mut **m
            {
                *state = Some(Replica(Arc::new(self.controller.clone())));
            }
        }
    }

    /// The process restarts: the quorum state from disk, unattached; nothing held survives.
    pub fn restart(&mut self, now: Ms) {
        self.held.clear();
        self.raft.restart(now);
    }
}

/// The quorum settings of a cluster: how many voters and their timeouts.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct QuorumSpec {
    /// Voters: 1, 3 or 5 (`controllers`).
    pub voters: usize,
    /// Their timeouts.
    pub config: QuorumConfig,
}

impl Default for QuorumSpec {
    fn default() -> Self {
        QuorumSpec { voters: 1, config: QuorumConfig::default() }
    }
}
