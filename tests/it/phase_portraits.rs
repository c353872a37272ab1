//! C–V's phase portraits as compliant runs (issue 13, docs/champneys_varkonyi.md §11): the
//! trajectories of the planar system's slip are the closed-form solution of the linear fast
//! dynamics Y'' = b + p λ_N, λ_N = −Y − c_d V (a saddle for p < 0), and the runs that stick
//! end at the stick focus −λ_N⁰.

use crate::common::{numbers, rows_of};
use rigid_limit::experiment::table::Row;
use rigid_limit::model::iwc::{FastStart, SlipSaddle};
use rigid_limit::models::Experiment;

fn rows() -> Vec<Row> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/experiments/fast_phase_portraits.toml"
    ))
    .unwrap();
    rows_of!(&text, Experiment::PlanarPortraits)
}

#[test]
fn slip_trajectories_follow_the_linear_saddle_and_stick_ends_at_the_focus() {
    let rows = rows();
    assert_eq!(rows.len(), 6 * 8);
    let mut checked = 0;
    for r in &rows {
        assert_eq!(r.text("status"), "ok", "{:?}", r.fields);
        let n = |c: &str| r.number(c).unwrap();
        let (s, y, v) = (
            numbers(r, "trajectory_s"),
            numbers(r, "trajectory_Y"),
            numbers(r, "trajectory_V"),
        );
        // (A start at the slip equilibrium stays there: two samples.)
        assert!(s.len() >= 2 && s.len() == y.len() && y.len() == v.len());
        // Panel B, I(iii): slip with p+ = C − μB < 0 from a start in contact.
        if r.text("cell") == "I(iii)" && n("Y0") + n("V0") < 0.0 {
            let p = n("C") - n("mu") * n("B");
            let saddle = SlipSaddle::new(p, n("b"), n("damping")).unwrap();
            let start = FastStart {
                gap: n("Y0"),
                normal_velocity: n("V0"),
            };
            let alpha = saddle.unstable_amplitude(start);
            let beta = start.gap - saddle.equilibrium_gap - alpha;
            for i in 0..s.len() {
                // While the contact is closed and the slip has not stopped (s < 5: the slip
                // stop of an IWC at κ = 1e-8 comes later, at s ≈ 8).
                if s[i] > 5.0 || -y[i] - v[i] <= 0.0 {
                    break;
                }
                let (lu, ls) = (saddle.unstable_rate, saddle.stable_rate);
                let exact =
                    saddle.equilibrium_gap + alpha * (lu * s[i]).exp() + beta * (ls * s[i]).exp();
                let exact_v = alpha * lu * (lu * s[i]).exp() + beta * ls * (ls * s[i]).exp();
                let scale = exact.abs().max(1.0);
                assert!(
                    (y[i] - exact).abs() < 1e-5 * scale,
                    "s = {}: {} vs {exact}",
                    s[i],
                    y[i]
                );
                assert!((v[i] - exact_v).abs() < 1e-5 * exact_v.abs().max(1.0));
                checked += 1;
            }
        }
        if r.text("outcome") == "T" {
            let focus = n("equilibrium_gap");
            assert!((y.last().unwrap() - focus).abs() < 1e-5, "{:?}", r.fields);
        }
    }
    assert!(checked > 100, "{checked}");
}
