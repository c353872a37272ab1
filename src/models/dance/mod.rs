//! Dance's particle starting to slide (`model = "dance"`; Dance 2024, §3; docs/dance.md): the
//! formal series of the sliding velocity ([`series`], in the number types of [`precision`]), its
//! growth and truncation ([`truncation`]), the rigid slide integrated from the series
//! ([`rigid`]), one μ's study ([`study`]), the particle on a compliant plane against the rigid
//! motion ([`compliant`]) and the report ([`report`]).
//!
//! `method = "rigid"` writes one row per μ and integrator; `method = "compliant"` writes those
//! rigid rows too, then one row per μ, start, damping c_d and κ of `[sweep]`:
//!
//! ```toml
//! [params]
//! method = "compliant"
//! compliant_integrator = "radau5"   # the compliant rows' integrator (default: the first listed)
//! [sweep]
//! mu = [1.0, 0.5]
//! kappa = { min = 1e-8, max = 1e-4, per_decade = 2 }
//! compliant = [
//!     { start = "rest", damping = [1.0, 2.0] },      # δ = δ̇ = 0
//!     { start = "equilibrium", damping = [0.0] },    # δ = κ, δ̇ = 0: F_n = 1
//! ]
//! ```

pub mod compliant;
pub mod compliant_report;
pub mod precision;
pub mod report;
pub mod rigid;
pub mod series;
pub mod study;
pub mod truncation;

use crate::error::SimError;
use crate::experiment::grammar::{LogGrid, MethodKind};
use crate::experiment::model::{Cells, Model, SweepSpec};
use crate::experiment::runner::RunError;
use crate::experiment::table::Row;
use crate::integrate::{IntegratorKind, SolverStats, Tolerances};
use compliant::Start;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Dance's particle as a model of the harness.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dance;

/// `[params]`.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// `rigid` (the series, then the rigid slide) or `compliant` (the rigid rows, then the
    /// compliant runs of `sweep.compliant` over `sweep.kappa`).
    pub method: MethodKind,
    /// End of each run.
    pub t_end: f64,
    /// Highest power of t in the formal series.
    pub series_degree: usize,
    /// t₀: the series below it, the rigid numerics from its optimal truncation there on.
    #[serde(default = "default_t_series")]
    pub t_series: f64,
    /// The integrator of the compliant rows (default: the first of `solver.integrators`). The
    /// slip direction of a slide from rest relaxes at the rate μF_n/|v|, up to 1e9 while
    /// |v| ~ 1e-9 (docs/dance.md): an explicit method needs ~10⁶ steps there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compliant_integrator: Option<IntegratorKind>,
}

fn default_t_series() -> f64 {
    0.25
}

/// `[sweep]`: the friction coefficients (each in (0, 1]), and for `method = "compliant"` the κ
/// ladder and the compliant cases.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Sweep {
    pub mu: Vec<f64>,
    #[serde(default)]
    pub kappa: Option<LogGrid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compliant: Option<Vec<CompliantCase>>,
}

/// One start of the compliant runs with its normal dampings c_d (F_n = δ/κ + c_d δ̇/√κ).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CompliantCase {
    pub start: Start,
    pub damping: Vec<f64>,
}

/// The one report of this model.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum Analysis {
    StartSlide,
}

/// One row's configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Config {
    pub mu: f64,
    pub params: Params,
    /// The compliant start and c_d; `None` for a rigid row.
    pub compliant: Option<(Start, f64)>,
}

/// A rigid run has no compliance: its rows stand on this one-point ladder, and their `kappa`
/// cell (1) is a placeholder that the `method` column marks as such.
const RIGID_LADDER: LogGrid = LogGrid {
    min: 1.0,
    max: 1.0,
    per_decade: 1,
};

/// The velocities reported in the table (v(.5), v(1), v(2)).
pub const REPORTED_TIMES: [f64; 3] = [0.5, 1.0, 2.0];

/// The degree of the partial sum compared with the numerics at t = .5.
pub const PARTIAL_SUM_DEGREE: usize = 41;

impl Model for Dance {
    const NAME: &'static str = "dance";
    const ABOUT: &'static str =
        "Dance's particle starting to slide under the force (1, t) (Dance 2024): the formal \
         series (divergent for μ = 1), its optimal truncation and the rigid slide";
    const SOLVER_KEYS: &'static [&'static str] = &[];
    type Params = Params;
    type Sweep = Sweep;
    type Analysis = Analysis;
    type Config = Config;
    const INPUT_COLUMNS: &'static [&'static str] = &[
        "mu",
        "method",
        "series_degree",
        "t_series",
        "t_end",
        "start",
        "damping",
    ];
    const MEASURE_COLUMNS: &'static [&'static str] = &[
        "mode_sequence",
        "event_times",
        "event_kinds",
        "U_end",
        "V_end",
        "v_at_half",
        "v_at_1",
        "v_at_2",
        "v_rtol_change",
        "series_digits",
        "series_kind",
        "growth_A",
        "growth_beta",
        "growth_ln_K",
        "growth_A_spread",
        "growth_beta_spread",
        "radius_t",
        "radius_t_spread",
        "start_smallest_term",
        "truncation_ratio_min",
        "truncation_ratio_max",
        "partial_sum_gap_half",
        "d_u_sup",
        "d_u_sup_at",
        "d_v_sup",
        "d_v_sup_at",
        "normal_force_deviation",
        "normal_force_max",
        "n_samples",
    ];

    fn kappa(sweep: &Sweep) -> &LogGrid {
        sweep.kappa.as_ref().unwrap_or(&RIGID_LADDER)
    }

    fn validate(spec: &SweepSpec<Self>) -> Result<(), SimError> {
        let p = &spec.params;
        match p.method {
            MethodKind::Rigid => {
                if spec.sweep.kappa.is_some() {
                    return Err(SimError::invalid(
                        "sweep.kappa",
                        "a ladder",
                        "a rigid run has no compliance; remove sweep.kappa (or set params.method \
                         = \"compliant\")",
                    ));
                }
                if spec.sweep.compliant.is_some() {
                    return Err(SimError::invalid(
                        "sweep.compliant",
                        "a list",
                        "compliant cases need params.method = \"compliant\"",
                    ));
                }
                if p.compliant_integrator.is_some() {
                    return Err(SimError::invalid(
                        "params.compliant_integrator",
                        "an integrator",
                        "a rigid experiment has no compliant rows; remove it",
                    ));
                }
            }
            MethodKind::Compliant => validate_compliant(spec)?,
            MethodKind::Incremental => {
                return Err(SimError::invalid(
                    "params.method",
                    "incremental",
                    "Dance's particle is dynamic; use method = \"rigid\" or \"compliant\"",
                ))
            }
        }
        if spec.sweep.mu.is_empty() {
            return Err(SimError::invalid("sweep.mu", "[]", "list at least one μ"));
        }
        for &mu in &spec.sweep.mu {
            series::require_sliding_mu("sweep.mu", mu)?;
        }
        if !(41..=4001).contains(&p.series_degree) {
            return Err(SimError::invalid(
                "params.series_degree",
                p.series_degree,
                "must be between 41 (the growth fit needs 16 odd ratios past n/4) and 4001 (cost \
                 grows as degree²)",
            ));
        }
        crate::error::require_positive("params.t_series", p.t_series)?;
        if !(p.t_end > 2.0 && p.t_end <= 100.0) {
            return Err(SimError::invalid(
                "params.t_end",
                crate::error::number_text(p.t_end),
                "must be in (2, 100]: the table reports v(2)",
            ));
        }
        if p.t_series >= REPORTED_TIMES[0] {
            return Err(SimError::invalid(
                "params.t_series",
                crate::error::number_text(p.t_series),
                "must be below .5, the first reported time",
            ));
        }
        Ok(())
    }

    fn grid_size(spec: &SweepSpec<Self>) -> u128 {
        let cases: usize = compliant_cases(spec).count();
        (spec.sweep.mu.len() * (1 + cases)) as u128
    }

    /// The rigid configurations (one per μ), then the compliant ones (μ, start, c_d).
    fn configurations(spec: &SweepSpec<Self>) -> Vec<Config> {
        let rigid = spec.sweep.mu.iter().map(|&mu| Config {
            mu,
            params: spec.params,
            compliant: None,
        });
        let compliant = spec.sweep.mu.iter().flat_map(|&mu| {
            compliant_cases(spec).map(move |case| Config {
                mu,
                params: spec.params,
                compliant: Some(case),
            })
        });
        rigid.chain(compliant).collect()
    }

    /// A rigid row stands on the placeholder κ = 1; a compliant one on each κ of the ladder.
    fn kappa_values(spec: &SweepSpec<Self>, config: &Config) -> Vec<f64> {
        match config.compliant {
            None => RIGID_LADDER.values(),
            Some(_) => Self::kappa(&spec.sweep).values(),
        }
    }

    /// A rigid row per listed integrator; the compliant rows with `params.compliant_integrator`.
    fn integrators(spec: &SweepSpec<Self>, config: &Config) -> Vec<IntegratorKind> {
        match config.compliant {
            None => spec.solver.integrators.clone(),
            Some(_) => vec![compliant_integrator(spec)],
        }
    }

    fn inputs(c: &Config) -> Cells {
        let (method, start, damping) = match c.compliant {
            None => (MethodKind::Rigid, String::new(), String::new()),
            Some((start, damping)) => (
                MethodKind::Compliant,
                start.name().to_string(),
                damping.to_string(),
            ),
        };
        vec![
            ("mu", c.mu.to_string()),
            ("method", method.name().to_string()),
            ("series_degree", c.params.series_degree.to_string()),
            ("t_series", c.params.t_series.to_string()),
            ("t_end", c.params.t_end.to_string()),
            ("start", start),
            ("damping", damping),
        ]
    }

    fn run(
        spec: &SweepSpec<Self>,
        c: &Config,
        kappa: f64,
        integrator: IntegratorKind,
    ) -> Result<(Cells, SolverStats), String> {
        match c.compliant {
            None => run_rigid(spec, c, integrator),
            Some((start, damping)) => {
                study::run_compliant_row(spec, c.mu, start, damping, kappa, integrator)
            }
        }
        .map_err(|e| e.to_string())
    }

    fn after_run(spec: &SweepSpec<Self>, dir: &Path) -> Result<(), RunError> {
        report::write_tables(spec, dir)
    }

    fn report(spec: &SweepSpec<Self>, rows: &[Row], dir: &Path) -> Result<(), RunError> {
        report::write_report(spec, rows, dir)
    }
}

/// The (start, c_d) pairs of `sweep.compliant` (none for a rigid experiment).
pub(crate) fn compliant_cases(spec: &SweepSpec<Dance>) -> impl Iterator<Item = (Start, f64)> + '_ {
    spec.sweep
        .compliant
        .iter()
        .flatten()
        .flat_map(|case| case.damping.iter().map(move |&d| (case.start, d)))
}

/// The integrator of the compliant rows.
pub(crate) fn compliant_integrator(spec: &SweepSpec<Dance>) -> IntegratorKind {
    spec.params
        .compliant_integrator
        .unwrap_or(spec.solver.integrators[0])
}

/// The checks of `method = "compliant"`: a κ ladder, at least one case, dampings ≥ 0.
fn validate_compliant(spec: &SweepSpec<Dance>) -> Result<(), SimError> {
    let Some(ladder) = &spec.sweep.kappa else {
        return Err(SimError::invalid(
            "sweep.kappa",
            "missing",
            "a compliant experiment needs a κ ladder, e.g. kappa = { min = 1e-8, max = 1e-2, \
             per_decade = 2 }",
        ));
    };
    crate::compliant::normal::require_resolvable_kappa("sweep.kappa.min", ladder.min)?;
    crate::compliant::normal::require_penetrating_less_than_the_body(
        "sweep.kappa.max",
        ladder.max,
    )?;
    let cases = spec.sweep.compliant.as_deref().unwrap_or_default();
    if cases.iter().all(|c| c.damping.is_empty()) {
        return Err(SimError::invalid(
            "sweep.compliant",
            "no case",
            "list at least one start with its dampings, e.g. [{ start = \"rest\", damping = \
             [2.0] }]",
        ));
    }
    for (i, case) in cases.iter().enumerate() {
        for &d in &case.damping {
            crate::compliant::normal::require_resolvable_damping(
                &format!("sweep.compliant[{i}].damping"),
                d,
            )?;
        }
    }
    if spec.params.t_end < compliant::COMPARE_UNTIL {
        return Err(SimError::invalid(
            "params.t_end",
            crate::error::number_text(spec.params.t_end),
            "the compliant runs are compared with the rigid motion on [0, 2]",
        ));
    }
    Ok(())
}

/// Space-separated numbers in their shortest round-trip form.
pub(crate) fn pair(v: [f64; 2]) -> String {
    format!("{} {}", v[0], v[1])
}

/// One rigid row: the series' facts, the slide at the solver's tolerances and at rtol/10.
fn run_rigid(
    spec: &SweepSpec<Dance>,
    c: &Config,
    integrator: IntegratorKind,
) -> Result<(Cells, SolverStats), SimError> {
    let started = std::time::Instant::now();
    let p = &c.params;
    let facts = study::SeriesFacts::compute(c.mu, p.series_degree)?;
    let mut times: Vec<f64> = study::truncation_times();
    times.extend(REPORTED_TIMES.iter().filter(|&&t| t > 0.6));
    times.push(p.t_end);
    times.retain(|&t| t > p.t_series);
    times.dedup();
    let tol = Tolerances {
        rtol: spec.solver.rtol,
        atol: spec.solver.atol,
    };
    let finer = Tolerances {
        rtol: tol.rtol / 10.0,
        atol: tol.atol / 10.0,
    };
    let (states, mut stats) =
        rigid::rigid_from_series(c.mu, &facts.logs, p.t_series, &times, integrator, tol)?;
    let (refined, _) =
        rigid::rigid_from_series(c.mu, &facts.logs, p.t_series, &times, integrator, finer)?;
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
    let opt = |x: Option<f64>| x.map(|v| v.to_string()).unwrap_or_default();
    let min_ratio = ratios.iter().copied().reduce(f64::min);
    let max_ratio = ratios.iter().copied().reduce(f64::max);
    let partial_gap = study::partial_sum_gaps(&facts.logs, 0.5, half.v[0], PARTIAL_SUM_DEGREE)
        .last()
        .map(|&(_, g)| g);
    let (kind, growth, radius) = match (facts.growth, facts.radius) {
        (Some(g), _) => ("divergent", Some(g), None),
        (None, Some(r)) => ("convergent", None, Some(r)),
        (None, None) => ("undetermined", None, None),
    };
    let cells = vec![
        ("mode_sequence", "slide".to_string()),
        ("event_times", String::new()),
        ("event_kinds", String::new()),
        ("U_end", pair(end.u)),
        ("V_end", pair(end.v)),
        ("v_at_half", pair(half.v)),
        ("v_at_1", pair(at(1.0)?.v)),
        ("v_at_2", pair(at(2.0)?.v)),
        ("v_rtol_change", rtol_change.to_string()),
        ("series_digits", format!("{:.1}", facts.agreeing_digits)),
        ("series_kind", kind.to_string()),
        ("growth_A", opt(growth.map(|g| g.a))),
        ("growth_beta", opt(growth.map(|g| g.beta))),
        ("growth_ln_K", opt(growth.map(|g| g.ln_k))),
        ("growth_A_spread", opt(growth.map(|g| g.a_spread))),
        ("growth_beta_spread", opt(growth.map(|g| g.beta_spread))),
        ("radius_t", opt(radius.map(|r| r.radius.sqrt()))),
        (
            "radius_t_spread",
            opt(radius.map(|r| r.radius_spread / (2.0 * r.radius.sqrt()))),
        ),
        (
            "start_smallest_term",
            facts.logs.state_at(p.t_series).smallest_term.to_string(),
        ),
        ("truncation_ratio_min", opt(min_ratio)),
        ("truncation_ratio_max", opt(max_ratio)),
        ("partial_sum_gap_half", opt(partial_gap)),
    ];
    stats.wall_time_s = started.elapsed().as_secs_f64();
    Ok((cells, stats))
}
