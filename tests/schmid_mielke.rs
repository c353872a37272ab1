//! Schmid–Mielke §4 end to end: the incremental problem of experiments/sm_ip.toml run through
//! the harness, checked against the acceptance numbers, and the experiment files'
//! errors naming the key to fix.

use rigid_limit::analysis::fit::power_law;
use rigid_limit::experiment::table::{parse_rows, Row};
use rigid_limit::experiment::RunOptions;
use rigid_limit::models::schmid_mielke::plan::columns;
use rigid_limit::models::Experiment;
use std::path::Path;

fn run(path: &Path, tag: &str) -> Vec<Row> {
    let experiment = Experiment::load(path).unwrap();
    let dir = std::env::temp_dir().join(format!("rigid-limit-sm-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let opts = RunOptions {
        out_dir: dir.clone(),
        shard: None,
        progress: false,
        fresh: false,
        command_line: "test".into(),
    };
    let summary = experiment.run(&opts).unwrap();
    assert_eq!(summary.failed, 0);
    experiment.report(&dir).unwrap();
    assert!(dir.join("summary.md").exists() && dir.join("ip_convergence.png").exists());
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

fn parse_error(text: &str) -> String {
    Experiment::parse(text).unwrap_err().to_string()
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
}
