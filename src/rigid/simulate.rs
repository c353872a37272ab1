//! One rigid run: the mode machine on a [`RigidProblem`] to a fixed time, with the states at
//! the output times and the located events (a two-tangent stop at its extrapolated time).

use super::{RigidEvent, RigidProblem};
use crate::compliant::cone;
use crate::compliant::spatial::{simulate_spatial, RunSettings, SpatialFormulation, SpatialRun};
use crate::error::SimError;
use crate::model::ContactSystem;

impl<Sys: ContactSystem<N, D, 1>, const N: usize, const D: usize> SpatialFormulation
    for RigidProblem<'_, Sys, N, D>
{
    fn event_delay(&self, event: RigidEvent, y: &[f64]) -> f64 {
        if event == RigidEvent::SlipStops {
            let (_, speed, rate) = self.slip_stop(y);
            cone::stop_delay::<D>(speed, rate)
        } else {
            0.0
        }
    }
}

/// Run the rigid problem from `(q0, q̇0)` to `settings.t_end`.
pub fn simulate_rigid<Sys: ContactSystem<N, D, 1>, const N: usize, const D: usize>(
    problem: &RigidProblem<'_, Sys, N, D>,
    q0: &[f64; N],
    qdot0: &[f64; N],
    settings: &RunSettings,
) -> Result<SpatialRun<RigidEvent>, SimError> {
    let y0 = problem.initial_state(q0, qdot0);
    simulate_spatial(problem, &y0, settings, None)
}
