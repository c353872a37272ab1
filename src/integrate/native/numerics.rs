//! Numerics shared by the integrators written here ([`super::radau5`], [`super::rodas4`]): the
//! weighted error norm, the exact Jacobian from Jacobian–vector products, Hairer's automatic
//! initial step, and LU factorisations and solves on slices.

use super::super::{SolverStats, VectorField};
use nalgebra::{Complex, DMatrix, DVectorViewMut, LU};

/// Largest state whose scratch vectors [`initial_step`] keeps on the stack.
const STACK_STATE: usize = 16;

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
/// products with the unit vectors (counted: `n` JVPs, one Jacobian).
pub fn full_jacobian<F: VectorField>(f: &F, y: &[f64], stats: &mut SolverStats) -> DMatrix<f64> {
    let n = y.len();
    let mut jac = DMatrix::zeros(n, n);
    let mut unit = vec![0.0; n];
    for j in 0..n {
        unit[j] = 1.0;
        // Column-major storage: column j is one contiguous slice.
        f.jvp(y, &unit, &mut jac.as_mut_slice()[j * n..(j + 1) * n]);
        unit[j] = 0.0;
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
    // The scale, the Euler step and f there: on the stack for a small state (a phase start
    // of the explicit pairs allocates nothing), else on the heap.
    let mut stack = [0.0; 3 * STACK_STATE];
    let mut heap = Vec::new();
    let scratch = if n <= STACK_STATE {
        &mut stack[..3 * n]
    } else {
        heap.resize(3 * n, 0.0);
        &mut heap[..]
    };
    let (sc, rest) = scratch.split_at_mut(n);
    let (y1, f1) = rest.split_at_mut(n);
    state_scale(atol, rtol, y0, sc);
    let d0 = wrms(y0, sc);
    let d1 = wrms(f0, sc);
    let h0 = if d0 < 1e-5 || d1 < 1e-5 {
        1e-6
    } else {
        0.01 * d0 / d1
    };
    for ((y1, y), d) in y1.iter_mut().zip(y0).zip(f0) {
        *y1 = y + h0 * d;
    }
    eval_rhs(f, y1, f1, stats);
    for (a, b) in f1.iter_mut().zip(f0) {
        *a -= b;
    }
    let d2 = wrms(f1, sc) / h0;
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

#[cfg(test)]
mod tests {
    use super::*;

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
