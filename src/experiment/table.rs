//! The tidy table of runs: one row per run, every input and every measured quantity. Written as
//! CSV, read back for resume, merge and analysis.

use super::spec::Point;
use crate::compliant::record::RunRecord;
use crate::integrate::SolverStats;
use crate::models::rod::mechanics::THETA;
use std::collections::BTreeMap;

/// Column names of a κ sweep's (or an atlas's) runs.csv, in order.
pub const SWEEP_COLUMNS: &[&str] = &[
    "point_id",
    "kappa",
    "mu",
    "mu_s",
    "theta0",
    "omega0",
    "u0",
    "damping",
    "integrator",
    "rtol",
    "atol",
    "status",
    "error",
    "case",
    "mode_sequence",
    "n_events",
    "t_slide",
    "t_stick",
    "t_reverse_slip",
    "theta_slide_end",
    "omega_slide_end",
    "separated",
    "t_separation",
    "u_out",
    "v_out",
    "omega_out",
    "impulse_normal",
    "impulse_tangential",
    "peak_normal_force",
    "max_penetration",
    "energy_initial",
    "energy_final",
    "friction_work",
    "damping_work",
    "separation_loss",
    "energy_balance_error",
    "steps",
    "rejected_steps",
    "rhs_evals",
    "jvp_evals",
    "jacobian_evals",
    "lu_factorisations",
    "newton_iterations",
    "wall_time_s",
];

/// One row: column name → text.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub point_id: usize,
    pub fields: BTreeMap<&'static str, String>,
}

impl Row {
    /// The row of one run (a failed run keeps its inputs and its error).
    pub fn of(point: &Point, rtol: f64, atol: f64, result: &Result<RunRecord, String>) -> Row {
        let imp = &point.impact;
        let mut f: BTreeMap<&'static str, String> = BTreeMap::new();
        let mut put = |k: &'static str, v: String| {
            f.insert(k, v);
        };
        put("point_id", point.id.to_string());
        put("kappa", imp.kappa.to_string());
        put("mu", imp.mu.to_string());
        put("mu_s", imp.mu_s.to_string());
        put("theta0", imp.theta0.to_string());
        put("omega0", imp.omega0.to_string());
        put("u0", imp.u0.to_string());
        put("damping", imp.damping.to_string());
        put("integrator", point.integrator.to_string());
        put("rtol", rtol.to_string());
        put("atol", atol.to_string());
        put("case", format!("{:?}", imp.case()).to_lowercase());
        match result {
            Err(e) => {
                put("status", "error".into());
                put("error", e.clone());
            }
            Ok(r) => {
                put("status", "ok".into());
                put(
                    "mode_sequence",
                    r.modes
                        .iter()
                        .map(|m| m.mode.name())
                        .collect::<Vec<_>>()
                        .join(">"),
                );
                put("n_events", r.events.len().to_string());
                put("t_slide", r.durations.slide.to_string());
                put("t_stick", r.durations.stick.to_string());
                put("t_reverse_slip", r.durations.reverse_slip.to_string());
                // The attitude where the first slide ends: where the hypotheses (eq. 19) of the
                // Zhao–Liu slide bounds bind.
                if let Some(m) = r.modes.first().filter(|m| m.mode.slip_sign() != 0) {
                    put("theta_slide_end", m.q_end[THETA].to_string());
                    put("omega_slide_end", m.qdot_end[THETA].to_string());
                }
                put("separated", r.separated.to_string());
                if let Some(p) = &r.post_impact {
                    put("t_separation", p.t.to_string());
                    put("u_out", p.u.to_string());
                    put("v_out", p.v.to_string());
                    put(
                        "omega_out",
                        p.omega.map(|w| w.to_string()).unwrap_or_default(),
                    );
                }
                put("impulse_normal", r.impulse_normal.to_string());
                put("impulse_tangential", r.impulse_tangential.to_string());
                put("peak_normal_force", r.peak_normal_force.to_string());
                put("max_penetration", r.max_penetration.to_string());
                let e = &r.energy;
                put("energy_initial", e.initial_total.to_string());
                put("energy_final", e.final_total.to_string());
                put("friction_work", e.friction_work.to_string());
                put("damping_work", e.damping_work.to_string());
                put("separation_loss", e.separation_loss.to_string());
                put("energy_balance_error", e.balance_error.to_string());
                for (k, v) in stat_fields(&r.stats) {
                    put(k, v);
                }
                put("wall_time_s", r.stats.wall_time_s.to_string());
            }
        }
        Row {
            point_id: point.id,
            fields: f,
        }
    }

    /// A numeric field, if present and parseable.
    pub fn number(&self, column: &str) -> Option<f64> {
        self.fields.get(column).and_then(|v| v.parse().ok())
    }

    pub fn text(&self, column: &str) -> &str {
        self.fields.get(column).map(String::as_str).unwrap_or("")
    }

    /// One CSV line (no newline) with `columns`.
    pub fn to_csv_line(&self, columns: &[&'static str]) -> String {
        let cells: Vec<String> = columns
            .iter()
            .map(|c| quote(self.fields.get(c).map(String::as_str).unwrap_or("")))
            .collect();
        cells.join(",")
    }

    /// Parse a CSV line written by [`Row::to_csv_line`] with the same `columns` (the first is the
    /// point id); `None` for a torn or foreign line.
    pub fn from_csv_line(line: &str, columns: &[&'static str]) -> Option<Row> {
        let cells = split_csv_line(line)?;
        if cells.len() != columns.len() {
            return None;
        }
        let point_id = cells[0].parse().ok()?;
        let fields = columns
            .iter()
            .zip(cells)
            .filter(|(_, v)| !v.is_empty())
            .map(|(&k, v)| (k, v))
            .collect();
        Some(Row { point_id, fields })
    }
}

/// The work counters of a run as (column, text), in column order.
pub fn stat_fields(s: &SolverStats) -> [(&'static str, String); 7] {
    [
        ("steps", s.steps.to_string()),
        ("rejected_steps", s.rejected_steps.to_string()),
        ("rhs_evals", s.rhs_evals.to_string()),
        ("jvp_evals", s.jvp_evals.to_string()),
        ("jacobian_evals", s.jacobian_evals.to_string()),
        ("lu_factorisations", s.lu_factorisations.to_string()),
        ("newton_iterations", s.newton_iterations.to_string()),
    ]
}

/// The CSV header line.
pub fn header_line(columns: &[&str]) -> String {
    columns.join(",")
}

/// Quote a cell when it holds a comma, a quote or a line break (RFC 4180).
fn quote(cell: &str) -> String {
    if cell.contains([',', '"', '\n', '\r']) {
        format!(
            "\"{}\"",
            cell.replace('"', "\"\"").replace(['\n', '\r'], " ")
        )
    } else {
        cell.to_string()
    }
}

fn split_csv_line(line: &str) -> Option<Vec<String>> {
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                cell.push('"');
                chars.next();
            }
            (true, '"') => quoted = false,
            (false, '"') if cell.is_empty() => quoted = true,
            (false, ',') => cells.push(std::mem::take(&mut cell)),
            (_, c) => cell.push(c),
        }
    }
    if quoted {
        return None;
    }
    cells.push(cell);
    Some(cells)
}

/// Read the rows of a runs.csv (or journal) text written with `columns`; lines that do not
/// parse are skipped, and a file with another header yields nothing.
pub fn parse_rows(text: &str, columns: &[&'static str]) -> Vec<Row> {
    let mut lines = text.lines();
    match lines.next() {
        Some(h) if h == header_line(columns) => lines
            .filter_map(|line| Row::from_csv_line(line, columns))
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_lines_round_trip_with_commas_and_quotes() {
        let mut fields = BTreeMap::new();
        fields.insert("point_id", "7".to_string());
        fields.insert("error", "integrator \"bdf\" failed, at t = 1".to_string());
        fields.insert("kappa", "1e-8".to_string());
        let row = Row {
            point_id: 7,
            fields,
        };
        let back = Row::from_csv_line(&row.to_csv_line(SWEEP_COLUMNS), SWEEP_COLUMNS).unwrap();
        assert_eq!(back, row);
        assert!(Row::from_csv_line("7,\"torn", SWEEP_COLUMNS).is_none());
    }
}
