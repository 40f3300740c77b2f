//! Sim-time values as people write them in scenario files and on the command line:
//! `1500ms`, `30s`, `2m`, `1h`, `1.5s`, `250us`, `0.25ms`, `1.2505s`, bare integers
//! (milliseconds) and `end`. Sim time has microsecond resolution, so a value may be as fine as
//! one microsecond and no finer.

use crate::sim::SimTime;

/// A point in sim time as a scenario writes it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TimeSpec {
    /// A fixed sim time (µs resolution).
    At(SimTime),
    /// The scenario's `end`.
    End,
}

impl TimeSpec {
    /// The sim time, with `end` resolved to `end`.
    pub fn resolve(self, end: SimTime) -> SimTime {
        match self {
            TimeSpec::At(t) => t,
            TimeSpec::End => end,
        }
    }
}

/// The hint every duration error ends with.
pub const DURATION_HINT: &str =
    "write it like `1500ms`, `30s`, `2m`, `250us`, `1.2505s` or a bare number of milliseconds";

/// Microseconds per unit a duration may be written in (`us` also as `µs`).
fn unit_micros(unit: &str) -> Option<u64> {
    Some(match unit {
        "us" | "µs" | "μs" => 1,
        "" | "ms" => 1_000,
        "s" => 1_000_000,
        "m" | "min" => 60_000_000,
        "h" => 3_600_000_000,
        _ => return None,
    })
}

/// Parses a duration into sim time (µs). Units: `us` (or `µs`), `ms`, `s`, `m`, `h`; a
/// bare number means ms. A decimal fraction is allowed down to a whole microsecond
/// (`1.2505s`, `0.25ms`). Errors: a message naming the text and what is wrong with it (not a
/// duration, negative, nanoseconds, finer than a microsecond, too large).
pub fn parse_duration(text: &str) -> Result<SimTime, String> {
    let t = text.trim();
    if t.starts_with('-') {
        return Err(format!("`{text}` is negative; sim time starts at 0"));
    }
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    if unit.trim() == "ns" {
        return Err(format!("`{text}` is in nanoseconds; sim time counts whole microseconds (`us`)"));
    }
    let Some(unit_us) = unit_micros(unit.trim()) else {
        return Err(format!("`{text}` is not a duration; {DURATION_HINT}"));
    };
    match scaled(number, unit_us) {
        Ok(us) => Ok(SimTime::from_micros(us)),
        Err(Bad::Fraction) => Err(format!("`{text}` is finer than a microsecond, sim time's resolution")),
        Err(Bad::TooLarge) => Err(format!("`{text}` is too large a time")),
        Err(Bad::Malformed) => Err(format!("`{text}` is not a duration; {DURATION_HINT}")),
    }
}

/// Parses a sim time as the dashboard shows it, `HH:MM:SS` or `MM:SS` with an optional
/// fraction of a second (`00:00:02.2`, `01:05.250`), or as any duration [`parse_duration`]
/// takes. Errors: a message naming the text and what is wrong with it.
pub fn parse_instant(text: &str) -> Result<SimTime, String> {
    let t = text.trim();
    if !t.contains(':') {
        return parse_duration(t);
    }
    let parts: Vec<&str> = t.split(':').collect();
    let bad =
        || format!("`{text}` is not a time; write it as shown, like `00:01:05.250`, or {DURATION_HINT}");
    let (hours, minutes, seconds) = match parts[..] {
        [h, m, s] => (h, m, s),
        [m, s] => ("0", m, s),
        _ => return Err(bad()),
    };
    let whole = |p: &str| {
        (!p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())).then(|| p.parse::<u64>().ok()).flatten()
    };
    let (Some(h), Some(m)) = (whole(hours), whole(minutes)) else { return Err(bad()) };
    if m >= 60 {
        return Err(bad());
    }
    let secs = match scaled(seconds, 1_000_000) {
        Ok(us) if us < 60_000_000 => us,
        Ok(_) | Err(Bad::Malformed) => return Err(bad()),
        Err(Bad::Fraction) => {
            return Err(format!("`{text}` is finer than a microsecond, sim time's resolution"));
        }
        Err(Bad::TooLarge) => return Err(format!("`{text}` is too large a time")),
    };
    let minutes_us = h.checked_mul(60).and_then(|x| x.checked_add(m)).and_then(|x| x.checked_mul(60_000_000));
    minutes_us
        .and_then(|us| us.checked_add(secs))
        .map(SimTime::from_micros)
        .ok_or_else(|| format!("`{text}` is too large a time"))
}

/// Why a number could not be scaled.
#[derive(Debug, PartialEq)]
enum Bad {
    /// Not a decimal number.
    Malformed,
    /// More microseconds than sim time counts.
    TooLarge,
    /// Well-formed, but not a whole number of microseconds.
    Fraction,
}

/// `number` × `unit_us`, exactly (trailing zeros of a fraction do not count).
fn scaled(number: &str, unit_us: u64) -> Result<u64, Bad> {
    let (int, frac) = number.split_once('.').unwrap_or((number, ""));
    if int.is_empty() || frac.contains('.') || (number.contains('.') && frac.is_empty()) {
        return Err(Bad::Malformed);
    }
    let whole = int.parse::<u64>().map_err(|_| Bad::TooLarge)?.checked_mul(unit_us).ok_or(Bad::TooLarge)?;
    let frac = frac.trim_end_matches('0');
    if frac.is_empty() {
        return Ok(whole);
    }
    // unit_us ≤ 3.6e9 < 10^10: a fraction of more than 10 significant digits cannot be whole µs.
    if frac.len() > 10 {
        return Err(Bad::Fraction);
    }
    let denominator = 10u128.pow(frac.len() as u32);
    let numerator = u128::from(frac.parse::<u64>().map_err(|_| Bad::Malformed)?) * u128::from(unit_us);
    if numerator % denominator != 0 {
        return Err(Bad::Fraction);
    }
    let part = u64::try_from(numerator / denominator).map_err(|_| Bad::TooLarge)?;
    whole.checked_add(part).ok_or(Bad::TooLarge)
}

/// Parses a time that may also be `end`. Errors: as [`parse_duration`].
pub fn parse_time(text: &str) -> Result<TimeSpec, String> {
    if text.trim() == "end" { Ok(TimeSpec::End) } else { parse_duration(text).map(TimeSpec::At) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(text: &str) -> Result<u64, String> {
        parse_duration(text).map(SimTime::as_micros)
    }

    #[test]
    fn units_and_bare_numbers() {
        assert_eq!(us("1500ms"), Ok(1_500_000));
        assert_eq!(us("30s"), Ok(30_000_000));
        assert_eq!(us("2m"), Ok(120_000_000));
        assert_eq!(us("1h"), Ok(3_600_000_000));
        assert_eq!(us("250"), Ok(250_000));
        assert_eq!(us(" 9s "), Ok(9_000_000));
        assert_eq!(us("0s"), Ok(0));
        assert_eq!(us("250us"), Ok(250));
        assert_eq!(us("250µs"), Ok(250));
        assert_eq!(us("250μs"), Ok(250));
    }

    #[test]
    fn fractions_down_to_a_microsecond() {
        assert_eq!(us("1.5s"), Ok(1_500_000));
        assert_eq!(us("0.25m"), Ok(15_000_000));
        assert_eq!(us("1.2505s"), Ok(1_250_500));
        assert_eq!(us("0.25ms"), Ok(250));
        assert_eq!(us("1.000001s"), Ok(1_000_001));
        assert_eq!(us("1.500000000000000000000s"), Ok(1_500_000), "trailing zeros are exact");
        assert_eq!(
            us("0.000000000001h"),
            Err("`0.000000000001h` is finer than a microsecond, sim time's resolution".into())
        );
        assert_eq!(
            us("1.0000005s"),
            Err("`1.0000005s` is finer than a microsecond, sim time's resolution".into())
        );
        assert_eq!(us("1.5us"), Err("`1.5us` is finer than a microsecond, sim time's resolution".into()));
    }

    #[test]
    fn bad_durations_are_explained() {
        for bad in ["", "s", "30x", "1.s", ".5s", "1..5s", "3 0s", "30S", "1e3ms"] {
            let err = parse_duration(bad).unwrap_err();
            assert!(err.contains("is not a duration") && err.contains("250us"), "{bad}: {err}");
        }
        assert_eq!(us("-1s"), Err("`-1s` is negative; sim time starts at 0".into()));
        assert_eq!(us("-0.5ms"), Err("`-0.5ms` is negative; sim time starts at 0".into()));
        assert_eq!(
            us("500ns"),
            Err("`500ns` is in nanoseconds; sim time counts whole microseconds (`us`)".into())
        );
        for big in ["99999999999999999999ms", "18446744073709551615ms", "9999999999999h"] {
            assert_eq!(us(big), Err(format!("`{big}` is too large a time")));
        }
    }

    #[test]
    fn end_is_a_time_but_not_a_duration() {
        assert_eq!(parse_time("end"), Ok(TimeSpec::End));
        assert_eq!(parse_time("10s"), Ok(TimeSpec::At(SimTime::from_ms(10_000))));
        assert!(parse_duration("end").is_err());
        assert_eq!(TimeSpec::End.resolve(SimTime::from_ms(42)), SimTime::from_ms(42));
    }

    #[test]
    fn instants_are_read_as_the_dashboard_writes_them() {
        assert_eq!(parse_instant("00:00:02.2"), Ok(SimTime::from_micros(2_200_000)));
        assert_eq!(parse_instant("00:01:05.250"), Ok(SimTime::from_micros(65_250_000)));
        assert_eq!(parse_instant("01:05"), Ok(SimTime::from_micros(65_000_000)));
        assert_eq!(parse_instant("1:00:00"), Ok(SimTime::from_micros(3_600_000_000)));
        assert_eq!(parse_instant("2.5s"), Ok(SimTime::from_micros(2_500_000)));
        for bad in ["00:61:00", "00:00:60", "a:b", "1:2:3:4", "::", "00:00:-1"] {
            assert!(parse_instant(bad).is_err(), "{bad} accepted");
        }
        assert!(parse_instant("00:00:00.0000001").unwrap_err().contains("microsecond"));
    }
}
