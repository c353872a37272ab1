//! `rigid-limit simulate`: one run of the rod from command-line flags, printed as a summary or
//! as one JSON object (its keys are frozen by tests/it/golden.rs).

use crate::cells;
use crate::compliant::record::RunRecord;
use crate::compliant::{EndCondition, SimulationOptions};
use crate::integrate::IntegratorKind;
use crate::models::rod::columns::PhaseDurations;
use crate::models::rod::limit::RigidLimit;
use crate::models::rod::mechanics::THETA;
use crate::models::rod::scenario::{RodImpact, Scenario};
use crate::models::rod::sweep::RodParams;
use crate::report::table::{Cell, Table};
use crate::study::single::{checked_run_flags, RunFlags};

/// The rod's own flags of `rigid-limit simulate` (its physics, scenario and `--repeat`); the
/// flags of any run are [`crate::study::single::RunFlags`]. Each is `None` unless given, so that
/// a flag given to another system is refused ([`RodFlags::given`]) rather than ignored; the
/// defaults are Zhao–Liu's impact's.
#[derive(clap::Args, Clone, Debug, Default)]
#[command(allow_negative_numbers = true)]
pub struct RodFlags {
    /// Kinetic friction coefficient μ > 0 [default: 2].
    #[arg(long, allow_hyphen_values = true)]
    pub mu: Option<f64>,
    /// Static friction coefficient μ_s ≥ μ (default: μ).
    #[arg(long, allow_hyphen_values = true)]
    pub mu_s: Option<f64>,
    /// Initial angle θ0 ∈ (0, π) between rod and ground (rad) [default: 1.3].
    #[arg(long, allow_hyphen_values = true)]
    pub theta0: Option<f64>,
    /// Initial angular velocity θ̇0 [default: 0].
    #[arg(long, allow_hyphen_values = true)]
    pub omega0: Option<f64>,
    /// Initial tangential velocity u0 of the contact point (negative: sliding left; a u0 within atol + rtol·abs(u0) of 0, which the integrator does not resolve from 0, starts at u = 0, where the friction cone chooses stick or slip) [default: -1].
    #[arg(long, allow_hyphen_values = true)]
    pub u0: Option<f64>,
    /// Dashpot coefficient c_d ≥ 0: F_n = max(0, δ/κ + c_d δ̇/√κ) [default: 0].
    #[arg(long, allow_hyphen_values = true)]
    pub damping: Option<f64>,
    /// Scenario: impact (put down at δ = δ̇ = 0, until separation), sustained (started at the
    /// quasi-static penetration, until --t-end) or drop (from --height, until --t-end)
    /// [default: impact].
    #[arg(long)]
    pub scenario: Option<String>,
    /// Drop height of the contact point (scenario drop; default 0.5).
    #[arg(long, allow_hyphen_values = true)]
    pub height: Option<f64>,
    /// Run the simulation this many times in one process and report the median of their
    /// wall times (warm caches, as a benchmark would: docs/performance.md); every other number
    /// is the same in every run [default: 1].
    #[arg(long, allow_hyphen_values = true)]
    pub repeat: Option<usize>,
}

impl RodFlags {
    /// The first of the rod's flags given, if any (`--mu`), for the refusal of a flag given to
    /// another system.
    pub fn given(&self) -> Option<&'static str> {
        let physics = self
            .physics()
            .into_iter()
            .map(|(flag, _, value)| (flag, value.is_some()));
        physics
            .chain([
                ("--scenario", self.scenario.is_some()),
                ("--height", self.height.is_some()),
                ("--repeat", self.repeat.is_some()),
            ])
            .find_map(|(flag, given)| given.then_some(flag))
    }

    /// The flags of the rod's `[params]`: (flag, key, value if given).
    fn physics(&self) -> [(&'static str, &'static str, Option<f64>); 6] {
        [
            ("--mu", "mu", self.mu),
            ("--mu-s", "mu_s", self.mu_s),
            ("--theta0", "theta0", self.theta0),
            ("--omega0", "omega0", self.omega0),
            ("--u0", "u0", self.u0),
            ("--damping", "damping", self.damping),
        ]
    }
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

/// What `simulate` prints for the rod's run `run` with its flags `rod`: the summary, the JSON
/// object or the trajectory's CSV.
pub fn simulate_output(run: &RunFlags, rod: &RodFlags) -> Result<String, String> {
    if run.method != "compliant" {
        return Err(format!(
            "invalid --method = {}: simulate runs the rod compliant (its rigid limit is in the output); --method is for a SYSTEM with a rigid reference (rigid-limit list)",
            run.method
        ));
    }
    let impact = impact_of(run, rod)?;
    let needs_end = |name: &str| {
        run.t_end.ok_or_else(|| {
            format!("--scenario {name} runs to a fixed time: give --t-end (e.g. --t-end 1)")
        })
    };
    if run.trajectory && !run.json {
        return Err(
            "--trajectory adds the sampled trajectory to the JSON: add --json (or print it alone with --csv)"
                .to_string(),
        );
    }
    let scenario_name = rod.scenario.as_deref().unwrap_or("impact");
    if let (Some(h), false) = (rod.height, scenario_name == "drop") {
        return Err(format!(
            "--height {} is the drop height of --scenario drop; remove it or add --scenario drop",
            crate::error::number_text(h)
        ));
    }
    let scenario = match scenario_name {
        "impact" => Scenario::Impact(impact),
        "sustained" => Scenario::Sustained {
            rod: impact,
            t_end: needs_end("sustained")?,
        },
        "drop" => Scenario::Drop {
            rod: impact,
            height: rod.height.unwrap_or(0.5),
            t_end: needs_end("drop")?,
        },
        other => {
            return Err(format!(
                "invalid --scenario = {other}: use impact, sustained or drop"
            ))
        }
    };
    scenario.validate(flag).map_err(|e| e.to_string())?;
    let integrator = checked_run_flags(run)?;
    let t_max = run.t_max.unwrap_or(10.0);
    let mut options = SimulationOptions::new(integrator, run.rtol, run.atol).with_guards(
        Some(t_max),
        Some(run.max_steps),
        Some(run.max_events),
    );
    options.record_trajectory = run.trajectory || run.csv;
    if let Some(t_end) = run.t_end {
        options.end = EndCondition::Time(t_end);
    }
    let repeat = rod.repeat.unwrap_or(1);
    if repeat == 0 {
        return Err("invalid --repeat = 0: give the number of runs to time, at least 1".into());
    }
    let mut record = scenario
        .simulate(&options)
        .map_err(|e| with_study_hint(e, &scenario, integrator))?;
    if repeat > 1 {
        let mut times = vec![record.stats.wall_time_s];
        for _ in 1..repeat {
            let again = scenario.simulate(&options).map_err(|e| e.to_string())?;
            times.push(again.stats.wall_time_s);
        }
        record.stats.wall_time_s = crate::analysis::work_precision::median(&mut times);
    }
    if run.json {
        let mut json = serde_json::json!({
            "scenario": scenario.name(),
            "case": impact.case(),
            "slide_coefficients": impact.slide_coefficients(),
            "params": impact,
            "integrator": record.integrator,
            "rtol": run.rtol,
            "atol": run.atol,
            "modes": &record.modes,
            "events": &record.events,
            "durations": PhaseDurations::of(&record.modes),
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
    } else if run.csv {
        Ok(trajectory_csv(
            record.trajectory.as_deref().unwrap_or_default(),
        ))
    } else {
        Ok(summary_text(&scenario, &impact, &record, run))
    }
}

/// The impact `run` and `rod` ask for, checked: the rod's flags (`simulate --mu 3`), or for `simulate rod`
/// the `[params]` of `--params FILE` and then each `--set KEY=VALUE` over the flags' defaults
/// (`simulate rod --set mu=3` is `simulate --mu 3`; μ_s is μ unless set). A key that is no
/// parameter of the rod is refused by name.
fn impact_of(run: &RunFlags, rod: &RodFlags) -> Result<RodImpact, String> {
    let zhao_liu = RodImpact::zhao_liu(run.kappa);
    let mu = rod.mu.unwrap_or(zhao_liu.mu);
    let impact = RodImpact {
        mu,
        mu_s: rod.mu_s.unwrap_or(mu),
        theta0: rod.theta0.unwrap_or(zhao_liu.theta0),
        omega0: rod.omega0.unwrap_or(zhao_liu.omega0),
        u0: rod.u0.unwrap_or(zhao_liu.u0),
        damping: rod.damping.unwrap_or(zhao_liu.damping),
        ..zhao_liu
    };
    if run.params.is_none() && run.sets.is_empty() {
        impact.validate(flag).map_err(|e| e.to_string())?;
        return Ok(impact);
    }
    // Zhao–Liu's impact, then the file's [params], then the flags given, then --set: a flag is
    // never dropped for a value from the file, and a parameter that a flag and --set both give
    // is refused.
    let mut params = toml::Table::new();
    for (key, value) in [
        ("mu", zhao_liu.mu),
        ("theta0", zhao_liu.theta0),
        ("omega0", zhao_liu.omega0),
        ("u0", zhao_liu.u0),
        ("damping", zhao_liu.damping),
    ] {
        params.insert(key.to_string(), toml::Value::Float(value));
    }
    let source = run
        .params
        .as_ref()
        .map(|path| format!("--params {}", path.display()));
    if let (Some(path), Some(source)) = (&run.params, &source) {
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("{source}: cannot read it: {e}"))?;
        params
            .extend(crate::study::single::params_table(&text, source).map_err(|e| e.to_string())?);
    }
    let sets = crate::study::single::parse_sets(&run.sets).map_err(|e| e.to_string())?;
    for (flag, key, value) in rod.physics() {
        let Some(value) = value else { continue };
        if sets.iter().any(|(k, _)| k == key) {
            return Err(format!(
                "{flag} {value} and --set {key}=… both set {key}: give it once"
            ));
        }
        params.insert(key.to_string(), toml::Value::Float(value));
    }
    let config: RodParams =
        crate::study::single::config_with_sets(params, source.as_deref(), &run.sets, "rod")
            .map_err(|e| e.to_string())?;
    let impact = config.impact_at(run.kappa);
    impact
        .validate(|name| match name {
            "kappa" => "--kappa".to_string(),
            other => format!("params.{other} (--set {other}=…)"),
        })
        .map_err(|e| e.to_string())?;
    Ok(impact)
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
fn summary_text(scenario: &Scenario, imp: &RodImpact, r: &RunRecord, run: &RunFlags) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let k = imp.slide_coefficients();
    let _ = write!(
        out,
        "Painlevé rod, compliant contact: κ = {:e}, μ = {}, μ_s = {}, c_d = {}",
        imp.kappa, imp.mu, imp.mu_s, imp.damping
    );
    // The uniform rod (ρ = 1/3, Zhao–Liu's) goes unsaid, as in the JSON.
    if imp.gyration_sq != crate::models::rod::mechanics::UNIFORM_GYRATION_SQ {
        let _ = write!(out, ", ρ = r²/l² = {}", imp.gyration_sq);
    }
    out.push('\n');
    let contact = match scenario {
        Scenario::Impact(_) if imp.start == crate::model::iwc::FastStart::REST => {
            "put down at δ = δ̇ = 0".to_string()
        }
        Scenario::Impact(_) => format!(
            "started at gap κY0 and normal velocity √κV0 with Y0 = {}, V0 = {}",
            imp.start.gap, imp.start.normal_velocity
        ),
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
        r.integrator, run.rtol, run.atol
    );
    out.push('\n');
    out.push_str(&r.phase_table());
    let d = PhaseDurations::of(&r.modes);
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
