//! The compliant contact formulation: a penalty normal law of stiffness 1/κ ([`normal`]) and
//! exact Coulomb friction ([`coulomb`]) on a planar single-contact system, as a
//! [`HybridSystem`] that the generic mode machine of [`crate::hybrid`] runs.
//!
//! ODE state (length 2N + 4): `[q (N), q̇ (N), ∫F_n dt, ∫F_τ dt, ∫F_τ u dt, ∫−c_d δ̇²/√κ dt]`,
//! then τ and the load's work for a non-autonomous system, then the work of the dissipative
//! body forces for a dissipative one. The friction coefficient is constant, or the system's
//! μ(q) ([`PlanarContactSystem::friction_coefficient`]) in the slip forces, the stick limits and
//! the choice of mode at zero slip.
//! The four quadratures ride along with the integrator so that impulses and the energy account
//! are integrated to the same tolerance as the motion.
//!
//! In a contact mode the normal force is the smooth closed-contact law `δ/κ + c_d δ̇/√κ` (no
//! `max(0, ·)`): the contact-opening event ends the mode when it reaches 0. The transition table
//! (Zhao–Liu eqs. (6), (50), (52); docs/model.md):
//!
//! | mode        | event            | g(y), crossing                   | next mode            |
//! |-------------|------------------|----------------------------------|----------------------|
//! | slide-left  | slip stops       | u, rising                        | stick or slip by the friction cone |
//! | slide-right | slip stops       | u, falling                       | stick or slip by the friction cone |
//! | stick       | stick breaks →   | F_τ + μ_s F_n, falling           | slide-right          |
//! | stick       | stick breaks ←   | μ_s F_n − F_τ, falling           | slide-left           |
//! | contact     | contact opens    | κF_n = δ + c_d√κ δ̇, falling      | free                 |
//! | free        | contact closes   | min(δ, δ + c_d√κ δ̇), rising      | by the sign of u     |
//!
//! Two observer events (peak normal force: dF_n/dt falling; maximum penetration: δ̇ falling)
//! record extrema without switching. In every mode the mechanical system's validity margins
//! ([`Mechanics::validity_margins`](crate::model::Mechanics::validity_margins)) are the formulation's domain: the first to fall
//! to zero ends the run with an error.

pub mod cone;
pub mod coulomb;
pub mod multi;
pub mod normal;
pub mod outcome;
pub mod record;
mod simulate;
pub mod spatial;
pub mod spatial_measured;
pub mod spatial_multi;

pub use simulate::{
    simulate, EndCondition, SimulationOptions, DEFAULT_MAX_EVENTS, DEFAULT_MAX_STEPS,
};

use crate::hybrid::{Crossing, HybridSystem, Named};
use crate::model::{
    dot, kinetic_energy, Dual, PlanarContactSystem, ProjectedDynamics, Real, ValidityMargin,
};
use coulomb::{Coulomb, Mode};
use normal::NormalCompliance;
use serde::Serialize;

/// Events of the mode machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Event {
    ContactOpens,
    SlipStops,
    StickBreaksRight,
    StickBreaksLeft,
    ContactCloses,
    PeakNormalForce,
    MaxPenetration,
}

impl Event {
    /// Whether the event changes the mode (otherwise it only records an extremum).
    pub fn is_switching(&self) -> bool {
        !matches!(self, Event::PeakNormalForce | Event::MaxPenetration)
    }

    pub fn name(&self) -> &'static str {
        match self {
            Event::ContactOpens => "contact_opens",
            Event::SlipStops => "slip_stops",
            Event::StickBreaksRight => "stick_breaks_right",
            Event::StickBreaksLeft => "stick_breaks_left",
            Event::ContactCloses => "contact_closes",
            Event::PeakNormalForce => "peak_normal_force",
            Event::MaxPenetration => "max_penetration",
        }
    }
}

impl Named for Event {
    fn name(&self) -> &'static str {
        Event::name(self)
    }
}

/// The events watched in each mode.
pub fn watched_events(mode: Mode) -> &'static [(Event, Crossing)] {
    use Crossing::*;
    use Event::*;
    match mode {
        Mode::SlideLeft => &[
            (ContactOpens, Falling),
            (SlipStops, Rising),
            (PeakNormalForce, Falling),
            (MaxPenetration, Falling),
        ],
        Mode::SlideRight => &[
            (ContactOpens, Falling),
            (SlipStops, Falling),
            (PeakNormalForce, Falling),
            (MaxPenetration, Falling),
        ],
        Mode::Stick => &[
            (ContactOpens, Falling),
            (StickBreaksRight, Falling),
            (StickBreaksLeft, Falling),
            (PeakNormalForce, Falling),
            (MaxPenetration, Falling),
        ],
        Mode::Free => &[(ContactCloses, Rising)],
    }
}

/// Contact forces and contact-point kinematics at one state in one mode.
#[derive(Clone, Copy, Debug)]
pub struct ContactState<S, const N: usize> {
    pub projected: ProjectedDynamics<S, N>,
    /// δ = −gap.
    pub penetration: S,
    /// δ̇ = −v.
    pub penetration_rate: S,
    pub normal_force: S,
    pub tangential_force: S,
}

/// How the contact point moves at one state: the three numbers the kinematic event functions
/// (opening, closing, slip stops, maximum penetration, the linear spring's peak force) read.
#[derive(Clone, Copy, Debug)]
struct ContactPointMotion<S> {
    /// δ = −gap.
    penetration: S,
    /// δ̇ = −dᵀq̇.
    penetration_rate: S,
    /// u = cᵀq̇.
    slip_velocity: S,
}

/// One state's inputs of the event functions: the global time and (q, q̇), which are all
/// the event functions read of the state, and the contact point's motion and the contact
/// state, each computed on first use and kept: the events of a mode share one of each.
///
/// Everything here is inlined into [`ContactProblem::event_value`],
/// [`HybridSystem::event_values`] and [`HybridSystem::event_rate`], so that the inputs stay in
/// registers and a state's numbers are computed once, not returned through memory per event
/// (docs/performance.md, "The right-hand side and the event functions").
struct EventInputs<S, const N: usize> {
    /// Global time τ (0 for an autonomous system: [`ContactProblem::time`]).
    t: S,
    q: [S; N],
    qdot: [S; N],
    point: Option<ContactPointMotion<S>>,
    state: Option<ContactState<S, N>>,
}

impl<S: Real, const N: usize> EventInputs<S, N> {
    #[inline(always)]
    fn new(t: S, q: [S; N], qdot: [S; N]) -> Self {
        EventInputs {
            t,
            q,
            qdot,
            point: None,
            state: None,
        }
    }

    #[inline(always)]
    fn point<Sys: PlanarContactSystem<N>>(&mut self, system: &Sys) -> ContactPointMotion<S> {
        let (q, qdot) = (&self.q, &self.qdot);
        *self.point.get_or_insert_with(|| {
            let k = system.contact_kinematics(q, qdot);
            ContactPointMotion {
                penetration: -k.gap,
                penetration_rate: -dot(&k.normal, qdot),
                slip_velocity: dot(&k.tangential, qdot),
            }
        })
    }

    /// The contact state of `mode` (one state is asked in one mode only). Computed out of
    /// line: most events of most states read the kinematics alone, and inlined here the
    /// projection swells every event function's code (event_values cost 1.5× as much when
    /// the compiler chose to inline it; docs/performance.md).
    #[inline(always)]
    fn contact_state<Sys: PlanarContactSystem<N>>(
        &mut self,
        problem: &ContactProblem<'_, Sys, N>,
        mode: Mode,
    ) -> &ContactState<S, N> {
        #[inline(never)]
        fn compute<S: Real, Sys: PlanarContactSystem<N>, const N: usize>(
            problem: &ContactProblem<'_, Sys, N>,
            mode: Mode,
            t: S,
            q: &[S; N],
            qdot: &[S; N],
        ) -> ContactState<S, N> {
            problem.contact_state_at(mode, t, q, qdot)
        }
        let (t, q, qdot) = (self.t, &self.q, &self.qdot);
        self.state
            .get_or_insert_with(|| compute(problem, mode, t, q, qdot))
    }
}

/// A mechanical system with a compliant frictional contact: everything the mode machine needs.
pub struct ContactProblem<'a, Sys, const N: usize> {
    pub system: &'a Sys,
    pub compliance: NormalCompliance,
    /// The constant Coulomb coefficients, read only when the system supplies no μ(q)
    /// ([`PlanarContactSystem::friction_coefficient`]; then pass [`Coulomb::FROM_MECHANICS`]).
    pub friction: Coulomb,
}

/// Offsets of the quadratures in the ODE state.
pub const fn impulse_normal_index(n: usize) -> usize {
    2 * n
}
pub const fn impulse_tangential_index(n: usize) -> usize {
    2 * n + 1
}
pub const fn friction_work_index(n: usize) -> usize {
    2 * n + 2
}
pub const fn damping_work_index(n: usize) -> usize {
    2 * n + 3
}
/// Non-autonomous systems only: global time τ (τ' = 1; phases restart their own clock at 0).
pub const fn time_index(n: usize) -> usize {
    2 * n + 4
}
/// Non-autonomous systems only: the work of the external load, ∫ F(τ)·q̇ dt.
pub const fn load_work_index(n: usize) -> usize {
    2 * n + 5
}

impl<'a, Sys: PlanarContactSystem<N>, const N: usize> ContactProblem<'a, Sys, N> {
    /// Length of the ODE state: `2N + 4`, plus τ and the load's work for a non-autonomous
    /// system, plus the dissipated work of a dissipative one (last).
    pub fn state_len(&self) -> usize {
        let base = if self.system.is_autonomous() {
            2 * N + 4
        } else {
            2 * N + 6
        };
        base + usize::from(self.system.is_dissipative())
    }

    /// Dissipative systems only: the index of ∫ (power of the dissipative body forces) dt.
    pub fn viscous_work_index(&self) -> Option<usize> {
        self.system.is_dissipative().then(|| self.state_len() - 1)
    }

    /// The Coulomb coefficients at configuration `q`: the system's μ(q) (static = kinetic)
    /// when it supplies one, else the constant ones.
    pub fn friction_at(&self, q: &[f64; N]) -> Coulomb {
        self.system
            .friction_coefficient(q)
            .map_or(self.friction, Coulomb::equal)
    }

    /// The kinetic friction force of a slip `mode` at `q`.
    fn slip_force<S: Real>(&self, mode: Mode, q: &[S; N], normal_force: S) -> S {
        match self.system.friction_coefficient(q) {
            None => self.friction.slip_force(mode, normal_force),
            Some(mu) => (mu * normal_force).scale(-f64::from(mode.slip_sign())),
        }
    }

    /// μ_s F_n at `q`: the largest tangential force stick can hold.
    fn static_limit<S: Real>(&self, q: &[S; N], normal_force: S) -> S {
        match self.system.friction_coefficient(q) {
            None => normal_force.scale(self.friction.mu_s),
            Some(mu) => mu * normal_force,
        }
    }

    /// Global time at `y` (0 for an autonomous system, which never needs it).
    fn time<S: Real>(&self, y: &[S]) -> S {
        if self.system.is_autonomous() {
            S::zero()
        } else {
            y[time_index(N)]
        }
    }

    fn split<S: Real>(y: &[S]) -> ([S; N], [S; N]) {
        let mut q = [S::zero(); N];
        let mut qdot = [S::zero(); N];
        q.copy_from_slice(&y[..N]);
        qdot.copy_from_slice(&y[N..2 * N]);
        (q, qdot)
    }

    /// Absolute tolerances for a run on the fast time scale s = t/√κ: every contact-point
    /// coordinate (normal and tangential) in units of κ and its rate in units of √κ, so that the
    /// scaled state (Y, V, and U = u/√κ of a start at u = 0) is controlled to `atol` (the
    /// HybridSystem's tolerances leave the tangential ones at `atol`, right for u = O(1)).
    pub fn fast_absolute_tolerances(&self, atol: f64) -> Vec<f64> {
        self.contact_scaled_tolerances(atol, true)
    }

    /// `atol` for every component, times κ for the coordinates along the contact normal (and
    /// the tangent, if `tangential`) and √κ for their rates.
    fn contact_scaled_tolerances(&self, atol: f64, tangential: bool) -> Vec<f64> {
        self.compliance
            .contact_scaled_tolerances::<N>(atol, self.state_len(), |i| {
                let mut e = [0.0; N];
                e[i] = 1.0;
                let k = self.system.contact_kinematics(&e, &[0.0; N]);
                k.normal[i] != 0.0 || (tangential && k.tangential[i] != 0.0)
            })
    }

    /// Forces of `mode` at state `y`.
    #[inline(always)]
    pub fn contact_state<S: Real>(&self, mode: Mode, y: &[S]) -> ContactState<S, N> {
        let (q, qdot) = Self::split(y);
        self.contact_state_at(mode, self.time(y), &q, &qdot)
    }

    /// Forces of `mode` at global time `t` (read by a non-autonomous system only) and (q, q̇).
    ///
    /// Inlined into its callers: a call returns the whole state (the projection's 17 numbers)
    /// through memory, where the vector field reads 9 of them; inlined, the rest are never
    /// stored (docs/performance.md, "The right-hand side and the event functions").
    #[inline(always)]
    fn contact_state_at<S: Real>(
        &self,
        mode: Mode,
        t: S,
        q: &[S; N],
        qdot: &[S; N],
    ) -> ContactState<S, N> {
        let projected = ProjectedDynamics::at_time(self.system, t, q, qdot);
        let penetration = -projected.gap;
        let penetration_rate = -projected.v;
        let (normal_force, tangential_force) = match mode {
            Mode::Free => (S::zero(), S::zero()),
            Mode::Stick => {
                let fn_ = self
                    .compliance
                    .closed_contact_force(penetration, penetration_rate);
                (fn_, projected.stick_tangential_force(fn_))
            }
            Mode::SlideLeft | Mode::SlideRight => {
                let fn_ = self
                    .compliance
                    .closed_contact_force(penetration, penetration_rate);
                (fn_, self.slip_force(mode, q, fn_))
            }
        };
        ContactState {
            projected,
            penetration,
            penetration_rate,
            normal_force,
            tangential_force,
        }
    }

    /// The vector field of `mode`: `dy = F_mode(y)`.
    pub fn vector_field<S: Real>(&self, mode: Mode, y: &[S], dy: &mut [S]) {
        // One bounds check for all the indexing below: the length is a constant of the system.
        let len = self.state_len();
        let (y, dy) = (&y[..len], &mut dy[..len]);
        let cs = self.contact_state(mode, y);
        let accel = cs
            .projected
            .generalized_accel(cs.normal_force, cs.tangential_force);
        dy[..N].copy_from_slice(&y[N..2 * N]);
        dy[N..2 * N].copy_from_slice(&accel);
        dy[impulse_normal_index(N)] = cs.normal_force;
        dy[impulse_tangential_index(N)] = cs.tangential_force;
        dy[friction_work_index(N)] = cs.tangential_force * cs.projected.u;
        dy[damping_work_index(N)] = if mode.is_contact() {
            self.compliance
                .damping_power(cs.penetration, cs.penetration_rate)
        } else {
            S::zero()
        };
        if !self.system.is_autonomous() {
            let (_, qdot) = Self::split(y);
            dy[time_index(N)] = S::cst(1.0);
            dy[load_work_index(N)] = dot(&self.system.external_load(self.time(y)), &qdot);
        }
        if let Some(i) = self.viscous_work_index() {
            let (q, qdot) = Self::split(y);
            dy[i] = self.system.dissipation_power(&q, &qdot);
        }
    }

    /// The value of an event function at state `y` in `mode`.
    pub fn event_value<S: Real>(&self, mode: Mode, event: Event, y: &[S]) -> S {
        self.event_value_at(mode, event, &mut self.event_inputs(y))
    }

    /// The inputs of the event functions at state `y`.
    #[inline(always)]
    fn event_inputs<S: Real>(&self, y: &[S]) -> EventInputs<S, N> {
        let (q, qdot) = Self::split(y);
        EventInputs::new(self.time(y), q, qdot)
    }

    /// The value of `event`'s function from the inputs at one state: the contact kinematics
    /// and the contact state are computed at most once per state however many events ask.
    #[inline(always)]
    fn event_value_at<S: Real>(&self, mode: Mode, event: Event, at: &mut EventInputs<S, N>) -> S {
        match event {
            Event::MaxPenetration => at.point(self.system).penetration_rate,
            Event::ContactOpens => {
                let p = at.point(self.system);
                self.compliance
                    .release_function(p.penetration, p.penetration_rate)
            }
            Event::ContactCloses => {
                let p = at.point(self.system);
                self.compliance
                    .closing_function(p.penetration, p.penetration_rate)
            }
            Event::SlipStops => at.point(self.system).slip_velocity,
            Event::StickBreaksRight => {
                let cs = at.contact_state(self, mode);
                let (normal, tangential) = (cs.normal_force, cs.tangential_force);
                tangential + self.static_limit(&at.q, normal)
            }
            Event::StickBreaksLeft => {
                let cs = at.contact_state(self, mode);
                let (normal, tangential) = (cs.normal_force, cs.tangential_force);
                self.static_limit(&at.q, normal) - tangential
            }
            Event::PeakNormalForce if !self.compliance.law.is_spring_dashpot() => {
                let cs = at.contact_state(self, mode);
                let accel = cs
                    .projected
                    .normal_accel(cs.normal_force, cs.tangential_force);
                // δ̈ = −v̇.
                self.compliance.hunt_crossley_force_rate(
                    cs.penetration,
                    cs.penetration_rate,
                    -accel,
                )
            }
            Event::PeakNormalForce if self.compliance.damping == 0.0 => {
                // The linear spring: κ dF_n/dt = δ̇, from the kinematics alone (the general
                // case below gives the same value, its δ̈ term scaled by 0: no projection).
                at.point(self.system).penetration_rate
            }
            Event::PeakNormalForce => {
                // κ dF_n/dt = δ̇ + c_d √κ δ̈, with δ̈ = −v̇.
                let cs = at.contact_state(self, mode);
                let accel = cs
                    .projected
                    .normal_accel(cs.normal_force, cs.tangential_force);
                cs.penetration_rate
                    - accel.scale(self.compliance.damping * self.compliance.kappa.sqrt())
            }
        }
    }

    /// The normal force of `mode` and the penetration at `y` (the fields `normal_force` and
    /// `penetration` of [`ContactProblem::contact_state`]) from the contact kinematics alone:
    /// the normal law needs no projection.
    pub fn normal_force_and_penetration(&self, mode: Mode, y: &[f64]) -> (f64, f64) {
        let (q, qdot) = Self::split(y);
        let k = self.system.contact_kinematics(&q, &qdot);
        let penetration = -k.gap;
        let normal_force = if mode.is_contact() {
            self.compliance
                .closed_contact_force(penetration, -dot(&k.normal, &qdot))
        } else {
            0.0
        };
        (normal_force, penetration)
    }

    /// Mechanical energy T + V_gravity + V_spring at `y` (spring only in a contact mode).
    pub fn mechanical_energy(&self, mode: Mode, y: &[f64]) -> (f64, f64, f64) {
        let (q, qdot) = Self::split(y);
        let kinetic = kinetic_energy(self.system, &q, &qdot);
        let gravity = self.system.potential_energy(&q);
        let spring = if mode.is_contact() {
            let gap = self.system.contact_kinematics(&q, &qdot).gap;
            self.compliance.elastic_energy(-gap)
        } else {
            0.0
        };
        (kinetic, gravity, spring)
    }

    /// The mode a state starts in: contact when the contact is closed (δ > 0 and F_n > 0), or
    /// when it is exactly touching (δ = 0) and moving or accelerating into the surface; in
    /// contact, slip in the direction of u, or the friction cone's choice when u is exactly 0
    /// ([`ContactProblem::start_mode`] when the integrator's resolution is known).
    pub fn initial_mode(&self, y: &[f64]) -> Mode {
        self.initial_mode_within(y, 0.0)
    }

    /// What the integrator resolves of the slip velocity u = cᵀq̇ at `y`, when it resolves
    /// component i of the state to `resolution[i]`: `Σ |c_i| resolution[N + i]`.
    fn slip_resolution(&self, y: &[f64], resolution: &[f64]) -> f64 {
        let (q, qdot) = Self::split(y);
        let c = self.system.contact_kinematics(&q, &qdot).tangential;
        c.iter()
            .zip(&resolution[N..2 * N])
            .map(|(c, r)| c.abs() * r)
            .sum()
    }

    /// [`ContactProblem::initial_mode`] with a slip velocity within `u_resolution` of zero
    /// taken as zero.
    fn initial_mode_within(&self, y: &[f64], u_resolution: f64) -> Mode {
        let cs = self.contact_state(Mode::Stick, y);
        let (pen, rate) = (cs.penetration, cs.penetration_rate);
        let closed = if pen > 0.0 {
            cs.normal_force > 0.0
        } else if pen == 0.0 {
            rate > 0.0 || (rate == 0.0 && -cs.projected.free_normal_accel > 0.0)
        } else {
            false
        };
        if !closed {
            return Mode::Free;
        }
        self.friction_at(&Self::split(y).0).contact_mode(
            cs.projected.u,
            u_resolution,
            cs.normal_force,
            cs.tangential_force,
        )
    }

    /// The mode after `event` at state `y`.
    pub fn next_mode(&self, event: Event, y: &[f64]) -> Mode {
        // A friction event located where the contact force has also reached zero (the stick
        // force −(a + Bλ_N)/A with a = 0 meets the cone exactly at λ_N = 0, together with the
        // opening): the contact opens. Switching to slip there would start a contact mode with
        // F_n ≤ 0, which the phase-start rule (hybrid::locate) ends at once only if F_n is
        // within the tolerance of zero; deciding here records one opening in every case.
        let friction_event = matches!(
            event,
            Event::StickBreaksRight | Event::StickBreaksLeft | Event::SlipStops
        );
        if friction_event && self.event_value(Mode::Stick, Event::ContactOpens, y) <= 0.0 {
            return Mode::Free;
        }
        match event {
            Event::ContactOpens => Mode::Free,
            Event::StickBreaksRight => Mode::SlideRight,
            Event::StickBreaksLeft => Mode::SlideLeft,
            Event::SlipStops => {
                let cs = self.contact_state(Mode::Stick, y);
                self.friction_at(&Self::split(y).0)
                    .mode_at_zero_slip(cs.normal_force, cs.tangential_force)
            }
            Event::ContactCloses => {
                let cs = self.contact_state(Mode::Stick, y);
                self.friction_at(&Self::split(y).0).contact_mode(
                    cs.projected.u,
                    0.0,
                    cs.normal_force,
                    cs.tangential_force,
                )
            }
            Event::PeakNormalForce | Event::MaxPenetration => {
                unreachable!("observer events do not switch modes")
            }
        }
    }
}

impl<Sys: PlanarContactSystem<N>, const N: usize> HybridSystem for ContactProblem<'_, Sys, N> {
    type Mode = Mode;
    type Event = Event;

    fn dim(&self) -> usize {
        self.state_len()
    }

    /// An impact starts from δ = δ̇ = 0 and grows from a seed δ ~ κ, δ̇ ~ √κ (Zhao–Liu eq. (23):
    /// δ = (|B|κ/|A|)(cosh(√(|A|/κ) t) − 1)); in slip the growth is exponential, so an absolute
    /// error on the seed becomes a time shift of the whole impact. The gap's absolute tolerance
    /// is therefore in units of κ and the normal velocity's in units of √κ.
    fn absolute_tolerances(&self, atol: f64) -> Vec<f64> {
        self.contact_scaled_tolerances(atol, false)
    }

    /// Far below any phase we must resolve (reverse slip lasts ~0.16 κ), far above rounding.
    fn min_step(&self) -> f64 {
        1e-8 * self.compliance.kappa.min(1.0)
    }

    fn initial_mode(&self, y: &[f64]) -> Mode {
        ContactProblem::initial_mode(self, y)
    }

    /// A start on the stick/slip surface (u0 = 0, or ±1e-300, below what the integrator
    /// resolves of u) starts in the mode the friction cone chooses at u = 0, not in the slip
    /// its rounding sign would pick: the slip-stops function of that slip would start on its
    /// zero, and whether the phase-start rule ended it at once, or let a slip of 1e-300 run,
    /// depended on the integrator (bdf, esdirk34, radau5 and rodas4 reported a separation at
    /// t = 0 with zero impulse; docs/tolerances.md, "A start on the stick/slip surface").
    fn start_mode(&self, y: &[f64], resolution: &[f64]) -> Mode {
        self.initial_mode_within(y, self.slip_resolution(y, resolution))
    }

    fn field<S: Real>(&self, mode: Mode, y: &[S], dy: &mut [S]) {
        self.vector_field(mode, y, dy)
    }

    fn watched(&self, mode: Mode) -> std::borrow::Cow<'_, [(Event, Crossing)]> {
        std::borrow::Cow::Borrowed(watched_events(mode))
    }

    fn is_switching(&self, event: Event) -> bool {
        event.is_switching()
    }

    fn event_value<S: Real>(&self, mode: Mode, event: Event, y: &[S]) -> S {
        ContactProblem::event_value(self, mode, event, y)
    }

    /// One contact state (one projection: the rod's sin, cos and M⁻¹) for all of `mode`'s
    /// events at `y`, the same arithmetic as one [`ContactProblem::event_value`] each.
    fn event_values(&self, mode: Mode, events: &[(Event, Crossing)], y: &[f64], out: &mut [f64]) {
        let mut at = self.event_inputs(y);
        // Every mode watches a function of the contact point (its opening or closing): its
        // motion once, before the loop, so that no event tests whether it is there.
        at.point(self.system);
        for (o, &(event, _)) in out.iter_mut().zip(events) {
            *o = self.event_value_at(mode, event, &mut at);
        }
    }

    /// dg/dt along `flow`, as the default: `event`'s function in dual numbers `y + ε flow`,
    /// built here for the components the event functions read (q, q̇ and, for a
    /// non-autonomous system, τ) rather than for the whole state. The same arithmetic on the
    /// same duals, so the same number bit for bit (tested below).
    fn event_rate(&self, mode: Mode, event: Event, y: &[f64], flow: &[f64]) -> f64 {
        let dual = |i: usize| Dual::new(y[i], flow[i]);
        let t = if self.system.is_autonomous() {
            Dual::zero()
        } else {
            dual(time_index(N))
        };
        let q = std::array::from_fn(dual);
        let qdot = std::array::from_fn(|i| dual(N + i));
        self.event_value_at(mode, event, &mut EventInputs::new(t, q, qdot))
            .eps
    }

    fn transition(&self, _mode: Mode, event: Event, y: &mut [f64]) -> Mode {
        self.next_mode(event, y)
    }

    /// q and q̇, then τ for a non-autonomous system (`event_inputs`, the margins'
    /// `validity_margin`): the impulses and works after them are read by neither.
    fn event_state_len(&self) -> usize {
        if self.system.is_autonomous() {
            2 * N
        } else {
            time_index(N) + 1
        }
    }

    /// The mechanical system's domain, watched in every mode.
    fn domain(&self) -> &[ValidityMargin] {
        self.system.validity_margins()
    }

    fn domain_margin(&self, index: usize, y: &[f64]) -> f64 {
        let (q, qdot) = Self::split(y);
        self.system.validity_margin(index, &q, &qdot)
    }

    fn domain_margins(&self, y: &[f64], out: &mut [f64]) {
        let (q, qdot) = Self::split(y);
        for (index, o) in out.iter_mut().enumerate() {
            *o = self.system.validity_margin(index, &q, &qdot);
        }
    }

    /// With constant contact directions (c, d), δ = −dᵀq + const, δ̇ = −dᵀq̇ and u = cᵀq̇: the
    /// kinematic event functions are linear in (q, q̇), and so are the release function
    /// κF_n = δ + c_d√κ δ̇ (docs/model.md) and the closing function min(release, δ), whose
    /// differences are bounded by the release function's slopes (those of δ are no larger).
    /// The force-based functions (stick breaks, the damped peak force) read the projection
    /// and have none.
    fn event_slopes(&self, _mode: Mode, event: Event, out: &mut [f64]) -> bool {
        let Some((c, d)) = self.system.constant_contact_directions() else {
            return false;
        };
        // Hunt–Crossley's release and closing functions are not linear in (δ, δ̇).
        if !self.compliance.law.is_spring_dashpot()
            && matches!(
                event,
                Event::ContactOpens | Event::ContactCloses | Event::PeakNormalForce
            )
        {
            return false;
        }
        // Each function is (weight on q)·δ-part + (weight on q̇)·rate-part of one direction:
        // slopes |w_q·dir_i| on q and |w_q̇·dir_i| on q̇.
        let dashpot = self.compliance.damping * self.compliance.kappa.sqrt();
        let (direction, on_q, on_qdot) = match event {
            Event::MaxPenetration => (d, 0.0, 1.0),
            Event::PeakNormalForce if self.compliance.damping == 0.0 => (d, 0.0, 1.0),
            Event::ContactOpens | Event::ContactCloses => (d, 1.0, dashpot),
            Event::SlipStops => (c, 0.0, 1.0),
            Event::StickBreaksRight | Event::StickBreaksLeft | Event::PeakNormalForce => {
                return false;
            }
        };
        out.fill(0.0);
        for (i, component) in direction.iter().enumerate() {
            out[i] = on_q * component.abs();
            out[N + i] = on_qdot * component.abs();
        }
        true
    }

    /// The system's slopes in q and q̇; the margins depend on nothing else of the state.
    fn domain_margin_slopes(&self, index: usize, out: &mut [f64]) -> bool {
        let Some((dq, dqdot)) = self.system.validity_margin_slopes(index) else {
            return false;
        };
        out.fill(0.0);
        out[..N].copy_from_slice(&dq);
        out[N..2 * N].copy_from_slice(&dqdot);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ContactKinematics, Mechanics, PlanarContactSystem};
    use crate::models::rod::mechanics::PainleveRod;

    /// A planar system where everything the event functions read moves: a q-dependent mass
    /// matrix, contact directions with drift, a time-dependent load (non-autonomous) and a
    /// friction coefficient μ(q).
    struct Wobbly;
    impl Mechanics<2> for Wobbly {
        fn coordinate_names(&self) -> [&'static str; 2] {
            ["x", "y"]
        }
        fn mass_matrix<S: Real>(&self, q: &[S; 2]) -> [[S; 2]; 2] {
            let c = q[0].sin().scale(0.3);
            [[S::cst(2.0), c], [c, S::cst(1.0)]]
        }
        fn generalized_force<S: Real>(&self, q: &[S; 2], qdot: &[S; 2]) -> [S; 2] {
            [qdot[1] * qdot[0].scale(0.2), S::cst(-1.0) - q[1].scale(0.1)]
        }
        fn potential_energy<S: Real>(&self, q: &[S; 2]) -> S {
            q[1]
        }
        fn is_autonomous(&self) -> bool {
            false
        }
        fn external_load<S: Real>(&self, t: S) -> [S; 2] {
            [t.sin().scale(0.4), t.cos().scale(0.1)]
        }
    }
    impl PlanarContactSystem<2> for Wobbly {
        fn contact_kinematics<S: Real>(
            &self,
            q: &[S; 2],
            qdot: &[S; 2],
        ) -> ContactKinematics<S, 2> {
            let (s, c) = (q[0].sin(), q[0].cos());
            ContactKinematics {
                gap: q[1] - s.scale(0.5),
                tangential: [S::cst(1.0), c.scale(0.2)],
                normal: [-c.scale(0.5), S::cst(1.0)],
                tangential_drift: -(s * qdot[0] * qdot[1]).scale(0.2),
                normal_drift: (s * qdot[0] * qdot[0]).scale(0.5),
            }
        }
        fn friction_coefficient<S: Real>(&self, q: &[S; 2]) -> Option<S> {
            Some(S::cst(0.6) + q[0].cos().scale(0.2))
        }
    }

    const MODES: [Mode; 4] = [Mode::SlideLeft, Mode::SlideRight, Mode::Stick, Mode::Free];
    const EVENTS: [Event; 7] = [
        Event::ContactOpens,
        Event::SlipStops,
        Event::StickBreaksRight,
        Event::StickBreaksLeft,
        Event::ContactCloses,
        Event::PeakNormalForce,
        Event::MaxPenetration,
    ];

    /// `event_slopes` keeps its contract, `|g(y) − g(y')| ≤ Σ_j w_j |y_j − y'_j|`, for every
    /// event that has slopes, in every mode, with and without a dashpot, over pairs of states
    /// in and out of contact (the closing function's two branches among them); the force-based
    /// functions have none, and neither has a system without constant contact directions.
    #[test]
    fn event_slopes_bound_the_event_functions() {
        let rod = PainleveRod::default();
        let mut with_slopes = 0;
        for damping in [0.0, 0.3] {
            let problem = ContactProblem {
                system: &rod,
                compliance: NormalCompliance::spring_dashpot(1e-4, damping),
                friction: Coulomb { mu: 2.0, mu_s: 2.5 },
            };
            let n = problem.state_len();
            let state = |k: usize| -> Vec<f64> {
                (0..n)
                    .map(|i| 1e-3 * ((k * n + i) as f64 * 0.77).sin() + 1.0 * f64::from(i == 2))
                    .collect()
            };
            let mut w = vec![0.0; n];
            for mode in MODES {
                for event in EVENTS {
                    if !problem.event_slopes(mode, event, &mut w) {
                        let force_based =
                            matches!(event, Event::StickBreaksLeft | Event::StickBreaksRight)
                                || (event == Event::PeakNormalForce && damping > 0.0);
                        assert!(force_based, "{event:?} has no slopes");
                        continue;
                    }
                    with_slopes += 1;
                    for k in 0..40 {
                        let (y, y2) = (state(k), state(k + 40));
                        let difference = (problem.event_value(mode, event, &y)
                            - problem.event_value(mode, event, &y2))
                        .abs();
                        let bound: f64 = (0..n).map(|j| w[j] * (y[j] - y2[j]).abs()).sum();
                        assert!(
                            difference <= bound * (1.0 + 1e-12) + 1e-18,
                            "{mode:?} {event:?}: {difference} > {bound}"
                        );
                    }
                }
            }
        }
        assert!(with_slopes >= 20, "{with_slopes} events with slopes");
        let wobbly = ContactProblem {
            system: &Wobbly,
            compliance: NormalCompliance::spring_dashpot(1e-4, 0.0),
            friction: Coulomb { mu: 2.0, mu_s: 2.5 },
        };
        let mut w = vec![0.0; wobbly.state_len()];
        assert!(!wobbly.event_slopes(Mode::SlideLeft, Event::SlipStops, &mut w));
    }

    /// `event_rate` (duals of q, q̇ and τ only) against what `HybridSystem`'s default computes
    /// (the event function on the duals `y + ε flow` of the whole state), bit for bit; and
    /// `event_values` against one `event_value` per event, bit for bit. Every event in every
    /// mode, with and without a dashpot (the peak-force function differs), states in and out
    /// of contact.
    fn check_rates_and_values<Sys: PlanarContactSystem<N>, const N: usize>(
        system: &Sys,
        friction: Coulomb,
    ) -> usize {
        let mut checked = 0;
        for damping in [0.0, 0.3] {
            let problem = ContactProblem {
                system,
                compliance: NormalCompliance::spring_dashpot(1e-4, damping),
                friction,
            };
            let n = problem.state_len();
            for k in 0..6 {
                let y: Vec<f64> = (0..n)
                    .map(|i| 0.3 * ((k * n + i) as f64 * 0.77).sin() - 1e-3 * (k % 2) as f64)
                    .collect();
                let flow: Vec<f64> = (0..n).map(|i| ((k + 3 * i) as f64 * 1.3).cos()).collect();
                let duals: Vec<Dual> = y
                    .iter()
                    .zip(&flow)
                    .map(|(&a, &b)| Dual::new(a, b))
                    .collect();
                for mode in MODES {
                    for event in EVENTS {
                        let rate = problem.event_rate(mode, event, &y, &flow);
                        let default = problem.event_value(mode, event, &duals).eps;
                        assert_eq!(
                            rate.to_bits(),
                            default.to_bits(),
                            "{mode:?} {event:?}: {rate} vs {default}"
                        );
                        checked += 1;
                    }
                    let events: Vec<(Event, Crossing)> =
                        EVENTS.iter().map(|&e| (e, Crossing::Falling)).collect();
                    let mut all = vec![0.0; events.len()];
                    problem.event_values(mode, &events, &y, &mut all);
                    for (&(event, _), g) in events.iter().zip(&all) {
                        let one = problem.event_value(mode, event, &y);
                        assert_eq!(
                            g.to_bits(),
                            one.to_bits(),
                            "{mode:?} {event:?}: {g} vs {one}"
                        );
                        checked += 1;
                    }
                }
            }
        }
        checked
    }

    #[test]
    fn event_rates_and_values_equal_the_generic_ones_bit_for_bit() {
        let rod = PainleveRod::UNIFORM;
        assert_eq!(
            check_rates_and_values(&Wobbly, Coulomb::FROM_MECHANICS),
            672
        );
        assert_eq!(
            check_rates_and_values(&rod, Coulomb { mu: 2.0, mu_s: 2.5 }),
            672
        );
    }
}
