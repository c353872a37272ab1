//! The Painlevé sliding rod of Zhao, Liu, Chen & Brogliato (2015), with a radius of gyration.
//!
//! Rod of half-length l, mass m, moment of inertia J = m ρ l² about its centre (ρ = r²/l², the
//! squared radius of gyration; the uniform rod of Zhao–Liu has ρ = 1/3), touching the ground
//! with its lower end A. Nondimensional: length l, time √(l/g), force m g. θ is the angle between
//! the rod and the ground; the centre of mass is at A + (cos θ, sin θ).
//!
//! Generalised coordinates are the contact-point coordinates `q = (x_A, y_A, θ)`, so that the gap
//! is a coordinate (`y_A = −δ`) rather than a difference of O(1) numbers: the penetration is
//! O(√κ) and must keep its relative accuracy as κ → 0. In these coordinates (Lagrange's equations
//! of T = ½|ẋ_c|² + ½ρθ̇², V = y_c)
//!
//! ```text
//!   M = [[1, 0, −s], [0, 1, c], [−s, c, 1 + ρ]],   f = (c θ̇², s θ̇² − 1, −c),
//!   c = (1, 0, 0)  (tangential),   d = (0, 1, 0)  (normal),
//! ```
//!
//! and solving for q̈ gives (k = 1/ρ; Zhao–Liu eq. (9) at k = 3, tested below)
//! `ÿ_A = (1+kc²)F_n − ksc F_τ + θ̇² s − 1`, `ẍ_A = −ksc F_n + (1+ks²)F_τ + θ̇² c`,
//! `θ̈ = k(−c F_n + s F_τ)`.
//!
//! Notation map. Zhao–Liu's eq. (11) slide coefficients `A, B, C, D, P` ([`SlideCoefficients`])
//! describe leftward slip with F_τ = μF_n: `ÿ_A = A F_n + B`, `ẍ_A = C F_n + D`, `θ̈ = P F_n`.
//! In C–V's projected scalars (fields of [`crate::model::ProjectedDynamics`]) this rod has
//! `a = θ̇²c`, `b = θ̇²s − 1`, `A_CV = 1+ks²`, `B_CV = −ksc`, `C_CV = 1+kc²` (C–V's §3 example has
//! `a = −θ̇²c`, `B = +ksc` because their angle is π − θ: docs/champneys_varkonyi.md, "The rod").
//! Zhao–Liu's `A` is the normal compliance in leftward slip, `C_CV + μ B_CV` — C–V's Painlevé
//! parameter `p₋` up to the sign convention of the gap.

use crate::model::{
    ContactKinematics, MassFactor, Mechanics, PlanarContactSystem, ProjectedDynamics, Real,
    ValidityMargin,
};
use serde::{Deserialize, Serialize};

/// The squared radius of gyration ρ = r²/l² of the uniform rod (J = m l²/3): Zhao–Liu's rod.
pub(crate) const UNIFORM_GYRATION_SQ: f64 = 1.0 / 3.0;

/// The rod in nondimensional units: its one body parameter is ρ = r²/l² (μ, μ_s and κ belong to
/// the contact, not to the body).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PainleveRod {
    /// ρ = r²/l² > 0.
    pub gyration_sq: f64,
}

impl PainleveRod {
    /// Zhao–Liu's uniform rod, ρ = 1/3.
    pub const UNIFORM: PainleveRod = PainleveRod {
        gyration_sq: UNIFORM_GYRATION_SQ,
    };

    pub fn new(gyration_sq: f64) -> Self {
        PainleveRod { gyration_sq }
    }

    /// k = 1/ρ = l²/r², the factor of Zhao–Liu's 3 in eqs. (9)–(11). At ρ = 1/3 it is 3.0
    /// exactly in floating point, so the uniform rod's formulas below round as the published
    /// ones (the committed results depend on it).
    pub(crate) fn inverse_gyration_sq(&self) -> f64 {
        1.0 / self.gyration_sq
    }

    /// Zhao–Liu eq. (11) at (μ, θ, θ̇) for this rod.
    pub fn slide_coefficients(&self, mu: f64, theta: f64, omega: f64) -> SlideCoefficients {
        SlideCoefficients::new(mu, theta, omega, self.inverse_gyration_sq())
    }

    /// The θ interval (θ ∈ (0, π/2)) on which Zhao–Liu's A(θ, μ) < 0: A = 1 + k c(c − μ s) < 0
    /// ⇔ t² − kμ t + (k + 1) < 0 for t = tan θ (divide by c²/k), so
    /// t = (kμ ∓ √(k²μ² − 4(k + 1)))/2 — eq. (18) at k = 3. `None` when μ ≤ 2√(k + 1)/k
    /// (4/3 for the uniform rod): no Painlevé paradox.
    pub(crate) fn painleve_theta_interval(&self, mu: f64) -> Option<(f64, f64)> {
        let k = self.inverse_gyration_sq();
        let disc = k * k * mu * mu - 4.0 * (k + 1.0);
        if mu <= 2.0 * (k + 1.0).sqrt() / k || disc <= 0.0 {
            return None;
        }
        let r = disc.sqrt();
        Some((((k * mu - r) / 2.0).atan(), ((k * mu + r) / 2.0).atan()))
    }

    /// The normal force at which a stick breaks into reverse slip, Zhao–Liu's F_n(ε₃) of
    /// eq. (53), derived for this rod: in stick ẍ_A = 0, so from ẍ_A = −ksc F_n + (1+ks²)F_τ +
    /// θ̇²c the friction is F_τ = (ksc F_n − θ̇²c)/(1 + ks²) (eq. (50) at k = 3); the reverse
    /// slip starts where F_τ = −μ_s F_n (eq. (52)), at F_n = θ̇²c/(ksc + μ_s(1 + ks²)) — eq.
    /// (53) at k = 3. No κ: the force is O(1), and δ* = κF_n(ε₃) (eq. (54)) is O(κ).
    pub fn stick_end_normal_force(&self, mu_s: f64, theta: f64, omega: f64) -> f64 {
        let k = self.inverse_gyration_sq();
        let (s, c) = theta.sin_cos();
        omega * omega * c / (k * s * c + mu_s * (1.0 + k * s * s))
    }

    /// δ̈ in stick, Zhao–Liu's eq. (55) derived for this rod: with F_τ from ẍ_A = 0 (see
    /// [`Self::stick_end_normal_force`]) and F_n = δ/κ, ÿ_A = (1 + kc²)F_n − ksc F_τ + θ̇²s − 1
    /// becomes ((1 + k)/(1 + ks²))F_n + (1 + k)sθ̇²/(1 + ks²) − 1, since (1 + kc²)(1 + ks²) −
    /// k²s²c² = 1 + k; so δ̈ = −ÿ_A = −(1 + k)δ/(κ(1 + ks²)) + 1 − (1 + k)sθ̇²/(1 + ks²) — eq.
    /// (55)'s 4 is 1 + k at k = 3.
    pub fn stick_deformation_accel(&self, kappa: f64, theta: f64, omega: f64, delta: f64) -> f64 {
        let k1 = 1.0 + self.inverse_gyration_sq();
        let s = theta.sin();
        let d = 1.0 + self.inverse_gyration_sq() * s * s;
        -k1 * delta / (kappa * d) + 1.0 - k1 * s * omega * omega / d
    }

    /// The smallest A(θ, μ) over θ (Zhao–Liu eq. (17) at k = 3): A = 1 + k(1 + cos 2θ −
    /// μ sin 2θ)/2 ≥ 1 + k(1 − √(1 + μ²))/2.
    pub(crate) fn slide_compliance_min(&self, mu: f64) -> f64 {
        let k = self.inverse_gyration_sq();
        (2.0 + k - k * (1.0 + mu * mu).sqrt()) / 2.0
    }
}

impl Default for PainleveRod {
    fn default() -> Self {
        PainleveRod::UNIFORM
    }
}

/// Index of x_A, y_A, θ in the rod's generalised coordinates.
pub const X_A: usize = 0;
pub const Y_A: usize = 1;
pub const THETA: usize = 2;

/// The rod's domain: its lower end A is the one contact, so A must stay the lower end
/// (θ ∈ (0, π)) and the far end B = A + 2(cos θ, sin θ) must stay above the floor
/// (y_B = y_A + 2 sin θ > 0; in contact y_A = −δ < 0, so this is stricter than θ > 0 near
/// θ = 0 or π). Beyond either, B would touch the floor, a contact the model does not have.
const DOMAIN: [ValidityMargin; 3] = [
    ValidityMargin {
        quantity: "θ",
        meaning: "θ = 0: the rod lies flat with its far end B on the floor's level, a contact the single-contact model does not have",
    },
    ValidityMargin {
        quantity: "π − θ",
        meaning: "θ = π: the rod lies flat with its far end B as low as A; beyond, B is the lower end, a contact the single-contact model does not have",
    },
    ValidityMargin {
        quantity: "y_B = y_A + 2 sin θ",
        meaning: "the rod's far end B reaches the floor, a contact the single-contact model does not have",
    },
];

impl Mechanics<3> for PainleveRod {
    fn coordinate_names(&self) -> [&'static str; 3] {
        ["x_A", "y_A", "theta"]
    }

    fn mass_matrix<S: Real>(&self, q: &[S; 3]) -> [[S; 3]; 3] {
        let (s, c) = q[THETA].sin_cos();
        let (one, zero) = (S::cst(1.0), S::zero());
        [
            [one, zero, -s],
            [zero, one, c],
            [-s, c, S::cst(1.0 + self.gyration_sq)],
        ]
    }

    fn generalized_force<S: Real>(&self, q: &[S; 3], qdot: &[S; 3]) -> [S; 3] {
        let (s, c) = q[THETA].sin_cos();
        body_force(s, c, qdot[THETA])
    }

    /// One sine and cosine of θ for both, and M's factor in closed form: M = L D Lᵀ with
    /// L = [[1, 0, 0], [0, 1, 0], [−s, c, 1]] and D = (1, 1, (1 + ρ) − s² − c²), the last pivot
    /// evaluated in the order of the generic factorisation so that every number is its own.
    fn mass_factor_and_force<S: Real>(
        &self,
        q: &[S; 3],
        qdot: &[S; 3],
    ) -> (MassFactor<S, 3>, [S; 3]) {
        let (s, c) = q[THETA].sin_cos();
        let (one, zero) = (S::cst(1.0), S::zero());
        let last_pivot = S::cst(1.0 + self.gyration_sq) - s * s - c * c;
        let factor = MassFactor {
            lower: [[one, zero, zero], [zero, one, zero], [-s, c, one]],
            inv_pivots: [one, one, one / last_pivot],
        };
        (factor, body_force(s, c, qdot[THETA]))
    }

    fn potential_energy<S: Real>(&self, q: &[S; 3]) -> S {
        // Height of the centre of mass.
        q[Y_A] + q[THETA].sin()
    }

    fn validity_margins(&self) -> &[ValidityMargin] {
        &DOMAIN
    }

    fn validity_margin(&self, index: usize, q: &[f64; 3], _qdot: &[f64; 3]) -> f64 {
        match index {
            0 => q[THETA],
            1 => std::f64::consts::PI - q[THETA],
            _ => q[Y_A] + 2.0 * q[THETA].sin(),
        }
    }

    /// θ and π − θ have slope 1 in θ; y_A + 2 sin θ slope 1 in y_A and at most 2 in θ.
    fn validity_margin_slopes(&self, index: usize) -> Option<([f64; 3], [f64; 3])> {
        let mut dq = [0.0; 3];
        match index {
            0 | 1 => dq[THETA] = 1.0,
            _ => (dq[Y_A], dq[THETA]) = (1.0, 2.0),
        }
        Some((dq, [0.0; 3]))
    }
}

/// The rod's f at sin θ = `s`, cos θ = `c`, θ̇ = `omega`: the centripetal terms of
/// A = centre − (cos θ, sin θ), and gravity on the centre of mass.
fn body_force<S: Real>(s: S, c: S, omega: S) -> [S; 3] {
    let w2 = omega * omega;
    [c * w2, s * w2 - S::cst(1.0), -c]
}

impl PlanarContactSystem<3> for PainleveRod {
    fn contact_kinematics<S: Real>(&self, q: &[S; 3], _qdot: &[S; 3]) -> ContactKinematics<S, 3> {
        let (one, zero) = (S::cst(1.0), S::zero());
        ContactKinematics {
            gap: q[Y_A],
            tangential: [one, zero, zero],
            normal: [zero, one, zero],
            tangential_drift: zero,
            normal_drift: zero,
        }
    }

    /// The floor is flat and the contact point A is a coordinate: c = e_x, d = e_y.
    fn constant_contact_directions(&self) -> Option<([f64; 3], [f64; 3])> {
        Some(([1.0, 0.0, 0.0], [0.0, 1.0, 0.0]))
    }

    /// The projection in closed form (docs/projection.md, (P.1)–(P.3)): det M = ρ, so with
    /// k = 1/ρ the cofactors give `M⁻¹ = [[1 + k s², −k s c, k s], [−k s c, 1 + k c², −k c],
    /// [k s, −k c, k]]` and `M⁻¹f = (θ̇² c, θ̇² s − 1, 0)`; C–V's scalars are components (c =
    /// e_x, d = e_y, no drift): `a = (M⁻¹f)₀`, `b = (M⁻¹f)₁`, `A = (M⁻¹c)₀`, `B = (M⁻¹d)₀`,
    /// `C = (M⁻¹d)₁`. No square root and one division (k) where the generic Cholesky solve
    /// ([`ProjectedDynamics::by_cholesky`]) takes a square root and six; the two agree to
    /// rounding (tested below).
    fn projected_dynamics<S: Real>(
        &self,
        _t: S,
        q: &[S; 3],
        qdot: &[S; 3],
    ) -> ProjectedDynamics<S, 3> {
        let (s, c) = q[THETA].sin_cos();
        let k = self.inverse_gyration_sq();
        let (ks, kc) = (s.scale(k), c.scale(k));
        let w2 = qdot[THETA] * qdot[THETA];
        let one = S::cst(1.0);
        // (P.2): the centripetal terms and gravity of f; the third row of M⁻¹f vanishes.
        let free_accel = [c * w2, s * w2 - one, S::zero()];
        // (P.1)'s first and second columns: M⁻¹c and M⁻¹d.
        let cross = -(ks * c);
        let accel_per_tangential = [one + ks * s, cross, ks];
        let accel_per_normal = [cross, one + kc * c, -kc];
        ProjectedDynamics {
            gap: q[Y_A],
            u: qdot[X_A],
            v: qdot[Y_A],
            free_accel,
            accel_per_tangential,
            accel_per_normal,
            free_tangential_accel: free_accel[X_A],
            free_normal_accel: free_accel[Y_A],
            tangential_mobility: accel_per_tangential[X_A],
            cross_mobility: accel_per_normal[X_A],
            normal_mobility: accel_per_normal[Y_A],
        }
    }
}

/// Zhao–Liu eq. (11): the coefficients of leftward slip (F_τ = +μ F_n).
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct SlideCoefficients {
    /// Normal acceleration per unit normal force in slip; A < 0 is the Painlevé paradox.
    pub a: f64,
    /// Normal acceleration without contact force, θ̇² sin θ − 1.
    pub b: f64,
    /// Tangential acceleration per unit normal force in slip.
    pub c: f64,
    /// Tangential acceleration without contact force, θ̇² cos θ.
    pub d: f64,
    /// Angular acceleration per unit normal force in slip.
    pub p: f64,
}

impl SlideCoefficients {
    /// Eq. (11) at (μ, θ, θ̇) for a rod with k = 1/ρ (Zhao–Liu's 3 is k; derived from M q̈ in
    /// the module doc).
    pub fn new(mu: f64, theta: f64, omega: f64, k: f64) -> Self {
        let (s, c) = theta.sin_cos();
        SlideCoefficients {
            a: 1.0 + k * c * (c - mu * s),
            b: omega * omega * s - 1.0,
            c: mu + k * s * (-c + mu * s),
            d: omega * omega * c,
            p: k * (-c + mu * s),
        }
    }

    /// Eq. (11) for the uniform rod (k = 3).
    pub fn uniform(mu: f64, theta: f64, omega: f64) -> Self {
        PainleveRod::UNIFORM.slide_coefficients(mu, theta, omega)
    }
}

/// Which kind of initial state (μ, θ0, θ̇0) is, for a rod put down sliding leftward at δ = δ̇ = 0.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SlipCase {
    /// A > 0: slip is consistent (the contact either holds, B < 0, or lifts off, B > 0).
    Consistent,
    /// A < 0, B < 0: no consistent rigid solution — the tangential impact of Zhao–Liu.
    Inconsistent,
    /// A < 0, B > 0: both slip and lift-off are rigid solutions.
    Indeterminate,
    /// A = 0 or B = 0 exactly (a boundary of the regions above).
    Degenerate,
}

impl SlipCase {
    pub fn of(coeffs: &SlideCoefficients) -> Self {
        match (coeffs.a, coeffs.b) {
            (a, _) if a > 0.0 => SlipCase::Consistent,
            (a, b) if a < 0.0 && b < 0.0 => SlipCase::Inconsistent,
            (a, b) if a < 0.0 && b > 0.0 => SlipCase::Indeterminate,
            _ => SlipCase::Degenerate,
        }
    }

    pub fn describe(&self) -> &'static str {
        match self {
            SlipCase::Consistent => "consistent slip (A > 0)",
            SlipCase::Inconsistent => "inconsistent: A < 0, B < 0 (tangential impact expected)",
            SlipCase::Indeterminate => {
                "indeterminate: A < 0, B > 0 (slip and lift-off both possible)"
            }
            SlipCase::Degenerate => "degenerate: A = 0 or B = 0",
        }
    }
}

/// Zhao–Liu eq. (18): the θ interval on which A(θ, μ) < 0 for the uniform rod, as
/// (θ_min, θ_max); `None` when μ ≤ 4/3 (no Painlevé paradox).
pub(crate) fn painleve_theta_interval(mu: f64) -> Option<(f64, f64)> {
    PainleveRod::UNIFORM.painleve_theta_interval(mu)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ProjectedDynamics;

    /// The closed-form factor and the shared sine and cosine give the generic path's numbers
    /// exactly, in f64 and dual numbers, over the attitudes of both ends' contacts.
    #[test]
    fn mass_factor_and_force_are_the_generic_ones() {
        for rho in [1.0 / 3.0, 0.05, 1.0, 7.0] {
            let rod = PainleveRod::new(rho);
            for i in 0..=40 {
                let theta = -3.0 + 0.15 * i as f64;
                let (q, qdot) = ([0.3, -1e-9, theta], [-0.7, 0.2, 1.9 - 0.1 * i as f64]);
                crate::model::check_mass_factor_and_force(
                    &rod,
                    &q,
                    &qdot,
                    &[0.1, -0.4, 1.0],
                    &[0.5, 0.3, -1.2],
                );
            }
        }
    }

    #[test]
    fn contact_directions_are_constant() {
        crate::model::check_constant_contact_directions(&PainleveRod::default());
    }

    /// The generic C–V projection of the rod, and the rod's closed form, reproduce Zhao–Liu
    /// eq. (9) (with k = 1/ρ for its 3) at arbitrary states.
    #[test]
    fn projected_rod_reproduces_zhao_liu_eq_9() {
        for &(theta, omega, fn_, ft, gyration_sq) in &[
            (1.3, 0.0, 5.0, 10.0, UNIFORM_GYRATION_SQ),
            (0.4, -1.7, 0.3, -0.2, UNIFORM_GYRATION_SQ),
            (2.5, 3.1, 12.0, 1.0, UNIFORM_GYRATION_SQ),
            (1.2, 0.4, 2.0, -1.0, 0.1),
            (0.7, -2.0, 0.5, 0.3, 0.9),
        ] {
            let rod = PainleveRod::new(gyration_sq);
            let k3 = 1.0 / gyration_sq;
            let q = [0.3, -1e-3, theta];
            let qdot = [-1.0, 0.2, omega];
            for pd in [
                ProjectedDynamics::at(&rod, &q, &qdot),
                ProjectedDynamics::by_cholesky(&rod, 0.0, &q, &qdot),
            ] {
                let acc = pd.generalized_accel(fn_, ft);
                let (s, c) = (f64::sin(theta), f64::cos(theta));
                let yaa = (1.0 + k3 * c * c) * fn_ - k3 * s * c * ft + omega * omega * s - 1.0;
                let xaa = -k3 * s * c * fn_ + (1.0 + k3 * s * s) * ft + omega * omega * c;
                let thaa = k3 * (-c * fn_ + s * ft);
                for (got, want) in [(acc[X_A], xaa), (acc[Y_A], yaa), (acc[THETA], thaa)] {
                    assert!(
                        (got - want).abs() < 1e-12 * (1.0 + want.abs()),
                        "{got} vs {want}"
                    );
                }
                assert!((pd.normal_accel(fn_, ft) - yaa).abs() < 1e-12 * (1.0 + yaa.abs()));
                assert!((pd.tangential_accel(fn_, ft) - xaa).abs() < 1e-12 * (1.0 + xaa.abs()));
            }
        }
    }

    /// Every field of the rod's closed-form projection, and its exact derivative along a
    /// direction (dual numbers: the Jacobian–vector products), equals the generic Cholesky
    /// projection's to 1e-13 relative, over attitudes across (0, π), spins and inertias.
    #[test]
    fn closed_form_projection_equals_cholesky() {
        use crate::model::Dual;
        let fields = |p: &ProjectedDynamics<Dual, 3>| -> Vec<Dual> {
            let mut v = vec![
                p.gap,
                p.u,
                p.v,
                p.free_tangential_accel,
                p.free_normal_accel,
                p.tangential_mobility,
                p.cross_mobility,
                p.normal_mobility,
            ];
            v.extend(p.free_accel);
            v.extend(p.accel_per_tangential);
            v.extend(p.accel_per_normal);
            v
        };
        let mut checked = 0;
        for gyration_sq in [UNIFORM_GYRATION_SQ, 0.05, 0.7, 2.0] {
            let rod = PainleveRod::new(gyration_sq);
            for i in 1..40 {
                let theta = std::f64::consts::PI * i as f64 / 40.0;
                let omega = -3.0 + 0.17 * i as f64;
                let dir = [0.3, -0.7, 1.1, 0.5, -0.2, 0.9];
                let q = [
                    Dual::new(0.2, dir[0]),
                    Dual::new(-1e-4, dir[1]),
                    Dual::new(theta, dir[2]),
                ];
                let qdot = [
                    Dual::new(-1.0, dir[3]),
                    Dual::new(0.3, dir[4]),
                    Dual::new(omega, dir[5]),
                ];
                let t = Dual::cst(0.0);
                let closed = fields(&rod.projected_dynamics(t, &q, &qdot));
                let generic = fields(&ProjectedDynamics::by_cholesky(&rod, t, &q, &qdot));
                for (a, b) in closed.iter().zip(&generic) {
                    for (x, y) in [(a.re, b.re), (a.eps, b.eps)] {
                        let scale = x.abs().max(y.abs()).max(1.0);
                        assert!(
                            (x - y).abs() <= 1e-13 * scale,
                            "rho = {gyration_sq}, theta = {theta}: {x} vs {y}"
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert_eq!(checked, 4 * 39 * 17 * 2);
    }

    /// The closed form is M⁻¹ (independently of the Cholesky path): M times each solve gives
    /// back f, c and d, and M⁻¹f is the algebraic (θ̇²c, θ̇²s − 1, 0) of docs/projection.md.
    #[test]
    fn closed_form_projection_inverts_the_mass_matrix() {
        for gyration_sq in [UNIFORM_GYRATION_SQ, 0.05, 2.0] {
            let rod = PainleveRod::new(gyration_sq);
            for theta in [0.1, 0.9, 1.3, 2.0, 3.0] {
                let (q, qdot) = ([0.2, -1e-4, theta], [-1.0, 0.3, 1.7]);
                let p = rod.projected_dynamics(0.0, &q, &qdot);
                let m = rod.mass_matrix(&q);
                let f = rod.generalized_force(&q, &qdot);
                let rhs = [f, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
                for (x, b) in [p.free_accel, p.accel_per_tangential, p.accel_per_normal]
                    .iter()
                    .zip(rhs)
                {
                    for i in 0..3 {
                        let mx: f64 = (0..3).map(|j| m[i][j] * x[j]).sum();
                        assert!((mx - b[i]).abs() < 1e-13 / gyration_sq, "{mx} vs {}", b[i]);
                    }
                }
                let w2 = qdot[THETA] * qdot[THETA];
                let algebraic = [theta.cos() * w2, theta.sin() * w2 - 1.0, 0.0];
                for (x, a) in p.free_accel.iter().zip(algebraic) {
                    assert!((x - a).abs() < 1e-13 / gyration_sq, "{x} vs {a}");
                }
            }
        }
    }

    /// Eq. (55) (generalised to any ρ) is the projection's normal acceleration with the friction
    /// that holds ẍ_A = 0 and F_n = δ/κ.
    #[test]
    fn stick_deformation_accel_is_the_projection_in_stick() {
        let kappa = 1e-6;
        for gyration_sq in [UNIFORM_GYRATION_SQ, 0.1, 0.7] {
            let rod = PainleveRod::new(gyration_sq);
            for &(theta, omega, delta) in &[(1.3, 0.7, 3e-6), (0.2, -1.5, 1e-7), (2.4, 0.3, 5e-5)] {
                let pd = ProjectedDynamics::at(&rod, &[0.0, -delta, theta], &[0.0, 0.0, omega]);
                let fn_ = delta / kappa;
                // ẍ_A = a + A F_τ + B F_n = 0.
                let ft =
                    -(pd.free_tangential_accel + pd.cross_mobility * fn_) / pd.tangential_mobility;
                let acc = pd.generalized_accel(fn_, ft);
                assert!(acc[X_A].abs() < 1e-9, "{}", acc[X_A]);
                let want = -acc[Y_A];
                let got = rod.stick_deformation_accel(kappa, theta, omega, delta);
                assert!(
                    (got - want).abs() < 1e-12 * (1.0 + want.abs()),
                    "{got} vs {want}"
                );
            }
        }
    }

    /// Eq. (11) in leftward slip is the projection with F_τ = μ F_n.
    #[test]
    fn slide_coefficients_match_projection() {
        let (mu, theta, omega) = (2.0, 1.3, 0.4);
        for gyration_sq in [UNIFORM_GYRATION_SQ, 0.1, 0.7] {
            let rod = PainleveRod::new(gyration_sq);
            let k = rod.slide_coefficients(mu, theta, omega);
            let pd = ProjectedDynamics::at(&rod, &[0.0, 0.0, theta], &[-1.0, 0.0, omega]);
            let fn_ = 2.5;
            let acc = pd.generalized_accel(fn_, mu * fn_);
            assert!((acc[Y_A] - (k.a * fn_ + k.b)).abs() < 1e-12);
            assert!((acc[X_A] - (k.c * fn_ + k.d)).abs() < 1e-12);
            assert!((acc[THETA] - k.p * fn_).abs() < 1e-12);
        }
    }

    /// The eq. (18) interval (generalised to any ρ) is exactly where A changes sign, at
    /// several μ; below the threshold μ = 2√(ρ(1 + ρ)) there is none, and A's minimum over θ
    /// is eq. (17)'s.
    #[test]
    fn eq_18_interval_bounds_the_sign_of_a() {
        for gyration_sq in [UNIFORM_GYRATION_SQ, 0.1, 0.7] {
            let rod = PainleveRod::new(gyration_sq);
            let threshold = 2.0 * (gyration_sq * (1.0 + gyration_sq)).sqrt();
            for &factor in &[1.05, 1.5, 3.75, 7.5] {
                let mu = factor * threshold;
                let (lo, hi) = rod.painleve_theta_interval(mu).unwrap();
                let a = |th: f64| rod.slide_coefficients(mu, th, 0.0).a;
                assert!(a(lo).abs() < 1e-12 && a(hi).abs() < 1e-12);
                assert!(a(0.5 * (lo + hi)) < 0.0);
                assert!(a(lo - 1e-6) > 0.0 && a(hi + 1e-6) > 0.0);
                let a_min = (0..=20_000)
                    .map(|i| a(f64::from(i) * std::f64::consts::PI / 20_000.0))
                    .fold(f64::INFINITY, f64::min);
                assert!(
                    (a_min - rod.slide_compliance_min(mu)).abs() < 1e-6,
                    "{a_min}"
                );
            }
            assert!(rod.painleve_theta_interval(0.99 * threshold).is_none());
        }
        assert!(painleve_theta_interval(1.3).is_none());
    }

    /// At ρ = 1/3 the generalised formulas round exactly as the published ones (the committed
    /// results were made with those): M₃₃ = 4/3, eq. (11) with 3, eq. (18).
    #[test]
    fn uniform_rod_rounds_as_the_published_formulas() {
        assert_eq!(PainleveRod::UNIFORM.inverse_gyration_sq(), 3.0);
        assert_eq!(1.0 + UNIFORM_GYRATION_SQ, 4.0 / 3.0);
        for &(mu, theta, omega) in &[(2.0, 1.3, 0.0), (1.4, 0.97, 0.5), (7.3, 0.2, -1.1)] {
            let (s, c) = f64::sin_cos(theta);
            let k = SlideCoefficients::uniform(mu, theta, omega);
            assert_eq!(k.a, 1.0 + 3.0 * c * (c - mu * s));
            assert_eq!(k.c, mu + 3.0 * s * (-c + mu * s));
            assert_eq!(k.p, 3.0 * (-c + mu * s));
            let disc = 9.0 * mu * mu - 16.0;
            if disc > 0.0 {
                let r = disc.sqrt();
                let published = (((3.0 * mu - r) / 2.0).atan(), ((3.0 * mu + r) / 2.0).atan());
                assert_eq!(painleve_theta_interval(mu), Some(published));
            }
            let a_min = (5.0 - 3.0 * (1.0 + mu * mu).sqrt()) / 2.0;
            assert_eq!(PainleveRod::UNIFORM.slide_compliance_min(mu), a_min);
        }
    }

    #[test]
    fn zhao_liu_initial_state_is_inconsistent() {
        let k = SlideCoefficients::uniform(2.0, 1.3, 0.0);
        assert_eq!(SlipCase::of(&k), SlipCase::Inconsistent);
        assert_eq!(
            SlipCase::of(&SlideCoefficients::uniform(2.0, 1.3, 1.5)),
            SlipCase::Indeterminate
        );
        assert_eq!(
            SlipCase::of(&SlideCoefficients::uniform(0.5, 1.3, 0.0)),
            SlipCase::Consistent
        );
    }

    /// The margins' slopes bound every difference of margins between two states: pairs on a
    /// grid of θ across (−1, 4) and y_A across (−2, 2), each with its neighbours one grid
    /// step away in θ and in y_A (the domain's edges included); the bound is attained by
    /// θ and π − θ, and by y_A + 2 sin θ where cos θ = ±1.
    #[test]
    fn margin_slopes_bound_the_margins_differences() {
        let rod = PainleveRod::UNIFORM;
        let qdot = [0.5, -0.2, 1.0];
        for index in 0..rod.validity_margins().len() {
            let (dq, dqdot) = rod.validity_margin_slopes(index).unwrap();
            assert_eq!(dqdot, [0.0; 3]);
            let mut tightest = 0.0_f64;
            for a in 0..=100 {
                for b in 0..=20 {
                    let q = [0.1, -2.0 + 0.2 * b as f64, -1.0 + 0.05 * a as f64];
                    for step in [[0.0, 0.0, 0.05], [0.0, 0.2, 0.0], [0.0, 0.2, 0.05]] {
                        let q2 = [q[0], q[1] + step[1], q[2] + step[2]];
                        let change = (rod.validity_margin(index, &q2, &qdot)
                            - rod.validity_margin(index, &q, &qdot))
                        .abs();
                        let bound: f64 = (0..3).map(|j| dq[j] * (q2[j] - q[j]).abs()).sum();
                        assert!(
                            change <= bound + 1e-15,
                            "margin {index} at {q:?}: {change} > {bound}"
                        );
                        tightest = tightest.max(change / bound);
                    }
                }
            }
            assert!(
                tightest > 0.99,
                "margin {index}: the slopes are loose ({tightest})"
            );
        }
    }
}
