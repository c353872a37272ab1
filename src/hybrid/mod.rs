//! The hybrid mode machine on any integrator: one smooth vector field per mode, events between
//! them, located on the dense output and refined to the integration tolerance. It knows no
//! physics: a formulation (the compliant contact of [`crate::compliant`], later a rigid one with
//! impact resets) implements [`HybridSystem`], and what a run records is an [`Observer`]'s
//! business.
//!
//! The run is a fixed sequence of stages (`driver`): start a fresh integrator in the current
//! mode, step, scan each step for crossings of the watched event functions ([`locate`]: dense
//! output at [`locate::SCAN_POINTS`] interior points, then Illinois on the bracket), refine the
//! earliest switching event by re-stepping exactly to it, apply the transition (which may reset
//! the state), repeat.

mod driver;
pub mod locate;

pub use driver::run_hybrid;

use crate::error::SimError;
use crate::integrate::SolverStats;
use crate::model::{Dual, Real, ValidityMargin};
use serde::Serialize;
use std::borrow::Cow;
use std::fmt::Debug;

/// Something with a short snake_case name for tables, messages and JSON.
pub trait Named {
    fn name(&self) -> &'static str;
}

/// `name` as a name that lives as long as the program, for names built at run time (the modes
/// of several contacts, the columns of a described system). Each distinct name is stored once.
pub fn interned(name: &str) -> &'static str {
    use std::collections::HashSet;
    use std::sync::{Mutex, OnceLock};
    static NAMES: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut names = NAMES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(&known) = names.get(name) {
        return known;
    }
    let leaked: &'static str = Box::leak(name.to_string().into_boxed_str());
    names.insert(leaked);
    leaked
}

/// Direction in which an event function must cross zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Crossing {
    Rising,
    Falling,
}

impl Crossing {
    /// Whether `g` lies strictly on the side the crossing starts from (below zero for a rising
    /// one).
    pub fn is_start_side(&self, g: f64) -> bool {
        match self {
            Crossing::Rising => g < 0.0,
            Crossing::Falling => g > 0.0,
        }
    }

    /// How far `g` lies on the start side: positive there, zero or negative on or past zero.
    pub fn start_side_distance(&self, g: f64) -> f64 {
        match self {
            Crossing::Rising => -g,
            Crossing::Falling => g,
        }
    }

    /// Whether `g` is on or past zero. A crossing between consecutive values is: strictly on
    /// the start side before, on or past zero after. A phase that starts on an event surface
    /// is therefore not re-triggered; [`locate::ScanBuffers::start_phase`] decides the side
    /// it starts on.
    pub fn reached(&self, g: f64) -> bool {
        match self {
            Crossing::Rising => g >= 0.0,
            Crossing::Falling => g <= 0.0,
        }
    }
}

/// Largest state the stack buffers of the default dual-number derivatives hold; a larger
/// system uses heap buffers (same arithmetic).
const MAX_STACK_STATE: usize = 16;

/// A hybrid dynamical system: everything the mode machine needs to know.
///
/// The state `y` has [`HybridSystem::dim`] components; each mode has a smooth vector field,
/// written once generically over [`Real`] so that its Jacobian–vector products and event rates
/// are exact derivatives (forward-mode dual numbers) of exactly this code.
pub trait HybridSystem: Sync {
    type Mode: Copy + Eq + Debug + Default + Named;
    type Event: Copy + Eq + Debug + Named;

    /// Length of the ODE state.
    fn dim(&self) -> usize;
    /// Per-component absolute tolerances for the run's `atol` (the formulation's scaling of
    /// its fast components).
    fn absolute_tolerances(&self, atol: f64) -> Vec<f64>;
    /// Smallest step an integrator may take before it reports failure.
    fn min_step(&self) -> f64;
    /// The mode a state starts in.
    fn initial_mode(&self, y: &[f64]) -> Self::Mode;
    /// The mode a run from `y` starts in when the integrator resolves component i of the
    /// state to `resolution[i]` (its error weight there, `atol_i + rtol·|y_i|`): a formulation
    /// whose choice of mode reads the sign of a switching quantity takes one within its
    /// resolution of zero as on its surface, and chooses from the dynamics there. Default:
    /// [`HybridSystem::initial_mode`].
    fn start_mode(&self, y: &[f64], resolution: &[f64]) -> Self::Mode {
        let _ = resolution;
        self.initial_mode(y)
    }
    /// The vector field of `mode`: `dy = F_mode(y)`.
    fn field<S: Real>(&self, mode: Self::Mode, y: &[S], dy: &mut [S]);
    /// The events watched in `mode`, in the order they are scanned.
    /// Borrowed when the lists are fixed per mode; owned when they are built from the mode (one
    /// per contact of several), once per phase.
    fn watched(&self, mode: Self::Mode) -> Cow<'_, [(Self::Event, Crossing)]>;
    /// Whether `event` changes the mode (otherwise it only marks an extremum for observers).
    fn is_switching(&self, event: Self::Event) -> bool;
    /// The value of `event`'s function at `y` in `mode`.
    fn event_value<S: Real>(&self, mode: Self::Mode, event: Self::Event, y: &[S]) -> S;
    /// The values of all `events` at `y` in `mode` (`out[j]` for `events[j]`), as
    /// [`HybridSystem::event_value`] gives them; a formulation whose events share work (one
    /// contact state) overrides it to do that work once. The scan calls it at every sample.
    fn event_values(
        &self,
        mode: Self::Mode,
        events: &[(Self::Event, Crossing)],
        y: &[f64],
        out: &mut [f64],
    ) {
        for (o, &(event, _)) in out.iter_mut().zip(events) {
            *o = self.event_value(mode, event, y);
        }
    }
    /// How many leading components of the state the watched functions and the domain margins
    /// read (all by default): the scan interpolates only these at its samples and probes
    /// ([`crate::integrate::Stepper::interpolate_leading`]).
    fn event_state_len(&self) -> usize {
        self.dim()
    }
    /// Whether `mode` can run from `y`: an error (the reason, naming the contacts and the
    /// quantity) ends the run where a phase would start in a mode the formulation cannot
    /// integrate (a singular stick subsystem). Every mode can by default.
    fn check_mode(&self, _mode: Self::Mode, _y: &[f64]) -> Result<(), String> {
        Ok(())
    }
    /// The mode after the switching `event` at `y`; a transition with a reset map (an impact
    /// law) changes `y` in place.
    fn transition(&self, mode: Self::Mode, event: Self::Event, y: &mut [f64]) -> Self::Mode;

    /// The formulation's domain of validity: margins that must stay positive in every mode
    /// (none by default). The driver refuses a start outside and ends the run with
    /// [`SimError::LeftDomain`] at the first crossing of zero, located like an event.
    fn domain(&self) -> &[ValidityMargin] {
        &[]
    }
    /// The value of `domain()[index]` at `y`.
    fn domain_margin(&self, _index: usize, _y: &[f64]) -> f64 {
        f64::INFINITY
    }
    /// All of `domain()`'s margins at `y` (`out[i]` for index i), as
    /// [`HybridSystem::domain_margin`] gives them; the scan calls it at every sample.
    fn domain_margins(&self, y: &[f64], out: &mut [f64]) {
        for (i, o) in out.iter_mut().enumerate() {
            *o = self.domain_margin(i, y);
        }
    }
    /// Slopes of margin `index` into `out` (the state's length): `|m(y) − m(y')| ≤
    /// Σ_j out_j |y_j − y'_j|` for all states, when the formulation knows them; `false`
    /// otherwise (none by default). With them, a step whose dense output cannot bring the
    /// margin to zero skips its samples of it (docs/tolerances.md, trap 1).
    fn domain_margin_slopes(&self, _index: usize, _out: &mut [f64]) -> bool {
        false
    }
    /// Slopes of `event`'s function in `mode` into `out` (the state's length), with the
    /// contract of [`HybridSystem::domain_margin_slopes`]: `|g(y) − g(y')| ≤ Σ_j out_j |y_j −
    /// y'_j|` for all states; `false` when the formulation does not know them (the default).
    /// When every watched function and margin has them, a step whose dense output cannot bring
    /// any of them to zero skips its interior samples (docs/tolerances.md, trap 1).
    fn event_slopes(&self, _mode: Self::Mode, _event: Self::Event, _out: &mut [f64]) -> bool {
        false
    }

    /// Exact Jacobian–vector product `J(y) v` of `mode`'s vector field.
    fn jvp(&self, mode: Self::Mode, y: &[f64], v: &[f64], out: &mut [f64]) {
        with_duals(y, v, |yd| {
            let n = y.len();
            let mut stack = [Dual::cst(0.0); MAX_STACK_STATE];
            let mut heap = Vec::new();
            let dyd = dual_buffer(&mut stack, &mut heap, n);
            self.field(mode, yd, dyd);
            for (o, d) in out.iter_mut().zip(dyd.iter()) {
                *o = d.eps;
            }
        })
    }

    /// dg/dt of `event`'s function along `mode`'s flow `flow` at `y`.
    fn event_rate(&self, mode: Self::Mode, event: Self::Event, y: &[f64], flow: &[f64]) -> f64 {
        with_duals(y, flow, |yd| self.event_value(mode, event, yd).eps)
    }
}

/// A stack buffer of `n` duals when it fits, else a heap one.
fn dual_buffer<'a>(
    stack: &'a mut [Dual; MAX_STACK_STATE],
    heap: &'a mut Vec<Dual>,
    n: usize,
) -> &'a mut [Dual] {
    if n <= MAX_STACK_STATE {
        &mut stack[..n]
    } else {
        heap.resize(n, Dual::cst(0.0));
        &mut heap[..]
    }
}

/// Call `f` with the duals `y + ε v` (on the stack for a state of up to `MAX_STACK_STATE`
/// components): its derivatives along `v`.
pub fn with_duals<R>(y: &[f64], v: &[f64], f: impl FnOnce(&[Dual]) -> R) -> R {
    let n = y.len();
    let mut stack = [Dual::cst(0.0); MAX_STACK_STATE];
    let mut heap = Vec::new();
    let yd = dual_buffer(&mut stack, &mut heap, n);
    for (d, (&a, &b)) in yd.iter_mut().zip(y.iter().zip(v)) {
        *d = Dual::new(a, b);
    }
    f(yd)
}

/// Watches a run without the driver knowing what it records (argmin's observers, rapier's
/// event handler). Every method has a no-op default.
pub trait Observer<H: HybridSystem> {
    /// A state the run passes through: the start and the end of every phase, and the end of
    /// every accepted step (global time `t`).
    fn state(&mut self, _sys: &H, _t: f64, _mode: H::Mode, _y: &[f64]) {}
    /// A non-switching event located inside a step, with the interpolated state there.
    fn extremum(&mut self, _sys: &H, _t: f64, _mode: H::Mode, _event: H::Event, _y: &[f64]) {}
    /// The state at one of [`RunControl::output_times`] (a full-accuracy step, not an
    /// interpolation).
    fn output(&mut self, _sys: &H, _t: f64, _mode: H::Mode, _y: &[f64]) {}
    /// A switching event at `t`, with the state before the transition's reset.
    fn transition(
        &mut self,
        _sys: &H,
        _t: f64,
        _from: H::Mode,
        _event: H::Event,
        _to: H::Mode,
        _y: &[f64],
    ) {
    }
}

impl<H: HybridSystem> Observer<H> for () {}

/// An observer that keeps the states at the output times and the state before every
/// transition (its reset not applied): what a comparison of trajectories needs.
#[derive(Clone, Debug)]
pub struct Recording<M, E> {
    /// (t, mode, y) at each of [`RunControl::output_times`] reached.
    pub outputs: Vec<(f64, M, Vec<f64>)>,
    /// (t, event, y before the reset) at each switching event.
    pub transitions: Vec<(f64, E, Vec<f64>)>,
}

impl<M, E> Default for Recording<M, E> {
    fn default() -> Self {
        Recording {
            outputs: Vec::new(),
            transitions: Vec::new(),
        }
    }
}

impl<H: HybridSystem> Observer<H> for Recording<H::Mode, H::Event> {
    fn output(&mut self, _sys: &H, t: f64, mode: H::Mode, y: &[f64]) {
        self.outputs.push((t, mode, y.to_vec()));
    }
    fn transition(
        &mut self,
        _sys: &H,
        t: f64,
        _from: H::Mode,
        event: H::Event,
        _to: H::Mode,
        y: &[f64],
    ) {
        self.transitions.push((t, event, y.to_vec()));
    }
}

/// When a run ends.
#[derive(Clone, Copy, Debug)]
pub enum Until<M> {
    /// At a fixed time.
    Time(f64),
    /// At the first transition `from → to` with `stop(from, to)`, at the latest at `t_max`
    /// ([`Trace::stopped`] tells which).
    Transition { t_max: f64, stop: fn(M, M) -> bool },
}

/// How to run: the end, the exact output times and the guards.
#[derive(Clone, Debug)]
pub struct RunControl<M> {
    pub until: Until<M>,
    /// Increasing times in (0, end] at which the integrator stops exactly and the observer
    /// sees the state.
    pub output_times: Vec<f64>,
    /// Guard against Zeno behaviour and chattering.
    pub max_events: usize,
    /// Guard against step-size collapse.
    pub max_steps: usize,
    /// Per-component absolute tolerances replacing the system's
    /// ([`HybridSystem::absolute_tolerances`]) for this run.
    pub absolute_tolerances: Option<Vec<f64>>,
}

/// One phase of a run: a mode between two events.
#[derive(Clone, Debug, PartialEq)]
pub struct Phase<M> {
    pub mode: M,
    pub t_start: f64,
    /// Measured in phase-local time: exact even for phases 10⁷× shorter than the time at
    /// which they start.
    pub duration: f64,
    /// The state at the end of the phase (before the transition).
    pub y_end: Vec<f64>,
}

/// A located switching event.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct EventRecord<M, E> {
    pub t: f64,
    pub event: E,
    pub from: M,
    pub to: M,
}

/// What the mode machine did.
#[derive(Clone, Debug)]
pub struct Trace<M, E> {
    pub phases: Vec<Phase<M>>,
    pub events: Vec<EventRecord<M, E>>,
    /// Whether the run ended at an [`Until::Transition`] (false: at its time limit).
    pub stopped: bool,
    pub mode_end: M,
    pub t_end: f64,
    pub y_end: Vec<f64>,
    pub stats: SolverStats,
}

/// Check the tolerances of a run.
pub fn check_tolerances(tolerances: &crate::integrate::Tolerances) -> Result<(), SimError> {
    crate::error::require_rtol("rtol", tolerances.rtol)?;
    crate::error::require_atol("atol", tolerances.atol)?;
    Ok(())
}
