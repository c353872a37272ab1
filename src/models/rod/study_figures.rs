//! Figures of an integrator study: work–precision diagrams (error vs wall time and vs RHS
//! evaluations, one panel per quantity, one line per integrator) and cost vs κ.

use super::figures::kappa_panel;
use crate::models::rod::study_analysis::{ConfigAnalysis, StudyAnalysis};
use crate::plot::{save, Figure, Mark, Panel, Series};
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

/// Work–precision figure of one configuration, against wall time (`by_rhs` false) or RHS
/// evaluations.
fn work_precision(c: &ConfigAnalysis, by_rhs: bool) -> Figure {
    let integrators = integrators_of(c);
    let panels = c
        .quantities
        .iter()
        .enumerate()
        .map(|(q, name)| Panel {
            title: format!("{name} — {}", c.label()),
            x_label: if by_rhs {
                "RHS evaluations".into()
            } else {
                "wall time (s, median)".into()
            },
            y_label: "error vs reference".into(),
            log_x: true,
            log_y: true,
            legend_lower: true,
            series: integrators
                .iter()
                .enumerate()
                .map(|(k, &i)| {
                    let points = c
                        .runs
                        .iter()
                        .filter(|r| r.integrator == i)
                        .filter_map(|r| {
                            let x = if by_rhs { r.rhs_evals? } else { r.wall_time_s? };
                            // A zero error (agreement to the last bit) is drawn at 1e-16.
                            Some((x, r.errors[q]?.max(1e-16)))
                        })
                        .collect();
                    Series {
                        label: i.to_string(),
                        points,
                        mark: Mark::LineMarkers,
                        color: k,
                    }
                })
                .collect(),
            bands: Vec::new(),
        })
        .collect::<Vec<_>>();
    let columns = if panels.len() > 2 { 3 } else { panels.len() };
    let rows = panels.len().div_ceil(columns) as u32;
    Figure {
        panels,
        columns,
        size: (560 * columns as u32, 440 * rows),
    }
}

/// Cost vs κ at the study's cost tolerance, one panel per measure, with the fitted exponents.
fn cost_figure(a: &StudyAnalysis, scenario: &str) -> Figure {
    let measures = [
        ("rhs_evals", "RHS evaluations"),
        ("lu_factorisations", "LU factorisations"),
        ("wall_time_s", "wall time (s)"),
    ];
    let panels = measures
        .iter()
        .map(|&(m, label)| {
            let mut p = kappa_panel(
                &format!("{scenario}: {label} at rtol {:.0e}", a.cost_rtol),
                label,
                true,
                true,
            );
            for (k, e) in a
                .cost_exponents
                .iter()
                .filter(|e| e.scenario == scenario && e.measure == m)
                .enumerate()
            {
                let fit = e
                    .fit
                    .map(|f| format!(" (p = {:.2})", f.slope))
                    .unwrap_or_default();
                p.series.push(Series {
                    label: format!("{}{fit}", e.integrator),
                    points: e.points.clone(),
                    mark: Mark::LineMarkers,
                    color: k,
                });
            }
            p
        })
        .collect();
    Figure {
        panels,
        columns: 3,
        size: (1680, 480),
    }
}

pub fn write_study_figures(a: &StudyAnalysis, dir: &Path) -> Result<(), String> {
    for c in &a.configs {
        let stem = config_stem(c);
        save(&work_precision(c, false), dir, &format!("wp_{stem}_time"))?;
        save(&work_precision(c, true), dir, &format!("wp_{stem}_rhs"))?;
    }
    let mut scenarios: Vec<&str> = Vec::new();
    for e in &a.cost_exponents {
        if !scenarios.contains(&e.scenario.as_str()) {
            scenarios.push(&e.scenario);
        }
    }
    for s in scenarios {
        save(&cost_figure(a, s), dir, &format!("cost_vs_kappa_{s}"))?;
    }
    Ok(())
}
