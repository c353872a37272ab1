//! Radau IIA with three stages, order 5: Hairer–Wanner's RADAU5 scheme (E. Hairer, G. Wanner,
//! Solving Ordinary Differential Equations II, 2nd ed., §IV.8 "Implementation of Implicit
//! Runge–Kutta Methods", and the code RADAU5) on the [`Stepper`] contract.
//!
//! - Stage equations for the increments `Z_i = Y_i − y0` (§IV.8, "Reformulation of the
//!   nonlinear system"), solved by the simplified Newton iteration with the Jacobian at `y0`
//!   in the transformed variables `W = T⁻¹Z` (§IV.8, "Simplified Newton iterations"): since
//!   `T⁻¹A⁻¹T = [[γ, 0, 0], [0, α, −β], [0, β, α]]`, the 3n×3n linear system splits into the
//!   real system `E1 = (γ/h) I − J` and the complex system `E2 = ((α + iβ)/h) I − J`.
//! - Starting values: the previous step's collocation polynomial extrapolated to the new
//!   stages, zero in the first step (§IV.8, "Starting values for the Newton iteration").
//! - Stopping criterion `η ‖ΔW_k‖ ≤ fnewt`, `η = θ/(1 − θ)` with the observed contraction rate
//!   θ, and the early abort (smaller step) when θ predicts that the iteration will not meet it
//!   within NIT = 7 iterations (§IV.8, "Stopping criterion"; RADAU5's FACCON, DYTH, QNEWT).
//! - Error estimate `err = E1⁻¹ (f(y0) + Σ_i (dd_i/h) Z_i)`, i.e.
//!   `(I − hγ0 J)⁻¹ (γ0 h f(y0) + Σ_i e_i Z_i)` with `γ0 = 1/γ`, `e_i = γ0 dd_i`; in the first
//!   step and after a rejection, an estimate above 1 is replaced by
//!   `E1⁻¹ (f(y0 + err) + Σ_i (dd_i/h) Z_i)` (§IV.8, "Error estimation"; RADAU5's ESTRAD).
//! - Step size: `h_new = h / clamp(err^(1/4)/fac, 1/8, 5)`, `fac = min(0.9, 0.9 (1 + 2 NIT) /
//!   (newt + 2 NIT))` (newt: Newton iterations used), and Gustafsson's predictive controller,
//!   `h_new = min(h_new, h²/h_acc · (err_acc/err²)^(1/4) · 0.9)` (§IV.8, "Step size selection").
//! - Jacobian reuse (RADAU5's rule): J is kept after a step whose Newton iteration contracted
//!   fast (θ ≤ 0.001); if moreover `h_new/h ∈ [1, 1.2]`, the step size is kept too, and with it
//!   the LU factorisations.
//! - Dense output: the collocation polynomial of the last step, degree 3, error O(h⁴) inside the
//!   step (dense output of order 3): with `s = (t − t_n)/h ∈ [−1, 0]`,
//!   `u(t) = y_n + s (k1 + (s − (c2 − 1)) (k2 + (s − (c1 − 1)) k3))`, where `k1, k2, k3` are the
//!   divided differences of the values `y_n, Y2, Y1, y_{n−1}` at `s = 0, c2 − 1, c1 − 1, −1`
//!   (RADAU5's CONT and CONTR5).
//!
//! Tolerances, as in RADAU5: the caller's `(rtol, atol_i)` become the internal
//! `rtol' = 0.1 rtol^(2/3)`, `atol_i' = atol_i · rtol'/rtol`, because the embedded estimate has
//! order 3 while the method has order 5 (a caller's rtol of 1e-6 is tested at 1e-5 internally).
//! With it, the global errors at a given rtol are close to the other integrators' (tests:
//! harmonic oscillator on [0, 10], error 0.4–6 × rtol). The error test uses
//! `sc_i = atol_i' + rtol'·max(|y0_i|, |y1_i|)` (RADAU5 uses |y0_i| only), the Newton norm
//! `atol_i' + rtol'·|y0_i|`.
//!
//! Work counted: every `f` (3 per Newton iteration, 1 per new state, 1 for a refined error
//! estimate, 2 for the initial step), `n` JVPs per Jacobian, 2 LU factorisations (E1, real,
//! and E2, complex) per decomposition, one Newton iteration per solve of the 3n×3n system.

use super::dense::{self, eval_rhs};
use super::{SolverStats, StepControl, Stepper, VectorField};
use nalgebra::{Complex, DMatrix, Dyn, LU};
use std::sync::Arc;

const NAME: &str = "Radau5";
/// Classical order (used by the initial step choice).
const ORDER: u32 = 5;

/// Collocation nodes `c1 = (4 − √6)/10`, `c2 = (4 + √6)/10`, `c3 = 1`.
const C1: f64 = 0.155_051_025_721_682_2;
const C2: f64 = 0.644_948_974_278_317_8;
const C1M1: f64 = C1 - 1.0;
const C2M1: f64 = C2 - 1.0;
const C1MC2: f64 = C1 - C2;
/// Error-estimate weights (Hairer's DD1..DD3): `−(13 + 7√6)/3`, `(−13 + 7√6)/3`, `−1/3`.
const DD: [f64; 3] = [-10.048_809_399_827_414, 1.382_142_733_160_748, -1.0 / 3.0];
/// Real eigenvalue γ of `A⁻¹` (Hairer's U1 after inversion).
const GAMMA: f64 = 3.637_834_252_744_496;
/// Complex eigenvalues `α ± iβ` of `A⁻¹`.
const ALPHA: f64 = 2.681_082_873_627_752_3;
const BETA: f64 = 3.050_430_199_247_410_5;
/// `T` with `T⁻¹ A⁻¹ T = [[γ, 0, 0], [0, α, −β], [0, β, α]]` (Hairer's T11..T33).
const T: [[f64; 3]; 3] = [
    [
        0.091_232_394_870_892_95,
        -0.141_255_295_020_954_2,
        -0.030_029_194_105_147_424,
    ],
    [
        0.241_717_932_707_107,
        0.204_129_352_293_799_94,
        0.382_942_112_757_261_9,
    ],
    [0.966_048_182_615_093, 1.0, 0.0],
];
/// `T⁻¹` (Hairer's TI11..TI33).
const TI: [[f64; 3]; 3] = [
    [
        4.325_579_890_063_155,
        0.339_199_251_815_809_84,
        0.541_770_539_935_874_9,
    ],
    [
        -4.178_718_591_551_905,
        -0.327_682_820_761_062_37,
        0.476_623_554_500_550_44,
    ],
    [
        -0.502_872_634_945_786_8,
        2.571_926_949_855_605,
        -0.596_039_204_828_224_9,
    ],
];

/// Maximum Newton iterations per step (Hairer's NIT).
const NIT: usize = 7;
/// Keep the Jacobian when the Newton contraction rate θ is at most this (Hairer's THET).
const THET: f64 = 0.001;
/// Safety factor of the step size controller.
const SAFE: f64 = 0.9;
/// Safety factor that also accounts for the Newton iterations used (Hairer's CFAC).
const CFAC: f64 = SAFE * (1.0 + 2.0 * NIT as f64);
/// Bounds of `h/h_new`: the step shrinks at most 5×, grows at most 8×.
const FACL: f64 = 5.0;
const FACR: f64 = 1.0 / 8.0;
/// Keep h (and the LU) when the proposed factor `h_new/h` lies in `[QUOT1, QUOT2]`.
const QUOT1: f64 = 1.0;
const QUOT2: f64 = 1.2;
/// Largest ratio of the new to the last step for which the Newton starting values are
/// extrapolated from the last collocation polynomial (the controller's own growth limit, 1/FACR).
const MAX_EXTRAPOLATION: f64 = 1.0 / FACR;
/// Hairer's unit round-off.
const UROUND: f64 = 1e-16;
/// Lower bound of the error estimate (as in RADAU5).
const ERR_FLOOR: f64 = 1e-10;

/// Internal tolerances of RADAU5 (module docs).
#[derive(Clone, Debug)]
struct Tolerances {
    rtol: f64,
    atol: Vec<f64>,
    /// Newton stopping tolerance, relative to the error scale.
    fnewt: f64,
}

impl Tolerances {
    fn new(control: &StepControl, n: usize) -> Result<Self, String> {
        let rtol = control.rtol;
        if !(rtol.is_finite() && rtol > 10.0 * UROUND) {
            return Err(format!("{NAME}: rtol = {rtol:e} must exceed 1e-15"));
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
        let rtol_internal = 0.1 * rtol.powf(2.0 / 3.0);
        let atol = control
            .atol
            .iter()
            .map(|a| a * rtol_internal / rtol)
            .collect();
        let fnewt = (10.0 * UROUND / rtol_internal).max(0.03_f64.min(rtol_internal.sqrt()));
        Ok(Tolerances {
            rtol: rtol_internal,
            atol,
            fnewt,
        })
    }
}

/// LU factorisations of `E1 = (γ/h) I − J` and `E2 = ((α + iβ)/h) I − J` for one `h`.
struct Factors {
    h: f64,
    e1: LU<f64, Dyn, Dyn>,
    e2: LU<Complex<f64>, Dyn, Dyn>,
}

/// Everything that determines the future steps of a [`Radau5`] (see [`Stepper::save`]).
/// The Jacobian and the factorisations are shared, not copied, between saved states.
#[derive(Clone)]
pub struct Radau5State {
    t: f64,
    y: Vec<f64>,
    /// `f(y)`, valid when `f0_valid` (evaluated when the next step needs it).
    f0: Vec<f64>,
    f0_valid: bool,
    /// Proposed size of the next step (before shortening to the stop time).
    h: f64,
    t_stop: f64,
    /// Last accepted step `[t_prev, t]`, its length and its collocation polynomial
    /// (divided differences `k1, k2, k3`, each of length n, one after the other).
    t_prev: f64,
    h_last: f64,
    cont: Vec<f64>,
    jac: Option<Arc<DMatrix<f64>>>,
    /// The Jacobian was evaluated at the current `y` (Hairer's CALJAC).
    jac_current: bool,
    factors: Option<Arc<Factors>>,
    /// No step accepted yet (zero Newton starting values, refined error estimate).
    first: bool,
    /// The last attempt was rejected.
    reject: bool,
    /// Newton: `η` carried between steps (Hairer's FACCON) and the last contraction rate.
    faccon: f64,
    theta: f64,
    /// Gustafsson's controller: last accepted step and its error, number of accepted steps.
    h_acc: f64,
    err_acc: f64,
    accepted: usize,
    /// Consecutive failures with a singular matrix / a non-finite value.
    singular_failures: usize,
    nonfinite_failures: usize,
}

/// Scratch vectors of one step attempt (their contents never outlive a call of `step`).
struct Work {
    /// Stage increments `Z_i`.
    z: [Vec<f64>; 3],
    /// Transformed increments `W = T⁻¹ Z`.
    w: [Vec<f64>; 3],
    /// Stage derivatives `f(y0 + Z_i)`, then the real Newton correction in `k[0]`.
    k: [Vec<f64>; 3],
    /// The complex Newton correction `ΔW2 + iΔW3`.
    c: Vec<Complex<f64>>,
    ytmp: Vec<f64>,
    scale: Vec<f64>,
    err: Vec<f64>,
    f2: Vec<f64>,
    unit: Vec<f64>,
    col: Vec<f64>,
}

impl Work {
    fn new(n: usize) -> Self {
        let v = || vec![0.0; n];
        Work {
            z: [v(), v(), v()],
            w: [v(), v(), v()],
            k: [v(), v(), v()],
            c: vec![Complex::new(0.0, 0.0); n],
            ytmp: v(),
            scale: v(),
            err: v(),
            f2: v(),
            unit: v(),
            col: v(),
        }
    }
}

/// Result of one step attempt.
#[derive(Debug)]
enum Attempt {
    /// The Newton iteration converged in `newt` iterations; `err` is the error estimate.
    Converged { err: f64, newt: usize },
    /// The Newton iteration failed or was predicted to: retry with `h·factor`.
    NewtonFailed { factor: f64 },
    /// An iteration matrix was singular.
    Singular,
    /// A stage, correction or error estimate was not finite.
    NonFinite,
}

/// Radau IIA (order 5) stepper for `y' = f(y)` (module docs).
pub struct Radau5<F> {
    f: F,
    n: usize,
    tol: Tolerances,
    min_step: f64,
    s: Radau5State,
    w: Work,
    stats: SolverStats,
}

impl<F: VectorField> Radau5<F> {
    /// A stepper at time 0 from `y0`, with Hairer's automatic initial step.
    pub fn new(f: F, y0: &[f64], control: StepControl) -> Result<Self, String> {
        let n = f.dim();
        if y0.len() != n {
            return Err(format!(
                "{NAME}: initial state of length {} for a vector field of dimension {n}",
                y0.len()
            ));
        }
        let tol = Tolerances::new(&control, n)?;
        let mut stats = SolverStats::default();
        let mut f0 = vec![0.0; n];
        eval_rhs(&f, y0, &mut f0, &mut stats);
        if !(dense::all_finite(y0) && dense::all_finite(&f0)) {
            return Err(format!(
                "{NAME}: the initial state or its derivative is not finite"
            ));
        }
        let h0 = dense::initial_step(&f, y0, &f0, &tol.atol, tol.rtol, ORDER, &mut stats)
            .max(control.min_step);
        let s = Radau5State {
            t: 0.0,
            y: y0.to_vec(),
            f0,
            f0_valid: true,
            h: h0,
            t_stop: f64::INFINITY,
            t_prev: 0.0,
            h_last: 0.0,
            cont: vec![0.0; 3 * n],
            jac: None,
            jac_current: false,
            factors: None,
            first: true,
            reject: false,
            faccon: 1.0,
            theta: THET,
            h_acc: 0.0,
            err_acc: 1e-2,
            accepted: 0,
            singular_failures: 0,
            nonfinite_failures: 0,
        };
        Ok(Radau5 {
            f,
            n,
            tol,
            min_step: control.min_step,
            s,
            w: Work::new(n),
            stats,
        })
    }

    /// One attempt of a step of size `h` from the current state: Newton iteration and error
    /// estimate. Errors only when the current (accepted) state itself is unusable.
    fn attempt(&mut self, h: f64) -> Result<Attempt, String> {
        self.ensure_f0()?;
        self.ensure_jacobian()?;
        let Some(factors) = self.factors_for(h) else {
            return Ok(Attempt::Singular);
        };
        let newt = match self.newton(h, &factors) {
            Ok(newt) => newt,
            Err(failure) => return Ok(failure),
        };
        let err = self.error_estimate(h, &factors);
        Ok(if err.is_finite() {
            Attempt::Converged { err, newt }
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

    fn ensure_jacobian(&mut self) -> Result<(), String> {
        let s = &mut self.s;
        if s.jac.is_none() {
            let w = &mut self.w;
            let jac = dense::full_jacobian(&self.f, &s.y, &mut w.unit, &mut w.col, &mut self.stats);
            if !jac.iter().all(|x| x.is_finite()) {
                return Err(format!(
                    "{NAME}: the Jacobian is not finite at t = {:e}",
                    s.t
                ));
            }
            s.jac = Some(Arc::new(jac));
            s.jac_current = true;
            s.factors = None;
        }
        Ok(())
    }

    /// The factorisations of E1 and E2 for `h` (reused if J and h are unchanged); None if
    /// either matrix is singular.
    fn factors_for(&mut self, h: f64) -> Option<Arc<Factors>> {
        let s = &mut self.s;
        if let Some(factors) = s.factors.as_ref().filter(|fs| fs.h == h) {
            return Some(Arc::clone(factors));
        }
        s.factors = None;
        let jac = s.jac.as_ref()?;
        let e1 = dense::factor_shifted(jac, GAMMA / h);
        let e2 = dense::factor_shifted_complex(jac, Complex::new(ALPHA / h, BETA / h));
        self.stats.lu_factorisations += 2;
        let factors = Arc::new(Factors {
            h,
            e1: e1?,
            e2: e2?,
        });
        s.factors = Some(Arc::clone(&factors));
        Some(factors)
    }

    /// Newton starting values `Z_i` (and `W = T⁻¹Z`): the previous step's collocation
    /// polynomial extrapolated to `t + c_i h`; zero in the first step and when the new step
    /// is more than [`MAX_EXTRAPOLATION`] times the last one (after a step shortened to a stop
    /// time, where the polynomial of a tiny step would be extrapolated far out).
    fn starting_values(&mut self, h: f64) {
        let (s, w, n) = (&self.s, &mut self.w, self.n);
        let c3q = h / s.h_last;
        if s.first || c3q.is_nan() || c3q > MAX_EXTRAPOLATION {
            for v in w.z.iter_mut().chain(w.w.iter_mut()) {
                v.fill(0.0);
            }
            return;
        }
        let cq = [C1 * c3q, C2 * c3q, c3q];
        for i in 0..n {
            let (k1, k2, k3) = (s.cont[i], s.cont[n + i], s.cont[2 * n + i]);
            let z: [f64; 3] = cq.map(|q| q * (k1 + (q - C2M1) * (k2 + (q - C1M1) * k3)));
            let wi = mul3(&TI, z);
            for st in 0..3 {
                w.z[st][i] = z[st];
                w.w[st][i] = wi[st];
            }
        }
    }

    /// The simplified Newton iteration in transformed variables (module docs). Ok(number of
    /// iterations) when converged, Err(the failure) otherwise.
    fn newton(&mut self, h: f64, factors: &Factors) -> Result<usize, Attempt> {
        self.starting_values(h);
        let Self {
            f,
            n,
            tol,
            s,
            w,
            stats,
            ..
        } = self;
        let n = *n;
        dense::state_scale(&tol.atol, tol.rtol, &s.y, &mut w.scale);
        let gam = GAMMA / h;
        let lam = Complex::new(ALPHA / h, BETA / h);
        s.faccon = s.faccon.max(UROUND).powf(0.8);
        s.theta = THET;
        let (mut dyn_old, mut thq_old) = (0.0, 0.0);
        for newt in 1..=NIT {
            for st in 0..3 {
                for i in 0..n {
                    w.ytmp[i] = s.y[i] + w.z[st][i];
                }
                eval_rhs(f, &w.ytmp, &mut w.k[st], stats);
            }
            // Residuals of the transformed system; the corrections ΔW1 (real, into k[0]) and
            // ΔW2 + iΔW3 (complex, into c) solve E1 ΔW1 = r1, E2 (ΔW2 + iΔW3) = r2 + i r3.
            for i in 0..n {
                let v = mul3(&TI, [w.k[0][i], w.k[1][i], w.k[2][i]]);
                w.k[0][i] = v[0] - gam * w.w[0][i];
                w.c[i] = Complex::new(v[1], v[2]) - lam * Complex::new(w.w[1][i], w.w[2][i]);
            }
            let solved = dense::lu_solve(&factors.e1, &mut w.k[0])
                && dense::lu_solve_complex(&factors.e2, &mut w.c);
            stats.newton_iterations += 1;
            if !solved {
                return Err(Attempt::Singular);
            }
            let dyno = newton_norm(&w.k[0], &w.c, &w.scale);
            if !dyno.is_finite() {
                return Err(Attempt::NonFinite);
            }
            // Convergence rate θ and the predicted failure (HW II §IV.8, stopping criterion).
            if newt > 1 && newt < NIT {
                let thq = dyno / dyn_old;
                s.theta = if newt == 2 {
                    thq
                } else {
                    (thq * thq_old).sqrt()
                };
                thq_old = thq;
                if s.theta >= 0.99 {
                    return Err(Attempt::NewtonFailed { factor: 0.5 });
                }
                s.faccon = s.theta / (1.0 - s.theta);
                let left = (NIT - 1 - newt) as i32;
                let dyth = s.faccon * dyno * s.theta.powi(left) / tol.fnewt;
                if dyth >= 1.0 {
                    let qnewt = dyth.clamp(1e-4, 20.0);
                    let factor = 0.8 * qnewt.powf(-1.0 / (4.0 + left as f64));
                    return Err(Attempt::NewtonFailed { factor });
                }
            }
            dyn_old = dyno.max(UROUND);
            for i in 0..n {
                w.w[0][i] += w.k[0][i];
                w.w[1][i] += w.c[i].re;
                w.w[2][i] += w.c[i].im;
                let z = mul3(&T, [w.w[0][i], w.w[1][i], w.w[2][i]]);
                for (st, zs) in z.into_iter().enumerate() {
                    w.z[st][i] = zs;
                }
            }
            if s.faccon * dyno <= tol.fnewt {
                return Ok(newt);
            }
        }
        Err(Attempt::NewtonFailed { factor: 0.5 })
    }

    /// Hairer's error estimate (module docs; HW II §IV.8), in the weighted norm of the error test;
    /// +∞ when not finite.
    fn error_estimate(&mut self, h: f64, factors: &Factors) -> f64 {
        let Self {
            f,
            n,
            tol,
            s,
            w,
            stats,
            ..
        } = self;
        for i in 0..*n {
            w.f2[i] = (DD[0] * w.z[0][i] + DD[1] * w.z[1][i] + DD[2] * w.z[2][i]) / h;
            w.err[i] = w.f2[i] + s.f0[i];
            w.ytmp[i] = s.y[i] + w.z[2][i];
        }
        dense::error_scale(&tol.atol, tol.rtol, &s.y, &w.ytmp, &mut w.scale);
        dense::lu_solve(&factors.e1, &mut w.err);
        let mut err = floored_norm(&w.err, &w.scale);
        if err >= 1.0 && (s.first || s.reject) {
            // Damp the stiff components once more: E1⁻¹ (f(y0 + err) + Σ (dd_i/h) Z_i).
            for i in 0..*n {
                w.ytmp[i] = s.y[i] + w.err[i];
            }
            eval_rhs(f, &w.ytmp, &mut w.k[0], stats);
            for i in 0..*n {
                w.err[i] = w.k[0][i] + w.f2[i];
            }
            dense::lu_solve(&factors.e1, &mut w.err);
            err = floored_norm(&w.err, &w.scale);
        }
        err
    }

    /// Accept the attempted step of size `h` (`last`: it ends at the stop time): new state,
    /// dense output, next step size and what to keep of J and its factorisations.
    fn accept(&mut self, h: f64, last: bool, err: f64, newt: usize) {
        let s = &mut self.s;
        let fac = SAFE.min(CFAC / (newt as f64 + 2.0 * NIT as f64));
        let q_raw = err.powf(0.25) / fac;
        let mut quot = q_raw.clamp(FACR, FACL);
        if s.accepted >= 1 {
            // Gustafsson's predictive controller (HW II §IV.8).
            let facgus = (s.h_acc / h) * (err * err / s.err_acc).powf(0.25) / SAFE;
            quot = quot.max(facgus.clamp(FACR, FACL));
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
        s.first = false;
        s.reject = false;
        s.jac_current = false;
        s.singular_failures = 0;
        s.nonfinite_failures = 0;
        let keep_jac = s.theta <= THET;
        if keep_jac && !last && (QUOT1..=QUOT2).contains(&(h_new / h)) {
            h_new = h;
        }
        if !keep_jac {
            s.jac = None;
            s.factors = None;
        }
        s.h = h_new;
    }

    /// Move to the end of the accepted step and build its collocation polynomial (Hairer's
    /// CONT: divided differences of the stage values at s = 0, c2 − 1, c1 − 1, −1).
    fn advance(&mut self, h: f64, last: bool) {
        let (s, w, n) = (&mut self.s, &self.w, self.n);
        s.t_prev = s.t;
        s.h_last = h;
        s.t = if last { s.t_stop } else { s.t + h };
        for i in 0..n {
            let (z1, z2, z3) = (w.z[0][i], w.z[1][i], w.z[2][i]);
            s.y[i] += z3;
            let k1 = (z2 - z3) / C2M1;
            let ak = (z1 - z2) / C1MC2;
            let acont3 = (ak - z1 / C1) / C2;
            let k2 = (ak - k1) / C1M1;
            s.cont[i] = k1;
            s.cont[n + i] = k2;
            s.cont[2 * n + i] = k2 - acont3;
        }
        s.f0_valid = false;
        self.stats.steps += 1;
    }

    /// Record a failed attempt and propose `h_new` for the next one. A
    /// Jacobian that was not evaluated at the current state is refreshed (Hairer: a rejection
    /// with an old Jacobian recomputes it).
    fn reject(&mut self, h_new: f64) {
        let s = &mut self.s;
        self.stats.rejected_steps += 1;
        s.reject = true;
        if !s.jac_current {
            s.jac = None;
            s.factors = None;
        }
        s.h = h_new;
    }

    /// `h/h_new` of the classical controller for an error `err` after `newt` iterations.
    fn quotient(err: f64, newt: usize) -> f64 {
        let fac = SAFE.min(CFAC / (newt as f64 + 2.0 * NIT as f64));
        (err.powf(0.25) / fac).clamp(FACR, FACL)
    }
}

#[cfg(test)]
impl<F: VectorField> Radau5<F> {
    /// One step of exactly `h`, accepted whatever its error estimate (for the order tests).
    fn force_step(&mut self, h: f64) -> f64 {
        match self.attempt(h).unwrap() {
            Attempt::Converged { err, newt } => {
                self.accept(h, false, err, newt);
                err
            }
            other => panic!("forced step of {h} failed: {other:?}"),
        }
    }
}

/// `m x` for a 3×3 matrix.
fn mul3(m: &[[f64; 3]; 3], x: [f64; 3]) -> [f64; 3] {
    m.map(|row| row[0] * x[0] + row[1] * x[1] + row[2] * x[2])
}

/// Weighted RMS norm of the Newton correction `(ΔW1, ΔW2, ΔW3)` over all 3n components.
fn newton_norm(dw1: &[f64], dw23: &[Complex<f64>], scale: &[f64]) -> f64 {
    let sum: f64 = dw1
        .iter()
        .zip(dw23)
        .zip(scale)
        .map(|((a, c), s)| (a / s).powi(2) + (c.re / s).powi(2) + (c.im / s).powi(2))
        .sum();
    (sum / (3 * scale.len()) as f64).sqrt()
}

/// The error norm bounded below by [`ERR_FLOOR`]; +∞ if not finite.
fn floored_norm(err: &[f64], scale: &[f64]) -> f64 {
    let e = dense::wrms(err, scale);
    if e.is_finite() {
        e.max(ERR_FLOOR)
    } else {
        f64::INFINITY
    }
}

impl<F: VectorField> Stepper for Radau5<F> {
    type Saved = Radau5State;

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
                Attempt::Converged { err, newt } if err <= 1.0 => {
                    self.accept(h, last, err, newt);
                    return Ok(last);
                }
                Attempt::Converged { err, newt } => {
                    let h_new = if self.s.first {
                        0.1 * h
                    } else {
                        h / Self::quotient(err, newt)
                    };
                    self.reject(h_new);
                }
                Attempt::NewtonFailed { factor } => self.reject(factor * h),
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
        let n = self.n;
        let x = (t - s.t) / s.h_last;
        for (i, o) in out.iter_mut().enumerate().take(n) {
            let (k1, k2, k3) = (s.cont[i], s.cont[n + i], s.cont[2 * n + i]);
            *o = s.y[i] + x * (k1 + (x - C2M1) * (k2 + (x - C1M1) * k3));
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

    /// The Radau IIA matrix A of order 5 (HW II §IV.5).
    fn radau_a() -> [[f64; 3]; 3] {
        let s6 = 6f64.sqrt();
        [
            [
                (88.0 - 7.0 * s6) / 360.0,
                (296.0 - 169.0 * s6) / 1800.0,
                (-2.0 + 3.0 * s6) / 225.0,
            ],
            [
                (296.0 + 169.0 * s6) / 1800.0,
                (88.0 + 7.0 * s6) / 360.0,
                (-2.0 - 3.0 * s6) / 225.0,
            ],
            [(16.0 - s6) / 36.0, (16.0 + s6) / 36.0, 1.0 / 9.0],
        ]
    }

    fn matmul(a: &[[f64; 3]; 3], b: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
        let mut c = [[0.0; 3]; 3];
        for i in 0..3 {
            for j in 0..3 {
                c[i][j] = (0..3).map(|k| a[i][k] * b[k][j]).sum();
            }
        }
        c
    }

    #[test]
    fn constants_diagonalise_the_inverse_of_a() {
        let s6 = 6f64.sqrt();
        assert!((C1 - (4.0 - s6) / 10.0).abs() < 1e-15);
        assert!((C2 - (4.0 + s6) / 10.0).abs() < 1e-15);
        assert!((DD[0] + (13.0 + 7.0 * s6) / 3.0).abs() < 1e-13);
        assert!((DD[1] - (-13.0 + 7.0 * s6) / 3.0).abs() < 1e-13);
        // T⁻¹ A⁻¹ T = blockdiag(γ, [[α, −β], [β, α]])  ⇔  A⁻¹ T = T Λ  ⇔  T = A T Λ.
        let lambda = [[GAMMA, 0.0, 0.0], [0.0, ALPHA, -BETA], [0.0, BETA, ALPHA]];
        let atl = matmul(&matmul(&radau_a(), &T), &lambda);
        let tti = matmul(&T, &TI);
        for i in 0..3 {
            for j in 0..3 {
                assert!((atl[i][j] - T[i][j]).abs() < 1e-14, "A T Λ ≠ T at {i},{j}");
                let id = if i == j { 1.0 } else { 0.0 };
                assert!((tti[i][j] - id).abs() < 1e-14, "T T⁻¹ ≠ I at {i},{j}");
            }
        }
    }

    /// Tight enough for a Newton error far below the local errors measured, loose enough for
    /// the Newton iteration to converge from zero starting values at h = 0.2 (at rtol = 1e-13
    /// it is predicted to fail and the step would be rejected).
    fn tight() -> StepControl {
        control(1e-11, 1e-11, 4)
    }

    /// Local error of one step from the exact initial value on Kepler's problem: O(h⁶).
    #[test]
    fn local_error_has_order_six() {
        let y0 = Kepler::exact(0.0);
        let hs = [0.2, 0.1, 0.05];
        let errs: Vec<f64> = hs
            .iter()
            .map(|&h| {
                let mut st = Radau5::new(Kepler, &y0, tight()).unwrap();
                st.force_step(h);
                let mut y = vec![0.0; 4];
                st.state(&mut y);
                max_abs_diff(&y, &Kepler::exact(h))
            })
            .collect();
        let orders = observed_orders(&hs, &errs);
        eprintln!("radau5 local errors {errs:?}, observed orders {orders:?}");
        for p in orders {
            assert!((p - 6.0).abs() <= 0.5, "observed local order {p}");
        }
    }

    /// The collocation polynomial inside one step: error O(h⁴) (dense output of order 3).
    #[test]
    fn dense_output_has_order_three() {
        let y0 = Kepler::exact(0.0);
        let hs = [0.2, 0.1, 0.05];
        let errs: Vec<f64> = hs
            .iter()
            .map(|&h| {
                let mut st = Radau5::new(Kepler, &y0, tight()).unwrap();
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
        eprintln!("radau5 dense-output errors {errs:?}, observed orders {orders:?}");
        for p in orders {
            assert!((p - 4.0).abs() <= 0.5, "observed dense-output order {p}");
        }
    }

    /// λ = 1e6 over [0, 1], on the slow solution and through an initial transient: few steps
    /// (an explicit method needs ~1e6), error at the tolerance level.
    #[test]
    fn stiff_problem_takes_few_steps() {
        for y0 in [1.0, 2.0] {
            let (err, steps, rejected) = run_stiff(|f, y, c| Radau5::new(f, y, c).unwrap(), y0);
            eprintln!(
                "radau5 stiff from y0 = {y0}: {steps} steps, {rejected} rejected, error {err:e}"
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
                Radau5::new(Oscillator, &Oscillator::exact(0.0), control(rtol, rtol, 2)).unwrap();
            let (err, steps) = run_against(&mut st, 2, 10.0, Oscillator::exact);
            eprintln!("radau5 rtol {rtol:e}: global error {err:e} in {steps} steps");
            assert!(err < last, "error {err:e} did not fall (was {last:e})");
            assert!(err <= 100.0 * rtol, "error {err:e} at rtol {rtol:e}");
            last = err;
        }
    }

    #[test]
    fn keeps_the_stepper_contract() {
        let st = Radau5::new(Kepler, &Kepler::exact(0.0), control(1e-6, 1e-8, 4)).unwrap();
        check_contract(st, 4);
    }

    #[test]
    fn reports_a_blow_up() {
        let st = Radau5::new(BlowUp, &[1.0], control(1e-6, 1e-6, 1)).unwrap();
        let message = check_blow_up_is_reported(st);
        eprintln!("radau5 blow-up: {message}");
        assert!(message.starts_with(NAME));
    }

    /// An impact-like start: zeros in some components, absolute tolerances down to 1e-26.
    #[test]
    fn starts_from_zeros_with_tiny_absolute_tolerances() {
        let y0 = [1.0, 0.0, 0.0, 1.0];
        let mut c = control(1e-6, 1e-26, 4);
        c.atol[0] = 1e-8;
        let mut st = Radau5::new(Kepler, &y0, c).unwrap();
        st.advance_to(0.5).unwrap();
        let mut y = [0.0; 4];
        st.state(&mut y);
        assert!(max_abs_diff(&y, &Kepler::exact(0.5)) < 1e-6);
    }
}
