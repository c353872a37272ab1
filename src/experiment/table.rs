//! The tidy table of runs: one row per run, every input and every measured quantity. Written as
//! CSV, read back for resume, merge and analysis.

use crate::integrate::SolverStats;
use std::collections::BTreeMap;

/// One row: column name → text.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub point_id: usize,
    pub fields: BTreeMap<&'static str, String>,
}

impl Row {
    /// A numeric field, if present and parseable.
    pub fn number(&self, column: &str) -> Option<f64> {
        self.fields.get(column).and_then(|v| v.parse().ok())
    }

    pub fn text(&self, column: &str) -> &str {
        self.fields.get(column).map(String::as_str).unwrap_or("")
    }

    /// Whether the cell holds `text` as it would be written (numbers compared in their
    /// written form: `0.0000001` and `1e-7` are one cell).
    pub fn cell_is(&self, column: &str, text: &str) -> bool {
        canonical_number(self.text(column)) == canonical_number(text)
    }

    /// One CSV line (no newline) with `columns`.
    pub fn to_csv_line(&self, columns: &[&str]) -> String {
        let cells: Vec<String> = columns
            .iter()
            .map(|c| {
                quote(&canonical_number(
                    self.fields.get(c).map_or("", String::as_str),
                ))
            })
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

/// A cell holding a decimal number is written in its shortest round-trip form (`1e-10`, not
/// `0.0000000001`; `1.8295288525171745e19`, not `18295288525171745000`), and so is each number
/// of a space-separated list of numbers (a state `0.25 -3.1e-18`); integers (up to 15 digits) and
/// text are written as they are.
fn canonical_number(cell: &str) -> std::borrow::Cow<'_, str> {
    if cell.contains(' ') {
        let tokens: Vec<&str> = cell.split(' ').collect();
        if tokens.iter().all(|t| t.parse::<f64>().is_ok()) {
            let written: Vec<_> = tokens.iter().map(|t| canonical_number(t)).collect();
            return written.join(" ").into();
        }
        return cell.into();
    }
    // A float written with `{}` has no point when it is integral (`18295288525171745000`, or
    // 309 digits for -1e308): beyond 15 digits no cell is a count, so it is a decimal too.
    let is_decimal = cell.contains(['.', 'e', 'E']) || cell.trim_start_matches('-').len() > 15;
    match cell.parse::<f64>() {
        Ok(x) if is_decimal && x.is_finite() => crate::error::number_text(x).into(),
        _ => cell.into(),
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
pub fn quote(cell: &str) -> String {
    if cell.contains([',', '"', '\n', '\r']) {
        format!(
            "\"{}\"",
            cell.replace('"', "\"\"").replace(['\n', '\r'], " ")
        )
    } else {
        cell.to_string()
    }
}

/// The cells of one CSV line (RFC 4180 quoting); `None` for a line torn inside a quoted cell.
pub fn split_csv_line(line: &str) -> Option<Vec<String>> {
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
        fields.insert("kappa", "0.00000001".to_string());
        fields.insert("state", "0.25 -0.0000000000000000031 3".to_string());
        fields.insert("mode_sequence", "slide 0.5".to_string());
        let row = Row {
            point_id: 7,
            fields,
        };
        let columns = ["point_id", "kappa", "error", "state", "mode_sequence"];
        let line = row.to_csv_line(&columns);
        assert_eq!(
            line,
            "7,1e-8,\"integrator \"\"bdf\"\" failed, at t = 1\",0.25 -3.1e-18 3,slide 0.5"
        );
        let back = Row::from_csv_line(&line, &columns).unwrap();
        assert_eq!(back.text("error"), row.text("error"));
        assert_eq!(back.number("kappa"), Some(1e-8));
        assert!(Row::from_csv_line("7,\"torn", &columns).is_none());
    }
}
