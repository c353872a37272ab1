//! The factory for the integrators written here ([`super::radau`], [`super::rodas`]): a fresh
//! stepper per phase, on that phase's vector field, with the run's error control.
//!
//! Every work counter of these integrators (steps, rejections, right-hand sides, Jacobian–vector
//! products, Jacobians, LU factorisations, Newton iterations) is kept by the stepper itself.

use super::radau::Radau5;
use super::rodas::Rodas4;
use super::{
    FactoryUser, IntegratorKind, OdeSetup, SolverStats, StepControl, Stepper, StepperFactory,
    VectorField,
};
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
            Ok(user.run(&mut NativeFactory::new(rhs, jvp, control, Radau5::new)))
        }
        IntegratorKind::Rodas4 => {
            Ok(user.run(&mut NativeFactory::new(rhs, jvp, control, Rodas4::new)))
        }
        other => Err(format!(
            "{other} is not one of the integrators written here"
        )),
    }
}

struct NativeFactory<'s, R, J, M, S> {
    rhs: &'s R,
    jvp: &'s J,
    control: StepControl,
    make: M,
    _stepper: PhantomData<S>,
}

impl<'s, R, J, M, S> NativeFactory<'s, R, J, M, S> {
    fn new(rhs: &'s R, jvp: &'s J, control: StepControl, make: M) -> Self {
        NativeFactory {
            rhs,
            jvp,
            control,
            make,
            _stepper: PhantomData,
        }
    }
}

impl<'s, Md, R, J, M, S> StepperFactory<Md> for NativeFactory<'s, R, J, M, S>
where
    Md: Copy,
    R: Fn(Md, &[f64], &mut [f64]),
    J: Fn(Md, &[f64], &[f64], &mut [f64]),
    M: Fn(ModeField<'s, Md, R, J>, &[f64], StepControl) -> Result<S, String>,
    S: Stepper,
{
    type Stepper = S;

    fn start(&mut self, mode: Md, y0: &[f64]) -> Result<S, String> {
        let field = ModeField {
            mode,
            dim: y0.len(),
            rhs: self.rhs,
            jvp: self.jvp,
        };
        (self.make)(field, y0, self.control.clone())
    }

    fn evaluation_counts(&self) -> SolverStats {
        SolverStats::default()
    }
}
