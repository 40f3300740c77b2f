//! isrlab's lab properties, set apart from Kafka's: the network's (`net.*`, [`NetConfig`], one
//! value per link) and the brokers' processing times (`broker.*`, [`HandlingConfig`], one value
//! per broker). Neither is a Kafka property: they describe the simulated hardware.

use super::{ConfigError, NetConfig, Scope, Value, lookup, scope_error};

/// How long a broker's threads work on the requests and responses it reads: isrlab's lab
/// properties `broker.request.handle.ms` and `broker.fetch.process.ms`, kept in µs. Kafka has
/// no such properties; they stand for the CPU and page-cache time its threads take.
///
/// Defaults are a lab estimate for one data centre (see the README, "Broker processing time"):
/// 0.5 ms for a small produce or fetch request (Kafka's `RequestMetrics` `TotalTimeMs` without
/// `RemoteTimeMs`: the queue hand-overs `RequestQueueTimeMs`, `ResponseQueueTimeMs`,
/// `ResponseSendTimeMs` and the handler's `LocalTimeMs`), and 1 ms for a follower's fetcher
/// thread to process a response and send its next fetch, so that with the default network a
/// producer hears acks=1 after about 1 ms and acks=all after about 3.5 ms.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct HandlingConfig {
    /// `broker.request.handle.ms`, in µs: a request handler thread's time on one produce or
    /// fetch request, from its arrival to its response (or to parking it in purgatory).
    pub request_handle_us: u64,
    /// `broker.fetch.process.ms`, in µs: a follower's fetcher thread's time on one fetch
    /// response before it sends the next fetch (validating and appending its batches).
    pub fetch_process_us: u64,
}

impl Default for HandlingConfig {
    fn default() -> Self {
        Self { request_handle_us: 500, fetch_process_us: 1_000 }
    }
}

impl HandlingConfig {
    /// No processing time at all: what isrlab had before this model (unit tests of wire timing).
    pub const NONE: HandlingConfig = HandlingConfig { request_handle_us: 0, fetch_process_us: 0 };

    /// Sets a `broker.*` lab property from text (ms, µs precision). Errors: unknown name, bad
    /// value, or a property that is not a broker processing time.
    pub fn set(&mut self, name: &str, text: &str) -> Result<(), ConfigError> {
        let p = lookup(name)?;
        let field = match p.name {
            "broker.request.handle.ms" => &mut self.request_handle_us,
            "broker.fetch.process.ms" => &mut self.fetch_process_us,
            _ => return Err(scope_error(p, "for a broker (only `broker.*` processing times are)")),
        };
        let Value::Decimal(v) = p.parse(text)? else { unreachable!("lab properties are decimal") };
        *field = (v * 1000.0).round() as u64;
        Ok(())
    }
}

/// Whether `name` is a broker processing time (`broker.*` lab property) rather than a
/// network one.
pub fn is_handling_property(name: &str) -> bool {
    name.starts_with("broker.") && lookup(name).is_ok_and(|p| p.scope == Scope::Lab)
}

/// Every lab property a run starts with: the network's defaults for every link and the
/// brokers' processing times.
#[derive(Clone, Copy, PartialEq, Debug, Default)]
pub struct LabConfig {
    /// `net.*`: what every link starts with.
    pub links: NetConfig,
    /// `broker.*`: what every broker starts with.
    pub brokers: HandlingConfig,
}

impl LabConfig {
    /// Sets a lab property, routed by its name (`net.*` to the links, `broker.*` to the
    /// brokers). Errors: as [`NetConfig::set`] and [`HandlingConfig::set`].
    pub fn set(&mut self, name: &str, text: &str) -> Result<(), ConfigError> {
        if is_handling_property(name) { self.brokers.set(name, text) } else { self.links.set(name, text) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn processing_times_keep_microseconds_and_route_by_name() {
        let mut lab = LabConfig::default();
        lab.set("broker.request.handle.ms", "0.35").unwrap();
        lab.set("broker.fetch.process.ms", "2").unwrap();
        lab.set("net.latency.ms", "1").unwrap();
        assert_eq!(lab.brokers, HandlingConfig { request_handle_us: 350, fetch_process_us: 2_000 });
        assert_eq!(lab.links.latency_us, 1_000);
        assert!(lab.set("broker.request.handle.ms", "-1").is_err());
        assert!(lab.set("acks", "1").is_err());
        assert!(HandlingConfig::default().set("net.latency.ms", "1").is_err());
        assert!(NetConfig::default().set("broker.fetch.process.ms", "1").is_err(), "not a link property");
        assert!(is_handling_property("broker.fetch.process.ms"));
        assert!(!is_handling_property("broker.heartbeat.interval.ms"), "a Kafka property");
    }
}
