//! The why panel on the real simulation: each statement is checked against what the sim
//! then does (the HW holder, the refusal, the ISR removal, the election winner).

use super::*;
use crate::cluster::command::Command;
use crate::cluster::handle::Sim;
use crate::cluster::snapshot::HwHold;
use crate::cluster::spec::ClusterSpec;
use crate::sim::Ms;

/// The default cluster (`isrlab --seed 42`: brokers 0–2, `test_repli` with 6 partitions,
/// RF 3, a producer at 100 records/s with acks=all).
fn default_sim() -> Sim {
    Sim::new(ClusterSpec::default_run(42)).expect("the default run is valid")
}

fn apply(sim: &mut Sim, line: &str) {
    let cmd = Command::parse(line).unwrap_or_else(|e| panic!("{line}: {e:?}"));
    sim.apply(&cmd).unwrap_or_else(|e| panic!("{line}: {e}"));
}

/// A model with the partition `index` selected.
fn model_on(snap: &Snapshot, index: usize) -> Model {
    let mut model = Model::new(1.0, Theme::new(false), snap);
    // The full log, as these tests were written for; the story view the app starts in
    // has its own tests (`events_start_with_the_story`).
    model.events_important = false;
    model.selected_partition = index;
    model
}

/// The panel's statements as plain text, one per line.
fn said(snap: &Snapshot, index: usize) -> Vec<String> {
    let model = model_on(snap, index);
    lines(&model, snap).iter().map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect()).collect()
}

/// The statement labelled `label` (`HW`, `acks=all …`, `broker 2`).
fn statement<'a>(said: &'a [String], label: &str) -> &'a str {
    let prefix = format!(" {label}");
    said.iter()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no statement {label:?} in {said:#?}"))
}

/// The first partition broker 0 leads with `follower` in its ISR.
fn led_by_0_with(snap: &Snapshot, follower: BrokerId) -> usize {
    snap.partitions
        .iter()
        .position(|p| p.leader == Some(0) && p.isr.contains(&follower))
        .expect("broker 0 leads a partition that broker 2 follows")
}

/// Broker 2's fetchers stop (it keeps heartbeating, so it stays unfenced and in the ISR):
/// the HW of every partition it follows waits for it.
#[test]
fn a_lagging_isr_member_holds_the_hw_back() {
    let mut sim = default_sim();
    sim.advance_to(2_000);
    apply(&mut sim, "pause-fetch 2");
    sim.advance_to(5_000);
    let snap = sim.snapshot();
    let i = led_by_0_with(&snap, 2);
    let p = &snap.partitions[i];
    let leader_leo = p.replica_views.iter().find(|r| r.is_leader).unwrap().leo;
    let Some(HwHold { broker: 2, leo: Some(leo) }) = p.hw_held_by else {
        panic!("the sim does not name broker 2 as the HW holder: {:?}", p.hw_held_by)
    };
    assert!(leader_leo > leo && p.hw == leo, "HW {} LEO {leo} leader LEO {leader_leo}", p.hw);
    let said = said(&snap, i);
    let hw = statement(&said, "HW");
    let want = format!(
        "HW: {}, held back by broker 2: its LEO {leo} is {} record(s) behind the leader's LEO {leader_leo}",
        p.hw,
        leader_leo - leo
    );
    assert!(hw.starts_with(&format!(" {want}")), "{hw}\nwant {want}");
    assert!(hw.contains("broker 2's fetching is paused"), "{hw}");
    let all = statement(&said, "acks=all");
    assert!(all.contains(&format!("now waiting for broker 2 ({} behind)", leader_leo - leo)), "{all}");
}

/// With `min.insync.replicas=3` and broker 2 fenced, the ISR of 2 refuses acks=all: the
/// panel says NOT_ENOUGH_REPLICAS, and the real producer's retries got exactly that.
#[test]
fn under_min_isr_acks_all_gets_not_enough_replicas() {
    let mut sim = default_sim();
    apply(&mut sim, "set topic test_repli min.insync.replicas=3");
    sim.advance_to(1_000);
    apply(&mut sim, "crash 2");
    // Fenced at about 10 s; the requests parked before that time out at about 31 s
    // (request.timeout.ms), and their retries meet the refusal.
    sim.advance_to(45_000);
    let snap = sim.snapshot();
    let i = led_by_0_with(&snap, 1);
    let p = &snap.partitions[i];
    assert_eq!(p.isr.len(), 2, "broker 2 is fenced out: {:?}", p.isr);
    let said = said(&snap, i);
    let all = statement(&said, "acks=all");
    let want = format!(
        "NOT_ENOUGH_REPLICAS: ISR [{}] has 2 member(s), fewer than min.insync.replicas=3, so nothing is appended",
        join_ids(&p.isr)
    );
    assert!(all.contains(&want), "{all}\nwant {want}");
    assert!(all.starts_with(" acks=all ◂ producer: "), "the producer's own setting is marked: {all}");
    assert!(statement(&said, "acks=1").starts_with(" acks=1: acked once broker 0 appends it"));
    assert!(
        snap.producers[0].errors.get("NOT_ENOUGH_REPLICAS").is_some_and(|&n| n > 0),
        "the real producer was refused: {:?}",
        snap.producers[0].errors
    );
}

/// A follower that stopped fetching leaves the ISR up to 1.5 × replica.lag.time.max.ms
/// after its last catch-up: the panel's countdown says so and gives the reason, and the
/// leader removes it when the countdown runs out.
#[test]
fn a_stalled_followers_countdown_explains_the_half_interval_check() {
    let mut sim = default_sim();
    sim.advance_to(2_000);
    apply(&mut sim, "pause-fetch 2");
    sim.advance_to(7_000);
    let snap = sim.snapshot();
    let i = led_by_0_with(&snap, 2);
    let r = snap.partitions[i].replica_views.iter().find(|r| r.broker == 2).unwrap();
    let (left, ago): (Ms, Ms) = (r.isr_expiry_in.unwrap(), r.caught_up_ago.unwrap());
    assert!((30_000..=45_000).contains(&(left + ago)), "removal {left} ms after {ago} ms of silence");
    let said = said(&snap, i);
    let timer = statement(&said, "broker 2");
    let want = format!(
        "broker 2: leaves the ISR in {}: last caught up {} ago. replica.lag.time.max.ms=30000, but the \
         leader checks only every 15000 ms (half of it), so removal comes 30s–45s after the last catch-up",
        text::countdown(left),
        text::duration(ago)
    );
    assert!(timer.starts_with(&format!(" {want}")), "{timer}\nwant {want}");
    assert!(timer.ends_with("then the controller must accept the AlterPartition"), "{timer}");
    // The countdown is the sim's: one second after it ends, broker 2 is out of that ISR.
    sim.advance_to(7_000 + left + 1_000);
    let after = sim.snapshot();
    assert!(!after.partitions[i].isr.contains(&2), "still in the ISR: {:?}", after.partitions[i].isr);
}

/// Broker 2 crashed and was fenced; unclean election is off. The panel lists who could
/// lead if broker 0 were lost: broker 1 (in the ISR), not broker 2 (fenced); and when
/// broker 0 then crashes, the controller elects broker 1.
#[test]
fn the_election_list_names_the_fenced_broker_and_the_winner() {
    let mut sim = default_sim();
    sim.advance_to(1_000);
    apply(&mut sim, "crash 2");
    sim.advance_to(16_000);
    let snap = sim.snapshot();
    let i = snap
        .partitions
        .iter()
        .position(|p| p.leader == Some(0) && p.replicas.contains(&2) && p.isr == [0, 1])
        .expect("a partition led by 0 with ISR [0,1]");
    let said = said(&snap, i);
    let election = statement(&said, "election");
    assert!(
        election.contains(
            "if broker 0 were lost now, broker 1 would lead: the first live ISR member in replica order \
             (unclean.leader.election.enable=false)"
        ),
        "{election}"
    );
    assert_eq!(statement(&said, "  0:"), "   0: leads now");
    assert_eq!(statement(&said, "  1 ✔ next"), "   1 ✔ next: could win: in the ISR and unfenced");
    assert_eq!(statement(&said, "  2 ✗"), "   2 ✗: fenced (crashed): a fenced broker may not lead");
    apply(&mut sim, "crash 0");
    sim.advance_to(30_000);
    assert_eq!(sim.snapshot().partitions[i].leader, Some(1), "the controller elected as the panel said");
}

/// A partition goes offline (its only ISR member crashed while broker 2 was out of the ISR),
/// then unclean election is turned on: the panel says broker 2 would win at the KRaft
/// controller's unclean check and when that is, and the controller does elect it then, not
/// before (R6.5, `QuorumController.maybeScheduleNextElectUncleanLeaders`).
#[test]
fn an_offline_partition_says_when_the_unclean_check_elects() {
    let mut sim = default_sim();
    sim.advance_to(1_000);
    apply(&mut sim, "pause-fetch 2");
    sim.advance_to(50_000);
    apply(&mut sim, "crash 1");
    sim.advance_to(62_000);
    apply(&mut sim, "crash 0");
    sim.advance_to(74_000);
    let snap = sim.snapshot();
    let i = snap.partitions.iter().position(|p| p.leader.is_none()).expect("an offline partition");
    apply(&mut sim, "set topic test_repli unclean.leader.election.enable=true");
    sim.advance_to(75_000);
    let snap = sim.snapshot();
    let check = snap.next_unclean_check_at.expect("the controller armed its unclean check");
    assert!(check > snap.now, "the check is ahead: {check} at {}", snap.now);
    let said = said(&snap, i);
    let election = statement(&said, "election");
    let left = text::countdown(check - snap.now);
    assert!(
        election.contains(&format!(
            "at the controller's unclean check in {left} (unclean.leader.election.interval.ms; at once with \
             elect-unclean {}), broker 2 would lead in an UNCLEAN election",
            snap.partitions[i].tp
        )),
        "{election}"
    );
    sim.advance_to(check - 1);
    assert_eq!(sim.snapshot().partitions[i].leader, None, "no election before the check");
    sim.advance_to(check + 1_000);
    assert_eq!(sim.snapshot().partitions[i].leader, Some(2), "elected at the check, as the panel said");
}

/// Without a partition selected there is nothing to say, and nothing panics.
#[test]
fn an_empty_cluster_says_nothing() {
    let snap = Snapshot::default();
    assert!(said(&snap, 0).is_empty());
}

/// The whole screen with the why panel, from the hand-made fixture.
fn screen(w: u16, h: u16, snap: &Snapshot, selected: usize) -> String {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    let mut model = model_on(snap, selected);
    crate::ui::app::update(&mut model, crate::ui::app::Msg::Resize(w, h), snap);
    let mut terminal = Terminal::new(TestBackend::new(w, h)).expect("a test backend");
    terminal.draw(|f| crate::ui::view::view(&model, snap, f)).expect("a frame");
    terminal.backend().to_string()
}

/// 120×40: the panel above the event log, for `test_repli-0` (HW held by broker 1, whose
/// ISR timer runs); the event log keeps its rows, so the election list is cut.
#[test]
fn screen_why_120x40() {
    let snap = crate::ui::fixture::snapshot();
    insta::assert_snapshot!(screen(120, 40, &snap, 0));
}

/// 200×60: the panel beside the event log, for `test_repli-5`, whose leader epoch 2 began at
/// offset 1001 and whose follower 1 truncated a moment ago.
#[test]
fn screen_why_200x60() {
    let mut snap = crate::ui::fixture::snapshot();
    let p = std::sync::Arc::make_mut(&mut snap.partitions[5]);
    for r in p.replica_views.iter_mut().filter(|r| r.broker != 2) {
        r.epoch_cache = vec![(0, 0), (2, 1001)];
    }
    p.truncations = vec![crate::cluster::snapshot::TruncationView {
        replica: 1,
        from: 1365,
        count: 9,
        acknowledged: 3,
        acknowledged_span: Some((1365, 1367)),
        at: crate::ui::fixture::NOW - 2_000,
    }];
    insta::assert_snapshot!(screen(200, 60, &snap, 5));
}

/// Broker 2 crashed 2 s ago and is not fenced yet: the panel says it is down and leaves the
/// ISR when the controller fences it (not a lag countdown, not "caught up lately"); on a
/// partition it leads, it names the broker the controller will elect then. The sim agrees:
/// once the countdown runs out, broker 2 is out of that ISR and the named broker leads.
#[test]
fn a_crashed_unfenced_broker_leaves_the_isr_when_fenced() {
    let mut sim = default_sim();
    sim.advance_to(2_000);
    apply(&mut sim, "crash 2");
    sim.advance_to(4_000);
    let snap = sim.snapshot();
    let fenced_in =
        snap.brokers.iter().find(|b| b.id == 2).and_then(|b| b.fenced_in).expect("not fenced yet");
    let left = text::countdown(fenced_in);
    let follows = led_by_0_with(&snap, 2);
    let said_f = said(&snap, follows);
    let timer = statement(&said_f, "broker 2");
    assert!(
        timer.starts_with(&format!(
            " broker 2: is crashed: still in the ISR, it leaves it when the controller fences it in {left}"
        )),
        "{timer}"
    );
    let leads = snap.partitions.iter().position(|p| p.leader == Some(2)).expect("broker 2 leads one");
    let said_l = said(&snap, leads);
    let election = statement(&said_l, "election");
    let next = snap.partitions[leads].isr.iter().copied().find(|&r| r != 2).expect("another ISR member");
    assert!(
        election.starts_with(&format!(
            " election: broker 2 is crashed; when the controller fences it in {left}, broker {next} will lead"
        )),
        "{election}"
    );
    sim.advance_to(4_000 + fenced_in + 500);
    let after = sim.snapshot();
    assert!(!after.partitions[follows].isr.contains(&2), "{:?}", after.partitions[follows].isr);
    assert_eq!(after.partitions[leads].leader, Some(next), "the controller elected as the panel said");
}

/// The last ISR member is not removed when fenced (`PartitionChangeBuilder.build` with ELR off
/// applies no empty ISR). Broker 2 is fenced first; then broker 0 (the leader) and broker 1
/// crash, 0 first: the panel says broker 1 will be the last ISR member and stay. The sim
/// agrees: broker 0's fencing hands the lead to broker 1 (down, but unfenced yet), and broker
/// 1's own fencing leaves the ISR [1] with no leader.
#[test]
fn a_follower_fenced_last_stays_in_the_isr() {
    let mut sim = default_sim();
    // ELR off: the story of the last ISR member staying (R4.8).
    apply(&mut sim, "set eligible.leader.replicas.version=0");
    sim.advance_to(2_000);
    apply(&mut sim, "crash 2");
    sim.advance_to(14_000);
    apply(&mut sim, "crash 0");
    sim.advance_to(16_500);
    apply(&mut sim, "crash 1");
    sim.advance_to(18_000);
    let snap = sim.snapshot();
    let index =
        snap.partitions.iter().position(|p| p.leader == Some(0) && p.isr == [0, 1]).expect("led by 0");
    let fenced_in =
        snap.brokers.iter().find(|b| b.id == 1).and_then(|b| b.fenced_in).expect("not fenced yet");
    let said_f = said(&snap, index);
    let timer = statement(&said_f, "broker 1");
    let left = text::countdown(fenced_in);
    assert!(
        timer.contains(&format!(
            "when the controller fences it in {left} it is the last ISR member and stays"
        )),
        "{timer}"
    );
    sim.advance_to(18_000 + fenced_in + 500);
    let after = &sim.snapshot().partitions[index];
    assert_eq!((after.isr.as_slice(), after.leader), (&[1][..], None));
}

/// A leader that is its partition's only ISR member and is down: the panel says no replica
/// can lead once it is fenced and that it stays in the ISR; the sim keeps ISR [0], leader none.
#[test]
fn a_sole_isr_leader_stays_in_the_isr_when_fenced() {
    let mut sim = default_sim();
    // ELR off: the story of the last ISR member staying (R4.8).
    apply(&mut sim, "set eligible.leader.replicas.version=0");
    sim.advance_to(2_000);
    apply(&mut sim, "crash 2");
    apply(&mut sim, "crash 1");
    sim.advance_to(14_000);
    apply(&mut sim, "crash 0");
    sim.advance_to(15_000);
    let snap = sim.snapshot();
    let index = snap.partitions.iter().position(|p| p.leader == Some(0) && p.isr == [0]).expect("ISR [0]");
    let said_l = said(&snap, index);
    let election = statement(&said_l, "election");
    assert!(
        election.contains("no replica could lead (unclean.leader.election.enable=false): the partition will go offline, with broker 0 left in its ISR"),
        "{election}"
    );
    let leader = statement(&said_l, "  0");
    assert!(
        leader.contains("it stays in the ISR as its last member, and the partition has no leader"),
        "{leader}"
    );
    assert!(!said_l.iter().any(|l| l.contains("another is elected")), "{said_l:#?}");
    sim.advance_to(30_000);
    let after = &sim.snapshot().partitions[index];
    assert_eq!((after.isr.as_slice(), after.leader), (&[0][..], None));
}
