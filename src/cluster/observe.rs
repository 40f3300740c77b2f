//! Builds [`Snapshot`]s from the running world: O(partitions) small fields, no log contents.
//! Partition state comes from the controller's published [`MetadataImage`], process state from
//! the node registry, replica state from the broker cores.
//!
//! Snapshots follow changes: a [`ViewCache`] keeps the last views and the brokers mark the
//! partitions they change ([`ViewMarks`]). A partition is looked at again only when a broker
//! marked it, its metadata or counters moved, its view shows a running clock (an ISR timer,
//! a fencing countdown, a recent truncation, a reassignment), or something every view reads
//! changed (links, processes up, fencing); the others share (`Arc`) the previous snapshot's
//! view at the cost of a few comparisons. A partition looked at is computed without
//! allocating and compared with the cached view, and gets a new one only when a field
//! differs. The audit ledger, the ISR counters and the truncations are read in one ordered
//! pass each (cursors).

use super::history::{History, PartitionReading, ProducerReading};
use super::link::LinkFaults;
use super::node::ProcessState;
use super::snapshot::{
    BrokerStatus, BrokerView, CachedSessionView, ConsumerLag, ConsumerStatus, ConsumerView, FetchSessionView,
    GroupStatus, HW_STALL_MS, HwHold, LinkFaultView, PartitionHealth, PartitionView, Reach, ReplicaView,
    Snapshot, TopicView, TruncationView, Unreachable,
};
use super::truncations::shown;
use super::world::World;
use crate::cluster::events::IsrChanges;
use crate::config::BrokerConfig;
use crate::sim::audit::Ledger;
use crate::sim::broker::{Broker, ViewMarks};
use crate::sim::controller::QuorumController;
use crate::sim::image::{MetadataImage, TopicImage};
use crate::sim::loss_cause::LossCause;
use crate::sim::partition::{Ctx, Partition};
use crate::sim::protocol::{NodeId, PartitionState};
use crate::sim::{BrokerId, Epoch, Ms, Offset, TopicPartition};
use std::cell::Ref;
use std::collections::{BTreeMap, BTreeSet};
use std::iter::Peekable;
use std::sync::Arc;

/// The partition views of the last snapshot, kept so that the next one rebuilds only the
/// partitions whose view changed and shares the others (a 5 000-partition snapshot
/// every frame). An unchanged partition costs a few comparisons and no allocation.
/// `ViewCache::default()` is a scratch cache: it looks at every partition and leaves the
/// brokers' marks alone; [`ViewCache::following`] takes the marks and looks only at what they
/// and the views' clocks name. Only one cache per world may follow (taking marks clears
/// them).
#[derive(Default)]
pub(crate) struct ViewCache {
    partitions: Vec<Arc<PartitionView>>,
    /// Whether it takes the brokers' marks.
    follows: bool,
    /// What every view read at the last snapshot; when it differs, every view is looked at.
    shared: Option<SharedInputs>,
}

impl ViewCache {
    /// The sim's own cache, which takes the brokers' marks at each snapshot.
    pub(crate) fn following() -> Self {
        ViewCache { follows: true, ..ViewCache::default() }
    }
}

/// The inputs every partition view reads besides its own replicas and metadata.
#[derive(PartialEq, Debug)]
struct SharedInputs {
    reach: BTreeMap<BrokerId, Reach>,
    online: Vec<(BrokerId, bool)>,
    /// The brokers being fenced (their countdowns are read by the partitions they lead,
    /// which are looked at every time).
    fencing: Vec<BrokerId>,
}

/// The cluster as it is now; partitions whose view equals the one in `cache` are shared with
/// the previous snapshot, and `cache` keeps the new views for the next call.
/// The quorum's voters, the active controller, and each broker's applied metadata offset.
fn quorum_view(world: &World) -> super::snapshot::QuorumView {
    let voters: Vec<super::snapshot::VoterView> = world
        .controller_nodes()
        .into_iter()
        .map(|(id, c)| {
            let node = world.node(NodeId::Controller(id));
            let up = node.is_some_and(|n| n.state.get().is_running() && n.frozen.get().is_none());
            let c = c.borrow();
            super::snapshot::VoterView { id, up, epoch: c.raft().epoch(), log_end: c.raft().log().end }
        })
        .collect();
    let active = world.active_controller_id();
    let active_node = active.and_then(|id| world.controller_node(id));
    let (epoch, committed) = match &active_node {
        Some(c) => (c.borrow().raft().epoch(), c.borrow().raft().high_watermark()),
        None => (voters.iter().map(|v| v.epoch).max().unwrap_or(0), 0),
    };
    let applied = world.brokers().iter().map(|(id, b)| (*id, b.borrow().metadata_offset())).collect();
    super::snapshot::QuorumView { voters, active, epoch, committed, applied }
}

pub(crate) fn snapshot(world: &World, cache: &mut ViewCache) -> Snapshot {
    let controller = world.controller();
    let controller = controller.borrow();
    let rcs = world.brokers();
    let mut marks = ViewMarks { all: !cache.follows, ..ViewMarks::default() };
    if cache.follows {
        rcs.iter().for_each(|(_, c)| marks.merge(c.borrow_mut().take_view_marks()));
    }
    let cores: BTreeMap<BrokerId, Ref<'_, Broker>> = rcs.iter().map(|(id, c)| (*id, c.borrow())).collect();
    let faulty = world.net.faulty_links();
    let reach = reach_by_broker(&faulty, &cores);
    let now = world.now();
    let fencing = fencing_by_broker(world, &controller, &reach, now);
    let shared = SharedInputs {
        reach: reach.clone(),
        online: cores.iter().map(|(&id, c)| (id, c.is_up())).collect(),
        fencing: fencing.keys().copied().collect(),
    };
    if cache.shared.as_ref() != Some(&shared) {
        marks.mark_all();
    }
    let o = Observer { world, now, image: controller.image(), reach, fencing };
    let broker_config = o.image.broker_config().clone();
    let partitions = o.partitions(&cores, &cache.partitions, &marks);
    cache.partitions.clone_from(&partitions);
    cache.shared = Some(shared);
    let mut leads: BTreeMap<BrokerId, usize> = BTreeMap::new();
    for l in partitions.iter().filter_map(|p| p.leader) {
        *leads.entry(l).or_default() += 1;
    }
    let brokers = cores
        .iter()
        .map(|(&id, core)| {
            let mut view = o.broker_view(id, core, &controller, leads.get(&id).copied().unwrap_or(0));
            view.fetch_sessions = fetch_sessions(id, core, &cores);
            view
        })
        .collect();
    let topics = o.image.topics().map(|t| topic_view(t, &broker_config)).collect();
    let ledger = world.ledger.borrow();
    let producers = world
        .producers()
        .iter()
        .map(|p| {
            let producer = p.borrow();
            let mut view = producer.view(o.now);
            view.latency = producer.latency(o.now);
            view.acked_lost = ledger.lost_by(view.index);
            view.unacked_lost = ledger.unacked_lost_by(view.index);
            view.reordered = ledger.reordered_by(view.index);
            view
        })
        .collect();
    let consumers =
        world.consumers().iter().map(|c| consumer_status(c.borrow().view(), &partitions, &ledger)).collect();
    let groups = group_statuses(&cores);
    let mut log = world.log.borrow_mut();
    Snapshot {
        seed: world.seed,
        now: o.now,
        now_us: world.now_us(),
        semantics: broker_config.semantics,
        quorum: quorum_view(world),
        brokers,
        topics,
        partitions,
        producers,
        consumers,
        groups,
        broker_config: world.server_properties.borrow().clone(),
        rolling: world.rolling.get(),
        acked_lost: ledger.lost(),
        unacked_lost: ledger.unacked_lost(),
        duplicates: ledger.duplicates(),
        reordered: ledger.reordered(),
        seen_erased: ledger.seen_erased_total(),
        recent_events: log.recent(),
        event_count: log.count(),
        commands: log.commands(),
        scenario: None,
        history: world.history.borrow().clone(),
        faulty_links: faulty
            .into_iter()
            .map(|((from, to), faults)| LinkFaultView { from, to, faults })
            .collect(),
        next_unclean_check_at: world.controller().borrow().next_unclean_check_at(),
        whatif: None,
    }
}

/// Adds one sample of the cluster at `now` (ms) to `history`: the producers' counters and the
/// latency of the second that just ended, and every partition's ISR size, HW and replica
/// LEOs, read as [`snapshot`] reads them (the published metadata image, the cores' logs).
pub(crate) fn take_sample(world: &World, now: Ms, history: &mut History) {
    let last_second = (now / 1000).saturating_sub(1);
    let producers: Vec<ProducerReading> = world
        .producers()
        .iter()
        .map(|p| {
            let p = p.borrow();
            let view = p.view(now);
            ProducerReading { sent: view.sent, acked: view.acked, latency: p.latency_in_second(last_second) }
        })
        .collect();
    history.sample_producers(now, &producers);
    let controller = world.controller();
    let controller = controller.borrow();
    let rcs = world.brokers();
    let cores: BTreeMap<BrokerId, Ref<'_, Broker>> = rcs.iter().map(|(id, c)| (*id, c.borrow())).collect();
    let mut replicas: BTreeMap<BrokerId, _> =
        cores.iter().map(|(&id, core)| (id, Cursor::new(core.partitions()))).collect();
    let mut leos: Vec<(BrokerId, Option<Offset>)> = Vec::new();
    let mut readings = Vec::new();
    for ps in controller.image().topics().flat_map(|t| &t.partitions) {
        let found: Vec<(BrokerId, Option<&Partition>)> =
            ps.replicas.iter().map(|&r| (r, replicas.get_mut(&r).and_then(|c| c.seek(&ps.tp)))).collect();
        let leader = ps.leader.and_then(|l| {
            let listed = found.iter().find(|(r, _)| *r == l).and_then(|(_, p)| *p);
            listed.or_else(|| cores.get(&l)?.partition(&ps.tp))
        });
        let hw = match leader {
            Some(p) => p.log.hw(),
            None => found.iter().filter_map(|(_, p)| p.map(|p| p.log.hw())).max().unwrap_or(0),
        };
        let start = leos.len();
        leos.extend(found.iter().map(|(r, p)| (*r, p.map(|p| p.log.leo()))));
        readings.push((&ps.tp, ps.isr.len(), hw, start..leos.len()));
    }
    history.sample_partitions(readings.into_iter().map(|(tp, isr, hw, range)| PartitionReading {
        tp,
        isr,
        hw,
        leos: &leos[range],
    }));
}

/// Every group a running broker coordinates (the first broker that has it, in id order).
fn group_statuses(cores: &BTreeMap<BrokerId, Ref<'_, Broker>>) -> Vec<GroupStatus> {
    let mut groups: BTreeMap<String, GroupStatus> = BTreeMap::new();
    for (&id, core) in cores.iter().filter(|(_, c)| c.is_up()) {
        for g in core.group_coordinator().into_iter().flat_map(|c| c.groups()) {
            groups.entry(g.id.to_string()).or_insert_with(|| GroupStatus {
                id: g.id.to_string(),
                state: g.state,
                coordinator: id,
                generation: g.generation,
                members: g.members.keys().map(|m| m.to_string()).collect(),
            });
        }
    }
    groups.into_values().collect()
}

/// A consumer's view with its lags behind each partition's leader HW and LEO (from the
/// partition views) and its erased records (from the ledger).
fn consumer_status(view: ConsumerView, partitions: &[Arc<PartitionView>], ledger: &Ledger) -> ConsumerStatus {
    let lags = view
        .partitions
        .iter()
        .map(|cp| {
            let pv = partitions.binary_search_by(|p| p.tp.cmp(&cp.tp)).ok().map(|i| &partitions[i]);
            let leo = pv.and_then(|p| {
                let leader = p.leader?;
                p.replica_views.iter().find(|r| r.broker == leader).map(|r| r.leo)
            });
            let behind = |end: Option<Offset>| Some((end? - cp.position?).max(0));
            ConsumerLag { tp: cp.tp.clone(), behind_hw: behind(pv.map(|p| p.hw)), behind_leo: behind(leo) }
        })
        .collect();
    ConsumerStatus { seen_erased: ledger.seen_erased(view.index), view, lags }
}

fn topic_view(t: &TopicImage, broker_config: &BrokerConfig) -> TopicView {
    let rf = t.replication_factor();
    TopicView {
        name: t.name.to_string(),
        topic_id: t.id.to_string(),
        partitions: t.partition_count(),
        replication_factor: rf,
        config_overrides: t.config.overrides(),
        effective_min_isr: t.config.effective_min_isr(broker_config, rf),
        unclean_leader_election_enable: t.config.unclean_leader_election_enable(broker_config),
    }
}

/// Whether each broker's links to the controller and to the other brokers are blocked (cut
/// or held), worked out once per snapshot from the links that have faults.
fn reach_by_broker(
    faulty: &[((NodeId, NodeId), LinkFaults)],
    cores: &BTreeMap<BrokerId, Ref<'_, Broker>>,
) -> BTreeMap<BrokerId, Reach> {
    let blocked: BTreeSet<(NodeId, NodeId)> =
        faulty.iter().filter(|(_, f)| f.cut || f.held).map(|(link, _)| *link).collect();
    let reach = |id: BrokerId| {
        if blocked.is_empty() {
            return Reach::Controller;
        }
        let me = NodeId::Broker(id);
        let both = |p: NodeId| blocked.contains(&(me, p)) && blocked.contains(&(p, me));
        let others = cores.keys().filter(|&&b| b != id).map(|&b| NodeId::Broker(b));
        let controller = NodeId::Controller(cores[&id].known_controller().0);
        if others.chain(std::iter::once(controller)).all(both) {
            Reach::Isolated
        } else if blocked.contains(&(me, controller)) {
            Reach::NoController
        } else {
            Reach::Controller
        }
    };
    cores.keys().map(|&id| (id, reach(id))).collect()
}

/// Broker `id`'s process as the node registry has it.
fn process_status(world: &World, id: BrokerId) -> BrokerStatus {
    let node = world.node(NodeId::Broker(id));
    let state = node.as_ref().map_or(ProcessState::Running, |n| n.state.get());
    let frozen = node.as_ref().and_then(|n| n.frozen.get());
    match state {
        ProcessState::Running | ProcessState::ShuttingDown if frozen.is_some() => {
            BrokerStatus::Frozen { since: frozen.map_or(0, |f| f.since) }
        }
        ProcessState::Running | ProcessState::ShuttingDown => BrokerStatus::Up,
        ProcessState::PoweredOff { since } => BrokerStatus::PoweredOff { since },
        ProcessState::Stopped { since } => BrokerStatus::Stopped { since },
        ProcessState::Crashed { since } => BrokerStatus::Crashed { since },
    }
}

/// The brokers the controller does not hear from (process down or frozen, or the link to
/// the controller blocked) and has not fenced yet, with the ms left until it fences each
/// ([`QuorumController::fences_at`]) and why it hears nothing.
fn fencing_by_broker(
    world: &World,
    controller: &QuorumController,
    reach: &BTreeMap<BrokerId, Reach>,
    now: Ms,
) -> BTreeMap<BrokerId, (Ms, Unreachable)> {
    reach
        .iter()
        .filter_map(|(&id, &r)| {
            let why = match process_status(world, id) {
                BrokerStatus::Up if r == Reach::Controller => return None,
                BrokerStatus::Up => Unreachable::CutOff,
                BrokerStatus::Frozen { .. } => Unreachable::Frozen,
                _ => Unreachable::Down,
            };
            Some((id, (controller.fences_at(id)?.saturating_sub(now), why)))
        })
        .collect()
}

/// Walks an ordered `(partition, value)` sequence alongside the image's partitions, which
/// come in the same (topic, partition) order: each partition costs a comparison or two,
/// not a map lookup.
struct Cursor<I: Iterator> {
    iter: Peekable<I>,
}

impl<'a, V, I: Iterator<Item = (&'a TopicPartition, V)>> Cursor<I> {
    fn new(iter: I) -> Self {
        Cursor { iter: iter.peekable() }
    }

    /// The value of `tp`, if the sequence has one. Calls come in ascending `tp` order.
    fn seek(&mut self, tp: &TopicPartition) -> Option<V> {
        while self.iter.next_if(|(k, _)| *k < tp).is_some() {}
        self.iter.next_if(|(k, _)| *k == tp).map(|(_, v)| v)
    }
}

/// What one snapshot reads: partition state from the published metadata image, replica state
/// from the broker cores (their logs are on disk even while they are down).
struct Observer<'a> {
    world: &'a World,
    now: Ms,
    image: &'a MetadataImage,
    reach: BTreeMap<BrokerId, Reach>,
    /// The brokers the controller does not hear from and has not fenced yet: ms until it
    /// does, and why.
    fencing: BTreeMap<BrokerId, (Ms, Unreachable)>,
}

/// What one partition's view reads besides its metadata: its replicas on the cores (in
/// replica-list order), its leader's core and replica, and its counters.
struct Sources<'c> {
    found: Vec<Option<&'c Partition>>,
    leader: Option<(&'c Broker, &'c Partition)>,
    acked_lost: u64,
    loss_cause: Option<&'c LossCause>,
    isr_changes: IsrChanges,
    min_isr: usize,
    /// Its kept truncations (some may be too old to show).
    truncations: &'c [TruncationView],
}

impl Observer<'_> {
    /// Every partition's view in (topic, partition) order: the cached one when nothing in it
    /// changed, else a new one. Only the partitions `marks` names, and those whose cached
    /// view is not [`settled`], are looked at.
    fn partitions(
        &self,
        cores: &BTreeMap<BrokerId, Ref<'_, Broker>>,
        cached: &[Arc<PartitionView>],
        marks: &ViewMarks,
    ) -> Vec<Arc<PartitionView>> {
        let mut marked = marks.partitions.iter().peekable();
        let ledger = self.world.ledger.borrow();
        let mut lost = Cursor::new(ledger.lost_by_partition());
        let log = self.world.log.borrow();
        let mut isr_changes = Cursor::new(log.isr_changes_by_partition());
        let kept = self.world.truncations.borrow();
        let mut truncations = Cursor::new(kept.by_partition());
        let mut drafts = Vec::new();
        let mut views = Vec::with_capacity(cached.len());
        for topic in self.image.topics() {
            for ps in &topic.partitions {
                let (acked_lost, loss_cause) = lost.seek(&ps.tp).unwrap_or_default();
                let changes = isr_changes.seek(&ps.tp).unwrap_or_default();
                let min_isr = topic.config.effective_min_isr(self.image.broker_config(), ps.replicas.len());
                let kept = truncations.seek(&ps.tp).unwrap_or_default();
                while marked.next_if(|tp| *tp < &ps.tp).is_some() {}
                let is_marked = marks.all || marked.next_if(|tp| *tp == &ps.tp).is_some();
                let before = cached.get(views.len()).filter(|c| c.tp == ps.tp);
                if let Some(view) = before.filter(|c| {
                    !is_marked
                        && settled(c, ps, (acked_lost, loss_cause), changes, min_isr, kept, &self.fencing)
                }) {
                    views.push(view.clone());
                    continue;
                }
                let found: Vec<Option<&Partition>> =
                    ps.replicas.iter().map(|r| cores.get(r).and_then(|c| c.partition(&ps.tp))).collect();
                let leader = ps.leader.and_then(|l| {
                    let core: &Broker = cores.get(&l)?;
                    let at = ps.replicas.iter().position(|&r| r == l);
                    Some((core, at.and_then(|i| found[i]).or_else(|| core.partition(&ps.tp))?))
                });
                let sources = Sources {
                    found,
                    leader,
                    acked_lost,
                    loss_cause,
                    isr_changes: changes,
                    min_isr,
                    truncations: kept,
                };
                views.push(self.partition_view(ps, cores, &sources, before, &mut drafts));
            }
        }
        views
    }

    /// The partition's view: `cached` itself when it is still exact, else a new one.
    /// `drafts` is scratch space for the replica views (kept to avoid allocating).
    fn partition_view(
        &self,
        ps: &PartitionState,
        cores: &BTreeMap<BrokerId, Ref<'_, Broker>>,
        src: &Sources<'_>,
        cached: Option<&Arc<PartitionView>>,
        drafts: &mut Vec<ReplicaView>,
    ) -> Arc<PartitionView> {
        let ctx = src.leader.map(|(core, _)| core.ctx_for(self.now, &ps.tp));
        let leader_part = src.leader.map(|(_, p)| p).zip(ctx.as_ref());
        drafts.clear();
        drafts.extend(ps.replicas.iter().zip(&src.found).map(|(&r, part)| {
            let online = cores.get(&r).is_some_and(|c| c.is_up());
            replica_draft(ps, r, online, *part, leader_part)
        }));
        let hw = match src.leader {
            Some((_, p)) => p.log.hw(),
            None => src.found.iter().flatten().map(|p| p.log.hw()).max().unwrap_or(0),
        };
        let stalled = src.leader.and_then(|(_, p)| p.hw_held_by()).map(|(r, _)| r).filter(|r| {
            drafts.iter().any(|d| d.broker == *r && d.caught_up_ago.is_some_and(|ago| ago >= HW_STALL_MS))
        });
        let health = self.health(ps, src.min_isr, stalled);
        let draft = PartitionView {
            tp: ps.tp.clone(),
            replicas: Vec::new(),
            isr: Vec::new(),
            adding: ps.adding.clone(),
            removing: ps.removing.clone(),
            elr: ps.elr.clone(),
            last_known_elr: ps.last_known_elr.clone(),
            reassign_bytes_left: bytes_left(ps, src),
            leader: ps.leader,
            leader_epoch: ps.leader_epoch,
            partition_epoch: ps.partition_epoch,
            hw,
            replica_views: Vec::new(),
            health,
            effective_min_isr: src.min_isr,
            hw_blocked_by: leader_part.and_then(|(p, ctx)| p.hw_blocked_by(ctx)),
            pending_isr: src.leader.and_then(|(_, p)| p.pending_isr()),
            acked_lost: src.acked_lost,
            loss_cause: src.loss_cause.cloned(),
            leader_recovery_state: ps.leader_recovery,
            isr_shrinks: src.isr_changes.shrinks,
            isr_expands: src.isr_changes.expands,
            leader_reach: ps
                .leader
                .map_or(Reach::Controller, |l| self.reach.get(&l).copied().unwrap_or(Reach::Controller)),
            hw_held_by: src
                .leader
                .and_then(|(_, p)| p.hw_held_by())
                .map(|(broker, leo)| HwHold { broker, leo }),
            parked: src.leader.map_or_else(Vec::new, |(_, p)| p.parked_produces()),
            truncations: Vec::new(),
        };
        let truncations = || shown(src.truncations, self.now);
        if let Some(view) = cached.filter(|c| {
            unchanged(c, &draft, ps, drafts, &src.found) && c.truncations.iter().eq(truncations())
        }) {
            return view.clone();
        }
        let replica_views = drafts
            .iter()
            .zip(&src.found)
            .map(|(d, part)| ReplicaView {
                epoch_cache: part.map(|p| p.log.epoch_cache().to_vec()).unwrap_or_default(),
                ..d.clone()
            })
            .collect();
        Arc::new(PartitionView {
            replicas: ps.replicas.clone(),
            isr: ps.isr.clone(),
            replica_views,
            truncations: truncations().copied().collect(),
            ..draft
        })
    }

    /// The partition's state, the worst thing true of it (see [`PartitionHealth`]).
    /// `stalled` is the ISR member the HW waits for, when it has not caught up for
    /// [`HW_STALL_MS`].
    fn health(&self, ps: &PartitionState, min_isr: usize, stalled: Option<BrokerId>) -> PartitionHealth {
        let Some(leader) = ps.leader else { return PartitionHealth::Offline };
        if let Some(&(fenced_in, why)) = self.fencing.get(&leader) {
            PartitionHealth::LeaderUnreachable { fenced_in, why }
        } else if ps.isr.len() < min_isr {
            PartitionHealth::UnderMinIsr
        } else if let Some(broker) = stalled {
            PartitionHealth::HwWaiting { broker }
        } else if ps.isr.len() < ps.replicas.len() - ps.adding.len() {
            PartitionHealth::UnderReplicated
        } else if !ps.adding.is_empty() || !ps.removing.is_empty() {
            PartitionHealth::Reassigning
        } else {
            PartitionHealth::Healthy
        }
    }

    /// The static properties set since broker `id` started, while the config it runs with
    /// differs from `server.properties` in a static property.
    fn restart_pending(&self, id: BrokerId, running: &BrokerConfig) -> Vec<String> {
        let stored = self.world.server_properties.borrow().for_broker(id);
        if running.with_dynamic_from(&stored) == stored {
            return Vec::new();
        }
        let pending = self.world.restart_pending.borrow();
        pending.get(&id).map_or_else(Vec::new, |names| names.iter().map(|n| n.to_string()).collect())
    }

    fn broker_view(
        &self,
        id: BrokerId,
        core: &Broker,
        controller: &QuorumController,
        leads: usize,
    ) -> BrokerView {
        let reg = self.image.broker(id);
        BrokerView {
            id,
            status: process_status(self.world, id),
            fenced: reg.is_none_or(|r| r.fenced),
            in_controlled_shutdown: reg.is_some_and(|r| r.in_controlled_shutdown),
            broker_epoch: core.broker_epoch(),
            leader_count: leads,
            fetch_paused: core.fetch_paused(),
            // The heartbeat manager's clock is controller-local state, not metadata.
            last_heartbeat: controller.broker(id).map_or(0, |r| r.last_heartbeat),
            restart_pending: self.restart_pending(id, core.config()),
            reach: self.reach.get(&id).copied().unwrap_or_default(),
            fenced_in: self.fencing.get(&id).map(|f| f.0),
            replica_lag_time_max_ms: core.config().replica_lag_time_max_ms,
            fetch_sessions: Vec::new(),
        }
    }
}

/// Broker `id`'s fetch sessions, each with the leader's cached side when the leader holds a
/// session of that id for `id`. A handful per broker: one map look-up each.
fn fetch_sessions(
    id: BrokerId,
    core: &Broker,
    cores: &BTreeMap<BrokerId, Ref<'_, Broker>>,
) -> Vec<FetchSessionView> {
    core.fetch_sessions()
        .map(|(leader, members, h)| {
            let m = h.metadata();
            let at_leader = cores
                .get(&leader)
                .and_then(|l| l.cached_fetch_session(m.session_id))
                .filter(|s| s.replica == id)
                .map(|s| CachedSessionView {
                    epoch: s.epoch,
                    partitions: s.partitions.len(),
                    last_used_ms: s.last_used_ms,
                });
            FetchSessionView {
                leader,
                members,
                session_id: m.session_id,
                epoch: m.epoch,
                partitions: h.session_len(),
                reset: h.last_reset(),
                at_leader,
            }
        })
        .collect()
}

/// Replica `r`'s view without its epoch cache (left empty: no allocation), as its own log
/// and its leader's bookkeeping (`leader`, with the leader's context) show it.
fn replica_draft(
    ps: &PartitionState,
    r: BrokerId,
    online: bool,
    part: Option<&Partition>,
    leader: Option<(&Partition, &Ctx<'_>)>,
) -> ReplicaView {
    let follower = leader.filter(|_| ps.leader != Some(r)).and_then(|(p, ctx)| p.follower_view(ctx, r));
    let isr_expiry_in = follower.and_then(|f| f.isr_expiry_in);
    ReplicaView {
        broker: r,
        online,
        leo: part.map_or(0, |p| p.log.leo()),
        hw: part.map_or(0, |p| p.log.hw()),
        log_start: part.map_or(0, |p| p.log.log_start()),
        fetch_requests: part.map_or(0, |p| p.fetch_requests()),
        epoch_cache: Vec::new(),
        in_isr: ps.isr.contains(&r),
        is_leader: ps.leader == Some(r),
        lag: follower.and_then(|f| f.lag),
        isr_expiry_in,
        // Only while the ISR timer runs: otherwise it would change every instant.
        caught_up_ago: isr_expiry_in.and(follower.and_then(|f| f.caught_up_ago)),
    }
}

/// Whether the view `cached` can be kept without looking at the replicas, for a partition no
/// broker marked: its metadata `ps` and counters are the ones it shows, and nothing in it
/// moves with time alone (an ISR timer or the time since caught up, the countdown of a
/// leader being fenced, a truncation shown for a while, a reassignment's bytes left).
fn settled(
    cached: &PartitionView,
    ps: &PartitionState,
    (acked_lost, loss_cause): (u64, Option<&LossCause>),
    changes: IsrChanges,
    min_isr: usize,
    kept: &[TruncationView],
    fencing: &BTreeMap<BrokerId, (Ms, Unreachable)>,
) -> bool {
    let clocks = cached.replica_views.iter().any(|r| r.isr_expiry_in.is_some() || r.caught_up_ago.is_some());
    cached.replicas == ps.replicas
        && cached.isr == ps.isr
        && cached.adding.is_empty()
        && ps.adding.is_empty()
        && cached.removing == ps.removing
        && cached.leader == ps.leader
        && cached.leader_epoch == ps.leader_epoch
        && cached.partition_epoch == ps.partition_epoch
        && cached.leader_recovery_state == ps.leader_recovery
        && cached.acked_lost == acked_lost
        && cached.loss_cause.as_ref() == loss_cause
        && cached.isr_shrinks == changes.shrinks
        && cached.isr_expands == changes.expands
        && cached.effective_min_isr == min_isr
        && kept.is_empty()
        && cached.truncations.is_empty()
        && !clocks
        && ps.leader.is_none_or(|l| !fencing.contains_key(&l))
}

/// Whether `cached` still shows the partition: `draft` (its new view without the lists),
/// the metadata `ps`, the replica drafts and the replicas' epoch caches all match it. Every
/// field is named, so a new field cannot be forgotten here.
fn unchanged(
    cached: &PartitionView,
    draft: &PartitionView,
    ps: &PartitionState,
    drafts: &[ReplicaView],
    found: &[Option<&Partition>],
) -> bool {
    let PartitionView {
        tp,
        replicas,
        isr,
        adding,
        removing,
        elr,
        last_known_elr,
        reassign_bytes_left,
        leader,
        leader_epoch,
        partition_epoch,
        hw,
        replica_views,
        health,
        effective_min_isr,
        hw_blocked_by,
        pending_isr,
        acked_lost,
        loss_cause,
        leader_recovery_state,
        isr_shrinks,
        isr_expands,
        leader_reach,
        hw_held_by,
        parked,
        // Compared by the caller, against the kept truncations.
        truncations: _,
    } = cached;
    *tp == draft.tp
        && *replicas == ps.replicas
        && *isr == ps.isr
        && *adding == draft.adding
        && *removing == draft.removing
        && *elr == draft.elr
        && *last_known_elr == draft.last_known_elr
        && *reassign_bytes_left == draft.reassign_bytes_left
        && *leader == draft.leader
        && *leader_epoch == draft.leader_epoch
        && *partition_epoch == draft.partition_epoch
        && *hw == draft.hw
        && *health == draft.health
        && *effective_min_isr == draft.effective_min_isr
        && *hw_blocked_by == draft.hw_blocked_by
        && *pending_isr == draft.pending_isr
        && *acked_lost == draft.acked_lost
        && *loss_cause == draft.loss_cause
        && *leader_recovery_state == draft.leader_recovery_state
        && *isr_shrinks == draft.isr_shrinks
        && *isr_expands == draft.isr_expands
        && *leader_reach == draft.leader_reach
        && *hw_held_by == draft.hw_held_by
        && *parked == draft.parked
        && replica_views.len() == drafts.len()
        && replica_views
            .iter()
            .zip(drafts)
            .zip(found)
            .all(|((c, d), part)| same_replica(c, d, part.map_or(&[], |p| p.log.epoch_cache())))
}

/// The bytes the adding replicas of a reassignment still have to fetch: the leader's log size
/// minus each one's (`None` when no replica is being added or the partition has no leader).
fn bytes_left(ps: &PartitionState, src: &Sources<'_>) -> Option<u64> {
    if ps.adding.is_empty() {
        return None;
    }
    let leader = src.leader?.1.log.size_bytes();
    let size_of = |r: &BrokerId| {
        let i = ps.replicas.iter().position(|x| x == r)?;
        Some(src.found[i].map_or(0, |p| p.log.size_bytes()))
    };
    Some(ps.adding.iter().filter_map(size_of).map(|size| leader.saturating_sub(size)).sum())
}

/// Whether the cached replica view `c` equals the draft `d` with epoch cache `epochs`.
fn same_replica(c: &ReplicaView, d: &ReplicaView, epochs: &[(Epoch, Offset)]) -> bool {
    let ReplicaView {
        broker,
        online,
        leo,
        hw,
        log_start,
        fetch_requests,
        epoch_cache,
        in_isr,
        is_leader,
        lag,
        isr_expiry_in,
        caught_up_ago,
    } = c;
    *broker == d.broker
        && *online == d.online
        && *leo == d.leo
        && *hw == d.hw
        && *log_start == d.log_start
        && *fetch_requests == d.fetch_requests
        && epoch_cache.as_slice() == epochs
        && *in_isr == d.in_isr
        && *is_leader == d.is_leader
        && *lag == d.lag
        && *isr_expiry_in == d.isr_expiry_in
        && *caught_up_ago == d.caught_up_ago
}
