//! A mechanical system described in the experiment file (`model = "system"`): coordinates,
//! parameters, a mass matrix, forces, contacts and a start, written as expressions
//! ([`description`]; docs/described_systems.md). Compiled at each run's parameters into
//! expression trees whose derivatives are symbolic, it is mechanics of the engine like a
//! hand-coded system ([`mechanics`]) and a [`System`] of the harness: the convergence study runs
//! it over a κ ladder.
//!
//! ```toml
//! name = "my_rod"
//! model = "system"
//! [system]
//! coordinates = ["x", "y", "theta"]
//! parameters = { g = 1.0, rho2 = 0.3333333333333333 }
//! mass_matrix = [["1", "0", "0"], ["0", "1", "0"], ["0", "0", "rho2"]]
//! force = ["0", "-g", "0"]
//! [[system.contacts]]
//! name = "A"
//! gap = "y - sin(theta)"
//! tangents = ["x - cos(theta)"]
//! mu = 2.0
//! [system.initial]
//! q = ["cos(1.3)", "sin(1.3)", "1.3"]
//! q_dot = ["-1", "0", "0"]
//! [sweep]
//! kappa = { min = 1e-10, max = 1e-4, per_decade = 2 }
//! [solver]
//! integrators = ["dop853", "radau5"]
//! rtol = 1e-10
//! atol = 1e-12
//! ```

pub mod cli;
pub mod description;
pub mod mechanics;

use crate::compliant::coulomb::Coulomb;
use crate::compliant::normal::NormalCompliance;
use crate::compliant::record::RunRecord;
use crate::compliant::{simulate, ContactProblem, EndCondition, SimulationOptions};
use crate::error::{number_text, SimError};
use crate::experiment::grammar::{LogGrid, SpecError};
use crate::experiment::model::Cells;
use crate::experiment::system::{Method, Methods, Quantity, RunSettings, System};
use crate::experiment::table::column_name;
use crate::hybrid::{Named, Trace};
use crate::integrate::SolverStats;
use description::{Compiled, Description};
use mechanics::DescribedMechanics;
use serde::{Deserialize, Serialize};

/// A described system as a system of the harness.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Described;

/// The most coordinates a described system may have: each count is a compiled instance of the
/// engine (a build-time cost), and these cover the systems of the papers and the usual
/// textbook ones (a double pendulum with a free base has four).
pub const MAX_COORDINATES: usize = 4;

/// What one run of a described system measures (docs/described_systems.md, "Outputs").
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The modes in time order, joined by `>`.
    pub mode_sequence: String,
    pub event_times: Vec<f64>,
    /// The events' names, space-separated.
    pub event_kinds: String,
    /// The contact of each event, space-separated.
    pub event_contacts: String,
    pub q_end: Vec<f64>,
    pub q_dot_end: Vec<f64>,
    /// Per contact, ∫F_n dt.
    pub impulse_normal: Vec<f64>,
    /// Per contact, the largest penetration.
    pub max_penetration: Vec<f64>,
    /// The energy balance's error; none without a potential.
    pub energy_balance_error: Option<f64>,
}

fn list(values: &[f64]) -> String {
    values
        .iter()
        .map(|&v| number_text(v))
        .collect::<Vec<_>>()
        .join(" ")
}

impl System for Described {
    const NAME: &'static str = "system";
    const TITLE: &'static str = "a described system";
    const SOLVER_KEYS: &'static [&'static str] = &["t_max", "t_end", "max_steps", "max_events"];
    type Config = Description;
    type Record = Record;

    fn validate(d: &Description, kappa: Option<&LogGrid>) -> Result<(), SimError> {
        let compiled = d.compile()?;
        let n = compiled.coordinates.len();
        if n > MAX_COORDINATES {
            return Err(SimError::invalid(
                "system.coordinates",
                format!("{n} coordinates"),
                &format!("a described system has at most {MAX_COORDINATES} coordinates for now"),
            ));
        }
        // The start and the mass matrix there, at the ladder's ends.
        let ends = kappa.map_or_else(|| vec![0.0], |k| vec![k.max, k.min]);
        for k in ends {
            let (q, _) = d.initial_state(k)?;
            check_mass_matrix(&compiled, &q)?;
        }
        Ok(())
    }

    fn run(
        d: &Description,
        method: Method,
        settings: &RunSettings,
    ) -> Result<(Record, SolverStats), SimError> {
        if d.contacts.len() > 1 {
            return run_contacts(d, method, settings);
        }
        let kappa = method.compliant_kappa(Self::NAME)?;
        let (compiled, r) = run_record(d, kappa, settings, false)?;
        let contact = &compiled.contacts[0].name;
        let record = Record {
            mode_sequence: r.modes_joined(">"),
            event_times: r.events.iter().map(|e| e.t).collect(),
            event_kinds: r
                .events
                .iter()
                .map(|e| e.event.name())
                .collect::<Vec<_>>()
                .join(" "),
            event_contacts: vec![contact.as_str(); r.events.len()].join(" "),
            q_end: r.final_q.clone(),
            q_dot_end: r.final_qdot.clone(),
            impulse_normal: vec![r.impulse_normal],
            max_penetration: vec![r.max_penetration],
            energy_balance_error: compiled.potential.as_ref().map(|_| r.energy.balance_error),
        };
        Ok((record, r.stats))
    }

    /// A system of several contacts has the rigid reference of [`crate::rigid::multi`] (its
    /// runs.csv a `method` column); one of a single contact runs compliant only.
    fn methods(d: &Description) -> Methods {
        Methods {
            rigid: d.contacts.len() > 1,
            compliant: true,
        }
    }

    fn quantities(d: &Description) -> Vec<Quantity> {
        let coordinate = |column: &'static str, k: usize, name: String| Quantity {
            column,
            component: Some(k),
            symbol: column_name(&name),
            closed_form: None,
            rigid_limit: None,
            exponent: None,
        };
        let q = d
            .coordinates
            .iter()
            .enumerate()
            .map(|(k, c)| coordinate("q_end", k, format!("{c}(t_end)")));
        let qdot = d
            .coordinates
            .iter()
            .enumerate()
            .map(|(k, c)| coordinate("q_dot_end", k, format!("{c}_dot(t_end)")));
        q.chain(qdot).collect()
    }

    fn set_parameter(d: &mut Description, key: &str, value: f64) -> Result<(), String> {
        let names: Vec<&str> = d.parameters.keys().map(String::as_str).collect();
        let message =
            format!(
            "the system has no parameter {key} (its parameters: {}); add it to system.parameters",
            if names.is_empty() { "none".to_string() } else { names.join(", ") }
        );
        match d.parameters.get_mut(key) {
            Some(slot) => {
                *slot = value;
                Ok(())
            }
            None => Err(message),
        }
    }

    /// The parameters, by name.
    fn input_columns(d: &Description) -> Vec<&'static str> {
        d.parameters.keys().map(|k| column_name(k)).collect()
    }

    fn inputs(d: &Description) -> Result<Cells, String> {
        Ok(d.parameters
            .iter()
            .map(|(k, v)| (column_name(k), number_text(*v)))
            .collect())
    }

    fn record_columns(d: &Description) -> Vec<&'static str> {
        let mut c = vec![
            "mode_sequence",
            "event_times",
            "event_kinds",
            "event_contacts",
            "q_end",
            "q_dot_end",
        ];
        for prefix in ["impulse_normal", "max_penetration"] {
            c.extend(
                d.contacts
                    .iter()
                    .map(|k| column_name(&format!("{prefix}_{}", k.name))),
            );
        }
        c.push("energy_balance_error");
        c
    }

    fn record_cells(d: &Description, r: &Record) -> Result<Cells, String> {
        let mut cells: Cells = vec![
            ("mode_sequence", r.mode_sequence.clone()),
            ("event_times", list(&r.event_times)),
            ("event_kinds", r.event_kinds.clone()),
            ("event_contacts", r.event_contacts.clone()),
            ("q_end", list(&r.q_end)),
            ("q_dot_end", list(&r.q_dot_end)),
        ];
        for (prefix, values) in [
            ("impulse_normal", &r.impulse_normal),
            ("max_penetration", &r.max_penetration),
        ] {
            for (k, v) in d.contacts.iter().zip(values) {
                cells.push((
                    column_name(&format!("{prefix}_{}", k.name)),
                    number_text(*v),
                ));
            }
        }
        if let Some(e) = r.energy_balance_error {
            cells.push(("energy_balance_error", number_text(e)));
        }
        Ok(cells)
    }

    fn describe(d: &Description) -> String {
        let parameters: Vec<String> = d
            .parameters
            .iter()
            .map(|(k, v)| format!("{k} = {}", number_text(*v)))
            .collect();
        let contacts: Vec<String> = d
            .contacts
            .iter()
            .map(|c| {
                format!(
                    "contact {} (gap {}, tangent {})",
                    c.name,
                    c.gap,
                    c.tangents.join(", ")
                )
            })
            .collect();
        format!(
            "Coordinates ({}); parameters {}; {}",
            d.coordinates.join(", "),
            if parameters.is_empty() {
                "none".to_string()
            } else {
                parameters.join(", ")
            },
            contacts.join("; ")
        )
    }
}

/// The experiment `table` with its `system = "systems/NAME.toml"` replaced by that file's table
/// (the file holds what `[system]` would: `coordinates = …`, `[[contacts]]`, `[initial]`). The
/// path is looked up in the working directory, then beside the experiment file's directory
/// (`experiments/x.toml` finds `systems/NAME.toml` of the same repository).
pub fn with_system_file(
    mut table: toml::Table,
    dir: Option<&std::path::Path>,
) -> Result<toml::Table, SpecError> {
    let name = match table.get("system") {
        Some(toml::Value::String(name)) => name,
        Some(_) => return Ok(table),
        None if table.contains_key("params") => return Ok(table),
        None => {
            return Err(SpecError::Invalid {
                path: String::new(),
                source: SimError::invalid(
                    "system",
                    "(not set)",
                    "describe the system in a [system] table or name its file with system = \"systems/NAME.toml\"",
                ),
            })
        }
    };
    let given = std::path::PathBuf::from(name);
    let mut candidates = vec![given.clone()];
    if let Some(dir) = dir {
        candidates.push(dir.join(&given));
        if let Some(parent) = dir.parent() {
            candidates.push(parent.join(&given));
        }
    }
    let Some(path) = candidates.iter().find(|p| p.is_file()) else {
        return Err(SpecError::Invalid {
            path: String::new(),
            source: SimError::invalid(
                "system",
                name,
                "names no file (looked up in the working directory and beside the experiment's directory); give the path of a system description, e.g. systems/NAME.toml",
            ),
        });
    };
    let text = std::fs::read_to_string(path).map_err(|source| SpecError::Io {
        path: path.display().to_string(),
        source,
    })?;
    let system: toml::Table = toml::from_str(&text).map_err(|e| SpecError::Parse {
        path: path.display().to_string(),
        message: e.to_string().trim().replace('\n', " "),
    })?;
    table.insert("system".into(), toml::Value::Table(system));
    Ok(table)
}

/// M(q₀) must be positive definite: its Cholesky factor has positive pivots.
fn check_mass_matrix(c: &Compiled, q: &[f64]) -> Result<(), SimError> {
    let n = c.coordinates.len();
    let m: Vec<Vec<f64>> = c
        .mass_matrix
        .iter()
        .map(|row| row.iter().map(|e| e.eval(q, q, 0.0)).collect())
        .collect();
    let mut l = vec![vec![0.0; n]; n];
    for j in 0..n {
        let d = m[j][j] - (0..j).map(|k| l[j][k] * l[j][k]).sum::<f64>();
        if d.is_nan() || d <= 0.0 || d.is_infinite() {
            return Err(SimError::invalid(
                "system.mass_matrix",
                format!("pivot {} at row {j}", number_text(d)),
                "must be positive definite at the initial state (q = system.initial.q)",
            ));
        }
        let d = d.sqrt();
        l[j][j] = d;
        for i in j + 1..n {
            l[i][j] = (m[i][j] - (0..j).map(|k| l[i][k] * l[j][k]).sum::<f64>()) / d;
        }
    }
    Ok(())
}

/// Compile `d` with several contacts and run it once under `method`: compliant on the
/// formulation of several contacts ([`crate::compliant::multi`]), rigid on its rigid reference
/// ([`crate::rigid::multi`]; docs/multi_contact.md): its record.
fn run_contacts(
    d: &Description,
    method: Method,
    settings: &RunSettings,
) -> Result<(Record, SolverStats), SimError> {
    let compiled = d.compile()?;
    let (q0, qdot0) = d.initial_state(method.kappa())?;
    check_mass_matrix(&compiled, &q0)?;
    let args = (&compiled, &q0[..], &qdot0[..], method, settings);
    match compiled.coordinates.len() {
        1 => run_contacts_n::<1>(args),
        2 => run_contacts_n::<2>(args),
        3 => run_contacts_n::<3>(args),
        4 => run_contacts_n::<4>(args),
        n => Err(SimError::invalid(
            "system.coordinates",
            format!("{n} coordinates"),
            &format!("a described system has at most {MAX_COORDINATES} coordinates for now"),
        )),
    }
}

/// The record of a run of several contacts: its trace's modes and events, its end state, each
/// contact's normal impulse and largest penetration, and the energy balance's error.
fn contacts_record<M: Named, E: Named + Copy>(
    compiled: &Compiled,
    trace: &Trace<M, E>,
    contact: impl Fn(E) -> usize,
    impulse_normal: &[f64],
    max_penetration: &[f64],
    energy_balance_error: f64,
    n: usize,
) -> Record {
    let events = &trace.events;
    let y = &trace.y_end;
    Record {
        mode_sequence: trace
            .phases
            .iter()
            .map(|p| p.mode.name())
            .collect::<Vec<_>>()
            .join(">"),
        event_times: events.iter().map(|e| e.t).collect(),
        event_kinds: events
            .iter()
            .map(|e| e.event.name())
            .collect::<Vec<_>>()
            .join(" "),
        event_contacts: events
            .iter()
            .map(|e| compiled.contacts[contact(e.event)].name.as_str())
            .collect::<Vec<_>>()
            .join(" "),
        q_end: y[..n].to_vec(),
        q_dot_end: y[n..2 * n].to_vec(),
        impulse_normal: impulse_normal.to_vec(),
        max_penetration: max_penetration.to_vec(),
        energy_balance_error: compiled.potential.as_ref().map(|_| energy_balance_error),
    }
}

/// One run of several contacts with N coordinates.
fn run_contacts_n<const N: usize>(
    (compiled, q0, qdot0, method, s): (&Compiled, &[f64], &[f64], Method, &RunSettings),
) -> Result<(Record, SolverStats), SimError> {
    use crate::compliant::multi::{is_separation, simulate_multi, ContactLaw, MultiContactProblem};
    use crate::hybrid::{RunControl, Until};
    use crate::rigid::multi::{simulate_rigid_multi, RigidContactLaw, RigidMultiProblem};
    let mechanics = DescribedMechanics::<N>::new(compiled);
    let friction = |c: &description::CompiledContact| Coulomb {
        mu: c.mu,
        mu_s: c.mu_s,
    };
    let defaults = SimulationOptions::new(s.integrator, s.rtol, s.atol).with_guards(
        s.t_max,
        s.max_steps,
        s.max_events,
    );
    let control = RunControl {
        until: match s.t_end {
            Some(t_end) => Until::Time(t_end),
            None => Until::Transition {
                t_max: defaults.t_max,
                stop: is_separation,
            },
        },
        output_times: Vec::new(),
        max_events: defaults.max_events,
        max_steps: defaults.max_steps,
        absolute_tolerances: None,
    };
    let q0: [f64; N] = std::array::from_fn(|i| q0[i]);
    let qdot0: [f64; N] = std::array::from_fn(|i| qdot0[i]);
    let kappa = match method {
        Method::Compliant { kappa } => kappa,
        Method::Rigid => {
            let laws = compiled
                .contacts
                .iter()
                .map(|c| RigidContactLaw {
                    friction: friction(c),
                    restitution: c.restitution,
                })
                .collect();
            let problem = RigidMultiProblem::new(&mechanics, laws)?;
            let run = simulate_rigid_multi(
                &problem,
                &q0,
                &qdot0,
                s.integrator,
                defaults.tolerances,
                &control,
            )?;
            // A rigid contact never penetrates.
            let record = contacts_record(
                compiled,
                &run.trace,
                |e| e.contact,
                &run.impulse_normal,
                &vec![0.0; compiled.contacts.len()],
                run.energy_balance_error,
                N,
            );
            return Ok((record, run.trace.stats));
        }
    };
    let laws = compiled
        .contacts
        .iter()
        .map(|c| ContactLaw {
            compliance: NormalCompliance::spring_dashpot(kappa, c.damping),
            friction: friction(c),
        })
        .collect();
    let problem = MultiContactProblem::new(&mechanics, laws)?;
    let run = simulate_multi(
        &problem,
        &q0,
        &qdot0,
        s.integrator,
        defaults.tolerances,
        &control,
    )?;
    let record = contacts_record(
        compiled,
        &run.trace,
        |e| e.contact,
        &run.impulse_normal,
        &run.max_penetration,
        run.energy_balance_error,
        N,
    );
    Ok((record, run.trace.stats))
}

/// Compile `d` and run it once at compliance `kappa` (with its sampled trajectory when
/// `trajectory`): the compiled description and the engine's record.
pub fn run_record(
    d: &Description,
    kappa: f64,
    settings: &RunSettings,
    trajectory: bool,
) -> Result<(Compiled, RunRecord), SimError> {
    let compiled = d.compile()?;
    if compiled.contacts.len() > 1 {
        return Err(SimError::invalid(
            "system.contacts",
            format!("{} contacts", compiled.contacts.len()),
            "one run's trajectory and summary (simulate --system) are built for one contact; run a system of several contacts with `rigid-limit run`",
        ));
    }
    let (q0, qdot0) = d.initial_state(kappa)?;
    check_mass_matrix(&compiled, &q0)?;
    let args = (&compiled, &q0[..], &qdot0[..], kappa, settings, trajectory);
    let r = match compiled.coordinates.len() {
        1 => run_n::<1>(args)?,
        2 => run_n::<2>(args)?,
        3 => run_n::<3>(args)?,
        4 => run_n::<4>(args)?,
        n => {
            return Err(SimError::invalid(
                "system.coordinates",
                format!("{n} coordinates"),
                &format!("a described system has at most {MAX_COORDINATES} coordinates for now"),
            ))
        }
    };
    Ok((compiled, r))
}

/// One run on the const-generic engine with N coordinates.
fn run_n<const N: usize>(
    (compiled, q0, qdot0, kappa, s, trajectory): (
        &Compiled,
        &[f64],
        &[f64],
        f64,
        &RunSettings,
        bool,
    ),
) -> Result<RunRecord, SimError> {
    let mechanics = DescribedMechanics::<N>::new(compiled);
    let contact = &compiled.contacts[0];
    let problem = ContactProblem {
        system: &mechanics,
        compliance: NormalCompliance::spring_dashpot(kappa, contact.damping),
        friction: Coulomb {
            mu: contact.mu,
            mu_s: contact.mu_s,
        },
    };
    let mut options = SimulationOptions::new(s.integrator, s.rtol, s.atol).with_guards(
        s.t_max,
        s.max_steps,
        s.max_events,
    );
    if let Some(t_end) = s.t_end {
        options.end = EndCondition::Time(t_end);
    }
    options.record_trajectory = trajectory;
    let q0: [f64; N] = std::array::from_fn(|i| q0[i]);
    let qdot0: [f64; N] = std::array::from_fn(|i| qdot0[i]);
    simulate(&problem, &q0, &qdot0, &options).map_err(|e| match mechanics.non_finite_source() {
        Some((key, text)) => SimError::invalid(
            key,
            format!("\"{text}\""),
            &format!(
                "evaluated to NaN or an infinity during the run (the state left the expression's domain: a logarithm or square root of a negative number, a division by zero; a validity margin can end the run before); then {e}"
            ),
        ),
        None => e,
    })
}
