//! The baseline of issue 15: a hand-written, fixed-size Tsitouras 5(4) loop for Zhao–Liu's rod
//! impact (κ, μ = μ_s, θ0, u0; linear spring, uniform rod), compiled against std only.
//!
//! Same as rigid-limit's native `tsit5` path:
//! - the state [x_A, y_A, θ, ẋ_A, ẏ_A, θ̇, ∫F_n, ∫F_τ, ∫F_τ u, ∫damping] (10 components, the
//!   quadratures ride along and enter the error norm);
//! - the tableau, the error norm (RMS, scale atol_i + rtol max(|y0_i|, |y1_i|)), DOPRI5's
//!   controller with Lund's stabilisation (β = 0.04, [0.2, 10], safety 0.9, err_old floor 1e-4,
//!   no growth after a rejection), Hairer's initial step per phase, the stop-time stretch 1.01;
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
const EXPONENT: f64 = 0.2 - 0.75 * 0.04;
const BETA: f64 = 0.04;
const SAFETY: f64 = 0.9;
const ERR_OLD_FLOOR: f64 = 1e-4;
const STOP_STRETCH: f64 = 1.01;

/// Everything a step changes: saved and restored by a copy.
#[derive(Clone, Copy)]
struct St {
    t: f64,
    y: V,
    f0: V,
    h: f64,
    t_stop: f64,
    t_prev: f64,
    h_last: f64,
    y_prev: V,
    dense: [V; 4],
    err_old: f64,
    rejected: bool,
}

struct Solver<'r> {
    rod: &'r Rod,
    mode: Mode,
    atol: V,
    rtol: f64,
    st: St,
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

impl<'r> Solver<'r> {
    #[inline(always)]
    fn f(&mut self, y: &V, dy: &mut V) {
        self.rhs += 1;
        self.rod.field(self.mode, y, dy);
    }

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
        let mut s = Solver {
            rod,
            mode,
            atol,
            rtol,
            st: St {
                t: 0.0,
                y: *y0,
                f0: [0.0; N],
                h: 0.0,
                t_stop,
                t_prev: 0.0,
                h_last: 0.0,
                y_prev: *y0,
                dense: [[0.0; N]; 4],
                err_old: ERR_OLD_FLOOR,
                rejected: false,
            },
            rhs,
            steps: 0,
        };
        let mut f0 = [0.0; N];
        s.f(y0, &mut f0);
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
        s.f(&y1, &mut f1);
        for i in 0..N {
            f1[i] -= f0[i];
        }
        let d2 = wrms(&f1, &sc) / h0;
        let dmax = d1.max(d2);
        let h1 = if dmax <= 1e-15 {
            (1e-3 * h0).max(1e-6)
        } else {
            (0.01 / dmax).powf(1.0 / 6.0)
        };
        let min_step = 1e-8 * (1.0 / rod.inv_kappa).min(1.0);
        s.st.h = (100.0 * h0).min(h1).max(min_step);
        s.st.f0 = f0;
        s
    }

    /// One accepted step; true when it ends at the stop time.
    fn step(&mut self) -> bool {
        let mut k = [[0.0; N]; 6];
        let mut y1 = [0.0; N];
        let mut f1 = [0.0; N];
        loop {
            let (t, h_prop, t_stop) = (self.st.t, self.st.h, self.st.t_stop);
            assert!(h_prop >= 1e-30, "step size collapsed");
            let (h, last) = if t + STOP_STRETCH * h_prop >= t_stop {
                (t_stop - t, true)
            } else {
                (h_prop, false)
            };
            let y0 = self.st.y;
            k[0] = self.st.f0;
            for s in 1..6 {
                let mut stage = [0.0; N];
                for i in 0..N {
                    let mut acc = 0.0;
                    for j in 0..s {
                        acc += A[s][j] * k[j][i];
                    }
                    stage[i] = y0[i] + h * acc;
                }
                let mut ks = [0.0; N];
                self.f(&stage, &mut ks);
                k[s] = ks;
            }
            for i in 0..N {
                let mut acc = 0.0;
                for j in 0..6 {
                    acc += B[j] * k[j][i];
                }
                y1[i] = y0[i] + h * acc;
            }
            self.f(&y1, &mut f1);
            let mut sum = 0.0;
            for i in 0..N {
                let mut e = DERR[6] * f1[i];
                for j in 0..6 {
                    e += DERR[j] * k[j][i];
                }
                let sc = self.atol[i] + self.rtol * y0[i].abs().max(y1[i].abs());
                let r = h * e / sc;
                sum += r * r;
            }
            let err = (sum / N as f64).sqrt();
            assert!(err.is_finite(), "non-finite step");
            let fac11 = err.powf(EXPONENT);
            if err <= 1.0 {
                let fac =
                    (fac11 / self.st.err_old.powf(BETA) / SAFETY).clamp(1.0 / 10.0, 1.0 / 0.2);
                self.st.err_old = err.max(ERR_OLD_FLOOR);
                let mut h_new = h / fac;
                let s = &mut self.st;
                for (row, out) in R.iter().zip(s.dense.iter_mut()) {
                    for i in 0..N {
                        let mut acc = row[6] * f1[i];
                        for j in 0..6 {
                            acc += row[j] * k[j][i];
                        }
                        out[i] = h * acc;
                    }
                }
                if last && h < s.h {
                    h_new = s.h * (h_new / h).min(1.0);
                }
                if s.rejected {
                    h_new = h_new.min(if last { s.h } else { h });
                }
                s.t_prev = s.t;
                s.h_last = h;
                s.t = if last { s.t_stop } else { s.t + h };
                s.y_prev = s.y;
                s.y = y1;
                s.f0 = f1;
                s.h = h_new;
                s.rejected = false;
                self.steps += 1;
                return last;
            }
            self.st.rejected = true;
            self.st.h = h / (fac11 / SAFETY).min(1.0 / 0.2);
        }
    }

    #[inline(always)]
    fn interpolate(&self, t: f64, out: &mut V) {
        let s = &self.st;
        let th = (t - s.t_prev) / s.h_last;
        let d = &s.dense;
        for i in 0..N {
            let p = d[0][i] + th * (d[1][i] + th * (d[2][i] + th * d[3][i]));
            out[i] = s.y_prev[i] + th * p;
        }
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
fn simulate_impact(kappa: f64, mu: f64, theta0: f64, u0: f64, rtol: f64, atol: f64) -> Impact {
    let rod = Rod {
        inv_kappa: 1.0 / kappa,
        mu,
        mu_s: mu,
        k: 3.0,
    };
    let mut y: V = [0.0; N];
    y[2] = theta0;
    y[3] = u0;
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
        let mut s = Solver::start(&rod, mode, &y, at, rtol, t_max - t, rhs);
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

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rtol: f64 = args.get(1).map_or(1e-10, |a| a.parse().unwrap());
    let repeats: usize = args.get(2).map_or(1, |a| a.parse().unwrap());
    let mut r = Impact::default();
    let start = std::time::Instant::now();
    for _ in 0..repeats {
        r = simulate_impact(std::hint::black_box(1e-8), 2.0, 1.3, -1.0, rtol, rtol);
    }
    let per = start.elapsed().as_secs_f64() / repeats as f64;
    println!(
        "{{\"rtol\": {rtol:e}, \"slide\": {:e}, \"stick\": {:e}, \"reverse_slip\": {:e}, \"t_sep\": {:e}, \"u\": {:e}, \"v\": {:e}, \"omega\": {:e}, \"steps\": {}, \"rhs\": {}, \"events\": \"{:?}\", \"seconds_per_impact\": {:e}}}",
        r.slide, r.stick, r.reverse_slip, r.t_sep, r.u, r.v, r.omega, r.steps, r.rhs, r.events, per
    );
}
