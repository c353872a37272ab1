//! The work–precision study of any system (`study = "work_precision"`): its errors fall as the
//! tolerance tightens, its reference is confirmed by its second integrator, the described
//! Painlevé rod's errors are the rod study's on the same impact, an interrupted study resumes
//! into the same rows, and a bad key is refused in one line naming it.

use crate::common::{run_all, run_options, scratch};
use rigid_limit::analysis::work_precision::ConfigurationAnalysis;
use rigid_limit::experiment::runner::RUNS_CSV;
use rigid_limit::experiment::table::parse_rows;
use rigid_limit::experiment::RunOptions;
use rigid_limit::models::described::Described;
use rigid_limit::models::Experiment;
use rigid_limit::report::work_precision::analysis;
use rigid_limit::study::work_precision::WorkPrecision;
use std::path::Path;

const ALL: &str =
    r#"["bdf", "tr-bdf2", "esdirk34", "tsit45", "radau5", "rodas4", "tsit5", "dop853"]"#;

/// A study of the two-corner box (systems/box.toml) sliding to t_end at κ = 1e-3, over the
/// ladder `ladder` by `integrators`, the reference at rtol 1e-12 by dop853 checked by tsit5.
fn box_study(integrators: &str, ladder: &str, extra: &str) -> String {
    format!(
        r#"
name = "wp_box_test"
model = "system"
study = "work_precision"
system = "systems/box.toml"
kappa = [1e-3]
{extra}
[[scenario]]
name = "slide"
t_end = 1.0

[solver]
integrators = {integrators}
rtol = {ladder}
repeats = 1

[reference]
integrators = ["dop853", "tsit5"]
rtol = 1e-12
"#
    )
}

fn described(text: &str) -> WorkPrecision<Described> {
    match Experiment::parse(text) {
        Ok(Experiment::DescribedWorkPrecision(spec)) => *spec,
        Ok(_) => panic!("not read as a described system's work–precision study"),
        Err(e) => panic!("{e}"),
    }
}

/// Each configuration of the described system's study, analysed from its rows.
fn analysed(spec: &WorkPrecision<Described>) -> Vec<ConfigurationAnalysis> {
    analysis(spec, &run_all(spec)).configurations
}

/// Convergence under tolerance refinement: for every integrator on the box's two sliding
/// contacts, the error at rtol 1e-8 is below a hundredth of that at rtol 1e-3 (five decades
/// apart), and the least-squares slope of log error against log rtol is at least 1/2 (every
/// integrator's global error falls at least as the square root of its tolerance). The reference
/// (dop853 at 1e-12) agrees with its check (tsit5) within 100 × its tolerance, and is more
/// accurate than every run of the ladder.
#[test]
fn errors_fall_as_the_tolerance_tightens_and_the_reference_is_confirmed() {
    let spec = described(&box_study(
        ALL,
        "{ min = 1e-8, max = 1e-3, per_decade = 1 }",
        "",
    ));
    let configurations = analysed(&spec);
    assert_eq!(configurations.len(), 1);
    let c = &configurations[0];
    let agreement = c.reference_error().expect("both reference runs succeed");
    assert!(
        agreement <= 100.0 * 1e-12,
        "reference agreement {agreement:e}"
    );
    for kind in &spec.solver.integrators {
        let runs: Vec<_> = c.runs_of(kind.name()).collect();
        assert_eq!(runs.len(), 6, "{kind}");
        let (loose, tight) = (runs[0], runs[runs.len() - 1]);
        assert_eq!((loose.rtol, tight.rtol), (1e-3, 1e-8));
        let errors: Vec<f64> = runs
            .iter()
            .map(|r| {
                r.error
                    .unwrap_or_else(|| panic!("{kind} rtol {}: failed", r.rtol))
            })
            .collect();
        assert!(
            errors[5] < 1e-2 * errors[0],
            "{kind}: error {:e} at rtol 1e-8 against {:e} at 1e-3",
            errors[5],
            errors[0]
        );
        let (x, y): (Vec<f64>, Vec<f64>) = runs
            .iter()
            .zip(&errors)
            .map(|(r, e)| (r.rtol.log10(), e.log10()))
            .unzip();
        let n = x.len() as f64;
        let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
        let slope = x
            .iter()
            .zip(&y)
            .map(|(a, b)| (a - mx) * (b - my))
            .sum::<f64>()
            / x.iter().map(|a| (a - mx).powi(2)).sum::<f64>();
        assert!(slope >= 0.5, "{kind}: error ∝ rtol^{slope:.2}");
        assert!(errors.iter().all(|&e| e > agreement), "{kind}: {errors:?}");
    }
}

/// The described Painlevé rod (systems/painleve_rod.toml) and the hand-coded rod of the rod's
/// integrator study on the same impact (Zhao–Liu: μ = 2, θ0 = 1.3, u0 = −1, κ = 1e-6, c_d = 0),
/// each against its own reference (tsit45 at 1e-13, checked by radau5): the errors of the
/// velocities after the impact (u, v, θ̇; absolute, as the rod study measures them) agree run by
/// run within 1 % + 1e-12 (the same dynamics, the same integrators and tolerances; only the
/// rounding of the expression trees differs), and so the cheapest integrator at each target
/// is the same on the same work.
#[test]
fn the_described_rod_has_the_rod_studys_errors_on_the_same_impact() {
    let integrators = r#"["tsit45", "radau5", "rodas4", "tsit5", "dop853"]"#;
    let described_rod = described(&format!(
        r#"
name = "wp_rod_test"
model = "system"
study = "work_precision"
system = "systems/painleve_rod.toml"
kappa = [1e-6]
[[scenario]]
name = "impact"
[solver]
integrators = {integrators}
rtol = {{ min = 1e-10, max = 1e-3, per_decade = 1 }}
repeats = 1
[reference]
integrators = ["tsit45", "radau5"]
rtol = 1e-13
"#
    ));
    let Experiment::RodScenarioWorkPrecision(rod_study) = Experiment::parse(&format!(
        r#"
name = "rod_test"
kind = "integrator_study"
integrators = {integrators}
rtol = {{ min = 1e-10, max = 1e-3, per_decade = 1 }}
repeats = 1
reference = {{ integrators = ["tsit45", "radau5"], rtol = 1e-13 }}
[[scenario]]
name = "impact"
kind = "impact"
kappa = 1e-6
mu = 2.0
theta0 = 1.3
u0 = -1.0
"#
    ))
    .unwrap() else {
        panic!("an integrator study is the rod scenarios' work–precision study")
    };
    let rod_study = *rod_study;
    let rows = run_all(&described_rod);
    let runs = &described_rod.configuration_runs(&rows)[0];
    let rod = &analysis(&rod_study, &run_all(&rod_study)).configurations[0];
    // The described record's quantities, one error measure each: x_A, y_A, θ at the
    // separation, then their rates.
    let velocities = |values: &Result<Vec<Option<Vec<f64>>>, String>| -> Vec<f64> {
        values.as_ref().expect("the run succeeds")[3..6]
            .iter()
            .map(|v| v.as_ref().expect("measured")[0])
            .collect()
    };
    let reference = velocities(&runs.reference[0].values);
    let velocity_columns = ["u_out", "v_out", "omega_out"];
    let mut compared = 0;
    for sample in &runs.ladder {
        let v = velocities(&sample.values);
        let described_error = v
            .iter()
            .zip(&reference)
            .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
        let twin = rod
            .runs
            .iter()
            .find(|r| r.integrator == sample.integrator && r.rtol == sample.rtol)
            .expect("the rod study has the same run");
        let rod_error = velocity_columns
            .iter()
            .map(|q| {
                let k = rod.measures.iter().position(|n| n == q).unwrap();
                twin.errors[k].expect("measured")
            })
            .fold(0.0f64, f64::max);
        assert!(
            (described_error - rod_error).abs() <= 1e-2 * rod_error + 1e-12,
            "{} rtol {}: described {described_error:e}, rod study {rod_error:e}",
            sample.integrator,
            sample.rtol
        );
        compared += 1;
    }
    assert_eq!(compared, 5 * 8);
}

/// The rows of `dir/runs.csv` (columns `columns`) without the timing cells.
fn rows_without_timing(dir: &Path, columns: &[&'static str]) -> Vec<Vec<(String, String)>> {
    let text = std::fs::read_to_string(dir.join(RUNS_CSV)).unwrap();
    parse_rows(&text, columns)
        .iter()
        .map(|row| {
            row.fields
                .iter()
                .filter(|(k, _)| *k != "repeats" && !k.starts_with("wall_time"))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

/// A study interrupted after 3 and then 5 new rows, then resumed, has the rows of an
/// uninterrupted run (timing aside), and its report; a rerun after a change of atol_per_rtol
/// (atol is an input of every row, the reference's too) runs every point again.
#[test]
fn an_interrupted_study_resumes_into_the_same_rows() {
    let text = box_study(
        r#"["dop853", "radau5"]"#,
        "{ min = 1e-6, max = 1e-3, per_decade = 1 }",
        "",
    );
    let experiment = Experiment::parse(&text).unwrap();
    let options = |dir: &Path, stop: Option<usize>| RunOptions {
        stop_after_rows: stop,
        ..run_options(dir)
    };
    let whole = scratch("wp-whole");
    let n = experiment.run(&options(&whole, None)).unwrap().points;
    assert_eq!(n, 2 + 2 * 4);
    let dir = scratch("wp-resumed");
    for stop in [3, 5] {
        let e = experiment.run(&options(&dir, Some(stop))).unwrap_err();
        assert!(e.to_string().contains("stopped after"), "{e}");
    }
    let resumed = experiment.run(&options(&dir, None)).unwrap();
    // Points in flight at an interruption finish and are journalled: at least 3 + 5 resumed.
    assert!(resumed.resumed >= 8 && resumed.resumed + resumed.ran == n);
    let columns = described(&text).columns();
    assert_eq!(
        rows_without_timing(&dir, &columns),
        rows_without_timing(&whole, &columns)
    );
    experiment.report(&dir).unwrap();
    let summary = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    assert!(summary.contains("| slide, κ = 0.001 |"), "{summary}");
    assert!(dir.join("work_precision.png").exists());
    assert!(dir.join("analysis.json").exists());
    let other =
        Experiment::parse(&text.replace("repeats = 1", "repeats = 1\natol_per_rtol = 10.0"))
            .unwrap();
    let again = other.run(&options(&dir, None)).unwrap();
    // atol = atol_per_rtol × rtol of the reference runs too.
    assert_eq!((again.resumed, again.ran), (0, n));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&whole);
}

/// Each mistake is one line that names the key and says what to write.
#[test]
fn a_bad_key_is_refused_in_one_line_naming_it() {
    let ladder = "{ min = 1e-6, max = 1e-3, per_decade = 1 }";
    let integrators = r#"["dop853"]"#;
    let good = box_study(integrators, ladder, "");
    assert!(Experiment::parse(&good).is_ok());
    let cases = [
        // A typo of a [solver] key.
        (good.replace("repeats = 1", "repeat = 1"), "repeat"),
        (good.replace("repeats = 1", "repeats = 0"), "solver.repeats"),
        // A parameter the box does not have.
        (
            good.replace("t_end = 1.0", "t_end = 1.0\nmuu = 0.3"),
            "scenario[0].muu",
        ),
        (
            good.replace("t_end = 1.0", "t_end = -1.0"),
            "scenario[0].t_end",
        ),
        // A reference looser than the ladder, or one integrator twice.
        (
            good.replace("rtol = 1e-12", "rtol = 1e-5"),
            "reference.rtol",
        ),
        (
            good.replace(r#"["dop853", "tsit5"]"#, r#"["dop853", "dop853"]"#),
            "reference.integrators",
        ),
        (good.replace("kappa = [1e-3]", "kappa = []"), "kappa"),
        (
            good.replace("study = \"work_precision\"", "study = \"work_precission\""),
            "study",
        ),
        (
            good.replace("model = \"system\"", "model = \"klarbring\""),
            "model",
        ),
        (good.replace("name = \"slide\"\n", ""), "name"),
    ];
    for (text, key) in cases {
        let message = match Experiment::parse(&text) {
            Ok(_) => panic!("accepted a bad {key}"),
            Err(e) => e.to_string(),
        };
        assert!(!message.contains('\n'), "{key}: {message}");
        assert!(message.contains(key), "{key}: {message}");
    }
    // The spring particle ends its runs at its parameter t_end: a scenario's t_end sets it, and
    // a bad one is refused naming the scenario's key.
    let particle = include_str!("../../experiments/spring_particle.toml");
    let params = &particle[particle.find("[params]").unwrap()..particle.find("[sweep]").unwrap()];
    let text = format!(
        r#"
name = "wp_particle"
model = "spring_particle"
study = "work_precision"
kappa = [1e-4]
{params}
[[scenario]]
name = "onset"
t_end = -2.0
[solver]
integrators = ["radau5"]
rtol = {ladder}
repeats = 1
[reference]
integrators = ["radau5", "tsit45"]
rtol = 1e-12
"#
    );
    let message = Experiment::parse(&text).err().unwrap().to_string();
    assert!(message.contains("scenario[0].t_end"), "{message}");
    assert!(Experiment::parse(&text.replace("t_end = -2.0", "t_end = 2.0")).is_ok());
}
