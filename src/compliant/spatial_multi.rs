//! Several spatial contacts, compliant: K contact points (1 ≤ K ≤ [`MAX_CONTACTS`]), each with
//! its penalty normal law ([`super::normal`], never adhesive) and a circular Coulomb cone in two
//! tangential directions, as one [`HybridSystem`] (docs/multi_contact.md, "Spatial contacts").
//! The planar formulation of [`super::multi`] with each contact's tangent doubled, and the
//! single spatial contact of [`super::spatial`] with its cone shared among K contacts.
//!
//! ODE state ([`StateLayout`]): `[q (N), q̇ (N), (∫F_n,k, ∫λ_k,1, ∫λ_k,2) for each contact k,
//! friction work, the contacts' own work, then τ and the load's work for a non-autonomous
//! system, then the dissipative body forces' work for a dissipative one]`; the contacts' own
//! work is the dashpots' and the kinetic energy the stop and seed impulses change. No slip
//! direction is stored (as [`super::spatial`] does): every slide that starts from rest is
//! seeded along its onset direction ([`cone::SLIP_SEED`]), so V_k ≠ 0 wherever V̂_k is read,
//! and four spatial coordinates with two contacts fit the 16 components dop853 holds.
//!
//! A closed contact pushes with F_n,k = δ_k/κ_k + c_d,k δ̇_k/√κ_k; a sliding one rubs with
//! λ_k = −μ_k F_n,k V̂_k (V_k = C_k q̇ its 2-vector slip velocity, V̂_k = V_k/|V_k|); the sticking contacts S hold V̇_j = 0 (j ∈ S) with the 2|S| forces of
//! W_SS λ_S = −(C_S a₀ + Ċ_S q̇), W_SS = C_S M⁻¹ C_Sᵀ, solved as in [`super::multi`].

use super::cone::{self, ConeMode, SLIP_SEED, STOP_LEAD_TIME};
use super::multi::{
    body_energy, check_contact_count, check_spring_dashpots, check_stick, delassus_block,
    joint_stick_forces, moves_a_normal, stick_contradicts, stiffest, watched_per_contact, Modes,
    StateLayout, MAX_CONTACTS, SINGULAR_PIVOT,
};
use super::normal::NormalCompliance;
use super::spatial::{cone_events, SpatialEvent};
use crate::error::SimError;
use crate::hybrid::{
    check_tolerances, run_hybrid, Crossing, HybridSystem, Named, Observer, RunControl, Trace,
};
use crate::integrate::{IntegratorKind, Tolerances};
use crate::model::{dot, ContactFrame, MassFactor, Mechanics, Real, ValidityMargin};
use std::borrow::Cow;

/// Tangential directions per spatial contact.
pub const TANGENTS: usize = 2;

/// The most tangential rows of the sticking contacts' Delassus block.
const MAX_ROWS: usize = TANGENTS * MAX_CONTACTS;

/// A mechanical system with K spatial frictional contacts, K known when the system is built.
pub trait SpatialContacts<const N: usize>: Mechanics<N> {
    /// K, at least 1 and at most [`MAX_CONTACTS`].
    fn contact_count(&self) -> usize;
    /// Contact `k`'s gap, normal, two tangents and their drifts at `(q, q̇)`.
    fn frame<S: Real>(&self, k: usize, q: &[S; N], qdot: &[S; N]) -> ContactFrame<S, N, TANGENTS>;
    /// Contact `k`'s name in messages and tables.
    fn contact_name(&self, k: usize) -> String {
        format!("contact {k}")
    }
}

/// The modes of K spatial contacts.
pub type ConeModes = Modes<ConeMode>;

/// An event of one spatial contact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConeEvent {
    pub contact: usize,
    pub event: SpatialEvent,
}

impl Named for ConeEvent {
    fn name(&self) -> &'static str {
        self.event.name()
    }
}

/// One spatial contact's laws: its normal compliance and its Coulomb coefficient (static =
/// kinetic, one circular cone).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConeLaw {
    pub compliance: NormalCompliance,
    pub mu: f64,
}

/// What the contacts do at one state in one mode.
#[derive(Clone, Copy, Debug)]
pub struct ConeForces<S, const N: usize> {
    /// δ_k = −gap_k.
    pub penetration: [S; MAX_CONTACTS],
    /// δ̇_k = −d_kᵀq̇.
    pub penetration_rate: [S; MAX_CONTACTS],
    /// V_k = C_k q̇.
    pub slip: [[S; TANGENTS]; MAX_CONTACTS],
    pub normal: [S; MAX_CONTACTS],
    /// λ_k.
    pub tangential: [[S; TANGENTS]; MAX_CONTACTS],
    /// V̇_k = C_k q̈ + Ċ_k q̇.
    pub slip_accel: [[S; TANGENTS]; MAX_CONTACTS],
    /// q̈ under these forces.
    pub accel: [S; N],
    /// The sticking contacts' Delassus block's smallest relative pivot (1 without sticking
    /// contacts).
    pub pivot_ratio: f64,
    /// A statically indeterminate stick's relative miss of its constraints (0 otherwise).
    pub split_residual: f64,
}

/// A mechanical system with several compliant spatial frictional contacts.
pub struct SpatialMultiProblem<'a, Sys, const N: usize> {
    system: &'a Sys,
    laws: Vec<ConeLaw>,
    /// The law with the smallest compliance: the tolerances' scale.
    stiffest: NormalCompliance,
    /// What the run resolves of a slip speed (10·atol; 0: only an exactly zero slip is zero).
    slip_resolution: f64,
}

/// `(q, q̇)` of a state.
fn split<S: Real, const N: usize>(y: &[S]) -> ([S; N], [S; N]) {
    (
        std::array::from_fn(|i| y[i]),
        std::array::from_fn(|i| y[N + i]),
    )
}

fn dot2<S: Real>(a: &[S; TANGENTS], b: &[S; TANGENTS]) -> S {
    a[0] * b[0] + a[1] * b[1]
}

impl<'a, Sys: SpatialContacts<N>, const N: usize> SpatialMultiProblem<'a, Sys, N> {
    /// The problem of `system` with one law per contact; an error names what does not fit.
    pub fn new(system: &'a Sys, laws: Vec<ConeLaw>) -> Result<Self, SimError> {
        check_contact_count(system.contact_count(), laws.len())?;
        let stiffest = stiffest(laws.iter().map(|l| l.compliance)).unwrap_or(laws[0].compliance);
        Ok(SpatialMultiProblem {
            system,
            laws,
            stiffest,
            slip_resolution: 0.0,
        })
    }

    /// The problem as a run at `tolerances` sees it: a slip speed within 10·atol is zero.
    pub fn with_tolerances(&self, tolerances: Tolerances) -> Self {
        SpatialMultiProblem {
            system: self.system,
            laws: self.laws.clone(),
            stiffest: self.stiffest,
            slip_resolution: 10.0 * tolerances.atol,
        }
    }

    /// The relative pivot below which W_SS's rows are dependent: as for planar contacts
    /// ([`super::multi::MultiContactProblem::singular_pivot`]).
    pub fn singular_pivot(&self) -> f64 {
        SINGULAR_PIVOT.max(self.stiffest.kappa)
    }

    /// K.
    pub fn contact_count(&self) -> usize {
        self.laws.len()
    }

    /// Contact `k`'s laws.
    pub fn law(&self, k: usize) -> ConeLaw {
        self.laws[k]
    }

    /// The ODE state's layout.
    pub fn layout(&self) -> StateLayout {
        StateLayout {
            coordinates: N,
            contacts: self.contact_count(),
            tangents: TANGENTS,
            autonomous: self.system.is_autonomous(),
            dissipative: self.system.is_dissipative(),
        }
    }

    fn time<S: Real>(&self, y: &[S]) -> S {
        self.layout().time().map_or(S::zero(), |i| y[i])
    }

    /// The forces of `modes` at state `y`, with every contact's kinematics.
    pub fn forces<S: Real>(&self, modes: ConeModes, y: &[S]) -> ConeForces<S, N> {
        self.forces_at(modes, y, true)
    }

    /// The forces of `modes` at `y`; a free contact's kinematics only when `free_kinematics`
    /// asks for them (the vector field does not).
    #[allow(clippy::needless_range_loop)]
    fn forces_at<S: Real>(
        &self,
        modes: ConeModes,
        y: &[S],
        free_kinematics: bool,
    ) -> ConeForces<S, N> {
        let (q, qdot) = split::<S, N>(y);
        let count = self.contact_count();
        let zero = S::zero();
        let mut out = ConeForces {
            penetration: [zero; MAX_CONTACTS],
            penetration_rate: [zero; MAX_CONTACTS],
            slip: [[zero; TANGENTS]; MAX_CONTACTS],
            normal: [zero; MAX_CONTACTS],
            tangential: [[zero; TANGENTS]; MAX_CONTACTS],
            slip_accel: [[zero; TANGENTS]; MAX_CONTACTS],
            accel: [zero; N],
            pivot_ratio: 1.0,
            split_residual: 0.0,
        };
        let (mass, mut g) = self.system.mass_factor_and_force(&q, &qdot);
        if !self.system.is_autonomous() {
            for (gi, li) in g.iter_mut().zip(self.system.external_load(self.time(y))) {
                *gi = *gi + li;
            }
        }
        let mut frames: [Option<ContactFrame<S, N, TANGENTS>>; MAX_CONTACTS] = [None; MAX_CONTACTS];
        for k in 0..count {
            let mode = modes.get(k);
            if !mode.is_contact() && !free_kinematics {
                continue;
            }
            let fr = self.system.frame(k, &q, &qdot);
            out.penetration[k] = -fr.gap;
            out.penetration_rate[k] = -dot(&fr.normal, &qdot);
            out.slip[k] = fr.tangents.map(|c| dot(&c, &qdot));
            frames[k] = Some(fr);
            if !mode.is_contact() {
                continue;
            }
            let law = self.laws[k];
            let normal = law
                .compliance
                .closed_contact_force(out.penetration[k], out.penetration_rate[k]);
            out.normal[k] = normal;
            if mode == ConeMode::Slide {
                // λ = −μ F_n V̂ (BB §1, Coulomb friction for a slip V ≠ 0); V ≠ 0 in a slide
                // (seeded from rest), and the
                // fallback direction of an exactly zero V is never reached by a step.
                let unit = cone::slip_unit(&out.slip[k], &[1.0, 0.0]);
                out.tangential[k] = unit.map(|u| -(normal * u).scale(law.mu));
            }
            for i in 0..N {
                g[i] = g[i]
                    + normal * fr.normal[i]
                    + out.tangential[k][0] * fr.tangents[0][i]
                    + out.tangential[k][1] * fr.tangents[1][i];
            }
        }
        out.accel = mass.solve(&g);
        // The sticking contacts' joint tangential forces: two rows each.
        let mut rows = [[zero; N]; MAX_ROWS];
        let mut owner = [0usize; MAX_ROWS];
        let mut n = 0;
        for k in (0..count).filter(|&k| modes.get(k) == ConeMode::Stick) {
            if let Some(fr) = &frames[k] {
                for j in 0..TANGENTS {
                    rows[n] = fr.tangents[j];
                    owner[n] = k;
                    n += 1;
                }
            }
        }
        if n > 0 {
            let (mobility, w) = delassus_block(&mass, &rows, n);
            let mut rhs = [zero; MAX_ROWS];
            for a in 0..n {
                let (k, j) = (owner[a], a % TANGENTS);
                let drift = frames[k].as_ref().map_or(zero, |fr| fr.tangent_drift[j]);
                rhs[a] = -(dot(&rows[a], &out.accel) + drift);
            }
            let lambda;
            (lambda, out.pivot_ratio, out.split_residual) =
                joint_stick_forces(w, rhs, n, self.singular_pivot(), |a| {
                    out.normal[owner[a]].scale(self.laws[owner[a]].mu)
                });
            for a in 0..n {
                out.tangential[owner[a]][a % TANGENTS] = lambda[a];
                for i in 0..N {
                    out.accel[i] = out.accel[i] + lambda[a] * mobility[a][i];
                }
            }
        }
        for (k, fr) in frames.iter().enumerate().take(count) {
            if let Some(fr) = fr {
                out.slip_accel[k] =
                    std::array::from_fn(|j| dot(&fr.tangents[j], &out.accel) + fr.tangent_drift[j]);
            }
        }
        out
    }

    /// The vector field of `modes`: `dy = F(y)`.
    pub fn vector_field<S: Real>(&self, modes: ConeModes, y: &[S], dy: &mut [S]) {
        let layout = self.layout();
        let f = self.forces_at(modes, y, false);
        let (q, qdot) = split::<S, N>(y);
        dy[..N].copy_from_slice(&qdot);
        dy[N..2 * N].copy_from_slice(&f.accel);
        let mut friction = S::zero();
        let mut damping = S::zero();
        for k in 0..self.contact_count() {
            dy[layout.impulse_normal(k)] = f.normal[k];
            for j in 0..TANGENTS {
                dy[layout.impulse_tangential(k, j)] = f.tangential[k][j];
            }
            friction = friction + dot2(&f.tangential[k], &f.slip[k]);
            if modes.get(k).is_contact() {
                damping = damping
                    + self.laws[k]
                        .compliance
                        .damping_power(f.penetration[k], f.penetration_rate[k]);
            }
        }
        dy[layout.friction_work()] = friction;
        dy[layout.contact_work()] = damping;
        if let (Some(ti), Some(wi)) = (layout.time(), layout.load_work()) {
            dy[ti] = S::cst(1.0);
            dy[wi] = dot(&self.system.external_load(self.time(y)), &qdot);
        }
        if let Some(i) = layout.viscous_work() {
            dy[i] = self.system.dissipation_power(&q, &qdot);
        }
    }

    /// Contact `k`'s slide stop function with its slip speed r and ṙ = V̂·V̇
    /// ([`cone::stop_function`]), from the forces of a mode where it slides.
    fn slip_stop<S: Real>(&self, k: usize, f: &ConeForces<S, N>) -> (S, S, S) {
        let e = [1.0, 0.0];
        let speed = cone::slip_speed(&f.slip[k], &e);
        let unit = cone::slip_unit(&f.slip[k], &e);
        let rate = dot2(&unit, &f.slip_accel[k]);
        (cone::stop_function::<S, TANGENTS>(speed, rate), speed, rate)
    }

    /// The value of `event`'s function at `y` from the forces `f` of `modes` there.
    fn event_value_from<S: Real>(&self, event: ConeEvent, f: &ConeForces<S, N>) -> S {
        let k = event.contact;
        let compliance = self.laws[k].compliance;
        let (delta, rate) = (f.penetration[k], f.penetration_rate[k]);
        match event.event {
            SpatialEvent::ContactOpens => compliance.release_function(delta, rate),
            SpatialEvent::ContactCloses => compliance.closing_function(delta, rate),
            SpatialEvent::StickBreaks => {
                let forces = [f.normal[k], f.tangential[k][0], f.tangential[k][1]];
                cone::cone_margin(self.laws[k].mu, &forces)
            }
            SpatialEvent::SlipStops => self.slip_stop(k, f).0,
        }
    }

    /// The time from `event`'s located instant at `y` (before its reset) to the instant it
    /// stands for: r/(−ṙ) for a stop ([`cone::stop_delay`]), else 0.
    pub fn event_delay(&self, modes: ConeModes, event: ConeEvent, y: &[f64]) -> f64 {
        if event.event != SpatialEvent::SlipStops {
            return 0.0;
        }
        let f = self.forces(modes, y);
        let (_, speed, rate) = self.slip_stop(event.contact, &f);
        cone::stop_delay::<TANGENTS>(speed, rate)
    }

    /// Whether contact `k` is closed at `y` when the other contacts are in `modes`: δ > 0 with
    /// F_n > 0, or δ = 0 moving or accelerating into the surface.
    fn starts_closed(&self, modes: ConeModes, k: usize, y: &[f64]) -> bool {
        let f = self.forces(modes.with(k, ConeMode::Stick), y);
        let (pen, rate) = (f.penetration[k], f.penetration_rate[k]);
        if pen != 0.0 {
            return pen > 0.0 && f.normal[k] > 0.0;
        }
        if rate != 0.0 {
            return rate > 0.0;
        }
        // Touching at rest: closed if the others' forces and the body forces press it in.
        let (q, qdot) = split::<f64, N>(y);
        let fr = self.system.frame(k, &q, &qdot);
        let free = self.forces(modes.with(k, ConeMode::Free), y);
        -(dot(&fr.normal, &free.accel) + fr.normal_drift) > 0.0
    }

    /// `modes` made consistent at `y`: a sticking contact whose normal force is not positive
    /// opens unless it moves into the surface; else the sticking contact farthest outside its cone (|λ_k| − μ_k F_n,k, the joint
    /// stick forces solved again each round) slides along the load its stick force was
    /// holding, −λ_k/|λ_k|; until every stick force lies in its cone (at most K rounds). Also
    /// the slip directions of the contacts it sets sliding.
    pub fn consistent(
        &self,
        mut modes: ConeModes,
        y: &[f64],
    ) -> (ConeModes, [Option<[f64; TANGENTS]>; MAX_CONTACTS]) {
        let mut starts = [None; MAX_CONTACTS];
        for _ in 0..=self.contact_count() {
            let f = self.forces(modes, y);
            if stick_contradicts(f.pivot_ratio, f.split_residual, self.singular_pivot()) {
                // No cone test can be made of contradicting forces: check_mode refuses them.
                return (modes, starts);
            }
            let mut worst: Option<(usize, f64)> = None;
            for k in (0..self.contact_count()).filter(|&k| modes.get(k) == ConeMode::Stick) {
                // As for planar contacts (`multi`'s `consistent`): a contact
                // moving into the surface stays closed at its closing's F_n = 0.
                if f.normal[k] <= 0.0 && f.penetration_rate[k] <= 0.0 {
                    worst = Some((k, f64::INFINITY));
                    break;
                }
                let held = dot2(&f.tangential[k], &f.tangential[k]).sqrt();
                let excess = held - self.laws[k].mu * f.normal[k];
                if excess > 0.0 && worst.is_none_or(|w| excess > w.1) {
                    worst = Some((k, excess));
                }
            }
            let Some((k, excess)) = worst else {
                return (modes, starts);
            };
            if excess == f64::INFINITY {
                modes = modes.with(k, ConeMode::Free);
            } else {
                let load = f.tangential[k].map(|x| -x);
                starts[k] = Some(cone::unit(&load).unwrap_or([1.0, 0.0]));
                modes = modes.with(k, ConeMode::Slide);
            }
        }
        (modes, starts)
    }

    /// The modes a state starts in, without changing it: each contact closed or free
    /// (`starts_closed`), a closed one sliding where its slip speed exceeds the run's
    /// resolution and sticking otherwise; then made consistent.
    pub fn initial_modes(&self, y: &[f64]) -> ConeModes {
        self.start(y).0
    }

    fn start(&self, y: &[f64]) -> (ConeModes, [Option<[f64; TANGENTS]>; MAX_CONTACTS]) {
        let count = self.contact_count();
        let mut modes = ConeModes::free(count);
        for k in 0..count {
            if self.starts_closed(modes, k, y) {
                modes = modes.with(k, ConeMode::Stick);
            }
        }
        let f = self.forces(modes, y);
        let mut slides = [None; MAX_CONTACTS];
        let closed = modes;
        for k in (0..count).filter(|&k| closed.get(k).is_contact()) {
            if dot2(&f.slip[k], &f.slip[k]).sqrt() > self.slip_resolution {
                slides[k] = cone::unit(&f.slip[k]);
                modes = modes.with(k, ConeMode::Slide);
            }
        }
        let (modes, starts) = self.consistent(modes, y);
        for k in 0..count {
            slides[k] = slides[k].or(starts[k]);
        }
        (modes, slides)
    }

    /// The start `[q0, q̇0, 0…]`, a contact that starts sliding from rest seeded along its
    /// onset direction (`Self::seed`).
    pub fn initial_state(&self, q0: &[f64; N], qdot0: &[f64; N]) -> Vec<f64> {
        let mut y = vec![0.0; self.layout().len()];
        y[..N].copy_from_slice(q0);
        y[N..2 * N].copy_from_slice(qdot0);
        let (modes, starts) = self.start(&y);
        self.seed(modes, &starts, &mut y);
        y
    }

    /// Seed the slides that start from rest (|V_k| below [`cone::SLIP_SEED`]) along their onset
    /// directions `starts[k]`: V_k changes by SLIP_SEED·ê_k through the tangential impulse
    /// W_kk⁻¹ of that change (the single contact's [`super::spatial::seed_slip`]), so that the
    /// slide's direction V̂_k is defined and its relaxation rate μF_n/|V_k| bounded.
    fn seed(
        &self,
        modes: ConeModes,
        starts: &[Option<[f64; TANGENTS]>; MAX_CONTACTS],
        y: &mut [f64],
    ) {
        for (k, start) in starts.iter().enumerate().take(self.contact_count()) {
            let Some(e) = *start else { continue };
            let f = self.forces(modes, y);
            let at_rest = dot2(&f.slip[k], &f.slip[k]).sqrt() < SLIP_SEED;
            if modes.get(k) == ConeMode::Slide && at_rest {
                let mut change = [0.0; MAX_ROWS];
                change[..TANGENTS].copy_from_slice(&e.map(|x| SLIP_SEED * x));
                self.apply_velocity_change(&[k], &change, y);
            }
        }
    }

    /// Change the slip velocities of `contacts` (two rows each, in order) by `change` with the
    /// tangential impulses P of W P = change (W their Delassus block; for dependent rows, as a
    /// stick of dependent rows, the split of least Σ P²/(μF_n)): q̇ += M⁻¹ Cᵀ P, each contact's
    /// ∫λ dt += P and the reset work += the kinetic energy changed.
    fn apply_velocity_change(&self, contacts: &[usize], change: &[f64; MAX_ROWS], y: &mut [f64]) {
        let layout = self.layout();
        let (q, qdot) = split::<f64, N>(y);
        let mut rows = [[0.0; N]; MAX_ROWS];
        let mut owner = [0usize; MAX_ROWS];
        let mut n = 0;
        for &k in contacts {
            let fr = self.system.frame(k, &q, &qdot);
            for j in 0..TANGENTS {
                rows[n] = fr.tangents[j];
                owner[n] = k;
                n += 1;
            }
        }
        let mass = MassFactor::of(&self.system.mass_matrix(&q));
        let (mobility, w) = delassus_block(&mass, &rows, n);
        let normal = self.forces(ConeModes::free(self.contact_count()), y);
        let (impulse, _, _) = joint_stick_forces(w, *change, n, self.singular_pivot(), |a| {
            let k = owner[a];
            self.laws[k]
                .compliance
                .closed_contact_force(normal.penetration[k], normal.penetration_rate[k])
                .max(f64::MIN_POSITIVE)
                * self.laws[k].mu.max(f64::MIN_POSITIVE)
        });
        let before = body_energy(self.system, y);
        for a in 0..n {
            for i in 0..N {
                y[N + i] += impulse[a] * mobility[a][i];
            }
            y[layout.impulse_tangential(owner[a], a % TANGENTS)] += impulse[a];
        }
        y[layout.contact_work()] += body_energy(self.system, y) - before;
    }

    /// Which sliding contacts stop with contact `k`, whose stop was located at `y` in `modes`:
    /// `k` and every other sliding contact j whose slip speed is within the run's resolution
    /// of zero, or whose slip would reach zero within twice the stop's lead time
    /// (r_j ≤ −ṙ_j·2τ_stop: its own stop function has crossed too, in the same instant).
    pub fn stopping_together(&self, modes: ConeModes, k: usize, y: &[f64]) -> Vec<usize> {
        let f = self.forces(modes, y);
        let mut out = vec![k];
        for j in (0..self.contact_count()).filter(|&j| j != k && modes.get(j) == ConeMode::Slide) {
            let (_, speed, rate) = self.slip_stop(j, &f);
            if speed <= self.slip_resolution + (-rate).max(0.0) * 2.0 * STOP_LEAD_TIME {
                out.push(j);
            }
        }
        out
    }

    /// The modes after `event` at `y` in `modes`, with the reset of `y` (stopped slips cleared,
    /// slides from rest seeded).
    pub fn next_modes(&self, modes: ConeModes, event: ConeEvent, y: &mut [f64]) -> ConeModes {
        let k = event.contact;
        let mut starts = [None; MAX_CONTACTS];
        let next = match event.event {
            SpatialEvent::ContactOpens => modes.with(k, ConeMode::Free),
            SpatialEvent::ContactCloses => {
                let f = self.forces(modes.with(k, ConeMode::Stick), y);
                if dot2(&f.slip[k], &f.slip[k]).sqrt() > self.slip_resolution {
                    starts[k] = cone::unit(&f.slip[k]);
                    modes.with(k, ConeMode::Slide)
                } else {
                    modes.with(k, ConeMode::Stick)
                }
            }
            SpatialEvent::StickBreaks => {
                let f = self.forces(modes, y);
                let load = f.tangential[k].map(|x| -x);
                starts[k] = Some(cone::unit(&load).unwrap_or([1.0, 0.0]));
                modes.with(k, ConeMode::Slide)
            }
            SpatialEvent::SlipStops => {
                // The stopping contacts' slips are cleared together (V = 0 by one joint
                // impulse) and they try to stick together; the consistency below slides those
                // whose joint stick force leaves the cone.
                let stopping = self.stopping_together(modes, k, y);
                let f = self.forces(modes, y);
                let mut change = [0.0; MAX_ROWS];
                for (a, &j) in stopping.iter().enumerate() {
                    change[TANGENTS * a] = -f.slip[j][0];
                    change[TANGENTS * a + 1] = -f.slip[j][1];
                }
                self.apply_velocity_change(&stopping, &change, y);
                stopping
                    .iter()
                    .fold(modes, |m, &j| m.with(j, ConeMode::Stick))
            }
        };
        // A friction event where the normal force has also reached zero opens the contact (a
        // closing has F_n = 0 of an undamped contact, and stays closed).
        let friction_event = matches!(
            event.event,
            SpatialEvent::StickBreaks | SpatialEvent::SlipStops
        );
        let next = if friction_event
            && next.get(k).is_contact()
            && self.forces(next.with(k, ConeMode::Stick), y).normal[k] <= 0.0
        {
            next.with(k, ConeMode::Free)
        } else {
            next
        };
        let (next, more) = self.consistent(next, y);
        for j in 0..self.contact_count() {
            starts[j] = starts[j].or(more[j]);
        }
        self.seed(next, &starts, y);
        next
    }

    /// Mechanical energy T + V + Σ (springs of the closed contacts) at `y`.
    pub fn mechanical_energy(&self, modes: ConeModes, y: &[f64]) -> f64 {
        let (q, qdot) = split::<f64, N>(y);
        let mut springs = 0.0;
        for k in (0..self.contact_count()).filter(|&k| modes.get(k).is_contact()) {
            let gap = self.system.frame(k, &q, &qdot).gap;
            springs += self.laws[k].compliance.elastic_energy(-gap);
        }
        body_energy(self.system, y) + springs
    }
}

impl<Sys: SpatialContacts<N>, const N: usize> HybridSystem for SpatialMultiProblem<'_, Sys, N> {
    type Mode = ConeModes;
    type Event = ConeEvent;

    fn dim(&self) -> usize {
        self.layout().len()
    }

    /// As for planar contacts: the coordinates any contact's normal moves in units of κ, their
    /// rates in units of √κ (the stiffest contact's).
    fn absolute_tolerances(&self, atol: f64) -> Vec<f64> {
        self.stiffest
            .contact_scaled_tolerances::<N>(atol, self.layout().len(), |i| {
                moves_a_normal::<N>(i, self.contact_count(), |k, e| {
                    self.system.frame(k, e, &[0.0; N]).normal[i] != 0.0
                })
            })
    }

    /// As for one spatial contact ([`super::spatial::SpatialContactProblem`]): below the
    /// phases to resolve and below the stop's lead time.
    fn min_step(&self) -> f64 {
        (1e-8 * self.stiffest.kappa.min(1.0)).min(1e-3 * STOP_LEAD_TIME)
    }

    fn initial_mode(&self, y: &[f64]) -> ConeModes {
        self.initial_modes(y)
    }

    fn field<S: Real>(&self, mode: ConeModes, y: &[S], dy: &mut [S]) {
        self.vector_field(mode, y, dy)
    }

    fn watched(&self, mode: ConeModes) -> Cow<'_, [(ConeEvent, Crossing)]> {
        Cow::Owned(watched_per_contact(mode, cone_events, |contact, event| {
            ConeEvent { contact, event }
        }))
    }

    fn is_switching(&self, _event: ConeEvent) -> bool {
        true
    }

    fn event_value<S: Real>(&self, mode: ConeModes, event: ConeEvent, y: &[S]) -> S {
        let f = self.forces(mode, y);
        self.event_value_from(event, &f)
    }

    /// All watched functions at one state with the forces solved once.
    fn event_values(
        &self,
        mode: ConeModes,
        events: &[(ConeEvent, Crossing)],
        y: &[f64],
        out: &mut [f64],
    ) {
        let f = self.forces(mode, y);
        for (o, &(event, _)) in out.iter_mut().zip(events) {
            *o = self.event_value_from(event, &f);
        }
    }

    fn transition(&self, mode: ConeModes, event: ConeEvent, y: &mut [f64]) -> ConeModes {
        self.next_modes(mode, event, y)
    }

    fn check_mode(&self, mode: ConeModes, y: &[f64]) -> Result<(), String> {
        let f = self.forces(mode, y);
        check_stick(
            f.pivot_ratio,
            f.split_residual,
            self.singular_pivot(),
            || {
                (0..self.contact_count())
                    .filter(|&k| mode.get(k) == ConeMode::Stick)
                    .map(|k| self.system.contact_name(k))
                    .collect()
            },
        )
    }

    fn domain(&self) -> &[ValidityMargin] {
        self.system.validity_margins()
    }

    fn domain_margin(&self, index: usize, y: &[f64]) -> f64 {
        let (q, qdot) = split::<f64, N>(y);
        self.system.validity_margin(index, &q, &qdot)
    }
}

/// What one run of several spatial contacts gives.
#[derive(Clone, Debug)]
pub struct SpatialMultiRun {
    pub trace: Trace<ConeModes, ConeEvent>,
    /// The time each event of the trace stands for: a stop at its extrapolated instant
    /// ([`SpatialMultiProblem::event_delay`]), others where located.
    pub event_times: Vec<f64>,
    /// (t, modes, y) at each output time reached.
    pub outputs: Vec<(f64, ConeModes, Vec<f64>)>,
    /// Each contact's ∫F_n dt and ∫λ dt (the stop and seed impulses included).
    pub impulse_normal: Vec<f64>,
    pub impulse_tangential: Vec<[f64; TANGENTS]>,
    /// Each contact's largest penetration at the states the run passed (0 if it never closed).
    pub max_penetration: Vec<f64>,
    /// (E_end − E_start) − (work of friction, dashpots, resets, load and drag) + the springs'
    /// energy released where contacts open (as for one contact: `RunRecord::energy`).
    pub energy_balance_error: f64,
}

/// Records the outputs, the events' instants and each contact's largest penetration.
struct ConeObserver {
    outputs: Vec<(f64, ConeModes, Vec<f64>)>,
    event_times: Vec<f64>,
    max_penetration: Vec<f64>,
    /// The springs' energy released where contacts open (a damped contact opens compressed).
    separation_loss: f64,
}

impl<Sys: SpatialContacts<N>, const N: usize> Observer<SpatialMultiProblem<'_, Sys, N>>
    for ConeObserver
{
    fn state(
        &mut self,
        sys: &SpatialMultiProblem<'_, Sys, N>,
        _t: f64,
        mode: ConeModes,
        y: &[f64],
    ) {
        let (q, qdot) = split::<f64, N>(y);
        for (k, m) in self.max_penetration.iter_mut().enumerate() {
            if mode.get(k).is_contact() {
                *m = m.max(-sys.system.frame(k, &q, &qdot).gap);
            }
        }
    }
    fn output(
        &mut self,
        _sys: &SpatialMultiProblem<'_, Sys, N>,
        t: f64,
        mode: ConeModes,
        y: &[f64],
    ) {
        self.outputs.push((t, mode, y.to_vec()));
    }
    fn transition(
        &mut self,
        sys: &SpatialMultiProblem<'_, Sys, N>,
        t: f64,
        from: ConeModes,
        event: ConeEvent,
        to: ConeModes,
        y: &[f64],
    ) {
        self.event_times.push(t + sys.event_delay(from, event, y));
        // The same state in both: the difference is the springs of the contacts that open.
        self.separation_loss += sys.mechanical_energy(from, y) - sys.mechanical_energy(to, y);
    }
}

/// Run `problem` from `(q0, q̇0)` with `integrator` at `tolerances` under `control`.
pub fn simulate_spatial_multi<Sys: SpatialContacts<N>, const N: usize>(
    problem: &SpatialMultiProblem<'_, Sys, N>,
    q0: &[f64; N],
    qdot0: &[f64; N],
    integrator: IntegratorKind,
    tolerances: Tolerances,
    control: &RunControl<ConeModes>,
) -> Result<SpatialMultiRun, SimError> {
    check_tolerances(&tolerances)?;
    check_spring_dashpots(problem.laws.iter().map(|l| l.compliance))?;
    let problem = &problem.with_tolerances(tolerances);
    let y0 = problem.initial_state(q0, qdot0);
    let start_modes = problem.initial_modes(&y0);
    let mut observer = ConeObserver {
        outputs: Vec::new(),
        event_times: Vec::new(),
        max_penetration: vec![0.0; problem.contact_count()],
        separation_loss: 0.0,
    };
    let trace = run_hybrid(problem, integrator, tolerances, &y0, control, &mut observer)?;
    let y = &trace.y_end;
    let layout = problem.layout();
    let energy_change =
        problem.mechanical_energy(trace.mode_end, y) - problem.mechanical_energy(start_modes, &y0);
    let count = problem.contact_count();
    Ok(SpatialMultiRun {
        impulse_normal: (0..count).map(|k| y[layout.impulse_normal(k)]).collect(),
        impulse_tangential: (0..count)
            .map(|k| std::array::from_fn(|j| y[layout.impulse_tangential(k, j)]))
            .collect(),
        energy_balance_error: energy_change - layout.work(y) + observer.separation_loss,
        max_penetration: observer.max_penetration,
        event_times: observer.event_times,
        outputs: observer.outputs,
        trace,
    })
}
