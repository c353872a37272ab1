//! Integrators behind one trait.
//!
//! The mode machine ([`crate::hybrid`]) needs from an integrator only what [`Stepper`] offers:
//! take one accepted step, interpolate inside the last step (dense output), save and restore the
//! full integrator state (including a multistep history), and step exactly to a given time. Event
//! location and refinement are done once, in the mode machine, for every method alike.

pub mod diffsol;

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The integrators the harness can run, selectable by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum IntegratorKind {
    /// diffsol's variable-order BDF (orders 1–5), stiff, implicit.
    #[serde(rename = "bdf")]
    Bdf,
    /// diffsol's TR-BDF2 ESDIRK (order 2), stiff, implicit.
    #[serde(rename = "tr-bdf2")]
    TrBdf2,
    /// diffsol's ESDIRK34 (order 3 with a 4th-order embedded estimate), stiff, implicit.
    #[serde(rename = "esdirk34")]
    Esdirk34,
    /// diffsol's Tsitouras 5(4) explicit Runge–Kutta: the non-stiff reference.
    #[serde(rename = "tsit45")]
    Tsit45,
}

impl IntegratorKind {
    pub const ALL: [IntegratorKind; 4] = [
        IntegratorKind::Bdf,
        IntegratorKind::TrBdf2,
        IntegratorKind::Esdirk34,
        IntegratorKind::Tsit45,
    ];

    pub fn name(&self) -> &'static str {
        match self {
            IntegratorKind::Bdf => "bdf",
            IntegratorKind::TrBdf2 => "tr-bdf2",
            IntegratorKind::Esdirk34 => "esdirk34",
            IntegratorKind::Tsit45 => "tsit45",
        }
    }

    pub fn is_implicit(&self) -> bool {
        !matches!(self, IntegratorKind::Tsit45)
    }
}

impl fmt::Display for IntegratorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for IntegratorKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        IntegratorKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| {
                let names: Vec<_> = IntegratorKind::ALL.iter().map(|k| k.name()).collect();
                format!("unknown integrator '{s}': use one of {}", names.join(", "))
            })
    }
}

/// Error control: the integrator keeps each local error below `atol_i + rtol·|y_i|`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tolerances {
    pub rtol: f64,
    /// Absolute tolerance on the contact-scaled state: tangential velocities and angles as they
    /// are, the gap in units of κ and the normal velocity in units of √κ (the size of an impact's
    /// seed; see `hybrid::simulate`).
    pub atol: f64,
}

/// Work counters of one run, summed over all phases.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SolverStats {
    /// Accepted steps (including the re-steps that refine events).
    pub steps: usize,
    /// Steps rejected by the local error test.
    pub rejected_steps: usize,
    /// Right-hand-side evaluations by the integrator.
    pub rhs_evals: usize,
    /// Jacobian–vector products (each one forward-mode dual evaluation of the right-hand side).
    pub jvp_evals: usize,
    /// Full Jacobian evaluations.
    pub jacobian_evals: usize,
    /// LU factorisations of the Newton matrix.
    pub lu_factorisations: usize,
    /// Newton iterations.
    pub newton_iterations: usize,
    /// Located switching events (mode changes).
    pub events: usize,
    /// Wall time of the run in seconds.
    pub wall_time_s: f64,
}

/// One integrator run from a given state, as the mode machine drives it.
pub trait Stepper {
    /// A full copy of the integrator state (solution, history, step size).
    type Saved: Clone;

    /// Current (phase-local) time.
    fn time(&self) -> f64;
    /// Current state.
    fn state(&self, out: &mut [f64]);
    /// Take one accepted step. Returns true when the stop time was reached.
    fn step(&mut self) -> Result<bool, String>;
    /// Stop exactly at `t` (later than [`Self::time`]).
    fn set_stop_time(&mut self, t: f64) -> Result<(), String>;
    /// Dense output inside the last step.
    fn interpolate(&self, t: f64, out: &mut [f64]) -> Result<(), String>;
    fn save(&self) -> Self::Saved;
    fn restore(&mut self, saved: Self::Saved);
    /// Counters accumulated by this stepper (steps, rejections, LU, Newton).
    fn stats(&self) -> SolverStats;

    /// Step until exactly `t`.
    fn advance_to(&mut self, t: f64) -> Result<(), String> {
        self.set_stop_time(t)?;
        while !self.step()? {}
        Ok(())
    }
}

/// Starts a fresh [`Stepper`] for each phase of the hybrid run: after an event the integrator
/// restarts in the new mode from the event state, with no history from the old vector field.
pub trait StepperFactory {
    type Stepper: Stepper;
    /// A new stepper for `mode`, at phase-local time 0, from state `y0`.
    fn start(&mut self, mode: crate::friction::Mode, y0: &[f64]) -> Result<Self::Stepper, String>;
    /// Counters kept outside the steppers (right-hand side, JVP and Jacobian evaluations).
    fn evaluation_counts(&self) -> SolverStats;
}
