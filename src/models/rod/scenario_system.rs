//! The rod's scenarios ([`super::scenario`]: Zhao–Liu's impact, sustained contact, the drop) as
//! a [`System`] of the work–precision study ([`crate::study::work_precision`]), and the
//! integrator study's file (`kind = "integrator_study"`, experiments/integrators.toml) read as
//! that study of this system.
//!
//! A configuration is one scenario's parameters (`kind`, μ, μ_s, θ0, θ̇0, u0, c_d, the drop's
//! height, the end time and the output times); one run is [`Scenario::simulate`] at the run's κ
//! with the states at the output times recorded. The error of a run is measured on the phase
//! durations and the post-impact velocities (impact) or on the states at the output times
//! (sustained, drop).

use crate::compliant::{Event, SimulationOptions};
use crate::error::{number_text, require_finite, SimError};
use crate::experiment::grammar::{LogGrid, SpecError};
use crate::experiment::registry::Table;
use crate::experiment::rows::Cells;
use crate::experiment::system::{
    ErrorMeasure, ErrorScale, Method, Quantity, RunSettings, System, WorkPrecisionLayout,
};
use crate::integrate::SolverStats;
use crate::models::rod::columns::PhaseDurations;
use crate::models::rod::mechanics::THETA;
use crate::models::rod::scenario::{RodImpact, Scenario};
use crate::study::work_precision::WorkPrecision;
use serde::{Deserialize, Serialize};

/// `model = "…"` of the rod scenarios' work–precision files.
pub const NAME: &str = "rod_scenario";
/// Its line in `rigid-limit list`.
pub const ABOUT: &str = "the Painlevé rod's impact, sustained contact and drop, on the \
    work–precision study (study = \"work_precision\", or kind = \"integrator_study\")";

/// Fixed-time states recorded per run (columns `state_1` … `state_4`).
pub(crate) const MAX_OUTPUTS: usize = 4;

/// The `state_k` columns: `t x_A y_A θ ẋ_A ẏ_A θ̇`, space-separated.
pub const STATE_COLUMNS: [&str; MAX_OUTPUTS] = ["state_1", "state_2", "state_3", "state_4"];

/// The symbols of the state components compared at the output times: `STATE_SYMBOLS[k][j]` is
/// component j + 1 of `state_{k+1}` (q = (x_A, y_A, θ), then q̇).
const STATE_SYMBOLS: [[&str; 6]; MAX_OUTPUTS] = [
    ["x_A(t₁)", "y_A(t₁)", "θ(t₁)", "ẋ_A(t₁)", "ẏ_A(t₁)", "θ̇(t₁)"],
    ["x_A(t₂)", "y_A(t₂)", "θ(t₂)", "ẋ_A(t₂)", "ẏ_A(t₂)", "θ̇(t₂)"],
    ["x_A(t₃)", "y_A(t₃)", "θ(t₃)", "ẋ_A(t₃)", "ẏ_A(t₃)", "θ̇(t₃)"],
    ["x_A(t₄)", "y_A(t₄)", "θ(t₄)", "ẋ_A(t₄)", "ẏ_A(t₄)", "θ̇(t₄)"],
];

/// The keys the integrator study's file sets at its top level that the work–precision study
/// reads in `[solver]`.
const SOLVER_ALIASES: [&str; 6] = [
    "integrators",
    "rtol",
    "atol_per_rtol",
    "repeats",
    "max_steps",
    "max_events",
];

/// The rod's scenarios: a system of the work–precision study.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RodScenario;

/// What a scenario starts from and how long it runs.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ScenarioKind {
    /// Zhao–Liu's tangential impact, until separation.
    #[default]
    Impact,
    /// From the quasi-static penetration, until `t_end`.
    Sustained,
    /// Dropped from `height`, until `t_end`.
    Drop,
}

impl ScenarioKind {
    pub fn name(self) -> &'static str {
        match self {
            ScenarioKind::Impact => "impact",
            ScenarioKind::Sustained => "sustained",
            ScenarioKind::Drop => "drop",
        }
    }
}

/// One scenario's parameters; the default is Zhao–Liu's impact (μ = μ_s = 2, θ0 = 1.3,
/// θ̇0 = 0, u0 = −1, linear spring).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ScenarioConfig {
    pub kind: ScenarioKind,
    pub mu: f64,
    /// Default: `mu`.
    pub mu_s: Option<f64>,
    pub theta0: f64,
    pub omega0: f64,
    pub u0: f64,
    /// Dashpot coefficient c_d.
    pub damping: f64,
    /// Drop height (kind = drop).
    pub height: Option<f64>,
    /// End time (kind = sustained or drop).
    pub t_end: Option<f64>,
    /// Times at which the state is compared with the reference (at most 4, in (0, t_end]).
    pub output_times: Vec<f64>,
}

impl Default for ScenarioConfig {
    fn default() -> Self {
        let rod = RodImpact::zhao_liu(1.0);
        ScenarioConfig {
            kind: ScenarioKind::Impact,
            mu: rod.mu,
            mu_s: None,
            theta0: rod.theta0,
            omega0: rod.omega0,
            u0: rod.u0,
            damping: rod.damping,
            height: None,
            t_end: None,
            output_times: Vec::new(),
        }
    }
}

impl ScenarioConfig {
    /// The scenario at compliance `kappa`.
    pub fn at(&self, kappa: f64) -> Scenario {
        let rod = RodImpact {
            kappa,
            mu: self.mu,
            mu_s: self.mu_s.unwrap_or(self.mu),
            theta0: self.theta0,
            omega0: self.omega0,
            u0: self.u0,
            damping: self.damping,
            ..RodImpact::zhao_liu(kappa)
        };
        let t_end = self.t_end.unwrap_or(f64::NAN);
        match self.kind {
            ScenarioKind::Impact => Scenario::Impact(rod),
            ScenarioKind::Sustained => Scenario::Sustained { rod, t_end },
            ScenarioKind::Drop => Scenario::Drop {
                rod,
                height: self.height.unwrap_or(f64::NAN),
                t_end,
            },
        }
    }

    /// The keys its kind needs and refuses, and the output times; errors name the key.
    fn validate_keys(&self) -> Result<(), SimError> {
        let kind = self.kind.name();
        let needs = |field: &str, v: Option<f64>, allowed: bool| match (v, allowed) {
            (None, true) => Err(SimError::invalid(
                field,
                "missing",
                &format!("a {kind} scenario needs it"),
            )),
            (Some(_), false) => Err(SimError::invalid(
                field,
                "given",
                &format!("a {kind} scenario does not use it; remove it"),
            )),
            _ => Ok(()),
        };
        let fixed_time = self.kind != ScenarioKind::Impact;
        needs("t_end", self.t_end, fixed_time)?;
        needs("height", self.height, self.kind == ScenarioKind::Drop)?;
        if !fixed_time && !self.output_times.is_empty() {
            return Err(SimError::invalid(
                "output_times",
                crate::error::as_written(&self.output_times),
                "an impact ends at separation; fixed-time states need kind = sustained or drop",
            ));
        }
        if self.output_times.len() > MAX_OUTPUTS {
            return Err(SimError::invalid(
                "output_times",
                self.output_times.len(),
                &format!("at most {MAX_OUTPUTS} output times"),
            ));
        }
        let t_end = self.t_end.unwrap_or(f64::INFINITY);
        let mut last = 0.0;
        for &t in &self.output_times {
            require_finite("output_times", t)?;
            if !(t > last && t <= t_end) {
                return Err(SimError::invalid(
                    "output_times",
                    t,
                    "output times must increase and lie in (0, t_end]",
                ));
            }
            last = t;
        }
        Ok(())
    }
}

/// What one run measures: the mode sequence, events and contacts, the phase durations, the
/// post-impact velocities (when the contact opened) and the states at the output times.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
pub struct ScenarioRecord {
    /// The modes, `>`-separated.
    pub mode_sequence: String,
    pub n_events: usize,
    /// Contacts closed (the drop's bounces).
    pub n_contacts: usize,
    pub t_slide: f64,
    pub t_stick: f64,
    pub t_reverse_slip: f64,
    pub u_out: Option<f64>,
    pub v_out: Option<f64>,
    pub omega_out: Option<f64>,
    /// `t x_A y_A θ ẋ_A ẏ_A θ̇` at each output time.
    pub state_1: Option<String>,
    pub state_2: Option<String>,
    pub state_3: Option<String>,
    pub state_4: Option<String>,
}

impl System for RodScenario {
    const NAME: &'static str = NAME;
    const TITLE: &'static str = "the Painlevé rod's scenarios";
    const ABOUT: &'static str = ABOUT;
    const SOLVER_KEYS: &'static [&'static str] = &["max_steps", "max_events"];
    const WORK_PRECISION_LAYOUT: WorkPrecisionLayout = WorkPrecisionLayout {
        leading_inputs: &["kind"],
        wall_time_max: false,
        repeat_reference: true,
    };
    type Config = ScenarioConfig;
    type Record = ScenarioRecord;

    fn validate(config: &ScenarioConfig, kappa: Option<&LogGrid>) -> Result<(), SimError> {
        config.validate_keys()?;
        let Some(grid) = kappa else {
            return Err(SimError::invalid(
                "method",
                "rigid",
                "the rod's scenarios run compliant only",
            ));
        };
        for k in [grid.max, grid.min] {
            config.at(k).validate(|name| name.to_string())?;
        }
        Ok(())
    }

    fn run(
        config: &ScenarioConfig,
        method: Method,
        settings: &RunSettings,
    ) -> Result<(ScenarioRecord, SolverStats), SimError> {
        let kappa = method.compliant_kappa(NAME)?;
        let mut options = SimulationOptions::new(settings.integrator, settings.rtol, settings.atol)
            .with_guards(None, settings.max_steps, settings.max_events);
        options.output_times = config.output_times.clone();
        let run = config.at(kappa).simulate(&options)?;
        let state = |k: usize| {
            run.outputs.get(k).map(|sample| {
                std::iter::once(sample.t)
                    .chain(sample.q.iter().copied())
                    .chain(sample.qdot.iter().copied())
                    .map(number_text)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
        };
        let durations = PhaseDurations::of(&run.modes);
        let record = ScenarioRecord {
            mode_sequence: run
                .modes
                .iter()
                .map(|m| m.mode.name())
                .collect::<Vec<_>>()
                .join(">"),
            n_events: run.events.len(),
            n_contacts: run
                .events
                .iter()
                .filter(|e| e.event == Event::ContactCloses)
                .count(),
            t_slide: durations.slide,
            t_stick: durations.stick,
            t_reverse_slip: durations.reverse_slip,
            u_out: run.post_impact.as_ref().map(|p| p.u),
            v_out: run.post_impact.as_ref().map(|p| p.v),
            omega_out: run.post_impact.as_ref().map(|p| p.qdot[THETA]),
            state_1: state(0),
            state_2: state(1),
            state_3: state(2),
            state_4: state(3),
        };
        Ok((record, run.stats))
    }

    /// An impact's phase durations and post-impact velocities; otherwise each component of q
    /// and q̇ at each output time.
    fn quantities(config: &ScenarioConfig) -> Vec<Quantity> {
        let quantity = |column, component, symbol| Quantity {
            column,
            component,
            symbol,
            closed_form: None,
            rigid_limit: None,
            exponent: None,
            ..Quantity::default()
        };
        match config.kind {
            ScenarioKind::Impact => [
                ("t_slide", "T_slide"),
                ("t_stick", "T_stick"),
                ("t_reverse_slip", "T_rev"),
                ("u_out", "u_out"),
                ("v_out", "v_out"),
                ("omega_out", "θ̇_out"),
            ]
            .into_iter()
            .map(|(column, symbol)| quantity(column, None, symbol))
            .collect(),
            _ => (0..config.output_times.len().min(MAX_OUTPUTS))
                .flat_map(|k| {
                    (0..6)
                        .map(move |j| quantity(STATE_COLUMNS[k], Some(j + 1), STATE_SYMBOLS[k][j]))
                })
                .collect(),
        }
    }

    /// An impact's phase durations (relative) and post-impact velocities (absolute), each on
    /// its own; otherwise the largest absolute error of q = (x_A, y_A, θ) and of q̇ over the
    /// output times.
    fn error_measures(config: &ScenarioConfig) -> Vec<ErrorMeasure> {
        let quantities = Self::quantities(config);
        if config.kind == ScenarioKind::Impact {
            return quantities
                .into_iter()
                .map(|q| ErrorMeasure {
                    name: q.column.to_string(),
                    scale: if q.column.starts_with("t_") {
                        ErrorScale::Relative
                    } else {
                        ErrorScale::Absolute
                    },
                    quantities: vec![q],
                })
                .collect();
        }
        let (positions, velocities): (Vec<Quantity>, Vec<Quantity>) = quantities
            .into_iter()
            .partition(|q| q.component.is_some_and(|j| j <= 3));
        vec![
            ErrorMeasure {
                name: "q(t_k)".into(),
                quantities: positions,
                scale: ErrorScale::Absolute,
            },
            ErrorMeasure {
                name: "qdot(t_k)".into(),
                quantities: velocities,
                scale: ErrorScale::Absolute,
            },
        ]
    }

    fn set_parameter(config: &mut ScenarioConfig, key: &str, value: f64) -> Result<(), String> {
        match key {
            "mu" => config.mu = value,
            "mu_s" => config.mu_s = Some(value),
            "theta0" => config.theta0 = value,
            "omega0" => config.omega0 = value,
            "u0" => config.u0 = value,
            "damping" => config.damping = value,
            "height" => config.height = Some(value),
            "t_end" => config.t_end = Some(value),
            _ => {
                return Err(format!(
                    "system {NAME} has no numeric parameter {key} (its parameters: mu, mu_s, \
                     theta0, omega0, u0, damping, height, t_end)"
                ))
            }
        }
        Ok(())
    }

    fn set_value(
        config: &mut ScenarioConfig,
        key: &str,
        value: &serde_json::Value,
    ) -> Result<(), String> {
        match key {
            "kind" => {
                config.kind = serde_json::from_value(value.clone())
                    .map_err(|_| "name one of impact, sustained, drop".to_string())?
            }
            "output_times" => {
                config.output_times = serde_json::from_value(value.clone())
                    .map_err(|_| "list the output times".to_string())?
            }
            _ => {
                return Err(format!(
                    "system {NAME} has no parameter {key} of this kind (kind: a word, \
                     output_times: a list of times)"
                ))
            }
        }
        Ok(())
    }

    fn input_columns(_config: &ScenarioConfig) -> Vec<&'static str> {
        vec![
            "kind", "mu", "mu_s", "theta0", "omega0", "u0", "damping", "height", "t_end",
        ]
    }

    /// μ_s resolved to μ when absent; the height of a drop, the end of a fixed-time run.
    fn inputs(config: &ScenarioConfig) -> Result<Cells, String> {
        let mut cells = vec![("kind", config.kind.name().to_string())];
        for (column, value) in [
            ("mu", Some(config.mu)),
            ("mu_s", Some(config.mu_s.unwrap_or(config.mu))),
            ("theta0", Some(config.theta0)),
            ("omega0", Some(config.omega0)),
            ("u0", Some(config.u0)),
            ("damping", Some(config.damping)),
            ("height", config.height),
            ("t_end", config.t_end),
        ] {
            if let Some(v) = value {
                cells.push((column, number_text(v)));
            }
        }
        Ok(cells)
    }

    fn describe(config: &ScenarioConfig) -> String {
        format!(
            "The Painlevé rod (Zhao–Liu), {} scenario: μ = {}, μ_s = {}, θ0 = {}, θ̇0 = {}, \
             u0 = {}, c_d = {}",
            config.kind.name(),
            number_text(config.mu),
            number_text(config.mu_s.unwrap_or(config.mu)),
            number_text(config.theta0),
            number_text(config.omega0),
            number_text(config.u0),
            number_text(config.damping),
        )
    }
}

/// The registry's reader of the rod scenarios' files: an integrator study's
/// (`kind = "integrator_study"`, read through [`integrator_study_table`]) or a work–precision
/// file of `model = "rod_scenario"`; `None` for any other file.
pub fn parse(text: &str, table: &Table) -> Option<Result<WorkPrecision<RodScenario>, SpecError>> {
    let validate = WorkPrecision::<RodScenario>::validate;
    if table.contains_key("kind") {
        let spec = integrator_study_table(table.clone())
            .and_then(|t| crate::experiment::grammar::from_table_validated(t, validate));
        return Some(spec.map_err(name_the_flat_key));
    }
    (table.get("model").and_then(|m| m.as_str()) == Some(NAME))
        .then(|| crate::experiment::grammar::parse_validated(text, validate))
}

/// An integrator study's table in the work–precision study's shape: `kind =
/// "integrator_study"` becomes `model = "rod_scenario"`, `study = "work_precision"`; the ladder's
/// keys at the top level (`integrators`, `rtol`, `atol_per_rtol`, `repeats`, `max_steps`,
/// `max_events`) move into `[solver]`; the scenarios start from Zhao–Liu's impact (an empty
/// `[params]`). Everything else (`name`, `reference`, `time_per_work_ns`, the `[[scenario]]`
/// tables) is the same key in both.
pub fn integrator_study_table(mut table: Table) -> Result<Table, SpecError> {
    let invalid = |field: &str, value: String, requirement: &str| SpecError::Invalid {
        path: String::new(),
        source: SimError::invalid(field, value, requirement),
    };
    match table.remove("kind") {
        Some(toml::Value::String(kind)) if kind == "integrator_study" => {}
        other => {
            return Err(invalid(
                "kind",
                other.map_or("missing".into(), |v| v.to_string()),
                "the one kind of experiment file is integrator_study (the rod scenarios' work–precision study)",
            ))
        }
    }
    for key in ["model", "study", "solver", "params", "system"] {
        if table.contains_key(key) {
            return Err(invalid(
                key,
                "given".into(),
                "an integrator study (kind = \"integrator_study\") sets its ladder at the top level; remove it",
            ));
        }
    }
    let mut solver = Table::new();
    for key in SOLVER_ALIASES {
        if let Some(value) = table.remove(key) {
            solver.insert(key.into(), value);
        }
    }
    table.insert("model".into(), NAME.into());
    table.insert("study".into(), crate::study::work_precision::NAME.into());
    table.insert("solver".into(), toml::Value::Table(solver));
    table.insert("params".into(), toml::Value::Table(Table::new()));
    Ok(table)
}

/// An error of an integrator study's file naming the key as the file writes it: `repeats`, not
/// the study's `solver.repeats`.
fn name_the_flat_key(e: SpecError) -> SpecError {
    match e {
        SpecError::Invalid {
            path,
            source:
                SimError::InvalidInput {
                    field,
                    value,
                    requirement,
                },
        } => SpecError::Invalid {
            path,
            source: SimError::InvalidInput {
                field: field
                    .strip_prefix("solver.")
                    .map_or(field.clone(), str::to_string),
                value,
                requirement,
            },
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_integrator_study_keys_move_into_the_solver_table() {
        let table: Table = toml::from_str(
            "name = \"x\"\nkind = \"integrator_study\"\nrepeats = 2\nintegrators = [\"bdf\"]",
        )
        .unwrap();
        let t = integrator_study_table(table).unwrap();
        assert_eq!(t["model"].as_str(), Some(NAME));
        assert_eq!(t["solver"]["repeats"].as_integer(), Some(2));
        assert!(!t.contains_key("repeats") && !t.contains_key("kind"));
        let bad: Table = toml::from_str("kind = \"sweep\"").unwrap();
        assert!(integrator_study_table(bad)
            .unwrap_err()
            .to_string()
            .contains("kind"));
    }

    #[test]
    fn the_inputs_resolve_mu_s_and_leave_out_what_the_kind_does_not_use() {
        let impact = ScenarioConfig::default();
        let cells = RodScenario::inputs(&impact).unwrap();
        let columns: Vec<&str> = cells.iter().map(|(c, _)| *c).collect();
        assert_eq!(
            columns,
            ["kind", "mu", "mu_s", "theta0", "omega0", "u0", "damping"]
        );
        assert_eq!(cells[2].1, "2");
        let mut c = impact.clone();
        RodScenario::set_parameter(&mut c, "mu_s", 3.0).unwrap();
        RodScenario::set_value(&mut c, "kind", &serde_json::json!("drop")).unwrap();
        assert_eq!((c.kind, c.mu_s), (ScenarioKind::Drop, Some(3.0)));
        assert!(RodScenario::set_parameter(&mut c, "nu", 1.0).is_err());
        assert!(RodScenario::set_value(&mut c, "kind", &serde_json::json!("fall")).is_err());
    }
}
