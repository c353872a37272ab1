//! A unit-mass particle on the plane y ≥ 0, pulled into it by a spring of stiffness k anchored a
//! depth d below the plane, and pushed along it by the load a sin(ωt). The smallest
//! non-autonomous single-contact system: Klarbring's particle with K = k I, W = 0.
//!
//! ```text
//!   q = (x, y),  M = I,  f = (−k x, −k (y + d)),  F(t) = (a sin ωt, 0),
//!   gap y,  tangential c = (1, 0),  normal d = (0, 1).
//! ```
//!
//! Started at rest at the quasi-static penetration, the normal motion is at rest for ever (no
//! coupling: W = 0), so the normal force is F_n = k d/(1 + kκ) and the particle sticks at x = 0
//! until the load reaches the friction limit: sin(ω t₁) = μ F_n / a. In the rigid limit
//! F_n = k d: the slip onset converges to asin(μkd/a)/ω at rate κ.
//!
//! Domain of validity: every state (no `validity_margins`): a point on a half-plane with a
//! linear spring has no configuration in which the single-contact model stops holding.

use crate::model::{ContactKinematics, Mechanics, PlanarContactSystem, Real, FLOOR_DIRECTIONS};

/// The particle's parameters (nondimensional).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpringParticleMechanics {
    /// Spring stiffness k > 0.
    pub stiffness: f64,
    /// Depth d > 0 of the spring's anchor below the plane.
    pub depth: f64,
    /// Load amplitude a.
    pub load_amplitude: f64,
    /// Load frequency ω.
    pub load_frequency: f64,
}

impl Mechanics<2> for SpringParticleMechanics {
    fn coordinate_names(&self) -> [&'static str; 2] {
        ["x", "y"]
    }
    fn mass_matrix<S: Real>(&self, _q: &[S; 2]) -> [[S; 2]; 2] {
        [[S::cst(1.0), S::zero()], [S::zero(), S::cst(1.0)]]
    }
    fn generalized_force<S: Real>(&self, q: &[S; 2], _qdot: &[S; 2]) -> [S; 2] {
        [
            q[0].scale(-self.stiffness),
            (q[1] + S::cst(self.depth)).scale(-self.stiffness),
        ]
    }
    fn potential_energy<S: Real>(&self, q: &[S; 2]) -> S {
        let y = q[1] + S::cst(self.depth);
        (q[0] * q[0] + y * y).scale(0.5 * self.stiffness)
    }
    fn is_autonomous(&self) -> bool {
        false
    }
    fn external_load<S: Real>(&self, t: S) -> [S; 2] {
        [
            t.scale(self.load_frequency)
                .sin()
                .scale(self.load_amplitude),
            S::zero(),
        ]
    }
}

impl PlanarContactSystem<2> for SpringParticleMechanics {
    fn contact_kinematics<S: Real>(&self, q: &[S; 2], _qdot: &[S; 2]) -> ContactKinematics<S, 2> {
        ContactKinematics::particle_on_floor(q)
    }

    /// The particle is the contact point on a flat floor: c = e_x, d = e_y.
    fn constant_contact_directions(&self) -> Option<([f64; 2], [f64; 2])> {
        Some(FLOOR_DIRECTIONS)
    }
}

impl SpringParticleMechanics {
    /// The normal force at rest in contact with compliance κ: k d / (1 + kκ).
    pub fn rest_normal_force(&self, kappa: f64) -> f64 {
        self.stiffness * self.depth / (1.0 + self.stiffness * kappa)
    }

    /// The first time the load reaches the friction limit μ F_n (F_n at compliance κ; κ = 0 is
    /// the rigid limit), or `None` when it never does.
    pub fn slip_onset(&self, mu: f64, kappa: f64) -> Option<f64> {
        let ratio = mu * self.rest_normal_force(kappa) / self.load_amplitude;
        (ratio < 1.0).then(|| ratio.asin() / self.load_frequency)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contact_directions_are_constant() {
        let particle = SpringParticleMechanics {
            stiffness: 2.0,
            depth: 0.5,
            load_amplitude: 0.3,
            load_frequency: 1.0,
        };
        crate::model::check_constant_contact_directions(&particle);
    }
}
