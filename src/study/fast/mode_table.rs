//! C–V's mode table (`analysis = "mode_table"`) of any [`FastContact`] system: each state of
//! the system's grid is run from its fast start to s = t/√κ = `[solver] window_scaled` at each
//! κ and integrator, and classified by the outcome rule ([`crate::compliant::outcome`]); the
//! report compares the outcome sets over the fast starts with Champneys–Várkonyi's Table 3
//! ([`crate::analysis::mode_table`], [`crate::report::mode_table`];
//! docs/champneys_varkonyi.md).
//!
//! Its rows: the state's inputs and its fast start (Y0, V0); C–V's scalars a, b, A, B, C of the
//! state unless they are inputs; the cells the state fixes before it runs ([`derived_cells`]:
//! its cell of Table 3, p±, k±, the stick forces, the IWC limit); what the run measures
//! ([`FastRun::run`]).

use super::plan::{FastPlan, FastStudy};
use super::run::FastRun;
use super::{projection, start_cells, states_of, FastContact, START_COLUMNS};
use crate::experiment::grammar::SolverSpec;
use crate::experiment::rows::Cells;
use crate::experiment::runner::RunError;
use crate::experiment::table::Row;
use crate::integrate::{IntegratorKind, SolverStats};
use crate::model::consistency::{outcome_set_text, table3_entry, NEGATIVE, POSITIVE};
use crate::model::iwc::IwcLimit;
use serde::{Deserialize, Serialize};
use std::marker::PhantomData;
use std::path::Path;

/// The mode table of system `S` (with `N` coordinates): a [`FastStudy`], run as
/// `FastPlan<ModeTable<S, N>, N>`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModeTable<S, const N: usize>(PhantomData<S>);

/// The one analysis of a mode table.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ModeTableAnalysis {
    ModeTable,
}

/// The measured columns of a mode table after C–V's scalars: first the cells a state fixes
/// before it runs ([`derived_cells`]), then what one run measures ([`FastRun::run`]; scaled:
/// s = t/√κ, Y = y/κ, V = v/√κ).
pub const MEASURES: &[&str] = &[
    "cell",
    "table3",
    "expected",
    "p_plus",
    "p_minus",
    "k_plus",
    "k_minus",
    "stick_normal_force",
    "stick_tangential_force",
    "in_cone",
    "limit_slip_stop_impulse",
    "limit_v_out",
    "limit_omega_out",
    "outcome",
    "mode_sequence",
    "n_events",
    "s_events",
    "s_slip_stop",
    "limit_s_slip_stop",
    "slip_stop_impulse",
    "s_open",
    "V_open",
    "u_out",
    "v_out",
    "omega_out",
    "Y_end",
    "V_end",
    "normal_force_end",
    "energy_balance_error",
];

/// What a state predicts before it runs (the first columns of [`MEASURES`]), at its contact
/// state (gap 0, v = 0, slip velocity u0): its cell of Table 3 and the outcomes expected there,
/// the Painlevé parameters p± and slip couplings k± (C–V (19), (32)), the forces of sticking
/// and whether they lie in the cone, and the κ → 0 limit of an IWC from its fast start.
pub fn derived_cells<S: FastContact<N>, const N: usize>(state: &S::State) -> Cells {
    let sys = S::body(state);
    let (q, qdot) = S::contact_state(state);
    let friction = S::friction(state);
    let damping = S::damping(state);
    let pd = projection::<S, N>(state);
    let mu = friction.mu;
    let (lt, ln) = pd.stick_forces();
    let cell = pd.table3_cell(mu, pd.u);
    let limit = IwcLimit::of(&sys, &q, &qdot, mu, friction.mu_s, damping, S::start(state)).ok();
    let opt = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
    vec![
        ("cell", cell.map(|c| c.to_string()).unwrap_or_default()),
        (
            "table3",
            cell.map(table3_entry).unwrap_or_default().to_string(),
        ),
        ("expected", outcome_set_text(&pd.table3_outcomes(mu, pd.u))),
        ("p_plus", pd.painleve_parameter(mu, POSITIVE).to_string()),
        ("p_minus", pd.painleve_parameter(mu, NEGATIVE).to_string()),
        ("k_plus", pd.slip_coupling(mu, POSITIVE).to_string()),
        ("k_minus", pd.slip_coupling(mu, NEGATIVE).to_string()),
        ("stick_normal_force", ln.to_string()),
        ("stick_tangential_force", lt.to_string()),
        ("in_cone", pd.in_friction_cone(mu).to_string()),
        (
            "limit_slip_stop_impulse",
            opt(limit.map(|l| l.slide_impulse)),
        ),
        ("limit_v_out", opt(limit.map(|l| l.v_out))),
        (
            "limit_omega_out",
            opt(S::ROTATION.and_then(|i| limit.map(|l| l.qdot_out[i]))),
        ),
    ]
}

impl<S: FastContact<N>, const N: usize> FastStudy<N> for ModeTable<S, N> {
    type System = S;
    type Analysis = ModeTableAnalysis;
    type Point = S::State;
    const INPUTS: &'static [&'static str] = START_COLUMNS;
    const MEASURES: &'static [&'static str] = MEASURES;

    fn points(plan: &FastPlan<Self, N>) -> Vec<S::State> {
        states_of::<S, N>(&plan.params, &plan.sweep)
    }

    fn state(state: &S::State) -> &S::State {
        state
    }

    fn inputs(state: &S::State) -> Cells {
        start_cells::<S, N>(state)
    }

    fn derived(state: &S::State) -> Cells {
        derived_cells::<S, N>(state)
    }

    fn run(
        solver: &SolverSpec,
        state: &S::State,
        window: f64,
        kappa: f64,
        integrator: IntegratorKind,
    ) -> Result<(Cells, SolverStats), String> {
        let (q0, qdot0) = S::initial_state(state, kappa);
        let body = S::body(state);
        FastRun::at::<S, N>(&body, state, window).run(&q0, &qdot0, kappa, integrator, solver)
    }

    fn report(plan: &FastPlan<Self, N>, rows: &[Row], dir: &Path) -> Result<(), RunError> {
        crate::report::mode_table::write_report(
            &plan.name,
            S::TITLE,
            S::DESCRIBE,
            S::STATE_COLUMNS,
            rows,
            dir,
        )
    }
}
