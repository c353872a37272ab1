//! The report of a work–precision study ([`crate::study::work_precision`]) of any system:
//! summary.md (per configuration the cheapest integrator at each target accuracy under the cost
//! model, with its ties; the numbers behind it; the time per work unit; the cost's exponent in
//! κ; the reference's own agreement; mode sequences and failures; the ladder's errors and
//! work), analysis.json, errors.csv (one row per run and error measure) and the figures:
//! work_precision.png (error against wall time) and work_precision_work.png (against work
//! units), one panel per configuration, and `cost_vs_kappa_<group>.png` for a group of at least
//! 3 κ. It computes no physics: the errors are [`crate::analysis::work_precision`]'s.

use crate::analysis::work_precision::{
    analyse, ConfigurationAnalysis, Recommendation, StudyFacts, WorkPrecisionAnalysis,
    CERTIFY_FACTOR, TIE_MARGIN,
};
use crate::cells;
use crate::error::number_text;
use crate::experiment::runner::{write_atomically, RunError, RUNS_CSV};
use crate::experiment::system::System;
use crate::experiment::table::Row;
use crate::integrate::IntegratorKind;
use crate::plot::style::format_small_parameter;
use crate::plot::{save_captioned, Figure, Mark, Panel, Series, REFERENCE};
use crate::report::figure_error;
use crate::report::markdown::{optional, sci, slope, small, Markdown, MarkdownTable, MISSING};
use crate::report::table::Table;
use crate::study::work_precision::{Values, WorkPrecision, REPEAT_BUDGET_S};
use std::path::Path;

/// The figures' file stems: error against wall time, against work units.
pub(crate) const FIGURE: &str = "work_precision";
pub(crate) const FIGURE_WORK: &str = "work_precision_work";
/// One row per (run, error measure): the tidy error table.
pub const ERRORS_CSV: &str = "errors.csv";
/// At most this many configurations are drawn, one panel each.
pub const MAX_PANELS: usize = 16;

/// The palette and marker index of an integrator: the same in every figure of every study
/// (its place in [`IntegratorKind::ALL`]).
pub(crate) fn integrator_index(name: &str) -> usize {
    IntegratorKind::ALL
        .iter()
        .position(|k| k.name() == name)
        .unwrap_or(IntegratorKind::ALL.len())
}

/// The analysis of the rows of runs.csv.
pub fn analysis<S: System>(spec: &WorkPrecision<S>, rows: &[Row]) -> WorkPrecisionAnalysis {
    let facts = StudyFacts {
        integrators: spec
            .solver
            .integrators
            .iter()
            .map(|k| k.to_string())
            .collect(),
        ladder: spec.solver.rtol.values(),
        calibration: spec.time_per_work_ns.as_ref(),
        n_runs: rows.len(),
        n_failed: rows.iter().filter(|r| r.text("status") != "ok").count(),
    };
    analyse(&spec.configuration_runs(rows), &facts)
}

/// The report of the run in `dir`, from its runs.csv.
pub fn write_run_report<S: System>(
    spec: &WorkPrecision<S>,
    dir: &Path,
) -> Result<WorkPrecisionAnalysis, RunError> {
    let rows = crate::experiment::store::read_rows(&dir.join(RUNS_CSV), &spec.columns())?;
    write_report(spec, &rows, dir)
}

/// summary.md, analysis.json, errors.csv and the figures of the rows of runs.csv, into `dir`.
pub fn write_report<S: System>(
    spec: &WorkPrecision<S>,
    rows: &[Row],
    dir: &Path,
) -> Result<WorkPrecisionAnalysis, RunError> {
    let a = analysis(spec, rows);
    crate::report::write_analysis(dir, &a)?;
    write_atomically(&dir.join(ERRORS_CSV), &errors_csv(&a))?;
    write_atomically(
        &dir.join(crate::report::markdown::SUMMARY_MD),
        &summary(spec, &a),
    )?;
    let caption = |what: &str| format!("The {what}; errors against the reference at the same κ");
    for (by_work, stem, what) in [
        (false, FIGURE, "largest error against the median wall time"),
        (
            true,
            FIGURE_WORK,
            "largest error against the work: right-hand sides + Jacobian–vector products + LU factorisations",
        ),
    ] {
        save_captioned(&figure(&a, by_work), &caption(what), dir, stem)
            .map_err(figure_error(dir))?;
    }
    for (group, stem) in cost_groups(&a) {
        save_captioned(
            &cost_figure(&a, &group),
            &format!(
                "Each integrator's cost against κ in the {group} scenario at rtol {}; p: the fitted \
                 exponent of cost ∝ κᵖ",
                format_small_parameter(a.cost_rtol)
            ),
            dir,
            &stem,
        )
        .map_err(figure_error(dir))?;
    }
    Ok(a)
}

/// The groups with a cost fit, with their figure's file stem (`cost_vs_kappa_sustained`).
pub(crate) fn cost_groups(a: &WorkPrecisionAnalysis) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for e in &a.cost_exponents {
        if !out.iter().any(|(g, _)| *g == e.group) {
            let words: Vec<String> = e
                .group
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '-'))
                .filter(|w| !w.is_empty())
                .map(str::to_string)
                .collect();
            out.push((
                e.group.clone(),
                format!("cost_vs_kappa_{}", words.join("_")),
            ));
        }
    }
    out
}

/// errors.csv: one row per ladder run and error measure.
pub(crate) fn errors_csv(a: &WorkPrecisionAnalysis) -> String {
    let mut table = Table::new([
        "configuration",
        "scenario",
        "kappa",
        "integrator",
        "rtol",
        "quantity",
        "scale",
        "error",
        "status",
        "sequence_matches",
        "wall_time_s",
        "work_units",
        "rhs_evals",
        "lu_factorisations",
        "steps",
    ]);
    for c in &a.configurations {
        for r in &c.runs {
            for ((q, scale), e) in c.measures.iter().zip(&c.scales).zip(&r.errors) {
                table.push(cells![
                    &c.label,
                    &c.scenario,
                    c.kappa,
                    &r.integrator,
                    r.rtol,
                    q,
                    scale.name(),
                    *e,
                    if r.failure.is_none() { "ok" } else { "error" },
                    r.sequence_matches,
                    r.work.wall_time_s,
                    r.work_units,
                    r.work.rhs_evals,
                    r.work.lu_factorisations,
                    r.work.steps,
                ]);
            }
        }
    }
    table.to_csv()
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

/// The scenarios in words: name, compliances, end and overridden parameters.
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

/// The error measures of each scenario, with their scales.
fn measures_text(a: &WorkPrecisionAnalysis) -> String {
    let mut seen: Vec<(&str, String)> = Vec::new();
    for c in &a.configurations {
        let text: Vec<String> = c
            .measures
            .iter()
            .zip(&c.scales)
            .map(|(m, s)| format!("{m} ({})", s.name()))
            .collect();
        let text = text.join(", ");
        if !seen.iter().any(|(s, t)| *s == c.scenario && *t == text) {
            seen.push((&c.scenario, text));
        }
    }
    seen.iter()
        .map(|(s, t)| format!("{s}: {t}"))
        .collect::<Vec<_>>()
        .join("; ")
}

/// One row per configuration, one cell per target: `cell` for a recommendation with a choice,
/// the reason otherwise.
fn recommendation_table(
    a: &WorkPrecisionAnalysis,
    cell: impl Fn(&Recommendation) -> String,
) -> MarkdownTable {
    let mut header = vec!["configuration".to_string()];
    header.extend(a.targets.iter().map(|t| format!("≤ {t:.0e}")));
    let mut table = MarkdownTable::new(header);
    for c in &a.configurations {
        let mut cells = vec![c.label.clone()];
        cells.extend(a.targets.iter().map(|&t| {
            match a
                .recommendations
                .iter()
                .find(|r| r.config == c.label && r.target == t)
            {
                Some(r) if r.integrator.is_some() => cell(r),
                Some(r) => format!("{MISSING} ({})", r.note),
                None => MISSING.into(),
            }
        }));
        table.row(cells);
    }
    table
}

/// The choice: the integrator(s) and rtol, every integrator of a tie named.
fn choice_cell(r: &Recommendation) -> String {
    let named: Vec<String> = r
        .tied
        .iter()
        .map(|(n, rtol)| format!("**{n}** rtol {rtol:.0e}"))
        .collect();
    if named.len() > 1 {
        format!("tie: {}", named.join(", "))
    } else {
        named.join("")
    }
}

/// The numbers behind a choice: work, modelled and measured time, the next integrator, the
/// fastest measured run.
fn numbers_cell(r: &Recommendation) -> String {
    let next = r
        .runner_up
        .as_ref()
        .map(|(n, c)| format!(" (next {n} ×{:.1})", c / r.modelled_s.unwrap_or(f64::NAN)))
        .unwrap_or_default();
    let fastest = r
        .fastest_measured
        .as_ref()
        .map(|(n, t)| format!("; fastest {n} {:.3} ms", t * 1e3))
        .unwrap_or_default();
    format!(
        "{}: {:.0} work, {:.3} ms modelled{next}, {:.3} ms measured{fastest}",
        r.integrator.as_deref().unwrap_or(""),
        r.work_units.unwrap_or(f64::NAN),
        r.modelled_s.unwrap_or(f64::NAN) * 1e3,
        r.wall_time_s.unwrap_or(f64::NAN) * 1e3
    )
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
            "Errors against the reference, per error measure (the largest over its quantities), \
             on its scale: {}. A run's accuracy is its largest error over the measures.",
            measures_text(a)
        ))
        .heading(2, "Recommendation: cheapest integrator per target accuracy")
        .paragraph(format!(
            "Among the runs whose largest error is ≤ the target and that went through the \
             reference's mode sequence, each integrator's least-work run (work = RHS evaluations \
             + Jacobian–vector products + LU factorisations, counts that are the same on every \
             rerun), costed at that integrator's time per work unit (the cost model in the table \
             below, not this run's timings when the file calibrates it); integrators within \
             {:.0} % of the cheapest tie and are all named. A target within {CERTIFY_FACTOR}× of \
             the reference's own disagreement is not certified.",
            TIE_MARGIN * 100.0
        ))
        .table(&recommendation_table(a, choice_cell))
        .paragraph(
            "The numbers behind it, measured on this run (they vary between reruns; with a \
             calibrated cost model the choice above does not, as it uses only the counts and the \
             calibration): the choice's work units, its modelled cost, the ratio of the next \
             integrator outside the tie to it, its measured wall time (fastest repeat), and the \
             qualifying run with the smallest measured wall time.",
        )
        .table(&recommendation_table(a, numbers_cell))
        .heading(3, "Time per work unit");
    md.paragraph(format!(
        "The cost model ({}), and this run's measurement (median over each integrator's \
         successful ladder runs of the fastest repeat's wall time over the run's work units). A \
         ratio outside [0.75, 1.33] means the calibration no longer describes this build or \
         machine: copy the measured column into `time_per_work_ns`.",
        if a.cost_model_calibrated {
            "`time_per_work_ns` of the experiment file"
        } else {
            "no `time_per_work_ns` in the experiment file: this run's measurement"
        }
    ));
    let mut table = MarkdownTable::new([
        "integrator",
        "cost model (ns)",
        "measured (ns)",
        "measured / model",
    ]);
    for (n, measured) in &a.time_per_work {
        let model = a.cost_model.iter().find(|(m, _)| m == n).map(|(_, t)| *t);
        let ratio = model.map(|m| measured / m);
        let flag = if ratio.is_some_and(|r| !(0.75..=1.0 / 0.75).contains(&r)) {
            " (stale)"
        } else {
            ""
        };
        table.row([
            n.clone(),
            optional(model, |m| format!("{:.0}", m * 1e9)),
            format!("{:.0}", measured * 1e9),
            format!("{}{flag}", optional(ratio, |r| format!("{r:.2}"))),
        ]);
    }
    md.table(&table);
    cost_section(&mut md, spec, a);
    reference_section(&mut md, a);
    robustness_section(&mut md, spec, a);
    ladder_section(&mut md, spec, a);
    let costs: Vec<String> = cost_groups(a)
        .into_iter()
        .map(|(_, stem)| format!("`{stem}.png`"))
        .collect();
    md.paragraph(format!(
        "Figures: `{FIGURE}.png` (error against median wall time) and `{FIGURE_WORK}.png` \
         (against work units), one panel per configuration{}{}. Tidy data: `{ERRORS_CSV}` (one \
         row per run and error measure), `runs.csv`.",
        if a.configurations.len() > MAX_PANELS {
            format!(" (the first {MAX_PANELS})")
        } else {
            String::new()
        },
        if costs.is_empty() {
            String::new()
        } else {
            format!("; cost against κ: {}", costs.join(", "))
        }
    ));
    md.paragraph(format!(
        "![error against median wall time, one line per integrator]({FIGURE}.png)"
    ));
    md.finish()
}

/// "Cost vs κ": the fitted exponents of each group of at least 3 κ.
fn cost_section<S: System>(md: &mut Markdown, spec: &WorkPrecision<S>, a: &WorkPrecisionAnalysis) {
    if a.cost_exponents.is_empty() {
        return;
    }
    md.heading(
        2,
        format!("Cost vs κ (fixed tolerance rtol = {:.0e})", a.cost_rtol),
    )
    .paragraph(
        "Cost ∝ κ^p fitted over the κ values of each scenario (at its other parameters), 95 % \
         interval. p ≈ 0: the integrator steps over the contact's fast time scale; p ≈ −1/2: it \
         resolves it.",
    );
    let mut table = MarkdownTable::new([
        "scenario",
        "integrator",
        "p (RHS evals)",
        "p (LU)",
        "p (steps)",
        "p (wall time)",
        "failed κ",
    ]);
    for (group, _) in cost_groups(a) {
        for integrator in &spec.solver.integrators {
            let of = |m: &str| {
                a.cost_exponents.iter().find(|x| {
                    x.group == group && x.integrator == integrator.name() && x.measure == m
                })
            };
            let failed: Vec<String> = of("rhs_evals")
                .map(|e| e.failed_kappas.iter().map(|k| small(*k)).collect())
                .unwrap_or_default();
            let mut cells = vec![group.clone(), integrator.to_string()];
            cells.extend(
                ["rhs_evals", "lu_factorisations", "steps", "wall_time_s"]
                    .map(|m| of(m).map_or(MISSING.to_string(), |e| slope(&e.fit, 3))),
            );
            cells.push(if failed.is_empty() {
                "none".to_string()
            } else {
                failed.join(", ")
            });
            table.row(cells);
        }
    }
    md.table(&table).paragraph(format!(
        "{MISSING}: no exponent (no LU factorisation in an explicit integrator, or fewer than \
         three successful κ)."
    ));
}

/// "The reference's own agreement": per configuration the check's largest error against the
/// reference, per measure, and whether their mode sequences agree.
fn reference_section(md: &mut Markdown, a: &WorkPrecisionAnalysis) {
    md.heading(2, "The reference's own agreement");
    let mut table = MarkdownTable::new([
        "configuration",
        "reference",
        "check",
        "check's error (largest; per measure)",
        "same mode sequence",
    ]);
    for c in &a.configurations {
        let per: Vec<String> = c
            .measures
            .iter()
            .zip(&c.reference_agreement)
            .map(|(q, e)| format!("{q} {}", optional(*e, |v| sci(v, 1))))
            .collect();
        table.row([
            c.label.clone(),
            c.reference_integrators[0].clone(),
            c.reference_integrators[1].clone(),
            format!(
                "{} ({})",
                c.reference_error().map_or_else(
                    || format!("{MISSING} (a reference run failed)"),
                    |e| sci(e, 1)
                ),
                per.join(", ")
            ),
            c.reference_sequences_agree.to_string(),
        ]);
    }
    md.table(&table);
}

/// "Mode sequences and failures": per integrator the runs through the reference's mode
/// sequence and the failed runs, then every failure.
fn robustness_section<S: System>(
    md: &mut Markdown,
    spec: &WorkPrecision<S>,
    a: &WorkPrecisionAnalysis,
) {
    md.heading(2, "Mode sequences and failures per integrator")
        .paragraph(
        "Runs whose mode sequence equals the reference's (every contact found, none spurious), \
         and failed runs, over all configurations and tolerances.",
    );
    let mut table = MarkdownTable::new(["integrator", "same sequence", "failed"]);
    let mut failures: Vec<String> = Vec::new();
    for i in &spec.solver.integrators {
        let runs: Vec<(&ConfigurationAnalysis, _)> = a
            .configurations
            .iter()
            .flat_map(|c| c.runs_of(i.name()).map(move |r| (c, r)))
            .collect();
        let same = runs.iter().filter(|(_, r)| r.sequence_matches).count();
        let failed: Vec<_> = runs.iter().filter(|(_, r)| r.failure.is_some()).collect();
        table.row([
            i.to_string(),
            format!("{same}/{}", runs.len()),
            failed.len().to_string(),
        ]);
        failures.extend(failed.iter().map(|(c, r)| {
            format!(
                "{}, {} rtol {}: {}",
                c.label,
                r.integrator,
                number_text(r.rtol),
                r.failure.as_deref().unwrap_or("").replace('|', "/")
            )
        }));
    }
    md.table(&table);
    for f in failures {
        md.item(f);
    }
}

/// "The ladder": per configuration each integrator's error and work units at each rtol.
fn ladder_section<S: System>(
    md: &mut Markdown,
    spec: &WorkPrecision<S>,
    a: &WorkPrecisionAnalysis,
) {
    md.heading(2, "The ladder: error, work units").paragraph(
        "Per configuration, each integrator's largest error against the reference and its work \
         units (RHS + JVP + LU) at each rtol of the ladder; × a failed run, * a run off the \
         reference's mode sequence.",
    );
    let ladder = spec.solver.rtol.values();
    for c in &a.configurations {
        md.heading(3, &c.label);
        let mut header = vec!["integrator".to_string()];
        header.extend(ladder.iter().map(|r| format!("rtol {r:.0e}")));
        let mut table = MarkdownTable::new(header);
        for kind in &spec.solver.integrators {
            let mut cells = vec![kind.to_string()];
            cells.extend(c.runs_of(kind.name()).map(|r| {
                if r.failure.is_some() {
                    return "×".to_string();
                }
                let off = if r.sequence_matches { "" } else { "*" };
                format!(
                    "{}{off} / {}",
                    optional(r.error, |e| sci(e, 1)),
                    optional(r.work_units, |w| format!("{w:.0}"))
                )
            }));
            table.row(cells);
        }
        md.table(&table);
    }
}

/// One panel per configuration (at most [`MAX_PANELS`]): each integrator's (median wall time
/// or work units, error) over the ladder on log–log axes, and the reference's agreement as a
/// dotted line.
pub fn figure(a: &WorkPrecisionAnalysis, by_work: bool) -> Figure {
    let panels: Vec<Panel> = a
        .configurations
        .iter()
        .take(MAX_PANELS)
        .map(|c| {
            let x_of = |r: &crate::analysis::work_precision::RunError| {
                if by_work {
                    r.work_units
                } else {
                    r.work.wall_time_s
                }
            };
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
                        .filter_map(|r| Some((x_of(r)?, r.error.filter(|e| *e > 0.0)?)))
                        .filter(|(x, _)| *x > 0.0)
                        .collect(),
                    mark: Mark::LineMarkers,
                    color: integrator_index(name),
                })
                .collect();
            let xs = c.runs.iter().filter_map(x_of).filter(|x| *x > 0.0);
            let (lo, hi) = xs.fold((f64::INFINITY, 0.0f64), |(lo, hi), x| {
                (lo.min(x), hi.max(x))
            });
            if let Some(agreement) = c.reference_error().filter(|e| *e > 0.0) {
                if lo < hi {
                    series.push(Series::new(
                        "reference agreement",
                        vec![(lo, agreement), (hi, agreement)],
                        Mark::Dotted,
                        REFERENCE,
                    ));
                }
            }
            Panel {
                title: panel_title(c),
                x_label: if by_work {
                    "work: right-hand sides + Jacobian–vector products + LUs".into()
                } else {
                    "wall time (s, median of repeats)".into()
                },
                y_label: "largest error against the reference".into(),
                log_x: true,
                log_y: true,
                legend_lower: true,
                series,
                bands: Vec::new(),
            }
        })
        .collect();
    let columns = match panels.len() {
        0 | 1 => 1,
        2 | 4 => 2,
        _ => 3,
    };
    let rows = panels.len().div_ceil(columns).max(1) as u32;
    // One panel keeps room for its legend beside it.
    let width = if columns == 1 {
        800
    } else {
        600 * columns as u32
    };
    Figure {
        panels,
        columns,
        size: (width, 480 * rows + 40),
    }
}

/// A configuration's panel title: its group and κ as a power of ten.
fn panel_title(c: &ConfigurationAnalysis) -> String {
    format!("{}, κ = {}", c.group, format_small_parameter(c.kappa))
}

/// Cost against κ of one group at the cost tolerance, one panel per measure (RHS evaluations,
/// LU factorisations, wall time), one line per integrator with its fitted exponent.
pub(crate) fn cost_figure(a: &WorkPrecisionAnalysis, group: &str) -> Figure {
    let measures = [
        ("rhs_evals", "right-hand-side evaluations"),
        ("lu_factorisations", "LU factorisations"),
        ("wall_time_s", "wall time (s)"),
    ];
    let panels = measures
        .iter()
        .map(|&(m, label)| {
            let mut rows: Vec<_> = a
                .cost_exponents
                .iter()
                .filter(|e| e.group == group && e.measure == m && !e.points.is_empty())
                .collect();
            rows.sort_by_key(|e| integrator_index(&e.integrator));
            Panel {
                title: label.to_string(),
                x_label: "compliance κ".into(),
                y_label: label.to_string(),
                log_x: true,
                log_y: true,
                legend_lower: true,
                series: rows
                    .into_iter()
                    .map(|e| Series {
                        label: format!(
                            "{}{}",
                            e.integrator,
                            e.fit
                                .map(|f| {
                                    // A true minus sign, as on the axes.
                                    format!(", p = {:.2}", f.slope).replacen('-', "−", 1)
                                })
                                .unwrap_or_default()
                        ),
                        points: e.points.clone(),
                        mark: Mark::LineMarkers,
                        color: integrator_index(&e.integrator),
                    })
                    .collect(),
                bands: Vec::new(),
            }
        })
        .collect();
    Figure {
        panels,
        columns: 3,
        size: (1700, 560),
    }
}
