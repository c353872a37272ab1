//! RODAS4: the stiffly accurate, L-stable Rosenbrock method of order 4(3) with six stages of
//! Hairer and Wanner (E. Hairer, G. Wanner, Solving Ordinary Differential Equations II, 2nd
//! ed., §IV.7 "Rosenbrock-Type Methods", and the code RODAS with its coefficient set METH = 1,
//! subroutine ROCOE), a method of the engine in [`super::core`].
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

use super::super::{SolverStats, VectorField};
use super::core::{Attempt, OneStepMethod, StepCore, Tolerances, SAFETY};
use super::numerics::{self, eval_rhs};

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

/// RODAS4 (module docs), a method of the engine [`super::core::Native`].
pub struct Rodas4;

/// What of a Rodas4 run determines its future steps besides the [`StepCore`]: the last
/// accepted step's start state and dense coefficients.
#[derive(Clone)]
pub struct Rodas4State {
    y_prev: Vec<f64>,
    dense1: Vec<f64>,
    dense2: Vec<f64>,
}

/// Scratch vectors of one step attempt.
pub struct Rodas4Work {
    /// Stage solutions `U_1..U_6`.
    u: [Vec<f64>; STAGES],
    /// Stage argument; after the last stage the embedded solution `ŷ1`.
    ytmp: Vec<f64>,
    ynew: Vec<f64>,
    scale: Vec<f64>,
}

impl OneStepMethod for Rodas4 {
    const NAME: &'static str = "Rodas4";
    const ORDER: u32 = 4;
    const MIN_RTOL: f64 = 0.0;
    /// rodas.f's FAC2: the step grows at most 6×.
    const QUOT_MIN: f64 = 1.0 / 6.0;
    /// RODAS retries a rejected first step with the controller's proposal, like any other.
    const FIRST_REJECTION_FACTOR: Option<f64> = None;

    type State = Rodas4State;
    type Work = Rodas4Work;

    fn start(y0: &[f64]) -> (Rodas4State, Rodas4Work) {
        let n = y0.len();
        let v = || vec![0.0; n];
        let state = Rodas4State {
            y_prev: y0.to_vec(),
            dense1: v(),
            dense2: v(),
        };
        let work = Rodas4Work {
            u: [v(), v(), v(), v(), v(), v()],
            ytmp: v(),
            ynew: v(),
            scale: v(),
        };
        (state, work)
    }

    /// The six stages and the error estimate.
    fn attempt<F: VectorField>(
        f: &F,
        tol: &Tolerances,
        core: &StepCore,
        _s: &mut Rodas4State,
        w: &mut Rodas4Work,
        h: f64,
        stats: &mut SolverStats,
    ) -> Attempt {
        let lu = numerics::factor_shifted(core.jacobian(), 1.0 / (GAMMA * h));
        stats.lu_factorisations += 1;
        let Some(lu) = lu else {
            return Attempt::Singular;
        };
        let n = core.y.len();
        for i in 0..STAGES {
            // Right-hand side f(y0 + Σ a_ij U_j) + Σ (c_ij/h) U_j, then U_i = E⁻¹ (it).
            let (done, rest) = w.u.split_at_mut(i);
            let ui = &mut rest[0];
            if i == 0 {
                ui.copy_from_slice(&core.f0);
            } else {
                for (m, yt) in w.ytmp.iter_mut().enumerate() {
                    *yt = core.y[m] + (0..i).map(|j| A[i][j] * done[j][m]).sum::<f64>();
                }
                eval_rhs(f, &w.ytmp, ui, stats);
                for (m, r) in ui.iter_mut().enumerate() {
                    *r += (0..i).map(|j| C[i][j] * done[j][m]).sum::<f64>() / h;
                }
            }
            if !numerics::lu_solve(&lu, ui) || !numerics::all_finite(ui) {
                return Attempt::NonFinite;
            }
        }
        // Stiffly accurate: y1 = ŷ1 + U_6, with ŷ1 the argument of the 6th stage.
        for m in 0..n {
            w.ynew[m] = w.ytmp[m] + w.u[STAGES - 1][m];
        }
        numerics::error_scale(&tol.atol, tol.rtol, &core.y, &w.ynew, &mut w.scale);
        let err = numerics::wrms(&w.u[STAGES - 1], &w.scale);
        if err.is_finite() {
            Attempt::Done {
                err,
                safety: SAFETY,
            }
        } else {
            Attempt::NonFinite
        }
    }

    fn advance(core: &mut StepCore, s: &mut Rodas4State, w: &Rodas4Work) {
        for m in 0..core.y.len() {
            s.dense1[m] = (0..5).map(|j| D2[j] * w.u[j][m]).sum();
            s.dense2[m] = (0..5).map(|j| D3[j] * w.u[j][m]).sum();
        }
        s.y_prev.copy_from_slice(&core.y);
        core.y.copy_from_slice(&w.ynew);
    }

    fn interpolate(core: &StepCore, s: &Rodas4State, t: f64, out: &mut [f64]) {
        let x = (t - core.t_prev) / core.h_last;
        for (m, o) in out.iter_mut().enumerate().take(core.y.len()) {
            *o = (1.0 - x) * s.y_prev[m]
                + x * (core.y[m] + (1.0 - x) * (s.dense1[m] + x * s.dense2[m]));
        }
    }

    /// The Jacobian is evaluated anew at every accepted state (rodas.f); h as the controller
    /// proposes.
    fn propose(core: &mut StepCore, _s: &Rodas4State, _h: f64, h_new: f64, _last: bool) -> f64 {
        core.jac = None;
        h_new
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::DMatrix;

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
}
