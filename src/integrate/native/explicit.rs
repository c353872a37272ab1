//! The engine of the explicit Runge–Kutta pairs written here ([`super::tsit5`],
//! [`super::dop853`]): one [`Stepper`] implementation, [`Explicit`], generic over the pair
//! ([`ExplicitPair`]).
//!
//! Everything lives in fixed-size stack arrays ([`MAX_STATE`] components): the stages, the
//! state, the dense output. Saving the stepper before a step (the mode machine does it before
//! every step, to refine an event) is a copy, and no step allocates.
//!
//! What the engine does the same way for both pairs (E. Hairer, S. P. Nørsett, G. Wanner,
//! Solving Ordinary Differential Equations I, 2nd ed., §II.4, and the codes DOPRI5 and DOP853):
//! - the error test: a weighted RMS norm with scale `atol_i + rtol·max(|y0_i|, |y1_i|)` (the
//!   pair may weigh its estimates differently: DOP853's, [`ExplicitPair::attempt`]);
//! - the step-size controller with Lund's stabilisation (DOPRI5's and DOP853's code):
//!   `fac = err^EXPONENT / err_old^BETA`, `h_new = h / clamp(fac/0.9, 1/MAX_GROWTH,
//!   1/MIN_SHRINK)` ([`ExplicitPair`]'s constants), no growth right after a rejection;
//! - shortening a step to land on the stop time (the implicit engine's [`super::core`] rule);
//! - the failures: below the minimum step, a step that vanishes against `t`, repeatedly
//!   non-finite values; interpolation bounds; the work counters.

use super::super::{SolverStats, StepControl, Stepper, VectorField};
use super::core::{
    check_absolute_tolerances, check_inside_last_step, check_state_length, clip_to_stop,
    later_stop_time,
};
use super::numerics;

/// Largest state the explicit steppers hold (the compliant formulation's states have 2N + 4 to
/// 2N + 7 components: 10 for the rod).
pub const MAX_STATE: usize = 16;

/// One state-sized vector on the stack; components from the state's length on are unused.
pub type Vector = [f64; MAX_STATE];

/// Vectors of dense-output coefficients a pair keeps per step (DOP853's 7; Tsitouras's 4).
pub const DENSE_VECTORS: usize = 7;

/// The dense output of the last step: coefficient vectors in the pair's own form.
pub type Dense = [Vector; DENSE_VECTORS];

/// Safety factor of the step-size controller (DOPRI5's and DOP853's SAFE).
const SAFETY: f64 = 0.9;

/// Floor of the remembered error of Lund's stabilisation (DOPRI5's FACOLD floor).
const ERR_OLD_FLOOR: f64 = 1e-4;

/// Consecutive attempts with non-finite values before `step` gives up.
const MAX_NONFINITE_FAILURES: usize = 10;

/// An explicit embedded Runge–Kutta pair with a continuous extension.
pub trait ExplicitPair {
    /// Name in messages.
    const NAME: &'static str;
    /// Order of the propagated solution (the initial step choice).
    const ORDER: u32;
    /// The controller's exponent of the error, `1/(q + 1) − 0.75 β` for an estimate of order q
    /// (DOPRI5's EXPO1; DOP853's `1/8 − 0.2 β`).
    const EXPONENT: f64;
    /// Lund's stabilisation β (DOPRI5: 0.04, DOP853: 0).
    const BETA: f64;
    /// Smallest `h_new/h` (DOPRI5's FAC1 = 0.2, DOP853's 0.333).
    const MIN_SHRINK: f64;
    /// Largest `h_new/h` (DOPRI5's FAC2 = 10, DOP853's 6).
    const MAX_GROWTH: f64;
    /// The stages of one attempt (scratch: never outlives a call of `step`).
    type Stages;

    fn new_stages() -> Self::Stages;

    /// One attempt of a step of size `h` from `y0` (`f0 = f(y0)`, the first stage): the new
    /// state `y1`, `f1 = f(y1)` (the first stage of the next step) and the error estimate in the
    /// weighted norm of `tol` (accepted when ≤ 1). Components `n..` are left alone.
    #[allow(clippy::too_many_arguments)]
    fn attempt<F: VectorField>(
        f: &F,
        n: usize,
        h: f64,
        y0: &Vector,
        f0: &Vector,
        tol: &ErrorScale,
        k: &mut Self::Stages,
        y1: &mut Vector,
        f1: &mut Vector,
        stats: &mut SolverStats,
    ) -> f64;

    /// The dense output of the accepted step `y0 → y1` of size `h` whose stages are `k`.
    #[allow(clippy::too_many_arguments)]
    fn dense<F: VectorField>(
        f: &F,
        n: usize,
        h: f64,
        y0: &Vector,
        y1: &Vector,
        f1: &Vector,
        k: &mut Self::Stages,
        dense: &mut Dense,
        stats: &mut SolverStats,
    );

    /// `y(t_prev + θ h)` from the dense output of the last step.
    fn interpolate(n: usize, theta: f64, y0: &Vector, dense: &Dense, out: &mut [f64]);

    /// The dense-output vectors `interpolate` reads. Its form must be `y0` plus a sum of
    /// products of one `dense[r][i]` each and factors in [0, 1] for θ in [0, 1] (Horner in θ
    /// and 1 − θ), so that `Σ_r |dense[r][i]|` bounds `|y_i(θ) − y0_i|`
    /// ([`crate::integrate::Stepper::dense_departure`]).
    const DENSE_ROWS: usize;
}

/// The error control of a run: `atol_i + rtol·max(|y0_i|, |y1_i|)` per component.
pub struct ErrorScale {
    rtol: f64,
    atol: Vector,
}

impl ErrorScale {
    /// The scale of component `i` of the step `y0 → y1`.
    #[inline]
    pub fn of(&self, i: usize, y0: &Vector, y1: &Vector) -> f64 {
        self.atol[i] + self.rtol * y0[i].abs().max(y1[i].abs())
    }
}

/// Everything that determines the future steps: saved and restored by a copy. The last
/// step's dense output (`LastStep`) is not part of it: the mode machine saves before every
/// step and restores only to step again, and the copy was the larger part of a save.
#[derive(Clone, Copy)]
pub struct ExplicitState {
    t: f64,
    y: Vector,
    /// `f(y)`: the first stage of the next step (first same as last).
    f0: Vector,
    /// Proposed size of the next step (before shortening to the stop time).
    h: f64,
    t_stop: f64,
    /// Lund's stabilisation: the last accepted error (DOPRI5's FACOLD).
    err_old: f64,
    /// The last attempt was rejected: the next accepted step may not grow.
    rejected: bool,
    nonfinite_failures: usize,
}

/// The last accepted step `[t_prev, t_prev + h_last]`: its start and its dense output. Empty
/// (`h_last = 0`) at the start and after a restore: the dense output is then the current
/// state alone.
struct LastStep {
    t_prev: f64,
    h_last: f64,
    y_prev: Vector,
    dense: Dense,
}

/// A stepper for `y' = f(y)` with the explicit pair `P`.
pub struct Explicit<F, P: ExplicitPair> {
    f: F,
    n: usize,
    tol: ErrorScale,
    min_step: f64,
    state: ExplicitState,
    last: LastStep,
    stages: P::Stages,
    y1: Vector,
    f1: Vector,
    stats: SolverStats,
}

/// `out = y0 + h Σ_{j<count} a_j k_j` with `a` a row of the tableau (a stage's argument,
/// `count` = the stage) or the weights b (the new state): one loop for every explicit pair,
/// summed in stage order.
#[inline(always)]
pub fn stage_state(
    n: usize,
    a: &[f64],
    count: usize,
    h: f64,
    y0: &Vector,
    k: &[Vector],
    out: &mut Vector,
) {
    for i in 0..n {
        let mut acc = 0.0;
        for (aj, kj) in a.iter().zip(k).take(count) {
            acc += aj * kj[i];
        }
        out[i] = y0[i] + h * acc;
    }
}

fn vector_from(v: &[f64]) -> Vector {
    let mut out = [0.0; MAX_STATE];
    out[..v.len()].copy_from_slice(v);
    out
}

impl<F: VectorField, P: ExplicitPair> Explicit<F, P> {
    /// A stepper at time 0 from `y0`, with Hairer's automatic initial step.
    pub fn new(f: F, y0: &[f64], control: StepControl) -> Result<Self, String> {
        let name = P::NAME;
        let n = f.dim();
        check_state_length(name, y0, n)?;
        if n > MAX_STATE {
            return Err(format!(
                "{name}: a state of {n} components exceeds the {MAX_STATE} this stepper holds \
                 on the stack; use tsit45 or an implicit integrator"
            ));
        }
        let rtol = control.rtol;
        if !(rtol.is_finite() && rtol > 0.0) {
            return Err(format!(
                "{name}: rtol = {rtol:e} must be finite and positive"
            ));
        }
        check_absolute_tolerances(name, &control.atol, n)?;
        let mut stepper = Explicit {
            f,
            n,
            tol: ErrorScale {
                rtol,
                atol: vector_from(&control.atol),
            },
            min_step: control.min_step,
            state: ExplicitState {
                t: 0.0,
                y: [0.0; MAX_STATE],
                f0: [0.0; MAX_STATE],
                h: 0.0,
                t_stop: f64::INFINITY,
                err_old: ERR_OLD_FLOOR,
                rejected: false,
                nonfinite_failures: 0,
            },
            last: LastStep {
                t_prev: 0.0,
                h_last: 0.0,
                y_prev: [0.0; MAX_STATE],
                dense: [[0.0; MAX_STATE]; DENSE_VECTORS],
            },
            stages: P::new_stages(),
            y1: [0.0; MAX_STATE],
            f1: [0.0; MAX_STATE],
            stats: SolverStats::default(),
        };
        stepper.start_from(y0)?;
        Ok(stepper)
    }

    /// Start afresh on the vector field `f` (of the same dimension, with the same error
    /// control) from `y0`: what [`Explicit::new`] gives, in this stepper's storage. The stages,
    /// `y1` and `f1` are scratch that every attempt writes before it reads them (and that
    /// holds zeros from the state's length on, as after `new`).
    pub fn restart(&mut self, f: F, y0: &[f64]) -> Result<(), String> {
        if y0.len() != self.n {
            return Err(format!(
                "{}: initial state of length {} for a vector field of dimension {}",
                P::NAME,
                y0.len(),
                self.n
            ));
        }
        self.f = f;
        self.start_from(y0)
    }

    /// Time 0, state `y0`, no step taken, Hairer's automatic initial step, fresh counters.
    fn start_from(&mut self, y0: &[f64]) -> Result<(), String> {
        let n = self.n;
        let mut stats = SolverStats::default();
        let mut f0 = [0.0; MAX_STATE];
        numerics::eval_rhs(&self.f, y0, &mut f0[..n], &mut stats);
        if !(numerics::all_finite(y0) && numerics::all_finite(&f0[..n])) {
            return Err(format!(
                "{}: the initial state or its derivative is not finite",
                P::NAME
            ));
        }
        let (atol, rtol) = (&self.tol.atol[..n], self.tol.rtol);
        let h0 = numerics::initial_step(&self.f, y0, &f0[..n], atol, rtol, P::ORDER, &mut stats)
            .max(self.min_step);
        let y = vector_from(y0);
        self.state = ExplicitState {
            t: 0.0,
            y,
            f0,
            h: h0,
            t_stop: f64::INFINITY,
            err_old: ERR_OLD_FLOOR,
            rejected: false,
            nonfinite_failures: 0,
        };
        self.last.t_prev = 0.0;
        self.last.h_last = 0.0;
        self.last.y_prev = y;
        self.stats = stats;
        Ok(())
    }

    /// [`ExplicitPair::attempt`] of a step of size `h` from the current state, into `y1` and
    /// `f1`: its error estimate. Inlined into the step loop, which calls it once per attempt.
    #[inline(always)]
    fn attempt(&mut self, h: f64) -> f64 {
        let s = &self.state;
        P::attempt(
            &self.f,
            self.n,
            h,
            &s.y,
            &s.f0,
            &self.tol,
            &mut self.stages,
            &mut self.y1,
            &mut self.f1,
            &mut self.stats,
        )
    }

    /// Accept the attempted step of size `h` (`last`: it ends at the stop time) whose
    /// controller proposes `h_new`.
    fn accept(&mut self, h: f64, last: bool, mut h_new: f64) {
        let s = &mut self.state;
        P::dense(
            &self.f,
            self.n,
            h,
            &s.y,
            &self.y1,
            &self.f1,
            &mut self.stages,
            &mut self.last.dense,
            &mut self.stats,
        );
        if last && h < s.h {
            // Shortened to land on the stop time: keep the earlier proposal, shrunk by the
            // controller's factor if this step's error asks for a smaller one.
            h_new = s.h * (h_new / h).min(1.0);
        }
        if s.rejected {
            h_new = h_new.min(if last { s.h } else { h });
        }
        self.last.t_prev = s.t;
        self.last.h_last = h;
        self.last.y_prev = s.y;
        s.t = if last { s.t_stop } else { s.t + h };
        s.y = self.y1;
        s.f0 = self.f1;
        s.h = h_new;
        s.rejected = false;
        s.nonfinite_failures = 0;
        self.stats.steps += 1;
    }
}

#[cfg(test)]
impl<F: VectorField, P: ExplicitPair> Explicit<F, P> {
    /// One step of exactly `h`, accepted whatever its error estimate (for the order tests).
    pub fn force_step(&mut self, h: f64) {
        self.attempt(h);
        self.accept(h, false, h);
    }
}

impl<F: VectorField, P: ExplicitPair> Stepper for Explicit<F, P> {
    type Saved = ExplicitState;

    fn time(&self) -> f64 {
        self.state.t
    }

    fn state(&self, out: &mut [f64]) {
        out.copy_from_slice(&self.state.y[..self.n]);
    }

    fn step(&mut self) -> Result<bool, String> {
        let name = P::NAME;
        loop {
            let s = &self.state;
            if s.h.is_nan() || s.h < self.min_step {
                return Err(format!(
                    "{name}: step size {:e} at t = {:e} fell below the minimum step {:e}",
                    s.h, s.t, self.min_step
                ));
            }
            let (h, last) = clip_to_stop(s.t, s.h, s.t_stop);
            if !last && s.t + h == s.t {
                return Err(format!(
                    "{name}: step size {h:e} vanishes against t = {:e}",
                    s.t
                ));
            }
            let err = self.attempt(h);
            let finite = err.is_finite() && numerics::all_finite(&self.f1[..self.n]);
            if !finite {
                let s = &mut self.state;
                s.nonfinite_failures += 1;
                self.stats.rejected_steps += 1;
                if s.nonfinite_failures >= MAX_NONFINITE_FAILURES {
                    return Err(format!(
                        "{name}: non-finite values in {} consecutive attempts at t = {:e} (h = {h:e})",
                        s.nonfinite_failures, s.t
                    ));
                }
                s.rejected = true;
                s.h = 0.5 * h;
                continue;
            }
            // Hairer's controller with Lund's stabilisation (DOPRI5, DOP853).
            let fac11 = err.powf(P::EXPONENT);
            if err <= 1.0 {
                let fac = (fac11 / self.state.err_old.powf(P::BETA) / SAFETY)
                    .clamp(1.0 / P::MAX_GROWTH, 1.0 / P::MIN_SHRINK);
                self.state.err_old = err.max(ERR_OLD_FLOOR);
                self.accept(h, last, h / fac);
                return Ok(last);
            }
            let s = &mut self.state;
            self.stats.rejected_steps += 1;
            s.rejected = true;
            s.h = h / (fac11 / SAFETY).min(1.0 / P::MIN_SHRINK);
        }
    }

    fn set_stop_time(&mut self, t: f64) -> Result<(), String> {
        self.state.t_stop = later_stop_time(P::NAME, self.state.t, t)?;
        Ok(())
    }

    #[inline]
    fn interpolate(&self, t: f64, out: &mut [f64]) -> Result<(), String> {
        self.interpolate_leading(t, self.n, out)
    }

    /// Each component's interpolant reads its own dense-output coefficients only.
    fn interpolate_leading(&self, t: f64, len: usize, out: &mut [f64]) -> Result<(), String> {
        let last = &self.last;
        check_inside_last_step(P::NAME, t, last.t_prev, self.state.t)?;
        if last.h_last == 0.0 {
            self.state(out);
        } else {
            let theta = (t - last.t_prev) / last.h_last;
            P::interpolate(len.min(self.n), theta, &last.y_prev, &last.dense, out);
        }
        Ok(())
    }

    fn save(&self) -> Self::Saved {
        self.state
    }

    fn restore(&mut self, saved: Self::Saved) {
        self.state = saved;
        self.last.t_prev = saved.t;
        self.last.h_last = 0.0;
    }

    fn stats(&self) -> SolverStats {
        self.stats
    }

    /// `f(y)` of the accepted step's end: the next step's first stage.
    fn derivative(&self, out: &mut [f64]) -> bool {
        out.copy_from_slice(&self.state.f0[..self.n]);
        true
    }

    /// `Σ_r |dense[r][i]|` ([`ExplicitPair::DENSE_ROWS`]); none right after a restore, when
    /// the dense output is left out.
    fn dense_departure(&self, i: usize) -> Option<f64> {
        (self.last.h_last != 0.0).then(|| {
            self.last.dense[..P::DENSE_ROWS]
                .iter()
                .map(|d| d[i].abs())
                .sum()
        })
    }
}
