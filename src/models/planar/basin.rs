//! The planar system's lift-off/IWC basin (`model = "planar"`,
//! `analysis = "liftoff_iwc_basin"`): each state (whose slip must be a Painlevé saddle) and
//! each line of [`BasinLine`] is one point, bisected at each κ ([`crate::models::basin`]).

use super::{grid_of, Params, PlanarState, Sweep};
use crate::error::SimError;
use crate::experiment::grammar::LogGrid;
use crate::experiment::model::{Cells, Model, SweepSpec};
use crate::experiment::runner::RunError;
use crate::experiment::table::Row;
use crate::integrate::{IntegratorKind, SolverStats};
use crate::model::ProjectedDynamics;
use crate::models::basin::{self, BasinAnalysis, BasinLine};
use crate::models::mode_table;
use std::path::Path;

/// The planar lift-off/IWC basin as a model of the harness.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlanarBasin;

/// One bisection: a state and a line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BasinPoint {
    pub state: PlanarState,
    pub line: BasinLine,
}

const INPUTS: &[&str] = &["a", "b", "A", "B", "C", "mu", "u0", "damping", "line"];
const STATE_COLUMNS: &[&str] = INPUTS.split_at(8).0;

impl PlanarState {
    fn saddle(&self) -> Result<crate::model::iwc::SlipSaddle, String> {
        let (q, qdot) = self.contact_state();
        basin::saddle_of(
            &ProjectedDynamics::at(&self.system, &q, &qdot),
            self.mu,
            self.damping,
        )
    }
}

impl Model for PlanarBasin {
    const NAME: &'static str = "planar";
    const SOLVER_KEYS: &'static [&'static str] = crate::experiment::model::FAST_TIME_SOLVER_KEYS;
    type Params = Params;
    type Sweep = Sweep;
    type Analysis = BasinAnalysis;
    type Config = BasinPoint;
    const INPUT_COLUMNS: &'static [&'static str] = INPUTS;
    const MEASURE_COLUMNS: &'static [&'static str] = basin::measure_columns!();

    fn kappa(sweep: &Sweep) -> &LogGrid {
        &sweep.kappa
    }

    fn validate(spec: &SweepSpec<Self>) -> Result<(), SimError> {
        crate::compliant::normal::require_penetrating_less_than_the_body(
            "sweep.kappa.max",
            spec.sweep.kappa.max,
        )?;
        let grid = grid_of(spec);
        grid.validate()?;
        let s = &spec.sweep;
        let in_states = s
            .states
            .iter()
            .flatten()
            .any(|p| p.y0.is_some() || p.v0.is_some());
        basin::refuse_starts(
            s.starts.is_some()
                || s.y0.is_some()
                || s.v0.is_some()
                || spec.params.y0.is_some()
                || spec.params.v0.is_some()
                || in_states,
        )?;
        mode_table::window(&spec.solver)?;
        grid.check_explicit_steps(&spec.solver)?;
        for (state, index) in grid.states() {
            let key = if s.states.is_some() {
                format!("sweep.states[{index}]")
            } else {
                "params".to_string()
            };
            basin::require_saddle(&state.saddle(), &key)?;
        }
        Ok(())
    }

    fn grid_size(spec: &SweepSpec<Self>) -> u128 {
        grid_of(spec).size() * BasinLine::ALL.len() as u128
    }

    fn configurations(spec: &SweepSpec<Self>) -> Vec<BasinPoint> {
        grid_of(spec)
            .states()
            .into_iter()
            .flat_map(|(state, _)| BasinLine::ALL.map(|line| BasinPoint { state, line }))
            .collect()
    }

    fn inputs(c: &BasinPoint) -> Cells {
        let mut cells = super::Planar::inputs(&c.state);
        cells.truncate(8);
        cells.push(("line", c.line.name().to_string()));
        cells.extend(basin::derived_cells(&c.state.saddle(), c.line));
        cells
    }

    fn run(
        spec: &SweepSpec<Self>,
        c: &BasinPoint,
        kappa: f64,
        integrator: IntegratorKind,
    ) -> Result<(Cells, SolverStats), String> {
        let window_scaled = mode_table::window(&spec.solver).map_err(|e| e.to_string())?;
        let saddle = c.state.saddle()?;
        let b = basin::bisect(&saddle, c.line, basin::BISECTION_TOLERANCE, |start| {
            let state = PlanarState { start, ..c.state };
            let (q0, qdot0) = state.initial_state(kappa);
            state
                .fast_run(window_scaled)
                .side(&q0, &qdot0, kappa, integrator, &spec.solver)
        })?;
        let cells = basin::boundary_cells(&b, c.line.closed_form(&saddle));
        Ok((cells, b.stats))
    }

    fn report(spec: &SweepSpec<Self>, rows: &[Row], dir: &Path) -> Result<(), RunError> {
        basin::write_report(
            &spec.name,
            "C–V's planar single contact",
            STATE_COLUMNS,
            rows,
            dir,
        )
    }
}
