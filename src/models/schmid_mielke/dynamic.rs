//! The compliant dynamic model (docs/schmid_mielke.md, "The compliant model").

use super::spec::{Case, CompliantSetting};
use crate::integrate::SolverStats;

type Cells = Vec<(&'static str, String)>;

/// Run one compliant case.
pub fn run_compliant(
    _case: &Case,
    _setting: &CompliantSetting,
) -> Result<(Cells, SolverStats), String> {
    Err("method = \"compliant\" is not available yet".into())
}

/// Append the trajectories drawn for these cases to paths.csv.
pub fn push_trajectories(_text: &mut String, _label: &str, _cases: &[Case]) {}
