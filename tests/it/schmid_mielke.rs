//! Schmid–Mielke §4 end to end: the incremental problem of experiments/sm_ip.toml and the
//! compliant model of experiments/sm_dynamic.toml run through the harness, checked against the
//! issue's acceptance numbers, and the experiment files' errors naming the key to fix.

use crate::common::{parse_error, run_and_report};
use rigid_limit::analysis::fit::power_law;
use rigid_limit::experiment::table::{parse_rows, Row};
use rigid_limit::models::schmid_mielke::examples::VaryingFriction;
use rigid_limit::models::schmid_mielke::jump::frozen_load_landing;
use rigid_limit::models::schmid_mielke::plan::columns;
use rigid_limit::models::Experiment;
use std::path::Path;

fn run(path: &Path, tag: &str) -> Vec<Row> {
    let experiment = Experiment::load(path).unwrap();
    let (dir, summary) = run_and_report(&experiment, &format!("sm-{tag}"));
    assert_eq!(summary.failed, 0);
    assert!(dir.join("summary.md").exists() && dir.join("analysis.json").exists());
    let text = std::fs::read_to_string(dir.join("runs.csv")).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    parse_rows(&text, &columns())
}

fn num(r: &Row, k: &str) -> f64 {
    r.number(k)
        .unwrap_or_else(|| panic!("{k} missing in {:?}", r.fields))
}

/// The "Done means" for (IP): the checks of every step, the sub-critical order
/// 1.00 ± 0.05 over N ≥ 256, exactness away from the jump for N ≥ 1024 (supercritical) and
/// N ≥ 4096 (critical), and the jump node time converging to the jump time.
#[test]
fn sm_ip_meets_the_acceptance_numbers() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/sm_ip.toml");
    let rows = run(&path, "ip");
    assert_eq!(rows.len(), 104);
    for r in &rows {
        assert!(num(r, "energy_slack_min") >= -1e-12, "{:?}", r.fields);
        assert!(num(r, "complementarity_max") <= 1e-12, "{:?}", r.fields);
        assert!(num(r, "stability_violation_max") <= 1e-12, "{:?}", r.fields);
    }
    let cases: Vec<(String, String)> = {
        let mut c: Vec<_> = rows
            .iter()
            .map(|r| (r.text("example").to_string(), r.text("H11").to_string()))
            .collect();
        c.dedup();
        c
    };
    assert_eq!(cases.len(), 8);
    for (ex, h11) in cases {
        let of: Vec<&Row> = rows
            .iter()
            .filter(|r| r.text("example") == ex && r.text("H11") == h11)
            .collect();
        let regime = of[0].text("regime");
        let steps = |r: &Row| num(r, "steps");
        match regime {
            "subcritical" => {
                let (n, e): (Vec<f64>, Vec<f64>) = of
                    .iter()
                    .filter(|r| steps(r) >= 256.0)
                    .map(|r| (steps(r), num(r, "sup_error")))
                    .unzip();
                let order = -power_law(&n, &e).unwrap().slope;
                assert!(
                    (order - 1.0).abs() <= 0.05,
                    "ex {ex} H11 {h11}: order {order}"
                );
            }
            _ => {
                let from = if regime == "critical" { 4096.0 } else { 1024.0 };
                for r in of.iter().filter(|r| steps(r) >= from) {
                    assert!(
                        num(r, "sup_error") <= 1e-12,
                        "ex {ex} H11 {h11}: {:?}",
                        r.fields
                    );
                }
            }
        }
        let finest = of
            .iter()
            .max_by(|a, b| steps(a).total_cmp(&steps(b)))
            .unwrap();
        let gap = num(finest, "jump_node_time") - num(finest, "transition_time_exact");
        assert!(
            (0.0..0.01).contains(&gap),
            "ex {ex} H11 {h11}: node time gap {gap}"
        );
    }
}

/// The rows of one case at (κ, ζ), as (ε, row), ε descending.
fn ladder<'a>(rows: &'a [Row], ex: &str, h11: &str, kappa: f64, zeta: f64) -> Vec<(f64, &'a Row)> {
    let mut v: Vec<(f64, &Row)> = rows
        .iter()
        .filter(|r| r.text("example") == ex && r.text("H11") == h11)
        .filter(|r| num(r, "kappa") == kappa && num(r, "zeta") == zeta)
        .map(|r| (num(r, "epsilon"), r))
        .collect();
    v.sort_by(|a, b| b.0.total_cmp(&a.0));
    v
}

/// The "Done means" for the compliant model: the sub-critical order 1 ± 0.1 in ε
/// (ε ≤ 0.01, κ = 1e-6), κ = 1e-4 against 1e-6 within 25 % at ε = 1e-3, the energy balance to
/// 1e-6 of the load work; the jump of §4.1 at H₁₁ = 0.3: crossing → t₂ = 0.9, the excursion
/// within 10 % of the frozen-load landing at ε = 3e-4 (ζ = 0.5), → 0 for ζ ≥ 1; §4.2 at
/// H₁₁ = 0.4: crossing → 2.2, then z → H⁻¹f(s).
#[test]
fn sm_dynamic_meets_the_acceptance_numbers() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/sm_dynamic.toml");
    let rows = run(&path, "dyn");
    for r in &rows {
        let (balance, work) = (num(r, "energy_balance_error"), num(r, "load_work"));
        assert!(balance.abs() <= 1e-6 * work.abs(), "{:?}", r.fields);
    }
    for (ex, h11) in [("1", "1"), ("1", "0.5"), ("2", "1")] {
        let lad = ladder(&rows, ex, h11, 1e-6, 0.5);
        let (e, err): (Vec<f64>, Vec<f64>) = lad
            .iter()
            .filter(|(e, _)| *e <= 0.01)
            .map(|(e, r)| (*e, num(r, "sup_error")))
            .unzip();
        let order = power_law(&e, &err).unwrap().slope;
        assert!(
            (order - 1.0).abs() <= 0.1,
            "ex {ex} H11 {h11}: order {order}"
        );
        let at = |kappa: f64| {
            let l = ladder(&rows, ex, h11, kappa, 0.5);
            num(l.iter().find(|(e, _)| *e == 1e-3).unwrap().1, "sup_error")
        };
        let change = (at(1e-4) - at(1e-6)).abs() / at(1e-6);
        assert!(
            change < 0.25,
            "ex {ex} H11 {h11}: κ changes the error by {change}"
        );
    }
    let p = VaryingFriction {
        h11: 0.3,
        h22: 10.0,
        sigma_star: 1.0,
        mu0: 0.6,
        mu1: 0.2,
        load_rate: 1.0,
    };
    let lad = ladder(&rows, "1", "0.3", 1e-6, 0.5);
    let finest = lad.last().unwrap().1;
    assert!((num(finest, "crossing_time") - 0.9).abs() < 0.01);
    let frozen = frozen_load_landing(&p, 0.5).unwrap().excursion;
    let at = lad.iter().find(|(e, _)| *e == 3e-4).unwrap().1;
    let ratio = num(at, "excursion") / frozen;
    assert!((ratio - 1.0).abs() < 0.1, "excursion / frozen = {ratio}");
    for zeta in [1.0, 2.0] {
        assert_eq!(frozen_load_landing(&p, zeta).unwrap().excursion, 0.0);
        let lad = ladder(&rows, "1", "0.3", 1e-6, zeta);
        let excursions: Vec<f64> = lad.iter().map(|(_, r)| num(r, "excursion").abs()).collect();
        assert!(
            excursions.windows(2).all(|w| w[1] < w[0]),
            "ζ {zeta}: {excursions:?}"
        );
        assert!(
            excursions[excursions.len() - 1] < 0.005,
            "ζ {zeta}: {excursions:?}"
        );
    }
    let lad = ladder(&rows, "2", "0.4", 1e-6, 0.5);
    let finest = lad.last().unwrap().1;
    assert!((num(finest, "crossing_time") - 2.2).abs() < 0.01);
    // H⁻¹f(4) = 2(−1, 0.4)/0.6, up to the drag's lag O(ε).
    assert!((num(finest, "z1_end") + 10.0 / 3.0).abs() < 1e-3);
    assert!((num(finest, "z2_end") - 4.0 / 3.0).abs() < 1e-3);
    assert!(num(finest, "sup_error") < 1e-3);
}

const EX1: &str = "name = \"t\"\nmodel = \"schmid_mielke\"\n[params]\nmethod = \"incremental\"\n\
    example = 1\nH22 = 10.0\nsigma_star = 1.0\nmu0 = 0.6\nmu1 = 0.2\nload_rate = 1.0\nt_end = 3.0\n";

#[test]
fn bad_experiment_files_name_the_key() {
    let ok = format!("{EX1}H11 = 0.3\nsteps = 64\n");
    assert!(Experiment::parse(&ok).is_ok());
    let e = parse_error(&format!("{EX1}H11 = 0.3\nsteps = 64\nmu2 = 1\n"));
    assert!(e.contains("mu2"), "{e}");
    let e = parse_error(&format!("{EX1}steps = 64\n"));
    assert!(e.contains("params.H11") && e.contains("missing"), "{e}");
    let e = parse_error(&format!("{EX1}H11 = 0.3\nsteps = 64.5\n"));
    assert!(e.contains("params.steps"), "{e}");
    let e = parse_error(&format!("{EX1}H11 = 0.3\n[sweep]\nsteps = [16, 0]\n"));
    assert!(e.contains("sweep.steps"), "{e}");
    let e = parse_error(&format!(
        "{EX1}H11 = 0.3\nsteps = 16\n[sweep]\nH11 = [1.0]\n"
    ));
    assert!(e.contains("sweep.H11") && e.contains("one place"), "{e}");
    let e = parse_error(&format!(
        "{EX1}steps = 16\n[[sweep]]\nH11 = [1.0]\n[[sweep]]\nH11 = [-1.0]\n"
    ));
    assert!(e.contains("sweep[1].H11"), "{e}");
    let e = parse_error(&EX1.replace("example = 1", "example = 3"));
    assert!(e.contains("example"), "{e}");
    let ex2 = "name = \"t\"\nmodel = \"schmid_mielke\"\n[params]\nmethod = \"incremental\"\n\
        example = 2\nH11 = 1.0\nH12 = 1.0\nH22 = 4.0\nmu_star = 0.5\nf_star = 0.0\n\
        load_rate = 1.0\nt_end = 4.0\nsteps = 16\n";
    let e = parse_error(ex2);
    assert!(e.contains("params.f_star") && e.contains("stable"), "{e}");
    let e = parse_error(&ex2.replace("H12 = 1.0", "H12 = 3.0"));
    assert!(
        e.contains("params.H12") && e.contains("positive definite"),
        "{e}"
    );
    let compliant = format!("{EX1}H11 = 0.3\n").replace("incremental", "compliant");
    let e = parse_error(&format!("{compliant}epsilon = 1e-3\nzeta = 0.5\n"));
    assert!(e.contains("params.kappa") && e.contains("compliant"), "{e}");
    let e = parse_error(&format!(
        "{compliant}epsilon = 1e-3\nzeta = 0.5\nkappa = 0\n"
    ));
    assert!(e.contains("params.kappa"), "{e}");
    let ok = format!("{compliant}epsilon = 1e-3\nzeta = 0.5\nkappa = 1e-6\n");
    assert!(Experiment::parse(&ok).is_ok());
    // κ bounded as for every compliant model: below what double precision resolves, and at
    // penetrations as large as the body.
    for (kappa, why) in [("2.0", "must be < 1"), ("1e-30", "must be >= 1e-24")] {
        let e = parse_error(&ok.replace("kappa = 1e-6", &format!("kappa = {kappa}")));
        assert!(e.contains("params.kappa") && e.contains(why), "{e}");
    }
    let e = parse_error(&ok.replace("compliant", "rigid"));
    assert!(e.contains("params.method"), "{e}");
}
