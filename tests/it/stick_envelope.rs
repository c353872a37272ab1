//! Zhao–Liu's comparison systems of the stick, eq. (56): the closed forms of the linear systems
//! (positions, equilibria (57), the passage times ε_l, ε_r of (58)) against a numerical
//! integration, and, on Zhao–Liu's state at one κ, the compliant rod's stick against them:
//! δ_l ≤ δ ≤ δ_r ((59), (60)) and ε_l < ε₃ − t_s < ε_r.

use crate::common::parse_error;
use rigid_limit::experiment::system::RunSettings;
use rigid_limit::integrate::IntegratorKind;
use rigid_limit::models::rod::bounds::{stick_lower, stick_upper, LinearOscillator};
use rigid_limit::models::rod::mechanics::{PainleveRod, THETA};
use rigid_limit::models::rod::stick_envelope::{measure, run_impact, State, StickPhase};
use rigid_limit::models::Experiment;

/// δ̈ = −ω²δ + f by classical RK4 at step `h` until δ first crosses `target` (linear
/// interpolation inside the step), or `t_max`; and δ at `t_probe`.
fn integrate(
    o: &LinearOscillator,
    d0: f64,
    v0: f64,
    target: f64,
    t_probe: f64,
    h: f64,
) -> (Option<f64>, f64) {
    let f = |y: [f64; 2]| [y[1], -o.omega_sq * y[0] + o.forcing];
    let mut y = [d0, v0];
    let mut t = 0.0;
    let mut probe = f64::NAN;
    let mut crossing = None;
    let t_max = 4.0 * std::f64::consts::PI / o.omega_sq.sqrt();
    while t < t_max {
        let k1 = f(y);
        let k2 = f([y[0] + 0.5 * h * k1[0], y[1] + 0.5 * h * k1[1]]);
        let k3 = f([y[0] + 0.5 * h * k2[0], y[1] + 0.5 * h * k2[1]]);
        let k4 = f([y[0] + h * k3[0], y[1] + h * k3[1]]);
        let next = [
            y[0] + h / 6.0 * (k1[0] + 2.0 * k2[0] + 2.0 * k3[0] + k4[0]),
            y[1] + h / 6.0 * (k1[1] + 2.0 * k2[1] + 2.0 * k3[1] + k4[1]),
        ];
        if probe.is_nan() && t + h >= t_probe {
            probe = y[0] + (next[0] - y[0]) * (t_probe - t) / h;
        }
        if crossing.is_none() && (y[0] - target) * (next[0] - target) <= 0.0 && t > 0.0 {
            crossing = Some(t + h * (y[0] - target) / (y[0] - next[0]));
        }
        y = next;
        t += h;
    }
    (crossing, probe)
}

/// The closed forms against RK4: both systems of eq. (56) (uniform rod, ε_l's equilibrium
/// negative and positive), starts moving up and down, targets above and below the equilibrium.
#[test]
fn linear_systems_closed_forms_match_integration() {
    let kappa = 1e-8;
    let rod = PainleveRod::UNIFORM;
    let mut checked = 0;
    for o in [
        LinearOscillator::stick_left(&rod, kappa, 0.7),
        LinearOscillator::stick_left(&rod, kappa, 0.1),
        LinearOscillator::stick_right(kappa),
    ] {
        // Eq. (57): the equilibrium is a rest point of the system.
        let eq = o.equilibrium();
        assert!((o.position(eq, 0.0, 3e-5) - eq).abs() < 1e-12 * kappa);
        for &(d0, v0, target) in &[
            (8e-6, 0.3, 0.016e-8),
            (8e-6, 0.0, 0.016e-8),
            (8e-6, -0.2, 2e-6),
            (3e-8, 0.01, 0.5e-8),
        ] {
            let h = 1e-4 / o.omega_sq.sqrt();
            let want = o.first_passage(d0, v0, target).expect("target in range");
            let (got, probe) = integrate(&o, d0, v0, target, 0.5 * want, h);
            let got = got.expect("RK4 crosses the target");
            assert!(
                (got - want).abs() < 1e-6 * want,
                "ω² = {}, f = {}, start ({d0}, {v0}), target {target}: closed form {want}, RK4 {got}",
                o.omega_sq,
                o.forcing
            );
            let at = o.position(d0, v0, 0.5 * want);
            assert!(
                (probe - at).abs() < 1e-6 * d0.abs().max(at.abs()),
                "{probe} vs {at}"
            );
            checked += 1;
        }
        // Out of the oscillation's range: no passage.
        assert_eq!(
            o.first_passage(1e-7, 0.0, eq + 2.0 * (1e-7 - eq).abs()),
            None
        );
    }
    assert_eq!(checked, 12);
}

/// Eq. (58)'s bounds as the closed forms give them from a start far above the equilibria
/// (δ(t_s) = 1000κ, δ̇(t_s) > 0, δ* = κ/10 between δ̄_l and δ̄_r): ε_l in (π/4·√κ, π/2·√κ), ε_r in
/// (π/2·√κ, π·√κ). The quarter period needs the start's phase atan(δ̇√κ/(2δ)) to exceed
/// arcsin((δ* − δ̄_l)/R) ≈ 2e-4 here, so δ̇(t_s) ≥ 1e-4.
#[test]
fn passage_times_lie_within_the_quarter_and_half_periods() {
    let kappa = 1e-10;
    let rod = PainleveRod::UNIFORM;
    let left = LinearOscillator::stick_left(&rod, kappa, 0.6);
    let right = LinearOscillator::stick_right(kappa);
    let target = 0.1 * kappa;
    assert!(left.equilibrium() < target && target < right.equilibrium());
    for v0 in [1e-4, 1e-3, 1e-1] {
        let d0 = 1e3 * kappa;
        let l = left.first_passage(d0, v0, target).unwrap();
        let r = right.first_passage(d0, v0, target).unwrap();
        assert!(
            stick_lower(kappa) / 2.0 < l && l < stick_lower(kappa),
            "ε_l = {l}"
        );
        assert!(
            stick_lower(kappa) < r && r < stick_upper(kappa),
            "ε_r = {r}"
        );
    }
}

/// Zhao–Liu's state (μ = 2, θ0 = 1.3, θ̇0 = 0, u0 = −1) at κ = 1e-8: the measured stick lies
/// between the linear systems started from its δ(t_s), δ̇(t_s) at every sample, and
/// ε_l < ε₃ − t_s < ε_r with ε_l, ε_r the closed-form passages through δ(ε₃).
#[test]
fn zhao_liu_stick_lies_between_the_envelopes() {
    let kappa = 1e-8;
    let state = State {
        mu: 2.0,
        theta0: 1.3,
        omega0: 0.0,
        u0: -1.0,
    };
    let settings = RunSettings::new(IntegratorKind::Dop853, 1e-10, 1e-12);
    let (r, _) = run_impact(&state, kappa, &settings).unwrap();
    let stick = StickPhase::of(&r).expect("slide → stick");
    assert!(stick.samples.len() >= 400, "{}", stick.samples.len());
    // θ̇_m: the largest |θ̇| at t_s (the slide's end), at the samples and at ε₃.
    let omega_m = stick
        .samples
        .iter()
        .map(|s| s.2.abs())
        .fold(stick.omega_end.abs(), f64::max)
        .max(r.modes[0].qdot_end[THETA].abs());
    let rod = PainleveRod::UNIFORM;
    let left = LinearOscillator::stick_left(&rod, kappa, omega_m);
    let right = LinearOscillator::stick_right(kappa);
    let (d0, v0) = (stick.delta_s, stick.delta_dot_s);
    assert!(
        d0 > 0.0 && v0 > 0.0,
        "the paper's start: δ(t_s) > 0, δ̇(t_s) > 0"
    );
    for &(t, delta, _) in &stick.samples {
        assert!(
            left.position(d0, v0, t) <= delta,
            "δ_l > δ at t − t_s = {t}"
        );
        assert!(
            delta <= right.position(d0, v0, t),
            "δ > δ_r at t − t_s = {t}"
        );
    }
    let eps_l = left.first_passage(d0, v0, stick.delta_end).unwrap();
    let eps_r = right.first_passage(d0, v0, stick.delta_end).unwrap();
    assert!(eps_l < stick.duration && stick.duration < eps_r);
    // The study's record says the same.
    let m = measure(&r, kappa, state.mu);
    assert_eq!(m.ordering_holds, Some(true));
    assert_eq!(m.eps_l, Some(eps_l));
    assert!(m.left_excess.unwrap() < 0.0 && m.right_excess.unwrap() < 0.0);
    assert_eq!(m.left_violation_from, None);
    // δ(ε₃) is eq. (54)'s δ* at the state there.
    let (d, d54) = (m.delta_star.unwrap(), m.delta_star_54.unwrap());
    assert!((d - d54).abs() < 1e-8 * d, "{d} vs {d54}");
}

/// A bad state in the list is refused in one line naming its key.
#[test]
fn a_bad_listed_state_is_refused_naming_its_key() {
    let file = |u0: &str| {
        format!(
            "name = \"x\"\nmodel = \"rod_stick_envelope\"\n[params]\nmu = 2.0\ntheta0 = 1.3\nomega0 = 0.0\nu0 = -1.0\nstates = [{{ mu = 8.4, theta0 = 0.17, omega0 = 0.0, u0 = -1.0 }}, {{ mu = 6.2, theta0 = 0.35, omega0 = 0.0, u0 = {u0} }}]\n[sweep]\nkappa = {{ min = 1e-8, max = 1e-6, per_decade = 1 }}\n[solver]\nintegrators = [\"dop853\"]\nrtol = 1e-10\natol = 1e-12\n"
        )
    };
    assert!(Experiment::parse(&file("-1.0")).is_ok());
    let error = parse_error(&file("0.5"));
    assert!(error.contains("params.states[1].u0"), "{error}");
    assert!(!error.contains('\n'), "one line: {error}");
}
