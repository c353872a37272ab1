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
//! mode at rest; lift-off → free; stick breaks → slide along g_T/|g_T| = −λ_T/|λ_T| at the
//! onset; slip stops → V_T = 0 (a reset) and the mode at rest. The mode at rest (a start or a
//! stop) is chosen by the leading Taylor coefficients of λ_N and of the cone margin
//! μ²λ_N² − ‖λ_T‖² along the stick flow on (t₀, t₀ + η) ([`RigidProblem::mode_at_rest`]), not by
//! their values at t₀ (BB Prop. 3.5, cases 2 and 3).
//!
//! The impact law assumes decoupled contact directions, W_NT = 0 and W_TT = w_T·I (true of
//! a particle, M = I): V_N⁺ = −e V_N⁻, V_T⁺ = V_T⁻·max(0, 1 − μ(1+e)|V_N⁻| w_T/(w_N |V_T⁻|)).

pub mod simulate;

use crate::compliant::cone::{self, ConeMode};
use crate::compliant::spatial::{
    apply_impulse, clear_tangential_velocity, contact_velocities, stick_break_direction,
    store_direction_and_seed, stored_direction,
};
use crate::error::SimError;
use crate::hybrid::{Crossing, HybridSystem, Named};
use crate::model::{generalized_accel, ContactSystem, Delassus, Real};
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
}

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
        })
    }

    /// Length of the ODE state.
    pub fn state_len(&self) -> usize {
        2 * N + 1 + D
    }

    fn split<S: Real>(y: &[S]) -> ([S; N], [S; N]) {
        (
            std::array::from_fn(|i| y[i]),
            std::array::from_fn(|i| y[N + i]),
        )
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
        let (q, qdot) = Self::split(y);
        let d: Delassus<S, D, 1> = Delassus::at_time(self.system, y[time_index(N)], &q, &qdot);
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
        let accel = std::array::from_fn(|j| {
            (0..=D).fold(d.free_all[1 + j], |s, b| {
                s + d.entry(0, 1 + j, 0, b) * forces[b]
            })
        });
        (forces, accel)
    }

    /// The vector field of `mode`.
    pub fn vector_field<S: Real>(&self, mode: ConeMode, y: &[S], dy: &mut [S]) {
        let (q, qdot) = Self::split(y);
        let (forces, _) = self.contact_forces(mode, y);
        let accel = generalized_accel(self.system, y[time_index(N)], &q, &qdot, &forces);
        dy[..N].copy_from_slice(&qdot);
        dy[N..2 * N].copy_from_slice(&accel);
        dy[time_index(N)] = S::cst(1.0);
        for j in 0..D {
            dy[direction_index(N) + j] = S::zero();
        }
    }

    /// The slide's stop function (cone::stop_function) at `y`, and r, ṙ.
    pub fn slip_stop<S: Real>(&self, y: &[S]) -> (S, S, S) {
        let (_, _, v) = self.contact_kinematics(y);
        let e = stored_direction::<S, N, D>(y);
        let speed = cone::slip_speed(&v, &e);
        let (_, accel) = self.contact_forces(ConeMode::Slide, y);
        let unit = cone::slip_unit(&v, &e);
        let rate = (0..D).fold(S::zero(), |s, j| s + unit[j] * accel[j]);
        (cone::stop_function::<S, D>(speed, rate), speed, rate)
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
        let (_, v_n, v_t) = self.contact_kinematics(y);
        let (q, qdot) = Self::split(y);
        let d: Delassus<f64, D, 1> = Delassus::at_time(self.system, y[time_index(N)], &q, &qdot);
        let normal_impulse = -(1.0 + self.restitution) * v_n.min(0.0) / d.entry(0, 0, 0, 0);
        let speed = v_t.iter().map(|x| x * x).sum::<f64>().sqrt();
        let wt = d.entry(0, 1, 0, 1);
        let mut impulse = vec![normal_impulse];
        let tangential = (self.mu * normal_impulse).min(speed / wt);
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

    /// The mode of a contact (gap = 0, gap rate 0) with tangential velocity `v_t`.
    fn contact_mode(&self, y: &[f64]) -> (ConeMode, [f64; D]) {
        let (_, _, v) = self.contact_kinematics(y);
        match cone::unit(&v) {
            Some(e) => {
                let mut probe = y.to_vec();
                probe[direction_index(N)..].copy_from_slice(&e);
                if self.contact_forces(ConeMode::Slide, &probe).0[0] > 0.0 {
                    (ConeMode::Slide, e)
                } else {
                    (ConeMode::Free, e)
                }
            }
            None => self.mode_at_rest(y),
        }
    }

    /// The initial state `[q0, q̇0, 0, ê]` with ê set for a start in a slide.
    pub fn initial_state(&self, q0: &[f64; N], qdot0: &[f64; N]) -> Vec<f64> {
        let mut y = vec![0.0; self.state_len()];
        y[..N].copy_from_slice(q0);
        y[N..2 * N].copy_from_slice(qdot0);
        y[direction_index(N)] = 1.0;
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
            RigidEvent::Impact => {
                self.apply_impact(y);
                if self.restitution > 0.0 {
                    (ConeMode::Free, Self::direction(y))
                } else {
                    self.contact_mode(y)
                }
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
    fn watched(&self, mode: ConeMode) -> &[(RigidEvent, Crossing)] {
        watched(mode)
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
