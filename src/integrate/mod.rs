//! Integrators behind one trait.
//!
//! The mode machine ([`crate::hybrid`]) needs from an integrator only what [`Stepper`] offers:
//! take one accepted step, interpolate inside the last step (dense output), save and restore the
//! full integrator state (including a multistep history), and step exactly to a given time. Event
//! location and refinement are done once, in the mode machine, for every method alike.
//!
//! Two families sit behind it: diffsol's solvers ([`diffsol`]: BDF, TR-BDF2, ESDIRK34, Tsit45)
//! and the methods written here on the same contract ([`native`]: Radau IIA of order 5 and the
//! Rosenbrock method RODAS4 on one engine, Tsitouras 5(4) and DOP853 on a stack-array explicit
//! one), because no maintained crate offers them with a saveable state, step-by-step stepping
//! to a stop time and dense output (docs/integrators.md); the explicit pairs also because a
//! fixed-size stepper with a copy-only save takes 2.4–2.5× fewer instructions per impact than
//! diffsol's (docs/performance.md, "One impact, per integrator").

pub mod diffsol;
pub mod native;

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Something that runs a hybrid simulation on whatever [`StepperFactory`] it is handed: the way
/// to be generic over the concrete (unnameable) solver types.
pub trait FactoryUser<M> {
    type Output;
    fn run<F: StepperFactory<M>>(self, factory: &mut F) -> Self::Output;
}

/// What an integrator needs to know of the hybrid ODE.
pub struct OdeSetup<R, J> {
    pub kind: IntegratorKind,
    pub tolerances: Tolerances,
    /// Per-component absolute tolerances (already scaled).
    pub atol: Vec<f64>,
    /// Smallest step the integrator may take before it reports failure.
    pub min_step: f64,
    /// Right-hand side of `mode`: `rhs(mode, y, dy)`.
    pub rhs: R,
    /// Jacobian–vector product of `mode`: `jvp(mode, y, v, Jv)`.
    pub jvp: J,
}

/// Run `user` with a factory of `setup.kind` steppers (diffsol's, or the ones written here).
///
/// `M` is the hybrid system's mode: the integrators only pass it through to `rhs` and `jvp`
/// (they know no physics). Its `Default` is the mode diffsol's problem is built with, before the
/// first phase sets the real one.
pub fn run_with_integrator<M, R, J, U>(setup: OdeSetup<R, J>, user: U) -> Result<U::Output, String>
where
    M: Copy + Default,
    R: Fn(M, &[f64], &mut [f64]),
    J: Fn(M, &[f64], &[f64], &mut [f64]),
    U: FactoryUser<M>,
{
    match setup.kind {
        IntegratorKind::Radau5
        | IntegratorKind::Rodas4
        | IntegratorKind::Tsit5
        | IntegratorKind::Dop853 => native::run_with_native(setup, user),
        _ => diffsol::run_with_diffsol(setup, user),
    }
}

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
    /// Radau IIA, 3 stages, order 5 (Hairer–Wanner's RADAU5 scheme), stiff, implicit.
    #[serde(rename = "radau5")]
    Radau5,
    /// RODAS4, a 6-stage L-stable Rosenbrock method of order 4(3) (Hairer–Wanner), linearly
    /// implicit: one LU per step, no Newton iteration.
    #[serde(rename = "rodas4")]
    Rodas4,
    /// Tsitouras 5(4) written here on stack arrays (the same pair as diffsol's `tsit45`, with
    /// DOPRI5's controller): explicit, non-stiff.
    #[serde(rename = "tsit5")]
    Tsit5,
    /// DOP853 (Dormand–Prince order 8, Hairer's 5/3 error estimate and 7th-order dense output),
    /// written here on stack arrays: explicit, non-stiff, for tight tolerances.
    #[serde(rename = "dop853")]
    Dop853,
}

impl IntegratorKind {
    pub const ALL: [IntegratorKind; 8] = [
        IntegratorKind::Bdf,
        IntegratorKind::TrBdf2,
        IntegratorKind::Esdirk34,
        IntegratorKind::Tsit45,
        IntegratorKind::Radau5,
        IntegratorKind::Rodas4,
        IntegratorKind::Tsit5,
        IntegratorKind::Dop853,
    ];

    pub fn name(&self) -> &'static str {
        match self {
            IntegratorKind::Bdf => "bdf",
            IntegratorKind::TrBdf2 => "tr-bdf2",
            IntegratorKind::Esdirk34 => "esdirk34",
            IntegratorKind::Tsit45 => "tsit45",
            IntegratorKind::Radau5 => "radau5",
            IntegratorKind::Rodas4 => "rodas4",
            IntegratorKind::Tsit5 => "tsit5",
            IntegratorKind::Dop853 => "dop853",
        }
    }

    /// One line on what the method is (for `rigid-limit list`).
    pub fn describe(&self) -> &'static str {
        match self {
            IntegratorKind::Bdf => "diffsol's variable-order BDF (orders 1–5), stiff, implicit",
            IntegratorKind::TrBdf2 => "diffsol's TR-BDF2 ESDIRK (order 2), stiff, implicit",
            IntegratorKind::Esdirk34 => "diffsol's ESDIRK34 (order 3(4)), stiff, implicit",
            IntegratorKind::Tsit45 => "diffsol's Tsitouras 5(4), explicit",
            IntegratorKind::Radau5 => {
                "Radau IIA, 3 stages, order 5 (Hairer–Wanner), stiff, implicit"
            }
            IntegratorKind::Rodas4 => "RODAS4 Rosenbrock, order 4(3), L-stable, linearly implicit",
            IntegratorKind::Tsit5 => "Tsitouras 5(4) on stack arrays (written here), explicit",
            IntegratorKind::Dop853 => "DOP853, order 8(5,3) with 7th-order dense output, explicit",
        }
    }

    pub fn is_implicit(&self) -> bool {
        !matches!(
            self,
            IntegratorKind::Tsit45 | IntegratorKind::Tsit5 | IntegratorKind::Dop853
        )
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
    /// seed; see `compliant::ContactProblem::absolute_tolerances`).
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

impl SolverStats {
    /// The counters on one line, as `simulate` prints them.
    pub fn summary(&self) -> String {
        format!(
            "steps {} (rejected {}), rhs evals {}, jvp {}, jacobians {}, LU {}, newton {}, events {}, wall time {:.3} ms",
            self.steps,
            self.rejected_steps,
            self.rhs_evals,
            self.jvp_evals,
            self.jacobian_evals,
            self.lu_factorisations,
            self.newton_iterations,
            self.events,
            self.wall_time_s * 1e3
        )
    }
}

impl SolverStats {
    /// Add every counter of `other` (wall time included).
    pub fn add(&mut self, other: &SolverStats) {
        self.steps += other.steps;
        self.rejected_steps += other.rejected_steps;
        self.rhs_evals += other.rhs_evals;
        self.jvp_evals += other.jvp_evals;
        self.jacobian_evals += other.jacobian_evals;
        self.lu_factorisations += other.lu_factorisations;
        self.newton_iterations += other.newton_iterations;
        self.events += other.events;
        self.wall_time_s += other.wall_time_s;
    }
}

/// An autonomous ODE `y' = f(y)` with exact Jacobian–vector products: what the integrators
/// written here ([`native`]) need of one mode's vector field.
pub trait VectorField {
    /// Length of the state.
    fn dim(&self) -> usize;
    /// `dy = f(y)`.
    fn rhs(&self, y: &[f64], dy: &mut [f64]);
    /// `out = J(y) v`, J = ∂f/∂y (exact: forward-mode dual numbers in this crate).
    fn jvp(&self, y: &[f64], v: &[f64], out: &mut [f64]);
}

/// Error control of the integrators written here: the weighted RMS norm of the local error
/// estimate, each component divided by `atol[i] + rtol·max(|y0_i|, |y1_i|)`, must be ≤ 1.
#[derive(Clone, Debug, PartialEq)]
pub struct StepControl {
    pub rtol: f64,
    /// Per-component absolute tolerances (already scaled by the caller).
    pub atol: Vec<f64>,
    /// A step below this size is a failure (reported, never silently accepted).
    pub min_step: f64,
}

/// One integrator run from a given state, as the mode machine drives it.
///
/// The contract every implementation keeps (the mode machine relies on each point):
/// - `step` takes one *accepted* step (rejected attempts are retried inside) and never passes
///   the stop time: the step that would is shortened to land on it exactly, and then `step`
///   returns true.
/// - `interpolate(t)` is valid for `t` in the last accepted step `[t_prev, time()]`.
/// - `save` copies everything that determines future steps (solution, step size, history,
///   stop time); `restore` puts it back. The last step's dense output may be left out (the
///   native explicit pairs, diffsol's Runge–Kutta): right after a restore `interpolate` may
///   then answer only at `time()`, until the next step. Work counters ([`Stepper::stats`]) are
///   not part of the saved state: a restore does not undo counted work.
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
    /// [`Stepper::interpolate`] for the state's first `len` components at least: `out[..len]`
    /// as `interpolate` gives it, bit for bit, the rest of `out` left stale where the stepper
    /// can skip it (the native explicit pairs, whose components interpolate independently).
    /// The scan's samples and probes need only what its functions read
    /// ([`crate::hybrid::HybridSystem::event_state_len`]). The whole state by default.
    fn interpolate_leading(&self, t: f64, len: usize, out: &mut [f64]) -> Result<(), String> {
        let _ = len;
        self.interpolate(t, out)
    }
    fn save(&self) -> Self::Saved;
    fn restore(&mut self, saved: Self::Saved);
    /// Counters accumulated by this stepper. Each counter is kept either here or in
    /// [`StepperFactory::evaluation_counts`], never both; the mode machine adds the two.
    fn stats(&self) -> SolverStats;
    /// The vector field at the current state, `f(y(time()))`, into `out`, when the stepper
    /// holds it already (an explicit pair's first-same-as-last stage, evaluated by the same
    /// field, so bit for bit what evaluating it again gives); `false` and `out` untouched
    /// otherwise.
    fn derivative(&self, _out: &mut [f64]) -> bool {
        false
    }
    /// A bound on how far component `i` of the last step's dense output departs from the
    /// step's start: `|y_i(t) − y_i(t_prev)| ≤ bound` for every `t` of the step, when the
    /// stepper knows one from its interpolant's coefficients; `None` otherwise. The scan skips
    /// the samples and tests of the functions this bound keeps away from zero.
    fn dense_departure(&self, _i: usize) -> Option<f64> {
        None
    }

    /// The shortest step the integrator takes (diffsol's fixed minimum time step; none for the
    /// native integrators): the event refinement does not ask for a shorter advance.
    fn min_step(&self) -> f64 {
        0.0
    }

    /// Step until exactly `t`.
    fn advance_to(&mut self, t: f64) -> Result<(), String> {
        self.set_stop_time(t)?;
        while !self.step()? {}
        Ok(())
    }
}

/// Starts a fresh [`Stepper`] for each phase of the hybrid run: after an event the integrator
/// restarts in the new mode from the event state, with no history from the old vector field.
pub trait StepperFactory<M> {
    type Stepper: Stepper;
    /// A new stepper for `mode`, at phase-local time 0, from state `y0`.
    fn start(&mut self, mode: M, y0: &[f64]) -> Result<Self::Stepper, String>;
    /// `stepper` (one of this factory's) started afresh for `mode` from `y0`: the same
    /// stepper, numbers and counters as [`StepperFactory::start`] gives, in `stepper`'s
    /// storage where the integrator can reuse it (a new one in its place by default).
    fn restart(&mut self, stepper: &mut Self::Stepper, mode: M, y0: &[f64]) -> Result<(), String> {
        *stepper = self.start(mode, y0)?;
        Ok(())
    }
    /// Counters kept outside the steppers (right-hand side, JVP and Jacobian evaluations).
    fn evaluation_counts(&self) -> SolverStats;
}

/// One classical Runge–Kutta step of size `h` from `y` on `y' = field(y)`: the fixed-step
/// integration of the rigid slips' rescaled equations and of the tests' direct integrations.
pub fn rk4_step<const D: usize>(
    field: impl Fn(&[f64; D]) -> [f64; D],
    y: &[f64; D],
    h: f64,
) -> [f64; D] {
    let add = |a: &[f64; D], d: &[f64; D], f: f64| std::array::from_fn(|i| a[i] + f * d[i]);
    let k1 = field(y);
    let k2 = field(&add(y, &k1, h / 2.0));
    let k3 = field(&add(y, &k2, h / 2.0));
    let k4 = field(&add(y, &k3, h));
    std::array::from_fn(|i| y[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]))
}
