//! The work–precision study of any [`System`]: which integrator reaches a given accuracy
//! cheapest. Scenarios (named overrides of the system's parameters and end, a parameter given
//! as several values making a configuration of each) × κ × integrators × a ladder of
//! tolerances, each ladder run repeated for a stable median wall time. The reference of a
//! configuration is the same system at the same κ (not the rigid limit: the error measured is
//! the integrator's, at fixed κ) run at a tolerance tighter than the ladder's by two different
//! integrators, the first the value, the second its check. A run's errors are the system's error
//! measures ([`System::error_measures`]: its quantities, each on a relative or absolute scale)
//! against the reference's; its work the counts of RHS evaluations, Jacobian–vector products and
//! LU factorisations, costed by each integrator's time per work unit (`time_per_work_ns`, else
//! the run's own measurement), with the median wall time beside them. The analysis is
//! [`crate::analysis::work_precision`], the report [`crate::report::work_precision`]; a system
//! whose runs.csv keeps another layout says so in [`System::WORK_PRECISION_LAYOUT`] (the rod
//! scenarios', `crate::models::rod::scenario_system`, whose integrator study file is read as
//! this study).
//!
//! ```toml
//! name = "work_precision_box"
//! model = "system"                  # the system
//! study = "work_precision"
//! system = "systems/box.toml"       # its configuration ([params] for a hand-coded system)
//! kappa = [1e-4]                    # each κ a configuration of every scenario without its own
//! [[scenario]]
//! name = "slide"
//! t_end = 2.0                       # the run's end, for a system that runs to a fixed time
//! mu = 0.4                          # any numeric parameter of the system, overridden
//! # kappa = { min = 1e-8, max = 1e-4, per_decade = 1 }   # the scenario's own κ (or a list)
//! # h = [0.3, 0.8]                  # several values: a configuration each, κ innermost
//! [solver]
//! integrators = ["dop853", "radau5"]
//! rtol = { min = 1e-9, max = 1e-3, per_decade = 1 }   # the ladder
//! atol_per_rtol = 1.0               # atol = atol_per_rtol × rtol
//! repeats = 3                       # median of up to 3 runs (fewer once 0.3 s were spent)
//! [reference]
//! integrators = ["dop853", "tsit5"] # the value, then its check
//! rtol = 1e-12                      # ≤ the ladder's tightest
//! ```
//!
//! A top-level `time_per_work_ns = { dop853 = 98, radau5 = 307 }` (before the tables) calibrates
//! the recommendation's cost model: ns per work unit of each integrator of the ladder.

use crate::error::{number_text, require_positive, require_rtol, SimError};
use crate::experiment::grammar::{validate_name, LogGrid};
use crate::experiment::runner::{Plan, Points};
use crate::experiment::system::{Method, RunSettings, System};
use crate::experiment::table::{stat_fields, Row};
use crate::integrate::{IntegratorKind, SolverStats};
use crate::study::ladder::quantity_value;
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
pub(crate) fn repeated_wall_times(
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

/// A number, a list of numbers, or a log grid `{ min, max, per_decade }` (largest first).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(untagged)]
pub enum Values {
    One(f64),
    List(Vec<f64>),
    Grid(LogGrid),
}

impl Values {
    /// The values: as listed, or the grid's from its largest.
    pub fn values(&self) -> Vec<f64> {
        match self {
            Values::One(v) => vec![*v],
            Values::List(v) => v.clone(),
            Values::Grid(g) => g.values(),
        }
    }

    /// How many values, without computing them.
    fn len(&self) -> usize {
        match self {
            Values::One(_) => 1,
            Values::List(v) => v.len(),
            Values::Grid(g) => g.len(),
        }
    }
}

/// A scenario's value of a system parameter: a number; several, or a log grid of them, each a
/// configuration of its own; or a value of another kind that the system sets as it is (a list
/// for a vector parameter, such as the rod scenarios' `output_times`; a word, such as their
/// `kind`).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(untagged)]
pub enum Parameter {
    Number(f64),
    List(Vec<f64>),
    Grid(LogGrid),
    Word(String),
}

impl Parameter {
    /// The value as written, for the summary.
    pub fn text(&self) -> String {
        match self {
            Parameter::Number(v) => number_text(*v),
            Parameter::List(v) => crate::error::as_written(v),
            Parameter::Grid(g) => format!(
                "{} … {} ({} per decade)",
                number_text(g.max),
                number_text(g.min),
                g.per_decade
            ),
            Parameter::Word(w) => w.clone(),
        }
    }
}

/// One `[[scenario]]`: a name, its compliances, the run's end, and parameters of the system
/// overridden. A parameter given as several values (a list or a log grid, for a numeric
/// parameter) makes a configuration of each; such parameters nest in alphabetical order, κ
/// innermost.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct Scenario {
    /// Label in the outputs (unique).
    pub name: String,
    /// The scenario's compliances (a number, a list or a log grid); the file's `kappa` without
    /// it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kappa: Option<Values>,
    /// The end of each run, for a system that runs to a fixed time (`t_end` among its solver
    /// keys); a system whose end is a parameter (`t_end` of its configuration) reads it as
    /// that; without either a run ends where the system ends it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_end: Option<f64>,
    /// Every other key: a parameter of the system and its value(s) here.
    #[serde(flatten)]
    pub parameters: BTreeMap<String, Parameter>,
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
    /// The compliances: each scenario without `kappa` of its own runs at each (a number, a list
    /// or a log grid).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kappa: Option<Values>,
    #[serde(rename = "scenario")]
    pub scenarios: Vec<Scenario>,
    pub solver: LadderSpec,
    pub reference: ReferenceSpec,
    /// The calibration of the recommendation's cost model: each integrator's wall time per unit
    /// of work (RHS + JVP + LU counts), in ns, as measured by an earlier run of the study (the
    /// summary's "time per work unit" table). With it the recommendation is a function of the
    /// deterministic counts alone; without it, the run's own measurement is used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_per_work_ns: Option<BTreeMap<String, f64>>,
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

/// The listed parameters of a scenario with their values in one configuration, outermost first.
pub(crate) type Varied = Vec<(String, f64)>;

/// The parameters a scenario lists (each with its values), outermost first.
type Listed<'a> = Vec<(&'a str, Vec<f64>)>;

/// One configuration: a scenario at one value of each of its listed parameters and one κ.
#[derive(Clone, Debug, PartialEq)]
pub struct Configuration<C> {
    pub scenario: usize,
    pub kappa: f64,
    /// The scenario's parameters given as several values, each with its value here, outermost
    /// first.
    pub varied: Varied,
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
        self.validate_calibration()?;
        if S::error_measures(&self.params).is_empty() {
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
        if let Some(kappa) = &self.kappa {
            validate_kappa("kappa", kappa)?;
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
            match (&scenario.kappa, &self.kappa) {
                (Some(kappa), _) => validate_kappa(&key("kappa"), kappa)?,
                (None, Some(_)) => {}
                (None, None) => {
                    return Err(SimError::invalid(
                        "kappa",
                        "missing",
                        &format!(
                            "list at least one compliance, e.g. kappa = [1e-4] (or give scenario[{i}] a kappa)"
                        ),
                    ))
                }
            }
            match scenario.t_end {
                Some(t) if self.runs_to_a_time() => {
                    require_positive(&key("t_end"), t)?;
                }
                _ => {}
            }
            for (name, value) in &scenario.parameters {
                if let Parameter::Grid(g) = value {
                    g.validate(&key(name))?;
                }
            }
        }
        let n_configurations = self.count_configurations();
        let runs = n_configurations * (2 + s.integrators.len() as u128 * s.rtol.len() as u128);
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
        for c in &self.configurations()? {
            let grid = LogGrid {
                min: c.kappa,
                max: c.kappa,
                per_decade: 1,
            };
            S::validate(&c.config, Some(&grid)).map_err(|e| {
                // What the scenario made invalid names the scenario's key; an error of the
                // configuration it starts from names that configuration's.
                let base_valid = S::validate(&self.params, Some(&grid)).is_ok();
                match e {
                    SimError::InvalidInput {
                        field,
                        value,
                        requirement,
                    } if base_valid => SimError::InvalidInput {
                        field: format!(
                            "scenario[{}].{}",
                            c.scenario,
                            field.strip_prefix("params.").unwrap_or(&field)
                        ),
                        value,
                        requirement,
                    },
                    other => other,
                }
            })?;
        }
        Ok(())
    }

    /// Check `time_per_work_ns`: a positive time for each integrator of the ladder, none other.
    fn validate_calibration(&self) -> Result<(), SimError> {
        let Some(calibration) = &self.time_per_work_ns else {
            return Ok(());
        };
        let integrators = &self.solver.integrators;
        for (name, &ns) in calibration {
            let key = format!("time_per_work_ns.{name}");
            let known = name
                .parse::<IntegratorKind>()
                .is_ok_and(|k| integrators.contains(&k));
            if !known {
                return Err(SimError::invalid(
                    &key,
                    ns,
                    "name an integrator of the ladder's integrators",
                ));
            }
            require_positive(&key, ns)?;
        }
        if let Some(missing) = integrators
            .iter()
            .find(|k| !calibration.contains_key(&k.to_string()))
        {
            return Err(SimError::invalid(
                "time_per_work_ns",
                crate::error::as_written(&calibration.keys().collect::<Vec<_>>()),
                &format!(
                    "give {missing} too (copy the \"time per work unit\" table of a run \
                     without time_per_work_ns)"
                ),
            ));
        }
        Ok(())
    }

    /// Whether the system's runs end at a time set by the study (`t_end` among its solver keys).
    fn runs_to_a_time(&self) -> bool {
        S::SOLVER_KEYS.contains(&"t_end")
    }

    /// The compliances of scenario `i`: its own, else the file's.
    fn kappas(&self, i: usize) -> Option<&Values> {
        self.scenarios[i].kappa.as_ref().or(self.kappa.as_ref())
    }

    /// How many configurations there are, without making them (for the size check).
    fn count_configurations(&self) -> u128 {
        (0..self.scenarios.len())
            .map(|i| {
                let listed: u128 = self.scenarios[i]
                    .parameters
                    .values()
                    .map(|v| match v {
                        Parameter::List(v) => v.len() as u128,
                        Parameter::Grid(g) => g.len() as u128,
                        _ => 1,
                    })
                    .product();
                listed * self.kappas(i).map_or(0, |k| k.len() as u128)
            })
            .sum()
    }

    /// Scenario `i`'s configuration before its listed parameters are set: `[params]` with its
    /// single values set, and the listed parameters with their values; an error names a key the
    /// system does not have.
    fn scenario_base(&self, i: usize) -> Result<(S::Config, Listed<'_>), SimError> {
        let scenario = &self.scenarios[i];
        let key = |field: &str| format!("scenario[{i}].{field}");
        let mut config = self.params.clone();
        if let (Some(t), false) = (scenario.t_end, self.runs_to_a_time()) {
            S::set_parameter(&mut config, "t_end", t).map_err(|_| {
                SimError::invalid(
                    &key("t_end"),
                    "given",
                    &format!(
                        "system {} sets the end of its runs in its parameters; set that parameter instead",
                        S::NAME
                    ),
                )
            })?;
        }
        let mut listed = Vec::new();
        for (name, value) in &scenario.parameters {
            let invalid = |shown: String, e: String| SimError::invalid(&key(name), shown, &e);
            match value {
                Parameter::Number(v) => S::set_parameter(&mut config, name, *v)
                    .map_err(|e| invalid(number_text(*v), e))?,
                Parameter::Word(w) => S::set_value(&mut config, name, &serde_json::json!(w))
                    .map_err(|e| invalid(w.clone(), e))?,
                // A list is the value of a vector parameter, else several values.
                Parameter::List(v) => {
                    if S::set_value(&mut config, name, &serde_json::json!(v)).is_ok() {
                        continue;
                    }
                    if v.is_empty() {
                        return Err(invalid("[]".into(), "give at least one value".into()));
                    }
                    listed.push((name.as_str(), v.clone()));
                }
                Parameter::Grid(g) => listed.push((name.as_str(), g.values())),
            }
        }
        Ok((config, listed))
    }

    /// Every configuration: the scenarios as listed; in each, its listed parameters nested in
    /// alphabetical order, each value as listed, κ innermost.
    pub fn configurations(&self) -> Result<Vec<Configuration<S::Config>>, SimError> {
        let mut out = Vec::new();
        for i in 0..self.scenarios.len() {
            let (base, listed) = self.scenario_base(i)?;
            let mut configs: Vec<(Varied, S::Config)> = vec![(Vec::new(), base)];
            for (name, values) in listed {
                let mut next = Vec::with_capacity(configs.len() * values.len());
                for (varied, config) in &configs {
                    for &v in &values {
                        let mut config = config.clone();
                        S::set_parameter(&mut config, name, v).map_err(|e| {
                            SimError::invalid(&format!("scenario[{i}].{name}"), number_text(v), &e)
                        })?;
                        let mut varied = varied.clone();
                        varied.push((name.to_string(), v));
                        next.push((varied, config));
                    }
                }
                configs = next;
            }
            let kappas = self.kappas(i).map(Values::values).unwrap_or_default();
            for (varied, config) in configs {
                let config = Arc::new(config);
                for &kappa in &kappas {
                    out.push(Configuration {
                        scenario: i,
                        kappa,
                        varied: varied.clone(),
                        config: config.clone(),
                    });
                }
            }
        }
        Ok(out)
    }
    /// The label of configuration `c` (`slide, κ = 1e-4`; `impact, damping = 0.2, κ = 1e-6`).
    pub fn label(&self, c: &Configuration<S::Config>) -> String {
        let mut parts = vec![self.scenarios[c.scenario].name.clone()];
        parts.extend(
            c.varied
                .iter()
                .map(|(k, v)| format!("{k} = {}", number_text(*v))),
        );
        parts.push(format!("κ = {}", number_text(c.kappa)));
        parts.join(", ")
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
    /// settings and status, the system's record, the work counters, the repeats and wall times
    /// (laid out as [`System::WORK_PRECISION_LAYOUT`] says).
    pub fn columns(&self) -> Vec<&'static str> {
        let layout = S::WORK_PRECISION_LAYOUT;
        let mut c = vec!["point_id", "scenario"];
        c.extend(layout.leading_inputs);
        c.extend(["role", "kappa"]);
        c.extend(
            S::input_columns(&self.params)
                .into_iter()
                .filter(|k| !layout.leading_inputs.contains(k)),
        );
        if self.runs_to_a_time() {
            c.push("t_end");
        }
        c.extend(["integrator", "rtol", "atol", "status", "error"]);
        c.extend(S::record_columns(&self.params));
        c.extend(stat_fields(&SolverStats::default()).map(|(k, _)| k));
        c.extend(["repeats", "wall_time_s", "wall_time_min_s"]);
        if layout.wall_time_max {
            c.push("wall_time_max_s");
        }
        c
    }

    fn settings(&self, p: &Point<S::Config>) -> RunSettings {
        RunSettings {
            integrator: p.integrator,
            rtol: p.rtol,
            atol: self.solver.atol_per_rtol * p.rtol,
            t_max: self.solver.t_max,
            t_end: self.scenarios[p.scenario]
                .t_end
                .filter(|_| self.runs_to_a_time()),
            max_steps: self.solver.max_steps,
            max_events: self.solver.max_events,
        }
    }

    /// The rows of runs.csv as each configuration's runs for the analysis: per error measure of
    /// the system ([`System::error_measures`]) the values of its quantities, the mode sequence
    /// (for a system that records one) and the work of each run.
    pub fn configuration_runs(
        &self,
        rows: &[Row],
    ) -> Vec<crate::analysis::work_precision::ConfigurationRuns> {
        use crate::analysis::work_precision::{ConfigurationRuns, RunSample, Work};
        let configurations = self.configurations().unwrap_or_default();
        let points = self.points();
        let measures: Vec<_> = configurations
            .iter()
            .map(|c| S::error_measures(&c.config))
            .collect();
        let mut out: Vec<ConfigurationRuns> = configurations
            .iter()
            .zip(&measures)
            .map(|(c, measures)| ConfigurationRuns {
                label: self.label(c),
                scenario: self.scenarios[c.scenario].name.clone(),
                kappa: c.kappa,
                varied: c.varied.clone(),
                measures: measures.iter().map(|m| (m.name.clone(), m.scale)).collect(),
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
        for row in rows {
            let Some(p) = points.get(row.point_id) else {
                continue;
            };
            let values = if row.text("status") == "ok" {
                Ok(measures[p.configuration]
                    .iter()
                    .map(|m| {
                        m.quantities
                            .iter()
                            .map(|q| quantity_value(row, q))
                            .collect::<Option<Vec<f64>>>()
                    })
                    .collect())
            } else {
                Err(row.text("error").to_string())
            };
            let sequence = row.text("mode_sequence");
            let sample = RunSample {
                integrator: p.integrator.to_string(),
                rtol: p.rtol,
                values,
                mode_sequence: (!sequence.is_empty()).then(|| sequence.to_string()),
                work: Work {
                    wall_time_s: row.number("wall_time_s"),
                    wall_time_min_s: row.number("wall_time_min_s"),
                    steps: row.number("steps"),
                    rhs_evals: row.number("rhs_evals"),
                    jvp_evals: row.number("jvp_evals"),
                    lu_factorisations: row.number("lu_factorisations"),
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

/// Check the compliances given under `key`: at least one, each resolvable and penetrating less
/// than the body.
fn validate_kappa(key: &str, kappa: &Values) -> Result<(), SimError> {
    if let Values::Grid(g) = kappa {
        g.validate(key)?;
    }
    let values = kappa.values();
    if values.is_empty() {
        return Err(SimError::invalid(
            key,
            "[]",
            "list at least one compliance, e.g. kappa = [1e-4]",
        ));
    }
    for k in values {
        crate::compliant::normal::require_resolvable_kappa(key, k)?;
        crate::compliant::normal::require_penetrating_less_than_the_body(key, k)?;
    }
    Ok(())
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
        if let (Some(t_end), true) = (self.scenarios[p.scenario].t_end, self.runs_to_a_time()) {
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
        // The reference's time is not compared: one run of it, unless the system's layout
        // repeats it.
        let layout = S::WORK_PRECISION_LAYOUT;
        let repeats = match p.role {
            Role::Reference if !layout.repeat_reference => 1,
            _ => self.solver.repeats,
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
        if layout.wall_time_max {
            put("wall_time_max_s", times[times.len() - 1].to_string());
        }
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
