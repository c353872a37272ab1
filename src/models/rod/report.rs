//! summary.md and analysis.json of a rod sweep or atlas, from its runs.csv.

use super::analysis::{analyze, BoundCheck, SweepAnalysis};
use super::atlas::{analyze_atlas, AtlasAnalysis};
use super::atlas_report::{render_atlas_summary, write_points_csv, POINTS_CSV};
use super::extrapolation_atlas::{analyze_extrapolation_atlas, ExtrapolationAtlas};
use super::extrapolation_report::{
    render_extrapolation_summary, render_states_csv, write_extrapolation_figures, STATES_CSV,
};
use super::sweep::RodExperiment;
use super::AnalysisKind;
use crate::experiment::runner::{write_atomically, RunError, META_JSON, RUNS_CSV};
use crate::experiment::store::{read_rows, stream_rows};
use crate::experiment::table::Row;
use crate::report::figure_error;
use crate::report::markdown::{provenance, slope_n, SUMMARY_MD};
use std::fmt::Write;
use std::path::Path;

pub(crate) const ANALYSIS_JSON: &str = "analysis.json";

/// The analysis a rod experiment asked for.
pub enum Report {
    Sweep(SweepAnalysis),
    Atlas(AtlasAnalysis),
    Extrapolation(ExtrapolationAtlas),
}

/// The simulations' wall time recorded in `dir/meta.json`.
fn run_time(dir: &Path) -> Option<f64> {
    std::fs::read_to_string(dir.join(META_JSON))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|m| m["wall_time_s"].as_f64())
}

/// The report of the run in `dir` from its runs.csv; an atlas reads it as a stream (its
/// analysis keeps per-state results, not rows).
pub fn write_run_report(spec: &RodExperiment, dir: &Path) -> Result<Report, RunError> {
    let path = dir.join(RUNS_CSV);
    let columns = spec.columns();
    match spec.analysis_kind() {
        AnalysisKind::Atlas => write_atlas_report(spec, stream_rows(&path, &columns)?, dir),
        AnalysisKind::Extrapolation => {
            write_extrapolation_report(spec, stream_rows(&path, &columns)?, dir)
        }
        _ => write_report(spec, &read_rows(&path, &columns)?, dir),
    }
}

fn write_extrapolation_report(
    spec: &RodExperiment,
    rows: impl Iterator<Item = Row>,
    dir: &Path,
) -> Result<Report, RunError> {
    let analysis = analyze_extrapolation_atlas(spec, rows);
    write_atomically(
        &dir.join(SUMMARY_MD),
        &render_extrapolation_summary(spec, &analysis, run_time(dir)),
    )?;
    write_atomically(&dir.join(STATES_CSV), &render_states_csv(&analysis))?;
    let json = crate::report::json::pretty(&analysis) + "\n";
    write_atomically(&dir.join(ANALYSIS_JSON), &json)?;
    write_extrapolation_figures(&analysis, dir).map_err(figure_error(dir))?;
    Ok(Report::Extrapolation(analysis))
}

fn write_atlas_report(
    spec: &RodExperiment,
    rows: impl Iterator<Item = Row>,
    dir: &Path,
) -> Result<Report, RunError> {
    let (analysis, n_rows) = analyze_atlas(spec, rows);
    write_atomically(
        &dir.join(SUMMARY_MD),
        &render_atlas_summary(spec, &analysis, n_rows, run_time(dir)),
    )?;
    write_points_csv(&analysis, &dir.join(POINTS_CSV))?;
    let json = crate::report::json::pretty(&analysis) + "\n";
    write_atomically(&dir.join(ANALYSIS_JSON), &json)?;
    crate::models::rod::atlas_figures::write_atlas_figures(&analysis, dir)
        .map_err(figure_error(dir))?;
    Ok(Report::Atlas(analysis))
}

/// Analyse the rows of a rod sweep (κ sweep or atlas, as the spec says); write `summary.md`,
/// `analysis.json`, the figures, and for an atlas `points.csv`.
pub fn write_report(spec: &RodExperiment, rows: &[Row], dir: &Path) -> Result<Report, RunError> {
    match spec.analysis_kind() {
        AnalysisKind::Atlas => return write_atlas_report(spec, rows.iter().cloned(), dir),
        AnalysisKind::Extrapolation => {
            return write_extrapolation_report(spec, rows.iter().cloned(), dir)
        }
        _ => {}
    }
    let analysis = analyze(spec, rows);
    write_atomically(
        &dir.join(SUMMARY_MD),
        &render_summary(spec, &analysis, rows.len()),
    )?;
    let json = crate::report::json::pretty(&analysis) + "\n";
    write_atomically(&dir.join(ANALYSIS_JSON), &json)?;
    crate::models::rod::figures::write_figures(rows, &analysis, dir).map_err(figure_error(dir))?;
    Ok(Report::Sweep(analysis))
}

/// The Markdown summary.
pub(crate) fn render_summary(spec: &RodExperiment, a: &SweepAnalysis, n_rows: usize) -> String {
    let mut s = String::new();
    let p = spec.impact(spec.sweep.kappa.min);
    let _ = writeln!(
        s,
        "# {}: tangential impact of the Painlevé rod, κ → 0\n",
        spec.name
    );
    let _ = writeln!(
        s,
        "{} from `runs.csv` ({n_rows} rows). \
         Parameters: μ = {}, μ_s = {}, θ0 = {}, θ̇0 = {}, u0 = {}, c_d = {}; κ from {:e} to {:e}, {} per decade; rtol {:e}, atol {:e}.\n",
        provenance(&spec.name),
        p.mu,
        p.mu_s,
        p.theta0,
        p.omega0,
        p.u0,
        p.damping,
        spec.sweep.kappa.max,
        spec.sweep.kappa.min,
        spec.sweep.kappa.per_decade,
        spec.solver.rtol,
        spec.solver.atol
    );
    let _ = writeln!(
        s,
        "Fits use the asymptotic range κ ≤ {:e}; intervals are 95 % (Student t).\n",
        a.asymptotic_kappa_max
    );
    let _ = writeln!(s, "## Exponents: T ~ κ^p\n");
    let _ = writeln!(s, "| integrator | failed | slide p | stick p | reverse slip p | slide a in T = √κ(a x + b) + κ(c x² + d x + e) | b |");
    let _ = writeln!(s, "|---|---|---|---|---|---|---|");
    for i in &a.integrators {
        let (la, lb) = match &i.slide_law {
            Some(f) => (
                format!("{:.5} ± {:.5}", f.slope, f.slope_ci95),
                format!("{:.4} ± {:.4}", f.intercept, f.intercept_ci95),
            ),
            None => ("—".into(), "—".into()),
        };
        let _ = writeln!(
            s,
            "| {} | {}/{} | {} | {} | {} | {} | {} |",
            i.integrator,
            i.failed,
            i.points,
            slope_n(&i.slide_exponent, 4),
            slope_n(&i.stick_exponent, 4),
            slope_n(&i.reverse_slip_exponent, 4),
            la,
            lb
        );
    }
    if let Some(l) = &a.limit {
        let _ = writeln!(
            s,
            "\n## Rigid limit (docs/model.md, frozen configuration)\n"
        );
        let _ = writeln!(
            s,
            "Predicted: λ = {:.9}, slide coefficient a = 1/λ = {:.9}, b = ℓ/λ = {:.9} (ℓ the slide's log offset, docs/extrapolation.md eq. (2.3)), lim T_stick/√κ = {:.9}, lim T_rev/κ = {:.9}, v_out = {:.9}, θ̇_out = {:.9}, total normal impulse = {:.9}.\n",
            l.slide_rate,
            1.0 / l.slide_rate,
            l.slide_log_offset / l.slide_rate,
            l.stick_duration_scaled,
            l.reverse_slip_duration_scaled,
            l.v_out,
            l.omega_out,
            l.impulse_total
        );
        render_slide_law(
            &mut s,
            a,
            1.0 / l.slide_rate,
            l.slide_log_offset / l.slide_rate,
        );
        render_convergence(&mut s, a);
        render_stick_end_force(&mut s, a);
    } else {
        let _ = writeln!(s, "\nNo rigid-limit prediction: the initial state is not inconsistent (A < 0, B < 0, u0 < 0), or the stick stage is overdamped.\n");
    }
    render_bounds(&mut s, a);
    s
}

/// The fitted slide law against the predicted a = 1/λ and b = ℓ/λ: whether each lies in the
/// fit's 95 % interval, over the asymptotic range and over its smallest tenth in κ.
fn render_slide_law(s: &mut String, a: &SweepAnalysis, a_predicted: f64, b_predicted: f64) {
    let narrow = a.asymptotic_kappa_max / 10.0;
    let _ = writeln!(
        s,
        "The slide law of the table above, T = √κ (a x + b) + κ (c x² + d x + e) with x = ln(1/√κ), carries the next order of the slide, the drift of the configuration over it (docs/extrapolation.md eq. (2.7a)); a straight line in x alone would take that order into a and b. A fit's interval is its statistical error only: the order after (2.7a), which the fit leaves out, shows as the change of a and b when the window shrinks from κ ≤ {:e} to κ ≤ {narrow:e}. Fitted against predicted:\n",
        a.asymptotic_kappa_max
    );
    let verdict = |fit: &Option<crate::analysis::fit::LinearFit>| match fit {
        Some(f) => {
            let one = |fitted: f64, half: f64, predicted: f64| {
                let inside = if (fitted - predicted).abs() <= half {
                    "inside"
                } else {
                    "outside"
                };
                format!("{:+.2e} ({inside} ± {:.1e})", fitted - predicted, half)
            };
            format!(
                "a − 1/λ = {}, b − ℓ/λ = {} (n = {})",
                one(f.slope, f.slope_ci95, a_predicted),
                one(f.intercept, f.intercept_ci95, b_predicted),
                f.n
            )
        }
        None => "too few points to fit".to_string(),
    };
    for i in &a.integrators {
        let _ = writeln!(
            s,
            "- {}: κ ≤ {:e}: {}; κ ≤ {narrow:e}: {}.",
            i.integrator,
            a.asymptotic_kappa_max,
            verdict(&i.slide_law),
            verdict(&i.slide_law_narrow)
        );
    }
    let _ = writeln!(s);
}

/// A number with its 95 % half-width, or "—".
fn cell_or_dash(v: Option<f64>, fmt: impl Fn(f64) -> String) -> String {
    v.map(fmt).unwrap_or_else(|| "—".into())
}

/// The convergence table: each quantity's ladder extrapolated to κ → 0, against the closed form,
/// with the fitted and derived log coefficients.
fn render_convergence(s: &mut String, a: &SweepAnalysis) {
    let _ = writeln!(
        s,
        "## Convergence to the rigid limit\n\n\
         The error of these quantities is not a power law in κ: it is √κ (b L + c) + O(κ L²) with L = ln(1/κ), b and c \
         of opposite signs for most of them, so a straight line through log|error| against log κ gives an exponent that \
         drifts with the κ range. Each quantity's whole ladder (successful runs) is extrapolated to κ → 0 by \
         `analysis::extrapolate` (docs/extrapolation.md §1): the error model and the fit window are chosen by \
         leave-one-out prediction at the smallest κ; the interval (≈ 95 %) combines the fit's standard error, the change \
         with one order more or less and the change with the window. b derived is docs/extrapolation.md eq. (2.10). \
         Relative columns are relative to the closed form.\n"
    );
    let _ = writeln!(
        s,
        "| integrator | quantity | closed form | extrapolated ± 95 % | extrapolated − closed form (rel.) | inside | smallest κ: rel. error | error model (points, κ up to) | b fitted | b derived | c fitted |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|---|");
    for i in &a.integrators {
        for c in &i.convergence {
            let (extrapolated, model) = match (&c.extrapolation, &c.refusal) {
                (Some(e), _) => (
                    format!("{:.11} ± {:.1e}", e.limit, e.half_width),
                    format!("{} ({}, {:.1e})", e.formula, e.points, e.kappa_max),
                ),
                (None, Some(r)) => (format!("refused: {r}"), "—".into()),
                (None, None) => ("—".into(), "—".into()),
            };
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} (κ = {:e}) | {} | {} | {} | {} |",
                i.integrator,
                c.symbol,
                cell_or_dash(c.closed_form, |v| format!("{v:.11}")),
                extrapolated,
                cell_or_dash(c.extrapolation_error(), |v| format!("{v:.2e}")),
                match c.covers_closed_form() {
                    Some(true) => "✓",
                    Some(false) => "✗",
                    None => "—",
                },
                cell_or_dash(c.relative_error_at_smallest_kappa, |v| format!("{v:.2e}")),
                c.smallest_kappa,
                model,
                cell_or_dash(c.fitted_log_coefficient(), |v| format!("{v:.5}")),
                cell_or_dash(c.predicted_log_coefficient, |v| format!("{v:.5}")),
                cell_or_dash(c.fitted_sqrt_coefficient(), |v| format!("{v:.4}")),
            );
        }
    }
    let _ = writeln!(
        s,
        "\nconvergence.png ({}): for T_stick/√κ, v_out, θ̇_out and the normal impulse, |relative error| against κ on \
         log–log axes: measured (grey; coloured inside the fit window), the fitted error model (line, continued to a \
         hundredth of the smallest κ), the 95 % half-width of the extrapolated limit (dashed) and the extrapolated \
         limit's own error against the closed form (grey line).",
        a.integrators.first().map_or("", |i| i.integrator.as_str())
    );
}

/// Zhao–Liu eqs. (53), (54) beside the measured force where the stick ends.
fn render_stick_end_force(s: &mut String, a: &SweepAnalysis) {
    let _ = writeln!(
        s,
        "\n## The normal force where the stick ends\n\n\
         Zhao–Liu (2015) eqs. (53), (54): the stick breaks into reverse slip at F_n(ε₃) = θ̇² cos θ/(3 sin θ cos θ + \
         μ_s(1 + 3 sin²θ)) = O(1), δ* = κ F_n(ε₃) = O(κ) (derived from the stick constraint for any ρ in \
         `PainleveRod::stick_end_normal_force`; at ρ = 1/3 it is (53) as printed). \
         Measured: the force where the first stick ends (runs.csv `normal_force_stick_end`, runs with stick → reverse \
         slip), against F* = eq. (53) at θ0 and the rigid limit's θ̇_out; exponents over κ ≤ {:e}.\n",
        a.asymptotic_kappa_max
    );
    let _ = writeln!(
        s,
        "| integrator | F* (eq. (53)) | F_n(ε₃) at smallest κ | rel. error | F_n(ε₃) ∝ κ^p, p | \\|F_n(ε₃) − F*\\| ∝ κ^p, p |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|");
    for i in &a.integrators {
        let Some(f) = &i.stick_end_force else {
            continue;
        };
        let _ = writeln!(
            s,
            "| {} | {:.9} | {:.9} (κ = {:e}) | {:.2e} | {} | {} |",
            i.integrator,
            f.closed_form,
            f.value_at_smallest_kappa,
            f.smallest_kappa,
            f.relative_error_at_smallest_kappa,
            slope_n(&f.exponent, 4),
            slope_n(&f.error_exponent, 3),
        );
    }
}

/// Where a bound fails, as a κ range.
fn failure_region(b: &BoundCheck) -> String {
    let failing: Vec<f64> = b
        .per_point
        .iter()
        .filter(|p| !p.inside)
        .map(|p| p.kappa)
        .collect();
    match (
        failing.iter().copied().reduce(f64::min),
        failing.iter().copied().reduce(f64::max),
    ) {
        (Some(lo), Some(hi)) => format!(
            "fails at {} of {} points, κ in [{lo:.3e}, {hi:.3e}]",
            failing.len(),
            b.points
        ),
        _ => "holds at every point".to_string(),
    }
}

fn render_bounds(s: &mut String, a: &SweepAnalysis) {
    let _ = writeln!(s, "\n## Bounds\n");
    match &a.slide_bound_constants {
        Some(c) => {
            let _ = writeln!(
                s,
                "Slide bounds of Zhao et al. (2015): lower (33) T_slide > (1/ω_r) ln(2 M2 ω_r |u0| / (C̄ η2)), \
                 upper (31) T_slide < 1/ω_l + √(4 M1 |u0| / (C̲ η1 ω_l) + 1/ω_l²), with ω_l = √(M1/κ), ω_r = √(M2/κ). \
                 Constants from eqs. (19)–(20) for this initial state, each a margin f = {} inside the range (19) allows \
                 (`bounds::SlideBoundConstants::choose`): M1 = f·(−A(θ0)) = {:.6}; M2 = (3√(1+μ²) − 5)/(2f) = {:.6} (eq. 17); \
                 η1 = f·(1 − θ̇_max² sin θ0) = {:.6}, θ̇_max the larger of |θ̇0| and the rigid-limit θ̇ at the end of the slide; \
                 η2 = 1/f = {:.6}; C̲ = μ + (M1+1) tan θ_lo = {:.6}, C̄ = μ + (M2+1) tan θ_hi = {:.6} (eq. 20) with θ over \
                 [θ_lo, θ_hi] = [{:.6}, {:.6}], the part of {{A ≤ −M1}} the slide can reach. \
                 The paper claims (31)/(33) only for κ < κ1 with κ1 unspecified, so every κ is checked. \
                 \"Hypotheses\" is whether the measured state at the end of the slide (θ, θ̇) is still inside the domains of eq. (19) \
                 that the derivation assumes.\n",
                crate::models::rod::bounds::CONSTANT_MARGIN,
                c.m1,
                c.m2,
                c.eta1,
                c.eta2,
                c.c_lower,
                c.c_upper,
                c.theta_lo,
                c.theta_hi
            );
        }
        None => {
            let _ = writeln!(s, "No slide bounds: they need an inconsistent start (A < 0, B < 0, u0 < 0) with B < 0 through the slide.\n");
        }
    }
    let _ = writeln!(
        s,
        "Stick bounds as stated in (58)/(61): lower π/2·√κ < T_stick, upper T_stick < π·√κ. (The paper derives the upper bound; the lower one is stated, not derived.)\n"
    );
    let _ = writeln!(
        s,
        "| integrator | bound | points | violations | vacuous | hypotheses fail | worst (κ, measured/bound) | verdict |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|");
    for i in &a.integrators {
        for b in &i.bounds {
            let worst = b
                .worst
                .map(|(k, r)| format!("{k:e}, {r:.4}"))
                .unwrap_or_else(|| "—".into());
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} |",
                i.integrator,
                b.bound,
                b.points,
                b.violations,
                b.vacuous,
                b.hypotheses_fail,
                worst,
                failure_region(b)
            );
        }
    }
    let _ = writeln!(s, "\n— : no violation, so no worst point.");
    let Some(first) = a.integrators.first() else {
        return;
    };
    let _ = writeln!(
        s,
        "\n## Every point against every bound ({})\n",
        first.integrator
    );
    let _ = writeln!(
        s,
        "Measured / bound; ✓ inside, ✗ outside; \"vacuous\": the lower bound is ≤ 0. Hyp.: hypotheses of (19) at the end of the slide (✓ hold, ✗ fail, — not checkable: the run records no slide end). A bound without a value at a κ reads —.\n"
    );
    let mut header = String::from("| κ |");
    let mut rule = String::from("|---|");
    for b in &first.bounds {
        let _ = write!(header, " {} |", b.bound);
        rule.push_str("---|");
    }
    let _ = writeln!(s, "{header} hyp. |\n{rule}---|");
    let n = first.bounds.first().map_or(0, |b| b.per_point.len());
    for i in 0..n {
        let mut line = format!("| {:.3e} |", first.bounds[0].per_point[i].kappa);
        for b in &first.bounds {
            let Some(p) = b.per_point.get(i) else {
                line.push_str(" — |");
                continue;
            };
            let mark = if p.inside { "✓" } else { "✗" };
            match p.ratio {
                Some(r) => {
                    let _ = write!(line, " {r:.4} {mark} |");
                }
                None => line.push_str(" vacuous ✓ |"),
            }
        }
        let hyp = first.bounds[0].per_point[i].hypotheses;
        let _ = writeln!(
            s,
            "{line} {} |",
            match hyp {
                Some(true) => "✓",
                Some(false) => "✗",
                None => "—",
            }
        );
    }
}
