//! Tsitouras's explicit Runge–Kutta pair of order 5(4) with its continuous extension of order 4,
//! on the explicit engine ([`super::explicit`]).
//!
//! Ch. Tsitouras, "Runge–Kutta pairs of order 5(4) satisfying only the first column simplifying
//! assumption", Computers & Mathematics with Applications 62 (2011) 770–775. Coefficients as in
//! diffsol 0.18's `Tableau::tsit45` (src/ode_solver/tableau.rs: the pair, the error weights
//! `d = b − b̂` and the dense-output polynomials `b_i(θ) = Σ_j r_ij θ^j`, whose full-precision
//! values it lists), which in turn follows OrdinaryDiffEq's `Tsit5`. The first column is
//! `a_i1 = c_i − Σ_{j>1} a_ij` (row sums), evaluated once here in f64 as diffsol does. Seven
//! stages, the seventh at the new state (first same as last): six right-hand sides per step.
//!
//! The same method as diffsol's `tsit45` (the name `tsit45` keeps meaning diffsol's solver);
//! this one runs on stack arrays with a precomputed tableau and a copy-only save, and its
//! step-size controller is DOPRI5's (HNW I §II.4: β = 0.04, h_new/h ∈ [0.2, 10]).

use super::super::{SolverStats, VectorField};
use super::explicit::{stage_state, Dense, ErrorScale, ExplicitPair, Vector, MAX_STATE};
use super::numerics::eval_rhs;

/// Nodes c_2 … c_6 (c_1 = 0, c_7 = 1).
const C: [f64; 7] = [0.0, 0.161, 0.327, 0.9, 0.9800255409045097, 1.0, 1.0];

/// The stage coefficients a_ij (row i, j < i), the first column from the row sums.
const A: [[f64; 6]; 6] = [
    [0.0; 6],
    [C[1], 0.0, 0.0, 0.0, 0.0, 0.0],
    [-0.008480655492356992, 0.335480655492357, 0.0, 0.0, 0.0, 0.0],
    [
        2.8971530571054944,
        -6.359448489975075,
        4.362295432869581,
        0.0,
        0.0,
        0.0,
    ],
    [
        5.32586482843926,
        -11.74888356406283,
        7.495539342889836,
        -0.09249506636175525,
        0.0,
        0.0,
    ],
    [
        5.86145544294642,
        -12.92096931784711,
        8.159367898576159,
        -0.071584973281401,
        -0.02826905039406838,
        0.0,
    ],
];

/// Weights of the 5th-order solution (b_7 = 0).
const B: [f64; 6] = [
    0.09646076681806523,
    0.01,
    0.4798896504144996,
    1.379008574103742,
    -3.290069515436081,
    2.324710524099774,
];

/// Error weights d = b − b̂ (the 7th on f(y_new)).
const D: [f64; 7] = [
    -0.001780011052225777,
    -0.0008164344596567469,
    0.007880878010261995,
    -0.1447110071732629,
    0.5823571654525552,
    -0.45808210592918697,
    0.015151515151515152,
];

/// Dense output: `R[j][i]` is the coefficient of θ^(j+1) in b_i(θ) (Tsitouras's r_i,j+1), so
/// that `y(θ) = y0 + h Σ_i b_i(θ) k_i` and b_i(1) = b_i.
const R: [[f64; 7]; 4] = [
    [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [
        -2.763706197274826,
        0.13169999999999998,
        3.9302962368947516,
        -12.411077166933676,
        37.50931341651104,
        -27.896526289197286,
        1.5,
    ],
    [
        2.9132554618219126,
        -0.2234,
        -5.941033872131505,
        30.33818863028232,
        -88.1789048947664,
        65.09189467479366,
        -4.0,
    ],
    [
        -1.0530884977290216,
        0.1017,
        2.490627285651253,
        -16.548102889244902,
        47.37952196281928,
        -34.87065786149661,
        2.5,
    ],
];

/// Tsitouras 5(4) (the native `tsit5`).
pub struct Tsit5;

impl ExplicitPair for Tsit5 {
    const NAME: &'static str = "tsit5";
    const ORDER: u32 = 5;
    /// DOPRI5's EXPO1 = 1/5 − 0.75 β.
    const EXPONENT: f64 = 0.2 - 0.75 * Self::BETA;
    const BETA: f64 = 0.04;
    const MIN_SHRINK: f64 = 0.2;
    const MAX_GROWTH: f64 = 10.0;
    /// k_1 … k_6 (k_7 is the next step's k_1).
    type Stages = [Vector; 6];

    fn new_stages() -> Self::Stages {
        [[0.0; MAX_STATE]; 6]
    }

    fn attempt<F: VectorField>(
        f: &F,
        n: usize,
        h: f64,
        y0: &Vector,
        f0: &Vector,
        tol: &ErrorScale,
        k: &mut Self::Stages,
        y1: &mut Vector,
        f1: &mut Vector,
        stats: &mut SolverStats,
    ) -> f64 {
        k[0] = *f0;
        let mut stage = [0.0; MAX_STATE];
        for s in 1..6 {
            stage_state(n, &A[s], s, h, y0, k, &mut stage);
            eval_rhs(f, &stage[..n], &mut k[s][..n], stats);
        }
        stage_state(n, &B, B.len(), h, y0, k, y1);
        eval_rhs(f, &y1[..n], &mut f1[..n], stats);
        let mut sum = 0.0;
        for i in 0..n {
            let mut e = D[6] * f1[i];
            for (j, kj) in k.iter().enumerate() {
                e += D[j] * kj[i];
            }
            let r = h * e / tol.of(i, y0, y1);
            sum += r * r;
        }
        (sum / n as f64).sqrt()
    }

    /// `dense[j] = h Σ_i r_i,j+1 k_i`, j = 0…3: then y(θ) = y0 + Σ_j θ^(j+1) `dense[j]`.
    fn dense<F: VectorField>(
        _f: &F,
        n: usize,
        h: f64,
        _y0: &Vector,
        _y1: &Vector,
        f1: &Vector,
        k: &mut Self::Stages,
        dense: &mut Dense,
        _stats: &mut SolverStats,
    ) {
        // R's first row is (1, 0, …, 0) (tested below): dense[0] = h k₀, the same number as the
        // sum below, whose other terms are zeros.
        for (out, &k0) in dense[0][..n].iter_mut().zip(&k[0][..n]) {
            *out = h * k0;
        }
        for (row, out) in R.iter().zip(dense.iter_mut()).skip(1) {
            for i in 0..n {
                let mut acc = row[6] * f1[i];
                for (j, kj) in k.iter().enumerate() {
                    acc += row[j] * kj[i];
                }
                out[i] = h * acc;
            }
        }
    }

    /// `y0 + θ(d0 + θ(d1 + θ(d2 + θ d3)))`.
    const DENSE_ROWS: usize = 4;

    #[inline]
    fn interpolate(n: usize, theta: f64, y0: &Vector, dense: &Dense, out: &mut [f64]) {
        let [d0, d1, d2, d3, ..] = dense;
        let terms = d0[..n].iter().zip(&d1[..n]).zip(&d2[..n]).zip(&d3[..n]);
        for ((o, &y), (((&a, &b), &c), &d)) in out[..n].iter_mut().zip(&y0[..n]).zip(terms) {
            *o = y + theta * (a + theta * (b + theta * (c + theta * d)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tableau's order conditions that a transcription error would break: rows sum to the
    /// nodes (the first column is defined so; checked against the listed c), the weights sum
    /// to 1, the error weights to 0, the dense output at θ = 1 is the step (b_i(1) = b_i).
    #[test]
    fn tableau_is_consistent() {
        for (s, row) in A.iter().enumerate().skip(1) {
            assert!((row.iter().sum::<f64>() - C[s]).abs() < 1e-15, "row {s}");
        }
        assert!((B.iter().sum::<f64>() - 1.0).abs() < 1e-15);
        assert!(D.iter().sum::<f64>().abs() < 1e-15);
        // Second- and third-order conditions Σ b_i c_i = 1/2, Σ b_i c_i² = 1/3.
        let bc: f64 = B.iter().zip(C).map(|(b, c)| b * c).sum();
        let bc2: f64 = B.iter().zip(C).map(|(b, c)| b * c * c).sum();
        assert!((bc - 0.5).abs() < 1e-14 && (bc2 - 1.0 / 3.0).abs() < 1e-14);
        assert_eq!(
            R[0],
            [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            "dense() takes row 0 as h k₀"
        );
        for i in 0..7 {
            let at_one: f64 = R.iter().map(|r| r[i]).sum();
            let b = if i < 6 { B[i] } else { 0.0 };
            assert!((at_one - b).abs() < 1e-14, "b_{i}(1) = {at_one} vs {b}");
        }
    }
}
