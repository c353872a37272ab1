//! summary.md, analysis.json and the figures of a `schmid_mielke` run, from its runs.csv and
//! paths.csv (docs/schmid_mielke.md). Reads rows; never solves.

use super::analysis::printed_sliding_branch;
use super::closed_form::{varying_normal_force, JumpEnergy};
use super::examples::{Example, Regime};
use super::report_kit::{
    group, panel, path_figure, read_paths, save_grid, series, CaseRows, FigureTarget,
};
use super::spec::{Setting, SmSpec};
use crate::analysis::fit::{power_law, LinearFit};
use crate::experiment::runner::{write_atomically, RunError, RUNS_CSV};
use crate::experiment::table::{parse_rows, Row};
use crate::plot::style::format_small_parameter;
use crate::plot::Mark;
use crate::report::markdown::{fixed, optional, provenance, slope};
use serde::Serialize;
use std::fmt::Write;
use std::path::Path;

/// The order fits of the incremental problem use N ≥ this.
pub(crate) const FIT_MIN_STEPS: usize = 256;
/// An error at or below this is exact to rounding.
pub(crate) const EXACT: f64 = 1e-12;

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> RunError + '_ {
    move |source| RunError::Io {
        path: path.display().to_string(),
        source,
    }
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
pub(crate) struct IncrementalFits {
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
    /// Prop. 3.4's a-priori bound c*/(α* − q*) on ‖z_k − z_{k−1}‖ per unit of the time step
    /// (none where (G5*) fails), the largest measured ‖z_k − z_{k−1}‖/δt over the case's N, and
    /// their ratio (≤ 1 where the bound holds).
    pub increment_bound: Option<f64>,
    pub max_increment_rate: f64,
    pub increment_bound_ratio: Option<f64>,
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
    // (3.5) with the equidistant t_k = k T/N: δt = T/N.
    let max_increment_rate = rows
        .iter()
        .map(|(n, r)| num(r, "max_increment") * *n as f64 / num(r, "t_end"))
        .fold(0.0, f64::max);
    let increment_bound = c.example.lipschitz_constants().increment_bound();
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
        increment_bound,
        max_increment_rate,
        increment_bound_ratio: increment_bound.map(|b| max_increment_rate / b),
    })
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
            optional(e.map(|e| e.released), |v| fixed(v, 4)),
            optional(e.map(|e| e.coulomb), |v| fixed(v, 4)),
            optional(e.map(|e| e.defect), |v| fixed(v, 4)),
        );
    }
    let _ = writeln!(
        s,
        "\n— : none (a sub-critical case has no jump and releases no energy)."
    );
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
            slope(&f.sup_error_order, 3),
            f.exact_from_steps.map_or("—".into(), |n| n.to_string()),
            slope(&f.node_time_order, 3)
        );
    }
    let _ = writeln!(
        s,
        "\n— : not measured. The order of the sup error is fitted where the closed form is continuous (sub-critical); where it jumps (critical, super-critical) the sup error leaves out the jump and the column gives the N from which it is ≤ 1e-12 instead."
    );
    let _ = writeln!(
        s,
        "\nProp. 3.4's a-priori Lipschitz bound (3.5), ‖z_k − z_(k−1)‖ ≤ c*/(α* − q*)·δt with \
         the constants of (3.3)–(3.4) (docs/schmid_mielke.md), against the largest increment per \
         step over every N:\n\n| case | c*/(α* − q*) | largest ‖δz‖/δt | ratio |\n|---|---|---|---|"
    );
    for f in fits {
        let _ = writeln!(
            s,
            "| {} | {} | {:.6} | {} |",
            f.case,
            f.increment_bound
                .map_or("— ((G5*) fails)".into(), |b| format!("{b:.6}")),
            f.max_increment_rate,
            f.increment_bound_ratio
                .map_or("—".into(), |r| format!("{r:.4}"))
        );
    }
    let _ = writeln!(
        s,
        "\n— : no bound (the constants of (3.3)–(3.4) need (G5*))."
    );
    let _ = writeln!(
        s,
        "\nThe sup error leaves out |t_k − t_jump| ≤ {} when the closed form jumps. The jump node \
         time is the first t_k with z_k,1 past the middle of the transition (the jump, or \
         §4.1's ramp 2 → 3 and §4.2's slide 1 → 0 when sub-critical); its exact value is the \
         jump time or the time the closed form crosses that middle. Its \"order\" is the \
         slope of a power law over the N run, not an order of convergence where the closed \
         form jumps: there the nodes inside the jump grow like ln N, so the error behaves like \
         (a ln N + b)/N (docs/schmid_mielke.md).\n",
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
                optional(node, |v| fixed(v, 6)),
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

impl<'a> FigureTarget<'a> {
    /// "Schmid–Mielke §4 (…), compliant method, radau5, rtol 10⁻¹⁰": the paper's examples and
    /// the method.
    fn of(spec: &SmSpec, dir: &'a Path) -> Self {
        let mut caption = format!(
            "Schmid–Mielke §4 (§4.1: varying friction coefficient; §4.2: varying normal force), \
             {} method",
            spec.params.method.name()
        );
        if let Some(integrator) = spec.params.integrator {
            caption += &format!(", {integrator}");
        }
        if let Some(rtol) = spec.params.values.get(&super::spec::Key::Rtol) {
            caption += &format!(", rtol {}", format_small_parameter(*rtol));
        }
        FigureTarget { dir, caption }
    }
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
    save_grid(
        panels,
        (1300, 480),
        "The incremental method's sup error and jump-time error against the number of steps N",
        out,
        "ip_convergence",
    )?;
    Ok(true)
}

/// §4.2's printed sliding branch against the (IP) solution of a sub-critical case at the
/// largest N (runs.csv `slide_error_printed`, `slide_error_corrected`).
#[derive(Serialize)]
struct PrintedBranch {
    case: String,
    /// N of the (IP) solution compared.
    steps: usize,
    /// The slide t₁ ≤ t ≤ t₂ of (SM5)–(SM6).
    t1: f64,
    t2: f64,
    /// The printed branch at t₁, where the solution leaves z̃ = (1, 0).
    printed_at_t1: f64,
    /// sup over the slide's nodes of |z₁ − printed branch| and of |z₁ − (SM6)|.
    sup_error_printed: f64,
    sup_error_corrected: f64,
}

/// The printed branch of every sub-critical §4.2 case, at its largest N.
fn printed_branches(cases: &[CaseRows]) -> Vec<PrintedBranch> {
    cases
        .iter()
        .filter_map(|c| {
            let Example::VaryingNormalForce(p) = c.example else {
                return None;
            };
            let regime = c.example.regime();
            if regime != Regime::Subcritical {
                return None;
            }
            let (steps, row) = incremental(c)
                .into_iter()
                .rfind(|(_, r)| r.number("slide_error_printed").is_some())?;
            let cf = varying_normal_force(&p, regime);
            let t1 = cf.breakpoints[0];
            Some(PrintedBranch {
                case: c.label.clone(),
                steps,
                t1,
                t2: cf.breakpoints[1],
                printed_at_t1: printed_sliding_branch(&p, t1),
                sup_error_printed: row.number("slide_error_printed")?,
                sup_error_corrected: row.number("slide_error_corrected")?,
            })
        })
        .collect()
}

fn printed_branch_section(s: &mut String, branches: &[PrintedBranch]) {
    if branches.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "### §4.2's sliding branch as printed\n\n\
         The paper prints the sliding branch of §4.2 as z₁ = −a f₂/(H₁₁ − μ*H₁₂); the tangential \
         balance H₁₁z₁ = μ*σ gives (SM6), z₁ = −μ* f₂/(H₁₁ − μ*H₁₂) (docs/schmid_mielke.md, \
         \"Typo\"). Both against the (IP) solution on the slide's nodes t₁ ≤ t_k ≤ t₂ at the \
         largest N (runs.csv `slide_error_printed`, `slide_error_corrected`):\n\n\
         | case | N | slide [t₁, t₂] | sup \\|z₁ − printed\\| | printed z₁(t₁) (z₁ = 1 there) | sup \\|z₁ − (SM6)\\| |\n\
         |---|---|---|---|---|---|"
    );
    for b in branches {
        let _ = writeln!(
            s,
            "| {} | {} | [{}, {}] | {:.6} | {:.6} | {:.2e} |",
            b.case,
            b.steps,
            b.t1,
            b.t2,
            b.sup_error_printed,
            b.printed_at_t1,
            b.sup_error_corrected
        );
    }
    let _ = writeln!(s);
}

#[derive(Serialize)]
struct Analysis {
    incremental: Vec<IncrementalFits>,
    /// §4.2's printed sliding branch against the (IP) solutions.
    printed_branch: Vec<PrintedBranch>,
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
    let printed_branch = printed_branches(&cases);
    let out = FigureTarget::of(spec, dir);
    let fig_err = |e: String| RunError::Io {
        path: dir.display().to_string(),
        source: std::io::Error::other(e),
    };
    let mut s = String::new();
    let _ = writeln!(s, "# {}: Schmid–Mielke §4\n", spec.name);
    let _ = writeln!(
        s,
        "{} from runs.csv and paths.csv; derivations and equation numbers in \
         docs/schmid_mielke.md.\n",
        provenance(&spec.name)
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
        printed_branch_section(&mut s, &printed_branch);
    }
    let compliant =
        super::dynamic_report::write_section(&mut s, &cases, &paths, &out).map_err(fig_err)?;
    write_atomically(&dir.join(crate::report::markdown::SUMMARY_MD), &s)?;
    let analysis = Analysis {
        incremental: fits,
        printed_branch,
        compliant,
    };
    write_atomically(
        &dir.join("analysis.json"),
        &(crate::report::json::pretty(&analysis) + "\n"),
    )
}
