//! The κ → 0 extrapolation (`analysis::extrapolate`) validated where the limit is known in
//! closed form: the rod's tangential impact (docs/extrapolation.md, "Validation").

use rigid_limit::experiment::table::{parse_rows, Row};
use rigid_limit::models::rod::convergence::{quantity_convergence, spread_accuracy, RodQuantity};
use rigid_limit::models::rod::sweep::RodExperiment;
use std::path::Path;

/// experiments/zhao_liu.toml.
fn zhao_liu() -> RodExperiment {
    RodExperiment::parse(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/zhao_liu.toml"),
        )
        .unwrap(),
    )
    .unwrap()
}

fn committed_rows(name: &str) -> Vec<Row> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("results").join(name).join("runs.csv")).unwrap();
    let rows = parse_rows(&text, &zhao_liu().columns());
    assert!(!rows.is_empty(), "{name}: no rows (header changed?)");
    rows
}

/// The issue's acceptance test: the committed Zhao–Liu ladder (rtol 1e-10), restricted to
/// κ ≥ 1e-10, extrapolates T_stick/√κ, v_out, θ̇_out and the normal impulse to their closed-form
/// limits within 1e-7 relative (or within the stated interval, where the ladder's scatter makes
/// it wider), inside the stated intervals (with the values' accuracy from the spread of the
/// four integrators), with every integrator; the smallest run alone (κ = 1e-10) is
/// 9e-5 … 3e-3 off.
#[test]
fn zhao_liu_ladder_extrapolates_to_the_closed_form() {
    let rows = committed_rows("zhao_liu");
    let spec = zhao_liu();
    let impact = spec.impact(1e-10);
    let integrators = ["bdf", "tr-bdf2", "esdirk34", "tsit45"];
    let ok = |name: &str| -> Vec<&Row> {
        rows.iter()
            .filter(|r| r.text("integrator") == name && r.text("status") == "ok")
            .collect()
    };
    for integrator in integrators {
        let ladder = ok(integrator);
        let others: Vec<Vec<&Row>> = integrators
            .iter()
            .filter(|o| **o != integrator)
            .map(|o| ok(o))
            .collect();
        for q in RodQuantity::POST_IMPACT {
            let accuracy = spread_accuracy(&ladder, &others, q, 1e-10);
            let c = quantity_convergence(&ladder, q, &impact, 1e-10, accuracy).unwrap();
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
            // Within 1e-7, or within the stated interval where the ladder's own scatter makes
            // that wider: TR-BDF2's T_stick (±4.3e-7 relative; its error, 5.7e-8 or 1.0e-7,
            // moves with the last bits of the arithmetic, docs/results.md).
            let half_width = e.half_width / c.closed_form.unwrap().abs();
            assert!(
                err.abs() <= half_width.max(1e-7),
                "{integrator} {}: {err:e} (half-width {half_width:e})",
                q.symbol()
            );
            assert!(
                c.covers_closed_form().unwrap(),
                "{integrator} {}: {e:?}",
                q.symbol()
            );
            assert!(raw.abs() > 100.0 * err.abs());
        }
    }
}

/// A small atlas, run here (72 states, κ from 1e-5 to 1e-10, Tsit45 at rtol 1e-12, away from
/// the A = 0 edge where convergence is slow): every post-impact quantity of every state is
/// extrapolated, to ≤ 1e-7 relative, and the intervals cover the closed form at ≥ 95 % of the
/// states; the fitted b agrees with the derived one (docs/extrapolation.md eq. (2.10)).
#[test]
fn small_atlas_covers_the_closed_form() {
    use rayon::prelude::*;
    use rigid_limit::experiment::Plan;
    use rigid_limit::models::rod::extrapolation_atlas::analyze_extrapolation_atlas;
    let spec = RodExperiment::parse(
        r#"
name = "small_extrapolation_atlas"
model = "rod"
analysis = "extrapolation"
[params]
u0 = -1.0
[sweep]
kappa = { min = 1e-10, max = 1e-5, per_decade = 4 }
mu = { min = 2.0, max = 8.0, n = 3 }
theta0 = { painleve_interval = 3 }
omega0 = [-0.5, 0.5]
damping = [0.0, 0.2, 0.5, 1.0]
case = "inconsistent"
[solver]
integrators = ["tsit45"]
rtol = 1e-12
atol = 1e-14
"#,
    )
    .unwrap();
    let rows: Vec<Row> = spec
        .points()
        .par_iter()
        .map(|p| spec.run_point(p))
        .collect();
    let a = analyze_extrapolation_atlas(&spec, rows.iter().cloned());
    assert_eq!((a.states, a.standard_states), (72, 72));
    for q in RodQuantity::POST_IMPACT {
        let c = a
            .coverage
            .iter()
            .find(|c| c.quantity == q && c.damping.is_none())
            .unwrap();
        println!(
            "{}: {} extrapolated, coverage {:.3}, max error {:.1e}, median half-width {:.1e}, median b mismatch {:.1e}",
            q.symbol(),
            c.extrapolated,
            c.coverage,
            c.max_error,
            c.median_half_width,
            c.median_b_mismatch
        );
        assert_eq!(c.extrapolated, 72, "{c:?}");
        assert!(c.coverage >= 0.95 && c.max_error <= 1e-7, "{c:?}");
        assert!(c.median_b_mismatch < 1e-3, "{c:?}");
    }
}

/// With a dashpot the slide's decaying mode leaves a term κ^q, q = ½ + |σ|/(2λ), between √κ
/// and κ (docs/extrapolation.md eq. (2.12)). Without it in the models the fitted b of v_out is
/// off by percents and drifts with the window; with it, b matches the derived value.
#[test]
fn damped_ladder_needs_the_decaying_mode() {
    use rigid_limit::analysis::extrapolate::{extrapolate, ExtrapolationOptions, Term};
    use rigid_limit::compliant::SimulationOptions;
    use rigid_limit::integrate::IntegratorKind;
    use rigid_limit::models::rod::asymptotics::{log_coefficients, slide_decay_exponent};
    use rigid_limit::models::rod::convergence::extrapolation_options;
    use rigid_limit::models::rod::limit::RigidLimit;
    use rigid_limit::models::rod::scenario::RodImpact;
    let imp = RodImpact {
        mu: 10.0,
        mu_s: 10.0,
        theta0: 0.718,
        damping: 1.0,
        ..RodImpact::zhao_liu(1e-8)
    };
    let q = slide_decay_exponent(&imp).unwrap();
    let opts = SimulationOptions::new(IntegratorKind::Tsit45, 1e-12, 1e-14);
    let kappas: Vec<f64> = (0..=20)
        .map(|i| 1e-5 * 10f64.powf(-f64::from(i) / 4.0))
        .collect();
    let v: Vec<f64> = kappas
        .iter()
        .map(|k| {
            let r = RodImpact { kappa: *k, ..imp }.simulate(&opts).unwrap();
            r.post_impact.unwrap().v
        })
        .collect();
    let limit = RigidLimit::of(&imp).unwrap().v_out;
    let derived = log_coefficients(&imp).unwrap().v_out;
    let plain = extrapolate(&kappas, &v, &ExtrapolationOptions::default()).unwrap();
    let with = extrapolate(&kappas, &v, &extrapolation_options(&imp)).unwrap();
    let report = |name: &str, e: &rigid_limit::analysis::extrapolate::Extrapolation| {
        let b = e.coefficient(Term::SqrtLog).unwrap();
        println!(
            "{name}: {} on {} points: v_out {:.12} (closed form {limit:.12}, rel. error {:.1e}), b = {b:.6} (derived {derived:.6}, off by {:.1e})",
            e.formula,
            e.points,
            e.limit,
            (e.limit - limit) / limit,
            (b - derived).abs() / derived
        );
        (b - derived).abs() / derived
    };
    println!("q = 1/2 + |σ|/(2λ) = {q:.6}");
    let off_plain = report("without κ^q", &plain);
    let off_with = report("with κ^q", &with);
    assert!(off_with < 1e-3 && off_plain > 10.0 * off_with);
    assert!(with.covers(limit) && (with.limit - limit).abs() < (plain.limit - limit).abs());
}
