//! The group part of an `[[expect]]`: `group = "G"` with `state` (Kafka's group state names:
//! `Empty`, `PreparingRebalance`, `CompletingRebalance`, `Stable`), `coordinator` (a broker
//! id) and `members` (a number or comparison), as its coordinator holds the group.

use super::expect::{Check, GroupWant};
use super::expect_file::{RawExpect, broker_id_of, comparison_of};
use super::format::{Res, err};
use crate::sim::BrokerId;
use crate::sim::group::classic::GroupState;
use toml::Spanned;

/// The group checks of `e` for group `group`. Errors: nothing to check, an unknown state name,
/// an unknown broker, a bad count.
pub(super) fn group_checks(e: &RawExpect, group: &Spanned<String>, brokers: &[BrokerId]) -> Res<Vec<Check>> {
    let id = group.get_ref().clone();
    let mut checks = Vec::new();
    if let Some(s) = &e.state {
        let Some(state) = GroupState::from_name(s.get_ref()) else {
            return err(
                s.span(),
                format!(
                    "unknown group state `{}`; expected Empty, PreparingRebalance, CompletingRebalance, Stable or Dead",
                    s.get_ref()
                ),
            );
        };
        checks.push(Check::Group(id.clone(), GroupWant::State(state)));
    }
    if let Some(b) = &e.coordinator {
        checks.push(Check::Group(id.clone(), GroupWant::Coordinator(broker_id_of(b, brokers)?)));
    }
    if let Some(m) = &e.members {
        checks.push(Check::Group(id.clone(), GroupWant::Members(comparison_of(m)?)));
    }
    if checks.is_empty() {
        return err(
            group.span(),
            "`group` selects whose `state`, `coordinator` or `members` to check; add one of them",
        );
    }
    Ok(checks)
}
