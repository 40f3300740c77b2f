//! A scenario file's `[[consumer]]` table: `topics = ["T", …]`, an optional `group = "G"`,
//! and consumer properties (`auto.offset.reset`, `fetch.min.bytes`, …).

use super::format::{Res, Table, apply_config, err, in_file_order};
use crate::cluster::spec::{ConsumerSpec, TopicSpec};
use crate::config::ConsumerConfig;
use toml::{Spanned, Value};

/// Reads one `[[consumer]]` table. Errors: no or unknown topics, a group that is not a
/// string, a bad property, or `enable.auto.commit=true` without a group (Kafka's refusal).
pub(super) fn consumer(table: &Spanned<Table>, topics: &[TopicSpec]) -> Res<ConsumerSpec> {
    let entry = |name: &str| table.get_ref().iter().find(|(k, _)| k.get_ref() == name).map(|(_, v)| v);
    let Some(listed) = entry("topics") else {
        return err(table.span(), "a [[consumer]] needs `topics = [\"NAME\", …]`");
    };
    let names: Vec<&str> = topics.iter().map(|t| t.name.as_str()).collect();
    let expected = format!("a list of [[topic]] names ({})", names.join(", "));
    let read: Option<Vec<String>> = match listed.get_ref() {
        Value::Array(items) if !items.is_empty() => {
            items.iter().map(|v| v.as_str().filter(|s| names.contains(s)).map(str::to_string)).collect()
        }
        _ => None,
    };
    let Some(read) = read else { return err(listed.span(), expected) };
    let group = match entry("group").map(|g| (g.get_ref(), g.span())) {
        None => None,
        Some((Value::String(g), _)) if !g.is_empty() => Some(g.clone()),
        Some((_, span)) => return err(span, "`group` is a group id: a non-empty string"),
    };
    let mut config = ConsumerConfig::default();
    let rest = in_file_order(table.get_ref())
        .into_iter()
        .filter(|(k, _)| !["topics", "group"].contains(&k.get_ref().as_str()));
    apply_config(rest, |k, v| config.set(k, v))?;
    if let Err(e) = config.validate(group.as_deref()) {
        return err(table.span(), e.to_string());
    }
    Ok(ConsumerSpec { group, topics: read, config })
}
