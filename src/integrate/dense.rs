//! Numerics shared by the integrators written here ([`super::radau`], [`super::rodas`]): the
//! weighted error norm, the exact Jacobian from Jacobian–vector products, Hairer's automatic
//! initial step, stop-time and dense-output bookkeeping, and LU solves on slices.

use super::{SolverStats, VectorField};
use nalgebra::{Complex, DMatrix, DVectorViewMut, LU};

/// A step that would end within this factor of the stop time is stretched to land on it,
/// so that no ridiculously small final step remains (HNW I, DOPRI5 uses the same 1.01).
pub const STOP_STRETCH: f64 = 1.01;

/// Largest proposed step. Without a stop time, a vanishing error estimate (a solution decayed
/// to zero) lets the step grow geometrically; the cap keeps `t + h` finite.
pub const MAX_STEP: f64 = 1e300;

/// Consecutive failed attempts with a non-finite right-hand side, stage or error estimate
/// before `step` gives up.
pub const MAX_NONFINITE_FAILURES: usize = 10;

/// Consecutive singular iteration matrices before `step` gives up (Hairer: NSING ≥ 5).
pub const MAX_SINGULAR: usize = 5;

/// `sc_i = atol_i + rtol·max(|y0_i|, |y1_i|)`: the error scale of one step.
pub fn error_scale(atol: &[f64], rtol: f64, y0: &[f64], y1: &[f64], sc: &mut [f64]) {
    for (((s, &a), &u), &v) in sc.iter_mut().zip(atol).zip(y0).zip(y1) {
        *s = a + rtol * u.abs().max(v.abs());
    }
}

/// `sc_i = atol_i + rtol·|y_i|`: the error scale at one state.
pub fn state_scale(atol: &[f64], rtol: f64, y: &[f64], sc: &mut [f64]) {
    error_scale(atol, rtol, y, y, sc)
}

/// Weighted RMS norm `sqrt(Σ (v_i/sc_i)² / n)`.
pub fn wrms(v: &[f64], sc: &[f64]) -> f64 {
    let sum: f64 = v.iter().zip(sc).map(|(x, s)| (x / s) * (x / s)).sum();
    (sum / v.len().max(1) as f64).sqrt()
}

pub fn all_finite(v: &[f64]) -> bool {
    v.iter().all(|x| x.is_finite())
}

/// `f(y)`, counted.
pub fn eval_rhs<F: VectorField>(f: &F, y: &[f64], dy: &mut [f64], stats: &mut SolverStats) {
    f.rhs(y, dy);
    stats.rhs_evals += 1;
}

/// The full Jacobian `J = ∂f/∂y` at `y`, column by column from `n` exact Jacobian–vector
/// products with the unit vectors (counted: `n` JVPs, one Jacobian). `unit` and `col` are
/// scratch vectors of length `n`.
pub fn full_jacobian<F: VectorField>(
    f: &F,
    y: &[f64],
    unit: &mut [f64],
    col: &mut [f64],
    stats: &mut SolverStats,
) -> DMatrix<f64> {
    let n = y.len();
    let mut jac = DMatrix::zeros(n, n);
    unit.fill(0.0);
    for j in 0..n {
        unit[j] = 1.0;
        f.jvp(y, unit, col);
        unit[j] = 0.0;
        jac.column_mut(j).copy_from_slice(col);
    }
    stats.jvp_evals += n;
    stats.jacobian_evals += 1;
    jac
}

/// Hairer's automatic initial step (Hairer–Nørsett–Wanner I, §II.4, algorithm on p. 169) for
/// a method of order `order`, in the weighted norm of the error test (scale at `y0`):
/// `d0 = ‖y0‖`, `d1 = ‖f(y0)‖`, `h0 = 0.01 d0/d1` (1e-6 if either is below 1e-5), one explicit
/// Euler step `y1 = y0 + h0 f(y0)`, `d2 = ‖f(y1) − f(y0)‖/h0`,
/// `h1 = (0.01/max(d1, d2))^(1/(order+1))` (or `max(1e-6, 1e-3 h0)` if both are ≤ 1e-15), and
/// `h = min(100 h0, h1)`. `f0 = f(y0)` is given; one more right-hand side is counted.
pub fn initial_step<F: VectorField>(
    f: &F,
    y0: &[f64],
    f0: &[f64],
    atol: &[f64],
    rtol: f64,
    order: u32,
    stats: &mut SolverStats,
) -> f64 {
    let n = y0.len();
    let mut sc = vec![0.0; n];
    state_scale(atol, rtol, y0, &mut sc);
    let d0 = wrms(y0, &sc);
    let d1 = wrms(f0, &sc);
    let h0 = if d0 < 1e-5 || d1 < 1e-5 {
        1e-6
    } else {
        0.01 * d0 / d1
    };
    let y1: Vec<f64> = y0.iter().zip(f0).map(|(y, d)| y + h0 * d).collect();
    let mut f1 = vec![0.0; n];
    eval_rhs(f, &y1, &mut f1, stats);
    for (a, b) in f1.iter_mut().zip(f0) {
        *a -= b;
    }
    let d2 = wrms(&f1, &sc) / h0;
    let dmax = d1.max(d2);
    let h1 = if !dmax.is_finite() {
        // The Euler step left the domain of f: start far below the probe step.
        1e-3 * h0
    } else if dmax <= 1e-15 {
        (1e-3 * h0).max(1e-6)
    } else {
        (0.01 / dmax).powf(1.0 / (order as f64 + 1.0))
    };
    (100.0 * h0).min(h1)
}

/// The step to try from `t` when `h` is proposed and the run stops at `t_stop`: `h` itself,
/// or the distance to `t_stop` when `t + h` would reach it or come within [`STOP_STRETCH`] of
/// it (then `true`: the step ends exactly at the stop time).
pub fn clip_to_stop(t: f64, h: f64, t_stop: f64) -> (f64, bool) {
    if t + STOP_STRETCH * h >= t_stop {
        (t_stop - t, true)
    } else {
        (h, false)
    }
}

/// Check a new stop time against the current time.
pub fn check_stop_time(name: &str, t_now: f64, t_stop: f64) -> Result<(), String> {
    if t_stop > t_now {
        Ok(())
    } else {
        Err(format!(
            "{name}: stop time {t_stop:e} is not later than the current time {t_now:e}"
        ))
    }
}

/// Check that `t` lies in the last step `[t_prev, t_now]` up to round-off.
pub fn check_interpolation_time(name: &str, t: f64, t_prev: f64, t_now: f64) -> Result<(), String> {
    let slack = 100.0 * f64::EPSILON * (t_now.abs() + (t_now - t_prev).abs());
    if t >= t_prev - slack && t <= t_now + slack {
        Ok(())
    } else {
        Err(format!(
            "{name}: interpolation time {t:e} lies outside the last step [{t_prev:e}, {t_now:e}]"
        ))
    }
}

/// The message of a step that fell below the minimum step.
pub fn min_step_message(name: &str, t: f64, h: f64, min_step: f64) -> String {
    format!("{name}: step size {h:e} at t = {t:e} fell below the minimum step {min_step:e}")
}

/// Solve `A x = b` in place with a real LU factorisation; false if `A` is singular.
pub fn lu_solve(lu: &LU<f64, nalgebra::Dyn, nalgebra::Dyn>, b: &mut [f64]) -> bool {
    let n = b.len();
    lu.solve_mut(&mut DVectorViewMut::from_slice(b, n))
}

/// Solve `A x = b` in place with a complex LU factorisation; false if `A` is singular.
pub fn lu_solve_complex(
    lu: &LU<Complex<f64>, nalgebra::Dyn, nalgebra::Dyn>,
    b: &mut [Complex<f64>],
) -> bool {
    let n = b.len();
    lu.solve_mut(&mut DVectorViewMut::from_slice(b, n))
}

/// LU of `shift·I − J` (real shift), or None if singular.
pub fn factor_shifted(
    jac: &DMatrix<f64>,
    shift: f64,
) -> Option<LU<f64, nalgebra::Dyn, nalgebra::Dyn>> {
    let mut e = -jac;
    for i in 0..e.nrows() {
        e[(i, i)] += shift;
    }
    let lu = e.lu();
    lu.is_invertible().then_some(lu)
}

/// LU of `shift·I − J` (complex shift), or None if singular.
pub fn factor_shifted_complex(
    jac: &DMatrix<f64>,
    shift: Complex<f64>,
) -> Option<LU<Complex<f64>, nalgebra::Dyn, nalgebra::Dyn>> {
    let n = jac.nrows();
    let e = DMatrix::from_fn(n, n, |i, j| {
        let d = if i == j {
            shift
        } else {
            Complex::new(0.0, 0.0)
        };
        d - Complex::new(jac[(i, j)], 0.0)
    });
    let lu = e.lu();
    lu.is_invertible().then_some(lu)
}

/// Test problems and checks shared by the tests of both integrators.
#[cfg(test)]
pub mod testing {
    use super::super::{StepControl, Stepper, VectorField};

    /// Kepler's problem on the circular orbit, `q'' = −q/|q|³`, `y = (q1, q2, p1, p2)`:
    /// smooth, nonlinear, exact solution `q = (cos t, sin t)`, `p = (−sin t, cos t)`.
    pub struct Kepler;

    impl Kepler {
        pub fn exact(t: f64) -> Vec<f64> {
            vec![t.cos(), t.sin(), -t.sin(), t.cos()]
        }
    }

    impl VectorField for Kepler {
        fn dim(&self) -> usize {
            4
        }
        fn rhs(&self, y: &[f64], dy: &mut [f64]) {
            let r2 = y[0] * y[0] + y[1] * y[1];
            let r3 = r2 * r2.sqrt();
            dy[0] = y[2];
            dy[1] = y[3];
            dy[2] = -y[0] / r3;
            dy[3] = -y[1] / r3;
        }
        fn jvp(&self, y: &[f64], v: &[f64], out: &mut [f64]) {
            let r2 = y[0] * y[0] + y[1] * y[1];
            let r3 = r2 * r2.sqrt();
            let r5 = r3 * r2;
            let qv = y[0] * v[0] + y[1] * v[1];
            out[0] = v[2];
            out[1] = v[3];
            out[2] = -v[0] / r3 + 3.0 * y[0] * qv / r5;
            out[3] = -v[1] / r3 + 3.0 * y[1] * qv / r5;
        }
    }

    /// The harmonic oscillator `y1' = y2, y2' = −y1`; from (1, 0): `(cos t, −sin t)`.
    pub struct Oscillator;

    impl Oscillator {
        pub fn exact(t: f64) -> Vec<f64> {
            vec![t.cos(), -t.sin()]
        }
    }

    impl VectorField for Oscillator {
        fn dim(&self) -> usize {
            2
        }
        fn rhs(&self, y: &[f64], dy: &mut [f64]) {
            dy[0] = y[1];
            dy[1] = -y[0];
        }
        fn jvp(&self, _y: &[f64], v: &[f64], out: &mut [f64]) {
            out[0] = v[1];
            out[1] = -v[0];
        }
    }

    /// The stiff scalar problem `y' = −λ (y − cos τ)` made autonomous with `τ' = 1`.
    pub struct StiffCosine {
        pub lambda: f64,
    }

    impl StiffCosine {
        /// Exact `y(t)` from `y(0) = y0`, `τ(0) = 0`: the slow solution
        /// `(λ² cos t + λ sin t)/(λ² + 1)` plus a transient decaying like `e^{−λt}`.
        pub fn exact(&self, y0: f64, t: f64) -> f64 {
            let l = self.lambda;
            let d = l * l + 1.0;
            (l * l * t.cos() + l * t.sin()) / d + (y0 - l * l / d) * (-l * t).exp()
        }
    }

    impl VectorField for StiffCosine {
        fn dim(&self) -> usize {
            2
        }
        fn rhs(&self, y: &[f64], dy: &mut [f64]) {
            dy[0] = -self.lambda * (y[0] - y[1].cos());
            dy[1] = 1.0;
        }
        fn jvp(&self, y: &[f64], v: &[f64], out: &mut [f64]) {
            out[0] = -self.lambda * (v[0] + y[1].sin() * v[1]);
            out[1] = 0.0;
        }
    }

    /// `y' = y²` from `y(0) = 1`: blows up at `t = 1`.
    pub struct BlowUp;

    impl VectorField for BlowUp {
        fn dim(&self) -> usize {
            1
        }
        fn rhs(&self, y: &[f64], dy: &mut [f64]) {
            dy[0] = y[0] * y[0];
        }
        fn jvp(&self, y: &[f64], v: &[f64], out: &mut [f64]) {
            out[0] = 2.0 * y[0] * v[0];
        }
    }

    /// Integrate the stiff problem (λ = 1e6) over [0, 1] at rtol = atol = 1e-6 from `y(0) = y0`;
    /// the error at t = 1 and the accepted and rejected steps.
    pub fn run_stiff<S: Stepper>(
        make: impl Fn(StiffCosine, &[f64], StepControl) -> S,
        y0: f64,
    ) -> (f64, usize, usize) {
        let problem = StiffCosine { lambda: 1e6 };
        let exact = problem.exact(y0, 1.0);
        let mut st = make(problem, &[y0, 0.0], control(1e-6, 1e-6, 2));
        st.advance_to(1.0).unwrap();
        let mut y = [0.0; 2];
        st.state(&mut y);
        let stats = st.stats();
        ((y[0] - exact).abs(), stats.steps, stats.rejected_steps)
    }

    pub fn control(rtol: f64, atol: f64, n: usize) -> StepControl {
        StepControl {
            rtol,
            atol: vec![atol; n],
            min_step: 1e-14,
        }
    }

    pub fn max_abs_diff(a: &[f64], b: &[f64]) -> f64 {
        a.iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f64::max)
    }

    /// Observed orders `log(e_k/e_{k+1}) / log(h_k/h_{k+1})` of consecutive pairs.
    pub fn observed_orders(hs: &[f64], errs: &[f64]) -> Vec<f64> {
        hs.windows(2)
            .zip(errs.windows(2))
            .map(|(h, e)| (e[0] / e[1]).ln() / (h[0] / h[1]).ln())
            .collect()
    }

    fn state_of<S: Stepper>(st: &S, n: usize) -> Vec<f64> {
        let mut y = vec![0.0; n];
        st.state(&mut y);
        y
    }

    fn interp<S: Stepper>(st: &S, t: f64, n: usize) -> Vec<f64> {
        let mut y = vec![0.0; n];
        st.interpolate(t, &mut y).unwrap();
        y
    }

    /// Integrate to `t_end`; the largest error against `exact` at the step ends, and the
    /// number of accepted steps.
    pub fn run_against<S: Stepper>(
        st: &mut S,
        n: usize,
        t_end: f64,
        exact: impl Fn(f64) -> Vec<f64>,
    ) -> (f64, usize) {
        st.set_stop_time(t_end).unwrap();
        let mut worst: f64 = 0.0;
        loop {
            let done = st.step().unwrap();
            worst = worst.max(max_abs_diff(&state_of(st, n), &exact(st.time())));
            if done {
                break;
            }
        }
        assert_eq!(st.time(), t_end);
        (worst, st.stats().steps)
    }

    /// The points of the [`Stepper`] contract the mode machine relies on, on a stepper freshly
    /// started on a smooth problem of dimension `n` at time 0.
    pub fn check_contract<S: Stepper>(mut st: S, n: usize) {
        assert_eq!(st.time(), 0.0);
        // No stop time yet: +∞.
        for _ in 0..3 {
            assert!(!st.step().unwrap());
        }
        // Dense output at the ends of the last step reproduces the stored states.
        let (t0, y0) = (st.time(), state_of(&st, n));
        assert!(!st.step().unwrap());
        let (t1, y1) = (st.time(), state_of(&st, n));
        assert!(t1 > t0);
        assert!(max_abs_diff(&interp(&st, t0, n), &y0) <= 1e-14);
        assert!(max_abs_diff(&interp(&st, t1, n), &y1) <= 1e-14);
        let mut out = vec![0.0; n];
        assert!(st.interpolate(t1 + 0.5 * (t1 - t0), &mut out).is_err());
        assert!(st.interpolate(t0 - 0.5 * (t1 - t0), &mut out).is_err());

        // save → step → restore → step is bit-identical; counters are not rolled back.
        let saved = st.save();
        let t_mid = 0.5 * (t1 + t0);
        let y_mid = interp(&st, t_mid, n);
        st.step().unwrap();
        let (ta, ya) = (st.time(), state_of(&st, n));
        let ia = interp(&st, 0.5 * (t1 + ta), n);
        st.step().unwrap();
        let (tb, yb) = (st.time(), state_of(&st, n));
        let stats_after = st.stats();
        st.restore(saved);
        assert_eq!(st.time(), t1);
        assert_eq!(state_of(&st, n), y1);
        assert_eq!(interp(&st, t_mid, n), y_mid);
        assert_eq!(st.stats(), stats_after);
        st.step().unwrap();
        assert_eq!(st.time(), ta);
        assert_eq!(state_of(&st, n), ya);
        assert_eq!(interp(&st, 0.5 * (t1 + ta), n), ia);
        st.step().unwrap();
        assert_eq!(st.time(), tb);
        assert_eq!(state_of(&st, n), yb);
        let stats_again = st.stats();
        assert_eq!(stats_again.steps, stats_after.steps + 2);
        assert!(stats_again.rhs_evals > stats_after.rhs_evals);

        // Stop times: not in the past; reached exactly, never passed; continuing after it.
        let now = st.time();
        assert!(st.set_stop_time(now).is_err());
        assert!(st.set_stop_time(now - 1.0).is_err());
        let stop = now + 2.5 * (tb - ta);
        st.set_stop_time(stop).unwrap();
        loop {
            let reached = st.step().unwrap();
            assert!(st.time() <= stop);
            if reached {
                break;
            }
        }
        assert_eq!(st.time(), stop);
        let stop2 = stop + 7.0 * (tb - ta);
        st.advance_to(stop2).unwrap();
        assert_eq!(st.time(), stop2);
        // A stop time a few ulps ahead: one tiny step lands on it.
        let stop3 = stop2 + 4.0 * f64::EPSILON * stop2;
        st.set_stop_time(stop3).unwrap();
        assert!(st.step().unwrap());
        assert_eq!(st.time(), stop3);
        // Continuing after that tiny step takes ordinary steps (no cascade of rejections).
        let before = st.stats();
        st.advance_to(stop3 + 7.0 * (tb - ta)).unwrap();
        let after = st.stats();
        assert!(
            after.rejected_steps - before.rejected_steps <= 1 && after.steps - before.steps <= 12,
            "after a tiny step: {} steps, {} rejected",
            after.steps - before.steps,
            after.rejected_steps - before.rejected_steps
        );
        assert!(state_of(&st, n).iter().all(|x| x.is_finite()));
    }

    /// A run into a blow-up ends in an error that names the minimum step (or a non-finite
    /// value), never in a panic or an endless loop.
    pub fn check_blow_up_is_reported<S: Stepper>(mut st: S) -> String {
        st.set_stop_time(2.0).unwrap();
        for _ in 0..100_000 {
            match st.step() {
                Ok(true) => panic!("stepped through the blow-up to t = {}", st.time()),
                Ok(false) => {}
                Err(message) => return message,
            }
        }
        panic!("no failure reported near the blow-up (t = {})", st.time())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_lands_on_the_stop_time() {
        assert_eq!(clip_to_stop(0.0, 1.0, f64::INFINITY), (1.0, false));
        assert_eq!(clip_to_stop(0.0, 1.0, 0.5), (0.5, true));
        // Within the stretch: the step is lengthened to the stop time.
        assert_eq!(clip_to_stop(0.0, 1.0, 1.005), (1.005, true));
        assert_eq!(clip_to_stop(0.0, 1.0, 1.5), (1.0, false));
    }

    #[test]
    fn shifted_solves_agree() {
        let jac = DMatrix::from_row_slice(2, 2, &[1.0, 2.0, -3.0, 0.5]);
        let lu = factor_shifted(&jac, 4.0).unwrap();
        let mut x = [1.0, 2.0];
        assert!(lu_solve(&lu, &mut x));
        // (4I − J) x = b
        let r0 = 3.0 * x[0] - 2.0 * x[1];
        let r1 = 3.0 * x[0] + 3.5 * x[1];
        assert!((r0 - 1.0).abs() < 1e-14 && (r1 - 2.0).abs() < 1e-14);
        let s = Complex::new(1.0, 2.0);
        let luc = factor_shifted_complex(&jac, s).unwrap();
        let b = [Complex::new(1.0, -1.0), Complex::new(0.5, 3.0)];
        let mut z = b;
        assert!(lu_solve_complex(&luc, &mut z));
        let one = Complex::new(1.0, 0.0);
        let r0 = (s - one) * z[0] - 2.0 * z[1];
        let r1 = 3.0 * z[0] + (s - 0.5 * one) * z[1];
        assert!((r0 - b[0]).norm() < 1e-14 && (r1 - b[1]).norm() < 1e-14);
    }
}
