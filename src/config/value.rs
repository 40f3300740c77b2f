//! A property's parsed value, and the conversions the typed configs store it with.

use super::ThrottledReplicas;
use crate::kafka::Acks;
use std::fmt;

/// A parsed property value.
#[derive(Clone, PartialEq, Debug)]
pub enum Value {
    /// An integer.
    Long(i64),
    /// A boolean.
    Bool(bool),
    /// An acks setting.
    Acks(Acks),
    /// A rate in records per second.
    Rate(f64),
    /// A decimal lab value (ms or Mbit/s).
    Decimal(f64),
    /// A list of throttled replicas.
    Replicas(ThrottledReplicas),
    /// One of a [`super::Kind::Choice`]'s words.
    Choice(&'static str),
    /// One of a [`super::Kind::Class`]'s class names, `None` when unset (empty or `null`).
    Class(Option<&'static str>),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Long(v) => write!(f, "{v}"),
            Value::Bool(v) => write!(f, "{v}"),
            Value::Acks(v) => write!(f, "{v}"),
            Value::Rate(v) | Value::Decimal(v) => write!(f, "{v}"),
            Value::Replicas(v) => write!(f, "{v}"),
            Value::Choice(v) => f.write_str(v),
            Value::Class(v) => f.write_str(v.unwrap_or("null")),
        }
    }
}

pub(crate) fn as_u64(v: Value) -> u64 {
    match v {
        Value::Long(n) => n.max(0) as u64,
        _ => 0,
    }
}

pub(crate) fn as_i64(v: Value) -> i64 {
    match v {
        Value::Long(n) => n,
        _ => 0,
    }
}

pub(crate) fn as_bool(v: Value) -> bool {
    matches!(v, Value::Bool(true))
}

/// A throttled-replica list to store: `None` for the empty list (the default).
pub(crate) fn as_replicas(v: Value) -> Option<ThrottledReplicas> {
    match v {
        Value::Replicas(r) if !r.is_empty() => Some(r),
        _ => None,
    }
}
