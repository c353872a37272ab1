//! What the report sections of a `schmid_mielke` run share: its rows grouped by case, number
//! formats, paths.csv read back, and the figure helpers.

use super::examples::Example;
use super::paths::{case_label, case_title, distinct_examples, PATHS_CSV};
use super::spec::{SmPoint, SmSpec};
use crate::experiment::table::Row;
use crate::plot::style::format_small_parameter;
use crate::plot::{save_captioned, Figure, Mark, Panel, Series};
use crate::report::table::number_at;
use std::path::Path;

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

/// (case, series) → points of paths.csv (the columns case, series, t, z1).
pub(crate) fn read_paths(dir: &Path) -> Vec<(String, String, f64, f64)> {
    let Ok(Some(table)) = crate::report::table::read_text(&dir.join(PATHS_CSV)) else {
        return Vec::new();
    };
    let Ok([case, series, t, z1]) = table.columns(["case", "series", "t", "z1"]) else {
        return Vec::new();
    };
    table
        .rows
        .iter()
        .filter_map(|r| {
            Some((
                r.get(case)?.clone(),
                r.get(series)?.clone(),
                number_at(r, t)?,
                number_at(r, z1)?,
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
            p.series.push(series(&legend(name), pick(name), mark, i));
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
    save_grid(
        panels,
        (1400, 420),
        "z₁ around each example's jump, the computed paths against the closed form",
        out,
        stem,
    )?;
    Ok(true)
}

/// A paths.csv series name as a legend writes it: `compliant ζ=0.5 ε=0.001` →
/// `compliant, ζ = 0.5, ε = 10⁻³`, `IP N=256` → `IP, N = 256` (ε by the powers-of-ten rule).
fn legend(name: &str) -> String {
    let mut words = name.split(' ');
    let mut out = words.next().unwrap_or_default().to_string();
    for word in words {
        match word.split_once('=') {
            Some(("ε", v)) => {
                let v = v.parse().map_or(v.to_string(), format_small_parameter);
                out += &format!(", ε = {v}");
            }
            Some((k, v)) => out += &format!(", {k} = {v}"),
            None => out += &format!(" {word}"),
        }
    }
    out
}

/// Where the figures of a run go, and the caption line that names the paper's examples and the method.
pub(crate) struct FigureTarget<'a> {
    pub dir: &'a Path,
    pub caption: String,
}

/// Save panels two to a row, each row `size.1` pixels high, as `dir/stem.{svg,png}`, captioned
/// with what the figure `shows`, then the examples and the method.
pub(crate) fn save_grid(
    panels: Vec<Panel>,
    size: (u32, u32),
    shows: &str,
    out: &FigureTarget,
    stem: &str,
) -> Result<(), String> {
    let rows = panels.len().div_ceil(2) as u32;
    let fig = Figure {
        panels,
        columns: 2,
        size: (size.0, size.1 * rows),
    };
    save_captioned(&fig, &format!("{shows}: {}", out.caption), out.dir, stem)
}

#[cfg(test)]
mod tests {
    use super::legend;

    #[test]
    fn series_names_become_legends() {
        assert_eq!(legend("compliant ε=0.001"), "compliant, ε = 10⁻³");
        assert_eq!(
            legend("compliant ζ=0.5 ε=0.0001"),
            "compliant, ζ = 0.5, ε = 10⁻⁴"
        );
        assert_eq!(legend("IP N=256"), "IP, N = 256");
        assert_eq!(legend("closed form"), "closed form");
    }
}
