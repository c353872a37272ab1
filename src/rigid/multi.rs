//! Several planar contacts, rigid: the event-driven formulation of K unilateral frictional
//! contacts (K ≤ [`MAX_CONTACTS`]) with impacts as reset maps, as a [`HybridSystem`] on the mode
//! machine of [`crate::hybrid`] (docs/multi_contact.md, "The rigid reference").
//!
//! A system is the same [`PlanarContacts`] as for the compliant formulation
//! ([`crate::compliant::multi`]); each contact has Coulomb friction (μ, μ_s) and a Newton
//! restitution coefficient e, given or that of a compliant spring–dashpot's frictionless impact
//! ([`Restitution`]). The mode is the tuple of the contacts' modes ([`Modes`]: free,
//! stick, slide left, slide right). In the contact space (contact k's normal row at 2k, its
//! tangent at 2k + 1) the accelerations are a = b + W λ with the Delassus matrix
//! W = J M⁻¹ Jᵀ and b = J M⁻¹ g + J̇ q̇. In a mode the closed contacts hold a_N,k = 0, the
//! sticking ones also a_T,k = 0, and a sliding one rubs with λ_T,k = −μ_k s_k λ_N,k: one linear
//! system in the closed contacts' λ_N and the sticking ones' λ_T (`RigidMultiProblem::solve_mode`).
//!
//! Which mode holds is the linear complementarity problem over the contacts at the surface,
//! solved exactly by enumerating its modes (`RigidMultiProblem::choose`): every tuple whose
//! λ_N ≥ 0, whose stick forces lie in their cones, whose free contacts do not accelerate into
//! the surface and whose slides at zero slip accelerate their way is a solution. None, or
//! several with different accelerations (Painlevé's paradox; none also where friction wedges
//! the contacts), ends the run with an error naming the contacts; never a guessed mode. Impacts
//! are the same enumeration at the level of impulses with Newton's law per contact
//! (Glocker–Pfeiffer's impact LCP), over every contact at the surface at the impact, which
//! friction wedging the contacts leaves without a solution.
//!
//! ODE state: [`StateLayout`] (the contacts' own work is the impacts' Σ ΔT).

use crate::compliant::coulomb::{Coulomb, Mode};
use crate::compliant::multi::{
    body_energy, check_contact_laws, delassus_block, indeterminate_stick, solve_small, Modes,
    PlanarContacts, StateLayout, MAX_CONTACTS, SINGULAR_PIVOT,
};
use crate::compliant::normal::restitution_unit_normal_mass;
use crate::error::SimError;
use crate::hybrid::{
    check_tolerances, run_hybrid, Crossing, HybridSystem, Named, Recording, RunControl, Trace,
};
use crate::integrate::{IntegratorKind, Tolerances};
use crate::model::{dot, Real, ValidityMargin};
use std::borrow::Cow;
use std::sync::Mutex;

/// Rows of the contact space: contact k's normal at 2k, its tangent at 2k + 1.
const ROWS: usize = 2 * MAX_CONTACTS;

/// The sign conditions of the complementarity problem hold to this fraction of the problem's
/// scale (the forces' or accelerations' largest magnitude): at a located event the function
/// that fired is zero to the integration tolerance, not exactly.
const SIGN_TOLERANCE: f64 = 1e-9;

/// Two solutions of the complementarity problem are the same motion when their generalized
/// accelerations (or velocity jumps) differ by less than this fraction of the problem's scale.
const SAME_MOTION: f64 = 1e-7;

/// A solution whose sign conditions all hold by more than this fraction of their scales is
/// off every edge (no force at zero or on its cone, no free contact at zero acceleration).
const ROBUST: f64 = 1e-6;

/// One contact's laws: Coulomb friction and Newton's restitution.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RigidContactLaw {
    pub friction: Coulomb,
    pub restitution: Restitution,
}

/// Newton's restitution coefficient of a contact's impacts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Restitution {
    /// A given e ∈ [0, 1].
    Newton(f64),
    /// The rigid limit of the compliant spring–dashpot F_n = δ/κ + c_d δ̇/√κ with this c_d: a
    /// frictionless impact through it returns e(c_d √C) of the normal velocity, C = W_NN the
    /// contact's normal mobility at the impact ([`restitution_unit_normal_mass`]; 1 for an
    /// undamped spring, at every C). The reference that the compliant contact converges to
    /// when the contact impacts alone and without friction.
    SpringDashpot { damping: f64 },
}

impl Restitution {
    /// The coefficient at an impact where the contact's normal mobility is `normal_mobility`.
    fn at(self, normal_mobility: f64) -> Result<f64, String> {
        match self {
            Restitution::Newton(e) => Ok(e),
            Restitution::SpringDashpot { damping } => {
                restitution_unit_normal_mass(damping * normal_mobility.max(0.0).sqrt())
                    .map_err(|e| e.to_string())
            }
        }
    }
}

/// What happens at one contact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RigidEventKind {
    /// A free contact's gap reaches 0.
    Impact,
    /// A closed contact's normal force reaches 0.
    LiftOff,
    /// A stick force reaches the cone's edge −μ_s λ_N: the contact slides right.
    StickBreaksRight,
    /// A stick force reaches the cone's edge +μ_s λ_N: the contact slides left.
    StickBreaksLeft,
    /// A slip velocity reaches 0.
    SlipStops,
}

/// An event of one contact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RigidContactEvent {
    pub contact: usize,
    pub event: RigidEventKind,
}

impl Named for RigidContactEvent {
    /// The single-contact rigid formulation's names ([`super::RigidEvent`]).
    fn name(&self) -> &'static str {
        match self.event {
            RigidEventKind::Impact => "impact",
            RigidEventKind::LiftOff => "liftoff",
            RigidEventKind::StickBreaksRight | RigidEventKind::StickBreaksLeft => "slip",
            RigidEventKind::SlipStops => "stop",
        }
    }
}

/// The level of a complementarity problem: forces in sustained contact (a = b + Wλ, μ_s for
/// the stick cone) or impulses at an impact (v⁺ + e v⁻ = b + WP, μ for the stick cone: the
/// impact law has one coefficient).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Level {
    Force,
    Impulse,
}

/// The contact space at one state.
struct ContactSpace<S, const N: usize> {
    /// M⁻¹ g: the acceleration without contact forces.
    free: [S; N],
    /// M⁻¹ Jᵀ's columns.
    mobility: [[S; N]; ROWS],
    /// W = J M⁻¹ Jᵀ.
    w: [[S; ROWS]; ROWS],
    /// b = J M⁻¹ g + J̇ q̇: the contact accelerations without contact forces.
    accel: [S; ROWS],
    /// J q̇: the gap rates and slip velocities.
    velocity: [S; ROWS],
    gap: [S; MAX_CONTACTS],
}

/// The forces (or impulses) of one mode.
struct Solved<S> {
    /// λ in the contact space.
    lambda: [S; ROWS],
    /// How far the forces miss the mode's constraints against their size, when the mode's
    /// system is singular (0 otherwise; infinite when it is singular with sliding contacts,
    /// whose system is not symmetric).
    residual: f64,
    /// When singular: how far the normal forces move between two splits of the dependent
    /// rows, against their size (0 when only tangential rows are dependent).
    normal_spread: f64,
}

/// One solution of the complementarity problem.
struct Solution<const N: usize> {
    modes: Modes,
    lambda: [f64; ROWS],
    /// Σ λ_r M⁻¹J_rᵀ: what it does to the generalized acceleration (or velocity).
    motion: [f64; N],
    /// [`Solved::normal_spread`].
    normal_spread: f64,
    /// The smallest slack of its sign conditions against their scales.
    slack: f64,
}

/// A mode chosen by the complementarity problem, with its forces or impulses.
struct Choice {
    modes: Modes,
    lambda: [f64; ROWS],
}

/// A planar mechanical system with several rigid frictional contacts: everything the mode
/// machine needs.
pub struct RigidMultiProblem<'a, Sys, const N: usize> {
    system: &'a Sys,
    laws: Vec<RigidContactLaw>,
    /// What the run resolves of a gap, gap rate or slip velocity ([`Self::with_tolerances`]):
    /// within it, zero.
    resolution: f64,
    /// Why the last transition found no mode (read by [`HybridSystem::check_mode`], which ends
    /// the run with it).
    failure: Mutex<Option<String>>,
}

impl<'a, Sys: PlanarContacts<N>, const N: usize> RigidMultiProblem<'a, Sys, N> {
    /// The problem of `system` with one law per contact; an error names what does not fit.
    pub fn new(system: &'a Sys, laws: Vec<RigidContactLaw>) -> Result<Self, SimError> {
        check_contact_laws(system, laws.len())?;
        for law in &laws {
            crate::error::require_non_negative("mu", law.friction.mu)?;
            crate::error::require_non_negative("mu_s", law.friction.mu_s)?;
            if law.friction.mu_s < law.friction.mu {
                return Err(SimError::invalid(
                    "mu_s",
                    law.friction.mu_s,
                    "must be at least mu",
                ));
            }
            match law.restitution {
                Restitution::Newton(e) if !(0.0..=1.0).contains(&e) => {
                    return Err(SimError::invalid("restitution", e, "must lie in [0, 1]"));
                }
                Restitution::SpringDashpot { damping } => {
                    crate::error::require_non_negative("damping", damping)?;
                }
                Restitution::Newton(_) => {}
            }
        }
        Ok(RigidMultiProblem {
            system,
            laws,
            resolution: 0.0,
            failure: Mutex::new(None),
        })
    }

    /// The problem as a run at `tolerances` sees it: a gap, gap rate or slip velocity within
    /// ten times the absolute tolerance is zero (a contact at the surface, at rest, not
    /// slipping).
    pub fn with_tolerances(&self, tolerances: Tolerances) -> Self {
        RigidMultiProblem {
            system: self.system,
            laws: self.laws.clone(),
            resolution: 10.0 * tolerances.atol,
            failure: Mutex::new(None),
        }
    }

    /// K.
    pub fn contact_count(&self) -> usize {
        self.laws.len()
    }

    /// The ODE state's layout.
    pub fn layout(&self) -> StateLayout {
        StateLayout::of::<Sys, N>(self.system)
    }

    fn split<S: Real>(&self, y: &[S]) -> (S, [S; N], [S; N]) {
        let t = self.layout().time().map_or(S::zero(), |i| y[i]);
        (
            t,
            std::array::from_fn(|i| y[i]),
            std::array::from_fn(|i| y[N + i]),
        )
    }

    /// The contact space at `(t, q, q̇)`.
    fn space<S: Real>(&self, t: S, q: &[S; N], qdot: &[S; N]) -> ContactSpace<S, N> {
        let zero = S::zero();
        let rows_used = 2 * self.contact_count();
        let (mass, mut g) = self.system.mass_factor_and_force(q, qdot);
        if !self.system.is_autonomous() {
            for (gi, li) in g.iter_mut().zip(self.system.external_load(t)) {
                *gi = *gi + li;
            }
        }
        let free = mass.solve(&g);
        let mut rows = [[zero; N]; ROWS];
        let mut drift = [zero; ROWS];
        let mut gap = [zero; MAX_CONTACTS];
        for k in 0..self.contact_count() {
            let kin = self.system.contact(k, q, qdot);
            rows[2 * k] = kin.normal;
            rows[2 * k + 1] = kin.tangential;
            drift[2 * k] = kin.normal_drift;
            drift[2 * k + 1] = kin.tangential_drift;
            gap[k] = kin.gap;
        }
        let (mobility, w) = delassus_block(&mass, &rows, rows_used);
        let mut accel = [zero; ROWS];
        let mut velocity = [zero; ROWS];
        for r in 0..rows_used {
            accel[r] = dot(&rows[r], &free) + drift[r];
            velocity[r] = dot(&rows[r], qdot);
        }
        ContactSpace {
            free,
            mobility,
            w,
            accel,
            velocity,
            gap,
        }
    }

    /// The μ of contact `k`'s sliding force and of its stick cone at `level`.
    fn coefficients(&self, k: usize, level: Level) -> (f64, f64) {
        let f = self.laws[k].friction;
        match level {
            Level::Force => (f.mu, f.mu_s),
            Level::Impulse => (f.mu, f.mu),
        }
    }

    /// The forces of `modes` with the free contact-space accelerations `b` (or, at an impact,
    /// the impulses with b = ((1 + e) v_N⁻, v_T⁻)): the closed contacts' b_N + (Wλ)_N = 0, the
    /// sticking ones' b_T + (Wλ)_T = 0, each sliding one's λ_T = −μ s λ_N substituted into its
    /// normal column. When the system is singular and every closed contact sticks (W's block,
    /// symmetric), the split of `compliant::multi`'s statically indeterminate stick: the
    /// solution that minimises Σ λ_T,k²/(μ_s,k λ_N,k) (docs/multi_contact.md).
    #[allow(clippy::needless_range_loop)]
    fn solve_mode<S: Real>(
        &self,
        cs: &ContactSpace<S, N>,
        modes: Modes,
        b: &[S; ROWS],
        level: Level,
    ) -> Solved<S> {
        let zero = S::zero();
        let mut unknown = [0usize; ROWS];
        let mut n = 0;
        let mut sliding = false;
        for k in (0..self.contact_count()).filter(|&k| modes.get(k).is_contact()) {
            unknown[n] = 2 * k;
            n += 1;
            if modes.get(k) == Mode::Stick {
                unknown[n] = 2 * k + 1;
                n += 1;
            } else {
                sliding = true;
            }
        }
        let mut out = Solved {
            lambda: [zero; ROWS],
            residual: 0.0,
            normal_spread: 0.0,
        };
        if n == 0 {
            return out;
        }
        // The sliding force's share of a normal unknown's column: −μ s.
        let slide = |c: usize| {
            let k = c / 2;
            -self.coefficients(k, level).0 * f64::from(modes.get(k).slip_sign())
        };
        let mut a = [[zero; ROWS]; ROWS];
        let mut rhs = [zero; ROWS];
        for i in 0..n {
            let r = unknown[i];
            for j in 0..n {
                let c = unknown[j];
                a[i][j] = if c % 2 == 0 {
                    cs.w[r][c] + cs.w[r][c + 1].scale(slide(c))
                } else {
                    cs.w[r][c]
                };
            }
            rhs[i] = -b[r];
        }
        let (mut x, pivot_ratio) = solve_small(a, rhs, n);
        if pivot_ratio < SINGULAR_PIVOT {
            if sliding {
                out.residual = f64::INFINITY;
            } else {
                // Two passes: the normal forces of the minimum-norm solution, then the
                // tangential split weighted by μ_s λ_N. Dependent tangential rows leave the
                // normal forces where they were; dependent normal rows move them.
                let (first, _) =
                    indeterminate_stick(&a, &rhs, &[S::cst(1.0); ROWS], n, SINGULAR_PIVOT, 0.0);
                let weight: [S; ROWS] = std::array::from_fn(|j| {
                    if j >= n || unknown[j] % 2 == 0 {
                        S::cst(1.0)
                    } else {
                        first[j - 1].scale(self.coefficients(unknown[j] / 2, level).1)
                    }
                });
                let (second, residual) =
                    indeterminate_stick(&a, &rhs, &weight, n, SINGULAR_PIVOT, 0.0);
                let normals = (0..n).filter(|&j| unknown[j] % 2 == 0);
                let size = normals
                    .clone()
                    .map(|j| first[j].value().abs())
                    .fold(0.0, f64::max);
                let moved = normals
                    .map(|j| (second[j] - first[j]).value().abs())
                    .fold(0.0, f64::max);
                out.normal_spread = if size > 0.0 { moved / size } else { moved };
                out.residual = residual;
                x = second;
            }
        }
        for j in 0..n {
            let c = unknown[j];
            out.lambda[c] = x[j];
            if c % 2 == 0 && modes.get(c / 2) != Mode::Stick {
                out.lambda[c + 1] = x[j].scale(slide(c));
            }
        }
        out
    }

    /// Σ_r λ_r M⁻¹J_rᵀ: the generalized acceleration (or velocity jump) the contacts give.
    #[allow(clippy::needless_range_loop)]
    fn generalized<S: Real>(&self, cs: &ContactSpace<S, N>, lambda: &[S; ROWS]) -> [S; N] {
        let mut out = [S::zero(); N];
        for r in 0..2 * self.contact_count() {
            for (o, m) in out.iter_mut().zip(&cs.mobility[r]) {
                *o = *o + lambda[r] * *m;
            }
        }
        out
    }

    /// The forces of `modes` at `y`, in the contact space.
    pub fn forces(&self, modes: Modes, y: &[f64]) -> Vec<f64> {
        let (t, q, qdot) = self.split(y);
        let cs = self.space(t, &q, &qdot);
        let solved = self.solve_mode(&cs, modes, &cs.accel, Level::Force);
        solved.lambda[..2 * self.contact_count()].to_vec()
    }

    /// The vector field of `modes`.
    pub fn vector_field<S: Real>(&self, modes: Modes, y: &[S], dy: &mut [S]) {
        let (t, q, qdot) = self.split(y);
        let layout = self.layout();
        let cs = self.space(t, &q, &qdot);
        let solved = self.solve_mode(&cs, modes, &cs.accel, Level::Force);
        let push = self.generalized(&cs, &solved.lambda);
        dy[..N].copy_from_slice(&qdot);
        for i in 0..N {
            dy[N + i] = cs.free[i] + push[i];
        }
        let mut friction = S::zero();
        for k in 0..self.contact_count() {
            dy[layout.impulse_normal(k)] = solved.lambda[2 * k];
            dy[layout.impulse_tangential(k, 0)] = solved.lambda[2 * k + 1];
            friction = friction + solved.lambda[2 * k + 1] * cs.velocity[2 * k + 1];
        }
        dy[layout.friction_work()] = friction;
        dy[layout.contact_work()] = S::zero();
        if let (Some(ti), Some(wi)) = (layout.time(), layout.load_work()) {
            dy[ti] = S::cst(1.0);
            dy[wi] = dot(&self.system.external_load(t), &qdot);
        }
        if let Some(i) = layout.viscous_work() {
            dy[i] = self.system.dissipation_power(&q, &qdot);
        }
    }

    /// The value of a force event's function with the forces `lambda`.
    fn force_event<S: Real>(&self, event: RigidContactEvent, lambda: &[S; ROWS]) -> S {
        let k = event.contact;
        let (normal, tangential) = (lambda[2 * k], lambda[2 * k + 1]);
        let limit = normal.scale(self.laws[k].friction.mu_s);
        match event.event {
            RigidEventKind::LiftOff => normal,
            RigidEventKind::StickBreaksRight => tangential + limit,
            RigidEventKind::StickBreaksLeft => limit - tangential,
            RigidEventKind::Impact | RigidEventKind::SlipStops => {
                unreachable!("kinematic events")
            }
        }
    }

    /// The value of `event`'s function in `modes` at `y`.
    fn event_value_of<S: Real>(&self, modes: Modes, event: RigidContactEvent, y: &[S]) -> S {
        let k = event.contact;
        let (t, q, qdot) = self.split(y);
        match event.event {
            RigidEventKind::Impact => self.system.contact(k, &q, &qdot).gap,
            RigidEventKind::SlipStops => {
                let kin = self.system.contact(k, &q, &qdot);
                dot(&kin.tangential, &qdot).scale(f64::from(modes.get(k).slip_sign()))
            }
            _ => {
                let cs = self.space(t, &q, &qdot);
                let solved = self.solve_mode(&cs, modes, &cs.accel, Level::Force);
                self.force_event(event, &solved.lambda)
            }
        }
    }

    /// The events contact `contact` watches in `mode`.
    fn contact_events(
        contact: usize,
        mode: Mode,
    ) -> impl Iterator<Item = (RigidContactEvent, Crossing)> {
        use RigidEventKind::*;
        let kinds: &[RigidEventKind] = match mode {
            Mode::Free => &[Impact],
            Mode::Stick => &[LiftOff, StickBreaksRight, StickBreaksLeft],
            Mode::SlideLeft | Mode::SlideRight => &[LiftOff, SlipStops],
        };
        kinds
            .iter()
            .map(move |&event| (RigidContactEvent { contact, event }, Crossing::Falling))
    }

    /// The mode of the complementarity problem with the free contact-space values `b` over the
    /// contacts `candidates` (the others free); `fixed[k]` the sign of a slip that is not zero
    /// (its contact can only slide that way or leave). The options of each candidate are
    /// enumerated (free, slide left, slide right, stick; free or slide its way when its slip
    /// is not zero) and each tuple's forces solved ([`Self::solve_mode`]); a tuple is a
    /// solution when
    ///
    /// - every closed contact pushes: λ_N,k ≥ 0;
    /// - every sticking contact's force lies in its cone: μ_s λ_N,k − |λ_T,k| ≥ 0;
    /// - every free candidate does not move into the surface: (b + Wλ)_N,k ≥ 0;
    /// - every contact sliding from zero slip accelerates its way: s_k (b + Wλ)_T,k ≥ 0;
    ///
    /// each to [`SIGN_TOLERANCE`] of the problem's scale. Solutions whose generalized
    /// accelerations (impulses: velocity jumps) agree are one motion: the one `proposed`
    /// (the mode the event's single-contact rule gives) if it is among them, else the one with
    /// the fewest closed, then sticking, contacts. No solution, or solutions with different
    /// motions, or one whose normal forces the dynamics leaves undetermined: an error naming
    /// the contacts and the quantity.
    #[allow(clippy::needless_range_loop)]
    fn choose(
        &self,
        cs: &ContactSpace<f64, N>,
        b: &[f64; ROWS],
        candidates: &[bool; MAX_CONTACTS],
        fixed: &[i8; MAX_CONTACTS],
        level: Level,
        proposed: Option<Modes>,
    ) -> Result<Choice, String> {
        let count = self.contact_count();
        let options: Vec<Vec<Mode>> = (0..count)
            .map(|k| match (candidates[k], fixed[k]) {
                (false, _) => vec![Mode::Free],
                (true, 0) => vec![Mode::Free, Mode::SlideLeft, Mode::SlideRight, Mode::Stick],
                (true, s) if s < 0 => vec![Mode::Free, Mode::SlideLeft],
                (true, _) => vec![Mode::Free, Mode::SlideRight],
            })
            .collect();
        let rows = 2 * count;
        let b_size = b[..rows].iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let w_size = (0..rows).fold(0.0f64, |m, r| m.max(cs.w[r][r].abs()));
        let mobility_size = cs.mobility[..rows]
            .iter()
            .flatten()
            .fold(0.0f64, |m, v| m.max(v.abs()));
        let total: usize = options.iter().map(Vec::len).product();
        let mut solutions: Vec<Solution<N>> = Vec::new();
        let mut contradicting = false;
        for index in 0..total {
            let mut modes = Modes::free(count);
            let mut rest = index;
            for (k, o) in options.iter().enumerate() {
                modes = modes.with(k, o[rest % o.len()]);
                rest /= o.len();
            }
            let solved = self.solve_mode(cs, modes, b, level);
            if solved.residual.is_nan() || solved.residual > SINGULAR_PIVOT.sqrt() {
                contradicting = true;
                continue;
            }
            let lambda = solved.lambda;
            let l_size = lambda[..rows].iter().fold(0.0f64, |m, v| m.max(v.abs()));
            // The scales of a force and of an acceleration (at an impact: an impulse and a
            // velocity) in this problem.
            let force_scale = l_size.max(b_size / w_size.max(f64::MIN_POSITIVE));
            let accel_scale = b_size.max(l_size * w_size);
            let mut value = *b;
            for r in 0..rows {
                for c in 0..rows {
                    value[r] += cs.w[r][c] * lambda[c];
                }
            }
            // The smallest slack of the solution's sign conditions, each against its scale.
            let ratio = |x: f64, scale: f64| if scale > 0.0 { x / scale } else { x.signum() };
            let slack = (0..count)
                .filter(|&k| candidates[k])
                .map(|k| {
                    let (normal, tangential) = (lambda[2 * k], lambda[2 * k + 1]);
                    match modes.get(k) {
                        Mode::Free => ratio(value[2 * k], accel_scale),
                        Mode::Stick => {
                            let cone = self.coefficients(k, level).1 * normal - tangential.abs();
                            ratio(normal, force_scale).min(ratio(cone, force_scale))
                        }
                        _ if fixed[k] != 0 => ratio(normal, force_scale),
                        m => ratio(normal, force_scale).min(ratio(
                            f64::from(m.slip_sign()) * value[2 * k + 1],
                            accel_scale,
                        )),
                    }
                })
                .fold(f64::INFINITY, f64::min);
            // NaN (a singular mode's rounding) is no solution.
            if slack >= -SIGN_TOLERANCE {
                let motion = self.generalized(cs, &lambda);
                solutions.push(Solution {
                    modes,
                    lambda,
                    motion,
                    normal_spread: solved.normal_spread,
                    slack,
                });
            }
        }
        let names = |m: &[bool; MAX_CONTACTS]| {
            (0..count)
                .filter(|&k| m[k])
                .map(|k| self.system.contact_name(k))
                .collect::<Vec<_>>()
                .join(" and ")
        };
        // What the problem is about, what a free contact must not do, and the situation that
        // leaves it without a solution or with several: Painlevé's paradoxes are the
        // acceleration problem's; at an impact, friction wedging the contacts
        // (systems/v_groove.toml at μ ≥ 1) leaves Newton's law without a solution.
        let (what, free, none, several) = match level {
            Level::Force => (
                "forces",
                "no acceleration into the surface",
                "Painlevé's paradox or a frictional wedge",
                "Painlevé's paradox",
            ),
            Level::Impulse => (
                "impact impulses",
                "no rebound slower than Newton's law",
                "a frictional wedge or jam at the impact",
                "friction at the impact",
            ),
        };
        if solutions.is_empty() {
            return Err(format!(
                "the rigid contact {what} of {} have no solution (no mode of theirs keeps λ_N ≥ 0, friction in its cone and {free}{}): the rigid problem is inconsistent here ({none}), take the compliant κ → 0 extrapolation as the reference",
                names(candidates),
                if contradicting { "; some of its modes' systems are singular or contradict themselves" } else { "" }
            ));
        }
        // The scale of a motion: the largest of the solutions', and that of an O(b/W) force.
        let scale = solutions.iter().flat_map(|s| s.motion).fold(
            b_size / w_size.max(f64::MIN_POSITIVE) * mobility_size,
            |m, v| m.max(v.abs()),
        ) + cs.free.iter().fold(0.0f64, |m, v| m.max(v.abs()))
            * f64::from(u8::from(level == Level::Force));
        let first = solutions[0].motion;
        if let Some(other) = solutions.iter().find(|s| {
            s.motion
                .iter()
                .zip(&first)
                .any(|(a, b)| (a - b).abs() > SAME_MOTION * scale)
        }) {
            let gap = other
                .motion
                .iter()
                .zip(&first)
                .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
            return Err(format!(
                "the rigid contact {what} of {} have several solutions (modes {} and {}, whose generalized {} differ by {gap:.3e}): the rigid problem is ambiguous here ({several}), take the compliant κ → 0 extrapolation as the reference",
                names(candidates),
                solutions[0].modes.name(),
                other.modes.name(),
                if level == Level::Force { "accelerations" } else { "velocity jumps" },
            ));
        }
        // One motion. A solution whose sign conditions all hold with a margin is preferred to
        // one on the edge of a condition (a force at zero or on its cone: the located event's
        // own function, or a degenerate tuple such as one corner of a stopped box sliding
        // against the other's stick); among those alike, the one proposed, else the fewest
        // closed, then sticking, contacts.
        let closed = |m: &Modes| m.iter().filter(|x| x.is_contact()).count();
        let sticking = |m: &Modes| m.iter().filter(|x| *x == Mode::Stick).count();
        let robust = solutions.iter().any(|s| s.slack > ROBUST);
        let alike: Vec<_> = solutions
            .iter()
            .filter(|s| !robust || s.slack > ROBUST)
            .collect();
        let chosen = alike
            .iter()
            .find(|s| Some(s.modes) == proposed)
            .or_else(|| {
                alike
                    .iter()
                    .min_by_key(|s| (closed(&s.modes), sticking(&s.modes)))
            })
            .expect("a solution");
        if chosen.normal_spread > SAME_MOTION {
            let stuck: [bool; MAX_CONTACTS] =
                std::array::from_fn(|k| k < count && chosen.modes.get(k).is_contact());
            return Err(format!(
                "the rigid normal {what} of {} are not determined by the dynamics (their rows of W are dependent; two splits differ by {:.1e} relative): the rigid problem is indeterminate here, take the compliant κ → 0 extrapolation as the reference",
                names(&stuck),
                chosen.normal_spread
            ));
        }
        Ok(Choice {
            modes: chosen.modes,
            lambda: chosen.lambda,
        })
    }

    /// The mode at `y` of the contacts at the surface: those `closed` and every other whose
    /// gap and gap rate are zero to the run's resolution.
    fn select(
        &self,
        y: &[f64],
        closed: &[bool; MAX_CONTACTS],
        proposed: Option<Modes>,
    ) -> Result<Modes, String> {
        let (t, q, qdot) = self.split(y);
        let cs = self.space(t, &q, &qdot);
        let res = self.resolution;
        let candidates: [bool; MAX_CONTACTS] = std::array::from_fn(|k| {
            k < self.contact_count()
                && (closed[k] || (cs.gap[k].abs() <= res && cs.velocity[2 * k].abs() <= res))
        });
        let fixed: [i8; MAX_CONTACTS] = std::array::from_fn(|k| {
            let u = cs.velocity[(2 * k + 1).min(ROWS - 1)];
            if k >= self.contact_count() || u.abs() <= res {
                0
            } else if u < 0.0 {
                -1
            } else {
                1
            }
        });
        self.choose(&cs, &cs.accel, &candidates, &fixed, Level::Force, proposed)
            .map(|c| c.modes)
    }

    /// The impact at `y` (contact `k`'s gap at zero, modes `modes` before it): Newton's law per
    /// contact over every contact at the surface (closed, or with gap within the resolution
    /// and not separating), as the impulse complementarity problem with b = ((1 + e_j) v_N,j⁻,
    /// v_T,j⁻): each contact either takes no impulse and leaves with v_N⁺ ≥ −e v_N⁻, or takes
    /// P_N ≥ 0 and leaves with v_N⁺ = −e v_N⁻; its tangential impulse sticks it (v_T⁺ = 0,
    /// |P_T| ≤ μ P_N) or slides it (P_T = −μ s P_N, s v_T⁺ ≥ 0). The reset adds M⁻¹JᵀP to q̇
    /// and the change of kinetic energy to the impacts' work; then the mode of the contacts
    /// left at rest on the surface.
    fn impact(&self, modes: Modes, k: usize, y: &mut [f64]) -> Result<Modes, String> {
        let layout = self.layout();
        let (t, q, qdot) = self.split(y);
        let cs = self.space(t, &q, &qdot);
        let res = self.resolution;
        let count = self.contact_count();
        let set: [bool; MAX_CONTACTS] = std::array::from_fn(|j| {
            j < count
                && (j == k
                    || modes.get(j).is_contact()
                    || (cs.gap[j] <= res && cs.velocity[2 * j] <= res))
        });
        let mut b = [0.0; ROWS];
        for j in (0..count).filter(|&j| set[j]) {
            let e = self.laws[j].restitution.at(cs.w[2 * j][2 * j])?;
            b[2 * j] = (1.0 + e) * cs.velocity[2 * j];
            b[2 * j + 1] = cs.velocity[2 * j + 1];
        }
        let choice = self.choose(&cs, &b, &set, &[0; MAX_CONTACTS], Level::Impulse, None)?;
        let before = body_energy(self.system, y);
        let jump = self.generalized(&cs, &choice.lambda);
        for i in 0..N {
            y[N + i] += jump[i];
        }
        for j in 0..count {
            y[layout.impulse_normal(j)] += choice.lambda[2 * j];
            y[layout.impulse_tangential(j, 0)] += choice.lambda[2 * j + 1];
        }
        // q is unchanged: the change of T + V is that of T, judged against T⁻.
        let change = body_energy(self.system, y) - before;
        let kinetic = before - self.system.potential_energy(&q);
        if change > 1e-12 * kinetic.max(f64::MIN_POSITIVE) {
            return Err(format!(
                "the impact law gains energy at {} (ΔT = {change:.3e}): Newton's restitution with these coefficients is not energy-consistent here; lower the restitution",
                (0..count)
                    .filter(|&j| set[j])
                    .map(|j| self.system.contact_name(j))
                    .collect::<Vec<_>>()
                    .join(" and ")
            ));
        }
        y[layout.contact_work()] += change;
        // The contacts left at rest on the surface (a bounce leaves with v_N⁺ > 0).
        let (t, q, qdot) = self.split(y);
        let after = self.space(t, &q, &qdot);
        let resting: [bool; MAX_CONTACTS] =
            std::array::from_fn(|j| set[j] && after.velocity[2 * j].abs() <= res);
        self.select(y, &resting, None)
    }

    /// The modes a state starts in: the contacts at the surface (gap and gap rate zero to the
    /// resolution) by the complementarity problem, the others free.
    pub fn initial_modes(&self, y: &[f64]) -> Modes {
        let count = self.contact_count();
        let (t, q, qdot) = self.split(y);
        let cs = self.space(t, &q, &qdot);
        if let Some(k) = (0..count).find(|&k| cs.gap[k] < -self.resolution) {
            self.fail(format!(
                "{} starts inside the surface (gap = {:.3e}); start the rigid run with every gap ≥ 0",
                self.system.contact_name(k),
                cs.gap[k]
            ));
            return Modes::free(count);
        }
        if let Some((j, k)) = self.coincident_contacts(&cs) {
            self.fail(format!(
                "{} and {} are one point (equal gaps and one normal direction at the start): rigid forces and impulses cannot be split between them, and one drifting closes the other at round-off speed; describe that point contact once, or run it compliant (where the pair acts as one contact of twice the stiffness)",
                self.system.contact_name(j),
                self.system.contact_name(k),
            ));
            return Modes::free(count);
        }
        self.select(y, &[false; MAX_CONTACTS], None)
            .unwrap_or_else(|reason| {
                self.fail(reason);
                Modes::free(count)
            })
    }

    /// The first two contacts that are one point at this state: gaps equal to the resolution
    /// and normal rows of J in one direction, W_jk² = W_jj W_kk with W_jk > 0 (Cauchy–Schwarz
    /// with equality in the M⁻¹ metric). For two points of one body that needs their offset
    /// along the shared normal, which the equal gaps rule out.
    fn coincident_contacts(&self, cs: &ContactSpace<f64, N>) -> Option<(usize, usize)> {
        let count = self.contact_count();
        (0..count)
            .flat_map(|j| (j + 1..count).map(move |k| (j, k)))
            .find(|&(j, k)| {
                let (wjj, wkk, wjk) = (cs.w[2 * j][2 * j], cs.w[2 * k][2 * k], cs.w[2 * j][2 * k]);
                (cs.gap[j] - cs.gap[k]).abs() <= self.resolution
                    && wjk > 0.0
                    && wjj * wkk - wjk * wjk <= 1e-12 * wjj * wkk
            })
    }

    fn fail(&self, reason: String) {
        *self.failure.lock().unwrap_or_else(|e| e.into_inner()) = Some(reason);
    }

    /// The modes after `event` at `y` in `modes`, with the impact's reset of `y`.
    pub fn next_modes(&self, modes: Modes, event: RigidContactEvent, y: &mut [f64]) -> Modes {
        let k = event.contact;
        let closed: [bool; MAX_CONTACTS] =
            std::array::from_fn(|j| j < self.contact_count() && modes.get(j).is_contact());
        let next = match event.event {
            RigidEventKind::Impact => self.impact(modes, k, y),
            other => {
                // The single-contact rule for the contact whose event fired.
                let mode = match other {
                    RigidEventKind::LiftOff => Mode::Free,
                    RigidEventKind::StickBreaksRight => Mode::SlideRight,
                    RigidEventKind::StickBreaksLeft => Mode::SlideLeft,
                    _ => Mode::Stick,
                };
                self.select(y, &closed, Some(modes.with(k, mode)))
            }
        };
        next.unwrap_or_else(|reason| {
            self.fail(reason);
            modes
        })
    }

    /// Mechanical energy T + V at `y`.
    pub fn mechanical_energy(&self, y: &[f64]) -> f64 {
        body_energy(self.system, y)
    }
}

impl<Sys: PlanarContacts<N>, const N: usize> HybridSystem for RigidMultiProblem<'_, Sys, N> {
    type Mode = Modes;
    type Event = RigidContactEvent;

    fn dim(&self) -> usize {
        self.layout().len()
    }
    fn absolute_tolerances(&self, atol: f64) -> Vec<f64> {
        vec![atol; self.dim()]
    }
    fn min_step(&self) -> f64 {
        1e-14
    }
    fn initial_mode(&self, y: &[f64]) -> Modes {
        self.initial_modes(y)
    }
    fn field<S: Real>(&self, mode: Modes, y: &[S], dy: &mut [S]) {
        self.vector_field(mode, y, dy)
    }
    fn watched(&self, mode: Modes) -> Cow<'_, [(RigidContactEvent, Crossing)]> {
        Cow::Owned(
            mode.iter()
                .enumerate()
                .flat_map(|(k, m)| Self::contact_events(k, m))
                .collect(),
        )
    }
    fn is_switching(&self, _event: RigidContactEvent) -> bool {
        true
    }
    fn event_value<S: Real>(&self, mode: Modes, event: RigidContactEvent, y: &[S]) -> S {
        self.event_value_of(mode, event, y)
    }
    /// The force events of every contact from one solve of the mode's forces.
    fn event_values(
        &self,
        mode: Modes,
        events: &[(RigidContactEvent, Crossing)],
        y: &[f64],
        out: &mut [f64],
    ) {
        let mut forces: Option<[f64; ROWS]> = None;
        for (o, &(event, _)) in out.iter_mut().zip(events) {
            *o = match event.event {
                RigidEventKind::Impact | RigidEventKind::SlipStops => {
                    self.event_value_of(mode, event, y)
                }
                _ => {
                    let lambda = forces.get_or_insert_with(|| {
                        let (t, q, qdot) = self.split(y);
                        let cs = self.space(t, &q, &qdot);
                        self.solve_mode(&cs, mode, &cs.accel, Level::Force).lambda
                    });
                    self.force_event(event, lambda)
                }
            };
        }
    }
    fn transition(&self, mode: Modes, event: RigidContactEvent, y: &mut [f64]) -> Modes {
        self.next_modes(mode, event, y)
    }
    fn check_mode(&self, _mode: Modes, _y: &[f64]) -> Result<(), String> {
        match self
            .failure
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
        {
            Some(reason) => Err(reason),
            None => Ok(()),
        }
    }
    fn domain(&self) -> &[ValidityMargin] {
        self.system.validity_margins()
    }
    fn domain_margin(&self, index: usize, y: &[f64]) -> f64 {
        let (_, q, qdot) = self.split(y);
        self.system.validity_margin(index, &q, &qdot)
    }
}

/// What one rigid run of several contacts gives.
#[derive(Clone, Debug)]
pub struct RigidMultiRun {
    pub trace: Trace<Modes, RigidContactEvent>,
    /// (t, modes, y) at each output time reached.
    pub outputs: Vec<(f64, Modes, Vec<f64>)>,
    /// Each contact's normal and tangential impulse: ∫λ dt plus its impacts' impulses.
    pub impulse_normal: Vec<f64>,
    pub impulse_tangential: Vec<f64>,
    /// The kinetic energy the impacts changed, Σ ΔT (≤ 0 for e ≤ 1).
    pub impact_work: f64,
    /// (E_end − E_start) − (work of friction, impacts, load and drag): zero up to the
    /// integration error.
    pub energy_balance_error: f64,
}

/// Run `problem` from `(q0, q̇0)` with `integrator` at `tolerances` under `control`.
pub fn simulate_rigid_multi<Sys: PlanarContacts<N>, const N: usize>(
    problem: &RigidMultiProblem<'_, Sys, N>,
    q0: &[f64; N],
    qdot0: &[f64; N],
    integrator: IntegratorKind,
    tolerances: Tolerances,
    control: &RunControl<Modes>,
) -> Result<RigidMultiRun, SimError> {
    check_tolerances(&tolerances)?;
    let problem = &problem.with_tolerances(tolerances);
    let layout = problem.layout();
    let mut y0 = vec![0.0; layout.len()];
    y0[..N].copy_from_slice(q0);
    y0[N..2 * N].copy_from_slice(qdot0);
    let mut observer = Recording::default();
    let trace = run_hybrid(problem, integrator, tolerances, &y0, control, &mut observer)?;
    let y = &trace.y_end;
    let count = problem.contact_count();
    Ok(RigidMultiRun {
        impulse_normal: (0..count).map(|k| y[layout.impulse_normal(k)]).collect(),
        impulse_tangential: (0..count)
            .map(|k| y[layout.impulse_tangential(k, 0)])
            .collect(),
        impact_work: y[layout.contact_work()],
        energy_balance_error: body_energy(problem.system, y)
            - body_energy(problem.system, &y0)
            - layout.work(y),
        outputs: observer.outputs,
        trace,
    })
}
