//! The report of a stick/lift-off basin ([`crate::study::fast::stick_basin`]): analysis.json
//! (the checks of [`crate::analysis::stick_basin`]), the figure of the scanned starts in the fast
//! (Y, V) plane (basin.png) and summary.md.

use super::basin::BasinStudy;
use super::portraits::clipped_line;
use crate::analysis::numbers;
use crate::analysis::stick_basin::{checks, StickBasinChecks};
use crate::experiment::runner::{write_atomically, RunError};
use crate::experiment::table::Row;
use crate::plot::{self, Figure, Mark, Panel, Series, REFERENCE};
use crate::study::fast::basin::BasinLine;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

/// summary.md, analysis.json and basin.png.
pub fn write_report(study: &BasinStudy, rows: &[Row], dir: &Path) -> Result<(), RunError> {
    let state_columns = study.state_columns;
    let c = checks(rows, state_columns);
    crate::report::write_analysis(dir, &c)?;
    if let Some(figure) = plane_figure(rows, state_columns) {
        plot::save_captioned(&figure, "Scanned fast starts coloured by outcome (stick or lift-off), the edges between them (by bisection) and the slip saddle's stable manifold; right: near the saddle", dir, "basin").map_err(crate::report::figure_error(dir))?;
    }
    write_atomically(
        &dir.join(crate::report::markdown::SUMMARY_MD),
        &render(study, &c),
    )
}

fn render(study: &BasinStudy, c: &StickBasinChecks) -> String {
    let mut s = study.summary_head("at rest, stick or lift-off");
    let _ = writeln!(
        s,
        "Each row scans the outcome (the mode table's rule, to s = window_scaled) of fast starts \
         along V0 = 0 (t = Y0) or Y0 = 0 (t = V0) and bisects every edge between outcomes to a \
         bracket of {:e}. C–V §4 says the stable manifold V = λ_s (Y − b/p) of the slip saddle \
         separates the starts attracted to stick T from those that lift off (F); \
         \"manifold predicts\" counts the scan points whose outcome is the one the manifold's \
         side gives (F above it, T below). docs/champneys_varkonyi.md §10.\n",
        study.bracket
    );
    let _ = writeln!(
        s,
        "| state ({}) | line | edges (sides) at the smallest κ | spread over κ | manifold crossing | nearest edge − crossing | manifold predicts | mismatched scan ranges | largest gap Y_end − focus (T runs) |",
        study.state_columns.join(", ")
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|");
    for l in &c.lines {
        let last = l.edges.last();
        let edges = last
            .map(|(_, e, sides)| {
                e.iter()
                    .zip(sides.split_whitespace())
                    .map(|(t, sd)| format!("{t:.10} ({})", sd.replace('|', "/")))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default();
        let spread = l
            .kappa_spread
            .map(|x| format!("{x:.1e}"))
            .unwrap_or_else(|| "edge counts differ".into());
        let offset = l
            .manifold_offset
            .map(|x| format!("{x:+.3e}"))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {:.10} | {} | {} | {} | {:.1e} |",
            l.state,
            l.line,
            edges,
            spread,
            l.manifold_crossing,
            offset,
            l.manifold_agreement,
            l.manifold_mismatch.replace(' ', ", "),
            l.stick_end_gap_error
        );
    }
    let _ = writeln!(
        s,
        "\n## The stick–slip cycle at the edges\n\nA start on an edge (the lower end of its \
         final bracket) repeats stick → slip → stick before it settles or lifts off: the period \
         in s between its first two stick → slip switches and V at the first one (on the \
         switching line), at the smallest κ. Equal numbers on every edge: one unstable \
         periodic stick–slip orbit whose stable set is the edge — of this state at its damping \
         c_d (the last number of the state); another damping is another experiment, and such \
         an orbit need not exist there.\n"
    );
    for l in &c.lines {
        let _ = writeln!(
            s,
            "- {} · {}: period {}; V at the switch {}",
            l.state, l.line, l.edge_cycle_period, l.edge_cycle_switch_v
        );
    }
    let _ = writeln!(s, "\n## Edges per κ\n");
    for l in &c.lines {
        for (k, e, sides) in &l.edges {
            let list: Vec<String> = e.iter().map(|t| format!("{t:.10}")).collect();
            let _ = writeln!(
                s,
                "- {} · {} · κ = {k:e}: {} ({})",
                l.state,
                l.line,
                list.join(", "),
                sides.replace('|', "/")
            );
        }
    }
    let _ = writeln!(
        s,
        "\nFigure: `basin.png` — the scanned starts coloured by outcome in the fast (Y, V) plane \
         with the edges, the saddle's stable manifold, the switching line λ_N = F* (the cone's \
         edge in stick), the border λ_N = 0 and the stick focus; right: near the saddle."
    );
    s
}

/// The (Y, V) figure of the first state: the full scan and the neighbourhood of the saddle.
fn plane_figure(rows: &[Row], state_columns: &[&str]) -> Option<Figure> {
    let ok: Vec<&Row> = rows.iter().filter(|r| r.text("status") == "ok").collect();
    let first = ok.first()?;
    let state: Vec<&str> = state_columns.iter().map(|c| first.text(c)).collect();
    let same_state = |r: &&&Row| {
        state_columns
            .iter()
            .zip(&state)
            .all(|(c, v)| r.text(c) == *v)
    };
    // The smallest κ of each line.
    let mut by_line: BTreeMap<String, &Row> = BTreeMap::new();
    for r in ok.iter().filter(same_state) {
        let k = r.number("kappa").unwrap_or(f64::NAN);
        let e = by_line.entry(r.text("line").to_string()).or_insert(r);
        if k < e.number("kappa").unwrap_or(f64::NAN) {
            *e = r;
        }
    }
    let n = |c: &str| first.number(c).unwrap_or(f64::NAN);
    let (f_star, focus, saddle, rate, damping) = (
        n("switching_normal_force"),
        n("stick_focus_gap"),
        n("saddle_gap"),
        n("stable_rate"),
        n("damping"),
    );
    let mut lift = Vec::new();
    let mut stick = Vec::new();
    let mut other = Vec::new();
    let mut edges = Vec::new();
    for r in by_line.values() {
        let at = |t: f64| -> (f64, f64) {
            if r.text("line") == BasinLine::RestingDepth.name() {
                (t, 0.0)
            } else {
                (0.0, t)
            }
        };
        let (lo, hi, count) = (
            r.number("scan_min")?,
            r.number("scan_max")?,
            r.number("scan_n")? as usize,
        );
        let outcomes: Vec<&str> = r.text("scan_outcomes").split_whitespace().collect();
        // The scan points are the axis values; an evenly spaced scan is rebuilt from its ends.
        for (i, o) in outcomes.iter().enumerate() {
            let t = lo + (hi - lo) * i as f64 / (count.max(2) - 1) as f64;
            match *o {
                "F" => lift.push(at(t)),
                "T" => stick.push(at(t)),
                _ => other.push(at(t)),
            }
        }
        edges.extend(numbers(r.text("edges")).into_iter().map(at));
    }
    let panel = |title: &str, ys: (f64, f64), vs: (f64, f64)| {
        let inside = |p: &&(f64, f64)| p.0 >= ys.0 && p.0 <= ys.1 && p.1 >= vs.0 && p.1 <= vs.1;
        let pick = |v: &[(f64, f64)]| v.iter().filter(inside).copied().collect::<Vec<_>>();
        let mut series = vec![
            Series::new("start lifts off (F)", pick(&lift), Mark::Markers, 1),
            Series::new("start sticks (T)", pick(&stick), Mark::Markers, 0),
            Series::new("start slips (S±)", pick(&other), Mark::Markers, 4),
            Series::new(
                "edge between the outcomes (bisection)",
                pick(&edges),
                Mark::Markers,
                REFERENCE,
            ),
        ];
        let lines = [
            (
                "stable manifold of the slip saddle",
                rate,
                -rate * saddle,
                Mark::Line,
                3,
            ),
            (
                "switching line λ_N = F* (cone edge)",
                -1.0 / damping,
                -f_star / damping,
                Mark::Dashed,
                2,
            ),
            (
                "border λ_N = 0",
                -1.0 / damping,
                0.0,
                Mark::Dotted,
                REFERENCE,
            ),
        ];
        for (label, m, c, mark, color) in lines {
            if let Some(mut s) = clipped_line(m, c, ys, vs) {
                s.label = label.into();
                s.mark = mark;
                s.color = color;
                series.push(s);
            }
        }
        series.push(Series::new(
            "stick focus",
            pick(&[(focus, 0.0)]),
            Mark::Markers,
            5,
        ));
        series.push(Series::new(
            "slip saddle",
            pick(&[(saddle, 0.0)]),
            Mark::Markers,
            7,
        ));
        series.retain(|s| !s.points.is_empty());
        Panel {
            title: title.into(),
            x_label: "fast gap Y = y/κ".into(),
            y_label: "fast normal velocity V = v/√κ".into(),
            log_x: false,
            log_y: false,
            legend_lower: true,
            series,
            bands: Vec::new(),
        }
    };
    let all: Vec<(f64, f64)> = lift.iter().chain(&stick).chain(&other).copied().collect();
    let y_min = all.iter().map(|p| p.0).fold(focus, f64::min);
    let v_min = all.iter().map(|p| p.1).fold(0.0, f64::min);
    let margin = 0.05 * (-y_min).max(-v_min).max(1.0);
    let near = 2.5 * saddle.abs().max((rate * saddle).abs());
    Some(Figure {
        panels: vec![
            panel(
                "scanned starts (V₀ = 0 and Y₀ = 0)",
                (y_min - margin, margin),
                (v_min - margin, margin),
            ),
            panel(
                "near the slip saddle",
                (saddle - near, 0.3 * near),
                (-near, 0.3 * near),
            ),
        ],
        columns: 2,
        size: (1400, 640),
    })
}
