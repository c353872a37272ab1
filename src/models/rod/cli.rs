//! `rigid-limit simulate`: one run of the rod from command-line flags, printed as a summary or
//! as one JSON object (its keys are frozen by tests/it/golden.rs).

use crate::cells;
use crate::compliant::record::RunRecord;
use crate::compliant::{EndCondition, SimulationOptions};
use crate::integrate::IntegratorKind;
use crate::models::rod::limit::RigidLimit;
use crate::models::rod::mechanics::THETA;
use crate::models::rod::scenario::{RodImpact, Scenario};
use crate::report::table::{Cell, Table};

#[derive(clap::Args)]
#[command(allow_negative_numbers = true)]
pub struct SimulateArgs {
    /// The system to run once: `rod` (the default: its flags below) or any system of
    /// `rigid-limit list`: one configuration, its example's `[params]` changed by --set and
    /// --params (e.g. `spring_particle`, `klarbring`), or for `planar`, `two_contact`,
    /// `schmid_mielke` and `rod_scenario` one point of their study (--point).
    #[arg(
        value_name = "SYSTEM",
        conflicts_with_all = ["mu", "mu_s", "theta0", "omega0", "u0", "damping", "scenario", "height", "repeat", "trajectory", "csv", "system"]
    )]
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
    /// system run as one point of its study, the whole file: `rigid-limit list` marks them).
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
    /// Kinetic friction coefficient μ > 0.
    #[arg(long, allow_hyphen_values = true, default_value_t = 2.0)]
    mu: f64,
    /// Static friction coefficient μ_s ≥ μ (default: μ).
    #[arg(long, allow_hyphen_values = true)]
    mu_s: Option<f64>,
    /// Initial angle θ0 ∈ (0, π) between rod and ground (rad).
    #[arg(long, allow_hyphen_values = true, default_value_t = 1.3)]
    theta0: f64,
    /// Initial angular velocity θ̇0.
    #[arg(long, allow_hyphen_values = true, default_value_t = 0.0)]
    omega0: f64,
    /// Initial tangential velocity u0 of the contact point (negative: sliding left; a u0 within atol + rtol·abs(u0) of 0, which the integrator does not resolve from 0, starts at u = 0, where the friction cone chooses stick or slip).
    #[arg(long, allow_hyphen_values = true, default_value_t = -1.0)]
    u0: f64,
    /// Dashpot coefficient c_d ≥ 0: F_n = max(0, δ/κ + c_d δ̇/√κ).
    #[arg(long, allow_hyphen_values = true, default_value_t = 0.0)]
    damping: f64,
    /// Scenario: impact (put down at δ = δ̇ = 0, until separation), sustained (started at the
    /// quasi-static penetration, until --t-end) or drop (from --height, until --t-end).
    #[arg(long, default_value = "impact")]
    scenario: String,
    /// Drop height of the contact point (scenario drop; default 0.5).
    #[arg(long, allow_hyphen_values = true)]
    height: Option<f64>,
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
    /// Run the simulation this many times in one process and report the median of their
    /// wall times (warm caches, as a benchmark would: docs/performance.md); every other number
    /// is the same in every run.
    #[arg(long, allow_hyphen_values = true, default_value_t = 1)]
    repeat: usize,
    /// Print one JSON object instead of the summary.
    #[arg(long)]
    pub json: bool,
    /// Include the sampled trajectory (step ends and events) in the JSON.
    #[arg(long)]
    trajectory: bool,
    /// Print the sampled trajectory (step ends and events) as CSV instead of the summary:
    /// t, mode, x_A, y_A, θ, their rates, F_n, F_t.
    #[arg(long, conflicts_with = "json")]
    csv: bool,
    /// Run a described system instead of the rod: a system file (systems/NAME.toml) or an
    /// experiment file with model = "system" (docs/described_systems.md).
    #[arg(
        long,
        conflicts_with_all = ["mu", "mu_s", "theta0", "omega0", "u0", "damping", "scenario", "height", "repeat"]
    )]
    system: Option<std::path::PathBuf>,
}

/// The columns of `simulate --csv`.
pub(crate) const TRAJECTORY_CSV_COLUMNS: [&str; 10] = [
    "t",
    "mode",
    "x_A",
    "y_A",
    "theta",
    "xdot_A",
    "ydot_A",
    "thetadot",
    "normal_force",
    "tangential_force",
];

/// The CLI flag for a parameter name.
fn flag(name: &str) -> String {
    format!("--{}", name.replace('_', "-"))
}

/// What `simulate` prints for `args`: the summary, the JSON object or the trajectory's CSV.
pub fn simulate_output(args: &SimulateArgs) -> Result<String, String> {
    if let Some(path) = &args.system {
        let d = crate::models::described::cli::read_description(path)?;
        return simulate_description(&d, &path.display().to_string(), args);
    }
    if args.method != "compliant" {
        return Err(format!(
            "invalid --method = {}: simulate runs the rod compliant (its rigid limit is in the output); --method is for a SYSTEM with a rigid reference (rigid-limit list)",
            args.method
        ));
    }
    let impact = RodImpact {
        kappa: args.kappa,
        mu: args.mu,
        mu_s: args.mu_s.unwrap_or(args.mu),
        theta0: args.theta0,
        omega0: args.omega0,
        u0: args.u0,
        damping: args.damping,
        ..RodImpact::zhao_liu(args.kappa)
    };
    impact.validate(flag).map_err(|e| e.to_string())?;
    let needs_end = |name: &str| {
        args.t_end.ok_or_else(|| {
            format!("--scenario {name} runs to a fixed time: give --t-end (e.g. --t-end 1)")
        })
    };
    if args.trajectory && !args.json {
        return Err(
            "--trajectory adds the sampled trajectory to the JSON: add --json (or print it alone with --csv)"
                .to_string(),
        );
    }
    if let (Some(h), false) = (args.height, args.scenario == "drop") {
        return Err(format!(
            "--height {} is the drop height of --scenario drop; remove it or add --scenario drop",
            crate::error::number_text(h)
        ));
    }
    let scenario = match args.scenario.as_str() {
        "impact" => Scenario::Impact(impact),
        "sustained" => Scenario::Sustained {
            rod: impact,
            t_end: needs_end("sustained")?,
        },
        "drop" => Scenario::Drop {
            rod: impact,
            height: args.height.unwrap_or(0.5),
            t_end: needs_end("drop")?,
        },
        other => {
            return Err(format!(
                "invalid --scenario = {other}: use impact, sustained or drop"
            ))
        }
    };
    scenario.validate(flag).map_err(|e| e.to_string())?;
    let integrator = checked_run_flags(args)?;
    let t_max = args.t_max.unwrap_or(10.0);
    let mut options = SimulationOptions::new(integrator, args.rtol, args.atol).with_guards(
        Some(t_max),
        Some(args.max_steps),
        Some(args.max_events),
    );
    options.record_trajectory = args.trajectory || args.csv;
    if let Some(t_end) = args.t_end {
        options.end = EndCondition::Time(t_end);
    }
    if args.repeat == 0 {
        return Err("invalid --repeat = 0: give the number of runs to time, at least 1".into());
    }
    let mut record = scenario
        .simulate(&options)
        .map_err(|e| with_study_hint(e, &scenario, integrator))?;
    if args.repeat > 1 {
        let mut times = vec![record.stats.wall_time_s];
        for _ in 1..args.repeat {
            let again = scenario.simulate(&options).map_err(|e| e.to_string())?;
            times.push(again.stats.wall_time_s);
        }
        record.stats.wall_time_s = crate::analysis::work_precision::median(&mut times);
    }
    if args.json {
        let mut json = serde_json::json!({
            "scenario": scenario.name(),
            "case": impact.case(),
            "slide_coefficients": impact.slide_coefficients(),
            "params": impact,
            "integrator": record.integrator,
            "rtol": args.rtol,
            "atol": args.atol,
            "modes": &record.modes,
            "events": &record.events,
            "durations": &record.durations,
            "separated": record.separated,
            "post_impact": post_impact_json(&record),
            "impulse_normal": record.impulse_normal,
            "impulse_tangential": record.impulse_tangential,
            "peak_normal_force": record.peak_normal_force,
            "max_penetration": record.max_penetration,
            "energy": &record.energy,
            "stats": &record.stats,
            "final_state": {"t": record.final_time, "q": &record.final_q, "qdot": &record.final_qdot},
            // The rigid limit of Zhao–Liu's impact; null for the other scenarios.
            "rigid_limit": matches!(scenario, Scenario::Impact(_)).then(|| RigidLimit::of(&impact)).flatten(),
        });
        if let Some(tr) = &record.trajectory {
            json["trajectory"] = serde_json::to_value(tr).map_err(|e| e.to_string())?;
        }
        Ok(crate::report::json::pretty(&json) + "\n")
    } else if args.csv {
        Ok(trajectory_csv(
            record.trajectory.as_deref().unwrap_or_default(),
        ))
    } else {
        Ok(summary_text(&scenario, &impact, &record, args))
    }
}

/// The flags of a run that are not physics, checked: the integrator, the tolerances, the end
/// (`--t-max` or `--t-end`, positive) and the guards.
pub fn checked_run_flags(args: &SimulateArgs) -> Result<IntegratorKind, String> {
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

/// Refuses the run flags for a system run as one point of its study, `name`: its method,
/// compliance, integrator, tolerances and guards are its experiment file's.
pub(crate) fn refuse_run_flags_of_a_study(name: &str, args: &SimulateArgs) -> Result<(), String> {
    use clap::{Args, FromArgMatches};
    let defaults = SimulateArgs::augment_args(clap::Command::new("simulate"))
        .try_get_matches_from(["simulate", name])
        .and_then(|matches| SimulateArgs::from_arg_matches(&matches))
        .map_err(|e| e.to_string())?;
    let given = [
        ("--method", args.method != defaults.method),
        ("--kappa", args.kappa != defaults.kappa),
        ("--integrator", args.integrator != defaults.integrator),
        ("--rtol", args.rtol != defaults.rtol),
        ("--atol", args.atol != defaults.atol),
        ("--t-end", args.t_end.is_some()),
        ("--t-max", args.t_max.is_some()),
        ("--max-steps", args.max_steps != defaults.max_steps),
        ("--max-events", args.max_events != defaults.max_events),
    ];
    match given.iter().find(|(_, given)| *given) {
        Some((flag, _)) => Err(format!(
            "{flag}: system {name} runs one point of its experiment file, whose [params], [sweep] and [solver] set how it runs: change them with --set KEY=VALUE, --set sweep.KEY=VALUE or --set solver.KEY=VALUE, or give another file with --params"
        )),
        None => Ok(()),
    }
}

/// The description `d` (from file `label`) with the parameters `--set KEY=VALUE` gives; a key that
/// is no parameter of the description, a value that is no number, or `--params` (a description
/// holds its own parameters) is refused by name.
fn with_parameters_set(
    d: &crate::models::described::description::Description,
    label: &str,
    args: &SimulateArgs,
) -> Result<crate::models::described::description::Description, String> {
    if let Some(path) = &args.params {
        return Err(format!(
            "--params {}: a described system takes its parameters from its file ({label}); change one with --set KEY=VALUE",
            path.display()
        ));
    }
    let mut d = d.clone();
    for set in &args.sets {
        let (key, value) = crate::study::single::parse_set(set).map_err(|e| e.to_string())?;
        let number = match value {
            toml::Value::Float(x) => x,
            toml::Value::Integer(n) => n as f64,
            other => {
                return Err(format!(
                    "invalid --set {key} = {other}: a parameter of {label} is a number"
                ))
            }
        };
        if !number.is_finite() {
            return Err(format!(
                "invalid --set {key} = {number}: a parameter of {label} is a finite number"
            ));
        }
        if !d.parameters.contains_key(&key) {
            let names: Vec<&str> = d.parameters.keys().map(String::as_str).collect();
            return Err(format!(
                "invalid --set {key}: {label} has no parameter {key} (its parameters: {})",
                names.join(", ")
            ));
        }
        d.parameters.insert(key, number);
    }
    Ok(d)
}

/// `simulate --system FILE` of the description `d` (`label` names it in messages): the flags
/// that are not the rod's physics.
pub fn simulate_description(
    d: &crate::models::described::description::Description,
    label: &str,
    args: &SimulateArgs,
) -> Result<String, String> {
    use crate::models::described::cli::{simulate, SimulateOptions};
    if args.trajectory && !args.json {
        return Err(
            "--trajectory adds the sampled trajectory to the JSON: add --json (or print it alone with --csv)"
                .to_string(),
        );
    }
    let integrator = checked_run_flags(args)?;
    let method = match args.method.as_str() {
        "compliant" => crate::experiment::system::Method::Compliant { kappa: args.kappa },
        "rigid" => crate::experiment::system::Method::Rigid,
        other => {
            return Err(format!(
                "invalid --method = {other}: use compliant or rigid"
            ))
        }
    };
    let d = with_parameters_set(d, label, args)?;
    let options = SimulateOptions {
        kappa: args.kappa,
        method,
        settings: crate::experiment::system::RunSettings {
            integrator,
            rtol: args.rtol,
            atol: args.atol,
            t_max: args.t_max,
            t_end: args.t_end,
            max_steps: Some(args.max_steps),
            max_events: Some(args.max_events),
        },
        json: args.json,
        trajectory: args.trajectory,
        csv: args.csv,
    };
    simulate(&d, label, &options)
}

/// The integrators the integrator study names cheapest at some target accuracy for each of its
/// scenarios (results/integrators/summary.md, "Recommendation"; experiments/integrators.toml):
/// dop853 and tsit5 for the impact, also radau5 and rodas4 in sustained contact and the drop
/// (at κ ≤ 1e-5). The study never recommends bdf, tr-bdf2, esdirk34 or tsit45.
fn study_recommends(scenario: &Scenario) -> &'static [&'static str] {
    match scenario {
        Scenario::Impact(_) => &["dop853", "tsit5"],
        _ => &["dop853", "tsit5", "radau5", "rodas4"],
    }
}

/// An integrator failure with the integrators the study found to work for the scenario.
fn with_study_hint(
    error: crate::error::SimError,
    scenario: &Scenario,
    integrator: IntegratorKind,
) -> String {
    let message = error.to_string();
    if !matches!(error, crate::error::SimError::SolverFailed { .. }) {
        return message;
    }
    let others: Vec<&str> = study_recommends(scenario)
        .iter()
        .copied()
        .filter(|name| *name != integrator.name())
        .collect();
    format!(
        "{message}; the integrator study (results/integrators/summary.md) found {} to work for the {} scenario: try --integrator {}",
        others.join(", "),
        scenario.name(),
        others.first().copied().unwrap_or("dop853")
    )
}

/// The trajectory as CSV, one line per sample.
fn trajectory_csv(samples: &[crate::compliant::record::Sample]) -> String {
    let mut table = Table::new(TRAJECTORY_CSV_COLUMNS);
    for p in samples {
        let mut row = cells![p.t, p.mode.name()].to_vec();
        row.extend(p.q.iter().chain(&p.qdot).map(Cell::from));
        row.extend(cells![p.normal_force, p.tangential_force]);
        table.push(row);
    }
    table.to_csv()
}

fn post_impact_json(record: &RunRecord) -> serde_json::Value {
    match &record.post_impact {
        Some(p) => serde_json::json!({"u": p.u, "v": p.v, "omega": p.qdot[THETA], "t": p.t}),
        None => serde_json::Value::Null,
    }
}

/// The human-readable summary of one run.
fn summary_text(
    scenario: &Scenario,
    imp: &RodImpact,
    r: &RunRecord,
    args: &SimulateArgs,
) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let k = imp.slide_coefficients();
    let _ = writeln!(
        out,
        "Painlevé rod, compliant contact: κ = {:e}, μ = {}, μ_s = {}, c_d = {}",
        imp.kappa, imp.mu, imp.mu_s, imp.damping
    );
    let contact = match scenario {
        Scenario::Impact(_) => "put down at δ = δ̇ = 0".to_string(),
        Scenario::Sustained { .. } => "started at the quasi-static penetration".to_string(),
        Scenario::Drop { height, .. } => format!("contact point dropped from height {height}"),
    };
    let _ = writeln!(
        out,
        "initial state ({}): θ0 = {}, θ̇0 = {}, u0 = {}, {contact}",
        scenario.name(),
        imp.theta0,
        imp.omega0,
        imp.u0
    );
    let _ = writeln!(
        out,
        "Zhao–Liu eq. (11): A = {:.6}, B = {:.6}, C = {:.6}, D = {:.6}, P = {:.6}",
        k.a, k.b, k.c, k.d, k.p
    );
    let _ = writeln!(out, "case: {}", imp.case().describe());
    let _ = writeln!(
        out,
        "integrator: {} (rtol {:e}, atol {:e})",
        r.integrator, args.rtol, args.atol
    );
    out.push('\n');
    out.push_str(&r.phase_table());
    let d = &r.durations;
    let sk = imp.kappa.sqrt();
    let is_impact = matches!(scenario, Scenario::Impact(_));
    out.push('\n');
    let _ = writeln!(
        out,
        "durations: slide {:.12e}  stick {:.12e}  reverse slip {:.12e}",
        d.slide, d.stick, d.reverse_slip
    );
    if is_impact {
        // Zhao–Liu's scalings of one impact's phases (docs/model.md).
        let _ = writeln!(
            out,
            "scaled:    T_slide/(√κ ln(1/√κ)) {:.9}  T_stick/√κ {:.9}  T_rev/κ {:.9}",
            d.slide / (sk * (1.0 / sk).ln()),
            d.stick / sk,
            d.reverse_slip / imp.kappa
        );
    }
    if let Some(p) = &r.post_impact {
        let _ = writeln!(
            out,
            "post-impact (t = {:.9e}): u = {:.9}  v = {:.9}  θ̇ = {:.9}",
            p.t, p.u, p.v, p.qdot[THETA]
        );
    }
    let _ = writeln!(
        out,
        "normal impulse {:.9}  peak F_n {:.6e}  max penetration {:.6e}",
        r.impulse_normal, r.peak_normal_force, r.max_penetration
    );
    let e = &r.energy;
    let _ = writeln!(
        out,"energy: initial {:.12}  final {:.12}  friction work {:.9}  damping work {:.9}  balance error {:.2e}", e.initial_total, e.final_total, e.friction_work, e.damping_work, e.balance_error);
    if let Some(l) = RigidLimit::of(imp).filter(|_| is_impact) {
        let _ = writeln!(
        out,"rigid limit (doc formulas): T_stick/√κ → {:.9}  T_rev/κ → {:.9}  v_out → {:.9}  θ̇_out → {:.9}", l.stick_duration_scaled, l.reverse_slip_duration_scaled, l.v_out, l.omega_out);
    }
    let _ = writeln!(out, "stats: {}", r.stats.summary());
    out
}
