//! The number type the model functions are written in.
//!
//! Model functions (mass matrix, forces, contact kinematics) are generic over [`Real`] so that the
//! same code runs on `f64` (right-hand side) and on [`Dual`] (forward-mode automatic
//! differentiation). The Jacobian–vector products the implicit integrators need are therefore
//! exact derivatives of the model as written — no finite differences, no hand-derived Jacobian
//! that can drift from the vector field.
//!
//! Their sine and cosine are the `libm` crate's (FreeBSD's msun kernels, error below one unit in
//! the last place), not the platform's: the same bits on every platform, and no save and
//! restore of the floating-point control register, which made glibc's `sincos` a fifth of
//! tsit5's wall time on the rod's impact (docs/performance.md, "The sine and cosine").

use std::ops::{Add, Div, Mul, Neg, Sub};

/// A real number type: `f64`, or a dual number carrying one directional derivative.
pub trait Real:
    Copy
    + std::fmt::Debug
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// A constant (zero derivative).
    fn cst(x: f64) -> Self;
    /// The value, without derivative: used for control flow (mode tests, `max(0, ·)`).
    fn value(self) -> f64;
    fn sin(self) -> Self;
    fn cos(self) -> Self;
    fn sqrt(self) -> Self;
    fn exp(self) -> Self;
    /// The natural logarithm.
    fn ln(self) -> Self;
    /// |x|; its derivative at 0 is taken as 0's sign, +1.
    fn abs(self) -> Self {
        if self.value() < 0.0 {
            -self
        } else {
            self
        }
    }
    fn tan(self) -> Self {
        let (s, c) = self.sin_cos();
        s / c
    }
    /// `(sin, cos)` of one angle, sharing its argument reduction.
    fn sin_cos(self) -> (Self, Self) {
        (self.sin(), self.cos())
    }
    fn zero() -> Self {
        Self::cst(0.0)
    }
    fn scale(self, k: f64) -> Self {
        self * Self::cst(k)
    }
}

impl Real for f64 {
    fn cst(x: f64) -> Self {
        x
    }
    fn value(self) -> f64 {
        self
    }
    fn sin(self) -> Self {
        libm::sin(self)
    }
    fn cos(self) -> Self {
        libm::cos(self)
    }
    fn sin_cos(self) -> (Self, Self) {
        libm::sincos(self)
    }
    fn sqrt(self) -> Self {
        f64::sqrt(self)
    }
    fn exp(self) -> Self {
        libm::exp(self)
    }
    fn ln(self) -> Self {
        libm::log(self)
    }
}

/// A dual number `re + eps·ε` with ε² = 0: evaluating `f(x + v ε)` gives `f(x) + (J v) ε`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dual {
    pub re: f64,
    pub eps: f64,
}

impl Dual {
    pub fn new(re: f64, eps: f64) -> Self {
        Dual { re, eps }
    }
}

impl Add for Dual {
    type Output = Dual;
    fn add(self, o: Dual) -> Dual {
        Dual::new(self.re + o.re, self.eps + o.eps)
    }
}
impl Sub for Dual {
    type Output = Dual;
    fn sub(self, o: Dual) -> Dual {
        Dual::new(self.re - o.re, self.eps - o.eps)
    }
}
impl Mul for Dual {
    type Output = Dual;
    fn mul(self, o: Dual) -> Dual {
        Dual::new(self.re * o.re, self.re * o.eps + self.eps * o.re)
    }
}
impl Div for Dual {
    type Output = Dual;
    fn div(self, o: Dual) -> Dual {
        let q = self.re / o.re;
        Dual::new(q, (self.eps - q * o.eps) / o.re)
    }
}
impl Neg for Dual {
    type Output = Dual;
    fn neg(self) -> Dual {
        Dual::new(-self.re, -self.eps)
    }
}

impl Real for Dual {
    fn cst(x: f64) -> Self {
        Dual::new(x, 0.0)
    }
    fn value(self) -> f64 {
        self.re
    }
    fn sin(self) -> Self {
        self.sin_cos().0
    }
    fn cos(self) -> Self {
        self.sin_cos().1
    }
    fn sin_cos(self) -> (Self, Self) {
        let (s, c) = Real::sin_cos(self.re);
        (Dual::new(s, self.eps * c), Dual::new(c, -self.eps * s))
    }
    fn sqrt(self) -> Self {
        let r = self.re.sqrt();
        Dual::new(r, self.eps / (2.0 * r))
    }
    fn exp(self) -> Self {
        let e = Real::exp(self.re);
        Dual::new(e, self.eps * e)
    }
    fn ln(self) -> Self {
        Dual::new(Real::ln(self.re), self.eps / self.re)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The model functions' sine and cosine (libm's) are within one unit in the last place of
    /// the platform's, which is itself within one of the exact value (glibc's; measured: over
    /// [−20, 20] they differ by one unit at 6 % of the arguments and never by more), and
    /// `sin_cos` is `sin` and `cos` bit for bit, for `f64` and for the value of a dual.
    #[test]
    fn sine_and_cosine_agree_with_the_platform_to_one_unit() {
        let ulps = |a: f64, b: f64| (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs();
        let n = 200_000;
        let mut differ = 0;
        for k in 0..n {
            // [−20, 20] and a few large arguments, where the reduction modulo π/2 is hardest.
            let x = if k % 1000 == 0 {
                1e6 * k as f64 + 0.1
            } else {
                -20.0 + 40.0 * (k as f64 + 0.5) / n as f64
            };
            let (s, c) = Real::sin_cos(x);
            assert_eq!((s, c), (Real::sin(x), Real::cos(x)), "x = {x}");
            let d = Real::sin_cos(Dual::new(x, 1.0));
            assert_eq!((d.0.re, d.1.re, d.0.eps, d.1.eps), (s, c, c, -s), "x = {x}");
            let (ds, dc) = (ulps(s, x.sin()), ulps(c, x.cos()));
            assert!(ds <= 1 && dc <= 1, "x = {x}: {ds} and {dc} units");
            differ += usize::from(ds + dc > 0);
        }
        // The two are different implementations (a test of nothing if they were the same).
        assert!(differ > n / 100, "{differ} of {n} differ");
    }

    /// The dual derivative of a composite function matches the hand derivative.
    #[test]
    fn dual_derivative_of_composite_matches_closed_form() {
        let x = 0.7_f64;
        let f = |x: Dual| (x.sin() * x.cos() + x * x).sqrt() / (Dual::cst(1.0) + x);
        let d = f(Dual::new(x, 1.0));
        let g = |x: f64| (x.sin() * x.cos() + x * x).sqrt() / (1.0 + x);
        let inner = x.sin() * x.cos() + x * x;
        let dinner = (x.cos() * x.cos() - x.sin() * x.sin()) + 2.0 * x;
        let exact = (dinner / (2.0 * inner.sqrt())) / (1.0 + x) - inner.sqrt() / (1.0 + x).powi(2);
        assert!((d.re - g(x)).abs() < 1e-15);
        assert!((d.eps - exact).abs() < 1e-14, "{} vs {}", d.eps, exact);
    }
}
