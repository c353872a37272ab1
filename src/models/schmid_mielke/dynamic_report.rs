//! The compliant model's section of summary.md and its figures.

use super::report::CaseRows;
use super::spec::SmSpec;
use std::path::Path;

/// Append the compliant runs' section (nothing when the run has none).
pub(crate) fn write_section(
    _s: &mut String,
    _spec: &SmSpec,
    _cases: &[CaseRows],
    _paths: &[(String, String, f64, f64)],
    _dir: &Path,
) -> Result<(), String> {
    Ok(())
}
