//! Helpers shared by the integration tests: a described system's experiment, an experiment's
//! parse error, a plan's rows (and an experiment text's, [`rows_of`]), a run into a fresh temporary folder, a row's number (or numbers)
//! by column, a run's runs.csv rows without its timing columns, and the binary's output.

use rigid_limit::experiment::runner::{Plan, RUNS_CSV};
use rigid_limit::experiment::table::{split_csv_line, Row};
use rigid_limit::experiment::{RunOptions, RunSummary};
use rigid_limit::models::described::Described;
use rigid_limit::models::Experiment;
use rigid_limit::study::convergence::Convergence;
use std::path::{Path, PathBuf};

/// The number in `column` of `r`; panics naming the column and the row when it is empty.
pub fn number(r: &Row, column: &str) -> f64 {
    r.number(column)
        .unwrap_or_else(|| panic!("{column} empty in {:?}", r.fields))
}

/// An experiment on the description in the file `system` (a path from the crate's root) at the
/// one compliance `kappa`; `solver` is the body of its `[solver]` table.
pub fn system_experiment(system: &str, kappa: f64, solver: &str) -> String {
    format!(
        r#"
name = "described"
model = "system"
system = "{system}"
[sweep]
kappa = {{ min = {kappa:e}, max = {kappa:e}, per_decade = 1 }}
[solver]
{solver}
"#
    )
}

/// A κ sweep of the rod on Zhao–Liu's impact (μ = 2, θ0 = 1.3, u0 = −1): the experiment `name`
/// over the κ ladder `kappa` (a `{ min, max, per_decade }` table); `solver` is the body of its
/// `[solver]` table.
pub fn zhao_liu_sweep(name: &str, kappa: &str, solver: &str) -> String {
    format!(
        "name = \"{name}\"\nmodel = \"rod\"\n[params]\nmu = 2.0\ntheta0 = 1.3\nu0 = -1.0\n\
         [sweep]\nkappa = {kappa}\n[solver]\n{solver}\n"
    )
}

/// A described system's experiment text, parsed: its study, whose `params` are the description.
pub fn described(text: &str) -> Convergence<Described> {
    match Experiment::parse(text).unwrap_or_else(|e| panic!("{e}")) {
        Experiment::Described(spec) => *spec,
        other => panic!("read as {}", other.name()),
    }
}

/// The error of an experiment text that must be refused.
#[track_caller]
pub fn parse_error(text: &str) -> String {
    Experiment::parse(text).unwrap_err().to_string()
}

/// Every point of `plan` run in this thread, in point order.
pub fn run_all<P: Plan>(plan: &P) -> Vec<Row> {
    plan.points().map(|p| plan.run_point(&p)).collect()
}

/// Every point's row, in point order, of the experiment in TOML `text`, which must read as one
/// of the `Experiment` variants named (each holding its plan boxed); panics otherwise.
macro_rules! rows_of {
    ($text:expr, $($variant:path),+ $(,)?) => {
        match rigid_limit::models::Experiment::parse($text).unwrap_or_else(|e| panic!("{e}")) {
            $($variant(spec) => $crate::common::run_all(spec.as_ref()),)+
            other => panic!("read as {}", other.name()),
        }
    };
}
pub(crate) use rows_of;

/// The folder `rigid-limit-{tag}-{pid}` in the temporary directory, emptied of what an earlier
/// run of this process left there (not created).
pub fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rigid-limit-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The options of a fresh run into `dir`.
pub fn run_options(dir: &Path) -> RunOptions {
    RunOptions {
        command_line: "test".into(),
        ..RunOptions::new(dir.to_path_buf())
    }
}

/// Run `experiment` into [`scratch`]`(tag)` and write its report there: the folder and the
/// run's summary.
pub fn run_and_report(experiment: &Experiment, tag: &str) -> (PathBuf, RunSummary) {
    let dir = scratch(tag);
    let summary = experiment.run(&run_options(&dir)).unwrap();
    experiment.report(&dir).unwrap();
    (dir, summary)
}

/// The numbers of the space-separated cell in `column` of `r`.
pub fn numbers(r: &Row, column: &str) -> Vec<f64> {
    r.text(column)
        .split_whitespace()
        .map(|x| x.parse().unwrap())
        .collect()
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

/// The number written right after `marker` in `line` (up to the next space), or a panic naming
/// the line.
pub fn number_after<T: std::str::FromStr>(line: &str, marker: &str) -> T {
    line.split(marker)
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no number after {marker:?} in {line}"))
}

/// The number under `key` of every element of the JSON list `list` (the `events`, `modes` or
/// `contacts` of `simulate --json`).
pub fn json_numbers(list: &serde_json::Value, key: &str) -> Vec<f64> {
    let items = list.as_array().expect("a JSON list");
    items.iter().map(|x| x[key].as_f64().unwrap()).collect()
}

/// The text under `key` of every element of the JSON list `list` (as [`json_numbers`]).
pub fn json_texts<'a>(list: &'a serde_json::Value, key: &str) -> Vec<&'a str> {
    let items = list.as_array().expect("a JSON list");
    items.iter().map(|x| x[key].as_str().unwrap()).collect()
}

/// The atlas's points.csv in `dir` as one map of column to cell per row.
pub fn points_table(dir: &Path) -> Vec<std::collections::BTreeMap<String, String>> {
    let text = std::fs::read_to_string(dir.join("points.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    lines
        .map(|l| {
            header
                .iter()
                .zip(l.split(','))
                .map(|(h, c)| (h.to_string(), c.to_string()))
                .collect()
        })
        .collect()
}
