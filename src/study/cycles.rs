//! The cycles section of a convergence study (`[cycles] contact = "NAME"`): for a body that
//! rocks between contacts, each run's landings and the cycles between successive landings of
//! the named contact (`analysis::cycles`), written to analysis.json, a section of summary.md and
//! cycles.png (the cycle durations against the cycle number, per configuration).

use crate::analysis::cycles::{cycles, landings, Cycles};
use crate::experiment::runner::{write_atomically, RunError};
use crate::experiment::table::Row;
use crate::plot::style::{format_small_parameter, format_value, plot_text};
use crate::plot::{save_captioned, Figure, Mark, Panel, Series, REFERENCE};
use crate::report::markdown::{fixed, sci, Markdown, MarkdownTable};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// `[cycles]`: the contact whose landings start a cycle, and whether every closing is a
/// landing (`every_landing = true`: a body on one contact, whose bounces are its cycles) or only
/// a closing after another contact's (the default: a body rocking between contacts, whose
/// compliant bounces count once).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CyclesSpec {
    pub contact: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub every_landing: bool,
}

/// One run's cycles as analysis.json holds them.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct RunCycles {
    pub point_id: usize,
    pub method: String,
    pub kappa: f64,
    pub integrator: String,
    /// The swept parameters' values, by name.
    #[serde(flatten)]
    pub parameters: serde_json::Map<String, serde_json::Value>,
    pub status: String,
    /// The run's error when it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Landings of every contact (bounces of one contact counted once).
    pub landings: usize,
    pub cycles: usize,
    pub durations: Vec<f64>,
    pub growth: Vec<f64>,
    /// The first and the last ratio of successive cycle durations (absent below three cycle
    /// starts).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_growth: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_growth: Option<f64>,
    /// |q̇| at the end time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speed_end: Option<f64>,
}

/// The cycles of every row (`swept`: the swept parameters' names, their columns).
pub(crate) fn run_cycles(spec: &CyclesSpec, swept: &[String], rows: &[Row]) -> Vec<RunCycles> {
    rows.iter()
        .map(|r| {
            let ok = r.text("status") == "ok";
            let c = if ok {
                landings(
                    r.text("event_times"),
                    r.text("event_kinds"),
                    r.text("event_contacts"),
                    spec.every_landing,
                )
                .map(|l| (l.len(), cycles(&l, &spec.contact)))
                .unwrap_or((0, Cycles::default()))
            } else {
                (0, Cycles::default())
            };
            let speed_end = ok
                .then(|| {
                    r.text("q_dot_end")
                        .split_whitespace()
                        .map(|v| v.parse::<f64>().ok().map(|v| v * v))
                        .sum::<Option<f64>>()
                        .map(f64::sqrt)
                })
                .flatten();
            let parameters = swept
                .iter()
                .map(|k| {
                    let v = r.number(k).map_or_else(
                        || serde_json::Value::String(r.text(k).to_string()),
                        |x| serde_json::json!(x),
                    );
                    (k.clone(), v)
                })
                .collect();
            RunCycles {
                point_id: r.point_id,
                method: r.text("method").to_string(),
                kappa: r.number("kappa").unwrap_or(f64::NAN),
                integrator: r.text("integrator").to_string(),
                parameters,
                status: r.text("status").to_string(),
                error: (!ok).then(|| r.text("error").to_string()),
                landings: c.0,
                cycles: c.1.durations.len(),
                first_growth: c.1.growth.first().copied(),
                last_growth: c.1.growth.last().copied(),
                durations: c.1.durations,
                growth: c.1.growth,
                speed_end,
            }
        })
        .collect()
}

/// analysis.json, cycles.png and the summary's section; the section is returned.
pub(crate) fn write_cycles(
    spec: &CyclesSpec,
    swept: &[String],
    rows: &[Row],
    dir: &Path,
) -> Result<String, RunError> {
    let runs = run_cycles(spec, swept, rows);
    let json = crate::report::json::pretty(&serde_json::json!({
        "contact": spec.contact,
        "runs": runs,
    }));
    write_atomically(&dir.join("analysis.json"), &json)?;
    let figure = figure(spec, swept, &runs);
    let mut md = Markdown::new();
    md.heading(
        2,
        format!("Cycles from landing to landing of {}", spec.contact),
    )
    .paragraph(format!(
        "{}; a cycle runs from one landing of {} to the next. \
             growth: ratios of successive cycle durations, the velocities' growth per cycle of a \
             motion near the equilibrium (docs/champneys_varkonyi.md, \"Stability of equilibria \
             with two contacts\"). analysis.json: `runs`.",
        if spec.every_landing {
            "A landing is every closing of a contact (`every_landing`: each bounce starts a cycle)"
        } else {
            "A landing is a contact closing after another contact closed last (a compliant \
             contact's bounces count once)"
        },
        spec.contact
    ));
    let mut header = vec!["method".to_string(), "κ".to_string()];
    header.extend(swept.iter().cloned());
    header.extend(
        [
            "integrator",
            "landings",
            "cycles",
            "first growth",
            "last growth",
            "|q̇(t_end)|",
        ]
        .map(String::from),
    );
    let mut table = MarkdownTable::new(header);
    for r in &runs {
        let mut cells = vec![
            r.method.clone(),
            if r.method == "rigid" {
                "0".into()
            } else {
                sci(r.kappa, 1)
            },
        ];
        cells.extend(
            swept
                .iter()
                .map(|k| r.parameters.get(k).map_or(String::new(), |v| v.to_string())),
        );
        cells.push(r.integrator.clone());
        if r.status != "ok" {
            cells.push(format!(
                "failed: {}",
                r.error.as_deref().unwrap_or(&r.status)
            ));
            table.row(cells);
            continue;
        }
        let opt = |v: Option<f64>| v.map_or(String::new(), |v| fixed(v, 6));
        cells.extend([
            r.landings.to_string(),
            r.cycles.to_string(),
            opt(r.first_growth),
            opt(r.last_growth),
            r.speed_end.map_or(String::new(), |v| sci(v, 3)),
        ]);
        table.row(cells);
    }
    md.table(&table);
    if let Some(figure) = figure {
        let caption = format!(
            "Ratio of successive cycle durations (landing to landing of contact {}) against the cycle number; above 1 the rocking grows",
            spec.contact
        );
        save_captioned(&figure, &caption, dir, "cycles").map_err(|e| RunError::Io {
            path: dir.join("cycles.png").display().to_string(),
            source: std::io::Error::other(e),
        })?;
        md.paragraph(format!(
            "![growth per cycle against the cycle number](cycles.png)\n\ncycles.png: each run's \
             ratios of successive cycle durations (landing to landing of {}) against the cycle \
             number; above 1 the rocking grows.",
            spec.contact
        ));
    }
    Ok(md.finish())
}

/// One panel per configuration with cycles (at most four), the first integrator's runs: the
/// growth of each cycle, each κ in colour, the rigid reference in black, 1 (neutral) dashed where
/// the growths cross it.
fn figure(spec: &CyclesSpec, swept: &[String], runs: &[RunCycles]) -> Option<Figure> {
    let integrator = runs.first()?.integrator.clone();
    let own: Vec<&RunCycles> = runs
        .iter()
        .filter(|r| r.integrator == integrator && !r.growth.is_empty())
        .collect();
    let label = |r: &RunCycles| -> String {
        swept
            .iter()
            .filter_map(|k| {
                let v = r.parameters.get(k)?.as_f64()?;
                Some(format!("{} = {}", plot_text(k), format_value(v)))
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut groups: Vec<String> = Vec::new();
    for r in &own {
        let l = label(r);
        if !groups.contains(&l) {
            groups.push(l);
        }
    }
    let mut panels = Vec::new();
    for g in groups.iter().take(4) {
        let mut series = Vec::new();
        let mut colour = 0;
        for r in own.iter().filter(|r| &label(r) == g) {
            let points = r
                .growth
                .iter()
                .enumerate()
                .map(|(k, g)| ((k + 1) as f64, *g))
                .collect();
            let rigid = r.method == "rigid";
            series.push(Series {
                label: if rigid {
                    "rigid, r = 0".into()
                } else {
                    format!("κ = {}", format_small_parameter(r.kappa))
                },
                points,
                mark: if rigid { Mark::Line } else { Mark::Markers },
                color: if rigid { REFERENCE } else { colour },
            });
            if !rigid {
                colour += 1;
            }
        }
        // The neutral line only where the growths cross it: one far from them would squeeze
        // them into a strip of the panel (the caption says what above 1 means).
        let growths = || series.iter().flat_map(|s| s.points.iter().map(|p| p.1));
        let (low, high) = growths().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), g| {
            (lo.min(g), hi.max(g))
        });
        if low <= 1.0 && 1.0 <= high {
            let last = series
                .iter()
                .map(|s| s.points.len())
                .max()
                .unwrap_or(1)
                .max(2) as f64;
            series.push(Series {
                label: "neutral: growth 1".into(),
                points: vec![(1.0, 1.0), (last, 1.0)],
                mark: Mark::Dashed,
                color: REFERENCE,
            });
        }
        panels.push(Panel {
            title: g.clone(),
            x_label: "cycle n".into(),
            y_label: format!(
                "growth Tₙ₊₁/Tₙ (cycles from landing of {})",
                plot_text(&spec.contact)
            ),
            log_x: false,
            log_y: false,
            legend_lower: false,
            series,
            bands: Vec::new(),
        });
    }
    Figure::two_to_a_row(panels, (700, 520))
}
