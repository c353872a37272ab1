//! The κ → 0 extrapolation (`analysis::extrapolate`) validated where the limit is known in
//! closed form: the rod's tangential impact (docs/extrapolation.md, "Validation").

use rigid_limit::experiment::model::SweepSpec;
use rigid_limit::experiment::table::{parse_rows, Row};
use rigid_limit::models::rod::convergence::{quantity_convergence, RodQuantity};
use rigid_limit::models::rod::sweep::Rod;
use std::path::Path;

fn committed_rows(name: &str) -> Vec<Row> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("results").join(name).join("runs.csv")).unwrap();
    let rows = parse_rows(&text, &SweepSpec::<Rod>::columns());
    assert!(!rows.is_empty(), "{name}: no rows (header changed?)");
    rows
}

/// The acceptance test: the committed Zhao–Liu ladder (rtol 1e-10), restricted to
/// κ ≥ 1e-10, extrapolates T_stick/√κ, v_out, θ̇_out and the normal impulse to their closed-form
/// limits within 1e-7 relative, inside the stated intervals, with every integrator; the smallest
/// run alone (κ = 1e-10) is 1e-5 … 1e-4 off.
#[test]
fn zhao_liu_ladder_extrapolates_to_the_closed_form() {
    let rows = committed_rows("zhao_liu");
    let spec = SweepSpec::<Rod>::parse(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/zhao_liu.toml"),
        )
        .unwrap(),
    )
    .unwrap();
    let impact = spec.impact(1e-10);
    for integrator in ["bdf", "tr-bdf2", "esdirk34", "tsit45"] {
        let ladder: Vec<&Row> = rows
            .iter()
            .filter(|r| r.text("integrator") == integrator && r.text("status") == "ok")
            .collect();
        for q in RodQuantity::POST_IMPACT {
            let c = quantity_convergence(&ladder, q, &impact, 1e-10).unwrap();
            let e = c
                .extrapolation
                .as_ref()
                .unwrap_or_else(|| panic!("{integrator} {}: refused: {:?}", q.symbol(), c.refusal));
            let err = c.extrapolation_error().unwrap();
            let raw = c.relative_error_at_smallest_kappa.unwrap();
            println!(
                "{integrator} {}: extrapolated {:.12} ± {:.2e}, closed form {:.12}, rel. error {err:.2e} (raw at κ = 1e-10: {raw:.2e}), {} on {} points",
                q.symbol(),
                e.limit,
                e.half_width,
                c.closed_form.unwrap(),
                e.formula,
                e.points
            );
            assert!(err.abs() <= 1e-7, "{integrator} {}: {err:e}", q.symbol());
            assert!(
                c.covers_closed_form().unwrap(),
                "{integrator} {}: {e:?}",
                q.symbol()
            );
            assert!(raw.abs() > 100.0 * err.abs());
        }
    }
}
