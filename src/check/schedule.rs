//! Random fault schedules for `isrlab check`: a seed gives a list of palette commands at
//! sim instants (crashes, controlled shutdowns, restarts, bounces, cuts, one-way cuts,
//! isolation, paused fetchers, frozen processes, slow disks and power loss, over the brokers
//! and the controller), each fault with the command that ends it. The same seed, brokers,
//! duration and kinds always give the same schedule (ChaCha8 seeded from the seed).

use crate::sim::{BrokerId, Ms};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A kind of fault a schedule may hold (`--faults`).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, clap::ValueEnum)]
pub enum FaultKind {
    /// `crash B`, later `restart B`.
    Crash,
    /// `shutdown B` (controlled shutdown, KIP-143's `ControlledShutdown`), later `restart B`.
    Shutdown,
    /// `bounce B`: a controlled restart.
    Bounce,
    /// `cut A B` between two nodes (brokers or the controller), later `heal A B`.
    Cut,
    /// `cut-oneway A B`: A's messages to B are dropped, later `heal A B`.
    CutOneway,
    /// `isolate B`: every link of a broker cut, later `heal-all`.
    Isolate,
    /// `pause-fetch B`: its replica fetchers stop, later `resume-fetch B`.
    PauseFetch,
    /// `freeze N MS`: the process (a broker or the controller) stops for MS (a GC pause).
    Freeze,
    /// `slow-disk B MS`: each fsync takes MS, later `slow-disk B 0`.
    SlowDisk,
    /// `power-loss B`: the host loses its page cache, later `restart B`.
    PowerLoss,
}

impl FaultKind {
    /// Every kind, in the order `--faults` lists them.
    pub const ALL: [FaultKind; 10] = [
        FaultKind::Crash,
        FaultKind::Shutdown,
        FaultKind::Bounce,
        FaultKind::Cut,
        FaultKind::CutOneway,
        FaultKind::Isolate,
        FaultKind::PauseFetch,
        FaultKind::Freeze,
        FaultKind::SlowDisk,
        FaultKind::PowerLoss,
    ];

    /// The kinds `isrlab check` mixes unless `--faults` says otherwise: all but power loss,
    /// which Kafka only survives with `flush.messages=1` (or ELR) and so has rows of its own.
    pub fn default_mix() -> Vec<FaultKind> {
        FaultKind::ALL.into_iter().filter(|k| *k != FaultKind::PowerLoss).collect()
    }

    /// The name `--faults` takes.
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::Crash => "crash",
            FaultKind::Shutdown => "shutdown",
            FaultKind::Bounce => "bounce",
            FaultKind::Cut => "cut",
            FaultKind::CutOneway => "cut-oneway",
            FaultKind::Isolate => "isolate",
            FaultKind::PauseFetch => "pause-fetch",
            FaultKind::Freeze => "freeze",
            FaultKind::SlowDisk => "slow-disk",
            FaultKind::PowerLoss => "power-loss",
        }
    }
}

/// One command of a schedule: the palette line and the sim instant (ms) it is applied at.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Step {
    /// When, in sim ms.
    pub at: Ms,
    /// The palette command, e.g. `crash 1`.
    pub line: String,
}

/// One fault and the command that ends it, if it has one: the unit shrinking removes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// What the fault is.
    pub kind: FaultKind,
    /// The command that starts it.
    pub start: Step,
    /// The command that ends it (a restart, a heal), if any.
    pub end: Option<Step>,
}

impl Fault {
    /// Its commands, the start first.
    pub fn steps(&self) -> impl Iterator<Item = &Step> {
        std::iter::once(&self.start).chain(self.end.as_ref())
    }
}

/// What a schedule draws from.
#[derive(Clone, Debug)]
pub struct Space {
    /// The brokers faults may hit.
    pub brokers: Vec<BrokerId>,
    /// Faults start between 1 s and this instant (ms); their ends may come later, until the
    /// run heals everything.
    pub duration: Ms,
    /// The kinds to mix (never empty).
    pub kinds: Vec<FaultKind>,
    /// At most this many faults per schedule (at least 1 is drawn).
    pub max_faults: usize,
}

/// The faults of `seed`'s schedule, ordered by start.
pub fn generate(space: &Space, seed: u64) -> Vec<Fault> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x15_41ab_c4ec);
    let count = rng.random_range(1..=space.max_faults.max(1));
    let mut faults: Vec<Fault> = (0..count).map(|_| fault(space, &mut rng)).collect();
    faults.sort_by(|a, b| a.start.cmp(&b.start));
    faults
}

/// Every command of `faults`, in time order (a fault's start before its end at one instant).
pub fn steps(faults: &[Fault]) -> Vec<Step> {
    let mut all: Vec<Step> = faults.iter().flat_map(|f| f.steps().cloned()).collect();
    all.sort_by_key(|s| s.at);
    all
}

fn fault(space: &Space, rng: &mut ChaCha8Rng) -> Fault {
    let kind = space.kinds[rng.random_range(0..space.kinds.len())];
    let at = rng.random_range(1_000..space.duration.max(1_001));
    let broker = space.brokers[rng.random_range(0..space.brokers.len())];
    // How long the fault lasts, when its end is in the schedule (else until the heal).
    let lasts: Ms = rng.random_range(500..40_000);
    let ends = rng.random_range(0..4) != 0;
    let step = |line: String| Step { at, line };
    let end = |line: String| ends.then(|| Step { at: at + lasts, line });
    let (start, end) = match kind {
        FaultKind::Crash => (step(format!("crash {broker}")), end(format!("restart {broker}"))),
        FaultKind::Shutdown => (step(format!("shutdown {broker}")), end(format!("restart {broker}"))),
        FaultKind::PowerLoss => (step(format!("power-loss {broker}")), end(format!("restart {broker}"))),
        FaultKind::Bounce => (step(format!("bounce {broker}")), None),
        FaultKind::PauseFetch => {
            (step(format!("pause-fetch {broker}")), end(format!("resume-fetch {broker}")))
        }
        FaultKind::SlowDisk => {
            let ms = rng.random_range(5..2_000);
            (step(format!("slow-disk {broker} {ms}")), end(format!("slow-disk {broker} 0")))
        }
        FaultKind::Isolate => (step(format!("isolate {broker}")), end("heal-all".to_string())),
        FaultKind::Freeze => {
            let node = node(space, rng);
            (step(format!("freeze {node} {lasts}")), None)
        }
        FaultKind::Cut | FaultKind::CutOneway => {
            let (a, b) = (node(space, rng), node(space, rng));
            let verb = if kind == FaultKind::Cut { "cut" } else { "cut-oneway" };
            (step(format!("{verb} {a} {b}")), end(format!("heal {a} {b}")))
        }
    };
    Fault { kind, start, end }
}

/// A broker, or the controller one time in four.
fn node(space: &Space, rng: &mut ChaCha8Rng) -> String {
    if rng.random_range(0..4) == 0 {
        "controller".to_string()
    } else {
        space.brokers[rng.random_range(0..space.brokers.len())].to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn space() -> Space {
        Space { brokers: vec![0, 1, 2], duration: 60_000, kinds: FaultKind::ALL.to_vec(), max_faults: 8 }
    }

    /// A seed always gives the same schedule; other seeds give others; every command parses.
    #[test]
    fn a_seed_gives_one_schedule_of_valid_commands() {
        assert_eq!(generate(&space(), 7), generate(&space(), 7));
        assert!((0..20).any(|s| generate(&space(), s) != generate(&space(), 7 + s)));
        for seed in 0..200 {
            for step in steps(&generate(&space(), seed)) {
                crate::cluster::command::Command::parse(&step.line).unwrap();
                assert!((1_000..100_000).contains(&step.at), "{step:?}");
            }
        }
    }

    /// `--faults` narrows the kinds: a mix of cuts holds nothing else.
    #[test]
    fn only_the_chosen_kinds_are_drawn() {
        let space = Space { kinds: vec![FaultKind::Cut], ..space() };
        let all: Vec<Fault> = (0..100).flat_map(|s| generate(&space, s)).collect();
        assert!(all.iter().all(|f| f.kind == FaultKind::Cut && f.start.line.starts_with("cut ")));
    }
}

/// The fault kinds of `--faults`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaultList(pub Vec<FaultKind>);

/// Parses `--faults`: kind names separated by commas, or `all`. Errors: an unknown name,
/// with the names there are.
pub fn parse_faults(text: &str) -> Result<FaultList, String> {
    if text == "all" {
        return Ok(FaultList(FaultKind::ALL.to_vec()));
    }
    let mut kinds = Vec::new();
    for name in text.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let Some(kind) = FaultKind::ALL.into_iter().find(|k| k.name() == name) else {
            let names: Vec<&str> = FaultKind::ALL.iter().map(|k| k.name()).collect();
            return Err(format!("`{name}` is not a fault kind: give {} or all", names.join(", ")));
        };
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    if kinds.is_empty() {
        return Err("give at least one fault kind".into());
    }
    Ok(FaultList(kinds))
}
