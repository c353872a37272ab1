//! `rigid-limit simulate`: one run, printed as a summary, JSON (`--json`) or CSV (`--csv`): the
//! rod from its flags, a described system (`--system FILE`), one configuration of a system of
//! the registry (`simulate SYSTEM --set KEY=VALUE`) or one point of its study (`--point ID`).

use crate::experiment::system::System;
use crate::models::described::cli::{read_description, simulate_description};
use crate::models::rod::cli::RodFlags;
use crate::models::{described, models, rod, Experiment, POINT_EXAMPLES, SYSTEMS};
use crate::study::single::RunFlags;

/// Every flag of `rigid-limit simulate`: those of any run and the rod's own.
#[derive(clap::Args, Clone, Debug)]
#[command(allow_negative_numbers = true)]
pub struct SimulateArgs {
    #[command(flatten)]
    pub run: RunFlags,
    #[command(flatten)]
    pub rod: RodFlags,
}

/// `rigid-limit simulate`'s output: a described system (`--system FILE`), the rod with its flags
/// (no SYSTEM, or `rod`), or one run of the named system ([`crate::study::single`]).
pub fn simulate_output(args: &SimulateArgs) -> Result<String, String> {
    let (run, rod) = (&args.run, &args.rod);
    if let Some(path) = &run.system {
        if let Some(flag) = rod.given() {
            return Err(format!(
                "{flag} is a flag of the rod; a described system takes its parameters from its file (--system {})",
                path.display()
            ));
        }
        let d = read_description(path)?;
        return simulate_description(&d, &path.display().to_string(), run);
    }
    let name = match run.system_name.as_deref() {
        None | Some("rod") if run.point == 0 => return rod::cli::simulate_output(run, rod),
        None => "rod",
        Some(name) => name,
    };
    let point_system = POINT_EXAMPLES.iter().find(|(system, ..)| *system == name);
    if run.point != 0 && point_system.is_none() {
        let systems: Vec<&str> = POINT_EXAMPLES.iter().map(|(system, ..)| *system).collect();
        return Err(format!(
            "--point {}: system {name} runs one configuration, not a point of a study; --point is for {}",
            run.point,
            systems.join(", ")
        ));
    }
    if name == described::Described::NAME {
        return Err(
            "a described system is its file: simulate --system FILE (docs/described_systems.md)"
                .to_string(),
        );
    }
    // The rod's flags and the trajectory's outputs are the rod's (and a described system's):
    // refused, never ignored, for another system.
    let rod_only = rod
        .given()
        .or(run.trajectory.then_some("--trajectory"))
        .or(run.csv.then_some("--csv"));
    let runnable = SYSTEMS.contains(&name) || point_system.is_some();
    if let (Some(flag), true) = (rod_only, runnable) {
        return Err(format!(
            "{flag} is a flag of the rod (simulate rod {flag} …); system {name} takes its [params] by --set KEY=VALUE (rigid-limit simulate --help)"
        ));
    }
    if let Some(output) = Experiment::simulate_named(name, run) {
        return output;
    }
    if let Some((_, path, example)) = point_system {
        return simulate_point(name, (path, example), args);
    }
    let listed: Vec<&str> = models().iter().map(|(model, _)| *model).collect();
    Err(format!(
        "invalid SYSTEM = {name}: name a system of rigid-limit list ({})",
        listed.join(", ")
    ))
}

/// One point of the study of system `name` (`simulate SYSTEM [--params FILE] [--set KEY=VALUE]…
/// [--point ID]`): of the experiment file `--params` or `example` (its path and text), with the
/// settings applied; its solver settings are the file's (`--set solver.rtol=…`), not the run
/// flags.
fn simulate_point(
    name: &str,
    example: (&str, &str),
    args: &SimulateArgs,
) -> Result<String, String> {
    use crate::study::point::{point_json, point_text, with_sets};
    refuse_run_flags_of_a_study(name, args)?;
    let flags = &args.run;
    let (text, label) = match &flags.params {
        Some(path) => {
            let label = path.display().to_string();
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("--params {label}: cannot read it: {e}"))?;
            (text, label)
        }
        None => (example.1.to_string(), example.0.to_string()),
    };
    let text = with_sets(&text, &label, &flags.sets).map_err(|e| e.to_string())?;
    let experiment =
        Experiment::parse(&text).map_err(|e| e.at(std::path::Path::new(&label)).to_string())?;
    let run = experiment
        .run_point(flags.point)
        .map_err(|e| e.to_string())?;
    if flags.json {
        Ok(crate::report::json::pretty(&point_json(name, &label, &run)) + "\n")
    } else {
        Ok(point_text(name, &label, &run))
    }
}

/// Refuses the run flags for a system run as one point of its study, `name`: its method,
/// compliance, integrator, tolerances and guards are its experiment file's.
fn refuse_run_flags_of_a_study(name: &str, args: &SimulateArgs) -> Result<(), String> {
    use clap::{Args, FromArgMatches};
    let defaults = SimulateArgs::augment_args(clap::Command::new("simulate"))
        .try_get_matches_from(["simulate", name])
        .and_then(|matches| SimulateArgs::from_arg_matches(&matches))
        .map_err(|e| e.to_string())?;
    let given = [
        ("--method", args.run.method != defaults.run.method),
        ("--kappa", args.run.kappa != defaults.run.kappa),
        (
            "--integrator",
            args.run.integrator != defaults.run.integrator,
        ),
        ("--rtol", args.run.rtol != defaults.run.rtol),
        ("--atol", args.run.atol != defaults.run.atol),
        ("--t-end", args.run.t_end.is_some()),
        ("--t-max", args.run.t_max.is_some()),
        ("--max-steps", args.run.max_steps != defaults.run.max_steps),
        (
            "--max-events",
            args.run.max_events != defaults.run.max_events,
        ),
    ];
    match given.iter().find(|(_, given)| *given) {
        Some((flag, _)) => Err(format!(
            "{flag}: system {name} runs one point of its experiment file, whose [params], [sweep] and [solver] set how it runs: change them with --set KEY=VALUE, --set sweep.KEY=VALUE or --set solver.KEY=VALUE, or give another file with --params"
        )),
        None => Ok(()),
    }
}
