//! Truncated Taylor series ("jets") in one variable: `Σ_{k<K} c_k s^k`, arithmetic modulo
//! `s^K`. Evaluating a model function written over [`Real`] on jets gives the Taylor
//! coefficients of its composition with a curve; [`flow_jet`] gives those of a vector field's
//! flow. The rigid formulation uses them to choose the mode after a start or a stop by the sign
//! of the leading Taylor coefficient of the cone margin on (t₀, t₀ + η), not by its value at t₀
//! (docs/klarbring.md, "Mode after a start or a stop").

use super::Real;
use std::ops::{Add, Div, Mul, Neg, Sub};

/// `c[0] + c[1] s + … + c[K−1] s^{K−1}`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Jet<const K: usize> {
    pub c: [f64; K],
}

impl<const K: usize> Jet<K> {
    /// The variable `x0 + s`.
    pub fn variable(x0: f64) -> Self {
        let mut c = [0.0; K];
        c[0] = x0;
        if K > 1 {
            c[1] = 1.0;
        }
        Jet { c }
    }

    /// `∫₀^s` of the series (the last coefficient drops out of the truncation).
    pub fn integral(self, start: f64) -> Self {
        let mut c = [0.0; K];
        c[0] = start;
        for (k, ck) in c.iter_mut().enumerate().skip(1) {
            *ck = self.c[k - 1] / k as f64;
        }
        Jet { c }
    }

    /// Index and value of the first coefficient with `|c_k| > tol` (`None`: all within `tol`).
    pub fn leading(&self, tol: f64) -> Option<(usize, f64)> {
        self.c
            .iter()
            .enumerate()
            .find(|(_, v)| v.abs() > tol)
            .map(|(k, &v)| (k, v))
    }
}

impl<const K: usize> Add for Jet<K> {
    type Output = Self;
    fn add(mut self, o: Self) -> Self {
        for (a, b) in self.c.iter_mut().zip(o.c) {
            *a += b;
        }
        self
    }
}
impl<const K: usize> Sub for Jet<K> {
    type Output = Self;
    fn sub(mut self, o: Self) -> Self {
        for (a, b) in self.c.iter_mut().zip(o.c) {
            *a -= b;
        }
        self
    }
}
impl<const K: usize> Neg for Jet<K> {
    type Output = Self;
    fn neg(mut self) -> Self {
        for a in self.c.iter_mut() {
            *a = -*a;
        }
        self
    }
}
impl<const K: usize> Mul for Jet<K> {
    type Output = Self;
    /// The Cauchy product.
    fn mul(self, o: Self) -> Self {
        let mut c = [0.0; K];
        for (k, ck) in c.iter_mut().enumerate() {
            *ck = (0..=k).map(|j| self.c[j] * o.c[k - j]).sum();
        }
        Jet { c }
    }
}
impl<const K: usize> Div for Jet<K> {
    type Output = Self;
    /// q = a/b from b q = a: q_k = (a_k − Σ_{j≥1} b_j q_{k−j}) / b_0 (b_0 ≠ 0).
    fn div(self, o: Self) -> Self {
        let mut q = [0.0; K];
        for k in 0..K {
            let s: f64 = (1..=k).map(|j| o.c[j] * q[k - j]).sum();
            q[k] = (self.c[k] - s) / o.c[0];
        }
        Jet { c: q }
    }
}

impl<const K: usize> Real for Jet<K> {
    fn cst(x: f64) -> Self {
        let mut c = [0.0; K];
        c[0] = x;
        Jet { c }
    }
    fn value(self) -> f64 {
        self.c[0]
    }
    fn sin(self) -> Self {
        sin_cos(self).0
    }
    fn cos(self) -> Self {
        sin_cos(self).1
    }
    /// r² = x: r_k = (x_k − Σ_{0<j<k} r_j r_{k−j}) / (2 r_0) (x_0 > 0).
    fn sqrt(self) -> Self {
        let mut r = [0.0; K];
        r[0] = self.c[0].sqrt();
        for k in 1..K {
            let s: f64 = (1..k).map(|j| r[j] * r[k - j]).sum();
            r[k] = (self.c[k] - s) / (2.0 * r[0]);
        }
        Jet { c: r }
    }
    /// e' = e x': k e_k = Σ_{j=1..k} j x_j e_{k−j}.
    fn exp(self) -> Self {
        let mut e = [0.0; K];
        e[0] = Real::exp(self.c[0]);
        for k in 1..K {
            let s: f64 = (1..=k).map(|j| j as f64 * self.c[j] * e[k - j]).sum();
            e[k] = s / k as f64;
        }
        Jet { c: e }
    }
    /// l' x = x': k l_k x_0 = k x_k − Σ_{j=1..k−1} j l_j x_{k−j} (x_0 > 0).
    fn ln(self) -> Self {
        let mut l = [0.0; K];
        l[0] = Real::ln(self.c[0]);
        for k in 1..K {
            let s: f64 = (1..k).map(|j| j as f64 * l[j] * self.c[k - j]).sum();
            l[k] = (k as f64 * self.c[k] - s) / (k as f64 * self.c[0]);
        }
        Jet { c: l }
    }
}

/// sin and cos together: with u = sin x, v = cos x, u' = v x', v' = −u x', so
/// k u_k = Σ_{j=1..k} j x_j v_{k−j} and k v_k = −Σ j x_j u_{k−j}.
fn sin_cos<const K: usize>(x: Jet<K>) -> (Jet<K>, Jet<K>) {
    let mut u = [0.0; K];
    let mut v = [0.0; K];
    (u[0], v[0]) = Real::sin_cos(x.c[0]);
    for k in 1..K {
        let (mut su, mut sv) = (0.0, 0.0);
        for j in 1..=k {
            su += j as f64 * x.c[j] * v[k - j];
            sv += j as f64 * x.c[j] * u[k - j];
        }
        u[k] = su / k as f64;
        v[k] = -sv / k as f64;
    }
    (Jet { c: u }, Jet { c: v })
}

/// The Taylor coefficients (order < K) of the flow of `field` from `y0`: Picard's iteration
/// `y ← y0 + ∫₀^s field(y)` on jets gains one exact order per pass.
pub fn flow_jet<const K: usize>(
    y0: &[f64],
    field: impl Fn(&[Jet<K>], &mut [Jet<K>]),
) -> Vec<Jet<K>> {
    let mut y: Vec<Jet<K>> = y0.iter().map(|&v| Jet::cst(v)).collect();
    let mut dy = y.clone();
    for _ in 0..K {
        field(&y, &mut dy);
        for (yi, (dyi, &y0i)) in y.iter_mut().zip(dy.iter().zip(y0)) {
            *yi = dyi.integral(y0i);
        }
    }
    y
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Jets of sin, cos, sqrt and a quotient against their known series.
    #[test]
    fn jet_series_match_known_expansions() {
        let x = Jet::<6>::variable(0.0);
        let s = x.sin();
        let expected = [0.0, 1.0, 0.0, -1.0 / 6.0, 0.0, 1.0 / 120.0];
        for (a, b) in s.c.iter().zip(expected) {
            assert!((a - b).abs() < 1e-15);
        }
        // √(1 + s) = 1 + s/2 − s²/8 + s³/16 − 5s⁴/128.
        let r = (Jet::<5>::cst(1.0) + Jet::variable(0.0)).sqrt();
        for (a, b) in r.c.iter().zip([1.0, 0.5, -0.125, 0.0625, -5.0 / 128.0]) {
            assert!((a - b).abs() < 1e-15);
        }
        // 1/(1 − s) = Σ s^k.
        let q = Jet::<5>::cst(1.0) / (Jet::cst(1.0) - Jet::variable(0.0));
        assert!(q.c.iter().all(|&c| (c - 1.0).abs() < 1e-15));
        // exp(s) = Σ s^k/k!; ln(exp(0.7 + s)) = 0.7 + s.
        let e = Jet::<5>::variable(0.0).exp();
        for (a, b) in e.c.iter().zip([1.0, 1.0, 0.5, 1.0 / 6.0, 1.0 / 24.0]) {
            assert!((a - b).abs() < 1e-15);
        }
        let l = Jet::<5>::variable(0.7).exp().ln();
        for (a, b) in l.c.iter().zip([0.7, 1.0, 0.0, 0.0, 0.0]) {
            assert!((a - b).abs() < 1e-14, "{:?}", l.c);
        }
        // cos(0.3 + s) at order 2: −cos(0.3)/2.
        let c = Jet::<3>::variable(0.3).cos();
        assert!((c.c[2] + 0.3f64.cos() / 2.0).abs() < 1e-15);
    }

    /// The flow of y' = y from 1 is e^s: coefficients 1/k!.
    #[test]
    fn flow_jet_of_exponential_growth() {
        let y = flow_jet::<7>(&[1.0], |y, dy| dy[0] = y[0]);
        let mut f = 1.0;
        for k in 0..7 {
            if k > 0 {
                f *= k as f64;
            }
            assert!((y[0].c[k] - 1.0 / f).abs() < 1e-15, "order {k}");
        }
    }
}
