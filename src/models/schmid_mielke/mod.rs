//! Schmid & Mielke (2007) §4 (`model = "schmid_mielke"`): a particle on the half-plane with
//! friction μ(z₁), its rate-independent incremental problem, the closed forms of the two
//! examples that jump when H₁₁ is below the threshold, and the slowly loaded compliant model
//! that converges to them (docs/schmid_mielke.md).
//!
//! The rate-independent side: [`quasistatic`] (energy, σ, μ, one (IP) step by its KKT cases,
//! the checks of each step), [`examples`] (§4.1 and §4.2 as data), [`closed_form`] (their
//! solutions and the energy of a jump). The dynamic side: [`mechanics`] (the particle as a
//! `PlanarContactSystem` with μ(z₁) and drag), [`dynamic`] (one compliant run and its
//! measures), [`jump`] (the ε → 0 jump at frozen load, in closed form). The harness:
//! [`analysis`] (the measures of a sampled path), [`spec`] (experiment files), [`plan`] (rows),
//! [`paths`] (paths.csv), [`report`] and its compliant section (summary.md, figures).

pub mod analysis;
pub mod cells;
pub mod closed_form;
pub mod dynamic;
mod dynamic_figures;
mod dynamic_report;
mod dynamic_rows;
pub mod examples;
pub mod jump;
pub mod mechanics;
pub mod paths;
pub mod plan;
pub mod quasistatic;
pub mod report;
pub(crate) mod report_kit;
pub mod spec;
