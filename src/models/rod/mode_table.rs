//! The rod's mode table (`model = "rod"`, `analysis = "mode_table"`): the rod's parameter
//! tables ([`super::sweep::RodGrid`]: μ, μ_s, θ0, θ̇0, u0, c_d, gyration_sq, Y0, V0, explicit
//! `states` and `starts`), each state run from its fast start to s = t/√κ =
//! `[solver] window_scaled` and classified by the outcome rule; the report compares the outcome
//! sets with Champneys–Várkonyi's Table 3 ([`crate::models::mode_table`]).
//!
//! Its table has its own columns (the rod's inputs, C–V's scalars a, b, A, B, C of the state,
//! and the mode table's measures), so it is a model of its own beside the κ sweep and atlas
//! ([`super::sweep::Rod`]); the registry picks it by the `analysis` key. States are in the
//! harness's orientation: C–V's rod at (θ, θ̇, u0) is θ0 = π − θ, ω0 = −θ̇, the same u0
//! (docs/champneys_varkonyi.md §6).

use super::scenario::RodImpact;
use super::sweep::{RodGrid, RodParams, RodSweep};
use crate::error::SimError;
use crate::experiment::grammar::LogGrid;
use crate::experiment::model::{Cells, Model, SweepSpec};
use crate::experiment::runner::RunError;
use crate::experiment::table::Row;
use crate::integrate::{IntegratorKind, SolverStats};
use crate::model::iwc::FastStart;
use crate::model::ProjectedDynamics;
use crate::models::mode_table::{self, FastRun};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The rod's mode table as a model of the harness.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RodModeTable;

/// The one analysis of this table.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ModeTableAnalysis {
    ModeTable,
}

/// The rod's inputs in the mode table.
const INPUTS: &[&str] = &[
    "mu",
    "mu_s",
    "theta0",
    "omega0",
    "u0",
    "damping",
    "gyration_sq",
    "Y0",
    "V0",
];

/// The columns that identify a state of the report (every input but the fast start).
const STATE_COLUMNS: &[&str] = INPUTS.split_at(7).0;

/// Touching (δ = 0) with δ̇ = 0: where the rigid data of `imp` are evaluated.
fn contact_state(imp: &RodImpact) -> ([f64; 3], [f64; 3]) {
    RodImpact {
        start: FastStart::REST,
        ..*imp
    }
    .initial_state()
}

impl Model for RodModeTable {
    const NAME: &'static str = "rod";
    const SOLVER_KEYS: &'static [&'static str] = crate::experiment::model::FAST_TIME_SOLVER_KEYS;
    type Params = RodParams;
    type Sweep = RodSweep;
    type Analysis = ModeTableAnalysis;
    type Config = RodImpact;
    const INPUT_COLUMNS: &'static [&'static str] = INPUTS;
    const MEASURE_COLUMNS: &'static [&'static str] =
        mode_table::measure_columns!("a", "b", "A", "B", "C");

    fn kappa(sweep: &RodSweep) -> &LogGrid {
        &sweep.kappa
    }

    fn validate(spec: &SweepSpec<Self>) -> Result<(), SimError> {
        let grid = RodGrid::new(&spec.params, &spec.sweep);
        grid.validate_sources()?;
        grid.first_invalid(&grid.configurations())?;
        mode_table::window(&spec.solver).map(|_| ())
    }

    fn grid_size(spec: &SweepSpec<Self>) -> u128 {
        RodGrid::new(&spec.params, &spec.sweep).size()
    }

    fn configurations(spec: &SweepSpec<Self>) -> Vec<RodImpact> {
        RodGrid::new(&spec.params, &spec.sweep)
            .configurations()
            .kept
    }

    fn inputs(c: &RodImpact) -> Cells {
        let mut cells = vec![
            ("mu", c.mu.to_string()),
            ("mu_s", c.mu_s.to_string()),
            ("theta0", c.theta0.to_string()),
            ("omega0", c.omega0.to_string()),
            ("u0", c.u0.to_string()),
            ("damping", c.damping.to_string()),
            ("gyration_sq", c.gyration_sq.to_string()),
            ("Y0", c.start.gap.to_string()),
            ("V0", c.start.normal_velocity.to_string()),
        ];
        let body = c.body();
        let (q, qdot) = contact_state(c);
        cells.extend(mode_table::scalar_cells(&ProjectedDynamics::at(
            &body, &q, &qdot,
        )));
        cells.extend(mode_table::derived_cells(
            &body,
            &q,
            &qdot,
            c.friction(),
            c.damping,
            c.start,
        ));
        cells
    }

    fn run(
        spec: &SweepSpec<Self>,
        c: &RodImpact,
        kappa: f64,
        integrator: IntegratorKind,
    ) -> Result<(Cells, SolverStats), String> {
        let window_scaled = mode_table::window(&spec.solver).map_err(|e| e.to_string())?;
        let imp = RodImpact { kappa, ..*c };
        let (q0, qdot0) = imp.initial_state();
        FastRun {
            system: &imp.body(),
            friction: imp.friction(),
            damping: imp.damping,
            start: imp.start,
            window_scaled,
        }
        .run(&q0, &qdot0, kappa, integrator, &spec.solver)
    }

    fn report(spec: &SweepSpec<Self>, rows: &[Row], dir: &Path) -> Result<(), RunError> {
        mode_table::write_report(
            &spec.name,
            "the Painlevé rod with a radius of gyration",
            "Each state is a rod (gyration_sq = r²/l², μ = μ_s, θ0, ω0, u0) in the harness's \
             orientation (C–V's θ is π − θ0, their θ̇ is −ω0; u0 is the same); a, b, A, B, C are \
             its projected scalars. The contact law is λ_N = max(δ/κ + c_d δ̇/√κ, 0). Unlike \
             the planar system's, the rod's projected data move with its configuration (by O(√κ) \
             per unit of s), so its scaled numbers converge at rate √κ instead of being \
             κ-independent.",
            STATE_COLUMNS,
            rows,
            dir,
        )
    }
}
