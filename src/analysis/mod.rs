//! Analysis of sweep records: fits with confidence intervals, the κ → 0 limit by extrapolation,
//! the published bounds, convergence to the rigid limit, the fast-time studies' checks. It reads
//! rows of runs.csv only — it never calls a solver.

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

/// The numbers of a cell of space-separated numbers (a list column such as `edges` or
/// `trajectory_Y`); what does not parse is skipped.
pub fn numbers(text: &str) -> Vec<f64> {
    text.split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect()
}
