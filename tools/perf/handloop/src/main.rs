//! The yardstick of one rod impact: hand-written, fixed-size explicit loops for Zhao–Liu's rod
//! impact (κ, μ = μ_s, θ0, u0; linear spring, uniform rod), compiled against std only, with
//! Tsitouras 5(4) (`tsit5`, the default) or Dormand–Prince 8(5,3) (`dop853`).
//!
//! `handloop RTOL REPEATS [tsit5|dop853]`: one JSON line (durations, post-impact state, steps,
//! right-hand sides, events, the median seconds of one impact over REPEATS impacts at
//! κ = 1e-8, μ = 2, θ0 = 1.3, u0 = −1, rtol = atol = RTOL).
//! `handloop atlas RUNS_CSV RTOL METHOD`: the undamped points of an atlas's runs.csv, each once,
//! at rtol RTOL and atol 1e-12; the seconds of the whole loop.
//!
//! Same as rigid-limit's native `tsit5` and `dop853` paths:
//! - the state [x_A, y_A, θ, ẋ_A, ẏ_A, θ̇, ∫F_n, ∫F_τ, ∫F_τ u, ∫damping] (10 components, the
//!   quadratures ride along and enter the error norm);
//! - the tableaux, the error norms (Tsit5: RMS, scale atol_i + rtol max(|y0_i|, |y1_i|);
//!   DOP853: dop853.f's |h| Σe5²/√(n(Σe5² + 0.01 Σe3²)) in the same scale), Hairer's controller
//!   (Tsit5: DOPRI5's with Lund's β = 0.04, h_new/h in [0.2, 10]; DOP853: dop853.f's β = 0,
//!   [0.333, 6]; safety 0.9, err_old floor 1e-4, no growth after a rejection), the dense outputs
//!   (Tsitouras's quartic; CONTD8 with its three extra stages), Hairer's initial step per phase,
//!   the stop-time stretch 1.01;
//! - the atol scaling: κ·atol for y_A, √κ·atol for ẏ_A;
//! - per step, 4 interior dense-output points and the step end, the switching functions of the
//!   mode (opening δ; slip stops u; stick breaks F_τ ± μ_s F_n) tested for a sign change toward
//!   the crossing side, Illinois on the dense output for the root, the earliest switch refined
//!   by re-stepping exactly to it and a Newton/Taylor correction (exact ġ and J f by dual
//!   numbers), a fresh integrator per phase.
//!
//! Not done here (the generic harness does it): observer extrema (peak force, max penetration),
//! the domain margins, the dip search between samples, the phase-start rule, the recorder and
//! the energy account.

use std::ops::{Add, Div, Mul, Neg, Sub};

const N: usize = 10;
type V = [f64; N];

// ---------------------------------------------------------------- dual numbers (events only)

#[derive(Clone, Copy, Debug)]
struct D {
    re: f64,
    eps: f64,
}
impl Add for D {
    type Output = D;
    fn add(self, o: D) -> D {
        D {
            re: self.re + o.re,
            eps: self.eps + o.eps,
        }
    }
}
impl Sub for D {
    type Output = D;
    fn sub(self, o: D) -> D {
        D {
            re: self.re - o.re,
            eps: self.eps - o.eps,
        }
    }
}
impl Mul for D {
    type Output = D;
    fn mul(self, o: D) -> D {
        D {
            re: self.re * o.re,
            eps: self.re * o.eps + self.eps * o.re,
        }
    }
}
impl Div for D {
    type Output = D;
    fn div(self, o: D) -> D {
        D {
            re: self.re / o.re,
            eps: (self.eps * o.re - self.re * o.eps) / (o.re * o.re),
        }
    }
}
impl Neg for D {
    type Output = D;
    fn neg(self) -> D {
        D {
            re: -self.re,
            eps: -self.eps,
        }
    }
}

trait Num:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    fn c(x: f64) -> Self;
    fn sc(self) -> (Self, Self);
}
/// sin and cos of one angle: the platform's, or with `--features libm` rigid-limit's.
#[inline(always)]
fn sin_cos(x: f64) -> (f64, f64) {
    #[cfg(feature = "libm")]
    return libm::sincos(x);
    #[cfg(not(feature = "libm"))]
    x.sin_cos()
}

impl Num for f64 {
    #[inline(always)]
    fn c(x: f64) -> f64 {
        x
    }
    #[inline(always)]
    fn sc(self) -> (f64, f64) {
        sin_cos(self)
    }
}
impl Num for D {
    fn c(x: f64) -> D {
        D { re: x, eps: 0.0 }
    }
    fn sc(self) -> (D, D) {
        let (s, c) = sin_cos(self.re);
        (
            D {
                re: s,
                eps: c * self.eps,
            },
            D {
                re: c,
                eps: -s * self.eps,
            },
        )
    }
}

// ---------------------------------------------------------------- the rod

#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    SlideLeft,
    Stick,
    SlideRight,
    Free,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Ev {
    Opens,
    SlipStops,
    BreaksRight,
    BreaksLeft,
}

#[derive(Clone, Copy)]
enum Crossing {
    Rising,
    Falling,
}
impl Crossing {
    #[inline(always)]
    fn start_side(self, g: f64) -> bool {
        match self {
            Crossing::Rising => g < 0.0,
            Crossing::Falling => g > 0.0,
        }
    }
    #[inline(always)]
    fn reached(self, g: f64) -> bool {
        match self {
            Crossing::Rising => g >= 0.0,
            Crossing::Falling => g <= 0.0,
        }
    }
}

fn watched(mode: Mode) -> &'static [(Ev, Crossing)] {
    use Crossing::*;
    match mode {
        Mode::SlideLeft => &[(Ev::Opens, Falling), (Ev::SlipStops, Rising)],
        Mode::SlideRight => &[(Ev::Opens, Falling), (Ev::SlipStops, Falling)],
        Mode::Stick => &[
            (Ev::Opens, Falling),
            (Ev::BreaksRight, Falling),
            (Ev::BreaksLeft, Falling),
        ],
        Mode::Free => &[],
    }
}

struct Rod {
    inv_kappa: f64,
    mu: f64,
    mu_s: f64,
    /// k = 1/ρ (3 for the uniform rod).
    k: f64,
}

impl Rod {
    /// (F_n, F_τ) of `mode` at y, given sin θ, cos θ (Zhao–Liu eq. (9); stick: u̇ = 0).
    #[inline(always)]
    fn forces<T: Num>(&self, mode: Mode, y: &[T], s: T, c: T) -> (T, T) {
        if mode == Mode::Free {
            return (T::c(0.0), T::c(0.0));
        }
        let fn_ = -y[1] * T::c(self.inv_kappa);
        let ft = match mode {
            Mode::SlideLeft => T::c(self.mu) * fn_,
            Mode::SlideRight => -(T::c(self.mu) * fn_),
            _ => {
                // u̇ = a + A F_τ + B F_n = 0, a = θ̇² c, A = 1 + k s², B = −k s c.
                let w = y[5];
                let a = w * w * c;
                let bb = -(T::c(self.k) * s * c);
                let aa = T::c(1.0) + T::c(self.k) * s * s;
                -(a + bb * fn_) / aa
            }
        };
        (fn_, ft)
    }

    #[inline(always)]
    fn field<T: Num>(&self, mode: Mode, y: &[T], dy: &mut [T]) {
        let (s, c) = y[2].sc();
        let (fn_, ft) = self.forces(mode, y, s, c);
        let k = T::c(self.k);
        let w2 = y[5] * y[5];
        let ksc = k * s * c;
        dy[0] = y[3];
        dy[1] = y[4];
        dy[2] = y[5];
        dy[3] = -(ksc * fn_) + (T::c(1.0) + k * s * s) * ft + w2 * c;
        dy[4] = (T::c(1.0) + k * c * c) * fn_ - ksc * ft + w2 * s - T::c(1.0);
        dy[5] = k * (-(c * fn_) + s * ft);
        dy[6] = fn_;
        dy[7] = ft;
        dy[8] = ft * y[3];
        dy[9] = T::c(0.0);
    }

    #[inline(always)]
    fn event<T: Num>(&self, mode: Mode, ev: Ev, y: &[T]) -> T {
        match ev {
            Ev::Opens => -y[1],
            Ev::SlipStops => y[3],
            Ev::BreaksRight | Ev::BreaksLeft => {
                let (s, c) = y[2].sc();
                let (fn_, ft) = self.forces(mode, y, s, c);
                let limit = T::c(self.mu_s) * fn_;
                if ev == Ev::BreaksRight {
                    ft + limit
                } else {
                    limit - ft
                }
            }
        }
    }

    /// All watched functions of `mode` at y: one sin/cos at most.
    #[inline(always)]
    fn events(&self, mode: Mode, y: &[f64], out: &mut [f64; 3]) {
        match mode {
            Mode::SlideLeft | Mode::SlideRight => {
                out[0] = -y[1];
                out[1] = y[3];
            }
            Mode::Stick => {
                let (s, c) = sin_cos(y[2]);
                let (fn_, ft) = self.forces(mode, y, s, c);
                let limit = self.mu_s * fn_;
                out[0] = -y[1];
                out[1] = ft + limit;
                out[2] = limit - ft;
            }
            Mode::Free => {}
        }
    }

    /// The mode after `ev` at y (Zhao–Liu eqs. (50), (52)).
    fn next_mode(&self, ev: Ev, y: &[f64]) -> Mode {
        if -y[1] <= 0.0 {
            return Mode::Free;
        }
        match ev {
            Ev::Opens => Mode::Free,
            Ev::BreaksRight => Mode::SlideRight,
            Ev::BreaksLeft => Mode::SlideLeft,
            Ev::SlipStops => {
                let (s, c) = sin_cos(y[2]);
                let (fn_, ft) = self.forces(Mode::Stick, y, s, c);
                let limit = self.mu_s * fn_;
                if ft > limit {
                    Mode::SlideLeft
                } else if ft < -limit {
                    Mode::SlideRight
                } else {
                    Mode::Stick
                }
            }
        }
    }
}

// ---------------------------------------------------------------- Tsitouras 5(4)

const A: [[f64; 6]; 6] = [
    [0.0; 6],
    [0.161, 0.0, 0.0, 0.0, 0.0, 0.0],
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
const B: [f64; 6] = [
    0.09646076681806523,
    0.01,
    0.4798896504144996,
    1.379008574103742,
    -3.290069515436081,
    2.324710524099774,
];
const DERR: [f64; 7] = [
    -0.001780011052225777,
    -0.0008164344596567469,
    0.007880878010261995,
    -0.1447110071732629,
    0.5823571654525552,
    -0.45808210592918697,
    0.015151515151515152,
];
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

// ---------------------------------------------------------------- DOP853

// Dormand–Prince 8(5,3), the coefficients of Hairer's dop853.f (as rigid-limit's
// src/integrate/native/dop853.rs transcribes them): stage rows 1–15 (row 12 the weights b,
// 13–15 the dense output's extra stages), the error weights of orders 5 and 3, CONTD8's d.
const A8: [[f64; 15]; 16] = [
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

const D8: [[f64; 16]; 4] = [
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

// ---------------------------------------------------------------- the explicit pair

const SAFETY: f64 = 0.9;
const ERR_OLD_FLOOR: f64 = 1e-4;
const STOP_STRETCH: f64 = 1.01;

/// An explicit embedded pair with a continuous extension, as rigid-limit's `ExplicitPair`:
/// the attempt (stages, new state, error in the weighted norm), the dense output of an
/// accepted step, its interpolant, the controller's constants.
trait Pair {
    /// Order of the propagated solution (Hairer's initial step).
    const ORDER: f64;
    const EXPONENT: f64;
    const BETA: f64;
    const MIN_SHRINK: f64;
    const MAX_GROWTH: f64;
    type Stages: Copy;
    type Dense: Copy;
    const STAGES0: Self::Stages;
    const DENSE0: Self::Dense;
    /// One attempt of size h from y0 (f0 = f(y0)): y1, f1 = f(y1), the error norm.
    #[allow(clippy::too_many_arguments)]
    fn attempt(
        f: &mut impl FnMut(&V, &mut V),
        h: f64,
        y0: &V,
        f0: &V,
        sc: &impl Fn(usize, f64, f64) -> f64,
        k: &mut Self::Stages,
        y1: &mut V,
        f1: &mut V,
    ) -> f64;
    /// The dense output of the accepted step y0 → y1 of size h with stages k.
    #[allow(clippy::too_many_arguments)]
    fn dense(
        f: &mut impl FnMut(&V, &mut V),
        h: f64,
        y0: &V,
        y1: &V,
        f1: &V,
        k: &mut Self::Stages,
        out: &mut Self::Dense,
    );
    fn interpolate(theta: f64, y0: &V, d: &Self::Dense, out: &mut V);
}

/// y0 + h Σ_{j<count} a_j k_j.
#[inline(always)]
fn stage(a: &[f64], count: usize, h: f64, y0: &V, k: &[V], out: &mut V) {
    for i in 0..N {
        let mut acc = 0.0;
        for (aj, kj) in a.iter().zip(k).take(count) {
            acc += aj * kj[i];
        }
        out[i] = y0[i] + h * acc;
    }
}

/// The nonzero terms of a row's first `count` weights, in stage order: (stages, weights,
/// count). DOP853's sums leave out the terms of zero weight, as dop853.f and rigid-limit's
/// DOP853 do (the same bits over finite stages; the error estimates keep every term).
#[derive(Clone, Copy)]
struct Terms {
    stage: [usize; 16],
    weight: [f64; 16],
    len: usize,
}

const fn nonzero_terms(row: &[f64], count: usize) -> Terms {
    let mut t = Terms {
        stage: [0; 16],
        weight: [0.0; 16],
        len: 0,
    };
    let mut j = 0;
    while j < count {
        if row[j] != 0.0 {
            t.stage[t.len] = j;
            t.weight[t.len] = row[j];
            t.len += 1;
        }
        j += 1;
    }
    t
}

const A8_TERMS: [Terms; 16] = {
    let mut rows = [nonzero_terms(&[], 0); 16];
    let mut s = 1;
    while s < 16 {
        rows[s] = nonzero_terms(&A8[s], s);
        s += 1;
    }
    rows
};

const D8_TERMS: [Terms; 4] = [
    nonzero_terms(&D8[0], 16),
    nonzero_terms(&D8[1], 16),
    nonzero_terms(&D8[2], 16),
    nonzero_terms(&D8[3], 16),
];

/// Σ_j w_j k_{s_j} over `t`'s terms, each component from 0.0 in stage order (the components
/// inner, so that they pair in SIMD lanes).
#[inline(always)]
fn terms_sum(t: &Terms, k: &[V]) -> V {
    let mut acc = [0.0; N];
    for (&s, &w) in t.stage[..t.len].iter().zip(&t.weight[..t.len]) {
        for (a, x) in acc.iter_mut().zip(&k[s]) {
            *a += w * x;
        }
    }
    acc
}

/// y0 + h Σ over `t`'s terms.
#[inline(always)]
fn sparse_stage(t: &Terms, h: f64, y0: &V, k: &[V], out: &mut V) {
    let acc = terms_sum(t, k);
    for i in 0..N {
        out[i] = y0[i] + h * acc[i];
    }
}

struct Tsit5;

impl Pair for Tsit5 {
    const ORDER: f64 = 5.0;
    const EXPONENT: f64 = 0.2 - 0.75 * 0.04;
    const BETA: f64 = 0.04;
    const MIN_SHRINK: f64 = 0.2;
    const MAX_GROWTH: f64 = 10.0;
    type Stages = [V; 6];
    type Dense = [V; 4];
    const STAGES0: [V; 6] = [[0.0; N]; 6];
    const DENSE0: [V; 4] = [[0.0; N]; 4];

    #[inline(always)]
    fn attempt(
        f: &mut impl FnMut(&V, &mut V),
        h: f64,
        y0: &V,
        f0: &V,
        sc: &impl Fn(usize, f64, f64) -> f64,
        k: &mut [V; 6],
        y1: &mut V,
        f1: &mut V,
    ) -> f64 {
        k[0] = *f0;
        let mut arg = [0.0; N];
        for s in 1..6 {
            stage(&A[s], s, h, y0, k, &mut arg);
            f(&arg, &mut k[s]);
        }
        stage(&B, 6, h, y0, k, y1);
        f(y1, f1);
        let mut sum = 0.0;
        for i in 0..N {
            let mut e = DERR[6] * f1[i];
            for j in 0..6 {
                e += DERR[j] * k[j][i];
            }
            let r = h * e / sc(i, y0[i], y1[i]);
            sum += r * r;
        }
        (sum / N as f64).sqrt()
    }

    #[inline(always)]
    fn dense(
        _f: &mut impl FnMut(&V, &mut V),
        h: f64,
        _y0: &V,
        _y1: &V,
        f1: &V,
        k: &mut [V; 6],
        out: &mut [V; 4],
    ) {
        // R's first row is (1, 0, …, 0): h k₁.
        for i in 0..N {
            out[0][i] = h * k[0][i];
        }
        for (row, o) in R.iter().zip(out.iter_mut()).skip(1) {
            for i in 0..N {
                let mut acc = row[6] * f1[i];
                for j in 0..6 {
                    acc += row[j] * k[j][i];
                }
                o[i] = h * acc;
            }
        }
    }

    #[inline(always)]
    fn interpolate(th: f64, y0: &V, d: &[V; 4], out: &mut V) {
        for i in 0..N {
            let p = d[0][i] + th * (d[1][i] + th * (d[2][i] + th * d[3][i]));
            out[i] = y0[i] + th * p;
        }
    }
}

struct Dop853;

impl Pair for Dop853 {
    const ORDER: f64 = 8.0;
    // dop853.f: EXPO1 = 1/8 − 0.2 β with β = 0; FAC1 = 0.333, FAC2 = 6.
    const EXPONENT: f64 = 0.125;
    const BETA: f64 = 0.0;
    const MIN_SHRINK: f64 = 0.333;
    const MAX_GROWTH: f64 = 6.0;
    type Stages = [V; 16];
    type Dense = [V; 7];
    const STAGES0: [V; 16] = [[0.0; N]; 16];
    const DENSE0: [V; 7] = [[0.0; N]; 7];

    #[inline(always)]
    fn attempt(
        f: &mut impl FnMut(&V, &mut V),
        h: f64,
        y0: &V,
        f0: &V,
        sc: &impl Fn(usize, f64, f64) -> f64,
        k: &mut [V; 16],
        y1: &mut V,
        f1: &mut V,
    ) -> f64 {
        k[0] = *f0;
        let mut arg = [0.0; N];
        for s in 1..12 {
            sparse_stage(&A8_TERMS[s], h, y0, k, &mut arg);
            f(&arg, &mut k[s]);
        }
        sparse_stage(&A8_TERMS[12], h, y0, k, y1);
        f(y1, f1);
        // dop853.f: err = |h| Σ e5² / √(n (Σ e5² + 0.01 Σ e3²)) in the scaled components.
        let (mut err5, mut err3) = (0.0, 0.0);
        for i in 0..N {
            let (mut e5, mut e3) = (0.0, 0.0);
            for j in 0..12 {
                e5 += E5[j] * k[j][i];
                e3 += E3[j] * k[j][i];
            }
            let s = sc(i, y0[i], y1[i]);
            err5 += (e5 / s) * (e5 / s);
            err3 += (e3 / s) * (e3 / s);
        }
        let denom = err5 + 0.01 * err3;
        if denom == 0.0 {
            return 0.0;
        }
        h.abs() * err5 / (denom * N as f64).sqrt()
    }

    #[inline(always)]
    fn dense(
        f: &mut impl FnMut(&V, &mut V),
        h: f64,
        y0: &V,
        y1: &V,
        f1: &V,
        k: &mut [V; 16],
        out: &mut [V; 7],
    ) {
        k[12] = *f1;
        let mut arg = [0.0; N];
        for s in 13..16 {
            sparse_stage(&A8_TERMS[s], h, y0, k, &mut arg);
            f(&arg, &mut k[s]);
        }
        for i in 0..N {
            let dy = y1[i] - y0[i];
            out[0][i] = dy;
            out[1][i] = h * k[0][i] - dy;
            out[2][i] = 2.0 * dy - h * (f1[i] + k[0][i]);
        }
        for (r, d) in D8_TERMS.iter().enumerate() {
            let acc = terms_sum(d, k);
            for i in 0..N {
                out[3 + r][i] = h * acc[i];
            }
        }
    }

    /// CONTD8: y0 + θ(F0 + (1−θ)(F1 + θ(F2 + (1−θ)(F3 + θ(F4 + (1−θ)(F5 + θ F6)))))).
    #[inline(always)]
    fn interpolate(theta: f64, y0: &V, d: &[V; 7], out: &mut V) {
        let rest = 1.0 - theta;
        for i in 0..N {
            let mut acc = d[6][i];
            for r in (0..6).rev() {
                acc = d[r][i] + if r % 2 == 0 { rest } else { theta } * acc;
            }
            out[i] = y0[i] + theta * acc;
        }
    }
}

// ---------------------------------------------------------------- the stepper

/// Everything that determines the future steps: saved and restored by a copy (the last
/// step's dense output is not part of it, as in rigid-limit's `ExplicitState`).
#[derive(Clone, Copy)]
struct St {
    t: f64,
    y: V,
    f0: V,
    h: f64,
    t_stop: f64,
    err_old: f64,
    rejected: bool,
}

/// The last accepted step: its start and its dense output.
struct Last<P: Pair> {
    t_prev: f64,
    h_last: f64,
    y_prev: V,
    dense: P::Dense,
}

struct Solver<'r, P: Pair> {
    rod: &'r Rod,
    mode: Mode,
    atol: V,
    rtol: f64,
    st: St,
    last: Last<P>,
    stages: P::Stages,
    rhs: usize,
    steps: usize,
}

fn wrms(v: &V, sc: &V) -> f64 {
    let mut s = 0.0;
    for i in 0..N {
        let x = v[i] / sc[i];
        s += x * x;
    }
    (s / N as f64).sqrt()
}

impl<'r, P: Pair> Solver<'r, P> {
    /// A fresh integrator in `mode` at phase time 0 from y0, Hairer's initial step (HNW I p. 169).
    fn start(
        rod: &'r Rod,
        mode: Mode,
        y0: &V,
        atol: V,
        rtol: f64,
        t_stop: f64,
        rhs: usize,
    ) -> Self {
        let mut f0 = [0.0; N];
        rod.field(mode, y0, &mut f0);
        let mut sc = [0.0; N];
        for i in 0..N {
            sc[i] = atol[i] + rtol * y0[i].abs();
        }
        let (d0, d1) = (wrms(y0, &sc), wrms(&f0, &sc));
        let h0 = if d0 < 1e-5 || d1 < 1e-5 {
            1e-6
        } else {
            0.01 * d0 / d1
        };
        let mut y1 = [0.0; N];
        for i in 0..N {
            y1[i] = y0[i] + h0 * f0[i];
        }
        let mut f1 = [0.0; N];
        rod.field(mode, &y1, &mut f1);
        for i in 0..N {
            f1[i] -= f0[i];
        }
        let d2 = wrms(&f1, &sc) / h0;
        let dmax = d1.max(d2);
        let h1 = if dmax <= 1e-15 {
            (1e-3 * h0).max(1e-6)
        } else {
            (0.01 / dmax).powf(1.0 / (P::ORDER + 1.0))
        };
        let min_step = 1e-8 * (1.0 / rod.inv_kappa).min(1.0);
        Solver {
            rod,
            mode,
            atol,
            rtol,
            st: St {
                t: 0.0,
                y: *y0,
                f0,
                h: (100.0 * h0).min(h1).max(min_step),
                t_stop,
                err_old: ERR_OLD_FLOOR,
                rejected: false,
            },
            last: Last {
                t_prev: 0.0,
                h_last: 0.0,
                y_prev: *y0,
                dense: P::DENSE0,
            },
            stages: P::STAGES0,
            rhs: rhs + 2,
            steps: 0,
        }
    }

    /// One accepted step; true when it ends at the stop time.
    fn step(&mut self) -> bool {
        let mut y1 = [0.0; N];
        let mut f1 = [0.0; N];
        let (rod, mode, rtol) = (self.rod, self.mode, self.rtol);
        let atol = self.atol;
        let rhs = std::cell::Cell::new(0);
        let mut f = |y: &V, dy: &mut V| {
            rhs.set(rhs.get() + 1);
            rod.field(mode, y, dy);
        };
        let sc = |i: usize, a: f64, b: f64| atol[i] + rtol * a.abs().max(b.abs());
        loop {
            let (t, h_prop, t_stop) = (self.st.t, self.st.h, self.st.t_stop);
            assert!(h_prop >= 1e-30, "step size collapsed");
            let (h, last) = if t + STOP_STRETCH * h_prop >= t_stop {
                (t_stop - t, true)
            } else {
                (h_prop, false)
            };
            let y0 = self.st.y;
            let err = P::attempt(
                &mut f,
                h,
                &y0,
                &self.st.f0,
                &sc,
                &mut self.stages,
                &mut y1,
                &mut f1,
            );
            assert!(err.is_finite(), "non-finite step");
            let fac11 = err.powf(P::EXPONENT);
            if err <= 1.0 {
                let fac = (fac11 / self.st.err_old.powf(P::BETA) / SAFETY)
                    .clamp(1.0 / P::MAX_GROWTH, 1.0 / P::MIN_SHRINK);
                self.st.err_old = err.max(ERR_OLD_FLOOR);
                let mut h_new = h / fac;
                P::dense(
                    &mut f,
                    h,
                    &y0,
                    &y1,
                    &f1,
                    &mut self.stages,
                    &mut self.last.dense,
                );
                let s = &mut self.st;
                if last && h < s.h {
                    h_new = s.h * (h_new / h).min(1.0);
                }
                if s.rejected {
                    h_new = h_new.min(if last { s.h } else { h });
                }
                self.last.t_prev = s.t;
                self.last.h_last = h;
                self.last.y_prev = s.y;
                s.t = if last { s.t_stop } else { s.t + h };
                s.y = y1;
                s.f0 = f1;
                s.h = h_new;
                s.rejected = false;
                self.steps += 1;
                self.rhs += rhs.get();
                return last;
            }
            self.rhs += rhs.replace(0);
            self.st.rejected = true;
            self.st.h = h / (fac11 / SAFETY).min(1.0 / P::MIN_SHRINK);
        }
    }

    #[inline(always)]
    fn interpolate(&self, t: f64, out: &mut V) {
        let l = &self.last;
        P::interpolate((t - l.t_prev) / l.h_last, &l.y_prev, &l.dense, out);
    }

    /// Illinois on the dense output (rigid-limit's `locate_root`).
    fn locate(&self, ev: Ev, mut a: f64, mut b: f64, mut ga: f64, mut gb: f64) -> f64 {
        if gb == 0.0 {
            return b;
        }
        let mut y = [0.0; N];
        let mut side = 0i8;
        for _ in 0..200 {
            if (b - a).abs() <= 4.0 * f64::EPSILON * a.abs().max(b.abs()) {
                break;
            }
            let mut c = (a * gb - b * ga) / (gb - ga);
            if !(c > a && c < b) {
                c = 0.5 * (a + b);
            }
            self.interpolate(c, &mut y);
            let gc = self.rod.event(self.mode, ev, &y);
            if gc == 0.0 {
                return c;
            }
            if (gc > 0.0) == (gb > 0.0) {
                b = c;
                gb = gc;
                if side == -1 {
                    ga *= 0.5;
                }
                side = -1;
            } else {
                a = c;
                ga = gc;
                if side == 1 {
                    gb *= 0.5;
                }
                side = 1;
            }
        }
        0.5 * (a + b)
    }

    /// Re-step from the saved step start exactly to the located time, then Newton on g along
    /// the flow with a second-order Taylor step (rigid-limit's `refine_event`).
    fn refine(&mut self, saved: &St, ev: Ev, t_located: f64) -> (f64, V) {
        let (t_prev, y_prev) = (saved.t, saved.y);
        let t_step = self.st.t;
        let h = t_step - t_prev;
        self.st = *saved;
        let mut at = t_prev;
        let mut y = y_prev;
        let mut target = t_located;
        for iter in 0..6 {
            if target < at {
                self.st = *saved;
                at = t_prev;
                y = y_prev;
            }
            if target - at > 200.0 * f64::EPSILON * (at.abs() + h.abs()) {
                self.st.t_stop = target;
                while !self.step() {}
                at = self.st.t;
                y = self.st.y;
            }
            let mut flow = [0.0; N];
            self.rod.field(self.mode, &y, &mut flow);
            let mut yd = [D::c(0.0); N];
            for i in 0..N {
                yd[i] = D {
                    re: y[i],
                    eps: flow[i],
                };
            }
            let g = self.rod.event(self.mode, ev, &yd);
            let dt = if g.eps != 0.0 && g.eps.is_finite() {
                -g.re / g.eps
            } else {
                0.0
            };
            if dt.abs() <= 1e-3 * h.abs() || iter == 5 {
                let mut jf = [D::c(0.0); N];
                self.rod.field(self.mode, &yd, &mut jf);
                for i in 0..N {
                    y[i] += dt * flow[i] + 0.5 * dt * dt * jf[i].eps;
                }
                return (at + dt, y);
            }
            target = (at + dt).clamp(t_prev, t_step);
        }
        unreachable!()
    }
}

// ---------------------------------------------------------------- the impact

#[derive(Debug, Default, Clone)]
struct Impact {
    slide: f64,
    stick: f64,
    reverse_slip: f64,
    t_sep: f64,
    v: f64,
    omega: f64,
    u: f64,
    steps: usize,
    rhs: usize,
    events: Vec<(Ev, f64, Mode)>,
}

#[inline(never)]
fn simulate_impact<P: Pair>(
    kappa: f64,
    mu: f64,
    theta0: f64,
    omega0: f64,
    u0: f64,
    rtol: f64,
    atol: f64,
) -> Impact {
    let rod = Rod {
        inv_kappa: 1.0 / kappa,
        mu,
        mu_s: mu,
        k: 3.0,
    };
    let mut y: V = [0.0; N];
    y[2] = theta0;
    y[3] = u0;
    y[5] = omega0;
    let mut at = [atol; N];
    at[1] *= kappa.min(1.0);
    at[4] *= kappa.sqrt().min(1.0);
    // At δ = δ̇ = 0 with b = −1 < 0 the contact closes; u0 < 0: slide left.
    assert!(u0 < 0.0);
    let mut mode = Mode::SlideLeft;
    let first_slip = mode;
    let (t_max, mut t) = (10.0, 0.0);
    let mut out = Impact::default();
    let mut rhs = 0;
    loop {
        let mut s = Solver::<P>::start(&rod, mode, &y, at, rtol, t_max - t, rhs);
        let w = watched(mode);
        let mut g_start = [0.0; 3];
        rod.events(mode, &y, &mut g_start);
        let (duration, y_end, ev) = 'phase: loop {
            let saved = s.st;
            let last = s.step();
            let (t0, t1) = (saved.t, s.st.t);
            let mut seg_start = t0;
            let mut g_end = [0.0; 3];
            let mut ys = [0.0; N];
            for k in 1..=5 {
                let seg_end = if k == 5 {
                    ys = s.st.y;
                    t1
                } else {
                    let ts = t0 + (t1 - t0) * k as f64 / 5.0;
                    s.interpolate(ts, &mut ys);
                    ts
                };
                rod.events(mode, &ys, &mut g_end);
                let mut switch: Option<(Ev, f64)> = None;
                for (j, &(ev, cr)) in w.iter().enumerate() {
                    if cr.start_side(g_start[j]) && cr.reached(g_end[j]) {
                        let tr = s.locate(ev, seg_start, seg_end, g_start[j], g_end[j]);
                        if switch.is_none_or(|(_, ts)| tr < ts) {
                            switch = Some((ev, tr));
                        }
                    }
                }
                if let Some((ev, tr)) = switch {
                    let (te, ye) = s.refine(&saved, ev, tr);
                    break 'phase (te, ye, Some(ev));
                }
                g_start = g_end;
                seg_start = seg_end;
            }
            if last {
                break 'phase (s.st.t, s.st.y, None);
            }
        };
        out.steps += s.steps;
        rhs = s.rhs;
        match mode {
            Mode::Stick => out.stick += duration,
            Mode::Free => {}
            m if m == first_slip => out.slide += duration,
            _ => out.reverse_slip += duration,
        }
        t += duration;
        y = y_end;
        let Some(ev) = ev else {
            panic!("no separation before t = {t_max}")
        };
        let next = rod.next_mode(ev, &y);
        out.events.push((ev, t, next));
        if mode != Mode::Free && next == Mode::Free {
            out.t_sep = t;
            out.u = y[3];
            out.v = y[4];
            out.omega = y[5];
            break;
        }
        mode = next;
    }
    out.rhs = rhs;
    out
}

/// The undamped points of an atlas's runs.csv (κ, μ, θ0, θ̇0, u0 from its columns; rows with
/// c_d ≠ 0 are left out: this loop has the linear spring only).
fn atlas_points(path: &str) -> Vec<[f64; 5]> {
    let text = std::fs::read_to_string(path).expect("readable runs.csv");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    let col = |name: &str| header.iter().position(|c| *c == name).expect(name);
    let [k, m, th, w, u, c] = ["kappa", "mu", "theta0", "omega0", "u0", "damping"].map(col);
    lines
        .map(|l| l.split(',').collect::<Vec<&str>>())
        .filter(|f| f[c].parse::<f64>() == Ok(0.0))
        .map(|f| [k, m, th, w, u].map(|i| f[i].parse().expect("a number")))
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("atlas") {
        // handloop atlas RUNS_CSV RTOL METHOD: every undamped point of an atlas once, in order;
        // prints the points and the seconds of the whole loop (one thread).
        let points = atlas_points(&args[2]);
        let rtol: f64 = args[3].parse().unwrap();
        let simulate = match args[4].as_str() {
            "tsit5" => simulate_impact::<Tsit5>,
            "dop853" => simulate_impact::<Dop853>,
            m => panic!("method {m}: expected tsit5 or dop853"),
        };
        let start = std::time::Instant::now();
        let mut steps = 0;
        for &[kappa, mu, theta0, omega0, u0] in &points {
            steps += simulate(
                std::hint::black_box(kappa),
                mu,
                theta0,
                omega0,
                u0,
                rtol,
                1e-12,
            )
            .steps;
        }
        println!(
            "{{\"method\": \"{}\", \"points\": {}, \"steps\": {steps}, \"seconds\": {:e}}}",
            args[4],
            points.len(),
            start.elapsed().as_secs_f64()
        );
        return;
    }
    let rtol: f64 = args.get(1).map_or(1e-10, |a| a.parse().unwrap());
    let repeats: usize = args.get(2).map_or(1, |a| a.parse().unwrap());
    let method = args.get(3).map_or("tsit5", String::as_str);
    let simulate = match method {
        "tsit5" => simulate_impact::<Tsit5>,
        "dop853" => simulate_impact::<Dop853>,
        m => panic!("method {m}: expected tsit5 or dop853"),
    };
    let mut r = Impact::default();
    // The median over the repeats, as rigid-limit's `simulate --repeat` reports it.
    let mut times = Vec::with_capacity(repeats);
    for _ in 0..repeats {
        let start = std::time::Instant::now();
        r = simulate(std::hint::black_box(1e-8), 2.0, 1.3, 0.0, -1.0, rtol, rtol);
        times.push(start.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    let per = times[times.len() / 2];
    println!(
        "{{\"method\": \"{method}\", \"rtol\": {rtol:e}, \"slide\": {:e}, \"stick\": {:e}, \"reverse_slip\": {:e}, \"t_sep\": {:e}, \"u\": {:e}, \"v\": {:e}, \"omega\": {:e}, \"steps\": {}, \"rhs\": {}, \"events\": \"{:?}\", \"seconds_per_impact\": {:e}}}",
        r.slide, r.stick, r.reverse_slip, r.t_sep, r.u, r.v, r.omega, r.steps, r.rhs, r.events, per
    );
}
