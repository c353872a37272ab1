//! The form of a Dance experiment file, checked before it is read as a convergence study
//! (`crate::study::convergence`): `params.method` decides which rows there are, so the ladder
//! and the compliant starts must match it, and `[sweep] compliant` (a list of starts, each with
//! its dampings: not an axis of numbers) becomes `params.compliant`, which
//! [`System::configurations`](crate::experiment::system::System::configurations) turns into one
//! configuration per start and damping.

use crate::error::SimError;
use crate::experiment::grammar::SpecError;
use toml::{Table, Value};

fn invalid(source: SimError) -> SpecError {
    SpecError::Invalid {
        path: String::new(),
        source,
    }
}

/// `params.method = "incremental"`, refused.
pub(crate) fn incremental_refused() -> SimError {
    SimError::invalid(
        "params.method",
        "incremental",
        "Dance's particle is dynamic; use method = \"rigid\" or \"compliant\"",
    )
}

/// The experiment `table` as the convergence study reads it: its form checked against
/// `params.method`, `[sweep] compliant` moved to `params.compliant`, and the old name of the
/// one report (`analysis = "start_slide"`) dropped.
pub fn from_file(mut table: Table, _dir: Option<&std::path::Path>) -> Result<Table, SpecError> {
    if table.get("analysis").and_then(Value::as_str) == Some("start_slide") {
        table.remove("analysis");
    }
    let sweep = table.get("sweep").and_then(Value::as_table);
    let has = |key: &str| sweep.is_some_and(|s| s.contains_key(key));
    let (kappa, cases) = (has("kappa"), has("compliant"));
    let no_case = sweep
        .and_then(|s| s.get("compliant"))
        .and_then(Value::as_array)
        .is_none_or(|cases| {
            cases.iter().all(|c| {
                c.get("damping")
                    .and_then(Value::as_array)
                    .is_none_or(|d| d.is_empty())
            })
        });
    let mu_given = has("mu");
    let Some(params) = table.get_mut("params").and_then(Value::as_table_mut) else {
        return Ok(table);
    };
    for key in ["start", "damping", "compliant"] {
        if params.contains_key(key) {
            return Err(invalid(SimError::invalid(
                &format!("params.{key}"),
                "(set)",
                "an experiment lists its compliant starts in [sweep]: compliant = [{ start = \
                 \"rest\", damping = [1.0] }]",
            )));
        }
    }
    if !mu_given && !params.contains_key("mu") {
        return Err(invalid(SimError::invalid(
            "sweep.mu",
            "missing",
            "list the friction coefficients, e.g. mu = [1.0, 0.5]",
        )));
    }
    match params.get("method").and_then(Value::as_str) {
        Some("rigid") => {
            if kappa {
                return Err(invalid(SimError::invalid(
                    "sweep.kappa",
                    "a ladder",
                    "a rigid run has no compliance; remove sweep.kappa (or set params.method = \
                     \"compliant\")",
                )));
            }
            if cases {
                return Err(invalid(SimError::invalid(
                    "sweep.compliant",
                    "a list",
                    "compliant cases need params.method = \"compliant\"",
                )));
            }
            if params.contains_key("compliant_integrator") {
                return Err(invalid(SimError::invalid(
                    "params.compliant_integrator",
                    "an integrator",
                    "a rigid experiment has no compliant rows; remove it",
                )));
            }
        }
        Some("compliant") => {
            if !kappa {
                return Err(invalid(SimError::invalid(
                    "sweep.kappa",
                    "missing",
                    "a compliant experiment needs a κ ladder, e.g. kappa = { min = 1e-8, max = \
                     1e-2, per_decade = 2 }",
                )));
            }
            if no_case {
                return Err(invalid(SimError::invalid(
                    "sweep.compliant",
                    "no case",
                    "list at least one start with its dampings, e.g. [{ start = \"rest\", \
                     damping = [2.0] }]",
                )));
            }
        }
        Some("incremental") => return Err(invalid(incremental_refused())),
        // Anything else is refused by name when the table is read.
        _ => {}
    }
    let moved = table
        .get_mut("sweep")
        .and_then(Value::as_table_mut)
        .and_then(|s| s.remove("compliant"));
    if let (Some(cases), Some(params)) =
        (moved, table.get_mut("params").and_then(Value::as_table_mut))
    {
        params.insert("compliant".to_string(), cases);
    }
    Ok(table)
}
