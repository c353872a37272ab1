//! The plan every fast-time study runs on ([`FastPlan`]): the experiment file of a study of a
//! [`FastContact`] system, its checks, its grid of points (the study's points × the κ ladder ×
//! the integrators), its runs.csv columns and rows, and the report's input. A study
//! ([`FastStudy`]) adds only what is its own: its points, their input cells, one run, and its
//! report.

use super::{
    check_states_and_solver, projection, scalar_cells, window, FastContact, SCALAR_COLUMNS,
};
use crate::error::SimError;
use crate::experiment::grammar::{parse_validated, validate_name, SolverSpec, SpecError};
use crate::experiment::registry::Study;
use crate::experiment::rows::{
    finish_sweep_row, sweep_columns, sweep_input_row, Cells, Point, FAST_TIME_SOLVER_KEYS,
};
use crate::experiment::runner::{Plan, Points, RunError, RUNS_CSV};
use crate::experiment::table::Row;
use crate::integrate::{IntegratorKind, SolverStats};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fmt::Debug;
use std::path::Path;

/// One fast-time study of a system with `N` coordinates: what it adds to [`FastPlan`].
pub trait FastStudy<const N: usize>: Sized + Sync + Clone + Debug + PartialEq + 'static {
    /// The system studied.
    type System: FastContact<N>;
    /// The values of the file's `analysis` key that select the study.
    type Analysis: DeserializeOwned + Serialize + Copy + Debug + PartialEq + Sync;
    /// One point of the study's grid, before κ and the integrator: a state and what the study
    /// varies at it.
    type Point: Clone + Debug + Send + Sync;
    /// The study's input columns after the system's state columns (the fast start, a line).
    const INPUTS: &'static [&'static str];
    /// The study's measured columns after C–V's scalars (when they are not inputs).
    const MEASURES: &'static [&'static str];

    /// Check the file's parameters, grid and solver; errors name the key to fix (default: the
    /// checks of a study run at the file's states as they are, [`check_states_and_solver`]).
    fn validate(plan: &FastPlan<Self, N>) -> Result<(), SimError> {
        check_states_and_solver::<Self::System, N>(&plan.params, &plan.sweep, &plan.solver)
    }
    /// The number of the study's points (an upper bound), counted without building them
    /// (default: the system's states).
    fn grid_size(plan: &FastPlan<Self, N>) -> u128 {
        Self::System::grid_size(&plan.params, &plan.sweep)
    }
    /// Every point of the study's grid, in output order.
    fn points(plan: &FastPlan<Self, N>) -> Vec<Self::Point>;
    /// The state of a point.
    fn state(point: &Self::Point) -> &<Self::System as FastContact<N>>::State;
    /// The input cells of [`Self::INPUTS`].
    fn inputs(point: &Self::Point) -> Cells;
    /// The cells a point fixes before it runs, after C–V's scalars.
    fn derived(point: &Self::Point) -> Cells;
    /// Run one point over the fast window `window` (s = t/√κ): the measured cells and the work
    /// counters, or the error's text.
    fn run(
        solver: &SolverSpec,
        point: &Self::Point,
        window: f64,
        kappa: f64,
        integrator: IntegratorKind,
    ) -> Result<(Cells, SolverStats), String>;
    /// summary.md, analysis.json and the figures of a run, from the rows of its runs.csv.
    fn report(plan: &FastPlan<Self, N>, rows: &[Row], dir: &Path) -> Result<(), RunError>;
}

/// The experiment file of fast-time study `T`: `model = NAME` of its system, `analysis` of the
/// study. Unknown keys are refused.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, bound = "")]
pub struct FastPlan<T: FastStudy<N>, const N: usize> {
    /// Name; the default output directory is `results/NAME`.
    pub name: String,
    /// The system ([`FastContact::NAME`]).
    pub model: String,
    /// The study ([`FastStudy::Analysis`]).
    #[serde(default)]
    pub analysis: Option<T::Analysis>,
    pub params: <T::System as FastContact<N>>::Params,
    pub sweep: <T::System as FastContact<N>>::Sweep,
    pub solver: SolverSpec,
}

impl<T: FastStudy<N>, const N: usize> FastPlan<T, N> {
    /// Parse and validate TOML text.
    pub fn parse(text: &str) -> Result<Self, SpecError> {
        parse_validated(text, Self::validate)
    }

    fn validate(&self) -> Result<(), SimError> {
        let name = <T::System as FastContact<N>>::NAME;
        validate_name(&self.name)?;
        if self.model != name {
            return Err(SimError::invalid(
                "model",
                &self.model,
                &format!("this file is read as a {name} experiment"),
            ));
        }
        let kappa = T::System::kappa(&self.sweep);
        kappa.validate("sweep.kappa")?;
        self.solver
            .validate(T::grid_size(self).saturating_mul(kappa.len() as u128))?;
        T::validate(self)?;
        self.solver.refuse_unused_keys(name, FAST_TIME_SOLVER_KEYS)
    }

    /// The columns of runs.csv: point, κ, the system's state columns and the study's inputs,
    /// the run's settings and status, C–V's scalars unless they are inputs, the study's
    /// measures, the work counters, the wall time.
    pub fn columns() -> Vec<&'static str> {
        let inputs = [<T::System as FastContact<N>>::STATE_COLUMNS, T::INPUTS].concat();
        let scalars: &[&str] = if T::System::SCALARS_ARE_INPUTS {
            &[]
        } else {
            SCALAR_COLUMNS
        };
        sweep_columns(&inputs, &[scalars, T::MEASURES].concat())
    }

    /// Every point in output order: the study's points in grid order, then κ from large to
    /// small, then the integrators as listed.
    fn point_stream(&self) -> impl Iterator<Item = Point<T::Point>> + Send + '_ {
        let kappas = T::System::kappa(&self.sweep).values();
        T::points(self)
            .into_iter()
            .flat_map(move |config| {
                let kappas = kappas.clone();
                kappas.into_iter().flat_map(move |kappa| {
                    let config = config.clone();
                    self.solver
                        .integrators
                        .clone()
                        .into_iter()
                        .map(move |integrator| (kappa, config.clone(), integrator))
                })
            })
            .enumerate()
            .map(|(id, (kappa, config, integrator))| Point {
                id,
                kappa,
                config,
                integrator,
            })
    }

    /// The input cells of a point: the system's state columns and the study's inputs, C–V's
    /// scalars unless they are inputs, the cells the study derives before the run.
    fn inputs(point: &T::Point) -> Cells {
        let mut cells = T::System::state_cells(T::state(point));
        cells.extend(T::inputs(point));
        if !T::System::SCALARS_ARE_INPUTS {
            cells.extend(scalar_cells(&projection::<T::System, N>(T::state(point))));
        }
        cells.extend(T::derived(point));
        cells
    }
}

impl<T: FastStudy<N>, const N: usize> Plan for FastPlan<T, N> {
    type Point = Point<T::Point>;

    fn name(&self) -> &str {
        &self.name
    }
    fn columns(&self) -> Vec<&'static str> {
        Self::columns()
    }
    fn points(&self) -> Points<'_, Self::Point> {
        Box::new(self.point_stream())
    }
    fn point_id(&self, point: &Self::Point) -> usize {
        point.id
    }
    /// κ, the inputs, the integrator and the tolerances.
    fn input_row(&self, point: &Self::Point) -> Row {
        sweep_input_row(
            point.id,
            point.kappa,
            Self::inputs(&point.config),
            point.integrator,
            &self.solver,
        )
    }
    fn run_point(&self, point: &Self::Point) -> Row {
        let start = std::time::Instant::now();
        let result = window(&self.solver)
            .map_err(|e| e.to_string())
            .and_then(|w| {
                T::run(
                    &self.solver,
                    &point.config,
                    w,
                    point.kappa,
                    point.integrator,
                )
            });
        finish_sweep_row(self.input_row(point), result, start)
    }
    fn describe(&self, point: &Self::Point) -> String {
        format!("{} κ = {:.1e}", point.integrator, point.kappa)
    }
    fn spec_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}

impl<T: FastStudy<N>, const N: usize> Study for FastPlan<T, N> {
    const MODEL: &'static str = <T::System as FastContact<N>>::NAME;
    const ABOUT: &'static str = <T::System as FastContact<N>>::ABOUT;

    fn parse(text: &str) -> Result<Self, SpecError> {
        Self::parse(text)
    }

    /// Read `dir/runs.csv` and hand its rows to the study's report.
    fn report(&self, dir: &Path) -> Result<(), RunError> {
        let rows = crate::experiment::store::read_rows(&dir.join(RUNS_CSV), &Self::columns())?;
        T::report(self, &rows, dir)
    }
}
