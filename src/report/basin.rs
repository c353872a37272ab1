//! The report of a lift-off/IWC basin ([`crate::study::fast::basin`]): analysis.json (the
//! checks of [`crate::analysis::basin`]), the figures of the boundary in the (Y0, V0) plane
//! (boundary.png) and of |offset| against κ (offsets.png), and summary.md.

use crate::analysis::basin::{checks, BasinChecks, LineCheck};
use crate::experiment::runner::{write_atomically, RunError};
use crate::experiment::table::Row;
use crate::plot::style::plot_text;
use crate::plot::{self, Figure, Mark, Panel, Series};
use crate::report::markdown::provenance;
use std::fmt::Write;
use std::path::Path;

/// What a basin study's report is told (the lift-off/IWC basin's and the stick/lift-off
/// basin's, [`super::stick_basin`]): the experiment's name, the system (`title`), the columns
/// that identify a state, and the bisection's final bracket width.
#[derive(Clone, Copy, Debug)]
pub struct BasinStudy<'a> {
    pub name: &'a str,
    pub title: &'a str,
    pub state_columns: &'a [&'a str],
    pub bracket: f64,
}

impl BasinStudy<'_> {
    /// summary.md's title (`# name: system what`) and the start of its first paragraph: the
    /// command that regenerates it.
    pub(crate) fn summary_head(&self, what: &str) -> String {
        format!(
            "# {name}: {title} {what}\n\n{}. ",
            provenance(self.name),
            name = self.name,
            title = self.title
        )
    }
}

/// summary.md, analysis.json and the figures of offsets against κ and of the boundary.
pub fn write_report(study: &BasinStudy, rows: &[Row], dir: &Path) -> Result<(), RunError> {
    let BasinStudy {
        title,
        state_columns,
        ..
    } = *study;
    let c = checks(rows, state_columns);
    crate::report::write_analysis(dir, &c)?;
    let fitted: Vec<&LineCheck> = c.lines.iter().filter(|l| l.exponent.is_some()).collect();
    if !fitted.is_empty() {
        let states = state_numbers(&c.lines);
        // States whose offsets on a line agree to SAME_CURVE (mirror images: θ and π − θ with
        // the slip reversed agree to about 10⁻¹²) share one curve, which names them all; drawn
        // twice, the later would hide the earlier.
        let mut curves: Vec<(&LineCheck, Vec<usize>)> = Vec::new();
        for l in &fitted {
            let number = states.iter().position(|s| *s == l.state).unwrap_or(0) + 1;
            match curves
                .iter_mut()
                .find(|(m, _)| m.line == l.line && same_curve(&m.offsets, &l.offsets))
            {
                Some((_, numbers)) => numbers.push(number),
                None => curves.push((l, vec![number])),
            }
        }
        let series = curves
            .iter()
            .map(|(l, numbers)| {
                let names: Vec<String> = numbers.iter().map(usize::to_string).collect();
                let states = if numbers.len() == 1 {
                    "state"
                } else {
                    "states"
                };
                Series {
                    label: format!(
                        "{states} {} · {}",
                        names.join(" and "),
                        plot_text(&l.line.replace('=', " = "))
                    ),
                    points: l.offsets.iter().map(|&(k, o)| (k, o.abs())).collect(),
                    // Colour by state, line style by line.
                    mark: match l.line.as_str() {
                        "V0=0" => Mark::LineMarkers,
                        "Y0=0" => Mark::Dashed,
                        _ => Mark::Line,
                    },
                    color: numbers[0] - 1,
                }
            })
            .collect();
        let figure = Figure {
            panels: vec![Panel {
                title: format!("{}: boundary − stable manifold", capitalised(title)),
                x_label: "compliance κ".into(),
                y_label: "|Δt|: boundary − manifold (t = Y₀ or V₀)".into(),
                log_x: true,
                log_y: true,
                legend_lower: false,
                series,
                bands: Vec::new(),
            }],
            columns: 1,
            size: (900, 600),
        };
        plot::save_captioned(
            &figure,
            "Distance of the lift-off/IWC boundary (by bisection) to the stable manifold against κ, per \
             state and search line; states named together agree to 10⁻⁹",
            dir,
            "offsets",
        )
        .map_err(crate::report::figure_error(dir))?;
    }
    let boundary = boundary_figure(title, &c);
    if let Some(figure) = &boundary {
        plot::save_captioned(
            figure,
            "The slip saddle's stable manifold (line) and the lift-off/IWC boundary found by bisection at the smallest κ (markers)",
            dir,
            "boundary",
        )
        .map_err(crate::report::figure_error(dir))?;
    }
    write_atomically(
        &dir.join(crate::report::markdown::SUMMARY_MD),
        &render(study, &c, boundary.is_some()),
    )
}

/// The (Y0, V0) plane per state (at most four panels): the slip saddle's stable manifold
/// V = λ_s (Y − b/p), the line through its crossings of the search lines (V0 = 0 at Y0 = b/p,
/// Y0 = 0, Y0 = 2b/p), the search lines, and the boundary bisected on each at the smallest κ.
/// `None` when no state has its three crossings.
fn boundary_figure(title: &str, c: &BasinChecks) -> Option<Figure> {
    let states = state_numbers(&c.lines);
    let mut panels = Vec::new();
    for (number, state) in states.iter().enumerate().take(4) {
        let line = |name: &str| c.lines.iter().find(|l| &l.state == state && l.line == name);
        let (Some(horizontal), Some(at_zero), Some(at_twice)) =
            (line("V0=0"), line("Y0=0"), line("Y0=2b/p"))
        else {
            continue;
        };
        // The crossing of V0 = 0 is Y0 = b/p; the line Y0 = 2b/p lies twice as far.
        let y_star = horizontal.closed_form;
        let place = |l: &LineCheck, t: f64| match l.line.as_str() {
            "V0=0" => (t, 0.0),
            "Y0=0" => (0.0, t),
            _ => (2.0 * y_star, t),
        };
        let smallest = |l: &LineCheck| {
            l.offsets
                .iter()
                .copied()
                .min_by(|a, b| a.0.total_cmp(&b.0))
                .map(|(_, offset)| place(l, l.closed_form + offset))
        };
        let found: Vec<(f64, f64)> = [horizontal, at_zero, at_twice]
            .into_iter()
            .filter_map(smallest)
            .collect();
        let crossings = [
            place(horizontal, horizontal.closed_form),
            place(at_zero, at_zero.closed_form),
            place(at_twice, at_twice.closed_form),
        ];
        // The window: the crossings and the origin, with a margin of a fifth of their span.
        let (mut y_lo, mut y_hi, mut v_lo, mut v_hi) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
        for (y, v) in crossings {
            (y_lo, y_hi, v_lo, v_hi) = (y_lo.min(y), y_hi.max(y), v_lo.min(v), v_hi.max(v));
        }
        let (dy, dv) = (0.2 * (y_hi - y_lo), 0.2 * (v_hi - v_lo));
        let (y_lo, y_hi, v_lo, v_hi) = (y_lo - dy, y_hi + dy, v_lo - dv, v_hi + dv);
        let slope = -at_zero.closed_form / y_star;
        let manifold = |y: f64| slope * (y - y_star);
        let reference = |label: &str, points: Vec<(f64, f64)>, mark: Mark| Series {
            label: label.into(),
            points,
            mark,
            color: plot::REFERENCE,
        };
        panels.push(Panel {
            title: format!("State {}: {title}", number + 1),
            x_label: "fast gap Y₀ = y₀/κ".into(),
            y_label: "fast normal velocity V₀ = v₀/√κ".into(),
            log_x: false,
            log_y: false,
            legend_lower: false,
            series: vec![
                reference(
                    "stable manifold V = λₛ (Y − b/p)",
                    vec![(y_lo, manifold(y_lo)), (y_hi, manifold(y_hi))],
                    Mark::Line,
                ),
                reference(
                    "search lines V₀ = 0, Y₀ = 0, Y₀ = 2b/p",
                    vec![(y_lo, 0.0), (y_hi, 0.0)],
                    Mark::Dotted,
                ),
                reference("", vec![(0.0, v_lo), (0.0, v_hi)], Mark::Dotted),
                reference(
                    "",
                    vec![(2.0 * y_star, v_lo), (2.0 * y_star, v_hi)],
                    Mark::Dotted,
                ),
                Series::new(
                    "boundary at the smallest κ (bisection)",
                    found,
                    Mark::Markers,
                    1,
                ),
            ],
            bands: Vec::new(),
        });
    }
    Figure::two_to_a_row(panels, (800, 560))
}

/// The distinct states, numbered in order of first appearance (for the figure's legend).
fn state_numbers(lines: &[LineCheck]) -> Vec<String> {
    let mut states: Vec<String> = Vec::new();
    for l in lines {
        if !states.contains(&l.state) {
            states.push(l.state.clone());
        }
    }
    states
}

fn render(study: &BasinStudy, c: &BasinChecks, boundary_figure: bool) -> String {
    let (bracket, state_columns) = (study.bracket, study.state_columns);
    let mut s = study.summary_head("— the lift-off/IWC boundary");
    let _ = writeln!(
        s,
        "Each row bisects the boundary between fast starts that lift off (F) and those that end \
         in an IWC along one line of the (Y0, V0) plane, to a bracket of {bracket:e}, \
         against the crossing of the slip saddle's stable manifold V = λ_s (Y − b/p) \
         (docs/champneys_varkonyi.md §4, §9). t is Y0 on the line V0 = 0 and V0 on the lines \
         Y0 = 0 and Y0 = 2b/p.\n"
    );
    let _ = writeln!(
        s,
        "| state ({}) | line | t (manifold) | largest distance of t to the manifold | offsets ∝ κ^p |",
        state_columns.join(", ")
    );
    let _ = writeln!(s, "|---|---|---|---|---|");
    for l in &c.lines {
        let rate = match (l.exponent, l.exponent_ci95) {
            (Some(p), Some(ci)) => format!("p = {p:.3} ± {ci:.3}"),
            _ => "at the resolution (no rate)".into(),
        };
        let _ = writeln!(
            s,
            "| {} | {} | {:.10} | {:.2e} | {} |",
            l.state, l.line, l.closed_form, l.max_abs_offset, rate
        );
    }
    let _ = writeln!(s, "\n## Offsets per κ\n");
    for l in &c.lines {
        let per: Vec<String> = l
            .offsets
            .iter()
            .map(|(k, o)| format!("κ = {k:e}: {o:+.3e}"))
            .collect();
        let _ = writeln!(s, "- {} · {}: {}", l.state, l.line, per.join("; "));
    }
    let offsets_figure = c.lines.iter().any(|l| l.exponent.is_some());
    if boundary_figure {
        let _ = writeln!(
            s,
            "\nFigure: `boundary.png`, the (Y0, V0) plane of each state: the stable manifold, the search lines and the boundary bisected on each at the smallest κ."
        );
    }
    if offsets_figure {
        let _ = writeln!(s, "\nFigure: `offsets.png`, |offset| against κ (log–log).");
    }
    if boundary_figure || offsets_figure {
        let _ = writeln!(s, "\nThe figures number the states:");
        for (i, state) in state_numbers(&c.lines).iter().enumerate() {
            let _ = writeln!(s, "{}. {state}", i + 1);
        }
    }
    s
}

/// Relative agreement of two states' offsets at which they are drawn as one curve.
const SAME_CURVE: f64 = 1e-9;

/// Whether two lines of offsets (κ, offset) are the same curve to [`SAME_CURVE`].
fn same_curve(a: &[(f64, f64)], b: &[(f64, f64)]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.0 == y.0 && (x.1 - y.1).abs() <= SAME_CURVE * y.1.abs())
}

/// `text` with its first letter upper case, for a figure's title.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}
