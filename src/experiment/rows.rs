//! The rows of a κ sweep, shared by the studies whose runs.csv is "point, κ, inputs, settings,
//! status, measures, work, wall time" (the convergence study, the fast-time studies, the
//! two-contact study): the cells of one row before and after its run, and the columns.

use super::grammar::SolverSpec;
use super::table::{stat_counts, stat_fields, Fields, Row};
use crate::integrate::{IntegratorKind, SolverStats};

/// Cells of a row: (column, text).
pub type Cells = Vec<(&'static str, String)>;

/// The optional `[solver]` keys of a fast-time run (the mode table and its relatives): each run
/// lasts `window_scaled`·√κ, so `t_max` has no role.
pub(crate) const FAST_TIME_SOLVER_KEYS: &[&str] = &["window_scaled", "max_steps", "max_events"];

/// One run of a sweep: a configuration at one κ by one integrator.
#[derive(Clone, Debug, PartialEq)]
pub struct Point<C> {
    /// Position in the full grid: the output order and the resume key.
    pub id: usize,
    pub kappa: f64,
    pub config: C,
    pub integrator: IntegratorKind,
}

/// The cells a κ-sweep row holds before its run: point, κ, the inputs, the integrator and the
/// tolerances (compared on resume).
pub(crate) fn sweep_input_row(
    point_id: usize,
    kappa: f64,
    inputs: Cells,
    integrator: IntegratorKind,
    solver: &SolverSpec,
) -> Row {
    let mut row = Row {
        point_id,
        fields: Fields::with_capacity(SWEEP_ROW_CELLS),
    };
    // Numbers in their written form: the CSV line copies them as they are.
    row.fields.insert_display("point_id", &point_id);
    row.fields.insert_number("kappa", kappa);
    for (k, v) in &inputs {
        row.fields.insert_display(k, v);
    }
    row.fields.insert_display("integrator", &integrator);
    row.fields.insert_number("rtol", solver.rtol);
    row.fields.insert_number("atol", solver.atol);
    row
}

/// Room for the cells of a κ-sweep row (the rod's has 63), so that it is built without growing
/// (and so are its run's measured cells, a part of them).
pub(crate) const SWEEP_ROW_CELLS: usize = 64;

/// A κ-sweep row completed by its run's result: the status, the error or the measured cells
/// (`Cells`, or `Fields` a typed record was written into) and work counters, and the wall time
/// of the whole point since `start`.
pub(crate) fn finish_sweep_row(
    mut row: Row,
    result: Result<(impl Into<Fields>, SolverStats), String>,
    start: std::time::Instant,
) -> Row {
    let mut put = |k: &'static str, v: &dyn std::fmt::Display| {
        row.fields.insert_display(k, v);
    };
    match result {
        Err(e) => {
            put("status", &"error");
            put("error", &e);
        }
        Ok((cells, stats)) => {
            put("status", &"ok");
            row.fields.insert_all(&cells.into());
            for (k, v) in stat_counts(&stats) {
                row.fields.insert_display(k, &v);
            }
            // The whole point, whatever the model's own counters time.
            row.fields
                .insert_number("wall_time_s", start.elapsed().as_secs_f64());
        }
    }
    row
}

/// The columns of a κ sweep's runs.csv: point, κ, the inputs, the run's settings and status, the
/// measures, the work counters, the wall time.
pub(crate) fn sweep_columns(
    inputs: &[&'static str],
    measures: &[&'static str],
) -> Vec<&'static str> {
    let mut c = vec!["point_id", "kappa"];
    c.extend_from_slice(inputs);
    c.extend_from_slice(&["integrator", "rtol", "atol", "status", "error"]);
    c.extend_from_slice(measures);
    c.extend(stat_fields(&SolverStats::default()).map(|(k, _)| k));
    c.push("wall_time_s");
    c
}
