//! Dance's particle starting to slide (`model = "dance"`; Dance 2024, §3; docs/dance.md): the
//! formal series of the sliding velocity ([`series`], in the number types of [`precision`]), its
//! growth and truncation ([`truncation`]), the rigid slide integrated from the series
//! ([`rigid`]), the particle on a compliant plane against the rigid motion ([`compliant`]), one
//! run of either method ([`study`]), the experiment file's form ([`form`]) and its own sections
//! of the report ([`report`], [`compliant_report`]): the generic convergence report fits the
//! compliant runs' distances to the rigid motion ([`Dance::reported_quantities`]).
//!
//! A [`System`] on the convergence study (`crate::study::convergence`): a configuration is one
//! μ, either rigid (the series, then the rigid slide: one row per integrator) or one compliant
//! start (the particle at each κ of the ladder against the rigid motion, by
//! `params.compliant_integrator`). `method = "rigid"` writes the rigid rows of every μ;
//! `method = "compliant"` writes them too, then one row per μ, start, damping c_d and κ:
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
//!
//! One run: `rigid-limit simulate dance --set mu=1 --method rigid`, or compliant with
//! `--set start=rest --set damping=1 --kappa 1e-6`.

pub mod compliant;
pub mod compliant_report;
pub mod form;
pub mod precision;
pub mod report;
pub mod rigid;
pub mod series;
pub mod study;
pub mod truncation;

use crate::error::SimError;
use crate::experiment::grammar::{LogGrid, MethodKind};
use crate::experiment::record;
use crate::experiment::rows::Cells;
use crate::experiment::runner::RunError;
use crate::experiment::system::{Method, Methods, Quantity, RunSettings, System};
use crate::experiment::table::Row;
use crate::integrate::{IntegratorKind, SolverStats};
use crate::report::rates::FIT_RANGE;
use compliant::Start;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Dance's particle as a system of the harness.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dance;

/// `[params]`: one configuration. A file sweeps μ and lists the compliant starts in `[sweep]`
/// ([`form`]); the study runs each μ rigid, then each of its starts compliant
/// ([`System::configurations`]).
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Coulomb coefficient μ ∈ (0, 1] (default 1, Dance's counterexample; `[sweep] mu`).
    #[serde(default = "default_mu")]
    pub mu: f64,
    /// `rigid` (the series, then the rigid slide) or `compliant` (the rigid runs, then the
    /// compliant runs of `sweep.compliant` over `sweep.kappa`).
    pub method: MethodKind,
    /// End of each run.
    pub t_end: f64,
    /// Highest power of t in the formal series.
    pub series_degree: usize,
    /// t₀: the series below it, the rigid numerics from its optimal truncation there on.
    #[serde(default = "default_t_series")]
    pub t_series: f64,
    /// The start of one compliant run (a case of `sweep.compliant`; `--set start=rest` for one
    /// run); none for a rigid one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<Start>,
    /// Its normal damping c_d (F_n = δ/κ + c_d δ̇/√κ).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub damping: Option<f64>,
    /// The integrator of the compliant rows (default: the first of `solver.integrators`). The
    /// slip direction of a slide from rest relaxes at the rate μF_n/|v|, up to 1e9 while
    /// |v| ~ 1e-9 (docs/dance.md): an explicit method needs ~10⁶ steps there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compliant_integrator: Option<IntegratorKind>,
    /// The compliant starts with their dampings (`[sweep] compliant` of a file, [`form`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub compliant: Vec<CompliantCase>,
}

fn default_mu() -> f64 {
    1.0
}

fn default_t_series() -> f64 {
    0.25
}

/// One start of the compliant runs with its normal dampings c_d (F_n = δ/κ + c_d δ̇/√κ).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CompliantCase {
    pub start: Start,
    pub damping: Vec<f64>,
}

/// The input columns of runs.csv, in this order: a run's configuration as its row states it
/// (its method is compliant exactly when it has a start).
#[derive(Clone, Debug, Default, Serialize)]
struct Inputs {
    mu: f64,
    method: MethodKind,
    series_degree: usize,
    t_series: f64,
    t_end: f64,
    start: Option<Start>,
    damping: Option<f64>,
}

impl Inputs {
    fn of(p: &Params) -> Inputs {
        Inputs {
            mu: p.mu,
            method: if p.start.is_some() {
                MethodKind::Compliant
            } else {
                MethodKind::Rigid
            },
            series_degree: p.series_degree,
            t_series: p.t_series,
            t_end: p.t_end,
            start: p.start,
            damping: p.damping,
        }
    }
}

/// How the coefficients of v^∥ behave (docs/dance.md, "Growth", "Radius").
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SeriesKind {
    /// Factorial growth: the series diverges (μ = 1).
    Divergent,
    /// A finite radius in t².
    Convergent,
    /// Neither fit is stable.
    Undetermined,
}

/// What one run measures: runs.csv's columns from `mode_sequence` to `n_samples`. A rigid run
/// fills the series' facts and the truncation, a compliant one the distances to the rigid
/// motion; both the velocities at the reported times.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
pub struct Record {
    /// The modes in time order, space-separated.
    pub mode_sequence: String,
    /// The events' times and kinds (`slip`, `stop`, `contact_opens`, `contact_closes`).
    pub event_times: Vec<f64>,
    pub event_kinds: String,
    /// (u^t, v^t) at t_end.
    #[serde(rename = "U_end")]
    pub u_end: [f64; 2],
    #[serde(rename = "V_end")]
    pub v_end: [f64; 2],
    /// v at [`REPORTED_TIMES`].
    pub v_at_half: Option<[f64; 2]>,
    pub v_at_1: Option<[f64; 2]>,
    pub v_at_2: Option<[f64; 2]>,
    /// The largest change of v when the rigid slide runs at rtol/10, atol/10.
    pub v_rtol_change: Option<f64>,
    /// Digits on which the 256- and 352-bit series agree (one decimal).
    pub series_digits: Option<f64>,
    pub series_kind: Option<SeriesKind>,
    #[serde(rename = "growth_A")]
    pub growth_a: Option<f64>,
    pub growth_beta: Option<f64>,
    #[serde(rename = "growth_ln_K")]
    pub growth_ln_k: Option<f64>,
    #[serde(rename = "growth_A_spread")]
    pub growth_a_spread: Option<f64>,
    pub growth_beta_spread: Option<f64>,
    /// The radius of convergence in t, with its spread.
    pub radius_t: Option<f64>,
    pub radius_t_spread: Option<f64>,
    /// The smallest term of the series at t₀.
    pub start_smallest_term: Option<f64>,
    /// |optimal truncation − numerics| / smallest term over t ∈ [.35, .6].
    pub truncation_ratio_min: Option<f64>,
    pub truncation_ratio_max: Option<f64>,
    /// |S_41(.5) − v₁(.5)|.
    pub partial_sum_gap_half: Option<f64>,
    /// sup‖u^κ − u‖ and sup‖v^κ − v‖ on [0, 2], with the times they are reached.
    pub d_u_sup: Option<f64>,
    pub d_u_sup_at: Option<f64>,
    pub d_v_sup: Option<f64>,
    pub d_v_sup_at: Option<f64>,
    /// sup|F_n − 1| and sup F_n over the samples.
    pub normal_force_deviation: Option<f64>,
    pub normal_force_max: Option<f64>,
    pub n_samples: Option<usize>,
}

/// The velocities reported in the table (v(.5), v(1), v(2)).
pub const REPORTED_TIMES: [f64; 3] = [0.5, 1.0, 2.0];

/// The degree of the partial sum compared with the numerics at t = .5.
pub(crate) const PARTIAL_SUM_DEGREE: usize = 41;

impl System for Dance {
    const NAME: &'static str = "dance";
    const TITLE: &'static str = "Dance's particle starting to slide";
    const ABOUT: &'static str =
        "Dance's particle starting to slide under the force (1, t) (Dance 2024): the formal \
         series (divergent for μ = 1), its optimal truncation and the rigid slide";
    const EXAMPLE: &'static str = include_str!("../../../experiments/dance_start_slide.toml");
    const SOLVER_KEYS: &'static [&'static str] = &[];
    /// A rigid row has no compliance: its `kappa` cell (1) is a placeholder that the `method`
    /// column marks as such.
    const RIGID_KAPPA: f64 = 1.0;
    type Config = Params;
    type Record = Record;

    /// The values of one configuration; the file's form (method, ladder, starts) is checked
    /// when it is read ([`form::from_file`]).
    fn validate(p: &Params, _kappa: Option<&LogGrid>) -> Result<(), SimError> {
        series::require_sliding_mu("sweep.mu", p.mu)?;
        if p.method == MethodKind::Incremental {
            return Err(form::incremental_refused());
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
                "must be in (2, 100]: the table reports v(2) and the compliant runs are compared \
                 with the rigid motion on [0, 2]",
            ));
        }
        if p.t_series >= REPORTED_TIMES[0] {
            return Err(SimError::invalid(
                "params.t_series",
                crate::error::number_text(p.t_series),
                "must be below .5, the first reported time",
            ));
        }
        for (i, case) in p.compliant.iter().enumerate() {
            for &d in &case.damping {
                crate::compliant::normal::require_resolvable_damping(
                    &format!("sweep.compliant[{i}].damping"),
                    d,
                )?;
            }
        }
        if let Some(d) = p.damping {
            crate::compliant::normal::require_resolvable_damping("params.damping", d)?;
        }
        Ok(())
    }

    fn run(
        p: &Params,
        method: Method,
        settings: &RunSettings,
    ) -> Result<(Record, SolverStats), SimError> {
        let started = std::time::Instant::now();
        let (record, mut stats) = match method {
            Method::Rigid => study::run_rigid(p, settings)?,
            Method::Compliant { kappa } => {
                let Some(start) = p.start else {
                    return Err(SimError::invalid(
                        "params.start",
                        "missing",
                        "a compliant run starts at rest or at the static penetration: set \
                         start = \"rest\" or \"equilibrium\" and its damping (simulate: --set \
                         start=rest --set damping=1)",
                    ));
                };
                study::run_compliant(p, start, p.damping.unwrap_or(0.0), kappa, settings)?
            }
        };
        // The whole run: the series too, not only the integration the counters count.
        stats.wall_time_s = started.elapsed().as_secs_f64();
        Ok((record, stats))
    }

    /// A compliant configuration's distances to the rigid motion on [0, 2], which the run
    /// measures, fitted over the shared range [`FIT_RANGE`] against the exponents the normal
    /// transient predicts for its start, μ and c_d (`compliant::predicted_exponents`); none
    /// for a rigid configuration (its series and slide are [`Self::report_sections`]').
    fn quantities(p: &Params) -> Vec<Quantity> {
        let Some(start) = p.start else {
            return Vec::new();
        };
        let (position, velocity) =
            compliant::predicted_exponents(p.mu, start, p.damping.unwrap_or(0.0));
        let distance = |column, symbol, meaning, exponent| {
            Quantity::distance_to_rigid(column, symbol, meaning, exponent, FIT_RANGE)
        };
        vec![
            distance(
                "d_u_sup",
                "sup‖Δu‖",
                "sup over t ∈ [0, 2] of ‖u compliant − u rigid‖",
                position,
            ),
            distance(
                "d_v_sup",
                "sup‖Δv‖",
                "sup over t ∈ [0, 2] of ‖v compliant − v rigid‖",
                velocity,
            ),
        ]
    }

    /// μ, the start and the normal damping c_d in words (the labels are the figure's too): one
    /// μ of the grid stands for its rigid run and each compliant start and damping
    /// ([`Self::configurations`]).
    fn configuration_label(p: &Params) -> Option<String> {
        let damping = p.damping.unwrap_or(0.0);
        Some(match p.start {
            None => format!("μ = {}, rigid", p.mu),
            Some(Start::Rest) => format!(
                "μ = {}, from rest on the plane, normal damping {damping}",
                p.mu
            ),
            Some(Start::Equilibrium) => {
                format!("μ = {}, from rest at δ = κ, normal damping {damping}", p.mu)
            }
        })
    }

    /// The rigid slide and its formal series, then the compliant runs' normal-transient
    /// constants, the stop and stick of μ = 1, c_d = 1 and the velocity near t = 0
    /// ([`report::sections`]).
    fn report_sections(
        p: &Params,
        integrators: &[IntegratorKind],
        rows: &[Row],
        dir: &Path,
    ) -> Result<String, RunError> {
        report::sections(p, integrators, rows, dir)
    }

    /// A configuration without a start runs rigid; one with a start runs compliant over the
    /// ladder; `[params]` of a compliant file (its starts listed) stands for both.
    fn methods(p: &Params) -> Methods {
        Methods {
            rigid: p.start.is_none(),
            compliant: p.method == MethodKind::Compliant
                && (p.start.is_some() || !p.compliant.is_empty()),
        }
    }

    /// The rigid run of every μ, then (for `method = "compliant"`) every start and damping of
    /// each μ.
    fn configurations(grid: Vec<Params>) -> Vec<Params> {
        let rigid = grid.iter().map(|p| Params {
            method: MethodKind::Rigid,
            start: None,
            damping: None,
            ..p.clone()
        });
        let compliant = grid
            .iter()
            .filter(|p| p.method == MethodKind::Compliant)
            .flat_map(|p| {
                p.compliant.iter().flat_map(move |case| {
                    case.damping.iter().map(move |&d| Params {
                        start: Some(case.start),
                        damping: Some(d),
                        ..p.clone()
                    })
                })
            });
        rigid.chain(compliant).collect()
    }

    /// Every listed integrator for a rigid configuration; `params.compliant_integrator` (or the
    /// first listed) for a compliant one.
    fn integrators(p: &Params, listed: &[IntegratorKind]) -> Vec<IntegratorKind> {
        match p.start {
            None => listed.to_vec(),
            Some(_) => listed
                .first()
                .map(|&first| vec![compliant_integrator(p, first)])
                .unwrap_or_default(),
        }
    }

    fn side_tables(
        p: &Params,
        configurations: &[Params],
        kappa: &[f64],
        settings: &RunSettings,
    ) -> Vec<(&'static str, String)> {
        study::side_tables(p, configurations, kappa, settings)
    }

    fn input_columns(_: &Params) -> Vec<&'static str> {
        record::columns::<Inputs>()
    }

    fn inputs(p: &Params) -> Result<Cells, String> {
        record::cells(&Inputs::of(p)).map_err(|e| e.to_string())
    }

    /// The file's setting; μ and the compliant starts are each section's
    /// ([`Self::configuration_label`]).
    fn describe(p: &Params) -> String {
        let compliant = if p.method == MethodKind::Compliant {
            "; the compliant runs on the penalty plane F_n = δ/κ + c_d δ̇/√κ (δ the penetration, \
             c_d the normal damping) against the rigid motion"
        } else {
            ""
        };
        format!(
            "v' = (1, t) − μ v/|v| from rest: the formal series to t^{}, the rigid slide from \
             t₀ = {} to t = {}{compliant}",
            p.series_degree, p.t_series, p.t_end
        )
    }
}

/// The integrator of the compliant rows: `params.compliant_integrator`, else `first` (the first
/// of `solver.integrators`).
pub fn compliant_integrator(p: &Params, first: IntegratorKind) -> IntegratorKind {
    p.compliant_integrator.unwrap_or(first)
}
