//! DOP853: Dormand and Prince's explicit Runge–Kutta method of order 8 with Hairer's error
//! estimate of orders 5 and 3 and a continuous extension of order 7, on the explicit engine
//! ([`super::explicit`]).
//!
//! E. Hairer, S. P. Nørsett, G. Wanner, Solving Ordinary Differential Equations I, 2nd ed.,
//! §II.5 and §II.10, and Hairer's code dop853.f. The coefficients are SciPy's
//! `scipy/integrate/_ivp/dop853_coefficients.py` (a transcription of dop853.f's; each row of `A`
//! sums to its node to 1e-15, and the error weights to 0), and the error norm and dense output
//! follow SciPy's `DOP853` in `scipy/integrate/_ivp/rk.py` (`_estimate_error_norm`,
//! `_dense_output_impl`, `Dop853DenseOutput`), which are dop853.f's ERR/DENOM and CONTD8.
//! Twelve stages (the 13th at the new state is the next step's first), and three more for the
//! dense output: 15 right-hand sides per accepted step, every step (the scan interpolates each).

use super::super::{SolverStats, VectorField};
use super::explicit::{Dense, ErrorScale, ExplicitPair, Vector, MAX_STATE};
use super::numerics::eval_rhs;

/// Stage coefficients a_ij, rows 1–15 (row 12 is the solution weights b; rows 13–15 the
/// three extra stages of the dense output), columns j < i.
const A: [[f64; 15]; 16] = [
    [
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    ],
    [
        0.05260015195876773,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
    ],
    [
        0.0197250569845379,
        0.0591751709536137,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
    ],
    [
        0.02958758547680685,
        0.0,
        0.08876275643042054,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
    ],
    [
        0.2413651341592667,
        0.0,
        -0.8845494793282861,
        0.924834003261792,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
    ],
    [
        0.037037037037037035,
        0.0,
        0.0,
        0.17082860872947386,
        0.12546768756682242,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
    ],
    [
        0.037109375,
        0.0,
        0.0,
        0.17025221101954405,
        0.06021653898045596,
        -0.017578125,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
    ],
    [
        0.03709200011850479,
        0.0,
        0.0,
        0.17038392571223998,
        0.10726203044637328,
        -0.015319437748624402,
        0.008273789163814023,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
    ],
    [
        0.6241109587160757,
        0.0,
        0.0,
        -3.3608926294469414,
        -0.868219346841726,
        27.59209969944671,
        20.154067550477894,
        -43.48988418106996,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
    ],
    [
        0.47766253643826434,
        0.0,
        0.0,
        -2.4881146199716677,
        -0.590290826836843,
        21.230051448181193,
        15.279233632882423,
        -33.28821096898486,
        -0.020331201708508627,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
    ],
    [
        -0.9371424300859873,
        0.0,
        0.0,
        5.186372428844064,
        1.0914373489967295,
        -8.149787010746927,
        -18.52006565999696,
        22.739487099350505,
        2.4936055526796523,
        -3.0467644718982196,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
    ],
    [
        2.273310147516538,
        0.0,
        0.0,
        -10.53449546673725,
        -2.0008720582248625,
        -17.9589318631188,
        27.94888452941996,
        -2.8589982771350235,
        -8.87285693353063,
        12.360567175794303,
        0.6433927460157636,
        0.0,
        0.0,
        0.0,
        0.0,
    ],
    [
        0.054293734116568765,
        0.0,
        0.0,
        0.0,
        0.0,
        4.450312892752409,
        1.8915178993145003,
        -5.801203960010585,
        0.3111643669578199,
        -0.1521609496625161,
        0.20136540080403034,
        0.04471061572777259,
        0.0,
        0.0,
        0.0,
    ],
    [
        0.056167502283047954,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.25350021021662483,
        -0.2462390374708025,
        -0.12419142326381637,
        0.15329179827876568,
        0.00820105229563469,
        0.007567897660545699,
        -0.008298,
        0.0,
        0.0,
    ],
    [
        0.03183464816350214,
        0.0,
        0.0,
        0.0,
        0.0,
        0.028300909672366776,
        0.053541988307438566,
        -0.05492374857139099,
        0.0,
        0.0,
        -0.00010834732869724932,
        0.0003825710908356584,
        -0.00034046500868740456,
        0.1413124436746325,
        0.0,
    ],
    [
        -0.42889630158379194,
        0.0,
        0.0,
        0.0,
        0.0,
        -4.697621415361164,
        7.683421196062599,
        4.06898981839711,
        0.3567271874552811,
        0.0,
        0.0,
        0.0,
        -0.0013990241651590145,
        2.9475147891527724,
        -9.15095847217987,
    ],
];
/// Error weights of the 5th-order estimate (E5) and of the 3rd-order one (E3), stages 1–12.
const E5: [f64; 12] = [
    0.01312004499419488,
    0.0,
    0.0,
    0.0,
    0.0,
    -1.2251564463762044,
    -0.4957589496572502,
    1.6643771824549864,
    -0.35032884874997366,
    0.3341791187130175,
    0.08192320648511571,
    -0.022355307863886294,
];
const E3: [f64; 12] = [
    -0.18980075407240762,
    0.0,
    0.0,
    0.0,
    0.0,
    4.450312892752409,
    1.8915178993145003,
    -5.801203960010585,
    -0.4226823213237919,
    -0.1521609496625161,
    0.20136540080403034,
    0.02265179219836082,
];
/// The dense output's coefficients d_4 … d_7 over the 16 stages (CONTD8's D).
const D: [[f64; 16]; 4] = [
    [
        -8.428938276109013,
        0.0,
        0.0,
        0.0,
        0.0,
        0.5667149535193777,
        -3.0689499459498917,
        2.38466765651207,
        2.117034582445028,
        -0.871391583777973,
        2.2404374302607883,
        0.6315787787694688,
        -0.08899033645133331,
        18.148505520854727,
        -9.194632392478356,
        -4.436036387594894,
    ],
    [
        10.427508642579134,
        0.0,
        0.0,
        0.0,
        0.0,
        242.28349177525817,
        165.20045171727028,
        -374.5467547226902,
        -22.113666853125306,
        7.733432668472264,
        -30.674084731089398,
        -9.332130526430229,
        15.697238121770845,
        -31.139403219565178,
        -9.35292435884448,
        35.81684148639408,
    ],
    [
        19.985053242002433,
        0.0,
        0.0,
        0.0,
        0.0,
        -387.0373087493518,
        -189.17813819516758,
        527.8081592054236,
        -11.57390253995963,
        6.8812326946963,
        -1.0006050966910838,
        0.7777137798053443,
        -2.778205752353508,
        -60.19669523126412,
        84.32040550667716,
        11.99229113618279,
    ],
    [
        -25.69393346270375,
        0.0,
        0.0,
        0.0,
        0.0,
        -154.18974869023643,
        -231.5293791760455,
        357.6391179106141,
        93.40532418362432,
        -37.45832313645163,
        104.0996495089623,
        29.8402934266605,
        -43.53345659001114,
        96.32455395918828,
        -39.17726167561544,
        -149.72683625798564,
    ],
];

/// Stages of the method proper (the 13th is f at the new state).
const STAGES: usize = 12;

/// The most terms a weighted sum of stages adds (a row of [`D`]).
const MAX_TERMS: usize = 16;

/// A weighted sum of stages `Σ_j c_j k_j` as the terms it adds, in stage order: each term's
/// stage and weight.
#[derive(Clone, Copy)]
struct Terms {
    stage: [u8; MAX_TERMS],
    weight: [f64; MAX_TERMS],
    len: usize,
}

impl Terms {
    const EMPTY: Terms = Terms {
        stage: [0; MAX_TERMS],
        weight: [0.0; MAX_TERMS],
        len: 0,
    };

    /// The first `count` terms of the row `c`, without those whose weight is zero when
    /// `skip_zeros`: dop853.f's stage sums, which write only the nonzero terms
    /// (`A41*K1(I)+A43*K3(I)`). Over finite stages the sum is bit for bit that of every term
    /// summed from 0.0: a zero weight adds ±0 to a partial sum that is never −0 (it starts at
    /// +0, and a rounded sum is −0 only when both addends are), which leaves it unchanged.
    const fn of_row(c: &[f64], count: usize, skip_zeros: bool) -> Terms {
        let mut terms = Terms::EMPTY;
        let mut j = 0;
        while j < count {
            if !(skip_zeros && c[j] == 0.0) {
                terms.stage[terms.len] = j as u8;
                terms.weight[terms.len] = c[j];
                terms.len += 1;
            }
            j += 1;
        }
        terms
    }
}

/// Every weighted sum of stages an attempt and a dense output take, by index: the stage
/// arguments (rows 1–15 of [`A`]; row 12 the new state) and the dense output's four (rows of
/// [`D`], from [`DENSE_SUMS`]) with their zero weights left out, the error estimates
/// ([`E5_SUM`], [`E3_SUM`]) with every term.
///
/// The sums without zero weights see finite stages wherever their result is used: within an
/// attempt, a non-finite stage among the twelve makes the error estimates non-finite (0·∞ is
/// NaN), so the attempt's error norm is not finite and the engine rejects it, whatever the
/// later stages, as when every sum kept its zero terms; the dense output's sums follow an
/// accepted attempt.
const SUMS: [Terms; SUM_COUNT] = {
    let mut sums = [Terms::EMPTY; SUM_COUNT];
    let mut s = 1;
    while s < 16 {
        sums[s] = Terms::of_row(&A[s], s, true);
        s += 1;
    }
    sums[E5_SUM] = Terms::of_row(&E5, STAGES, false);
    sums[E3_SUM] = Terms::of_row(&E3, STAGES, false);
    let mut r = 0;
    while r < 4 {
        sums[DENSE_SUMS + r] = Terms::of_row(&D[r], 16, true);
        r += 1;
    }
    sums
};
const E5_SUM: usize = 16;
const E3_SUM: usize = 17;
const DENSE_SUMS: usize = 18;
const SUM_COUNT: usize = 22;

/// What a weighted sum of stages `Σ_{j<count} c_j k_j` becomes, component by component.
#[derive(Clone, Copy)]
enum Finish<'a> {
    /// The sum itself (the error estimates).
    Sum,
    /// `h` times the sum (the dense output's last four vectors).
    Scaled(f64),
    /// `y0 + h` times the sum (a stage's argument, the new state).
    Step(f64, &'a Vector),
}

/// The weighted sum of stages `terms` over the first `W` components, each summed in stage
/// order from 0.0 and finished as `finish` says: the arithmetic of dop853.f's per-component
/// loops, with the components as the inner loop so that the compiler keeps the partial sums
/// in registers and pairs components in SIMD lanes. `W` is the state's length rounded up to an
/// even number ([`stage_sums_for`]); the components from the state's length on hold zeros in
/// every vector of the engine, and the zeros summed there are never read.
#[inline(always)]
fn stage_sum_of_width<const W: usize>(
    terms: &Terms,
    k: &[Vector],
    finish: Finish,
    out: &mut Vector,
) {
    let len = terms.len.min(MAX_TERMS);
    let (stages, weights) = (&terms.stage[..len], &terms.weight[..len]);
    let mut acc = [0.0; W];
    // Two terms per pass (one loop test for two), each component's two terms added in stage
    // order; an odd last term on its own.
    for (s, c) in stages.chunks_exact(2).zip(weights.chunks_exact(2)) {
        let (k0, k1) = (&k[s[0] as usize][..W], &k[s[1] as usize][..W]);
        for ((a, x0), x1) in acc.iter_mut().zip(k0).zip(k1) {
            *a += c[0] * x0;
            *a += c[1] * x1;
        }
    }
    if len % 2 == 1 {
        let (kl, cl) = (&k[stages[len - 1] as usize][..W], weights[len - 1]);
        for (a, x) in acc.iter_mut().zip(kl) {
            *a += cl * x;
        }
    }
    let out = &mut out[..W];
    match finish {
        Finish::Sum => out.copy_from_slice(&acc),
        Finish::Scaled(h) => {
            for (o, a) in out.iter_mut().zip(&acc) {
                *o = h * a;
            }
        }
        Finish::Step(h, y0) => {
            for ((o, y), a) in out.iter_mut().zip(&y0[..W]).zip(&acc) {
                *o = y + h * a;
            }
        }
    }
}

/// Sum `SUM` of [`SUMS`] over the first `W` components ([`stage_sum_of_width`]), compiled
/// with its terms as constants: the stages' places and the weights are immediate, the loop
/// over the terms unrolled.
#[inline(never)]
fn sum_of<const W: usize, const SUM: usize>(k: &[Vector], finish: Finish, out: &mut Vector) {
    stage_sum_of_width::<W>(&SUMS[SUM], k, finish, out)
}

/// One of [`SUMS`] at one width ([`sum_of`]).
type StageSum = fn(&[Vector], Finish, &mut Vector);

/// Every sum of [`SUMS`] at width `W`, in its order.
fn sums_of_width<const W: usize>() -> [StageSum; SUM_COUNT] {
    [
        sum_of::<W, 0>,
        sum_of::<W, 1>,
        sum_of::<W, 2>,
        sum_of::<W, 3>,
        sum_of::<W, 4>,
        sum_of::<W, 5>,
        sum_of::<W, 6>,
        sum_of::<W, 7>,
        sum_of::<W, 8>,
        sum_of::<W, 9>,
        sum_of::<W, 10>,
        sum_of::<W, 11>,
        sum_of::<W, 12>,
        sum_of::<W, 13>,
        sum_of::<W, 14>,
        sum_of::<W, 15>,
        sum_of::<W, 16>,
        sum_of::<W, 17>,
        sum_of::<W, 18>,
        sum_of::<W, 19>,
        sum_of::<W, 20>,
        sum_of::<W, 21>,
    ]
}

/// [`SUMS`] for a state of `n` components: one compiled loop per even width, so that the loop
/// over the components has a constant length (no remainder, no bounds checks) and wastes at
/// most one component. Chosen once per attempt, not per sum.
fn stage_sums_for(n: usize) -> [StageSum; SUM_COUNT] {
    match n {
        0..=2 => sums_of_width::<2>(),
        3..=4 => sums_of_width::<4>(),
        5..=6 => sums_of_width::<6>(),
        7..=8 => sums_of_width::<8>(),
        9..=10 => sums_of_width::<10>(),
        11..=12 => sums_of_width::<12>(),
        13..=14 => sums_of_width::<14>(),
        _ => sums_of_width::<MAX_STATE>(),
    }
}

/// CONTD8's Horner sequence (see [`Dop853::interpolate`]) over the first `W` components, the
/// components inner as in [`stage_sum_of_width`]; `out` (the state's length, at most `W`)
/// takes the first of them.
#[inline(never)]
fn interpolate_of_width<const W: usize>(theta: f64, y0: &Vector, dense: &Dense, out: &mut [f64]) {
    let rest = 1.0 - theta;
    let mut acc = [0.0; W];
    acc.copy_from_slice(&dense[6][..W]);
    for (r, d) in dense[..6].iter().enumerate().rev() {
        let factor = if r % 2 == 0 { rest } else { theta };
        for (a, di) in acc.iter_mut().zip(&d[..W]) {
            *a = di + factor * *a;
        }
    }
    for ((o, y), a) in out.iter_mut().zip(&y0[..W]).zip(&acc) {
        *o = y + theta * a;
    }
}

/// DOP853 (the native `dop853`).
pub struct Dop853;

impl ExplicitPair for Dop853 {
    const NAME: &'static str = "dop853";
    const ORDER: u32 = 8;
    /// dop853.f's EXPO1 = 1/8 − 0.2 β.
    const EXPONENT: f64 = 0.125 - 0.2 * Self::BETA;
    const BETA: f64 = 0.0;
    const MIN_SHRINK: f64 = 0.333;
    const MAX_GROWTH: f64 = 6.0;
    /// k_1 … k_16: the 12 stages, f at the new state, the 3 stages of the dense output.
    type Stages = [Vector; 16];

    fn new_stages() -> Self::Stages {
        [[0.0; MAX_STATE]; 16]
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
        let sums = stage_sums_for(n);
        let mut stage = [0.0; MAX_STATE];
        for s in 1..STAGES {
            sums[s](k, Finish::Step(h, y0), &mut stage);
            eval_rhs(f, &stage[..n], &mut k[s][..n], stats);
        }
        sums[STAGES](k, Finish::Step(h, y0), y1);
        eval_rhs(f, &y1[..n], &mut f1[..n], stats);
        // dop853.f: err = |h| Σ e5² / √(n (Σ e5² + 0.01 Σ e3²)) in the scaled components.
        let (mut e5, mut e3) = ([0.0; MAX_STATE], [0.0; MAX_STATE]);
        sums[E5_SUM](k, Finish::Sum, &mut e5);
        sums[E3_SUM](k, Finish::Sum, &mut e3);
        let (mut err5, mut err3) = (0.0, 0.0);
        for i in 0..n {
            let sc = tol.of(i, y0, y1);
            err5 += (e5[i] / sc) * (e5[i] / sc);
            err3 += (e3[i] / sc) * (e3[i] / sc);
        }
        let denom = err5 + 0.01 * err3;
        if denom == 0.0 {
            return 0.0;
        }
        h.abs() * err5 / (denom * n as f64).sqrt()
    }

    /// dop853.f's CONTD8 coefficients: `dense[0] = Δy`, `dense[1] = h f0 − Δy`,
    /// `dense[2] = 2Δy − h (f0 + f1)`, `dense[3 + r] = h Σ_j d_rj k_j` over the 16 stages.
    #[allow(clippy::needless_range_loop)]
    fn dense<F: VectorField>(
        f: &F,
        n: usize,
        h: f64,
        y0: &Vector,
        y1: &Vector,
        f1: &Vector,
        k: &mut Self::Stages,
        dense: &mut Dense,
        stats: &mut SolverStats,
    ) {
        k[STAGES] = *f1;
        let sums = stage_sums_for(n);
        let mut stage = [0.0; MAX_STATE];
        for s in STAGES + 1..16 {
            sums[s](k, Finish::Step(h, y0), &mut stage);
            eval_rhs(f, &stage[..n], &mut k[s][..n], stats);
        }
        for i in 0..n {
            let dy = y1[i] - y0[i];
            dense[0][i] = dy;
            dense[1][i] = h * k[0][i] - dy;
            dense[2][i] = 2.0 * dy - h * (f1[i] + k[0][i]);
        }
        for r in 0..4 {
            sums[DENSE_SUMS + r](k, Finish::Scaled(h), &mut dense[3 + r]);
        }
    }

    /// CONTD8's seven vectors, in θ and 1 − θ.
    const DENSE_ROWS: usize = 7;

    /// `y0 + θ(F0 + (1−θ)(F1 + θ(F2 + (1−θ)(F3 + θ(F4 + (1−θ)(F5 + θ F6))))))` (CONTD8), each
    /// component's Horner sequence as CONTD8's, over the state's length rounded up to an even
    /// width (`stage_sums_for`).
    #[inline]
    fn interpolate(n: usize, theta: f64, y0: &Vector, dense: &Dense, out: &mut [f64]) {
        let out = &mut out[..n];
        match n {
            0..=2 => interpolate_of_width::<2>(theta, y0, dense, out),
            3..=4 => interpolate_of_width::<4>(theta, y0, dense, out),
            5..=6 => interpolate_of_width::<6>(theta, y0, dense, out),
            7..=8 => interpolate_of_width::<8>(theta, y0, dense, out),
            9..=10 => interpolate_of_width::<10>(theta, y0, dense, out),
            11..=12 => interpolate_of_width::<12>(theta, y0, dense, out),
            13..=14 => interpolate_of_width::<14>(theta, y0, dense, out),
            _ => interpolate_of_width::<MAX_STATE>(theta, y0, dense, out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The nodes of the transcribed tableau (dop853.f's C2 … C16, SciPy's `C` rounded to f64:
    /// 1/3, 1/4, 4/13, 127/195, 3/5, 6/7, 1, 1, 1/10, 1/5, 7/9 from the sixth on), the row sums of `A` must
    /// equal them, the weights sum to 1 and the error weights to 0: a transcription error in any
    /// one coefficient breaks one of these.
    #[test]
    fn tableau_is_consistent() {
        let c = [
            0.0,
            0.05260015195876773,
            0.0789002279381516,
            0.1183503419072274,
            0.2816496580927726,
            0.3333333333333333,
            0.25,
            0.3076923076923077,
            0.6512820512820513,
            0.6,
            0.8571428571428571,
            1.0,
            1.0,
            0.1,
            0.2,
            0.7777777777777778,
        ];
        for (s, row) in A.iter().enumerate().skip(1) {
            let sum: f64 = row.iter().sum();
            assert!((sum - c[s]).abs() < 1e-14, "row {s}: {sum} vs {}", c[s]);
        }
        assert!((A[STAGES].iter().sum::<f64>() - 1.0).abs() < 1e-14);
        assert!(E5.iter().sum::<f64>().abs() < 1e-14);
        assert!(E3.iter().sum::<f64>().abs() < 1e-14);
        // Σ b_i c_i^(q−1) = 1/q for q = 2 … 8 (the bushy-tree conditions of order 8).
        for q in 2..=8 {
            let s: f64 = (0..STAGES).map(|i| A[STAGES][i] * c[i].powi(q - 1)).sum();
            assert!((s - 1.0 / q as f64).abs() < 1e-14, "q = {q}: {s}");
        }
    }

    /// Every sum of [`SUMS`], its zero weights left out, equals bit for bit its row's sum of
    /// every term from 0.0 in stage order (dop853.f's arithmetic with SciPy's full rows), on
    /// finite stages of both signs and magnitudes from 1e-20 to 1e20, zeros of both signs
    /// among them, at an odd, an even and the largest state length.
    #[test]
    fn sums_without_zero_weights_equal_the_full_rows() {
        let mut k = [[0.0; MAX_STATE]; 16];
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        for (j, kj) in k.iter_mut().enumerate() {
            for (i, v) in kj.iter_mut().enumerate() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let unit = (x >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
                *v = match (i + 3 * j) % 7 {
                    0 => -0.0,
                    1 => 0.0,
                    _ => unit * 10f64.powi((x % 41) as i32 - 20),
                };
            }
        }
        let rows = (1..16)
            .map(|s| (&A[s][..], s, s))
            .chain([(&E5[..], STAGES, E5_SUM), (&E3[..], STAGES, E3_SUM)])
            .chain((0..4).map(|r| (&D[r][..], 16, DENSE_SUMS + r)));
        for (row, count, index) in rows {
            for n in [7, 10, MAX_STATE] {
                let mut out = [0.0; MAX_STATE];
                stage_sums_for(n)[index](&k, Finish::Sum, &mut out);
                for (i, o) in out.iter().enumerate().take(n) {
                    let mut full = 0.0;
                    for (c, kj) in row.iter().zip(&k).take(count) {
                        full += c * kj[i];
                    }
                    assert_eq!(o.to_bits(), full.to_bits(), "sum {index}, n = {n}, i = {i}");
                }
            }
        }
    }
}
