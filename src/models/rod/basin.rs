//! The rod's lift-off/IWC basin (`model = "rod"`, `analysis = "liftoff_iwc_basin"`): each rod
//! state (its slip a Painlevé saddle) and each line of [`BasinLine`] is one point, bisected at
//! each κ ([`crate::models::basin`]). The closed form is the saddle of the frozen initial
//! state; the rod's data move by O(√κ) per unit of fast time, so the measured boundary is
//! expected to approach it like κ^0.5.

use super::scenario::RodImpact;
use super::sweep::{RodGrid, RodParams, RodSweep};
use crate::error::SimError;
use crate::experiment::grammar::LogGrid;
use crate::experiment::model::{Cells, Model, SweepSpec};
use crate::experiment::runner::RunError;
use crate::experiment::table::Row;
use crate::integrate::{IntegratorKind, SolverStats};
use crate::model::iwc::{FastStart, SlipSaddle};
use crate::model::ProjectedDynamics;
use crate::models::basin::{self, BasinAnalysis, BasinLine};
use crate::models::mode_table::{self, FastRun};
use std::path::Path;

/// The rod's lift-off/IWC basin as a model of the harness.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RodBasin;

/// One bisection: a rod state and a line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BasinPoint {
    pub rod: RodImpact,
    pub line: BasinLine,
}

const INPUTS: &[&str] = &[
    "mu",
    "mu_s",
    "theta0",
    "omega0",
    "u0",
    "damping",
    "gyration_sq",
    "line",
];
const STATE_COLUMNS: &[&str] = INPUTS.split_at(7).0;

/// The rod touching at rest (δ = δ̇ = 0): where the saddle is evaluated.
fn contact_projection(rod: &RodImpact) -> ProjectedDynamics<f64, 3> {
    let (q, qdot) = RodImpact {
        start: FastStart::REST,
        ..*rod
    }
    .initial_state();
    ProjectedDynamics::at(&rod.body(), &q, &qdot)
}

fn saddle(rod: &RodImpact) -> Result<SlipSaddle, String> {
    basin::saddle_of(&contact_projection(rod), rod.mu, rod.damping)
}

impl Model for RodBasin {
    const NAME: &'static str = "rod";
    const SOLVER_KEYS: &'static [&'static str] = crate::experiment::model::FAST_TIME_SOLVER_KEYS;
    type Params = RodParams;
    type Sweep = RodSweep;
    type Analysis = BasinAnalysis;
    type Config = BasinPoint;
    const INPUT_COLUMNS: &'static [&'static str] = INPUTS;
    const MEASURE_COLUMNS: &'static [&'static str] =
        basin::measure_columns!("a", "b", "A", "B", "C");

    fn kappa(sweep: &RodSweep) -> &LogGrid {
        &sweep.kappa
    }

    fn validate(spec: &SweepSpec<Self>) -> Result<(), SimError> {
        let grid = RodGrid::new(&spec.params, &spec.sweep);
        grid.validate_sources()?;
        let configurations = grid.configurations();
        grid.first_invalid(&configurations)?;
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
        for rod in &configurations.kept {
            let key = if s.states.is_some() {
                "sweep.states"
            } else {
                "params"
            };
            basin::require_saddle(&saddle(rod), key)?;
        }
        Ok(())
    }

    fn grid_size(spec: &SweepSpec<Self>) -> u128 {
        RodGrid::new(&spec.params, &spec.sweep).size() * BasinLine::ALL.len() as u128
    }

    fn configurations(spec: &SweepSpec<Self>) -> Vec<BasinPoint> {
        RodGrid::new(&spec.params, &spec.sweep)
            .configurations()
            .kept
            .into_iter()
            .flat_map(|rod| BasinLine::ALL.map(|line| BasinPoint { rod, line }))
            .collect()
    }

    fn inputs(c: &BasinPoint) -> Cells {
        let r = &c.rod;
        let mut cells = vec![
            ("mu", r.mu.to_string()),
            ("mu_s", r.mu_s.to_string()),
            ("theta0", r.theta0.to_string()),
            ("omega0", r.omega0.to_string()),
            ("u0", r.u0.to_string()),
            ("damping", r.damping.to_string()),
            ("gyration_sq", r.gyration_sq.to_string()),
            ("line", c.line.name().to_string()),
        ];
        cells.extend(mode_table::scalar_cells(&contact_projection(r)));
        cells.extend(basin::derived_cells(&saddle(r), c.line));
        cells
    }

    fn run(
        spec: &SweepSpec<Self>,
        c: &BasinPoint,
        kappa: f64,
        integrator: IntegratorKind,
    ) -> Result<(Cells, SolverStats), String> {
        let window_scaled = mode_table::window(&spec.solver).map_err(|e| e.to_string())?;
        let saddle = saddle(&c.rod)?;
        let b = basin::bisect(&saddle, c.line, basin::BISECTION_TOLERANCE, |start| {
            let rod = RodImpact {
                kappa,
                start,
                ..c.rod
            };
            let (q0, qdot0) = rod.initial_state();
            FastRun {
                system: &rod.body(),
                friction: rod.friction(),
                damping: rod.damping,
                start,
                window_scaled,
            }
            .side(&q0, &qdot0, kappa, integrator, &spec.solver)
        })?;
        let cells = basin::boundary_cells(&b, c.line.closed_form(&saddle));
        Ok((cells, b.stats))
    }

    fn report(spec: &SweepSpec<Self>, rows: &[Row], dir: &Path) -> Result<(), RunError> {
        basin::write_report(
            &spec.name,
            "the Painlevé rod with a radius of gyration",
            STATE_COLUMNS,
            rows,
            dir,
        )
    }
}
