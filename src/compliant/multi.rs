//! Several planar contacts, compliant: K contact points (K known at run time, at most
//! [`MAX_CONTACTS`]), each with its own penalty normal law ([`super::normal`], never adhesive)
//! and exact Coulomb friction, as one [`HybridSystem`] (docs/multi_contact.md).
//!
//! ODE state (length 2N + 2K + 2, then τ and the load's work for a non-autonomous system):
//! `[q (N), q̇ (N), (∫F_n,k dt, ∫F_τ,k dt) for each contact k, ∫Σ_k F_τ,k u_k dt,
//! ∫Σ_k −c_d,k δ̇_k²/√κ_k dt]`.
//!
//! The mode is the tuple of the contacts' modes ([`Modes`]: free, stick, slide left, slide
//! right each). A closed contact k pushes with its closed-contact law F_n,k = δ_k/κ_k +
//! c_d,k δ̇_k/√κ_k; a sliding one rubs with F_τ,k = −μ_k sgn(u_k) F_n,k. The tangential forces
//! λ_S of the sticking contacts S hold every u̇_j = 0 (j ∈ S) together: with
//! g = f + F(t) + Σ_k F_n,k d_k + Σ_slide F_τ,k c_k and a₀ = M⁻¹g,
//!
//! ```text
//! W_SS λ_S = −(C_S a₀ + Ċ_S q̇),   W_SS = C_S M⁻¹ C_Sᵀ,   q̈ = a₀ + M⁻¹ C_Sᵀ λ_S,
//! ```
//!
//! the stick constraints coupled through the Delassus block W_SS of the sticking contacts
//! (for one contact, the single-contact formulation's −(a + Bλ_N)/A).
//!
//! Each contact watches the events of its own mode, as in the single-contact table of
//! [`super`]: its opening, its slip stopping, its stick force reaching either edge of its cone,
//! its closing; and its maximum penetration as an observer event. A transition changes the
//! mode of the contact whose event fired by the single-contact rules, then makes the tuple
//! consistent ([`MultiContactProblem::consistent`]): each sticking contact whose jointly solved
//! force now lies outside its cone slides, toward the side its cone cannot hold, until every
//! stick force is inside its cone. A sliding contact whose slip is at zero (within the run's
//! resolution) where another's slip stop is located stops with it. Other events of several
//! contacts at one instant are taken one at a time in the order the scan lists them: the first
//! is located, and the others, on their surfaces where the next phase starts, fire there by the
//! phase-start rule of [`crate::hybrid::locate`]. Sticking contacts with dependent tangential
//! rows (W_SS singular: their friction statically indeterminate, as a body resting on two
//! points of a flat floor) share their common force in proportion to μ_s F_n
//! (`weighted_split`); if their constraints contradict each other the phase is refused with
//! an error naming the contacts ([`HybridSystem::check_mode`]).

use super::cone::ConeMode;
use super::coulomb::{Coulomb, Mode};
use super::normal::{NormalCompliance, PreparedCompliance};
use super::record::ContactsSample;
use super::Event;
use crate::error::SimError;
use crate::hybrid::{
    check_tolerances, interned, run_hybrid, Crossing, HybridSystem, Named, Observer, RunControl,
    Trace,
};
use crate::integrate::{IntegratorKind, Tolerances};
use crate::model::{dot, ContactKinematics, Dual, MassFactor, Mechanics, Real, ValidityMargin};
use std::borrow::Cow;

/// The most contacts one system may have: the sticking contacts' Delassus block is solved on
/// the stack, and a mode is a fixed array.
pub const MAX_CONTACTS: usize = 8;

/// The relative pivot below which the sticking contacts' Delassus block W_SS is singular
/// whatever the compliance: its smallest pivot against its largest diagonal entry. Two contacts
/// on one rigid body whose tangents coincide (a box's bottom corners on the floor) give a pivot
/// of rounding size. See [`MultiContactProblem::singular_pivot`].
pub const SINGULAR_PIVOT: f64 = 1e-12;

/// A mechanical system with K planar frictional contacts, K known when the system is built.
pub trait PlanarContacts<const N: usize>: Mechanics<N> {
    /// K, at least 1 and at most [`MAX_CONTACTS`].
    fn contact_count(&self) -> usize;
    /// Contact `k`'s gap, directions and drifts at `(q, q̇)`.
    fn contact<S: Real>(&self, k: usize, q: &[S; N], qdot: &[S; N]) -> ContactKinematics<S, N>;
    /// Contact `k`'s name in messages and tables.
    fn contact_name(&self, k: usize) -> String {
        format!("contact {k}")
    }
    /// Contact `k`'s directions `(c, d)` when they do not depend on `q`, as
    /// [`crate::model::PlanarContactSystem::constant_contact_directions`] for one contact: its
    /// kinematic event functions are then linear in the state and the event scan can bound
    /// them over a step ([`HybridSystem::event_slopes`]). `None` (the default) when they vary
    /// or the system does not say.
    fn constant_contact_directions(&self, _k: usize) -> Option<([f64; N], [f64; N])> {
        None
    }
    /// Slopes `w` of contact `k`'s gap over all configurations: `|gap(q) − gap(q')| ≤
    /// Σ_i w_i |q_i − q'_i|` for every `q`, `q'` (docs/multi_contact.md, "A free contact in
    /// the event scan"). With them the scan skips the samples of a step in which the contact,
    /// free and undamped, cannot close. Default: `|d|` of constant directions, else `None`.
    fn gap_slopes(&self, k: usize) -> Option<[f64; N]> {
        self.constant_contact_directions(k)
            .map(|(_, d)| d.map(f64::abs))
    }
}

/// A single-contact system ([`crate::model::PlanarContactSystem`]) as one with K = 1: the
/// single-contact formulation's systems run here too, for comparisons.
pub struct OneContact<'a, T>(pub &'a T);

impl<T: crate::model::PlanarContactSystem<N>, const N: usize> Mechanics<N> for OneContact<'_, T> {
    fn coordinate_names(&self) -> [&'static str; N] {
        self.0.coordinate_names()
    }
    fn mass_matrix<S: Real>(&self, q: &[S; N]) -> [[S; N]; N] {
        self.0.mass_matrix(q)
    }
    fn generalized_force<S: Real>(&self, q: &[S; N], qdot: &[S; N]) -> [S; N] {
        self.0.generalized_force(q, qdot)
    }
    fn potential_energy<S: Real>(&self, q: &[S; N]) -> S {
        self.0.potential_energy(q)
    }
    fn is_autonomous(&self) -> bool {
        self.0.is_autonomous()
    }
    fn external_load<S: Real>(&self, t: S) -> [S; N] {
        self.0.external_load(t)
    }
    fn validity_margins(&self) -> &[ValidityMargin] {
        self.0.validity_margins()
    }
    fn validity_margin(&self, index: usize, q: &[f64; N], qdot: &[f64; N]) -> f64 {
        self.0.validity_margin(index, q, qdot)
    }
    fn is_dissipative(&self) -> bool {
        self.0.is_dissipative()
    }
    fn dissipation_power<S: Real>(&self, q: &[S; N], qdot: &[S; N]) -> S {
        self.0.dissipation_power(q, qdot)
    }
    fn mass_factor_and_force<S: Real>(
        &self,
        q: &[S; N],
        qdot: &[S; N],
    ) -> (MassFactor<S, N>, [S; N]) {
        self.0.mass_factor_and_force(q, qdot)
    }
}

impl<T: crate::model::PlanarContactSystem<N>, const N: usize> PlanarContacts<N>
    for OneContact<'_, T>
{
    fn contact_count(&self) -> usize {
        1
    }
    fn contact<S: Real>(&self, _k: usize, q: &[S; N], qdot: &[S; N]) -> ContactKinematics<S, N> {
        self.0.contact_kinematics(q, qdot)
    }
    fn constant_contact_directions(&self, _k: usize) -> Option<([f64; N], [f64; N])> {
        self.0.constant_contact_directions()
    }
}

/// A contact's mode, planar ([`Mode`]) or spatial ([`ConeMode`]): what a tuple of modes needs.
pub trait ContactMode: Copy + Default + Eq + std::hash::Hash + std::fmt::Debug + Named {
    /// Whether the contact is closed (not free). The default value is free.
    fn is_contact(&self) -> bool;
}

impl ContactMode for Mode {
    fn is_contact(&self) -> bool {
        Mode::is_contact(self)
    }
}

impl ContactMode for ConeMode {
    fn is_contact(&self) -> bool {
        ConeMode::is_contact(self)
    }
}

/// The modes of all contacts: the mode of the hybrid system (planar contacts' [`Mode`] by
/// default, spatial contacts' [`ConeMode`] in [`super::spatial_multi`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Modes<M = Mode> {
    modes: [M; MAX_CONTACTS],
    count: u8,
}

impl<M: ContactMode> Modes<M> {
    /// Every one of `count` contacts free.
    pub fn free(count: usize) -> Modes<M> {
        Modes {
            modes: [M::default(); MAX_CONTACTS],
            count: count as u8,
        }
    }

    /// Contact `k`'s mode.
    pub fn get(&self, k: usize) -> M {
        self.modes[k]
    }

    /// The same modes with contact `k`'s set to `mode`.
    pub fn with(mut self, k: usize, mode: M) -> Modes<M> {
        self.modes[k] = mode;
        self
    }

    /// The contacts' modes in order.
    pub fn iter(&self) -> impl Iterator<Item = M> + '_ {
        self.modes[..self.count as usize].iter().copied()
    }

    /// Whether any contact is closed.
    pub fn any_contact(&self) -> bool {
        self.iter().any(|m| m.is_contact())
    }
}

impl<M: ContactMode> Named for Modes<M> {
    /// The contacts' mode names joined by `,` (`stick,free`).
    fn name(&self) -> &'static str {
        let names: Vec<&str> = self.iter().map(|m| m.name()).collect();
        interned(&names.join(","))
    }
}

/// An event of one contact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ContactEvent {
    pub contact: usize,
    pub event: Event,
}

impl Named for ContactEvent {
    fn name(&self) -> &'static str {
        self.event.name()
    }
}

/// One contact's laws.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactLaw {
    pub compliance: NormalCompliance,
    pub friction: Coulomb,
}

/// A mechanical system with several compliant frictional contacts: everything the mode machine
/// needs.
pub struct MultiContactProblem<'a, Sys, const N: usize> {
    system: &'a Sys,
    laws: Vec<ContactLaw>,
    /// Each contact's normal law with its constants computed once (the right-hand side and the
    /// event functions evaluate it at every call).
    compliances: Vec<PreparedCompliance>,
    /// The law with the smallest compliance: the tolerances' scale.
    stiffest: NormalCompliance,
    /// What the run resolves of a slip velocity ([`Self::with_tolerances`]; 0: only an exactly
    /// zero slip is zero): a start within it sticks or slips by the cone, and a sliding contact
    /// within it stops together with one whose slip stop was located.
    slip_resolution: f64,
}

/// The contacts a system has at most for the right-hand side and the event functions to hold
/// its forces in arrays of this length ([`ContactForces`]' `C`) rather than [`MAX_CONTACTS`]:
/// they are built at every call, and a system of few contacts (the two-ended rod) would
/// otherwise zero arrays mostly unused (docs/performance.md, "Several contacts").
pub const FEW_CONTACTS: usize = 2;

/// One contact's kinematics at a state with its penetration δ = −gap and rate δ̇ = −dᵀq̇,
/// computed once for all of the contact's kinematic event functions there.
struct ContactMotion<S, const N: usize> {
    kinematics: ContactKinematics<S, N>,
    penetration: S,
    penetration_rate: S,
}

impl<S: Real, const N: usize> ContactMotion<S, N> {
    #[inline(always)]
    fn of(kinematics: ContactKinematics<S, N>, qdot: &[S; N]) -> Self {
        ContactMotion {
            penetration: -kinematics.gap,
            penetration_rate: -dot(&kinematics.normal, qdot),
            kinematics,
        }
    }
}

/// The sticking contacts of one state in order, room for `M`: their indices, tangential rows
/// (c_kᵀ), drifts (ċ_kᵀq̇) and normal forces.
struct StickRows<S, const N: usize, const M: usize> {
    index: [usize; M],
    rows: [[S; N]; M],
    drifts: [S; M],
    normals: [S; M],
    len: usize,
}

// The vector field writes out the contacts of a system with at most FEW_CONTACTS of them.
const _: () = assert!(FEW_CONTACTS == 2);

/// What the contacts do at one state in one mode, for at most `C` contacts.
#[derive(Clone, Copy, Debug)]
pub struct ContactForces<S, const N: usize, const C: usize = MAX_CONTACTS> {
    /// δ_k = −gap_k.
    pub penetration: [S; C],
    /// δ̇_k = −d_kᵀq̇.
    pub penetration_rate: [S; C],
    /// u_k = c_kᵀq̇.
    pub slip: [S; C],
    pub normal: [S; C],
    pub tangential: [S; C],
    /// q̈ under these forces.
    pub accel: [S; N],
    /// The sticking contacts' Delassus block's smallest pivot against its largest diagonal
    /// entry (1 without sticking contacts).
    pub pivot_ratio: f64,
    /// For a statically indeterminate stick, how far the split misses the stick constraints:
    /// max |W_SS λ_S − r_S| against max(|r_S|, |W_SS λ_S|) (0 otherwise).
    pub split_residual: f64,
}

/// The ODE state of several contacts, planar or spatial, compliant or rigid: `[q (N), q̇ (N),
/// (∫λ_N,k, ∫λ_T,k for each tangent) for each contact k, friction work, the contacts' own work,
/// then τ and the load's work for a non-autonomous system, then the dissipative body forces'
/// work for a dissipative one]`. The contacts' own work is the dashpots' (compliant, with the
/// kinetic energy a spatial contact's stop and seed impulses change) or the impacts' (rigid).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateLayout {
    pub coordinates: usize,
    pub contacts: usize,
    /// Tangential directions per contact: 1 for planar contacts, 2 for spatial ones.
    pub tangents: usize,
    pub autonomous: bool,
    pub dissipative: bool,
}

impl StateLayout {
    /// The layout of `system`'s state.
    pub fn of<Sys: PlanarContacts<N>, const N: usize>(system: &Sys) -> StateLayout {
        StateLayout {
            coordinates: N,
            contacts: system.contact_count(),
            tangents: 1,
            autonomous: system.is_autonomous(),
            dissipative: system.is_dissipative(),
        }
    }

    /// Length of the state.
    pub fn len(&self) -> usize {
        let base = self.contact_work() + 1;
        let timed = if self.autonomous { base } else { base + 2 };
        timed + usize::from(self.dissipative)
    }

    /// Never: a state holds at least q, q̇ and the work.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// ∫λ_N,k dt's index.
    pub fn impulse_normal(&self, k: usize) -> usize {
        2 * self.coordinates + (1 + self.tangents) * k
    }

    /// ∫λ_T,k dt's index along tangent `j` (0 for a planar contact).
    pub fn impulse_tangential(&self, k: usize, j: usize) -> usize {
        self.impulse_normal(k) + 1 + j
    }

    /// ∫Σ λ_T,k·u_k dt's index.
    pub fn friction_work(&self) -> usize {
        2 * self.coordinates + (1 + self.tangents) * self.contacts
    }

    /// The contacts' own work's index: the dashpots' ∫Σ −c_d δ̇²/√κ dt (with a spatial contact's
    /// stop and seed impulses' change of kinetic energy), or the impacts' Σ ΔT.
    pub fn contact_work(&self) -> usize {
        self.friction_work() + 1
    }

    /// τ's index (non-autonomous systems).
    pub fn time(&self) -> Option<usize> {
        (!self.autonomous).then(|| self.contact_work() + 1)
    }

    /// ∫F(τ)·q̇ dt's index (non-autonomous systems).
    pub fn load_work(&self) -> Option<usize> {
        self.time().map(|i| i + 1)
    }

    /// ∫(power of the dissipative body forces) dt's index (dissipative systems).
    pub fn viscous_work(&self) -> Option<usize> {
        self.dissipative.then(|| self.len() - 1)
    }

    /// The work done on the system up to `y` by friction, the contacts, the load and the
    /// dissipative body forces.
    pub fn work(&self, y: &[f64]) -> f64 {
        y[self.friction_work()]
            + y[self.contact_work()]
            + self.load_work().map_or(0.0, |i| y[i])
            + self.viscous_work().map_or(0.0, |i| y[i])
    }
}

/// Kinetic and potential energy T + V of `system` at `y = [q, q̇, …]`.
pub fn body_energy<Sys: Mechanics<N>, const N: usize>(system: &Sys, y: &[f64]) -> f64 {
    let q: [f64; N] = std::array::from_fn(|i| y[i]);
    let qdot: [f64; N] = std::array::from_fn(|i| y[N + i]);
    let m = system.mass_matrix(&q);
    let mut kinetic = 0.0;
    for i in 0..N {
        kinetic += 0.5 * qdot[i] * dot(&m[i], &qdot);
    }
    kinetic + system.potential_energy(&q)
}

/// Refuse a system whose contact count K is outside 1..=[`MAX_CONTACTS`] or that is given
/// `laws` laws for its K contacts, naming the quantity.
pub(crate) fn check_contact_laws<Sys: PlanarContacts<N>, const N: usize>(
    system: &Sys,
    laws: usize,
) -> Result<(), SimError> {
    check_contact_count(system.contact_count(), laws)
}

/// Refuse a contact count `k` outside 1..=[`MAX_CONTACTS`] or `laws` laws for `k` contacts.
pub(crate) fn check_contact_count(k: usize, laws: usize) -> Result<(), SimError> {
    if k == 0 || k > MAX_CONTACTS {
        return Err(SimError::invalid(
            "contacts",
            k,
            &format!("a system has 1 to {MAX_CONTACTS} contacts"),
        ));
    }
    if laws != k {
        return Err(SimError::invalid(
            "contact laws",
            laws,
            &format!("must be one per contact ({k})"),
        ));
    }
    Ok(())
}

impl<'a, Sys: PlanarContacts<N>, const N: usize> MultiContactProblem<'a, Sys, N> {
    /// The problem of `system` with one law per contact; an error names what does not fit.
    pub fn new(system: &'a Sys, laws: Vec<ContactLaw>) -> Result<Self, SimError> {
        check_contact_laws(system, laws.len())?;
        let stiffest = stiffest(laws.iter().map(|l| l.compliance)).unwrap_or(laws[0].compliance);
        Ok(MultiContactProblem {
            system,
            compliances: laws
                .iter()
                .map(|l| PreparedCompliance::new(l.compliance))
                .collect(),
            laws,
            stiffest,
            slip_resolution: 0.0,
        })
    }

    /// The problem as a run at `tolerances` sees it: a slip velocity within ten times what the
    /// integrator resolves of a velocity (10·atol) is zero at the start and where another
    /// contact's slip stop is located.
    pub fn with_tolerances(&self, tolerances: Tolerances) -> Self {
        MultiContactProblem {
            system: self.system,
            laws: self.laws.clone(),
            compliances: self.compliances.clone(),
            stiffest: self.stiffest,
            slip_resolution: 10.0 * tolerances.atol,
        }
    }

    /// The relative pivot of W_SS below which the sticking contacts' rows count as dependent:
    /// [`SINGULAR_PIVOT`], or the smallest κ when larger. Rows that the compliant contacts tilt
    /// apart by an angle O(κ) (a box resting on two corners tilts by its penetrations, so the
    /// corners' rows differ by 2w sin θ, and the pivot is O(θ²)) are parallel up to what the
    /// normal law resolves: their stick forces O(1/θ) are an artefact of the compliance, not a
    /// determinate split (docs/multi_contact.md, "Statically indeterminate stick").
    pub fn singular_pivot(&self) -> f64 {
        SINGULAR_PIVOT.max(self.stiffest.kappa)
    }

    /// K, as the system gives it (one law per contact, checked when the problem is built): a
    /// constant of a hand-written system such as the two-ended rod, so that the loops over the
    /// contacts in the vector field unroll and each contact's kinematics inline on their own.
    pub fn contact_count(&self) -> usize {
        self.system.contact_count()
    }

    /// The system.
    pub fn system(&self) -> &Sys {
        self.system
    }

    /// Contact `k`'s laws.
    pub fn law(&self, k: usize) -> ContactLaw {
        self.laws[k]
    }

    fn autonomous(&self) -> bool {
        self.system.is_autonomous()
    }

    /// The ODE state's layout.
    pub fn layout(&self) -> StateLayout {
        StateLayout::of::<Sys, N>(self.system)
    }

    /// Length of the ODE state.
    pub fn state_len(&self) -> usize {
        self.layout().len()
    }

    /// ∫F_n,k dt's index.
    pub fn impulse_normal_index(&self, k: usize) -> usize {
        self.layout().impulse_normal(k)
    }

    /// ∫F_τ,k dt's index.
    pub fn impulse_tangential_index(&self, k: usize) -> usize {
        self.layout().impulse_tangential(k, 0)
    }

    /// ∫Σ F_τ,k u_k dt's index.
    pub fn friction_work_index(&self) -> usize {
        self.layout().friction_work()
    }

    /// ∫Σ −c_d δ̇²/√κ dt's index.
    pub fn damping_work_index(&self) -> usize {
        self.layout().contact_work()
    }

    /// τ's index (non-autonomous systems).
    pub fn time_index(&self) -> Option<usize> {
        self.layout().time()
    }

    /// ∫F(τ)·q̇ dt's index (non-autonomous systems).
    pub fn load_work_index(&self) -> Option<usize> {
        self.layout().load_work()
    }

    /// ∫(power of the dissipative body forces) dt's index (dissipative systems).
    pub fn viscous_work_index(&self) -> Option<usize> {
        self.layout().viscous_work()
    }

    fn time<S: Real>(&self, y: &[S]) -> S {
        self.time_index().map_or(S::zero(), |i| y[i])
    }

    fn split<S: Real>(y: &[S]) -> ([S; N], [S; N]) {
        let mut q = [S::zero(); N];
        let mut qdot = [S::zero(); N];
        q.copy_from_slice(&y[..N]);
        qdot.copy_from_slice(&y[N..2 * N]);
        (q, qdot)
    }

    /// The forces of `modes` at state `y`, with every contact's penetration, its rate and slip.
    pub fn forces<S: Real>(&self, modes: Modes, y: &[S]) -> ContactForces<S, N> {
        let (q, qdot) = Self::split(y);
        self.forces_at(modes, self.time(y), &q, &qdot, true)
    }

    /// [`HybridSystem::event_values`] with the forces in arrays of `C` ≥ K contacts: the same
    /// numbers for every `C`.
    fn event_values_in<const C: usize>(
        &self,
        mode: Modes,
        events: &[(ContactEvent, Crossing)],
        y: &[f64],
        out: &mut [f64],
    ) {
        let (q, qdot) = Self::split(y);
        let mut forces: Option<ContactForces<f64, N, C>> = None;
        let mut kinematics: Option<(usize, ContactMotion<f64, N>)> = None;
        for (o, &(event, _)) in out.iter_mut().zip(events) {
            let k = event.contact;
            *o = match event.event {
                Event::StickBreaksRight | Event::StickBreaksLeft => {
                    let f = forces.get_or_insert_with(|| {
                        self.forces_at(mode, self.time(y), &q, &qdot, false)
                    });
                    self.stick_break_value(event, f)
                }
                _ => {
                    if kinematics.as_ref().is_none_or(|(j, _)| *j != k) {
                        let kin = self.system.contact(k, &q, &qdot);
                        kinematics = Some((k, ContactMotion::of(kin, &qdot)));
                    }
                    let (_, motion) = kinematics.as_ref().expect("just set");
                    self.kinematic_event_value(event, motion, &qdot)
                }
            };
        }
    }

    /// The forces of `modes` at global time `t` and `(q, q̇)`. A free contact exerts no force:
    /// its kinematics (penetration, rate, slip; zero in the result otherwise) are computed only
    /// when `free_kinematics` asks for them — the vector field does not, so that a contact that
    /// only watches for its closing costs its event function alone.
    ///
    /// Inlined into its callers, as the single contact's state is (docs/performance.md,
    /// "Several contacts"): the vector field reads a few of the result's numbers, and a call
    /// would return all of them through memory. Its arrays hold `C` ≥ K contacts.
    #[inline(always)]
    fn forces_at<S: Real, const C: usize>(
        &self,
        modes: Modes,
        t: S,
        q: &[S; N],
        qdot: &[S; N],
        free_kinematics: bool,
    ) -> ContactForces<S, N, C> {
        if self.at_most_one_sticks(modes) {
            self.forces_with_stick_rows::<S, 1, C>(modes, t, q, qdot, free_kinematics)
        } else {
            self.forces_with_several_sticking::<S, C>(modes, t, q, qdot, free_kinematics)
        }
    }

    /// Whether at most one contact of `modes` sticks: the stick block's arrays then hold one
    /// row (the phases of most runs), else [`MAX_CONTACTS`], out of line; the same arithmetic.
    #[inline(always)]
    fn at_most_one_sticks(&self, modes: Modes) -> bool {
        (0..self.contact_count())
            .filter(|&k| modes.get(k) == Mode::Stick)
            .nth(1)
            .is_none()
    }

    /// [`Self::forces_at`] of two or more sticking contacts: rare, and kept out of the vector
    /// field's code.
    #[inline(never)]
    fn forces_with_several_sticking<S: Real, const C: usize>(
        &self,
        modes: Modes,
        t: S,
        q: &[S; N],
        qdot: &[S; N],
        free_kinematics: bool,
    ) -> ContactForces<S, N, C> {
        self.forces_with_stick_rows::<S, MAX_CONTACTS, C>(modes, t, q, qdot, free_kinematics)
    }

    /// [`Self::forces_at`] with room for `M` sticking contacts.
    #[inline(always)]
    #[allow(clippy::needless_range_loop)]
    fn forces_with_stick_rows<S: Real, const M: usize, const C: usize>(
        &self,
        modes: Modes,
        t: S,
        q: &[S; N],
        qdot: &[S; N],
        free_kinematics: bool,
    ) -> ContactForces<S, N, C> {
        let count = self.contact_count();
        let zero = S::zero();
        let mut out = ContactForces {
            penetration: [zero; C],
            penetration_rate: [zero; C],
            slip: [zero; C],
            normal: [zero; C],
            tangential: [zero; C],
            accel: [zero; N],
            pivot_ratio: 1.0,
            split_residual: 0.0,
        };
        let (mass, mut g) = self.system.mass_factor_and_force(q, qdot);
        if !self.autonomous() {
            for (gi, li) in g.iter_mut().zip(self.system.external_load(t)) {
                *gi = *gi + li;
            }
        }
        let mut stick = StickRows {
            index: [0; M],
            rows: [[zero; N]; M],
            drifts: [zero; M],
            normals: [zero; M],
            len: 0,
        };
        if count <= FEW_CONTACTS {
            // Written out: with K a constant of the system (the two-ended rod), each contact's
            // kinematics inline with their index known, and its numbers stay in registers.
            let (out, g, stick) = (&mut out, &mut g, &mut stick);
            self.add_contact_forces(0, modes, q, qdot, free_kinematics, out, g, stick);
            if count == FEW_CONTACTS {
                self.add_contact_forces(1, modes, q, qdot, free_kinematics, out, g, stick);
            }
        } else {
            for k in 0..count {
                let (out, g, stick) = (&mut out, &mut g, &mut stick);
                self.add_contact_forces(k, modes, q, qdot, free_kinematics, out, g, stick);
            }
        }
        let free = mass.solve(&g);
        out.accel = free;
        let s = stick.len;
        if s == 0 {
            return out;
        }
        // The sticking contacts' joint tangential forces.
        let StickRows {
            index,
            rows,
            drifts,
            normals,
            ..
        } = stick;
        let (mobility, w) = delassus_block(&mass, &rows, s);
        let mut rhs = [zero; M];
        for a in 0..s {
            rhs[a] = -(dot(&rows[a], &free) + drifts[a]);
        }
        let lambda;
        (lambda, out.pivot_ratio, out.split_residual) =
            joint_stick_forces(w, rhs, s, self.singular_pivot(), |a| {
                normals[a].scale(self.laws[index[a]].friction.mu_s)
            });
        for a in 0..s {
            for i in 0..N {
                out.accel[i] = out.accel[i] + lambda[a] * mobility[a][i];
            }
        }
        // Each stick force into its contact's place, by constant indices: the arrays of the
        // vector field then stay in registers.
        for k in 0..C {
            for a in 0..s {
                if index[a] == k {
                    out.tangential[k] = lambda[a];
                }
            }
        }
        out
    }

    /// Contact `k`'s part of [`Self::forces_with_stick_rows`] in its mode of `modes`: its
    /// penetration, rate and slip into `out` (a free contact's only when `free_kinematics`), a
    /// closed one's forces into `out` and added to `g` = f + Σ forces, a sticking one's row
    /// into `stick`.
    #[inline(always)]
    #[allow(clippy::too_many_arguments, clippy::needless_range_loop)]
    fn add_contact_forces<S: Real, const M: usize, const C: usize>(
        &self,
        k: usize,
        modes: Modes,
        q: &[S; N],
        qdot: &[S; N],
        free_kinematics: bool,
        out: &mut ContactForces<S, N, C>,
        g: &mut [S; N],
        stick: &mut StickRows<S, N, M>,
    ) {
        let mode = modes.get(k);
        if !mode.is_contact() && !free_kinematics {
            return;
        }
        let kin = self.system.contact(k, q, qdot);
        out.penetration[k] = -kin.gap;
        out.penetration_rate[k] = -dot(&kin.normal, qdot);
        out.slip[k] = dot(&kin.tangential, qdot);
        if !mode.is_contact() {
            return;
        }
        let law = self.laws[k];
        let normal =
            self.compliances[k].closed_contact_force(out.penetration[k], out.penetration_rate[k]);
        if mode == Mode::Stick {
            let s = stick.len;
            (
                stick.index[s],
                stick.rows[s],
                stick.drifts[s],
                stick.normals[s],
            ) = (k, kin.tangential, kin.tangential_drift, normal);
            stick.len += 1;
        }
        out.normal[k] = normal;
        out.tangential[k] = law.friction.slip_force(mode, normal);
        for i in 0..N {
            g[i] = g[i] + normal * kin.normal[i] + out.tangential[k] * kin.tangential[i];
        }
    }

    /// The vector field of `modes`: `dy = F(y)`.
    pub fn vector_field<S: Real>(&self, modes: Modes, y: &[S], dy: &mut [S]) {
        if self.contact_count() <= FEW_CONTACTS {
            self.vector_field_in::<S, FEW_CONTACTS>(modes, y, dy)
        } else {
            self.vector_field_in::<S, MAX_CONTACTS>(modes, y, dy)
        }
    }

    /// [`Self::vector_field`] with the forces in arrays of `C` ≥ K contacts: the same numbers
    /// for every `C`. The forces of at most one sticking contact stay in registers (not
    /// returned through the memory of an out-of-line call for several).
    #[inline(always)]
    fn vector_field_in<S: Real, const C: usize>(&self, modes: Modes, y: &[S], dy: &mut [S]) {
        let (q, qdot) = Self::split(y);
        let t = self.time(y);
        if self.at_most_one_sticks(modes) {
            let f = self.forces_with_stick_rows::<S, 1, C>(modes, t, &q, &qdot, false);
            self.field_of_forces(modes, t, &q, &qdot, &f, dy)
        } else {
            let f = self.forces_with_several_sticking::<S, C>(modes, t, &q, &qdot, false);
            self.field_of_forces(modes, t, &q, &qdot, &f, dy)
        }
    }

    /// The vector field of `modes` at global time `t` and `(q, q̇)` from the forces `f` there.
    #[inline(always)]
    fn field_of_forces<S: Real, const C: usize>(
        &self,
        modes: Modes,
        t: S,
        q: &[S; N],
        qdot: &[S; N],
        f: &ContactForces<S, N, C>,
        dy: &mut [S],
    ) {
        let layout = self.layout();
        let dy = &mut dy[..layout.len()];
        dy[..N].copy_from_slice(qdot);
        dy[N..2 * N].copy_from_slice(&f.accel);
        let mut friction = S::zero();
        let mut damping = S::zero();
        for k in 0..layout.contacts {
            dy[layout.impulse_normal(k)] = f.normal[k];
            dy[layout.impulse_tangential(k, 0)] = f.tangential[k];
            friction = friction + f.tangential[k] * f.slip[k];
            if modes.get(k).is_contact() {
                damping = damping
                    + self.compliances[k].damping_power(f.penetration[k], f.penetration_rate[k]);
            }
        }
        dy[layout.friction_work()] = friction;
        dy[layout.contact_work()] = damping;
        if let (Some(ti), Some(wi)) = (layout.time(), layout.load_work()) {
            dy[ti] = S::cst(1.0);
            dy[wi] = dot(&self.system.external_load(t), qdot);
        }
        if let Some(i) = layout.viscous_work() {
            dy[i] = self.system.dissipation_power(q, qdot);
        }
    }

    /// The value of `event`'s function at `y` in `modes`.
    fn event_value_of<S: Real>(&self, modes: Modes, event: ContactEvent, y: &[S]) -> S {
        let (q, qdot) = Self::split(y);
        self.event_value_at(modes, event, self.time(y), &q, &qdot)
    }

    /// The value of `event`'s function at global time `t` and `(q, q̇)` in `modes` (the forces
    /// of a stick-break function in arrays of [`FEW_CONTACTS`] when they hold K).
    fn event_value_at<S: Real>(
        &self,
        modes: Modes,
        event: ContactEvent,
        t: S,
        q: &[S; N],
        qdot: &[S; N],
    ) -> S {
        let k = event.contact;
        match event.event {
            Event::StickBreaksRight | Event::StickBreaksLeft => {
                if self.contact_count() <= FEW_CONTACTS {
                    let f: ContactForces<S, N, FEW_CONTACTS> =
                        self.forces_at(modes, t, q, qdot, false);
                    self.stick_break_value(event, &f)
                } else {
                    let f: ContactForces<S, N> = self.forces_at(modes, t, q, qdot, false);
                    self.stick_break_value(event, &f)
                }
            }
            _ => {
                let motion = ContactMotion::of(self.system.contact(k, q, qdot), qdot);
                self.kinematic_event_value(event, &motion, qdot)
            }
        }
    }

    /// The value of the stick-break `event` under the forces `f`: its distance to the edge of
    /// the contact's cone.
    fn stick_break_value<S: Real, const C: usize>(
        &self,
        event: ContactEvent,
        f: &ContactForces<S, N, C>,
    ) -> S {
        let k = event.contact;
        let limit = f.normal[k].scale(self.laws[k].friction.mu_s);
        if event.event == Event::StickBreaksRight {
            f.tangential[k] + limit
        } else {
            limit - f.tangential[k]
        }
    }

    /// The value of `event`, one of the events that read its contact's kinematics alone, from
    /// its contact's `motion` at `q̇`. Inlined into the scan's loop over a contact's events.
    #[inline(always)]
    fn kinematic_event_value<S: Real>(
        &self,
        event: ContactEvent,
        motion: &ContactMotion<S, N>,
        qdot: &[S; N],
    ) -> S {
        let (penetration, rate) = (motion.penetration, motion.penetration_rate);
        let law = &self.compliances[event.contact];
        match event.event {
            Event::MaxPenetration => rate,
            Event::ContactOpens => law.release_function(penetration, rate),
            Event::ContactCloses => law.closing_function(penetration, rate),
            Event::SlipStops => dot(&motion.kinematics.tangential, qdot),
            Event::StickBreaksRight | Event::StickBreaksLeft | Event::PeakNormalForce => {
                unreachable!("{event:?} does not read the kinematics alone")
            }
        }
    }

    /// The events contact `k` watches in `mode` (its maximum penetration as an observer).
    fn contact_events(mode: Mode) -> &'static [(Event, Crossing)] {
        use Crossing::*;
        use Event::*;
        match mode {
            Mode::SlideLeft => &[
                (ContactOpens, Falling),
                (SlipStops, Rising),
                (MaxPenetration, Falling),
            ],
            Mode::SlideRight => &[
                (ContactOpens, Falling),
                (SlipStops, Falling),
                (MaxPenetration, Falling),
            ],
            Mode::Stick => &[
                (ContactOpens, Falling),
                (StickBreaksRight, Falling),
                (StickBreaksLeft, Falling),
                (MaxPenetration, Falling),
            ],
            Mode::Free => &[(ContactCloses, Rising)],
        }
    }

    /// Whether contact `k` is closed at the start `y` when the other contacts are in `modes`:
    /// δ > 0 with F_n > 0, or δ = 0 moving or accelerating into the surface.
    fn starts_closed(&self, modes: Modes, k: usize, y: &[f64]) -> bool {
        let f = self.forces(modes.with(k, Mode::SlideRight), y);
        let (pen, rate) = (f.penetration[k], f.penetration_rate[k]);
        if pen > 0.0 {
            return f.normal[k] > 0.0;
        }
        if pen < 0.0 {
            return false;
        }
        if rate != 0.0 {
            return rate > 0.0;
        }
        // Touching at rest: closed if the others' forces and the body forces press it in.
        let (q, qdot) = Self::split(y);
        let kin = self.system.contact(k, &q, &qdot);
        let free = self.forces(modes.with(k, Mode::Free), y);
        -(dot(&kin.normal, &free.accel) + kin.normal_drift) > 0.0
    }

    /// `modes` made consistent at `y`: each sticking contact whose jointly solved tangential
    /// force lies outside its cone slides toward the side its cone cannot hold, one at a time
    /// (the farthest outside first), until every stick force is inside its cone; a sticking
    /// contact whose normal force is not positive opens unless it moves into the surface. At
    /// most K rounds. A stick set whose
    /// constraints contradict each other is left as it is (its forces say nothing).
    pub fn consistent(&self, mut modes: Modes, y: &[f64]) -> Modes {
        for _ in 0..=self.contact_count() {
            let f = self.forces(modes, y);
            if stick_contradicts(f.pivot_ratio, f.split_residual, self.singular_pivot()) {
                // The stick constraints contradict each other: no cone test can be made of
                // their forces, and the phase is refused (check_mode) naming the contacts.
                return modes;
            }
            let mut worst: Option<(usize, f64, Mode)> = None;
            for k in (0..self.contact_count()).filter(|&k| modes.get(k) == Mode::Stick) {
                // A contact moving into the surface stays closed at F_n ≤ 0: at its closing
                // without a dashpot F_n = δ/κ is zero (to rounding), and opening it there
                // would let the body pass through, its closing event already spent.
                if f.normal[k] <= 0.0 && f.penetration_rate[k] <= 0.0 {
                    worst = Some((k, f64::INFINITY, Mode::Free));
                    break;
                }
                let cone = self.laws[k].friction.mu_s * f.normal[k];
                let excess = f.tangential[k].abs() - cone;
                let mode = self.laws[k]
                    .friction
                    .mode_at_zero_slip(f.normal[k], f.tangential[k]);
                if mode != Mode::Stick && worst.is_none_or(|w| excess > w.1) {
                    worst = Some((k, excess, mode));
                }
            }
            match worst {
                None => return modes,
                Some((k, _, mode)) => modes = modes.with(k, mode),
            }
        }
        modes
    }

    /// The modes a state starts in: each contact closed or free (`starts_closed`),
    /// a closed one sliding by the sign of its slip, or sticking where its slip is zero to
    /// within the run's resolution; then made consistent.
    pub fn initial_modes(&self, y: &[f64]) -> Modes {
        let count = self.contact_count();
        let mut modes = Modes::free(count);
        for k in 0..count {
            if self.starts_closed(modes, k, y) {
                modes = modes.with(k, Mode::Stick);
            }
        }
        let f = self.forces(modes, y);
        let closed = modes;
        for k in (0..count).filter(|&k| closed.get(k).is_contact()) {
            let slip = f.slip[k];
            // A slip within the run's resolution of zero is zero: its sign is rounding, and
            // the cone decides (as for one contact).
            if slip.abs() > self.slip_resolution {
                modes = modes.with(
                    k,
                    if slip < 0.0 {
                        Mode::SlideLeft
                    } else {
                        Mode::SlideRight
                    },
                );
            }
        }
        self.consistent(modes, y)
    }

    /// The modes after `event` at `y` in `modes`.
    pub fn next_modes(&self, modes: Modes, event: ContactEvent, y: &[f64]) -> Modes {
        let k = event.contact;
        let friction = self.laws[k].friction;
        let friction_event = matches!(
            event.event,
            Event::StickBreaksRight | Event::StickBreaksLeft | Event::SlipStops
        );
        // As for one contact: a friction event where the normal force has also reached zero
        // opens the contact.
        let open = |m: Modes| {
            let f = self.forces(m, y);
            f.normal[k] <= 0.0
        };
        let next = match event.event {
            _ if friction_event && open(modes.with(k, Mode::Stick)) => Mode::Free,
            Event::ContactOpens => Mode::Free,
            Event::StickBreaksRight => Mode::SlideRight,
            Event::StickBreaksLeft => Mode::SlideLeft,
            Event::SlipStops => {
                // Every sliding contact whose slip is at zero with k's stops with it: they try
                // to stick together, and the consistency below slides those whose joint stick
                // force leaves the cone.
                let f = self.forces(modes, y);
                let mut stopped = modes.with(k, Mode::Stick);
                for j in (0..self.contact_count()).filter(|&j| j != k) {
                    if modes.get(j).slip_sign() != 0 && f.slip[j].abs() <= self.slip_resolution {
                        stopped = stopped.with(j, Mode::Stick);
                    }
                }
                return self.consistent(stopped, y);
            }
            Event::ContactCloses => {
                let f = self.forces(modes.with(k, Mode::Stick), y);
                friction.contact_mode(f.slip[k], 0.0, f.normal[k], f.tangential[k])
            }
            Event::MaxPenetration | Event::PeakNormalForce => {
                unreachable!("observer events do not switch modes")
            }
        };
        self.consistent(modes.with(k, next), y)
    }

    /// Mechanical energy T + V + Σ (springs of the closed contacts) at `y`.
    pub fn mechanical_energy(&self, modes: Modes, y: &[f64]) -> f64 {
        let (q, qdot) = Self::split(y);
        let mut springs = 0.0;
        for k in (0..self.contact_count()).filter(|&k| modes.get(k).is_contact()) {
            let gap = self.system.contact(k, &q, &qdot).gap;
            springs += self.laws[k].compliance.elastic_energy(-gap);
        }
        body_energy(self.system, y) + springs
    }

    /// The work done on the system by friction, the dashpots, the load and the dissipative body
    /// forces up to `y`.
    pub fn work(&self, y: &[f64]) -> f64 {
        self.layout().work(y)
    }
}

/// The Delassus block of the first `n` generalized directions `rows` (contact normals or
/// tangents, J's rows) with M's factor `mass`: their mobilities M⁻¹ rowᵀ and W = J M⁻¹ Jᵀ.
#[allow(clippy::needless_range_loop)]
pub(crate) fn delassus_block<S: Real, const N: usize, const M: usize>(
    mass: &MassFactor<S, N>,
    rows: &[[S; N]; M],
    n: usize,
) -> ([[S; N]; M], [[S; M]; M]) {
    let zero = S::zero();
    let mut mobility = [[zero; N]; M];
    for a in 0..n {
        mobility[a] = mass.solve(&rows[a]);
    }
    let mut w = [[zero; M]; M];
    for a in 0..n {
        for b in 0..n {
            w[a][b] = dot(&rows[a], &mobility[b]);
        }
    }
    (mobility, w)
}

/// The stick forces λ of `n` sticking rows with Delassus block `w`: W λ = `rhs`, or, when W's
/// relative pivot falls below `singular` (dependent rows: a statically indeterminate stick),
/// the split of [`indeterminate_stick`] weighted by `weight(a)` = μ_s F_n of row a's contact;
/// also W's relative pivot and the split's relative miss (0 for a regular W).
pub(crate) fn joint_stick_forces<S: Real, const M: usize>(
    w: [[S; M]; M],
    rhs: [S; M],
    n: usize,
    singular: f64,
    weight: impl Fn(usize) -> S,
) -> ([S; M], f64, f64) {
    let (lambda, pivot_ratio) = solve_small(w, rhs, n);
    if pivot_ratio >= singular {
        return (lambda, pivot_ratio, 0.0);
    }
    let weight: [S; M] = std::array::from_fn(|a| if a < n { weight(a) } else { S::zero() });
    // The miss is judged against what the cones can hold, max_a W_aa μ_s,a F_n,a, as well as
    // against the accelerations asked: a body coming to rest asks for almost none, and its
    // corners' rows then differ by its rocking on the springs (O(θ̇²)), which is no
    // contradiction next to the friction that holds it.
    let capacity = (0..n)
        .map(|a| (w[a][a] * weight[a]).value().abs())
        .fold(0.0, f64::max);
    let (lambda, residual) = indeterminate_stick(&w, &rhs, &weight, n, singular, capacity);
    (lambda, pivot_ratio, residual)
}

/// The sticking contacts' forces checked for a contradiction ([`stick_contradicts`]): the
/// error of [`contradicting_stick_error`] naming `sticking()` when they contradict each other
/// ([`HybridSystem::check_mode`] of the formulations of several contacts).
pub(crate) fn check_stick(
    pivot_ratio: f64,
    split_residual: f64,
    singular: f64,
    sticking: impl FnOnce() -> Vec<String>,
) -> Result<(), String> {
    if !stick_contradicts(pivot_ratio, split_residual, singular) {
        return Ok(());
    }
    Err(contradicting_stick_error(
        &sticking(),
        pivot_ratio,
        split_residual,
        singular,
    ))
}

/// The law with the smallest compliance among `laws` (at least one): the tolerances' scale.
pub(crate) fn stiffest(laws: impl Iterator<Item = NormalCompliance>) -> Option<NormalCompliance> {
    laws.min_by(|a, b| a.kappa.total_cmp(&b.kappa))
}

/// Refuse a run of several contacts whose laws are not resolvable spring–dashpots (the
/// formulations' event slopes assume a release function linear in (δ, δ̇)).
pub(crate) fn check_spring_dashpots(
    laws: impl Iterator<Item = NormalCompliance>,
) -> Result<(), SimError> {
    for law in laws {
        super::normal::require_resolvable_kappa("kappa", law.kappa)?;
        super::normal::require_resolvable_damping("damping", law.damping)?;
        if !law.law.is_spring_dashpot() {
            return Err(SimError::invalid(
                "law",
                law.law.name(),
                "the multi-contact formulation runs the spring_dashpot law only (its event slopes assume a release function linear in (δ, δ̇))",
            ));
        }
    }
    Ok(())
}

/// The events each contact watches in its mode of `modes`, as events of the tuple: `events(m)`
/// the list of one contact in mode m, `event(k, e)` contact k's event e.
pub(crate) fn watched_per_contact<M: ContactMode, E: Copy + 'static, T>(
    modes: Modes<M>,
    events: impl Fn(M) -> &'static [(E, Crossing)],
    event: impl Fn(usize, E) -> T,
) -> Vec<(T, Crossing)> {
    let mut out = Vec::with_capacity(4 * modes.count as usize);
    for (contact, m) in modes.iter().enumerate() {
        out.extend(
            events(m)
                .iter()
                .map(|&(e, crossing)| (event(contact, e), crossing)),
        );
    }
    out
}

/// Whether a coordinate direction `i` moves any contact's normal (`moves(k, e_i)`: contact k's
/// normal component along the unit vector e_i is not zero): such coordinates' tolerances scale
/// with κ ([`NormalCompliance::contact_scaled_tolerances`]).
pub(crate) fn moves_a_normal<const N: usize>(
    i: usize,
    contacts: usize,
    moves: impl Fn(usize, &[f64; N]) -> bool,
) -> bool {
    let mut e = [0.0; N];
    e[i] = 1.0;
    (0..contacts).any(|k| moves(k, &e))
}

/// Whether a stick whose Delassus block has relative pivot `pivot_ratio` and whose split misses
/// its constraints by `split_residual` contradicts itself: dependent rows (pivot below
/// `singular`) asked for accelerations no split holds (miss above √`singular`).
pub(crate) fn stick_contradicts(pivot_ratio: f64, split_residual: f64, singular: f64) -> bool {
    pivot_ratio < singular && split_residual > singular.sqrt()
}

/// The error of the sticking contacts `names` whose constraints contradict each other
/// ([`stick_contradicts`]), naming the pivot and the miss.
pub(crate) fn contradicting_stick_error(
    names: &[String],
    pivot_ratio: f64,
    split_residual: f64,
    singular: f64,
) -> String {
    format!(
        "{} cannot all stick: their tangential directions are dependent (relative pivot {pivot_ratio:.1e} < {singular:e}) and the accelerations they must hold contradict each other (relative residual {split_residual:.1e} > {:.1e}); this formulation holds contacts whose stick constraints are consistent",
        names.join(" and "),
        singular.sqrt()
    )
}

/// Solve the `n`×`n` system `a x = b` (n ≤ [`MAX_CONTACTS`]) by Gaussian elimination with
/// partial pivoting on the values; also the smallest pivot against the largest diagonal entry
/// of `a` (0 when a pivot is exactly zero: then x is NaN).
#[allow(clippy::needless_range_loop)]
pub(crate) fn solve_small<S: Real, const M: usize>(
    mut a: [[S; M]; M],
    mut b: [S; M],
    n: usize,
) -> ([S; M], f64) {
    let scale = (0..n).map(|i| a[i][i].value().abs()).fold(0.0, f64::max);
    if n == 1 {
        // One sticking row: the elimination below reduces to this division, done without
        // its loops (the stick phase of every contact runs here at each right-hand side).
        let mut x = [S::zero(); M];
        x[0] = b[0] / a[0][0];
        return (x, if scale > 0.0 { 1.0 } else { 0.0 });
    }
    let mut smallest = f64::INFINITY;
    for col in 0..n {
        let pivot = (col..n)
            .max_by(|&i, &j| a[i][col].value().abs().total_cmp(&a[j][col].value().abs()))
            .unwrap_or(col);
        a.swap(col, pivot);
        b.swap(col, pivot);
        smallest = smallest.min(a[col][col].value().abs());
        for row in col + 1..n {
            let factor = a[row][col] / a[col][col];
            for c in col..n {
                a[row][c] = a[row][c] - factor * a[col][c];
            }
            b[row] = b[row] - factor * b[col];
        }
    }
    let mut x = [S::zero(); M];
    for row in (0..n).rev() {
        let mut s = b[row];
        for c in row + 1..n {
            s = s - a[row][c] * x[c];
        }
        x[row] = s / a[row][row];
    }
    let ratio = if scale > 0.0 { smallest / scale } else { 0.0 };
    (x, ratio)
}

/// Statically indeterminate: the split that loads every sticking contact to the same fraction
/// of its cone when their rows coincide ([`weighted_split`], docs/multi_contact.md), and how far
/// it misses the constraints (max |w λ − r| against max(|r|, |w λ|, `scale`)). Out of line: the right-hand
/// side of every run passes here, and it is taken only by a body resting on dependent contacts.
#[cold]
#[inline(never)]
pub(crate) fn indeterminate_stick<S: Real, const M: usize>(
    w: &[[S; M]; M],
    r: &[S; M],
    weight: &[S; M],
    n: usize,
    tolerance: f64,
    scale: f64,
) -> ([S; M], f64) {
    let lambda = weighted_split(w, r, weight, n, tolerance);
    let mut residual = 0.0f64;
    let mut size = scale;
    for a in 0..n {
        let mut held = S::zero();
        for b in 0..n {
            held = held + w[a][b] * lambda[b];
        }
        residual = residual.max((held - r[a]).value().abs());
        size = size.max(r[a].value().abs()).max(held.value().abs());
    }
    (lambda, if size > 0.0 { residual / size } else { 0.0 })
}

/// The stick forces of a statically indeterminate stick: among the λ with `w λ = r` (the
/// `n` sticking contacts' Delassus block, singular), the one that minimises Σ λ_a²/weight_a
/// (weight_a = μ_a F_n,a): λ = D w μ with (w D w) μ = r, D = diag(weight), solved by
/// elimination with complete pivoting whose pivots below `tolerance` of the largest diagonal
/// entry are taken as zero (their unknowns 0, their equations dropped). For rows that
/// coincide it splits their common force in proportion to μ_a F_n,a.
#[allow(clippy::needless_range_loop)]
fn weighted_split<S: Real, const M: usize>(
    w: &[[S; M]; M],
    r: &[S; M],
    weight: &[S; M],
    n: usize,
    tolerance: f64,
) -> [S; M] {
    let zero = S::zero();
    // A = w D w (w symmetric).
    let mut a = [[zero; M]; M];
    for i in 0..n {
        for j in 0..n {
            let mut sum = zero;
            for k in 0..n {
                sum = sum + w[i][k] * weight[k] * w[k][j];
            }
            a[i][j] = sum;
        }
    }
    let mut b = *r;
    let scale = (0..n).map(|i| a[i][i].value().abs()).fold(0.0, f64::max);
    // Complete pivoting: `columns[c]` is the unknown in column c.
    let mut columns: [usize; M] = std::array::from_fn(|c| c);
    let mut rank = 0;
    for step in 0..n {
        let mut best = (step, step, 0.0);
        for i in step..n {
            for j in step..n {
                let v = a[i][j].value().abs();
                if v > best.2 {
                    best = (i, j, v);
                }
            }
        }
        if best.2 <= tolerance * scale {
            break;
        }
        a.swap(step, best.0);
        b.swap(step, best.0);
        for row in a.iter_mut().take(n) {
            row.swap(step, best.1);
        }
        columns.swap(step, best.1);
        for row in step + 1..n {
            let factor = a[row][step] / a[step][step];
            for c in step..n {
                a[row][c] = a[row][c] - factor * a[step][c];
            }
            b[row] = b[row] - factor * b[step];
        }
        rank += 1;
    }
    let mut x = [zero; M];
    for row in (0..rank).rev() {
        let mut sum = b[row];
        for c in row + 1..rank {
            sum = sum - a[row][c] * x[columns[c]];
        }
        x[columns[row]] = sum / a[row][row];
    }
    // λ = D w μ.
    std::array::from_fn(|i| {
        if i >= n {
            return zero;
        }
        let mut sum = zero;
        for k in 0..n {
            sum = sum + w[i][k] * x[k];
        }
        weight[i] * sum
    })
}

impl<Sys: PlanarContacts<N>, const N: usize> HybridSystem for MultiContactProblem<'_, Sys, N> {
    type Mode = Modes;
    type Event = ContactEvent;

    fn dim(&self) -> usize {
        self.state_len()
    }

    /// As for one contact ([`super::ContactProblem`]): the coordinates any contact's normal
    /// moves in units of κ, their rates in units of √κ (the stiffest contact's).
    fn absolute_tolerances(&self, atol: f64) -> Vec<f64> {
        self.stiffest
            .contact_scaled_tolerances::<N>(atol, self.state_len(), |i| {
                moves_a_normal::<N>(i, self.contact_count(), |k, e| {
                    self.system.contact(k, e, &[0.0; N]).normal[i] != 0.0
                })
            })
    }

    fn min_step(&self) -> f64 {
        1e-8 * self.stiffest.kappa.min(1.0)
    }

    fn initial_mode(&self, y: &[f64]) -> Modes {
        self.initial_modes(y)
    }

    fn field<S: Real>(&self, mode: Modes, y: &[S], dy: &mut [S]) {
        self.vector_field(mode, y, dy)
    }

    fn watched(&self, mode: Modes) -> Cow<'_, [(ContactEvent, Crossing)]> {
        Cow::Owned(watched_per_contact(
            mode,
            Self::contact_events,
            |contact, event| ContactEvent { contact, event },
        ))
    }

    fn is_switching(&self, event: ContactEvent) -> bool {
        event.event.is_switching()
    }

    fn event_value<S: Real>(&self, mode: Modes, event: ContactEvent, y: &[S]) -> S {
        self.event_value_of(mode, event, y)
    }

    /// All watched functions at one state with the shared work done once: the stick-break
    /// functions of every sticking contact share one joint solve, and a contact's kinematic
    /// functions one evaluation of its kinematics (the list holds each contact's events
    /// together; the scan calls this at every sample).
    fn event_values(
        &self,
        mode: Modes,
        events: &[(ContactEvent, Crossing)],
        y: &[f64],
        out: &mut [f64],
    ) {
        if self.contact_count() <= FEW_CONTACTS {
            self.event_values_in::<FEW_CONTACTS>(mode, events, y, out)
        } else {
            self.event_values_in::<MAX_CONTACTS>(mode, events, y, out)
        }
    }

    /// Contact k's kinematic event functions, as for one contact
    /// ([`super::ContactProblem`]'s): with constant directions (c, d) they are linear in
    /// (q, q̇) — δ = −dᵀq + const, δ̇ = −dᵀq̇, u = cᵀq̇, the release function δ + c_d√κ δ̇ and
    /// the closing function min(δ, release) — and their slopes are the directions' weighted
    /// by the law. An undamped free contact's closing function is its penetration −gap
    /// (release = δ + 0·δ̇), bounded by the system's gap slopes however its directions turn
    /// (docs/multi_contact.md, "A free contact in the event scan"). The stick-break functions
    /// read the joint forces and have none.
    fn event_slopes(&self, _mode: Modes, event: ContactEvent, out: &mut [f64]) -> bool {
        let k = event.contact;
        let law = self.laws[k].compliance;
        if !law.law.is_spring_dashpot() {
            return false;
        }
        out.fill(0.0);
        if let Some((c, d)) = self.system.constant_contact_directions(k) {
            let dashpot = law.damping * law.kappa.sqrt();
            let (direction, on_q, on_qdot) = match event.event {
                Event::MaxPenetration => (d, 0.0, 1.0),
                Event::ContactOpens | Event::ContactCloses => (d, 1.0, dashpot),
                Event::SlipStops => (c, 0.0, 1.0),
                Event::StickBreaksRight | Event::StickBreaksLeft | Event::PeakNormalForce => {
                    return false;
                }
            };
            for (i, component) in direction.iter().enumerate() {
                out[i] = on_q * component.abs();
                out[N + i] = on_qdot * component.abs();
            }
            return true;
        }
        if event.event != Event::ContactCloses || law.damping != 0.0 {
            return false;
        }
        let Some(slopes) = self.system.gap_slopes(k) else {
            return false;
        };
        out[..N].copy_from_slice(&slopes);
        true
    }

    /// dg/dt along `flow`, as the default: `event`'s function in dual numbers `y + ε flow`,
    /// built here for the components the event functions read (τ of a non-autonomous system,
    /// q and q̇) rather than for the whole state. The same arithmetic on the same duals, so the
    /// same number bit for bit (`tests::event_rates_equal_the_generic_ones_bit_for_bit`).
    fn event_rate(&self, mode: Modes, event: ContactEvent, y: &[f64], flow: &[f64]) -> f64 {
        let dual = |i: usize| Dual::new(y[i], flow[i]);
        let t = self.time_index().map_or(Dual::zero(), dual);
        let q = std::array::from_fn(dual);
        let qdot = std::array::from_fn(|i| dual(N + i));
        self.event_value_at(mode, event, t, &q, &qdot).eps
    }

    fn transition(&self, mode: Modes, event: ContactEvent, y: &mut [f64]) -> Modes {
        self.next_modes(mode, event, y)
    }

    fn check_mode(&self, mode: Modes, y: &[f64]) -> Result<(), String> {
        let f = self.forces(mode, y);
        check_stick(
            f.pivot_ratio,
            f.split_residual,
            self.singular_pivot(),
            || {
                (0..self.contact_count())
                    .filter(|&k| mode.get(k) == Mode::Stick)
                    .map(|k| self.system.contact_name(k))
                    .collect()
            },
        )
    }

    fn domain(&self) -> &[ValidityMargin] {
        self.system.validity_margins()
    }

    fn domain_margin(&self, index: usize, y: &[f64]) -> f64 {
        let (q, qdot) = Self::split(y);
        self.system.validity_margin(index, &q, &qdot)
    }
}

/// What one run of several contacts gives.
#[derive(Clone, Debug)]
pub struct MultiRun {
    pub trace: Trace<Modes, ContactEvent>,
    /// (t, modes, y) at each output time reached.
    pub outputs: Vec<(f64, Modes, Vec<f64>)>,
    /// Each contact's ∫F_n dt and ∫F_τ dt.
    pub impulse_normal: Vec<f64>,
    pub impulse_tangential: Vec<f64>,
    /// Each contact's largest penetration (0 if it never closed).
    pub max_penetration: Vec<f64>,
    /// (E_end − E_start) − (work of friction, dashpots, load and drag) + the springs' energy
    /// released where contacts open (as for one contact: `RunRecord::energy`): zero up to the
    /// integration error.
    pub energy_balance_error: f64,
    /// The states at the start and end of each phase and of every accepted step, with the
    /// contacts' forces (a run of [`simulate_multi_sampled`] asked for them; else empty).
    pub samples: Vec<ContactsSample>,
}

/// The transition that ends an impact: from some contact closed to every contact open.
pub fn is_separation<M: ContactMode>(from: Modes<M>, to: Modes<M>) -> bool {
    from.any_contact() && !to.any_contact()
}

/// Records the outputs, each contact's largest penetration and, when asked, the states.
struct MultiObserver {
    outputs: Vec<(f64, Modes, Vec<f64>)>,
    max_penetration: Vec<f64>,
    samples: Option<Vec<ContactsSample>>,
    /// The springs' energy released where contacts open (a damped contact opens compressed).
    separation_loss: f64,
}

impl MultiObserver {
    fn penetrations<Sys: PlanarContacts<N>, const N: usize>(
        &mut self,
        sys: &MultiContactProblem<'_, Sys, N>,
        mode: Modes,
        y: &[f64],
    ) {
        let (q, qdot) = MultiContactProblem::<Sys, N>::split(y);
        for (k, m) in self.max_penetration.iter_mut().enumerate() {
            if mode.get(k).is_contact() {
                *m = m.max(-sys.system.contact(k, &q, &qdot).gap);
            }
        }
    }
}

impl<Sys: PlanarContacts<N>, const N: usize> Observer<MultiContactProblem<'_, Sys, N>>
    for MultiObserver
{
    fn state(&mut self, sys: &MultiContactProblem<'_, Sys, N>, t: f64, mode: Modes, y: &[f64]) {
        self.penetrations(sys, mode, y);
        if let Some(samples) = &mut self.samples {
            let f = sys.forces(mode, y);
            let count = sys.contact_count();
            samples.push(ContactsSample {
                t,
                mode: mode.name(),
                q: y[..N].to_vec(),
                qdot: y[N..2 * N].to_vec(),
                normal_force: f.normal[..count].to_vec(),
                tangential_force: f.tangential[..count].to_vec(),
            });
        }
    }
    fn extremum(
        &mut self,
        sys: &MultiContactProblem<'_, Sys, N>,
        _t: f64,
        mode: Modes,
        _event: ContactEvent,
        y: &[f64],
    ) {
        self.penetrations(sys, mode, y);
    }
    fn output(&mut self, _sys: &MultiContactProblem<'_, Sys, N>, t: f64, mode: Modes, y: &[f64]) {
        self.outputs.push((t, mode, y.to_vec()));
    }
    fn transition(
        &mut self,
        sys: &MultiContactProblem<'_, Sys, N>,
        _t: f64,
        from: Modes,
        _event: ContactEvent,
        to: Modes,
        y: &[f64],
    ) {
        // The same state in both: the difference is the springs of the contacts that open.
        self.separation_loss += sys.mechanical_energy(from, y) - sys.mechanical_energy(to, y);
    }
}

/// Run `problem` from `(q0, q̇0)` with `integrator` at `tolerances` under `control`.
pub fn simulate_multi<Sys: PlanarContacts<N>, const N: usize>(
    problem: &MultiContactProblem<'_, Sys, N>,
    q0: &[f64; N],
    qdot0: &[f64; N],
    integrator: IntegratorKind,
    tolerances: Tolerances,
    control: &RunControl<Modes>,
) -> Result<MultiRun, SimError> {
    simulate_multi_sampled(problem, q0, qdot0, integrator, tolerances, control, false)
}

/// [`simulate_multi`], with the states of [`MultiRun::samples`] when `sample`.
pub fn simulate_multi_sampled<Sys: PlanarContacts<N>, const N: usize>(
    problem: &MultiContactProblem<'_, Sys, N>,
    q0: &[f64; N],
    qdot0: &[f64; N],
    integrator: IntegratorKind,
    tolerances: Tolerances,
    control: &RunControl<Modes>,
    sample: bool,
) -> Result<MultiRun, SimError> {
    check_tolerances(&tolerances)?;
    check_spring_dashpots(problem.laws.iter().map(|l| l.compliance))?;
    let mut y0 = vec![0.0; problem.state_len()];
    y0[..N].copy_from_slice(q0);
    y0[N..2 * N].copy_from_slice(qdot0);
    let mut observer = MultiObserver {
        outputs: Vec::new(),
        max_penetration: vec![0.0; problem.contact_count()],
        samples: sample.then(Vec::new),
        separation_loss: 0.0,
    };
    let problem = &problem.with_tolerances(tolerances);
    let start_modes = problem.initial_modes(&y0);
    let trace = run_hybrid(problem, integrator, tolerances, &y0, control, &mut observer)?;
    let y = &trace.y_end;
    let energy_change =
        problem.mechanical_energy(trace.mode_end, y) - problem.mechanical_energy(start_modes, &y0);
    Ok(MultiRun {
        impulse_normal: (0..problem.contact_count())
            .map(|k| y[problem.impulse_normal_index(k)])
            .collect(),
        impulse_tangential: (0..problem.contact_count())
            .map(|k| y[problem.impulse_tangential_index(k)])
            .collect(),
        energy_balance_error: energy_change - problem.work(y) + observer.separation_loss,
        max_penetration: observer.max_penetration,
        outputs: observer.outputs,
        samples: observer.samples.unwrap_or_default(),
        trace,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bar of half-length 1 and unit mass on two end contacts, q = (x, y, θ): its ends at
    /// (x ∓ cos θ, y ∓ sin θ); the ends couple through the rotation, so that two sticking
    /// contacts make a full Delassus block.
    struct Bar;

    impl Mechanics<3> for Bar {
        fn coordinate_names(&self) -> [&'static str; 3] {
            ["x", "y", "theta"]
        }
        fn mass_matrix<S: Real>(&self, _q: &[S; 3]) -> [[S; 3]; 3] {
            let (o, z) = (S::cst(1.0), S::zero());
            [[o, z, z], [z, o, z], [z, z, S::cst(1.0 / 3.0)]]
        }
        fn generalized_force<S: Real>(&self, _q: &[S; 3], _qdot: &[S; 3]) -> [S; 3] {
            [S::cst(0.3), S::cst(-1.0), S::zero()]
        }
        fn potential_energy<S: Real>(&self, q: &[S; 3]) -> S {
            q[1] - q[0].scale(0.3)
        }
    }

    impl PlanarContacts<3> for Bar {
        fn contact_count(&self) -> usize {
            2
        }
        fn contact<S: Real>(&self, k: usize, q: &[S; 3], qdot: &[S; 3]) -> ContactKinematics<S, 3> {
            let s = if k == 0 { -1.0 } else { 1.0 };
            let (sin, cos) = q[2].sin_cos();
            let (o, z) = (S::cst(1.0), S::zero());
            let omega2 = qdot[2] * qdot[2];
            ContactKinematics {
                gap: q[1] + sin.scale(s),
                normal: [z, o, cos.scale(s)],
                tangential: [o, z, -sin.scale(s)],
                normal_drift: -(sin.scale(s) * omega2),
                tangential_drift: -(cos.scale(s) * omega2),
            }
        }
    }

    /// The forces held in arrays of [`FEW_CONTACTS`] give the vector field and the event
    /// values of arrays of [`MAX_CONTACTS`] bit for bit, in every pair of modes.
    #[test]
    fn few_contacts_arrays_change_no_number() {
        let law = ContactLaw {
            compliance: NormalCompliance::spring_dashpot(1e-6, 0.3),
            friction: Coulomb { mu: 0.4, mu_s: 0.5 },
        };
        let problem = MultiContactProblem::new(&Bar, vec![law, law]).unwrap();
        let modes = [Mode::Free, Mode::SlideLeft, Mode::SlideRight, Mode::Stick];
        let len = problem.layout().len();
        let states = [
            ([0.1, -2e-6, 0.01], [0.2, -0.3, 0.5]),
            ([-0.4, 1e-6, -3e-6], [-1.0, 0.01, -0.2]),
        ];
        let mut compared = 0;
        for (q, qdot) in states {
            let mut y = vec![0.0; len];
            y[..3].copy_from_slice(&q);
            y[3..6].copy_from_slice(&qdot);
            for a in modes {
                for b in modes {
                    let m = Modes::free(2).with(0, a).with(1, b);
                    let (mut few, mut max) = (vec![0.0; len], vec![0.0; len]);
                    problem.vector_field_in::<f64, FEW_CONTACTS>(m, &y, &mut few);
                    problem.vector_field_in::<f64, MAX_CONTACTS>(m, &y, &mut max);
                    assert_eq!(few.map_bits(), max.map_bits(), "{}", m.name());
                    let events = problem.watched(m);
                    let (mut few, mut max) = (vec![0.0; events.len()], vec![0.0; events.len()]);
                    problem.event_values_in::<FEW_CONTACTS>(m, &events, &y, &mut few);
                    problem.event_values_in::<MAX_CONTACTS>(m, &events, &y, &mut max);
                    assert_eq!(few.map_bits(), max.map_bits(), "{}", m.name());
                    compared += events.len();
                }
            }
        }
        assert!(compared > 0);
    }

    /// The event rates built on the duals of (q, q̇) alone equal the default's, built on the
    /// whole state's (`with_duals`), bit for bit, in every pair of modes.
    #[test]
    fn event_rates_equal_the_generic_ones_bit_for_bit() {
        let law = ContactLaw {
            compliance: NormalCompliance::spring_dashpot(1e-6, 0.3),
            friction: Coulomb { mu: 0.4, mu_s: 0.5 },
        };
        let problem = MultiContactProblem::new(&Bar, vec![law, law]).unwrap();
        let modes = [Mode::Free, Mode::SlideLeft, Mode::SlideRight, Mode::Stick];
        let len = problem.layout().len();
        let y: Vec<f64> = (0..len)
            .map(|i| [0.1, -2e-6, 0.01, 0.2, -0.3, 0.5][i % 6])
            .collect();
        let flow: Vec<f64> = (0..len).map(|i| 0.7 - 0.3 * i as f64).collect();
        let mut compared = 0;
        for a in modes {
            for b in modes {
                let m = Modes::free(2).with(0, a).with(1, b);
                for &(event, _) in problem.watched(m).iter() {
                    let generic = crate::hybrid::with_duals(&y, &flow, |yd| {
                        problem.event_value(m, event, yd).eps
                    });
                    let rate = problem.event_rate(m, event, &y, &flow);
                    assert_eq!(rate.to_bits(), generic.to_bits(), "{} {event:?}", m.name());
                    compared += 1;
                }
            }
        }
        assert!(compared > 0);
    }

    trait Bits {
        fn map_bits(&self) -> Vec<u64>;
    }

    impl Bits for Vec<f64> {
        fn map_bits(&self) -> Vec<u64> {
            self.iter().map(|x| x.to_bits()).collect()
        }
    }
}
