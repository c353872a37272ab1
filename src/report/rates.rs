//! Rates of convergence fitted to the rows of a κ ladder: a quantity ∝ κ^p, fitted on a fixed
//! range of κ so that the rates of different experiments are comparable.

use crate::analysis::fit::{power_law, LinearFit};
use crate::experiment::table::Row;

/// The κ range of the fitted rates: [1e-8, 1e-4].
pub const FIT_RANGE: (f64, f64) = (1e-8, 1e-4);

/// Whether `kappa` lies in [`FIT_RANGE`] (to a relative 1e-3, the ladder's rounding).
pub fn in_fit_range(kappa: f64) -> bool {
    in_range(kappa, FIT_RANGE)
}

/// Whether `kappa` lies in `[smallest, largest]` to a relative 1e-3 (the ladder's rounding).
pub fn in_range(kappa: f64, (smallest, largest): (f64, f64)) -> bool {
    kappa >= smallest * 0.999 && kappa <= largest * 1.001
}

/// Fit `column` ∝ κ^p over [`FIT_RANGE`] (positive values only).
pub fn rate(rows: &[&Row], column: &str) -> Option<LinearFit> {
    let (k, v): (Vec<f64>, Vec<f64>) = rows
        .iter()
        .filter_map(|r| Some((r.number("kappa")?, r.number(column)?)))
        .filter(|(k, v)| in_fit_range(*k) && *v > 0.0)
        .unzip();
    power_law(&k, &v)
}
