//! The compliant model's rows read for its report section and figures: the rows of a case, its
//! ε ladders, and the fitted and compared quantities both draw from.

use super::jump::FrozenLanding;
use super::report_kit::CaseRows;
use super::spec::{CompliantSetting, Setting};
use crate::analysis::fit::LinearFit;
use crate::experiment::table::Row;
use serde::Serialize;

/// The order of the sup error in ε is fitted over ε ≤ this.
pub(crate) const FIT_MAX_EPSILON: f64 = 0.01;

/// The ε at which the κ-dependence is quoted.
pub(crate) const KAPPA_CHECK_EPSILON: f64 = 1e-3;

/// The successful compliant rows of a case.
pub fn compliant<'a>(c: &CaseRows<'a>) -> Vec<(CompliantSetting, &'a Row)> {
    c.rows
        .iter()
        .filter(|(_, r)| r.text("status") == "ok")
        .filter_map(|(p, r)| match p.case.setting {
            Setting::Compliant(s) => Some((s, *r)),
            Setting::Incremental { .. } => None,
        })
        .collect()
}

/// The rows at (κ, ζ), ε descending.
pub(crate) fn ladder<'a>(
    rows: &[(CompliantSetting, &'a Row)],
    kappa: f64,
    zeta: f64,
) -> Vec<(f64, &'a Row)> {
    let mut v: Vec<(f64, &Row)> = rows
        .iter()
        .filter(|(s, _)| s.kappa == kappa && s.zeta == zeta)
        .map(|(s, r)| (s.epsilon, *r))
        .collect();
    v.sort_by(|a, b| b.0.total_cmp(&a.0));
    v
}

pub(crate) fn num(r: &Row, k: &str) -> f64 {
    r.number(k).unwrap_or(f64::NAN)
}

/// What the compliant runs of one case measured.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct CompliantFits {
    pub case: String,
    pub regime: &'static str,
    pub kappa: f64,
    pub zeta: f64,
    /// sup error ∝ ε^order at the smallest κ, ε ≤ [`FIT_MAX_EPSILON`].
    pub epsilon_order: Option<LinearFit>,
    /// (sup error at κ = 1e-4 − at the smallest κ)/(at the smallest κ), at ε = 1e-3.
    pub kappa_relative_change: Option<f64>,
}

/// The frozen-load jump next to the compliant runs of §4.1's supercritical case.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct JumpComparison {
    pub case: String,
    /// t₂ of the closed form: the jump time.
    pub t_jump: f64,
    pub zeta: f64,
    pub frozen: FrozenLanding,
    /// (ε, crossing time, excursion, viscous work) at the smallest κ, ε descending.
    pub runs: Vec<(f64, f64, f64, f64)>,
}
