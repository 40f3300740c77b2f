//! The one command grammar shared by the palette (`:`), scenario `do` lines and recorded
//! sessions.
//!
//! ```text
//! crash B | shutdown B | restart B
//! set KEY=VALUE | set topic T KEY=VALUE | set producer KEY=VALUE
//! produce T N
//! pause-fetch B | resume-fetch B
//! create-topic T P RF
//! ```

use crate::sim::BrokerId;
use std::fmt;

/// A user command applied to the cluster at a sim instant.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Command {
    /// Kill a broker without warning (`crash B`).
    Crash(BrokerId),
    /// Controlled shutdown (`shutdown B`, R6.6).
    Shutdown(BrokerId),
    /// Start a crashed or stopped broker again (`restart B`).
    Restart(BrokerId),
    /// Set a cluster-wide broker property (`set KEY=VALUE`).
    SetBroker {
        /// Property name.
        key: String,
        /// Value as text.
        value: String,
    },
    /// Set a topic override (`set topic T KEY=VALUE`).
    SetTopic {
        /// Topic name.
        topic: String,
        /// Property name.
        key: String,
        /// Value as text.
        value: String,
    },
    /// Set a producer property on every producer (`set producer KEY=VALUE`).
    SetProducer {
        /// Property name.
        key: String,
        /// Value as text.
        value: String,
    },
    /// Hand N records to the producer of topic T now (`produce T N`).
    Produce {
        /// Topic name.
        topic: String,
        /// Number of records.
        count: u64,
    },
    /// Stop a broker's follower fetchers; it keeps heartbeating (`pause-fetch B`).
    PauseFetch(BrokerId),
    /// Resume them (`resume-fetch B`).
    ResumeFetch(BrokerId),
    /// Create a topic (`create-topic T P RF`).
    CreateTopic {
        /// Topic name.
        name: String,
        /// Partition count.
        partitions: u32,
        /// Replication factor.
        replication_factor: u32,
    },
}

/// Most records one `produce` command may hand over (memory and time stay reasonable).
pub const MAX_PRODUCE: u64 = 1_000_000;

/// Why a command line could not be parsed.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("{message}")]
pub struct ParseError {
    /// What is wrong and what would be right.
    pub message: String,
}

/// The grammar in one line per verb, for help texts and error messages.
pub const USAGE: &[&str] = &[
    "crash B",
    "shutdown B",
    "restart B",
    "set KEY=VALUE",
    "set topic T KEY=VALUE",
    "set producer KEY=VALUE",
    "produce T N",
    "pause-fetch B",
    "resume-fetch B",
    "create-topic T P RF",
];

fn err(message: impl Into<String>) -> ParseError {
    ParseError { message: message.into() }
}

fn number<T: std::str::FromStr>(word: Option<&str>, what: &str, usage: &str) -> Result<T, ParseError> {
    let w = word.ok_or_else(|| err(format!("missing {what}; usage: {usage}")))?;
    w.parse().map_err(|_| err(format!("`{w}` is not a valid {what}; usage: {usage}")))
}

fn bounded<T: std::str::FromStr + PartialOrd + std::fmt::Display>(
    word: Option<&str>,
    what: &str,
    usage: &str,
    min: T,
    max: T,
) -> Result<T, ParseError> {
    let n: T = number(word, what, usage)?;
    if n < min || n > max {
        return Err(err(format!("{what} must be from {min} to {max}, got {n}")));
    }
    Ok(n)
}

fn key_value(word: Option<&str>, usage: &str) -> Result<(String, String), ParseError> {
    let w = word.ok_or_else(|| err(format!("missing KEY=VALUE; usage: {usage}")))?;
    match w.split_once('=') {
        Some((k, v)) if !k.is_empty() && !v.is_empty() => Ok((k.to_string(), v.to_string())),
        _ => Err(err(format!("`{w}` is not KEY=VALUE; usage: {usage}"))),
    }
}

impl Command {
    /// Parses one command line. Errors name the problem and the expected shape.
    pub fn parse(line: &str) -> Result<Command, ParseError> {
        let mut words = line.split_whitespace();
        let verb = words.next().ok_or_else(|| err("empty command; try `crash 2` or `set acks=1`"))?;
        let cmd = match verb {
            "crash" => Command::Crash(number(words.next(), "broker id", "crash B")?),
            "shutdown" => Command::Shutdown(number(words.next(), "broker id", "shutdown B")?),
            "restart" => Command::Restart(number(words.next(), "broker id", "restart B")?),
            "pause-fetch" => Command::PauseFetch(number(words.next(), "broker id", "pause-fetch B")?),
            "resume-fetch" => Command::ResumeFetch(number(words.next(), "broker id", "resume-fetch B")?),
            "produce" => {
                let topic = words.next().ok_or_else(|| err("missing topic; usage: produce T N"))?;
                let count = bounded(words.next(), "record count", "produce T N", 1, MAX_PRODUCE)?;
                Command::Produce { topic: topic.to_string(), count }
            }
            "create-topic" => {
                let usage = "create-topic T P RF";
                let name = words.next().ok_or_else(|| err(format!("missing topic name; usage: {usage}")))?;
                let partitions = number(words.next(), "partition count", usage)?;
                let replication_factor = number(words.next(), "replication factor", usage)?;
                Command::CreateTopic { name: name.to_string(), partitions, replication_factor }
            }
            "set" => match words.next() {
                Some("topic") => {
                    let usage = "set topic T KEY=VALUE";
                    let topic = words.next().ok_or_else(|| err(format!("missing topic; usage: {usage}")))?;
                    let (key, value) = key_value(words.next(), usage)?;
                    Command::SetTopic { topic: topic.to_string(), key, value }
                }
                Some("producer") => {
                    let (key, value) = key_value(words.next(), "set producer KEY=VALUE")?;
                    Command::SetProducer { key, value }
                }
                other => {
                    let (key, value) = key_value(other, "set KEY=VALUE")?;
                    Command::SetBroker { key, value }
                }
            },
            other => {
                return Err(err(format!("unknown command `{other}`; commands: {}", USAGE.join(" | "))));
            }
        };
        if let Some(extra) = words.next() {
            return Err(err(format!("unexpected `{extra}` after `{cmd}`")));
        }
        Ok(cmd)
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Crash(b) => write!(f, "crash {b}"),
            Command::Shutdown(b) => write!(f, "shutdown {b}"),
            Command::Restart(b) => write!(f, "restart {b}"),
            Command::SetBroker { key, value } => write!(f, "set {key}={value}"),
            Command::SetTopic { topic, key, value } => write!(f, "set topic {topic} {key}={value}"),
            Command::SetProducer { key, value } => write!(f, "set producer {key}={value}"),
            Command::Produce { topic, count } => write!(f, "produce {topic} {count}"),
            Command::PauseFetch(b) => write!(f, "pause-fetch {b}"),
            Command::ResumeFetch(b) => write!(f, "resume-fetch {b}"),
            Command::CreateTopic { name, partitions, replication_factor } => {
                write!(f, "create-topic {name} {partitions} {replication_factor}")
            }
        }
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
            "produce t 5",
            "pause-fetch 3",
            "resume-fetch 3",
            "create-topic orders 3 2",
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
    }
}
