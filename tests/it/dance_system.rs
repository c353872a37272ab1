//! Dance's particle as a system of the harness: the experiment file's form is read into the
//! configurations the study runs, in the order of the committed rows
//! (results/dance_start_slide/runs.csv); tests/golden.rs runs some of them, and `simulate dance`.

use rigid_limit::experiment::table::split_csv_line;
use rigid_limit::experiment::Plan;
use rigid_limit::models::dance::compliant::Start;
use rigid_limit::models::Experiment;
use std::collections::BTreeMap;
use std::path::Path;

/// The committed rows of dance_start_slide, as column → cell.
fn committed_rows() -> Vec<BTreeMap<String, String>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/dance_start_slide/runs.csv");
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let columns: Vec<String> = lines
        .next()
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect();
    lines
        .map(|l| {
            columns
                .iter()
                .cloned()
                .zip(split_csv_line(l).unwrap())
                .collect()
        })
        .collect()
}

/// The file's `[sweep] compliant` becomes one configuration per start and damping, after the
/// rigid configuration of every μ; the compliant ones run by `params.compliant_integrator` only.
#[test]
fn the_file_form_gives_the_rigid_runs_then_each_start() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/dance_start_slide.toml"),
    )
    .unwrap();
    let Experiment::Dance(spec) = Experiment::parse(&text).unwrap() else {
        panic!("a dance experiment")
    };
    let cases: Vec<(f64, Option<Start>, Option<f64>)> = spec
        .configurations()
        .unwrap()
        .iter()
        .map(|c| (c.mu, c.start, c.damping))
        .collect();
    let (rest, eq) = (Some(Start::Rest), Some(Start::Equilibrium));
    assert_eq!(
        cases,
        [
            (1.0, None, None),
            (0.5, None, None),
            (1.0, rest, Some(1.0)),
            (1.0, rest, Some(2.0)),
            (1.0, eq, Some(0.0)),
            (0.5, rest, Some(1.0)),
            (0.5, rest, Some(2.0)),
            (0.5, eq, Some(0.0)),
        ]
    );
    // 2 μ × 2 integrators rigid, 6 starts × 9 κ by radau5: the committed rows, in order.
    let rows = committed_rows();
    let points = spec.points();
    assert_eq!(points.len(), rows.len());
    for (point, row) in points.iter().zip(&rows) {
        // The cells as runs.csv writes them.
        let columns = [
            "point_id",
            "kappa",
            "mu",
            "method",
            "start",
            "damping",
            "integrator",
        ];
        let line = spec.input_row(point).to_csv_line(&columns);
        let want: Vec<&str> = columns.iter().map(|c| row[*c].as_str()).collect();
        assert_eq!(
            split_csv_line(&line).unwrap(),
            want,
            "point {}",
            row["point_id"]
        );
    }
}
