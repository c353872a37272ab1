//! The extension module `rigid_limit._native`: thin wrappers of the library's entry points — the
//! experiment registry (`models::Experiment`), `simulate` as the CLI runs it, and the κ → 0
//! extrapolation (`analysis::extrapolate`). Values cross as JSON text and lists of floats; the
//! Python package (rigid_limit/__init__.py) makes them NumPy arrays and DataFrames. Every
//! computation runs with the GIL released.

use clap::Parser;
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rigid_limit::analysis::extrapolate::{extrapolate as extrapolate_ladder, ExtrapolationOptions};
use rigid_limit::experiment::grammar::toml_text_of_json;
use rigid_limit::experiment::{RunOptions, RunSummary};
use rigid_limit::models::described::cli::parse_description;
use rigid_limit::models::described::cli::simulate_description;
use rigid_limit::models::Experiment;
use rigid_limit::output::one_line_error;
use rigid_limit::report::markdown::is_committed_file;
use rigid_limit::simulate::{simulate_output, SimulateArgs};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

create_exception!(
    _native,
    RigidLimitError,
    PyValueError,
    "A bad input, a failed run or an I/O error: the CLI's one-line message."
);
create_exception!(
    _native,
    ExtrapolationRefused,
    RigidLimitError,
    "The κ ladder does not determine the limit (too short, or not asymptotic)."
);

/// `rigid-limit simulate`'s flags, parsed by the CLI's own definitions (defaults, checks).
#[derive(Parser)]
#[command(name = "simulate", no_binary_name = true)]
struct Simulate {
    #[command(flatten)]
    args: SimulateArgs,
}

/// Run `simulate` with the CLI's `flags`; with `system_toml`, of that description (named
/// `label` in messages). Returns what the CLI prints (with `--json`: the JSON object).
#[pyfunction]
#[pyo3(signature = (flags, system_toml=None, label=None))]
fn simulate(
    py: Python<'_>,
    flags: Vec<String>,
    system_toml: Option<String>,
    label: Option<String>,
) -> PyResult<String> {
    py.detach(move || {
        let cli = Simulate::try_parse_from(&flags).map_err(|e| {
            one_line_error(&e.to_string())
                .trim_start_matches("error: ")
                .to_string()
        })?;
        match system_toml {
            None => simulate_output(&cli.args),
            Some(text) => {
                let label = label.unwrap_or_else(|| "system".to_string());
                let d = parse_description(&text, &label, None)?;
                simulate_description(&d, &label, &cli.args.run)
            }
        }
    })
    .map_err(RigidLimitError::new_err)
}

/// The TOML text of a JSON object (an experiment or a description as a dictionary).
#[pyfunction]
fn toml_text(json: &str) -> PyResult<String> {
    toml_text_of_json(json).map_err(RigidLimitError::new_err)
}

/// The system file of a description given as JSON, checked as a run checks it (names, syntax,
/// shapes, the mass matrix at the start); `label` names it in messages.
#[pyfunction]
fn system_toml(json: &str, label: &str) -> PyResult<String> {
    let text = toml_text_of_json(json).map_err(RigidLimitError::new_err)?;
    parse_description(&text, label, None).map_err(RigidLimitError::new_err)?;
    Ok(text)
}

/// Run (or resume) an experiment — a file `path`, or `toml` text — into `out` (default
/// results/NAME) and write its report, as `rigid-limit run` does. The sweep runs on the Rust
/// thread pool with the GIL released; Ctrl-C (KeyboardInterrupt) stops it as a kill would,
/// leaving the directory ready to resume. Returns the run's summary as JSON.
#[pyfunction]
#[pyo3(signature = (path=None, toml=None, out=None, fresh=false, progress=true))]
fn run(
    py: Python<'_>,
    path: Option<PathBuf>,
    toml: Option<String>,
    out: Option<PathBuf>,
    fresh: bool,
    progress: bool,
) -> PyResult<String> {
    let experiment = match (&path, toml) {
        (Some(p), None) => Experiment::load(p),
        (None, Some(text)) => Experiment::parse(&text),
        _ => {
            return Err(RigidLimitError::new_err(
                "give an experiment file or its table",
            ))
        }
    }
    .map_err(|e| RigidLimitError::new_err(e.to_string()))?;
    let out_dir = out.unwrap_or_else(|| Path::new("results").join(experiment.name()));
    let cancel = Arc::new(AtomicBool::new(false));
    let opts = RunOptions {
        progress,
        fresh,
        command_line: match &path {
            Some(p) => format!("rigid_limit.run({:?})", p.display().to_string()),
            None => format!("rigid_limit.run({{…}}) of {}", experiment.name()),
        },
        cancel: Some(cancel.clone()),
        ..RunOptions::new(out_dir)
    };
    // What the summary names as regenerating it: this call (the experiment's table is in
    // meta.json when it was given as text), unless the file is experiments/NAME.toml.
    let regenerated_by = match &path {
        Some(p) => (!is_committed_file(p, experiment.name()))
            .then(|| format!("rigid_limit.run({:?})", p.display().to_string())),
        None => Some("rigid_limit.run(toml=…)".to_string()),
    };
    let worker = std::thread::spawn(move || -> Result<RunSummary, String> {
        let summary = experiment.run(&opts).map_err(|e| e.to_string())?;
        experiment
            .report_regenerated_by(&summary.out_dir, regenerated_by.as_deref())
            .map_err(|e| e.to_string())?;
        Ok(summary)
    });
    // The main thread holds the GIL only to look for signals, every 50 ms.
    while !worker.is_finished() {
        py.detach(|| std::thread::sleep(Duration::from_millis(50)));
        if let Err(interrupt) = py.check_signals() {
            cancel.store(true, Ordering::Relaxed);
            // The points in flight finish and are journalled; the run can be resumed.
            let _ = py.detach(|| worker.join());
            return Err(interrupt);
        }
    }
    let summary = worker
        .join()
        .map_err(|_| RigidLimitError::new_err("the run panicked"))?
        .map_err(RigidLimitError::new_err)?;
    let json = serde_json::json!({
        "out_dir": summary.out_dir.display().to_string(),
        "points": summary.points,
        "resumed": summary.resumed,
        "ran": summary.ran,
        "failed": summary.failed,
        "wall_time_s": summary.wall_time_s,
        "not_reused": summary.not_reused.map(|n| serde_json::json!({"rows": n.rows, "reason": n.reason})),
    });
    Ok(json.to_string())
}

/// The κ → 0 limit of `values` measured at `kappa` (analysis::extrapolate), as JSON; `None`
/// options take the library's defaults.
#[pyfunction]
#[pyo3(signature = (kappa, values, extra_powers=None, min_dof=None, validation_points=None, value_accuracy=None))]
fn extrapolate(
    py: Python<'_>,
    kappa: Vec<f64>,
    values: Vec<f64>,
    extra_powers: Option<Vec<f64>>,
    min_dof: Option<usize>,
    validation_points: Option<usize>,
    value_accuracy: Option<f64>,
) -> PyResult<String> {
    let defaults = ExtrapolationOptions::default();
    let opts = ExtrapolationOptions {
        extra_powers: extra_powers.unwrap_or(defaults.extra_powers),
        min_dof: min_dof.unwrap_or(defaults.min_dof),
        validation_points: validation_points.unwrap_or(defaults.validation_points),
        value_accuracy: value_accuracy.unwrap_or(defaults.value_accuracy),
    };
    let result = py.detach(|| extrapolate_ladder(&kappa, &values, &opts));
    match result {
        Ok(e) => serde_json::to_string(&e).map_err(|e| RigidLimitError::new_err(e.to_string())),
        Err(refusal) => Err(ExtrapolationRefused::new_err(refusal.to_string())),
    }
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(extrapolate, m)?)?;
    m.add_function(wrap_pyfunction!(toml_text, m)?)?;
    m.add_function(wrap_pyfunction!(system_toml, m)?)?;
    m.add("RigidLimitError", m.py().get_type::<RigidLimitError>())?;
    m.add(
        "ExtrapolationRefused",
        m.py().get_type::<ExtrapolationRefused>(),
    )?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
