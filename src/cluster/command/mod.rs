//! The one command grammar shared by the palette (`:`), the dashboard keys, scenario `do`
//! lines and recorded sessions, and the one place commands are validated and applied.
//!
//! ```text
//! crash B | shutdown B | restart B
//! set KEY=VALUE | set topic T KEY=VALUE | set producer [P] KEY=VALUE
//! produce T N [key=K] | restart-producer P
//! add-consumer T[,T…] [group=G] [KEY=VALUE…]
//! pause-fetch B | resume-fetch B
//! create-topic T P RF
//! cut A B | cut-oneway A B | heal A B | isolate B | heal-all
//! delay A B MS | loss A B PERCENT | hold A B | release A B
//! set link A B net.KEY=VALUE
//! roll [--no-wait]
//! freeze N [MS] | thaw N
//! bounce B | power-loss B [B…] | slow-disk B MS
//! elect-preferred [T | T-P | --topic T [--partition P]] | elect-unclean T | T-P | --topic T [--partition P]
//! reassign T-P R,R,R [--throttle MB/s] | reassign T-P --cancel
//! add-partitions T N | delete-topic T
//! ```
//!
//! A line becomes a typed [`Command`] once ([`Command::parse`]); it is checked once, by
//! [`Command::validate`], against a [`Catalog`]: the live cluster when the palette, a key or
//! a scenario's timeline applies it, or a scenario file's timeline before the run. So the
//! palette, the command line and a scenario file give the same refusal, in the same words.
//!
//! Each command is one small unit in its own file (its words, its checks, its effect), listed
//! once in the `commands!` table below; a new command adds a file and a line, not a branch to a
//! central `match`.

pub mod add_consumer;
pub mod add_partitions;
pub mod bounce;
mod catalog;
pub mod close_consumer;
pub mod crash;
pub mod create_topic;
pub mod cut;
pub mod degrade;
pub mod delete_topic;
pub mod elect;
pub mod fetch;
pub mod freeze;
pub mod hold;
pub mod isolate;
mod links;
pub mod power;

pub mod produce;
pub mod reassign;
pub mod restart;
pub mod restart_producer;
pub mod roll;
pub mod set;
pub mod shutdown;
pub mod slow_disk;
mod words;

pub(crate) use catalog::Live;
pub use catalog::{
    BrokerState, Catalog, known_broker, known_partition, known_producer, known_topic, no_such_producer,
    not_frozen, running_broker,
};
use words::{Words, parse_error};

use super::node::Node;
use super::world::World;
use crate::sim::broker::Broker;
use crate::sim::error::SimError;
use crate::sim::protocol::NodeId;
use crate::sim::{BrokerId, Outbox, join_ids};
use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

/// Most records one `produce` command may hand over (memory and time stay reasonable).
pub const MAX_PRODUCE: u64 = 1_000_000;

/// Why a command line could not be parsed.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("{message}")]
pub struct ParseError {
    /// What is wrong and what would be right.
    pub message: String,
}

/// One command as the commands reference describes it: the texts of its unit.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct CommandDoc {
    /// The verbs it answers to, e.g. `["cut", "cut-oneway", "heal"]`.
    pub verbs: &'static [&'static str],
    /// One usage line per form.
    pub usage: &'static [&'static str],
    /// What it does, in plain words (Markdown).
    pub about: &'static str,
    /// The Kafka tool, API or behaviour it follows, if any.
    pub kafka: Option<&'static str>,
    /// Example lines, each one valid.
    pub examples: &'static [&'static str],
}

/// The cluster's answer to an accepted command.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Answer {
    /// What the user should know beyond "done", e.g. that a static broker config waits for
    /// each broker's next start.
    pub note: Option<String>,
}

/// What a unit's `apply` did: who acts (whose outbox is dispatched) and the answer's note.
pub(crate) struct Applied {
    /// The node the outbox is sent from.
    pub origin: NodeId,
    /// See [`Answer::note`].
    pub note: Option<String>,
}

impl Applied {
    /// Done, nothing more to say.
    pub fn by(origin: NodeId) -> Self {
        Self { origin, note: None }
    }
}

/// Broker `b`'s node and core. Errors: [`SimError::UnknownBroker`].
pub(crate) fn broker_node(world: &World, b: BrokerId) -> Result<(Rc<Node>, Rc<RefCell<Broker>>), SimError> {
    let node = world.node(NodeId::Broker(b));
    node.zip(world.broker(b)).ok_or_else(|| SimError::UnknownBroker(b, join_ids(&world.broker_ids())))
}

/// One command: how its words parse, what it checks and what it does.
pub(crate) trait Unit: Sized + fmt::Display {
    /// The verbs it answers to (`pause-fetch`, `resume-fetch`).
    const VERBS: &'static [&'static str];
    /// One usage line per form, e.g. `crash B`.
    const USAGE: &'static [&'static str];
    /// What the command does, in plain words, for the commands reference (Markdown: `code`
    /// spans allowed).
    const ABOUT: &'static str;
    /// The Kafka tool, API or behaviour the command follows, e.g. `kafka-topics.sh --create`;
    /// `None` for a fault of isrlab's own world that Kafka has no word for.
    const KAFKA: Option<&'static str>;
    /// Example lines; each parses and reads back as written, and every verb has one.
    const EXAMPLES: &'static [&'static str];
    /// Reads the words after `verb`. Errors: what is missing or malformed, with the usage.
    fn parse(verb: &str, words: &mut Words<'_>) -> Result<Self, ParseError>;
    /// Checks the command against `cluster`; what `cluster` does not know (a broker's state
    /// before a run) is not checked. Errors: the refusal, changing nothing.
    fn validate(&self, cluster: &dyn Catalog) -> Result<(), SimError>;
    /// Carries the command out on the running world (after [`Unit::validate`] passed against
    /// it). Errors: a refusal only the cores can make; nothing changes then.
    fn apply(&self, world: &Rc<World>, out: &mut Outbox) -> Result<Applied, SimError>;
}

/// Declares [`Command`], one variant per unit, and the dispatch to the units.
macro_rules! commands {
    ($($(#[$doc:meta])* $variant:ident($unit:ty),)*) => {
        /// A user command, parsed from the grammar ([`Command::parse`]); `Display` gives the
        /// line back.
        #[derive(Clone, PartialEq, Eq, Debug)]
        pub enum Command {
            $($(#[$doc])* $variant($unit),)*
        }

        $(impl From<$unit> for Command {
            fn from(unit: $unit) -> Command {
                Command::$variant(unit)
            }
        })*

        impl Command {
            /// Every command's reference entry, in grammar order.
            pub fn reference() -> Vec<CommandDoc> {
                vec![$(CommandDoc {
                    verbs: <$unit as Unit>::VERBS,
                    usage: <$unit as Unit>::USAGE,
                    about: <$unit as Unit>::ABOUT,
                    kafka: <$unit as Unit>::KAFKA,
                    examples: <$unit as Unit>::EXAMPLES,
                },)*]
            }

            /// The grammar, one line per form, for help texts and error messages.
            pub fn usage() -> Vec<&'static str> {
                let mut lines = Vec::new();
                $(lines.extend_from_slice(<$unit as Unit>::USAGE);)*
                lines
            }

            fn parse_verb<'a>(verb: &str, rest: std::str::SplitWhitespace<'a>) -> Option<(Result<Command, ParseError>, Words<'a>)> {
                $(if <$unit as Unit>::VERBS.contains(&verb) {
                    let mut words = Words::new(rest, <$unit as Unit>::USAGE[0]);
                    let parsed = <$unit as Unit>::parse(verb, &mut words).map(Command::$variant);
                    return Some((parsed, words));
                })*
                None
            }

            /// Checks the command against `cluster`. Errors: the refusal, in Kafka's words
            /// where Kafka has them; the same for every caller.
            pub fn validate(&self, cluster: &dyn Catalog) -> Result<(), SimError> {
                match self {
                    $(Command::$variant(unit) => unit.validate(cluster),)*
                }
            }

            fn apply_unit(&self, world: &Rc<World>, out: &mut Outbox) -> Result<Applied, SimError> {
                match self {
                    $(Command::$variant(unit) => unit.apply(world, out),)*
                }
            }
        }

        impl fmt::Display for Command {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self {
                    $(Command::$variant(unit) => unit.fmt(f),)*
                }
            }
        }
    };
}

commands! {
    /// Kill a broker without warning (`crash B`).
    Crash(crash::Crash),
    /// Controlled shutdown (`shutdown B`, R6.6).
    Shutdown(shutdown::Shutdown),
    /// Start a crashed or stopped broker again (`restart B`).
    Restart(restart::Restart),
    /// A broker, topic or producer property (`set ...`).
    Set(set::Set),
    /// Hand N records to a topic's producer now, with an optional key (`produce T N [key=K]`).
    Produce(produce::Produce),
    /// Restart a producer's application: a new producer id, what it held is gone
    /// (`restart-producer P`).
    RestartProducer(restart_producer::RestartProducer),
    /// Start a consumer (`add-consumer T[,T…] [group=G] [KEY=VALUE…]`).
    AddConsumer(add_consumer::AddConsumer),
    /// Close a consumer: commit, leave its group (`close-consumer C`).
    CloseConsumer(close_consumer::CloseConsumer),
    /// Pause or resume a broker's follower fetchers (`pause-fetch B`, `resume-fetch B`).
    Fetch(fetch::Fetch),
    /// Create a topic (`create-topic T P RF`).
    CreateTopic(create_topic::CreateTopic),
    /// A rolling restart (`roll [--no-wait]`).
    Roll(roll::Roll),
    /// Cut or heal a link (`cut A B`, `cut-oneway A B`, `heal A B`).
    Cut(cut::Cut),
    /// Isolate a broker, or heal every link (`isolate B`, `heal-all`).
    Isolate(isolate::Isolate),
    /// A slow or lossy link (`delay A B MS`, `loss A B PERCENT`).
    Degrade(degrade::Degrade),
    /// Hold or release one direction of a link (`hold A B`, `release A B`).
    Hold(hold::Hold),
    /// Pause or resume a process (`freeze N [MS]`, `thaw N`).
    Freeze(freeze::Freeze),
    /// Crash and restart a broker at once (`bounce B`).
    Bounce(bounce::Bounce),
    /// Brokers' hosts lose power (`power-loss B [B…]`).
    PowerLoss(power::PowerLoss),
    /// Every fsync on a broker takes longer (`slow-disk B MS`).
    SlowDisk(slow_disk::SlowDisk),
    /// A leader election an operator asks for (`elect-preferred [T | T-P | --topic T]`,
    /// `elect-unclean T | T-P | --topic T [--partition P]`).
    Elect(elect::Elect),
    /// Move a partition's replicas, or cancel the move (`reassign T-P R,R,R [--throttle
    /// MB/s]`, `reassign T-P --cancel`).
    Reassign(reassign::Reassign),
    /// Grow a topic to N partitions (`add-partitions T N`).
    AddPartitions(add_partitions::AddPartitions),
    /// Delete a topic (`delete-topic T`).
    DeleteTopic(delete_topic::DeleteTopic),
}

impl Command {
    /// Parses one command line. Errors name the problem and the expected shape.
    pub fn parse(line: &str) -> Result<Command, ParseError> {
        let mut rest = line.split_whitespace();
        let verb = rest.next().ok_or_else(|| parse_error("empty command; try `crash 2` or `set acks=1`"))?;
        let Some((parsed, mut words)) = Command::parse_verb(verb, rest) else {
            let all = Command::usage().join(" | ");
            let verbs = Command::reference().into_iter().flat_map(|doc| doc.verbs.iter().copied());
            let hint = match crate::suggest::closest(verb, verbs.map(|v| (v, v))).first() {
                Some(best) => format!("did you mean `{best}`? "),
                None => String::new(),
            };
            return Err(parse_error(format!("unknown command `{verb}`; {hint}commands: {all}")));
        };
        let cmd = parsed?;
        if let Some(extra) = words.next() {
            return Err(parse_error(format!("unexpected `{extra}` after `{cmd}`")));
        }
        Ok(cmd)
    }

    /// Validates the command against the live world and carries it out at the current
    /// instant; the applied command joins the trace. Errors: the refusal; nothing changes.
    pub(crate) fn apply(&self, world: &Rc<World>) -> Result<Answer, SimError> {
        self.validate(&Live(world))?;
        let now = world.now_us();
        let mut out = Outbox::default();
        let applied = self.apply_unit(world, &mut out)?;
        world.dispatch(applied.origin, &mut out);
        world.rearm_all();
        world.log.borrow_mut().record_command(now, self.clone());
        Ok(Answer { note: applied.note })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_round_trips_through_display() {
        for line in [
            "crash 2",
            "shutdown 0",
            "restart 1",
            "set replica.lag.time.max.ms=10000",
            "set topic t min.insync.replicas=2",
            "set producer acks=1",
            "set producer 1 acks=1",
            "set producer 0 rate=2.5",
            "produce t 5",
            "restart-producer 1",
            "pause-fetch 3",
            "resume-fetch 3",
            "create-topic orders 3 2",
            "cut 1 controller",
            "cut-oneway controller 2",
            "heal 0 1",
            "isolate 2",
            "heal-all",
            "delay 0 1 30",
            "loss 1 2 5",
            "hold 0 controller",
            "release 0 controller",
            "set link 0 1 net.latency.ms=5",
            "set broker 1 broker.request.handle.ms=5",
            "roll",
            "roll --no-wait",
            "freeze 1",
            "freeze controller 12000",
            "thaw 1",
            "thaw controller",
            "bounce 2",
            "power-loss 1",
            "power-loss 0 1 2",
            "slow-disk 1 20",
            "elect-preferred",
            "elect-preferred t",
            "elect-preferred t-1",
            "elect-preferred --topic logs-2024",
            "elect-preferred --topic logs --partition 2024",
            "elect-unclean my-topic-0",
            "elect-unclean t",
            "elect-unclean --topic logs --partition 2024",
            "reassign t-0 1,2,3",
            "reassign t-0 1,2,3 --throttle 2",
            "reassign t-0 --cancel",
            "add-partitions t 6",
            "delete-topic t",
        ] {
            let cmd = Command::parse(line).unwrap();
            assert_eq!(cmd.to_string(), line);
        }
    }

    #[test]
    fn bad_lines_are_explained() {
        assert!(Command::parse("").unwrap_err().message.contains("empty"));
        assert!(Command::parse("crash").unwrap_err().message.contains("missing broker id"));
        assert!(Command::parse("crash two").unwrap_err().message.contains("not a valid broker id"));
        assert!(Command::parse("explode 2").unwrap_err().message.contains("unknown command"));
        assert!(Command::parse("set acks").unwrap_err().message.contains("KEY=VALUE"));
        assert!(Command::parse("crash 2 3").unwrap_err().message.contains("unexpected"));
        let huge = Command::parse("produce t 99999999999999").unwrap_err().message;
        assert_eq!(huge, "record count must be from 1 to 1000000, got 99999999999999");
        assert!(Command::parse("produce t 0").is_err());
        assert!(Command::parse("cut 1").unwrap_err().message.contains("usage: cut A B"));
        assert!(
            Command::parse("hold 1 ctrl")
                .unwrap_err()
                .message
                .contains("neither a broker id, `controller` nor `consumer-C`")
        );
        assert_eq!(
            Command::parse("loss 1 2 100").unwrap_err().message,
            "loss percent must be from 0 to 99, got 100"
        );
        assert!(
            Command::parse("freeze two")
                .unwrap_err()
                .message
                .contains("neither a broker id, `controller` nor `consumer-C`")
        );
        assert!(Command::parse("freeze 1 0").unwrap_err().message.contains("from 1 to 86400000"));
        assert!(Command::parse("power-loss 1 1").unwrap_err().message.contains("named twice"));
        assert!(Command::parse("slow-disk 1").unwrap_err().message.contains("missing fsync delay"));
        assert!(Command::parse("thaw 1 500").unwrap_err().message.contains("unexpected `500`"));
        assert!(
            Command::parse("elect-unclean").unwrap_err().message.contains("needs a topic or a partition")
        );
        assert!(Command::parse("reassign t-0").unwrap_err().message.contains("missing replica list"));
        assert!(
            Command::parse("reassign t-0 1,2 --throttle").unwrap_err().message.contains("missing throttle")
        );
        assert!(
            Command::parse("add-partitions t x").unwrap_err().message.contains("not a valid partition count")
        );
    }

    /// The reference's examples are real lines: each parses and reads back as written, and
    /// every verb of every command has one.
    #[test]
    fn every_example_parses_and_every_verb_has_one() {
        let reference = Command::reference();
        assert_eq!(reference.iter().map(|d| d.usage.len()).sum::<usize>(), Command::usage().len());
        for doc in &reference {
            for example in doc.examples {
                let cmd = Command::parse(example).unwrap_or_else(|e| panic!("`{example}`: {e}"));
                assert_eq!(cmd.to_string(), *example);
            }
            for verb in doc.verbs {
                let shown = doc.examples.iter().any(|e| e.split_whitespace().next() == Some(*verb));
                assert!(shown, "no example of `{verb}`");
            }
            assert!(!doc.about.is_empty(), "{:?} says nothing", doc.verbs);
        }
    }

    #[test]
    fn usage_lists_every_form_once() {
        let usage = Command::usage();
        assert_eq!(usage[0], "crash B");
        assert!(usage.contains(&"set topic T KEY=VALUE") && usage.contains(&"resume-fetch B"));
        let mut sorted = usage.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), usage.len());
    }
}
