//! Expected numbers in scenario files: exact (`5`) or a comparison (`">0"`, `"<=5"`, `"!=0"`).

use std::fmt;

/// A comparison operator.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Op {
    /// `==` (also a bare number).
    Eq,
    /// `!=`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
}

/// An expected number: exact (`5`, `"==5"`) or a comparison (`">0"`, `"<=5"`, `"!=0"`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Comparison {
    /// The operator.
    pub op: Op,
    /// The number it compares with.
    pub value: i64,
}

impl Comparison {
    /// Exactly `value`.
    pub fn exactly(value: i64) -> Self {
        Self { op: Op::Eq, value }
    }

    /// Parses `">0"`, `"<=5"`, `"==3"`, `"!=0"`, `"<10"`, `">=2"` or a bare `"7"`.
    /// Errors: a message naming the text and the accepted shapes.
    pub fn parse(text: &str) -> Result<Self, String> {
        let t = text.trim();
        let (op, rest) =
            [("==", Op::Eq), ("!=", Op::Ne), ("<=", Op::Le), (">=", Op::Ge), ("<", Op::Lt), (">", Op::Gt)]
                .iter()
                .find_map(|(prefix, op)| t.strip_prefix(prefix).map(|rest| (*op, rest)))
                .unwrap_or((Op::Eq, t));
        rest.trim().parse::<i64>().map(|value| Self { op, value }).map_err(|_| {
            format!(
                "`{text}` is not a number or a comparison; write e.g. 3, \">0\", \"<=5\", \"==3\" or \"!=0\""
            )
        })
    }

    /// Whether `actual` satisfies the comparison.
    pub fn holds(&self, actual: i64) -> bool {
        match self.op {
            Op::Eq => actual == self.value,
            Op::Ne => actual != self.value,
            Op::Lt => actual < self.value,
            Op::Le => actual <= self.value,
            Op::Gt => actual > self.value,
            Op::Ge => actual >= self.value,
        }
    }
}

impl fmt::Display for Comparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let op = match self.op {
            Op::Eq => "",
            Op::Ne => "!=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
        };
        write!(f, "{op}{}", self.value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons_parse_and_hold() {
        let cases =
            [(">0", 1, true), (">0", 0, false), ("<=5", 5, true), ("==3", 3, true), ("!=0", 0, false)];
        for (text, actual, holds) in cases {
            assert_eq!(Comparison::parse(text).unwrap().holds(actual), holds, "{text} vs {actual}");
        }
        assert_eq!(Comparison::parse("<10").unwrap(), Comparison { op: Op::Lt, value: 10 });
        assert_eq!(Comparison::parse(">= 2").unwrap(), Comparison { op: Op::Ge, value: 2 });
        assert_eq!(Comparison::parse("7").unwrap(), Comparison::exactly(7));
        assert_eq!(Comparison::parse("==3").unwrap().to_string(), "3");
        assert_eq!(Comparison::parse("!=0").unwrap().to_string(), "!=0");
        assert!(Comparison::parse("=>2").unwrap_err().contains("not a number or a comparison"));
        assert!(Comparison::parse("lots").is_err());
    }
}
