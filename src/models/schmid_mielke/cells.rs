//! The text of a number in this model's runs.csv: the shortest round-trip form, in exponent form
//! when small or large.

/// A number as it round-trips, in exponent form when small or large.
pub fn cell(v: f64) -> String {
    if v == 0.0 || (1e-4..1e15).contains(&v.abs()) || !v.is_finite() {
        v.to_string()
    } else {
        format!("{v:e}")
    }
}

/// An optional number: empty when absent.
pub(crate) fn opt(v: Option<f64>) -> String {
    v.map(cell).unwrap_or_default()
}
