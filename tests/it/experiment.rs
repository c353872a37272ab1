//! The sweep runner end to end: resume after an interrupted run, shard + merge equals a full
//! run, failed points become rows.

use crate::common::{run_options, scratch, zhao_liu_sweep};
use rigid_limit::experiment::runner::{JOURNAL_CSV, RUNS_CSV};
use rigid_limit::experiment::table::{header_line, parse_rows, Row};
use rigid_limit::experiment::{merge_shards, run_experiment, RunOptions, Shard};

/// A rod κ sweep or atlas.
type ExperimentSpec = rigid_limit::models::rod::sweep::RodExperiment;
use std::path::Path;

/// A small κ sweep of Zhao–Liu's impact: 5 κ by BDF and Tsit45.
fn small() -> String {
    zhao_liu_sweep(
        "small",
        "{ min = 1e-6, max = 1e-2, per_decade = 1 }",
        "integrators = [\"bdf\", \"tsit45\"]\nrtol = 1e-8\natol = 1e-10",
    )
}

/// The columns of a rod experiment's runs.csv.
fn columns() -> Vec<&'static str> {
    ExperimentSpec::parse(&small()).unwrap().columns()
}

fn options(dir: &Path, shard: Option<Shard>) -> RunOptions {
    RunOptions {
        shard,
        ..run_options(dir)
    }
}

/// The rows without the timing column (the only one that differs between identical runs).
fn rows_without_timing(path: &Path) -> Vec<Row> {
    let mut rows = parse_rows(&std::fs::read_to_string(path).unwrap(), &columns());
    for r in &mut rows {
        r.fields.remove("wall_time_s");
    }
    rows
}

#[test]
fn an_interrupted_run_resumes_and_skips_finished_points() {
    let spec = ExperimentSpec::parse(&small()).unwrap();
    let dir = scratch("test-resume");
    let full = run_experiment(&spec, &options(&dir, None)).unwrap();
    assert_eq!((full.points, full.ran, full.failed), (10, 10, 0));
    let reference = rows_without_timing(&dir.join(RUNS_CSV));
    // Simulate an interruption: the journal holds 4 finished rows and a torn fifth line, and
    // there is no runs.csv yet.
    let text = std::fs::read_to_string(dir.join(RUNS_CSV)).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let torn = &lines[5][..lines[5].len() / 2];
    let journal = format!(
        "{}\n{}\n{torn}",
        header_line(&columns()),
        lines[1..5].join("\n")
    );
    std::fs::write(dir.join(JOURNAL_CSV), journal).unwrap();
    std::fs::remove_file(dir.join(RUNS_CSV)).unwrap();
    let resumed = run_experiment(&spec, &options(&dir, None)).unwrap();
    assert_eq!((resumed.resumed, resumed.ran), (4, 6));
    assert_eq!(rows_without_timing(&dir.join(RUNS_CSV)), reference);
    assert!(!dir.join(JOURNAL_CSV).exists());
    // A finished run is not run again.
    let again = run_experiment(&spec, &options(&dir, None)).unwrap();
    assert_eq!((again.resumed, again.ran), (10, 0));
    // Rows of other inputs are not reused: a tighter tolerance reruns everything.
    let tighter = ExperimentSpec::parse(&small().replace("rtol = 1e-8", "rtol = 1e-9")).unwrap();
    assert_eq!(
        run_experiment(&tighter, &options(&dir, None)).unwrap().ran,
        10
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn shards_merged_equal_a_full_run() {
    let spec = ExperimentSpec::parse(&small()).unwrap();
    let full_dir = scratch("test-full");
    run_experiment(&spec, &options(&full_dir, None)).unwrap();
    let shard_dir = scratch("test-sharded");
    for i in 0..3 {
        let s = run_experiment(
            &spec,
            &options(&shard_dir, Some(Shard { index: i, count: 3 })),
        )
        .unwrap();
        assert_eq!(s.points, [4, 3, 3][i]);
    }
    // Merging before all shards exist is an error naming the gap; here all three exist.
    merge_shards(&spec, &shard_dir, "test").unwrap();
    assert_eq!(
        rows_without_timing(&shard_dir.join(RUNS_CSV)),
        rows_without_timing(&full_dir.join(RUNS_CSV))
    );
    std::fs::remove_dir_all(shard_dir.join("shard-2-of-3")).unwrap();
    let err = merge_shards(&spec, &shard_dir, "test")
        .unwrap_err()
        .to_string();
    assert!(err.contains("missing"), "{err}");
    std::fs::remove_dir_all(&full_dir).unwrap();
    std::fs::remove_dir_all(&shard_dir).unwrap();
}

/// Rows computed under other settings are never reused: failed rows with a short t_max are
/// rerun after t_max is raised (the error's own advice then works), and the run says why.
#[test]
fn resume_after_a_setting_change_reruns_the_rows_and_says_why() {
    let short = small().replace("atol = 1e-10", "atol = 1e-10\nt_max = 0.05");
    let dir = scratch("test-resume-setting");
    let first = run_experiment(
        &ExperimentSpec::parse(&short).unwrap(),
        &options(&dir, None),
    )
    .unwrap();
    assert!(first.failed > 0);
    let long = small().replace("atol = 1e-10", "atol = 1e-10\nt_max = 10");
    let second =
        run_experiment(&ExperimentSpec::parse(&long).unwrap(), &options(&dir, None)).unwrap();
    assert_eq!((second.resumed, second.ran, second.failed), (0, 10, 0));
    let why = second.not_reused.expect("the stored rows are reported");
    assert_eq!(why.rows, 10);
    assert!(why.reason.contains("solver.t_max"), "{}", why.reason);
    // --fresh reruns everything even under the same settings.
    let mut fresh = options(&dir, None);
    fresh.fresh = true;
    let third = run_experiment(&ExperimentSpec::parse(&long).unwrap(), &fresh).unwrap();
    assert_eq!((third.resumed, third.ran), (0, 10));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Merge joins only shards of one run of this experiment file: a shard run with another u0, a
/// leftover shard of a 2-way split, or a merge under another rtol are refused, naming the shard
/// and the setting; nothing is written.
#[test]
fn merge_refuses_shards_of_other_settings_or_other_splits() {
    let spec = ExperimentSpec::parse(&small()).unwrap();
    let other = ExperimentSpec::parse(&small().replace("u0 = -1.0", "u0 = -0.5")).unwrap();
    let dir = scratch("test-mixed-shards");
    for i in [0, 2] {
        run_experiment(&spec, &options(&dir, Some(Shard { index: i, count: 3 }))).unwrap();
    }
    run_experiment(&other, &options(&dir, Some(Shard { index: 1, count: 3 }))).unwrap();
    let err = merge_shards(&spec, &dir, "test").unwrap_err().to_string();
    assert!(
        err.contains("shard-1-of-3") && err.contains("params.u0"),
        "{err}"
    );
    assert!(!dir.join(RUNS_CSV).exists());
    run_experiment(&spec, &options(&dir, Some(Shard { index: 1, count: 3 }))).unwrap();
    let tighter = ExperimentSpec::parse(&small().replace("rtol = 1e-8", "rtol = 1e-9")).unwrap();
    let err = merge_shards(&tighter, &dir, "test")
        .unwrap_err()
        .to_string();
    assert!(err.contains("solver.rtol"), "{err}");
    run_experiment(&spec, &options(&dir, Some(Shard { index: 1, count: 2 }))).unwrap();
    let err = merge_shards(&spec, &dir, "test").unwrap_err().to_string();
    assert!(
        err.contains("2 and 3 ways") && err.contains("shard-1-of-2"),
        "{err}"
    );
    std::fs::remove_dir_all(dir.join("shard-1-of-2")).unwrap();
    merge_shards(&spec, &dir, "test").unwrap();
    assert_eq!(
        parse_rows(
            &std::fs::read_to_string(dir.join(RUNS_CSV)).unwrap(),
            &columns()
        )
        .len(),
        10
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A second run into a directory another run is writing into fails at once.
#[test]
fn a_second_run_into_a_busy_directory_is_refused() {
    let spec = ExperimentSpec::parse(&small()).unwrap();
    let dir = scratch("test-busy");
    std::fs::create_dir_all(&dir).unwrap();
    let held = rigid_limit::experiment::store::DirLock::acquire(&dir).unwrap();
    let err = run_experiment(&spec, &options(&dir, None))
        .unwrap_err()
        .to_string();
    assert!(err.contains("another rigid-limit run"), "{err}");
    drop(held);
    run_experiment(&spec, &options(&dir, None)).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_failing_point_becomes_a_row_and_the_sweep_goes_on() {
    // t_max too short for the impacts at the larger κ: those points fail with NoSeparation.
    let text = small().replace("atol = 1e-10", "atol = 1e-10\nt_max = 0.05");
    let spec = ExperimentSpec::parse(&text).unwrap();
    let dir = scratch("test-failing");
    let s = run_experiment(&spec, &options(&dir, None)).unwrap();
    let rows = parse_rows(
        &std::fs::read_to_string(dir.join(RUNS_CSV)).unwrap(),
        &columns(),
    );
    assert_eq!(rows.len(), 10);
    let failed: Vec<&Row> = rows
        .iter()
        .filter(|r| r.text("status") == "error")
        .collect();
    assert_eq!(failed.len(), s.failed);
    assert!(!failed.is_empty() && failed.len() < 10);
    assert!(
        failed[0].text("error").contains("no separation"),
        "{:?}",
        failed[0]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

const ATLAS: &str = r#"
name = "tiny_atlas"
model = "rod"
[params]
u0 = -1.0
[sweep]
kappa = { min = 1e-8, max = 1e-6, per_decade = 1 }
mu = [2.0, 5.0]
theta0 = { painleve_interval = 2 }
omega0 = [0.0, 1.2]
case = "inconsistent"
[solver]
integrators = ["tsit45"]
rtol = 1e-8
atol = 1e-12
"#;

/// A multi-axis sweep masks the states outside the requested case, runs the rest with a κ
/// ladder each, and writes one points.csv row per state with its sequence and bound verdicts.
#[test]
fn an_atlas_masks_the_grid_and_reports_every_state() {
    let spec = ExperimentSpec::parse(ATLAS).unwrap();
    let grid = spec.initial_states();
    // θ̇0 = 1.2 makes B = 1.44 sin θ0 − 1: positive (indeterminate, skipped) for θ0 > 0.767.
    assert!(grid
        .kept
        .iter()
        .all(|c| c.omega0.powi(2) * c.theta0.sin() < 1.0));
    assert_eq!(grid.kept.len() + grid.skipped, 8);
    assert!(grid.skipped > 0 && grid.kept.len() >= 4);
    let dir = scratch("test-atlas");
    let summary = run_experiment(&spec, &options(&dir, None)).unwrap();
    assert_eq!(summary.points, grid.kept.len() * 3);
    assert_eq!(summary.failed, 0);
    rigid_limit::models::Experiment::Rod(Box::new(spec.clone()))
        .report(&dir)
        .unwrap();
    let points = std::fs::read_to_string(dir.join("points.csv")).unwrap();
    assert_eq!(points.lines().count(), 1 + grid.kept.len());
    assert!(points
        .lines()
        .skip(1)
        .all(|l| l.contains("slide_left>stick>slide_right")));
    let md = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    assert!(md.contains(&format!("{} skipped", grid.skipped)), "{md}");
    assert!(md.contains("stick upper (58)/(61)"));
    assert!(dir.join("atlas_bounds.png").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Oversized grids are refused before anything is allocated, axis errors say what an axis may
/// be, integrators may not repeat, and messages show values as written (1e-13, not 0.0000…1).
#[test]
fn bad_grids_are_refused_with_messages_a_person_can_act_on() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "per_decade = 1 }",
            "per_decade = 4294967295 }",
            "sweep.kappa.per_decade = 4294967295: must be between 1 and 1000",
        ),
        (
            "u0 = -1.0\n[sweep]",
            "u0 = -1.0\n[sweep]\nomega0 = { min = 0, max = 1 }",
            "a range needs 'n'",
        ),
        (
            "[sweep]\n",
            "[sweep]\nmu_s = { min = 2, max = 3, n = 4000 }\nomega0 = { min = 0, max = 1, n = 4000 }\n",
            "160000000 points: at most 1000000",
        ),
        (
            "[\"bdf\", \"tsit45\"]",
            "[\"bdf\", \"tsit45\", \"bdf\"]",
            "solver.integrators = [bdf, tsit45, bdf]: bdf is listed twice",
        ),
        (
            "atol = 1e-10",
            "atol = -0.0000000000001",
            "solver.atol = -1e-13",
        ),
        // A list is not read as the ladder's fields in order (min 1e-8, max 1e-6, 2 per decade).
        (
            "kappa = { min = 1e-6, max = 1e-2, per_decade = 1 }",
            "kappa = [1e-6, 1e-2, 2]",
            "a table, not a list",
        ),
    ];
    for (from, to, expected) in cases {
        let text = small().replace(from, to);
        assert_ne!(text, small(), "{from}");
        let err = rigid_limit::models::Experiment::parse(&text)
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(err.contains(expected), "{to}: {err}");
        assert!(
            !err.contains("untagged") && !err.contains("LogGrid"),
            "{err}"
        );
    }
}
