//! summary.md and the figure of `klarbring_impacts`, from its rows: per case the rigid impact,
//! the compliant post-impact velocity against V⁺ by κ, its rate with a 95 % interval over
//! κ ∈ [1e-8, 1e-4] against the predicted one, and the restitution measured at the opening
//! extrapolated to κ → 0 against e(c_d): the report of `Convergence<KlarbringImpacts>`. No
//! solver here.

use super::{predicted_rate, KlarbringImpacts};
use crate::analysis::fit::multiple_least_squares;
use crate::experiment::runner::{write_atomically, RunError};
use crate::experiment::table::Row;
use crate::plot::style::{format_small_parameter, format_value};
use crate::plot::{save_captioned, Figure, Mark, Panel, Series};
use crate::report::markdown::{each_number, fixed, provenance, small};
use crate::report::rates::{fitted_series, rate, FIT_RANGE};
use crate::study::convergence::Convergence;
use std::fmt::Write;
use std::path::Path;

/// The rows of one case (V0, c_d), in κ order, and its name.
struct Case<'a> {
    v0: String,
    damping: f64,
    restitution: f64,
    rows: Vec<&'a Row>,
}

impl Case<'_> {
    fn ok(&self) -> Vec<&Row> {
        self.rows
            .iter()
            .copied()
            .filter(|r| r.text("status") == "ok")
            .collect()
    }
    /// Whether the rigid impact sticks (V_T⁺ = 0), from the first run that completed.
    fn sticks(&self) -> Option<bool> {
        self.ok().first().map(|r| r.text("impact_sticks") == "true")
    }
    fn label(&self) -> String {
        let regime = match self.sticks() {
            Some(true) => "sticks",
            Some(false) => "slips",
            None => "?",
        };
        format!(
            "V₀ = ({}), c_d = {} ({regime})",
            self.v0
                .split_whitespace()
                .map(|c| c.replacen('-', "−", 1))
                .collect::<Vec<_>>()
                .join(", "),
            self.damping
        )
    }
}

fn cases(rows: &[Row]) -> Vec<Case<'_>> {
    let mut out: Vec<Case> = Vec::new();
    for r in rows {
        let (v0, damping) = (r.text("V0"), r.number("damping").unwrap_or(f64::NAN));
        match out.iter_mut().find(|c| c.v0 == v0 && c.damping == damping) {
            Some(c) => c.rows.push(r),
            None => out.push(Case {
                v0: v0.to_string(),
                damping,
                restitution: r.number("restitution").unwrap_or(f64::NAN),
                rows: vec![r],
            }),
        }
    }
    out
}

fn in_fit_range(k: f64) -> bool {
    k >= FIT_RANGE.0 * 0.999 && k <= FIT_RANGE.1 * 1.001
}

/// e^κ = e₀ + a√κ + bκ fitted over [`FIT_RANGE`] (the measured restitution's expansion,
/// docs/klarbring.md "One impact"): e₀ and its standard error.
pub(crate) fn restitution_limit(rows: &[&Row]) -> Option<(f64, f64)> {
    let (k, e): (Vec<f64>, Vec<f64>) = rows
        .iter()
        .filter_map(|r| Some((r.number("kappa")?, r.number("restitution_measured")?)))
        .filter(|(k, _)| in_fit_range(*k))
        .unzip();
    let columns = vec![
        vec![1.0; k.len()],
        k.iter().map(|k| k.sqrt()).collect(),
        k.clone(),
    ];
    let fit = multiple_least_squares(&columns, &e)?;
    Some((fit.coefficients[0], fit.standard_error(0)?))
}

pub fn write_report(
    spec: &Convergence<KlarbringImpacts>,
    rows: &[Row],
    dir: &Path,
) -> Result<(), RunError> {
    let p = &spec.params;
    let integrators: Vec<&str> = spec.solver.integrators.iter().map(|i| i.name()).collect();
    let caption = format!(
        "The velocity at the first opening and the measured restitution against κ: {}, rtol {}, \
         atol {} · μ = {}",
        integrators.join(", "),
        format_small_parameter(spec.solver.rtol),
        format_small_parameter(spec.solver.atol),
        format_value(p.mu)
    );
    let mut s = String::new();
    let _ = writeln!(s, "# {}: one impact of Klarbring's particle\n", spec.name);
    let _ = writeln!(
        s,
        "{} from runs.csv; derivations in docs/klarbring.md (\"One impact\").\n",
        provenance(&spec.name)
    );
    let _ = writeln!(
        s,
        "K = {:?}, F = {:?} + {:?} cos(ω t) + {:?} sin(ω t), ω = {:?}, μ = {}, U0 = {:?}; \
         the run ends at the first opening of the contact; {} rtol {:e}, atol {:e}. \
         ΔV = V^κ(t_open) − V⁺ (rigid post-impact velocity); e^κ = −V_N(t_open)/V_N(t_close).\n",
        p.stiffness,
        p.force_constant,
        p.force_cos.clone().unwrap_or_default(),
        p.force_sin.clone().unwrap_or_default(),
        p.force_frequency.clone().unwrap_or_default(),
        p.mu,
        p.u0,
        integrators.join(", "),
        spec.solver.rtol,
        spec.solver.atol
    );
    let all = cases(rows);
    let _ = writeln!(
        s,
        "| case | predicted rate | rate of ‖ΔV‖ | rate of |ΔV_N| | rate of ‖ΔV_T‖ | e(c_d) | \
         e^κ → e₀ (fit e₀ + a√κ + bκ) | e₀ − e(c_d) |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|");
    for c in &all {
        let ok = c.ok();
        let fmt = |column: &str| match rate(&ok, column) {
            Some(f) => format!("{:.3} ± {:.3} (n = {})", f.slope, f.slope_ci95, f.n),
            None => "–".into(),
        };
        let predicted = c
            .sticks()
            .map_or("–".into(), |st| predicted_rate(c.damping, st).to_string());
        let (limit, gap) = match restitution_limit(&ok) {
            Some((e0, se)) => (
                format!("{e0:.9} ± {se:.1e}"),
                format!("{:.1e}", e0 - c.restitution),
            ),
            None => ("–".into(), "–".into()),
        };
        let _ = writeln!(
            s,
            "| {} | {predicted} | {} | {} | {} | {:.9} | {limit} | {gap} |",
            c.label(),
            fmt("d_V_plus"),
            fmt("d_V_plus_normal"),
            fmt("d_V_plus_tangential"),
            c.restitution
        );
    }
    let _ = writeln!(
        s,
        "\nRates: least squares in log–log over κ ∈ [{:e}, {:e}], 95 % intervals.",
        FIT_RANGE.0, FIT_RANGE.1
    );
    for c in &all {
        let _ = writeln!(s, "\n## {}\n", c.label());
        if let Some(r) = c.ok().first() {
            let _ = writeln!(
                s,
                "Rigid: impact at t = {:.12}, V⁻ = ({}), V⁺ = ({}); e(c_d) = {:.12}.\n",
                r.number("t_impact_rigid").unwrap_or(f64::NAN),
                each_number(r.text("V_minus"), |v| fixed(v, 12)),
                each_number(r.text("V_plus_rigid"), |v| fixed(v, 12)),
                c.restitution
            );
        }
        let _ = writeln!(
            s,
            "| κ | compliant modes | (t_open − t_close)/√κ | e^κ − e(c_d) | ‖ΔV‖ | |ΔV_N| | ‖ΔV_T‖ |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|---|");
        for r in &c.rows {
            let kappa = r.number("kappa").unwrap_or(f64::NAN);
            if r.text("status") != "ok" {
                let _ = writeln!(
                    s,
                    "| {} | failed: {} | | | | | |",
                    small(kappa),
                    r.text("error")
                );
                continue;
            }
            let num = |column: &str| r.number(column).unwrap_or(f64::NAN);
            let _ = writeln!(
                s,
                "| {} | {} | {:.6} | {:.3e} | {:.3e} | {:.3e} | {:.3e} |",
                small(kappa),
                r.text("mode_sequence"),
                num("contact_duration") / kappa.sqrt(),
                num("restitution_measured") - c.restitution,
                num("d_V_plus"),
                num("d_V_plus_normal"),
                num("d_V_plus_tangential")
            );
        }
    }
    write_atomically(&dir.join(crate::report::markdown::SUMMARY_MD), &s)?;
    figure(&all, &caption, dir).map_err(|e| RunError::Io {
        path: dir.display().to_string(),
        source: std::io::Error::other(e),
    })
}

fn figure(all: &[Case], caption: &str, dir: &Path) -> Result<(), String> {
    let log_panel = |title: &str, y_label: &str| Panel {
        title: title.into(),
        x_label: "compliance κ".into(),
        y_label: y_label.into(),
        log_x: true,
        log_y: true,
        legend_lower: true,
        series: Vec::new(),
        bands: Vec::new(),
    };
    let mut dist = log_panel(
        "Post-impact velocity at the first opening; lines: fits over [10⁻⁸, 10⁻⁴]",
        "‖V − V⁺‖ at the opening (V compliant, V⁺ rigid)",
    );
    let mut rest = log_panel(
        "Restitution measured at the opening",
        "|e − e(c_d)|, e = −V_N(open)/V_N(close)",
    );
    for (i, c) in all.iter().enumerate() {
        let ok = c.ok();
        let points = |f: &dyn Fn(&Row) -> Option<f64>| -> Vec<(f64, f64)> {
            ok.iter()
                .filter_map(|r| Some((r.number("kappa")?, f(r)?)))
                .filter(|p| p.1 > 0.0)
                .collect()
        };
        dist.series.extend(fitted_series(
            &c.label(),
            points(&|r| r.number("d_V_plus")),
            rate(&ok, "d_V_plus"),
            None,
            FIT_RANGE,
            i,
        ));
        rest.series.push(Series::new(
            c.label(),
            points(&|r| Some((r.number("restitution_measured")? - c.restitution).abs())),
            Mark::LineMarkers,
            i,
        ));
    }
    save_captioned(
        &Figure {
            panels: vec![dist, rest],
            columns: 2,
            size: (1400, 620),
        },
        caption,
        dir,
        "post_impact",
    )
}
