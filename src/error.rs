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
    #[error("integrator {integrator} failed at t = {time:.6e} in mode {mode}: {message}")]
    SolverFailed {
        integrator: String,
        time: f64,
        mode: &'static str,
        message: String,
    },
    /// Too many events: Zeno behaviour or chattering.
    #[error("event storm: {count} events by t = {time:.6e} (mode {mode}); last events: {last}. Raise max_events if this is real, or check the contact parameters")]
    EventStorm {
        count: usize,
        time: f64,
        mode: &'static str,
        last: String,
    },
    /// Too many steps.
    #[error("step limit: {steps} steps by t = {time:.6e} in mode {mode} (last events: {last}); loosen the tolerances or raise max_steps")]
    StepLimit {
        steps: usize,
        time: f64,
        mode: &'static str,
        last: String,
    },
    /// The initial state lies outside the model's domain of validity.
    #[error("the initial state is outside the model's domain: {quantity} = {value:e}, must be > 0 ({meaning}); choose an initial state inside it")]
    OutsideDomain {
        quantity: &'static str,
        meaning: &'static str,
        value: f64,
    },
    /// The run left the model's domain of validity: its results past this point mean nothing.
    #[error("the run left the model's domain at t = {time:.6e} in mode {mode}: {quantity} fell to 0 ({meaning}); the model does not hold beyond, so the run stops here")]
    LeftDomain {
        time: f64,
        mode: &'static str,
        quantity: &'static str,
        meaning: &'static str,
    },
    /// A state or vector field that is not finite (overflow, or a parameter outside what double
    /// precision represents).
    #[error("non-finite {what} at t = {time:.6e} in mode {mode}: the run overflowed; check the parameters' magnitudes")]
    NonFinite {
        time: f64,
        mode: &'static str,
        what: String,
    },
    /// The run ended at its time limit without the contact opening.
    #[error("no separation before t = {t_max} (mode {mode} at the limit): raise --t-max, or run to a fixed time with --t-end")]
    NoSeparation { t_max: f64, mode: &'static str },
}

impl SimError {
    pub fn invalid(field: &str, value: impl ToString, requirement: &str) -> Self {
        SimError::InvalidInput {
            field: field.to_string(),
            value: value.to_string(),
            requirement: requirement.to_string(),
        }
    }
}

/// Checks a parameter is finite and > 0.
pub fn require_positive(field: &str, value: f64) -> Result<f64, SimError> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(SimError::invalid(field, value, "must be finite and > 0"))
    }
}

/// The largest relative tolerance accepted (docs/tolerances.md, "Resolution limits").
pub const LARGEST_RTOL: f64 = 0.1;

/// Checks a relative tolerance is finite, > 0 and < [`LARGEST_RTOL`]: the one check behind
/// `--rtol`, `solver.rtol` and the integrator study's ladder.
pub fn require_rtol(field: &str, value: f64) -> Result<f64, SimError> {
    require_positive(field, value)?;
    if value >= LARGEST_RTOL {
        return Err(SimError::invalid(
            field,
            format!("{value:e}"),
            "must be < 0.1: a relative error of 10% or more is no measurement (at rtol 0.1 the rod's v_out is already 14% off, and beyond it the error control stops acting); see docs/tolerances.md, \"Resolution limits\"",
        ));
    }
    Ok(value)
}

/// Checks a parameter is finite and ≥ 0.
pub fn require_non_negative(field: &str, value: f64) -> Result<f64, SimError> {
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(SimError::invalid(field, value, "must be finite and >= 0"))
    }
}

/// Checks a parameter is finite.
pub fn require_finite(field: &str, value: f64) -> Result<f64, SimError> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(SimError::invalid(field, value, "must be a finite number"))
    }
}
