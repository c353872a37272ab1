//! The tidy table of runs: one row per run, every input and every measured quantity. Written as
//! CSV, read back for resume, merge and analysis.

use crate::integrate::SolverStats;
use std::sync::Arc;

/// One row: column name → text.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub point_id: usize,
    pub fields: Fields,
}

/// The cells of a row by column, kept in one text buffer. A row read from a table
/// shares the table's column list, so it costs its text and one offset per column: a map of
/// strings cost five times that, which decided the memory of an analysis holding every row.
#[derive(Clone, Default)]
pub struct Fields {
    keys: Keys,
    text: String,
    /// `ends[i]`: where cell i ends in `text` (it starts where cell i − 1 ends), with
    /// [`CANONICAL`] set when the cell is a number already in its written form.
    ends: Vec<u32>,
}

/// The flag of an end whose cell was written by `error::write_number`: the CSV writer copies it
/// as it is instead of reading the number back to write it again (a run's row has some thirty
/// such cells). A row's text stays far below 2 GB, so the top bit of an end is free.
const CANONICAL: u32 = 1 << 31;

#[derive(Clone)]
enum Keys {
    Shared(Arc<[&'static str]>),
    Own(Vec<&'static str>),
}

impl Default for Keys {
    fn default() -> Self {
        Keys::Own(Vec::new())
    }
}

impl Fields {
    fn keys(&self) -> &[&'static str] {
        match &self.keys {
            Keys::Shared(k) => k,
            Keys::Own(k) => k,
        }
    }

    fn end(&self, i: usize) -> usize {
        (self.ends[i] & !CANONICAL) as usize
    }

    fn cell(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.end(i - 1) };
        &self.text[start..self.end(i)]
    }

    /// The cell of `column` and whether it is a number in its written form. `hint` is where the
    /// previous lookup found its column: a row is written in its columns' order, so the next
    /// column is looked for there first.
    fn cell_at_hint(&self, column: &str, hint: &mut usize) -> (&str, bool) {
        let keys = self.keys();
        let i = if keys.get(*hint).is_some_and(|k| *k == column) {
            *hint
        } else {
            match keys.iter().position(|k| *k == column) {
                Some(i) => i,
                None => return ("", false),
            }
        };
        *hint = i + 1;
        (self.cell(i), self.ends[i] & CANONICAL != 0)
    }

    fn position(&self, key: &str) -> Option<usize> {
        self.keys().iter().position(|k| *k == key)
    }

    /// The cell of `key`; `None` when it is absent or empty.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.position(key)
            .map(|i| self.cell(i))
            .filter(|c| !c.is_empty())
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// No cells, with room for `columns` cells of about 24 characters each (a run's row is
    /// built without growing).
    pub fn with_capacity(columns: usize) -> Self {
        Fields {
            keys: Keys::Own(Vec::with_capacity(columns)),
            text: String::with_capacity(24 * columns),
            ends: Vec::with_capacity(columns),
        }
    }

    /// Set the cell of `key`, returning the text it held.
    pub fn insert(&mut self, key: &'static str, value: String) -> Option<String> {
        self.insert_display(key, &value)
    }

    /// Set the cell of `key` to `value` as `Display` writes it (written in place: no string
    /// for the cell), returning the text it held.
    pub(crate) fn insert_display(
        &mut self,
        key: &'static str,
        value: &dyn std::fmt::Display,
    ) -> Option<String> {
        use std::fmt::Write;
        self.insert_with(key, 0, |text| {
            let _ = write!(text, "{value}");
        })
    }

    /// Set the cell of `key` to the number `x` as [`crate::error::write_number`] writes it (the
    /// form runs.csv keeps), returning the text it held.
    pub(crate) fn insert_number(&mut self, key: &'static str, x: f64) -> Option<String> {
        self.insert_with(key, CANONICAL, |text| crate::error::write_number(text, x))
    }

    /// Set the cell of `key` to what `write` appends, its end flagged `flag`.
    fn insert_with(
        &mut self,
        key: &'static str,
        flag: u32,
        write: impl FnOnce(&mut String),
    ) -> Option<String> {
        let old = self.remove(key);
        if let Keys::Shared(shared) = &self.keys {
            self.keys = Keys::Own(shared.to_vec());
        }
        if let Keys::Own(keys) = &mut self.keys {
            keys.push(key);
        }
        write(&mut self.text);
        self.ends.push(self.text.len() as u32 | flag);
        old
    }

    /// Set each cell of `other` in turn, as [`Fields::insert`] would, keeping its form.
    pub(crate) fn insert_all(&mut self, other: &Fields) {
        for (i, &key) in other.keys().iter().enumerate() {
            let cell = other.cell(i);
            self.insert_with(key, other.ends[i] & CANONICAL, |text| text.push_str(cell));
        }
    }

    /// Remove the cell of `key`, returning its text. The other cells keep their text, order
    /// and form.
    pub fn remove(&mut self, key: &str) -> Option<String> {
        let i = self.position(key)?;
        let (start, end) = (if i == 0 { 0 } else { self.end(i - 1) }, self.end(i));
        let old: String = self.text.drain(start..end).collect();
        self.ends.remove(i);
        // The later cells move back by the removed text; their flags (the top bit) stay, as
        // each end is at least `end`.
        let removed = (end - start) as u32;
        for later in &mut self.ends[i..] {
            *later -= removed;
        }
        match &mut self.keys {
            Keys::Shared(shared) => {
                let mut keys = shared.to_vec();
                keys.remove(i);
                self.keys = Keys::Own(keys);
            }
            Keys::Own(keys) => {
                keys.remove(i);
            }
        }
        (!old.is_empty()).then_some(old)
    }

    /// Every cell set, empty ones too, in column order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &str)> {
        self.keys()
            .iter()
            .enumerate()
            .map(|(i, &k)| (k, self.cell(i)))
    }

    fn non_empty(&self) -> impl Iterator<Item = (&'static str, &str)> {
        self.iter().filter(|(_, c)| !c.is_empty())
    }

    /// The cells of a line read with `columns` (shared by every row of the table).
    fn from_cells(columns: &Arc<[&'static str]>, cells: &[String]) -> Self {
        let mut text = String::with_capacity(cells.iter().map(String::len).sum());
        let ends = cells
            .iter()
            .map(|c| {
                text.push_str(c);
                text.len() as u32
            })
            .collect();
        Fields {
            keys: Keys::Shared(Arc::clone(columns)),
            text,
            ends,
        }
    }
}

impl FromIterator<(&'static str, String)> for Fields {
    fn from_iter<I: IntoIterator<Item = (&'static str, String)>>(cells: I) -> Self {
        let mut f = Fields::default();
        for (k, v) in cells {
            f.insert(k, v);
        }
        f
    }
}

impl From<Vec<(&'static str, String)>> for Fields {
    fn from(cells: Vec<(&'static str, String)>) -> Self {
        cells.into_iter().collect()
    }
}

/// Rows are equal when they hold the same non-empty cells, whatever their order.
impl PartialEq for Fields {
    fn eq(&self, other: &Self) -> bool {
        let sorted = |f: &Fields| {
            let mut cells: Vec<(&str, &str)> = f.non_empty().collect();
            cells.sort_unstable();
            cells
                .into_iter()
                .map(|(k, v)| (k, v.to_string()))
                .collect::<Vec<_>>()
        };
        sorted(self) == sorted(other)
    }
}

impl std::fmt::Debug for Fields {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.non_empty()).finish()
    }
}

impl Row {
    /// A numeric field, if present and parseable.
    pub fn number(&self, column: &str) -> Option<f64> {
        self.fields.get(column).and_then(|v| v.parse().ok())
    }

    pub fn text(&self, column: &str) -> &str {
        self.fields.get(column).unwrap_or("")
    }

    /// Whether the cell holds `text` as it would be written (numbers compared in their
    /// written form: `0.0000001` and `1e-7` are one cell).
    pub fn cell_is(&self, column: &str, text: &str) -> bool {
        let cell = self.text(column);
        // Equal texts are equal cells: the written forms are compared only when they differ.
        cell == text || canonical_number(cell) == canonical_number(text)
    }

    /// One CSV line (no newline) with `columns`.
    pub fn to_csv_line(&self, columns: &[&str]) -> String {
        let mut line = String::with_capacity(self.fields.text.len() + 2 * columns.len());
        self.write_csv_line(columns, &mut line);
        line
    }

    /// [`Row::to_csv_line`] appended to `out`: each cell written in place, its number in
    /// canonical form and quoted where it needs it, without a string per cell.
    pub(crate) fn write_csv_line(&self, columns: &[&str], out: &mut String) {
        let mut hint = 0;
        for (i, c) in columns.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let (cell, canonical) = self.fields.cell_at_hint(c, &mut hint);
            if canonical {
                // `write_number`'s text: its own canonical form, and no quote is needed.
                out.push_str(cell);
            } else if cell.contains(' ') {
                out.push_str(&quote(&canonical_number(cell)));
            } else {
                let start = out.len();
                write_canonical_number(cell, out);
                if out[start..].contains([',', '"', '\n', '\r']) {
                    let quoted = quote(&out[start..]);
                    out.truncate(start);
                    out.push_str(&quoted);
                }
            }
        }
    }

    /// Parse a CSV line written by [`Row::to_csv_line`] with the same `columns` (the first is the
    /// point id); `None` for a torn or foreign line.
    pub(crate) fn from_csv_line(line: &str, columns: &[&'static str]) -> Option<Row> {
        Self::from_line_of(line, &Arc::from(columns))
    }

    /// [`Row::from_csv_line`] for the rows of one table, which share its column list.
    pub(crate) fn from_line_of(line: &str, columns: &Arc<[&'static str]>) -> Option<Row> {
        let fields = if line.contains('"') {
            let cells = split_csv_line(line)?;
            if cells.len() != columns.len() {
                return None;
            }
            Fields::from_cells(columns, &cells)
        } else {
            // No quote: the cells are the text between the commas, copied once into the row's
            // text (the reader of a whole runs.csv spends its time here).
            let mut text = String::with_capacity(line.len());
            let mut ends = Vec::with_capacity(columns.len());
            for cell in line.split(',') {
                text.push_str(cell);
                ends.push(text.len() as u32);
            }
            if ends.len() != columns.len() {
                return None;
            }
            Fields {
                keys: Keys::Shared(Arc::clone(columns)),
                text,
                ends,
            }
        };
        let point_id = fields.cell(0).parse().ok()?;
        Some(Row { point_id, fields })
    }
}

/// A cell holding a decimal number is written in its shortest round-trip form (`1e-10`, not
/// `0.0000000001`; `1.8295288525171745e19`, not `18295288525171745000`), and so is each number
/// of a space-separated list of numbers (a state `0.25 -3.1e-18`); integers (up to 15 digits) and
/// text are written as they are.
/// [`canonical_number`] of a cell without spaces, appended to `out`.
fn write_canonical_number(cell: &str, out: &mut String) {
    let is_decimal = cell.contains(['.', 'e', 'E']) || cell.trim_start_matches('-').len() > 15;
    // Counts and words without a point or an exponent are written as they are, unparsed.
    match is_decimal.then(|| cell.parse::<f64>()) {
        Some(Ok(x)) if x.is_finite() => crate::error::write_number(out, x),
        _ => out.push_str(cell),
    }
}

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
    let mut written = String::new();
    write_canonical_number(cell, &mut written);
    if written == cell {
        cell.into()
    } else {
        written.into()
    }
}

/// The work counters of a run as (column, text), in column order.
pub(crate) fn stat_fields(s: &SolverStats) -> [(&'static str, String); 7] {
    stat_counts(s).map(|(k, v)| (k, v.to_string()))
}

/// The work counters of a run as (column, count), in column order.
pub(crate) fn stat_counts(s: &SolverStats) -> [(&'static str, usize); 7] {
    [
        ("steps", s.steps),
        ("rejected_steps", s.rejected_steps),
        ("rhs_evals", s.rhs_evals),
        ("jvp_evals", s.jvp_evals),
        ("jacobian_evals", s.jacobian_evals),
        ("lu_factorisations", s.lu_factorisations),
        ("newton_iterations", s.newton_iterations),
    ]
}

/// The CSV header line.
pub fn header_line(columns: &[&str]) -> String {
    columns.join(",")
}

/// Quote a cell when it holds a comma, a quote or a line break (RFC 4180).
pub(crate) fn quote(cell: &str) -> String {
    if cell.contains([',', '"', '\n', '\r']) {
        format!(
            "\"{}\"",
            cell.replace('"', "\"\"").replace(['\n', '\r'], " ")
        )
    } else {
        cell.to_string()
    }
}

/// `name` as a column name that lives as long as the program: the columns of a described system
/// are known only when its description is read. Each distinct name is stored once.
pub(crate) fn column_name(name: &str) -> &'static str {
    crate::hybrid::interned(name)
}

/// The point id that leads a line of runs.csv (its first cell, never quoted), without splitting
/// the rest: the journal and the shards are streamed a line at a time.
pub(crate) fn leading_point_id(line: &str) -> Option<usize> {
    line.split_once(',').map_or(line, |(id, _)| id).parse().ok()
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
    let shared: Arc<[&'static str]> = Arc::from(columns);
    match lines.next() {
        Some(h) if h == header_line(columns) => lines
            .filter_map(|line| Row::from_line_of(line, &shared))
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line without quotes is read by its fast path into the same row as the quoted path's
    /// cell-by-cell reading; a line with another number of cells is refused by both.
    #[test]
    fn unquoted_lines_read_as_the_general_reader_reads_them() {
        let columns: Arc<[&'static str]> = Arc::from(&["point_id", "kappa", "state", "note"][..]);
        for line in ["3,1e-8,0.25 -3.1e-18,", "0,,,", "12,1,2,x y"] {
            let fast = Row::from_line_of(line, &columns).unwrap();
            let cells = split_csv_line(line).unwrap();
            let general = Fields::from_cells(&columns, &cells);
            assert_eq!(fast.point_id, cells[0].parse::<usize>().unwrap());
            for (i, column) in columns.iter().enumerate() {
                assert_eq!(fast.text(column), general.cell(i), "{line}: {column}");
            }
        }
        assert!(Row::from_line_of("1,2,3", &columns).is_none());
        assert!(Row::from_line_of("1,2,3,4,5", &columns).is_none());
        assert!(Row::from_line_of("x,2,3,4", &columns).is_none());
    }

    #[test]
    fn csv_lines_round_trip_with_commas_and_quotes() {
        let mut fields = Fields::default();
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
