//! C–V's phase portraits of the fast contact dynamics (Fig. phaseportraits, panels A–F;
//! `analysis = "phase_portraits"`) of any [`FastContact`] system: each state (a panel) is run
//! from every fast start of its grid, its trajectory kept in the fast scaled variables (s, Y, V);
//! the report ([`crate::analysis::portraits`], [`crate::report::portraits`]) draws them with the
//! lines the rigid data give — the border λ_N = 0, the switching line λ_N = F* of a stick at
//! rest, the slip saddle's stable manifold — and the stable equilibrium
//! (docs/champneys_varkonyi.md §11).
//!
//! Its rows: the state's inputs and its fast start (Y0, V0); C–V's scalars a, b, A, B, C unless
//! they are inputs; the state's cell of Table 3 and its fast plane ([`FastPlane`]); the run's
//! outcome, mode sequence and sampled trajectory.

use super::plan::{FastPlan, FastStudy};
use super::run::FastRun;
use super::{normal_state, projection, start_cells, states_of, FastContact, START_COLUMNS};
use crate::compliant::record::Sample;
use crate::experiment::grammar::SolverSpec;
use crate::experiment::rows::Cells;
use crate::experiment::runner::RunError;
use crate::experiment::table::Row;
use crate::integrate::{IntegratorKind, SolverStats};
use crate::model::iwc::SlipSaddle;
use crate::model::{PlanarContactSystem, ProjectedDynamics};
use serde::{Deserialize, Serialize};
use std::marker::PhantomData;
use std::path::Path;

/// The phase portraits of system `S` (with `N` coordinates): a [`FastStudy`], run as
/// `FastPlan<Portraits<S, N>, N>`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Portraits<S, const N: usize>(PhantomData<S>);

/// The one analysis of a portraits table.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PortraitAnalysis {
    PhasePortraits,
}

/// The lines and points of a state's fast (Y, V) plane that the rigid data fix (C–V §4;
/// docs/champneys_varkonyi.md (5)–(8), §10).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FastPlane {
    /// F* = |a|/k_σ, σ = sign(a), for a start at rest (u0 = 0, a ≠ 0): a stick holds iff
    /// λ_N > F*.
    pub switching_normal_force: Option<f64>,
    /// The slip saddle (p_σ < 0 with b > 0: at Y* = b/p_σ < 0, inside the contact). σ is the
    /// sign of u0, or of a at rest.
    pub saddle: Option<SlipSaddle>,
    /// The stable equilibrium: the slip's Y = b/p_σ (u0 ≠ 0, p_σ > 0, b < 0), or the stick
    /// focus Y = −λ_N⁰ (u0 = 0 inside the friction cone).
    pub equilibrium_gap: Option<f64>,
}

impl FastPlane {
    pub fn of<const N: usize>(pd: &ProjectedDynamics<f64, N>, mu: f64, damping: f64) -> Self {
        let (a, b) = (pd.free_tangential_accel, pd.free_normal_accel);
        let sigma = if pd.u != 0.0 {
            pd.u.signum()
        } else if a != 0.0 {
            a.signum()
        } else {
            0.0
        };
        let p = (sigma != 0.0).then(|| pd.painleve_parameter(mu, sigma));
        let saddle = p
            .filter(|_| b > 0.0)
            .and_then(|p| SlipSaddle::new(p, b, damping));
        let equilibrium_gap = if pd.u != 0.0 {
            p.filter(|&p| p > 0.0 && b < 0.0).map(|p| b / p)
        } else {
            pd.in_friction_cone(mu).then(|| -pd.stick_forces().1)
        };
        FastPlane {
            switching_normal_force: (pd.u == 0.0 && a != 0.0)
                .then(|| a.abs() / pd.slip_coupling(mu, sigma)),
            saddle,
            equilibrium_gap,
        }
    }
}

/// The distance in (Y, V) between kept trajectory samples.
const SAMPLE_SPACING: f64 = 0.05;
/// Outputs every this much fast time s, besides the accepted steps: free flight is a parabola
/// that the integrator crosses in a few long steps.
const OUTPUT_SPACING: f64 = 0.02;
/// Samples are kept while |Y| and |V| stay below this (lift-off and IWC run away).
const KEEP_BOX: f64 = 15.0;

/// The measured columns after C–V's scalars: the state's cell and fast plane, then the run.
pub const MEASURES: &[&str] = &[
    "cell",
    "switching_normal_force",
    "saddle_gap",
    "stable_rate",
    "equilibrium_gap",
    "outcome",
    "mode_sequence",
    "trajectory_s",
    "trajectory_Y",
    "trajectory_V",
];

/// A sample in the fast variables of compliance `kappa`: (s, Y, V) = (t/√κ, gap/κ, v/√κ), the
/// gap and the normal velocity of `body`'s contact ([`normal_state`]).
fn fast_sample<B: PlanarContactSystem<N>, const N: usize>(
    body: &B,
    x: &Sample,
    kappa: f64,
) -> (f64, f64, f64) {
    let (gap, v) = normal_state(body, &x.q, &x.qdot);
    let sk = kappa.sqrt();
    (x.t / sk, gap / kappa, v / sk)
}

impl<S: FastContact<N>, const N: usize> FastStudy<N> for Portraits<S, N> {
    type System = S;
    type Analysis = PortraitAnalysis;
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
        let pd = projection::<S, N>(state);
        let mu = S::friction(state).mu;
        let plane = FastPlane::of(&pd, mu, S::damping(state));
        let opt = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
        vec![
            (
                "cell",
                pd.table3_cell(mu, pd.u)
                    .map(|c| c.to_string())
                    .unwrap_or_default(),
            ),
            ("switching_normal_force", opt(plane.switching_normal_force)),
            ("saddle_gap", opt(plane.saddle.map(|s| s.equilibrium_gap))),
            ("stable_rate", opt(plane.saddle.map(|s| s.stable_rate))),
            ("equilibrium_gap", opt(plane.equilibrium_gap)),
        ]
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
        let (outcome, r) = FastRun::at::<S, N>(&body, state, window).outcome(
            &q0,
            &qdot0,
            kappa,
            integrator,
            solver,
            Some(OUTPUT_SPACING),
        )?;
        // (s, Y, V) of every accepted step and output, in time order, while inside the keep box.
        let mut samples: Vec<&Sample> = r.trajectory.iter().flatten().chain(&r.outputs).collect();
        samples.sort_by(|x, y| x.t.total_cmp(&y.t));
        let scaled: Vec<(f64, f64, f64)> = samples
            .iter()
            .map(|x| fast_sample(&body, x, kappa))
            .take_while(|&(_, y, v)| y.abs() < KEEP_BOX && v.abs() < KEEP_BOX)
            .collect();
        // A sample is kept when it lies SAMPLE_SPACING from the last one kept in (Y, V): the
        // curves stay smooth where they move and cost nothing where they settle.
        let mut kept: Vec<(f64, f64, f64)> = Vec::new();
        for (i, x) in scaled.iter().enumerate() {
            let far = kept
                .last()
                .is_none_or(|k| (x.1 - k.1).hypot(x.2 - k.2) >= SAMPLE_SPACING);
            if far || i + 1 == scaled.len() {
                kept.push(*x);
            }
        }
        // Seven significant digits: the figure's resolution, a third of the file.
        let column = |f: fn(&(f64, f64, f64)) -> f64| {
            kept.iter()
                .map(|x| format!("{:.6e}", f(x)))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let sequence: Vec<_> = r.modes.iter().map(|m| m.mode.name()).collect();
        let cells = vec![
            ("outcome", outcome.symbol().to_string()),
            ("mode_sequence", sequence.join(">")),
            ("trajectory_s", column(|x| x.0)),
            ("trajectory_Y", column(|x| x.1)),
            ("trajectory_V", column(|x| x.2)),
        ];
        Ok((cells, r.stats))
    }

    fn report(plan: &FastPlan<Self, N>, rows: &[Row], dir: &Path) -> Result<(), RunError> {
        crate::report::portraits::write_report(&plan.name, S::NOUN, S::STATE_COLUMNS, rows, dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::planar::mechanics::ConstantPlanar;

    /// The plane of C–V's panel F (II(iii) at rest in the cone) is the stick basin's.
    #[test]
    fn fast_plane_of_the_stick_basin_state() {
        let sys = ConstantPlanar {
            free_tangential_accel: 4.0,
            free_normal_accel: 1.0,
            tangential_mobility: 1.0,
            cross_mobility: 0.8,
            normal_mobility: 1.0,
        };
        let pd = ProjectedDynamics::at(&sys, &[0.0, 0.0], &[0.0, 0.0]);
        let plane = FastPlane::of(&pd, 2.0, 1.0);
        assert!((plane.switching_normal_force.unwrap() - 4.0 / 1.2).abs() < 1e-14);
        assert!((plane.saddle.unwrap().equilibrium_gap + 1.0 / 0.6).abs() < 1e-14);
        // Stick focus: λ_N⁰ = (aB − Ab)/(AC − B²) = 2.2/0.36.
        assert!((plane.equilibrium_gap.unwrap() + 2.2 / 0.36).abs() < 1e-12);
    }

    /// The rod runs through the same study: its rows carry its measured scalars after its
    /// inputs, and each trajectory starts at its fast start in the rod's own gap and normal
    /// velocity (neither is a coordinate of the rod).
    #[test]
    fn the_rod_runs_through_the_generic_portraits() {
        use crate::experiment::Plan;
        type RodPortraits = Portraits<crate::models::rod::Rod, 3>;
        let text = r#"
name = "rod_portraits"
model = "rod"
analysis = "phase_portraits"
[params]
damping = 1.0
[sweep]
kappa = { min = 1e-9, max = 1e-8, per_decade = 1 }
starts = [{ Y0 = -2, V0 = 0 }, { Y0 = 0, V0 = -4 }]
states = [{ mu = 0.5, theta0 = 2.141592653589793, omega0 = -1.5, u0 = 1.0 }]
[solver]
integrators = ["tsit45"]
rtol = 1e-10
atol = 1e-12
window_scaled = 50
"#;
        let spec = FastPlan::<RodPortraits, 3>::parse(text).unwrap_or_else(|e| panic!("{e}"));
        let columns = FastPlan::<RodPortraits, 3>::columns();
        let after = |c: &str| columns.iter().position(|x| *x == c).unwrap();
        assert!(after("V0") < after("a") && after("C") < after("cell"));
        let rows: Vec<Row> = Plan::points(&spec).map(|p| spec.run_point(&p)).collect();
        assert_eq!(rows.len(), 2 * 2);
        for r in &rows {
            assert_eq!(r.text("status"), "ok", "{:?}", r.fields);
            let first = |c: &str| -> f64 {
                r.text(c)
                    .split_whitespace()
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap()
            };
            assert!((first("trajectory_Y") - r.number("Y0").unwrap()).abs() < 1e-5);
            assert!((first("trajectory_V") - r.number("V0").unwrap()).abs() < 1e-5);
            assert!(!r.text("cell").is_empty() && !r.text("outcome").is_empty());
        }
    }
}
