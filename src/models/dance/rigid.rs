//! The rigid slide of Dance's particle after the start: v' = (1, t) − μ v/|v|, u' = v on the
//! plane (eq. (9c) with f^t = (1, t), f^n = −1), integrated by the crate's integrators through
//! the mode machine from t₀ > 0, where the optimal truncation of the formal series gives the
//! state (docs/dance.md, "Rigid numerics").
//!
//! Below t₀ the slide field is singular (v = 0 at t = 0, where v/|v| has no limit but along
//! â): the series is the solution there.

use super::series::{integrated, FormalSeries, LogCoefficients};
use super::truncation::{optimal_truncation, OptimalTruncation};
use crate::error::SimError;
use crate::hybrid::{run_hybrid, Crossing, HybridSystem, Named, Observer, RunControl, Until};
use crate::integrate::{IntegratorKind, SolverStats, Tolerances};
use crate::model::{Real, ValidityMargin};

/// State layout: [t, u₁, u₂, v₁, v₂].
const DIM: usize = 5;

/// The rigid slide's one mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum RigidMode {
    #[default]
    Slide,
}

impl Named for RigidMode {
    fn name(&self) -> &'static str {
        "slide"
    }
}

/// No switching events: for μ ≤ 1 the force |(1, t)| ≥ 1 ≥ μ keeps the particle sliding; a
/// stop would leave the domain (|v| → 0) and end the run with an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RigidEvent {}

impl Named for RigidEvent {
    fn name(&self) -> &'static str {
        match *self {}
    }
}

/// The slide field with friction coefficient μ.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RigidSlide {
    pub mu: f64,
}

const DOMAIN: [ValidityMargin; 1] = [ValidityMargin {
    quantity: "|v|",
    meaning: "the particle stops: the slide field v/|v| is undefined and this rigid model has no stick mode",
}];

impl HybridSystem for RigidSlide {
    type Mode = RigidMode;
    type Event = RigidEvent;

    fn dim(&self) -> usize {
        DIM
    }
    fn absolute_tolerances(&self, atol: f64) -> Vec<f64> {
        vec![atol; DIM]
    }
    fn min_step(&self) -> f64 {
        1e-14
    }
    fn initial_mode(&self, _y: &[f64]) -> RigidMode {
        RigidMode::Slide
    }
    /// (t, u, v)' = (1, v, (1, t) − μ v/|v|): Dance eq. (9c) with f^t = (1, t), f^n = −1.
    fn field<S: Real>(&self, _mode: RigidMode, y: &[S], dy: &mut [S]) {
        let speed = (y[3] * y[3] + y[4] * y[4]).sqrt();
        dy[0] = S::cst(1.0);
        dy[1] = y[3];
        dy[2] = y[4];
        dy[3] = S::cst(1.0) - (y[3] / speed).scale(self.mu);
        dy[4] = y[0] - (y[4] / speed).scale(self.mu);
    }
    fn watched(&self, _mode: RigidMode) -> std::borrow::Cow<'_, [(RigidEvent, Crossing)]> {
        std::borrow::Cow::Borrowed(&[])
    }
    fn is_switching(&self, event: RigidEvent) -> bool {
        match event {}
    }
    fn event_value<S: Real>(&self, _mode: RigidMode, event: RigidEvent, _y: &[S]) -> S {
        match event {}
    }
    fn transition(&self, _mode: RigidMode, event: RigidEvent, _y: &mut [f64]) -> RigidMode {
        match event {}
    }
    fn domain(&self) -> &[ValidityMargin] {
        &DOMAIN
    }
    fn domain_margin(&self, _index: usize, y: &[f64]) -> f64 {
        y[3].hypot(y[4])
    }
}

/// The rigid motion at time t.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RigidState {
    pub t: f64,
    pub u: [f64; 2],
    pub v: [f64; 2],
}

/// The optimal truncations of u₁, u₂, v₁, v₂ at t (docs/dance.md, "Optimal truncation").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeriesState {
    pub state: RigidState,
    /// v₁'s truncation (the one the comparison criteria read).
    pub parallel_velocity: OptimalTruncation,
    /// The largest smallest term of the four: the series' own error scale at t.
    pub smallest_term: f64,
}

/// The coefficient logs of u₁, u₂, v₁, v₂, computed once per series.
#[derive(Clone, Debug, PartialEq)]
pub struct SeriesLogs {
    pub u1: LogCoefficients,
    pub u2: LogCoefficients,
    pub v1: LogCoefficients,
    pub v2: LogCoefficients,
}

impl SeriesLogs {
    pub fn of<S: super::precision::SeriesScalar>(s: &FormalSeries<S>) -> Self {
        SeriesLogs {
            u1: LogCoefficients::of(&integrated(&s.parallel_velocity)),
            u2: LogCoefficients::of(&integrated(&s.perpendicular_velocity)),
            v1: LogCoefficients::of(&s.parallel_velocity),
            v2: LogCoefficients::of(&s.perpendicular_velocity),
        }
    }

    /// The state at t > 0 from the optimal truncations.
    pub fn state_at(&self, t: f64) -> SeriesState {
        let parts = [&self.u1, &self.u2, &self.v1, &self.v2].map(|c| optimal_truncation(c, t));
        SeriesState {
            state: RigidState {
                t,
                u: [parts[0].value, parts[1].value],
                v: [parts[2].value, parts[3].value],
            },
            parallel_velocity: parts[2],
            smallest_term: parts.iter().map(|p| p.smallest_term).fold(0.0, f64::max),
        }
    }
}

/// Records the state at the output times.
struct Outputs(Vec<RigidState>);

impl Observer<RigidSlide> for Outputs {
    fn output(&mut self, _: &RigidSlide, _t: f64, _: RigidMode, y: &[f64]) {
        self.0.push(RigidState {
            t: y[0],
            u: [y[1], y[2]],
            v: [y[3], y[4]],
        });
    }
}

/// Integrate the rigid slide from `start` to the last of `times` (increasing, all after
/// `start.t`), returning the state at each of `times` (the integrator stops exactly there).
pub fn integrate_slide(
    mu: f64,
    start: RigidState,
    times: &[f64],
    integrator: IntegratorKind,
    tolerances: Tolerances,
) -> Result<(Vec<RigidState>, SolverStats), SimError> {
    let Some(&t_end) = times.last() else {
        return Ok((Vec::new(), SolverStats::default()));
    };
    if times.windows(2).any(|w| w[1] <= w[0]) || times[0] <= start.t {
        return Err(SimError::invalid(
            "output times",
            format!("{times:?}"),
            &format!("must increase and start after t₀ = {}", start.t),
        ));
    }
    let y0 = [start.t, start.u[0], start.u[1], start.v[0], start.v[1]];
    // Phases run on their own clock from 0: shift the outputs by t₀.
    let control = RunControl {
        until: Until::Time(t_end - start.t),
        output_times: times.iter().map(|t| t - start.t).collect(),
        max_events: 0,
        max_steps: crate::compliant::DEFAULT_MAX_STEPS,
        absolute_tolerances: None,
    };
    let mut outputs = Outputs(Vec::new());
    let trace = run_hybrid(
        &RigidSlide { mu },
        integrator,
        tolerances,
        &y0,
        &control,
        &mut outputs,
    )?;
    Ok((outputs.0, trace.stats))
}

/// The largest smallest-term at t₀ accepted as a starting state: far below the integration
/// tolerances used (rtol ≥ 1e-13 on v = O(t³)).
pub(crate) const START_TOLERANCE: f64 = 1e-16;

/// The rigid slide of one μ from the series' state at t₀ to the given times.
pub(crate) fn rigid_from_series(
    mu: f64,
    logs: &SeriesLogs,
    t_series: f64,
    times: &[f64],
    integrator: IntegratorKind,
    tolerances: Tolerances,
) -> Result<(Vec<RigidState>, SolverStats), SimError> {
    let start = logs.state_at(t_series);
    if start.smallest_term > START_TOLERANCE {
        return Err(SimError::invalid(
            "params.t_series",
            crate::error::number_text(t_series),
            &format!(
                "the series' smallest term there is {:.1e} > {START_TOLERANCE:e}: the start would \
                 carry that error; choose a smaller t_series (μ = 1: .25 gives 2e-21)",
                start.smallest_term
            ),
        ));
    }
    integrate_slide(mu, start.state, times, integrator, tolerances)
}
