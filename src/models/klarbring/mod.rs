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
pub mod report;
pub mod run;

use crate::error::SimError;
use crate::experiment::grammar::{LogGrid, MethodKind};
use crate::experiment::model::{Cells, Model, Point, SweepSpec};
use crate::experiment::runner::{Plan, RunError};
use crate::experiment::table::Row;
use crate::integrate::{IntegratorKind, SolverStats, Tolerances};
use params::Params;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Klarbring's particle as a model of the harness.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Klarbring;

/// `[sweep]`: the κ ladder of the compliant runs.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Sweep {
    pub kappa: LogGrid,
}

/// The one report of this model.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum Analysis {
    RigidLimit,
}

/// One configuration: which formulation runs, on which parameters (written with every row,
/// failed ones too, and compared on resume).
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub method: MethodKind,
    pub params: Params,
}

impl Model for Klarbring {
    const NAME: &'static str = "klarbring";
    const SOLVER_KEYS: &'static [&'static str] = &["max_steps", "max_events"];
    type Params = Params;
    type Sweep = Sweep;
    type Analysis = Analysis;
    type Config = Config;
    const INPUT_COLUMNS: &'static [&'static str] = &[
        "method",
        "dimension",
        "mu",
        "restitution",
        "damping",
        "U0",
        "V0",
        "t_end",
    ];
    const MEASURE_COLUMNS: &'static [&'static str] = &[
        "mode_sequence",
        "n_events",
        "event_times",
        "event_kinds",
        "U_end",
        "V_end",
        "checkpoint_times",
        "checkpoint_states",
        "t_liftoff_rigid",
        "d_U",
        "d_U_contact",
        "d_V_L1",
        "d_V_contact",
        "event_time_differences",
    ];

    fn kappa(sweep: &Sweep) -> &LogGrid {
        &sweep.kappa
    }

    fn validate(spec: &SweepSpec<Self>) -> Result<(), SimError> {
        crate::compliant::normal::require_resolvable_kappa(
            "sweep.kappa.min",
            spec.sweep.kappa.min,
        )?;
        if let Some(w) = spec.solver.window_scaled {
            return Err(SimError::invalid(
                "solver.window_scaled",
                w,
                "this model runs to params.t_end; a fast-time window belongs to the mode table",
            ));
        }
        spec.params.validate()?;
        let kappa_max =
            (spec.params.method == MethodKind::Compliant).then_some(spec.sweep.kappa.max);
        spec.params.check_scales(kappa_max)
    }

    fn grid_size(_: &SweepSpec<Self>) -> u128 {
        1
    }

    /// The compliant configuration (its rigid reference is the extra point of [`KlarbringPlan`]);
    /// none for a rigid-only experiment.
    fn configurations(spec: &SweepSpec<Self>) -> Vec<Config> {
        match spec.params.method {
            MethodKind::Compliant => vec![Config {
                method: MethodKind::Compliant,
                params: spec.params.clone(),
            }],
            _ => Vec::new(),
        }
    }

    fn inputs(config: &Config) -> Cells {
        let mut cells = vec![("method", config.method.name().to_string())];
        cells.extend(param_cells(&config.params));
        cells
    }

    fn run(
        spec: &SweepSpec<Self>,
        config: &Config,
        kappa: f64,
        integrator: IntegratorKind,
    ) -> Result<(Cells, SolverStats), String> {
        let p = &spec.params;
        let tolerances = Tolerances {
            rtol: spec.solver.rtol,
            atol: spec.solver.atol,
        };
        let guards = guards(spec);
        let result = match config.method {
            MethodKind::Compliant => {
                run::run_compliant_point(p, kappa, integrator, tolerances, guards)
            }
            _ => run::run_rigid_point(p, integrator, tolerances, guards),
        };
        result.map_err(|e| e.to_string())
    }

    fn report(spec: &SweepSpec<Self>, rows: &[Row], dir: &Path) -> Result<(), RunError> {
        report::write_report(spec, rows, dir)
    }
}

/// The step and event guards of each run.
pub fn guards<M: Model>(spec: &SweepSpec<M>) -> (usize, usize) {
    (
        spec.solver
            .max_steps
            .unwrap_or(crate::compliant::DEFAULT_MAX_STEPS),
        spec.solver
            .max_events
            .unwrap_or(crate::compliant::DEFAULT_MAX_EVENTS),
    )
}

/// The input cells fixed by `[params]` (the method column tells the rows apart).
fn param_cells(p: &Params) -> Cells {
    vec![
        ("dimension", p.dimension().to_string()),
        ("mu", p.mu.to_string()),
        ("restitution", p.restitution.to_string()),
        ("damping", p.damping.to_string()),
        ("U0", run::joined(&p.u0)),
        ("V0", run::joined(&p.v0)),
        ("t_end", p.t_end.to_string()),
    ]
}

/// A Klarbring experiment as a plan: the rigid reference first (κ = 0, one row per
/// integrator), then the compliant points of the κ ladder.
#[derive(Clone, Debug, PartialEq)]
pub struct KlarbringPlan {
    pub spec: SweepSpec<Klarbring>,
}

impl std::ops::Deref for KlarbringPlan {
    type Target = SweepSpec<Klarbring>;
    fn deref(&self) -> &Self::Target {
        &self.spec
    }
}

impl KlarbringPlan {
    pub fn parse(text: &str) -> Result<Self, crate::experiment::grammar::SpecError> {
        SweepSpec::parse(text).map(|spec| KlarbringPlan { spec })
    }
}

impl Plan for KlarbringPlan {
    type Point = Point<Config>;

    fn name(&self) -> &str {
        &self.spec.name
    }
    fn columns(&self) -> Vec<&'static str> {
        SweepSpec::<Klarbring>::columns()
    }
    fn points(&self) -> Vec<Self::Point> {
        let mut out: Vec<Self::Point> = self
            .spec
            .solver
            .integrators
            .iter()
            .map(|&integrator| Point {
                id: 0,
                kappa: 0.0,
                config: Config {
                    method: MethodKind::Rigid,
                    params: self.spec.params.clone(),
                },
                integrator,
            })
            .collect();
        out.extend(self.spec.points());
        for (i, p) in out.iter_mut().enumerate() {
            p.id = i;
        }
        out
    }
    fn point_id(&self, point: &Self::Point) -> usize {
        point.id
    }
    fn input_row(&self, point: &Self::Point) -> Row {
        self.spec.input_row(point)
    }
    fn run_point(&self, point: &Self::Point) -> Row {
        self.spec.run_point(point)
    }
    fn describe(&self, point: &Self::Point) -> String {
        match point.config.method {
            MethodKind::Rigid => format!("{} rigid", point.integrator),
            _ => self.spec.describe(point),
        }
    }
    fn spec_json(&self) -> serde_json::Value {
        self.spec.spec_json()
    }
    /// paths.csv: the rigid path and the compliant one at the largest κ whose run completes,
    /// for the figures; none when no run completes (the report says so, and runs.csv holds
    /// the errors: a failed point is a row, never a failed experiment).
    fn after_run(&self, dir: &Path) -> Result<(), RunError> {
        let Some(&integrator) = self.spec.solver.integrators.first() else {
            return Ok(());
        };
        let tolerances = Tolerances {
            rtol: self.spec.solver.rtol,
            atol: self.spec.solver.atol,
        };
        let p = &self.spec.params;
        let ladder = match p.method {
            MethodKind::Compliant => self.spec.sweep.kappa.values(),
            _ => Vec::new(),
        };
        let mut result = Err(SimError::invalid("paths", "", "no run"));
        for kappa in ladder.into_iter().map(Some).chain([None]) {
            result = run::paths_csv(p, kappa, integrator, tolerances, guards(&self.spec));
            if result.is_ok() {
                break;
            }
        }
        match result {
            Ok(text) => crate::experiment::runner::write_atomically(&dir.join("paths.csv"), &text),
            Err(_) => Ok(()),
        }
    }
}

/// One impact of Klarbring's particle as a model of the harness.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KlarbringImpacts;

/// The rate at which ‖V^κ − V⁺‖ at the first opening vanishes (docs/klarbring.md, "One
/// impact"): 1 for an undamped impact that sticks (the O(√κ) change of the exit speed cancels by
/// energy, and the stick breaks only O(κ) before the opening), else 1/2.
pub fn predicted_rate(damping: f64, sticks: bool) -> f64 {
    if damping == 0.0 && sticks {
        1.0
    } else {
        0.5
    }
}
