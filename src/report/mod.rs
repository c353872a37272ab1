//! The report layer: what a study writes for its reader besides runs.csv. [`markdown`], the
//! summary's builder and number formats; [`table`], the one writer of side tables (history.csv,
//! points.csv, paths.csv, …) and their reader; [`json`], pretty JSON with shortest numbers
//! (analysis.json, `simulate --json`); [`rates`], the rates of convergence fitted to the rows of
//! a κ ladder; the summaries and figures of the fast-time studies ([`mode_table`], [`basin`],
//! [`stick_basin`], [`portraits`]) and of the work–precision study ([`work_precision`]); the
//! claims ledger ([`claims`]); and the error of a figure that could not be drawn. It computes no
//! physics and names no model.

pub mod basin;
pub mod claims;
pub mod json;
pub mod markdown;
pub mod mode_table;
pub mod portraits;
pub mod rates;
pub mod stick_basin;
pub mod table;
pub mod work_precision;

use crate::compliant::normal::NormalLaw;
use crate::experiment::runner::RunError;
use crate::experiment::table::Row;
use std::path::Path;

/// A law and its damping coefficient, given as a row's `law` and `damping` cells, as a figure's
/// legend writes them in the notation of docs/oblique_impact.md: c_d for the spring–dashpot,
/// α (= c_d) for Hunt–Crossley.
pub(crate) fn law_legend(law: &str, damping: &str) -> String {
    if law == NormalLaw::HuntCrossley.name() {
        format!("Hunt–Crossley, α = {damping}")
    } else if law == NormalLaw::SpringDashpot.name() {
        format!("spring–dashpot, c_d = {damping}")
    } else {
        format!("{law}, damping {damping}")
    }
}

/// The error of a figure of `dir` that could not be drawn, as a run's error.
pub(crate) fn figure_error(dir: &Path) -> impl FnOnce(String) -> RunError + '_ {
    move |e| RunError::Io {
        path: dir.display().to_string(),
        source: std::io::Error::other(format!("drawing figures: {e}")),
    }
}

/// An I/O error on `dir` carrying `e` as it is (a figure that could not be written).
pub(crate) fn io_error(dir: &Path) -> impl FnOnce(String) -> RunError + '_ {
    move |e| RunError::Io {
        path: dir.display().to_string(),
        source: std::io::Error::other(e),
    }
}

/// Write `value` as `dir/analysis.json` ([`json::pretty`], ending in a newline).
pub(crate) fn write_analysis<T: serde::Serialize + ?Sized>(
    dir: &Path,
    value: &T,
) -> Result<(), RunError> {
    crate::experiment::runner::write_atomically(
        &dir.join("analysis.json"),
        &(json::pretty(value) + "\n"),
    )
}

/// The reductions of `crate::analysis` read a row of runs.csv by column name.
impl crate::analysis::RowCells for crate::experiment::table::Row {
    fn text(&self, column: &str) -> &str {
        Row::text(self, column)
    }
    fn number(&self, column: &str) -> Option<f64> {
        Row::number(self, column)
    }
}
