//! Errors with the offending field, its value and the fix.

use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum SimError {
    /// A parameter outside its allowed range.
    #[error("invalid {field} = {value}: {requirement}")]
    InvalidInput {
        field: String,
        value: String,
        requirement: String,
    },
    /// The integrator failed (step size collapse, Newton failure, ...).
    #[error("integrator {integrator} failed at t = {} in mode {mode}: {message}", time_text(*.time))]
    SolverFailed {
        integrator: String,
        time: f64,
        mode: &'static str,
        message: String,
    },
    /// Too many events: Zeno behaviour or chattering.
    #[error("event storm: {count} events by t = {} (mode {mode}); last events: {last}. If the events are spread over the run, raise the event limit (simulate --max-events, max_events in the experiment file); if they accumulate at one time (Zeno bounces, chattering between modes), no limit passes that point: check the contact parameters (damping, restitution) or the tolerances", time_text(*.time))]
    EventStorm {
        count: usize,
        time: f64,
        mode: &'static str,
        last: String,
    },
    /// Steps that leave the time where it was: the run cannot advance, and no step limit helps.
    #[error("no progress in time: {steps} steps in a row left t = {} unchanged in mode {mode} (steps of zero length); the run cannot advance, whatever the step limit: an input is outside what the model resolves (the start, the forces or the tolerances)", time_text(*.time))]
    NoProgress {
        steps: usize,
        time: f64,
        mode: &'static str,
    },
    /// Too many steps.
    #[error("step limit: {steps} steps by t = {} in mode {mode} (last events: {last}); loosen the tolerances or raise the step limit (simulate --max-steps, max_steps in the experiment file)", time_text(*.time))]
    StepLimit {
        steps: usize,
        time: f64,
        mode: &'static str,
        last: String,
    },
    /// The initial state lies outside the model's domain of validity.
    #[error("the initial state is outside the model's domain: {quantity} = {}, must be > 0 ({meaning}); choose an initial state inside it", number_text(*.value))]
    OutsideDomain {
        quantity: &'static str,
        meaning: &'static str,
        value: f64,
    },
    /// The run left the model's domain of validity: its results past this point mean nothing.
    #[error("the run left the model's domain at t = {} in mode {mode}: {quantity} fell to 0 ({meaning}); the model does not hold beyond, so the run stops here", time_text(*.time))]
    LeftDomain {
        time: f64,
        mode: &'static str,
        quantity: &'static str,
        meaning: &'static str,
    },
    /// A phase that would start in a mode the formulation cannot integrate (a singular stick
    /// subsystem of several contacts).
    #[error("no consistent contact mode at t = {} in mode {mode}: {reason}", time_text(*.time))]
    InconsistentMode {
        time: f64,
        mode: &'static str,
        reason: String,
    },
    /// A state or vector field that is not finite (overflow, or a parameter outside what double
    /// precision represents).
    #[error("non-finite {what} at t = {} in mode {mode}: the run overflowed; check the parameters' magnitudes", time_text(*.time))]
    NonFinite {
        time: f64,
        mode: &'static str,
        what: String,
    },
    /// A run to separation whose contact was open from the start and never closed.
    #[error("no separation: the contact was open from t = 0 (the initial state moves or accelerates away from the surface, so there is no impact) and did not close before t = {t_max}; start pressed into the surface, or run to a fixed time with --t-end")]
    NoContact { t_max: f64 },
    /// The run ended at its time limit without the contact opening.
    #[error("no separation before t = {t_max} (mode {mode} at the limit): raise --t-max, or run to a fixed time with --t-end")]
    NoSeparation { t_max: f64, mode: &'static str },
}

impl SimError {
    /// A value outside its allowed range; numbers are best passed through [`number_text`] or
    /// [`as_written`] so the message shows them as the user wrote them.
    pub fn invalid(field: &str, value: impl MessageText, requirement: &str) -> Self {
        SimError::InvalidInput {
            field: field.to_string(),
            value: value.message_text(),
            requirement: requirement.to_string(),
        }
    }
}

/// A value as a message shows it: floats through [`number_text`] (`1e-6`, never `0.000001`),
/// everything else as displayed.
pub trait MessageText {
    fn message_text(&self) -> String;
}

impl MessageText for f64 {
    fn message_text(&self) -> String {
        number_text(*self)
    }
}

impl MessageText for &f64 {
    fn message_text(&self) -> String {
        number_text(**self)
    }
}

macro_rules! displayed_as_message_text {
    ($($t:ty),*) => {$(
        impl MessageText for $t {
            fn message_text(&self) -> String {
                self.to_string()
            }
        }
    )*};
}
displayed_as_message_text!(usize, u32, u64, u128, i32, i64, &str, String, &String);

/// A number in its shortest round-trip form, with an exponent outside [1e-4, 1e6): `1e-12`,
/// `0.25`, `3`, `2.5e7` (Rust's plain `Display` writes 1e-12 as 0.000000000001).
pub fn number_text(x: f64) -> String {
    let mut s = String::new();
    write_number(&mut s, x);
    s
}

/// [`number_text`] appended to `out` (a table's line is written without a string per cell).
pub(crate) fn write_number(out: &mut String, x: f64) {
    use std::fmt::Write;
    let a = x.abs();
    let _ = if a == 0.0 || !a.is_finite() || (1e-4..1e6).contains(&a) {
        write!(out, "{x}")
    } else {
        write!(out, "{x:e}")
    };
}

/// A time in a message: seven significant digits, written like [`number_text`] (`1.227728`,
/// `0.002660739`, `3.4e-9`, not `1.227728e0`).
pub(crate) fn time_text(t: f64) -> String {
    format!("{t:.6e}")
        .parse()
        .map(number_text)
        .unwrap_or_else(|_| t.to_string())
}

/// `x` to `digits` significant digits, written like [`number_text`] (`1.4092675144`, not
/// `1.4092675144e0`).
pub(crate) fn significant_text(x: f64, digits: usize) -> String {
    let decimals = digits.saturating_sub(1);
    format!("{x:.decimals$e}")
        .parse()
        .map(number_text)
        .unwrap_or_else(|_| x.to_string())
}

/// A value as it is written in an experiment file (`"tsit45"` → `tsit45`, `[1, 2]`, `1e-8`),
/// for messages: never Rust's Debug form.
pub fn as_written<T: serde::Serialize>(value: &T) -> String {
    fn text(v: &serde_json::Value) -> String {
        match v {
            serde_json::Value::Null => "(not set)".into(),
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Number(n) => n.as_f64().map(number_text).unwrap_or(n.to_string()),
            serde_json::Value::Array(a) => {
                format!("[{}]", a.iter().map(text).collect::<Vec<_>>().join(", "))
            }
            other => other.to_string(),
        }
    }
    serde_json::to_value(value)
        .map(|v| text(&v))
        .unwrap_or_else(|_| "(unprintable)".into())
}

/// The error that the number `value`, named `field`, fails `requirement` (made only then) when
/// `fails`, else `Ok(value)`: the one shape of every input check.
pub(crate) fn refuse_if(
    fails: bool,
    field: &str,
    value: f64,
    requirement: impl FnOnce() -> String,
) -> Result<f64, SimError> {
    if fails {
        Err(SimError::invalid(field, number_text(value), &requirement()))
    } else {
        Ok(value)
    }
}

/// Checks a parameter is finite and > 0.
pub fn require_positive(field: &str, value: f64) -> Result<f64, SimError> {
    refuse_if(!(value.is_finite() && value > 0.0), field, value, || {
        "must be finite and > 0".to_string()
    })
}

/// The largest relative tolerance accepted (docs/tolerances.md, "Resolution limits").
pub(crate) const LARGEST_RTOL: f64 = 0.1;

/// The smallest relative tolerance accepted: about 45 machine epsilons. Below it the local
/// error estimate is a difference of stage sums at the level of their rounding, so no step-size
/// control can meet it: RADAU5 refuses rtol ≤ 1e-15 outright and the explicit methods control
/// only atol (docs/tolerances.md, "Resolution limits").
pub(crate) const SMALLEST_RTOL: f64 = 1e-14;

/// Checks a relative tolerance is finite and in [[`SMALLEST_RTOL`], [`LARGEST_RTOL`]): the one
/// check behind `--rtol`, `solver.rtol` and the integrator study's ladder.
pub(crate) fn require_rtol(field: &str, value: f64) -> Result<f64, SimError> {
    require_positive(field, value)?;
    refuse_if(value < SMALLEST_RTOL, field, value, || {
        "must be ≥ 1e-14 (about 45 machine epsilons): a smaller relative error is below the rounding of the integrators' error estimates, so no step control meets it; see docs/tolerances.md, \"Resolution limits\"".to_string()
    })?;
    refuse_if(value >= LARGEST_RTOL, field, value, || {
        "must be < 0.1: a relative error of 10% or more is no measurement (at rtol 0.1 the rod's v_out is already 14% off, and beyond it the error control stops acting); see docs/tolerances.md, \"Resolution limits\"".to_string()
    })
}

/// The largest absolute tolerance accepted: atol is absolute on the contact-scaled state
/// (angles and tangential velocities as they are, the gap in units of κ, the normal velocity in
/// units of √κ; docs/tolerances.md, "Tolerances in short"), whose components are O(1), so an
/// atol of 0.1 already allows errors of 10 % of the state's size.
pub(crate) const LARGEST_ATOL: f64 = 0.1;

/// Checks an absolute tolerance is finite, > 0 and < [`LARGEST_ATOL`].
pub(crate) fn require_atol(field: &str, value: f64) -> Result<f64, SimError> {
    require_positive(field, value)?;
    refuse_if(value >= LARGEST_ATOL, field, value, || {
        "must be < 0.1: atol is absolute on the contact-scaled state, whose components are O(1), so 0.1 is already an error of 10% of its size (simulate --kappa 1e-6: the separation time is 3% off at atol 1, v_out 28% off at 1e20); see docs/tolerances.md, \"Resolution limits\"".to_string()
    })
}

/// Checks an optional run guard (a step or event limit) is at least 1.
pub(crate) fn require_guard(field: &str, value: Option<usize>) -> Result<(), SimError> {
    match value {
        Some(0) => Err(SimError::invalid(field, 0, "must be >= 1")),
        _ => Ok(()),
    }
}

/// Checks a parameter is finite and ≥ 0.
pub(crate) fn require_non_negative(field: &str, value: f64) -> Result<f64, SimError> {
    refuse_if(!(value.is_finite() && value >= 0.0), field, value, || {
        "must be finite and >= 0".to_string()
    })
}

/// The largest size of an input number. Every model is nondimensional (lengths in its body's
/// length, times in √(l/g), forces in its weight), so a physical input is O(1) and one of 1e6
/// is already extreme; the energy and the work account are quadratic in velocities, forces and
/// lengths, so a size beyond √(f64::MAX) ≈ 1.3e154 overflows them, and 1e150 leaves room for
/// the O(1)–O(1e3) factors they carry. Beyond it a run cannot compute its own energy balance:
/// `--mu 1e300` failed in the integrator at t = 0 naming no input, `--u0 1e308` ended at the
/// minimum step, `--omega0 1e308` overflowed the vector field.
pub const LARGEST_INPUT: f64 = 1e150;

/// Checks a parameter is finite and at most [`LARGEST_INPUT`] in size.
pub(crate) fn require_representable(field: &str, value: f64) -> Result<f64, SimError> {
    require_finite(field, value)?;
    refuse_if(value.abs() > LARGEST_INPUT, field, value, || {
        format!(
                "must be at most {LARGEST_INPUT:e} in size: inputs are nondimensional (lengths in the body's length, times in √(l/g), forces in its weight, O(1) for any physical system), and the energy, quadratic in velocities, forces and lengths, of a larger one overflows double precision (1.8e308)"
            )
    })
}

/// Checks a parameter is finite.
pub(crate) fn require_finite(field: &str, value: f64) -> Result<f64, SimError> {
    refuse_if(!(value.is_finite()), field, value, || {
        "must be a finite number".to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_in_messages_are_written_shortest() {
        assert_eq!(number_text(1e-12), "1e-12");
        assert_eq!(number_text(0.25), "0.25");
        assert_eq!(number_text(2.5e7), "2.5e7");
        assert_eq!(time_text(1.2277284), "1.227728");
        assert_eq!(time_text(2.6607391e-3), "0.002660739");
        assert_eq!(time_text(3.4e-9), "3.4e-9");
        assert_eq!(significant_text(1.40926751443, 11), "1.4092675144");
        assert_eq!(significant_text(6.76e-5, 4), "6.76e-5");
        assert_eq!(time_text(10.0), "10");
        let max = SimError::invalid("sweep.kappa.max", 1e-6, "must be >= sweep.kappa.min");
        assert_eq!(
            max.to_string(),
            "invalid sweep.kappa.max = 1e-6: must be >= sweep.kappa.min"
        );
        let storm = SimError::EventStorm {
            count: 3,
            time: 0.5,
            mode: "free",
            last: "none".into(),
        };
        assert!(
            storm.to_string().contains("by t = 0.5 (mode free)"),
            "{storm}"
        );
    }
}
