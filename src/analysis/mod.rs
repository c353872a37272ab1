//! Analysis of sweep records: fits with confidence intervals, the κ → 0 limit by extrapolation,
//! the published bounds, convergence to the rigid limit. It reads rows of runs.csv only — it
//! never calls a solver.

pub mod claims;
pub mod cycles;
pub mod extrapolate;
pub mod fit;
pub mod trajectory;
pub mod work_precision;
