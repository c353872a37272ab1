//! The report of a mode table ([`crate::study::fast::mode_table`]): analysis.json (the checks
//! of [`crate::analysis::mode_table`]) and summary.md (the outcome sets of every state over κ
//! against Table 3, then the checks).

use crate::analysis::mode_table::{checks, ModeTableChecks};
use crate::experiment::runner::{write_atomically, RunError};
use crate::experiment::table::Row;
use crate::model::consistency::{outcome_set_text, Outcome};
use crate::plot::cell_chart::{save_cell_chart, CellChart, ChartCell, ChartEntry};
use crate::plot::heatmap::{save_heatmap_captioned, Cell, ColorScale, HeatMap, HeatPanel};
use crate::plot::style::{format_small_parameter, plot_text};
use crate::report::markdown::provenance;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::Path;

/// summary.md and analysis.json of a mode table. `title` names the system, `state_columns`
/// identify a state, `describe` is a paragraph on how the states are given.
pub fn write_report(
    name: &str,
    title: &str,
    describe: &str,
    state_columns: &[&str],
    rows: &[Row],
    dir: &Path,
) -> Result<(), RunError> {
    let c = checks(rows, state_columns);
    crate::report::write_analysis(dir, &c)?;
    let map = outcome_map(state_columns, rows);
    if let Some((map, caption)) = &map {
        save_heatmap_captioned(map, caption, dir, "outcomes")
            .map_err(crate::report::figure_error(dir))?;
    }
    let chart = table3_chart(state_columns, rows);
    if let Some((chart, caption)) = &chart {
        save_cell_chart(chart, caption, dir, "table3").map_err(crate::report::figure_error(dir))?;
    }
    write_atomically(
        &dir.join(crate::report::markdown::SUMMARY_MD),
        &render(
            name,
            title,
            describe,
            state_columns,
            rows,
            &c,
            Figures {
                map: map.is_some(),
                chart: chart.is_some(),
            },
        ),
    )
}

/// Table 3's rows and columns as C–V print them (docs/champneys_varkonyi.md §2).
const TABLE3_ROWS: [(&str, &str); 6] = [
    ("i", "(i) b > 0, p₊ > 0, p₋ > 0"),
    ("ii", "(ii) b > 0, p₊ > 0 > p₋"),
    ("iii", "(iii) b > 0, p₋ > 0 > p₊"),
    ("iv", "(iv) b < 0, p₊ > 0, p₋ > 0"),
    ("v", "(v) b < 0, p₊ > 0 > p₋"),
    ("vi", "(vi) b < 0, p₋ > 0 > p₊"),
];
const TABLE3_COLUMNS: [(&str, &str); 3] = [
    ("I", "I: u > 0"),
    ("II", "II: u = 0"),
    ("III", "III: u < 0"),
];
/// C–V's projected scalars of a state (docs/champneys_varkonyi.md §1), columns of every mode
/// table's rows.
const PROJECTED: [&str; 5] = ["a", "b", "A", "B", "C"];

/// `v` to three decimals, trailing zeros dropped, with a true minus sign: −1.216, 4.
fn short(v: f64) -> String {
    let text = format!("{v:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    match text {
        "-0" => "0".to_string(),
        t => t.replace('-', "−"),
    }
}

/// A cell with more states than this is drawn by the (a, b) map only.
const MOST_STATES_PER_CELL: usize = 4;

/// The successful runs at the smallest κ with the first integrator: what the figures show.
fn smallest_kappa_runs(rows: &[Row]) -> Option<(f64, String, Vec<&Row>)> {
    let ok: Vec<&Row> = rows.iter().filter(|r| r.text("status") == "ok").collect();
    let kappa = ok
        .iter()
        .filter_map(|r| r.number("kappa"))
        .fold(f64::INFINITY, f64::min);
    let integrator = ok.first()?.text("integrator").to_string();
    let runs = ok
        .into_iter()
        .filter(|r| r.number("kappa") == Some(kappa) && r.text("integrator") == integrator)
        .collect();
    Some((kappa, integrator, runs))
}

/// Table 3 redrawn with the computed outcomes: one cell per Table 3 cell the states visit, one
/// entry per state in it, coloured by the state's outcome set over its fast starts at the
/// smallest κ (first integrator), framed when that set is not Table 3's entry with its "or"
/// resolved. `None` when a cell holds more than [`MOST_STATES_PER_CELL`] states.
fn table3_chart(state_columns: &[&str], rows: &[Row]) -> Option<(CellChart, String)> {
    let (kappa, integrator, runs) = smallest_kappa_runs(rows)?;
    // Per cell, per state (its input cells): Table 3's entry, the expected set, the outcomes.
    type States<'a> = BTreeMap<Vec<&'a str>, (&'a str, [f64; 5], BTreeSet<Outcome>)>;
    let mut cells: BTreeMap<(usize, usize), (&str, States)> = BTreeMap::new();
    for r in runs {
        let (column, row) = r.text("cell").split_once('(')?;
        let row = row.trim_end_matches(')');
        let at = (
            TABLE3_ROWS.iter().position(|(n, _)| *n == row)?,
            TABLE3_COLUMNS.iter().position(|(n, _)| *n == column)?,
        );
        let state: Vec<&str> = state_columns.iter().map(|c| r.text(c)).collect();
        let (_, states) = cells
            .entry(at)
            .or_insert((r.text("table3"), BTreeMap::new()));
        let projected = PROJECTED.map(|c| r.number(c).unwrap_or(f64::NAN));
        let (_, _, outcomes) =
            states
                .entry(state)
                .or_insert((r.text("expected"), projected, BTreeSet::new()));
        outcomes.extend(Outcome::from_symbol(r.text("outcome")));
    }
    if cells.values().any(|(_, s)| s.len() > MOST_STATES_PER_CELL) {
        return None;
    }
    let set_text = |o: &BTreeSet<Outcome>| outcome_set_text(&o.iter().copied().collect::<Vec<_>>());
    let mut names: Vec<String> = cells
        .values()
        .flat_map(|(_, s)| s.values().map(|(_, _, o)| set_text(o)))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    names.sort_by_key(|n| {
        (
            n.matches(" and ").count(),
            Outcome::ALL
                .iter()
                .position(|o| n.starts_with(o.symbol()))
                .unwrap_or(Outcome::ALL.len()),
            n.clone(),
        )
    });
    let mut framed = 0;
    let chart_cells: Vec<ChartCell> = cells
        .iter()
        .map(|(&(row, column), (table3, states))| {
            // The fewest of C–V's projected scalars (one, else two) whose values tell the cell's
            // states apart, one line each; all five when no two do.
            let separates = |ks: &[usize]| {
                let v: BTreeSet<Vec<String>> = states
                    .values()
                    .map(|(_, p, _)| ks.iter().map(|&k| short(p[k])).collect())
                    .collect();
                v.len() == states.len()
            };
            let n = PROJECTED.len();
            let shown: Vec<usize> = (0..n)
                .map(|k| vec![k])
                .chain((0..n).flat_map(|j| (j + 1..n).map(move |k| vec![j, k])))
                .find(|ks| separates(ks))
                .unwrap_or_else(|| (0..n).collect());
            let label = |p: [f64; 5]| -> Vec<String> {
                shown
                    .iter()
                    .map(|&k| format!("{} = {}", PROJECTED[k], short(p[k])))
                    .collect()
            };
            let entries = states
                .values()
                .map(|(expected, projected, outcomes)| {
                    let observed = set_text(outcomes);
                    let expected: BTreeSet<&str> = expected.split(" and ").map(str::trim).collect();
                    let flagged = observed.split(" and ").collect::<BTreeSet<_>>() != expected;
                    framed += usize::from(flagged);
                    let mut lines = vec![observed.replace('-', "−")];
                    if states.len() > 1 {
                        lines.extend(label(*projected));
                    }
                    ChartEntry {
                        category: names.iter().position(|n| *n == observed),
                        lines,
                        flagged,
                    }
                })
                .collect();
            ChartCell {
                row,
                column,
                note: format!("Table 3: {}", table3.replace('-', "−")),
                entries,
            }
        })
        .collect();
    let chart = CellChart {
        title: String::new(),
        row_labels: TABLE3_ROWS.iter().map(|(_, l)| l.to_string()).collect(),
        column_labels: TABLE3_COLUMNS.iter().map(|(_, l)| l.to_string()).collect(),
        cells: chart_cells,
        categories: names.iter().map(|n| outcome_name(n)).collect(),
        flag_label: "outcome set other than Table 3's".into(),
        size: (1100, 760),
    };
    let caption = format!(
        "C–V's Table 3 computed: each state's outcome set over its fast starts at κ = {} \
         ({integrator}); grey: Table 3's entry; {framed} sets differ from it",
        format_small_parameter(kappa)
    );
    Some((chart, caption))
}

/// The plane of C–V's Fig. consistency: a state's free accelerations (a, b).
const PLANE: [&str; 2] = ["a", "b"];

/// C–V's Fig. consistency redrawn from the runs: when the states cover a grid of (a, b) (at
/// least three values of each), one panel per value of the other state columns that vary, each
/// state's cell coloured by its outcome set at the smallest κ (first integrator), and the
/// states with a run outside Table 3's outcomes ringed. `None` when the states are not such a
/// grid (a table of single states).
fn outcome_map(state_columns: &[&str], rows: &[Row]) -> Option<(HeatMap, String)> {
    if !PLANE.iter().all(|c| state_columns.contains(c)) {
        return None;
    }
    let (kappa, integrator, runs) = smallest_kappa_runs(rows)?;
    let distinct = |c: &str| -> Vec<f64> {
        let mut v: Vec<f64> = runs.iter().filter_map(|r| r.number(c)).collect();
        v.sort_by(f64::total_cmp);
        v.dedup();
        v
    };
    let (xs, ys) = (distinct(PLANE[0]), distinct(PLANE[1]));
    if xs.len() < 3 || ys.len() < 3 {
        return None;
    }
    // Half a cell: half the smallest spacing of the grid's values.
    let half = |v: &[f64]| v.windows(2).map(|w| w[1] - w[0]).fold(f64::MAX, f64::min) / 2.0;
    let (half_w, half_h) = (half(&xs), half(&ys));
    // The panels: the other state columns that take more than one value.
    let varying: Vec<&str> = state_columns
        .iter()
        .copied()
        .filter(|c| !PLANE.contains(c))
        .filter(|c| {
            let v: BTreeSet<&str> = runs.iter().map(|r| r.text(c)).collect();
            v.len() > 1
        })
        .collect();
    struct State {
        x: f64,
        y: f64,
        outcomes: BTreeSet<Outcome>,
        outside: bool,
    }
    struct OutcomePanel {
        values: Vec<f64>,
        title: String,
        states: BTreeMap<(String, String), State>,
    }
    let mut panels: Vec<OutcomePanel> = Vec::new();
    for r in &runs {
        let (Some(x), Some(y)) = (r.number(PLANE[0]), r.number(PLANE[1])) else {
            continue;
        };
        let values: Vec<f64> = varying.iter().map(|c| r.number(c).unwrap_or(0.0)).collect();
        let at = match panels.iter().position(|p| p.values == values) {
            Some(at) => at,
            None => {
                let title = varying
                    .iter()
                    .map(|c| format!("{} = {}", plot_text(c), r.text(c)))
                    .collect::<Vec<_>>()
                    .join(", ");
                panels.push(OutcomePanel {
                    values,
                    title,
                    states: BTreeMap::new(),
                });
                panels.len() - 1
            }
        };
        let state = panels[at]
            .states
            .entry((r.text(PLANE[0]).to_string(), r.text(PLANE[1]).to_string()))
            .or_insert(State {
                x,
                y,
                outcomes: BTreeSet::new(),
                outside: false,
            });
        let outcome = r.text("outcome");
        state.outcomes.extend(Outcome::from_symbol(outcome));
        state.outside |= !r
            .text("expected")
            .split(" and ")
            .any(|e| e.trim() == outcome);
    }
    // One column per value of the first varying state column, one row per value of the others.
    let order = |p: &OutcomePanel| -> Vec<f64> {
        let mut v = p.values.get(1..).unwrap_or_default().to_vec();
        v.extend(p.values.first());
        v
    };
    panels.sort_by(|p, q| {
        order(p)
            .iter()
            .zip(&order(q))
            .map(|(a, b)| a.total_cmp(b))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let columns = panels
        .iter()
        .map(|p| p.values.first().map(|v| v.to_bits()))
        .collect::<BTreeSet<_>>()
        .len()
        .clamp(1, 4);
    let text_of = |s: &State| outcome_set_text(&s.outcomes.iter().copied().collect::<Vec<_>>());
    let mut names: Vec<String> = panels
        .iter()
        .flat_map(|p| p.states.values().map(text_of))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    names.sort_by_key(|n| {
        Outcome::ALL
            .iter()
            .position(|o| o.symbol() == n)
            .unwrap_or(Outcome::ALL.len())
    });
    let outside = panels
        .iter()
        .flat_map(|p| p.states.values())
        .filter(|s| s.outside)
        .count();
    let heat_panels: Vec<HeatPanel> = panels
        .iter()
        .map(|p| HeatPanel {
            title: p.title.clone(),
            cells: p
                .states
                .values()
                .map(|s| Cell {
                    x: s.x,
                    y: s.y,
                    half_w,
                    half_h,
                    value: names
                        .iter()
                        .position(|n| *n == text_of(s))
                        .map(|i| i as f64),
                })
                .collect(),
            curves: Vec::new(),
            curve_label: String::new(),
            marks: p
                .states
                .values()
                .filter(|s| s.outside)
                .map(|s| (s.x, s.y))
                .collect(),
            mark_label: "an outcome outside Table 3's".into(),
        })
        .collect();
    let rows_of_panels = heat_panels.len().div_ceil(columns.max(1));
    let map = HeatMap {
        panels: heat_panels,
        columns,
        x_label: "a (tangential acceleration at λ = 0)".into(),
        y_label: "b (normal acceleration at λ = 0)".into(),
        scale: ColorScale::Categories {
            names: names.iter().map(|n| outcome_name(n)).collect(),
        },
        size: (560 * columns as u32, 500 * rows_of_panels as u32 + 120),
    };
    // The state columns that do not vary: the same in every panel.
    let fixed: Vec<String> = state_columns
        .iter()
        .filter(|c| !PLANE.contains(c) && !varying.contains(c))
        .map(|c| format!("{} = {}", plot_text(c), runs[0].text(c)))
        .collect();
    let caption = format!(
        "The outcome of each state at κ = {} ({integrator}); {}; ringed: {outside} states with \
         an outcome outside Table 3's",
        format_small_parameter(kappa),
        fixed.join(", ")
    );
    Some((map, caption))
}

/// A legend's name of an outcome set: C–V's symbols with the modes spelled out.
fn outcome_name(set: &str) -> String {
    fn word(symbol: &str) -> &str {
        match symbol {
            "F" => "F: lift-off",
            "T" => "T: stick",
            "S+" => "S+: slip, u > 0",
            "S-" => "S−: slip, u < 0",
            "IWC" => "IWC: impact without collision",
            other => other,
        }
    }
    let parts: Vec<&str> = set.split(" and ").map(word).collect();
    parts.join(" or ")
}

/// Which figures the report drew: outcomes.png (the (a, b) map), table3.png.
struct Figures {
    map: bool,
    chart: bool,
}

fn render(
    name: &str,
    title: &str,
    describe: &str,
    state_columns: &[&str],
    rows: &[Row],
    c: &ModeTableChecks,
    figures: Figures,
) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# {name}: {title} — Table 3 by compliant simulation\n");
    let _ = writeln!(
        s,
        "{} from runs.csv ({} rows, {} failed). Outcome rule, cells and limits: \
         docs/champneys_varkonyi.md.\n",
        provenance(name),
        rows.len(),
        rows.iter().filter(|r| r.text("status") != "ok").count()
    );
    let _ = writeln!(s, "{describe}\n");
    let _ = writeln!(s, "## Outcome sets against Table 3\n");
    let _ = writeln!(
        s,
        "Per state, the set of outcomes over its fast starts at each κ (and integrator), next to \
         Table 3's entry for its cell with the \"or\" resolved (\"expected\"). {} of {} sets \
         equal the expected one; {} of {} runs end in one of their state's expected outcomes \
         (analysis.json `outcomes_outside`: the others).\n",
        c.sets_matching, c.sets_total, c.outcomes_in_expected, c.outcomes_total
    );
    if figures.chart {
        let _ = writeln!(
            s,
            "table3.png: Table 3's cells (rows (i)–(vi) by the signs of b and the Painlevé \
             parameters p±, columns I–III by the sign of the slip velocity u), each state \
             coloured by its outcome set over its fast starts at the smallest κ, Table 3's entry \
             in grey at the top of the cell, a set other than Table 3's framed.\n"
        );
    }
    if figures.map {
        let _ = writeln!(
            s,
            "outcomes.png: each state's outcome over the (a, b) plane at the smallest κ, one \
             panel per value of the other inputs that vary, the states with an outcome outside \
             Table 3's ringed (C–V's Fig. consistency, computed).\n"
        );
    }
    // One line per (cell, expected, state): the measured sets over κ.
    let ok: Vec<&Row> = rows.iter().filter(|r| r.text("status") == "ok").collect();
    let mut kappas: Vec<String> = ok.iter().map(|r| r.text("kappa").to_string()).collect();
    kappas.sort_by(|a, b| {
        let (x, y) = (
            a.parse::<f64>().unwrap_or(0.0),
            b.parse::<f64>().unwrap_or(0.0),
        );
        y.total_cmp(&x)
    });
    kappas.dedup();
    let mut integrators: Vec<String> = ok
        .iter()
        .map(|r| r.text("integrator").to_string())
        .collect();
    integrators.sort();
    integrators.dedup();
    let header: Vec<String> = kappas
        .iter()
        .flat_map(|k| integrators.iter().map(move |i| format!("κ = {k} ({i})")))
        .collect();
    let _ = writeln!(
        s,
        "| cell | Table 3 | expected | state ({}) | {} | match |",
        state_columns.join(", "),
        header.join(" | ")
    );
    let _ = writeln!(s, "|{}", "---|".repeat(5 + header.len()));
    let mut states: BTreeMap<(String, String, String), SetsOverKappa> = BTreeMap::new();
    let mut table3: BTreeMap<String, String> = BTreeMap::new();
    for r in &ok {
        let state: Vec<String> = state_columns
            .iter()
            .map(|k| r.text(k).to_string())
            .collect();
        table3.insert(r.text("cell").to_string(), r.text("table3").to_string());
        states
            .entry((
                cell_order(r.text("cell")),
                r.text("expected").to_string(),
                state.join(", "),
            ))
            .or_default()
            .entry((
                r.text("kappa").to_string(),
                r.text("integrator").to_string(),
            ))
            .or_default()
            .insert(r.text("outcome").to_string());
    }
    for ((cell, expected, state), sets) in &states {
        let cell = cell.split_once(' ').map_or(cell.as_str(), |(_, c)| c);
        let mut all = true;
        let cells: Vec<String> = kappas
            .iter()
            .flat_map(|k| integrators.iter().map(move |i| (k.clone(), i.clone())))
            .map(|key| match sets.get(&key) {
                Some(set) => {
                    let o: Vec<Outcome> =
                        set.iter().filter_map(|x| Outcome::from_symbol(x)).collect();
                    let text = outcome_set_text(&o);
                    all &= &text == expected;
                    text
                }
                None => {
                    all = false;
                    "—".to_string()
                }
            })
            .collect();
        let _ = writeln!(
            s,
            "| {cell} | {} | {expected} | {state} | {} | {} |",
            table3.get(cell).map_or("", String::as_str),
            cells.join(" | "),
            if all { "yes" } else { "**no**" }
        );
    }
    if !c.mismatches.is_empty() {
        let _ = writeln!(s, "\nMismatches:\n");
        for m in &c.mismatches {
            let _ = writeln!(s, "- {m}");
        }
    }
    let _ = writeln!(s, "\n## Checks\n");
    let _ = writeln!(
        s,
        "- κ-independence: the scaled numbers of a run (event times s, s_open, V_open, Y_end, \
         V_end, F_n at the end) differ across κ by at most {:.1e} relative to max(1, |value|) \
         over the non-IWC runs (largest at {}).",
        c.kappa_spread_max,
        if c.kappa_spread_at.is_empty() {
            "—"
        } else {
            &c.kappa_spread_at
        }
    );
    if !c.kappa_event_count_differs.is_empty() {
        let _ = writeln!(
            s,
            "- Event sequences that differ in length across κ (their event times are left out \
             above): {}.",
            c.kappa_event_count_differs.join("; ")
        );
    }
    let omega = c
        .iwc_omega_out_error_max
        .map_or_else(String::new, |e| format!("; θ̇ there: {e:.1e}"));
    let _ = writeln!(
        s,
        "- IWC at the smallest κ ({} runs): normal impulse at the slip stop vs |u0|/k±: {:.1e}; \
         v at the first opening vs the two-stage limit: {:.1e}{omega} (largest relative errors).",
        c.iwc_runs_at_smallest_kappa, c.iwc_impulse_error_max, c.iwc_v_out_error_max,
    );
    if c.mirror_pairs == 0 {
        let _ = writeln!(
            s,
            "- Mirrors (a, B, u0) → (−a, −B, −u0): no state has its mirror among the states."
        );
    } else {
        let _ = writeln!(
            s,
            "- Mirrors (a, B, u0) → (−a, −B, −u0): {} pairs of runs; outcomes mirrored: {}; \
             scaled numbers ({} negated) agree to {:.1e} relative.",
            c.mirror_pairs,
            if c.mirror_outcomes_agree {
                "all"
            } else {
                "**not all**"
            },
            // A rod's state has its angular velocity; the planar system has none.
            if state_columns.contains(&"omega0") {
                "u, θ̇"
            } else {
                "u"
            },
            c.mirror_difference_max
        );
    }
    s
}

/// The outcome sets of one state, by (κ, integrator).
type SetsOverKappa = BTreeMap<(String, String), BTreeSet<String>>;

/// A sort key that puts cells in Table 3's order (column, then row) before the cell's name.
fn cell_order(cell: &str) -> String {
    let (column, row) = cell.split_once('(').unwrap_or((cell, ""));
    let row = row.trim_end_matches(')');
    let rank = |x: &str, order: &[&str]| order.iter().position(|o| *o == x).unwrap_or(9);
    format!(
        "{}{} {cell}",
        rank(row, &["i", "ii", "iii", "iv", "v", "vi"]),
        rank(column, &["I", "II", "III"])
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(mu: &str, a: f64, b: f64, kappa: &str, outcome: &str, expected: &str) -> Row {
        let mut r = Row {
            point_id: 0,
            fields: Default::default(),
        };
        for (k, v) in [
            ("status", "ok"),
            ("integrator", "tsit45"),
            ("kappa", kappa),
            ("mu", mu),
            ("C", "0.1"),
            ("outcome", outcome),
            ("expected", expected),
        ] {
            r.fields.insert(k, v.to_string());
        }
        r.fields.insert("a", a.to_string());
        r.fields.insert("b", b.to_string());
        r
    }

    /// A grid of (a, b) at two μ gives two panels coloured by the outcome at the smallest κ,
    /// the states outside Table 3's outcomes ringed; a table of single states gives no map.
    #[test]
    fn the_outcome_map_draws_the_grid_at_the_smallest_kappa() {
        let mut rows = Vec::new();
        for mu in ["0.2", "0.5"] {
            for a in [-0.5, 0.0, 0.5] {
                for b in [-0.5, 0.0, 0.5] {
                    let at_smallest = if mu == "0.5" && a == 0.5 && b == -0.5 {
                        "F"
                    } else {
                        "T"
                    };
                    rows.push(run(mu, a, b, "1e-12", at_smallest, "T"));
                    rows.push(run(mu, a, b, "1e-9", "S+", "T"));
                }
            }
        }
        let columns = ["a", "b", "C", "mu"];
        let (map, caption) = outcome_map(&columns, &rows).expect("a 3 × 3 grid");
        assert_eq!(map.panels.len(), 2);
        assert_eq!(map.panels[0].title, "μ = 0.2");
        assert!(map.panels.iter().all(|p| p.cells.len() == 9));
        let ColorScale::Categories { names } = &map.scale else {
            panic!("categories")
        };
        assert_eq!(names, &["F: lift-off", "T: stick"]);
        assert_eq!(map.panels[1].marks, vec![(0.5, -0.5)]);
        assert!(map.panels[0].marks.is_empty());
        assert!(
            caption.contains("C = 0.1") && caption.contains("1 states"),
            "{caption}"
        );
        assert!(outcome_map(&columns, &rows[..4]).is_none());
    }
}
