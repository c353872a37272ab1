//! The compliant model's figures: the jumps in fast time (dyn_jump) and the convergence in ε and
//! κ with the delay and the excursion (dyn_convergence). Plotting only: the data are rows,
//! paths.csv and the closed forms.

use super::dynamic_rows::{
    compliant, ladder, num, CompliantFits, JumpComparison, KAPPA_CHECK_EPSILON,
};
use super::examples::Regime;
use super::report_kit::{panel, save_grid, series, CaseRows, FigureTarget};
use crate::plot::style::format_small_parameter;
use crate::plot::Mark;

/// A drawn compliant series of paths.csv.
struct Drawn<'a> {
    name: &'a str,
    epsilon: f64,
    /// Given in the name only for the other ζ than the grid's first.
    zeta: Option<f64>,
    /// (s, z₁).
    points: Vec<(f64, f64)>,
}

/// The drawn compliant series of a case.
fn drawn_series<'a>(paths: &'a [(String, String, f64, f64)], label: &str) -> Vec<Drawn<'a>> {
    let mut out: Vec<Drawn> = Vec::new();
    for (case, name, t, z) in paths {
        if case != label || !name.starts_with("compliant") {
            continue;
        }
        if let Some(entry) = out.iter_mut().find(|e| e.name == name.as_str()) {
            entry.points.push((*t, *z));
            continue;
        }
        let value = |key: &str| {
            name.split(' ')
                .find_map(|w| w.strip_prefix(key))
                .and_then(|v| v.parse::<f64>().ok())
        };
        if let Some(epsilon) = value("ε=") {
            out.push(Drawn {
                name: name.as_str(),
                epsilon,
                zeta: value("ζ="),
                points: vec![(*t, *z)],
            });
        }
    }
    out
}

/// The jumps in fast time: z₁ against (s − t_jump)/ε for every drawn ε; for §4.1 also
/// z₁ − (μ₁ branch) against the fast time since the crossing of z₁ = 3 for every ζ, with the
/// frozen-load excursions.
pub(crate) fn jump_figure(
    cases: &[&CaseRows],
    paths: &[(String, String, f64, f64)],
    jumps: &[JumpComparison],
    out: &FigureTarget,
) -> Result<bool, String> {
    let mut panels = Vec::new();
    for c in cases {
        let Some(jump) = c.example.closed_form().jump else {
            continue;
        };
        let drawn = drawn_series(paths, &c.label);
        let mut by_eps = panel(
            &format!("{}: z₁ in fast time", c.title),
            "(s − jump time)/ε",
            "z₁",
            false,
        );
        by_eps.legend_lower = jump.to[0] < jump.from[0];
        // ε = 0.1 is not slow: its "jump" spans the whole window.
        for (i, d) in drawn
            .iter()
            .filter(|d| d.zeta.is_none() && d.epsilon <= 0.03)
            .enumerate()
        {
            let (eps, pts) = (d.epsilon, &d.points);
            let fast: Vec<(f64, f64)> = pts
                .iter()
                .map(|(s, z)| ((s - jump.time) / eps, *z))
                .filter(|(x, _)| (-10.0..=110.0).contains(x))
                .collect();
            by_eps.series.push(series(
                &format!("ε = {}", format_small_parameter(eps)),
                fast,
                Mark::Line,
                i,
            ));
        }
        if by_eps.series.is_empty() {
            continue;
        }
        panels.push(by_eps);
        // Every other ζ at its smallest ε, and the first ζ at its smallest ε.
        let smallest_first = drawn
            .iter()
            .filter(|e| e.zeta.is_none())
            .map(|e| e.epsilon)
            .fold(f64::INFINITY, f64::min);
        let with_zeta: Vec<&Drawn> = drawn
            .iter()
            .filter(|d| d.zeta.is_some() || d.epsilon == smallest_first)
            .collect();
        let mut landing = panel(
            &format!("{}: height above the μ₁ branch", c.title),
            "(s − s at z₁ = 3)/ε",
            "z₁ − branch",
            false,
        );
        landing.legend_lower = true;
        for (i, d) in with_zeta.iter().enumerate() {
            let (eps, pts) = (d.epsilon, &d.points);
            let Some(cross) = pts.iter().find(|(_, z)| *z >= super::examples::RAMP.1) else {
                continue;
            };
            let zeta = d.zeta.or(jumps.first().map(|j| j.zeta)).unwrap_or(f64::NAN);
            let above: Vec<(f64, f64)> = pts
                .iter()
                .filter_map(|(s, z)| {
                    let b = super::dynamic::mu1_branch(&c.example, *s)?;
                    Some(((s - cross.0) / eps, z - b))
                })
                .filter(|(x, _)| (-15.0..=40.0).contains(x))
                .collect();
            landing.series.push(series(
                &format!("ζ = {zeta}, ε = {}", format_small_parameter(eps)),
                above.clone(),
                Mark::Line,
                i,
            ));
            if let Some(j) = jumps.iter().find(|j| j.case == c.label && j.zeta == zeta) {
                let level = j.frozen.excursion;
                // The frozen-load jump's landing height, named once (dashed, the ζ's colour).
                let named = landing.series.iter().any(|s| s.mark == Mark::Dashed);
                landing.series.push(series(
                    if named {
                        ""
                    } else {
                        "dashed: the frozen-load jump's landing"
                    },
                    vec![(0.0, level), (40.0, level)],
                    Mark::Dashed,
                    i,
                ));
            }
        }
        if landing.series.iter().any(|s| !s.points.is_empty()) {
            panels.push(landing);
        }
    }
    if panels.is_empty() {
        return Ok(false);
    }
    save_grid(
        panels,
        (1400, 460),
        "z₁ through the jump in the fast time (s − jump time)/ε, per ε, and its landing above the \
         μ₁ branch, per ζ",
        out,
        "dyn_jump",
    )?;
    Ok(true)
}

/// sup error against ε and κ, the excursion against ε per ζ, the crossing delay against ε.
pub(crate) fn convergence_figure(
    cases: &[CaseRows],
    fits: &[CompliantFits],
    jumps: &[JumpComparison],
    out: &FigureTarget,
) -> Result<(), String> {
    let mut by_eps = panel(
        "sup error against ε",
        "ε",
        "sup over s of ‖z(s) − exact z(s)‖",
        true,
    );
    by_eps.legend_lower = false;
    let mut by_kappa = panel(
        &format!(
            "sup error against κ (ε = {}; colours as left)",
            format_small_parameter(KAPPA_CHECK_EPSILON)
        ),
        "compliance κ",
        "sup over s of ‖z(s) − exact z(s)‖",
        true,
    );
    let mut delay = panel(
        "delay of the crossing (smallest κ)",
        "ε",
        "crossing time − exact",
        true,
    );
    delay.legend_lower = false;
    for (i, (c, f)) in cases
        .iter()
        .filter_map(|c| Some((c, fits.iter().find(|f| f.case == c.label)?)))
        .enumerate()
    {
        let rows = compliant(c);
        let label = format!("{} ({})", c.title, c.example.regime().name());
        let lad = ladder(&rows, f.kappa, f.zeta);
        by_eps.series.push(series(
            &label,
            lad.iter().map(|(e, r)| (*e, num(r, "sup_error"))).collect(),
            Mark::LineMarkers,
            i,
        ));
        let mut k: Vec<(f64, f64)> = rows
            .iter()
            .filter(|(s, _)| s.zeta == f.zeta && s.epsilon == KAPPA_CHECK_EPSILON)
            .map(|(s, r)| (s.kappa, num(r, "sup_error")))
            .collect();
        k.sort_by(|a, b| a.0.total_cmp(&b.0));
        by_kappa.series.push(series("", k, Mark::LineMarkers, i));
        if c.example.regime() == Regime::Supercritical {
            let exact = c
                .example
                .closed_form()
                .crossing_time(super::examples::crossing_level(&c.example))
                .unwrap_or(f64::NAN);
            delay.series.push(series(
                &label,
                lad.iter()
                    .map(|(e, r)| (*e, num(r, "crossing_time") - exact))
                    .collect(),
                Mark::LineMarkers,
                i,
            ));
        }
    }
    if let Some(j) = jumps.first() {
        let lambda = j.frozen.ramp_rate;
        let reference: Vec<(f64, f64)> = j
            .runs
            .iter()
            .map(|&(e, _, _, _)| (e, e * (1.0 / e).ln() / lambda))
            .collect();
        delay.series.push(series(
            &format!("ε ln(1/ε)/λ, λ = {lambda:.4} (§4.1, ζ = {})", j.zeta),
            reference,
            Mark::Dashed,
            6,
        ));
    }
    let mut excursion = panel(
        "excursion above the μ₁ branch (§4.1 jump)",
        "ε",
        "max (z₁ − branch)",
        false,
    );
    excursion.log_x = true;
    excursion.legend_lower = true;
    for (i, j) in jumps.iter().enumerate() {
        let pts: Vec<(f64, f64)> = j.runs.iter().map(|&(e, _, x, _)| (e, x)).collect();
        let ends = (
            pts.iter().map(|p| p.0).fold(f64::INFINITY, f64::min),
            pts.iter().map(|p| p.0).fold(0.0, f64::max),
        );
        excursion.series.push(series(
            &format!("ζ = {}", j.zeta),
            pts,
            Mark::LineMarkers,
            i,
        ));
        // The frozen-load jump's excursion, named once (dashed, the ζ's colour).
        excursion.series.push(series(
            if i == 0 {
                "dashed: the frozen-load jump's excursion"
            } else {
                ""
            },
            vec![(ends.0, j.frozen.excursion), (ends.1, j.frozen.excursion)],
            Mark::Dashed,
            i,
        ));
    }
    let mut panels = vec![by_eps, by_kappa, delay, excursion];
    panels.retain(|p| p.series.iter().any(|s| !s.points.is_empty()));
    save_grid(
        panels,
        (1300, 470),
        "The compliant paths' sup error against ε and κ, the delay of the crossing and the \
         excursion above the μ₁ branch",
        out,
        "dyn_convergence",
    )
}
