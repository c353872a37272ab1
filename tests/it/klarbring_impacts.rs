//! One impact of Klarbring's particle (docs/klarbring.md, "One impact"): the compliant velocity
//! at the first opening against the rigid impact law with e = e(c_d), on the experiment file's
//! cases. The rates are measured between κ = 1e-4 and 1e-6 and compared with the derivation:
//! 1 for an undamped impact that sticks, 1/2 otherwise; the restitution measured at the opening,
//! extrapolated from κ = 1e-6, 1e-7, 1e-8 as e₀ + a√κ + bκ, is e(c_d) to 1e-6.

use rigid_limit::compliant::normal::restitution_unit_normal_mass;
use rigid_limit::experiment::system::{Method, RunSettings, System};
use rigid_limit::integrate::IntegratorKind;
use rigid_limit::models::klarbring::impacts::{ImpactConfig, ImpactRecord};
use rigid_limit::models::klarbring::KlarbringImpacts;
use rigid_limit::study::convergence::Convergence;

fn spec() -> Convergence<KlarbringImpacts> {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/klarbring_impacts.toml"),
    )
    .unwrap();
    Convergence::parse(&text).unwrap()
}

/// The experiment's configuration with initial velocity `v0` and dashpot `damping`.
fn case(spec: &Convergence<KlarbringImpacts>, v0: &[f64], damping: f64) -> ImpactConfig {
    ImpactConfig {
        v0: v0.to_vec(),
        damping,
        ..spec.params.clone()
    }
}

/// One compliant run at κ through the system's entry point, with the file's tolerances.
fn run(spec: &Convergence<KlarbringImpacts>, c: &ImpactConfig, kappa: f64) -> ImpactRecord {
    let settings = RunSettings::new(IntegratorKind::Tsit45, spec.solver.rtol, spec.solver.atol);
    KlarbringImpacts::run(c, Method::Compliant { kappa }, &settings)
        .unwrap()
        .0
}

#[test]
fn post_impact_velocity_converges_at_the_derived_rates() {
    let spec = spec();
    for (v0, damping, sticks, rate) in [
        ([1.0, 2.0, -1.0], 0.0, false, 0.5),
        ([1.0, 2.0, -1.0], 0.5, false, 0.5),
        ([1.0, 0.5, 0.4], 0.0, true, 1.0),
        ([1.0, 0.5, 0.4], 0.5, true, 0.5),
    ] {
        let case = case(&spec, &v0, damping);
        // The rate from 1e-4 to 1e-6: below, the undamped sticking impact's ΔV (~1e-9 at
        // κ = 1e-8) meets the 1e-9 tangential speed a two-tangent slide starts with
        // (cone::SLIP_SEED) in the slide after the stick-break.
        let kappas = [1e-4, 1e-6, 1e-7, 1e-8];
        let runs: Vec<_> = kappas.iter().map(|&k| run(&spec, &case, k)).collect();
        assert_eq!(runs[0].impact_sticks, sticks);
        let d: Vec<f64> = runs.iter().map(|r| r.d_v_plus).collect();
        let measured = (d[0] / d[1]).log10() / 2.0;
        assert!(
            (measured - rate).abs() < 0.03,
            "V0 {v0:?}, c_d {damping}: rate {measured}"
        );
        // e^κ = e₀ + a√κ + bκ through the three points (exact solve, s = √κ).
        let e: Vec<f64> = runs[1..].iter().map(|r| r.restitution_measured).collect();
        let s: Vec<f64> = kappas[1..].iter().map(|k| k.sqrt()).collect();
        // Divided differences in s of e(s) = e₀ + a s + b s².
        let d01 = (e[1] - e[0]) / (s[1] - s[0]);
        let d12 = (e[2] - e[1]) / (s[2] - s[1]);
        let b = (d12 - d01) / (s[2] - s[0]);
        let a = d01 - b * (s[0] + s[1]);
        let e0 = e[0] - a * s[0] - b * s[0] * s[0];
        let expected = restitution_unit_normal_mass(damping).unwrap();
        assert!(
            (e0 - expected).abs() < 1e-6,
            "V0 {v0:?}, c_d {damping}: e₀ = {e0}, e(c_d) = {expected}"
        );
    }
}

#[test]
fn a_start_on_or_inside_the_wall_is_refused_naming_the_key() {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/klarbring_impacts.toml"),
    )
    .unwrap()
    .replace("U0 = [-0.02, 0.1, 0.0]", "U0 = [0.0, 0.1, 0.0]");
    let err = Convergence::<KlarbringImpacts>::parse(&text).unwrap_err();
    assert!(err.to_string().contains("params.U0"), "{err}");
    let text = text
        .replace("U0 = [0.0, 0.1, 0.0]", "U0 = [-0.02, 0.1, 0.0]")
        .replace("V0 = [[1.0, 2.0, -1.0],", "V0 = [[1.0, 2.0],");
    let err = Convergence::<KlarbringImpacts>::parse(&text).unwrap_err();
    assert!(err.to_string().contains("invalid sweep.V0[0] = "), "{err}");
    // The second listed velocity: the error names its entry.
    let text = text.replace(
        "V0 = [[1.0, 2.0], [1.0, 0.5, 0.4]]",
        "V0 = [[1.0, 2.0, -1.0], [1.0, 0.5]]",
    );
    let err = Convergence::<KlarbringImpacts>::parse(&text).unwrap_err();
    assert!(
        err.to_string().contains("invalid sweep.V0[1] = [1, 0.5]"),
        "{err}"
    );
}

/// A compliant impact that sticks must slide again before it opens: in stick the force holding
/// V_T = 0 is −g ≠ 0 while μF_n falls to 0, so the stick breaks an O(κ) time before the opening.
/// The stick-break function once turned positive again past F_n = 0 and the scan missed the
/// break when both fell in one scan interval (κ = 3e-5, 3e-7 … 1e-8 opened in stick).
#[test]
fn a_sticking_impact_slides_again_before_it_opens() {
    let spec = spec();
    for damping in [0.0, 0.5] {
        let case = case(&spec, &[1.0, 0.5, 0.4], damping);
        for kappa in spec.ladder() {
            assert_eq!(
                run(&spec, &case, kappa).mode_sequence,
                "free slide stick slide",
                "c_d = {damping}, κ = {kappa}"
            );
        }
    }
}

/// The compliant velocity at the first opening, as κ → 0, is the rigid impact law's V⁺ written
/// out by hand for the particle's unit mass (no code of the rigid solver): Newton's
/// V⁺_N = −e V⁻_N with e = e(c_d), and the Coulomb tangential impulse μ P_N, P_N = (1 + e) V⁻_N,
/// opposing V_T⁻ (the tangential velocity does not couple to the normal one when M = I, so the
/// slip keeps its direction) until it stops V_T: V_T⁺ = V_T⁻ max(0, 1 − μ P_N/‖V_T⁻‖). The
/// files' cases slip through the impact (V0 = (1, 2, −1)) and stick (V0 = (1, 0.5, 0.4)); the
/// distance at κ = 1e-8 is below 5√κ (its rate is 1/2 or 1, docs/klarbring.md "One impact").
#[test]
fn the_opening_velocity_tends_to_newton_and_coulomb_impact_law() {
    let spec = spec();
    let kappa = 1e-8;
    for (v0, damping) in [
        ([1.0, 2.0, -1.0], 0.0),
        ([1.0, 2.0, -1.0], 0.5),
        ([1.0, 0.5, 0.4], 0.0),
        ([1.0, 0.5, 0.4], 0.5),
    ] {
        let r = run(&spec, &case(&spec, &v0, damping), kappa);
        let e = restitution_unit_normal_mass(damping).unwrap();
        let v_minus = &r.v_minus;
        let p_normal = (1.0 + e) * v_minus[0];
        let slip = v_minus[1..].iter().map(|v| v * v).sum::<f64>().sqrt();
        let kept = (1.0 - spec.params.mu * p_normal / slip).max(0.0);
        let v_plus: Vec<f64> = std::iter::once(-e * v_minus[0])
            .chain(v_minus[1..].iter().map(|v| v * kept))
            .collect();
        let distance = r
            .v_open
            .iter()
            .zip(&v_plus)
            .map(|(a, b)| (a - b) * (a - b))
            .sum::<f64>()
            .sqrt();
        assert!(
            distance < 5.0 * kappa.sqrt(),
            "V0 {v0:?}, c_d {damping}: V(open) {:?}, V⁺ {v_plus:?}, distance {distance}",
            r.v_open
        );
        assert_eq!(r.impact_sticks, kept == 0.0, "V0 {v0:?}, c_d {damping}");
    }
}
