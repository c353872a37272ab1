//! The restitution of the spring–dashpot law (docs/restitution.md) against numerical impacts:
//! the compliant formulation, its integrators and its event location, on the spring particle with
//! the spring and the load switched off (a free unit mass), dropped onto the plane at δ = 0.

use rigid_limit::compliant::coulomb::Coulomb;
use rigid_limit::compliant::normal::{restitution_unit_normal_mass, NormalCompliance};
use rigid_limit::compliant::{simulate, ContactProblem, EndCondition, SimulationOptions};
use rigid_limit::integrate::IntegratorKind;
use rigid_limit::models::spring_particle::mechanics::SpringParticleMechanics;

/// A free unit mass: the spring particle with k = 0 and no load.
const FREE_PARTICLE: SpringParticleMechanics = SpringParticleMechanics {
    stiffness: 0.0,
    depth: 0.0,
    load_amplitude: 0.0,
    load_frequency: 1.0,
};

/// e(c_d) within 1e-6 of the ratio of the normal velocities after and before a numerical impact,
/// released by the formulation's own event (κF_n = δ + c_d√κ δ̇ falling to 0), for the
/// underdamped, critical and overdamped laws, at two compliances (e does not depend on κ) and
/// with a tangential velocity that slips through the impact or stops in it.
#[test]
fn numerical_impacts_rebound_with_the_closed_form_restitution() {
    let incoming = 1.3;
    let mu = 0.3;
    for (c_d, tangential) in [
        (0.0, 0.4),
        (0.0, 2.0),
        (0.5, 2.0),
        (1.0, 0.4),
        (1.9, 2.0),
        (2.0, 2.0),
        (3.0, 0.4),
    ] {
        let e = restitution_unit_normal_mass(c_d).unwrap();
        for kappa in [1e-4, 1e-8] {
            let problem = ContactProblem {
                system: &FREE_PARTICLE,
                compliance: NormalCompliance::spring_dashpot(kappa, c_d),
                friction: Coulomb { mu, mu_s: mu },
            };
            for kind in [
                IntegratorKind::Tsit45,
                IntegratorKind::Radau5,
                IntegratorKind::Bdf,
            ] {
                let mut o = SimulationOptions::new(kind, 1e-11, 1e-11);
                o.end = EndCondition::Separation;
                let r = simulate(&problem, &[0.0, 0.0], &[tangential, -incoming], &o).unwrap();
                let post = r.post_impact.expect("the impact separates");
                let measured = post.v / incoming;
                assert!(
                    (measured - e).abs() < 1e-6,
                    "{kind} c_d {c_d} κ {kappa}: measured {measured}, closed form {e}"
                );
                // Slip through the impact loses μ times the normal impulse (1 + e)·v⁻; a
                // slip that would reverse stops and sticks (Dance Rem. 2.4).
                let slip_after = (tangential - mu * (1.0 + e) * incoming).max(0.0);
                assert!(
                    (post.u - slip_after).abs() < 1e-6,
                    "{kind} c_d {c_d} κ {kappa} u⁻ {tangential}: u⁺ {} vs {slip_after}",
                    post.u
                );
                // Released at F_n = 0, not at δ = 0: with damping the particle leaves from
                // δ = c_d √κ δ̇⁺ > 0.
                let released_at = -post.q[1];
                let expected_depth = c_d * kappa.sqrt() * post.v;
                assert!(
                    (released_at - expected_depth).abs() < 1e-6 * kappa.sqrt(),
                    "{kind} c_d {c_d} κ {kappa}: δ at release {released_at}"
                );
            }
        }
    }
}
