//! Validation of the κ → 0 extrapolation where the limit is known (`analysis = "extrapolation"`,
//! docs/extrapolation.md §3): over many initial states (μ, θ0, θ̇0, c_d), each quantity's ladder
//! is extrapolated and compared with the closed-form limit. The coverage of the stated intervals
//! (the share of states whose closed form lies inside) and their size are the result; the fitted
//! log coefficient b is compared with the derived one.

use super::atlas::{analyze_states, ran_and_sequences, STANDARD_SEQUENCE};
use super::convergence::{quantity_convergence, QuantityConvergence, RodQuantity};
use super::sweep::RodExperiment;
use crate::experiment::table::Row;
use crate::models::rod::scenario::RodImpact;
use serde::Serialize;

/// One initial state: its ladder's phase sequence and every quantity's extrapolation.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct StateExtrapolation {
    pub impact: RodImpact,
    pub runs: usize,
    pub failed: usize,
    /// The mode sequence if the same at every κ, else the distinct ones joined by " or ".
    pub sequence: String,
    pub quantities: Vec<QuantityConvergence>,
}

impl StateExtrapolation {
    /// Whether every run succeeded with the standard sequence (the ladder is one smooth family).
    pub(crate) fn is_standard(&self) -> bool {
        self.failed == 0 && self.sequence == STANDARD_SEQUENCE
    }
}

/// Coverage and size of the intervals for one quantity over a set of states.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CoverageSummary {
    pub quantity: RodQuantity,
    pub symbol: &'static str,
    /// c_d of the states (`None`: all).
    pub damping: Option<f64>,
    /// Standard states with a closed form.
    pub states: usize,
    pub extrapolated: usize,
    pub refused: usize,
    /// Extrapolations whose interval contains the closed form, and their share.
    pub covered: usize,
    pub coverage: f64,
    /// Extrapolations within 1e-7 relative of the closed form.
    pub within_1e7: usize,
    /// Median and largest |extrapolated − closed form|/|closed form|.
    pub median_error: f64,
    pub max_error: f64,
    /// Median and 90th percentile of the half-width relative to |closed form|.
    pub median_half_width: f64,
    pub p90_half_width: f64,
    /// Median of |extrapolation error| / half-width: how conservative the intervals are (< 1 is
    /// covered).
    pub median_error_to_half_width: f64,
    /// Median of |error at the smallest κ| / |extrapolation error|: what extrapolating gains.
    pub median_gain: f64,
    /// Median |b fitted − b derived| / max(|b derived|, 1e-3 |closed form|).
    pub median_b_mismatch: f64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ExtrapolationAtlas {
    pub experiment: String,
    pub integrator: String,
    pub states: usize,
    /// States whose every run succeeded with the standard sequence (the ones validated).
    pub standard_states: usize,
    pub runs: usize,
    pub failed_runs: usize,
    pub kappas: Vec<f64>,
    /// Per quantity over all damping values, then per (quantity, c_d).
    pub coverage: Vec<CoverageSummary>,
    #[serde(skip)]
    pub per_state: Vec<StateExtrapolation>,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.retain(|x| x.is_finite());
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn percentile(mut v: Vec<f64>, p: f64) -> f64 {
    v.retain(|x| x.is_finite());
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        return f64::NAN;
    }
    v[((v.len() - 1) as f64 * p).round() as usize]
}

/// The coverage summary of `quantity` over the standard states with `damping` (or all).
pub(crate) fn coverage_of(
    states: &[StateExtrapolation],
    quantity: RodQuantity,
    damping: Option<f64>,
) -> CoverageSummary {
    let cs: Vec<&QuantityConvergence> = states
        .iter()
        .filter(|s| s.is_standard() && damping.is_none_or(|c| s.impact.damping == c))
        .filter_map(|s| s.quantities.iter().find(|q| q.quantity == quantity))
        .filter(|q| q.closed_form.is_some())
        .collect();
    let done: Vec<&&QuantityConvergence> =
        cs.iter().filter(|q| q.extrapolation.is_some()).collect();
    let errors: Vec<f64> = done
        .iter()
        .filter_map(|q| q.extrapolation_error().map(f64::abs))
        .collect();
    let covered = done
        .iter()
        .filter(|q| q.covers_closed_form() == Some(true))
        .count();
    CoverageSummary {
        quantity,
        symbol: quantity.symbol(),
        damping,
        states: cs.len(),
        extrapolated: done.len(),
        refused: cs.len() - done.len(),
        covered,
        coverage: covered as f64 / done.len().max(1) as f64,
        within_1e7: errors.iter().filter(|e| **e <= 1e-7).count(),
        median_error: median(errors.clone()),
        max_error: errors.iter().copied().fold(0.0, f64::max),
        median_half_width: median(
            done.iter()
                .filter_map(|q| q.relative_half_width())
                .collect(),
        ),
        p90_half_width: percentile(
            done.iter()
                .filter_map(|q| q.relative_half_width())
                .collect(),
            0.9,
        ),
        median_error_to_half_width: median(
            done.iter()
                .filter_map(|q| Some(q.extrapolation_error()?.abs() / q.relative_half_width()?))
                .collect(),
        ),
        median_gain: median(
            done.iter()
                .filter_map(|q| {
                    Some(q.relative_error_at_smallest_kappa?.abs() / q.extrapolation_error()?.abs())
                })
                .collect(),
        ),
        median_b_mismatch: median(
            done.iter()
                .filter_map(|q| {
                    let (f, p, l) = (
                        q.fitted_log_coefficient()?,
                        q.predicted_log_coefficient?,
                        q.closed_form?,
                    );
                    Some((f - p).abs() / p.abs().max(1e-3 * l.abs()))
                })
                .collect(),
        ),
    }
}

fn analyze_state(impact: RodImpact, rows: &[&Row]) -> StateExtrapolation {
    let (ok, sequences) = ran_and_sequences(rows);
    StateExtrapolation {
        impact,
        runs: rows.len(),
        failed: rows.len() - ok.len(),
        sequence: sequences.join(" or "),
        // One integrator: the values' accuracy is not measured here (0); docs/extrapolation.md
        // §3.3 shows what it costs at rtol 1e-10.
        quantities: RodQuantity::ALL
            .iter()
            .filter_map(|q| quantity_convergence(&ok, *q, &impact, 0.0, 0.0))
            .collect(),
    }
}

/// Analyse an `analysis = "extrapolation"` experiment (the first integrator's runs), its rows
/// read as a stream in point order (`analyze_states`).
pub fn analyze_extrapolation_atlas(
    spec: &RodExperiment,
    rows: impl Iterator<Item = Row>,
) -> ExtrapolationAtlas {
    let states = analyze_states(spec, rows, analyze_state, |s| s);
    let per_state = states.per_state;
    let mut dampings: Vec<f64> = per_state.iter().map(|s| s.impact.damping).collect();
    dampings.sort_by(f64::total_cmp);
    dampings.dedup();
    let mut coverage = Vec::new();
    for q in RodQuantity::ALL {
        coverage.push(coverage_of(&per_state, q, None));
    }
    for c in &dampings {
        for q in RodQuantity::ALL {
            coverage.push(coverage_of(&per_state, q, Some(*c)));
        }
    }
    ExtrapolationAtlas {
        experiment: spec.name.clone(),
        integrator: states.integrator.to_string(),
        states: per_state.len(),
        standard_states: per_state.iter().filter(|s| s.is_standard()).count(),
        runs: states.runs,
        failed_runs: per_state.iter().map(|s| s.failed).sum(),
        kappas: spec.sweep.kappa.values(),
        coverage,
        per_state,
    }
}
