//! The reduction of a lift-off/IWC basin's rows ([`crate::study::fast::basin`]): per state and
//! line, the largest distance of the bisected boundary to the stable manifold's closed form,
//! and the rate |offset| ∝ κ^p when the offsets are resolved. Pure: rows in, numbers out.

use super::fit::power_law;
use super::{ok_rows_by_state_and_line, RowCells};
use serde::Serialize;

/// The basin report's numbers, from the rows.
#[derive(Clone, Debug, Default, Serialize)]
pub struct BasinChecks {
    /// Per (state, line): the largest |boundary − closed form| over κ and the fit of
    /// |offset| ∝ κ^p (when the offsets are not all at the bisection's resolution).
    pub lines: Vec<LineCheck>,
}

#[derive(Clone, Debug, Serialize)]
pub struct LineCheck {
    pub state: String,
    pub line: String,
    pub closed_form: f64,
    pub max_abs_offset: f64,
    /// (κ, offset) per κ.
    pub offsets: Vec<(f64, f64)>,
    pub exponent: Option<f64>,
    pub exponent_ci95: Option<f64>,
}

/// Offsets at or below this are the bisection's and the integrator's resolution: no rate.
const RESOLVED: f64 = 1e-8;

/// Compute the checks (`state_columns` identify a state).
pub fn checks<R: RowCells>(rows: &[R], state_columns: &[&str]) -> BasinChecks {
    let groups = ok_rows_by_state_and_line(rows, state_columns);
    let mut out = BasinChecks::default();
    for ((state, line), rows) in groups {
        let offsets: Vec<(f64, f64)> = rows
            .iter()
            .filter_map(|r| Some((r.number("kappa")?, r.number("offset")?)))
            .collect();
        let max_abs_offset = offsets.iter().fold(0.0f64, |m, (_, o)| m.max(o.abs()));
        let (k, o): (Vec<f64>, Vec<f64>) = offsets
            .iter()
            .filter(|(_, o)| o.abs() > RESOLVED)
            .map(|&(k, o)| (k, o.abs()))
            .unzip();
        let fit = (k.len() == offsets.len())
            .then(|| power_law(&k, &o))
            .flatten();
        out.lines.push(LineCheck {
            state,
            line,
            closed_form: rows
                .first()
                .and_then(|r| r.number("closed_form"))
                .unwrap_or(f64::NAN),
            max_abs_offset,
            offsets,
            exponent: fit.map(|f| f.slope),
            exponent_ci95: fit.map(|f| f.slope_ci95),
        });
    }
    out
}
