//! The atlas of a convergence study (`study = "atlas"`): the study's runs over a grid of
//! configurations (the parameters swept in `[sweep]`), each configuration's findings for each
//! quantity in one line rather than a section of its own: the limit κ → 0 from the ladder, the
//! rigid limit, whether the two agree to the runs' tolerance, and the rate of convergence
//! ([`crate::study::ladder`]). Written to points.csv (one row per configuration and
//! integrator), summary.md (per quantity: how many configurations agree with the rigid limit,
//! where they do not, the fitted rates against their prediction) and atlas.png (the limits
//! against one swept parameter, or a map of the verdicts over two).
//!
//! ```toml
//! name = "v_groove_atlas"
//! model = "described"
//! study = "atlas"
//! system = "systems/v_groove.toml"
//! [sweep]
//! kappa = { min = 1e-9, max = 1e-4, per_decade = 2 }
//! mu = { min = 0.0, max = 0.95, n = 20 }
//! ```

use crate::experiment::runner::RunError;
use crate::experiment::system::Quantity;
use crate::experiment::table::Row;
use crate::integrate::IntegratorKind;
use crate::plot::heatmap::{
    save_heatmap_captioned, Cell as HeatCell, ColorScale, HeatMap, HeatPanel,
};
use crate::plot::style::{format_small_parameter, plot_text};
use crate::plot::{save_captioned, Figure, Mark, Panel, Series, REFERENCE};
use crate::report::markdown::{fixed, sci, significant, Markdown, MarkdownTable};
use crate::report::rates::excludes;
use crate::report::table::{write_csv, Cell};
use crate::study::ladder::{AgainstRigid, QuantityLimit};
use std::path::Path;

/// The name of the atlas in `study = "…"`.
pub const NAME: &str = "atlas";

/// The atlas's table of findings, one row per configuration and integrator.
pub(crate) const POINTS_CSV: &str = "points.csv";

/// The configurations whose findings the summary lists one by one, at most; a larger atlas is
/// read in points.csv and atlas.png.
const LISTED: usize = 40;

/// Where one configuration's quantity stands as κ → 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Its limit from the ladder agrees with the rigid limit (inside the extrapolation's
    /// interval, or within the runs' tolerance); for a distance to the rigid run, the distance
    /// vanishes (a rate above 0, or within the tolerance at every κ).
    Agrees,
    /// Its limit lies beyond the runs' tolerance from the rigid limit, outside any interval:
    /// the compliant runs tend to another limit than the rigid reference.
    AnotherLimit,
    /// No limit (the extrapolation refused) or, for a distance, no rate above 0.
    Undecided,
    /// A limit, but no rigid limit to hold it against.
    NoRigid,
}

impl Verdict {
    /// Every verdict, in the order of the summary's table and the map's legend.
    const ALL: [Verdict; 4] = [
        Verdict::Agrees,
        Verdict::AnotherLimit,
        Verdict::Undecided,
        Verdict::NoRigid,
    ];

    /// The verdict on the findings `found` for `q`.
    pub(crate) fn of(q: &Quantity, found: &QuantityLimit) -> Verdict {
        if q.distance {
            let vanishes = found.at_floor.is_some()
                || found
                    .rate
                    .as_ref()
                    .is_some_and(|f| f.slope - f.slope_ci95 > 0.0);
            return if vanishes {
                Verdict::Agrees
            } else {
                Verdict::Undecided
            };
        }
        match (found.rigid, found.against_rigid()) {
            (_, Some(AgainstRigid::Beyond { .. })) => Verdict::AnotherLimit,
            (_, Some(_)) => Verdict::Agrees,
            (None, None) if found.limit_value().is_some() => Verdict::NoRigid,
            _ => Verdict::Undecided,
        }
    }

    /// Its cell in points.csv and the summary.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Verdict::Agrees => "agrees",
            Verdict::AnotherLimit => "another limit",
            Verdict::Undecided => "undecided",
            Verdict::NoRigid => "no rigid limit",
        }
    }
}

/// A quantity's name in points.csv's columns: its column, and the component of a list column
/// (`q_end_1`).
fn column_name(q: &Quantity) -> String {
    match q.component {
        Some(k) => format!("{}_{k}", q.column),
        None => q.column.to_string(),
    }
}

/// One finding: a configuration's quantity by one integrator, as much of its
/// [`QuantityLimit`] as the report writes (an atlas keeps one per configuration, quantity and
/// integrator, not the rows).
struct Finding {
    configuration: usize,
    integrator: IntegratorKind,
    /// Its index in [`Atlas::quantities`].
    quantity: usize,
    /// The limit κ → 0 and its interval's half-width.
    limit: Option<(f64, f64)>,
    rigid: Option<f64>,
    /// The fitted rate p and its 95 % half-width of a limit that agrees, unless every distance
    /// lies within the runs' tolerance.
    rate: Option<(f64, f64)>,
    /// The runs' tolerance every distance lies within, when they do.
    at_floor: Option<f64>,
    /// The runs' tolerance the limit is read against.
    floor: f64,
    /// Whether the rate's interval leaves the quantity's predicted exponent out.
    misses: bool,
    verdict: Verdict,
}

/// An atlas being read: each configuration's findings, added one configuration at a time, so
/// that its report holds one configuration's rows, not the run's.
pub(crate) struct Atlas {
    /// The swept parameters, as runs.csv's columns.
    swept: Vec<String>,
    /// Per configuration, the swept parameters' values as runs.csv writes them.
    parameters: Vec<Vec<String>>,
    /// The quantities, in the order first met (a configuration may report fewer).
    quantities: Vec<Quantity>,
    /// The integrators, in the order first met.
    integrators: Vec<IntegratorKind>,
    findings: Vec<Finding>,
}

impl Atlas {
    /// An atlas over the swept parameters `swept` (their names, as runs.csv's columns).
    pub(crate) fn new(swept: Vec<String>) -> Atlas {
        Atlas {
            swept,
            parameters: Vec::new(),
            quantities: Vec::new(),
            integrators: Vec::new(),
            findings: Vec::new(),
        }
    }

    /// Add the next configuration: its swept parameters' values (as runs.csv writes them, in
    /// the order of `swept`), the quantities it reports, the integrators that run it, and its
    /// rows of runs.csv.
    pub(crate) fn add(
        &mut self,
        parameters: Vec<String>,
        quantities: &[Quantity],
        integrators: &[IntegratorKind],
        rows: &[Row],
    ) {
        let configuration = self.parameters.len();
        self.parameters.push(parameters);
        for kind in integrators {
            if !self.integrators.contains(kind) {
                self.integrators.push(*kind);
            }
        }
        for kind in integrators {
            for q in quantities {
                let quantity = match self
                    .quantities
                    .iter()
                    .position(|o| column_name(o) == column_name(q))
                {
                    Some(i) => i,
                    None => {
                        self.quantities.push(*q);
                        self.quantities.len() - 1
                    }
                };
                let found = QuantityLimit::of(q, kind, rows);
                let verdict = Verdict::of(q, &found);
                // A distance that tends to a constant (another limit) has a slope near 0 that
                // is no rate of convergence: only a limit that agrees has one.
                let rate = found
                    .rate
                    .as_ref()
                    .filter(|_| found.at_floor.is_none() && verdict == Verdict::Agrees)
                    .map(|f| (f.slope, f.slope_ci95));
                self.findings.push(Finding {
                    configuration,
                    integrator: *kind,
                    quantity,
                    limit: found.limit_value(),
                    rigid: found.rigid,
                    rate,
                    at_floor: found.at_floor.map(|(_, floor)| floor),
                    floor: found.floor,
                    misses: found
                        .rate
                        .as_ref()
                        .zip(q.exponent)
                        .is_some_and(|(f, p)| excludes(f, p)),
                    verdict,
                });
            }
        }
    }

    /// The findings of quantity `quantity` (its index) by integrator `kind`.
    fn of(&self, quantity: usize, kind: IntegratorKind) -> Vec<&Finding> {
        self.findings
            .iter()
            .filter(|f| f.integrator == kind && f.quantity == quantity)
            .collect()
    }
}

/// points.csv, the summary's sections after its heading, and atlas.png of the atlas over the
/// swept parameters `swept` (their names, as runs.csv's columns) with runs' tolerances `rtol`
/// and `atol`; the sections are returned.
pub(crate) fn write_atlas(
    atlas: &Atlas,
    (rtol, atol): (f64, f64),
    dir: &Path,
) -> Result<String, RunError> {
    let swept = &atlas.swept;
    write_points(atlas, dir)?;
    let mut md = Markdown::new();
    md.paragraph(format!(
        "{} configurations of {} swept; per configuration and quantity, the limit κ → 0 of its \
         ladder (the value where the ladder does not move beyond the runs' tolerance, else \
         extrapolated, docs/extrapolation.md §1) against the rigid limit, and the rate of \
         |q − q(rigid)| ∝ κ^p. A limit **agrees** inside the extrapolation's 95 % interval or \
         within the runs' tolerance F = 10 (atol + rtol |q|) of the rigid limit; **another \
         limit** lies beyond both; **undecided** has no limit (the extrapolation refused) or, \
         for a distance to the rigid run, no rate above 0; **no rigid limit** has nothing to \
         hold it against. Every finding is in {POINTS_CSV}.",
        atlas.parameters.len(),
        swept.join(", ")
    ));
    for (i, q) in atlas.quantities.iter().enumerate() {
        for &kind in &atlas.integrators {
            let own = atlas.of(i, kind);
            if own.is_empty() {
                continue;
            }
            md.heading(2, format!("{} ({kind})", named(q)));
            quantity_section(&mut md, atlas, q, &own);
        }
    }
    let figure = write_figure(atlas, (rtol, atol), dir)?;
    match figure {
        Some(what) => {
            md.paragraph(format!("![{what}](atlas.png)"));
        }
        None => {
            md.paragraph(format!(
                "No atlas.png: it maps one or two swept numeric parameters; this atlas sweeps \
                 {}.",
                swept.len()
            ));
        }
    }
    Ok(md.finish())
}

/// `q` in a heading or a rate line: its symbol, and what it is when the quantity says.
pub(crate) fn named(q: &Quantity) -> String {
    if q.meaning.is_empty() {
        q.symbol.to_string()
    } else {
        format!("{} = {}", q.symbol, q.meaning)
    }
}

/// The cell of each value of swept parameter `k` in a map: from the midpoint to its lower
/// neighbour to the midpoint to its upper one (a grid need not be regular), as (centre, half
/// width); a value without neighbours spans ±0.5.
fn cell_spans(numbers: &[Vec<f64>], k: usize) -> impl Fn(f64) -> (f64, f64) {
    let mut values: Vec<f64> = numbers.iter().map(|p| p[k]).collect();
    values.sort_by(f64::total_cmp);
    values.dedup();
    move |v: f64| {
        let i = values.partition_point(|&w| w < v);
        let below = i.checked_sub(1).map(|j| values[j]);
        let above = values.get(i + 1).copied();
        let (lo, hi) = match (below, above) {
            (Some(b), Some(a)) => ((b + v) / 2.0, (v + a) / 2.0),
            (Some(b), None) => ((b + v) / 2.0, v + (v - b) / 2.0),
            (None, Some(a)) => (v - (a - v) / 2.0, (v + a) / 2.0),
            (None, None) => (v - 0.5, v + 0.5),
        };
        ((lo + hi) / 2.0, (hi - lo) / 2.0)
    }
}

/// A quantity's symbol in a figure: a value at the run's end without its `(t_end)`, which the
/// axis or the caption says once ([`all_at_end`]).
fn plain_symbol(q: &Quantity) -> &str {
    q.symbol.trim_end_matches("(t_end)")
}

/// `q` in a figure's legend or panel title: what it is when the quantity says (written for the
/// reader already), else its [`plain_symbol`].
pub(crate) fn figure_label(q: &Quantity) -> String {
    if q.meaning.is_empty() {
        plot_text(plain_symbol(q))
    } else {
        q.meaning.to_string()
    }
}

/// Whether every quantity is read at the run's end.
pub(crate) fn all_at_end<'a>(quantities: impl IntoIterator<Item = &'a Quantity>) -> bool {
    quantities
        .into_iter()
        .all(|q| q.symbol.ends_with("(t_end)"))
}

/// A caption's note that the quantities are read at the run's end, when they all are.
fn at_end(quantities: &[Quantity]) -> &'static str {
    if all_at_end(quantities) {
        ", at the end time"
    } else {
        ""
    }
}

/// The swept parameters of one configuration, `parameters` its values: `mu = 0.5, e = 1`.
fn parameters_text(swept: &[String], parameters: &[String]) -> String {
    swept
        .iter()
        .zip(parameters)
        .map(|(k, v)| match v.parse::<f64>() {
            Ok(x) => format!("{k} = {}", significant(x)),
            Err(_) => format!("{k} = {v}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// One quantity's section for one integrator: the verdicts counted, the range of each swept
/// parameter where the limit is another, the rates against the prediction, and (for an atlas
/// small enough) each configuration's line.
fn quantity_section(md: &mut Markdown, atlas: &Atlas, q: &Quantity, own: &[&Finding]) {
    let swept = &atlas.swept;
    let mut counts = MarkdownTable::new(["verdict", "configurations"]);
    for v in Verdict::ALL {
        let n = own.iter().filter(|f| f.verdict == v).count();
        if n > 0 {
            counts.row([v.name().to_string(), n.to_string()]);
        }
    }
    md.table(&counts);
    let another: Vec<&&Finding> = own
        .iter()
        .filter(|f| f.verdict == Verdict::AnotherLimit)
        .collect();
    if !another.is_empty() {
        let ranges: Vec<String> = swept
            .iter()
            .enumerate()
            .filter_map(|(k, name)| {
                let values: Vec<f64> = another
                    .iter()
                    .filter_map(|f| atlas.parameters[f.configuration][k].parse().ok())
                    .collect();
                let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                (!values.is_empty()).then(|| {
                    if lo == hi {
                        format!("{name} = {}", significant(lo))
                    } else {
                        format!("{name} ∈ [{}, {}]", significant(lo), significant(hi))
                    }
                })
            })
            .collect();
        md.paragraph(format!(
            "Another limit than the rigid reference's at {} of {} configurations{}.",
            another.len(),
            own.len(),
            if ranges.is_empty() {
                String::new()
            } else {
                format!(", over {}", ranges.join(", "))
            }
        ));
    }
    // A rate says how fast a limit is reached: of the configurations that reach the rigid one.
    let rates: Vec<(f64, bool)> = own
        .iter()
        .filter(|f| f.verdict == Verdict::Agrees)
        .filter_map(|f| Some((f.rate?.0, f.misses)))
        .collect();
    if !rates.is_empty() {
        let mut slopes: Vec<f64> = rates.iter().map(|r| r.0).collect();
        slopes.sort_by(f64::total_cmp);
        let median = slopes[slopes.len() / 2];
        let prediction = q
            .exponent
            .map(|p| {
                let misses = rates.iter().filter(|r| r.1).count();
                format!(
                    "; predicted {}, excluded by the 95 % interval of {misses} of them",
                    significant(p)
                )
            })
            .unwrap_or_default();
        let fitted = if slopes.len() == 1 {
            format!("at 1 configuration: {}", fixed(median, 4))
        } else {
            format!(
                "at {} configurations: median {}, from {} to {}",
                slopes.len(),
                fixed(median, 4),
                fixed(slopes[0], 4),
                fixed(slopes[slopes.len() - 1], 4),
            )
        };
        md.paragraph(format!(
            "Fitted exponents p of |q − q(rigid)| ∝ κ^p where the limit agrees, {fitted}{prediction}."
        ));
    }
    if own.len() > LISTED {
        return;
    }
    let mut table = MarkdownTable::new([
        "configuration",
        "limit κ → 0",
        "rigid limit",
        "difference",
        "verdict",
        "rate p",
    ]);
    for f in own {
        let limit = f.limit.map_or_else(String::new, |(v, h)| {
            if h > 0.0 {
                format!("{} ± {}", fixed(v, 12), sci(h, 1))
            } else {
                fixed(v, 12)
            }
        });
        let difference = f
            .limit
            .zip(f.rigid)
            .map_or_else(String::new, |((v, _), r)| sci(v - r, 1));
        let rate = match (f.at_floor, f.rate) {
            (Some(floor), _) => format!("within F = {}", sci(floor, 1)),
            (None, Some((p, half_width))) => format!("{} ± {}", fixed(p, 4), sci(half_width, 1)),
            (None, None) => String::new(),
        };
        table.row([
            parameters_text(swept, &atlas.parameters[f.configuration]),
            limit,
            f.rigid.map_or_else(String::new, |r| fixed(r, 12)),
            difference,
            f.verdict.name().to_string(),
            rate,
        ]);
    }
    md.table(&table);
}

/// points.csv: per configuration and integrator, the swept parameters, then per quantity its
/// limit, the interval's half-width (0 for a level ladder), the rigid limit, the fitted rate
/// and its 95 % half-width, and the verdict.
fn write_points(atlas: &Atlas, dir: &Path) -> Result<(), RunError> {
    const WHAT: [&str; 6] = [
        "limit",
        "half_width",
        "rigid",
        "rate",
        "rate_half_width",
        "verdict",
    ];
    let mut columns: Vec<String> = atlas.swept.clone();
    columns.push("integrator".into());
    for q in &atlas.quantities {
        let name = column_name(q);
        columns.extend(WHAT.map(|what| format!("{name}_{what}")));
    }
    // The findings of one configuration and integrator are consecutive (`Atlas::add`).
    let rows = atlas
        .findings
        .chunk_by(|a, b| a.configuration == b.configuration && a.integrator == b.integrator)
        .map(|group| {
            let first = &group[0];
            let mut cells: Vec<Cell> = atlas.parameters[first.configuration]
                .iter()
                .map(|v| {
                    v.parse()
                        .map_or_else(|_| Cell::Text(v.clone()), Cell::Number)
                })
                .collect();
            cells.push(Cell::Text(first.integrator.name().to_string()));
            let mut per_quantity = vec![vec![Cell::Empty; WHAT.len()]; atlas.quantities.len()];
            let number = |v: Option<f64>| v.map_or(Cell::Empty, Cell::Number);
            for f in group {
                per_quantity[f.quantity] = vec![
                    number(f.limit.map(|l| l.0)),
                    number(f.limit.map(|l| l.1)),
                    number(f.rigid),
                    number(f.rate.map(|r| r.0)),
                    number(f.rate.map(|r| r.1)),
                    Cell::Text(f.verdict.name().to_string()),
                ];
            }
            cells.extend(per_quantity.into_iter().flatten());
            cells
        });
    write_csv(&dir.join(POINTS_CSV), &columns, rows)
}

/// atlas.png/.svg by the first integrator: over one numeric swept parameter, a panel per
/// quantity with its limit κ → 0 and the rigid limit against the parameter; over two, a map per
/// quantity of the verdicts. `None` (no figure) over more, or fewer with a value that is not a
/// number; else what the figure shows.
fn write_figure(
    atlas: &Atlas,
    (rtol, atol): (f64, f64),
    dir: &Path,
) -> Result<Option<String>, RunError> {
    let (swept, quantities) = (&atlas.swept, &atlas.quantities);
    let Some(&kind) = atlas.integrators.first() else {
        return Ok(None);
    };
    let numbers: Option<Vec<Vec<f64>>> = atlas
        .parameters
        .iter()
        .map(|p| p.iter().map(|v| v.parse().ok()).collect())
        .collect();
    let Some(numbers) = numbers else {
        return Ok(None);
    };
    let of = |i: usize| atlas.of(i, kind);
    let tolerances = format!(
        "{kind}, rtol {}, atol {}",
        format_small_parameter(rtol),
        format_small_parameter(atol)
    );
    let io = |e: String| RunError::Io {
        path: dir.join("atlas.png").display().to_string(),
        source: std::io::Error::other(e),
    };
    match swept.len() {
        1 => {
            // A quantity that is 0 to the runs' tolerance everywhere (a motion that stays on an
            // axis of symmetry) would show its rounding: it is named in the caption instead.
            let zero = |i: usize| {
                of(i).iter().all(|f| {
                    f.limit.is_none_or(|(v, _)| v.abs() <= f.floor)
                        && f.rigid.is_none_or(|r| r.abs() <= f.floor)
                })
            };
            let zeros: Vec<String> = quantities
                .iter()
                .enumerate()
                .filter(|&(i, q)| !q.distance && zero(i))
                .map(|(_, q)| plot_text(plain_symbol(q)))
                .collect();
            let panels: Vec<Panel> = quantities
                .iter()
                .enumerate()
                .filter(|&(i, q)| !q.distance && !zero(i))
                .map(|(i, q)| {
                    let own = of(i);
                    let at = |f: &Finding| numbers[f.configuration][0];
                    let limits: Vec<(f64, f64)> = own
                        .iter()
                        .filter_map(|f| Some((at(f), f.limit?.0)))
                        .collect();
                    let rigid: Vec<(f64, f64)> =
                        own.iter().filter_map(|f| Some((at(f), f.rigid?))).collect();
                    let mut series = vec![Series::new(
                        "limit κ → 0 of the compliant runs",
                        limits,
                        Mark::Markers,
                        0,
                    )];
                    if !rigid.is_empty() {
                        series.push(Series::new(
                            "rigid limit",
                            rigid,
                            Mark::LineMarkers,
                            REFERENCE,
                        ));
                    }
                    Panel {
                        title: figure_label(q),
                        x_label: plot_text(&swept[0]),
                        y_label: plot_text(plain_symbol(q)),
                        log_x: false,
                        log_y: false,
                        legend_lower: true,
                        series,
                        bands: Vec::new(),
                    }
                })
                .collect();
            let Some(figure) = Figure::two_to_a_row(panels, (700, 560)) else {
                return Ok(None);
            };
            let what = format!(
                "Each quantity's limit κ → 0 of the compliant runs and its rigid limit against {}",
                plot_text(&swept[0])
            );
            let zeros = if zeros.is_empty() {
                String::new()
            } else {
                format!("; {} 0 to the runs' tolerance throughout", zeros.join(", "))
            };
            let caption = format!("{what}{}: {tolerances}{zeros}", at_end(quantities));
            save_captioned(&figure, &caption, dir, "atlas").map_err(io)?;
            Ok(Some(what))
        }
        2 => {
            let spans = [cell_spans(&numbers, 0), cell_spans(&numbers, 1)];
            // Every verdict is a category, so that a colour means one verdict in every atlas.
            let category = |v: Verdict| Verdict::ALL.iter().position(|o| *o == v).map(|i| i as f64);
            let panels: Vec<HeatPanel> = quantities
                .iter()
                .enumerate()
                .map(|(i, q)| HeatPanel {
                    title: figure_label(q),
                    cells: of(i)
                        .iter()
                        .map(|f| {
                            let [(x, half_w), (y, half_h)] =
                                [0, 1].map(|k| spans[k](numbers[f.configuration][k]));
                            HeatCell {
                                x,
                                y,
                                half_w,
                                half_h,
                                value: category(f.verdict),
                            }
                        })
                        .collect(),
                    curves: Vec::new(),
                    curve_label: String::new(),
                    marks: Vec::new(),
                    mark_label: String::new(),
                })
                .collect();
            if panels.is_empty() {
                return Ok(None);
            }
            let columns = panels.len().min(2);
            let rows = panels.len().div_ceil(2) as u32;
            let map = HeatMap {
                panels,
                columns,
                x_label: plot_text(&swept[0]),
                y_label: plot_text(&swept[1]),
                scale: ColorScale::Categories {
                    names: Verdict::ALL.iter().map(|v| v.name().to_string()).collect(),
                },
                size: (650 * columns as u32, 520 * rows + 80),
            };
            let what = format!(
                "Where each quantity's limit κ → 0 agrees with its rigid limit, over {} and {}",
                plot_text(&swept[0]),
                plot_text(&swept[1])
            );
            let caption = format!("{what}{}: {tolerances}", at_end(quantities));
            save_heatmap_captioned(&map, &caption, dir, "atlas").map_err(io)?;
            Ok(Some(what))
        }
        _ => Ok(None),
    }
}
