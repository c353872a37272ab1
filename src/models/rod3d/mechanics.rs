//! The slender rod touching a horizontal plane with one end, in 3D (Champneys–Várkonyi §7,
//! Fig. 3Drod; Zhao et al. 2008): mass m = 1, half-length l = 1, gravity g = 1, radius of
//! gyration about the centre of mass √ρ·l (ρ = 1/3 for a uniform rod), no inertia about its own
//! axis (spin about the axis neither is excited by a force at the end nor enters the contact).
//!
//! Coordinates q = (x₁, x₂, y, θ, ψ): the centre of mass G, the rod's angle θ to the plane and
//! the azimuth ψ of the horizontal direction from G to the contact end A. The rod's axis from A
//! to G is e = (−cos θ cos ψ, −cos θ sin ψ, sin θ), so A = G − l e:
//!
//! ```text
//!   x_A = x₁ + l cos θ cos ψ,   x_A2 = x₂ + l cos θ sin ψ,   y_A = y − l sin θ (the gap).
//! ```
//!
//! T = ½|Ġ|² + ½ρ(θ̇² + cos²θ ψ̇²), V = y: M = diag(1, 1, 1, ρ, ρ cos²θ) and the Lagrangian's
//! velocity terms f_θ = −ρ sin θ cos θ ψ̇², f_ψ = 2ρ sin θ cos θ θ̇ ψ̇. M is singular at θ = π/2
//! (the azimuth of a vertical rod is undefined): the validity margin is cos θ.
//!
//! Projected onto the contact (src/models/rod3d/painleve.rs has the closed forms and the tests
//! that W = J M⁻¹ Jᵀ of these coordinates is the rigid body's (1/m)[I + k(I − e eᵀ)], k = 1/ρ).

use crate::model::{ContactFrame, ContactSystem, Mechanics, Real, ValidityMargin};

/// Indices of the coordinates.
pub const X1: usize = 0;
pub const X2: usize = 1;
pub const Y: usize = 2;
pub const THETA: usize = 3;
pub(crate) const PSI: usize = 4;

/// The rod in 3D with its squared radius of gyration ρ = r_g²/l².
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpatialRod {
    pub gyration_sq: f64,
}

const MARGINS: [ValidityMargin; 1] = [ValidityMargin {
    quantity: "cos θ",
    meaning: "the rod stands vertical (its azimuth ψ is undefined)",
}];

impl SpatialRod {
    /// The configuration and velocities of a rod whose contact end A is at the origin at
    /// penetration δ (A at height −δ), at angle θ and azimuth ψ, with spin rates (θ̇, ψ̇) and
    /// the contact point's horizontal velocity u and normal velocity v.
    pub(crate) fn state_with_contact_point(
        &self,
        delta: f64,
        angles: (f64, f64),
        rates: (f64, f64),
        u: [f64; 2],
        v: f64,
    ) -> ([f64; 5], [f64; 5]) {
        let ((theta, psi), (w, wpsi)) = (angles, rates);
        let (s, c) = theta.sin_cos();
        let (sp, cp) = psi.sin_cos();
        let q = [-c * cp, -c * sp, s - delta, theta, psi];
        // Ẋ_A = Ġ + (the rates' part of A's velocity): subtract the latter from u, v.
        let qdot = [
            u[0] + s * cp * w + c * sp * wpsi,
            u[1] + s * sp * w - c * cp * wpsi,
            v + c * w,
            w,
            wpsi,
        ];
        (q, qdot)
    }
}

impl Mechanics<5> for SpatialRod {
    fn coordinate_names(&self) -> [&'static str; 5] {
        ["x1", "x2", "y", "theta", "psi"]
    }
    fn mass_matrix<S: Real>(&self, q: &[S; 5]) -> [[S; 5]; 5] {
        let (o, z) = (S::cst(1.0), S::zero());
        let c = q[THETA].cos();
        let rho = self.gyration_sq;
        [
            [o, z, z, z, z],
            [z, o, z, z, z],
            [z, z, o, z, z],
            [z, z, z, S::cst(rho), z],
            [z, z, z, z, (c * c).scale(rho)],
        ]
    }
    fn generalized_force<S: Real>(&self, q: &[S; 5], qdot: &[S; 5]) -> [S; 5] {
        let (s, c) = q[THETA].sin_cos();
        let sc = (s * c).scale(self.gyration_sq);
        let (w, wpsi) = (qdot[THETA], qdot[PSI]);
        [
            S::zero(),
            S::zero(),
            S::cst(-1.0),
            -(sc * wpsi * wpsi),
            (sc * w * wpsi).scale(2.0),
        ]
    }
    fn potential_energy<S: Real>(&self, q: &[S; 5]) -> S {
        q[Y]
    }
    fn validity_margins(&self) -> &[ValidityMargin] {
        &MARGINS
    }
    fn validity_margin(&self, _index: usize, q: &[f64; 5], _qdot: &[f64; 5]) -> f64 {
        q[THETA].cos()
    }
}

impl ContactSystem<5, 2, 1> for SpatialRod {
    /// The end A on the plane y = 0: gap y_A, tangents x_A, x_A2 (module doc); the drifts are
    /// the rates' second-order terms of ẍ_A, ÿ_A.
    fn contact_frames<S: Real>(&self, q: &[S; 5], qdot: &[S; 5]) -> [ContactFrame<S, 5, 2>; 1] {
        let (o, z) = (S::cst(1.0), S::zero());
        let (s, c) = q[THETA].sin_cos();
        let (sp, cp) = q[PSI].sin_cos();
        let (w, wpsi) = (qdot[THETA], qdot[PSI]);
        let spin_sq = w * w + wpsi * wpsi;
        let cross = (s * w * wpsi).scale(2.0);
        [ContactFrame {
            gap: q[Y] - s,
            normal: [z, z, o, -c, z],
            tangents: [
                [o, z, z, -(s * cp), -(c * sp)],
                [z, o, z, -(s * sp), c * cp],
            ],
            normal_drift: s * w * w,
            tangent_drift: [
                -(c * cp * spin_sq) + cross * sp,
                -(c * sp * spin_sq) - cross * cp,
            ],
        }]
    }
}
