//! Described systems (`model = "system"`): the same mechanics as a hand-coded system gives the
//! same run (event times and final state; the descriptions in systems/), the documented form
//! runs with its columns, and every
//! mistake in a description is a one-line error naming the key.

use crate::common::{
    cli, described, json_numbers, json_texts, parse_error, run_and_report, system_experiment,
};
use rigid_limit::compliant::coulomb::Coulomb;
use rigid_limit::compliant::normal::NormalCompliance;
use rigid_limit::compliant::record::RunRecord;
use rigid_limit::compliant::spatial::{self, SpatialContactProblem, SpatialEvent};
use rigid_limit::compliant::spatial_measured::{MeasuredEvent, MeasuredSpatialContact};
use rigid_limit::compliant::{simulate, ContactProblem, EndCondition, SimulationOptions};
use rigid_limit::compliant::{DEFAULT_MAX_EVENTS, DEFAULT_MAX_STEPS};
use rigid_limit::experiment::system::{Method, RunSettings, System};
use rigid_limit::hybrid::Named;
use rigid_limit::integrate::{IntegratorKind, Tolerances};
use rigid_limit::model::PlanarContactSystem;
use rigid_limit::models::described::description::Description;
use rigid_limit::models::described::{Described, Record};
use rigid_limit::models::klarbring::mechanics::{KlarbringParticle, LoadComponent};
use rigid_limit::models::rod::mechanics::PainleveRod;
use rigid_limit::models::spring_particle::mechanics::SpringParticleMechanics;
use rigid_limit::models::Experiment;

/// The Painlevé rod in the hand-coded model's coordinates q = (x_A, y_A, θ) (the contact point
/// and the angle; src/models/rod/mechanics.rs), with a radius of gyration `rho2`.
fn rod_description(rho2: f64) -> String {
    format!(
        r#"
name = "described_rod"
model = "system"

[system]
coordinates = ["xa", "ya", "theta"]
parameters = {{ rho2 = {rho2} }}
mass_matrix = [["1", "0", "-sin(theta)"], ["0", "1", "cos(theta)"], ["-sin(theta)", "cos(theta)", "1 + rho2"]]
force = ["cos(theta)*theta_dot^2", "sin(theta)*theta_dot^2 - 1", "-cos(theta)"]
potential = "ya + sin(theta)"
validity = [{{ margin = "theta", meaning = "the rod lies flat" }}]

[[system.contacts]]
name = "A"
gap = "ya"
tangents = ["xa"]
mu = 2.0

[system.initial]
q = ["0", "0", "1.3"]
q_dot = ["-1", "0", "0"]

[sweep]
kappa = {{ min = 1e-8, max = 1e-8, per_decade = 1 }}

[solver]
integrators = ["dop853"]
rtol = 1e-12
atol = 1e-14
"#
    )
}

/// An experiment on the description in file `system`, at one κ, by radau5 at the tolerances
/// of [`settings`].
fn experiment_of(system: &str, kappa: f64, t_end: Option<f64>) -> String {
    let end = t_end.map(|t| format!("t_end = {t}")).unwrap_or_default();
    let solver = format!("integrators = [\"radau5\"]\nrtol = 1e-12\natol = 1e-14\n{end}");
    system_experiment(system, kappa, &solver)
}

fn settings(integrator: IntegratorKind, t_end: Option<f64>) -> RunSettings {
    RunSettings {
        t_end,
        ..RunSettings::new(integrator, 1e-12, 1e-14)
    }
}

fn options(integrator: IntegratorKind, end: EndCondition) -> SimulationOptions {
    let mut o = SimulationOptions::new(integrator, 1e-12, 1e-14);
    o.end = end;
    o
}

/// Event times and final state within `tol` relative (absolute below 1).
fn assert_same_run(described: &Record, hand: &RunRecord, tol: f64, what: &str) {
    let close = |a: f64, b: f64| (a - b).abs() <= tol * b.abs().max(1.0);
    let hand_times: Vec<f64> = hand.events.iter().map(|e| e.t).collect();
    assert_eq!(described.mode_sequence, hand.modes_joined(">"), "{what}");
    assert_eq!(described.event_times.len(), hand_times.len(), "{what}");
    for (a, b) in described.event_times.iter().zip(&hand_times) {
        assert!(close(*a, *b), "{what}: event at {a} against {b}");
    }
    for (a, b) in described.q_end.iter().zip(&hand.final_q) {
        assert!(close(*a, *b), "{what}: q_end {a} against {b}");
    }
    for (a, b) in described.q_dot_end.iter().zip(&hand.final_qdot) {
        assert!(close(*a, *b), "{what}: q_dot_end {a} against {b}");
    }
    assert!(
        close(described.impulse_normal[0], hand.impulse_normal),
        "{what}: impulse"
    );
}

/// The described run of `description` and the hand-coded `problem`'s from `start`, both at the
/// problem's compliance by `integrator` to `t_end` (to the separation when none): the same run
/// within 1e-12 ([`assert_same_run`]), the described one with its energy balanced (with its
/// declared potential) to 1e-9. Returns the hand-coded run.
fn assert_described_as_hand_coded<Sys: PlanarContactSystem<N>, const N: usize>(
    description: &Description,
    problem: &ContactProblem<'_, Sys, N>,
    start: ([f64; N], [f64; N]),
    integrator: IntegratorKind,
    t_end: Option<f64>,
    what: &str,
) -> RunRecord {
    let kappa = problem.compliance.kappa;
    let (record, _) = Described::run(
        description,
        Method::Compliant { kappa },
        &settings(integrator, t_end),
    )
    .unwrap();
    let end = t_end.map_or(EndCondition::Separation, EndCondition::Time);
    let hand = simulate(problem, &start.0, &start.1, &options(integrator, end)).unwrap();
    let what = format!("{what}{integrator}");
    assert_same_run(&record, &hand, 1e-12, &what);
    assert!(record.energy_balance_error.unwrap().abs() < 1e-9, "{what}");
    hand
}

/// Zhao–Liu's impact (θ0 = 1.3, u0 = −1, μ = 2, κ = 1e-8) of the described rod and of the
/// hand-coded one, ρ = 1/3 and ρ = 0.2, with an explicit and an implicit integrator.
#[test]
fn the_described_rod_runs_as_the_hand_coded_rod() {
    let base = described(&experiment_of("systems/painleve_rod.toml", 1e-8, None));
    for rho2 in [1.0 / 3.0, 0.2] {
        let mut spec = base.clone();
        spec.params.parameters.insert("rho2".into(), rho2);
        let rod = PainleveRod::new(rho2);
        let problem = ContactProblem {
            system: &rod,
            compliance: NormalCompliance::spring_dashpot(1e-8, 0.0),
            friction: Coulomb { mu: 2.0, mu_s: 2.0 },
        };
        for integrator in [IntegratorKind::Dop853, IntegratorKind::Radau5] {
            let start = ([0.0, 0.0, 1.3], [-1.0, 0.0, 0.0]);
            let what = format!("ρ {rho2}, ");
            let hand = assert_described_as_hand_coded(
                &spec.params,
                &problem,
                start,
                integrator,
                None,
                &what,
            );
            assert_eq!(hand.modes_joined(">"), "slide_left>stick>slide_right");
        }
    }
}

/// The spring particle (a load a sin(ωt) through t in the force) described and hand-coded, from
/// the quasi-static penetration (an initial state in kappa) to t_end = 3.
#[test]
fn the_described_spring_particle_runs_as_the_hand_coded_one() {
    let spec = described(&experiment_of(
        "systems/spring_particle.toml",
        1e-6,
        Some(3.0),
    ));
    let particle = SpringParticleMechanics {
        stiffness: 1.0,
        depth: 1.0,
        load_amplitude: 1.0,
        load_frequency: 1.0,
    };
    let kappa = 1e-6;
    let problem = ContactProblem {
        system: &particle,
        compliance: NormalCompliance::spring_dashpot(kappa, 0.0),
        friction: Coulomb { mu: 0.5, mu_s: 0.5 },
    };
    let start = (
        [0.0, -kappa * particle.rest_normal_force(kappa)],
        [0.0, 0.0],
    );
    for integrator in [IntegratorKind::Radau5, IntegratorKind::Tsit45] {
        let hand = assert_described_as_hand_coded(
            &spec.params,
            &problem,
            start,
            integrator,
            Some(3.0),
            "",
        );
        assert_eq!(hand.modes_joined(">"), "stick>slide_right");
    }
}

/// Klarbring's particle in 2D (its load F(t) = (1, 1.5 sin t) through t in the force, a
/// constant contact frame) described and hand-coded, from the quasi-static penetration through
/// experiments/klarbring_2d.toml's motion (stick, slip both ways, a stop, lift-off, free flight,
/// compliant impacts) to t = 13.5.
#[test]
fn the_described_klarbring_particle_runs_as_the_hand_coded_one() {
    let spec = described(&experiment_of(
        "systems/klarbring_2d.toml",
        1e-6,
        Some(13.5),
    ));
    let load = |constant: f64, sin: f64| LoadComponent {
        constant,
        sin,
        frequency: 1.0,
        ..LoadComponent::default()
    };
    let particle = KlarbringParticle::new(
        [[2.0, 0.8], [0.8, 1.0]],
        [load(1.0, 0.0), load(0.0, 1.5)],
        "K",
    )
    .unwrap();
    let kappa = 1e-6;
    let problem = ContactProblem {
        system: &particle,
        compliance: NormalCompliance::spring_dashpot(kappa, 0.0),
        friction: Coulomb { mu: 0.8, mu_s: 0.8 },
    };
    let start = ([kappa / (1.0 + 2.0 * kappa), 0.0], [0.0, 0.0]);
    for integrator in [IntegratorKind::Radau5, IntegratorKind::Dop853] {
        let t_end = Some(13.5);
        let hand =
            assert_described_as_hand_coded(&spec.params, &problem, start, integrator, t_end, "");
        assert!(hand.events.len() >= 8, "{}", hand.modes_joined(">"));
    }
}

/// Klarbring's particle in 3D (systems/klarbring_3d.toml: a spatial contact, two tangents and a
/// circular cone; its load F(t) through t) described and hand-coded, both on the measured
/// compliant spatial formulation, from the quasi-static penetration through
/// experiments/klarbring_3d.toml's motion (stick, a curved slip, the 3D stop, stick, slip,
/// lift-off, compliant impacts) to t = 14: the same modes, events, final state, normal impulse
/// and largest penetration within 1e-12 relative. The hand-coded particle on the spatial
/// formulation alone (`model = "klarbring"`'s runs) has the same events: the quadratures ride
/// along without changing the motion beyond the error control.
#[test]
fn the_described_spatial_klarbring_particle_runs_as_the_hand_coded_one() {
    let t_end = 14.0;
    let spec = described(&experiment_of(
        "systems/klarbring_3d.toml",
        1e-6,
        Some(t_end),
    ));
    let load = |constant: f64, sin: f64, frequency: f64| LoadComponent {
        constant,
        sin,
        frequency,
        ..LoadComponent::default()
    };
    let particle = KlarbringParticle::new(
        [[2.5, 0.8, -0.3], [0.8, 1.0, 0.3], [-0.3, 0.3, 1.5]],
        [
            load(1.0, 0.0, 0.0),
            load(0.0, 1.5, 1.0),
            load(0.0, 0.6, 0.5),
        ],
        "K",
    )
    .unwrap();
    let kappa = 1e-6;
    let spatial_problem = || SpatialContactProblem::<_, 3, 2> {
        system: &particle,
        compliance: NormalCompliance::spring_dashpot(kappa, 0.0),
        mu: 0.8,
    };
    let problem = spatial_problem();
    let formulation = MeasuredSpatialContact {
        problem: spatial_problem(),
    };
    let q0 = [kappa / (1.0 + 2.5 * kappa), 0.0, 0.0];
    let close = |a: f64, b: f64, tol: f64| (a - b).abs() <= tol * b.abs().max(1.0);
    for integrator in [IntegratorKind::Radau5, IntegratorKind::Dop853] {
        let (record, _) = Described::run(
            &spec.params,
            Method::Compliant { kappa },
            &settings(integrator, Some(t_end)),
        )
        .unwrap();
        let run_settings = spatial::RunSettings {
            integrator,
            tolerances: Tolerances {
                rtol: 1e-12,
                atol: 1e-14,
            },
            t_end,
            output_times: Vec::new(),
            max_steps: DEFAULT_MAX_STEPS,
            max_events: DEFAULT_MAX_EVENTS,
        };
        let hand = formulation
            .simulate(&q0, &[0.0; 3], &run_settings, None, false)
            .unwrap();
        let what = format!("{integrator}");
        let kinds: Vec<MeasuredEvent> = hand.run.events.iter().map(|e| e.event).collect();
        assert!(
            kinds.contains(&MeasuredEvent::Contact(SpatialEvent::SlipStops))
                && kinds.contains(&MeasuredEvent::Contact(SpatialEvent::ContactCloses)),
            "{what}: {kinds:?}"
        );
        let modes: Vec<&str> = hand
            .run
            .trace
            .phases
            .iter()
            .map(|p| p.mode.name())
            .collect();
        assert_eq!(record.mode_sequence, modes.join(">"), "{what}");
        let names: Vec<&str> = kinds.iter().map(|e| e.name()).collect();
        assert_eq!(record.event_kinds, names.join(" "), "{what}");
        assert_eq!(record.event_times.len(), hand.run.events.len(), "{what}");
        for (a, e) in record.event_times.iter().zip(&hand.run.events) {
            assert!(
                close(*a, e.t, 1e-12),
                "{what}: event at {a} against {}",
                e.t
            );
        }
        let y = &hand.run.trace.y_end;
        for (a, b) in record.q_end.iter().chain(&record.q_dot_end).zip(&y[..6]) {
            assert!(close(*a, *b, 1e-12), "{what}: final state {a} against {b}");
        }
        assert!(
            close(record.impulse_normal[0], hand.impulse_normal, 1e-12),
            "{what}"
        );
        assert!(
            close(record.max_penetration[0], hand.max_penetration, 1e-12),
            "{what}"
        );
        // The largest penetration of an impact is O(κ), above the quasi-static start's.
        assert!(
            hand.max_penetration > q0[0],
            "{what}: {}",
            hand.max_penetration
        );
        let balance = record.energy_balance_error.unwrap();
        assert!(balance.abs() < 1e-8, "{what}: energy balance {balance:e}");
        // The spatial formulation alone: the same events, to the integration error.
        let bare = spatial::simulate_spatial(
            &problem,
            &problem.initial_state(&q0, &[0.0; 3]),
            &run_settings,
            None,
        )
        .unwrap();
        let bare_kinds: Vec<&str> = bare.events.iter().map(|e| e.event.name()).collect();
        assert_eq!(bare_kinds, names, "{what}");
        for (a, b) in bare.events.iter().zip(&hand.run.events) {
            assert!(close(a.t, b.t, 1e-8), "{what}: {} against {}", a.t, b.t);
        }
    }
}

/// A particle landing on a frictional floor with its tangential velocity at an angle φ in the
/// floor's plane (a spatial contact): friction acts against that velocity, so the slip keeps its
/// direction and loses μ times the normal impulse 2 + g t_off, as the planar landing does (ẋ = 2
/// − μ(2 + t_off), tests/toy_system.rs): the circular cone is isotropic.
#[test]
fn a_spatial_landing_slides_along_its_velocity() {
    let text = |phi: f64| {
        format!(
            r#"
name = "landing_3d"
model = "system"
[system]
coordinates = ["x", "z", "y"]
parameters = {{ g = 1.0, mu = 0.3, phi = {phi} }}
mass_matrix = [["1", "0", "0"], ["0", "1", "0"], ["0", "0", "1"]]
force = ["0", "0", "-g"]
potential = "g*y"
[[system.contacts]]
name = "floor"
gap = "y"
tangents = ["x", "z"]
mu = "mu"
[system.initial]
q = ["0", "0", "0"]
q_dot = ["2*cos(phi)", "2*sin(phi)", "-1"]
[sweep]
kappa = {{ min = 1e-8, max = 1e-8, per_decade = 1 }}
[solver]
integrators = ["dop853"]
rtol = 1e-11
atol = 1e-13
"#
        )
    };
    for phi in [0.0, 0.7, 2.5] {
        let spec = described(&text(phi));
        let (record, _) = Described::run(
            &spec.params,
            Method::Compliant { kappa: 1e-8 },
            &settings(IntegratorKind::Dop853, None),
        )
        .unwrap();
        assert_eq!(record.event_kinds, "contact_opens", "φ {phi}");
        let speed = 2.0 - 0.3 * (2.0 + record.event_times[0]);
        let (vx, vz) = (record.q_dot_end[0], record.q_dot_end[1]);
        assert!(
            (vx - speed * phi.cos()).abs() < 1e-9 && (vz - speed * phi.sin()).abs() < 1e-9,
            "φ {phi}: ({vx}, {vz}) against speed {speed}"
        );
        let impulse = record.impulse_normal[0];
        assert!(
            (impulse - (2.0 + record.event_times[0])).abs() < 1e-9,
            "φ {phi}"
        );
        assert!(record.energy_balance_error.unwrap().abs() < 1e-9, "φ {phi}");
    }
}

/// Each mistake in a spatial contact: one line naming the key.
#[test]
fn mistakes_in_a_spatial_contact_name_the_key() {
    let base = rod_description(1.0 / 3.0);
    let spatial = base.replace("tangents = [\"xa\"]", "tangents = [\"xa\", \"theta\"]");
    let parse_error = |text: &str| parse_error(text);
    let cases = [
        (
            spatial.replace(
                "tangents = [\"xa\", \"theta\"]",
                "tangents = [\"xa\", \"theta\", \"ya\"]",
            ),
            "system.contacts[0].tangents",
            "or two (a spatial contact)",
        ),
        (
            spatial.replace("\"xa\", \"theta\"]", "\"xa\", \"za\"]"),
            "system.contacts[0].tangents[1]",
            "unknown name 'za'",
        ),
        (
            spatial.replace("mu = 2.0", "mu = 2.0\nmu_s = 2.5"),
            "system.contacts[0].mu_s",
            "one friction coefficient",
        ),
        (
            spatial.replace(
                "[system.initial]",
                "[[system.contacts]]\nname = \"B\"\ngap = \"ya + 2*sin(theta)\"\ntangents = [\"xa + 2*cos(theta)\"]\nmu = 2.0\n\n[system.initial]",
            ),
            "system.contacts[1].tangents",
            "all planar or all spatial",
        ),
    ];
    for (text, key, words) in cases {
        let e = parse_error(&text);
        assert!(!e.contains('\n'), "{e}");
        assert!(e.contains(key) && e.contains(words), "{key}: {e}");
    }
    // Two coordinates cannot hold a normal and two tangents.
    let plane = r#"
name = "plane"
model = "system"
[system]
coordinates = ["x", "y"]
mass_matrix = [["1", "0"], ["0", "1"]]
force = ["0", "-1"]
[[system.contacts]]
name = "floor"
gap = "y"
tangents = ["x", "x + y"]
mu = 0.5
[system.initial]
q = ["0", "0"]
q_dot = ["1", "-1"]
[sweep]
kappa = { min = 1e-6, max = 1e-6, per_decade = 1 }
[solver]
integrators = ["dop853"]
rtol = 1e-10
atol = 1e-12
"#;
    let e = parse_error(plane);
    assert!(
        e.contains("system.contacts[0].tangents") && e.contains("at least 3 coordinates"),
        "{e}"
    );
    // A tangent that moves with the other: W = J M⁻¹ Jᵀ is singular at the start.
    let e = parse_error(&spatial.replace("\"xa\", \"theta\"]", "\"xa\", \"2*xa\"]"));
    assert!(
        e.contains("system.contacts[0].tangents") && e.contains("independent") && !e.contains('\n'),
        "{e}"
    );
}

/// A planar contact's normal and tangent must be independent at the start, as a spatial
/// contact's: a tangent along the normal would make friction a normal force, a zero one (or a
/// system of one coordinate) a singular stick force that ran into NaN, and a constant gap a
/// contact that never closes. Each is refused before the run, naming the key.
#[test]
fn a_planar_contact_needs_a_normal_and_an_independent_tangent() {
    let plane = |coordinates: &str, gap: &str, tangent: &str| {
        let two = coordinates.contains(',');
        let (mass, force, q, q_dot) = if two {
            (
                r#"[["1", "0"], ["0", "1"]]"#,
                r#"["0", "-1"]"#,
                r#"["0", "0"]"#,
                r#"["1", "-1"]"#,
            )
        } else {
            (r#"[["1"]]"#, r#"["-1"]"#, r#"["0"]"#, r#"["-1"]"#)
        };
        format!(
            "name = \"plane\"\nmodel = \"system\"\n[system]\ncoordinates = {coordinates}\n\
             mass_matrix = {mass}\nforce = {force}\n[[system.contacts]]\nname = \"floor\"\n\
             gap = \"{gap}\"\ntangents = [\"{tangent}\"]\nmu = 0.5\n[system.initial]\n\
             q = {q}\nq_dot = {q_dot}\n[sweep]\nkappa = {{ min = 1e-6, max = 1e-6, per_decade = 1 }}\n\
             [solver]\nintegrators = [\"dop853\"]\nrtol = 1e-10\natol = 1e-12\n"
        )
    };
    let xy = r#"["x", "y"]"#;
    // Independent though not orthogonal: accepted.
    described(&plane(xy, "y", "x + y"));
    let cases = [
        (
            plane(xy, "y", "y"),
            "system.contacts[0].tangents",
            "independent",
        ),
        (
            plane(xy, "y", "-2*y"),
            "system.contacts[0].tangents",
            "independent",
        ),
        (
            plane(xy, "y", "0"),
            "system.contacts[0].tangents",
            "independent",
        ),
        (
            plane(r#"["y"]"#, "y", "0"),
            "system.contacts[0].tangents",
            "two coordinates",
        ),
        (plane(xy, "1", "x"), "system.contacts[0].gap", "∂g/∂q ≠ 0"),
    ];
    for (text, key, words) in cases {
        let e = parse_error(&text);
        assert!(!e.contains('\n'), "{e}");
        assert!(e.contains(key) && e.contains(words), "{key}: {e}");
    }
}

/// The issue's form, verbatim (the rod in centre-of-mass coordinates), runs through the registry
/// with the documented columns.
#[test]
fn the_documented_form_runs_with_its_columns() {
    let text = include_str!("../../experiments/described_rod.toml");
    let experiment = Experiment::parse(text).unwrap();
    let (dir, summary) = run_and_report(&experiment, "described");
    assert_eq!(summary.failed, 0);
    let runs = std::fs::read_to_string(dir.join("runs.csv")).unwrap();
    let header = runs.lines().next().unwrap();
    assert_eq!(
        header,
        "point_id,kappa,g,rho2,integrator,rtol,atol,status,error,mode_sequence,event_times,\
         event_kinds,event_contacts,q_end,q_dot_end,impulse_normal_A,max_penetration_A,\
         energy_balance_error,steps,rejected_steps,rhs_evals,jvp_evals,jacobian_evals,\
         lu_factorisations,newton_iterations,wall_time_s"
    );
    let md = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    assert!(md.contains("extrapolated to κ → 0"), "{md}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Each mistake: one line, naming the key, and the position inside an expression.
#[test]
fn mistakes_in_a_description_name_the_key() {
    let base = rod_description(1.0 / 3.0);
    let cases = [
        (
            "gap = \"ya\"",
            "gap = \"ya + z\"",
            "system.contacts[0].gap",
            "at character 6: unknown name 'z'",
        ),
        (
            "\"-cos(theta)\"]",
            "\"-cos(theta\"]",
            "system.force[2]",
            "expected ')' closing cos(",
        ),
        (
            "[\"-sin(theta)\", \"cos(theta)\", \"1 + rho2\"]]",
            "[\"-sin(theta)\", \"cos(theta)\"]]",
            "system.mass_matrix",
            "must be 3×3",
        ),
        (
            "[\"0\", \"1\", \"cos(theta)\"]",
            "[\"0\", \"1\", \"sin(theta)\"]",
            "system.mass_matrix[2][1]",
            "M is symmetric",
        ),
        (
            "\"1 + rho2\"]]",
            "\"-1\"]]",
            "system.mass_matrix",
            "positive definite",
        ),
        (
            "tangents = [\"xa\"]",
            "tangents = []",
            "system.contacts[0].tangents",
            "one tangential position",
        ),
        (
            "gap = \"ya\"",
            "gap = \"ya + ya_dot\"",
            "system.contacts[0].gap",
            "coordinates only",
        ),
        (
            "mu = 2.0",
            "mu = \"friction\"",
            "system.contacts[0].mu",
            "neither a number nor a parameter",
        ),
        (
            "\"sin(theta)*theta_dot^2 - 1\"",
            "\"sin(theta)*theta_dot^2 - 1 + t*ya\"",
            "system.force[1]",
            "multiplies t with a coordinate",
        ),
        (
            "q = [\"0\", \"0\", \"1.3\"]",
            "q = [\"0\", \"0\"]",
            "system.initial",
            "3 components",
        ),
        (
            "q = [\"0\", \"0\", \"1.3\"]",
            "q = [\"0\", \"ln(-1)\", \"1.3\"]",
            "system.initial.q[1]",
            "non-finite",
        ), // A name the expressions give to something else is refused, not shadowed: the velocity
        // θ̇ won over a parameter theta_dot, the compliance over a parameter kappa in [initial].
        (
            "rho2 = ",
            "theta_dot = 1.0, rho2 = ",
            "system.parameters.theta_dot",
            "a coordinate's velocity",
        ),
        (
            "rho2 = ",
            "kappa = 1.0, rho2 = ",
            "system.parameters.kappa",
            "not t, pi, kappa",
        ),
        (
            "rho2 = ",
            "pi = 3.0, rho2 = ",
            "system.parameters.pi",
            "not t, pi",
        ),
        (
            "[\"xa\", \"ya\", \"theta\"]",
            "[\"xa\", \"xa_dot\", \"theta\"]",
            "system.coordinates[1]",
            "named twice",
        ),
    ];
    for (from, to, key, words) in cases {
        assert!(base.contains(from), "{from}");
        let text = base.replace(from, to);
        let e = parse_error(&text);
        assert!(!e.contains('\n'), "{e}");
        assert!(e.contains(key) && e.contains(words), "{to}: {e}");
    }
    // A system file that does not exist.
    let e = parse_error(&experiment_of("systems/none.toml", 1e-8, None));
    assert!(
        e.contains("system = systems/none.toml") && e.contains("names no file"),
        "{e}"
    );
    // A system file and a [params] table (the description by its older name) together: one of
    // the two descriptions would be dropped.
    let both = format!(
        "{}[params]\nmu = 0.3\n",
        experiment_of("systems/painleve_rod.toml", 1e-8, None)
    );
    let e = parse_error(&both);
    assert!(
        e.contains("params") && e.contains("remove one") && e.contains("[sweep]"),
        "{e}"
    );
    // Copies of a second contact B: two of one name (their columns of runs.csv would be
    // one), and nine, more than the formulation of several contacts holds.
    let contact = "[[system.contacts]]\nname = \"B\"\ngap = \"ya + 2*sin(theta)\"\ntangents = [\"xa + 2*cos(theta)\"]\nmu = 2.0\n\n";
    let with_b = |copies: usize| {
        base.replace(
            "[system.initial]",
            &format!("{}[system.initial]", contact.repeat(copies)),
        )
    };
    let e = parse_error(&with_b(2));
    assert!(
        e.contains("system.contacts[2].name") && e.contains("system.contacts[1] has this name"),
        "{e}"
    );
    let nine = with_b(8);
    let e = parse_error(&nine);
    assert!(
        e.contains("system.contacts") && e.contains("at most 8 contacts"),
        "{e}"
    );
    // A compliance that sinks the body by its own size, from the command line.
    let (ok, _, err) = cli(&[
        "simulate",
        "--system",
        "systems/painleve_rod.toml",
        "--kappa",
        "2",
    ]);
    assert!(
        !ok && err.contains("--kappa") && err.contains("must be < 1"),
        "{err}"
    );
    // Spatial contacts have no rigid reference: said so, not as "system system".
    let (ok, _, err) = cli(&[
        "simulate",
        "--system",
        "systems/flat_rod.toml",
        "--method",
        "rigid",
    ]);
    assert!(
        !ok && err.contains("spatial contacts has no rigid reference")
            && !err.contains("system system"),
        "{err}"
    );
}

/// `simulate --system`: the described rod's impact as the rod's `simulate` reports it (same
/// integrator and tolerances), as JSON and CSV, and the rod's physics flags refused with it.
#[test]
fn simulate_runs_a_description() {
    let (ok, text, err) = cli(&[
        "simulate",
        "--system",
        "systems/painleve_rod.toml",
        "--json",
    ]);
    assert!(ok, "{err}");
    let described: serde_json::Value = serde_json::from_str(&text).unwrap();
    let (ok, text, err) = cli(&["simulate", "--json"]);
    assert!(ok, "{err}");
    let hand: serde_json::Value = serde_json::from_str(&text).unwrap();
    let times = |v: &serde_json::Value| json_numbers(&v["events"], "t");
    let (a, b) = (times(&described), times(&hand));
    assert_eq!(a.len(), 3);
    for (x, y) in a.iter().zip(&b) {
        assert!((x - y).abs() <= 1e-12 * y.abs(), "{x} against {y}");
    }
    let impulse = described["contacts"][0]["impulse_normal"].as_f64().unwrap();
    assert!((impulse - hand["impulse_normal"].as_f64().unwrap()).abs() < 1e-12);
    let (ok, csv, err) = cli(&[
        "simulate",
        "--system",
        "systems/spring_particle.toml",
        "--kappa",
        "1e-6",
        "--t-end",
        "3",
        "--csv",
    ]);
    assert!(ok, "{err}");
    assert!(csv.starts_with("t,mode,x,y,x_dot,y_dot,normal_force,tangential_force\n"));
    assert!(csv.lines().count() > 10);
    let (ok, text, _) = cli(&["simulate", "--system", "systems/painleve_rod.toml"]);
    assert!(ok && text.contains("contact A: normal impulse"), "{text}");
    let (ok, _, err) = cli(&[
        "simulate",
        "--system",
        "systems/painleve_rod.toml",
        "--mu",
        "3",
    ]);
    assert!(!ok && err.contains("--mu"), "{err}");
    let (ok, _, err) = cli(&["simulate", "--system", "systems/none.toml"]);
    assert!(
        !ok && err.contains("systems/none.toml") && err.lines().count() == 1,
        "{err}"
    );
}

/// `simulate --system` of several contacts (the box sliding on its two bottom corners) is the
/// run `rigid-limit run` makes of each row (`Described::run`): the same events, final state and
/// per-contact impulses. Its physics: the box slides throughout (it would stop at v0/(μg) =
/// 2.5), so the floor takes μ times the normal impulses from its momentum, ẋ = v0 − μ ΣP_n
/// (the tangents are horizontal to O(κ)), and the impulses carry the weight, ΣP_n = g t. The
/// CSV has each contact's forces; a spatial contact prints its two tangential components.
#[test]
fn simulate_runs_several_contacts_as_run_does() {
    let simulate = |file: &str, output: &[&str]| {
        let flags = [
            "simulate", "--system", file, "--kappa", "1e-6", "--t-end", "1",
        ];
        cli(&[&flags[..], output].concat())
    };
    let (ok, text, err) = simulate("systems/box.toml", &["--json"]);
    assert!(ok, "{err}");
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let spec = described(&experiment_of("systems/box.toml", 1e-6, Some(1.0)));
    let run_settings = RunSettings {
        t_end: Some(1.0),
        ..RunSettings::new(IntegratorKind::Dop853, 1e-10, 1e-12)
    };
    let (record, _) = Described::run(
        &spec.params,
        Method::Compliant { kappa: 1e-6 },
        &run_settings,
    )
    .unwrap();
    let numbers = |v: &serde_json::Value| -> Vec<f64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect()
    };
    assert_eq!(json_numbers(&json["events"], "t"), record.event_times);
    let contacts = json_texts(&json["events"], "contact");
    assert_eq!(contacts.join(" "), record.event_contacts);
    assert_eq!(numbers(&json["final_state"]["q"]), record.q_end);
    assert_eq!(numbers(&json["final_state"]["q_dot"]), record.q_dot_end);
    let impulses = json_numbers(&json["contacts"], "impulse_normal");
    assert_eq!(impulses, record.impulse_normal);
    let total: f64 = impulses.iter().sum();
    assert!((total - 1.0).abs() < 1e-4, "ΣP_n = {total}");
    let (mu, v0) = (0.4, 1.0);
    assert!(
        (record.q_dot_end[0] - (v0 - mu * total)).abs() < 1e-6,
        "ẋ = {} against {}",
        record.q_dot_end[0],
        v0 - mu * total
    );
    for (file, header) in [
        (
            "systems/box.toml",
            "t,mode,x,z,theta,x_dot,z_dot,theta_dot,normal_force_rear,normal_force_front,tangential_force_rear,tangential_force_front",
        ),
        (
            "systems/klarbring_3d.toml",
            "t,mode,UN,UT1,UT2,UN_dot,UT1_dot,UT2_dot,normal_force_wall,tangential_force_wall_1,tangential_force_wall_2",
        ),
    ] {
        let (ok, csv, err) = simulate(file, &["--csv"]);
        assert!(ok, "{err}");
        assert_eq!(csv.lines().next(), Some(header));
        assert!(csv.lines().count() > 10, "{file}");
    }
    let (ok, text, err) = simulate("systems/box.toml", &[]);
    assert!(
        ok && text.contains("contact rear: normal impulse") && text.contains("contact front"),
        "{err}"
    );
}

/// A parameter swept in `[sweep]` beside κ: one configuration per value, each with its own
/// section in the summary; the slide through the landing takes 2μ of the arriving normal
/// velocity 1 from the tangential 2 (the rigid impact law), whatever μ.
#[test]
fn a_swept_parameter_makes_one_configuration_per_value() {
    let text = r#"
name = "landing_mu"
model = "system"
[system]
coordinates = ["x", "y"]
parameters = { g = 1.0, mu = 0.3 }
mass_matrix = [["1", "0"], ["0", "1"]]
force = ["0", "-g"]
[[system.contacts]]
name = "floor"
gap = "y"
tangents = ["x"]
mu = "mu"
[system.initial]
q = ["0", "0"]
q_dot = ["2", "-1"]
[sweep]
kappa = { min = 1e-8, max = 1e-6, per_decade = 1 }
mu = [0.1, 0.2, 0.4]
[solver]
integrators = ["dop853"]
rtol = 1e-11
atol = 1e-13
"#;
    let spec = described(text);
    let points = spec.points();
    assert_eq!(points.len(), 9);
    for p in &points {
        let mu = p.config.parameters["mu"];
        let (record, _) =
            Described::run(&p.config, p.method, &settings(IntegratorKind::Dop853, None)).unwrap();
        // ẋ = 2 − μ(2 + g t_off) with t_off ≈ π√κ (tests/toy_system.rs has the closed form).
        let expected = 2.0 - mu * (2.0 + record.event_times[0]);
        assert!(
            (record.q_dot_end[0] - expected).abs() < 1e-9,
            "μ {mu}, {:?}",
            p.method
        );
    }
    let e = parse_error(&text.replace("mu = [0.1, 0.2, 0.4]", "nu = [0.1]"));
    assert!(
        e.contains("sweep.nu") && e.contains("no parameter nu"),
        "{e}"
    );
    // A hand-coded system's parameter is swept by its name in [params].
    let spring = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/experiments/spring_particle.toml"
    ))
    .unwrap()
    .replace("per_decade = 2 }", "per_decade = 2 }\nmu = [0.4, 0.5]");
    let Experiment::SpringParticle(spring) = Experiment::parse(&spring).unwrap() else {
        panic!("not the spring particle");
    };
    let mus: Vec<f64> = spring.points().iter().map(|p| p.config.mu).collect();
    assert_eq!((mus[0], mus[mus.len() - 1]), (0.4, 0.5));
}

/// An expression that leaves its domain during the run (ln of a negative once the particle
/// penetrates deeper than 1e-7) ends it with an error naming the expression.
#[test]
fn a_non_finite_value_during_a_run_names_its_expression() {
    let text = rod_description(1.0 / 3.0).replace(
        "\"sin(theta)*theta_dot^2 - 1\"",
        "\"sin(theta)*theta_dot^2 - 1 + 1e-3*ln(ya + 1e-7)\"",
    );
    let spec = described(&text);
    let e = Described::run(
        &spec.params,
        Method::Compliant { kappa: 1e-6 },
        &settings(IntegratorKind::Dop853, None),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("system.force[1]") && e.contains("ln(ya + 1e-7)") && e.contains("NaN"),
        "{e}"
    );
    assert!(!e.contains('\n'));
}

/// With several contacts (the box) and with a spatial one (Klarbring's particle in 3D), a load
/// that leaves its domain at t = 1.5 (ln(1.5 − t)) ends the run with an error naming the
/// expression and its key.
#[test]
fn a_non_finite_value_names_its_expression_on_every_formulation() {
    use rigid_limit::models::described::cli::parse_description;
    let cases = [
        (
            "systems/box.toml",
            "force = [\"0\", \"-g\", \"0\"]",
            "force = [\"0\", \"-g + 1e-3*ln(1.5 - t)\", \"0\"]",
            "system.force[1]",
        ),
        (
            "systems/klarbring_3d.toml",
            "+ 0.6*sin(0.5*t)\"",
            "+ 0.6*sin(0.5*t) + 1e-3*ln(1.5 - t)\"",
            "system.force[2]",
        ),
    ];
    for (file, from, to, key) in cases {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(from), "{file}: {from}");
        let d = parse_description(&text.replace(from, to), file, None).unwrap();
        let e = Described::run(
            &d,
            Method::Compliant { kappa: 1e-6 },
            &settings(IntegratorKind::Dop853, Some(2.0)),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains(key) && e.contains("ln(1.5 - t)") && e.contains("NaN"),
            "{file}: {e}"
        );
        assert!(!e.contains('\n'), "{e}");
    }
}

/// C–V's planar contact with constant data (systems/cv_planar.toml) against the hand-coded
/// `ConstantPlanar`: put down at δ = δ̇ = 0 sliding left, through the slip stop, to t = 2 at κ = 1e-6.
#[test]
fn the_described_planar_contact_runs_as_the_hand_coded_one() {
    use rigid_limit::models::planar::mechanics::ConstantPlanar;
    let spec = described(&experiment_of("systems/cv_planar.toml", 1e-6, Some(2.0)));
    let p = &spec.params.parameters;
    let planar = ConstantPlanar {
        free_tangential_accel: p["a"],
        free_normal_accel: p["b"],
        tangential_mobility: p["A"],
        cross_mobility: p["B"],
        normal_mobility: p["C"],
    };
    let problem = ContactProblem {
        system: &planar,
        compliance: NormalCompliance::spring_dashpot(1e-6, p["damping"]),
        friction: Coulomb {
            mu: p["mu"],
            mu_s: p["mu"],
        },
    };
    let start = ([0.0, 0.0], [p["u0"], 0.0]);
    for integrator in [IntegratorKind::Dop853, IntegratorKind::Radau5] {
        let t_end = Some(2.0);
        let hand = assert_described_as_hand_coded(
            &spec.params,
            &problem,
            start,
            integrator,
            t_end,
            "planar, ",
        );
        assert!(hand.events.len() >= 2, "{}", hand.modes_joined(">"));
    }
}

/// Reverse chatter from rest (experiments/stick_reverse_chatter.toml, docs/champneys_varkonyi.md
/// "Reverse chatter from rest"): C–V's contact with Fig. consistency's A, B, C at μ = 0.3, a = 0.5,
/// b = −0.3, put down at rest inside the cone where T is the only consistent rigid mode. With
/// c_d = 1 the described system and the hand-coded one give the same events, and each flight
/// (lift-off to landing) lasts longer than the one before: the bounces grow. With c_d = 2 it
/// sticks and never lifts off: the law decides.
#[test]
fn a_contact_at_rest_inside_the_cone_chatters_in_reverse_or_sticks_by_its_law() {
    use rigid_limit::models::planar::mechanics::ConstantPlanar;
    let kappa = 1e-10;
    let t_end = 0.01; // s = t/√κ = 1000
    let base = described(&experiment_of("systems/cv_planar.toml", 1e-10, Some(t_end)));
    let planar = ConstantPlanar {
        free_tangential_accel: 0.5,
        free_normal_accel: -0.3,
        tangential_mobility: 1.1,
        cross_mobility: 0.3,
        normal_mobility: 0.1,
    };
    let flights = |damping: f64| {
        let mut spec = base.clone();
        for (k, v) in [
            ("a", 0.5),
            ("b", -0.3),
            ("A", 1.1),
            ("B", 0.3),
            ("C", 0.1),
            ("mu", 0.3),
            ("u0", 0.0),
            ("damping", damping),
        ] {
            spec.params.parameters.insert(k.into(), v);
        }
        let settings = RunSettings {
            max_events: Some(5000),
            ..settings(IntegratorKind::Dop853, Some(t_end))
        };
        let (record, _) =
            Described::run(&spec.params, Method::Compliant { kappa }, &settings).unwrap();
        let problem = ContactProblem {
            system: &planar,
            compliance: NormalCompliance::spring_dashpot(kappa, damping),
            friction: Coulomb { mu: 0.3, mu_s: 0.3 },
        };
        let mut opts = options(IntegratorKind::Dop853, EndCondition::Time(t_end));
        opts.max_events = 5000;
        let hand = simulate(&problem, &[0.0, 0.0], &[0.0, 0.0], &opts).unwrap();
        assert_same_run(&record, &hand, 1e-6, &format!("c_d = {damping}"));
        // Flights: from each opening to the next closing.
        let events: Vec<(f64, &str)> = hand.events.iter().map(|e| (e.t, e.event.name())).collect();
        let mut flights = Vec::new();
        for (i, (t, name)) in events.iter().enumerate() {
            if *name == "contact_opens" {
                if let Some((t_close, _)) = events[i..].iter().find(|(_, n)| *n == "contact_closes")
                {
                    flights.push(t_close - t);
                }
            }
        }
        flights
    };
    let growing = flights(1.0);
    assert!(growing.len() >= 5, "{growing:?}");
    assert!(
        growing.windows(2).all(|w| w[1] > w[0]),
        "the flights do not grow: {growing:?}"
    );
    assert!(flights(2.0).is_empty());
}

/// `simulate --system FILE --method rigid` runs a system of several contacts on its rigid
/// reference (`rigid::multi`), as `rigid-limit run` does for its κ = 0 rows: the box sliding on
/// both corners (v0 = 1, μ = 0.4, g = 1) is at x = v0 t − μgt²/2 = 0.8 at t = 1 with
/// ẋ = v0 − μgt = 0.6, never penetrating, and its corners' normal impulses sum to the weight's,
/// g t = 1. A system of one contact has no rigid reference here: the flag is refused, named.
#[test]
fn simulate_runs_a_system_of_several_contacts_rigid() {
    let rigid = |system: &str, more: &[&str]| {
        let mut args = vec!["simulate", "--system", system, "--method", "rigid"];
        args.extend_from_slice(more);
        cli(&args)
    };
    let (ok, text, err) = rigid("systems/box.toml", &["--t-end", "1", "--json"]);
    assert!(ok, "{err}");
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["method"], "rigid", "{json}");
    assert!(json["kappa"].is_null(), "{json}");
    let q = json["final_state"]["q"][0].as_f64().unwrap();
    let qdot = json["final_state"]["q_dot"][0].as_f64().unwrap();
    assert!((q - 0.8).abs() < 1e-9, "x(1) = {q}");
    assert!((qdot - 0.6).abs() < 1e-9, "ẋ(1) = {qdot}");
    let contacts = json["contacts"].as_array().unwrap();
    let impulses: f64 = contacts
        .iter()
        .map(|c| c["impulse_normal"].as_f64().unwrap())
        .sum();
    assert!((impulses - 1.0).abs() < 1e-9, "ΣP_n = {impulses}");
    for c in contacts {
        assert_eq!(c["max_penetration"].as_f64(), Some(0.0), "{c}");
    }
    let (ok, text, _) = rigid("systems/box.toml", &["--t-end", "1"]);
    assert!(ok && text.contains("rigid contacts"), "{text}");
    let (ok, _, err) = rigid("systems/painleve_rod.toml", &[]);
    assert!(
        !ok && err.contains("--method = rigid") && !err.trim().contains('\n'),
        "{err}"
    );
}

/// The box of systems/box.toml with μ = 0.8 set on the command line slides to rest: both
/// corners stick together once its rocking on the springs is all that tells their rows apart,
/// at the rigid stop t = v₀/(μg) = 1.25, x = v₀²/(2μg) = 0.625, within √κ; the summary names
/// the parameters used. A parameter the description lacks, a value that is no number and
/// `--params` are refused by name.
#[test]
fn the_box_slides_to_rest_on_both_corners_with_its_parameter_set() {
    // The box with μ = 0.8 set, and `flags`.
    let with_mu = |flags: &[&str]| {
        let set = [
            "simulate",
            "--system",
            "systems/box.toml",
            "--set",
            "mu=0.8",
        ];
        cli(&[&set[..], flags].concat())
    };
    for kappa in ["1e-4", "1e-6"] {
        let (ok, text, err) = with_mu(&["--kappa", kappa, "--t-end", "2", "--json"]);
        assert!(ok, "κ = {kappa}: {err}");
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(json["parameters"]["mu"].as_f64(), Some(0.8), "{json}");
        let modes = json["modes"].as_array().unwrap();
        let last = modes.last().unwrap();
        assert_eq!(last["mode"], "stick,stick", "κ = {kappa}: {last}");
        let root = kappa.parse::<f64>().unwrap().sqrt();
        let t_stop = last["t_start"].as_f64().unwrap();
        assert!(
            (t_stop - 1.25).abs() < root,
            "κ = {kappa}: stop at {t_stop}"
        );
        let x = json["final_state"]["q"][0].as_f64().unwrap();
        assert!((x - 0.625).abs() < root, "κ = {kappa}: x = {x}");
        assert!(json["energy_balance_error"].as_f64().unwrap().abs() < 1e-9);
    }
    // The summary names the parameters the run used, the one set among them.
    let (ok, text, err) = with_mu(&["--t-end", "0.1"]);
    assert!(ok, "{err}");
    assert!(
        text.lines()
            .next()
            .unwrap()
            .contains("(g = 1, h = 0.3, mu = 0.8, v0 = 1, w = 0.5)"),
        "{text}"
    );
    for (flags, named) in [
        (&["--set", "muu=0.8"][..], "no parameter muu"),
        (&["--set", "mu=fast"][..], "is a number"),
        (&["--params", "experiments/box_slide.toml"][..], "--params"),
    ] {
        let mut args = vec!["simulate", "--system", "systems/box.toml"];
        args.extend_from_slice(flags);
        let (ok, _, err) = cli(&args);
        assert!(
            !ok && err.contains(named) && err.lines().count() == 1,
            "{flags:?}: {err}"
        );
    }
}

/// Without a `restitution`, a contact's rigid reference takes the compliant contact's own impact
/// law, so that the two meet as κ → 0. A particle of masses (1, 2) lands sliding (u0 = 1,
/// v0 = −1, μ = 0.2) on a floor whose normal mobility is C = 1/2; a wall far away makes it a
/// system of two contacts, with a rigid reference. A frictionless impact through the
/// spring–dashpot δ/κ + c_d δ̇/√κ returns e = e(c_d √C) of the normal velocity at every κ
/// (`restitution_unit_normal_mass`), and the slip impulse is μ P_N with P_N = 2 (1 + e), so
/// ẏ⁺ = e and ẋ⁺ = 1 − 0.2 · 2 (1 + e): the compliant run (κ = 1e-8), the rigid reference and
/// the closed form agree, undamped (e = 1) and damped (c_d = 0.5). A given restitution is
/// Newton's coefficient as before.
#[test]
fn the_rigid_reference_takes_the_compliant_contacts_restitution_by_default() {
    use rigid_limit::compliant::normal::restitution_unit_normal_mass;
    let dir = crate::common::scratch("restitution-default");
    std::fs::create_dir_all(&dir).unwrap();
    let system = |damping: f64, restitution: &str| {
        let path = dir.join(format!("drop_{damping}_{}.toml", restitution.len()));
        let text = format!(
            r#"coordinates = ["x", "y"]
parameters = {{ mu = 0.2, u0 = 1.0, v0 = -1.0 }}
mass_matrix = [["1", "0"], ["0", "2"]]
force = ["0", "0"]
[[contacts]]
name = "floor"
gap = "y"
tangents = ["x"]
mu = "mu"
damping = {damping}
{restitution}
[[contacts]]
name = "wall"
gap = "x + 5"
tangents = ["y"]
mu = "mu"
[initial]
q = ["0", "0"]
q_dot = ["u0", "v0"]
"#
        );
        std::fs::write(&path, text).unwrap();
        path.to_string_lossy().into_owned()
    };
    let end_velocity = |path: &str, method: &str| {
        let (ok, text, err) = cli(&[
            "simulate", "--system", path, "--method", method, "--t-end", "0.5", "--json",
        ]);
        assert!(ok, "{method}: {err}");
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        let v = &json["final_state"]["q_dot"];
        (v[0].as_f64().unwrap(), v[1].as_f64().unwrap())
    };
    for damping in [0.0, 0.5] {
        let e = restitution_unit_normal_mass(damping * 0.5f64.sqrt()).unwrap();
        let expected = (1.0 - 0.2 * 2.0 * (1.0 + e), e);
        let path = system(damping, "");
        for method in ["compliant", "rigid"] {
            let (u, v) = end_velocity(&path, method);
            assert!(
                (u - expected.0).abs() < 1e-8 && (v - expected.1).abs() < 1e-8,
                "c_d = {damping}, {method}: (ẋ, ẏ) = ({u}, {v}), closed form {expected:?}"
            );
        }
    }
    // Given, Newton's e holds in the rigid reference whatever the compliant law.
    let (u, v) = end_velocity(&system(0.0, "restitution = 0.25"), "rigid");
    assert!(
        (u - (1.0 - 0.4 * 1.25)).abs() < 1e-12 && (v - 0.25).abs() < 1e-12,
        "({u}, {v})"
    );
}

/// A contact's coefficient given by a parameter's name and refused at a swept value names the
/// parameter, whose value comes from [sweep], not only the contact's line (which holds "mu").
#[test]
fn a_swept_parameter_refused_in_a_contact_is_named() {
    let text = system_experiment(
        "systems/box.toml",
        1e-5,
        "integrators = [\"dop853\"]\nrtol = 1e-8\natol = 1e-10\nt_end = 0.5",
    )
    .replace("[sweep]\n", "[sweep]\nmu = [0.4, -0.5]\n");
    let err = parse_error(&text);
    assert!(
        err.contains("system.contacts[0].mu (the parameter mu) = -0.5")
            && err.contains("must be finite and >= 0"),
        "{err}"
    );
    let text = system_experiment(
        "systems/flat_rod.toml",
        1e-5,
        "integrators = [\"dop853\"]\nrtol = 1e-8\natol = 1e-10",
    )
    .replace("[sweep]\n", "[sweep]\nc = [-1.0]\n");
    let err = parse_error(&text);
    assert!(
        err.contains("system.contacts[0].damping (the parameter c) = -1"),
        "{err}"
    );
}

/// Two contacts whose gaps are one function (systems/box.toml with w = 0: both corners at one
/// foot, a thin rod that topples while its foot slides and sticks) act as one contact of twice
/// the stiffness: the normal forces add, −2g/κ, and so do their cones. Their events come at one
/// instant, the second at the start of the phase the first one began, and no phase ends before
/// it starts: every duration is ≥ 0 and the events are in time order. The run ends where the
/// twin with one contact at κ/2 ends, to the tolerances (rtol 1e-10). The same holds for two
/// distinct corners that switch at one instant at a loose tolerance (the box stopping at
/// μ = 0.8 by Tsit5 at rtol = atol = 1e-3, where the correction steps back by 7e-6). The rigid
/// method refuses the pair, which it cannot split a force between.
#[test]
fn coincident_contacts_run_as_one_contact_of_twice_the_stiffness_in_time_order() {
    let run = |args: &[&str]| -> serde_json::Value {
        let (ok, text, err) = cli(&[&["simulate", "--json"][..], args].concat());
        assert!(ok, "{args:?}: {err}");
        serde_json::from_str(&text).unwrap()
    };
    let in_time_order = |run: &serde_json::Value| -> Vec<f64> {
        let durations = json_numbers(&run["modes"], "duration");
        assert!(durations.iter().all(|&d| d >= 0.0), "{durations:?}");
        let events = json_numbers(&run["events"], "t");
        assert!(events.windows(2).all(|w| w[0] <= w[1]), "{events:?}");
        events
    };
    let box_file = ["--system", "systems/box.toml"];
    let loose = ["--integrator", "tsit5", "--rtol", "1e-3", "--atol", "1e-3"];
    let stop = [
        &box_file[..],
        &["--set", "mu=0.8", "--kappa", "1e-4", "--t-end", "2"],
        &loose,
    ]
    .concat();
    in_time_order(&run(&stop));
    let pair = run(&[&box_file[..], &["--set", "w=0", "--t-end", "3.4"]].concat());
    let events = in_time_order(&pair);
    // Both contacts switch at one instant at least once (the case that reaches the rule).
    let contacts = json_texts(&pair["events"], "contact");
    assert!(
        (1..events.len())
            .any(|i| events[i] - events[i - 1] < 1e-9 && contacts[i] != contacts[i - 1]),
        "{contacts:?}"
    );
    let dir = crate::common::scratch("coincident-contacts");
    std::fs::create_dir_all(&dir).unwrap();
    let foot = dir.join("foot.toml");
    let box_text = std::fs::read_to_string("systems/box.toml").unwrap();
    let (one_contact, _front) = box_text
        .split_once("\n[[contacts]]\nname = \"front\"")
        .unwrap();
    let twin = one_contact.replace("w = 0.5", "w = 0.0")
        + "\n[initial]\nq = [\"0\", \"-kappa*g\", \"0\"]\nq_dot = [\"v0\", \"0\", \"0\"]\n";
    std::fs::write(&foot, twin).unwrap();
    let kappa = pair["kappa"].as_f64().unwrap();
    let one = run(&[
        "--system",
        foot.to_str().unwrap(),
        "--kappa",
        &(kappa / 2.0).to_string(),
        "--t-end",
        "3.4",
    ]);
    for key in ["q", "q_dot"] {
        let (a, b) = (&pair["final_state"][key], &one["final_state"][key]);
        for i in 0..3 {
            let (a, b) = (a[i].as_f64().unwrap(), b[i].as_f64().unwrap());
            assert!((a - b).abs() < 1e-7, "{key}[{i}]: {a} against {b}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    // The rigid method cannot split a force between two contacts at one point: refused by name.
    let rigid = [
        &["simulate"][..],
        &box_file,
        &["--set", "w=0", "--method", "rigid"],
    ]
    .concat();
    let (ok, _, err) = cli(&rigid);
    assert!(
        !ok && err.lines().count() == 1 && err.contains("rear and front are one point"),
        "{err}"
    );
}

/// The particle dropped into the right-angled V-groove of systems/v_groove.toml (g = 0, on the
/// axis, falling at v0 = 1): both walls close at one instant and x stays 0. With F_n = δ/κ on
/// each wall, δ = −y/√2, and each wall's friction −μ F_n sgn(v_T) along its tangent, whose
/// vertical part is 1/√2 as the normal's, ÿ = −(y/κ)(1 + μ) while the particle falls (both
/// walls slip down) and ÿ = −(y/κ)(1 − μ) while it rises: compression for (π/2)√(κ/(1 + μ)),
/// restitution for (π/2)√(κ/(1 − μ)), and it leaves at √((1 − μ)/(1 + μ)) — at every κ, so that
/// is the compliant model's limit. Newton's law with e = 1 (the undamped spring's own, the rigid
/// reference's default) returns ẏ = 1: with friction coupling the two contacts, the rigid
/// reference is not the compliant runs' limit, and the convergence summary says so. For μ ≥ 1
/// the stick at the deepest point holds (the friction needed, |F_T| = F_n, lies in the cone):
/// the compliant particle stays wedged, and Newton's law has no solution, which the rigid
/// method refuses naming both walls.
///
/// The walls open at one instant by symmetry: the run must open both there (μ = 0.99: the
/// second wall's force is already below zero beyond its resolution when the first one's opening
/// starts the next phase).
#[test]
fn a_frictional_v_groove_keeps_the_compliant_restitution_which_newtons_law_does_not() {
    let run = |args: &[&str]| -> serde_json::Value {
        let groove = ["simulate", "--json", "--system", "systems/v_groove.toml"];
        let (ok, text, err) = cli(&[&groove[..], &["--t-end", "0.5"], args].concat());
        assert!(ok, "{args:?}: {err}");
        serde_json::from_str(&text).unwrap()
    };
    let list = |v: &serde_json::Value| -> Vec<f64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect()
    };
    let kappa: f64 = 1e-8;
    for mu in [0.0_f64, 0.5, 0.9, 0.99] {
        let set = format!("mu={mu}");
        let compliant = run(&["--set", &set, "--kappa", "1e-8"]);
        let q_dot = list(&compliant["final_state"]["q_dot"]);
        let leaves = ((1.0 - mu) / (1.0 + mu)).sqrt();
        assert!(
            (q_dot[1] - leaves).abs() < 1e-9,
            "μ = {mu}: ẏ = {}",
            q_dot[1]
        );
        assert!(q_dot[0].abs() < 1e-9, "μ = {mu}: ẋ = {}", q_dot[0]);
        // Both walls open at one instant: the one located second is already past its surface
        // at the phase start and opens there, not after its spring has pulled the particle off
        // the axis (x = 4.4e-5 at μ = 0.99; docs/tolerances.md).
        let x = list(&compliant["final_state"]["q"])[0];
        assert!(x.abs() < 1e-12, "μ = {mu}: x = {x}");
        // The phases in contact: both walls sliding down, then up (μ > 0; frictionless, the
        // slip's reversal is no event).
        let durations = json_numbers(&compliant["modes"], "duration");
        let modes = json_texts(&compliant["modes"], "mode");
        let lasting = |mode: &str| -> f64 {
            let at = modes.iter().position(|m| *m == mode).expect(mode);
            durations[at]
        };
        let half = std::f64::consts::FRAC_PI_2;
        if mu > 0.0 {
            let down = half * (kappa / (1.0 + mu)).sqrt();
            let up = half * (kappa / (1.0 - mu)).sqrt();
            let (d, u) = (
                lasting("slide_left,slide_left"),
                lasting("slide_right,slide_right"),
            );
            assert!(
                (d - down).abs() < 1e-9 * down,
                "μ = {mu}: {d} against {down}"
            );
            assert!((u - up).abs() < 1e-9 * up, "μ = {mu}: {u} against {up}");
        }
        let rigid = run(&["--set", &set, "--method", "rigid"]);
        let q_dot = list(&rigid["final_state"]["q_dot"]);
        assert!(
            (q_dot[1] - 1.0).abs() < 1e-12,
            "μ = {mu}: rigid ẏ = {}",
            q_dot[1]
        );
    }
    // Wedged: the compliant particle sticks at its deepest point; Newton's law has no solution.
    let wedged = run(&["--set", "mu=1.2", "--kappa", "1e-8"]);
    let modes = json_texts(&wedged["modes"], "mode");
    assert_eq!(modes.last(), Some(&"stick,stick"), "{modes:?}");
    let q_dot = list(&wedged["final_state"]["q_dot"]);
    assert!(q_dot.iter().all(|v| v.abs() < 1e-12), "{q_dot:?}");
    let (ok, _, err) = cli(&[
        "simulate",
        "--system",
        "systems/v_groove.toml",
        "--set",
        "mu=1.2",
        "--method",
        "rigid",
    ]);
    assert!(!ok && err.lines().count() == 1, "{err}");
    assert!(
        err.contains("impact impulses of right and left have no solution")
            && err.contains("(a frictional wedge or jam at the impact)")
            && !err.contains("Painlevé"),
        "{err}"
    );
    // The convergence summary: frictionless, every distance to the rigid reference within the
    // runs' tolerance or converging; with μ = 0.5, ẏ is the same at every κ and another limit
    // than the rigid reference's.
    let text = system_experiment(
        "systems/v_groove.toml",
        1e-4,
        "integrators = [\"dop853\"]\nrtol = 1e-10\natol = 1e-12\nt_end = 0.5",
    )
    .replace(
        "kappa = { min = 1e-4, max = 1e-4, per_decade = 1 }",
        "kappa = { min = 1e-9, max = 1e-4, per_decade = 2 }\nmu = [0.0, 0.5]",
    );
    let experiment = rigid_limit::models::Experiment::parse(&text).unwrap();
    let (dir, _) = run_and_report(&experiment, "v-groove");
    let summary = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    let (frictionless, rubbing) = summary.split_once("## mu = 0.5").unwrap();
    let another = "the compliant runs tend to another limit than the rigid reference";
    assert!(!frictionless.contains(another), "{frictionless}");
    let y_dot = rubbing
        .lines()
        .find(|l| l.contains("y_dot(t_end) is the same at every κ"))
        .unwrap_or_else(|| panic!("{rubbing}"));
    assert!(y_dot.contains("0.577350269189") && y_dot.ends_with(&format!("{another}.")));
    let y = rubbing
        .lines()
        .find(|l| l.contains("y(t_end) extrapolated to κ → 0"))
        .unwrap_or_else(|| panic!("{rubbing}"));
    // y(0.5) → 0.4 √(1/3) = 0.2309401076758503 (the flight from the vertex at t = 0.1).
    assert!(
        y.contains("0.230940107676") && y.ends_with(&format!("{another}.")),
        "{y}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A particle dropped on an undamped floor bounces whether the floor is its only contact or one
/// of two (a far wall never reached): the two runs are the same motion, for planar and spatial
/// contacts and for explicit and implicit integrators. At the closing of an undamped contact
/// F_n = δ/κ is zero; a contact moving into the surface stays closed there.
#[test]
fn an_undamped_landing_bounces_with_a_second_contact_as_with_one() {
    let dir = crate::common::scratch("undamped_landing");
    std::fs::create_dir_all(&dir).unwrap();
    // (coordinates, floor tangents, the wall's contact, the start q, q̇)
    let planar = (
        r#"["x", "y"]"#,
        r#"["x"]"#,
        "gap = \"10 - x\"\ntangents = [\"y\"]",
        r#"["0", "0.5"]"#,
        r#"["0", "-0.5"]"#,
    );
    let spatial = (
        r#"["x", "z", "y"]"#,
        r#"["x", "z"]"#,
        "gap = \"10 - x\"\ntangents = [\"y\", \"z\"]",
        r#"["0", "0", "0.5"]"#,
        r#"["0", "0", "-0.5"]"#,
    );
    for (name, (coordinates, floor_tangents, wall, q, qdot)) in
        [("planar", planar), ("spatial", spatial)]
    {
        let n = coordinates.matches(',').count() + 1;
        let identity: Vec<String> = (0..n)
            .map(|i| {
                let row: Vec<&str> = (0..n)
                    .map(|j| if i == j { "\"1\"" } else { "\"0\"" })
                    .collect();
                format!("[{}]", row.join(", "))
            })
            .collect();
        let mut force = vec!["\"0\""; n];
        force[n - 1] = "\"-g\"";
        let one = format!(
            "coordinates = {coordinates}\nparameters = {{ g = 1.0, mu = 0.2 }}\n\
             mass_matrix = [{}]\nforce = [{}]\npotential = \"g*y\"\n\
             [[contacts]]\nname = \"floor\"\ngap = \"y\"\ntangents = {floor_tangents}\nmu = \"mu\"\n",
            identity.join(", "),
            force.join(", ")
        );
        let initial = format!("[initial]\nq = {q}\nq_dot = {qdot}\n");
        let two = format!("{one}[[contacts]]\nname = \"wall\"\n{wall}\nmu = \"mu\"\n{initial}");
        let one = format!("{one}{initial}");
        let final_state = |text: &str, tag: &str, integrator: &str| {
            let path = dir.join(format!("{name}_{tag}.toml"));
            std::fs::write(&path, text).unwrap();
            let (ok, out, err) = cli(&[
                "simulate",
                "--system",
                path.to_str().unwrap(),
                "--kappa",
                "1e-8",
                "--t-end",
                "3",
                "--integrator",
                integrator,
                "--json",
            ]);
            assert!(ok, "{name} {tag} {integrator}: {err}");
            let json: serde_json::Value = serde_json::from_str(&out).unwrap();
            let state = &json["final_state"];
            let numbers = |key: &str| -> Vec<f64> {
                state[key]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap())
                    .collect()
            };
            let balance = json["energy_balance_error"].as_f64().unwrap();
            (numbers("q"), numbers("q_dot"), balance)
        };
        for integrator in ["dop853", "tsit5", "radau5", "bdf"] {
            let (q1, v1, _) = final_state(&one, "one", integrator);
            let (q2, v2, _) = final_state(&two, "two", integrator);
            // Rigidly (e = 1): lands at t = 0.618 at speed √1.25 = 1.118, again at 2.854, and
            // at t = 3 rises: y = 1.118 s − s²/2 = 0.1525, ẏ = 1.118 − s = 0.972 (s = 0.146);
            // the compliant bounces lag by O(√κ).
            assert!(
                (q1[n - 1] - 0.152).abs() < 2e-3 && (v1[n - 1] - 0.972).abs() < 2e-3,
                "{name} {integrator}: one contact ends at y = {}, ẏ = {}",
                q1[n - 1],
                v1[n - 1]
            );
            for i in 0..n {
                assert!(
                    (q1[i] - q2[i]).abs() < 1e-6 && (v1[i] - v2[i]).abs() < 1e-6,
                    "{name} {integrator}: one contact ends at q = {q1:?}, q̇ = {v1:?}; two at \
                     q = {q2:?}, q̇ = {v2:?}"
                );
            }
        }
        // A damped floor opens compressed: the spring's energy it releases is accounted for
        // with two contacts as with one, and the energy balances.
        let damped = |text: &str| text.replacen("mu = \"mu\"\n", "mu = \"mu\"\ndamping = 0.5\n", 1);
        let (q1, v1, balance1) = final_state(&damped(&one), "one_damped", "dop853");
        let (q2, v2, balance2) = final_state(&damped(&two), "two_damped", "dop853");
        assert!(
            v1[n - 1] < 0.9,
            "{name}: the damped bounce is lower: ẏ = {}",
            v1[n - 1]
        );
        for (contacts, balance) in [("one", balance1), ("two", balance2)] {
            assert!(
                balance.abs() < 1e-8,
                "{name}, damped, {contacts} contacts: energy balance error {balance}"
            );
        }
        for i in 0..n {
            assert!(
                (q1[i] - q2[i]).abs() < 1e-6 && (v1[i] - v2[i]).abs() < 1e-6,
                "{name}, damped: one contact ends at q = {q1:?}, q̇ = {v1:?}; two at q = {q2:?}, \
                 q̇ = {v2:?}"
            );
        }
    }
}
