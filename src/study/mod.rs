//! The studies: experiment designs generic over any [`crate::experiment::system::System`]. A
//! study owns the grid of points, the columns of runs.csv, the resume key and the report's
//! shape; the system owns the physics.

pub mod atlas;
pub mod convergence;
pub mod cycles;
pub mod fast;
pub mod first_opening;
pub mod ladder;
pub mod point;
pub mod single;
pub mod work_precision;

use crate::error::SimError;
use crate::experiment::system::System;

/// Check that `model` (an experiment file's `model = "…"`) names the system `S` it is read as.
pub(crate) fn require_model<S: System>(model: &str) -> Result<(), SimError> {
    require_model_named(model, S::NAME)
}

/// Check that `model` (an experiment file's `model = "…"`) is `name`, the model of the plan it
/// is read as.
pub(crate) fn require_model_named(model: &str, name: &str) -> Result<(), SimError> {
    if model != name {
        return Err(SimError::invalid(
            "model",
            model,
            &format!("this file is read as a {name} experiment"),
        ));
    }
    Ok(())
}
