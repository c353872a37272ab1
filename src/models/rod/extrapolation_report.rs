//! The outputs of an `analysis = "extrapolation"` experiment: summary.md (coverage and size of
//! the intervals, per quantity and c_d; fitted against derived b), states.csv (one row per state
//! and quantity) and the figures extrapolation_coverage and log_coefficients.

use super::columns::INPUT_COLUMNS;
use super::convergence::{QuantityConvergence, RodQuantity};
use super::extrapolation_atlas::{CoverageSummary, ExtrapolationAtlas, StateExtrapolation};
use super::sweep::RodExperiment;
use crate::cells;
use crate::plot::{save_captioned, Figure, Mark, Panel, Series};
use crate::report::markdown::provenance;
use crate::report::table::Table;
use std::fmt::Write;
use std::path::Path;

pub(crate) const STATES_CSV: &str = "states.csv";

/// states.csv: one row per (state, quantity).
pub(crate) fn render_states_csv(a: &ExtrapolationAtlas) -> String {
    // The state's input columns, then its sequence and one quantity's extrapolation.
    let mut table = Table::new(INPUT_COLUMNS.iter().copied().chain([
        "sequence",
        "standard",
        "quantity",
        "closed_form",
        "smallest_kappa",
        "value_at_smallest_kappa",
        "error_at_smallest_kappa",
        "extrapolated",
        "half_width",
        "error",
        "covered",
        "model",
        "points",
        "kappa_max",
        "b_fitted",
        "b_derived",
        "c_fitted",
        "refusal",
    ]));
    for s in &a.per_state {
        let i = &s.impact;
        for q in &s.quantities {
            let e = q.extrapolation.as_ref();
            table.push(cells![
                i.mu,
                i.mu_s,
                i.theta0,
                i.omega0,
                i.u0,
                i.damping,
                s.sequence.replace(',', ";"),
                s.is_standard(),
                q.quantity.key(),
                q.closed_form,
                q.smallest_kappa,
                q.value_at_smallest_kappa,
                q.relative_error_at_smallest_kappa,
                e.map(|e| e.limit),
                e.map(|e| e.half_width),
                q.extrapolation_error(),
                q.covers_closed_form(),
                e.map(|e| e.formula.to_string()),
                e.map(|e| e.points),
                e.map(|e| e.kappa_max),
                q.fitted_log_coefficient(),
                q.predicted_log_coefficient,
                q.fitted_sqrt_coefficient(),
                q.refusal.clone(),
            ]);
        }
    }
    table.to_csv()
}

fn coverage_row(s: &mut String, c: &CoverageSummary) {
    let _ = writeln!(
        s,
        "| {} | {} | {} | {} | {} | {:.1} % | {:.3} | {} | {:.1e} | {:.1e} | {:.1e} | {:.1e} | {:.1e} | {:.1e} |",
        c.symbol,
        c.damping.map_or("all".to_string(), |d| d.to_string()),
        c.states,
        c.extrapolated,
        c.refused,
        100.0 * c.coverage,
        c.median_error_to_half_width,
        c.within_1e7,
        c.median_error,
        c.max_error,
        c.median_half_width,
        c.p90_half_width,
        c.median_gain,
        c.median_b_mismatch,
    );
}

/// The state closest to (μ, θ0, θ̇0, c_d) among the standard ones.
fn nearest(a: &ExtrapolationAtlas, target: [f64; 4]) -> Option<&StateExtrapolation> {
    let d = |s: &StateExtrapolation| {
        let i = &s.impact;
        (i.mu - target[0]).powi(2) / 10.0
            + (i.theta0 - target[1]).powi(2)
            + (i.omega0 - target[2]).powi(2)
            + (i.damping - target[3]).powi(2)
    };
    a.per_state
        .iter()
        .filter(|s| s.is_standard())
        .min_by(|x, y| d(x).total_cmp(&d(y)))
}

/// summary.md.
pub(crate) fn render_extrapolation_summary(
    spec: &RodExperiment,
    a: &ExtrapolationAtlas,
    run_time_s: Option<f64>,
) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# {}: the κ → 0 extrapolation against the closed-form rigid limit\n",
        a.experiment
    );
    let _ = writeln!(
        s,
        "{}; per-state results in `{STATES_CSV}`. \
         {} initial states × κ ∈ [{:e}, {:e}] ({} values), integrator {}, rtol {:e}, atol {:e}: {} runs ({} failed).{} \
         Method and derivations: docs/extrapolation.md.\n",
        provenance(&spec.name),
        a.states,
        a.kappas.iter().copied().fold(f64::MAX, f64::min),
        a.kappas.iter().copied().fold(f64::MIN, f64::max),
        a.kappas.len(),
        a.integrator,
        spec.solver.rtol,
        spec.solver.atol,
        a.runs,
        a.failed_runs,
        run_time_s
            .map(|t| format!(" The simulations took {t:.1} s (meta.json)."))
            .unwrap_or_default()
    );
    let _ = writeln!(
        s,
        "Each state's ladder of every quantity is extrapolated to κ → 0 by `analysis::extrapolate` (with the damped slide's \
         extra power κ^q, q = ½ + |σ|/(2λ), where c_d > 0) and compared with the closed form of `RigidLimit`. \
         Validated: the {} of {} states whose every run succeeded with the sequence slide → stick → reverse slip → \
         lift-off. \"Coverage\" is the share of extrapolations whose ≈ 95 % interval contains the closed form; errors and \
         half-widths are relative to |closed form|; \"gain\" is |error at the smallest κ| / |extrapolation error|; \
         \"b mismatch\" is |b fitted − b derived| / max(|b derived|, 10⁻³ |closed form|). The values' own accuracy \
         (integration error at rtol {:e}) is not in these intervals (one integrator); see docs/extrapolation.md §3.3.\n",
        a.standard_states,
        a.states,
        spec.solver.rtol
    );
    let header = "| quantity | c_d | states | extrapolated | refused | coverage | median error/half-width | ≤ 1e-7 | median error | max error | median half-width | 90 % half-width | median gain | median b mismatch |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|";
    let _ = writeln!(s, "## Coverage and size of the intervals\n\n{header}");
    for c in a.coverage.iter().filter(|c| c.damping.is_none()) {
        coverage_row(&mut s, c);
    }
    let _ = writeln!(s, "\n### By dashpot c_d\n\n{header}");
    for c in a.coverage.iter().filter(|c| c.damping.is_some()) {
        coverage_row(&mut s, c);
    }
    // Refusal reasons.
    let refusals: Vec<(&StateExtrapolation, &QuantityConvergence)> = a
        .per_state
        .iter()
        .filter(|s| s.is_standard())
        .flat_map(|s| s.quantities.iter().map(move |q| (s, q)))
        .filter(|(_, q)| q.refusal.is_some())
        .collect();
    let _ = writeln!(s, "\n## Refusals\n");
    if refusals.is_empty() {
        let _ = writeln!(s, "None.");
    } else {
        let (mu_lo, mu_hi) = refusals
            .iter()
            .fold((f64::MAX, f64::MIN), |(l, h), (st, _)| {
                (l.min(st.impact.mu), h.max(st.impact.mu))
            });
        let _ = writeln!(
            s,
            "{} extrapolations refused, at μ ∈ [{mu_lo:.3}, {mu_hi:.3}]. The first five:\n",
            refusals.len()
        );
        for (st, q) in refusals.iter().take(5) {
            let _ = writeln!(
                s,
                "- μ = {:.4}, θ0 = {:.4}, θ̇0 = {}, c_d = {}, {}: {}",
                st.impact.mu,
                st.impact.theta0,
                st.impact.omega0,
                st.impact.damping,
                q.symbol,
                q.refusal.as_deref().unwrap_or_default()
            );
        }
    }
    let misses: Vec<(&StateExtrapolation, &QuantityConvergence)> = a
        .per_state
        .iter()
        .filter(|s| s.is_standard())
        .flat_map(|s| s.quantities.iter().map(move |q| (s, q)))
        .filter(|(_, q)| q.covers_closed_form() == Some(false))
        .collect();
    let _ = writeln!(s, "\n## Intervals that miss the closed form\n");
    let mut misses = misses;
    misses.sort_by(|x, y| {
        let r = |q: &QuantityConvergence| {
            q.extrapolation_error().unwrap_or(0.0).abs() / q.relative_half_width().unwrap_or(1.0)
        };
        r(y.1).total_cmp(&r(x.1))
    });
    let _ = writeln!(
        s,
        "{} of the extrapolations. The ten worst by |error| / half-width:\n\n| μ | θ0 | θ̇0 | c_d | quantity | error | half-width | error/half-width | model (points) |\n|---|---|---|---|---|---|---|---|---|",
        misses.len()
    );
    for (st, q) in misses.iter().take(10) {
        let (err, hw) = (
            q.extrapolation_error().unwrap_or(f64::NAN),
            q.relative_half_width().unwrap_or(f64::NAN),
        );
        let e = q.extrapolation.as_ref();
        let _ = writeln!(
            s,
            "| {:.4} | {:.4} | {} | {} | {} | {err:.2e} | {hw:.2e} | {:.2} | {} ({}) |",
            st.impact.mu,
            st.impact.theta0,
            st.impact.omega0,
            st.impact.damping,
            q.symbol,
            err.abs() / hw,
            e.map_or(String::new(), |e| e.formula.clone()),
            e.map_or(0, |e| e.points)
        );
    }
    // The derived b against the fitted b at three states.
    let _ = writeln!(
        s,
        "\n## The log coefficient b: derived against fitted\n\n\
         b derived: docs/extrapolation.md eq. (2.10); b fitted: the coefficient of √κ ln(1/κ) of the chosen model. \
         The three states nearest Zhao–Liu's (μ = 2, θ0 = 1.3, θ̇0 = 0, c_d = 0), a rotating one (μ = 5, θ0 = 0.8, \
         θ̇0 = 0.5, c_d = 0) and a damped one (μ = 8, θ0 = 0.7, θ̇0 = −0.5, c_d = 0.5) in the grid:\n"
    );
    let _ = writeln!(
        s,
        "| μ | θ0 | θ̇0 | c_d | quantity | b fitted | b derived | c fitted | closed form | extrapolated |\n|---|---|---|---|---|---|---|---|---|---|"
    );
    for target in [
        [2.0, 1.3, 0.0, 0.0],
        [5.0, 0.8, 0.5, 0.0],
        [8.0, 0.7, -0.5, 0.5],
    ] {
        let Some(st) = nearest(a, target) else {
            continue;
        };
        for q in &st.quantities {
            let f = |v: Option<f64>| v.map_or("—".into(), |v| format!("{v:.6}"));
            let _ = writeln!(
                s,
                "| {:.4} | {:.4} | {} | {} | {} | {} | {} | {} | {} | {} |",
                st.impact.mu,
                st.impact.theta0,
                st.impact.omega0,
                st.impact.damping,
                q.symbol,
                f(q.fitted_log_coefficient()),
                f(q.predicted_log_coefficient),
                f(q.fitted_sqrt_coefficient()),
                q.closed_form.map_or("—".into(), |v| format!("{v:.10}")),
                q.extrapolation
                    .as_ref()
                    .map_or("refused".into(), |e| format!(
                        "{:.10} ± {:.1e}",
                        e.limit, e.half_width
                    )),
            );
        }
    }
    let _ = writeln!(
        s,
        "\nFigures: extrapolation_coverage.png (per quantity, |extrapolated − closed form| against the half-width, both \
         relative, log–log: points below the diagonal are covered); log_coefficients.png (b fitted against b derived)."
    );
    s
}

/// The two figures.
pub(crate) fn write_extrapolation_figures(
    a: &ExtrapolationAtlas,
    dir: &Path,
) -> Result<(), String> {
    // Per quantity: (c_d, convergence) of every standard state with an extrapolation.
    type ByDamping<'a> = Vec<(f64, &'a QuantityConvergence)>;
    let qs: Vec<(RodQuantity, ByDamping)> = RodQuantity::ALL
        .iter()
        .map(|q| {
            (
                *q,
                a.per_state
                    .iter()
                    .filter(|s| s.is_standard())
                    .filter_map(|s| {
                        Some((
                            s.impact.damping,
                            s.quantities.iter().find(|c| c.quantity == *q)?,
                        ))
                    })
                    .filter(|(_, c)| c.extrapolation.is_some() && c.closed_form.is_some())
                    .collect(),
            )
        })
        .collect();
    let dampings: Vec<f64> = {
        let mut d: Vec<f64> = a.per_state.iter().map(|s| s.impact.damping).collect();
        d.sort_by(f64::total_cmp);
        d.dedup();
        d
    };
    let mut coverage_panels = Vec::new();
    let mut b_panels = Vec::new();
    for (q, cs) in &qs {
        let mut series = Vec::new();
        let mut b_series = Vec::new();
        let (mut lo, mut hi) = (f64::MAX, f64::MIN);
        for (j, d) in dampings.iter().enumerate() {
            let mine: Vec<&QuantityConvergence> = cs
                .iter()
                .filter(|(cd, _)| cd == d)
                .map(|(_, c)| *c)
                .collect();
            let pts: Vec<(f64, f64)> = mine
                .iter()
                .filter_map(|c| Some((c.relative_half_width()?, c.extrapolation_error()?.abs())))
                .collect();
            for p in &pts {
                lo = lo.min(p.0.min(p.1));
                hi = hi.max(p.0.max(p.1));
            }
            series.push(Series::new(
                format!("damping c_d = {d}"),
                pts,
                Mark::Markers,
                j,
            ));
            b_series.push(Series {
                label: format!("damping c_d = {d}"),
                // b = 0 exactly where nothing drifts (T_stick/√κ at θ̇0 = 0): left out of the
                // log–log panel (the central difference leaves ~1e-12 there).
                points: mine
                    .iter()
                    .filter_map(|c| {
                        Some((
                            c.predicted_log_coefficient?.abs(),
                            c.fitted_log_coefficient()?.abs(),
                        ))
                    })
                    .filter(|(derived, _)| *derived > 1e-8)
                    .collect(),
                mark: Mark::Markers,
                color: j,
            });
        }
        if lo < hi {
            series.push(Series::new(
                "error = half-width",
                vec![(lo, lo), (hi, hi)],
                Mark::Line,
                6,
            ));
        }
        let b_all: Vec<f64> = b_series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0))
            .filter(|v| *v > 0.0)
            .collect();
        if let (Some(bl), Some(bh)) = (
            b_all.iter().copied().reduce(f64::min),
            b_all.iter().copied().reduce(f64::max),
        ) {
            b_series.push(Series::new(
                "fitted = derived",
                vec![(bl, bl), (bh, bh)],
                Mark::Line,
                6,
            ));
        }
        coverage_panels.push(Panel {
            title: format!("{}: {} extrapolations", q.axis_label(), cs.len()),
            x_label: "95 % half-width / |closed form|".into(),
            y_label: "|extrapolated − closed form| / |closed form|".into(),
            log_x: true,
            log_y: true,
            legend_lower: false,
            series,
            bands: Vec::new(),
        });
        b_panels.push(Panel {
            title: format!(
                "{}: log coefficient b (where b derived ≠ 0)",
                q.axis_label()
            ),
            x_label: "|b derived| (eq. 2.10)".into(),
            y_label: "|b fitted|".into(),
            log_x: true,
            log_y: true,
            legend_lower: false,
            series: b_series,
            bands: Vec::new(),
        });
    }
    save_captioned(
        &Figure {
            panels: coverage_panels,
            columns: 3,
            size: (1800, 1150),
        },
        "Relative error of each extrapolated limit against its relative 95 % half-width, per quantity: below the diagonal the interval covers the closed form",
        dir,
        "extrapolation_coverage",
    )?;
    save_captioned(
        &Figure {
            panels: b_panels,
            columns: 3,
            size: (1800, 1150),
        },
        "The fitted coefficient b of √κ ln(1/κ) against the derived one (eq. 2.10), per quantity",
        dir,
        "log_coefficients",
    )
}
