//! Mechanical systems as data + pure functions.
//!
//! Every system is an instance of the general planar single-contact system of
//! Champneys & Várkonyi (2016) §3:
//!
//! ```text
//!   M(q) q̈ = f(q, q̇) + λ_T c(q) + λ_N d(q)
//! ```
//!
//! with generalised coordinates `q ∈ ℝᴺ`, a positive-definite mass matrix `M`, body forces `f`
//! (gravity and the velocity-dependent inertial terms of the chosen coordinates), and the contact
//! force acting along the tangential direction `c` (so that the slip velocity is `u = cᵀq̇`) and the
//! normal direction `d` (normal velocity `v = dᵀq̇`, positive away from the surface). A new
//! mechanical system implements [`PlanarContactSystem`]; the mode machine in [`crate::hybrid`]
//! is the same for all of them.
//!
//! Projecting onto the contact directions gives C–V's scalar equations
//! `u̇ = a + A λ_T + B λ_N`, `v̇ = b + B λ_T + C λ_N` ([`ProjectedDynamics`]).

pub mod consistency;
pub mod contacts;
pub mod gspot;
pub mod iwc;
pub mod jet;
pub mod scalar;

pub use contacts::{generalized_accel, ContactFrame, ContactSystem, Delassus};
pub use scalar::{Dual, Real};

/// Where the contact point is and how it moves, at one configuration.
#[derive(Clone, Copy, Debug)]
pub struct ContactKinematics<S, const N: usize> {
    /// Normal gap `y(q)`: positive when separated; the penetration is `δ = −gap`.
    pub gap: S,
    /// Tangential direction `c(q)`: slip velocity `u = cᵀ q̇`.
    pub tangential: [S; N],
    /// Normal direction `d(q)`: normal velocity `v = dᵀ q̇`.
    pub normal: [S; N],
    /// `ċᵀ q̇`: tangential acceleration of the contact point not caused by `q̈`.
    pub tangential_drift: S,
    /// `ḋᵀ q̇`: normal acceleration of the contact point not caused by `q̈`.
    pub normal_drift: S,
}

impl<S: Real> ContactKinematics<S, 2> {
    /// A particle at q = (x, y) above the floor y = 0, the particle itself the contact point:
    /// gap y, c = e_x, d = e_y ([`FLOOR_DIRECTIONS`]), no drift.
    pub fn particle_on_floor(q: &[S; 2]) -> Self {
        ContactKinematics {
            gap: q[1],
            tangential: [S::cst(1.0), S::zero()],
            normal: [S::zero(), S::cst(1.0)],
            tangential_drift: S::zero(),
            normal_drift: S::zero(),
        }
    }
}

/// The constant contact directions (c, d) = (e_x, e_y) of
/// [`ContactKinematics::particle_on_floor`].
pub const FLOOR_DIRECTIONS: ([f64; 2], [f64; 2]) = ([1.0, 0.0], [0.0, 1.0]);

/// A quantity that must stay positive for a model to hold: one edge of its domain of validity
/// (for the rod, θ > 0, π − θ > 0 and the far end's height). Leaving the domain ends a run with
/// an error naming the margin ([`crate::error::SimError::LeftDomain`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValidityMargin {
    /// The margin in the model's symbols, e.g. `π − θ`.
    pub quantity: &'static str,
    /// What its reaching zero means, e.g. `the rod lies flat on the floor`.
    pub meaning: &'static str,
}

/// The mechanics of a system with generalised coordinates `q ∈ ℝᴺ`: `M(q) q̈ = f(q, q̇) + F(t)`
/// plus the contact forces, which [`PlanarContactSystem`] (one planar contact) or
/// [`ContactSystem`] (K contacts, D tangential directions each) add.
///
/// All functions are pure and generic over [`Real`], so that Jacobians are exact derivatives
/// (forward-mode dual numbers) of exactly this code.
pub trait Mechanics<const N: usize>: Sync {
    /// Short names of the generalised coordinates, for trajectories and docs.
    fn coordinate_names(&self) -> [&'static str; N];
    /// Mass matrix `M(q)`, symmetric positive definite.
    fn mass_matrix<S: Real>(&self, q: &[S; N]) -> [[S; N]; N];
    /// Generalised body force `f(q, q̇)`, including gravity and inertial (Coriolis, centripetal)
    /// terms of the chosen coordinates.
    fn generalized_force<S: Real>(&self, q: &[S; N], qdot: &[S; N]) -> [S; N];
    /// Potential energy of the body forces (gravity), for the energy account.
    fn potential_energy<S: Real>(&self, q: &[S; N]) -> S;
    /// Whether the system is autonomous. A non-autonomous one has an [`Self::external_load`];
    /// its formulation then carries time (and the load's work) in the ODE state, so that an
    /// autonomous system's state and numbers are unchanged.
    fn is_autonomous(&self) -> bool {
        true
    }
    /// A prescribed time-dependent generalised load `F(t)`, added to `f(q, q̇)`; its work is
    /// accounted for separately from the potential energy.
    fn external_load<S: Real>(&self, _t: S) -> [S; N] {
        [S::zero(); N]
    }
    /// The model's domain of validity: margins that must stay positive (none by default: every
    /// state is valid). A run that starts outside is refused and one that leaves it ends there.
    fn validity_margins(&self) -> &[ValidityMargin] {
        &[]
    }
    /// The value of `validity_margins()[index]` at `(q, q̇)`.
    fn validity_margin(&self, _index: usize, _q: &[f64; N], _qdot: &[f64; N]) -> f64 {
        f64::INFINITY
    }
    /// Bounds `(a, b)` on the slopes of margin `index` over all states: `|m(q, q̇) − m(q', q̇')|
    /// ≤ Σ_j a_j |q_j − q'_j| + b_j |q̇_j − q̇'_j|`, when the system knows them (none by
    /// default). They let the event scan skip the samples of a margin that one step cannot
    /// bring to zero.
    fn validity_margin_slopes(&self, _index: usize) -> Option<([f64; N], [f64; N])> {
        None
    }
    /// Whether `generalized_force` holds a dissipative part (viscous drag) whose work the
    /// formulation must integrate for the energy account; only then does it ask
    /// [`Self::dissipation_power`], so the states (and numbers) of other systems do not change.
    fn is_dissipative(&self) -> bool {
        false
    }
    /// The power of the dissipative body forces at `(q, q̇)`, ≤ 0 (e.g. −ν|q̇|²).
    fn dissipation_power<S: Real>(&self, _q: &[S; N], _qdot: &[S; N]) -> S {
        S::zero()
    }
    /// M(q)'s factor and f(q, q̇) at one state: what every right-hand side of the formulations
    /// of several contacts solves with. The default factors [`Self::mass_matrix`]
    /// ([`MassFactor::of`]) and evaluates [`Self::generalized_force`] apart. A system whose M
    /// and f share their work (one sine and cosine of an angle) or whose factor has a closed
    /// form overrides it, and must give the default's numbers exactly: the committed results of
    /// its runs rest on their rounding ([`check_mass_factor_and_force`]).
    fn mass_factor_and_force<S: Real>(
        &self,
        q: &[S; N],
        qdot: &[S; N],
    ) -> (MassFactor<S, N>, [S; N])
    where
        Self: Sized,
    {
        (
            MassFactor::of(&self.mass_matrix(q)),
            self.generalized_force(q, qdot),
        )
    }
}

/// M = L D Lᵀ with L unit lower triangular: L and the pivots' reciprocals 1/D, so that a solve
/// takes no division.
#[derive(Clone, Copy, Debug)]
pub struct MassFactor<S, const N: usize> {
    /// L (its diagonal is 1).
    pub lower: [[S; N]; N],
    /// 1/D.
    pub inv_pivots: [S; N],
}

impl<S: Real, const N: usize> MassFactor<S, N> {
    /// The factor of a symmetric positive-definite `m`.
    pub fn of(m: &[[S; N]; N]) -> Self {
        let (lower, inv_pivots) = ldl(m);
        MassFactor { lower, inv_pivots }
    }

    /// x with M x = `b`.
    pub fn solve(&self, b: &[S; N]) -> [S; N] {
        ldl_solve(&self.lower, &self.inv_pivots, b)
    }
}

/// Test of an override of [`Mechanics::mass_factor_and_force`]: at `(q, q̇)`, in f64 and in
/// dual numbers along `(dq, dq̇)`, it gives the default's numbers exactly (equal as numbers: a
/// zero's sign may differ, as the generic factorisation's 0·x terms give +0 or −0).
pub fn check_mass_factor_and_force<Sys: Mechanics<N>, const N: usize>(
    system: &Sys,
    q: &[f64; N],
    qdot: &[f64; N],
    dq: &[f64; N],
    dqdot: &[f64; N],
) {
    fn same<S: Real + PartialEq, Sys: Mechanics<N>, const N: usize>(
        system: &Sys,
        q: &[S; N],
        qdot: &[S; N],
    ) {
        let (factor, force) = system.mass_factor_and_force(q, qdot);
        let default = MassFactor::of(&system.mass_matrix(q));
        assert_eq!(factor.lower, default.lower, "L at {q:?}");
        assert_eq!(factor.inv_pivots, default.inv_pivots, "1/D at {q:?}");
        assert_eq!(force, system.generalized_force(q, qdot), "f at {q:?}");
    }
    same(system, q, qdot);
    let dual = |x: &[f64; N], dx: &[f64; N]| -> [Dual; N] {
        std::array::from_fn(|i| Dual::new(x[i], dx[i]))
    };
    same(system, &dual(q, dq), &dual(qdot, dqdot));
}

/// A planar mechanical system with a single frictional contact point (C–V §3, eq. (3.1)): the
/// system the compliant formulation in `crate::compliant` integrates. It is the case D = 1,
/// K = 1 of [`ContactSystem`].
pub trait PlanarContactSystem<const N: usize>: Mechanics<N> {
    /// Contact-point kinematics.
    fn contact_kinematics<S: Real>(&self, q: &[S; N], qdot: &[S; N]) -> ContactKinematics<S, N>;
    /// The friction coefficient of the surface at the contact point of configuration `q`, when
    /// the surface's roughness varies along it (Schmid–Mielke's μ(z₁), docs/schmid_mielke.md);
    /// static and kinetic are equal there. `None`: the formulation's constant coefficients.
    fn friction_coefficient<S: Real>(&self, _q: &[S; N]) -> Option<S> {
        None
    }
    /// The contact directions `(c, d)` when they do not depend on `q` (a flat surface and a
    /// contact point that is a coordinate, as the rod's `(x_A, y_A)`): then the gap is affine,
    /// `gap = dᵀq + const`, and δ, δ̇, u are linear in the state, so the event scan can bound
    /// the kinematic event functions over a whole step ([`crate::hybrid::HybridSystem::event_slopes`]).
    /// `None` (the default) when they vary or the system does not say; a system that answers
    /// must agree with its [`Self::contact_kinematics`] everywhere (tested with
    /// `crate::compliant::tests::check_constant_contact_directions`).
    fn constant_contact_directions(&self) -> Option<([f64; N], [f64; N])> {
        None
    }
    /// The dynamics projected onto the contact directions at time `t` and `(q, q̇)`: M⁻¹f,
    /// M⁻¹c, M⁻¹d and C–V's scalars. The default solves with the Cholesky factor of `M(q)`
    /// ([`ProjectedDynamics::by_cholesky`]); a system whose M⁻¹ has a closed form (the rod's
    /// 3×3, docs/projection.md) overrides it — it is on the path of every right-hand side and
    /// event function — and must agree with the default to rounding (its tests check that).
    fn projected_dynamics<S: Real>(
        &self,
        t: S,
        q: &[S; N],
        qdot: &[S; N],
    ) -> ProjectedDynamics<S, N>
    where
        Self: Sized,
    {
        ProjectedDynamics::by_cholesky(self, t, q, qdot)
    }
}

/// The dynamics projected onto the contact directions at one state (C–V §3, eqs. (3.2)–(3.3)).
///
/// Notation map: C–V's `a, b, A, B, C` are the fields `free_tangential_accel`,
/// `free_normal_accel`, `tangential_mobility`, `cross_mobility`, `normal_mobility`. They are not
/// Zhao–Liu's eq. (11) coefficients; see [`crate::models::rod`] for those.
#[derive(Clone, Copy, Debug)]
pub struct ProjectedDynamics<S, const N: usize> {
    pub gap: S,
    /// Slip velocity `u = cᵀq̇`.
    pub u: S,
    /// Normal velocity `v = dᵀq̇` (positive away from the surface).
    pub v: S,
    /// `M⁻¹ f`.
    pub free_accel: [S; N],
    /// `M⁻¹ c`: generalised acceleration per unit tangential force.
    pub accel_per_tangential: [S; N],
    /// `M⁻¹ d`: generalised acceleration per unit normal force.
    pub accel_per_normal: [S; N],
    /// C–V `a = cᵀM⁻¹f + ċᵀq̇`.
    pub free_tangential_accel: S,
    /// C–V `b = dᵀM⁻¹f + ḋᵀq̇`.
    pub free_normal_accel: S,
    /// C–V `A = cᵀM⁻¹c > 0`.
    pub tangential_mobility: S,
    /// C–V `B = cᵀM⁻¹d`.
    pub cross_mobility: S,
    /// C–V `C = dᵀM⁻¹d > 0`.
    pub normal_mobility: S,
}

impl<S: Real, const N: usize> ProjectedDynamics<S, N> {
    /// Project an autonomous system at `(q, q̇)`.
    pub fn at<Sys: PlanarContactSystem<N>>(sys: &Sys, q: &[S; N], qdot: &[S; N]) -> Self {
        Self::at_time(sys, S::zero(), q, qdot)
    }

    /// Project the system at time `t` and `(q, q̇)` (the time only enters the external load of
    /// a non-autonomous system), the system's way
    /// ([`PlanarContactSystem::projected_dynamics`]).
    pub fn at_time<Sys: PlanarContactSystem<N>>(
        sys: &Sys,
        t: S,
        q: &[S; N],
        qdot: &[S; N],
    ) -> Self {
        sys.projected_dynamics(t, q, qdot)
    }

    /// The generic projection: `M(q)`'s Cholesky factor solved against f (plus the load at
    /// `t`), c and d, then C–V's scalars (eqs. (3.2)–(3.3)).
    pub fn by_cholesky<Sys: PlanarContactSystem<N>>(
        sys: &Sys,
        t: S,
        q: &[S; N],
        qdot: &[S; N],
    ) -> Self {
        let m = sys.mass_matrix(q);
        let mut f = sys.generalized_force(q, qdot);
        if !sys.is_autonomous() {
            for (fi, li) in f.iter_mut().zip(sys.external_load(t)) {
                *fi = *fi + li;
            }
        }
        let k = sys.contact_kinematics(q, qdot);
        Self::from_parts(&m, &f, &k, qdot)
    }

    /// The projection of M(q) q̈ = f + λ_T c + λ_N d at one state from its parts: the mass
    /// matrix, the force (load included) and the contact kinematics, by M's Cholesky factor.
    pub fn from_parts(
        m: &[[S; N]; N],
        f: &[S; N],
        k: &ContactKinematics<S, N>,
        qdot: &[S; N],
    ) -> Self {
        let chol = cholesky(m);
        let solve = |b: &[S; N]| cholesky_solve(&chol, b);
        Self::assemble(k, qdot, solve(f), solve(&k.tangential), solve(&k.normal))
    }

    /// [`Self::from_parts`] by M = L D Lᵀ with the pivots' reciprocals: no square root and N
    /// divisions, where the Cholesky path takes N square roots and N(N + 1)/2 + 2N·3 divisions.
    /// For systems whose M is evaluated from expressions (a described system); the hand-coded
    /// systems keep the Cholesky path, on which their committed results' rounding rests.
    pub fn from_parts_ldl(
        m: &[[S; N]; N],
        f: &[S; N],
        k: &ContactKinematics<S, N>,
        qdot: &[S; N],
    ) -> Self {
        let mass = MassFactor::of(m);
        let solve = |b: &[S; N]| mass.solve(b);
        Self::assemble(k, qdot, solve(f), solve(&k.tangential), solve(&k.normal))
    }

    fn assemble(
        k: &ContactKinematics<S, N>,
        qdot: &[S; N],
        free_accel: [S; N],
        accel_per_tangential: [S; N],
        accel_per_normal: [S; N],
    ) -> Self {
        ProjectedDynamics {
            gap: k.gap,
            u: dot(&k.tangential, qdot),
            v: dot(&k.normal, qdot),
            free_accel,
            accel_per_tangential,
            accel_per_normal,
            free_tangential_accel: dot(&k.tangential, &free_accel) + k.tangential_drift,
            free_normal_accel: dot(&k.normal, &free_accel) + k.normal_drift,
            tangential_mobility: dot(&k.tangential, &accel_per_tangential),
            cross_mobility: dot(&k.tangential, &accel_per_normal),
            normal_mobility: dot(&k.normal, &accel_per_normal),
        }
    }

    /// `q̈ = M⁻¹(f + λ_T c + λ_N d)`.
    pub fn generalized_accel(&self, normal_force: S, tangential_force: S) -> [S; N] {
        let mut out = self.free_accel;
        for (i, o) in out.iter_mut().enumerate() {
            *o = *o
                + tangential_force * self.accel_per_tangential[i]
                + normal_force * self.accel_per_normal[i];
        }
        out
    }

    /// `u̇ = a + A λ_T + B λ_N` (C–V eq. (3.2)).
    pub fn tangential_accel(&self, normal_force: S, tangential_force: S) -> S {
        self.free_tangential_accel
            + self.tangential_mobility * tangential_force
            + self.cross_mobility * normal_force
    }

    /// `v̇ = b + B λ_T + C λ_N` (C–V eq. (3.3)).
    pub fn normal_accel(&self, normal_force: S, tangential_force: S) -> S {
        self.free_normal_accel
            + self.cross_mobility * tangential_force
            + self.normal_mobility * normal_force
    }

    /// The tangential force that keeps `u̇ = 0` (stick): `λ_T = −(a + B λ_N)/A`.
    pub fn stick_tangential_force(&self, normal_force: S) -> S {
        -(self.free_tangential_accel + self.cross_mobility * normal_force)
            / self.tangential_mobility
    }
}

/// Kinetic energy `½ q̇ᵀ M(q) q̇`.
pub fn kinetic_energy<S: Real, const N: usize, Sys: Mechanics<N>>(
    sys: &Sys,
    q: &[S; N],
    qdot: &[S; N],
) -> S {
    let m = sys.mass_matrix(q);
    let mut e = S::zero();
    for i in 0..N {
        for j in 0..N {
            e = e + qdot[i] * m[i][j] * qdot[j];
        }
    }
    e.scale(0.5)
}

/// `aᵀb`.
pub fn dot<S: Real, const N: usize>(a: &[S; N], b: &[S; N]) -> S {
    a.iter().zip(b).fold(S::zero(), |s, (&x, &y)| s + x * y)
}

// Index loops read as the textbook algorithm here.
#[allow(clippy::needless_range_loop)]
/// Lower-triangular Cholesky factor of a symmetric positive-definite matrix.
pub(crate) fn cholesky<S: Real, const N: usize>(m: &[[S; N]; N]) -> [[S; N]; N] {
    let mut l = [[S::zero(); N]; N];
    for j in 0..N {
        let mut d = m[j][j];
        for k in 0..j {
            d = d - l[j][k] * l[j][k];
        }
        let d = d.sqrt();
        l[j][j] = d;
        for i in j + 1..N {
            let mut s = m[i][j];
            for k in 0..j {
                s = s - l[i][k] * l[j][k];
            }
            l[i][j] = s / d;
        }
    }
    l
}

/// M = L D Lᵀ (unit lower L) of a symmetric positive-definite matrix: L and 1/D.
#[allow(clippy::needless_range_loop)]
pub(crate) fn ldl<S: Real, const N: usize>(m: &[[S; N]; N]) -> ([[S; N]; N], [S; N]) {
    let mut l = [[S::zero(); N]; N];
    let mut d = [S::zero(); N];
    let mut inv_d = [S::zero(); N];
    for j in 0..N {
        let mut dj = m[j][j];
        for k in 0..j {
            dj = dj - l[j][k] * l[j][k] * d[k];
        }
        d[j] = dj;
        inv_d[j] = S::cst(1.0) / dj;
        l[j][j] = S::cst(1.0);
        for i in j + 1..N {
            let mut s = m[i][j];
            for k in 0..j {
                s = s - l[i][k] * l[j][k] * d[k];
            }
            l[i][j] = s * inv_d[j];
        }
    }
    (l, inv_d)
}

/// Solve L D Lᵀ x = b.
#[allow(clippy::needless_range_loop)]
pub(crate) fn ldl_solve<S: Real, const N: usize>(
    l: &[[S; N]; N],
    inv_d: &[S; N],
    b: &[S; N],
) -> [S; N] {
    let mut z = *b;
    for i in 0..N {
        for k in 0..i {
            z[i] = z[i] - l[i][k] * z[k];
        }
    }
    for i in 0..N {
        z[i] = z[i] * inv_d[i];
    }
    for i in (0..N).rev() {
        for k in i + 1..N {
            z[i] = z[i] - l[k][i] * z[k];
        }
    }
    z
}

#[allow(clippy::needless_range_loop)]
pub(crate) fn cholesky_solve<S: Real, const N: usize>(l: &[[S; N]; N], b: &[S; N]) -> [S; N] {
    let mut z = *b;
    for i in 0..N {
        for k in 0..i {
            z[i] = z[i] - l[i][k] * z[k];
        }
        z[i] = z[i] / l[i][i];
    }
    for i in (0..N).rev() {
        for k in i + 1..N {
            z[i] = z[i] - l[k][i] * z[k];
        }
        z[i] = z[i] / l[i][i];
    }
    z
}

/// Test of [`PlanarContactSystem::constant_contact_directions`]: where a system gives them,
/// its [`PlanarContactSystem::contact_kinematics`] has those directions, no drift, and a gap
/// whose differences are `dᵀ(q − q')`, at 200 configurations spread over ±10 per
/// coordinate (relative to rounding of the coordinates' size).
#[cfg(test)]
pub(crate) fn check_constant_contact_directions<Sys: PlanarContactSystem<N>, const N: usize>(
    sys: &Sys,
) {
    let (c, d) = sys
        .constant_contact_directions()
        .expect("the system gives constant contact directions");
    let config = |k: usize| -> [f64; N] {
        std::array::from_fn(|i| 10.0 * ((k as f64 + 1.0) * (0.754877 + 0.569840 * i as f64)).sin())
    };
    let qdot = [0.3; N];
    let gap0 = sys.contact_kinematics(&[0.0; N], &qdot).gap;
    for k in 0..200 {
        let q = config(k);
        let kin = sys.contact_kinematics(&q, &qdot);
        assert_eq!(kin.tangential, c, "tangential direction at {q:?}");
        assert_eq!(kin.normal, d, "normal direction at {q:?}");
        assert_eq!((kin.tangential_drift, kin.normal_drift), (0.0, 0.0));
        let affine = gap0 + dot(&d, &q);
        assert!(
            (kin.gap - affine).abs() <= 1e-13 * (1.0 + 10.0 * N as f64),
            "gap at {q:?}"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cholesky_and_ldl_solves_invert_a_spd_matrix() {
        let m = [[4.0, 1.0, -0.5], [1.0, 3.0, 0.2], [-0.5, 0.2, 2.0]];
        let b = [1.0, -2.0, 0.5];
        let (l, inv_d) = ldl(&m);
        for x in [cholesky_solve(&cholesky(&m), &b), ldl_solve(&l, &inv_d, &b)] {
            for i in 0..3 {
                let r: f64 = (0..3).map(|j| m[i][j] * x[j]).sum::<f64>() - b[i];
                assert!(r.abs() < 1e-14, "residual {r}");
            }
        }
    }
}
