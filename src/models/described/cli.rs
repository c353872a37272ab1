//! `rigid-limit simulate --system FILE`: one run of a described system, printed as a summary,
//! JSON (`--json`) or its sampled trajectory as CSV (`--csv`).

use super::description::{Compiled, Description};
use super::{run_hybrid_engine, run_record, with_system_file, HybridRun};
use crate::compliant::record::RunRecord;
use crate::error::number_text;
use crate::experiment::system::{Method, RunSettings};
use crate::report::table::{Cell, Table};
use crate::study::single::{checked_run_flags, RunFlags};
use std::fmt::Write;
use std::path::Path;

/// What `simulate --system` takes besides the file.
#[derive(Clone, Debug)]
pub struct SimulateOptions {
    pub kappa: f64,
    /// `--method`: compliant at `kappa`, or the rigid reference of a system of several contacts.
    pub method: Method,
    pub settings: RunSettings,
    pub json: bool,
    pub trajectory: bool,
    pub csv: bool,
}

/// The description in `path`: a system file (`systems/NAME.toml`, the keys of `[system]` at its
/// top level) or an experiment file with `model = "system"` (its `[system]`, or the file its
/// `system = "…"` names).
pub fn read_description(path: &Path) -> Result<Description, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    parse_description(&text, &path.display().to_string(), path.parent())
}

/// [`read_description`] of TOML text; `label` names it in messages, `dir` is where a
/// `system = "…"` file is looked up besides the working directory.
pub fn parse_description(
    text: &str,
    label: &str,
    dir: Option<&Path>,
) -> Result<Description, String> {
    let table: toml::Table = toml::from_str(text)
        .map_err(|e| format!("{label}: {}", e.to_string().trim().replace('\n', " ")))?;
    let system = if table.contains_key("model") {
        let mut table = with_system_file(table, dir).map_err(|e| e.to_string())?;
        match table.remove("system") {
            Some(toml::Value::Table(t)) => t,
            _ => {
                return Err(format!(
                    "{label}: an experiment file without a [system] table or a system = \"…\" file"
                ))
            }
        }
    } else {
        table
    };
    let d: Description = toml::Value::Table(system)
        .try_into()
        .map_err(|e: toml::de::Error| {
            format!("{label}: {}", e.to_string().trim().replace('\n', " "))
        })?;
    d.compile().map_err(|e| format!("{label}: {e}"))?;
    Ok(d)
}

/// Run the description `d` once (`label` names it: its file); the text to print.
pub fn simulate(d: &Description, label: &str, o: &SimulateOptions) -> Result<String, String> {
    crate::compliant::normal::require_resolvable_kappa("--kappa", o.kappa)
        .and_then(|k| {
            crate::compliant::normal::require_penetrating_less_than_the_body("--kappa", k)
        })
        .map_err(|e| e.to_string())?;
    if d.contacts.len() > 1 {
        return simulate_hybrid(d, label, o);
    }
    if o.method == Method::Rigid {
        return Err(format!(
            "invalid --method = rigid: {label} has one contact, and a described system has a rigid reference with several (docs/multi_contact.md); remove --method or give the system a second contact"
        ));
    }
    if d.contacts.iter().any(|c| c.tangents.len() == 2) {
        return simulate_hybrid(d, label, o);
    }
    let (compiled, r) =
        run_record(d, o.kappa, &o.settings, o.trajectory || o.csv).map_err(|e| e.to_string())?;
    let names = &compiled.coordinates;
    let contact = &compiled.contacts[0].name;
    let balance = compiled.potential.as_ref().map(|_| r.energy.balance_error);
    if o.json {
        let mut json = serde_json::json!({
            "system": label,
            "kappa": o.kappa,
            "coordinates": names,
            "parameters": &d.parameters,
            "integrator": r.integrator,
            "rtol": o.settings.rtol,
            "atol": o.settings.atol,
            "modes": &r.modes,
            "events": &r.events,
            "final_state": {"t": r.final_time, "q": &r.final_q, "q_dot": &r.final_qdot},
            "contacts": [{
                "name": contact,
                "impulse_normal": r.impulse_normal,
                "impulse_tangential": r.impulse_tangential,
                "peak_normal_force": r.peak_normal_force,
                "max_penetration": r.max_penetration,
            }],
            "energy_balance_error": balance,
            "stats": &r.stats,
        });
        if let Some(tr) = &r.trajectory {
            if o.trajectory {
                json["trajectory"] = serde_json::to_value(tr).map_err(|e| e.to_string())?;
            }
        }
        return Ok(crate::report::json::pretty(&json) + "\n");
    }
    if o.csv {
        return Ok(trajectory_csv(names, &r));
    }
    Ok(summary(&titled(label, d), o, names, contact, balance, &r))
}

/// The sampled trajectory: t, mode, the coordinates, their rates, the contact forces.
fn trajectory_csv(names: &[String], r: &RunRecord) -> String {
    let mut columns = vec!["t".to_string(), "mode".to_string()];
    columns.extend(names.iter().cloned());
    columns.extend(names.iter().map(|n| format!("{n}_dot")));
    columns.extend(["normal_force".to_string(), "tangential_force".to_string()]);
    let mut table = Table::new(columns);
    for p in r.trajectory.as_deref().unwrap_or_default() {
        let mut row = vec![Cell::from(p.t), Cell::from(p.mode.name())];
        row.extend(p.q.iter().chain(&p.qdot).map(Cell::from));
        row.extend([Cell::from(p.normal_force), Cell::from(p.tangential_force)]);
        table.push(row);
    }
    table.to_csv()
}

fn summary(
    label: &str,
    o: &SimulateOptions,
    names: &[String],
    contact: &str,
    balance: Option<f64>,
    r: &RunRecord,
) -> String {
    let mut out = header(label, o, names);
    out.push_str(&r.phase_table());
    let _ = writeln!(out, "\nevents:");
    for e in &r.events {
        let _ = writeln!(
            out,
            "  t = {:.15e}  {} at contact {contact} ({} → {})",
            e.t,
            e.event.name(),
            e.from.name(),
            e.to.name()
        );
    }
    out.push_str(&final_state(names, r.final_time, &r.final_q, &r.final_qdot));
    let _ = writeln!(
        out,
        "contact {contact}: normal impulse {:.9}  peak F_n {:.6e}  max penetration {:.6e}",
        r.impulse_normal, r.peak_normal_force, r.max_penetration
    );
    out.push_str(&energy_and_stats(balance, &r.stats));
    out
}

/// The system's label in the summary with the values of its parameters, those `--set` gave
/// included (`ball.toml (g = 2, mu = 0.5)`).
fn titled(label: &str, d: &Description) -> String {
    if d.parameters.is_empty() {
        return label.to_string();
    }
    let values: Vec<String> = d
        .parameters
        .iter()
        .map(|(k, v)| format!("{k} = {}", number_text(*v)))
        .collect();
    format!("{label} ({})", values.join(", "))
}

/// The summary's header: the system, κ, the coordinates and the integrator.
fn header(label: &str, o: &SimulateOptions, names: &[String]) -> String {
    format!(
        "described system {label}: {}, coordinates ({})\nintegrator: {} (rtol {}, atol {})\n\n",
        match o.method {
            Method::Compliant { kappa } => format!("κ = {}", number_text(kappa)),
            Method::Rigid => "rigid contacts".to_string(),
        },
        names.join(", "),
        o.settings.integrator,
        number_text(o.settings.rtol),
        number_text(o.settings.atol)
    )
}

/// The summary's line of the final state.
fn final_state(names: &[String], t: f64, q: &[f64], qdot: &[f64]) -> String {
    let state: Vec<String> = names
        .iter()
        .zip(q)
        .map(|(n, v)| format!("{n} = {v:.12}"))
        .chain(
            names
                .iter()
                .zip(qdot)
                .map(|(n, v)| format!("{n}_dot = {v:.12}")),
        )
        .collect();
    format!("final state (t = {t:.12e}): {}\n", state.join("  "))
}

/// The summary's last lines: the energy balance and the work counters.
fn energy_and_stats(balance: Option<f64>, stats: &crate::integrate::SolverStats) -> String {
    let energy = match balance {
        Some(b) => format!("energy balance error {b:.2e}"),
        None => "energy balance: not computed (the description has no potential)".to_string(),
    };
    format!("{energy}\nstats: {}\n", stats.summary())
}

/// `simulate --system` of a system of several contacts or of a spatial contact: the run on the
/// formulation `rigid-limit run` uses, printed with each contact's events and measurements.
fn simulate_hybrid(d: &Description, label: &str, o: &SimulateOptions) -> Result<String, String> {
    let method = o.method;
    let start = std::time::Instant::now();
    let (compiled, mut run) = run_hybrid_engine(d, method, &o.settings, o.trajectory || o.csv)
        .map_err(|e| e.to_string())?;
    run.stats.wall_time_s = start.elapsed().as_secs_f64();
    let names = &compiled.coordinates;
    let r = &run.record;
    if o.json {
        let contacts: Vec<serde_json::Value> = compiled
            .contacts
            .iter()
            .enumerate()
            .map(|(k, c)| {
                serde_json::json!({
                    "name": c.name,
                    "impulse_normal": r.impulse_normal[k],
                    "max_penetration": r.max_penetration[k],
                })
            })
            .collect();
        let mut json = serde_json::json!({
            "system": label,
            "method": method.name(),
            "kappa": match method {
                Method::Compliant { kappa } => Some(kappa),
                Method::Rigid => None,
            },
            "coordinates": names,
            "parameters": &d.parameters,
            "integrator": o.settings.integrator,
            "rtol": o.settings.rtol,
            "atol": o.settings.atol,
            "modes": &run.phases,
            "events": &run.events,
            "final_state": {"t": run.final_time, "q": &r.q_end, "q_dot": &r.q_dot_end},
            "contacts": contacts,
            "energy_balance_error": r.energy_balance_error,
            "stats": &run.stats,
        });
        if o.trajectory {
            json["trajectory"] = serde_json::to_value(&run.samples).map_err(|e| e.to_string())?;
        }
        return Ok(crate::report::json::pretty(&json) + "\n");
    }
    if o.csv {
        return Ok(contacts_csv(&compiled, &run));
    }
    let mut out = header(&titled(label, d), o, names);
    let _ = writeln!(
        out,
        "{:<16} {:>22} {:>22} {:>22}",
        "mode", "t_start", "t_end", "duration"
    );
    for p in &run.phases {
        let _ = writeln!(
            out,
            "{:<16} {:>22.15e} {:>22.15e} {:>22.15e}",
            p.mode, p.t_start, p.t_end, p.duration
        );
    }
    let _ = writeln!(out, "\nevents:");
    for e in &run.events {
        let _ = writeln!(
            out,
            "  t = {:.15e}  {} at contact {} ({} → {})",
            e.t, e.event, e.contact, e.from, e.to
        );
    }
    out.push_str(&final_state(names, run.final_time, &r.q_end, &r.q_dot_end));
    for (k, c) in compiled.contacts.iter().enumerate() {
        let _ = writeln!(
            out,
            "contact {}: normal impulse {:.9}  max penetration {:.6e}",
            c.name, r.impulse_normal[k], r.max_penetration[k]
        );
    }
    out.push_str(&energy_and_stats(r.energy_balance_error, &run.stats));
    Ok(out)
}

/// The sampled trajectory of several contacts or of a spatial one: t, mode, the coordinates,
/// their rates, then each contact's normal force and tangential force
/// (`tangential_force_<name>`, or a spatial contact's `_1` and `_2` components).
fn contacts_csv(compiled: &Compiled, run: &HybridRun) -> String {
    let names = &compiled.coordinates;
    let mut columns = vec!["t".to_string(), "mode".to_string()];
    columns.extend(names.iter().cloned());
    columns.extend(names.iter().map(|n| format!("{n}_dot")));
    columns.extend(
        compiled
            .contacts
            .iter()
            .map(|c| format!("normal_force_{}", c.name)),
    );
    for c in &compiled.contacts {
        match c.second_tangent {
            None => columns.push(format!("tangential_force_{}", c.name)),
            Some(_) => columns.extend((1..=2).map(|j| format!("tangential_force_{}_{j}", c.name))),
        }
    }
    let mut table = Table::new(columns);
    for p in &run.samples {
        let mut row = vec![Cell::from(p.t), Cell::from(p.mode)];
        row.extend(
            p.q.iter()
                .chain(&p.qdot)
                .chain(&p.normal_force)
                .chain(&p.tangential_force)
                .map(Cell::from),
        );
        table.push(row);
    }
    table.to_csv()
}

/// The description `d` (from file `label`) with the parameters `--set KEY=VALUE` gives; a key that
/// is no parameter of the description, a value that is no number, `--params` (a description
/// holds its own parameters) or `--point` (it has no study's points) is refused by name.
fn with_parameters_set(
    d: &Description,
    label: &str,
    args: &RunFlags,
) -> Result<Description, String> {
    if args.point != 0 {
        return Err(format!(
            "--point {}: a described system runs its one configuration ({label}); --point runs one point of a study's system (rigid-limit simulate --help)",
            args.point
        ));
    }
    if let Some(path) = &args.params {
        return Err(format!(
            "--params {}: a described system takes its parameters from its file ({label}); change one with --set KEY=VALUE",
            path.display()
        ));
    }
    let mut d = d.clone();
    for (key, value) in crate::study::single::parse_sets(&args.sets).map_err(|e| e.to_string())? {
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
    d: &Description,
    label: &str,
    args: &RunFlags,
) -> Result<String, String> {
    if args.trajectory && !args.json {
        return Err(
            "--trajectory adds the sampled trajectory to the JSON: add --json (or print it alone with --csv)"
                .to_string(),
        );
    }
    let integrator = checked_run_flags(args)?;
    let method = args.method()?;
    let d = with_parameters_set(d, label, args)?;
    let options = SimulateOptions {
        kappa: args.kappa,
        method,
        settings: args.settings(integrator, Some(args.max_steps), Some(args.max_events)),
        json: args.json,
        trajectory: args.trajectory,
        csv: args.csv,
    };
    simulate(&d, label, &options)
}
