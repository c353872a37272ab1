//! One run of any [`System`] (`rigid-limit simulate SYSTEM`): its configuration is the
//! `[params]` of the system's documented experiment ([`System::EXAMPLE`]) or of a file, with
//! keys set on the command line (`--set mu=0.3`), run once under one method by one integrator;
//! what the run measures is the record a convergence study writes as one row of runs.csv.

use crate::error::SimError;
use crate::experiment::grammar::LogGrid;
use crate::experiment::system::{Method, RunSettings, System};
use crate::integrate::SolverStats;

/// What one run is asked for, besides the system.
#[derive(Clone, Debug, PartialEq)]
pub struct SingleRun {
    /// The `[params]` table to start from; `None`: the system's documented example.
    pub params: Option<toml::Table>,
    /// `KEY=VALUE` settings applied over it, in order (a VALUE that is no TOML value is a
    /// string: `--set method=rigid`).
    pub sets: Vec<String>,
    pub method: Method,
    pub settings: RunSettings,
}

/// The configuration and what its run measured.
#[derive(Clone, Debug)]
pub struct SingleOutcome<S: System> {
    pub config: S::Config,
    pub record: S::Record,
    pub stats: SolverStats,
}

/// The TOML text `file`, named `label` in errors, as a table.
pub(crate) fn toml_table(file: &str, label: &str) -> Result<toml::Table, SimError> {
    toml::from_str(file).map_err(|e| {
        SimError::invalid(
            label,
            "(file)",
            &format!(
                "not a TOML file: {}",
                e.to_string().trim().replace('\n', " ")
            ),
        )
    })
}

/// The `[params]` table of the TOML text `experiment` (an experiment file), named `label` in
/// errors.
pub fn params_table(experiment: &str, label: &str) -> Result<toml::Table, SimError> {
    let table = toml_table(experiment, label)?;
    match table.get("params") {
        Some(toml::Value::Table(params)) => Ok(params.clone()),
        _ => Err(SimError::invalid(
            label,
            "(file)",
            "has no [params] table: give an experiment file of this system",
        )),
    }
}

/// `KEY=VALUE` as the key and its TOML value (a string when VALUE is no TOML value).
pub(crate) fn parse_set(set: &str) -> Result<(String, toml::Value), SimError> {
    let Some((key, value)) = set.split_once('=') else {
        return Err(SimError::invalid(
            "--set",
            set,
            "write KEY=VALUE, e.g. --set mu=0.3 or --set 'V0=[1.0, 0.5]'",
        ));
    };
    let key = key.trim();
    if key.is_empty() {
        return Err(SimError::invalid(
            "--set",
            set,
            "the KEY of KEY=VALUE is empty",
        ));
    }
    let value = toml::from_str::<toml::Table>(&format!("v = {value}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(value.trim().to_string()));
    Ok((key.to_string(), value))
}

/// The configuration of `run`: its table (or the example's) with every `--set` applied, read
/// as `S::Config` (an unknown key is refused by name).
pub fn configuration<S: System>(run: &SingleRun) -> Result<S::Config, SimError> {
    let mut params = match &run.params {
        Some(p) => p.clone(),
        None if S::EXAMPLE.is_empty() => toml::Table::new(),
        None => params_table(S::EXAMPLE, S::NAME)?,
    };
    for set in &run.sets {
        let (key, value) = parse_set(set)?;
        params.insert(key, value);
    }
    crate::experiment::grammar::refuse_unrepresentable_numbers(&params)?;
    toml::Value::Table(params)
        .try_into()
        .map_err(|e: toml::de::Error| {
            SimError::invalid(
                "--set",
                run.sets.join(" "),
                &format!(
                    "system {}'s [params]: {}",
                    S::NAME,
                    e.message().trim().replace('\n', " ")
                ),
            )
        })
}

/// Run `run` of system `S`: the configuration checked as a convergence study checks it (its
/// κ as a one-value ladder), then one run.
pub fn simulate<S: System>(run: &SingleRun) -> Result<SingleOutcome<S>, SimError> {
    let config = configuration::<S>(run)?;
    let methods = S::methods(&config);
    match run.method {
        Method::Rigid if !methods.rigid => {
            return Err(SimError::invalid(
                "--method",
                "rigid",
                &if run.sets.is_empty() {
                    format!(
                        "system {} has no rigid reference; run it compliant",
                        S::NAME
                    )
                } else {
                    // A system may have a rigid reference that some parameters rule out
                    // (Dance's `start` selects the compliant runs).
                    format!(
                        "system {} has no rigid reference with --set {}; run it compliant, or \
                         drop the settings that select compliant runs",
                        S::NAME,
                        run.sets.join(" --set ")
                    )
                },
            ));
        }
        Method::Rigid => S::validate(&config, None)?,
        Method::Compliant { kappa } => {
            crate::compliant::normal::require_resolvable_kappa("--kappa", kappa)?;
            crate::compliant::normal::require_penetrating_less_than_the_body("--kappa", kappa)?;
            let ladder = LogGrid {
                min: kappa,
                max: kappa,
                per_decade: 1,
            };
            S::validate(&config, Some(&ladder))?;
        }
    }
    let (record, stats) = S::run(&config, run.method, &run.settings)?;
    Ok(SingleOutcome {
        config,
        record,
        stats,
    })
}

/// The outcome as one JSON object: the system, the method, the integrator and its tolerances,
/// the configuration, the record (runs.csv's measured columns) and the work.
pub fn outcome_json<S: System>(
    run: &SingleRun,
    outcome: &SingleOutcome<S>,
) -> Result<serde_json::Value, SimError> {
    let to_json = |what: &str, value: Result<serde_json::Value, serde_json::Error>| {
        value.map_err(|e| SimError::invalid(what, "(value)", &e.to_string()))
    };
    let mut json = serde_json::json!({
        "system": S::NAME,
        "method": run.method.name(),
        "integrator": run.settings.integrator.name(),
        "rtol": run.settings.rtol,
        "atol": run.settings.atol,
        "params": to_json("params", serde_json::to_value(&outcome.config))?,
        "record": to_json("record", serde_json::to_value(&outcome.record))?,
        "stats": to_json("stats", serde_json::to_value(outcome.stats))?,
    });
    if let Method::Compliant { kappa } = run.method {
        json["kappa"] = serde_json::json!(kappa);
    }
    Ok(json)
}

/// The outcome as text: a heading line, then `key = value` per parameter and per measured
/// column (the cells runs.csv would hold), then the work.
pub fn outcome_text<S: System>(
    run: &SingleRun,
    outcome: &SingleOutcome<S>,
) -> Result<String, SimError> {
    let method = match run.method {
        Method::Compliant { kappa } => {
            format!("compliant, κ = {}", crate::error::number_text(kappa))
        }
        Method::Rigid => "rigid".to_string(),
    };
    let mut text = format!(
        "{} ({}), {method}; {} at rtol {}, atol {}\n",
        S::NAME,
        S::TITLE,
        run.settings.integrator.name(),
        crate::error::number_text(run.settings.rtol),
        crate::error::number_text(run.settings.atol),
    );
    let unwritable = |what: &str, e: String| SimError::invalid(what, "(value)", &e);
    let params = S::inputs(&outcome.config).map_err(|e| unwritable("params", e))?;
    let record =
        S::record_cells(&outcome.config, &outcome.record).map_err(|e| unwritable("record", e))?;
    for (heading, list) in [("parameters", params), ("measured", record)] {
        text += &format!("{heading}:\n");
        for (key, value) in list {
            let value = if value.is_empty() { "(none)" } else { &value };
            text += &format!("  {key} = {value}\n");
        }
    }
    let s = &outcome.stats;
    text += &format!(
        "work: {} steps ({} rejected), {} right-hand sides, {} events, {} s\n",
        s.steps,
        s.rejected_steps,
        s.rhs_evals,
        s.events,
        crate::error::number_text(s.wall_time_s)
    );
    Ok(text)
}
