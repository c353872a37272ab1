//! C–V's fast dynamics of two slipping contacts (issue 13, docs/two_contact.md): the S+S+ mode
//! integrated by the mode machine is the closed-form linear flow e^{Js}; the first kink is the
//! closed-form root of the force along it; on the circle around the unstable S+S+ equilibrium of
//! Fig. unstableslip (A) every start ends in IF or FI, on the side of the stable manifold that
//! the left eigenvector predicts, and the bisected switches are the manifold's crossings to 1e-6;
//! (B)'s sprag–slip cycle repeats its period to 1e-6 and two integrators agree on its event times;
//! the printed p22 = −0.0375 gives a stable S+S+ and no cycle.

use crate::common::{number, parse_error, rows_of};
use rigid_limit::experiment::table::Row;
use rigid_limit::hybrid::{run_hybrid, HybridSystem, RunControl, Until};
use rigid_limit::integrate::{IntegratorKind, Tolerances};
use rigid_limit::models::two_contact::linear::{linear_flow, SlipSlip};
use rigid_limit::models::two_contact::system::{ContactLaw, FastTwoContact, TwoContactSystem};
use rigid_limit::models::Experiment;

const PANEL_A: TwoContactSystem = TwoContactSystem {
    free_accel: [-1.0, -1.0],
    response: [[-0.055, 0.088], [0.055, -0.036]],
    stiffness: [-1.0, -1.0],
    damping: [-1.0, -1.0],
};

const CIRCLE: &str = r#"
name = "t"
model = "two_contact"
[params]
b = [-1.0, -1.0]
P = [[-0.055, 0.088], [0.055, -0.036]]
k = [-1.0, -1.0]
q = [-1.0, -1.0]
[sweep]
law = ["literal", "harness"]
circle = { radius = 5.0, n = 72 }
[solver]
integrators = ["dop853", "radau5"]
rtol = 1e-12
atol = 1e-12
window_scaled = 200
"#;

fn sprag_slip(p22: f64, window: f64) -> String {
    format!(
        r#"
name = "t"
model = "two_contact"
[params]
b = [-1.0, -0.727]
P = [[3.051, -1.677], [1.555, {p22}]]
k = [-1.0, -3.0]
q = [-1.2, -1.2]
[sweep]
law = ["literal", "harness"]
starts = [{{ Y = [0.0, 0.0], V = [0.0, 0.0] }}]
[solver]
integrators = ["dop853", "radau5"]
rtol = 1e-12
atol = 1e-12
window_scaled = {window}
"#
    )
}

fn rows(text: &str) -> Vec<Row> {
    rows_of!(text, Experiment::TwoContact)
}

fn tolerances() -> Tolerances {
    Tolerances {
        rtol: 1e-12,
        atol: 1e-12,
    }
}

/// In S+S+ (no kink before s = 5 from θ = 0) the mode machine's solution is the matrix
/// exponential's, with an explicit and an implicit integrator.
#[test]
fn slip_slip_runs_are_the_matrix_exponential() {
    let e = SlipSlip::of(&PANEL_A).unwrap();
    let x0 = e.circle_start(5.0, 0.0);
    let control = RunControl {
        until: Until::Time(5.0),
        output_times: Vec::new(),
        max_events: 10,
        max_steps: 100_000,
        absolute_tolerances: None,
    };
    let sys = FastTwoContact {
        system: PANEL_A,
        law: ContactLaw::Literal,
    };
    let exact = linear_flow(&PANEL_A, &e.state(), &x0, 5.0);
    for kind in [IntegratorKind::Dop853, IntegratorKind::Radau5] {
        let trace = run_hybrid(&sys, kind, tolerances(), &x0, &control, &mut ()).unwrap();
        assert!(trace.events.is_empty(), "{kind}: {:?}", trace.events);
        for (i, x) in exact.iter().enumerate() {
            let err = (trace.y_end[i] - x).abs();
            assert!(err < 1e-9, "{kind}: component {i} off by {err}");
        }
    }
}

/// The first kink of a start in S+S+ is the closed-form root of the force along e^{Js}
/// (bisection on the exact flow), for both integrators.
#[test]
fn the_first_opening_is_the_closed_form_root() {
    let e = SlipSlip::of(&PANEL_A).unwrap();
    let x0 = e.circle_start(5.0, 1.0);
    let sys = FastTwoContact {
        system: PANEL_A,
        law: ContactLaw::Harness,
    };
    let force = |s: f64, j: usize| PANEL_A.law(j, &linear_flow(&PANEL_A, &e.state(), &x0, s));
    // The first contact whose force reaches zero, bracketed on a grid of 0.01 then bisected.
    let mut s0 = 0.0;
    let j = loop {
        let s1 = s0 + 0.01;
        if let Some(j) = (0..2).find(|&j| force(s1, j) <= 0.0) {
            break j;
        }
        s0 = s1;
    };
    let (mut lo, mut hi) = (s0, s0 + 0.01);
    while hi - lo > 1e-13 {
        let mid = 0.5 * (lo + hi);
        if force(mid, j) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let control = RunControl {
        until: Until::Transition {
            t_max: 50.0,
            stop: |_, _| true,
        },
        output_times: Vec::new(),
        max_events: 10,
        max_steps: 100_000,
        absolute_tolerances: None,
    };
    assert_eq!(sys.initial_mode(&x0).flags(), [true, true]);
    for kind in [IntegratorKind::Dop853, IntegratorKind::Radau5] {
        let trace = run_hybrid(&sys, kind, tolerances(), &x0, &control, &mut ()).unwrap();
        let first = &trace.events[0];
        assert_eq!(first.event.contact(), j, "{kind}");
        assert!(first.event.opens());
        let err = (first.t - 0.5 * (lo + hi)).abs();
        assert!(
            err < 1e-9,
            "{kind}: first opening at {} vs {lo}: {err}",
            first.t
        );
    }
}

/// (A): all 72 starts end in IF or FI under both laws and both integrators, each on the
/// outcome its side of the stable manifold predicts; the bisected switches are the manifold's
/// crossings to 1e-6 (the crossing trajectories keep both forces positive); the integrators
/// agree on every first opening to 1e-8.
#[test]
fn circle_outcomes_switch_on_the_stable_manifold() {
    let rows = rows(CIRCLE);
    let circle: Vec<&Row> = rows
        .iter()
        .filter(|r| r.text("start") == "circle")
        .collect();
    assert_eq!(circle.len(), 72 * 2 * 2);
    let mut side_outcome = std::collections::HashMap::new();
    for r in &circle {
        assert_eq!(r.text("status"), "ok", "{:?}", r.fields);
        let outcome = r.text("outcome");
        assert!(outcome == "IF" || outcome == "FI", "{:?}", r.fields);
        let side = r.text("linear_side").to_string();
        let seen = side_outcome.entry(side).or_insert(outcome.to_string());
        assert_eq!(seen, outcome, "a side of the manifold with two outcomes");
    }
    assert_eq!(side_outcome.len(), 2);
    let crossings: Vec<&Row> = rows
        .iter()
        .filter(|r| r.text("start") == "crossing")
        .collect();
    assert_eq!(crossings.len(), 2 * 2 * 2);
    for r in &crossings {
        assert_eq!(r.text("status"), "ok", "{:?}", r.fields);
        let offset = number(r, "theta_offset");
        assert!(offset.abs() < 1e-6, "{:?}", r.fields);
        assert!(number(r, "min_force_on_manifold") > 0.0);
        assert_ne!(r.text("side_below"), r.text("side_above"));
    }
    for pair in circle.chunks(2) {
        let (a, b) = (pair[0], pair[1]);
        assert_eq!(a.text("theta"), b.text("theta"));
        assert_ne!(a.text("integrator"), b.text("integrator"));
        assert_eq!(a.text("outcome"), b.text("outcome"));
        let d = (number(a, "first_open_s") - number(b, "first_open_s")).abs();
        assert!(d < 1e-8, "integrators differ by {d} at {:?}", a.fields);
    }
}

fn openings(r: &Row) -> Vec<f64> {
    r.text("s_openings_cycle")
        .split(';')
        .map(|t| t.parse().unwrap())
        .collect()
}

/// (B): the sprag–slip cycle (contact 2 opening repeatedly): the literal law's period repeats
/// to 1e-6 over the last five cycles by s = 600, the harness law's (a slower contraction)
/// not yet at s = 600 but by s = 1200; the two integrators agree on every opening to 1e-7.
#[test]
fn sprag_slip_cycle_repeats_and_integrators_agree() {
    let short = rows(&sprag_slip(-0.375, 600.0));
    let long = rows(&sprag_slip(-0.375, 1200.0));
    for (rs, window) in [(&short, 600.0), (&long, 1200.0)] {
        for r in rs.iter() {
            assert_eq!(r.text("status"), "ok", "{:?}", r.fields);
            assert_eq!(r.text("outcome"), "cycle");
            assert_eq!(r.text("cycle_contact"), "2");
            assert_eq!(r.text("openings_1"), "0", "contact 1 never opens");
            let spread = number(r, "period_spread");
            if r.text("law") == "literal" || window > 1000.0 {
                assert!(spread < 1e-6, "{:?}", r.fields);
            } else {
                assert!(
                    spread > 1e-6,
                    "the harness cycle converged by s = 600: {spread}"
                );
            }
        }
    }
    for rs in [&short, &long] {
        for pair in rs.chunks(2) {
            let (a, b) = (openings(&pair[0]), openings(&pair[1]));
            assert_eq!(a.len(), b.len());
            let worst = a
                .iter()
                .zip(&b)
                .map(|(x, y)| (x - y).abs())
                .fold(0.0, f64::max);
            assert!(worst < 1e-7, "opening times differ by {worst}");
        }
    }
    let period = |rs: &[Row], law: &str| {
        rs.iter()
            .find(|r| r.text("law") == law)
            .map(|r| number(r, "period"))
            .unwrap()
    };
    // The two laws give different cycles: the literal law reloads contact 2 before it
    // returns to the surface.
    assert!((period(&long, "literal") - period(&long, "harness")).abs() > 1.0);
}

/// The caption's printed p22 = −0.0375 puts p_2 at γ2 ≈ 1.007π, not 1.07π, and makes S+S+ a
/// stable equilibrium: the run from rest settles there (after one opening of contact 2).
#[test]
fn printed_p22_gives_a_stable_slip_slip() {
    let s = TwoContactSystem {
        free_accel: [-1.0, -0.727],
        response: [[3.051, -1.677], [1.555, -0.0375]],
        stiffness: [-1.0, -3.0],
        damping: [-1.2, -1.2],
    };
    let pi = std::f64::consts::PI;
    assert!((s.column_angle(1) / pi - 1.0071).abs() < 1e-4);
    let fixed = TwoContactSystem {
        response: [[3.051, -1.677], [1.555, -0.375]],
        ..s
    };
    assert!((fixed.column_angle(1) / pi - 1.07).abs() < 1e-4);
    let e = SlipSlip::of(&s).unwrap();
    assert!(e.eigenvalues.iter().all(|(re, _)| *re < 0.0));
    assert!(SlipSlip::of(&fixed)
        .unwrap()
        .eigenvalues
        .iter()
        .any(|(re, _)| *re > 0.0));
    for r in rows(&sprag_slip(-0.0375, 600.0)) {
        assert_eq!(r.text("outcome"), "S+S+", "{:?}", r.fields);
        for j in 0..2 {
            let f = number(&r, &format!("force_end_{}", j + 1));
            assert!((f - e.forces[j]).abs() < 1e-6, "{f} vs {}", e.forces[j]);
        }
    }
}

/// Bad input names the key and the fix.
#[test]
fn errors_name_the_key() {
    let cases = [
        (
            CIRCLE.replace("k = [-1.0, -1.0]", "k = [1.0, -1.0]"),
            "params.k",
        ),
        (
            CIRCLE.replace("q = [-1.0, -1.0]", "q = [-1.0, 0.0]"),
            "params.q",
        ),
        (
            CIRCLE.replace(
                "circle = { radius = 5.0, n = 72 }",
                "circle = { radius = 5.0, n = 72 }\nstarts = [{ Y = [0.0, 0.0], V = [0.0, 0.0] }]",
            ),
            "sweep.circle",
        ),
        (
            CIRCLE.replace("radius = 5.0", "radius = -5.0"),
            "sweep.circle.radius",
        ),
        (
            CIRCLE.replace("window_scaled = 200", ""),
            "solver.window_scaled",
        ),
        (
            CIRCLE.replace("law = [\"literal\", \"harness\"]", "law = []"),
            "sweep.law",
        ),
        (
            CIRCLE.replace("b = [-1.0, -1.0]", "b = [1.0, 1.0]"),
            "sweep.circle",
        ),
    ];
    for (text, key) in cases {
        let e = parse_error(&text);
        assert!(e.contains(key), "error does not name {key}: {e}");
    }
}
