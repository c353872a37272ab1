//! The report of a mode table ([`crate::study::fast::mode_table`]): analysis.json (the checks
//! of [`crate::analysis::mode_table`]) and summary.md (the outcome sets of every state over κ
//! against Table 3, then the checks).

use crate::analysis::mode_table::{checks, ModeTableChecks};
use crate::experiment::runner::{write_atomically, RunError};
use crate::experiment::table::Row;
use crate::model::consistency::{outcome_set_text, Outcome};
use crate::plot::heatmap::{save_heatmap_captioned, Cell, ColorScale, HeatMap, HeatPanel};
use crate::plot::style::{format_small_parameter, plot_text};
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
    let json = crate::report::json::pretty(&c);
    write_atomically(&dir.join("analysis.json"), &(json + "\n"))?;
    let map = outcome_map(state_columns, rows);
    if let Some((map, caption)) = &map {
        save_heatmap_captioned(map, caption, dir, "outcomes")
            .map_err(crate::report::figure_error(dir))?;
    }
    write_atomically(
        &dir.join("summary.md"),
        &render(
            name,
            title,
            describe,
            state_columns,
            rows,
            &c,
            map.is_some(),
        ),
    )
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
    let ok: Vec<&Row> = rows.iter().filter(|r| r.text("status") == "ok").collect();
    let kappa = ok
        .iter()
        .filter_map(|r| r.number("kappa"))
        .fold(f64::INFINITY, f64::min);
    let integrator = ok.first()?.text("integrator").to_string();
    let runs: Vec<&Row> = ok
        .into_iter()
        .filter(|r| r.number("kappa") == Some(kappa) && r.text("integrator") == integrator)
        .collect();
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

fn render(
    name: &str,
    title: &str,
    describe: &str,
    state_columns: &[&str],
    rows: &[Row],
    c: &ModeTableChecks,
    with_map: bool,
) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# {name}: {title} — Table 3 by compliant simulation\n");
    let _ = writeln!(
        s,
        "Generated by `rigid-limit run experiments/{name}.toml` (or `rigid-limit reproduce`) from \
         runs.csv ({} rows, {} failed). Outcome rule, cells and limits: docs/champneys_varkonyi.md.\n",
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
    if with_map {
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
