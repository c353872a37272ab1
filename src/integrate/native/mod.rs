//! The integrators written here: two engines, one for the implicit methods ([`core`]:
//! step-size control, stop times, failures, save and restore) with Radau IIA of order 5
//! ([`radau5`]) and RODAS4 ([`rodas4`]) on it, and one for explicit Runge–Kutta pairs on stack
//! arrays ([`explicit`]) with Tsitouras 5(4) ([`tsit5`]) and DOP853 ([`dop853`]) on it; their
//! shared numerics ([`numerics`]); and the factory that starts a fresh stepper per phase, on
//! that phase's vector field, with the run's error control.
//!
//! Every work counter of these integrators (steps, rejections, right-hand sides, Jacobian–vector
//! products, Jacobians, LU factorisations, Newton iterations) is kept by the stepper itself.

pub mod core;
pub mod dop853;
pub mod explicit;
pub mod numerics;
pub mod radau5;
pub mod rodas4;
pub mod tsit5;

#[cfg(test)]
mod conformance;
#[cfg(test)]
mod test_models;

use self::core::{Native, OneStepMethod};
use super::{
    FactoryUser, IntegratorKind, OdeSetup, SolverStats, StepControl, Stepper, StepperFactory,
    VectorField,
};
use dop853::Dop853;
use explicit::{Explicit, ExplicitPair};
use radau5::Radau5;
use rodas4::Rodas4;
use std::marker::PhantomData;
use tsit5::Tsit5;

/// A method written here, as the factory starts it: the stepper it runs on and how it starts
/// on one vector field.
pub trait NativeMethod {
    /// Name in messages.
    const NAME: &'static str;
    type Stepper<F: VectorField>: Stepper;
    /// A stepper at time 0 from `y0` with the error control `control`.
    fn start<F: VectorField>(
        f: F,
        y0: &[f64],
        control: StepControl,
    ) -> Result<Self::Stepper<F>, String>;
    /// `stepper` started afresh on `f` from `y0` with the error control `control` it was
    /// started with: what [`NativeMethod::start`] gives (the same numbers), by default a new
    /// stepper in its place.
    fn restart<F: VectorField>(
        stepper: &mut Self::Stepper<F>,
        f: F,
        y0: &[f64],
        control: &StepControl,
    ) -> Result<(), String> {
        *stepper = Self::start(f, y0, control.clone())?;
        Ok(())
    }
}

impl<M: OneStepMethod> NativeMethod for M {
    const NAME: &'static str = M::NAME;
    type Stepper<F: VectorField> = Native<F, M>;
    fn start<F: VectorField>(
        f: F,
        y0: &[f64],
        control: StepControl,
    ) -> Result<Native<F, M>, String> {
        Native::new(f, y0, control)
    }
}

/// The explicit pairs on their engine: a restart reuses the stepper's stack arrays (about
/// 3.5 KB for DOP853) instead of building and moving a new one per phase.
macro_rules! explicit_native_method {
    ($pair:ty) => {
        impl NativeMethod for $pair {
            const NAME: &'static str = <$pair as ExplicitPair>::NAME;
            type Stepper<F: VectorField> = Explicit<F, $pair>;
            fn start<F: VectorField>(
                f: F,
                y0: &[f64],
                control: StepControl,
            ) -> Result<Self::Stepper<F>, String> {
                Explicit::new(f, y0, control)
            }
            fn restart<F: VectorField>(
                stepper: &mut Self::Stepper<F>,
                f: F,
                y0: &[f64],
                _control: &StepControl,
            ) -> Result<(), String> {
                stepper.restart(f, y0)
            }
        }
    };
}

explicit_native_method!(Tsit5);
explicit_native_method!(Dop853);

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

/// Run `user` with a factory of `setup.kind` steppers (Radau5, Rodas4, Tsit5 or DOP853).
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
        IntegratorKind::Tsit5 => {
            Ok(user.run(&mut NativeFactory::<_, _, Tsit5>::new(rhs, jvp, control)))
        }
        IntegratorKind::Dop853 => {
            Ok(user.run(&mut NativeFactory::<_, _, Dop853>::new(rhs, jvp, control)))
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

    /// `mode`'s vector field, of dimension `dim`.
    fn field<Md>(&self, mode: Md, dim: usize) -> ModeField<'s, Md, R, J> {
        ModeField {
            mode,
            dim,
            rhs: self.rhs,
            jvp: self.jvp,
        }
    }
}

impl<'s, Md, R, J, M> StepperFactory<Md> for NativeFactory<'s, R, J, M>
where
    Md: Copy,
    R: Fn(Md, &[f64], &mut [f64]),
    J: Fn(Md, &[f64], &[f64], &mut [f64]),
    M: NativeMethod,
{
    type Stepper = M::Stepper<ModeField<'s, Md, R, J>>;

    fn start(&mut self, mode: Md, y0: &[f64]) -> Result<Self::Stepper, String> {
        M::start(self.field(mode, y0.len()), y0, self.control.clone())
    }

    fn restart(&mut self, stepper: &mut Self::Stepper, mode: Md, y0: &[f64]) -> Result<(), String> {
        M::restart(stepper, self.field(mode, y0.len()), y0, &self.control)
    }

    fn evaluation_counts(&self) -> SolverStats {
        SolverStats::default()
    }
}
