//! summary.md, analysis.json and the figures of a `schmid_mielke` run, from its runs.csv and
//! paths.csv (docs/schmid_mielke.md). Reads rows; never solves.

use super::closed_form::JumpEnergy;
use super::examples::Example;
use super::paths::{case_label, case_title, distinct_examples, PATHS_CSV};
use super::spec::{Setting, SmPoint, SmSpec};
use crate::analysis::fit::{power_law, LinearFit};
use crate::experiment::runner::{write_atomically, RunError, RUNS_CSV};
use crate::experiment::table::{parse_rows, Row};
use crate::plot::style::format_small_parameter;
use crate::plot::{save_captioned, Figure, Mark, Panel, Series};
use serde::Serialize;
use std::fmt::Write;
use std::path::Path;

/// The order fits of the incremental problem use N ≥ this.
pub const FIT_MIN_STEPS: usize = 256;
/// An error at or below this is exact to rounding.
pub const EXACT: f64 = 1e-12;

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> RunError + '_ {
    move |source| RunError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Rows with their points, for one (example, T).
pub(crate) struct CaseRows<'a> {
    pub example: Example,
    /// The key of the case in paths.csv and the tables.
    pub label: String,
    /// The case in a figure.
    pub title: String,
    pub rows: Vec<(&'a SmPoint, &'a Row)>,
}

pub(crate) fn group<'a>(
    spec: &SmSpec,
    points: &'a [SmPoint],
    rows: &'a [Row],
) -> Vec<CaseRows<'a>> {
    distinct_examples(spec)
        .into_iter()
        .map(|(example, t_end)| CaseRows {
            example,
            label: case_label(&example),
            title: case_title(&example),
            rows: rows
                .iter()
                .filter_map(|r| points.get(r.point_id).map(|p| (p, r)))
                .filter(|(p, _)| p.case.example == example && p.case.t_end == t_end)
                .collect(),
        })
        .collect()
}

/// The incremental rows of a case, (N, row), N ascending, successful only.
fn incremental<'a>(c: &CaseRows<'a>) -> Vec<(usize, &'a Row)> {
    let mut v: Vec<(usize, &Row)> = c
        .rows
        .iter()
        .filter(|(_, r)| r.text("status") == "ok")
        .filter_map(|(p, r)| match p.case.setting {
            Setting::Incremental { steps } => Some((steps, *r)),
            Setting::Compliant(_) => None,
        })
        .collect();
    v.sort_by_key(|(n, _)| *n);
    v
}

/// The measured convergence of one case's incremental problem.
#[derive(Clone, Debug, Serialize)]
pub struct IncrementalFits {
    pub case: String,
    pub regime: &'static str,
    /// sup error ∝ N^(−order), fitted over N ≥ [`FIT_MIN_STEPS`] (sub-critical cases).
    pub sup_error_order: Option<LinearFit>,
    /// The smallest N from which every sup error is ≤ [`EXACT`] (cases with a jump).
    pub exact_from_steps: Option<usize>,
    /// |jump node time − exact| ∝ N^(−order), fitted over N ≥ [`FIT_MIN_STEPS`].
    pub node_time_order: Option<LinearFit>,
    pub min_energy_slack: f64,
    pub max_complementarity: f64,
    pub max_stability_violation: f64,
    pub jump_energy: Option<JumpEnergy>,
}

fn fit_order(points: &[(usize, f64)]) -> Option<LinearFit> {
    let (n, e): (Vec<f64>, Vec<f64>) = points
        .iter()
        .filter(|(n, e)| *n >= FIT_MIN_STEPS && *e > 0.0)
        .map(|(n, e)| (*n as f64, *e))
        .unzip();
    power_law(&n, &e).map(|mut f| {
        f.slope = -f.slope;
        f
    })
}

fn incremental_fits(c: &CaseRows) -> Option<IncrementalFits> {
    let rows = incremental(c);
    if rows.is_empty() {
        return None;
    }
    let num = |r: &Row, k: &str| r.number(k).unwrap_or(f64::NAN);
    let sup: Vec<(usize, f64)> = rows
        .iter()
        .map(|(n, r)| (*n, num(r, "sup_error")))
        .collect();
    let node: Vec<(usize, f64)> = rows
        .iter()
        .map(|(n, r)| {
            (
                *n,
                (num(r, "jump_node_time") - num(r, "transition_time_exact")).abs(),
            )
        })
        .collect();
    let regime = c.example.regime();
    let exact_from_steps = regime
        .jumps()
        .then(|| {
            let last_bad = sup.iter().rposition(|(_, e)| e.is_nan() || *e > EXACT);
            match last_bad {
                None => sup.first().map(|s| s.0),
                Some(i) => sup.get(i + 1).map(|s| s.0),
            }
        })
        .flatten();
    let fold = |k: &str, init: f64, f: fn(f64, f64) -> f64| {
        rows.iter().map(|(_, r)| num(r, k)).fold(init, f)
    };
    Some(IncrementalFits {
        case: c.label.clone(),
        regime: regime.name(),
        sup_error_order: (!regime.jumps()).then(|| fit_order(&sup)).flatten(),
        exact_from_steps,
        node_time_order: fit_order(&node),
        min_energy_slack: fold("energy_slack_min", f64::INFINITY, f64::min),
        max_complementarity: fold("complementarity_max", 0.0, f64::max),
        max_stability_violation: fold("stability_violation_max", 0.0, f64::max),
        jump_energy: c.example.jump_energy(),
    })
}

pub(crate) fn fmt_fit(f: &Option<LinearFit>) -> String {
    f.as_ref()
        .map(|f| format!("{:.3} ± {:.3}", f.slope, f.slope_ci95))
        .unwrap_or_else(|| "—".into())
}

pub(crate) fn fmt_opt(v: Option<f64>, digits: usize) -> String {
    // A rounding residue prints as 0, not −0.
    v.map(|v| if v.abs() < 1e-12 { 0.0 } else { v })
        .map(|v| format!("{v:.digits$}"))
        .unwrap_or_else(|| "—".into())
}

/// The table of cases: regime, (G5), breakpoints, the jump and its energy.
fn cases_table(s: &mut String, cases: &[CaseRows]) {
    let _ = writeln!(
        s,
        "| case | threshold | regime | (G5) | breakpoints t₁, t₂(, t₃) | jump t: z⁻ → z⁺ | released E | Coulomb | defect of (E) |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|");
    for c in cases {
        let cf = c.example.closed_form();
        let bp: Vec<String> = cf.breakpoints.iter().map(|t| format!("{t:.4}")).collect();
        let jump = cf.jump.map_or("—".into(), |j| {
            format!(
                "{:.4}: ({:.4}, {:.4}) → ({:.4}, {:.4})",
                j.time, j.from[0], j.from[1], j.to[0], j.to[1]
            )
        });
        let e = c.example.jump_energy();
        let _ = writeln!(
            s,
            "| {} | {:.4} | {} | {} | {} | {} | {} | {} | {} |",
            c.label,
            c.example.threshold(),
            c.example.regime().name(),
            if c.example.g5_holds() {
                "holds"
            } else {
                "fails"
            },
            bp.join(", "),
            jump,
            fmt_opt(e.map(|e| e.released), 4),
            fmt_opt(e.map(|e| e.coulomb), 4),
            fmt_opt(e.map(|e| e.defect), 4),
        );
    }
}

fn incremental_section(s: &mut String, cases: &[CaseRows], fits: &[IncrementalFits]) {
    let _ = writeln!(s, "\n## The incremental problem (IP)\n");
    let min_slack = fits
        .iter()
        .map(|f| f.min_energy_slack)
        .fold(f64::INFINITY, f64::min);
    let compl = fits
        .iter()
        .map(|f| f.max_complementarity)
        .fold(0.0, f64::max);
    let stab = fits
        .iter()
        .map(|f| f.max_stability_violation)
        .fold(0.0, f64::max);
    let _ = writeln!(
        s,
        "Every step of every run: smallest slack of (3.31) {min_slack:.3e} (must be ≥ −1e-12), \
         largest |z_k,2 σ(t_k, z_k)| {compl:.3e} (Lemma 3.3(2), must be ≤ 1e-12), largest \
         violation of the discrete stability of Lemma 3.3(1) {stab:.3e}.\n"
    );
    let _ = writeln!(
        s,
        "| case | regime | order of the sup error (N ≥ {FIT_MIN_STEPS}) | sup error ≤ 1e-12 from N = | order of the jump node time error (N ≥ {FIT_MIN_STEPS}) |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|");
    for f in fits {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} |",
            f.case,
            f.regime,
            fmt_fit(&f.sup_error_order),
            f.exact_from_steps.map_or("—".into(), |n| n.to_string()),
            fmt_fit(&f.node_time_order)
        );
    }
    let _ = writeln!(
        s,
        "\nThe sup error leaves out |t_k − t_jump| ≤ {} when the closed form jumps. The jump node \
         time is the first t_k with z_k,1 past the middle of the transition (the jump, or \
         §4.1's ramp 2 → 3 and §4.2's slide 1 → 0 when sub-critical); its exact value is the \
         jump time or the time the closed form crosses that middle.\n",
        super::analysis::JUMP_WINDOW
    );
    for c in cases {
        let rows = incremental(c);
        if rows.is_empty() {
            continue;
        }
        let _ = writeln!(s, "### {} ({})\n", c.label, c.example.regime().name());
        let _ = writeln!(
            s,
            "| N | sup error | jump node time | − exact | nodes in 5–95 % | largest increment | Σ slack (3.31) |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|---|");
        for (n, r) in rows {
            let node = r.number("jump_node_time");
            let exact = r.number("transition_time_exact");
            let _ = writeln!(
                s,
                "| {n} | {:.3e} | {} | {} | {} | {:.3e} | {:.6} |",
                r.number("sup_error").unwrap_or(f64::NAN),
                fmt_opt(node, 6),
                node.zip(exact)
                    .map_or("—".into(), |(a, b)| format!("{:.2e}", a - b)),
                r.text("nodes_in_jump"),
                r.number("max_increment").unwrap_or(f64::NAN),
                r.number("energy_slack_sum").unwrap_or(f64::NAN),
            );
        }
        let _ = writeln!(s);
    }
}

/// (case, series) → points of paths.csv.
pub(crate) fn read_paths(dir: &Path) -> Vec<(String, String, f64, f64)> {
    let Ok(text) = std::fs::read_to_string(dir.join(PATHS_CSV)) else {
        return Vec::new();
    };
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            Some((
                c.first()?.to_string(),
                c.get(1)?.to_string(),
                c.get(2)?.parse().ok()?,
                c.get(3)?.parse().ok()?,
            ))
        })
        .collect()
}

pub(crate) fn series(label: &str, points: Vec<(f64, f64)>, mark: Mark, color: usize) -> Series {
    Series {
        label: label.into(),
        points,
        mark,
        color,
    }
}

pub(crate) fn panel(title: &str, x: &str, y: &str, log: bool) -> Panel {
    Panel {
        title: title.into(),
        x_label: x.into(),
        y_label: y.into(),
        log_x: log,
        log_y: log,
        legend_lower: log,
        series: Vec::new(),
        bands: Vec::new(),
    }
}

/// z₁ of the closed form against the drawn series whose names start with one of `prefixes`,
/// in a window (before, after) around each case's transition; one panel per case that has such
/// series.
pub(crate) fn path_figure(
    cases: &[&CaseRows],
    paths: &[(String, String, f64, f64)],
    prefixes: &[&str],
    x_label: &str,
    window: (f64, f64),
    out: &FigureTarget,
    stem: &str,
) -> Result<bool, String> {
    let mut panels = Vec::new();
    for c in cases {
        let mut p = panel(
            &format!("{} ({})", c.title, c.example.regime().name()),
            x_label,
            "z₁",
            false,
        );
        // The legend goes where the path is not: below it when z₁ falls.
        let t = c.example.closed_form().transition;
        p.legend_lower = t.z1_to < t.z1_from;
        // A window around the transition, where the descriptions differ.
        let mid = c
            .example
            .closed_form()
            .transition_midpoint_time()
            .unwrap_or(0.0);
        let (lo, hi) = (mid - window.0, mid + window.1);
        let pick = |series: &str| -> Vec<(f64, f64)> {
            paths
                .iter()
                .filter(|(case, s, t, _)| *case == c.label && s == series && (lo..=hi).contains(t))
                .map(|(_, _, t, z)| (*t, *z))
                .collect()
        };
        let mut names: Vec<String> = Vec::new();
        for (case, s, _, _) in paths {
            if *case == c.label && prefixes.iter().any(|p| s.starts_with(p)) && !names.contains(s) {
                names.push(s.clone());
            }
        }
        if names.is_empty() {
            continue;
        }
        for (i, name) in names.iter().enumerate() {
            let mark = if name.starts_with("IP") {
                Mark::Markers
            } else {
                Mark::Line
            };
            p.series.push(series(name, pick(name), mark, i));
        }
        // The closed form on top.
        p.series
            .push(series("closed form", pick("exact"), Mark::Line, 6));
        p.series
            .push(series("", pick("exact after jump"), Mark::Line, 6));
        panels.push(p);
    }
    if panels.is_empty() {
        return Ok(false);
    }
    save_grid(panels, (1400, 420), out, stem)?;
    Ok(true)
}

/// Where the figures of a run go, and the caption line that names the experiment and method.
pub(crate) struct FigureTarget<'a> {
    pub dir: &'a Path,
    pub caption: String,
}

impl<'a> FigureTarget<'a> {
    /// "sm_dynamic · compliant, radau5, rtol 10⁻¹⁰": the experiment and its method.
    fn of(spec: &SmSpec, dir: &'a Path) -> Self {
        let mut caption = format!("{} · {}", spec.name, spec.params.method.name());
        if let Some(integrator) = spec.params.integrator {
            caption += &format!(", {integrator}");
        }
        if let Some(rtol) = spec.params.values.get(&super::spec::Key::Rtol) {
            caption += &format!(", rtol {}", format_small_parameter(*rtol));
        }
        FigureTarget { dir, caption }
    }
}

/// Save panels two to a row, each row `size.1` pixels high, as `dir/stem.{svg,png}`, captioned.
pub(crate) fn save_grid(
    panels: Vec<Panel>,
    size: (u32, u32),
    out: &FigureTarget,
    stem: &str,
) -> Result<(), String> {
    let rows = panels.len().div_ceil(2) as u32;
    let fig = Figure {
        panels,
        columns: 2,
        size: (size.0, size.1 * rows),
    };
    save_captioned(&fig, &out.caption, out.dir, stem)
}

/// Errors below this are drawn at it (an exact 0 has no place on a log axis).
const FLOOR: f64 = 1e-16;

/// sup error and jump-node-time error against N, one panel pair per example.
fn convergence_figure(cases: &[CaseRows], out: &FigureTarget) -> Result<bool, String> {
    let mut panels = Vec::new();
    for (ex, name) in [(1, "§4.1"), (2, "§4.2")] {
        let mut sup = panel(
            &format!("{name}: sup error"),
            "steps N (time step τ = T/N)",
            "max over nodes of ‖z_k − z(t_k)‖ (0 drawn at 10⁻¹⁶)",
            true,
        );
        let mut node = panel(
            &format!("{name}: jump node time"),
            "steps N (time step τ = T/N)",
            "|jump node time − exact jump time|",
            true,
        );
        for (i, c) in cases
            .iter()
            .filter(|c| matches!(c.example, Example::VaryingFriction(_)) == (ex == 1))
            .enumerate()
        {
            let rows = incremental(c);
            let pts = |f: &dyn Fn(&Row) -> Option<f64>| -> Vec<(f64, f64)> {
                rows.iter()
                    .filter_map(|(n, r)| Some((*n as f64, f(r)?.max(FLOOR))))
                    .collect()
            };
            let label = format!("H₁₁ = {} ({})", c.example.h11(), c.example.regime().name());
            sup.series.push(series(
                &label,
                pts(&|r| r.number("sup_error")),
                Mark::LineMarkers,
                i,
            ));
            node.series.push(series(
                &label,
                pts(&|r| {
                    Some((r.number("jump_node_time")? - r.number("transition_time_exact")?).abs())
                }),
                Mark::LineMarkers,
                i,
            ));
        }
        if sup.series.iter().all(|s| s.points.is_empty()) {
            continue;
        }
        panels.push(sup);
        panels.push(node);
    }
    if panels.is_empty() {
        return Ok(false);
    }
    save_grid(panels, (1300, 480), out, "ip_convergence")?;
    Ok(true)
}

#[derive(Serialize)]
struct Analysis {
    incremental: Vec<IncrementalFits>,
    compliant: Option<super::dynamic_report::CompliantAnalysis>,
}

/// Write summary.md, analysis.json and the figures of the run in `dir`.
pub fn write_report(spec: &SmSpec, dir: &Path) -> Result<(), RunError> {
    let path = dir.join(RUNS_CSV);
    let text = std::fs::read_to_string(&path).map_err(io(&path))?;
    let rows = parse_rows(&text, &super::plan::columns());
    let points = spec.points();
    let cases = group(spec, &points, &rows);
    let fits: Vec<IncrementalFits> = cases.iter().filter_map(incremental_fits).collect();
    let paths = read_paths(dir);
    let out = FigureTarget::of(spec, dir);
    let fig_err = |e: String| RunError::Io {
        path: dir.display().to_string(),
        source: std::io::Error::other(e),
    };
    let mut s = String::new();
    let _ = writeln!(s, "# {}: Schmid–Mielke §4\n", spec.name);
    let _ = writeln!(
        s,
        "Generated by `rigid-limit run experiments/{}.toml` (or `rigid-limit reproduce`) from \
         runs.csv and paths.csv; derivations and equation numbers in docs/schmid_mielke.md.\n",
        spec.name
    );
    let failed = rows.iter().filter(|r| r.text("status") != "ok").count();
    let _ = writeln!(s, "{} runs, {failed} failed.\n", rows.len());
    let _ = writeln!(s, "## Cases and their closed forms\n");
    cases_table(&mut s, &cases);
    let _ = writeln!(
        s,
        "\nThe threshold is σ*(μ₀ − μ₁) (§4.1) or μ*H₁₂ (§4.2) against H₁₁ (the paper's ᾱ); \
         (G5) compares q with α = λ_min(H) and can fail without a jump. Released E: \
         E(t_j, z⁻) − E(t_j, z⁺); Coulomb: the friction work along the contact path at frozen \
         load; their difference is what (E) leaves unaccounted.\n"
    );
    let all: Vec<&CaseRows> = cases.iter().collect();
    if !fits.is_empty() {
        incremental_section(&mut s, &cases, &fits);
        if path_figure(&all, &paths, &["IP"], "t", (0.6, 0.6), &out, "ip_paths").map_err(fig_err)? {
            let _ = writeln!(
                s,
                "![z₁(t) around the transition: closed form and (IP) at N = 16, 64, 256](ip_paths.png)\n"
            );
        }
        if convergence_figure(&cases, &out).map_err(fig_err)? {
            let _ = writeln!(
                s,
                "![sup error and jump node time error against N](ip_convergence.png)\n"
            );
        }
    }
    let compliant =
        super::dynamic_report::write_section(&mut s, &cases, &paths, &out).map_err(fig_err)?;
    write_atomically(&dir.join("summary.md"), &s)?;
    let analysis = Analysis {
        incremental: fits,
        compliant,
    };
    write_atomically(
        &dir.join("analysis.json"),
        &(crate::report::json::pretty(&analysis) + "\n"),
    )
}
