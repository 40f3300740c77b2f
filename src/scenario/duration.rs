//! Sim-time values as people write them in scenario files and on the command line:
//! `1500ms`, `30s`, `2m`, `1h`, `1.5s`, bare integers (milliseconds) and `end`.

use crate::sim::Ms;

/// A point in sim time as a scenario writes it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TimeSpec {
    /// A fixed sim time in ms.
    At(Ms),
    /// The scenario's `end`.
    End,
}

impl TimeSpec {
    /// The sim time in ms, with `end` resolved to `end` ms.
    pub fn resolve(self, end: Ms) -> Ms {
        match self {
            TimeSpec::At(t) => t,
            TimeSpec::End => end,
        }
    }
}

/// The hint every duration error ends with.
pub const DURATION_HINT: &str = "write it like `1500ms`, `30s`, `2m` or a bare number of milliseconds";

/// Parses a duration into milliseconds. Units: `ms`, `s`, `m`, `h`; a decimal fraction is
/// allowed when the result is a whole number of milliseconds (`1.5s`). A bare number means ms.
/// Errors: a message naming the text and the accepted shapes.
pub fn parse_duration(text: &str) -> Result<Ms, String> {
    let t = text.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let unit_ms = match unit.trim() {
        "" | "ms" => 1,
        "s" => 1000,
        "m" | "min" => 60_000,
        "h" => 3_600_000,
        _ => return Err(format!("`{text}` is not a duration; {DURATION_HINT}")),
    };
    match scaled(number, unit_ms) {
        Ok(ms) => Ok(ms),
        Err(Bad::Fraction) => Err(format!("`{text}` is not a whole number of milliseconds")),
        Err(Bad::Malformed) => Err(format!("`{text}` is not a duration; {DURATION_HINT}")),
    }
}

/// Why a number could not be scaled.
enum Bad {
    /// Not a decimal number, or too big.
    Malformed,
    /// Well-formed, but not a whole number of milliseconds.
    Fraction,
}

/// `number` × `unit_ms`, exactly.
fn scaled(number: &str, unit_ms: u64) -> Result<Ms, Bad> {
    let (int, frac) = number.split_once('.').unwrap_or((number, ""));
    if int.is_empty() || frac.contains('.') || (number.contains('.') && frac.is_empty()) {
        return Err(Bad::Malformed);
    }
    let whole = int.parse::<u64>().ok().and_then(|n| n.checked_mul(unit_ms)).ok_or(Bad::Malformed)?;
    if frac.is_empty() {
        return Ok(whole);
    }
    let denominator = u32::try_from(frac.len()).ok().and_then(|d| 10u64.checked_pow(d));
    let numerator = frac.parse::<u64>().ok().and_then(|n| n.checked_mul(unit_ms));
    let (Some(denominator), Some(numerator)) = (denominator, numerator) else {
        return Err(Bad::Malformed);
    };
    if numerator % denominator != 0 {
        return Err(Bad::Fraction);
    }
    whole.checked_add(numerator / denominator).ok_or(Bad::Malformed)
}

/// Parses a time that may also be `end`. Errors: as [`parse_duration`].
pub fn parse_time(text: &str) -> Result<TimeSpec, String> {
    if text.trim() == "end" { Ok(TimeSpec::End) } else { parse_duration(text).map(TimeSpec::At) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_and_bare_numbers() {
        assert_eq!(parse_duration("1500ms"), Ok(1500));
        assert_eq!(parse_duration("30s"), Ok(30_000));
        assert_eq!(parse_duration("2m"), Ok(120_000));
        assert_eq!(parse_duration("1h"), Ok(3_600_000));
        assert_eq!(parse_duration("250"), Ok(250));
        assert_eq!(parse_duration(" 9s "), Ok(9000));
        assert_eq!(parse_duration("0s"), Ok(0));
    }

    #[test]
    fn fractions_must_give_whole_milliseconds() {
        assert_eq!(parse_duration("1.5s"), Ok(1500));
        assert_eq!(parse_duration("0.25m"), Ok(15_000));
        assert_eq!(parse_duration("1.0005s"), Err("`1.0005s` is not a whole number of milliseconds".into()));
        assert_eq!(parse_duration("1.5ms"), Err("`1.5ms` is not a whole number of milliseconds".into()));
    }

    #[test]
    fn malformed_durations_are_explained() {
        for bad in ["", "s", "30x", "-1s", "1.s", ".5s", "1..5s", "3 0s", "99999999999999999999ms", "30S"] {
            let err = parse_duration(bad).unwrap_err();
            assert!(err.contains("is not a duration"), "{bad}: {err}");
        }
    }

    #[test]
    fn end_is_a_time_but_not_a_duration() {
        assert_eq!(parse_time("end"), Ok(TimeSpec::End));
        assert_eq!(parse_time("10s"), Ok(TimeSpec::At(10_000)));
        assert!(parse_duration("end").is_err());
        assert_eq!(TimeSpec::End.resolve(42), 42);
    }
}
