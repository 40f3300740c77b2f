//! The mistakes a setting can make, each with what would have been accepted.

/// A configuration mistake, with what was expected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// No property has that name.
    #[error("unknown property `{name}`{}", suggest(.suggestions))]
    Unknown {
        /// What was given.
        name: String,
        /// Known names close to it.
        suggestions: Vec<&'static str>,
    },
    /// The value does not fit the property.
    #[error("invalid value `{value}` for `{name}`: expected {expected}")]
    InvalidValue {
        /// Property name.
        name: &'static str,
        /// What was given.
        value: String,
        /// What would be accepted.
        expected: String,
    },
    /// Two properties contradict each other; Kafka refuses the combination.
    #[error("{0}")]
    Conflict(String),
    /// The property exists but not at this level.
    #[error("`{name}` is a {actual} property and cannot be set {wanted}")]
    WrongScope {
        /// Property name.
        name: &'static str,
        /// Where it lives.
        actual: &'static str,
        /// Where the user tried to set it.
        wanted: &'static str,
    },
}

fn suggest(s: &[&'static str]) -> String {
    if s.is_empty() {
        String::new()
    } else {
        format!("; did you mean {}?", s.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(" or "))
    }
}
