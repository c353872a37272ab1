//! `rigid-limit simulate --system FILE`: one run of a described system, printed as a summary,
//! JSON (`--json`) or its sampled trajectory as CSV (`--csv`).

use super::description::Description;
use super::{run_record, with_system_file};
use crate::compliant::record::RunRecord;
use crate::error::number_text;
use crate::experiment::system::RunSettings;
use crate::report::table::{Cell, Table};
use std::fmt::Write;
use std::path::Path;

/// What `simulate --system` takes besides the file.
#[derive(Clone, Debug)]
pub struct SimulateOptions {
    pub kappa: f64,
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
    Ok(summary(label, o, names, contact, balance, &r))
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
    let mut out = String::new();
    let _ = writeln!(
        out,
        "described system {label}: κ = {}, coordinates ({})",
        number_text(o.kappa),
        names.join(", ")
    );
    let _ = writeln!(
        out,
        "integrator: {} (rtol {}, atol {})\n",
        r.integrator,
        number_text(o.settings.rtol),
        number_text(o.settings.atol)
    );
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
    let state: Vec<String> = names
        .iter()
        .zip(&r.final_q)
        .map(|(n, v)| format!("{n} = {v:.12}"))
        .chain(
            names
                .iter()
                .zip(&r.final_qdot)
                .map(|(n, v)| format!("{n}_dot = {v:.12}")),
        )
        .collect();
    let _ = writeln!(
        out,
        "final state (t = {:.12e}): {}",
        r.final_time,
        state.join("  ")
    );
    let _ = writeln!(
        out,
        "contact {contact}: normal impulse {:.9}  peak F_n {:.6e}  max penetration {:.6e}",
        r.impulse_normal, r.peak_normal_force, r.max_penetration
    );
    let _ = match balance {
        Some(b) => writeln!(out, "energy balance error {b:.2e}"),
        None => writeln!(
            out,
            "energy balance: not computed (the description has no potential)"
        ),
    };
    let _ = writeln!(out, "stats: {}", r.stats.summary());
    out
}
