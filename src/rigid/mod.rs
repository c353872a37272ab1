//! The rigid event-driven formulation: one unilateral frictional contact (D = 1 or 2 tangents)
//! with impacts as reset maps, as a [`HybridSystem`] for the generic mode machine
//! (docs/klarbring.md, "Rigid event-driven reference"; Ballard–Basseville 2005 §3–4, Dance 2024
//! Rem. 2.4 for the impact law).
//!
//! ODE state (length 2N + 1 + D): `[q (N), q̇ (N), τ, ê (D)]`: global time τ (the load F(τ)),
//! and the stored slip direction ê of [`crate::compliant::cone`]. Contact forces solve the
//! Delassus system at acceleration level (gap ≡ 0):
//!
//! | mode  | forces                                              | events (crossing)                          |
//! |-------|-----------------------------------------------------|--------------------------------------------|
//! | free  | none                                                | impact: gap ↓ 0                            |
//! | stick | W λ = −a (normal and tangential accelerations 0)    | lift-off: λ_N ↓ 0; stick breaks: μ²λ_N² − ‖λ_T‖² ↓ 0 |
//! | slide | λ_T = −μ λ_N V̂_T, λ_N from the normal row           | lift-off: λ_N ↓ 0; slip stops (cone::stop_function) ↓ 0 |
//!
//! Transitions: impact → the impact law (a reset), then free when it bounces (e > 0), else the
//! mode at rest; an impact too slow for its bounce to be resolved (the apex (e v⁻)²/(2a) of the
//! next flight within [`RigidProblem::rest_height`], and any located touch without approach)
//! is a contact coming to rest: plastic, then the contact mode chosen by leading Taylor
//! coefficients — what ends a Zeno series of bounces (docs/klarbring.md, "After the lift-off");
//! lift-off → free; stick breaks → slide along g_T/|g_T| = −λ_T/|λ_T| at the
//! onset; slip stops → V_T = 0 (a reset) and the mode at rest. The mode at rest (a start or a
//! stop) is chosen by the leading Taylor coefficients of λ_N and of the cone margin
//! μ²λ_N² − ‖λ_T‖² along the stick flow on (t₀, t₀ + η) ([`RigidProblem::mode_at_rest`]), not by
//! their values at t₀ (BB Prop. 3.5, cases 2 and 3).
//!
//! The impact law assumes decoupled contact directions, W_NT = 0 and W_TT = w_T·I (true of
//! a particle, M = I): V_N⁺ = −e V_N⁻, V_T⁺ = V_T⁻·max(0, 1 − μ(1+e)|V_N⁻| w_T/(w_N |V_T⁻|)).

pub mod multi;
pub mod oblique_impact;
pub mod simulate;

use crate::compliant::cone::{self, ConeMode, TAYLOR_ORDER};
use crate::compliant::spatial::{
    apply_impulse, clear_tangential_velocity, contact_velocities, delassus_at, slip_stop,
    start_state, stick_break_direction, store_direction_and_seed, stored_direction,
    tangential_accelerations, write_vector_field,
};
use crate::error::SimError;
use crate::hybrid::{with_duals, Crossing, HybridSystem, Named};
use crate::model::jet::flow_jet;
use crate::model::{ContactSystem, Delassus, Real};
use serde::Serialize;

/// Events of the rigid formulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RigidEvent {
    Impact,
    LiftOff,
    StickBreaks,
    SlipStops,
}

impl Named for RigidEvent {
    fn name(&self) -> &'static str {
        match self {
            RigidEvent::Impact => "impact",
            RigidEvent::LiftOff => "liftoff",
            RigidEvent::StickBreaks => "slip",
            RigidEvent::SlipStops => "stop",
        }
    }
}

/// A contact system with a rigid unilateral contact, Coulomb friction μ and restitution e.
pub struct RigidProblem<'a, Sys, const N: usize, const D: usize> {
    pub system: &'a Sys,
    pub mu: f64,
    pub restitution: f64,
    /// The bounce apex below which an impact is a contact coming to rest
    /// ([`RigidProblem::comes_to_rest`]): the gap's absolute tolerance of the run
    /// ([`RigidProblem::with_rest_height`]; [`REST_HEIGHT`] by default).
    pub rest_height: f64,
}

/// The default [`RigidProblem::rest_height`]: the absolute tolerance the rigid references run
/// at (docs/klarbring.md, "Tolerances": the two-tangent reference needs atol ≤ 1e-14).
pub const REST_HEIGHT: f64 = 1e-14;

pub use crate::compliant::spatial::{direction_index, time_index};

impl<'a, Sys: ContactSystem<N, D, 1>, const N: usize, const D: usize> RigidProblem<'a, Sys, N, D> {
    /// The problem, refused unless the contact directions are decoupled at `q0` (the impact
    /// law's assumption) and μ ≥ 0, e ∈ [0, 1].
    pub fn new(
        system: &'a Sys,
        mu: f64,
        restitution: f64,
        q0: &[f64; N],
    ) -> Result<Self, SimError> {
        crate::error::require_non_negative("mu", mu)?;
        if !(0.0..=1.0).contains(&restitution) {
            return Err(SimError::invalid(
                "restitution",
                restitution,
                "must lie in [0, 1]",
            ));
        }
        if D > 2 {
            return Err(SimError::invalid(
                "tangents",
                D,
                "at most 2 tangential directions",
            ));
        }
        let d: Delassus<f64, D, 1> = Delassus::at_time(system, 0.0, q0, &[0.0; N]);
        let wt = d.entry(0, 1, 0, 1);
        for a in 0..=D {
            for b in 0..=D {
                let w = d.entry(0, a, 0, b);
                let expected = match (a, b) {
                    (0, 0) => w,
                    (0, _) | (_, 0) => 0.0,
                    _ if a == b => wt,
                    _ => 0.0,
                };
                if (w - expected).abs() > 1e-12 * wt.abs().max(1.0) {
                    return Err(SimError::invalid(
                        "mechanics",
                        format!("W[{a}][{b}] = {w}"),
                        "the rigid impact law needs decoupled contact directions (W_NT = 0, W_TT = w·I)",
                    ));
                }
            }
        }
        Ok(RigidProblem {
            system,
            mu,
            restitution,
            rest_height: REST_HEIGHT,
        })
    }

    /// The problem with [`RigidProblem::rest_height`] = `height` (a run's gap tolerance, atol).
    pub fn with_rest_height(self, height: f64) -> Self {
        RigidProblem {
            rest_height: height,
            ..self
        }
    }

    /// Length of the ODE state.
    pub fn state_len(&self) -> usize {
        2 * N + 1 + D
    }

    fn direction(y: &[f64]) -> [f64; D] {
        stored_direction::<f64, N, D>(y)
    }

    /// Gap, gap rate and the tangential velocities at `y`.
    pub fn contact_kinematics<S: Real>(&self, y: &[S]) -> (S, S, [S; D]) {
        contact_velocities::<S, Sys, N, D>(self.system, y)
    }

    /// The contact forces `[λ_N, λ_T…]` of `mode` at `y`, and the tangential accelerations
    /// they produce.
    pub fn contact_forces<S: Real>(&self, mode: ConeMode, y: &[S]) -> (Vec<S>, [S; D]) {
        let d = delassus_at::<S, Sys, N, D>(self.system, y);
        let rhs: Vec<S> = d.free_all.iter().map(|&a| -a).collect();
        let forces = match mode {
            ConeMode::Free => vec![S::zero(); 1 + D],
            ConeMode::Stick => cone::solve_spd(&d.w, &rhs),
            ConeMode::Slide => {
                let (_, _, v) = self.contact_kinematics(y);
                let e = cone::slip_unit(&v, &stored_direction::<S, N, D>(y));
                let mut denom = d.entry(0, 0, 0, 0);
                for (j, ej) in e.iter().enumerate() {
                    denom = denom - (d.entry(0, 0, 0, 1 + j) * *ej).scale(self.mu);
                }
                let normal = rhs[0] / denom;
                let mut f = vec![normal];
                f.extend(e.iter().map(|&ej| -(normal * ej).scale(self.mu)));
                f
            }
        };
        let accel = tangential_accelerations(&d, &forces);
        (forces, accel)
    }

    /// The vector field of `mode`.
    pub fn vector_field<S: Real>(&self, mode: ConeMode, y: &[S], dy: &mut [S]) {
        let (forces, _) = self.contact_forces(mode, y);
        write_vector_field(self.system, y, &forces, dy);
    }

    /// The slide's stop function (cone::stop_function) at `y`, and r, ṙ.
    pub fn slip_stop<S: Real>(&self, y: &[S]) -> (S, S, S) {
        slip_stop(self.system, y, || self.contact_forces(ConeMode::Slide, y).1)
    }

    /// The value of `event`'s function in `mode` at `y`.
    pub fn event_value<S: Real>(&self, mode: ConeMode, event: RigidEvent, y: &[S]) -> S {
        match event {
            RigidEvent::Impact => self.contact_kinematics(y).0,
            RigidEvent::LiftOff => self.contact_forces(mode, y).0[0],
            RigidEvent::StickBreaks => {
                let (f, _) = self.contact_forces(ConeMode::Stick, y);
                cone::cone_margin(self.mu, &f)
            }
            RigidEvent::SlipStops => self.slip_stop(y).0,
        }
    }

    /// The impact law (BB's impact law with Dance's Rem. 2.4 tangential impulse): a reset of
    /// the velocities at an impact with gap rate `v⁻ < 0`.
    pub fn apply_impact(&self, y: &mut [f64]) {
        self.apply_impact_law(y, self.restitution, false)
    }

    /// The impact law with restitution `e`; `to_rest`: the contact comes to rest, the normal
    /// impulse sets the gap rate to exactly 0 whatever its sign (a rate within rounding of
    /// zero, [`RigidProblem::comes_to_rest`]).
    fn apply_impact_law(&self, y: &mut [f64], e: f64, to_rest: bool) {
        let (_, v_n, v_t) = self.contact_kinematics(y);
        let d = delassus_at::<f64, Sys, N, D>(self.system, y);
        let approach = if to_rest { v_n } else { v_n.min(0.0) };
        let normal_impulse = -(1.0 + e) * approach / d.entry(0, 0, 0, 0);
        let speed = v_t.iter().map(|x| x * x).sum::<f64>().sqrt();
        let wt = d.entry(0, 1, 0, 1);
        let mut impulse = vec![normal_impulse];
        let tangential = (self.mu * normal_impulse.max(0.0)).min(speed / wt);
        if normal_impulse == 0.0 && tangential == 0.0 {
            // No impulse: the state stays as it is, bit for bit (a transition that changes
            // nothing is no event for the mode machine: hybrid::driver).
            return;
        }
        impulse.extend(v_t.iter().map(|&vj| {
            if speed > 0.0 {
                -tangential * vj / speed
            } else {
                0.0
            }
        }));
        apply_impulse(self.system, y, &impulse);
        if tangential * wt >= speed {
            // Exactly zero: the impulse stops the slip (no residue that a later slide would
            // start from).
            clear_tangential_velocity(self.system, y);
        }
    }

    /// The mode of a contact at rest (gap = 0, gap rate = 0, V_T = 0) at `y`, by the leading
    /// Taylor coefficients along the stick flow ([`cone::mode_at_rest`]).
    pub fn mode_at_rest(&self, y: &[f64]) -> (ConeMode, [f64; D]) {
        cone::mode_at_rest(
            y,
            self.mu,
            |yj, dyj| self.vector_field(ConeMode::Stick, yj, dyj),
            |yj| self.contact_forces(ConeMode::Stick, yj).0,
            Self::direction(y),
        )
    }

    /// Whether the impact at `y` (before the reset) is a contact coming to rest rather than a
    /// bounce: no approach (gap rate ≥ 0: a touch located within the integrator's resolution,
    /// such as a free flight that leaves the surface cubically after a lift-off), or a bounce
    /// whose next flight, with the gap's deceleration `a` of free flight toward the surface,
    /// rises no higher than [`RigidProblem::rest_height`]: (e v⁻)²/(2a) ≤ h. Below that the
    /// flights are not resolved and a bouncing series (e < 1: flight times 2e v⁻/a shrinking
    /// by e, an accumulation at a finite time) would run through the located impacts as
    /// rounding; docs/klarbring.md, "After the lift-off".
    pub fn comes_to_rest(&self, y: &[f64]) -> bool {
        let (_, v_n, _) = self.contact_kinematics(y);
        if v_n >= 0.0 {
            return true;
        }
        let mut flow = vec![0.0; y.len()];
        self.vector_field(ConeMode::Free, y, &mut flow);
        let decel = -with_duals(y, &flow, |yd| self.contact_kinematics(yd).1.eps);
        let bounce = self.restitution * v_n;
        bounce * bounce <= 2.0 * decel.max(0.0) * self.rest_height
    }

    /// The mode of a contact at gap = 0, gap rate 0 (a start, or an impact after its plastic
    /// reset, [`RigidProblem::comes_to_rest`]): with V_T = 0 the mode at rest; sliding,
    /// a slide while the slide's normal force λ_N is positive on (t₀, t₀ + η) by its leading
    /// Taylor coefficient along the slide flow (its value at t₀ may be a rounded zero: λ_N =
    /// 1.1e-16 at a located lift-off), else free with the stored direction kept (a free
    /// flight that leaves the surface: the state is not changed).
    fn contact_mode(&self, y: &[f64]) -> (ConeMode, [f64; D]) {
        let (_, _, v) = self.contact_kinematics(y);
        let Some(e) = cone::unit(&v) else {
            return self.mode_at_rest(y);
        };
        let mut probe = y.to_vec();
        probe[direction_index(N)..].copy_from_slice(&e);
        let jets = flow_jet::<TAYLOR_ORDER>(&probe, |yj, dyj| {
            self.vector_field(ConeMode::Slide, yj, dyj)
        });
        let normal = self.contact_forces(ConeMode::Slide, &jets).0[0];
        let tol = 1e-12 * normal.c[0].abs().max(1.0);
        match normal.leading(tol) {
            Some((_, c)) if c > 0.0 => (ConeMode::Slide, e),
            _ => (ConeMode::Free, Self::direction(y)),
        }
    }

    /// The initial state `[q0, q̇0, 0, ê]` with ê set for a start in a slide.
    pub fn initial_state(&self, q0: &[f64; N], qdot0: &[f64; N]) -> Vec<f64> {
        let mut y = start_state::<N, D>(q0, qdot0);
        let (mode, e) = self.start(&y);
        if mode == ConeMode::Slide {
            // No normal-force condition on the seed: a rigid slide carries λ_N > 0.
            store_direction_and_seed(self.system, &mut y, mode, &e, |_| true);
        }
        y
    }

    /// The mode a state starts in and its slip direction: free when separated or separating,
    /// else the contact mode.
    fn start(&self, y: &[f64]) -> (ConeMode, [f64; D]) {
        let (gap, rate, _) = self.contact_kinematics(y);
        if gap > 0.0 || rate > 0.0 {
            return (ConeMode::Free, Self::direction(y));
        }
        if rate < 0.0 {
            // Touching and moving in: an impact at t = 0 is not a start state.
            return (ConeMode::Free, Self::direction(y));
        }
        self.contact_mode(y)
    }

    /// The mode after the switching `event`, with its reset of `y`.
    pub fn next_mode(&self, event: RigidEvent, y: &mut [f64]) -> ConeMode {
        let (mode, e) = match event {
            RigidEvent::Impact if self.comes_to_rest(y) => {
                self.apply_impact_law(y, 0.0, true);
                self.contact_mode(y)
            }
            RigidEvent::Impact => {
                // A bounce (e > 0: with e = 0 every impact comes to rest).
                self.apply_impact(y);
                (ConeMode::Free, Self::direction(y))
            }
            RigidEvent::LiftOff => (ConeMode::Free, Self::direction(y)),
            RigidEvent::StickBreaks => {
                let (f, _) = self.contact_forces(ConeMode::Stick, y);
                (
                    ConeMode::Slide,
                    stick_break_direction(&f, Self::direction(y)),
                )
            }
            RigidEvent::SlipStops => {
                clear_tangential_velocity(self.system, y);
                self.mode_at_rest(y)
            }
        };
        // No normal-force condition on the seed: a rigid slide carries λ_N > 0.
        store_direction_and_seed(self.system, y, mode, &e, |_| true)
    }
}

/// The events watched in each mode.
fn watched(mode: ConeMode) -> &'static [(RigidEvent, Crossing)] {
    use Crossing::Falling;
    match mode {
        ConeMode::Free => &[(RigidEvent::Impact, Falling)],
        ConeMode::Stick => &[
            (RigidEvent::LiftOff, Falling),
            (RigidEvent::StickBreaks, Falling),
        ],
        ConeMode::Slide => &[
            (RigidEvent::LiftOff, Falling),
            (RigidEvent::SlipStops, Falling),
        ],
    }
}

impl<Sys: ContactSystem<N, D, 1>, const N: usize, const D: usize> HybridSystem
    for RigidProblem<'_, Sys, N, D>
{
    type Mode = ConeMode;
    type Event = RigidEvent;

    fn dim(&self) -> usize {
        self.state_len()
    }
    fn absolute_tolerances(&self, atol: f64) -> Vec<f64> {
        vec![atol; self.state_len()]
    }
    fn min_step(&self) -> f64 {
        1e-14
    }
    fn initial_mode(&self, y: &[f64]) -> ConeMode {
        self.start(y).0
    }
    fn field<S: Real>(&self, mode: ConeMode, y: &[S], dy: &mut [S]) {
        self.vector_field(mode, y, dy)
    }
    fn watched(&self, mode: ConeMode) -> std::borrow::Cow<'_, [(RigidEvent, Crossing)]> {
        std::borrow::Cow::Borrowed(watched(mode))
    }
    fn is_switching(&self, _event: RigidEvent) -> bool {
        true
    }
    fn event_value<S: Real>(&self, mode: ConeMode, event: RigidEvent, y: &[S]) -> S {
        RigidProblem::event_value(self, mode, event, y)
    }
    fn transition(&self, _mode: ConeMode, event: RigidEvent, y: &mut [f64]) -> ConeMode {
        self.next_mode(event, y)
    }
}
