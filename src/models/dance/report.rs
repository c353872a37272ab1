//! The Dance experiment's outputs besides runs.csv: the tables its figures read (written after
//! the runs, by the run stage: they need the series and the numerics) and the report
//! (summary.md and figures, from runs.csv and those tables only).

use super::compliant_report;
use super::study::{self, SeriesFacts};
use super::{Dance, PARTIAL_SUM_DEGREE};
use crate::cells;
use crate::experiment::grammar::MethodKind;
use crate::experiment::model::SweepSpec;
use crate::experiment::runner::{write_atomically, RunError};
use crate::experiment::table::Row;
use crate::integrate::Tolerances;
use crate::plot::{save, Figure, Mark, Panel, Series};
use crate::report::table::Table;
use crate::report::table::{column, read_numbers};
use std::fmt::Write;
use std::path::Path;

const COEFFICIENTS_CSV: &str = "coefficients.csv";
const TRUNCATION_CSV: &str = "truncation.csv";
const PARTIAL_SUMS_CSV: &str = "partial_sums.csv";
const TRAJECTORY_CSV: &str = "trajectory.csv";

fn failed(message: String) -> RunError {
    RunError::Io {
        path: "dance tables".to_string(),
        source: std::io::Error::other(message),
    }
}

/// Write coefficients.csv, truncation.csv, partial_sums.csv and trajectory.csv for every μ.
pub fn write_tables(spec: &SweepSpec<Dance>, dir: &Path) -> Result<(), RunError> {
    let p = &spec.params;
    let integrator = spec.solver.integrators[0];
    let tol = Tolerances {
        rtol: spec.solver.rtol,
        atol: spec.solver.atol,
    };
    let mut coefficients = Table::new([
        "mu",
        "n",
        "power",
        "log10_abs",
        "log10_abs_3n_over_nfact",
        "log10_abs_fit_normalised",
        "log10_abs_radius_normalised",
    ]);
    let mut truncation = Table::new([
        "mu",
        "t",
        "optimal_value",
        "smallest_term",
        "smallest_power",
        "rigid_v1",
        "abs_error",
    ]);
    let mut partial = Table::new(["mu", "degree", "abs_gap_at_half"]);
    let mut trajectory = Table::new(["mu", "t", "source", "u1", "u2", "v1", "v2"]);
    for &mu in &spec.sweep.mu {
        let facts = SeriesFacts::compute(mu, p.series_degree).map_err(|e| failed(e.to_string()))?;
        let ln10 = std::f64::consts::LN_10;
        for (n, &ln) in facts.odd.ln_abs.iter().enumerate() {
            let nf = n as f64;
            let factorial = statrs::function::gamma::ln_gamma(nf + 1.0);
            let fitted = facts.growth.map(|g| {
                (ln + nf * g.a.ln() - statrs::function::gamma::ln_gamma(nf + g.beta)) / ln10
            });
            // A convergent series' |c_n| |x_s|ⁿ (x = t², |x_s| = R²) varies only as a power of n.
            let radius_normalised = facts.radius.map(|r| (ln + nf * r.radius.ln()) / ln10);
            coefficients.push(cells![
                mu,
                n,
                2 * n + 1,
                ln / ln10,
                (ln + nf * 3f64.ln() - factorial) / ln10,
                fitted,
                radius_normalised
            ]);
        }
        // Rigid numerics on the truncation window, at .5 and on (t₀, 1] for the trajectory.
        let mut times = study::truncation_times();
        let grid: Vec<f64> = (1..=40).map(|i| f64::from(i) * 0.025).collect();
        times.extend(grid.iter().copied());
        times.retain(|&t| t > p.t_series);
        times.sort_by(f64::total_cmp);
        times.dedup_by(|a, b| (*a - *b).abs() < 1e-12);
        let (states, _) =
            super::rigid::rigid_from_series(mu, &facts.logs, p.t_series, &times, integrator, tol)
                .map_err(|e| failed(e.to_string()))?;
        for s in &states {
            let o = facts.logs.state_at(s.t).parallel_velocity;
            let in_window = (0.35 - 1e-12..=0.6 + 1e-12).contains(&s.t);
            if in_window && !o.at_last_coefficient {
                truncation.push(cells![
                    mu,
                    s.t,
                    o.value,
                    o.smallest_term,
                    o.smallest_power,
                    s.v[0],
                    (o.value - s.v[0]).abs()
                ]);
            }
            if grid.iter().any(|g| (g - s.t).abs() < 1e-12) {
                trajectory.push(cells![mu, s.t, "rigid", s.u[0], s.u[1], s.v[0], s.v[1]]);
            }
            if (s.t - 0.5).abs() < 1e-12 {
                for (k, gap) in
                    study::partial_sum_gaps(&facts.logs, 0.5, s.v[0], PARTIAL_SUM_DEGREE)
                {
                    partial.push(cells![mu, k, gap]);
                }
            }
        }
        for i in 0..=30 {
            // log-spaced series samples from 1e-3 to t₀
            let t = 1e-3 * (p.t_series / 1e-3).powf(f64::from(i) / 30.0);
            let s = facts.logs.state_at(t).state;
            trajectory.push(cells![mu, t, "series", s.u[0], s.u[1], s.v[0], s.v[1]]);
        }
    }
    if spec.params.method == MethodKind::Compliant {
        let velocity = study::compliant_velocity_csv(spec).map_err(|e| failed(e.to_string()))?;
        write_atomically(&dir.join(compliant_report::VELOCITY_CSV), &velocity)?;
    }
    for (name, text) in [
        (COEFFICIENTS_CSV, &coefficients),
        (TRUNCATION_CSV, &truncation),
        (PARTIAL_SUMS_CSV, &partial),
        (TRAJECTORY_CSV, &trajectory),
    ] {
        write_atomically(&dir.join(name), &text.to_csv())?;
    }
    Ok(())
}

/// summary.md and the three figures.
pub fn write_report(spec: &SweepSpec<Dance>, rows: &[Row], dir: &Path) -> Result<(), RunError> {
    let mut s = String::new();
    let p = &spec.params;
    let _ = writeln!(
        s,
        "# {}: Dance's particle starting to slide (rigid)\n",
        spec.name
    );
    let _ = writeln!(
        s,
        "Generated by `rigid-limit run experiments/{}.toml` (or `rigid-limit reproduce`). \
         Derivations: docs/dance.md. v' = (1, t) − μ v/|v| from rest, slip along (1, 0); the \
         formal series to t^{} (256-bit floats, checked at 352 bits), the rigid slide from its \
         optimal truncation at t₀ = {} with rtol {:e}, atol {:e}. Rigid rows have no \
         compliance: their `kappa` cell (1) is a placeholder.\n",
        spec.name, p.series_degree, p.t_series, spec.solver.rtol, spec.solver.atol
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
            r.text("v_at_half"),
            r.text("v_at_1"),
            r.text("v_at_2"),
            r.number("v_rtol_change").unwrap_or(f64::NAN),
            r.number("start_smallest_term").unwrap_or(f64::NAN),
        );
    }
    let _ = writeln!(s, "\n## What the coefficients say\n");
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
    if !compliant_rows.is_empty() {
        compliant_report::write_section(&mut s, spec, &compliant_rows);
    }
    write_atomically(&dir.join("summary.md"), &s)?;
    write_figures(spec, dir).map_err(failed)?;
    if !compliant_rows.is_empty() {
        compliant_report::write_figures(spec, &compliant_rows, dir).map_err(failed)?;
    }
    Ok(())
}

fn write_figures(spec: &SweepSpec<Dance>, dir: &Path) -> Result<(), String> {
    let table = |name| read_numbers(&dir.join(name)).map_err(|e| e.to_string());
    let mus = &spec.sweep.mu;
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
            growth.push(Series {
                label: format!("μ = {mu}: log₁₀(|c_n| 3ⁿ/n!)"),
                points: by_mu(&rows, mu, n, plain),
                mark: Mark::Line,
                color: i,
            });
            growth.push(Series {
                label: format!("μ = {mu}: log₁₀(|c_n| Aⁿ/Γ(n+β)) → log₁₀ K"),
                points: f,
                mark: Mark::Dashed,
                color: i + 3,
            });
        }
        let r = by_mu(&rows, mu, n, by_radius);
        if !r.is_empty() {
            growth.push(Series {
                label: format!("μ = {mu}: log₁₀(|c_n| R²ⁿ) (convergent, R fitted)"),
                points: r,
                mark: Mark::Line,
                color: i,
            });
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
    save(
        &Figure {
            panels: vec![
                panel(
                    "coefficients c_n of t^(2n+1) in v₁",
                    "n",
                    "log₁₀ of the normalised |c_n|",
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
        ratio.push(Series {
            label: format!("μ = {mu}"),
            points: e.iter().zip(&m).map(|(a, b)| (a.0, a.1 / b.1)).collect(),
            mark: Mark::LineMarkers,
            color: i,
        });
        trunc.push(Series {
            label: format!("μ = {mu}: |optimal truncation − rigid v₁|"),
            points: e,
            mark: Mark::Markers,
            color: i,
        });
        trunc.push(Series {
            label: format!("μ = {mu}: smallest term"),
            points: m,
            mark: Mark::Line,
            color: i + 1,
        });
    }
    save(
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
    save(
        &Figure {
            panels: vec![panel(
                &format!(
                    "rigid slide from rest: series for t < {}, numerics after",
                    spec.params.t_series
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
        dir,
        "rigid_start",
    )
}
