//! The reduction of a stick/lift-off basin's rows ([`crate::study::fast::stick_basin`]): per
//! state and line, the edges between outcomes per κ and their spread over κ, the edge nearest
//! the slip saddle's stable manifold and how many scan points the manifold predicts, the stick
//! runs' distance to the stick focus, the stick–slip cycle at the edges. Pure: rows in, numbers
//! out.

use super::{numbers, ok_rows_by_state_and_line, RowCells};
use serde::Serialize;

/// The report's numbers, from the rows.
#[derive(Clone, Debug, Default, Serialize)]
pub struct StickBasinChecks {
    pub lines: Vec<LineSummary>,
}

/// One state and line over κ.
#[derive(Clone, Debug, Serialize)]
pub struct LineSummary {
    pub state: String,
    pub line: String,
    pub manifold_crossing: f64,
    /// Per κ: (κ, edges, sides).
    pub edges: Vec<(f64, Vec<f64>, String)>,
    /// The largest difference of an edge between κ (when every κ has as many edges).
    pub kappa_spread: Option<f64>,
    /// The edge nearest the manifold and its offset, at the smallest κ.
    pub manifold_edge: Option<f64>,
    pub manifold_offset: Option<f64>,
    pub manifold_agreement: String,
    pub manifold_mismatch: String,
    /// The largest |Y_end − stick focus| of a run that ends in T, over κ.
    pub stick_end_gap_error: f64,
    /// Per edge at the smallest κ: the period (fast time) of the stick–slip cycle that a start
    /// on the edge repeats, and V at its stick → slip switch ("-": none).
    pub edge_cycle_period: String,
    pub edge_cycle_switch_v: String,
}

/// Compute the checks (`state_columns` identify a state).
pub fn checks<R: RowCells>(rows: &[R], state_columns: &[&str]) -> StickBasinChecks {
    let groups = ok_rows_by_state_and_line(rows, state_columns);
    let mut out = StickBasinChecks::default();
    for ((state, line), mut rows) in groups {
        rows.sort_by(|x, y| {
            let k = |r: &R| r.number("kappa").unwrap_or(f64::NAN);
            k(y).total_cmp(&k(x))
        });
        let edges: Vec<(f64, Vec<f64>, String)> = rows
            .iter()
            .map(|r| {
                (
                    r.number("kappa").unwrap_or(f64::NAN),
                    numbers(r.text("edges")),
                    r.text("edge_sides").to_string(),
                )
            })
            .collect();
        let same_count = edges.windows(2).all(|w| w[0].1.len() == w[1].1.len());
        let kappa_spread = same_count.then(|| {
            let first = &edges[0].1;
            edges
                .iter()
                .flat_map(|(_, e, _)| e.iter().zip(first).map(|(x, y)| (x - y).abs()))
                .fold(0.0f64, f64::max)
        });
        let last = rows.last().copied();
        out.lines.push(LineSummary {
            state,
            line,
            manifold_crossing: last
                .and_then(|r| r.number("manifold_crossing"))
                .unwrap_or(f64::NAN),
            edges,
            kappa_spread,
            manifold_edge: last.and_then(|r| r.number("manifold_edge")),
            manifold_offset: last.and_then(|r| r.number("manifold_offset")),
            manifold_agreement: last
                .map(|r| r.text("manifold_agreement").to_string())
                .unwrap_or_default(),
            manifold_mismatch: last
                .map(|r| r.text("manifold_mismatch").to_string())
                .unwrap_or_default(),
            edge_cycle_period: last
                .map(|r| r.text("edge_cycle_period").to_string())
                .unwrap_or_default(),
            edge_cycle_switch_v: last
                .map(|r| r.text("edge_cycle_switch_V").to_string())
                .unwrap_or_default(),
            stick_end_gap_error: rows
                .iter()
                .filter_map(|r| r.number("stick_end_gap_error"))
                .fold(0.0f64, f64::max),
        });
    }
    out
}
