//! The Painlevé sliding rod of Zhao, Liu, Chen & Brogliato (2015): its mechanics, scenarios,
//! rigid limit and published bounds, its experiments (κ sweep, atlas; its scenarios on the
//! work–precision study, [`scenario_system`]), their analysis, reports and figures.

pub mod analysis;
pub mod asymptotics;
pub mod atlas;
pub(crate) mod atlas_figures;
pub(crate) mod atlas_report;
pub mod bounds;
pub mod cli;
pub mod columns;
pub mod convergence;
pub mod extrapolation_atlas;
pub(crate) mod extrapolation_report;
pub mod fast;
pub mod figures;
pub mod gspot;
pub(crate) mod gspot_report;
pub(crate) mod gspot_study;
pub mod history;
pub mod limit;
pub mod mechanics;
pub mod report;
pub mod scenario;
pub mod scenario_system;
pub mod stick_envelope;
pub(crate) mod stick_envelope_report;
pub mod sweep;
pub mod two_ends;

use serde::{Deserialize, Serialize};

/// The Painlevé rod of Zhao–Liu: a system on the convergence study over its own grid
/// ([`sweep::RodExperiment`], `model = "rod"`) and a fast-time contact ([`fast`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rod;

/// What the report of a rod sweep is: one configuration against κ, an atlas of many, or the
/// validation of the κ → 0 extrapolation over many (docs/extrapolation.md §3).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub(crate) enum AnalysisKind {
    Sweep,
    Atlas,
    Extrapolation,
}
