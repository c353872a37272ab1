//! The work–precision study of any [`System`]: which integrator reaches a given accuracy
//! cheapest. Scenarios (named overrides of the system's parameters and end) × κ × integrators ×
//! a ladder of tolerances, each ladder run repeated for a stable median wall time. The reference
//! of a configuration is the same system at the same κ (not the rigid limit: the error measured
//! is the integrator's, at fixed κ) run at a tolerance tighter than the ladder's by two different
//! integrators, the first the value, the second its check. A run's error is the largest distance
//! of the system's quantities ([`System::quantities`]) to the reference's
//! ([`crate::analysis::work_precision::distance`]); its work the median wall time, with its steps
//! and function evaluations. The report is [`crate::report::work_precision`].
//!
//! ```toml
//! name = "work_precision_box"
//! model = "system"                  # the system
//! study = "work_precision"
//! system = "systems/box.toml"       # its configuration ([params] for a hand-coded system)
//! kappa = [1e-4]                    # each κ a configuration of every scenario
//! [[scenario]]
//! name = "slide"
//! t_end = 2.0                       # the run's end, for a system that runs to a fixed time
//! mu = 0.4                          # any numeric parameter of the system, overridden
//! [solver]
//! integrators = ["dop853", "radau5"]
//! rtol = { min = 1e-9, max = 1e-3, per_decade = 1 }   # the ladder
//! atol_per_rtol = 1.0               # atol = atol_per_rtol × rtol
//! repeats = 3                       # median of up to 3 runs (fewer once 0.3 s were spent)
//! [reference]
//! integrators = ["dop853", "tsit5"] # the value, then its check
//! rtol = 1e-12                      # ≤ the ladder's tightest
//! ```

use crate::error::{number_text, require_positive, require_rtol, SimError};
use crate::experiment::grammar::{validate_name, LogGrid};
use crate::experiment::runner::{Plan, Points};
use crate::experiment::system::{Method, RunSettings, System};
use crate::experiment::table::{stat_fields, Row};
use crate::integrate::{IntegratorKind, SolverStats};
use crate::study::convergence::quantity_value;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The name of this study in `study = "…"`.
pub const NAME: &str = "work_precision";

/// After the first run of a point, repeat it (up to `repeats` runs in all) only while the runs
/// so far took less than this (seconds): long runs are stable, short ones need the median.
pub const REPEAT_BUDGET_S: f64 = 0.3;

/// The wall times of one point's runs: `first`, then `again()`'s while fewer than `repeats`
/// were made and together they took less than [`REPEAT_BUDGET_S`]; a failed repeat (`None`)
/// ends them. The work counters of a run are deterministic, only its time varies.
pub fn repeated_wall_times(
    first: f64,
    repeats: usize,
    mut again: impl FnMut() -> Option<f64>,
) -> Vec<f64> {
    let mut times = vec![first];
    let mut total = first;
    while times.len() < repeats && total < REPEAT_BUDGET_S {
        match again() {
            Some(t) => {
                times.push(t);
                total += t;
            }
            None => break,
        }
    }
    times
}

/// The reference of every configuration: two different integrators at one tolerance, no looser
/// than the ladder's tightest; the first is the reference value, the second measures its own
/// error.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ReferenceSpec {
    pub integrators: Vec<IntegratorKind>,
    pub rtol: f64,
}

impl ReferenceSpec {
    /// Check it against the ladder's tightest tolerance `tightest`; errors name `key.…`.
    pub fn validate(&self, key: &str, tightest: f64) -> Result<(), SimError> {
        let i = &self.integrators;
        if i.len() != 2 || i[0] == i[1] {
            return Err(SimError::invalid(
                &format!("{key}.integrators"),
                crate::error::as_written(i),
                "name exactly two different integrators (the second confirms the first)",
            ));
        }
        require_rtol(&format!("{key}.rtol"), self.rtol)?;
        if self.rtol > tightest {
            return Err(SimError::invalid(
                &format!("{key}.rtol"),
                self.rtol,
                &format!("must be <= the tightest rtol of the ladder, {tightest}"),
            ));
        }
        Ok(())
    }
}

/// `[solver]`: the integrators, the tolerance ladder, the repeats and the guards of each run.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LadderSpec {
    pub integrators: Vec<IntegratorKind>,
    /// The tolerance ladder.
    pub rtol: LogGrid,
    /// atol = atol_per_rtol × rtol (docs/tolerances.md: on the contact-scaled state).
    #[serde(default = "one")]
    pub atol_per_rtol: f64,
    /// At most this many runs per ladder point (see [`REPEAT_BUDGET_S`]).
    pub repeats: usize,
    /// Time limit of a run that ends at an event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_max: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_steps: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_events: Option<usize>,
}

fn one() -> f64 {
    1.0
}

/// One `[[scenario]]`: a name, the run's end, and parameters of the system overridden.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct Scenario {
    /// Label in the outputs (unique).
    pub name: String,
    /// The end of each run, for a system that runs to a fixed time (`t_end` among its solver
    /// keys); without it a run ends where the system ends it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_end: Option<f64>,
    /// Every other key: a numeric parameter of the system and its value here.
    #[serde(flatten)]
    pub parameters: BTreeMap<String, f64>,
}

/// A work–precision experiment file of system `S`. Unknown keys are refused.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, bound = "")]
pub struct WorkPrecision<S: System> {
    /// Name; the default output directory is `results/NAME`.
    pub name: String,
    /// The system ([`System::NAME`]).
    pub model: String,
    /// `study = "work_precision"`.
    pub study: String,
    /// The configuration the scenarios start from: `[params]` (or `[system]` for a described
    /// system).
    #[serde(alias = "system")]
    pub params: S::Config,
    /// The compliances: each scenario runs at each.
    pub kappa: Vec<f64>,
    #[serde(rename = "scenario")]
    pub scenarios: Vec<Scenario>,
    pub solver: LadderSpec,
    pub reference: ReferenceSpec,
}

/// Whether a run is a reference run or a point of the ladder (runs.csv's `role`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Reference,
    Ladder,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Reference => "reference",
            Role::Ladder => "ladder",
        }
    }
}

/// One run of the study.
#[derive(Clone, Debug, PartialEq)]
pub struct Point<C> {
    /// Position in the grid: the output order and the resume key.
    pub id: usize,
    /// Which configuration of [`WorkPrecision::configurations`].
    pub configuration: usize,
    pub scenario: usize,
    pub kappa: f64,
    pub config: Arc<C>,
    pub role: Role,
    pub integrator: IntegratorKind,
    pub rtol: f64,
}

/// One configuration: a scenario at one κ.
#[derive(Clone, Debug, PartialEq)]
pub struct Configuration<C> {
    pub scenario: usize,
    pub kappa: f64,
    pub config: Arc<C>,
}

impl<S: System> WorkPrecision<S> {
    /// Check the file read (`parse_validated`, `from_table_validated` of
    /// [`crate::experiment::grammar`]); errors name the key to fix.
    pub fn validate(&self) -> Result<(), SimError> {
        validate_name(&self.name)?;
        super::require_model::<S>(&self.model)?;
        if self.study != NAME {
            return Err(SimError::invalid(
                "study",
                &self.study,
                &format!("this file is read as a {NAME} study"),
            ));
        }
        let s = &self.solver;
        if s.integrators.is_empty() {
            return Err(SimError::invalid(
                "solver.integrators",
                "[]",
                "list at least one integrator",
            ));
        }
        s.rtol.validate("solver.rtol")?;
        require_rtol("solver.rtol.min", s.rtol.min)?;
        require_rtol("solver.rtol.max", s.rtol.max)?;
        require_positive("solver.atol_per_rtol", s.atol_per_rtol)?;
        if s.repeats == 0 {
            return Err(SimError::invalid(
                "solver.repeats",
                0,
                "must be >= 1 (the median wall time of up to this many runs)",
            ));
        }
        if let Some(t) = s.t_max {
            require_positive("solver.t_max", t)?;
        }
        crate::error::require_guard("solver.max_steps", s.max_steps)?;
        crate::error::require_guard("solver.max_events", s.max_events)?;
        for (key, given) in [
            ("t_max", s.t_max.is_some()),
            ("max_steps", s.max_steps.is_some()),
            ("max_events", s.max_events.is_some()),
        ] {
            if given && !S::SOLVER_KEYS.contains(&key) {
                return Err(SimError::invalid(
                    &format!("solver.{key}"),
                    "given",
                    &format!("system {} does not use it; remove it", S::NAME),
                ));
            }
        }
        self.reference.validate("reference", s.rtol.min)?;
        if self.kappa.is_empty() {
            return Err(SimError::invalid(
                "kappa",
                "[]",
                "list at least one compliance, e.g. kappa = [1e-4]",
            ));
        }
        for &k in &self.kappa {
            crate::compliant::normal::require_resolvable_kappa("kappa", k)?;
            crate::compliant::normal::require_penetrating_less_than_the_body("kappa", k)?;
        }
        if S::quantities(&self.params).is_empty() {
            return Err(SimError::invalid(
                "model",
                S::NAME,
                "the system declares no quantities to measure an error on; it has no work–precision study",
            ));
        }
        if self.scenarios.is_empty() {
            return Err(SimError::invalid(
                "scenario",
                "none",
                "add at least one [[scenario]] table with a name",
            ));
        }
        for (i, scenario) in self.scenarios.iter().enumerate() {
            let key = |field: &str| format!("scenario[{i}].{field}");
            if self.scenarios[..i].iter().any(|o| o.name == scenario.name) {
                return Err(SimError::invalid(
                    &key("name"),
                    &scenario.name,
                    "scenario names must be unique",
                ));
            }
            match scenario.t_end {
                Some(_) if !self.runs_to_a_time() => {
                    return Err(SimError::invalid(
                        &key("t_end"),
                        "given",
                        &format!(
                            "system {} sets the end of its runs in its parameters; set that parameter instead",
                            S::NAME
                        ),
                    ))
                }
                Some(t) => {
                    require_positive(&key("t_end"), t)?;
                }
                None => {}
            }
        }
        let configurations = self.configurations()?;
        let grid = LogGrid {
            min: self.kappa.iter().copied().fold(f64::INFINITY, f64::min),
            max: self.kappa.iter().copied().fold(0.0, f64::max),
            per_decade: 1,
        };
        for c in &configurations {
            S::validate(&c.config, Some(&grid))?;
        }
        let runs =
            configurations.len() as u128 * (2 + s.integrators.len() as u128 * s.rtol.len() as u128);
        if runs > crate::experiment::grammar::MAX_POINTS {
            return Err(SimError::invalid(
                "solver.rtol",
                format!("{runs} runs"),
                &format!(
                    "at most {} runs; fewer scenarios, κ values, integrators or tolerances",
                    crate::experiment::grammar::MAX_POINTS
                ),
            ));
        }
        Ok(())
    }

    /// Whether the system's runs end at a time set by the study (`t_end` among its solver keys).
    fn runs_to_a_time(&self) -> bool {
        S::SOLVER_KEYS.contains(&"t_end")
    }

    /// The configuration of each scenario: `[params]` with its parameters set; an error names a
    /// key the system does not have.
    pub fn scenario_configs(&self) -> Result<Vec<S::Config>, SimError> {
        self.scenarios
            .iter()
            .enumerate()
            .map(|(i, scenario)| {
                let mut config = self.params.clone();
                for (key, &value) in &scenario.parameters {
                    S::set_parameter(&mut config, key, value).map_err(|e| {
                        SimError::invalid(&format!("scenario[{i}].{key}"), number_text(value), &e)
                    })?;
                }
                Ok(config)
            })
            .collect()
    }

    /// Every configuration: the scenarios as listed, each at κ as listed.
    pub fn configurations(&self) -> Result<Vec<Configuration<S::Config>>, SimError> {
        let mut out = Vec::new();
        for (scenario, config) in self.scenario_configs()?.into_iter().enumerate() {
            let config = Arc::new(config);
            for &kappa in &self.kappa {
                out.push(Configuration {
                    scenario,
                    kappa,
                    config: config.clone(),
                });
            }
        }
        Ok(out)
    }

    /// The label of configuration `c` (`slide, κ = 1e-4`).
    pub fn label(&self, c: &Configuration<S::Config>) -> String {
        format!(
            "{}, κ = {}",
            self.scenarios[c.scenario].name,
            number_text(c.kappa)
        )
    }

    /// Per configuration: the two reference runs, then every integrator over the ladder, loosest
    /// tolerance first.
    pub fn points(&self) -> Vec<Point<S::Config>> {
        let mut out = Vec::new();
        // Validated at parsing: every overridden key is one of the system's.
        for (configuration, c) in self
            .configurations()
            .unwrap_or_default()
            .into_iter()
            .enumerate()
        {
            let mut push = |role, integrator, rtol| {
                out.push(Point {
                    id: out.len(),
                    configuration,
                    scenario: c.scenario,
                    kappa: c.kappa,
                    config: c.config.clone(),
                    role,
                    integrator,
                    rtol,
                })
            };
            for &integrator in &self.reference.integrators {
                push(Role::Reference, integrator, self.reference.rtol);
            }
            for &integrator in &self.solver.integrators {
                for rtol in self.solver.rtol.values() {
                    push(Role::Ladder, integrator, rtol);
                }
            }
        }
        out
    }

    /// The columns of runs.csv: the point, its scenario, role and κ, the configuration, the run
    /// settings and status, the system's record, the work counters, the repeats and wall times.
    pub fn columns(&self) -> Vec<&'static str> {
        let mut c = vec!["point_id", "scenario", "role", "kappa"];
        c.extend(S::input_columns(&self.params));
        if self.runs_to_a_time() {
            c.push("t_end");
        }
        c.extend(["integrator", "rtol", "atol", "status", "error"]);
        c.extend(S::record_columns(&self.params));
        c.extend(stat_fields(&SolverStats::default()).map(|(k, _)| k));
        c.extend([
            "repeats",
            "wall_time_s",
            "wall_time_min_s",
            "wall_time_max_s",
        ]);
        c
    }

    fn settings(&self, p: &Point<S::Config>) -> RunSettings {
        RunSettings {
            integrator: p.integrator,
            rtol: p.rtol,
            atol: self.solver.atol_per_rtol * p.rtol,
            t_max: self.solver.t_max,
            t_end: self.scenarios[p.scenario].t_end,
            max_steps: self.solver.max_steps,
            max_events: self.solver.max_events,
        }
    }

    /// The rows of runs.csv as each configuration's runs for the analysis: the values of the
    /// system's quantities and the work of each run.
    pub fn configuration_runs(
        &self,
        rows: &[Row],
    ) -> Vec<crate::analysis::work_precision::ConfigurationRuns> {
        use crate::analysis::work_precision::{ConfigurationRuns, RunSample, Work};
        let configurations = self.configurations().unwrap_or_default();
        let points = self.points();
        let mut out: Vec<ConfigurationRuns> = configurations
            .iter()
            .map(|c| ConfigurationRuns {
                label: self.label(c),
                scenario: self.scenarios[c.scenario].name.clone(),
                kappa: c.kappa,
                // Until its row is read: a reference that did not run.
                reference: [0, 1].map(|k| {
                    RunSample::missing(
                        self.reference.integrators[k].to_string(),
                        self.reference.rtol,
                    )
                }),
                ladder: Vec::new(),
            })
            .collect();
        let quantities: Vec<_> = configurations
            .iter()
            .map(|c| S::quantities(&c.config))
            .collect();
        for row in rows {
            let Some(p) = points.get(row.point_id) else {
                continue;
            };
            let values = if row.text("status") == "ok" {
                quantities[p.configuration]
                    .iter()
                    .map(|q| quantity_value(row, q))
                    .collect::<Option<Vec<f64>>>()
                    .ok_or_else(|| "a quantity is missing from the row".to_string())
            } else {
                Err(row.text("error").to_string())
            };
            let number = |column: &str| row.number(column).unwrap_or(f64::NAN);
            let sample = RunSample {
                integrator: p.integrator.to_string(),
                rtol: p.rtol,
                values,
                work: Work {
                    wall_time_s: number("wall_time_s"),
                    wall_time_min_s: number("wall_time_min_s"),
                    wall_time_max_s: number("wall_time_max_s"),
                    steps: number("steps"),
                    rhs_evals: number("rhs_evals"),
                    lu_factorisations: number("lu_factorisations"),
                },
            };
            let runs = &mut out[p.configuration];
            match p.role {
                Role::Reference => {
                    let k = usize::from(p.integrator != self.reference.integrators[0]);
                    runs.reference[k] = sample;
                }
                Role::Ladder => runs.ladder.push(sample),
            }
        }
        out
    }
}

impl<S: System> Plan for WorkPrecision<S> {
    type Point = Point<S::Config>;

    fn name(&self) -> &str {
        &self.name
    }
    fn columns(&self) -> Vec<&'static str> {
        WorkPrecision::columns(self)
    }
    fn points(&self) -> Points<'_, Self::Point> {
        Box::new(WorkPrecision::points(self).into_iter())
    }
    fn point_id(&self, point: &Self::Point) -> usize {
        point.id
    }
    fn input_row(&self, p: &Self::Point) -> Row {
        let mut row = Row {
            point_id: p.id,
            fields: Default::default(),
        };
        let mut put = |k: &'static str, v: String| {
            row.fields.insert(k, v);
        };
        put("point_id", p.id.to_string());
        put("scenario", self.scenarios[p.scenario].name.clone());
        put("role", p.role.name().to_string());
        put("kappa", p.kappa.to_string());
        // A configuration that is not a flat record is refused by the tests of each system.
        for (k, v) in S::inputs(&p.config).unwrap_or_default() {
            put(k, v);
        }
        if let Some(t_end) = self.scenarios[p.scenario].t_end {
            put("t_end", t_end.to_string());
        }
        put("integrator", p.integrator.to_string());
        put("rtol", p.rtol.to_string());
        put("atol", (self.solver.atol_per_rtol * p.rtol).to_string());
        row
    }
    fn run_point(&self, p: &Self::Point) -> Row {
        let mut row = self.input_row(p);
        let mut put = |k: &'static str, v: String| {
            row.fields.insert(k, v);
        };
        let method = Method::Compliant { kappa: p.kappa };
        let settings = self.settings(p);
        // The wall time of the whole run, whatever the system's own counters time.
        let timed = || {
            let start = std::time::Instant::now();
            S::run(&p.config, method, &settings).map(|r| (r, start.elapsed().as_secs_f64()))
        };
        let result = timed()
            .map_err(|e| e.to_string())
            .and_then(|((record, stats), time)| {
                Ok((S::record_cells(&p.config, &record)?, stats, time))
            });
        let (cells, stats, time) = match result {
            Ok(r) => r,
            Err(e) => {
                put("status", "error".into());
                put("error", e);
                return row;
            }
        };
        // The reference's time is not compared: one run of it.
        let repeats = match p.role {
            Role::Reference => 1,
            Role::Ladder => self.solver.repeats,
        };
        let mut times = repeated_wall_times(time, repeats, || timed().ok().map(|(_, t)| t));
        let median = crate::analysis::work_precision::median(&mut times);
        put("status", "ok".into());
        for (k, v) in cells {
            put(k, v);
        }
        for (k, v) in stat_fields(&stats) {
            put(k, v);
        }
        put("repeats", times.len().to_string());
        put("wall_time_s", median.to_string());
        put("wall_time_min_s", times[0].to_string());
        put("wall_time_max_s", times[times.len() - 1].to_string());
        row
    }
    fn describe(&self, p: &Self::Point) -> String {
        format!(
            "{} κ = {:.0e} {} {} rtol {:.0e}",
            self.scenarios[p.scenario].name,
            p.kappa,
            p.role.name(),
            p.integrator,
            p.rtol
        )
    }
    fn spec_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}
