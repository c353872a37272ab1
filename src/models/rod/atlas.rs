//! The atlas analysis: many initial states (μ, θ0, θ̇0, c_d), each with a κ ladder. Per state:
//! the phase sequence, the rigid-limit predictions and the error at the smallest κ, the
//! extrapolated constants, and every published bound at every κ of the ladder.
//!
//! An atlas holds up to ~10⁶ states, so a state keeps only the numbers the summary, points.csv
//! and the figures read, in fixed-size fields (no per-state `String` or `Vec`): its sequence is
//! an index into the atlas's table of sequences, its bounds a fixed array indexed as
//! [`BOUND_NAMES`], its optional numbers [`OptF64`]; what is a function of the initial state
//! alone (the rigid limit, A0, B0, θ0's place in the eq. (18) interval) is computed on demand.

use super::analysis::{
    bound_checks, series, BoundCheck, SLIDE_LOWER, SLIDE_UPPER, STICK_LOWER, STICK_UPPER,
};
use super::convergence::{quantity_convergence, QuantityConvergence, RodQuantity};
use super::sweep::RodExperiment;
use crate::analysis::fit::slide_law;
use crate::experiment::table::Row;
use crate::models::rod::bounds::SlideBoundConstants;
use crate::models::rod::limit::RigidLimit;
use crate::models::rod::mechanics::painleve_theta_interval;
use crate::models::rod::scenario::RodImpact;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;

/// The sequence of a standard tangential impact (the runs end at lift-off).
pub(crate) const STANDARD_SEQUENCE: &str = "slide_left>stick>slide_right";

/// The bounds a state can be checked against, in the order `analysis::bound_checks` lists
/// them: the slot of each in [`StateAnalysis::bounds`].
pub const BOUND_NAMES: [&str; 4] = [SLIDE_LOWER, SLIDE_UPPER, STICK_LOWER, STICK_UPPER];

/// An optional `f64` in eight bytes (`Option<f64>` takes sixteen): one NaN bit pattern, which
/// arithmetic does not produce (it makes the canonical quiet NaN), stands for "no value"; every
/// other value, NaN included, is kept bit for bit.
#[derive(Clone, Copy, Debug)]
pub struct OptF64(f64);

impl OptF64 {
    const NONE_BITS: u64 = 0x7ff4_a7a5_0000_0001;
    pub(crate) const NONE: OptF64 = OptF64(f64::from_bits(Self::NONE_BITS));

    pub fn get(self) -> Option<f64> {
        (self.0.to_bits() != Self::NONE_BITS).then_some(self.0)
    }
}

impl From<Option<f64>> for OptF64 {
    fn from(v: Option<f64>) -> Self {
        v.map_or(Self::NONE, OptF64)
    }
}

impl PartialEq for OptF64 {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

/// One bound at one initial state, over its κ ladder.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StateBound {
    pub holds_at_every_kappa: bool,
    pub hypotheses_fail: u32,
    /// The worst violation: κ, measured, bound, measured/bound (all absent if none).
    worst: [OptF64; 4],
}

impl StateBound {
    /// The worst violation: κ, measured, bound, measured/bound.
    pub fn worst(&self) -> Option<(f64, f64, f64, f64)> {
        let [k, m, b, r] = self.worst.map(OptF64::get);
        Some((k?, m?, b?, r?))
    }
}

/// Largest predicted rounding of T_rev at which the atlas reports its T_rev/κ error with the
/// other quantities' (docs/tolerances.md, "Resolution limits").
pub const REVERSE_RESOLVED: f64 = 1e-3;

/// The analysis of one initial state.
#[derive(Clone, Debug, PartialEq)]
pub struct StateAnalysis {
    pub impact: RodImpact,
    pub runs: u32,
    pub failed: u32,
    /// The mode sequence if the same at every κ, else the distinct ones joined by " or ": an
    /// index into [`AtlasAnalysis::sequence_names`].
    pub sequence: u32,
    /// Relative errors to the limit at the smallest κ.
    err_stick_scaled: OptF64,
    err_reverse_scaled: OptF64,
    /// The predicted relative rounding of T_rev at the smallest κ
    /// (`RigidLimit::reverse_slip_rounding`): where it exceeds `REVERSE_RESOLVED`,
    /// `err_reverse_scaled` measures the arithmetic, not the model.
    reverse_rounding: OptF64,
    err_v_out: OptF64,
    err_omega_out: OptF64,
    /// a of T_slide = √κ (a ln(1/√κ) + b) over the ladder (prediction: 1/λ).
    slide_log_coefficient: OptF64,
    /// T_stick/√κ and v_out extrapolated to κ → 0 over the ladder (`analysis::extrapolate`),
    /// with the run tolerance as the values' relative accuracy.
    pub stick_scaled: Option<ExtrapolatedLimit>,
    pub v_out: Option<ExtrapolatedLimit>,
    /// The bounds checked at this state, in the slots of [`BOUND_NAMES`].
    bounds: [Option<StateBound>; 4],
}

impl StateAnalysis {
    /// Whether T_rev/κ at the smallest κ is resolved by f64 event times.
    pub(crate) fn reverse_resolved(&self) -> bool {
        self.reverse_rounding()
            .is_some_and(|r| r <= REVERSE_RESOLVED)
    }

    /// The rigid limit of the initial state (`RigidLimit::of`).
    pub fn limit(&self) -> Option<RigidLimit> {
        RigidLimit::of(&self.impact)
    }

    /// Position of θ0 in the eq. (18) interval at this μ, 0 … 1.
    pub(crate) fn theta_fraction(&self) -> f64 {
        painleve_theta_interval(self.impact.mu)
            .map_or(f64::NAN, |(lo, hi)| (self.impact.theta0 - lo) / (hi - lo))
    }

    /// A and B of Zhao–Liu eq. (11) at the initial state.
    pub(crate) fn a0_b0(&self) -> (f64, f64) {
        let k = self.impact.slide_coefficients();
        (k.a, k.b)
    }

    pub(crate) fn err_stick_scaled(&self) -> Option<f64> {
        self.err_stick_scaled.get()
    }
    pub(crate) fn err_reverse_scaled(&self) -> Option<f64> {
        self.err_reverse_scaled.get()
    }
    pub(crate) fn reverse_rounding(&self) -> Option<f64> {
        self.reverse_rounding.get()
    }
    pub(crate) fn err_v_out(&self) -> Option<f64> {
        self.err_v_out.get()
    }
    pub(crate) fn err_omega_out(&self) -> Option<f64> {
        self.err_omega_out.get()
    }
    pub(crate) fn slide_log_coefficient(&self) -> Option<f64> {
        self.slide_log_coefficient.get()
    }

    /// The bounds checked at this state, with their names, in `analysis::bound_checks`' order.
    pub fn bounds(&self) -> impl Iterator<Item = (&'static str, &StateBound)> {
        BOUND_NAMES
            .iter()
            .zip(&self.bounds)
            .filter_map(|(name, b)| Some((*name, b.as_ref()?)))
    }

    /// The state's verdict on the bound named `name` (`None` where it does not apply).
    pub fn bound(&self, name: &str) -> Option<&StateBound> {
        let slot = BOUND_NAMES.iter().position(|n| *n == name)?;
        self.bounds[slot].as_ref()
    }
}

/// What the atlas keeps of a quantity's extrapolation: the numbers its table, summary and maps
/// use, not the fit (its residuals and candidates are a kilobyte a state).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExtrapolatedLimit {
    /// Whether the quantity has a closed-form limit at this state.
    pub has_closed_form: bool,
    covers_closed_form: Option<bool>,
    /// The extrapolated limit and its half-width; absent where the ladder was refused.
    limit: OptF64,
    half_width: OptF64,
    relative_half_width: OptF64,
    /// (extrapolated − closed form)/|closed form|.
    error: OptF64,
}

impl ExtrapolatedLimit {
    /// The extrapolated limit and its half-width; `None` where the ladder was refused.
    pub fn interval(&self) -> Option<(f64, f64)> {
        Some((self.limit.get()?, self.half_width.get()?))
    }
    pub fn covers_closed_form(&self) -> Option<bool> {
        self.covers_closed_form
    }
    pub(crate) fn relative_half_width(&self) -> Option<f64> {
        self.relative_half_width.get()
    }
    /// (extrapolated − closed form)/|closed form|.
    pub fn error(&self) -> Option<f64> {
        self.error.get()
    }
}

impl From<&QuantityConvergence> for ExtrapolatedLimit {
    fn from(c: &QuantityConvergence) -> Self {
        let interval = c.extrapolation.as_ref().map(|e| (e.limit, e.half_width));
        ExtrapolatedLimit {
            has_closed_form: c.closed_form.is_some(),
            covers_closed_form: c.covers_closed_form(),
            limit: interval.map(|i| i.0).into(),
            half_width: interval.map(|i| i.1).into(),
            relative_half_width: c.relative_half_width().into(),
            error: c.extrapolation_error().into(),
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
    /// The distinct sequences of the states in the order first met: `StateAnalysis::sequence`
    /// indexes it.
    #[serde(skip)]
    pub sequence_names: Vec<String>,
    #[serde(skip)]
    pub per_state: Vec<StateAnalysis>,
}

impl AtlasAnalysis {
    /// The distinct (θ̇0, c_d) of the states, ascending: one table block or panel each.
    pub(crate) fn groups(&self) -> Vec<(f64, f64)> {
        let mut groups: Vec<(f64, f64)> = Vec::new();
        for s in &self.per_state {
            let g = (s.impact.omega0, s.impact.damping);
            if !groups.contains(&g) {
                groups.push(g);
            }
        }
        groups.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.total_cmp(&y.1)));
        groups
    }

    /// The sequence of a state (as `AtlasAnalysis::sequences` names it).
    pub(crate) fn sequence_of(&self, s: &StateAnalysis) -> &str {
        &self.sequence_names[s.sequence as usize]
    }

    /// Whether a state runs the standard sequence at every κ.
    pub(crate) fn is_standard(&self, s: &StateAnalysis) -> bool {
        self.sequence_of(s) == STANDARD_SEQUENCE
    }
}

fn worst_of(b: &BoundCheck) -> [OptF64; 4] {
    let worst = b.worst.and_then(|(k, _)| {
        let p = b.per_point.iter().find(|p| p.kappa == k)?;
        Some([p.kappa, p.measured, p.bound, p.ratio?])
    });
    worst.map_or([OptF64::NONE; 4], |w| w.map(|v| OptF64::from(Some(v))))
}

fn relative(value: Option<f64>, limit: f64) -> Option<f64> {
    value.map(|v| (v - limit) / limit.abs())
}

/// A state's rows that ran (`status = ok`) and their distinct mode sequences, sorted.
pub(super) fn ran_and_sequences<'a>(rows: &[&'a Row]) -> (Vec<&'a Row>, Vec<&'a str>) {
    let ok: Vec<&Row> = rows
        .iter()
        .copied()
        .filter(|r| r.text("status") == "ok")
        .collect();
    let mut sequences: Vec<&str> = ok.iter().map(|r| r.text("mode_sequence")).collect();
    sequences.sort_unstable();
    sequences.dedup();
    (ok, sequences)
}

/// Analyse one state's rows (its κ ladder, one integrator at tolerance `rtol`); returns the
/// analysis and the state's sequence, which the caller interns.
fn analyze_state(impact: RodImpact, rows: &[&Row], rtol: f64) -> (StateAnalysis, String) {
    let (ok, sequences) = ran_and_sequences(rows);
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
    let mut bounds = [None; 4];
    for b in bound_checks(&by_kappa, constants.as_ref(), impact.mu) {
        let slot = BOUND_NAMES
            .iter()
            .position(|n| *n == b.bound)
            .expect("bound_checks lists only the bounds of BOUND_NAMES");
        bounds[slot] = Some(StateBound {
            holds_at_every_kappa: b.violations == 0,
            hypotheses_fail: u32::try_from(b.hypotheses_fail).unwrap_or(u32::MAX),
            worst: worst_of(&b),
        });
    }
    let analysis = StateAnalysis {
        impact,
        runs: u32::try_from(rows.len()).unwrap_or(u32::MAX),
        failed: u32::try_from(rows.len() - ok.len()).unwrap_or(u32::MAX),
        sequence: 0,
        err_stick_scaled: err_stick.into(),
        err_reverse_scaled: err_rev.into(),
        reverse_rounding: limit
            .map(|l| l.reverse_slip_rounding(smallest_kappa))
            .into(),
        err_v_out: err_v.into(),
        err_omega_out: err_w.into(),
        stick_scaled: extrapolated(RodQuantity::StickScaled),
        v_out: extrapolated(RodQuantity::VOut),
        slide_log_coefficient: slide_law(&ks_slide, &slide).map(|f| f.slope).into(),
        bounds,
    };
    (analysis, sequences.join(" or "))
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
/// at a time — the run's size does not set the memory. `analyze` runs in parallel over a
/// batch; `keep` turns each result, in state order, into what is kept of the state.
pub(crate) fn analyze_states<T: Send, K>(
    spec: &RodExperiment,
    rows: impl Iterator<Item = Row>,
    analyze: impl Fn(RodImpact, &[&Row]) -> T + Sync,
    mut keep: impl FnMut(T) -> K,
) -> States<K> {
    let configurations = spec.initial_states();
    let grid = configurations.kept;
    let per_state_points = spec.sweep.kappa.values().len() * spec.solver.integrators.len();
    let integrator = spec.solver.integrators[0].name();
    let mut rows = rows.peekable();
    let (mut n_rows, mut runs) = (0, 0);
    let mut per_state = Vec::with_capacity(grid.len());
    let mut analysed = Vec::with_capacity(STATE_BATCH);
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
        analysed.par_extend(batch.par_iter().zip(&by_state).map(|(imp, rows)| {
            let rows: Vec<&Row> = rows.iter().collect();
            analyze(*imp, &rows)
        }));
        per_state.extend(analysed.drain(..).map(&mut keep));
    }
    States {
        per_state,
        skipped: configurations.skipped,
        rows: n_rows + rows.count(),
        runs,
        integrator,
    }
}

/// Analyse the rows of an atlas experiment, read as a stream (`analyze_states`); returns the
/// analysis and the number of rows read.
pub(crate) fn analyze_atlas(
    spec: &RodExperiment,
    rows: impl Iterator<Item = Row>,
) -> (AtlasAnalysis, usize) {
    let rtol = spec.solver.rtol;
    let mut sequence_names: Vec<String> = Vec::new();
    let states = analyze_states(
        spec,
        rows,
        |imp, rows| analyze_state(imp, rows, rtol),
        |(mut state, sequence)| {
            let id = match sequence_names.iter().position(|n| *n == sequence) {
                Some(id) => id,
                None => {
                    sequence_names.push(sequence);
                    sequence_names.len() - 1
                }
            };
            state.sequence = u32::try_from(id).expect("fewer than 2³² distinct sequences");
            state
        },
    );
    let per_state = states.per_state;
    let mut sequences = BTreeMap::new();
    for s in &per_state {
        *sequences
            .entry(sequence_names[s.sequence as usize].clone())
            .or_insert(0) += 1;
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
        failed_runs: per_state.iter().map(|s| s.failed as usize).sum(),
        kappas: spec.sweep.kappa.values(),
        sequences,
        sequence_names,
        per_state,
    };
    (analysis, states.rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every value comes back bit for bit, NaNs of arithmetic included, and absence stays
    /// absence: the NaN pattern that stands for it is not one arithmetic makes.
    #[test]
    fn packed_optional_numbers_round_trip() {
        assert_eq!(OptF64::from(None).get(), None);
        let zero = std::hint::black_box(0.0_f64);
        let made_nans = [
            zero / zero,
            f64::INFINITY - f64::INFINITY,
            (-1.0_f64).sqrt(),
        ];
        for x in [
            0.0,
            -0.0,
            1e-300,
            -2.5,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ]
        .into_iter()
        .chain(made_nans)
        {
            let back = OptF64::from(Some(x)).get().expect("a value stays a value");
            assert_eq!(back.to_bits(), x.to_bits(), "{x}");
        }
        for nan in made_nans {
            assert_ne!(nan.to_bits(), OptF64::NONE.0.to_bits());
        }
    }

    /// A state is a fixed-size record (the memory of a 10⁶-point atlas is 144,400 of them):
    /// no field may grow it back toward the 520 bytes plus heap it took with a `String` and a
    /// `Vec` per state.
    #[test]
    fn a_state_stays_compact() {
        let size = std::mem::size_of::<StateAnalysis>();
        assert!(size <= 384, "StateAnalysis takes {size} bytes");
        let bound = StateBound {
            holds_at_every_kappa: false,
            hypotheses_fail: 0,
            worst: [
                OptF64::from(Some(1e-12)),
                OptF64::from(Some(0.5)),
                OptF64::from(Some(1.0)),
                OptF64::from(Some(0.5)),
            ],
        };
        assert_eq!(bound.worst(), Some((1e-12, 0.5, 1.0, 0.5)));
        let none = StateBound {
            worst: [OptF64::NONE; 4],
            ..bound
        };
        assert_eq!(none.worst(), None);
    }
}
