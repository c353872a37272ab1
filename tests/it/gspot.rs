//! The rod's G-spot (C–V §5.1) end to end: its experiment file on a short κ ladder through the
//! registry, against the rigid slip's G-spot time and the jump into stick there; bad input.

use crate::common::run_and_report;
use rigid_limit::models::Experiment;
use std::path::Path;

fn file_text() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/gspot_rod.toml");
    std::fs::read_to_string(path).unwrap()
}

/// Five κ a decade apart, linear spring: every run stops the slip just after the rigid slip's
/// G-spot time t*, at distances shrinking like κ^(1/3) (a factor 10^(1/3) ≈ 2.15 per decade,
/// within the slowly varying factor), with the peak force growing like κ^(−1/3), and
/// the spin after lift-off closing in on the jump into stick at t*.
#[test]
fn the_compliant_rod_stops_its_slip_at_the_g_spot_as_kappa_falls() {
    let text = file_text()
        .replace(
            "kappa = { min = 1e-11, max = 1e-4, per_decade = 2 }",
            "kappa = { min = 1e-9, max = 1e-5, per_decade = 1 }",
        )
        .replace("damping = [0.0, 1.0]", "damping = [0.0]");
    let experiment = Experiment::parse(&text).unwrap();
    let (dir, summary) = run_and_report(&experiment, "gspot");
    assert_eq!((summary.points, summary.failed), (6, 0));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("analysis.json")).unwrap()).unwrap();
    assert_eq!(json["rigid_end"], "gspot");
    assert_eq!(json["gspot"]["case"], "g1");
    let law = &json["laws"][0];
    assert_eq!(law["slip_stopped"], 5);
    let csv = std::fs::read_to_string(dir.join("runs.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|c| *c == name).unwrap();
    let rows: Vec<Vec<String>> = lines
        .map(|l| l.split(',').map(str::to_string).collect())
        .filter(|r: &Vec<String>| r[col("method")] == "compliant")
        .collect();
    let num = |r: &Vec<String>, c: &str| r[col(c)].parse::<f64>().unwrap();
    // Rows from large κ to small.
    let offsets: Vec<f64> = rows
        .iter()
        .map(|r| num(r, "t_slip_end") - num(r, "t_slip_end_rigid"))
        .collect();
    let forces: Vec<f64> = rows.iter().map(|r| num(r, "peak_normal_force")).collect();
    let spin_errors: Vec<f64> = rows
        .iter()
        .map(|r| (num(r, "omega_out") - num(r, "omega_out_slip_stop")).abs())
        .collect();
    for i in 1..rows.len() {
        let shrink = offsets[i - 1] / offsets[i];
        let growth = forces[i] / forces[i - 1];
        assert!(
            offsets[i] > 0.0 && (1.8..2.6).contains(&shrink),
            "{offsets:?}"
        );
        assert!((1.8..2.8).contains(&growth), "{forces:?}");
        assert!(spin_errors[i] < spin_errors[i - 1], "{spin_errors:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A rightward slip, or a start that lifts off at once, is refused in one line naming the key.
#[test]
fn starts_the_study_cannot_follow_are_refused_naming_the_key() {
    for (from, to, key) in [
        ("u0 = -2.0", "u0 = 2.0", "params.u0"),
        (
            "omega0 = 1.2619032655739446",
            "omega0 = 3.0",
            "params.omega0",
        ),
    ] {
        let err = Experiment::parse(&file_text().replace(from, to))
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(err.contains(key) && !err.contains('\n'), "{err}");
    }
}
