//! Side tables: every CSV a study writes next to runs.csv (a trajectory, per-state results,
//! sampled paths, errors). One writer, so that every such table is well-formed by construction:
//! each row has as many fields as the header (a missing value is an empty cell, never a dropped
//! one), every number is in its shortest round-trip form (`9.126047822576006e-25`, not
//! `0.0000000000000000000000009126047822576006`; [`crate::error::number_text`]), and a cell
//! holding a comma, a quote or a line break is quoted (RFC 4180).

use crate::error::number_text;
use crate::experiment::runner::RunError;
use crate::experiment::table::{header_line, quote, split_csv_line};
use std::path::Path;

/// One cell of a side table.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// A missing value: an empty cell.
    Empty,
    /// A number, written by [`number_text`] (non-finite values as `NaN`, `inf`, `-inf`).
    Number(f64),
    /// A count or an index, written as it is.
    Integer(i64),
    /// Text, quoted when it must be.
    Text(String),
}

impl Cell {
    /// `x` rounded to `decimals` digits after the point (a table that need not carry more),
    /// then written in shortest form: `rounded(0.5, 8)` is `0.5`, not `0.50000000`.
    pub(crate) fn rounded(x: f64, decimals: usize) -> Cell {
        Cell::Number(format!("{x:.decimals$}").parse().unwrap_or(x))
    }

    /// The cell as it is written in the CSV (quoted if it must be).
    pub fn text(&self) -> String {
        match self {
            Cell::Empty => String::new(),
            Cell::Number(x) => number_text(*x),
            Cell::Integer(n) => n.to_string(),
            Cell::Text(s) => quote(s),
        }
    }
}

impl From<f64> for Cell {
    fn from(x: f64) -> Cell {
        Cell::Number(x)
    }
}

impl From<&f64> for Cell {
    fn from(x: &f64) -> Cell {
        Cell::Number(*x)
    }
}

macro_rules! integer_cells {
    ($($t:ty),*) => {$(
        impl From<$t> for Cell {
            fn from(n: $t) -> Cell {
                Cell::Integer(i64::try_from(n).unwrap_or(i64::MAX))
            }
        }
    )*};
}
integer_cells!(usize, u64, u32, i64, i32);

impl From<bool> for Cell {
    fn from(b: bool) -> Cell {
        Cell::Text(b.to_string())
    }
}

impl From<&str> for Cell {
    fn from(s: &str) -> Cell {
        Cell::Text(s.to_string())
    }
}

impl From<String> for Cell {
    fn from(s: String) -> Cell {
        Cell::Text(s)
    }
}

impl From<&String> for Cell {
    fn from(s: &String) -> Cell {
        Cell::Text(s.clone())
    }
}

impl<T: Into<Cell>> From<Option<T>> for Cell {
    fn from(v: Option<T>) -> Cell {
        v.map_or(Cell::Empty, Into::into)
    }
}

/// The cells of one row, each converted with `Cell::from`: `cells![mu, "rigid", None::<f64>]`.
#[macro_export]
macro_rules! cells {
    ($($cell:expr),* $(,)?) => {
        [$($crate::report::table::Cell::from($cell)),*]
    };
}

/// A side table: a header of columns and rows of cells.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    columns: Vec<String>,
    rows: Vec<Vec<Cell>>,
}

impl Table {
    /// An empty table with these columns.
    pub fn new<S: Into<String>>(columns: impl IntoIterator<Item = S>) -> Table {
        Table {
            columns: columns.into_iter().map(Into::into).collect(),
            rows: Vec::new(),
        }
    }

    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// The number of rows (the header not counted).
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Append a row; cells missing at its end are written empty. More cells than columns is a
    /// bug of the table's code (the columns and the row disagree), not of any input.
    pub fn push(&mut self, cells: impl IntoIterator<Item = Cell>) {
        let row = padded(cells, &self.columns);
        self.rows.push(row);
    }

    /// The CSV text: the header line, then one line per row, each ending in a newline.
    pub(crate) fn to_csv(&self) -> String {
        let columns: Vec<&str> = self.columns.iter().map(String::as_str).collect();
        let mut out = header_line(&columns);
        out.push('\n');
        for row in &self.rows {
            push_row_line(&mut out, row.iter());
        }
        out
    }
}

/// A row of as many cells as `columns`: cells missing at its end are empty. More cells than
/// columns is a bug of the table's code (the columns and the row disagree), not of any input.
fn padded(cells: impl IntoIterator<Item = Cell>, columns: &[String]) -> Vec<Cell> {
    let mut row: Vec<Cell> = cells.into_iter().collect();
    assert!(
        row.len() <= columns.len(),
        "a row of {} cells under a header of {} columns ({})",
        row.len(),
        columns.len(),
        columns.join(",")
    );
    row.resize(columns.len(), Cell::Empty);
    row
}

/// One row's CSV line, with its newline, appended to `out`.
fn push_row_line<'a>(out: &mut String, cells: impl Iterator<Item = &'a Cell>) {
    for (i, cell) in cells.enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&cell.text());
    }
    out.push('\n');
}

/// Write a side table to `path` a row at a time (atomically), as [`Table::to_csv`] would write
/// it, without holding it: for tables of one row per state of an atlas.
pub(crate) fn write_csv<R: IntoIterator<Item = Cell>>(
    path: &Path,
    columns: &[String],
    rows: impl IntoIterator<Item = R>,
) -> Result<(), RunError> {
    crate::experiment::store::write_atomically_with(path, |w| {
        let names: Vec<&str> = columns.iter().map(String::as_str).collect();
        let mut line = header_line(&names);
        line.push('\n');
        w.write_all(line.as_bytes())?;
        for row in rows {
            let row = padded(row, columns);
            line.clear();
            push_row_line(&mut line, row.iter());
            w.write_all(line.as_bytes())?;
        }
        Ok(())
    })
}

/// A side table read back: its header and its rows, every cell parsed as a number (a text or
/// empty cell as NaN).
pub(crate) fn read_numbers(path: &Path) -> Result<(Vec<String>, Vec<Vec<f64>>), RunError> {
    let text = std::fs::read_to_string(path).map_err(|source| RunError::Io {
        path: path.display().to_string(),
        source,
    })?;
    let mut lines = text.lines();
    let header = lines.next().and_then(split_csv_line).unwrap_or_default();
    let rows = lines
        .filter_map(split_csv_line)
        .map(|cells| {
            cells
                .iter()
                .map(|c| c.parse().unwrap_or(f64::NAN))
                .collect()
        })
        .collect();
    Ok((header, rows))
}

/// A side table read back as text: its header and its rows, cells unquoted (RFC 4180), looked up
/// by column name.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct TextTable {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl TextTable {
    /// The position of column `name`, if the table has it.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    /// The positions of `names`, or the first that is missing.
    pub fn columns<const N: usize>(&self, names: [&str; N]) -> Result<[usize; N], String> {
        let mut out = [0; N];
        for (slot, name) in out.iter_mut().zip(names) {
            *slot = self
                .column(name)
                .ok_or_else(|| format!("the table has no column {name}"))?;
        }
        Ok(out)
    }
}

/// The cell `i` of `row` as a number (`None` when absent, empty or not a number).
pub(crate) fn number_at(row: &[String], i: usize) -> Option<f64> {
    row.get(i)?.parse().ok()
}

/// The side table at `path` as text; `Ok(None)` when there is no such file (a report drawn
/// before its side table exists draws nothing from it).
pub(crate) fn read_text(path: &Path) -> Result<Option<TextTable>, RunError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(RunError::Io {
                path: path.display().to_string(),
                source,
            })
        }
    };
    let mut lines = text.lines();
    let header = lines.next().and_then(split_csv_line).unwrap_or_default();
    let rows = lines.filter_map(split_csv_line).collect();
    Ok(Some(TextTable { header, rows }))
}

/// The position of column `name` in `header` (`usize::MAX` when absent: a lookup then reads
/// nothing).
pub fn column(header: &[String], name: &str) -> usize {
    header.iter().position(|h| h == name).unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::table::split_csv_line;

    #[test]
    fn short_rows_are_padded_and_numbers_shortest() {
        let mut t = Table::new(["a", "b", "c"]);
        t.push(cells![9.126047822576006e-25, "x, \"y\""]);
        t.push(cells![None::<f64>, 3usize, 1e21]);
        let text = t.to_csv();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        for line in &lines[1..] {
            assert_eq!(split_csv_line(line).unwrap().len(), 3, "{line}");
        }
        let first = split_csv_line(lines[1]).unwrap();
        assert_eq!(first[0], "9.126047822576006e-25");
        assert_eq!(first[1], "x, \"y\"");
        assert_eq!(first[2], "");
        let second = split_csv_line(lines[2]).unwrap();
        assert_eq!(second, ["", "3", "1e21"]);
    }

    #[test]
    fn rounded_cells_keep_the_rounded_value_in_shortest_form() {
        assert_eq!(Cell::rounded(0.5, 8).text(), "0.5");
        assert_eq!(Cell::rounded(1.23456789123, 8).text(), "1.23456789");
        assert_eq!(Cell::rounded(1e-9, 8).text(), "0");
    }

    #[test]
    #[should_panic(expected = "a row of 2 cells under a header of 1 columns")]
    fn a_row_longer_than_the_header_is_refused() {
        Table::new(["a"]).push(cells![1.0, 2.0]);
    }
}
