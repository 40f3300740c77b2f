//! Did-you-mean: the known names closest to a mistyped one, for every "unknown …" message
//! (properties, commands, Kafka error codes, panes, lessons). One measure serves them all, so
//! a typo is caught alike wherever it is made.

/// How alike two names must be (Jaro–Winkler similarity, 0 to 1) for one to be offered.
pub const THRESHOLD: f64 = 0.8;

/// The candidates whose name is alike `name` (above [`THRESHOLD`]), closest first; equally
/// close ones keep the order they were given in.
pub fn closest<'a, T>(name: &str, candidates: impl IntoIterator<Item = (&'a str, T)>) -> Vec<T> {
    let mut scored: Vec<(f64, T)> = candidates
        .into_iter()
        .map(|(candidate, value)| (strsim::jaro_winkler(name, candidate), value))
        .filter(|(score, _)| *score > THRESHOLD)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored.into_iter().map(|(_, value)| value).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typo_finds_the_name_and_a_stranger_finds_nothing() {
        let verbs = ["crash", "restart", "elect-unclean", "elect-preferred"];
        let names = || verbs.iter().map(|v| (*v, *v));
        assert_eq!(closest("elect-uncleen", names()).first(), Some(&"elect-unclean"));
        assert_eq!(closest("crsh", names()).first(), Some(&"crash"));
        assert!(closest("zzzz", names()).is_empty());
    }
}
