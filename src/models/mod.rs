//! The mechanical systems, one folder each, and the registry: the only place that lists them.
//!
//! An experiment file names its system with `model = "…"` (a [`Model::NAME`]); an integrator
//! study (`kind = "integrator_study"`) is the rod's. Adding a system: a folder implementing
//! [`Model`] and one variant below (README, "Adding a mechanical system").

pub mod basin;
pub mod dance;
pub mod described;
pub mod klarbring;
pub mod mode_table;
pub mod planar;
pub mod rod;
pub mod rod3d;
pub mod schmid_mielke;
pub mod spring_particle;
pub mod two_contact;

use crate::error::SimError;
use crate::experiment::grammar::{from_table_validated, parse_validated, SpecError};
use crate::experiment::model::{Model, SweepSpec};
use crate::experiment::runner::{
    merge_shards, run_experiment, RunError, RunOptions, RunSummary, RUNS_CSV,
};
use crate::experiment::store::{read_rows, replace_report};
use crate::experiment::system::System;
use crate::study::convergence::Convergence;
use crate::study::work_precision::WorkPrecision;
use std::path::Path;

/// Any experiment file, by its model.
#[derive(Clone, Debug, PartialEq)]
pub enum Experiment {
    Rod(Box<SweepSpec<rod::Rod>>),
    /// The rod's mode table (`model = "rod"`, `analysis = "mode_table"`).
    RodModeTable(Box<SweepSpec<rod::mode_table::RodModeTable>>),
    Planar(Box<SweepSpec<planar::Planar>>),
    /// The lift-off/IWC basins (`analysis = "liftoff_iwc_basin"`).
    PlanarBasin(Box<SweepSpec<planar::basin::PlanarBasin>>),
    RodBasin(Box<SweepSpec<rod::basin::RodBasin>>),
    /// The planar stick/lift-off basin (`analysis = "stick_liftoff_basin"`).
    PlanarStickBasin(Box<SweepSpec<planar::stick_basin::PlanarStickBasin>>),
    /// C–V's phase portraits (`analysis = "phase_portraits"`).
    PlanarPortraits(Box<SweepSpec<planar::portraits::PlanarPortraits>>),
    /// The oblique impact against the rigid impact laws (`analysis = "oblique_impact"`).
    PlanarObliqueImpact(Box<SweepSpec<planar::oblique_impact::PlanarObliqueImpact>>),
    /// Chatter and reverse chatter (`analysis = "chatter"`).
    PlanarChatter(Box<SweepSpec<planar::chatter::PlanarChatter>>),
    /// The integrator study (`kind = "integrator_study"`), on the rod's scenarios.
    RodStudy(Box<rod::study::StudySpec>),
    SpringParticle(Box<Convergence<spring_particle::SpringParticle>>),
    /// The rod slipping into its G-spot (`model = "rod_gspot"`).
    RodGspot(Box<Convergence<rod::gspot_study::RodGspot>>),
    /// The 3D rod's dynamic jam (`model = "rod3d_jam"`).
    Rod3dJam(Box<Convergence<rod3d::study::Rod3dJam>>),
    /// A system described in the file (`model = "system"`).
    Described(Box<Convergence<described::Described>>),
    /// The work–precision study of a described system (`study = "work_precision"`).
    DescribedWorkPrecision(Box<WorkPrecision<described::Described>>),
    /// The work–precision study of the spring particle.
    SpringParticleWorkPrecision(Box<WorkPrecision<spring_particle::SpringParticle>>),
    Dance(Box<SweepSpec<dance::Dance>>),
    SchmidMielke(Box<schmid_mielke::spec::SmSpec>),
    Klarbring(Box<Convergence<klarbring::Klarbring>>),
    /// One impact of Klarbring's particle (`model = "klarbring_impacts"`).
    KlarbringImpacts(Box<SweepSpec<klarbring::KlarbringImpacts>>),
    /// C–V's fast dynamics of two slipping contacts (`model = "two_contact"`).
    TwoContact(Box<SweepSpec<two_contact::TwoContact>>),
}

/// Apply `$body` to the experiment's plan, whatever its type.
macro_rules! with_plan {
    ($experiment:expr, $plan:ident => $body:expr) => {
        match $experiment {
            Experiment::Rod($plan) => $body,
            Experiment::RodModeTable($plan) => $body,
            Experiment::Planar($plan) => $body,
            Experiment::PlanarBasin($plan) => $body,
            Experiment::RodBasin($plan) => $body,
            Experiment::PlanarStickBasin($plan) => $body,
            Experiment::PlanarPortraits($plan) => $body,
            Experiment::PlanarObliqueImpact($plan) => $body,
            Experiment::PlanarChatter($plan) => $body,
            Experiment::RodStudy($plan) => $body,
            Experiment::SpringParticle($plan) => $body,
            Experiment::RodGspot($plan) => $body,
            Experiment::Rod3dJam($plan) => $body,
            Experiment::Described($plan) => $body,
            Experiment::DescribedWorkPrecision($plan) => $body,
            Experiment::SpringParticleWorkPrecision($plan) => $body,
            Experiment::Dance($plan) => $body,
            Experiment::SchmidMielke($plan) => $body,
            Experiment::Klarbring($plan) => $body,
            Experiment::KlarbringImpacts($plan) => $body,
            Experiment::TwoContact($plan) => $body,
        }
    };
}

/// The names `model = …` accepts, with what each system is (for `rigid-limit list`).
pub const MODELS: [(&str, &str); 11] = [
    (
        rod::Rod::NAME,
        "the Painlevé rod on a compliant contact (Zhao–Liu–Chen–Brogliato 2015); analyses \
         mode_table and liftoff_iwc_basin (Champneys–Várkonyi 2016)",
    ),
    (
        rod::gspot_study::RodGspot::NAME,
        "the Painlevé rod slipping into its G-spot p = b = 0 (Champneys–Várkonyi §5.1): the \
         compliant dynamic jam as κ → 0 against the rigid slip",
    ),
    (
        rod3d::study::Rod3dJam::NAME,
        "the slender rod in 3D slipping obliquely into a dynamic jam away from the G-spot \
         (Champneys–Várkonyi §7): the compliant jam as κ → 0 against the rigid slip",
    ),
    (
        klarbring::Klarbring::NAME,
        "Klarbring's particle in 2D/3D with spatial Coulomb contact (Ballard–Basseville 2005): \
         compliant or the rigid event-driven reference (impacts as resets)",
    ),
    (
        klarbring::KlarbringImpacts::NAME,
        "one impact of Klarbring's particle to the first opening: compliant post-impact \
         velocity against the rigid impact law with e = e(c_d)",
    ),
    (
        spring_particle::SpringParticle::NAME,
        "a spring-loaded particle that sticks, then slides: the smallest model folder",
    ),
    (
        described::Described::NAME,
        "your own system, described in the experiment file by expressions: coordinates, \
         parameters, mass matrix, forces, one contact (docs/described_systems.md)",
    ),
    (
        dance::Dance::NAME,
        "Dance's particle starting to slide under the force (1, t) (Dance 2024): the formal \
         series (divergent for μ = 1), its optimal truncation and the rigid slide",
    ),
    (
        schmid_mielke::spec::NAME,
        "a particle on a half-plane with friction μ(z₁) (Schmid–Mielke 2007): incremental or \
         compliant",
    ),
    (
        planar::Planar::NAME,
        "Champneys–Várkonyi's planar single contact with constant data; analyses mode_table, \
         liftoff_iwc_basin, stick_liftoff_basin, phase_portraits, oblique_impact and chatter",
    ),
    (
        two_contact::TwoContact::NAME,
        "Champneys–Várkonyi's fast dynamics of two slipping contacts (scale-free): IF/FI \
         outcomes around the unstable S+S+ equilibrium, the sprag–slip cycle",
    ),
];

impl Experiment {
    /// Read and validate `path`.
    pub fn load(path: &Path) -> Result<Self, SpecError> {
        let text = std::fs::read_to_string(path).map_err(|source| SpecError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Self::parse_at(&text, path.parent()).map_err(|e| e.at(path))
    }

    /// Parse and validate TOML text: `kind` selects the integrator study, else `model` the
    /// system.
    pub fn parse(text: &str) -> Result<Self, SpecError> {
        Self::parse_at(text, None)
    }

    /// [`Self::parse`] of a file in directory `dir` (where `system = "…"` files are looked up
    /// besides the working directory).
    fn parse_at(text: &str, dir: Option<&Path>) -> Result<Self, SpecError> {
        let table: toml::Table = toml::from_str(text).map_err(|e| SpecError::Parse {
            path: String::new(),
            message: e.to_string().trim().replace('\n', " "),
        })?;
        crate::experiment::grammar::refuse_unrepresentable_numbers(&table).map_err(|source| {
            SpecError::Invalid {
                path: String::new(),
                source,
            }
        })?;
        if table.contains_key("kind") {
            return rod::study::StudySpec::parse(text).map(|s| Experiment::RodStudy(Box::new(s)));
        }
        let invalid = |value: String| SpecError::Invalid {
            path: String::new(),
            source: SimError::invalid(
                "model",
                value,
                &format!(
                    "name the mechanical system, one of {}",
                    MODELS.map(|(name, _)| name).join(", ")
                ),
            ),
        };
        if table.get("study").and_then(|s| s.as_str()) == Some(crate::study::work_precision::NAME) {
            return work_precision(table, text, dir);
        }
        // A model's analyses with their own tables are models of their own.
        let analysis = table.get("analysis").and_then(|a| a.as_str());
        match table.get("model") {
            Some(toml::Value::String(name)) if name == rod::Rod::NAME => match analysis {
                Some("mode_table") => {
                    SweepSpec::parse(text).map(|s| Experiment::RodModeTable(Box::new(s)))
                }
                Some("liftoff_iwc_basin") => {
                    SweepSpec::parse(text).map(|s| Experiment::RodBasin(Box::new(s)))
                }
                _ => SweepSpec::parse(text).map(|s| Experiment::Rod(Box::new(s))),
            },
            Some(toml::Value::String(name)) if name == planar::Planar::NAME => match analysis {
                Some("liftoff_iwc_basin") => {
                    SweepSpec::parse(text).map(|s| Experiment::PlanarBasin(Box::new(s)))
                }
                Some("stick_liftoff_basin") => {
                    SweepSpec::parse(text).map(|s| Experiment::PlanarStickBasin(Box::new(s)))
                }
                Some("phase_portraits") => {
                    SweepSpec::parse(text).map(|s| Experiment::PlanarPortraits(Box::new(s)))
                }
                Some("oblique_impact") => {
                    SweepSpec::parse(text).map(|s| Experiment::PlanarObliqueImpact(Box::new(s)))
                }
                Some("chatter") => {
                    SweepSpec::parse(text).map(|s| Experiment::PlanarChatter(Box::new(s)))
                }
                _ => SweepSpec::parse(text).map(|s| Experiment::Planar(Box::new(s))),
            },
            Some(toml::Value::String(name)) if name == rod::gspot_study::RodGspot::NAME => {
                Convergence::parse(text).map(|s| Experiment::RodGspot(Box::new(s)))
            }
            Some(toml::Value::String(name)) if name == rod3d::study::Rod3dJam::NAME => {
                Convergence::parse(text).map(|s| Experiment::Rod3dJam(Box::new(s)))
            }
            Some(toml::Value::String(name)) if name == spring_particle::SpringParticle::NAME => {
                Convergence::parse(text).map(|s| Experiment::SpringParticle(Box::new(s)))
            }
            Some(toml::Value::String(name)) if name == described::Described::NAME => {
                let table = described::with_system_file(table, dir)?;
                Convergence::from_table(table).map(|s| Experiment::Described(Box::new(s)))
            }
            Some(toml::Value::String(name)) if name == klarbring::Klarbring::NAME => {
                Convergence::parse(text).map(|s| Experiment::Klarbring(Box::new(s)))
            }
            Some(toml::Value::String(name)) if name == klarbring::KlarbringImpacts::NAME => {
                SweepSpec::parse(text).map(|s| Experiment::KlarbringImpacts(Box::new(s)))
            }
            Some(toml::Value::String(name)) if name == dance::Dance::NAME => {
                SweepSpec::parse(text).map(|s| Experiment::Dance(Box::new(s)))
            }
            Some(toml::Value::String(name)) if name == two_contact::TwoContact::NAME => {
                SweepSpec::parse(text).map(|s| Experiment::TwoContact(Box::new(s)))
            }
            Some(toml::Value::String(name)) if name == schmid_mielke::spec::NAME => {
                schmid_mielke::spec::SmSpec::parse(text)
                    .map(|s| Experiment::SchmidMielke(Box::new(s)))
            }
            Some(toml::Value::String(name)) => Err(invalid(name.clone())),
            Some(other) => Err(invalid(format!("{other:?}"))),
            None => Err(invalid("missing".to_string())),
        }
    }

    pub fn name(&self) -> &str {
        with_plan!(self, p => &p.name)
    }

    /// Run (or resume) the experiment into `opts.out_dir`.
    pub fn run(&self, opts: &RunOptions) -> Result<RunSummary, RunError> {
        with_plan!(self, p => run_experiment(p.as_ref(), opts))
    }

    /// Join the shards in `out_dir`.
    pub fn merge(&self, out_dir: &Path, command_line: &str) -> Result<RunSummary, RunError> {
        with_plan!(self, p => merge_shards(p.as_ref(), out_dir, command_line))
    }

    /// Write the report (summary.md, analysis.json, figures, beside the side tables of the run
    /// stage) of the run in `dir`; its files replace the previous report's together
    /// ([`replace_report`]).
    pub fn report(&self, dir: &Path) -> Result<(), RunError> {
        replace_report(dir, |staging| self.write_report(staging))
    }

    fn write_report(&self, dir: &Path) -> Result<(), RunError> {
        match self {
            Experiment::Rod(spec) => rod::report::write_run_report(spec, dir).map(|_| ()),
            Experiment::RodModeTable(spec) => report_sweep(spec, dir),
            Experiment::Planar(spec) => report_sweep(spec, dir),
            Experiment::PlanarBasin(spec) => report_sweep(spec, dir),
            Experiment::RodBasin(spec) => report_sweep(spec, dir),
            Experiment::PlanarStickBasin(spec) => report_sweep(spec, dir),
            Experiment::PlanarPortraits(spec) => report_sweep(spec, dir),
            Experiment::PlanarObliqueImpact(spec) => report_sweep(spec, dir),
            Experiment::PlanarChatter(spec) => report_sweep(spec, dir),
            Experiment::RodStudy(spec) => {
                rod::study_report::write_study_report(spec, dir).map(|_| ())
            }
            Experiment::SpringParticle(spec) => report_convergence(spec, dir),
            Experiment::RodGspot(spec) => {
                let rows = read_rows(&dir.join(RUNS_CSV), &spec.columns())?;
                rod::gspot_report::write_report(spec, &rows, dir)
            }
            Experiment::Rod3dJam(spec) => {
                let rows = read_rows(&dir.join(RUNS_CSV), &spec.columns())?;
                rod3d::report::write_report(spec, &rows, dir)
            }
            Experiment::Described(spec) => report_convergence(spec, dir),
            Experiment::DescribedWorkPrecision(spec) => report_work_precision(spec, dir),
            Experiment::SpringParticleWorkPrecision(spec) => report_work_precision(spec, dir),
            Experiment::Dance(spec) => report_sweep(spec, dir),
            Experiment::SchmidMielke(spec) => schmid_mielke::report::write_report(spec, dir),
            Experiment::Klarbring(spec) => {
                let rows = read_rows(&dir.join(RUNS_CSV), &spec.columns())?;
                klarbring::report::write_report(spec, &rows, dir)
            }
            Experiment::KlarbringImpacts(spec) => report_sweep(spec, dir),
            Experiment::TwoContact(spec) => report_sweep(spec, dir),
        }
    }
}

/// `rigid-limit simulate`'s output: the rod with its flags (no SYSTEM, or `rod`), or one run of
/// the named system ([`crate::study::single`]).
pub fn simulate_output(args: &rod::cli::SimulateArgs) -> Result<String, String> {
    match args.system_name.as_deref() {
        None | Some("rod") => rod::cli::simulate_output(args),
        Some(name) if name == spring_particle::SpringParticle::NAME => {
            simulate_system::<spring_particle::SpringParticle>(args)
        }
        Some(name) if name == klarbring::Klarbring::NAME => {
            simulate_system::<klarbring::Klarbring>(args)
        }
        Some(name) if name == rod::gspot_study::RodGspot::NAME => {
            simulate_system::<rod::gspot_study::RodGspot>(args)
        }
        Some(name) if name == described::Described::NAME => Err(
            "a described system is its file: simulate --system FILE (docs/described_systems.md)"
                .to_string(),
        ),
        Some(name) if MODELS.iter().any(|(model, _)| *model == name) => Err(format!(
            "system {name} runs in experiment files only (rigid-limit run); simulate runs rod, {}, {}, {} and described systems (--system FILE)",
            spring_particle::SpringParticle::NAME,
            klarbring::Klarbring::NAME,
            rod::gspot_study::RodGspot::NAME
        )),
        Some(name) => Err(format!(
            "invalid SYSTEM = {name}: name a system of rigid-limit list ({})",
            MODELS.map(|(model, _)| model).join(", ")
        )),
    }
}

/// One run of system `S` from `args` (`simulate SYSTEM [--params FILE] [--set KEY=VALUE]…`).
fn simulate_system<S: System>(args: &rod::cli::SimulateArgs) -> Result<String, String> {
    use crate::experiment::system::{Method, RunSettings};
    use crate::study::single::{outcome_json, outcome_text, params_table, simulate, SingleRun};
    let integrator = rod::cli::checked_run_flags(args)?;
    for (flag, key, given) in [
        ("--t-end", "t_end", args.t_end.is_some()),
        ("--t-max", "t_max", args.t_max.is_some()),
    ] {
        if given && !S::SOLVER_KEYS.contains(&key) {
            return Err(format!(
                "{flag}: system {} sets the end of its runs in its parameters (--set), not by {flag}",
                S::NAME
            ));
        }
    }
    let guard = |key: &str, value: usize| S::SOLVER_KEYS.contains(&key).then_some(value);
    let method = match args.method.as_str() {
        "compliant" => Method::Compliant { kappa: args.kappa },
        "rigid" => Method::Rigid,
        other => {
            return Err(format!(
                "invalid --method = {other}: use compliant or rigid"
            ))
        }
    };
    let params = match &args.params {
        Some(path) => {
            let label = path.display().to_string();
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("--params {label}: cannot read it: {e}"))?;
            Some(params_table(&text, &format!("--params {label}")).map_err(|e| e.to_string())?)
        }
        None => None,
    };
    let run = SingleRun {
        params,
        sets: args.sets.clone(),
        method,
        settings: RunSettings {
            integrator,
            rtol: args.rtol,
            atol: args.atol,
            t_max: args.t_max,
            t_end: args.t_end,
            max_steps: guard("max_steps", args.max_steps),
            max_events: guard("max_events", args.max_events),
        },
    };
    let outcome = simulate::<S>(&run).map_err(|e| e.to_string())?;
    if args.json {
        let json = outcome_json(&run, &outcome).map_err(|e| e.to_string())?;
        Ok(crate::report::json::pretty(&json) + "\n")
    } else {
        outcome_text(&run, &outcome).map_err(|e| e.to_string())
    }
}

/// Read `dir/runs.csv` and hand its rows to the convergence study's report.
fn report_convergence<S: System>(spec: &Convergence<S>, dir: &Path) -> Result<(), RunError> {
    let rows = read_rows(&dir.join(RUNS_CSV), &spec.columns())?;
    spec.report(&rows, dir)
}

/// A work–precision experiment (`study = "work_precision"`) of the system `model` names.
fn work_precision(
    table: toml::Table,
    text: &str,
    dir: Option<&Path>,
) -> Result<Experiment, SpecError> {
    match table.get("model").and_then(|m| m.as_str()) {
        Some(name) if name == described::Described::NAME => {
            let table = described::with_system_file(table, dir)?;
            from_table_validated(table, WorkPrecision::validate)
                .map(|s| Experiment::DescribedWorkPrecision(Box::new(s)))
        }
        Some(name) if name == spring_particle::SpringParticle::NAME => {
            parse_validated(text, WorkPrecision::validate)
                .map(|s| Experiment::SpringParticleWorkPrecision(Box::new(s)))
        }
        other => Err(SpecError::Invalid {
            path: String::new(),
            source: SimError::invalid(
                "model",
                other.unwrap_or("missing"),
                &format!(
                    "the work_precision study runs the systems {} and {}",
                    described::Described::NAME,
                    spring_particle::SpringParticle::NAME
                ),
            ),
        }),
    }
}

/// Read `dir/runs.csv` and hand its rows to the work–precision report.
fn report_work_precision<S: System>(spec: &WorkPrecision<S>, dir: &Path) -> Result<(), RunError> {
    let rows = read_rows(&dir.join(RUNS_CSV), &spec.columns())?;
    crate::report::work_precision::write_report(spec, &rows, dir).map(|_| ())
}

/// Read `dir/runs.csv` and hand its rows to the model's report.
fn report_sweep<M: Model>(spec: &SweepSpec<M>, dir: &Path) -> Result<(), RunError> {
    let rows = read_rows(&dir.join(RUNS_CSV), &SweepSpec::<M>::columns())?;
    M::report(spec, &rows, dir)
}
