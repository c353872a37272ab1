//! `simulate SYSTEM --point ID` for the systems run as one point of their study: the row it
//! prints is the row the runner writes for that point (the committed results/*/runs.csv, and a
//! fresh `run` of a file changed by dotted `--set` keys), and its flags are checked.

use super::common::cli;
use super::golden::{cells_agree, committed, TIMING_COLUMNS};
use std::collections::BTreeMap;

/// `rigid-limit simulate ARGS`: (success, stdout, stderr).
fn simulate(args: &[&str]) -> (bool, String, String) {
    cli(&[&["simulate"], args].concat())
}

/// The cells of `simulate`'s text output (`  column = cell` lines under a heading).
fn printed_row(args: &[&str]) -> (String, BTreeMap<String, String>) {
    let (ok, text, stderr) = simulate(args);
    assert!(ok, "simulate {args:?}: {stderr}");
    let mut lines = text.lines();
    let heading = lines.next().unwrap_or_default().to_string();
    let row = lines
        .map(|line| {
            let (column, cell) = line.trim_start().split_once(" = ").unwrap_or((line, ""));
            (column.to_string(), cell.trim_end_matches(" =").to_string())
        })
        .collect();
    (heading, row)
}

/// Every cell of `got` but the timing ones equals `want`'s, and they have the same columns.
fn assert_same_row(what: &str, got: &BTreeMap<String, String>, want: &BTreeMap<String, String>) {
    let columns = |r: &BTreeMap<String, String>| r.keys().cloned().collect::<Vec<_>>();
    assert_eq!(columns(got), columns(want), "{what}: columns");
    for (column, w) in want {
        if !TIMING_COLUMNS.contains(&column.as_str()) && !column.starts_with("wall_time") {
            assert!(
                cells_agree(&got[column], w),
                "{what} {column}: printed {:?}, runs.csv {w:?}",
                got[column]
            );
        }
    }
}

#[test]
fn a_point_of_each_study_is_its_committed_row() {
    for (system, results, ids) in [
        ("two_contact", "two_contact_iwc", [0, 77, 295]),
        ("planar", "mode_table_planar", [0, 3, 479]),
        ("schmid_mielke", "sm_ip", [0, 7, 103]),
        ("rod_scenario", "integrators", [0, 1, 1229]),
    ] {
        let (_, rows) = committed(results);
        for id in ids {
            let (heading, row) = printed_row(&[system, "--point", &id.to_string()]);
            let expected_heading = format!(
                "{system}: point {id} of {} of experiments/{results}.toml",
                rows.len()
            );
            assert!(heading.starts_with(&expected_heading), "{heading}");
            assert_same_row(&format!("{system} point {id}"), &row, &rows[&id]);
        }
    }
}

#[test]
fn dotted_sets_change_the_file_as_run_runs_it() {
    let sets = [
        "--set",
        "sweep.law=[\"harness\"]",
        "--set",
        "sweep.circle={ radius = 4.0, n = 6 }",
        "--set",
        "solver.integrators=[\"radau5\"]",
        "--set",
        "b=[-1.0, -0.5]",
    ];
    // The same file written out and run by the runner.
    let dir = std::env::temp_dir().join(format!("rl_simulate_point_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let base = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/two_contact_iwc.toml"),
    )
    .unwrap()
    .replace("b = [-1.0, -1.0]", "b = [-1.0, -0.5]")
    .replace("law = [\"literal\", \"harness\"]", "law = [\"harness\"]")
    .replace(
        "circle = { radius = 5.0, n = 72 }",
        "circle = { radius = 4.0, n = 6 }",
    )
    .replace(
        "integrators = [\"dop853\", \"radau5\"]",
        "integrators = [\"radau5\"]",
    )
    .replace("name = \"two_contact_iwc\"", "name = \"two_contact_point\"");
    let file = dir.join("two_contact_point.toml");
    std::fs::write(&file, base).unwrap();
    let out_dir = dir.join("out");
    let (ok, _, stderr) = cli(&[
        "run",
        file.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    let text = std::fs::read_to_string(dir.join("out/runs.csv")).unwrap();
    let mut lines = text.lines();
    let columns: Vec<&str> = lines.next().unwrap().split(',').collect();
    let rows: Vec<BTreeMap<String, String>> = lines
        .map(|line| {
            let cells = rigid_limit::experiment::table::split_csv_line(line).unwrap();
            columns.iter().map(|c| c.to_string()).zip(cells).collect()
        })
        .collect();
    assert!(rows.len() >= 6, "{} rows", rows.len());
    for id in [0, rows.len() - 1] {
        let mut args = vec!["two_contact", "--point"];
        let id_text = id.to_string();
        args.push(&id_text);
        args.extend(sets);
        let (heading, row) = printed_row(&args);
        assert!(
            heading.contains(&format!("of {} of", rows.len())),
            "{heading}"
        );
        assert_eq!(row["law"], "harness");
        assert_eq!(row["b2"], "-0.5");
        assert_same_row(&format!("point {id}"), &row, &rows[id]);
        // --params names the file it ran instead of the example.
        let file_arg = file.to_str().unwrap();
        let (heading, from_file) =
            printed_row(&["two_contact", "--params", file_arg, "--point", &id_text]);
        assert!(heading.contains(file_arg), "{heading}");
        assert_same_row(&format!("--params point {id}"), &from_file, &rows[id]);
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn flags_that_do_not_apply_are_refused_by_name() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["two_contact", "--point", "296"],
            "296 points: give a point_id from 0 to 295",
        ),
        (
            &["two_contact", "--kappa", "1e-6"],
            "--kappa: system two_contact runs one point",
        ),
        (
            &["planar", "--integrator", "radau5"],
            "--integrator: system planar runs one point",
        ),
        (
            &["spring_particle", "--point", "2"],
            "system spring_particle runs one configuration",
        ),
        (
            &["schmid_mielke", "--set", "sweep.H11=2"],
            "sweep is no table in experiments/sm_ip",
        ),
        (
            &["two_contact", "--set", "P=[[1.0]]"],
            "experiments/two_contact_iwc.toml",
        ),
    ];
    for (args, expected) in cases {
        let (ok, _, stderr) = simulate(args);
        assert!(!ok, "{args:?} ran");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
    }
}
