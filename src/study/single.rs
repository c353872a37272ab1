//! One run of any [`System`] (`rigid-limit simulate SYSTEM`): its configuration is the
//! `[params]` of the system's documented experiment ([`System::EXAMPLE`]) or of a file, with
//! keys set on the command line (`--set mu=0.3`), run once under one method by one integrator;
//! what the run measures is the record a convergence study writes as one row of runs.csv.

use crate::error::SimError;
use crate::experiment::grammar::LogGrid;
use crate::experiment::system::{Method, RunSettings, System};
use crate::integrate::{IntegratorKind, SolverStats};

/// What one run is asked for, besides the system.
#[derive(Clone, Debug, PartialEq)]
pub struct SingleRun {
    /// The `[params]` table to start from, with the name of its source in errors (`--params
    /// FILE`); `None`: the system's documented example.
    pub params: Option<(String, toml::Table)>,
    /// `KEY=VALUE` settings applied over it, in order (a VALUE that is no TOML value is a
    /// string: `--set method=rigid`).
    pub sets: Vec<String>,
    pub method: Method,
    pub settings: RunSettings,
}

/// The flags of `rigid-limit simulate` that any run has (the system, its parameters, the method,
/// the integrator, the tolerances, the end, the guards, the output); the rod's own are
/// `models::rod::cli::RodFlags`.
#[derive(clap::Args, Clone, Debug)]
#[command(allow_negative_numbers = true)]
pub struct RunFlags {
    /// The system to run once: `rod` (the default: its flags below, or its `[params]` keys by
    /// --set and --params, `simulate rod --set mu=3` being `simulate --mu 3`) or any system of
    /// `rigid-limit list`: one configuration, its example's `[params]` changed by --set and
    /// --params (e.g. `spring_particle`, `klarbring`), or for `planar`, `two_contact`,
    /// `schmid_mielke` and `rod_scenario` one point of their study (--point).
    #[arg(value_name = "SYSTEM", conflicts_with = "system")]
    pub system_name: Option<String>,
    /// KEY=VALUE: set a parameter of SYSTEM's `[params]` (repeatable; VALUE in TOML: 0.3,
    /// '[1.0, 0.5]', rigid).
    #[arg(
        long = "set",
        value_name = "KEY=VALUE",
        allow_hyphen_values = true,
        requires = "system_name"
    )]
    pub sets: Vec<String>,
    /// Start from the `[params]` of this experiment file instead of SYSTEM's example (for a
    /// system run as one point of its study, the whole file: planar, two_contact, schmid_mielke,
    /// rod_scenario).
    #[arg(long, value_name = "FILE", requires = "system_name")]
    pub params: Option<std::path::PathBuf>,
    /// For a system run as one point of its study (planar, two_contact, schmid_mielke,
    /// rod_scenario): the point_id of the experiment file's point to run (its row in runs.csv).
    /// Its `--set KEY=VALUE` sets `[params]`, or with a dotted KEY any table of the file
    /// (`--set sweep.law='["literal"]'`, `--set solver.rtol=1e-10`).
    #[arg(long, value_name = "ID", default_value_t = 0, requires = "system_name")]
    pub point: usize,
    /// How SYSTEM's contact acts: compliant (κ = --kappa) or rigid (its rigid reference).
    #[arg(long, default_value = "compliant")]
    pub method: String,
    /// Compliance κ > 0 (contact stiffness 1/κ, nondimensional).
    #[arg(long, allow_hyphen_values = true, default_value = "1e-8")]
    pub kappa: f64,
    /// Integrator: bdf, tr-bdf2, esdirk34, tsit45, radau5, rodas4, tsit5 or dop853. The default
    /// is the one the integrator study recommends for a single impact at the default tolerance
    /// (results/integrators/summary.md: dop853 at every κ and damping of its impact scenario).
    #[arg(long, default_value = "dop853")]
    pub integrator: String,
    /// Relative tolerance, 1e-14 ≤ rtol < 0.1.
    #[arg(long, allow_hyphen_values = true, default_value = "1e-10")]
    pub rtol: f64,
    /// Absolute tolerance, 0 < atol < 0.1; the harness scales it by min(κ, 1) on the gap and by
    /// min(√κ, 1) on the normal velocity (docs/tolerances.md).
    #[arg(long, allow_hyphen_values = true, default_value = "1e-12")]
    pub atol: f64,
    /// Run to this time instead of stopping at separation.
    #[arg(long, allow_hyphen_values = true)]
    pub t_end: Option<f64>,
    /// Time limit when running until separation (default 10).
    #[arg(long, allow_hyphen_values = true)]
    pub t_max: Option<f64>,
    /// Step guard: the run fails after this many steps.
    #[arg(long, allow_hyphen_values = true, default_value_t = crate::compliant::DEFAULT_MAX_STEPS)]
    pub max_steps: usize,
    /// Event guard: the run fails after this many events (Zeno behaviour, chattering).
    #[arg(long, allow_hyphen_values = true, default_value_t = crate::compliant::DEFAULT_MAX_EVENTS)]
    pub max_events: usize,
    /// Print one JSON object instead of the summary.
    #[arg(long)]
    pub json: bool,
    /// Include the sampled trajectory (step ends and events) in the JSON.
    #[arg(long)]
    pub trajectory: bool,
    /// Print the sampled trajectory (step ends and events) as CSV instead of the summary:
    /// t, mode, x_A, y_A, θ, their rates, F_n, F_t.
    #[arg(long, conflicts_with = "json")]
    pub csv: bool,
    /// Run a described system instead of the rod: a system file (systems/NAME.toml) or an
    /// experiment file with model = "system" (docs/described_systems.md).
    #[arg(long)]
    pub system: Option<std::path::PathBuf>,
}

/// The flags of a run that are not physics, checked: the integrator, the tolerances, the end
/// (`--t-max` or `--t-end`, positive) and the guards.
pub fn checked_run_flags(args: &RunFlags) -> Result<IntegratorKind, String> {
    let integrator: IntegratorKind = args
        .integrator
        .parse()
        .map_err(|e| format!("--integrator: {e}"))?;
    crate::error::require_rtol("--rtol", args.rtol).map_err(|e| e.to_string())?;
    crate::error::require_atol("--atol", args.atol).map_err(|e| e.to_string())?;
    if let (Some(t_max), Some(_)) = (args.t_max, args.t_end) {
        return Err(format!(
            "--t-max {} limits a run until separation, and --t-end runs to a fixed time: give one of them",
            crate::error::number_text(t_max)
        ));
    }
    for (name, v) in [("--t-max", args.t_max), ("--t-end", args.t_end)] {
        if let Some(v) = v {
            crate::error::require_positive(name, v).map_err(|e| e.to_string())?;
        }
    }
    crate::error::require_guard("--max-steps", Some(args.max_steps)).map_err(|e| e.to_string())?;
    crate::error::require_guard("--max-events", Some(args.max_events))
        .map_err(|e| e.to_string())?;
    Ok(integrator)
}

/// One run of system `S` from `args` (`simulate SYSTEM [--params FILE] [--set KEY=VALUE]…`).
pub fn simulate_system<S: System>(args: &RunFlags) -> Result<String, String> {
    let integrator = checked_run_flags(args)?;
    for (flag, key, given) in [
        ("--t-end", "t_end", args.t_end.is_some()),
        ("--t-max", "t_max", args.t_max.is_some()),
    ] {
        if given && !S::SOLVER_KEYS.contains(&key) {
            return Err(format!(
                "{flag}: system {} sets the end of its runs in its parameters (--set), not by {flag}",
                S::NAME
            ));
        }
    }
    let guard = |key: &str, value: usize| S::SOLVER_KEYS.contains(&key).then_some(value);
    let method = args.method()?;
    let params = match &args.params {
        Some(path) => {
            let label = path.display().to_string();
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("--params {label}: cannot read it: {e}"))?;
            let source = format!("--params {label}");
            let table = params_table(&text, &source).map_err(|e| e.to_string())?;
            Some((source, table))
        }
        None => None,
    };
    let run = SingleRun {
        params,
        sets: args.sets.clone(),
        method,
        settings: args.settings(
            integrator,
            guard("max_steps", args.max_steps),
            guard("max_events", args.max_events),
        ),
    };
    let outcome = simulate::<S>(&run).map_err(|e| e.to_string())?;
    if args.json {
        let json = outcome_json(&run, &outcome).map_err(|e| e.to_string())?;
        Ok(crate::report::json::pretty(&json) + "\n")
    } else {
        outcome_text(&run, &outcome).map_err(|e| e.to_string())
    }
}

impl RunFlags {
    /// `--method` with `--kappa`: compliant at κ, or the system's rigid reference.
    pub fn method(&self) -> Result<Method, String> {
        match self.method.as_str() {
            "compliant" => Ok(Method::Compliant { kappa: self.kappa }),
            "rigid" => Ok(Method::Rigid),
            other => Err(format!(
                "invalid --method = {other}: use compliant or rigid"
            )),
        }
    }

    /// The run's settings: `integrator` (checked, [`checked_run_flags`]), the tolerances, the
    /// end and the guards a system takes.
    pub fn settings(
        &self,
        integrator: IntegratorKind,
        max_steps: Option<usize>,
        max_events: Option<usize>,
    ) -> RunSettings {
        RunSettings {
            integrator,
            rtol: self.rtol,
            atol: self.atol,
            t_max: self.t_max,
            t_end: self.t_end,
            max_steps,
            max_events,
        }
    }
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
pub(crate) fn params_table(experiment: &str, label: &str) -> Result<toml::Table, SimError> {
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
/// Every `--set KEY=VALUE` of `sets` ([`parse_set`]), in order; a KEY given twice is refused
/// (the second would silently replace the first).
pub(crate) fn parse_sets(sets: &[String]) -> Result<Vec<(String, toml::Value)>, SimError> {
    let mut parsed: Vec<(String, toml::Value)> = Vec::with_capacity(sets.len());
    for set in sets {
        let (key, value) = parse_set(set)?;
        if parsed.iter().any(|(k, _)| *k == key) {
            return Err(SimError::invalid(
                "--set",
                set,
                &format!("{key} is set twice: give each KEY once"),
            ));
        }
        parsed.push((key, value));
    }
    Ok(parsed)
}

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
    let parsed = toml::from_str::<toml::Table>(&format!("v = {value}"))
        .ok()
        .and_then(|mut t| t.remove("v"));
    let overflows = value.trim().parse::<f64>().is_ok_and(f64::is_infinite)
        && value.chars().any(|c| c.is_ascii_digit());
    if parsed.is_none() && overflows {
        // A number TOML cannot hold (1e400) would otherwise become the string "1e400".
        return Err(SimError::invalid(
            "--set",
            set,
            &format!(
                "{key}: {} is beyond the range of a double (about ±1.8e308): give a finite number",
                value.trim()
            ),
        ));
    }
    let value = parsed.unwrap_or_else(|| toml::Value::String(value.trim().to_string()));
    Ok((key.to_string(), value))
}

/// The configuration of `run`: its table (or the example's) with every `--set` applied, read
/// as `S::Config` (an unknown key is refused by name).
pub fn configuration<S: System>(run: &SingleRun) -> Result<S::Config, SimError> {
    let (params, source) = match &run.params {
        Some((source, p)) => (p.clone(), Some(source.as_str())),
        None if S::EXAMPLE.is_empty() => (toml::Table::new(), None),
        None => (params_table(S::EXAMPLE, S::NAME)?, None),
    };
    config_with_sets(params, source, &run.sets, S::NAME)
}

/// The `[params]` table `params` of system `name` (from `source`, `--params FILE`, or the
/// defaults when `None`) with every `--set KEY=VALUE` of `sets` applied in order, read as its
/// configuration `C` (an unknown key is refused by name, with where it came from).
pub(crate) fn config_with_sets<C: serde::de::DeserializeOwned>(
    mut params: toml::Table,
    source: Option<&str>,
    sets: &[String],
    name: &str,
) -> Result<C, SimError> {
    for (key, value) in parse_sets(sets)? {
        params.insert(key, value);
    }
    crate::experiment::grammar::refuse_unrepresentable_numbers(&params)?;
    toml::Value::Table(params)
        .try_into()
        .map_err(|e: toml::de::Error| {
            let field = match (source, sets.is_empty()) {
                (Some(source), true) => source.to_string(),
                (Some(source), false) => format!("{source} with --set"),
                (None, _) => "--set".to_string(),
            };
            let value = if sets.is_empty() {
                "(file)".to_string()
            } else {
                sets.join(" ")
            };
            SimError::invalid(
                &field,
                value,
                &format!(
                    "system {name}'s [params]: {}",
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
    let start = std::time::Instant::now();
    let (record, mut stats) = S::run(&config, run.method, &run.settings)?;
    // The whole run, as runs.csv's `wall_time_s` (`experiment::rows`): not every system's
    // formulation times itself.
    stats.wall_time_s = start.elapsed().as_secs_f64();
    Ok(SingleOutcome {
        config,
        record,
        stats,
    })
}

/// The outcome as one JSON object: the system, the method, the integrator and its tolerances,
/// the configuration, the record (runs.csv's measured columns) and the work.
pub(crate) fn outcome_json<S: System>(
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
pub(crate) fn outcome_text<S: System>(
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
