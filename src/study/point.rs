//! One point of a study (`rigid-limit simulate SYSTEM` for a system whose runs are the points of
//! its own study: the planar fast-time contact, C–V's two slipping contacts, Schmid–Mielke's
//! particle, the rod's integrator scenarios): the experiment file with `--set` applied, one of
//! its points run as the runner runs it, and the row runs.csv would hold for it.

use crate::error::SimError;
use crate::experiment::runner::Plan;
use crate::experiment::table::Row;
use crate::study::single::{parse_sets, toml_table};

/// A point that ran: its position among the experiment's points and its row.
#[derive(Clone, Debug)]
pub struct PointRun {
    pub id: usize,
    /// How many points the experiment has.
    pub count: usize,
    /// runs.csv's columns, in order.
    pub columns: Vec<&'static str>,
    pub row: Row,
}

/// Run point `id` of `plan` (its `point_id`: the position in output order).
pub fn run_point<P: Plan>(plan: &P, id: usize) -> Result<PointRun, SimError> {
    let count = plan.points().count();
    let Some(point) = plan.points().nth(id) else {
        return Err(SimError::invalid(
            "--point",
            id,
            &format!(
                "experiment {} has {count} points: give a point_id from 0 to {}",
                plan.name(),
                count.saturating_sub(1)
            ),
        ));
    };
    Ok(PointRun {
        id,
        count,
        columns: plan.columns(),
        row: plan.run_point(&point),
    })
}

/// The experiment file `text` (named `label` in errors) with each `KEY=VALUE` of `sets` applied:
/// a plain KEY sets `[params]`, a dotted one the table it names (`sweep.law=["literal"]`,
/// `solver.rtol=1e-10`).
pub(crate) fn with_sets(text: &str, label: &str, sets: &[String]) -> Result<String, SimError> {
    let mut table = toml_table(text, label)?;
    for (set, (key, value)) in sets.iter().zip(parse_sets(sets)?) {
        let path: Vec<&str> = match key.split_once('.') {
            Some(_) => key.split('.').collect(),
            None => vec!["params", key.as_str()],
        };
        let (last, tables) = path.split_last().unwrap_or((&"", &[]));
        let mut at = &mut table;
        for (depth, name) in tables.iter().enumerate() {
            let entry = at
                .entry(name.to_string())
                .or_insert_with(|| toml::Value::Table(toml::Table::new()));
            at = entry.as_table_mut().ok_or_else(|| {
                SimError::invalid(
                    "--set",
                    set,
                    &format!(
                        "{} is no table in {label}; edit a copy of the file and pass it with --params",
                        tables[..=depth].join(".")
                    ),
                )
            })?;
        }
        at.insert(last.to_string(), value);
    }
    Ok(toml::to_string(&table).unwrap_or_default())
}

/// The row as `column = cell` lines under a heading that says which point of which file it is.
pub(crate) fn point_text(system: &str, label: &str, run: &PointRun) -> String {
    let mut out = format!(
        "{system}: point {} of {} of {label} (--point ID runs another, --params FILE another file)\n",
        run.id, run.count
    );
    for column in &run.columns {
        out.push_str(&format!("  {column} = {}\n", run.row.text(column)));
    }
    out
}

/// The row as JSON: `{"system", "experiment", "point_id", "points", "row": {column: cell}}`, a
/// cell that is a finite number as a number.
pub(crate) fn point_json(system: &str, label: &str, run: &PointRun) -> serde_json::Value {
    let row: serde_json::Map<String, serde_json::Value> = run
        .columns
        .iter()
        .map(|column| {
            let text = run.row.text(column);
            let value = match text.parse::<f64>() {
                Ok(x) if x.is_finite() => serde_json::json!(x),
                _ => serde_json::json!(text),
            };
            (column.to_string(), value)
        })
        .collect();
    serde_json::json!({
        "system": system,
        "experiment": label,
        "point_id": run.id,
        "points": run.count,
        "row": row,
    })
}
