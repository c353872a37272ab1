//! Helpers shared by the integration tests: a row's number by column, and a run's runs.csv
//! rows without its timing columns.

use rigid_limit::experiment::runner::RUNS_CSV;
use rigid_limit::experiment::table::{split_csv_line, Row};
use std::path::Path;

/// The number in `column` of `r`; panics naming the column and the row when it is empty.
pub fn number(r: &Row, column: &str) -> f64 {
    r.number(column)
        .unwrap_or_else(|| panic!("{column} empty in {:?}", r.fields))
}

/// The rows of `dir/runs.csv` as cells, without the columns named in `timing`.
pub fn rows_without_timing(dir: &Path, timing: &[&str]) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(dir.join(RUNS_CSV)).unwrap();
    let mut lines = text.lines();
    let header = split_csv_line(lines.next().unwrap()).unwrap();
    let dropped: Vec<bool> = header
        .iter()
        .map(|c| timing.contains(&c.as_str()))
        .collect();
    lines
        .map(|l| {
            split_csv_line(l)
                .unwrap()
                .into_iter()
                .zip(&dropped)
                .filter(|(_, d)| !**d)
                .map(|(c, _)| c)
                .collect()
        })
        .collect()
}

/// Run the rigid-limit binary with `args` in the crate's folder: (success, stdout, stderr).
pub fn cli(args: &[&str]) -> (bool, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rigid-limit"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run rigid-limit");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
