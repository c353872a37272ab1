//! RODAS4: the stiffly accurate, L-stable Rosenbrock method of order 4(3) with six stages of
//! Hairer and Wanner (E. Hairer, G. Wanner, Solving Ordinary Differential Equations II, 2nd
//! ed., §IV.7 "Rosenbrock-Type Methods", and the code RODAS with its coefficient set METH = 1,
//! subroutine ROCOE), on the [`Stepper`] contract.
//!
//! Stages in Hairer's implementation form (§IV.7, "Implementation of Rosenbrock-type methods":
//! `U_i = Σ_j γ_ij k_j`, `a = α Γ⁻¹`, `C = diag(1/γ) − Γ⁻¹`), autonomous case: with
//! `E = (1/(γh)) I − J`, `γ = 1/4`, `J = ∂f/∂y(y0)`,
//!
//! `E U_i = f(y0 + Σ_{j<i} a_ij U_j) + Σ_{j<i} (c_ij/h) U_j`,  i = 1..6.
//!
//! The method is stiffly accurate: the argument of the 6th stage is the embedded (order 3)
//! solution `ŷ1 = y0 + Σ_{j<5} a_5j U_j + U_5` (a_6j = a_5j, a_65 = 1), and the solution is
//! `y1 = ŷ1 + U_6`, so `U_6 = y1 − ŷ1` is the error estimate (checked against rodas.f). One LU
//! of E per attempt; the Jacobian is evaluated once per accepted state and reused after a
//! rejection.
//!
//! Step size (RODAS): `h_new = h / clamp(err^(1/4)/0.9, 1/6, 5)` and Gustafsson's predictive
//! controller (as in RODAS, §IV.8 "Step size selection"); accept when `err ≤ 1` with
//! `sc_i = atol_i + rtol·max(|y0_i|, |y1_i|)`, the caller's tolerances untransformed.
//!
//! Dense output (RODAS's CONT/CONTRO, order 3: error O(h⁴) inside the step): with
//! `s = (t − t_prev)/h ∈ [0, 1]`,
//! `y(t) = (1 − s) y0 + s (y1 + (1 − s) (D1 + s D2))`, `D1 = Σ_{j≤5} d_2j U_j`,
//! `D2 = Σ_{j≤5} d_3j U_j`.
//!
//! Work counted: 6 `f` per attempt, 1 per new state and 1 for the initial step; `n` JVPs per
//! Jacobian; 1 LU per attempt.

use super::dense::{self, eval_rhs};
use super::{SolverStats, StepControl, Stepper, VectorField};
use nalgebra::DMatrix;
use std::sync::Arc;

const NAME: &str = "Rodas4";
/// Classical order (used by the initial step choice).
const ORDER: u32 = 4;
/// Number of stages.
const STAGES: usize = 6;

/// Diagonal γ of the Rosenbrock method.
const GAMMA: f64 = 0.25;
/// `a_ij` (row i, j < i), from rodas.f (ROCOE, METH = 1); row 6 repeats row 5 with a_65 = 1.
const A: [[f64; 5]; STAGES] = [
    [0.0; 5],
    [1.544, 0.0, 0.0, 0.0, 0.0],
    [
        0.946_678_528_081_582_6,
        0.255_701_169_898_328_4,
        0.0,
        0.0,
        0.0,
    ],
    [
        3.314_825_187_068_521,
        2.896_124_015_972_201,
        0.998_641_913_997_781_7,
        0.0,
        0.0,
    ],
    [
        1.221_224_509_226_641,
        6.019_134_481_288_629,
        12.537_083_329_320_87,
        -0.687_886_036_105_895,
        0.0,
    ],
    [
        1.221_224_509_226_641,
        6.019_134_481_288_629,
        12.537_083_329_320_87,
        -0.687_886_036_105_895,
        1.0,
    ],
];
/// `c_ij` (row i, j < i), from rodas.f.
const C: [[f64; 5]; STAGES] = [
    [0.0; 5],
    [-5.668_8, 0.0, 0.0, 0.0, 0.0],
    [
        -2.430_093_356_833_875,
        -0.206_359_915_709_191_5,
        0.0,
        0.0,
        0.0,
    ],
    [
        -0.107_352_905_815_137_5,
        -9.594_562_251_023_355,
        -20.470_286_148_096_16,
        0.0,
        0.0,
    ],
    [
        7.496_443_313_967_647,
        -10.246_804_314_643_52,
        -33.999_903_528_199_05,
        11.708_908_932_061_6,
        0.0,
    ],
    [
        8.083_246_795_921_522,
        -7.981_132_988_064_893,
        -31.521_594_328_743_71,
        16.319_305_431_231_36,
        -6.058_818_238_834_054,
    ],
];
/// Dense-output coefficients `d_2j`, `d_3j` (j = 1..5), from rodas.f.
const D2: [f64; 5] = [
    10.126_235_083_445_86,
    -7.487_995_877_610_167,
    -34.800_918_615_557_47,
    -7.992_771_707_568_823,
    1.025_137_723_295_662,
];
const D3: [f64; 5] = [
    -0.676_280_339_280_125_3,
    6.087_714_651_680_015,
    16.430_843_208_924_78,
    24.767_225_114_183_86,
    -6.594_389_125_716_872,
];

/// Safety factor of the step size controller.
const SAFE: f64 = 0.9;
/// Bounds of `h/h_new` (rodas.f's FAC2, FAC1): the step grows at most 6×, shrinks at most 5×.
const FAC_GROW: f64 = 1.0 / 6.0;
const FAC_SHRINK: f64 = 5.0;

/// Everything that determines the future steps of a [`Rodas4`] (see [`Stepper::save`]).
#[derive(Clone)]
pub struct Rodas4State {
    t: f64,
    y: Vec<f64>,
    /// `f(y)`, valid when `f0_valid` (evaluated when the next step needs it).
    f0: Vec<f64>,
    f0_valid: bool,
    /// Proposed size of the next step (before shortening to the stop time).
    h: f64,
    t_stop: f64,
    /// Last accepted step `[t_prev, t]`: its length, start state and dense coefficients.
    t_prev: f64,
    h_last: f64,
    y_prev: Vec<f64>,
    dense1: Vec<f64>,
    dense2: Vec<f64>,
    /// Jacobian at the current `y` (dropped when a step is accepted).
    jac: Option<Arc<DMatrix<f64>>>,
    /// The last attempt was rejected.
    reject: bool,
    /// Gustafsson's controller: last accepted step and its error, number of accepted steps.
    h_acc: f64,
    err_acc: f64,
    accepted: usize,
    /// Consecutive failures with a singular matrix / a non-finite value.
    singular_failures: usize,
    nonfinite_failures: usize,
}

/// Scratch vectors of one step attempt.
struct Work {
    /// Stage solutions `U_1..U_6`.
    u: [Vec<f64>; STAGES],
    /// Stage argument; after the last stage the embedded solution `ŷ1`.
    ytmp: Vec<f64>,
    ynew: Vec<f64>,
    scale: Vec<f64>,
    unit: Vec<f64>,
    col: Vec<f64>,
}

impl Work {
    fn new(n: usize) -> Self {
        let v = || vec![0.0; n];
        Work {
            u: [v(), v(), v(), v(), v(), v()],
            ytmp: v(),
            ynew: v(),
            scale: v(),
            unit: v(),
            col: v(),
        }
    }
}

/// Result of one step attempt.
#[derive(Debug)]
enum Attempt {
    /// All stages computed; `err` is the error estimate `‖U_6‖`.
    Done { err: f64 },
    /// `E` was singular.
    Singular,
    /// A stage or the error estimate was not finite.
    NonFinite,
}

/// RODAS4 stepper for `y' = f(y)` (module docs).
pub struct Rodas4<F> {
    f: F,
    n: usize,
    rtol: f64,
    atol: Vec<f64>,
    min_step: f64,
    s: Rodas4State,
    w: Work,
    stats: SolverStats,
}

impl<F: VectorField> Rodas4<F> {
    /// A stepper at time 0 from `y0`, with Hairer's automatic initial step.
    pub fn new(f: F, y0: &[f64], control: StepControl) -> Result<Self, String> {
        let n = f.dim();
        if y0.len() != n {
            return Err(format!(
                "{NAME}: initial state of length {} for a vector field of dimension {n}",
                y0.len()
            ));
        }
        check_tolerances(&control, n)?;
        let mut stats = SolverStats::default();
        let mut f0 = vec![0.0; n];
        eval_rhs(&f, y0, &mut f0, &mut stats);
        if !(dense::all_finite(y0) && dense::all_finite(&f0)) {
            return Err(format!(
                "{NAME}: the initial state or its derivative is not finite"
            ));
        }
        let h0 = dense::initial_step(&f, y0, &f0, &control.atol, control.rtol, ORDER, &mut stats)
            .max(control.min_step);
        let s = Rodas4State {
            t: 0.0,
            y: y0.to_vec(),
            f0,
            f0_valid: true,
            h: h0,
            t_stop: f64::INFINITY,
            t_prev: 0.0,
            h_last: 0.0,
            y_prev: y0.to_vec(),
            dense1: vec![0.0; n],
            dense2: vec![0.0; n],
            jac: None,
            reject: false,
            h_acc: 0.0,
            err_acc: 1e-2,
            accepted: 0,
            singular_failures: 0,
            nonfinite_failures: 0,
        };
        Ok(Rodas4 {
            f,
            n,
            rtol: control.rtol,
            atol: control.atol,
            min_step: control.min_step,
            s,
            w: Work::new(n),
            stats,
        })
    }

    /// One attempt of a step of size `h`: the six stages and the error estimate. Errors only
    /// when the current (accepted) state itself is unusable.
    fn attempt(&mut self, h: f64) -> Result<Attempt, String> {
        self.ensure_f0()?;
        let jac = self.jacobian()?;
        let lu = dense::factor_shifted(&jac, 1.0 / (GAMMA * h));
        self.stats.lu_factorisations += 1;
        let Some(lu) = lu else {
            return Ok(Attempt::Singular);
        };
        let Self {
            f, n, s, w, stats, ..
        } = self;
        let n = *n;
        for i in 0..STAGES {
            // Right-hand side f(y0 + Σ a_ij U_j) + Σ (c_ij/h) U_j, then U_i = E⁻¹ (it).
            let (done, rest) = w.u.split_at_mut(i);
            let ui = &mut rest[0];
            if i == 0 {
                ui.copy_from_slice(&s.f0);
            } else {
                for (m, yt) in w.ytmp.iter_mut().enumerate() {
                    *yt = s.y[m] + (0..i).map(|j| A[i][j] * done[j][m]).sum::<f64>();
                }
                eval_rhs(f, &w.ytmp, ui, stats);
                for (m, r) in ui.iter_mut().enumerate() {
                    *r += (0..i).map(|j| C[i][j] * done[j][m]).sum::<f64>() / h;
                }
            }
            if !dense::lu_solve(&lu, ui) || !dense::all_finite(ui) {
                return Ok(Attempt::NonFinite);
            }
        }
        // Stiffly accurate: y1 = ŷ1 + U_6, with ŷ1 the argument of the 6th stage.
        for m in 0..n {
            w.ynew[m] = w.ytmp[m] + w.u[STAGES - 1][m];
        }
        dense::error_scale(&self.atol, self.rtol, &s.y, &w.ynew, &mut w.scale);
        let err = dense::wrms(&w.u[STAGES - 1], &w.scale);
        Ok(if err.is_finite() {
            Attempt::Done { err }
        } else {
            Attempt::NonFinite
        })
    }

    fn ensure_f0(&mut self) -> Result<(), String> {
        let s = &mut self.s;
        if !s.f0_valid {
            eval_rhs(&self.f, &s.y, &mut s.f0, &mut self.stats);
            if !dense::all_finite(&s.f0) {
                return Err(format!("{NAME}: f(y) is not finite at t = {:e}", s.t));
            }
            s.f0_valid = true;
        }
        Ok(())
    }

    /// The Jacobian at the current state (evaluated once per state).
    fn jacobian(&mut self) -> Result<Arc<DMatrix<f64>>, String> {
        let s = &mut self.s;
        if let Some(jac) = &s.jac {
            return Ok(Arc::clone(jac));
        }
        let w = &mut self.w;
        let jac = dense::full_jacobian(&self.f, &s.y, &mut w.unit, &mut w.col, &mut self.stats);
        if !jac.iter().all(|x| x.is_finite()) {
            return Err(format!(
                "{NAME}: the Jacobian is not finite at t = {:e}",
                s.t
            ));
        }
        let jac = Arc::new(jac);
        s.jac = Some(Arc::clone(&jac));
        Ok(jac)
    }

    /// Accept the attempted step of size `h` (`last`: it ends at the stop time): new state,
    /// dense output and the next step size.
    fn accept(&mut self, h: f64, last: bool, err: f64) {
        let s = &mut self.s;
        let q_raw = err.powf(0.25) / SAFE;
        let mut quot = q_raw.clamp(FAC_GROW, FAC_SHRINK);
        if s.accepted >= 1 {
            // Gustafsson's predictive controller, as in RODAS.
            let facgus = (s.h_acc / h) * (err * err / s.err_acc).powf(0.25) / SAFE;
            quot = quot.max(facgus.clamp(FAC_GROW, FAC_SHRINK));
        }
        s.accepted += 1;
        s.h_acc = h;
        s.err_acc = err.max(1e-2);
        let mut h_new = h / quot;
        if last && h < s.h {
            // The step was shortened to land on the stop time: keep the earlier proposal,
            // shrunk by the controller's factor if this step's error asks for a smaller one.
            h_new = s.h * (h_new / h).min(1.0);
        }
        if s.reject {
            h_new = h_new.min(if last { s.h } else { h });
        }
        h_new = h_new.min(dense::MAX_STEP);
        self.advance(h, last);
        let s = &mut self.s;
        s.reject = false;
        s.singular_failures = 0;
        s.nonfinite_failures = 0;
        s.h = h_new;
    }

    /// Move to the end of the accepted step and store its dense output.
    fn advance(&mut self, h: f64, last: bool) {
        let (s, w) = (&mut self.s, &self.w);
        s.t_prev = s.t;
        s.h_last = h;
        s.t = if last { s.t_stop } else { s.t + h };
        for m in 0..self.n {
            s.dense1[m] = (0..5).map(|j| D2[j] * w.u[j][m]).sum();
            s.dense2[m] = (0..5).map(|j| D3[j] * w.u[j][m]).sum();
        }
        s.y_prev.copy_from_slice(&s.y);
        s.y.copy_from_slice(&w.ynew);
        s.f0_valid = false;
        s.jac = None;
        self.stats.steps += 1;
    }

    /// Record a failed attempt and propose `h_new` for the next one (J is kept: the state did
    /// not change).
    fn reject(&mut self, h_new: f64) {
        self.stats.rejected_steps += 1;
        self.s.reject = true;
        self.s.h = h_new;
    }
}

fn check_tolerances(control: &StepControl, n: usize) -> Result<(), String> {
    let rtol = control.rtol;
    if !(rtol.is_finite() && rtol > 0.0) {
        return Err(format!("{NAME}: rtol = {rtol:e} must be positive"));
    }
    if control.atol.len() != n {
        return Err(format!(
            "{NAME}: {} absolute tolerances for a state of length {n}",
            control.atol.len()
        ));
    }
    if let Some(a) = control.atol.iter().find(|a| !(a.is_finite() && **a > 0.0)) {
        return Err(format!("{NAME}: absolute tolerance {a:e} must be positive"));
    }
    Ok(())
}

#[cfg(test)]
impl<F: VectorField> Rodas4<F> {
    /// One step of exactly `h`, accepted whatever its error estimate (for the order tests).
    fn force_step(&mut self, h: f64) -> f64 {
        match self.attempt(h).unwrap() {
            Attempt::Done { err } => {
                self.accept(h, false, err);
                err
            }
            other => panic!("forced step of {h} failed: {other:?}"),
        }
    }
}

impl<F: VectorField> Stepper for Rodas4<F> {
    type Saved = Rodas4State;

    fn time(&self) -> f64 {
        self.s.t
    }

    fn state(&self, out: &mut [f64]) {
        for (o, y) in out.iter_mut().zip(&self.s.y) {
            *o = *y;
        }
    }

    fn step(&mut self) -> Result<bool, String> {
        loop {
            let s = &self.s;
            if s.h.is_nan() || s.h < self.min_step {
                return Err(dense::min_step_message(NAME, s.t, s.h, self.min_step));
            }
            let (h, last) = dense::clip_to_stop(s.t, s.h, s.t_stop);
            if !last && s.t + h == s.t {
                return Err(format!(
                    "{NAME}: step size {h:e} vanishes against t = {:e}",
                    s.t
                ));
            }
            match self.attempt(h)? {
                Attempt::Done { err } if err <= 1.0 => {
                    self.accept(h, last, err);
                    return Ok(last);
                }
                Attempt::Done { err } => {
                    let quot = (err.powf(0.25) / SAFE).clamp(FAC_GROW, FAC_SHRINK);
                    self.reject(h / quot);
                }
                Attempt::Singular => {
                    self.s.singular_failures += 1;
                    if self.s.singular_failures >= dense::MAX_SINGULAR {
                        return Err(format!(
                            "{NAME}: iteration matrix repeatedly singular at t = {:e} (h = {h:e})",
                            self.s.t
                        ));
                    }
                    self.reject(0.5 * h);
                }
                Attempt::NonFinite => {
                    self.s.nonfinite_failures += 1;
                    if self.s.nonfinite_failures >= dense::MAX_NONFINITE_FAILURES {
                        return Err(format!(
                            "{NAME}: non-finite values in {} consecutive attempts at t = {:e} (h = {h:e})",
                            self.s.nonfinite_failures, self.s.t
                        ));
                    }
                    self.reject(0.5 * h);
                }
            }
        }
    }

    fn set_stop_time(&mut self, t: f64) -> Result<(), String> {
        dense::check_stop_time(NAME, self.s.t, t)?;
        self.s.t_stop = t;
        Ok(())
    }

    fn interpolate(&self, t: f64, out: &mut [f64]) -> Result<(), String> {
        let s = &self.s;
        dense::check_interpolation_time(NAME, t, s.t_prev, s.t)?;
        if s.h_last == 0.0 {
            self.state(out);
            return Ok(());
        }
        let x = (t - s.t_prev) / s.h_last;
        for (m, o) in out.iter_mut().enumerate().take(self.n) {
            *o = (1.0 - x) * s.y_prev[m]
                + x * (s.y[m] + (1.0 - x) * (s.dense1[m] + x * s.dense2[m]));
        }
        Ok(())
    }

    fn save(&self) -> Self::Saved {
        self.s.clone()
    }

    fn restore(&mut self, saved: Self::Saved) {
        self.s = saved;
    }

    fn stats(&self) -> SolverStats {
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::super::dense::testing::*;
    use super::*;

    fn tight() -> StepControl {
        control(1e-13, 1e-13, 4)
    }

    /// Hairer's implementation form back to the standard Rosenbrock coefficients (HW II
    /// §IV.7): `Γ = ((1/γ) I − C)⁻¹`, `α = A Γ`, weights `bᵀ = mᵀ Γ`. The stage times
    /// `α_i = Σ_j α_ij` and `γ_i = Σ_j γ_ij` must be rodas.f's (C2..C4, D1..D4), and both the
    /// solution (m = (a_5j, 1, 1)) and the embedded solution (m̂ = (a_5j, 1, 0)) must satisfy
    /// the Rosenbrock order conditions up to order 3 (HW II §IV.7, order conditions).
    #[test]
    fn tableau_satisfies_the_order_conditions() {
        let inv_gamma = DMatrix::from_fn(STAGES, STAGES, |i, j| match i.cmp(&j) {
            std::cmp::Ordering::Equal => 1.0 / GAMMA,
            std::cmp::Ordering::Greater => -C[i][j],
            std::cmp::Ordering::Less => 0.0,
        });
        let gam = inv_gamma.try_inverse().unwrap();
        let a = DMatrix::from_fn(STAGES, STAGES, |i, j| if j < i { A[i][j] } else { 0.0 });
        let alpha = &a * &gam;
        let alpha_i: Vec<f64> = (0..STAGES).map(|i| alpha.row(i).sum()).collect();
        let gamma_i: Vec<f64> = (0..STAGES).map(|i| gam.row(i).sum()).collect();
        let times = [0.0, 0.386, 0.21, 0.63, 1.0, 1.0];
        let gammas = [0.25, -0.1043, 0.1035, -0.0362, 0.0, 0.0];
        for i in 0..STAGES {
            assert!((alpha_i[i] - times[i]).abs() < 1e-12, "α_{i}");
            assert!((gamma_i[i] - gammas[i]).abs() < 1e-12, "γ_{i}");
        }
        // β_ij = α_ij + γ_ij below the diagonal, β'_i = Σ_j β_ij.
        let beta = DMatrix::from_fn(STAGES, STAGES, |i, j| {
            if j < i {
                alpha[(i, j)] + gam[(i, j)]
            } else {
                0.0
            }
        });
        let beta_i: Vec<f64> = (0..STAGES).map(|i| beta.row(i).sum()).collect();
        let g = GAMMA;
        for last_weight in [1.0, 0.0] {
            let m = DMatrix::from_row_slice(
                1,
                STAGES,
                &[A[4][0], A[4][1], A[4][2], A[4][3], 1.0, last_weight],
            );
            let b = &m * &gam;
            let sum = |w: &dyn Fn(usize) -> f64| (0..STAGES).map(|i| b[i] * w(i)).sum::<f64>();
            let conditions = [
                (sum(&|_| 1.0), 1.0),
                (sum(&|i| alpha_i[i] + gamma_i[i]), 0.5),
                (sum(&|i| alpha_i[i] * alpha_i[i]), 1.0 / 3.0),
                (
                    sum(&|i| (0..STAGES).map(|k| beta[(i, k)] * beta_i[k]).sum()),
                    1.0 / 6.0 - g + g * g,
                ),
            ];
            for (k, (value, target)) in conditions.into_iter().enumerate() {
                assert!(
                    (value - target).abs() < 1e-12,
                    "order condition {k} (m_6 = {last_weight}): {value} ≠ {target}"
                );
            }
        }
    }

    /// Local error of one step from the exact initial value on Kepler's problem: O(h⁵).
    #[test]
    fn local_error_has_order_five() {
        let y0 = Kepler::exact(0.0);
        let hs = [0.2, 0.1, 0.05];
        let errs: Vec<f64> = hs
            .iter()
            .map(|&h| {
                let mut st = Rodas4::new(Kepler, &y0, tight()).unwrap();
                st.force_step(h);
                let mut y = vec![0.0; 4];
                st.state(&mut y);
                max_abs_diff(&y, &Kepler::exact(h))
            })
            .collect();
        let orders = observed_orders(&hs, &errs);
        eprintln!("rodas4 local errors {errs:?}, observed orders {orders:?}");
        for p in orders {
            assert!((p - 5.0).abs() <= 0.5, "observed local order {p}");
        }
    }

    /// Dense output inside one step: error O(h⁴) (order 3).
    #[test]
    fn dense_output_has_order_three() {
        let y0 = Kepler::exact(0.0);
        let hs = [0.2, 0.1, 0.05];
        let errs: Vec<f64> = hs
            .iter()
            .map(|&h| {
                let mut st = Rodas4::new(Kepler, &y0, tight()).unwrap();
                st.force_step(h);
                let mut y = vec![0.0; 4];
                (1..10)
                    .map(|k| {
                        let t = h * k as f64 / 10.0;
                        st.interpolate(t, &mut y).unwrap();
                        max_abs_diff(&y, &Kepler::exact(t))
                    })
                    .fold(0.0, f64::max)
            })
            .collect();
        let orders = observed_orders(&hs, &errs);
        eprintln!("rodas4 dense-output errors {errs:?}, observed orders {orders:?}");
        for p in orders {
            assert!((p - 4.0).abs() <= 0.5, "observed dense-output order {p}");
        }
    }

    /// λ = 1e6 over [0, 1], on the slow solution and through an initial transient: few steps
    /// (an explicit method needs ~1e6), error at the tolerance level.
    #[test]
    fn stiff_problem_takes_few_steps() {
        for y0 in [1.0, 2.0] {
            let (err, steps, rejected) = run_stiff(|f, y, c| Rodas4::new(f, y, c).unwrap(), y0);
            eprintln!(
                "rodas4 stiff from y0 = {y0}: {steps} steps, {rejected} rejected, error {err:e}"
            );
            assert!(steps < 200, "{steps} steps");
            assert!(err < 1e-5, "error {err:e}");
        }
    }

    /// Global error on [0, 10] falls with rtol and stays within 100·rtol.
    #[test]
    fn global_error_follows_the_tolerance() {
        let mut last = f64::INFINITY;
        for rtol in [1e-4, 1e-8, 1e-11] {
            let mut st =
                Rodas4::new(Oscillator, &Oscillator::exact(0.0), control(rtol, rtol, 2)).unwrap();
            let (err, steps) = run_against(&mut st, 2, 10.0, Oscillator::exact);
            eprintln!("rodas4 rtol {rtol:e}: global error {err:e} in {steps} steps");
            assert!(err < last, "error {err:e} did not fall (was {last:e})");
            assert!(err <= 100.0 * rtol, "error {err:e} at rtol {rtol:e}");
            last = err;
        }
    }

    #[test]
    fn keeps_the_stepper_contract() {
        let st = Rodas4::new(Kepler, &Kepler::exact(0.0), control(1e-6, 1e-8, 4)).unwrap();
        check_contract(st, 4);
    }

    #[test]
    fn reports_a_blow_up() {
        let st = Rodas4::new(BlowUp, &[1.0], control(1e-6, 1e-6, 1)).unwrap();
        let message = check_blow_up_is_reported(st);
        eprintln!("rodas4 blow-up: {message}");
        assert!(message.starts_with(NAME));
    }

    /// An impact-like start: zeros in some components, absolute tolerances down to 1e-26.
    #[test]
    fn starts_from_zeros_with_tiny_absolute_tolerances() {
        let y0 = [1.0, 0.0, 0.0, 1.0];
        let mut c = control(1e-6, 1e-26, 4);
        c.atol[0] = 1e-8;
        let mut st = Rodas4::new(Kepler, &y0, c).unwrap();
        st.advance_to(0.5).unwrap();
        let mut y = [0.0; 4];
        st.state(&mut y);
        assert!(max_abs_diff(&y, &Kepler::exact(0.5)) < 1e-6);
    }
}
