//! Schmid & Mielke (2007) §4 (`model = "schmid_mielke"`): a particle on the half-plane with
//! friction μ(z₁), its rate-independent incremental problem, the closed forms of the two
//! examples that jump when H₁₁ is below the threshold, and the slowly loaded compliant model
//! that should converge to them (docs/schmid_mielke.md).
//!
//! [`quasistatic`] (energy, σ, μ, one (IP) step by its KKT cases, the checks of each step),
//! [`examples`] (§4.1 and §4.2 as data), [`closed_form`] (their solutions), [`analysis`] (the
//! measures of a path), [`spec`] (experiment files), [`plan`] (rows), [`paths`] and
//! [`report`] (figures, summary.md), [`dynamic`] (the compliant model).

pub mod analysis;
pub mod closed_form;
pub mod dynamic;
mod dynamic_report;
pub mod examples;
pub mod paths;
pub mod plan;
pub mod quasistatic;
pub mod report;
pub mod spec;
