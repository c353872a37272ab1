//! The fast-time studies, written once for every system that offers its fast-time dynamics at
//! a contact state ([`FastContact`]): C–V's mode table ([`mode_table`], `analysis =
//! "mode_table"`), the lift-off/IWC basin ([`basin`], `analysis = "liftoff_iwc_basin"`) and
//! C–V's phase portraits ([`portraits`], `analysis = "phase_portraits"`) and,
//! for a system whose sweep offers the fast starts as axes, the stick/lift-off basin
//! ([`stick_basin`], `analysis = "stick_liftoff_basin"`).
//! A study owns the design: its grid (the system's states × the κ ladder × the integrators, and
//! for the basin × the three lines of the (Y0, V0) plane), its columns, its resume key (the
//! point's position in that grid), the checks of its report (`crate::analysis::{mode_table,
//! basin, portraits, stick_basin}`) and the report's shape (`crate::report::{mode_table, basin,
//! portraits, stick_basin}`). The system owns its
//! parameters, the grid of states its experiment file names, and its physics at a state.
//!
//! The fast time is s = t/√κ, the fast state Y = y/κ, V = v/√κ (docs/champneys_varkonyi.md §3):
//! a run starts from a fast start (Y0, V0) and lasts `[solver] window_scaled` in s ([`window`]).
//! Each study is a [`plan::FastStudy`] generic over the system, and every study runs on the one
//! plan [`plan::FastPlan`]: the file's parsing and checks, the grid of points × κ × integrators,
//! the rows, the resume key and the report's input are written there once.

pub mod basin;
pub mod mode_table;
pub mod plan;
pub mod portraits;
pub mod run;
pub mod stick_basin;

use crate::compliant::coulomb::Coulomb;
use crate::error::SimError;
use crate::experiment::grammar::{Axis, LogGrid, SolverSpec};
use crate::experiment::rows::Cells;
use crate::model::iwc::FastStart;
use crate::model::{dot, PlanarContactSystem, ProjectedDynamics};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::fmt::Debug;

/// A system that offers its fast-time dynamics at a planar single contact: what the fast
/// studies need of it. `N` is the number of generalised coordinates. The implementing type is
/// a unit struct naming the system (`model = NAME`); the studies are `ModeTable<Self, N>`,
/// `Basin<Self, N>`, …, run as `FastPlan<ModeTable<Self, N>, N>`, one line each in the
/// registry.
pub trait FastContact<const N: usize>: Sized + Sync + Clone + Debug + PartialEq + 'static {
    /// `model = "…"` in an experiment file.
    const NAME: &'static str;
    /// What the system is, in a sentence or two: its line in `rigid-limit list` (empty when
    /// another entry of the registry lists the name).
    const ABOUT: &'static str = "";
    /// The system in a report's title (after the experiment's name).
    const TITLE: &'static str;
    /// The system in the basin report's title and figure (default [`Self::TITLE`]).
    const BASIN_TITLE: &'static str = Self::TITLE;
    /// The system in a sentence of a report ("each panel is one state of …").
    const NOUN: &'static str = "the system";
    /// How a state of the mode table is given: a paragraph of its report.
    const DESCRIBE: &'static str;
    /// The input columns that identify a state (every input but the fast start), in the order
    /// of [`Self::state_cells`].
    const STATE_COLUMNS: &'static [&'static str];
    /// Whether C–V's projected scalars a, b, A, B, C are among [`Self::STATE_COLUMNS`] (a
    /// system given by them); otherwise the studies measure them at each state's contact.
    const SCALARS_ARE_INPUTS: bool;
    /// The coordinate whose rate is reported as the angular velocity ω (`omega_out`, the
    /// limit's `limit_omega_out`): a body's rotation angle; none by default.
    const ROTATION: Option<usize> = None;
    /// `[params]` (unknown keys refused); the fast start's keys are `Y0` and `V0`.
    type Params: DeserializeOwned + Serialize + Clone + Debug + PartialEq + Sync;
    /// `[sweep]`: κ and the grid of states (unknown keys refused); the fast starts are `Y0`,
    /// `V0` (axes) or `starts`, and explicit states are `states`.
    type Sweep: DeserializeOwned + Serialize + Clone + Debug + PartialEq + Sync;
    /// One state with its fast start.
    type State: Copy + Debug + PartialEq + Send + Sync;
    /// The mechanics at a state.
    type Body: PlanarContactSystem<N> + Sync;

    /// The κ ladder of `[sweep]`.
    fn kappa(sweep: &Self::Sweep) -> &LogGrid;
    /// The axes `sweep.Y0` and `sweep.V0`, which the stick/lift-off basin scans ([`stick_basin`];
    /// default: none, and that study refuses the file).
    fn start_axes(_sweep: &Self::Sweep) -> [Option<&Axis>; 2] {
        [None, None]
    }
    /// The sweep without the axes of [`Self::start_axes`]: the grid of states at rest whose
    /// starts the stick/lift-off basin scans.
    fn without_start_axes(sweep: &Self::Sweep) -> Self::Sweep {
        sweep.clone()
    }
    /// Check the parameters and the grid of states; errors name the key to fix.
    fn validate(params: &Self::Params, sweep: &Self::Sweep) -> Result<(), SimError>;
    /// Check the states against the solver (a step budget): after [`window`] is checked.
    fn check_solver(
        _params: &Self::Params,
        _sweep: &Self::Sweep,
        _solver: &SolverSpec,
    ) -> Result<(), SimError> {
        Ok(())
    }
    /// The number of states (an upper bound), counted without building them.
    fn grid_size(params: &Self::Params, sweep: &Self::Sweep) -> u128;
    /// Every state of the grid in output order, with the index of its entry in `sweep.states`
    /// (0 without it). Call after [`Self::validate`].
    fn states(params: &Self::Params, sweep: &Self::Sweep) -> Vec<(Self::State, usize)>;
    /// The key that set the state of entry `index` ([`Self::states`]), for an error about the
    /// state as a whole.
    fn state_key(sweep: &Self::Sweep, index: usize) -> String;
    /// The input cells of a state under [`Self::STATE_COLUMNS`].
    fn state_cells(state: &Self::State) -> Cells;
    /// The state's fast start.
    fn start(state: &Self::State) -> FastStart;
    /// The state with another fast start.
    fn with_start(state: &Self::State, start: FastStart) -> Self::State;
    /// The mechanics at the state.
    fn body(state: &Self::State) -> Self::Body;
    /// The state at the contact (gap 0, normal velocity 0, its slip velocity u0): where the
    /// rigid data (C–V's a, b, A, B, C) are evaluated.
    fn contact_state(state: &Self::State) -> ([f64; N], [f64; N]);
    /// The initial state at compliance κ: the contact state displaced to the fast start (gap
    /// κY0, normal velocity √κV0).
    fn initial_state(state: &Self::State, kappa: f64) -> ([f64; N], [f64; N]);
    /// Coulomb's μ (kinetic) and μ_s (static) at the state.
    fn friction(state: &Self::State) -> Coulomb;
    /// The normal dashpot c_d of λ_N = −Y − c_d V.
    fn damping(state: &Self::State) -> f64;
}

/// The columns of C–V's projected scalars ([`scalar_cells`]).
pub(crate) const SCALAR_COLUMNS: &[&str] = &["a", "b", "A", "B", "C"];

/// C–V's projected scalars at the contact of `state`.
pub fn projection<S: FastContact<N>, const N: usize>(
    state: &S::State,
) -> ProjectedDynamics<f64, N> {
    let (q, qdot) = S::contact_state(state);
    ProjectedDynamics::at(&S::body(state), &q, &qdot)
}

/// The gap and the normal velocity v = dᵀq̇ of `body`'s contact at (q, q̇), given as slices of
/// N numbers (a record's states).
pub(crate) fn normal_state<B: PlanarContactSystem<N>, const N: usize>(
    body: &B,
    q: &[f64],
    qdot: &[f64],
) -> (f64, f64) {
    let mut q_n = [0.0; N];
    let mut qdot_n = [0.0; N];
    q_n.copy_from_slice(q);
    qdot_n.copy_from_slice(qdot);
    let k = body.contact_kinematics(&q_n, &qdot_n);
    (k.gap, dot(&k.normal, &qdot_n))
}

/// The checks of a study run at the file's states as they are: the system's grid, the window
/// `[solver] window_scaled`, the system's solver settings (in that order, so that a file with
/// several errors is told the first of them).
pub fn check_states_and_solver<S: FastContact<N>, const N: usize>(
    params: &S::Params,
    sweep: &S::Sweep,
    solver: &SolverSpec,
) -> Result<(), SimError> {
    S::validate(params, sweep)?;
    window(solver)?;
    S::check_solver(params, sweep, solver)
}

/// The file's states, in output order.
pub(crate) fn states_of<S: FastContact<N>, const N: usize>(
    params: &S::Params,
    sweep: &S::Sweep,
) -> Vec<S::State> {
    S::states(params, sweep)
        .into_iter()
        .map(|(state, _)| state)
        .collect()
}

/// The input columns of a run from its state's own fast start ([`start_cells`]).
pub(crate) const START_COLUMNS: &[&str] = &["Y0", "V0"];

/// The input cells of a run from `state`'s own fast start: Y0, V0.
pub(crate) fn start_cells<S: FastContact<N>, const N: usize>(state: &S::State) -> Cells {
    let start = S::start(state);
    vec![
        ("Y0", start.gap.to_string()),
        ("V0", start.normal_velocity.to_string()),
    ]
}

/// The cells of C–V's projected scalars at `pd`.
pub(crate) fn scalar_cells<const N: usize>(pd: &ProjectedDynamics<f64, N>) -> Cells {
    vec![
        ("a", pd.free_tangential_accel.to_string()),
        ("b", pd.free_normal_accel.to_string()),
        ("A", pd.tangential_mobility.to_string()),
        ("B", pd.cross_mobility.to_string()),
        ("C", pd.normal_mobility.to_string()),
    ]
}

/// Whether an experiment file gives a fast start anywhere: `Y0` or `V0` in `[params]`, in
/// `[sweep]` (an axis) or in an entry of `sweep.states`, or `sweep.starts`. Read through the
/// tables' serde form, whose keys are the file's.
pub(crate) fn fast_starts_given<P: Serialize, W: Serialize>(params: &P, sweep: &W) -> bool {
    let given = |v: &serde_json::Value, key: &str| v.get(key).is_some_and(|x| !x.is_null());
    let start_in = |v: &serde_json::Value| given(v, "Y0") || given(v, "V0");
    let (Ok(params), Ok(sweep)) = (serde_json::to_value(params), serde_json::to_value(sweep))
    else {
        return false;
    };
    let in_states = sweep
        .get("states")
        .and_then(|s| s.as_array())
        .is_some_and(|states| states.iter().any(start_in));
    start_in(&params) || start_in(&sweep) || given(&sweep, "starts") || in_states
}

/// The fast starts of a grid: the explicit `starts` list, or every (Y0, V0) of the values given.
pub(crate) fn fast_starts(list: Option<&[FastStart]>, y0: &[f64], v0: &[f64]) -> Vec<FastStart> {
    match list {
        Some(l) => l.to_vec(),
        None => y0
            .iter()
            .flat_map(|&gap| {
                v0.iter().map(move |&normal_velocity| FastStart {
                    gap,
                    normal_velocity,
                })
            })
            .collect(),
    }
}

/// `sweep.starts` excludes Y0 and V0 elsewhere (`y0_v0_elsewhere`), is not empty and finite.
/// `kappa_max` is the largest κ of the ladder: a start is bounded by it
/// ([`require_representable_start`](crate::compliant::normal::require_representable_start)).
pub(crate) fn check_starts(
    list: Option<&[FastStart]>,
    y0_v0_elsewhere: bool,
    kappa_max: f64,
) -> Result<(), SimError> {
    let Some(list) = list else {
        return Ok(());
    };
    if y0_v0_elsewhere {
        return Err(SimError::invalid(
            "sweep.starts",
            "both",
            "Y0/V0 are also given in [params], a state or an axis; keep one of the two",
        ));
    }
    if list.is_empty() {
        return Err(SimError::invalid(
            "sweep.starts",
            "[]",
            "list at least one { Y0 = …, V0 = … }, or leave the key out",
        ));
    }
    for (i, s) in list.iter().enumerate() {
        let start = |key: &str, value: f64| {
            crate::compliant::normal::require_representable_start(
                &format!("sweep.starts[{i}].{key}"),
                value,
                "sweep.kappa.max",
                kappa_max,
            )
        };
        start("Y0", s.gap)?;
        start("V0", s.normal_velocity)?;
    }
    Ok(())
}

/// `[solver] window_scaled`: required, positive, and at most rtol/ε. Times near s are rounded
/// to ε·s in fast units, whose scale is the contact's normal time (1): beyond s = rtol/ε the
/// rounding of the time alone exceeds the accuracy the run asks for, and events there cannot be
/// located (at 1e20, times are 2.2e4 fast units apart).
pub fn window(solver: &SolverSpec) -> Result<f64, SimError> {
    match solver.window_scaled {
        Some(w) => {
            crate::error::require_positive("solver.window_scaled", w)?;
            let largest = solver.rtol / f64::EPSILON;
            if w > largest {
                return Err(SimError::invalid(
                    "solver.window_scaled",
                    crate::error::number_text(w),
                    &format!(
                        "must be <= rtol/ε = {} (solver.rtol = {}): at s = {} double precision rounds times to {} fast units, coarser than the run's tolerance on the contact's time scale (1); shorten the window",
                        crate::error::time_text(largest),
                        crate::error::number_text(solver.rtol),
                        crate::error::number_text(w),
                        crate::error::time_text(w * f64::EPSILON)
                    ),
                ));
            }
            Ok(w)
        }
        None => Err(SimError::invalid(
            "solver.window_scaled",
            "missing",
            "the mode table runs each point to s = t/√κ = window_scaled (the experiment files use 200)",
        )),
    }
}

/// |hλ| of the largest stable step of an explicit Runge–Kutta method on a decaying mode of rate
/// λ: about 3.3 for Tsitouras 5(4) and 6 for DOP853 (Hairer–Wanner I, §IV.2); the larger bounds
/// the steps of either from below.
const EXPLICIT_STABLE_STEP: f64 = 6.0;

/// The fastest rate of a closed contact in fast units: the roots of λ² + C·c_d·λ + C = 0 of the
/// scaled normal law (normal mobility `c`, dashpot `damping`), √C when underdamped and
/// (C c_d + √((C c_d)² − 4C))/2 when overdamped.
pub(crate) fn closed_contact_rate(c: f64, damping: f64) -> f64 {
    let trace = c * damping;
    let discriminant = trace * trace - 4.0 * c;
    if discriminant >= 0.0 {
        0.5 * (trace + discriminant.sqrt())
    } else {
        c.sqrt()
    }
}

/// Checks that each explicit integrator of `solver` can cross a closed contact of fastest rate
/// `rate` (fast units; set by `key` = `value`) within the step limit over `window`: a stable
/// step is at most `EXPLICIT_STABLE_STEP`/rate, so a contact closed for the window takes at
/// least window·rate/6 steps. Beyond the step limit the run would end at the step guard after
/// minutes; refused before running, with the implicit integrators as the remedy.
pub(crate) fn check_explicit_steps(
    solver: &SolverSpec,
    window: f64,
    rate: f64,
    key: &str,
    value: f64,
) -> Result<(), SimError> {
    let limit = solver
        .max_steps
        .unwrap_or(crate::compliant::DEFAULT_MAX_STEPS) as f64;
    let needed = window * rate / EXPLICIT_STABLE_STEP;
    if let Some(explicit) = solver.integrators.iter().find(|i| !i.is_implicit()) {
        if needed > limit {
            return Err(SimError::invalid(
                key,
                crate::error::number_text(value),
                &format!(
                    "with the explicit integrator {} the closed contact's fastest rate {} (fast units, from C and c_d) allows steps of at most 6/rate, about {} steps over solver.window_scaled = {}, more than the step limit {}; use an implicit integrator (radau5, rodas4) or a smaller value",
                    explicit.name(),
                    crate::error::time_text(rate),
                    crate::error::time_text(needed),
                    crate::error::number_text(window),
                    limit
                ),
            ));
        }
    }
    Ok(())
}
