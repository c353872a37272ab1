//! Analysis of sweep records: fits with confidence intervals, the published bounds, convergence
//! to the rigid limit. It reads rows of runs.csv only — it never calls a solver.

pub mod atlas;
pub mod atlas_report;
pub mod fit;
pub mod report;
pub mod study;
pub mod study_report;
pub mod sweep;

pub use sweep::{analyze, SweepAnalysis};
