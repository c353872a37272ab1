//! The claims ledger's verdicts: a claim of a paper is judged by checks, each a measured number
//! (or text) against a rule stated with the paper's number; the verdict follows from which
//! checks pass. Pure: the numbers come in, a verdict goes out (results/claims.md is written by
//! `report::claims`).

use std::fmt;

/// What one check compares with the measurement.
#[derive(Clone, Debug, PartialEq)]
pub enum Rule {
    /// |measured − paper| ≤ tol·|paper|.
    Relative { paper: f64, tol: f64 },
    /// |measured − paper| ≤ tol.
    Absolute { paper: f64, tol: f64 },
    /// |measured − paper| ≤ the measurement's 95 % half-width (+ `slack`, the tolerance of the
    /// paper's own rounding): an exponent or a limit within its confidence interval.
    WithinInterval { paper: f64, slack: f64 },
    /// |measured − paper| > the 95 % half-width + `slack`: the measurement tells the paper's
    /// excluded value apart (an open end of a stated interval, `0 < n < ½`, against n = ½).
    ExcludesInterval { paper: f64, slack: f64 },
    /// min ≤ measured ≤ max (either side open).
    Range { min: Option<f64>, max: Option<f64> },
    /// The measured text (an outcome, a flag) is this.
    Equals(String),
}

/// One measured quantity: a number with its 95 % half-width if it is a fit, or a text.
#[derive(Clone, Debug, PartialEq)]
pub enum Measured {
    Number {
        value: f64,
        ci95: Option<f64>,
    },
    Text(String),
    /// The result file holds no value there (a fit that was refused, a `null`).
    Missing,
}

/// The verdict on a claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verdict {
    Reproduced,
    Partly,
    Refuted,
    NotComputable,
    Absent,
    /// The claim's experiment has no results there yet (its directory, or a file its checks
    /// read, is missing): judged once it has run.
    NotRun,
}

impl Verdict {
    pub const ALL: [Verdict; 6] = [
        Verdict::Reproduced,
        Verdict::Partly,
        Verdict::Refuted,
        Verdict::NotComputable,
        Verdict::Absent,
        Verdict::NotRun,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Verdict::Reproduced => "reproduced",
            Verdict::Partly => "partly",
            Verdict::Refuted => "refuted",
            Verdict::NotComputable => "not computable",
            Verdict::Absent => "absent",
            Verdict::NotRun => "not run",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Whether `measured` satisfies `rule`; `None` when it cannot say (nothing measured, a text
/// against a number rule or the reverse, a non-finite number, an interval rule on a number
/// without an interval).
pub fn passes(rule: &Rule, measured: &Measured) -> Option<bool> {
    let number = match measured {
        Measured::Number { value, .. } if value.is_finite() => Some(*value),
        _ => None,
    };
    match rule {
        Rule::Relative { paper, tol } => Some((number? - paper).abs() <= tol * paper.abs()),
        Rule::Absolute { paper, tol } => Some((number? - paper).abs() <= *tol),
        Rule::WithinInterval { paper, slack } => {
            let Measured::Number { ci95: Some(ci), .. } = measured else {
                return None;
            };
            Some((number? - paper).abs() <= ci + slack)
        }
        Rule::ExcludesInterval { paper, slack } => {
            let Measured::Number { ci95: Some(ci), .. } = measured else {
                return None;
            };
            Some((number? - paper).abs() > ci + slack)
        }
        Rule::Range { min, max } => {
            let v = number?;
            Some(min.is_none_or(|m| v >= m) && max.is_none_or(|m| v <= m))
        }
        Rule::Equals(text) => match measured {
            Measured::Text(t) => Some(t == text),
            // A flag or a count written as a number compares by its value.
            Measured::Number { value, .. } => Some(text.parse::<f64>().ok()? == *value),
            Measured::Missing => None,
        },
    }
}

/// The verdict from the checks' outcomes: reproduced if all pass, refuted if none does, partly
/// otherwise; not computable if any check cannot be decided (or there is none).
pub fn verdict(outcomes: &[Option<bool>]) -> Verdict {
    if outcomes.is_empty() || outcomes.iter().any(Option::is_none) {
        return Verdict::NotComputable;
    }
    let passed = outcomes.iter().filter(|o| **o == Some(true)).count();
    if passed == outcomes.len() {
        Verdict::Reproduced
    } else if passed == 0 {
        Verdict::Refuted
    } else {
        Verdict::Partly
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn number(value: f64) -> Measured {
        Measured::Number { value, ci95: None }
    }

    #[test]
    fn a_changed_number_changes_the_check() {
        let rule = Rule::Relative {
            paper: 2.0,
            tol: 1e-3,
        };
        assert_eq!(passes(&rule, &number(2.0019)), Some(true));
        assert_eq!(passes(&rule, &number(2.0021)), Some(false));
        let rule = Rule::WithinInterval {
            paper: 0.5,
            slack: 0.0,
        };
        let fit = |value, ci| Measured::Number {
            value,
            ci95: Some(ci),
        };
        assert_eq!(passes(&rule, &fit(0.538, 0.035)), Some(false));
        assert_eq!(passes(&rule, &fit(0.51, 0.012)), Some(true));
        assert_eq!(passes(&rule, &number(0.5)), None, "no interval, no verdict");
        let rule = Rule::ExcludesInterval {
            paper: -0.5,
            slack: 0.0,
        };
        assert_eq!(passes(&rule, &fit(-0.499, 0.002)), Some(false));
        assert_eq!(passes(&rule, &fit(-0.4, 0.002)), Some(true));
        let rule = Rule::Range {
            min: None,
            max: Some(0.0),
        };
        assert_eq!(passes(&rule, &number(0.0)), Some(true));
        assert_eq!(passes(&rule, &number(3009.0)), Some(false));
        assert_eq!(passes(&rule, &number(f64::NAN)), None);
        let rule = Rule::Equals("cycle".into());
        assert_eq!(passes(&rule, &Measured::Text("cycle".into())), Some(true));
        assert_eq!(passes(&rule, &Measured::Text("S+S+".into())), Some(false));
        assert_eq!(passes(&rule, &Measured::Missing), None);
        assert_eq!(passes(&Rule::Equals("true".into()), &number(1.0)), None);
    }

    #[test]
    fn the_verdict_follows_the_checks() {
        assert_eq!(verdict(&[Some(true), Some(true)]), Verdict::Reproduced);
        assert_eq!(verdict(&[Some(true), Some(false)]), Verdict::Partly);
        assert_eq!(verdict(&[Some(false)]), Verdict::Refuted);
        assert_eq!(verdict(&[Some(true), None]), Verdict::NotComputable);
        assert_eq!(verdict(&[]), Verdict::NotComputable);
    }
}
