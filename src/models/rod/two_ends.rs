//! The Painlevé rod with both ends as contacts (docs/multi_contact.md): the rod of
//! [`super::mechanics`] in the same coordinates (x_A, y_A, θ), its end A the first contact and
//! its far end B = A + 2(cos θ, sin θ) the second, for the several-contact formulation
//! ([`crate::compliant::multi`]). Without the single-contact model's domain (A the lower end,
//! B above the floor): either end may touch.

use super::mechanics::{PainleveRod, THETA, Y_A};
use crate::compliant::multi::PlanarContacts;
use crate::model::{ContactKinematics, MassFactor, Mechanics, PlanarContactSystem, Real};

/// The rod with contacts at A (0) and B (1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TwoEndedRod(pub PainleveRod);

impl Mechanics<3> for TwoEndedRod {
    fn coordinate_names(&self) -> [&'static str; 3] {
        self.0.coordinate_names()
    }
    fn mass_matrix<S: Real>(&self, q: &[S; 3]) -> [[S; 3]; 3] {
        self.0.mass_matrix(q)
    }
    fn generalized_force<S: Real>(&self, q: &[S; 3], qdot: &[S; 3]) -> [S; 3] {
        self.0.generalized_force(q, qdot)
    }
    fn potential_energy<S: Real>(&self, q: &[S; 3]) -> S {
        self.0.potential_energy(q)
    }
    fn mass_factor_and_force<S: Real>(
        &self,
        q: &[S; 3],
        qdot: &[S; 3],
    ) -> (MassFactor<S, 3>, [S; 3]) {
        self.0.mass_factor_and_force(q, qdot)
    }
}

impl PlanarContacts<3> for TwoEndedRod {
    fn contact_count(&self) -> usize {
        2
    }

    /// A as for the single-contact rod; B at height y_A + 2 sin θ (a sum of small terms near
    /// the floor: no cancellation), with d_B = (0, 1, 2 cos θ), c_B = (1, 0, −2 sin θ) and
    /// the drifts ḋ_Bᵀq̇ = −2 sin θ θ̇², ċ_Bᵀq̇ = −2 cos θ θ̇².
    fn contact<S: Real>(&self, k: usize, q: &[S; 3], qdot: &[S; 3]) -> ContactKinematics<S, 3> {
        if k == 0 {
            return self.0.contact_kinematics(q, qdot);
        }
        let (s, c) = q[THETA].sin_cos();
        let (one, zero) = (S::cst(1.0), S::zero());
        let w2 = qdot[THETA] * qdot[THETA];
        ContactKinematics {
            gap: q[Y_A] + s.scale(2.0),
            normal: [zero, one, c.scale(2.0)],
            tangential: [one, zero, -s.scale(2.0)],
            normal_drift: -(s * w2).scale(2.0),
            tangential_drift: -(c * w2).scale(2.0),
        }
    }

    fn contact_name(&self, k: usize) -> String {
        ["end A", "end B"][k].to_string()
    }

    /// A's, as for the single-contact rod; B's turn with θ.
    fn constant_contact_directions(&self, k: usize) -> Option<([f64; 3], [f64; 3])> {
        (k == 0)
            .then(|| self.0.constant_contact_directions())
            .flatten()
    }

    /// A's from its constant directions; B's gap y_A + 2 sin θ has slope 1 in y_A and at most
    /// |2 cos θ| ≤ 2 in θ.
    fn gap_slopes(&self, k: usize) -> Option<[f64; 3]> {
        if k == 0 {
            return self
                .constant_contact_directions(0)
                .map(|(_, d)| d.map(f64::abs));
        }
        let mut w = [0.0; 3];
        (w[Y_A], w[THETA]) = (1.0, 2.0);
        Some(w)
    }
}
