//! The Painlevé sliding rod of Zhao, Liu, Chen & Brogliato (2015): its mechanics, scenarios,
//! rigid limit and published bounds, its experiments (κ sweep, atlas, integrator study), their
//! analysis, reports and figures.

pub mod analysis;
pub mod asymptotics;
pub mod atlas;
pub mod atlas_figures;
pub mod atlas_report;
pub mod bounds;
pub mod cli;
pub mod columns;
pub mod convergence;
pub mod extrapolation_atlas;
pub mod extrapolation_report;
pub mod figures;
pub mod history;
pub mod limit;
pub mod mechanics;
pub mod report;
pub mod scenario;
pub mod study;
pub mod study_analysis;
pub mod study_figures;
pub mod study_report;
pub mod sweep;
