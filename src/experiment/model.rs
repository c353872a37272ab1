//! The contract between a mechanical system and the harness ([`Model`]), and the κ sweep of any
//! model ([`SweepSpec`]): its TOML schema, its grid of points, its runs.csv columns, and how one
//! point becomes a row. The runner ([`super::runner`]) runs any [`Plan`]; this file makes every
//! model's sweep one.

use super::grammar::{parse_validated, validate_name, LogGrid, SolverSpec, SpecError};
use super::runner::{Plan, Points, RunError};
use super::table::{stat_counts, stat_fields, Fields, Row};
use crate::error::SimError;
use crate::integrate::{IntegratorKind, SolverStats};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fmt::Debug;
use std::path::Path;

/// Cells of a row: (column, text).
pub type Cells = Vec<(&'static str, String)>;

/// What a mechanical system tells the harness: the keys of its experiment files, the grid they
/// define, the columns of its table, how one point runs, and its report: the older contract of
/// the systems and analyses not yet on [`super::system::System`] and the generic studies (a new
/// system implements `System`). A model is registered by one line in the `models` list of the
/// registry (`src/models/mod.rs`).
pub trait Model: Sized + Sync + Clone + Debug + PartialEq + 'static {
    /// `model = "…"` in an experiment file.
    const NAME: &'static str;
    /// What the system is, in a sentence or two: its line in `rigid-limit list` (empty for an
    /// analysis of a model listed by another entry).
    const ABOUT: &'static str = "";
    /// The `[params]` table: fixed parameters (unknown keys rejected).
    type Params: DeserializeOwned + Serialize + Clone + Debug + PartialEq + Sync;
    /// The `[sweep]` table: κ and any swept parameters (unknown keys rejected).
    type Sweep: DeserializeOwned + Serialize + Clone + Debug + PartialEq + Sync;
    /// The values of the optional top-level `analysis` key.
    type Analysis: DeserializeOwned + Serialize + Copy + Debug + PartialEq + Sync;
    /// One configuration of the grid: every input but κ and the integrator.
    type Config: Clone + Debug + Send + Sync;
    /// Input columns, between `kappa` and `integrator`.
    const INPUT_COLUMNS: &'static [&'static str];
    /// Measured columns, between `error` and the work counters.
    const MEASURE_COLUMNS: &'static [&'static str];
    /// The optional `[solver]` keys its runs use, of `t_max`, `window_scaled`, `max_steps`
    /// and `max_events`; a file that sets another is refused (a key must never be accepted
    /// and ignored).
    const SOLVER_KEYS: &'static [&'static str];

    /// The κ ladder of `[sweep]`.
    fn kappa(sweep: &Self::Sweep) -> &LogGrid;
    /// Check the parameters and the grid; errors name the TOML key to fix.
    fn validate(spec: &SweepSpec<Self>) -> Result<(), SimError>;
    /// The number of configurations of the grid (an upper bound is enough), counted without
    /// building them: the runner refuses oversized grids before allocating them.
    fn grid_size(spec: &SweepSpec<Self>) -> u128;
    /// Every configuration of the grid, in output order.
    fn configurations(spec: &SweepSpec<Self>) -> Vec<Self::Config>;
    /// The κ values of `config`'s points (default: the ladder of `[sweep]`). A configuration
    /// without compliance, such as a rigid reference written beside its compliant runs,
    /// returns one placeholder.
    fn kappa_values(spec: &SweepSpec<Self>, _config: &Self::Config) -> Vec<f64> {
        Self::kappa(&spec.sweep).values()
    }
    /// The integrators of `config`'s points (default: every one of `[solver]`).
    fn integrators(spec: &SweepSpec<Self>, _config: &Self::Config) -> Vec<IntegratorKind> {
        spec.solver.integrators.clone()
    }
    /// The cells a configuration fixes before it runs: its inputs, and any cell derived from the
    /// inputs alone (written for failed runs too, and compared on resume).
    fn inputs(config: &Self::Config) -> Cells;
    /// Run one point: the measured cells and the work counters, or the error's text.
    fn run(
        spec: &SweepSpec<Self>,
        config: &Self::Config,
        kappa: f64,
        integrator: IntegratorKind,
    ) -> Result<(Cells, SolverStats), String>;
    /// Side tables of the report besides runs.csv and meta.json ([`Plan::after_run`]).
    fn after_run(_spec: &SweepSpec<Self>, _dir: &Path) -> Result<(), RunError> {
        Ok(())
    }
    /// summary.md, analysis.json and the figures of a run, from the rows of its runs.csv.
    fn report(spec: &SweepSpec<Self>, rows: &[Row], dir: &Path) -> Result<(), RunError>;
}

/// The optional `[solver]` keys of a fast-time run (the mode table and its relatives): each run
/// lasts `window_scaled`·√κ, so `t_max` has no role.
pub const FAST_TIME_SOLVER_KEYS: &[&str] = &["window_scaled", "max_steps", "max_events"];

/// A κ sweep (or a multi-axis atlas) of one model: an experiment file with `model = NAME`.
/// Unknown keys are rejected.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, bound = "")]
pub struct SweepSpec<M: Model> {
    /// Name; the default output directory is `results/NAME`.
    pub name: String,
    /// The mechanical system ([`Model::NAME`]).
    pub model: String,
    /// Which analysis and figures (model-specific; each model has a default).
    #[serde(default)]
    pub analysis: Option<M::Analysis>,
    pub params: M::Params,
    pub sweep: M::Sweep,
    pub solver: SolverSpec,
}

/// One run of a sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct Point<C> {
    /// Position in the full grid: the output order and the resume key.
    pub id: usize,
    pub kappa: f64,
    pub config: C,
    pub integrator: IntegratorKind,
}

impl<M: Model> SweepSpec<M> {
    /// Parse and validate TOML text.
    pub fn parse(text: &str) -> Result<Self, SpecError> {
        parse_validated(text, Self::validate)
    }

    fn validate(&self) -> Result<(), SimError> {
        validate_name(&self.name)?;
        if self.model != M::NAME {
            return Err(SimError::invalid(
                "model",
                &self.model,
                &format!("this file is read as a {} experiment", M::NAME),
            ));
        }
        M::kappa(&self.sweep).validate("sweep.kappa")?;
        let kappas = M::kappa(&self.sweep).len() as u128;
        self.solver
            .validate(M::grid_size(self).saturating_mul(kappas))?;
        M::validate(self)?;
        self.solver.refuse_unused_keys(M::NAME, M::SOLVER_KEYS)
    }

    /// All points, in output order: configurations in grid order, then κ from large to small,
    /// then the integrators as listed ([`Model::kappa_values`], [`Model::integrators`]).
    pub fn points(&self) -> Vec<Point<M::Config>> {
        self.point_stream().collect()
    }

    /// [`SweepSpec::points`] made one at a time (the runner's feed).
    pub fn point_stream(&self) -> impl Iterator<Item = Point<M::Config>> + Send + '_ {
        M::configurations(self)
            .into_iter()
            .flat_map(move |config| {
                let integrators = M::integrators(self, &config);
                M::kappa_values(self, &config)
                    .into_iter()
                    .flat_map(move |kappa| {
                        let config = config.clone();
                        integrators
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

    /// The columns of runs.csv: point, κ, the model's inputs, the run's settings and status, the
    /// model's measures, the work counters, the wall time.
    pub fn columns() -> Vec<&'static str> {
        sweep_columns(M::INPUT_COLUMNS, M::MEASURE_COLUMNS)
    }
}

/// The cells a κ-sweep row holds before its run: point, κ, the inputs, the integrator and the
/// tolerances (compared on resume).
pub fn sweep_input_row(
    point_id: usize,
    kappa: f64,
    inputs: Cells,
    integrator: IntegratorKind,
    solver: &SolverSpec,
) -> Row {
    let mut row = Row {
        point_id,
        fields: Fields::with_capacity(SWEEP_ROW_CELLS),
    };
    let mut put = |k: &'static str, v: &dyn std::fmt::Display| {
        row.fields.insert_display(k, v);
    };
    put("point_id", &point_id);
    put("kappa", &kappa);
    for (k, v) in &inputs {
        put(k, v);
    }
    put("integrator", &integrator);
    put("rtol", &solver.rtol);
    put("atol", &solver.atol);
    row
}

/// Room for the cells of a κ-sweep row (the rod's has 63), so that it is built without growing.
const SWEEP_ROW_CELLS: usize = 64;

/// A κ-sweep row completed by its run's result: the status, the error or the measured cells
/// and work counters, and the wall time of the whole point since `start`.
pub fn finish_sweep_row(
    mut row: Row,
    result: Result<(Cells, SolverStats), String>,
    start: std::time::Instant,
) -> Row {
    let mut put = |k: &'static str, v: &dyn std::fmt::Display| {
        row.fields.insert_display(k, v);
    };
    match result {
        Err(e) => {
            put("status", &"error");
            put("error", &e);
        }
        Ok((cells, stats)) => {
            put("status", &"ok");
            for (k, v) in &cells {
                put(k, v);
            }
            for (k, v) in stat_counts(&stats) {
                put(k, &v);
            }
            // The whole point, whatever the model's own counters time.
            put("wall_time_s", &start.elapsed().as_secs_f64());
        }
    }
    row
}

/// The columns of a κ sweep's runs.csv: point, κ, the inputs, the run's settings and status, the
/// measures, the work counters, the wall time.
pub fn sweep_columns(inputs: &[&'static str], measures: &[&'static str]) -> Vec<&'static str> {
    let mut c = vec!["point_id", "kappa"];
    c.extend_from_slice(inputs);
    c.extend_from_slice(&["integrator", "rtol", "atol", "status", "error"]);
    c.extend_from_slice(measures);
    c.extend(stat_fields(&SolverStats::default()).map(|(k, _)| k));
    c.push("wall_time_s");
    c
}

impl<M: Model> Plan for SweepSpec<M> {
    type Point = Point<M::Config>;

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
    /// κ, the model's inputs, the integrator and the tolerances.
    fn input_row(&self, point: &Self::Point) -> Row {
        sweep_input_row(
            point.id,
            point.kappa,
            M::inputs(&point.config),
            point.integrator,
            &self.solver,
        )
    }
    fn run_point(&self, point: &Self::Point) -> Row {
        let start = std::time::Instant::now();
        let result = M::run(self, &point.config, point.kappa, point.integrator);
        finish_sweep_row(self.input_row(point), result, start)
    }
    fn describe(&self, point: &Self::Point) -> String {
        format!("{} κ = {:.1e}", point.integrator, point.kappa)
    }
    fn spec_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }
    fn after_run(&self, dir: &Path) -> Result<(), RunError> {
        M::after_run(self, dir)
    }
}

/// Read `dir/runs.csv` and hand its rows to the model's report.
pub fn report_sweep<M: Model>(spec: &SweepSpec<M>, dir: &Path) -> Result<(), RunError> {
    let rows = super::store::read_rows(
        &dir.join(super::runner::RUNS_CSV),
        &SweepSpec::<M>::columns(),
    )?;
    M::report(spec, &rows, dir)
}
