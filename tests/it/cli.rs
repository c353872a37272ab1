//! The `rigid-limit simulate` command: bad input gets a one-line error naming the flag and the
//! allowed range (non-zero exit, no panic); `--json` carries the documented fields.

use crate::common::{cli, number_after, zhao_liu_sweep};
use std::process::Command;

fn simulate(args: &[&str]) -> (bool, String, String) {
    crate::common::cli(&[&["simulate"], args].concat())
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
        (&["--repeat", "0"], "--repeat"),
        // Flags that would be accepted and ignored.
        (&["--trajectory"], "--trajectory"),
        (&["--height", "0.3"], "--height"),
        (
            &["--scenario", "sustained", "--t-end", "1", "--height", "0.3"],
            "--height",
        ),
        (&["--t-end", "1", "--t-max", "5"], "--t-max"),
        // Beyond what the model represents (issue 38): a body sunk into the ground by its own
        // size, and numbers whose energy overflows (they failed in the integrator at t = 0,
        // naming no input, or overflowed the vector field).
        (&["--kappa", "2"], "--kappa"),
        (&["--mu", "1e300"], "--mu"),
        (&["--mu-s", "1e308"], "--mu-s"),
        (&["--u0", "1e308"], "--u0"),
        (&["--omega0=-1e200"], "--omega0"),
        // Speeds that drive the contact through the body (√κ·|v| ≥ 1 body lengths): the
        // integrator failed at t = 0 with a minimum-step error that named no input.
        (&["--omega0", "1e150"], "--omega0"),
        (&["--u0", "1e150"], "--u0"),
        (&["--kappa", "1e-4", "--u0=-100"], "--u0"),
        (
            &["--scenario", "drop", "--t-end", "1", "--height", "1e308"],
            "--height",
        ),
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
    assert_eq!(
        crate::common::json_texts(&v["modes"], "mode"),
        ["slide_left", "stick", "slide_right"]
    );
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

/// A full standard output is a one-line error and exit 1, never a panic.
#[test]
fn a_full_stdout_is_an_error_not_a_panic() {
    let Ok(full) = std::fs::File::create("/dev/full") else {
        return; // not Linux: no /dev/full to write to
    };
    let out = Command::new(env!("CARGO_BIN_EXE_rigid-limit"))
        .args(["simulate", "--json", "--trajectory"])
        .stdout(full)
        .output()
        .expect("run rigid-limit");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("cannot write to standard output"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// A closed pipe (`… | head -1`) is the same one-line error.
#[test]
fn a_closed_pipe_is_an_error_not_a_panic() {
    let bin = env!("CARGO_BIN_EXE_rigid-limit");
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "'{bin}' simulate --json --trajectory 2>err.txt | head -c 1 >/dev/null; cat err.txt; rm -f err.txt"
        ))
        .current_dir(std::env::temp_dir())
        .output()
        .expect("run sh");
    let err = String::from_utf8_lossy(&out.stdout);
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.is_empty() || err.contains("cannot write to standard output"),
        "{err}"
    );
}

/// A write error in a sweep (a full disk, here a file-size limit) stops it at once with a
/// one-line error; no temporary file is left behind, and a rerun resumes from what was kept.
#[test]
fn a_full_disk_stops_the_sweep_at_once() {
    let dir = std::env::temp_dir().join(format!("rigid-limit-fulldisk-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let spec = dir.join("sweep.toml");
    std::fs::write(
        &spec,
        zhao_liu_sweep(
            "full_disk",
            "{ min = 1e-9, max = 1e-1, per_decade = 8 }",
            "integrators = [\"bdf\", \"tsit45\", \"radau5\"]\nrtol = 1e-8\natol = 1e-10",
        ),
    )
    .unwrap();
    let bin = env!("CARGO_BIN_EXE_rigid-limit");
    let out_dir = dir.join("out");
    // 4 KiB per file: the journal fills after a dozen rows of the 195.
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "trap '' XFSZ; ulimit -f 8; exec '{bin}' run '{}' --out '{}'",
            spec.display(),
            out_dir.display()
        ))
        .output()
        .expect("run sh");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("the sweep stopped"), "{err}");
    let names: Vec<String> = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.contains("tmp")), "{names:?}");
    assert!(!names.iter().any(|n| n == "runs.csv"), "{names:?}");
    // With room again the run resumes the kept rows and finishes.
    let again = Command::new(bin)
        .args(["run", &spec.display().to_string(), "--out"])
        .arg(&out_dir)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&again.stdout);
    assert!(again.status.success(), "{text}");
    assert!(
        text.contains("195 points") && !text.contains("(0 resumed"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A flag clap cannot parse is the same one-line error with exit 1 as any other bad input; a
/// negative count is a bad value of its flag, not an unknown flag.
#[test]
fn unparsable_flags_are_one_line_with_exit_1() {
    for args in [
        &["--kappa", "abc"][..],
        &["--bogus"][..],
        &["--max-events", "-inf"][..],
        &["--max-steps", "-1"][..],
        &["--repeat", "-2"][..],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_rigid-limit"))
            .arg("simulate")
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.starts_with("error: "), "{err}");
        if let Some(flag) = args.first().filter(|_| args.len() == 2) {
            assert!(err.contains(&format!("'{}' for '{flag}", args[1])), "{err}");
        }
    }
}

/// `--repeat N` times N runs in one process (docs/performance.md): every number but the wall
/// time is that of a single run.
#[test]
fn repeat_changes_nothing_but_the_wall_time() {
    let run = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec!["--kappa", "1e-6", "--integrator", "dop853", "--json"];
        args.extend_from_slice(extra);
        let (ok, out, err) = simulate(&args);
        assert!(ok, "{err}");
        let mut json: serde_json::Value = serde_json::from_str(&out).unwrap();
        let wall = json["stats"]
            .as_object_mut()
            .unwrap()
            .remove("wall_time_s")
            .unwrap();
        assert!(wall.as_f64().unwrap() > 0.0);
        json
    };
    assert_eq!(run(&[]), run(&["--repeat", "4"]));
}

/// `list` outside the repository (no experiments/ there) still lists models and integrators;
/// a directory asked for by `--experiments` must hold experiments.
#[test]
fn list_works_outside_the_repository() {
    let out = Command::new(env!("CARGO_BIN_EXE_rigid-limit"))
        .arg("list")
        .current_dir(std::env::temp_dir())
        .output()
        .expect("run rigid-limit");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("(none: experiments"), "{text}");
    assert!(text.contains("Models") && text.contains("dop853"), "{text}");
    // A directory named by --experiments that holds none is an error naming the flag.
    let out = Command::new(env!("CARGO_BIN_EXE_rigid-limit"))
        .args(["list", "--experiments", "/nonexistent-experiments"])
        .output()
        .expect("run rigid-limit");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(
        err.contains("--experiments") && err.contains("/nonexistent-experiments"),
        "{err}"
    );
}

/// An integrator failure names the integrators the integrator study found to work for the
/// scenario, and the one it suggests does work there.
#[test]
fn a_failing_integrator_names_those_the_study_found_to_work() {
    let state = [
        "--scenario",
        "sustained",
        "--t-end",
        "1",
        "--kappa",
        "1e-8",
        "--theta0",
        "0.5",
        "--mu",
        "0.3",
    ];
    let (ok, _, err) = simulate(&[&state[..], &["--integrator", "bdf"]].concat());
    assert!(!ok && err.contains("integrator bdf failed"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    let suggested = err
        .rsplit("try --integrator ")
        .next()
        .map(str::trim)
        .expect("a suggestion");
    assert!(err.contains("dop853") && err.contains("radau5"), "{err}");
    let (ok, _, err) = simulate(&[&state[..], &["--integrator", suggested]].concat());
    assert!(ok, "--integrator {suggested}: {err}");
}

/// `simulate SYSTEM` runs any system with a documented example once: the spring particle's slip
/// onset at κ is its closed form (asin(μkd/(a(1 + κk)))/ω to the tolerance), `--set` changes the
/// example's parameters, and the rigid limit follows μ (asin(μkd/a)/ω).
#[test]
fn simulate_runs_a_named_system_with_parameters_set() {
    let run = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec![
            "spring_particle",
            "--kappa",
            "1e-6",
            "--integrator",
            "radau5",
        ];
        args.extend_from_slice(extra);
        args.push("--json");
        let (ok, out, err) = simulate(&args);
        assert!(ok, "{err}");
        serde_json::from_str(&out).unwrap()
    };
    for mu in [0.5, 0.3] {
        let set = format!("mu={mu}");
        let json = run(&["--set", &set]);
        assert_eq!(json["system"], "spring_particle");
        assert_eq!(json["params"]["mu"].as_f64(), Some(mu));
        let record = &json["record"];
        let onset = record["t_slip_onset"].as_f64().unwrap();
        let closed = record["t_slip_onset_closed_form"].as_f64().unwrap();
        assert!(
            (onset - closed).abs() < 1e-7,
            "μ = {mu}: {onset} vs {closed}"
        );
        // The example: k = d = a = ω = 1, so the rigid onset is asin(μ).
        let rigid = record["t_slip_onset_rigid"].as_f64().unwrap();
        assert!((rigid - mu.asin()).abs() < 1e-12, "μ = {mu}: {rigid}");
        assert!((onset - rigid).abs() < 1e-5, "μ = {mu}: {onset} vs {rigid}");
    }
    // The text form carries the same cells.
    let (ok, out, err) = simulate(&["spring_particle", "--set", "mu=0.3"]);
    assert!(ok, "{err}");
    assert!(
        out.contains("  mu = 0.3\n") && out.contains("t_slip_onset = "),
        "{out}"
    );
}

/// Klarbring's particle by `simulate klarbring`: the compliant run's distance to its rigid
/// reference on the contact phase falls at rate 1 in κ (docs/klarbring.md), and `--method
/// rigid` runs the reference, whose events are those of the compliant run at small κ.
#[test]
fn simulate_runs_klarbring_compliant_and_rigid() {
    let run = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec![
            "klarbring",
            "--integrator",
            "tsit45",
            "--atol",
            "1e-14",
            "--json",
        ];
        args.extend_from_slice(extra);
        let (ok, out, err) = simulate(&args);
        assert!(ok, "{err}");
        serde_json::from_str(&out).unwrap()
    };
    let d = |json: &serde_json::Value| json["record"]["d_U_contact"].as_f64().unwrap();
    let (coarse, fine) = (run(&["--kappa", "1e-4"]), run(&["--kappa", "1e-6"]));
    // The work line times the whole run, as runs.csv does, also where the spatial
    // formulation does not time itself.
    assert!(fine["stats"]["wall_time_s"].as_f64().unwrap() > 0.0);
    let ratio = d(&coarse) / d(&fine);
    assert!(
        (30.0..300.0).contains(&ratio),
        "d_U_contact ratio {ratio} for κ ratio 100"
    );
    let rigid = run(&["--method", "rigid"]);
    assert_eq!(rigid["method"], "rigid");
    assert!(rigid.get("kappa").is_none());
    assert_eq!(
        rigid["record"]["event_kinds"],
        fine["record"]["event_kinds"]
    );
}

/// Bad input to `simulate SYSTEM` is one line naming what to fix.
#[test]
fn simulate_system_errors_name_the_input() {
    let cases: &[(&[&str], &str)] = &[
        (&["spring_particle", "--set", "bogus=1"], "bogus"),
        (&["spring_particle", "--set", "mu"], "KEY=VALUE"),
        (&["spring_particle", "--set", "mu=-1"], "params.mu"),
        (
            &["spring_particle", "--set", "mu=1e400"],
            "beyond the range",
        ),
        (
            &["spring_particle", "--method", "rigid"],
            "no rigid reference",
        ),
        (&["spring_particle", "--method", "exact"], "--method"),
        (&["spring_particle", "--t-end", "1"], "--t-end"),
        (&["spring_particle", "--kappa", "2"], "--kappa"),
        (&["spring_particle", "--mu", "1"], "--mu"),
        (
            &["spring_particle", "--params", "/nonexistent.toml"],
            "--params",
        ),
        (&["two_contact", "--rtol", "1e-6"], "--rtol"),
        (&["klarbring_impacts"], "sweep.V0"),
        (&["dance"], "params.start"),
        (&["bogus"], "SYSTEM = bogus"),
        (&["system"], "--system FILE"),
        (&["--set", "mu=1"], "SYSTEM"),
        (&["--method", "rigid"], "--method"),
    ];
    for (args, needle) in cases {
        let (ok, _, err) = simulate(args);
        assert!(!ok, "{args:?} succeeded");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

/// `simulate rod` takes the rod's `[params]` keys by `--set` and from a rod experiment by
/// `--params`, and its flags as `simulate` does, the same run as the flags (every number but the wall time); a key that is no
/// parameter of the rod, or a file of another system, is refused by name; a start above the
/// ground (`Y0`) falls freely to contact at t = √(2κY0) (ÿ_A = −1 with θ̇ = 0).
#[test]
fn simulate_rod_takes_its_parameters_by_set_and_params() {
    let run = |args: &[&str]| -> serde_json::Value {
        let (ok, out, err) = simulate(&[args, &["--kappa", "1e-6", "--json"]].concat());
        assert!(ok, "{args:?}: {err}");
        let mut json: serde_json::Value = serde_json::from_str(&out).unwrap();
        json["stats"].as_object_mut().unwrap().remove("wall_time_s");
        json
    };
    let set = run(&["rod", "--set", "mu=3", "--set", "theta0=1.2"]);
    assert_eq!(set["params"]["mu"].as_f64(), Some(3.0));
    assert_eq!(set["params"]["mu_s"].as_f64(), Some(3.0));
    assert_eq!(set, run(&["--mu", "3", "--theta0", "1.2"]));
    // The rod's flags name the rod too: `simulate rod --mu 3` is `simulate --mu 3`.
    assert_eq!(set, run(&["rod", "--mu", "3", "--theta0", "1.2"]));
    let file = run(&["rod", "--params", "experiments/zhao_liu_damped.toml"]);
    assert_eq!(file["params"]["damping"].as_f64(), Some(0.2));
    assert_eq!(file, run(&["--damping", "0.2"]));
    // A flag given is never dropped: not for the file's [params], not for --set of another key.
    let over_file = run(&[
        "rod",
        "--u0",
        "-2",
        "--params",
        "experiments/zhao_liu_damped.toml",
    ]);
    assert_eq!(over_file["params"]["u0"].as_f64(), Some(-2.0));
    assert_eq!(over_file, run(&["--u0", "-2", "--damping", "0.2"]));
    let with_set = run(&["rod", "--mu-s", "3", "--set", "theta0=1.2"]);
    assert_eq!(with_set["params"]["mu_s"].as_f64(), Some(3.0));
    assert_eq!(with_set, run(&["--mu-s", "3", "--theta0", "1.2"]));

    let kappa: f64 = 1e-6;
    let fall = run(&["rod", "--set", "Y0=1"]);
    let closes = &fall["events"][0];
    assert_eq!(closes["event"], "contact_closes");
    let t = closes["t"].as_f64().unwrap();
    assert!((t - (2.0 * kappa).sqrt()).abs() < 1e-9 * t, "{t}");

    for (args, named) in [
        (&["rod", "--set", "nu=3"][..], &["--set", "`nu`"][..]),
        (
            &["rod", "--params", "experiments/spring_particle.toml"][..],
            &["--params experiments/spring_particle.toml", "`depth`"][..],
        ),
        (
            &["rod", "--set", "theta0=4"][..],
            &["params.theta0", "(0, pi)"][..],
        ),
        // One parameter given twice is refused, not decided by the order of the flags.
        (
            &["rod", "--mu", "1", "--set", "mu=2"][..],
            &["--mu 1", "--set mu=", "give it once"][..],
        ),
        (
            &["rod", "--set", "mu=2", "--set", "mu=3"][..],
            &["--set = mu=3", "mu is set twice"][..],
        ),
        (
            &["spring_particle", "--set", "mu=0.2", "--set", "mu=0.3"][..],
            &["mu is set twice"][..],
        ),
        (
            &[
                "--system",
                "systems/box.toml",
                "--set",
                "mu=0.2",
                "--set",
                "mu=0.3",
            ][..],
            &["mu is set twice"][..],
        ),
        // --point is a point of a study's; a description runs its one configuration.
        (
            &["--system", "systems/box.toml", "--point", "2"][..],
            &["--point 2", "one configuration"][..],
        ),
    ] {
        let (ok, _, err) = simulate(args);
        assert!(!ok, "{args:?} ran");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        for word in named {
            assert!(err.contains(word), "{args:?}: {err}");
        }
    }
}

/// Ctrl-C during `run` stops the sweep as an interruption does: the process ends with one line
/// saying how many new rows it kept and how to resume, the journal holds them, and the same
/// command resumes from exactly those rows to the whole experiment.
#[cfg(unix)]
#[test]
fn ctrl_c_stops_a_run_that_the_same_command_resumes() {
    let dir = crate::common::scratch("ctrl-c");
    let out = dir.to_string_lossy().into_owned();
    let args = ["run", "experiments/painleve_atlas.toml", "--out", &out];
    let child = Command::new(env!("CARGO_BIN_EXE_rigid-limit"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let journal = dir.join("runs.journal.csv");
    let started = std::time::Instant::now();
    while std::fs::read_to_string(&journal).map_or(true, |t| t.lines().count() < 200) {
        assert!(started.elapsed().as_secs() < 120, "no rows after 120 s");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let output = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "the run finished: {err}");
    let line = err
        .lines()
        .find(|l| l.contains("stopped after"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(line.contains("run it again to resume"), "{line}");
    let kept: usize = number_after(line, "stopped after ");
    assert!(kept >= 199 && !dir.join("runs.csv").exists(), "{line}");
    let (ok, text, err) = cli(&args);
    assert!(ok, "{err}");
    assert!(
        text.contains(&format!(
            "100800 points ({kept} resumed, {} run, 0 failed)",
            100800 - kept
        )),
        "{text}"
    );
}
