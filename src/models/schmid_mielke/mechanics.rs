//! The dynamic counterpart of §4 (docs/schmid_mielke.md, "The compliant model"): a unit mass
//! at z with the restoring force −Hz, viscous drag −νż, the load f(εt) of the quasistatic
//! problem played slowly, and the wall z₂ = 0 with friction μ(z₁). The compliant formulation
//! adds the penalty normal force and exact Coulomb friction:
//!
//! ```text
//!   z̈ = −Hz − νż + f(εt) + (F_τ, F_n),   gap z₂, tangential c = (1, 0), normal d = (0, 1).
//! ```
//!
//! In slow time s = εt the quasistatic problem is the limit ε → 0 (with κ → 0).

use super::quasistatic::QuasistaticProblem;
use crate::model::{ContactKinematics, Mechanics, PlanarContactSystem, Real, FLOOR_DIRECTIONS};

/// The slowly loaded particle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlowlyLoadedParticle {
    /// H, f and μ(z₁) of the quasistatic problem.
    pub problem: QuasistaticProblem,
    /// The loading rate ε: the load at fast time t is f(εt).
    pub epsilon: f64,
    /// Viscosity ν ≥ 0 of the drag −νż (isotropic).
    pub viscosity: f64,
}

impl SlowlyLoadedParticle {
    /// ν = 2ζ√H₁₁: damping ratio ζ for the tangential spring.
    pub(crate) fn viscosity_for(problem: &QuasistaticProblem, zeta: f64) -> f64 {
        2.0 * zeta * problem.stiffness[0][0].sqrt()
    }

    /// At rest in contact at z₁: the quasistatic penetration of the linear spring of
    /// compliance κ, σ(0, z) = −z₂/κ, i.e. z₂ = (f₂(0) − H₂₁z₁)/(H₂₂ + 1/κ).
    pub(crate) fn rest_position(&self, z1: f64, kappa: f64) -> [f64; 2] {
        let h = &self.problem.stiffness;
        let f = self.problem.load(0.0);
        [z1, (f[1] - h[1][0] * z1) / (h[1][1] + 1.0 / kappa)]
    }
}

impl Mechanics<2> for SlowlyLoadedParticle {
    fn coordinate_names(&self) -> [&'static str; 2] {
        ["z1", "z2"]
    }
    fn mass_matrix<S: Real>(&self, _q: &[S; 2]) -> [[S; 2]; 2] {
        [[S::cst(1.0), S::zero()], [S::zero(), S::cst(1.0)]]
    }
    fn generalized_force<S: Real>(&self, q: &[S; 2], qdot: &[S; 2]) -> [S; 2] {
        let h = &self.problem.stiffness;
        [
            -(q[0].scale(h[0][0]) + q[1].scale(h[0][1])) - qdot[0].scale(self.viscosity),
            -(q[0].scale(h[1][0]) + q[1].scale(h[1][1])) - qdot[1].scale(self.viscosity),
        ]
    }
    /// ½⟨Hz, z⟩: the load's part of E is its work, accounted for separately.
    fn potential_energy<S: Real>(&self, q: &[S; 2]) -> S {
        let h = &self.problem.stiffness;
        (q[0] * q[0].scale(h[0][0]) + q[0] * q[1].scale(2.0 * h[0][1]) + q[1] * q[1].scale(h[1][1]))
            .scale(0.5)
    }
    fn is_autonomous(&self) -> bool {
        false
    }
    /// f(εt), affine.
    fn external_load<S: Real>(&self, t: S) -> [S; 2] {
        let p = &self.problem;
        let s = t.scale(self.epsilon);
        [
            S::cst(p.load_at_zero[0]) + s.scale(p.load_rate[0]),
            S::cst(p.load_at_zero[1]) + s.scale(p.load_rate[1]),
        ]
    }
    fn is_dissipative(&self) -> bool {
        true
    }
    /// −ν|ż|².
    fn dissipation_power<S: Real>(&self, _q: &[S; 2], qdot: &[S; 2]) -> S {
        -(qdot[0] * qdot[0] + qdot[1] * qdot[1]).scale(self.viscosity)
    }
}

/// No validity margins (`PlanarContactSystem::validity_margins`): every state is in the model's
/// domain. The springs and the load are linear on the whole plane, μ(z₁) stays between μ₀ and
/// μ₁ ≥ 0, and H is positive definite (`Example::validate`), unlike the rod, whose θ must stay in
/// (0, π) with the far end above the floor.
impl PlanarContactSystem<2> for SlowlyLoadedParticle {
    fn contact_kinematics<S: Real>(&self, q: &[S; 2], _qdot: &[S; 2]) -> ContactKinematics<S, 2> {
        ContactKinematics::particle_on_floor(q)
    }

    /// The particle is the contact point and the surface is the line z₂ = 0: c = e₁, d = e₂.
    fn constant_contact_directions(&self) -> Option<([f64; 2], [f64; 2])> {
        Some(FLOOR_DIRECTIONS)
    }
    /// μ(z₁) of the surface.
    fn friction_coefficient<S: Real>(&self, q: &[S; 2]) -> Option<S> {
        Some(self.problem.friction.at(q[0]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compliant::coulomb::Coulomb;
    use crate::compliant::normal::NormalCompliance;
    use crate::compliant::{simulate, ContactProblem, EndCondition, SimulationOptions};

    use crate::integrate::IntegratorKind;
    use crate::models::schmid_mielke::quasistatic::FrictionProfile;

    /// The particle under the load f = (z₁ + εt, −σ), H = diag(1, 10), friction 0.6 → 0.2 on
    /// the ramp z₁ ∈ [2, 3], drag ν = 1.
    fn particle(z1: f64, sigma: f64, eps: f64) -> SlowlyLoadedParticle {
        SlowlyLoadedParticle {
            problem: QuasistaticProblem {
                stiffness: [[1.0, 0.0], [0.0, 10.0]],
                load_at_zero: [z1, -sigma],
                load_rate: [1.0, 0.0],
                friction: FrictionProfile {
                    mu_before: 0.6,
                    mu_after: 0.2,
                    ramp_start: 2.0,
                    ramp_end: 3.0,
                },
            },
            epsilon: eps,
            viscosity: 1.0,
        }
    }

    #[test]
    fn contact_directions_are_constant() {
        crate::model::check_constant_contact_directions(&particle(1.0, 1.0, 0.5));
    }

    /// At rest in stick at z₁ (the tangential spring unloaded there), under the load
    /// f₁ = H₁₁z₁ + εt: stick breaks when εt reaches μ(z₁)F_n with F_n = σ*/(1 + κH₂₂), the
    /// closed form of the compliant rest state. At z₁ = 2.5 that is μ = 0.4, on the ramp: the
    /// mode machine reads the mechanics' μ(z₁), not a constant. The energy account closes with
    /// the drag's work.
    #[test]
    fn stick_breaks_at_the_position_dependent_limit() {
        let (kappa, sigma, eps) = (1e-6, 1.0, 0.5);
        for (z1, mu) in [(1.0, 0.6), (2.5, 0.4), (3.5, 0.2)] {
            let particle = particle(z1, sigma, eps);
            let problem = ContactProblem {
                system: &particle,
                compliance: NormalCompliance::spring_dashpot(kappa, 1.0),
                friction: Coulomb::FROM_MECHANICS,
            };
            let onset = mu * sigma / (1.0 + kappa * 10.0) / eps;
            for kind in [IntegratorKind::Radau5, IntegratorKind::Bdf] {
                let mut o = SimulationOptions::new(kind, 1e-10, 1e-10);
                o.end = EndCondition::Time(onset + 2.0);
                let q0 = particle.rest_position(z1, kappa);
                let r = simulate(&problem, &q0, &[0.0, 0.0], &o).unwrap();
                assert_eq!(r.modes[0].mode.name(), "stick", "{kind} z₁ {z1}");
                let t = r.events[0].t;
                assert!((t - onset).abs() < 1e-7, "{kind} z₁ {z1}: {t} vs {onset}");
                assert_eq!(r.events[0].to.name(), "slide_right");
                let e = &r.energy;
                assert!(e.viscous_work < 0.0 && e.friction_work < 0.0, "{e:?}");
                assert!(
                    e.balance_error.abs() < 1e-8 * e.load_work.abs(),
                    "{kind}: {e:?}"
                );
            }
        }
    }
}
