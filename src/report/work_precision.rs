//! The report of a work–precision study ([`crate::study::work_precision`]): summary.md (per
//! configuration the cheapest integrator at each target accuracy, the reference's agreement, the
//! errors and times of the ladder), analysis.json and work_precision.png (error against wall
//! time, log–log, one line per integrator). It computes no physics: the errors are
//! [`crate::analysis::work_precision`]'s.

use crate::analysis::work_precision::{
    analyse, ConfigurationAnalysis, Recommendation, CERTIFY_FACTOR, TARGETS,
};
use crate::error::number_text;
use crate::experiment::runner::{write_atomically, RunError};
use crate::experiment::system::System;
use crate::experiment::table::Row;
use crate::integrate::IntegratorKind;
use crate::plot::style::format_small_parameter;
use crate::plot::{save_captioned, Figure, Mark, Panel, Series, REFERENCE};
use crate::report::figure_error;
use crate::report::markdown::{sci, Markdown, MarkdownTable, MISSING};
use crate::study::work_precision::{Values, WorkPrecision, REPEAT_BUDGET_S};
use serde::Serialize;
use std::path::Path;

/// The figure's file stem (work_precision.png, .svg).
pub const FIGURE: &str = "work_precision";
/// At most this many configurations are drawn, one panel each.
const MAX_PANELS: usize = 6;

/// What analysis.json holds.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct WorkPrecisionAnalysis {
    pub targets: Vec<f64>,
    /// The quantities whose distance to the reference is a run's error.
    pub quantities: Vec<String>,
    pub configurations: Vec<ConfigurationAnalysis>,
    pub n_runs: usize,
    pub n_failed: usize,
}

/// The palette and marker index of an integrator: the same in every figure of every study
/// (its place in [`IntegratorKind::ALL`]).
pub fn integrator_index(name: &str) -> usize {
    IntegratorKind::ALL
        .iter()
        .position(|k| k.name() == name)
        .unwrap_or(IntegratorKind::ALL.len())
}

/// The analysis of the rows of runs.csv.
pub fn analysis<S: System>(spec: &WorkPrecision<S>, rows: &[Row]) -> WorkPrecisionAnalysis {
    WorkPrecisionAnalysis {
        targets: TARGETS.to_vec(),
        quantities: S::quantities(&spec.params)
            .iter()
            .map(|q| q.symbol.to_string())
            .collect(),
        configurations: spec
            .configuration_runs(rows)
            .iter()
            .map(|c| analyse(c, &TARGETS))
            .collect(),
        n_runs: rows.len(),
        n_failed: rows.iter().filter(|r| r.text("status") != "ok").count(),
    }
}

/// summary.md, analysis.json and the figure of the rows of runs.csv, into `dir`.
pub fn write_report<S: System>(
    spec: &WorkPrecision<S>,
    rows: &[Row],
    dir: &Path,
) -> Result<WorkPrecisionAnalysis, RunError> {
    let a = analysis(spec, rows);
    write_atomically(
        &dir.join("analysis.json"),
        &(crate::report::json::pretty(&a) + "\n"),
    )?;
    write_atomically(&dir.join("summary.md"), &summary(spec, &a))?;
    save_captioned(
        &figure(&a),
        &format!(
            "{}: error against the reference at the same κ; wall time the median of repeats",
            spec.name
        ),
        dir,
        FIGURE,
    )
    .map_err(figure_error(dir))?;
    Ok(a)
}

/// The cell of a recommendation: the cheapest integrator with its rtol, median time and the
/// next integrator's time as a multiple of it; a tie names every integrator in it.
fn recommendation_cell(r: &Recommendation) -> String {
    let Some(c) = &r.cheapest else {
        return format!("{MISSING} ({})", r.note);
    };
    let w = c.winner();
    let next = match (c.ranked.get(1), r.ratio_to_next()) {
        (Some(n), Some(ratio)) => format!(" (next {} ×{ratio:.2})", n.integrator),
        _ => String::new(),
    };
    let chosen = format!(
        "**{}** rtol {:.0e}, {:.3} ms{next}",
        w.integrator,
        w.rtol,
        w.cost * 1e3
    );
    if c.tied.len() > 1 {
        let named: Vec<String> = c
            .tied
            .iter()
            .map(|(n, rtol)| format!("{n} rtol {rtol:.0e}"))
            .collect();
        format!("tie: {}; fastest median {chosen}", named.join(", "))
    } else {
        chosen
    }
}

/// The scenarios in words: name, end and overridden parameters.
fn scenarios_text<S: System>(spec: &WorkPrecision<S>) -> String {
    let list: Vec<String> = spec
        .scenarios
        .iter()
        .map(|s| {
            let mut set: Vec<String> = s
                .t_end
                .iter()
                .map(|t| format!("t_end = {}", number_text(*t)))
                .collect();
            if let Some(kappa) = &s.kappa {
                set.push(format!("κ = {}", kappa_text(kappa)));
            }
            set.extend(
                s.parameters
                    .iter()
                    .map(|(k, v)| format!("{k} = {}", v.text())),
            );
            if set.is_empty() {
                s.name.clone()
            } else {
                format!("{} ({})", s.name, set.join(", "))
            }
        })
        .collect();
    list.join("; ")
}

/// Compliances as written: `1e-3, 1e-4`.
fn kappa_text(kappa: &Values) -> String {
    kappa
        .values()
        .iter()
        .map(|k| number_text(*k))
        .collect::<Vec<_>>()
        .join(", ")
}

/// summary.md.
pub fn summary<S: System>(spec: &WorkPrecision<S>, a: &WorkPrecisionAnalysis) -> String {
    let s = &spec.solver;
    let mut md = Markdown::new();
    md.heading(1, format!("{}: work–precision of {}", spec.name, S::TITLE))
        .generated_by(&spec.name, format!("{} runs, {} failed.", a.n_runs, a.n_failed))
        .paragraph(format!(
            "{}. Scenarios: {}.{}",
            S::describe(&spec.params),
            scenarios_text(spec),
            spec.kappa
                .as_ref()
                .map(|k| format!(" κ = {}.", kappa_text(k)))
                .unwrap_or_default()
        ))
        .paragraph(format!(
            "Ladder rtol {} … {} ({} per decade), atol = {} × rtol (on the contact-scaled state, \
             docs/tolerances.md). Wall time: the median of up to {} runs (fewer once {REPEAT_BUDGET_S} s \
             were spent), measured while the runner's worker threads share the machine. Reference \
             of each configuration: the same κ by {} at rtol {}, checked by {} at the same \
             tolerance (not the rigid limit: the error is the integrator's, at fixed κ).",
            number_text(s.rtol.max),
            number_text(s.rtol.min),
            s.rtol.per_decade,
            number_text(s.atol_per_rtol),
            s.repeats,
            spec.reference.integrators[0],
            number_text(spec.reference.rtol),
            spec.reference.integrators[1],
        ))
        .paragraph(format!(
            "Error of a run: the largest over the quantities {} of |q − q_ref| / max(|q_ref|, 1) \
             (relative above 1, absolute below).",
            a.quantities.join(", ")
        ))
        .heading(2, "Cheapest integrator per target accuracy")
        .paragraph(format!(
            "Among the runs whose error is ≤ the target, each integrator's least median wall \
             time; the cheapest is named with its rtol, its median time and the next \
             integrator's time as a multiple of it. Integrators whose fastest repeat is no slower \
             than the cheapest's slowest tie (a rerun could reorder them) and are all named. A \
             target within {CERTIFY_FACTOR}× of the reference's own agreement is not certified."
        ));
    let mut header = vec!["configuration".to_string()];
    header.extend(a.targets.iter().map(|t| format!("≤ {t:.0e}")));
    let mut table = MarkdownTable::new(header);
    for c in &a.configurations {
        let mut cells = vec![c.label.clone()];
        cells.extend(c.recommendations.iter().map(recommendation_cell));
        table.row(cells);
    }
    md.table(&table).heading(2, "The reference's own agreement");
    let mut table = MarkdownTable::new([
        "configuration",
        "reference",
        "check",
        "distance of the check to the reference",
    ]);
    for c in &a.configurations {
        table.row([
            c.label.clone(),
            c.reference_integrators[0].clone(),
            c.reference_integrators[1].clone(),
            c.reference_agreement.map_or_else(
                || format!("{MISSING} (a reference run failed)"),
                |e| sci(e, 1),
            ),
        ]);
    }
    md.table(&table)
        .heading(2, "The ladder: error, median wall time");
    md.paragraph(
        "Per configuration, each integrator's error against the reference and median wall time \
         (ms) at each rtol of the ladder; × a failed run.",
    );
    let ladder = s.rtol.values();
    for c in &a.configurations {
        md.heading(3, &c.label);
        let mut header = vec!["integrator".to_string()];
        header.extend(ladder.iter().map(|r| format!("rtol {r:.0e}")));
        let mut table = MarkdownTable::new(header);
        for kind in &s.integrators {
            let mut cells = vec![kind.to_string()];
            cells.extend(c.runs_of(kind.name()).map(|r| match (&r.failure, r.error) {
                (Some(_), _) => "×".to_string(),
                (None, Some(e)) => format!("{} / {:.3}", sci(e, 1), r.work.wall_time_s * 1e3),
                (None, None) => format!("{MISSING} / {:.3}", r.work.wall_time_s * 1e3),
            }));
            table.row(cells);
        }
        md.table(&table);
        let failures: Vec<String> = c
            .runs
            .iter()
            .filter_map(|r| {
                let f = r.failure.as_ref()?;
                Some(format!(
                    "{} rtol {}: {}",
                    r.integrator,
                    number_text(r.rtol),
                    f.replace('|', "/")
                ))
            })
            .collect();
        for f in failures {
            md.item(f);
        }
    }
    md.paragraph(format!(
        "![error against median wall time, one line per integrator]({FIGURE}.png)"
    ));
    md.finish()
}

/// One panel per configuration (at most `MAX_PANELS`): each integrator's (median wall time,
/// error) over the ladder on log–log axes, and the reference's agreement as a dotted line.
pub fn figure(a: &WorkPrecisionAnalysis) -> Figure {
    let panels: Vec<Panel> = a
        .configurations
        .iter()
        .take(MAX_PANELS)
        .map(|c| {
            let mut names: Vec<&str> = Vec::new();
            for r in &c.runs {
                if !names.contains(&r.integrator.as_str()) {
                    names.push(&r.integrator);
                }
            }
            names.sort_by_key(|n| integrator_index(n));
            let mut series: Vec<Series> = names
                .iter()
                .map(|&name| Series {
                    label: name.to_string(),
                    points: c
                        .runs_of(name)
                        .filter_map(|r| Some((r.work.wall_time_s, r.error.filter(|e| *e > 0.0)?)))
                        .filter(|(t, _)| *t > 0.0)
                        .collect(),
                    mark: Mark::LineMarkers,
                    color: integrator_index(name),
                })
                .collect();
            let times = c
                .runs
                .iter()
                .map(|r| r.work.wall_time_s)
                .filter(|t| *t > 0.0);
            let (lo, hi) = times.fold((f64::INFINITY, 0.0f64), |(lo, hi), t| {
                (lo.min(t), hi.max(t))
            });
            if let Some(agreement) = c.reference_agreement.filter(|e| *e > 0.0) {
                if lo < hi {
                    series.push(Series {
                        label: "reference agreement".into(),
                        points: vec![(lo, agreement), (hi, agreement)],
                        mark: Mark::Dotted,
                        color: REFERENCE,
                    });
                }
            }
            Panel {
                title: format!("{}, κ = {}", c.scenario, format_small_parameter(c.kappa)),
                x_label: "wall time (s, median of repeats)".into(),
                y_label: "error against the reference".into(),
                log_x: true,
                log_y: true,
                legend_lower: false,
                series,
                bands: Vec::new(),
            }
        })
        .collect();
    let columns = panels.len().clamp(1, 2);
    let rows = panels.len().div_ceil(columns).max(1) as u32;
    Figure {
        panels,
        columns,
        size: (640 * columns as u32, 520 * rows + 40),
    }
}
