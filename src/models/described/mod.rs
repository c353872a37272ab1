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
pub mod fast;
pub mod mechanics;

use crate::analysis::first_opening::ScaleFreeOpening;
use crate::compliant::cone::ConeMode;
use crate::compliant::coulomb::Coulomb;
use crate::compliant::multi::{is_separation, ContactMode, Modes};
use crate::compliant::normal::NormalCompliance;
use crate::compliant::record::{ContactsSample, RunRecord};
use crate::compliant::spatial::SpatialContactProblem;
use crate::compliant::spatial_measured::MeasuredSpatialContact;
use crate::compliant::{simulate, ContactProblem, EndCondition, SimulationOptions};
use crate::error::{number_text, SimError};
use crate::experiment::grammar::{LogGrid, SpecError};
use crate::experiment::rows::Cells;
use crate::experiment::system::{Method, Methods, Quantity, RunSettings, System};
use crate::experiment::table::column_name;
use crate::hybrid::{Named, RunControl, Trace, Until};
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
pub(crate) const MAX_COORDINATES: usize = 4;

/// The error of a description with `n` > [`MAX_COORDINATES`] coordinates.
fn too_many_coordinates(n: usize) -> SimError {
    SimError::invalid(
        "system.coordinates",
        format!("{n} coordinates"),
        &format!("a described system has at most {MAX_COORDINATES} coordinates; write a larger one as a model folder (README, \"Adding a mechanical system\")"),
    )
}

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
    const ABOUT: &'static str =
        "your own system, described in the experiment file by expressions: coordinates, \
         parameters, mass matrix, forces, one or several contacts (docs/described_systems.md)";
    const TITLE: &'static str = "a described system";
    const SOLVER_KEYS: &'static [&'static str] = &["t_max", "t_end", "max_steps", "max_events"];
    type Config = Description;
    type Record = Record;

    fn validate(d: &Description, kappa: Option<&LogGrid>) -> Result<(), SimError> {
        let compiled = d.compile()?;
        let n = compiled.coordinates.len();
        if n > MAX_COORDINATES {
            return Err(too_many_coordinates(n));
        }
        // The start and the mass matrix there, at the ladder's ends.
        let ends = kappa.map_or_else(|| vec![0.0], |k| vec![k.max, k.min]);
        for k in ends {
            let (q, qdot) = d.initial_state(k)?;
            check_mass_matrix(&compiled, &q)?;
            check_contact_frames(&compiled, &q, &qdot)?;
        }
        Ok(())
    }

    fn run(
        d: &Description,
        method: Method,
        settings: &RunSettings,
    ) -> Result<(Record, SolverStats), SimError> {
        if d.contacts.len() > 1 || d.contacts[0].tangents.len() == 2 {
            let (_, run) = run_hybrid_engine(d, method, settings, false)?;
            return Ok((run.record, run.stats));
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

    /// A system of several planar contacts has the rigid reference of [`crate::rigid::multi`]
    /// (its runs.csv a `method` column); one of a single contact or of spatial contacts runs
    /// compliant only.
    fn methods(d: &Description) -> Methods {
        Methods {
            rigid: d.contacts.len() > 1 && d.contacts.iter().all(|c| c.tangents.len() == 1),
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
            ..Quantity::default()
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

    /// Two planar contacts, both slipping at the start ([`fast::project`]).
    fn check_scale_free(d: &Description, kappa: f64) -> Result<(), SimError> {
        fast::project(d, kappa).map(|_| ())
    }

    fn scale_free_first_opening(
        d: &Description,
        kappa: f64,
        settings: &RunSettings,
        window_scaled: f64,
        start: f64,
    ) -> Result<ScaleFreeOpening, SimError> {
        fast::project(d, kappa)?.first_opening(&d.contacts, settings, window_scaled, start)
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
            "Coordinates ({}); parameters as described {}; {}",
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
pub(crate) fn with_system_file(
    mut table: toml::Table,
    dir: Option<&std::path::Path>,
) -> Result<toml::Table, SpecError> {
    let name = match table.get("system") {
        // `[params]` is `[system]` by its older name: with a file as well, one of the two
        // descriptions would be dropped.
        Some(toml::Value::String(name)) if table.contains_key("params") => {
            return Err(SpecError::Invalid {
                path: String::new(),
                source: SimError::invalid(
                    "params",
                    "(a table)",
                    &format!(
                        "[params] is the description of the system, which system = \"{name}\" gives already: remove one; a parameter's own value goes in [sweep] (e.g. mu = [0.3])"
                    ),
                ),
            });
        }
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

/// The first Cholesky pivot of the symmetric `m` that is not above `floor` times its diagonal
/// entry (NaN and infinite ones included): its row and value; `None` when `m` is positive
/// definite to that margin.
fn failed_pivot(m: &[Vec<f64>], floor: f64) -> Option<(usize, f64)> {
    let n = m.len();
    let mut l = vec![vec![0.0; n]; n];
    for j in 0..n {
        let d = m[j][j] - (0..j).map(|k| l[j][k] * l[j][k]).sum::<f64>();
        if d.is_nan() || d <= floor * m[j][j].abs() || d.is_infinite() {
            return Some((j, d));
        }
        let d = d.sqrt();
        l[j][j] = d;
        for i in j + 1..n {
            l[i][j] = (m[i][j] - (0..j).map(|k| l[i][k] * l[j][k]).sum::<f64>()) / d;
        }
    }
    None
}

/// M(q₀) must be positive definite: its Cholesky factor has positive pivots.
fn check_mass_matrix(c: &Compiled, q: &[f64]) -> Result<(), SimError> {
    let m: Vec<Vec<f64>> = c
        .mass_matrix
        .iter()
        .map(|row| row.iter().map(|e| e.eval(q, q, 0.0)).collect())
        .collect();
    match failed_pivot(&m, 0.0) {
        Some((j, d)) => Err(SimError::invalid(
            "system.mass_matrix",
            format!("pivot {} at row {j}", number_text(d)),
            "must be positive definite at the initial state (q = system.initial.q)",
        )),
        None => Ok(()),
    }
}

/// How far from dependent a contact's normal and tangents must be at the start: the relative
/// Cholesky pivot of W = J M⁻¹ Jᵀ (rounding leaves about 1e-16 for dependent rows).
const INDEPENDENT_DIRECTIONS: f64 = 1e-10;

/// Each contact's normal d and tangents c (one for a planar contact, two for a spatial one)
/// must be independent at the start (W = J M⁻¹ Jᵀ positive definite): the stick force solves
/// W_TT λ_T = …, and the formulation needs the contact's normal and tangential velocities to
/// be free. A tangent along the normal would turn friction into a normal force; a zero one
/// makes the stick force singular.
fn check_contact_frames(c: &Compiled, q0: &[f64], qdot0: &[f64]) -> Result<(), SimError> {
    match c.coordinates.len() {
        1 => check_contact_frames_n::<1>(c, q0, qdot0),
        2 => check_contact_frames_n::<2>(c, q0, qdot0),
        3 => check_contact_frames_n::<3>(c, q0, qdot0),
        4 => check_contact_frames_n::<4>(c, q0, qdot0),
        // The dispatch of a run refuses more than four.
        _ => Ok(()),
    }
}

fn check_contact_frames_n<const N: usize>(
    compiled: &Compiled,
    q0: &[f64],
    qdot0: &[f64],
) -> Result<(), SimError> {
    use crate::compliant::multi::PlanarContacts;
    use crate::compliant::spatial_multi::SpatialContacts;
    use crate::model::Mechanics;
    let mechanics = DescribedMechanics::<N>::new(compiled);
    let q0: [f64; N] = std::array::from_fn(|i| q0[i]);
    let qdot0: [f64; N] = std::array::from_fn(|i| qdot0[i]);
    let m = mechanics.mass_matrix(&q0);
    let mass = crate::model::MassFactor::of(&m);
    let spatial = compiled.is_spatial();
    for k in 0..compiled.contacts.len() {
        let (rows, n) = if spatial {
            let fr = SpatialContacts::frame(&mechanics, k, &q0, &qdot0);
            ([fr.normal, fr.tangents[0], fr.tangents[1]], 3)
        } else {
            let kin = PlanarContacts::contact(&mechanics, k, &q0, &qdot0);
            ([kin.normal, kin.tangential, [0.0; N]], 2)
        };
        let (_, w) = crate::compliant::multi::delassus_block(&mass, &rows, n);
        let w: Vec<Vec<f64>> = w[..n].iter().map(|row| row[..n].to_vec()).collect();
        if let Some((j, pivot)) = failed_pivot(&w, INDEPENDENT_DIRECTIONS) {
            let requirement = if j == 0 {
                "the gap must vary with the coordinates at the initial state (∂g/∂q ≠ 0): a contact whose gap is constant never closes or opens"
            } else if spatial {
                "the normal ∂g/∂q and the tangents ∂s₁/∂q, ∂s₂/∂q must be independent at the initial state; give tangential positions that move independently of the gap and of each other"
            } else {
                "the normal ∂g/∂q and the tangent ∂s/∂q must be independent at the initial state (a contact needs two coordinates or more); give a tangential position that moves independently of the gap"
            };
            // A zero direction (a constant gap or tangential position) has no relative pivot.
            let relative = if w[j][j] == 0.0 { 0.0 } else { pivot / w[j][j] };
            let field = if j == 0 { "gap" } else { "tangents" };
            return Err(SimError::invalid(
                &format!("system.contacts[{k}].{field}"),
                format!(
                    "{} (relative pivot {:.1e} of {} in W = J M⁻¹ Jᵀ)",
                    compiled.contacts[k].name,
                    relative,
                    ["the normal", "the first tangent", "the second tangent"][j]
                ),
                requirement,
            ));
        }
    }
    Ok(())
}

/// One phase of a [`HybridRun`].
#[derive(Clone, Debug, Serialize)]
pub(crate) struct PhaseRow {
    /// The mode's name (each contact's, `,`-joined, for several).
    pub mode: &'static str,
    pub t_start: f64,
    pub t_end: f64,
    pub duration: f64,
}

/// One event of a [`HybridRun`].
#[derive(Clone, Debug, Serialize)]
pub(crate) struct EventRow {
    pub t: f64,
    pub event: &'static str,
    pub contact: String,
    pub from: &'static str,
    pub to: &'static str,
}

/// One run of a described system on a formulation of the hybrid engine (several contacts, or a
/// spatial contact): its record (runs.csv's row) and what `simulate --system` prints besides.
#[derive(Clone, Debug)]
pub(crate) struct HybridRun {
    pub record: Record,
    pub stats: SolverStats,
    pub phases: Vec<PhaseRow>,
    pub events: Vec<EventRow>,
    pub final_time: f64,
    /// The states at the ends of the steps, when asked.
    pub samples: Vec<ContactsSample>,
}

/// What a run on the hybrid engine measured, beside its trace.
struct Measured {
    impulse_normal: Vec<f64>,
    max_penetration: Vec<f64>,
    energy_balance_error: f64,
    samples: Vec<ContactsSample>,
}

/// The [`HybridRun`] of a run with `trace`: `event_times` (in the order of the trace's
/// events; a two-tangent stop at its extrapolated instant), `contact` naming an event's contact.
fn hybrid_run<M: Named, E: Named + Copy>(
    compiled: &Compiled,
    trace: &Trace<M, E>,
    event_times: &[f64],
    contact: impl Fn(E) -> usize,
    measured: Measured,
) -> HybridRun {
    let n = compiled.coordinates.len();
    let y = &trace.y_end;
    let events: Vec<EventRow> = trace
        .events
        .iter()
        .zip(event_times)
        .map(|(e, &t)| EventRow {
            t,
            event: e.event.name(),
            contact: compiled.contacts[contact(e.event)].name.clone(),
            from: e.from.name(),
            to: e.to.name(),
        })
        .collect();
    let joined = |f: &dyn Fn(&EventRow) -> &str| events.iter().map(f).collect::<Vec<_>>().join(" ");
    let record = Record {
        mode_sequence: trace
            .phases
            .iter()
            .map(|p| p.mode.name())
            .collect::<Vec<_>>()
            .join(">"),
        event_times: event_times.to_vec(),
        event_kinds: joined(&|e| e.event),
        event_contacts: joined(&|e| e.contact.as_str()),
        q_end: y[..n].to_vec(),
        q_dot_end: y[n..2 * n].to_vec(),
        impulse_normal: measured.impulse_normal,
        max_penetration: measured.max_penetration,
        energy_balance_error: compiled
            .potential
            .as_ref()
            .map(|_| measured.energy_balance_error),
    };
    HybridRun {
        record,
        stats: trace.stats,
        phases: trace
            .phases
            .iter()
            .map(|p| PhaseRow {
                mode: p.mode.name(),
                t_start: p.t_start,
                t_end: p.t_start + p.duration,
                duration: p.duration,
            })
            .collect(),
        events,
        final_time: trace.t_end,
        samples: measured.samples,
    }
}

/// Compile `d` (several contacts, or one spatial contact) and run it once under `method` (with
/// the states at the steps' ends when `sample`): compliant on the formulation of several
/// contacts ([`crate::compliant::multi`]) or the spatial one ([`crate::compliant::spatial`],
/// measured by [`crate::compliant::spatial_measured`]); rigid on the rigid reference of several
/// contacts ([`crate::rigid::multi`]; docs/multi_contact.md).
pub(crate) fn run_hybrid_engine(
    d: &Description,
    method: Method,
    settings: &RunSettings,
    sample: bool,
) -> Result<(Compiled, HybridRun), SimError> {
    let compiled = d.compile()?;
    let (q0, qdot0) = d.initial_state(method.kappa())?;
    check_mass_matrix(&compiled, &q0)?;
    check_contact_frames(&compiled, &q0, &qdot0)?;
    let spatial = compiled.is_spatial();
    let several = compiled.contacts.len() > 1;
    let args = (&compiled, &q0[..], &qdot0[..], method, settings, sample);
    let run = match (spatial, compiled.coordinates.len()) {
        (false, 1) => run_contacts_n::<1>(args)?,
        (false, 2) => run_contacts_n::<2>(args)?,
        (false, 3) => run_contacts_n::<3>(args)?,
        (false, 4) => run_contacts_n::<4>(args)?,
        // A spatial contact needs three coordinates (the compilation refuses fewer).
        (true, 3) if several => run_spatial_contacts_n::<3>(args)?,
        (true, 4) if several => run_spatial_contacts_n::<4>(args)?,
        (true, 3) => run_spatial_n::<3>(args)?,
        (true, 4) => run_spatial_n::<4>(args)?,
        (_, n) => return Err(too_many_coordinates(n)),
    };
    Ok((compiled, run))
}

/// The arguments of one run on the hybrid engine: the compiled description, its start, the
/// method, the settings and whether to sample the states.
type HybridArgs<'a> = (
    &'a Compiled,
    &'a [f64],
    &'a [f64],
    Method,
    &'a RunSettings,
    bool,
);

/// The options of a run of several contacts under `s`, and its control: to `t_end`, or without
/// one until every contact is open (the end of an impact).
fn several_contacts_control<M: ContactMode>(
    s: &RunSettings,
) -> (SimulationOptions, RunControl<Modes<M>>) {
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
    (defaults, control)
}

/// One run of several contacts with N coordinates.
fn run_contacts_n<const N: usize>(
    (compiled, q0, qdot0, method, s, sample): HybridArgs<'_>,
) -> Result<HybridRun, SimError> {
    use crate::compliant::multi::{simulate_multi_sampled, ContactLaw, MultiContactProblem};
    use crate::rigid::multi::{
        simulate_rigid_multi, Restitution, RigidContactLaw, RigidMultiProblem,
    };
    let mechanics = DescribedMechanics::<N>::new(compiled);
    let friction = |c: &description::CompiledContact| Coulomb {
        mu: c.mu,
        mu_s: c.mu_s,
    };
    let (defaults, control) = several_contacts_control(s);
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
                    restitution: c.restitution.map_or(
                        Restitution::SpringDashpot { damping: c.damping },
                        Restitution::Newton,
                    ),
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
            )
            .map_err(|e| named_non_finite(&mechanics, e))?;
            // A rigid contact never penetrates.
            let measured = Measured {
                impulse_normal: run.impulse_normal.clone(),
                max_penetration: vec![0.0; compiled.contacts.len()],
                energy_balance_error: run.energy_balance_error,
                samples: Vec::new(),
            };
            let t: Vec<f64> = run.trace.events.iter().map(|e| e.t).collect();
            return Ok(hybrid_run(
                compiled,
                &run.trace,
                &t,
                |e| e.contact,
                measured,
            ));
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
    let run = simulate_multi_sampled(
        &problem,
        &q0,
        &qdot0,
        s.integrator,
        defaults.tolerances,
        &control,
        sample,
    )
    .map_err(|e| named_non_finite(&mechanics, e))?;
    let measured = Measured {
        impulse_normal: run.impulse_normal,
        max_penetration: run.max_penetration,
        energy_balance_error: run.energy_balance_error,
        samples: run.samples,
    };
    let t: Vec<f64> = run.trace.events.iter().map(|e| e.t).collect();
    Ok(hybrid_run(
        compiled,
        &run.trace,
        &t,
        |e| e.contact,
        measured,
    ))
}

/// Compile `d` (one planar contact) and run it once at compliance `kappa` (with its sampled
/// trajectory when `trajectory`): the compiled description and the engine's record.
pub(crate) fn run_record(
    d: &Description,
    kappa: f64,
    settings: &RunSettings,
    trajectory: bool,
) -> Result<(Compiled, RunRecord), SimError> {
    let compiled = d.compile()?;
    if compiled.contacts.len() > 1 || compiled.is_spatial() {
        return Err(SimError::invalid(
            "system.contacts",
            format!("{} contacts", compiled.contacts.len()),
            "this run is of one planar contact; a system of several contacts or a spatial one runs on run_hybrid_engine",
        ));
    }
    let (q0, qdot0) = d.initial_state(kappa)?;
    check_mass_matrix(&compiled, &q0)?;
    check_contact_frames(&compiled, &q0, &qdot0)?;
    let args = (&compiled, &q0[..], &qdot0[..], kappa, settings, trajectory);
    let r = match compiled.coordinates.len() {
        1 => run_n::<1>(args)?,
        2 => run_n::<2>(args)?,
        3 => run_n::<3>(args)?,
        4 => run_n::<4>(args)?,
        n => return Err(too_many_coordinates(n)),
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
    simulate(&problem, &q0, &qdot0, &options).map_err(|e| named_non_finite(&mechanics, e))
}

/// `e`, the error of a failed run, as the error of the expression that evaluated to a
/// non-finite number during it, when one did.
fn named_non_finite<const N: usize>(
    mechanics: &DescribedMechanics<'_, N>,
    e: SimError,
) -> SimError {
    match mechanics.non_finite_source() {
        Some((key, text)) => SimError::invalid(
            key,
            format!("\"{text}\""),
            &format!(
                "evaluated to NaN or an infinity during the run (the state left the expression's domain: a logarithm or square root of a negative number, a division by zero; a validity margin can end the run before); then {e}"
            ),
        ),
        None => e,
    }
}

/// κ of a run of spatial contacts, which have no rigid reference here.
fn spatial_compliant_kappa(method: Method) -> Result<f64, SimError> {
    match method {
        Method::Compliant { kappa } => Ok(kappa),
        Method::Rigid => Err(SimError::invalid(
            "method",
            "rigid",
            "a described system with spatial contacts has no rigid reference (docs/multi_contact.md, \"Spatial contacts\"): run it compliant",
        )),
    }
}

/// One run of several spatial contacts with N coordinates (compliant: no rigid reference of
/// several spatial contacts here; docs/multi_contact.md, "Spatial contacts").
fn run_spatial_contacts_n<const N: usize>(
    (compiled, q0, qdot0, method, s, _sample): HybridArgs<'_>,
) -> Result<HybridRun, SimError> {
    use crate::compliant::spatial_multi::{simulate_spatial_multi, ConeLaw, SpatialMultiProblem};
    let kappa = spatial_compliant_kappa(method)?;
    let mechanics = DescribedMechanics::<N>::new(compiled);
    let laws = compiled
        .contacts
        .iter()
        .map(|c| ConeLaw {
            compliance: NormalCompliance::spring_dashpot(kappa, c.damping),
            mu: c.mu,
        })
        .collect();
    let problem = SpatialMultiProblem::new(&mechanics, laws)?;
    let (defaults, control) = several_contacts_control(s);
    let q0: [f64; N] = std::array::from_fn(|i| q0[i]);
    let qdot0: [f64; N] = std::array::from_fn(|i| qdot0[i]);
    let run = simulate_spatial_multi(
        &problem,
        &q0,
        &qdot0,
        s.integrator,
        defaults.tolerances,
        &control,
    )
    .map_err(|e| named_non_finite(&mechanics, e))?;
    let measured = Measured {
        impulse_normal: run.impulse_normal,
        max_penetration: run.max_penetration,
        energy_balance_error: run.energy_balance_error,
        samples: Vec::new(),
    };
    Ok(hybrid_run(
        compiled,
        &run.trace,
        &run.event_times,
        |e| e.contact,
        measured,
    ))
}

/// A run of a spatial contact ends, without a `t_end`, where the contact opens.
fn spatial_contact_opens(from: ConeMode, to: ConeMode) -> bool {
    from.is_contact() && to == ConeMode::Free
}

/// One run of a spatial contact with N coordinates (compliant: a spatial contact has no rigid
/// reference here).
fn run_spatial_n<const N: usize>(
    (compiled, q0, qdot0, method, s, sample): HybridArgs<'_>,
) -> Result<HybridRun, SimError> {
    let kappa = spatial_compliant_kappa(method)?;
    let mechanics = DescribedMechanics::<N>::new(compiled);
    let contact = &compiled.contacts[0];
    let q0: [f64; N] = std::array::from_fn(|i| q0[i]);
    let qdot0: [f64; N] = std::array::from_fn(|i| qdot0[i]);
    let formulation = MeasuredSpatialContact {
        problem: SpatialContactProblem::<_, N, 2> {
            system: &mechanics,
            compliance: NormalCompliance::spring_dashpot(kappa, contact.damping),
            mu: contact.mu,
        },
    };
    let defaults = SimulationOptions::new(s.integrator, s.rtol, s.atol).with_guards(
        s.t_max,
        s.max_steps,
        s.max_events,
    );
    let spatial = crate::compliant::spatial::RunSettings {
        integrator: s.integrator,
        tolerances: defaults.tolerances,
        t_end: s.t_end.unwrap_or(defaults.t_max),
        output_times: Vec::new(),
        max_steps: defaults.max_steps,
        max_events: defaults.max_events,
    };
    let stop = match s.t_end {
        Some(_) => None,
        None => Some(spatial_contact_opens as fn(ConeMode, ConeMode) -> bool),
    };
    let m = formulation
        .simulate(&q0, &qdot0, &spatial, stop, sample)
        .map_err(|e| named_non_finite(&mechanics, e))?;
    let times: Vec<f64> = m.run.events.iter().map(|e| e.t).collect();
    let measured = Measured {
        impulse_normal: vec![m.impulse_normal],
        max_penetration: vec![m.max_penetration],
        energy_balance_error: m.energy_balance_error,
        samples: m.samples,
    };
    Ok(hybrid_run(compiled, &m.run.trace, &times, |_| 0, measured))
}
