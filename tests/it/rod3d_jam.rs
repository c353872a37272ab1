//! The 3D rod's dynamic jam (C–V §7) end to end: its experiment file on a short κ ladder
//! through the registry, against the rigid slip's crossing of p = 0 and the closed forms; the
//! energy balance of the compliant runs (which holds only if the hand-coded velocity terms are
//! those of the mass matrix); bad input.

use crate::common::run_and_report;
use rigid_limit::models::Experiment;
use std::path::Path;

fn file_text() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/rod3d_jam.toml");
    std::fs::read_to_string(path).unwrap()
}

/// κ = 1e-5 … 1e-9, both laws: the rigid slip jams transversally away from the G-spot at the
/// closed-form crossing rate; every compliant slip ends after t* inside p < 0 at distances
/// shrinking like κ^(2/5) (10^0.4 ≈ 2.5 per decade), the peak force grows like κ^(−1/2), the
/// energy balance closes, and the two laws' outcomes after the jam differ.
#[test]
fn the_compliant_rod_crosses_into_the_painleve_range_and_its_outcome_depends_on_the_law() {
    let text = file_text().replace(
        "kappa = { min = 1e-10, max = 1e-5, per_decade = 2 }",
        "kappa = { min = 1e-9, max = 1e-5, per_decade = 1 }",
    );
    let experiment = Experiment::parse(&text).unwrap();
    let (dir, summary) = run_and_report(&experiment, "rod3d");
    assert_eq!((summary.points, summary.failed), (12, 0));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("analysis.json")).unwrap()).unwrap();
    let rigid = &json["rigid"];
    assert_eq!(rigid["end"], "jam");
    assert_eq!(rigid["transversal_away_from_gspot"], true);
    assert!(rigid["b"].as_f64().unwrap() < -0.1);
    assert!(rigid["crossing_rate_error"].as_f64().unwrap() < 1e-3);
    let force = rigid["force_exponent"]["slope"].as_f64().unwrap();
    assert!((force + 0.5).abs() < 0.02, "{force}");
    for law in json["laws"].as_array().unwrap() {
        assert_eq!(law["runs"], 5);
        assert_eq!(law["crossed"], 5);
        assert_eq!(law["separated"], 5);
    }
    let rows = std::fs::read_to_string(dir.join("runs.csv")).unwrap();
    let mut lines = rows.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (kappa, damping, method) = (col("kappa"), col("damping"), col("method"));
    let (t_slip, t_star, peak, energy) = (
        col("t_slip_end"),
        col("t_slip_end_rigid"),
        col("peak_normal_force"),
        col("energy_balance_error"),
    );
    let compliant: Vec<Vec<&str>> = lines
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|c| c[method] == "compliant" && c[damping] == "0")
        .collect();
    let num = |c: &Vec<&str>, i: usize| c[i].parse::<f64>().unwrap();
    let mut by_kappa: Vec<&Vec<&str>> = compliant.iter().collect();
    by_kappa.sort_by(|a, b| num(a, kappa).total_cmp(&num(b, kappa)));
    for pair in by_kappa.windows(2) {
        let (small, large) = (pair[0], pair[1]);
        let offset = |c: &Vec<&str>| num(c, t_slip) - num(c, t_star);
        assert!(offset(small) > 0.0);
        let ratio = offset(large) / offset(small);
        assert!((2.0..3.2).contains(&ratio), "{ratio}");
        let force_ratio = num(small, peak) / num(large, peak);
        assert!((2.8..3.5).contains(&force_ratio), "{force_ratio}");
    }
    for c in &compliant {
        assert!(num(c, energy).abs() < 1e-8, "{}", c[energy]);
    }
    assert!(json["impulse_law_spread"].as_f64().unwrap() > 0.2);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_input_names_the_key() {
    for (from, to, key) in [
        ("theta0 = 1.0", "theta0 = 2.0", "theta0"),
        ("gyration_sq = 0.01", "gyration_sq = -1.0", "gyration_sq"),
        // Slip in the rod's plane at θ0 = 1 is inside the Painlevé range: p < 0 at the start.
        ("slip_angle0 = 1.0", "slip_angle0 = 0.0", "slip_angle0"),
    ] {
        let e = Experiment::parse(&file_text().replace(from, to))
            .unwrap_err()
            .to_string();
        assert!(e.contains(key) && !e.contains('\n'), "{e}");
    }
}
