//! The sections of a Dance summary that only this particle has, after the generic convergence
//! report (`Dance::report_sections`; the distances' rates and convergence.png are the study's,
//! from `Dance::reported_quantities`): the rigid slide and its formal series (coefficients,
//! growth or radius, optimal truncation, partial sums) with coefficients.png, truncation.png
//! and rigid_start.png, then the compliant runs' physics ([`compliant_report`]). From runs.csv
//! and the tables the run stage writes beside it (`super::study::side_tables`: they need the
//! series and the numerics). No solver here.

use super::compliant_report;
use super::{Params, PARTIAL_SUM_DEGREE};
use crate::experiment::runner::RunError;
use crate::experiment::table::Row;
use crate::integrate::IntegratorKind;
use crate::plot::{save_captioned, Figure, Mark, Panel, Series};
use crate::report::markdown::{each_number, fixed};
use crate::report::table::{column, read_numbers};
use std::fmt::Write;
use std::path::Path;

/// The tables of the figures, by name.
pub(crate) const COEFFICIENTS_CSV: &str = "coefficients.csv";
pub(crate) const TRUNCATION_CSV: &str = "truncation.csv";
pub(crate) const PARTIAL_SUMS_CSV: &str = "partial_sums.csv";
pub(crate) const TRAJECTORY_CSV: &str = "trajectory.csv";

fn failed(message: String) -> RunError {
    RunError::Io {
        path: "dance tables".to_string(),
        source: std::io::Error::other(message),
    }
}

/// The Dance sections of summary.md (the rigid slide, then the compliant runs' physics) and
/// their figures: coefficients.png, truncation.png, rigid_start.png and, with compliant rows,
/// compliant_velocity.png.
pub fn sections(
    p: &Params,
    integrators: &[IntegratorKind],
    rows: &[Row],
    dir: &Path,
) -> Result<String, RunError> {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "## Rigid slide\n\nDerivations: docs/dance.md. v' = (1, t) − μ v/|v| from rest, slip \
         along (1, 0); the formal series to t^{} (256-bit floats, checked at 352 bits), the rigid \
         slide from its optimal truncation at t₀ = {}. Rigid rows have no compliance: their \
         `kappa` cell (1) is a placeholder.\n",
        p.series_degree, p.t_series,
    );
    let _ = writeln!(s, "| μ | integrator | series | digits (256 vs 352 bits) | v(.5) | v(1) | v(2) | change at rtol/10 | smallest term at t₀ |");
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|");
    let compliant_rows: Vec<&Row> = rows
        .iter()
        .filter(|r| r.text("method") == "compliant")
        .collect();
    let rows: Vec<&Row> = rows
        .iter()
        .filter(|r| r.text("method") != "compliant")
        .collect();
    for r in &rows {
        if r.text("status") != "ok" {
            let _ = writeln!(
                s,
                "| {} | {} | failed: {} | | | | | | |",
                r.text("mu"),
                r.text("integrator"),
                r.text("error")
            );
            continue;
        }
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {:.1e} | {:.1e} |",
            r.text("mu"),
            r.text("integrator"),
            r.text("series_kind"),
            r.text("series_digits"),
            each_number(r.text("v_at_half"), |v| fixed(v, 12)),
            each_number(r.text("v_at_1"), |v| fixed(v, 12)),
            each_number(r.text("v_at_2"), |v| fixed(v, 12)),
            r.number("v_rtol_change").unwrap_or(f64::NAN),
            r.number("start_smallest_term").unwrap_or(f64::NAN),
        );
    }
    let _ = writeln!(s, "\n### What the coefficients say\n");
    let mut seen = Vec::new();
    for r in rows.iter().filter(|r| r.text("status") == "ok") {
        let mu = r.text("mu").to_string();
        if seen.contains(&mu) {
            continue;
        }
        seen.push(mu.clone());
        match r.text("series_kind") {
            "divergent" => {
                let _ = writeln!(
                    s,
                    "- μ = {mu}: |[v^∥]_(2n+1)| ~ K Γ(n + β)/Aⁿ with A = {:.8} (± {:.1e}), β = {:.5} \
                     (± {:.1e}), ln K = {:.4} (fit of the ratios on n ∈ [n_max/4, n_max); ± is the \
                     change on the upper half). Optimal-truncation error / smallest term on \
                     t ∈ [.35, .6]: {:.3} … {:.3}. The partial sum to t^{PARTIAL_SUM_DEGREE} at t = .5 \
                     is off by {:.2e} (past the optimal truncation the terms grow).",
                    r.number("growth_A").unwrap_or(f64::NAN),
                    r.number("growth_A_spread").unwrap_or(f64::NAN),
                    r.number("growth_beta").unwrap_or(f64::NAN),
                    r.number("growth_beta_spread").unwrap_or(f64::NAN),
                    r.number("growth_ln_K").unwrap_or(f64::NAN),
                    r.number("truncation_ratio_min").unwrap_or(f64::NAN),
                    r.number("truncation_ratio_max").unwrap_or(f64::NAN),
                    r.number("partial_sum_gap_half").unwrap_or(f64::NAN),
                );
            }
            "convergent" => {
                let _ = writeln!(
                    s,
                    "- μ = {mu}: convergent; the ratios of the t²-coefficients tend to a negative \
                     limit: singularities at t = ± i R, R = {:.6} (± {:.1e}). At t = .5 the partial \
                     sum to t^{PARTIAL_SUM_DEGREE} is within {:.1e} of the rigid numerics \
                     (partial_sums.csv, figure coefficients.png).",
                    r.number("radius_t").unwrap_or(f64::NAN),
                    r.number("radius_t_spread").unwrap_or(f64::NAN),
                    r.number("partial_sum_gap_half").unwrap_or(f64::NAN),
                );
            }
            other => {
                let _ = writeln!(s, "- μ = {mu}: series {other}.");
            }
        }
    }
    let _ = writeln!(
        s,
        "\nFigures: coefficients.png (normalised coefficients; partial sums at t = .5), \
         truncation.png (optimal-truncation error and smallest term vs t), rigid_start.png \
         (v(t) near 0: series below t₀, rigid numerics above). Tables: coefficients.csv, \
         truncation.csv, partial_sums.csv, trajectory.csv."
    );
    write_figures(p, &mus(&rows), dir).map_err(failed)?;
    if !compliant_rows.is_empty() {
        let integrator = integrators
            .first()
            .map(|&first| super::compliant_integrator(p, first));
        compliant_report::write_section(&mut s, p, integrator, &compliant_rows);
        compliant_report::write_figures(integrator, &compliant_rows, dir).map_err(failed)?;
    }
    Ok(s)
}

/// The μ of the experiment: those of its rigid rows, in their order.
fn mus(rigid_rows: &[&Row]) -> Vec<f64> {
    let mut mus = Vec::new();
    for mu in rigid_rows.iter().filter_map(|r| r.number("mu")) {
        if !mus.contains(&mu) {
            mus.push(mu);
        }
    }
    mus
}

fn write_figures(p: &Params, mus: &[f64], dir: &Path) -> Result<(), String> {
    let table = |name| read_numbers(&dir.join(name)).map_err(|e| e.to_string());
    let by_mu = |rows: &[Vec<f64>], mu: f64, x: usize, y: usize| -> Vec<(f64, f64)> {
        let mut points: Vec<(f64, f64)> = rows
            .iter()
            .filter(|r| r[0] == mu && r.get(y).is_some_and(|v| v.is_finite()))
            .map(|r| (r[x], r[y]))
            .collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        points
    };
    let panel = |title: &str, x: &str, y: &str, log_x: bool, log_y: bool, series| Panel {
        title: title.to_string(),
        x_label: x.to_string(),
        y_label: y.to_string(),
        log_x,
        log_y,
        legend_lower: false,
        series,
        bands: Vec::new(),
    };
    // Coefficients.
    let (h, rows) = table(COEFFICIENTS_CSV)?;
    let (n, plain, fitted, by_radius) = (
        column(&h, "n"),
        column(&h, "log10_abs_3n_over_nfact"),
        column(&h, "log10_abs_fit_normalised"),
        column(&h, "log10_abs_radius_normalised"),
    );
    let mut growth = Vec::new();
    for (i, &mu) in mus.iter().enumerate() {
        let f = by_mu(&rows, mu, n, fitted);
        if !f.is_empty() {
            growth.push(Series::new(
                format!("μ = {mu}: log₁₀(|cₙ| 3ⁿ/n!)"),
                by_mu(&rows, mu, n, plain),
                Mark::Line,
                i,
            ));
            growth.push(Series::new(
                format!("μ = {mu}: log₁₀(|cₙ| Aⁿ/Γ(n+β)) → log₁₀ K"),
                f,
                Mark::Dashed,
                i + 3,
            ));
        }
        let r = by_mu(&rows, mu, n, by_radius);
        if !r.is_empty() {
            growth.push(Series::new(
                format!("μ = {mu}: log₁₀(|cₙ| R²ⁿ) (convergent, R fitted)"),
                r,
                Mark::Line,
                i,
            ));
        }
    }
    let (h2, rows2) = table(PARTIAL_SUMS_CSV)?;
    let sums: Vec<Series> = mus
        .iter()
        .enumerate()
        .map(|(i, &mu)| Series {
            label: format!("μ = {mu}"),
            points: by_mu(
                &rows2,
                mu,
                column(&h2, "degree"),
                column(&h2, "abs_gap_at_half"),
            ),
            mark: Mark::LineMarkers,
            color: i,
        })
        .collect();
    save_captioned(
        &Figure {
            panels: vec![
                panel(
                    "coefficients cₙ of t²ⁿ⁺¹ in v₁",
                    "n",
                    "log₁₀ of the normalised |cₙ|",
                    false,
                    false,
                    growth,
                ),
                panel(
                    "partial sums of v₁ at t = 0.5",
                    "degree of the partial sum",
                    "|S(0.5) − v₁(0.5)|",
                    false,
                    true,
                    sums,
                ),
            ],
            columns: 2,
            size: (1400, 560),
        },
        "The coefficients of the formal series of v₁ against their index (left) and the error of its partial sums at t = 0.5 (right), per μ",
        dir,
        "coefficients",
    )?;
    // Optimal truncation.
    let (h, rows) = table(TRUNCATION_CSV)?;
    let (t, err, small) = (
        column(&h, "t"),
        column(&h, "abs_error"),
        column(&h, "smallest_term"),
    );
    let mut trunc = Vec::new();
    let mut ratio = Vec::new();
    for (i, &mu) in mus.iter().enumerate() {
        let e = by_mu(&rows, mu, t, err);
        if e.is_empty() {
            continue;
        }
        let m = by_mu(&rows, mu, t, small);
        ratio.push(Series::new(
            format!("μ = {mu}"),
            e.iter().zip(&m).map(|(a, b)| (a.0, a.1 / b.1)).collect(),
            Mark::LineMarkers,
            i,
        ));
        trunc.push(Series::new(
            format!("μ = {mu}: |optimal truncation − rigid v₁|"),
            e,
            Mark::Markers,
            i,
        ));
        trunc.push(Series::new(
            format!("μ = {mu}: smallest term"),
            m,
            Mark::Line,
            i + 1,
        ));
    }
    save_captioned(
        &Figure {
            panels: vec![
                panel(
                    "optimal truncation of v₁",
                    "t",
                    "|error|, smallest term",
                    false,
                    true,
                    trunc,
                ),
                panel("error / smallest term", "t", "ratio", false, false, ratio),
            ],
            columns: 2,
            size: (1400, 560),
        },
        "The error of the optimally truncated series of v₁ and its smallest term against t (left) and their ratio (right), per μ",
        dir,
        "truncation",
    )?;
    // Rigid v near 0.
    let (h, rows) = table(TRAJECTORY_CSV)?;
    let (t, v1, v2) = (column(&h, "t"), column(&h, "v1"), column(&h, "v2"));
    let mut curves = Vec::new();
    for (i, &mu) in mus.iter().enumerate() {
        for (label, col, mark) in [("v₁", v1, Mark::Line), ("v₂", v2, Mark::Dashed)] {
            curves.push(Series {
                label: format!("μ = {mu}: {label}"),
                points: by_mu(&rows, mu, t, col),
                mark,
                color: 2 * i + usize::from(col == v2),
            });
        }
    }
    save_captioned(
        &Figure {
            panels: vec![panel(
                &format!(
                    "rigid slide from rest: series for t < {}, numerics after",
                    p.t_series
                ),
                "t",
                "v₁, v₂",
                true,
                true,
                curves,
            )],
            columns: 1,
            size: (900, 620),
        },
        "The rigid slide from rest: the truncated series below t₀ and the integrated motion above it",
        dir,
        "rigid_start",
    )
}
