//! The stick/lift-off basin of C–V's planar contact at rest in II(iii) inside the cone (issue
//! 13): the edges between starts that stick and starts that lift off, bisected from compliant
//! runs, agree between two independent integrators (explicit Tsit45, implicit Radau5) and
//! across κ (the planar fast dynamics are exactly κ-free in the scaled variables); the runs that
//! stick end at the stick focus Y = −λ_N⁰ of the closed-form stick force (C–V
//! (stickforces)); every start on the lift-off side of the slip saddle's stable manifold lifts
//! off, and the edge near the saddle lies on the other side of it (docs/champneys_varkonyi.md
//! §10).

use crate::common::{number, numbers, parse_error, rows_of};
use rigid_limit::experiment::table::Row;
use rigid_limit::models::Experiment;

const FILE: &str = r#"
name = "t"
model = "planar"
analysis = "stick_liftoff_basin"
[params]
a = 4.0
b = 1.0
A = 1.0
B = 0.8
C = 1.0
mu = 2.0
u0 = 0.0
damping = 1.0
[sweep]
kappa = { min = 1e-10, max = 1e-8, per_decade = 1 }
Y0 = { min = -15.0, max = 0.0, n = 151 }
V0 = { min = -10.0, max = 0.0, n = 101 }
[solver]
integrators = ["tsit45", "radau5"]
rtol = 1e-10
atol = 1e-12
window_scaled = 200
"#;

fn rows(text: &str) -> Vec<Row> {
    rows_of!(text, Experiment::PlanarStickBasin)
}

#[test]
fn edges_agree_across_integrators_and_kappa_and_stick_ends_at_the_focus() {
    let text = FILE;
    let rows = rows(text);
    // Two lines × three κ × two integrators.
    assert_eq!(rows.len(), 2 * 3 * 2);
    for line in rows.chunks(6) {
        let reference = numbers(&line[0], "edges");
        assert_eq!(reference.len(), 2, "{:?}", line[0].fields);
        assert_eq!(line[0].text("edge_sides"), "F|T T|F");
        for r in line {
            assert_eq!(r.text("status"), "ok", "{:?}", r.fields);
            let edges = numbers(r, "edges");
            assert_eq!(edges.len(), 2, "{:?}", r.fields);
            for (e, e0) in edges.iter().zip(&reference) {
                assert!((e - e0).abs() < 1e-7, "{edges:?} vs {reference:?}");
            }
            assert!(number(r, "stick_end_gap_error") < 1e-6, "{:?}", r.fields);
            // Starts on the lift-off side of the manifold (t above its crossing) lift off; the
            // edge near the saddle lies below the crossing, within 0.1 of it.
            let crossing = number(r, "manifold_crossing");
            let (lo, hi, n) = (
                number(r, "scan_min"),
                number(r, "scan_max"),
                number(r, "scan_n") as usize,
            );
            for (i, o) in r.text("scan_outcomes").split_whitespace().enumerate() {
                let t = lo + (hi - lo) * i as f64 / (n - 1) as f64;
                if t > crossing {
                    assert_eq!(o, "F", "t = {t}: {:?}", r.fields);
                }
            }
            let offset = number(r, "manifold_offset");
            assert!(offset < 0.0 && offset > -0.1, "{offset}");
        }
    }
}

#[test]
fn a_state_without_the_stick_liftoff_indeterminacy_is_refused() {
    let cases = [
        (FILE.replace("u0 = 0.0", "u0 = 1.0"), "params"),
        // a = 0: II(iii) outside the cone, Table 3 gives F only.
        (FILE.replace("a = 4.0", "a = 0.0"), "params"),
        (
            FILE.replace("Y0 = { min = -15.0, max = 0.0, n = 151 }", "Y0 = [-2.0, -1.0]"),
            "sweep.Y0",
        ),
        (
            FILE.replace("Y0 = { min = -15.0, max = 0.0, n = 151 }\nV0 = { min = -10.0, max = 0.0, n = 101 }", ""),
            "sweep.Y0",
        ),
        (FILE.replace("u0 = 0.0", "u0 = 0.0\nY0 = -1.0"), "sweep.starts"),
    ];
    for (text, key) in cases {
        let e = parse_error(&text);
        assert!(e.contains(key), "error does not name {key}: {e}");
    }
}
