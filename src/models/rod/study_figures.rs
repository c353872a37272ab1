//! Figures of an integrator study: work–precision diagrams (error vs wall time and vs RHS
//! evaluations, one line per integrator) and cost vs κ. An integrator has the same colour and
//! marker in every figure (its place in [`crate::integrate::IntegratorKind::ALL`]).

use super::figures::kappa_panel;
use crate::models::rod::study_analysis::{quantities, ConfigAnalysis, ErrorKind, StudyAnalysis};
use crate::plot::style::{format_small_parameter, format_value};
use crate::plot::{save_captioned, Figure, Mark, Panel, Series};
use crate::report::work_precision::integrator_index;
use std::path::Path;

/// A file-name stem for a configuration: `impact_1e-6_0`.
pub fn config_stem(c: &ConfigAnalysis) -> String {
    format!("{}_{:.0e}_{}", c.scenario, c.kappa, c.damping)
}

fn integrators_of(c: &ConfigAnalysis) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for r in &c.runs {
        if !out.contains(&r.integrator.as_str()) {
            out.push(&r.integrator);
        }
    }
    out
}

/// A quantity's symbol and whether its error is relative.
fn quantity_label(kind: &str, q: &str) -> String {
    let symbol = match q {
        "t_slide" => "slide duration",
        "t_stick" => "stick duration",
        "t_reverse_slip" => "reverse-slip duration",
        "u_out" => "post-impact u",
        "v_out" => "post-impact v",
        "omega_out" => "post-impact θ̇",
        "q(t_k)" => "positions q at the output times t_k",
        "qdot(t_k)" => "velocities q̇ at the output times t_k",
        other => other,
    };
    let relative = quantities(kind)
        .iter()
        .any(|(name, k)| *name == q && matches!(k, ErrorKind::Relative));
    if relative {
        format!("{symbol} (relative error)")
    } else {
        format!("{symbol} (absolute error)")
    }
}

fn x_label(by_rhs: bool) -> String {
    if by_rhs {
        "right-hand-side evaluations".into()
    } else {
        "wall time (s, median of repeats)".into()
    }
}

/// A run's plotted error from its per-quantity errors and its largest error.
type ErrorOf<'a> = dyn Fn(&[Option<f64>], Option<f64>) -> Option<f64> + 'a;

/// One line per integrator: (cost, error) over its tolerances; an error of exactly 0
/// (agreement to the last bit) is drawn hollow on the axis.
fn integrator_series(c: &ConfigAnalysis, by_rhs: bool, error: &ErrorOf) -> Vec<Series> {
    let mut names = integrators_of(c);
    names.sort_by_key(|n| integrator_index(n));
    names
        .iter()
        .map(|&i| Series {
            label: i.to_string(),
            points: c
                .runs
                .iter()
                .filter(|r| r.integrator == i)
                .filter_map(|r| {
                    let x = if by_rhs { r.rhs_evals? } else { r.wall_time_s? };
                    Some((x, error(&r.errors, r.max_error)?))
                })
                .collect(),
            mark: Mark::LineMarkers,
            color: integrator_index(i),
        })
        .collect()
}

fn wp_panel(title: String, by_rhs: bool, y_label: String, series: Vec<Series>) -> Panel {
    Panel {
        title,
        x_label: x_label(by_rhs),
        y_label,
        log_x: true,
        log_y: true,
        legend_lower: true,
        series,
        bands: Vec::new(),
    }
}

/// Work–precision figure of one configuration, one panel per quantity, against wall time
/// (`by_rhs` false) or RHS evaluations.
fn work_precision(c: &ConfigAnalysis, by_rhs: bool) -> Figure {
    let panels = c
        .quantities
        .iter()
        .enumerate()
        .map(|(q, name)| {
            wp_panel(
                quantity_label(&c.kind, name),
                by_rhs,
                "error against the reference".into(),
                integrator_series(c, by_rhs, &move |e, _| e[q]),
            )
        })
        .collect::<Vec<_>>();
    let columns = if panels.len() > 2 { 3 } else { panels.len() };
    let rows = panels.len().div_ceil(columns) as u32;
    Figure {
        panels,
        columns,
        size: (520 * columns as u32, 420 * rows + 70),
    }
}

/// All configurations of a scenario in one figure, one panel per κ: the largest error over
/// the quantities against cost.
fn work_precision_by_kappa(configs: &[&ConfigAnalysis], by_rhs: bool) -> Figure {
    let panels: Vec<Panel> = configs
        .iter()
        .map(|c| {
            wp_panel(
                format!(
                    "κ = {}, damping c_d = {}",
                    format_small_parameter(c.kappa),
                    format_value(c.damping)
                ),
                by_rhs,
                "largest error (q, q̇ over output times)".into(),
                integrator_series(c, by_rhs, &|_, max| max),
            )
        })
        .collect();
    let columns = 3.min(panels.len()).max(1);
    let rows = panels.len().div_ceil(columns) as u32;
    Figure {
        panels,
        columns,
        size: (520 * columns as u32, 400 * rows + 70),
    }
}

fn study_caption(what: &str) -> String {
    format!("integrators · {what} · errors against the reference integrators at tight tolerance")
}

/// Cost vs κ at the study's cost tolerance, one panel per measure, with the fitted exponents.
fn cost_figure(a: &StudyAnalysis, scenario: &str) -> Figure {
    let measures = [
        ("rhs_evals", "right-hand-side evaluations"),
        ("lu_factorisations", "LU factorisations"),
        ("wall_time_s", "wall time (s)"),
    ];
    let panels = measures
        .iter()
        .map(|&(m, label)| {
            let mut p = kappa_panel(label, label, true, true);
            let mut rows: Vec<_> = a
                .cost_exponents
                .iter()
                .filter(|e| e.scenario == scenario && e.measure == m)
                .collect();
            rows.sort_by_key(|e| integrator_index(&e.integrator));
            for e in rows {
                let fit = e
                    .fit
                    .map(|f| format!(", cost ∝ κ^p, p = {:.2}", f.slope))
                    .unwrap_or_default();
                p.series.push(Series {
                    label: format!("{}{fit}", e.integrator),
                    points: e.points.clone(),
                    mark: Mark::LineMarkers,
                    color: integrator_index(&e.integrator),
                });
            }
            p
        })
        .collect();
    Figure {
        panels,
        columns: 3,
        size: (1700, 560),
    }
}

pub fn write_study_figures(a: &StudyAnalysis, dir: &Path) -> Result<(), String> {
    // Sustained contact: one figure over κ; other scenarios: one figure per configuration.
    let sustained: Vec<&ConfigAnalysis> = a
        .configs
        .iter()
        .filter(|c| c.scenario == "sustained")
        .collect();
    for c in a.configs.iter().filter(|c| c.scenario != "sustained") {
        let stem = config_stem(c);
        let what = format!(
            "{} scenario, κ = {}, damping c_d = {}",
            c.scenario,
            format_small_parameter(c.kappa),
            format_value(c.damping)
        );
        for (by_rhs, suffix) in [(false, "time"), (true, "rhs")] {
            save_captioned(
                &work_precision(c, by_rhs),
                &study_caption(&what),
                dir,
                &format!("wp_{stem}_{suffix}"),
            )?;
        }
    }
    if !sustained.is_empty() {
        for (by_rhs, suffix) in [(false, "time"), (true, "rhs")] {
            save_captioned(
                &work_precision_by_kappa(&sustained, by_rhs),
                &study_caption("sustained-contact scenario"),
                dir,
                &format!("wp_sustained_{suffix}"),
            )?;
        }
    }
    let mut scenarios: Vec<&str> = Vec::new();
    for e in &a.cost_exponents {
        if !scenarios.contains(&e.scenario.as_str()) {
            scenarios.push(&e.scenario);
        }
    }
    for s in scenarios {
        save_captioned(
            &cost_figure(a, s),
            &study_caption(&format!(
                "{s} scenario, cost at rtol {}",
                format_small_parameter(a.cost_rtol)
            )),
            dir,
            &format!("cost_vs_kappa_{s}"),
        )?;
    }
    Ok(())
}
