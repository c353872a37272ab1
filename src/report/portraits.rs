//! The report of a phase-portraits table ([`crate::study::fast::portraits`]): the figure of
//! every panel's trajectories in the fast (Y, V) plane with the lines the rigid data give
//! (portraits.png), analysis.json (the measures of [`crate::analysis::portraits`]) and
//! summary.md.

use crate::analysis::numbers;
use crate::analysis::portraits::{panel_measures, panels};
use crate::experiment::runner::{write_atomically, RunError};
use crate::experiment::table::Row;
use crate::model::consistency::Outcome;
use crate::plot::{self, Figure, Mark, Panel, Series, REFERENCE};
use crate::report::markdown::{each_number, provenance, significant};
use std::fmt::Write;
use std::path::Path;

/// The plotted window of every panel, in (Y, V).
const WINDOW_Y: (f64, f64) = (-10.0, 4.0);
const WINDOW_V: (f64, f64) = (-8.0, 6.0);

/// The colour of an outcome's trajectories.
fn outcome_colour(o: &str) -> usize {
    match Outcome::from_symbol(o) {
        Some(Outcome::LiftOff) => 1,
        Some(Outcome::Stick) => 0,
        Some(Outcome::SlipPositive) => 2,
        Some(Outcome::SlipNegative) => 5,
        _ => 3,
    }
}

/// The pieces of `path` inside the window.
fn inside_window(path: Vec<(f64, f64)>) -> Vec<Vec<(f64, f64)>> {
    let inside = |&(y, v): &(f64, f64)| {
        (WINDOW_Y.0..=WINDOW_Y.1).contains(&y) && (WINDOW_V.0..=WINDOW_V.1).contains(&v)
    };
    let mut pieces: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
    for p in path {
        if inside(&p) {
            if let Some(piece) = pieces.last_mut() {
                piece.push(p);
            }
        } else if pieces.last().is_some_and(|piece| !piece.is_empty()) {
            pieces.push(Vec::new());
        }
    }
    pieces.retain(|piece| piece.len() > 1);
    pieces
}

/// The part of the line V = m Y + c inside the box [y0, y1] × [v0, v1] (None: misses it).
pub(crate) fn clipped_line(
    m: f64,
    c: f64,
    (y0, y1): (f64, f64),
    (v0, v1): (f64, f64),
) -> Option<Series> {
    let (mut lo, mut hi) = (y0, y1);
    if m != 0.0 {
        let (a, b) = ((v0 - c) / m, (v1 - c) / m);
        lo = lo.max(a.min(b));
        hi = hi.min(a.max(b));
    } else if c < v0 || c > v1 {
        return None;
    }
    (lo < hi).then(|| {
        Series::new(
            String::new(),
            vec![(lo, m * lo + c), (hi, m * hi + c)],
            Mark::Line,
            0,
        )
    })
}

/// The part of V = m Y + c inside the window.
fn line_in_window(m: f64, c: f64) -> Vec<(f64, f64)> {
    clipped_line(m, c, WINDOW_Y, WINDOW_V).map_or_else(Vec::new, |s| s.points)
}

fn panel_of(letter: char, rows: &[&Row]) -> Panel {
    let first = rows[0];
    let n = |c: &str| first.number(c);
    let damping = n("damping").unwrap_or(1.0);
    let mut series = Vec::new();
    let mut labelled: Vec<String> = Vec::new();
    for r in rows {
        let o = r.text("outcome");
        let path: Vec<(f64, f64)> = numbers(r.text("trajectory_Y"))
            .into_iter()
            .zip(numbers(r.text("trajectory_V")))
            .collect();
        for piece in inside_window(path) {
            let label = if labelled.iter().any(|l| l == o) {
                String::new()
            } else {
                labelled.push(o.to_string());
                format!("run ending {o}")
            };
            series.push(Series {
                label,
                points: piece,
                mark: Mark::Line,
                color: outcome_colour(o),
            });
        }
    }
    let starts: Vec<(f64, f64)> = rows
        .iter()
        .filter_map(|r| Some((r.number("Y0")?, r.number("V0")?)))
        .collect();
    series.push(Series::new("start", starts, Mark::Markers, REFERENCE));
    series.push(Series::new(
        "border λ_N = 0",
        line_in_window(-1.0 / damping, 0.0),
        Mark::Dotted,
        REFERENCE,
    ));
    if let Some(f) = n("switching_normal_force") {
        series.push(Series::new(
            "cone edge λ_N = F*",
            line_in_window(-1.0 / damping, -f / damping),
            Mark::Dashed,
            4,
        ));
    }
    if let (Some(y), Some(rate)) = (n("saddle_gap"), n("stable_rate")) {
        series.push(Series::new(
            "stable manifold of the slip saddle",
            line_in_window(rate, -rate * y),
            Mark::Line,
            7,
        ));
    }
    if let Some(y) = n("equilibrium_gap") {
        series.push(Series {
            label: if first.number("u0") == Some(0.0) {
                "stick focus".into()
            } else {
                "slip equilibrium".into()
            },
            points: vec![(y, 0.0)],
            mark: Mark::Markers,
            color: 7,
        });
    }
    series.retain(|s| !s.points.is_empty());
    Panel {
        title: format!(
            "{letter}: {}, a = {}, b = {}, u₀ = {}",
            first.text("cell"),
            first.text("a"),
            first.text("b"),
            first.text("u0")
        ),
        x_label: "fast gap Y = y/κ".into(),
        y_label: "fast normal velocity V = v/√κ".into(),
        log_x: false,
        log_y: false,
        legend_lower: false,
        series,
        bands: Vec::new(),
    }
}

/// summary.md, analysis.json and portraits.png. `system` names the system in a sentence ("the
/// planar system"), `state_columns` identify a panel's state (the columns `damping`, `u0`, `a`,
/// `b` are read when present).
pub fn write_report(
    name: &str,
    system: &str,
    state_columns: &[&str],
    rows: &[Row],
    dir: &Path,
) -> Result<(), RunError> {
    let groups = panels(rows, state_columns);
    let letters = ('A'..='Z').collect::<Vec<_>>();
    if !groups.is_empty() {
        let figure = Figure {
            panels: groups
                .iter()
                .zip(&letters)
                .map(|((_, r), &l)| panel_of(l, r))
                .collect(),
            columns: 3,
            size: (1650, 1150),
        };
        plot::save_captioned(&figure, "Compliant trajectories from fast starts in the (Y, V) plane, coloured by outcome, with the border λ_N = 0, the cone edge λ_N = F*, the slip saddle's stable manifold and the stable equilibrium", dir, "portraits").map_err(crate::report::figure_error(dir))?;
    }
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# {name}: C–V's phase portraits of the fast contact dynamics\n"
    );
    let _ = writeln!(
        s,
        "{}. Each panel is one state of {system}, run from every start to s = \
         window_scaled at the smallest κ; its outcome is the mode table's rule. \
         docs/champneys_varkonyi.md §11. Figure: `portraits.png`.\n",
        provenance(name)
    );
    let _ = writeln!(
        s,
        "| panel | state ({}) | cell | F* | saddle Y* | λ_s | equilibrium Y | outcomes by start (Y0, V0) |",
        state_columns.join(", ")
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|");
    for ((key, r), l) in groups.iter().zip(&letters) {
        let first = r[0];
        let outcomes: Vec<String> = r
            .iter()
            .map(|x| format!("({}, {}) {}", x.text("Y0"), x.text("V0"), x.text("outcome")))
            .collect();
        let _ = writeln!(
            s,
            "| {l} | {key} | {} | {} | {} | {} | {} | {} |",
            first.text("cell"),
            each_number(first.text("switching_normal_force"), significant),
            each_number(first.text("saddle_gap"), significant),
            each_number(first.text("stable_rate"), significant),
            each_number(first.text("equilibrium_gap"), significant),
            outcomes.join("; ")
        );
    }
    let measures = panel_measures(rows, state_columns);
    let _ = writeln!(
        s,
        "\n## What each panel shows, measured\n\nanalysis.json `panels`: per panel the outcomes \
         and their shares; of the starts not in free flight (Y0 ≤ 0) the share ending in IWC; \
         with a slip saddle the share of starts whose outcome is their side's of its stable \
         manifold (above: F; below: IWC in slip, T at rest); with a stable equilibrium the \
         largest |Y(end) − Y_eq| of the runs that settle (S+, T).\n\n\
         | panel | cell | outcomes | IWC of the starts with Y0 ≤ 0 | manifold side agreement | largest distance of Y(end) from Y_eq |\n\
         |---|---|---|---|---|---|"
    );
    for m in &measures {
        let outcomes: Vec<String> = m.outcomes.iter().map(|(o, n)| format!("{o} {n}")).collect();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {}/{} | {} | {} |",
            m.panel,
            m.cell,
            outcomes.join(", "),
            (m.iwc_fraction_not_in_flight * m.starts_not_in_flight as f64).round(),
            m.starts_not_in_flight,
            m.manifold_side_agreement
                .map_or(String::new(), |a| format!("{a}")),
            m.equilibrium_distance_max
                .map_or(String::new(), |d| format!("{d:.1e}")),
        );
    }
    write_atomically(
        &dir.join("analysis.json"),
        &crate::report::json::pretty(&serde_json::json!({ "panels": measures })),
    )?;
    write_atomically(&dir.join(crate::report::markdown::SUMMARY_MD), &s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clipped_line_stays_in_the_box() {
        let s = clipped_line(-1.0, -2.0, (-10.0, 1.0), (-5.0, 1.0)).unwrap();
        for (y, v) in s.points {
            assert!((-10.0..=1.0).contains(&y) && (-5.0..=1.0 + 1e-12).contains(&v));
            assert!((v + y + 2.0).abs() < 1e-12);
        }
        assert!(clipped_line(0.0, 5.0, (0.0, 1.0), (0.0, 1.0)).is_none());
    }
}
