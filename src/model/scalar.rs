//! The number type the model functions are written in.
//!
//! Model functions (mass matrix, forces, contact kinematics) are generic over [`Real`] so that the
//! same code runs on `f64` (right-hand side) and on [`Dual`] (forward-mode automatic
//! differentiation). The Jacobian–vector products the implicit integrators need are therefore
//! exact derivatives of the model as written — no finite differences, no hand-derived Jacobian
//! that can drift from the vector field.

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
        f64::sin(self)
    }
    fn cos(self) -> Self {
        f64::cos(self)
    }
    fn sqrt(self) -> Self {
        f64::sqrt(self)
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
        Dual::new(self.re.sin(), self.eps * self.re.cos())
    }
    fn cos(self) -> Self {
        Dual::new(self.re.cos(), -self.eps * self.re.sin())
    }
    fn sqrt(self) -> Self {
        let r = self.re.sqrt();
        Dual::new(r, self.eps / (2.0 * r))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
