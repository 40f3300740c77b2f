//! The simulated network's lab properties (`net.*`): isrlab's own, not Kafka's.

use super::{ConfigError, Scope, Value, lab, lookup, scope_error};

/// The network's lab properties (`net.*`), isrlab's own and not Kafka's: one link's, or the
/// defaults every link starts from. Times are kept in µs, the runtime's resolution.
///
/// Defaults model one data centre: a round trip of about 0.5 ms between hosts (so 0.25 ms one
/// way), a little jitter, and 1 Gbit/s links (sources in the README, "Network model").
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct NetConfig {
    /// `net.latency.ms`, in µs: one-way latency.
    pub latency_us: u64,
    /// `net.jitter.ms`, in µs: the most extra delay drawn (uniformly) for each message.
    pub jitter_us: u64,
    /// `net.bandwidth.mbps` (Mbit/s, more than 0).
    pub bandwidth_mbps: f64,
}

impl Default for NetConfig {
    fn default() -> Self {
        Self { latency_us: 250, jitter_us: 20, bandwidth_mbps: 1000.0 }
    }
}

impl NetConfig {
    /// Sets a `net.*` property from text (ms values keep µs precision). Errors: unknown name,
    /// bad value (a bandwidth of 0), or a property that is not a lab one.
    pub fn set(&mut self, name: &str, text: &str) -> Result<(), ConfigError> {
        let p = lookup(name)?;
        if lab::is_handling_property(p.name) {
            return Err(scope_error(
                p,
                "on a link (a broker's processing time: `set KEY=VALUE` or `set broker B KEY=VALUE`)",
            ));
        }
        if p.scope != Scope::Lab {
            return Err(scope_error(p, "on the network"));
        }
        let Value::Decimal(v) = p.parse(text)? else { unreachable!("lab properties are decimal") };
        let micros = (v * 1000.0).round() as u64;
        match p.name {
            "net.latency.ms" => self.latency_us = micros,
            "net.jitter.ms" => self.jitter_us = micros,
            "net.bandwidth.mbps" if v > 0.0 => self.bandwidth_mbps = v,
            "net.bandwidth.mbps" => {
                return Err(ConfigError::InvalidValue {
                    name: p.name,
                    value: text.trim().to_string(),
                    expected: "a bandwidth above 0 Mbit/s (a cut link is `cut A B`)".into(),
                });
            }
            other => unreachable!("registry entry {other} has no network field"),
        }
        Ok(())
    }

    /// Microseconds `bytes` take to go onto the link at its bandwidth (rounded up).
    pub fn transmit_micros(&self, bytes: u64) -> u64 {
        (bytes as f64 * 8.0 / self.bandwidth_mbps).ceil() as u64
    }
}
