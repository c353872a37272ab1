//! The first-opening section of a convergence study (`[first_opening] start = "angle"`): a body
//! slipping on two planar contacts, started near its unstable S+S+ state (C–V §6.2), run over
//! the κ ladder for `[solver] window_scaled` units of C–V's scaled time s = t/√κ, one start per
//! value of the swept parameter `start`. The run stage projects each start onto C–V's
//! scale-free fast system ([`System::scale_free_first_opening`], as κ → 0: [`REFERENCE_KAPPA`])
//! and writes its first openings to scale_free_openings.csv; the report compares each run's
//! first opening with it (`analysis::first_opening`), writes analysis.json, a section of
//! summary.md and first_opening.png.

use crate::analysis::first_opening::{
    first_openings, outcome_label, FirstOpenings, ScaleFreeOpening,
};
use crate::experiment::runner::{write_atomically, RunError};
use crate::experiment::system::{RunSettings, System};
use crate::experiment::table::Row;
use crate::plot::style::{format_small_parameter, format_value, plot_text};
use crate::plot::{power_guide, save_captioned, Figure, Mark, Panel, Series, REFERENCE};
use crate::report::markdown::{fixed, sci, significant, Markdown, MarkdownTable};
use crate::report::table::{number_at, read_text, Table};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// `[first_opening]`: the swept parameter that places each start, and its name on the figure's
/// axis.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FirstOpeningSpec {
    pub start: String,
    /// The axis label of `start`, in the paper's symbols (default: the parameter's name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// The compliance at which the run stage projects each start onto the scale-free fast system:
/// the limit κ → 0 to rounding. A start written to first order in κ has gaps κY and rates √κV,
/// and its terms of higher order in κ fall far below f64's precision relative to them here, so
/// that P, b, Y and V are their κ → 0 values (the description's expressions scale with κ, so
/// the gaps lose no relative precision).
pub const REFERENCE_KAPPA: f64 = 1e-30;

/// The run stage's table of the scale-free fast system's first openings.
pub(crate) const REFERENCE_TABLE: &str = "scale_free_openings.csv";

const REFERENCE_COLUMNS: [&str; 12] = [
    "start", "contact", "s", "outcome", "class", "P11", "P12", "P21", "P22", "b1", "b2", "error",
];

/// The value of the swept parameter `start` in `config`.
pub(crate) fn start_value<S: System>(config: &S::Config, start: &str) -> f64 {
    S::inputs(config)
        .ok()
        .and_then(|cells| cells.into_iter().find(|(c, _)| *c == start))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(f64::NAN)
}

/// scale_free_openings.csv: for each configuration, the first opening of the scale-free fast
/// system projected at its start as κ → 0 ([`REFERENCE_KAPPA`]) and run for `window_scaled`
/// (an error is a row with its message).
pub(crate) fn reference_table<S: System>(
    spec: &FirstOpeningSpec,
    configurations: &[S::Config],
    settings: &RunSettings,
    window_scaled: f64,
) -> String {
    let mut table = Table::new(REFERENCE_COLUMNS);
    for config in configurations {
        let start = start_value::<S>(config, &spec.start);
        let reference =
            S::scale_free_first_opening(config, REFERENCE_KAPPA, settings, window_scaled, start);
        match reference {
            Ok(r) => table.push(crate::cells![
                r.start,
                r.contact,
                r.s,
                r.outcome,
                r.class,
                r.response[0][0],
                r.response[0][1],
                r.response[1][0],
                r.response[1][1],
                r.b[0],
                r.b[1],
            ]),
            Err(e) => table.push(crate::cells![
                start,
                None::<String>,
                None::<f64>,
                "",
                "",
                None::<f64>,
                None::<f64>,
                None::<f64>,
                None::<f64>,
                None::<f64>,
                None::<f64>,
                e.to_string(),
            ]),
        }
    }
    table.to_csv()
}

/// scale_free_openings.csv read back; `None` when it is missing.
fn read_reference(dir: &Path) -> Result<Option<Vec<ScaleFreeOpening>>, RunError> {
    let Some(table) = read_text(&dir.join(REFERENCE_TABLE))? else {
        return Ok(None);
    };
    let c = table.columns(REFERENCE_COLUMNS).map_err(|e| RunError::Io {
        path: dir.join(REFERENCE_TABLE).display().to_string(),
        source: std::io::Error::other(e),
    })?;
    let text = |row: &[String], i: usize| row.get(i).cloned().unwrap_or_default();
    let number = |row: &[String], i: usize| number_at(row, i).unwrap_or(f64::NAN);
    Ok(Some(
        table
            .rows
            .iter()
            .map(|row| ScaleFreeOpening {
                start: number(row, c[0]),
                contact: Some(text(row, c[1])).filter(|t| !t.is_empty()),
                s: number_at(row, c[2]),
                outcome: text(row, c[3]),
                class: text(row, c[4]),
                response: [
                    [number(row, c[5]), number(row, c[6])],
                    [number(row, c[7]), number(row, c[8])],
                ],
                b: [number(row, c[9]), number(row, c[10])],
                error: Some(text(row, c[11])).filter(|t| !t.is_empty()),
            })
            .collect(),
    ))
}

/// analysis.json, first_opening.png and the summary's section from the compliant `rows`, the
/// system's `contacts` in their order and the run stage's reference table in `dir`; the
/// section is returned.
pub(crate) fn write_first_opening(
    spec: &FirstOpeningSpec,
    window_scaled: f64,
    contacts: &[String],
    rows: &[Row],
    dir: &Path,
) -> Result<String, RunError> {
    let mut md = Markdown::new();
    md.heading(2, "First openings against the scale-free fast system");
    let Some(reference) = read_reference(dir)? else {
        md.paragraph(format!(
            "No {REFERENCE_TABLE}: the run stage writes it (run the experiment again)."
        ));
        return Ok(md.finish());
    };
    let compliant: Vec<Row> = rows
        .iter()
        .filter(|r| r.text("method") != "rigid")
        .cloned()
        .collect();
    let f = first_openings(&spec.start, contacts, reference, &compliant);
    write_atomically(&dir.join("analysis.json"), &crate::report::json::pretty(&f))?;
    let start = spec.label.clone().unwrap_or_else(|| plot_text(&spec.start));
    md.paragraph(section_text(&f, window_scaled, contacts));
    for e in f.reference.iter().filter_map(|r| r.error.as_ref()) {
        md.item(format!("scale-free run failed: {e}"));
    }
    let mut table = MarkdownTable::new([
        "integrator".to_string(),
        "κ".to_string(),
        "starts".to_string(),
        "same first opening".to_string(),
        "no opening or failed".to_string(),
        format!("{} of the starts that differ", spec.start),
        "largest distance to a switch".to_string(),
        "largest Δs".to_string(),
    ]);
    for i in &f.integrators {
        for l in &i.levels {
            table.row([
                i.integrator.clone(),
                sci(l.kappa, 0),
                l.starts.to_string(),
                l.agree.to_string(),
                l.without_opening.to_string(),
                l.differ
                    .iter()
                    .map(|x| fixed(*x, 4))
                    .collect::<Vec<_>>()
                    .join(", "),
                l.largest_distance_to_switch
                    .map_or_else(String::new, |d| fixed(d, 4)),
                l.largest_s_difference
                    .map_or_else(String::new, |d| sci(d, 2)),
            ]);
        }
    }
    md.table(&table);
    for i in &f.integrators {
        md.item(format!(
            "{}: at the smallest κ = {}, {} of {} starts open first the contact the scale-free \
             system opens first.",
            i.integrator,
            sci(i.smallest_kappa, 0),
            i.agree_at_smallest_kappa,
            i.starts_at_smallest_kappa
        ));
        match &i.s_difference_rate {
            Some(fit) => md.item(format!(
                "{}: largest Δs ∝ κ^{:.4} ± {:.4} (95 %, n = {}).",
                i.integrator, fit.slope, fit.slope_ci95, fit.n
            )),
            None => md.item(format!(
                "{}: too few levels with a Δs to fit a rate.",
                i.integrator
            )),
        };
    }
    if let Some(figure) = figure(&f, &start, contacts) {
        let caption = format!(
            "The first opening of each start against the scale-free fast system, {}",
            f.integrators.first().map_or("", |i| i.integrator.as_str())
        );
        save_captioned(&figure, &caption, dir, "first_opening").map_err(|e| RunError::Io {
            path: dir.join("first_opening.png").display().to_string(),
            source: std::io::Error::other(e),
        })?;
        md.paragraph(format!(
            "![first opening per start and κ](first_opening.png)\n\nfirst_opening.png: left, \
             the contact that opens first at each start ({}) and κ, the scale-free system's \
             switches dashed; middle, Δs per start and κ; right, the largest Δs against κ with \
             a guide ∝ κ.",
            spec.start
        ));
    }
    Ok(md.finish())
}

/// The section's opening paragraph: the runs, the reference and its outcomes.
fn section_text(f: &FirstOpenings, window_scaled: f64, contacts: &[String]) -> String {
    let data = f.reference.iter().find(|r| r.error.is_none());
    let projected = data.map_or_else(String::new, |r| {
        let n = significant;
        format!(
            " Its data at the first start: P = [[{}, {}], [{}, {}]], b = ({}, {}){}.",
            n(r.response[0][0]),
            n(r.response[0][1]),
            n(r.response[1][0]),
            n(r.response[1][1]),
            n(r.b[0]),
            n(r.b[1]),
            if r.class.is_empty() {
                String::new()
            } else {
                format!(", C–V's class {}", r.class)
            }
        )
    });
    let outcomes = f
        .reference_outcomes
        .iter()
        .map(|(o, n)| format!("{o} at {n}"))
        .collect::<Vec<_>>()
        .join(", ");
    let labels = contacts
        .iter()
        .map(|c| format!("{} when {c} opens first", outcome_label(contacts, c)))
        .collect::<Vec<_>>()
        .join(", ");
    let switches = f
        .switches
        .iter()
        .map(|w| fixed(*w, 4))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "C–V §6.2–6.3: from the unstable S+S+ state the fast dynamics end with one contact \
         lifting off while the other's force grows without bound (an impact without collision \
         as κ → 0): IF or FI, a letter per contact ({labels}). Each compliant run lasts \
         s = t/√κ ≤ {}; its first opening is its first `contact_opens` event, at s. The \
         reference is the first opening of C–V's scale-free fast system (TC1) projected at the \
         same start as κ → 0 (at κ = 10⁻³⁰, where the start's terms of higher order in κ are \
         below rounding; P_ij = d_iᵀM⁻¹(d_j + μ_jσ_jc_j), b_i = \
         d_iᵀM⁻¹f + ḋ_iᵀq̇, Y = gap/κ, V = ġap/√κ; the compliant law as k = −1, q = −c_d; \
         {REFERENCE_TABLE}).{projected} Its outcomes at the end of the window: {outcomes} \
         starts; its first opening switches between neighbouring starts at {} = {}. Δs: the \
         distance of a run's s from the scale-free s, over the starts whose first opening \
         agrees. analysis.json: `integrators`, `reference`.",
        format_value(window_scaled),
        f.start,
        if switches.is_empty() {
            "(none)".to_string()
        } else {
            switches
        }
    )
}

/// Three panels of the first integrator's runs: the first opening per start and κ with the
/// scale-free switches; Δs per start and κ; the largest Δs against κ.
fn figure(f: &FirstOpenings, start: &str, contacts: &[String]) -> Option<Figure> {
    let own = f.integrators.first()?;
    let kappas: Vec<f64> = own.levels.iter().map(|l| l.kappa).collect();
    let (low, high) = kappas
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(a, b), &k| (a.min(k), b.max(k)));
    if !low.is_finite() {
        return None;
    }
    let mut outcome = Panel {
        title: "Which contact opens first".into(),
        x_label: start.to_string(),
        y_label: "compliance κ".into(),
        log_x: false,
        log_y: true,
        legend_lower: false,
        series: Vec::new(),
        bands: Vec::new(),
    };
    for (colour, c) in contacts.iter().enumerate() {
        let points: Vec<(f64, f64)> = own
            .levels
            .iter()
            .flat_map(|l| {
                l.runs
                    .iter()
                    .filter(|r| r.contact.as_deref() == Some(c.as_str()))
                    .map(move |r| (r.start, l.kappa))
            })
            .collect();
        outcome.series.push(Series {
            label: format!(
                "{} opens first ({})",
                plot_text(c),
                outcome_label(contacts, c)
            ),
            points,
            mark: Mark::Markers,
            color: colour,
        });
    }
    let differ: Vec<(f64, f64)> = own
        .levels
        .iter()
        .flat_map(|l| l.differ.iter().map(move |&x| (x, l.kappa)))
        .collect();
    if !differ.is_empty() {
        outcome.series.push(Series {
            label: "differs from the scale-free system".into(),
            points: differ,
            mark: Mark::Markers,
            color: REFERENCE,
        });
    }
    for (k, w) in f.switches.iter().enumerate() {
        outcome.series.push(Series {
            label: if k == 0 {
                "scale-free system's switch".into()
            } else {
                String::new()
            },
            points: vec![(*w, low / 2.0), (*w, high * 2.0)],
            mark: Mark::Dashed,
            color: REFERENCE,
        });
    }
    let mut spread = Panel {
        title: "Δs = distance of s(κ) from the scale-free s".into(),
        x_label: start.to_string(),
        y_label: "Δs at the first opening".into(),
        log_x: false,
        log_y: true,
        legend_lower: false,
        series: Vec::new(),
        bands: Vec::new(),
    };
    for (colour, l) in own.levels.iter().enumerate() {
        let points: Vec<(f64, f64)> = l
            .runs
            .iter()
            .filter(|r| r.agrees)
            .filter_map(|r| {
                let own = f.reference.iter().find(|x| x.start == r.start)?;
                Some((r.start, (r.s? - own.s?).abs()))
            })
            .filter(|p| p.1 > 0.0)
            .collect();
        spread.series.push(Series {
            label: format!("κ = {}", format_small_parameter(l.kappa)),
            points,
            mark: Mark::LineMarkers,
            color: colour,
        });
    }
    let worst: Vec<(f64, f64)> = own
        .levels
        .iter()
        .filter_map(|l| Some((l.kappa, l.largest_s_difference?)))
        .filter(|p| p.1 > 0.0)
        .collect();
    let mut rate = Panel {
        title: "Largest Δs over the starts".into(),
        x_label: "compliance κ".into(),
        y_label: "largest Δs".into(),
        log_x: true,
        log_y: true,
        legend_lower: true,
        series: Vec::new(),
        bands: Vec::new(),
    };
    if let (Some(&first), Some(&(last_kappa, _))) = (worst.first(), worst.last()) {
        // Above the measured line by a factor 3, so that both show.
        let above = (first.0, 3.0 * first.1);
        rate.series.push(power_guide("∝ κ", above, last_kappa, 1.0));
    }
    rate.series.insert(
        0,
        Series {
            label: "measured".into(),
            points: worst,
            mark: Mark::LineMarkers,
            color: 0,
        },
    );
    Some(Figure {
        panels: vec![outcome, spread, rate],
        columns: 3,
        size: (2100, 600),
    })
}
