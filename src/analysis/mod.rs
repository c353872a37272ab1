//! Analysis of sweep records: fits with confidence intervals, the published bounds, convergence
//! to the rigid limit. It reads rows of runs.csv only — it never calls a solver.

pub mod fit;
