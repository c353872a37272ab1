//! The oblique impact of C–V §3.2 (docs/oblique_impact.md): the Hunt–Crossley normal law
//! against Hertz's closed forms, and the compliant impact of the planar contact against the
//! rigid impact map as κ → 0 — an elastic law (zero normal work at release) realises Stronge's
//! energetic law with r = 1; a spring–dashpot's slip-through impact restitutes
//! R(c_d√p_σ), not the frictionless R(c_d√C) that either rigid law would use.

use rigid_limit::compliant::coulomb::Coulomb;
use rigid_limit::compliant::normal::{restitution_unit_normal_mass, NormalCompliance};
use rigid_limit::compliant::record::RunRecord;
use rigid_limit::compliant::{simulate, ContactProblem, EndCondition, SimulationOptions};
use rigid_limit::integrate::IntegratorKind;
use rigid_limit::models::planar::mechanics::ConstantPlanar;
use rigid_limit::rigid::oblique_impact::{ImpactContact, RestitutionLaw};

fn planar(b: f64, aa: f64, bb: f64, cc: f64) -> ConstantPlanar {
    ConstantPlanar {
        free_tangential_accel: 0.0,
        free_normal_accel: b,
        tangential_mobility: aa,
        cross_mobility: bb,
        normal_mobility: cc,
    }
}

/// One compliant impact from touching with (u⁻, v⁻) to the first opening.
fn impact(system: &ConstantPlanar, law: NormalCompliance, mu: f64, u: f64, v: f64) -> RunRecord {
    let problem = ContactProblem {
        system,
        compliance: law,
        friction: Coulomb::equal(mu),
    };
    let mut options = SimulationOptions::new(IntegratorKind::Tsit45, 1e-11, 1e-13);
    options.end = EndCondition::Separation;
    options.t_max = 100.0 * law.kappa.sqrt();
    simulate(&problem, &[0.0, 0.0], &[u, v], &options).unwrap_or_else(|e| panic!("{e}"))
}

/// ∫₀¹ (1 − x^{5/2})^{−1/2} dx = (2/5) B(2/5, 1/2) = (4/5)∫₀^{π/2} sin^{−1/5}θ dθ, by Simpson
/// in θ = t⁵ (the integrand 5t⁴ sin^{−1/5}(t⁵) is smooth).
fn hertz_half_period_integral() -> f64 {
    let top = std::f64::consts::FRAC_PI_2.powf(0.2);
    let n = 20_000;
    let h = top / n as f64;
    let f = |t: f64| {
        if t == 0.0 {
            0.0
        } else {
            5.0 * t.powi(4) * (t.powi(5)).sin().powf(-0.2)
        }
    };
    let mut sum = f(0.0) + f(top);
    for i in 1..n {
        sum += f(i as f64 * h) * if i % 2 == 1 { 4.0 } else { 2.0 };
    }
    0.8 * sum * h / 3.0
}

/// Hertz (undamped Hunt–Crossley) on a unit normal mobility: energy (2/5)η^{5/2} = v²/2 gives
/// the largest penetration δ_max = √κ (5v²/4)^{2/5}; the contact lasts 2 (δ_max/v)·∫₀¹(1 −
/// x^{5/2})^{−1/2}dx; it is elastic (v⁺ = |v⁻|).
#[test]
fn hertz_impact_matches_its_closed_forms() {
    let system = planar(0.0, 1.0, 0.0, 1.0);
    let integral = hertz_half_period_integral();
    for (kappa, v) in [(1e-8, 1.0), (1e-6, 0.3)] {
        let law = NormalCompliance::hunt_crossley(kappa, 0.0);
        let r = impact(&system, law, 0.5, 0.7, -v);
        let post = r.post_impact.as_ref().unwrap();
        let depth = kappa.sqrt() * (1.25 * v * v).powf(0.4);
        assert!(
            (r.max_penetration / depth - 1.0).abs() < 1e-7,
            "{} {depth}",
            r.max_penetration
        );
        let duration = 2.0 * depth / v * integral;
        assert!(
            (post.t / duration - 1.0).abs() < 1e-6,
            "{} {duration}",
            post.t
        );
        assert!((post.v / v - 1.0).abs() < 1e-8, "{}", post.v);
        assert!(
            r.energy.balance_error.abs() < 1e-8 * v * v,
            "{:?}",
            r.energy
        );
    }
}

/// Hunt–Crossley's restitution for small α|v⁻|: the dissipated (2/3)α|v⁻|³ (the elastic
/// path's ∫α δ̇² η^{3/2} dt) gives e = 1 − (2/3)α|v⁻| + O((α|v⁻|)²).
#[test]
fn hunt_crossley_restitution_for_small_damping() {
    let system = planar(0.0, 1.0, 0.0, 1.0);
    let mut residuals = Vec::new();
    for alpha_v in [1e-2, 1e-3] {
        let law = NormalCompliance::hunt_crossley(1e-8, alpha_v);
        let r = impact(&system, law, 0.5, 0.7, -1.0);
        let e = r.post_impact.unwrap().v;
        let residual = (1.0 - e - 2.0 / 3.0 * alpha_v).abs();
        assert!(residual < alpha_v * alpha_v, "{alpha_v}: e = {e}");
        // The energy account holds the Hunt–Crossley dashpot's work.
        assert!(r.energy.balance_error.abs() < 1e-8, "{:?}", r.energy);
        residuals.push(residual);
    }
    // Second order: ten times less damping, about a hundred times smaller residual.
    assert!(residuals[1] < residuals[0] / 30.0, "{residuals:?}");
}

/// An elastic compliant impact (linear spring or Hertz) tends to Stronge's energetic map with
/// r = 1, in every region of the plane (slip through, slip → stick, reversal, Painlevé), at
/// rate √κ (b ≠ 0 drifts the frozen data by O(√κ)); it differs from Poisson's wherever a slip
/// stops inside the impact.
#[test]
fn elastic_laws_select_the_energetic_map() {
    for (bb, mu) in [(0.5, 0.8), (-0.5, 0.3), (0.5, 2.5)] {
        let system = planar(-1.0, 1.0, bb, 1.0);
        let contact = ImpactContact {
            tangential_mobility: 1.0,
            cross_mobility: bb,
            normal_mobility: 1.0,
            mu,
        };
        for u in [-2.1, -0.6, 0.3, 1.1, 2.4] {
            let energetic = contact
                .impact(u, -1.0, RestitutionLaw::Energetic(1.0))
                .unwrap();
            let poisson = contact
                .impact(u, -1.0, RestitutionLaw::Poisson(1.0))
                .unwrap();
            for make in [
                NormalCompliance::linear_spring as fn(f64) -> NormalCompliance,
                |k| NormalCompliance::hunt_crossley(k, 0.0),
            ] {
                let distance = |kappa: f64| {
                    let post = impact(&system, make(kappa), mu, u, -1.0)
                        .post_impact
                        .unwrap();
                    (post.u - energetic.u_plus).hypot(post.v - energetic.v_plus)
                };
                let (coarse, fine) = (distance(1e-6), distance(1e-10));
                assert!(fine < 1e-4, "B {bb} μ {mu} u {u}: {fine}");
                // √κ: a hundredfold smaller over four decades (within 20 %).
                assert!((coarse / fine / 100.0 - 1.0).abs() < 0.2, "{coarse} {fine}");
            }
            let differs = (energetic.v_plus - poisson.v_plus).abs() > 1e-3;
            let stops = energetic.mode_sequence() != "slide_right"
                && energetic.mode_sequence() != "slide_left";
            assert_eq!(
                differs, stops,
                "B {bb} μ {mu} u {u}: {energetic:?} {poisson:?}"
            );
        }
    }
}

/// The damped spring–dashpot's slip-through impact (u never reaches 0) sees the normal
/// mobility p_σ, not C: its restitution is R(c_d√p_σ) (the damping ratio c_d√p_σ/2), while
/// both rigid laws, at the frictionless R(c_d√C), give v⁺ = R(c_d√C)|v⁻| there. No single r
/// makes a rigid law reproduce it across regions.
#[test]
fn damped_slip_through_restitutes_with_the_slip_mobility() {
    let (bb, mu, c_d) = (0.5, 2.5, 0.5);
    let system = planar(0.0, 1.0, bb, 1.0);
    let p_minus = 1.0 + mu * bb; // slip left: p− = C + μB
    let u = -8.0; // far left: slips through
    let post = impact(
        &system,
        NormalCompliance::spring_dashpot(1e-8, c_d),
        mu,
        u,
        -1.0,
    )
    .post_impact
    .unwrap();
    let want = restitution_unit_normal_mass(c_d * p_minus.sqrt()).unwrap();
    assert!((post.v - want).abs() < 1e-7, "{} {want}", post.v);
    let frictionless = restitution_unit_normal_mass(c_d).unwrap();
    assert!((post.v - frictionless).abs() > 0.05);
}

/// Through the system's entry point (`PlanarObliqueImpact::run`, the run of
/// experiments/oblique_impact_map.toml): a contact without cross mobility (B = 0) hit at
/// u⁻ = −3|v⁻| under the undamped law slips left through the whole impact, so by hand
/// v⁺ = −v⁻ (elastic), P_N = 2|v⁻|/C and u⁺ = u⁻ + μ A P_N = −3 + 0.8·2 = −1.4 (A = C = 1,
/// v⁻ = −1); the compliant outgoing velocities reach them as κ → 0.
#[test]
fn a_slip_through_impact_without_cross_mobility_leaves_at_the_hand_closed_form() {
    use rigid_limit::compliant::normal::NormalLaw;
    use rigid_limit::experiment::system::{Method, RunSettings, System};
    use rigid_limit::models::planar::oblique_impact::{ImpactConfig, PlanarObliqueImpact};
    let kappa: f64 = 1e-10;
    let config = ImpactConfig {
        a: 0.0,
        b: -1.0,
        v_minus: -1.0,
        tangential_mobility: 1.0,
        cross_mobility: 0.0,
        normal_mobility: 1.0,
        mu: 0.8,
        law: NormalLaw::SpringDashpot,
        damping: 0.0,
        incidence: -3.0,
    };
    PlanarObliqueImpact::validate(&config, None).unwrap();
    let mut settings = RunSettings::new(IntegratorKind::Tsit45, 1e-10, 1e-12);
    settings.t_max = Some(100.0 * kappa.sqrt());
    let (record, _) =
        PlanarObliqueImpact::run(&config, Method::Compliant { kappa }, &settings).unwrap();
    assert_eq!(record.mode_sequence, "slide_left");
    assert!((record.u_plus + 1.4).abs() < 1e-3, "u⁺ = {}", record.u_plus);
    assert!((record.v_plus - 1.0).abs() < 1e-3, "v⁺ = {}", record.v_plus);
}
