//! Spatial Coulomb contact, compliant: the penalty normal law of [`super::normal`] with exact
//! Coulomb friction in D = 1 or 2 tangential directions, on any [`ContactSystem`] with one
//! contact, beside the planar formulation of [`super::ContactProblem`] (docs/klarbring.md,
//! "Compliant spatial formulation").
//!
//! ODE state (length 2N + 1 + D): `[q (N), q̇ (N), τ, ê (D)]`: global time τ (the load F(τ))
//! and the stored slip direction ê ([`super::cone`]).
//!
//! | mode  | forces                                                   | events (crossing)                          |
//! |-------|----------------------------------------------------------|--------------------------------------------|
//! | free  | none                                                     | contact closes: min(δ, κF_n) ↑ 0           |
//! | stick | F_n = δ/κ + c_d δ̇/√κ; λ_T from W_TT λ_T = −(a_T + W_TN F_n) | opens: κF_n ↓ 0; stick breaks: μ²F_n² − ‖λ_T‖² ↓ 0 |
//! | slide | F_n as above; λ_T = −μ F_n V̂_T                           | opens: κF_n ↓ 0; slip stops (cone::stop_function) ↓ 0 |
//!
//! The normal law is never adhesive: the contact opens when F_n reaches 0. Transitions: opens →
//! free; closes → a slide along V̂_T, or the mode at rest when V_T = 0; stick breaks → slide
//! along g_T/|g_T| = −λ_T/|λ_T| at the onset instant; slip stops → V_T = 0 (a tangential
//! impulse of size |ṙ|τ_stop, see cone::STOP_LEAD_TIME) and the mode at rest
//! ([`super::cone::mode_at_rest`]).

use super::cone::{self, ConeMode, TAYLOR_ORDER};
use super::normal::NormalCompliance;
use crate::error::SimError;
use crate::hybrid::{
    check_tolerances, run_hybrid, Crossing, HybridSystem, Named, Observer, Recording, RunControl,
    Trace, Until,
};
use crate::integrate::{IntegratorKind, Tolerances};
use crate::model::jet::flow_jet;
use crate::model::{cholesky, cholesky_solve, generalized_accel, ContactSystem, Delassus, Real};
use serde::Serialize;

/// Events of the compliant spatial contact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SpatialEvent {
    ContactOpens,
    ContactCloses,
    StickBreaks,
    SlipStops,
}

impl Named for SpatialEvent {
    fn name(&self) -> &'static str {
        match self {
            SpatialEvent::ContactOpens => "contact_opens",
            SpatialEvent::ContactCloses => "contact_closes",
            SpatialEvent::StickBreaks => "slip",
            SpatialEvent::SlipStops => "stop",
        }
    }
}

/// Offset of the global time τ in a spatial state `[q, q̇, τ, ê]`.
pub const fn time_index(n: usize) -> usize {
    2 * n
}
/// Offset of the stored slip direction ê.
pub const fn direction_index(n: usize) -> usize {
    2 * n + 1
}

/// A contact system with one compliant frictional contact of D tangents.
pub struct SpatialContactProblem<'a, Sys, const N: usize, const D: usize> {
    pub system: &'a Sys,
    pub compliance: NormalCompliance,
    /// Coulomb coefficient μ ≥ 0 (static = kinetic).
    pub mu: f64,
}

/// What the spatial formulations share: their states `[q, q̇, τ, ê]` and the time from a
/// located stop to r = 0.
pub trait SpatialFormulation: HybridSystem<Mode = ConeMode> {
    /// The time from the located `event` at `y` (before its reset) to the instant it stands
    /// for: r/(−ṙ) for a two-tangent stop (cone::stop_delay), else 0.
    fn event_delay(&self, event: Self::Event, y: &[f64]) -> f64;
}

fn split<S: Real, const N: usize>(y: &[S]) -> ([S; N], [S; N]) {
    (
        std::array::from_fn(|i| y[i]),
        std::array::from_fn(|i| y[N + i]),
    )
}

/// The stored slip direction of `y`, as plain numbers (its derivative is zero in every mode).
pub fn stored_direction<S: Real, const N: usize, const D: usize>(y: &[S]) -> [f64; D] {
    std::array::from_fn(|j| y[direction_index(N) + j].value())
}

/// Gap, gap rate and tangential velocities of the single contact of `sys` at `y`.
pub fn contact_velocities<S: Real, Sys: ContactSystem<N, D, 1>, const N: usize, const D: usize>(
    sys: &Sys,
    y: &[S],
) -> (S, S, [S; D]) {
    let (q, qdot) = split::<S, N>(y);
    let [fr] = sys.contact_frames(&q, &qdot);
    let dot = |a: &[S; N]| (0..N).fold(S::zero(), |s, i| s + a[i] * qdot[i]);
    (
        fr.gap,
        dot(&fr.normal),
        std::array::from_fn(|j| dot(&fr.tangents[j])),
    )
}

/// The Delassus operator of the single contact of `sys` at `y` (its time τ and `(q, q̇)`).
pub fn delassus_at<S: Real, Sys: ContactSystem<N, D, 1>, const N: usize, const D: usize>(
    sys: &Sys,
    y: &[S],
) -> Delassus<S, D, 1> {
    let (q, qdot) = split::<S, N>(y);
    Delassus::at_time(sys, y[time_index(N)], &q, &qdot)
}

/// The tangential accelerations a_T + W_TN λ_N + W_TT λ_T under the contact forces
/// `forces = [λ_N, λ_T…]`.
pub fn tangential_accelerations<S: Real, const D: usize>(
    d: &Delassus<S, D, 1>,
    forces: &[S],
) -> [S; D] {
    std::array::from_fn(|j| {
        (0..=D).fold(d.free_all[1 + j], |s, b| {
            s + d.entry(0, 1 + j, 0, b) * forces[b]
        })
    })
}

/// The state's derivative `[q̇, q̈, 1, 0…]` under the contact forces `forces = [λ_N, λ_T…]`: the
/// stored slip direction is constant in every mode.
pub fn write_vector_field<S: Real, Sys: ContactSystem<N, D, 1>, const N: usize, const D: usize>(
    sys: &Sys,
    y: &[S],
    forces: &[S],
    dy: &mut [S],
) {
    let (q, qdot) = split::<S, N>(y);
    let accel = generalized_accel(sys, y[time_index(N)], &q, &qdot, forces);
    dy[..N].copy_from_slice(&qdot);
    dy[N..2 * N].copy_from_slice(&accel);
    dy[time_index(N)] = S::cst(1.0);
    for j in 0..D {
        dy[direction_index(N) + j] = S::zero();
    }
}

/// The slide's stop function ([`cone::stop_function`]) at `y`, with r = |V_T| along the stored
/// direction and its rate ṙ = V̂_T·a_T under the slide's tangential accelerations `slide_accel`.
pub fn slip_stop<S: Real, Sys: ContactSystem<N, D, 1>, const N: usize, const D: usize>(
    sys: &Sys,
    y: &[S],
    slide_accel: impl FnOnce() -> [S; D],
) -> (S, S, S) {
    let (_, _, v) = contact_velocities::<S, Sys, N, D>(sys, y);
    let e = stored_direction::<S, N, D>(y);
    let speed = cone::slip_speed(&v, &e);
    let accel = slide_accel();
    let unit = cone::slip_unit(&v, &e);
    let rate = (0..D).fold(S::zero(), |s, j| s + unit[j] * accel[j]);
    (cone::stop_function::<S, D>(speed, rate), speed, rate)
}

/// The state `[q0, q̇0, 0, ê]` with t = 0 and ê the first tangent, before a start sets ê.
pub fn start_state<const N: usize, const D: usize>(q0: &[f64; N], qdot0: &[f64; N]) -> Vec<f64> {
    let mut y = vec![0.0; 2 * N + 1 + D];
    y[..N].copy_from_slice(q0);
    y[N..2 * N].copy_from_slice(qdot0);
    y[direction_index(N)] = 1.0;
    y
}

/// q̇ += M⁻¹ Jᵀ P for the contact impulse `impulse = [P_N, P_T…]` (computed as M⁻¹(JᵀP)
/// itself, so that a particle's V_T = 0 after [`clear_tangential_velocity`] is exactly 0).
pub fn apply_impulse<Sys: ContactSystem<N, D, 1>, const N: usize, const D: usize>(
    sys: &Sys,
    y: &mut [f64],
    impulse: &[f64],
) {
    let (q, qdot) = split::<f64, N>(y);
    let [fr] = sys.contact_frames(&q, &qdot);
    let jtp: [f64; N] = std::array::from_fn(|i| {
        impulse[0] * fr.normal[i]
            + (0..D)
                .map(|j| impulse[1 + j] * fr.tangents[j][i])
                .sum::<f64>()
    });
    let dqdot = cholesky_solve(&cholesky(&sys.mass_matrix(&q)), &jtp);
    for i in 0..N {
        y[N + i] += dqdot[i];
    }
}

/// The contact impulse `[0, P_T…]` whose tangential part changes V_T by `change`:
/// W_TT P_T = `change`. Where W_TT is diagonal (the decoupled frames of a particle) each
/// component is a division, the arithmetic those runs have always had; a coupled W_TT (a
/// described system's tangents through a general mass matrix) is solved.
fn tangential_impulse<const D: usize>(d: &Delassus<f64, D, 1>, change: &[f64; D]) -> Vec<f64> {
    let coupled = (0..D).any(|a| (0..D).any(|b| a != b && d.entry(0, 1 + a, 0, 1 + b) != 0.0));
    let mut impulse = vec![0.0; 1 + D];
    if coupled {
        let w: Vec<f64> = (0..D)
            .flat_map(|a| (0..D).map(move |b| (a, b)))
            .map(|(a, b)| d.entry(0, 1 + a, 0, 1 + b))
            .collect();
        impulse[1..].copy_from_slice(&cone::solve_spd(&w, change));
    } else {
        for j in 0..D {
            impulse[1 + j] = change[j] / d.entry(0, 1 + j, 0, 1 + j);
        }
    }
    impulse
}

/// Set V_T = 0 by the tangential impulse −W_TT⁻¹ V_T.
pub fn clear_tangential_velocity<Sys: ContactSystem<N, D, 1>, const N: usize, const D: usize>(
    sys: &Sys,
    y: &mut [f64],
) {
    let (_, _, v) = contact_velocities::<f64, Sys, N, D>(sys, y);
    let d = delassus_at::<f64, Sys, N, D>(sys, y);
    let impulse = tangential_impulse(&d, &v.map(|x| -x));
    apply_impulse(sys, y, &impulse);
}

/// Start a slide from V_T = 0 along `e`: V_T = [`cone::SLIP_SEED`]·ê with two tangents (a
/// tangential impulse), nothing with one.
pub fn seed_slip<Sys: ContactSystem<N, D, 1>, const N: usize, const D: usize>(
    sys: &Sys,
    y: &mut [f64],
    e: &[f64; D],
) {
    if D == 1 {
        return;
    }
    let d = delassus_at::<f64, Sys, N, D>(sys, y);
    let impulse = tangential_impulse(&d, &e.map(|x| cone::SLIP_SEED * x));
    apply_impulse(sys, y, &impulse);
}

/// The slip direction after a stick breaks: along the load the stick force was holding,
/// g_T = −λ_T at the onset instant (docs/klarbring.md, "stick breaks"), or `keep` where λ_T = 0.
/// `stick_forces` is `[λ_N, λ_T…]` of the stick mode.
pub fn stick_break_direction<const D: usize>(stick_forces: &[f64], keep: [f64; D]) -> [f64; D] {
    let g: [f64; D] = std::array::from_fn(|j| -stick_forces[1 + j]);
    cone::unit(&g).unwrap_or(keep)
}

/// The last step of every reset (rigid and compliant) and of a start: store the slip direction
/// `e` in `y` and, when `mode` is a slide that starts with V_T = 0 and `pressed(y)` holds (the
/// contact carries a normal force), seed it along `e` ([`seed_slip`]). Returns `mode`.
pub fn store_direction_and_seed<Sys: ContactSystem<N, D, 1>, const N: usize, const D: usize>(
    sys: &Sys,
    y: &mut [f64],
    mode: ConeMode,
    e: &[f64; D],
    pressed: impl FnOnce(&[f64]) -> bool,
) -> ConeMode {
    y[direction_index(N)..direction_index(N) + D].copy_from_slice(e);
    let (_, _, v) = contact_velocities::<f64, Sys, N, D>(sys, y);
    if mode == ConeMode::Slide && starting_from_rest(&v) && pressed(y) {
        seed_slip(sys, y, e);
    }
    mode
}

impl<'a, Sys: ContactSystem<N, D, 1>, const N: usize, const D: usize>
    SpatialContactProblem<'a, Sys, N, D>
{
    /// Length of the ODE state.
    pub fn state_len(&self) -> usize {
        2 * N + 1 + D
    }

    /// Penetration δ = −gap and its rate.
    fn penetration<S: Real>(&self, y: &[S]) -> (S, S) {
        let (gap, rate, _) = contact_velocities::<S, Sys, N, D>(self.system, y);
        (-gap, -rate)
    }

    /// The contact forces `[F_n, λ_T…]` of `mode` at `y`, and the tangential accelerations.
    pub fn contact_forces<S: Real>(&self, mode: ConeMode, y: &[S]) -> (Vec<S>, [S; D]) {
        let d = delassus_at::<S, Sys, N, D>(self.system, y);
        let (delta, rate) = self.penetration(y);
        let normal = match mode {
            ConeMode::Free => S::zero(),
            _ => self.compliance.closed_contact_force(delta, rate),
        };
        let mut forces = vec![normal];
        match mode {
            ConeMode::Free => forces.extend((0..D).map(|_| S::zero())),
            ConeMode::Stick => {
                // W_TT λ_T = −(a_T + W_TN F_n): the tangential accelerations vanish.
                let w: Vec<S> = (0..D)
                    .flat_map(|a| (0..D).map(move |b| (a, b)))
                    .map(|(a, b)| d.entry(0, 1 + a, 0, 1 + b))
                    .collect();
                let rhs: Vec<S> = (0..D)
                    .map(|a| -(d.free_all[1 + a] + d.entry(0, 1 + a, 0, 0) * normal))
                    .collect();
                forces.extend(cone::solve_spd(&w, &rhs));
            }
            ConeMode::Slide => {
                let (_, _, v) = contact_velocities::<S, Sys, N, D>(self.system, y);
                let e = cone::slip_unit(&v, &stored_direction::<S, N, D>(y));
                forces.extend(e.iter().map(|&ej| -(normal * ej).scale(self.mu)));
            }
        }
        let accel = tangential_accelerations(&d, &forces);
        (forces, accel)
    }

    /// The vector field of `mode`.
    pub fn vector_field<S: Real>(&self, mode: ConeMode, y: &[S], dy: &mut [S]) {
        self.field_and_forces(mode, y, dy);
    }

    /// The vector field of `mode` into `dy`; the contact forces `[F_n, λ_T…]` it applied.
    pub fn field_and_forces<S: Real>(&self, mode: ConeMode, y: &[S], dy: &mut [S]) -> Vec<S> {
        let (forces, _) = self.contact_forces(mode, y);
        write_vector_field(self.system, y, &forces, dy);
        forces
    }

    /// The slide's stop function at `y`, with r and ṙ.
    pub fn slip_stop<S: Real>(&self, y: &[S]) -> (S, S, S) {
        slip_stop(self.system, y, || self.contact_forces(ConeMode::Slide, y).1)
    }

    /// The value of `event`'s function at `y`.
    pub fn event_value<S: Real>(&self, event: SpatialEvent, y: &[S]) -> S {
        let (delta, rate) = self.penetration(y);
        match event {
            SpatialEvent::ContactOpens => self.compliance.release_function(delta, rate),
            SpatialEvent::ContactCloses => self.compliance.closing_function(delta, rate),
            SpatialEvent::StickBreaks => {
                let (f, _) = self.contact_forces(ConeMode::Stick, y);
                cone::cone_margin(self.mu, &f)
            }
            SpatialEvent::SlipStops => self.slip_stop(y).0,
        }
    }

    /// The mode of a closed contact with V_T = 0 at `y` ([`cone::mode_at_rest`]).
    pub fn mode_at_rest(&self, y: &[f64]) -> (ConeMode, [f64; D]) {
        cone::mode_at_rest(
            y,
            self.mu,
            |yj, dyj| self.vector_field(ConeMode::Stick, yj, dyj),
            |yj| self.contact_forces(ConeMode::Stick, yj).0,
            stored_direction::<f64, N, D>(y),
        )
    }

    /// The mode at `y` and its slip direction: free unless the contact is closed (δ > 0 and
    /// F_n > 0, or δ = 0 and moving in), then a slide along V̂_T or the mode at rest.
    fn start(&self, y: &[f64]) -> (ConeMode, [f64; D]) {
        let (delta, rate) = self.penetration(y);
        let closed = if delta > 0.0 {
            self.compliance.closed_contact_force(delta, rate) > 0.0
        } else {
            delta == 0.0 && (rate > 0.0 || (rate == 0.0 && self.pushed_in_from_rest(y)))
        };
        if !closed {
            return (ConeMode::Free, stored_direction::<f64, N, D>(y));
        }
        let (_, _, v) = contact_velocities::<f64, Sys, N, D>(self.system, y);
        match cone::unit(&v) {
            Some(e) => (ConeMode::Slide, e),
            None => self.closed_mode_at_rest(y),
        }
    }

    /// The mode at rest of a contact that stays closed: "free" at rest means the stick force
    /// is not pulling yet (F_n > 0 here), so the contact sticks.
    fn closed_mode_at_rest(&self, y: &[f64]) -> (ConeMode, [f64; D]) {
        let (mode, e) = self.mode_at_rest(y);
        (
            if mode == ConeMode::Free {
                ConeMode::Stick
            } else {
                mode
            },
            e,
        )
    }

    /// Whether the normal force at `y` is positive. A slide from V_T = 0 needs the seed of
    /// [`seed_slip`] only then: with F_n = 0 at the onset (a start from δ = δ̇ = 0, Dance's
    /// particle) the friction and the relaxation rate μF_n/|V_T| of the slip direction start at
    /// 0 and grow with |V_T| (both ∝ t), so the slide is regular and starts from V_T = 0 along
    /// ê; a seed would only offset the velocity (docs/dance.md, "Compliant runs").
    fn pressed(&self, y: &[f64]) -> bool {
        let (delta, rate) = self.penetration(y);
        self.compliance.closed_contact_force(delta, rate) > 0.0
    }

    /// Whether a particle touching the surface at rest in the normal direction (δ = δ̇ = 0) is
    /// pushed into it: the leading Taylor coefficient of δ along the free flow is positive (a
    /// load pressing from rest, as Dance's particle at t = 0, docs/dance.md "Compliant runs"),
    /// so the contact closes at once instead of waiting for a crossing from δ = 0 that the
    /// event scan cannot see.
    fn pushed_in_from_rest(&self, y: &[f64]) -> bool {
        let jets =
            flow_jet::<TAYLOR_ORDER>(y, |yj, dyj| self.vector_field(ConeMode::Free, yj, dyj));
        let (delta, _) = self.penetration(&jets);
        matches!(delta.leading(0.0), Some((_, c)) if c > 0.0)
    }

    /// The initial state `[q0, q̇0, 0, ê]`, ê set for a start in a slide.
    pub fn initial_state(&self, q0: &[f64; N], qdot0: &[f64; N]) -> Vec<f64> {
        let mut y = start_state::<N, D>(q0, qdot0);
        let (mode, e) = self.start(&y);
        store_direction_and_seed(self.system, &mut y, mode, &e, |y| self.pressed(y));
        y
    }

    /// The mode after `event`, with its reset of `y`.
    pub fn next_mode(&self, event: SpatialEvent, y: &mut [f64]) -> ConeMode {
        let keep = stored_direction::<f64, N, D>(y);
        let (mode, e) = match event {
            SpatialEvent::ContactOpens => (ConeMode::Free, keep),
            SpatialEvent::ContactCloses => self.start(y),
            SpatialEvent::StickBreaks => {
                let (f, _) = self.contact_forces(ConeMode::Stick, y);
                (ConeMode::Slide, stick_break_direction(&f, keep))
            }
            SpatialEvent::SlipStops => {
                clear_tangential_velocity(self.system, y);
                self.closed_mode_at_rest(y)
            }
        };
        store_direction_and_seed(self.system, y, mode, &e, |y| self.pressed(y))
    }
}

/// Whether a slide starts with V_T = 0 (after a stick-break, a stop or a start at rest).
pub fn starting_from_rest<const D: usize>(v: &[f64; D]) -> bool {
    v.iter().all(|&x| x == 0.0)
}

/// The events a spatial contact watches in `mode` (one contact here, each of several in
/// [`super::spatial_multi`]).
pub(crate) fn cone_events(mode: ConeMode) -> &'static [(SpatialEvent, Crossing)] {
    use Crossing::{Falling, Rising};
    match mode {
        ConeMode::Free => &[(SpatialEvent::ContactCloses, Rising)],
        ConeMode::Stick => &[
            (SpatialEvent::ContactOpens, Falling),
            (SpatialEvent::StickBreaks, Falling),
        ],
        ConeMode::Slide => &[
            (SpatialEvent::ContactOpens, Falling),
            (SpatialEvent::SlipStops, Falling),
        ],
    }
}

impl<Sys: ContactSystem<N, D, 1>, const N: usize, const D: usize> HybridSystem
    for SpatialContactProblem<'_, Sys, N, D>
{
    type Mode = ConeMode;
    type Event = SpatialEvent;

    fn dim(&self) -> usize {
        self.state_len()
    }
    /// The gap's absolute tolerance in units of κ and the normal velocity's in units of √κ
    /// (docs/tolerances.md), as the planar formulation's.
    fn absolute_tolerances(&self, atol: f64) -> Vec<f64> {
        self.compliance
            .contact_scaled_tolerances::<N>(atol, self.state_len(), |i| {
                let mut e = [0.0; N];
                e[i] = 1.0;
                let [fr] = self.system.contact_frames(&e, &[0.0; N]);
                fr.normal[i] != 0.0
            })
    }
    /// Far below the phases to resolve (1e-8 κ), and far below the two-tangent stop's lead
    /// time: approaching a stop the slide field is stiff at the rate μN/r (the direction of V_T
    /// relaxes toward g), so an explicit integrator steps at h ≲ 3r/(μN), and the stop is
    /// declared at r = |ṙ|τ_stop, where h ≲ 3τ_stop(1 − V̂·g/(μN)). A floor of 1e-8 κ alone
    /// (1e-10 at κ = 1e-2) stopped tsit45 just before the 3D stop of klarbring_3d for
    /// κ ≥ 1e-3 (docs/klarbring.md, "The large-κ failure at the 3D stop").
    fn min_step(&self) -> f64 {
        (1e-8 * self.compliance.kappa.min(1.0)).min(1e-3 * cone::STOP_LEAD_TIME)
    }
    fn initial_mode(&self, y: &[f64]) -> ConeMode {
        self.start(y).0
    }
    fn field<S: Real>(&self, mode: ConeMode, y: &[S], dy: &mut [S]) {
        self.vector_field(mode, y, dy)
    }
    fn watched(&self, mode: ConeMode) -> std::borrow::Cow<'_, [(SpatialEvent, Crossing)]> {
        std::borrow::Cow::Borrowed(cone_events(mode))
    }
    fn is_switching(&self, _event: SpatialEvent) -> bool {
        true
    }
    fn event_value<S: Real>(&self, _mode: ConeMode, event: SpatialEvent, y: &[S]) -> S {
        SpatialContactProblem::event_value(self, event, y)
    }
    fn transition(&self, _mode: ConeMode, event: SpatialEvent, y: &mut [f64]) -> ConeMode {
        self.next_mode(event, y)
    }
}

impl<Sys: ContactSystem<N, D, 1>, const N: usize, const D: usize> SpatialFormulation
    for SpatialContactProblem<'_, Sys, N, D>
{
    fn event_delay(&self, event: SpatialEvent, y: &[f64]) -> f64 {
        if event == SpatialEvent::SlipStops {
            let (_, speed, rate) = self.slip_stop(y);
            cone::stop_delay::<D>(speed, rate)
        } else {
            0.0
        }
    }
}

/// A located event of a run: its time (a two-tangent stop at its extrapolated instant), kind
/// and the state before its reset.
#[derive(Clone, Debug, PartialEq)]
pub struct LocatedEvent<E> {
    pub t: f64,
    pub event: E,
    pub y_before: Vec<f64>,
}

/// What a run of a spatial formulation (rigid or compliant) measured.
#[derive(Clone, Debug)]
pub struct SpatialRun<E> {
    pub trace: Trace<ConeMode, E>,
    /// (t, mode, y) at the requested output times.
    pub outputs: Vec<(f64, ConeMode, Vec<f64>)>,
    pub events: Vec<LocatedEvent<E>>,
}

/// How to run a spatial formulation.
#[derive(Clone, Debug)]
pub struct RunSettings {
    pub integrator: IntegratorKind,
    pub tolerances: Tolerances,
    pub t_end: f64,
    /// Increasing times in (0, t_end] at which the state is recorded exactly.
    pub output_times: Vec<f64>,
    pub max_steps: usize,
    pub max_events: usize,
}

/// Run `problem` from `y0` to `settings.t_end` (or to the first `stop` transition).
pub fn simulate_spatial<H: SpatialFormulation>(
    problem: &H,
    y0: &[f64],
    settings: &RunSettings,
    stop: Option<fn(ConeMode, ConeMode) -> bool>,
) -> Result<SpatialRun<H::Event>, SimError> {
    simulate_spatial_observed(problem, y0, settings, stop, &mut ())
}

/// The recording of a run and another observer beside it.
struct Beside<'a, M, E, O> {
    recording: Recording<M, E>,
    other: &'a mut O,
}

impl<H: HybridSystem, O: Observer<H>> Observer<H> for Beside<'_, H::Mode, H::Event, O> {
    fn state(&mut self, sys: &H, t: f64, mode: H::Mode, y: &[f64]) {
        self.other.state(sys, t, mode, y);
    }
    fn extremum(&mut self, sys: &H, t: f64, mode: H::Mode, event: H::Event, y: &[f64]) {
        self.other.extremum(sys, t, mode, event, y);
    }
    fn output(&mut self, sys: &H, t: f64, mode: H::Mode, y: &[f64]) {
        self.recording.output(sys, t, mode, y);
        self.other.output(sys, t, mode, y);
    }
    fn transition(
        &mut self,
        sys: &H,
        t: f64,
        from: H::Mode,
        event: H::Event,
        to: H::Mode,
        y: &[f64],
    ) {
        self.recording.transition(sys, t, from, event, to, y);
        self.other.transition(sys, t, from, event, to, y);
    }
}

/// [`simulate_spatial`] with `observer` watching the run besides its recording.
pub fn simulate_spatial_observed<H: SpatialFormulation, O: Observer<H>>(
    problem: &H,
    y0: &[f64],
    settings: &RunSettings,
    stop: Option<fn(ConeMode, ConeMode) -> bool>,
    observer: &mut O,
) -> Result<SpatialRun<H::Event>, SimError> {
    check_tolerances(&settings.tolerances)?;
    let control = RunControl {
        until: match stop {
            None => Until::Time(settings.t_end),
            Some(stop) => Until::Transition {
                t_max: settings.t_end,
                stop,
            },
        },
        output_times: settings.output_times.clone(),
        max_events: settings.max_events,
        max_steps: settings.max_steps,
        absolute_tolerances: None,
    };
    let mut both = Beside {
        recording: Recording::default(),
        other: observer,
    };
    let trace = run_hybrid(
        problem,
        settings.integrator,
        settings.tolerances,
        y0,
        &control,
        &mut both,
    )?;
    let recording = both.recording;
    let events = recording
        .transitions
        .into_iter()
        .map(|(t, event, y)| LocatedEvent {
            t: t + problem.event_delay(event, &y),
            event,
            y_before: y,
        })
        .collect();
    Ok(SpatialRun {
        trace,
        outputs: recording.outputs,
        events,
    })
}
