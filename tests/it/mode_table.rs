//! The mode table end to end (issue 13): compliant runs of C–V's planar system and of the rod
//! against the IWC limit (a closed form, src/model/iwc.rs), κ-independence of the scaled fast
//! dynamics of the constant planar system, mirror symmetry, and the outcome rule.

use crate::common::{number, rows_of};
use rigid_limit::experiment::table::Row;
use rigid_limit::models::Experiment;

/// Run every point of an experiment given as TOML text; the rows in point order.
fn rows(text: &str) -> Vec<Row> {
    rows_of!(text, Experiment::PlanarModeTable, Experiment::RodModeTable)
}

const PLANAR: &str = r#"
name = "t"
model = "planar"
analysis = "mode_table"
[params]
A = 1.0
C = 1.0
damping = 1.0
[sweep]
kappa = { min = 1e-12, max = 1e-8, per_decade = 1 }
starts = [{ Y0 = -2, V0 = 0 }, { Y0 = -8, V0 = 0 }]
states = [
  { B = 0.8, mu = 2.0, a = 0.0, b = 1.0, u0 = 1.0 },
  { B = -0.8, mu = 2.0, a = 0.0, b = 1.0, u0 = -1.0 },
  { B = 0.8, mu = 2.0, a = 4.0, b = 1.0, u0 = 0.0 },
  { B = -0.8, mu = 2.0, a = -4.0, b = 1.0, u0 = 0.0 },
  { B = 0.5, mu = 1.0, a = 0.0, b = 1.0, u0 = 0.0 },
]
[solver]
integrators = ["tsit45", "radau5"]
rtol = 1e-10
atol = 1e-12
window_scaled = 200
"#;

/// IWC of the planar I(iii) state from deep starts: the slip stops at the impulse |u0|/k+
/// (exact here: a = 0), and the normal velocity at lift-off converges to the two-stage limit.
/// Its mirror III(ii) does the same with u, B negated.
#[test]
fn planar_iwc_matches_the_two_stage_limit_and_its_mirror() {
    let rows = rows(PLANAR);
    let iwc: Vec<&Row> = rows.iter().filter(|r| r.text("outcome") == "IWC").collect();
    // States 1 and 2 (mirrors), both starts, five κ, two integrators.
    assert_eq!(iwc.len(), 2 * 2 * 5 * 2, "{}", rows.len());
    for r in &iwc {
        let k = 2.0 * 1.0 - 0.8; // k± = μA ∓ B with the slip's sign
        assert!((number(r, "slip_stop_impulse") - 1.0 / k).abs() < 1e-9);
        let limit = number(r, "limit_v_out");
        let err = (number(r, "v_out") - limit).abs() / limit;
        // The corrections are O(√κ ln κ): a few 1e-4 at κ = 1e-8.
        assert!(
            err < 100.0 * number(r, "kappa").sqrt(),
            "κ = {}: {err}",
            r.text("kappa")
        );
        assert!(number(r, "u_out").abs() < 1e-3);
    }
    for (a, b) in iwc
        .iter()
        .filter(|r| r.text("u0") == "1")
        .zip(iwc.iter().filter(|r| r.text("u0") == "-1"))
    {
        assert_eq!(a.text("Y0"), b.text("Y0"));
        assert!((number(a, "v_out") - number(b, "v_out")).abs() < 1e-12);
        assert!((number(a, "u_out") + number(b, "u_out")).abs() < 1e-12);
        assert!((number(a, "s_open") - number(b, "s_open")).abs() < 1e-9);
    }
}

/// Inside the friction cone of II(iii) and II(ii), a deep start sticks (C–V's stable focus):
/// the scaled run is the same at every κ to 1e-8, for both integrators, and the normal force
/// settles at the stick force (aB − Ab)/(AC − B²) of eq. (stickforces).
#[test]
fn planar_stick_is_kappa_independent_in_scaled_variables() {
    let rows = rows(PLANAR);
    for state in ["4", "-4"] {
        let stick: Vec<&Row> = rows
            .iter()
            .filter(|r| r.text("a") == state && r.text("Y0") == "-8")
            .collect();
        assert_eq!(stick.len(), 10);
        let first = stick[0];
        for r in &stick {
            assert_eq!(r.text("outcome"), "T");
            for c in ["Y_end", "V_end", "normal_force_end"] {
                assert!(
                    (number(r, c) - number(first, c)).abs() < 1e-8,
                    "{c}: {:?}",
                    r.fields
                );
            }
            let stick_force = number(r, "stick_normal_force");
            assert!((number(r, "normal_force_end") - stick_force).abs() < 1e-8);
        }
    }
}

/// At a = 0 the stick force meets the cone exactly where the contact force vanishes: the
/// contact must open there (lift-off), not slide on with a negative normal force.
#[test]
fn coincident_stick_break_and_opening_lift_off() {
    let rows = rows(PLANAR);
    let lifted: Vec<&Row> = rows
        .iter()
        .filter(|r| r.text("a") == "0" && r.text("u0") == "0")
        .collect();
    assert_eq!(lifted.len(), 20);
    for r in lifted {
        assert_eq!(r.text("outcome"), "F", "{:?}", r.fields);
        assert!(number(r, "Y_end") > 0.0 && number(r, "V_end") > 0.0);
        assert!(r.text("mode_sequence").ends_with("free"));
    }
}

/// The rod (ρ = 0.1, C–V's I(vi)): the IWC's impulse, lift-off velocity and angular velocity
/// converge to the generic two-stage limit evaluated on the rod (errors shrink with κ).
#[test]
fn rod_iwc_converges_to_the_generic_limit() {
    let text = r#"
name = "t"
model = "rod"
analysis = "mode_table"
[params]
damping = 1.0
gyration_sq = 0.1
mu = 1.0
theta0 = 1.9415926535897932
omega0 = 0.0
u0 = 1.0
[sweep]
kappa = { min = 1e-12, max = 1e-8, per_decade = 1 }
[solver]
integrators = ["tsit45"]
rtol = 1e-10
atol = 1e-12
window_scaled = 200
"#;
    let rows = rows(text);
    assert_eq!(rows.len(), 5);
    let errors: Vec<[f64; 3]> = rows
        .iter()
        .map(|r| {
            assert_eq!(r.text("outcome"), "IWC");
            assert_eq!(r.text("cell"), "I(vi)");
            let rel = |got: &str, want: &str| {
                (number(r, got) - number(r, want)).abs() / number(r, want).abs()
            };
            [
                rel("slip_stop_impulse", "limit_slip_stop_impulse"),
                rel("v_out", "limit_v_out"),
                rel("omega_out", "limit_omega_out"),
            ]
        })
        .collect();
    let (large, small) = (errors[0], errors[4]);
    for i in 0..3 {
        assert!(small[i] < 3e-4, "{errors:?}");
        assert!(small[i] < large[i] / 10.0, "no convergence: {errors:?}");
    }
}

/// The lift-off/IWC boundary of the planar P+ state (I(iii)) by bisection of compliant runs is
/// the closed-form stable manifold to 1e-8 on all three lines; the rod's boundary approaches
/// its frozen saddle's manifold like κ^0.5.
#[test]
fn basin_boundaries_are_the_stable_manifold() {
    let planar = r#"
name = "t"
model = "planar"
analysis = "liftoff_iwc_basin"
[params]
a = 0.0
b = 1.0
A = 1.0
B = 0.8
C = 1.0
mu = 2.0
u0 = 1.0
damping = 1.0
[sweep]
kappa = { min = 1e-8, max = 1e-8, per_decade = 1 }
[solver]
integrators = ["tsit45"]
rtol = 1e-12
atol = 1e-14
window_scaled = 200
"#;
    let rows = run_basin(planar);
    assert_eq!(rows.len(), 3);
    for r in &rows {
        assert!(number(r, "offset").abs() < 1e-8, "{:?}", r.fields);
        assert_ne!(r.text("side_below"), r.text("side_above"));
    }
    let rod = planar
        .replace("model = \"planar\"", "model = \"rod\"")
        .replace(
            "a = 0.0\nb = 1.0\nA = 1.0\nB = 0.8\nC = 1.0\n",
            "theta0 = 2.0344439357957027\nomega0 = -1.2\n",
        )
        .replace("min = 1e-8, max = 1e-8", "min = 1e-8, max = 1e-6");
    let rows = run_basin(&rod);
    assert_eq!(rows.len(), 3 * 3);
    for line in rows.chunks(3) {
        let (coarse, fine) = (number(&line[0], "offset"), number(&line[2], "offset"));
        let ratio = coarse / fine; // κ^0.5 over two decades: 10
        assert!(
            (8.0..12.0).contains(&ratio),
            "{ratio}: {:?}",
            line[0].fields
        );
    }
}

fn run_basin(text: &str) -> Vec<Row> {
    rows_of!(text, Experiment::PlanarBasin, Experiment::RodBasin)
}
