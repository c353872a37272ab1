//! The atlas analysis: many initial states (μ, θ0, θ̇0, c_d), each with a κ ladder. Per state:
//! the phase sequence, the rigid-limit predictions and the error at the smallest κ, the
//! extrapolated constants, and every published bound at every κ of the ladder.

use super::analysis::{bound_checks, series, BoundCheck};
use super::convergence::{quantity_convergence, QuantityConvergence, RodQuantity};
use super::Rod;
use crate::analysis::fit::slide_law;
use crate::experiment::model::SweepSpec;
use crate::experiment::table::Row;
use crate::models::rod::bounds::SlideBoundConstants;
use crate::models::rod::limit::RigidLimit;
use crate::models::rod::mechanics::painleve_theta_interval;
use crate::models::rod::scenario::RodImpact;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;

/// The sequence of a standard tangential impact (the runs end at lift-off).
pub const STANDARD_SEQUENCE: &str = "slide_left>stick>slide_right";

/// One bound at one initial state, over its κ ladder.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct StateBound {
    pub bound: &'static str,
    pub holds_at_every_kappa: bool,
    /// The worst violation: κ, measured, bound, measured/bound.
    pub worst: Option<(f64, f64, f64, f64)>,
    pub vacuous: usize,
    pub hypotheses_fail: usize,
}

/// Largest predicted rounding of T_rev at which the atlas reports its T_rev/κ error with the
/// other quantities' (docs/tolerances.md, "Resolution limits").
pub const REVERSE_RESOLVED: f64 = 1e-3;

impl StateAnalysis {
    /// Whether T_rev/κ at the smallest κ is resolved by f64 event times.
    pub fn reverse_resolved(&self) -> bool {
        self.reverse_rounding.is_some_and(|r| r <= REVERSE_RESOLVED)
    }
}

/// The analysis of one initial state.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct StateAnalysis {
    pub impact: RodImpact,
    /// Position of θ0 in the eq. (18) interval at this μ, 0 … 1.
    pub theta_fraction: f64,
    pub a0: f64,
    pub b0: f64,
    pub runs: usize,
    pub failed: usize,
    /// The mode sequence if the same at every κ, else the distinct ones joined by " or ".
    pub sequence: String,
    pub limit: Option<RigidLimit>,
    pub smallest_kappa: f64,
    /// Relative errors to the limit at the smallest κ.
    pub err_stick_scaled: Option<f64>,
    pub err_reverse_scaled: Option<f64>,
    /// The predicted relative rounding of T_rev at the smallest κ
    /// (`RigidLimit::reverse_slip_rounding`): where it exceeds `REVERSE_RESOLVED`,
    /// `err_reverse_scaled` measures the arithmetic, not the model.
    pub reverse_rounding: Option<f64>,
    pub err_v_out: Option<f64>,
    pub err_omega_out: Option<f64>,
    /// T_stick/√κ and v_out extrapolated to κ → 0 over the ladder (`analysis::extrapolate`),
    /// with the run tolerance as the values' relative accuracy.
    pub stick_scaled: Option<ExtrapolatedLimit>,
    pub v_out: Option<ExtrapolatedLimit>,
    /// a of T_slide = √κ (a ln(1/√κ) + b) over the ladder (prediction: 1/λ).
    pub slide_log_coefficient: Option<f64>,
    pub bounds: Vec<StateBound>,
}

/// What the atlas keeps of a quantity's extrapolation: the numbers its table, summary and maps
/// use, not the fit (its residuals and candidates are a kilobyte a state).
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct ExtrapolatedLimit {
    pub closed_form: Option<f64>,
    /// The extrapolated limit and its half-width; `None` where the ladder was refused.
    pub interval: Option<(f64, f64)>,
    pub covers_closed_form: Option<bool>,
    pub relative_half_width: Option<f64>,
    /// (extrapolated − closed form)/|closed form|.
    pub error: Option<f64>,
}

impl From<&QuantityConvergence> for ExtrapolatedLimit {
    fn from(c: &QuantityConvergence) -> Self {
        ExtrapolatedLimit {
            closed_form: c.closed_form,
            interval: c.extrapolation.as_ref().map(|e| (e.limit, e.half_width)),
            covers_closed_form: c.covers_closed_form(),
            relative_half_width: c.relative_half_width(),
            error: c.extrapolation_error(),
        }
    }
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct AtlasAnalysis {
    pub experiment: String,
    pub integrator: String,
    /// Initial states run, and those outside `sweep.case` (skipped).
    pub states: usize,
    pub skipped: usize,
    pub runs: usize,
    pub failed_runs: usize,
    pub kappas: Vec<f64>,
    /// Mode sequence → number of states.
    pub sequences: BTreeMap<String, usize>,
    /// The curves A(θ, μ) = 0 (the ends of the eq. (18) interval) over the μ range, as (θ, μ).
    pub a_zero_curves: [Vec<(f64, f64)>; 2],
    #[serde(skip)]
    pub per_state: Vec<StateAnalysis>,
}

impl AtlasAnalysis {
    /// The distinct (θ̇0, c_d) of the states, ascending: one table block or panel each.
    pub fn groups(&self) -> Vec<(f64, f64)> {
        let mut groups: Vec<(f64, f64)> = self
            .per_state
            .iter()
            .map(|s| (s.impact.omega0, s.impact.damping))
            .collect();
        groups.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.total_cmp(&y.1)));
        groups.dedup();
        groups
    }
}

fn worst_of(b: &BoundCheck) -> Option<(f64, f64, f64, f64)> {
    let (k, _) = b.worst?;
    let p = b.per_point.iter().find(|p| p.kappa == k)?;
    Some((p.kappa, p.measured, p.bound, p.ratio?))
}

fn relative(value: Option<f64>, limit: f64) -> Option<f64> {
    value.map(|v| (v - limit) / limit.abs())
}

/// Analyse one state's rows (its κ ladder, one integrator at tolerance `rtol`).
fn analyze_state(impact: RodImpact, rows: &[&Row], rtol: f64) -> StateAnalysis {
    let k = impact.slide_coefficients();
    let theta_fraction = painleve_theta_interval(impact.mu)
        .map_or(f64::NAN, |(lo, hi)| (impact.theta0 - lo) / (hi - lo));
    let ok: Vec<&Row> = rows
        .iter()
        .copied()
        .filter(|r| r.text("status") == "ok")
        .collect();
    let mut sequences: Vec<&str> = ok.iter().map(|r| r.text("mode_sequence")).collect();
    sequences.sort_unstable();
    sequences.dedup();
    let limit = RigidLimit::of(&impact);
    let constants = SlideBoundConstants::choose(&impact);
    let smallest = ok.iter().copied().min_by(|a, b| {
        a.number("kappa")
            .unwrap_or(1.0)
            .total_cmp(&b.number("kappa").unwrap_or(1.0))
    });
    let smallest_kappa = smallest.and_then(|r| r.number("kappa")).unwrap_or(f64::NAN);
    let at_smallest = |f: &dyn Fn(&Row) -> Option<f64>| smallest.and_then(f);
    let scaled =
        |r: &Row, col: &str, power: f64| Some(r.number(col)? / r.number("kappa")?.powf(power));
    let (mut err_stick, mut err_rev, mut err_v, mut err_w) = (None, None, None, None);
    if let Some(l) = &limit {
        err_stick = relative(
            at_smallest(&|r| scaled(r, "t_stick", 0.5)),
            l.stick_duration_scaled,
        );
        err_rev = relative(
            at_smallest(&|r| scaled(r, "t_reverse_slip", 1.0)),
            l.reverse_slip_duration_scaled,
        );
        err_v = relative(at_smallest(&|r| r.number("v_out")), l.v_out);
        err_w = relative(at_smallest(&|r| r.number("omega_out")), l.omega_out);
    }
    // One integrator: its relative accuracy is taken as the tolerance (Tsit45's κ-independent
    // error is 0.2 rtol at rtol 1e-10, docs/extrapolation.md §1.4).
    let extrapolated = |q: RodQuantity| {
        let at_smallest = smallest.and_then(|r| q.measured(r)).unwrap_or(0.0);
        quantity_convergence(&ok, q, &impact, 0.0, rtol * at_smallest.abs())
            .as_ref()
            .map(ExtrapolatedLimit::from)
    };
    let (ks_slide, slide) = series(&ok, "t_slide");
    let mut by_kappa = ok.clone();
    by_kappa.sort_by(|a, b| {
        a.number("kappa")
            .unwrap_or(0.0)
            .total_cmp(&b.number("kappa").unwrap_or(0.0))
    });
    let bounds = bound_checks(&by_kappa, constants.as_ref(), impact.mu)
        .iter()
        .map(|b| StateBound {
            bound: b.bound,
            holds_at_every_kappa: b.violations == 0,
            worst: worst_of(b),
            vacuous: b.vacuous,
            hypotheses_fail: b.hypotheses_fail,
        })
        .collect();
    StateAnalysis {
        impact,
        theta_fraction,
        a0: k.a,
        b0: k.b,
        runs: rows.len(),
        failed: rows.len() - ok.len(),
        sequence: sequences.join(" or "),
        limit,
        smallest_kappa,
        err_stick_scaled: err_stick,
        err_reverse_scaled: err_rev,
        reverse_rounding: limit.map(|l| l.reverse_slip_rounding(smallest_kappa)),
        err_v_out: err_v,
        err_omega_out: err_w,
        stick_scaled: extrapolated(RodQuantity::StickScaled),
        v_out: extrapolated(RodQuantity::VOut),
        slide_log_coefficient: slide_law(&ks_slide, &slide).map(|f| f.slope),
        bounds,
    }
}

/// States analysed together: their rows wait for the batch, the batch runs in parallel.
const STATE_BATCH: usize = 512;

/// The per-state analyses of an atlas's rows.
pub(crate) struct States<T> {
    pub per_state: Vec<T>,
    /// Initial states outside `sweep.case` (not run).
    pub skipped: usize,
    /// The rows read, and those of the analysed integrator.
    pub rows: usize,
    pub runs: usize,
    pub integrator: &'static str,
}

/// Analyse each initial state of an atlas from its rows (the first integrator's runs), read as
/// a stream in point order (runs.csv's order): points are numbered state-major
/// (`spec.points()`), so a state's rows come together, and only a batch of states' rows is held
/// at a time — the run's size does not set the memory.
pub(crate) fn analyze_states<T: Send>(
    spec: &SweepSpec<Rod>,
    rows: impl Iterator<Item = Row>,
    analyze: impl Fn(RodImpact, &[&Row]) -> T + Sync,
) -> States<T> {
    let configurations = spec.configurations();
    let grid = configurations.kept;
    let per_state_points = spec.sweep.kappa.values().len() * spec.solver.integrators.len();
    let integrator = spec.solver.integrators[0].name();
    let mut rows = rows.peekable();
    let (mut n_rows, mut runs) = (0, 0);
    let mut per_state = Vec::with_capacity(grid.len());
    for (batch_index, batch) in grid.chunks(STATE_BATCH).enumerate() {
        let first = batch_index * STATE_BATCH;
        let mut by_state: Vec<Vec<Row>> = vec![Vec::new(); batch.len()];
        while let Some(state) = rows.peek().map(|r| r.point_id / per_state_points) {
            if state >= first + batch.len() {
                break;
            }
            let row = rows.next().expect("peeked");
            n_rows += 1;
            if row.text("integrator") == integrator {
                if let Some(v) = state.checked_sub(first).and_then(|i| by_state.get_mut(i)) {
                    v.push(row);
                    runs += 1;
                }
            }
        }
        per_state.par_extend(batch.par_iter().zip(&by_state).map(|(imp, rows)| {
            let rows: Vec<&Row> = rows.iter().collect();
            analyze(*imp, &rows)
        }));
    }
    States {
        per_state,
        skipped: configurations.skipped,
        rows: n_rows + rows.count(),
        runs,
        integrator,
    }
}

/// Analyse the rows of an atlas experiment, read as a stream ([`analyze_states`]); returns the
/// analysis and the number of rows read.
pub fn analyze_atlas(
    spec: &SweepSpec<Rod>,
    rows: impl Iterator<Item = Row>,
) -> (AtlasAnalysis, usize) {
    let rtol = spec.solver.rtol;
    let states = analyze_states(spec, rows, |imp, rows| analyze_state(imp, rows, rtol));
    let per_state = states.per_state;
    let mut sequences = BTreeMap::new();
    for s in &per_state {
        *sequences.entry(s.sequence.clone()).or_insert(0) += 1;
    }
    let (mu_lo, mu_hi) = per_state.iter().fold((f64::MAX, f64::MIN), |(lo, hi), s| {
        (lo.min(s.impact.mu), hi.max(s.impact.mu))
    });
    let mut a_zero_curves = [Vec::new(), Vec::new()];
    for i in 0..=200 {
        let mu = mu_lo + (mu_hi - mu_lo) * f64::from(i) / 200.0;
        if let Some((lo, hi)) = painleve_theta_interval(mu) {
            a_zero_curves[0].push((lo, mu));
            a_zero_curves[1].push((hi, mu));
        }
    }
    let analysis = AtlasAnalysis {
        a_zero_curves,
        experiment: spec.name.clone(),
        integrator: states.integrator.to_string(),
        states: per_state.len(),
        skipped: states.skipped,
        runs: states.runs,
        failed_runs: per_state.iter().map(|s| s.failed).sum(),
        kappas: spec.sweep.kappa.values(),
        sequences,
        per_state,
    };
    (analysis, states.rows)
}
