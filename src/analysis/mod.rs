//! Analysis of sweep records: fits with confidence intervals, the κ → 0 limit by extrapolation,
//! the published bounds, convergence to the rigid limit, the fast-time studies' checks. It reads
//! rows of runs.csv only — it never calls a solver.

use std::collections::BTreeMap;

pub mod basin;
pub mod claims;
pub mod cycles;
pub mod extrapolate;
pub mod first_opening;
pub mod fit;
pub mod mode_table;
pub mod portraits;
pub mod stick_basin;
pub mod trajectory;
pub mod work_precision;

/// A row of runs.csv as a reduction reads it: its cells by column name (the report layer hands
/// over the rows it read; a missing cell is empty).
pub trait RowCells {
    /// The cell of `column` as written ("" when missing).
    fn text(&self, column: &str) -> &str;
    /// The cell of `column` as a number, if it is one.
    fn number(&self, column: &str) -> Option<f64> {
        self.text(column).parse().ok()
    }
}

/// A row's state as the fast studies name it: its cells of `state_columns` joined by ", ".
pub(crate) fn state_text<R: RowCells>(r: &R, state_columns: &[&str]) -> String {
    let cells: Vec<&str> = state_columns.iter().map(|c| r.text(c)).collect();
    cells.join(", ")
}

/// The rows that ran (`status = ok`) grouped by their state ([`state_text`]) and `line` (a
/// basin study's rows: one group per scanned line of a state, over κ), in key order.
pub(crate) fn ok_rows_by_state_and_line<'a, R: RowCells>(
    rows: &'a [R],
    state_columns: &[&str],
) -> BTreeMap<(String, String), Vec<&'a R>> {
    let mut groups: BTreeMap<(String, String), Vec<&R>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.text("status") == "ok") {
        groups
            .entry((state_text(r, state_columns), r.text("line").to_string()))
            .or_default()
            .push(r);
    }
    groups
}

/// The numbers of a cell of space-separated numbers (a list column such as `edges` or
/// `trajectory_Y`); what does not parse is skipped.
pub fn numbers(text: &str) -> Vec<f64> {
    text.split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect()
}
