//! The `rigid-limit simulate` command: bad input gets a one-line error naming the flag and the
//! allowed range (non-zero exit, no panic); `--json` carries the documented fields.

use std::process::Command;

fn simulate(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_rigid-limit"))
        .arg("simulate")
        .args(args)
        .output()
        .expect("run rigid-limit");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn bad_input_is_rejected_with_the_flag_named() {
    let cases: &[(&[&str], &str)] = &[
        (&["--kappa", "0"], "--kappa"),
        (&["--kappa", "-1e-6"], "--kappa"),
        (&["--kappa", "NaN"], "--kappa"),
        (&["--kappa", "inf"], "--kappa"),
        (&["--mu", "0"], "--mu"),
        (&["--mu", "-2"], "--mu"),
        (&["--mu", "2", "--mu-s", "1.5"], "--mu-s"),
        (&["--rtol", "0"], "--rtol"),
        (&["--atol", "-1e-12"], "--atol"),
        (&["--integrator", "euler"], "--integrator"),
        (&["--theta0", "0"], "--theta0"),
        (&["--theta0", "3.2"], "--theta0"),
        (&["--damping", "-0.1"], "--damping"),
    ];
    for (args, flag) in cases {
        let (ok, _, err) = simulate(args);
        assert!(!ok, "{args:?} was accepted");
        assert!(
            err.contains(flag),
            "{args:?}: error does not name {flag}: {err}"
        );
        assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
        let first = err.lines().next().unwrap_or("");
        assert!(
            first.starts_with("error:") && first.contains(flag),
            "{args:?}: first line: {err}"
        );
    }
}

#[test]
fn json_output_has_the_documented_fields() {
    let (ok, out, err) = simulate(&["--kappa", "1e-6", "--json"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    assert_eq!(v["case"], "inconsistent");
    let modes: Vec<&str> = v["modes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["mode"].as_str().unwrap())
        .collect();
    assert_eq!(modes, ["slide_left", "stick", "slide_right"]);
    for m in v["modes"].as_array().unwrap() {
        assert!(m["t_end"].as_f64().unwrap() > m["t_start"].as_f64().unwrap());
    }
    for key in ["slide", "stick", "reverse_slip"] {
        assert!(
            v["durations"][key].as_f64().unwrap() > 0.0,
            "durations.{key}"
        );
    }
    for key in ["u", "v", "omega"] {
        assert!(v["post_impact"][key].is_number(), "post_impact.{key}");
    }
    assert!(v["post_impact"]["v"].as_f64().unwrap() > 0.0);
    for key in ["impulse_normal", "peak_normal_force", "max_penetration"] {
        assert!(v[key].as_f64().unwrap() > 0.0, "{key}");
    }
    for key in [
        "kinetic",
        "gravity",
        "spring",
        "friction_work",
        "damping_work",
        "balance_error",
    ] {
        assert!(v["energy"][key].is_number(), "energy.{key}");
    }
    for key in [
        "steps",
        "rejected_steps",
        "rhs_evals",
        "jacobian_evals",
        "lu_factorisations",
        "events",
        "wall_time_s",
    ] {
        assert!(v["stats"][key].is_number(), "stats.{key}");
    }
}

#[test]
fn summary_prints_case_durations_and_stats() {
    let (ok, out, err) = simulate(&["--kappa", "1e-6", "--integrator", "tsit45"]);
    assert!(ok, "{err}");
    for needle in [
        "case: inconsistent",
        "durations: slide",
        "post-impact",
        "stats: steps",
        "wall time",
    ] {
        assert!(out.contains(needle), "missing '{needle}' in\n{out}");
    }
}
