//! The engine both integrators written here run on: one [`Stepper`] implementation,
//! [`Native`], generic over the method ([`OneStepMethod`]: Radau IIA in [`super::radau5`],
//! RODAS4 in [`super::rodas4`]).
//!
//! What the engine does the same way for both methods (E. Hairer, G. Wanner, Solving Ordinary
//! Differential Equations II, 2nd ed., §IV.8, and the codes RADAU5 and RODAS):
//! - the accepted state, `f(y)` and the Jacobian at it (evaluated once per state, reused after a
//!   rejection; a Jacobian kept from an earlier state is refreshed after a rejection);
//! - the step-size controller: `h_new = h / clamp(err^(1/4)/safety, QUOT_MIN, 5)` together with
//!   Gustafsson's predictive controller `h²/h_acc · (err_acc/err²)^(1/4) · 0.9` (§IV.8, "Step
//!   size selection"; both methods' error estimates are of order 3, hence the exponent 1/4);
//! - shortening a step to land exactly on the stop time, and the proposal after such a step;
//! - the failures: below the minimum step, a step that vanishes against `t`, repeatedly
//!   singular iteration matrices, repeatedly non-finite values;
//! - save and restore, interpolation bounds, the work counters.
//!
//! What a method adds: its stages and error estimate ([`OneStepMethod::attempt`]), the new state
//! and dense output of an accepted step ([`OneStepMethod::advance`],
//! [`OneStepMethod::interpolate`]), and what it keeps of the Jacobian for the next step
//! ([`OneStepMethod::propose`]).

use super::super::{SolverStats, StepControl, Stepper, VectorField};
use super::numerics::{self, eval_rhs};
use nalgebra::DMatrix;
use std::sync::Arc;

/// A step that would end within this factor of the stop time is stretched to land on it,
/// so that no ridiculously small final step remains (HNW I, DOPRI5 uses the same 1.01).
const STOP_STRETCH: f64 = 1.01;

/// Largest proposed step. Without a stop time, a vanishing error estimate (a solution decayed
/// to zero) lets the step grow geometrically; the cap keeps `t + h` finite.
const MAX_STEP: f64 = 1e300;

/// Consecutive failed attempts with a non-finite right-hand side, stage or error estimate
/// before `step` gives up.
const MAX_NONFINITE_FAILURES: usize = 10;

/// Consecutive singular iteration matrices before `step` gives up (Hairer: NSING ≥ 5).
const MAX_SINGULAR: usize = 5;

/// Safety factor of the step size controller (RADAU5's and RODAS's SAFE).
pub const SAFETY: f64 = 0.9;

/// Largest `h/h_new`: the step shrinks at most 5× (RADAU5's FACL, RODAS's FAC1).
const QUOT_MAX: f64 = 5.0;

/// Exponent of the error in the controller: both error estimates are `O(h⁴)`.
const ERR_EXPONENT: f64 = 0.25;

/// Floor of the error remembered by Gustafsson's controller (RADAU5's and RODAS's ERRACC).
const ERR_ACC_FLOOR: f64 = 1e-2;

/// One step attempt's outcome, as the method reports it to the engine.
#[derive(Debug)]
pub enum Attempt {
    /// The step was computed; `err` is its error estimate (accepted when ≤ 1) and `safety`
    /// the controller's safety factor for it.
    Done { err: f64, safety: f64 },
    /// The method gave up on this step size (a Newton iteration that fails or is predicted
    /// to): retry with `h·factor`.
    Retry { factor: f64 },
    /// An iteration matrix was singular.
    Singular,
    /// A stage, correction or error estimate was not finite.
    NonFinite,
}

/// One-step method that [`Native`] drives. The method holds no state of its own: what it
/// carries from step to step is its [`OneStepMethod::State`] (saved and restored with the
/// engine's [`StepCore`]), its scratch is its [`OneStepMethod::Work`].
pub trait OneStepMethod {
    /// Name in messages.
    const NAME: &'static str;
    /// Classical order (used by the initial step choice).
    const ORDER: u32;
    /// `rtol` must exceed this.
    const MIN_RTOL: f64;
    /// Smallest `h/h_new`: the step grows at most `1/QUOT_MIN` times from one step to the next.
    const QUOT_MIN: f64;
    /// After a rejected first step, retry with `h` times this (None: the controller's proposal).
    const FIRST_REJECTION_FACTOR: Option<f64>;

    /// Everything of the method that determines the future steps besides the [`StepCore`].
    type State: Clone;
    /// Scratch vectors of one step attempt (their contents never outlive a call of `step`).
    type Work;

    /// The error control the method applies for the caller's `(rtol, atol)`.
    fn internal_tolerances(rtol: f64, atol: &[f64]) -> (f64, Vec<f64>) {
        (rtol, atol.to_vec())
    }

    /// State and scratch for a run from `y0`.
    fn start(y0: &[f64]) -> (Self::State, Self::Work);

    /// One attempt of a step of size `h` from the accepted state `core.y` (where `core.f0`
    /// and `core.jacobian()` are up to date).
    fn attempt<F: VectorField>(
        f: &F,
        tol: &Tolerances,
        core: &StepCore,
        s: &mut Self::State,
        w: &mut Self::Work,
        h: f64,
        stats: &mut SolverStats,
    ) -> Attempt;

    /// Move `core.y` to the end of the attempted step and store its dense output; the engine
    /// has set the times (`core.t_prev`, `core.t`, `core.h_last`).
    fn advance(core: &mut StepCore, s: &mut Self::State, w: &Self::Work);

    /// The dense output at `t` inside the last step (`core.h_last > 0`).
    fn interpolate(core: &StepCore, s: &Self::State, t: f64, out: &mut [f64]);

    /// After an accepted step of size `h` (`last`: it ended at the stop time) whose
    /// controller proposes `h_new`: drop the Jacobian or keep it, and the step to propose.
    fn propose(core: &mut StepCore, s: &Self::State, h: f64, h_new: f64, last: bool) -> f64;
}

/// The error control of a run, as the method applies it.
pub struct Tolerances {
    pub rtol: f64,
    pub atol: Vec<f64>,
    /// A step below this size is a failure.
    min_step: f64,
}

impl Tolerances {
    fn new<M: OneStepMethod>(control: &StepControl, n: usize) -> Result<Self, String> {
        let name = M::NAME;
        let rtol = control.rtol;
        if !(rtol.is_finite() && rtol > M::MIN_RTOL) {
            return Err(format!(
                "{name}: rtol = {rtol:e} must be finite and exceed {:e}",
                M::MIN_RTOL
            ));
        }
        check_absolute_tolerances(name, &control.atol, n)?;
        let (rtol, atol) = M::internal_tolerances(rtol, &control.atol);
        Ok(Tolerances {
            rtol,
            atol,
            min_step: control.min_step,
        })
    }
}

/// What determines the future steps of either method, besides the method's own state.
#[derive(Clone)]
pub struct StepCore {
    pub t: f64,
    pub y: Vec<f64>,
    /// `f(y)`, valid when `f0_valid` (evaluated when the next step needs it).
    pub f0: Vec<f64>,
    f0_valid: bool,
    /// Proposed size of the next step (before shortening to the stop time).
    h: f64,
    t_stop: f64,
    /// Last accepted step `[t_prev, t]` and its length.
    pub t_prev: f64,
    pub h_last: f64,
    /// The Jacobian, and whether it was evaluated at the current `y` (Hairer's CALJAC).
    pub jac: Option<Arc<DMatrix<f64>>>,
    jac_current: bool,
    /// The last attempt was rejected.
    pub reject: bool,
    /// Gustafsson's controller: last accepted step and its error, number of accepted steps.
    h_acc: f64,
    err_acc: f64,
    accepted: usize,
    /// Consecutive failures with a singular matrix / a non-finite value.
    singular_failures: usize,
    nonfinite_failures: usize,
}

impl StepCore {
    /// No step accepted yet.
    pub fn first(&self) -> bool {
        self.accepted == 0
    }

    /// The Jacobian at the current state (the engine evaluates it before each attempt).
    pub fn jacobian(&self) -> &Arc<DMatrix<f64>> {
        self.jac
            .as_ref()
            .expect("the engine evaluates the Jacobian before an attempt")
    }

    /// Evaluate `f(y)` and the Jacobian if they are not at hand. Errors when the accepted
    /// state itself is unusable.
    fn prepare<F: VectorField>(
        &mut self,
        name: &str,
        f: &F,
        stats: &mut SolverStats,
    ) -> Result<(), String> {
        if !self.f0_valid {
            eval_rhs(f, &self.y, &mut self.f0, stats);
            if !numerics::all_finite(&self.f0) {
                return Err(format!("{name}: f(y) is not finite at t = {:e}", self.t));
            }
            self.f0_valid = true;
        }
        if self.jac.is_none() {
            let jac = numerics::full_jacobian(f, &self.y, stats);
            if !jac.iter().all(|x| x.is_finite()) {
                return Err(format!(
                    "{name}: the Jacobian is not finite at t = {:e}",
                    self.t
                ));
            }
            self.jac = Some(Arc::new(jac));
            self.jac_current = true;
        }
        Ok(())
    }
}

/// Refuses an initial state `y0` whose length is not the vector field's dimension `n`.
pub(super) fn check_state_length(name: &str, y0: &[f64], n: usize) -> Result<(), String> {
    if y0.len() != n {
        return Err(format!(
            "{name}: initial state of length {} for a vector field of dimension {n}",
            y0.len()
        ));
    }
    Ok(())
}

/// Refuses absolute tolerances `atol` that are not one positive finite number per component
/// of a state of length `n`.
pub(super) fn check_absolute_tolerances(name: &str, atol: &[f64], n: usize) -> Result<(), String> {
    if atol.len() != n {
        return Err(format!(
            "{name}: {} absolute tolerances for a state of length {n}",
            atol.len()
        ));
    }
    if let Some(a) = atol.iter().find(|a| !(a.is_finite() && **a > 0.0)) {
        return Err(format!("{name}: absolute tolerance {a:e} must be positive"));
    }
    Ok(())
}

/// The step to try from `t` when `h` is proposed and the run stops at `t_stop`: `h` itself,
/// or the distance to `t_stop` when `t + h` would reach it or come within [`STOP_STRETCH`] of
/// it (then `true`: the step ends exactly at the stop time).
pub(super) fn clip_to_stop(t: f64, h: f64, t_stop: f64) -> (f64, bool) {
    if t + STOP_STRETCH * h >= t_stop {
        (t_stop - t, true)
    } else {
        (h, false)
    }
}

/// A stop time for a stepper at `now`: it must lie ahead.
pub(super) fn later_stop_time(name: &str, now: f64, t: f64) -> Result<f64, String> {
    if t > now {
        Ok(t)
    } else {
        Err(format!(
            "{name}: stop time {t:e} is not later than the current time {now:e}"
        ))
    }
}

/// Refuse an interpolation time outside the last step `[t_prev, t_now]` (up to round-off).
pub(super) fn check_inside_last_step(
    name: &str,
    t: f64,
    t_prev: f64,
    t_now: f64,
) -> Result<(), String> {
    let slack = 100.0 * f64::EPSILON * (t_now.abs() + (t_now - t_prev).abs());
    if t >= t_prev - slack && t <= t_now + slack {
        Ok(())
    } else {
        Err(format!(
            "{name}: interpolation time {t:e} lies outside the last step [{t_prev:e}, {t_now:e}]"
        ))
    }
}

/// `h/h_new` of the classical controller for an error `err` and a safety factor `safety`.
fn quotient<M: OneStepMethod>(err: f64, safety: f64) -> f64 {
    (err.powf(ERR_EXPONENT) / safety).clamp(M::QUOT_MIN, QUOT_MAX)
}

/// A stepper for `y' = f(y)` with the one-step method `M`.
pub struct Native<F, M: OneStepMethod> {
    f: F,
    tol: Tolerances,
    core: StepCore,
    state: M::State,
    work: M::Work,
    stats: SolverStats,
}

impl<F: VectorField, M: OneStepMethod> Native<F, M> {
    /// A stepper at time 0 from `y0`, with Hairer's automatic initial step.
    pub fn new(f: F, y0: &[f64], control: StepControl) -> Result<Self, String> {
        let name = M::NAME;
        let n = f.dim();
        check_state_length(name, y0, n)?;
        let tol = Tolerances::new::<M>(&control, n)?;
        let mut stats = SolverStats::default();
        let mut f0 = vec![0.0; n];
        eval_rhs(&f, y0, &mut f0, &mut stats);
        if !(numerics::all_finite(y0) && numerics::all_finite(&f0)) {
            return Err(format!(
                "{name}: the initial state or its derivative is not finite"
            ));
        }
        let h0 = numerics::initial_step(&f, y0, &f0, &tol.atol, tol.rtol, M::ORDER, &mut stats)
            .max(tol.min_step);
        let core = StepCore {
            t: 0.0,
            y: y0.to_vec(),
            f0,
            f0_valid: true,
            h: h0,
            t_stop: f64::INFINITY,
            t_prev: 0.0,
            h_last: 0.0,
            jac: None,
            jac_current: false,
            reject: false,
            h_acc: 0.0,
            err_acc: ERR_ACC_FLOOR,
            accepted: 0,
            singular_failures: 0,
            nonfinite_failures: 0,
        };
        let (state, work) = M::start(y0);
        Ok(Native {
            f,
            tol,
            core,
            state,
            work,
            stats,
        })
    }

    /// One attempt of a step of size `h`. Errors only when the current (accepted) state itself
    /// is unusable.
    fn attempt(&mut self, h: f64) -> Result<Attempt, String> {
        self.core.prepare(M::NAME, &self.f, &mut self.stats)?;
        Ok(M::attempt(
            &self.f,
            &self.tol,
            &self.core,
            &mut self.state,
            &mut self.work,
            h,
            &mut self.stats,
        ))
    }

    /// Accept the attempted step of size `h` (`last`: it ends at the stop time) with error
    /// estimate `err`: new state, dense output and the next step size.
    fn accept(&mut self, h: f64, last: bool, err: f64, safety: f64) {
        let core = &mut self.core;
        let mut quot = quotient::<M>(err, safety);
        if core.accepted >= 1 {
            // Gustafsson's predictive controller (HW II §IV.8).
            let facgus = (core.h_acc / h) * (err * err / core.err_acc).powf(ERR_EXPONENT) / SAFETY;
            quot = quot.max(facgus.clamp(M::QUOT_MIN, QUOT_MAX));
        }
        core.accepted += 1;
        core.h_acc = h;
        core.err_acc = err.max(ERR_ACC_FLOOR);
        let mut h_new = h / quot;
        if last && h < core.h {
            // The step was shortened to land on the stop time: keep the earlier proposal,
            // shrunk by the controller's factor if this step's error asks for a smaller one.
            h_new = core.h * (h_new / h).min(1.0);
        }
        if core.reject {
            h_new = h_new.min(if last { core.h } else { h });
        }
        h_new = h_new.min(MAX_STEP);
        core.t_prev = core.t;
        core.h_last = h;
        core.t = if last { core.t_stop } else { core.t + h };
        M::advance(core, &mut self.state, &self.work);
        core.f0_valid = false;
        self.stats.steps += 1;
        core.reject = false;
        core.jac_current = false;
        core.singular_failures = 0;
        core.nonfinite_failures = 0;
        core.h = M::propose(core, &self.state, h, h_new, last);
    }

    /// Record a failed attempt and propose `h_new` for the next one. A Jacobian that was not
    /// evaluated at the current state is refreshed (Hairer: a rejection with an old Jacobian
    /// recomputes it).
    fn reject(&mut self, h_new: f64) {
        let core = &mut self.core;
        self.stats.rejected_steps += 1;
        core.reject = true;
        if !core.jac_current {
            core.jac = None;
        }
        core.h = h_new;
    }
}

#[cfg(test)]
impl<F: VectorField, M: OneStepMethod> Native<F, M> {
    /// One step of exactly `h`, accepted whatever its error estimate (for the order tests).
    pub fn force_step(&mut self, h: f64) {
        match self.attempt(h).unwrap() {
            Attempt::Done { err, safety } => self.accept(h, false, err, safety),
            other => panic!("forced step of {h} failed: {other:?}"),
        }
    }
}

impl<F: VectorField, M: OneStepMethod> Stepper for Native<F, M> {
    type Saved = (StepCore, M::State);

    fn time(&self) -> f64 {
        self.core.t
    }

    fn state(&self, out: &mut [f64]) {
        for (o, y) in out.iter_mut().zip(&self.core.y) {
            *o = *y;
        }
    }

    fn step(&mut self) -> Result<bool, String> {
        let name = M::NAME;
        loop {
            let core = &self.core;
            let min_step = self.tol.min_step;
            if core.h.is_nan() || core.h < min_step {
                return Err(format!(
                    "{name}: step size {:e} at t = {:e} fell below the minimum step {min_step:e}",
                    core.h, core.t
                ));
            }
            let (h, last) = clip_to_stop(core.t, core.h, core.t_stop);
            if !last && core.t + h == core.t {
                return Err(format!(
                    "{name}: step size {h:e} vanishes against t = {:e}",
                    core.t
                ));
            }
            match self.attempt(h)? {
                Attempt::Done { err, safety } if err <= 1.0 => {
                    self.accept(h, last, err, safety);
                    return Ok(last);
                }
                Attempt::Done { err, safety } => {
                    let h_new = match M::FIRST_REJECTION_FACTOR {
                        Some(factor) if self.core.first() => factor * h,
                        _ => h / quotient::<M>(err, safety),
                    };
                    self.reject(h_new);
                }
                Attempt::Retry { factor } => self.reject(factor * h),
                Attempt::Singular => {
                    self.core.singular_failures += 1;
                    if self.core.singular_failures >= MAX_SINGULAR {
                        return Err(format!(
                            "{name}: iteration matrix repeatedly singular at t = {:e} (h = {h:e})",
                            self.core.t
                        ));
                    }
                    self.reject(0.5 * h);
                }
                Attempt::NonFinite => {
                    self.core.nonfinite_failures += 1;
                    if self.core.nonfinite_failures >= MAX_NONFINITE_FAILURES {
                        return Err(format!(
                            "{name}: non-finite values in {} consecutive attempts at t = {:e} (h = {h:e})",
                            self.core.nonfinite_failures, self.core.t
                        ));
                    }
                    self.reject(0.5 * h);
                }
            }
        }
    }

    fn set_stop_time(&mut self, t: f64) -> Result<(), String> {
        self.core.t_stop = later_stop_time(M::NAME, self.core.t, t)?;
        Ok(())
    }

    fn interpolate(&self, t: f64, out: &mut [f64]) -> Result<(), String> {
        let core = &self.core;
        check_inside_last_step(M::NAME, t, core.t_prev, core.t)?;
        if core.h_last == 0.0 {
            self.state(out);
        } else {
            M::interpolate(core, &self.state, t, out);
        }
        Ok(())
    }

    fn save(&self) -> Self::Saved {
        (self.core.clone(), self.state.clone())
    }

    fn restore(&mut self, (core, state): Self::Saved) {
        self.core = core;
        self.state = state;
    }

    fn stats(&self) -> SolverStats {
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_lands_on_the_stop_time() {
        assert_eq!(clip_to_stop(0.0, 1.0, f64::INFINITY), (1.0, false));
        assert_eq!(clip_to_stop(0.0, 1.0, 0.5), (0.5, true));
        // Within the stretch: the step is lengthened to the stop time.
        assert_eq!(clip_to_stop(0.0, 1.0, 1.005), (1.005, true));
        assert_eq!(clip_to_stop(0.0, 1.0, 1.5), (1.0, false));
    }
}
