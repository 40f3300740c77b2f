//! Reading a command's words: each reader names what is missing or wrong and the usage line
//! of the form being parsed.

use super::ParseError;
use crate::sim::BrokerId;
use crate::sim::protocol::NodeId;

/// The words after a command's verb, with the usage line of the form being parsed.
pub(crate) struct Words<'a> {
    rest: std::str::SplitWhitespace<'a>,
    usage: &'static str,
}

/// A parse error with `message`.
pub(crate) fn parse_error(message: impl Into<String>) -> ParseError {
    ParseError { message: message.into() }
}

/// `T-P` split at its last `-` when what follows is a partition number and a topic name
/// precedes it; `None` otherwise.
pub(crate) fn split_partition(word: &str) -> Option<(String, u32)> {
    let (topic, p) = word.rsplit_once('-')?;
    let digits = !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit());
    (digits && !topic.is_empty()).then(|| p.parse().ok().map(|p| (topic.to_string(), p)))?
}

impl<'a> Words<'a> {
    /// The words of `rest`, explained with `usage` until [`Words::usage`] changes it.
    pub fn new(rest: std::str::SplitWhitespace<'a>, usage: &'static str) -> Self {
        Self { rest, usage }
    }

    /// Names the form being parsed (for the messages of later readers).
    pub fn usage(&mut self, usage: &'static str) {
        self.usage = usage;
    }

    /// The next word, if any.
    pub fn next(&mut self) -> Option<&'a str> {
        self.rest.next()
    }

    /// The next word, if any, without taking it.
    pub fn peek(&self) -> Option<&'a str> {
        self.rest.clone().next()
    }

    /// The next word, which must be there. Errors: `missing WHAT; usage: ...`.
    pub fn word(&mut self, what: &str) -> Result<&'a str, ParseError> {
        let usage = self.usage;
        self.rest.next().ok_or_else(|| parse_error(format!("missing {what}; usage: {usage}")))
    }

    /// The next word as a number. Errors: missing, or not a number of type `T`.
    pub fn number<T: std::str::FromStr>(&mut self, what: &str) -> Result<T, ParseError> {
        let usage = self.usage;
        let w = self.word(what)?;
        w.parse().map_err(|_| parse_error(format!("`{w}` is not a valid {what}; usage: {usage}")))
    }

    /// The next word as a broker id.
    pub fn broker(&mut self) -> Result<BrokerId, ParseError> {
        self.number("broker id")
    }

    /// The next word as a node of a link: a broker id or `controller`.
    pub fn node(&mut self) -> Result<NodeId, ParseError> {
        let usage = self.usage;
        let w = self.word("broker id or `controller`")?;
        if w == "controller" {
            return Ok(NodeId::ActiveController);
        }
        if let Some(c) = w.parse::<i32>().ok().filter(|&c| c >= crate::sim::CONTROLLER_ID) {
            return Ok(NodeId::Controller(c));
        }
        if let Some(c) = w.strip_prefix("consumer-").and_then(|n| n.parse().ok()) {
            return Ok(NodeId::Consumer(c));
        }
        w.parse().map(NodeId::Broker).map_err(|_| {
            parse_error(format!(
                "`{w}` is neither a broker id, `controller` nor `consumer-C`; usage: {usage}"
            ))
        })
    }

    /// The next word as a number from `min` to `max`.
    pub fn bounded<T>(&mut self, what: &str, min: T, max: T) -> Result<T, ParseError>
    where
        T: std::str::FromStr + PartialOrd + std::fmt::Display,
    {
        let n: T = self.number(what)?;
        if n < min || n > max {
            return Err(parse_error(format!("{what} must be from {min} to {max}, got {n}")));
        }
        Ok(n)
    }

    /// `word` (already taken) as `KEY=VALUE`, both sides non-empty.
    pub fn key_value_of(&self, word: Option<&str>) -> Result<(String, String), ParseError> {
        let usage = self.usage;
        let w = word.ok_or_else(|| parse_error(format!("missing KEY=VALUE; usage: {usage}")))?;
        match w.split_once('=') {
            Some((k, v)) if !k.is_empty() && !v.is_empty() => Ok((k.to_string(), v.to_string())),
            _ => Err(parse_error(format!("`{w}` is not KEY=VALUE; usage: {usage}"))),
        }
    }

    /// The next word as a partition, `T-P` (the topic is everything before the last `-`, as
    /// Kafka's `TopicPartition.toString` writes it). Errors: missing, or no `-P` at its end.
    pub fn partition(&mut self) -> Result<(String, u32), ParseError> {
        let usage = self.usage;
        let w = self.word("partition T-P")?;
        split_partition(w).ok_or_else(|| {
            parse_error(format!("`{w}` is not a partition T-P, e.g. orders-0; usage: {usage}"))
        })
    }

    /// The next word as `KEY=VALUE`.
    pub fn key_value(&mut self) -> Result<(String, String), ParseError> {
        let w = self.rest.next();
        self.key_value_of(w)
    }
}
