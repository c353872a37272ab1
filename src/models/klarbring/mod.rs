//! Klarbring's particle (`model = "klarbring"`): a unit mass in a quadratic well with one
//! unilateral frictional contact, in 2D or 3D, with analytic load F(t) (Ballard–Basseville
//! 2005; docs/klarbring.md). `method = "rigid"` runs the event-driven rigid reference
//! ([`crate::rigid`]); `method = "compliant"` runs the penalty model over the κ ladder and
//! the rigid reference too, written as a row with method `rigid` and κ = 0.
//!
//! ```toml
//! name = "klarbring_2d"
//! model = "klarbring"
//! [params]
//! stiffness = [[2.0, 0.8], [0.8, 1.0]]   # K, rows; the dimension is its size (2 or 3)
//! force_constant = [1.0, 0.0]            # F_i(t) = c_i + a_i cos(ω_i t) + b_i sin(ω_i t)
//! force_cos = [0.0, 0.0]                 #        + Σ_k p_ik t^k (force_polynomial, optional)
//! force_sin = [0.0, 1.5]
//! force_frequency = [0.0, 1.0]
//! mu = 0.8
//! restitution = 1.0
//! U0 = [0.0, 0.0]                        # normal first; U_N ≤ 0 admissible
//! V0 = [0.0, 0.0]
//! t_end = 13.5
//! method = "rigid"                       # or "compliant" (then damping = c_d, κ from [sweep])
//! [sweep]
//! kappa = { min = 1e-8, max = 1e-2, per_decade = 1 }
//! [solver]
//! integrators = ["radau5"]
//! rtol = 1e-10
//! atol = 1e-12
//! ```

pub mod impacts;
pub mod impacts_report;
pub mod mechanics;
pub mod params;
pub mod quasistatic;
pub mod report;
pub mod run;

use crate::error::SimError;
use crate::experiment::grammar::{LogGrid, MethodKind};
use crate::experiment::rows::Cells;
use crate::experiment::runner::RunError;
use crate::experiment::system::{Method, Methods, Quantity, RunSettings, System};
use crate::experiment::table::Row;
use crate::integrate::{IntegratorKind, SolverStats, Tolerances};
use crate::report::rates::FIT_RANGE;
use params::Params;
use run::Record;
use std::path::Path;

/// Klarbring's particle as a system of the harness: a convergence study whose rigid reference
/// is a [`Method::Rigid`] run (a row with method `rigid` and κ = 0 per integrator, before the
/// ladder); `method = "rigid"` in `[params]` runs the reference alone.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Klarbring;

impl System for Klarbring {
    const NAME: &'static str = "klarbring";
    const ABOUT: &'static str =
        "Klarbring's particle in 2D/3D with spatial Coulomb contact (Ballard–Basseville 2005): \
         compliant or the rigid event-driven reference (impacts as resets)";
    const EXAMPLE: &'static str = include_str!("../../../experiments/klarbring_2d.toml");
    const TITLE: &'static str = "Klarbring's particle, compliant → rigid";
    const SOLVER_KEYS: &'static [&'static str] = &["max_steps", "max_events"];
    const RIGID: bool = true;
    const SWEEPS_PARAMETERS: bool = false;
    type Config = Params;
    type Record = Record;

    fn validate(p: &Params, kappa: Option<&LogGrid>) -> Result<(), SimError> {
        p.validate()?;
        p.check_scales(
            kappa
                .filter(|_| p.method == MethodKind::Compliant)
                .map(|k| k.max),
        )
    }

    fn run(
        p: &Params,
        method: Method,
        settings: &RunSettings,
    ) -> Result<(Record, SolverStats), SimError> {
        let tolerances = Tolerances {
            rtol: settings.rtol,
            atol: settings.atol,
        };
        let guards = guards(settings.max_steps, settings.max_events);
        match method {
            Method::Compliant { kappa } => {
                run::run_compliant_point(p, kappa, settings.integrator, tolerances, guards)
            }
            Method::Rigid => run::run_rigid_point(p, settings.integrator, tolerances, guards),
        }
    }

    /// The distances of the compliant run (U, V) to the rigid one (U⁰, V⁰) that the run
    /// measures (the rigid lift-off is the rigid run's first, T when there is none), fitted over
    /// the shared range [`FIT_RANGE`], with the predictions of a rigid motion through an impact
    /// (`distances`; [`Self::reported_quantities`] sets them from the rigid run).
    fn quantities(_: &Params) -> Vec<Quantity> {
        distances(0.5)
    }

    /// `distances` with the whole run's prediction the rigid run decides: 1/2 when it goes
    /// through an impact, 1 when it has none (the whole run is then one contact phase).
    fn reported_quantities(_: &Params, rows: &[Row]) -> Vec<Quantity> {
        distances(if report::rigid_run_without_impact(rows) {
            1.0
        } else {
            0.5
        })
    }

    /// The rigid event sequence, the quasi-static problem at its slip onsets, the compliant
    /// runs' events and energy, paths.png and event_times.png ([`report::sections`]).
    fn report_sections(
        p: &Params,
        integrators: &[IntegratorKind],
        rows: &[Row],
        dir: &Path,
    ) -> Result<String, RunError> {
        report::sections(p, integrators, rows, dir)
    }

    fn methods(p: &Params) -> Methods {
        Methods {
            rigid: true,
            compliant: p.method == MethodKind::Compliant,
        }
    }

    fn input_columns(_: &Params) -> Vec<&'static str> {
        vec![
            "dimension",
            "mu",
            "restitution",
            "damping",
            "U0",
            "V0",
            "t_end",
        ]
    }

    fn inputs(p: &Params) -> Result<Cells, String> {
        Ok(vec![
            ("dimension", p.dimension().to_string()),
            ("mu", p.mu.to_string()),
            ("restitution", p.restitution.to_string()),
            ("damping", p.damping.to_string()),
            ("U0", run::joined(&p.u0)),
            ("V0", run::joined(&p.v0)),
            ("t_end", p.t_end.to_string()),
        ])
    }

    /// paths.csv: the rigid path and the compliant one at the largest κ whose run completes,
    /// for the figures; none when no run completes (the report says so, and runs.csv holds
    /// the errors: a failed point is a row, never a failed experiment).
    fn side_tables(
        p: &Params,
        _: &[Params],
        kappa: &[f64],
        settings: &RunSettings,
    ) -> Vec<(&'static str, String)> {
        let tolerances = Tolerances {
            rtol: settings.rtol,
            atol: settings.atol,
        };
        let guards = guards(settings.max_steps, settings.max_events);
        kappa
            .iter()
            .map(|&k| Some(k))
            .chain([None])
            .find_map(|k| run::paths_csv(p, k, settings.integrator, tolerances, guards).ok())
            .map(|text| vec![("paths.csv", text)])
            .unwrap_or_default()
    }

    fn describe(p: &Params) -> String {
        report::parameters(p)
    }
}

/// The four distances of a compliant run to the rigid one, with their predicted rates: while
/// the particle stays in contact the penalty spring's deflection κN shifts the motion and its
/// events by O(κ), rate 1; an impact is resolved over a time O(√κ), which shifts the motion after
/// it by O(√κ), rate 1/2 (docs/klarbring.md, "One impact"). `whole_run` is the rate of the
/// distances over the whole run: 1/2 through an impact, 1 without one.
fn distances(whole_run: f64) -> Vec<Quantity> {
    let distance = |column, symbol, meaning, exponent| {
        Quantity::distance_to_rigid(column, symbol, meaning, Some(exponent), FIT_RANGE)
    };
    vec![
        distance(
            "d_U_contact",
            "d_U,c",
            "sup‖U − U⁰‖ up to the rigid lift-off",
            1.0,
        ),
        distance(
            "d_V_contact",
            "d_V,c",
            "∫‖V − V⁰‖dt up to the rigid lift-off",
            1.0,
        ),
        distance("d_U", "d_U", "sup‖U − U⁰‖ over the whole run", whole_run),
        distance("d_V_L1", "d_V", "∫‖V − V⁰‖dt over the whole run", whole_run),
    ]
}

/// The step and event guards of each run, `[solver]`'s or the defaults.
pub fn guards(max_steps: Option<usize>, max_events: Option<usize>) -> (usize, usize) {
    (
        max_steps.unwrap_or(crate::compliant::DEFAULT_MAX_STEPS),
        max_events.unwrap_or(crate::compliant::DEFAULT_MAX_EVENTS),
    )
}

pub use impacts::KlarbringImpacts;

/// The rate at which ‖V^κ − V⁺‖ at the first opening vanishes (docs/klarbring.md, "One
/// impact"): 1 for an undamped impact that sticks (the O(√κ) change of the exit speed cancels by
/// energy, and the stick breaks only O(κ) before the opening), else 1/2.
pub(crate) fn predicted_rate(damping: f64, sticks: bool) -> f64 {
    if damping == 0.0 && sticks {
        1.0
    } else {
        0.5
    }
}
