//! The outputs of an integrator study: summary.md, the tidy errors.csv, analysis.json and the
//! figures, from runs.csv.

use super::report::{ANALYSIS_JSON, SUMMARY_MD};
use super::study_analysis::{analyze_study, Recommendation, StudyAnalysis, TARGETS, TIE_MARGIN};
use crate::cells;
use crate::experiment::runner::{write_atomically, RunError, RUNS_CSV};
use crate::experiment::table::parse_rows;
use crate::models::rod::scenario_system::RodScenario;
use crate::study::work_precision::WorkPrecision;

/// The rod scenarios' work–precision study.
type StudySpec = WorkPrecision<RodScenario>;
use crate::report::figure_error;
use crate::report::markdown::{optional, sci};
use crate::report::table::Table;
use std::fmt::Write;
use std::path::Path;

/// One row per (run, quantity): the tidy error table.
pub const ERRORS_CSV: &str = "errors.csv";

pub fn write_study_report(spec: &StudySpec, dir: &Path) -> Result<StudyAnalysis, RunError> {
    let path = dir.join(RUNS_CSV);
    let text = std::fs::read_to_string(&path).map_err(|source| RunError::Io {
        path: path.display().to_string(),
        source,
    })?;
    let rows = parse_rows(&text, &spec.columns());
    let analysis = analyze_study(spec, &rows);
    write_atomically(&dir.join(ERRORS_CSV), &render_errors_csv(&analysis))?;
    write_atomically(
        &dir.join(SUMMARY_MD),
        &render_study_summary(spec, &analysis),
    )?;
    let json = crate::report::json::pretty(&analysis) + "\n";
    write_atomically(&dir.join(ANALYSIS_JSON), &json)?;
    crate::models::rod::study_figures::write_study_figures(&analysis, dir)
        .map_err(figure_error(dir))?;
    Ok(analysis)
}

pub fn render_errors_csv(a: &StudyAnalysis) -> String {
    let mut table = Table::new([
        "scenario",
        "kind",
        "kappa",
        "damping",
        "integrator",
        "rtol",
        "quantity",
        "error",
        "status",
        "sequence_matches",
        "wall_time_s",
        "rhs_evals",
        "lu_factorisations",
        "steps",
    ]);
    for c in &a.configs {
        for r in &c.runs {
            for (q, e) in c.quantities.iter().zip(&r.errors) {
                table.push(cells![
                    &c.scenario,
                    &c.kind,
                    c.kappa,
                    c.damping,
                    &r.integrator,
                    r.rtol,
                    q,
                    *e,
                    if r.ok { "ok" } else { "error" },
                    r.sequence_matches,
                    r.wall_time_s,
                    r.rhs_evals,
                    r.lu_factorisations,
                    r.steps,
                ]);
            }
        }
    }
    table.to_csv()
}

pub fn render_study_summary(spec: &StudySpec, a: &StudyAnalysis) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# {}: which integrator, at what tolerance, at what cost\n",
        spec.name
    );
    let _ = writeln!(
        s,
        "Made by `rigid-limit run experiments/{}.toml` (or `reproduce`). {} runs, {} failed. \
         Ladder rtol {:.0e} … {:.0e}, atol = {} × rtol on the contact-scaled state; wall time is \
         the median of up to {} runs (fewer once 0.3 s were spent), 2 worker threads. Errors are \
         against {} at rtol {:.0e}, confirmed by {} at the same tolerance.\n",
        spec.name,
        a.n_runs,
        a.n_failed,
        spec.solver.rtol.max,
        spec.solver.rtol.min,
        spec.solver.atol_per_rtol,
        spec.solver.repeats,
        spec.reference.integrators[0],
        spec.reference.rtol,
        spec.reference.integrators[1],
    );
    let _ = writeln!(
        s,
        "Error measures: phase durations relative, post-impact u, v, θ̇ absolute (impact); the \
         largest absolute error of q = (x_A, y_A, θ) and of q̇ over the output times (sustained, \
         drop). A run's accuracy is its largest error over these.\n"
    );

    let _ = writeln!(
        s,
        "## Recommendation: cheapest integrator per target accuracy\n"
    );
    let _ = writeln!(
        s,
        "Among runs with largest error ≤ target and the reference's mode sequence, each \
         integrator's least-work run (work = RHS evaluations + Jacobian–vector products + LU \
         factorisations, counts that are the same on every rerun), costed at that integrator's \
         time per work unit (the calibration in the table below, not this run's timings); integrators within {:.0} % of the cheapest tie and are \
         all named. A target within 10× of the reference's own disagreement is not certified.\n",
        TIE_MARGIN * 100.0
    );
    recommendation_table(&mut s, a, |r| {
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
    });
    let _ = writeln!(
        s,
        "\nThe numbers behind it, measured on this run (they vary between reruns; the choice \
         above does not, as it uses only the counts and the calibration): modelled cost of the choice, its \
         ratio to the next integrator outside the tie, the choice's measured wall time (minimum \
         over repeats), and the qualifying run with the smallest measured wall time.\n"
    );
    recommendation_table(&mut s, a, |r| {
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
            r.work.unwrap_or(f64::NAN),
            r.modelled_s.unwrap_or(f64::NAN) * 1e3,
            r.wall_time_s.unwrap_or(f64::NAN) * 1e3
        )
    });
    let _ = writeln!(
        s,
        "\nTime per work unit: the cost model ({}), and this run's measurement (median over each \
         integrator's successful ladder runs of the minimum wall time over repeats, divided by \
         the work). A ratio outside [0.75, 1.33] means the calibration no longer describes this \
         build or machine: copy the measured column into `time_per_work_ns`.\n\n\
         | integrator | cost model (ns) | measured (ns) | measured / model |\n|---|---|---|---|",
        if a.cost_model_calibrated {
            "`time_per_work_ns` of the experiment file"
        } else {
            "no `time_per_work_ns` in the experiment file: this run's measurement"
        }
    );
    for (n, measured) in &a.time_per_work {
        let model = a.cost_model.iter().find(|(m, _)| m == n).map(|(_, t)| *t);
        let ratio = model.map(|m| measured / m);
        let flag = if ratio.is_some_and(|r| !(0.75..=1.0 / 0.75).contains(&r)) {
            " (stale)"
        } else {
            ""
        };
        let _ = writeln!(
            s,
            "| {n} | {} | {:.0} | {}{flag} |",
            model.map_or("—".into(), |m| format!("{:.0}", m * 1e9)),
            measured * 1e9,
            ratio.map_or("—".into(), |r| format!("{r:.2}"))
        );
    }

    let _ = writeln!(
        s,
        "\n## Cost vs κ (fixed tolerance rtol = {:.0e})\n",
        a.cost_rtol
    );
    let _ = writeln!(
        s,
        "Cost ∝ κ^p fitted over the scenario's κ values (95 % interval). p ≈ 0: the integrator \
         steps over the contact's fast time scale; p ≈ −1/2: it resolves it.\n"
    );
    let _ = writeln!(
        s,
        "| scenario | integrator | p (RHS evals) | p (LU) | p (steps) | p (wall time) | failed κ |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|");
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for e in &a.cost_exponents {
        let key = (e.scenario.as_str(), e.integrator.as_str());
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let fit_of = |m: &str| {
            a.cost_exponents
                .iter()
                .find(|x| x.scenario == key.0 && x.integrator == key.1 && x.measure == m)
                .and_then(|x| x.fit)
                .map(|f| format!("{:.3} ± {:.3}", f.slope, f.slope_ci95))
                .unwrap_or_else(|| "—".into())
        };
        let failed: Vec<String> = e.failed_kappas.iter().map(|k| format!("{k:.0e}")).collect();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} |",
            key.0,
            key.1,
            fit_of("rhs_evals"),
            fit_of("lu_factorisations"),
            fit_of("steps"),
            fit_of("wall_time_s"),
            if failed.is_empty() {
                "—".into()
            } else {
                failed.join(", ")
            }
        );
    }

    let _ = writeln!(s, "\n## References: their own agreement\n");
    let _ = writeln!(
        s,
        "| configuration | {} vs {} (largest, per quantity) | same mode sequence | contacts |",
        spec.reference.integrators[1], spec.reference.integrators[0]
    );
    let _ = writeln!(s, "|---|---|---|---|");
    for c in &a.configs {
        let per: Vec<String> = c
            .quantities
            .iter()
            .zip(&c.reference_agreement)
            .map(|(q, e)| format!("{q} {}", optional(*e, |v| sci(v, 1))))
            .collect();
        let _ = writeln!(
            s,
            "| {} | {} ({}) | {} | {} |",
            c.label(),
            optional(c.reference_error(), |v| sci(v, 1)),
            per.join(", "),
            c.reference_sequences_agree,
            c.reference_contacts
                .map(|n| n.to_string())
                .unwrap_or("—".into())
        );
    }

    let _ = writeln!(s, "\n## Robustness: events and failures per integrator\n");
    let _ = writeln!(
        s,
        "Runs whose mode sequence equals the reference's (every contact found, none spurious), and \
         failed runs, over all configurations and tolerances.\n"
    );
    let _ = writeln!(s, "| integrator | same sequence | failed | first failure |");
    let _ = writeln!(s, "|---|---|---|---|");
    for i in &spec.solver.integrators {
        let runs: Vec<_> = a
            .configs
            .iter()
            .flat_map(|c| c.runs.iter().map(move |r| (c, r)))
            .filter(|(_, r)| r.integrator == i.name())
            .collect();
        let same = runs.iter().filter(|(_, r)| r.sequence_matches).count();
        let failed: Vec<_> = runs.iter().filter(|(_, r)| !r.ok).collect();
        let first = failed
            .first()
            .map(|(c, r)| format!("{} rtol {:.0e}: {}", c.label(), r.rtol, r.error_message))
            .unwrap_or_else(|| "—".into());
        let _ = writeln!(
            s,
            "| {} | {}/{} | {} | {} |",
            i,
            same,
            runs.len(),
            failed.len(),
            first.replace('|', "/")
        );
    }
    let drop: Vec<_> = a.configs.iter().filter(|c| c.kind == "drop").collect();
    if !drop.is_empty() {
        let _ = writeln!(
            s,
            "\nDrop: contacts found per run (reference in brackets), loosest → tightest rtol:\n"
        );
        for c in drop {
            for i in &spec.solver.integrators {
                let counts: Vec<String> = c
                    .runs
                    .iter()
                    .filter(|r| r.integrator == i.name())
                    .map(|r| r.n_contacts.map(|n| n.to_string()).unwrap_or("×".into()))
                    .collect();
                let _ = writeln!(
                    s,
                    "- {} {}: {} [{}]",
                    c.label(),
                    i,
                    counts.join(" "),
                    c.reference_contacts
                        .map(|n| n.to_string())
                        .unwrap_or("—".into())
                );
            }
        }
    }
    let _ = writeln!(
        s,
        "\nFigures: `wp_<scenario>_<κ>_<c_d>_{{time,rhs}}.png` (error vs wall time / RHS \
         evaluations, one panel per quantity; sustained contact: `wp_sustained_{{time,rhs}}.png`, \
         one panel per κ), `cost_vs_kappa_<scenario>.png`. Tidy data: \
         `errors.csv` (one row per run and quantity), `runs.csv`."
    );
    s
}

/// One row per configuration, one cell per target: `cell` for a recommendation with a choice,
/// the reason otherwise.
fn recommendation_table(
    s: &mut String,
    a: &StudyAnalysis,
    cell: impl Fn(&Recommendation) -> String,
) {
    let _ = writeln!(
        s,
        "| configuration | {} |",
        TARGETS.map(|t| format!("≤ {t:.0e}")).join(" | ")
    );
    let _ = writeln!(s, "|---|{}", "---|".repeat(TARGETS.len()));
    for c in &a.configs {
        let cells: Vec<String> = TARGETS
            .iter()
            .map(|&t| {
                match a
                    .recommendations
                    .iter()
                    .find(|r| r.config == c.label() && r.target == t)
                {
                    Some(r) if r.integrator.is_some() => cell(r),
                    Some(r) => format!("— ({})", r.note),
                    None => "—".into(),
                }
            })
            .collect();
        let _ = writeln!(s, "| {} | {} |", c.label(), cells.join(" | "));
    }
}
