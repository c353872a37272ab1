//! Radau IIA with three stages, order 5: Hairer–Wanner's RADAU5 scheme (E. Hairer, G. Wanner,
//! Solving Ordinary Differential Equations II, 2nd ed., §IV.8 "Implementation of Implicit
//! Runge–Kutta Methods", and the code RADAU5), a method of the engine in [`super::core`].
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

use super::super::{SolverStats, VectorField};
use super::core::{Attempt, OneStepMethod, StepCore, Tolerances, SAFETY};
use super::numerics::{self, eval_rhs};
use nalgebra::{Complex, DMatrix, Dyn, LU};
use std::sync::Arc;

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
/// Safety factor that also accounts for the Newton iterations used (Hairer's CFAC).
const CFAC: f64 = SAFETY * (1.0 + 2.0 * NIT as f64);
/// Keep h (and the LU) when the proposed factor `h_new/h` lies in `[QUOT1, QUOT2]`.
const QUOT1: f64 = 1.0;
const QUOT2: f64 = 1.2;
/// Hairer's unit round-off.
const UROUND: f64 = 1e-16;
/// Lower bound of the error estimate (as in RADAU5).
const ERR_FLOOR: f64 = 1e-10;

/// Radau IIA of order 5 (module docs), a method of the engine [`super::core::Native`].
pub struct Radau5;

/// LU factorisations of `E1 = (γ/h) I − J` and `E2 = ((α + iβ)/h) I − J` for one `h` and one
/// Jacobian `J` (held, so that a new Jacobian is recognised).
struct Factors {
    h: f64,
    jac: Arc<DMatrix<f64>>,
    e1: LU<f64, Dyn, Dyn>,
    e2: LU<Complex<f64>, Dyn, Dyn>,
}

/// What of a Radau5 run determines its future steps besides the [`StepCore`].
/// The factorisations are shared, not copied, between saved states.
#[derive(Clone)]
pub struct Radau5State {
    /// The last step's collocation polynomial: divided differences `k1, k2, k3`, each of
    /// length n, one after the other.
    cont: Vec<f64>,
    factors: Option<Arc<Factors>>,
    /// Newton: `η` carried between steps (Hairer's FACCON) and the last contraction rate.
    faccon: f64,
    theta: f64,
}

/// Scratch vectors of one step attempt.
pub struct Radau5Work {
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
}

impl OneStepMethod for Radau5 {
    const NAME: &'static str = "Radau5";
    const ORDER: u32 = 5;
    const MIN_RTOL: f64 = 10.0 * UROUND;
    /// RADAU5's FACR: the step grows at most 8×.
    const QUOT_MIN: f64 = 1.0 / 8.0;
    /// RADAU5: a rejected first step is retried at a tenth of its size.
    const FIRST_REJECTION_FACTOR: Option<f64> = Some(0.1);

    type State = Radau5State;
    type Work = Radau5Work;

    /// RADAU5's `rtol' = 0.1 rtol^(2/3)`, `atol_i' = atol_i · rtol'/rtol` (module docs).
    fn internal_tolerances(rtol: f64, atol: &[f64]) -> (f64, Vec<f64>) {
        let rtol_internal = 0.1 * rtol.powf(2.0 / 3.0);
        let atol = atol.iter().map(|a| a * rtol_internal / rtol).collect();
        (rtol_internal, atol)
    }

    fn start(y0: &[f64]) -> (Radau5State, Radau5Work) {
        let n = y0.len();
        let v = || vec![0.0; n];
        let state = Radau5State {
            cont: vec![0.0; 3 * n],
            factors: None,
            faccon: 1.0,
            theta: THET,
        };
        let work = Radau5Work {
            z: [v(), v(), v()],
            w: [v(), v(), v()],
            k: [v(), v(), v()],
            c: vec![Complex::new(0.0, 0.0); n],
            ytmp: v(),
            scale: v(),
            err: v(),
            f2: v(),
        };
        (state, work)
    }

    /// Newton iteration and error estimate.
    fn attempt<F: VectorField>(
        f: &F,
        tol: &Tolerances,
        core: &StepCore,
        s: &mut Radau5State,
        w: &mut Radau5Work,
        h: f64,
        stats: &mut SolverStats,
    ) -> Attempt {
        let Some(factors) = factors_for(core.jacobian(), s, h, stats) else {
            return Attempt::Singular;
        };
        starting_values(core, s, w, h);
        let newt = match newton(f, tol, core, s, w, &factors, stats) {
            Ok(newt) => newt,
            Err(failure) => return failure,
        };
        let err = error_estimate(f, tol, core, w, &factors, stats);
        if err.is_finite() {
            Attempt::Done {
                err,
                safety: SAFETY.min(CFAC / (newt as f64 + 2.0 * NIT as f64)),
            }
        } else {
            Attempt::NonFinite
        }
    }

    /// Hairer's CONT: divided differences of the stage values at s = 0, c2 − 1, c1 − 1, −1.
    fn advance(core: &mut StepCore, s: &mut Radau5State, w: &Radau5Work) {
        let n = core.y.len();
        for i in 0..n {
            let (z1, z2, z3) = (w.z[0][i], w.z[1][i], w.z[2][i]);
            core.y[i] += z3;
            let k1 = (z2 - z3) / C2M1;
            let ak = (z1 - z2) / C1MC2;
            let acont3 = (ak - z1 / C1) / C2;
            let k2 = (ak - k1) / C1M1;
            s.cont[i] = k1;
            s.cont[n + i] = k2;
            s.cont[2 * n + i] = k2 - acont3;
        }
    }

    fn interpolate(core: &StepCore, s: &Radau5State, t: f64, out: &mut [f64]) {
        let n = core.y.len();
        let x = (t - core.t) / core.h_last;
        for (i, o) in out.iter_mut().enumerate().take(n) {
            let (k1, k2, k3) = (s.cont[i], s.cont[n + i], s.cont[2 * n + i]);
            *o = core.y[i] + x * (k1 + (x - C2M1) * (k2 + (x - C1M1) * k3));
        }
    }

    /// RADAU5's reuse rule: J is kept after a fast-contracting Newton iteration, and then h
    /// too (with it the LU factorisations) when the proposal is within `[QUOT1, QUOT2]·h`.
    fn propose(core: &mut StepCore, s: &Radau5State, h: f64, h_new: f64, last: bool) -> f64 {
        if s.theta > THET {
            core.jac = None;
            h_new
        } else if !last && (QUOT1..=QUOT2).contains(&(h_new / h)) {
            h
        } else {
            h_new
        }
    }
}

/// The Newton stopping tolerance for the internal `rtol`, relative to the error scale
/// (RADAU5's FNEWT).
fn newton_tolerance(rtol: f64) -> f64 {
    (10.0 * UROUND / rtol).max(0.03_f64.min(rtol.sqrt()))
}

/// The factorisations of E1 and E2 for `h` and `jac` (reused if both are unchanged); None if
/// either matrix is singular.
fn factors_for(
    jac: &Arc<DMatrix<f64>>,
    s: &mut Radau5State,
    h: f64,
    stats: &mut SolverStats,
) -> Option<Arc<Factors>> {
    let current = |fs: &&Arc<Factors>| fs.h == h && Arc::ptr_eq(&fs.jac, jac);
    if let Some(factors) = s.factors.as_ref().filter(current) {
        return Some(Arc::clone(factors));
    }
    s.factors = None;
    let e1 = numerics::factor_shifted(jac, GAMMA / h);
    let e2 = numerics::factor_shifted_complex(jac, Complex::new(ALPHA / h, BETA / h));
    stats.lu_factorisations += 2;
    let factors = Arc::new(Factors {
        h,
        jac: Arc::clone(jac),
        e1: e1?,
        e2: e2?,
    });
    s.factors = Some(Arc::clone(&factors));
    Some(factors)
}

/// Newton starting values `Z_i` (and `W = T⁻¹Z`): the previous step's collocation
/// polynomial extrapolated to `t + c_i h`; zero in the first step and when the new step
/// is more than the controller's growth limit (1/QUOT_MIN) times the last one (after a step
/// shortened to a stop time, where the polynomial of a tiny step would be extrapolated far out).
fn starting_values(core: &StepCore, s: &Radau5State, w: &mut Radau5Work, h: f64) {
    let n = core.y.len();
    let c3q = h / core.h_last;
    if core.first() || c3q.is_nan() || c3q > 1.0 / Radau5::QUOT_MIN {
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

/// The simplified Newton iteration in transformed variables (module docs), from the starting
/// values in `w`, for the step size of `factors`. Ok(number of iterations) when converged,
/// Err(the failure) otherwise.
fn newton<F: VectorField>(
    f: &F,
    tol: &Tolerances,
    core: &StepCore,
    s: &mut Radau5State,
    w: &mut Radau5Work,
    factors: &Factors,
    stats: &mut SolverStats,
) -> Result<usize, Attempt> {
    let (n, h) = (core.y.len(), factors.h);
    let fnewt = newton_tolerance(tol.rtol);
    numerics::state_scale(&tol.atol, tol.rtol, &core.y, &mut w.scale);
    let gam = GAMMA / h;
    let lam = Complex::new(ALPHA / h, BETA / h);
    s.faccon = s.faccon.max(UROUND).powf(0.8);
    s.theta = THET;
    let (mut dyn_old, mut thq_old) = (0.0, 0.0);
    for newt in 1..=NIT {
        for st in 0..3 {
            for i in 0..n {
                w.ytmp[i] = core.y[i] + w.z[st][i];
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
        let solved = numerics::lu_solve(&factors.e1, &mut w.k[0])
            && numerics::lu_solve_complex(&factors.e2, &mut w.c);
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
                return Err(Attempt::Retry { factor: 0.5 });
            }
            s.faccon = s.theta / (1.0 - s.theta);
            let left = (NIT - 1 - newt) as i32;
            let dyth = s.faccon * dyno * s.theta.powi(left) / fnewt;
            if dyth >= 1.0 {
                let qnewt = dyth.clamp(1e-4, 20.0);
                let factor = 0.8 * qnewt.powf(-1.0 / (4.0 + left as f64));
                return Err(Attempt::Retry { factor });
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
        if s.faccon * dyno <= fnewt {
            return Ok(newt);
        }
    }
    Err(Attempt::Retry { factor: 0.5 })
}

/// Hairer's error estimate (module docs; HW II §IV.8), in the weighted norm of the error test,
/// for the step size of `factors`; +∞ when not finite.
fn error_estimate<F: VectorField>(
    f: &F,
    tol: &Tolerances,
    core: &StepCore,
    w: &mut Radau5Work,
    factors: &Factors,
    stats: &mut SolverStats,
) -> f64 {
    let (n, h) = (core.y.len(), factors.h);
    for i in 0..n {
        w.f2[i] = (DD[0] * w.z[0][i] + DD[1] * w.z[1][i] + DD[2] * w.z[2][i]) / h;
        w.err[i] = w.f2[i] + core.f0[i];
        w.ytmp[i] = core.y[i] + w.z[2][i];
    }
    numerics::error_scale(&tol.atol, tol.rtol, &core.y, &w.ytmp, &mut w.scale);
    numerics::lu_solve(&factors.e1, &mut w.err);
    let mut err = floored_norm(&w.err, &w.scale);
    if err >= 1.0 && (core.first() || core.reject) {
        // Damp the stiff components once more: E1⁻¹ (f(y0 + err) + Σ (dd_i/h) Z_i).
        for i in 0..n {
            w.ytmp[i] = core.y[i] + w.err[i];
        }
        eval_rhs(f, &w.ytmp, &mut w.k[0], stats);
        for i in 0..n {
            w.err[i] = w.k[0][i] + w.f2[i];
        }
        numerics::lu_solve(&factors.e1, &mut w.err);
        err = floored_norm(&w.err, &w.scale);
    }
    err
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
    let e = numerics::wrms(err, scale);
    if e.is_finite() {
        e.max(ERR_FLOOR)
    } else {
        f64::INFINITY
    }
}

#[cfg(test)]
mod tests {
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
}
