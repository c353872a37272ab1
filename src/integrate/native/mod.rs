//! The integrators written here: one engine ([`core`]: step-size control, stop times, failures,
//! save and restore) and two methods on it, Radau IIA of order 5 ([`radau5`]) and RODAS4
//! ([`rodas4`]); their shared numerics ([`numerics`]); and the factory that starts a fresh
//! stepper per phase, on that phase's vector field, with the run's error control.
//!
//! Every work counter of these integrators (steps, rejections, right-hand sides, Jacobian–vector
//! products, Jacobians, LU factorisations, Newton iterations) is kept by the stepper itself.

pub mod core;
pub mod numerics;
pub mod radau5;
pub mod rodas4;

#[cfg(test)]
mod conformance;
#[cfg(test)]
mod test_models;

use self::core::{Native, OneStepMethod};
use super::{
    FactoryUser, IntegratorKind, OdeSetup, SolverStats, StepControl, StepperFactory, VectorField,
};
use radau5::Radau5;
use rodas4::Rodas4;
use std::marker::PhantomData;

/// One mode's vector field, seen as an autonomous ODE.
pub struct ModeField<'s, M, R, J> {
    mode: M,
    dim: usize,
    rhs: &'s R,
    jvp: &'s J,
}

impl<M: Copy, R, J> VectorField for ModeField<'_, M, R, J>
where
    R: Fn(M, &[f64], &mut [f64]),
    J: Fn(M, &[f64], &[f64], &mut [f64]),
{
    fn dim(&self) -> usize {
        self.dim
    }
    fn rhs(&self, y: &[f64], dy: &mut [f64]) {
        (self.rhs)(self.mode, y, dy)
    }
    fn jvp(&self, y: &[f64], v: &[f64], out: &mut [f64]) {
        (self.jvp)(self.mode, y, v, out)
    }
}

/// Run `user` with a factory of `setup.kind` steppers (Radau5 or Rodas4).
pub fn run_with_native<Md, R, J, U>(setup: OdeSetup<R, J>, user: U) -> Result<U::Output, String>
where
    Md: Copy,
    R: Fn(Md, &[f64], &mut [f64]),
    J: Fn(Md, &[f64], &[f64], &mut [f64]),
    U: FactoryUser<Md>,
{
    let control = StepControl {
        rtol: setup.tolerances.rtol,
        atol: setup.atol.clone(),
        min_step: setup.min_step,
    };
    let (rhs, jvp) = (&setup.rhs, &setup.jvp);
    match setup.kind {
        IntegratorKind::Radau5 => {
            Ok(user.run(&mut NativeFactory::<_, _, Radau5>::new(rhs, jvp, control)))
        }
        IntegratorKind::Rodas4 => {
            Ok(user.run(&mut NativeFactory::<_, _, Rodas4>::new(rhs, jvp, control)))
        }
        other => Err(format!(
            "{other} is not one of the integrators written here"
        )),
    }
}

struct NativeFactory<'s, R, J, M> {
    rhs: &'s R,
    jvp: &'s J,
    control: StepControl,
    _method: PhantomData<M>,
}

impl<'s, R, J, M> NativeFactory<'s, R, J, M> {
    fn new(rhs: &'s R, jvp: &'s J, control: StepControl) -> Self {
        NativeFactory {
            rhs,
            jvp,
            control,
            _method: PhantomData,
        }
    }
}

impl<'s, Md, R, J, M> StepperFactory<Md> for NativeFactory<'s, R, J, M>
where
    Md: Copy,
    R: Fn(Md, &[f64], &mut [f64]),
    J: Fn(Md, &[f64], &[f64], &mut [f64]),
    M: OneStepMethod,
{
    type Stepper = Native<ModeField<'s, Md, R, J>, M>;

    fn start(&mut self, mode: Md, y0: &[f64]) -> Result<Self::Stepper, String> {
        let field = ModeField {
            mode,
            dim: y0.len(),
            rhs: self.rhs,
            jvp: self.jvp,
        };
        Native::new(field, y0, self.control.clone())
    }

    fn evaluation_counts(&self) -> SolverStats {
        SolverStats::default()
    }
}
