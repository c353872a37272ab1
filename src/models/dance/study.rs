//! One μ of the starting-to-slide study: the series at two precisions, what its coefficients
//! say, the rigid slide from the series' state at t₀, and the tables the figures read
//! (docs/dance.md). Runs solvers: called from the harness's run stage, never from a report.

use super::precision::{BigFloat, SeriesScalar};
use super::rigid::{integrate_slide, RigidState, SeriesLogs};
use super::series::{FormalSeries, LogCoefficients};
use super::truncation::{
    factorial_growth, odd_part, partial_sum, ratio_radius, GrowthFit, RadiusFit,
};
use crate::error::SimError;
use crate::integrate::{IntegratorKind, SolverStats, Tolerances};

/// The series is computed with this many mantissa bits (77 digits) …
pub type Working = BigFloat<256>;
/// … and checked against this many (106 digits).
pub type Check = BigFloat<352>;

/// The largest smallest-term at t₀ accepted as a starting state: far below the integration
/// tolerances used (rtol ≥ 1e-13 on v = O(t³)).
pub const START_TOLERANCE: f64 = 1e-16;

/// The times at which the optimal truncation is compared with the numerics (issue 18: [.35, .6]).
pub fn truncation_times() -> Vec<f64> {
    (0..=25).map(|i| 0.35 + 0.01 * f64::from(i)).collect()
}

/// What the coefficients of v^∥ = v₁ say (docs/dance.md, "Growth", "Radius").
#[derive(Clone, Debug)]
pub struct SeriesFacts {
    pub logs: SeriesLogs,
    /// −log₁₀ of the largest relative difference between the two precisions, over every
    /// coefficient of v₁ and v₂.
    pub agreeing_digits: f64,
    /// The odd coefficients of v₁ as a sequence in n (power 2n + 1).
    pub odd: LogCoefficients,
    /// Whichever describes the coefficients: factorial growth (divergent) …
    pub growth: Option<GrowthFit>,
    /// … or a finite radius in t² (convergent).
    pub radius: Option<RadiusFit>,
}

impl SeriesFacts {
    pub fn compute(mu: f64, degree: usize) -> Result<Self, SimError> {
        let working = FormalSeries::<Working>::new(mu, degree)?;
        let check = FormalSeries::<Check>::new(mu, degree)?;
        let mut worst: f64 = 0.0;
        for (a, b) in [
            (&working.parallel_velocity, &check.parallel_velocity),
            (
                &working.perpendicular_velocity,
                &check.perpendicular_velocity,
            ),
        ] {
            for (x, y) in a.iter().zip(b) {
                if !y.is_zero() {
                    worst = worst.max(x.relative_difference(&y.with_bits::<256>()));
                }
            }
        }
        let logs = SeriesLogs::of(&working);
        let odd = odd_part(&logs.v1);
        let growth = factorial_growth(&odd.ln_abs);
        let radius = ratio_radius(&odd.ln_abs, &odd.negative);
        // Keep the description whose estimate is stable over the fit range (relative spread).
        let growth_spread = growth.map_or(f64::INFINITY, |g| g.a_spread / g.a.abs());
        let radius_spread = radius.map_or(f64::INFINITY, |r| r.radius_spread / r.radius);
        let divergent = growth_spread < radius_spread;
        Ok(SeriesFacts {
            logs,
            agreeing_digits: -worst.max(1e-300).log10(),
            odd,
            growth: growth.filter(|_| divergent),
            radius: radius.filter(|_| !divergent),
        })
    }
}

/// The rigid slide of one μ from the series' state at t₀ to the given times.
pub fn rigid_from_series(
    mu: f64,
    logs: &SeriesLogs,
    t_series: f64,
    times: &[f64],
    integrator: IntegratorKind,
    tolerances: Tolerances,
) -> Result<(Vec<RigidState>, SolverStats), SimError> {
    let start = logs.state_at(t_series);
    if start.smallest_term > START_TOLERANCE {
        return Err(SimError::invalid(
            "params.t_series",
            crate::error::number_text(t_series),
            &format!(
                "the series' smallest term there is {:.1e} > {START_TOLERANCE:e}: the start would \
                 carry that error; choose a smaller t_series (μ = 1: .25 gives 2e-21)",
                start.smallest_term
            ),
        ));
    }
    integrate_slide(mu, start.state, times, integrator, tolerances)
}

/// The partial sums of v₁ at t against a reference value: (degree, |S_degree(t) − reference|)
/// at the odd degrees up to `max_degree`.
pub fn partial_sum_gaps(
    logs: &SeriesLogs,
    t: f64,
    reference: f64,
    max_degree: usize,
) -> Vec<(usize, f64)> {
    (1..=max_degree)
        .step_by(2)
        .map(|k| (k, (partial_sum(&logs.v1, t, k) - reference).abs()))
        .collect()
}
