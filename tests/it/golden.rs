//! Golden test: re-run fixed subsets of the shipped experiments and compare every non-timing cell
//! with the committed `results/*/runs.csv`. It guards refactors that must not move a number:
//! text and integer cells must be equal, floating-point cells equal to 1e-12 relative (the
//! allowance for another CPU's libm; on the machine that wrote results/ they are bit-identical).
//! It also freezes the column lists and the `simulate --json` key set.

use rigid_limit::experiment::table::split_csv_line;
use rigid_limit::experiment::Plan;
use rigid_limit::models::Experiment;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// Columns that hold wall times or their repeat counts: they vary from run to run.
pub(crate) const TIMING_COLUMNS: &[&str] = &["wall_time_s", "wall_time_min_s", "repeats"];

/// The committed table: its header and its rows by point id.
pub(crate) fn committed(name: &str) -> (String, BTreeMap<usize, BTreeMap<String, String>>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("results")
        .join(name)
        .join("runs.csv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let mut lines = text.lines();
    let header = lines.next().expect("a header").to_string();
    let columns: Vec<String> = header.split(',').map(str::to_string).collect();
    let rows = lines
        .map(|line| {
            let cells = split_csv_line(line).expect("a whole line");
            assert_eq!(cells.len(), columns.len(), "{name}: torn line {line}");
            let row: BTreeMap<String, String> = columns.iter().cloned().zip(cells).collect();
            (row["point_id"].parse().unwrap(), row)
        })
        .collect();
    (header, rows)
}

/// Whether two cells agree: equal text, or both numbers within 1e-12 relative. A cell of
/// space-separated numbers (a state) is compared number by number.
pub(crate) fn cells_agree(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let (xs, ys): (Vec<_>, Vec<_>) = (a.split(' ').collect(), b.split(' ').collect());
    xs.len() == ys.len()
        && xs
            .iter()
            .zip(&ys)
            .all(|(x, y)| match (x.parse::<f64>(), y.parse::<f64>()) {
                (Ok(x), Ok(y)) => (x - y).abs() <= 1e-12 * x.abs().max(y.abs()),
                _ => x == y,
            })
}

/// Re-run the points of `plan` whose committed row passes `select`, and compare every cell.
fn check<P: Plan>(
    plan: &P,
    name: &str,
    select: impl Fn(&BTreeMap<String, String>) -> bool,
) -> usize {
    let (header, rows) = committed(name);
    assert_eq!(
        plan.columns().join(","),
        header,
        "{name}: the runs.csv columns changed"
    );
    let mut checked = 0;
    let mut mismatches = Vec::new();
    for point in plan.points() {
        let id = plan.point_id(&point);
        let want = rows
            .get(&id)
            .unwrap_or_else(|| panic!("{name}: point {id} is not in the committed table"));
        if !select(want) {
            continue;
        }
        let got = plan.run_point(&point);
        for column in &plan.columns() {
            if TIMING_COLUMNS.contains(column) {
                continue;
            }
            let (g, w) = (got.text(column), want[*column].as_str());
            if !cells_agree(g, w) {
                mismatches.push(format!("point {id} {column}: got {g:?}, committed {w:?}"));
            }
        }
        checked += 1;
    }
    assert!(
        mismatches.is_empty(),
        "{name}: {} cells differ from results/{name}/runs.csv:\n{}",
        mismatches.len(),
        mismatches[..mismatches.len().min(20)].join("\n")
    );
    checked
}

fn load(name: &str) -> Experiment {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("experiments")
        .join(format!("{name}.toml"));
    Experiment::load(&path).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn zhao_liu_reproduces_every_committed_row() {
    let Experiment::Rod(spec) = load("zhao_liu") else {
        panic!("zhao_liu is a sweep")
    };
    assert_eq!(check(spec.as_ref(), "zhao_liu", |_| true), 180);
}

#[test]
fn zhao_liu_damped_reproduces_its_committed_rows() {
    let Experiment::Rod(spec) = load("zhao_liu_damped") else {
        panic!("zhao_liu_damped is a sweep")
    };
    // Every fourth κ of each integrator: the whole ladder's range at a quarter of the cost.
    let n = check(spec.as_ref(), "zhao_liu_damped", |row| {
        row["point_id"].parse::<usize>().unwrap() % 16 < 4
    });
    assert!(n >= 40, "only {n} rows checked");
}

#[test]
fn integrator_study_reproduces_its_committed_rows() {
    let Experiment::RodScenarioWorkPrecision(spec) = load("integrators") else {
        panic!("integrators is a study")
    };
    // Both impact configurations in full, one κ of the sustained and of the drop scenario.
    let n = check(spec.as_ref(), "integrators", |row| {
        row["scenario"] == "impact" || row["kappa"].parse::<f64>() == Ok(1e-6)
    });
    // 6 configurations × (10 tolerances × 8 integrators + 2 references).
    assert_eq!(n, 6 * (10 * 8 + 2));
}

#[test]
fn mode_tables_reproduce_every_committed_row() {
    let Experiment::PlanarModeTable(planar) = load("mode_table_planar") else {
        panic!("mode_table_planar is a planar mode table")
    };
    // Every row but the five of the state a = 2 (II(iv)) from V0 = −4: that start lies exactly
    // on the friction cone's edge (λ_T = −4 = −μλ_N), so its first mode (stick or slip) is
    // decided by the last bit of λ_N = 4√κ/√κ and may change with any rounding (its outcome,
    // S+, does not: docs/champneys_varkonyi.md §8).
    let n = check(planar.as_ref(), "mode_table_planar", |row| {
        !(row["a"] == "2" && row["V0"] == "-4")
    });
    assert_eq!(n, 475);
    let Experiment::RodModeTable(rod) = load("mode_table_rod") else {
        panic!("mode_table_rod is the rod's mode table")
    };
    assert_eq!(check(rod.as_ref(), "mode_table_rod", |_| true), 520);
}

#[test]
fn basins_reproduce_every_committed_row() {
    let Experiment::PlanarBasin(planar) = load("liftoff_iwc_basin_planar") else {
        panic!("liftoff_iwc_basin_planar is a planar basin")
    };
    assert_eq!(
        check(planar.as_ref(), "liftoff_iwc_basin_planar", |_| true),
        21
    );
    let Experiment::RodBasin(rod) = load("liftoff_iwc_basin_rod") else {
        panic!("liftoff_iwc_basin_rod is the rod's basin")
    };
    assert_eq!(check(rod.as_ref(), "liftoff_iwc_basin_rod", |_| true), 63);
}

/// The keys of a JSON object, sorted and joined.
fn keys(v: &serde_json::Value) -> String {
    let mut k: Vec<_> = v.as_object().expect("an object").keys().cloned().collect();
    k.sort();
    k.join(",")
}

#[test]
fn simulate_json_keys_are_frozen() {
    let out = Command::new(env!("CARGO_BIN_EXE_rigid-limit"))
        .args(["simulate", "--kappa", "1e-6", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        keys(&json),
        "atol,case,durations,energy,events,final_state,impulse_normal,impulse_tangential,\
         integrator,max_penetration,modes,params,peak_normal_force,post_impact,rigid_limit,rtol,\
         scenario,separated,slide_coefficients,stats"
    );
    assert_eq!(
        keys(&json["params"]),
        "damping,kappa,mu,mu_s,omega0,theta0,u0"
    );
    assert_eq!(keys(&json["durations"]), "reverse_slip,slide,stick");
    assert_eq!(keys(&json["post_impact"]), "omega,t,u,v");
    assert_eq!(
        keys(&json["energy"]),
        "balance_error,damping_work,final_total,friction_work,gravity,initial_total,kinetic,\
         separation_loss,spring"
    );
    assert_eq!(
        keys(&json["stats"]),
        "events,jacobian_evals,jvp_evals,lu_factorisations,newton_iterations,rejected_steps,\
         rhs_evals,steps,wall_time_s"
    );
    assert_eq!(
        keys(&json["modes"][0]),
        "duration,mode,q_end,qdot_end,t_end,t_start"
    );
    assert_eq!(keys(&json["events"][0]), "event,from,t,to");
    assert_eq!(keys(&json["final_state"]), "q,qdot,t");
    assert_eq!(
        keys(&json["rigid_limit"]),
        "impulse_total,omega_out,reverse_slip_duration_scaled,slide_impulse,slide_log_offset,\
         slide_rate,stick_duration_scaled,u_out,v_out"
    );
    assert_eq!(keys(&json["slide_coefficients"]), "a,b,c,d,p");
}

#[test]
fn dance_start_slide_reproduces_every_committed_row() {
    let Experiment::Dance(spec) = load("dance_start_slide") else {
        panic!("dance_start_slide is a dance sweep")
    };
    // The four rigid rows and the compliant rows at κ = 1e-6 (six cases).
    let n = check(spec.as_ref(), "dance_start_slide", |row| {
        row["method"] == "rigid" || row["kappa"] == "1e-6"
    });
    assert_eq!(n, 4 + 6);
}

/// `simulate dance ARGS`'s parameter and measured cells (`  key = value`; `(none)` is empty).
fn simulate_dance(args: &[&str]) -> BTreeMap<String, String> {
    let out = Command::new(env!("CARGO_BIN_EXE_rigid-limit"))
        .args(["simulate", "dance", "--rtol", "1e-12", "--atol", "1e-18"])
        .args(args)
        .output()
        .expect("run rigid-limit");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("  ")?.split_once(" = "))
        .map(|(k, v)| {
            (
                k.to_string(),
                if v == "(none)" { "" } else { v }.to_string(),
            )
        })
        .collect()
}

/// A rigid run that a setting rules out (Dance's `start` selects the compliant runs) is
/// refused in one line that names the setting, not as a system without a rigid reference.
#[test]
fn simulate_dance_rigid_with_a_compliant_start_names_the_setting() {
    let out = Command::new(env!("CARGO_BIN_EXE_rigid-limit"))
        .args(["simulate", "dance", "--method", "rigid"])
        .args(["--set", "mu=1", "--set", "start=rest"])
        .output()
        .expect("run rigid-limit");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("--set mu=1 --set start=rest") && err.trim().lines().count() == 1,
        "{err}"
    );
}

/// One run of `simulate dance` prints the cells of the committed row of the same configuration,
/// and every measured cell the row fills.
#[test]
fn simulate_dance_gives_the_committed_rows() {
    let (header, rows) = committed("dance_start_slide");
    let measured: Vec<&str> = header
        .split(',')
        .skip_while(|c| *c != "error")
        .skip(1)
        .take_while(|c| *c != "steps")
        .collect();
    /// The arguments, and the committed row's cells that select the same configuration.
    type Case<'a> = (&'a [&'a str], [(&'a str, &'a str); 4]);
    let cases: [Case; 2] = [
        // From rest with c_d = 1 at κ = 1e-6: one stop, one stick.
        (
            &[
                "--set",
                "mu=1",
                "--set",
                "start=rest",
                "--set",
                "damping=1",
                "--kappa",
                "1e-6",
                "--integrator",
                "radau5",
            ],
            [
                ("mu", "1"),
                ("start", "rest"),
                ("damping", "1"),
                ("kappa", "1e-6"),
            ],
        ),
        // The rigid slide of the convergent series (μ = 1/2), by the explicit integrator.
        (
            &[
                "--method",
                "rigid",
                "--set",
                "mu=0.5",
                "--integrator",
                "tsit45",
            ],
            [
                ("mu", "0.5"),
                ("method", "rigid"),
                ("integrator", "tsit45"),
                ("start", ""),
            ],
        ),
    ];
    for (args, select) in cases {
        let row = rows
            .values()
            .find(|r| select.iter().all(|(k, v)| r[*k] == *v))
            .expect("a committed row");
        let got = simulate_dance(args);
        for (key, value) in &got {
            assert!(
                cells_agree(value, &row[key]),
                "{args:?} {key}: {value} vs {}",
                row[key]
            );
        }
        for column in &measured {
            assert!(
                got.contains_key(*column) || row[*column].is_empty(),
                "{args:?}: {column} missing"
            );
        }
    }
}

#[test]
fn klarbring_impacts_reproduces_every_committed_row() {
    let Experiment::KlarbringImpacts(spec) = load("klarbring_impacts") else {
        panic!("klarbring_impacts is a klarbring_impacts sweep")
    };
    assert_eq!(check(spec.as_ref(), "klarbring_impacts", |_| true), 52);
}
