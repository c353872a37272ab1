//! Test problems of the integrators written here, with their exact solutions: smooth
//! (Kepler's circular orbit, the harmonic oscillator), stiff (a scalar problem with a fast
//! transient) and one that blows up in finite time.

use super::super::VectorField;

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
