//! The integrator study's physics and plumbing end to end: every integrator's error falls when
//! the tolerance tightens (order sanity), closed forms of the new scenarios, the implicit methods'
//! κ-independent cost in sustained contact, and the study file's validation and outputs.

use crate::common::{parse_error, run_options, scratch};
use rigid_limit::compliant::record::RunRecord;
use rigid_limit::compliant::SimulationOptions;
use rigid_limit::experiment::run_experiment;
use rigid_limit::integrate::IntegratorKind;
use rigid_limit::models::rod::columns::PhaseDurations;
use rigid_limit::models::rod::mechanics::{SlideCoefficients, THETA, X_A, Y_A};
use rigid_limit::models::rod::scenario::{RodImpact, Scenario};
use rigid_limit::models::Experiment;
use rigid_limit::report::work_precision::{write_run_report, ERRORS_CSV};

fn run(scenario: &Scenario, kind: IntegratorKind, rtol: f64) -> RunRecord {
    let mut o = SimulationOptions::new(kind, rtol, rtol);
    o.output_times = match scenario {
        Scenario::Impact(_) => vec![],
        _ => vec![0.25],
    };
    scenario
        .simulate(&o)
        .unwrap_or_else(|e| panic!("{kind} rtol {rtol}: {e}"))
}

fn duration_error(r: &RunRecord, reference: &RunRecord) -> f64 {
    let (d, e) = (
        &PhaseDurations::of(&r.modes),
        &PhaseDurations::of(&reference.modes),
    );
    [
        (d.slide, e.slide),
        (d.stick, e.stick),
        (d.reverse_slip, e.reverse_slip),
    ]
    .iter()
    .map(|(a, b)| ((a - b) / b).abs())
    .fold(0.0, f64::max)
}

/// Order sanity on the tangential impact (κ = 1e-6): each integrator's largest relative phase
/// duration error falls by orders of magnitude from rtol 1e-4 to 1e-7 to 1e-10.
#[test]
fn every_integrators_error_falls_when_the_tolerance_tightens() {
    let impact = Scenario::Impact(RodImpact::zhao_liu(1e-6));
    let reference = run(&impact, IntegratorKind::Tsit45, 1e-13);
    let confirm = run(&impact, IntegratorKind::Radau5, 1e-13);
    assert!(duration_error(&confirm, &reference) < 1e-11);
    for kind in IntegratorKind::ALL {
        let e: Vec<f64> = [1e-4, 1e-7, 1e-10]
            .iter()
            .map(|&rtol| duration_error(&run(&impact, kind, rtol), &reference))
            .collect();
        assert!(
            e[1] < 0.1 * e[0] && e[2] < 0.1 * e[1] && e[2] < 1e-7,
            "{kind}: errors {e:?} at rtol 1e-4, 1e-7, 1e-10"
        );
    }
}

/// The rod put down at rest on the stick/slip surface (Zhao–Liu's θ0 = 1.3, μ = μ_s = 2,
/// κ = 1e-8, u0 = 0, or ±1e-300 and ±1e-13, which the tolerances do not resolve from 0:
/// docs/tolerances.md, "A start on the stick/slip surface") sticks (the stick force −(a + Bλ_N)/A
/// is 0 at λ_N = 0, inside the cone), bounces on the spring, breaks stick to the right near the
/// top of the bounce (λ_N → 0 while the stick force stays finite) and separates 1.9e-10 later.
/// Every integrator at simulate's default tolerances (rtol 1e-10, atol 1e-12) gives that one
/// mode sequence; the separation time and the normal impulse agree with a tight reference
/// (DOP853 at rtol 1e-13, atol 1e-17) to 5e-5 and 2e-7 relative. The time's tolerance is
/// ESDIRK34's (3.1e-5; the others ≤ 4.6e-6): the break happens at δ = 4.8e-18, 2.5e-10 of the
/// bounce's amplitude, so its time is each method's global error on δ there over δ̇ = 2.6e-8.
/// Energy balances, and the centre of mass obeys Newton's law through the whole run (ẏ_G =
/// P_n − t, ẋ_G = P_τ: g = m = 1), both independent of any integrator.
#[test]
fn a_start_on_the_stick_slip_surface_is_the_same_with_every_integrator() {
    let at = |u0: f64| {
        Scenario::Impact(RodImpact {
            u0,
            ..RodImpact::zhao_liu(1e-8)
        })
    };
    let simulate = |u0: f64, kind: IntegratorKind, rtol: f64, atol: f64| {
        at(u0)
            .simulate(&SimulationOptions::new(kind, rtol, atol))
            .unwrap_or_else(|e| panic!("u0 = {u0:e}, {kind}: {e}"))
    };
    let reference = simulate(0.0, IntegratorKind::Dop853, 1e-13, 1e-17);
    let confirm = simulate(0.0, IntegratorKind::Radau5, 1e-13, 1e-17);
    let t_ref = reference.final_time;
    assert!((confirm.final_time / t_ref - 1.0).abs() < 1e-8, "{t_ref}");
    assert!((t_ref - 6.1120061e-4).abs() < 1e-10, "{t_ref}");
    for u0 in [0.0, -1e-300, 1e-300, -1e-13, 1e-13] {
        for kind in IntegratorKind::ALL {
            let r = simulate(u0, kind, 1e-10, 1e-12);
            let what = format!("u0 = {u0:e}, {kind}");
            assert_eq!(r.mode_sequence(), "stick → slide_right", "{what}");
            assert!(r.separated, "{what}");
            let t = r.final_time;
            assert!((t / t_ref - 1.0).abs() < 5e-5, "{what}: separation at {t}");
            let p_n = r.impulse_normal / reference.impulse_normal - 1.0;
            assert!(p_n.abs() < 2e-7, "{what}: normal impulse off by {p_n:e}");
            assert!(
                r.energy.balance_error.abs() < 1e-12,
                "{what}: {}",
                r.energy.balance_error
            );
            let (q, v) = (&r.final_q, &r.final_qdot);
            let ydot_g = v[Y_A] + q[THETA].cos() * v[THETA];
            let xdot_g = v[X_A] - q[THETA].sin() * v[THETA];
            assert!(
                (ydot_g - (r.impulse_normal - t)).abs() < 1e-12
                    && (xdot_g - r.impulse_tangential).abs() < 1e-12,
                "{what}: ẏ_G {ydot_g} vs P_n − t {}, ẋ_G {xdot_g} vs P_τ {}",
                r.impulse_normal - t,
                r.impulse_tangential
            );
        }
    }
}

/// The dropped rod falls freely (g = 1): the first contact is at t = √(2h), with normal
/// velocity −√(2h), for every integrator to the tolerance.
#[test]
fn drop_first_contact_matches_free_fall() {
    let rod = RodImpact {
        kappa: 1e-6,
        mu: 0.3,
        mu_s: 0.3,
        theta0: 1.45,
        omega0: 0.0,
        u0: 0.0,
        damping: 0.5,
        ..RodImpact::zhao_liu(1e-6)
    };
    let drop = Scenario::Drop {
        rod,
        height: 0.1,
        t_end: 0.5,
    };
    for kind in IntegratorKind::ALL {
        let r = run(&drop, kind, 1e-9);
        let first = r.events.first().expect("the rod lands");
        assert_eq!(first.event.name(), "contact_closes");
        assert!(
            (first.t - 0.2f64.sqrt()).abs() < 1e-7,
            "{kind}: first contact at {}",
            first.t
        );
        // Before the contact: free fall, y_A(0.25) = h − t²/2.
        let s = &r.outputs[0];
        assert!(
            (s.q[Y_A] - (0.1 - 0.25 * 0.25 / 2.0)).abs() < 1e-8,
            "{kind}"
        );
    }
}

/// A contact that closes with a slip of 1e-300 or 1e-13 (the rod dropped with that u0) lands in
/// a slide of that sign whose slip stops at the landing instant (within 1e-15), then goes on as
/// for u0 = 0 exactly (landing in stick): the same later events at the same times (1e-9), with
/// every integrator — also the diffsol ones, whose steps are at least 1e-13 long: the stop,
/// 3e-16 after the landing, is reached by the event refinement's Taylor step instead of a
/// shorter step (which used to fail with "step size is too small").
/// A re-contact keeps the sign of u (docs/tolerances.md, "A start on the stick/slip surface"):
/// the extra phase has zero length, and a threshold at the integrator's resolution would move
/// real slips of O(rtol) to stick.
#[test]
fn a_contact_closing_with_a_tiny_slip_stops_it_at_once_with_every_integrator() {
    let drop = |u0: f64| Scenario::Drop {
        rod: RodImpact {
            kappa: 1e-6,
            mu: 0.3,
            mu_s: 0.3,
            theta0: 1.45,
            u0,
            damping: 0.5,
            ..RodImpact::zhao_liu(1e-6)
        },
        height: 0.1,
        t_end: 0.5,
    };
    let events = |r: &RunRecord| -> Vec<&str> { r.events.iter().map(|e| e.event.name()).collect() };
    for kind in IntegratorKind::ALL {
        let exact = run(&drop(0.0), kind, 1e-9);
        assert_eq!(
            events(&exact),
            ["contact_closes", "stick_breaks_right", "contact_opens"],
            "{kind}"
        );
        for u0 in [-1e-300, 1e-300, -1e-13, 1e-13_f64] {
            let r = run(&drop(u0), kind, 1e-9);
            let what = format!("{kind}, u0 = {u0:e}");
            assert_eq!(
                events(&r),
                [
                    "contact_closes",
                    "slip_stops",
                    "stick_breaks_right",
                    "contact_opens"
                ],
                "{what}"
            );
            assert!((r.events[1].t - r.events[0].t).abs() < 1e-15, "{what}");
            for (e, e0) in r.events.iter().skip(1).zip(&exact.events).skip(1) {
                assert!(
                    (e.t - e0.t).abs() < 1e-9,
                    "{what}: {} at {}",
                    e.event.name(),
                    e.t
                );
            }
        }
    }
}

/// The rod of the sustained-contact tests at `kappa`: θ0 = 1, u0 = −1, μ = 0.8, c_d = 1.
fn sustained_rod(kappa: f64) -> RodImpact {
    RodImpact {
        kappa,
        mu: 0.8,
        mu_s: 0.8,
        theta0: 1.0,
        omega0: 0.0,
        u0: -1.0,
        damping: 1.0,
        ..RodImpact::zhao_liu(kappa)
    }
}

/// The sustained scenario starts at the quasi-static penetration of Zhao–Liu eq. (10):
/// A F_n + B = 0, so δ = κ(−B/A); a non-pressing or paradoxical start is refused by name.
#[test]
fn sustained_start_is_the_quasi_static_penetration() {
    let sustained = Scenario::Sustained {
        rod: sustained_rod(1e-8),
        t_end: 1.0,
    };
    let (q, _) = sustained.initial_state().unwrap();
    let k = SlideCoefficients::uniform(0.8, 1.0, 0.0);
    let expected = 1e-8 * (-k.b / k.a);
    assert!((-q[Y_A] - expected).abs() < 1e-14 * expected.abs() + 1e-30);
    let paradox = Scenario::Sustained {
        rod: RodImpact::zhao_liu(1e-8),
        t_end: 1.0,
    };
    let e = paradox
        .validate(|n| format!("--{n}"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("--theta0") && e.contains("A > 0"), "{e}");
}

/// In sustained stiff contact the implicit methods step over the contact time scale (their
/// step count hardly changes from κ = 1e-4 to 1e-10), the explicit one resolves it.
#[test]
fn implicit_cost_is_independent_of_kappa_in_sustained_contact() {
    let at = |kappa: f64| Scenario::Sustained {
        rod: sustained_rod(kappa),
        t_end: 1.0,
    };
    let steps = |kind, kappa| run(&at(kappa), kind, 1e-6).stats.steps as f64;
    for kind in [
        IntegratorKind::Bdf,
        IntegratorKind::Radau5,
        IntegratorKind::Rodas4,
    ] {
        let ratio = steps(kind, 1e-10) / steps(kind, 1e-4);
        assert!(
            ratio < 2.0,
            "{kind}: steps grew {ratio}× from κ 1e-4 to 1e-10"
        );
    }
    let ratio = steps(IntegratorKind::Tsit45, 1e-10) / steps(IntegratorKind::Tsit45, 1e-4);
    assert!(ratio > 30.0, "tsit45 steps grew only {ratio}×");
}

const TINY_STUDY: &str = r#"
name = "tiny"
kind = "integrator_study"
integrators = ["bdf", "radau5"]
rtol = { min = 1e-8, max = 1e-4, per_decade = 1 }
repeats = 2
reference = { integrators = ["tsit45", "rodas4"], rtol = 1e-12 }

[[scenario]]
name = "impact"
kind = "impact"
kappa = [1e-4]
mu = 2.0
theta0 = 1.3
u0 = -1.0

[[scenario]]
name = "sustained"
kind = "sustained"
kappa = [1e-2, 1e-3, 1e-4]
damping = 1.0
mu = 0.8
theta0 = 1.0
u0 = -1.0
t_end = 0.5
output_times = [0.25, 0.5]
"#;

#[test]
fn study_file_errors_name_the_key() {
    let cases = [
        (TINY_STUDY.replace("repeats = 2", "repeats = 0"), "repeats"),
        (
            TINY_STUDY.replace("\"tsit45\", \"rodas4\"", "\"tsit45\", \"tsit45\""),
            "reference.integrators",
        ),
        (
            TINY_STUDY.replace("rtol = 1e-12 }", "rtol = 1e-6 }"),
            "reference.rtol",
        ),
        (TINY_STUDY.replace("t_end = 0.5\n", ""), "scenario[1].t_end"),
        (
            TINY_STUDY.replace("output_times = [0.25, 0.5]", "output_times = [0.5, 0.25]"),
            "scenario[1].output_times",
        ),
        (
            TINY_STUDY.replace("kappa = [1e-4]", "kappa = [-1e-4]"),
            "scenario[0].kappa",
        ),
        (
            TINY_STUDY.replace("mu = 0.8\ntheta0 = 1.0", "mu = 2.0\ntheta0 = 1.3"),
            "scenario[1].theta0",
        ),
        (TINY_STUDY.replace("repeats = 2", "repeat = 2"), "repeat"),
        (
            TINY_STUDY.replace(
                "repeats = 2",
                "repeats = 2\ntime_per_work_ns = { bdf = 1000 }",
            ),
            "give radau5 too",
        ),
        (
            TINY_STUDY.replace(
                "repeats = 2",
                "repeats = 2\ntime_per_work_ns = { bdf = 1000, radau5 = 400, tsit45 = 300 }",
            ),
            "time_per_work_ns.tsit45",
        ),
        (
            TINY_STUDY.replace(
                "repeats = 2",
                "repeats = 2\ntime_per_work_ns = { bdf = 1000, radau5 = -4 }",
            ),
            "time_per_work_ns.radau5",
        ),
    ];
    for (text, key) in cases {
        let e = parse_error(&text);
        assert!(e.contains(key), "error does not name {key}: {e}");
    }
}

/// A small study end to end: every point runs, errors.csv is tidy, errors fall along the
/// ladder, the cost fit exists for the 3-κ scenario.
#[test]
fn a_small_study_runs_and_reports() {
    let Experiment::RodScenarioWorkPrecision(spec) = Experiment::parse(TINY_STUDY).unwrap() else {
        panic!("not a study")
    };
    let dir = scratch("study");
    let summary = run_experiment(spec.as_ref(), &run_options(&dir)).unwrap();
    // 4 configurations × (2 references + 2 integrators × 5 tolerances).
    assert_eq!((summary.points, summary.failed), (4 * 12, 0));
    let a = write_run_report(spec.as_ref(), &dir).unwrap();
    let errors = std::fs::read_to_string(dir.join(ERRORS_CSV)).unwrap();
    // impact: 6 quantities × 10 runs; sustained: 3 κ × 2 quantities × 10 runs.
    assert_eq!(errors.lines().count(), 1 + 60 + 60);
    for c in &a.configurations {
        assert!(c.reference_error().unwrap() < 1e-9, "{}", c.label);
        for i in ["bdf", "radau5"] {
            let e: Vec<f64> = c
                .runs
                .iter()
                .filter(|r| r.integrator == i)
                .map(|r| r.error.unwrap())
                .collect();
            assert!(e[4] < 1e-2 * e[0], "{} {i}: {e:?}", c.label);
        }
    }
    assert!(a
        .cost_exponents
        .iter()
        .any(|e| e.scenario == "sustained" && e.fit.is_some()));
    assert!(dir.join("cost_vs_kappa_sustained.png").exists());
}

/// The recommendation table of the committed study is unchanged when every run's wall time is
/// disturbed by −20 … +25 % (a deterministic pseudo-random factor per run, about the drift of
/// one run's time between two reruns): the choice rests on the deterministic work counts costed
/// with the experiment file's calibration. The negative control, the fastest single measured
/// run (how the study used to rank), does flip under the same disturbance.
#[test]
fn recommendations_survive_disturbed_wall_times() {
    use rigid_limit::analysis::work_precision::WorkPrecisionAnalysis as StudyAnalysis;
    use rigid_limit::experiment::table::parse_rows;
    use rigid_limit::report::work_precision::analysis as analyze_study;

    let Experiment::RodScenarioWorkPrecision(spec) =
        Experiment::parse(include_str!("../../experiments/integrators.toml")).unwrap()
    else {
        panic!("integrators.toml is the rod scenarios' work–precision study")
    };
    let rows = parse_rows(
        &std::fs::read_to_string("results/integrators/runs.csv").unwrap(),
        &spec.columns(),
    );
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut disturbed = rows.clone();
    for row in &mut disturbed {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let factor = 0.8 + 0.45 * (state >> 11) as f64 / (1u64 << 53) as f64;
        for column in ["wall_time_s", "wall_time_min_s"] {
            if let Some(t) = row.number(column) {
                row.fields.insert(column, (t * factor).to_string());
            }
        }
    }
    let choices = |a: &StudyAnalysis| -> Vec<String> {
        a.recommendations
            .iter()
            .map(|r| format!("{} {} {:?}", r.config, r.target, r.tied))
            .collect()
    };
    let (a, b) = (
        analyze_study(spec.as_ref(), &rows),
        analyze_study(spec.as_ref(), &disturbed),
    );
    assert!(a.recommendations.iter().any(|r| r.integrator.is_some()));
    assert_eq!(choices(&a), choices(&b));
    // Negative control: the fastest single measured run flips somewhere.
    let fastest = |a: &StudyAnalysis| -> Vec<Option<String>> {
        a.recommendations
            .iter()
            .map(|r| r.fastest_measured.as_ref().map(|f| f.0.clone()))
            .collect()
    };
    assert_ne!(fastest(&a), fastest(&b));
}
