//! One run of Dance's particle, rigid or compliant, and the tables the figures read
//! (docs/dance.md): the series at two precisions and what its coefficients say, the rigid slide
//! from the series' state at t₀, the compliant particle against the rigid motion. Runs solvers:
//! called from the harness's run stage, never from a report.

use super::compliant::{self, Start};
use super::compliant_report::VELOCITY_CSV;
use super::precision::{BigFloat, SeriesScalar};
use super::report::{COEFFICIENTS_CSV, PARTIAL_SUMS_CSV, TRAJECTORY_CSV, TRUNCATION_CSV};
use super::rigid::{rigid_from_series, SeriesLogs};
use super::series::{FormalSeries, LogCoefficients};
use super::truncation::{
    factorial_growth, odd_part, partial_sum, ratio_radius, GrowthFit, RadiusFit,
};
use super::{Params, Record, SeriesKind, PARTIAL_SUM_DEGREE, REPORTED_TIMES};
use crate::cells;
use crate::error::SimError;
use crate::experiment::system::RunSettings;
use crate::integrate::{SolverStats, Tolerances};
use crate::report::table::Table;

/// The series is computed with this many mantissa bits (77 digits) …
pub type Working = BigFloat<256>;
/// … and checked against this many (106 digits).
pub type Check = BigFloat<352>;

/// The times at which the optimal truncation is compared with the numerics ([.35, .6]).
pub(crate) fn truncation_times() -> Vec<f64> {
    (0..=25).map(|i| 0.35 + 0.01 * f64::from(i)).collect()
}

/// What the coefficients of v^∥ = v₁ say (docs/dance.md, "Growth", "Radius").
#[derive(Clone, Debug)]
pub(crate) struct SeriesFacts {
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
pub(crate) fn partial_sum_gaps(
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

fn tolerances(settings: &RunSettings) -> Tolerances {
    Tolerances {
        rtol: settings.rtol,
        atol: settings.atol,
    }
}

/// One rigid run: the series' facts, the slide at the solver's tolerances and at rtol/10.
pub(crate) fn run_rigid(
    p: &Params,
    settings: &RunSettings,
) -> Result<(Record, SolverStats), SimError> {
    let facts = SeriesFacts::compute(p.mu, p.series_degree)?;
    let mut times: Vec<f64> = truncation_times();
    times.extend(REPORTED_TIMES.iter().filter(|&&t| t > 0.6));
    times.push(p.t_end);
    times.retain(|&t| t > p.t_series);
    times.dedup();
    let tol = tolerances(settings);
    let finer = Tolerances {
        rtol: tol.rtol / 10.0,
        atol: tol.atol / 10.0,
    };
    let integrator = settings.integrator;
    let (states, stats) =
        rigid_from_series(p.mu, &facts.logs, p.t_series, &times, integrator, tol)?;
    let (refined, _) = rigid_from_series(p.mu, &facts.logs, p.t_series, &times, integrator, finer)?;
    let at = |t: f64| {
        states
            .iter()
            .find(|s| (s.t - t).abs() < 1e-12)
            .copied()
            .ok_or_else(|| SimError::invalid("output times", t, "not reached"))
    };
    let rtol_change = states
        .iter()
        .zip(&refined)
        .map(|(a, b)| (a.v[0] - b.v[0]).abs().max((a.v[1] - b.v[1]).abs()))
        .fold(0.0, f64::max);
    let end = at(p.t_end)?;
    let half = at(0.5)?;
    // The optimal truncation against the numerics on [.35, .6] (only a divergent series has a
    // smallest term before its last coefficient).
    let ratios: Vec<f64> = states
        .iter()
        .filter(|s| s.t <= 0.6 + 1e-12)
        .filter_map(|s| {
            let o = facts.logs.state_at(s.t).parallel_velocity;
            (!o.at_last_coefficient).then(|| (o.value - s.v[0]).abs() / o.smallest_term)
        })
        .collect();
    let (kind, growth, radius) = match (facts.growth, facts.radius) {
        (Some(g), _) => (SeriesKind::Divergent, Some(g), None),
        (None, Some(r)) => (SeriesKind::Convergent, None, Some(r)),
        (None, None) => (SeriesKind::Undetermined, None, None),
    };
    let record = Record {
        mode_sequence: "slide".to_string(),
        u_end: end.u,
        v_end: end.v,
        v_at_half: Some(half.v),
        v_at_1: Some(at(1.0)?.v),
        v_at_2: Some(at(2.0)?.v),
        v_rtol_change: Some(rtol_change),
        // One decimal: the digits are a count, not a measurement to carry.
        series_digits: Some((facts.agreeing_digits * 10.0).round() / 10.0),
        series_kind: Some(kind),
        growth_a: growth.map(|g| g.a),
        growth_beta: growth.map(|g| g.beta),
        growth_ln_k: growth.map(|g| g.ln_k),
        growth_a_spread: growth.map(|g| g.a_spread),
        growth_beta_spread: growth.map(|g| g.beta_spread),
        radius_t: radius.map(|r| r.radius.sqrt()),
        radius_t_spread: radius.map(|r| r.radius_spread / (2.0 * r.radius.sqrt())),
        start_smallest_term: Some(facts.logs.state_at(p.t_series).smallest_term),
        truncation_ratio_min: ratios.iter().copied().reduce(f64::min),
        truncation_ratio_max: ratios.iter().copied().reduce(f64::max),
        partial_sum_gap_half: partial_sum_gaps(&facts.logs, 0.5, half.v[0], PARTIAL_SUM_DEGREE)
            .last()
            .map(|&(_, g)| g),
        ..Record::default()
    };
    Ok((record, stats))
}

/// The series that gives the rigid motion below t₀ in a compliant comparison.
fn comparison_logs(p: &Params) -> Result<SeriesLogs, SimError> {
    let series = FormalSeries::<Working>::new(p.mu, COMPARISON_DEGREE.min(p.series_degree))?;
    Ok(SeriesLogs::of(&series))
}

/// One compliant run: the particle at κ from `start` with damping c_d against the rigid motion
/// (series below t₀, rigid numerics above, same integrator and tolerances), sampled at
/// [`compliant::sample_times`].
pub fn run_compliant(
    p: &Params,
    start: Start,
    damping: f64,
    kappa: f64,
    settings: &RunSettings,
) -> Result<(Record, SolverStats), SimError> {
    let (integrator, tol) = (settings.integrator, tolerances(settings));
    let logs = comparison_logs(p)?;
    let times = compliant::sample_times(kappa);
    let rigid = compliant::rigid_motion(p.mu, &logs, p.t_series, &times, integrator, tol)?;
    let run = compliant::run_compliant(
        p.mu, start, damping, kappa, &times, p.t_end, integrator, tol,
    )?;
    if run.samples.len() != times.len() || rigid.len() != times.len() {
        return Err(SimError::invalid(
            "sample times",
            times.len(),
            "every sample must be reached by the compliant and the rigid run",
        ));
    }
    let d = compliant::sup_distances(&run, &rigid);
    let velocity_at = |t: f64| run.samples.iter().find(|s| s.0 == t).map(|s| s.2);
    let record = Record {
        mode_sequence: run.modes.join(" "),
        event_times: run.events.iter().map(|e| e.0).collect(),
        event_kinds: run.events.iter().map(|e| e.1).collect::<Vec<_>>().join(" "),
        u_end: run.end.0,
        v_end: run.end.1,
        v_at_half: velocity_at(REPORTED_TIMES[0]),
        v_at_1: velocity_at(REPORTED_TIMES[1]),
        v_at_2: velocity_at(REPORTED_TIMES[2]),
        d_u_sup: Some(d.position),
        d_u_sup_at: Some(d.position_at),
        d_v_sup: Some(d.velocity),
        d_v_sup_at: Some(d.velocity_at),
        normal_force_deviation: Some(
            run.samples
                .iter()
                .map(|s| (s.3 - 1.0).abs())
                .fold(0.0, f64::max),
        ),
        normal_force_max: Some(run.samples.iter().map(|s| s.3).fold(0.0, f64::max)),
        n_samples: Some(times.len()),
        ..Record::default()
    };
    Ok((record, run.stats))
}

/// The κ of the velocity figure: those of the ladder at 1e-4, 1e-6, 1e-8.
pub(crate) const FIGURE_KAPPAS: [f64; 3] = [1e-4, 1e-6, 1e-8];

/// The tables of the figures, by the run stage ([`crate::experiment::system::System::side_tables`]):
/// coefficients.csv, truncation.csv, partial_sums.csv and trajectory.csv for the μ of every
/// rigid configuration (by `settings`' integrator), and with a ladder compliant_velocity.csv. A
/// table that cannot be made is left out (the report then names it).
pub(crate) fn side_tables(
    p: &Params,
    configurations: &[Params],
    kappa: &[f64],
    settings: &RunSettings,
) -> Vec<(&'static str, String)> {
    let mus: Vec<f64> = configurations
        .iter()
        .filter(|c| c.start.is_none())
        .map(|c| c.mu)
        .collect();
    let mut out: Vec<(&'static str, String)> = series_tables(p, &mus, settings)
        .map(|tables| tables.to_vec())
        .unwrap_or_default();
    if !kappa.is_empty() {
        let integrator = super::compliant_integrator(p, settings.integrator);
        let settings = RunSettings {
            integrator,
            ..*settings
        };
        if let Ok(csv) = compliant_velocity_csv(configurations, kappa, &settings) {
            out.push((VELOCITY_CSV, csv));
        }
    }
    out
}

/// coefficients.csv, truncation.csv, partial_sums.csv and trajectory.csv for every μ.
fn series_tables(
    p: &Params,
    mus: &[f64],
    settings: &RunSettings,
) -> Result<[(&'static str, String); 4], SimError> {
    let mut coefficients = Table::new([
        "mu",
        "n",
        "power",
        "log10_abs",
        "log10_abs_3n_over_nfact",
        "log10_abs_fit_normalised",
        "log10_abs_radius_normalised",
    ]);
    let mut truncation = Table::new([
        "mu",
        "t",
        "optimal_value",
        "smallest_term",
        "smallest_power",
        "rigid_v1",
        "abs_error",
    ]);
    let mut partial = Table::new(["mu", "degree", "abs_gap_at_half"]);
    let mut trajectory = Table::new(["mu", "t", "source", "u1", "u2", "v1", "v2"]);
    for &mu in mus {
        let facts = SeriesFacts::compute(mu, p.series_degree)?;
        let ln10 = std::f64::consts::LN_10;
        for (n, &ln) in facts.odd.ln_abs.iter().enumerate() {
            let nf = n as f64;
            let factorial = statrs::function::gamma::ln_gamma(nf + 1.0);
            let fitted = facts.growth.map(|g| {
                (ln + nf * g.a.ln() - statrs::function::gamma::ln_gamma(nf + g.beta)) / ln10
            });
            // A convergent series' |c_n| |x_s|ⁿ (x = t², |x_s| = R²) varies only as a power of n.
            let radius_normalised = facts.radius.map(|r| (ln + nf * r.radius.ln()) / ln10);
            coefficients.push(cells![
                mu,
                n,
                2 * n + 1,
                ln / ln10,
                (ln + nf * 3f64.ln() - factorial) / ln10,
                fitted,
                radius_normalised
            ]);
        }
        // Rigid numerics on the truncation window, at .5 and on (t₀, 1] for the trajectory.
        let mut times = truncation_times();
        let grid: Vec<f64> = (1..=40).map(|i| f64::from(i) * 0.025).collect();
        times.extend(grid.iter().copied());
        times.retain(|&t| t > p.t_series);
        times.sort_by(f64::total_cmp);
        times.dedup_by(|a, b| (*a - *b).abs() < 1e-12);
        let (states, _) = rigid_from_series(
            mu,
            &facts.logs,
            p.t_series,
            &times,
            settings.integrator,
            tolerances(settings),
        )?;
        for s in &states {
            let o = facts.logs.state_at(s.t).parallel_velocity;
            let in_window = (0.35 - 1e-12..=0.6 + 1e-12).contains(&s.t);
            if in_window && !o.at_last_coefficient {
                truncation.push(cells![
                    mu,
                    s.t,
                    o.value,
                    o.smallest_term,
                    o.smallest_power,
                    s.v[0],
                    (o.value - s.v[0]).abs()
                ]);
            }
            if grid.iter().any(|g| (g - s.t).abs() < 1e-12) {
                trajectory.push(cells![mu, s.t, "rigid", s.u[0], s.u[1], s.v[0], s.v[1]]);
            }
            if (s.t - 0.5).abs() < 1e-12 {
                for (k, gap) in partial_sum_gaps(&facts.logs, 0.5, s.v[0], PARTIAL_SUM_DEGREE) {
                    partial.push(cells![mu, k, gap]);
                }
            }
        }
        for i in 0..=30 {
            // log-spaced series samples from 1e-3 to t₀
            let t = 1e-3 * (p.t_series / 1e-3).powf(f64::from(i) / 30.0);
            let s = facts.logs.state_at(t).state;
            trajectory.push(cells![mu, t, "series", s.u[0], s.u[1], s.v[0], s.v[1]]);
        }
    }
    Ok([
        (COEFFICIENTS_CSV, coefficients.to_csv()),
        (TRUNCATION_CSV, truncation.to_csv()),
        (PARTIAL_SUMS_CSV, partial.to_csv()),
        (TRAJECTORY_CSV, trajectory.to_csv()),
    ])
}

/// compliant_velocity.csv: v^κ and the rigid v at [`compliant::figure_times`] for the compliant
/// configurations that start at rest and the ladder's κ among [`FIGURE_KAPPAS`].
fn compliant_velocity_csv(
    configurations: &[Params],
    ladder: &[f64],
    settings: &RunSettings,
) -> Result<String, SimError> {
    let (integrator, tol) = (settings.integrator, tolerances(settings));
    let kappas: Vec<f64> = FIGURE_KAPPAS
        .into_iter()
        .filter(|k| ladder.iter().any(|l| (l / k - 1.0).abs() < 1e-9))
        .collect();
    let mut out = Table::new([
        "mu", "start", "damping", "kappa", "t", "v1", "v2", "rigid_v1", "rigid_v2",
    ]);
    for p in configurations
        .iter()
        .filter(|c| c.start == Some(Start::Rest))
    {
        let logs = comparison_logs(p)?;
        let damping = p.damping.unwrap_or(0.0);
        for &kappa in &kappas {
            let times = compliant::figure_times(kappa);
            let rigid = compliant::rigid_motion(p.mu, &logs, p.t_series, &times, integrator, tol)?;
            let run = compliant::run_compliant(
                p.mu,
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
                    p.mu, "rest", damping, kappa, s.0, s.2[0], s.2[1], r.v[0], r.v[1]
                ]);
            }
        }
    }
    Ok(out.to_csv())
}
