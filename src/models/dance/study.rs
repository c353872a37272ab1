//! One μ of the starting-to-slide study: the series at two precisions, what its coefficients
//! say, the rigid slide from the series' state at t₀, and the tables the figures read
//! (docs/dance.md). Runs solvers: called from the harness's run stage, never from a report.

use super::compliant::{self, Start};
use super::precision::{BigFloat, SeriesScalar};
use super::rigid::SeriesLogs;
use super::series::{FormalSeries, LogCoefficients};
use super::truncation::{
    factorial_growth, odd_part, partial_sum, ratio_radius, GrowthFit, RadiusFit,
};
use super::{pair, Dance, REPORTED_TIMES};
use crate::cells;
use crate::error::SimError;
use crate::experiment::model::{Cells, SweepSpec};
use crate::integrate::{IntegratorKind, SolverStats, Tolerances};
use crate::report::table::Table;

/// The series is computed with this many mantissa bits (77 digits) …
pub type Working = BigFloat<256>;
/// … and checked against this many (106 digits).
pub type Check = BigFloat<352>;

/// The times at which the optimal truncation is compared with the numerics ([.35, .6]).
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

/// The degree of the series that gives the rigid motion below t₀ in a compliant comparison:
/// the optimal truncation at t ≤ t₀ = .25 stops before t^97 (μ = 1; the smallest term sits at
/// k ≈ 3/t²), so 201 gives the same sums as 1001 at a twenty-fifth of the cost.
pub const COMPARISON_DEGREE: usize = 201;

/// One compliant row: the run at κ from `start` with damping c_d against the rigid motion
/// (series below t₀, rigid numerics above, same integrator and tolerances), sampled at
/// [`compliant::sample_times`].
pub fn run_compliant_row(
    spec: &SweepSpec<Dance>,
    mu: f64,
    start: Start,
    damping: f64,
    kappa: f64,
    integrator: IntegratorKind,
) -> Result<(Cells, SolverStats), SimError> {
    let started = std::time::Instant::now();
    let p = &spec.params;
    let tol = Tolerances {
        rtol: spec.solver.rtol,
        atol: spec.solver.atol,
    };
    let series = FormalSeries::<Working>::new(mu, COMPARISON_DEGREE.min(p.series_degree))?;
    let logs = SeriesLogs::of(&series);
    let times = compliant::sample_times(kappa);
    let rigid = compliant::rigid_motion(mu, &logs, p.t_series, &times, integrator, tol)?;
    let run =
        compliant::run_compliant(mu, start, damping, kappa, &times, p.t_end, integrator, tol)?;
    if run.samples.len() != times.len() || rigid.len() != times.len() {
        return Err(SimError::invalid(
            "sample times",
            times.len(),
            "every sample must be reached by the compliant and the rigid run",
        ));
    }
    let d = compliant::sup_distances(&run, &rigid);
    let velocity_at = |t: f64| {
        run.samples
            .iter()
            .find(|s| s.0 == t)
            .map(|s| pair(s.2))
            .unwrap_or_default()
    };
    let deviation = run
        .samples
        .iter()
        .map(|s| (s.3 - 1.0).abs())
        .fold(0.0, f64::max);
    let peak = run.samples.iter().map(|s| s.3).fold(0.0, f64::max);
    let joined = |v: Vec<String>| v.join(" ");
    let cells = vec![
        ("mode_sequence", run.modes.join(" ")),
        (
            "event_times",
            joined(run.events.iter().map(|e| e.0.to_string()).collect()),
        ),
        (
            "event_kinds",
            joined(run.events.iter().map(|e| e.1.to_string()).collect()),
        ),
        ("U_end", pair(run.end.0)),
        ("V_end", pair(run.end.1)),
        ("v_at_half", velocity_at(REPORTED_TIMES[0])),
        ("v_at_1", velocity_at(REPORTED_TIMES[1])),
        ("v_at_2", velocity_at(REPORTED_TIMES[2])),
        ("d_u_sup", d.position.to_string()),
        ("d_u_sup_at", d.position_at.to_string()),
        ("d_v_sup", d.velocity.to_string()),
        ("d_v_sup_at", d.velocity_at.to_string()),
        ("normal_force_deviation", deviation.to_string()),
        ("normal_force_max", peak.to_string()),
        ("n_samples", times.len().to_string()),
    ];
    let mut stats = run.stats;
    stats.wall_time_s = started.elapsed().as_secs_f64();
    Ok((cells, stats))
}

/// The κ of the velocity figure: those of the ladder at 1e-4, 1e-6, 1e-8.
pub const FIGURE_KAPPAS: [f64; 3] = [1e-4, 1e-6, 1e-8];

/// compliant_velocity.csv: v^κ and the rigid v at [`compliant::figure_times`] for every μ, the
/// `rest` cases and the ladder's κ among [`FIGURE_KAPPAS`] (the figure "compliant vs rigid v(t)
/// near 0").
pub fn compliant_velocity_csv(spec: &SweepSpec<Dance>) -> Result<String, SimError> {
    let p = &spec.params;
    let integrator = super::compliant_integrator(spec);
    let tol = Tolerances {
        rtol: spec.solver.rtol,
        atol: spec.solver.atol,
    };
    let ladder: Vec<f64> = spec.sweep.kappa.map(|l| l.values()).unwrap_or_default();
    let kappas: Vec<f64> = FIGURE_KAPPAS
        .into_iter()
        .filter(|k| ladder.iter().any(|l| (l / k - 1.0).abs() < 1e-9))
        .collect();
    let rest: Vec<f64> = super::compliant_cases(spec)
        .filter(|c| c.0 == Start::Rest)
        .map(|c| c.1)
        .collect();
    let mut out = Table::new([
        "mu", "start", "damping", "kappa", "t", "v1", "v2", "rigid_v1", "rigid_v2",
    ]);
    for &mu in &spec.sweep.mu {
        let series = FormalSeries::<Working>::new(mu, COMPARISON_DEGREE.min(p.series_degree))?;
        let logs = SeriesLogs::of(&series);
        for &damping in &rest {
            for &kappa in &kappas {
                let times = compliant::figure_times(kappa);
                let rigid =
                    compliant::rigid_motion(mu, &logs, p.t_series, &times, integrator, tol)?;
                let run = compliant::run_compliant(
                    mu,
                    Start::Rest,
                    damping,
                    kappa,
                    &times,
                    compliant::COMPARE_UNTIL,
                    integrator,
                    tol,
                )?;
                for (s, r) in run.samples.iter().zip(&rigid) {
                    out.push(cells![
                        mu, "rest", damping, kappa, s.0, s.2[0], s.2[1], r.v[0], r.v[1]
                    ]);
                }
            }
        }
    }
    Ok(out.to_csv())
}
