//! The S+S+ mode of (TC1) as a linear system (docs/two_contact.md §2): with both contacts
//! carrying, x = (Y, V) obeys x' = J x + (0, b),
//!
//! ```text
//!   J = [[0, I], [C, A]],   C = P·diag(k),   A = P·diag(q),                        (TC2)
//! ```
//!
//! its equilibrium is f* = −P⁻¹b (Y*_j = f*_j/k_j, V* = 0), its eigenvalues the roots of
//! det(λ²I − λA − C) = λ⁴ + c₃λ³ + c₂λ² + c₁λ + c₀ (TC3), and the stable manifold of an
//! equilibrium with one real unstable eigenvalue λ_u is the hyperplane wᵀ(x − x*) = 0, w the
//! left eigenvector: w_V spans the kernel of M(λ_u)ᵀ, M(λ) = λ²I − λA − C, and w_Y = λ_u w_V
//! − Aᵀ w_V (TC4). Pure functions; nalgebra's eigenvalues and matrix exponential.

use super::system::TwoContactSystem;
use nalgebra::{Matrix2, Matrix4, Vector2, Vector4};
use std::f64::consts::{FRAC_PI_2, TAU};

/// C = P·diag(k) and A = P·diag(q) of (TC2).
pub(crate) fn force_blocks(s: &TwoContactSystem) -> (Matrix2<f64>, Matrix2<f64>) {
    let p = Matrix2::new(
        s.response[0][0],
        s.response[0][1],
        s.response[1][0],
        s.response[1][1],
    );
    let c = p * Matrix2::from_diagonal(&Vector2::from(s.stiffness));
    let a = p * Matrix2::from_diagonal(&Vector2::from(s.damping));
    (c, a)
}

/// J of (TC2) in the state order (Y1, Y2, V1, V2).
pub(crate) fn jacobian(s: &TwoContactSystem) -> Matrix4<f64> {
    let (c, a) = force_blocks(s);
    let mut j = Matrix4::zeros();
    j[(0, 2)] = 1.0;
    j[(1, 3)] = 1.0;
    j.fixed_view_mut::<2, 2>(2, 0).copy_from(&c);
    j.fixed_view_mut::<2, 2>(2, 2).copy_from(&a);
    j
}

/// (c₀, c₁, c₂, c₃) of det(λ²I − λA − C) = λ⁴ + c₃λ³ + c₂λ² + c₁λ + c₀ (TC3), expanded by hand
/// (docs/two_contact.md (TC3)): an independent check of the eigenvalues.
pub(crate) fn characteristic_coefficients(s: &TwoContactSystem) -> [f64; 4] {
    let (c, a) = force_blocks(s);
    [
        c.determinant(),
        a[(0, 0)] * c[(1, 1)] + a[(1, 1)] * c[(0, 0)]
            - a[(0, 1)] * c[(1, 0)]
            - a[(1, 0)] * c[(0, 1)],
        a.determinant() - c.trace(),
        -a.trace(),
    ]
}

/// Whether S+S+ is normally stable: every root of (TC3) in the open left half-plane, by the
/// Hurwitz conditions of a monic quartic λ⁴ + c₃λ³ + c₂λ² + c₁λ + c₀ (all cᵢ > 0,
/// c₃c₂ > c₁, c₃c₂c₁ > c₁² + c₃²c₀). Scaling k by 1/ε and q by 1/√ε scales every root by
/// 1/√ε, so the verdict holds as ε → 0 (C–V §6.2).
pub(crate) fn slip_slip_stable(s: &TwoContactSystem) -> bool {
    let [c0, c1, c2, c3] = characteristic_coefficients(s);
    [c0, c1, c2, c3].iter().all(|&c| c > 0.0)
        && c3 * c2 > c1
        && c3 * c2 * c1 > c1 * c1 + c3 * c3 * c0
}

/// The S+S+ equilibrium, its eigenvalues and (if it has exactly one real unstable eigenvalue)
/// the left eigenvector that defines its stable manifold.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlipSlip {
    /// f* = −P⁻¹b: both forces must be positive for the mode to be consistent.
    pub forces: [f64; 2],
    /// Y*_j = f*_j / k_j.
    pub depth: [f64; 2],
    /// The eigenvalues of J as (re, im), in nalgebra's order.
    pub eigenvalues: [(f64, f64); 4],
    /// The one real eigenvalue with positive real part, if it is the only unstable one.
    pub unstable_rate: Option<f64>,
    /// Its left eigenvector (unit length) in the order (Y1, Y2, V1, V2).
    pub left_eigenvector: Option<[f64; 4]>,
    /// Its right eigenvector (unit length).
    pub right_eigenvector: Option<[f64; 4]>,
}

/// An imaginary part below this (relative to the modulus) is a real eigenvalue.
const REAL_EIGENVALUE: f64 = 1e-12;

impl SlipSlip {
    /// None when P is singular (no isolated equilibrium).
    pub fn of(s: &TwoContactSystem) -> Option<Self> {
        let (c, a) = force_blocks(s);
        let p = Matrix2::new(
            s.response[0][0],
            s.response[0][1],
            s.response[1][0],
            s.response[1][1],
        );
        let forces = -(p.try_inverse()? * Vector2::from(s.free_accel));
        let depth = [forces[0] / s.stiffness[0], forces[1] / s.stiffness[1]];
        let ev = jacobian(s).complex_eigenvalues();
        let eigenvalues = [0, 1, 2, 3].map(|i| (ev[i].re, ev[i].im));
        let unstable: Vec<f64> = eigenvalues
            .iter()
            .filter(|(re, _)| *re > 0.0)
            .map(|&(re, im)| {
                if im.abs() <= REAL_EIGENVALUE * re.hypot(im) {
                    re
                } else {
                    f64::NAN
                }
            })
            .collect();
        let unstable_rate = match unstable.as_slice() {
            [rate] if rate.is_finite() => Some(polish_root(&characteristic_coefficients(s), *rate)),
            _ => None,
        };
        let left_eigenvector = unstable_rate.map(|l| {
            let m = l * l * Matrix2::identity() - l * a - c;
            let wv = kernel(&m.transpose());
            let wy = l * wv - a.transpose() * wv;
            unit(Vector4::new(wy[0], wy[1], wv[0], wv[1]))
        });
        let right_eigenvector = unstable_rate.map(|l| {
            let m = l * l * Matrix2::identity() - l * a - c;
            let vy = kernel(&m);
            unit(Vector4::new(vy[0], vy[1], l * vy[0], l * vy[1]))
        });
        Some(SlipSlip {
            forces: [forces[0], forces[1]],
            depth,
            eigenvalues,
            unstable_rate,
            left_eigenvector,
            right_eigenvector,
        })
    }

    /// The equilibrium state (Y*, V* = 0).
    pub fn state(&self) -> [f64; 4] {
        [self.depth[0], self.depth[1], 0.0, 0.0]
    }

    /// The start on the circle of radius `radius` around Y* at angle `theta` (V = 0).
    pub fn circle_start(&self, radius: f64, theta: f64) -> [f64; 4] {
        [
            self.depth[0] + radius * theta.cos(),
            self.depth[1] + radius * theta.sin(),
            0.0,
            0.0,
        ]
    }

    /// wᵀ(x − x*): the unstable amplitude of a start (its sign decides the side in the linear
    /// region).
    pub fn unstable_amplitude(&self, x: &[f64; 4]) -> Option<f64> {
        let w = self.left_eigenvector?;
        let x0 = self.state();
        Some((0..4).map(|i| w[i] * (x[i] - x0[i])).sum())
    }

    /// The two angles θ in [0, 2π), increasing, where the stable manifold wᵀ(x − x*) = 0
    /// meets the circle Y = Y* + R(cos θ, sin θ), V = 0: w_Y·(cos θ, sin θ) = 0.
    pub fn manifold_angles(&self) -> Option<[f64; 2]> {
        let w = self.left_eigenvector?;
        let normal = w[1].atan2(w[0]);
        let mut angles = [
            (normal + FRAC_PI_2).rem_euclid(TAU),
            (normal - FRAC_PI_2).rem_euclid(TAU),
        ];
        angles.sort_by(f64::total_cmp);
        Some(angles)
    }

    /// The smallest force of each contact along the linear flow (TC2) from `start` over
    /// [0, `duration`], sampled every `step`, with the unstable component removed at every
    /// sample (a start on the manifold: rounding would otherwise grow like e^{λ_u s}). Both
    /// positive: the trajectory stays in the S+S+ region, where (TC2) is the exact dynamics.
    pub(crate) fn smallest_forces_on_manifold(
        &self,
        s: &TwoContactSystem,
        start: &[f64; 4],
        duration: f64,
        step: f64,
    ) -> Option<[f64; 2]> {
        let (w, v) = (
            Vector4::from(self.left_eigenvector?),
            Vector4::from(self.right_eigenvector?),
        );
        let project = |x: Vector4<f64>| x - v * (w.dot(&x) / w.dot(&v));
        let flow = (jacobian(s) * step).exp();
        let x_star = Vector4::from(self.state());
        let mut dx = project(Vector4::from(*start) - x_star);
        let mut smallest = [f64::INFINITY; 2];
        let n = (duration / step).ceil() as usize;
        for _ in 0..=n {
            let x = x_star + dx;
            for (j, m) in smallest.iter_mut().enumerate() {
                *m = m.min(s.law(j, x.as_slice()));
            }
            dx = project(flow * dx);
        }
        Some(smallest)
    }
}

/// x* + e^{J s}(x0 − x*): the S+S+ flow of (TC2) in closed form (nalgebra's matrix
/// exponential).
pub fn linear_flow(
    s: &TwoContactSystem,
    equilibrium: &[f64; 4],
    x0: &[f64; 4],
    t: f64,
) -> [f64; 4] {
    let x_star = Vector4::from(*equilibrium);
    let x = x_star + (jacobian(s) * t).exp() * (Vector4::from(*x0) - x_star);
    [x[0], x[1], x[2], x[3]]
}

/// Newton on the monic quartic (TC3) from `guess`: the eigenvalue to the polynomial's
/// precision.
fn polish_root(c: &[f64; 4], guess: f64) -> f64 {
    let mut x = guess;
    for _ in 0..8 {
        let value = (((x + c[3]) * x + c[2]) * x + c[1]) * x + c[0];
        let slope = ((4.0 * x + 3.0 * c[3]) * x + 2.0 * c[2]) * x + c[1];
        if slope == 0.0 {
            break;
        }
        let dx = value / slope;
        x -= dx;
        if dx.abs() <= 4.0 * f64::EPSILON * x.abs() {
            break;
        }
    }
    x
}

/// A unit vector spanning the kernel of the singular 2×2 matrix `m`: orthogonal to its
/// larger row.
fn kernel(m: &Matrix2<f64>) -> Vector2<f64> {
    let (r0, r1) = (m.row(0), m.row(1));
    let r = if r0.norm() >= r1.norm() { r0 } else { r1 };
    Vector2::new(-r[1], r[0]).normalize()
}

fn unit(v: Vector4<f64>) -> [f64; 4] {
    let u = v.normalize();
    [u[0], u[1], u[2], u[3]]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caption_a() -> TwoContactSystem {
        TwoContactSystem {
            free_accel: [-1.0, -1.0],
            response: [[-0.055, 0.088], [0.055, -0.036]],
            stiffness: [-1.0, -1.0],
            damping: [-1.0, -1.0],
        }
    }

    /// The Hurwitz verdict equals the sign of the largest real part of J's eigenvalues on
    /// random systems (P entries in [−1, 1], k, q in [−2, 0)).
    #[test]
    fn the_hurwitz_test_agrees_with_the_eigenvalues() {
        let mut seed = 97_u64;
        let mut rand = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let (mut stable, mut unstable) = (0, 0);
        for _ in 0..4000 {
            let mut r = || 2.0 * rand() - 1.0;
            let s = TwoContactSystem {
                free_accel: [-1.0, -1.0],
                response: [[r(), r()], [r(), r()]],
                stiffness: [-2.0 * rand() - 1e-3, -2.0 * rand() - 1e-3],
                damping: [-2.0 * rand() - 1e-3, -2.0 * rand() - 1e-3],
            };
            let ev = jacobian(&s).complex_eigenvalues();
            let largest = ev.iter().map(|z| z.re).fold(f64::MIN, f64::max);
            if largest.abs() < 1e-9 {
                continue; // on the boundary: either verdict
            }
            assert_eq!(slip_slip_stable(&s), largest < 0.0, "{s:?}: {ev:?}");
            if largest < 0.0 {
                stable += 1;
            } else {
                unstable += 1;
            }
        }
        assert!(
            stable > 100 && unstable > 100,
            "{stable} stable, {unstable} unstable"
        );
    }

    /// The equilibrium balances (TC1): b + P f* = 0, with both forces positive for (A).
    #[test]
    fn equilibrium_balances_the_load() {
        let s = caption_a();
        let e = SlipSlip::of(&s).unwrap();
        for i in 0..2 {
            let r =
                s.free_accel[i] + s.response[i][0] * e.forces[0] + s.response[i][1] * e.forces[1];
            assert!(r.abs() < 1e-12, "{r}");
            assert!(e.forces[i] > 0.0);
            assert!((s.law(i, &e.state()) - e.forces[i]).abs() < 1e-12);
        }
    }

    /// Each eigenvalue is a root of the hand-expanded quartic (TC3), and the quartic's
    /// coefficients are the eigenvalues' symmetric functions (trace and determinant).
    #[test]
    fn eigenvalues_are_roots_of_the_characteristic_polynomial() {
        let s = caption_a();
        let e = SlipSlip::of(&s).unwrap();
        let c = characteristic_coefficients(&s);
        for &(re, im) in &e.eigenvalues {
            let l = nalgebra::Complex::new(re, im);
            let value = (((l + c[3]) * l + c[2]) * l + c[1]) * l + c[0];
            assert!(value.norm() < 1e-12, "{l}: {value}");
        }
        let sum: f64 = e.eigenvalues.iter().map(|(re, _)| re).sum();
        assert!((sum + c[3]).abs() < 1e-12);
        let j = jacobian(&s);
        assert!((j.determinant() - c[0]).abs() < 1e-12);
        let rate = e.unstable_rate.unwrap();
        assert!((rate - 0.4029133317520135).abs() < 1e-9, "{rate}");
    }

    /// The eigenvectors are eigenvectors: wᵀJ = λw and Jv = λv.
    #[test]
    fn left_and_right_eigenvectors() {
        let s = caption_a();
        let e = SlipSlip::of(&s).unwrap();
        let l = e.unstable_rate.unwrap();
        let j = jacobian(&s);
        let w = Vector4::from(e.left_eigenvector.unwrap());
        let v = Vector4::from(e.right_eigenvector.unwrap());
        assert!((j.transpose() * w - l * w).norm() < 1e-12);
        assert!((j * v - l * v).norm() < 1e-12);
        for theta in e.manifold_angles().unwrap() {
            let x = e.circle_start(5.0, theta);
            assert!(e.unstable_amplitude(&x).unwrap().abs() < 1e-12);
        }
    }

    /// The closed-form flow is a solution: its derivative (central difference) is J(x − x*).
    #[test]
    fn linear_flow_solves_the_system() {
        let s = caption_a();
        let e = SlipSlip::of(&s).unwrap();
        let x0 = e.circle_start(5.0, 1.0);
        let (t, h) = (3.0, 1e-4);
        let (a, b) = (
            linear_flow(&s, &e.state(), &x0, t + h),
            linear_flow(&s, &e.state(), &x0, t - h),
        );
        let x = Vector4::from(linear_flow(&s, &e.state(), &x0, t));
        let rate = (Vector4::from(a) - Vector4::from(b)) / (2.0 * h);
        let expected = jacobian(&s) * (x - Vector4::from(e.state()));
        assert!(
            (rate - expected).norm() < 1e-7,
            "{}",
            (rate - expected).norm()
        );
    }
}
