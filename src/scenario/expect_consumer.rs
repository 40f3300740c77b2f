//! The consumer part of an `[[expect]]`: `consumer = I` (default 0) with `position`
//! (a number or comparison for its only partition, or a table `{ "t-0" = 10 }`), `lag` (the
//! leader HW minus its positions, summed) and `seen_erased` (records it read that were erased
//! afterwards).

use super::expect::{Check, ConsumerNumber};
use super::expect_file::{Names, RawExpect, comparison_of};
use super::format::{Res, err};
use crate::sim::{SimTime, TopicPartition};
use toml::{Spanned, Value};

/// The consumer checks of `e`. Errors: `consumer` with nothing to check, an unknown consumer,
/// a bad partition name or value.
pub(super) fn consumer_checks(e: &RawExpect, names: &Names<'_>, at: SimTime) -> Res<Vec<Check>> {
    let first = [&e.position, &e.lag, &e.seen_erased].into_iter().flatten().next().map(Spanned::span);
    let Some(first) = first else {
        return match &e.consumer {
            Some(c) => err(
                c.span(),
                "`consumer` selects whose `position`, `lag` or `seen_erased` to check; add one of them",
            ),
            None => Ok(Vec::new()),
        };
    };
    let consumer = e.consumer.as_ref().map_or(0, |c| *c.get_ref());
    if consumer as usize >= names.consumers {
        let span = e.consumer.as_ref().map_or(first, Spanned::span);
        let n = names.consumers;
        return err(
            span,
            format!(
                "there is no consumer {consumer}: the file defines {n} [[consumer]] table(s), numbered from 0"
            ),
        );
    }
    let mut checks = Vec::new();
    if let Some(v) = &e.position {
        checks.extend(position_checks(consumer, v, names, at)?);
    }
    for (v, number) in [(&e.lag, ConsumerNumber::Lag), (&e.seen_erased, ConsumerNumber::SeenErased)] {
        if let Some(v) = v {
            checks.push(Check::Consumer(consumer, number, comparison_of(v)?));
        }
    }
    Ok(checks)
}

/// `position = N` (its only partition) or `position = { "TOPIC-N" = N, … }`.
fn position_checks(consumer: u32, v: &Spanned<Value>, names: &Names<'_>, at: SimTime) -> Res<Vec<Check>> {
    let Value::Table(table) = v.get_ref() else {
        return Ok(vec![Check::ConsumerPosition(consumer, None, comparison_of(v)?)]);
    };
    let known = names.over_time.at(at);
    let mut checks = Vec::new();
    for (name, want) in table {
        let parsed = name.rsplit_once('-').and_then(|(t, n)| Some((t, n.parse::<u32>().ok()?)));
        let Some((topic, n)) = parsed.filter(|(t, n)| known.topic(t).is_ok_and(|count| *n < count)) else {
            return err(v.span(), format!("`{name}` is not an existing partition such as `t-0`"));
        };
        let want = comparison_of(&Spanned::new(v.span(), want.clone()))?;
        checks.push(Check::ConsumerPosition(consumer, Some(TopicPartition::new(topic, n)), want));
    }
    Ok(checks)
}
