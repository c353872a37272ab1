//! Adapter for diffsol 0.18's BDF, TR-BDF2, ESDIRK34 and Tsit45.
//!
//! Design notes (measured traps of docs/tolerances.md and how they are avoided):
//! - diffsol's own root finder is not used (it sees only sign changes at step ends); the mode
//!   machine scans and refines events itself, the same way for every integrator.
//! - A new solver is created for every phase, from the event state, through the problem's `init`
//!   closure and at phase-local time 0: `dy` is computed with the new mode's vector field, the
//!   Jacobian is fresh, and no BDF history of the old vector field survives.
//! - Event refinement restores a saved solver state (`state_clone`/`set_state`, which keep the
//!   BDF history intact) and steps exactly to the event time.
//! - The minimum step is set from the contact time scale (the default absolute 1e-13 is longer
//!   than the reverse-slip phase at κ = 1e-12).
//! - Dense matrices: nalgebra (`NalgebraMat`, `NalgebraLU`); for our 10 states it was faster than
//!   faer with the same steps (docs/integrators.md, "Linear algebra backend").

use super::{FactoryUser, IntegratorKind, OdeSetup, SolverStats, Stepper, StepperFactory};
use diffsol::{
    error::OdeSolverError, DiffsolError, NalgebraLU, NalgebraMat, OdeBuilder, OdeEquations,
    OdeSolverMethod, OdeSolverProblem, OdeSolverStopReason, Op, Vector,
};
use std::cell::{Cell, RefCell};
use std::marker::PhantomData;

/// The state a new phase starts from, read by the problem's `init` closure.
struct PhaseStart<Md> {
    mode: Cell<Md>,
    y: RefCell<Vec<f64>>,
}

/// Build the diffsol problem and run `user` with a factory of `setup.kind` solvers.
pub fn run_with_diffsol<Md, R, J, U>(setup: OdeSetup<R, J>, user: U) -> Result<U::Output, String>
where
    Md: Copy + Default,
    R: Fn(Md, &[f64], &mut [f64]),
    J: Fn(Md, &[f64], &[f64], &mut [f64]),
    U: FactoryUser<Md>,
{
    let n = setup.atol.len();
    let start = PhaseStart {
        mode: Cell::new(Md::default()),
        y: RefCell::new(vec![0.0; n]),
    };
    let rhs = &setup.rhs;
    let jvp = &setup.jvp;
    let mut problem = OdeBuilder::<NalgebraMat<f64>>::new()
        .rtol(setup.tolerances.rtol)
        .atol(setup.atol.iter().copied())
        .rhs_implicit(
            |x: &[f64], _p: &[f64], _t: f64, y: &mut [f64]| rhs(start.mode.get(), x, y),
            |x: &[f64], _p: &[f64], _t: f64, v: &[f64], y: &mut [f64]| {
                jvp(start.mode.get(), x, v, y)
            },
        )
        .init(
            |_p: &[f64], _t: f64, y: &mut [f64]| y.copy_from_slice(&start.y.borrow()),
            n,
        )
        .build()
        .map_err(|e| format!("building the diffsol problem failed: {e}"))?;
    problem.ode_options.min_timestep = setup.min_step;
    let problem = &problem;
    let start = &start;
    Ok(match setup.kind {
        IntegratorKind::Bdf => user.run(&mut DiffsolFactory::new(problem, start, || {
            problem.bdf::<NalgebraLU<f64>>()
        })),
        IntegratorKind::TrBdf2 => user.run(&mut DiffsolFactory::new(problem, start, || {
            problem.tr_bdf2::<NalgebraLU<f64>>()
        })),
        IntegratorKind::Esdirk34 => user.run(&mut DiffsolFactory::new(problem, start, || {
            problem.esdirk34::<NalgebraLU<f64>>()
        })),
        IntegratorKind::Tsit45 => user.run(&mut DiffsolFactory::new(problem, start, || {
            problem.tsit45()
        })),
        other => return Err(format!("{other} is not one of diffsol's integrators")),
    })
}

struct DiffsolFactory<'p, Eqn: OdeEquations, Md, S, M> {
    problem: &'p OdeSolverProblem<Eqn>,
    start: &'p PhaseStart<Md>,
    make: M,
    _solver: PhantomData<S>,
}

impl<'p, Eqn: OdeEquations, Md, S, M> DiffsolFactory<'p, Eqn, Md, S, M> {
    fn new(problem: &'p OdeSolverProblem<Eqn>, start: &'p PhaseStart<Md>, make: M) -> Self {
        DiffsolFactory {
            problem,
            start,
            make,
            _solver: PhantomData,
        }
    }
}

impl<'p, Eqn, Md, S, M> StepperFactory<Md> for DiffsolFactory<'p, Eqn, Md, S, M>
where
    Md: Copy,
    Eqn: OdeEquations<T = f64> + 'p,
    S: OdeSolverMethod<'p, Eqn>,
    M: Fn() -> Result<S, DiffsolError>,
{
    type Stepper = DiffsolStepper<'p, Eqn, S>;

    fn start(&mut self, mode: Md, y0: &[f64]) -> Result<Self::Stepper, String> {
        self.start.mode.set(mode);
        self.start.y.borrow_mut().copy_from_slice(y0);
        let solver = (self.make)().map_err(|e| format!("starting the integrator failed: {e}"))?;
        let dense = RefCell::new(solver.state().y.clone());
        Ok(DiffsolStepper {
            solver,
            dense,
            min_step: self.problem.ode_options.min_timestep,
            _eqn: PhantomData,
        })
    }

    fn evaluation_counts(&self) -> SolverStats {
        let op = self.problem.eqn.rhs().statistics();
        SolverStats {
            rhs_evals: op.number_of_calls,
            jvp_evals: op.number_of_jac_muls,
            jacobian_evals: op.number_of_matrix_evals,
            ..SolverStats::default()
        }
    }
}

/// One diffsol solver driven as a [`Stepper`].
pub struct DiffsolStepper<'p, Eqn: OdeEquations, S> {
    solver: S,
    /// The dense output's vector, reused by every interpolation (diffsol's `interpolate`
    /// allocates one per call).
    dense: RefCell<Eqn::V>,
    /// diffsol's minimum time step: a shorter step fails with "step size is too small".
    min_step: f64,
    _eqn: PhantomData<&'p Eqn>,
}

impl<'p, Eqn, S> Stepper for DiffsolStepper<'p, Eqn, S>
where
    Eqn: OdeEquations<T = f64> + 'p,
    S: OdeSolverMethod<'p, Eqn>,
{
    type Saved = S::State;

    fn time(&self) -> f64 {
        self.solver.state().t
    }

    fn state(&self, out: &mut [f64]) {
        copy_out(self.solver.state().y, out);
    }

    fn step(&mut self) -> Result<bool, String> {
        match self.solver.step() {
            Ok(OdeSolverStopReason::TstopReached) => Ok(true),
            Ok(_) => Ok(false),
            Err(e) => Err(e.to_string()),
        }
    }

    fn set_stop_time(&mut self, t: f64) -> Result<(), String> {
        self.solver.set_stop_time(t).map_err(|e| e.to_string())
    }

    fn min_step(&self) -> f64 {
        self.min_step
    }

    /// As the default, except that a target within diffsol's stop-time round-off of the
    /// current time (100 ε (|t| + |h|), h its *proposed* step, which can exceed the last
    /// accepted one) counts as reached instead of failing.
    fn advance_to(&mut self, t: f64) -> Result<(), String> {
        match self.solver.set_stop_time(t) {
            Err(DiffsolError::OdeSolverError(OdeSolverError::StopTimeAtCurrentTime)) => {
                return Ok(())
            }
            other => other.map_err(|e| e.to_string())?,
        }
        while !self.step()? {}
        Ok(())
    }

    fn interpolate(&self, t: f64, out: &mut [f64]) -> Result<(), String> {
        let mut y = self.dense.borrow_mut();
        self.solver
            .interpolate_inplace(t, &mut y)
            .map_err(|e| e.to_string())?;
        copy_out(&*y, out);
        Ok(())
    }

    fn save(&self) -> Self::Saved {
        self.solver.state_clone()
    }

    fn restore(&mut self, saved: Self::Saved) {
        self.solver.set_state(saved);
    }

    fn stats(&self) -> SolverStats {
        let s = self.solver.get_statistics();
        SolverStats {
            steps: s.number_of_steps,
            rejected_steps: s.number_of_error_test_failures,
            lu_factorisations: s.number_of_linear_solver_setups,
            newton_iterations: s.number_of_nonlinear_solver_iterations,
            ..SolverStats::default()
        }
    }
}

fn copy_out<V: Vector<T = f64>>(v: &V, out: &mut [f64]) {
    for (i, o) in out.iter_mut().enumerate() {
        *o = v.get_index(i);
    }
}
